//! Runs one loaded request (`IAlloc.processRequest` and hail's `main`):
//! decides whether an allocation is dedicated, dispatches by request type,
//! and turns the algorithm's outcome into an [`Answer`].

use crate::explain;
use crate::model::group::Group;
use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::model::{Cluster, Request};
use crate::search::allocate::{self, AllocOptions, SearchError};
use crate::search::dedicated;
use crate::search::evacuate;
use crate::search::globaln1;
use crate::search::solution::{AllocSolution, Metric};
use crate::search::state::State;
use crate::search::AlgorithmOptions;
use crate::write::answer::{self, Answer};

/// Why no answer can be given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// hail itself would crash on this input (an internal lookup fails).
    #[error("cannot answer: the cluster data is inconsistent ({0}); hail fails on this input too")]
    Inconsistent(String),
}

/// What happens to the model's memory after the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Teardown {
    /// Free it piece by piece (tests, fuzzing, several requests in one
    /// process).
    Free,
    /// Leave it to the process exit (a process that exits right after the
    /// answer).
    Leak,
}

/// Whether an allocation request is "dedicated" (`Dedicated.isDedicated`):
/// every node either has exclusive storage or is outside the relevant
/// groups (those named by `group_name`, else all allocable groups).
pub fn is_dedicated(cluster: &Cluster, group_name: Option<&str>) -> bool {
    let relevant = |g: usize| match group_name {
        Some(name) => cluster.groups[g].name == name,
        None => cluster.groups[g].is_allocable(),
    };
    cluster
        .nodes
        .iter()
        .all(|n| n.excl_storage || !relevant(n.group))
}

/// The group name that decides dedicated allocation, if the request is an
/// allocation (`isAllocationRequest`).
pub fn allocation_group(request: &Request) -> Option<Option<&str>> {
    match request {
        Request::Allocate { group_name, .. } => Some(group_name.as_deref()),
        Request::MultiAllocate {
            instances,
            group_name,
        } => {
            // Every instance carries the outer group name, so the unique
            // group is that name whenever there is at least one instance.
            if instances.is_empty() {
                Some(None)
            } else {
                Some(group_name.as_deref())
            }
        }
        _ => None,
    }
}

fn search_failure<M: Metric>(
    r: Result<AllocSolution<M>, SearchError>,
) -> Result<Result<AllocSolution<M>, String>, RunError> {
    match r {
        Ok(sol) => Ok(Ok(sol)),
        Err(SearchError::Message(m)) => Ok(Err(m)),
        Err(SearchError::Crash(c)) => Err(RunError::Inconsistent(c.0)),
    }
}

/// `formatAllocate`: the node names, or a failure carrying the log.
fn format_allocate<M: Metric>(sol: &AllocSolution<M>) -> Answer {
    let info = sol.log.join(", ");
    match &sol.best {
        None => Answer::failure(&info),
        Some(p) => Answer::success(&info, answer::string_list(&p.node_names)),
    }
}

/// Processes the request. The search takes over the loaded node and
/// instance lists as its state (they are not copied). With `want_final`,
/// also hail's final node and instance lists (`None` when they are the
/// initial ones).
pub fn run(
    cluster: Cluster,
    request: Request,
    algorithm: &AlgorithmOptions,
    teardown: Teardown,
    want_final: bool,
    rec: Option<&mut explain::Recorder>,
) -> Result<(Answer, Option<Final>), RunError> {
    let dedicated = allocation_group(&request).is_some_and(|g| is_dedicated(&cluster, g));
    let Cluster {
        groups,
        nodes,
        instances,
        ..
    } = cluster;
    let mut state = State::from_lists(nodes, instances, &groups);
    let want = Want(want_final);
    let answer = answer_request(
        &groups, &mut state, &request, dedicated, algorithm, want, rec,
    );
    if teardown == Teardown::Leak {
        std::mem::forget(state);
        std::mem::forget(request);
        std::mem::forget(groups);
    }
    answer
}

