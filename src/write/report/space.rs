//! `hailstone-space --report`: how many instances fit and what stopped
//! each phase in a few sentences; how the cluster fills, instance after
//! instance, in each phase (tiered, standard) and each model counted
//! (hspace's, and the allocator's when `--allocator-model` asks for it);
//! what stopped each phase (the refusals of its last search, by resource
//! and rule); and the nodes before and after each phase.
//!
//! The fill curves are the cluster's usage efficiencies of the text's
//! "usage efficiency" lines (instance memory over total memory, and so
//! on), from the initial cluster's, one instance at a time: each instance
//! adds its memory and vCPUs once, its disk and spindles on each node
//! that holds them. The curve's last point is the text's figure. Each
//! resource's line has its own dashes and markers (the markers of two
//! lines placed apart), and its last value is written at its end, so
//! lines that lie on one another can still be told apart.

use std::fmt::Write;

use crate::haskell::show::printf_fixed;
use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::model::policy::RSpec;
use crate::model::stats::ClusterStats;
use crate::model::types::{DiskTemplate, FailMode};
use crate::model::TagTable;
use crate::write::space::spec_map;

use super::summary::{self, Summary};
use super::svg::{escape, Canvas, Marker};
use super::{table, Page};

/// One phase of a count, as it ended.
pub struct Phase {
    /// "tiered" or "standard".
    pub name: &'static str,
    /// The instances placed, in order.
    pub placed: Vec<Instance>,
    /// The nodes after the phase, in the initial nodes' order.
    pub after: Vec<Node>,
    /// The last search's refusals, most frequent first (the text's).
    pub reasons: Vec<(FailMode, u64)>,
    /// The phase's `--explain` text, when it was asked for.
    pub explanation: Option<String>,
    /// The phase did not run: the cluster fails N+1 and that was not
    /// accepted.
    pub stopped_before: bool,
    /// The phase stopped at `-l`'s number of instances.
    pub at_limit: bool,
}

/// One model's count.
pub struct Model {
    /// "hspace" or "allocator".
    pub key: &'static str,
    pub phases: Vec<Phase>,
    /// The count failed with this message (hspace's, counted for the
    /// page beside the allocator's).
    pub failed: Option<String>,
}

impl Model {
    fn title(&self) -> &'static str {
        if self.key == "allocator" {
            "The allocator's model (--allocator-model): what hailstone, as hail, accepts"
        } else {
            "hspace's count"
        }
    }
}

/// What the space page shows.
pub struct SpaceReport<'a> {
    pub program: &'a str,
    pub template: DiskTemplate,
    pub tags: &'a TagTable,
    /// Whether the cluster has exclusive storage (spindles counted).
    pub spindles: bool,
    /// The nodes before any phase.
    pub initial: &'a [&'a Node],
    /// The instances the cluster had.
    pub existing: usize,
    /// The models counted: the run's first.
    pub models: Vec<Model>,
}

/// What an instance adds to the cluster's used memory, disk (MiB),
/// vCPUs and spindles: memory and vCPUs once, disk and spindles on each
/// node that holds them.
pub fn usage(inst: &Instance, spindles: bool) -> [i64; 4] {
    let nodes = if inst.has_secondary() { 2 } else { 1 };
    let disk = if inst.uses_local_storage() {
        inst.dsk * nodes
    } else {
        0
    };
    let spn = if spindles {
        inst.total_spindles().unwrap_or(0) * nodes
    } else {
        0
    };
    let mem = if inst.uses_memory() { inst.mem } else { 0 };
    [mem, disk, inst.vcpus, spn]
}

/// The resources of the fill charts: name, CSS class and marker.
const RESOURCES: [(&str, &str, Marker); 4] = [
    ("memory", "mem", Marker::Circle),
    ("disk", "dsk", Marker::Square),
    ("vcpu", "cpu", Marker::Triangle),
    ("spindles", "spn", Marker::Diamond),
];

/// The efficiencies after each instance of `placed`, from `initial`'s.
fn curve(initial: &ClusterStats, placed: &[Instance], spindles: bool) -> Vec<[f64; 4]> {
    let mut used = [initial.imem, initial.idsk, initial.icpu, initial.ispn];
    let totals = [
        initial.tmem,
        initial.tdsk,
        initial.vcpu as f64,
        initial.tspn,
    ];
    let point = |used: &[i128; 4]| -> [f64; 4] {
        let mut p = [0.0; 4];
        for k in 0..4 {
            p[k] = used[k] as f64 / totals[k];
        }
        p
    };
    let mut out = vec![point(&used)];
    for inst in placed {
        for (u, add) in used.iter_mut().zip(usage(inst, spindles)) {
            *u += i128::from(add);
        }
        out.push(point(&used));
    }
    out
}

