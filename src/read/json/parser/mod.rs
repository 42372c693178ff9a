//! The JSON grammar: reads a request's bytes into a [`Document`] tape.
//!
//! The parser never recurses on the input's depth: open arrays and objects
//! are an explicit stack of frames, checked against [`MAX_DEPTH`] as they
//! open. Positions for error messages are computed only when an error
//! happens. Strings are scanned sixteen bytes at a time (SSE2, on x86-64)
//! and runs of whitespace eight at a time ([`super::bytes`]); both find the
//! first byte that matters exactly, so what is accepted and every error are
//! unchanged.
//!
//! This file holds the entry points, the members' hooks and the parser's
//! structure (values, arrays, objects, streamed members, literals and the
//! wording of unexpected input); `strings.rs` its strings and keys with
//! their escapes, `number.rs` its numbers and their exact rounding.

mod number;
mod strings;

use super::bytes::{is_whitespace, whitespace_end_outlined};
use super::document::{Document, Tag, Token, Value};
use super::{error_at, MemberSink, ParseError, Scan, SplitPoint, Streamer, MAX_DEPTH};

/// Parses `input`, whose longest valid UTF-8 prefix is `text`.
pub(super) fn parse<'a>(input: &'a [u8], text: &'a str) -> Result<Document<'a>, ParseError> {
    // A request has about one token per nine bytes; starting near that
    // spares most of the vector's growth.
    let mut parser = Parser::new(input, text, input.len() / 8 + 16);
    parser.document(None)?;
    Ok(parser.doc)
}

/// Parses `input` like [`parse`], handing the members of the top-level
/// members `streamer` asks for to it instead of keeping them (see
/// [`Streamer`]).
pub(super) fn parse_streaming<'a>(
    input: &'a [u8],
    text: &'a str,
    streamer: &mut dyn Streamer,
    split: Option<&'a SplitPoint>,
) -> Result<Document<'a>, ParseError> {
    let mut parser = Parser::new(input, text, 64);
    parser.split = split;
    parser.document(Some(streamer))?;
    Ok(parser.doc)
}

/// Reads the members of an object from `at` on, as the parse of the whole
/// `input` would if it were there with `depth` containers open, the
/// innermost being this object and `at` the start of a member other than
/// its first. `rest` is `input[at..]` and `text` its longest valid UTF-8
/// prefix. Each member goes to `member`; before each one `stop` is asked
/// whether to give up. Returns the position after the object's closing
/// '}', or `None` when stopped; errors are the whole parse's, positions
/// in `input`.
pub(super) fn parse_members_from(
    input: &[u8],
    at: usize,
    rest: &[u8],
    text: &str,
    depth: usize,
    stop: &dyn Fn() -> bool,
    sink: &mut dyn MemberSink,
) -> Result<Option<usize>, ParseError> {
    let mut parser = Parser::new(rest, text, 64);
    parser.origin = input;
    parser.base = at;
    for _ in 0..depth {
        parser.frames.push(Frame {
            at: usize::MAX,
            object: true,
            count: 0,
        });
    }
    let mut hooks = TailMembers { stop, sink };
    Ok(parser
        .stream_members(false, &mut hooks)?
        .then_some(at + parser.pos))
}

/// What [`Parser::stream_members`] does before a member.
enum Next {
    /// Reads it.
    Read,
    /// Goes on from this position, past the object's closing '}': the
    /// rest of the object was read elsewhere.
    Skip(usize),
    /// Stops reading.
    Stop,
}

