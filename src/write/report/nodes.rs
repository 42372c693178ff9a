//! A node group's resources as bars: one bar per node for memory, disk,
//! vCPUs and spindles, each split into what uses it, what N+1 keeps and
//! what is free, before and after a plan side by side; and the numbers
//! behind them, as hbal's `-p` node table prints them.
//!
//! A bar's height is its node's capacity, so nodes of every size compare
//! by how full they are. Above [`MAX_BARS`] nodes the bars are bins: the
//! nodes sorted by how full they are, each bar the mean of a run of them,
//! with the fullest node of the run marked.

use std::fmt::Write;

use crate::model::node::Node;
use crate::model::TagTable;
use crate::write::nodes;

use super::svg::{escape, Canvas};

/// The most bars a chart draws before it bins the nodes.
pub const MAX_BARS: usize = 100;

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

/// `n`'s bar for `r`.
fn bar(n: &Node, r: Resource) -> Bar {
    match r {
        Resource::Memory => {
            let total = n.t_mem;
            let free = n.f_mem as f64;
            let other = total - n.n_mem as f64 - n.i_mem as f64 - free;
            let reserved = (n.r_mem as f64).min(free.max(0.0));
            let parts = vec![
                part("node", "node", n.n_mem as f64),
                part("other", "unaccounted", other),
                part("used", "primaries", n.i_mem as f64),
                part("resv", "kept for N+1", reserved),
                part("free", "free", free - n.r_mem as f64),
            ];
            // Negative unaccounted memory (x_mem) makes the parts add up
            // to more than the total: the bar is drawn against their sum.
            let sum: f64 = parts.iter().map(|p| p.value).sum();
            Bar {
                parts,
                capacity: total.max(sum),
                over: (n.r_mem as f64 - free.max(0.0)).max(0.0),
            }
        }
        Resource::Disk => {
            let total = n.t_dsk / 1024.0;
            let free = n.f_dsk as f64 / 1024.0;
            Bar {
                parts: vec![
                    part("used", "instances", total - free),
                    part("free", "free", free),
                ],
                capacity: total,
                over: (-free).max(0.0),
            }
        }
        Resource::Cpu => capped(n.u_cpu as f64, n.t_cpu * n.vcpu_ratio),
        Resource::Spindles => capped(n.inst_spindles, n.hi_spindles),
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

/// How a node is marked under its bar.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Marks {
    pub offline: bool,
    pub master: bool,
    pub standby: bool,
}

impl Marks {
    fn letter(self) -> &'static str {
        if self.offline {
            "o"
        } else if self.master {
            "M"
        } else if self.standby {
            "s"
        } else {
            ""
        }
    }
}

/// A node as the charts see it.
pub struct Shown<'a> {
    pub node: &'a Node,
    pub marks: Marks,
}

/// One drawn bar: a node's, or the mean of a bin of nodes.
struct Drawn {
    label: String,
    fractions: Vec<(Part, f64)>,
    over: f64,
    /// The fullest node's fill, for a bin.
    peak: Option<f64>,
    marks: Marks,
    title: String,
}

fn unit(r: Resource) -> &'static str {
    match r {
        Resource::Memory => " MiB",
        Resource::Disk => " GiB",
        Resource::Cpu => " vCPUs",
        Resource::Spindles => " spindles",
    }
}

fn amount(v: f64, r: Resource) -> String {
    match r {
        Resource::Memory | Resource::Cpu => format!("{:.0}{}", v, unit(r)),
        Resource::Disk | Resource::Spindles => format!("{:.1}{}", v, unit(r)),
    }
}