/// What a failure mode means: the resource or rule that refused.
pub fn meaning(mode: FailMode) -> &'static str {
    match mode {
        FailMode::Mem => "memory: not enough free memory on the node",
        FailMode::Disk => "disk: not enough free disk (or the disk reserve)",
        FailMode::Cpu => "vCPUs: the node's vCPU ratio would be exceeded",
        FailMode::N1 => "N+1: the node could not take over its peers' instances",
        FailMode::Tags => "exclusion tags: an instance with the same tag is there",
        FailMode::Mig => "migration: the hypervisors' migration rule",
        FailMode::DiskCount => "policy: the instance's disk count",
        FailMode::Spindles => "spindles: the spindle ratio would be exceeded",
        FailMode::Internal => "internal: the search found no candidate",
    }
}

const WIDTH: f64 = 520.0;
const HEIGHT: f64 = 150.0;
const LEFT: f64 = 34.0;
const TOP: f64 = 8.0;
/// The room right of the plot for the lines' last values.
const RIGHT: f64 = 110.0;
/// The distance between two markers of a line, and the least between
/// two values written at the lines' ends.
const MARKER_GAP: f64 = 64.0;
const LABEL_GAP: f64 = 11.0;

/// The fill chart: a line per resource, the x axis the instances placed,
/// tiered spec changes marked; each line dashed and marked in its own way,
/// its last value at its end.
fn fill_chart(points: &[[f64; 4]], changes: &[usize], spindles: bool, label: &str) -> String {
    let mut c = Canvas::new(LEFT + WIDTH + RIGHT, TOP + HEIGHT + 18.0, label);
    let n = points.len().saturating_sub(1).max(1) as f64;
    let x = |k: usize| LEFT + WIDTH * k as f64 / n;
    let y = |v: f64| TOP + HEIGHT * (1.0 - v.clamp(0.0, 1.0));
    for (pct, v) in [(100, 1.0), (50, 0.5), (0, 0.0)] {
        c.hline(LEFT - 3.0, LEFT + WIDTH, y(v), "grid");
        c.text(LEFT - 5.0, y(v) + 3.5, "end", "axis", &format!("{pct}%"));
    }
    for &k in changes {
        c.vline(x(k), TOP, TOP + HEIGHT, "change");
    }
    c.text(LEFT, TOP + HEIGHT + 13.0, "start", "axis", "0");
    c.text(
        LEFT + WIDTH,
        TOP + HEIGHT + 13.0,
        "end",
        "axis",
        &format!("{} instances placed", points.len() - 1),
    );
    let shown = if spindles { 4 } else { 3 };
    let last = points.len() - 1;
    let mut ends = Vec::new();
    for (r, (name, class, marker)) in RESOURCES.iter().enumerate().take(shown) {
        // Long runs are sampled: at most a point per pixel, the last kept.
        let step = points.len().div_ceil(WIDTH as usize).max(1);
        let mut line: Vec<(f64, f64)> = points
            .iter()
            .enumerate()
            .step_by(step)
            .map(|(k, p)| (x(k), y(p[r])))
            .collect();
        if !last.is_multiple_of(step) {
            line.push((x(last), y(points[last][r])));
        }
        c.polyline(&line, &format!("line {class}"));
        // Markers every MARKER_GAP pixels along the line as drawn, each
        // line's shifted by a quarter of the gap: where two lines lie on
        // one another, their markers alternate.
        let mut at = MARKER_GAP * r as f64 / 4.0;
        while at < WIDTH - MARKER_GAP / 8.0 {
            let t = at / WIDTH * n;
            let k = (t.floor() as usize).min(last);
            let v = match points.get(k + 1) {
                Some(next) => points[k][r] + (next[r] - points[k][r]) * (t - k as f64),
                None => points[k][r],
            };
            c.marker(*marker, LEFT + at, y(v), &format!("dot {class}"));
            at += MARKER_GAP;
        }
        c.marker(
            *marker,
            x(last),
            y(points[last][r]),
            &format!("dot {class}"),
        );
        ends.push((y(points[last][r]), *name, *class, points[last][r]));
    }
    // The last values, in the lines' order from the top, kept apart.
    ends.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut next = TOP - 100.0;
    let mut labels: Vec<(f64, &str, &str, f64)> = Vec::new();
    for (ly, name, class, v) in ends {
        let ly = ly.max(next);
        labels.push((ly, name, class, v));
        next = ly + LABEL_GAP;
    }
    // Too low for the chart: pushed back up from the bottom.
    let mut floor = TOP + HEIGHT + 4.0;
    for l in labels.iter_mut().rev() {
        l.0 = l.0.min(floor);
        floor = l.0 - LABEL_GAP;
    }
    for (ly, name, class, v) in labels {
        c.text(
            LEFT + WIDTH + 8.0,
            ly + 3.5,
            "start",
            &format!("end {class}"),
            &format!("{name} {}%", percent(v)),
        );
    }
    c.finish()
}

