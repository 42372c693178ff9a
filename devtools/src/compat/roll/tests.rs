//! The roll suite's own tests: options and profiles, the edited clusters
//! (one master, node tags), their runs and the files they read, the
//! command-line cases, hroller's outcomes and the help text check with
//! hailstone-roll's extra row.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

use super::*;
use crate::compat::balance::datafile::DataFile;
use crate::compat::common::Profile;
use crate::compat::config::{parse_args, Suite as SuiteName};
use crate::compat::readonly::clusters::Shape;
use crate::compat::readonly::known;
use crate::compat::readonly::Corpus;

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

fn masters(data: &DataFile) -> usize {
    data.nodes().iter().filter(|n| flag(n) == "M").count()
}

fn parsed(text: &str) -> DataFile {
    DataFile::parse(text)
}

/// A test corpus of `count` clusters of 3-12 nodes with `extra` family
/// runs each.
fn corpus_of(count: usize, extra: usize) -> Corpus {
    Corpus {
        count,
        nodes: (3, 12),
        seed: 1,
        extra,
        cap: Duration::from_secs(1),
        edit: Some(edit),
    }
}

#[test]
fn roll_options_and_profiles() {
    let c = parse_args(&args(&["--suite", "roll"])).unwrap();
    assert_eq!(c.suite, SuiteName::Roll);
    assert_eq!(
        c.roll.roll_bin,
        PathBuf::from("target/release/hailstone-roll")
    );
    assert_eq!(
        c.roll.hroller,
        PathBuf::from("/usr/lib/ganeti/3.0/usr/bin/hroller")
    );
    let ci = SPEC.corpus.corpus(&c.common);
    assert_eq!(
        (ci.count, ci.nodes, ci.seed, ci.extra, ci.cap),
        (60, (3, 12), 1, 8, Duration::from_secs(60))
    );
    assert!(ci.edit.is_some());
    assert_eq!(SPEC.datafile_sets.of(c.common.profile).len(), 3);

    let c = parse_args(&args(&[
        "--suite=roll",
        "--profile",
        "full",
        "--roll-bin",
        "/x/hailstone-roll",
        "--hroller=/y/hroller",
    ]))
    .unwrap();
    assert_eq!(c.roll.roll_bin, PathBuf::from("/x/hailstone-roll"));
    assert_eq!(c.roll.hroller, PathBuf::from("/y/hroller"));
    let full = SPEC.corpus.corpus(&c.common);
    assert!(full.count >= 200);
    assert_eq!(full.nodes, (3, 40));
    // Every family on every cluster.
    assert_eq!(full.extra, FAMILIES.len());
    assert_eq!(full.cap, Duration::from_secs(120));
    assert_ne!(full.seed, 1);
    assert!(SPEC.datafile_sets.of(Profile::Full).len() >= 6);

    let c = parse_args(&args(&[
        "--suite",
        "roll",
        "--count=3",
        "--nodes=4-5",
        "--seed=9",
        "--timeout=7",
    ]))
    .unwrap();
    let o = SPEC.corpus.corpus(&c.common);
    assert_eq!(
        (o.count, o.nodes, o.seed, o.cap),
        (3, (4, 5), 9, Duration::from_secs(7))
    );
    assert!(parse_args(&args(&["--roll-bin"])).is_err());
    assert!(parse_args(&args(&["--hroller"])).is_err());
    let e = parse_args(&args(&["--suite", "rol"])).unwrap_err();
    assert!(e.to_string().contains("info, roll, scan]"), "{e}");
}

