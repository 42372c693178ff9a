//! A node group's resources as bars: one bar per node for memory, disk,
//! vCPUs and spindles, each split into what uses it, what N+1 keeps and
//! what is free, before and after a plan; the node's name under its bar;
//! and the numbers behind them ([`super::tables`]).
//!
//! A bar's height is its node's capacity, so nodes of every size compare
//! by how full they are; after a plan a tick marks where the bar stood
//! before. Above [`MAX_BARS`] nodes the bars are bins: the nodes sorted
//! by how full they are, each bar the mean of a run of them with the
//! fullest node of the run marked, the fullest and the emptiest nodes
//! named.

use std::fmt::Write;

use crate::model::node::Node;
use crate::model::TagTable;

use super::figures::{number, shown, shown_after, Amount, Figures, Marks, Shown};
use super::svg::{escape, Canvas};
use super::tables::{behind, figures, numbers};

/// The most bars a chart draws before it bins the nodes.
pub const MAX_BARS: usize = 60;

/// The resources drawn, in the page's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    Memory,
    Disk,
    Cpu,
    Spindles,
}

impl Resource {
    pub const ALL: [Resource; 4] = [
        Resource::Memory,
        Resource::Disk,
        Resource::Cpu,
        Resource::Spindles,
    ];

    fn title(self) -> &'static str {
        match self {
            Resource::Memory => "Memory (MiB)",
            Resource::Disk => "Disk (GiB)",
            Resource::Cpu => "vCPUs (of the ratio's limit)",
            Resource::Spindles => "Spindles (of the ratio's limit)",
        }
    }

    /// The figures of `f` for this resource.
    fn amount(self, f: &Figures) -> Amount {
        match self {
            Resource::Memory => f.mem,
            Resource::Disk => f.dsk,
            Resource::Cpu => f.cpu,
            Resource::Spindles => f.spn,
        }
    }
}

/// One part of a bar: its CSS class, its name and its size.
#[derive(Debug, Clone, Copy)]
struct Part {
    class: &'static str,
    name: &'static str,
    value: f64,
}

/// A node's bar for one resource: the parts from the bottom up, and the
/// capacity they are drawn against. `over` is what is in use or kept
/// beyond the capacity (drawn as a mark at the top).
#[derive(Debug, Clone)]
struct Bar {
    parts: Vec<Part>,
    capacity: f64,
    over: f64,
}

impl Bar {
    /// How full the node is: everything but the free part, over the
    /// capacity.
    fn fill(&self) -> f64 {
        let used: f64 = self
            .parts
            .iter()
            .filter(|p| p.class != "free")
            .map(|p| p.value)
            .sum();
        if self.capacity > 0.0 {
            (used + self.over) / self.capacity
        } else {
            0.0
        }
    }
}

fn part(class: &'static str, name: &'static str, value: f64) -> Part {
    Part {
        class,
        name,
        value: value.max(0.0),
    }
}

/// The bar of figures `f` for `r`.
fn bar(f: &Figures, r: Resource) -> Bar {
    match r {
        Resource::Memory => {
            let m = f.mem;
            let p = f.mem_parts;
            let free = m.free.max(0.0);
            let reserved = m.reserved.min(free);
            // What is used beyond the total is drawn up to the total; the
            // rest, and what N+1 keeps beyond the free memory, as `over`.
            let mut room = m.total.max(0.0);
            let mut take = |v: f64| {
                let v = v.max(0.0).min(room);
                room -= v;
                v
            };
            let parts = vec![
                part("node", "node", take(p.node)),
                part("other", "reported beyond instances", take(p.unaccounted)),
                part("used", "primaries", take(p.instances)),
                part("resv", "kept for N+1", take(reserved)),
                part("free", "free", take(free - reserved)),
            ];
            Bar {
                parts,
                capacity: m.total.max(0.0),
                over: (m.reserved - m.free).max(0.0),
            }
        }
        Resource::Disk => {
            let d = f.dsk;
            Bar {
                parts: vec![
                    part("used", "used", d.used.min(d.total.max(0.0))),
                    part("free", "free", d.free),
                ],
                capacity: d.total.max(0.0),
                over: (-d.free).max(0.0),
            }
        }
        Resource::Cpu => capped(f.cpu.used, f.cpu.total),
        Resource::Spindles => capped(f.spn.used, f.spn.total),
    }
}

/// A bar of `used` against a limit.
fn capped(used: f64, limit: f64) -> Bar {
    Bar {
        parts: vec![
            part("used", "instances", used.min(limit.max(0.0))),
            part("free", "free", limit - used),
        ],
        capacity: limit.max(0.0),
        over: (used - limit.max(0.0)).max(0.0),
    }
}

