//! The comparison tool's own tests.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::accepted::{glob_match, is_accepted, parse_accepted, read_allowlist, KNOWN_CLASSES};
use super::answers::{generated_specs, Which};
use super::case::kind_of_request;
use super::classify::{classify, Outcome};
use super::config::parse_args;
use super::report::window;
use crate::generate::RequestKind;
use crate::process::{self, Run, Status};

fn res(code: i32, out: &str, err: &str) -> Run {
    Run {
        status: Status::Exited(code),
        stdout: out.as_bytes().to_vec(),
        stderr: err.as_bytes().to_vec(),
        wall: Duration::ZERO,
        rss_kib: None,
    }
}

/// One run as the comparison makes it, with `dir` for its output files.
fn run_binary(dir: &Path, bin: &Path, input: &Path, opts: &[String], cap: Duration) -> Run {
    process::run(&process::Invocation::iallocator(bin, input, opts, cap, dir))
}

const A: &str = "{\"success\":true,\"info\":\"Request successful: x\",\"result\":[\"n1\"]}\n";
const A_INFO: &str = "{\"success\":true,\"info\":\"Request successful: y\",\"result\":[\"n1\"]}\n";
const B: &str = "{\"success\":true,\"info\":\"Request successful: x\",\"result\":[\"n2\"]}\n";

#[test]
fn classification_paths() {
    assert_eq!(classify(&res(0, A, ""), &res(0, A, "")), Outcome::Identical);
    assert_eq!(
        classify(&res(0, A, ""), &res(0, A_INFO, "")),
        Outcome::SameResult
    );
    assert_eq!(
        classify(&res(0, A, ""), &res(0, B, "")),
        Outcome::DifferentResult
    );
    assert_eq!(
        classify(&res(0, A, ""), &res(0, "garbage", "")),
        Outcome::DifferentResult
    );
    assert_eq!(
        classify(&res(1, "", "Error: x"), &res(1, "", "Error: y")),
        Outcome::BothRefused
    );
    assert_eq!(
        classify(&res(1, "", "Error"), &res(0, A, "")),
        Outcome::RefusalDiffers
    );
    assert_eq!(
        classify(&res(0, A, ""), &res(2, "", "")),
        Outcome::RefusalDiffers
    );
    let ni = res(
        3,
        "",
        "hailstone: request type 'allocate' is not implemented yet\n",
    );
    assert_eq!(classify(&res(0, A, ""), &ni), Outcome::NotImplemented);
    // Exit 3 without the message is an ordinary refusal.
    assert_eq!(
        classify(&res(0, A, ""), &res(3, "", "boom")),
        Outcome::RefusalDiffers
    );
    let mut t = res(0, "", "");
    t.status = Status::Capped;
    assert_eq!(classify(&t, &res(0, A, "")), Outcome::HailTimeout);
    assert_eq!(classify(&res(0, A, ""), &t), Outcome::HailstoneTimeout);
    assert!(Outcome::SameResult.is_difference());
    assert!(Outcome::HailstoneTimeout.is_difference());
    assert!(!Outcome::BothRefused.is_difference());
    assert!(!Outcome::NotImplemented.is_difference());
    assert!(!Outcome::HailTimeout.is_difference());
}

#[test]
fn accepted_list_parsing() {
    let text = "\
# comment, then a blank line

sample:alloc-huge-int.json\thail wraps the integer
gen:allocate/*/s1234\t a glob, the reason after the tab
   # an indented comment
balance:cli/unknown option*\tspaces inside a pattern
class:drained-target\tthe class
";
    let a = parse_accepted(text).unwrap();
    assert_eq!(
        a,
        vec![
            "sample:alloc-huge-int.json".to_string(),
            "gen:allocate/*/s1234".to_string(),
            "balance:cli/unknown option*".to_string(),
            "class:drained-target".to_string(),
        ]
    );
    assert!(is_accepted(&a, "gen:allocate/drbd/n12/g2/s1234"));
    assert!(!is_accepted(&a, "gen:allocate/drbd/n12/g2/s12345"));
    assert!(is_accepted(&a, "sample:alloc-huge-int.json"));
    assert!(is_accepted(&a, "balance:cli/unknown option --foo"));
    assert!(!is_accepted(&a, "gen:after"));
    // A class is not a case glob: it never accepts an id by name.
    assert!(!is_accepted(&a, "class:drained-target"));

    // Every malformed line is an error naming its line.
    for (bad, says) in [
        ("gen:x reason without a tab\n", "line 1: no tab"),
        ("# c\ngen:x\t\n", "line 2: 'gen:x' has no reason"),
        ("\treason without a pattern\n", "line 1: empty pattern"),
        ("class:no-such-class\twhy\n", "line 1: unknown class"),
        (
            "gen:x\tone\ngen:x\ttwo\n",
            "line 2: 'gen:x' is listed twice",
        ),
    ] {
        let e = parse_accepted(bad).unwrap_err();
        assert!(e.starts_with(says), "{bad:?}: {e}");
    }
    assert_eq!(parse_accepted("# only comments\n\n"), Ok(vec![]));
}

