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
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
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
        stdout(CLUSTER, &["--one-step-only", "--print-moves", "--no-headers"]),
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
