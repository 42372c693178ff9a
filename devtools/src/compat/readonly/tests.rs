//! The check and info suites' own tests: options and profiles, the
//! generated clusters and their runs, the shelltest selection, the known
//! differences' checks, the outcomes and the report.

use std::collections::BTreeSet;

use super::clusters::{self, Shape};
use super::known::{self, Known, Names, Reference, Texts};
use super::shell::{self, Step};
use super::*;
use crate::compat::balance::shelltest;
use crate::compat::config::{parse_args, Profile, Suite as SuiteName};
use crate::compat::{check, info, scan};

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn check_options_and_profiles() {
    let c = parse_args(&args(&["--suite", "check"])).unwrap();
    assert_eq!(c.suite, SuiteName::Check);
    assert_eq!(
        c.check.ours,
        PathBuf::from("target/release/hailstone-check")
    );
    assert_eq!(
        c.groups.hcheck,
        PathBuf::from("/usr/lib/ganeti/3.0/usr/bin/hcheck")
    );
    let ci = check::SPEC.corpus.corpus(&c);
    assert_eq!(
        (ci.count, ci.nodes, ci.seed, ci.extra, ci.cap),
        (80, (3, 12), 1, 4, Duration::from_secs(60))
    );
    assert_eq!(check::SPEC.datafile_sets.of(c.profile).len(), 3);

    let c = parse_args(&args(&[
        "--suite=check",
        "--profile",
        "full",
        "--check-bin",
        "/x/hailstone-check",
        "--hcheck=/y/hcheck",
    ]))
    .unwrap();
    assert_eq!(c.check.ours, PathBuf::from("/x/hailstone-check"));
    assert_eq!(c.groups.hcheck, PathBuf::from("/y/hcheck"));
    let full = check::SPEC.corpus.corpus(&c);
    assert!(full.count >= 200);
    assert_eq!(full.nodes, (3, 30));
    assert_eq!(full.extra, 6);
    assert_eq!(full.cap, Duration::from_secs(300));
    assert!(check::SPEC.datafile_sets.of(Profile::Full).len() >= 6);

    let c = parse_args(&args(&[
        "--suite",
        "check",
        "--count=3",
        "--nodes=4-5",
        "--seed=9",
        "--timeout=7",
    ]))
    .unwrap();
    let o = check::SPEC.corpus.corpus(&c);
    assert_eq!(
        (o.count, o.nodes, o.seed, o.cap),
        (3, (4, 5), 9, Duration::from_secs(7))
    );
    let e = parse_args(&args(&["--suite", "checks"])).unwrap_err();
    assert!(e.contains("check, info, roll, scan)"), "{e}");
    assert!(parse_args(&args(&["--check-bin"])).is_err());
}

#[test]
fn info_options_and_profiles() {
    let c = parse_args(&args(&["--suite", "info"])).unwrap();
    assert_eq!(c.suite, SuiteName::Info);
    assert_eq!(c.info, Programs::named(info::NAMES));
    assert_eq!(
        c.info.original,
        PathBuf::from("/usr/lib/ganeti/3.0/usr/bin/hinfo")
    );
    let ci = info::SPEC.corpus.corpus(&c);
    assert_eq!(
        (ci.count, ci.nodes, ci.seed, ci.extra, ci.cap),
        (80, (3, 12), 1, 4, Duration::from_secs(60))
    );
    assert_eq!(info::SPEC.datafile_sets.of(c.profile).len(), 3);

    let c = parse_args(&args(&[
        "--suite=info",
        "--profile=full",
        "--info-bin=/x/hailstone-info",
        "--hinfo",
        "/y/hinfo",
    ]))
    .unwrap();
    assert_eq!(c.info.ours, PathBuf::from("/x/hailstone-info"));
    assert_eq!(c.info.original, PathBuf::from("/y/hinfo"));
    let full = info::SPEC.corpus.corpus(&c);
    assert!(full.count >= 200);
    assert_eq!(full.nodes, (3, 40));
    assert_eq!(full.extra, 5);
    assert!(info::SPEC.datafile_sets.of(Profile::Full).len() >= 6);
    // The full corpus starts elsewhere than the ci one.
    assert_ne!(full.seed, 1);
    assert!(parse_args(&args(&["--info-bin"])).is_err());
    assert!(parse_args(&args(&["--hinfo"])).is_err());
}

