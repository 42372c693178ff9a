//! The cluster score hail minimises (`Ganeti.HTools.Cluster.Metrics`): a
//! weighted sum of 20 per-node statistics, computed with hail's exact
//! floating-point procedure so that scores, and therefore ties, are
//! bit-identical.
//!
//! Two procedures exist, as in hail, and they give different bits:
//! * the full computation ([`values_walk`], then [`weighted_sum`]): two-pass
//!   population standard deviations and left-to-right sums over the nodes
//!   in index order. hail uses it for single-node placement, evacuation and
//!   relocation;
//! * the running statistics ([`ClusterStats`]): computed once by the full
//!   procedure, then updated per candidate by replacing one node's
//!   contribution (`updateStatistics`). hail uses it for node pairs.
//!
//! Nothing here does IO or allocates per candidate: a candidate is scored
//! from the base per-node values plus the candidate's changed nodes.
//!
//! Cost: a full score is O(N) over the nodes; a running-statistics update
//! is O(1) (plus the location-exclusion map, which is empty unless location
//! and exclusion tags are both in use).

use std::collections::BTreeMap;

use crate::model::node::Scalars;
use crate::model::TagId;

/// Number of score components.
pub const N_COMPONENTS: usize = 20;

/// Index of the map-valued component (location exclusion score).
const MAP_COMPONENT: usize = 18;

/// How a component aggregates its per-node values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregation {
    /// Population standard deviation.
    StdDev,
    /// Plain sum.
    Sum,
    /// Union of per-node count maps: sum of counts minus number of keys.
    Map,
}

/// One component of the score.
#[derive(Debug, Clone, Copy)]
pub struct Component {
    /// Weight in the score.
    pub weight: f64,
    /// hail's name for it (`detailedCVInfoExt`); labels the components in
    /// explanations.
    pub name: &'static str,
    /// Aggregation over nodes.
    pub aggregation: Aggregation,
    /// Whether it aggregates online nodes (else offline ones).
    pub online: bool,
}

const fn c(weight: f64, name: &'static str, aggregation: Aggregation, online: bool) -> Component {
    Component {
        weight,
        name,
        aggregation,
        online,
    }
}

/// The components in hail's order (`detailedCVInfoExt`); the order is part
/// of the floating-point result.
pub const COMPONENTS: [Component; N_COMPONENTS] = [
    c(0.5, "free_mem_cv", Aggregation::StdDev, true),
    c(0.5, "free_disk_cv", Aggregation::StdDev, true),
    c(1.0, "n1_cnt", Aggregation::Sum, true),
    c(1.0, "reserved_mem_cv", Aggregation::StdDev, true),
    c(4.0, "offline_all_cnt", Aggregation::Sum, false),
    c(16.0, "offline_pri_cnt", Aggregation::Sum, false),
    c(0.5, "vcpu_ratio_cv", Aggregation::StdDev, true),
    c(1.0, "cpu_load_cv", Aggregation::StdDev, true),
    c(1.0, "mem_load_cv", Aggregation::StdDev, true),
    c(1.0, "disk_load_cv", Aggregation::StdDev, true),
    c(1.0, "net_load_cv", Aggregation::StdDev, true),
    c(2.0, "pri_tags_score", Aggregation::Sum, true),
    c(0.5, "spindles_cv", Aggregation::StdDev, true),
    c(0.5, "free_mem_cv_forth", Aggregation::StdDev, true),
    c(0.5, "free_disk_cv_forth", Aggregation::StdDev, true),
    c(0.5, "vcpu_ratio_cv_forth", Aggregation::StdDev, true),
    c(0.5, "spindles_cv_forth", Aggregation::StdDev, true),
    c(1.0, "location_score", Aggregation::Sum, true),
    c(1.0, "location_exclusion_score", Aggregation::Map, true),
    c(0.25, "reserved_mem_rtotal", Aggregation::Sum, true),
];

