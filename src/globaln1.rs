//! The global N+1 capacity check (`GlobalN1.allocGlobalN1`, `redundant`,
//! `canEvacuateNode`): after a tentative placement, can every node of the
//! node list still be evacuated? A node is evacuable if, with soft errors
//! ignored, all its drbd primaries fail over to their secondaries, all its
//! shared-storage primaries move to another node of its group (best by
//! group score), and all its other primaries (plain, file, blockdev) can
//! be recreated on another node of its group (best by cluster score,
//! largest memory first).
//!
//! The check follows hail's data flow exactly, including its index
//! bookkeeping: the placed instance is added at key `size il` while its
//! record keeps its own `idx`, and moves remove an instance from node lists
//! by that `idx`. Each node's trial runs on the shared [`State`] and is
//! rolled back afterwards.
//!
//! Cost: for each node, its primaries' moves; shared-storage moves and
//! recreations also score every candidate node (O(N) each).

use crate::hslist;
use crate::model::instance::{Instance, NO_NODE};
use crate::model::node::Node;
use crate::moves::{self, Move, MoveError};
use crate::solution::Metric;
use crate::state::{Crash, State};

/// Whether the placement leaves the node list N+1 redundant
/// (`allocGlobalN1`). `changed` are the placement's new nodes (primary,
/// then secondary) and `inst` the placed instance record.
pub fn placement_is_redundant(
    state: &mut State,
    changed: &[(usize, &Node)],
    inst: &Instance,
) -> Result<bool, Crash> {
    let cp = state.checkpoint();
    let new_key = state.inst_count();
    apply_placement(state, changed, inst, new_key);
    let result = redundant(state);
    state.rollback(cp);
    result
}

/// Writes a placement into the state as hail's `extractNl` and `updateIl`
/// do: the instance goes to key `new_key`, and on the placement's nodes the
/// placeholder index -1 becomes `new_key`.
pub fn apply_placement(
    state: &mut State,
    changed: &[(usize, &Node)],
    inst: &Instance,
    new_key: usize,
) {
    for (k, node) in changed {
        let mut fixed = (*node).clone();
        for i in fixed.p_list.iter_mut().chain(fixed.s_list.iter_mut()) {
            if *i < 0 {
                *i = new_key as i32;
            }
        }
        state.set_node(*k, fixed);
    }
    state.set_inst(new_key, inst.clone());
}

/// Whether every node of the state can be evacuated (`redundant`).
pub fn redundant(state: &mut State) -> Result<bool, Crash> {
    let keys: Vec<usize> = state.node_keys().collect();
    for k in keys {
        if !can_evacuate_node(state, k)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether node `n` can be evacuated (`canEvacuateNode`); leaves the state
/// unchanged.
pub fn can_evacuate_node(state: &mut State, n: usize) -> Result<bool, Crash> {
    let cp = state.checkpoint();
    let result = evacuate_trial(state, n);
    state.rollback(cp);
    result
}

fn evacuate_trial(state: &mut State, n: usize) -> Result<bool, Crash> {
    let node = state.node_at(n);
    let group = node.group;
    let mut drbd = Vec::new();
    let mut shared = Vec::new();
    let mut others = Vec::new();
    for idx in node.primaries() {
        let inst = state.inst(idx)?;
        if inst.has_secondary() {
            drbd.push(idx);
        } else if inst.disk_template.movable() {
            shared.push(idx);
        } else {
            others.push(idx);
        }
    }

    // Fail over every drbd primary, soft errors ignored.
    for idx in drbd {
        let inst = state.inst(idx)?.clone();
        match moves::apply(state, &inst, Move::Failover, true) {
            Ok(m) => m.commit(state, idx as usize),
            Err(MoveError::Fail(_)) => return Ok(false),
            Err(MoveError::Crash(c)) => return Err(c),
        }
    }

    let escape: Vec<usize> = state
        .node_keys()
        .filter(|&k| k != n && state.node_at(k).group == group)
        .collect();

    // Move shared-storage primaries to the best node of the group.
    for idx in shared {
        let inst = state.inst(idx)?.clone();
        if !evacuate_shared(state, &inst, group, &escape)? {
            return Ok(false);
        }
    }

    // Recreate the rest, largest memory first.
    let mut recreate = Vec::with_capacity(others.len());
    for idx in others {
        recreate.push(state.inst(idx)?.clone());
    }
    let recreate = hslist::sort_by(recreate, |a, b| b.mem.cmp(&a.mem));
    for inst in recreate {
        if !recreate_instance(state, &inst, &escape)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Moves a shared-storage instance to the best escape node
/// (`nodeEvacInstance … ChangePrimary`, soft errors ignored).
fn evacuate_shared(
    state: &mut State,
    inst: &Instance,
    group: usize,
    escape: &[usize],
) -> Result<bool, Crash> {
    let mut best: Option<(moves::Moved, f64)> = None;
    for &t in escape {
        match moves::apply(state, inst, Move::FailoverToAny(t), true) {
            Err(MoveError::Fail(_)) => {}
            Err(MoveError::Crash(c)) => return Err(c),
            Ok(m) => {
                let cv = state.group_score_with(group, &m.final_nodes());
                let keep_old = matches!(&best, Some((_, old)) if *old < cv);
                if !keep_old {
                    best = Some((m, cv));
                }
            }
        }
    }
    match best {
        None => Ok(false),
        Some((m, _)) => {
            // hail stores the moved instance under its own idx.
            if let Ok(k) = usize::try_from(inst.idx) {
                m.commit(state, k);
            } else {
                for (k, node) in m.nodes {
                    state.set_node(k, node);
                }
            }
            Ok(true)
        }
    }
}

/// Recreates a non-movable instance on the best escape node
/// (`GlobalN1.recreate`): policy check and forced primary placement, best
/// full cluster score, ties to the later node. The instance stays on its
/// old node too.
fn recreate_instance(state: &mut State, inst: &Instance, targets: &[usize]) -> Result<bool, Crash> {
    let mut ok: Vec<(usize, Node, f64)> = Vec::new();
    for &t in targets {
        let p = state.node_at(t);
        if state.policy(p.group).check(inst, p.excl_storage).is_err() {
            continue;
        }
        let mut new_p = p.clone();
        if new_p.add_pri(true, inst).is_err() {
            continue;
        }
        let score = state.score_with(&[(t, &new_p)]);
        ok.push((t, new_p, score));
    }
    // hail collects successes newest first and takes the first after a
    // stable sort by score: the best score, ties to the later node.
    ok.reverse();
    let sorted = hslist::sort_by(ok, |a, b| a.2.hs_compare(&b.2));
    let Some((t, new_p, _)) = sorted.into_iter().next() else {
        return Ok(false);
    };
    let mut placed = inst.clone();
    placed.p_node = t as i32;
    placed.s_node = NO_NODE;
    let new_key = state.inst_count();
    apply_placement(state, &[(t, &new_p)], &placed, new_key);
    Ok(true)
}
