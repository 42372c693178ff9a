//! `hailstone-repair` (harep) on the repair fixture of `tests/live/`
//! (offline and drained nodes under instances with auto-repair tags):
//! `--dry-run` prints what harep 3.0.2 printed on the same replies (task
//! UUIDs and times masked: they are new on every run); for real, against
//! the fake master, the pending repair's jobs are asked for, each tag
//! change is a job waited for, each repair job is submitted with its
//! annotation and its id recorded in the pending tag.

use std::process::Output;

use serde_json::Value;

use crate::support::master::{live_replies, run_repair};

/// UUIDs and the times of tags (seconds of this century) masked.
fn masked(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut l = String::new();
        for (k, part) in line.split(':').enumerate() {
            if k > 0 {
                l.push(':');
            }
            let uuid = part.len() == 36 && part.matches('-').count() == 4;
            let time = part.len() == 10
                && part.starts_with("17")
                && part.bytes().all(|b| b.is_ascii_digit());
            l.push_str(if uuid {
                "UUID"
            } else if time {
                "TIME"
            } else {
                part
            });
        }
        out.push_str(&l);
        out.push('\n');
    }
    out
}

fn run(test: &str, failing: &[u64], args: &[&str]) -> (Output, Vec<Vec<Vec<Value>>>) {
    run_repair(test, live_replies("repair.luxi"), failing, args)
}

#[test]
fn dry_run_prints_what_harep_printed() {
    let (out, sets) = run("repair-dry", &[16], &["--dry-run"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(sets.is_empty(), "--dry-run submitted {sets:?}");
    let want = String::from_utf8(live_replies("repair.luxi.harep")).unwrap();
    assert_eq!(masked(&String::from_utf8_lossy(&out.stdout)), want);
}

#[test]
fn repairs_tags_and_jobs_as_harep_submits_them() {
    let (out, sets) = run("repair-real", &[16], &["--reason=night shift"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Each set is one job; its opcodes' ids.
    let shape: Vec<Vec<&str>> = sets
        .iter()
        .map(|s| {
            assert_eq!(s.len(), 1);
            s[0].iter()
                .map(|op| op["OP_ID"].as_str().unwrap())
                .collect()
        })
        .collect();
    let tags_of = |k: usize| sets[k][0][0]["tags"].as_array().unwrap().clone();
    // r8: its jobs 15 and 16 ended, 16 in error: the failure result
    // tag is set, the pending tag removed.
    assert_eq!(shape[0], ["OP_TAGS_SET"]);
    assert_eq!(sets[0][0][0]["name"], "r8.example.com");
    let result = tags_of(0)[0].as_str().unwrap().to_owned();
    assert!(
        result.starts_with("ganeti:watcher:autorepair:result:migrate:uuid-b:")
            && result.ends_with(":failure:15+16"),
        "{result}"
    );
    assert_eq!(shape[1], ["OP_TAGS_DEL"]);
    assert_eq!(
        tags_of(1)[0],
        "ganeti:watcher:autorepair:pending:migrate:uuid-b:1700000100:15+16"
    );
    // r1: the failover after the delay, then its pending tag naming the
    // job the master gave.
    assert_eq!(shape[2], ["OP_TEST_DELAY", "OP_INSTANCE_FAILOVER"]);
    assert_eq!(sets[2][0][1]["instance_name"], "r1.example.com");
    assert_eq!(sets[2][0][0]["duration"], 10);
    assert_eq!(shape[3], ["OP_TAGS_SET"]);
    let pending = tags_of(3)[0].as_str().unwrap().to_owned();
    assert!(
        pending.starts_with("ganeti:watcher:autorepair:pending:failover:"),
        "{pending}"
    );
    assert!(
        pending.ends_with(":3"),
        "the repair job's id (3): {pending}"
    );
    // r2's new secondary by the iallocator (the fixture names no default:
    // harep's).
    assert_eq!(shape[4], ["OP_TEST_DELAY", "OP_INSTANCE_REPLACE_DISKS"]);
    assert_eq!(sets[4][0][1]["iallocator"], "hail");
    // r3, not allowed: the enoperm result tag only.
    assert_eq!(shape[6], ["OP_TAGS_SET"]);
    assert!(tags_of(6)[0].as_str().unwrap().contains(":enoperm:"));
    // Every opcode carries the annotation.
    let version = env!("CARGO_PKG_VERSION");
    for op in sets.iter().flatten().flatten() {
        assert_eq!(
            op["comment"],
            format!("automated repairs by hailstone-repair {version}")
        );
        assert_eq!(op["reason"][0][0], "hailstone-repair");
        assert_eq!(op["reason"][0][1], "night shift");
    }
    assert!(
        stdout.ends_with("Failure: 2\nHealthy: 4\nNeeds repair: 2\nPending repair: 4\n"),
        "{stdout}"
    );
}

/// A tag job that fails stops the run (exit status 1, the job named).
#[test]
fn a_failed_tag_job_stops() {
    let (out, sets) = run("repair-fail", &[1], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(sets.len(), 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Error: Not all jobs completed successfully: job 1 error"),
        "{stderr}"
    );
}
