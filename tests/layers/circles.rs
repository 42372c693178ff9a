//! The files of each stage use each other in no circle (issue 32): per
//! stage, the graph file → file from the `crate::stage::…`, `super::…` and
//! `self::…` paths of the code lines (the same lines as the layer test; a
//! path names the file of its longest prefix that is a module file, so
//! `crate::read::json::Value` is `read/json/mod.rs`), failing with every
//! cycle listed. A folder's `mod.rs` naming its children by bare paths
//! (`mod x; pub use x::Y;`) is the folder's own tree and not an edge. Test
//! files (`tests.rs`, files under a `tests/` folder) are left out, as
//! unit-test modules are. The development tools' crate (`devtools/src`) is
//! held to the same rule, as one folder.
//!
//! * Owns: the file graph, its circles (strongly connected sets) and the
//!   cycle written for each.
//! * May use: `source`'s reading of files, code lines and named paths.
//! * Must never: judge a use across stages (the layer table does).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::source::{code_lines, is_test_file, module_of, named_paths, rust_files};
use super::ALLOWED;

/// The file (by module path) a named path belongs to: its longest prefix
/// that is one of `files`.
fn file_of<'f>(path: &[String], files: &'f BTreeMap<Vec<String>, String>) -> Option<&'f String> {
    (1..=path.len()).rev().find_map(|n| files.get(&path[..n]))
}

/// The circles of a graph (file → files it uses): each strongly connected
/// set of two or more files, in a stable order.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    // Kosaraju: finishing order on the graph, then sets on its reverse.
    fn visit<'g>(
        n: &'g String,
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        seen: &mut BTreeSet<&'g String>,
        order: &mut Vec<&'g String>,
    ) {
        if !seen.insert(n) {
            return;
        }
        for m in graph.get(n).into_iter().flatten() {
            visit(m, graph, seen, order);
        }
        order.push(n);
    }
    let mut seen = BTreeSet::new();
    let mut order = Vec::new();
    for n in graph.keys() {
        visit(n, graph, &mut seen, &mut order);
    }
    let mut reverse: BTreeMap<&String, BTreeSet<&String>> = BTreeMap::new();
    for (a, bs) in graph {
        for b in bs {
            reverse.entry(b).or_default().insert(a);
        }
    }
    let mut assigned: BTreeSet<&String> = BTreeSet::new();
    let mut found = Vec::new();
    for &root in order.iter().rev() {
        if assigned.contains(root) {
            continue;
        }
        let mut set = BTreeSet::new();
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            if !assigned.insert(n) {
                continue;
            }
            set.insert(n.clone());
            for &m in reverse.get(n).into_iter().flatten() {
                if !assigned.contains(m) {
                    stack.push(m);
                }
            }
        }
        if set.len() > 1 {
            found.push(set);
        }
    }
    found.sort();
    found
}

/// A cycle through the first file of the strongly connected `set`
/// (`a → b → … → a`): the shortest way back to it (breadth first, inside
/// the set).
fn cycle_through(
    set: &BTreeSet<String>,
    graph: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<String> {
    let Some(start) = set.iter().next() else {
        return Vec::new();
    };
    let mut came_from: BTreeMap<&String, &String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(n) = queue.pop_front() {
        for m in graph.get(n).into_iter().flatten() {
            if !set.contains(m) {
                continue;
            }
            if m == start {
                // Back from `n` to the start, then turned around.
                let mut back = vec![n.clone()];
                let mut at = n;
                while let Some(&prev) = came_from.get(at) {
                    back.push(prev.clone());
                    at = prev;
                }
                back.reverse();
                back.push(start.clone());
                return back;
            }
            if !came_from.contains_key(m) && m != start {
                came_from.insert(m, n);
                queue.push_back(m);
            }
        }
    }
    set.iter().cloned().collect()
}

/// The graph file → files of one stage folder (`src/{stage}`), names
/// relative to `src/`, test files left out.
fn stage_graph(src: &Path, stage: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(&src.join(stage), &mut files);
    let mut modules: BTreeMap<Vec<String>, String> = BTreeMap::new();
    let mut texts = Vec::new();
    for file in files {
        let rel = file.strip_prefix(src).unwrap_or(&file).to_path_buf();
        if is_test_file(&rel) {
            continue;
        }
        let name = rel.display().to_string();
        modules.insert(module_of(&rel), name.clone());
        let text = std::fs::read_to_string(&file).expect("source is UTF-8");
        texts.push((name, module_of(&rel), text));
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, module, text) in &texts {
        let uses = graph.entry(name.clone()).or_default();
        for path in named_paths(&code_lines(text), module) {
            if let Some(target) = file_of(&path, &modules) {
                if target != name {
                    uses.insert(target.clone());
                }
            }
        }
    }
    graph
}

/// Each circle of `graph`, written `a → b → … → a` (and the other files
/// of its strongly connected set).
fn circle_lines(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut lines = Vec::new();
    for set in circles(graph) {
        let cycle = cycle_through(&set, graph);
        let others: Vec<&str> = set
            .iter()
            .filter(|f| !cycle.contains(f))
            .map(String::as_str)
            .collect();
        let mut line = cycle.join(" → ");
        if !others.is_empty() {
            line += &format!(" (the circle also takes in {})", others.join(", "));
        }
        lines.push(line);
    }
    lines
}

#[test]
fn no_circle_between_files_of_a_stage() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut circles_found = Vec::new();
    for (stage, _) in ALLOWED {
        circles_found.extend(circle_lines(&stage_graph(&src, stage)));
    }
    assert!(
        circles_found.is_empty(),
        "files of a stage that use each other (in a circle):\n{}",
        circles_found.join("\n")
    );
}

