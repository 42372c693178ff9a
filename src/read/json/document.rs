//! The parsed document as a flat tape, and the [`Value`] handles that read
//! it.
//!
//! A [`Document`] holds one [`Token`] per value and per object key, in input
//! order (depth first): an array's token is followed by its items, an
//! object's token by its members, each a key token then the value's tokens.
//! A container's token records how many items it has and where the token
//! after its last item is, so a reader skips a whole value in one step.
//!
//! Nothing in a document is allocated per value: the tape is one vector,
//! strings without escapes are spans of the input, decoded strings share one
//! buffer, and numbers that are not small integers share one side table.
//! That keeps the memory a request touches near the size of its text, which
//! is what reading a large request costs (see `ARCHITECTURE.md`).

use std::borrow::Cow;
use std::ops::Range;

use super::{describe_f64, describe_str, Json, Number};

/// What a token stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Tag {
    Null,
    False,
    True,
    /// A number whose literal is a plain integer below 10^15 in magnitude
    /// (not `-0`), kept in the token: both views of it are that integer.
    Int,
    /// Any other number: [`Token::low`] indexes [`Document::numbers`].
    Float,
    /// A string without escapes: [`Token::mid`] bytes of the input from the
    /// offset [`Token::low`].
    Str,
    /// A string with escapes: [`Token::mid`] bytes of
    /// [`Document::decoded`] from the offset [`Token::low`].
    Decoded,
    /// A string too long for [`Token::mid`]: [`Token::low`] indexes
    /// [`Document::long_strings`].
    Long,
    /// An array: [`Token::low`] is the index of the token after its last
    /// item, [`Token::mid`] its item count (saturated at [`Token::MID_MAX`]).
    Array,
    /// An object of members, like an array.
    Object,
}

/// One entry of the tape: a tag in the top 4 bits, then a 28-bit middle
/// field and a 32-bit low field (or, for [`Tag::Int`], a 60-bit integer).
/// Eight bytes a token keeps the tape to about the input's size.
#[derive(Debug, Clone, Copy)]
pub(super) struct Token(u64);

impl Token {
    const TAG_SHIFT: u32 = 60;
    /// The width of the middle field. Unit tests make it narrow, so that
    /// long strings and saturated counts occur in small inputs.
    const MID_BITS: u32 = if cfg!(test) { 8 } else { 28 };
    /// The largest middle field.
    pub(super) const MID_MAX: u32 = (1 << Self::MID_BITS) - 1;
    const INT_BITS: u32 = 60;

    pub(super) const NULL: Token = Token::new(Tag::Null, 0, 0);
    pub(super) const FALSE: Token = Token::new(Tag::False, 0, 0);
    pub(super) const TRUE: Token = Token::new(Tag::True, 0, 0);

    /// A token of `tag` with the given fields; `mid` must not exceed
    /// [`Token::MID_MAX`].
    pub(super) const fn new(tag: Tag, mid: u32, low: u32) -> Token {
        Token(((tag as u64) << Self::TAG_SHIFT) | ((mid as u64) << 32) | low as u64)
    }

    /// An array or object token: `count` items (saturated), ending before
    /// the token at `end`.
    pub(super) fn container(tag: Tag, count: u32, end: u32) -> Token {
        Token::new(tag, count.min(Self::MID_MAX), end)
    }

    /// An integer token; `value` must be below 2^59 in magnitude.
    pub(super) const fn int(value: i64) -> Token {
        let bits = (value as u64) & ((1 << Self::INT_BITS) - 1);
        Token(((Tag::Int as u64) << Self::TAG_SHIFT) | bits)
    }

    pub(super) fn tag(self) -> Tag {
        match self.0 >> Self::TAG_SHIFT {
            0 => Tag::Null,
            1 => Tag::False,
            2 => Tag::True,
            3 => Tag::Int,
            4 => Tag::Float,
            5 => Tag::Str,
            6 => Tag::Decoded,
            7 => Tag::Long,
            8 => Tag::Array,
            _ => Tag::Object,
        }
    }

    pub(super) fn mid(self) -> u32 {
        ((self.0 >> 32) as u32) & Self::MID_MAX
    }

    pub(super) fn low(self) -> u32 {
        self.0 as u32
    }

    /// The integer of a [`Tag::Int`] token (sign-extended from 60 bits).
    fn int_value(self) -> i64 {
        let shift = 64 - Self::INT_BITS;
        ((self.0 << shift) as i64) >> shift
    }
}

/// Where the text of a [`Tag::Long`] string is.
#[derive(Debug, Clone, Copy)]
pub(super) struct LongString {
    /// Whether it is in [`Document::decoded`] (else in the input).
    pub(super) decoded: bool,
    pub(super) offset: u32,
    pub(super) len: u32,
}