/// One drawn bar: a node's, or the mean of a bin of nodes.
struct Drawn {
    /// The name under the bar (empty for none).
    label: String,
    fractions: Vec<(Part, f64)>,
    over: f64,
    /// The fullest node's fill, for a bin.
    peak: Option<f64>,
    /// Where the node's bar stood before the plan (its fill), when shown.
    was: Option<f64>,
    marks: Marks,
    title: String,
    /// The `data-` attributes of the bar.
    data: Vec<(&'static str, String)>,
}

fn unit(r: Resource) -> &'static str {
    match r {
        Resource::Memory => " MiB",
        Resource::Disk => " GiB",
        Resource::Cpu => " vCPUs",
        Resource::Spindles => " spindles",
    }
}

/// An amount as drawn: disk in GiB (the figures are MiB).
fn scaled(v: f64, r: Resource) -> f64 {
    if r == Resource::Disk {
        v / 1024.0
    } else {
        v
    }
}

fn amount(v: f64, r: Resource) -> String {
    match r {
        Resource::Memory | Resource::Cpu => format!("{:.0}{}", v, unit(r)),
        Resource::Disk | Resource::Spindles => format!("{:.1}{}", v, unit(r)),
    }
}

/// A name under a bar: at most [`LABEL`] characters, cut with an ellipsis.
fn label(name: &str) -> String {
    if name.chars().count() <= LABEL {
        name.to_owned()
    } else {
        let cut: String = name.chars().take(LABEL - 1).collect();
        format!("{cut}…")
    }
}

/// The longest name drawn under a bar.
const LABEL: usize = 18;

fn drawn_node(s: &Shown<'_>, r: Resource, was: Option<&Shown<'_>>) -> Drawn {
    let b = scaled_bar(&s.figures, r);
    let cap = b.capacity;
    let frac = |v: f64| if cap > 0.0 { v / cap } else { 0.0 };
    let mut title = format!("{}: {} of {}", s.node.info.name, r.title(), amount(cap, r));
    for p in &b.parts {
        let _ = write!(title, "\n{} {}", p.name, amount(p.value, r));
    }
    if b.over > 0.0 {
        let _ = write!(title, "\nbeyond the capacity {}", amount(b.over, r));
    }
    let x = s.figures.mem_parts.unaccounted;
    if r == Resource::Memory && x < 0.0 {
        let _ = write!(
            title,
            "\n(the node reports {} more free than its records leave)",
            amount(-x, r)
        );
    }
    let before = was.map(|w| scaled_bar(&w.figures, r).fill());
    if let Some(f) = before {
        let _ = write!(
            title,
            "\n{:.0}% full before, {:.0}% after",
            f * 100.0,
            b.fill() * 100.0
        );
    }
    for (flag, word) in [
        (s.marks.offline, "offline"),
        (s.marks.master, "master"),
        (s.marks.standby, "standby"),
    ] {
        if flag {
            let _ = write!(title, "\n{word}");
        }
    }
    let a = r.amount(&s.figures);
    Drawn {
        label: label(s.node.info.alias()),
        fractions: b.parts.iter().map(|p| (*p, frac(p.value))).collect(),
        over: frac(b.over),
        peak: None,
        was: before.filter(|f| (f - b.fill()).abs() > 0.005),
        marks: s.marks,
        title,
        data: vec![
            ("node", s.node.info.name.clone()),
            ("total", number(a.total)),
            ("used", number(a.used)),
            ("reserved", number(a.reserved)),
            ("free", number(a.free)),
        ],
    }
}

/// The bar of `f` for `r` in the unit drawn (disk in GiB).
fn scaled_bar(f: &Figures, r: Resource) -> Bar {
    let mut b = bar(f, r);
    b.capacity = scaled(b.capacity, r);
    b.over = scaled(b.over, r);
    for p in &mut b.parts {
        p.value = scaled(p.value, r);
    }
    b
}

/// How many nodes the fullest and emptiest lists under a binned chart
/// name.
const EXTREMES: usize = 3;

/// The fullest and the emptiest nodes of a binned chart, with their
/// fill, from the extremes inwards.
#[derive(Default)]
struct Extremes {
    fullest: Vec<(String, f64)>,
    emptiest: Vec<(String, f64)>,
}

