//! `--json` against the text, on generated clusters: each
//! planner's and checker's document parses (serde_json, not hailstone's
//! reader), carries the moves, nodes and figures its text shows, and ends
//! the run with the text's exit status; `hailstone-groups check` fails on
//! an unhealthy cluster; `hailstone-space` gives its document on a
//! hand-made cluster with forthcoming instances, where hspace dies.

use std::ffi::OsString;

use hailstone::program::hail::options::LoadOptions;
use hailstone::shell::datafile;
use hailstone_devtools::generate::{generate, CaseSpec};
use serde_json::Value;

type Main = fn(&[OsString], &mut dyn std::io::Write, &mut dyn std::io::Write) -> u8;

/// Runs a program in this process: exit status, stdout, stderr.
fn run(main: Main, args: &[&str]) -> (u8, String, String) {
    let args: Vec<OsString> = args.iter().map(OsString::from).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = main(&args, &mut out, &mut err);
    (
        code,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// The text run and the `--json` run of the same command line: the text's
/// stdout, the document (none for a run that failed: then both stdouts
/// are empty), and the exit status they share.
fn both(main: Main, args: &[&str]) -> (String, Option<Value>, u8) {
    let (code, text, err) = run(main, args);
    let with_json: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
    let (jcode, json, jerr) = run(main, &with_json);
    assert_eq!(
        code, jcode,
        "{args:?}: exit status {code} with text, {jcode} with --json: {err}{jerr}"
    );
    if json.is_empty() {
        assert!(
            code != 0 && text.is_empty(),
            "{args:?}: no document: {jerr}"
        );
        assert_eq!(err, jerr, "{args:?}: the same error");
        return (text, None, code);
    }
    assert_eq!(
        json.lines().count(),
        1,
        "{args:?}: the document is one line"
    );
    let doc: Value = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("{args:?}: the document does not parse: {e}: {json}"));
    assert_eq!(doc["schema"], 1);
    (text, Some(doc), code)
}

/// Multi-group cluster `seed` as a data file: 4 to 18 nodes, 2 to 4
/// groups.
fn cluster(seed: u64) -> Option<String> {
    let nodes = 4 + (seed as usize * 7) % 15;
    let groups = 2 + (seed as usize) % 3;
    let case = generate(&CaseSpec::multi_group(seed, nodes, groups));
    datafile::from_request(case.request.as_bytes(), &LoadOptions::default()).ok()
}

/// Multi-group cluster `seed` written in `dir`: its text and its path.
fn cluster_file(dir: &std::path::Path, seed: u64) -> Option<(String, String)> {
    let text = cluster(seed)?;
    let file = dir.join(format!("c{seed}.data"));
    std::fs::write(&file, &text).unwrap();
    Some((text, file.to_str().unwrap().to_owned()))
}

/// The `gnt-instance` lines of a `-C` text, in order.
fn command_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("gnt-instance "))
        .map(str::to_owned)
        .collect()
}

