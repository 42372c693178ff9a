//! Every figure the programs print recomputed by code that did not print
//! it. Each case runs a program with `--json`, `--explain`, `--report`,
//! `-S` and `-p` where it has them, reads back the states the run
//! describes (the input, the `-S` files, or the input with the plan
//! replayed by the independent plan checker `support::plan`), computes
//! each node's memory, disk, vCPUs, spindles and N+1 verdict from them
//! (`support::figures`: Ganeti's definitions, nothing from the `hailstone`
//! library) and compares every per-node and cluster figure of the outputs
//! with them: the `-S` states themselves (a node's totals never change
//! across a plan), hbal's `-p` tables ([`table`]), the `--json` documents,
//! the numbers of `--explain`'s text ([`explain`]), the `--report`
//! pages' before and after bars ([`report`]) and the cost facts at their
//! top ([`report_cost`]); the plans' costs are recomputed from their
//! commands ([`cost`]).
//!
//! The corpus: generated clusters (devtools' generator, as the other
//! tests make them) and Ganeti's own data files
//! (`test/data/htools/*.data` of the `ganeti-testsuite` package, [`ganeti`]).
//! Every disagreement is collected with the program, the file, the figure
//! and both values; a test fails with all of them listed.

mod balance;
mod check;
mod components;
mod cost;
mod evacuation_cost;
mod explain;
mod ganeti;
mod groups;
mod info;
mod repair;
mod repair_cost;
mod report;
mod report_cost;
mod roll;
mod roll_cost;
mod selftest;
mod space;
mod squeeze;
mod table;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use hailstone::program::hail::options::LoadOptions;
use hailstone::shell::datafile;
use hailstone_devtools::generate::{generate, CaseSpec, RequestKind};

use crate::support::figures;
use crate::support::plan::{self, Cluster};

/// A cluster of the corpus.
pub struct Case {
    /// Where it comes from: `gen/s7`, `ganeti/hbal-evac.data`.
    pub name: String,
    pub path: PathBuf,
    pub text: String,
}

/// The generated clusters: relocate requests' clusters of 3 to 14 nodes
/// with every feature the generator draws (half of them with nodes that
/// report less free memory than their instances explain), and
/// multi-group clusters (offline nodes hosting instances, nodes failing
/// N+1, several storage partitions).
fn generated(dir: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    let mut add = |name: String, spec: CaseSpec| {
        let case = generate(&spec);
        let Ok(text) = datafile::from_request(case.request.as_bytes(), &LoadOptions::default())
        else {
            return;
        };
        let path = dir.join(format!("{}.data", name.replace('/', "-")));
        std::fs::write(&path, &text).expect("write a generated cluster");
        out.push(Case { name, path, text });
    };
    for seed in 1..=10u64 {
        let mut spec = CaseSpec::random(seed, RequestKind::Relocate, 3..=14);
        if seed % 2 == 0 {
            spec.features.missing_memory = true;
        }
        add(format!("gen/s{seed}"), spec);
    }
    for seed in 1..=8u64 {
        let nodes = 4 + (seed as usize * 5) % 11;
        let groups = 2 + (seed as usize) % 3;
        let mut spec = CaseSpec::multi_group(seed, nodes, groups);
        if seed % 3 == 0 {
            spec.features.missing_memory = true;
        }
        add(format!("gen/multi{seed}"), spec);
    }
    out
}

/// The corpus: the generated clusters, then Ganeti's data files (when
/// they are found; see [`ganeti::data_dir`]).
pub fn corpus(dir: &Path) -> Vec<Case> {
    let mut cases = generated(dir);
    if let Some(data) = ganeti::data_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&data)
            .expect("Ganeti's data folder")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "data"))
            .collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).expect("a Ganeti data file");
            let name = format!(
                "ganeti/{}",
                path.file_name().expect("a file").to_string_lossy()
            );
            cases.push(Case { name, path, text });
        }
    }
    cases
}

/// What one run printed.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Whether the program refused the input (an error, nothing on
    /// stdout): such a run has no figure to check.
    pub fn refused(&self) -> bool {
        self.code != 0 && self.stdout.is_empty()
    }
}

/// Runs `program` with `args` and `text` (the run whose text is
/// checked), then with `args` and `--json`: both runs' outputs, or `None`
/// when the first refused the input (counted `refused`) or the second
/// printed no JSON document (a fault at `at`).
pub fn text_and_document(
    f: &mut Findings,
    at: &str,
    program: &str,
    args: &[&str],
    text: &[&str],
) -> Option<(Run, serde_json::Value)> {
    let printed = run(program, &[args, text].concat());
    if printed.refused() {
        f.count("refused");
        return None;
    }
    let json = run(program, &[args, &["--json"]].concat());
    match serde_json::from_str(&json.stdout) {
        Ok(doc) => Some((printed, doc)),
        Err(_) => {
            f.fault(at, format!("no JSON document: {}", json.stderr));
            None
        }
    }
}

