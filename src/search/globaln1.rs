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

use crate::model::instance::{Instance, NO_NODE};
use crate::model::node::Node;
use crate::model::types::SoftChecks;
use crate::search::ghc_sort;
use crate::search::moves::{self, Move, MoveError, Nodes, Overlay};
use crate::search::solution::Metric;
use crate::search::state::{Crash, State};

/// A node's verdict and the nodes it depends on.
#[derive(Debug, Clone)]
struct Verdict {
    /// `Some` when the verdict cannot depend on scores; `None` when the
    /// node must be evaluated in full for each placement.
    result: Option<bool>,
    /// On a "no": the instance (key) that could not leave, and how it
    /// was to leave.
    blocker: Option<(i32, &'static str)>,
    /// Nodes whose change invalidates the verdict.
    deps: SmallVec<[usize; 8]>,
}

/// Which nodes the check looks at (`redundant`'s filters): all of them
/// for hail; hspace leaves out the groups it ignores
/// (`algCapacityIgnoreGroups`) and, accepting existing failures, the
/// offline nodes (`algAcceptExisting`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct N1Scope {
    /// Groups left out.
    pub ignore_groups: Vec<usize>,
    /// Offline nodes left out.
    pub skip_offline: bool,
}

impl N1Scope {
    /// Whether node `n` is looked at.
    pub fn covers(&self, n: &Node) -> bool {
        !(self.ignore_groups.contains(&n.group) || self.skip_offline && n.offline)
    }
}