/// Every cluster gets exactly one master (hroller refuses none), most
/// get node tags of the palette; nothing else changes.
#[test]
fn edited_clusters() {
    let corpus = corpus_of(30, 8);
    let mut tagged = 0;
    let mut shapes = BTreeSet::new();
    for k in 0..corpus.count {
        let cl = corpus.cluster(k).unwrap();
        assert_eq!(masters(&cl.data), 1, "{}", cl.id);
        assert!(cl.features.contains(&"master"), "{}", cl.id);
        shapes.insert(cl.shape.name());
        let tags = node_tags(&cl.data);
        if cl.features.contains(&"node-tags") {
            tagged += 1;
            assert!(!tags.is_empty(), "{}", cl.id);
        }
        // The same cluster again from its number and seed.
        assert_eq!(corpus.cluster(k).unwrap().data, cl.data);
        // Against the cluster before the edit: the flag (N to M) and the
        // tags are all that changed.
        let plain = clusters::generate_cluster(k, corpus.seed + k as u64, corpus.nodes).unwrap();
        assert_eq!(plain.id, cl.id);
        assert_eq!(plain.data.instances(), cl.data.instances());
        assert_eq!(plain.data.groups(), cl.data.groups());
        assert_eq!(plain.data.nodes().len(), cl.data.nodes().len());
        for (a, b) in plain.data.nodes().iter().zip(cl.data.nodes()) {
            for f in 0..a.len().max(b.len()) {
                let (x, y) = (
                    a.get(f).map_or("", String::as_str),
                    b.get(f).map_or("", String::as_str),
                );
                match f {
                    node::FLAG => assert!(x == y || (x == "N" && y == "M"), "{}", cl.id),
                    node::TAGS => {
                        let old: Vec<&str> = x.split(',').filter(|t| !t.is_empty()).collect();
                        let new: Vec<&str> = y.split(',').filter(|t| !t.is_empty()).collect();
                        assert_eq!(&new[..old.len()], &old[..], "{}", cl.id);
                        assert!(new[old.len()..].iter().all(|t| TAGS.contains(t)));
                        let unique: BTreeSet<&&str> = new.iter().collect();
                        assert_eq!(unique.len(), new.len(), "{}: {y}", cl.id);
                    }
                    _ => assert_eq!(x, y, "{} field {f}", cl.id),
                }
            }
        }
    }
    assert!((15..30).contains(&tagged), "{tagged} of 30 clusters tagged");
    assert_eq!(shapes.len(), 5);
}

#[test]
fn master_variants() {
    let data = parsed(
        "g|u1|preferred||\n\n\
         n1|1|1|1|1|1|1|N|u1|1|red\n\
         n2|1|1|1|1|1|1|M|u1|1|\n\
         n3|1|1|1|1|1|1|Y|u1|1|\n\
         n4|1|1|1|1|1|1|N|u1|1|blue,red\n\n\n\n",
    );
    assert_eq!(node_tags(&data), ["red", "blue"]);
    let none = parsed(&without_master(&data));
    assert_eq!(masters(&none), 0);
    assert_eq!(none.nodes()[1][node::FLAG], "N");
    let two = parsed(&two_masters(&data));
    assert_eq!(masters(&two), 2);
    assert_eq!(two.nodes()[0][node::FLAG], "M");
    assert_eq!(two.nodes()[2][node::FLAG], "Y");
    // Without a master to start with: two are made.
    assert_eq!(masters(&parsed(&two_masters(&none))), 2);
    // The edit adds a master to a cluster without one, on an online node.
    let mut r = Rng::new(5);
    let mut cl = corpus_of(1, 1).cluster(0).unwrap();
    cl.data = none.clone();
    cl.features.clear();
    edit(&mut cl, &mut r);
    assert_eq!(masters(&cl.data), 1);
    let m = cl.data.nodes().iter().position(|n| flag(n) == "M").unwrap();
    assert!(m == 0 || m == 1 || m == 3, "master on offline node {m}");
    assert!(cl.features.contains(&"master"));
}