fn answer_request(
    groups: &[Group],
    state: &mut State,
    request: &Request,
    dedicated: bool,
    algorithm: &AlgorithmOptions,
    want: Want,
    mut rec: Option<&mut explain::Recorder>,
) -> Result<(Answer, Option<Final>), RunError> {
    if let (true, Some(r)) = (dedicated, rec.as_deref_mut()) {
        r.notes.push(
            "dedicated allocation (every node has exclusive storage): hail compares the \
             candidates by the allocations of the policy's minimal instances they lose, then \
             by the disk they leave, not by the cluster score"
                .to_owned(),
        );
    }
    match request {
        Request::Allocate {
            instance,
            required_nodes,
            group_name,
            restrict_to_nodes,
        } => {
            let alloc_opts = AllocOptions::new(algorithm, restrict_to_nodes.clone());
            if dedicated {
                if let Some(r) = rec {
                    let (g, c) = (group_name.as_deref(), *required_nodes);
                    explain_dedicated(groups, state, instance, c, g, &alloc_opts, r)?;
                }
                let result = match group_name {
                    None => dedicated::find_mg_allocation(
                        groups,
                        state,
                        instance,
                        *required_nodes,
                        &alloc_opts,
                    ),
                    Some(g) => dedicated::find_group_allocation(
                        groups,
                        state,
                        g,
                        instance,
                        *required_nodes,
                        &alloc_opts,
                    ),
                };
                return Ok(match search_failure(result)? {
                    // hail's dedicated search works on the group's nodes.
                    Ok(sol) => (format_allocate(&sol), want.placed(state, &sol, true)),
                    Err(message) => (Answer::failure(&message), None),
                });
            }
            let result = allocate_one(
                groups,
                state,
                instance,
                *required_nodes,
                group_name.as_deref(),
                &alloc_opts,
                rec,
            )?;
            Ok(match search_failure(result)? {
                // With a group name, hail's search works on the group's
                // nodes only.
                Ok(sol) => (
                    format_allocate(&sol),
                    want.placed(state, &sol, group_name.is_some()),
                ),
                Err(message) => (Answer::failure(&message), None),
            })
        }
        Request::MultiAllocate {
            instances,
            group_name,
        } => {
            let alloc_opts = AllocOptions::new(algorithm, None);
            let outcome = if dedicated {
                multi_allocate_dedicated(
                    groups,
                    state,
                    instances,
                    group_name.as_deref(),
                    &alloc_opts,
                    want,
                    rec,
                )?
            } else {
                multi_allocate(
                    groups,
                    state,
                    instances,
                    group_name.as_deref(),
                    &alloc_opts,
                    want,
                    rec,
                )?
            };
            Ok(match outcome {
                Ok((rows, fin)) => (format_multi_allocate(&rows), fin),
                Err(message) => (Answer::failure(&message), None),
            })
        }
        Request::Relocate {
            instance,
            required_nodes,
            relocate_from,
        } => {
            let mut notes = rec.is_some().then(Vec::new);
            let r = evacuate::relocate(
                groups,
                state,
                *instance,
                *required_nodes,
                relocate_from,
                algorithm.soft,
                notes.as_mut(),
            )
            .map_err(|c| RunError::Inconsistent(c.0))?;
            record_moves(rec, state, notes);
            Ok(match r {
                Ok(node) => (
                    Answer::success(
                        "success",
                        answer::string_list(&[&state.node_at(node).info.name]),
                    ),
                    want.state(state),
                ),
                Err(message) => (Answer::failure(&message), None),
            })
        }
        Request::NodeEvacuate { instances, mode } => {
            let mut notes = rec.is_some().then(Vec::new);
            let sol = evacuate::try_node_evac(
                groups,
                state,
                *mode,
                instances,
                algorithm.soft,
                notes.as_mut(),
            )
            .map_err(|c| RunError::Inconsistent(c.0))?;
            let sol = if algorithm.inter_group_evacuation {
                let opts = AllocOptions::new(algorithm, None);
                crate::search::groups::evacuate_elsewhere(groups, state, sol, &opts)
                    .map_err(|c| RunError::Inconsistent(c.0))?
            } else {
                sol
            };
            note_failed(rec.as_deref_mut(), state, &sol);
            record_moves(rec, state, notes);
            let (info, result) = evacuate::format_evac(groups, state, &sol);
            Ok((Answer::success(&info, result), want.state(state)))
        }
        Request::ChangeGroup {
            instances,
            target_groups,
        } => {
            let opts = AllocOptions {
                explain: rec.is_some(),
                ..AllocOptions::new(algorithm, None)
            };
            let mut notes = rec.is_some().then(Vec::new);
            let sol = match rec.as_deref_mut() {
                None => evacuate::try_change_group(
                    groups,
                    state,
                    target_groups,
                    instances,
                    &opts,
                    None,
                    None,
                ),
                Some(r) => {
                    let mut parts = Vec::new();
                    let ctx = explain::allocate::Context {
                        groups,
                        tags: &r.tags,
                        opts: &opts,
                    };
                    let mut hook =
                        |st: &mut State,
                         inst: &Instance,
                         count: i64,
                         search: &allocate::GroupSearch| {
                            parts.push(explain::allocate::from_search(
                                &ctx, st, inst, count, search,
                            )?);
                            Ok(())
                        };
                    let sol = evacuate::try_change_group(
                        groups,
                        state,
                        target_groups,
                        instances,
                        &opts,
                        Some(&mut hook),
                        notes.as_mut(),
                    );
                    // The group search picks the group; the move inside it
                    // picks its own nodes: the explanation shows those.
                    if let Ok(sol) = &sol {
                        for (part, &k) in parts.iter_mut().zip(instances) {
                            part.chosen =
                                sol.moved.iter().find(|m| m.0 == k).map(|(_, g, nodes)| {
                                    let names = nodes
                                        .iter()
                                        .map(|&n| state.node_at(n).info.name.clone())
                                        .collect();
                                    (groups[*g].name.clone(), names)
                                });
                        }
                    }
                    r.placements.extend(parts);
                    sol
                }
            }
            .map_err(|c| RunError::Inconsistent(c.0))?;
            note_failed(rec.as_deref_mut(), state, &sol);
            record_moves(rec, state, notes);
            let (info, result) = evacuate::format_evac(groups, state, &sol);
            Ok((Answer::success(&info, result), want.state(state)))
        }
        Request::AllocateSecondary { instance } => {
            let opts = AllocOptions {
                explain: rec.is_some(),
                ..AllocOptions::new(algorithm, None)
            };
            let r = allocate::try_allocate_secondary(state, *instance, &opts)
                .map_err(|c| RunError::Inconsistent(c.0))?;
            if let (Some(rec), Ok(sol)) = (rec, &r) {
                explain_secondary(groups, state, *instance, &opts, sol, rec)?;
            }
            Ok(match r {
                Err(message) => (Answer::failure(&message), None),
                Ok(sol) => {
                    let info = sol.log.join(", ");
                    match sol.best.as_ref().and_then(|b| b.secondary) {
                        Some(s) => (
                            Answer::success(&info, answer::string(&state.node_at(s).info.name)),
                            want.placed_in_place(state, &sol),
                        ),
                        None => (Answer::failure(&info), None),
                    }
                }
            })
        }
    }
}

