//! The direction of dependencies between the stage folders of `src/`
//! (ARCHITECTURE.md, "Layers"): a lower stage never uses a higher one.
//!
//! The test reads every source file of a stage and collects the stages its
//! code names through `crate::…` paths (in `use` lines and in qualified
//! paths alike). Comments and `#[cfg(test)] mod … { … }` blocks are left
//! out: a unit test may load a request to test a search. A path that climbs
//! out of its folder with `super::super` is refused, so no dependency can
//! hide behind relative paths.
//!
//! A second test keeps the files of each stage free of circles (issue 32):
//! it builds, per stage, the graph file → file from the `crate::stage::…`,
//! `super::…` and `self::…` paths of the code lines (the same lines as the
//! first test; a path names the file of its longest prefix that is a
//! module file, so `crate::read::json::Value` is `read/json/mod.rs`) and
//! fails listing every cycle. A folder's `mod.rs` naming its children by
//! bare paths (`mod x; pub use x::Y;`) is the folder's own tree and not an
//! edge. Test files (`tests.rs`, files under a `tests/` folder) are left
//! out, as unit-test modules are. A third holds the development tools'
//! crate (`devtools/src`) to the same rule, as one folder.
//!
//! Three more look at names (issue 60): `write` names only types of the
//! searches, never a module or a function (`write_names_only_search_types`),
//! the searches build no text but the originals' own messages, in the
//! files listed (`searches_build_no_text`), and the shell, below the
//! programs, names only their settings (`program::cli`), which name no
//! part of the shell (`shell_uses_only_the_settings_of_program`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each stage and the stages its code may use (besides itself).
const ALLOWED: &[(&str, &[&str])] = &[
    ("haskell", &[]),
    ("model", &["haskell"]),
    ("read", &["haskell", "model", "threads"]),
    ("score", &["model"]),
    // The writers read the searches' outcomes (and never search).
    ("write", &["haskell", "model", "search"]),
    ("search", &["haskell", "model", "score", "threads"]),
    ("explain", &["haskell", "model", "score", "search", "write"]),
    // The suite's one I/O shell: every stage below the programs, and of
    // `program` only the settings its command line reads (`program::cli`:
    // `shell_uses_only_the_settings_of_program`).
    (
        "shell",
        &[
            "explain", "haskell", "model", "program", "read", "score", "search", "threads", "write",
        ],
    ),
    (
        "program",
        &[
            "explain", "haskell", "model", "read", "score", "search", "shell", "threads", "write",
        ],
    ),
    // The extra binaries (like `main.rs`) only call into `program` and
    // the shell's process entry.
    // (`threads.rs`, the thread count, is a file of src/ that uses no
    // stage: see `ROOT_FILES`.)
    ("bin", &["program", "shell"]),
];

/// The one part of `program` the shell may use: the settings record and
/// the command line's own texts (`Options`, `ExplainTo`, `see_help`).
const SHELL_USES_OF_PROGRAM: &str = "program::cli";

/// The files directly in `src/` that stages may use: they use no stage.
const ROOT_FILES: &[&str] = &["threads.rs"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// Whether `path` (relative to `src/`) is a unit-test file: `tests.rs`,
/// or a file under a `tests/` folder (a test module split by topic).
fn is_test_file(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "tests.rs")
        || path
            .parent()
            .is_some_and(|dir| dir.components().any(|c| c.as_os_str() == "tests"))
}

/// The code lines of a file: without comments and without test modules.
fn code_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut iter = text.lines().peekable();
    while let Some(line) = iter.next() {
        if line.trim() == "#[cfg(test)]" {
            if let Some(next) = iter.peek() {
                if next.trim_start().starts_with("mod ") && next.trim_end().ends_with('{') {
                    // Skip to the module's closing brace at the same indent.
                    let indent = next.len() - next.trim_start().len();
                    let close = format!("{}}}", " ".repeat(indent));
                    for l in iter.by_ref() {
                        if l == close {
                            break;
                        }
                    }
                    continue;
                }
            }
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") {
            continue;
        }
        lines.push(line);
    }
    lines
}

/// The top-level modules named by `crate::NAME` paths in `line`.
fn crate_paths(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        let after = &rest[i + "crate::".len()..];
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        // `hailstone_devtools::` or `mycrate::` are other crates.
        if !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') && !name.is_empty() {
            found.push(name);
        }
        rest = after;
    }
    found
}

