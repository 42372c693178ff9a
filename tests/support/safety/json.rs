//! The request and answer JSON, read leniently: key order kept, numbers
//! clamped, nothing that can panic.

use super::*;

/// A JSON value that keeps object keys in input order, duplicates included.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum J {
    Null,
    Bool(bool),
    /// An integer, clamped to ±[`NUM_LIMIT`].
    Int(i128),
    Float(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

/// Numbers are clamped to this magnitude so that sums can never overflow.
pub(super) const NUM_LIMIT: i128 = 1_000_000_000_000_000_000_000_000_000_000;

/// The key serde_json uses for numbers when its `arbitrary_precision` feature is on.
pub(super) const ARBITRARY_NUMBER_KEY: &str = "$serde_json::private::Number";

pub(super) fn parse_json(text: &str) -> Result<J, serde_json::Error> {
    serde_json::from_str::<J>(text)
}

pub(super) fn clamp(v: i128) -> i128 {
    v.clamp(-NUM_LIMIT, NUM_LIMIT)
}

/// Reads a number written as text (only needed with `arbitrary_precision`).
pub(super) fn number_from_text(s: &str) -> J {
    if let Ok(i) = s.parse::<i128>() {
        return J::Int(clamp(i));
    }
    match s.parse::<f64>() {
        Ok(f) => J::Float(f),
        Err(_) => J::Str(s.to_owned()),
    }
}

impl<'de> Deserialize<'de> for J {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<J, D::Error> {
        d.deserialize_any(JVisitor)
    }
}

pub(super) struct JVisitor;

impl<'de> Visitor<'de> for JVisitor {
    type Value = J;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<J, E> {
        Ok(J::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<J, E> {
        Ok(J::Int(clamp(i128::from(v))))
    }
    fn visit_u64<E>(self, v: u64) -> Result<J, E> {
        Ok(J::Int(clamp(i128::from(v))))
    }
    fn visit_i128<E>(self, v: i128) -> Result<J, E> {
        Ok(J::Int(clamp(v)))
    }
    fn visit_u128<E>(self, v: u128) -> Result<J, E> {
        Ok(J::Int(i128::try_from(v).map_or(NUM_LIMIT, clamp)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<J, E> {
        Ok(J::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<J, E> {
        Ok(J::Str(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<J, E> {
        Ok(J::Str(v))
    }
    fn visit_unit<E>(self) -> Result<J, E> {
        Ok(J::Null)
    }
    fn visit_none<E>(self) -> Result<J, E> {
        Ok(J::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<J, D::Error> {
        J::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<J, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<J>()? {
            items.push(item);
        }
        Ok(J::Arr(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<J, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value::<J>()?;
            entries.push((key, value));
        }
        if let [(key, J::Str(text))] = entries.as_slice() {
            if key == ARBITRARY_NUMBER_KEY {
                return Ok(number_from_text(text));
            }
        }
        Ok(J::Obj(entries))
    }
}

impl J {
    /// The first value under `key`, like hail's lookups.
    pub(super) fn get(&self, key: &str) -> Option<&J> {
        match self {
            J::Obj(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    /// The value under `key`, with `null` read as missing.
    pub(super) fn field(&self, key: &str) -> Option<&J> {
        self.get(key).filter(|v| **v != J::Null)
    }
    pub(super) fn as_str(&self) -> Option<&str> {
        match self {
            J::Str(s) => Some(s),
            _ => None,
        }
    }
    pub(super) fn as_bool(&self) -> Option<bool> {
        match self {
            J::Bool(b) => Some(*b),
            _ => None,
        }
    }
    /// An integer field; fractions round half to even (as hail reads them).
    pub(super) fn as_int(&self) -> Option<i128> {
        match self {
            J::Int(i) => Some(*i),
            J::Float(f) if f.is_finite() => {
                let r = f.round_ties_even();
                if r >= NUM_LIMIT as f64 {
                    Some(NUM_LIMIT)
                } else if r <= -(NUM_LIMIT as f64) {
                    Some(-NUM_LIMIT)
                } else {
                    Some(r as i128)
                }
            }
            _ => None,
        }
    }
    pub(super) fn as_arr(&self) -> Option<&[J]> {
        match self {
            J::Arr(a) => Some(a),
            _ => None,
        }
    }
    pub(super) fn as_obj(&self) -> Option<&[(String, J)]> {
        match self {
            J::Obj(o) => Some(o),
            _ => None,
        }
    }
    pub(super) fn str_field(&self, key: &str) -> Option<String> {
        self.field(key).and_then(J::as_str).map(str::to_owned)
    }
    pub(super) fn int_field(&self, key: &str) -> Option<i128> {
        self.field(key).and_then(J::as_int)
    }
    pub(super) fn bool_field(&self, key: &str) -> Option<bool> {
        self.field(key).and_then(J::as_bool)
    }
    /// A list of strings; non-string entries are skipped.
    pub(super) fn str_list(&self, key: &str) -> Option<Vec<String>> {
        self.field(key)
            .and_then(J::as_arr)
            .map(|a| a.iter().filter_map(J::as_str).map(str::to_owned).collect())
    }
}

/// A short rendering of a JSON value for violation details.
pub(super) fn brief(j: &J) -> String {
    let mut out = String::new();
    render(j, &mut out);
    if out.chars().count() > 120 {
        let cut: String = out.chars().take(117).collect();
        return format!("{cut}...");
    }
    out
}

pub(super) fn render(j: &J, out: &mut String) {
    // Rendering stops early once the text is long enough for `brief`.
    if out.len() > 200 {
        return;
    }
    match j {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Int(i) => out.push_str(&i.to_string()),
        J::Float(f) => out.push_str(&f.to_string()),
        J::Str(s) => out.push_str(&format!("{s:?}")),
        J::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                render(item, out);
            }
            out.push(']');
        }
        J::Obj(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&format!("{k:?}:"));
                render(v, out);
            }
            out.push('}');
        }
    }
}
