//! Refused JSON: the grammar's refusals with their positions and messages,
//! surrogates, invalid UTF-8, the byte order mark, the nesting limit,
//! truncations and random bytes (never a panic, always a coherent
//! outcome).

use super::*;

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
