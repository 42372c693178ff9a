//! The verdict on two answers to one request: identical bytes, or the
//! first JSON path where they differ (`result[0]`,
//! `result[2][0][0].target_node`), read with the crate's own
//! order-preserving reader ([`crate::read::json`]), so that members are
//! compared in the order the allocators wrote them, as Ganeti's reader
//! would see them. "First" is in the order of the documents: the first
//! member or item that is not the same in both, depth first.

use crate::read::json::{parse, Json};

/// How two answers compare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Difference {
    /// The same bytes.
    Identical,
    /// One answer is not JSON: which (0: the first, 1: the second) and
    /// the reader's error.
    NotJson { which: usize, error: String },
    /// The same JSON written differently (spacing, escapes, number forms).
    Spelling,
    /// The first path where the values differ, and each side's value
    /// there, described briefly (`"node2"`, `an array`, `missing`).
    At {
        path: String,
        first: String,
        second: String,
    },
}

/// Compares the answer `first` with `second`.
pub fn compare(first: &[u8], second: &[u8]) -> Difference {
    if first == second {
        return Difference::Identical;
    }
    let a = match parse(first) {
        Ok(a) => a,
        Err(e) => {
            return Difference::NotJson {
                which: 0,
                error: e.to_string(),
            }
        }
    };
    let b = match parse(second) {
        Ok(b) => b,
        Err(e) => {
            return Difference::NotJson {
                which: 1,
                error: e.to_string(),
            }
        }
    };
    let mut path = String::new();
    match first_difference(&a, &b, &mut path) {
        None => Difference::Spelling,
        Some((first, second)) => Difference::At {
            path: if path.is_empty() {
                "(the whole answer)".to_owned()
            } else {
                path
            },
            first,
            second,
        },
    }
}

/// Appends an object key to a path: bare when it is a plain name.
fn push_key(path: &mut String, key: &str) {
    let plain = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !path.is_empty() {
        path.push('.');
    }
    if plain {
        path.push_str(key);
    } else {
        crate::haskell::json::write_string(path, key);
    }
}

/// Whether two numbers are the same value.
fn same_number(a: &crate::read::json::Number, b: &crate::read::json::Number) -> bool {
    a.as_int() == b.as_int() && a.as_f64().to_bits() == b.as_f64().to_bits()
}

/// The first difference below `path` (which is extended to it), as the
/// two sides' descriptions; `None` when the values are equal.
fn first_difference(a: &Json, b: &Json, path: &mut String) -> Option<(String, String)> {
    match (a, b) {
        (Json::Null, Json::Null) => None,
        (Json::Bool(x), Json::Bool(y)) if x == y => None,
        (Json::Number(x), Json::Number(y)) if same_number(x, y) => None,
        (Json::String(x), Json::String(y)) if x == y => None,
        (Json::Array(xs), Json::Array(ys)) => {
            for (i, pair) in xs.iter().zip(ys.iter()).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                if let Some(d) = first_difference(pair.0, pair.1, path) {
                    return Some(d);
                }
                path.truncate(len);
            }
            if xs.len() == ys.len() {
                return None;
            }
            let i = xs.len().min(ys.len());
            path.push_str(&format!("[{i}]"));
            Some((
                xs.get(i).map_or("missing".to_owned(), Json::describe),
                ys.get(i).map_or("missing".to_owned(), Json::describe),
            ))
        }
        (Json::Object(xs), Json::Object(ys)) => {
            for ((ka, va), (kb, vb)) in xs.iter().zip(ys.iter()) {
                let len = path.len();
                if ka != kb {
                    push_key(path, ka);
                    return Some((
                        format!("{} (member {ka:?})", va.describe()),
                        format!("member {kb:?} in its place"),
                    ));
                }
                push_key(path, ka);
                if let Some(d) = first_difference(va, vb, path) {
                    return Some(d);
                }
                path.truncate(len);
            }
            if xs.len() == ys.len() {
                return None;
            }
            let i = xs.len().min(ys.len());
            let (key, _) = xs.get(i).or_else(|| ys.get(i))?;
            push_key(path, key);
            Some((
                xs.get(i)
                    .map_or("missing".to_owned(), |(_, v)| v.describe()),
                ys.get(i)
                    .map_or("missing".to_owned(), |(_, v)| v.describe()),
            ))
        }
        _ => Some((a.describe(), b.describe())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(path: &str, first: &str, second: &str) -> Difference {
        Difference::At {
            path: path.to_owned(),
            first: first.to_owned(),
            second: second.to_owned(),
        }
    }

    #[test]
    fn identical_and_spelling() {
        let a = br#"{"success":true,"info":"x","result":["n1"]}"#;
        assert_eq!(compare(a, a), Difference::Identical);
        let b = br#"{"success": true, "info":"x","result":["\u006e1"]}"#;
        assert_eq!(compare(a, b), Difference::Spelling);
    }

    #[test]
    fn the_first_path_in_document_order() {
        let a = br#"{"success":true,"info":"Request successful","result":["n1","n2"]}"#;
        let b = br#"{"success":true,"info":"Request successful","result":["n1","n3"]}"#;
        assert_eq!(compare(a, b), at("result[1]", "\"n2\"", "\"n3\""));
        let c = br#"{"success":true,"info":"Request successful","result":["n1"]}"#;
        assert_eq!(compare(a, c), at("result[1]", "\"n2\"", "missing"));
        let d = br#"{"success":false,"info":"x","result":[]}"#;
        assert_eq!(compare(a, d), at("success", "true", "false"));
        let e = br#"{"success":true,"result":[],"info":"x"}"#;
        assert_eq!(
            compare(d, e),
            at("success", "false", "true"),
            "values first, then order"
        );
        let f = br#"{"success":false,"result":[],"info":"x"}"#;
        assert_eq!(
            compare(d, f),
            at(
                "info",
                "\"x\" (member \"info\")",
                "member \"result\" in its place"
            )
        );
        let g = br#"{"result":[[],[],[[{"OP_ID":"OP_INSTANCE_MIGRATE","target node":"a"}]]]}"#;
        let h = br#"{"result":[[],[],[[{"OP_ID":"OP_INSTANCE_MIGRATE","target node":"b"}]]]}"#;
        assert_eq!(
            compare(g, h),
            at("result[2][0][0].\"target node\"", "\"a\"", "\"b\"")
        );
        assert_eq!(compare(b"1", b"2"), at("(the whole answer)", "1", "2"));
    }

    #[test]
    fn not_json() {
        assert!(matches!(
            compare(b"{}", b"garbage"),
            Difference::NotJson { which: 1, .. }
        ));
        assert!(matches!(
            compare(b"", b"{}"),
            Difference::NotJson { which: 0, .. }
        ));
    }
}
