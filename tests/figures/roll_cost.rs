//! The cost of `hailstone-roll`'s reboot groups (`--json`: each group's
//! `cost` and the document's) recomputed from the input's instances and
//! each group's nodes and planned moves, without the program's code, by
//! what `-X` does to a running instance (docs/execution.md; a stopped one
//! does not move, and the master is never rebooted):
//!
//! * its primary rebooted: a drbd instance migrates to its secondary
//!   (its memory) and back, and when the plan gives it a new secondary
//!   after that (`--full-evacuation`) the secondary is replaced (its
//!   disks) and restored; another moved by the plan migrates (shared
//!   storage, diskless: its memory) or is copied (plain, file: its disks)
//!   to the planned node and back; one the plan leaves (or every one,
//!   with `--offline-maintenance`) is shut down and started, copying
//!   nothing;
//! * its secondary rebooted: replaced and restored when the plan gives it
//!   a new one (not with `--offline-maintenance`), otherwise only
//!   resynchronised after the reboot (not counted).
//!
//! A group's evacuation jobs are one job set and its return jobs another
//! (each left out when empty); a set takes its longest job, the plan the
//! groups' sets one after another. A group `-X` would refuse has a null
//! cost and is left out of the document's. An input that repeats an
//! instance name is left out (the moves name the instance only).

use serde_json::Value;

use crate::support::plan::{self, Cluster};

use super::cost::{rates_for, rates_of, GivenRates};
use super::{Case, Findings};

/// One job: what it copies and does.
#[derive(Debug, Default, Clone, Copy)]
struct Job {
    disk: i64,
    memory: i64,
    migrations: i64,
    replacements: i64,
}

/// The totals of job sets, as a `cost` object gives them.
#[derive(Debug, Default)]
struct Totals {
    jobs: i64,
    sets: Vec<f64>,
    disk: i64,
    memory: i64,
    migrations: i64,
    replacements: i64,
}

impl Totals {
    fn add(&mut self, sets: &[Vec<Job>], (resync, migration): (f64, f64)) {
        for set in sets.iter().filter(|s| !s.is_empty()) {
            let mut longest = 0.0_f64;
            for j in set {
                self.jobs += 1;
                self.disk += j.disk;
                self.memory += j.memory;
                self.migrations += j.migrations;
                self.replacements += j.replacements;
                longest = longest.max(j.disk as f64 / resync + j.memory as f64 / migration);
            }
            self.sets.push(longest);
        }
    }
}

/// The evacuation and return jobs of the group `nodes` whose planned
/// moves are `moves` (each instance's last move is where the plan puts
/// it).
fn group_jobs(input: &Cluster, nodes: &[&str], moves: &[Value], offline: bool) -> [Vec<Job>; 2] {
    let rebooted = |n: &str| nodes.contains(&n) && !input.nodes.get(n).is_some_and(|x| x.master);
    let (mut out, mut back) = (Vec::new(), Vec::new());
    for (name, i) in input.insts.iter().filter(|(_, i)| i.running) {
        let planned = moves
            .iter()
            .rev()
            .find(|m| m["instance"] == name.as_str())
            .map(|m| {
                let at = |role: &str| m[role].as_str().unwrap_or("").to_owned();
                (at("primary"), at("secondary"))
            })
            .unwrap_or_else(|| (i.pri.clone(), i.sec.clone()));
        let (p_in, s_in) = (rebooted(&i.pri), !i.sec.is_empty() && rebooted(&i.sec));
        let memory = Job {
            memory: i.mem,
            migrations: 1,
            ..Job::default()
        };
        let replaced = Job {
            disk: i.dsk,
            replacements: 1,
            ..Job::default()
        };
        let both = |a: Job, b: Job| Job {
            disk: a.disk + b.disk,
            memory: a.memory + b.memory,
            migrations: a.migrations + b.migrations,
            replacements: a.replacements + b.replacements,
        };
        let job = if p_in && offline {
            Some(Job::default())
        } else if p_in && i.template == "drbd" {
            let new_secondary = planned.0 == i.sec && !planned.1.is_empty() && planned.1 != i.pri;
            Some(if new_secondary {
                both(memory, replaced)
            } else {
                memory
            })
        } else if p_in {
            let moved = !planned.0.is_empty() && planned.0 != i.pri;
            Some(match (moved, i.template.as_str()) {
                (false, _) => Job::default(),
                (true, "plain" | "file") => Job {
                    disk: i.dsk,
                    ..Job::default()
                },
                (true, _) => memory,
            })
        } else if s_in && !offline && !planned.1.is_empty() && planned.1 != i.sec {
            Some(replaced)
        } else {
            None
        };
        if let Some(j) = job {
            out.push(j);
            back.push(j);
        }
    }
    [out, back]
}

