//! `hailstone-balance --report`: what the plan does in a sentence or two
//! (the moves by kind, the score, the nodes failing N+1), the group's
//! nodes before and after the plan, the score and its components before
//! and after, the moves, and what they cost (the data they copy, their
//! estimated time, the knee of the score against the data).

use super::summary::{self, Summary};
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
    /// What the plan costs, and where its curve bends.
    pub cost: Option<super::cost::CostView<'a>>,
}

/// The page.
pub fn page(r: &BalanceReport<'_>) -> String {
    let (initial, fin, optimal) = r.scores;
    let plan = &r.plan;
    let mut page = Page::new(r.program, &format!("Balancing node group {}", r.group));
    let mut s = Summary::new();
    if plan.steps.is_empty() {
        s.say(&[
            summary::moves(plan.steps),
            format!(
                "node group {} is {}",
                super::svg::escape(r.group),
                super::svg::escape(r.status)
            ),
            format!(
                "{} (the best N+1 allows: {})",
                summary::phrase(
                    "score",
                    &[("before", score(initial)), ("after", score(initial))],
                    &format!("score {}", summary::short(initial)),
                ),
                summary::short(optimal)
            ),
        ]);
        s.say(&[summary::count_change(
            "n1",
            "Nodes failing N+1",
            summary::n1_failing(plan.before),
            summary::n1_failing(plan.before),
        )]);
    } else {
        summary::plan(&mut s, plan.steps, plan.before, plan.after, (initial, fin));
    }
    page.summary(s);
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
    plan.sections(&mut page, r.group);
    if let Some(c) = &r.cost {
        super::cost::facts(&mut page, c.cost);
        page.section("Cost", super::cost::section(c));
    }
    page.finish()
}
