//! The cost options only hailstone has, as an operator types them:
//! `--max-copy`, `--print-cost`, `--resync-rate` and
//! `--migration-bandwidth` on every program that takes them. A bad value
//! (not a number, a fraction, an unknown unit, negative, zero for a
//! rate, out of 64 bits' range, NaN, infinity, empty) is a usage error
//! naming the option and what to give instead: exit status 2, nothing on
//! stdout, never a panic; a misspelt option is named with the options it
//! may have meant. Good values run.

use std::path::Path;
use std::process::Command;

use hailstone::program::ExitStatus;

use crate::run::scratch;

fn binary(program: &str) -> &'static str {
    match program {
        "hailstone" => env!("CARGO_BIN_EXE_hailstone"),
        "hailstone-balance" => env!("CARGO_BIN_EXE_hailstone-balance"),
        "hailstone-squeeze" => env!("CARGO_BIN_EXE_hailstone-squeeze"),
        "hailstone-groups" => env!("CARGO_BIN_EXE_hailstone-groups"),
        "hailstone-roll" => env!("CARGO_BIN_EXE_hailstone-roll"),
        "hailstone-repair" => env!("CARGO_BIN_EXE_hailstone-repair"),
        other => panic!("no program {other}"),
    }
}

/// A small healthy cluster: two nodes, one drbd instance.
const CLUSTER: &str = "g1|uuid-g1|preferred||\n\n\
    n1|16384|0|15360|100000|98976|8|N|uuid-g1|1\n\
    n2|16384|0|16384|100000|98976|8|N|uuid-g1|1\n\n\
    a|1024|1024|1|running|Y|n1|n2|drbd||1\n\n";

/// Each program's arguments before the option under test, and which of
/// the options it takes (`--max-copy` only balance).
fn programs(file: &str, request: &str) -> Vec<(&'static str, Vec<String>, bool)> {
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    vec![
        ("hailstone-balance", s(&["-t", file]), true),
        ("hailstone-squeeze", s(&["-t", file]), false),
        ("hailstone-groups", s(&["balance", "-t", file]), false),
        ("hailstone-roll", s(&["-t", file, "-f"]), false),
        // Options are read before the cluster: no master needed.
        ("hailstone-repair", s(&["-L/nonexistent/socket"]), false),
        ("hailstone", s(&[request]), false),
    ]
}

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(program: &str, args: &[String]) -> Ran {
    let out = Command::new(binary(program))
        .args(args)
        .env("LC_ALL", "C.UTF-8")
        .output()
        .expect("the program runs");
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A usage error naming `option`, with `hint` in its words.
fn refused(program: &str, args: &[String], option: &str, hint: &str) {
    let what = format!("{program} {}", args.join(" "));
    let ran = run(program, args);
    assert_eq!(
        ran.code,
        Some(i32::from(ExitStatus::Usage.code())),
        "{what}: {}",
        ran.stderr
    );
    assert!(ran.stdout.is_empty(), "{what}: stdout {}", ran.stdout);
    assert!(!ran.stderr.contains("panicked"), "{what}: {}", ran.stderr);
    assert!(
        ran.stderr.contains(&format!("option --{option}: ")),
        "{what}: the option is not named: {}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains(hint),
        "{what}: no '{hint}' in {}",
        ran.stderr
    );
    assert!(
        ran.stderr.ends_with(&format!("see {program} --help\n")),
        "{what}: {}",
        ran.stderr
    );
}

/// Values that are not a size or a rate, and what the message says.
const NOT_A_NUMBER: [&str; 10] = [
    "abc", "1.5T", "10X", "", "NaN", "inf", "-inf", "1e3", "5 g g", "0x",
];
const TOO_LARGE: [&str; 5] = [
    "99999999999999999999T",
    "-99999999999999999999",
    "18446744073709551617",
    "9223372036854775808",
    "8796093022208t",
];

#[test]
fn bad_sizes_and_rates_are_usage_errors_that_say_what_to_give() {
    let dir = scratch("cost-options");
    let file = dir.join("cluster.data");
    std::fs::write(&file, CLUSTER).unwrap();
    let file = file.to_str().unwrap();
    let request = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("protocol-samples/allocate-drbd.json")
        .to_string_lossy()
        .into_owned();
    let mut checked = 0;
    for (program, base, max_copy) in programs(file, &request) {
        let with = |opt: &str| [&base[..], &[opt.to_owned()]].concat();
        for option in ["resync-rate", "migration-bandwidth"] {
            for v in NOT_A_NUMBER.iter().chain(&["0", "-1", "-5g", "1M"]) {
                refused(
                    program,
                    &with(&format!("--{option}={v}")),
                    option,
                    "at least 1 MiB",
                );
                checked += 1;
            }
            for v in TOO_LARGE {
                refused(
                    program,
                    &with(&format!("--{option}={v}")),
                    option,
                    "out of range",
                );
                checked += 1;
            }
        }
        if max_copy {
            for v in NOT_A_NUMBER.iter().chain(&["-1", "-0x5"]) {
                refused(
                    program,
                    &with(&format!("--max-copy={v}")),
                    "max-copy",
                    "0 or more",
                );
                checked += 1;
            }
            for v in TOO_LARGE {
                refused(
                    program,
                    &with(&format!("--max-copy={v}")),
                    "max-copy",
                    "out of range",
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 150, "{checked}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--print-cost` takes no value; a misspelt option names every option
/// it may have meant.
#[test]
fn misspelt_cost_options_name_their_neighbours() {
    let ran = run(
        "hailstone-balance",
        &["-t".to_owned(), "x".to_owned(), "--max-cpy=1".to_owned()],
    );
    assert_eq!(ran.code, Some(2));
    assert!(ran.stdout.is_empty());
    assert!(
        ran.stderr
            .contains("--max-cpy: did you mean --max-cpu or --max-copy?\n"),
        "{}",
        ran.stderr
    );
    let ran = run("hailstone-roll", &["--print-cost=yes".to_owned()]);
    assert_eq!(ran.code, Some(2));
    assert!(
        ran.stderr
            .contains("option `--print-cost' doesn't allow an argument"),
        "{}",
        ran.stderr
    );
    let ran = run("hailstone-squeeze", &["--resync-rtae=5".to_owned()]);
    assert_eq!(ran.code, Some(2));
    assert!(
        ran.stderr.contains("did you mean --resync-rate?"),
        "{}",
        ran.stderr
    );
}

/// The edges that are valid: a budget of 0, the largest size, a rate of
/// 1 MiB/s and one with a unit.
#[test]
fn the_valid_edges_run() {
    let dir = scratch("cost-options-valid");
    let file = dir.join("cluster.data");
    std::fs::write(&file, CLUSTER).unwrap();
    let file = file.to_str().unwrap().to_owned();
    for extra in [
        &["--max-copy=0"][..],
        &["--max-copy=9223372036854775807"],
        &["--max-copy=8796093022207t"],
        &[
            "--resync-rate=1",
            "--migration-bandwidth=2G",
            "--print-cost",
        ],
    ] {
        let args: Vec<String> = ["-t", &file]
            .iter()
            .chain(extra)
            .map(|s| (*s).to_owned())
            .collect();
        let ran = run("hailstone-balance", &args);
        assert_eq!(ran.code, Some(0), "{args:?}: {}", ran.stderr);
        assert!(!ran.stdout.is_empty());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
