//! Completeness of the repair planner on small clusters: an exhaustive
//! search over every way of moving the problem instances of an unhealthy
//! group (each one stays, or goes to any node, or pair of nodes, of a
//! connected healthy group that can take it) decides whether a repair
//! exists; the planner must find one whenever it does, up to the
//! exceptions counted here (a greedy order can miss a repair that needs
//! an instance to be skipped, and a group change moves through
//! intermediate states the direct placement does not need).
//!
//! Placements use the target group's instance policy and the model's own
//! capacity primitives in their strict form, as a group change does; the safety of what the planner outputs
//! is proved elsewhere by an independent checker (`tests/groups.rs`).

use crate::model::group::Group;
use crate::model::instance::NO_NODE;
use crate::model::types::{DiskTemplate, FailMode, SoftChecks};
use crate::read::merge::MergeOptions;
use crate::read::text;
use crate::search::allocate::AllocOptions;
use crate::search::groups::{health, peers_among, problem_instances, repair, Outcome, Status};
use crate::search::state::State;
use hailstone_devtools::generate::{generate, CaseSpec};

/// Moves instance `k` to `p` (and `s`) by its final placement only.
fn place(state: &mut State, k: usize, p: usize, s: Option<usize>) -> Result<(), FailMode> {
    let inst = state
        .inst(k as i32)
        .map_err(|_| FailMode::Internal)?
        .clone();
    for (n, primary) in [(inst.p_node, true), (inst.s_node, false)] {
        if let Ok(n) = usize::try_from(n) {
            let mut node = state.node_at(n).clone();
            if primary {
                node.remove_pri(&inst);
            } else {
                node.remove_sec(&inst);
            }
            state.set_node(n, node);
        }
    }
    let mut moved = inst.clone();
    moved.p_node = p as i32;
    moved.s_node = s.map_or(NO_NODE, |s| s as i32);
    // The target group's instance policy, as the group choice checks it.
    let pn = state.node_at(p);
    state.policy(pn.group).check(&moved, pn.excl_storage)?;
    let mut pn = pn.clone();
    pn.add_pri(SoftChecks::Enforce, &moved)?;
    state.set_node(p, pn);
    if let Some(s) = s {
        let mut sn = state.node_at(s).clone();
        sn.add_sec(false, SoftChecks::Enforce, &moved, p as i32)?;
        state.set_node(s, sn);
    }
    state.set_inst(k, moved);
    Ok(())
}

/// Every final placement of instance `k` in the groups `targets`.
fn placements(state: &State, k: usize, targets: &[usize]) -> Vec<(usize, Option<usize>)> {
    let Ok(inst) = state.inst(k as i32) else {
        return Vec::new();
    };
    let template = inst.disk_template;
    if template.mirror_type() == crate::model::types::MirrorType::None {
        return Vec::new();
    }
    let mut out = Vec::new();
    for &g in targets {
        let keys: Vec<usize> = state
            .group_keys(g)
            .iter()
            .copied()
            .filter(|&n| !state.node_at(n).offline)
            .collect();
        for &p in &keys {
            if template == DiskTemplate::Drbd {
                for &s in &keys {
                    if s != p {
                        out.push((p, Some(s)));
                    }
                }
            } else {
                out.push((p, None));
            }
        }
    }
    out
}

/// Whether some subset of the problem instances, placed somewhere in the
/// healthy groups, makes group `g` healthy with every target still
/// healthy; `None` when the search grew beyond `budget` nodes.
fn repair_exists(
    groups: &[Group],
    state: &mut State,
    g: usize,
    healthy: &[usize],
    budget: &mut u64,
) -> Option<bool> {
    let problems: Vec<usize> = problem_instances(state, &health(state, g))
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    dfs(groups, state, g, healthy, &problems, 0, budget)
}

fn dfs(
    groups: &[Group],
    state: &mut State,
    g: usize,
    healthy: &[usize],
    problems: &[usize],
    i: usize,
    budget: &mut u64,
) -> Option<bool> {
    if *budget == 0 {
        return None;
    }
    *budget -= 1;
    if health(state, g).status() == Status::Healthy {
        return Some(true);
    }
    if i == problems.len() {
        return Some(false);
    }
    let k = problems[i];
    if dfs(groups, state, g, healthy, problems, i + 1, budget)? {
        return Some(true);
    }
    let template = state.inst(k as i32).ok()?.disk_template;
    let targets = peers_among(groups, g, template, healthy);
    for (p, s) in placements(state, k, &targets) {
        let cp = state.checkpoint();
        let ok = place(state, k, p, s).is_ok()
            && health(state, state.node_at(p).group).status() == Status::Healthy;
        if ok && dfs(groups, state, g, healthy, problems, i + 1, budget)? {
            state.rollback(cp);
            return Some(true);
        }
        state.rollback(cp);
    }
    Some(false)
}

#[test]
fn planner_finds_a_repair_whenever_one_exists() {
    let (mut groups_seen, mut exists, mut found, mut undecided) = (0, 0, 0, 0);
    let mut missed: Vec<String> = Vec::new();
    for seed in 1..=400u64 {
        let nodes = 4 + (seed as usize) % 5;
        let ngroups = 2 + (seed as usize) % 2;
        let case = generate(&CaseSpec::multi_group(seed, nodes, ngroups));
        let Ok(data) = crate::shell::datafile::from_request(
            case.request.as_bytes(),
            &crate::read::loader::LoadOptions::default(),
        ) else {
            continue;
        };
        let (cluster, _) = text::load("gen", data.as_bytes(), &MergeOptions::default()).unwrap();
        let node_groups = cluster.groups.clone();
        let opts = AllocOptions::default();
        let mut state = State::from_lists(
            cluster.nodes.clone(),
            cluster.instances.clone(),
            &node_groups,
        );
        let plan = repair(&node_groups, &mut state, &opts, None).unwrap();
        let mut fresh = State::from_lists(cluster.nodes, cluster.instances, &node_groups);
        for r in &plan.repairs {
            groups_seen += 1;
            let g = r.before.group;
            let mut budget = 300_000;
            let verdict = repair_exists(&node_groups, &mut fresh, g, &plan.healthy, &mut budget);
            let repaired = r.outcome == Outcome::Repaired;
            found += usize::from(repaired);
            match verdict {
                None => undecided += 1,
                Some(true) => {
                    exists += 1;
                    if !repaired {
                        missed.push(format!("seed {seed} group {}", node_groups[g].name));
                    }
                }
                Some(false) => {
                    assert!(!repaired, "seed {seed}: the planner repaired group {g}, which the search says cannot be");
                }
            }
        }
    }
    eprintln!(
        "{groups_seen} unhealthy groups: a repair exists for {exists}, the planner found {found}, missed {} ({missed:?}), undecided {undecided}",
        missed.len()
    );
    assert!(
        groups_seen >= 150 && exists >= 40,
        "too few cases: {groups_seen} groups, {exists} repairable"
    );
    // The greedy order misses few repairs (see the README's numbers).
    assert!(
        missed.len() * 10 <= exists,
        "missed {} of {exists}: {missed:?}",
        missed.len()
    );
}
