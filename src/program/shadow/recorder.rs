//! The detached recorder of one allocator call ([`super::run`] starts
//! it): it reads the request from its standard input (the request file,
//! held open), waits for the primary's outcome on its standard output
//! (the reading end of a pipe), then runs the other allocator on a
//! private copy of the request under `--shadow-timeout`, compares the two
//! answers ([`super::compare`]), asks hailstone for its explanation when
//! they differ, writes the record ([`super::record`]) and rotates the
//! folder. It prints nothing anywhere: whatever fails, the run is simply
//! not recorded, and Ganeti's answer was handed over before it began.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::fd::AsFd;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use super::compare::{compare, Difference};
use super::options::{Allocator, Call};
use super::record::{self, Pending};
use super::run::{Ended, Outcome};
use crate::shell::clock;
use crate::write::json::{s, strs, Json};

/// The most bytes of an answer kept (a shadow printing without end is
/// cut there, and its run is a difference).
const ANSWER_CAP: u64 = 64 << 20;
/// The most bytes of the shadow's standard error kept.
const STDERR_CAP: u64 = 1 << 20;

/// How long the output of a run that ended is still read.
const STREAMS_AFTER_EXIT: Duration = Duration::from_secs(2);

/// One run of an allocator.
#[derive(Debug, Clone)]
pub struct Run {
    pub ended: Ended,
    pub seconds: f64,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// Reads `from` to its end, keeping at most `cap` bytes; returns them and
/// when the end came.
fn read_capped(from: impl Read, cap: u64) -> (Vec<u8>, Instant) {
    let mut kept = Vec::new();
    let mut reader = from;
    let _ = (&mut reader).take(cap).read_to_end(&mut kept);
    // The rest is read and dropped, so that the writer never blocks.
    let _ = std::io::copy(&mut reader, &mut std::io::sink());
    (kept, clock::monotonic())
}

/// Runs `path` with `args`, no input, under the time limit `limit`
/// (killed past it). Its time runs from its start to the end of its
/// output, when it exits.
pub fn run_limited(path: &OsStr, args: &[OsString], limit: Duration) -> Run {
    let start = clock::monotonic();
    let mut child = match Command::new(path)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            return Run {
                ended: Ended::NotStarted(e.to_string()),
                seconds: 0.0,
                stdout: Vec::new(),
                stderr: Vec::new(),
            }
        }
    };
    let reader = |stream: Option<Box<dyn Read + Send>>, cap: u64| {
        let (tx, rx) = std::sync::mpsc::channel();
        if let Some(stream) = stream {
            std::thread::spawn(move || {
                let _ = tx.send(read_capped(stream, cap));
            });
        }
        rx
    };
    let out = reader(
        child
            .stdout
            .take()
            .map(|o| Box::new(o) as Box<dyn Read + Send>),
        ANSWER_CAP,
    );
    let err = reader(
        child
            .stderr
            .take()
            .map(|e| Box::new(e) as Box<dyn Read + Send>),
        STDERR_CAP,
    );
    let mut pause = Duration::from_millis(1);
    let ended = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ended::of(status),
            Ok(None) => {}
            Err(e) => break Ended::NotStarted(e.to_string()),
        }
        if clock::since(start) >= limit {
            let _ = child.kill();
            let _ = child.wait();
            break Ended::TimedOut;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    };
    let waited = clock::monotonic();
    // A process it left behind may hold its streams open: what they gave
    // by then is kept.
    let (stdout, out_end) = out
        .recv_timeout(STREAMS_AFTER_EXIT)
        .unwrap_or((Vec::new(), waited));
    let (stderr, err_end) = err
        .recv_timeout(STREAMS_AFTER_EXIT)
        .unwrap_or((Vec::new(), waited));
    // Its streams close as it exits: the later end is its time, finer than
    // the polling of its status.
    let end = out_end.max(err_end).min(waited);
    Run {
        ended,
        seconds: end.duration_since(start).as_secs_f64(),
        stdout,
        stderr,
    }
}

/// The record's subject: the request type and the instance (or the
/// number of instances), as the folder's name carries them.
pub fn subject(request: &[u8]) -> (String, String) {
    let Ok(doc) = crate::read::json::parse_document(request) else {
        return ("unreadable".to_owned(), String::new());
    };
    let req = doc.root().get("request");
    let kind = req
        .and_then(|r| r.get("type"))
        .and_then(|t| t.as_str())
        .unwrap_or("unknown")
        .to_owned();
    let name = req.and_then(|r| r.get("name")).and_then(|n| n.as_str());
    let count = req
        .and_then(|r| r.get("instances"))
        .and_then(|i| i.as_array())
        .map(|a| a.len());
    let what = match (name, count) {
        (Some(n), _) => n.to_owned(),
        (None, Some(1)) => req
            .and_then(|r| r.get("instances"))
            .and_then(|i| i.as_array())
            .and_then(|a| a.iter().next())
            .and_then(|i| {
                i.as_str()
                    .map(str::to_owned)
                    .or_else(|| i.get("name").and_then(|n| n.as_str()).map(str::to_owned))
            })
            .unwrap_or_else(|| "1-instance".to_owned()),
        (None, Some(n)) => format!("{n}-instances"),
        (None, None) => String::new(),
    };
    (kind, what)
}