/// Every command of the document's moves, in order.
fn document_commands(doc: &Value) -> Vec<String> {
    doc["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .flat_map(|m| m["commands"].as_array().expect("commands").clone())
        .map(|c| c.as_str().expect("a command").to_owned())
        .collect()
}

fn f8(v: &Value) -> String {
    format!("{:.8}", v.as_f64().expect("a number"))
}

/// A balancing step line: instance, old nodes, new nodes, score.
fn step_fields(line: &str) -> Option<(String, String, String, String)> {
    let mut w = line.split_whitespace();
    let n = w.next()?;
    n.strip_suffix('.')?.parse::<usize>().ok()?;
    let inst = w.next()?.to_owned();
    let old = w.next()?.to_owned();
    (w.next()? == "=>").then_some(())?;
    let new = w.next()?.to_owned();
    let score = w.next()?.to_owned();
    Some((inst, old, new, score))
}

/// `name` shortened as the step lines shorten it (the common suffix of
/// the node names cut off), compared by prefix.
fn same_name(alias: &str, full: &str) -> bool {
    full.starts_with(alias)
}

fn pair_matches(text: &str, v: &Value) -> bool {
    let p = v["primary"].as_str().unwrap_or("");
    match text.split_once(':') {
        Some((a, b)) => same_name(a, p) && same_name(b, v["secondary"].as_str().unwrap_or("")),
        None => same_name(text, p) && v["secondary"].is_null(),
    }
}

#[test]
fn balance_documents_carry_the_plan() {
    let dir = crate::run::scratch("json-balance");
    let (mut plans, mut moves) = (0, 0);
    for seed in 1..=24u64 {
        let Some((text, file)) = cluster_file(&dir, seed) else {
            continue;
        };
        let file = file.as_str();
        for g in crate::balance::groups(&text) {
            let args = ["-t", file, "-G", &g, "-C", "-l", "12"];
            let (out, doc, code) = both(hailstone::program::balance::main, &args);
            let Some(doc) = doc.filter(|_| code == 0) else {
                continue;
            };
            let steps: Vec<_> = out.lines().filter_map(step_fields).collect();
            let jm = doc["moves"].as_array().unwrap();
            assert_eq!(steps.len(), jm.len(), "seed {seed} group {g}: {out}");
            for ((inst, old, new, score), m) in steps.iter().zip(jm) {
                assert!(
                    same_name(inst, m["instance"].as_str().unwrap()),
                    "{inst} {m}"
                );
                assert!(pair_matches(old, &m["from"]), "{old} {m}");
                assert!(pair_matches(new, &m["to"]), "{new} {m}");
                assert_eq!(*score, f8(&m["score"]), "seed {seed} group {g}");
            }
            assert_eq!(
                command_lines(&out),
                document_commands(&doc),
                "seed {seed} group {g}"
            );
            if let Some(line) = out.lines().find(|l| l.starts_with("Initial score: ")) {
                assert_eq!(
                    line,
                    format!("Initial score: {}", f8(&doc["score"]["initial"]))
                );
            }
            if let Some(line) = out
                .lines()
                .find(|l| l.starts_with("Cluster score improved"))
            {
                let want = format!(
                    "Cluster score improved from {} to {}",
                    f8(&doc["score"]["initial"]),
                    f8(&doc["score"]["final"])
                );
                assert_eq!(line, want);
            }
            assert_eq!(doc["group"].as_str(), Some(g.as_str()));
            plans += usize::from(!jm.is_empty());
            moves += jm.len();
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(plans >= 10 && moves >= 30, "{plans} plans, {moves} moves");
}

#[test]
fn squeeze_documents_carry_the_decision() {
    let dir = crate::run::scratch("json-squeeze");
    let mut decisions = std::collections::BTreeSet::new();
    for seed in 1..=24u64 {
        // Clusters of instances that can be moved off nodes to power off.
        let Some(text) = crate::squeeze::generated_cluster(seed) else {
            continue;
        };
        let file = dir.join(format!("c{seed}.data"));
        std::fs::write(&file, &text).unwrap();
        let file = file.to_str().unwrap();
        for (minimal, target) in [("0.2", "0.5"), ("1", "2"), ("6", "8")] {
            let args = [
                "-t",
                file,
                "-C",
                "--minimal-resources",
                minimal,
                "--target-resources",
                target,
            ];
            let (out, doc, code) = both(hailstone::program::squeeze::main, &args);
            let Some(doc) = doc.filter(|_| code == 0) else {
                continue;
            };
            let mut lines = out.lines();
            let heading = lines.next().unwrap();
            let decision = doc["decision"].as_str().unwrap();
            let want = match decision {
                "offline" => "'Nodes to offline'",
                "online" => "'Nodes to online'",
                _ => "'No action'",
            };
            assert_eq!(heading, want, "seed {seed}");
            let nodes: Vec<&str> = lines.take_while(|l| !l.is_empty()).collect();
            let jn: Vec<&str> = doc["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap())
                .collect();
            assert_eq!(nodes, jn, "seed {seed}");
            assert_eq!(command_lines(&out), document_commands(&doc), "seed {seed}");
            decisions.insert(decision.to_owned());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        decisions.contains("offline") && decisions.len() >= 2,
        "{decisions:?}"
    );
}

/// `HCHECK_*` or `HTS_*` lines as (key, value) pairs.
fn key_lines<'a>(text: &'a str, prefix: &str) -> Vec<(&'a str, &'a str)> {
    text.lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .filter_map(|l| l.split_once('='))
        .collect()
}

fn same_value(text: &str, v: &Value) -> bool {
    let text = text.trim_matches('\'');
    match v {
        Value::String(s) => s == text,
        Value::Bool(b) => text == if *b { "1" } else { "0" },
        Value::Number(n) => text.parse::<f64>().ok() == n.as_f64(),
        _ => false,
    }
}

#[test]
fn check_documents_carry_the_figures() {
    let dir = crate::run::scratch("json-check");
    let mut unhealthy = 0;
    for seed in 1..=24u64 {
        let Some((_, file)) = cluster_file(&dir, seed) else {
            continue;
        };
        let file = file.as_str();
        for true_counts in [false, true] {
            let mut args = vec!["-t", file, "--machine-readable"];
            if true_counts {
                args.push("--true-counts");
            }
            let (out, doc, code) = both(hailstone::program::check::main, &args);
            let doc = doc.expect("a document");
            assert_eq!(
                code == 1,
                doc["need_rebalance"] == Value::Bool(true),
                "seed {seed}"
            );
            if !true_counts {
                unhealthy += usize::from(code == 1);
            }
            let compared = check_keys(&out, &doc, seed, true_counts);
            assert!(compared >= 12, "seed {seed}: {compared} figures compared");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(unhealthy >= 3, "{unhealthy} clusters need rebalancing");
}

/// hailstone-info's document: the counts, each group's row of `-v -v`'s
/// table, the N+1 verdict and the score, as the text prints them.
#[test]
fn info_documents_carry_the_summary() {
    let dir = crate::run::scratch("json-info");
    let (mut unhappy, mut compared) = (0, 0);
    for seed in 1..=24u64 {
        let Some((_, file)) = cluster_file(&dir, seed) else {
            continue;
        };
        let (out, doc, code) = both(hailstone::program::info::main, &["-t", &file, "-v", "-v"]);
        assert_eq!(code, 0, "seed {seed}");
        let doc = doc.expect("a document");
        let loaded = out
            .lines()
            .find(|l| {
                l.strip_prefix("Loaded ")
                    .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
            })
            .unwrap();
        let counts: Vec<i64> = loaded
            .split(|c: char| !c.is_ascii_digit())
            .filter(|w| !w.is_empty())
            .map(|w| w.parse().unwrap())
            .collect();
        assert_eq!(
            counts,
            [&doc["nodes"], &doc["instances"], &doc["node_groups"]].map(|v| v.as_i64().unwrap()),
            "seed {seed}: {loaded}"
        );
        // The group table's rows: name, nodes, instances, bad nodes, bad
        // instances, N+1, score.
        let rows: Vec<Vec<&str>> = out
            .lines()
            .skip_while(|l| *l != "Node group information:")
            .skip(2)
            .take_while(|l| l.starts_with("  "))
            .map(|l| l.split_whitespace().collect())
            .collect();
        let groups = doc["groups"].as_array().unwrap();
        assert_eq!(rows.len(), groups.len(), "seed {seed}: {out}");
        for (row, g) in rows.iter().zip(groups) {
            assert_eq!(row[0], g["name"], "seed {seed}");
            for (cell, field) in row[1..5].iter().zip([
                "nodes",
                "instances",
                "nodes_failing_n1",
                "instances_on_nodes_failing_n1",
            ]) {
                assert_eq!(
                    cell.parse::<i64>().ok(),
                    g[field].as_i64(),
                    "seed {seed} {field}"
                );
            }
            assert_eq!(
                row[5] == "True",
                g["n1_happy"] == Value::Bool(true),
                "seed {seed}"
            );
            assert_eq!(row[6], f8(&g["score"]), "seed {seed}");
            compared += 1;
        }
        let happy = out.contains("Cluster is N+1 happy\n");
        assert_eq!(doc["n1_happy"], Value::Bool(happy), "seed {seed}");
        unhappy += usize::from(!happy);
        let score = out
            .lines()
            .find_map(|l| l.strip_prefix("Cluster score: "))
            .unwrap();
        assert_eq!(score, f8(&doc["score"]), "seed {seed}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        compared >= 30 && unhappy >= 2,
        "{compared} rows, {unhappy} N+1 unhappy"
    );
}

/// Holds each `HCHECK_*` figure of `out` to the document's: hcheck's
/// `OFFLINE_SEC` (the offline nodes) is the document's `offline_nodes`,
/// with `--true-counts` its `offline_sec`; the document's `offline_sec`
/// is the true count either way. Returns how many were compared.
fn check_keys(out: &str, doc: &Value, seed: u64, true_counts: bool) -> usize {
    let keys = key_lines(out, "HCHECK_");
    let groups = doc["groups"].as_array().unwrap();
    let mut compared = 0;
    for (key, value) in keys {
        let Some((phase, rest)) = key.split_once('_') else {
            continue;
        };
        let phase = match phase {
            "INIT" => "initial",
            "FINAL" => "rebalanced",
            _ => continue,
        };
        let (figures, field) = if let Some(rest) = rest.strip_prefix("CLUSTER_") {
            (&doc["cluster"][phase], rest)
        } else if let Some(rest) = rest.strip_prefix("GROUP_") {
            let (index, field) = rest.split_once('_').unwrap();
            // Groups are listed in index order; the UUID names them.
            let uuid = key_lines(out, "HCHECK_GROUP_UUID_")
                .into_iter()
                .find(|(i, _)| *i == index)
                .map(|(_, u)| u.trim_matches('\''))
                .unwrap();
            let g = groups.iter().find(|g| g["uuid"] == uuid).unwrap();
            (&g[phase], field)
        } else {
            continue;
        };
        let name = match field {
            "OFFLINE_SEC" if !true_counts => "offline_nodes".to_owned(),
            "GN1_NODES" => continue,
            other => other.to_lowercase(),
        };
        let got = &figures[name];
        if field == "SCORE" {
            assert_eq!(value, f8(got), "seed {seed} {key}");
        } else {
            assert!(
                same_value(value, got),
                "seed {seed} {key}={value}, document {got}"
            );
        }
        compared += 1;
    }
    compared
}

#[test]
fn space_documents_carry_every_key() {
    let dir = crate::run::scratch("json-space");
    for seed in 1..=12u64 {
        let Some((_, file)) = cluster_file(&dir, seed) else {
            continue;
        };
        let file = file.as_str();
        for model in [&[][..], &["--allocator-model"]] {
            let args: Vec<&str> = ["-t", file, "--machine-readable"]
                .into_iter()
                .chain(model.iter().copied())
                .collect();
            let (out, doc, code) = both(hailstone::program::space::main, &args);
            assert_eq!(code, 0, "seed {seed}");
            let doc = doc.expect("a document");
            let keys = key_lines(&out, "HTS_");
            let map = doc["keys"].as_object().unwrap();
            assert_eq!(keys.len(), map.len(), "seed {seed}");
            for (key, value) in keys {
                assert!(
                    same_value(value, &map[key]),
                    "seed {seed} {key}={value}, {}",
                    map[key]
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A cluster with one instance and two forthcoming ones (Ganeti's nodes
/// list no forthcoming instance).
const FORTHCOMING: &str = "default|uuid-a|preferred||

node-a|32768|1024|31232|1048576|1046400|16|N|uuid-a|1||N|0|1|1.0
node-b|32768|1024|31744|1048576|1046400|16|N|uuid-a|1||N|0|1|1.0
node-c|32768|1024|31744|1048576|1048576|16|N|uuid-a|1||N|0|1|1.0

real-1|512|2176|1|running|Y|node-a|node-b|drbd||1|-|N
soon-1|256|2176|1|ADMIN_down|Y|node-b|node-c|drbd||1|-|Y
soon-2|256|2176|1|ADMIN_down|Y|node-c|node-a|drbd||1|-|Y


|128,1,1024,1,1,1|128,1,512,1,1,1;1024,8,1048576,16,8,12|drbd,plain,diskless|4.0|32.0
default|128,1,1024,1,1,1|128,1,512,1,1,1;1024,8,1048576,16,8,12|drbd,plain,diskless|4.0|32.0
";

/// On a cluster with forthcoming instances `--machine-readable` dies as
/// hspace 3.0.2 does (its instance count holds them, its nodes' does
/// not); `--json` gives the document, its instance counts the nodes'.
#[test]
fn space_document_on_forthcoming_instances() {
    let dir = crate::run::scratch("json-space-forthcoming");
    let file = dir.join("forthcoming.data");
    std::fs::write(&file, FORTHCOMING).unwrap();
    let file = file.to_str().unwrap();
    let main = hailstone::program::space::main;
    let (code, out, err) = run(main, &["-t", file, "--machine-readable"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("Error: internal inconsistency, allocated ("),
        "{err}"
    );
    let (code, out, err) = run(main, &["-t", file, "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).expect("a document");
    let keys = &doc["keys"];
    let count = |k: &str| keys[k].as_i64().unwrap_or_else(|| panic!("{k}: {keys}"));
    assert_eq!(count("INI_INST_CNT"), 1, "{keys}");
    assert!(count("ALLOC_INSTANCES") > 0, "{keys}");
    assert_eq!(
        count("FIN_INST_CNT"),
        count("INI_INST_CNT") + count("ALLOC_INSTANCES"),
        "{keys}"
    );
    let usage = keys["ALLOC_USAGE"].as_f64().unwrap();
    let want = 1.0 / count("FIN_INST_CNT") as f64;
    assert!((usage - want).abs() < 1e-6, "ALLOC_USAGE {usage}, {want}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn roll_documents_carry_the_groups_and_moves() {
    let dir = crate::run::scratch("json-roll");
    let mut moves = 0;
    for seed in 1..=24u64 {
        let Some((_, file)) = cluster_file(&dir, seed) else {
            continue;
        };
        let file = file.as_str();
        let (out, doc, code) = both(
            hailstone::program::roll::main,
            &["-t", file, "--print-moves", "-f", "--full-evacuation"],
        );
        let Some(doc) = doc.filter(|_| code == 0) else {
            continue;
        };
        let mut expected = String::from("'Node Reboot Groups'\n");
        for g in doc["groups"].as_array().unwrap() {
            let nodes: Vec<&str> = g["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap())
                .collect();
            expected.push_str(&nodes.join(","));
            expected.push('\n');
            for m in g["moves"].as_array().unwrap() {
                let (i, p) = (
                    m["instance"].as_str().unwrap(),
                    m["primary"].as_str().unwrap(),
                );
                match m["secondary"].as_str() {
                    Some(s) => expected.push_str(&format!("  {i} {p} {s}\n")),
                    None => expected.push_str(&format!("  {i} {p}\n")),
                }
                moves += 1;
            }
        }
        assert_eq!(out, expected, "seed {seed}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(moves >= 20, "{moves} moves");
}

#[test]
fn groups_documents_carry_health_and_plans() {
    let dir = crate::run::scratch("json-groups");
    let (mut unhealthy, mut planned) = (0, 0);
    for seed in 1..=24u64 {
        let Some((_, file)) = cluster_file(&dir, seed) else {
            continue;
        };
        let file = file.as_str();
        let (out, doc, code) = both(hailstone::program::groups::main, &["check", "-t", file]);
        let doc = doc.expect("a document");
        let sick: Vec<&str> = doc["report"]["groups"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| g["status"] != "healthy")
            .map(|g| g["group"].as_str().unwrap())
            .collect();
        // Exit status 3 (findings) exactly when a group is not healthy,
        // each named.
        assert_eq!(code == 3, !sick.is_empty(), "seed {seed}: {out}");
        assert_eq!(doc["healthy"], Value::Bool(sick.is_empty()));
        for g in &sick {
            assert!(
                out.lines()
                    .any(|l| l.contains(g) && l.contains("unhealthy")),
                "{g}: {out}"
            );
        }
        unhealthy += usize::from(code == 3);
        for op in ["repair", "compress", "balance"] {
            let mut args = vec![op, "-t", file, "-C"];
            if op == "compress" {
                args.push("--evacuate");
            }
            let (out, doc, code) = both(hailstone::program::groups::main, &args);
            let doc = doc.expect("a document");
            // Findings (3): a group the repair left unhealthy, no group
            // that compress can empty (and so no move).
            match op {
                "balance" => assert_eq!(code, 0, "seed {seed} {op}"),
                "compress" => assert_eq!(
                    code == 3,
                    doc["moves"].as_array().unwrap().is_empty(),
                    "seed {seed} {op}"
                ),
                _ => assert!(code == 0 || code == 3, "seed {seed} {op}: {code}"),
            }
            assert_eq!(doc["operation"], op);
            assert_eq!(
                command_lines(&out),
                document_commands(&doc),
                "seed {seed} {op}"
            );
            planned += usize::from(!doc["moves"].as_array().unwrap().is_empty());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        unhealthy >= 3 && planned >= 10,
        "{unhealthy} unhealthy, {planned} plans"
    );
}

#[test]
fn json_and_exec_are_refused_together() {
    for main in [
        hailstone::program::balance::main as Main,
        hailstone::program::squeeze::main,
        hailstone::program::roll::main,
    ] {
        let (code, out, err) = run(main, &["-L/nonexistent", "-X", "--json"]);
        // A usage error: the two options do not go together.
        assert_eq!((code, out.as_str()), (2, ""), "{err}");
        assert!(
            err.contains("--json prints the plan and -X carries it out"),
            "{err}"
        );
    }
}