fn drawn_node(s: &Shown<'_>, r: Resource) -> Drawn {
    let b = bar(s.node, r);
    let cap = b.capacity;
    let frac = |v: f64| if cap > 0.0 { v / cap } else { 0.0 };
    let mut title = format!("{}: {} of {}", s.node.info.name, r.title(), amount(cap, r));
    for p in &b.parts {
        let _ = write!(title, "\n{} {}", p.name, amount(p.value, r));
    }
    if b.over > 0.0 {
        let _ = write!(title, "\nbeyond the capacity {}", amount(b.over, r));
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
    Drawn {
        label: s.node.info.alias().to_owned(),
        fractions: b.parts.iter().map(|p| (*p, frac(p.value))).collect(),
        over: frac(b.over),
        peak: None,
        marks: s.marks,
        title,
    }
}

/// The bars of `nodes` for `r`: one per node, or bins of the nodes sorted
/// by fill (fullest first) when there are more than [`MAX_BARS`].
fn drawn(nodes: &[Shown<'_>], r: Resource) -> Vec<Drawn> {
    if nodes.len() <= MAX_BARS {
        return nodes.iter().map(|s| drawn_node(s, r)).collect();
    }
    let mut order: Vec<(f64, usize)> = nodes
        .iter()
        .enumerate()
        .map(|(k, s)| (bar(s.node, r).fill(), k))
        .collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let per = nodes.len().div_ceil(MAX_BARS);
    order
        .chunks(per)
        .enumerate()
        .map(|(i, chunk)| {
            let bars: Vec<Drawn> = chunk
                .iter()
                .map(|&(_, k)| drawn_node(&nodes[k], r))
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
            if offline > 0 {
                let _ = write!(title, "\n{offline} offline");
            }
            Drawn {
                label: format!("{first}-{last}"),
                fractions,
                over,
                peak: Some(peak),
                marks: Marks {
                    offline: offline == chunk.len(),
                    ..Marks::default()
                },
                title,
            }
        })
        .collect()
}

/// Height of the plot area, and the room under it for the marks.
const PLOT: f64 = 110.0;
const TOP: f64 = 8.0;
const BOTTOM: f64 = 14.0;
const LEFT: f64 = 34.0;

/// One chart: the bars of `nodes` for `r`, captioned `caption`.
fn chart(nodes: &[Shown<'_>], r: Resource, caption: &str) -> String {
    let bars = drawn(nodes, r);
    let step = (560.0 / bars.len().max(1) as f64).clamp(4.0, 16.0);
    let width = LEFT + step * bars.len() as f64 + 8.0;
    let mut c = Canvas::new(width.max(200.0), TOP + PLOT + BOTTOM, caption);
    for (pct, y) in [(100, TOP), (50, TOP + PLOT / 2.0), (0, TOP + PLOT)] {
        c.hline(LEFT - 3.0, LEFT + step * bars.len() as f64, y, "grid");
        c.text(LEFT - 5.0, y + 3.5, "end", "axis", &format!("{pct}%"));
    }
    for (i, b) in bars.iter().enumerate() {
        let x = LEFT + step * i as f64 + 0.5;
        let w = (step - 1.0).max(1.0);
        c.open_group(&b.title, &[("node", b.label.clone())]);
        let mut y = TOP + PLOT;
        for (p, f) in &b.fractions {
            let h = (f.min(1.0)) * PLOT;
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
        c.close_group();
        let letter = b.marks.letter();
        if !letter.is_empty() {
            c.text(x + w / 2.0, TOP + PLOT + 11.0, "middle", "mark", letter);
        }
    }
    c.finish()
}

/// The legend of the bars' colours.
fn legend() -> String {
    let items = [
        ("node", "the node's own memory"),
        ("other", "unaccounted memory"),
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
    out.push_str("<span>under a bar: M master, o offline, s standby</span></p>");
    out
}

/// The columns of the numbers tables: hbal's `-p` fields.
pub const FIELDS: [&str; 18] = [
    "status",
    "name",
    "tmem",
    "nmem",
    "imem",
    "xmem",
    "fmem",
    "umem",
    "rmem",
    "tdsk",
    "fdsk",
    "tcpu",
    "ucpu",
    "pcnt",
    "scnt",
    "spindle_count",
    "inst_spindles",
    "hi_spindles",
];

/// `nodes` as hbal's `-p` prints them, as an HTML table marked `when`.
fn numbers(nodes: &[Shown<'_>], tags: &TagTable, when: &str) -> String {
    let fields: Vec<String> = FIELDS.iter().map(|f| (*f).to_owned()).collect();
    let headers = nodes::headers(&fields);
    let head: Vec<(&str, bool)> = headers.iter().map(|(h, n)| (h.as_str(), *n)).collect();
    let rows: Vec<Vec<String>> = nodes
        .iter()
        .map(|s| {
            nodes::cells(s.node, &fields, tags)
                .iter()
                .map(|v| v.trim().to_owned())
                .collect()
        })
        .collect();
    super::table(
        &format!(r#"class="numbers" data-when="{when}""#),
        &head,
        &rows,
    )
}

/// How the bars of `nodes` nodes are binned, when they are.
fn binning_note(nodes: usize) -> String {
    if nodes <= MAX_BARS {
        return String::new();
    }
    format!(
        "<p class=\"note\">{nodes} nodes: each bar is the mean of up to {} nodes, sorted from the fullest; a black line marks the fullest node of a bar.</p>",
        nodes.div_ceil(MAX_BARS)
    )
}

/// A group's section: the four resources before and after, side by side,
/// and the numbers behind them (hbal's `-p` tables) folded away.
pub fn before_after(
    before: &[Shown<'_>],
    after: &[Shown<'_>],
    tags: &TagTable,
    after_caption: &str,
) -> String {
    let mut out = legend();
    out.push_str(&binning_note(before.len()));
    out.push_str(r#"<div class="pairs">"#);
    let _ = write!(
        out,
        "<div class=\"head\">before</div><div class=\"head\">{}</div>",
        escape(after_caption)
    );
    for r in Resource::ALL {
        let _ = write!(
            out,
            "<figure><figcaption>{t}</figcaption>{}</figure><figure><figcaption>{t}</figcaption>{}</figure>",
            chart(before, r, &format!("{} before", r.title())),
            chart(after, r, &format!("{} {after_caption}", r.title())),
            t = escape(r.title())
        );
    }
    out.push_str("</div>");
    let _ = write!(
        out,
        "<details><summary>The numbers (hbal's -p columns)</summary><h4>before</h4>{}<h4>{}</h4>{}</details>",
        numbers(before, tags, "before"),
        escape(after_caption),
        numbers(after, tags, "after")
    );
    out
}

/// A group's nodes as they are: the four resources, two to a row, and
/// the numbers behind them (hbal's `-p` table) folded away.
pub fn current(nodes: &[Shown<'_>], tags: &TagTable) -> String {
    let mut out = legend();
    out.push_str(&binning_note(nodes.len()));
    out.push_str(r#"<div class="singles">"#);
    for r in Resource::ALL {
        let _ = write!(
            out,
            "<figure><figcaption>{}</figcaption>{}</figure>",
            escape(r.title()),
            chart(nodes, r, r.title()),
        );
    }
    out.push_str("</div>");
    let _ = write!(
        out,
        "<details><summary>The numbers (hbal's -p columns)</summary>{}</details>",
        numbers(nodes, tags, "now")
    );
    out
}

/// The page's styles for the charts.
pub const CSS: &str = "\
.pairs{display:grid;grid-template-columns:repeat(2,max-content);gap:4px 24px}\
.singles{display:grid;grid-template-columns:repeat(2,max-content);gap:4px 24px}\
.pairs .head{font-weight:bold}\
figure{margin:0}figcaption{font-size:12px;color:#444}\
.node{fill:#8d99ae}.other{fill:#c9ada7}.used{fill:#3a86ff}.resv{fill:#ffbe0b}\
.free{fill:#e9ecef}.over{fill:#d90429}.off{fill-opacity:.35}\
.grid{stroke:#ccc;stroke-width:.5}.peak{stroke:#222;stroke-width:1}\
.axis{font-size:9px;fill:#666}.mark{font-size:9px;fill:#222}\
.legend span{margin-right:12px;font-size:12px;white-space:nowrap}\
.legend svg{vertical-align:middle}\
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
}
