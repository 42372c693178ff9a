//! Running one program the way the tools compare and time it: cwd `/`
//! (as Ganeti's node daemon runs an iallocator) or a given folder, stdin
//! closed, `LC_ALL=C.UTF-8`, stdout and stderr into files, stopped at a
//! cap together with everything it started, and optionally under GNU time
//! for the peak RSS. Every run of a hailstone program that panicked is
//! remembered ([`panics`]): the comparison fails on it whatever its
//! accepted differences say.

use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// GNU time, for the peak RSS.
pub const GNU_TIME: &str = "/usr/bin/time";

/// One program run to make.
pub struct Invocation<'a> {
    /// The program.
    pub program: &'a Path,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Its working folder.
    pub cwd: &'a Path,
    /// Stopped (with its whole process group) after this long.
    pub cap: Duration,
    /// Run under GNU time to measure the peak RSS.
    pub measure_rss: bool,
    /// A folder of the caller's own for the output files (one per
    /// concurrent run).
    pub scratch: &'a Path,
}

impl<'a> Invocation<'a> {
    /// `program INPUT OPTIONS...` as Ganeti's node daemon runs an
    /// iallocator: cwd `/`.
    pub fn iallocator(
        program: &'a Path,
        input: &Path,
        options: &[String],
        cap: Duration,
        scratch: &'a Path,
    ) -> Invocation<'a> {
        let mut args = vec![OsString::from(input)];
        args.extend(options.iter().map(OsString::from));
        Invocation {
            program,
            args,
            cwd: Path::new("/"),
            cap,
            measure_rss: false,
            scratch,
        }
    }
}

/// How one run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// Exited with this code.
    Exited(i32),
    /// Killed by a signal not sent by the tool.
    Signalled,
    /// Stopped by the tool at the cap.
    Capped,
    /// Could not be started.
    SpawnError(String),
}

/// The result of one run.
#[derive(Clone, Debug)]
pub struct Run {
    /// How it ended.
    pub status: Status,
    /// Wall-clock time from start to exit.
    pub wall: Duration,
    /// What it printed on stdout.
    pub stdout: Vec<u8>,
    /// What it printed on stderr.
    pub stderr: Vec<u8>,
    /// Peak RSS in KiB (runs under GNU time only; for a run stopped at the
    /// cap, the peak so far of its process group, read from `/proc`).
    pub rss_kib: Option<u64>,
}

impl Run {
    /// Whether it exited with status 0.
    pub fn ok(&self) -> bool {
        self.status == Status::Exited(0)
    }

    /// How it ended, in words.
    pub fn describe(&self) -> String {
        match &self.status {
            Status::Exited(c) => format!("exit {c}"),
            Status::Signalled => "killed by a signal".to_string(),
            Status::Capped => "stopped at the cap".to_string(),
            Status::SpawnError(e) => format!("could not start: {e}"),
        }
    }
}

