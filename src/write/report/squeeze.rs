//! `hailstone-squeeze --report`: the nodes to power off (or on), the
//! cluster's nodes before and after the switch and its balancing, the
//! score's components, and the moves that empty the nodes.

use crate::model::node::Node;
use crate::model::TagTable;
use crate::search::balance::Placement;

use super::balance::shown;
use super::nodes::before_after;
use super::{components, moves, Page};
use crate::write::report::svg::escape;

/// What the squeeze page shows.
pub struct SqueezeReport<'a> {
    pub program: &'a str,
    /// `offline`, `online` or `no-action`.
    pub decision: &'a str,
    /// The nodes switched, by name.
    pub switched: &'a [&'a str],
    /// The reserve factors: minimal and target.
    pub reserves: (f64, f64),
    pub tags: &'a TagTable,
    /// Every node before and after, in the same order.
    pub before: &'a [&'a Node],
    pub after: &'a [&'a Node],
    pub steps: &'a [Placement],
    pub instance_name: &'a dyn Fn(usize) -> String,
    pub node_name: &'a dyn Fn(i32) -> Option<String>,
    /// The score's components (name, value, weight) before and after.
    pub components: (&'a [(&'a str, f64, f64)], &'a [(&'a str, f64, f64)]),
}

/// The page.
pub fn page(r: &SqueezeReport<'_>) -> String {
    let (what, heading) = match r.decision {
        "offline" => ("power off", "Nodes to power off"),
        "online" => ("power on", "Nodes to power on"),
        _ => ("leave as they are", "No node to switch"),
    };
    let mut page = Page::new(r.program, &format!("Squeezing: {} nodes", what));
    page.fact("decision", "decision", r.decision);
    page.fact("switched", "nodes switched", r.switched.len().to_string());
    page.fact("nodes", "nodes", r.before.len().to_string());
    page.fact("moves", "moves", r.steps.len().to_string());
    page.fact(
        "minimal-resources",
        "minimal reserve (standard instances)",
        crate::haskell::show::show_double(r.reserves.0),
    );
    page.fact(
        "target-resources",
        "target reserve (standard instances)",
        crate::haskell::show::show_double(r.reserves.1),
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
    page.section(
        "Nodes",
        before_after(&shown(r.before), &shown(r.after), r.tags, "after"),
    );
    page.section(
        "Score components",
        components(r.components.0, r.components.1),
    );
    page.section("Moves", moves(r.steps, r.instance_name, r.node_name));
    page.finish()
}
