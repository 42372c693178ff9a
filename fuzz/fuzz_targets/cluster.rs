//! `cluster`: structurally valid random clusters from the project's
//! generator, optionally mutated.
//!
//! Input layout: bytes 0..8 seed (little endian, zero padded), byte 8 the
//! request kind, byte 9 the node count (2–60), then up to eight 5-byte
//! mutations (an op byte and a little-endian u32 choosing a value of the
//! request in document order). Mutations edit the request's JSON tree:
//! replace a value by an edge-case number or a value of another kind, shift
//! a number, drop or duplicate a member (e.g. a whole node entry), swap two
//! neighbours, rename a key or replace a string by another string of the
//! request (e.g. one node's name by another's).
//!
//! Checks: the contract and determinism of `run_checked`, with the case's
//! hail options; for an unmutated case also that hailstone answers (the
//! generator's requests are valid) and that the answer passes the project's
//! independent safety checker (`tests/support/safety/`), apart from the
//! rules hail does not enforce either: the listed ones, and any violation
//! that the real hail's answer has too (hail is run, only then, when it is
//! installed: `HAIL=path`, default `/usr/lib/ganeti/iallocators/hail`).
#![no_main]

use hailstone::program::hail::options as cli;
use hailstone::read::json;
use hailstone_devtools::generate::{all_kinds, generate, CaseSpec};
use hailstone_fuzz::{run_checked, safety, Slot, Tree, ACCEPTED_GANETI_ONLY_RULES};
use libfuzzer_sys::fuzz_target;

/// With `CLUSTER_DUMP=FILE` in the environment, each request run is written
/// to FILE (and its options to FILE.args), to turn an artifact into a
/// regression test.
fn dump(text: &str, options: &[String]) {
    static PATH: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    if let Some(p) = PATH.get_or_init(|| std::env::var("CLUSTER_DUMP").ok()) {
        let _ = std::fs::write(p, text);
        let _ = std::fs::write(format!("{p}.args"), options.join("\n"));
    }
}

const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "-0",
    "0.5",
    "1.5",
    "-0.5",
    "1e-9",
    "127",
    "128",
    "4096",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483648",
    "4294967296",
    "9007199254740992",
    "9007199254740993",
    "-9007199254740993",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "1e18",
    "1e19",
    "1e300",
    "1e400",
    "-1e400",
    "1.7976931348623157e308",
    "5e-324",
    "123456789.5",
];

fn other_value(sel: u8) -> Tree {
    match sel % 8 {
        0 => Tree::Null,
        1 => Tree::Bool(true),
        2 => Tree::Bool(false),
        3 => Tree::Str(String::new()),
        4 => Tree::Str("x".to_owned()),
        5 => Tree::Arr(Vec::new()),
        6 => Tree::Obj(Vec::new()),
        _ => Tree::Num("0".to_owned()),
    }
}

fn shifted(t: &Tree, sel: u8) -> Tree {
    let Tree::Num(text) = t else { return t.clone() };
    let Ok(x) = text.parse::<f64>() else {
        return t.clone();
    };
    let y = match sel % 6 {
        0 => x + 1.0,
        1 => x - 1.0,
        2 => x * 2.0,
        3 => -x,
        4 => (x / 2.0).floor(),
        _ => x * 1000.0,
    };
    if y.is_finite() {
        if y.fract() == 0.0 && y.abs() < 1e15 {
            Tree::Num(format!("{}", y as i64))
        } else {
            Tree::Num(format!("{y:?}"))
        }
    } else {
        t.clone()
    }
}