#[test]
fn lower_stages_never_use_higher_ones() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut violations = Vec::new();
    let mut seen_stages = BTreeSet::new();
    for (stage, allowed) in ALLOWED {
        let dir = src.join(stage);
        assert!(dir.is_dir(), "stage folder src/{stage} is missing");
        seen_stages.insert(stage.to_string());
        let mut files = Vec::new();
        rust_files(&dir, &mut files);
        for file in files {
            if is_test_file(file.strip_prefix(&src).unwrap_or(&file)) {
                continue;
            }
            let text = std::fs::read_to_string(&file).expect("source is UTF-8");
            let rel = file
                .strip_prefix(&src)
                .unwrap_or(&file)
                .display()
                .to_string();
            for line in code_lines(&text) {
                if line.contains("super::super") {
                    violations.push(format!("{rel}: climbs out of its folder: {}", line.trim()));
                }
                for used in crate_paths(line) {
                    if used != *stage && !allowed.contains(&used.as_str()) {
                        violations.push(format!("src/{rel}: {stage} uses {used}: {}", line.trim()));
                    }
                }
            }
        }
    }
    for file in ROOT_FILES {
        let text = std::fs::read_to_string(src.join(file)).expect("root file is UTF-8");
        for line in code_lines(&text) {
            for used in crate_paths(line) {
                violations.push(format!("src/{file} uses {used}: {}", line.trim()));
            }
        }
    }
    // Every folder of src/ is a stage with rules.
    for entry in std::fs::read_dir(&src).expect("src/") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            assert!(
                seen_stages.contains(&name),
                "src/{name} is not in the layer table of tests/layers.rs"
            );
        }
    }
    assert!(
        violations.is_empty(),
        "dependencies against the layer order:\n{}",
        violations.join("\n")
    );
}

/// The code lines of a stage's files (unit tests left out), with each
/// file's path below `src/`.
fn stage_code(stage: &str) -> Vec<(String, Vec<String>)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src.join(stage), &mut files);
    files
        .into_iter()
        .filter(|f| !is_test_file(f.strip_prefix(&src).unwrap_or(f)))
        .map(|f| {
            let text = std::fs::read_to_string(&f).expect("source is UTF-8");
            let rel = f.strip_prefix(&src).unwrap_or(&f).display().to_string();
            let lines = code_lines(&text).into_iter().map(str::to_owned).collect();
            (rel, lines)
        })
        .collect()
}