/// The names of the node groups of `c` that hold a node.
pub fn populated_groups(c: &Cluster) -> Vec<&str> {
    c.groups
        .iter()
        .filter(|(_, uuid)| c.nodes.values().any(|n| &n.group == *uuid))
        .map(|(name, _)| name.as_str())
        .collect()
}

/// The strings of a JSON array (none when `v` is not one).
pub fn strings(v: &serde_json::Value) -> Vec<&str> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(serde_json::Value::as_str)
        .collect()
}

/// Runs `program` (`hailstone-balance`, ...) with `args`.
pub fn run(program: &str, args: &[&str]) -> Run {
    let bin = crate::run::binary(program);
    let out = Command::new(bin)
        .args(args)
        .env("LC_ALL", "C.UTF-8")
        .output()
        .unwrap_or_else(|e| panic!("{program} does not run: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !stderr.contains("panicked"),
        "{program} {args:?} panicked: {stderr}"
    );
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr,
    }
}

/// The disagreements found, and how many figures were compared.
#[derive(Default)]
pub struct Findings {
    pub wrong: Vec<String>,
    pub compared: usize,
    /// What was covered, by kind (`cases`, `plans`, `report pages`, ...).
    pub covered: BTreeMap<&'static str, usize>,
}

impl Findings {
    /// Compares one figure: `printed` is what the output says, `want` the
    /// recomputed value.
    pub fn same<T: PartialEq + std::fmt::Debug>(
        &mut self,
        at: &str,
        figure: &str,
        printed: T,
        want: T,
    ) {
        self.compared += 1;
        if printed != want {
            self.wrong.push(format!(
                "{at}: {figure}: printed {printed:?}, recomputed {want:?}"
            ));
        }
    }

    /// A number printed with limited precision: equal within `tolerance`.
    pub fn near(&mut self, at: &str, figure: &str, printed: f64, want: f64, tolerance: f64) {
        self.compared += 1;
        if (printed - want).abs() > tolerance || printed.is_nan() != want.is_nan() {
            self.wrong.push(format!(
                "{at}: {figure}: printed {printed}, recomputed {want}"
            ));
        }
    }

    /// A time (seconds) a document gives in full against the recomputed
    /// `want`: equal but for the order of float additions (1e-9
    /// relative); a missing number is a disagreement.
    pub fn seconds(&mut self, at: &str, figure: &str, printed: &serde_json::Value, want: f64) {
        let printed = printed.as_f64().unwrap_or(f64::NAN);
        self.near(at, figure, printed, want, 1e-9 * (1.0 + want));
    }

    /// A disagreement found otherwise.
    pub fn fault(&mut self, at: &str, what: String) {
        self.compared += 1;
        self.wrong.push(format!("{at}: {what}"));
    }

    pub fn count(&mut self, kind: &'static str) {
        *self.covered.entry(kind).or_default() += 1;
    }

