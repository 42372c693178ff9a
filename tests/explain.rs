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
            let file = dir.join("explanation");
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
            text.starts_with("hailstone explain: allocate request\n"),
            "{text}"
        );
    }
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
    assert_eq!(out.code, 1);
    assert!(out.stdout.is_empty());
    assert!(
        out.stderr.contains("Invalid explanation format 'xml'"),
        "{}",
        out.stderr
    );
    let out = hailstone(&[&sample, "--explain="], None);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("--explain: the path is empty"),
        "{}",
        out.stderr
    );
}

/// A generated one-group cluster of `nodes` nodes as a data file: ext
/// instances (for hailstone-squeeze) or the generator's default mix.
fn planner_cluster(dir: &Path, seed: u64, nodes: usize, ext: bool) -> String {
    use hailstone::program::datafile;
    use hailstone::program::hail::options::LoadOptions;
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
        // cluster (the README's example).
        let groups = env!("CARGO_BIN_EXE_hailstone-groups");
        let data = multi_group_cluster(&dir, 5, 8, 3);
        for (op, extra) in [("repair", None), ("compress", Some("--evacuate"))] {
            let mut args = vec![op, "-t", &data, "-C"];
            args.extend(extra);
            let plain = run(groups, &args);
            assert_eq!(plain.status.code(), Some(0), "groups {op}");
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
fn multi_group_cluster(dir: &Path, seed: u64, nodes: usize, groups: usize) -> String {
    use hailstone::program::datafile;
    use hailstone::program::hail::options::LoadOptions;
    use hailstone_devtools::generate::{generate, CaseSpec};
    let case = generate(&CaseSpec::multi_group(seed, nodes, groups));
    let text = datafile::from_request(case.request.as_bytes(), &LoadOptions::default())
        .expect("a data file");
    let file = dir.join(format!("g{seed}-{nodes}-{groups}.data"));
    std::fs::write(&file, text).expect("written");
    file.display().to_string()
}