/// A node's location-exclusion counts: (location tag, exclusion tag) pairs.
pub type PairCounts = [((TagId, TagId), i64)];

/// One node's values of the scalar components (`compDetailedCVNode`); the
/// map component's slot holds 0.
pub type NodeValues = [f64; N_COMPONENTS];

/// Computes a node's component values from its scalars.
pub fn node_values(s: &Scalars) -> NodeValues {
    let p_rem = s.r_mem as f64 / s.t_mem;
    let n_pri = s.n_pri as f64;
    let n_sec = s.n_sec as f64;
    let n1 = if s.fail_n1 {
        (s.n_sec + s.n_pri) as f64
    } else {
        0.0
    };
    // hail divides the CPU ratios by the CPU speed (1.0 unless a data file
    // gives it; dividing by 1.0 is exact) and the loads by the utilisation
    // pool, always 1.0, which is elided.
    [
        s.p_mem(),
        s.p_dsk(),
        n1,
        p_rem,
        n_pri + n_sec,
        n_pri,
        s.u_cpu as f64 / s.t_cpu / s.cpu_speed,
        s.util_load[0],
        s.util_load[1],
        s.util_load[2],
        s.util_load[3],
        s.conflicting_primaries as f64,
        s.inst_spindles / s.hi_spindles,
        s.f_mem_forth as f64 / s.t_mem,
        s.p_dsk_forth(),
        s.u_cpu_forth as f64 / s.t_cpu / s.cpu_speed,
        s.inst_spindles_forth / s.hi_spindles,
        s.location_score as f64,
        0.0,
        p_rem,
    ]
}

/// Weighted sum of component values, left to right from 0
/// (`compCVfromStats`).
pub fn weighted_sum(values: &[f64; N_COMPONENTS]) -> f64 {
    let mut acc = 0.0;
    for (k, v) in values.iter().enumerate() {
        acc += COMPONENTS[k].weight * v;
    }
    acc
}

