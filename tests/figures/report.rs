//! The `--report` pages' node figures read back and held to the
//! recomputed ones: the bars' titles ([`read`]) and, where the page has
//! them, the tables of the figures drawn ([`read_tables`]: `<table
//! class="figures" data-scope=SCOPE data-when=before|after|now>` rows `<tr
//! data-node=NAME data-offline=yes|no data-mem-total=...>`, each held to
//! the state of the charts beside it); [`compare_page`] takes both.
//!
//! Each chart is an `<svg aria-label="RESOURCE STATE">` (STATE:
//! `before`, `after ...`, or nothing on a page of one state) whose nodes
//! are `<g data-node=...>` groups; a node's `<title>` carries its numbers:
//! `NAME: RESOURCE of AMOUNT`, then one `PART AMOUNT` line per part of the
//! bar and a line per mark (`offline`, `master`).
//!
//! What each part must be, from the node's figures: memory — the total,
//! the node's own, the unaccounted memory the node reported (a constant
//! of the node), the primaries', what N+1 keeps within the free memory,
//! the free memory beyond it, and what is kept or used beyond the
//! capacity; disk — the total, what is used, what is free; vCPUs — the
//! policy's limit, the instances' vCPUs, what is free under the limit;
//! spindles — the limit (the spindles themselves under exclusive
//! storage), the instances', what is free.

use std::collections::BTreeMap;

use crate::support::figures::NodeFigures;

use super::Findings;

/// One node's bar on one chart.
#[derive(Debug, Clone)]
pub struct Bar {
    /// The chart's resource title (`Memory (MiB)`, ...).
    pub resource: String,
    /// The chart's state (`before`, `after the plan`, or empty).
    pub state: String,
    pub node: String,
    /// `of AMOUNT`: the capacity drawn.
    pub capacity: String,
    /// Each part's amount by name.
    pub parts: BTreeMap<String, String>,
    pub marks: Vec<String>,
}

const RESOURCES: [&str; 4] = [
    "Memory (MiB)",
    "Disk (GiB)",
    "vCPUs (of the ratio's limit)",
    "Spindles (of the ratio's limit)",
];

pub(super) fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Every node bar of `page`.
pub fn read(page: &str) -> Vec<Bar> {
    let mut bars = Vec::new();
    for chart in page.split("<svg ").skip(1) {
        let chart = &chart[..chart.find("</svg>").unwrap_or(chart.len())];
        let Some(label) = chart
            .split("aria-label=\"")
            .nth(1)
            .and_then(|l| l.split('"').next())
            .map(unescape)
        else {
            continue;
        };
        let Some(resource) = RESOURCES.iter().find(|r| label.starts_with(*r)) else {
            continue;
        };
        let state = label[resource.len()..].trim().to_owned();
        for g in chart.split("<g data-node=\"").skip(1) {
            let Some(title) = g
                .split("<title>")
                .nth(1)
                .and_then(|t| t.split("</title>").next())
                .map(unescape)
            else {
                continue;
            };
            let mut lines = title.lines();
            let head = lines.next().unwrap_or("");
            let (node, rest) = head.split_once(": ").unwrap_or(("", head));
            let capacity = rest
                .strip_prefix(*resource)
                .and_then(|r| r.trim().strip_prefix("of "))
                .unwrap_or("?")
                .to_owned();
            let mut parts = BTreeMap::new();
            let mut marks = Vec::new();
            for line in lines {
                // `NAME AMOUNT UNIT`: the amount is the word before the unit.
                let words: Vec<&str> = line.split(' ').collect();
                if words.len() >= 3 && words[words.len() - 2].parse::<f64>().is_ok() {
                    let name = words[..words.len() - 2].join(" ");
                    parts.insert(name, words[words.len() - 2..].join(" "));
                } else {
                    marks.push(line.to_owned());
                }
            }
            bars.push(Bar {
                resource: (*resource).to_owned(),
                state: state.clone(),
                node: node.to_owned(),
                capacity,
                parts,
                marks,
            });
        }
    }
    bars
}

/// The number of `AMOUNT UNIT`.
fn amount(s: &str) -> f64 {
    s.split(' ')
        .next()
        .and_then(|n| n.parse::<f64>().ok())
        .unwrap_or(f64::NAN)
}

