//! hcheck's texts (`Program/Hcheck.hs`): the verdict line, each group's
//! and the cluster's statistics before and after the simulated
//! rebalancing, for people (`printStats` at verbosity 1 and more) or as
//! `HCHECK_*` shell keys (`--machine-readable`), and with
//! `--true-counts` the nodes that cannot be evacuated and why; the
//! `--json` figures and document ([`document`](fn@document)).

use std::fmt;

use crate::haskell::show::printf_fixed;
use crate::search::globaln1::Departure;
use crate::write::document;
use crate::write::json::Json;
use crate::write::space::ensure_quoted;
use crate::write::Audience;

/// Before or after the simulated rebalancing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Initial,
    Rebalanced,
}

impl Phase {
    fn prefix(self) -> &'static str {
        match self {
            Phase::Initial => "INIT",
            Phase::Rebalanced => "FINAL",
        }
    }

    fn description(self) -> &'static str {
        match self {
            Phase::Initial => "initially",
            Phase::Rebalanced => "after rebalancing",
        }
    }
}

/// Whether the capacity checks ran, so that hcheck counts the nodes that
/// cannot be evacuated (`GN1_FAIL`); not with `--no-capacity-checks`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capacity {
    Checked,
    Unchecked,
}

/// `commonData`: the keys and descriptions of the counts, `GN1_FAIL` only
/// with the capacity checks.
pub fn common_data(capacity: Capacity) -> Vec<(&'static str, &'static str)> {
    let mut d = vec![
        ("N1_FAIL", "Nodes not N+1 happy"),
        ("CONFLICT_TAGS", "Nodes with conflicting instances"),
        ("OFFLINE_PRI", "Instances having the primary node offline"),
        ("OFFLINE_SEC", "Instances having a secondary node offline"),
    ];
    if capacity == Capacity::Checked {
        d.push(("GN1_FAIL", "Nodes not directly evacuateable"));
    }
    d
}

/// `printKeys "HCHECK"`: one `HCHECK_KEY=value` line per pair.
pub fn keys(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("HCHECK_{k}={}\n", ensure_quoted(v)))
        .collect()
}

/// `printGroupsMappings`: `HCHECK_GROUP_UUID_<index>` of every group.
pub fn group_mappings(groups: &[(usize, &str)]) -> String {
    let pairs: Vec<(String, String)> = groups
        .iter()
        .map(|(idx, uuid)| (format!("GROUP_UUID_{idx}"), (*uuid).to_owned()))
        .collect();
    keys(&pairs)
}

/// Whether the rebalancing is simulated: by default when the cluster
/// needs it, never with `--no-simulation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Simulation {
    Run,
    Skipped,
}

/// The opening verdict (`-v` level 1, not machine-readable).
pub fn verdict(simulation: Simulation, need_rebalance: bool) -> &'static str {
    if simulation == Simulation::Skipped {
        "Running in no-simulation mode.\n"
    } else if need_rebalance {
        "Cluster needs rebalancing.\n"
    } else {
        "No need to rebalance cluster, no problems found.\n"
    }
}

/// A node that cannot be evacuated: its name, and the instance that
/// cannot leave it with how it was to leave (`--true-counts`).
pub type UnevacuableNode = (String, Option<(String, Departure)>);

/// How the instance that stops a node's evacuation was to leave, in the
/// words that follow its name ("instance X could not ...").
impl fmt::Display for Departure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Departure::Failover => "could not fail over to its secondary",
            Departure::Move => "could not move to another node of its group",
            Departure::Recreate => "could not be re-created on another node of its group",
        })
    }
}

/// How the statistics are printed.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub audience: Audience,
    pub verbose: i64,
    pub capacity: Capacity,
}

/// `printStats`: the values of one level in one phase; `level` is the
/// group's index (machine-readable) or name, or `None` for the cluster.
/// Values are paired with the keys as far as both go (`zip`).
fn stats(
    style: Style,
    level: Option<&str>,
    phase: Phase,
    data: &[(&str, &str)],
    values: &[String],
) -> String {
    if style.audience == Audience::Scripts {
        let pairs: Vec<(String, String)> = data
            .iter()
            .zip(values)
            .map(|((key, _), v)| {
                let k = match level {
                    Some(g) => format!("{}_GROUP_{g}_{key}", phase.prefix()),
                    None => format!("{}_CLUSTER_{key}", phase.prefix()),
                };
                (k, v.clone())
            })
            .collect();
        return keys(&pairs);
    }
    if style.verbose < 1 {
        return String::new();
    }
    let mut s = String::from("\n");
    match level {
        Some(name) => s.push_str(&format!(
            "Statistics for group {name} {}\n",
            phase.description()
        )),
        None => s.push_str(&format!("Cluster statistics {}\n", phase.description())),
    }
    for ((_, descr), v) in data.iter().zip(values) {
        s.push_str(&format!("    {descr}: {v}\n"));
    }
    s
}

