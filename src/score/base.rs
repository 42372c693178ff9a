//! A group's score prepared for the many candidates of a search that each
//! change the values of a few nodes ([`ScoreBase`]), and the part of a
//! candidate's change that several candidates share ([`OwnPart`]): each
//! candidate's approximate score and its rigorous error bound in a few
//! operations per changed component, with no copy of the group.
//!
//! The approximation and its bound are those of
//! [`GroupSums::approx_replacing`] (see [`super::argmin`] for the error
//! analysis), the candidate's variance computed as the group's plus the
//! change, which loses nothing to cancellation. Every approximation is
//! built from the same per-component steps ([`CompChange`], and the term
//! functions of [`ScoreBase`]), so that the arithmetic is the same
//! whichever way a candidate is approximated.
//!
//! * Owns: [`ScoreBase`], [`OwnPart`].
//! * May use: the metric's component table, [`super::argmin`]'s sums and
//!   error bounds.
//! * Must never: look at nodes or instances, or allocate per candidate.

use super::argmin::{changed_components, gamma, std_dev_term, Dd, GroupSums, MAX_VALUE, U};
use super::metric::{Aggregation, NodeValues, COMPONENTS, N_COMPONENTS};

/// A group's score prepared for many candidates that each replace the
/// values of a few online nodes ([`ScoreBase::approx_leaving`]): per component the
/// group's sum, variance and term, and the weighted sums of the terms, so
/// that a candidate costs a few operations per changed component and no
/// copy. The approximation and its bound are those of
/// [`GroupSums::approx_replacing`], with the candidate's variance computed
/// as the group's plus the change (which loses nothing to cancellation).
#[derive(Debug, Clone)]
pub struct ScoreBase {
    n: f64,
    inv_n: f64,
    inv_n2: f64,
    g1: f64,
    g4: f64,
    comps: [BaseComp; N_COMPONENTS],
    /// The sums of the values in double-double (for [`ScoreBase::sum_changes`]).
    sums: [Dd; N_COMPONENTS],
    score: f64,
    /// Sum of the weighted error bounds.
    w_err: f64,
    /// Sum of the weighted terms' magnitudes and error bounds.
    w_abs: f64,
}

/// One component of a [`ScoreBase`].
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BaseComp {
    /// The sum of the values.
    pub(crate) sum: f64,
    /// The variance and its error bound (standard deviations only).
    pub(crate) var: f64,
    pub(crate) var_err: f64,
    max_abs: f64,
    /// The term and its error bound.
    value: f64,
    err: f64,
}

impl GroupSums {
    /// The group prepared for [`ScoreBase::approx_leaving`], or `None` when the
    /// shortcut does not apply (no online node, or unusable values).
    pub fn base(&self, map_value: i64) -> Option<ScoreBase> {
        if !self.usable || self.n_online < 0.5 {
            return None;
        }
        let n = self.n_online;
        let mut b = ScoreBase {
            n,
            inv_n: 1.0 / n,
            inv_n2: 1.0 / (n * n),
            g1: gamma(n + 1.0),
            g4: gamma(n + 4.0),
            comps: [BaseComp::default(); N_COMPONENTS],
            sums: [Dd::default(); N_COMPONENTS],
            score: 0.0,
            w_err: 0.0,
            w_abs: 0.0,
        };
        for (k, comp) in COMPONENTS.iter().enumerate() {
            let ((value, err), (var, var_err)) = self.term_var(k, map_value);
            b.comps[k] = BaseComp {
                sum: self.comps[k].sum.value(),
                var,
                var_err,
                max_abs: self.comps[k].max_abs,
                value,
                err,
            };
            b.sums[k] = self.comps[k].sum;
            let w = comp.weight;
            b.score += w * value;
            b.w_err += w * err;
            b.w_abs += (w * value).abs() + w * err;
        }
        Some(b)
    }
}

impl BaseComp {
    /// The component's term.
    pub(crate) fn value(&self) -> f64 {
        self.value
    }

    /// The term's error bound.
    pub(crate) fn err(&self) -> f64 {
        self.err
    }
}

impl ScoreBase {
    /// The number of online nodes.
    pub(crate) fn n(&self) -> f64 {
        self.n
    }

    /// The components' prepared values.
    pub(crate) fn comps(&self) -> &[BaseComp; N_COMPONENTS] {
        &self.comps
    }

