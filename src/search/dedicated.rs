//! Dedicated allocation (`Ganeti.HTools.Dedicated`, design doc "Allocation
//! for Partitioned Ganeti"): on clusters where every relevant node has
//! exclusive storage, hail replaces its cluster score by the
//! lost-allocations metric.
//!
//! For each min/max pair of the primary's policy (largest minimum disk
//! first) a minimally compliant test instance is built; a node's
//! *allocation vector* counts how many of each it could still take. A
//! placement's metric is the allocation vectors lost on its nodes plus the
//! disk left on them, compared lexicographically: lower is better, so the
//! search keeps large slots free and fills nodes best-fit. There is no
//! capacity check and no sorting: the running best wins, ties to the later
//! candidate.
//!
//! hail counts by adding the test instance again and again until a check
//! fails; that can take millions of steps (or never end), so hailstone
//! computes the same count in closed form from the same checks
//! ([`allocation_count`]), and the tests compare it with the iteration.

use std::cmp::Ordering;

use crate::haskell::show as haskell;
use crate::model::group::Group;
use crate::model::instance::{Instance, NO_NODE};
use crate::model::node::Node;
use crate::model::policy::IPolicy;
use crate::model::types::{DiskTemplate, SoftChecks};
use crate::model::{find_group, NameMatch};
use crate::search::allocate::{
    describe_group, gen_alloc_nodes, has_required_networks, split_groups, AllocNodes, AllocOptions,
    SearchError,
};
use crate::search::ghc_sort;
use crate::search::solution::{
    best_of, AllocSolution, CandidateNote, CandidateOutcome, Metric, Placement,
};
use crate::search::state::State;

/// The lost-allocations metric: allocations lost per test instance, then
/// the disk left on the placement's nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LostAllocations {
    /// Allocations lost, one entry per test instance.
    pub lost: Vec<i64>,
    /// Free disk left on the node(s), MiB.
    pub disk: i64,
}

impl Metric for LostAllocations {
    fn hs_compare(&self, other: &Self) -> Ordering {
        self.lost.cmp(&other.lost).then(self.disk.cmp(&other.disk))
    }

    fn hs_lt(&self, other: &Self) -> bool {
        self.hs_compare(other) == Ordering::Less
    }

    fn describe(&self) -> String {
        format!("({},{})", haskell::show_int_list(&self.lost), self.disk)
    }
}

/// The test instances of a policy (`testInstances`): one per min/max pair,
/// built from the minimum spec, sorted by minimum disk size descending.
pub fn test_instances(policy: &IPolicy) -> Vec<Instance> {
    let mins: Vec<_> = policy.minmax.iter().map(|mm| mm.min).collect();
    let mins = ghc_sort::sort_by(mins, |a, b| b.disk_size.cmp(&a.disk_size));
    mins.iter()
        .map(|spec| {
            Instance::for_calculation(
                "minimalspecinstance",
                spec.memory_size,
                spec.disk_size,
                spec.cpu_count,
                spec.spindle_use,
                DiskTemplate::Plain,
                true,
            )
        })
        .collect()
}

/// The step hail's counting loop would never leave; counts are capped here.
pub const COUNT_CAP: i64 = 1 << 53;

