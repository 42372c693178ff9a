//! The roll suite (`--suite roll`): Ganeti's `hroller` against
//! `hailstone-roll`, which must print the same bytes on stdout and stderr,
//! exit with the same status and write the same `-S FILE.original`; the
//! runs themselves are made by [`super::readonly`]. This module owns what
//! is hroller's own:
//!
//! * `generated` — the clusters of [`readonly::clusters`] (multi-group
//!   ones with offline nodes, single-group DRBD, plain, ext and mixed ones
//!   with offline and drained nodes) edited for hroller ([`edit`]: a
//!   master node on every cluster that has an online node, since hroller
//!   refuses a cluster without one unless `-f`, and node tags on most),
//!   each run with its defaults, then with option families in turn over
//!   the corpus ([`FAMILIES`]: `--print-moves`, `--full-evacuation`,
//!   `--offline-maintenance`, the non-redundant switches,
//!   `--one-step-only`, verbosity (`-v -v -v` prints the graph and the
//!   colourings' statistics), `--no-headers`, `-G`, `--node-tags`, `-O`,
//!   `-S`, the cluster without its master with and without `-f`,
//!   `--static-kvm-node-memory`, combined);
//! * `cli` — the help, version and completion texts and bad input, on the
//!   first cluster;
//! * the option sets of Ganeti's data files, and what hroller's output
//!   says (for the report).
//!
//! Accepted patterns: `roll:<id glob>`.

use std::path::PathBuf;
use std::time::Duration;

use super::balance::clusters::set_master;
use super::balance::datafile::{self, node, DataFile};
use super::common::Part;
use super::readonly::clusters::{self, Cluster};
use super::readonly::known::Names;
use super::readonly::{self, CorpusSpec, ProfileSets, Programs, RunSpec, SuiteSpec};
use crate::generate::rng::Rng;
use crate::process::{Run, Status};

#[cfg(test)]
mod tests;

/// The roll suite's own options.
#[derive(clap::Args, Debug)]
pub(super) struct RollOptions {
    /// hroller (--install-hail installs ganeti-htools if missing).
    #[arg(
        long,
        value_name = "PATH",
        default_value = "/usr/lib/ganeti/3.0/usr/bin/hroller"
    )]
    pub(super) hroller: PathBuf,
    /// The program compared with hroller.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "target/release/hailstone-roll"
    )]
    pub(super) roll_bin: PathBuf,
}

impl RollOptions {
    /// The suite's two programs.
    pub(super) fn programs(&self) -> Programs {
        Programs {
            original: self.hroller.clone(),
            ours: self.roll_bin.clone(),
        }
    }
}

pub(super) const NAMES: Names = Names {
    original: "hroller",
    ours: "hailstone-roll",
};

/// The suite: its programs' names, corpus and runs.
pub(super) const SPEC: SuiteSpec = SuiteSpec {
    name: "roll",
    names: NAMES,
    ours_option: "--roll-bin",
    corpus: CorpusSpec {
        ci: (60, (3, 12), 1),
        full: (250, (3, 40), 13000),
        extra: (8, FAMILIES.len()),
        full_cap: Duration::from_secs(120),
        edit: Some(edit),
    },
    outcome,
    datafile_sets: ProfileSets {
        ci: &DATAFILE_SETS_CI,
        full: &DATAFILE_SETS_FULL,
    },
    generated: generated_runs,
    cli: cli_runs,
};

/// The node tags drawn from.
pub(super) const TAGS: [&str; 5] = ["red", "blue", "green", "rack:r1", "rack:r2"];

fn flag(line: &[String]) -> &str {
    line.get(node::FLAG).map_or("", String::as_str)
}