/// The project's own list: it parses, it holds both classes the tool
/// checks, and every other pattern names a suite that reads it.
#[test]
fn project_accepted_list() {
    let text = include_str!("../../../docs/accepted-differences.txt");
    let a = parse_accepted(text).unwrap();
    for class in KNOWN_CLASSES {
        assert!(a.iter().any(|p| p == class), "{class} missing");
    }
    assert!(a.contains(&"class:drained-target".to_string()));
    assert!(a.contains(&"class:hail-save-crash".to_string()));
    assert!(is_accepted(&a, "balance:gen/drbd/n7/s3+split"));
    assert!(is_accepted(
        &a,
        "squeeze:datafile/invalid-node.data/default"
    ));
    assert!(is_accepted(&a, "space:datafile/invalid-node.data#default"));
    assert!(is_accepted(&a, "roll:cli/help"));
    assert!(is_accepted(&a, "roll:datafile/invalid-node.data#default"));
    // No pattern covers a generated run of the roll or scan suite.
    assert!(!is_accepted(&a, "roll:gen/drbd/n5/g1/s2#default"));
    assert!(!is_accepted(&a, "scan:gen/drbd/n5/g1/s2#default"));
    assert!(is_accepted(&a, "scan:cli/luxi-missing-socket"));
    for p in &a {
        assert!(
            [
                "class:", "sample:", "gen:", "balance:", "squeeze:", "space:", "check:", "info:",
                "roll:", "scan:",
            ]
            .iter()
            .any(|prefix| p.starts_with(prefix)),
            "{p}: no suite reads this pattern"
        );
    }
}

#[test]
fn globs() {
    assert!(glob_match("*", ""));
    assert!(glob_match("a*c", "abbbc"));
    assert!(glob_match("a*c", "ac"));
    assert!(!glob_match("a*c", "acb"));
    assert!(glob_match("gen:*/s1", "gen:x/y/s1"));
    assert!(glob_match("*s1*", "gen:allocate/drbd/n2/g1/s1"));
    assert!(!glob_match("gen:a", "gen:ab"));
}

