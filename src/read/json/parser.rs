//! The JSON grammar: reads a request's bytes into a [`Document`] tape.
//!
//! The parser never recurses on the input's depth: open arrays and objects
//! are an explicit stack of frames, checked against [`MAX_DEPTH`] as they
//! open. Positions for error messages are computed only when an error
//! happens. Strings are scanned sixteen bytes at a time (SSE2, on x86-64)
//! and runs of whitespace eight at a time; both find the first byte that
//! matters exactly, so what is accepted and every error are unchanged.

use super::document::{Document, LongString, Tag, Token, Value};
use super::{
    error_at, MemberSink, Number, ParseError, Scan, SplitPoint, Streamer, EXPONENT_CAP, INT_LIMIT,
    MAX_DEPTH,
};

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
    /// of line ([`whitespace_end`]).
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

    /// Reads an object key and the ':' after it; `expected` says what may
    /// stand here, for the message when no key does.
    #[inline]
    fn key(&mut self, expected: &str) -> Result<(), ParseError> {
        if self.peek() != Some(b'"') {
            return Err(self.unexpected_token(self.pos, expected));
        }
        let key = self.string()?;
        push(&mut self.doc.tape, key);
        self.skip_whitespace();
        if self.peek() != Some(b':') {
            return Err(self.unexpected_token(self.pos, "':' after an object key"));
        }
        self.pos += 1;
        Ok(())
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
    /// Without escapes its token points into the input; with them, the
    /// decoded text is appended to the document's decoded buffer.
    #[inline]
    fn string(&mut self) -> Result<Token, ParseError> {
        let open = self.pos;
        let run = open + 1;
        let p = plain_run_end(self.input, run);
        if self.input.get(p) == Some(&b'"') && p <= self.text.len() {
            // The common case: no escapes, so the text is one span of input,
            // all of it valid UTF-8.
            self.pos = p + 1;
            return Ok(self.string_token(false, run, p - run));
        }
        self.decoded_string(open, p)
    }

    /// Reads the rest of the string literal that opens at `open`, the slow
    /// way. `p` is where its first run of plain characters ends: at an
    /// escape, a control character or the end of input, or at the closing
    /// quote when the run is not valid UTF-8.
    #[inline(never)]
    fn decoded_string(&mut self, open: usize, p: usize) -> Result<Token, ParseError> {
        // Taken out of the parser while it is written, and put back after.
        let mut out = std::mem::take(&mut self.doc.decoded);
        let start = out.len();
        let end = self.decode_into(open, p, &mut out);
        let len = out.len() - start;
        self.doc.decoded = out;
        self.pos = end?;
        Ok(self.string_token(true, start, len))
    }

    /// The token of a string whose text is `len` bytes from `offset` in the
    /// decoded buffer or the input. Offsets and lengths fit in 32 bits: the
    /// input is under 4 GiB, and decoded text is never longer than its
    /// literal.
    #[inline]
    fn string_token(&mut self, decoded: bool, offset: usize, len: usize) -> Token {
        let (offset, len) = (offset as u32, len as u32);
        if len <= Token::MID_MAX {
            let tag = if decoded { Tag::Decoded } else { Tag::Str };
            return Token::new(tag, len, offset);
        }
        let index = self.doc.long_strings.len() as u32;
        self.doc.long_strings.push(LongString {
            decoded,
            offset,
            len,
        });
        Token::new(Tag::Long, 0, index)
    }

    /// Appends the decoded text of the string literal that opens at `open`
    /// to `out` (see [`Parser::decoded_string`] for `p`), and returns the
    /// position after its closing quote.
    fn decode_into(
        &self,
        open: usize,
        mut p: usize,
        out: &mut String,
    ) -> Result<usize, ParseError> {
        let input = self.input;
        out.push_str(self.text(open + 1, p)?);
        loop {
            match input.get(p) {
                None => return Err(self.error(open, "unterminated string")),
                Some(b'"') => return Ok(p + 1),
                Some(b'\\') => p = self.escape(p, open, out)?,
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
    fn number(&mut self) -> Result<Token, ParseError> {
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
            // `-0` is an integer, but its `f64` view is -0.0: it takes the
            // general path.
            if !(negative && magnitude == 0) {
                self.pos = int_end;
                return Ok(Token::int(if negative { -magnitude } else { magnitude }));
            }
        }
        let n = self.general_number()?;
        // Every number takes a byte of the input: the index fits.
        let index = self.doc.numbers.len() as u32;
        push(&mut self.doc.numbers, n);
        Ok(Token::new(Tag::Float, 0, index))
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

/// JSON's whitespace: space, line feed, carriage return, tab.
#[inline]
pub(super) fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

/// The end of the run of JSON whitespace from `from` on.
///
/// On x86-64 sixteen bytes are looked at a time with SSE2, where a line
/// feed and an indentation fit in one step; elsewhere, and for the last
/// bytes of the input, eight at a time ([`whitespace_end_swar`]). Both find
/// the first byte that is not whitespace exactly.
#[inline]
pub(super) fn whitespace_end(input: &[u8], from: usize) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8};
        // SAFETY: SSE2 is enabled (the cfg above; every
        // x86-64 target has it); these intrinsics only compute on values.
        let found = find16(input, from, |v| unsafe {
            let is = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
            let blank = _mm_or_si128(
                _mm_or_si128(is(b' '), is(b'\n')),
                _mm_or_si128(is(b'\r'), is(b'\t')),
            );
            // The bytes that are not whitespace.
            !(_mm_movemask_epi8(blank) as u32) & 0xffff
        });
        found.unwrap_or_else(|p| whitespace_end_swar(input, p))
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    whitespace_end_swar(input, from)
}

/// The first byte from `from` on that `marks` marks, sixteen bytes at a
/// time with SSE2: `marks` gets sixteen bytes and returns one bit per byte
/// to stop at, the first byte's lowest. `Err` gives where fewer than
/// sixteen bytes are left, for the caller's other way.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn find16(
    input: &[u8],
    from: usize,
    marks: impl Fn(std::arch::x86_64::__m128i) -> u32,
) -> Result<usize, usize> {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128};
    let mut p = from;
    while let Some(chunk) = input.get(p..p.saturating_add(16)) {
        // SAFETY: SSE2 is enabled (the cfg above; every x86-64 target has
        // it), and `chunk` is 16 readable bytes, which `loadu` reads at any
        // alignment.
        let v = unsafe { _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>()) };
        let mask = marks(v);
        if mask != 0 {
            return Ok(p + mask.trailing_zeros() as usize);
        }
        p += 16;
    }
    Err(p)
}

