//! The space suite's own tests.

use super::checks::{self, Known, Texts};
use super::clusters::{self, Scale, FAMILIES};
use super::policies;
use super::*;
use crate::compat::accepted::{is_accepted, parse_accepted};
use crate::compat::config::parse_args;

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

fn scale() -> Scale {
    Scale {
        nodes: (2, 6),
        fits: (4, 30),
        width: (0, 32),
    }
}

#[test]
fn options_and_profiles() {
    let c = parse_args(&args(&["--suite", "space"])).unwrap();
    assert_eq!(c.suite, crate::compat::config::Suite::Space);
    assert_eq!(c.space.space_bin, PathBuf::from(DEFAULT_SPACE));
    assert_eq!(c.testsuite.hspace, None);
    let ci = corpus(&c.common);
    assert_eq!(ci.count, 40);
    assert_eq!(ci.scale.nodes, (2, 6));
    assert_eq!(ci.extra, 3);
    assert_eq!(ci.datafile_sets.len(), 3);
    assert_eq!(ci.policy_rewrites.len(), 13);
    assert_eq!(ci.cap, Duration::from_secs(60));
    assert_eq!(ci.seed, 1);

    let c = parse_args(&args(&[
        "--suite=space",
        "--profile",
        "full",
        "--space-bin",
        "/x/hailstone-space",
        "--hspace=/y/hspace",
    ]))
    .unwrap();
    assert_eq!(c.space.space_bin, PathBuf::from("/x/hailstone-space"));
    assert_eq!(c.testsuite.hspace, Some(PathBuf::from("/y/hspace")));
    let full = corpus(&c.common);
    assert!(full.count >= 200);
    assert_eq!(full.scale.nodes, (2, 12));
    assert_eq!(full.extra, 5);
    assert!(full.datafile_sets.len() >= 5);
    assert_eq!(full.cap, Duration::from_secs(300));

    let c = parse_args(&args(&[
        "--suite",
        "space",
        "--count=3",
        "--nodes=4-5",
        "--seed=9",
        "--timeout=7",
    ]))
    .unwrap();
    let o = corpus(&c.common);
    assert_eq!(
        (o.count, o.scale.nodes, o.seed, o.cap),
        (3, (4, 5), 9, Duration::from_secs(7))
    );
    let e = parse_args(&args(&["--suite", "spaces"])).unwrap_err();
    assert!(e.to_string().contains(" space,"), "{e}");
    assert!(parse_args(&args(&["--space-bin"])).is_err());
}

/// The project's list accepts the known differences of the suite and
/// nothing else of it.
#[test]
fn accepted_space_patterns() {
    let a = parse_accepted(include_str!("../../../../docs/accepted-differences.txt")).unwrap();
    for id in [
        "space:cli/help",
        "space:cli/version",
        "space:cli/version-short",
        "space:cli/completion",
        "space:cli/unknown-option",
        "space:cli/unknown-node",
        "space:datafile/invalid-node.data#default",
        "space:datafile/hbal-split-insts.data#independent-groups",
        "space:shelltest/htools-text-backend.test:24",
        "space:shelltest/htools-basic.test:16",
        "space:cli/max-length-zero",
        "space:cli/bad-file",
        "space:cli/save-bad-path",
    ] {
        assert!(is_accepted(&a, id), "{id}");
    }
    for id in [
        "space:datafile/hbal-soft-errors.data#default",
        "space:shelltest/htools-hspace.test:2",
        "space:gen/drbd/g2/n5/s32#default",
        // Another suite's pattern does not accept a space run.
        "space:datafile/invalid-node.data",
    ] {
        assert!(!is_accepted(&a, id), "{id}");
    }
    assert!(!is_accepted(
        &["squeeze:cli/help".to_owned()],
        "space:cli/help"
    ));
}

fn texts(status: i32, stdout: &str, stderr: &str) -> Texts {
    Texts {
        status: Status::Exited(status),
        stdout: stdout.to_owned(),
        stderr: stderr.to_owned(),
        files: Vec::new(),
    }
}

