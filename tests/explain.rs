//! `--explain`: the answer is the same with it, every protocol sample's
//! explanation is pinned by a snapshot (`snapshots/explain@*.snap`, each
//! read against its request), the JSON form parses, the samples modelled
//! on Ganeti's tracker name the real cause and its amount, and the
//! explanation goes where `--explain=PATH` says.

use std::path::Path;

use crate::run::{assert_contract, hailstone, on_file, scratch};
use crate::samples::sidecar_args;

/// The explanation of a sample written to `file`, with the run's output.
fn explained(sample: &Path, format: &str, file: &Path) -> (crate::run::Output, String) {
    let mut args = sidecar_args(sample);
    args.push(format!("--explain={}", file.display()));
    args.push(format!("--explain-format={format}"));
    let out = on_file(sample, &args);
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let _ = std::fs::remove_file(file);
    (out, text)
}

#[test]
fn explanations_of_the_samples() {
    let dir = scratch("explain-samples");
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        insta::glob!("../protocol-samples", "*.json", |path| {
            let what = path.display().to_string();
            let plain = on_file(path, &sidecar_args(path));
            let file = dir.join("explanation.out");
            let (out, text) = explained(path, "text", &file);
            assert_contract(&out, &what);
            // The answer, the exit status and the rest of stderr do not
            // change.
            assert_eq!(
                (out.code, &out.stdout, &out.stderr),
                (plain.code, &plain.stdout, &plain.stderr),
                "{what}: --explain changed the run"
            );
            // An answer comes with an explanation; no answer, none.
            assert_eq!(out.code == 0, !text.is_empty(), "{what}: {text}");
            let (json_out, json) = explained(path, "json", &file);
            assert_eq!(
                json_out.stdout, plain.stdout,
                "{what}: json changed the answer"
            );
            if !json.is_empty() {
                let v: serde_json::Value = serde_json::from_str(&json)
                    .unwrap_or_else(|e| panic!("{what}: the JSON does not parse: {e}"));
                assert_eq!(
                    v["success"],
                    serde_json::Value::Bool(plain.stdout.contains("\"success\":true"))
                );
                chosen_is_the_answer(&what, &v, &plain.stdout);
            }
            insta::assert_snapshot!("explain", text);
            insta::assert_snapshot!("explain_json", json);
        });
    });
}

