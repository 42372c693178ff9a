//! Bounds on a set of candidates' scores that survive a change of the
//! group: what lets a balancing step skip the candidates the last step
//! did not touch.
//!
//! A candidate replaces the values of a few nodes. When later moves change
//! other nodes only, the candidate's own changes stay the same and its
//! score moves only through the group's sums: for a standard-deviation
//! component with `n` online nodes, the candidate's variance moves by the
//! group's change less `2 D1 d1 / n²` (`D1` the group's change of the
//! component's sum, `d1` the candidate's own), and every other component
//! by exactly the group's change. A [`Spread`] keeps, for a set of
//! candidates, a lower bound of their true scores and per component the
//! range of their variances and the largest `|d1|`; [`Spread::rebase`]
//! carries it over a [`Drift`] with the square root taken at the least
//! favourable end of the range, so the bound stays a bound.
//!
//! When a later move changes one of the candidates' own nodes (another
//! instance lands on or leaves it), each candidate's value there changes
//! by the node's change plus a discrepancy `e` (zero for the additive
//! parts of a value, up to rounding): [`Drift::personal`] widens the
//! group's drift by the range of those discrepancies, so that the same
//! [`Spread::rebase`] carries the bound over it.
//!
//! * Owns: [`Spread`] and [`Drift`].
//! * May use: the metric's component table and [`ScoreBase`].
//! * Must never: look at nodes or instances.

use crate::score::base::ScoreBase;
use crate::score::metric::{Aggregation, COMPONENTS, N_COMPONENTS};

/// Unit roundoff of f64.
const U: f64 = f64::EPSILON / 2.0;

fn is_std_dev(k: usize) -> bool {
    matches!(COMPONENTS[k].aggregation, Aggregation::StdDev)
}

/// What it takes to carry lower bounds of a set of candidates' true scores
/// to a changed group (see the module doc): per standard-deviation
/// component the range of the candidates' variances and the largest
/// change of the component's sum.
#[derive(Debug, Clone)]
pub struct Spread {
    var_min: [f64; N_COMPONENTS],
    var_max: [f64; N_COMPONENTS],
    d1_max: [f64; N_COMPONENTS],
}

impl Spread {
    /// Covers no candidate yet, on the group `base`: every component that
    /// a candidate leaves alone keeps the group's variance, so the ranges
    /// start there.
    pub fn new(base: &ScoreBase) -> Spread {
        let mut s = Spread {
            var_min: [0.0; N_COMPONENTS],
            var_max: [0.0; N_COMPONENTS],
            d1_max: [0.0; N_COMPONENTS],
        };
        for (k, c) in base.comps().iter().enumerate() {
            if is_std_dev(k) {
                s.var_min[k] = (c.var - c.var_err).max(0.0);
                s.var_max[k] = c.var + c.var_err;
            }
        }
        s
    }

    /// Covers a candidate's standard-deviation component `k`: its variance
    /// `var` within `var_err`, its change of the component's sum `d1`.
    #[inline]
    pub fn cover_component(&mut self, k: usize, var: f64, var_err: f64, d1: f64) {
        self.var_min[k] = self.var_min[k].min((var - var_err).max(0.0));
        self.var_max[k] = self.var_max[k].max(var + var_err);
        // d1 is a sum of at most three differences: a relative margin
        // covers its rounding.
        self.d1_max[k] = self.d1_max[k].max(d1.abs() * (1.0 + 1e-9));
    }

