//! JSON reading and writing for the iallocator protocol.
//!
//! This module owns everything hailstone does with JSON text: it parses the
//! request Ganeti hands to the allocator into a [`Json`] tree, and it writes
//! string literals for the answer with [`write_string`]. It depends on nothing
//! but the standard library.
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
//! The tree borrows from the input: a string or key without escapes is a
//! slice of the input bytes ([`Cow::Borrowed`]), and only one whose escapes
//! had to be decoded owns its text. A parsed request therefore costs one
//! allocation per non-empty array or object, each sized exactly, and nothing
//! per string or key; building and dropping the tree stays cheap even for a
//! cluster of thousands of nodes.
//!
//! # Limits
//!
//! * Arrays and objects may nest at most [`MAX_DEPTH`] levels. The parser never
//!   recurses on the input's depth (it keeps an explicit stack) and checks the
//!   limit while it reads, so a hostile, very deep input is refused at once and
//!   no deep tree is ever built (dropping one would recurse).
//! * [`Number::as_int`] covers the integers in [-2^53, 2^53], where every
//!   integer is also exact as an `f64`.
//!
//! Errors carry a 1-based line and column (the column counts characters, a
//! line ends at each line feed) and the 0-based byte offset. They are computed
//! only when an error happens, so a successful parse pays nothing for them.

use std::borrow::Cow;
use std::fmt;

/// The deepest nesting of arrays and objects that [`parse`] accepts.
pub const MAX_DEPTH: usize = 512;

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
            Json::String(s) => {
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
            Json::Array(_) => "an array".to_owned(),
            Json::Object(_) => "an object".to_owned(),
        }
    }
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

/// Parse one JSON text. Accepts exactly RFC 8259 (any value at top level; the caller decides
/// what it wants), surrounded by optional whitespace (space, \t, \n, \r only). Never panics,
/// never recurses on input depth (it keeps an explicit stack), refuses nesting deeper than
/// [`MAX_DEPTH`]. Input is bytes: strings must be valid UTF-8.
///
/// # Errors
///
/// Returns a [`ParseError`] locating the first place where the input is not
/// such a JSON text: a syntax error, invalid UTF-8, a lone surrogate escape,
/// a leading byte order mark, or nesting deeper than [`MAX_DEPTH`].
pub fn parse(input: &[u8]) -> Result<Json<'_>, ParseError> {
    if input.starts_with(BOM) {
        return Err(error_at(
            input,
            0,
            "input starts with a UTF-8 byte order mark",
        ));
    }
    // Validating the whole input at once is much faster than validating
    // each string on its own. Parsing works on the valid prefix, and the first
    // invalid byte is reported when the parser reaches it, so that an earlier
    // syntax error is still the one reported.
    let text = match std::str::from_utf8(input) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(input.get(..e.valid_up_to()).unwrap_or(&[])).unwrap_or(""),
    };
    let mut parser = Parser {
        input,
        text,
        pos: 0,
        frames: Vec::new(),
        values: Vec::with_capacity(64),
        members: Vec::with_capacity(64),
    };
    parser.document()
}

/// An array or object that is open while the parser reads its contents.
struct Frame<'a> {
    /// Where the container's items so far start: in `Parser::members` for an
    /// object, in `Parser::values` for an array.
    start: usize,
    /// Whether the container is an object.
    object: bool,
    /// The key the container stands under in its parent, when the parent is
    /// an object (empty otherwise).
    key: Cow<'a, str>,
}

/// The parser's state: the input, the read position, and the explicit stack
/// of open containers.
///
/// The elements of all open arrays share one vector, and the members of all
/// open objects share another; a container's own items are the tail of that
/// vector from the index recorded in its frame. Closing a container moves
/// that tail into a vector of exactly the right size, so the finished tree
/// wastes no capacity and the growth of the shared vectors is paid once.
struct Parser<'a> {
    input: &'a [u8],
    /// The longest prefix of `input` that is valid UTF-8.
    text: &'a str,
    pos: usize,
    frames: Vec<Frame<'a>>,
    values: Vec<Json<'a>>,
    members: Vec<(Cow<'a, str>, Json<'a>)>,
}

/// Hands a finished value to the innermost open container of `$parser`: as
/// a member under `$key` (an `Option<Cow<str>>`, set exactly when that
/// container is an object), or as an array element.
///
/// A macro, not a method: measured with rustc 1.95, passing the value into
/// even an always-inlined method makes the compiler assemble it on the stack
/// and copy it into the vector, which costs a store-forwarding stall per
/// value (about a tenth of the parse time); built in the macro's expansion,
/// each value's fields are stored straight into the vector.
macro_rules! emit {
    ($parser:expr, $key:expr, $value:expr) => {
        match $key {
            Some(key) => push(&mut $parser.members, (key, $value)),
            None => push(&mut $parser.values, $value),
        }
    };
}

/// `stack.push(item)`, written so that the item is usually stored straight
/// into the vector: with the capacity checked first, nothing stands between
/// building the item and storing it, so it is not assembled on the stack
/// and then copied.
#[inline(always)]
fn push<T>(stack: &mut Vec<T>, item: T) {
    if stack.len() < stack.capacity() {
        stack.push(item);
    } else {
        push_growing(stack, item);
    }
}

/// `stack.push(item)` when that needs the vector to grow.
#[cold]
#[inline(never)]
fn push_growing<T>(stack: &mut Vec<T>, item: T) {
    stack.push(item);
}

