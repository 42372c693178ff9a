//! Shared checks for hailstone's fuzz targets (see README.md).
//!
//! * [`Tree`]: an editable JSON tree that keeps member order and duplicate
//!   keys, converted from hailstone's [`Json`] and written back as text with
//!   hailstone's own [`write_string`];
//! * [`check_outcome`]: the contract of one pipeline run (one answer line
//!   in hail's envelope, or a failure with a message);
//! * [`run_checked`]: runs the pipeline twice and checks both runs agree;
//! * [`serde_tree`]: an independent reading of the same text by serde_json,
//!   for differential checks of the parser;
//! * [`safety`]: the project's independent answer checker
//!   (`tests/support/safety/`, included as it is).

use hailstone::haskell::json::write_string;
use hailstone::program::hail::options::Options;
use hailstone::program::hail::pipeline::{self, Failure, Inputs, Outcome};
use hailstone::read::json::{self, Json};

#[path = "../../tests/support/safety/mod.rs"]
pub mod safety;

/// Checker rules that hailstone, like hail, does not enforce (the same list
/// as `tests/properties.rs`, with the reasons there).
pub const ACCEPTED_GANETI_ONLY_RULES: &[&str] = &[
    "exclusive-storage-template",
    "spindles-without-exclusive-storage",
    "ipolicy-nic-count",
];

// ---------------------------------------------------------------------------
// An editable JSON tree.

/// A JSON value whose numbers are kept as literal text, so that mutations
/// can write any literal.
#[derive(Debug, Clone, PartialEq)]
pub enum Tree {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<Tree>),
    Obj(Vec<(String, Tree)>),
}

/// A literal that reads back as the same `f64` (and, for integers that are
/// exact as `f64`, the same integer).
pub fn number_text(n: &json::Number) -> String {
    let f = n.as_f64();
    if let Some(i) = n.as_int() {
        // (-0 must stay -0.0.)
        if i as f64 == f && (f != 0.0 || f.is_sign_positive()) {
            return i.to_string();
        }
    }
    if f == f64::INFINITY {
        "1e400".to_owned()
    } else if f == f64::NEG_INFINITY {
        "-1e400".to_owned()
    } else {
        // Debug gives the shortest round-tripping text: "0.1", "-0.0",
        // "1e300", "5e-324"; all are JSON numbers.
        format!("{f:?}")
    }
}

impl Tree {
    /// Converts hailstone's tree (its depth is at most `json::MAX_DEPTH`, so
    /// recursion is bounded).
    pub fn from_json(j: &Json) -> Tree {
        match j {
            Json::Null => Tree::Null,
            Json::Bool(b) => Tree::Bool(*b),
            Json::Number(n) => Tree::Num(number_text(n)),
            Json::String(s) => Tree::Str(s.to_string()),
            Json::Array(xs) => Tree::Arr(xs.iter().map(Tree::from_json).collect()),
            Json::Object(ms) => Tree::Obj(
                ms.iter()
                    .map(|(k, v)| (k.to_string(), Tree::from_json(v)))
                    .collect(),
            ),
        }
    }

