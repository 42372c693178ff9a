//! A plan's cost on a report page ([`crate::model::cost`]): the totals,
//! the chart of the score against the disk data copied along the plan
//! with its knee marked, and each move's cost ([`section`],
//! hailstone-balance's); the totals and each job's cost without the
//! chart ([`jobs_section`]) for the plans that are not cut by `-l`
//! (squeeze, the groups' operations, roll's evacuations), with the reason
//! they have no knee.

use std::fmt::Write;

use crate::model::cost::{Knee, MoveCost, PlanCost};
use crate::write::cost::{duration, knee_words, rates, size, FAILOVERS};

use super::svg::{escape, Canvas, Marker};
use super::{score, table};

/// What the cost section shows: the plan's cost, each step's cost and
/// the score after it, the score before the plan, and the knee.
pub struct CostView<'a> {
    pub cost: &'a PlanCost,
    pub steps: &'a [(MoveCost, f64)],
    pub initial: f64,
    pub knee: Option<&'a Knee>,
}

/// The chart's CSS (in the section: only pages with a cost carry it).
const CSS: &str = ".curve{fill:none;stroke:#3a86ff;stroke-width:1.5}.curvept{fill:#3a86ff}.knee{fill:#d90429}.axis{stroke:#888}.chord{stroke:#bbb;stroke-dasharray:4 3}.lbl{font-size:11px;fill:#444}";

/// The totals table and the note on the rates.
fn totals(c: &PlanCost) -> String {
    let t = &c.total;
    let mut out = table(
        "class=\"cost\"",
        &[("what", false), ("total", true)],
        &[
            vec!["moves".into(), c.moves.to_string()],
            vec!["job sets".into(), c.sets.len().to_string()],
            vec!["disk data copied".into(), size(t.disk)],
            vec!["disk replacements".into(), t.replacements.to_string()],
            vec!["memory migrated".into(), size(t.memory)],
            vec!["live migrations".into(), t.migrations.to_string()],
            vec![FAILOVERS.into(), t.failovers.to_string()],
            vec!["estimated time".into(), duration(c.seconds)],
        ],
    );
    let _ = write!(
        out,
        "<p class=\"note\">Time estimated with {}; the job sets one after another, the jobs of a set side by side.</p>",
        escape(&rates(c.rates))
    );
    out
}

/// The two facts every report with a cost shows at its top: the disk data
/// the plan copies and its estimated time.
pub fn facts(page: &mut super::Page, c: &PlanCost) {
    page.fact("disk-copied", "disk data copied", size(c.total.disk));
    page.fact("estimated-time", "estimated time", duration(c.seconds));
}

/// A plan's cost without a chart: the totals, `note` (why the plan has
/// no knee), and each job's cost with what it is (`jobs`: a label, an
/// instance's name, and the cost), in the plan's order.
pub fn jobs_section(c: &PlanCost, note: &str, jobs: &[(String, MoveCost)]) -> String {
    let mut out = totals(c);
    let _ = write!(out, "<p class=\"note\">{}</p>", escape(note));
    if jobs.is_empty() {
        return out;
    }
    let mut copied = 0i64;
    let rows: Vec<Vec<String>> = jobs
        .iter()
        .enumerate()
        .map(|(k, (what, m))| {
            copied = copied.saturating_add(m.disk);
            vec![
                (k + 1).to_string(),
                what.clone(),
                size(m.disk),
                size(m.memory),
                duration(m.seconds(c.rates)),
                size(copied),
            ]
        })
        .collect();
    out.push_str(&table(
        "class=\"move-costs\"",
        &[
            ("job", true),
            ("instance", false),
            ("disk copied", true),
            ("memory migrated", true),
            ("time", true),
            ("disk copied so far", true),
        ],
        &rows,
    ));
    out
}