#[cfg(test)]
/// The full score of a node list given each node's values and offline
/// flag, in node order, and the location-exclusion value of the online
/// nodes (`compCVNodes`). `node(i)` returns the i-th node's values and
/// whether it is offline.
pub fn score_with<'a, F>(len: usize, node: F, map_value: i64) -> f64
where
    F: Fn(usize) -> (&'a NodeValues, bool) + Clone,
{
    score_walk((0..len).map(node), map_value)
}

/// The full score of the nodes an iterator yields (walked twice, so it
/// must be cheap to clone), in node order.
///
/// Each component's sums run left to right over the nodes, exactly as
/// hail's folds do; the loops just run all 20 components side by side,
/// which the compiler may vectorise without reordering any one sum.
/// Components that a node does not contribute to are still accumulated
/// into spare lanes and never read.
#[cfg(test)]
pub fn score_walk<'a, I>(nodes: I, map_value: i64) -> f64
where
    I: Iterator<Item = (&'a NodeValues, bool)> + Clone,
{
    values_walk(nodes, map_value).map_or(0.0, |v| weighted_sum(&v))
}

/// The 20 statistics of the nodes (hbal's `compDetailedCV`), or `None`
/// when no node is online (hail's statistics list is then empty).
pub fn values_walk<'a, I>(nodes: I, map_value: i64) -> Option<[f64; N_COMPONENTS]>
where
    I: Iterator<Item = (&'a NodeValues, bool)> + Clone,
{
    // First pass: counts and sums.
    let mut n_online = 0.0f64;
    let mut online_sums = [0.0f64; N_COMPONENTS];
    let mut offline_sums = [0.0f64; 2];
    for (v, offline) in nodes.clone() {
        if offline {
            offline_sums[0] += v[4];
            offline_sums[1] += v[5];
        } else {
            n_online += 1.0;
            for k in 0..N_COMPONENTS {
                online_sums[k] += v[k];
            }
        }
    }
    if n_online == 0.0 {
        // With no online node hail's statistics list is empty: score 0.
        return None;
    }
    let mut means = [0.0f64; N_COMPONENTS];
    for k in 0..N_COMPONENTS {
        means[k] = online_sums[k] / n_online;
    }
    // Second pass: sums of squared deviations.
    let mut nvar = [0.0f64; N_COMPONENTS];
    for (v, offline) in nodes {
        if offline {
            continue;
        }
        for k in 0..N_COMPONENTS {
            let d = v[k] - means[k];
            nvar[k] += d * d;
        }
    }
    let mut values = [0.0f64; N_COMPONENTS];
    for k in 0..N_COMPONENTS {
        values[k] = match COMPONENTS[k].aggregation {
            Aggregation::StdDev => (nvar[k] / n_online).sqrt(),
            Aggregation::Sum if k == 4 => offline_sums[0],
            Aggregation::Sum if k == 5 => offline_sums[1],
            Aggregation::Sum => online_sums[k],
            Aggregation::Map => map_value as f64,
        };
    }
    Some(values)
}

/// The location-exclusion component over a set of nodes: the union of the
/// nodes' (location tag, exclusion tag) count maps.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LocationExclusion {
    counts: BTreeMap<(TagId, TagId), i64>,
    sum: i64,
}

impl LocationExclusion {
    /// Adds one node's map (`Map.unionWith (+)`).
    pub fn add_node(&mut self, m: &PairCounts) {
        for &(k, v) in m {
            *self.counts.entry(k).or_insert(0) += v;
            self.sum += v;
        }
    }

    /// Sum of counts minus number of keys.
    pub fn value(&self) -> i64 {
        self.sum - self.counts.len() as i64
    }

    /// hail's running update (`updateStatistics` on a `MapStatistics`):
    /// `unionWith (+) (unionWith (-) m old) new`. A key only in `old`
    /// enters with `old`'s count (not negated), and keys are never removed.
    pub fn update(&mut self, old: &PairCounts, new: &PairCounts) {
        for &(k, v) in old {
            match self.counts.get_mut(&k) {
                Some(c) => {
                    *c -= v;
                    self.sum -= v;
                }
                None => {
                    self.counts.insert(k, v);
                    self.sum += v;
                }
            }
        }
        for &(k, v) in new {
            *self.counts.entry(k).or_insert(0) += v;
            self.sum += v;
        }
    }
}

/// A running statistic (`Statistics`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stat {
    /// A plain sum.
    Sum(f64),
    /// Count, sum, and variance (not the sum of squares).
    StdDev {
        /// The number of nodes.
        n: f64,
        /// The sum of their values.
        s: f64,
        /// The population variance.
        var: f64,
    },
    /// Stands in for the map statistic, kept in [`ClusterStats::map`].
    Map,
}

impl Stat {
    fn value_with(&self, map_value: i64) -> f64 {
        match *self {
            Stat::Sum(s) => s,
            Stat::StdDev { var, .. } => var.sqrt(),
            Stat::Map => map_value as f64,
        }
    }

    /// Whether replacing `x` by `y` leaves the statistic exactly as it is:
    /// the same finite value, and a finite state (then every delta is +0).
    fn unchanged_by(&self, x: f64, y: f64) -> bool {
        if x.to_bits() != y.to_bits() || !x.is_finite() {
            return false;
        }
        match *self {
            Stat::Sum(s) => s.is_finite(),
            Stat::StdDev { s, var, .. } => s.is_finite() && var.is_finite(),
            Stat::Map => true,
        }
    }

    #[cfg(test)]
    fn value(&self, map: &LocationExclusion) -> f64 {
        match *self {
            Stat::Sum(s) => s,
            Stat::StdDev { var, .. } => var.sqrt(),
            Stat::Map => map.value() as f64,
        }
    }

    /// Replaces value `x` by `y` (`updateStatistics`).
    fn update(&mut self, x: f64, y: f64) {
        match self {
            Stat::Sum(s) => {
                // Replacing a finite value by itself adds +0 to a finite sum,
                // which leaves it unchanged (a sum never is -0 here).
                if x.to_bits() == y.to_bits() && x.is_finite() && s.is_finite() {
                    return;
                }
                *s += y - x
            }
            Stat::StdDev { n, s, var } => {
                // Likewise: with x == y finite and finite state, every delta
                // is zero and the state is unchanged.
                if x.to_bits() == y.to_bits() && x.is_finite() && s.is_finite() && var.is_finite() {
                    return;
                }
                let ds = y - x;
                let dss = y * y - x * x;
                let dnnvar = (*n * dss - 2.0 * *s * ds) - ds * ds;
                *s += ds;
                *var = hs_max0(*var + dnnvar / (*n * *n));
            }
            Stat::Map => {}
        }
    }
}

/// Haskell's `max 0 v` for a Double: `if 0 <= v then v else 0` (so NaN
/// gives 0 and -0 stays -0).
fn hs_max0(v: f64) -> f64 {
    if 0.0 <= v {
        v
    } else {
        0.0
    }
}

/// The scalar part of running statistics, copied cheaply per candidate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StatArray([Stat; N_COMPONENTS]);

impl StatArray {
    /// Replaces one node's contribution; only the statistics of the old
    /// node's side (online or offline) change.
    pub fn update(&mut self, old: &NodeValues, old_offline: bool, new: &NodeValues) {
        let online = !old_offline;
        for (k, stat) in self.0.iter_mut().enumerate() {
            if COMPONENTS[k].online == online {
                stat.update(old[k], new[k]);
            }
        }
    }

    /// Adds an exact integer amount to a sum component (used for the
    /// location score, whose values are small integers, so the order of
    /// additions does not matter).
    pub fn add_to_sum(&mut self, k: usize, delta: f64) {
        if let Stat::Sum(s) = &mut self.0[k] {
            *s += delta;
        }
    }

    /// Component `k`'s running statistic (for bounds on later updates,
    /// [`crate::score::pairbound`]).
    pub fn stat(&self, k: usize) -> Stat {
        self.0[k]
    }

    /// Each component's current value (what the score sums).
    pub fn values(&self, map_value: i64) -> [f64; N_COMPONENTS] {
        let mut values = [0.0f64; N_COMPONENTS];
        for (k, stat) in self.0.iter().enumerate() {
            values[k] = stat.value_with(map_value);
        }
        values
    }

    /// The score after one more update (replacing `old` by `new`), given
    /// this array's component values `values` (from [`StatArray::values`]).
    /// Only the components the update changes are recomputed; the others
    /// keep their value, which is exactly what the full update would give
    /// (see [`Stat::update`]). Same bits as `update` then `score`.
    pub fn score_after_update(
        &self,
        values: &[f64; N_COMPONENTS],
        old: &NodeValues,
        old_offline: bool,
        new: &NodeValues,
        map_value: i64,
    ) -> f64 {
        let online = !old_offline;
        let mut values = *values;
        for (k, stat) in self.0.iter().enumerate() {
            if COMPONENTS[k].online != online || stat.unchanged_by(old[k], new[k]) {
                continue;
            }
            let mut st = *stat;
            st.update(old[k], new[k]);
            values[k] = st.value_with(map_value);
        }
        weighted_sum(&values)
    }
}

/// Index of the location score component (a sum of small integers).
pub const LOCATION_COMPONENT: usize = 17;

/// Running cluster statistics (`compClusterStatistics` and
/// `updateClusterStatistics`), used to score node pairs.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterStats {
    /// `None` when no node is online: hail's statistics list is then empty
    /// and every score is 0.
    stats: Option<[Stat; N_COMPONENTS]>,
    map: LocationExclusion,
}