/// [`whitespace_end`], not inlined (the parser's calls).
#[inline(never)]
fn whitespace_end_outlined(input: &[u8], from: usize) -> usize {
    whitespace_end(input, from)
}

/// [`whitespace_end`] eight bytes at a time. Indented JSON is mostly line
/// feeds followed by runs of spaces: each word is looked at for the first
/// byte that is not a space (a byte of the word XORed with eight spaces is
/// zero exactly where the input has a space); a line feed, carriage return
/// or tab there is stepped over and the search goes on.
#[inline(never)]
pub(super) fn whitespace_end_swar(input: &[u8], from: usize) -> usize {
    const SPACES: u64 = 0x2020_2020_2020_2020;
    let mut p = from;
    while let Some(chunk) = input.get(p..p.saturating_add(8)) {
        let Ok(bytes) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let others = u64::from_le_bytes(bytes) ^ SPACES;
        if others == 0 {
            p += 8;
            continue;
        }
        p += (others.trailing_zeros() / 8) as usize;
        match input.get(p) {
            Some(&b) if is_whitespace(b) => p += 1,
            _ => return p,
        }
    }
    while input.get(p).is_some_and(|&b| is_whitespace(b)) {
        p += 1;
    }
    p
}

/// The end of the run of string bytes from `from` on that need no special
/// handling: everything but '"', '\\' and control characters.
///
/// On x86-64 it looks at sixteen bytes at a time with SSE2 (part of every
/// x86-64 processor), where a request's keys and most of its strings fit in
/// one step; the rest of the input, and other processors, go eight bytes at
/// a time ([`plain_run_end_swar`]). Both find the first special byte
/// exactly.
#[inline]
pub(super) fn plain_run_end(input: &[u8], from: usize) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        use std::arch::x86_64::{
            _mm_cmpeq_epi8, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        };
        // SAFETY: SSE2 is enabled (the cfg above; every x86-64 target has
        // it); these intrinsics only compute on values.
        let found = find16(input, from, |v| unsafe {
            let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
            let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
            // Control characters: the unsigned minimum with 0x1f is the
            // byte itself exactly when the byte is at most 0x1f.
            let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
        });
        found.unwrap_or_else(|p| plain_run_end_swar(input, p))
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    plain_run_end_swar(input, from)
}

/// [`plain_run_end`] eight bytes at a time: for each of the three
/// conditions, the classic "has a zero byte" bit trick sets the high bit of
/// the first byte that meets it. Later bytes may be flagged spuriously, but
/// never an earlier one, so the lowest flag marks the first special byte
/// exactly.
#[inline(never)]
pub(super) fn plain_run_end_swar(input: &[u8], from: usize) -> usize {
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
pub(super) fn digits_end(input: &[u8], from: usize) -> usize {
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