    /// Writes compact JSON text.
    pub fn write(&self, out: &mut String) {
        match self {
            Tree::Null => out.push_str("null"),
            Tree::Bool(true) => out.push_str("true"),
            Tree::Bool(false) => out.push_str("false"),
            Tree::Num(t) => out.push_str(t),
            Tree::Str(s) => write_string(out, s),
            Tree::Arr(xs) => {
                out.push('[');
                for (i, x) in xs.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    x.write(out);
                }
                out.push(']');
            }
            Tree::Obj(ms) => {
                out.push('{');
                for (i, (k, v)) in ms.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(out, k);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }

    pub fn to_text(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }

    /// Number of values below the root (the root excluded).
    pub fn count_below(&self) -> usize {
        match self {
            Tree::Arr(xs) => xs.iter().map(|x| 1 + x.count_below()).sum(),
            Tree::Obj(ms) => ms.iter().map(|(_, v)| 1 + v.count_below()).sum(),
            _ => 0,
        }
    }

    /// Every string value and key, in document order.
    pub fn strings(&self, out: &mut Vec<String>) {
        match self {
            Tree::Str(s) => out.push(s.clone()),
            Tree::Arr(xs) => xs.iter().for_each(|x| x.strings(out)),
            Tree::Obj(ms) => ms.iter().for_each(|(k, v)| {
                out.push(k.clone());
                v.strings(out)
            }),
            _ => {}
        }
    }
}

/// Where a mutation applies: the `index`-th member of a container.
pub enum Slot<'a> {
    Arr(&'a mut Vec<Tree>, usize),
    Obj(&'a mut Vec<(String, Tree)>, usize),
}

/// Calls `f` on the slot of the `target`-th value below `tree` (pre-order,
/// 0-based). Returns whether the target was found.
pub fn with_slot(tree: &mut Tree, target: &mut usize, f: &mut dyn FnMut(Slot<'_>)) -> bool {
    let len = match tree {
        Tree::Arr(xs) => xs.len(),
        Tree::Obj(ms) => ms.len(),
        _ => return false,
    };
    for i in 0..len {
        if *target == 0 {
            match tree {
                Tree::Arr(xs) => f(Slot::Arr(xs, i)),
                Tree::Obj(ms) => f(Slot::Obj(ms, i)),
                _ => unreachable!(),
            }
            return true;
        }
        *target -= 1;
        let child = match tree {
            Tree::Arr(xs) => &mut xs[i],
            Tree::Obj(ms) => &mut ms[i].1,
            _ => unreachable!(),
        };
        if with_slot(child, target, f) {
            return true;
        }
    }
    false
}

// ---------------------------------------------------------------------------
// An independent reading by serde_json.

/// serde_json's view of a document: order and duplicates kept.
#[derive(Debug, Clone, PartialEq)]
pub enum STree {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str(String),
    Arr(Vec<STree>),
    Obj(Vec<(String, STree)>),
}

impl<'de> serde::Deserialize<'de> for STree {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = STree;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E>(self) -> Result<STree, E> {
                Ok(STree::Null)
            }
            fn visit_bool<E>(self, b: bool) -> Result<STree, E> {
                Ok(STree::Bool(b))
            }
            fn visit_u64<E>(self, x: u64) -> Result<STree, E> {
                Ok(STree::U64(x))
            }
            fn visit_i64<E>(self, x: i64) -> Result<STree, E> {
                Ok(STree::I64(x))
            }
            fn visit_f64<E>(self, x: f64) -> Result<STree, E> {
                Ok(STree::F64(x))
            }
            fn visit_str<E>(self, s: &str) -> Result<STree, E> {
                Ok(STree::Str(s.to_owned()))
            }
            fn visit_string<E>(self, s: String) -> Result<STree, E> {
                Ok(STree::Str(s))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<STree, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = a.next_element()? {
                    v.push(x);
                }
                Ok(STree::Arr(v))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<STree, A::Error> {
                let mut v = Vec::new();
                while let Some((k, x)) = a.next_entry::<String, STree>()? {
                    v.push((k, x));
                }
                Ok(STree::Obj(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// serde_json's reading of `text`.
pub fn serde_tree(text: &str) -> Result<STree, serde_json::Error> {
    serde_json::from_str(text)
}

/// Whether two `f64`s are within a few units in the last place (serde_json
/// without `float_roundtrip` is not always correctly rounded).
fn close(a: f64, b: f64) -> bool {
    if a == b {
        return true;
    }
    if !a.is_finite() || !b.is_finite() || a.signum() != b.signum() {
        return false;
    }
    let (x, y) = (a.abs().to_bits(), b.abs().to_bits());
    x.abs_diff(y) <= 4
}

/// Checks that hailstone's tree and serde_json's tree of the same text
/// agree: same shape, same strings and keys, numbers equal (integers
/// exactly within ±2^53, others to a few ulps).
pub fn assert_same(j: &Json, s: &STree, path: &mut String) {
    match (j, s) {
        (Json::Null, STree::Null) => {}
        (Json::Bool(a), STree::Bool(b)) => assert_eq!(a, b, "bool differs at {path}"),
        (Json::Number(n), STree::U64(x)) => {
            if *x <= 1 << 53 {
                assert_eq!(n.as_int(), Some(*x as i64), "integer differs at {path}");
                assert_eq!(n.as_f64(), *x as f64, "integer's f64 differs at {path}");
            } else {
                assert!(close(n.as_f64(), *x as f64), "number differs at {path}");
            }
        }
        (Json::Number(n), STree::I64(x)) => {
            if x.unsigned_abs() <= 1 << 53 {
                assert_eq!(n.as_int(), Some(*x), "integer differs at {path}");
                assert_eq!(n.as_f64(), *x as f64, "integer's f64 differs at {path}");
            } else {
                assert!(close(n.as_f64(), *x as f64), "number differs at {path}");
            }
        }
        (Json::Number(n), STree::F64(x)) => {
            assert!(
                close(n.as_f64(), *x),
                "number differs at {path}: hailstone {} serde_json {}",
                n.as_f64(),
                x
            );
        }
        (Json::String(a), STree::Str(b)) => assert_eq!(a, b, "string differs at {path}"),
        (Json::Array(a), STree::Arr(b)) => {
            assert_eq!(a.len(), b.len(), "array length differs at {path}");
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                assert_same(x, y, path);
                path.truncate(len);
            }
        }
        (Json::Object(a), STree::Obj(b)) => {
            assert_eq!(a.len(), b.len(), "object size differs at {path}");
            for ((k1, x), (k2, y)) in a.iter().zip(b) {
                assert_eq!(k1, k2, "key differs at {path}");
                let len = path.len();
                path.push('.');
                path.push_str(k1);
                assert_same(x, y, path);
                path.truncate(len);
            }
        }
        _ => panic!(
            "kind differs at {path}: hailstone {} serde_json {s:?}",
            j.kind()
        ),
    }
}

/// Nesting depth of arrays and objects (a scalar has depth 0). Iterative.
pub fn depth(j: &Json) -> usize {
    let mut max = 0;
    let mut stack = vec![(j, 0usize)];
    while let Some((v, d)) = stack.pop() {
        match v {
            Json::Array(xs) => {
                max = max.max(d + 1);
                stack.extend(xs.iter().map(|x| (x, d + 1)));
            }
            Json::Object(ms) => {
                max = max.max(d + 1);
                stack.extend(ms.iter().map(|(_, x)| (x, d + 1)));
            }
            _ => {}
        }
    }
    max
}

// ---------------------------------------------------------------------------
// The pipeline's contract.

/// Checks one answer line: exactly one line, ending in a newline, a JSON
/// object with the keys `success`, `info`, `result` in that order, the
/// `info` prefix matching `success`, `[]` as the result of a failure; and
/// serde_json reads the same line the same way.
pub fn check_answer(line: &str) {
    assert!(
        line.ends_with('\n'),
        "answer without final newline: {line:?}"
    );
    assert_eq!(
        line.matches('\n').count(),
        1,
        "answer of several lines: {line:?}"
    );
    let doc = match json::parse(line.as_bytes()) {
        Ok(d) => d,
        Err(e) => panic!("answer is not JSON ({e}): {line:?}"),
    };
    let members = match &doc {
        Json::Object(ms) => ms,
        other => panic!("answer is {}, not an object: {line:?}", other.kind()),
    };
    let keys: Vec<&str> = members.iter().map(|(k, _)| &**k).collect();
    assert_eq!(keys, ["success", "info", "result"], "answer keys: {line:?}");
    let success = match &members[0].1 {
        Json::Bool(b) => *b,
        other => panic!("success is {}: {line:?}", other.kind()),
    };
    let info = match &members[1].1 {
        Json::String(s) => s,
        other => panic!("info is {}: {line:?}", other.kind()),
    };
    let prefix = if success {
        "Request successful: "
    } else {
        "Request failed: "
    };
    assert!(
        info.starts_with(prefix),
        "info {info:?} with success {success}"
    );
    if !success {
        assert!(
            matches!(&members[2].1, Json::Array(xs) if xs.is_empty()),
            "failed answer with a result: {line:?}"
        );
    }
    match serde_tree(line) {
        Ok(s) => assert_same(&doc, &s, &mut String::new()),
        Err(e) => panic!("serde_json refuses the answer ({e}): {line:?}"),
    }
}

/// Checks the contract of one outcome.
pub fn check_outcome(outcome: &Outcome) {
    match &outcome.answer {
        Ok(line) => check_answer(line),
        Err(Failure::Input(m)) => assert!(!m.trim().is_empty(), "input failure without message"),
        Err(Failure::Run(e)) => {
            assert!(
                !e.to_string().trim().is_empty(),
                "run failure without message"
            )
        }
    }
}

/// Whether `FUZZ_ONCE` is set in the environment: [`run_checked`] then
/// skips the second run of its determinism check (and the `pipeline`
/// target its second option set). The AddressSanitizer runs use it: the
/// other option sets and the second run read the same bytes with the same
/// scans (the only unsafe code the pipeline reaches), so under a sanitizer
/// they only slow the run; the runs without a sanitizer keep them.
pub fn once() -> bool {
    static ONCE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ONCE.get_or_init(|| std::env::var_os("FUZZ_ONCE").is_some())
}

/// Runs the pipeline twice (once with [`once`]), checks the contract and
/// that both runs give the same outcome (answer and stderr text), and
/// returns the outcome.
pub fn run_checked(bytes: &[u8], options: &Options) -> Outcome {
    let inputs = Inputs {
        request: bytes,
        data_file: None,
    };
    let first = pipeline::run(&inputs, options);
    check_outcome(&first);
    if !once() {
        let second = pipeline::run(&inputs, options);
        assert_eq!(first, second, "two runs differ");
    }
    first
}

/// Node names of a request (`nodes` keys), in order.
pub fn node_names(doc: &Json) -> Vec<String> {
    match doc.get("nodes") {
        Some(Json::Object(ms)) => ms.iter().map(|(k, _)| k.to_string()).collect(),
        _ => Vec::new(),
    }
}

/// The hail binary to compare with (`HAIL`, else Ganeti's usual path), if
/// it exists.
pub fn hail_path() -> Option<std::path::PathBuf> {
    let p = std::env::var_os("HAIL")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "/usr/lib/ganeti/iallocators/hail".into());
    p.exists().then_some(p)
}

/// hail's answer to `request` with `options` (its stdout), or `None` when
/// hail is not installed or cannot be run.
pub fn hail_answer(request: &str, options: &[String]) -> Option<String> {
    let hail = hail_path()?;
    let file = std::env::temp_dir().join(format!("hailstone-fuzz-{}.json", std::process::id()));
    std::fs::write(&file, request).ok()?;
    let out = std::process::Command::new(hail)
        .arg(&file)
        .args(options)
        .env("LC_ALL", "C.UTF-8")
        .output()
        .ok();
    let _ = std::fs::remove_file(&file);
    Some(String::from_utf8_lossy(&out?.stdout).into_owned())
}
