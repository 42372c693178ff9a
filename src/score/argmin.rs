//! The best candidate by hail's full score, without computing the full
//! score of every candidate.
//!
//! Evacuation and relocation score each candidate move by the full score of
//! the target group (`compCVNodes`): a two-pass computation over all G nodes
//! whose floating-point result (its exact bits) decides the choice. Doing it
//! for each of G² node pairs costs O(G³). This module finds the same winner
//! in O(1) per candidate plus a full score only for near-ties:
//!
//! 1. Each candidate's score is approximated from running sums of the
//!    group kept in double-double arithmetic ([`GroupSums`]; the sums are
//!    accurate to about 1e-30 of the values' size, the variances computed
//!    from them in plain floating point to a few roundings).
//! 2. A rigorous bound on the distance between hail's floating-point result
//!    and the true real score is computed from the data (standard error
//!    analysis of recursive summation and the two-pass variance; see
//!    [`GroupSums::approx`]).
//! 3. Only candidates whose interval reaches below the best upper end can
//!    be the winner; their exact score is computed, in candidate order, and
//!    hail's rule (keep the old best unless it is strictly lower) picks the
//!    winner among them. Candidates outside are strictly worse than some
//!    candidate, so dropping them cannot change the result.
//!
//! Any non-finite value, or values too large for the bound to be
//! meaningful, switches the shortcut off: then every candidate gets its
//! exact score, as in hail.

use crate::score::metric::{Aggregation, NodeValues, COMPONENTS, N_COMPONENTS};

/// Unit roundoff of f64.
pub(super) const U: f64 = f64::EPSILON / 2.0;

/// `gamma(n) = n u / (1 - n u)`, the classic summation error factor.
pub(super) fn gamma(n: f64) -> f64 {
    let nu = n * U;
    nu / (1.0 - nu)
}

/// A double-double number: `hi + lo` with `|lo| <= ulp(hi)/2`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Dd {
    hi: f64,
    lo: f64,
}

fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    (s, err)
}

/// Dekker's split of a double into two halves of 26 bits each.
fn split(a: f64) -> (f64, f64) {
    let c = 134_217_729.0 * a; // 2^27 + 1
    let hi = c - (c - a);
    (hi, a - hi)
}

/// The exact product `a * b` as `p + e` (Dekker; no fused multiply-add,
/// which the baseline x86-64 target lacks in hardware).
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    let e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    (p, e)
}

impl Dd {
    fn from(x: f64) -> Dd {
        Dd { hi: x, lo: 0.0 }
    }

    fn add(self, b: Dd) -> Dd {
        let (s, e) = two_sum(self.hi, b.hi);
        let e = e + self.lo + b.lo;
        let (hi, lo) = two_sum(s, e);
        Dd { hi, lo }
    }

    fn neg(self) -> Dd {
        Dd {
            hi: -self.hi,
            lo: -self.lo,
        }
    }

    pub(super) fn sub(self, b: Dd) -> Dd {
        self.add(b.neg())
    }

    fn square_of(x: f64) -> Dd {
        let (hi, lo) = two_prod(x, x);
        Dd { hi, lo }
    }

    pub(super) fn value(self) -> f64 {
        self.hi + self.lo
    }
}

/// One component's running sums over the online nodes of a group.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct CompSums {
    pub(super) sum: Dd,
    sum_sq: Dd,
    /// An upper bound of |x| over the values ever included.
    pub(super) max_abs: f64,
}

/// Running sums of a group's node values, in double-double, to approximate
/// full scores after replacing a few nodes.
#[derive(Debug, Clone)]
pub struct GroupSums {
    pub(super) n_online: f64,
    pub(super) comps: [CompSums; N_COMPONENTS],
    /// Sums over offline nodes of the two offline components (exact small
    /// integers in practice; kept in double-double too).
    offline: [Dd; 2],
    offline_max: f64,
    n_offline: f64,
    /// Whether every value is finite and of a size the bound handles.
    pub(super) usable: bool,
}

/// Values beyond this size switch the shortcut off (the bound would still
/// hold, but such clusters are not worth the care).
pub(super) const MAX_VALUE: f64 = 1e12;