/// The first step `j` in `1..=COUNT_CAP` at which the monotone predicate
/// holds, if any.
fn first_step(pred: impl Fn(i64) -> bool) -> Option<i64> {
    if pred(1) {
        return Some(1);
    }
    if !pred(COUNT_CAP) {
        return None;
    }
    let (mut lo, mut hi) = (1i64, COUNT_CAP);
    // Invariant: pred(lo) is false, pred(hi) is true.
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

/// How many times a test instance can be added to the node with strict
/// checks (`length (iterateOk (Node.addPri inst) node)`), computed in
/// closed form.
///
/// The test instance is running, plain, diskless in its disk list, and
/// tagless, so each addition changes the node linearly: the j-th addition
/// sees memory, disk and CPU use grown by j times the instance's. Each of
/// `addPri`'s checks then fails from some step on (or at most at step 1),
/// and the count is the first failing step minus one.
pub fn allocation_count(node: &Node, t: &Instance) -> i64 {
    let m = i128::from(if t.uses_memory() { t.mem } else { 0 });
    let d = i128::from(t.dsk);
    let v = i128::from(t.vcpus);
    let su = t.spindle_use as f64;
    let u0 = i128::from(node.unallocated_mem());
    let r = i128::from(node.r_mem);
    let d0 = i128::from(node.f_dsk);
    let c0 = i128::from(node.u_cpu);
    let fm0 = i128::from(node.f_mem_forth);
    let fd0 = i128::from(node.f_dsk_forth);
    let cf0 = i128::from(node.u_cpu_forth);
    let s0 = node.inst_spindles;
    let sf0 = node.inst_spindles_forth;
    let hi = node.hi_spindles;
    let l = node.vcpu_ratio;
    let t_cpu = node.t_cpu;
    let excl = node.excl_storage;

    let free = |j: i64| u0 - i128::from(j) * m;
    let mut first: Option<i64> = None;
    let mut consider = |step: Option<i64>| {
        if let Some(s) = step {
            first = Some(first.map_or(s, |f| f.min(s)));
        }
    };

    // Memory (hard), disk (hard and strict), free spindles.
    consider(first_step(|j| free(j) <= 0));
    consider(first_step(|j| d0 - i128::from(j) * d <= 0));
    if excl && node.f_spindles < 0 {
        consider(Some(1));
    }
    // Instance spindles against the policy limit.
    if excl {
        if 0.0 > hi {
            consider(Some(1));
        }
    } else {
        consider(first_step(|j| s0 + (j as f64) * su > hi));
    }
    // N+1: the step at which the node starts failing N+1, unless it
    // already fails it before that step.
    let crossing = first_step(|j| free(j) <= r);
    match crossing {
        Some(1) if !node.fail_n1 => consider(Some(1)),
        // free(c-1) > r, so the flag before step c is false; with memory
        // not growing (m >= 0) that is the crossing itself.
        Some(c) if c > 1 && m >= 0 => consider(Some(c)),
        _ => {}
    }
    // CPU ratio.
    if l >= 0.0 {
        consider(first_step(|j| {
            l < ((c0 + i128::from(j) * v) as f64) / t_cpu
        }));
    }
    // Forthcoming mirrors.
    consider(first_step(|j| fm0 - i128::from(j) * m <= 0));
    consider(first_step(|j| fd0 - i128::from(j) * d <= 0));
    if excl && node.f_spindles_forth < 0 {
        consider(Some(1));
    }
    if !excl {
        consider(first_step(|j| sf0 + (j as f64) * su > hi));
    }
    if l >= 0.0 {
        consider(first_step(|j| {
            l < ((cf0 + i128::from(j) * v) as f64) / t_cpu
        }));
    }
    match first {
        Some(f) => f - 1,
        None => COUNT_CAP,
    }
}

/// The allocation vector of a node (`allocationVector`).
pub fn allocation_vector(tests: &[Instance], node: &Node) -> Vec<i64> {
    tests.iter().map(|t| allocation_count(node, t)).collect()
}

fn placement(
    p: usize,
    s: Option<usize>,
    metric: LostAllocations,
    inst: Instance,
    nodes: Vec<(usize, Node)>,
) -> Placement<LostAllocations> {
    let node_names = nodes.iter().map(|(_, n)| n.info.name.clone()).collect();
    Placement {
        primary: p,
        secondary: s,
        metric,
        inst,
        node_names,
        nodes,
    }
}

/// Places the instance alone on node `p` (`Dedicated.allocateOnSingle`).
fn allocate_on_single(
    state: &State,
    inst: &Instance,
    p: usize,
    soft: SoftChecks,
) -> Result<Placement<LostAllocations>, crate::model::types::FailMode> {
    let node = state.node_at(p);
    let policy = state.policy(node.group);
    let tests = test_instances(policy);
    policy.check(inst, node.excl_storage)?;
    let before = allocation_vector(&tests, node);
    let mut new_p = node.clone();
    new_p.add_pri(soft, inst)?;
    let after = allocation_vector(&tests, &new_p);
    let lost = before.iter().zip(&after).map(|(b, a)| b - a).collect();
    let metric = LostAllocations {
        lost,
        disk: new_p.f_dsk,
    };
    let mut record = inst.clone();
    record.p_node = p as i32;
    record.s_node = NO_NODE;
    Ok(placement(p, None, metric, record, vec![(p, new_p)]))
}

/// Places the instance on the pair (`Dedicated.allocateOnPair`).
fn allocate_on_pair(
    state: &State,
    inst: &Instance,
    p: usize,
    s: usize,
    soft: SoftChecks,
) -> Result<Placement<LostAllocations>, crate::model::types::FailMode> {
    let node_p = state.node_at(p);
    let node_s = state.node_at(s);
    let policy = state.policy(node_p.group);
    let tests = test_instances(policy);
    let mut record = inst.clone();
    record.p_node = p as i32;
    record.s_node = s as i32;
    policy.check(inst, node_p.excl_storage)?;
    let before_p = allocation_vector(&tests, node_p);
    let mut new_p = node_p.clone();
    new_p.add_pri(soft, &record)?;
    let after_p = allocation_vector(&tests, &new_p);
    let mut new_s = node_s.clone();
    new_s.add_sec(false, SoftChecks::Enforce, &record, p as i32)?;
    let before_s = allocation_vector(&tests, node_s);
    let after_s = allocation_vector(&tests, &new_s);
    let lost = (0..tests.len())
        .map(|i| (before_p[i] - after_p[i]) + (before_s[i] - after_s[i]))
        .collect();
    let metric = LostAllocations {
        lost,
        disk: new_p.f_dsk + new_s.f_dsk,
    };
    Ok(placement(
        p,
        Some(s),
        metric,
        record,
        vec![(p, new_p), (s, new_s)],
    ))
}

/// The dedicated search in one group (`Dedicated.findAllocation`); `state`
/// must hold the group's nodes.
pub fn find_allocation(
    node_groups: &[Group],
    state: &State,
    g: usize,
    inst: &Instance,
    count: i64,
    opts: &AllocOptions,
) -> Result<AllocSolution<LostAllocations>, SearchError> {
    let group = &node_groups[g];
    if !has_required_networks(group, inst) {
        return Err(SearchError::Message(format!(
            "The group {} is not connected to a network required by instance {}",
            group.name, inst.name
        )));
    }
    let keys: Vec<usize> = state
        .node_keys()
        .filter(|&k| state.node_at(k).group == g)
        .collect();
    let soft = opts.soft;
    let mut sol: AllocSolution<LostAllocations> = AllocSolution::default();
    match gen_alloc_nodes(state, &keys, count, opts.restrict.as_deref())? {
        AllocNodes::Pairs(pairs) if pairs.is_empty() => {
            return Err(SearchError::Message("Not enough online nodes".to_owned()))
        }
        AllocNodes::Single(list) if list.is_empty() => {
            return Err(SearchError::Message("No online nodes".to_owned()))
        }
        AllocNodes::Pairs(pairs) => {
            for (p, secondaries) in pairs.iter() {
                let mut part: AllocSolution<LostAllocations> = AllocSolution::default();
                for s in secondaries.iter() {
                    let r = allocate_on_pair(state, inst, p, s, soft);
                    note(&mut part, opts, p, Some(s), &r);
                    concat(&mut part, r);
                }
                sol = sol.sum(part);
            }
        }
        AllocNodes::Single(list) => {
            for p in list {
                let r = allocate_on_single(state, inst, p, soft);
                note(&mut sol, opts, p, None, &r);
                concat(&mut sol, r);
            }
        }
    }
    Ok(sol.annotate())
}

/// Notes a candidate's outcome when the search is explained (a fit has
/// no score here: candidates are compared by allocations lost).
fn note(
    sol: &mut AllocSolution<LostAllocations>,
    opts: &AllocOptions,
    primary: usize,
    secondary: Option<usize>,
    r: &Result<Placement<LostAllocations>, crate::model::types::FailMode>,
) {
    if opts.explain {
        let outcome = match r {
            Err(f) => CandidateOutcome::Refused(*f),
            Ok(_) => CandidateOutcome::Scored(f64::NAN),
        };
        sol.notes.push(CandidateNote {
            primary,
            secondary,
            outcome,
        });
    }
}

/// `concatAllocs`: counts a failure, or keeps the better placement (ties
/// to the new one).
fn concat(
    sol: &mut AllocSolution<LostAllocations>,
    r: Result<Placement<LostAllocations>, crate::model::types::FailMode>,
) {
    match r {
        Err(f) => sol.failures.add(f),
        Ok(pl) => {
            sol.allocs += 1;
            sol.best = best_of(sol.best.take(), Some(pl));
        }
    }
}

/// Each group's dedicated search, before the choice: every group of the
/// state (`findMGAllocation`), or the group `group_name` names (none when
/// no single group has that name or UUID).
pub type GroupResults = Vec<(usize, Result<AllocSolution<LostAllocations>, SearchError>)>;

/// The searches of [`GroupResults`].
pub fn search_groups(
    node_groups: &[Group],
    state: &State,
    group_name: Option<&str>,
    inst: &Instance,
    count: i64,
    opts: &AllocOptions,
) -> GroupResults {
    let groups: Vec<usize> = match group_name {
        None => split_groups(state, node_groups.len())
            .into_iter()
            .map(|(g, _)| g)
            .collect(),
        Some(name) => match find_group(node_groups, name) {
            NameMatch::One(g) => vec![g],
            _ => Vec::new(),
        },
    };
    groups
        .into_iter()
        .map(|g| (g, find_allocation(node_groups, state, g, inst, count, opts)))
        .collect()
}

/// The dedicated search over all groups (`findMGAllocation`): the best of
/// `results` (from [`search_groups`] without a group name), its log
/// starting with the selected group.
pub fn choose_mg(
    node_groups: &[Group],
    results: GroupResults,
) -> Result<AllocSolution<LostAllocations>, SearchError> {
    let mut messages = Vec::new();
    for (g, r) in &results {
        messages.extend(describe_group(&node_groups[*g], r));
    }
    match crate::search::allocate::rank_groups(node_groups, results) {
        None => Err(SearchError::Message(messages.join(", "))),
        Some((g, mut sol)) => {
            let mut log = vec![format!("Selected group: {}", node_groups[g].name)];
            log.extend(messages);
            sol.log = log;
            Ok(sol)
        }
    }
}

/// The dedicated search in a named group (`findAllocation`): the one
/// result of [`search_groups`] with the group's name, or hail's message
/// when no single group has that name. With `describe`, the log is the
/// group's description (hail's dedicated allocate); without, the search's
/// own (multi-allocate).
pub(in crate::search) fn choose_named(
    node_groups: &[Group],
    group_name: &str,
    results: GroupResults,
    describe: bool,
) -> Result<AllocSolution<LostAllocations>, SearchError> {
    let Some((g, result)) = results.into_iter().next() else {
        return Err(SearchError::Message(format!(
            "Wrong number of elems found with name {group_name}"
        )));
    };
    let mut sol = result?;
    if describe {
        sol.log = describe_group(&node_groups[g], &Ok(sol.clone()));
    }
    Ok(sol)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::policy::{ISpec, MinMaxISpecs};

    /// hail's loop, capped.
    fn count_by_iteration(node: &Node, t: &Instance, cap: i64) -> i64 {
        let mut n = node.clone();
        let mut k = 0;
        while k < cap {
            if n.add_pri(SoftChecks::Enforce, t).is_err() {
                return k;
            }
            k += 1;
        }
        k
    }

    #[allow(clippy::too_many_arguments)]
    fn node(
        mem: f64,
        free_mem: i64,
        dsk: f64,
        free_dsk: i64,
        cpus: f64,
        used_cpu: i64,
        r_mem: i64,
        fail_n1: bool,
    ) -> Node {
        Node {
            info: std::sync::Arc::new(crate::model::node::NodeInfo {
                name: "n".into(),
                alias_len: 1,
                tags: vec![],
                location_tags: vec![],
                mig_tags: vec![],
                rmig_tags: vec![],
                master: false,
                n_cpu: 0,
                cpu_speed: 1.0,
            }),
            idx: 0,
            group: 0,
            t_mem: mem,
            n_mem: 0,
            f_mem: free_mem,
            i_mem: (mem as i64) - free_mem,
            x_mem: 0,
            t_dsk: dsk,
            f_dsk: free_dsk,
            t_cpu: cpus,
            u_cpu: used_cpu,
            t_spindles: 12,
            f_spindles: 12,
            excl_storage: true,
            offline: false,
            vcpu_ratio: 4.0,
            hi_spindles: 12.0 * 32.0,
            lo_dsk: 0,
            p_list: Default::default(),
            s_list: Default::default(),
            peers: Default::default(),
            r_mem,
            fail_n1,
            util_load: [0.0; 4],
            inst_spindles: 0.0,
            location_score: 0,
            instance_map: Default::default(),
            p_tags: Default::default(),
            f_mem_forth: free_mem,
            f_dsk_forth: free_dsk,
            u_cpu_forth: used_cpu,
            f_spindles_forth: 12,
            inst_spindles_forth: 0.0,
        }
    }

    fn spec(mem: i64, dsk: i64, cpu: i64) -> ISpec {
        ISpec {
            memory_size: mem,
            cpu_count: cpu,
            disk_size: dsk,
            disk_count: 1,
            nic_count: 1,
            spindle_use: 1,
        }
    }

    fn policy(specs: &[(i64, i64)]) -> IPolicy {
        IPolicy {
            minmax: specs
                .iter()
                .map(|&(m, d)| MinMaxISpecs {
                    min: spec(m, d, 1),
                    max: spec(m * 2, d * 2, 8),
                })
                .collect(),
            std: spec(128, 1024, 1),
            disk_templates: DiskTemplate::ALL.to_vec(),
            vcpu_ratio: 4.0,
            spindle_ratio: 32.0,
        }
    }

    #[test]
    fn closed_form_matches_iteration() {
        let mut seed = 0x9e3779b97f4a7c15u64;
        let mut rnd = |n: i64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % (n as u64)) as i64
        };
        for _ in 0..3000 {
            let tmem = 1000 + rnd(60000);
            let fmem = rnd(tmem);
            let tdsk = 1000 + rnd(400000);
            let fdsk = rnd(tdsk + 1) - 10;
            let cpus = 1 + rnd(32);
            let ucpu = rnd(cpus * 4 + 2);
            let rmem = rnd(3000);
            let mut n = node(
                tmem as f64,
                fmem,
                tdsk as f64,
                fdsk,
                cpus as f64,
                ucpu,
                rmem,
                rnd(2) == 0,
            );
            n.excl_storage = rnd(3) != 0;
            n.vcpu_ratio = [0.5, 1.0, 4.0, -1.0][rnd(4) as usize];
            n.f_mem_forth = fmem - rnd(100);
            n.hi_spindles = rnd(40) as f64;
            n.inst_spindles = rnd(30) as f64;
            let t = &test_instances(&policy(&[(1 + rnd(4000), 1 + rnd(50000))]))[0];
            let mut t = t.clone();
            t.vcpus = rnd(4);
            t.spindle_use = rnd(3);
            let want = count_by_iteration(&n, &t, 1_000_000);
            assert_eq!(allocation_count(&n, &t), want, "node {n:?} inst {t:?}");
        }
    }

    #[test]
    fn test_instances_sorted_by_disk_descending() {
        let p = policy(&[(1, 100), (1, 400), (1, 200)]);
        let disks: Vec<i64> = test_instances(&p).iter().map(|t| t.dsk).collect();
        assert_eq!(disks, vec![400, 200, 100]);
    }

    /// The lost-allocations metric of placing a test instance shaped like
    /// `tests[which]` (with disk `dsk`) on a node of `full + 1` MiB disk
    /// that already has `q` quarters filled.
    fn quarter_metric(
        tests: &[Instance],
        which: usize,
        dsk: i64,
        full: i64,
        q: i64,
    ) -> LostAllocations {
        let n = node(
            1e6,
            900_000,
            (full + 1) as f64,
            full + 1 - q * full / 4,
            64.0,
            0,
            0,
            false,
        );
        let before = allocation_vector(tests, &n);
        let mut after_n = n.clone();
        let mut inst = tests[which].clone();
        inst.dsk = dsk;
        after_n.add_pri(SoftChecks::Enforce, &inst).unwrap();
        let after = allocation_vector(tests, &after_n);
        let lost: Vec<i64> = before.iter().zip(&after).map(|(b, a)| b - a).collect();
        LostAllocations {
            lost,
            disk: after_n.f_dsk,
        }
    }

    /// The design document's example: full, half and quarter node specs;
    /// a quarter-sized instance prefers a three-quarter-filled node, then a
    /// quarter-filled one, then a half-filled one, then an empty one.
    /// (Nodes have one extra MiB, as a node must keep some disk free.)
    #[test]
    fn seed_example_quarter_instance_preferences() {
        let full = 4096;
        let tests = test_instances(&policy(&[(1, full), (1, full / 2), (1, full / 4)]));
        let metric = |q| quarter_metric(&tests, 2, full / 4, full, q);
        assert_eq!(metric(3).lost, vec![0, 0, 1]);
        assert_eq!(metric(1).lost, vec![0, 0, 1]);
        assert_eq!(metric(2).lost, vec![0, 1, 1]);
        assert_eq!(metric(0).lost, vec![1, 1, 1]);
        let order = [metric(3), metric(1), metric(2), metric(0)];
        for w in order.windows(2) {
            assert!(w[0].hs_lt(&w[1]), "{:?} should beat {:?}", w[0], w[1]);
        }
    }

    /// A half-sized instance prefers a half-filled node, then a
    /// quarter-filled one, then an empty one.
    #[test]
    fn seed_example_half_instance_preferences() {
        let full = 4096;
        let tests = test_instances(&policy(&[(1, full), (1, full / 2), (1, full / 4)]));
        let metric = |q| quarter_metric(&tests, 1, full / 2, full, q);
        assert_eq!(metric(2).lost, vec![0, 1, 2]);
        assert_eq!(metric(1).lost, vec![0, 1, 2]);
        assert_eq!(metric(0).lost, vec![1, 1, 2]);
        assert!(metric(2).hs_lt(&metric(1)));
        assert!(metric(1).hs_lt(&metric(0)));
    }

    /// With a three-quarter spec too, a quarter instance prefers a half-full
    /// node (0,0,1,1) over a quarter-filled one (0,1,0,1).
    #[test]
    fn seed_example_three_quarter_spec_changes_preferences() {
        let full = 4096;
        let tests = test_instances(&policy(&[
            (1, full),
            (1, 3 * full / 4),
            (1, full / 2),
            (1, full / 4),
        ]));
        let metric = |q| quarter_metric(&tests, 3, full / 4, full, q);
        assert_eq!(metric(2).lost, vec![0, 0, 1, 1]);
        assert_eq!(metric(1).lost, vec![0, 1, 0, 1]);
        assert!(metric(2).hs_lt(&metric(1)));
    }
}
