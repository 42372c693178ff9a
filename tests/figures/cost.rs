//! The cost of the plans of `hailstone-balance`, `hailstone-squeeze` and
//! `hailstone-groups` (`--json`'s `cost` objects, and the explanations'
//! for the last two) recomputed from the input's instances and the plan's
//! `-C` commands,
//! without the planner's code: each `gnt-instance replace-disks` copies
//! the instance's disk (the data file's disk size), each `migrate` its
//! memory, a `failover` nothing; a job's time is its disk at the resync
//! rate plus its memory at the migration bandwidth, a job set's its longest
//! job's, the plan's the sum over its sets (as `-C` prints them). The
//! knee is found again from the moves' scores and the recomputed data.
//! The report pages' cost facts are held to the same totals
//! ([`plan_totals`], `report_cost`).

use serde_json::Value;

use crate::support::plan::{self, Cluster};

use super::{corpus, run, text_and_document, Case, Findings};

/// What a job copies and does, from its commands.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Cost {
    disk: i64,
    memory: i64,
    migrations: i64,
    failovers: i64,
    replacements: i64,
}

impl Cost {
    fn seconds(&self, resync: f64, migration: f64) -> f64 {
        self.disk as f64 / resync + self.memory as f64 / migration
    }
}

/// The full name of the instance `alias` names.
fn instance<'a>(c: &'a Cluster, alias: &str) -> Option<&'a plan::Inst> {
    c.insts.get(alias).or_else(|| {
        c.insts
            .iter()
            .find(|(k, _)| k.strip_prefix(alias).is_some_and(|r| r.starts_with('.')))
            .map(|(_, v)| v)
    })
}

/// The job sets of `-C`'s text: per set, per job, its commands.
fn job_sets(stdout: &str) -> Vec<Vec<Vec<String>>> {
    let mut sets: Vec<Vec<Vec<String>>> = Vec::new();
    for line in stdout.lines() {
        let l = line.trim();
        if l.starts_with("echo jobset ") {
            sets.push(Vec::new());
        } else if l.starts_with("echo job ") {
            if let Some(set) = sets.last_mut() {
                set.push(Vec::new());
            }
        } else if let Some(cmd) = l.strip_prefix("gnt-instance ") {
            if let Some(job) = sets.last_mut().and_then(|s| s.last_mut()) {
                job.push(cmd.to_owned());
            }
        }
    }
    sets
}

/// A job's cost from its commands on the input `c`.
fn job_cost(c: &Cluster, commands: &[String]) -> Result<Cost, String> {
    let mut cost = Cost::default();
    for cmd in commands {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        let name = words.last().copied().unwrap_or("");
        let inst = instance(c, name).ok_or_else(|| format!("{cmd}: no instance {name}"))?;
        match words.first().copied() {
            Some("replace-disks") => {
                cost.disk += inst.dsk;
                cost.replacements += 1;
            }
            Some("migrate") => {
                cost.memory += inst.mem;
                cost.migrations += 1;
            }
            Some("failover") => cost.failovers += 1,
            _ => return Err(format!("{cmd}: not a move")),
        }
    }
    Ok(cost)
}

/// The knee from the scores and the data of the steps: the prefix
/// farthest above the chord of (data part, improvement part).
fn knee(initial: f64, steps: &[(f64, i64)]) -> Option<usize> {
    let n = steps.len();
    let total: i64 = steps.iter().map(|s| s.1).sum();
    if n < 2 || total <= 0 || initial - steps[n - 1].0 <= 0.0 {
        return None;
    }
    let gain = initial - steps[n - 1].0;
    let mut best: Option<(f64, usize)> = None;
    let mut copied = 0;
    for (k, (score, data)) in steps[..n - 1].iter().enumerate() {
        copied += data;
        let d = (initial - score) / gain - copied as f64 / total as f64;
        if d > 0.0 && best.is_none_or(|(b, _)| d > b) {
            best = Some((d, k + 1));
        }
    }
    best.map(|(_, k)| k)
}

