//! The planners' `-X` against a fake Ganeti master: a Luxi server that
//! answers the cluster queries from the lab's captured replies
//! (`tests/live/`) and keeps a job queue (`SubmitManyJobs`, `QueryJobs`).
//! Checked: the jobs submitted are the plan's, in its job sets, with the
//! opcodes and annotations hbal and hsqueeze submit (their captured
//! traffic in `src/write/opcodes.rs`); a failed job stops the plan; `-X`
//! without `-L` is refused before any work.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::run::scratch;
use crate::support::master::{fake_master, Queue};

const BALANCE: &str = env!("CARGO_BIN_EXE_hailstone-balance");
const SQUEEZE: &str = env!("CARGO_BIN_EXE_hailstone-squeeze");

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/live")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn run(bin: &str, args: &[&str]) -> Output {
    let out = Command::new(bin)
        .args(args)
        .env("LC_ALL", "C.UTF-8")
        .output()
        .expect("the planner runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked at"), "panic: {stderr}");
    out
}

/// Runs `bin -L<fake master> -X ARGS` on the cluster `replies`; its
/// output and the job sets the master received.
fn exec(
    bin: &str,
    dir: &Path,
    replies: Vec<u8>,
    failing: &[u64],
    args: &[&str],
) -> (Output, Vec<Vec<Vec<Value>>>) {
    let queue = Arc::new(Mutex::new(Queue {
        failing: failing.to_vec(),
        ..Queue::default()
    }));
    let sock = fake_master(dir, replies, Arc::clone(&queue));
    let l = format!("-L{sock}");
    let mut all = vec![l.as_str(), "-X"];
    all.extend_from_slice(args);
    let out = run(bin, &all);
    let sets = std::mem::take(&mut queue.lock().unwrap().sets);
    (out, sets)
}

/// The fields every opcode gets from the planner.
fn annotated(op: &Value, program: &str, comment: &str, priority: i64, reason: Option<&str>) {
    assert_eq!(op["priority"], priority, "{op}");
    assert_eq!(op["depends"], Value::Null, "{op}");
    assert_eq!(op["comment"], comment, "{op}");
    let trail = op["reason"].as_array().expect("reason");
    assert_eq!(trail.len(), 1, "{op}");
    assert_eq!(trail[0][0], program, "{op}");
    let version = env!("CARGO_PKG_VERSION");
    let default = format!("{program} {version} called");
    assert_eq!(trail[0][1], reason.unwrap_or(&default), "{op}");
    assert!(trail[0][2].as_i64().is_some_and(|t| t > 0), "{op}");
}

fn op_id(op: &Value) -> &str {
    op["OP_ID"].as_str().unwrap_or("")
}

/// The varied cluster's plan (hbal's two moves: web1 `r:node3 f`, db1
/// `f`) as two job sets, each job the move's opcodes.
#[test]
fn balance_submits_the_plans_job_sets() {
    let dir = scratch("exec-balance");
    let args = [
        "-G",
        "default",
        "--priority=high",
        "--reason=maintenance window",
    ];
    let (out, sets) = exec(BALANCE, &dir, fixture("varied.luxi"), &[], &args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.ends_with("Got job IDs 1\nGot job IDs 2\n"),
        "{stdout}"
    );
    assert_eq!(sets.len(), 2);
    assert_eq!(sets[0].len(), 1);
    assert_eq!(sets[1].len(), 1);
    let web1 = &sets[0][0];
    assert_eq!(
        web1.iter().map(op_id).collect::<Vec<_>>(),
        ["OP_INSTANCE_REPLACE_DISKS", "OP_INSTANCE_MIGRATE"]
    );
    assert_eq!(web1[0]["instance_name"], "web1.example.com");
    assert_eq!(web1[0]["mode"], "replace_new_secondary");
    assert_eq!(web1[0]["remote_node"], "node3.example.com");
    assert_eq!(web1[1]["instance_name"], "web1.example.com");
    assert_eq!(web1[1].get("target_node"), None);
    let db1 = &sets[1][0];
    assert_eq!(
        db1.iter().map(op_id).collect::<Vec<_>>(),
        ["OP_INSTANCE_MIGRATE"]
    );
    assert_eq!(db1[0]["instance_name"], "db1.example.com");
    let comment = format!(
        "rebalancing via hailstone-balance {}",
        env!("CARGO_PKG_VERSION")
    );
    for op in sets.iter().flatten().flatten() {
        annotated(
            op,
            "hailstone-balance",
            &comment,
            -10,
            Some("maintenance window"),
        );
    }
}

