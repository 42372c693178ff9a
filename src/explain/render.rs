//! An [`Explanation`] as text for people (short, aligned) or as one JSON
//! object for scripts. Both are deterministic: same explanation, same
//! bytes.

use crate::score::metric::COMPONENTS;

use super::allocate::{Dropped, GroupPart, Pick, Placement, Shortage};
use super::moves::MovePart;
use super::reasons::{num, ReasonCount};
use super::{Explanation, Format};
use crate::write::json::{s, strs, Json};

/// The explanation in `format`, ending with a newline.
pub fn render(e: &Explanation, format: Format) -> String {
    match format {
        Format::Text => text(e),
        Format::Json => {
            let mut out = String::new();
            json(e).write(&mut out);
            out.push('\n');
            out
        }
    }
}

// ---------------------------------------------------------------------------
// Text.
// ---------------------------------------------------------------------------

fn text(e: &Explanation) -> String {
    let mut out = format!("verdict: {}\n", super::verdict::line(e));
    out.push_str(&format!("hailstone explain: {} request\n", e.request));
    out.push_str(&format!("answer: {}\n", e.info));
    for n in &e.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    for p in &e.placements {
        placement_text(&mut out, p, e.score_terms);
    }
    for m in &e.moves {
        move_text(&mut out, m);
    }
    if let Some(c) = &e.cost {
        out.push('\n');
        out.push_str(&c.text());
    }
    out
}

fn move_text(out: &mut String, m: &MovePart) {
    out.push_str(&format!("\ninstance {}: {}\n", m.instance, m.what));
    match &m.chosen {
        Some((node, score)) => out.push_str(&format!("chosen: {node} (score {score})\n")),
        None => out.push_str("chosen: nothing\n"),
    }
    out.push_str(&format!(
        "    {} target{}: {} fit, {} refused\n",
        m.targets,
        if m.targets == 1 { "" } else { "s" },
        m.fit,
        m.targets - m.fit
    ));
    if !m.reasons.is_empty() {
        reasons_text(out, &m.reasons);
    }
}

fn placement_text(out: &mut String, p: &Placement, score_terms: bool) {
    let n = &p.needs;
    out.push_str(&format!(
        "\ninstance {}: {} on {} node{}; {} MiB memory, {} MiB disk, {} vCPU{}, {} spindle{}\n",
        p.instance,
        n.template,
        n.nodes,
        plural(n.nodes),
        n.memory,
        n.disk,
        n.vcpus,
        plural(n.vcpus),
        n.spindles,
        plural(n.spindles)
    ));
    match &p.chosen {
        Some((g, nodes)) => out.push_str(&format!("chosen: {} in group {}\n", nodes.join("/"), g)),
        None => out.push_str("chosen: nothing\n"),
    }
    for g in &p.groups {
        group_text(out, g, n.nodes, score_terms);
    }
}

