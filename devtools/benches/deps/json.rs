//! The JSON reader (`hailstone::read::json`) against simd-json and
//! serde_json: each parses the request's bytes into its own value tree,
//! and hailstone's loader reads them into the model.
//!
//! The parsers run in this process on the request file's bytes; each
//! result is dropped after the clock stops (and outside what callgrind
//! counts), as the allocator leaves its model to the process exit.
//! simd-json parses in place, so it needs a mutable copy of the input (the
//! allocator gets a read-only map of the request file): its rows include
//! copying the input into a buffer kept from run to run. The model row is
//! the allocator's own binary: the instructions of its loader
//! (`hailstone::read::loader::load`) on one thread, from the request's
//! bytes to the cluster and the request the search takes.

use std::time::Duration;

use hailstone::read::json as ours;

use crate::measure::{medians_in_turn, timed};

/// One way to parse the request.
pub struct Parser {
    /// The row's name (also `--one`'s).
    pub name: &'static str,
    /// What it builds.
    pub builds: &'static str,
}

/// The parsers, in table order.
pub const PARSERS: [Parser; 5] = [
    Parser {
        name: "hailstone parse_document",
        builds: "a token tape read through `Value` handles",
    },
    Parser {
        name: "hailstone parse",
        builds: "an owned tree (`Json`) borrowing the input's strings",
    },
    Parser {
        name: "simd-json to_tape",
        builds: "a tape (input copied first)",
    },
    Parser {
        name: "simd-json to_borrowed_value",
        builds: "a tree borrowing the copy's strings (input copied first)",
    },
    Parser {
        name: "serde_json Value",
        builds: "an owned tree (`serde_json::Value`, objects as `BTreeMap`)",
    },
];

/// Parses `input` once with the parser named `name` (inside
/// [`depbench_measured`](crate::measure::depbench_measured)): the time of the parse alone. `copy` is
/// simd-json's buffer.
///
/// # Errors
///
/// An unknown name, or the parser refusing the input.
pub fn parse_once(name: &str, input: &[u8], copy: &mut Vec<u8>) -> Result<Duration, String> {
    match name {
        "hailstone parse_document" => timed(|| ours::parse_document(input)),
        "hailstone parse" => timed(|| ours::parse(input)),
        "simd-json to_tape" => timed(move || {
            let copy = copy;
            copy.clear();
            copy.extend_from_slice(input);
            simd_json::to_tape(copy)
        }),
        "simd-json to_borrowed_value" => timed(move || {
            let copy = copy;
            copy.clear();
            copy.extend_from_slice(input);
            simd_json::to_borrowed_value(copy)
        }),
        "serde_json Value" => timed(|| serde_json::from_slice::<serde_json::Value>(input)),
        other => Err(format!("unknown parser '{other}'")),
    }
}

/// The median time of `runs` parses of `input` by each parser, in
/// [`PARSERS`]' order.
///
/// # Errors
///
/// As [`parse_once`].
pub fn medians(input: &[u8], runs: usize) -> Result<Vec<Duration>, String> {
    let mut copy = Vec::new();
    medians_in_turn(runs, PARSERS.len(), |k| {
        parse_once(PARSERS[k].name, input, &mut copy)
    })
}