/// Where the members of a streamed object go.
trait MemberHooks {
    /// Asked before each member but the first, with its position.
    fn before(&mut self, at: usize) -> Result<Next, ParseError>;
    /// Offered each member first, to read straight from the input (see
    /// [`MemberSink::fast`]).
    fn fast(&mut self, scan: Scan<'_>) -> Option<usize>;
    /// One member, in a document that lives for this call only.
    fn member(&mut self, key: &str, value: Value<'_>);
}

/// The main parse's hooks: members go to the streamer, which is asked at
/// the split position whether the rest of the object was read elsewhere;
/// the split point hears how far the parse is.
struct StreamerMembers<'s> {
    streamer: &'s mut dyn Streamer,
    split: Option<&'s SplitPoint>,
}

impl MemberHooks for StreamerMembers<'_> {
    fn before(&mut self, at: usize) -> Result<Next, ParseError> {
        let Some(split) = self.split else {
            return Ok(Next::Read);
        };
        if !split.reach(at) {
            return Ok(Next::Read);
        }
        match self.streamer.split(at) {
            None => Ok(Next::Read),
            Some(Ok(end)) => Ok(Next::Skip(end)),
            Some(Err(e)) => Err(e),
        }
    }

    fn fast(&mut self, scan: Scan<'_>) -> Option<usize> {
        self.streamer.fast(scan)
    }

    fn member(&mut self, key: &str, value: Value<'_>) {
        self.streamer.member(key, value);
    }
}

/// The hooks of [`parse_members_from`].
struct TailMembers<'s, 'm> {
    stop: &'s dyn Fn() -> bool,
    sink: &'m mut dyn MemberSink,
}

impl MemberHooks for TailMembers<'_, '_> {
    fn before(&mut self, _: usize) -> Result<Next, ParseError> {
        Ok(if (self.stop)() {
            Next::Stop
        } else {
            Next::Read
        })
    }

    fn fast(&mut self, scan: Scan<'_>) -> Option<usize> {
        self.sink.fast(scan)
    }

    fn member(&mut self, key: &str, value: Value<'_>) {
        self.sink.member(key, value);
    }
}

/// What may stand where an object's key is expected.
fn key_expected(first: bool) -> &'static str {
    if first {
        "a string key or '}'"
    } else {
        "a string key after ','"
    }
}

/// An array or object that is open while the parser reads its contents.
struct Frame {
    /// The index of the container's token on the tape, patched when the
    /// container closes.
    at: usize,
    /// Whether the container is an object.
    object: bool,
    /// How many items the container had when an inner container opened.
    count: u32,
}

