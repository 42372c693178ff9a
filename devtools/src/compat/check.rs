//! The check suite (`--suite check`): Ganeti's `hcheck` against
//! `hailstone-check`, which must print the same bytes on stdout and stderr
//! and exit with the same status; the runs themselves are made by
//! [`super::readonly`]. This module owns what is hcheck's own:
//!
//! * `generated` — the clusters of [`readonly::clusters`] (multi-group
//!   ones with offline nodes and N+1 failures, single-group DRBD, plain,
//!   ext and mixed ones with offline and drained nodes), each run as
//!   people read it, with `--machine-readable`, then with option families
//!   in turn over the corpus ([`FAMILIES`]: the simulation and capacity
//!   switches, verbosity, the balancing options, `-O`, instance selection
//!   and exclusion, `-U`), half of them machine-readable;
//! * `cli` — the help, version and completion texts and bad input, on the
//!   first cluster;
//! * the option sets of Ganeti's data files, and what hcheck's output
//!   says (for the report).
//!
//! Accepted patterns: `check:<id glob>`.

use std::path::PathBuf;
use std::time::Duration;

use super::readonly::clusters::{self, Cluster};
use super::readonly::known::Names;
use super::readonly::{self, CorpusSpec, ProfileSets, Programs, RunSpec, SuiteSpec};
use crate::generate::rng::Rng;
use crate::process::{Run, Status};

/// The check suite's own options.
#[derive(clap::Args, Debug)]
pub(super) struct CheckOptions {
    /// hcheck (--install-hail installs ganeti-htools if missing; the groups suite's judge too).
    #[arg(
        long,
        value_name = "PATH",
        default_value = "/usr/lib/ganeti/3.0/usr/bin/hcheck"
    )]
    pub(super) hcheck: PathBuf,
    /// The program compared with hcheck.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "target/release/hailstone-check"
    )]
    pub(super) check_bin: PathBuf,
}

impl CheckOptions {
    /// The suite's two programs.
    pub(super) fn programs(&self) -> Programs {
        Programs {
            original: self.hcheck.clone(),
            ours: self.check_bin.clone(),
        }
    }
}

pub(super) const NAMES: Names = Names {
    original: "hcheck",
    ours: "hailstone-check",
};

/// The suite: its programs' names, corpus and runs.
pub(super) const SPEC: SuiteSpec = SuiteSpec {
    name: "check",
    names: NAMES,
    ours_option: "--check-bin",
    corpus: CorpusSpec {
        ci: (80, (3, 12), 1),
        full: (250, (3, 30), 9000),
        extra: (4, 6),
        full_cap: Duration::from_secs(300),
        edit: None,
    },
    outcome,
    datafile_sets: ProfileSets {
        ci: &DATAFILE_SETS_CI,
        full: &DATAFILE_SETS_FULL,
    },
    generated: generated_runs,
    cli: cli_runs,
};

/// The data file option sets of the ci profile.
const DATAFILE_SETS_CI: [(&str, &[&str]); 3] = [
    ("default", &[]),
    ("machine-readable", &["--machine-readable"]),
    ("no-simulation+v", &["--no-simulation", "-v"]),
];

/// The data file option sets of the full profile.
const DATAFILE_SETS_FULL: [(&str, &[&str]); 7] = [
    ("default", &[]),
    ("machine-readable", &["--machine-readable"]),
    ("no-simulation+v", &["--no-simulation", "-v"]),
    (
        "no-capacity-checks+machine-readable",
        &["--no-capacity-checks", "--machine-readable"],
    ),
    ("evac-mode+vv", &["-E", "-v", "-v"]),
    ("quiet", &["-q"]),
    (
        "no-disk-moves+ignore-soft-errors",
        &["--no-disk-moves", "--ignore-soft-errors"],
    ),
];

/// The option families of the generated runs, used in turn.
pub(super) const FAMILIES: [&str; 18] = [
    "no-simulation",
    "no-capacity-checks",
    "quiet",
    "verbose",
    "no-disk-moves",
    "no-instance-moves",
    "evac-mode",
    "min-gain",
    "max-length",
    "min-score",
    "offline",
    "select-instances",
    "exclude-instances",
    "exclusion-tags",
    "ignore-soft-errors",
    "max-cpu+min-disk",
    "dynu",
    "combined",
];

