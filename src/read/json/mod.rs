//! JSON reading and writing for the iallocator protocol.
//!
//! This module owns everything hailstone does with JSON text: it parses the
//! request Ganeti hands to the allocator into a [`Document`] (a flat tape,
//! read through [`Value`] handles; `document.rs`) with the grammar of
//! `parser/` (its structure in `mod.rs`, strings and keys in `strings.rs`,
//! numbers in `number.rs`; the byte scanning it shares with [`Scan`] in
//! `bytes.rs`), and can turn it into an owned [`Json`] tree for tools and
//! tests. Strings in its messages are quoted with the answer's escaping
//! ([`write_string`], from `crate::haskell::json`). It depends on nothing
//! else but the standard library.
//!
//! # Why not serde_json
//!
//! hail reads its input with Haskell's Text.JSON, and hailstone must see the
//! same document hail sees:
//!
//! * Object members keep their input order, and duplicate keys are kept as
//!   separate entries (two nodes may carry the same name); [`Json::get`]
//!   returns the first one, as Text.JSON's lookups do.
//! * Numbers are exact rationals. An integer field given `31389.5` becomes
//!   31390 and `31388.5` becomes 31388 (Haskell's `round` is half-to-even),
//!   and `1.5e0` is accepted as 2. [`Number`] therefore carries both the
//!   correctly rounded `f64` and the exactly rounded integer, both computed
//!   from the digits at parse time.
//!
//! # Grammar
//!
//! [`parse`] accepts exactly RFC 8259: one value of any kind, surrounded by
//! optional whitespace (space, tab, line feed and carriage return only). The
//! input is bytes and must be valid UTF-8. Numbers follow the RFC grammar
//! `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, with exponents of
//! any size. Strings may not contain raw control characters (below U+0020),
//! and only the standard escapes are allowed; a `\u` escape that is half of a
//! surrogate pair must be completed by the other half.
//!
//! # Deliberate deviations from hail
//!
//! Text.JSON is more lenient than the RFC in places; hailstone is strict and
//! refuses such input with a clear message instead of guessing what it means:
//!
//! * `1.` (a fraction without digits) is refused; hail reads it as 1.
//! * A lone surrogate in a `\u` escape is refused; hail lets it through as an
//!   unpaired code point.
//!
//! A leading UTF-8 byte order mark is refused too, with a message of its own
//! so that the cause is obvious.
//!
//! # Memory
//!
//! A [`Document`] is one vector of 8-byte tokens, one per value and per
//! key, plus two side tables: a string or key without escapes is a span of
//! the input, a decoded one lives in a shared buffer, and numbers other than
//! small integers sit in a shared list. Parsing therefore allocates nothing
//! per value, and the memory it touches stays near the input's size;
//! for a large request that memory, not the grammar, is most of the cost.
//! [`parse_document_streaming`] goes further: the members of chosen
//! top-level members go to a [`Streamer`] one at a time, each in a small
//! document whose buffers are reused, so their tokens never pile up.
//! The [`Json`] tree made from a document borrows the input's strings too.
//!
//! # Limits
//!
//! * Arrays and objects may nest at most [`MAX_DEPTH`] levels. The parser never
//!   recurses on the input's depth (it keeps an explicit stack) and checks the
//!   limit while it reads, so a hostile, very deep input is refused at once and
//!   no deep tree is ever built (building or dropping one recurses).
//! * The input must be smaller than [`MAX_INPUT`] (4 GiB): tokens keep
//!   positions and lengths in 32 bits.
//! * [`Number::as_int`] covers the integers in [-2^53, 2^53], where every
//!   integer is also exact as an `f64`.
//!
//! Errors carry a 1-based line and column (the column counts characters, a
//! line ends at each line feed) and the 0-based byte offset. They are computed
//! only when an error happens, so a successful parse pays nothing for them.

use std::borrow::Cow;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};

mod bytes;
mod document;
mod parser;
mod scan;
#[cfg(test)]
mod tests;

/// The answer's string escaping, also used to quote names in errors.
use crate::haskell::json::write_string;
pub use document::{Array, Document, Items, Members, Object, Picked, Value};
pub use scan::Scan;