/// The shell sits below the programs: of `program` it names only
/// `program::cli` (the settings it is handed), and `program::cli` names
/// no part of the shell, so the two folders make no circle.
#[test]
fn shell_uses_only_the_settings_of_program() {
    let mut wrong = Vec::new();
    for (rel, lines) in stage_code("shell") {
        for line in &lines {
            let mut rest = line.as_str();
            while let Some(i) = rest.find("crate::program") {
                let after = &rest[i + "crate::".len()..];
                if !after.starts_with(SHELL_USES_OF_PROGRAM)
                    || after[SHELL_USES_OF_PROGRAM.len()..].starts_with(is_ident_char)
                {
                    wrong.push(format!("src/{rel}: shell uses a program: {}", line.trim()));
                }
                rest = after;
            }
        }
    }
    for (rel, lines) in stage_code("program/cli") {
        for line in &lines {
            if line.contains("crate::shell") {
                wrong.push(format!(
                    "src/{rel}: the command line uses the shell: {}",
                    line.trim()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_checker_sees_paths_and_skips_tests() {
    assert_eq!(
        crate_paths("use crate::search::state::{Crash, State};"),
        vec!["search"]
    );
    assert_eq!(
        crate_paths("let x = crate::score::metric::f(crate::model::X);"),
        vec!["score", "model"]
    );
    assert!(crate_paths("use hailstone_devtools::generate;").is_empty());
    let text = "use crate::model::X;\n// crate::program in a comment\n#[cfg(test)]\nmod tests {\n    use crate::program::hail;\n}\nfn after() { crate::read::f() }\n";
    let lines = code_lines(text);
    assert_eq!(
        lines,
        vec!["use crate::model::X;", "fn after() { crate::read::f() }"]
    );
}

/// A file's module path below `src/`: `read/loader.rs` is
/// `["read", "loader"]`, `read/json/mod.rs` is `["read", "json"]`.
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().to_string())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.strip_suffix(".rs").unwrap_or(&last).to_owned();
        if stem != "mod" {
            parts.push(stem);
        }
    }
    parts
}

/// How many bytes of whitespace `text` starts with.
fn blank_len(text: &str) -> usize {
    text.len() - text.trim_start().len()
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Reads a path's continuation at the start of `text` (what follows a
/// `crate::`, `super::` or `self::`): `a::b::c`, with `{…, …}` groups
/// expanded. Each path is appended to `prefix` and pushed to `out`
/// (`self` in a group is the prefix itself; further `super` segments
/// climb). Returns how many bytes were read.
fn read_path(text: &str, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
    let mut path = prefix.to_vec();
    let mut pos = 0;
    loop {
        let skipped = blank_len(&text[pos..]);
        let rest = &text[pos + skipped..];
        if rest.starts_with('{') {
            // A group: comma-separated paths up to the matching brace.
            let mut at = pos + skipped + 1;
            loop {
                at += blank_len(&text[at..]);
                let inner = &text[at..];
                if inner.is_empty() {
                    return at;
                }
                if inner.starts_with('}') {
                    return at + 1;
                }
                at += read_path(inner, &path, out).max(1);
                at += blank_len(&text[at..]);
                if text[at..].starts_with(',') {
                    at += 1;
                }
            }
        }
        let name: String = rest.chars().take_while(|&c| is_ident_char(c)).collect();
        if name.is_empty() {
            out.push(path);
            return pos + skipped;
        }
        match name.as_str() {
            "self" => {}
            "super" => {
                path.pop();
            }
            _ => path.push(name.clone()),
        }
        pos += skipped + name.len();
        if text[pos..].starts_with("::") {
            pos += 2;
        } else {
            out.push(path);
            return pos + rename_len(&text[pos..]);
        }
    }
}

/// How many bytes a `use` rename (` as name`) at the start of `text`
/// takes (0 when there is none).
fn rename_len(text: &str) -> usize {
    let skipped = blank_len(text);
    let Some(rest) = text[skipped..].strip_prefix("as") else {
        return 0;
    };
    let gap = blank_len(rest);
    let name = rest[gap..]
        .chars()
        .take_while(|&c| is_ident_char(c))
        .count();
    if gap == 0 || name == 0 {
        return 0;
    }
    skipped + 2 + gap + name
}

/// The module paths that `code` (a file's code lines, joined) names
/// through `crate::`, `super::` and `self::` paths, each as a full path
/// from the crate root (items included: the caller takes the longest
/// prefix that is a file). `module` is the file's module path; inline
/// `mod name { … }` blocks are followed, so that their `super` is the
/// file itself.
fn named_paths(code: &[&str], module: &[String]) -> Vec<Vec<String>> {
    let joined = code.join("\n");
    // Each line's start in `joined` and the inline modules open there.
    let mut line_modules: Vec<(usize, Vec<String>)> = Vec::new();
    let mut open: Vec<(String, String)> = Vec::new(); // (closing line, name)
    let mut at = 0;
    for line in code {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        if open.last().is_some_and(|(close, _)| close == line) {
            open.pop();
        }
        let decl = trimmed
            .strip_prefix("pub(crate) ")
            .or_else(|| trimmed.strip_prefix("pub(super) "))
            .or_else(|| trimmed.strip_prefix("pub "))
            .unwrap_or(trimmed);
        let mut inner = module.to_vec();
        inner.extend(open.iter().map(|(_, n)| n.clone()));
        line_modules.push((at, inner));
        if let Some(name) = decl
            .strip_prefix("mod ")
            .and_then(|r| r.trim_end().strip_suffix('{'))
        {
            open.push((format!("{indent}}}"), name.trim().to_owned()));
        }
        at += line.len() + 1;
    }
    let mut out = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(i) = joined[from..].find(start) {
            let i = from + i;
            from = i + start.len();
            let before = joined[..i].chars().last();
            if before.is_some_and(|c| is_ident_char(c) || c == '$') {
                continue;
            }
            let line = line_modules.partition_point(|(s, _)| *s <= i);
            let here = line_modules
                .get(line.saturating_sub(1))
                .map_or(module.to_vec(), |(_, m)| m.clone());
            let prefix: Vec<String> = match start {
                "crate::" => Vec::new(),
                "super::" => here[..here.len().saturating_sub(1)].to_vec(),
                _ => here,
            };
            read_path(&joined[from..], &prefix, &mut out);
        }
    }
    out
}

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

/// The type names declared in the files of `src/{stage}` (structs, enums,
/// type aliases and traits, public or not), test modules left out.
fn declared_types(src: &Path, stage: &str) -> BTreeSet<String> {
    let mut files = Vec::new();
    rust_files(&src.join(stage), &mut files);
    let mut types = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("source is UTF-8");
        for line in code_lines(&text) {
            let mut decl = line.trim_start();
            for vis in ["pub(crate) ", "pub(super) ", "pub "] {
                decl = decl.strip_prefix(vis).unwrap_or(decl);
            }
            for kind in ["struct ", "enum ", "type ", "trait "] {
                if let Some(rest) = decl.strip_prefix(kind) {
                    let name: String = rest.chars().take_while(|&c| is_ident_char(c)).collect();
                    types.insert(name);
                }
            }
        }
    }
    types
}

/// What is wrong with `path` (from the crate root, `search::…`) as a name
/// that `write` uses: it must name a type of the search (`types`), or one
/// of an enum's variants; a module or a function is refused. `None` when
/// it is such a type.
fn not_a_search_type(path: &[String], types: &BTreeSet<String>) -> Option<String> {
    let upper = |seg: &String| seg.starts_with(|c: char| c.is_ascii_uppercase());
    let Some(at) = path.iter().position(upper) else {
        return Some("a module or a function (no type)".to_owned());
    };
    if !types.contains(&path[at]) {
        return Some(format!(
            "{}, which is no type declared in src/search",
            path[at]
        ));
    }
    path[at + 1..]
        .iter()
        .find(|seg| !upper(seg))
        .map(|item| format!("{}::{item}, a function of a type", path[at]))
}

/// `write` turns the searches' outcomes into text and searches nothing
/// itself: what its code names in `crate::search` (in `use` lines, groups
/// expanded, and in qualified paths) is a type, never a module or a
/// function (issue 60). A helper both need is the model's.
#[test]
fn write_names_only_search_types() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let types = declared_types(&src, "search");
    // The scan sees the search's outcome types.
    assert!(types.contains("Relocation") && types.contains("Placement"));
    let mut files = Vec::new();
    rust_files(&src.join("write"), &mut files);
    let mut violations = Vec::new();
    let mut named = 0;
    for file in files {
        let rel = file.strip_prefix(&src).unwrap_or(&file).to_path_buf();
        if is_test_file(&rel) {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("source is UTF-8");
        for path in named_paths(&code_lines(&text), &module_of(&rel)) {
            if path.first().is_some_and(|s| s == "search") {
                named += 1;
                if let Some(what) = not_a_search_type(&path, &types) {
                    violations.push(format!(
                        "src/{}: crate::{} names {what}",
                        rel.display(),
                        path.join("::")
                    ));
                }
            }
        }
    }
    assert!(named > 0, "the scan finds write's search types");
    assert!(
        violations.is_empty(),
        "write names search items other than types:\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_name_checker_refuses_functions_and_modules() {
    let types: BTreeSet<String> = ["ClusterStats", "AllocInfo", "Action"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    let code = [
        "use crate::search::space::stats::{allocation_delta, AllocInfo,",
        "    ClusterStats as Stats};",
        "use crate::search::reboot::{self, Action};",
        "fn f(a: crate::search::reboot::Action) -> bool {",
        "    a == crate::search::reboot::Action::Resync",
        "        && crate::search::space::spec_of(&x).cpu > 0",
        "        && crate::search::space::stats::ClusterStats::of(n, 0.0).fmem > 0",
        "}",
    ];
    let module = vec!["write".to_owned(), "space".to_owned()];
    let refused: Vec<String> = named_paths(&code, &module)
        .iter()
        .filter(|p| not_a_search_type(p, &types).is_some())
        .map(|p| p.join("::"))
        .collect();
    assert_eq!(
        refused,
        vec![
            "search::space::stats::allocation_delta",
            "search::reboot",
            "search::space::spec_of",
            "search::space::stats::ClusterStats::of",
        ]
    );
    assert!(not_a_search_type(&["search".into(), "x".into(), "Missing".into()], &types).is_some());
}

/// The files of `src/search` that build text, and what it is: the
/// originals' own messages, which the answers and outputs carry as the
/// originals print them. Any other search returns typed reasons, and
/// `write` (or `explain`) says them.
const SEARCH_TEXT_FILES: &[(&str, &str)] = &[
    (
        "search/allocate/groups.rs",
        "hail's group log and failures (`tryMGAlloc`, `findBestAllocGroup`)",
    ),
    ("search/allocate/mod.rs", "hail's `Bad` texts of `tryAlloc`"),
    (
        "search/allocate/secondary.rs",
        "hail's `allocateSecondary` refusal",
    ),
    (
        "search/dedicated.rs",
        "hail's log and failures on exclusive storage",
    ),
    (
        "search/solution.rs",
        "hail's allocation summary and failure reasons (`describeSolution`)",
    ),
    (
        "search/request.rs",
        "the answer's refusal of inconsistent data",
    ),
    (
        "search/evacuate/drbd_all.rs",
        "hail's `nodeEvacInstance` failures",
    ),
    (
        "search/evacuate/node_evac.rs",
        "hail's `nodeEvacInstance` failures",
    ),
    (
        "search/evacuate/one_node.rs",
        "hail's `evacOneNodeOnly` failures",
    ),
    (
        "search/evacuate/relocation.rs",
        "hail's `processRelocate` failures",
    ),
    (
        "search/evacuate/elsewhere.rs",
        "node-evacuate's failure across groups, hail's two messages joined",
    ),
    (
        "search/balance/group.rs",
        "hbal's `Bad FailDisk` of its verbose listing",
    ),
    (
        "search/repair.rs",
        "harep's tags, state names and `Bad` texts",
    ),
    (
        "search/space/mod.rs",
        "hspace's names of the instances it places (`new-N`)",
    ),
];

/// Where code builds text outside assertions and internal errors:
/// `(line, what)` for every string literal holding a word and a space,
/// and every text macro (`format!`, `write!`, ...), unless it is inside
/// an `assert!`-like macro, `panic!`, `unreachable!`, `.expect(…)` or a
/// `Crash(…)` (hail's crash, an internal error). `lines` are the code
/// lines with their 1-based numbers in the file.
fn text_built(lines: &[(usize, &str)]) -> Vec<(usize, String)> {
    const EXEMPT: &[&str] = &[
        "assert!",
        "assert_eq!",
        "assert_ne!",
        "debug_assert!",
        "debug_assert_eq!",
        "debug_assert_ne!",
        "panic!",
        "unreachable!",
        "todo!",
        "expect",
        "Crash",
    ];
    const TEXT_MACROS: &[&str] = &[
        "format!",
        "format_args!",
        "write!",
        "writeln!",
        "print!",
        "println!",
        "eprint!",
        "eprintln!",
    ];
    let mut found = Vec::new();
    // The callee of each open bracket (empty for `[`, `{` and groups).
    let mut open: Vec<String> = Vec::new();
    // Whether a string literal runs on from the line before: its text so
    // far, its first line and its closing (`"` or `"#…`).
    let mut literal: Option<(String, usize, String)> = None;
    for &(number, line) in lines {
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        let exempt = |open: &[String]| open.iter().any(|c| EXEMPT.contains(&c.as_str()));
        let end_literal = |text: String,
                           at: usize,
                           open: &[String],
                           found: &mut Vec<(usize, String)>| {
            if text.contains(' ') && text.chars().any(|c| c.is_ascii_alphabetic()) && !exempt(open)
            {
                found.push((at, format!("\"{text}\"")));
            }
        };
        while i < chars.len() {
            if let Some((text, at, close)) = literal.as_mut() {
                let rest: String = chars[i..].iter().collect();
                if close == "\"" && chars[i] == '\\' {
                    text.extend(chars[i..(i + 2).min(chars.len())].iter());
                    i += 2;
                } else if rest.starts_with(close.as_str()) {
                    i += close.chars().count();
                    let (text, at) = (std::mem::take(text), *at);
                    literal = None;
                    end_literal(text, at, &open, &mut found);
                } else {
                    text.push(chars[i]);
                    i += 1;
                }
                continue;
            }
            let c = chars[i];
            let before = i.checked_sub(1).map(|j| chars[j]);
            let word_before = before.is_some_and(is_ident_char);
            if c == '/' && chars.get(i + 1) == Some(&'/') {
                break;
            }
            if c == '\'' {
                // A character literal ('x', '\n', '"') or a lifetime.
                if chars.get(i + 1) == Some(&'\\') {
                    i += 2;
                    while i < chars.len() && chars[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                } else if chars.get(i + 2) == Some(&'\'') {
                    i += 3;
                } else {
                    i += 1;
                }
                continue;
            }
            // A string literal: "…", r"…", r#"…"#, b"…".
            let mut j = i;
            if !word_before && (c == 'b' || c == 'r') {
                if chars.get(j) == Some(&'b') {
                    j += 1;
                }
                let raw = chars.get(j) == Some(&'r');
                if raw {
                    j += 1;
                }
                let hashes = chars[j..].iter().take_while(|&&h| h == '#').count();
                if chars.get(j + hashes) == Some(&'"') && (raw || hashes == 0) && j > i {
                    let close = format!("\"{}", "#".repeat(hashes));
                    literal = Some((String::new(), number, if raw { close } else { "\"".into() }));
                    i = j + hashes + 1;
                    continue;
                }
            }
            if c == '"' {
                literal = Some((String::new(), number, "\"".into()));
                i += 1;
                continue;
            }
            match c {
                '(' => {
                    // The callee: the word before, with a macro's `!`.
                    let head: String = chars[..i].iter().collect();
                    let head = head.trim_end();
                    let bang = head.ends_with('!');
                    let head = head.trim_end_matches('!');
                    let name: String = head
                        .chars()
                        .rev()
                        .take_while(|&ch| is_ident_char(ch))
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect();
                    let callee = if bang { format!("{name}!") } else { name };
                    if TEXT_MACROS.contains(&callee.as_str()) && !exempt(&open) {
                        found.push((number, callee.clone()));
                    }
                    open.push(callee);
                }
                '[' | '{' => open.push(String::new()),
                ')' | ']' | '}' => {
                    open.pop();
                }
                _ => {}
            }
            i += 1;
        }
        if let Some((text, _, _)) = literal.as_mut() {
            text.push('\n');
        }
    }
    found
}

/// The code lines of a file with their numbers (as [`code_lines`]).
fn numbered_code_lines(text: &str) -> Vec<(usize, &str)> {
    let code = code_lines(text);
    let mut numbered = Vec::new();
    let mut next = 0;
    for (n, line) in text.lines().enumerate() {
        if code.get(next).is_some_and(|c| std::ptr::eq(*c, line)) {
            numbered.push((n + 1, line));
            next += 1;
        }
    }
    numbered
}

/// A search returns typed outcomes and reasons (a group's `Status`, why an
/// instance `NoGroup`, a reboot's `Obstacle`, an evacuation's `Departure`),
/// and `write` or `explain` puts them into words; the one text a search
/// builds is the originals' own, in the files of [`SEARCH_TEXT_FILES`]
/// (issue 60). Assertions and internal errors (`Crash`) keep their words.
#[test]
fn searches_build_no_text() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src.join("search"), &mut files);
    let mut violations = Vec::new();
    let mut listed_with_text = BTreeSet::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap_or(&file).to_path_buf();
        if is_test_file(&rel) {
            continue;
        }
        let name = rel.display().to_string();
        let text = std::fs::read_to_string(&file).expect("source is UTF-8");
        let built = text_built(&numbered_code_lines(&text));
        if SEARCH_TEXT_FILES.iter().any(|(f, _)| *f == name) {
            if !built.is_empty() {
                listed_with_text.insert(name);
            }
            continue;
        }
        for (line, what) in built {
            violations.push(format!("src/{name}:{line}: {what}"));
        }
    }
    assert!(
        violations.is_empty(),
        "searches that build text (return a typed reason and word it in write):\n{}",
        violations.join("\n")
    );
    // Every file listed still builds the originals' text.
    for (file, what) in SEARCH_TEXT_FILES {
        assert!(
            listed_with_text.contains(*file),
            "src/{file} is listed for {what} but builds no text (or is gone)"
        );
    }
}

#[test]
fn the_text_checker_sees_sentences_and_macros() {
    let code = "fn f() -> Result<(), Unsafe> {\n\
        \x20   let ok = '\"'; // \"a comment with words\"\n\
        \x20   debug_assert!(x, \"the {} bound\", y);\n\
        \x20   let c = state.inst(k).expect(\"an instance here\");\n\
        \x20   Crash(format!(\"node index {k} is not in the list\"));\n\
        \x20   let sep = \", \";\n\
        \x20   let p = r#\"raw \"quoted\" words\"#;\n\
        \x20   let name = format!(\"new-{}\", n);\n\
        \x20   Err(unsafe_(\n\
        \x20       \"its primary and secondary nodes are both in the group\".to_owned(),\n\
        \x20   ))\n\
        }\n";
    let lines = numbered_code_lines(code);
    let found: Vec<(usize, String)> = text_built(&lines);
    assert_eq!(
        found,
        vec![
            (7, "\"raw \"quoted\" words\"".to_owned()),
            (8, "format!".to_owned()),
            (
                10,
                "\"its primary and secondary nodes are both in the group\"".to_owned()
            ),
        ]
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
