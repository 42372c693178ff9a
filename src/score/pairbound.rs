//! Lower bounds for pair candidates scored with hail's running statistics
//! ([`crate::score::metric::StatArray::score_after_update`]): a drbd pair
//! allocation's row (one primary, its update done once) and each
//! secondary's update, whose new values do not depend on the primary.
//!
//! A pair's score is the row's score with the components the secondary
//! changes recomputed. Replacing the secondary's value `x` by `y` in a
//! standard deviation of `n` values with sum `S` and variance `V` gives,
//! in real arithmetic, the variance `V + Δ` with
//! `Δ = (n·dss - 2·S·ds - ds²)/n²` (hail's `updateStatistics`; `ds = y - x`
//! and `dss = y² - x²` are the very floating-point numbers hail computes,
//! the same for every row), linear in `S`; the component's value moves by
//! `√max(0, V + Δ) - √V`, monotone in `Δ` and unimodal in `V`. Over the
//! rows of a search, `S` and `V` lie in small intervals (the rows differ
//! only by their primary's update): [`RowRanges`] keeps them, and
//! [`secondary_floor`] gives, per secondary, the least change of the
//! weighted sum over those intervals, less a margin that covers hail's
//! roundings (a few ulps per operation; the margin is hundreds). A sum
//! component moves by `y - x`. [`row_floor`] is the row's own weighted sum
//! less the rounding of the sum of twenty terms. Then every pair's score,
//! as hail computes it, is at least `row_floor + secondary_floor`
//! ([`cannot_beat`] compares with that sum's rounding too).
//!
//! The bound is used only on finite statistics and values below 1e100 in
//! magnitude, where no operation of hail's overflows or yields NaN.

use crate::score::metric::{
    weighted_sum, Aggregation, NodeValues, Stat, StatArray, COMPONENTS, N_COMPONENTS,
};

/// The relative margin for roundings: about 450 ulps.
const REL: f64 = 1e-13;

/// Statistics and values beyond this magnitude are not bounded.
const LIMIT: f64 = 1e100;

/// The range, over rows of pair candidates, of each online component's
/// running statistic (its sum, and for standard deviations the count and
/// the variance).
#[derive(Debug, Clone, PartialEq)]
pub struct RowRanges {
    /// Per component: the count (one for every row), the least and
    /// largest sum, the least and largest variance.
    comps: [(f64, f64, f64, f64, f64); N_COMPONENTS],
    /// Whether any row was included.
    any: bool,
}

impl Default for RowRanges {
    fn default() -> Self {
        RowRanges {
            comps: [(
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::INFINITY,
                f64::NEG_INFINITY,
            ); N_COMPONENTS],
            any: false,
        }
    }
}

/// Whether every statistic of the row (all components, online and
/// offline) is finite and below [`LIMIT`], so that its values and every
/// pair's update of it are finite.
pub fn row_is_bounded(base: &StatArray) -> bool {
    (0..N_COMPONENTS).all(|k| match base.stat(k) {
        Stat::Sum(s) => s.abs() < LIMIT,
        Stat::StdDev { n, s, var } => {
            n.abs() < LIMIT && s.abs() < LIMIT && (0.0..LIMIT).contains(&var) && n >= 1.0
        }
        Stat::Map => true,
    })
}

impl RowRanges {
    /// Widens the ranges to a row's statistics (after its primary's
    /// update); false, leaving the ranges as they were, when the row is not
    /// bounded ([`row_is_bounded`]) or its counts differ from the other
    /// rows'.
    pub fn include(&mut self, base: &StatArray) -> bool {
        if !row_is_bounded(base) {
            return false;
        }
        for k in 0..N_COMPONENTS {
            if let Stat::StdDev { n, .. } = base.stat(k) {
                let n0 = self.comps[k].0;
                if !n0.is_nan() && n0 != n {
                    return false;
                }
            }
        }
        for k in 0..N_COMPONENTS {
            let c = &mut self.comps[k];
            match base.stat(k) {
                Stat::Sum(s) => {
                    c.1 = c.1.min(s);
                    c.2 = c.2.max(s);
                }
                Stat::StdDev { n, s, var } => {
                    c.0 = n;
                    c.1 = c.1.min(s);
                    c.2 = c.2.max(s);
                    c.3 = c.3.min(var);
                    c.4 = c.4.max(var);
                }
                Stat::Map => {}
            }
        }
        self.any = true;
        true
    }

