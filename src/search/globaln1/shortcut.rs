//! The verdicts decided without simulating the score-based choices of an
//! evacuation (see the module doc of [`super`]): "yes" when one node could
//! take every remaining instance at once ([`absorbing_node`]) or when
//! enough nodes could each take them that every instance finds one
//! whatever the others chose ([`spread_nodes`]); "no" when an instance
//! finds no node even before the others take room ([`stuck_instance`]).

use smallvec::SmallVec;

use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::model::types::SoftChecks;
use crate::search::ghc_sort;
use crate::search::moves::{Nodes, Overlay};
use crate::search::state::State;

use super::Departure;

/// The instances left on node `n` of `group` once its drbd primaries
/// failed over (the nodes read through `overlay`): the first `n_shared`
/// to move by failover, the rest to be recreated.
pub(super) struct Evacuation<'o, 'a> {
    pub(super) overlay: &'o Overlay<'a>,
    pub(super) state: &'a State,
    pub(super) remaining: &'o [&'a Instance],
    pub(super) n_shared: usize,
    pub(super) group: usize,
    pub(super) n: usize,
}

/// A node of `n`'s group, other than `n`, that could take every remaining
/// instance at once (the first `n_shared` by failover, the rest by
/// recreation) under hail's forced checks; see the module doc for why that
/// decides the verdict. Nodes are read through the overlay of the
/// failovers.
pub(super) fn absorbing_node(ev: &Evacuation<'_, '_>) -> Option<usize> {
    let Evacuation {
        overlay,
        state,
        remaining,
        n_shared,
        group,
        n,
    } = *ev;
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
        let Ok(cand) = ev.overlay.node(e as i32) else {
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

/// Escape nodes enough for `remaining` (the first `n_shared` to move by
/// failover, the rest to be recreated) to find a place whatever nodes the
/// score-based choices pick, or `None`.
///
/// The shared instances move first, in order, then the others are
/// recreated largest memory first, each on one node, so before the q-th
/// (from 0) q instances have been placed. A node that takes the q-th as
/// it is now refuses it then only if the instances
/// placed on it used up its room: at least as many as its *blocking
/// count*, the fewest earlier instances whose memory (or disk) adds up to
/// its slack (1 for a node of exclusive storage, whose spindles are not
/// counted). When the blocking counts of the nodes that take it add up to
/// more than q, the q instances cannot block them all, so the q-th finds
/// a place. A node's acceptance (its group's policy, the forced primary
/// checks) depends only on that node, so the verdict depends on the nodes
/// counted, read through the overlay of the failovers (a failover's
/// migration check depends on its source's and target's tags only).
pub(super) fn spread_nodes(ev: &Evacuation<'_, '_>) -> Option<SmallVec<[usize; 8]>> {
    let (state, group, n) = (ev.state, ev.group, ev.n);
    let mut found: SmallVec<[usize; 8]> = SmallVec::new();
    let (mut mem_used, mut dsk_used) = (Earlier::default(), Earlier::default());
    for (q, (inst, source)) in ev.order()?.into_iter().enumerate() {
        let mem_need = if inst.uses_memory() { inst.mem } else { 0 };
        let uses_disk = !inst.forthcoming && inst.uses_local_storage();
        if !inst.forthcoming {
            let mut blocks = 0usize;
            let mut placed = false;
            for &e in state.group_keys(group) {
                if e == n {
                    continue;
                }
                let Ok(cand) = ev.overlay.node(e as i32) else {
                    continue;
                };
                if !takes(state, cand, inst, source) {
                    continue;
                }
                let free_mem = cand.unallocated_mem();
                if [free_mem, cand.f_dsk, mem_need, inst.dsk]
                    .iter()
                    .any(|v| v.unsigned_abs() > SPREAD_LIMIT)
                {
                    return None;
                }
                let mut block = mem_used.fewest_reaching(free_mem - mem_need);
                if uses_disk {
                    let by_disk = dsk_used.fewest_reaching(cand.f_dsk - inst.dsk);
                    block = min_count(block, by_disk);
                    if cand.excl_storage {
                        block = min_count(block, Some(1));
                    }
                }
                if !found.contains(&e) {
                    found.push(e);
                }
                match block {
                    None => placed = true,
                    Some(b) => {
                        blocks += b;
                        placed = blocks > q;
                    }
                }
                if placed {
                    break;
                }
            }
            if !placed {
                return None;
            }
        }
        if mem_need.unsigned_abs() > SPREAD_LIMIT || inst.dsk.unsigned_abs() > SPREAD_LIMIT {
            return None;
        }
        mem_used.add(mem_need);
        if uses_disk {
            dsk_used.add(inst.dsk);
        }
    }
    Some(found)
}

/// Sizes beyond which [`spread_nodes`] does not reason (far from any
/// wrapping of hail's arithmetic).
const SPREAD_LIMIT: u64 = 1 << 52;

/// The smaller of two counts, `None` being unbounded.
fn min_count(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// The positive amounts of one resource the earlier recreations use,
/// largest first, with their running sums.
#[derive(Debug, Default)]
struct Earlier {
    sizes: Vec<i64>,
    sums: Vec<i64>,
}

impl Earlier {
    fn add(&mut self, size: i64) {
        if size <= 0 {
            return;
        }
        let at = self.sizes.partition_point(|&s| s >= size);
        self.sizes.insert(at, size);
        self.sums.truncate(at);
        let mut sum = at.checked_sub(1).map_or(0, |i| self.sums[i]);
        for &s in &self.sizes[at..] {
            sum += s;
            self.sums.push(sum);
        }
    }

    /// The fewest of the amounts that add up to `need` at least (`None`:
    /// all of them do not).
    fn fewest_reaching(&self, need: i64) -> Option<usize> {
        if need <= 0 {
            return Some(0);
        }
        let k = self.sums.partition_point(|&s| s < need);
        (k < self.sums.len()).then_some(k + 1)
    }
}

/// An instance among `remaining` (the first `n_shared` to move by
/// failover, the rest to be recreated largest memory first) that no
/// escape node would take as the nodes are now, with how it was to leave,
/// or `None`. Every instance before it has sizes of at least zero, so the
/// nodes only lose room until its turn: hail's simulation stops there or
/// earlier, and the node cannot be evacuated. The verdict depends on
/// every node of the group.
pub(super) fn stuck_instance(ev: &Evacuation<'_, '_>) -> Option<(i32, Departure)> {
    let (state, group, n) = (ev.state, ev.group, ev.n);
    for (inst, source) in ev.order()? {
        let moves = source.is_some();
        let taken = state.group_keys(group).iter().any(|&e| {
            if e == n {
                return false;
            }
            ev.overlay
                .node(e as i32)
                .is_ok_and(|cand| takes(state, cand, inst, source))
        });
        if !taken {
            let how = if moves {
                Departure::Move
            } else {
                Departure::Recreate
            };
            return Some((inst.idx, how));
        }
        let grows = inst.mem < 0
            || inst.dsk < 0
            || inst.vcpus < 0
            || inst.disks.iter().any(|d| d.spindles.is_some_and(|s| s < 0));
        if grows {
            return None;
        }
    }
    None
}

impl<'o, 'a> Evacuation<'o, 'a> {
    /// The order in which hail's simulation evacuates the instances: the
    /// first `n_shared` as listed, each with the node it moves from by
    /// failover, then the others (recreated, no source) largest memory
    /// first; `None` when a source node is missing.
    fn order(&self) -> Option<Vec<(&'a Instance, Option<&'o Node>)>> {
        let mut out = Vec::with_capacity(self.remaining.len());
        for inst in &self.remaining[..self.n_shared] {
            out.push((*inst, Some(self.overlay.node(inst.p_node).ok()?)));
        }
        let recreated = ghc_sort::sort_by(
            self.remaining[self.n_shared..].to_vec(),
            |a: &&Instance, b| b.mem.cmp(&a.mem),
        );
        out.extend(recreated.into_iter().map(|i| (i, None)));
        Some(out)
    }
}

/// Whether `cand` would take `inst` as it is now, under hail's forced
/// checks: by failover from `source` (its migration tags), or recreated
/// (its group's policy).
fn takes(state: &State, cand: &Node, inst: &Instance, source: Option<&Node>) -> bool {
    let fits = match source {
        Some(src) => src.check_migration(cand).is_ok(),
        None => state
            .policy(cand.group)
            .check(inst, cand.excl_storage)
            .is_ok(),
    };
    fits && cand.probe_add_pri(SoftChecks::Ignore, inst).is_ok()
}
