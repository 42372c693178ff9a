//! `hailstone-check`: each group's figures before and after the
//! simulated rebalancing in `--json` (nodes failing N+1, nodes whose
//! primaries share an exclusion tag, instances whose primary is offline,
//! instances whose secondary is offline, offline nodes) and their sums
//! over the cluster,
//! and the report page's bars before and after. The state after the
//! rebalancing is the input with each group's plan replayed, the plan
//! `hailstone-balance -G GROUP` prints for it; that it is the state the
//! check simulated is held by the group's final score, which must be the
//! score the check reports.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::support::figures::{self, NodeFigures};
use crate::support::plan::{self, Cluster};

use super::groups::{after_verdicts, loaded_verdicts};
use super::{aliases, report, run, Case, Findings};

/// The exclusion tag prefixes of the cluster tags (`htools:iextags:P`).
fn exclusion_prefixes(c: &Cluster) -> Vec<String> {
    c.cluster_tags
        .iter()
        .filter_map(|t| t.strip_prefix("htools:iextags:"))
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The `--json` figures of one group: nodes failing N+1, nodes whose
/// primaries share an exclusion tag, instances whose primary is offline,
/// instances whose secondary is offline (the group's: primary in it), and
/// the offline nodes (what hcheck prints as "Instances having a secondary
/// node offline").
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Stats {
    pub n1_fail: i64,
    pub conflict_tags: i64,
    pub offline_pri: i64,
    pub offline_sec: i64,
    pub offline_nodes: i64,
}

pub fn stats(
    c: &Cluster,
    figs: &BTreeMap<String, NodeFigures>,
    n1: &BTreeMap<String, bool>,
    group: &str,
) -> Stats {
    let prefixes = exclusion_prefixes(c);
    // Each instance's secondary node, as the state has it.
    let secondary: BTreeMap<&str, &NodeFigures> = figs
        .values()
        .flat_map(|n| n.secondaries.iter().map(move |i| (i.as_str(), n)))
        .collect();
    let mut s = Stats::default();
    for n in figs.values().filter(|n| n.group == group) {
        if n.offline {
            s.offline_pri += n.primaries.len() as i64;
            s.offline_nodes += 1;
        } else if n1[&n.name] {
            s.n1_fail += 1;
        }
        s.offline_sec += n
            .primaries
            .iter()
            .filter(|i| secondary.get(i.as_str()).is_some_and(|sec| sec.offline))
            .count() as i64;
        let mut tags: BTreeMap<&str, i64> = BTreeMap::new();
        for i in &n.primaries {
            for t in &c.insts[i].tags {
                if prefixes.iter().any(|p| t.starts_with(p.as_str())) {
                    *tags.entry(t.as_str()).or_default() += 1;
                }
            }
        }
        if tags.values().any(|&k| k > 1) {
            s.conflict_tags += 1;
        }
    }
    s
}

fn json_stats(v: &Value) -> Stats {
    let g = |k: &str| v[k].as_i64().unwrap_or(i64::MIN);
    Stats {
        n1_fail: g("n1_fail"),
        conflict_tags: g("conflict_tags"),
        offline_pri: g("offline_pri"),
        offline_sec: g("offline_sec"),
        offline_nodes: g("offline_nodes"),
    }
}

/// The state after `hailstone-balance -G GROUP` on every group, and each
/// group's final score.
fn rebalanced(case: &Case, input: &Cluster) -> (Cluster, BTreeMap<String, f64>, Vec<String>) {
    let mut state = input.clone();
    let mut scores = BTreeMap::new();
    let mut faults = Vec::new();
    let file = case.path.to_str().expect("a path");
    for g in input.groups.keys() {
        let out = run("hailstone-balance", &["-t", file, "-G", g, "--json"]);
        let Ok(doc) = serde_json::from_str::<Value>(&out.stdout) else {
            continue;
        };
        let commands: Vec<String> = doc["moves"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|m| m["commands"].as_array().cloned().unwrap_or_default())
            .filter_map(|c| c.as_str().map(str::to_owned))
            .collect();
        faults.extend(plan::replay(&mut state, &commands.join("\n")));
        let score = doc["score"]["final"]
            .as_f64()
            .or_else(|| doc["score"]["initial"].as_f64());
        if let Some(s) = score {
            scores.insert(g.clone(), s);
        }
    }
    (state, scores, faults)
}

fn one(f: &mut Findings, dir: &Path, case: &Case, k: usize) {
    let at = format!("hailstone-check -t {}", case.name);
    let file = case.path.to_str().expect("a path");
    let page = dir
        .join(format!("c{k}.html"))
        .to_str()
        .expect("a path")
        .to_owned();
    let out = run(
        "hailstone-check",
        &["-t", file, "--json", &format!("--report={page}")],
    );
    let Ok(doc) = serde_json::from_str::<Value>(&out.stdout) else {
        f.count("refused");
        return;
    };
    f.count("runs");
    let input = plan::parse(&case.text);
    let before = figures::initial(&input);
    let names = aliases(&input);
    let loaded = loaded_verdicts(&before);
    let simulated = doc["simulated"].as_bool() == Some(true);
    let (after_state, scores, faults) = if simulated {
        rebalanced(case, &input)
    } else {
        (input.clone(), BTreeMap::new(), Vec::new())
    };
    for v in faults {
        f.fault(&at, format!("a group's plan replayed: {v}"));
    }
    let after = figures::figures(&after_state, &input);
    let after_n1 = after_verdicts(&before, &after);
    let mut sums = [Stats::default(), Stats::default()];
    for g in doc["groups"].as_array().into_iter().flatten() {
        let name = g["name"].as_str().unwrap_or("?");
        f.same(
            &at,
            &format!("group {name}'s UUID"),
            g["uuid"].as_str(),
            input.groups.get(name).map(String::as_str),
        );
        for (k, (which, figs, n1)) in [
            ("initial", &before, &loaded),
            ("rebalanced", &after, &after_n1),
        ]
        .into_iter()
        .enumerate()
        {
            let want = stats(&input, figs, n1, name);
            let printed = json_stats(&g[which]);
            f.same(
                &at,
                &format!("group {name} {which} (n1_fail, conflict_tags, offline_pri, offline_sec, offline_nodes)"),
                printed,
                want,
            );
            let s = &mut sums[k];
            s.n1_fail += want.n1_fail;
            s.conflict_tags += want.conflict_tags;
            s.offline_pri += want.offline_pri;
            s.offline_sec += want.offline_sec;
            s.offline_nodes += want.offline_nodes;
        }
        if simulated {
            if let (Some(printed), Some(want)) =
                (g["rebalanced"]["score"].as_f64(), scores.get(name))
            {
                f.near(
                    &at,
                    &format!("group {name}'s rebalanced score (against hailstone-balance's plan)"),
                    printed,
                    *want,
                    1e-9 * want.abs().max(1.0),
                );
            }
        }
        f.count("groups");
    }
    for (k, which) in ["initial", "rebalanced"].into_iter().enumerate() {
        f.same(
            &at,
            &format!("cluster {which}"),
            json_stats(&doc["cluster"][which]),
            sums[k],
        );
    }
    report::compare_plan_page(
        f,
        &at,
        Path::new(&page),
        &before,
        &after,
        &names,
        &input.node_order,
    );
}

#[test]
fn check_figures_are_the_recomputed_ones() {
    super::over_corpus(
        "hailstone-check",
        &[
            ("cases", 18),
            ("runs", 18),
            ("groups", 30),
            ("report pages", 18),
        ],
        |f, dir, case, k| {
            one(f, dir, case, k);
        },
    );
}