/// A `cost` object against recomputed totals.
fn check(f: &mut Findings, at: &str, c: &Value, t: &Totals) {
    let int = |name: &str| c[name].as_i64();
    f.same(at, "moves", int("moves"), Some(t.jobs));
    f.same(at, "job_sets", int("job_sets"), Some(t.sets.len() as i64));
    f.same(at, "disk_mib", int("disk_mib"), Some(t.disk));
    f.same(at, "memory_mib", int("memory_mib"), Some(t.memory));
    f.same(at, "migrations", int("migrations"), Some(t.migrations));
    f.same(at, "failovers", int("failovers"), Some(0));
    f.same(
        at,
        "replacements",
        int("replacements"),
        Some(t.replacements),
    );
    let printed = c["job_set_seconds"].as_array().cloned().unwrap_or_default();
    f.same(at, "job sets timed", printed.len(), t.sets.len());
    for (k, (p, w)) in printed.iter().zip(&t.sets).enumerate() {
        f.seconds(at, &format!("job set {} seconds", k + 1), p, *w);
    }
    f.seconds(at, "seconds", &c["seconds"], t.sets.iter().sum());
}

fn one(f: &mut Findings, case: &Case, group: &str, extra: &[&str], rates: GivenRates) {
    let file = case.path.to_str().expect("a path");
    // -f: the generated clusters name no master node.
    let mut args = vec!["-t", file, "-G", group, "-f", "--json"];
    args.extend(extra);
    let (given, resync, migration) = rates_of(rates);
    args.extend(given);
    let at = format!("hailstone-roll {}", args.join(" "));
    let out = super::run("hailstone-roll", &args);
    let Ok(doc) = serde_json::from_str::<Value>(&out.stdout) else {
        f.count("refused");
        return;
    };
    f.count("runs");
    let input = plan::parse(&case.text);
    if input.insts.keys().any(|n| n.contains('#')) {
        // A name the file repeats: its moves cannot be told apart.
        f.count("repeated instance names");
        return;
    }
    let offline = extra.contains(&"--offline-maintenance");
    let mut all = Totals::default();
    for (k, g) in doc["groups"].as_array().into_iter().flatten().enumerate() {
        let at = format!("{at}: reboot group {}", k + 1);
        if g["cost"].is_null() {
            f.count("groups -X refuses");
            continue;
        }
        let nodes = super::strings(&g["nodes"]);
        let moves = g["moves"].as_array().cloned().unwrap_or_default();
        let sets = group_jobs(&input, &nodes, &moves, offline);
        let mut t = Totals::default();
        t.add(&sets, (resync, migration));
        all.add(&sets, (resync, migration));
        f.count("groups");
        if t.disk > 0 {
            f.count("groups copying disks");
        }
        if t.memory > 0 {
            f.count("groups migrating");
        }
        check(f, &at, &g["cost"], &t);
    }
    check(f, &at, &doc["cost"], &all);
}

/// Every reboot plan's cost: hroller's, with `--full-evacuation`,
/// `--ignore-non-redundant` and `--offline-maintenance`, at Ganeti's rates
/// and at others.
#[test]
fn roll_costs_are_the_recomputed_ones() {
    super::over_corpus(
        "hailstone-roll cost",
        &[
            ("cases", 18),
            ("runs", 60),
            ("groups", 100),
            ("groups copying disks", 10),
            ("groups migrating", 20),
        ],
        |f, _, case, k| {
            let c = plan::parse(&case.text);
            for group in super::populated_groups(&c) {
                for (m, extra) in [
                    &[][..],
                    &["--full-evacuation"],
                    &["--ignore-non-redundant"],
                    &["--offline-maintenance"],
                ]
                .into_iter()
                .enumerate()
                {
                    one(f, case, group, extra, rates_for(k + m));
                }
            }
        },
    );
}
