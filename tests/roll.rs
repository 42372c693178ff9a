//! `hailstone-roll` end to end on a hand-made four-node cluster (master
//! n1; drbd instances a on n1/n2 and b on n3/n4; a plain instance p on
//! n2). The expected texts are what hroller 3.0.2 printed on the same
//! file: two reboot groups, the one with the master last and the master
//! last in it; p must move off n2 to n1 (the only node of the group not
//! rebooted with n2 that takes it); with `--full-evacuation` the drbd
//! instances migrate and get new secondaries (with hroller's slip, which
//! names the moves as it does).

use std::process::{Command, Output};

const CLUSTER: &str = "g1|uuid-g1|preferred||\n\n\
    n1|16384|0|12000|100000|90000|8|M|uuid-g1|1\n\
    n2|16384|0|12000|100000|90000|8|N|uuid-g1|1\n\
    n3|16384|0|12000|100000|90000|8|N|uuid-g1|1\n\
    n4|16384|0|12000|100000|90000|8|N|uuid-g1|1\n\n\
    a|1024|1024|1|running|Y|n1|n2|drbd||1\n\
    b|1024|1024|1|running|Y|n3|n4|drbd||1\n\
    p|512|1024|1|running|Y|n2||plain||1\n\n\
    |128,1,1024,1,1,1|128,1,1024,1,1,1;32768,8,1048576,16,8,12|diskless,file,sharedfile,plain,blockdev,drbd,rbd,ext|4.0|32.0\n\
    g1|128,1,1024,1,1,1|128,1,1024,1,1,1;32768,8,1048576,16,8,12|diskless,file,sharedfile,plain,blockdev,drbd,rbd,ext|4.0|32.0\n";

fn roll(data: &str, args: &[&str]) -> Output {
    // One folder per call: the tests run side by side.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = crate::run::scratch(&format!("roll-{n}"));
    let path = dir.join("cluster.data");
    std::fs::write(&path, data).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hailstone-roll"))
        .arg("-t")
        .arg(&path)
        .args(args)
        .output()
        .expect("run hailstone-roll");
    let _ = std::fs::remove_dir_all(&dir);
    out
}

