//! `hailstone-squeeze`: the saved states (`FILE.original` the input,
//! `FILE.squeezed` the input with the plan replayed: its moves, the nodes
//! powered off or on), `--explain`'s numbers (the reserves from the
//! cluster's standard instance; the node short of the minimal reserve
//! now, with its free memory and where its memory goes; the memory the
//! remaining nodes can hold beside their reserves against what the
//! instances use, for each set of nodes tried) and the report page's bars
//! before and after.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::support::figures::{self, NodeFigures};
use crate::support::plan::{self, Cluster};

use super::explain::{check_memory_parts, int, scan};
use super::{
    aliases, check_original, check_replay, check_saved, read, report, run, Case, Findings,
};

/// The cluster's standard instance (the policy line with no owner):
/// memory, vCPUs, spindle use.
fn standard(text: &str) -> Option<(i64, i64, i64)> {
    let policies = text.split("\n\n").nth(4)?;
    let line = policies.lines().find(|l| l.starts_with('|'))?;
    let std: Vec<i64> = line
        .split('|')
        .nth(1)?
        .split(',')
        .map(|v| v.parse().unwrap_or(0))
        .collect();
    Some((*std.first()?, *std.get(1)?, *std.get(5)?))
}

/// What the nodes in `remaining` can hold beside a reserve of `reserve`
/// MiB each: on each, its total less its own, its unaccounted memory, the
/// reserve and the one MiB the reserve must exceed, and never below
/// nothing.
fn room(figs: &BTreeMap<String, NodeFigures>, remaining: &[&String], reserve: i64) -> i64 {
    remaining
        .iter()
        .map(|n| {
            let n = &figs[*n];
            (n.mem_total - n.mem_node - n.mem_unaccounted.max(0) - reserve - 1).max(0)
        })
        .sum()
}

/// A trial's reason `NODE cannot keep the reserve even without
/// instances: needs R MiB of memory[ and 1 MiB to spare], F MiB free (T
/// total - N for the node - 0 for instances[ - X unaccounted])`: the node's
/// figures, the reserve's memory, and that it does not fit (`F - R` is not
/// above 0). Returns 1 when `detail` is such a reason.
fn too_small(
    f: &mut Findings,
    at: &str,
    label: &str,
    detail: &str,
    input: &Cluster,
    figs: &BTreeMap<String, NodeFigures>,
    reserve: Option<i64>,
) -> usize {
    let Some(v) = scan(
        "{} cannot keep the reserve even without instances: needs {} MiB of memory{}",
        detail,
    ) else {
        return 0;
    };
    let Some(name) = resolve(input, v[0]) else {
        f.fault(at, format!("--explain names unknown node {}", v[0]));
        return 1;
    };
    let n = &figs[&name];
    let need = int(v[1]);
    f.same(
        at,
        &format!("{label}: {name} too small: needs (the reserve)"),
        need,
        reserve,
    );
    let parts = super::explain::memory_parts(v[2]);
    let unaccounted = n.mem_unaccounted.max(0);
    f.same(
        at,
        &format!("{label}: {name} too small: free, total, node, instances, unaccounted"),
        parts.first().copied(),
        Some((
            n.mem_total - n.mem_node - unaccounted,
            n.mem_total,
            n.mem_node,
            0,
            unaccounted,
        )),
    );
    if let (Some(need), Some(&(free, ..))) = (need, parts.first()) {
        f.same(
            at,
            &format!("{label}: {name} too small: the reserve does not fit"),
            free - need <= 0,
            true,
        );
        f.same(
            at,
            &format!("{label}: {name} too small: 'and 1 MiB to spare' exactly when the reserve is the free memory"),
            v[2].starts_with(" and 1 MiB to spare"),
            need == free,
        );
    }
    1
}

fn resolve(c: &Cluster, name: &str) -> Option<String> {
    if c.nodes.contains_key(name) {
        return Some(name.to_owned());
    }
    let names = aliases(c);
    names.get(name).cloned()
}