    /// Whether a row's statistics lie within the ranges (so that
    /// [`secondary_floor`] holds for its pairs).
    pub fn covers(&self, base: &StatArray) -> bool {
        self.any
            && row_is_bounded(base)
            && (0..N_COMPONENTS).all(|k| {
                let c = &self.comps[k];
                match base.stat(k) {
                    Stat::Sum(s) => c.1 <= s && s <= c.2,
                    Stat::StdDev { n, s, var } => {
                        n == c.0 && c.1 <= s && s <= c.2 && c.3 <= var && var <= c.4
                    }
                    Stat::Map => true,
                }
            })
    }
}

/// The least amount by which an online secondary's update from values `x`
/// to `y` changes the score of any row within `ranges`, less the margin
/// for hail's roundings (see the module doc); `None` when the values are
/// not finite and below [`LIMIT`] or no row was included.
pub fn secondary_floor(ranges: &RowRanges, x: &NodeValues, y: &NodeValues) -> Option<f64> {
    if !ranges.any {
        return None;
    }
    let mut total = 0.0f64;
    // A bound of the magnitude of the changed terms, for the rounding of
    // the weighted sum.
    let mut magnitude = 0.0f64;
    for (k, comp) in COMPONENTS.iter().enumerate() {
        if !comp.online {
            continue;
        }
        let (xk, yk) = (x[k], y[k]);
        if !(xk.abs() < LIMIT && yk.abs() < LIMIT) {
            return None;
        }
        if xk.to_bits() == yk.to_bits() {
            // Unchanged: the row's own value (`Stat::unchanged_by`).
            continue;
        }
        let (n, s_lo, s_hi, v_lo, v_hi) = ranges.comps[k];
        let s_max = s_lo.abs().max(s_hi.abs());
        let (least, size) = match comp.aggregation {
            Aggregation::Map => return None,
            Aggregation::Sum => {
                let d = yk - xk;
                (
                    d - REL * (s_max + d.abs()),
                    d.abs() + REL * (s_max + d.abs()),
                )
            }
            Aggregation::StdDev => {
                // hail's own `ds` and `dss`.
                let ds = yk - xk;
                let dss = yk * yk - xk * xk;
                let nn = n * n;
                let delta = |s: f64| (n * dss - 2.0 * s * ds - ds * ds) / nn;
                let (d1, d2) = (delta(s_lo), delta(s_hi));
                let d_max = d1.abs().max(d2.abs());
                // The roundings of hail's update of the variance (and of
                // `delta` above), each a few ulps of these magnitudes.
                let err =
                    REL * ((n * dss.abs() + 2.0 * s_max * ds.abs() + ds * ds) / nn + v_hi + d_max);
                // hail's new variance is at least max(0, V + dl) for every
                // row: `max 0` moves a value by no more than the error.
                let dl = d1.min(d2) - err;
                let gain = |v: f64| (v + dl).max(0.0).sqrt() - v.sqrt();
                // Unimodal in V (decreasing up to -dl, then increasing).
                let least = gain(v_lo)
                    .min(gain(v_hi))
                    .min(gain((-dl).clamp(v_lo, v_hi)));
                let roots = (v_hi + d_max + 2.0 * err).sqrt() + v_hi.sqrt();
                (least - REL * roots, (d_max + err).sqrt() + REL * roots)
            }
        };
        total += comp.weight * least;
        magnitude += comp.weight * size;
    }
    let floor = total - REL * (magnitude + total.abs());
    floor.is_finite().then_some(floor)
}

/// The least score, as hail computes it, of a row whose unchanged
/// component values are `values` (its `StatArray::values`), less the
/// secondary's part: the row's weighted sum less its rounding.
pub fn row_floor(values: &[f64; N_COMPONENTS]) -> f64 {
    let sum = weighted_sum(values);
    let magnitude: f64 = values
        .iter()
        .zip(COMPONENTS.iter())
        .map(|(v, c)| c.weight * v.abs())
        .sum();
    sum - REL * (magnitude + sum.abs())
}

