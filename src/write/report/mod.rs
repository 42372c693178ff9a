//! `--report=FILE.html`: one self-contained page (inline CSS and SVG, no
//! script, no font or image from anywhere) that shows what a plan does to
//! a cluster, for the people who review it before it runs.
//!
//! * Owns: the page's frame and styles ([`Page`]): the plain-language
//!   summary at the top ([`summary`]), the facts list, the score's
//!   components before and after, the moves table; the node charts
//!   ([`nodes`], on the figures of [`figures`], the numbers behind them
//!   in [`tables`]) on the SVG writer of [`svg`]; a plan's cost and
//!   the knee of its score against the data it copies ([`cost`]); each program's page ([`balance`], [`squeeze`], [`space`],
//!   [`check`], [`info`], [`groups`]).
//! * Every number a page shows comes from the same values the program's
//!   text prints (the `-p` table's formatting for the nodes); the page
//!   carries no time, so the same run writes the same bytes.

pub mod balance;
pub mod check;
pub mod cost;
pub mod figures;
pub mod groups;
pub mod info;
pub mod nodes;
pub mod space;
pub mod squeeze;
pub mod summary;
pub mod svg;
pub mod tables;

use std::fmt::Write;

use crate::haskell::show::printf_fixed;
use crate::model::node::Node;
use crate::model::TagTable;
use crate::search::balance::Placement;
use crate::write::document::move_kind;
use svg::{escape, Canvas};

/// A page being built: a title, a summary, facts, then sections.
pub struct Page {
    title: String,
    summary: summary::Summary,
    facts: Vec<(String, String, String)>,
    sections: Vec<(String, String)>,
    program: String,
}

impl Page {
    /// A page titled `title`, written by `program`.
    pub fn new(program: &str, title: &str) -> Page {
        Page {
            title: title.to_owned(),
            summary: summary::Summary::new(),
            facts: Vec::new(),
            sections: Vec::new(),
            program: program.to_owned(),
        }
    }

    /// The summary at the top of the page.
    pub fn summary(&mut self, summary: summary::Summary) {
        self.summary = summary;
    }

    /// A fact of the facts list: `key` (a stable name, for scripts), its
    /// label and its value.
    pub fn fact(&mut self, key: &str, label: &str, value: impl Into<String>) {
        self.facts
            .push((key.to_owned(), label.to_owned(), value.into()));
    }

    /// A section with its heading and its HTML.
    pub fn section(&mut self, heading: &str, html: String) {
        self.sections.push((heading.to_owned(), html));
    }

    /// The whole page.
    pub fn finish(self) -> String {
        let mut out = String::new();
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>{t}</title><style>{CSS}{}{}</style></head>\n<body><h1>{t}</h1>\n",
            nodes::CSS,
            space::CSS,
            t = escape(&self.title)
        );
        out.push_str(&self.summary.html());
        out.push_str("<dl class=\"facts\">");
        for (key, label, value) in &self.facts {
            let _ = write!(
                out,
                "<div><dt>{}</dt><dd data-key=\"{}\">{}</dd></div>",
                escape(label),
                escape(key),
                escape(value)
            );
        }
        out.push_str("</dl>\n");
        for (heading, html) in &self.sections {
            let _ = writeln!(out, "<section><h2>{}</h2>{html}</section>", escape(heading));
        }
        let _ = writeln!(
            out,
            "<footer>Written by {} {} (hailstone). Hover over a bar for its numbers.</footer></body></html>",
            escape(&self.program),
            env!("CARGO_PKG_VERSION")
        );
        out
    }
}

/// The page's own styles (the charts add theirs).
const CSS: &str = "\
body{font-family:sans-serif;margin:16px 24px;color:#222;max-width:1400px}p{font-size:14px}\
h1{font-size:20px}.summary{font-size:15px;background:#f1f6ff;border-left:4px solid #3a86ff;padding:4px 12px;margin:0 0 14px}.summary p{font-size:15px;margin:6px 0}h2{font-size:16px;margin-top:28px;border-bottom:1px solid #ddd}\
h3{font-size:14px}h4{font-size:13px;margin:10px 0 4px}\
.facts{display:flex;flex-wrap:wrap;gap:6px 28px;margin:0}.facts dt{font-size:11px;color:#666}\
.facts dd{margin:0;font-size:15px;font-variant-numeric:tabular-nums}\
table{border-collapse:collapse;font-size:12px;margin:6px 0}\
th,td{padding:2px 8px;border-bottom:1px solid #eee;text-align:left}\
.num{text-align:right;font-variant-numeric:tabular-nums}\
.note{font-size:12px;color:#555}footer{margin-top:32px;font-size:11px;color:#777}\
pre.said{font-size:12px;background:#f8f9fa;padding:8px;overflow-x:auto}.before{fill:#adb5bd}.better{color:#2b9348}.worse{color:#d90429}\
";

/// The score's components: name, value, weight (`metric::components`).
pub type Components<'a> = &'a [(&'a str, f64, f64)];

/// What every plan's page shows: the nodes before and after, the score's
/// components before and after, and the moves.
pub struct Plan<'a> {
    pub tags: &'a TagTable,
    /// The nodes before and after, in the same order.
    pub before: &'a [&'a Node],
    pub after: &'a [&'a Node],
    /// The plan's steps, with each instance's name and each node's.
    pub steps: &'a [Placement],
    pub instance_name: &'a dyn Fn(usize) -> String,
    pub node_name: &'a dyn Fn(i32) -> Option<String>,
    pub components: (Components<'a>, Components<'a>),
}

