//! The candidates of a budgeted balancing ([`super::budget`]) kept from
//! step to step, each with the measure a step ranks it by: its
//! approximate gain ([`super::step::rescan`]: the score when it was last
//! approximated less its approximate score) per MiB of disk it copies,
//! zero-copy moves above the others by gain.
//!
//! A step changes two or three nodes; a candidate's approximation is
//! computed again only when the step may have changed it (every move of
//! an instance on a changed node, every move to a changed node), the
//! others kept as they were. Per instance the gains are stored by the
//! candidate's rank in hbal's order ([`rank`]), so that the moves to a
//! node are found without a search; and the instance's best candidate
//! within the data left (its top) is kept, computed again only when the
//! step replaced it. A step then walks the candidates in ranking order
//! (highest measure first, hbal's order among equal ones) by merging the
//! instances' own orders from their tops, so that only the instances it
//! reaches are sorted, never the whole pool. The walk is the same
//! sequence a sort of every candidate gives.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::model::cost::move_cost;
use crate::model::types::MirrorType;
use crate::search::moves::{Move, Moved};
use crate::search::state::State;

use super::candidates::rank;
use super::step::rescan;
use super::BalanceOptions;

/// What a step's choice ranks by: zero-copy moves first by gain, then
/// the others by gain per MiB (larger is better).
#[derive(Debug, Clone, Copy)]
pub(super) struct Measure {
    pub(super) free: bool,
    pub(super) value: f64,
}

impl Measure {
    /// The measure of a move that gains `gain` and copies `disk` MiB.
    pub(super) fn of(gain: f64, disk: i64) -> Measure {
        if disk <= 0 {
            Measure {
                free: true,
                value: gain,
            }
        } else {
            Measure {
                free: false,
                value: gain / disk as f64,
            }
        }
    }

    /// Zero-copy above the others, then the larger value.
    pub(super) fn cmp(&self, o: &Measure) -> Ordering {
        self.free.cmp(&o.free).then(self.value.total_cmp(&o.value))
    }
}

/// A stored gain that is no candidate.
const ABSENT: f64 = f64::NAN;
/// A stored gain of a candidate without an approximation (only the exact
/// score says): ranked above every other.
const UNKNOWN: f64 = f64::INFINITY;

/// A candidate in the ranking: its measure, instance and rank. The
/// greater comes first: the higher measure, then the earlier in hbal's
/// order.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ranked {
    pub(super) measure: Measure,
    pub(super) key: usize,
    pub(super) rank: usize,
}

impl Ord for Ranked {
    fn cmp(&self, o: &Ranked) -> Ordering {
        self.measure
            .cmp(&o.measure)
            .then(o.key.cmp(&self.key))
            .then(o.rank.cmp(&self.rank))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, o: &Ranked) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, o: &Ranked) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

impl Eq for Ranked {}

/// One instance's candidates.
struct Slots {
    /// By rank: the approximate gain, [`ABSENT`] or [`UNKNOWN`].
    gains: Vec<f64>,
    /// The disk data a move that replaces a disk copies, MiB.
    disk: i64,
    /// Whether its moves to a node are failovers to any node (shared
    /// storage) rather than secondary replacements.
    external: bool,
    /// The best candidate within the data left: `None` when it must be
    /// found again, `Some(None)` when there is none.
    top: Option<Option<Ranked>>,
}

impl Slots {
    /// The move of a rank ([`rank`]'s inverse for this instance).
    fn mv(&self, r: usize) -> Move {
        if r == 0 {
            return Move::Failover;
        }
        let t = r / 4 - 1;
        match r % 4 {
            0 if self.external => Move::FailoverToAny(t),
            0 => Move::ReplaceSecondary(t),
            1 => Move::ReplaceAndFailover(t),
            2 => Move::ReplacePrimary(t),
            _ => Move::FailoverAndReplace(t),
        }
    }

    /// The disk data of the move of rank `r`, MiB.
    fn disk_of(&self, r: usize) -> i64 {
        if r == 0 || (r.is_multiple_of(4) && self.external) {
            0
        } else {
            self.disk
        }
    }

    /// The candidate of rank `r` in the ranking, if it fits in `room` and
    /// its measure is above 0.
    fn ranked(&self, key: usize, r: usize, room: i64) -> Option<Ranked> {
        let gain = *self.gains.get(r)?;
        if gain.is_nan() {
            return None;
        }
        let disk = self.disk_of(r);
        if disk > room {
            return None;
        }
        let measure = if gain == UNKNOWN {
            Measure {
                free: true,
                value: f64::INFINITY,
            }
        } else {
            Measure::of(gain, disk)
        };
        (measure.value > 0.0).then_some(Ranked {
            measure,
            key,
            rank: r,
        })
    }

    /// Every candidate in the ranking, the best last.
    fn order(&self, key: usize, room: i64) -> Vec<Ranked> {
        let mut out: Vec<Ranked> = (0..self.gains.len())
            .filter_map(|r| self.ranked(key, r, room))
            .collect();
        out.sort_unstable();
        out
    }

    fn find_top(&self, key: usize, room: i64) -> Option<Ranked> {
        (0..self.gains.len())
            .filter_map(|r| self.ranked(key, r, room))
            .max()
    }
}

/// The candidates of a run of steps.
pub(super) struct Pool {
    /// By instance key.
    insts: Vec<Option<Slots>>,
    /// The nodes the last step changed (ascending); `None` before the
    /// first step.
    changed: Option<Vec<usize>>,
    /// The data left when the tops were found (it only falls).
    room: i64,
}

