//! `hailstone-groups` check, repair, compress (`--evacuate`) and balance:
//! each group's health (its offline nodes hosting instances, its nodes
//! failing N+1 with their free and needed memory, its instances split
//! across groups) in the text, `--json`
//! and `--explain`, before the plan and after it (`-S FILE.repaired`);
//! compress's capacities (total, used, free memory, disk and vCPUs of the
//! cluster and of each group); the saved states; the report pages' bars.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::support::figures::{self, NodeFigures};
use crate::support::plan::{self, Cluster};

use super::explain::{int, scan};
use super::{
    aliases, check_original, check_replay, check_saved, commands, read, report, run, Case, Findings,
};

/// A group's health: its offline nodes hosting instances (with their
/// primary and secondary counts), its online nodes failing N+1 (with the
/// free and needed memory the verdict compared: Ganeti 3.0.2 reads a
/// node's reported free memory), and its split instances (primary in the
/// group, secondary in another: instance, secondary node, its group; in
/// the order of the data file).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Health {
    pub offline_hosting: Vec<(String, usize, usize)>,
    pub n1_failing: Vec<(String, i64, i64)>,
    pub split: Vec<(String, String, String)>,
}

impl Health {
    pub fn status(&self) -> &'static str {
        if !self.offline_hosting.is_empty() {
            "unhealthy"
        } else if !self.n1_failing.is_empty() || !self.split.is_empty() {
            "weakly unhealthy"
        } else {
            "healthy"
        }
    }
}

/// The health of every group with nodes, by group name, in node order;
/// `n1` is each node's N+1 verdict in this state.
pub fn health(
    state: &Cluster,
    figs: &BTreeMap<String, NodeFigures>,
    n1: &BTreeMap<String, bool>,
) -> BTreeMap<String, Health> {
    let mut out: BTreeMap<String, Health> = BTreeMap::new();
    for name in &state.node_order {
        let n = &figs[name];
        let h = out.entry(n.group.clone()).or_default();
        if n.offline {
            if !n.primaries.is_empty() || !n.secondaries.is_empty() {
                h.offline_hosting
                    .push((name.clone(), n.primaries.len(), n.secondaries.len()));
            }
        } else if n1[name] {
            h.n1_failing
                .push((name.clone(), n.mem_reported_free, n.mem_reserved));
        }
    }
    // Split instances (real ones: the nodes list no forthcoming instance).
    let secondary: BTreeMap<&str, &NodeFigures> = figs
        .values()
        .flat_map(|n| n.secondaries.iter().map(move |i| (i.as_str(), n)))
        .collect();
    let primary: BTreeMap<&str, &NodeFigures> = figs
        .values()
        .flat_map(|n| n.primaries.iter().map(move |i| (i.as_str(), n)))
        .collect();
    for inst in &state.inst_order {
        let (Some(p), Some(s)) = (primary.get(inst.as_str()), secondary.get(inst.as_str())) else {
            continue;
        };
        if p.group != s.group {
            out.entry(p.group.clone()).or_default().split.push((
                inst.clone(),
                s.name.clone(),
                s.group.clone(),
            ));
        }
    }
    out
}

/// Names as hailstone-groups lists many: up to five, then `and N more`.
fn some_names(names: &[&str]) -> String {
    match names.len() {
        n if n <= 5 => names.join(", "),
        n => format!("{} and {} more", names[..5].join(", "), n - 5),
    }
}

/// The split instances' names.
fn split_names(h: &Health) -> Vec<&str> {
    h.split.iter().map(|x| x.0.as_str()).collect()
}

/// Each node's N+1 verdict as Ganeti 3.0.2 gives it when it loads a
/// cluster (the reported free memory below the reservation).
pub fn loaded_verdicts(figs: &BTreeMap<String, NodeFigures>) -> BTreeMap<String, bool> {
    figs.iter()
        .map(|(k, n)| (k.clone(), n.n1_fail_loaded))
        .collect()
}

/// Each node's N+1 verdict after a plan: recomputed (free memory at most
/// the reservation) on the nodes whose instances changed, as loaded on
/// the others.
pub fn after_verdicts(
    before: &BTreeMap<String, NodeFigures>,
    after: &BTreeMap<String, NodeFigures>,
) -> BTreeMap<String, bool> {
    let touched = figures::touched(before, after);
    after
        .iter()
        .map(|(k, n)| {
            let v = if touched.contains(k) {
                n.n1_fail
            } else {
                before.get(k).map_or(n.n1_fail, |b| b.n1_fail_loaded)
            };
            (k.clone(), v)
        })
        .collect()
}

