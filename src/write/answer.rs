//! The answer on stdout (`IAlloc.formatResponse`): exactly one JSON object
//! with the keys `success`, `info` and `result` in that order, no
//! whitespace, hail's string escaping, and a trailing newline.
//!
//! Results are built as JSON text by the small helpers here, never through
//! a map, so key order is always hail's.

use crate::haskell::json::write_string;

/// One answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// Whether the request was satisfied.
    pub success: bool,
    /// The `info` text, prefix included.
    pub info: String,
    /// The `result` value as JSON text.
    pub result: String,
}

impl Answer {
    /// A successful answer: `info` is `Request successful: <message>`.
    pub fn success(message: &str, result: String) -> Answer {
        Answer {
            success: true,
            info: format!("Request successful: {message}"),
            result,
        }
    }

    /// A failed answer: `info` is `Request failed: <message>`, `result` is
    /// `[]`.
    pub fn failure(message: &str) -> Answer {
        Answer {
            success: false,
            info: format!("Request failed: {message}"),
            result: "[]".to_owned(),
        }
    }

    /// The bytes to print: the JSON object and a newline.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(self.info.len() + self.result.len() + 48);
        out.push_str("{\"success\":");
        out.push_str(if self.success { "true" } else { "false" });
        out.push_str(",\"info\":");
        write_string(&mut out, &self.info);
        out.push_str(",\"result\":");
        out.push_str(&self.result);
        out.push_str("}\n");
        out
    }
}

/// A JSON string literal.
pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_string(&mut out, s);
    out
}

/// A JSON list of strings.
pub fn string_list<S: AsRef<str>>(items: &[S]) -> String {
    let mut out = String::from("[");
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(&mut out, s.as_ref());
    }
    out.push(']');
    out
}

/// A JSON list of already-rendered values.
pub fn list<S: AsRef<str>>(items: &[S]) -> String {
    let mut out = String::from("[");
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(s.as_ref());
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_has_hails_key_order_and_newline() {
        let a = Answer::success("score: 1", string_list(&["n1", "n2"]));
        assert_eq!(
            a.render(),
            "{\"success\":true,\"info\":\"Request successful: score: 1\",\"result\":[\"n1\",\"n2\"]}\n"
        );
        let f = Answer::failure("no \"room\"\n");
        assert_eq!(
            f.render(),
            "{\"success\":false,\"info\":\"Request failed: no \\\"room\\\"\\n\",\"result\":[]}\n"
        );
    }
}