/// The bars of `nodes` for `r`: one per node, or bins of the nodes sorted
/// by fill (fullest first) when there are more than [`MAX_BARS`]; and,
/// for bins, the fullest and emptiest nodes with their fill.
fn drawn(nodes: &[Shown<'_>], r: Resource, before: Option<&[Shown<'_>]>) -> (Vec<Drawn>, Extremes) {
    if nodes.len() <= MAX_BARS {
        let bars = nodes
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let was = before.and_then(|b| {
                    b.iter()
                        .find(|w| w.node.info.name == s.node.info.name)
                        .or(b.get(k))
                });
                drawn_node(s, r, was)
            })
            .collect();
        return (bars, Extremes::default());
    }
    let mut order: Vec<(f64, usize)> = nodes
        .iter()
        .enumerate()
        .map(|(k, s)| (bar(&s.figures, r).fill(), k))
        .collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let named = |&(f, k): &(f64, usize)| (nodes[k].node.info.alias().to_owned(), f);
    let fullest: Vec<(String, f64)> = order.iter().take(EXTREMES).map(named).collect();
    let emptiest: Vec<(String, f64)> = order.iter().rev().take(EXTREMES).map(named).collect();
    let per = nodes.len().div_ceil(MAX_BARS);
    let chunks = order.len().div_ceil(per);
    let bars = order
        .chunks(per)
        .enumerate()
        .map(|(i, chunk)| {
            let bars: Vec<Drawn> = chunk
                .iter()
                .map(|&(_, k)| drawn_node(&nodes[k], r, None))
                .collect();
            let n = bars.len() as f64;
            let mut fractions = bars[0].fractions.clone();
            for (j, f) in fractions.iter_mut().enumerate() {
                f.1 = bars.iter().map(|b| b.fractions[j].1).sum::<f64>() / n;
            }
            let over = bars.iter().map(|b| b.over).sum::<f64>() / n;
            let first = i * per + 1;
            let last = first + chunk.len() - 1;
            let peak = chunk.first().map_or(0.0, |c| c.0);
            let low = chunk.last().map_or(0.0, |c| c.0);
            let offline = chunk
                .iter()
                .filter(|&&(_, k)| nodes[k].marks.offline)
                .count();
            let mut title = format!(
                "nodes {first}-{last} of {} by fill: {} ({:.0}% to {:.0}% full)",
                nodes.len(),
                r.title(),
                low * 100.0,
                peak * 100.0
            );
            for (p, f) in &fractions {
                let _ = write!(title, "\n{} {:.1}% on average", p.name, f * 100.0);
            }
            for &(f, k) in chunk {
                let _ = write!(title, "\n{} {:.0}%", nodes[k].node.info.alias(), f * 100.0);
            }
            if offline > 0 {
                let _ = write!(title, "\n{offline} offline");
            }
            // The extremes are named under the first and the last bar.
            let named = if i == 0 {
                fullest.first().map(|(n, _)| label(n))
            } else if i + 1 == chunks {
                emptiest.first().map(|(n, _)| label(n))
            } else {
                None
            };
            let members: Vec<&str> = chunk
                .iter()
                .map(|&(_, k)| &*nodes[k].node.info.name)
                .collect();
            Drawn {
                label: named.unwrap_or_default(),
                fractions,
                over,
                peak: Some(peak),
                was: None,
                marks: Marks {
                    offline: offline == chunk.len(),
                    ..Marks::default()
                },
                title,
                data: vec![
                    ("bin", format!("{first}-{last}")),
                    ("nodes", members.join(" ")),
                ],
            }
        })
        .collect();
    (bars, Extremes { fullest, emptiest })
}

/// Height of the plot area, and the room above and left of it.
const PLOT: f64 = 110.0;
const TOP: f64 = 8.0;
const LEFT: f64 = 34.0;
/// The room under the plot for the marks.
const MARKS: f64 = 13.0;
/// A character of a name under a bar, at the names' font size.
const CHAR: f64 = 5.6;