const H_HELP: &str = "hspace (ganeti) version 3.0.2-3\n\
Usage: hspace [OPTION...]\n\
\x20 -p[FIELDS]  --print-nodes[=FIELDS]       print the final node list\n\
\x20 -h          --help                       show help\n\
\x20             --help-completion            show completion info\n";

const Q_HELP: &str = "hailstone-space version 0.1.0\n\
Usage: hailstone-space [OPTION...]\n\
\x20 -p[FIELDS]  --print-nodes[=FIELDS]       print the final node list\n\
\x20 -h          --help                       show help\n\
\x20             --help-completion            show completion info\n\
\x20             --allocator-model            count what the allocator would accept\n\
\x20             --explain[=PATH]             explain\n\
\x20             --explain-format=FORMAT      format of the explanation\n\
\x20             --report=FILE                also write a page\n\
\x20             --ganeti-version=VERSION     follow Ganeti VERSION's htools\n\
\x20             --json                       print a JSON document\n\
\n\
Exit status:\n\
\x20 0  counted\n";

#[test]
fn help_and_usage_checks() {
    assert_eq!(checks::help_text(H_HELP, Q_HELP), Ok(()));
    // A description of our own is right; a changed option of hspace's, a
    // missing, a moved or an unknown extra row, a wrong heading: each is
    // caught.
    let described = Q_HELP.replace("show help\n", "show the help\n");
    assert_eq!(checks::help_text(H_HELP, &described), Ok(()));
    let changed = Q_HELP.replace("  -h          --help  ", "  -H          --help  ");
    assert!(checks::help_text(H_HELP, &changed)
        .unwrap_err()
        .contains("option row 2 differs"));
    let missing = Q_HELP.replace("              --explain[=PATH]             explain\n", "");
    assert!(checks::help_text(H_HELP, &missing).is_err());
    let extra = Q_HELP.replace(
        "\n\nExit status",
        "\n              --other                      x\n\nExit status",
    );
    assert!(checks::help_text(H_HELP, &extra).is_err());
    let swapped = Q_HELP
        .replace("--explain[=PATH]   ", "@@")
        .replace("--explain-format=FORMAT", "--explain[=PATH]       ")
        .replace("@@", "--explain-format=FORMAT");
    assert!(checks::help_text(H_HELP, &swapped).is_err());
    let heading = Q_HELP.replace("Usage: hailstone-space", "Usage: hspace");
    assert!(checks::help_text(H_HELP, &heading).is_err());
    let version = Q_HELP.replace("version 0.1.0", "version 0.1");
    assert!(checks::help_text(H_HELP, &version).is_err());

    let h = texts(0, H_HELP, "");
    assert_eq!(checks::known_kind(&h, H_HELP), Some(Known::Help));
    assert_eq!(
        checks::check(Known::Help, &h, &texts(0, Q_HELP, ""), (H_HELP, Q_HELP)),
        Ok(())
    );
    // The help text is right but something else differs.
    assert!(checks::check(Known::Help, &h, &texts(0, Q_HELP, "x"), (H_HELP, Q_HELP)).is_err());
    assert!(checks::check(Known::Help, &h, &texts(1, Q_HELP, ""), (H_HELP, Q_HELP)).is_err());

    let lead = "Command line error: unrecognized option `--bogus'\n";
    let h = texts(2, "", &format!("{lead}\n{H_HELP}"));
    assert_eq!(checks::known_kind(&h, H_HELP), Some(Known::Usage));
    let q = texts(2, "", &format!("{lead}see hailstone-space --help\n"));
    assert_eq!(
        checks::check(Known::Usage, &h, &q, (H_HELP, Q_HELP)),
        Ok(())
    );
    let other = texts(2, "", "Command line error: x\nsee hailstone-space --help\n");
    assert!(checks::check(Known::Usage, &h, &other, (H_HELP, Q_HELP)).is_err());
    // An error that says what is valid: hspace's words, then ours.
    let h = texts(1, "", "Error while parsing command line arguments:\nInvalid string value for type DiskTemplate: \"x\"\n");
    let q = texts(
        1,
        "",
        &format!("{}the disk templates are a or b\n", h.stderr),
    );
    assert_eq!(checks::check(Known::Hint, &h, &q, (H_HELP, Q_HELP)), Ok(()));
    let q = texts(1, "", "Error while parsing command line arguments:\nno\n");
    assert!(checks::check(Known::Hint, &h, &q, (H_HELP, Q_HELP)).is_err());
}