#[test]
fn shapes_in_turn() {
    let shapes: Vec<Shape> = (0..9).map(Shape::of).collect();
    use Shape::*;
    assert_eq!(
        shapes,
        [MultiGroup, Drbd, Plain, MultiGroup, Ext, Mixed, MultiGroup, Drbd, Plain]
    );
}

#[test]
fn generated_clusters() {
    let corpus = Corpus {
        count: 24,
        nodes: (3, 12),
        seed: 1,
        extra: 4,
        cap: Duration::from_secs(1),
        edit: None,
    };
    let mut ids = BTreeSet::new();
    let mut offline = 0;
    for k in 0..corpus.count {
        let cl = corpus.cluster(k).unwrap();
        assert!(ids.insert(cl.id.clone()), "{} twice", cl.id);
        assert!(cl.id.starts_with(&format!("gen/{}/n", cl.shape.name())));
        let n = cl.data.nodes().len();
        assert!((3..=12).contains(&n), "{}: {n} nodes", cl.id);
        let groups = cl.data.groups_with_nodes().len();
        if cl.shape == Shape::MultiGroup {
            assert!(groups >= 2, "{}", cl.id);
        } else {
            assert_eq!(groups, 1, "{}", cl.id);
        }
        assert!(cl.request.starts_with('{'));
        if cl.features.contains(&"offline") {
            offline += 1;
        }
        // The same cluster again from its number and seed.
        assert_eq!(corpus.cluster(k).unwrap().data, cl.data);
    }
    assert!(offline >= 4, "{offline} clusters with offline nodes");
}

#[test]
fn check_runs() {
    let corpus = Corpus {
        count: 30,
        nodes: (3, 12),
        seed: 1,
        extra: 4,
        cap: Duration::from_secs(1),
        edit: None,
    };
    let all = [Part::Generated, Part::Cli];
    let runs = corpus
        .runs(&all, check::generated_runs, check::cli_runs)
        .unwrap();
    assert_eq!(runs.clusters, 30);
    let generated: Vec<&RunSpec> = runs
        .runs
        .iter()
        .filter(|r| r.part == Part::Generated)
        .collect();
    assert_eq!(generated.len(), 30 * (2 + 4));
    let ids: BTreeSet<&str> = runs.runs.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), runs.runs.len(), "run ids are unique");
    for f in check::FAMILIES {
        assert!(
            generated.iter().any(|r| r.family == f),
            "family {f} never runs"
        );
    }
    for r in &generated {
        assert!(
            r.args.iter().any(|a| a.contains("{IN}/cluster.data")),
            "{}",
            r.id
        );
        assert!(r.files.iter().any(|(n, _)| n == "cluster.data"));
        if r.args.iter().any(|a| a == "-U") {
            assert!(r.files.iter().any(|(n, _)| n == "dynu"), "{}", r.id);
        }
    }
    // -O names online nodes; the instance options name instances.
    let k = generated
        .iter()
        .position(|r| r.family == "offline")
        .unwrap();
    let r = generated[k];
    let cl = corpus.cluster(k / 6).unwrap();
    let online = clusters::online_nodes(&cl.data);
    for w in r.args.windows(2).filter(|w| w[0] == "-O") {
        assert!(online.contains(&w[1]), "{} is not online", w[1]);
    }
    let r = generated
        .iter()
        .find(|r| r.family == "select-instances")
        .unwrap();
    let k = generated.iter().position(|x| x.id == r.id).unwrap();
    let names = clusters::instance_names(&corpus.cluster(k / 6).unwrap().data);
    let list = r
        .args
        .iter()
        .find_map(|a| a.strip_prefix("--select-instances="))
        .unwrap();
    assert!(list.split(',').all(|i| names.iter().any(|n| n == i)));

    let cli: Vec<&RunSpec> = runs.runs.iter().filter(|r| r.part == Part::Cli).collect();
    assert!(cli.len() >= 25);
    for want in ["cli/help", "cli/version", "cli/completion", "cli/bad-file"] {
        assert!(cli.iter().any(|r| r.id == want), "{want}");
    }
    assert!(cli[0].files.iter().any(|(n, _)| n == "request.json"));

    // Only the cli part: one cluster made, its cli runs.
    let only = corpus
        .runs(&[Part::Cli], check::generated_runs, check::cli_runs)
        .unwrap();
    assert_eq!(only.clusters, 0);
    assert_eq!(only.runs.len(), cli.len());
}

