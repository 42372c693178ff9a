//! Tests of JSON reading and writing.

use super::parser::{plain_run_end, plain_run_end_swar, whitespace_end, whitespace_end_swar};
use super::*;

/// Parses text that must be valid.
fn ok(text: &str) -> Json<'_> {
    check_streaming(text.as_bytes());
    match parse(text.as_bytes()) {
        Ok(v) => v,
        Err(e) => panic!("{text:?} was refused: {e}"),
    }
}

/// Parses bytes that must be refused.
fn refused(bytes: &[u8]) -> ParseError {
    check_streaming(bytes);
    match parse(bytes) {
        Ok(v) => panic!("{:?} was accepted as {v:?}", String::from_utf8_lossy(bytes)),
        Err(e) => e,
    }
}

/// Parses a number literal.
fn number(text: &str) -> Number {
    match ok(text) {
        Json::Number(n) => n,
        other => panic!("{text:?} parsed as {other:?}"),
    }
}

/// Records what a streaming parse hands over: for each top-level member in
/// order, the members of its value if it was streamed.
struct Recorder {
    /// Which members to stream: all objects, or those whose key length has
    /// this parity.
    parity: Option<bool>,
    members: Vec<Option<Vec<String>>>,
    ended: usize,
}

impl Streamer for Recorder {
    fn wants(&mut self, so_far: &Document<'_>, key: &str, is_object: bool) -> bool {
        let complete = so_far.root().as_object().map(|o| o.len());
        assert_eq!(complete, Some(self.members.len()), "members so far");
        let want = self.parity.is_none_or(|p| key.len().is_multiple_of(2) == p);
        self.members.push((want && is_object).then(Vec::new));
        want
    }

    fn member(&mut self, key: &str, value: Value<'_>) {
        let last = self.members.last_mut().and_then(|m| m.as_mut());
        last.expect("a member of a streamed object")
            .push(format!("{key:?}: {:?}", value.to_tree()));
    }

    fn end(&mut self) {
        self.ended += 1;
    }
}

/// Checks that a streaming parse accepts and refuses what `parse` does,
/// with the same error, and that its document plus what it handed over is
/// the whole document.
fn check_streaming(bytes: &[u8]) {
    let whole = parse(bytes);
    for parity in [None, Some(true), Some(false)] {
        let mut rec = Recorder {
            parity,
            members: Vec::new(),
            ended: 0,
        };
        let streamed = parse_document_streaming(bytes, &mut rec).map(|d| d.to_tree());
        match (&whole, streamed) {
            (Err(a), Err(b)) => assert_eq!(*a, b, "{:?}", String::from_utf8_lossy(bytes)),
            (Ok(whole), Ok(main)) => {
                let streams = rec.members.iter().filter(|m| m.is_some()).count();
                assert_eq!(rec.ended, streams);
                match (whole, main) {
                    (Json::Object(all), Json::Object(kept)) => {
                        assert_eq!(all.len(), kept.len());
                        assert_eq!(all.len(), rec.members.len());
                        for (((k1, v1), (k2, v2)), rec) in all.iter().zip(&kept).zip(&rec.members) {
                            assert_eq!(k1, k2);
                            match rec {
                                None => assert_eq!(v1, v2),
                                Some(members) => {
                                    assert_eq!(*v2, Json::Object(Vec::new()));
                                    let Json::Object(ms) = v1 else {
                                        panic!("streamed a non-object")
                                    };
                                    let expected: Vec<String> =
                                        ms.iter().map(|(k, v)| format!("{k:?}: {v:?}")).collect();
                                    assert_eq!(*members, expected);
                                }
                            }
                        }
                    }
                    (whole, main) => {
                        assert!(rec.members.is_empty());
                        assert_eq!(*whole, main);
                    }
                }
            }
            (a, b) => panic!(
                "{:?}: parse {a:?}, streaming parse {b:?}",
                String::from_utf8_lossy(bytes)
            ),
        }
    }
}

/// A small deterministic pseudo-random generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const SAMPLE: &str = r#"{
  "version": 2,
  "cluster_name": "cluster.example.com",
  "nodes": {
"node1": {"total_memory": 32768, "free_memory": 31389.5, "offline": false,
          "tags": ["a", "b\u00e9\n", "\ud83d\ude00"], "group": null},
"node1": {"total_memory": 1.5e0, "ratio": -0.25E-3}
  },
  "request": {"type": "allocate", "name": "inst\"1\\", "disks": [{"size": 1024}, {"size": 0}],
          "empty": {}, "none": [], "unicode": "ü€😀"}
}
"#;