impl Pool {
    pub(super) fn new() -> Pool {
        Pool {
            insts: Vec::new(),
            changed: None,
            room: i64::MAX,
        }
    }

    /// Brings the candidates up to date with `state`, at score `ini` with
    /// `room` MiB of disk data left: all of them on the first step; then
    /// those a change of the last step's nodes may change (every move of
    /// an instance on them, every move to them), the others kept as they
    /// were computed.
    pub(super) fn refresh(
        &mut self,
        state: &State,
        movable: &[bool],
        options: &BalanceOptions,
        ini: f64,
        room: i64,
    ) {
        let changed = self.changed.take();
        if self.insts.len() < state.inst_slots() {
            self.insts.resize_with(state.inst_slots(), || None);
        }
        // A top found with more room may no longer fit (with less, every
        // other candidate's place only falls: the others stay tops).
        let grew = room > self.room;
        self.room = room;
        for slots in self.insts.iter_mut().flatten() {
            let gone = slots
                .top
                .is_some_and(|t| t.is_some_and(|t| slots.disk_of(t.rank) > room));
            if grew || gone {
                slots.top = None;
            }
        }
        if let Some(c) = &changed {
            for (k, slot) in self.insts.iter_mut().enumerate() {
                let Some(slots) = slot.as_mut() else {
                    continue;
                };
                let touched = state.inst(k as i32).is_ok_and(|inst| {
                    inst.all_nodes()
                        .iter()
                        .any(|&n| n >= 0 && c.binary_search(&(n as usize)).is_ok())
                });
                if touched {
                    slots.gains.fill(ABSENT);
                    slots.top = None;
                    continue;
                }
                for &t in c {
                    let first = (t + 1) * 4;
                    let end = (first + 4).min(slots.gains.len());
                    if first >= end {
                        continue;
                    }
                    slots.gains[first..end].fill(ABSENT);
                    if slots
                        .top
                        .is_some_and(|top| top.is_some_and(|top| (first..end).contains(&top.rank)))
                    {
                        slots.top = None;
                    }
                }
            }
        }
        let n_ranks = (state.node_slots() + 1) * 4;
        let insts = &mut self.insts;
        rescan(
            state,
            movable,
            options,
            changed.as_deref(),
            |k, mv, approx| {
                let Ok(inst) = state.inst(k as i32) else {
                    return;
                };
                let slots = insts[k].get_or_insert_with(|| Slots {
                    gains: Vec::new(),
                    disk: move_cost(inst, &Move::ReplaceSecondary(0)).disk,
                    external: inst.mirror_type() == MirrorType::External,
                    top: None,
                });
                let r = rank(mv) as usize;
                debug_assert_eq!(slots.mv(r), mv, "instance {k}: rank {r}");
                debug_assert_eq!(slots.disk_of(r), move_cost(inst, &mv).disk);
                if slots.gains.len() <= r {
                    slots.gains.resize(n_ranks.max(r + 1), ABSENT);
                }
                // An approximation that is no number is scored exactly.
                let gain = approx.map_or(UNKNOWN, |(a, _)| ini - a);
                slots.gains[r] = if gain.is_nan() { UNKNOWN } else { gain };
                if let Some(top) = slots.top {
                    if top.is_some_and(|t| t.rank == r) {
                        slots.top = None;
                    } else if let Some(c) = slots.ranked(k, r, room) {
                        if top.is_none_or(|t| c > t) {
                            slots.top = Some(Some(c));
                        }
                    }
                }
            },
        );
        for (k, slot) in self.insts.iter_mut().enumerate() {
            if let Some(slots) = slot.as_mut() {
                if slots.top.is_none() {
                    slots.top = Some(slots.find_top(k, room));
                }
            }
        }
    }

    /// Notes the nodes the accepted move changes.
    pub(super) fn accepted(&mut self, moved: &Moved) {
        let mut keys: Vec<usize> = moved.final_nodes().iter().map(|(k, _)| *k).collect();
        keys.sort_unstable();
        keys.dedup();
        self.changed = Some(keys);
    }

    /// The candidates in ranking order (as of the last [`Pool::refresh`]):
    /// the highest measure first, hbal's order among equal measures;
    /// each with its move.
    pub(super) fn walk(&self) -> Walk<'_> {
        let heap = self
            .insts
            .iter()
            .filter_map(|s| s.as_ref()?.top?)
            .map(|t| (t, None))
            .collect();
        Walk {
            pool: self,
            heap,
            orders: Vec::new(),
        }
    }
}

/// The walk of [`Pool::walk`]: a merge of the instances' orders.
pub(super) struct Walk<'p> {
    pool: &'p Pool,
    /// Each instance's next candidate, and where the rest of its order is
    /// (`None`: only its top was looked at yet).
    heap: BinaryHeap<(Ranked, Option<usize>)>,
    /// The orders of the instances the walk went past the top of.
    orders: Vec<Vec<Ranked>>,
}

impl Iterator for Walk<'_> {
    type Item = (Ranked, Move);

    fn next(&mut self) -> Option<(Ranked, Move)> {
        let (c, at) = self.heap.pop()?;
        let slots = self.pool.insts[c.key].as_ref()?;
        let at = match at {
            Some(at) => at,
            None => {
                // The instance's order, best last; its top is the last.
                let mut order = slots.order(c.key, self.pool.room);
                let top = order.pop();
                debug_assert_eq!(top, Some(c));
                self.orders.push(order);
                self.orders.len() - 1
            }
        };
        if let Some(next) = self.orders[at].pop() {
            self.heap.push((next, Some(at)));
        }
        Some((c, slots.mv(c.rank)))
    }
}
