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
//! # Making it fast without changing a result
//!
//! hail re-evaluates every node for every candidate it checks. hailstone
//! evaluates every node once per search ([`N1Cache`]) and, for a candidate,
//! re-evaluates only the nodes whose verdict the placement could change. A
//! verdict is cached only when it cannot depend on floating-point scores:
//! * the drbd failovers are deterministic, so a failed failover is a final
//!   "no", depending only on the nodes the failovers touched;
//! * when, after the failovers, one node of the group could take *all* the
//!   remaining instances together, the verdict is "yes" whatever nodes the
//!   score-based choices pick: resources only shrink as instances are
//!   added, so that node accepts each instance at each step (this needs
//!   non-negative sizes, which the shortcut checks). The verdict then
//!   depends on the touched nodes and that one node.
//!
//! Otherwise the node is evaluated in full, as hail does, every time. A
//! placement changes only its own nodes (and, through hail's key
//! bookkeeping, the nodes of an instance whose key the new instance takes),
//! so a cached verdict stays valid unless one of its nodes changed.
//!
//! Cost: O(N) per check to walk the verdicts plus the re-evaluated nodes;
//! full evaluations score every candidate node (O(N) each).

use smallvec::SmallVec;

use crate::hslist;
use crate::model::instance::{Instance, NO_NODE};
use crate::model::node::Node;
use crate::moves::{self, Move, MoveError};
use crate::solution::Metric;
use crate::state::{Crash, State};

/// A node's verdict and the nodes it depends on.
#[derive(Debug, Clone)]
struct Verdict {
    /// `Some` when the verdict cannot depend on scores; `None` when the
    /// node must be evaluated in full for each placement.
    result: Option<bool>,
    /// Nodes whose change invalidates the verdict.
    deps: SmallVec<[usize; 8]>,
}

/// Per-search verdicts of the nodes of a state.
pub struct N1Cache {
    verdicts: Vec<Option<Verdict>>,
}

impl N1Cache {
    /// Evaluates every node of the state (which must be the search's base
    /// state, before any placement).
    pub fn new(state: &mut State) -> Result<N1Cache, Crash> {
        let mut verdicts: Vec<Option<Verdict>> = vec![None; state.node_slots()];
        let keys: Vec<usize> = state.node_keys().collect();
        for k in keys {
            let cp = state.checkpoint();
            let v = evaluate(state, k, false);
            state.rollback(cp);
            verdicts[k] = Some(match v {
                Ok(v) => v,
                // A lookup hail crashes on: re-evaluate in full when the
                // node is reached, so the crash happens where hail's would.
                Err(_) => Verdict {
                    result: None,
                    deps: SmallVec::new(),
                },
            });
        }
        Ok(N1Cache { verdicts })
    }
}

/// Whether the placement leaves the node list N+1 redundant
/// (`allocGlobalN1`). `changed` are the placement's new nodes (primary,
/// then secondary) and `inst` the placed instance record. `cache` holds the
/// verdicts of the state before the placement.
pub fn placement_is_redundant(
    state: &mut State,
    cache: &N1Cache,
    changed: &[(usize, &Node)],
    inst: &Instance,
) -> Result<bool, Crash> {
    let cp = state.checkpoint();
    let new_key = state.inst_count();
    let mut affected: SmallVec<[usize; 4]> = changed.iter().map(|(k, _)| *k).collect();
    // hail stores the new instance at key `size il`; in a group-local list
    // that key may belong to an existing instance, whose nodes then see the
    // new record.
    if let Ok(old) = state.inst(new_key as i32) {
        for k in [old.p_node, old.s_node] {
            if let Ok(k) = usize::try_from(k) {
                affected.push(k);
            }
        }
    }
    apply_placement(state, changed, inst, new_key);
    let result = redundant_with(state, cache, &affected);
    state.rollback(cp);
    result
}

