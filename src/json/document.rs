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

use super::{describe_f64, describe_str, Json, Number};

/// What a token stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Tag {
    Null,
    False,
    True,
    /// A number whose literal is a plain integer below 10^15 in magnitude:
    /// both views of it are the `f64` whose bits are the payload.
    Int,
    /// Any other number: the payload indexes [`Document::numbers`].
    Float,
    /// A string without escapes: `len` bytes of the input from the offset in
    /// the payload.
    Str,
    /// A string with escapes: `len` bytes of [`Document::decoded`] from the
    /// offset in the payload.
    Decoded,
    /// An array of `len` items; the payload is the index of the token after
    /// its last item.
    Array,
    /// An object of `len` members, like an array.
    Object,
}

/// One entry of the tape.
#[derive(Debug, Clone, Copy)]
pub(super) struct Token {
    pub(super) tag: Tag,
    pub(super) len: u32,
    pub(super) payload: u64,
}

impl Token {
    pub(super) const NULL: Token = Token::scalar(Tag::Null, 0);
    pub(super) const FALSE: Token = Token::scalar(Tag::False, 0);
    pub(super) const TRUE: Token = Token::scalar(Tag::True, 0);

    pub(super) const fn scalar(tag: Tag, payload: u64) -> Token {
        Token {
            tag,
            len: 0,
            payload,
        }
    }
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
}

impl<'a> Document<'a> {
    /// The top-level value.
    pub fn root(&self) -> Value<'_> {
        Value { doc: self, at: 0 }
    }

    /// The text of the string token at `at`.
    fn str_at(&self, at: usize) -> &str {
        let t = self.tape[at];
        let start = t.payload as usize;
        let end = start + t.len as usize;
        // Offsets were taken at character boundaries of these very strings.
        let source = if t.tag == Tag::Decoded {
            self.decoded.as_str()
        } else {
            self.text
        };
        source.get(start..end).unwrap_or("")
    }

    /// The string token at `at` as a tree string: borrowed from the input
    /// when it has no escapes.
    fn cow_at(&self, at: usize) -> Cow<'a, str> {
        let t = self.tape[at];
        if t.tag == Tag::Str {
            let start = t.payload as usize;
            let text: &'a str = self.text;
            Cow::Borrowed(text.get(start..start + t.len as usize).unwrap_or(""))
        } else {
            Cow::Owned(self.str_at(at).to_owned())
        }
    }

    /// The index of the token after the value at `at`.
    fn end_of(&self, at: usize) -> usize {
        let t = self.tape[at];
        match t.tag {
            Tag::Array | Tag::Object => t.payload as usize,
            _ => at + 1,
        }
    }

    /// The value at `at` as an owned tree (borrowing unescaped strings from
    /// the input). Recurses once per nesting level, at most
    /// [`super::MAX_DEPTH`] deep.
    fn tree_at(&self, at: usize) -> Json<'a> {
        let t = self.tape[at];
        match t.tag {
            Tag::Null => Json::Null,
            Tag::False => Json::Bool(false),
            Tag::True => Json::Bool(true),
            Tag::Int | Tag::Float => Json::Number(self.number_at(at)),
            Tag::Str | Tag::Decoded => Json::String(self.cow_at(at)),
            Tag::Array => {
                let mut items = Vec::with_capacity(t.len as usize);
                let mut i = at + 1;
                while i < t.payload as usize {
                    items.push(self.tree_at(i));
                    i = self.end_of(i);
                }
                Json::Array(items)
            }
            Tag::Object => {
                let mut members = Vec::with_capacity(t.len as usize);
                let mut i = at + 1;
                while i < t.payload as usize {
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
        if t.tag == Tag::Int {
            let value = f64::from_bits(t.payload);
            Number {
                value,
                int: Some(value as i64),
            }
        } else {
            self.numbers
                .get(t.payload as usize)
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
        self.token().tag == Tag::Null
    }

    /// The boolean, if this is `true` or `false`.
    pub fn as_bool(&self) -> Option<bool> {
        match self.token().tag {
            Tag::True => Some(true),
            Tag::False => Some(false),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_number(&self) -> Option<Number> {
        match self.token().tag {
            Tag::Int | Tag::Float => Some(self.doc.number_at(self.at)),
            _ => None,
        }
    }

    /// The string (escapes decoded), if this is one.
    pub fn as_str(&self) -> Option<&'d str> {
        match self.token().tag {
            Tag::Str | Tag::Decoded => Some(self.doc.str_at(self.at)),
            _ => None,
        }
    }

    /// The array, if this is one.
    pub fn as_array(&self) -> Option<Array<'d>> {
        match self.token().tag {
            Tag::Array => Some(Array(*self)),
            _ => None,
        }
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<Object<'d>> {
        match self.token().tag {
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
        match self.token().tag {
            Tag::Null => "null",
            Tag::False | Tag::True => "a boolean",
            Tag::Int | Tag::Float => "a number",
            Tag::Str | Tag::Decoded => "a string",
            Tag::Array => "an array",
            Tag::Object => "an object",
        }
    }

    /// Short rendering for error messages, as [`Json::describe`].
    pub fn describe(&self) -> String {
        match self.token().tag {
            Tag::Null => "null".to_owned(),
            Tag::False => "false".to_owned(),
            Tag::True => "true".to_owned(),
            Tag::Int | Tag::Float => describe_f64(self.doc.number_at(self.at).as_f64()),
            Tag::Str | Tag::Decoded => describe_str(self.doc.str_at(self.at)),
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
        self.0.token().len as usize
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
            end: v.token().payload as usize,
            left: self.len(),
        }
    }

    /// The first item, if any.
    pub fn first(&self) -> Option<Value<'d>> {
        self.iter().next()
    }

    /// The item at `index`, if there is one (walks the items before it).
    pub fn get(&self, index: usize) -> Option<Value<'d>> {
        self.iter().nth(index)
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
        self.0.token().len as usize
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
            end: v.token().payload as usize,
            left: self.len(),
        }
    }

    /// The value of the first member with this key.
    pub fn get(&self, key: &str) -> Option<Value<'d>> {
        let doc = self.0.doc;
        let end = self.0.token().payload as usize;
        let mut at = self.0.at + 1;
        while at < end {
            let k = doc.tape[at];
            if k.len as usize == key.len() && doc.str_at(at) == key {
                return Some(Value { doc, at: at + 1 });
            }
            at = doc.end_of(at + 1);
        }
        None
    }

    /// The object as a value.
    pub fn value(&self) -> Value<'d> {
        self.0
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