impl ClusterStats {
    /// Computes the statistics of a node list by the full procedure.
    pub fn new<'a, F>(len: usize, node: F) -> ClusterStats
    where
        F: Fn(usize) -> (&'a NodeValues, bool, &'a [((TagId, TagId), i64)]),
    {
        let mut n_online = 0.0f64;
        let mut sums = [0.0f64; N_COMPONENTS];
        let mut map = LocationExclusion::default();
        for i in 0..len {
            let (v, offline, m) = node(i);
            if offline {
                sums[4] += v[4];
                sums[5] += v[5];
            } else {
                n_online += 1.0;
                for k in 0..N_COMPONENTS {
                    if k != 4 && k != 5 && k != MAP_COMPONENT {
                        sums[k] += v[k];
                    }
                }
                map.add_node(m);
            }
        }
        if n_online == 0.0 {
            return ClusterStats { stats: None, map };
        }
        let mut means = [0.0f64; N_COMPONENTS];
        for k in 0..N_COMPONENTS {
            if COMPONENTS[k].aggregation == Aggregation::StdDev {
                means[k] = sums[k] / n_online;
            }
        }
        let mut nvar = [0.0f64; N_COMPONENTS];
        for i in 0..len {
            let (v, offline, _) = node(i);
            if offline {
                continue;
            }
            for k in 0..N_COMPONENTS {
                if COMPONENTS[k].aggregation == Aggregation::StdDev {
                    let d = v[k] - means[k];
                    nvar[k] += d * d;
                }
            }
        }
        let mut stats = [Stat::Sum(0.0); N_COMPONENTS];
        for k in 0..N_COMPONENTS {
            stats[k] = match COMPONENTS[k].aggregation {
                Aggregation::StdDev => Stat::StdDev {
                    n: n_online,
                    s: sums[k],
                    var: nvar[k] / n_online,
                },
                Aggregation::Sum => Stat::Sum(sums[k]),
                Aggregation::Map => Stat::Map,
            };
        }
        ClusterStats {
            stats: Some(stats),
            map,
        }
    }