fn field(v: &Value, name: &str) -> i64 {
    v[name].as_i64().unwrap_or(-1)
}

/// The rates a run gives (`--resync-rate`, `--migration-bandwidth`),
/// with their values in MiB/s; none: Ganeti's defaults.
pub(super) type GivenRates = Option<(&'static str, &'static str, f64, f64)>;

/// The rates' options and values: Ganeti's defaults without any.
pub(super) fn rates_of(rates: GivenRates) -> (Vec<&'static str>, f64, f64) {
    match rates {
        Some((r, m, rv, mv)) => (vec![r, m], rv, mv),
        None => (Vec::new(), 60.0, 32.0),
    }
}

/// Every third case at other rates than Ganeti's.
pub(super) fn rates_for(k: usize) -> GivenRates {
    k.is_multiple_of(3).then_some((
        "--resync-rate=1g",
        "--migration-bandwidth=100",
        1024.0,
        100.0,
    ))
}

/// A plan's totals recomputed from `-C`'s jobs.
pub(super) struct Totals {
    cost: Cost,
    seconds: f64,
    moves: usize,
    sets: usize,
}

impl Totals {
    /// The disk data the plan copies (MiB).
    pub(super) fn disk_mib(&self) -> i64 {
        self.cost.disk
    }

    /// The plan's estimated time (seconds).
    pub(super) fn seconds(&self) -> f64 {
        self.seconds
    }
}

/// The totals of the plan `-C`'s text (`commands`) gives on the input
/// `input`, at the rates (MiB/s) `(resync, migration)`: the sum of its
/// jobs' costs, its time the sum over its job sets of their longest
/// job's. Each command that is not a move of an instance of the input is
/// a fault at `at`.
pub(super) fn plan_totals(
    f: &mut Findings,
    at: &str,
    input: &Cluster,
    commands: &str,
    (resync, migration): (f64, f64),
) -> Totals {
    let sets = job_sets(commands);
    let mut total = Cost::default();
    let mut seconds = 0.0;
    for set in &sets {
        let mut longest = 0.0_f64;
        for job in set {
            match job_cost(input, job) {
                Ok(c) => {
                    longest = longest.max(c.seconds(resync, migration));
                    total.disk += c.disk;
                    total.memory += c.memory;
                    total.migrations += c.migrations;
                    total.failovers += c.failovers;
                    total.replacements += c.replacements;
                }
                Err(e) => f.fault(at, e),
            }
        }
        seconds += longest;
    }
    Totals {
        cost: total,
        seconds,
        moves: sets.iter().map(Vec::len).sum(),
        sets: sets.len(),
    }
}

/// A plan's `cost` object (`c`: the document's or the explanation's)
/// against the recomputed totals.
fn check_totals(f: &mut Findings, at: &str, what: &str, c: &Value, t: &Totals) {
    f.same(
        at,
        &format!("{what}.moves"),
        field(c, "moves"),
        t.moves as i64,
    );
    f.same(
        at,
        &format!("{what}.job_sets"),
        field(c, "job_sets"),
        t.sets as i64,
    );
    f.same(
        at,
        &format!("{what}.disk_mib"),
        field(c, "disk_mib"),
        t.cost.disk,
    );
    f.same(
        at,
        &format!("{what}.memory_mib"),
        field(c, "memory_mib"),
        t.cost.memory,
    );
    f.same(
        at,
        &format!("{what}.migrations"),
        field(c, "migrations"),
        t.cost.migrations,
    );
    f.same(
        at,
        &format!("{what}.failovers"),
        field(c, "failovers"),
        t.cost.failovers,
    );
    f.same(
        at,
        &format!("{what}.replacements"),
        field(c, "replacements"),
        t.cost.replacements,
    );
    f.seconds(at, &format!("{what}.seconds"), &c["seconds"], t.seconds);
}