/// A parsed JSON text: the tape and the side tables its tokens point into.
/// Made by [`super::parse_document`]; read through [`Document::root`].
#[derive(Debug)]
pub struct Document<'a> {
    /// The input, all of it valid UTF-8 once parsing succeeded.
    pub(super) text: &'a str,
    pub(super) tape: Vec<Token>,
    /// The decoded text of every string that has escapes, one after another.
    pub(super) decoded: String,
    /// Numbers that are not [`Tag::Int`].
    pub(super) numbers: Vec<Number>,
    /// Strings that are not [`Tag::Str`] or [`Tag::Decoded`].
    pub(super) long_strings: Vec<LongString>,
}

impl<'a> Document<'a> {
    /// The top-level value.
    pub fn root(&self) -> Value<'_> {
        Value { doc: self, at: 0 }
    }

    /// A document of `text` with nothing parsed yet and room for `tokens`.
    pub(super) fn empty(text: &'a str, tokens: usize) -> Document<'a> {
        Document {
            text,
            tape: Vec::with_capacity(tokens),
            decoded: String::new(),
            numbers: Vec::new(),
            long_strings: Vec::new(),
        }
    }

    /// Empties the document, keeping its buffers for the next one.
    pub(super) fn clear(&mut self) {
        self.tape.clear();
        self.decoded.clear();
        self.numbers.clear();
        self.long_strings.clear();
    }

    /// A streamed member's document: its key token, then its value.
    pub(super) fn member(&self) -> (&str, Value<'_>) {
        (self.str_at(0), Value { doc: self, at: 1 })
    }

    /// Where the text of the string token at `at` is: in the decoded
    /// buffer (`true`) or the input, and its byte range.
    fn span_at(&self, at: usize) -> (bool, Range<usize>) {
        let t = self.tape[at];
        let (decoded, offset, len) = match t.tag() {
            Tag::Long => match self.long_strings.get(t.low() as usize) {
                Some(l) => (l.decoded, l.offset, l.len),
                None => (false, 0, 0),
            },
            tag => (tag == Tag::Decoded, t.low(), t.mid()),
        };
        let start = offset as usize;
        (decoded, start..start + len as usize)
    }

    /// The text of the string token at `at`.
    pub(super) fn str_at(&self, at: usize) -> &str {
        let (decoded, range) = self.span_at(at);
        // Spans were taken at character boundaries of these very strings.
        let source = if decoded {
            self.decoded.as_str()
        } else {
            self.text
        };
        source.get(range).unwrap_or("")
    }

    /// The bytes of the string token at `at`; the fast path for keys.
    #[inline]
    fn key_bytes(&self, at: usize) -> &[u8] {
        let t = self.tape[at];
        if t.tag() == Tag::Str {
            let start = t.low() as usize;
            self.text
                .as_bytes()
                .get(start..start + t.mid() as usize)
                .unwrap_or(&[])
        } else {
            self.str_at(at).as_bytes()
        }
    }

    /// The string token at `at` as a tree string: borrowed from the input
    /// when it has no escapes.
    fn cow_at(&self, at: usize) -> Cow<'a, str> {
        let (decoded, range) = self.span_at(at);
        if decoded {
            Cow::Owned(self.decoded.get(range).unwrap_or("").to_owned())
        } else {
            let text: &'a str = self.text;
            Cow::Borrowed(text.get(range).unwrap_or(""))
        }
    }

    /// The index of the token after the value at `at`.
    #[inline]
    fn end_of(&self, at: usize) -> usize {
        let t = self.tape[at];
        match t.tag() {
            Tag::Array | Tag::Object => t.low() as usize,
            _ => at + 1,
        }
    }

    /// The number of items or members of the container at `at`.
    fn count_at(&self, at: usize) -> usize {
        let t = self.tape[at];
        if t.mid() < Token::MID_MAX {
            return t.mid() as usize;
        }
        // Saturated: count by walking.
        let step = if t.tag() == Tag::Object { 1 } else { 0 };
        let mut n = 0;
        let mut i = at + 1;
        while i < t.low() as usize {
            n += 1;
            i = self.end_of(i + step);
        }
        n
    }

    /// The value at `at` as an owned tree (borrowing unescaped strings from
    /// the input). Recurses once per nesting level, at most
    /// [`super::MAX_DEPTH`] deep.
    fn tree_at(&self, at: usize) -> Json<'a> {
        let t = self.tape[at];
        match t.tag() {
            Tag::Null => Json::Null,
            Tag::False => Json::Bool(false),
            Tag::True => Json::Bool(true),
            Tag::Int | Tag::Float => Json::Number(self.number_at(at)),
            Tag::Str | Tag::Decoded | Tag::Long => Json::String(self.cow_at(at)),
            Tag::Array => {
                let mut items = Vec::with_capacity(self.count_at(at));
                let mut i = at + 1;
                while i < t.low() as usize {
                    items.push(self.tree_at(i));
                    i = self.end_of(i);
                }
                Json::Array(items)
            }
            Tag::Object => {
                let mut members = Vec::with_capacity(self.count_at(at));
                let mut i = at + 1;
                while i < t.low() as usize {
                    members.push((self.cow_at(i), self.tree_at(i + 1)));
                    i = self.end_of(i + 1);
                }
                Json::Object(members)
            }
        }
    }

    /// The number token at `at`.
    fn number_at(&self, at: usize) -> Number {
        let t = self.tape[at];
        if t.tag() == Tag::Int {
            let int = t.int_value();
            Number {
                value: int as f64,
                int: Some(int),
            }
        } else {
            self.numbers
                .get(t.low() as usize)
                .copied()
                .unwrap_or(Number::from_f64(f64::NAN))
        }
    }

    /// The whole document as a tree.
    pub fn to_tree(&self) -> Json<'a> {
        self.tree_at(0)
    }
}

