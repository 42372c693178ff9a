//! Accepted JSON: documents, key order and duplicates, borrowed strings,
//! the byte scanners against byte loops, the writer's escaping and round
//! trips, descriptions, and the tape's reading.

use super::*;
use crate::read::json::bytes::{
    plain_run_end, plain_run_end_swar, whitespace_end, whitespace_end_swar,
};

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
