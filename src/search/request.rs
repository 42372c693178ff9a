//! The search of one iallocator request (`IAlloc.processRequest`):
//! whether an allocation is dedicated, the search by request type, and
//! what it found as a [`Response`] (every name resolved, nothing written:
//! `write::iallocator` writes it), with hail's final node and instance
//! lists for `-S` and `-p` ([`Final`]).
//!
//! An [`Observer`] (the explanation's recorder) is shown each search as it
//! happens, on the state the search saw; the searches then keep their
//! candidate notes, which changes nothing they decide.

use crate::model::group::Group;
use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::model::response::{Evacuated, MovedInstance, MultiPlaced, Placed, Response};
use crate::model::{Cluster, Request};
use crate::search::allocate::{self, AllocOptions, GroupSearch, SearchError};
use crate::search::dedicated::{self, GroupResults};
use crate::search::evacuate::{self, EvacSolution, MoveNote};
use crate::search::globaln1;
use crate::search::solution::{AllocSolution, Metric};
use crate::search::state::{Crash, State};
use crate::search::AlgorithmOptions;

/// What is shown each search of a request as it runs (`--explain`): the
/// state is the one the search saw, and the search's notes are on.
pub trait Observer {
    /// The request is a dedicated allocation.
    fn dedicated_request(&mut self);
    /// Every allowed group's search of `inst` on `count` nodes, before the
    /// ranking.
    fn group_search(
        &mut self,
        groups: &[Group],
        opts: &AllocOptions,
        state: &mut State,
        inst: &Instance,
        count: i64,
        search: &GroupSearch,
    ) -> Result<(), Crash>;
    /// The search of `inst` in one named group (`group`: its index, `None`
    /// when no single group has the name), on the group's state.
    #[allow(clippy::too_many_arguments)]
    fn group_alloc(
        &mut self,
        groups: &[Group],
        opts: &AllocOptions,
        gstate: &mut State,
        group: Option<usize>,
        inst: &Instance,
        count: i64,
        result: &Result<AllocSolution<f64>, SearchError>,
    ) -> Result<(), Crash>;
    /// Each group's dedicated search of `inst`.
    fn dedicated(
        &mut self,
        groups: &[Group],
        opts: &AllocOptions,
        state: &mut State,
        inst: &Instance,
        count: i64,
        results: &GroupResults,
    ) -> Result<(), Crash>;
    /// An allocate-secondary search of the instance `idx`.
    fn secondary(
        &mut self,
        groups: &[Group],
        opts: &AllocOptions,
        state: &mut State,
        idx: usize,
        sol: &AllocSolution<f64>,
    ) -> Result<(), Crash>;
    /// The one-node moves an evacuation or relocation tried.
    fn moves(&mut self, state: &State, notes: &[MoveNote]);
    /// An evacuation's outcome: its failures, and (for a group change of
    /// `instances`) where each instance went.
    fn evacuated(
        &mut self,
        groups: &[Group],
        state: &State,
        instances: Option<&[usize]>,
        sol: &EvacSolution,
    );
}

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

fn crash(c: Crash) -> RunError {
    RunError::Inconsistent(c.0)
}

/// An allocation's outcome: its log, and its nodes' names if placed.
fn placed<M: Metric>(sol: &AllocSolution<M>) -> Placed {
    Placed {
        log: sol.log.clone(),
        nodes: sol.best.as_ref().map(|p| p.node_names.clone()),
    }
}

/// An evacuation's outcome with every name resolved (moves do not change
/// names).
fn evacuated(groups: &[Group], state: &State, sol: &EvacSolution) -> Evacuated {
    let node = |k: usize| state.node_at(k).info.name.clone();
    let moved = sol
        .moved
        .iter()
        .zip(&sol.moves)
        .map(|((k, g, nodes), moves)| {
            let inst = state.inst(*k as i32).ok();
            MovedInstance {
                instance: inst.map_or_else(String::new, |i| i.name.to_string()),
                forthcoming: inst.is_some_and(|i| i.forthcoming),
                group: groups[*g].name.clone(),
                nodes: nodes.iter().map(|&n| node(n)).collect(),
                moves: moves.iter().map(|m| m.map(node)).collect(),
            }
        })
        .collect();
    let failed = sol
        .failed
        .iter()
        .map(|(k, reason)| {
            let name = state.inst(*k as i32).map_or("", |i| &*i.name);
            (name.to_owned(), reason.clone())
        })
        .collect();
    Evacuated { moved, failed }
}

