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
    use hailstone::program::datafile;
    use hailstone::program::hail::options::LoadOptions;
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
