//! ARCHITECTURE.md's invariants that a reading of the source checks:
//!
//! * the allocator's core does no I/O: `program::hail::pipeline` and the
//!   stages below `shell` name no file, network, clock, environment or
//!   process call, the core uses no other part of `program` than the
//!   option record and nothing of `shell`, and every binary (the allocator's too) enters through
//!   `shell::exit::process` (the searches' thread count, which
//!   `src/threads.rs` reads once from `HAILSTONE_THREADS`, is not output:
//!   `tests/threads.rs`);
//! * no setting travels as a bare `bool`: a function another stage can
//!   call (`pub`, `pub(crate)`) takes no `bool` parameter but the values
//!   of the data listed in [`DATA_BOOLS`];
//! * the clock is read in `shell::clock` only, and only the files of
//!   [`CLOCK_USERS`] ask it.
//!
//! Comments, `#[cfg(test)]` items and unit-test files are left out, as
//! `tests/layers/` leaves them out.

use std::path::{Path, PathBuf};

/// The stages below `shell`: no I/O of any kind.
const PURE_STAGES: &[&str] = &[
    "haskell", "model", "read", "score", "search", "write", "explain",
];

/// What a line of code that does I/O names (files, sockets, processes,
/// the environment, the clock, the standard streams).
const IO_NAMES: &[&str] = &[
    "std::fs",
    "std::net",
    "std::os::unix::net",
    "std::process",
    "std::env",
    "stdin()",
    "stdout()",
    "stderr()",
    "print!",
    "println!",
    "eprint",
    "File::",
    "OpenOptions",
    "Command::",
    "SystemTime",
    "Instant",
    "thread::sleep",
    "curl",
];

/// What reads the clock.
const CLOCK_READS: &[&str] = &["SystemTime::now", "Instant::now", ".elapsed()"];

/// `shell::clock`'s functions that read it.
const CLOCK_ASKS: &[&str] = &[
    "clock::now(",
    "clock::monotonic(",
    "clock::since(",
    "clock::age(",
];

/// The files that ask `shell::clock` for the time, and what for.
const CLOCK_USERS: &[(&str, &str)] = &[
    ("program/hail/mod.rs", "--explain=DIR's file names"),
    (
        "shell/jobs.rs",
        "-X's reason trail stamp; waits between polls",
    ),
    (
        "program/repair/mod.rs",
        "harep's suspend:UNTIL tags, as harep reads them",
    ),
    ("program/roll/exec.rs", "-X's time limit for rebooted nodes"),
    (
        "program/shadow/planners.rs",
        "the shadow's folder names and durations",
    ),
    ("program/shadow/record.rs", "stale unfinished records"),
    (
        "program/shadow/recorder.rs",
        "the shadow's time limit, durations, record names",
    ),
    (
        "program/shadow/run.rs",
        "the primary's duration in the record",
    ),
];

/// The `bool` parameters of functions other stages can call that are
/// values of the data, not settings: `module::function(parameter)`.
const DATA_BOOLS: &[&str] = &[
    // An instance's or node's own flags.
    "model::instance::for_calculation(auto_balance)",
    "model::policy::check(excl_storage)",
    "model::policy::check_detail(excl_storage)",
    "model::policy::same_verdicts(excl_storage)",
    "score::argmin::replace(offline)",
    "score::metric::update(old_offline)",
    "score::metric::score_after_update(old_offline)",
    "write::balance::move_commands(running)",
    "model::cost::relocation_cost(running)",
    "write::opcodes::move_opcodes(forthcoming)",
    // A move off an offline primary (hail's `addSecExEx` force).
    "model::node::secondary::probe_add_sec(ignore_disks)",
    "model::node::secondary::check_add_sec(ignore_disks)",
    "model::node::secondary::add_sec(ignore_disks)",
    // hail's `force || condition`; whether a scan's approximations are
    // complete.
    "model::types::ignored_if(condition)",
    "score::argmin::new(exhaustive)",
    // Whether the cluster's nodes have spindles (exclusive storage).
    "write::report::space::usage(spindles)",
    "write::space::cluster(spindles)",
    "write::space::spec(spindles)",
    "write::space::standard(spindles)",
    "write::space::tiered(ini_spindles)",
    "write::space::tiered(fin_spindles)",
    // A search's finding, written.
    "write::check::cluster_stats(need_rebalance)",
    "write::check::document(need_rebalance)",
    "write::check::verdict(need_rebalance)",
    "write::document::operation_document(healthy)",
    "write::squeeze::jobs_comment(on)",
    // An opcode's own field.
    "write::opcodes::instance_tags_opcode(set)",
    "write::opcodes::node_offline_opcode(offline)",
    "write::opcodes::oob_power_opcode(on)",
];