/// Whether every pair of a row with [`row_floor`] `row` and a secondary
/// with [`secondary_floor`] `secondary` scores strictly above `best`.
pub fn cannot_beat(row: f64, secondary: f64, best: f64) -> bool {
    let floor = row + secondary;
    floor - REL * (row.abs() + secondary.abs()) > best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::metric::ClusterStats;

    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// On random groups, with rows changing one "primary" node and each
    /// secondary its own fixed change (some to zero, some by tiny steps),
    /// every pair's running-statistics score is at least the row's floor
    /// plus the secondary's, and the floors are close to the scores.
    #[test]
    fn floors_are_below_every_pair() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut tight = 0usize;
        let mut pairs = 0usize;
        for round in 0..150 {
            let n = 2 + (rng(&mut seed) % 80) as usize;
            let scale = [1.0, 1e-6, 1e3][round % 3];
            let mut vals: Vec<NodeValues> = Vec::new();
            for _ in 0..n {
                let mut v = [0.0; N_COMPONENTS];
                for (k, x) in v.iter_mut().enumerate() {
                    if k != 18 && k != 4 && k != 5 {
                        // Some identical values: zero variances.
                        *x = if rng(&mut seed).is_multiple_of(4) {
                            0.5
                        } else {
                            scale * (rng(&mut seed) % 1000) as f64 / 997.0
                        };
                    }
                }
                vals.push(v);
            }
            let news: Vec<NodeValues> = vals
                .iter()
                .map(|v| {
                    let mut y = *v;
                    for k in [1usize, 2, 3, 12, 14, 19] {
                        match rng(&mut seed) % 4 {
                            0 => {}
                            1 => y[k] = 0.0,
                            2 => y[k] += scale * 1e-9,
                            _ => y[k] -= scale * (rng(&mut seed) % 200) as f64 / 1000.0,
                        }
                    }
                    y
                })
                .collect();
            let empty: &[((u32, u32), i64)] = &[];
            let stats = ClusterStats::new(n, |i| (&vals[i], false, empty));
            let Some(array) = stats.array() else {
                continue;
            };
            let rows: Vec<StatArray> = (0..n)
                .map(|p| {
                    let mut after = vals[p];
                    after[0] -= 0.1 * scale;
                    after[6] += 0.05 * scale;
                    after[19] += 0.01 * scale;
                    let mut base = array;
                    base.update(&vals[p], false, &after);
                    base
                })
                .collect();
            let mut ranges = RowRanges::default();
            for r in &rows {
                assert!(ranges.include(r));
            }
            for (p, base) in rows.iter().enumerate() {
                assert!(ranges.covers(base));
                let values = base.values(0);
                let rf = row_floor(&values);
                for s in (0..n).filter(|&s| s != p) {
                    let sf = secondary_floor(&ranges, &vals[s], &news[s]).expect("bounded");
                    let score = base.score_after_update(&values, &vals[s], false, &news[s], 0);
                    assert!(
                        !cannot_beat(rf, sf, score),
                        "round {round} row {p} s {s}: {rf} + {sf} above {score}"
                    );
                    assert!(rf + sf <= score, "round {round} row {p} s {s}");
                    pairs += 1;
                    if score - (rf + sf) <= 1e-6 * (1.0 + score.abs()) {
                        tight += 1;
                    }
                }
            }
        }
        // Useful, not only sound: most floors are within 1e-6.
        assert!(tight * 10 >= pairs * 9, "{tight} of {pairs} tight");
    }

    /// A row outside the ranges is not covered, nor one with a NaN.
    #[test]
    fn ranges_cover_only_included_rows() {
        let empty: &[((u32, u32), i64)] = &[];
        let mut a = [0.0; N_COMPONENTS];
        a[0] = 0.25;
        let mut b = a;
        b[0] = 0.75;
        let vals = [a, b, a];
        let stats = ClusterStats::new(3, |i| (&vals[i], false, empty));
        let array = stats.array().expect("online nodes");
        let mut ranges = RowRanges::default();
        let mut row = array;
        row.update(&a, false, &b);
        assert!(!ranges.covers(&row));
        assert!(ranges.include(&row));
        assert!(ranges.covers(&row));
        assert!(!ranges.covers(&array));
        let mut nan = b;
        nan[0] = f64::NAN;
        let mut bad = array;
        bad.update(&a, false, &nan);
        assert!(!ranges.include(&bad));
        assert!(secondary_floor(&ranges, &a, &nan).is_none());
    }
}