    /// A margin covering the distance between hail's floating-point
    /// score and the true score of any candidate that changes a few nodes
    /// of this group: far above the error bounds of [`ScoreBase::approx_leaving`]
    /// (a billionth of the score, plus four times the group's own bound).
    pub(crate) fn margin(&self) -> f64 {
        4.0 * (self.w_err
            + gamma(2.0 * N_COMPONENTS as f64 + 2.0) * (self.score.abs() + self.w_abs))
            + 1e-9 * (1.0 + self.score.abs())
    }

    /// A bound on the magnitude of component `k`'s sum, with room for its
    /// rounding: `|sum| + n * max|value|`.
    pub(crate) fn sum_magnitude(&self, k: usize) -> f64 {
        self.comps[k].sum.abs() + self.n * self.comps[k].max_abs
    }

    /// The change of each component's sum from `prev` to `self`.
    pub(crate) fn sum_changes(&self, prev: &ScoreBase) -> [f64; N_COMPONENTS] {
        let mut out = [0.0; N_COMPONENTS];
        for (k, o) in out.iter_mut().enumerate() {
            *o = self.sums[k].sub(prev.sums[k]).value();
        }
        out
    }

    /// The approximate score and its error bound with some online nodes'
    /// values replaced (`(old, new)` pairs), or `None` when a value is out
    /// of the shortcut's range. `observe(k, var, var_err, d1)` sees, for
    /// every standard-deviation component that changes, the candidate's
    /// variance with its error bound and the change of the component's sum.
    #[cfg(test)]
    pub fn approx(
        &self,
        changes: &[(&NodeValues, &NodeValues)],
        observe: impl FnMut(usize, f64, f64, f64),
    ) -> Option<(f64, f64)> {
        self.approx_leaving(changes, &[], observe)
    }

    /// The approximate score and its error bound with some online nodes'
    /// values replaced (`changes`, `(old, new)` pairs), for a candidate that also changes some
    /// offline nodes (`offline`, `(old, new)` pairs), as a move off an
    /// offline node does: an offline node counts only in the offline
    /// components, plain sums that change by the difference of its values.
    /// `None` also when an offline node's value grows in magnitude (the
    /// bound of the sums' rounding assumes the largest value stays).
    #[inline]
    pub fn approx_leaving(
        &self,
        changes: &[(&NodeValues, &NodeValues)],
        offline: &[(&NodeValues, &NodeValues)],
        mut observe: impl FnMut(usize, f64, f64, f64),
    ) -> Option<(f64, f64)> {
        let mut mask = 0u32;
        for (old, new) in changes {
            mask |= changed_components(old, new);
        }
        let mut acc = Acc::new(self);
        while mask != 0 {
            let k = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let comp = &COMPONENTS[k];
            if !comp.online {
                continue;
            }
            let base = &self.comps[k];
            let mut c = CompChange::starting(base.max_abs);
            for (old, new) in changes {
                c.fold(old[k], new[k])?;
            }
            let Some((value, err)) = self.online_term(k, base, &c, &mut observe) else {
                continue;
            };
            acc.add(comp.weight, base, value, err);
        }
        for (k, comp) in COMPONENTS.iter().enumerate() {
            if comp.online || offline.is_empty() {
                continue;
            }
            let mut d = 0.0f64;
            for (old, new) in offline {
                let (x, y) = (old[k], new[k]);
                if !x.is_finite() || !y.is_finite() || y.abs() > x.abs() || x.abs() > MAX_VALUE {
                    return None;
                }
                d += y - x;
            }
            if d == 0.0 {
                continue;
            }
            // The offline sum's bound covers values up to the largest one,
            // which does not grow; the new sum's own rounding adds 4u of
            // the change (and of the rounding of `d`).
            let base = &self.comps[k];
            let value = base.value + d;
            let err = base.err + 8.0 * U * (d.abs() + value.abs());
            acc.add(comp.weight, base, value, err);
        }
        Some(acc.finish(self))
    }

