//! `hailstone-squeeze --report`: the decision in a sentence or two (the
//! nodes to power off or on, the moves, the score, the nodes failing
//! N+1), the nodes to power off (or on), the cluster's nodes before and
//! after the switch and its balancing, the score's components, the
//! moves that empty the nodes, and what they cost (the data they copy,
//! their estimated time).

use crate::haskell::show::show_double;

use super::summary::{self, Summary};
use super::svg::escape;
use super::{Page, Plan};

/// What the squeeze page shows.
pub struct SqueezeReport<'a> {
    pub program: &'a str,
    /// `offline`, `online` or `no-action`.
    pub decision: &'a str,
    /// The nodes switched, by name.
    pub switched: &'a [&'a str],
    /// The reserve factors: minimal and target.
    pub reserves: (f64, f64),
    /// Every node, the moves, the components.
    pub plan: Plan<'a>,
    /// The cluster's score before and after the plan.
    pub scores: (f64, f64),
    /// What the plan does that Ganeti refuses or that breaks what it
    /// keeps, in words (`--explain`'s cautions; hsqueeze plans the same).
    pub cautions: &'a [String],
    /// What the moves cost: the plan's cost, each move's instance and cost.
    pub cost: (
        &'a crate::model::cost::PlanCost,
        &'a [(String, crate::model::cost::MoveCost)],
    ),
}

/// Why a squeezing plan has no knee, on its cost section.
pub const NO_KNEE: &str = "No knee: the plan's moves empty the nodes to power off (or fill the nodes powered on) and are carried out whole, there is no -l to stop them early. Powering nodes off or on and tagging them copy nothing and are not in the time.";

/// The page.
pub fn page(r: &SqueezeReport<'_>) -> String {
    let (what, heading) = match r.decision {
        "offline" => ("power off", "Nodes to power off"),
        "online" => ("power on", "Nodes to power on"),
        _ => ("leave as they are", "No node to switch"),
    };
    let plan = &r.plan;
    let mut page = Page::new(r.program, &format!("Squeezing: {what} nodes"));
    let mut s = Summary::new();
    let switched = summary::phrase(
        "switched",
        &[("value", r.switched.len().to_string())],
        &summary::count(r.switched.len(), "node", "nodes"),
    );
    let names = escape(&r.switched.join(", "));
    match r.decision {
        "offline" => s.say(&[format!("Power off {switched}: {names}")]),
        "online" => s.say(&[format!("Power on {switched}: {names}")]),
        _ => s.say(&[format!(
            "No node to power off or on ({switched}); the reserves asked for: {} to {} standard instances",
            show_double(r.reserves.0),
            show_double(r.reserves.1)
        )]),
    }
    if !plan.steps.is_empty() || r.decision != "no-action" {
        summary::plan(&mut s, plan.steps, plan.before, plan.after, r.scores);
    }
    if !r.cautions.is_empty() {
        s.say(&[format!(
            "Read the {} below before carrying the plan out.",
            summary::count(r.cautions.len(), "caution", "cautions")
        )]);
    }
    page.summary(s);
    page.fact("decision", "decision", r.decision);
    page.fact("switched", "nodes switched", r.switched.len().to_string());
    page.fact("nodes", "nodes", plan.before.len().to_string());
    page.fact("moves", "moves", plan.steps.len().to_string());
    page.fact(
        "minimal-resources",
        "minimal reserve (standard instances)",
        show_double(r.reserves.0),
    );
    page.fact(
        "target-resources",
        "target reserve (standard instances)",
        show_double(r.reserves.1),
    );
    let list = if r.switched.is_empty() {
        "<p>None.</p>".to_owned()
    } else {
        let items: String = r
            .switched
            .iter()
            .map(|n| format!("<li>{}</li>", escape(n)))
            .collect();
        format!("<ul class=\"switched\">{items}</ul>")
    };
    page.section(heading, list);
    if !r.cautions.is_empty() {
        let items: String = r
            .cautions
            .iter()
            .map(|c| format!("<li>{}</li>", escape(c)))
            .collect();
        page.section(
            "Cautions",
            format!(
                "<p>hsqueeze plans the same; the plan is left as it is.</p><ul class=\"cautions\">{items}</ul>"
            ),
        );
    }
    page.fact("cautions", "cautions", r.cautions.len().to_string());
    plan.sections(&mut page, "cluster");
    let (cost, jobs) = r.cost;
    super::cost::facts(&mut page, cost);
    page.section("Cost", super::cost::jobs_section(cost, NO_KNEE, jobs));
    page.finish()
}