/// A job that ends in error stops the plan: the later set is never
/// submitted, the exit status is 1 and the failed job is named.
#[test]
fn a_failed_job_stops_the_plan() {
    let dir = scratch("exec-balance-fail");
    let (out, sets) = exec(
        BALANCE,
        &dir,
        fixture("varied.luxi"),
        &[1],
        &["-G", "default"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(sets.len(), 1, "the second set was submitted");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("Error: hailstone-balance: Not all jobs completed successfully: job 1 error"),
        "{stderr}"
    );
    // --first-job-group: only the first set, even when all succeed.
    let (out, sets) = exec(
        BALANCE,
        &dir,
        fixture("varied.luxi"),
        &[],
        &["-G", "default", "--first-job-group"],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(sets.len(), 1);
}

/// The lab cluster: inst2 moves off node2, node2 is tagged standby, then
/// set offline and powered off in one job, as hsqueeze submits them.
#[test]
fn squeeze_moves_tags_and_powers_off() {
    let dir = scratch("exec-squeeze");
    let (out, sets) = exec(SQUEEZE, &dir, fixture("lab.luxi"), &[], &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shape: Vec<Vec<Vec<&str>>> = sets
        .iter()
        .map(|s| s.iter().map(|j| j.iter().map(op_id).collect()).collect())
        .collect();
    assert_eq!(
        shape,
        [
            vec![vec!["OP_INSTANCE_MIGRATE"]],
            vec![vec!["OP_TAGS_SET"]],
            vec![vec!["OP_NODE_SET_PARAMS", "OP_OOB_COMMAND"]],
        ]
    );
    assert_eq!(sets[0][0][0]["instance_name"], "inst2.example.com");
    assert_eq!(sets[0][0][0]["target_node"], "node3.example.com");
    assert_eq!(sets[1][0][0]["name"], "node2.example.com");
    assert_eq!(sets[1][0][0]["tags"][0], "htools:standby:auto");
    let power = &sets[2][0];
    assert_eq!(power[0]["node_name"], "node2.example.com");
    assert_eq!(power[0]["offline"], true);
    assert_eq!(power[1]["command"], "power-off");
    assert_eq!(power[1]["node_names"][0], "node2.example.com");
    let comment = format!(
        "condensing by 1 nodes (hailstone-squeeze {})",
        env!("CARGO_PKG_VERSION")
    );
    for op in sets.iter().flatten().flatten() {
        annotated(op, "hailstone-squeeze", &comment, 0, None);
    }
}

/// The varied cluster runs short and has no standby node: only the
/// balancing moves are submitted (no empty power-on job).
#[test]
fn squeeze_without_standby_nodes_only_moves() {
    let dir = scratch("exec-squeeze-on");
    let (out, sets) = exec(SQUEEZE, &dir, fixture("varied.luxi"), &[], &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!sets.is_empty());
    for op in sets.iter().flatten().flatten() {
        assert!(
            op_id(op).starts_with("OP_INSTANCE_"),
            "only moves expected: {op}"
        );
    }
}

/// As hbal and hsqueeze: without `-L`, the plan is printed and the run
/// then stops with their message (exit status 1); with nothing to do,
/// `-X` is ignored.
#[test]
fn exec_needs_luxi() {
    let data = |name: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/live")
            .join(name)
            .to_string_lossy()
            .into_owned()
    };
    let varied = data("varied.luxi.data");
    let lab = data("lab.luxi.data");
    for (bin, args) in [
        (BALANCE, vec!["-t", &varied, "-G", "default", "-X"]),
        (SQUEEZE, vec!["-t", &lab, "-X"]),
    ] {
        let out = run(bin, &args);
        assert_eq!(out.status.code(), Some(1), "{bin}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("Cluster score improved") || stdout.contains("'Nodes to offline'"),
            "the plan first: {stdout}"
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.ends_with(": Execution of commands possible only on LUXI\n"),
            "{stderr}"
        );
    }
    // Nothing to do: -X is ignored.
    let out = run(BALANCE, &["-t", &lab, "-X"]);
    assert_eq!(out.status.code(), Some(0));
}

/// The lab cluster with node3 offline and tagged standby, short of room
/// (`--minimal-resources=60`): one job powers node3 on and only then sets
/// it online (Ganeti refuses the other order, which hsqueeze 3.0.2
/// submits: "Node ... needs to be turned on before its offline status can
/// be reset").
#[test]
fn squeeze_powers_on_before_setting_online() {
    let lab = String::from_utf8(fixture("lab.luxi")).expect("UTF-8");
    let row = r#"[[0,"node3.example.com"],[0,24105],[0,347],[0,22952],[0,258019],[0,72309],[0,2],[0,2],[0,false],[0,false],[0,true],[0,1],[0,"7620b85b-af3f-4450-9112-96bbd88fcc3f"],[0,[]]"#;
    let standby = r#"[[0,"node3.example.com"],[0,24105],[0,347],[0,22952],[0,258019],[0,72309],[0,2],[0,2],[0,true],[0,false],[0,true],[0,1],[0,"7620b85b-af3f-4450-9112-96bbd88fcc3f"],[0,["htools:standby:auto"]]"#;
    assert!(lab.contains(row), "the capture changed");
    let dir = scratch("exec-squeeze-power-on");
    let replies = lab.replace(row, standby).into_bytes();
    let (out, sets) = exec(SQUEEZE, &dir, replies, &[], &["--minimal-resources=60"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("'Nodes to online'\nnode3.example.com\n")
    );
    let power = &sets[0][0];
    assert_eq!(
        power.iter().map(op_id).collect::<Vec<_>>(),
        ["OP_OOB_COMMAND", "OP_NODE_SET_PARAMS"]
    );
    assert_eq!(power[0]["command"], "power-on");
    assert_eq!(power[0]["node_names"][0], "node3.example.com");
    assert_eq!(power[1]["node_name"], "node3.example.com");
    assert_eq!(power[1]["offline"], false);
}

/// Two programs with `-X` on one cluster: while one holds the cluster's
/// lock, the second refuses before it reads the cluster or submits a
/// job, naming the first; after it, the second runs.
#[test]
fn a_second_planner_on_the_same_cluster_is_refused() {
    let dir = scratch("exec-two-planners");
    let queue = Arc::new(Mutex::new(Queue::default()));
    let sock = fake_master(&dir, fixture("varied.luxi"), Arc::clone(&queue));
    let held = hailstone::shell::lock::lock_cluster("hailstone-roll", &sock).unwrap();
    let l = format!("-L{sock}");
    for (bin, args) in [
        (BALANCE, vec![l.as_str(), "-X", "-G", "default"]),
        (SQUEEZE, vec![l.as_str(), "-X"]),
    ] {
        let out = run(bin, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(out.stdout.is_empty());
        assert!(
            stderr.contains("taken by hailstone-roll (process ")
                && stderr.contains("is carrying out a plan"),
            "{stderr}"
        );
    }
    assert!(queue.lock().unwrap().sets.is_empty(), "a job was submitted");
    // Without -X, the lock is not asked for. (A fake master serves the
    // cluster once: a new one, on the same socket, for each run.)
    fake_master(&dir, fixture("varied.luxi"), Arc::clone(&queue));
    let out = run(BALANCE, &[l.as_str(), "-G", "default"]);
    assert_eq!(out.status.code(), Some(0));
    drop(held);
    fake_master(&dir, fixture("varied.luxi"), Arc::clone(&queue));
    let out = run(BALANCE, &[l.as_str(), "-X", "-G", "default"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!queue.lock().unwrap().sets.is_empty());
    let _ = std::fs::remove_file(hailstone::shell::lock::lock_path(&sock));
}

/// The master daemon restarting while jobs run: the connection closes at
/// a status query; the planner connects again, goes on waiting, and the
/// plan finishes. Nothing is submitted twice.
#[test]
fn a_lost_connection_while_waiting_is_taken_up_again() {
    let dir = scratch("exec-hang-up");
    let queue = Arc::new(Mutex::new(Queue {
        hang_ups: 1,
        ..Queue::default()
    }));
    let sock = fake_master(&dir, fixture("varied.luxi"), Arc::clone(&queue));
    let l = format!("-L{sock}");
    let plain = {
        let dir = scratch("exec-hang-up-plain");
        exec(
            BALANCE,
            &dir,
            fixture("varied.luxi"),
            &[],
            &["-G", "default"],
        )
        .1
    };
    let out = run(BALANCE, &[l.as_str(), "-X", "-G", "default"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("Lost the connection to the master while waiting for jobs 1"),
        "{stdout}"
    );
    let sets = std::mem::take(&mut queue.lock().unwrap().sets);
    // The same jobs, but for the time in each opcode's reason trail.
    let timeless = |sets: Vec<Vec<Vec<Value>>>| -> Vec<Vec<Vec<Value>>> {
        sets.into_iter()
            .map(|set| {
                set.into_iter()
                    .map(|job| {
                        job.into_iter()
                            .map(|mut op| {
                                op["reason"] = Value::Null;
                                op
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect()
    };
    assert!(!sets.is_empty());
    assert_eq!(
        timeless(sets),
        timeless(plain),
        "the jobs submitted differ from an undisturbed run"
    );
    let _ = std::fs::remove_file(hailstone::shell::lock::lock_path(&sock));
}

/// Ctrl-C while a job set runs: the first lets it finish (nothing more
/// is submitted), the second stops waiting at once and names the jobs
/// still running in Ganeti.
#[test]
fn a_second_interrupt_stops_waiting_and_names_the_running_jobs() {
    use std::io::{BufRead, BufReader};
    let dir = scratch("exec-interrupt");
    let queue = Arc::new(Mutex::new(Queue {
        endless: true,
        ..Queue::default()
    }));
    let sock = fake_master(&dir, fixture("varied.luxi"), Arc::clone(&queue));
    let l = format!("-L{sock}");
    let mut child = Command::new(BALANCE)
        .args([l.as_str(), "-X", "-G", "default"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id().to_string();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    let mut next = |want: &str| loop {
        let line = lines.next().expect("more output").unwrap();
        seen.push(line.clone());
        if line.starts_with(want) {
            return;
        }
    };
    next("Got job IDs");
    let interrupt = || {
        let ok = Command::new("kill").args(["-INT", &pid]).status().unwrap();
        assert!(ok.success());
    };
    interrupt();
    next("Interrupted: waiting for jobs 1");
    // Still waiting: the jobs never end.
    std::thread::sleep(std::time::Duration::from_millis(700));
    assert!(
        child.try_wait().unwrap().is_none(),
        "it stopped at the first interrupt"
    );
    interrupt();
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("stopped waiting at a second interrupt: jobs 1")
            && stderr.contains("no further job set was submitted"),
        "{stderr}"
    );
    assert_eq!(queue.lock().unwrap().sets.len(), 1, "{seen:?}");
    let _ = std::fs::remove_file(hailstone::shell::lock::lock_path(&sock));
}