impl<'a> Parser<'a> {
    /// Parses the whole input as one value followed by optional whitespace.
    fn document(&mut self) -> Result<Json<'a>, ParseError> {
        self.skip_whitespace();
        let start = self.pos;
        let value = match self.peek() {
            Some(open @ (b'{' | b'[')) => {
                let object = open == b'{';
                if self.open(start, object)? {
                    if object {
                        Json::Object(Vec::new())
                    } else {
                        Json::Array(Vec::new())
                    }
                } else {
                    self.frames.push(Frame {
                        start: 0,
                        object,
                        key: Cow::Borrowed(""),
                    });
                    self.contents()?
                }
            }
            Some(b'"') => Json::String(self.string()?),
            Some(b'-' | b'0'..=b'9') => Json::Number(self.number()?),
            Some(b't') => {
                self.literal(b"true")?;
                Json::Bool(true)
            }
            Some(b'f') => {
                self.literal(b"false")?;
                Json::Bool(false)
            }
            Some(b'n') => {
                self.literal(b"null")?;
                Json::Null
            }
            _ => return Err(self.unexpected_token(start, "a JSON value")),
        };
        self.skip_whitespace();
        if self.pos < self.input.len() {
            return Err(self.error(self.pos, "unexpected data after the JSON value"));
        }
        Ok(value)
    }

    /// Opens the array or object whose bracket is at `at` (the read
    /// position), refusing it beyond [`MAX_DEPTH`]. Returns whether it is
    /// empty: then it is closed again at once and the read position is past
    /// it; otherwise the read position is at its first item.
    #[inline]
    fn open(&mut self, at: usize, object: bool) -> Result<bool, ParseError> {
        self.check_depth(at)?;
        self.pos = at + 1;
        self.skip_whitespace();
        let close = if object { b'}' } else { b']' };
        if self.peek() == Some(close) {
            self.pos += 1;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// Reads the contents of the open containers, the innermost one from its
    /// first item on, until the outermost one closes; returns that one.
    fn contents(&mut self) -> Result<Json<'a>, ParseError> {
        // Whether the container the next item goes into is an object (kept
        // in step with the top frame), and whether that item is its first.
        let mut object = self.frames.last().is_some_and(|f| f.object);
        let mut first = true;
        'item: loop {
            let key = if object {
                let expected = if first {
                    "a string key or '}'"
                } else {
                    "a string key after ','"
                };
                let key = self.key(expected)?;
                self.skip_whitespace();
                Some(key)
            } else {
                None
            };
            let start = self.pos;
            match self.peek() {
                Some(open @ (b'{' | b'[')) => {
                    let inner = open == b'{';
                    if self.open(start, inner)? {
                        if inner {
                            emit!(self, key, Json::Object(Vec::new()));
                        } else {
                            emit!(self, key, Json::Array(Vec::new()));
                        }
                    } else {
                        let start = if inner {
                            self.members.len()
                        } else {
                            self.values.len()
                        };
                        self.frames.push(Frame {
                            start,
                            object: inner,
                            key: key.unwrap_or_default(),
                        });
                        object = inner;
                        first = true;
                        continue 'item;
                    }
                }
                Some(b'"') => {
                    let s = self.string()?;
                    emit!(self, key, Json::String(s));
                }
                Some(b'-' | b'0'..=b'9') => {
                    let n = self.number()?;
                    emit!(self, key, Json::Number(n));
                }
                Some(b't') => {
                    self.literal(b"true")?;
                    emit!(self, key, Json::Bool(true));
                }
                Some(b'f') => {
                    self.literal(b"false")?;
                    emit!(self, key, Json::Bool(false));
                }
                Some(b'n') => {
                    self.literal(b"null")?;
                    emit!(self, key, Json::Null);
                }
                _ => {
                    let expected = if first && !object {
                        "a JSON value or ']'"
                    } else {
                        "a JSON value"
                    };
                    return Err(self.unexpected_token(start, expected));
                }
            }
            // After an item: a ',' and the next item, or the end of the
            // container. A closed container is an item of its parent, so
            // the same question follows again, outwards.
            loop {
                self.skip_whitespace();
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        self.skip_whitespace();
                        first = false;
                        continue 'item;
                    }
                    Some(b'}') if object => {}
                    Some(b']') if !object => {}
                    _ => {
                        let expected = if object {
                            "',' or '}' after an object member"
                        } else {
                            "',' or ']' after an array element"
                        };
                        return Err(self.unexpected_token(self.pos, expected));
                    }
                }
                self.pos += 1;
                let Some(frame) = self.frames.pop() else {
                    // Unreachable: an item is always read into an open
                    // container.
                    return Err(self.error(self.pos, "internal error: no open container"));
                };
                let value = if object {
                    Json::Object(self.members.split_off(frame.start))
                } else {
                    Json::Array(self.values.split_off(frame.start))
                };
                match self.frames.last() {
                    None => return Ok(value),
                    Some(parent) => {
                        object = parent.object;
                        if object {
                            push(&mut self.members, (frame.key, value));
                        } else {
                            push(&mut self.values, value);
                        }
                    }
                }
            }
        }
    }

    /// The byte at the read position, if any.
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }

    /// Advances past any JSON whitespace.
    #[inline]
    fn skip_whitespace(&mut self) {
        while let Some(&b) = self.input.get(self.pos) {
            if b == b' ' || b == b'\n' || b == b'\r' || b == b'\t' {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// Refuses to open one more container when [`MAX_DEPTH`] are open already.
    fn check_depth(&self, at: usize) -> Result<(), ParseError> {
        if self.frames.len() >= MAX_DEPTH {
            Err(self.error(at, format!("nesting deeper than {MAX_DEPTH} levels")))
        } else {
            Ok(())
        }
    }

    /// Builds an error at `offset`.
    fn error(&self, offset: usize, message: impl Into<String>) -> ParseError {
        error_at(self.input, offset, message)
    }

    /// Builds an "expected ..., found ..." error for the character at `at`.
    /// Bytes that are not valid UTF-8 are reported as such instead.
    fn unexpected(&self, at: usize, expected: &str) -> ParseError {
        self.unexpected_found(at, expected, false)
    }

    /// Like [`Parser::unexpected`], but shows a whole word when one starts at
    /// `at`, for places where a token was expected.
    fn unexpected_token(&self, at: usize, expected: &str) -> ParseError {
        self.unexpected_found(at, expected, true)
    }

    /// Builds an "expected ..., found ..." error for what sits at `at`,
    /// showing a whole word if `whole_word` is set and one starts there.
    #[cold]
    #[inline(never)]
    fn unexpected_found(&self, at: usize, expected: &str, whole_word: bool) -> ParseError {
        let rest = self.input.get(at..).unwrap_or(&[]);
        let Some(&first) = rest.first() else {
            return self.error(at, format!("expected {expected}, found end of input"));
        };
        let found = if whole_word && first.is_ascii_alphabetic() {
            // Show a whole word, so that `NaN`, `Infinity` or `True` appear
            // as such rather than as their first letter.
            let word: String = rest
                .iter()
                .take(24)
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .map(|&b| char::from(b))
                .collect();
            format!("'{word}'")
        } else {
            match first_char(rest) {
                Some(c) => describe_char(c),
                None => return self.error(at, format!("invalid UTF-8 (byte {first:#04x})")),
            }
        };
        self.error(at, format!("expected {expected}, found {found}"))
    }

    /// Reads `word` (`true`, `false` or `null`) at the read position.
    #[inline]
    fn literal(&mut self, word: &'static [u8]) -> Result<(), ParseError> {
        let rest = self.input.get(self.pos..).unwrap_or(&[]);
        if rest.starts_with(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.bad_literal(word, rest))
        }
    }

    /// The error for input at the read position, `rest`, that should have
    /// been `word` but is not.
    #[cold]
    #[inline(never)]
    fn bad_literal(&self, word: &'static [u8], rest: &[u8]) -> ParseError {
        if word.starts_with(rest) {
            let word = String::from_utf8_lossy(word);
            self.error(
                self.input.len(),
                format!("expected '{word}', found end of input"),
            )
        } else {
            self.unexpected_token(self.pos, "a JSON value")
        }
    }

    /// Reads an object key and the ':' after it; `expected` says what may
    /// stand here, for the message when no key does.
    #[inline]
    fn key(&mut self, expected: &str) -> Result<Cow<'a, str>, ParseError> {
        if self.peek() != Some(b'"') {
            return Err(self.unexpected_token(self.pos, expected));
        }
        let key = self.string()?;
        self.skip_whitespace();
        if self.peek() != Some(b':') {
            return Err(self.unexpected_token(self.pos, "':' after an object key"));
        }
        self.pos += 1;
        Ok(key)
    }

    /// Returns `input[from..to]` as text, or the invalid UTF-8 error when the
    /// span reaches past the valid prefix of the input. Spans start and end
    /// next to ASCII delimiters (or at the end of input), so inside the valid
    /// prefix they always fall on character boundaries.
    #[inline]
    fn text(&self, from: usize, to: usize) -> Result<&'a str, ParseError> {
        let text: &'a str = self.text;
        match text.get(from..to) {
            Some(s) => Ok(s),
            None => Err(self.invalid_utf8()),
        }
    }

    /// The error for the first byte that is not valid UTF-8.
    #[cold]
    #[inline(never)]
    fn invalid_utf8(&self) -> ParseError {
        let at = self.text.len();
        let byte = self.input.get(at).copied().unwrap_or(0);
        self.error(at, format!("invalid UTF-8 (byte {byte:#04x})"))
    }

    /// Reads a string literal; the read position is at its opening quote.
    /// Without escapes the result borrows from the input; with them, the
    /// decoded text is built in a string of its own.
    #[inline]
    fn string(&mut self) -> Result<Cow<'a, str>, ParseError> {
        let open = self.pos;
        let run = open + 1;
        let p = plain_run_end(self.input, run);
        if self.input.get(p) == Some(&b'"') {
            // The common case: no escapes, so the text is one slice of input.
            if let Some(text) = self.text.get(run..p) {
                self.pos = p + 1;
                return Ok(Cow::Borrowed(text));
            }
        }
        self.decoded_string(open, p)
    }

    /// Reads the rest of the string literal that opens at `open`, the slow
    /// way. `p` is where its first run of plain characters ends: at an
    /// escape, a control character or the end of input, or at the closing
    /// quote when the run is not valid UTF-8.
    #[inline(never)]
    fn decoded_string(&mut self, open: usize, mut p: usize) -> Result<Cow<'a, str>, ParseError> {
        let input = self.input;
        let run = open + 1;
        let mut out = String::with_capacity(p - run + 16);
        out.push_str(self.text(run, p)?);
        loop {
            match input.get(p) {
                None => return Err(self.error(open, "unterminated string")),
                Some(b'"') => {
                    self.pos = p + 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => p = self.escape(p, open, &mut out)?,
                Some(&b) => {
                    return Err(self.error(
                        p,
                        format!("unescaped control character U+{b:04X} in a string"),
                    ));
                }
            }
            // Copy the next run of plain characters in one go. Escapes and
            // quotes are ASCII, so a run never splits a UTF-8 sequence.
            let run = p;
            p = plain_run_end(input, p);
            out.push_str(self.text(run, p)?);
        }
    }

    /// Decodes the escape sequence whose backslash is at `at` into `out`, and
    /// returns the position after it. `open` is where the string began.
    fn escape(&self, at: usize, open: usize, out: &mut String) -> Result<usize, ParseError> {
        let c = match self.input.get(at + 1) {
            None => return Err(self.error(open, "unterminated string")),
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                let (c, next) = self.unicode_escape(at)?;
                out.push(c);
                return Ok(next);
            }
            Some(_) => {
                return Err(self.unexpected(
                    at + 1,
                    "one of '\"' '\\' '/' 'b' 'f' 'n' 'r' 't' 'u' after '\\' in a string",
                ));
            }
        };
        out.push(c);
        Ok(at + 2)
    }

    /// Decodes the `\u` escape at `at`, together with the low surrogate that
    /// must follow it when it is a high surrogate.
    fn unicode_escape(&self, at: usize) -> Result<(char, usize), ParseError> {
        let first = self.hex4(at + 2)?;
        let mut next = at + 6;
        let code = match first {
            0xD800..=0xDBFF => {
                let rest = self.input.get(next..).unwrap_or(&[]);
                let low = if rest.starts_with(b"\\u") {
                    Some(self.hex4(next + 2)?)
                } else {
                    None
                };
                match low {
                    Some(low @ 0xDC00..=0xDFFF) => {
                        next += 6;
                        0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00)
                    }
                    _ => return Err(self.lone_surrogate(at, first)),
                }
            }
            0xDC00..=0xDFFF => return Err(self.lone_surrogate(at, first)),
            _ => first,
        };
        match char::from_u32(code) {
            Some(c) => Ok((c, next)),
            None => Err(self.lone_surrogate(at, first)),
        }
    }

    /// The error for a `\u` escape at `at` naming half a surrogate pair alone.
    fn lone_surrogate(&self, at: usize, code: u32) -> ParseError {
        let role = if code < 0xDC00 {
            "a high surrogate not followed by a \\u escape of a low surrogate"
        } else {
            "a low surrogate not preceded by a high surrogate"
        };
        self.error(
            at,
            format!("lone surrogate in \\u escape: \\u{code:04x} is {role}"),
        )
    }

    /// Reads the four hex digits of a `\u` escape starting at `at`.
    fn hex4(&self, at: usize) -> Result<u32, ParseError> {
        let mut code = 0;
        for i in at..at + 4 {
            let digit = self.input.get(i).and_then(|&b| char::from(b).to_digit(16));
            match digit {
                Some(d) => code = code * 16 + d,
                None => return Err(self.unexpected(i, "a hex digit in a \\u escape")),
            }
        }
        Ok(code)
    }

    /// Reads a number; the read position is at its first character, a '-' or
    /// a digit.
    #[inline]
    fn number(&mut self) -> Result<Number, ParseError> {
        let input = self.input;
        let start = self.pos;
        let negative = input.get(start) == Some(&b'-');
        let int_start = start + usize::from(negative);
        let int_end = digits_end(input, int_start);
        let int_digits = input.get(int_start..int_end).unwrap_or(&[]);
        // The common case: a plain integer below 10^15 < 2^53, which both
        // views represent exactly. Anything else, including every invalid
        // number, takes the general path.
        if (1..=15).contains(&int_digits.len())
            && (int_digits.len() == 1 || int_digits.first() != Some(&b'0'))
            && !matches!(input.get(int_end), Some(b'.' | b'e' | b'E'))
        {
            let magnitude = int_digits
                .iter()
                .fold(0i64, |acc, &b| acc * 10 + i64::from(b - b'0'));
            let (value, int) = if negative {
                (-(magnitude as f64), -magnitude)
            } else {
                (magnitude as f64, magnitude)
            };
            self.pos = int_end;
            return Ok(Number {
                value,
                int: Some(int),
            });
        }
        self.general_number()
    }

    /// Reads any number, like [`Parser::number`], with a fraction, an
    /// exponent or many digits, or refuses an invalid one.
    #[inline(never)]
    fn general_number(&mut self) -> Result<Number, ParseError> {
        let input = self.input;
        let start = self.pos;
        let mut p = start;
        let negative = input.get(p) == Some(&b'-');
        if negative {
            p += 1;
        }
        let int_start = p;
        match input.get(p) {
            Some(b'0') => {
                p += 1;
                if matches!(input.get(p), Some(b'0'..=b'9')) {
                    return Err(self.error(p - 1, "invalid number: leading zeros are not allowed"));
                }
            }
            Some(b'1'..=b'9') => p = digits_end(input, p + 1),
            _ => return Err(self.unexpected(p, "a digit after '-'")),
        }
        let int_end = p;
        let mut frac_start = p;
        let mut frac_end = p;
        if input.get(p) == Some(&b'.') {
            frac_start = p + 1;
            frac_end = digits_end(input, frac_start);
            if frac_end == frac_start {
                return Err(self.unexpected(frac_start, "a digit after the decimal point"));
            }
            p = frac_end;
        }
        let mut exponent: i64 = 0;
        if let Some(b'e' | b'E') = input.get(p) {
            p += 1;
            let exponent_negative = match input.get(p) {
                Some(b'-') => {
                    p += 1;
                    true
                }
                Some(b'+') => {
                    p += 1;
                    false
                }
                _ => false,
            };
            let digits_start = p;
            while let Some(&b) = input.get(p) {
                if !b.is_ascii_digit() {
                    break;
                }
                if exponent < EXPONENT_CAP {
                    exponent = exponent * 10 + i64::from(b - b'0');
                }
                p += 1;
            }
            if p == digits_start {
                return Err(self.unexpected(p, "a digit in the exponent"));
            }
            if exponent_negative {
                exponent = -exponent;
            }
        }
        self.pos = p;

        let int_digits = input.get(int_start..int_end).unwrap_or(&[]);
        let literal = input.get(start..p).unwrap_or(&[]);
        let value = std::str::from_utf8(literal)
            .ok()
            .and_then(|s| s.parse::<f64>().ok());
        let Some(value) = value else {
            return Err(self.error(start, "invalid number"));
        };
        let frac_digits = input.get(frac_start..frac_end).unwrap_or(&[]);
        let int = round_half_even(negative, int_digits, frac_digits, exponent);
        Ok(Number { value, int })
    }
}