    /// Carries the ranges over `drift`, none of the covered candidates'
    /// nodes having changed, and returns a lower bound of the change of
    /// every covered candidate's true score.
    pub fn rebase(&mut self, drift: &Drift) -> f64 {
        let mut lb = drift.shift;
        let mut size = drift.shift.abs();
        for (k, comp) in COMPONENTS.iter().enumerate() {
            if !is_std_dev(k) {
                continue;
            }
            let spread = 2.0 * drift.d1[k].abs() * self.d1_max[k] * drift.inv_n2 * (1.0 + 1e-9);
            let (dv, dv_err) = drift.dvar[k];
            let lo = dv - dv_err - spread;
            let hi = dv + dv_err + spread;
            // A variance never goes below 0, so a candidate's standard
            // deviation moves by at least g(u) = sqrt(max(u + lo, 0)) -
            // sqrt(u) from variance u. g falls in u when lo >= 0; when
            // lo < 0 it falls down to u = -lo, then grows.
            let u = if lo < 0.0 {
                (-lo).clamp(self.var_min[k], self.var_max[k])
            } else {
                self.var_max[k]
            };
            let change = (u + lo).max(0.0).sqrt() - u.sqrt();
            lb += comp.weight * change;
            size += comp.weight * ((u + lo).max(0.0).sqrt() + u.sqrt());
            self.var_min[k] = (self.var_min[k] + lo).max(0.0);
            self.var_max[k] += hi;
            self.d1_max[k] += drift.d1_growth[k];
        }
        // The rounding of this sum, with room to spare.
        lb - 64.0 * U * (size + f64::MIN_POSITIVE)
    }
}

/// How a group's sums changed between two balancing steps.
#[derive(Debug, Clone)]
pub struct Drift {
    inv_n2: f64,
    /// Per component: the change of the sum of the values.
    d1: [f64; N_COMPONENTS],
    /// Per standard-deviation component: the change of the variance and a
    /// bound on its error.
    dvar: [(f64, f64); N_COMPONENTS],
    /// The change of the weighted terms that are not standard deviations.
    shift: f64,
    /// Per standard-deviation component: how much a candidate's own
    /// change of the sum may have grown (zero unless its own nodes
    /// changed, [`Drift::personal`]).
    d1_growth: [f64; N_COMPONENTS],
}

/// The ranges of the discrepancies of a set of candidates whose own nodes
/// changed (see [`Drift::personal`]): per component, an interval holding
/// every candidate's `e1`, the sum over its changed own nodes of
/// `(y' - y) - (x' - x)`, and one holding its `e2`, the same of the
/// squares (`x`, `x'` a node's values before and after the change, `y`,
/// `y'` the candidate's values there before and after), rounding included.
#[derive(Debug, Clone)]
pub struct OwnChange {
    /// The intervals of `e1` and of `e2`, per component.
    pub e1: [(f64, f64); N_COMPONENTS],
    pub e2: [(f64, f64); N_COMPONENTS],
}

impl Default for OwnChange {
    fn default() -> OwnChange {
        OwnChange {
            e1: [(0.0, 0.0); N_COMPONENTS],
            e2: [(0.0, 0.0); N_COMPONENTS],
        }
    }
}

impl OwnChange {
    /// Widens the intervals by a candidate's values `y` before and `y2`
    /// after on a node whose values went from `x` to `x2`; `false` when a
    /// value is not finite.
    pub fn cover(
        &mut self,
        x: &[f64; N_COMPONENTS],
        x2: &[f64; N_COMPONENTS],
        y: &[f64; N_COMPONENTS],
        y2: &[f64; N_COMPONENTS],
    ) -> bool {
        for k in 0..N_COMPONENTS {
            let (x, x2, y, y2) = (x[k], x2[k], y[k], y2[k]);
            if !(x.is_finite() && x2.is_finite() && y.is_finite() && y2.is_finite()) {
                return false;
            }
            let (dx, dy) = (x2 - x, y2 - y);
            let e1 = dy - dx;
            let e2 = dy * (y2 + y) - dx * (x2 + x);
            // Each is a few operations on these magnitudes.
            let m = x.abs() + x2.abs() + y.abs() + y2.abs();
            let (err1, err2) = (16.0 * U * m, 32.0 * U * m * m);
            let (a, b) = &mut self.e1[k];
            *a = a.min(e1 - err1);
            *b = b.max(e1 + err1);
            let (a, b) = &mut self.e2[k];
            *a = a.min(e2 - err2);
            *b = b.max(e2 + err2);
        }
        true
    }