/// A multi-allocation's rows and hail's final lists, or why the whole
/// request failed.
type MultiOutcome = Result<(Vec<MultiRow>, Option<Final>), String>;

/// One multi-allocate row: the instance name and its search outcome.
struct MultiRow {
    name: String,
    /// The placement's node names, if placed.
    nodes: Option<Vec<String>>,
    /// The search description (used for failed instances).
    description: String,
}

fn row<M: Metric>(name: &str, sol: &AllocSolution<M>) -> MultiRow {
    MultiRow {
        name: name.to_owned(),
        nodes: sol.best.as_ref().map(|p| p.node_names.clone()),
        description: sol.log.join(", "),
    }
}

/// Explains a dedicated allocation of `inst`: each group's dedicated
/// search (all groups, or the one named) run again with its notes on the
/// same state.
fn explain_dedicated(
    groups: &[Group],
    state: &mut State,
    inst: &Instance,
    count: i64,
    group_name: Option<&str>,
    opts: &AllocOptions,
    rec: &mut explain::Recorder,
) -> Result<(), RunError> {
    let opts = AllocOptions {
        explain: true,
        ..opts.clone()
    };
    let keys: Vec<usize> = match group_name {
        None => allocate::split_groups(state, groups.len())
            .into_iter()
            .map(|(g, _)| g)
            .collect(),
        Some(name) => match crate::model::find_group(groups, name) {
            crate::model::NameMatch::One(g) => vec![g],
            _ => Vec::new(),
        },
    };
    let mut results = Vec::new();
    for g in keys {
        match dedicated::find_allocation(groups, state, g, inst, count, &opts) {
            Err(SearchError::Crash(c)) => return Err(RunError::Inconsistent(c.0)),
            r => results.push((g, r)),
        }
    }
    let ctx = explain::allocate::Context {
        groups,
        tags: &rec.tags,
        opts: &opts,
    };
    let part = explain::allocate::from_dedicated(&ctx, state, inst, count, &results);
    rec.placements
        .push(part.map_err(|c| RunError::Inconsistent(c.0))?);
    Ok(())
}