/// The end of the run of string bytes from `from` on that need no special
/// handling: everything but '"', '\\' and control characters.
///
/// It looks at eight bytes at a time: for each of the three conditions, the
/// classic "has a zero byte" bit trick sets the high bit of the first byte
/// that meets it. Later bytes may be flagged spuriously, but never an earlier
/// one, so the lowest flag marks the first special byte exactly.
#[inline]
fn plain_run_end(input: &[u8], from: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const QUOTES: u64 = ONES * b'"' as u64;
    const BACKSLASHES: u64 = ONES * b'\\' as u64;
    const SPACES: u64 = ONES * 0x20;
    let rest = input.get(from..).unwrap_or(&[]);
    let mut chunks = rest.chunks_exact(8);
    let mut offset = from;
    for chunk in &mut chunks {
        let Ok(bytes) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let word = u64::from_le_bytes(bytes);
        let quote = word ^ QUOTES;
        let backslash = word ^ BACKSLASHES;
        let flags = (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (word.wrapping_sub(SPACES) & !word);
        let flags = flags & HIGHS;
        if flags != 0 {
            return offset + (flags.trailing_zeros() / 8) as usize;
        }
        offset += 8;
    }
    match chunks
        .remainder()
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
    {
        Some(n) => offset + n,
        None => input.len(),
    }
}

/// The end of the run of ASCII digits from `from` on.
#[inline]
fn digits_end(input: &[u8], from: usize) -> usize {
    let rest = input.get(from..).unwrap_or(&[]);
    match rest.iter().position(|b| !b.is_ascii_digit()) {
        Some(n) => from + n,
        None => input.len(),
    }
}

/// The character that `bytes` start with, if they start with valid UTF-8.
fn first_char(bytes: &[u8]) -> Option<char> {
    let head = bytes.get(..bytes.len().min(4)).unwrap_or(bytes);
    let valid = match std::str::from_utf8(head) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(head.get(..e.valid_up_to()).unwrap_or(&[])).unwrap_or(""),
    };
    valid.chars().next()
}

