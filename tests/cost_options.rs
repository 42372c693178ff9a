//! The cost options only hailstone has, as an operator types them:
//! `--max-copy`, `--print-cost`, `--resync-rate` and
//! `--migration-bandwidth` on every program that takes them. A bad value
//! (not a number, a fraction, an unknown unit, negative, zero for a
//! rate, out of 64 bits' range, NaN, infinity, empty) is a usage error
//! naming the option and what to give instead: exit status 2, nothing on
//! stdout, never a panic; a misspelt option is named with the options it
//! may have meant. Good values run.

use std::path::Path;

use hailstone::program::ExitStatus;

use crate::figures::run;
use crate::run::scratch;

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

/// A usage error (exit status 2, nothing on stdout, no panic, the
/// closing line) whose message holds each of `words`.
fn usage_error(program: &str, args: &[String], words: &[&str]) {
    let what = format!("{program} {}", args.join(" "));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let ran = run(program, &args);
    assert_eq!(
        ran.code,
        i32::from(ExitStatus::Usage.code()),
        "{what}: {}",
        ran.stderr
    );
    assert!(ran.stdout.is_empty(), "{what}: stdout {}", ran.stdout);
    for w in words {
        assert!(ran.stderr.contains(w), "{what}: no '{w}' in {}", ran.stderr);
    }
    assert!(
        ran.stderr.ends_with(&format!("see {program} --help\n")),
        "{what}: {}",
        ran.stderr
    );
}

/// A bad value of `option`: named, with `hint` in the message.
fn refused(program: &str, args: &[String], option: &str, hint: &str) {
    usage_error(program, args, &[&format!("option --{option}: "), hint]);
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
        // (option, values, what the message says)
        let mut bad: Vec<(&str, Vec<&str>, &str)> = Vec::new();
        for option in ["resync-rate", "migration-bandwidth"] {
            let low = ["0", "-1", "-5g", "1M"];
            bad.push((option, [&NOT_A_NUMBER[..], &low].concat(), "at least 1 MiB"));
            bad.push((option, TOO_LARGE.to_vec(), "out of range"));
        }
        if max_copy {
            let low = ["-1", "-0x5"];
            bad.push(("max-copy", [&NOT_A_NUMBER[..], &low].concat(), "0 or more"));
            bad.push(("max-copy", TOO_LARGE.to_vec(), "out of range"));
        }
        for (option, values, hint) in bad {
            for v in values {
                let args = [&base[..], &[format!("--{option}={v}")]].concat();
                refused(program, &args, option, hint);
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
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    usage_error(
        "hailstone-balance",
        &s(&["-t", "x", "--max-cpy=1"]),
        &["--max-cpy: did you mean --max-cpu or --max-copy?\n"],
    );
    usage_error(
        "hailstone-roll",
        &s(&["--print-cost=yes"]),
        &["option `--print-cost' doesn't allow an argument"],
    );
    usage_error(
        "hailstone-squeeze",
        &s(&["--resync-rtae=5"]),
        &["did you mean --resync-rate?"],
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
        let args = [&["-t", file.as_str()][..], extra].concat();
        let ran = run("hailstone-balance", &args);
        assert_eq!(ran.code, 0, "{args:?}: {}", ran.stderr);
        assert!(!ran.stdout.is_empty());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The originals' abbreviations keep their meaning beside the cost
/// options: `--print` is hsqueeze's `--print-commands` and hroller's
/// `--print-moves`, not ambiguous with `--print-cost`.
#[test]
fn the_originals_abbreviations_are_theirs() {
    let dir = scratch("cost-options-abbreviations");
    let file = dir.join("cluster.data");
    std::fs::write(&file, CLUSTER).unwrap();
    let file = file.to_str().unwrap();
    for (program, args) in [
        ("hailstone-squeeze", &["--print", "-t", file][..]),
        ("hailstone-roll", &["--print", "-f", "-t", file]),
    ] {
        let ran = run(program, args);
        assert_eq!(ran.code, 0, "{program} {args:?}: {}", ran.stderr);
        assert!(!ran.stdout.contains("Cost of the plan"), "{}", ran.stdout);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