#[test]
fn version_and_completion_checks() {
    let h = "hspace (ganeti) version 3.0.2-3\ncompiled with ghc 9.0\nrunning on linux x86_64\n";
    let q = "hailstone-space version 0.1.0\ncompatible with hspace (ganeti) 3.0.2\n";
    assert_eq!(checks::version_text(h, q), Ok(()));
    assert_eq!(
        checks::known_kind(&texts(0, h, ""), H_HELP),
        Some(Known::Version)
    );
    for bad in [
        "hailstone-space version 0.1.0\ncompatible with hspace (ganeti) 3.0.2-3\n",
        "hailstone-space version 0.1.0\n",
        "hailstone-space 0.1.0\ncompatible with hspace (ganeti) 3.0.2\n",
        "hailstone-space version 0.1.0\ncompatible with hspace (ganeti) 3.0.2\nextra\n",
        "hailstone-space version x\ncompatible with hspace (ganeti) 3.0.2\n",
    ] {
        assert!(checks::version_text(h, bad).is_err(), "{bad:?}");
    }
    let hc = "-p,--print-nodes none\n-t,--text-data file\n--help-completion none\n";
    let qc =
        format!("{hc}--allocator-model none\n--explain none\n--explain-format choices=text,json\n--report file\n--ganeti-version choices=3.0,3.1\n--json none\n");
    assert_eq!(checks::completion_text(hc, &qc), Ok(()));
    assert_eq!(
        checks::known_kind(&texts(0, hc, ""), H_HELP),
        Some(Known::Completion)
    );
    assert!(checks::completion_text(hc, &qc.replace("-t,--text-data", "-t,--text")).is_err());
    assert!(checks::completion_text(hc, &qc.replace("--explain none\n", "")).is_err());
}

#[test]
fn data_file_error_check() {
    let h =
        "Error: failed to load data, aborting: Unknown node 'no-such-node' for instance new-0\n";
    let q = "Error: failed to load data, aborting: /d/invalid-node.data, line 6: instance new-0, field primary node: Unknown node 'no-such-node' for instance new-0\n";
    let (ht, qt) = (texts(1, "", h), texts(1, "", q));
    assert_eq!(checks::known_kind(&ht, H_HELP), Some(Known::DataFileError));
    assert_eq!(
        checks::check(Known::DataFileError, &ht, &qt, (H_HELP, Q_HELP)),
        Ok(())
    );
    for bad in [
        // Other words than hspace's.
        "Error: failed to load data, aborting: /d/x.data, line 6: instance new-0, field primary node: Unknown node 'x'\n",
        // More than the location before them.
        "Error: failed to load data, aborting: /d/x.data: Unknown node 'no-such-node' for instance new-0\n",
        "Error: failed to load data, aborting: /d/x.data, line x: instance new-0, field primary node: Unknown node 'no-such-node' for instance new-0\n",
        // Something after them.
        "Error: failed to load data, aborting: Unknown node 'no-such-node' for instance new-0 (sections)\n",
    ] {
        assert!(
            checks::check(Known::DataFileError, &ht, &texts(1, "", bad), (H_HELP, Q_HELP)).is_err(),
            "{bad:?}"
        );
    }
    // A malformed file's sections: the file before, the layout after.
    let h = "Error: failed to load data, aborting: Invalid format of the input file: 1 sections instead of 4 or more\n";
    let q = "Error: failed to load data, aborting: bad.data: Invalid format of the input file: 1 sections instead of 4 or more (groups, nodes, instances, cluster tags and policies, separated by empty lines)\n";
    assert_eq!(checks::data_file_error(h, q), Ok(()));
    let q_no_file = "Error: failed to load data, aborting: Invalid format of the input file: 1 sections instead of 4 or more (x)\n";
    assert!(checks::data_file_error(h, q_no_file).is_err());
    let q_other = "Error: failed to load data, aborting: bad.data: Invalid format of the input file: 1 sections instead of 4 or more; (x)\n";
    assert!(checks::data_file_error(h, q_other).is_err());
}

