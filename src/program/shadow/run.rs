//! Ganeti's call: the primary allocator runs as a child, its standard
//! output and exit status handed to Ganeti byte for byte; the recorder
//! ([`super::recorder`]) is started first, detached, and told the
//! outcome through a pipe.
//!
//! The order, and why:
//!
//! 1. The request file is opened, and the recorder started with it as
//!    its standard input: an open file outlives Ganeti's deletion of it,
//!    so the recorder reads it whenever it likes, and nothing is copied
//!    here. Its standard output is the reading end of the outcome pipe;
//!    its standard error is `/dev/null`. It holds none of Ganeti's
//!    streams, so Ganeti's read of our output ends when we exit, and it
//!    runs in a process group of its own, out of reach of signals sent
//!    to ours. If it cannot be started, the call goes on without it.
//! 2. The primary runs with our standard input and error, its standard
//!    output read here whole; its time is measured from its start to its
//!    end.
//! 3. A thread writes the outcome (status, time, answer) into the pipe;
//!    the answer is written to our standard output; we wait for the thread
//!    at most [`GRACE`] and exit with the primary's status. The thread
//!    only blocks when the answer is larger than the pipe's buffer
//!    (64 KiB) and the recorder has not read it yet: the wait is that
//!    bound, and then the record is lost, not the answer.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::options::{Allocator, Call, PROGRAM, RECORDER};
use crate::shell::clock;
use crate::write::exit_status::ExitStatus;

/// The longest the call waits, after the answer is written, for the
/// outcome to reach the recorder.
pub const GRACE: Duration = Duration::from_millis(100);

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Ended {
    /// Its exit status.
    Exited(i32),
    /// The signal that killed it.
    Signal(i32),
    /// It ran past the time limit and was killed.
    TimedOut,
    /// It could not be started (the error).
    NotStarted(String),
}

impl Ended {
    /// From a process's status.
    pub fn of(status: std::process::ExitStatus) -> Ended {
        match (status.code(), status.signal()) {
            (Some(c), _) => Ended::Exited(c),
            (None, Some(s)) => Ended::Signal(s),
            (None, None) => Ended::Exited(-1),
        }
    }

    /// The exit status a shell would report.
    pub fn code(&self) -> u8 {
        match self {
            Ended::Exited(c) => (*c & 0xff) as u8,
            Ended::Signal(s) => (128 + (*s & 0x7f)) as u8,
            Ended::TimedOut => (128 + 9) as u8,
            Ended::NotStarted(_) => ExitStatus::Failed.code(),
        }
    }

    /// In words, for records and reports.
    pub fn describe(&self) -> String {
        match self {
            Ended::Exited(c) => format!("exit status {c}"),
            Ended::Signal(s) => format!("killed by signal {s}"),
            Ended::TimedOut => "stopped at the time limit".to_owned(),
            Ended::NotStarted(e) => format!("could not be started: {e}"),
        }
    }
}

/// What the primary did, as the recorder receives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub ended: Ended,
    pub seconds: f64,
    pub answer: Vec<u8>,
}

/// The outcome's first line.
const MAGIC: &str = "hailstone-shadow outcome 1";

impl Outcome {
    /// The bytes sent through the pipe: a header, then the answer.
    pub fn encode(&self) -> Vec<u8> {
        let ended = match &self.ended {
            Ended::Exited(c) => format!("exit {c}"),
            Ended::Signal(s) => format!("signal {s}"),
            Ended::TimedOut => "timeout".to_owned(),
            Ended::NotStarted(_) => "not-started".to_owned(),
        };
        let mut v = format!(
            "{MAGIC}\n{ended}\n{:?}\n{}\n",
            self.seconds,
            self.answer.len()
        )
        .into_bytes();
        v.extend_from_slice(&self.answer);
        v
    }