/// A value in a [`Document`]: a cheap handle (a reference and an index).
#[derive(Debug, Clone, Copy)]
pub struct Value<'d> {
    doc: &'d Document<'d>,
    at: usize,
}

impl<'d> Value<'d> {
    fn token(&self) -> Token {
        self.doc.tape[self.at]
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        self.token().tag() == Tag::Null
    }

    /// The boolean, if this is `true` or `false`.
    pub fn as_bool(&self) -> Option<bool> {
        match self.token().tag() {
            Tag::True => Some(true),
            Tag::False => Some(false),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_number(&self) -> Option<Number> {
        match self.token().tag() {
            Tag::Int | Tag::Float => Some(self.doc.number_at(self.at)),
            _ => None,
        }
    }

    /// The string (escapes decoded), if this is one.
    pub fn as_str(&self) -> Option<&'d str> {
        match self.token().tag() {
            Tag::Str | Tag::Decoded | Tag::Long => Some(self.doc.str_at(self.at)),
            _ => None,
        }
    }

    /// The array, if this is one.
    pub fn as_array(&self) -> Option<Array<'d>> {
        match self.token().tag() {
            Tag::Array => Some(Array(*self)),
            _ => None,
        }
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<Object<'d>> {
        match self.token().tag() {
            Tag::Object => Some(Object(*self)),
            _ => None,
        }
    }

    /// The first member with this key, if this is an object.
    pub fn get(&self, key: &str) -> Option<Value<'d>> {
        self.as_object().and_then(|o| o.get(key))
    }

    /// "null", "a boolean", "a number", "a string", "an array", "an object".
    pub fn kind(&self) -> &'static str {
        match self.token().tag() {
            Tag::Null => "null",
            Tag::False | Tag::True => "a boolean",
            Tag::Int | Tag::Float => "a number",
            Tag::Str | Tag::Decoded | Tag::Long => "a string",
            Tag::Array => "an array",
            Tag::Object => "an object",
        }
    }

    /// Short rendering for error messages, as [`Json::describe`].
    pub fn describe(&self) -> String {
        match self.token().tag() {
            Tag::Null => "null".to_owned(),
            Tag::False => "false".to_owned(),
            Tag::True => "true".to_owned(),
            Tag::Int | Tag::Float => describe_f64(self.doc.number_at(self.at).as_f64()),
            Tag::Str | Tag::Decoded | Tag::Long => describe_str(self.doc.str_at(self.at)),
            Tag::Array => "an array".to_owned(),
            Tag::Object => "an object".to_owned(),
        }
    }

    /// This value as an owned tree.
    pub fn to_tree(&self) -> Json<'d> {
        self.doc.tree_at(self.at)
    }
}

/// An array in a [`Document`].
#[derive(Debug, Clone, Copy)]
pub struct Array<'d>(Value<'d>);

impl<'d> Array<'d> {
    /// The number of items.
    pub fn len(&self) -> usize {
        self.0.doc.count_at(self.0.at)
    }

    /// Whether it has no items.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The items in input order.
    pub fn iter(&self) -> Items<'d> {
        let v = self.0;
        Items {
            doc: v.doc,
            at: v.at + 1,
            end: v.token().low() as usize,
            left: self.len(),
        }
    }
}