#[test]
fn runtime_error_and_head_crash_checks() {
    let h = texts(
        1,
        "",
        "hspace: /o/x.tiered: openFile: does not exist (No such file or directory)\n",
    );
    assert_eq!(checks::known_kind(&h, H_HELP), Some(Known::RuntimeError));
    let q = texts(
        1,
        "",
        "hailstone-space: /o/x.tiered: openFile: does not exist (No such file or directory)\n",
    );
    assert_eq!(
        checks::check(Known::RuntimeError, &h, &q, (H_HELP, Q_HELP)),
        Ok(())
    );
    let other = texts(
        1,
        "",
        "hailstone-space: /o/x.standard: openFile: does not exist (No such file or directory)\n",
    );
    assert!(checks::check(Known::RuntimeError, &h, &other, (H_HELP, Q_HELP)).is_err());
    let h = texts(
        1,
        "Tiered allocation results:\n  - no instances allocated\n",
        "hspace: Prelude.head: empty list\n",
    );
    assert_eq!(checks::known_kind(&h, H_HELP), Some(Known::HeadCrash));
    let q = texts(0, "Tiered allocation results:\n  - no instances allocated\n  - most likely failure reason: FailMem\n", "");
    assert_eq!(
        checks::check(Known::HeadCrash, &h, &q, (H_HELP, Q_HELP)),
        Ok(())
    );
    let q = texts(0, "Tiered allocation results:\n  - 1 instances\n", "");
    assert!(checks::check(Known::HeadCrash, &h, &q, (H_HELP, Q_HELP)).is_err());
}

#[test]
fn split_crash_check() {
    let crash = "hspace: IntMap.!: key 7 is not an element of the map\nCallStack (from HasCallStack):\n  error, called at x\n";
    let h = texts(1, "The cluster has 4 nodes\n", &format!("Loaded\n{crash}"));
    assert_eq!(checks::known_kind(&h, H_HELP), Some(Known::SplitCrash));
    let q = texts(0, "The cluster has 4 nodes\nmore\n", "Loaded\nmore notes\n");
    assert_eq!(
        checks::check(Known::SplitCrash, &h, &q, (H_HELP, Q_HELP)),
        Ok(())
    );
    // hailstone-space must have printed what hspace printed before dying,
    // and finished.
    let other = texts(0, "The cluster has 5 nodes\n", "Loaded\n");
    assert!(checks::check(Known::SplitCrash, &h, &other, (H_HELP, Q_HELP)).is_err());
    let failed = texts(1, "The cluster has 4 nodes\n", "Loaded\n");
    assert!(checks::check(Known::SplitCrash, &h, &failed, (H_HELP, Q_HELP)).is_err());
    let early = texts(0, "The cluster has 4 nodes\n", "Other\n");
    assert!(checks::check(Known::SplitCrash, &h, &early, (H_HELP, Q_HELP)).is_err());
    // Ordinary output is none of the known kinds.
    assert_eq!(checks::known_kind(&texts(0, "x\n", ""), H_HELP), None);
}

#[test]
fn outcomes() {
    let human = "\
Tiered allocation results:
  -   3 instances of spec MEM 1024, DSK 1024, CPU 1
  -  12 instances of spec MEM 512, DSK 1024, CPU 1
  - most likely failure reason: FailMem
Normal (fixed-size) allocation results:
  -   7 instances allocated
";
    let o = outcome(&Status::Exited(0), human);
    assert_eq!((o.error, o.tiered, o.standard), (false, Some(15), Some(7)));
    let none =
        "Tiered allocation results:\n  - no instances allocated\n  -   0 instances allocated\n";
    let o = outcome(&Status::Exited(0), none);
    assert_eq!((o.tiered, o.standard), (Some(0), Some(0)));
    let machine = "HTS_TSPEC='131072,1048576,4,12=4 129984,1048320,4,12=2'\nHTS_ALLOC_INSTANCES=6\nHTS_OK=1\n";
    let o = outcome(&Status::Exited(0), machine);
    assert_eq!((o.tiered, o.standard), (Some(6), Some(6)));
    assert!(outcome(&Status::Exited(1), "").error);
}

