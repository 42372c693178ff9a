//! One health verdict: `hailstone-check` (hcheck 3.0.2's judgement, byte
//! for byte) and `hailstone-groups check` run on every data file of the
//! generated corpus (the check suite's clusters, which hailstone-compat
//! compares with hcheck, and the multi-group clusters of
//! `tests/groups.rs`), on a hand-made split instance, and on every data
//! file of Ganeti's test data when it is unpacked
//! (`target/ganeti-testsuite`, as `make compat` leaves it; the test says
//! so and goes on without it). Each verdict is read from the `--json`
//! document, not from the exit status: healthy, unhealthy, or refused (no
//! document, an error on stderr).
//!
//! The verdicts must agree, or differ only for a reason both programs'
//! `--help` states, found in the figures:
//!
//! * hailstone-check finds a problem besides the nodes failing N+1 and
//!   the primaries on offline nodes (which both count alike, group by
//!   group): an offline node hosting nothing, primaries sharing an
//!   exclusion tag, a node its global N+1 check cannot evacuate;
//! * an instance whose primary and secondary nodes are in different
//!   groups (in the data file): hailstone-check refuses the cluster or
//!   passes it over, hailstone-groups check reports it.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use hailstone::program::hail::options::LoadOptions;
use hailstone::shell::datafile;
use hailstone_devtools::generate::{generate, CaseSpec};
use serde_json::Value;

use crate::support::n1;

type Main = fn(&[OsString], &mut dyn std::io::Write, &mut dyn std::io::Write) -> u8;

/// A program's judgement of a cluster.
#[derive(Debug, Clone, PartialEq)]
enum Verdict {
    Healthy,
    Unhealthy,
    /// No document: the error on stderr.
    Refused(String),
}

/// Runs `main` with `args` and `--json`: its verdict, by `healthy` of the
/// document, and the document.
fn judge(main: Main, args: &[&str], healthy: fn(&Value) -> bool) -> (Verdict, Value) {
    let args: Vec<OsString> = args.iter().chain(&["--json"]).map(OsString::from).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    main(&args, &mut out, &mut err);
    let err = String::from_utf8_lossy(&err).into_owned();
    if out.is_empty() {
        assert!(!err.is_empty(), "{args:?}: neither a document nor an error");
        return (Verdict::Refused(err), Value::Null);
    }
    let doc: Value = serde_json::from_slice(&out)
        .unwrap_or_else(|e| panic!("{args:?}: the document does not parse: {e}"));
    let verdict = if healthy(&doc) {
        Verdict::Healthy
    } else {
        Verdict::Unhealthy
    };
    (verdict, doc)
}

/// The reasons two verdicts may differ, as both `--help` texts give them
/// (the words each help must hold).
const REASONS: [(&str, &[&str]); 4] = [
    (
        "offline node hosting nothing",
        &["offline node that hosts nothing"],
    ),
    ("exclusion tag", &["primaries sharing an exclusion tag"]),
    ("global N+1", &["global N+1 check"]),
    (
        "split instance",
        &["split instance", "secondary node in another group"],
    ),
];