#[test]
fn info_runs() {
    let corpus = Corpus {
        count: 26,
        nodes: (3, 12),
        seed: 1,
        extra: 4,
        cap: Duration::from_secs(1),
        edit: None,
    };
    let runs = corpus
        .runs(&[Part::Generated], info::generated_runs, info::cli_runs)
        .unwrap();
    assert_eq!(runs.runs.len(), 26 * (1 + 4));
    assert!(runs.runs.iter().all(|r| r.part == Part::Generated));
    for f in info::FAMILIES {
        assert!(
            runs.runs.iter().any(|r| r.family == f),
            "family {f} never runs"
        );
    }
    let ids: BTreeSet<&str> = runs.runs.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), runs.runs.len());
    let cli = info::cli_runs(&corpus.cluster(0).unwrap());
    let ids: BTreeSet<&str> = cli.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), cli.len());
    assert!(ids.contains("cli/print-unknown-field"));
}

#[test]
fn datafile_option_sets() {
    let dir = std::env::temp_dir().join(format!("hailstone-readonly-test.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["b.data", "a.data", "c.json"] {
        std::fs::write(dir.join(f), "").unwrap();
    }
    let runs = datafile_runs(&dir, check::SPEC.datafile_sets.of(Profile::Ci)).unwrap();
    assert_eq!(runs.len(), 2 * 3);
    assert_eq!(runs[0].id, "datafile/a.data#default");
    assert_eq!(runs[1].id, "datafile/a.data#machine-readable");
    assert_eq!(
        runs[1].args,
        [
            "--machine-readable".to_owned(),
            "-t".to_owned(),
            dir.join("a.data").display().to_string()
        ]
    );
    assert!(runs.iter().all(|r| r.part == Part::DataFiles));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(datafile_runs(&dir, check::SPEC.datafile_sets.of(Profile::Ci)).is_err());
}

const BALANCING: &str = "\
./test/hs/hinfo -v -v -p --print-instances $BACKEND_BAL_STD
>>>= 0

# command output
./test/hs/hbal $BACKEND_BAL_STD -G group-01 -C -S $T/simu-rebal.standard
>>> /gnt-instance (failover|migrate|replace-disks)/
>>>= 0

./test/hs/hbal $BACKEND_BAL_STD -G group-01 -C$T/rebal-cmds.standard
>>>= 0
cat $T/rebal-cmds.standard
>>> /gnt-instance/
>>>= 0

./test/hs/hcheck -t$T/simu-rebal.standard.balanced --machine-readable
>>> /HCHECK_INIT_CLUSTER_NEED_REBALANCE=0/
>>>= 0

./test/hs/hbal -t $T/simu-rebal.standard.balanced -G group-01
>>>= 0

./test/hs/hcheck -t$T/simu-onegroup.tiered --machine-readable
>>>= 0
./test/hs/hcheckx --version
>>>= 0
";

#[test]
fn shelltest_steps() {
    let tests = shelltest::parse(BALANCING).unwrap();
    let fixtures = vec![
        "simu-onegroup.tiered".to_owned(),
        "simu-rebal-merged.standard".to_owned(),
    ];
    let steps = shell::select(tests.clone(), "hcheck", &fixtures);
    let lines: Vec<(usize, bool)> = steps.iter().map(|s| (s.test.line, s.compared)).collect();
    // hbal -S makes the file hcheck reads; the -C run, the cat, the later
    // hbal and hinfo are not needed; hcheckx is another program.
    assert_eq!(lines, [(5, false), (15, true), (22, true)]);
    let steps = shell::select(tests, "hinfo", &fixtures);
    assert_eq!(
        steps,
        [Step {
            test: shelltest::parse(BALANCING).unwrap()[0].clone(),
            compared: true
        }]
    );
    assert!(shell::runs_program("./test/hs/hcheck", "hcheck"));
    assert!(shell::runs_program("x; ./test/hs/hcheck -t a", "hcheck"));
    assert!(!shell::runs_program("./test/hs/hcheckx -t a", "hcheck"));
    assert!(!shell::runs_program("./test/hs/hbal -t a", "hcheck"));
}

/// The program files of a test tree on disk: only files with tests of the
/// program, none at all is an error.
#[test]
fn shelltest_files() {
    let dir = std::env::temp_dir().join(format!("hailstone-readonly-shell.{}", std::process::id()));
    let tests = dir.join("hs/shelltests");
    std::fs::create_dir_all(&tests).unwrap();
    std::fs::write(tests.join("b.test"), BALANCING).unwrap();
    std::fs::write(tests.join("a.test"), "./test/hs/hbal\n>>>= 1\n").unwrap();
    let files = shell::program_files(&dir, "hcheck", &[]).unwrap();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].name, "b.test");
    assert!(shell::program_files(&dir, "hroller", &[]).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

const NAMES: Names = Names {
    original: "hcheck",
    ours: "hailstone-check",
};

const ROWS: &str = "\
  -t FILE     --text-data=FILE             the cluster data FILE
              --no-simulation              do not perform rebalancing simulation
  -h          --help                       show help
";

fn h_help() -> String {
    format!("hcheck (ganeti) version 3.0.2-3\nUsage: hcheck [OPTION...]\n{ROWS}")
}

fn q_help() -> String {
    format!(
        "hailstone-check version 0.1.0\nUsage: hailstone-check [OPTION...]\n{ROWS}              --true-counts                count every failure\n"
    )
}

const H_VERSION: &str =
    "hcheck (ganeti) version 3.0.2-3\ncompiled with ghc 9.0\nrunning on linux x86_64\n";
const Q_VERSION: &str = "hailstone-check version 0.1.0\ncompatible with hcheck (ganeti) 3.0.2\n";
const H_COMPLETION: &str = "-t,--text-data file\n--no-simulation none\n-h,--help none\n";

fn reference() -> Reference {
    Reference {
        help: h_help(),
        version: H_VERSION.to_owned(),
        completion: H_COMPLETION.to_owned(),
        our_help: q_help(),
    }
}

fn texts(status: i32, stdout: &str, stderr: &str) -> Texts {
    Texts {
        status: Status::Exited(status),
        stdout: stdout.to_owned(),
        stderr: stderr.to_owned(),
    }
}

#[test]
fn error_leads_may_describe_options_in_our_words() {
    let h = "Command line error: option `--no' is ambiguous; could be one of:\n    --no-x  their words\n    --no-y  y\n\n";
    let ours = h.replace("their words", "our words");
    assert_eq!(known::same_error_lead(h, &ours), Ok(()));
    for bad in [
        h.replace("--no-x  their", "--no-z  their"),
        h.replace("ambiguous", "unknown"),
        h.replace("    --no-y  y\n", ""),
    ] {
        assert!(known::same_error_lead(h, &bad).is_err(), "{bad:?}");
    }
}

#[test]
fn help_checks() {
    let (h, q) = (h_help(), q_help());
    assert_eq!(known::help_text(NAMES, &h, &q), Ok(()));
    // Without extra rows too.
    let plain = h.replacen(
        "hcheck (ganeti) version 3.0.2-3\nUsage: hcheck",
        "hailstone-check version 0.1.0\nUsage: hailstone-check",
        1,
    );
    assert_eq!(known::help_text(NAMES, &h, &plain), Ok(()));
    // Our own descriptions, and our text about the program after the
    // options.
    let described = q.replace("do not perform", "does not perform");
    assert_eq!(known::help_text(NAMES, &h, &described), Ok(()));
    let tail = format!("{q}\nChecks N+1.\n\nExit status:\n  0  healthy\n");
    assert_eq!(known::help_text(NAMES, &h, &tail), Ok(()));
    for (what, bad) in [
        (
            "a changed option",
            q.replace("--no-simulation  ", "--no-simulated  "),
        ),
        (
            "an option without a description",
            q.replace("do not perform rebalancing simulation", ""),
        ),
        (
            "text after the options without exit statuses",
            format!("{q}\nChecks N+1.\n"),
        ),
        (
            "a missing row",
            q.replace("  -h          --help                       show help\n", ""),
        ),
        (
            "an extra row repeating an option",
            format!("{q}              --no-simulation              again\n"),
        ),
        (
            "a row that is not an option's",
            format!("{q}  some words\n"),
        ),
        ("a row at the start", format!("{q}--x  x\n")),
        (
            "the original's usage line",
            q.replace("Usage: hailstone-check", "Usage: hcheck"),
        ),
        ("a bad version", q.replace("version 0.1.0", "version 0.1")),
        (
            "the original's name",
            q.replace("hailstone-check version", "hcheck version"),
        ),
        ("no final newline", q.trim_end().to_owned()),
    ] {
        assert!(known::help_text(NAMES, &h, &bad).is_err(), "{what}");
    }
    let r = reference();
    let ht = texts(0, &h, "");
    assert_eq!(known::known_kind(NAMES, &ht, &r), Some(Known::Help));
    assert_eq!(
        known::check(Known::Help, NAMES, &ht, &texts(0, &q, ""), &r),
        Ok(())
    );
    assert!(known::check(Known::Help, NAMES, &ht, &texts(0, &q, "x"), &r).is_err());
    assert!(known::check(Known::Help, NAMES, &ht, &texts(1, &q, ""), &r).is_err());
}

#[test]
fn usage_checks() {
    let r = reference();
    let lead = "Command line error: unrecognized option `--bogus'\n";
    let h = texts(2, "", &format!("{lead}\n{}", h_help()));
    assert_eq!(known::known_kind(NAMES, &h, &r), Some(Known::Usage));
    let see = format!("see {} --help\n", NAMES.ours);
    let q = texts(2, "", &format!("{lead}{see}"));
    assert_eq!(known::check(Known::Usage, NAMES, &h, &q, &r), Ok(()));
    // The nearest option named before the last line.
    let q = texts(
        2,
        "",
        &format!("{lead}--bogus: did you mean --bogon?\n{see}"),
    );
    assert_eq!(known::check(Known::Usage, NAMES, &h, &q, &r), Ok(()));
    let other = texts(2, "", &format!("Command line error: x\n{see}"));
    assert!(known::check(Known::Usage, NAMES, &h, &other, &r).is_err());
    let no_see = texts(2, "", lead);
    assert!(known::check(Known::Usage, NAMES, &h, &no_see, &r).is_err());
    let more = texts(2, "", &format!("{lead}something else\n{see}"));
    assert!(known::check(Known::Usage, NAMES, &h, &more, &r).is_err());
    let status = texts(1, "", &format!("{lead}{see}"));
    assert!(known::check(Known::Usage, NAMES, &h, &status, &r).is_err());
}

#[test]
fn hint_checks() {
    let r = reference();
    let h = texts(1, "", "Error: Cannot find target group.\n");
    let q = texts(
        1,
        "",
        "Error: Cannot find target group.\n-G takes a node group's name or UUID: a, b\n",
    );
    assert!(known::is_hint(&h.stderr, &q.stderr));
    assert_eq!(known::check(Known::Hint, NAMES, &h, &q, &r), Ok(()));
    // Other words, another error added, another status: not a hint.
    let other = texts(1, "", "Error: Cannot find the group.\nvalid: a\n");
    assert!(known::check(Known::Hint, NAMES, &h, &other, &r).is_err());
    let error = texts(1, "", "Error: Cannot find target group.\nError: more\n");
    assert!(known::check(Known::Hint, NAMES, &h, &error, &r).is_err());
    let status = texts(2, "", &q.stderr);
    assert!(known::check(Known::Hint, NAMES, &h, &status, &r).is_err());
}

#[test]
fn version_and_completion_checks() {
    assert_eq!(known::version_text(NAMES, H_VERSION, Q_VERSION), Ok(()));
    let r = reference();
    assert_eq!(
        known::known_kind(NAMES, &texts(0, H_VERSION, ""), &r),
        Some(Known::Version)
    );
    for bad in [
        "hailstone-check version 0.1.0\n",
        "hailstone-check version 0.1.0\ncompatible with hcheck (ganeti) 3.0.2-3\n",
        "hailstone-check version 0.1.0\ncompatible with hinfo (ganeti) 3.0.2\n",
        "hailstone-info version 0.1.0\ncompatible with hcheck (ganeti) 3.0.2\n",
        "hailstone-check version x\ncompatible with hcheck (ganeti) 3.0.2\n",
    ] {
        assert!(
            known::version_text(NAMES, H_VERSION, bad).is_err(),
            "{bad:?}"
        );
    }
    let qc = format!("{H_COMPLETION}--true-counts none\n");
    assert_eq!(known::completion_text(NAMES, H_COMPLETION, &qc), Ok(()));
    assert_eq!(
        known::completion_text(NAMES, H_COMPLETION, H_COMPLETION),
        Ok(())
    );
    assert_eq!(
        known::known_kind(NAMES, &texts(0, H_COMPLETION, ""), &r),
        Some(Known::Completion)
    );
    for bad in [
        qc.replace("-t,--text-data", "-t,--text"),
        format!("{H_COMPLETION}--true-counts\n"),
        format!("{H_COMPLETION}--help none\n"),
        format!("{H_COMPLETION}true-counts none\n"),
        H_COMPLETION.replace("-h,--help none\n", ""),
    ] {
        assert!(
            known::completion_text(NAMES, H_COMPLETION, &bad).is_err(),
            "{bad:?}"
        );
    }
    // The argument rows end both lists; our options come before them.
    let h_args = format!("{H_COMPLETION}host 0 none\n");
    let q_args = format!("{H_COMPLETION}--ganeti-version choices=3.0,3.1\nhost 0 none\n");
    assert_eq!(known::completion_text(NAMES, &h_args, &q_args), Ok(()));
    for bad in [
        format!("{H_COMPLETION}host 0 none\n--ganeti-version choices=3.0,3.1\n"),
        format!("{H_COMPLETION}--ganeti-version choices=3.0,3.1\nhost 1 none\n"),
        format!("{H_COMPLETION}--ganeti-version choices=3.0,3.1\n"),
    ] {
        assert!(
            known::completion_text(NAMES, &h_args, &bad).is_err(),
            "{bad:?}"
        );
    }
}

#[test]
fn data_file_error_checks() {
    let r = reference();
    let h = "Error: failed to load data, aborting: Unknown node 'x' for instance i1\n";
    let q = "Error: failed to load data, aborting: in.data, line 12: instance i1, field primary node: Unknown node 'x' for instance i1\n";
    let ht = texts(1, "", h);
    assert_eq!(
        known::known_kind(NAMES, &ht, &r),
        Some(Known::DataFileError)
    );
    assert_eq!(
        known::check(Known::DataFileError, NAMES, &ht, &texts(1, "", q), &r),
        Ok(())
    );
    let layout_h = "Error: failed to load data, aborting: Invalid format of the input file: 2 sections instead of 4 or more\n";
    let layout_q = "Error: failed to load data, aborting: bad.data: Invalid format of the input file: 2 sections instead of 4 or more (groups, nodes, instances, tags)\n";
    assert_eq!(known::data_file_error(layout_h, layout_q), Ok(()));
    for bad in [
        "Error: failed to load data, aborting: Unknown node 'y' for instance i1\n",
        "Error: failed to load data, aborting: in.data: Unknown node 'x' for instance i1\n",
        "Error: failed to load data, aborting: in.data, line x: instance i1, field p: Unknown node 'x' for instance i1\n",
        "Error: failed to load data, aborting: in.data, line 12: instance i1, field p: Unknown node 'x' for instance i1 (why)\n",
        "Error: failed to load data, aborting: in.data, line 12: instance i1, field p: Unknown node 'x' for instance i1",
        "Error: in.data, line 12: instance i1, field p: Unknown node 'x' for instance i1\n",
    ] {
        assert!(known::data_file_error(h, bad).is_err(), "{bad:?}");
    }
    assert!(known::check(Known::DataFileError, NAMES, &ht, &texts(1, "x", q), &r).is_err());
    assert!(known::check(Known::DataFileError, NAMES, &ht, &texts(2, "", q), &r).is_err());
}

#[test]
fn runtime_error_checks() {
    let r = reference();
    let h = texts(
        1,
        "",
        "hcheck: nosuch: openFile: does not exist (No such file or directory)\n",
    );
    assert_eq!(known::known_kind(NAMES, &h, &r), Some(Known::RuntimeError));
    let q = texts(
        1,
        "",
        "hailstone-check: nosuch: openFile: does not exist (No such file or directory)\n",
    );
    assert_eq!(known::check(Known::RuntimeError, NAMES, &h, &q, &r), Ok(()));
    let other = texts(1, "", "hailstone-check: nosuch: cannot open\n");
    assert!(known::check(Known::RuntimeError, NAMES, &h, &other, &r).is_err());
    // A connection error is no data file's.
    let luxi = texts(
        1,
        "",
        "Error: failed to load data, aborting: Network.Socket.connect: <socket: 3>: does not exist (No such file or directory)\n",
    );
    assert_eq!(known::known_kind(NAMES, &luxi, &r), None);
    // Anything else is no known kind.
    assert_eq!(known::known_kind(NAMES, &texts(1, "x", "y"), &r), None);
    assert_eq!(
        known::known_kind(NAMES, &texts(0, "", ""), &Reference::default()),
        None
    );
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
        check::outcome(&run_of(1, "Cluster needs rebalancing.\n", "")),
        "needing rebalancing"
    );
    assert_eq!(
        check::outcome(&run_of(0, "HCHECK_INIT_CLUSTER_NEED_REBALANCE=0\n", "")),
        "not needing rebalancing"
    );
    assert_eq!(
        check::outcome(&run_of(1, "", "Error: failed to load data\n")),
        "error"
    );
    assert_eq!(check::outcome(&run_of(2, "", "x")), "error");
    assert_eq!(check::outcome(&run_of(1, "", "")), "silent, exit 1");
    assert_eq!(
        info::outcome(&run_of(0, "Cluster is N+1 unhappy\n", "")),
        "N+1 unhappy"
    );
    assert_eq!(
        info::outcome(&run_of(0, "Cluster is N+1 happy\n", "")),
        "N+1 happy"
    );
    assert_eq!(info::outcome(&run_of(1, "", "Error")), "error");
}

