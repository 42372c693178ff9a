//! A lower bound for a row of pair candidates: every secondary `s` with one
//! primary `p`, where the primary's part of the move is done and each
//! candidate changes one more node, the secondary, in a way that does not
//! depend on the primary.
//!
//! Replacing a node's value `x` by `y = x + δ` in a group of `n` values
//! whose mean is `m` changes the population variance by
//! `Δ(m) = (2δ(x - m) + δ²(n - 1)/n) / n`, linear in `m`. The table keeps,
//! per standard-deviation component a secondary can change, the least `Δ`
//! over all secondaries and over an interval of means (the rows' means
//! differ only by their primary's change); sums change by `δ` itself. A
//! row's bound is then a few operations per component: its variance (less
//! its error bound) plus the least `Δ`, under the square root. It bounds
//! the true score of every candidate of the row from below, whatever the
//! secondary; the caller leaves a margin for the floating-point scores.

use crate::score::base::ScoreBase;
use crate::score::metric::{Aggregation, NodeValues, COMPONENTS, N_COMPONENTS};

/// One secondary's values before and after the candidate move.
pub type Change = (NodeValues, NodeValues);

/// The least changes of a row's components over a set of secondaries.
#[derive(Debug, Clone)]
pub struct RowTable {
    /// The secondaries' values before and after.
    changes: Vec<Change>,
    /// The number of online nodes of the group.
    n: f64,
    /// Per component: the interval of means the least `Δ` holds for, and
    /// the least `Δ` (standard deviations) or least `δ` (sums); `None` for
    /// a component no secondary changes.
    least: [Option<(f64, f64, f64)>; N_COMPONENTS],
}

impl RowTable {
    /// The table of the secondaries' changes (`changes`) in a group of `n`
    /// online nodes, for the means `means` (one per component) of a first
    /// row; other rows widen the interval as needed ([`RowTable::bound`]).
    pub fn new(changes: Vec<Change>, n: f64, means: &[f64; N_COMPONENTS]) -> RowTable {
        let mut t = RowTable {
            changes,
            n,
            least: [None; N_COMPONENTS],
        };
        for (k, &m) in means.iter().enumerate() {
            t.least[k] = t.least_for(k, m, m);
        }
        t
    }

    /// The least change of component `k` over the secondaries, for means
    /// in `[lo, hi]`.
    fn least_for(&self, k: usize, lo: f64, hi: f64) -> Option<(f64, f64, f64)> {
        let comp = &COMPONENTS[k];
        if !comp.online {
            return None;
        }
        let n = self.n;
        let mut least = f64::INFINITY;
        let mut scale = 0.0f64;
        let mut any = false;
        for (x, y) in &self.changes {
            let (x, y) = (x[k], y[k]);
            if x.to_bits() == y.to_bits() {
                // Unchanged: Δ = 0, δ = 0.
                least = least.min(0.0);
                continue;
            }
            any = true;
            let d = y - x;
            match comp.aggregation {
                Aggregation::Sum => least = least.min(d),
                Aggregation::StdDev => {
                    let q = d * d * (n - 1.0) / n;
                    for m in [lo, hi] {
                        let v = (2.0 * d * (x - m) + q) / n;
                        least = least.min(v);
                        scale = scale.max(((2.0 * d * (x.abs() + m.abs())).abs() + q) / n);
                    }
                }
                Aggregation::Map => return Some((lo, hi, f64::NEG_INFINITY)),
            }
        }
        if !any {
            return None;
        }
        if !least.is_finite() {
            return Some((lo, hi, f64::NEG_INFINITY));
        }
        // The roundings of the few operations above, with a wide margin.
        Some((lo, hi, least - 1e-12 * scale - 1e-12 * least.abs()))
    }