/// Makes the run.
pub fn run(inv: &Invocation<'_>) -> Run {
    let out_path = inv.scratch.join("run.stdout");
    let err_path = inv.scratch.join("run.stderr");
    let time_path = inv.scratch.join("run.time");
    let spawn_error = |e: String| Run {
        status: Status::SpawnError(e),
        wall: Duration::ZERO,
        stdout: Vec::new(),
        stderr: Vec::new(),
        rss_kib: None,
    };
    let (out_f, err_f) = match (File::create(&out_path), File::create(&err_path)) {
        (Ok(o), Ok(e)) => (o, e),
        (Err(e), _) | (_, Err(e)) => {
            return spawn_error(format!(
                "cannot create output files in {}: {e}",
                inv.scratch.display()
            ))
        }
    };
    let mut cmd = if inv.measure_rss {
        let mut c = Command::new(GNU_TIME);
        c.arg("-f")
            .arg("%M")
            .arg("-o")
            .arg(&time_path)
            .arg(inv.program);
        c
    } else {
        Command::new(inv.program)
    };
    cmd.args(&inv.args)
        .current_dir(inv.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::from(out_f))
        .stderr(Stdio::from(err_f))
        .env("LC_ALL", "C.UTF-8");
    // A process group of its own, so that the cap also stops GNU time's
    // child and any helper the program started.
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let start = Instant::now();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return spawn_error(e.to_string()),
    };
    // A watchdog thread stops the run at the cap, so that this thread can
    // wait for the child directly and take the end time the moment it
    // exits. The group id cannot be reused before `wait` reaps the child.
    let pgid = child.id();
    let capped = Arc::new(AtomicBool::new(false));
    // The group's peak RSS when it is stopped at the cap (GNU time, killed
    // with it, reports nothing then).
    let hwm_at_cap = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let watchdog = {
        let capped = Arc::clone(&capped);
        let hwm_at_cap = Arc::clone(&hwm_at_cap);
        let cap = inv.cap;
        let measure = inv.measure_rss;
        std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = done_rx.recv_timeout(cap) {
                if measure {
                    hwm_at_cap.store(group_peak_rss_kib(pgid), Ordering::SeqCst);
                }
                capped.store(true, Ordering::SeqCst);
                kill_group(pgid);
            }
        })
    };
    let waited: std::io::Result<ExitStatus> = child.wait();
    let wall = start.elapsed();
    let _ = done_tx.send(());
    let _ = watchdog.join();
    let status = match waited {
        Err(e) => Status::SpawnError(format!("wait failed: {e}")),
        Ok(_) if capped.load(Ordering::SeqCst) => Status::Capped,
        Ok(st) => match st.code() {
            // GNU time exits with 128 + N when the program died of signal N.
            Some(c) if inv.measure_rss && c > 128 => Status::Signalled,
            Some(c) => Status::Exited(c),
            None => Status::Signalled,
        },
    };
    let rss_kib = if !inv.measure_rss {
        None
    } else if status == Status::Capped {
        Some(hwm_at_cap.load(Ordering::SeqCst)).filter(|&k| k > 0)
    } else {
        // GNU time may put "Command exited with non-zero status N" before
        // the value.
        std::fs::read_to_string(&time_path)
            .ok()
            .and_then(|t| t.lines().rev().find_map(|l| l.trim().parse::<u64>().ok()))
    };
    let r = Run {
        status,
        wall,
        stdout: std::fs::read(&out_path).unwrap_or_default(),
        stderr: std::fs::read(&err_path).unwrap_or_default(),
        rss_kib,
    };
    note_panic(inv, &r);
    r
}

/// The runs of hailstone's programs that panicked, as `PROGRAM ARGS: the
/// panic's message`.
static PANICS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Remembers `r` if it is a hailstone program's run that panicked: Rust's
/// panic message on stderr, or the exit status 101 a panic gives.
fn note_panic(inv: &Invocation<'_>, r: &Run) {
    let ours = inv
        .program
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("hailstone"));
    let text = String::from_utf8_lossy(&r.stderr);
    let message = text.lines().find(|l| l.contains("panicked at"));
    if !ours || (message.is_none() && r.status != Status::Exited(101)) {
        return;
    }
    let mut line = inv.program.display().to_string();
    for a in &inv.args {
        line.push(' ');
        line.push_str(&a.to_string_lossy());
    }
    line.push_str(": ");
    line.push_str(message.unwrap_or("exit 101"));
    if let Ok(mut p) = PANICS.lock() {
        p.push(line);
    }
}

/// Every run of a hailstone program so far that panicked, sorted.
pub fn panics() -> Vec<String> {
    let mut p = PANICS.lock().map(|p| p.clone()).unwrap_or_default();
    p.sort();
    p
}

