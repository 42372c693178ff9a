//! What `hailstone-groups` reports of the cluster before its plan: the
//! figures of each node failing N+1 (free memory for instances, memory
//! its largest failover needs) are those of the cluster as read, in the
//! check and under the repair's "was" heading alike, in the text and in
//! `--json`; each group's memory in `compress` and score in `balance` too.
//! Every figure is worked out from the data file by `support::n1`, on
//! small hand-made clusters and on generated ones. Split instances
//! (primary and secondary nodes in different groups) make their primary's
//! group weakly unhealthy, and a repair moves them into one group.

use std::ffi::OsString;

use hailstone::program::hail::options::LoadOptions;
use hailstone::shell::datafile;
use hailstone_devtools::generate::{generate, CaseSpec};
use serde_json::Value;

use crate::check::POLICY;
use crate::support::n1;

type Main = fn(&[OsString], &mut dyn std::io::Write, &mut dyn std::io::Write) -> u8;

/// Runs a program in this process: stdout, stderr.
fn run(main: Main, args: &[&str]) -> (String, String) {
    let args: Vec<OsString> = args.iter().map(OsString::from).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    main(&args, &mut out, &mut err);
    (
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// `hailstone-groups ARGS --json`: the document.
fn document(args: &[&str]) -> Value {
    let args: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
    let (out, err) = run(hailstone::program::groups::main, &args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}{err}"))
}

/// A group policy line like `POLICY`'s for group `name`.
fn policy(name: &str) -> String {
    format!("{name}|128,1,1024,1,1,1|128,1,1024,1,1,1;32768,8,1048576,16,8,12|diskless,file,sharedfile,plain,blockdev,drbd,rbd,ext|4.0|32.0\n")
}

/// Group g1: n1 keeps 512 MiB free but holds the secondary of b (2048
/// MiB, primary n2); n2 keeps 3000 MiB free and holds the secondaries of
/// a and c (3072 MiB, primary n1): both fail N+1. Group g2 is empty and
/// large. The records agree with the reported free memory (no memory
/// missing).
fn two_groups() -> String {
    format!(
        "g1|uuid-g1|preferred||\ng2|uuid-g2|preferred||\n\n\
         n1|3584|0|512|100000|90000|8|N|uuid-g1|1\n\
         n2|5048|0|3000|100000|90000|8|N|uuid-g1|1\n\
         m1|16384|0|16384|100000|100000|8|N|uuid-g2|1\n\
         m2|16384|0|16384|100000|100000|8|N|uuid-g2|1\n\n\
         a|2048|1024|1|running|Y|n1|n2|drbd||1\n\
         b|2048|1024|1|running|Y|n2|n1|drbd||1\n\
         c|1024|1024|1|running|Y|n1|n2|drbd||1\n\n\n{POLICY}{}",
        policy("g2")
    )
}

/// The `nodes_failing_n1` entries of a health object: node, free, needed.
fn failing(health: &Value) -> Vec<(String, i64, i64)> {
    health["nodes_failing_n1"]
        .as_array()
        .expect("nodes_failing_n1")
        .iter()
        .map(|f| {
            (
                f["node"].as_str().unwrap().to_owned(),
                f["free_memory"].as_i64().unwrap(),
                f["needed_memory"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// The data file's figures of a group's nodes failing N+1, as `failing`
/// gives them.
fn expected(data: &n1::Data, group: &str) -> Vec<(String, i64, i64)> {
    data.n1_failing()
        .remove(group)
        .unwrap_or_default()
        .into_iter()
        .map(|(n, f)| (n, f.free, f.needed))
        .collect()
}

/// The repair moves instances out of g1, and what it says g1 was is the
/// cluster as read: the figures the check gives, not those after the
/// moves (which once read "1025 MiB free, 0 MiB needed" for a node
/// failing N+1).
#[test]
fn a_repair_reports_the_figures_before_it() {
    let dir = crate::run::scratch("health-before");
    let path = dir.join("two.data");
    let text = two_groups();
    std::fs::write(&path, &text).unwrap();
    let file = path.to_str().unwrap();
    let data = n1::parse(&text);
    let want = vec![("n1".to_owned(), 512, 2048), ("n2".to_owned(), 3000, 3072)];
    assert_eq!(expected(&data, "g1"), want, "the hand-made figures");

    let check = document(&["check", "-t", file]);
    assert_eq!(failing(&check["report"]["groups"][0]), want);
    let repair = document(&["repair", "-t", file, "-C"]);
    let repairs = repair["report"]["repairs"].as_array().unwrap();
    assert_eq!(repairs.len(), 1);
    assert_eq!(repairs[0]["before"]["group"], "g1");
    assert_eq!(repairs[0]["before"]["status"], "weakly unhealthy");
    assert_eq!(failing(&repairs[0]["before"]), want);
    assert_eq!(repairs[0]["repaired"], true);
    assert!(!repair["moves"].as_array().unwrap().is_empty(), "{repair}");

    let lines = [
        "  node n1 fails N+1: 512 MiB free for instances, 2048 MiB needed to take over its largest peer's instances\n",
        "  node n2 fails N+1: 3000 MiB free for instances, 3072 MiB needed to take over its largest peer's instances\n",
    ];
    let (out, err) = run(
        hailstone::program::groups::main,
        &["repair", "-t", file, "--explain"],
    );
    assert!(out.contains("repaired: group g1 is healthy"), "{out}");
    let was = err
        .split("Group g1 was weakly unhealthy\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no heading: {err}"));
    assert!(was.starts_with(&lines.concat()), "{err}");
    let (_, err) = run(
        hailstone::program::groups::main,
        &["check", "-t", file, "--explain"],
    );
    assert!(
        err.contains(&format!("Group g1 is weakly unhealthy\n{}", lines.concat())),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Multi-group cluster `seed` (the shapes of `tests/groups.rs`); every
/// third one with the reported free memory of every other node lowered by
/// a seventh of its total, so that the report and the records disagree
/// and more nodes fail N+1.
fn cluster(seed: u64) -> Option<String> {
    let nodes = 4 + (seed as usize * 7) % 15;
    let groups = 2 + (seed as usize) % 3;
    let case = generate(&CaseSpec::multi_group(seed, nodes, groups));
    let text = datafile::from_request(case.request.as_bytes(), &LoadOptions::default()).ok()?;
    if !seed.is_multiple_of(3) {
        return Some(text);
    }
    let mut sections: Vec<String> = text.split("\n\n").map(str::to_owned).collect();
    let nodes: Vec<String> = sections[1]
        .lines()
        .enumerate()
        .map(|(k, line)| {
            let mut f: Vec<String> = line.split('|').map(str::to_owned).collect();
            if k % 2 == 0 && f.len() > 3 {
                let t: i64 = f[1].parse().unwrap_or(0);
                let free: i64 = f[3].parse().unwrap_or(0);
                f[3] = (free - t / 7).max(0).to_string();
            }
            f.join("|")
        })
        .collect();
    sections[1] = nodes.join("\n");
    Some(sections.join("\n\n"))
}

/// On generated clusters, every figure of the cluster as read matches the
/// data file: the nodes failing N+1 of `check` and of each repaired
/// group's `before`, each group's memory in `compress` (with and without
/// `--evacuate`, whose plan changes the state after the figures), and each
/// group's score in `balance` is hailstone-check's initial score.
#[test]
fn figures_before_a_plan_are_the_data_files() {
    let dir = crate::run::scratch("health-figures");
    let (mut files, mut failing_nodes, mut repaired, mut evacuated) = (0, 0, 0, 0);
    for seed in 1..=60u64 {
        let Some(text) = cluster(seed) else {
            continue;
        };
        files += 1;
        let path = dir.join(format!("c{seed}.data"));
        std::fs::write(&path, &text).unwrap();
        let file = path.to_str().unwrap();
        let data = n1::parse(&text);
        let check = document(&["check", "-t", file]);
        for g in check["report"]["groups"].as_array().unwrap() {
            let name = g["group"].as_str().unwrap();
            assert_eq!(failing(g), expected(&data, name), "seed {seed} {name}");
            failing_nodes += failing(g).len();
        }
        let repair = document(&["repair", "-t", file]);
        for r in repair["report"]["repairs"].as_array().unwrap() {
            let name = r["before"]["group"].as_str().unwrap();
            assert_eq!(
                failing(&r["before"]),
                expected(&data, name),
                "seed {seed} repair of {name}"
            );
            repaired += usize::from(
                r["repaired"] == true && !r["relocations"].as_array().unwrap().is_empty(),
            );
        }
        for args in [&["compress"][..], &["compress", "--evacuate"]] {
            let args: Vec<&str> = args.iter().copied().chain(["-t", file]).collect();
            let doc = document(&args);
            evacuated += usize::from(!doc["moves"].as_array().unwrap().is_empty());
            for g in doc["report"]["groups"].as_array().unwrap() {
                let name = g["group"].as_str().unwrap();
                let u = &g["usage"];
                let got = (
                    u["total"]["memory"].as_i64().unwrap(),
                    u["used"]["memory"].as_i64().unwrap(),
                    u["free"]["memory"].as_i64().unwrap(),
                );
                assert_eq!(got, data.group_memory(name), "seed {seed} {args:?} {name}");
            }
        }
        let balance = document(&["balance", "-t", file]);
        let (out, err) = run(
            hailstone::program::check::main,
            &["-t", file, "--json", "--no-simulation"],
        );
        let hcheck: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
        for g in balance["report"]["groups"].as_array().unwrap() {
            let name = g["group"].as_str().unwrap();
            let initial = hcheck["groups"]
                .as_array()
                .unwrap()
                .iter()
                .find(|h| h["name"] == name)
                .map(|h| &h["initial"]["score"]);
            assert_eq!(Some(&g["score"]), initial, "seed {seed} {name}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        files >= 55 && failing_nodes >= 20 && repaired >= 10 && evacuated >= 10,
        "{files} files, {failing_nodes} nodes failing N+1, {repaired} groups repaired with moves, {evacuated} groups emptied"
    );
}

/// Three groups: b has its primary in g1 and its secondary in g2 (split);
/// g3 is empty. g1 is weakly unhealthy for b alone (g2 is healthy: the
/// instance belongs to its primary's group), the text and the document
/// name it; the repair moves b whole into one group; with no group to
/// receive it, the repair says how to make it whole.
#[test]
fn a_split_instance_is_its_primarys_groups_problem() {
    let data = format!(
        "g1|uuid-g1|preferred||\ng2|uuid-g2|preferred||\ng3|uuid-g3|preferred||\n\n\
         n1|16384|0|14336|100000|90000|8|N|uuid-g1|1\n\
         n2|16384|0|16384|100000|90000|8|N|uuid-g1|1\n\
         n3|16384|0|16384|100000|90000|8|N|uuid-g2|1\n\
         n4|16384|0|16384|100000|90000|8|N|uuid-g2|1\n\
         n5|16384|0|16384|100000|100000|8|N|uuid-g3|1\n\
         n6|16384|0|16384|100000|100000|8|N|uuid-g3|1\n\n\
         a|1024|1024|1|running|Y|n1|n2|drbd||1\n\
         b|1024|1024|1|running|Y|n1|n3|drbd||1\n\n\n{POLICY}{}{}",
        policy("g2"),
        policy("g3")
    );
    let dir = crate::run::scratch("health-split");
    let path = dir.join("split.data");
    std::fs::write(&path, &data).unwrap();
    let file = path.to_str().unwrap();
    assert_eq!(n1::parse(&data).split_instances(), vec!["b".to_owned()]);

    let (out, _) = run(hailstone::program::groups::main, &["check", "-t", file]);
    assert!(
        out.contains("  g1  weakly unhealthy  instances split across groups (secondary in another group): b\n"),
        "{out}"
    );
    assert!(out.contains("  g2  healthy\n"), "{out}");
    let check = document(&["check", "-t", file]);
    assert_eq!(check["healthy"], false);
    let g1 = &check["report"]["groups"][0];
    assert_eq!(g1["status"], "weakly unhealthy");
    assert_eq!(
        g1["split_instances"],
        serde_json::json!([{"instance": "b", "secondary": "n3", "secondary_group": "g2"}])
    );
    assert_eq!(
        check["report"]["groups"][1]["split_instances"],
        serde_json::json!([])
    );

    let repair = document(&["repair", "-t", file, "-C"]);
    let r = &repair["report"]["repairs"][0];
    assert_eq!(r["repaired"], true, "{repair}");
    assert_eq!(r["problems"][0]["instance"], "b");
    assert_eq!(
        r["problems"][0]["why"],
        "split across groups: secondary on n3 of group g2"
    );
    let moved = &r["relocations"][0];
    assert_eq!(moved["instance"], "b");
    let target = match moved["group"].as_str().unwrap() {
        "g2" => ["n3", "n4"],
        "g3" => ["n5", "n6"],
        other => panic!("moved to {other}"),
    };
    let mut nodes: Vec<&str> = moved["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    nodes.sort_unstable();
    assert_eq!(nodes, target, "{repair}");

    // Without g3 and with g2 holding a split instance of its own, no
    // group can receive.
    let stuck = data
        .replace("n5|16384|0|16384|100000|100000|8|N|uuid-g3|1\n", "")
        .replace("n6|16384|0|16384|100000|100000|8|N|uuid-g3|1\n", "")
        .replace("g3|uuid-g3|preferred||\n", "")
        .replace(&policy("g3"), "")
        .replace("\n\n\n|", "\nc|1024|1024|1|running|Y|n4|n2|drbd||1\n\n\n|");
    std::fs::write(&path, &stuck).unwrap();
    assert_eq!(
        n1::parse(&stuck).split_instances(),
        vec!["b".to_owned(), "c".to_owned()]
    );
    let (out, _) = run(hailstone::program::groups::main, &["repair", "-t", file]);
    assert!(
        out.ends_with(
            "No connected group is healthy: no group can receive instances, nothing can be repaired.\n\
             A split instance is made whole within its primary's group by gnt-instance replace-disks -n NODE (a node of that group).\n"
        ),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
