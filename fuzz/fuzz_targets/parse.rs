//! `parse`: raw bytes → `json::parse`, then `protocol::read_message`.
//!
//! Checks: no panic; parsing is deterministic; an accepted text is UTF-8,
//! has no byte order mark and nests at most `MAX_DEPTH` levels; numbers are
//! consistent (`as_int` within ±2^53 and near `as_f64`); serde_json accepts
//! exactly the same texts (up to its own depth limit and the documented
//! deviations) and reads the same values; writing the tree back with
//! `haskell::json::write_string` and parsing it again gives the same tree;
//! `read_message` is deterministic and its errors carry a message; the
//! same read streamed while parsing gives the same result.
#![no_main]

use hailstone::read::iallocator as protocol;
use hailstone::read::json::{self, Json};
use hailstone_fuzz::{assert_same, depth, serde_tree, Tree};
use libfuzzer_sys::fuzz_target;

fn check_numbers_and_describe(j: &Json) {
    let mut stack = vec![j];
    while let Some(v) = stack.pop() {
        let _ = v.describe();
        match v {
            Json::Number(n) => {
                let f = n.as_f64();
                assert!(!f.is_nan(), "NaN number");
                if let Some(i) = n.as_int() {
                    assert!(i.unsigned_abs() <= 1 << 53, "as_int {i} beyond 2^53");
                    assert!(f.is_finite(), "as_int {i} of an infinite number");
                    assert!((f - i as f64).abs() <= 1.5, "as_int {i} far from {f}");
                } else if f.is_finite() {
                    // Outside ±2^53 (rounding of the exact value may differ
                    // from the f64's by a little at the boundary).
                    assert!(f.abs() >= 9007199254740992.0 - 1.0, "no as_int for {f}");
                }
            }
            Json::Array(xs) => stack.extend(xs.iter()),
            Json::Object(ms) => stack.extend(ms.iter().map(|(_, x)| x)),
            _ => {}
        }
    }
}

/// Same tree, comparing numbers by their f64 bits.
fn same_values(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.as_f64().to_bits() == y.as_f64().to_bits(),
        (Json::Array(xs), Json::Array(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same_values(x, y))
        }
        (Json::Object(xs), Json::Object(ys)) => {
            xs.len() == ys.len()
                && xs
                    .iter()
                    .zip(ys)
                    .all(|((k1, x), (k2, y))| k1 == k2 && same_values(x, y))
        }
        _ => a == b,
    }
}

fuzz_target!(|data: &[u8]| {
    let first = json::parse(data);
    let second = json::parse(data);
    assert_eq!(first, second, "two parses differ");

    let text = std::str::from_utf8(data).ok();
    match &first {
        Ok(doc) => {
            assert!(text.is_some(), "accepted invalid UTF-8");
            assert!(!data.starts_with(b"\xEF\xBB\xBF"), "accepted a BOM");
            let d = depth(doc);
            assert!(d <= json::MAX_DEPTH, "accepted depth {d}");
            check_numbers_and_describe(doc);

            // Write back and read again.
            let again = Tree::from_json(doc).to_text();
            match json::parse(again.as_bytes()) {
                Ok(doc2) => assert!(
                    same_values(doc, &doc2),
                    "round trip changed the tree: {again:?}"
                ),
                Err(e) => panic!("written tree does not parse ({e}): {again:?}"),
            }

            // serde_json agrees (its recursion limit is 128).
            if let Some(t) = text {
                match serde_tree(t) {
                    Ok(s) => assert_same(doc, &s, &mut String::new()),
                    Err(e) => {
                        let m = e.to_string();
                        // serde_json refuses numbers beyond f64 when it
                        // builds a value; hailstone keeps them as infinity.
                        let allowed =
                            m.contains("recursion limit") || m.contains("number out of range");
                        assert!(allowed, "hailstone accepts what serde_json refuses ({m})");
                    }
                }
            }

            // The wire reader: deterministic, messages not empty.
            let Ok(document) = json::parse_document(data) else {
                panic!("parse accepts what parse_document refuses");
            };
            // Streamed while parsed (members read straight from the input
            // where they can be): the same nodes, instances and message,
            // or the same first error, as read from the whole document.
            let mut cluster = protocol::Collected::default();
            let mut reader = protocol::Reader::new(&mut cluster);
            let streamed_doc = json::parse_document_streaming(data, &mut reader)
                .expect("streaming parse refuses what parse accepts");
            let streamed = reader.finish(&streamed_doc).map(|m| (m, cluster));
            let read = || {
                let mut cluster = protocol::Collected::default();
                protocol::read_message(&document, &mut cluster).map(|m| (m, cluster))
            };
            let m1 = read();
            assert_eq!(m1, read(), "two read_message calls differ");
            if let Err(e) = &m1 {
                assert!(
                    !e.to_string().trim().is_empty(),
                    "InputError without message"
                );
            }
            assert_eq!(
                m1.map_err(|e| e.to_string()),
                streamed.map_err(|e| e.to_string()),
                "streaming read differs"
            );
        }
        Err(e) => {
            assert!(!e.message.is_empty(), "ParseError without message");
            assert!(e.offset <= data.len(), "error offset beyond input");
            assert!(e.line >= 1 && e.column >= 1, "error position not 1-based");
            if let Some(t) = text {
                if serde_tree(t).is_ok() {
                    // Documented deviations: lone surrogates, nesting beyond
                    // MAX_DEPTH (serde_json's limit is lower anyway).
                    assert!(
                        e.message.contains("surrogate"),
                        "serde_json accepts what hailstone refuses: {e}"
                    );
                }
            }
        }
    }
});