/// Explains an allocate-secondary search: the instance as the search saw
/// it (drbd, off its primary, which the state still shows), its primary's
/// group and the pairs tried.
fn explain_secondary(
    groups: &[Group],
    state: &mut State,
    idx: usize,
    opts: &AllocOptions,
    sol: &AllocSolution<f64>,
    rec: &mut explain::Recorder,
) -> Result<(), RunError> {
    let crash = |c: crate::search::state::Crash| RunError::Inconsistent(c.0);
    let mut drbd = state.inst(idx as i32).map_err(crash)?.clone();
    drbd.disk_template = crate::model::types::DiskTemplate::Drbd;
    let group = state.node(drbd.p_node).map_err(crash)?.group;
    let opts = AllocOptions {
        online_secondary_only: true,
        ..opts.clone()
    };
    let ctx = explain::allocate::Context {
        groups,
        tags: &rec.tags,
        opts: &opts,
    };
    let part = explain::allocate::from_group(&ctx, state, Some(group), &drbd, 2, &Ok(sol.clone()));
    rec.placements.push(part.map_err(crash)?);
    Ok(())
}

/// Notes each instance an evacuation could not move, with hail's reason.
fn note_failed(rec: Option<&mut explain::Recorder>, state: &State, sol: &evacuate::EvacSolution) {
    if let Some(r) = rec {
        for (k, message) in &sol.failed {
            let name = state.inst(*k as i32).map_or("?", |i| &i.name);
            r.notes.push(format!("{name} was not moved: {message}"));
        }
    }
}

/// Explains the one-node moves an evacuation noted.
fn record_moves(
    rec: Option<&mut explain::Recorder>,
    state: &State,
    notes: Option<Vec<evacuate::MoveNote>>,
) {
    if let (Some(rec), Some(notes)) = (rec, notes) {
        let parts = explain::moves::parts(state, &rec.tags, &notes);
        rec.moves.extend(parts);
    }
}

/// One instance's allocation search (`tryMGAlloc`, or `tryGroupAlloc`
/// with a group name). With a recorder, the search keeps its notes and is
/// explained into it; what it decides is the same.
fn allocate_one(
    groups: &[Group],
    state: &mut State,
    inst: &Instance,
    count: i64,
    group_name: Option<&str>,
    opts: &AllocOptions,
    rec: Option<&mut explain::Recorder>,
) -> Result<Result<AllocSolution<f64>, SearchError>, RunError> {
    let Some(rec) = rec else {
        return Ok(match group_name {
            None => allocate::try_mg_alloc(groups, state, inst, count, opts),
            Some(g) => {
                allocate::try_group_alloc(groups, state, g, inst, count, opts).map(|(sol, _)| sol)
            }
        });
    };
    let opts = AllocOptions {
        explain: true,
        ..opts.clone()
    };
    let crash = |c: crate::search::state::Crash| RunError::Inconsistent(c.0);
    let ctx = explain::allocate::Context {
        groups,
        tags: &rec.tags,
        opts: &opts,
    };
    let out = match group_name {
        None => {
            let search =
                allocate::search_groups(groups, state, None, inst, count, &opts).map_err(crash)?;
            let part = explain::allocate::from_search(&ctx, state, inst, count, &search);
            rec.placements.push(part.map_err(crash)?);
            search
                .choose(groups, None)
                .map(|choice| allocate::mg_solution(groups, choice))
        }
        Some(g) => {
            let found = match crate::model::find_group(groups, g) {
                crate::model::NameMatch::One(k) => Some(k),
                _ => None,
            };
            let result = allocate::try_group_alloc(groups, state, g, inst, count, &opts);
            let (result, mut gstate) = match result {
                Ok((sol, gstate)) => (Ok(sol), gstate),
                Err(e) => (
                    Err(e),
                    match found {
                        Some(k) => allocate::group_state(state, k),
                        None => state.restricted(|_| false, |_| false),
                    },
                ),
            };
            let part =
                explain::allocate::from_group(&ctx, &mut gstate, found, inst, count, &result);
            rec.placements.push(part.map_err(crash)?);
            result
        }
    };
    Ok(out)
}

