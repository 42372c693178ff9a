//! A minimal ordered JSON tree and its writer: objects are written from
//! ordered member lists (never through a sorted map), in the layouts of
//! [`JsonStyle`].

use std::fmt::Write as _;

use super::spec::JsonStyle;

/// A JSON value whose objects keep their members in insertion order.
#[derive(Clone, Debug)]
pub(super) enum J {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl From<&str> for J {
    fn from(s: &str) -> J {
        J::Str(s.to_string())
    }
}
impl From<String> for J {
    fn from(s: String) -> J {
        J::Str(s)
    }
}
impl From<&String> for J {
    fn from(s: &String) -> J {
        J::Str(s.clone())
    }
}
impl From<i64> for J {
    fn from(v: i64) -> J {
        J::Int(v)
    }
}
impl From<bool> for J {
    fn from(v: bool) -> J {
        J::Bool(v)
    }
}

/// Builds an object from `(key, value)` pairs, keeping their order.
pub(super) struct ObjB(Vec<(String, J)>);

impl ObjB {
    pub(super) fn new() -> ObjB {
        ObjB(Vec::new())
    }
    pub(super) fn put(&mut self, k: &str, v: impl Into<J>) -> &mut ObjB {
        self.0.push((k.to_string(), v.into()));
        self
    }
    pub(super) fn putj(&mut self, k: &str, v: J) -> &mut ObjB {
        self.0.push((k.to_string(), v));
        self
    }
    pub(super) fn done(&mut self) -> J {
        J::Obj(std::mem::take(&mut self.0))
    }
}

pub(super) fn str_list(xs: &[String]) -> J {
    J::Arr(xs.iter().map(|s| J::Str(s.clone())).collect())
}

/// Writes `s` as a JSON string literal: `"` and `\` escaped, control
/// characters in short or `\u00xx` form, non-ASCII raw or as `\uXXXX` escapes
/// (with surrogate pairs above U+FFFF) when `ascii` is set.
pub(super) fn write_str(out: &mut String, s: &str, ascii: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if ascii && (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for u in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{:04x}", u);
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

pub(super) fn write_json(out: &mut String, v: &J, style: JsonStyle, ascii: bool, depth: usize) {
    let (comma, colon) = match style {
        JsonStyle::Compact => (",", ":"),
        JsonStyle::Spaced => (", ", ": "),
        JsonStyle::Pretty => (",", ": "),
    };
    let newline = |out: &mut String, d: usize| {
        if style == JsonStyle::Pretty {
            out.push('\n');
            for _ in 0..d {
                out.push_str("  ");
            }
        }
    };
    match v {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Int(i) => {
            let _ = write!(out, "{}", i);
        }
        J::Float(f) => {
            // `{:?}` always keeps a fractional part ("4.0"), like Python.
            let _ = write!(out, "{:?}", f);
        }
        J::Str(s) => write_str(out, s, ascii),
        J::Arr(xs) => {
            if xs.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, x) in xs.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                newline(out, depth + 1);
                write_json(out, x, style, ascii, depth + 1);
            }
            newline(out, depth);
            out.push(']');
        }
        J::Obj(ms) => {
            if ms.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            for (i, (k, x)) in ms.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                newline(out, depth + 1);
                write_str(out, k, ascii);
                out.push_str(colon);
                write_json(out, x, style, ascii, depth + 1);
            }
            newline(out, depth);
            out.push('}');
        }
    }
}