/// The moves of a `--json` document (`doc`) against the jobs of `-C`'s
/// text (`commands`) on the input `input`: each move's job set and cost
/// recomputed from its job's commands, and the document's `cost` against
/// the totals. Returns the totals and each move's score (when it has one)
/// and disk data.
fn check_plan(
    f: &mut Findings,
    at: &str,
    input: &Cluster,
    commands: &str,
    doc: &Value,
    (resync, migration): (f64, f64),
) -> (Totals, Vec<(f64, i64)>) {
    let sets = job_sets(commands);
    let moves = doc["moves"].as_array().cloned().unwrap_or_default();
    let jobs: Vec<(usize, &Vec<String>)> = sets
        .iter()
        .enumerate()
        .flat_map(|(k, s)| s.iter().map(move |j| (k + 1, j)))
        .collect();
    f.same(at, "moves against -C's jobs", moves.len(), jobs.len());
    let mut totals = plan_totals(f, at, input, commands, (resync, migration));
    let mut steps = Vec::new();
    for (m, (set, job)) in moves.iter().zip(&jobs) {
        let step = m["step"].as_u64().unwrap_or(0);
        let at = format!("{at}: move {step}");
        let Ok(want) = job_cost(input, job) else {
            continue;
        };
        f.count("moves");
        let c = &m["cost"];
        f.same(&at, "job set", m["job_set"].as_u64(), Some(*set as u64));
        f.same(&at, "cost.disk_mib", field(c, "disk_mib"), want.disk);
        f.same(&at, "cost.memory_mib", field(c, "memory_mib"), want.memory);
        f.same(
            &at,
            "cost.migrations",
            field(c, "migrations"),
            want.migrations,
        );
        f.same(&at, "cost.failovers", field(c, "failovers"), want.failovers);
        f.same(
            &at,
            "cost.replacements",
            field(c, "replacements"),
            want.replacements,
        );
        f.seconds(
            &at,
            "cost.seconds",
            &c["seconds"],
            want.seconds(resync, migration),
        );
        steps.push((m["score"].as_f64().unwrap_or(f64::NAN), want.disk));
    }
    // The document's moves are held to the jobs above; its count of
    // moves is its own.
    totals.moves = moves.len();
    f.count("plans");
    check_totals(f, at, "cost", &doc["cost"], &totals);
    (totals, steps)
}

fn one(f: &mut Findings, case: &Case, group: &str, rates: GivenRates) {
    let file = case.path.to_str().expect("a path");
    let mut args = vec!["-t", file, "-G", group];
    let (given, resync, migration) = rates_of(rates);
    args.extend(given);
    let at = format!("hailstone-balance {}", args.join(" "));
    let Some((text, doc)) = text_and_document(f, &at, "hailstone-balance", &args, &["-C"]) else {
        return;
    };
    if doc["status"] == "empty" {
        f.count("empty");
        return;
    }
    f.count("runs");
    let input = plan::parse(&case.text);
    let (_, steps) = check_plan(f, &at, &input, &text.stdout, &doc, (resync, migration));
    let initial = doc["score"]["initial"].as_f64().unwrap_or(f64::NAN);
    let printed = doc["cost"]["knee"]["steps"].as_u64().map(|k| k as usize);
    let want = knee(initial, &steps);
    if want.is_some() {
        f.count("knees");
    }
    f.same(&at, "cost.knee.steps", printed, want);
}

/// The explanation's `cost` (`--explain-format=json`, on stderr) against
/// the recomputed totals.
fn check_explained(f: &mut Findings, at: &str, stderr: &str, t: &Totals) {
    let Some(e) = stderr.lines().find_map(|l| {
        serde_json::from_str::<Value>(l)
            .ok()
            .filter(Value::is_object)
    }) else {
        f.fault(at, format!("no JSON explanation: {stderr}"));
        return;
    };
    f.count("explained");
    check_totals(f, at, "explanation's cost", &e["cost"], t);
}

