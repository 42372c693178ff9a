//! The info suite (`--suite info`): Ganeti's `hinfo` against
//! `hailstone-info`, which must print the same bytes on stdout and stderr
//! and exit with the same status; the runs themselves are made by
//! [`super::readonly`]. This module owns what is hinfo's own:
//!
//! * `generated` — the clusters of [`readonly::clusters`] (multi-group
//!   ones with offline nodes and N+1 failures, single-group DRBD, plain,
//!   ext and mixed ones with offline and drained nodes), each run with
//!   its defaults, then with option families in turn over the corpus
//!   ([`FAMILIES`]: verbosity, `-p` with and without field lists,
//!   `--print-instances`, `-q`, `-O`, the shelltests' `-v -v -p
//!   --print-instances`, `--ignore-dynu`, `--static-kvm-node-memory`);
//! * `cli` — the help, version and completion texts and bad input, on the
//!   first cluster;
//! * the option sets of Ganeti's data files, and what hinfo's output says
//!   (for the report).
//!
//! Accepted patterns: `info:<id glob>`.

use std::path::PathBuf;
use std::time::Duration;

use super::common::Part;
use super::readonly::clusters::{self, Cluster};
use super::readonly::known::Names;
use super::readonly::{self, CorpusSpec, ProfileSets, Programs, RunSpec, SuiteSpec};
use crate::generate::rng::Rng;
use crate::process::{Run, Status};

/// The info suite's own options.
#[derive(clap::Args, Debug)]
pub(super) struct InfoOptions {
    /// hinfo (--install-hail installs ganeti-htools if missing).
    #[arg(
        long,
        value_name = "PATH",
        default_value = "/usr/lib/ganeti/3.0/usr/bin/hinfo"
    )]
    pub(super) hinfo: PathBuf,
    /// The program compared with hinfo.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "target/release/hailstone-info"
    )]
    pub(super) info_bin: PathBuf,
}

impl InfoOptions {
    /// The suite's two programs.
    pub(super) fn programs(&self) -> Programs {
        Programs {
            original: self.hinfo.clone(),
            ours: self.info_bin.clone(),
        }
    }
}

pub(super) const NAMES: Names = Names {
    original: "hinfo",
    ours: "hailstone-info",
};

