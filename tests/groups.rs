//! `hailstone-groups` on 500 generated multi-group clusters (the
//! generator's multi-group profile): every repair, compression and
//! balancing plan is replayed by the independent plan checker
//! (`support::plan`), step by step, and must be safe (capacity, online
//! targets, the template allowed in the target group); the state the
//! checker reaches must be the one the planner saved with `-S`; no
//! instance is lost or duplicated; after a repair the repaired groups
//! host nothing on offline nodes, after a compression the emptied group
//! holds no instance; the same input gives the same bytes.
//!
//! Ganeti's own `hcheck` judges the saved states in `make compat`
//! (`hailstone-compat --suite groups`).

use std::collections::BTreeSet;
use std::ffi::OsString;

use hailstone::program::hail::options::LoadOptions;
use hailstone::shell::datafile;
use hailstone_devtools::generate::{generate, CaseSpec};

use crate::support::plan;

/// Runs `hailstone-groups` in this process: exit status, stdout, stderr.
fn groups(args: &[&str]) -> (u8, String, String) {
    let args: Vec<OsString> = args.iter().map(OsString::from).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = hailstone::program::groups::main(&args, &mut out, &mut err);
    (
        code,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// The data file of multi-group cluster `seed`: 4 to 18 nodes in 2 to 4
/// groups.
fn cluster(seed: u64) -> Option<String> {
    let nodes = 4 + (seed as usize * 7) % 15;
    let groups = 2 + (seed as usize) % 3;
    let case = generate(&CaseSpec::multi_group(seed, nodes, groups));
    datafile::from_request(case.request.as_bytes(), &LoadOptions::default()).ok()
}

/// What one plan showed.
#[derive(Default)]
struct Tally {
    plans: usize,
    steps: usize,
}

/// Replays a plan's commands on the original cluster and checks it
/// against the saved state; returns the replayed cluster.
fn replay(label: &str, original: &str, stdout: &str, saved: &str) -> plan::Cluster {
    let mut cluster = plan::parse(original);
    let commands = stdout
        .split("Commands to run to reach the above solution:")
        .nth(1)
        .unwrap_or("");
    let violations = plan::replay(&mut cluster, commands);
    assert!(
        violations.is_empty(),
        "{label}: unsafe plan: {violations:#?}\n{stdout}"
    );
    let saved = plan::parse(saved);
    let first = plan::parse(original);
    let before: BTreeSet<&String> = first.insts.keys().collect();
    let after: BTreeSet<&String> = saved.insts.keys().collect();
    assert_eq!(before, after, "{label}: instances lost or added");
    let replayed = plan::placement(&cluster);
    for (name, nodes) in plan::placement(&saved) {
        assert_eq!(
            replayed.get(&name),
            Some(&nodes),
            "{label}: instance {name}"
        );
    }
    cluster
}

/// The groups a report says were repaired.
fn repaired_groups(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("  repaired: group "))
        .filter_map(|l| l.split(' ').next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn plans_on_500_clusters_are_safe() {
    let dir = crate::run::scratch("groups-test");
    let (mut repair, mut compress, mut balance) =
        (Tally::default(), Tally::default(), Tally::default());
    let mut clusters = 0;
    for seed in 1..=500u64 {
        let Some(text) = cluster(seed) else {
            continue;
        };
        clusters += 1;
        let file = dir.join(format!("c{seed}.data"));
        std::fs::write(&file, &text).unwrap();
        let file = file.to_str().unwrap();
        for (op, tally) in [
            ("repair", &mut repair),
            ("compress", &mut compress),
            ("balance", &mut balance),
        ] {
            let save = dir.join(format!("c{seed}-{op}"));
            let save = save.to_str().unwrap();
            let mut args = vec![op, "-t", file, "-C", "-S", save];
            if op == "compress" {
                args.push("--evacuate");
            }
            let label = format!("seed {seed}: {args:?}");
            let (code, stdout, stderr) = groups(&args);
            // Findings (3): a group the repair left unhealthy, no group
            // that compress can empty.
            match op {
                "balance" => assert_eq!(code, 0, "{label}: {stderr}"),
                "compress" => assert_eq!(
                    code == 3,
                    stdout.contains("No group can be emptied.\n"),
                    "{label}: {code} {stderr}"
                ),
                _ => assert!(code == 0 || code == 3, "{label}: {code} {stderr}"),
            }
            if seed % 25 == 0 {
                assert_eq!(
                    groups(&args).1,
                    stdout,
                    "{label}: output differs between runs"
                );
            }
            let suffix = match op {
                "repair" => "repaired",
                "compress" => "compressed",
                _ => "balanced",
            };
            let Ok(saved) = std::fs::read_to_string(format!("{save}.{suffix}")) else {
                continue;
            };
            tally.plans += 1;
            tally.steps += stdout
                .lines()
                .filter(|l| l.contains(". ") && l.contains(" => "))
                .count();
            let after = replay(&label, &text, &stdout, &saved);
            match op {
                "repair" => {
                    let offline = plan::instances_on_offline_nodes(&after);
                    for g in repaired_groups(&stdout) {
                        let uuid = &after.groups[&g];
                        let left: Vec<&String> = offline
                            .iter()
                            .filter(|i| plan::instances_in_group(&after, uuid).contains(i))
                            .collect();
                        assert!(
                            left.is_empty(),
                            "{label}: group {g} still hosts {left:?} on offline nodes"
                        );
                    }
                }
                "compress" => {
                    let g = stdout
                        .lines()
                        .find_map(|l| l.strip_prefix("Emptying group "))
                        .and_then(|l| l.split(' ').next())
                        .expect("a compression plan names its group");
                    let left = plan::instances_in_group(&after, &after.groups[g]);
                    assert!(left.is_empty(), "{label}: group {g} still holds {left:?}");
                }
                _ => {}
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "{clusters} clusters: repair {} plans / {} steps, compress {} / {}, balance {} / {}",
        repair.plans, repair.steps, compress.plans, compress.steps, balance.plans, balance.steps
    );
    assert!(clusters >= 500, "only {clusters} clusters generated");
    // Enough of each kind of plan to prove something.
    assert!(
        repair.plans >= 50 && repair.steps >= 150,
        "repairs: {} plans, {} steps",
        repair.plans,
        repair.steps
    );
    assert!(
        compress.plans >= 30 && compress.steps >= 60,
        "compressions: {} plans, {} steps",
        compress.plans,
        compress.steps
    );
    assert!(
        balance.plans >= 100 && balance.steps >= 200,
        "balancings: {} plans, {} steps",
        balance.plans,
        balance.steps
    );
}

/// `--inter-group-evacuation`: node-evacuate moves what fits nowhere in
/// its own group into a group of its storage partition; every answer is
/// safe by the independent answer checker, and the option adds moves to
/// other groups that hail's answer lists as failed.
#[test]
fn inter_group_evacuation_is_safe() {
    let dir = crate::run::scratch("groups-evacuate");
    let (mut remote, mut answers) = (0, 0);
    for seed in 1..=120u64 {
        let case = generate(&CaseSpec::multi_group(seed, 10, 3));
        let file = dir.join(format!("r{seed}.json"));
        std::fs::write(&file, &case.request).unwrap();
        let run = |extra: &[&str]| {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_hailstone"))
                .arg(&file)
                .args(extra)
                .output()
                .expect("run hailstone");
            assert_eq!(out.status.code(), Some(0), "seed {seed}");
            String::from_utf8(out.stdout).unwrap()
        };
        let plain = run(&[]);
        let across = run(&["--inter-group-evacuation=yes"]);
        let violations = crate::support::safety::check(&case.request, &[], &across);
        assert!(
            violations.is_empty(),
            "seed {seed}: {violations:#?}\n{across}"
        );
        answers += 1;
        let moved = |text: &str| -> usize {
            let v: serde_json::Value = serde_json::from_str(text).unwrap();
            v["result"][0].as_array().map_or(0, Vec::len)
        };
        assert!(moved(&across) >= moved(&plain), "seed {seed}: fewer moves");
        remote += moved(&across) - moved(&plain);
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        answers == 120 && remote >= 30,
        "{remote} instances moved to other groups"
    );
}

/// Bad command lines and bad files through the binary: a message naming
/// what is wrong, a non-zero exit, nothing on stdout.
#[test]
fn bad_input_is_refused_by_the_binary() {
    let dir = crate::run::scratch("groups-bad-input");
    let good = dir.join("cluster.data");
    std::fs::write(&good, cluster(5).expect("a cluster")).unwrap();
    let bad = dir.join("bad.data");
    std::fs::write(&bad, "grp|uuid\n").unwrap();
    let truncated = dir.join("truncated.data");
    let text = std::fs::read_to_string(&good).unwrap();
    std::fs::write(&truncated, &text[..text.len() / 2]).unwrap();
    let good = good.display().to_string();
    let bad = bad.display().to_string();
    let truncated = truncated.display().to_string();
    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        (vec![], 2, "no operation given"),
        (
            vec!["frobnicate", "-t", &good],
            2,
            "unknown operation 'frobnicate'",
        ),
        (vec!["check"], 1, "No backend selected"),
        (
            vec!["check", "-t", "/nonexistent/cluster.data"],
            1,
            "/nonexistent/cluster.data",
        ),
        (vec!["check", "-t", &bad], 1, "bad.data"),
        (vec!["repair", "-t", &truncated], 1, "truncated.data"),
        (
            vec!["repair", "-t", &good, "-G", "no-such-group"],
            1,
            "node group no-such-group not found",
        ),
        (
            vec!["check", "-t", &good, "--bogus"],
            2,
            "unrecognized option `--bogus'",
        ),
        // hailstone-groups has no original: a bad value is a usage error.
        (vec!["balance", "-t", &good, "-e", "abc"], 2, "min score"),
        (vec!["check", "-t", &good, "--explain-format=xml"], 2, "xml"),
        (
            vec!["repair", "-t", &good, "-S", "/nonexistent/dir/state"],
            1,
            "/nonexistent/dir/state",
        ),
    ];
    for (args, code, says) in cases {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_hailstone-groups"))
            .args(&args)
            .output()
            .expect("run hailstone-groups");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        assert!(
            out.stdout.is_empty(),
            "{args:?}: stdout {:?}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(err.contains(says), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A group that shares storage with no other is not left at "nothing to
/// repair": the report names it and the program that repairs it within
/// itself, by what is wrong (offline nodes hosting instances: hbal's
/// evacuation mode; nodes failing N+1: balancing), and that advice works.
#[test]
fn an_unhealthy_group_alone_in_its_storage_is_pointed_to_balancing() {
    use crate::check::POLICY;
    // n3 is offline and primary of a drbd instance; n1 and n2 are free.
    let offline = format!(
        "g1|uuid-g1|preferred||\n\n\
         n1|16384|0|16384|100000|100000|8|N|uuid-g1|1\n\
         n2|16384|0|16384|100000|100000|8|N|uuid-g1|1\n\
         n3|16384|0|15360|100000|99000|8|Y|uuid-g1|1\n\n\
         a|1024|1000|1|running|Y|n3|n1|drbd||1\n\n\n{POLICY}"
    );
    // n1 holds the secondary of two big drbd instances of n2 and cannot
    // take them over: it fails N+1; n3 is empty.
    let n1_failing = format!(
        "g1|uuid-g1|preferred||\n\n\
         n1|16384|0|10240|100000|80000|8|N|uuid-g1|1\n\
         n2|16384|0|4096|100000|80000|8|N|uuid-g1|1\n\
         n3|16384|0|16384|100000|100000|8|N|uuid-g1|1\n\n\
         a|6144|10000|1|running|Y|n2|n1|drbd||1\n\
         b|6144|10000|1|running|Y|n2|n1|drbd||1\n\
         c|6144|10000|1|running|Y|n1|n2|drbd||1\n\n\n{POLICY}"
    );
    let dir = crate::run::scratch("groups-alone");
    for (name, data, status, advice) in [
        ("offline", &offline, "unhealthy", "hailstone-balance -G g1 --evac-mode moves what it can off its offline nodes within it."),
        ("n1", &n1_failing, "weakly unhealthy", "hailstone-balance -G g1 rebalances it within itself (its score counts the nodes failing N+1)."),
    ] {
        let path = dir.join(format!("{name}.data"));
        std::fs::write(&path, data).unwrap();
        let run = |program: &str, args: &[&str]| {
            let out = std::process::Command::new(program)
                .args(args)
                .arg("-t")
                .arg(&path)
                .output()
                .expect("the program runs");
            // A group left unhealthy: exit status 3 (findings) for the
            // repair, 0 for hailstone-balance's plan.
            let want = if program.ends_with("groups") { 3 } else { 0 };
            assert_eq!(out.status.code(), Some(want), "{program} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let report = run(env!("CARGO_BIN_EXE_hailstone-groups"), &["repair"]);
        let line = format!("Group g1 ({status}) shares storage with no other group, so no instance can leave it: {advice}\n");
        assert!(report.contains(&line), "{name}: {report}");
        assert!(
            report.ends_with("Every group that shares storage with another is healthy: nothing to repair across groups.\n"),
            "{name}: {report}"
        );
        // The advice repairs the group: no node of the plan's final
        // state fails N+1 (hbal's flag column), and no offline node hosts
        // an instance once the state is read back (a saved state keeps
        // the reported free memory, so only that part is judged there).
        let save = dir.join(format!("{name}-state")).display().to_string();
        let mut args = vec!["-G", "g1", "-p", "-S", &save];
        if name == "offline" {
            args.push("--evac-mode");
        }
        let plan = run(env!("CARGO_BIN_EXE_hailstone-balance"), &args);
        let last = plan
            .rsplit("Final cluster status:\n")
            .next()
            .unwrap_or_default();
        assert!(
            !last.lines().any(|l| l.starts_with(" * ")),
            "{name} after the advice: {plan}"
        );
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_hailstone-groups"))
            .args(["check", "-t"])
            .arg(dir.join(format!("{name}-state.balanced")))
            .output()
            .expect("hailstone-groups runs");
        let check = String::from_utf8_lossy(&out.stdout);
        assert!(
            !check.contains("offline nodes hosting instances"),
            "{name} after the advice: {check}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