/// Settings still passed as a `bool`, to be given an enum (none now; a
/// stale entry fails the test).
const PENDING: &[&str] = &[];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

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

/// The source files of `src/` (below `dir`, relative to `src/`) that are
/// not unit-test files, with their text.
fn sources(dir: &str) -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(&src().join(dir), &mut files);
    files
        .into_iter()
        .filter_map(|f| {
            let rel = f.strip_prefix(src()).ok()?.display().to_string();
            let test = rel.ends_with("/tests.rs") || rel.contains("/tests/");
            (!test).then(|| (rel, std::fs::read_to_string(&f).expect("UTF-8")))
        })
        .collect()
}

/// The code lines of a file, numbered from 1: no comment lines, no
/// `#[cfg(test)]` item (from the attribute to the end of the item: its
/// `;`, or the brace that closes its first one).
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.trim() == "#[cfg(test)]" {
            let (mut depth, mut opened) = (0i32, false);
            i += 1;
            'item: while i < lines.len() {
                let l = lines[i];
                i += 1;
                if l.trim_start().starts_with("//") {
                    continue;
                }
                for c in l.chars() {
                    match c {
                        '{' => (depth, opened) = (depth + 1, true),
                        '}' => depth -= 1,
                        ';' if !opened => break 'item,
                        _ => {}
                    }
                }
                if opened && depth == 0 {
                    break;
                }
            }
            continue;
        }
        if !line.trim_start().starts_with("//") {
            out.push((i + 1, line));
        }
        i += 1;
    }
    out
}

