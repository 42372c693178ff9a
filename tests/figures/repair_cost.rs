//! The cost of `hailstone-repair`'s plan (`--print-cost`: the repair jobs
//! of the run) recomputed from the Luxi replies it read and the jobs it
//! printed (`--dry-run`) or submitted to the fake master, without the
//! program's code: a job's `OP_INSTANCE_REPLACE_DISKS` resyncs the
//! instance's disks (the sum of its `disk.sizes`) to a new secondary, an
//! `OP_INSTANCE_RECREATE_DISKS` of a drbd instance too (the new pair's
//! secondary), of any other template nothing; an `OP_INSTANCE_FAILOVER`
//! copies nothing (a failover, never a migration); an
//! `OP_INSTANCE_REINSTALL` is counted as a reinstall. The jobs are one
//! job set: its time is the longest job's disk data at the resync rate.
//!
//! The replies are `tests/live/repair.luxi` and a variant of it: every
//! instance with other disks (several, of sizes that differ from each
//! other and stay below 1 GiB, so that the text's sizes are exact MiB)
//! and the cluster's policy raised to reinstall, so that a plain and a
//! drbd instance are reinstalled too.

use serde_json::Value;

use crate::support::master::{live_replies, run_repair};

use super::Findings;

/// The instance query's fields used here (hbal's instance query's order,
/// as the replies hold them): name, disk template, disk sizes and
/// spindles.
const NAME: usize = 0;
const TEMPLATE: usize = 9;
const DISK_SIZES: usize = 11;
/// One a disk, as many as the sizes (Ganeti's loader pairs them).
const DISK_SPINDLES: usize = 12;

/// The replies, one message each (separated by byte 3).
fn messages(replies: &[u8]) -> Vec<Value> {
    replies
        .split(|&b| b == 3)
        .filter(|m| !m.is_empty())
        .map(|m| serde_json::from_slice(m).expect("a JSON reply"))
        .collect()
}

fn joined(messages: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in messages {
        out.extend(serde_json::to_vec(m).expect("JSON"));
        out.push(3);
    }
    out
}

/// The variant: other disks for every instance, the cluster's policy
/// raised to reinstall.
fn variant(replies: &[u8]) -> Vec<u8> {
    let mut m = messages(replies);
    let rows = m[1]["result"]["data"]
        .as_array_mut()
        .expect("instance rows");
    for (k, row) in rows.iter_mut().enumerate() {
        let k = k as i64;
        if row[DISK_SIZES][1].as_array().is_some_and(|d| !d.is_empty()) {
            row[DISK_SIZES][1] = serde_json::json!([37 + 13 * k, 101 + 7 * k]);
            row[DISK_SPINDLES][1] = serde_json::json!([null, null]);
        }
    }
    m[2]["result"]["tags"] = serde_json::json!(["ganeti:watcher:autorepair:reinstall"]);
    joined(&m)
}

/// Each instance's disk template and disk data (MiB).
fn instances(replies: &[u8]) -> Vec<(String, String, i64)> {
    let m = messages(replies);
    m[1]["result"]["data"]
        .as_array()
        .expect("instance rows")
        .iter()
        .map(|row| {
            let sizes = row[DISK_SIZES][1].as_array().cloned().unwrap_or_default();
            (
                row[NAME][1].as_str().expect("a name").to_owned(),
                row[TEMPLATE][1].as_str().unwrap_or("").to_owned(),
                sizes.iter().filter_map(Value::as_i64).sum(),
            )
        })
        .collect()
}

/// What the plan copies and does, recomputed.
#[derive(Debug, Default, PartialEq)]
struct Cost {
    jobs: i64,
    disk: i64,
    replacements: i64,
    failovers: i64,
    reinstalls: i64,
    /// The longest job's disk data.
    longest: i64,
}

/// The cost of the repair jobs `jobs` (each its opcodes).
fn recomputed(insts: &[(String, String, i64)], jobs: &[Vec<Value>]) -> Result<Cost, String> {
    let mut c = Cost::default();
    for job in jobs {
        let mut disk = 0;
        for op in job {
            let id = op["OP_ID"].as_str().unwrap_or("");
            if id == "OP_TEST_DELAY" {
                continue;
            }
            let name = op["instance_name"].as_str().unwrap_or("");
            let (_, template, data) = insts
                .iter()
                .find(|i| i.0 == name)
                .ok_or_else(|| format!("{id}: no instance {name}"))?;
            match id {
                "OP_INSTANCE_REPLACE_DISKS" => {
                    disk += data;
                    c.replacements += 1;
                }
                "OP_INSTANCE_RECREATE_DISKS" if template == "drbd" => {
                    disk += data;
                    c.replacements += 1;
                }
                "OP_INSTANCE_RECREATE_DISKS" => {}
                "OP_INSTANCE_FAILOVER" => c.failovers += 1,
                "OP_INSTANCE_REINSTALL" => c.reinstalls += 1,
                other => return Err(format!("{other}: not a repair opcode")),
            }
        }
        c.jobs += 1;
        c.disk += disk;
        c.longest = c.longest.max(disk);
    }
    Ok(c)
}

/// The repair jobs `--dry-run` printed (`jobs: [[...]]` lines).
fn printed_jobs(stdout: &str) -> Vec<Vec<Value>> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("jobs: "))
        .flat_map(|j| serde_json::from_str::<Vec<Vec<Value>>>(j).expect("the jobs' JSON"))
        .collect()
}