    /// The sum of the discrepancies on two nodes: `self` on one, `other`
    /// on the other (rounded outwards).
    pub fn plus(&self, other: &OwnChange) -> OwnChange {
        let add = |(a, b): (f64, f64), (c, d): (f64, f64)| {
            let (lo, hi) = (a + c, b + d);
            (lo - 4.0 * U * lo.abs(), hi + 4.0 * U * hi.abs())
        };
        let mut out = OwnChange::default();
        for k in 0..N_COMPONENTS {
            out.e1[k] = add(self.e1[k], other.e1[k]);
            out.e2[k] = add(self.e2[k], other.e2[k]);
        }
        out
    }
}

impl Drift {
    /// The drift from `prev` to `now`, or `None` when the online nodes
    /// differ or a value is not finite.
    pub fn between(prev: &ScoreBase, now: &ScoreBase) -> Option<Drift> {
        if prev.n() != now.n() {
            return None;
        }
        let n = now.n();
        let d1 = now.sum_changes(prev);
        let mut d = Drift {
            inv_n2: 1.0 / (n * n),
            d1,
            dvar: [(0.0, 0.0); N_COMPONENTS],
            shift: 0.0,
            d1_growth: [0.0; N_COMPONENTS],
        };
        let mut shift_abs = 0.0;
        // The terms' own distance to the true values, against the bound.
        let mut err = 0.0;
        for (k, comp) in COMPONENTS.iter().enumerate() {
            let (c1, c0) = (&now.comps()[k], &prev.comps()[k]);
            if is_std_dev(k) {
                d.dvar[k] = (
                    c1.var - c0.var,
                    c1.var_err + c0.var_err + 4.0 * U * (c1.var.abs() + c0.var.abs()),
                );
            } else {
                let w = comp.weight;
                let (v1, v0) = (c1.value(), c0.value());
                d.shift += w * v1 - w * v0;
                shift_abs += (w * v1).abs() + (w * v0).abs();
                err += w * (c1.err() + c0.err());
            }
        }
        d.shift -= err + 64.0 * U * shift_abs;
        let finite = d.shift.is_finite()
            && d.d1.iter().all(|x| x.is_finite())
            && d.dvar.iter().all(|(a, b)| a.is_finite() && b.is_finite());
        finite.then_some(d)
    }