/// One chart: the bars of `nodes` for `r`, captioned `caption`; with
/// `before`, the same nodes before the plan (a tick where each bar
/// stood). Returns the SVG and, for a binned chart, the HTML naming the
/// fullest and emptiest nodes.
fn chart(
    nodes: &[Shown<'_>],
    r: Resource,
    caption: &str,
    before: Option<&[Shown<'_>]>,
) -> (String, String) {
    let (bars, Extremes { fullest, emptiest }) = drawn(nodes, r, before);
    // Two charts of up to about 50 nodes fit side by side.
    let step = (560.0 / bars.len().max(1) as f64).clamp(12.0, 22.0);
    let width = LEFT + step * bars.len() as f64 + 8.0;
    let longest = bars
        .iter()
        .map(|b| b.label.chars().count())
        .max()
        .unwrap_or(0);
    let bottom = MARKS + CHAR * longest as f64 + 4.0;
    let mut c = Canvas::new(width.max(200.0), TOP + PLOT + bottom, caption);
    for (pct, y) in [(100, TOP), (50, TOP + PLOT / 2.0), (0, TOP + PLOT)] {
        c.hline(LEFT - 3.0, LEFT + step * bars.len() as f64, y, "grid");
        c.text(LEFT - 5.0, y + 3.5, "end", "axis", &format!("{pct}%"));
    }
    for (i, b) in bars.iter().enumerate() {
        let x = LEFT + step * i as f64 + 1.0;
        let w = (step - 2.0).max(1.0);
        c.open_group(&b.title, &b.data);
        let mut y = TOP + PLOT;
        for (p, f) in &b.fractions {
            let h = f.clamp(0.0, 1.0) * PLOT;
            // Never above the plot: the parts add up to the capacity.
            let h = h.min(y - TOP);
            let class = if b.marks.offline {
                format!("{} off", p.class)
            } else {
                p.class.to_owned()
            };
            c.rect(x, y - h, w, h, &class, "");
            y -= h;
        }
        if b.over > 0.0 {
            c.rect(x, TOP - 6.0, w, 5.0, "over", "");
        }
        if let Some(peak) = b.peak {
            let py = TOP + PLOT * (1.0 - peak.min(1.0));
            c.hline(x, x + w, py, "peak");
        }
        if let Some(was) = b.was {
            let py = TOP + PLOT * (1.0 - was.min(1.0));
            c.hline(x - 1.0, x + w + 1.0, py, "was");
        }
        c.close_group();
        let mid = x + w / 2.0;
        let letter = b.marks.letter();
        if !letter.is_empty() {
            c.text(mid, TOP + PLOT + 10.0, "middle", "mark", letter);
        }
        if !b.label.is_empty() {
            let class = if b.marks.offline { "name off" } else { "name" };
            c.vertical_text(mid + 3.0, TOP + PLOT + MARKS, class, &b.label);
        }
    }
    let mut extremes = String::new();
    if !fullest.is_empty() {
        let list = |v: &[(String, f64)]| {
            v.iter()
                .map(|(n, f)| format!("{} ({:.0}%)", escape(n), f * 100.0))
                .collect::<Vec<_>>()
                .join(", ")
        };
        extremes = format!(
            "<p class=\"extremes\">fullest: {}<br>emptiest: {}</p>",
            list(&fullest),
            list(&emptiest)
        );
    }
    (c.finish(), extremes)
}

/// The legend of the bars' colours; `ticks` when the charts mark where
/// each bar stood before the plan.
fn legend(ticks: bool) -> String {
    let items = [
        ("node", "the node's own memory"),
        (
            "other",
            "memory the node reports in use beyond its instances (as read; a plan does not change it)",
        ),
        ("used", "used by instances"),
        ("resv", "kept free for N+1 failovers"),
        ("free", "free"),
        ("over", "beyond the capacity or the limit"),
    ];
    let mut out = String::from(r#"<p class="legend">"#);
    for (class, text) in items {
        let _ = write!(
            out,
            r#"<span><svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" class="{class}"/></svg> {}</span> "#,
            escape(text)
        );
    }
    if ticks {
        out.push_str(r#"<span><svg width="12" height="12" aria-hidden="true"><line x1="0" y1="6" x2="12" y2="6" class="was"/></svg> where the bar stood before the plan</span> "#);
    }
    out.push_str("<span>under a bar: M master, o offline, s standby</span></p>");
    out
}

/// How the bars of `nodes` nodes are binned, when they are.
fn binning_note(nodes: usize) -> String {
    if nodes <= MAX_BARS {
        return String::new();
    }
    format!(
        "<p class=\"note\">{nodes} nodes: each bar is the mean of up to {} nodes, sorted from the fullest (left) to the emptiest (right), each chart sorted on its own; a black line marks the fullest node of a bar. Hover over a bar for its nodes.</p>",
        nodes.div_ceil(MAX_BARS)
    )
}

/// A chart in a figure, with its caption.
fn figure(caption: &str, (svg, extremes): (String, String)) -> String {
    format!(
        "<figure><figcaption>{}</figcaption>{svg}{extremes}</figure>",
        escape(caption)
    )
}

/// A group's section: the four resources before and after, side by side
/// when they fit, and the numbers behind them folded away. `scope` names
/// the nodes in the figures' tables (`data-scope`).
pub fn before_after(
    before: &[&Node],
    after: &[&Node],
    tags: &TagTable,
    scope: &str,
    after_caption: &str,
) -> String {
    let b = shown(before);
    let a = shown_after(before, after);
    let mut out = legend(before.len() <= MAX_BARS);
    out.push_str(&binning_note(before.len()));
    for r in Resource::ALL {
        let _ = write!(
            out,
            "<div class=\"pair\">{}{}</div>",
            figure(
                &format!("{}, before", r.title()),
                chart(&b, r, &format!("{} before", r.title()), None)
            ),
            figure(
                &format!("{}, {after_caption}", r.title()),
                chart(&a, r, &format!("{} {after_caption}", r.title()), Some(&b))
            ),
        );
    }
    out.push_str(&behind(&[
        (
            "before".to_owned(),
            figures(&b, scope, "before"),
            numbers(&b, tags, "before"),
        ),
        (
            after_caption.to_owned(),
            figures(&a, scope, "after"),
            numbers(&a, tags, "after"),
        ),
    ]));
    out
}

/// A group's nodes as they are: the four resources, two to a row when
/// they fit, and the numbers behind them folded away.
pub fn current(nodes: &[&Node], tags: &TagTable, scope: &str) -> String {
    let s = shown(nodes);
    let mut out = legend(false);
    out.push_str(&binning_note(nodes.len()));
    out.push_str(r#"<div class="pair">"#);
    for r in Resource::ALL {
        out.push_str(&figure(r.title(), chart(&s, r, r.title(), None)));
    }
    out.push_str("</div>");
    out.push_str(&behind(&[(
        "as they are".to_owned(),
        figures(&s, scope, "now"),
        numbers(&s, tags, "now"),
    )]));
    out
}

/// The page's styles for the charts.
pub const CSS: &str = "\
.pair{display:flex;flex-wrap:wrap;gap:4px 28px;margin-bottom:8px}\
figure{margin:0}figcaption{font-size:12px;color:#444}\
.node{fill:#8d99ae}.other{fill:#b5838d}.used{fill:#3a86ff}.resv{fill:#ffbe0b}\
.free{fill:#e9ecef}.over{fill:#d90429}.off{fill-opacity:.35}\
.grid{stroke:#ccc;stroke-width:.5}.peak{stroke:#222;stroke-width:1}.was{stroke:#111;stroke-width:1.5}\
.axis{font-size:9px;fill:#666}.mark{font-size:9px;fill:#222}.name{font-size:9px;fill:#222}.name.off{fill:#888}\
.extremes{font-size:11px;color:#444;margin:2px 0 0 34px}\
.legend span{margin-right:12px;font-size:12px;white-space:nowrap}\
.legend svg{vertical-align:middle}\
table.figures td,table.figures th{padding:1px 6px}\
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_keep_the_mean_and_the_peak() {
        let shares: Vec<f64> = (0..250).map(|k| f64::from(k) / 250.0).collect();
        // A bar per share of a 1000-unit capacity.
        let bars: Vec<Bar> = shares.iter().map(|s| capped(s * 1000.0, 1000.0)).collect();
        assert!((bars[100].fill() - 0.4).abs() < 1e-12);
        assert!(bars.iter().all(|b| b.over == 0.0));
        let over = capped(1500.0, 1000.0);
        assert_eq!(
            (over.parts[0].value, over.parts[1].value, over.over),
            (1000.0, 0.0, 500.0)
        );
        assert!((over.fill() - 1.5).abs() < 1e-12);
    }

    /// A memory bar's parts add up to the node's total, whatever the plan
    /// did to its instances' memory.
    #[test]
    fn memory_parts_add_up_to_the_total() {
        let m = |total: f64, used: f64, reserved: f64, unaccounted: f64, node: f64| Figures {
            mem: Amount {
                total,
                used,
                reserved,
                free: total - used,
            },
            mem_parts: super::super::figures::MemoryParts {
                node,
                unaccounted,
                instances: used - node - unaccounted.max(0.0),
            },
            ..Figures::default()
        };
        for (f, over) in [
            (m(4000.0, 2000.0, 1000.0, 0.0, 0.0), 0.0),
            (m(4000.0, 3500.0, 1000.0, 500.0, 100.0), 500.0),
            (m(4000.0, 4500.0, 1000.0, 0.0, 0.0), 1500.0),
            (m(4000.0, 1000.0, 0.0, -1000.0, 0.0), 0.0),
        ] {
            let b = bar(&f, Resource::Memory);
            let sum: f64 = b.parts.iter().map(|p| p.value).sum();
            assert_eq!((sum, b.capacity, b.over), (4000.0, 4000.0, over), "{f:?}");
        }
    }
}
