//! The direction of dependencies between the stage folders of `src/`
//! (ARCHITECTURE.md, "Layers"): a lower stage never uses a higher one.
//!
//! The test reads every source file of a stage and collects the stages its
//! code names through `crate::…` paths (in `use` lines and in qualified
//! paths alike). Comments and `#[cfg(test)] mod … { … }` blocks are left
//! out: a unit test may load a request to test a search. A path that climbs
//! out of its folder with `super::super` is refused, so no dependency can
//! hide behind relative paths.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Each stage and the stages its code may use (besides itself).
const ALLOWED: &[(&str, &[&str])] = &[
    ("haskell", &[]),
    ("model", &["haskell"]),
    ("read", &["haskell", "model"]),
    ("score", &["model"]),
    // The writers read the searches' outcomes (and never search).
    ("write", &["haskell", "model", "search"]),
    ("search", &["haskell", "model", "score"]),
    ("explain", &["haskell", "model", "score", "search", "write"]),
    (
        "program",
        &[
            "explain", "haskell", "model", "read", "score", "search", "write",
        ],
    ),
    // The extra binaries (like `main.rs`) only call into `program`.
    ("bin", &["program"]),
];

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
            if file.file_name().is_some_and(|n| n == "tests.rs") {
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