#[test]
fn verdicts_and_report() {
    let mut same = Compared::new(
        "gen/a#default".into(),
        Part::Generated,
        "default".into(),
        "hcheck -t x".into(),
    );
    same.outcome = Some("needing rebalancing");
    assert!(!same.unexplained());
    let mut diff = Compared::new(
        "gen/b#quiet".into(),
        Part::Generated,
        "quiet".into(),
        "hcheck -q -t x".into(),
    );
    diff.verdict = Verdict::Different;
    diff.differences.push("stdout differs".into());
    assert!(diff.unexplained());
    let mut known = Compared::new("cli/help".into(), Part::Cli, "cli".into(), String::new());
    known.verdict = Verdict::Different;
    known.accepted = Acceptance::Known(Known::Help);
    assert!(!known.unexplained());
    let mut capped = Compared::new("gen/c#v".into(), Part::Generated, "v".into(), String::new());
    capped.verdict = Verdict::OriginalCapped;
    assert!(!capped.unexplained());
    let mut ours_capped = capped.clone_shallow();
    ours_capped.verdict = Verdict::OursCapped;
    assert!(ours_capped.unexplained());
    let mut missed = Compared::new(
        "shelltest/x.test:3".into(),
        Part::Shelltests,
        "x.test".into(),
        String::new(),
    );
    missed.misses.1.push("exit status 1, expected 0".into());
    assert!(missed.unexplained());
    let text = report(&[same, diff, known, capped, missed], NAMES);
    let row: Vec<&str> = text
        .lines()
        .find(|l| l.starts_with("generated "))
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(row, ["generated", "3", "1", "0", "0", "1", "1"], "{text}");
    assert!(
        text.contains("hcheck's outcomes: 1 needing rebalancing"),
        "{text}"
    );
    assert!(
        text.contains("known differences (checked): the help text 1"),
        "{text}"
    );
    assert!(
        text.contains("hcheck timeout (not compared) gen/c#v"),
        "{text}"
    );
    assert!(
        text.contains("\nDIFF gen/b#quiet [quiet]\n  hcheck -q -t x\n  stdout differs\n"),
        "{text}"
    );
    assert!(
        text.contains("hailstone-check misses: exit status 1, expected 0"),
        "{text}"
    );
    assert!(
        text.contains("shelltests passing their own expectations: hcheck 1/1, hailstone-check 0/1"),
        "{text}"
    );
    assert!(!text.contains("DIFF cli/help"), "{text}");
}

