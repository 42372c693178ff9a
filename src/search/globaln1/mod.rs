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
//! evaluates every node once per state ([`N1Cache`]; a count hands the
//! verdicts on from one state to the next, re-evaluating only the nodes a
//! placement could touch) and, for a candidate, re-evaluates only the
//! nodes whose verdict the placement could change. A verdict is cached
//! only when it cannot depend on floating-point scores:
//! * the drbd failovers are deterministic, so a failed failover is a final
//!   "no", depending only on the nodes the failovers touched;
//! * when, after the failovers, one node of the group could take *all* the
//!   remaining instances together, the verdict is "yes" whatever nodes the
//!   score-based choices pick: resources only shrink as instances are
//!   added, so that node accepts each instance at each step (this needs
//!   non-negative sizes, which the shortcut checks). The verdict then
//!   depends on the touched nodes and that one node;
//! * when enough nodes could each take the remaining instances one by one
//!   that the instances placed before any of them cannot fill all those
//!   nodes, the verdict is "yes" too, depending on the nodes counted
//!   ([`shortcut`] says how they are counted).
//!
//! Otherwise the node is evaluated in full, as hail does, every time; its
//! moves and recreations score only the nodes whose approximate score can
//! win ([`escape`]). A placement changes only its own nodes (and, through
//! hail's key bookkeeping, the nodes of an instance whose key the new
//! instance takes), so a cached verdict stays valid unless one of its
//! nodes changed.
//!
//! Cost: O(N) per check to walk the verdicts plus the re-evaluated nodes;
//! a full evaluation costs O(N) per instance moved, plus an exact O(N)
//! score for each near-tie.
//!
//! * [`cache`]: the verdicts of every node of a state, handed on from one
//!   state to the next of a count.
//! * [`shortcut`]: the verdicts decided without simulating the choices.
//! * [`escape`]: the full simulation's moves and recreations.

mod cache;
mod escape;
mod shortcut;

pub use cache::{redundant_cached, N1Cache, N1Slot};

use cache::BaseSums;
use escape::{evacuate_shared, recreate_instance, Sums};
use shortcut::{absorbing_node, spread_nodes, stuck_instance, Evacuation};

use smallvec::SmallVec;

use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::model::types::SoftChecks;
use crate::search::ghc_sort;
use crate::search::moves::{MoveError, Overlay};
use crate::search::state::{Crash, State};

