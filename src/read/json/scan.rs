//! Reading a value of an expected shape straight from the input, without
//! a tape: the fast path for the request's nodes and instances.
//!
//! A [`Scan`] is a cursor over the input. Each of its methods reads, from
//! the cursor on (whitespace first), exactly what the parser would accept
//! there and returns it, or returns `None`: the text is not the common
//! shape (an escape in a string, a number with a fraction or more than 15
//! digits, an unexpected byte, an error). The caller then gives up and the
//! member is parsed and read the general way from where it began, which
//! finds the same value or reports the error. A `Scan` therefore never
//! reports an error and never accepts what the parser refuses.

use super::bytes::{digits_end, is_whitespace, plain_run_end, whitespace_end};

/// How deep [`Scan::skip`] follows arrays and objects before it gives up.
const SKIP_DEPTH: u32 = 16;

/// A cursor over the input (see the module documentation).
#[derive(Debug, Clone)]
pub struct Scan<'a> {
    input: &'a [u8],
    /// The longest prefix of `input` that is valid UTF-8.
    text: &'a str,
    pos: usize,
}

impl<'a> Scan<'a> {
    pub(super) fn new(input: &'a [u8], text: &'a str, pos: usize) -> Scan<'a> {
        Scan { input, text, pos }
    }

    /// The cursor's position.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Steps over whitespace. Compact JSON has none, and spaced JSON one
    /// space after a `:` or `,`: both are dealt with here, longer runs
    /// out of line.
    #[inline(always)]
    fn ws(&mut self) {
        let Some(&b) = self.input.get(self.pos) else {
            return;
        };
        if !is_whitespace(b) {
            return;
        }
        let next = self.pos + 1;
        if b == b' ' && self.input.get(next).is_some_and(|&n| !is_whitespace(n)) {
            self.pos = next;
        } else {
            self.skip_ws(next);
        }
    }

    /// Steps over a run of whitespace that goes on at `from` (a line feed
    /// and an indentation: sixteen bytes at a time).
    #[inline(never)]
    fn skip_ws(&mut self, from: usize) {
        self.pos = whitespace_end(self.input, from);
    }

    /// The next byte after whitespace, not consumed.
    #[inline]
    pub fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.input.get(self.pos).copied()
    }

    /// Consumes `b` after whitespace; whether it was there.
    #[inline]
    pub fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// A string without escapes.
    #[inline(always)]
    pub fn string(&mut self) -> Option<&'a str> {
        let (start, end) = self.plain_string()?;
        // Inside the valid prefix, next to two quotes: on character
        // boundaries.
        self.text.get(start..end)
    }

    /// The bytes of a string without escapes (a key, compared as bytes).
    #[inline(always)]
    pub fn key(&mut self) -> Option<&'a [u8]> {
        let (start, end) = self.plain_string()?;
        self.input.get(start..end)
    }

    /// Reads a string without escapes inside the input's valid UTF-8
    /// prefix; the range of its text.
    #[inline(always)]
    fn plain_string(&mut self) -> Option<(usize, usize)> {
        self.ws();
        let input = self.input;
        if input.get(self.pos) != Some(&b'"') {
            return None;
        }
        let start = self.pos + 1;
        let end = plain_run_end(input, start);
        if input.get(end) != Some(&b'"') || end > self.text.len() {
            return None;
        }
        self.pos = end + 1;
        Some((start, end))
    }

    /// An object member's key (a string without escapes) and the `:`
    /// after it.
    #[inline]
    pub fn member_name(&mut self) -> Option<&'a str> {
        let name = self.string()?;
        self.eat(b':').then_some(name)
    }

    /// A string without escapes, or `null` (`None` inside).
    #[inline]
    pub fn string_or_null(&mut self) -> Option<Option<&'a str>> {
        match self.peek()? {
            b'"' => self.string().map(Some),
            _ => self.null().then_some(None),
        }
    }

    /// An integer of at most 15 digits, without fraction or exponent
    /// (the parser's exact integers; `-0` is left to it).
    #[inline(always)]
    pub fn int(&mut self) -> Option<i64> {
        self.ws();
        let input = self.input;
        let negative = input.get(self.pos) == Some(&b'-');
        let start = self.pos + usize::from(negative);
        let mut p = start;
        let mut magnitude: i64 = 0;
        while let Some(&b) = input.get(p) {
            let digit = b.wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            // Wraps past 15 digits, which are refused below.
            magnitude = magnitude.wrapping_mul(10).wrapping_add(i64::from(digit));
            p += 1;
        }
        let len = p - start;
        if !(1..=15).contains(&len)
            || (len > 1 && input.get(start) == Some(&b'0'))
            || matches!(input.get(p), Some(b'.' | b'e' | b'E'))
            || (negative && magnitude == 0)
        {
            return None;
        }
        self.pos = p;
        Some(if negative { -magnitude } else { magnitude })
    }

    /// Any number, read and dropped: the grammar's
    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    fn number(&mut self) -> Option<()> {
        self.ws();
        let input = self.input;
        let mut p = self.pos;
        if input.get(p) == Some(&b'-') {
            p += 1;
        }
        match input.get(p)? {
            b'0' => p += 1,
            b'1'..=b'9' => p = digits_end(input, p + 1),
            _ => return None,
        }
        if input.get(p) == Some(&b'.') {
            let end = digits_end(input, p + 1);
            if end == p + 1 {
                return None;
            }
            p = end;
        }
        if matches!(input.get(p), Some(b'e' | b'E')) {
            p += 1;
            if matches!(input.get(p), Some(b'+' | b'-')) {
                p += 1;
            }
            let end = digits_end(input, p);
            if end == p {
                return None;
            }
            p = end;
        }
        self.pos = p;
        Some(())
    }

    /// An integer as [`Scan::int`] reads it, or `null` (`None` inside).
    #[inline]
    pub fn int_or_null(&mut self) -> Option<Option<i64>> {
        if self.null() {
            Some(None)
        } else {
            self.int().map(Some)
        }
    }

    /// `true` or `false`.
    #[inline]
    pub fn bool(&mut self) -> Option<bool> {
        if self.word(b"true") {
            Some(true)
        } else if self.word(b"false") {
            Some(false)
        } else {
            None
        }
    }

    /// Consumes `null`; whether it was there.
    #[inline]
    pub fn null(&mut self) -> bool {
        self.word(b"null")
    }

    /// Consumes `word` (after whitespace); whether it was there.
    #[inline]
    fn word(&mut self, word: &[u8]) -> bool {
        self.ws();
        let there = self
            .input
            .get(self.pos..)
            .is_some_and(|rest| rest.starts_with(word));
        if there {
            self.pos += word.len();
        }
        there
    }

    /// An object: each member's key (without escapes, as bytes) goes to
    /// `member`, which reads its value.
    #[inline]
    pub fn object(
        &mut self,
        mut member: impl FnMut(&'a [u8], &mut Self) -> Option<()>,
    ) -> Option<()> {
        if !self.eat(b'{') {
            return None;
        }
        if self.eat(b'}') {
            return Some(());
        }
        loop {
            let key = self.key()?;
            if !self.eat(b':') {
                return None;
            }
            member(key, self)?;
            if self.eat(b',') {
                continue;
            }
            return self.eat(b'}').then_some(());
        }
    }

    /// An array: `item` reads each element.
    #[inline]
    pub fn array(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        if !self.eat(b'[') {
            return None;
        }
        if self.eat(b']') {
            return Some(());
        }
        loop {
            item(self)?;
            if self.eat(b',') {
                continue;
            }
            return self.eat(b']').then_some(());
        }
    }

    /// An array of strings without escapes.
    pub fn strings(&mut self) -> Option<Vec<&'a str>> {
        let mut out = Vec::new();
        self.array(|s| {
            out.push(s.string()?);
            Some(())
        })?;
        Some(out)
    }

    /// Any value of the shapes above, nested at most a few levels, read
    /// and dropped.
    #[inline]
    pub fn skip(&mut self) -> Option<()> {
        // Strings and literals at once; the rest out of line.
        match self.peek()? {
            b'"' => self.plain_string().map(drop),
            b't' => self.word(b"true").then_some(()),
            b'f' => self.word(b"false").then_some(()),
            b'n' => self.null().then_some(()),
            _ => self.skip_within(SKIP_DEPTH),
        }
    }

    #[inline(never)]
    fn skip_within(&mut self, depth: u32) -> Option<()> {
        match self.peek()? {
            b'"' => self.plain_string().map(drop),
            b'-' | b'0'..=b'9' => self.number(),
            b't' | b'f' => self.bool().map(drop),
            b'n' => self.null().then_some(()),
            b'[' if depth > 0 => self.array(|s| s.skip_within(depth - 1)),
            b'{' if depth > 0 => self.object(|_, s| s.skip_within(depth - 1)),
            _ => None,
        }
    }
}