impl Compared {
    /// A copy of the id and part (the test's own).
    fn clone_shallow(&self) -> Compared {
        Compared::new(
            self.id.clone(),
            self.part,
            self.family.clone(),
            self.command.clone(),
        )
    }
}

#[test]
fn scan_options_and_runs() {
    let c = parse_args(&args(&[
        "--suite",
        "scan",
        "--scan-bin=/x/s",
        "--hscan",
        "/y/h",
    ]))
    .unwrap();
    assert_eq!(c.suite, SuiteName::Scan);
    assert_eq!(c.scan.ours, PathBuf::from("/x/s"));
    assert_eq!(c.scan.original, PathBuf::from("/y/h"));
    let ci = scan::SPEC.corpus.corpus(&c);
    assert_eq!((ci.count, ci.nodes), (60, (3, 12)));
    // Each run scans the cluster's RAPI directory into its output folder.
    let cl = clusters::generate_cluster(0, 3, (4, 6)).unwrap();
    let mut next = 0;
    let runs = scan::generated_runs(&cl, 0, 2, &mut next);
    assert_eq!(runs.len(), 3);
    for r in &runs {
        assert_eq!(&r.args[..2], ["-d", "{OUT}"]);
        assert!(r.args.last().unwrap().starts_with("file://{IN}"));
        let names: Vec<&str> = r.files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["groups.json", "nodes.json", "instances.json", "info.json"]
        );
    }
    // The resources hold the data file's nodes and instances, and a master.
    let json = |name: &str| -> serde_json::Value {
        let text = &runs[0].files.iter().find(|(n, _)| n == name).unwrap().1;
        serde_json::from_str(text).unwrap()
    };
    assert_eq!(
        json("nodes.json").as_array().unwrap().len(),
        cl.data.nodes().len()
    );
    assert_eq!(
        json("instances.json").as_array().unwrap().len(),
        cl.data.instances().len()
    );
    let master = json("info.json")["master"].as_str().unwrap().to_owned();
    assert!(cl.data.nodes().iter().any(|n| n[0] == master));
}