fn mutate(tree: &mut Tree, pool: &[String], op: u8, at: u32) {
    let count = tree.count_below();
    if count == 0 {
        return;
    }
    let mut target = at as usize % count;
    let arg = op >> 3;
    let pick = |i: u32| {
        pool.get(i as usize % pool.len().max(1))
            .cloned()
            .unwrap_or_default()
    };
    let mut apply = |slot: Slot<'_>| match (op % 8, slot) {
        (0, Slot::Arr(xs, i)) => xs[i] = Tree::Num(NUMBERS[arg as usize % NUMBERS.len()].into()),
        (0, Slot::Obj(ms, i)) => ms[i].1 = Tree::Num(NUMBERS[arg as usize % NUMBERS.len()].into()),
        (1, Slot::Arr(xs, i)) => xs[i] = other_value(arg),
        (1, Slot::Obj(ms, i)) => ms[i].1 = other_value(arg),
        (2, Slot::Arr(xs, i)) => {
            xs.remove(i);
        }
        (2, Slot::Obj(ms, i)) => {
            ms.remove(i);
        }
        (3, Slot::Arr(xs, i)) => {
            let x = xs[i].clone();
            xs.insert(i + 1, x);
        }
        (3, Slot::Obj(ms, i)) => {
            let m = ms[i].clone();
            // Right after it, or at the end (a duplicate key seen last).
            if arg & 1 == 0 {
                ms.insert(i + 1, m);
            } else {
                ms.push(m);
            }
        }
        (4, Slot::Arr(xs, i)) => {
            if i + 1 < xs.len() {
                xs.swap(i, i + 1);
            }
        }
        (4, Slot::Obj(ms, i)) => {
            if i + 1 < ms.len() {
                ms.swap(i, i + 1);
            }
        }
        (5, Slot::Arr(xs, i)) => xs[i] = shifted(&xs[i], arg),
        (5, Slot::Obj(ms, i)) => ms[i].1 = shifted(&ms[i].1, arg),
        (6, Slot::Arr(xs, i)) => xs[i] = Tree::Str(pick(at.rotate_left(13) ^ arg as u32)),
        (6, Slot::Obj(ms, i)) => ms[i].1 = Tree::Str(pick(at.rotate_left(13) ^ arg as u32)),
        (_, Slot::Arr(xs, i)) => xs[i] = Tree::Str(pick(at.rotate_left(7) ^ arg as u32)),
        (_, Slot::Obj(ms, i)) => ms[i].0 = pick(at.rotate_left(7) ^ arg as u32),
    };
    hailstone_fuzz::with_slot(tree, &mut target, &mut apply);
}

fuzz_target!(|data: &[u8]| {
    let mut head = [0u8; 10];
    let n = data.len().min(10);
    head[..n].copy_from_slice(&data[..n]);
    let seed = u64::from_le_bytes(head[..8].try_into().unwrap());
    let kinds = all_kinds();
    let kind = kinds[head[8] as usize % kinds.len()];
    let nodes = 2 + head[9] as usize % 59;

    let spec = CaseSpec::random(seed, kind, nodes..=nodes);
    let case = generate(&spec);
    let mut args = vec![std::ffi::OsString::from("-")];
    args.extend(case.options.iter().map(Into::into));
    let options = match cli::parse(&args) {
        Ok(inv) => inv.options,
        Err(e) => panic!(
            "{}: the generator's options {:?} are refused: {e:?}",
            case.id, case.options
        ),
    };

    let mutations: Vec<&[u8]> = data
        .get(10..)
        .unwrap_or(&[])
        .chunks_exact(5)
        .take(8)
        .collect();
    if mutations.is_empty() {
        dump(&case.request, &case.options);
        let outcome = run_checked(case.request.as_bytes(), &options);
        let answer = match &outcome.answer {
            Ok(a) => a,
            Err(f) => panic!("{}: a generated request is refused: {f:?}", case.id),
        };
        let violations: Vec<String> = safety::check(&case.request, &case.options, answer)
            .into_iter()
            .filter(|v| !ACCEPTED_GANETI_ONLY_RULES.contains(&v.rule))
            .map(|v| format!("{}: {}", v.rule, v.detail))
            .collect();
        if violations.is_empty() {
            return;
        }
        // hail's own answer is what Ganeti gets today: a violation that
        // hail's identical answer has too is a rule hail does not enforce
        // (Ganeti refuses such a job before executing it), not a hailstone
        // bug.
        let hail = hailstone_fuzz::hail_answer(&case.request, &case.options);
        assert!(
            hail.as_deref() == Some(answer.as_str()),
            "{} {:?}: unsafe answer {answer}: {}\nhail's answer: {}",
            case.id,
            case.options,
            violations.join("; "),
            hail.as_deref().unwrap_or("(hail not available; set HAIL=)")
        );
        return;
    }

    let doc = json::parse(case.request.as_bytes()).expect("generated request parses");
    let mut tree = Tree::from_json(&doc);
    drop(doc);
    let mut pool = Vec::new();
    tree.strings(&mut pool);
    for m in mutations {
        let at = u32::from_le_bytes([m[1], m[2], m[3], m[4]]);
        mutate(&mut tree, &pool, m[0], at);
    }
    let text = tree.to_text();
    dump(&text, &case.options);
    let outcome = run_checked(text.as_bytes(), &options);
    static STATS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *STATS.get_or_init(|| std::env::var_os("CLUSTER_STATS").is_some()) {
        // One line per input, to see where mutated requests end up.
        let what = match &outcome.answer {
            Ok(a) if a.starts_with("{\"success\":true") => "answer-success".to_owned(),
            Ok(_) => "answer-failure".to_owned(),
            Err(hailstone::program::hail::pipeline::Failure::Input(m)) => {
                format!("input: {}", m.split(':').next().unwrap_or(""))
            }
            Err(hailstone::program::hail::pipeline::Failure::Run(e)) => {
                format!("run: {e:?}").chars().take(60).collect()
            }
        };
        eprintln!("CLUSTER_STATS {what}");
    }
});