#[test]
fn kinds_of_requests() {
    assert_eq!(
        kind_of_request(br#"{"request":{"type":"allocate"}}"#),
        "allocate"
    );
    assert_eq!(
        kind_of_request(br#"{"request":{"type":"node-evacuate","evac_mode":"secondary-only"}}"#),
        "node-evacuate-secondary-only"
    );
    assert_eq!(kind_of_request(b"not json"), "other");
    assert_eq!(
        kind_of_request(br#"{"request":{"type":"multi-evacuate"}}"#),
        "other"
    );
}

#[test]
fn difference_window() {
    let a = "x".repeat(1000);
    let mut b = a.clone();
    b.replace_range(500..501, "y");
    let (wa, wb) = window(a.as_bytes(), b.as_bytes());
    assert!(wa.contains("first difference at byte 500"));
    assert!(wb.contains('y'));
    assert!(wa.len() < 400);
}

/// End-to-end through real processes, with shell scripts standing in for
/// hail and hailstone.
#[test]
fn fake_binaries() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("hailstone-compat-test.{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = |name: &str, body: &str| {
        let p = dir.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{}\n", body)).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    };
    // The fake hail echoes its arguments, so argument passing is checked too.
    let hail = script("hail", "printf '{\"success\":true,\"info\":\"%s %s\",\"result\":[]}\\n' \"$(basename \"$1\")\" \"$2\"");
    let same = script("same", &format!("exec {} \"$@\"", hail.display()));
    let info = script(
        "info",
        "printf '{\"success\":true,\"info\":\"other\",\"result\":[]}\\n'",
    );
    let diff = script(
        "diff",
        "printf '{\"success\":false,\"info\":\"x\",\"result\":[]}\\n'",
    );
    let nimpl = script(
        "nimpl",
        "echo \"hailstone: request type 'allocate' is not implemented yet\" >&2; exit 3",
    );
    let refuse = script("refuse", "echo 'Error: no' >&2; exit 1");
    let slow = script("slow", "sleep 5");
    let cwd = script("cwd", "pwd; test -t 0 && echo tty; echo \"$LC_ALL\"");
    let input = dir.join("in.json");
    std::fs::write(&input, "{}").unwrap();
    let opts = vec!["--no-capacity-checks".to_string()];
    let t = Duration::from_secs(10);
    let h = run_binary(&dir, &hail, &input, &opts, t);
    assert_eq!(
        String::from_utf8_lossy(&h.stdout),
        "{\"success\":true,\"info\":\"in.json --no-capacity-checks\",\"result\":[]}\n"
    );
    assert_eq!(
        classify(&h, &run_binary(&dir, &same, &input, &opts, t)),
        Outcome::Identical
    );
    assert_eq!(
        classify(&h, &run_binary(&dir, &info, &input, &opts, t)),
        Outcome::SameResult
    );
    assert_eq!(
        classify(&h, &run_binary(&dir, &diff, &input, &opts, t)),
        Outcome::DifferentResult
    );
    assert_eq!(
        classify(&h, &run_binary(&dir, &nimpl, &input, &opts, t)),
        Outcome::NotImplemented
    );
    assert_eq!(
        classify(&h, &run_binary(&dir, &refuse, &input, &opts, t)),
        Outcome::RefusalDiffers
    );
    let r = run_binary(&dir, &refuse, &input, &opts, t);
    assert_eq!(classify(&r, &r), Outcome::BothRefused);
    let s = run_binary(&dir, &slow, &input, &opts, Duration::from_millis(300));
    assert_eq!(s.status, Status::Capped);
    assert!(s.wall < Duration::from_secs(4));
    assert_eq!(classify(&s, &h), Outcome::HailTimeout);
    let w = run_binary(&dir, &cwd, &input, &opts, t);
    assert_eq!(String::from_utf8_lossy(&w.stdout), "/\nC.UTF-8\n");
    let missing = run_binary(&dir, &dir.join("nope"), &input, &opts, t);
    assert!(matches!(missing.status, Status::SpawnError(_)));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The answers suite's corpus of the command line `args`.
fn specs(args: &[&str]) -> Vec<crate::generate::CaseSpec> {
    let c = parse_args(args).unwrap();
    generated_specs(&c.common, &c.answers, Which::Answers)
}

#[test]
fn profiles() {
    let specs_ci = specs(&[]);
    assert_eq!(specs_ci.len(), 60 * 8);
    assert!(specs_ci.iter().all(|s| (2..=30).contains(&s.nodes)));
    let full = specs(&["--profile", "full"]);
    assert_eq!(
        full.iter()
            .filter(|s| s.kind == RequestKind::Allocate)
            .count(),
        500
    );
    assert_eq!(full.len(), 500 + 7 * 300);
    let few = specs(&["--kinds=relocate", "--count", "3", "--nodes=5-6"]);
    assert_eq!(few.len(), 3);
    assert!(few
        .iter()
        .all(|s| s.kind == RequestKind::Relocate && (5..=6).contains(&s.nodes)));
    // Two thirds of the profile for the data-file suite.
    let c = parse_args(&["--suite", "datafiles"]).unwrap();
    assert_eq!(
        generated_specs(&c.common, &c.answers, Which::DataFiles).len(),
        40 * 8
    );
    assert!(parse_args(&["--jobs", "0"]).is_err());
    assert!(parse_args(&["--bogus"]).is_err());
    assert!(parse_args(&["--profile"]).is_err());
}

#[test]
fn accepted_option() {
    let c = parse_args::<&str>(&[]).unwrap();
    assert_eq!(c.common.accepted, None);
    let c = parse_args(&["--accepted", "/x/list.txt"]).unwrap();
    assert_eq!(c.common.accepted, Some(PathBuf::from("/x/list.txt")));
    // The accepted list no longer comes from the README.
    assert!(parse_args(&["--readme", "README.md"]).is_err());
    // A named file that cannot be read, or is malformed, is an error.
    let e = read_allowlist(Some(Path::new("/nonexistent/list.txt"))).unwrap_err();
    assert!(e.contains("cannot read"));
    let dir = std::env::temp_dir().join(format!("hs-accepted-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "gen:x no tab\n").unwrap();
    let e = read_allowlist(Some(&bad)).unwrap_err();
    assert!(e.contains("bad.txt: line 1: no tab"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