/// A line's key: a short stretch of it with its marker, and its name.
fn line_key(name: &str, class: &str, marker: Marker) -> String {
    let mut c = Canvas::new(26.0, 10.0, "");
    c.polyline(&[(1.0, 5.0), (25.0, 5.0)], &format!("line {class}"));
    c.marker(marker, 13.0, 5.0, &format!("dot {class}"));
    format!(
        r#" <span class="key {class}">{} {name}</span>"#,
        c.finish_decorative()
    )
}

fn percent(v: f64) -> String {
    printf_fixed(v * 100.0, 2)
}

/// A spec as the text writes it: memory, disk, vCPUs (and spindles).
fn spec_text(s: &RSpec, spindles: bool) -> String {
    let mut t = format!("{} MiB memory, {} MiB disk, {} vCPUs", s.mem, s.dsk, s.cpu);
    if spindles {
        let _ = write!(t, ", {} spindles", s.spn);
    }
    t
}

/// A spec in a sentence: "1024 MiB memory / 10240 MiB disk / 2 vCPUs".
fn spec_short(s: &RSpec, spindles: bool) -> String {
    spec_text(s, spindles).replace(", ", " / ")
}

/// One phase's part of a model's section.
fn phase_html(r: &SpaceReport<'_>, model: &Model, p: &Phase, initial: &ClusterStats) -> String {
    let key = format!("{}-{}", model.key, p.name);
    let points = curve(initial, &p.placed, r.spindles);
    let specs: Vec<RSpec> = p.placed.iter().map(RSpec::of).collect();
    let map = spec_map(&specs);
    let mut changes = Vec::new();
    let mut at = 0;
    for (_, n) in map.iter().take(map.len().saturating_sub(1)) {
        at += n;
        changes.push(at);
    }
    let mut out = format!(
        "<h3>{} allocation</h3><p data-key=\"{key}-instances\" class=\"note\">{} instances placed.</p>",
        capitalised(p.name),
        p.placed.len()
    );
    if p.stopped_before {
        out.push_str("<p>Not run: nodes of the cluster fail N+1 and that was not accepted (--accept-existing-errors, --independent-groups).</p>");
    }
    let mut legend = String::new();
    for (name, class, marker) in RESOURCES.iter().take(if r.spindles { 4 } else { 3 }) {
        legend.push_str(&line_key(name, class, *marker));
    }
    let _ = write!(
        out,
        "<figure><figcaption>Cluster usage after each instance placed{}:{legend}</figcaption>{}</figure>",
        if changes.is_empty() {
            ""
        } else {
            " (a dashed line where the tiered spec shrinks)"
        },
        fill_chart(
            &points,
            &changes,
            r.spindles,
            &format!("{} {} allocation: usage", model.key, p.name)
        )
    );
    let last = points.last().copied().unwrap_or([0.0; 4]);
    let shown = if r.spindles { 4 } else { 3 };
    let start = points.first().copied().unwrap_or([0.0; 4]);
    let mut rows = Vec::new();
    for (k, (name, _, _)) in RESOURCES.iter().enumerate().take(shown) {
        rows.push(vec![
            (*name).to_owned(),
            format!("{}%", percent(start[k])),
            format!("{}%", percent(last[k])),
        ]);
    }
    out.push_str(&table(
        &format!(r#"class="efficiency" data-key="{key}-efficiency""#),
        &[
            ("usage efficiency", false),
            ("before", true),
            ("after", true),
        ],
        &rows,
    ));
    if p.name == "tiered" && !map.is_empty() {
        let rows: Vec<Vec<String>> = map
            .iter()
            .map(|(s, n)| vec![n.to_string(), spec_text(s, r.spindles)])
            .collect();
        let _ = write!(
            out,
            "<details><summary>Instances by spec ({} specs, largest first)</summary>{}</details>",
            map.len(),
            table(
                &format!(r#"class="specs" data-key="{key}-specs""#),
                &[("instances", true), ("of spec", false)],
                &rows,
            )
        );
    }
    let refused: Vec<Vec<String>> = p
        .reasons
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(m, n)| vec![m.name().to_owned(), n.to_string(), meaning(*m).to_owned()])
        .collect();
    let main = p
        .reasons
        .first()
        .filter(|(_, n)| *n > 0)
        .map_or("none", |(m, _)| m.name());
    if p.at_limit {
        let _ = write!(
            out,
            "<h4>What stopped it</h4><p data-key=\"{key}-limit\">The limit: -l allowed {} instances (the refusals below are the ones the text counts, met before the limit).</p>",
            p.placed.len()
        );
    }
    let _ = write!(
        out,
        "{}<p class=\"note\">Most refusals: <strong data-key=\"{key}-stop\">{main}</strong>. The last search's refused candidates, by resource and rule:</p>",
        if p.at_limit {
            ""
        } else {
            "<h4>What stopped it</h4>"
        }
    );
    out.push_str(&table(
        &format!(r#"class="reasons" data-key="{key}-reasons""#),
        &[("reason", false), ("candidates", true), ("meaning", false)],
        &refused,
    ));
    match &p.explanation {
        Some(text) => {
            let _ = write!(
                out,
                "<details><summary>Which node refused it and why (--explain)</summary><pre>{}</pre></details>",
                escape(text)
            );
        }
        None => out.push_str(
            "<p class=\"note\">Run with --explain for which node refused the last instance and with which numbers.</p>",
        ),
    }
    out
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

/// The page.
pub fn page(r: &SpaceReport<'_>) -> String {
    let initial = ClusterStats::of(r.initial.iter().copied(), 0.0);
    let mut page = Page::new(r.program, "Capacity: how many more instances fit");
    page.summary(summarised(r, &initial));
    page.fact("template", "disk template", r.template.raw());
    page.fact("nodes", "nodes", r.initial.len().to_string());
    page.fact("existing", "instances now", r.existing.to_string());
    for m in &r.models {
        for p in &m.phases {
            page.fact(
                &format!("{}-{}", m.key, p.name),
                &format!("{} instances ({})", p.name, m.key),
                p.placed.len().to_string(),
            );
        }
    }
    for m in &r.models {
        let mut html = String::new();
        if let Some(message) = &m.failed {
            let _ = write!(
                html,
                "<p data-key=\"{}-failed\">The count failed: {}</p>",
                m.key,
                escape(message)
            );
        }
        for p in &m.phases {
            html.push_str(&phase_html(r, m, p, &initial));
        }
        page.section(m.title(), html);
    }
    // The nodes before and after each phase of the run's model.
    if let Some(m) = r.models.first() {
        for p in &m.phases {
            let after: Vec<&Node> = p.after.iter().collect();
            page.section(
                &format!("Nodes after the {} allocation ({})", p.name, m.key),
                super::nodes::before_after(
                    r.initial,
                    &after,
                    r.tags,
                    &format!("{}-{}", m.key, p.name),
                    &format!("after the {} allocation", p.name),
                ),
            );
        }
    }
    page.finish()
}

/// What stopped a phase, in words.
fn stopped(p: &Phase) -> String {
    if p.stopped_before {
        return "not run: nodes of the cluster fail N+1".to_owned();
    }
    if p.at_limit {
        return "stopped at -l's limit".to_owned();
    }
    match p.reasons.first().filter(|(_, n)| *n > 0) {
        Some((mode, _)) => {
            let (what, why) = meaning(*mode)
                .split_once(": ")
                .unwrap_or((meaning(*mode), ""));
            format!("stopped by {what} ({why})")
        }
        None => "nothing refused".to_owned(),
    }
}

/// The summary: how many instances fit in each phase of the run's model,
/// of which specs, what stopped it and the usage it leaves; the other
/// model's counts beside.
fn summarised(r: &SpaceReport<'_>, initial: &ClusterStats) -> Summary {
    let mut s = Summary::new();
    let Some(m) = r.models.first() else {
        return s;
    };
    if let Some(message) = &m.failed {
        s.say(&[format!("The count failed: {}", escape(message))]);
    }
    for p in &m.phases {
        let key = format!("{}-{}", m.key, p.name);
        let placed = p.placed.len();
        let specs: Vec<RSpec> = p.placed.iter().map(RSpec::of).collect();
        let map = spec_map(&specs);
        let fit = if placed == 1 { "fits" } else { "fit" };
        let count = summary::phrase(
            &key,
            &[("value", placed.to_string())],
            &format!(
                "{} {fit}",
                summary::count(placed, "more instance", "more instances")
            ),
        );
        let of = match (p.name, &map[..]) {
            (_, []) => String::new(),
            ("tiered", [(spec, _)]) => format!(", of {}", spec_short(spec, r.spindles)),
            ("tiered", specs) => {
                let mut list: Vec<String> = specs
                    .iter()
                    .take(2)
                    .map(|(spec, n)| format!("{n} of {}", spec_short(spec, r.spindles)))
                    .collect();
                if specs.len() > 2 {
                    let rest: usize = specs[2..].iter().map(|(_, n)| n).sum();
                    list.push(match specs.len() - 2 {
                        1 => format!("{rest} of a smaller spec"),
                        k => format!("{rest} of {k} smaller specs"),
                    });
                }
                format!(" ({})", list.join(", "))
            }
            (_, [(spec, _), ..]) => format!(" of {}", spec_short(spec, r.spindles)),
        };
        let points = curve(initial, &p.placed, r.spindles);
        let last = points.last().copied().unwrap_or([0.0; 4]);
        let usage: Vec<String> = RESOURCES
            .iter()
            .enumerate()
            .take(if r.spindles { 4 } else { 3 })
            .map(|(k, (name, _, _))| format!("{name} {}%", printf_fixed(last[k] * 100.0, 1)))
            .collect();
        s.say(&[
            format!("{} allocation: {count}{}", capitalised(p.name), escape(&of)),
            escape(&stopped(p)),
            format!("usage then: {}", usage.join(", ")),
        ]);
    }
    for other in r.models.iter().skip(1) {
        let counts: Vec<String> = other
            .phases
            .iter()
            .map(|p| {
                let same = m
                    .phases
                    .iter()
                    .find(|q| q.name == p.name)
                    .is_some_and(|q| q.placed.len() == p.placed.len());
                format!(
                    "{} {}{}",
                    p.name,
                    summary::phrase(
                        &format!("{}-{}", other.key, p.name),
                        &[("value", p.placed.len().to_string())],
                        &p.placed.len().to_string()
                    ),
                    if same { " (the same)" } else { "" }
                )
            })
            .collect();
        let title = if other.key == "hspace" {
            "hspace's own count"
        } else {
            "The allocator's count"
        };
        match &other.failed {
            Some(message) => s.say(&[format!(
                "{title} {}",
                summary::phrase(
                    &format!("{}-failed", other.key),
                    &[],
                    &format!("failed: {message}")
                )
            )]),
            None => s.say(&[format!("{title}: {}", counts.join(", "))]),
        }
    }
    s
}

/// The page's styles for the fill charts.
pub const CSS: &str = "\
.line{fill:none;stroke-width:1.6}.line.mem{stroke:#3a86ff;stroke-width:2.8}.line.dsk{stroke:#8338ec;stroke-dasharray:7 4}\
.line.cpu{stroke:#fb5607;stroke-dasharray:2 3}.line.spn{stroke:#2b9348;stroke-dasharray:9 3 2 3}\
.dot{stroke:#fff;stroke-width:.6}.dot.mem{fill:#3a86ff}.dot.dsk{fill:#8338ec}.dot.cpu{fill:#fb5607}.dot.spn{fill:#2b9348}\
.end{font-size:10px}.end.mem{fill:#3a86ff}.end.dsk{fill:#8338ec}.end.cpu{fill:#fb5607}.end.spn{fill:#2b9348}\
.key{margin-right:8px;white-space:nowrap}.key svg{vertical-align:middle}\
.key.mem{color:#3a86ff}.key.dsk{color:#8338ec}.key.cpu{color:#fb5607}.key.spn{color:#2b9348}\
.change{stroke:#999;stroke-dasharray:3 3;stroke-width:.8}\
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_curve_adds_each_instance_where_it_is_held() {
        let initial = ClusterStats {
            imem: 100,
            idsk: 0,
            icpu: 2,
            ispn: 0,
            tmem: 1000.0,
            tdsk: 4000.0,
            vcpu: 10,
            tspn: 1.0,
            ..ClusterStats::default()
        };
        let spec = RSpec {
            cpu: 2,
            mem: 100,
            dsk: 1000,
            spn: 1,
        };
        let drbd = spec.instance(DiskTemplate::Drbd, 1);
        let plain = spec.instance(DiskTemplate::Plain, 1);
        let points = curve(&initial, &[drbd, plain], false);
        assert_eq!(points.len(), 3);
        assert_eq!(points[0][..3], [0.1, 0.0, 0.2]);
        // drbd: its disk on both nodes; plain: on one.
        assert_eq!(points[1][..3], [0.2, 0.5, 0.4]);
        assert_eq!(points[2][..3], [0.3, 0.75, 0.6]);
    }
}
