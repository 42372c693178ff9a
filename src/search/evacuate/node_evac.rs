//! Node evacuation and group change, instance by instance on the updated
//! cluster (`Cluster.Evacuate.tryNodeEvac`, `nodeEvacInstance`,
//! `updateEvacSolution`, `availableGroupNodes`, `Cluster.tryChangeGroup`):
//! the nodes excluded as targets, each instance's move by its disk
//! template and the mode (a failover, a one-node move, a new pair), a
//! failed instance rolled back, and the outcome recorded. A group change
//! chooses each instance's group as a new allocation does
//! (`allocate::search_groups`).

use crate::model::group::Group;
use crate::model::instance::Instance;
use crate::model::types::{DiskTemplate, EvacMode, SoftChecks};
use crate::search::allocate::{search_groups, split_groups, AllocOptions, GroupsRead, SearchError};
use crate::search::moves::Move;
use crate::search::state::{Crash, State};

use super::drbd_all::evac_drbd_all;
use super::one_node::evac_one_node_only;
use super::{
    apply, commit, EvacError, EvacSolution, GroupSearchHook, Job, MoveKind, MoveNote, Notes,
    Target, TargetOutcome,
};

/// The note of a failover that failed with `mode`: the check that
/// refused it, on the secondary taking the instance over (or on the old
/// primary becoming its secondary), as `moves::apply` ran them.
fn failover_note(state: &State, inst: &Instance, soft: SoftChecks, mode: &str) -> MoveNote {
    let detail = (|| {
        let (pn, sn) = (state.node(inst.p_node).ok()?, state.node(inst.s_node).ok()?);
        let soft = soft.ignored_if(pn.offline);
        let mut int_s = sn.clone();
        int_s.remove_sec(inst);
        if let Err(r) = int_s.check_add_pri(soft, inst) {
            return Some((r, int_s, inst.s_node));
        }
        let mut int_p = pn.clone();
        int_p.remove_pri(inst);
        int_p
            .check_add_sec(pn.offline, soft, inst, inst.s_node)
            .err()
            .map(|r| (r, int_p, inst.p_node))
    })();
    let target = usize::try_from(inst.s_node).unwrap_or(usize::MAX);
    let refused = detail
        .filter(|(r, ..)| r.mode.name() == mode)
        .map(|(r, node, _)| Box::new((r, node)));
    MoveNote {
        inst: usize::try_from(inst.idx).unwrap_or(usize::MAX),
        kind: MoveKind::Failover,
        targets: vec![Target::one(
            target,
            TargetOutcome::Refused(mode.to_owned(), refused),
        )],
        chosen: None,
    }
}

/// Whether failing the drbd instance over would make a node Ganeti refuses
/// (drained, offline or not vm_capable) its primary. hail fails over to the
/// secondary whatever its state; Ganeti's migration refuses a drained
/// target, so hailstone reports the instance as failed instead.
fn failover_target_unusable(state: &State, inst: &Instance) -> bool {
    state.node(inst.s_node).is_ok_and(|s| s.offline)
}

fn drained_target_message(state: &State, inst: &Instance) -> String {
    let name = state
        .node(inst.s_node)
        .map_or("?", |n| n.info.name.as_str());
    format!("the secondary node {name} is drained or offline and cannot take over the instance")
}

/// Moves one instance (`nodeEvacInstance`); a large drbd "all"
/// evacuation scans on several threads unless `one_thread`, the row of
/// `likely` (a primary likely to win) early.
#[allow(clippy::too_many_arguments)]
fn node_evac_instance(
    state: &mut State,
    inst: &Instance,
    mode: EvacMode,
    group: usize,
    avail: &[usize],
    soft: SoftChecks,
    notes: Notes<'_>,
    one_thread: bool,
    likely: Option<usize>,
) -> Result<Job, EvacError> {
    let t = inst.disk_template;
    match t {
        DiskTemplate::Plain => Err(EvacError::Message(
            "Instances of type plain cannot be relocated".to_owned(),
        )),
        DiskTemplate::File => Err(EvacError::Message(
            "Instances of type file cannot be relocated".to_owned(),
        )),
        DiskTemplate::Drbd => match mode {
            EvacMode::ChangePrimary => match apply(state, inst, Move::Failover, soft)? {
                Err(f) => {
                    if let Some(notes) = notes {
                        notes.push(failover_note(state, inst, soft, &f));
                    }
                    Err(EvacError::Message(f))
                }
                Ok(_) if failover_target_unusable(state, inst) => {
                    Err(EvacError::Message(drained_target_message(state, inst)))
                }
                Ok(m) => {
                    commit(state, m, inst.idx);
                    Ok(vec![Move::Failover])
                }
            },
            EvacMode::ChangeSecondary => evac_one_node_only(state, inst, group, avail, soft, notes),
            EvacMode::ChangeAll => {
                match evac_drbd_all(state, inst, group, avail, soft, notes, one_thread, likely)? {
                    Ok(jobs) => Ok(jobs),
                    Err(msg) => Err(EvacError::Message(msg)),
                }
            }
        },
        _ => {
            if mode == EvacMode::ChangeSecondary {
                return Err(EvacError::Message(format!(
                    "Instances with disk template '{}' can't execute change secondary",
                    t.raw()
                )));
            }
            evac_one_node_only(state, inst, group, avail, soft, notes)
        }
    }
}