fn compare_explain(
    f: &mut Findings,
    at: &str,
    text: &str,
    input: &Cluster,
    case: &Case,
    figs: &BTreeMap<String, NodeFigures>,
) {
    let used: i64 = figs.values().map(|n| n.mem_instances).sum();
    let std = standard(&case.text);
    let mut minimal = None;
    let mut target = None;
    let mut powered_off: Vec<String> = Vec::new();
    let online: Vec<String> = figs
        .values()
        .filter(|n| !n.offline)
        .map(|n| n.name.clone())
        .collect();
    let mut checked = 0;
    for line in text.lines() {
        for (label, slot) in [("minimal", &mut minimal), ("target", &mut target)] {
            let template = format!("{label} reserve: {{}} × the standard instance (--{label}-resources) = {{}} MiB memory, {{}}");
            if let Some(v) = scan(&template, line) {
                let factor: f64 = v[0].parse().unwrap_or(f64::NAN);
                let mem = int(v[1]).unwrap_or(i64::MIN);
                *slot = Some(mem);
                if let Some((m, c, s)) = std {
                    let scaled = |x: i64| (factor * x as f64).floor() as i64;
                    f.same(at, &format!("{label} reserve memory"), mem, scaled(m));
                    let plural =
                        |n: i64, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
                    f.same(
                        at,
                        &format!("{label} reserve vCPUs and spindles"),
                        v[2].to_owned(),
                        format!(
                            "{}, {}",
                            plural(scaled(c), "vCPU"),
                            plural(scaled(s), "spindle")
                        ),
                    );
                }
            }
        }
        // The node short of the minimal reserve now.
        if let Some(v) = scan(
            "{} cannot take it now ({}): standby nodes are powered on",
            line,
        ) {
            let Some(name) = resolve(input, v[0]) else {
                f.fault(at, format!("--explain names unknown node {}", v[0]));
                continue;
            };
            let n = &figs[&name];
            let detail = v[1];
            checked += 1;
            let mem = scan("needs {} MiB of memory, {} MiB free ({} total - {} for the node - {} for instances{}", detail)
                .or_else(|| scan("needs {} MiB of memory and 1 MiB to spare, {} MiB free ({} total - {} for the node - {} for instances{}", detail));
            if let Some(m) = mem {
                let unacc = m[5]
                    .strip_prefix(" - ")
                    .and_then(|u| u.strip_suffix(" unaccounted)"))
                    .map_or(0, |u| int(u).unwrap_or(i64::MIN));
                f.same(
                    at,
                    &format!("node {name} short now: needs (the minimal reserve)"),
                    int(m[0]),
                    minimal,
                );
                f.same(
                    at,
                    &format!("node {name} short now: free, total, node, instances, unaccounted"),
                    (int(m[1]), int(m[2]), int(m[3]), int(m[4]), unacc),
                    (
                        Some(n.mem_free),
                        Some(n.mem_total),
                        Some(n.mem_node),
                        Some(n.mem_instances),
                        n.mem_unaccounted.max(0),
                    ),
                );
            } else if let Some(m) = scan(
                "would keep {} MiB free, less than the {} MiB reserved to take over {} (N+1)",
                detail,
            ) {
                f.same(
                    at,
                    &format!("node {name} short now: left free, reserved"),
                    (int(m[0]), int(m[1])),
                    (minimal.map(|r| n.mem_free - r), Some(n.mem_reserved)),
                );
            } else if let Some(m) = scan(
                "would run {} vCPUs on {} CPUs ({} per CPU), above the ratio {}",
                detail,
            ) {
                let cpus: f64 = m[1].parse().unwrap_or(f64::NAN);
                f.near(
                    at,
                    &format!("node {name} short now: physical CPUs"),
                    cpus,
                    n.cpu_physical,
                    1e-9,
                );
                if let Some((_, c, _)) = std {
                    let factor = text
                        .lines()
                        .find_map(|l| scan("minimal reserve: {} × {}", l))
                        .and_then(|v| v[0].parse::<f64>().ok())
                        .unwrap_or(f64::NAN);
                    f.same(
                        at,
                        &format!("node {name} short now: vCPUs with the reserve"),
                        int(m[0]),
                        Some(n.vcpus_used + (factor * c as f64).floor() as i64),
                    );
                }
            } else {
                checked -= 1;
            }
        }
        // Onlining: `  with A, B: not enough: ...`.
        if let Some(v) = scan("  with {}: not enough: the remaining nodes can hold at most {} MiB of instances beside their reserves; the instances use {} MiB", line) {
            let mut remaining: Vec<&String> = online.iter().collect();
            let extra: Vec<String> = if v[0] == "no standby node" {
                Vec::new()
            } else {
                v[0].split(", ").filter_map(|n| resolve(input, n)).collect()
            };
            remaining.extend(extra.iter());
            checked += 1;
            f.same(at, &format!("with {}: room", v[0]), int(v[1]), minimal.map(|r| room(figs, &remaining, r)));
            f.same(at, &format!("with {}: memory the instances use", v[0]), int(v[2]), Some(used));
        }
        if let Some(v) = scan("  with {}: not enough: {}", line) {
            checked += too_small(f, at, &format!("with {}", v[0]), v[1], input, figs, minimal);
        }
        // Offlining: `  NODE: powered off` / `  NODE: kept: ...`.
        if let Some(v) = scan("  {}: powered off", line) {
            if let Some(name) = resolve(input, v[0]) {
                powered_off.push(name);
            }
        }
        if let Some(v) = scan("  {}: kept: {}", line) {
            checked += too_small(f, at, &format!("{} kept", v[0]), v[1], input, figs, target);
        }
        if let Some(v) = scan("  {}: kept: the remaining nodes can hold at most {} MiB of instances beside their reserves; the instances use {} MiB", line) {
            let Some(name) = resolve(input, v[0]) else { continue };
            let remaining: Vec<&String> = online.iter().filter(|n| **n != name && !powered_off.contains(n)).collect();
            checked += 1;
            f.same(at, &format!("{name} kept: room"), int(v[1]), target.map(|r| room(figs, &remaining, r)));
            f.same(at, &format!("{name} kept: memory the instances use"), int(v[2]), Some(used));
        }
    }
    if checked > 0 {
        f.count("explained figures");
    }
}