/// The items of an [`Array`].
#[derive(Debug, Clone)]
pub struct Items<'d> {
    doc: &'d Document<'d>,
    at: usize,
    end: usize,
    left: usize,
}

impl<'d> Iterator for Items<'d> {
    type Item = Value<'d>;

    fn next(&mut self) -> Option<Value<'d>> {
        if self.at >= self.end {
            return None;
        }
        let v = Value {
            doc: self.doc,
            at: self.at,
        };
        self.at = self.doc.end_of(self.at);
        self.left = self.left.saturating_sub(1);
        Some(v)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Items<'_> {}

/// An object in a [`Document`]. Members keep their input order; duplicate
/// keys are kept, and [`Object::get`] finds the first.
#[derive(Debug, Clone, Copy)]
pub struct Object<'d>(Value<'d>);

impl<'d> Object<'d> {
    /// The number of members.
    pub fn len(&self) -> usize {
        self.0.doc.count_at(self.0.at)
    }

    /// Whether it has no members.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The members in input order.
    pub fn iter(&self) -> Members<'d> {
        let v = self.0;
        Members {
            doc: v.doc,
            at: v.at + 1,
            end: v.token().low() as usize,
            left: self.len(),
        }
    }

    /// The value of the first member with this key.
    pub fn get(&self, key: &str) -> Option<Value<'d>> {
        let doc = self.0.doc;
        let end = self.0.token().low() as usize;
        let key = key.as_bytes();
        let mut at = self.0.at + 1;
        while at < end {
            if doc.key_bytes(at) == key {
                return Some(Value { doc, at: at + 1 });
            }
            at = doc.end_of(at + 1);
        }
        None
    }

    /// The first member under each of `keys`, found in one pass over the
    /// members (rather than one pass per key, as [`Object::get`] would).
    pub fn pick<const N: usize>(&self, keys: &'static [&'static str; N]) -> Picked<'d, N> {
        let doc = self.0.doc;
        let end = self.0.token().low() as usize;
        let mut values = [None; N];
        let mut missing = N;
        let mut at = self.0.at + 1;
        while at < end && missing > 0 {
            let key = doc.key_bytes(at);
            if let Some(i) = keys.iter().position(|k| same_key(k.as_bytes(), key)) {
                if let Some(slot @ None) = values.get_mut(i) {
                    *slot = Some(Value { doc, at: at + 1 });
                    missing -= 1;
                }
            }
            at = doc.end_of(at + 1);
        }
        Picked {
            object: *self,
            keys,
            values,
        }
    }
}

/// Whether two keys are equal; most keys that differ differ in length or
/// in the first or last byte, which are looked at before the whole.
#[inline]
fn same_key(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.first() == b.first() && a.last() == b.last() && a == b
}

/// The members of an object under a fixed set of keys, from
/// [`Object::pick`].
#[derive(Debug, Clone, Copy)]
pub struct Picked<'d, const N: usize> {
    object: Object<'d>,
    keys: &'static [&'static str; N],
    values: [Option<Value<'d>>; N],
}

impl<'d, const N: usize> Picked<'d, N> {
    /// The value of the first member with this key; a key outside the
    /// picked set is looked up in the object (debug builds, and so the
    /// tests, stop there: the set is meant to hold every key read).
    pub fn get(&self, key: &str) -> Option<Value<'d>> {
        debug_assert!(
            self.keys.contains(&key),
            "key {key:?} is not among the picked keys {:?}",
            self.keys
        );
        // The caller passes one of the picked keys, usually the very same
        // literal: its address finds it without comparing bytes.
        let slot = self
            .keys
            .iter()
            .position(|k| std::ptr::eq(k.as_ptr(), key.as_ptr()) && k.len() == key.len())
            .or_else(|| self.keys.iter().position(|k| *k == key));
        match slot {
            Some(i) => self.values.get(i).copied().flatten(),
            None => self.object.get(key),
        }
    }
}

/// The members of an [`Object`]: key and value.
#[derive(Debug, Clone)]
pub struct Members<'d> {
    doc: &'d Document<'d>,
    at: usize,
    end: usize,
    left: usize,
}

impl<'d> Iterator for Members<'d> {
    type Item = (&'d str, Value<'d>);

    fn next(&mut self) -> Option<(&'d str, Value<'d>)> {
        if self.at >= self.end {
            return None;
        }
        let key = self.doc.str_at(self.at);
        let v = Value {
            doc: self.doc,
            at: self.at + 1,
        };
        self.at = self.doc.end_of(self.at + 1);
        self.left = self.left.saturating_sub(1);
        Some((key, v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Members<'_> {}