    /// The term of online component `k` (not the map) and its error
    /// bound after a candidate's change `c` of its sums, the group's
    /// being `base`; `None` for the map component. A standard deviation's
    /// variance is shown to `observe` first.
    #[inline(always)]
    fn online_term(
        &self,
        k: usize,
        base: &BaseComp,
        c: &CompChange,
        observe: &mut impl FnMut(usize, f64, f64, f64),
    ) -> Option<(f64, f64)> {
        match COMPONENTS[k].aggregation {
            Aggregation::Map => None,
            Aggregation::Sum => Some(self.sum_term(base, c)),
            Aggregation::StdDev => {
                if c.max_abs == 0.0 {
                    return Some((0.0, 0.0));
                }
                let (var, var_err) = self.variance(base, c);
                observe(k, var, var_err, c.d1);
                Some(std_dev_term(var, var_err, c.max_abs, self.g1, self.g4))
            }
        }
    }

    /// A sum component's term and its error bound after the change `c`.
    #[inline(always)]
    fn sum_term(&self, base: &BaseComp, c: &CompChange) -> (f64, f64) {
        let v = base.sum + c.d1;
        let e = self.g1 * self.n * c.max_abs + 4.0 * U * v.abs() + 4.0 * U * c.a1;
        (v, e)
    }

    /// A standard-deviation component's variance and its error bound
    /// after the change `c`: (S2 + d2)/n - ((S1 + d1)/n)^2, as the group's
    /// variance plus the change (which loses nothing to cancellation); the
    /// roundings of d1, d2 and of this expression are within 16u of the
    /// magnitudes involved.
    #[inline(always)]
    fn variance(&self, base: &BaseComp, c: &CompChange) -> (f64, f64) {
        let (d1, d2) = (c.d1, c.d2);
        let s = base.sum;
        let cross = (2.0 * s * d1 + d1 * d1) * self.inv_n2;
        let var_f = base.var + d2 * self.inv_n - cross;
        let var = var_f.max(0.0);
        let var_err = base.var_err
            + 16.0
                * U
                * (base.var
                    + d2.abs() * self.inv_n
                    + cross.abs()
                    + (s.abs() + d1.abs()) * c.a1 * self.inv_n2
                    + c.a2 * self.inv_n
                    + var_f.abs());
        (var, var_err)
    }
}

/// One component's change by a candidate, summed over the nodes it
/// changes: `y - x`, `(y - x)(y + x)`, `|x| + |y|` and its square, and the
/// largest `|value|` of the component (the group's, then the new ones).
#[derive(Debug, Clone, Copy)]
struct CompChange {
    d1: f64,
    d2: f64,
    a1: f64,
    a2: f64,
    max_abs: f64,
}

impl CompChange {
    /// No node changed yet; `max_abs` bounds the values so far.
    #[inline(always)]
    fn starting(max_abs: f64) -> CompChange {
        CompChange {
            d1: 0.0,
            d2: 0.0,
            a1: 0.0,
            a2: 0.0,
            max_abs,
        }
    }

    /// Adds a node whose value goes from `x` to `y`; `None` when a value
    /// is out of the shortcut's range.
    #[inline(always)]
    fn fold(&mut self, x: f64, y: f64) -> Option<()> {
        if x.to_bits() == y.to_bits() {
            return Some(());
        }
        if !x.is_finite() || !y.is_finite() || x.abs() > MAX_VALUE || y.abs() > MAX_VALUE {
            return None;
        }
        self.d1 += y - x;
        self.d2 += (y - x) * (y + x);
        let m = x.abs() + y.abs();
        self.a1 += m;
        self.a2 += m * m;
        self.max_abs = self.max_abs.max(y.abs());
        Some(())
    }
}

/// A candidate's score built from the group's ([`ScoreBase`]) by
/// replacing the terms of the components it changes, with the weighted
/// sums its error bound needs.
struct Acc {
    score: f64,
    w_err: f64,
    w_abs: f64,
    moved: f64,
}

impl Acc {
    #[inline(always)]
    fn new(b: &ScoreBase) -> Acc {
        Acc {
            score: b.score,
            w_err: b.w_err,
            w_abs: b.w_abs,
            moved: 0.0,
        }
    }

    /// Replaces a component's term (`base`'s) by `value` within `err`.
    #[inline(always)]
    fn add(&mut self, w: f64, base: &BaseComp, value: f64, err: f64) {
        self.score += w * value - w * base.value;
        self.w_err += w * err - w * base.err;
        self.w_abs += ((w * value).abs() + w * err) - ((w * base.value).abs() + w * base.err);
        self.moved += (w * value).abs() + (w * base.value).abs();
    }