/// `redundant`: whether every node `scope` covers could be evacuated,
/// evaluated in full in key order (the first refusal decides); leaves the
/// state unchanged.
pub fn redundant(state: &mut State, scope: &N1Scope) -> Result<bool, Crash> {
    let keys: Vec<usize> = state.node_keys().collect();
    for k in keys {
        if scope.covers(state.node_at(k)) && !can_evacuate_node(state, k)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Per-search verdicts of the nodes of a state.
pub struct N1Cache {
    verdicts: Vec<Option<Verdict>>,
    /// For each node, the nodes whose verdict depends on it.
    dependents: Vec<SmallVec<[usize; 4]>>,
    /// Nodes that must be evaluated in full for every placement, ascending.
    volatile: Vec<usize>,
    /// Nodes whose cached verdict is "no", ascending.
    refusing: Vec<usize>,
}

impl N1Cache {
    /// Evaluates every node of the state that `scope` covers (the state
    /// must be the search's base state, before any placement).
    pub fn new(state: &mut State, scope: &N1Scope) -> Result<N1Cache, Crash> {
        let slots = state.node_slots();
        let mut verdicts: Vec<Option<Verdict>> = vec![None; slots];
        let mut dependents: Vec<SmallVec<[usize; 4]>> = vec![SmallVec::new(); slots];
        let mut volatile = Vec::new();
        let mut refusing = Vec::new();
        let keys: Vec<usize> = state
            .node_keys()
            .filter(|&k| scope.covers(state.node_at(k)))
            .collect();
        for k in keys {
            let cp = state.checkpoint();
            let v = evaluate(state, k, false);
            state.rollback(cp);
            // A lookup hail crashes on: evaluate in full when the node is
            // reached, so the crash happens where hail's would.
            let v = v.unwrap_or(Verdict {
                result: None,
                blocker: None,
                deps: SmallVec::new(),
            });
            match v.result {
                None => volatile.push(k),
                Some(false) => refusing.push(k),
                Some(true) => {}
            }
            for &d in &v.deps {
                if d < slots && d != k && !dependents[d].contains(&k) {
                    dependents[d].push(k);
                }
            }
            verdicts[k] = Some(v);
        }
        Ok(N1Cache {
            verdicts,
            dependents,
            volatile,
            refusing,
        })
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

/// `redundant` using the cache: the nodes to evaluate are the volatile
/// ones, the changed ones and those depending on a changed one; every
/// other node keeps its cached verdict. Nodes are visited in key order, as
/// hail's `all` does, so the first refusal decides.
fn redundant_with(state: &mut State, cache: &N1Cache, affected: &[usize]) -> Result<bool, Crash> {
    let mut todo: Vec<usize> = cache.volatile.clone();
    for &a in affected {
        if cache.verdicts.get(a).is_some_and(|v| v.is_some()) {
            todo.push(a);
        }
        if let Some(ds) = cache.dependents.get(a) {
            todo.extend_from_slice(ds);
        }
    }
    todo.sort_unstable();
    todo.dedup();
    let mut refusing = cache
        .refusing
        .iter()
        .copied()
        .filter(|k| todo.binary_search(k).is_err())
        .peekable();
    for &n in &todo {
        if refusing.peek().is_some_and(|&r| r < n) {
            return Ok(false);
        }
        if !can_evacuate_node(state, n)? {
            return Ok(false);
        }
    }
    Ok(refusing.peek().is_none())
}

/// The first node, in key order, that could not be evacuated after the
/// placement (`None` when every node could): what made
/// [`placement_is_redundant`] refuse it. Evaluates every node in full
/// (for explanations, not for the search).
pub fn first_unevacuable(
    state: &mut State,
    changed: &[(usize, &Node)],
    inst: &Instance,
) -> Result<Option<Unevacuable>, Crash> {
    let cp = state.checkpoint();
    let new_key = state.inst_count();
    apply_placement(state, changed, inst, new_key);
    let mut found = None;
    let keys: Vec<usize> = state.node_keys().collect();
    for n in keys {
        match full_verdict(state, n) {
            Ok(v) if v.result == Some(false) => {
                let blocker = v.blocker.and_then(|(k, how)| {
                    let name = state.inst(k).ok()?.name.to_string();
                    Some((name, how))
                });
                found = Some(Unevacuable { node: n, blocker });
                break;
            }
            Ok(_) => {}
            Err(c) => {
                state.rollback(cp);
                return Err(c);
            }
        }
    }
    state.rollback(cp);
    Ok(found)
}

/// A node that could not be evacuated, and the instance that could not
/// leave it (its name, and how it was to leave).
#[derive(Debug, Clone, PartialEq)]
pub struct Unevacuable {
    pub node: usize,
    pub blocker: Option<(String, &'static str)>,
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

/// Whether node `n` can be evacuated (`canEvacuateNode`); leaves the state
/// unchanged.
pub fn can_evacuate_node(state: &mut State, n: usize) -> Result<bool, Crash> {
    match full_verdict(state, n)?.result {
        Some(r) => Ok(r),
        None => unreachable_full(),
    }
}

/// Node `n`'s verdict, evaluated in full; leaves the state unchanged.
fn full_verdict(state: &mut State, n: usize) -> Result<Verdict, Crash> {
    let cp = state.checkpoint();
    let result = evaluate(state, n, true);
    state.rollback(cp);
    result
}

#[cold]
fn unreachable_full() -> ! {
    panic!("internal error: a full evaluation always yields a verdict")
}

/// Evaluates node `n`'s evacuation on the state (changing it only on the
/// full path; the caller rolls back). With `full`, a node whose verdict
/// depends on scores is simulated as hail does; without, it is left
/// undecided.
fn evaluate(state: &mut State, n: usize, full: bool) -> Result<Verdict, Crash> {
    let node = state.node_at(n);
    let group = node.group;
    let mut deps: SmallVec<[usize; 8]> = SmallVec::new();
    deps.push(n);
    let mut drbd: SmallVec<[i32; 8]> = SmallVec::new();
    let mut shared: SmallVec<[i32; 8]> = SmallVec::new();
    let mut others: SmallVec<[i32; 8]> = SmallVec::new();
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

    // Fail over every drbd primary, soft errors ignored, on an overlay.
    let mut overlay = Overlay::new(state);
    for &idx in &drbd {
        let inst = overlay.inst(idx)?.clone();
        for k in [inst.p_node, inst.s_node] {
            if let Ok(k) = usize::try_from(k) {
                if !deps.contains(&k) {
                    deps.push(k);
                }
            }
        }
        match overlay.failover_in_place(&inst, idx as usize, SoftChecks::Ignore) {
            Ok(()) => {}
            Err(MoveError::Fail(_)) => {
                return Ok(Verdict {
                    result: Some(false),
                    blocker: Some((idx, "could not fail over to its secondary")),
                    deps,
                })
            }
            Err(MoveError::Crash(c)) => return Err(c),
        }
    }
    if shared.is_empty() && others.is_empty() {
        return Ok(Verdict {
            result: Some(true),
            blocker: None,
            deps,
        });
    }

    let mut remaining: SmallVec<[Instance; 8]> = SmallVec::new();
    for &idx in shared.iter().chain(others.iter()) {
        remaining.push(overlay.inst(idx)?.clone());
    }
    if let Some(e) = absorbing_node(&overlay, state, &remaining, shared.len(), group, n) {
        deps.push(e);
        for inst in &remaining[..shared.len()] {
            if let Ok(k) = usize::try_from(inst.p_node) {
                deps.push(k);
            }
        }
        return Ok(Verdict {
            result: Some(true),
            blocker: None,
            deps,
        });
    }
    if !full {
        return Ok(Verdict {
            result: None,
            blocker: None,
            deps,
        });
    }

    // The full simulation works on the state itself.
    let (nodes, insts) = overlay.into_changes();
    for (k, node) in nodes {
        state.set_node(k, node);
    }
    for (k, inst) in insts {
        state.set_inst(k, inst);
    }
    let escape: Vec<usize> = state
        .group_keys(group)
        .iter()
        .copied()
        .filter(|&k| k != n)
        .collect();

    // Move shared-storage primaries to the best node of the group.
    for idx in shared {
        let inst = state.inst(idx)?.clone();
        if !evacuate_shared(state, &inst, group, &escape)? {
            return Ok(Verdict {
                result: Some(false),
                blocker: Some((idx, "could not move to another node of its group")),
                deps,
            });
        }
    }

    // Recreate the rest, largest memory first.
    let mut recreate = Vec::with_capacity(others.len());
    for idx in others {
        recreate.push(state.inst(idx)?.clone());
    }
    let recreate = ghc_sort::sort_by(recreate, |a, b| b.mem.cmp(&a.mem));
    for inst in recreate {
        if !recreate_instance(state, &inst, &escape)? {
            return Ok(Verdict {
                result: Some(false),
                blocker: Some((
                    inst.idx,
                    "could not be re-created on another node of its group",
                )),
                deps,
            });
        }
    }
    Ok(Verdict {
        result: Some(true),
        blocker: None,
        deps,
    })
}

/// A node of `n`'s group, other than `n`, that could take every remaining
/// instance at once (the first `n_shared` by failover, the rest by
/// recreation) under hail's forced checks; see the module doc for why that
/// decides the verdict. Nodes are read through the overlay of the
/// failovers.
fn absorbing_node(
    overlay: &Overlay<'_>,
    state: &State,
    remaining: &[Instance],
    n_shared: usize,
    group: usize,
    n: usize,
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
    // Forthcoming instances are placed with no check when forced.
    let real = || remaining.iter().filter(|i| !i.forthcoming);
    let mem: i64 = real().filter(|i| i.uses_memory()).map(|i| i.mem).sum();
    let any_real = real().next().is_some();
    let dsk: i64 = real()
        .filter(|i| i.uses_local_storage())
        .map(|i| i.dsk)
        .sum();
    let any_local = real().any(|i| i.uses_local_storage());
    // Spindles taken up to the last local-storage instance (the last step
    // at which hail checks them); unknown counts rule the shortcut out on
    // exclusive-storage nodes.
    let last_local = remaining
        .iter()
        .rposition(|i| !i.forthcoming && i.uses_local_storage());
    let spindles: Option<i64> = match last_local {
        None => Some(0),
        Some(last) => remaining[..=last]
            .iter()
            .filter(|i| !i.forthcoming)
            .map(|i| i.total_spindles())
            .sum(),
    };
    for &e in state.group_keys(group) {
        if e == n {
            continue;
        }
        let Ok(cand) = overlay.node(e as i32) else {
            continue;
        };
        if any_real && cand.unallocated_mem().wrapping_sub(mem) <= 0 {
            continue;
        }
        if any_local && cand.f_dsk.wrapping_sub(dsk) <= 0 {
            continue;
        }
        if cand.excl_storage && any_local {
            match spindles {
                Some(sp) if cand.f_spindles.wrapping_sub(sp) >= 0 => {}
                _ => continue,
            }
        }
        let migrations_ok = remaining[..n_shared].iter().all(|i| {
            overlay
                .node(i.p_node)
                .is_ok_and(|src| src.check_migration(cand).is_ok())
        });
        if !migrations_ok {
            continue;
        }
        let policy = state.policy(cand.group);
        if remaining[n_shared..]
            .iter()
            .any(|i| policy.check(i, cand.excl_storage).is_err())
        {
            continue;
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
        match moves::apply(state, inst, Move::FailoverToAny(t), SoftChecks::Ignore) {
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
        if new_p.add_pri(SoftChecks::Ignore, inst).is_err() {
            continue;
        }
        let score = state.score_with(&[(t, &new_p)]);
        ok.push((t, new_p, score));
    }
    // hail collects successes newest first and takes the first after a
    // stable sort by score: the best score, ties to the later node.
    ok.reverse();
    let sorted = ghc_sort::sort_by(ok, |a, b| a.2.hs_compare(&b.2));
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