/// One `hailstone-squeeze` run with `args`: its moves' costs and the
/// plan's, in `--json` and `--explain`, from `-C`'s commands.
fn squeeze_one(f: &mut Findings, case: &Case, extra: &[&str], rates: GivenRates) {
    let file = case.path.to_str().expect("a path");
    let mut args = vec!["-t", file];
    args.extend(extra);
    let (given, resync, migration) = rates_of(rates);
    args.extend(given);
    let at = format!("hailstone-squeeze {}", args.join(" "));
    let Some((text, doc)) = text_and_document(f, &at, "hailstone-squeeze", &args, &["-C"]) else {
        return;
    };
    f.count("runs");
    let input = plan::parse(&case.text);
    let (totals, _) = check_plan(f, &at, &input, &text.stdout, &doc, (resync, migration));
    let explained = run(
        "hailstone-squeeze",
        &[&args[..], &["--explain", "--explain-format=json"]].concat(),
    );
    check_explained(f, &at, &explained.stderr, &totals);
}

/// Every squeezing plan's cost, at hsqueeze's reserves and at lower ones
/// (more nodes powered off, more moves).
#[test]
fn squeeze_costs_are_the_recomputed_ones() {
    super::over_corpus(
        "hailstone-squeeze cost",
        &[
            ("cases", 18),
            ("plans", 30),
            ("moves", 30),
            ("explained", 30),
        ],
        |f, _, case, k| {
            squeeze_one(f, case, &[], rates_for(k));
            squeeze_one(
                f,
                case,
                &["--minimal-resources=0.5", "--target-resources=1"],
                rates_for(k + 1),
            );
        },
    );
}

/// One `hailstone-groups` operation: its moves' costs and the plan's, in
/// `--json` and `--explain`, from `-C`'s commands.
fn groups_one(f: &mut Findings, case: &Case, op: &[&str], rates: GivenRates) {
    let file = case.path.to_str().expect("a path");
    let mut args = op.to_vec();
    args.extend(["-t", file]);
    let (given, resync, migration) = rates_of(rates);
    args.extend(given);
    let at = format!("hailstone-groups {}", args.join(" "));
    let Some((text, doc)) = text_and_document(f, &at, "hailstone-groups", &args, &["-C"]) else {
        return;
    };
    f.count("runs");
    let input = plan::parse(&case.text);
    let (totals, _) = check_plan(f, &at, &input, &text.stdout, &doc, (resync, migration));
    let explained = run(
        "hailstone-groups",
        &[&args[..], &["--explain", "--explain-format=json"]].concat(),
    );
    check_explained(f, &at, &explained.stderr, &totals);
}

/// Every plan of `hailstone-groups` (repair, compress --evacuate,
/// balance); check plans nothing: its `cost` is null.
#[test]
fn groups_costs_are_the_recomputed_ones() {
    super::over_corpus(
        "hailstone-groups cost",
        &[
            ("cases", 18),
            ("plans", 40),
            ("moves", 20),
            ("explained", 40),
        ],
        |f, _, case, k| {
            for op in [&["repair"][..], &["compress", "--evacuate"], &["balance"]] {
                groups_one(f, case, op, rates_for(k));
            }
            let file = case.path.to_str().expect("a path");
            let json = run("hailstone-groups", &["check", "-t", file, "--json"]);
            if let Ok(doc) = serde_json::from_str::<Value>(&json.stdout) {
                f.same(
                    case.name.as_str(),
                    "check's cost",
                    doc["cost"].is_null(),
                    true,
                );
            }
        },
    );
}

/// Every balancing plan's cost, at Ganeti's default rates and at others.
#[test]
fn balance_costs_are_the_recomputed_ones() {
    let dir = super::scratch("figures-cost");
    let mut f = Findings::default();
    for (k, case) in corpus(&dir).iter().enumerate() {
        f.count("cases");
        let c = plan::parse(&case.text);
        for group in super::populated_groups(&c) {
            one(&mut f, case, group, rates_for(k));
        }
    }
    super::cleanup(&dir);
    f.finish(
        "hailstone-balance cost",
        &[("cases", 18), ("plans", 15), ("moves", 100), ("knees", 5)],
    );
}