    /// The drift as seen by candidates whose own nodes changed with
    /// discrepancies in `own` (see [`OwnChange`]), the group now being
    /// `now`. A candidate's sum then moves by `D1 + e1` and its sum of
    /// squares by `D2 + e2`, so its variance moves by the group's change
    /// plus `e2/n - (2 S1 e1 + e1^2)/n^2` (`S1` the group's sum now) less
    /// `2 d1 (D1 + e1)/n^2`; a sum term moves by the group's change plus
    /// `e1`; and the candidate's own `d1` grows by `e1`. `None` when a
    /// value is not finite.
    pub fn personal(&self, now: &ScoreBase, own: &OwnChange) -> Option<Drift> {
        let mut d = self.clone();
        let (inv_n, inv_n2) = (1.0 / now.n(), self.inv_n2);
        for (k, comp) in COMPONENTS.iter().enumerate() {
            if !comp.online {
                continue;
            }
            let (a, b) = own.e1[k];
            match comp.aggregation {
                Aggregation::StdDev => {
                    let (e, f) = own.e2[k];
                    let s = now.comps()[k].sum;
                    // (2 S1 x + x^2)/n^2 is convex in x: largest at an end
                    // of [a, b], least at -S1 or an end.
                    let q = |x: f64| (2.0 * s * x + x * x) * inv_n2;
                    let q_max = q(a).max(q(b));
                    let q_min = q((-s).clamp(a, b)).min(q(a)).min(q(b));
                    let (c_min, c_max) = (e * inv_n - q_max, f * inv_n - q_min);
                    // The sum's own rounding and these operations stay far
                    // below a billionth of the magnitudes involved.
                    let big = a.abs().max(b.abs());
                    let mag = (e.abs() + f.abs()) * inv_n
                        + (2.0 * now.sum_magnitude(k) * big + big * big) * inv_n2;
                    let (dv, dv_err) = d.dvar[k];
                    d.dvar[k] = (
                        dv + 0.5 * (c_min + c_max),
                        dv_err + 0.5 * (c_max - c_min) + 1e-9 * mag,
                    );
                    let d1 = self.d1[k];
                    d.d1[k] = (d1 + a).abs().max((d1 + b).abs()) * (1.0 + 1e-9);
                    d.d1_growth[k] = big * (1.0 + 1e-9);
                }
                Aggregation::Sum => {
                    d.shift += comp.weight * a - 1e-9 * comp.weight * a.abs();
                }
                Aggregation::Map => {}
            }
        }
        let finite = d.shift.is_finite()
            && d.d1.iter().all(|x| x.is_finite())
            && d.dvar.iter().all(|(a, b)| a.is_finite() && b.is_finite());
        finite.then_some(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::argmin::GroupSums;
    use crate::score::metric::{self, NodeValues};

    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    fn random_values(seed: &mut u64) -> NodeValues {
        let mut v = [0.0; N_COMPONENTS];
        for (k, x) in v.iter_mut().enumerate() {
            let r = rng(seed);
            *x = match k {
                0 | 1 | 3 | 6 | 13 | 14 | 15 | 19 => (r % 10_000) as f64 / 9_999.0,
                2 | 7 | 8 | 9 | 10 | 11 | 17 => (r % 6) as f64,
                12 | 16 => (r % 7) as f64 / 32.0,
                _ => 0.0,
            };
        }
        v
    }

    /// The group of `vals`, and the spread and lower bound of the
    /// candidates `cands`, each replacing nodes 0 and 1.
    fn covered(vals: &[NodeValues], cands: &[[NodeValues; 2]]) -> (ScoreBase, Spread, f64) {
        let sums = GroupSums::new(vals.iter().map(|v| (v, false)));
        let base = sums.base(0).expect("usable");
        let mut spread = Spread::new(&base);
        let mut lb = f64::INFINITY;
        for c in cands {
            let list = [(&vals[0], &c[0]), (&vals[1], &c[1])];
            let (a, e) = base
                .approx(&list, |k, v, ve, d1| spread.cover_component(k, v, ve, d1))
                .expect("in range");
            lb = lb.min(a - e);
        }
        (base, spread, lb)
    }

    /// Checks that `lb` lies below the score of every candidate of
    /// `cands` (each replacing nodes 0 and 1 of `vals`).
    fn assert_below(lb: f64, vals: &[NodeValues], cands: &[[NodeValues; 2]], round: usize) {
        for c in cands {
            let mut v = vals.to_vec();
            v[0] = c[0];
            v[1] = c[1];
            let s = score(&v);
            assert!(lb <= s + 1e-12, "round {round}: bound {lb} above score {s}");
        }
    }

    fn score(vals: &[NodeValues]) -> f64 {
        metric::score_walk(vals.iter().map(|v| (v, false)), 0)
    }

    /// Candidates whose own node changes too keep a lower bound through
    /// the drift widened by their discrepancies ([`Drift::personal`]):
    /// node 0 is the candidates' own node, and each step changes it and
    /// another node; a candidate's value on node 0 follows the node's
    /// change plus a small discrepancy of its own (as a value that is not
    /// additive does).
    #[test]
    fn personal_drift_bound_stays_below_the_scores() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for round in 0..200 {
            let n = 4 + (rng(&mut seed) % 30) as usize;
            let mut vals: Vec<NodeValues> = (0..n).map(|_| random_values(&mut seed)).collect();
            // Candidates replace node 0 (their own) and node 1 (a target).
            let mut cands: Vec<[NodeValues; 2]> = (0..6)
                .map(|_| [random_values(&mut seed), random_values(&mut seed)])
                .collect();
            let (mut base, mut spread, mut lb) = covered(&vals, &cands);
            for _ in 0..20 {
                let j = 2 + (rng(&mut seed) % (n as u64 - 2)) as usize;
                let x = vals[0];
                let mut x2 = x;
                for (k, v) in x2.iter_mut().enumerate() {
                    *v += ((rng(&mut seed) % 5) as f64 - 2.0) / 8.0 * (k % 3) as f64;
                }
                vals[0] = x2;
                vals[j] = random_values(&mut seed);
                let mut own = OwnChange::default();
                for c in cands.iter_mut() {
                    let y = c[0];
                    let mut y2 = y;
                    for k in 0..N_COMPONENTS {
                        let e = if rng(&mut seed).is_multiple_of(4) {
                            ((rng(&mut seed) % 3) as f64 - 1.0) / 4.0
                        } else {
                            0.0
                        };
                        y2[k] = y[k] + (x2[k] - x[k]) + e;
                    }
                    assert!(own.cover(&x, &x2, &y, &y2));
                    c[0] = y2;
                }
                let now = GroupSums::new(vals.iter().map(|v| (v, false)))
                    .base(0)
                    .expect("usable");
                let drift = Drift::between(&base, &now).expect("same nodes");
                let personal = drift.personal(&now, &own).expect("finite");
                lb += spread.rebase(&personal);
                base = now;
                assert_below(lb, &vals, &cands, round);
            }
        }
    }

    /// Candidates (a few nodes' values replaced) keep a lower bound
    /// through many changes of other nodes: the bound carried by
    /// `rebase` never exceeds the candidates' scores computed afresh.
    #[test]
    fn rebased_bound_stays_below_the_scores() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..200 {
            let n = 3 + (rng(&mut seed) % 40) as usize;
            let mut vals: Vec<NodeValues> = (0..n).map(|_| random_values(&mut seed)).collect();
            // Candidates touch nodes 0 and 1 only; steps change the others.
            // Half of them move load from node 0 to node 1, leaving the
            // sums alone (as a failover does).
            let cands: Vec<[NodeValues; 2]> = (0..8)
                .map(|i| {
                    if i % 2 == 0 {
                        return [random_values(&mut seed), random_values(&mut seed)];
                    }
                    let (mut a, mut b) = (vals[0], vals[1]);
                    for k in 0..N_COMPONENTS {
                        let d = (rng(&mut seed) % 3) as f64;
                        a[k] -= d;
                        b[k] += d;
                    }
                    [a, b]
                })
                .collect();
            let (mut base, mut spread, mut lb) = covered(&vals, &cands);
            for _ in 0..30 {
                if n < 3 {
                    break;
                }
                let j = 2 + (rng(&mut seed) % (n as u64 - 2)) as usize;
                let i = 2 + (rng(&mut seed) % (n as u64 - 2)) as usize;
                if rng(&mut seed).is_multiple_of(2) || i == j {
                    vals[j] = random_values(&mut seed);
                } else {
                    // Load moved between two other nodes.
                    let (vi, vj) = (vals[i], vals[j]);
                    let (mut a, mut b) = (vi, vj);
                    for (x, y) in a.iter_mut().zip(b.iter_mut()) {
                        let d = (rng(&mut seed) % 3) as f64;
                        *x -= d;
                        *y += d;
                    }
                    vals[i] = a;
                    vals[j] = b;
                }
                let now = GroupSums::new(vals.iter().map(|v| (v, false)))
                    .base(0)
                    .expect("usable");
                let drift = Drift::between(&base, &now).expect("same nodes");
                lb += spread.rebase(&drift);
                base = now;
                assert_below(lb, &vals, &cands, round);
            }
        }
    }
}