fn plural(n: i64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn group_text(out: &mut String, g: &GroupPart, count: i64, score_terms: bool) {
    out.push_str(&format!(
        "\n  group {} ({}): {}\n",
        g.name, g.alloc_policy, g.verdict
    ));
    for line in &g.policy {
        out.push_str(&format!("    policy: {line}\n"));
    }
    if g.candidates == 0 && g.reasons.is_empty() {
        return;
    }
    let what = if count == 2 { "pairs" } else { "nodes" };
    out.push_str(&format!(
        "    {} candidate {what}: {} fit, {} refused",
        g.candidates,
        g.fit,
        g.candidates - g.fit
    ));
    if g.dropped > 0 {
        out.push_str(&format!(", {} dropped by the N+1 check", g.dropped));
    }
    out.push('\n');
    if !g.reasons.is_empty() {
        reasons_text(out, &g.reasons);
    }
    for d in &g.dropped_picks {
        dropped_text(out, d);
    }
    if let Some(w) = &g.winner {
        picks_text(out, w, g.runner_up.as_ref(), score_terms);
    }
}

pub(super) fn reasons_text(out: &mut String, reasons: &[ReasonCount]) {
    let width = reasons
        .iter()
        .map(|r| r.count.to_string().len())
        .max()
        .unwrap_or(1);
    out.push_str("    refused:\n");
    for r in reasons {
        out.push_str(&format!(
            "      {:>width$}  {:<13} {}: {}\n",
            r.count,
            r.mode.name(),
            r.role.name(),
            r.kind
        ));
        for m in r.shown() {
            out.push_str(&format!(
                "      {:width$}    {}: {}\n",
                "",
                m.nodes.join("/"),
                m.detail
            ));
        }
        let more = r.not_shown();
        if more > 0 {
            let listed = if r.unlisted > 0 {
                format!("the first {}", r.every.len())
            } else {
                "them".to_owned()
            };
            out.push_str(&format!(
                "      {:width$}    ... and {more} more (--explain-format=json lists {listed})\n",
                ""
            ));
        }
    }
}

fn dropped_text(out: &mut String, d: &Dropped) {
    let mut why = match (&d.unevacuable, &d.blocker) {
        (Some(n), Some(b)) => format!("{n} could not have been evacuated afterwards: {b}"),
        (Some(n), None) => format!("{n} could not have been evacuated afterwards"),
        (None, _) => "its secondary is offline, drained or not vm_capable".to_owned(),
    };
    if let Some(numbers) = d.shortage.as_ref().and_then(Shortage::words) {
        why.push_str(&format!(" ({numbers})"));
    }
    out.push_str(&format!(
        "    dropped {} (score {}): {why}\n",
        d.nodes.join("/"),
        d.score
    ));
}

fn picks_text(out: &mut String, w: &Pick, r: Option<&Pick>, score_terms: bool) {
    if let Some(m) = &w.metric {
        out.push_str(&format!("    winner:    {}: {m}\n", w.nodes.join("/")));
        return;
    }
    out.push_str(&format!(
        "    winner:    {} score {}\n",
        w.nodes.join("/"),
        w.score
    ));
    match r {
        Some(r) => {
            let tie = if r.score == w.score {
                " (a tie: hail takes the later candidate)"
            } else {
                ""
            };
            out.push_str(&format!(
                "    runner-up: {} score {}{tie}\n",
                r.nodes.join("/"),
                r.score
            ));
        }
        None => out.push_str("    runner-up: none\n"),
    }
    let Some(wc) = w.components.as_ref().filter(|_| score_terms) else {
        return;
    };
    let rc = r.and_then(|r| r.components.as_ref());
    // Only the weighted components that count for either.
    let rows: Vec<(usize, f64, Option<f64>)> = COMPONENTS
        .iter()
        .enumerate()
        .filter_map(|(k, c)| {
            let a = c.weight * wc[k];
            let b = rc.map(|v| c.weight * v[k]);
            (a != 0.0 || b.is_some_and(|b| b != 0.0)).then_some((k, a, b))
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    let name_width = rows
        .iter()
        .map(|(k, ..)| COMPONENTS[*k].name.len())
        .max()
        .unwrap_or(0);
    out.push_str("      score terms (weight × statistic):\n");
    out.push_str(&format!(
        "      {:<name_width$}  {:>6}  {:>10}  {:>10}  {:>10}\n",
        "component", "weight", "winner", "runner-up", "difference"
    ));
    for (k, a, b) in rows {
        let (b, d) = match b {
            Some(b) => (format!("{b:.6}"), format!("{:+.6}", b - a)),
            None => ("-".to_owned(), "-".to_owned()),
        };
        out.push_str(&format!(
            "      {:<name_width$}  {:>6}  {:>10.6}  {:>10}  {:>10}\n",
            COMPONENTS[k].name,
            num(COMPONENTS[k].weight),
            a,
            b,
            d
        ));
    }
}

// ---------------------------------------------------------------------------
// JSON.
// ---------------------------------------------------------------------------

pub(crate) fn json(e: &Explanation) -> Json {
    let mut fields = vec![
        ("verdict", s(&super::verdict::line(e))),
        ("request", s(e.request)),
        ("success", Json::Bool(e.success)),
        ("info", s(&e.info)),
        ("notes", strs(&e.notes)),
        (
            "placements",
            Json::Arr(e.placements.iter().map(placement_json).collect()),
        ),
        ("moves", Json::Arr(e.moves.iter().map(move_json).collect())),
    ];
    if let Some(c) = &e.cost {
        fields.push(("cost", c.json()));
    }
    Json::Obj(fields)
}

fn move_json(m: &MovePart) -> Json {
    Json::Obj(vec![
        ("instance", s(&m.instance)),
        ("move", s(m.what)),
        ("targets", Json::Int(m.targets as i64)),
        ("fit", Json::Int(m.fit as i64)),
        (
            "refused",
            Json::Arr(m.reasons.iter().map(reason_json).collect()),
        ),
        (
            "chosen",
            match &m.chosen {
                Some((node, score)) => {
                    Json::Obj(vec![("node", s(node)), ("score", Json::Num(*score))])
                }
                None => Json::Null,
            },
        ),
    ])
}

fn placement_json(p: &Placement) -> Json {
    let n = &p.needs;
    Json::Obj(vec![
        ("instance", s(&p.instance)),
        (
            "needs",
            Json::Obj(vec![
                ("disk_template", s(n.template)),
                ("nodes", Json::Int(n.nodes)),
                ("memory", Json::Int(n.memory)),
                ("disk", Json::Int(n.disk)),
                ("vcpus", Json::Int(n.vcpus)),
                ("spindles", Json::Int(n.spindles)),
            ]),
        ),
        (
            "chosen",
            match &p.chosen {
                Some((g, nodes)) => Json::Obj(vec![("group", s(g)), ("nodes", strs(nodes))]),
                None => Json::Null,
            },
        ),
        (
            "groups",
            Json::Arr(p.groups.iter().map(group_json).collect()),
        ),
    ])
}

fn group_json(g: &GroupPart) -> Json {
    Json::Obj(vec![
        ("name", s(&g.name)),
        ("alloc_policy", s(g.alloc_policy)),
        ("policy", strs(&g.policy)),
        ("rank", g.rank.map_or(Json::Null, |r| Json::Int(r as i64))),
        ("verdict", s(&g.verdict)),
        ("candidates", Json::Int(g.candidates as i64)),
        ("fit", Json::Int(g.fit as i64)),
        ("dropped", Json::Int(g.dropped as i64)),
        (
            "refused",
            Json::Arr(g.reasons.iter().map(reason_json).collect()),
        ),
        (
            "dropped_examples",
            Json::Arr(
                g.dropped_picks
                    .iter()
                    .map(|d| {
                        Json::Obj(vec![
                            ("nodes", strs(&d.nodes)),
                            ("score", Json::Num(d.score)),
                            (
                                "unevacuable",
                                d.unevacuable.as_deref().map_or(Json::Null, s),
                            ),
                            ("blocker", d.blocker.as_deref().map_or(Json::Null, s)),
                            (
                                "shortage",
                                d.shortage.as_ref().map_or(Json::Null, shortage_json),
                            ),
                        ])
                    })
                    .collect(),
            ),
        ),
        ("winner", g.winner.as_ref().map_or(Json::Null, pick_json)),
        (
            "runner_up",
            g.runner_up.as_ref().map_or(Json::Null, pick_json),
        ),
    ])
}

pub(super) fn reason_json(r: &ReasonCount) -> Json {
    Json::Obj(vec![
        ("mode", s(r.mode.name())),
        ("role", s(r.role.name())),
        ("reason", s(r.kind)),
        ("count", Json::Int(r.count as i64)),
        (
            "closest",
            Json::Arr(r.closest().into_iter().map(miss_json).collect()),
        ),
        ("every", Json::Arr(r.every.iter().map(miss_json).collect())),
        ("unlisted", Json::Int(r.unlisted as i64)),
    ])
}

fn miss_json(m: &super::reasons::Miss) -> Json {
    Json::Obj(vec![
        ("nodes", strs(&m.nodes)),
        ("detail", s(&m.detail)),
        ("shortfall", m.shortfall.map_or(Json::Null, Json::Num)),
    ])
}

fn shortage_json(x: &Shortage) -> Json {
    let (node, detail) = match &x.closest {
        Some((n, d)) => (s(n), s(d)),
        None => (Json::Null, Json::Null),
    };
    Json::Obj(vec![
        ("instance", x.instance.as_deref().map_or(Json::Null, s)),
        ("other_nodes", Json::Int(x.others as i64)),
        ("closest_node", node),
        ("closest_refusal", detail),
    ])
}

fn pick_json(p: &Pick) -> Json {
    Json::Obj(vec![
        ("nodes", strs(&p.nodes)),
        ("score", Json::Num(p.score)),
        ("metric", p.metric.as_deref().map_or(Json::Null, s)),
        (
            "components",
            match &p.components {
                None => Json::Null,
                Some(v) => Json::Arr(
                    COMPONENTS
                        .iter()
                        .zip(v.iter())
                        .map(|(c, x)| {
                            Json::Obj(vec![
                                ("name", s(c.name)),
                                ("weight", Json::Num(c.weight)),
                                ("value", Json::Num(*x)),
                            ])
                        })
                        .collect(),
                ),
            },
        ),
    ])
}