#[test]
fn the_allocators_core_and_the_stages_do_no_io() {
    let mut found = Vec::new();
    let mut files = vec![(
        "program/hail/pipeline.rs".to_owned(),
        std::fs::read_to_string(src().join("program/hail/pipeline.rs")).expect("the core"),
    )];
    for stage in PURE_STAGES {
        files.extend(sources(stage));
    }
    for (rel, text) in &files {
        for (n, line) in code_lines(text) {
            for name in IO_NAMES {
                if line.contains(name) {
                    found.push(format!("src/{rel}:{n}: {name}: {}", line.trim()));
                }
            }
            // The core takes the option record from `program`, nothing else.
            if rel.starts_with("program/")
                && (line.contains("crate::shell::")
                    || line.contains("crate::program::") && !line.contains("crate::program::cli::"))
            {
                found.push(format!("src/{rel}:{n}: uses the shell: {}", line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "I/O in the pure core:\n{}",
        found.join("\n")
    );
}

#[test]
fn every_binary_enters_through_shell_exit() {
    let mut files = vec![("main.rs".to_owned(), read_src("main.rs"))];
    files.extend(sources("bin"));
    let mut wrong = Vec::new();
    for (rel, text) in &files {
        let code: Vec<&str> = code_lines(text).into_iter().map(|(_, l)| l).collect();
        let code = code.join("\n");
        let fns = code.matches("fn ").count();
        if !code.contains("shell::exit::process") || fns != 1 {
            wrong.push(format!(
                "src/{rel}: not one main() handing over to shell::exit::process"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn read_src(rel: &str) -> String {
    std::fs::read_to_string(src().join(rel)).expect("source")
}

#[test]
fn the_fuzz_targets_call_the_pure_core() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let lib = std::fs::read_to_string(fuzz.join("src/lib.rs")).expect("fuzz lib");
    let datafile =
        std::fs::read_to_string(fuzz.join("fuzz_targets/datafile.rs")).expect("fuzz target");
    for text in [&lib, &datafile] {
        assert!(
            text.contains("pipeline::run("),
            "a fuzz target skips the core"
        );
        assert!(!text.contains("hail::main"), "a fuzz target runs the shell");
    }
}

#[test]
fn the_clock_is_read_in_one_place() {
    let mut found = Vec::new();
    for (rel, text) in sources("") {
        for (n, line) in code_lines(&text) {
            if rel != "shell/clock.rs" {
                for read in CLOCK_READS {
                    if line.contains(read) {
                        found.push(format!("src/{rel}:{n}: reads the clock: {}", line.trim()));
                    }
                }
            }
            let asks = CLOCK_ASKS.iter().any(|a| line.contains(a));
            if asks && !CLOCK_USERS.iter().any(|(f, _)| *f == rel) {
                found.push(format!("src/{rel}:{n}: asks the clock: {}", line.trim()));
            }
        }
    }
    for (file, _) in CLOCK_USERS {
        let text = read_src(file);
        let asks = code_lines(&text)
            .iter()
            .any(|(_, l)| CLOCK_ASKS.iter().any(|a| l.contains(a)));
        if !asks {
            found.push(format!("src/{file} is listed but never asks the clock"));
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// A file's module path below `src/`: `read/loader.rs` is `read::loader`,
/// `read/json/mod.rs` is `read::json`.
fn module_of(rel: &str) -> String {
    let stem = rel.strip_suffix(".rs").unwrap_or(rel);
    let stem = stem.strip_suffix("/mod").unwrap_or(stem);
    stem.replace('/', "::")
}

/// The index just after the bracket that closes the one at `open`
/// (`(`, `<`, `[` or `{`; an arrow `->` is not a bracket).
fn closing(text: &[u8], open: usize) -> usize {
    let mut depth = 0i32;
    let mut i = open;
    while i < text.len() {
        match text[i] {
            b'-' if text.get(i + 1) == Some(&b'>') => i += 1,
            b'(' | b'<' | b'[' | b'{' => depth += 1,
            b')' | b'>' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    text.len()
}

/// The parameters of `text`'s parameter list (without its parentheses),
/// split at the commas outside brackets.
fn parameters(list: &str) -> Vec<&str> {
    let b = list.as_bytes();
    let (mut out, mut depth, mut start, mut i) = (Vec::new(), 0i32, 0, 0);
    while i < b.len() {
        match b[i] {
            b'-' if b.get(i + 1) == Some(&b'>') => i += 1,
            b'(' | b'<' | b'[' | b'{' => depth += 1,
            b')' | b'>' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                out.push(list[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(list[start..].trim());
    out.retain(|p| !p.is_empty());
    out
}

/// `module::function(parameter)` for each `bool` parameter of a function
/// of `text` that other stages can call (`pub`, `pub(crate)`).
fn bool_parameters(rel: &str, text: &str) -> Vec<String> {
    let code: Vec<&str> = code_lines(text).into_iter().map(|(_, l)| l).collect();
    let code = code.join("\n");
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("fn ") {
        let at = from + at;
        from = at + 3;
        let line_start = code[..at].rfind('\n').map_or(0, |i| i + 1);
        let head = code[line_start..at].trim();
        let words: Vec<&str> = head.split_whitespace().collect();
        let exported = matches!(words.first(), Some(&"pub") | Some(&"pub(crate)"))
            && words[1..]
                .iter()
                .all(|w| matches!(*w, "const" | "unsafe" | "async" | "extern"));
        if !exported {
            continue;
        }
        let name: String = code[from..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let mut open = from + name.len();
        if bytes.get(open) == Some(&b'<') {
            open = closing(bytes, open);
        }
        if bytes.get(open) != Some(&b'(') {
            continue;
        }
        let close = closing(bytes, open);
        for p in parameters(&code[open + 1..close - 1]) {
            if let Some((pattern, ty)) = p.split_once(':') {
                if ty.trim() == "bool" {
                    let pattern = pattern.trim().trim_start_matches("mut ").trim();
                    found.push(format!("{}::{name}({pattern})", module_of(rel)));
                }
            }
        }
    }
    found
}

#[test]
fn no_setting_travels_as_a_bare_bool() {
    let mut settings = Vec::new();
    let mut seen = Vec::new();
    for (rel, text) in sources("") {
        for found in bool_parameters(&rel, &text) {
            if DATA_BOOLS.contains(&found.as_str()) || PENDING.contains(&found.as_str()) {
                seen.push(found);
            } else {
                settings.push(format!("src/{rel}: {found}"));
            }
        }
    }
    let stale: Vec<&&str> = DATA_BOOLS
        .iter()
        .chain(PENDING)
        .filter(|d| !seen.iter().any(|s| s == *d))
        .collect();
    assert!(
        settings.is_empty() && stale.is_empty(),
        "bool parameters that are not values of the data (give the setting \
         an enum or a field of its stage's settings):\n{}\nlisted in \
         DATA_BOOLS but not found: {stale:?}",
        settings.join("\n")
    );
}

#[test]
fn the_readers_see_what_they_check() {
    let text = "pub fn a(x: bool, f: impl Fn(u8) -> bool, mut y: bool) {}\n\
                #[cfg(test)]\n/// doc\npub fn b(z: bool) {}\n\
                pub(super) fn c(w: bool) {}\npub(crate) fn d<T: Into<u8>>(\n    v: bool,\n) {}\n\
                // pub fn e(u: bool)\n";
    assert_eq!(
        bool_parameters("write/x.rs", text),
        vec!["write::x::a(x)", "write::x::a(y)", "write::x::d(v)"]
    );
    let lines: Vec<&str> = code_lines("a\n#[cfg(test)]\nmod tests {\n    b\n}\nc\n")
        .into_iter()
        .map(|(_, l)| l)
        .collect();
    assert_eq!(lines, vec!["a", "c"]);
}