    /// Prints what was covered and fails with every disagreement.
    pub fn finish(self, test: &str, needs: &[(&str, usize)]) {
        eprintln!(
            "{test}: {} figures compared; covered {:?}",
            self.compared, self.covered
        );
        let mut short = Vec::new();
        for (kind, least) in needs {
            let got = self.covered.get(kind).copied().unwrap_or(0);
            if got < *least {
                short.push(format!("{kind}: {got} (at least {least})"));
            }
        }
        assert!(
            short.is_empty(),
            "{test}: too little covered to prove anything: {short:?}"
        );
        if !self.wrong.is_empty() {
            eprintln!("{test}: the wrong figures by kind (count, first case):");
            for (kind, (count, first)) in kinds(&self.wrong) {
                eprintln!("  {count:>6}  {kind}\n          e.g. {first}");
            }
            // Every one with HAILSTONE_FIGURES_KEEP, else the first 200.
            let all = std::env::var_os("HAILSTONE_FIGURES_KEEP").is_some();
            let shown: Vec<&String> = self
                .wrong
                .iter()
                .take(if all { usize::MAX } else { 200 })
                .collect();
            panic!(
                "{test}: {} wrong figures (of {} compared):\n{}",
                self.wrong.len(),
                self.compared,
                shown
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
    }
}

/// The disagreements grouped by kind: the case's name, node names and
/// numbers taken out.
fn kinds(wrong: &[String]) -> BTreeMap<String, (usize, String)> {
    let mut out: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for w in wrong {
        let mut words: Vec<String> = Vec::new();
        let mut skip_next = false;
        for word in w.split(' ') {
            if skip_next {
                skip_next = false;
                words.push("*".to_owned());
                continue;
            }
            if word == "-t" || word == "node" || word == "group" || word == "-G" {
                skip_next = true;
            }
            if word == "printed" {
                break;
            }
            words.push(word.chars().filter(|c| !c.is_ascii_digit()).collect());
        }
        let e = out.entry(words.join(" ")).or_insert((0, w.clone()));
        e.0 += 1;
    }
    out
}

/// Reads a file the run wrote, if it did.
pub fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// Holds a saved state to the input it came from: the same nodes, each
/// node's constants unchanged, its free disk the input's less what the
/// plan moved there (`figures::saved_state_faults`).
pub fn check_saved(f: &mut Findings, at: &str, saved: &Cluster, input: &Cluster) {
    f.compared += 1;
    for fault in figures::saved_state_faults(saved, input, true) {
        f.fault(at, fault);
    }
}

/// A state saved for one group (hbal's `FILE.balanced` holds the balanced
/// group's nodes and instances only) held as [`check_saved`] holds a
/// whole one, and the whole cluster after the plan: the input with the
/// saved group's instances where the saved state has them.
pub fn check_saved_group(f: &mut Findings, at: &str, saved: &Cluster, input: &Cluster) -> Cluster {
    f.compared += 1;
    let mut whole = input.clone();
    for (name, i) in &saved.insts {
        match whole.insts.get_mut(name) {
            Some(w) => {
                w.pri = i.pri.clone();
                w.sec = i.sec.clone();
            }
            None => f.fault(
                at,
                format!("instance {name} of the saved state is not in the input"),
            ),
        }
    }
    for fault in figures::saved_rows_faults(saved, &whole, input, false) {
        f.fault(at, fault);
    }
    whole
}

/// How many instances have their primary in `group` (forthcoming ones
/// too: Ganeti's group instance lists hold them).
pub fn group_instances(c: &Cluster, group: &str) -> usize {
    let uuid = c.groups.get(group).map_or("", String::as_str);
    c.insts
        .values()
        .filter(|i| c.nodes.get(&i.pri).is_some_and(|n| n.group == uuid))
        .count()
}

/// Holds a state saved before a plan (`FILE.original`) to the input: the
/// same nodes with the same figures, the same instances in the same
/// places.
pub fn check_original(f: &mut Findings, at: &str, original: &Cluster, input: &Cluster) {
    check_saved(f, at, original, input);
    f.same(
        at,
        "placement of the saved state before the plan",
        plan::placement(original),
        plan::placement(input),
    );
    let (a, b) = (figures::initial(original), figures::initial(input));
    for (name, want) in &b {
        match a.get(name) {
            Some(got) => f.same(at, &format!("node {name}'s figures"), got, want),
            None => f.fault(at, format!("node {name} missing")),
        }
    }
}

/// Replays `commands` (`gnt-instance` and `gnt-node` lines) on the input
/// with the plan checker and holds the saved state after the plan to the
/// result: the same placement.
pub fn check_replay(f: &mut Findings, at: &str, input: &Cluster, commands: &str, saved: &Cluster) {
    let mut replayed = input.clone();
    // Whether each step is safe is the planners' own tests' question
    // (`balance`, `squeeze`, `groups`): here the replay gives the state.
    let _ = plan::replay(&mut replayed, commands);
    f.same(
        at,
        "placement after the plan (saved state against the replayed plan)",
        plan::placement(saved),
        plan::placement(&replayed),
    );
}

/// The cluster's common name suffix as Ganeti computes it
/// (`Loader.longestDomain` over the node and instance names), and the
/// alias of each node name (the name without it).
pub fn aliases(c: &Cluster) -> BTreeMap<String, String> {
    let names: Vec<&String> = c.node_order.iter().chain(c.inst_order.iter()).collect();
    let suffix = names.first().map_or(String::new(), |first| {
        (0..first.len())
            .filter(|&k| first[k..].starts_with('.'))
            .map(|k| &first[k..])
            .find(|s| names.iter().all(|n| n.ends_with(s)))
            .unwrap_or("")
            .to_owned()
    });
    c.node_order
        .iter()
        .map(|n| {
            let alias = n.strip_suffix(suffix.as_str()).unwrap_or(n);
            (alias.to_owned(), n.clone())
        })
        .collect()
}

/// Removes a test's folder, unless `HAILSTONE_FIGURES_KEEP` is set (to
/// look at the clusters and outputs of a failing run).
/// Runs `each` on every case of the generated corpus in a scratch
/// directory of `program`'s own, counting the cases, then removes the
/// directory and holds the findings to `needs` ([`Findings::finish`]).
pub fn over_corpus(
    program: &str,
    needs: &[(&str, usize)],
    mut each: impl FnMut(&mut Findings, &Path, &Case, usize),
) {
    let dir = scratch(&format!(
        "figures-{}",
        program.trim_start_matches("hailstone-")
    ));
    let mut f = Findings::default();
    for (k, case) in corpus(&dir).iter().enumerate() {
        f.count("cases");
        each(&mut f, &dir, case, k);
    }
    cleanup(&dir);
    f.finish(program, needs);
}

pub fn cleanup(dir: &Path) {
    if std::env::var_os("HAILSTONE_FIGURES_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(dir);
    } else {
        eprintln!("kept {}", dir.display());
    }
}

/// A fresh folder for a test's files.
pub fn scratch(test: &str) -> PathBuf {
    crate::run::scratch(test)
}

/// The plan's commands of a `--json` document (its `moves`), one a line.
pub fn commands(doc: &serde_json::Value) -> String {
    doc["moves"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| m["commands"].as_array().cloned().unwrap_or_default())
        .filter_map(|c| c.as_str().map(str::to_owned))
        .collect::<Vec<_>>()
        .join("\n")
}