impl GroupSums {
    /// The sums of a list of nodes (values and offline flags).
    pub fn new<'a>(nodes: impl Iterator<Item = (&'a NodeValues, bool)>) -> GroupSums {
        let mut g = GroupSums {
            n_online: 0.0,
            comps: [CompSums::default(); N_COMPONENTS],
            offline: [Dd::default(); 2],
            offline_max: 0.0,
            n_offline: 0.0,
            usable: true,
        };
        for (v, off) in nodes {
            g.include(v, off, 1.0);
        }
        g
    }

    fn include(&mut self, v: &NodeValues, offline: bool, sign: f64) {
        if offline {
            self.n_offline += sign;
            for (i, k) in [4usize, 5].into_iter().enumerate() {
                let x = v[k];
                if !x.is_finite() || x.abs() > MAX_VALUE {
                    self.usable = false;
                }
                self.offline[i] = self.offline[i].add(Dd::from(sign * x));
                self.offline_max = self.offline_max.max(x.abs());
            }
            return;
        }
        self.n_online += sign;
        for (&x, c) in v.iter().zip(self.comps.iter_mut()) {
            if !x.is_finite() || x.abs() > MAX_VALUE {
                self.usable = false;
                continue;
            }
            c.sum = c.sum.add(Dd::from(sign * x));
            let sq = Dd::square_of(x);
            c.sum_sq = if sign > 0.0 {
                c.sum_sq.add(sq)
            } else {
                c.sum_sq.sub(sq)
            };
            c.max_abs = c.max_abs.max(x.abs());
        }
    }

    #[cfg(test)]
    /// The sums with node values `old` replaced by `new` (same offline
    /// flag, as nodes never change it).
    pub fn replaced(&self, old: &NodeValues, new: &NodeValues, offline: bool) -> GroupSums {
        let mut g = self.clone();
        g.replace(old, new, offline);
        g
    }

    /// Replaces in place. Components whose value does not change are left
    /// alone (which only makes the sums more accurate).
    pub fn replace(&mut self, old: &NodeValues, new: &NodeValues, offline: bool) {
        if offline {
            self.include(old, offline, -1.0);
            self.include(new, offline, 1.0);
            return;
        }
        for k in 0..N_COMPONENTS {
            let (x, y) = (old[k], new[k]);
            if x.to_bits() == y.to_bits() {
                continue;
            }
            if !x.is_finite() || !y.is_finite() || x.abs() > MAX_VALUE || y.abs() > MAX_VALUE {
                self.usable = false;
                continue;
            }
            let c = &mut self.comps[k];
            c.sum = c.sum.add(Dd::from(y)).sub(Dd::from(x));
            c.sum_sq = c.sum_sq.add(Dd::square_of(y)).sub(Dd::square_of(x));
            c.max_abs = c.max_abs.max(y.abs());
        }
    }

    /// The approximate score and a bound on its distance to hail's
    /// floating-point score, or `None` when the shortcut does not apply.
    /// `map_value` is the location-exclusion component (an exact integer).
    pub fn approx(&self, map_value: i64) -> Option<(f64, f64)> {
        let terms = self.terms(map_value)?;
        Some(combine(&terms))
    }

    /// Each component's approximate value and error bound, or `None` when
    /// the shortcut does not apply. Combine them with [`combine`].
    pub fn terms(&self, map_value: i64) -> Option<Terms> {
        if !self.usable {
            return None;
        }
        let mut out = [(0.0, 0.0); N_COMPONENTS];
        if self.n_online < 0.5 {
            // No online node: hail's score is exactly 0; all terms 0.
            return Some(Terms {
                values: out,
                empty: true,
            });
        }
        for (k, slot) in out.iter_mut().enumerate() {
            *slot = self.term(k, map_value);
        }
        Some(Terms {
            values: out,
            empty: false,
        })
    }

    /// Recomputes the terms of the components `changed` (a bit per
    /// component) on top of `base`.
    pub fn update_terms(&self, base: &Terms, changed: u32, map_value: i64) -> Option<Terms> {
        if !self.usable {
            return None;
        }
        if base.empty || self.n_online < 0.5 {
            return self.terms(map_value);
        }
        let mut out = *base;
        for k in 0..N_COMPONENTS {
            if changed & (1 << k) != 0 {
                out.values[k] = self.term(k, map_value);
            }
        }
        Some(out)
    }

    /// The approximate score with a few online nodes' values replaced
    /// (`(old, new, offline)`), from the terms of the unchanged group:
    /// only the components that change are recomputed, without copying
    /// the sums. The same result as replacing the values in a copy and
    /// calling [`GroupSums::approx`].
    pub fn approx_replacing(
        &self,
        base: &Terms,
        changes: &[(&NodeValues, &NodeValues, bool)],
        map_value: i64,
    ) -> Option<(f64, f64)> {
        if !self.usable || base.empty || self.n_online < 0.5 || changes.iter().any(|c| c.2) {
            let mut g = self.clone();
            for (old, new, off) in changes {
                g.replace(old, new, *off);
            }
            return g.approx(map_value);
        }
        let mut terms = *base;
        let mut mask = 0u32;
        for (old, new, _) in changes {
            mask |= changed_components(old, new);
        }
        while mask != 0 {
            let k = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            if !COMPONENTS[k].online {
                continue;
            }
            let mut c = self.comps[k];
            for (old, new, _) in changes {
                let (x, y) = (old[k], new[k]);
                if x.to_bits() == y.to_bits() {
                    continue;
                }
                if !x.is_finite() || !y.is_finite() || x.abs() > MAX_VALUE || y.abs() > MAX_VALUE {
                    return None;
                }
                c.sum = c.sum.add(Dd::from(y)).sub(Dd::from(x));
                c.sum_sq = c.sum_sq.add(Dd::square_of(y)).sub(Dd::square_of(x));
                c.max_abs = c.max_abs.max(y.abs());
            }
            terms.values[k] = self.online_term(k, &c, map_value);
        }
        Some(combine(&terms))
    }

    /// One component's approximate value and error bound (see the module
    /// doc for the analysis).
    fn term(&self, k: usize, map_value: i64) -> (f64, f64) {
        self.term_var(k, map_value).0
    }

    /// One component's term, with the variance behind it and that
    /// variance's error bound (0 for the components that are not standard
    /// deviations).
    pub(super) fn term_var(&self, k: usize, map_value: i64) -> ((f64, f64), (f64, f64)) {
        if COMPONENTS[k].online {
            let (t, var, var_err) = self.online_term_var(k, &self.comps[k], map_value);
            return (t, (var, var_err));
        }
        let s = self.offline[if k == 4 { 0 } else { 1 }].value();
        // Recursive summation error of hail's fold, plus the double-double
        // rounding.
        let e = gamma(self.n_offline + 1.0) * self.n_offline * self.offline_max + 4.0 * U * s.abs();
        ((s, e), (0.0, 0.0))
    }

    /// The term of an online component from its sums `c`.
    fn online_term(&self, k: usize, c: &CompSums, map_value: i64) -> (f64, f64) {
        self.online_term_var(k, c, map_value).0
    }

    /// The term of an online component from its sums `c`, with the
    /// variance it comes from and a bound on that variance's distance to
    /// the true one (both 0 for the components that are not standard
    /// deviations).
    fn online_term_var(&self, k: usize, c: &CompSums, map_value: i64) -> ((f64, f64), f64, f64) {
        let comp = &COMPONENTS[k];
        let n = self.n_online;
        match comp.aggregation {
            Aggregation::Map => ((map_value as f64, 0.0), 0.0, 0.0),
            Aggregation::Sum => {
                let s = c.sum.value();
                let e = gamma(n + 1.0) * n * c.max_abs + 4.0 * U * s.abs();
                ((s, e), 0.0, 0.0)
            }
            Aggregation::StdDev => {
                if c.max_abs == 0.0 {
                    // Every value is zero: hail computes exactly 0.
                    return ((0.0, 0.0), 0.0, 0.0);
                }
                // The variance from the sums, in plain floating point: its
                // distance to the true variance is at most `var_err` (the
                // sums' own double-double error, then about 6 roundings of
                // the sums' size; 16 leaves a margin). The approximation
                // only has to separate candidates, and this is far below
                // the differences between them.
                let s = c.sum.value();
                let sq = c.sum_sq.value();
                let mean_sq = s * s / n;
                let var_f = (sq - mean_sq) / n;
                let var = var_f.max(0.0);
                let dd_err = (n + 16.0) * 1e-29 * (c.max_abs * c.max_abs) + 1e-300;
                let var_err = dd_err + 16.0 * U * ((sq.abs() + mean_sq) / n + var_f.abs());
                let (sd, e) = std_dev_term(var, var_err, c.max_abs, gamma(n + 1.0), gamma(n + 4.0));
                ((sd, e), var, var_err)
            }
        }
    }
}