/// hroller's edit of a generated cluster: a master on a cluster without
/// one (an online node, when there is one), and on three clusters in four
/// one or two tags of [`TAGS`] on about half the nodes (at least one).
pub(super) fn edit(cl: &mut Cluster, r: &mut Rng) {
    let has_master = cl.data.nodes().iter().any(|n| flag(n) == "M");
    if !has_master && set_master(&mut cl.data, r) && !cl.features.contains(&"master") {
        cl.features.push("master");
    }
    if !r.chance(0.75) || cl.data.nodes().is_empty() {
        return;
    }
    let mut tagged = false;
    for n in cl.data.nodes_mut().iter_mut() {
        if !r.chance(0.5) {
            continue;
        }
        let mut tags: Vec<String> = n
            .get(node::TAGS)
            .map(|t| {
                t.split(',')
                    .filter(|x| !x.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        for _ in 0..1 + r.below(2) {
            let t = (*r.pick(&TAGS)).to_owned();
            if !tags.contains(&t) {
                tags.push(t);
            }
        }
        datafile::set(n, node::TAGS, tags.join(","));
        tagged = true;
    }
    if !tagged {
        let first = &mut cl.data.nodes_mut()[0];
        let t = match first.get(node::TAGS).map(String::as_str) {
            None | Some("") => TAGS[0].to_owned(),
            Some(x) => format!("{x},{}", TAGS[0]),
        };
        datafile::set(first, node::TAGS, t);
    }
    cl.features.push("node-tags");
}

/// The distinct node tags of a cluster, in order of first use.
pub(super) fn node_tags(data: &DataFile) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in data.nodes() {
        for t in n.get(node::TAGS).map_or("", String::as_str).split(',') {
            if !t.is_empty() && !out.iter().any(|x| x == t) {
                out.push(t.to_owned());
            }
        }
    }
    out
}

/// The cluster without its master: every `M` node written `N`.
pub(super) fn without_master(data: &DataFile) -> String {
    let mut d = data.clone();
    for n in d.nodes_mut().iter_mut() {
        if flag(n) == "M" {
            datafile::set(n, node::FLAG, "N");
        }
    }
    d.text()
}

/// The cluster with a second master: the first online node that is not
/// the master written `M` (and a master where there was none).
pub(super) fn two_masters(data: &DataFile) -> String {
    let mut d = data.clone();
    let mut left = 2 - d.nodes().iter().filter(|n| flag(n) == "M").count().min(2);
    for n in d.nodes_mut().iter_mut() {
        if left > 0 && flag(n) == "N" {
            datafile::set(n, node::FLAG, "M");
            left -= 1;
        }
    }
    d.text()
}

/// The data file option sets of the ci profile.
const DATAFILE_SETS_CI: [(&str, &[&str]); 3] = [
    ("default", &[]),
    (
        "force+vvv+moves",
        &["-f", "-v", "-v", "-v", "--print-moves"],
    ),
    (
        "force+full-evacuation",
        &["-f", "--full-evacuation", "--print-moves", "--no-headers"],
    ),
];

/// The data file option sets of the full profile.
const DATAFILE_SETS_FULL: [(&str, &[&str]); 7] = [
    ("default", &[]),
    (
        "force+vvv+moves",
        &["-f", "-v", "-v", "-v", "--print-moves"],
    ),
    (
        "force+full-evacuation",
        &["-f", "--full-evacuation", "--print-moves", "--no-headers"],
    ),
    (
        "force+ignore-non-redundant",
        &["-f", "--ignore-non-redundant", "--print-moves"],
    ),
    ("force+skip-non-redundant", &["-f", "--skip-non-redundant"]),
    (
        "force+offline-maintenance",
        &[
            "-f",
            "--offline-maintenance",
            "--one-step-only",
            "--print-moves",
        ],
    ),
    (
        "force+one-step-full-evacuation",
        &[
            "-f",
            "--full-evacuation",
            "--one-step-only",
            "--print-moves",
            "-v",
        ],
    ),
];

/// The option families of the generated runs, used in turn.
pub(super) const FAMILIES: [&str; 17] = [
    "print-moves",
    "full-evacuation",
    "offline-maintenance",
    "skip-non-redundant",
    "ignore-non-redundant",
    "one-step-only",
    "vvv",
    "no-headers",
    "group",
    "node-tags",
    "offline",
    "save",
    "no-master",
    "no-master-force",
    "verbosity",
    "static-kvm-node-memory",
    "combined",
];

/// A group with nodes as `-G` takes it: its name, or its UUID one time
/// in three.
fn group_arg(data: &DataFile, r: &mut Rng) -> String {
    let with_nodes = data.groups_with_nodes();
    let Some(name) = (!with_nodes.is_empty()).then(|| r.pick(&with_nodes).clone()) else {
        return "default".to_owned();
    };
    let uuid = data
        .groups()
        .iter()
        .find(|g| g[0] == name)
        .and_then(|g| g.get(1).cloned());
    match uuid {
        Some(u) if r.chance(1.0 / 3.0) => u,
        _ => name,
    }
}

/// Up to two online nodes as `-O` options (the first node when none is
/// online).
fn offline_args(data: &DataFile, r: &mut Rng) -> Vec<String> {
    let online = clusters::online_nodes(data);
    let nodes = if online.is_empty() {
        data.nodes().iter().take(1).map(|n| n[0].clone()).collect()
    } else {
        let count = 1 + r.below(2) as usize;
        clusters::some_of(&online, count, r)
    };
    nodes
        .into_iter()
        .flat_map(|n| ["-O".to_owned(), n])
        .collect()
}

/// A `--node-tags` option: one or two tags the nodes carry (a tag none
/// carries when they carry none).
fn node_tags_arg(data: &DataFile, r: &mut Rng) -> String {
    let tags = node_tags(data);
    let list = if tags.is_empty() {
        "red".to_owned()
    } else {
        let count = if r.chance(0.3) { 2 } else { 1 };
        clusters::some_of(&tags, count, r).join(",")
    };
    format!("--node-tags={list}")
}

/// The options of `family` on a cluster, and whether it reads the
/// cluster without its master.
fn family_args(family: &str, cl: &Cluster, r: &mut Rng) -> (Vec<String>, bool) {
    let s = |xs: &[&str]| xs.iter().map(|x| (*x).to_owned()).collect::<Vec<String>>();
    let moves = |r: &mut Rng| {
        if r.chance(0.5) {
            s(&["--print-moves"])
        } else {
            Vec::new()
        }
    };
    let args = match family {
        "print-moves" => s(&["--print-moves"]),
        "full-evacuation" => s(&["--full-evacuation", "--print-moves"]),
        "offline-maintenance" => [s(&["--offline-maintenance"]), moves(r)].concat(),
        "skip-non-redundant" => [s(&["--skip-non-redundant"]), moves(r)].concat(),
        "ignore-non-redundant" => [s(&["--ignore-non-redundant"]), moves(r)].concat(),
        "one-step-only" => {
            let full = if r.chance(0.5) {
                s(&["--full-evacuation"])
            } else {
                Vec::new()
            };
            [s(&["--one-step-only", "--print-moves"]), full].concat()
        }
        "vvv" => s(&["-v", "-v", "-v"]),
        "no-headers" => [s(&["--no-headers"]), moves(r)].concat(),
        "group" => {
            let g = group_arg(&cl.data, r);
            if r.chance(0.5) {
                vec![format!("--group={g}")]
            } else {
                vec!["-G".to_owned(), g]
            }
        }
        "node-tags" => [vec![node_tags_arg(&cl.data, r)], moves(r)].concat(),
        "offline" => offline_args(&cl.data, r),
        "save" => {
            let path = *r.pick(&["{OUT}/state", "state"]);
            let form = if r.chance(0.5) {
                vec!["-S".to_owned(), path.to_owned()]
            } else {
                vec![format!("--save={path}")]
            };
            [form, moves(r)].concat()
        }
        "no-master" => return (Vec::new(), true),
        "no-master-force" => {
            let f = *r.pick(&["-f", "--force"]);
            return ([s(&[f]), moves(r)].concat(), true);
        }
        "verbosity" => s(r.pick::<&[&str]>(&[
            &["-v"],
            &["-v", "-v"],
            &["-q"],
            &["-q", "-q"],
            &["-v", "-v", "-v", "-v"],
            &["-v", "-q"],
        ])),
        "static-kvm-node-memory" => vec![
            format!(
                "--static-kvm-node-memory={}",
                r.pick(&["0", "4096", "32768"])
            ),
            "--full-evacuation".to_owned(),
            "--print-moves".to_owned(),
        ],
        _ => {
            let mut a = Vec::new();
            if cl.shape == clusters::Shape::MultiGroup || r.chance(0.3) {
                a.extend(["-G".to_owned(), group_arg(&cl.data, r)]);
            }
            a.push((*r.pick(&["--full-evacuation", "--offline-maintenance"])).to_owned());
            a.push(
                (*r.pick(&[
                    "--ignore-non-redundant",
                    "--skip-non-redundant",
                    "--one-step-only",
                ]))
                .to_owned(),
            );
            if r.chance(0.5) {
                a.push(node_tags_arg(&cl.data, r));
            }
            a.extend(s(&["--print-moves", "-v", "-v", "--no-headers"]));
            a
        }
    };
    (args, false)
}

/// The runs of cluster number `k`: with its defaults, then `extra` family
/// runs, families taken in turn from `next` on.
pub(super) fn generated_runs(
    cl: &Cluster,
    k: usize,
    extra: usize,
    next: &mut usize,
) -> Vec<RunSpec> {
    let cluster = ("cluster.data".to_owned(), cl.data.text());
    let t = readonly::text_data(k);
    let t_nomaster: Vec<String> = t
        .iter()
        .map(|a| a.replace("cluster.data", "nomaster.data"))
        .collect();
    let run = |name: &str, args: Vec<String>, nomaster: bool| RunSpec {
        id: format!("{}#{name}", cl.id),
        part: Part::Generated,
        family: name.to_owned(),
        args: [
            args,
            if nomaster {
                t_nomaster.clone()
            } else {
                t.clone()
            },
        ]
        .concat(),
        files: if nomaster {
            vec![("nomaster.data".to_owned(), without_master(&cl.data))]
        } else {
            vec![cluster.clone()]
        },
    };
    let mut out = vec![run("default", Vec::new(), false)];
    let mut r = Rng::new(0x7011_0000 ^ (k as u64).wrapping_mul(0x2545_f491));
    for _ in 0..extra {
        let family = FAMILIES[*next % FAMILIES.len()];
        *next += 1;
        let (args, nomaster) = family_args(family, cl, &mut r);
        out.push(run(family, args, nomaster));
    }
    out
}

/// Bad input and the help texts, on a generated cluster: the common
/// cases ([`readonly::cli_runs`]) and these.
pub(super) fn cli_runs(cl: &Cluster) -> Vec<RunSpec> {
    const T: &str = readonly::T_CLUSTER;
    let cases: &[(&str, &[&str])] = &[
        ("missing-value", &[T, "-G"]),
        ("ambiguous-option", &["--o", T]),
        ("no-master", &["-t", "{IN}/no-master.data"]),
        ("no-master-force", &["-f", "-t", "{IN}/no-master.data"]),
        ("two-masters", &["-t", "{IN}/two-masters.data"]),
        ("two-masters-force", &["-f", "-t", "{IN}/two-masters.data"]),
        ("force", &["-f", T]),
        ("unknown-group", &["-G", "no-such-group", T]),
        ("node-tags-absent", &["--node-tags=no-such-tag", T]),
        ("node-tags-empty", &["--node-tags=", T]),
        ("bad-static-memory", &["--static-kvm-node-memory=x", T]),
        (
            "static-memory",
            &["--static-kvm-node-memory=4096", "-v", "-v", T],
        ),
        ("save-unwritable", &["-S", "{IN}/no-such-dir/state", T]),
        ("one-step-only-alone", &["--one-step-only", T]),
        (
            "every-switch",
            &[
                "--offline-maintenance",
                "--full-evacuation",
                "--skip-non-redundant",
                "--ignore-non-redundant",
                "--one-step-only",
                "--print-moves",
                "--no-headers",
                "-v",
                T,
            ],
        ),
        ("ialloc-src-force", &["-I", "{IN}/request.json", "-f", "-v"]),
        (
            "abbreviations",
            &["--full", "--print", "--one", "--verb", T],
        ),
        ("rapi-missing-file", &["-m", "file://{IN}/no-such-rapi"]),
    ];
    let mut files = readonly::cli_files(cl);
    files.push(("no-master.data".to_owned(), without_master(&cl.data)));
    files.push(("two-masters.data".to_owned(), two_masters(&cl.data)));
    readonly::cli_runs(cases, &files)
}

/// What hroller's run says, in a few words: its error, or how many reboot
/// groups it prints.
pub(super) fn outcome(run: &Run) -> &'static str {
    let err = String::from_utf8_lossy(&run.stderr);
    match run.status {
        Status::Exited(0) => {}
        Status::Exited(_) if err.contains("Error: No master node found") => {
            return "error: no master"
        }
        Status::Exited(_) if err.contains("more than one master") => {
            return "error: several masters"
        }
        Status::Exited(_) if err.contains("Cannot create node graph") => {
            return "error: no node graph"
        }
        Status::Exited(_) if err.contains("Not enough capacity") => {
            return "error: not enough capacity"
        }
        Status::Exited(_) if err.contains("Failed to migrate") => return "error: cannot migrate",
        Status::Exited(_) => return "error: other",
        Status::Capped => return "stopped at the cap",
        _ => return "killed",
    }
    let out = String::from_utf8_lossy(&run.stdout);
    // Reboot groups are the lines of node names: not the header, not a
    // move (indented), not the graph or the statistics (`X: ...`).
    let groups = out
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with([' ', '\'']) && !l.contains(": "))
        .count();
    match groups {
        0 => "no reboot group",
        1 => "one reboot group",
        2 | 3 => "2-3 reboot groups",
        _ => "4 or more reboot groups",
    }
}