fn stdout(data: &str, args: &[&str]) -> String {
    let out = roll(data, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn reboot_groups_master_last() {
    assert_eq!(stdout(CLUSTER, &[]), "'Node Reboot Groups'\nn2,n4\nn3,n1\n");
    assert_eq!(
        stdout(CLUSTER, &["--print-moves"]),
        "'Node Reboot Groups'\nn2,n4\n  p n1\nn3,n1\n"
    );
    assert_eq!(
        stdout(
            CLUSTER,
            &["--one-step-only", "--print-moves", "--no-headers"]
        ),
        "n2\nn4\n  p n1\n"
    );
    assert_eq!(
        stdout(CLUSTER, &["--skip-non-redundant"]),
        "'Node Reboot Groups'\nn4\nn3,n1\n"
    );
}

#[test]
fn full_evacuation_moves() {
    assert_eq!(
        stdout(CLUSTER, &["--full-evacuation", "--print-moves"]),
        "'Node Reboot Groups'\nn2,n4\n  a n1 n3\n  b n3 n1\n  p n1\nn3,n1\n  a n2 n4\n  b n4 n2\n"
    );
}

/// The graph (a shared-secondary clique gives n1 a loop) and the three
/// colourings' statistics.
#[test]
fn graph_and_statistics() {
    assert_eq!(
        stdout(CLUSTER, &["-v", "-v"]),
        "Node Graph: array (0,3) [(0,[0,1]),(1,[0]),(2,[2,3]),(3,[2])]\n\
         Dcolor: 2 (2,2) TIE Dsatur: 2 (2,2) TIE LF: 2 (2,2)\n\
         'Node Reboot Groups'\nn2,n4\nn3,n1\n"
    );
}

/// No master: an error, unless `-f`, which warns and goes on.
#[test]
fn no_master() {
    let data = CLUSTER.replace("|M|", "|N|");
    let out = roll(&data, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("Error: No master node found (maybe not supported by backend).\n"));
    let out = roll(&data, &["-f"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("Warning: No master node found (maybe not supported by backend).\n"));
}

/// `--shared-storage-movable` on generated clusters of ext and rbd
/// instances (Ganeti #1006: hroller's `--skip-non-redundant` skips every
/// node that holds one). Each reboot group's moves, replayed as `gnt-instance
/// migrate -n` commands by the independent plan checker on the data file,
/// are safe (shared-storage instances, online targets, memory), and leave
/// no instance on a node of the group, in the node's own group.
#[test]
fn shared_storage_movable_groups_are_safe() {
    use crate::support::plan;
    use hailstone::program::hail::options::LoadOptions;
    use hailstone::shell::datafile;
    use hailstone_devtools::generate::{generate, CaseSpec, DiskTemplate, RequestKind};

    let mut planned = 0;
    for seed in 1..=30u64 {
        let mut spec = CaseSpec::random(seed, RequestKind::Allocate, 4..=12);
        spec.instance_templates = vec![(DiskTemplate::Ext, 3), (DiskTemplate::Rbd, 1)];
        let Ok(data) =
            datafile::from_request(generate(&spec).request.as_bytes(), &LoadOptions::default())
        else {
            continue;
        };
        let cluster = plan::parse(&data);
        // The generator keeps plain instances on exclusive storage.
        if cluster
            .insts
            .values()
            .any(|i| i.template != "ext" && i.template != "rbd")
        {
            continue;
        }
        let args = [
            "-f",
            "--skip-non-redundant",
            "--shared-storage-movable",
            "--print-moves",
            "--no-headers",
        ];
        let out = roll(&data, &args);
        let text = String::from_utf8(out.stdout).unwrap();
        if out.status.code() != Some(0) {
            // Not enough room to move some node's instances: refused whole.
            assert!(text.is_empty(), "seed {seed}: {text}");
            continue;
        }
        let online: Vec<&String> = cluster
            .nodes
            .iter()
            .filter(|(_, n)| !n.offline)
            .map(|(k, _)| k)
            .collect();
        let mut seen_nodes = Vec::new();
        // Each group: its nodes and its moves (instance, target).
        type Group = (Vec<String>, Vec<(String, String)>);
        let mut groups: Vec<Group> = Vec::new();
        for line in text.lines() {
            if let Some(m) = line.strip_prefix("  ") {
                let w: Vec<&str> = m.split_whitespace().collect();
                groups
                    .last_mut()
                    .expect("a group")
                    .1
                    .push((w[0].to_owned(), w[1].to_owned()));
            } else {
                let nodes: Vec<String> = line
                    .split(',')
                    .filter(|n| !n.is_empty())
                    .map(str::to_owned)
                    .collect();
                seen_nodes.extend(nodes.clone());
                groups.push((nodes, Vec::new()));
            }
        }
        // Every online node is rebooted in some group (none skipped).
        seen_nodes.sort();
        let mut want: Vec<String> = online.iter().map(|s| (*s).clone()).collect();
        want.sort();
        assert_eq!(seen_nodes, want, "seed {seed}");
        for (nodes, moves) in &groups {
            let mut c = cluster.clone();
            let commands: String = moves
                .iter()
                .map(|(inst, to)| format!("gnt-instance migrate -f -n {to} {inst}\n"))
                .collect();
            let bad = plan::replay(&mut c, &commands);
            assert!(bad.is_empty(), "seed {seed}, group {nodes:?}: {bad:?}");
            for (name, inst) in &c.insts {
                assert!(
                    !nodes.contains(&inst.pri),
                    "seed {seed}: {name} stays on {} in {nodes:?}",
                    inst.pri
                );
                let before = &cluster.insts[name].pri;
                assert_eq!(
                    c.nodes[&inst.pri].group, cluster.nodes[before].group,
                    "seed {seed}: {name}"
                );
            }
            planned += 1;
        }
    }
    assert!(planned >= 10, "only {planned} reboot groups planned");
}

/// `-X` on the fake master serving `replies` (`tests/live/rolling.luxi`
/// unless changed): the output, and the events in order (`submit JOBS`
/// from the master, `reboot NODE` from the reboot command).
fn roll_exec(
    test: &str,
    replies: Vec<u8>,
    failing: &[u64],
    command: &str,
    args: &[&str],
) -> (Output, Vec<String>) {
    use crate::support::master::{fake_master, Queue};
    use std::sync::{Arc, Mutex};
    let dir = crate::run::scratch(test);
    let events = dir.join("events");
    std::fs::write(&events, "").unwrap();
    let queue = Arc::new(Mutex::new(Queue {
        failing: failing.to_vec(),
        events: Some(events.clone()),
        instant: true,
        ..Queue::default()
    }));
    let sock = fake_master(&dir, replies, Arc::clone(&queue));
    let command = command.replace("EVENTS", &events.to_string_lossy());
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hailstone-roll"));
    cmd.arg(format!("-L{sock}")).arg("-X");
    if !command.is_empty() {
        cmd.arg(format!("--reboot-command={command}"));
    }
    let out = cmd
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run hailstone-roll");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&events).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (out, text.lines().map(str::to_owned).collect())
}

fn rolling() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/live/rolling.luxi"
    ))
    .unwrap()
}