/// What the explanation says was chosen is what the answer says: for a
/// successful allocate, its nodes; for a successful allocate-secondary,
/// the chosen pair's secondary; for a multi-allocate, each placed
/// instance's nodes.
fn chosen_is_the_answer(what: &str, v: &serde_json::Value, stdout: &str) {
    let answer: serde_json::Value = serde_json::from_str(stdout).expect("the answer");
    if answer["success"] != serde_json::Value::Bool(true) {
        return;
    }
    let names = |x: &serde_json::Value| -> Vec<String> {
        x.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|n| n.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let chosen = |p: &serde_json::Value| names(&p["chosen"]["nodes"]);
    let placements = v["placements"].as_array().cloned().unwrap_or_default();
    match v["request"].as_str() {
        Some("allocate") => {
            let p = placements
                .first()
                .unwrap_or_else(|| panic!("{what}: no placement"));
            assert_eq!(chosen(p), names(&answer["result"]), "{what}");
        }
        Some("allocate-secondary") => {
            let p = placements
                .first()
                .unwrap_or_else(|| panic!("{what}: no placement"));
            let pair = chosen(p);
            assert_eq!(
                pair.get(1).map(String::as_str),
                answer["result"].as_str(),
                "{what}"
            );
        }
        Some("multi-allocate") => {
            for row in answer["result"][0].as_array().cloned().unwrap_or_default() {
                let name = row[0].as_str().unwrap_or_default();
                let p = placements
                    .iter()
                    .find(|p| p["instance"] == name)
                    .unwrap_or_else(|| panic!("{what}: {name} not explained"));
                assert_eq!(chosen(p), names(&row[1]), "{what}: {name}");
            }
        }
        _ => {}
    }
}

/// Whether `answer` (the allocator's reply to a request of `kind`) moves
/// an existing instance: a successful relocate, or an evacuation
/// (node-evacuate, change-group) that moved at least one instance.
fn moves_an_instance(kind: &str, answer: &serde_json::Value) -> bool {
    let moved = answer["result"][0]
        .as_array()
        .is_some_and(|m| !m.is_empty());
    answer["success"] == true
        && match kind {
            "relocate" => true,
            "node-evacuate" | "change-group" => moved,
            _ => false,
        }
}

/// A request that moves no instance has no plan, so no cost: a failed
/// relocate, an evacuation that moved nothing, and every other request
/// type; one that moves some carries the cost of its moves, in the text
/// (the `cost:` line) and in JSON (`cost`).
#[test]
fn only_an_answer_that_moves_has_a_cost() {
    let dir = scratch("explain-no-plan-no-cost");
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol-samples");
    let mut paths: Vec<_> = std::fs::read_dir(&samples)
        .expect("the samples")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    let (mut with, mut without) = (0, 0);
    for path in paths {
        let what = path.display().to_string();
        let (out, text) = explained(&path, "text", &dir.join("e.txt"));
        if out.code != 0 {
            continue;
        }
        let request: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let kind = request["request"]["type"].as_str().unwrap_or("");
        let answer: serde_json::Value = serde_json::from_str(&out.stdout).expect("the answer");
        let moves = moves_an_instance(kind, &answer);
        let (_, json) = explained(&path, "json", &dir.join("e.json"));
        let json: serde_json::Value = serde_json::from_str(&json).expect("a JSON explanation");
        let line = text.lines().find(|l| l.starts_with("cost: "));
        assert_eq!(line.is_some(), moves, "{what}: the cost line: {text}");
        assert_eq!(json["cost"].is_object(), moves, "{what}: the JSON cost");
        if moves {
            with += 1;
            assert!(
                !line.unwrap_or("").starts_with("cost: 0 moves"),
                "{what}: {text}"
            );
        } else {
            without += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    // Relocate, evacuation and change-group answers that move, and failed
    // ones of each.
    assert!(
        with >= 8 && without >= 40,
        "{with} with a cost, {without} without"
    );
}

/// The explanation of one sample, as text.
fn text_of(sample: &str) -> String {
    let dir = scratch(&format!("explain-{sample}"));
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("protocol-samples")
        .join(sample);
    explained(&path, "text", &dir.join("e.txt")).1
}

#[test]
fn tracker_cases_name_the_cause_and_the_amount() {
    let cases: &[(&str, &[&str])] = &[
        (
            "allocate-spindle-ratio.json",
            &[
                "FailDisk",
                "spindle ratio",
                "would use 2 spindles, above the limit 1",
            ],
        ),
        (
            "allocate-small-dom0.json",
            &[
                "FailMem",
                "needs 4096 MiB of memory and 1 MiB to spare, 4096 MiB free",
                "3072 unaccounted",
            ],
        ),
        (
            "allocate-policy-memory.json",
            &[
                "instance policy",
                "memory 33484 MiB is above the maximum 32768 MiB",
            ],
        ),
        (
            "allocate-exclusion-tags-everywhere.json",
            &[
                "FailTags",
                "exclusion tag 'service:web' already held here by web",
            ],
        ),
        (
            "allocate-n1-fail.json",
            &[
                "dropped node3.example.com",
                "node1.example.com could not have been evacuated",
            ],
        ),
        (
            "allocate-vcpu-ratio.json",
            &["FailCPU", "vCPU ratio", "above the ratio 1"],
        ),
    ];
    for (sample, wanted) in cases {
        let text = text_of(sample);
        for w in *wanted {
            assert!(text.contains(w), "{sample}: no {w:?} in\n{text}");
        }
    }
}

/// A request made from the sample `allocate-n1-fail.json` (three nodes,
/// one group) by `edit`.
fn variant(edit: impl FnOnce(&mut serde_json::Value)) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol-samples/allocate-n1-fail.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    edit(&mut v);
    v
}

/// The explanation of `request` in `format`, from a scratch file.
fn explanation_of(name: &str, request: &serde_json::Value, format: &str) -> String {
    let dir = scratch(&format!("explain-{name}-{format}"));
    let path = dir.join("request.json");
    std::fs::write(&path, request.to_string()).unwrap();
    let text = explained(&path, format, &dir.join(format!("e.{format}"))).1;
    let _ = std::fs::remove_dir_all(&dir);
    text
}

/// The first line of a text explanation.
fn verdict(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// The first line names the cause, its numbers and the fix, on the
/// tracker's cases and on the group shapes where hail's own message says
/// least: a one-node group, four nodes that all fail N+1, an empty
/// cluster, an unallocable group.
#[test]
fn the_first_line_names_the_cause_and_the_fix() {
    let samples: &[(&str, &[&str])] = &[
        (
            "allocate-spindle-ratio.json",
            &[
                "FailDisk (primary: spindle ratio) refuses 3 of the 3",
                "2 spindles, above the limit 1",
                "--ipolicy-spindle-ratio",
            ],
        ),
        (
            "allocate-small-dom0.json",
            &[
                "FailMem (primary: memory)",
                "needs 4096 MiB of memory and 1 MiB to spare, 4096 MiB free",
                "3072 unaccounted",
                "Free memory on a node",
            ],
        ),
        (
            "allocate-policy-memory.json",
            &[
                "the instance policy of group default refuses it",
                "memory 33484 MiB is above the maximum 32768 MiB",
                "--ipolicy-bounds-specs",
            ],
        ),
        (
            "allocate-exclusion-tags-everywhere.json",
            &[
                "FailTags (primary: exclusion tag)",
                "'service:web' already held here by",
                "drop the tag",
            ],
        ),
        (
            "allocate-n1-fail.json",
            &["new1.example.com goes to node2.example.com in group default"],
        ),
    ];
    for (sample, wanted) in samples {
        let text = text_of(sample);
        let line = verdict(&text);
        assert!(line.starts_with("verdict: "), "{sample}: {text}");
        for w in *wanted {
            assert!(
                line.contains(w),
                "{sample}: no {w:?} in the first line {line:?}"
            );
        }
    }
    let node = |v: &serde_json::Value, name: &str| v["nodes"][name].clone();
    let one_node = variant(|v| {
        let keep = node(v, "node2.example.com");
        v["nodes"] = serde_json::json!({ "node2.example.com": keep });
        v["instances"]
            .as_object_mut()
            .unwrap()
            .remove("big1.example.com");
    });
    // Four nodes, each with 5120 MiB free beside an instance of 7168 MiB:
    // the new instance fits on each, and then that node's instance fits
    // nowhere else.
    let four = variant(|v| {
        let (n, i) = (
            node(v, "node2.example.com"),
            v["instances"]["mid1.example.com"].clone(),
        );
        let (mut nodes, mut insts) = (serde_json::Map::new(), serde_json::Map::new());
        for k in 1..=4 {
            let mut n = n.clone();
            n["total_memory"] = 16384.into();
            n["reserved_memory"] = 4096.into();
            n["free_memory"] = 5120.into();
            nodes.insert(format!("node{k}.example.com"), n);
            let mut i = i.clone();
            i["nodes"] = serde_json::json!([format!("node{k}.example.com")]);
            i["memory"] = 7168.into();
            insts.insert(format!("big{k}.example.com"), i);
        }
        v["nodes"] = nodes.into();
        v["instances"] = insts.into();
    });
    // node1 (with big1) alone in a second group: every placement in
    // default leaves it unevacuable, and hail's N+1 check covers every
    // node of the cluster.
    let other_group = variant(|v| {
        let groups = v["nodegroups"].as_object_mut().unwrap();
        let mut g2 = groups.values().next().unwrap().clone();
        g2["name"] = "g2".into();
        groups.insert("00000000-0000-4000-8000-0000000000g2".into(), g2);
        v["nodes"]["node1.example.com"]["group"] = "00000000-0000-4000-8000-0000000000g2".into();
    });
    let empty = variant(|v| {
        v["nodes"] = serde_json::json!({});
        v["instances"] = serde_json::json!({});
    });
    let unallocable = variant(|v| {
        for g in v["nodegroups"].as_object_mut().unwrap().values_mut() {
            g["alloc_policy"] = "unallocable".into();
        }
    });
    let cases: [(&str, &serde_json::Value, &[&str]); 5] = [
        (
            "one-node",
            &one_node,
            &[
                "group default has one online node, so the N+1 check can never pass",
                "add a node to the group or set no-capacity-checks=yes",
            ],
        ),
        (
            "other-group",
            &other_group,
            &[
                "the N+1 check covers every node of the cluster, and node1.example.com cannot pass it",
                "its group g2 has no other online node",
                "add a node to group g2 or set no-capacity-checks=yes",
            ],
        ),
        (
            "four-n1",
            &four,
            &[
                "on each of the 4 candidates of group default that fit, the N+1 check fails",
                "could not be evacuated: big",
                "fits on none of the other 3 online nodes; the closest is node",
                "needs 7168 MiB of memory, 5120 MiB free",
                "no-capacity-checks=yes",
            ],
        ),
        (
            "empty",
            &empty,
            &["no node group has a node to place it on", "gnt-node add"],
        ),
        (
            "unallocable",
            &unallocable,
            &[
                "every node group (default) is unallocable by its allocation policy",
                "--alloc-policy=preferred",
            ],
        ),
    ];
    for (name, request, wanted) in cases {
        let text = explanation_of(name, request, "text");
        let line = verdict(&text);
        for w in wanted {
            assert!(
                line.contains(w),
                "{name}: no {w:?} in the first line {line:?}"
            );
        }
        let json: serde_json::Value =
            serde_json::from_str(&explanation_of(name, request, "json")).unwrap();
        assert_eq!(
            json["verdict"].as_str(),
            line.strip_prefix("verdict: "),
            "{name}"
        );
    }
}

/// The JSON names every node of the group with its refusal; the text
/// lists them all in a group of at most ten nodes.
#[test]
fn every_refused_node_is_named() {
    for (sample, nodes) in [
        ("allocate-small-dom0.json", 3),
        ("allocate-policy-memory.json", 4),
    ] {
        let dir = scratch(&format!("explain-every-{sample}"));
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("protocol-samples")
            .join(sample);
        let json: serde_json::Value =
            serde_json::from_str(&explained(&path, "json", &dir.join("e.json")).1).unwrap();
        let request: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let mut named: Vec<String> = json["placements"][0]["groups"][0]["refused"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r["every"].as_array().unwrap().clone())
            .map(|m| {
                assert!(!m["detail"].as_str().unwrap().is_empty());
                m["nodes"][0].as_str().unwrap().to_owned()
            })
            .collect();
        named.sort();
        named.dedup();
        let mut all: Vec<String> = request["nodes"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        all.sort();
        assert_eq!(named, all, "{sample}");
        assert_eq!(all.len(), nodes);
        let text = text_of(sample);
        for n in &all {
            let listed = text
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("{n}: ")));
            assert!(listed, "{sample}: {n} not listed in\n{text}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

fn sample_path(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("protocol-samples")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn a_directory_gets_one_file_per_run() {
    let dir = scratch("explain-dir");
    let sample = sample_path("allocate-drbd.json");
    let target = format!("--explain={}", dir.display());
    for _ in 0..2 {
        let out = hailstone(&[&sample, &target], None);
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("the folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 2, "{names:?}");
    for n in &names {
        assert!(n.ends_with("Z-allocate-new1.example.com.txt"), "{n}");
        let text = std::fs::read_to_string(dir.join(n)).expect("readable");
        assert!(
            text.starts_with("verdict: new1.example.com goes to ")
                && text.contains("\nhailstone explain: allocate request\n"),
            "{text}"
        );
    }
}

/// A path that does not exist and has no dot in its last name is a
/// directory too (`--explain=/var/log/ganeti/hailstone` before the first
/// run as master); `--explain-keep` keeps its newest files.
#[test]
fn a_new_path_without_a_dot_is_a_directory_and_old_files_go() {
    let dir = scratch("explain-keep");
    let sample = sample_path("allocate-drbd.json");
    let new = dir.join("hailstone");
    std::fs::create_dir_all(&dir).unwrap();
    let keep = |n: &str| {
        let out = hailstone(
            &[
                &sample,
                &format!("--explain={}", new.display()),
                &format!("--explain-keep={n}"),
            ],
            None,
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stderr.is_empty(), "{}", out.stderr);
    };
    std::fs::create_dir_all(&new).unwrap_or(());
    std::fs::remove_dir(&new).unwrap();
    for _ in 0..3 {
        keep("0");
    }
    let count = || std::fs::read_dir(&new).expect("made").count();
    assert_eq!(count(), 3);
    std::fs::write(new.join("notes"), "mine").unwrap();
    keep("2");
    assert_eq!(count(), 3, "the newest two and the operator's own file");
    assert!(new.join("notes").exists());
    // An option only hailstone has: a usage error.
    let out = hailstone(&[&sample, "--explain-keep=-1"], None);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("option --explain-keep: -1 is negative"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_path_ending_in_a_slash_is_a_directory_made_when_missing() {
    let dir = scratch("explain-new-dir");
    let sample = sample_path("allocate-drbd.json");
    let new = dir.join("log").join("hailstone");
    let target = format!("--explain={}/", new.display());
    for _ in 0..2 {
        let out = hailstone(&[&sample, &target], None);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stderr.is_empty(), "{}", out.stderr);
    }
    let names: Vec<_> = std::fs::read_dir(&new).expect("the new folder").collect();
    assert_eq!(names.len(), 2, "{names:?}");
    // A directory that cannot be made is a warning; the answer stays.
    let blocker = dir.join("file");
    std::fs::write(&blocker, "x").unwrap();
    let out = hailstone(
        &[&sample, &format!("--explain={}/sub/", blocker.display())],
        None,
    );
    assert_eq!(out.code, 0);
    assert!(
        out.stderr
            .contains("warning: cannot create the explanation directory"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.starts_with("{\"success\":true"));
}

#[test]
fn stderr_by_default_and_never_in_the_way_of_the_answer() {
    let sample = sample_path("allocate-plain.json");
    let out = hailstone(&[&sample, "--explain"], None);
    assert_eq!(out.code, 0);
    assert!(
        out.stderr.contains("winner:    node4.example.com"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.starts_with("{\"success\":true"));
    // An explanation that cannot be written is a warning; the answer stays.
    let out = hailstone(&[&sample, "--explain=/nonexistent/dir/e.txt"], None);
    assert_eq!(out.code, 0);
    assert!(
        out.stderr.contains("warning: cannot write the explanation"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.starts_with("{\"success\":true"));
}

#[test]
fn bad_explain_options() {
    let sample = sample_path("allocate-plain.json");
    let out = hailstone(&[&sample, "--explain-format=xml"], None);
    assert_eq!(out.code, 2);
    assert!(out.stdout.is_empty());
    assert!(
        out.stderr.contains("Invalid explanation format 'xml'"),
        "{}",
        out.stderr
    );
    let out = hailstone(&[&sample, "--explain="], None);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("option --explain: the path is empty"),
        "{}",
        out.stderr
    );
}

/// A generated one-group cluster of `nodes` nodes as a data file: ext
/// instances (for hailstone-squeeze) or the generator's default mix.
pub(crate) fn planner_cluster(dir: &Path, seed: u64, nodes: usize, ext: bool) -> String {
    use hailstone::program::hail::options::LoadOptions;
    use hailstone::shell::datafile;
    use hailstone_devtools::generate::{generate, CaseSpec, DiskTemplate, RequestKind};
    let mut spec = CaseSpec::new(seed, RequestKind::Allocate, nodes);
    spec.groups = 1;
    spec.instances_per_node = 5.0;
    if ext {
        spec.instance_templates = vec![(DiskTemplate::Ext, 1)];
    }
    let case = generate(&spec);
    let text = datafile::from_request(case.request.as_bytes(), &LoadOptions::default())
        .expect("a data file");
    let file = dir.join(format!("p{seed}-{nodes}-{ext}.data"));
    std::fs::write(&file, text).expect("written");
    file.display().to_string()
}

/// The planners' explanations, text and JSON, on two small generated
/// clusters, pinned by snapshots (`snapshots/explain_planners@*.snap`);
/// the plan on stdout is the same with them.
#[test]
fn planner_explanations() {
    let dir = scratch("explain-planners");
    let run = |bin: &str, args: &[&str]| {
        std::process::Command::new(bin)
            .args(args)
            .output()
            .expect("the planner runs")
    };
    let squeeze = env!("CARGO_BIN_EXE_hailstone-squeeze");
    let balance = env!("CARGO_BIN_EXE_hailstone-balance");
    let cases = [
        ("squeeze", squeeze, planner_cluster(&dir, 1, 8, true)),
        ("balance", balance, planner_cluster(&dir, 3, 8, false)),
    ];
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        for (name, bin, data) in &cases {
            let plain = run(bin, &["-t", data, "-C"]);
            assert_eq!(plain.status.code(), Some(0), "{name}");
            for format in ["text", "json"] {
                let f = format!("--explain-format={format}");
                let out = run(bin, &["-t", data, "-C", "--explain", &f]);
                assert_eq!(
                    out.stdout, plain.stdout,
                    "{name} {format}: the plan changed"
                );
                let e = String::from_utf8_lossy(&out.stderr).into_owned();
                if format == "json" {
                    let _: serde_json::Value =
                        serde_json::from_str(&e).unwrap_or_else(|err| panic!("{name}: {err}\n{e}"));
                }
                insta::assert_snapshot!(format!("explain_planners@{name}-{format}"), e);
            }
        }
        // hailstone-groups: a repair and a compression on a multi-group
        // cluster (docs/programs.md's example).
        let groups = env!("CARGO_BIN_EXE_hailstone-groups");
        let data = multi_group_cluster(&dir, 5, 8, 3);
        for (op, extra) in [("repair", None), ("compress", Some("--evacuate"))] {
            let mut args = vec![op, "-t", &data, "-C"];
            args.extend(extra);
            let plain = run(groups, &args);
            // No group of this cluster can be emptied: compress
            // --evacuate's findings (exit status 3).
            let status = if op == "compress" { 3 } else { 0 };
            assert_eq!(plain.status.code(), Some(status), "groups {op}");
            for format in ["text", "json"] {
                let f = format!("--explain-format={format}");
                let mut with = args.clone();
                with.extend(["--explain", &f]);
                let out = run(groups, &with);
                assert_eq!(
                    out.stdout, plain.stdout,
                    "groups {op} {format}: the plan changed"
                );
                let e = String::from_utf8_lossy(&out.stderr).into_owned();
                if format == "json" {
                    let _: serde_json::Value = serde_json::from_str(&e)
                        .unwrap_or_else(|err| panic!("groups {op}: {err}\n{e}"));
                }
                insta::assert_snapshot!(format!("explain_planners@groups-{op}-{format}"), e);
            }
        }
    });
}

/// The data file of the generator's multi-group cluster `seed`.
pub(crate) fn multi_group_cluster(dir: &Path, seed: u64, nodes: usize, groups: usize) -> String {
    use hailstone::program::hail::options::LoadOptions;
    use hailstone::shell::datafile;
    use hailstone_devtools::generate::{generate, CaseSpec};
    let case = generate(&CaseSpec::multi_group(seed, nodes, groups));
    let text = datafile::from_request(case.request.as_bytes(), &LoadOptions::default())
        .expect("a data file");
    let file = dir.join(format!("g{seed}-{nodes}-{groups}.data"));
    std::fs::write(&file, text).expect("written");
    file.display().to_string()
}