/// The deepest nesting of arrays and objects that [`parse`] accepts.
pub const MAX_DEPTH: usize = 512;

/// The input size from which [`parse`] refuses a text (4 GiB): positions
/// and lengths inside a document are kept in 32 bits.
pub const MAX_INPUT: u64 = 1 << 32;

/// The largest magnitude [`Number::as_int`] reports: 2^53.
const INT_LIMIT: u64 = 1 << 53;

/// The point beyond which an exponent stops growing while it is read. Any
/// exponent this large already puts a nonzero number far outside both the
/// integer range and the `f64` range, so the exact value no longer matters,
/// and capping it keeps all exponent arithmetic far from overflow.
const EXPONENT_CAP: i64 = 100_000_000_000_000_000;

/// The UTF-8 encoding of U+FEFF, the byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A parsed JSON value, borrowing its strings from the input.
///
/// A string or key without escapes is a slice of the input
/// ([`Cow::Borrowed`]); only one whose escapes had to be decoded owns its
/// text. The tree therefore allocates nothing but the vectors of its
/// non-empty arrays and objects, one each, sized exactly.
#[derive(Debug, Clone, PartialEq)]
pub enum Json<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, kept both as an `f64` and as an exactly rounded integer.
    Number(Number),
    /// A string, with its escapes decoded: borrowed from the input unless it
    /// contains escapes.
    String(Cow<'a, str>),
    /// An array, in input order.
    Array(Vec<Json<'a>>),
    /// Members in input order; duplicate keys are kept as separate entries.
    /// Keys are borrowed from the input unless they contain escapes.
    Object(Vec<(Cow<'a, str>, Json<'a>)>),
}

/// A JSON number.
///
/// Both views of the number are computed once, when it is parsed; the
/// literal's text is not kept.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Number {
    /// The nearest `f64` to the literal.
    value: f64,
    /// The literal's exact value rounded half-to-even, if within ±2^53.
    int: Option<i64>,
}

impl Number {
    /// Correctly rounded nearest f64 of the literal (like Rust's `str::parse::<f64>`); may be
    /// ±inf for huge exponents, -0.0 for "-0".
    pub fn as_f64(&self) -> f64 {
        self.value
    }

    /// The literal's exact rational value rounded half-to-even to an integer (exactly as Haskell's
    /// `round` on a Rational), or None when that integer is outside [-2^53, 2^53].
    ///
    /// The rounding is done on the decimal digits, never through an `f64`, so
    /// `2.5000000000000000001` gives 3 even though its nearest `f64` is 2.5.
    pub fn as_int(&self) -> Option<i64> {
        self.int
    }

    /// Construct from an f64 (for tests / the writer); as_int then rounds that value
    /// half-to-even if in range.
    pub fn from_f64(x: f64) -> Number {
        let int = if x.is_finite() {
            let rounded = x.round_ties_even();
            if rounded.abs() <= INT_LIMIT as f64 {
                // The value is integral and within ±2^53, so the conversion is exact.
                Some(rounded as i64)
            } else {
                None
            }
        } else {
            None
        };
        Number { value: x, int }
    }
}

impl<'a> Json<'a> {
    /// First member with this key, if self is an object (None otherwise).
    pub fn get(&self, key: &str) -> Option<&Json<'a>> {
        match self {
            Json::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// "null", "a boolean", "a number", "a string", "an array", "an object".
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }

    /// Short rendering for error messages, e.g. `"lots"` (JSON-quoted, cut to 40 chars with "…"
    /// if longer), `12.5`, `1e30` for big numbers, `true`, `null`, `an array`, `an object`.
    ///
    /// A cut string is rendered as its first 40 characters, quoted, followed
    /// by "…" outside the quotes.
    pub fn describe(&self) -> String {
        match self {
            Json::Null => "null".to_owned(),
            Json::Bool(true) => "true".to_owned(),
            Json::Bool(false) => "false".to_owned(),
            Json::Number(n) => describe_f64(n.value),
            Json::String(s) => describe_str(s),
            Json::Array(_) => "an array".to_owned(),
            Json::Object(_) => "an object".to_owned(),
        }
    }
}