/// The repair jobs submitted to the fake master (those that are not tag
/// changes).
fn submitted_jobs(sets: &[Vec<Vec<Value>>]) -> Vec<Vec<Value>> {
    sets.iter()
        .flatten()
        .filter(|job| {
            job.iter()
                .all(|op| !op["OP_ID"].as_str().unwrap_or("").starts_with("OP_TAGS_"))
        })
        .cloned()
        .collect()
}

/// A size as the text prints it (`512 MiB`, `3.5 GiB`, `1.18 TiB`), in
/// MiB, and half its last printed digit (MiB are exact).
fn size(text: &str) -> Option<(f64, f64)> {
    let (n, unit) = text.trim().split_once(' ')?;
    let v: f64 = n.parse().ok()?;
    let digit = n
        .split_once('.')
        .map_or(1.0, |(_, d)| 10f64.powi(-(d.len() as i32)));
    let scale = match unit {
        "MiB" => return Some((v, 0.0)),
        "GiB" => 1024.0,
        "TiB" => 1024.0 * 1024.0,
        _ => return None,
    };
    Some((v * scale, digit * scale / 2.0))
}

/// A printed size against `want` MiB.
fn same_size(f: &mut Findings, at: &str, figure: &str, printed: &str, want: i64) {
    match size(printed) {
        Some((v, tolerance)) => f.near(at, figure, v, want as f64, tolerance),
        None => f.fault(at, format!("{figure}: not a size: {printed:?}")),
    }
}

/// A time as the text prints it (`40 s`, `12 min 5 s`, `3 h 20 min`), in
/// seconds.
fn seconds(text: &str) -> Option<i64> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut total = 0;
    for pair in words.chunks(2) {
        let n: i64 = pair.first()?.parse().ok()?;
        total += n * match *pair.get(1)? {
            "s" => 1,
            "min" => 60,
            "h" => 3600,
            _ => return None,
        };
    }
    Some(total)
}

/// What follows `label` on the line that starts with it (after the
/// indentation).
fn after<'a>(stdout: &'a str, label: &str) -> Option<&'a str> {
    stdout
        .lines()
        .find_map(|l| l.trim_start().strip_prefix(label))
        .map(str::trim_start)
}

/// The number that starts `text`.
fn lead(text: &str) -> Option<i64> {
    text.split_whitespace().next()?.parse().ok()
}

/// The printed block against the recomputed cost.
fn check(f: &mut Findings, at: &str, stdout: &str, want: &Cost, resync: i64) {
    let head = after(stdout, "Cost of the plan: ").unwrap_or("");
    f.same(at, "jobs", lead(head), Some(want.jobs));
    let sets = head.split(" in ").nth(1).and_then(lead);
    f.same(at, "job sets", sets, Some(i64::from(want.jobs > 0)));
    let disk = after(stdout, "disk copied:").unwrap_or("");
    let (copied, count) = disk.split_once(" in ").unwrap_or(("", ""));
    same_size(f, at, "disk copied", copied, want.disk);
    f.same(
        at,
        "disk replacements",
        lead(count),
        Some(want.replacements),
    );
    let memory = after(stdout, "memory migrated:").unwrap_or("");
    same_size(
        f,
        at,
        "memory migrated",
        memory.split(" in ").next().unwrap_or(""),
        0,
    );
    let failovers = memory.split("; ").nth(1);
    f.same(
        at,
        "failovers",
        failovers.and_then(lead),
        Some(want.failovers),
    );
    // harep fails an instance over off its offline primary: the words
    // say so, whatever its state.
    f.same(
        at,
        "failovers' words name the offline primary",
        failovers.is_some_and(|w| {
            w.contains("off an offline primary") || w.contains("off offline primaries")
        }),
        true,
    );
    let time = after(stdout, "estimated time:").unwrap_or("");
    let time = time.split(" (").next().and_then(seconds);
    let want_time = (want.longest as f64 / resync as f64).round() as i64;
    f.same(at, "estimated time, s", time, Some(want_time));
    let reinstalls = after(stdout, "reinstalls:").and_then(lead);
    f.same(at, "reinstalls", reinstalls, Some(want.reinstalls));
}

#[test]
fn repair_costs_are_the_recomputed_ones() {
    let mut f = Findings::default();
    let recorded = live_replies("repair.luxi");
    for (name, replies) in [
        ("recorded", recorded.clone()),
        ("variant", variant(&recorded)),
    ] {
        let insts = instances(&replies);
        for (args, resync) in [
            (&["--dry-run", "--print-cost"][..], 60),
            (&["--print-cost", "--resync-rate=7"][..], 7),
        ] {
            let at = format!("hailstone-repair {name} {args:?}");
            let test = format!("figures-repair-cost-{name}{}", args.len());
            let (out, sets) = run_repair(&test, replies.clone(), &[], args);
            let stdout = String::from_utf8_lossy(&out.stdout);
            if out.status.code() != Some(0) {
                f.fault(
                    &at,
                    format!(
                        "exit {:?}: {}",
                        out.status.code(),
                        String::from_utf8_lossy(&out.stderr)
                    ),
                );
                continue;
            }
            let jobs = if args.contains(&"--dry-run") {
                printed_jobs(&stdout)
            } else {
                submitted_jobs(&sets)
            };
            match recomputed(&insts, &jobs) {
                Ok(want) => {
                    f.count("runs");
                    if want.reinstalls > 0 {
                        f.count("reinstalls");
                    }
                    if want.disk > 0 {
                        f.count("with data");
                    }
                    check(&mut f, &at, &stdout, &want, resync);
                }
                Err(e) => f.fault(&at, e),
            }
        }
    }
    f.finish(
        "hailstone-repair cost",
        &[("runs", 4), ("reinstalls", 2), ("with data", 4)],
    );
}
