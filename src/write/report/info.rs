//! `hailstone-info --report`: the cluster as it is, in a few sentences
//! (its size, its nodes failing N+1 and offline, its score), its size,
//! each node
//! group's row of hinfo's table (nodes, instances, N+1 failures, score)
//! and its nodes' memory, disk, vCPUs and spindles, and the cluster
//! score's components.

use crate::model::node::Node;
use crate::model::TagTable;
use crate::write::info::GroupRow;

use super::summary::{self, Summary};
use super::svg::escape;
use super::{components, score, table, Components, Page};

/// What the info page shows.
pub struct InfoReport<'a> {
    pub program: &'a str,
    pub tags: &'a TagTable,
    pub instances: usize,
    /// Each group with nodes: hinfo's row and its nodes.
    pub groups: Vec<(GroupRow<'a>, Vec<&'a Node>)>,
    /// The cluster's score and its components.
    pub score: f64,
    pub components: Components<'a>,
}

/// The page.
pub fn page(r: &InfoReport<'_>) -> String {
    let mut page = Page::new(r.program, "Cluster overview");
    let nodes: usize = r.groups.iter().map(|(g, _)| g.nodes).sum();
    page.summary(summarised(r, nodes));
    page.fact("nodes", "nodes", nodes.to_string());
    page.fact("instances", "instances", r.instances.to_string());
    page.fact(
        "groups",
        "node groups with nodes",
        r.groups.len().to_string(),
    );
    let bad: usize = r.groups.iter().map(|(g, _)| g.bad_nodes).sum();
    page.fact("n1-failing", "nodes failing N+1", bad.to_string());
    page.fact("score", "cluster score", score(r.score));
    let rows: Vec<Vec<String>> = r
        .groups
        .iter()
        .map(|(g, _)| {
            vec![
                g.name.to_owned(),
                g.nodes.to_string(),
                g.instances.to_string(),
                g.bad_nodes.to_string(),
                g.bad_instances.to_string(),
                score(g.score),
            ]
        })
        .collect();
    page.section(
        "Node groups",
        table(
            r#"class="groups""#,
            &[
                ("group", false),
                ("nodes", true),
                ("instances", true),
                ("nodes failing N+1", true),
                ("instances on them", true),
                ("score", true),
            ],
            &rows,
        ),
    );
    page.section("Score components", components(r.components, None));
    for (g, nodes) in &r.groups {
        page.section(
            &format!("Node group {}", g.name),
            super::nodes::current(nodes, r.tags, g.name),
        );
    }
    page.finish()
}

/// The summary: the cluster's size, its nodes failing N+1 (by group),
/// its offline nodes and its score.
fn summarised(r: &InfoReport<'_>, nodes: usize) -> Summary {
    let mut s = Summary::new();
    s.say(&[format!(
        "{} and {} in {}",
        summary::phrase(
            "nodes",
            &[("value", nodes.to_string())],
            &summary::count(nodes, "node", "nodes")
        ),
        summary::phrase(
            "instances",
            &[("value", r.instances.to_string())],
            &summary::count(r.instances, "instance", "instances")
        ),
        summary::count(r.groups.len(), "node group", "node groups"),
    )]);
    let bad: usize = r.groups.iter().map(|(g, _)| g.bad_nodes).sum();
    let mut health = summary::phrase(
        "n1",
        &[("value", bad.to_string())],
        &format!("{} failing N+1", summary::count(bad, "node", "nodes")),
    );
    let where_: Vec<String> = r
        .groups
        .iter()
        .filter(|(g, _)| g.bad_nodes > 0)
        .map(|(g, _)| {
            format!(
                "{} in {} ({} on them)",
                g.bad_nodes,
                g.name,
                summary::count(g.bad_instances, "instance", "instances")
            )
        })
        .collect();
    if !where_.is_empty() {
        health.push_str(&format!(": {}", escape(&where_.join(", "))));
    }
    let offline = r
        .groups
        .iter()
        .flat_map(|(_, n)| n.iter())
        .filter(|n| n.offline)
        .count();
    s.say(&[
        health,
        summary::count(offline, "node offline", "nodes offline"),
        summary::phrase(
            "score",
            &[("value", score(r.score))],
            &format!("cluster score {}", summary::short(r.score)),
        ),
    ]);
    s
}