    #[cfg(test)]
    /// Replaces one node's contribution (`updateClusterStatistics`): only
    /// the statistics of the old node's side (online or offline) change.
    pub fn update(
        &mut self,
        old: (&NodeValues, bool, &PairCounts),
        new: (&NodeValues, &PairCounts),
    ) {
        let Some(stats) = self.stats.as_mut() else {
            return;
        };
        let online = !old.1;
        for (k, stat) in stats.iter_mut().enumerate() {
            if COMPONENTS[k].online == online {
                stat.update(old.0[k], new.0[k]);
            }
        }
        if online {
            self.map.update(old.2, new.1);
        }
    }

    /// The scalar statistics, or `None` when no node is online (every score
    /// is then 0).
    pub fn array(&self) -> Option<StatArray> {
        self.stats.map(StatArray)
    }

    /// The location-exclusion value after hail's running updates of the
    /// given (old map, new map) pairs of online nodes.
    pub fn map_value_after(&self, updates: &[(&PairCounts, &PairCounts)]) -> i64 {
        if updates.iter().all(|(o, n)| o.is_empty() && n.is_empty()) {
            return self.map.value();
        }
        let mut map = self.map.clone();
        for (o, n) in updates {
            map.update(o, n);
        }
        map.value()
    }

    #[cfg(test)]
    /// The score (`compCVfromStats`).
    pub fn score(&self) -> f64 {
        let Some(stats) = self.stats.as_ref() else {
            return 0.0;
        };
        let mut values = [0.0f64; N_COMPONENTS];
        for (k, stat) in stats.iter().enumerate() {
            values[k] = stat.value(&self.map);
        }
        weighted_sum(&values)
    }
}

