//! `write` turns the searches' outcomes into text and searches nothing
//! itself (issue 60): what its code names in `crate::search` is a type
//! declared in `src/search` (or one of an enum's variants), never a module
//! or a function (`write_names_only_search_types`).
//!
//! * Owns: the scan of the types `src/search` declares and the check of
//!   each path `write` names.
//! * May use: `source`'s reading of files, code lines and named paths.
//! * Must never: judge a stage other than `write`.

use std::collections::BTreeSet;
use std::path::Path;

use super::source::{code_lines, is_ident_char, is_test_file, module_of, named_paths, rust_files};

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
