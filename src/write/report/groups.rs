//! `hailstone-groups --report`: the operation's report as printed (the
//! storage partitions, each group's health and why, the repairs, the
//! compression trials or the group scores), each node group's nodes,
//! instances and score before and after the plan, the plan's moves, and
//! each group's nodes before and after (as they are, without a plan).

use crate::model::node::Node;
use crate::model::TagTable;

use super::svg::escape;
use super::{score, table, Page};

/// One node group, before and after the plan.
pub struct GroupView<'a> {
    pub name: &'a str,
    pub before: Vec<&'a Node>,
    /// The nodes after the plan, when there is one.
    pub after: Option<Vec<&'a Node>>,
    /// Primary instances before and after.
    pub instances: (usize, usize),
    /// The group's score before and after.
    pub scores: (f64, f64),
}

/// One move of the plan: instance, nodes before and after, its
/// `gnt-instance` subcommands.
pub struct Move {
    pub instance: String,
    pub from: String,
    pub to: String,
    pub commands: Vec<String>,
}

/// What the groups page shows.
pub struct GroupsReport<'a> {
    pub program: &'a str,
    /// `check`, `repair`, `compress` or `balance`.
    pub operation: &'a str,
    pub tags: &'a TagTable,
    /// The report as printed on stdout, up to the commands.
    pub said: &'a str,
    /// For `check`: whether every group is healthy.
    pub healthy: Option<bool>,
    pub groups: Vec<GroupView<'a>>,
    pub moves: Vec<Move>,
}

/// The page.
pub fn page(r: &GroupsReport<'_>) -> String {
    let mut page = Page::new(r.program, &format!("Node groups: {}", r.operation));
    page.fact("operation", "operation", r.operation);
    page.fact(
        "groups",
        "node groups with nodes",
        r.groups.len().to_string(),
    );
    let nodes: usize = r.groups.iter().map(|g| g.before.len()).sum();
    page.fact("nodes", "nodes", nodes.to_string());
    if let Some(healthy) = r.healthy {
        page.fact(
            "healthy",
            "every group healthy",
            if healthy { "yes" } else { "no" },
        );
    }
    page.fact("moves", "moves", r.moves.len().to_string());
    let planned = r.groups.iter().any(|g| g.after.is_some());
    let rows: Vec<Vec<String>> = r
        .groups
        .iter()
        .map(|g| {
            let mut row = vec![
                g.name.to_owned(),
                g.before.len().to_string(),
                g.instances.0.to_string(),
                score(g.scores.0),
            ];
            if planned {
                row.extend([g.instances.1.to_string(), score(g.scores.1)]);
            }
            row
        })
        .collect();
    let mut head = vec![
        ("group", false),
        ("nodes", true),
        ("instances", true),
        ("score", true),
    ];
    if planned {
        head.extend([("instances after", true), ("score after", true)]);
    }
    page.section("Node groups", table(r#"class="groups""#, &head, &rows));
    page.section(
        "The report",
        format!("<pre class=\"said\">{}</pre>", escape(r.said)),
    );
    if planned {
        let rows: Vec<Vec<String>> = r
            .moves
            .iter()
            .enumerate()
            .map(|(k, m)| {
                vec![
                    (k + 1).to_string(),
                    m.instance.clone(),
                    m.from.clone(),
                    m.to.clone(),
                    m.commands
                        .iter()
                        .map(|c| crate::write::document::command(c))
                        .collect::<Vec<_>>()
                        .join("; "),
                ]
            })
            .collect();
        page.section(
            "Moves",
            table(
                r#"class="moves""#,
                &[
                    ("step", true),
                    ("instance", false),
                    ("from (primary:secondary)", false),
                    ("to", false),
                    ("commands", false),
                ],
                &rows,
            ),
        );
    }
    for g in &r.groups {
        let before = super::balance::shown(&g.before);
        let html = match &g.after {
            Some(after) => super::nodes::before_after(
                &before,
                &super::balance::shown(after),
                r.tags,
                "after the plan",
            ),
            None => super::nodes::current(&before, r.tags),
        };
        page.section(&format!("Node group {}", g.name), html);
    }
    page.finish()
}