/// Renders a string for an error message: JSON-quoted, cut after 40
/// characters with "…" outside the quotes.
fn describe_str(s: &str) -> String {
    let mut out = String::new();
    match s.char_indices().nth(40) {
        Some((cut, _)) => {
            write_string(&mut out, s.get(..cut).unwrap_or(s));
            out.push('…');
        }
        None => write_string(&mut out, s),
    }
    out
}

/// Renders a number briefly but faithfully: plain decimal notation for
/// ordinary magnitudes, scientific notation for very large or small ones.
/// Both forms are the shortest text that reads back as the same `f64`.
fn describe_f64(x: f64) -> String {
    if x.is_nan() {
        "NaN".to_owned()
    } else if x == f64::INFINITY {
        "a number beyond 1.8e308".to_owned()
    } else if x == f64::NEG_INFINITY {
        "a number beyond -1.8e308".to_owned()
    } else {
        let magnitude = x.abs();
        if magnitude == 0.0 || (1e-5..1e16).contains(&magnitude) {
            format!("{x}")
        } else {
            format!("{x:e}")
        }
    }
}

/// A refusal from [`parse`], with the position where the input went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The 1-based line of the error; lines end at each line feed.
    pub line: usize,
    /// The 1-based column of the error, counted in characters.
    pub column: usize,
    /// The 0-based byte offset of the error in the input.
    pub offset: usize,
    /// What was expected and what was found, starting in lower case.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for ParseError {}

/// Builds an error at `offset`, computing its line and column by scanning the
/// input up to that point. This is the only place positions are computed.
#[cold]
#[inline(never)]
fn error_at(input: &[u8], offset: usize, message: impl Into<String>) -> ParseError {
    let offset = offset.min(input.len());
    let before = input.get(..offset).unwrap_or(input);
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    // Everything before the error has been checked to be valid UTF-8, so
    // counting the bytes that start a character counts the characters.
    let column = 1 + before
        .get(line_start..)
        .unwrap_or(&[])
        .iter()
        .filter(|&&b| b & 0xC0 != 0x80)
        .count();
    ParseError {
        line,
        column,
        offset,
        message: message.into(),
    }
}

/// Parse one JSON text into a [`Document`]. Accepts exactly RFC 8259 (any
/// value at top level; the caller decides what it wants), surrounded by
/// optional whitespace (space, \t, \n, \r only). Never panics, never
/// recurses on input depth (it keeps an explicit stack), refuses nesting
/// deeper than [`MAX_DEPTH`]. Input is bytes: strings must be valid UTF-8.
///
/// # Errors
///
/// Returns a [`ParseError`] locating the first place where the input is not
/// such a JSON text: a syntax error, invalid UTF-8, a lone surrogate escape,
/// a leading byte order mark, or nesting deeper than [`MAX_DEPTH`]; or, at
/// offset 0, an input of [`MAX_INPUT`] bytes or more.
pub fn parse_document(input: &[u8]) -> Result<Document<'_>, ParseError> {
    let text = checked_text(input)?;
    parser::parse(input, text)
}

/// Refuses a byte order mark and inputs of [`MAX_INPUT`] or more, and
/// returns the input's longest valid UTF-8 prefix.
fn checked_text(input: &[u8]) -> Result<&str, ParseError> {
    if input.starts_with(BOM) {
        return Err(error_at(
            input,
            0,
            "input starts with a UTF-8 byte order mark",
        ));
    }
    if input.len() as u64 >= MAX_INPUT {
        return Err(error_at(
            input,
            0,
            format!(
                "input of {} bytes is too large; the limit is {MAX_INPUT} bytes",
                input.len()
            ),
        ));
    }
    // Validating the whole input at once is much faster than validating
    // each string on its own. Parsing works on the valid prefix, and the first
    // invalid byte is reported when the parser reaches it, so that an earlier
    // syntax error is still the one reported.
    Ok(match std::str::from_utf8(input) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(input.get(..e.valid_up_to()).unwrap_or(&[])).unwrap_or(""),
    })
}