const REBOOT: &str = "echo \"reboot $1\" >> EVENTS";

/// Replays `events` on the cluster of `tests/live/rolling.luxi.data`
/// with the independent plan checker: each opcode as the command it
/// stands for (memory and disk on every target, online targets, the
/// right templates), shutdowns and startups changing where memory goes,
/// and around the reboots: no running instance on a node when it is
/// rebooted, no drbd instance migrated while a node of its was rebooted
/// and its disks were not yet resynchronised. The violations, the
/// rebooted nodes by group in order, and the final cluster.
fn replay_exec(
    events: &[String],
) -> (Vec<String>, Vec<Vec<String>>, crate::support::plan::Cluster) {
    use crate::support::plan;
    let data = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/live/rolling.luxi.data"
    ))
    .unwrap();
    let mut c = plan::parse(&data);
    let (mut bad, mut rebooted) = (Vec::new(), Vec::new());
    let mut degraded: Vec<String> = Vec::new();
    let mut last_was_reboot = false;
    for e in events {
        if let Some(node) = e.strip_prefix("reboot ") {
            for (name, i) in &c.insts {
                if i.running && i.pri == node {
                    bad.push(format!("{node} rebooted while {name} runs on it"));
                }
                if i.running && i.template == "drbd" && i.sec == node {
                    degraded.push(name.clone());
                }
            }
            // The nodes of a group reboot at once: consecutive reboots
            // are one group, compared sorted.
            if !last_was_reboot {
                rebooted.push(Vec::new());
            }
            last_was_reboot = true;
            let group: &mut Vec<String> = rebooted.last_mut().expect("a group");
            group.push(node.to_owned());
            group.sort();
            continue;
        }
        last_was_reboot = false;
        let jobs: serde_json::Value =
            serde_json::from_str(e.strip_prefix("submit ").expect("an event")).unwrap();
        for op in jobs
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|j| j.as_array().unwrap())
        {
            let inst = op["instance_name"]
                .as_str()
                .expect("an instance")
                .to_owned();
            let target = op["target_node"].as_str().map(|t| format!("-n {t} "));
            let command = match op["OP_ID"].as_str().unwrap() {
                "OP_INSTANCE_MIGRATE" => {
                    if degraded.contains(&inst) {
                        bad.push(format!("{inst} migrated before its disks resynchronised"));
                    }
                    format!("migrate -f {}{inst}", target.unwrap_or_default())
                }
                "OP_INSTANCE_MOVE" => format!("move -f {}{inst}", target.unwrap_or_default()),
                "OP_INSTANCE_REPLACE_DISKS" => {
                    degraded.retain(|d| *d != inst);
                    format!(
                        "replace-disks -n {} {inst}",
                        op["remote_node"].as_str().unwrap()
                    )
                }
                "OP_INSTANCE_ACTIVATE_DISKS" => {
                    assert_eq!(op["wait_for_sync"], true);
                    degraded.retain(|d| *d != inst);
                    continue;
                }
                "OP_INSTANCE_SHUTDOWN" | "OP_INSTANCE_STARTUP" => {
                    let up = op["OP_ID"] == "OP_INSTANCE_STARTUP";
                    let i = c.insts.get_mut(&inst).expect("known");
                    if i.running == up {
                        bad.push(format!("{inst}: {} twice", op["OP_ID"]));
                    }
                    i.running = up;
                    let (mem, pri) = (i.mem, i.pri.clone());
                    let n = c.nodes.get_mut(&pri).expect("known");
                    n.free_mem += if up { -mem } else { mem };
                    if n.free_mem < 0 {
                        bad.push(format!("{inst} started on {pri} without the memory"));
                    }
                    continue;
                }
                other => panic!("unexpected opcode {other}"),
            };
            bad.extend(plan::replay(&mut c, &format!("gnt-instance {command}\n")));
        }
    }
    (bad, rebooted, c)
}