/// The options of `family` on a cluster (with `-U`, the file it reads).
fn family_args(family: &str, cl: &Cluster, r: &mut Rng) -> (Vec<String>, Vec<(String, String)>) {
    let s = |xs: &[&str]| xs.iter().map(|x| (*x).to_owned()).collect::<Vec<String>>();
    let instances = clusters::instance_names(&cl.data);
    let pick = |r: &mut Rng, xs: &[&'static str]| (*r.pick(xs)).to_owned();
    let args = match family {
        "no-simulation" => s(&["--no-simulation"]),
        "no-capacity-checks" => s(&["--no-capacity-checks"]),
        "quiet" => s(r.pick::<&[&str]>(&[&["-q"], &["-q", "-q"]])),
        "verbose" => s(r.pick::<&[&str]>(&[&["-v"], &["-v", "-v"], &["-v", "-v", "-v"]])),
        "no-disk-moves" => s(&["--no-disk-moves"]),
        "no-instance-moves" => s(&["--no-instance-moves"]),
        "evac-mode" => s(&["-E"]),
        "min-gain" => s(&["-g", "0.01", "--min-gain-limit=0.1"]),
        "max-length" => vec!["-l".to_owned(), pick(r, &["3", "1", "10"])],
        "min-score" => vec!["-e".to_owned(), pick(r, &["0.5", "1e-3", "2"])],
        "offline" => {
            let online = clusters::online_nodes(&cl.data);
            let nodes = if online.is_empty() {
                cl.data
                    .nodes()
                    .iter()
                    .take(1)
                    .map(|n| n[0].clone())
                    .collect()
            } else {
                let count = 1 + r.below(2) as usize;
                clusters::some_of(&online, count, r)
            };
            nodes
                .into_iter()
                .flat_map(|n| ["-O".to_owned(), n])
                .collect()
        }
        "select-instances" | "exclude-instances" if !instances.is_empty() => {
            let count = 1 + r.below(3) as usize;
            let some = clusters::some_of(&instances, count, r);
            vec![format!("--{family}={}", some.join(","))]
        }
        "select-instances" | "exclude-instances" => s(&["--ignore-dynu"]),
        "exclusion-tags" => {
            let prefixes = clusters::exclusion_prefixes(&cl.data);
            let tag = if prefixes.is_empty() {
                "service".to_owned()
            } else {
                prefixes.join(",")
            };
            vec![format!("--exclusion-tags={tag}")]
        }
        "ignore-soft-errors" => s(&["--ignore-soft-errors"]),
        "max-cpu+min-disk" => vec![
            format!("--max-cpu={}", pick(r, &["1.0", "2.5", "8"])),
            format!("--min-disk={}", pick(r, &["0.1", "0.5"])),
        ],
        "dynu" => {
            let file = clusters::dynu_file(&cl.data, r);
            return (s(&["-U", "{IN}/dynu"]), vec![("dynu".to_owned(), file)]);
        }
        _ => s(&[
            "-E",
            "--no-disk-moves",
            "-l",
            "2",
            "-v",
            "--ignore-soft-errors",
        ]),
    };
    (args, Vec::new())
}

/// The runs of cluster number `k`: as people read it, machine-readable,
/// then `extra` family runs, families taken in turn from `next` on.
pub(super) fn generated_runs(
    cl: &Cluster,
    k: usize,
    extra: usize,
    next: &mut usize,
) -> Vec<RunSpec> {
    let files = vec![("cluster.data".to_owned(), cl.data.text())];
    let t = readonly::text_data(k);
    let run = |name: &str, args: Vec<String>, more: Vec<(String, String)>| RunSpec {
        id: format!("{}#{name}", cl.id),
        part: super::common::Part::Generated,
        family: name.to_owned(),
        args: [args, t.clone()].concat(),
        files: [files.clone(), more].concat(),
    };
    let mut out = vec![
        run("default", Vec::new(), Vec::new()),
        run(
            "machine-readable",
            vec!["--machine-readable".to_owned()],
            Vec::new(),
        ),
    ];
    let mut r = Rng::new(0xc4ec_0000 ^ (k as u64).wrapping_mul(0x2545_f491));
    for _ in 0..extra {
        let family = FAMILIES[*next % FAMILIES.len()];
        *next += 1;
        let (mut args, more) = family_args(family, cl, &mut r);
        if r.chance(0.5) {
            let mr = *r.pick(&["--machine-readable", "--machine-readable=yes"]);
            args.insert(0, mr.to_owned());
        }
        out.push(run(family, args, more));
    }
    out
}

/// Bad input and the help texts, on a generated cluster: the common
/// cases ([`readonly::cli_runs`]) and these.
pub(super) fn cli_runs(cl: &Cluster) -> Vec<RunSpec> {
    const T: &str = readonly::T_CLUSTER;
    let cases: &[(&str, &[&str])] = &[
        ("missing-value", &[T, "-l"]),
        ("ambiguous-option", &["--no", T]),
        (
            "exclude-unknown-instance",
            &["--exclude-instances=no-such-instance", T],
        ),
        (
            "select-unknown-instance",
            &["--select-instances=no-such-instance", T],
        ),
        ("bad-max-length", &["-l", "x", T]),
        ("max-length-zero", &["-l", "0", T]),
        ("bad-min-gain", &["-g", "x", T]),
        ("bad-max-cpu", &["--max-cpu=x", T]),
        ("bad-min-disk", &["--min-disk=x", T]),
        ("bad-min-score", &["-e", "x", T]),
        ("machine-readable-maybe", &["--machine-readable=maybe", T]),
        ("machine-readable-no", &["--machine-readable=no", T]),
        ("dynu", &["-U", "{IN}/dynu", "-v", T]),
        ("dynu-missing", &["-U", "{IN}/no-such-dynu", T]),
        (
            "ialloc-src-machine-readable",
            &["-I", "{IN}/request.json", "--machine-readable"],
        ),
        ("abbreviations", &["--machine", "--no-sim", "--verb", T]),
    ];
    readonly::cli_runs(cases, &readonly::cli_files(cl))
}

/// What hcheck's run says, in a few words.
pub(super) fn outcome(run: &Run) -> &'static str {
    let out = String::from_utf8_lossy(&run.stdout);
    let err = String::from_utf8_lossy(&run.stderr);
    let code = match run.status {
        Status::Exited(c) => c,
        Status::Capped => return "stopped at the cap",
        _ => return "killed",
    };
    if err.contains("Error") || !(0..=1).contains(&code) {
        "error"
    } else if out.contains("HCHECK_INIT_CLUSTER_NEED_REBALANCE=1")
        || out.contains("Cluster needs rebalancing")
    {
        "needing rebalancing"
    } else if out.contains("HCHECK_INIT_CLUSTER_NEED_REBALANCE=0")
        || out.contains("No need to rebalance")
    {
        "not needing rebalancing"
    } else if out.contains("no-simulation mode") {
        "no simulation"
    } else if out.is_empty() && code == 0 {
        "silent, exit 0"
    } else if out.is_empty() {
        "silent, exit 1"
    } else {
        "other"
    }
}