/// Renders a character found where something else was expected.
fn describe_char(c: char) -> String {
    match c {
        '\'' => "\"'\"".to_owned(),
        '!'..='~' => format!("'{c}'"),
        ' ' => "a space".to_owned(),
        c if c.is_control() || c.is_whitespace() || c == '\u{feff}' => {
            format!("U+{:04X}", u32::from(c))
        }
        c => format!("'{c}' (U+{:04X})", u32::from(c)),
    }
}

/// The decimal digits of a number literal: its integer digits followed by its
/// fraction digits, read as one digit string.
struct Digits<'a> {
    int: &'a [u8],
    frac: &'a [u8],
}

impl Digits<'_> {
    fn len(&self) -> usize {
        self.int.len() + self.frac.len()
    }

    /// The digit at index `i`, or 0 past the end.
    fn at(&self, i: usize) -> u64 {
        let b = match i.checked_sub(self.int.len()) {
            None => self.int.get(i),
            Some(j) => self.frac.get(j),
        };
        b.map_or(0, |&b| u64::from(b.wrapping_sub(b'0')) % 10)
    }

    /// Whether any digit from index `from` on is nonzero.
    fn any_nonzero_from(&self, from: usize) -> bool {
        (from..self.len()).any(|i| self.at(i) != 0)
    }
}

/// Rounds the literal `(-)int_digits.frac_digits × 10^exponent` half-to-even
/// to an integer, exactly, from its digits. Returns None when the result is
/// outside [-2^53, 2^53].
fn round_half_even(
    negative: bool,
    int_digits: &[u8],
    frac_digits: &[u8],
    exponent: i64,
) -> Option<i64> {
    let digits = Digits {
        int: int_digits,
        frac: frac_digits,
    };
    let total = digits.len();
    // Skip leading zeros; a literal with no nonzero digit is zero whatever
    // its exponent.
    let Some(first) = (0..total).find(|&i| digits.at(i) != 0) else {
        return Some(0);
    };
    // The value is S × 10^scale, where S is the digit string from `first` on.
    let significant = (total - first) as i64;
    let frac_len = i64::try_from(frac_digits.len()).unwrap_or(i64::MAX);
    let scale = exponent.saturating_sub(frac_len);
    // The number of digits before the decimal point in the value.
    let int_len = significant.saturating_add(scale);
    if int_len > 16 {
        // At least 10^16, which is beyond 2^53.
        return None;
    }
    let mut magnitude: u64 = 0;
    let round_up = if int_len < 0 {
        // Below 0.1: rounds to zero.
        false
    } else {
        // The integer part, padded with zeros when the exponent reaches past
        // the digits; at most 16 digits, so it fits easily.
        let int_len = int_len as usize;
        for k in 0..int_len {
            magnitude = magnitude * 10 + digits.at(first + k);
        }
        // The first fraction digit decides, unless it is 5 and all the rest
        // are zero: then the value is exactly halfway and goes to even.
        let cut = first + int_len;
        if cut < total {
            match digits.at(cut) {
                6..=9 => true,
                5 => digits.any_nonzero_from(cut + 1) || magnitude % 2 == 1,
                _ => false,
            }
        } else {
            false
        }
    };
    if round_up {
        magnitude += 1;
    }
    if magnitude > INT_LIMIT {
        return None;
    }
    let magnitude = magnitude as i64;
    Some(if negative { -magnitude } else { magnitude })
}

/// Append `s` as a JSON string literal with Text.JSON's escaping (see below).
///
/// `"` and `\` are escaped with a backslash; backspace, form feed, line feed,
/// carriage return and tab use their short escapes; every other character
/// below U+0020 is written as `\u00xx` with lower-case hex digits. Everything
/// else is written raw, including `/`, DEL and all non-ASCII characters.
pub fn write_string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let mut run = 0;
    for (i, &b) in s.as_bytes().iter().enumerate() {
        let short = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            0x0C => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x00..=0x1F => "",
            _ => continue,
        };
        // Every escaped character is ASCII, so `i` is a character boundary.
        out.push_str(s.get(run..i).unwrap_or(""));
        if short.is_empty() {
            out.push_str("\\u00");
            out.push(hex_digit(b >> 4));
            out.push(hex_digit(b & 0x0F));
        } else {
            out.push_str(short);
        }
        run = i + 1;
    }
    out.push_str(s.get(run..).unwrap_or(""));
    out.push('"');
}