fn one(f: &mut Findings, dir: &Path, case: &Case, k: usize) {
    let at = format!("hailstone-squeeze -t {}", case.name);
    let file = case.path.to_str().expect("a path");
    let save = dir
        .join(format!("c{k}"))
        .to_str()
        .expect("a path")
        .to_owned();
    let (explained, page) = (format!("{save}.explain"), format!("{save}.html"));
    let text = run(
        "hailstone-squeeze",
        &[
            "-t",
            file,
            "-S",
            &save,
            &format!("--explain={explained}"),
            &format!("--report={page}"),
        ],
    );
    if text.refused() {
        f.count("refused");
        return;
    }
    let json = run("hailstone-squeeze", &["-t", file, "--json"]);
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
    match read(Path::new(&format!("{save}.original"))) {
        Some(o) => check_original(f, &format!("{at}: FILE.original"), &plan::parse(&o), &input),
        None => f.fault(&at, "no FILE.original".to_owned()),
    }
    let after_state = match read(Path::new(&format!("{save}.squeezed"))) {
        Some(s) => {
            f.count("plans");
            let s = plan::parse(&s);
            check_saved(f, &format!("{at}: FILE.squeezed"), &s, &input);
            // The plan: the nodes powered on, the moves, the nodes powered off.
            let nodes = super::strings(&doc["nodes"]);
            let moves: Vec<String> = doc["moves"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|m| m["commands"].as_array().cloned().unwrap_or_default())
                .filter_map(|c| c.as_str().map(str::to_owned))
                .collect();
            let power = |how: &str| {
                nodes
                    .iter()
                    .map(|n| format!("gnt-node power -f {how} {n}"))
                    .collect::<Vec<_>>()
            };
            let commands = match doc["decision"].as_str() {
                Some("online") => [power("on"), moves].concat(),
                Some("offline") => [moves, power("off")].concat(),
                _ => moves,
            };
            check_replay(
                f,
                &format!("{at}: --json plan"),
                &input,
                &commands.join("\n"),
                &s,
            );
            let mut replayed = input.clone();
            plan::replay(&mut replayed, &commands.join("\n"));
            let offline = |c: &Cluster| {
                c.nodes
                    .iter()
                    .map(|(k, n)| (k.clone(), n.offline))
                    .collect::<Vec<_>>()
            };
            f.same(
                &at,
                "nodes offline after the plan (saved against replayed)",
                offline(&s),
                offline(&replayed),
            );
            s
        }
        None => input.clone(),
    };
    let after = figures::figures(&after_state, &input);
    let explained = std::fs::read_to_string(&explained).unwrap_or_default();
    compare_explain(
        f,
        &format!("{at}: --explain"),
        &explained,
        &input,
        case,
        &before,
    );
    check_memory_parts(f, &format!("{at}: --explain"), &explained, &before);
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
fn squeeze_figures_are_the_recomputed_ones() {
    super::over_corpus(
        "hailstone-squeeze",
        &[
            ("cases", 18),
            ("runs", 15),
            ("plans", 5),
            ("explained figures", 5),
            ("report pages", 15),
        ],
        |f, dir, case, k| {
            one(f, dir, case, k);
        },
    );
}