/// Receives parts of a document while it is parsed, so that they need not
/// be kept: the members of chosen top-level members (the nodes and
/// instances of a request). See [`parse_document_streaming`].
pub trait Streamer {
    /// The top-level value is an object and its member `key` begins; its
    /// value is an object if `is_object`. `so_far` is the document parsed
    /// so far: its root is an object of the earlier, complete members.
    /// Returning `true` for an object streams it.
    fn wants(&mut self, so_far: &Document<'_>, key: &str, is_object: bool) -> bool;
    /// One member of the streamed object, in input order: its key and
    /// value, in a document that lives for this call only.
    fn member(&mut self, key: &str, value: Value<'_>);
    /// The streamed object has ended: every member was handed over.
    fn end(&mut self);
    /// Offered each member of a streamed object before it is parsed, at
    /// its key: see [`MemberSink::fast`].
    fn fast(&mut self, _scan: Scan<'_>) -> Option<usize> {
        None
    }
    /// The parse has reached the position of the [`SplitPoint`] given to
    /// [`parse_document_streaming_split`], `at`, at a member of a streamed
    /// object other than its first. If the rest of the object was read on
    /// another thread ([`parse_members_from`] from `at`) and the streamer
    /// takes it, it returns where that reading ended (the parse goes on
    /// from there; [`Streamer::end`] follows as usual) or the error it met
    /// (the parse's error); `None` reads on.
    fn split(&mut self, _at: usize) -> Option<Result<usize, ParseError>> {
        None
    }
}

/// [`parse_document`], with the members of the top-level members that
/// `streamer` asks for handed to it one by one instead of kept: in their
/// place the document has an empty object. Accepts and refuses exactly what
/// [`parse_document`] does, with the same errors.
///
/// A request's nodes and instances are nearly all of its tokens; streamed,
/// they never exist as a whole (see `ARCHITECTURE.md`, Cost).
pub fn parse_document_streaming<'a>(
    input: &'a [u8],
    streamer: &mut dyn Streamer,
) -> Result<Document<'a>, ParseError> {
    let text = checked_text(input)?;
    parser::parse_streaming(input, text, streamer, None)
}

/// Where a parse and another thread meet: the parse says how far it has
/// come (at each member of a streamed object) and learns where the other
/// thread began reading the rest of a streamed object
/// ([`parse_members_from`]): at most one position in each of two objects
/// (two slots), each chosen once, ahead of the parse.
#[derive(Debug)]
pub struct SplitPoint {
    /// The start of the member the other thread began at, per slot;
    /// `usize::MAX` until chosen.
    at: [AtomicUsize; 2],
    /// The start of the last streamed member the parse reached.
    reached: AtomicUsize,
}

impl Default for SplitPoint {
    fn default() -> Self {
        SplitPoint {
            at: [AtomicUsize::new(usize::MAX), AtomicUsize::new(usize::MAX)],
            reached: AtomicUsize::new(0),
        }
    }
}

impl SplitPoint {
    /// How far the parse has come: the start of the last streamed member
    /// it reached.
    pub fn reached(&self) -> usize {
        self.reached.load(Ordering::Relaxed)
    }

    /// The other thread begins at `at` in the object of `slot` (0 or 1).
    pub fn choose(&self, slot: usize, at: usize) {
        if let Some(a) = self.at.get(slot) {
            a.store(at, Ordering::Release);
        }
    }

    /// Where the other thread began in the object of `slot`, if it has
    /// said.
    pub fn chosen(&self, slot: usize) -> Option<usize> {
        let at = self.at.get(slot)?.load(Ordering::Acquire);
        (at != usize::MAX).then_some(at)
    }

    /// The parse reaches a member at `at`: whether the other thread began
    /// there.
    fn reach(&self, at: usize) -> bool {
        self.reached.store(at, Ordering::Relaxed);
        self.at.iter().any(|a| a.load(Ordering::Acquire) == at)
    }
}

/// [`parse_document_streaming`], telling `split` how far it has come and
/// asking the streamer, at the member of a streamed object where another
/// thread began, whether the rest of that object was read there
/// ([`Streamer::split`]). Accepts and refuses what
/// [`parse_document_streaming`] does, with the same errors, as long as
/// what the streamer returns is what [`parse_members_from`] returned from
/// that position.
pub fn parse_document_streaming_split<'a>(
    input: &'a [u8],
    streamer: &mut dyn Streamer,
    split: &'a SplitPoint,
) -> Result<Document<'a>, ParseError> {
    let text = checked_text(input)?;
    parser::parse_streaming(input, text, streamer, Some(split))
}