/// A standard-deviation term and its error bound from a variance `var`
/// within `var_err` of the true one: hail's two-pass computation has the
/// mean off by at most delta (`g1` = gamma(n + 1), `g4` = gamma(n + 4),
/// `max_abs` bounding the values); then `d` bounds the distance between
/// hail's computed variance and ours, and the square root's distance
/// follows (`|√a - √b| <= |a - b| / √a`, or `<= √|a - b|`).
#[inline]
pub(super) fn std_dev_term(var: f64, var_err: f64, max_abs: f64, g1: f64, g4: f64) -> (f64, f64) {
    let delta = (g1 + U) * max_abs;
    let d = delta * delta + g4 * (var + delta * delta) + var_err;
    let sd = var.sqrt();
    if sd > 0.0 && d <= var {
        // Here √d <= sd, so the rounding terms below are at most 4u sd.
        (sd, d / sd + 4.0 * U * sd)
    } else {
        let rd = d.sqrt();
        (sd, rd + U * (sd + rd) + 2.0 * U * sd)
    }
}

/// The per-component approximate values and error bounds of a score.
#[derive(Debug, Clone, Copy)]
pub struct Terms {
    values: [(f64, f64); N_COMPONENTS],
    /// No online node: the score is exactly 0.
    empty: bool,
}