/// Places the instances one after another on the updated cluster
/// (`allocList`). Any instance that fits in no group fails the request.
fn multi_allocate(
    groups: &[Group],
    state: &mut State,
    instances: &[(crate::model::instance::Instance, i64)],
    group_name: Option<&str>,
    opts: &AllocOptions,
    want: Want,
    mut rec: Option<&mut explain::Recorder>,
) -> Result<MultiOutcome, RunError> {
    let mut rows = Vec::with_capacity(instances.len());
    // The answer shows a search's description only for an instance that
    // was not placed, whose tallies `winner_only` keeps exact.
    let opts = &AllocOptions {
        winner_only: rec.is_none(),
        ..opts.clone()
    };
    // With a group name, hail's node list is the group's once a placement
    // was made there.
    let mut placed_group = None;
    for (inst, count) in instances {
        let result = allocate_one(
            groups,
            state,
            inst,
            *count,
            group_name,
            opts,
            rec.as_deref_mut(),
        )?;
        let sol = match search_failure(result)? {
            Ok(sol) => sol,
            Err(message) => return Ok(Err(message)),
        };
        if let Some(best) = &sol.best {
            let new_key = state.inst_count();
            let changed: Vec<(usize, &crate::model::node::Node)> =
                best.nodes.iter().map(|(k, n)| (*k, n)).collect();
            globaln1::apply_placement(state, &changed, &best.inst, new_key);
            state.commit();
            if group_name.is_some() {
                placed_group = Some(state.node_at(best.primary).group);
            }
        }
        rows.push(row(&inst.name, &sol));
    }
    let fin = want.then(|| Final::of_state(state, placed_group, &[]));
    Ok(Ok((rows, fin)))
}

/// Dedicated multi-allocation (`runDedicatedAllocation`). Without a group,
/// each placement leaves only the chosen group's nodes for the next
/// instance (hail keeps the group-local node list of the solution); with a
/// group, every instance is searched on the original cluster.
fn multi_allocate_dedicated(
    groups: &[Group],
    original: &State,
    instances: &[(crate::model::instance::Instance, i64)],
    group_name: Option<&str>,
    opts: &AllocOptions,
    want: Want,
    mut rec: Option<&mut explain::Recorder>,
) -> Result<MultiOutcome, RunError> {
    let mut state = original.restricted(|_| true, |_| true);
    let mut rows = Vec::with_capacity(instances.len());
    // With a group, hail's final node list is the last solution's: the
    // original group's nodes with that one placement.
    let mut last_placement: Option<(usize, Vec<(usize, Node)>)> = None;
    for (inst, count) in instances {
        if let Some(r) = rec.as_deref_mut() {
            // The search this instance meets: the updated cluster, or the
            // original one with a group name.
            let mut seen = match group_name {
                None => state.restricted(|_| true, |_| true),
                Some(_) => original.restricted(|_| true, |_| true),
            };
            explain_dedicated(groups, &mut seen, inst, *count, group_name, opts, r)?;
        }
        let result = match group_name {
            None => dedicated::find_mg_allocation(groups, &state, inst, *count, opts),
            Some(g) => {
                dedicated::find_group_allocation_raw(groups, original, g, inst, *count, opts)
            }
        };
        let sol = match search_failure(result)? {
            Ok(sol) => sol,
            Err(message) => return Ok(Err(message)),
        };
        if let Some(best) = &sol.best {
            let g = original.node_at(best.primary).group;
            let new_key = state.inst_count();
            let mut next = state.restricted(|n| n.group == g, |_| true);
            let changed: Vec<(usize, &crate::model::node::Node)> =
                best.nodes.iter().map(|(k, n)| (*k, n)).collect();
            globaln1::apply_placement(&mut next, &changed, &best.inst, new_key);
            next.commit();
            state = next;
            if want.0 && group_name.is_some() {
                last_placement = Some((g, best.nodes.clone()));
            }
        }
        rows.push(row(&inst.name, &sol));
    }
    let fin = want.then(|| match &last_placement {
        Some((g, nodes)) => {
            let mut fin = Final::of_state(original, Some(*g), nodes);
            fin.instances = Final::of_state(&state, None, &[]).instances;
            fin
        }
        None => Final::of_state(&state, None, &[]),
    });
    Ok(Ok((rows, fin)))
}