#[test]
fn keeps_key_order_and_duplicate_keys() {
    let doc = ok(r#"{"b": 1, "a": 2, "b": 3, "c": {"z": null, "y": true}}"#);
    let Json::Object(members) = &doc else {
        panic!("not an object: {doc:?}")
    };
    let keys: Vec<&str> = members.iter().map(|(k, _)| k.as_ref()).collect();
    assert_eq!(keys, ["b", "a", "b", "c"]);
    assert_eq!(members[2].1, Json::Number(Number::from_f64(3.0)));
    // `get` returns the first of the duplicates.
    assert_eq!(doc.get("b").and_then(number_of), Some(1));
    assert_eq!(doc.get("a").and_then(number_of), Some(2));
    assert_eq!(doc.get("missing"), None);
    let inner = doc.get("c").map(|c| match c {
        Json::Object(m) => m.iter().map(|(k, _)| k.to_string()).collect::<Vec<_>>(),
        _ => Vec::new(),
    });
    assert_eq!(inner, Some(vec!["z".to_owned(), "y".to_owned()]));
    // `get` on anything but an object is None.
    assert_eq!(ok("[1]").get("a"), None);
    assert_eq!(ok("\"a\"").get("a"), None);
}

fn number_of(j: &Json) -> Option<i64> {
    match j {
        Json::Number(n) => n.as_int(),
        _ => None,
    }
}

#[test]
fn sample_document_parses() {
    let doc = ok(SAMPLE);
    let nodes = doc.get("nodes");
    let Some(Json::Object(nodes)) = nodes else {
        panic!("no nodes")
    };
    assert_eq!(nodes.len(), 2);
    assert_eq!(nodes[0].0, "node1");
    assert_eq!(nodes[1].0, "node1");
    let node = &nodes[0].1;
    assert_eq!(node.get("free_memory").and_then(number_of), Some(31390));
    assert_eq!(node.get("offline"), Some(&Json::Bool(false)));
    assert_eq!(node.get("group"), Some(&Json::Null));
    let tags = node.get("tags");
    let expected = Json::Array(vec![
        Json::String("a".into()),
        Json::String("bé\n".into()),
        Json::String("😀".into()),
    ]);
    assert_eq!(tags, Some(&expected));
    assert_eq!(nodes[1].1.get("total_memory").and_then(number_of), Some(2));
    let request = doc.get("request");
    assert_eq!(
        request.and_then(|r| r.get("name")),
        Some(&Json::String("inst\"1\\".into()))
    );
    assert_eq!(
        request.and_then(|r| r.get("empty")),
        Some(&Json::Object(Vec::new()))
    );
    assert_eq!(
        request.and_then(|r| r.get("none")),
        Some(&Json::Array(Vec::new()))
    );
    assert_eq!(
        request.and_then(|r| r.get("unicode")),
        Some(&Json::String("ü€😀".into()))
    );
}

#[test]
fn strings_borrow_from_the_input_unless_escaped() {
    let text = r#"{"plain": "text", "k\u0065y": "a\nb", "list": ["x", "", "y\"z"]}"#;
    let doc = ok(text);
    let Json::Object(members) = &doc else {
        panic!("not an object: {doc:?}")
    };
    let borrowed = |s: &Cow<'_, str>| matches!(s, Cow::Borrowed(_));
    let flags: Vec<bool> = members.iter().map(|(k, _)| borrowed(k)).collect();
    assert_eq!(flags, [true, false, true]);
    assert_eq!(members[1].0, "key");
    let strings: Vec<(&str, bool)> = [
        doc.get("plain"),
        doc.get("key"),
        doc.get("list").and_then(|l| match l {
            Json::Array(items) => items.first(),
            _ => None,
        }),
    ]
    .into_iter()
    .map(|v| match v {
        Some(Json::String(s)) => (s.as_ref(), borrowed(s)),
        other => panic!("not a string: {other:?}"),
    })
    .collect();
    assert_eq!(strings, [("text", true), ("a\nb", false), ("x", true)]);
    let Some(Json::Array(list)) = doc.get("list") else {
        panic!("no list")
    };
    assert_eq!(list[1], Json::String(Cow::Borrowed("")));
    assert!(matches!(&list[2], Json::String(Cow::Owned(s)) if s == "y\"z"));
    // A borrowed string points into the input itself.
    if let Some(Json::String(Cow::Borrowed(s))) = doc.get("plain") {
        let range = text.as_bytes().as_ptr_range();
        assert!(range.contains(&s.as_ptr()));
    }
}

#[test]
fn top_level_values_of_every_kind() {
    assert_eq!(ok("null"), Json::Null);
    assert_eq!(ok(" true "), Json::Bool(true));
    assert_eq!(ok("\t\r\nfalse\n"), Json::Bool(false));
    assert_eq!(ok("\"x\""), Json::String("x".into()));
    assert_eq!(ok("[]"), Json::Array(Vec::new()));
    assert_eq!(ok("{ }"), Json::Object(Vec::new()));
    assert_eq!(ok("[ 1 , [ ] , { } ]").kind(), "an array");
    assert_eq!(number("7").as_int(), Some(7));
}

#[test]
fn number_examples() {
    let cases: &[(&str, Option<i64>)] = &[
        ("2.5", Some(2)),
        ("3.5", Some(4)),
        ("-2.5", Some(-2)),
        ("-3.5", Some(-4)),
        ("2.5000000000000000001", Some(3)),
        ("2.4999999999999999999", Some(2)),
        ("1e2", Some(100)),
        ("1E2", Some(100)),
        ("1e+2", Some(100)),
        ("1.5e0", Some(2)),
        ("0.5", Some(0)),
        ("-0.5", Some(0)),
        ("1.5", Some(2)),
        ("0.5000000000000000000000001", Some(1)),
        ("0.4999999", Some(0)),
        ("0.05", Some(0)),
        ("0.96", Some(1)),
        ("31389.5", Some(31390)),
        ("31388.5", Some(31388)),
        ("1e-400", Some(0)),
        ("0e99999999999", Some(0)),
        ("0.000e999999999999999999999", Some(0)),
        ("-0", Some(0)),
        ("0", Some(0)),
        ("-0.0", Some(0)),
        ("9007199254740992", Some(1 << 53)),
        ("-9007199254740992", Some(-(1 << 53))),
        ("9007199254740993", None),
        ("-9007199254740993", None),
        ("9007199254740992.4", Some(1 << 53)),
        ("9007199254740992.5", Some(1 << 53)),
        ("9007199254740992.6", None),
        ("9007199254740991.5", Some(1 << 53)),
        ("90071992547409915e-1", Some(1 << 53)),
        ("9.007199254740992e15", Some(1 << 53)),
        ("10000000000000000", None),
        ("99999999999999999999", None),
        ("1e30", None),
        ("-1e30", None),
        ("1e15", Some(1_000_000_000_000_000)),
        ("1e16", None),
        ("123456789e-3", Some(123457)),
        ("123456500e-3", Some(123456)),
        ("123457500e-3", Some(123458)),
        ("1234567890123456789e-10", Some(123456789)),
        ("12345678901234567890e-10", Some(1234567890)),
        ("0.00000000000000000000000000000000001e35", Some(1)),
        ("0.00000000000000000000000000000000005e35", Some(5)),
        ("0.00000000000000000000000000000000005e34", Some(0)),
        ("0.00000000000000000000000000000000015e34", Some(2)),
        ("1e999999999999999999", None),
        ("1e-999999999999999999", Some(0)),
        ("-1e999999999999999999999999999999", None),
        ("1e-999999999999999999999999999999", Some(0)),
        ("100000000000000000000000000000e-29", Some(1)),
        ("1000000000000000000000000000000e-29", Some(10)),
        ("1.00000000000000000000000000000", Some(1)),
        ("123", Some(123)),
        ("-123", Some(-123)),
        ("999999999999999", Some(999_999_999_999_999)),
        ("-999999999999999", Some(-999_999_999_999_999)),
        ("1000000000000000", Some(1_000_000_000_000_000)),
    ];
    for &(text, int) in cases {
        let n = number(text);
        assert_eq!(n.as_int(), int, "as_int of {text}");
        let expected: f64 = text.parse().unwrap_or(f64::NAN);
        assert_eq!(n.as_f64().to_bits(), expected.to_bits(), "as_f64 of {text}");
    }
}

#[test]
fn number_f64_edges() {
    assert!(number("-0").as_f64().is_sign_negative());
    assert_eq!(number("-0").as_f64(), 0.0);
    assert!(number("-0.0e5").as_f64().is_sign_negative());
    assert!(number("0").as_f64().is_sign_positive());
    assert_eq!(number("1e999999999999999999").as_f64(), f64::INFINITY);
    assert_eq!(number("-1e999999999999999999").as_f64(), f64::NEG_INFINITY);
    assert_eq!(number("1e-999999999999999999").as_f64(), 0.0);
    assert_eq!(number("1.7976931348623157e308").as_f64(), f64::MAX);
    assert_eq!(number("5e-324").as_f64(), 5e-324);
    assert_eq!(number("0.1").as_f64(), 0.1);
    assert_eq!(number("12.5").as_f64(), 12.5);
    // A long mantissa is still correctly rounded.
    let long = format!("0.{}1", "0".repeat(400));
    assert_eq!(number(&long).as_f64(), 1e-401_f64.max(0.0));
    assert_eq!(number(&long).as_int(), Some(0));
    let long = format!("1{}", "0".repeat(400));
    assert_eq!(number(&long).as_f64(), f64::INFINITY);
    assert_eq!(number(&long).as_int(), None);
}

#[test]
fn numbers_match_an_exact_reference() {
    // Compares with the exact quotient of i128s for literals small enough
    // for that, and with `str::parse` for the f64.
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    for _ in 0..3000 {
        let int_len = 1 + rng.below(9);
        let frac_len = rng.below(9);
        let mut text = String::new();
        let negative = rng.below(2) == 0;
        if negative {
            text.push('-');
        }
        let mut digits = String::new();
        for i in 0..int_len {
            let d = if i == 0 && int_len > 1 {
                1 + rng.below(9)
            } else {
                rng.below(10)
            };
            digits.push(char::from(b'0' + d as u8));
        }
        text.push_str(&digits);
        let mut frac = String::new();
        for _ in 0..frac_len {
            // Favour 0, 5 and 9 to hit ties and carries.
            let d = match rng.below(4) {
                0 => 0,
                1 => 5,
                2 => 9,
                _ => rng.below(10),
            };
            frac.push(char::from(b'0' + d as u8));
        }
        if frac_len > 0 {
            text.push('.');
            text.push_str(&frac);
        }
        let exponent = rng.below(13) as i64 - 6;
        if rng.below(2) == 0 {
            text.push_str(&format!("e{exponent}"));
        } else if exponent != 0 {
            text.push_str(&format!("E{exponent:+}"));
        }
        let exponent = if text.contains(['e', 'E']) {
            exponent
        } else {
            0
        };
        let mantissa: i128 = format!("{digits}{frac}").parse().unwrap_or(0);
        let scale = exponent - frac_len as i64;
        let (num, den) = if scale >= 0 {
            (mantissa * 10i128.pow(scale as u32), 1i128)
        } else {
            (mantissa, 10i128.pow((-scale) as u32))
        };
        let (q, r) = (num / den, num % den);
        let rounded = match (2 * r).cmp(&den) {
            std::cmp::Ordering::Less => q,
            std::cmp::Ordering::Greater => q + 1,
            std::cmp::Ordering::Equal => q + (q % 2),
        };
        let rounded = if negative { -rounded } else { rounded };
        let expected = if rounded.abs() <= 1 << 53 {
            Some(rounded as i64)
        } else {
            None
        };
        let n = number(&text);
        assert_eq!(n.as_int(), expected, "as_int of {text}");
        let f: f64 = text.parse().unwrap_or(f64::NAN);
        assert_eq!(n.as_f64().to_bits(), f.to_bits(), "as_f64 of {text}");
    }
}

#[test]
fn from_f64_rounds_half_to_even() {
    assert_eq!(Number::from_f64(2.5).as_int(), Some(2));
    assert_eq!(Number::from_f64(3.5).as_int(), Some(4));
    assert_eq!(Number::from_f64(-2.5).as_int(), Some(-2));
    assert_eq!(Number::from_f64(-0.0).as_int(), Some(0));
    assert_eq!(Number::from_f64(9007199254740992.0).as_int(), Some(1 << 53));
    assert_eq!(Number::from_f64(9007199254740994.0).as_int(), None);
    assert_eq!(Number::from_f64(f64::INFINITY).as_int(), None);
    assert_eq!(Number::from_f64(f64::NAN).as_int(), None);
    assert_eq!(Number::from_f64(12.5).as_f64(), 12.5);
    assert_eq!(number("12.5"), Number::from_f64(12.5));
    assert_eq!(number("1024"), Number::from_f64(1024.0));
}

/// Checks that `input` is refused at `line`:`column` with a message
/// containing `message`.
fn check_refusal(input: &[u8], line: usize, column: usize, message: &str) {
    let e = refused(input);
    let shown = String::from_utf8_lossy(input);
    assert!(
        e.message.contains(message),
        "{shown:?}: message {:?}",
        e.message
    );
    assert_eq!(
        (e.line, e.column),
        (line, column),
        "{shown:?}: position of {e}"
    );
    assert!(!e.message.ends_with('.'), "{shown:?}: {e}");
    assert!(
        e.message.starts_with(|c: char| c.is_lowercase()),
        "{shown:?}: {e}"
    );
}

#[test]
fn grammar_refusals() {
    let cases: &[(&str, usize, usize, &str)] = &[
        ("", 1, 1, "expected a JSON value, found end of input"),
        ("  \n\t ", 2, 3, "expected a JSON value, found end of input"),
        ("01", 1, 1, "leading zeros are not allowed"),
        ("-01", 1, 2, "leading zeros are not allowed"),
        ("[00]", 1, 2, "leading zeros are not allowed"),
        (
            "1.",
            1,
            3,
            "expected a digit after the decimal point, found end of input",
        ),
        (
            "[1.]",
            1,
            4,
            "expected a digit after the decimal point, found ']'",
        ),
        (
            "1.e5",
            1,
            3,
            "expected a digit after the decimal point, found 'e'",
        ),
        (".5", 1, 1, "expected a JSON value, found '.'"),
        ("+1", 1, 1, "expected a JSON value, found '+'"),
        ("-", 1, 2, "expected a digit after '-', found end of input"),
        ("-a", 1, 2, "expected a digit after '-', found 'a'"),
        (
            "1e",
            1,
            3,
            "expected a digit in the exponent, found end of input",
        ),
        (
            "1e+",
            1,
            4,
            "expected a digit in the exponent, found end of input",
        ),
        ("1E-x", 1, 4, "expected a digit in the exponent, found 'x'"),
        ("NaN", 1, 1, "expected a JSON value, found 'NaN'"),
        ("Infinity", 1, 1, "expected a JSON value, found 'Infinity'"),
        ("-Infinity", 1, 2, "expected a digit after '-', found 'I'"),
        ("[1, nan]", 1, 5, "expected a JSON value, found 'nan'"),
        ("True", 1, 1, "expected a JSON value, found 'True'"),
        ("tru", 1, 4, "expected 'true', found end of input"),
        ("nul", 1, 4, "expected 'null', found end of input"),
        ("fals", 1, 5, "expected 'false', found end of input"),
        ("truth", 1, 1, "expected a JSON value, found 'truth'"),
        ("nulll", 1, 5, "unexpected data after the JSON value"),
        ("// c\n1", 1, 1, "expected a JSON value, found '/'"),
        ("/* c */ 1", 1, 1, "expected a JSON value, found '/'"),
        (
            "[1 /* c */]",
            1,
            4,
            "expected ',' or ']' after an array element, found '/'",
        ),
        ("[1,]", 1, 4, "expected a JSON value, found ']'"),
        ("[,1]", 1, 2, "expected a JSON value or ']', found ','"),
        (
            "{\"a\":1,}",
            1,
            8,
            "expected a string key after ',', found '}'",
        ),
        ("{,}", 1, 2, "expected a string key or '}', found ','"),
        ("{'a':1}", 1, 2, "expected a string key or '}', found \"'\""),
        ("['a']", 1, 2, "expected a JSON value or ']', found \"'\""),
        ("{a:1}", 1, 2, "expected a string key or '}', found 'a'"),
        (
            "{\"a\" 1}",
            1,
            6,
            "expected ':' after an object key, found '1'",
        ),
        ("{\"a\":}", 1, 6, "expected a JSON value, found '}'"),
        (
            "[1 2]",
            1,
            4,
            "expected ',' or ']' after an array element, found '2'",
        ),
        (
            "{\"a\":1 \"b\":2}",
            1,
            8,
            "expected ',' or '}' after an object member, found '\"'",
        ),
        (
            "[1}",
            1,
            3,
            "expected ',' or ']' after an array element, found '}'",
        ),
        (
            "{\"a\":1]",
            1,
            7,
            "expected ',' or '}' after an object member, found ']'",
        ),
        ("1 2", 1, 3, "unexpected data after the JSON value"),
        ("{} x", 1, 4, "unexpected data after the JSON value"),
        (
            "\"a\"\n\n  \"b\"",
            3,
            3,
            "unexpected data after the JSON value",
        ),
        ("[\n1,\n2,\n]", 4, 1, "expected a JSON value, found ']'"),
        ("\u{c}1", 1, 1, "expected a JSON value, found U+000C"),
        ("\u{a0}1", 1, 1, "expected a JSON value, found U+00A0"),
        ("é", 1, 1, "expected a JSON value, found 'é' (U+00E9)"),
        ("\"abc", 1, 1, "unterminated string"),
        ("[\"a\", \"b", 1, 7, "unterminated string"),
        ("\"ab\\", 1, 1, "unterminated string"),
        (
            "{",
            1,
            2,
            "expected a string key or '}', found end of input",
        ),
        (
            "{\"a\"",
            1,
            5,
            "expected ':' after an object key, found end of input",
        ),
        ("{\"a\":", 1, 6, "expected a JSON value, found end of input"),
        (
            "{\"a\":1",
            1,
            7,
            "expected ',' or '}' after an object member, found end of input",
        ),
        (
            "{\"a\":1,",
            1,
            8,
            "expected a string key after ',', found end of input",
        ),
        (
            "[",
            1,
            2,
            "expected a JSON value or ']', found end of input",
        ),
        (
            "[1",
            1,
            3,
            "expected ',' or ']' after an array element, found end of input",
        ),
        ("[1,", 1, 4, "expected a JSON value, found end of input"),
        (
            "\"a\nb\"",
            1,
            3,
            "unescaped control character U+000A in a string",
        ),
        (
            "\"a\u{0}\"",
            1,
            3,
            "unescaped control character U+0000 in a string",
        ),
        (
            "\"\t\"",
            1,
            2,
            "unescaped control character U+0009 in a string",
        ),
        ("\"\\x\"", 1, 3, "after '\\' in a string, found 'x'"),
        ("\"\\'\"", 1, 3, "after '\\' in a string, found \"'\""),
        ("\"\\U0041\"", 1, 3, "after '\\' in a string, found 'U'"),
        (
            "\"\\u12\"",
            1,
            6,
            "expected a hex digit in a \\u escape, found '\"'",
        ),
        (
            "\"\\u12g4\"",
            1,
            6,
            "expected a hex digit in a \\u escape, found 'g'",
        ),
        (
            "\"\\u12",
            1,
            6,
            "expected a hex digit in a \\u escape, found end of input",
        ),
        ("\"é\\q\"", 1, 4, "found 'q'"),
    ];
    for &(input, line, column, message) in cases {
        check_refusal(input.as_bytes(), line, column, message);
    }
}

#[test]
fn error_display_and_offset() {
    let e = refused(b"{\n  \"a\": [1,\n  2,, 3]\n}");
    assert_eq!(
        e.to_string(),
        "line 3, column 5: expected a JSON value, found ','"
    );
    assert_eq!(e.offset, 17);
    // Columns count characters, not bytes.
    let e = refused("{\"ééé\": x}".as_bytes());
    assert_eq!((e.line, e.column, e.offset), (1, 9, 11));
    let e: Box<dyn std::error::Error> = Box::new(refused(b"?"));
    assert_eq!(
        e.to_string(),
        "line 1, column 1: expected a JSON value, found '?'"
    );
}

#[test]
fn surrogates() {
    assert_eq!(ok(r#""\ud83d\ude00""#), Json::String("😀".into()));
    assert_eq!(ok(r#""\uD834\uDD1E""#), Json::String("𝄞".into()));
    assert_eq!(
        ok(r#""x\uDBFF\uDFFFy""#),
        Json::String("x\u{10FFFF}y".into())
    );
    assert_eq!(
        ok(r#""\u0041\u00e9\u20AC\uffff""#),
        Json::String("Aé€\u{ffff}".into())
    );
    assert_eq!(ok(r#""\u0000""#), Json::String("\0".into()));
    let lone: &[(&str, usize)] = &[
        (r#""\ud83d""#, 2),
        (r#""\ud83d x""#, 2),
        (r#""ab\ude00""#, 4),
        (r#""\ud83d\u0041""#, 2),
        (r#""\ud83d\ud83d""#, 2),
        (r#""\ud83d\n""#, 2),
        (r#"["\udc00\ud800"]"#, 3),
    ];
    for &(input, column) in lone {
        check_refusal(input.as_bytes(), 1, column, "lone surrogate in \\u escape");
    }
    // A high surrogate followed by a broken escape reports the escape.
    check_refusal(br#""\ud83d\u12""#, 1, 12, "expected a hex digit");
    check_refusal(br#""\ud83d\u"#, 1, 10, "found end of input");
}

#[test]
fn invalid_utf8() {
    let cases: &[(&[u8], usize, usize)] = &[
        (b"\"a\xffb\"", 1, 3),
        (b"\"\xc3\"", 1, 2),
        (b"\"\xc3\xa9\xc3\"", 1, 3),
        (b"\"\xed\xa0\x80\"", 1, 2),
        (b"\"\xc0\xaf\"", 1, 2),
        (b"\"\xf4\x90\x80\x80\"", 1, 2),
        (b"\"a\\n\xe2\x82\"", 1, 5),
        (b"\"unterminated \xff", 1, 15),
        (b"\xff", 1, 1),
        (b"[1,\xfe]", 1, 4),
        (b"[1 \xc3]", 1, 4),
        (b"{\"a\":1}\xff", 1, 8),
        (b"{\"\xc3\xa9\":1,\n\"k\xff\":2}", 2, 3),
    ];
    for &(input, line, column) in cases {
        check_refusal(input, line, column, "");
        let e = refused(input);
        if input.ends_with(b"}\xff") {
            assert_eq!(e.message, "unexpected data after the JSON value");
        } else {
            assert!(e.message.starts_with("invalid UTF-8"), "{input:?}: {e}");
        }
    }
    assert_eq!(refused(b"\"a\xffb\"").message, "invalid UTF-8 (byte 0xff)");
    // Valid multi-byte UTF-8 of every length is accepted.
    assert_eq!(
        ok("\"\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}\""),
        Json::String("\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}".into())
    );
}

#[test]
fn errors_are_reported_in_input_order() {
    // A syntax error before an invalid byte is reported first, and the
    // other way round.
    check_refusal(b"[1 2, \"\xff\"]", 1, 4, "expected ',' or ']'");
    check_refusal(b"[\"\xff\", 1 2]", 1, 3, "invalid UTF-8 (byte 0xff)");
    check_refusal(b"[\"a\\q\xff\"]", 1, 5, "found 'q'");
    check_refusal(b"[\"a\\n\xff\"]", 1, 6, "invalid UTF-8");
    check_refusal(b"[\"a\n\xff\"]", 1, 4, "unescaped control character U+000A");
    check_refusal(b"[\"\xff\n\"]", 1, 3, "invalid UTF-8");
}

#[test]
fn plain_run_end_matches_a_byte_loop() {
    let mut rng = Rng(7);
    let alphabet = b"aZ \"\\\x00\x1f\x20\x7f\x80\xff\x5b\x5d\x21\x23";
    for _ in 0..2000 {
        let len = rng.below(40);
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                if rng.below(8) == 0 {
                    alphabet
                        .get(rng.below(alphabet.len()))
                        .copied()
                        .unwrap_or(0)
                } else {
                    b'a' + rng.below(26) as u8
                }
            })
            .collect();
        for from in 0..=bytes.len() {
            let expected = (from..bytes.len())
                .find(|&i| matches!(bytes[i], b'"' | b'\\' | 0x00..=0x1f))
                .unwrap_or(bytes.len());
            assert_eq!(
                plain_run_end(&bytes, from),
                expected,
                "{bytes:?} from {from}"
            );
            assert_eq!(
                plain_run_end_swar(&bytes, from),
                expected,
                "{bytes:?} from {from}"
            );
        }
    }
    assert_eq!(plain_run_end(b"abc", 7), 3);
    assert_eq!(plain_run_end_swar(b"abc", 7), 3);
}

#[test]
fn whitespace_end_matches_a_byte_loop() {
    let mut rng = Rng(11);
    let alphabet = b"  \n\r\t\x0b\x0c\x00\xa0a,{\"";
    for _ in 0..3000 {
        let len = rng.below(40);
        let bytes: Vec<u8> = (0..len)
            .map(|_| match rng.below(6) {
                0 => alphabet
                    .get(rng.below(alphabet.len()))
                    .copied()
                    .unwrap_or(0),
                1 => b'\n',
                _ => b' ',
            })
            .collect();
        for from in 0..=bytes.len() {
            let expected = (from..bytes.len())
                .find(|&i| !matches!(bytes[i], b' ' | b'\n' | b'\r' | b'\t'))
                .unwrap_or(bytes.len());
            assert_eq!(
                whitespace_end(&bytes, from),
                expected,
                "{bytes:?} from {from}"
            );
            assert_eq!(
                whitespace_end_swar(&bytes, from),
                expected,
                "{bytes:?} from {from}"
            );
        }
    }
}

#[test]
fn byte_order_mark() {
    let e = refused(b"\xEF\xBB\xBF{}");
    assert_eq!(e.message, "input starts with a UTF-8 byte order mark");
    assert_eq!((e.line, e.column, e.offset), (1, 1, 0));
    check_refusal(b"\xEF\xBB\xBF", 1, 1, "byte order mark");
    check_refusal(
        " \u{feff}{}".as_bytes(),
        1,
        2,
        "expected a JSON value, found U+FEFF",
    );
    // Inside a string the character is ordinary text.
    assert_eq!(ok("\"\u{feff}\""), Json::String("\u{feff}".into()));
}

#[test]
fn very_deep_input_is_refused_quickly() {
    let started = std::time::Instant::now();
    let deep = "[".repeat(100_000);
    let e = refused(deep.as_bytes());
    assert_eq!(e.message, "nesting deeper than 512 levels");
    assert_eq!(e.offset, MAX_DEPTH);
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    assert_eq!(refused(deep.as_bytes()).offset, MAX_DEPTH);
    let deep = "{\"a\":".repeat(100_000);
    let e = refused(deep.as_bytes());
    assert_eq!(e.message, "nesting deeper than 512 levels");
    assert_eq!(e.offset, MAX_DEPTH * 5);
    let deep = "[{\"a\":".repeat(50_000);
    assert_eq!(refused(deep.as_bytes()).offset, MAX_DEPTH / 2 * 6);
    assert!(
        started.elapsed().as_secs() < 2,
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn nesting_limit_is_exact() {
    let at_limit = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    let mut value = ok(&at_limit);
    let mut depth = 0;
    while let Json::Array(mut items) = value {
        depth += 1;
        value = items.pop().unwrap_or(Json::Null);
    }
    assert_eq!(depth, MAX_DEPTH);
    let over = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
    check_refusal(
        over.as_bytes(),
        1,
        MAX_DEPTH + 1,
        "nesting deeper than 512 levels",
    );

    let objects = |n: usize| format!("{}1{}", "{\"k\":".repeat(n), "}".repeat(n));
    assert!(ok(&objects(MAX_DEPTH)).get("k").is_some());
    check_refusal(
        objects(MAX_DEPTH + 1).as_bytes(),
        1,
        MAX_DEPTH * 5 + 1,
        "nesting deeper",
    );

    // Empty containers count as a level too.
    let empty = |open: &str, close: &str| {
        format!(
            "{}{open}{close}{}",
            "[".repeat(MAX_DEPTH),
            "]".repeat(MAX_DEPTH)
        )
    };
    check_refusal(
        empty("[", "]").as_bytes(),
        1,
        MAX_DEPTH + 1,
        "nesting deeper",
    );
    check_refusal(
        empty("{", "}").as_bytes(),
        1,
        MAX_DEPTH + 1,
        "nesting deeper",
    );
    let wide = format!("[{}]", "[[1]],".repeat(10_000) + "2");
    assert!(matches!(ok(&wide), Json::Array(items) if items.len() == 10_001));
}

#[test]
fn every_truncation_is_refused() {
    let bytes = SAMPLE.trim_end().as_bytes();
    for cut in 0..bytes.len() {
        let e = refused(&bytes[..cut]);
        assert!(e.offset <= cut, "cut at {cut}: {e}");
        assert!(e.line >= 1 && e.column >= 1);
    }
    assert!(parse(bytes).is_ok());
}

#[test]
fn fuzz_never_panics() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let alphabet = b"{}[]:,\"\\ \n0123456789.-+eEtrufalsn\x00\x1f\xc3\xa9\xff\xed\xa0ux";
    for _ in 0..3000 {
        let len = rng.below(40);
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                if rng.below(4) == 0 {
                    rng.next() as u8
                } else {
                    alphabet
                        .get(rng.below(alphabet.len()))
                        .copied()
                        .unwrap_or(b' ')
                }
            })
            .collect();
        check_consistent(&bytes);
    }
    let sample = SAMPLE.as_bytes();
    for _ in 0..3000 {
        let mut bytes = sample.to_vec();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(bytes.len() + 1);
            match rng.below(4) {
                0 if at < bytes.len() => bytes[at] = rng.next() as u8,
                1 if at < bytes.len() => {
                    bytes.remove(at);
                }
                2 => bytes.insert(at, alphabet[rng.below(alphabet.len())]),
                _ => {
                    let from = rng.below(bytes.len());
                    let chunk: Vec<u8> = bytes
                        .iter()
                        .skip(from)
                        .take(rng.below(12))
                        .copied()
                        .collect();
                    let at = at.min(bytes.len());
                    bytes.splice(at..at, chunk);
                }
            }
        }
        check_consistent(&bytes);
    }
}

/// Parses arbitrary bytes and checks that the outcome is coherent: an
/// error lies within the input, and an accepted input is valid UTF-8 whose
/// strings survive a round trip through the writer.
fn check_consistent(bytes: &[u8]) {
    check_streaming(bytes);
    match parse(bytes) {
        Err(e) => {
            assert!(e.offset <= bytes.len());
            assert!(e.line >= 1 && e.column >= 1);
            assert!(!e.message.is_empty());
        }
        Ok(value) => {
            assert!(
                std::str::from_utf8(bytes).is_ok(),
                "accepted invalid UTF-8: {bytes:?}"
            );
            let _ = value.describe();
            if let Json::String(s) = &value {
                let mut out = String::new();
                write_string(&mut out, s);
                assert_eq!(parse(out.as_bytes()).ok(), Some(value.clone()));
            }
        }
    }
}

#[test]
fn write_string_escaping() {
    let cases: &[(&str, &str)] = &[
        ("", r#""""#),
        ("plain", r#""plain""#),
        ("q\"b\\", r#""q\"b\\""#),
        ("\u{8}\u{c}\n\r\t", r#""\b\f\n\r\t""#),
        ("\u{0}\u{1}\u{1b}\u{1f}", r#""\u0000\u0001\u001b\u001f""#),
        ("\u{b}\u{e}\u{10}\u{1a}", r#""\u000b\u000e\u0010\u001a""#),
        ("a/b", r#""a/b""#),
        ("\u{7f}", "\"\u{7f}\""),
        (" ", "\" \""),
        (
            "é€😀\u{80}\u{2028}\u{feff}",
            "\"é€😀\u{80}\u{2028}\u{feff}\"",
        ),
        ("x\u{1b}[0m\"end", r#""x\u001b[0m\"end""#),
    ];
    for &(input, expected) in cases {
        let mut out = String::from("prefix:");
        write_string(&mut out, input);
        assert_eq!(out, format!("prefix:{expected}"), "escaping {input:?}");
    }
}

#[test]
fn write_then_parse_round_trips() {
    let mut strings: Vec<String> = [
        "",
        "a",
        "\"",
        "\\",
        "\\\"",
        "/",
        "\u{0}",
        "\u{1f}",
        "\u{7f}",
        "tab\there",
        "line\nbreak\r\n",
        "é",
        "日本語",
        "😀 emoji",
        "\u{10ffff}",
        "mixed \u{1} é \\ \" 😀",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    strings.push((0u32..0x80).filter_map(char::from_u32).collect());
    let mut rng = Rng(42);
    for _ in 0..300 {
        let len = rng.below(20);
        let s: String = (0..len)
            .filter_map(|_| {
                let c = match rng.below(3) {
                    0 => rng.below(0x80) as u32,
                    1 => rng.below(0x800) as u32,
                    _ => rng.below(0x11_0000) as u32,
                };
                char::from_u32(c)
            })
            .collect();
        strings.push(s);
    }
    for s in strings {
        let mut out = String::new();
        write_string(&mut out, &s);
        assert_eq!(
            ok(&out),
            Json::String(s.clone().into()),
            "round trip of {s:?} via {out}"
        );
    }
}

#[test]
fn kind_and_describe() {
    let cases: &[(&str, &str, &str)] = &[
        ("null", "null", "null"),
        ("true", "a boolean", "true"),
        ("false", "a boolean", "false"),
        ("12.5", "a number", "12.5"),
        ("-12", "a number", "-12"),
        ("-0", "a number", "-0"),
        ("1e30", "a number", "1e30"),
        ("-1.5e-7", "a number", "-1.5e-7"),
        ("31389.5", "a number", "31389.5"),
        ("9007199254740993", "a number", "9007199254740992"),
        ("1e999", "a number", "a number beyond 1.8e308"),
        ("\"lots\"", "a string", "\"lots\""),
        ("\"a\\nb\\u0001\"", "a string", "\"a\\nb\\u0001\""),
        ("[1]", "an array", "an array"),
        ("{}", "an object", "an object"),
    ];
    for &(input, kind, description) in cases {
        let value = ok(input);
        assert_eq!(value.kind(), kind, "kind of {input}");
        assert_eq!(value.describe(), description, "description of {input}");
    }
    let forty = "é".repeat(40);
    assert_eq!(
        Json::String(forty.clone().into()).describe(),
        format!("\"{forty}\"")
    );
    let long = format!("{forty}xyz");
    assert_eq!(
        Json::String(long.into()).describe(),
        format!("\"{forty}\"…")
    );
    assert_eq!(Json::Number(Number::from_f64(f64::NAN)).describe(), "NaN");
}

#[test]
fn document_reads_long_strings_and_large_containers() {
    // Unit tests build tokens with an 8-bit middle field: strings of 256
    // bytes and more, and containers of 256 items and more, take the
    // spill paths.
    let plain = "p".repeat(300);
    let escaped = format!("{}\\n{}", "e".repeat(200), "é".repeat(100));
    let items: Vec<String> = (0..300).map(|i| i.to_string()).collect();
    let members: Vec<String> = (0..300).map(|i| format!("\"k{i}\": {i}")).collect();
    let text = format!(
        "{{\"plain\": \"{plain}\", \"escaped\": \"{escaped}\", \"items\": [{}], \"members\": {{{}}}}}",
        items.join(","),
        members.join(",")
    );
    let doc = parse_document(text.as_bytes()).expect("valid");
    let root = doc.root();
    assert_eq!(
        root.get("plain").and_then(|v| v.as_str()),
        Some(plain.as_str())
    );
    let decoded = format!("{}\n{}", "e".repeat(200), "é".repeat(100));
    assert_eq!(
        root.get("escaped").and_then(|v| v.as_str()),
        Some(decoded.as_str())
    );
    let arr = root.get("items").and_then(|v| v.as_array()).expect("array");
    assert_eq!(arr.len(), 300);
    assert_eq!(arr.iter().len(), 300);
    let ints: Vec<i64> = arr.iter().filter_map(|v| v.as_number()?.as_int()).collect();
    assert_eq!(ints, (0..300).collect::<Vec<i64>>());
    let obj = root
        .get("members")
        .and_then(|v| v.as_object())
        .expect("object");
    assert_eq!(obj.len(), 300);
    assert_eq!(obj.iter().count(), 300);
    assert_eq!(
        obj.get("k299").and_then(|v| v.as_number()?.as_int()),
        Some(299)
    );
    assert_eq!(obj.get("k300").map(|v| v.kind()), None);
    // The tree made from the document agrees.
    match ok(&text).get("members") {
        Some(Json::Object(ms)) => assert_eq!(ms.len(), 300),
        other => panic!("members parsed as {other:?}"),
    }
}

#[test]
fn document_numbers_keep_sign_and_both_views() {
    let doc = parse_document(b"[-0, 0, -999999999999999, 999999999999999, -7, 1.5e0, -0.0]")
        .expect("valid");
    let arr = doc.root().as_array().expect("array");
    let views: Vec<(u64, Option<i64>)> = arr
        .iter()
        .map(|v| {
            let n = v.as_number().expect("number");
            (n.as_f64().to_bits(), n.as_int())
        })
        .collect();
    let expected: Vec<(u64, Option<i64>)> = [
        (-0.0f64, 0),
        (0.0, 0),
        (-999_999_999_999_999.0, -999_999_999_999_999),
        (999_999_999_999_999.0, 999_999_999_999_999),
        (-7.0, -7),
        (1.5, 2),
        (-0.0, 0),
    ]
    .iter()
    .map(|&(f, i)| (f.to_bits(), Some(i)))
    .collect();
    assert_eq!(views, expected);
}

#[test]
fn document_get_finds_the_first_of_duplicate_keys() {
    let doc = parse_document(br#"{"a": 1, "b": {"a": 5}, "a": 2, "a\u0062": 3, "ab": 4}"#)
        .expect("valid");
    let root = doc.root();
    assert_eq!(root.get("a").and_then(|v| v.as_number()?.as_int()), Some(1));
    // An escaped key matches its decoded text.
    assert_eq!(
        root.get("ab").and_then(|v| v.as_number()?.as_int()),
        Some(3)
    );
    assert!(root.get("c").is_none());
    let keys: Vec<&str> = root
        .as_object()
        .expect("object")
        .iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(keys, ["a", "b", "a", "ab", "ab"]);
}

#[test]
fn pick_agrees_with_get() {
    const KEYS: [&str; 4] = ["a", "ab", "missing", "n"];
    let text = br#"{"a": 1, "b": {"a": 5}, "a": 2, "a\u0062": 3, "ab": 4, "n": null, "z": 9}"#;
    let doc = parse_document(text).expect("valid");
    let obj = doc.root().as_object().expect("object");
    let picked = obj.pick(&KEYS);
    for key in KEYS {
        let via_pick = picked.get(key).map(|v| v.to_tree());
        let via_get = obj.get(key).map(|v| v.to_tree());
        assert_eq!(via_pick, via_get, "key {key}");
    }
    assert_eq!(
        picked.get("a").and_then(|v| v.as_number()?.as_int()),
        Some(1)
    );
    assert!(picked.get("n").is_some_and(|v| v.is_null()));
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "not among the picked keys")]
fn pick_refuses_other_keys_in_debug_builds() {
    let doc = parse_document(br#"{"a": 1, "z": 2}"#).expect("valid");
    let obj = doc.root().as_object().expect("object");
    let _ = obj.pick(&["a"]).get("z");
}
