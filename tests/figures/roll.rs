//! `hailstone-roll`: it prints no node figure (no `--explain`, no
//! `--report`); its saved state (`-S FILE.original`) must be the input
//! with every node's figures, and each reboot group's moves (`--json`,
//! `--print-moves`) must take the instances off the group's nodes onto
//! nodes that exist, are online and are not rebooted with them, leaving
//! every node's totals as they were.

use std::path::Path;

use serde_json::Value;

use crate::support::figures;
use crate::support::plan;

use super::{check_original, read, run, Case, Findings};

fn one(f: &mut Findings, dir: &Path, case: &Case, k: usize, group: &str) {
    let at = format!("hailstone-roll -t {} -G {group}", case.name);
    let file = case.path.to_str().expect("a path");
    let save = dir
        .join(format!("c{k}-{group}"))
        .to_str()
        .expect("a path")
        .to_owned();
    // -f: the generated clusters name no master node.
    let out = run(
        "hailstone-roll",
        &[
            "-t",
            file,
            "-G",
            group,
            "-f",
            "--print-moves",
            "--json",
            "-S",
            &save,
        ],
    );
    let Ok(doc) = serde_json::from_str::<Value>(&out.stdout) else {
        f.count("refused");
        return;
    };
    f.count("runs");
    let input = plan::parse(&case.text);
    match read(Path::new(&format!("{save}.original"))) {
        Some(o) => check_original(f, &format!("{at}: FILE.original"), &plan::parse(&o), &input),
        None => f.fault(&at, "no FILE.original".to_owned()),
    }
    let before = figures::initial(&input);
    for g in doc["groups"].as_array().into_iter().flatten() {
        let rebooted = super::strings(&g["nodes"]);
        let mut state = input.clone();
        for m in g["moves"].as_array().into_iter().flatten() {
            f.count("moves");
            let name = m["instance"].as_str().unwrap_or("?");
            let Some(i) = state.insts.get_mut(name) else {
                f.fault(&at, format!("a move of unknown instance {name}"));
                continue;
            };
            for (role, node) in [("primary", &mut i.pri), ("secondary", &mut i.sec)] {
                match m[role].as_str() {
                    Some(n) => {
                        let ok = input.nodes.get(n).is_some_and(|x| !x.offline)
                            && !rebooted.contains(&n);
                        f.same(&at, &format!("{name}'s new {role} {n} exists, is online and not rebooted with the group"), ok, true);
                        *node = n.to_owned();
                    }
                    None if role == "secondary" => {}
                    None => f.fault(&at, format!("a move of {name} without a primary")),
                }
            }
        }
        // The moves' state: every node keeps its totals, and the moved
        // instances hold nothing on the rebooted nodes.
        let after = figures::figures(&state, &input);
        for (name, a) in &after {
            let b = &before[name];
            f.same(
                &at,
                &format!("node {name}'s totals across a reboot group"),
                (a.mem_total, a.dsk_total, a.vcpu_limit),
                (b.mem_total, b.dsk_total, b.vcpu_limit),
            );
        }
        for m in g["moves"].as_array().into_iter().flatten() {
            let name = m["instance"].as_str().unwrap_or("?");
            let on: Vec<&String> = rebooted
                .iter()
                .filter(|n| {
                    after.get(**n).is_some_and(|x| {
                        x.primaries.contains(&name.to_owned())
                            || x.secondaries.contains(&name.to_owned())
                    })
                })
                .map(|n| &after[*n].name)
                .collect();
            f.same(
                &at,
                &format!("rebooted nodes still holding moved {name}"),
                on.len(),
                0,
            );
        }
    }
}

#[test]
fn roll_figures_are_the_recomputed_ones() {
    super::over_corpus(
        "hailstone-roll",
        &[("cases", 18), ("runs", 18), ("moves", 10)],
        |f, dir, case, k| {
            let c = plan::parse(&case.text);
            for group in super::populated_groups(&c) {
                one(f, dir, case, k, group);
            }
        },
    );
}