/// The development tools' crate (`devtools/src`, issue 60) is held to the
/// same rule as a stage: its files form no circle (its `crate::` paths are
/// the devtools crate's; its binaries name it `hailstone_devtools::` and
/// are leaves).
#[test]
fn no_circle_between_files_of_devtools() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("devtools/src");
    let graph = stage_graph(&src, "");
    // The graph sees the suites and what they share.
    assert!(graph["compat/balance.rs"].contains("oracle.rs"));
    let found = circle_lines(&graph);
    assert!(
        found.is_empty(),
        "files of devtools/src that use each other (in a circle):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_circle_checker_finds_circles() {
    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    // A chain and a diamond: no circle.
    assert!(circles(&graph(&[("a", "b"), ("b", "c"), ("a", "c"), ("c", "d")])).is_empty());
    // Two files that use each other, and a circle of three beside them,
    // one of which has a shortcut.
    let g = graph(&[
        ("loader", "merge"),
        ("merge", "loader"),
        ("x", "y"),
        ("y", "z"),
        ("z", "x"),
        ("x", "z"),
        ("z", "loader"),
    ]);
    let found = circles(&g);
    assert_eq!(
        found
            .iter()
            .map(|s| s.iter().map(String::as_str).collect::<Vec<_>>())
            .collect::<Vec<_>>(),
        vec![vec!["loader", "merge"], vec!["x", "y", "z"]]
    );
    assert_eq!(
        cycle_through(&found[0], &g),
        vec!["loader", "merge", "loader"]
    );
    assert_eq!(cycle_through(&found[1], &g), vec!["x", "z", "x"]);
    // Paths name files: crate paths by their longest file prefix, `super`
    // and `self` relative to the file, groups expanded, inline modules
    // followed.
    let module = vec!["read".to_owned(), "split".to_owned()];
    let code = [
        "use crate::read::json::{self, MemberSink, parser::Frame};",
        "use super::build::{build_node,",
        "    Unresolved};",
        "fn f() { self::g(); crate::model::X::new(); }",
        "mod processor {",
        "    use super::MIN_INPUT;",
        "}",
        "pub(super) fn h() {}",
    ];
    let named: Vec<String> = named_paths(&code, &module)
        .iter()
        .map(|p| p.join("::"))
        .collect();
    assert_eq!(
        named,
        vec![
            "read::json",
            "read::json::MemberSink",
            "read::json::parser::Frame",
            "model::X::new",
            "read::build::build_node",
            "read::build::Unresolved",
            "read::split::MIN_INPUT",
            "read::split::g",
        ]
    );
    let files: BTreeMap<Vec<String>, String> = [
        (vec!["read", "json"], "read/json/mod.rs"),
        (vec!["read", "json", "parser"], "read/json/parser/mod.rs"),
        (vec!["read", "build"], "read/build.rs"),
    ]
    .into_iter()
    .map(|(m, f)| (m.into_iter().map(str::to_owned).collect(), f.to_owned()))
    .collect();
    let path = |s: &str| s.split("::").map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(
        file_of(&path("read::json::parser::Frame"), &files).map(String::as_str),
        Some("read/json/parser/mod.rs")
    );
    assert_eq!(
        file_of(&path("read::json::Value"), &files).map(String::as_str),
        Some("read/json/mod.rs")
    );
    assert_eq!(file_of(&path("model::X"), &files), None);
    assert_eq!(
        module_of(Path::new("read/json/mod.rs")),
        vec!["read", "json"]
    );
    assert_eq!(
        module_of(Path::new("read/loader.rs")),
        vec!["read", "loader"]
    );
    assert!(is_test_file(Path::new("read/json/tests/numbers.rs")));
    assert!(is_test_file(Path::new("read/json/tests.rs")));
    assert!(!is_test_file(Path::new("read/json/scan.rs")));
}