/// The lowest score the nodes could reach (`optimalCVScore`): what the
/// failover reservations of drbd instances cost a perfectly balanced
/// cluster once one node is gone; 0 for fewer than two nodes.
/// The components' names, values and weights, for the score tables of
/// `-v -v -v` (none without values: no node online).
pub fn components(values: Option<[f64; N_COMPONENTS]>) -> Vec<(&'static str, f64, f64)> {
    values
        .map(|v| {
            COMPONENTS
                .iter()
                .zip(v)
                .map(|(c, x)| (c.name, x, c.weight))
                .collect()
        })
        .unwrap_or_default()
}

pub fn optimal_score(nodes: &[&crate::model::node::Node]) -> f64 {
    if nodes.len() < 2 {
        return 0.0;
    }
    let total = nodes.iter().fold(0.0, |acc, n| acc + n.t_mem);
    let largest = nodes
        .iter()
        .map(|n| n.t_mem)
        .fold(f64::NEG_INFINITY, f64::max);
    let one_less = total - largest;
    // `guard (oneLess > 0)`: NaN fails it too.
    if one_less.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return 0.0;
    }
    let drbd = nodes
        .iter()
        .flat_map(|n| n.peers.iter().map(|(_, m)| *m))
        .fold(0i64, i64::wrapping_add) as f64;
    let usage = drbd / total;
    let usage_one_less = drbd / one_less;
    0.25 * (usage_one_less - usage)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(x: f64) -> NodeValues {
        let mut v = [0.0; N_COMPONENTS];
        v[0] = x;
        v
    }

    #[test]
    fn std_dev_is_population_two_pass() {
        let nodes = [vals(0.2), vals(0.4), vals(0.9)];
        let got = score_with(3, |i| (&nodes[i], false), 0);
        let mean = (0.2 + 0.4 + 0.9) / 3.0;
        let var =
            ((0.2f64 - mean).powi(2) + (0.4f64 - mean).powi(2) + (0.9f64 - mean).powi(2)) / 3.0;
        assert_eq!(got, 0.5 * var.sqrt());
    }

    #[test]
    fn no_online_node_scores_zero() {
        let mut v = vals(0.3);
        v[4] = 5.0;
        let nodes = [v];
        assert_eq!(score_with(1, |i| (&nodes[i], true), 0), 0.0);
    }

    #[test]
    fn offline_counts_use_offline_nodes_only() {
        let mut off = vals(0.0);
        off[4] = 3.0;
        off[5] = 2.0;
        let on = vals(0.5);
        let nodes = [on, off];
        let got = score_with(2, |i| (&nodes[i], i == 1), 0);
        assert_eq!(got, 4.0 * 3.0 + 16.0 * 2.0);
    }

    #[test]
    fn running_update_matches_hail_formula() {
        let nodes = [vals(0.25), vals(0.5), vals(0.75)];
        let empty: &PairCounts = &[];
        let mut st = ClusterStats::new(3, |i| (&nodes[i], false, empty));
        let new = vals(0.6);
        st.update((&nodes[1], false, empty), (&new, empty));
        let (n, s, var) = (3.0f64, 1.5f64, {
            let m = 0.5;
            ((0.25f64 - m).powi(2) + 0.0 + (0.75f64 - m).powi(2)) / 3.0
        });
        let (x, y) = (0.5f64, 0.6f64);
        let ds = y - x;
        let dss = y * y - x * x;
        let d = (n * dss - 2.0 * s * ds) - ds * ds;
        let var2 = f64::max(0.0, var + d / (n * n));
        assert_eq!(st.score(), 0.5 * var2.sqrt());
    }

    #[test]
    fn map_update_keeps_keys_and_adds_unknown_old_keys() {
        let mut m = LocationExclusion::default();
        m.add_node(&[((1, 2), 2)]);
        assert_eq!(m.value(), 1);
        m.update(&[((1, 2), 2)], &[]);
        // The key stays with count 0: 0 - 1 key.
        assert_eq!(m.value(), -1);
        m.update(&[((3, 4), 1)], &[]);
        // A key only in `old` enters with old's count.
        assert_eq!(m.value(), 1 - 2);
    }
}
