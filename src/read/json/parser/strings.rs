//! The parser's strings and object keys: a run without escapes is a span
//! of the input (found [`plain_run_end`] at a time); escapes are decoded
//! into the document's buffer, `\u` escapes with their surrogate pairs.

use super::{push, Parser};
use crate::read::json::bytes::plain_run_end;
use crate::read::json::document::{LongString, Tag, Token};
use crate::read::json::ParseError;

impl<'a> Parser<'a> {
    /// Reads an object key and the ':' after it; `expected` says what may
    /// stand here, for the message when no key does.
    #[inline]
    pub(super) fn key(&mut self, expected: &str) -> Result<(), ParseError> {
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
    pub(super) fn string(&mut self) -> Result<Token, ParseError> {
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
}
