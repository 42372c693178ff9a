//! The command line as Ganeti and operators use it: options before or
//! after the input, hail's abbreviations and errors, exit codes.

use crate::hostile::{with_request, VALID};
use crate::run::{assert_contract, hailstone, on_stdin};

#[test]
fn version_and_help_go_to_stdout() {
    let out = hailstone(&["--version"], None);
    assert_eq!(out.code, 0);
    assert!(
        out.stdout.starts_with("hailstone version "),
        "{}",
        out.stdout
    );
    let out = hailstone(&["--help"], None);
    assert_eq!(out.code, 0);
    assert!(
        out.stdout.contains("Usage: hailstone [OPTION...]"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("--no-capacity-checks"));
}

#[test]
fn input_count_errors_exit_1() {
    let out = hailstone(&[], None);
    assert_eq!(out.code, 1);
    assert_eq!(out.stderr, "Error: This program needs an input file.\n");
    let out = hailstone(&["a.json", "b.json"], None);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr,
        "Error: Only one argument is accepted (the input file)\n"
    );
}

#[test]
fn ambiguous_and_unknown_options_exit_2() {
    let out = hailstone(&["--ignore", "x.json"], None);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .starts_with("Command line error: option `--ignore' is ambiguous"),
        "{}",
        out.stderr
    );
    let out = hailstone(&["--frobnicate", "x.json"], None);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .starts_with("Command line error: unrecognized option `--frobnicate'"),
        "{}",
        out.stderr
    );
}

/// `--mond` asks each node's monitoring daemon; nodes that do not answer
/// (no such host here) are named, and the data are then ignored, as hail
/// does: the answer is the one without `--mond`.
#[test]
fn unreachable_monitoring_daemons_are_reported_and_ignored() {
    let plain = on_stdin(VALID.as_bytes(), &[]);
    for opt in ["--mond", "--mond=yes"] {
        let out = on_stdin(VALID.as_bytes(), &[opt]);
        assert_eq!(out.code, 0, "{opt}: {}", out.stderr);
        assert_eq!(out.stdout, plain.stdout);
        assert!(
            out.stderr.contains("Failed to contact node's ")
                && out.stderr.contains(" MonD for DC cpu-avg-load\n")
                && out.stderr.ends_with(
                    "Didn't receive an answer by all MonDs, cpu-avg-load's data will be ignored.\n"
                ),
            "{opt}: {}",
            out.stderr
        );
    }
    // --ignore-dynu: no collector, nothing asked.
    let out = on_stdin(VALID.as_bytes(), &["--mond", "--ignore-dynu"]);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
}

#[test]
fn options_may_come_before_or_after_the_input_and_abbreviate() {
    let before = hailstone(&["--no-cap", "-"], None);
    assert_contract(&before, "options before");
    let a = on_stdin(VALID.as_bytes(), &["--no-capacity-checks"]);
    let b = on_stdin(VALID.as_bytes(), &["--no-cap"]);
    assert_eq!(a.code, 0, "{}", a.stderr);
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn same_input_gives_same_bytes() {
    let a = on_stdin(VALID.as_bytes(), &[]);
    let b = on_stdin(VALID.as_bytes(), &[]);
    assert_eq!(a.code, 0);
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn unsatisfiable_request_is_a_failed_answer() {
    let req = with_request(
        r#"{"type": "allocate", "name": "big.example.com", "disk_template": "drbd", "required_nodes": 2,
            "memory": 1000000, "vcpus": 1, "disks": [{"size": 2048, "mode": "rw"}], "disk_space_total": 2176,
            "spindle_use": 1, "tags": [], "nics": []}"#,
    );
    let out = on_stdin(req.as_bytes(), &[]);
    assert_contract(&out, "unsatisfiable");
    assert_eq!(out.code, 0);
    assert!(
        out.stdout
            .starts_with("{\"success\":false,\"info\":\"Request failed: "),
        "{}",
        out.stdout
    );
    assert!(out.stdout.ends_with(",\"result\":[]}\n"));
}