/// `formatMultiAlloc`: `[[[name, [nodes]], ...], [[name, description], ...]]`.
fn format_multi_allocate(rows: &[MultiRow]) -> Answer {
    let mut placed = Vec::new();
    let mut failed = Vec::new();
    for r in rows {
        match &r.nodes {
            Some(nodes) => placed.push(answer::list(&[
                answer::string(&r.name),
                answer::string_list(nodes),
            ])),
            None => failed.push(answer::list(&[
                answer::string(&r.name),
                answer::string(&r.description),
            ])),
        }
    }
    let info = format!(
        "{} instances failed to allocate and {} were allocated successfully",
        failed.len(),
        placed.len()
    );
    Answer::success(
        &info,
        answer::list(&[answer::list(&placed), answer::list(&failed)]),
    )
}

/// Whether hail's final lists are wanted (for `-S` and `-p`).
#[derive(Debug, Clone, Copy)]
struct Want(bool);

impl Want {
    fn then(self, f: impl FnOnce() -> Final) -> Option<Final> {
        self.0.then(f)
    }

    /// The state's lists as they are after the run.
    fn state(self, state: &State) -> Option<Final> {
        self.then(|| Final::of_state(state, None, &[]))
    }

    /// A new instance's placement: the instance goes first (hail adds it
    /// at its own index, -1); with `group_only`, only the placement's group
    /// is in hail's node list.
    fn placed<M: Metric>(
        self,
        state: &State,
        sol: &AllocSolution<M>,
        group_only: bool,
    ) -> Option<Final> {
        let best = sol.best.as_ref()?;
        self.then(|| {
            let group = group_only.then(|| state.node_at(best.primary).group);
            let mut fin = Final::of_state(state, group, &best.nodes);
            fin.instances.insert(0, best.inst.clone());
            fin
        })
    }

    /// An existing instance placed again (allocate-secondary): it keeps its
    /// key.
    fn placed_in_place<M: Metric>(self, state: &State, sol: &AllocSolution<M>) -> Option<Final> {
        let best = sol.best.as_ref()?;
        self.then(|| {
            let mut fin = Final::of_state(state, None, &best.nodes);
            if let Some(i) = fin.instances.iter_mut().find(|i| i.idx == best.inst.idx) {
                *i = best.inst.clone();
            }
            fin
        })
    }
}

/// hail's final node and instance lists (`fin_nl`, `fin_il`), in key
/// order: what `-S` saves after the run and `-p` shows as the final
/// cluster.
#[derive(Debug, Clone)]
pub struct Final {
    /// The nodes in hail's list (a group-local search keeps only its
    /// group's).
    pub nodes: Vec<Node>,
    /// Every node of the cluster after the run, for instances on nodes
    /// outside hail's list.
    pub all_nodes: Vec<Node>,
    /// The instances.
    pub instances: Vec<Instance>,
}

impl Final {
    /// The state's present nodes (only group `group`'s when given) with
    /// `changed` substituted, and its instances.
    fn of_state(state: &State, group: Option<usize>, changed: &[(usize, Node)]) -> Final {
        let node = |k: usize| -> Node {
            changed
                .iter()
                .find(|(c, _)| *c == k)
                .map_or_else(|| state.node_at(k).clone(), |(_, n)| n.clone())
        };
        let all_nodes: Vec<Node> = state.node_keys().map(node).collect();
        let nodes = match group {
            Some(g) => all_nodes.iter().filter(|n| n.group == g).cloned().collect(),
            None => all_nodes.clone(),
        };
        Final {
            nodes,
            all_nodes,
            instances: state.instances().cloned().collect(),
        }
    }
}