/// The verdict: whether the runs are identical, the first differing
/// path, and the difference in words (reference first).
pub fn verdict(
    reference: (&Ended, &[u8]),
    hailstone: (&Ended, &[u8]),
) -> (bool, Option<String>, String) {
    let diff = compare(reference.1, hailstone.1);
    let same_end = reference.0 == hailstone.0;
    let mut words = Vec::new();
    if !same_end {
        words.push(format!(
            "reference: {}, hailstone: {}",
            reference.0.describe(),
            hailstone.0.describe()
        ));
    }
    let mut path = None;
    match &diff {
        Difference::Identical => {}
        Difference::Spelling => words.push("the same JSON, written differently".to_owned()),
        Difference::NotJson { which, error } => words.push(format!(
            "{}'s answer is not JSON: {error}",
            if *which == 0 {
                "the reference"
            } else {
                "hailstone"
            }
        )),
        Difference::At {
            path: p,
            first,
            second,
        } => {
            words.push(format!("{p}: {first} (reference), {second} (hailstone)"));
            path = Some(p.clone());
        }
    }
    (
        diff == Difference::Identical && same_end,
        path,
        words.join("; "),
    )
}

/// One allocator's part of the record.
fn run_json(
    path: &OsStr,
    options: Vec<String>,
    ended: &Ended,
    seconds: f64,
    answer: &str,
    stderr: Option<&str>,
) -> Json {
    let (kind, status, signal) = match ended {
        Ended::Exited(c) => ("exit", Json::Int(i64::from(*c)), Json::Null),
        Ended::Signal(sig) => ("signal", Json::Null, Json::Int(i64::from(*sig))),
        Ended::TimedOut => ("timeout", Json::Null, Json::Null),
        Ended::NotStarted(_) => ("not-started", Json::Null, Json::Null),
    };
    Json::Obj(vec![
        ("path", s(&path.to_string_lossy())),
        ("options", strs(&options)),
        ("ended", s(kind)),
        ("status", status),
        ("signal", signal),
        ("how", s(&ended.describe())),
        ("seconds", Json::Num(seconds)),
        ("answer", s(answer)),
        ("stderr", stderr.map_or(Json::Null, s)),
    ])
}

/// The recorder's process: the exit status (0: recorded, 1: not).
pub fn main(call: &Call) -> u8 {
    let mut request = Vec::new();
    if std::io::stdin().read_to_end(&mut request).is_err() {
        return 1;
    }
    // Standard output is the outcome pipe's reading end.
    let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned() else {
        return 1;
    };
    let mut bytes = Vec::new();
    if std::fs::File::from(fd).read_to_end(&mut bytes).is_err() {
        return 1;
    }
    let Some(outcome) = Outcome::decode(&bytes) else {
        return 1;
    };
    match write_record(call, &request, &outcome, clock::now()) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}

