//! The second reading thread (`read::split`, with its move to another
//! processor): the whole `hailstone REQUEST` process on one thread
//! (`HAILSTONE_THREADS=1`) against two (`HAILSTONE_THREADS=2`).
//!
//! Relocation requests: their search is a small part of the run (no pair
//! scan, the other user of a second thread), so the difference is the
//! reading's. The runs alternate between the two counts, so that a loaded
//! machine slows both alike, and each is timed as Ganeti's node daemon
//! runs the allocator (`BINARY INPUT`, working directory `/`, stdin
//! closed); the CPU time (user and system, both threads) comes from
//! `getrusage(RUSAGE_CHILDREN)`. On a loaded machine, `--realtime` runs
//! the allocator under `chrt -f 1` (the lowest real-time priority, root
//! only): its threads then take a processor from any ordinary process
//! whenever they can run, about as on an idle machine (the other
//! processes still share the caches and the memory bus).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One run's wall-clock and CPU time.
#[derive(Clone, Copy, Debug)]
pub struct Times {
    pub wall: Duration,
    pub cpu: Duration,
}

/// The CPU time of this process's waited-for children so far.
fn children_cpu() -> Duration {
    // SAFETY: an all-zero `rusage` is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a writable `rusage`, as `getrusage` asks.
    let got = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    if got != 0 {
        return Duration::ZERO;
    }
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// How the allocator is run: the number of threads, and one more
/// environment variable if any (`--variant-env`).
#[derive(Clone, Debug)]
pub struct Setting {
    pub threads: usize,
    pub env: Option<(String, String)>,
    /// Run under `chrt -f 1` (`--realtime`).
    pub realtime: bool,
}

/// Runs `hailstone request` once as `setting` says; its answer.
///
/// # Errors
///
/// The program not running or failing.
pub fn run_once(
    hailstone: &Path,
    request: &Path,
    setting: &Setting,
) -> Result<(Times, Vec<u8>), String> {
    let mut cmd = if setting.realtime {
        let mut c = Command::new("chrt");
        c.args(["-f", "1"]).arg(hailstone);
        c
    } else {
        Command::new(hailstone)
    };
    cmd.arg(request)
        .env("HAILSTONE_THREADS", setting.threads.to_string())
        .env("LC_ALL", "C.UTF-8")
        .current_dir("/")
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    if let Some((name, value)) = &setting.env {
        cmd.env(name, value);
    }
    let cpu_before = children_cpu();
    let start = Instant::now();
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {}: {e}", hailstone.display()))?;
    let wall = start.elapsed();
    let cpu = children_cpu().saturating_sub(cpu_before);
    if !out.status.success() {
        return Err(format!(
            "{} {}: {}",
            hailstone.display(),
            request.display(),
            out.status
        ));
    }
    Ok((Times { wall, cpu }, out.stdout))
}

/// The medians of `runs` runs of each setting, taken in turn (after one
/// untimed run of each); every setting's answer must be the same bytes.
///
/// # Errors
///
/// A run failing, or two answers differing.
pub fn medians(
    hailstone: &Path,
    request: &Path,
    settings: &[Setting],
    runs: usize,
) -> Result<Vec<Times>, String> {
    let mut first: Option<Vec<u8>> = None;
    for s in settings {
        let (_, answer) = run_once(hailstone, request, s)?;
        if first.get_or_insert_with(|| answer.clone()) != &answer {
            return Err(format!(
                "{}: the answer differs with {s:?}",
                request.display()
            ));
        }
    }
    let mut times: Vec<Vec<Times>> = vec![Vec::new(); settings.len()];
    for _ in 0..runs.max(1) {
        for (k, s) in settings.iter().enumerate() {
            times[k].push(run_once(hailstone, request, s)?.0);
        }
    }
    let median = |ts: &[Times], f: fn(&Times) -> Duration| {
        let mut v: Vec<Duration> = ts.iter().map(f).collect();
        v.sort_unstable();
        v[v.len() / 2]
    };
    Ok(times
        .iter()
        .map(|ts| Times {
            wall: median(ts, |t| t.wall),
            cpu: median(ts, |t| t.cpu),
        })
        .collect())
}