#[test]
fn generated_clusters_are_deterministic_and_sized() {
    let s = scale();
    let mut shapes = std::collections::BTreeSet::new();
    let mut groups = std::collections::BTreeSet::new();
    for k in 0..24 {
        let a = clusters::generate_cluster(k, 100 + k as u64, &s).unwrap();
        let b = clusters::generate_cluster(k, 100 + k as u64, &s).unwrap();
        assert_eq!(a.id, b.id);
        assert_eq!(a.data.text(), b.data.text(), "{}", a.id);
        let n = a.data.nodes().len();
        assert!((2..=6).contains(&n), "{}: {n} nodes", a.id);
        shapes.insert(a.id.split('/').nth(1).unwrap().to_owned());
        groups.insert(a.data.groups_with_nodes().len());
        // The cluster's policy and one per group.
        let policies = &a.data.sections[4];
        assert_eq!(policies.len(), 1 + a.data.groups().len(), "{}", a.id);
        assert_eq!(policies[0][0], "");
        let shape = a.id.split('/').nth(1).unwrap();
        if shape != "mixed" {
            assert_eq!(a.templates[0], shape, "{}", a.id);
        }
        assert!(policies[0][3].starts_with(&a.templates[0]));
        // min <= std <= max, the maximum at most the scale's width above.
        let [lo, std, hi] = a.specs;
        for (l, m, h) in [
            (lo.0, std.0, hi.0),
            (lo.1, std.1, hi.1),
            (lo.2, std.2, hi.2),
        ] {
            assert!(l <= m && m <= h, "{}: {l} {m} {h}", a.id);
        }
        assert!(hi.0 - lo.0 <= 64 * s.width.1 && hi.1 - lo.1 <= 256 * s.width.1);
        assert_eq!(lo.0 % 64, 0);
        assert_eq!(lo.1 % 256, 0);
        // hailstone reads it back.
        let read = hailstone::shell::datafile::normalize("c.data", a.data.text().as_bytes());
        assert!(read.is_ok(), "{}: {:?}", a.id, read.err());
    }
    assert_eq!(shapes.len(), 6, "{shapes:?}");
    assert!(groups.len() >= 2, "{groups:?}");
    // Another seed, another cluster.
    let a = clusters::generate_cluster(0, 1, &s).unwrap();
    let b = clusters::generate_cluster(0, 2, &s).unwrap();
    assert_ne!(a.data.text(), b.data.text());
}

#[test]
fn runs_take_the_families_in_turn() {
    let s = scale();
    let mut n = 0;
    let mut seen = std::collections::BTreeMap::new();
    for k in 0..10 {
        let cl = clusters::generate_cluster(k, 1 + k as u64, &s).unwrap();
        let runs = clusters::runs(&cl, k, 3, &mut n);
        assert_eq!(runs.len(), 4);
        assert_eq!(runs[0].family, "default");
        assert_eq!(runs[0].args, args(&["-t", "{IN}/cluster.data"]));
        assert_eq!(runs[0].id, format!("{}#default", cl.id));
        for r in &runs[1..] {
            *seen.entry(r.family).or_insert(0) += 1;
            // The data file is always given, once.
            assert_eq!(
                r.args.iter().filter(|a| *a == "{IN}/cluster.data").count(),
                1
            );
            if r.family == "-S" {
                assert!(r.args.contains(&"{OUT}/state".to_owned()));
            }
            if r.family == "--disk-template" {
                let t = r
                    .args
                    .iter()
                    .find_map(|a| a.strip_prefix("--disk-template="))
                    .map(str::to_owned)
                    .or_else(|| {
                        let i = r.args.iter().position(|a| a == "--disk-template")?;
                        r.args.get(i + 1).cloned()
                    })
                    .unwrap();
                assert!(crate::generate::DiskTemplate::parse(&t).is_some(), "{t}");
            }
            // -l 0 makes hspace crash (a cli case of its own).
            assert!(!r.args.windows(2).any(|w| w[0] == "-l" && w[1] == "0"));
            assert!(!r.args.contains(&"-l0".to_owned()));
        }
    }
    assert_eq!(n, 30);
    // 30 runs over 15 families: each twice.
    assert_eq!(seen.len(), FAMILIES.len());
    assert!(seen.values().all(|&c| c == 2), "{seen:?}");
}