    /// The approximate score and its error bound: hail's weighted sum
    /// (see [`super::argmin::combine`]), plus the rounding of the updates.
    #[inline(always)]
    fn finish(&self, b: &ScoreBase) -> (f64, f64) {
        let err = self.w_err
            + gamma(N_COMPONENTS as f64) * self.w_abs
            + 4.0 * U * self.score.abs()
            + gamma(2.0 * N_COMPONENTS as f64 + 2.0)
                * (b.score.abs() + self.moved + b.w_abs + self.w_abs);
        (self.score, 2.0 * err + f64::MIN_POSITIVE)
    }
}

/// The part of a candidate's change that some of its nodes contribute
/// (their `(old, new)` values), prepared once for the many candidates
/// that share it, as the moves of one instance and kind to different
/// targets share the values they leave on the instance's own nodes
/// ([`ScoreBase::approx_with`]). Per component: the sums of `y - x`,
/// `(y - x)(y + x)`, `|x| + |y|` and its square, and the largest `|y|`,
/// over the nodes whose value changes.
#[derive(Debug, Clone)]
pub struct OwnPart {
    mask: u32,
    /// A value out of the shortcut's range: no approximation.
    usable: bool,
    d1: [f64; N_COMPONENTS],
    d2: [f64; N_COMPONENTS],
    a1: [f64; N_COMPONENTS],
    a2: [f64; N_COMPONENTS],
    max_y: [f64; N_COMPONENTS],
}

impl OwnPart {
    /// Component `k`'s change by these nodes, the group's values bounded
    /// by `max_abs`.
    #[inline(always)]
    fn change(&self, k: usize, max_abs: f64) -> CompChange {
        CompChange {
            d1: self.d1[k],
            d2: self.d2[k],
            a1: self.a1[k],
            a2: self.a2[k],
            max_abs: max_abs.max(self.max_y[k]),
        }
    }

    /// The part of the online nodes `changes` (`(old, new)` pairs).
    pub fn new(changes: &[(&NodeValues, &NodeValues)]) -> OwnPart {
        let mut p = OwnPart {
            mask: 0,
            usable: true,
            d1: [0.0; N_COMPONENTS],
            d2: [0.0; N_COMPONENTS],
            a1: [0.0; N_COMPONENTS],
            a2: [0.0; N_COMPONENTS],
            max_y: [0.0; N_COMPONENTS],
        };
        for (old, new) in changes {
            p.mask |= changed_components(old, new);
        }
        for k in 0..N_COMPONENTS {
            if p.mask & (1 << k) == 0 || !COMPONENTS[k].online {
                continue;
            }
            let mut c = CompChange::starting(0.0);
            for (old, new) in changes {
                if c.fold(old[k], new[k]).is_none() {
                    p.usable = false;
                }
            }
            (p.d1[k], p.d2[k], p.a1[k], p.a2[k]) = (c.d1, c.d2, c.a1, c.a2);
            p.max_y[k] = c.max_abs;
        }
        p
    }
}

impl ScoreBase {
    /// [`ScoreBase::approx_leaving`] of a candidate that changes the
    /// online nodes of `own` and one more online node from `old` to
    /// `new`: the same approximation and error bound, with the sums over
    /// the changed nodes taken in another order (which the bound does
    /// not depend on), and nothing computed again for `own`.
    #[inline]
    pub fn approx_with(
        &self,
        own: &OwnPart,
        old: &NodeValues,
        new: &NodeValues,
        mut observe: impl FnMut(usize, f64, f64, f64),
    ) -> Option<(f64, f64)> {
        if !own.usable {
            return None;
        }
        let mut mask = own.mask | changed_components(old, new);
        let mut acc = Acc::new(self);
        while mask != 0 {
            let k = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            if !COMPONENTS[k].online {
                continue;
            }
            let base = &self.comps[k];
            let mut c = own.change(k, base.max_abs);
            c.fold(old[k], new[k])?;
            let Some((value, err)) = self.online_term(k, base, &c, &mut observe) else {
                continue;
            };
            acc.add(COMPONENTS[k].weight, base, value, err);
        }
        Some(acc.finish(self))
    }
}