/// The section's HTML.
pub fn section(v: &CostView<'_>) -> String {
    let c = v.cost;
    let t = &c.total;
    let mut out = format!("<style>{CSS}</style>");
    out += &totals(c);
    if v.steps.is_empty() {
        return out;
    }
    match v.knee {
        Some(k) => {
            let _ = write!(
                out,
                "<p class=\"knee-line\">Knee: {}.</p>",
                escape(&knee_words(k, t.disk))
            );
        }
        None => out.push_str("<p class=\"knee-line\">No knee: fewer than two moves, no disk data copied, or no part of the plan better per byte than the whole.</p>"),
    }
    out.push_str(&chart(v));
    let mut copied = 0i64;
    let rows: Vec<Vec<String>> = v
        .steps
        .iter()
        .enumerate()
        .map(|(k, (m, sc))| {
            copied = copied.saturating_add(m.disk);
            vec![
                (k + 1).to_string(),
                size(m.disk),
                size(m.memory),
                duration(m.seconds(c.rates)),
                size(copied),
                score(*sc),
            ]
        })
        .collect();
    out.push_str(&table(
        "class=\"move-costs\"",
        &[
            ("step", true),
            ("disk copied", true),
            ("memory migrated", true),
            ("time", true),
            ("disk copied so far", true),
            ("score after", true),
        ],
        &rows,
    ));
    out
}

/// The score (down) against the disk data copied so far (right), one
/// point per step, the chord from start to end dashed, the knee in red.
fn chart(v: &CostView<'_>) -> String {
    const W: f64 = 560.0;
    const H: f64 = 240.0;
    const L: f64 = 70.0;
    const R: f64 = 20.0;
    const T: f64 = 14.0;
    const B: f64 = 36.0;
    let mut points = vec![(0i64, v.initial)];
    let mut copied = 0i64;
    for (m, sc) in v.steps {
        copied = copied.saturating_add(m.disk);
        points.push((copied, *sc));
    }
    let xmax = copied.max(1) as f64;
    let (lo, hi) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.1), hi.max(p.1))
        });
    let span = if hi > lo { hi - lo } else { 1.0 };
    let x = |d: i64| L + (W - L - R) * d as f64 / xmax;
    let y = |s: f64| T + (H - T - B) * (hi - s) / span;
    let mut cv = Canvas::new(
        W,
        H,
        "the cluster score against the disk data copied along the plan",
    );
    cv.hline(L, W - R, H - B, "axis");
    cv.vline(L, T, H - B, "axis");
    cv.polyline(
        &[
            (x(0), y(v.initial)),
            (x(copied), y(points.last().map_or(v.initial, |p| p.1))),
        ],
        "chord",
    );
    let line: Vec<(f64, f64)> = points.iter().map(|&(d, s)| (x(d), y(s))).collect();
    cv.polyline(&line, "curve");
    for (k, &(d, s)) in points.iter().enumerate() {
        cv.open_group(
            &format!("after {k} moves: {} copied, score {}", size(d), score(s)),
            &[("step", k.to_string())],
        );
        cv.marker(Marker::Circle, x(d), y(s), "curvept");
        cv.close_group();
    }
    if let Some(k) = v.knee {
        cv.marker(Marker::Diamond, x(k.data_mib), y(k.score), "knee");
        cv.text(
            x(k.data_mib) + 6.0,
            y(k.score) - 6.0,
            "start",
            "lbl",
            &format!("knee: -l {}", k.steps),
        );
    }
    cv.text(L - 4.0, y(hi) + 4.0, "end", "lbl", &score(hi));
    cv.text(L - 4.0, y(lo) + 4.0, "end", "lbl", &score(lo));
    cv.text(x(0), H - B + 14.0, "start", "lbl", "0");
    cv.text(x(copied), H - B + 14.0, "end", "lbl", &size(copied));
    cv.text(
        (L + W - R) / 2.0,
        H - 6.0,
        "middle",
        "lbl",
        "disk data copied so far",
    );
    cv.finish()
}