/// The approximate score and its error bound from per-component terms.
pub fn combine(t: &Terms) -> (f64, f64) {
    if t.empty {
        return (0.0, 0.0);
    }
    let mut score = 0.0f64;
    let mut err = 0.0f64;
    let mut abs_terms = 0.0f64;
    for (k, (value, e)) in t.values.iter().enumerate() {
        let w = COMPONENTS[k].weight;
        score += w * value;
        err += w * e;
        abs_terms += (w * value).abs() + w * e;
    }
    // hail's weighted sum: products by powers of two are exact, the sum of
    // 20 terms adds gamma(20) of their magnitudes.
    err += gamma(N_COMPONENTS as f64) * abs_terms + 4.0 * U * score.abs();
    // A margin for everything the analysis rounds away.
    (score, 2.0 * err + f64::MIN_POSITIVE)
}

/// The components whose values differ between two nodes' values, as bits.
pub fn changed_components(old: &NodeValues, new: &NodeValues) -> u32 {
    let mut mask = 0u32;
    for k in 0..N_COMPONENTS {
        if old[k].to_bits() != new[k].to_bits() {
            mask |= 1 << k;
        }
    }
    mask
}

/// The winner among candidates `0..len` by hail's rule over exact scores
/// (the running best is replaced unless it is strictly lower, so ties go to
/// the later candidate), computing exact scores only where needed.
/// `approxes[i]` is the approximation and its error bound, or `None` to
/// force the exact score; `exact(i)` gives the exact score. Returns the
/// winner and its exact score.
pub fn best_by_score(
    approxes: &[Option<(f64, f64)>],
    mut exact: impl FnMut(usize) -> f64,
) -> Option<(usize, f64)> {
    // A candidate without an approximation may score NaN, and hail's
    // comparisons with NaN depend on every candidate's position: then every
    // candidate is scored exactly.
    let mut survivors = Survivors::new(approxes.iter().any(Option::is_none));
    for (i, ap) in approxes.iter().enumerate() {
        survivors.push(i, *ap);
    }
    survivors.best(|&i| exact(i)).ok().flatten()
}