/// Each option family on the rolling cluster: every step safe by the
/// independent checker, every online node but the master rebooted once
/// (in hroller's groups, in order), every instance back where it was and
/// running as before; the master is left for the operator, said so.
#[test]
fn exec_reboots_every_group_and_returns_the_instances() {
    use crate::support::plan;
    let data = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/live/rolling.luxi.data"
    ))
    .unwrap();
    let original = plan::parse(&data);
    for (k, args) in [
        vec![],
        vec!["--full-evacuation"],
        vec!["--ignore-non-redundant"],
        vec!["--offline-maintenance"],
        vec!["--one-step-only", "--priority=low"],
    ]
    .iter()
    .enumerate()
    {
        let (out, events) = roll_exec(&format!("roll-exec-{k}"), rolling(), &[], REBOOT, args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (bad, rebooted, after) = replay_exec(&events);
        assert!(bad.is_empty(), "{args:?}: {bad:?}\n{events:#?}");
        let want: &[&[&str]] = if args.contains(&"--one-step-only") {
            &[&["node3.example.com", "node5.example.com"]]
        } else {
            &[
                &["node3.example.com", "node5.example.com"],
                &["node2.example.com", "node4.example.com"],
            ]
        };
        assert_eq!(rebooted, want, "{args:?}");
        for (name, i) in &original.insts {
            let now = &after.insts[name];
            assert_eq!(
                (&now.pri, &now.sec, now.running),
                (&i.pri, &i.sec, i.running),
                "{args:?}: {name} not back"
            );
        }
        // The master's group is the last.
        assert_eq!(
            stdout.contains("The master node node1.example.com was not rebooted"),
            !args.contains(&"--one-step-only"),
            "{args:?}: {stdout}"
        );
        // The groups are hroller's, printed first.
        assert!(stdout.starts_with("'"), "{stdout}");
    }
}

/// The evacuation's first job fails: no node is rebooted, nothing more
/// is submitted, the exit status is 1 and the message says what was done
/// and lists the commands that bring the group's instances back.
#[test]
fn exec_stops_cleanly_on_a_failed_job() {
    let (out, events) = roll_exec("roll-exec-fail", rolling(), &[1], REBOOT, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(events.len(), 1, "{events:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    // d3's migration failed; s1 and f1 left and are listed to come back.
    assert!(
        stderr.contains("Error: hailstone-roll: Reboot group 1 of 3 (node3.example.com,node5.example.com): Not all jobs completed successfully: job 1 (d3.example.com) error\nstopped while evacuating, no node rebooted; to bring its instances back:\n  gnt-instance migrate -f -n node3.example.com s1.example.com\n  gnt-instance move -f -n node5.example.com f1.example.com\n"),
        "{stderr}"
    );
}

/// A reboot command that fails stops the run before anything returns.
#[test]
fn exec_stops_when_a_reboot_fails() {
    let fail_node5 = "echo \"reboot $1\" >> EVENTS; [ \"$1\" != node5.example.com ] || exit 3";
    let (out, events) = roll_exec("roll-exec-reboot-fail", rolling(), &[], fail_node5, &[]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "the reboot command failed: on node5.example.com it ended with exit status: 3"
        ),
        "{stderr}"
    );
    // The evacuation, both reboots, nothing after.
    assert_eq!(events.len(), 3, "{events:?}");
    assert!(events[0].starts_with("submit "));
}

/// Refused before any job: a drbd instance whose secondary lacks the
/// memory to take it (hroller does not check it), `-X` without `-L`, and
/// without a reboot command when nobody is at a terminal.
#[test]
fn exec_refuses_before_any_job() {
    let replies = String::from_utf8(rolling()).unwrap();
    let row = r#"[0, "node4.example.com"], [0, 32768], [0, 1024], [0, 20000]"#;
    assert!(replies.contains(row), "the fixture changed");
    let short = replies.replace(
        row,
        r#"[0, "node4.example.com"], [0, 32768], [0, 1024], [0, 1000]"#,
    );
    let (out, events) = roll_exec("roll-exec-short", short.into_bytes(), &[], REBOOT, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(events.is_empty(), "{events:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Error: hailstone-roll: reboot group 1 of 3 (node3.example.com,node5.example.com) cannot be carried out safely: d3.example.com cannot leave: node node4.example.com cannot take it (FailMem); nothing was run\n"),
        "{stderr}"
    );

    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/live/rolling.luxi.data");
    let out = Command::new(env!("CARGO_BIN_EXE_hailstone-roll"))
        .args(["-t", data, "-X", "--reboot-command=true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr)
        .ends_with("Error: hailstone-roll: Execution of commands possible only on LUXI\n"));

    let (out, events) = roll_exec("roll-exec-no-command", rolling(), &[], "", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(events.is_empty(), "{events:?}");
    assert!(String::from_utf8_lossy(&out.stderr).ends_with(
        "Error: hailstone-roll: -X without --reboot-command needs a terminal on standard input (someone to reboot the nodes); nothing was run\n"
    ));
}