/// Runs the shadow on `request`, compares, records and rotates.
///
/// # Errors
///
/// The record cannot be written (nothing is then left of it).
pub fn write_record(
    call: &Call,
    request: &[u8],
    primary: &Outcome,
    now: SystemTime,
) -> std::io::Result<()> {
    let settings = &call.settings;
    let dir = std::path::Path::new(&settings.record_dir);
    let (kind, what) = subject(request);
    let pending = Pending::start(dir, &format!("{kind}-{what}"), now)?;
    let copy = pending.path("request.json");
    pending.write("request.json", request)?;
    let limit = Duration::from_secs_f64(settings.timeout);
    let first = call.primary();
    let second = first.other();
    let shadow = run_limited(
        &call.path_of(second),
        &call.args_for(second, Some(copy.as_os_str())),
        limit,
    );
    let primary_run = Run {
        ended: primary.ended.clone(),
        seconds: primary.seconds,
        stdout: primary.answer.clone(),
        stderr: Vec::new(),
    };
    let (reference, hailstone) = match first {
        Allocator::Reference => (&primary_run, &shadow),
        Allocator::Hailstone => (&shadow, &primary_run),
    };
    let (identical, path, words) = verdict(
        (&reference.ended, &reference.stdout),
        (&hailstone.ended, &hailstone.stdout),
    );
    let mut explanation = Json::Null;
    if !identical && !matches!(hailstone.ended, Ended::TimedOut | Ended::NotStarted(_)) {
        let file = pending.path("explain.txt");
        let mut args = call.args_for(Allocator::Hailstone, Some(copy.as_os_str()));
        let mut explain = OsString::from("--explain=");
        explain.push(file.as_os_str());
        args.push(explain);
        let explained = run_limited(&call.path_of(Allocator::Hailstone), &args, limit);
        if explained.ended == Ended::Exited(0) && file.exists() {
            explanation = s("explain.txt");
        }
    }
    std::fs::remove_file(&copy)?;
    pending.write("request.json.gz", request)?;
    pending.write("reference.out", &reference.stdout)?;
    pending.write("hailstone.out", &hailstone.stdout)?;
    let stderr_file = format!("{}.err", second.name());
    let shadow_stderr = if shadow.stderr.is_empty() {
        None
    } else {
        pending.write(&stderr_file, &shadow.stderr)?;
        Some(stderr_file.as_str())
    };
    let part = |who: Allocator, r: &Run| {
        run_json(
            &call.path_of(who),
            call.options_for(who),
            &r.ended,
            r.seconds,
            &format!("{}.out", who.name()),
            if who == second { shadow_stderr } else { None },
        )
    };
    let meta = Json::Obj(vec![
        ("format", Json::Int(1)),
        ("kind", s("allocator")),
        ("type", s(&kind)),
        ("subject", s(&what)),
        ("primary", s(first.name())),
        ("request", s("request.json.gz")),
        ("reference", part(Allocator::Reference, reference)),
        ("hailstone", part(Allocator::Hailstone, hailstone)),
        (
            "verdict",
            s(if identical { "identical" } else { "different" }),
        ),
        ("path", path.as_deref().map_or(Json::Null, s)),
        ("difference", if identical { Json::Null } else { s(&words) }),
        ("explanation", explanation),
    ]);
    pending.write(record::META, meta.line().as_bytes())?;
    pending.commit()?;
    record::rotate(dir, settings.keep, settings.keep_size)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects() {
        assert_eq!(
            subject(br#"{"request":{"type":"allocate","name":"inst1"}}"#),
            ("allocate".to_owned(), "inst1".to_owned())
        );
        assert_eq!(
            subject(br#"{"request":{"type":"node-evacuate","instances":["a","b"]}}"#),
            ("node-evacuate".to_owned(), "2-instances".to_owned())
        );
        assert_eq!(
            subject(br#"{"request":{"type":"multi-allocate","instances":[{"name":"x"}]}}"#),
            ("multi-allocate".to_owned(), "x".to_owned())
        );
        assert_eq!(subject(b"nonsense").0, "unreadable");
    }

    #[test]
    fn verdicts() {
        let a = b"{\"success\":true,\"info\":\"\",\"result\":[\"n1\"]}\n";
        let b = b"{\"success\":true,\"info\":\"\",\"result\":[\"n2\"]}\n";
        let ok = Ended::Exited(0);
        assert_eq!(verdict((&ok, a), (&ok, a)), (true, None, String::new()));
        let (same, path, words) = verdict((&ok, a), (&ok, b));
        assert!(!same);
        assert_eq!(path.as_deref(), Some("result[0]"));
        assert_eq!(words, "result[0]: \"n1\" (reference), \"n2\" (hailstone)");
        let (same, _, words) = verdict((&ok, a), (&Ended::TimedOut, b""));
        assert!(!same);
        assert!(words.starts_with("reference: exit status 0, hailstone: stopped at the time limit; hailstone's answer is not JSON"), "{words}");
        let (same, path, words) = verdict((&ok, a), (&Ended::Exited(1), a));
        assert!(!same && path.is_none());
        assert_eq!(words, "reference: exit status 0, hailstone: exit status 1");
    }

    #[test]
    fn a_limited_run_is_stopped_and_timed() {
        let r = run_limited(
            OsStr::new("/bin/sh"),
            &["-c".into(), "echo hi; exec sleep 5".into()],
            Duration::from_millis(300),
        );
        assert_eq!(r.ended, Ended::TimedOut);
        assert_eq!(r.stdout, b"hi\n");
        let r = run_limited(
            OsStr::new("/bin/sh"),
            &["-c".into(), "echo out; echo err >&2; exit 3".into()],
            Duration::from_secs(10),
        );
        assert_eq!(
            (r.ended, r.stdout, r.stderr),
            (Ended::Exited(3), b"out\n".to_vec(), b"err\n".to_vec())
        );
        assert!(r.seconds < 5.0);
        let r = run_limited(
            OsStr::new("/nonexistent-hailstone/x"),
            &[],
            Duration::from_secs(1),
        );
        assert!(matches!(r.ended, Ended::NotStarted(_)));
    }
}
