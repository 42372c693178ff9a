//! `cli`: raw bytes as a command line of one of hailstone's programs.
//!
//! The first byte picks the program (of `program::PROGRAMS`), the rest
//! is cut into arguments at NUL bytes (not UTF-8 as it comes). Checks:
//! the parse never panics; a command line the program refuses gives a
//! non-empty message ending in a newline and a non-zero status; the same
//! arguments parse the same way twice.
#![no_main]

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use hailstone::program::cli::{self, Exit};
use hailstone::program::PROGRAMS;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let program = PROGRAMS[usize::from(pick) % PROGRAMS.len()];
    let args: Vec<OsString> = if rest.is_empty() {
        Vec::new()
    } else {
        rest.split(|&b| b == 0)
            .map(|a| OsString::from_vec(a.to_vec()))
            .collect()
    };
    let first = cli::parse(program, &args);
    match &first {
        Ok(_) => {}
        Err(Exit::Stdout(text)) => assert!(!text.is_empty()),
        Err(Exit::Stderr { code, message }) => {
            assert_ne!(*code, 0);
            assert!(message.ends_with('\n'), "{message:?}");
        }
    }
    let second = cli::parse(program, &args);
    assert_eq!(format!("{first:?}"), format!("{second:?}"));
});