/// [`best_by_score`] for candidates that arrive one by one, without a list
/// of them all: only the candidates whose interval still reaches below the
/// lowest upper end seen so far are kept (the list is filtered whenever it
/// has doubled), so that memory follows the near-ties, not the candidates.
/// The candidates kept at the end are exactly those [`best_by_score`]
/// would score, in the same order.
///
/// A candidate without an approximation forces every candidate to be
/// scored exactly; if one arrives after others were dropped, [`best`]
/// says so ([`Incomplete`]) and the caller enumerates again with
/// [`Survivors::new`]`(true)`.
///
/// [`best`]: Survivors::best
#[derive(Debug)]
pub struct Survivors<C> {
    /// Every candidate is kept and scored exactly.
    exhaustive: bool,
    /// A candidate without an approximation came.
    saw_none: bool,
    /// Whether any candidate was dropped.
    dropped: bool,
    /// The lowest upper end so far.
    ceiling: f64,
    /// The candidates kept, with their interval's lower end.
    kept: Vec<(C, f64)>,
    /// The length at which the list is filtered next.
    filter_at: usize,
}

/// A candidate without an approximation arrived after others had been
/// dropped: enumerate again with every candidate kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Incomplete;

impl<C> Survivors<C> {
    /// An empty list; `exhaustive` keeps every candidate (no shortcut).
    pub fn new(exhaustive: bool) -> Survivors<C> {
        Survivors {
            exhaustive,
            saw_none: false,
            dropped: false,
            ceiling: f64::INFINITY,
            kept: Vec::new(),
            filter_at: 1024,
        }
    }

    /// The next candidate in order, with its approximate score and error
    /// bound (`None`: only its exact score is known).
    pub fn push(&mut self, c: C, approx: Option<(f64, f64)>) {
        let Some((a, e)) = approx else {
            self.saw_none = true;
            self.exhaustive = true;
            self.kept.push((c, f64::NEG_INFINITY));
            return;
        };
        self.ceiling = self.ceiling.min(a + e);
        if !self.exhaustive && a - e > self.ceiling {
            self.dropped = true;
            return;
        }
        self.kept.push((c, a - e));
        if self.kept.len() >= self.filter_at && !self.exhaustive {
            let ceiling = self.ceiling;
            let before = self.kept.len();
            self.kept.retain(|&(_, lo)| lo <= ceiling);
            self.dropped |= self.kept.len() < before;
            self.filter_at = (2 * self.kept.len()).max(1024);
        }
    }

    /// The lowest upper end so far: a candidate whose exact score is above
    /// it cannot win.
    pub fn ceiling(&self) -> f64 {
        self.ceiling
    }

    /// Whether every candidate is kept (no candidate may be skipped).
    pub fn is_exhaustive(&self) -> bool {
        self.exhaustive
    }

    /// The candidates of `later`, which all come after these (as if
    /// pushed here in order).
    pub fn append(&mut self, later: Survivors<C>) {
        self.exhaustive |= later.exhaustive;
        self.saw_none |= later.saw_none;
        self.dropped |= later.dropped;
        self.ceiling = self.ceiling.min(later.ceiling);
        self.kept.extend(later.kept);
    }

    /// Puts the candidates kept back in their order, by a key that grows
    /// with it, when some came out of their turn (the order of the
    /// candidates that [`Survivors::best`] scores decides its ties; which
    /// are kept does not depend on the order).
    pub fn sort_kept_by_key<K: Ord>(&mut self, mut key: impl FnMut(&C) -> K) {
        self.kept.sort_by_key(|(c, _)| key(c));
    }