/// `printGroupStats`: a group's counts and score.
pub fn group_stats(
    style: Style,
    level: &str,
    phase: Phase,
    counts: &[usize],
    score: f64,
) -> String {
    let mut data = common_data(style.capacity);
    data.push(("SCORE", "Group score"));
    let mut values: Vec<String> = counts.iter().map(ToString::to_string).collect();
    values.push(printf_fixed(score, 8));
    stats(style, Some(level), phase, &data, &values)
}

/// `printClusterStats`: the summed counts and whether the cluster needs
/// rebalancing.
pub fn cluster_stats(style: Style, phase: Phase, counts: &[usize], need_rebalance: bool) -> String {
    let mut data = common_data(style.capacity);
    data.push(("NEED_REBALANCE", "Cluster is not healthy"));
    let mut values: Vec<String> = counts.iter().map(ToString::to_string).collect();
    values.push(match (style.audience, need_rebalance) {
        (Audience::Scripts, true) => "1".to_owned(),
        (Audience::Scripts, false) => "0".to_owned(),
        (Audience::People, b) => if b { "True" } else { "False" }.to_owned(),
    });
    stats(style, None, phase, &data, &values)
}

/// `--true-counts`: the nodes of a group that cannot be evacuated, each
/// with the instance that cannot leave it and how it was to leave; as
/// `HCHECK_<phase>_GROUP_<index>_GN1_NODES` (node names, space-separated)
/// when machine-readable.
pub fn unevacuable(style: Style, level: &str, phase: Phase, nodes: &[UnevacuableNode]) -> String {
    if style.audience == Audience::Scripts {
        let names: Vec<&str> = nodes.iter().map(|(n, _)| n.as_str()).collect();
        return keys(&[(
            format!("{}_GROUP_{level}_GN1_NODES", phase.prefix()),
            names.join(" "),
        )]);
    }
    if style.verbose < 1 {
        return String::new();
    }
    nodes
        .iter()
        .map(|(node, why)| match why {
            Some((inst, how)) => {
                format!("    Node {node} cannot be evacuated: instance {inst} {how}\n")
            }
            None => format!("    Node {node} cannot be evacuated\n"),
        })
        .collect()
}

/// What ends a phase's figures: a group's score, or the cluster's
/// verdict.
#[derive(Debug, Clone, Copy)]
pub enum Last {
    Score(f64),
    NeedRebalance(bool),
}

/// The `--json` figures of a group or the cluster in one phase: hcheck's
/// counts (`counts`, in [`common_data`]'s order, as hcheck counts them)
/// under its keys in lower case (`n1_fail`, ...), except that
/// `offline_sec` is `offline_sec`, the instances whose secondary node is
/// offline, and hcheck's figure under that key, the number of offline
/// nodes, follows as `offline_nodes`; then the group's score or the
/// cluster's verdict, and with `--true-counts` the nodes that cannot be
/// evacuated (`unevacuable`).
pub fn figures_document(
    capacity: Capacity,
    counts: &[usize],
    offline_sec: usize,
    last: Last,
    unevacuable: Option<&[UnevacuableNode]>,
) -> Json {
    let mut fields: Vec<(String, Json)> = Vec::new();
    for ((key, _), n) in common_data(capacity).iter().zip(counts) {
        let count = |n: usize| Json::Int(document::count(n));
        if *key == "OFFLINE_SEC" {
            fields.push(("offline_sec".to_owned(), count(offline_sec)));
            fields.push(("offline_nodes".to_owned(), count(*n)));
        } else {
            fields.push((key.to_lowercase(), count(*n)));
        }
    }
    fields.push(match last {
        Last::Score(x) => ("score".to_owned(), Json::Num(x)),
        Last::NeedRebalance(b) => ("need_rebalance".to_owned(), Json::Bool(b)),
    });
    if let Some(nodes) = unevacuable {
        let nodes = nodes
            .iter()
            .map(|(node, why)| {
                let (instance, reason) = match why {
                    Some((i, how)) => (Json::Str(i.clone()), Json::Str(how.to_string())),
                    None => (Json::Null, Json::Null),
                };
                Json::Obj(vec![
                    ("node", Json::Str(node.clone())),
                    ("instance", instance),
                    ("reason", reason),
                ])
            })
            .collect();
        fields.push(("unevacuable".to_owned(), Json::Arr(nodes)));
    }
    Json::Map(fields)
}

