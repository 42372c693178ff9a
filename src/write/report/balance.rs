//! `hailstone-balance --report`: the group's nodes before and after the
//! plan, the score and its components before and after, and the moves.

use crate::model::node::Node;
use crate::model::TagTable;
use crate::search::balance::Placement;
use crate::search::squeeze::has_standby_tag;

use super::nodes::{before_after, Marks, Shown};
use super::{components, moves, score, Page};

/// What the balance page shows.
pub struct BalanceReport<'a> {
    pub program: &'a str,
    pub group: &'a str,
    pub tags: &'a TagTable,
    /// The group's nodes before and after, in the same order.
    pub before: &'a [&'a Node],
    pub after: &'a [&'a Node],
    /// The plan's steps, with each instance's name and each node's.
    pub steps: &'a [Placement],
    pub instance_name: &'a dyn Fn(usize) -> String,
    pub node_name: &'a dyn Fn(i32) -> Option<String>,
    /// Initial, final and optimal score.
    pub scores: (f64, f64, f64),
    /// The score's components (name, value, weight) before and after.
    pub components: (&'a [(&'a str, f64, f64)], &'a [(&'a str, f64, f64)]),
    /// Why there is no plan, when there is none ("well balanced").
    pub status: &'a str,
}

/// The marks of a node: offline, master, standby.
pub fn marks(n: &Node) -> Marks {
    Marks {
        offline: n.offline,
        master: n.info.master,
        standby: has_standby_tag(n),
    }
}

/// `nodes` with their marks.
pub fn shown<'a>(nodes: &[&'a Node]) -> Vec<Shown<'a>> {
    nodes
        .iter()
        .map(|n| Shown {
            node: n,
            marks: marks(n),
        })
        .collect()
}

/// The page.
pub fn page(r: &BalanceReport<'_>) -> String {
    let (initial, fin, optimal) = r.scores;
    let mut page = Page::new(r.program, &format!("Balancing node group {}", r.group));
    page.fact("status", "outcome", r.status);
    page.fact("nodes", "nodes", r.before.len().to_string());
    page.fact("moves", "moves", r.steps.len().to_string());
    page.fact("initial-score", "score before", score(initial));
    page.fact("final-score", "score after", score(fin));
    page.fact("optimal-score", "best score N+1 allows", score(optimal));
    let offline = r.before.iter().filter(|n| n.offline).count();
    if offline > 0 {
        page.fact("offline", "offline nodes", offline.to_string());
    }
    page.section(
        "Nodes",
        before_after(&shown(r.before), &shown(r.after), r.tags, "after"),
    );
    page.section(
        "Score components",
        components(r.components.0, r.components.1),
    );
    let moves = moves(r.steps, r.instance_name, r.node_name);
    page.section("Moves", moves);
    page.finish()
}