#[test]
fn cli_cases_and_inputs() {
    let cl = clusters::generate_cluster(0, 1, &scale()).unwrap();
    let runs = cli_runs(&cl);
    let ids: Vec<&str> = runs.iter().map(|r| r.id.as_str()).collect();
    for want in [
        "cli/help",
        "cli/version",
        "cli/completion",
        "cli/disk-template-foo",
        "cli/standard-alloc-short",
        "cli/spindle-use-negative",
        "cli/machine-readable-maybe",
        "cli/unknown-option",
        "cli/extra-argument",
        "cli/missing-file",
    ] {
        assert!(ids.contains(&want), "{want} missing");
    }
    let files = &runs[0].files;
    let unknown = &files.iter().find(|f| f.0 == "unknown-node.data").unwrap().1;
    assert!(unknown.contains("|no-such-node|"));
    assert!(files.iter().any(|f| f.0 == "cluster.data"));
}

#[test]
fn shelltests_of_hspace() {
    let dir = std::env::temp_dir().join(format!("hs-space-shell-{}", std::process::id()));
    let shell = dir.join("hs/shelltests");
    std::fs::create_dir_all(&shell).unwrap();
    std::fs::write(
        shell.join("htools-hspace.test"),
        "./test/hs/hspace --simu p,4,8T,64g,16 -l 8\n>>> /^HTS_OK=1/\n>>>= 0\n\n./test/hs/hspace -t $TESTDATA_DIR/x.data\n>>>= 0\n",
    )
    .unwrap();
    std::fs::write(
        shell.join("htools-basic.test"),
        "./test/hs/hbal --version\n>>>= 0\n./test/hs/hspace --version\n>>>= 0\n",
    )
    .unwrap();
    std::fs::write(shell.join("notes.txt"), "./test/hs/hspace\n").unwrap();
    let tests = shell_tests(&dir).unwrap();
    let found: Vec<(String, usize)> = tests.iter().map(|(f, t)| (f.clone(), t.line)).collect();
    assert_eq!(
        found,
        vec![
            ("htools-basic.test".to_owned(), 3),
            ("htools-hspace.test".to_owned(), 1),
            ("htools-hspace.test".to_owned(), 5),
        ]
    );
    std::fs::remove_file(shell.join("htools-hspace.test")).unwrap();
    assert!(shell_tests(&dir).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The whole suite through real processes, shell scripts standing in for
/// hspace: the harness against itself is identical, a difference fails,
/// and an hspace past the cap is a timeout, not a difference.
#[test]
fn fake_programs() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("hs-space-fake-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = |name: &str, body: &str| {
        let p = dir.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    };
    // Prints its options; with -S writes both files.
    let body = "echo \"$@\"\nwhile [ $# -gt 0 ]; do if [ \"$1\" = -S ]; then echo t > \"$2.tiered\"; echo s > \"$2.standard\"; fi; shift; done";
    let hspace = script("hspace", body);
    let same = script("same", body);
    let other = script("other", &format!("{body}\necho extra"));
    let slow = script("slow", "sleep 5");
    let run = |h: &Path, q: &Path, timeout: &str| {
        let count = if timeout == "20" { "4" } else { "1" };
        let c = parse_args(&args(&[
            "--suite",
            "space",
            "--parts",
            "generated",
            "--count",
            count,
            "--timeout",
            timeout,
            "--hspace",
            &h.display().to_string(),
            "--space-bin",
            &q.display().to_string(),
        ]))
        .unwrap();
        run_space(&c.common, &c.testsuite, &c.space, &c.answers.hail, &[])
    };
    assert_eq!(run(&hspace, &same, "20"), ExitCode::SUCCESS);
    assert_eq!(run(&hspace, &other, "20"), ExitCode::from(1));
    // hspace at the cap: listed apart.
    assert_eq!(run(&slow, &same, "0.5"), ExitCode::SUCCESS);
    // hailstone-space at the cap: a difference.
    assert_eq!(run(&hspace, &slow, "0.5"), ExitCode::from(1));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_started_instance_takes_its_primarys_memory() {
    let saved = "g|u|preferred||\n\nn1|1000|100|800|5000|4000|8|N|u|1|-|N|0|1|1.0\nn2|1000|100|900|5000|4000|8|N|u|1|-|N|0|1|1.0\n\nnew-0|300|1024|1|running|Y|n2||plain||1|-|N\n\n\n";
    let fixed = super::model::started(saved, "new-0").unwrap();
    assert!(fixed.contains("\nn2|1000|100|600|5000|"), "{fixed}");
    assert!(fixed.contains("\nn1|1000|100|800|5000|"), "{fixed}");
    assert_eq!(fixed.len(), saved.len());
    assert!(super::model::started(saved, "new-1").is_none());
}

/// A policy rewrite sets one resource of one spec in every policy line
/// (the cluster's and each group's), and nothing else.
#[test]
fn policy_rewrites() {
    let text = "g|uuid|preferred||\n\nn1|1024|0|1024|2048|2048|4|N|uuid|1\n\n\n\
|100,1,1000,1,1,1|50,1,500,1,1,1;200,2,2000,4,4,4;10,1,100,1,1,1;20,2,200,2,2,2|plain|4.0|32.0\n\
g|100,1,1000,1,1,1|50,1,500,1,1,1;200,2,2000,4,4,4|plain|4.0|32.0\n";
    let lines = |t: &str| t.lines().map(str::to_owned).collect::<Vec<_>>();
    let max = policies::rewrite(text, "max", "mem", 1 << 40).unwrap();
    let l = lines(&max);
    assert_eq!(l[..5], lines(text)[..5]);
    assert_eq!(
        l[5],
        "|100,1,1000,1,1,1|50,1,500,1,1,1;1099511627776,2,2000,4,4,4;10,1,100,1,1,1;20,2,200,2,2,2|plain|4.0|32.0"
    );
    assert_eq!(
        l[6],
        "g|100,1,1000,1,1,1|50,1,500,1,1,1;1099511627776,2,2000,4,4,4|plain|4.0|32.0"
    );
    let std = policies::rewrite(text, "std", "spindles", 9).unwrap();
    assert!(lines(&std)[6].starts_with("g|100,1,1000,1,1,9|50,"));
    let min1 = policies::rewrite(text, "min1", "disk", 7);
    assert_eq!(min1, Err("the policy has no spec min1".to_owned()));
    let text1 = text.replace(
        "g|100,1,1000,1,1,1|50,1,500,1,1,1;200,2,2000,4,4,4|",
        "g|100,1,1000,1,1,1|50,1,500,1,1,1;200,2,2000,4,4,4;1,1,1,1,1,1;2,2,2,2,2,2|",
    );
    let min1 = policies::rewrite(&text1, "min1", "cpu", 7).unwrap();
    assert!(lines(&min1)[5].contains(";10,7,100,1,1,1;"));
    assert!(lines(&min1)[6].contains(";1,7,1,1,1,1;"));
    assert!(policies::rewrite(text, "max", "nics", 1).is_err());
    assert!(policies::rewrite(text, "mid", "mem", 1).is_err());
    assert!(policies::rewrite(text, "mx", "mem", 1).is_err());
    assert!(policies::rewrite("g|u|preferred||\n", "max", "mem", 1).is_err());
    // Every rewrite of both profiles names a spec and a resource it knows.
    for &(_, spec, resource, value) in policies::FULL.iter().chain(policies::CI) {
        let with_pairs = text1.clone();
        assert!(
            policies::rewrite(&with_pairs, spec, resource, value).is_ok(),
            "{spec} {resource}"
        );
    }
}
