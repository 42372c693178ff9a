//! `hailstone-balance` end to end on generated clusters: every plan is
//! replayed by the independent plan checker (`support::plan`), step by
//! step, and must be safe; the state the checker reaches must be the one
//! the planner saved with `-S`; the same input gives the same bytes.

use std::process::Command;

use hailstone::program::hail::options::LoadOptions;
use hailstone::shell::datafile;
use hailstone_devtools::generate::{generate, CaseSpec, RequestKind};

use crate::support::plan;

fn balance(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_hailstone-balance"))
        .args(args)
        .output()
        .expect("run hailstone-balance")
}

/// The groups of a data file (first section), by name.
pub(crate) fn groups(text: &str) -> Vec<String> {
    text.split("\n\n")
        .next()
        .unwrap_or("")
        .lines()
        .filter_map(|l| l.split('|').next())
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The generated cluster of `seed` (a relocate request's cluster, 3 to 14
/// nodes): the request and its data file, if the request is valid.
fn generated_cluster(seed: u64) -> Option<(String, String)> {
    let spec = CaseSpec::random(seed, RequestKind::Relocate, 3..=14);
    let case = generate(&spec);
    let text = datafile::from_request(case.request.as_bytes(), &LoadOptions::default()).ok()?;
    Some((case.request, text))
}

/// The generated clusters of `seeds` written to `dir` as `cSEED.data`:
/// each seed, its file's path and its text.
fn written_clusters(
    dir: &std::path::Path,
    seeds: std::ops::RangeInclusive<u64>,
) -> Vec<(u64, String, String)> {
    seeds
        .filter_map(|seed| {
            let (_, text) = generated_cluster(seed)?;
            let file = dir.join(format!("c{seed}.data"));
            std::fs::write(&file, &text).unwrap();
            Some((seed, file.to_str().unwrap().to_owned(), text))
        })
        .collect()
}

#[test]
fn plans_are_safe_and_match_the_saved_state() {
    let dir = crate::run::scratch("balance-test");
    let mut moves = 0;
    let mut plans = 0;
    for (seed, file, text) in written_clusters(&dir, 1..=40) {
        let file = file.as_str();
        for g in groups(&text) {
            let save = dir.join(format!("c{seed}-{g}"));
            let save = save.to_str().unwrap();
            let extra: &[&str] = match seed % 4 {
                0 => &[],
                1 => &["--ignore-soft-errors"],
                2 => &["-E"],
                _ => &["--no-disk-moves"],
            };
            let mut args = vec!["-t", file, "-G", &g, "-C", "-S", save];
            args.extend_from_slice(extra);
            let out = balance(&args);
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            assert_eq!(
                out.status.code(),
                Some(0),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            // Same input, same bytes.
            let again = balance(&args);
            assert_eq!(
                again.stdout, out.stdout,
                "{args:?}: output differs between runs"
            );
            let Ok(balanced) = std::fs::read_to_string(format!("{save}.balanced")) else {
                // Nothing to balance: no plan, no final state.
                continue;
            };
            plans += 1;
            moves += stdout.lines().filter(|l| l.contains(" a=")).count();
            let mut cluster = plan::parse(&text);
            let commands = stdout
                .split("Commands to run to reach the above solution:")
                .nth(1)
                .unwrap_or("");
            let violations = plan::replay(&mut cluster, commands);
            assert!(
                violations.is_empty(),
                "{args:?}: unsafe plan: {violations:#?}\n{stdout}"
            );
            let saved = plan::placement(&plan::parse(&balanced));
            let replayed = plan::placement(&cluster);
            for (name, nodes) in &saved {
                assert_eq!(replayed.get(name), Some(nodes), "{args:?}: instance {name}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        plans >= 20 && moves >= 40,
        "too few plans to prove anything: {plans} plans, {moves} moves"
    );
}

/// The checker itself refuses unsafe steps.
#[test]
fn plan_checker_refuses_unsafe_steps() {
    let text = "g|u|preferred||\n\nn1.x|1000|0|500|1000|100|4|N|u|1\nn2.x|1000|0|100|1000|100|4|N|u|1\nn3.x|1000|0|900|1000|100|4|Y|u|1\n\ni1.x|400|80|1|running|Y|n1.x|n2.x|drbd||1\n\n\n";
    let fresh = || plan::parse(text);
    // Failing over needs 400 MiB on n2, which has 100.
    assert!(!plan::replay(&mut fresh(), "gnt-instance migrate -f i1").is_empty());
    // n3 is offline.
    assert!(!plan::replay(&mut fresh(), "gnt-instance replace-disks -n n3 i1").is_empty());
    // A drbd instance cannot move to a named node.
    assert!(!plan::replay(&mut fresh(), "gnt-instance migrate -f -n n2 i1").is_empty());
    // Unknown instance.
    assert!(!plan::replay(&mut fresh(), "gnt-instance migrate -f i9").is_empty());
}

/// `-I` balances the request's cluster, read once: the same bytes as `-t`
/// on that cluster saved as a data file; a bad request is an error on
/// stderr, exit status 1, nothing on stdout.
#[test]
fn ialloc_source_is_the_saved_cluster() {
    let dir = crate::run::scratch("balance-ialloc");
    let mut compared = 0;
    for seed in 1..=12u64 {
        let Some((request, text)) = generated_cluster(seed) else {
            continue;
        };
        let req = dir.join(format!("r{seed}.json"));
        let data = dir.join(format!("r{seed}.data"));
        std::fs::write(&req, &request).unwrap();
        std::fs::write(&data, &text).unwrap();
        for g in groups(&text) {
            let from_req = balance(&["-I", req.to_str().unwrap(), "-G", &g, "-C", "-p"]);
            let from_data = balance(&["-t", data.to_str().unwrap(), "-G", &g, "-C", "-p"]);
            assert_eq!(
                from_req.status.code(),
                from_data.status.code(),
                "seed {seed}"
            );
            assert_eq!(from_req.stdout, from_data.stdout, "seed {seed} group {g}");
            assert_eq!(from_req.stderr, from_data.stderr, "seed {seed} group {g}");
            compared += 1;
        }
    }
    assert!(compared >= 12, "only {compared} comparisons");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"cluster_name\": ").unwrap();
    let out = balance(&["-I", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("Error: failed to load data, aborting: ") && err.contains("bad.json"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `--explain`: the plan is the same, and the stopping rule it names is
/// the one the plan shows: a step limit with `-l`, otherwise a best move
/// left whose score does not beat the final one (or a score good enough,
/// or no move at all).
#[test]
fn explanations_name_the_stopping_rule() {
    let dir = crate::run::scratch("balance-explain");
    let mut checked = 0;
    for (seed, file, text) in written_clusters(&dir, 1..=24) {
        let file = file.as_str();
        let Some(g) = groups(&text).into_iter().next() else {
            continue;
        };
        for limit in [None, Some("2")] {
            let mut args = vec!["-t", file, "-G", &g];
            if let Some(l) = limit {
                args.extend(["-l", l]);
            }
            let plain = balance(&args);
            let exp = dir.join(format!("e{seed}.txt"));
            let opt = format!("--explain={}", exp.display());
            let mut with = args.clone();
            with.push(&opt);
            let out = balance(&with);
            assert_eq!(
                out.stdout, plain.stdout,
                "{with:?}: --explain changed the plan"
            );
            assert_eq!(out.status.code(), plain.status.code());
            let Ok(e) = std::fs::read_to_string(&exp) else {
                // The run stopped before balancing (an unusable group).
                continue;
            };
            let stdout = String::from_utf8_lossy(&plain.stdout);
            let length: usize = stdout
                .lines()
                .find_map(|l| l.strip_prefix("Solution length="))
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            let stop = e
                .lines()
                .find(|l| l.starts_with("stopped: "))
                .expect("a stop line");
            if limit.is_some() && length == 2 {
                assert!(stop.contains("step limit"), "{with:?}: {e}");
            } else if let Some(rest) = stop.strip_prefix("stopped: no move lowers the score; ") {
                // "... at BEST (GAP above the current FINAL)" or "(equal
                // to the current FINAL)": the best is not below.
                let nums: Vec<f64> = rest
                    .split([' ', ')', '('])
                    .filter_map(|w| w.parse().ok())
                    .collect();
                let (best, fin) = (nums[0], nums[nums.len() - 1]);
                assert!(best >= fin, "{with:?}: {e}");
                if nums.len() == 3 {
                    assert!(nums[1] > 0.0, "{with:?}: {e}");
                }
            } else {
                assert!(
                    stop.contains("is at most")
                        || stop.contains("no instance has a move")
                        || stop.contains("are refused by a check")
                        || stop.contains("less than -g")
                        || (stop.contains("the score is not a number")
                            && stdout.contains("Initial score: NaN")),
                    "{with:?}: {e}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "too few explanations checked: {checked}");
}

/// The disk data the `gnt-instance replace-disks` lines of `commands`
/// copy: each its instance's disk size in the data file `c`.
fn copied_by(c: &plan::Cluster, commands: &str) -> i64 {
    commands
        .lines()
        .filter_map(|l| l.trim().strip_prefix("gnt-instance replace-disks "))
        .map(|rest| {
            let name = rest.split_whitespace().last().unwrap_or("");
            c.insts
                .iter()
                .find(|(k, _)| {
                    *k == name || k.strip_prefix(name).is_some_and(|r| r.starts_with('.'))
                })
                .map_or(i64::MAX / 4, |(_, i)| i.dsk)
        })
        .sum()
}

/// `--max-copy=SIZE`: at no budget, a quarter and half of the data of
/// hbal's plan (hailstone-balance without it), every plan is safe step by
/// step (the plan checker replays its `-C` commands), its saved state is
/// the replayed one, its commands copy at most the budget (0: no disk
/// replacement), its score is never above hbal's plan cut where its data
/// reaches the budget, and the same input gives the same bytes.
#[test]
fn budgeted_plans_are_safe_within_budget_and_never_above_hbals_cut() {
    let dir = crate::run::scratch("balance-budget");
    let (mut plans, mut better, mut budgets) = (0, 0, 0);
    for (seed, file, text) in written_clusters(&dir, 1..=40) {
        let file = file.as_str();
        for g in groups(&text) {
            let full = balance(&["-t", file, "-G", &g, "--json"]);
            let Ok(doc) = serde_json::from_slice::<serde_json::Value>(&full.stdout) else {
                continue;
            };
            let moves = doc["moves"].as_array().cloned().unwrap_or_default();
            let data: i64 = moves
                .iter()
                .map(|m| m["cost"]["disk_mib"].as_i64().unwrap())
                .sum();
            let initial = doc["score"]["initial"].as_f64().unwrap_or(f64::NAN);
            for budget in [0, data / 4, data / 2] {
                // hbal's plan cut at the budget.
                let mut copied = 0;
                let mut cut = initial;
                for m in &moves {
                    copied += m["cost"]["disk_mib"].as_i64().unwrap();
                    if copied > budget {
                        break;
                    }
                    cut = m["score"].as_f64().unwrap();
                }
                let save = dir.join(format!("c{seed}-{g}-{budget}"));
                let save = save.to_str().unwrap();
                let b = format!("--max-copy={budget}");
                let args = ["-t", file, "-G", &g, "-C", "-S", save, &b];
                let out = balance(&args);
                assert_eq!(out.status.code(), Some(0), "{args:?}");
                assert_eq!(
                    balance(&args).stdout,
                    out.stdout,
                    "{args:?}: not the same bytes"
                );
                let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
                budgets += 1;
                let fin = stdout
                    .lines()
                    .find_map(|l| l.strip_prefix("Cluster score improved from "))
                    .and_then(|l| l.split(" to ").nth(1))
                    .and_then(|s| s.trim().parse::<f64>().ok());
                let Ok(balanced) = std::fs::read_to_string(format!("{save}.balanced")) else {
                    continue;
                };
                let fin = fin.unwrap_or(initial);
                plans += 1;
                let mut cluster = plan::parse(&text);
                let commands = stdout
                    .split("Commands to run to reach the above solution:")
                    .nth(1)
                    .unwrap_or("");
                assert!(
                    copied_by(&cluster, commands) <= budget,
                    "{args:?}: copies more than the budget\n{stdout}"
                );
                let violations = plan::replay(&mut cluster, commands);
                assert!(
                    violations.is_empty(),
                    "{args:?}: unsafe plan: {violations:#?}\n{stdout}"
                );
                let saved = plan::placement(&plan::parse(&balanced));
                for (name, nodes) in &saved {
                    assert_eq!(
                        plan::placement(&cluster).get(name),
                        Some(nodes),
                        "{args:?}: instance {name}"
                    );
                }
                if !initial.is_finite() {
                    // A group whose score is not a number (no online node
                    // with memory): no score to compare.
                    continue;
                }
                // The text prints 8 decimals.
                assert!(
                    fin <= cut + 1e-8,
                    "{args:?}: score {fin} above hbal's cut plan's {cut}"
                );
                if fin < cut - 1e-8 {
                    better += 1;
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        budgets >= 60 && plans >= 30 && better >= 10,
        "too few plans to prove anything: {budgets} budgets, {plans} plans, {better} better than the cut"
    );
}