    /// The winner by hail's rule over exact scores (ties to the later
    /// candidate), scoring exactly only the candidates that can win.
    pub fn best(self, mut exact: impl FnMut(&C) -> f64) -> Result<Option<(C, f64)>, Incomplete> {
        if self.saw_none && self.dropped {
            return Err(Incomplete);
        }
        let mut best: Option<(C, f64)> = None;
        for (c, lo) in self.kept {
            if !self.exhaustive && lo > self.ceiling {
                continue;
            }
            let s = exact(&c);
            let keep_old = matches!(best, Some((_, old)) if old < s);
            if !keep_old {
                best = Some((c, s));
            }
        }
        Ok(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::base::OwnPart;
    use crate::score::metric;

    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    fn random_values(seed: &mut u64, symmetric: bool) -> NodeValues {
        let mut v = [0.0; N_COMPONENTS];
        for (k, x) in v.iter_mut().enumerate() {
            let r = rng(seed);
            *x = match k {
                0 | 1 | 3 | 6 | 13 | 14 | 15 | 19 => {
                    if symmetric {
                        [0.25, 0.5, 0.1][(r % 3) as usize]
                    } else {
                        (r % 10_000) as f64 / 9_999.0
                    }
                }
                2 | 4 | 5 | 7 | 8 | 9 | 10 | 11 | 17 => (r % 6) as f64,
                12 | 16 => (r % 7) as f64 / 32.0,
                _ => 0.0,
            };
        }
        v
    }

    /// Over random groups (some with many exact ties), the shortcut picks
    /// exactly the candidate an exact scan picks.
    #[test]
    fn shortcut_agrees_with_exact_scan() {
        let mut seed = 0x1234_5678_9abc_def1u64;
        for round in 0..300 {
            let symmetric = round % 3 == 0;
            let n = 3 + (rng(&mut seed) % 60) as usize;
            let base: Vec<NodeValues> = (0..n)
                .map(|_| random_values(&mut seed, symmetric))
                .collect();
            let offline: Vec<bool> = (0..n).map(|_| rng(&mut seed).is_multiple_of(10)).collect();
            let sums = GroupSums::new(base.iter().zip(offline.iter().copied()));
            // Candidates: replace one node's values by new ones.
            let cands: Vec<(usize, NodeValues)> = (0..40)
                .map(|_| {
                    (
                        (rng(&mut seed) as usize) % n,
                        random_values(&mut seed, symmetric),
                    )
                })
                .collect();
            let exact_of = |c: &(usize, NodeValues)| {
                let (j, v) = c;
                metric::score_with(
                    n,
                    |i| {
                        if i == *j {
                            (v, offline[i])
                        } else {
                            (&base[i], offline[i])
                        }
                    },
                    0,
                )
            };
            let mut scan: Option<(usize, f64)> = None;
            for (i, c) in cands.iter().enumerate() {
                let s = exact_of(c);
                if !matches!(scan, Some((_, old)) if old < s) {
                    scan = Some((i, s));
                }
            }
            let approxes: Vec<Option<(f64, f64)>> = cands
                .iter()
                .map(|(j, v)| sums.replaced(&base[*j], v, offline[*j]).approx(0))
                .collect();
            let got = best_by_score(&approxes, |i| exact_of(&cands[i]));
            assert_eq!(got.map(|g| g.0), scan.map(|s| s.0), "round {round}");
        }
    }

    /// The streaming list keeps, through its filtering, exactly the
    /// candidates the full list scores, and the same winner; a candidate
    /// without an approximation after some were dropped is reported.
    #[test]
    fn survivors_match_the_full_list() {
        let mut seed = 0x5eed_1234_abcd_0001u64;
        for round in 0..300 {
            let len = 1 + (rng(&mut seed) % 5000) as usize;
            // Scores on a coarse grid (many ties), intervals of random width.
            let exact: Vec<f64> = (0..len).map(|_| (rng(&mut seed) % 50) as f64).collect();
            let approxes: Vec<Option<(f64, f64)>> = exact
                .iter()
                .map(|&x| {
                    let e = (rng(&mut seed) % 4) as f64 * 0.5;
                    Some((x + e * 0.5, e))
                })
                .collect();
            let mut scored_full = Vec::new();
            let full = best_by_score(&approxes, |i| {
                scored_full.push(i);
                exact[i]
            });
            let mut sv = Survivors::new(false);
            for (i, ap) in approxes.iter().enumerate() {
                sv.push(i, *ap);
            }
            let mut scored = Vec::new();
            let got = sv.best(|&i| {
                scored.push(i);
                exact[i]
            });
            assert_eq!(got, Ok(full), "round {round}");
            assert_eq!(scored, scored_full, "round {round}");
        }
        let mut sv = Survivors::new(false);
        sv.push(0usize, Some((1.0, 0.0)));
        sv.push(1, Some((5.0, 0.0)));
        sv.push(2, None);
        assert_eq!(sv.best(|_| 0.0), Err(Incomplete));
        // Runs appended in order give the single list's result.
        let mut seed = 0x0a99_e4d5_0000_0001u64;
        for round in 0..200 {
            let len = 1 + (rng(&mut seed) % 3000) as usize;
            let exact: Vec<f64> = (0..len).map(|_| (rng(&mut seed) % 40) as f64).collect();
            let approx = |i: usize| Some((exact[i], (i % 3) as f64 * 0.5));
            let mut whole = Survivors::new(false);
            (0..len).for_each(|i| whole.push(i, approx(i)));
            let cut = (rng(&mut seed) as usize) % len;
            let (mut a, mut b) = (Survivors::new(false), Survivors::new(false));
            (0..cut).for_each(|i| a.push(i, approx(i)));
            (cut..len).for_each(|i| b.push(i, approx(i)));
            a.append(b);
            assert_eq!(
                a.best(|&i| exact[i]),
                whole.best(|&i| exact[i]),
                "round {round}"
            );
        }
        // A candidate without an approximation in a later run, after the
        // earlier run dropped some: incomplete.
        let mut a = Survivors::new(false);
        (0..2000usize).for_each(|i| a.push(i, Some((i as f64, 0.0))));
        let mut b = Survivors::new(false);
        b.push(2000usize, None);
        a.append(b);
        assert_eq!(a.best(|_| 0.0), Err(Incomplete));
        let mut sv = Survivors::new(false);
        sv.push(0usize, None);
        sv.push(1, Some((5.0, 0.0)));
        sv.push(2, Some((1.0, 0.0)));
        assert_eq!(sv.best(|&i| [3.0, 2.0, 1.0][i]), Ok(Some((2, 1.0))));
    }

    /// Asserts that the sums' approximation is within its bound of hail's
    /// score of the same nodes.
    fn assert_bound_holds(sums: &GroupSums, vals: &[NodeValues], offline: &[bool], round: usize) {
        let exact = metric::score_with(vals.len(), |i| (&vals[i], offline[i]), 0);
        let (a, e) = sums.approx(0).expect("finite values");
        assert!(
            (a - exact).abs() <= e,
            "round {round}: approx {a} exact {exact} bound {e}"
        );
    }

    /// The bound holds: the approximation is within its error of the exact
    /// score.
    #[test]
    fn bound_covers_hails_arithmetic() {
        let mut seed = 0x0ddc_0ffe_e123_4567u64;
        for round in 0..500 {
            let n = 2 + (rng(&mut seed) % 200) as usize;
            let vals: Vec<NodeValues> = (0..n)
                .map(|_| random_values(&mut seed, round % 2 == 0))
                .collect();
            let offline: Vec<bool> = (0..n).map(|_| rng(&mut seed).is_multiple_of(8)).collect();
            let sums = GroupSums::new(vals.iter().zip(offline.iter().copied()));
            assert_bound_holds(&sums, &vals, &offline, round);
            // After replacing a few nodes, through the subtracting path.
            let mut vals2 = vals.clone();
            let mut sums2 = sums.clone();
            for _ in 0..4 {
                let j = (rng(&mut seed) as usize) % n;
                let v = random_values(&mut seed, round % 2 == 0);
                sums2.replace(&vals2[j], &v, offline[j]);
                vals2[j] = v;
            }
            assert_bound_holds(&sums2, &vals2, &offline, round);
        }
    }

    /// A move off an offline node: the base's approximation with the
    /// offline node's counts lowered is within its bound of the exact
    /// score.
    #[test]
    fn bound_covers_moves_off_offline_nodes() {
        let mut seed = 0x0ff1_14e5_0000_0001u64;
        let mut checked = 0;
        for round in 0..400 {
            let n = 3 + (rng(&mut seed) % 120) as usize;
            let vals: Vec<NodeValues> = (0..n)
                .map(|_| random_values(&mut seed, round % 2 == 0))
                .collect();
            let offline: Vec<bool> = (0..n)
                .map(|i| i == 0 || rng(&mut seed).is_multiple_of(6))
                .collect();
            let sums = GroupSums::new(vals.iter().zip(offline.iter().copied()));
            let Some(base) = sums.base(0) else { continue };
            let on = (1..n).find(|&i| !offline[i]);
            let Some(on) = on else { continue };
            // The offline node loses part of its counts; the online node
            // takes new values.
            let mut off_new = vals[0];
            for k in [4, 5] {
                off_new[k] = (off_new[k] - (rng(&mut seed) % 3) as f64).max(0.0);
            }
            let on_new = random_values(&mut seed, round % 2 == 0);
            let Some((a, e)) = base.approx_leaving(
                &[(&vals[on], &on_new)],
                &[(&vals[0], &off_new)],
                |_, _, _, _| {},
            ) else {
                continue;
            };
            let exact = metric::score_with(
                n,
                |i| match i {
                    0 => (&off_new, true),
                    i if i == on => (&on_new, false),
                    i => (&vals[i], offline[i]),
                },
                0,
            );
            assert!(
                (a - exact).abs() <= e,
                "round {round}: approx {a} exact {exact} bound {e}"
            );
            checked += 1;
        }
        assert!(checked > 300, "only {checked} rounds checked");
    }

    /// A candidate's approximation from its own nodes' prepared part and
    /// its target ([`ScoreBase::approx_with`]) holds the exact score, as
    /// [`ScoreBase::approx_leaving`] of all its nodes does, and both agree
    /// to rounding.
    #[test]
    fn split_approximation_covers_the_exact_score() {
        let mut seed = 0x5b11_7a11_0000_0001u64;
        for round in 0..300 {
            let n = 4 + (rng(&mut seed) % 100) as usize;
            let symmetric = round % 2 == 0;
            let vals: Vec<NodeValues> = (0..n)
                .map(|_| random_values(&mut seed, symmetric))
                .collect();
            let offline = vec![false; n];
            let sums = GroupSums::new(vals.iter().zip(offline.iter().copied()));
            let Some(base) = sums.base(0) else { continue };
            // Own nodes 0 and 1 (node 1 sometimes unchanged), several
            // targets sharing them.
            let y0 = random_values(&mut seed, symmetric);
            let y1 = if round % 3 == 0 {
                vals[1]
            } else {
                random_values(&mut seed, symmetric)
            };
            let own = OwnPart::new(&[(&vals[0], &y0), (&vals[1], &y1)]);
            for _ in 0..5 {
                let t = 2 + (rng(&mut seed) as usize) % (n - 2);
                let yt = random_values(&mut seed, symmetric);
                let (a, e) = base
                    .approx_with(&own, &vals[t], &yt, |_, _, _, _| {})
                    .expect("in range");
                let list = [(&vals[0], &y0), (&vals[t], &yt), (&vals[1], &y1)];
                let (a2, e2) = base
                    .approx_leaving(&list, &[], |_, _, _, _| {})
                    .expect("in range");
                let exact = metric::score_with(
                    n,
                    |i| match i {
                        0 => (&y0, false),
                        1 => (&y1, false),
                        i if i == t => (&yt, false),
                        i => (&vals[i], false),
                    },
                    0,
                );
                assert!(
                    (a - exact).abs() <= e,
                    "round {round}: approx {a} exact {exact} bound {e}"
                );
                assert!((a - a2).abs() <= 1e-12 * (1.0 + a2.abs()), "round {round}");
                assert!((e - e2).abs() <= 1e-6 * e2, "round {round}");
            }
        }
    }

    /// The bound holds where the variance cancels badly: values with a
    /// large common part and a tiny spread, and all-equal values.
    #[test]
    fn bound_covers_cancelling_variances() {
        let mut seed = 0x5eed_cafe_f00d_0001u64;
        for round in 0..300 {
            let n = 2 + (rng(&mut seed) % 100) as usize;
            let big = [1e3, 1e6, 1e9, 1e11][round % 4];
            let spread = if round % 5 == 0 { 0.0 } else { 1e-6 };
            let vals: Vec<NodeValues> = (0..n)
                .map(|_| {
                    let mut v = random_values(&mut seed, false);
                    for x in v.iter_mut() {
                        *x = big + spread * *x;
                    }
                    v
                })
                .collect();
            let offline = vec![false; n];
            let sums = GroupSums::new(vals.iter().zip(offline.iter().copied()));
            assert_bound_holds(&sums, &vals, &offline, round);
        }
    }
}