    /// A lower bound of the true score of every candidate of the row whose
    /// group (after the primary's part) is prepared as `base`, or `None`
    /// when the values are out of the bound's range.
    pub fn bound(&mut self, base: &ScoreBase) -> Option<f64> {
        let n = base.n();
        if n != self.n || n < 0.5 {
            return None;
        }
        let mut total = 0.0f64;
        for (k, comp) in COMPONENTS.iter().enumerate() {
            let c = &base.comps()[k];
            let term = match (self.least[k], comp.aggregation) {
                (None, _) => c.value() - c.err(),
                (Some(_), Aggregation::Map) => return None,
                (Some((_, _, least)), Aggregation::Sum) => c.value() - c.err() + least.min(0.0),
                (Some((lo, hi, _)), Aggregation::StdDev) => {
                    let m = c.sum / n;
                    if !m.is_finite() {
                        return None;
                    }
                    if m < lo || m > hi {
                        // Widen the interval well past this mean.
                        let width = (hi - lo).max(m.abs() * 1e-9).max(1e-12);
                        let (lo, hi) = (lo.min(m - width), hi.max(m + width));
                        self.least[k] = self.least_for(k, lo, hi);
                    }
                    let (_, _, least) = self.least[k]?;
                    let var = c.var - c.var_err + least;
                    if var > 0.0 {
                        var.sqrt() * (1.0 - 1e-12)
                    } else {
                        0.0
                    }
                }
            };
            if !term.is_finite() {
                return None;
            }
            total += comp.weight * term;
        }
        Some(total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::argmin::GroupSums;
    use crate::score::metric;

    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// The bound is below hail's score of every candidate of every row, on
    /// random groups: each row changes one "primary" node, each candidate
    /// one more node by its own fixed change.
    #[test]
    fn bound_is_below_every_candidate() {
        let mut seed = 0x1234_5678_9abc_def1u64;
        for round in 0..200 {
            let n = 3 + (rng(&mut seed) % 60) as usize;
            let mut vals: Vec<NodeValues> = Vec::new();
            for _ in 0..n {
                let mut v = [0.0; N_COMPONENTS];
                for (k, x) in v.iter_mut().enumerate() {
                    if k != 18 && k != 4 && k != 5 {
                        *x = (rng(&mut seed) % 1000) as f64 / 997.0;
                    }
                }
                vals.push(v);
            }
            // Each secondary's change: a few components move.
            let changes: Vec<NodeValues> = (0..n)
                .map(|_| {
                    let mut d = [0.0; N_COMPONENTS];
                    for k in [1usize, 2, 3, 12, 19] {
                        d[k] = (rng(&mut seed) % 200) as f64 / 1000.0 - 0.05;
                    }
                    d
                })
                .collect();
            let sums = GroupSums::new(vals.iter().map(|v| (v, false)));
            // Every secondary's change, from its values before any row.
            let table_changes: Vec<Change> = (0..n)
                .map(|s| {
                    let mut y = vals[s];
                    for k in 0..N_COMPONENTS {
                        y[k] += changes[s][k];
                    }
                    (vals[s], y)
                })
                .collect();
            let mut table: Option<RowTable> = None;
            for p in 0..n {
                // The row: the primary's part changes node p.
                let mut after = vals.clone();
                after[p][0] -= 0.1 + (p % 3) as f64 * 0.05;
                after[p][1] -= 0.05;
                let mut sums_p = sums.clone();
                sums_p.replace(&vals[p], &after[p], false);
                let base = sums_p.base(0).expect("usable");
                let t = table.get_or_insert_with(|| {
                    let means = std::array::from_fn(|k| base.comps()[k].sum / base.n());
                    RowTable::new(table_changes.clone(), base.n(), &means)
                });
                let Some(lb) = t.bound(&base) else {
                    panic!("round {round} row {p}: no bound")
                };
                for s in (0..n).filter(|&s| s != p) {
                    let y = table_changes[s].1;
                    let exact = metric::score_with(
                        n,
                        |i| {
                            if i == s {
                                (&y, false)
                            } else {
                                (&after[i], false)
                            }
                        },
                        0,
                    );
                    assert!(lb <= exact, "round {round} row {p} s {s}: {lb} > {exact}");
                }
            }
        }
    }
}