/// Records one instance's outcome (`updateEvacSolution`).
fn update_solution(
    state: &State,
    sol: &mut EvacSolution,
    idx: i32,
    result: Result<Job, EvacError>,
) -> Result<(), Crash> {
    match result {
        Err(EvacError::Crash(c)) => Err(c),
        Err(EvacError::Message(m)) => {
            sol.failed.push((idx as usize, m));
            Ok(())
        }
        Ok(moves) => {
            let inst = state.inst(idx)?;
            let group = state.node(inst.p_node)?.group;
            let nodes = inst.all_nodes().into_iter().map(|n| n as usize).collect();
            sol.moved.push((idx as usize, group, nodes));
            sol.moves.push(moves);
            Ok(())
        }
    }
}

/// The node groups' node keys (`splitCluster`, as an association list).
fn group_nodes(node_groups: &[Group], state: &State) -> Vec<(usize, Vec<usize>)> {
    split_groups(state, node_groups.len())
}

/// The available nodes of a group (`availableGroupNodes`).
fn available(
    groups: &[(usize, Vec<usize>)],
    excluded: &[bool],
    g: usize,
) -> Result<Vec<usize>, String> {
    match groups.iter().find(|(gg, _)| *gg == g) {
        None => Err(format!("Can't find group with index {g}")),
        Some((_, keys)) => Ok(keys.iter().copied().filter(|&k| !excluded[k]).collect()),
    }
}

/// Marks every offline (htools: offline, drained or not vm_capable) node as
/// excluded from the targets.
fn exclude_offline(state: &State, excluded: &mut [bool]) {
    for k in state.node_keys() {
        if state.node_at(k).offline {
            excluded[k] = true;
        }
    }
}

/// Evacuates instances (`tryNodeEvac`).
pub fn try_node_evac(
    node_groups: &[Group],
    state: &mut State,
    mode: EvacMode,
    instances: &[usize],
    soft: SoftChecks,
    mut notes: Notes<'_>,
) -> Result<EvacSolution, Crash> {
    let originals: Vec<Instance> = instances
        .iter()
        .map(|&k| state.inst(k as i32).cloned())
        .collect::<Result<_, _>>()?;
    let mut excluded = vec![false; state.node_slots()];
    for inst in &originals {
        let mut mark = |k: i32| {
            if let Ok(k) = usize::try_from(k) {
                if k < excluded.len() {
                    excluded[k] = true;
                }
            }
        };
        let with_secondary = inst.disk_template == DiskTemplate::Drbd;
        match mode {
            EvacMode::ChangePrimary => mark(inst.p_node),
            EvacMode::ChangeSecondary => {
                if with_secondary {
                    mark(inst.s_node)
                }
            }
            EvacMode::ChangeAll => {
                mark(inst.p_node);
                if with_secondary {
                    mark(inst.s_node)
                }
            }
        }
    }
    exclude_offline(state, &mut excluded);
    let groups = group_nodes(node_groups, state);
    let mut sol = EvacSolution::default();
    for inst in &originals {
        let group = state.node(inst.p_node)?.group;
        let mut excl = excluded.clone();
        if let Ok(p) = usize::try_from(inst.p_node) {
            excl[p] = true;
        }
        let cp = state.checkpoint();
        let result = match available(&groups, &excl, group) {
            Err(m) => Err(EvacError::Message(m)),
            Ok(avail) => node_evac_instance(
                state,
                inst,
                mode,
                group,
                &avail,
                soft,
                notes.as_deref_mut(),
                false,
                None,
            ),
        };
        if result.is_err() {
            state.rollback(cp);
        }
        update_solution(state, &mut sol, inst.idx, result)?;
    }
    state.commit();
    Ok(sol)
}