/// Why the verdicts of a cluster differ, or a description of a difference
/// no help states.
fn difference(
    data: &n1::Data,
    check: (&Verdict, &Value),
    groups: (&Verdict, &Value),
) -> Result<Vec<&'static str>, String> {
    let split = !data.split_instances().is_empty();
    let reported_split = groups.1["report"]["groups"].as_array().is_some_and(|gs| {
        gs.iter().any(|g| {
            g["split_instances"]
                .as_array()
                .is_some_and(|s| !s.is_empty())
        })
    });
    let only_split = groups.1["report"]["groups"].as_array().is_some_and(|gs| {
        gs.iter().all(|g| {
            g["nodes_failing_n1"].as_array().is_some_and(Vec::is_empty)
                && g["offline_nodes_hosting"]
                    .as_array()
                    .is_some_and(Vec::is_empty)
        })
    });
    match (check.0, groups.0) {
        (Verdict::Refused(e), Verdict::Unhealthy)
            if split && reported_split && e.contains("secondary node in another group") =>
        {
            Ok(vec!["split instance"])
        }
        (Verdict::Healthy, Verdict::Unhealthy) if split && reported_split && only_split => {
            Ok(vec!["split instance"])
        }
        (Verdict::Unhealthy, Verdict::Healthy) => {
            let counts = &check.1["cluster"]["initial"];
            let count = |k: &str| counts[k].as_i64().unwrap_or(0);
            if count("n1_fail") > 0 || count("offline_pri") > 0 || data.offline_node_hosts() {
                return Err(format!("hailstone-check counts {counts}"));
            }
            let mut why = Vec::new();
            for (key, reason) in [
                ("offline_nodes", "offline node hosting nothing"),
                ("conflict_tags", "exclusion tag"),
                ("gn1_fail", "global N+1"),
            ] {
                if count(key) > 0 {
                    why.push(reason);
                }
            }
            Ok(why)
        }
        (c, g) => Err(format!(
            "hailstone-check {c:?}, hailstone-groups check {g:?}"
        )),
    }
}

/// What the corpus showed.
#[derive(Default)]
struct Tally {
    files: usize,
    agree: BTreeMap<String, usize>,
    differ: BTreeMap<&'static str, usize>,
    differing_files: usize,
    /// Files and agreeing files by source.
    sources: BTreeMap<&'static str, (usize, usize)>,
}

/// Judges one data file with both programs; panics on a difference no
/// help states, and on a group whose nodes failing N+1 the two count
/// differently.
fn compare(source: &'static str, label: &str, path: &Path, tally: &mut Tally) {
    let text = std::fs::read_to_string(path).unwrap();
    let data = n1::parse(&text);
    let file = path.to_str().unwrap();
    let check = judge(hailstone::program::check::main, &["-t", file], |d| {
        d["need_rebalance"] == false
    });
    let groups = judge(
        hailstone::program::groups::main,
        &["check", "-t", file],
        |d| d["healthy"] == true,
    );
    tally.files += 1;
    tally.sources.entry(source).or_default().0 += 1;
    if let (Verdict::Healthy | Verdict::Unhealthy, Verdict::Healthy | Verdict::Unhealthy) =
        (&check.0, &groups.0)
    {
        for g in check.1["groups"].as_array().unwrap() {
            let name = g["name"].as_str().unwrap();
            let failing = groups.1["report"]["groups"]
                .as_array()
                .unwrap()
                .iter()
                .find(|h| h["group"] == name)
                .map_or(0, |h| h["nodes_failing_n1"].as_array().unwrap().len());
            assert_eq!(
                g["initial"]["n1_fail"].as_u64(),
                Some(failing as u64),
                "{label}: group {name}"
            );
        }
    }
    let name = |v: &Verdict| match v {
        Verdict::Healthy => "healthy",
        Verdict::Unhealthy => "unhealthy",
        Verdict::Refused(_) => "refused",
    };
    if check.0 == groups.0
        || matches!(
            (&check.0, &groups.0),
            (Verdict::Refused(_), Verdict::Refused(_))
        )
    {
        *tally.agree.entry(name(&check.0).to_owned()).or_default() += 1;
        tally.sources.entry(source).or_default().1 += 1;
        return;
    }
    match difference(&data, (&check.0, &check.1), (&groups.0, &groups.1)) {
        Ok(why) => {
            assert!(!why.is_empty(), "{label}: differs for no reason");
            tally.differing_files += 1;
            for w in why {
                *tally.differ.entry(w).or_default() += 1;
            }
        }
        Err(e) => panic!("{label}: the verdicts differ for no reason the help states: {e}"),
    }
}

/// Ganeti's htools test data under `target/ganeti-testsuite`, when there.
fn ganeti_test_data() -> Option<PathBuf> {
    let cache = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ganeti-testsuite");
    let mut versions: Vec<PathBuf> = std::fs::read_dir(cache)
        .ok()?
        .flatten()
        .map(|e| e.path().join("usr/share/ganeti/testsuite/test/data/htools"))
        .filter(|p| p.is_dir())
        .collect();
    versions.sort();
    versions.pop()
}