/// The lower-case hex digit for a value below 16.
fn hex_digit(n: u8) -> char {
    char::from_digit(u32::from(n), 16).unwrap_or('0')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses text that must be valid.
    fn ok(text: &str) -> Json<'_> {
        match parse(text.as_bytes()) {
            Ok(v) => v,
            Err(e) => panic!("{text:?} was refused: {e}"),
        }
    }

    /// Parses bytes that must be refused.
    fn refused(bytes: &[u8]) -> ParseError {
        match parse(bytes) {
            Ok(v) => panic!("{:?} was accepted as {v:?}", String::from_utf8_lossy(bytes)),
            Err(e) => e,
        }
    }

    /// Parses a number literal.
    fn number(text: &str) -> Number {
        match ok(text) {
            Json::Number(n) => n,
            other => panic!("{text:?} parsed as {other:?}"),
        }
    }

    /// A small deterministic pseudo-random generator (xorshift64*).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    const SAMPLE: &str = r#"{
  "version": 2,
  "cluster_name": "cluster.example.com",
  "nodes": {
    "node1": {"total_memory": 32768, "free_memory": 31389.5, "offline": false,
              "tags": ["a", "b\u00e9\n", "\ud83d\ude00"], "group": null},
    "node1": {"total_memory": 1.5e0, "ratio": -0.25E-3}
  },
  "request": {"type": "allocate", "name": "inst\"1\\", "disks": [{"size": 1024}, {"size": 0}],
              "empty": {}, "none": [], "unicode": "ü€😀"}
}
"#;

    #[test]
    fn keeps_key_order_and_duplicate_keys() {
        let doc = ok(r#"{"b": 1, "a": 2, "b": 3, "c": {"z": null, "y": true}}"#);
        let Json::Object(members) = &doc else {
            panic!("not an object: {doc:?}")
        };
        let keys: Vec<&str> = members.iter().map(|(k, _)| k.as_ref()).collect();
        assert_eq!(keys, ["b", "a", "b", "c"]);
        assert_eq!(members[2].1, Json::Number(Number::from_f64(3.0)));
        // `get` returns the first of the duplicates.
        assert_eq!(doc.get("b").and_then(number_of), Some(1));
        assert_eq!(doc.get("a").and_then(number_of), Some(2));
        assert_eq!(doc.get("missing"), None);
        let inner = doc.get("c").map(|c| match c {
            Json::Object(m) => m.iter().map(|(k, _)| k.to_string()).collect::<Vec<_>>(),
            _ => Vec::new(),
        });
        assert_eq!(inner, Some(vec!["z".to_owned(), "y".to_owned()]));
        // `get` on anything but an object is None.
        assert_eq!(ok("[1]").get("a"), None);
        assert_eq!(ok("\"a\"").get("a"), None);
    }

    fn number_of(j: &Json) -> Option<i64> {
        match j {
            Json::Number(n) => n.as_int(),
            _ => None,
        }
    }

    #[test]
    fn sample_document_parses() {
        let doc = ok(SAMPLE);
        let nodes = doc.get("nodes");
        let Some(Json::Object(nodes)) = nodes else {
            panic!("no nodes")
        };
        assert_eq!(nodes.len(), 2);
        assert_eq!(nodes[0].0, "node1");
        assert_eq!(nodes[1].0, "node1");
        let node = &nodes[0].1;
        assert_eq!(node.get("free_memory").and_then(number_of), Some(31390));
        assert_eq!(node.get("offline"), Some(&Json::Bool(false)));
        assert_eq!(node.get("group"), Some(&Json::Null));
        let tags = node.get("tags");
        let expected = Json::Array(vec![
            Json::String("a".into()),
            Json::String("bé\n".into()),
            Json::String("😀".into()),
        ]);
        assert_eq!(tags, Some(&expected));
        assert_eq!(nodes[1].1.get("total_memory").and_then(number_of), Some(2));
        let request = doc.get("request");
        assert_eq!(
            request.and_then(|r| r.get("name")),
            Some(&Json::String("inst\"1\\".into()))
        );
        assert_eq!(
            request.and_then(|r| r.get("empty")),
            Some(&Json::Object(Vec::new()))
        );
        assert_eq!(
            request.and_then(|r| r.get("none")),
            Some(&Json::Array(Vec::new()))
        );
        assert_eq!(
            request.and_then(|r| r.get("unicode")),
            Some(&Json::String("ü€😀".into()))
        );
    }

    #[test]
    fn strings_borrow_from_the_input_unless_escaped() {
        let text = r#"{"plain": "text", "k\u0065y": "a\nb", "list": ["x", "", "y\"z"]}"#;
        let doc = ok(text);
        let Json::Object(members) = &doc else {
            panic!("not an object: {doc:?}")
        };
        let borrowed = |s: &Cow<'_, str>| matches!(s, Cow::Borrowed(_));
        let flags: Vec<bool> = members.iter().map(|(k, _)| borrowed(k)).collect();
        assert_eq!(flags, [true, false, true]);
        assert_eq!(members[1].0, "key");
        let strings: Vec<(&str, bool)> = [
            doc.get("plain"),
            doc.get("key"),
            doc.get("list").and_then(|l| match l {
                Json::Array(items) => items.first(),
                _ => None,
            }),
        ]
        .into_iter()
        .map(|v| match v {
            Some(Json::String(s)) => (s.as_ref(), borrowed(s)),
            other => panic!("not a string: {other:?}"),
        })
        .collect();
        assert_eq!(strings, [("text", true), ("a\nb", false), ("x", true)]);
        let Some(Json::Array(list)) = doc.get("list") else {
            panic!("no list")
        };
        assert_eq!(list[1], Json::String(Cow::Borrowed("")));
        assert!(matches!(&list[2], Json::String(Cow::Owned(s)) if s == "y\"z"));
        // A borrowed string points into the input itself.
        if let Some(Json::String(Cow::Borrowed(s))) = doc.get("plain") {
            let range = text.as_bytes().as_ptr_range();
            assert!(range.contains(&s.as_ptr()));
        }
    }

    #[test]
    fn top_level_values_of_every_kind() {
        assert_eq!(ok("null"), Json::Null);
        assert_eq!(ok(" true "), Json::Bool(true));
        assert_eq!(ok("\t\r\nfalse\n"), Json::Bool(false));
        assert_eq!(ok("\"x\""), Json::String("x".into()));
        assert_eq!(ok("[]"), Json::Array(Vec::new()));
        assert_eq!(ok("{ }"), Json::Object(Vec::new()));
        assert_eq!(ok("[ 1 , [ ] , { } ]").kind(), "an array");
        assert_eq!(number("7").as_int(), Some(7));
    }

    #[test]
    fn number_examples() {
        let cases: &[(&str, Option<i64>)] = &[
            ("2.5", Some(2)),
            ("3.5", Some(4)),
            ("-2.5", Some(-2)),
            ("-3.5", Some(-4)),
            ("2.5000000000000000001", Some(3)),
            ("2.4999999999999999999", Some(2)),
            ("1e2", Some(100)),
            ("1E2", Some(100)),
            ("1e+2", Some(100)),
            ("1.5e0", Some(2)),
            ("0.5", Some(0)),
            ("-0.5", Some(0)),
            ("1.5", Some(2)),
            ("0.5000000000000000000000001", Some(1)),
            ("0.4999999", Some(0)),
            ("0.05", Some(0)),
            ("0.96", Some(1)),
            ("31389.5", Some(31390)),
            ("31388.5", Some(31388)),
            ("1e-400", Some(0)),
            ("0e99999999999", Some(0)),
            ("0.000e999999999999999999999", Some(0)),
            ("-0", Some(0)),
            ("0", Some(0)),
            ("-0.0", Some(0)),
            ("9007199254740992", Some(1 << 53)),
            ("-9007199254740992", Some(-(1 << 53))),
            ("9007199254740993", None),
            ("-9007199254740993", None),
            ("9007199254740992.4", Some(1 << 53)),
            ("9007199254740992.5", Some(1 << 53)),
            ("9007199254740992.6", None),
            ("9007199254740991.5", Some(1 << 53)),
            ("90071992547409915e-1", Some(1 << 53)),
            ("9.007199254740992e15", Some(1 << 53)),
            ("10000000000000000", None),
            ("99999999999999999999", None),
            ("1e30", None),
            ("-1e30", None),
            ("1e15", Some(1_000_000_000_000_000)),
            ("1e16", None),
            ("123456789e-3", Some(123457)),
            ("123456500e-3", Some(123456)),
            ("123457500e-3", Some(123458)),
            ("1234567890123456789e-10", Some(123456789)),
            ("12345678901234567890e-10", Some(1234567890)),
            ("0.00000000000000000000000000000000001e35", Some(1)),
            ("0.00000000000000000000000000000000005e35", Some(5)),
            ("0.00000000000000000000000000000000005e34", Some(0)),
            ("0.00000000000000000000000000000000015e34", Some(2)),
            ("1e999999999999999999", None),
            ("1e-999999999999999999", Some(0)),
            ("-1e999999999999999999999999999999", None),
            ("1e-999999999999999999999999999999", Some(0)),
            ("100000000000000000000000000000e-29", Some(1)),
            ("1000000000000000000000000000000e-29", Some(10)),
            ("1.00000000000000000000000000000", Some(1)),
            ("123", Some(123)),
            ("-123", Some(-123)),
            ("999999999999999", Some(999_999_999_999_999)),
            ("-999999999999999", Some(-999_999_999_999_999)),
            ("1000000000000000", Some(1_000_000_000_000_000)),
        ];
        for &(text, int) in cases {
            let n = number(text);
            assert_eq!(n.as_int(), int, "as_int of {text}");
            let expected: f64 = text.parse().unwrap_or(f64::NAN);
            assert_eq!(n.as_f64().to_bits(), expected.to_bits(), "as_f64 of {text}");
        }
    }

    #[test]
    fn number_f64_edges() {
        assert!(number("-0").as_f64().is_sign_negative());
        assert_eq!(number("-0").as_f64(), 0.0);
        assert!(number("-0.0e5").as_f64().is_sign_negative());
        assert!(number("0").as_f64().is_sign_positive());
        assert_eq!(number("1e999999999999999999").as_f64(), f64::INFINITY);
        assert_eq!(number("-1e999999999999999999").as_f64(), f64::NEG_INFINITY);
        assert_eq!(number("1e-999999999999999999").as_f64(), 0.0);
        assert_eq!(number("1.7976931348623157e308").as_f64(), f64::MAX);
        assert_eq!(number("5e-324").as_f64(), 5e-324);
        assert_eq!(number("0.1").as_f64(), 0.1);
        assert_eq!(number("12.5").as_f64(), 12.5);
        // A long mantissa is still correctly rounded.
        let long = format!("0.{}1", "0".repeat(400));
        assert_eq!(number(&long).as_f64(), 1e-401_f64.max(0.0));
        assert_eq!(number(&long).as_int(), Some(0));
        let long = format!("1{}", "0".repeat(400));
        assert_eq!(number(&long).as_f64(), f64::INFINITY);
        assert_eq!(number(&long).as_int(), None);
    }

    #[test]
    fn numbers_match_an_exact_reference() {
        // Compares with the exact quotient of i128s for literals small enough
        // for that, and with `str::parse` for the f64.
        let mut rng = Rng(0x1234_5678_9ABC_DEF1);
        for _ in 0..3000 {
            let int_len = 1 + rng.below(9);
            let frac_len = rng.below(9);
            let mut text = String::new();
            let negative = rng.below(2) == 0;
            if negative {
                text.push('-');
            }
            let mut digits = String::new();
            for i in 0..int_len {
                let d = if i == 0 && int_len > 1 {
                    1 + rng.below(9)
                } else {
                    rng.below(10)
                };
                digits.push(char::from(b'0' + d as u8));
            }
            text.push_str(&digits);
            let mut frac = String::new();
            for _ in 0..frac_len {
                // Favour 0, 5 and 9 to hit ties and carries.
                let d = match rng.below(4) {
                    0 => 0,
                    1 => 5,
                    2 => 9,
                    _ => rng.below(10),
                };
                frac.push(char::from(b'0' + d as u8));
            }
            if frac_len > 0 {
                text.push('.');
                text.push_str(&frac);
            }
            let exponent = rng.below(13) as i64 - 6;
            if rng.below(2) == 0 {
                text.push_str(&format!("e{exponent}"));
            } else if exponent != 0 {
                text.push_str(&format!("E{exponent:+}"));
            }
            let exponent = if text.contains(['e', 'E']) {
                exponent
            } else {
                0
            };
            let mantissa: i128 = format!("{digits}{frac}").parse().unwrap_or(0);
            let scale = exponent - frac_len as i64;
            let (num, den) = if scale >= 0 {
                (mantissa * 10i128.pow(scale as u32), 1i128)
            } else {
                (mantissa, 10i128.pow((-scale) as u32))
            };
            let (q, r) = (num / den, num % den);
            let rounded = match (2 * r).cmp(&den) {
                std::cmp::Ordering::Less => q,
                std::cmp::Ordering::Greater => q + 1,
                std::cmp::Ordering::Equal => q + (q % 2),
            };
            let rounded = if negative { -rounded } else { rounded };
            let expected = if rounded.abs() <= 1 << 53 {
                Some(rounded as i64)
            } else {
                None
            };
            let n = number(&text);
            assert_eq!(n.as_int(), expected, "as_int of {text}");
            let f: f64 = text.parse().unwrap_or(f64::NAN);
            assert_eq!(n.as_f64().to_bits(), f.to_bits(), "as_f64 of {text}");
        }
    }

    #[test]
    fn from_f64_rounds_half_to_even() {
        assert_eq!(Number::from_f64(2.5).as_int(), Some(2));
        assert_eq!(Number::from_f64(3.5).as_int(), Some(4));
        assert_eq!(Number::from_f64(-2.5).as_int(), Some(-2));
        assert_eq!(Number::from_f64(-0.0).as_int(), Some(0));
        assert_eq!(Number::from_f64(9007199254740992.0).as_int(), Some(1 << 53));
        assert_eq!(Number::from_f64(9007199254740994.0).as_int(), None);
        assert_eq!(Number::from_f64(f64::INFINITY).as_int(), None);
        assert_eq!(Number::from_f64(f64::NAN).as_int(), None);
        assert_eq!(Number::from_f64(12.5).as_f64(), 12.5);
        assert_eq!(number("12.5"), Number::from_f64(12.5));
        assert_eq!(number("1024"), Number::from_f64(1024.0));
    }

    /// Checks that `input` is refused at `line`:`column` with a message
    /// containing `message`.
    fn check_refusal(input: &[u8], line: usize, column: usize, message: &str) {
        let e = refused(input);
        let shown = String::from_utf8_lossy(input);
        assert!(
            e.message.contains(message),
            "{shown:?}: message {:?}",
            e.message
        );
        assert_eq!(
            (e.line, e.column),
            (line, column),
            "{shown:?}: position of {e}"
        );
        assert!(!e.message.ends_with('.'), "{shown:?}: {e}");
        assert!(
            e.message.starts_with(|c: char| c.is_lowercase()),
            "{shown:?}: {e}"
        );
    }

    #[test]
    fn grammar_refusals() {
        let cases: &[(&str, usize, usize, &str)] = &[
            ("", 1, 1, "expected a JSON value, found end of input"),
            ("  \n\t ", 2, 3, "expected a JSON value, found end of input"),
            ("01", 1, 1, "leading zeros are not allowed"),
            ("-01", 1, 2, "leading zeros are not allowed"),
            ("[00]", 1, 2, "leading zeros are not allowed"),
            (
                "1.",
                1,
                3,
                "expected a digit after the decimal point, found end of input",
            ),
            (
                "[1.]",
                1,
                4,
                "expected a digit after the decimal point, found ']'",
            ),
            (
                "1.e5",
                1,
                3,
                "expected a digit after the decimal point, found 'e'",
            ),
            (".5", 1, 1, "expected a JSON value, found '.'"),
            ("+1", 1, 1, "expected a JSON value, found '+'"),
            ("-", 1, 2, "expected a digit after '-', found end of input"),
            ("-a", 1, 2, "expected a digit after '-', found 'a'"),
            (
                "1e",
                1,
                3,
                "expected a digit in the exponent, found end of input",
            ),
            (
                "1e+",
                1,
                4,
                "expected a digit in the exponent, found end of input",
            ),
            ("1E-x", 1, 4, "expected a digit in the exponent, found 'x'"),
            ("NaN", 1, 1, "expected a JSON value, found 'NaN'"),
            ("Infinity", 1, 1, "expected a JSON value, found 'Infinity'"),
            ("-Infinity", 1, 2, "expected a digit after '-', found 'I'"),
            ("[1, nan]", 1, 5, "expected a JSON value, found 'nan'"),
            ("True", 1, 1, "expected a JSON value, found 'True'"),
            ("tru", 1, 4, "expected 'true', found end of input"),
            ("nul", 1, 4, "expected 'null', found end of input"),
            ("fals", 1, 5, "expected 'false', found end of input"),
            ("truth", 1, 1, "expected a JSON value, found 'truth'"),
            ("nulll", 1, 5, "unexpected data after the JSON value"),
            ("// c\n1", 1, 1, "expected a JSON value, found '/'"),
            ("/* c */ 1", 1, 1, "expected a JSON value, found '/'"),
            (
                "[1 /* c */]",
                1,
                4,
                "expected ',' or ']' after an array element, found '/'",
            ),
            ("[1,]", 1, 4, "expected a JSON value, found ']'"),
            ("[,1]", 1, 2, "expected a JSON value or ']', found ','"),
            (
                "{\"a\":1,}",
                1,
                8,
                "expected a string key after ',', found '}'",
            ),
            ("{,}", 1, 2, "expected a string key or '}', found ','"),
            ("{'a':1}", 1, 2, "expected a string key or '}', found \"'\""),
            ("['a']", 1, 2, "expected a JSON value or ']', found \"'\""),
            ("{a:1}", 1, 2, "expected a string key or '}', found 'a'"),
            (
                "{\"a\" 1}",
                1,
                6,
                "expected ':' after an object key, found '1'",
            ),
            ("{\"a\":}", 1, 6, "expected a JSON value, found '}'"),
            (
                "[1 2]",
                1,
                4,
                "expected ',' or ']' after an array element, found '2'",
            ),
            (
                "{\"a\":1 \"b\":2}",
                1,
                8,
                "expected ',' or '}' after an object member, found '\"'",
            ),
            (
                "[1}",
                1,
                3,
                "expected ',' or ']' after an array element, found '}'",
            ),
            (
                "{\"a\":1]",
                1,
                7,
                "expected ',' or '}' after an object member, found ']'",
            ),
            ("1 2", 1, 3, "unexpected data after the JSON value"),
            ("{} x", 1, 4, "unexpected data after the JSON value"),
            (
                "\"a\"\n\n  \"b\"",
                3,
                3,
                "unexpected data after the JSON value",
            ),
            ("[\n1,\n2,\n]", 4, 1, "expected a JSON value, found ']'"),
            ("\u{c}1", 1, 1, "expected a JSON value, found U+000C"),
            ("\u{a0}1", 1, 1, "expected a JSON value, found U+00A0"),
            ("é", 1, 1, "expected a JSON value, found 'é' (U+00E9)"),
            ("\"abc", 1, 1, "unterminated string"),
            ("[\"a\", \"b", 1, 7, "unterminated string"),
            ("\"ab\\", 1, 1, "unterminated string"),
            (
                "{",
                1,
                2,
                "expected a string key or '}', found end of input",
            ),
            (
                "{\"a\"",
                1,
                5,
                "expected ':' after an object key, found end of input",
            ),
            ("{\"a\":", 1, 6, "expected a JSON value, found end of input"),
            (
                "{\"a\":1",
                1,
                7,
                "expected ',' or '}' after an object member, found end of input",
            ),
            (
                "{\"a\":1,",
                1,
                8,
                "expected a string key after ',', found end of input",
            ),
            (
                "[",
                1,
                2,
                "expected a JSON value or ']', found end of input",
            ),
            (
                "[1",
                1,
                3,
                "expected ',' or ']' after an array element, found end of input",
            ),
            ("[1,", 1, 4, "expected a JSON value, found end of input"),
            (
                "\"a\nb\"",
                1,
                3,
                "unescaped control character U+000A in a string",
            ),
            (
                "\"a\u{0}\"",
                1,
                3,
                "unescaped control character U+0000 in a string",
            ),
            (
                "\"\t\"",
                1,
                2,
                "unescaped control character U+0009 in a string",
            ),
            ("\"\\x\"", 1, 3, "after '\\' in a string, found 'x'"),
            ("\"\\'\"", 1, 3, "after '\\' in a string, found \"'\""),
            ("\"\\U0041\"", 1, 3, "after '\\' in a string, found 'U'"),
            (
                "\"\\u12\"",
                1,
                6,
                "expected a hex digit in a \\u escape, found '\"'",
            ),
            (
                "\"\\u12g4\"",
                1,
                6,
                "expected a hex digit in a \\u escape, found 'g'",
            ),
            (
                "\"\\u12",
                1,
                6,
                "expected a hex digit in a \\u escape, found end of input",
            ),
            ("\"é\\q\"", 1, 4, "found 'q'"),
        ];
        for &(input, line, column, message) in cases {
            check_refusal(input.as_bytes(), line, column, message);
        }
    }

    #[test]
    fn error_display_and_offset() {
        let e = refused(b"{\n  \"a\": [1,\n  2,, 3]\n}");
        assert_eq!(
            e.to_string(),
            "line 3, column 5: expected a JSON value, found ','"
        );
        assert_eq!(e.offset, 17);
        // Columns count characters, not bytes.
        let e = refused("{\"ééé\": x}".as_bytes());
        assert_eq!((e.line, e.column, e.offset), (1, 9, 11));
        let e: Box<dyn std::error::Error> = Box::new(refused(b"?"));
        assert_eq!(
            e.to_string(),
            "line 1, column 1: expected a JSON value, found '?'"
        );
    }

    #[test]
    fn surrogates() {
        assert_eq!(ok(r#""\ud83d\ude00""#), Json::String("😀".into()));
        assert_eq!(ok(r#""\uD834\uDD1E""#), Json::String("𝄞".into()));
        assert_eq!(
            ok(r#""x\uDBFF\uDFFFy""#),
            Json::String("x\u{10FFFF}y".into())
        );
        assert_eq!(
            ok(r#""\u0041\u00e9\u20AC\uffff""#),
            Json::String("Aé€\u{ffff}".into())
        );
        assert_eq!(ok(r#""\u0000""#), Json::String("\0".into()));
        let lone: &[(&str, usize)] = &[
            (r#""\ud83d""#, 2),
            (r#""\ud83d x""#, 2),
            (r#""ab\ude00""#, 4),
            (r#""\ud83d\u0041""#, 2),
            (r#""\ud83d\ud83d""#, 2),
            (r#""\ud83d\n""#, 2),
            (r#"["\udc00\ud800"]"#, 3),
        ];
        for &(input, column) in lone {
            check_refusal(input.as_bytes(), 1, column, "lone surrogate in \\u escape");
        }
        // A high surrogate followed by a broken escape reports the escape.
        check_refusal(br#""\ud83d\u12""#, 1, 12, "expected a hex digit");
        check_refusal(br#""\ud83d\u"#, 1, 10, "found end of input");
    }

    #[test]
    fn invalid_utf8() {
        let cases: &[(&[u8], usize, usize)] = &[
            (b"\"a\xffb\"", 1, 3),
            (b"\"\xc3\"", 1, 2),
            (b"\"\xc3\xa9\xc3\"", 1, 3),
            (b"\"\xed\xa0\x80\"", 1, 2),
            (b"\"\xc0\xaf\"", 1, 2),
            (b"\"\xf4\x90\x80\x80\"", 1, 2),
            (b"\"a\\n\xe2\x82\"", 1, 5),
            (b"\"unterminated \xff", 1, 15),
            (b"\xff", 1, 1),
            (b"[1,\xfe]", 1, 4),
            (b"[1 \xc3]", 1, 4),
            (b"{\"a\":1}\xff", 1, 8),
            (b"{\"\xc3\xa9\":1,\n\"k\xff\":2}", 2, 3),
        ];
        for &(input, line, column) in cases {
            check_refusal(input, line, column, "");
            let e = refused(input);
            if input.ends_with(b"}\xff") {
                assert_eq!(e.message, "unexpected data after the JSON value");
            } else {
                assert!(e.message.starts_with("invalid UTF-8"), "{input:?}: {e}");
            }
        }
        assert_eq!(refused(b"\"a\xffb\"").message, "invalid UTF-8 (byte 0xff)");
        // Valid multi-byte UTF-8 of every length is accepted.
        assert_eq!(
            ok("\"\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}\""),
            Json::String("\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}".into())
        );
    }

    #[test]
    fn errors_are_reported_in_input_order() {
        // A syntax error before an invalid byte is reported first, and the
        // other way round.
        check_refusal(b"[1 2, \"\xff\"]", 1, 4, "expected ',' or ']'");
        check_refusal(b"[\"\xff\", 1 2]", 1, 3, "invalid UTF-8 (byte 0xff)");
        check_refusal(b"[\"a\\q\xff\"]", 1, 5, "found 'q'");
        check_refusal(b"[\"a\\n\xff\"]", 1, 6, "invalid UTF-8");
        check_refusal(b"[\"a\n\xff\"]", 1, 4, "unescaped control character U+000A");
        check_refusal(b"[\"\xff\n\"]", 1, 3, "invalid UTF-8");
    }

    #[test]
    fn plain_run_end_matches_a_byte_loop() {
        let mut rng = Rng(7);
        let alphabet = b"aZ \"\\\x00\x1f\x20\x7f\x80\xff\x5b\x5d\x21\x23";
        for _ in 0..2000 {
            let len = rng.below(40);
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    if rng.below(8) == 0 {
                        alphabet
                            .get(rng.below(alphabet.len()))
                            .copied()
                            .unwrap_or(0)
                    } else {
                        b'a' + rng.below(26) as u8
                    }
                })
                .collect();
            for from in 0..=bytes.len() {
                let expected = (from..bytes.len())
                    .find(|&i| matches!(bytes[i], b'"' | b'\\' | 0x00..=0x1f))
                    .unwrap_or(bytes.len());
                assert_eq!(
                    plain_run_end(&bytes, from),
                    expected,
                    "{bytes:?} from {from}"
                );
            }
        }
        assert_eq!(plain_run_end(b"abc", 7), 3);
    }

    #[test]
    fn byte_order_mark() {
        let e = refused(b"\xEF\xBB\xBF{}");
        assert_eq!(e.message, "input starts with a UTF-8 byte order mark");
        assert_eq!((e.line, e.column, e.offset), (1, 1, 0));
        check_refusal(b"\xEF\xBB\xBF", 1, 1, "byte order mark");
        check_refusal(
            " \u{feff}{}".as_bytes(),
            1,
            2,
            "expected a JSON value, found U+FEFF",
        );
        // Inside a string the character is ordinary text.
        assert_eq!(ok("\"\u{feff}\""), Json::String("\u{feff}".into()));
    }

    #[test]
    fn very_deep_input_is_refused_quickly() {
        let started = std::time::Instant::now();
        let deep = "[".repeat(100_000);
        let e = refused(deep.as_bytes());
        assert_eq!(e.message, "nesting deeper than 512 levels");
        assert_eq!(e.offset, MAX_DEPTH);
        let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(refused(deep.as_bytes()).offset, MAX_DEPTH);
        let deep = "{\"a\":".repeat(100_000);
        let e = refused(deep.as_bytes());
        assert_eq!(e.message, "nesting deeper than 512 levels");
        assert_eq!(e.offset, MAX_DEPTH * 5);
        let deep = "[{\"a\":".repeat(50_000);
        assert_eq!(refused(deep.as_bytes()).offset, MAX_DEPTH / 2 * 6);
        assert!(
            started.elapsed().as_secs() < 2,
            "took {:?}",
            started.elapsed()
        );
    }

    #[test]
    fn nesting_limit_is_exact() {
        let at_limit = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        let mut value = ok(&at_limit);
        let mut depth = 0;
        while let Json::Array(mut items) = value {
            depth += 1;
            value = items.pop().unwrap_or(Json::Null);
        }
        assert_eq!(depth, MAX_DEPTH);
        let over = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        check_refusal(
            over.as_bytes(),
            1,
            MAX_DEPTH + 1,
            "nesting deeper than 512 levels",
        );

        let objects = |n: usize| format!("{}1{}", "{\"k\":".repeat(n), "}".repeat(n));
        assert!(ok(&objects(MAX_DEPTH)).get("k").is_some());
        check_refusal(
            objects(MAX_DEPTH + 1).as_bytes(),
            1,
            MAX_DEPTH * 5 + 1,
            "nesting deeper",
        );

        // Empty containers count as a level too.
        let empty = |open: &str, close: &str| {
            format!(
                "{}{open}{close}{}",
                "[".repeat(MAX_DEPTH),
                "]".repeat(MAX_DEPTH)
            )
        };
        check_refusal(
            empty("[", "]").as_bytes(),
            1,
            MAX_DEPTH + 1,
            "nesting deeper",
        );
        check_refusal(
            empty("{", "}").as_bytes(),
            1,
            MAX_DEPTH + 1,
            "nesting deeper",
        );
        let wide = format!("[{}]", "[[1]],".repeat(10_000) + "2");
        assert!(matches!(ok(&wide), Json::Array(items) if items.len() == 10_001));
    }

    #[test]
    fn every_truncation_is_refused() {
        let bytes = SAMPLE.trim_end().as_bytes();
        for cut in 0..bytes.len() {
            let e = refused(&bytes[..cut]);
            assert!(e.offset <= cut, "cut at {cut}: {e}");
            assert!(e.line >= 1 && e.column >= 1);
        }
        assert!(parse(bytes).is_ok());
    }

    #[test]
    fn fuzz_never_panics() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let alphabet = b"{}[]:,\"\\ \n0123456789.-+eEtrufalsn\x00\x1f\xc3\xa9\xff\xed\xa0ux";
        for _ in 0..3000 {
            let len = rng.below(40);
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    if rng.below(4) == 0 {
                        rng.next() as u8
                    } else {
                        alphabet
                            .get(rng.below(alphabet.len()))
                            .copied()
                            .unwrap_or(b' ')
                    }
                })
                .collect();
            check_consistent(&bytes);
        }
        let sample = SAMPLE.as_bytes();
        for _ in 0..3000 {
            let mut bytes = sample.to_vec();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(bytes.len() + 1);
                match rng.below(4) {
                    0 if at < bytes.len() => bytes[at] = rng.next() as u8,
                    1 if at < bytes.len() => {
                        bytes.remove(at);
                    }
                    2 => bytes.insert(at, alphabet[rng.below(alphabet.len())]),
                    _ => {
                        let from = rng.below(bytes.len());
                        let chunk: Vec<u8> = bytes
                            .iter()
                            .skip(from)
                            .take(rng.below(12))
                            .copied()
                            .collect();
                        let at = at.min(bytes.len());
                        bytes.splice(at..at, chunk);
                    }
                }
            }
            check_consistent(&bytes);
        }
    }

    /// Parses arbitrary bytes and checks that the outcome is coherent: an
    /// error lies within the input, and an accepted input is valid UTF-8 whose
    /// strings survive a round trip through the writer.
    fn check_consistent(bytes: &[u8]) {
        match parse(bytes) {
            Err(e) => {
                assert!(e.offset <= bytes.len());
                assert!(e.line >= 1 && e.column >= 1);
                assert!(!e.message.is_empty());
            }
            Ok(value) => {
                assert!(
                    std::str::from_utf8(bytes).is_ok(),
                    "accepted invalid UTF-8: {bytes:?}"
                );
                let _ = value.describe();
                if let Json::String(s) = &value {
                    let mut out = String::new();
                    write_string(&mut out, s);
                    assert_eq!(parse(out.as_bytes()).ok(), Some(value.clone()));
                }
            }
        }
    }

    #[test]
    fn write_string_escaping() {
        let cases: &[(&str, &str)] = &[
            ("", r#""""#),
            ("plain", r#""plain""#),
            ("q\"b\\", r#""q\"b\\""#),
            ("\u{8}\u{c}\n\r\t", r#""\b\f\n\r\t""#),
            ("\u{0}\u{1}\u{1b}\u{1f}", r#""\u0000\u0001\u001b\u001f""#),
            ("\u{b}\u{e}\u{10}\u{1a}", r#""\u000b\u000e\u0010\u001a""#),
            ("a/b", r#""a/b""#),
            ("\u{7f}", "\"\u{7f}\""),
            (" ", "\" \""),
            (
                "é€😀\u{80}\u{2028}\u{feff}",
                "\"é€😀\u{80}\u{2028}\u{feff}\"",
            ),
            ("x\u{1b}[0m\"end", r#""x\u001b[0m\"end""#),
        ];
        for &(input, expected) in cases {
            let mut out = String::from("prefix:");
            write_string(&mut out, input);
            assert_eq!(out, format!("prefix:{expected}"), "escaping {input:?}");
        }
    }

    #[test]
    fn write_then_parse_round_trips() {
        let mut strings: Vec<String> = [
            "",
            "a",
            "\"",
            "\\",
            "\\\"",
            "/",
            "\u{0}",
            "\u{1f}",
            "\u{7f}",
            "tab\there",
            "line\nbreak\r\n",
            "é",
            "日本語",
            "😀 emoji",
            "\u{10ffff}",
            "mixed \u{1} é \\ \" 😀",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        strings.push((0u32..0x80).filter_map(char::from_u32).collect());
        let mut rng = Rng(42);
        for _ in 0..300 {
            let len = rng.below(20);
            let s: String = (0..len)
                .filter_map(|_| {
                    let c = match rng.below(3) {
                        0 => rng.below(0x80) as u32,
                        1 => rng.below(0x800) as u32,
                        _ => rng.below(0x11_0000) as u32,
                    };
                    char::from_u32(c)
                })
                .collect();
            strings.push(s);
        }
        for s in strings {
            let mut out = String::new();
            write_string(&mut out, &s);
            assert_eq!(
                ok(&out),
                Json::String(s.clone().into()),
                "round trip of {s:?} via {out}"
            );
        }
    }

    #[test]
    fn kind_and_describe() {
        let cases: &[(&str, &str, &str)] = &[
            ("null", "null", "null"),
            ("true", "a boolean", "true"),
            ("false", "a boolean", "false"),
            ("12.5", "a number", "12.5"),
            ("-12", "a number", "-12"),
            ("-0", "a number", "-0"),
            ("1e30", "a number", "1e30"),
            ("-1.5e-7", "a number", "-1.5e-7"),
            ("31389.5", "a number", "31389.5"),
            ("9007199254740993", "a number", "9007199254740992"),
            ("1e999", "a number", "a number beyond 1.8e308"),
            ("\"lots\"", "a string", "\"lots\""),
            ("\"a\\nb\\u0001\"", "a string", "\"a\\nb\\u0001\""),
            ("[1]", "an array", "an array"),
            ("{}", "an object", "an object"),
        ];
        for &(input, kind, description) in cases {
            let value = ok(input);
            assert_eq!(value.kind(), kind, "kind of {input}");
            assert_eq!(value.describe(), description, "description of {input}");
        }
        let forty = "é".repeat(40);
        assert_eq!(
            Json::String(forty.clone().into()).describe(),
            format!("\"{forty}\"")
        );
        let long = format!("{forty}xyz");
        assert_eq!(
            Json::String(long.into()).describe(),
            format!("\"{forty}\"…")
        );
        assert_eq!(Json::Number(Number::from_f64(f64::NAN)).describe(), "NaN");
    }
}