/// The parts a bar must show (name, value, unit), its capacity, and how
/// near a printed value must be (the page's precision).
fn expected(r: &str, n: &NodeFigures) -> (f64, Vec<(&'static str, f64)>, f64) {
    match r {
        "Memory (MiB)" => {
            let free = n.mem_free;
            let kept = n.mem_reserved.min(free.max(0));
            let beyond = (n.mem_reserved - free.max(0)).max(0) + (-free).max(0);
            (
                n.mem_total as f64,
                vec![
                    ("node", n.mem_node as f64),
                    ("unaccounted", n.mem_unaccounted.max(0) as f64),
                    ("primaries", n.mem_instances as f64),
                    ("kept for N+1", kept as f64),
                    ("free", (free - n.mem_reserved).max(0) as f64),
                    ("beyond the capacity", beyond as f64),
                ],
                0.5,
            )
        }
        "Disk (GiB)" => {
            let gib = |v: i64| v as f64 / 1024.0;
            (
                gib(n.dsk_total),
                vec![
                    ("instances", gib(n.dsk_used.max(0))),
                    ("free", gib(n.dsk_free.max(0))),
                    ("beyond the capacity", gib((-n.dsk_free).max(0))),
                ],
                0.05,
            )
        }
        "vCPUs (of the ratio's limit)" => {
            let limit = n.vcpu_limit;
            (
                limit as f64,
                vec![
                    ("node", n.cpu_node as f64),
                    ("instances", n.vcpus_instances as f64),
                    ("free", (limit - n.vcpus_used).max(0) as f64),
                    ("beyond the capacity", (n.vcpus_used - limit).max(0) as f64),
                ],
                0.5,
            )
        }
        _ => {
            let limit = if n.exclusive_storage {
                n.spindles_total as f64
            } else {
                n.spindle_limit
            };
            (
                limit,
                vec![
                    ("instances", n.spindles_used),
                    ("free", (limit - n.spindles_used).max(0.0)),
                    ("beyond the capacity", (n.spindles_used - limit).max(0.0)),
                ],
                0.05,
            )
        }
    }
}

/// Holds the bars of the charts whose state is `state` to `figs` (by full
/// name or alias, `aliases` mapping alias to name): every node of `nodes`
/// has a bar on each resource, and each bar's numbers are the node's.
pub fn compare(
    f: &mut Findings,
    at: &str,
    bars: &[Bar],
    state: &str,
    figs: &BTreeMap<String, NodeFigures>,
    aliases: &BTreeMap<String, String>,
    nodes: &[String],
) {
    let shown: Vec<&Bar> = bars.iter().filter(|b| b.state == state).collect();
    for r in RESOURCES {
        let mut drawn: Vec<String> = shown
            .iter()
            .filter(|b| b.resource == r)
            .map(|b| {
                aliases
                    .get(&b.node)
                    .cloned()
                    .unwrap_or_else(|| b.node.clone())
            })
            .collect();
        drawn.sort();
        drawn.dedup();
        let mut want = nodes.to_vec();
        want.sort();
        f.same(at, &format!("the nodes drawn on {r} {state}"), drawn, want);
    }
    for b in shown {
        let name = aliases
            .get(&b.node)
            .cloned()
            .unwrap_or_else(|| b.node.clone());
        let Some(n) = figs.get(&name) else {
            f.fault(
                at,
                format!(
                    "{r} {state}: a bar for unknown node {}",
                    b.node,
                    r = b.resource
                ),
            );
            continue;
        };
        let at = format!("{at}: {} {state}: node {name}", b.resource);
        let (capacity, parts, tolerance) = expected(&b.resource, n);
        let tolerance = tolerance + 1e-6;
        f.near(
            &at,
            "of (capacity)",
            amount(&b.capacity),
            capacity,
            tolerance,
        );
        // A part by its name or the other name it may have.
        let printed = |part: &str| {
            let other = match part {
                "unaccounted" => "reported beyond instances",
                "instances" => "used",
                _ => part,
            };
            b.parts
                .get(part)
                .or_else(|| b.parts.get(other))
                .map_or(0.0, |v| amount(v))
        };
        // An overcommitted node (more in use than its total): what is used
        // may be drawn up to the capacity, the rest beyond it (compared
        // alone); then the parts drawn fill the capacity.
        let over = b.resource == "Memory (MiB)" && n.mem_free < 0;
        if over {
            let drawn: f64 = ["node", "unaccounted", "primaries", "kept for N+1", "free"]
                .iter()
                .map(|p| printed(p))
                .sum();
            f.near(
                &at,
                "the parts drawn (overcommitted: the capacity)",
                drawn,
                capacity,
                3.0 * tolerance,
            );
        }
        // vCPUs drawn as `used` (the instances' with the node's own) rather
        // than `node` and `instances`.
        let cpu_used = b.resource.starts_with("vCPUs")
            && b.parts.contains_key("used")
            && !b.parts.contains_key("instances");
        let parts: Vec<(&str, f64)> = if cpu_used {
            parts
                .into_iter()
                .filter(|(p, _)| *p != "node")
                .map(|(p, w)| {
                    if p == "instances" {
                        (p, n.vcpus_used as f64)
                    } else {
                        (p, w)
                    }
                })
                .collect()
        } else {
            parts
        };
        for (part, want) in parts {
            // What instances use beyond the capacity may be drawn up to it,
            // the rest as beyond the capacity (which is compared alone).
            let capped = part == "instances"
                && want > capacity
                && (printed(part) - capacity).abs() <= tolerance;
            let drawn_up_to = over
                && matches!(part, "node" | "unaccounted" | "primaries")
                && printed(part) <= want + tolerance;
            if !capped && !drawn_up_to {
                f.near(&at, part, printed(part), want, tolerance);
            }
        }
        for part in b.parts.keys() {
            if !matches!(
                part.as_str(),
                "node"
                    | "unaccounted"
                    | "reported beyond instances"
                    | "primaries"
                    | "kept for N+1"
                    | "free"
                    | "beyond the capacity"
                    | "instances"
                    | "used"
            ) {
                f.fault(
                    &at,
                    format!("a part named {part:?} this test does not know"),
                );
            }
        }
        f.same(
            &at,
            "offline mark",
            b.marks.iter().any(|m| m == "offline"),
            n.offline,
        );
        f.same(
            &at,
            "master mark",
            b.marks.iter().any(|m| m == "master"),
            n.master,
        );
        f.same(
            &at,
            "standby mark",
            b.marks.iter().any(|m| m == "standby"),
            n.standby,
        );
    }
}

/// One row of a page's figures table: the state it shows (`data-when`),
/// the node, whether it is offline, and its figures by key (`mem-total`,
/// ...).
#[derive(Debug, Clone)]
pub struct Row {
    /// The table's `data-when` (`before`, `after` or `now`); [`compare_page`]
    /// puts the state of its charts in its place.
    pub when: String,
    /// The table's `data-scope` (the group, `cluster`, or `MODEL-PHASE`
    /// on hailstone-space's page).
    pub scope: String,
    pub node: String,
    pub offline: Option<bool>,
    pub values: BTreeMap<String, f64>,
}

/// The attributes of an opening tag (`name="value"` pairs).
fn attributes(tag: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rest = tag;
    while let Some(eq) = rest.find("=\"") {
        let name = rest[..eq].rsplit(' ').next().unwrap_or("").to_owned();
        let after = &rest[eq + 2..];
        let Some(close) = after.find('"') else { break };
        out.insert(name, unescape(&after[..close]));
        rest = &after[close + 1..];
    }
    out
}

/// Every row of every figures table of `page`.
pub fn read_tables(page: &str) -> Vec<Row> {
    let mut rows = Vec::new();
    for table in page.split("<table class=\"figures\"").skip(1) {
        let head = &table[..table.find('>').unwrap_or(0)];
        let head = attributes(head);
        let when = head.get("data-when").cloned().unwrap_or_default();
        let scope = head.get("data-scope").cloned().unwrap_or_default();
        let body = &table[..table.find("</table>").unwrap_or(table.len())];
        for tr in body.split("<tr ").skip(1) {
            let attrs = attributes(&tr[..tr.find('>').unwrap_or(0)]);
            let Some(node) = attrs.get("data-node") else {
                continue;
            };
            let values = attrs
                .iter()
                .filter_map(|(k, v)| {
                    let key = k.strip_prefix("data-")?;
                    (key != "node" && key != "offline")
                        .then(|| (key.to_owned(), v.parse().unwrap_or(f64::NAN)))
                })
                .collect();
            rows.push(Row {
                when: when.clone(),
                scope: scope.clone(),
                node: node.clone(),
                offline: attrs.get("data-offline").map(|v| v == "yes"),
                values,
            });
        }
    }
    rows
}

/// What a figures table row must hold, by key (MiB, vCPUs, spindles).
fn expected_row(n: &NodeFigures) -> Vec<(&'static str, f64)> {
    let (spn_total, spn_used) = if n.exclusive_storage {
        (n.spindles_total as f64, n.spindles_used)
    } else {
        (n.spindle_limit, n.spindles_used)
    };
    vec![
        ("mem-total", n.mem_total as f64),
        (
            "mem-used",
            (n.mem_node + n.mem_unaccounted.max(0) + n.mem_instances) as f64,
        ),
        ("mem-reserved", n.mem_reserved as f64),
        ("mem-free", n.mem_free as f64),
        ("mem-node", n.mem_node as f64),
        ("mem-unaccounted", n.mem_unaccounted as f64),
        ("mem-instances", n.mem_instances as f64),
        ("dsk-total", n.dsk_total as f64),
        ("dsk-used", n.dsk_used as f64),
        ("dsk-reserved", 0.0),
        ("dsk-free", n.dsk_free as f64),
        ("cpu-total", n.vcpu_ratio_limit),
        ("cpu-used", n.vcpus_used as f64),
        ("cpu-reserved", 0.0),
        ("cpu-free", n.vcpu_ratio_limit - n.vcpus_used as f64),
        ("spn-total", spn_total),
        ("spn-used", spn_used),
        ("spn-reserved", 0.0),
        ("spn-free", spn_total - spn_used),
    ]
}

/// Holds the figures table rows of `state` to `figs`: a row for every
/// node of `nodes`, each figure the recomputed one (within a millionth:
/// the page writes them in full).
pub fn compare_rows(
    f: &mut Findings,
    at: &str,
    rows: &[Row],
    state: &str,
    figs: &BTreeMap<String, NodeFigures>,
    nodes: &[String],
) {
    let shown: Vec<&Row> = rows.iter().filter(|r| r.when == state).collect();
    let mut listed: Vec<String> = shown.iter().map(|r| r.node.clone()).collect();
    listed.sort();
    listed.dedup();
    let mut want = nodes.to_vec();
    want.sort();
    f.same(
        at,
        &format!("the nodes of the figures table {state}"),
        listed,
        want,
    );
    for r in shown {
        let Some(n) = figs.get(&r.node) else {
            f.fault(
                at,
                format!("figures table {state}: unknown node {}", r.node),
            );
            continue;
        };
        let at = format!("{at}: figures table {state}: node {}", r.node);
        f.same(&at, "data-offline", r.offline, Some(n.offline));
        for (key, want) in expected_row(n) {
            match r.values.get(key) {
                Some(v) => f.near(&at, key, *v, want, 1e-6 * want.abs().max(1.0)),
                None => f.fault(&at, format!("no data-{key}")),
            }
        }
    }
}

/// Reads the report page of a plan at `path` and holds it to the
/// figures: the state before the plan (or the only one) and the state
/// after it.
pub fn compare_plan_page(
    f: &mut Findings,
    at: &str,
    path: &std::path::Path,
    before: &BTreeMap<String, NodeFigures>,
    after: &BTreeMap<String, NodeFigures>,
    aliases: &BTreeMap<String, String>,
    nodes: &[String],
) {
    let Some(page) = super::read(path) else {
        f.fault(at, "no report page".to_owned());
        return;
    };
    f.count("report pages");
    let figs_of = |state: &str| {
        Some(if state == "before" || state.is_empty() {
            before
        } else {
            after
        })
    };
    compare_page(f, at, &page, &figs_of, aliases, nodes);
}

/// Holds a page's node figures to the recomputed ones: its bars and its
/// figures tables. `figs_of` gives the figures of a state the page shows
/// (`before`, `after the plan`, empty on a page of one state); a state it
/// does not know is a fault.
pub fn compare_page<'a>(
    f: &mut Findings,
    at: &str,
    page: &str,
    figs_of: &dyn Fn(&str) -> Option<&'a BTreeMap<String, NodeFigures>>,
    aliases: &BTreeMap<String, String>,
    nodes: &[String],
) {
    let at = format!("{at}: --report");
    let bars = read(page);
    let mut rows = read_tables(page);
    // A table's rows are the figures of the charts beside it: `now` a
    // page of one state's, `after` the one state after the plan, or on
    // hailstone-space's page the phase its scope (`MODEL-PHASE`) names.
    let after: Vec<&str> = {
        let mut v: Vec<&str> = bars
            .iter()
            .map(|b| b.state.as_str())
            .filter(|s| s.starts_with("after"))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    for r in &mut rows {
        let phase = r.scope.rsplit('-').next().unwrap_or("");
        let state = match r.when.as_str() {
            "now" => Some(""),
            "after" if after.len() == 1 => Some(after[0]),
            "after" => after
                .iter()
                .copied()
                .find(|s| s.split(' ').any(|w| w == phase)),
            _ => None,
        };
        if let Some(state) = state {
            r.when = state.to_owned();
        }
    }
    let mut states: Vec<String> = bars
        .iter()
        .map(|b| b.state.clone())
        .chain(rows.iter().map(|r| r.when.clone()))
        .collect();
    states.sort();
    states.dedup();
    if bars.is_empty() && rows.is_empty() && !nodes.is_empty() {
        f.fault(&at, "no node figures on the page".to_owned());
    }
    for state in states {
        let Some(figs) = figs_of(&state) else {
            f.fault(&at, format!("a state this test does not know: {state:?}"));
            continue;
        };
        if bars.iter().any(|b| b.state == state) {
            compare(f, &at, &bars, &state, figs, aliases, nodes);
        }
        if rows.iter().any(|r| r.when == state) {
            f.count("figures tables");
            compare_rows(f, &at, &rows, &state, figs, nodes);
        }
    }
}
