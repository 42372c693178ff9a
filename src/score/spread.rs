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
//! * Owns: [`Spread`] and [`Drift`].
//! * May use: the metric's component table and [`ScoreBase`].
//! * Must never: look at nodes or instances.

use crate::score::argmin::ScoreBase;
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

    fn score(vals: &[NodeValues]) -> f64 {
        metric::score_walk(vals.iter().map(|v| (v, false)), 0)
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
            let sums = GroupSums::new(vals.iter().map(|v| (v, false)));
            let mut base = sums.base(0).expect("usable");
            let mut spread = Spread::new(&base);
            let mut lb = f64::INFINITY;
            for c in &cands {
                let list = [(&vals[0], &c[0]), (&vals[1], &c[1])];
                let (a, e) = base
                    .approx(&list, |k, v, ve, d1| spread.cover_component(k, v, ve, d1))
                    .expect("in range");
                lb = lb.min(a - e);
            }
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
                for c in &cands {
                    let mut v = vals.clone();
                    v[0] = c[0];
                    v[1] = c[1];
                    let s = score(&v);
                    assert!(lb <= s + 1e-12, "round {round}: bound {lb} above score {s}");
                }
            }
        }
    }
}
