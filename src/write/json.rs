//! The one JSON writer: a value whose object keys keep the order they were
//! given in (Ganeti's serialisers fix the order of every record's fields),
//! written compactly with Text.JSON's string escaping. The iallocator
//! answer, the opcodes and the explanations are all built as [`Json`]
//! values and written by [`Json::write`].

use crate::haskell::json::write_string;

/// A JSON value with its keys in the order given.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(&'static str, Json)>),
    /// An object whose keys are data (node names, `HTS_*` keys).
    Map(Vec<(String, Json)>),
}

impl Json {
    /// The value as one line of compact JSON and a newline.
    pub fn line(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out.push('\n');
        out
    }

    /// Appends the value as compact JSON.
    pub fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(i) => out.push_str(&i.to_string()),
            // JSON has no NaN or infinities.
            Json::Num(x) if !x.is_finite() => out.push_str("null"),
            Json::Num(x) => out.push_str(&format!("{x:?}")),
            Json::Str(s) => write_string(out, s),
            Json::Arr(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write(out);
                }
                out.push(']');
            }
            Json::Obj(fields) => write_object(out, fields.iter().map(|(k, v)| (*k, v))),
            Json::Map(fields) => write_object(out, fields.iter().map(|(k, v)| (k.as_str(), v))),
        }
    }
}

/// `{"key":value,...}` in the order given.
fn write_object<'a>(out: &mut String, fields: impl Iterator<Item = (&'a str, &'a Json)>) {
    out.push('{');
    for (i, (k, v)) in fields.enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(out, k);
        out.push(':');
        v.write(out);
    }
    out.push('}');
}

/// A string value.
pub fn s(x: &str) -> Json {
    Json::Str(x.to_owned())
}

/// An array of strings.
pub fn strs<S: AsRef<str>>(v: &[S]) -> Json {
    Json::Arr(v.iter().map(|x| s(x.as_ref())).collect())
}