/// `--help` of both programs states every reason a difference may have.
#[test]
fn both_helps_state_why_the_verdicts_may_differ() {
    for (name, usage) in [
        (
            "hailstone-check",
            hailstone::program::check::options::COMMAND_LINE.usage(),
        ),
        (
            "hailstone-groups",
            hailstone::program::groups::options::usage(),
        ),
    ] {
        let text = usage.split_whitespace().collect::<Vec<_>>().join(" ");
        for (reason, words) in REASONS {
            for w in words {
                assert!(
                    text.contains(w),
                    "{name} --help does not say {w:?} ({reason}):\n{usage}"
                );
            }
        }
    }
}

#[test]
fn check_and_groups_check_agree() {
    let dir = crate::run::scratch("verdicts");
    let mut tally = Tally::default();
    let corpus = hailstone_devtools::compat::check_corpus().expect("the check suite's corpus");
    for (id, text) in &corpus {
        let path = dir.join(format!("{}.data", id.replace('/', "_")));
        std::fs::write(&path, text).unwrap();
        compare("check suite", id, &path, &mut tally);
    }
    for seed in 1..=300u64 {
        let nodes = 4 + (seed as usize * 7) % 15;
        let groups = 2 + (seed as usize) % 3;
        let case = generate(&CaseSpec::multi_group(seed, nodes, groups));
        let Ok(text) = datafile::from_request(case.request.as_bytes(), &LoadOptions::default())
        else {
            continue;
        };
        let path = dir.join(format!("multi-group-{seed}.data"));
        std::fs::write(&path, text).unwrap();
        compare(
            "multi-group",
            &format!("multi-group seed {seed}"),
            &path,
            &mut tally,
        );
    }
    // A hand-made split instance (its secondary in the other group), so
    // that the corpus has one without Ganeti's test data.
    let split = format!(
        "g1|uuid-g1|preferred||\ng2|uuid-g2|preferred||\n\n\
         n1|16384|0|12000|100000|90000|8|N|uuid-g1|1\n\
         n2|16384|0|12000|100000|90000|8|N|uuid-g2|1\n\n\
         split|1024|1024|1|running|Y|n1|n2|drbd||1\n\n\
         {}g2|128,1,1024,1,1,1|128,1,1024,1,1,1;32768,8,1048576,16,8,12|drbd|4.0|32.0\n",
        crate::check::POLICY
    );
    let path = dir.join("split.data");
    std::fs::write(&path, split).unwrap();
    compare("hand-made", "hand-made split instance", &path, &mut tally);
    assert_eq!(
        tally.differ.get("split instance"),
        Some(&1),
        "the split instance"
    );
    let generated = tally.files;
    match ganeti_test_data() {
        Some(testdata) => {
            let mut files: Vec<PathBuf> = std::fs::read_dir(&testdata)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "data"))
                .collect();
            files.sort();
            for f in files {
                let label = f.file_name().unwrap().to_string_lossy().into_owned();
                compare("Ganeti", &label, &f, &mut tally);
            }
        }
        None => eprintln!(
            "verdicts: no Ganeti test data under target/ganeti-testsuite (make compat unpacks it): generated clusters only"
        ),
    }
    let _ = std::fs::remove_dir_all(&dir);
    let agreeing: usize = tally.agree.values().sum();
    eprintln!(
        "verdicts: {} files, {agreeing} agree {:?}, {} differ for a stated reason {:?}; (files, agreeing) by source {:?}",
        tally.files, tally.agree, tally.differing_files, tally.differ, tally.sources
    );
    assert!(generated >= 350, "{generated} generated files");
    assert!(
        agreeing * 4 >= tally.files * 3,
        "too few agree: {agreeing} of {}",
        tally.files
    );
    // Both verdicts among the agreeing ones (the generated clusters are
    // mostly unhealthy: offline nodes, nodes failing N+1).
    for (v, least) in [("healthy", 5), ("unhealthy", 100)] {
        assert!(
            tally.agree.get(v).copied().unwrap_or(0) >= least,
            "few agree on {v}: {:?}",
            tally.agree
        );
    }
}