/// Searches the request. The search takes over the loaded node and
/// instance lists as its state (they are not copied). With
/// [`FinalLists::Keep`], also hail's final node and instance lists (`None`
/// when they are the initial ones).
pub fn run(
    cluster: Cluster,
    request: Request,
    algorithm: &AlgorithmOptions,
    teardown: Teardown,
    want: FinalLists,
    observer: Option<&mut dyn Observer>,
) -> Result<(Response, Option<Final>), RunError> {
    let dedicated = allocation_group(&request).is_some_and(|g| is_dedicated(&cluster, g));
    let Cluster {
        groups,
        nodes,
        instances,
        ..
    } = cluster;
    let mut state = State::from_lists(nodes, instances, &groups);
    let found = search(
        &groups, &mut state, &request, dedicated, algorithm, want, observer,
    );
    if teardown == Teardown::Leak {
        std::mem::forget(state);
        std::mem::forget(request);
        std::mem::forget(groups);
    }
    found
}

fn search(
    groups: &[Group],
    state: &mut State,
    request: &Request,
    dedicated: bool,
    algorithm: &AlgorithmOptions,
    want: FinalLists,
    mut obs: Option<&mut (dyn Observer + '_)>,
) -> Result<(Response, Option<Final>), RunError> {
    if let (true, Some(o)) = (dedicated, obs.as_deref_mut()) {
        o.dedicated_request();
    }
    // With an observer, the searches keep their candidate notes.
    let explain = obs.is_some();
    match request {
        Request::Allocate {
            instance,
            required_nodes,
            group_name,
            restrict_to_nodes,
        } => {
            let alloc_opts = AllocOptions {
                explain,
                ..AllocOptions::new(algorithm, restrict_to_nodes.clone())
            };
            let count = *required_nodes;
            if dedicated {
                let name = group_name.as_deref();
                let results =
                    dedicated::search_groups(groups, state, name, instance, count, &alloc_opts);
                if let Some(o) = obs {
                    o.dedicated(groups, &alloc_opts, state, instance, count, &results)
                        .map_err(crash)?;
                }
                let result = match name {
                    None => dedicated::choose_mg(groups, results),
                    Some(g) => dedicated::choose_named(groups, g, results, true),
                };
                return Ok(match search_failure(result)? {
                    // hail's dedicated search works on the group's nodes.
                    Ok(sol) => {
                        let fin = want.placed(state, &sol, true);
                        (Response::Allocate(Ok(placed(&sol))), fin)
                    }
                    Err(message) => (Response::Allocate(Err(message)), None),
                });
            }
            let result = allocate_one(
                groups,
                state,
                instance,
                count,
                group_name.as_deref(),
                &alloc_opts,
                obs,
            )?;
            Ok(match search_failure(result)? {
                // With a group name, hail's search works on the group's
                // nodes only.
                Ok(sol) => {
                    let fin = want.placed(state, &sol, group_name.is_some());
                    (Response::Allocate(Ok(placed(&sol))), fin)
                }
                Err(message) => (Response::Allocate(Err(message)), None),
            })
        }
        Request::MultiAllocate {
            instances,
            group_name,
        } => {
            let alloc_opts = AllocOptions {
                explain,
                ..AllocOptions::new(algorithm, None)
            };
            let name = group_name.as_deref();
            let outcome = if dedicated {
                multi_allocate_dedicated(groups, state, instances, name, &alloc_opts, want, obs)?
            } else {
                multi_allocate(groups, state, instances, name, &alloc_opts, want, obs)?
            };
            Ok(match outcome {
                Ok((rows, fin)) => (Response::MultiAllocate(Ok(rows)), fin),
                Err(message) => (Response::MultiAllocate(Err(message)), None),
            })
        }
        Request::Relocate {
            instance,
            required_nodes,
            relocate_from,
        } => {
            let mut notes = explain.then(Vec::new);
            let r = evacuate::relocate(
                groups,
                state,
                *instance,
                *required_nodes,
                relocate_from,
                algorithm.soft,
                notes.as_mut(),
            )
            .map_err(crash)?;
            if let (Some(o), Some(notes)) = (obs, &notes) {
                o.moves(state, notes);
            }
            Ok(match r {
                Ok(node) => (
                    Response::Relocate(Ok(state.node_at(node).info.name.clone())),
                    want.state(state),
                ),
                Err(message) => (Response::Relocate(Err(message)), None),
            })
        }
        Request::NodeEvacuate { instances, mode } => {
            let mut notes = explain.then(Vec::new);
            let sol = evacuate::try_node_evac(
                groups,
                state,
                *mode,
                instances,
                algorithm.soft,
                notes.as_mut(),
            )
            .map_err(crash)?;
            let sol = if algorithm.inter_group_evacuation {
                let opts = AllocOptions::new(algorithm, None);
                evacuate::evacuate_elsewhere(groups, state, sol, &opts).map_err(crash)?
            } else {
                sol
            };
            if let Some(o) = obs {
                o.evacuated(groups, state, None, &sol);
                if let Some(notes) = &notes {
                    o.moves(state, notes);
                }
            }
            Ok((
                Response::Evacuate(evacuated(groups, state, &sol)),
                want.state(state),
            ))
        }
        Request::ChangeGroup {
            instances,
            target_groups,
        } => {
            let opts = AllocOptions {
                explain,
                ..AllocOptions::new(algorithm, None)
            };
            let mut notes = explain.then(Vec::new);
            let sol = match obs.as_deref_mut() {
                None => evacuate::try_change_group(
                    groups,
                    state,
                    target_groups,
                    instances,
                    &opts,
                    None,
                    None,
                ),
                Some(o) => {
                    let mut hook =
                        |st: &mut State, inst: &Instance, count: i64, search: &GroupSearch| {
                            o.group_search(groups, &opts, st, inst, count, search)
                        };
                    evacuate::try_change_group(
                        groups,
                        state,
                        target_groups,
                        instances,
                        &opts,
                        Some(&mut hook),
                        notes.as_mut(),
                    )
                }
            }
            .map_err(crash)?;
            if let Some(o) = obs {
                o.evacuated(groups, state, Some(instances), &sol);
                if let Some(notes) = &notes {
                    o.moves(state, notes);
                }
            }
            Ok((
                Response::Evacuate(evacuated(groups, state, &sol)),
                want.state(state),
            ))
        }
        Request::AllocateSecondary { instance } => {
            let opts = AllocOptions {
                explain,
                ..AllocOptions::new(algorithm, None)
            };
            let r = allocate::try_allocate_secondary(state, *instance, &opts).map_err(crash)?;
            if let (Some(o), Ok(sol)) = (obs, &r) {
                o.secondary(groups, &opts, state, *instance, sol)
                    .map_err(crash)?;
            }
            Ok(match r {
                Err(message) => (Response::AllocateSecondary(Err(message)), None),
                Ok(sol) => match sol.best.as_ref().and_then(|b| b.secondary) {
                    Some(s) => {
                        let fin = want.placed_in_place(state, &sol);
                        let found = Placed {
                            log: sol.log,
                            nodes: Some(vec![state.node_at(s).info.name.clone()]),
                        };
                        (Response::AllocateSecondary(Ok(found)), fin)
                    }
                    None => (
                        Response::AllocateSecondary(Ok(Placed {
                            log: sol.log,
                            nodes: None,
                        })),
                        None,
                    ),
                },
            })
        }
    }
}

/// A multi-allocation's rows and hail's final lists, or why the whole
/// request failed.
type MultiOutcome = Result<(Vec<MultiPlaced>, Option<Final>), String>;

fn row<M: Metric>(name: &str, sol: &AllocSolution<M>) -> MultiPlaced {
    MultiPlaced {
        instance: name.to_owned(),
        placed: placed(sol),
    }
}

/// One instance's allocation search (`tryMGAlloc`, or `tryGroupAlloc`
/// with a group name), shown to the observer.
fn allocate_one(
    groups: &[Group],
    state: &mut State,
    inst: &Instance,
    count: i64,
    group_name: Option<&str>,
    opts: &AllocOptions,
    obs: Option<&mut (dyn Observer + '_)>,
) -> Result<Result<AllocSolution<f64>, SearchError>, RunError> {
    let Some(obs) = obs else {
        return Ok(match group_name {
            None => allocate::try_mg_alloc(groups, state, inst, count, opts),
            Some(g) => {
                allocate::try_group_alloc(groups, state, g, inst, count, opts).map(|(sol, _)| sol)
            }
        });
    };
    let out = match group_name {
        None => {
            let search =
                allocate::search_groups(groups, state, None, inst, count, opts).map_err(crash)?;
            obs.group_search(groups, opts, state, inst, count, &search)
                .map_err(crash)?;
            search
                .choose(groups, None)
                .map(|choice| allocate::mg_solution(groups, choice))
        }
        Some(g) => {
            let found = match crate::model::find_group(groups, g) {
                crate::model::NameMatch::One(k) => Some(k),
                _ => None,
            };
            let result = allocate::try_group_alloc(groups, state, g, inst, count, opts);
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
            obs.group_alloc(groups, opts, &mut gstate, found, inst, count, &result)
                .map_err(crash)?;
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
    want: FinalLists,
    mut obs: Option<&mut (dyn Observer + '_)>,
) -> Result<MultiOutcome, RunError> {
    let mut rows = Vec::with_capacity(instances.len());
    // The answer shows a search's description only for an instance that
    // was not placed, whose tallies `winner_only` keeps exact.
    let opts = &AllocOptions {
        winner_only: obs.is_none(),
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
            obs.as_deref_mut(),
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
    want: FinalLists,
    mut obs: Option<&mut (dyn Observer + '_)>,
) -> Result<MultiOutcome, RunError> {
    let mut state = original.restricted(|_| true, |_| true);
    let mut rows = Vec::with_capacity(instances.len());
    // With a group, hail's final node list is the last solution's: the
    // original group's nodes with that one placement.
    let mut last_placement: Option<(usize, Vec<(usize, Node)>)> = None;
    for (inst, count) in instances {
        // The search this instance meets: the updated cluster, or the
        // original one with a group name.
        let results = match group_name {
            None => dedicated::search_groups(groups, &state, None, inst, *count, opts),
            Some(_) => dedicated::search_groups(groups, original, group_name, inst, *count, opts),
        };
        if let Some(o) = obs.as_deref_mut() {
            let mut seen = match group_name {
                None => state.restricted(|_| true, |_| true),
                Some(_) => original.restricted(|_| true, |_| true),
            };
            o.dedicated(groups, opts, &mut seen, inst, *count, &results)
                .map_err(crash)?;
        }
        let result = match group_name {
            None => dedicated::choose_mg(groups, results),
            Some(g) => dedicated::choose_named(groups, g, results, false),
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
            if want == FinalLists::Keep && group_name.is_some() {
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

/// Whether hail's final node and instance lists are made (for `-S` and
/// `-p`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinalLists {
    /// Made, when they differ from the initial ones.
    Keep,
    /// Not made.
    Drop,
}

impl FinalLists {
    fn then(self, f: impl FnOnce() -> Final) -> Option<Final> {
        (self == FinalLists::Keep).then(f)
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