/// The suite: its programs' names, corpus and runs.
pub(super) const SPEC: SuiteSpec = SuiteSpec {
    name: "info",
    names: NAMES,
    ours_option: "--info-bin",
    corpus: CorpusSpec {
        ci: (80, (3, 12), 1),
        full: (250, (3, 40), 11000),
        extra: (4, 5),
        full_cap: Duration::from_secs(120),
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
    ("vvv+print", &["-v", "-v", "-v", "-p", "--print-instances"]),
    ("fields+quiet", &["-pname,pcnt,scnt,fmem,fdsk,tags", "-q"]),
];

/// The data file option sets of the full profile.
const DATAFILE_SETS_FULL: [(&str, &[&str]); 7] = [
    ("default", &[]),
    ("vvv+print", &["-v", "-v", "-v", "-p", "--print-instances"]),
    ("fields+quiet", &["-pname,pcnt,scnt,fmem,fdsk,tags", "-q"]),
    ("vv", &["-v", "-v"]),
    ("print-instances", &["--print-instances"]),
    (
        "print-plus",
        &["-p+ptags,peermap,spindle_count,inst_spindles"],
    ),
    ("static-memory", &["--static-kvm-node-memory=8192", "-v"]),
];

/// The option families of the generated runs, used in turn.
pub(super) const FAMILIES: [&str; 13] = [
    "vv",
    "vvv",
    "print-nodes",
    "print-fields",
    "print-plus",
    "print-instances",
    "quiet",
    "offline",
    "shelltest-form",
    "offline+print",
    "ignore-dynu",
    "static-kvm-node-memory",
    "print-long",
];

/// Field lists for `-p` (some with fields hinfo does not know).
const FIELDS: [&str; 4] = [
    "-pname,pcnt,scnt,fmem,fdsk,tags",
    "-pname,tmem,nmem,imem,xmem,fmem,umem,rmem,tdsk,fdsk,pcpu,vcpu",
    "-pidx,name,fqdn,status,plist,slist,pfmem,pfdsk,rcpu",
    "-pname,cload,mload,dload,nload,ptags,peermap,group",
];

/// Up to two online nodes as `-O` options (the first node when none is
/// online).
fn offline_args(cl: &Cluster, r: &mut Rng) -> Vec<String> {
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

/// The options of `family` on a cluster.
fn family_args(family: &str, cl: &Cluster, r: &mut Rng) -> Vec<String> {
    let s = |xs: &[&str]| xs.iter().map(|x| (*x).to_owned()).collect::<Vec<String>>();
    match family {
        "vv" => s(&["-v", "-v"]),
        "vvv" => s(&["-v", "-v", "-v"]),
        "print-nodes" => s(r.pick::<&[&str]>(&[&["-p"], &["--print-nodes"]])),
        "print-fields" => s(&[*r.pick(&FIELDS)]),
        "print-plus" => s(&["-p+ptags,spindle_count,hi_spindles,inst_spindles,bogus"]),
        "print-instances" => s(&["--print-instances"]),
        "quiet" => s(r.pick::<&[&str]>(&[&["-q"], &["-q", "-q"], &["-q", "-p"]])),
        "offline" => offline_args(cl, r),
        "shelltest-form" => s(&["-v", "-v", "-p", "--print-instances"]),
        "offline+print" => [offline_args(cl, r), s(&["-p", "-v"])].concat(),
        "ignore-dynu" => s(&["--ignore-dynu", "-v"]),
        "static-kvm-node-memory" => vec![format!(
            "--static-kvm-node-memory={}",
            r.pick(&["0", "4096", "32768"])
        )],
        _ => s(&[
            "--print-nodes=name,pcnt,scnt,ptags",
            "--print-instances",
            "-v",
        ]),
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
    let files = vec![("cluster.data".to_owned(), cl.data.text())];
    let t = readonly::text_data(k);
    let run = |name: &str, args: Vec<String>| RunSpec {
        id: format!("{}#{name}", cl.id),
        part: Part::Generated,
        family: name.to_owned(),
        args: [args, t.clone()].concat(),
        files: files.clone(),
    };
    let mut out = vec![run("default", Vec::new())];
    let mut r = Rng::new(0x1f0_0000 ^ (k as u64).wrapping_mul(0x2545_f491));
    for _ in 0..extra {
        let family = FAMILIES[*next % FAMILIES.len()];
        *next += 1;
        out.push(run(family, family_args(family, cl, &mut r)));
    }
    out
}

/// Bad input and the help texts, on a generated cluster: the common
/// cases ([`readonly::cli_runs`]) and these.
pub(super) fn cli_runs(cl: &Cluster) -> Vec<RunSpec> {
    const T: &str = readonly::T_CLUSTER;
    let cases: &[(&str, &[&str])] = &[
        ("missing-value", &[T, "-O"]),
        ("ambiguous-option", &["--print", T]),
        ("print-unknown-field", &["-pbogus", T]),
        ("print-empty-field-list", &["-p", "-p", T]),
        ("mond-maybe", &["--mond=maybe", T]),
        ("bad-static-memory", &["--static-kvm-node-memory=x", T]),
        (
            "static-memory",
            &["--static-kvm-node-memory=4096", "-v", "-v", T],
        ),
        (
            "ialloc-src-print",
            &["-I", "{IN}/request.json", "-p", "--print-instances"],
        ),
        ("abbreviations", &["--print-i", "--verb", "--verb", T]),
        ("rapi-missing-file", &["-m", "file://{IN}/no-such-rapi"]),
    ];
    readonly::cli_runs(cases, &readonly::cli_files(cl))
}

/// What hinfo's run says, in a few words.
pub(super) fn outcome(run: &Run) -> &'static str {
    let out = String::from_utf8_lossy(&run.stdout);
    match run.status {
        Status::Exited(0) => {}
        Status::Exited(_) => return "error",
        Status::Capped => return "stopped at the cap",
        _ => return "killed",
    }
    if out.contains("Cluster is N+1 unhappy") {
        "N+1 unhappy"
    } else if out.contains("Cluster is N+1 happy") {
        "N+1 happy"
    } else {
        "other"
    }
}
