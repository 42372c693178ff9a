//! How a subject is measured: in-process medians of the processor time
//! it takes, and the instructions it executes, counted by callgrind.
//!
//! Instruction counts are the bench's main figure: they are the same on a
//! loaded machine and an idle one (a shared two-processor machine makes
//! wall-clock times of a few milliseconds drift by tens of percent), though
//! they hide what instructions cost (a cache miss, a vector instruction that
//! does sixteen bytes' work). The bench counts them by running itself again
//! under `valgrind --tool=callgrind` for one subject (`--one`), collecting
//! only inside [`depbench_measured`] (`--toggle-collect`), so that reading the input
//! file and dropping the result are not counted; a program's own function
//! is counted the same way ([`callgrind`]).

use std::hint::black_box;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The pattern of the function callgrind collects in
/// (`--toggle-collect`).
pub const MARKER: &str = "*depbench_measured*";

/// Runs `work`; the function callgrind counts in (one copy per type of
/// work, all matched by [`MARKER`]).
#[inline(never)]
pub fn depbench_measured<R>(work: impl FnOnce() -> R) -> R {
    black_box(work())
}

/// The processor time the calling thread has used (user and system):
/// unlike the wall clock, it leaves out the time the thread waits for a
/// processor on a loaded machine.
pub fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a writable `timespec`, as `clock_gettime` asks.
    let got = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    if got != 0 {
        return Duration::ZERO;
    }
    Duration::new(
        t.tv_sec.max(0) as u64,
        t.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

/// Times `work` (inside [`depbench_measured`]): the thread's processor
/// time ([`thread_cpu`]); the result is dropped after the clock stops.
///
/// # Errors
///
/// The work's error.
pub fn timed<R, E: ToString>(work: impl FnOnce() -> Result<R, E>) -> Result<Duration, String> {
    let start = thread_cpu();
    let result = depbench_measured(work);
    let took = thread_cpu().saturating_sub(start);
    let result = result.map(drop).map(|()| took).map_err(|e| e.to_string());
    settle_malloc();
    result
}

/// Has glibc's malloc merge the small free chunks that dropping a result
/// left (a tree's nodes): otherwise the next measurement's first large
/// allocation pays for merging them (`malloc_consolidate`), a cost of the
/// subject before it. A large allocation, made and freed, does it.
pub fn settle_malloc() {
    drop(black_box(Vec::<u8>::with_capacity(1 << 20)));
}

/// The median of `runs` timings of each of `count` subjects, the
/// subjects taken in turn (so that a loaded machine's changes hit them
/// alike), after one untimed run of each that warms the caches and the
/// allocator. `one(k)` runs subject `k` once and times it.
///
/// # Errors
///
/// The first error of `one`.
pub fn medians_in_turn(
    runs: usize,
    count: usize,
    mut one: impl FnMut(usize) -> Result<Duration, String>,
) -> Result<Vec<Duration>, String> {
    for k in 0..count {
        one(k)?;
    }
    let mut times = vec![Vec::new(); count];
    for _ in 0..runs.max(1) {
        for (k, t) in times.iter_mut().enumerate() {
            t.push(one(k)?);
        }
    }
    Ok(times
        .into_iter()
        .map(|mut t| {
            t.sort_unstable();
            t[t.len() / 2]
        })
        .collect())
}

/// The instructions `program args` executes inside the functions named by
/// `collect` (callgrind's `--toggle-collect` patterns; empty: the whole
/// process), with the environment `env` added.
///
/// # Errors
///
/// Valgrind missing or failing, or its report without a count.
pub fn callgrind(
    program: &Path,
    args: &[&str],
    collect: &[&str],
    env: &[(&str, &str)],
) -> Result<u64, String> {
    let mut cmd = Command::new("valgrind");
    cmd.args(["--tool=callgrind", "--callgrind-out-file=/dev/null"]);
    for c in collect {
        cmd.arg(format!("--toggle-collect={c}"));
    }
    if collect.is_empty() {
        cmd.arg("--trace-children=no");
    }
    cmd.arg(program)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run valgrind ({e}): apt-get install valgrind"))?;
    let report = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!(
            "valgrind {} {}: {}\n{}",
            program.display(),
            args.join(" "),
            out.status,
            report.lines().rev().take(10).collect::<Vec<_>>().join("\n")
        ));
    }
    // "==PID== Collected : 123456789"
    report
        .lines()
        .find_map(|l| {
            l.split_once("Collected :")
                .and_then(|(_, n)| n.trim().parse::<u64>().ok())
        })
        .ok_or_else(|| format!("no 'Collected' count in valgrind's report:\n{report}"))
}

/// Millions, with three significant digits (at least one decimal).
pub fn millions(n: u64) -> String {
    let m = n as f64 / 1e6;
    if m < 10.0 {
        format!("{m:.2}")
    } else {
        format!("{m:.1}")
    }
}

/// Milliseconds, with two decimals.
pub fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1e3)
}
