//! `hailstone-groups --report`: what the operation found or does in a
//! few sentences (each group's health; the moves, and what changed in
//! each group: health, instances, nodes failing N+1, score), the report
//! as printed (the storage partitions, each group's health and why, the
//! repairs, the compression trials or the group scores), each node
//! group's nodes, instances and score before and after the plan, the
//! plan's moves and what they cost (repair, compress --evacuate,
//! balance: the data they copy, their estimated time), and each group's
//! nodes before and after (as they are, without a plan).

use crate::model::node::Node;
use crate::model::TagTable;

use super::summary::{self, Summary};
use super::svg::escape;
use super::{score, table, Page};

/// A group's health as the operation's report judges it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Health {
    /// "healthy", "weakly unhealthy" or "unhealthy".
    pub status: &'static str,
    pub n1_failing: usize,
    /// Offline nodes that hold instances.
    pub offline_hosts: usize,
}

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
    /// The group's health before and, with a plan, after.
    pub health: (Health, Option<Health>),
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
    /// For the operations that plan (repair, compress --evacuate,
    /// balance): the plan's cost, each move's instance and cost.
    pub cost: Option<(
        &'a crate::model::cost::PlanCost,
        &'a [(String, crate::model::cost::MoveCost)],
    )>,
}

/// Why a groups plan has no knee, on its cost section.
pub const NO_KNEE: &str = "No knee: a repair or an evacuation is carried out whole (every move is needed for its group's health or to empty the group), and hailstone-groups balance has no -l to stop the balancing early.";

/// The page.
pub fn page(r: &GroupsReport<'_>) -> String {
    let mut page = Page::new(r.program, &format!("Node groups: {}", r.operation));
    page.summary(summarised(r));
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
    if let Some((cost, jobs)) = r.cost {
        super::cost::facts(&mut page, cost);
        page.section("Cost", super::cost::jobs_section(cost, NO_KNEE, jobs));
    }
    for g in &r.groups {
        let html = match &g.after {
            Some(after) => {
                super::nodes::before_after(&g.before, after, r.tags, g.name, "after the plan")
            }
            None => super::nodes::current(&g.before, r.tags, g.name),
        };
        page.section(&format!("Node group {}", g.name), html);
    }
    page.finish()
}

/// Why a group is not healthy: "2 nodes failing N+1".
fn why(h: &Health) -> String {
    let mut parts = Vec::new();
    if h.offline_hosts > 0 {
        parts.push(summary::count(
            h.offline_hosts,
            "offline node with instances",
            "offline nodes with instances",
        ));
    }
    if h.n1_failing > 0 {
        parts.push(summary::count(
            h.n1_failing,
            "node failing N+1",
            "nodes failing N+1",
        ));
    }
    parts.join(", ")
}

/// The summary: the groups' health as read; with a plan, its moves and
/// what changed in each group.
fn summarised(r: &GroupsReport<'_>) -> Summary {
    let mut s = Summary::new();
    let healthy = r
        .groups
        .iter()
        .filter(|g| g.health.0.status == "healthy")
        .count();
    let mut health = vec![summary::phrase(
        "healthy-groups",
        &[
            ("value", healthy.to_string()),
            ("of", r.groups.len().to_string()),
        ],
        &format!(
            "{healthy} of {} healthy",
            summary::count(r.groups.len(), "node group", "node groups")
        ),
    )];
    for g in r.groups.iter().filter(|g| g.health.0.status != "healthy") {
        health.push(format!(
            "{} {}: {}",
            escape(g.name),
            g.health.0.status,
            why(&g.health.0)
        ));
    }
    s.say(&health);
    let planned = r.groups.iter().any(|g| g.after.is_some());
    let moves = summary::phrase(
        "moves",
        &[("value", r.moves.len().to_string())],
        &if r.moves.is_empty() {
            "No move".to_owned()
        } else {
            summary::count(r.moves.len(), "move", "moves")
        },
    );
    if !planned {
        let why = match r.operation {
            "check" => "check only judges",
            "compress" => "without --evacuate, compress only tries",
            _ => "nothing to do",
        };
        s.say(&[format!("{moves} ({why})")]);
        return s;
    }
    s.say(&[moves]);
    for g in &r.groups {
        let (h0, Some(h1)) = g.health else { continue };
        let mut changes = Vec::new();
        if h0.status != h1.status {
            changes.push(format!("{} → {}", h0.status, h1.status));
        }
        if g.instances.0 != g.instances.1 {
            changes.push(format!(
                "instances {}",
                summary::change(&g.instances.0.to_string(), &g.instances.1.to_string())
            ));
        }
        if h0.n1_failing != h1.n1_failing {
            changes.push(summary::count_change(
                &format!("n1-{}", g.name),
                "nodes failing N+1",
                h0.n1_failing,
                h1.n1_failing,
            ));
        }
        if score(g.scores.0) != score(g.scores.1) {
            changes.push(summary::score_change(
                &format!("score-{}", g.name),
                "score",
                g.scores.0,
                g.scores.1,
            ));
        }
        if !changes.is_empty() {
            s.say(&[format!("{}: {}", escape(g.name), changes.join(", "))]);
        }
    }
    s
}
