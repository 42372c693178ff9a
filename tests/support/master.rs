//! A fake Ganeti master for the planners' `-X`: a Luxi server that
//! answers the cluster queries from captured replies (`tests/live/`) on
//! the first connection, then keeps a job queue (`SubmitManyJobs`,
//! `QueryJobs`: each job runs at its first poll, then succeeds or fails as
//! told, or ends at once) and answers `Query` of the nodes' boot ids.

use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::Value;

/// What the fake master saw: every job submitted (its opcodes), by set.
#[derive(Default)]
pub struct Queue {
    pub sets: Vec<Vec<Vec<Value>>>,
    /// Job ids (from 1) that end in error.
    pub failing: Vec<u64>,
    /// Jobs end at their first poll (else they run at the first and end
    /// at the second).
    pub instant: bool,
    /// A file to which each job set submitted is appended as a line
    /// `submit JOBS` (JSON), in order with whatever else writes there (a
    /// reboot command's `reboot NODE` lines); a node's boot id is
    /// `boot-N`, N the number of its `reboot` lines.
    pub events: Option<PathBuf>,
    /// The next this many `QueryJobs` calls are answered by closing the
    /// connection (a master daemon restarting).
    pub hang_ups: usize,
    /// Jobs never end: they stay running (an interrupted wait).
    pub endless: bool,
}

/// The node names of a captured node query reply (its rows' first field).
fn node_names(replies: &[u8]) -> Vec<String> {
    let first = replies.split(|&b| b == 3).next().unwrap_or(&[]);
    let v: Value = serde_json::from_slice(first).expect("a JSON reply");
    v["result"]["data"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .filter_map(|r| r[0][1].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn boot_id(events: Option<&Path>, node: &str) -> String {
    let text = events
        .and_then(|p| std::fs::read_to_string(p).ok())
        .unwrap_or_default();
    let n = text
        .lines()
        .filter(|l| *l == format!("reboot {node}"))
        .count();
    format!("boot-{n}")
}

/// Reads one 0x03-terminated message; `None` at the end of the stream.
fn message(s: &mut UnixStream, pending: &mut Vec<u8>) -> Option<Vec<u8>> {
    loop {
        if let Some(end) = pending.iter().position(|&b| b == 3) {
            let rest = pending.split_off(end + 1);
            let mut m = std::mem::replace(pending, rest);
            m.pop();
            return Some(m);
        }
        let mut buf = [0u8; 65536];
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return None,
            Ok(n) => pending.extend_from_slice(&buf[..n]),
        }
    }
}

fn reply(s: &mut UnixStream, result: &str) {
    let _ = s.write_all(format!("{{\"success\":true,\"result\":{result}}}").as_bytes());
    let _ = s.write_all(&[3]);
}

/// Serves the cluster `replies` (0x03-separated, in query order) on the
/// first connection, then a job queue on every later one.
pub fn fake_master(dir: &Path, replies: Vec<u8>, queue: Arc<Mutex<Queue>>) -> String {
    let path = dir.join("master.sock");
    let _ = std::fs::remove_file(&path);
    let listener = UnixListener::bind(&path).expect("bind");
    let nodes = node_names(&replies);
    std::thread::spawn(move || {
        let mut first = true;
        let mut next_id = 1u64;
        let mut polled: Vec<u64> = Vec::new();
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { return };
            let mut pending = Vec::new();
            if first {
                first = false;
                for r in replies.split(|&b| b == 3).filter(|m| !m.is_empty()) {
                    if message(&mut s, &mut pending).is_none() {
                        break;
                    }
                    let _ = s.write_all(r);
                    let _ = s.write_all(&[3]);
                }
                continue;
            }
            while let Some(m) = message(&mut s, &mut pending) {
                let req: Value = serde_json::from_slice(&m).expect("a JSON request");
                match req["method"].as_str() {
                    Some("SubmitManyJobs") => {
                        let jobs: Vec<Vec<Value>> = req["args"][0]
                            .as_array()
                            .expect("jobs")
                            .iter()
                            .map(|j| j.as_array().expect("opcodes").clone())
                            .collect();
                        let ids: Vec<String> = jobs
                            .iter()
                            .map(|_| {
                                next_id += 1;
                                format!("[true,{}]", next_id - 1)
                            })
                            .collect();
                        let mut q = queue.lock().unwrap();
                        if let Some(events) = &q.events {
                            let mut f = std::fs::OpenOptions::new()
                                .append(true)
                                .create(true)
                                .open(events)
                                .expect("the events file");
                            writeln!(f, "submit {}", req["args"][0]).expect("written");
                        }
                        q.sets.push(jobs);
                        drop(q);
                        reply(&mut s, &format!("[{}]", ids.join(",")));
                    }
                    Some("QueryJobs") => {
                        // Running at the first poll of a job, then done.
                        let mut q = queue.lock().unwrap();
                        if q.hang_ups > 0 {
                            q.hang_ups -= 1;
                            break;
                        }
                        let rows: Vec<String> = req["args"][0]
                            .as_array()
                            .expect("ids")
                            .iter()
                            .map(|id| {
                                let id = id.as_u64().expect("id");
                                if q.endless || (!q.instant && !polled.contains(&id)) {
                                    polled.push(id);
                                    "[\"running\"]".to_owned()
                                } else if q.failing.contains(&id) {
                                    "[\"error\"]".to_owned()
                                } else {
                                    "[\"success\"]".to_owned()
                                }
                            })
                            .collect();
                        drop(q);
                        reply(&mut s, &format!("[{}]", rows.join(",")));
                    }
                    Some("Query") if req["args"][0] == "node" => {
                        assert_eq!(req["args"][1], serde_json::json!(["name", "bootid"]));
                        let events = queue.lock().unwrap().events.clone();
                        let rows: Vec<String> = nodes
                            .iter()
                            .map(|n| {
                                format!("[[0,\"{n}\"],[0,\"{}\"]]", boot_id(events.as_deref(), n))
                            })
                            .collect();
                        reply(
                            &mut s,
                            &format!("{{\"fields\":[],\"data\":[{}]}}", rows.join(",")),
                        );
                    }
                    other => panic!("unexpected Luxi method {other:?}"),
                }
            }
        }
    });
    path.to_string_lossy().into_owned()
}

/// A captured reply file of `tests/live/` (`repair.luxi`, ...).
pub fn live_replies(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/live")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs `hailstone-repair` with `args` against a fake master answering
/// `replies`, in a scratch folder named after `test`; the jobs `failing`
/// end in error, the others at their first poll. Its output (no panic in
/// it) and the job sets it submitted.
pub fn run_repair(
    test: &str,
    replies: Vec<u8>,
    failing: &[u64],
    args: &[&str],
) -> (std::process::Output, Vec<Vec<Vec<Value>>>) {
    let dir = crate::run::scratch(test);
    let queue = Arc::new(Mutex::new(Queue {
        failing: failing.to_vec(),
        instant: true,
        ..Queue::default()
    }));
    let sock = fake_master(&dir, replies, Arc::clone(&queue));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hailstone-repair"))
        .arg(format!("-L{sock}"))
        .args(args)
        .output()
        .expect("hailstone-repair runs");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    let sets = std::mem::take(&mut queue.lock().unwrap().sets);
    let _ = std::fs::remove_dir_all(&dir);
    (out, sets)
}
