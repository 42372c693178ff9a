//! What one balancing step leaves for the next about one instance's
//! candidates: a lower bound of the true scores of its failover and of its
//! moves to each node, carried over later steps by the [`Spread`] of its
//! candidates (see [`crate::score::spread`]).
//!
//! The bounds are stored per slot (slot 0 the failover, slot `p + 1` the
//! moves to the `p`-th online node) as `f32` offsets from a reference
//! score, rounded down, so that a step can look again at only the targets
//! that may still win. The record also keeps the instance's [`Kept`]
//! context, valid while its nodes do not change (when one does,
//! [`super::carry`] computes it again and carries the record, or the
//! instance is scanned afresh).

use crate::score::base::ScoreBase;
use crate::score::spread::{Drift, Spread};

use super::candidates::Kept;

/// The slot of an instance's failover.
pub(super) const FAILOVER: usize = 0;

/// Lower bounds of one instance's candidates' scores, per slot.
#[derive(Debug, Clone)]
pub(super) struct Record {
    spread: Spread,
    /// The stored values are relative to this score ...
    reference: f64,
    /// ... plus this lower bound of every candidate's change since.
    offset: f64,
    slots: Vec<f32>,
    /// The least slot value; `None` when it must be recomputed.
    min: Option<f32>,
    /// What the instance's candidates computed from its own nodes (they
    /// do not change while the record is kept).
    kept: Option<Kept>,
}

/// `x` as an `f32` no greater than `x` (NaN as minus infinity, so that it
/// is always looked at).
fn down(x: f64) -> f32 {
    if x.is_nan() {
        return f32::NEG_INFINITY;
    }
    let y = x as f32;
    if (y as f64) > x {
        y.next_down()
    } else {
        y
    }
}

impl Record {
    /// Nothing known yet of the instance's candidates on the group `base`,
    /// whose online nodes number `n_online`; values are stored relative to
    /// `reference` (the current score: candidates are close to it).
    pub(super) fn new(base: &ScoreBase, reference: f64, n_online: usize) -> Record {
        Record {
            spread: Spread::new(base),
            reference,
            offset: 0.0,
            slots: vec![f32::INFINITY; n_online + 1],
            min: Some(f32::INFINITY),
            kept: None,
        }
    }

    /// Takes what the instance's candidates computed from its own nodes,
    /// once kept.
    pub(super) fn take_kept(&mut self) -> Option<Kept> {
        self.kept.take()
    }

    /// Keeps what the instance's candidates computed from its own nodes.
    pub(super) fn keep(&mut self, kept: Kept) {
        self.kept = Some(kept);
    }

    /// The spread of the candidates, to widen with a new candidate.
    pub(super) fn spread_mut(&mut self) -> &mut Spread {
        &mut self.spread
    }

    /// Carries the bounds to the group after `drift`.
    pub(super) fn rebase(&mut self, drift: &Drift) {
        self.offset += self.spread.rebase(drift);
    }

    fn absolute(&self, v: f32) -> f64 {
        if v == f32::INFINITY {
            return f64::INFINITY;
        }
        self.reference + self.offset + v as f64
    }

    /// A lower bound of every candidate's true score (infinite when the
    /// instance has none).
    pub(super) fn lower_bound(&mut self) -> f64 {
        let min = match self.min {
            Some(m) => m,
            None => {
                // The slots hold no NaN ([`down`]): the plain comparison
                // is `f32::min` here, and vectorises.
                let m = self
                    .slots
                    .iter()
                    .fold(f32::INFINITY, |m, &v| if v < m { v } else { m });
                self.min = Some(m);
                m
            }
        };
        self.absolute(min)
    }

    /// Forgets the slot's candidates (they are about to be scored again).
    pub(super) fn clear(&mut self, slot: usize) {
        let old = std::mem::replace(&mut self.slots[slot], f32::INFINITY);
        if self.min.is_some_and(|m| old <= m) {
            self.min = None;
        }
    }

    /// Notes a candidate of the slot whose true score is at least `low`.
    pub(super) fn cover(&mut self, slot: usize, low: f64) {
        let v = down(low - self.reference - self.offset);
        let s = &mut self.slots[slot];
        *s = s.min(v);
        if let Some(m) = self.min.as_mut() {
            *m = m.min(v);
        }
    }

    /// The bound of one slot.
    #[cfg(debug_assertions)]
    pub(super) fn slot_bound(&self, slot: usize) -> f64 {
        self.absolute(self.slots[slot])
    }

    /// The slots whose bound is at most `bound`, ascending.
    pub(super) fn slots_up_to(&self, bound: f64) -> impl Iterator<Item = usize> + '_ {
        // A slot whose stored value is above `pass` is above `bound`
        // whatever the rounding of [`Record::absolute`]'s two additions
        // (each within 2^-52 of the sum's magnitude, far inside the
        // margin): the slots are compared as stored first, and only those
        // that pass are compared exactly.
        let base = self.reference + self.offset;
        let rel = bound - base;
        let pass = up(rel + 1e-9 * (base.abs() + rel.abs() + 1.0));
        self.slots
            .iter()
            .enumerate()
            .filter(move |(_, &v)| v <= pass && self.absolute(v) <= bound)
            .map(|(i, _)| i)
    }
}

/// `x` as an `f32` no less than `x` (NaN as plus infinity: every slot
/// then passes to the exact comparison).
fn up(x: f64) -> f32 {
    if x.is_nan() {
        return f32::INFINITY;
    }
    let y = x as f32;
    if (y as f64) < x {
        y.next_up()
    } else {
        y
    }
}
