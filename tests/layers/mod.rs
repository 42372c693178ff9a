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
//! A second test keeps the files of each stage free of circles (issue 32,
//! `circles`), and a third holds the development tools' crate
//! (`devtools/src`) to the same rule, as one folder.
//!
//! Three more look at names (issue 60): `write` names only types of the
//! searches, never a module or a function (`write_names_only_search_types`,
//! in `names`), the searches build no text but the originals' own
//! messages, in the files listed (`searches_build_no_text`, in `text`),
//! and the shell, below the programs, names only their settings
//! (`program::cli`), which name no part of the shell
//! (`shell_uses_only_the_settings_of_program`).
//!
//! * Owns: the layer table ([`ALLOWED`]) and the two rules between stages
//!   (`lower_stages_never_use_higher_ones`,
//!   `shell_uses_only_the_settings_of_program`); one check a file beside
//!   it: `circles`, `names`, `text`, on `source` (how every check reads
//!   `src/`).
//! * May use: the files of `src/` and `devtools/src`, read as text.
//! * Must never: build or run the crate; a check reads the source only.

mod circles;
mod names;
mod source;
mod text;

use std::collections::BTreeSet;
use std::path::Path;

use source::{code_lines, crate_paths, is_ident_char, is_test_file, rust_files, stage_code};

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
                "src/{name} is not in the layer table of tests/layers/mod.rs"
            );
        }
    }
    assert!(
        violations.is_empty(),
        "dependencies against the layer order:\n{}",
        violations.join("\n")
    );
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