fn redundant_with(state: &mut State, cache: &N1Cache, affected: &[usize]) -> Result<bool, Crash> {
    let keys: Vec<usize> = state.node_keys().collect();
    for n in keys {
        let cached = cache
            .verdicts
            .get(n)
            .and_then(|v| v.as_ref())
            .and_then(|v| {
                let touched = affected.contains(&n) || v.deps.iter().any(|d| affected.contains(d));
                if touched {
                    None
                } else {
                    v.result
                }
            });
        let ok = match cached {
            Some(r) => r,
            None => can_evacuate_node(state, n)?,
        };
        if !ok {
            return Ok(false);
        }
    }
    Ok(true)
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

/// Whether every node of the state can be evacuated (`redundant`), without
/// a cache.
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
    let result = evaluate(state, n, true);
    state.rollback(cp);
    match result?.result {
        Some(r) => Ok(r),
        None => unreachable_full(),
    }
}

#[cold]
fn unreachable_full() -> ! {
    panic!("internal error: a full evaluation always yields a verdict")
}

/// Evaluates node `n`'s evacuation on the state (changing it; the caller
/// rolls back). With `full`, a node whose verdict depends on scores is
/// simulated as hail does; without, it is left undecided.
fn evaluate(state: &mut State, n: usize, full: bool) -> Result<Verdict, Crash> {
    let node = state.node_at(n);
    let group = node.group;
    let mut deps: SmallVec<[usize; 8]> = SmallVec::new();
    deps.push(n);
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
        for k in [inst.p_node, inst.s_node] {
            if let Ok(k) = usize::try_from(k) {
                if !deps.contains(&k) {
                    deps.push(k);
                }
            }
        }
        match moves::apply(state, &inst, Move::Failover, true) {
            Ok(m) => m.commit(state, idx as usize),
            Err(MoveError::Fail(_)) => {
                return Ok(Verdict {
                    result: Some(false),
                    deps,
                })
            }
            Err(MoveError::Crash(c)) => return Err(c),
        }
    }
    if shared.is_empty() && others.is_empty() {
        return Ok(Verdict {
            result: Some(true),
            deps,
        });
    }

    let escape: Vec<usize> = state
        .node_keys()
        .filter(|&k| k != n && state.node_at(k).group == group)
        .collect();
    let mut remaining = Vec::with_capacity(shared.len() + others.len());
    for &idx in shared.iter().chain(others.iter()) {
        remaining.push(state.inst(idx)?.clone());
    }
    if let Some(e) = absorbing_node(state, &remaining, shared.len(), &escape) {
        deps.push(e);
        for inst in &remaining[..shared.len()] {
            if let Ok(k) = usize::try_from(inst.p_node) {
                deps.push(k);
            }
        }
        return Ok(Verdict {
            result: Some(true),
            deps,
        });
    }
    if !full {
        return Ok(Verdict { result: None, deps });
    }

    // Move shared-storage primaries to the best node of the group.
    for idx in shared {
        let inst = state.inst(idx)?.clone();
        if !evacuate_shared(state, &inst, group, &escape)? {
            return Ok(Verdict {
                result: Some(false),
                deps,
            });
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
            return Ok(Verdict {
                result: Some(false),
                deps,
            });
        }
    }
    Ok(Verdict {
        result: Some(true),
        deps,
    })
}

/// A node of `escape` that can take every remaining instance at once (the
/// first `n_shared` by failover, the rest by recreation), with hail's
/// forced checks; see the module doc for why that decides the verdict.
fn absorbing_node(
    state: &State,
    remaining: &[Instance],
    n_shared: usize,
    escape: &[usize],
) -> Option<usize> {
    let sizes_ok = remaining.iter().all(|i| {
        i.mem >= 0
            && i.dsk >= 0
            && i.vcpus >= 0
            && i.disks.iter().all(|d| d.spindles.is_none_or(|s| s >= 0))
    });
    if !sizes_ok {
        return None;
    }
    'candidates: for &e in escape {
        let mut node = state.node_at(e).clone();
        for (i, inst) in remaining.iter().enumerate() {
            if i < n_shared {
                let Ok(src) = state.node(inst.p_node) else {
                    continue 'candidates;
                };
                if src.check_migration(&node).is_err() {
                    continue 'candidates;
                }
            } else if state
                .policy(node.group)
                .check(inst, node.excl_storage)
                .is_err()
            {
                continue 'candidates;
            }
            if node.add_pri(true, inst).is_err() {
                continue 'candidates;
            }
        }
        return Some(e);
    }
    None
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