/// `printFinal "HCHECK"`: `HCHECK_OK=1` when machine-readable.
pub fn final_ok(audience: Audience) -> String {
    if audience == Audience::Scripts {
        keys(&[("OK".to_owned(), "1".to_owned())])
    } else {
        String::new()
    }
}

/// One group's figures in both phases, for the `--json` document.
pub struct GroupPhases<'a> {
    pub name: &'a str,
    pub uuid: &'a str,
    pub initial: Json,
    pub rebalanced: Json,
}

/// The `--json` document of `program`'s run (`docs/json.md`): the
/// verdict, whether the rebalancing was simulated, each group's figures
/// and the cluster's, as read and after the rebalancing.
pub fn document(
    program: &str,
    ganeti: crate::model::types::GanetiVersion,
    need_rebalance: bool,
    simulation: Simulation,
    groups: Vec<GroupPhases<'_>>,
    cluster: (Json, Json),
) -> Json {
    let groups = groups
        .into_iter()
        .map(|g| {
            Json::Obj(vec![
                ("name", Json::Str(g.name.to_owned())),
                ("uuid", Json::Str(g.uuid.to_owned())),
                ("initial", g.initial),
                ("rebalanced", g.rebalanced),
            ])
        })
        .collect();
    document::document(
        program,
        ganeti,
        vec![
            ("need_rebalance", Json::Bool(need_rebalance)),
            ("simulated", Json::Bool(simulation == Simulation::Run)),
            ("groups", Json::Arr(groups)),
            (
                "cluster",
                Json::Obj(vec![("initial", cluster.0), ("rebalanced", cluster.1)]),
            ),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn style(audience: Audience) -> Style {
        Style {
            audience,
            verbose: 1,
            capacity: Capacity::Checked,
        }
    }

    #[test]
    fn group_and_cluster_texts() {
        let g = group_stats(
            style(Audience::People),
            "default",
            Phase::Initial,
            &[1, 0, 2, 1, 3],
            0.5,
        );
        assert_eq!(
            g,
            "\nStatistics for group default initially\n    Nodes not N+1 happy: 1\n    \
             Nodes with conflicting instances: 0\n    Instances having the primary node offline: 2\n    \
             Instances having a secondary node offline: 1\n    Nodes not directly evacuateable: 3\n    \
             Group score: 0.50000000\n"
        );
        let c = cluster_stats(
            style(Audience::Scripts),
            Phase::Rebalanced,
            &[0, 0, 0, 0, 0],
            false,
        );
        assert_eq!(
            c,
            "HCHECK_FINAL_CLUSTER_N1_FAIL=0\nHCHECK_FINAL_CLUSTER_CONFLICT_TAGS=0\n\
             HCHECK_FINAL_CLUSTER_OFFLINE_PRI=0\nHCHECK_FINAL_CLUSTER_OFFLINE_SEC=0\n\
             HCHECK_FINAL_CLUSTER_GN1_FAIL=0\nHCHECK_FINAL_CLUSTER_NEED_REBALANCE=0\n"
        );
        assert_eq!(group_mappings(&[(0, "a-b")]), "HCHECK_GROUP_UUID_0='a-b'\n");
    }

    /// hcheck pairs keys and values with `zip`: a cluster of no group has
    /// no counts, so the verdict lands on the first key.
    #[test]
    fn no_counts_pair_the_verdict_with_the_first_key() {
        let c = cluster_stats(style(Audience::People), Phase::Initial, &[], false);
        assert_eq!(
            c,
            "\nCluster statistics initially\n    Nodes not N+1 happy: False\n"
        );
    }

    #[test]
    fn quiet_prints_nothing_but_keys() {
        let quiet = Style {
            audience: Audience::People,
            verbose: 0,
            capacity: Capacity::Unchecked,
        };
        assert_eq!(
            group_stats(quiet, "g", Phase::Initial, &[0, 0, 0, 0], 0.0),
            ""
        );
        assert_eq!(final_ok(Audience::People), "");
        assert_eq!(final_ok(Audience::Scripts), "HCHECK_OK=1\n");
    }
}