/// Moves instances to other groups (`tryChangeGroup`): for each instance
/// the best target group is chosen as for a new allocation (with the
/// command-line options), then the instance is evacuated into it in "all"
/// mode with soft errors never ignored.
pub fn try_change_group(
    node_groups: &[Group],
    state: &mut State,
    target_groups: &[usize],
    instances: &[usize],
    opts: &AllocOptions,
    explain: Option<&mut GroupSearchHook<'_>>,
    notes: Notes<'_>,
) -> Result<EvacSolution, Crash> {
    let sol = change_group(
        node_groups,
        state,
        target_groups,
        instances,
        opts,
        explain,
        notes,
    )?;
    state.commit();
    Ok(sol)
}

/// [`try_change_group`] without forgetting the state's undo log: a caller
/// holding a checkpoint from before may still roll the moves back (the
/// multi-group planners try a group's repair and drop it when it fails).
pub fn change_group(
    node_groups: &[Group],
    state: &mut State,
    target_groups: &[usize],
    instances: &[usize],
    opts: &AllocOptions,
    mut explain: Option<&mut GroupSearchHook<'_>>,
    mut notes: Notes<'_>,
) -> Result<EvacSolution, Crash> {
    let originals: Vec<Instance> = instances
        .iter()
        .map(|&k| state.inst(k as i32).cloned())
        .collect::<Result<_, _>>()?;
    let mut evac_groups: Vec<usize> = Vec::new();
    for inst in &originals {
        let g = state.node(inst.p_node)?.group;
        if !evac_groups.contains(&g) {
            evac_groups.push(g);
        }
    }
    // List difference: one occurrence of each evacuated group is removed.
    let mut targets: Vec<usize> = if target_groups.is_empty() {
        (0..node_groups.len()).collect()
    } else {
        target_groups.to_vec()
    };
    for g in &evac_groups {
        if let Some(pos) = targets.iter().position(|t| t == g) {
            targets.remove(pos);
        }
    }
    let mut excluded = vec![false; state.node_slots()];
    exclude_offline(state, &mut excluded);
    let groups = group_nodes(node_groups, state);
    let mut sol = EvacSolution::default();
    // Only the chosen group is read (and, when no group can take the
    // instance, the groups' descriptions, whose tallies `winner_only`
    // keeps exact), unless a hook reads the search. Without the capacity
    // check (and without refusing offline secondaries) no candidate is
    // dropped after its score, so `winner_only` leaves every tally exact
    // and a hook reads the same search.
    let exact_anyway = !opts.capacity_checks && !opts.online_secondary_only;
    // Without a hook only the chosen group is read: a group that cannot
    // win may stop its search early.
    let winner_opts = AllocOptions {
        winner_only: explain.is_none() || exact_anyway,
        groups_read: if explain.is_none() {
            GroupsRead::Winner
        } else {
            opts.groups_read
        },
        ..opts.clone()
    };
    let opts = &winner_opts;
    for inst in &originals {
        let count = inst.disk_template.required_nodes() as i64;
        let cp = state.checkpoint();
        let search = search_groups(node_groups, state, Some(&targets), inst, count, opts)?;
        if let Some(hook) = explain.as_deref_mut() {
            hook(state, inst, count, &search)?;
        }
        // The primary of the placement that chose the group is likely the
        // best primary of the move into it.
        let likely = search
            .winner(node_groups)
            .and_then(|w| search.results.iter().find(|(g, _)| *g == w))
            .and_then(|(_, r)| r.as_ref().ok()?.best.as_ref())
            .map(|b| b.primary);
        // The messages only when no group has a solution.
        let chosen = match search.winner(node_groups) {
            Some(g) => Ok(g),
            None => search.choose(node_groups, Some(&targets)).map(|c| c.group),
        };
        let result = match chosen {
            Err(SearchError::Crash(c)) => return Err(c),
            Err(SearchError::Message(m)) => Err(EvacError::Message(m)),
            Ok(chosen) => match available(&groups, &excluded, chosen) {
                Err(m) => Err(EvacError::Message(m)),
                Ok(avail) => node_evac_instance(
                    state,
                    inst,
                    EvacMode::ChangeAll,
                    chosen,
                    &avail,
                    // hail keeps a group change strict.
                    SoftChecks::Enforce,
                    notes.as_deref_mut(),
                    opts.one_thread,
                    likely,
                ),
            },
        };
        if result.is_err() {
            state.rollback(cp);
        }
        update_solution(state, &mut sol, inst.idx, result)?;
    }
    Ok(sol)
}