/// The largest peak RSS (`VmHWM`, KiB) among the live processes of
/// process group `pgid` (0 when none can be read).
fn group_peak_rss_kib(pgid: u32) -> u64 {
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut peak = 0;
    for e in rd.flatten() {
        let path = e.path();
        let Ok(stat) = std::fs::read_to_string(path.join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid pgrp ...`; comm may hold spaces and ')'.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let pgrp = rest
            .split_whitespace()
            .nth(2)
            .and_then(|p| p.parse::<u32>().ok());
        if pgrp != Some(pgid) {
            continue;
        }
        let status = std::fs::read_to_string(path.join("status")).unwrap_or_default();
        let hwm = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
        peak = peak.max(hwm);
    }
    peak
}

/// Kills process group `pgid` with SIGKILL.
fn kill_group(pgid: u32) {
    let r = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if let Err(e) = r {
        eprintln!("warning: cannot run 'kill' to stop process group {pgid}: {e}");
    }
}

/// The median of some durations, in seconds (`None` for no values).
pub fn median(xs: &[Duration]) -> Option<f64> {
    let mut v: Vec<f64> = xs.iter().map(Duration::as_secs_f64).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let m = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    })
}

/// A fresh folder under the system's temporary folder, named after `tool`,
/// this process and a count of the folders it made.
pub fn temp_dir(tool: &str) -> Result<PathBuf, String> {
    static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = MADE.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("{tool}.{}.{n}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(dir)
}

/// Runs `work` on every item on up to `jobs` threads and hands each result
/// to `done` in item order (not completion order), so that a tool's output
/// is the same whatever the timing. `work` gets the item's index and the
/// worker's number (for a scratch folder of its own).
pub fn ordered_pool<T, R, W, D>(items: &[T], jobs: usize, work: W, mut done: D)
where
    T: Sync,
    R: Send,
    W: Fn(usize, usize, &T) -> R + Sync,
    D: FnMut(usize, R),
{
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, R)>();
    std::thread::scope(|scope| {
        for worker in 0..jobs.clamp(1, items.len().max(1)) {
            let tx = tx.clone();
            let next = &next;
            let work = &work;
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(item) = items.get(i) else { break };
                if tx.send((i, work(i, worker, item))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut pending = std::collections::BTreeMap::new();
        let mut printed = 0usize;
        for (i, r) in rx {
            pending.insert(i, r);
            while let Some(r) = pending.remove(&printed) {
                done(printed, r);
                printed += 1;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_hands_results_over_in_item_order() {
        let items: Vec<u64> = (0..40).collect();
        let mut seen = Vec::new();
        ordered_pool(
            &items,
            4,
            |_, _, x| {
                // Later items finish first.
                std::thread::sleep(Duration::from_micros(400 - 10 * x));
                x * 2
            },
            |i, r| seen.push((i, r)),
        );
        let expected: Vec<(usize, u64)> = (0..40).map(|i| (i as usize, i * 2)).collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn a_run_is_capped_and_its_output_kept() {
        let dir = temp_dir("hailstone-devtools-test").expect("temp dir");
        let sh = Path::new("/bin/sh");
        let quick = Invocation {
            program: sh,
            args: vec!["-c".into(), "echo out; echo err >&2; exit 3".into()],
            cwd: Path::new("/"),
            cap: Duration::from_secs(20),
            measure_rss: false,
            scratch: &dir,
        };
        let r = run(&quick);
        assert_eq!(r.status, Status::Exited(3));
        assert_eq!(r.stdout, b"out\n");
        assert_eq!(r.stderr, b"err\n");
        let slow = Invocation {
            args: vec!["-c".into(), "sleep 30".into()],
            cap: Duration::from_millis(200),
            ..quick
        };
        let r = run(&slow);
        assert_eq!(r.status, Status::Capped);
        assert!(r.wall < Duration::from_secs(10));
        if Path::new(GNU_TIME).exists() {
            // The peak RSS of a capped run is read before it is stopped.
            let r = run(&Invocation {
                measure_rss: true,
                ..slow
            });
            assert_eq!(r.status, Status::Capped);
            assert!(r.rss_kib.is_some_and(|k| k > 0), "{:?}", r.rss_kib);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_panic_of_a_hailstone_program_is_remembered() {
        let dir = temp_dir("hailstone-devtools-test").expect("temp dir");
        let fake = dir.join("hailstone-fake");
        std::fs::write(
            &fake,
            "#!/bin/sh\necho \"thread 'main' panicked at src/x.rs:1:1:\" >&2\nexit 101\n",
        )
        .expect("script");
        let run_it = |program: &Path, args: &[&str]| {
            run(&Invocation {
                program,
                args: args.iter().map(OsString::from).collect(),
                cwd: Path::new("/"),
                cap: Duration::from_secs(20),
                measure_rss: false,
                scratch: &dir,
            })
        };
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        // The same text from another program is its own business.
        let other = run_it(
            Path::new("/bin/sh"),
            &["-c", "echo panicked at >&2; exit 101"],
        );
        assert_eq!(other.status, Status::Exited(101));
        assert!(!panics().iter().any(|p| p.starts_with("/bin/sh")));
        let r = run_it(&fake, &["case-1"]);
        assert_eq!(r.status, Status::Exited(101));
        assert!(
            panics()
                .iter()
                .any(|p| p
                    .ends_with("hailstone-fake case-1: thread 'main' panicked at src/x.rs:1:1:")),
            "{:?}",
            panics()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
