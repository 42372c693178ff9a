//! `hailstone-check` end to end on small hand-made clusters whose figures
//! are worked out by hand here: hcheck's counts (with its count of offline
//! nodes as "instances having a secondary node offline"), the exit status,
//! the quiet and machine-readable forms, `--true-counts`, and the refusal
//! of an instance whose nodes are in two groups (nothing on stdout).

use std::process::{Command, Output};

fn check(data: &str, args: &[&str]) -> Output {
    // One folder per call: the tests run side by side.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = crate::run::scratch(&format!("check-{n}"));
    let path = dir.join("cluster.data");
    std::fs::write(&path, data).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hailstone-check"))
        .arg("-t")
        .arg(&path)
        .args(args)
        .output()
        .expect("run hailstone-check");
    let _ = std::fs::remove_dir_all(&dir);
    out
}

/// The cluster and group policy lines of the hand-made data files (group
/// g1), also used by `groups`.
pub(crate) const POLICY: &str = "|128,1,1024,1,1,1|128,1,1024,1,1,1;32768,8,1048576,16,8,12|diskless,file,sharedfile,plain,blockdev,drbd,rbd,ext|4.0|32.0\n\
                      g1|128,1,1024,1,1,1|128,1,1024,1,1,1;32768,8,1048576,16,8,12|diskless,file,sharedfile,plain,blockdev,drbd,rbd,ext|4.0|32.0\n";

/// Three nodes; n3 is offline, primary of one drbd instance and secondary
/// of two: one instance on an offline primary, one offline node, two
/// instances whose secondary is offline.
fn offline_cluster() -> String {
    format!(
        "g1|uuid-g1|preferred||\n\n\
         n1|16384|0|12000|100000|90000|8|N|uuid-g1|1\n\
         n2|16384|0|12000|100000|90000|8|N|uuid-g1|1\n\
         n3|16384|0|12000|100000|90000|8|Y|uuid-g1|1\n\n\
         a|1024|1024|1|running|Y|n1|n3|drbd||1\n\
         b|1024|1024|1|running|Y|n2|n3|drbd||1\n\
         c|1024|1024|1|running|Y|n3|n1|drbd||1\n\n\
         {POLICY}"
    )
}

fn key<'a>(stdout: &'a str, name: &str) -> Option<&'a str> {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(&format!("HCHECK_{name}=")))
}

#[test]
fn offline_counts_as_hcheck_counts_them() {
    let out = check(
        &offline_cluster(),
        &["--machine-readable", "--no-capacity-checks"],
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(key(&stdout, "GROUP_UUID_0"), Some("'uuid-g1'"));
    assert_eq!(key(&stdout, "INIT_GROUP_0_OFFLINE_PRI"), Some("1"));
    // hcheck's fault: the offline nodes, not the instances.
    assert_eq!(key(&stdout, "INIT_GROUP_0_OFFLINE_SEC"), Some("1"));
    assert_eq!(key(&stdout, "INIT_CLUSTER_NEED_REBALANCE"), Some("1"));
    assert!(key(&stdout, "INIT_GROUP_0_GN1_FAIL").is_none());
    assert!(stdout.ends_with("HCHECK_OK=1\n"), "{stdout}");
    // The cluster needs rebalancing and the simulation was asked for.
    assert_eq!(out.status.code(), Some(1));

    let out = check(
        &offline_cluster(),
        &[
            "--machine-readable",
            "--no-capacity-checks",
            "--true-counts",
        ],
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(key(&stdout, "INIT_GROUP_0_OFFLINE_SEC"), Some("2"));
    assert_eq!(key(&stdout, "INIT_CLUSTER_OFFLINE_SEC"), Some("2"));
}

#[test]
fn no_simulation_exits_zero_and_quiet_prints_nothing() {
    let out = check(&offline_cluster(), &["--no-simulation"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.starts_with("Running in no-simulation mode.\n\nStatistics for group g1 initially\n")
    );
    assert!(stdout.contains("    Instances having the primary node offline: 1\n"));
    assert!(stdout.contains("    Cluster is not healthy: True\n"));
    assert!(!stdout.contains("after rebalancing"));

    let out = check(&offline_cluster(), &["-q"]);
    assert!(out.stdout.is_empty());
    assert_eq!(out.status.code(), Some(1));
}

/// A healthy two-node cluster: exit 0, and the final figures printed only
/// when machine-readable.
#[test]
fn a_healthy_cluster() {
    let data = format!(
        "g1|uuid-g1|preferred||\n\n\
         n1|16384|0|14000|100000|90000|8|N|uuid-g1|1\n\
         n2|16384|0|14000|100000|90000|8|N|uuid-g1|1\n\n\
         a|1024|1024|1|running|Y|n1|n2|drbd||1\n\
         b|1024|1024|1|running|Y|n2|n1|drbd||1\n\n\
         {POLICY}"
    );
    let out = check(&data, &[]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("No need to rebalance cluster, no problems found.\n"));
    assert!(stdout.contains("    Nodes not directly evacuateable: 0\n"));
    assert!(!stdout.contains("after rebalancing"));
    let again = check(&data, &[]);
    assert_eq!(stdout.as_bytes(), &again.stdout[..]);
    let out = check(&data, &["--machine-readable"]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(key(&stdout, "FINAL_CLUSTER_NEED_REBALANCE"), Some("0"));
    assert_eq!(key(&stdout, "FINAL_GROUP_0_N1_FAIL"), Some("0"));
}

/// n1 holds a 12 GiB drbd primary whose secondary n2 has 4 GiB free: n1
/// cannot be evacuated, and `--true-counts` names the instance.
#[test]
fn true_counts_name_what_blocks_an_evacuation() {
    let data = format!(
        "g1|uuid-g1|preferred||\n\n\
         n1|16384|0|4000|100000|50000|8|N|uuid-g1|1\n\
         n2|16384|0|4000|100000|50000|8|N|uuid-g1|1\n\n\
         big|12288|10240|2|running|Y|n1|n2|drbd||1\n\n\
         {POLICY}"
    );
    let out = check(&data, &["--true-counts", "--no-simulation"]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("    Nodes not directly evacuateable: 1\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "    Node n1 cannot be evacuated: instance big could not fail over to its secondary\n"
        ),
        "{stdout}"
    );
    let out = check(
        &data,
        &["--true-counts", "--no-simulation", "--machine-readable"],
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(key(&stdout, "INIT_GROUP_0_GN1_NODES"), Some("n1"));
}

/// An instance whose secondary is in another group: hcheck dies half-way
/// through its output; hailstone-check refuses with nothing on stdout.
#[test]
fn a_split_instance_is_refused_cleanly() {
    let data = format!(
        "g1|uuid-g1|preferred||\ng2|uuid-g2|preferred||\n\n\
         n1|16384|0|12000|100000|90000|8|N|uuid-g1|1\n\
         n2|16384|0|12000|100000|90000|8|N|uuid-g2|1\n\n\
         split|1024|1024|1|running|Y|n1|n2|drbd||1\n\n\
         {POLICY}g2|128,1,1024,1,1,1|128,1,1024,1,1,1;32768,8,1048576,16,8,12|drbd|4.0|32.0\n"
    );
    let out = check(&data, &["--machine-readable"]);
    assert!(out.stdout.is_empty());
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("group g1"), "{stderr}");
    assert!(stderr.contains("split"), "{stderr}");
}