/// A group health object of the JSON (`{"group", "status",
/// "offline_nodes_hosting", "nodes_failing_n1"}`) against `h`.
fn json_health(f: &mut Findings, at: &str, v: &Value, h: &Health) {
    f.same(
        at,
        "status",
        v["status"].as_str().unwrap_or("?"),
        h.status(),
    );
    let mut offline: Vec<String> = v["offline_nodes_hosting"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|x| x.as_str().unwrap_or("?").to_owned())
                .collect()
        })
        .unwrap_or_default();
    offline.sort();
    let mut want: Vec<String> = h
        .offline_hosting
        .iter()
        .map(|(n, _, _)| n.clone())
        .collect();
    want.sort();
    f.same(at, "offline nodes hosting instances", offline, want);
    let mut n1: Vec<(String, i64, i64)> = v["nodes_failing_n1"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|x| {
                    (
                        x["node"].as_str().unwrap_or("?").to_owned(),
                        x["free_memory"].as_i64().unwrap_or(i64::MIN),
                        x["needed_memory"].as_i64().unwrap_or(i64::MIN),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    n1.sort();
    let mut want = h.n1_failing.clone();
    want.sort();
    f.same(
        at,
        "nodes failing N+1 (node, free_memory, needed_memory)",
        n1,
        want,
    );
    let split: Vec<(String, String, String)> = v["split_instances"]
        .as_array()
        .map(|a| {
            let text = |x: &Value, k: &str| x[k].as_str().unwrap_or("?").to_owned();
            a.iter()
                .map(|x| {
                    (
                        text(x, "instance"),
                        text(x, "secondary"),
                        text(x, "secondary_group"),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    f.same(
        at,
        "split instances (instance, secondary, secondary_group)",
        split,
        h.split.clone(),
    );
}

/// The `--explain` text's health blocks: `Group G is|was STATUS` and its
/// node lines, by group.
fn explain_health(text: &str) -> (BTreeMap<String, (String, Health)>, Vec<String>) {
    let mut out: BTreeMap<String, (String, Health)> = BTreeMap::new();
    let mut unread = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let head = scan("Group {} is {}", line).or_else(|| scan("Group {} was {}", line));
        if let Some(v) = head.filter(|v| !v[0].contains(' ')) {
            current = Some(v[0].to_owned());
            out.insert(v[0].to_owned(), (v[1].to_owned(), Health::default()));
            continue;
        }
        let Some(g) = current.as_ref() else {
            continue;
        };
        if let Some(v) = scan(
            "  node {} fails N+1: {} MiB free for instances, {} MiB needed to take over its largest peer's instances",
            line,
        ) {
            let h = &mut out.get_mut(g).expect("the group").1;
            h.n1_failing.push((
                v[0].to_owned(),
                int(v[1]).unwrap_or(i64::MIN),
                int(v[2]).unwrap_or(i64::MIN),
            ));
        } else if let Some(v) = scan(
            "  node {} is offline and hosts instances ({} primary, {} secondary)",
            line,
        ) {
            let h = &mut out.get_mut(g).expect("the group").1;
            let count = |x: &str| x.parse().unwrap_or(usize::MAX);
            h.offline_hosting
                .push((v[0].to_owned(), count(v[1]), count(v[2])));
        } else if let Some(v) = scan(
            "  instance {} is split across groups: its secondary is on {} of group {}",
            line,
        ) {
            let h = &mut out.get_mut(g).expect("the group").1;
            h.split
                .push((v[0].to_owned(), v[1].to_owned(), v[2].to_owned()));
        } else if line.starts_with("  node ") || line.starts_with("  instance ") {
            unread.push(line.to_owned());
        } else if !line.starts_with("  ") {
            current = None;
        }
    }
    (out, unread)
}

/// The explanation's block of group `g` against its health `h`.
fn compare_explained(f: &mut Findings, at: &str, got: &(String, Health), h: &Health) {
    f.same(at, "status", got.0.as_str(), h.status());
    let mut offline = got.1.offline_hosting.clone();
    offline.sort();
    let mut want = h.offline_hosting.clone();
    want.sort();
    f.same(
        at,
        "offline nodes hosting instances (node, primaries, secondaries)",
        offline,
        want,
    );
    f.same(
        at,
        "split instances (instance, secondary, its group)",
        got.1.split.clone(),
        h.split.clone(),
    );
    let mut n1 = got.1.n1_failing.clone();
    n1.sort();
    let mut want = h.n1_failing.clone();
    want.sort();
    f.same(
        at,
        "nodes failing N+1 (node, MiB free for instances, MiB needed)",
        n1,
        want,
    );
}

/// The text's `Group health:` table: each group's status and reason.
fn text_health(stdout: &str) -> BTreeMap<String, (String, String)> {
    let mut out = BTreeMap::new();
    let Some(start) = stdout.find("Group health:\n") else {
        return out;
    };
    for line in stdout[start..].lines().skip(1) {
        let Some(rest) = line.strip_prefix("  ") else {
            break;
        };
        let Some((group, rest)) = rest.split_once(' ') else {
            continue;
        };
        let rest = rest.trim_start();
        let status = ["weakly unhealthy", "unhealthy", "healthy"]
            .into_iter()
            .find(|s| rest.starts_with(s))
            .unwrap_or("?");
        let reason = rest[status.len().min(rest.len())..].trim().to_owned();
        out.insert(group.to_owned(), (status.to_owned(), reason));
    }
    out
}

/// The reason a health line gives, from the health.
fn reason_of(h: &Health) -> Vec<String> {
    let mut parts = Vec::new();
    if !h.offline_hosting.is_empty() {
        let hosts: Vec<String> = h
            .offline_hosting
            .iter()
            .map(|(n, p, s)| format!("{n} ({p} primary, {s} secondary)"))
            .collect();
        parts.push(format!(
            "offline nodes hosting instances: {}",
            hosts.join(", ")
        ));
    }
    if !h.n1_failing.is_empty() {
        let nodes: Vec<&str> = h.n1_failing.iter().map(|x| x.0.as_str()).collect();
        parts.push(format!("nodes failing N+1: {}", nodes.join(", ")));
    }
    if !h.split.is_empty() {
        parts.push(format!(
            "instances split across groups (secondary in another group): {}",
            some_names(&split_names(h))
        ));
    }
    parts
}

fn compare_text_health(
    f: &mut Findings,
    at: &str,
    stdout: &str,
    health: &BTreeMap<String, Health>,
) {
    let table = text_health(stdout);
    f.same(
        at,
        "the groups of the health table",
        table.keys().cloned().collect::<Vec<_>>(),
        health.keys().cloned().collect::<Vec<_>>(),
    );
    for (g, (status, reason)) in &table {
        let Some(h) = health.get(g) else { continue };
        let at = format!("{at}: Group health: {g}");
        f.same(&at, "status", status.as_str(), h.status());
        let parts: Vec<String> = reason
            .split("; ")
            .filter(|p| !p.is_empty() && !p.starts_with("alone in its storage"))
            .map(str::to_owned)
            .collect();
        f.same(&at, "reason (nodes and counts)", parts, reason_of(h));
    }
}

/// The capacities of a set of nodes as hailstone-groups' compression
/// counts them: online nodes' total, free and used memory (free for
/// instances; used by the primaries), disk and vCPUs (the policy's limit,
/// the vCPUs in use with the node's own); an offline node's primaries'
/// memory as used.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Usage {
    total: [i64; 3],
    used: [i64; 3],
    free: [i64; 3],
}

fn usage<'a>(nodes: impl Iterator<Item = &'a NodeFigures>) -> Usage {
    let mut u = Usage::default();
    for n in nodes {
        if n.offline {
            u.used[0] += n.mem_instances;
            continue;
        }
        let add = |a: &mut [i64; 3], v: [i64; 3]| {
            for k in 0..3 {
                a[k] += v[k];
            }
        };
        add(&mut u.total, [n.mem_total, n.dsk_total, n.vcpu_limit]);
        add(&mut u.used, [n.mem_instances, n.dsk_used, n.vcpus_used]);
        add(
            &mut u.free,
            [n.mem_free, n.dsk_free, n.vcpu_limit - n.vcpus_used],
        );
    }
    u
}

fn json_triple(v: &Value) -> [i64; 3] {
    [
        v["memory"].as_i64().unwrap_or(i64::MIN),
        v["disk"].as_i64().unwrap_or(i64::MIN),
        v["vcpus"].as_i64().unwrap_or(i64::MIN),
    ]
}

fn json_usage(v: &Value) -> Usage {
    Usage {
        total: json_triple(&v["total"]),
        used: json_triple(&v["used"]),
        free: json_triple(&v["free"]),
    }
}

fn triple(v: &[&str]) -> [i64; 3] {
    [
        int(v[0]).unwrap_or(i64::MIN),
        int(v[1]).unwrap_or(i64::MIN),
        int(v[2]).unwrap_or(i64::MIN),
    ]
}

/// compress's figures in the text and the document.
fn compare_compress(
    f: &mut Findings,
    at: &str,
    stdout: &str,
    doc: &Value,
    figs: &BTreeMap<String, NodeFigures>,
) {
    let cluster = usage(figs.values());
    let mut groups: BTreeMap<String, Usage> = BTreeMap::new();
    for g in figs.values().map(|n| n.group.clone()) {
        groups
            .entry(g.clone())
            .or_insert_with(|| usage(figs.values().filter(|n| n.group == g)));
    }
    // The document.
    let report = &doc["report"];
    f.same(
        at,
        "json cluster capacity",
        json_usage(&report["cluster"]),
        cluster,
    );
    for g in report["groups"].as_array().into_iter().flatten() {
        let name = g["group"].as_str().unwrap_or("?");
        match groups.get(name) {
            Some(u) => f.same(
                at,
                &format!("json group {name} capacity"),
                json_usage(&g["usage"]),
                *u,
            ),
            None => f.fault(at, format!("json names group {name}, which has no node")),
        }
    }
    for c in report["not_candidates"].as_array().into_iter().flatten() {
        let why = c["why"].as_str().unwrap_or("");
        check_too_big(
            f,
            &format!("{at}: json not_candidates"),
            c["group"].as_str().unwrap_or("?"),
            why,
            &groups,
            &cluster,
        );
    }
    // The text.
    let lines: Vec<&str> = stdout.lines().collect();
    let mut seen = 0;
    for (k, line) in lines.iter().enumerate() {
        if let Some(v) = scan(
            "Super cluster: total memory {} MiB, disk {} MiB, {} vCPUs",
            line,
        ) {
            seen += 1;
            f.same(at, "text super cluster total", triple(&v), cluster.total);
            let free = lines.get(k + 1).and_then(|l| {
                scan(
                    "               free  memory {} MiB, disk {} MiB, {} vCPUs",
                    l,
                )
            });
            match free {
                Some(v) => f.same(at, "text super cluster free", triple(&v), cluster.free),
                None => f.fault(
                    at,
                    "no `free memory ...` line after the super cluster's total".to_owned(),
                ),
            }
        } else if let Some(v) = scan("Group {} is not a candidate: {}", line) {
            check_too_big(f, &format!("{at}: text"), v[0], v[1], &groups, &cluster);
        } else if let Some(v) = scan(
            "Emptying group {} (frees the most: memory {} MiB, disk {} MiB, {} vCPUs):",
            line,
        ) {
            match groups.get(v[0]) {
                Some(u) => f.same(
                    at,
                    &format!("text group {} frees", v[0]),
                    triple(&v[1..]),
                    u.total,
                ),
                None => f.fault(at, format!("text empties unknown group {}", v[0])),
            }
        }
    }
    f.same(at, "super cluster lines in the text", seen, 1);
    // The table: `  Group t_mem used_mem free_mem t_dsk used_dsk free_dsk t_cpu u_cpu f_cpu`.
    let mut rows = 0;
    if let Some(start) = lines
        .iter()
        .position(|l| l.trim_start().starts_with("Group ") && l.contains("t_mem"))
    {
        for line in &lines[start + 1..] {
            let w: Vec<&str> = line.split_whitespace().collect();
            if !line.starts_with("  ") || w.len() != 10 {
                break;
            }
            rows += 1;
            let n: Vec<i64> = w[1..].iter().map(|x| int(x).unwrap_or(i64::MIN)).collect();
            let got = Usage {
                total: [n[0], n[3], n[6]],
                used: [n[1], n[4], n[7]],
                free: [n[2], n[5], n[8]],
            };
            match groups.get(w[0]) {
                Some(u) => f.same(at, &format!("text table group {}", w[0]), got, *u),
                None => f.fault(at, format!("text table names unknown group {}", w[0])),
            }
        }
    }
    f.same(at, "rows of the text's group table", rows, groups.len());
}

/// `it uses memory X MiB, disk Y MiB, Z vCPUs but the other groups have
/// memory A MiB, disk B MiB, C vCPUs free`: the group's use and the other
/// groups' free capacity.
fn check_too_big(
    f: &mut Findings,
    at: &str,
    group: &str,
    why: &str,
    groups: &BTreeMap<String, Usage>,
    cluster: &Usage,
) {
    let Some(v) = scan(
        "it uses memory {} MiB, disk {} MiB, {} vCPUs but the other groups have memory {} MiB, disk {} MiB, {} vCPUs free",
        why,
    ) else {
        return;
    };
    let Some(u) = groups.get(group) else {
        f.fault(at, format!("group {group} has no node"));
        return;
    };
    f.same(at, &format!("group {group} uses"), triple(&v[..3]), u.used);
    let others = [
        cluster.free[0] - u.free[0],
        cluster.free[1] - u.free[1],
        cluster.free[2] - u.free[2],
    ];
    f.same(
        at,
        &format!("the groups other than {group} have free"),
        triple(&v[3..]),
        others,
    );
}

fn one(f: &mut Findings, dir: &Path, case: &Case, k: usize, op: &str) {
    let at = format!("hailstone-groups {op} -t {}", case.name);
    let file = case.path.to_str().expect("a path");
    let base = dir.join(format!("c{k}-{op}"));
    let save = base.to_str().expect("a path").to_owned();
    let (explain, page) = (format!("{save}.explain"), format!("{save}.html"));
    let mut args = vec![op, "-t", file];
    if op == "compress" {
        args.push("--evacuate");
    }
    let text = run(
        "hailstone-groups",
        &[
            args.as_slice(),
            &[
                "-S",
                &save,
                &format!("--explain={explain}"),
                &format!("--report={page}"),
            ],
        ]
        .concat(),
    );
    if text.refused() {
        f.count("refused");
        return;
    }
    let json = run("hailstone-groups", &[args.as_slice(), &["--json"]].concat());
    let Ok(doc) = serde_json::from_str::<Value>(&json.stdout) else {
        if text.code != 0 && json.code != 0 {
            // Refused with the text too (after some of it).
            f.count("refused");
        } else {
            f.fault(&at, format!("no JSON document: {}", json.stderr));
        }
        return;
    };
    f.count("runs");
    let input = plan::parse(&case.text);
    let before = figures::initial(&input);
    let names = aliases(&input);
    let before_health = health(&input, &before, &loaded_verdicts(&before));
    // The states saved.
    let Some(original) = read(Path::new(&format!("{save}.original"))) else {
        f.fault(&at, "no FILE.original".to_owned());
        return;
    };
    check_original(
        f,
        &format!("{at}: {save}.original"),
        &plan::parse(&original),
        &input,
    );
    let suffix = match op {
        "repair" => Some("repaired"),
        "compress" => Some("compressed"),
        "balance" => Some("balanced"),
        _ => None,
    };
    let saved = suffix.and_then(|s| read(Path::new(&format!("{save}.{s}"))));
    let after_state = match &saved {
        Some(s) => {
            f.count("plans");
            let s = plan::parse(s);
            check_saved(f, &format!("{at}: saved after the plan"), &s, &input);
            check_replay(
                f,
                &format!("{at}: --json moves"),
                &input,
                &commands(&doc),
                &s,
            );
            s
        }
        None => input.clone(),
    };
    let after = figures::figures(&after_state, &input);
    let after_health = health(&after_state, &after, &after_verdicts(&before, &after));
    let explained = std::fs::read_to_string(&explain).unwrap_or_default();
    match op {
        "check" => {
            compare_text_health(f, &at, &text.stdout, &before_health);
            let groups = doc["report"]["groups"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            f.same(&at, "json groups", groups.len(), before_health.len());
            for g in &groups {
                let name = g["group"].as_str().unwrap_or("?");
                match before_health.get(name) {
                    Some(h) => json_health(f, &format!("{at}: json group {name}"), g, h),
                    None => f.fault(&at, format!("json group {name} has no node")),
                }
            }
            let (blocks, unread) = explain_health(&explained);
            for l in unread {
                f.fault(
                    &at,
                    format!("an --explain node line of no known shape: {l:?}"),
                );
            }
            f.same(
                &at,
                "explained groups",
                blocks.keys().cloned().collect::<Vec<_>>(),
                before_health.keys().cloned().collect::<Vec<_>>(),
            );
            for (g, got) in &blocks {
                if let Some(h) = before_health.get(g) {
                    compare_explained(f, &format!("{at}: --explain group {g}"), got, h);
                }
            }
        }
        "repair" => {
            compare_text_health(f, &at, &text.stdout, &before_health);
            for r in doc["report"]["repairs"].as_array().into_iter().flatten() {
                let g = r["before"]["group"].as_str().unwrap_or("?");
                f.count("repairs");
                match before_health.get(g) {
                    Some(h) => json_health(
                        f,
                        &format!("{at}: json repairs[{g}].before"),
                        &r["before"],
                        h,
                    ),
                    None => f.fault(&at, format!("json repair of group {g} with no node")),
                }
                if r["repaired"].as_bool() == Some(true) {
                    let h = after_health.get(g).cloned().unwrap_or_default();
                    f.same(
                        &at,
                        &format!("json: group {g} repaired: its health after the plan"),
                        h.status(),
                        "healthy",
                    );
                }
            }
            let (blocks, unread) = explain_health(&explained);
            for l in unread {
                f.fault(
                    &at,
                    format!("an --explain node line of no known shape: {l:?}"),
                );
            }
            for (g, got) in &blocks {
                match before_health.get(g) {
                    Some(h) => {
                        compare_explained(f, &format!("{at}: --explain group {g} (before)"), got, h)
                    }
                    None => f.fault(&at, format!("--explain names group {g} with no node")),
                }
            }
            for line in text.stdout.lines() {
                if let Some(v) = scan("  repaired: group {} is healthy after {} moves", line) {
                    let h = after_health.get(v[0]).cloned().unwrap_or_default();
                    f.same(&at, &format!("text: group {} repaired: its health after the plan", v[0]), h.status(), "healthy");
                } else if let Some(v) = scan(
                    "  no repair: after moving the {} instances that could move, the group stays {} ({})",
                    line,
                ) {
                    // The group named in the block's heading.
                    let heading = text.stdout[..text.stdout.find(line).unwrap_or(0)]
                        .lines()
                        .rev()
                        .find_map(|l| scan("Group {} ({}):", l).map(|h| h[0].to_owned()));
                    if let Some(g) = heading {
                        let h = after_health.get(&g).cloned().unwrap_or_default();
                        f.same(&at, &format!("text: group {g} not repaired: its status after the plan"), v[1], h.status());
                        let mut want = Vec::new();
                        if !h.offline_hosting.is_empty() {
                            let n: Vec<&str> = h.offline_hosting.iter().map(|x| x.0.as_str()).collect();
                            want.push(format!("offline nodes still hosting instances: {}", n.join(", ")));
                        }
                        if !h.n1_failing.is_empty() {
                            let n: Vec<&str> = h.n1_failing.iter().map(|x| x.0.as_str()).collect();
                            want.push(format!("nodes still failing N+1: {}", n.join(", ")));
                        }
                        if !h.split.is_empty() {
                            want.push(format!("instances still split across groups: {}", some_names(&split_names(&h))));
                        }
                        f.same(&at, &format!("text: group {g} not repaired: why"), v[2].to_owned(), want.join("; "));
                    }
                }
            }
        }
        "compress" => compare_compress(f, &at, &text.stdout, &doc, &before),
        _ => {}
    }
    report::compare_plan_page(
        f,
        &at,
        Path::new(&page),
        &before,
        &after,
        &names,
        &input.node_order,
    );
}

#[test]
fn groups_figures_are_the_recomputed_ones() {
    super::over_corpus(
        "hailstone-groups",
        &[
            ("cases", 18),
            ("runs", 60),
            ("plans", 10),
            ("repairs", 5),
            ("report pages", 60),
        ],
        |f, dir, case, k| {
            for op in ["check", "repair", "compress", "balance"] {
                one(f, dir, case, k, op);
            }
        },
    );
}
