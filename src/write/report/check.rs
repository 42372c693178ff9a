//! `hailstone-check --report`: the cluster's health in a few sentences
//! (whether it needs rebalancing, its unhealthy nodes by what is wrong,
//! what the simulated rebalancing changes), each node group's counts
//! before and after the simulated rebalancing (hcheck's figures), its
//! nodes, and the
//! unhealthy nodes with why: offline with instances, failing N+1 (with
//! the memory it has and the memory its worst failover needs), hosting
//! primaries that share an exclusion tag, or not evacuable (with the
//! instance that cannot leave, when known).

use std::fmt::Write;

use crate::model::node::Node;
use crate::model::TagTable;
use crate::write::check::{common_data, Capacity};

use super::summary::{self, Summary};
use super::svg::escape;
use super::{score, table, Page};

/// A node that cannot be evacuated: its name and, when known, the
/// instance that cannot leave it and how it was to leave.
pub type Unevacuable = crate::write::check::UnevacuableNode;

/// One phase of a group: its nodes, counts (hcheck's order), score and
/// the nodes that cannot be evacuated.
pub struct GroupPhase<'a> {
    pub nodes: Vec<&'a Node>,
    pub counts: Vec<usize>,
    pub score: f64,
    pub unevacuable: Vec<Unevacuable>,
}

/// One node group: as read, and after the simulated rebalancing.
pub struct GroupCheck<'a> {
    pub name: &'a str,
    pub initial: GroupPhase<'a>,
    pub rebalanced: Option<GroupPhase<'a>>,
}

/// What the check page shows.
pub struct CheckReport<'a> {
    pub program: &'a str,
    pub tags: &'a TagTable,
    /// Whether the capacity checks ran (the evacuation count).
    pub capacity: Capacity,
    pub need_rebalance: bool,
    pub simulated: bool,
    pub groups: Vec<GroupCheck<'a>>,
}

/// What is wrong with node `n`, one phrase each; empty when healthy.
pub fn problems(n: &Node, tags: &TagTable, unevacuable: &[Unevacuable]) -> Vec<String> {
    let mut out = Vec::new();
    if n.offline {
        if !n.p_list.is_empty() {
            out.push(format!(
                "offline, primary node of {} instances",
                n.p_list.len()
            ));
        }
        if !n.s_list.is_empty() {
            out.push(format!(
                "offline, secondary node of {} instances",
                n.s_list.len()
            ));
        }
    } else if n.fail_n1 {
        out.push(format!(
            "fails N+1: {} MiB memory unallocated, {} MiB needed to take over the instances of its worst peer",
            n.unallocated_mem(),
            n.r_mem
        ));
    }
    if n.conflicting_primaries() > 0 {
        let shared: Vec<String> = n
            .p_tags
            .iter()
            .filter(|(_, c)| *c > 1)
            .map(|(t, c)| format!("{} ({c})", tags.name(*t)))
            .collect();
        out.push(format!(
            "primaries share an exclusion tag: {}",
            shared.join(", ")
        ));
    }
    if let Some((_, why)) = unevacuable.iter().find(|(name, _)| *name == n.info.name) {
        out.push(match why {
            Some((inst, how)) => format!("cannot be evacuated: instance {inst} {how}"),
            None => "cannot be evacuated".to_owned(),
        });
    }
    out
}

