//! The searches build no text but the originals' own messages, in the
//! files listed ([`SEARCH_TEXT_FILES`], issue 60): a string literal
//! holding a word and a space, or a text macro (`format!`, `write!`, ...),
//! anywhere else outside assertions and internal errors fails
//! `searches_build_no_text`; a search returns typed reasons and `write`
//! (or `explain`) words them.
//!
//! * Owns: the list of files that build the originals' texts, and the
//!   scan of a file's string literals and text macros.
//! * May use: `source`'s reading of files and code lines.
//! * Must never: judge a stage other than `search`.

use std::collections::BTreeSet;
use std::path::Path;

use super::source::{code_lines, is_ident_char, is_test_file, rust_files};

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
