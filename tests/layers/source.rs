//! How the layer checks read `src/`: its Rust files in a stable order,
//! which of them are unit tests (`tests.rs`, files under a `tests/`
//! folder), a file's code lines (no comments, no `#[cfg(test)] mod … { … }`
//! block), the stages a line names through `crate::…`, and the paths a
//! file's code names through `crate::`, `super::` and `self::` (groups
//! expanded, renames skipped, inline modules followed), each from the
//! crate root.
//!
//! * Owns: the reading every check of `layers` shares, and its test
//!   (`the_checker_sees_paths_and_skips_tests`).
//! * May use: the files of `src/` and `devtools/src`, read as text.
//! * Must never: judge what it reads (the checks beside it do).

use std::path::{Path, PathBuf};

pub(super) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
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
pub(super) fn is_test_file(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "tests.rs")
        || path
            .parent()
            .is_some_and(|dir| dir.components().any(|c| c.as_os_str() == "tests"))
}

/// The code lines of a file: without comments and without test modules.
pub(super) fn code_lines(text: &str) -> Vec<&str> {
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
pub(super) fn crate_paths(line: &str) -> Vec<String> {
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

/// The code lines of a stage's files (unit tests left out), with each
/// file's path below `src/`.
pub(super) fn stage_code(stage: &str) -> Vec<(String, Vec<String>)> {
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
pub(super) fn module_of(rel: &Path) -> Vec<String> {
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

pub(super) fn is_ident_char(c: char) -> bool {
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
pub(super) fn named_paths(code: &[&str], module: &[String]) -> Vec<Vec<String>> {
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