#[test]
fn roll_runs() {
    let n = 2 * FAMILIES.len();
    let corpus = corpus_of(n, 8);
    let runs = corpus
        .runs(&[Part::Generated, Part::Cli], generated_runs, cli_runs)
        .unwrap();
    assert_eq!(runs.clusters, n);
    let generated: Vec<&RunSpec> = runs
        .runs
        .iter()
        .filter(|r| r.part == Part::Generated)
        .collect();
    assert_eq!(generated.len(), n * (1 + 8));
    let ids: BTreeSet<&str> = runs.runs.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), runs.runs.len(), "run ids are unique");
    for f in FAMILIES {
        assert!(
            generated.iter().any(|r| r.family == f),
            "family {f} never runs"
        );
    }
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (k, chunk) in generated.chunks(9).enumerate() {
        let cl = corpus.cluster(k).unwrap();
        assert_eq!(chunk[0].family, "default");
        assert!(chunk[0]
            .args
            .iter()
            .all(|a| a.contains("{IN}/cluster.data") || a == "-t" || a.starts_with("-t{IN}")));
        let online = clusters::online_nodes(&cl.data);
        let groups = cl.data.groups_with_nodes();
        let uuids: Vec<String> = cl
            .data
            .groups()
            .iter()
            .filter(|g| groups.contains(&g[0]))
            .map(|g| g[1].clone())
            .collect();
        let tags = node_tags(&cl.data);
        for r in chunk {
            assert!(r.id.starts_with(&format!("{}#", cl.id)), "{}", r.id);
            *seen.entry(r.family.as_str()).or_default() += 1;
            // The data file it names is the one it has.
            let (name, text) = &r.files[0];
            assert_eq!(r.files.len(), 1);
            assert!(
                r.args
                    .iter()
                    .any(|a| a.ends_with(&format!("{{IN}}/{name}"))),
                "{}: {:?}",
                r.id,
                r.args
            );
            let data = parsed(text);
            if r.family.starts_with("no-master") {
                assert_eq!(name, "nomaster.data");
                assert_eq!(masters(&data), 0, "{}", r.id);
            } else {
                assert_eq!(name, "cluster.data");
                assert_eq!(data, cl.data);
            }
            for w in r.args.windows(2) {
                match w[0].as_str() {
                    "-O" => assert!(online.contains(&w[1]), "{}: {} offline", r.id, w[1]),
                    "-G" => assert!(
                        groups.contains(&w[1]) || uuids.contains(&w[1]),
                        "{}: group {}",
                        r.id,
                        w[1]
                    ),
                    _ => {}
                }
            }
            for a in &r.args {
                if let Some(g) = a.strip_prefix("--group=") {
                    assert!(groups.iter().chain(&uuids).any(|x| x == g), "{}", r.id);
                }
                if let Some(list) = a.strip_prefix("--node-tags=") {
                    for t in list.split(',') {
                        assert!(
                            tags.iter().any(|x| x == t) || (tags.is_empty() && t == "red"),
                            "{}: tag {t}",
                            r.id
                        );
                    }
                }
                if let Some(p) = a.strip_prefix("--save=") {
                    assert!(p == "state" || p == "{OUT}/state", "{}", r.id);
                }
                assert_ne!(a, "--shared-storage-movable", "{}", r.id);
            }
            match r.family.as_str() {
                "vvv" => assert_eq!(r.args[..3], ["-v", "-v", "-v"]),
                "full-evacuation" => assert!(r.args.iter().any(|a| a == "--full-evacuation")),
                "one-step-only" => assert!(r.args.iter().any(|a| a == "--one-step-only")),
                "no-master" => assert!(!r.args.iter().any(|a| a == "-f")),
                "no-master-force" => {
                    assert!(r.args.iter().any(|a| a == "-f" || a == "--force"));
                }
                "save" => assert!(r.args.iter().any(|a| a == "-S" || a.starts_with("--save="))),
                "combined" if cl.shape == Shape::MultiGroup => {
                    assert!(r.args.iter().any(|a| a == "-G"), "{}", r.id);
                }
                _ => {}
            }
        }
    }
    // In turn: every family about as often as the others.
    let (lo, hi) = (
        seen.iter()
            .filter(|(f, _)| **f != "default")
            .map(|(_, n)| *n)
            .min()
            .unwrap(),
        seen.iter()
            .filter(|(f, _)| **f != "default")
            .map(|(_, n)| *n)
            .max()
            .unwrap(),
    );
    assert!(hi - lo <= 1, "{seen:?}");

    // The full profile's count of family runs: every family once on
    // every cluster.
    let full = corpus_of(4, FAMILIES.len())
        .runs(&[Part::Generated], generated_runs, cli_runs)
        .unwrap();
    for chunk in full.runs.chunks(1 + FAMILIES.len()) {
        let families: BTreeSet<&str> = chunk.iter().map(|r| r.family.as_str()).collect();
        assert_eq!(families.len(), 1 + FAMILIES.len());
    }
}

#[test]
fn roll_cli_runs() {
    let cl = corpus_of(1, 1).cluster(0).unwrap();
    let cli = cli_runs(&cl);
    let ids: BTreeSet<&str> = cli.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), cli.len());
    assert!(cli.len() >= 30);
    for want in [
        "cli/help",
        "cli/version",
        "cli/completion",
        "cli/unknown-option",
        "cli/extra-argument",
        "cli/missing-file",
        "cli/bad-file",
        "cli/unknown-node",
        "cli/unknown-group",
        "cli/no-master",
        "cli/two-masters-force",
        "cli/save-unwritable",
    ] {
        assert!(ids.contains(want), "{want}");
    }
    assert!(cli.iter().all(|r| r.part == Part::Cli));
    // hailstone-roll's own option is no hroller command line.
    assert!(cli
        .iter()
        .all(|r| !r.args.iter().any(|a| a.contains("shared-storage"))));
    let files: BTreeMap<&str, &str> = cli[0]
        .files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    assert_eq!(masters(&parsed(files["no-master.data"])), 0);
    assert_eq!(masters(&parsed(files["two-masters.data"])), 2);
    assert_eq!(masters(&parsed(files["cluster.data"])), 1);
    for name in [
        "request.json",
        "bad.data",
        "empty.data",
        "unknown-node.data",
    ] {
        assert!(files.contains_key(name), "{name}");
    }
}

