//! The scan suite (`--suite scan`): Ganeti's `hscan` against
//! `hailstone-scan`, which must print the same bytes on stdout and
//! stderr, exit with the same status and write the same data files; the
//! runs themselves are made by [`super::readonly`]. hscan reads live
//! clusters only, so each generated cluster of [`readonly::clusters`] is
//! served as a RAPI `file://` directory ([`rapi`]: the four resources,
//! varied from the seed) and both programs scan it into their own
//! output folder (`-d`):
//!
//! * `generated` — each cluster with the defaults, then option families
//!   in turn ([`FAMILIES`]: `-p` with and without field lists,
//!   `--no-headers`, `--static-kvm-node-memory`, the same cluster twice,
//!   `-v`);
//! * `cli` — the help, version and completion texts and bad input, on the
//!   first cluster; hscan has no shelltests and reads no data files.
//!
//! Accepted patterns: `scan:<id glob>`.

mod rapi;

use std::path::PathBuf;
use std::time::Duration;

use super::common::Part;
use super::readonly::clusters::Cluster;
use super::readonly::known::Names;
use super::readonly::{self, CorpusSpec, ProfileSets, Programs, RunSpec, SuiteSpec};
use crate::generate::rng::Rng;
use crate::process::{Run, Status};

/// The scan suite's own options.
#[derive(clap::Args, Debug)]
pub(super) struct ScanOptions {
    /// hscan (--install-hail installs ganeti-htools if missing).
    #[arg(
        long,
        value_name = "PATH",
        default_value = "/usr/lib/ganeti/3.0/usr/bin/hscan"
    )]
    pub(super) hscan: PathBuf,
    /// The program compared with hscan.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "target/release/hailstone-scan"
    )]
    pub(super) scan_bin: PathBuf,
}

impl ScanOptions {
    /// The suite's two programs.
    pub(super) fn programs(&self) -> Programs {
        Programs {
            original: self.hscan.clone(),
            ours: self.scan_bin.clone(),
        }
    }
}

pub(super) const NAMES: Names = Names {
    original: "hscan",
    ours: "hailstone-scan",
};

/// The suite: its programs' names, corpus and runs.
pub(super) const SPEC: SuiteSpec = SuiteSpec {
    name: "scan",
    names: NAMES,
    ours_option: "--scan-bin",
    corpus: CorpusSpec {
        ci: (60, (3, 12), 3),
        full: (250, (3, 40), 13000),
        extra: (2, 3),
        full_cap: Duration::from_secs(120),
        edit: None,
    },
    outcome,
    datafile_sets: ProfileSets { ci: &[], full: &[] },
    generated: generated_runs,
    cli: cli_runs,
};

/// The option families of the generated runs, used in turn.
pub(super) const FAMILIES: [&str; 7] = [
    "print-nodes",
    "print-fields",
    "no-headers",
    "no-headers+print",
    "static-kvm-node-memory",
    "twice",
    "verbose",
];

/// Field lists for `-p` (some with fields hscan does not know).
const FIELDS: [&str; 3] = [
    "-pname,pcnt,scnt,fmem,fdsk,tags",
    "-p+ptags,spindle_count,inst_spindles",
    "-pname,bogus",
];

/// The RAPI directory of the run's cluster.
const SOURCE: &str = "file://{IN}";

/// The options of `family` (before the cluster argument).
fn family_args(family: &str, r: &mut Rng) -> Vec<String> {
    let s = |xs: &[&str]| xs.iter().map(|x| (*x).to_owned()).collect::<Vec<String>>();
    match family {
        "print-nodes" => s(r.pick::<&[&str]>(&[&["-p"], &["--print-nodes"]])),
        "print-fields" => s(&[*r.pick(&FIELDS)]),
        "no-headers" => s(&["--no-headers"]),
        "no-headers+print" => s(&["--no-headers", "-p"]),
        "static-kvm-node-memory" => vec![format!(
            "--static-kvm-node-memory={}",
            r.pick(&["0", "4096", "32768"])
        )],
        // The same directory by two names: two lines, two files.
        "twice" => vec![format!("{SOURCE}/")],
        _ => s(&["-v"]),
    }
}

/// The runs of cluster number `k`: with its defaults, then `extra` family
/// runs, families taken in turn from `next` on.
pub(super) fn generated_runs(
    cl: &Cluster,
    k: usize,
    extra: usize,
    next: &mut usize,
) -> Vec<RunSpec> {
    let mut r = Rng::new(0x5ca_0000 ^ (k as u64).wrapping_mul(0x2545_f491));
    let files = rapi::files(&cl.data, &mut r);
    let run = |name: &str, args: Vec<String>| RunSpec {
        id: format!("{}#{name}", cl.id),
        part: Part::Generated,
        family: name.to_owned(),
        args: [
            vec!["-d".to_owned(), "{OUT}".to_owned()],
            args,
            vec![SOURCE.to_owned()],
        ]
        .concat(),
        files: files.clone(),
    };
    let mut out = vec![run("default", Vec::new())];
    for _ in 0..extra {
        let family = FAMILIES[*next % FAMILIES.len()];
        *next += 1;
        out.push(run(family, family_args(family, &mut r)));
    }
    out
}

/// Bad input and the help texts, on a generated cluster: the common
/// cases ([`readonly::cli_runs`]) and these.
pub(super) fn cli_runs(cl: &Cluster) -> Vec<RunSpec> {
    let mut r = Rng::new(0x5ca);
    let mut files = rapi::files(&cl.data, &mut r);
    let broken: Vec<(String, String)> = files
        .iter()
        .map(|(name, text)| {
            let text = if name == "nodes.json" {
                text.replacen("\"mfree\"", "\"mfree\": \"many\", \"x\"", 1)
            } else {
                text.clone()
            };
            (format!("broken/{name}"), text)
        })
        .collect();
    files.extend(broken);
    let cases: &[(&str, &[&str])] = &[
        ("missing-dir", &["-d", "{OUT}", "file://{IN}/no-such-dir"]),
        ("bad-node-field", &["-d", "{OUT}", "file://{IN}/broken"]),
        (
            "good-then-bad",
            &["-d", "{OUT}", SOURCE, "file://{IN}/broken"],
        ),
        ("no-output-dir", &["-d", "{OUT}/no-such-dir", SOURCE]),
        ("missing-value", &[SOURCE, "-d"]),
        (
            "abbreviations",
            &["--no-h", "--print", "-d", "{OUT}", SOURCE],
        ),
    ];
    readonly::cli_runs(cases, &files)
}

/// What hscan's run says, in a few words.
pub(super) fn outcome(run: &Run) -> &'static str {
    match run.status {
        Status::Exited(0) => "scanned",
        Status::Exited(2) => "a cluster not read",
        Status::Exited(_) => "error",
        Status::Capped => "stopped at the cap",
        _ => "killed",
    }
}