/// A phase's unhealthy nodes as a table.
fn unhealthy(phase: &GroupPhase<'_>, tags: &TagTable, when: &str) -> String {
    let rows: Vec<Vec<String>> = phase
        .nodes
        .iter()
        .filter_map(|n| {
            let p = problems(n, tags, &phase.unevacuable);
            (!p.is_empty()).then(|| vec![n.info.name.clone(), p.join("; ")])
        })
        .collect();
    if rows.is_empty() {
        return format!("<p class=\"note\" data-when=\"{when}\">No unhealthy node.</p>");
    }
    table(
        &format!(r#"class="unhealthy" data-when="{when}""#),
        &[("node", false), ("why", false)],
        &rows,
    )
}

/// The counts of both phases as a table.
fn counts(g: &GroupCheck<'_>, capacity: Capacity) -> String {
    let keys = common_data(capacity);
    let rows: Vec<Vec<String>> = keys
        .iter()
        .enumerate()
        .map(|(k, (key, text))| {
            let mut row = vec![
                (*key).to_owned(),
                (*text).to_owned(),
                g.initial
                    .counts
                    .get(k)
                    .map_or(String::new(), usize::to_string),
            ];
            if let Some(r) = &g.rebalanced {
                row.push(r.counts.get(k).map_or(String::new(), usize::to_string));
            }
            row
        })
        .collect();
    let mut head = vec![("count", false), ("meaning", false), ("as read", true)];
    if g.rebalanced.is_some() {
        head.push(("after rebalancing", true));
    }
    table(
        &format!(r#"class="counts" data-group="{}""#, escape(g.name)),
        &head,
        &rows,
    )
}

/// The page.
pub fn page(r: &CheckReport<'_>) -> String {
    let mut page = Page::new(r.program, "Cluster check");
    page.summary(summarised(r));
    page.fact(
        "need-rebalance",
        "needs rebalancing",
        if r.need_rebalance { "yes" } else { "no" },
    );
    page.fact("groups", "node groups", r.groups.len().to_string());
    let nodes: usize = r.groups.iter().map(|g| g.initial.nodes.len()).sum();
    page.fact("nodes", "nodes", nodes.to_string());
    let unhealthy_nodes: usize = r
        .groups
        .iter()
        .map(|g| {
            g.initial
                .nodes
                .iter()
                .filter(|n| !problems(n, r.tags, &g.initial.unevacuable).is_empty())
                .count()
        })
        .sum();
    page.fact("unhealthy", "unhealthy nodes", unhealthy_nodes.to_string());
    for g in &r.groups {
        let mut html = counts(g, r.capacity);
        let _ = write!(
            html,
            "<p class=\"note\">Score as read <span data-key=\"score-initial\">{}</span>",
            score(g.initial.score)
        );
        if let Some(fin) = &g.rebalanced {
            let _ = write!(
                html,
                ", after the simulated rebalancing <span data-key=\"score-rebalanced\">{}</span>",
                score(fin.score)
            );
        }
        html.push_str(".</p><h3>Unhealthy nodes</h3>");
        html.push_str(&unhealthy(&g.initial, r.tags, "initial"));
        match &g.rebalanced {
            Some(fin) => {
                html.push_str("<h3>Unhealthy nodes after the simulated rebalancing</h3>");
                html.push_str(&unhealthy(fin, r.tags, "rebalanced"));
                html.push_str("<h3>Nodes</h3>");
                html.push_str(&super::nodes::before_after(
                    &g.initial.nodes,
                    &fin.nodes,
                    r.tags,
                    g.name,
                    "after rebalancing",
                ));
            }
            None => {
                html.push_str("<h3>Nodes</h3>");
                html.push_str(&super::nodes::current(&g.initial.nodes, r.tags, g.name));
            }
        }
        page.section(&format!("Node group {}", g.name), html);
    }
    if !r.simulated {
        page.fact("simulated", "rebalancing simulated", "no");
    }
    page.finish()
}

/// The summary: whether the cluster needs rebalancing, its unhealthy
/// nodes by what is wrong with them, and what the simulated rebalancing
/// changes in each group.
fn summarised(r: &CheckReport<'_>) -> Summary {
    let mut s = Summary::new();
    s.say(&[summary::phrase(
        "rebalance",
        &[(
            "value",
            (if r.need_rebalance { "yes" } else { "no" }).to_owned(),
        )],
        if r.need_rebalance {
            "The cluster needs rebalancing"
        } else {
            "The cluster does not need rebalancing"
        },
    )]);
    let (mut unhealthy, mut nodes) = (0, 0);
    let mut kinds = [0usize; 4];
    for g in &r.groups {
        for n in &g.initial.nodes {
            nodes += 1;
            let wrong = [
                !n.offline && n.fail_n1,
                n.offline && (!n.p_list.is_empty() || !n.s_list.is_empty()),
                n.conflicting_primaries() > 0,
                g.initial
                    .unevacuable
                    .iter()
                    .any(|(name, _)| *name == n.info.name),
            ];
            for (k, w) in kinds.iter_mut().zip(wrong) {
                *k += usize::from(w);
            }
            if wrong.iter().any(|&w| w) {
                unhealthy += 1;
            }
        }
    }
    let words = [
        "failing N+1",
        "offline with instances",
        "with primaries sharing an exclusion tag",
        "not evacuable",
    ];
    let why: Vec<String> = kinds
        .iter()
        .zip(words)
        .filter(|(k, _)| **k > 0)
        .map(|(k, w)| format!("{k} {w}"))
        .collect();
    let head = summary::phrase(
        "unhealthy",
        &[("value", unhealthy.to_string())],
        &format!(
            "{} of {nodes} unhealthy",
            summary::count(unhealthy, "node", "nodes")
        ),
    );
    if why.is_empty() {
        s.say(&[head]);
    } else {
        s.say(&[format!("{head}: {}", escape(&why.join(", ")))]);
    }
    for g in &r.groups {
        let Some(fin) = &g.rebalanced else { continue };
        let n1 = |p: &GroupPhase<'_>| p.counts.first().copied().unwrap_or(0);
        s.say(&[format!(
            "The simulated rebalancing of {}: {}, {}",
            escape(g.name),
            summary::count_change(
                &format!("n1-{}", g.name),
                "nodes failing N+1",
                n1(&g.initial),
                n1(fin)
            ),
            summary::score_change(
                &format!("score-{}", g.name),
                "score",
                g.initial.score,
                fin.score
            ),
        )]);
    }
    s
}