fn run_of(status: i32, stdout: &str, stderr: &str) -> Run {
    Run {
        status: Status::Exited(status),
        wall: Duration::ZERO,
        stdout: stdout.as_bytes().to_vec(),
        stderr: stderr.as_bytes().to_vec(),
        rss_kib: None,
    }
}

#[test]
fn outcomes() {
    assert_eq!(
        outcome(&run_of(0, "'Node Reboot Groups'\nn1,n2\nn3\n", "")),
        "2-3 reboot groups"
    );
    assert_eq!(
        outcome(&run_of(
            0,
            "Node Graph: array (0,1) [(0,[1]),(1,[0])]\nDcolor: 2 (1,1) TIE Dsatur: 2 (1,1) TIE LF: 2 (1,1)\n'Node Reboot Groups'\nn1\n  inst-1 n2\nn2\n  inst-2 n1\n",
            ""
        )),
        "2-3 reboot groups"
    );
    assert_eq!(outcome(&run_of(0, "n1,n2,n3\n", "")), "one reboot group");
    assert_eq!(
        outcome(&run_of(0, "a\nb\nc\nd\n", "")),
        "4 or more reboot groups"
    );
    assert_eq!(
        outcome(&run_of(0, "'Node Reboot Groups'\n", "")),
        "no reboot group"
    );
    assert_eq!(
        outcome(&run_of(
            1,
            "",
            "Error: No master node found (maybe not supported by backend).\n"
        )),
        "error: no master"
    );
    // With -f the missing master is a warning: the error that follows
    // is the outcome.
    assert_eq!(
        outcome(&run_of(
            1,
            "",
            "Warning: No master node found (maybe not supported by backend).\nError: Cannot create node graph\n"
        )),
        "error: no node graph"
    );
    assert_eq!(
        outcome(&run_of(
            1,
            "",
            "Error: Found more than one master node: [\"a\",\"b\"]\n"
        )),
        "error: several masters"
    );
    assert_eq!(
        outcome(&run_of(1, "", "Error: Cannot create node graph\n")),
        "error: no node graph"
    );
    assert_eq!(
        outcome(&run_of(
            1,
            "",
            "Error: Not enough capacity to move secondaries\n"
        )),
        "error: not enough capacity"
    );
    assert_eq!(
        outcome(&run_of(
            1,
            "",
            "Error: Failed to migrate instances off nodes\n"
        )),
        "error: cannot migrate"
    );
    assert_eq!(outcome(&run_of(2, "", "x")), "error: other");
}

const ROWS: &str = "\
  -t FILE     --text-data=FILE            the cluster data FILE
              --skip-non-redundant        Skip nodes that host a non-redundant instance
  -h          --help                      show help
";

/// hailstone-roll's extra help row names an option of hroller's in its
/// description: only its option column counts.
#[test]
fn help_with_extra_row() {
    let h = format!("hroller (ganeti) version 3.0.2-3\nUsage: hroller [OPTION...]\n{ROWS}");
    let extra = "              --shared-storage-movable    treat instances on shared storage as movable: --skip-non-redundant keeps the nodes that hold them\n";
    let q =
        format!("hailstone-roll version 0.1.0\nUsage: hailstone-roll [OPTION...]\n{ROWS}{extra}");
    assert_eq!(known::help_text(NAMES, &h, &q), Ok(()));
    // A row repeating hroller's option in its option column is refused.
    let again = format!("{q}              --skip-non-redundant        again\n");
    assert!(known::help_text(NAMES, &h, &again).is_err());
    let both = format!("{q}  -x          --x,--help                  x\n");
    assert!(known::help_text(NAMES, &h, &both).is_err());
    let completion = "-t,--text-data file\n--skip-non-redundant none\n";
    assert_eq!(
        known::completion_text(
            NAMES,
            completion,
            &format!("{completion}--shared-storage-movable none\n")
        ),
        Ok(())
    );
    assert!(known::completion_text(
        NAMES,
        completion,
        &format!("{completion}--skip-non-redundant none\n")
    )
    .is_err());
}