impl Plan<'_> {
    /// The plan's three sections: nodes (`scope` naming them in the
    /// figures' tables), score components, moves.
    pub fn sections(&self, page: &mut Page, scope: &str) {
        page.section(
            "Nodes",
            nodes::before_after(self.before, self.after, self.tags, scope, "after the plan"),
        );
        page.section(
            "Score components",
            components(self.components.0, Some(self.components.1)),
        );
        page.section(
            "Moves",
            moves(self.steps, self.instance_name, self.node_name),
        );
    }
}

/// A score with the eight decimals hbal's text prints.
pub fn score(v: f64) -> String {
    printf_fixed(v, 8)
}

/// The score's components (name, value, weight) before and after, as a
/// table with each weighted value drawn as two bars; without `after`, the
/// components as they are, one bar each.
pub fn components(before: Components<'_>, after: Option<Components<'_>>) -> String {
    let widest = before
        .iter()
        .chain(after.unwrap_or(&[]))
        .map(|(_, v, w)| (v * w).abs())
        .filter(|x| x.is_finite())
        .fold(0.0_f64, f64::max);
    let mut out = String::from(
        "<table class=\"components\"><thead><tr><th>component</th><th class=\"num\">weight</th>",
    );
    out.push_str(match after {
        Some(_) => "<th class=\"num\">before</th><th class=\"num\">after</th><th>weighted, before (grey) and after (blue)</th></tr></thead><tbody>",
        None => "<th class=\"num\">value</th><th>weighted</th></tr></thead><tbody>",
    });
    for (k, (name, v0, w)) in before.iter().enumerate() {
        let len = |v: f64| {
            if widest > 0.0 {
                ((v * w).abs() / widest * 216.0).min(216.0)
            } else {
                0.0
            }
        };
        let mut c = Canvas::new(220.0, 14.0, &format!("{name} weighted"));
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
            escape(name),
            printf_fixed(*w, 2),
            printf_fixed(*v0, 8),
        );
        match after {
            Some(after) => {
                let v1 = after.get(k).map_or(f64::NAN, |c| c.1);
                let class = if v1 < *v0 {
                    "num better"
                } else if v1 > *v0 {
                    "num worse"
                } else {
                    "num"
                };
                c.rect(2.0, 1.0, len(*v0), 5.0, "before", "");
                c.rect(2.0, 7.0, len(v1), 5.0, "used", "");
                let _ = write!(out, "<td class=\"{class}\">{}</td>", printf_fixed(v1, 8));
            }
            None => c.rect(2.0, 3.0, len(*v0), 8.0, "used", ""),
        }
        let _ = write!(out, "<td>{}</td></tr>", c.finish());
    }
    out.push_str("</tbody></table>");
    out
}

/// A plain table: headers (numeric ones right-aligned) and rows;
/// `attributes` are the `<table>` element's (e.g. `class="moves"`).
pub fn table(attributes: &str, head: &[(&str, bool)], rows: &[Vec<String>]) -> String {
    let mut out = format!("<table {attributes}><thead><tr>");
    for (h, numeric) in head {
        let c = if *numeric { "num" } else { "" };
        let _ = write!(out, "<th class=\"{c}\">{}</th>", escape(h));
    }
    out.push_str("</tr></thead><tbody>");
    for row in rows {
        out.push_str("<tr>");
        for (cell, (_, numeric)) in row.iter().zip(head) {
            let c = if *numeric { "num" } else { "" };
            let _ = write!(out, "<td class=\"{c}\">{}</td>", escape(cell));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
    out
}

/// A pair of nodes as `primary:secondary`, `primary` alone without a
/// secondary.
pub fn pair(name: &dyn Fn(i32) -> Option<String>, (p, s): (i32, i32)) -> String {
    match (name(p), name(s)) {
        (Some(p), Some(s)) => format!("{p}:{s}"),
        (Some(p), None) => p,
        (None, Some(s)) => format!("-:{s}"),
        (None, None) => "-".to_owned(),
    }
}

/// A plan's moves as a table: step, instance, kind, nodes before and
/// after, score after the move.
pub fn moves(
    steps: &[Placement],
    instance_name: &dyn Fn(usize) -> String,
    node_name: &dyn Fn(i32) -> Option<String>,
) -> String {
    if steps.is_empty() {
        return "<p>No move.</p>".to_owned();
    }
    let rows: Vec<Vec<String>> = steps
        .iter()
        .enumerate()
        .map(|(k, p)| {
            vec![
                (k + 1).to_string(),
                instance_name(p.inst),
                move_kind(&p.mv).to_owned(),
                pair(node_name, p.old_nodes),
                pair(node_name, p.new_nodes),
                score(p.score),
            ]
        })
        .collect();
    table(
        "class=\"moves\"",
        &[
            ("step", true),
            ("instance", false),
            ("move", false),
            ("from (primary:secondary)", false),
            ("to", false),
            ("score after", true),
        ],
        &rows,
    )
}