/// The parser's state: the input, the read position, the explicit stack of
/// open containers, and the document being built.
struct Parser<'a> {
    input: &'a [u8],
    /// The longest prefix of `input` that is valid UTF-8.
    text: &'a str,
    /// The whole text `input` is the end of, from `base` on: errors give
    /// positions in it (the same as `input` but for a parse of one
    /// object's later members, [`parse_members_from`]).
    origin: &'a [u8],
    base: usize,
    /// Where the parse says how far it is, and learns where another
    /// thread may be reading a streamed object's later members (see
    /// [`Streamer::split`]).
    split: Option<&'a SplitPoint>,
    pos: usize,
    frames: Vec<Frame>,
    /// The document being written: the main one, or while a streamed
    /// member is read, that member's own (see [`Parser::stream_object`]).
    doc: Document<'a>,
    /// The other one of the two.
    other: Document<'a>,
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
    fn new(input: &'a [u8], text: &'a str, tokens: usize) -> Parser<'a> {
        Parser {
            input,
            text,
            origin: input,
            base: 0,
            split: None,
            pos: 0,
            frames: Vec::new(),
            doc: Document::empty(text, tokens),
            other: Document::empty(text, 0),
        }
    }

    /// Reads the top-level object, asking `streamer` at each member whether
    /// to stream its value. The tape is the one [`Parser::value`] writes,
    /// except that a streamed value is an empty object; errors are the same.
    fn streamed_top(&mut self, streamer: &mut dyn Streamer) -> Result<(), ParseError> {
        if self.open(self.pos, true)? {
            self.push_empty(true);
            return Ok(());
        }
        let at = self.doc.tape.len();
        self.begin(true);
        let mut count: u32 = 0;
        let mut first = true;
        loop {
            let key_at = self.doc.tape.len();
            self.key(key_expected(first))?;
            self.skip_whitespace();
            // The members before this one, complete, for the streamer.
            if let Some(slot) = self.doc.tape.get_mut(at) {
                *slot = Token::container(Tag::Object, count, key_at as u32);
            }
            count += 1;
            let is_object = self.peek() == Some(b'{');
            if streamer.wants(&self.doc, self.doc.str_at(key_at), is_object) && is_object {
                self.stream_object(streamer)?;
            } else {
                self.value("a JSON value")?;
            }
            if !self.next_member()? {
                break;
            }
            first = false;
        }
        self.frames.pop();
        let end = self.doc.tape.len() as u32;
        if let Some(slot) = self.doc.tape.get_mut(at) {
            *slot = Token::container(Tag::Object, count, end);
        }
        Ok(())
    }

    /// After an object member: past the ',' and the whitespace after it
    /// (`true`: another member follows), or past the closing '}'.
    fn next_member(&mut self) -> Result<bool, ParseError> {
        self.skip_whitespace();
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                self.skip_whitespace();
                Ok(true)
            }
            Some(b'}') => {
                self.pos += 1;
                Ok(false)
            }
            _ => Err(self.unexpected_token(self.pos, "',' or '}' after an object member")),
        }
    }

    /// Reads the object at the read position member by member: each member
    /// (key and value) is written into a document of its own and handed to
    /// `streamer`; the main tape gets an empty object in its place.
    fn stream_object(&mut self, streamer: &mut dyn Streamer) -> Result<(), ParseError> {
        if !self.open(self.pos, true)? {
            // The object's frame counts towards the depth limit like any
            // open object's; it has no token to patch.
            self.frames.push(Frame {
                at: usize::MAX,
                object: true,
                count: 0,
            });
            let mut hooks = StreamerMembers {
                streamer: &mut *streamer,
                split: self.split,
            };
            self.stream_members(true, &mut hooks)?;
            self.frames.pop();
        }
        self.push_empty(true);
        streamer.end();
        Ok(())
    }

    /// Reads the members of the open object at the read position (a key,
    /// the object's first when `first`) to past its closing '}', each
    /// into a document of its own handed to `hooks`, which are asked
    /// before each member but the first whether to read it (see [`Next`]).
    /// Returns whether the object was read to its end (`false`: stopped).
    fn stream_members(
        &mut self,
        mut first: bool,
        hooks: &mut dyn MemberHooks,
    ) -> Result<bool, ParseError> {
        loop {
            if !first {
                match hooks.before(self.pos)? {
                    Next::Read => {}
                    Next::Skip(end) => {
                        self.pos = end;
                        return Ok(true);
                    }
                    Next::Stop => return Ok(false),
                }
            }
            if let Some(end) = hooks.fast(Scan::new(self.input, self.text, self.pos)) {
                self.pos = end;
                if !self.next_member()? {
                    return Ok(true);
                }
                first = false;
                continue;
            }
            std::mem::swap(&mut self.doc, &mut self.other);
            self.doc.clear();
            let read = self.key(key_expected(first)).and_then(|()| {
                self.skip_whitespace();
                self.value("a JSON value")
            });
            std::mem::swap(&mut self.doc, &mut self.other);
            read?;
            let (key, value) = self.other.member();
            hooks.member(key, value);
            if !self.next_member()? {
                return Ok(true);
            }
            first = false;
        }
    }

    /// Parses the whole input as one value followed by optional whitespace.
    fn document(&mut self, streamer: Option<&mut dyn Streamer>) -> Result<(), ParseError> {
        self.skip_whitespace();
        match (self.peek(), streamer) {
            (Some(b'{'), Some(streamer)) => self.streamed_top(streamer)?,
            _ => self.value("a JSON value")?,
        }
        self.skip_whitespace();
        if self.pos < self.input.len() {
            return Err(self.error(self.pos, "unexpected data after the JSON value"));
        }
        Ok(())
    }

    /// Opens the frame of a non-empty array or object whose token comes
    /// next, and pushes a placeholder for that token, patched when the
    /// container closes.
    #[inline]
    fn begin(&mut self, object: bool) {
        self.frames.push(Frame {
            at: self.doc.tape.len(),
            object,
            count: 0,
        });
        push(&mut self.doc.tape, Token::NULL);
    }

    /// Pushes the token of an empty array or object.
    #[inline]
    fn push_empty(&mut self, object: bool) {
        let tag = if object { Tag::Object } else { Tag::Array };
        // The input is under 4 GiB and each token takes a byte of it, so
        // tape indices fit in 32 bits.
        let end = self.doc.tape.len() as u32 + 1;
        push(&mut self.doc.tape, Token::container(tag, 0, end));
    }

    /// Reads the value at the read position `start` when it is not an array
    /// or object, and pushes its token; `expected` names what may stand
    /// there, for the message when nothing valid does.
    #[inline]
    fn scalar(&mut self, start: usize, expected: &str) -> Result<(), ParseError> {
        let token = match self.peek() {
            Some(b'"') => self.string()?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(b't') => {
                self.literal(b"true")?;
                Token::TRUE
            }
            Some(b'f') => {
                self.literal(b"false")?;
                Token::FALSE
            }
            Some(b'n') => {
                self.literal(b"null")?;
                Token::NULL
            }
            _ => return Err(self.unexpected_token(start, expected)),
        };
        push(&mut self.doc.tape, token);
        Ok(())
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

    /// Reads one value at the read position, of any kind, and pushes its
    /// tokens; `expected` names what may stand there, for the message when
    /// nothing valid does.
    fn value(&mut self, expected: &str) -> Result<(), ParseError> {
        let start = self.pos;
        match self.peek() {
            Some(open @ (b'{' | b'[')) => {
                let object = open == b'{';
                if self.open(start, object)? {
                    self.push_empty(object);
                } else {
                    let base = self.frames.len();
                    self.begin(object);
                    self.contents(base)?;
                }
                Ok(())
            }
            _ => self.scalar(start, expected),
        }
    }

    /// Reads the contents of the open containers above the first `base`
    /// frames, the innermost one from its first item on, until the one just
    /// above `base` closes.
    fn contents(&mut self, base: usize) -> Result<(), ParseError> {
        // Whether the container the next item goes into is an object, how
        // many items it has so far (both kept in step with the top frame),
        // and whether the next item is its first.
        let mut object = self.frames.last().is_some_and(|f| f.object);
        let mut count: u32 = 0;
        let mut first = true;
        'item: loop {
            if object {
                self.key(key_expected(first))?;
                self.skip_whitespace();
            }
            // The input is under 4 GiB and every item takes a byte, so the
            // count cannot overflow.
            count += 1;
            let start = self.pos;
            match self.peek() {
                Some(open @ (b'{' | b'[')) => {
                    let inner = open == b'{';
                    if self.open(start, inner)? {
                        self.push_empty(inner);
                    } else {
                        if let Some(parent) = self.frames.last_mut() {
                            parent.count = count;
                        }
                        self.begin(inner);
                        object = inner;
                        count = 0;
                        first = true;
                        continue 'item;
                    }
                }
                _ => {
                    let expected = if first && !object {
                        "a JSON value or ']'"
                    } else {
                        "a JSON value"
                    };
                    self.scalar(start, expected)?;
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
                let tag = if object { Tag::Object } else { Tag::Array };
                let end = self.doc.tape.len() as u32;
                if let Some(slot) = self.doc.tape.get_mut(frame.at) {
                    *slot = Token::container(tag, count, end);
                }
                if self.frames.len() <= base {
                    return Ok(());
                }
                match self.frames.last() {
                    None => return Ok(()),
                    Some(parent) => {
                        object = parent.object;
                        count = parent.count;
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

    /// Advances past any JSON whitespace. Compact JSON has none between
    /// tokens, so the first byte is checked here and a run is skipped out
    /// of line ([`whitespace_end`](super::bytes::whitespace_end)).
    #[inline]
    fn skip_whitespace(&mut self) {
        if self.input.get(self.pos).is_some_and(|&b| is_whitespace(b)) {
            self.pos = whitespace_end_outlined(self.input, self.pos + 1);
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
        error_at(self.origin, self.base + offset, message)
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
