//! `hailstone-balance --report`: the group's nodes before and after the
//! plan, the score and its components before and after, and the moves.

use crate::model::node::Node;
use crate::search::squeeze::has_standby_tag;

use super::nodes::{Marks, Shown};
use super::{score, Page, Plan};

/// What the balance page shows.
pub struct BalanceReport<'a> {
    pub program: &'a str,
    pub group: &'a str,
    /// The group's nodes, the steps, the components.
    pub plan: Plan<'a>,
    /// Initial, final and optimal score.
    pub scores: (f64, f64, f64),
    /// The outcome: "balanced", or "well balanced" when there is no plan.
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
    let plan = &r.plan;
    let mut page = Page::new(r.program, &format!("Balancing node group {}", r.group));
    page.fact("status", "outcome", r.status);
    page.fact("nodes", "nodes", plan.before.len().to_string());
    page.fact("moves", "moves", plan.steps.len().to_string());
    page.fact("initial-score", "score before", score(initial));
    page.fact("final-score", "score after", score(fin));
    page.fact("optimal-score", "best score N+1 allows", score(optimal));
    let offline = plan.before.iter().filter(|n| n.offline).count();
    if offline > 0 {
        page.fact("offline", "offline nodes", offline.to_string());
    }
    plan.sections(&mut page);
    page.finish()
}