    /// Reads [`Outcome::encode`]'s bytes; `None` when they are not whole.
    pub fn decode(bytes: &[u8]) -> Option<Outcome> {
        let mut rest = bytes;
        let mut line = || -> Option<&str> {
            let nl = rest.iter().position(|&b| b == b'\n')?;
            let (l, r) = rest.split_at(nl);
            rest = &r[1..];
            std::str::from_utf8(l).ok()
        };
        if line()? != MAGIC {
            return None;
        }
        let ended = line()?.to_owned();
        let seconds: f64 = line()?.parse().ok()?;
        let len: usize = line()?.parse().ok()?;
        let ended = match ended.split_once(' ') {
            Some(("exit", c)) => Ended::Exited(c.parse().ok()?),
            Some(("signal", s)) => Ended::Signal(s.parse().ok()?),
            _ if ended == "timeout" => Ended::TimedOut,
            _ => Ended::NotStarted(String::new()),
        };
        (rest.len() == len).then(|| Outcome {
            ended,
            seconds,
            answer: rest.to_vec(),
        })
    }
}

/// Starts the recorder of `call`, with the request file as its standard
/// input; returns the writing end of its outcome pipe, or `None` when it
/// could not be started (the call goes on without it).
fn start_recorder(call: &Call) -> Option<std::io::PipeWriter> {
    let request = call.request.map(|i| &call.args[i].0)?;
    let file = std::fs::File::open(request).ok()?;
    let exe = std::env::current_exe().ok()?;
    let (reader, writer) = std::io::pipe().ok()?;
    let mut cmd = Command::new(exe);
    cmd.arg(RECORDER)
        .args(&call.given)
        .stdin(file)
        .stdout(reader)
        .stderr(Stdio::null())
        .process_group(0);
    // The child is not waited for: once we exit, it belongs to init.
    cmd.spawn().ok()?;
    // Our copy of the reading end is closed with `cmd`, so that a recorder
    // that died makes the writes fail instead of block.
    drop(cmd);
    Some(writer)
}

/// Runs the call; returns the exit status for the process.
pub fn allocate(call: &Call, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let recorder = start_recorder(call);
    let primary = call.primary();
    let path = call.path_of(primary);
    let args: Vec<OsString> = call.args_for(primary, None);
    let start = clock::monotonic();
    let spawned = Command::new(&path)
        .args(&args)
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(
                err,
                "{PROGRAM}: cannot run the {} allocator {}: {e}",
                if primary == Allocator::Reference {
                    "reference"
                } else {
                    "hailstone"
                },
                path.to_string_lossy()
            );
            return ExitStatus::Failed.code();
        }
    };
    let mut answer = Vec::new();
    let read = child.stdout.take().map(|mut o| o.read_to_end(&mut answer));
    let ended = match child.wait() {
        Ok(status) => Ended::of(status),
        Err(e) => Ended::NotStarted(e.to_string()),
    };
    let seconds = clock::since(start).as_secs_f64();
    if let Some(Err(e)) = read {
        let _ = writeln!(err, "{PROGRAM}: cannot read the allocator's answer: {e}");
    }
    let outcome = Outcome {
        ended,
        seconds,
        answer,
    };
    let sent = recorder.map(|mut pipe| {
        let bytes = outcome.encode();
        let (done, wait) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
            drop(pipe);
            let _ = done.send(());
        });
        wait
    });
    let code = match out.write_all(&outcome.answer).and_then(|()| out.flush()) {
        Ok(()) => outcome.ended.code(),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitStatus::ClosedPipe.code(),
        Err(e) => {
            let _ = writeln!(err, "{PROGRAM}: cannot write the answer: {e}");
            ExitStatus::Failed.code()
        }
    };
    if let Some(wait) = sent {
        let _ = wait.recv_timeout(GRACE);
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_round_trip_and_cut_ones_are_refused() {
        for ended in [Ended::Exited(0), Ended::Exited(3), Ended::Signal(9)] {
            let o = Outcome {
                ended,
                seconds: 0.125,
                answer: b"{\"success\":true}\n".to_vec(),
            };
            let bytes = o.encode();
            assert_eq!(Outcome::decode(&bytes), Some(o));
            assert_eq!(Outcome::decode(&bytes[..bytes.len() - 1]), None);
        }
        assert_eq!(Outcome::decode(b""), None);
        assert_eq!(Ended::Signal(9).code(), 137);
        assert_eq!(Ended::Exited(256 + 3).code(), 3);
    }
}
