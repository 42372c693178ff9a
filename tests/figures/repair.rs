//! `hailstone-repair`: it prints no node figure and has no `--json`,
//! `--explain` or `--report`; its figures are the closing counts of the
//! instances by auto-repair state. They are recomputed here from the
//! replies the run read (`tests/live/repair.luxi`: each instance's tags)
//! and the plan it printed: an instance's state before the run by harep's
//! rules for its auto-repair tags (`Harep.setInitialState`: the tags
//! grouped by repair task, the tasks from the oldest; a failure stays, a
//! later task replaces a success; within a task a failure wins over a
//! success, a success over an `enoperm`, any result over a pending
//! repair), then what the run did to it: `Moving I from "A" to "B"` moves
//! it to B, `Executing ... repair on I` makes it a pending repair, `Not
//! performing a repair ... on I` leaves it needing repair.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::support::master::{live_replies, run_repair};

use super::explain::scan;
use super::Findings;

const PREFIX: &str = "ganeti:watcher:autorepair:";

/// One auto-repair tag: its task, time and result (`None`: pending).
struct Task {
    uuid: String,
    time: i64,
    result: Option<u8>,
}

/// A result's rank in harep's order (`enoperm` < `success` < `failure`).
fn rank(result: &str) -> Option<u8> {
    match result {
        "enoperm" => Some(0),
        "success" => Some(1),
        "failure" => Some(2),
        _ => None,
    }
}

fn parse_tag(tag: &str) -> Option<Task> {
    let rest = tag.strip_prefix(PREFIX)?;
    let f: Vec<&str> = rest.split(':').collect();
    match f.as_slice() {
        ["pending", _kind, uuid, time, _jobs] => Some(Task {
            uuid: (*uuid).to_owned(),
            time: time.parse().ok()?,
            result: None,
        }),
        ["result", _kind, uuid, time, result, _jobs] => Some(Task {
            uuid: (*uuid).to_owned(),
            time: time.parse().ok()?,
            result: Some(rank(result)?),
        }),
        _ => None,
    }
}

/// The state of an instance with `tags` before the run.
fn initial_state(tags: &[String]) -> &'static str {
    let tasks: Vec<Task> = tags.iter().filter_map(|t| parse_tag(t)).collect();
    let mut by_uuid: BTreeMap<&str, Vec<&Task>> = BTreeMap::new();
    for t in &tasks {
        by_uuid.entry(&t.uuid).or_default().push(t);
    }
    let mut groups: Vec<Vec<&Task>> = by_uuid.into_values().collect();
    groups.sort_by_key(|g| g.iter().map(|t| t.time).min());
    let mut state = "Healthy";
    for g in groups {
        let newest = g.iter().max_by_key(|t| (t.result, t.time)).expect("a task");
        let next = match newest.result {
            Some(2) => "Failure",
            Some(_) => "Healthy",
            None => "Pending repair",
        };
        if state == "Healthy" {
            state = next;
        }
    }
    state
}

/// The instances' tags of the Luxi replies (the second reply: the
/// instance query; name first, tags the eighth field).
fn instance_tags(replies: &[u8]) -> BTreeMap<String, Vec<String>> {
    let text = String::from_utf8_lossy(replies);
    let reply: Value =
        serde_json::from_str(text.split('\u{3}').nth(1).expect("an instance reply")).expect("JSON");
    reply["result"]["data"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| {
            let name = row[0][1].as_str().expect("a name").to_owned();
            let tags = row[7][1]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|t| t.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            (name, tags)
        })
        .collect()
}

#[test]
fn repair_counts_are_the_recomputed_ones() {
    let mut f = Findings::default();
    let replies = live_replies("repair.luxi");
    for args in [&["--dry-run"][..], &[][..]] {
        let at = format!("hailstone-repair -L {args:?}");
        let test = format!("figures-repair{}", args.len());
        let (out, _) = run_repair(&test, replies.clone(), &[16], args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        f.count("runs");
        let mut state: BTreeMap<String, &str> = instance_tags(&replies)
            .into_iter()
            .map(|(name, tags)| {
                let s = initial_state(&tags);
                (name, s)
            })
            .collect();
        let mut printed: BTreeMap<String, i64> = BTreeMap::new();
        let mut in_counts = false;
        for line in stdout.lines() {
            if let Some(v) = scan("Moving {} from \"{}\" to \"{}\"", line) {
                f.same(&at, &format!("{}'s state before the run", v[0]), state.get(v[0]).copied(), Some(v[1]));
                let to: &str = match v[2] {
                    "Healthy" => "Healthy",
                    "Failure" => "Failure",
                    other => {
                        f.fault(&at, format!("moved to an unknown state {other}"));
                        continue;
                    }
                };
                state.insert(v[0].to_owned(), to);
            } else if let Some(v) = scan("Executing {} repair on {}", line) {
                state.insert(v[1].to_owned(), "Pending repair");
            } else if let Some(v) = scan("Not performing a repair of type {} on {} because only repairs up to {} are allowed", line) {
                state.insert(v[1].to_owned(), "Needs repair");
            } else if line == "Instance status count" {
                in_counts = true;
            } else if in_counts {
                if let Some(v) = scan("{}: {}", line) {
                    printed.insert(v[0].to_owned(), v[1].parse().unwrap_or(i64::MIN));
                }
            }
        }
        let mut want: BTreeMap<String, i64> = BTreeMap::new();
        for s in state.values() {
            *want.entry((*s).to_owned()).or_default() += 1;
        }
        f.same(&at, "instance status count", printed, want);
    }
    f.finish("hailstone-repair", &[("runs", 2)]);
}