/// Where [`parse_members_from`] hands the members it reads.
pub trait MemberSink {
    /// Offered each member first, at its key: reads the whole member
    /// straight from the input and returns the position after its value,
    /// or `None` to have it parsed and handed to [`MemberSink::member`].
    /// What it returns must be what the parser would have read there.
    fn fast(&mut self, _scan: Scan<'_>) -> Option<usize> {
        None
    }
    /// One member, in a document that lives for this call only.
    fn member(&mut self, key: &str, value: Value<'_>);
}

/// Reads the members of an object from `at` to its end, as the parse of
/// the whole `input` would read them if `at` turned out to be the start of
/// a member other than the first of an object inside `depth` open
/// containers (the object itself included), so that another thread can
/// read them while the parse reaches `at`. Each member goes to `sink`;
/// `stop` is asked before each one whether to give up.
///
/// Returns the position after the object's closing '}' (`None`: stopped).
///
/// # Errors
///
/// The error the whole parse would give from `at` on (positions in
/// `input`). When `at` is not where the whole parse starts a member of
/// such an object, the result means nothing: the parse never asks for it.
pub fn parse_members_from(
    input: &[u8],
    at: usize,
    depth: usize,
    stop: &dyn Fn() -> bool,
    sink: &mut dyn MemberSink,
) -> Result<Option<usize>, ParseError> {
    let rest = input.get(at..).unwrap_or(&[]);
    // The text before `at` is valid UTF-8 when the parse reaches `at`, and
    // `at` is then at an ASCII quote: the valid prefix of the rest is the
    // whole input's from there.
    let text = match std::str::from_utf8(rest) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(rest.get(..e.valid_up_to()).unwrap_or(&[])).unwrap_or(""),
    };
    parser::parse_members_from(input, at, rest, text, depth, stop, sink)
}

/// Runs `read` with a [`Scan`] from `at`, for a guess ahead of the parse
/// (where a later object's members begin): positions are counted from
/// `at`, and strings are read only in the first [`SCAN_AHEAD`] bytes
/// (their UTF-8 checked first; past them the scan gives up).
pub fn scan_ahead<R>(
    input: &[u8],
    at: usize,
    read: impl FnOnce(&mut Scan<'_>) -> Option<R>,
) -> Option<R> {
    let rest = input.get(at..)?;
    let window = rest.get(..SCAN_AHEAD).unwrap_or(rest);
    let text = match std::str::from_utf8(window) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(window.get(..e.valid_up_to()).unwrap_or(&[])).unwrap_or(""),
    };
    read(&mut Scan::new(rest, text, 0))
}

/// How far [`scan_ahead`] reads strings.
pub const SCAN_AHEAD: usize = 64 * 1024;

/// A likely start of an object member at or after `from`, for
/// [`parse_members_from`]: the quote of the key after the first `}`,
/// `,` sequence (whitespace allowed around the comma) within `limit`
/// bytes. Only likely: the bytes may lie inside a string, or belong to
/// another object; the parse decides whether it is one.
pub fn member_start_near(input: &[u8], from: usize, limit: usize) -> Option<usize> {
    let end = from.saturating_add(limit).min(input.len());
    let window = input.get(from..end)?;
    let skip_ws = |mut p: usize| {
        while window.get(p).is_some_and(|b| b" \t\r\n".contains(b)) {
            p += 1;
        }
        p
    };
    let mut p = 0;
    while let Some(close) = window.get(p..)?.iter().position(|&b| b == b'}') {
        let after = skip_ws(p + close + 1);
        if window.get(after) == Some(&b',') {
            let key = skip_ws(after + 1);
            if window.get(key) == Some(&b'"') {
                return Some(from + key);
            }
        }
        p += close + 1;
    }
    None
}

/// Parse one JSON text into a tree; accepts and refuses exactly what
/// [`parse_document`] does.
///
/// # Errors
///
/// As [`parse_document`].
pub fn parse(input: &[u8]) -> Result<Json<'_>, ParseError> {
    parse_document(input).map(|doc| doc.to_tree())
}