/// A node's verdict and the nodes it depends on.
#[derive(Debug, Clone)]
struct Verdict {
    /// `Some` when the verdict cannot depend on scores; `None` when the
    /// node must be evaluated in full for each placement.
    result: Option<bool>,
    /// On a "no": the instance (key) that could not leave, and how it
    /// was to leave.
    blocker: Option<(i32, Departure)>,
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
/// hail's `all` does, so the first refusal decides (and a lookup hail
/// crashes on crashes here only if hail reaches it), unless no lookup can
/// fail on the state.
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
    if cache.lookups_sound {
        // No evaluation can crash, so the order of the nodes cannot change
        // the result: a refusal kept from the state decides at once, then
        // the verdicts that need no simulation, then the simulations.
        if refusing.peek().is_some() {
            return Ok(false);
        }
        let mut undecided = Vec::new();
        for &n in &todo {
            match verdict(state, n, Depth::Shortcuts, None)?.result {
                Some(true) => {}
                Some(false) => return Ok(false),
                None => undecided.push(n),
            }
        }
        for n in undecided {
            match verdict(state, n, Depth::Verdict, Some(&cache.sums))?.result {
                Some(true) => {}
                Some(false) => return Ok(false),
                None => unreachable_full(),
            }
        }
        return Ok(true);
    }
    for &n in &todo {
        if refusing.peek().is_some_and(|&r| r < n) {
            return Ok(false);
        }
        match verdict(state, n, Depth::Verdict, Some(&cache.sums))?.result {
            Some(true) => {}
            Some(false) => return Ok(false),
            None => unreachable_full(),
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
        match evacuation_blocker(state, n) {
            Ok(Some(u)) => {
                found = Some(u);
                break;
            }
            Ok(None) => {}
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
    pub blocker: Option<(String, Departure)>,
}

/// How an instance was to leave a node being evacuated, where hail's
/// simulation stopped (its words: `write::check`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Departure {
    /// A drbd instance failing over to its secondary.
    Failover,
    /// A shared-storage instance moving to another node of its group.
    Move,
    /// An instance re-created on another node of its group.
    Recreate,
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
    match verdict(state, n, Depth::Verdict, None)?.result {
        Some(r) => Ok(r),
        None => unreachable_full(),
    }
}

/// Why node `n` cannot be evacuated: `None` when it can, otherwise the
/// instance at which hail's simulation stops (its name, and how it was to
/// leave), when there is one. Evaluates the node in full; leaves the
/// state unchanged.
pub fn evacuation_blocker(state: &mut State, n: usize) -> Result<Option<Unevacuable>, Crash> {
    let v = verdict(state, n, Depth::Blocker, None)?;
    if v.result != Some(false) {
        return Ok(None);
    }
    let blocker = v.blocker.and_then(|(k, how)| {
        let name = state.inst(k).ok()?.name.to_string();
        Some((name, how))
    });
    Ok(Some(Unevacuable { node: n, blocker }))
}

/// Node `n`'s verdict, evaluated as far as `depth` says; leaves the state
/// unchanged.
fn verdict(
    state: &mut State,
    n: usize,
    depth: Depth,
    sums: Option<&BaseSums>,
) -> Result<Verdict, Crash> {
    let cp = state.checkpoint();
    let result = evaluate(state, n, depth, sums);
    state.rollback(cp);
    result
}

#[cold]
fn unreachable_full() -> ! {
    panic!("internal error: a full evaluation always yields a verdict")
}

/// How far [`evaluate`] goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Depth {
    /// Only the verdicts that cannot depend on scores; a node whose
    /// verdict does is left undecided.
    Shortcuts,
    /// A verdict for every node: simulated as hail does when no shortcut
    /// decides it.
    Verdict,
    /// A verdict, and on a "no" the instance at which hail's simulation
    /// stops (an instance that no node could take decides only the
    /// verdict: an earlier one may stop the simulation first).
    Blocker,
}

/// Evaluates node `n`'s evacuation on the state (changing it only on the
/// full path; the caller rolls back), as far as `depth` says.
fn evaluate(
    state: &mut State,
    n: usize,
    depth: Depth,
    sums_base: Option<&BaseSums>,
) -> Result<Verdict, Crash> {
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
    let base: &State = state;
    let mut overlay = Overlay::new(base);
    for &idx in &drbd {
        // An instance the overlay has not changed is read from the state,
        // without a copy.
        let changed = overlay.changed_inst(idx).cloned();
        let inst = match &changed {
            Some(i) => i,
            None => base.inst(idx)?,
        };
        for k in [inst.p_node, inst.s_node] {
            if let Ok(k) = usize::try_from(k) {
                if !deps.contains(&k) {
                    deps.push(k);
                }
            }
        }
        match overlay.failover_in_place(inst, idx as usize, SoftChecks::Ignore) {
            Ok(()) => {}
            Err(MoveError::Fail(_)) => {
                return Ok(Verdict {
                    result: Some(false),
                    blocker: Some((idx, Departure::Failover)),
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

    let mut remaining: SmallVec<[&Instance; 8]> = SmallVec::new();
    for &idx in shared.iter().chain(others.iter()) {
        remaining.push(overlay.inst(idx)?);
    }
    let ev = Evacuation {
        overlay: &overlay,
        state,
        remaining: &remaining,
        n_shared: shared.len(),
        group,
        n,
    };
    if let Some(e) = absorbing_node(&ev) {
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
    if let Some(spread) = spread_nodes(&ev) {
        deps.extend(spread);
        return Ok(Verdict {
            result: Some(true),
            blocker: None,
            deps,
        });
    }
    if depth != Depth::Blocker {
        if let Some((idx, how)) = stuck_instance(&ev) {
            deps.extend(state.group_keys(group).iter().copied().filter(|&k| k != n));
            return Ok(Verdict {
                result: Some(false),
                blocker: Some((idx, how)),
                deps,
            });
        }
    }
    if depth == Depth::Shortcuts {
        return Ok(Verdict {
            result: None,
            blocker: None,
            deps,
        });
    }

    // The full simulation works on the state itself.
    drop(remaining);
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
    let mut sums = Sums::starting_from(sums_base, state, group);
    for idx in shared {
        let inst = state.inst(idx)?.clone();
        if !evacuate_shared(state, &inst, group, &escape, &mut sums)? {
            return Ok(Verdict {
                result: Some(false),
                blocker: Some((idx, Departure::Move)),
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
        if !recreate_instance(state, &inst, &escape, &mut sums)? {
            return Ok(Verdict {
                result: Some(false),
                blocker: Some((inst.idx, Departure::Recreate)),
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
