//! hinfo's texts (`Program/Hinfo.hs`): the counts of the loaded cluster,
//! the instances split between groups, the table of node groups with their
//! N+1 state and score, the instance map and the cluster's coefficients;
//! and the same figures as `hailstone-info --json`'s document.

use crate::haskell::show::printf_fixed;
use crate::model::types::GanetiVersion;
use crate::write::balance::stats_table;
use crate::write::document as doc;
use crate::write::json::Json;
use crate::write::table::print_table;

/// `plural`: the singular for one, the plural otherwise.
fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// `commonInfo`: the empty-cluster note (`-v -v`), the counts, and the
/// common suffix note (`-v -v -v`, `suffix` from [`crate::write::notes`]).
pub fn common(nodes: usize, instances: usize, groups: usize, verbose: i64, suffix: &str) -> String {
    let mut s = String::new();
    if instances == 0 && verbose > 1 {
        s.push_str("Cluster is empty.\n");
    }
    s.push_str(&format!(
        "Loaded {nodes} {}, {instances} {}, {groups} {}\n",
        plural(nodes, "node", "nodes"),
        plural(instances, "instance", "instances"),
        plural(groups, "node group", "node groups"),
    ));
    if verbose > 2 {
        s.push_str(suffix);
    }
    s
}

/// `splitInstancesInfo`: the heading on stdout, the instances' names on
/// stderr (`(stdout, stderr)`).
pub fn split_instances(names: &[&str], verbose: i64) -> (String, String) {
    if names.is_empty() {
        let note = if verbose > 1 {
            "No split instances found\n"
        } else {
            ""
        };
        return (note.to_owned(), String::new());
    }
    let listed = names.iter().map(|n| format!("  {n}\n")).collect();
    (
        "Found instances belonging to multiple node groups:\n".to_owned(),
        listed,
    )
}

/// One node group's row (`GroupInfo`).
#[derive(Debug, Clone, PartialEq)]
pub struct GroupRow<'a> {
    pub name: &'a str,
    pub nodes: usize,
    pub instances: usize,
    pub bad_nodes: usize,
    pub bad_instances: usize,
    pub score: f64,
}

/// `showGroupInfo`: the table (`-v -v`) and whether the cluster is N+1
/// happy (every group without a node failing N+1).
pub fn groups(rows: &[GroupRow<'_>], verbose: i64) -> String {
    let mut s = String::new();
    if verbose > 1 {
        let header: Vec<String> = [
            "Group",
            "Nodes",
            "Instances",
            "Bad_Nodes",
            "Bad_Instances",
            "N+1",
            "Score",
        ]
        .iter()
        .map(|h| (*h).to_owned())
        .collect();
        let cells: Vec<Vec<String>> = rows
            .iter()
            .map(|r| {
                vec![
                    r.name.to_owned(),
                    r.nodes.to_string(),
                    r.instances.to_string(),
                    r.bad_nodes.to_string(),
                    r.bad_instances.to_string(),
                    if r.bad_nodes == 0 { "True" } else { "False" }.to_owned(),
                    printf_fixed(r.score, 8),
                ]
            })
            .collect();
        s.push_str("Node group information:\n");
        s.push_str(&print_table(
            "  ",
            &header,
            &cells,
            &[false, true, true, true, true, false, true],
        ));
    }
    let happy = rows.iter().all(|r| r.bad_nodes == 0);
    s.push_str(if happy {
        "Cluster is N+1 happy\n"
    } else {
        "Cluster is N+1 unhappy\n"
    });
    s
}

/// What `--json` carries of a summary: the figures the text prints.
pub struct Summary<'a> {
    pub tags: &'a [String],
    pub nodes: usize,
    pub instances: usize,
    pub groups: usize,
    /// The instances whose nodes are in two groups.
    pub split: &'a [&'a str],
    /// The groups that have nodes, with their UUIDs.
    pub rows: &'a [(GroupRow<'a>, &'a str)],
    /// The cluster's score components (name, value, weight).
    pub components: &'a [(&'a str, f64, f64)],
    pub score: f64,
}

/// The `--json` document of a summary (`docs/json.md`).
pub fn document(program: &str, ganeti: GanetiVersion, m: &Summary<'_>) -> Json {
    let groups = m
        .rows
        .iter()
        .map(|(r, uuid)| {
            Json::Obj(vec![
                ("name", Json::Str(r.name.to_owned())),
                ("uuid", Json::Str((*uuid).to_owned())),
                ("nodes", Json::Int(doc::count(r.nodes))),
                ("instances", Json::Int(doc::count(r.instances))),
                ("nodes_failing_n1", Json::Int(doc::count(r.bad_nodes))),
                (
                    "instances_on_nodes_failing_n1",
                    Json::Int(doc::count(r.bad_instances)),
                ),
                ("n1_happy", Json::Bool(r.bad_nodes == 0)),
                ("score", Json::Num(r.score)),
            ])
        })
        .collect();
    doc::document(
        program,
        ganeti,
        vec![
            ("cluster_tags", doc::names(m.tags)),
            ("nodes", Json::Int(doc::count(m.nodes))),
            ("instances", Json::Int(doc::count(m.instances))),
            ("node_groups", Json::Int(doc::count(m.groups))),
            ("split_instances", doc::names(m.split)),
            ("groups", Json::Arr(groups)),
            (
                "n1_happy",
                Json::Bool(m.rows.iter().all(|(r, _)| r.bad_nodes == 0)),
            ),
            ("score", Json::Num(m.score)),
            ("components", doc::components(m.components)),
        ],
    )
}

/// The coefficients table and the score of the whole cluster.
pub fn coefficients(components: &[(&str, f64, f64)], score: f64) -> String {
    format!(
        "Cluster coefficients:\n{}Cluster score: {}\n",
        stats_table(components),
        printf_fixed(score, 8)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_plurals() {
        assert_eq!(
            common(1, 0, 1, 2, ""),
            "Cluster is empty.\nLoaded 1 node, 0 instances, 1 node group\n"
        );
        assert_eq!(
            common(3, 1, 2, 3, "Note: x\n"),
            "Loaded 3 nodes, 1 instance, 2 node groups\nNote: x\n"
        );
    }

    #[test]
    fn group_table() {
        let rows = [
            GroupRow {
                name: "default",
                nodes: 4,
                instances: 12,
                bad_nodes: 1,
                bad_instances: 3,
                score: 1.5,
            },
            GroupRow {
                name: "g2",
                nodes: 10,
                instances: 0,
                bad_nodes: 0,
                bad_instances: 0,
                score: 0.0,
            },
        ];
        assert_eq!(
            groups(&rows, 2),
            "Node group information:\n   Group   Nodes Instances Bad_Nodes Bad_Instances N+1        Score\n   \
             default     4        12         1             3 False 1.50000000\n   \
             g2         10         0         0             0 True  0.00000000\n\
             Cluster is N+1 unhappy\n"
        );
        assert_eq!(groups(&rows[1..], 1), "Cluster is N+1 happy\n");
    }

    #[test]
    fn split_instances_go_to_both_streams() {
        assert_eq!(
            split_instances(&["a", "b"], 1),
            (
                "Found instances belonging to multiple node groups:\n".to_owned(),
                "  a\n  b\n".to_owned()
            )
        );
        assert_eq!(
            split_instances(&[], 2).0,
            "No split instances found\n".to_owned()
        );
    }
}
