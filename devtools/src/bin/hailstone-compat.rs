//! `hailstone-compat`: runs hailstone and Ganeti's `hail` on the same
//! iallocator requests and compares their answers.
//!
//! This file owns the compatibility driver used by `make compat` (the `ci`
//! profile) and `make compat-full` (the `full` profile). Inputs are the files
//! in `protocol-samples/` (each with an optional `<name>.args` sidecar, one
//! hail option per line) plus generated cases from `hailstone_devtools::generate`.
//! Both binaries are run the way Ganeti's node daemon runs an iallocator
//! (`BINARY INPUT OPTIONS...`, cwd `/`, stdin closed, `LC_ALL=C.UTF-8`), in
//! parallel, and the results are printed in case order so that the output is
//! deterministic. Accepted differences are read from the `## Compatibility`
//! section of the README.

use hailstone_devtools::oracle;

use hailstone_devtools::toolargs;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use hailstone_devtools::generate::{self, CaseSpec, RequestKind};

const HELP: &str = "\
hailstone-compat: compare hailstone's answers with Ganeti's hail

USAGE:
  hailstone-compat [--profile ci|full|exclusive|none] [--kinds LIST] [--count N]
                   [--nodes MIN-MAX] [--seed BASE] [--samples DIR | --no-samples]
                   [--case FILE]... [--hail PATH] [--hailstone PATH]
                   [--timeout SECS] [--jobs N] [--readme PATH] [--keep DIR]
                   [--install-hail] [--verbose]
  hailstone-compat --profile ci --dump DIR
  hailstone-compat --help

INPUTS:
  Every protocol-samples/*.json (id sample:<file name>; options from the
  optional <name>.args sidecar, one per line) plus the generated cases of the
  profile (id gen:<case id>, e.g. gen:allocate/drbd/n12/g2/s7):
    ci    60 cases per request kind (8 kinds: the three node-evacuate modes
          count separately), 2-30 nodes, seeds 1..60   (the default)
    full  500 allocate and 300 of every other kind, 2-200 nodes, seeds from 1000
    exclusive  300 allocate and 300 multi-allocate on clusters with
          exclusive-storage groups (2-4 policy specs, spindles) mixed with
          ordinary groups, 2-60 nodes, seeds from 5000
    none  no generated cases
  --kinds LIST       only these kinds (comma-separated; node-evacuate = all
                     three modes; all = every kind)
  --count N          generated cases per kind (overrides the profile)
  --nodes MIN-MAX    node-count range (overrides the profile)
  --seed BASE        first seed (overrides the profile)
  --samples DIR      sample directory (default protocol-samples)
  --no-samples       skip the samples
  --case FILE        run only this file (repeatable; its .args sidecar is
                     used if present); no samples, no generated cases

RUNNING:
  --hail PATH        hail binary (default /usr/lib/ganeti/iallocators/hail)
  --hailstone PATH   hailstone binary (default target/release/hailstone)
  --timeout SECS     time limit per run (default 120); a hail timeout is
                     reported as 'hail timeout', not as a difference
  --jobs N           parallel cases (default 2)
  --install-hail     if hail is missing, run
                     'apt-get update && apt-get install -y ganeti-htools'
  --dump DIR         write the generated corpus (<name>.json + <name>.args,
                     <name> = case id with '/' replaced by '_') and exit
                     without running anything

CLASSIFICATION (per case):
  not implemented            hailstone exits 3 with 'is not implemented yet'
                             on stderr (counted, not a failure)
  identical                  both exit 0 with the same stdout bytes
  same result, info differs  both exit 0, same 'success' and 'result'
  different result           both exit 0, otherwise
  both refused               both exit non-zero (agreement)
  refusal differs            exactly one exits non-zero
  hail timeout               hail exceeded the time limit (not a difference)
  hailstone timeout          hailstone exceeded the time limit
  Differences ('same result, info differs', 'different result', 'refusal
  differs', 'hailstone timeout') fail the run unless the case id matches an
  accepted difference: a table row in the README's '## Compatibility...'
  section whose first cell is a backticked case id or glob ('*' matches any
  text), e.g. | `gen:allocate/*/s1234` | reason |.

OUTPUT:
  A summary table per request kind, the agreement percentages, then every
  unexplained difference with its id, both command lines and both answers
  (or 300 characters around the first differing byte). Timings go to stderr.
  --readme PATH      README with the accepted differences (default README.md)
  --keep DIR         copy the inputs (and .args) of differing cases to DIR
  --verbose          also print one line per case

EXIT STATUS: 0 no unexplained difference, 1 unexplained differences,
             2 usage or setup error (e.g. hail missing).
";

const DEFAULT_HAIL: &str = "/usr/lib/ganeti/iallocators/hail";
const DEFAULT_HAILSTONE: &str = "target/release/hailstone";

// ---------------------------------------------------------------------------
// Configuration.
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Profile {
    Ci,
    Full,
    /// allocate and multi-allocate on clusters with exclusive-storage
    /// groups (several policy specs, spindles), mixed with ordinary ones.
    Exclusive,
    None,
}

#[derive(Debug)]
struct Config {
    profile: Profile,
    kinds: Option<Vec<RequestKind>>,
    count: Option<usize>,
    nodes: Option<(usize, usize)>,
    seed: Option<u64>,
    samples: Option<PathBuf>,
    no_samples: bool,
    cases: Vec<PathBuf>,
    hail: PathBuf,
    hailstone: PathBuf,
    timeout: Duration,
    jobs: usize,
    readme: PathBuf,
    readme_given: bool,
    keep: Option<PathBuf>,
    install_hail: bool,
    dump: Option<PathBuf>,
    verbose: bool,
}

fn parse_range(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("invalid node range '{}' (expected MIN-MAX or N)", s);
    let (a, b) = match s.split_once('-') {
        Some((a, b)) => (a, b),
        None => (s, s),
    };
    let a: usize = a.trim().parse().map_err(|_| bad())?;
    let b: usize = b.trim().parse().map_err(|_| bad())?;
    if a == 0 || b < a {
        return Err(bad());
    }
    Ok((a, b))
}

fn parse_args(args: &[String]) -> Result<Config, String> {
    let mut c = Config {
        profile: Profile::Ci,
        kinds: None,
        count: None,
        nodes: None,
        seed: None,
        samples: None,
        no_samples: false,
        cases: Vec::new(),
        hail: PathBuf::from(DEFAULT_HAIL),
        hailstone: PathBuf::from(DEFAULT_HAILSTONE),
        timeout: Duration::from_secs(120),
        jobs: 2,
        readme: PathBuf::from("README.md"),
        readme_given: false,
        keep: None,
        install_hail: false,
        dump: None,
        verbose: false,
    };
    let mut words = toolargs::Args::new(args);
    let flag = |name: &str| matches!(name, "--no-samples" | "--install-hail" | "--verbose" | "-v");
    while let Some(arg) = words.next(|name| !flag(name)) {
        let toolargs::Arg { name, value, .. } = arg?;
        let value = value.unwrap_or_default();
        match name {
            "--profile" => {
                c.profile = match value.as_str() {
                    "ci" => Profile::Ci,
                    "full" => Profile::Full,
                    "exclusive" => Profile::Exclusive,
                    "none" => Profile::None,
                    _ => {
                        return Err(format!(
                            "unknown profile '{}' (ci, full, exclusive, none)",
                            value
                        ))
                    }
                }
            }
            "--kinds" => c.kinds = Some(generate::parse_kinds(&value)?),
            "--count" => {
                c.count = Some(
                    value
                        .parse()
                        .map_err(|_| format!("invalid count '{}'", value))?,
                )
            }
            "--nodes" => c.nodes = Some(parse_range(&value)?),
            "--seed" => {
                c.seed = Some(
                    value
                        .parse()
                        .map_err(|_| format!("invalid seed '{}'", value))?,
                )
            }
            "--samples" => c.samples = Some(PathBuf::from(value)),
            "--no-samples" => c.no_samples = true,
            "--case" => c.cases.push(PathBuf::from(value)),
            "--hail" => c.hail = PathBuf::from(value),
            "--hailstone" => c.hailstone = PathBuf::from(value),
            "--timeout" => {
                let t: f64 = value
                    .parse()
                    .map_err(|_| format!("invalid timeout '{}'", value))?;
                if !(t > 0.0 && t < 1e7) {
                    return Err(format!("invalid timeout '{}'", value));
                }
                c.timeout = Duration::from_secs_f64(t);
            }
            "--jobs" | "-j" => {
                let j: usize = value
                    .parse()
                    .map_err(|_| format!("invalid job count '{}'", value))?;
                if j == 0 {
                    return Err("--jobs must be at least 1".into());
                }
                c.jobs = j;
            }
            "--readme" => {
                c.readme = PathBuf::from(value);
                c.readme_given = true;
            }
            "--keep" => c.keep = Some(PathBuf::from(value)),
            "--install-hail" => c.install_hail = true,
            "--dump" => c.dump = Some(PathBuf::from(value)),
            "--verbose" | "-v" => c.verbose = true,
            _ => return Err(format!("unknown argument '{}'", name)),
        }
    }
    Ok(c)
}

impl Profile {
    /// Generated cases per kind.
    fn count(self, kind: RequestKind) -> usize {
        match self {
            Profile::Ci => 60,
            Profile::Full if kind == RequestKind::Allocate => 500,
            Profile::Full | Profile::Exclusive => 300,
            Profile::None => 0,
        }
    }

    /// Node-count range.
    fn nodes(self) -> (usize, usize) {
        match self {
            Profile::Full => (2, 200),
            Profile::Exclusive => (2, 60),
            _ => (2, 30),
        }
    }

    /// First seed.
    fn seed(self) -> u64 {
        match self {
            Profile::Full => 1000,
            Profile::Exclusive => 5000,
            _ => 1,
        }
    }
}

/// The generated-case specs of the configuration (profile plus overrides).
fn generated_specs(c: &Config) -> Vec<CaseSpec> {
    if !c.cases.is_empty() {
        return Vec::new();
    }
    let kinds = c.kinds.clone().unwrap_or_else(|| match c.profile {
        Profile::Exclusive => vec![RequestKind::Allocate, RequestKind::MultiAllocate],
        _ => generate::all_kinds(),
    });
    let (lo, hi) = c.nodes.unwrap_or(c.profile.nodes());
    let seed = c.seed.unwrap_or(c.profile.seed());
    let mut out = Vec::new();
    for k in kinds {
        let n = c.count.unwrap_or(c.profile.count(k));
        out.extend(generate::corpus_specs(&[k], n, lo..=hi, seed));
    }
    if c.profile == Profile::Exclusive {
        for spec in out.iter_mut() {
            spec.features.exclusive_storage = true;
            spec.features.multi_minmax = true;
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Accepted differences.
// ---------------------------------------------------------------------------

/// Extracts the accepted-difference patterns from a README: in the section
/// whose heading starts with `## Compatibility`, every table row whose first
/// cell is a backticked id or glob.
fn parse_allowlist(readme: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in readme.lines() {
        let t = line.trim_end();
        if t.starts_with('#') {
            let level = t.chars().take_while(|&c| c == '#').count();
            if level <= 2 {
                inside = level == 2 && t.starts_with("## Compatibility");
            }
            continue;
        }
        if !inside {
            continue;
        }
        let row = t.trim_start();
        if !row.starts_with('|') {
            continue;
        }
        let first = row[1..].split('|').next().unwrap_or("").trim();
        if first.len() >= 2 && first.starts_with('`') && first.ends_with('`') {
            let pat = first[1..first.len() - 1].trim();
            if !pat.is_empty() {
                out.push(pat.to_string());
            }
        }
    }
    out
}

/// Glob match where `*` matches any (possibly empty) text, including `/`.
fn glob_match(pat: &str, text: &str) -> bool {
    let p: Vec<char> = pat.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

fn is_accepted(allow: &[String], id: &str) -> bool {
    allow
        .iter()
        .filter(|p| !p.starts_with("class:"))
        .any(|p| glob_match(p, id))
}

/// The message hailstone gives where hail would fail an instance over to a
/// node Ganeti refuses (README: `class:drained-target`).
const DRAINED_TARGET_MESSAGE: &str = "is drained or offline and cannot take over the instance";

/// Whether a difference is explained by a class of deliberate differences
/// that the README lists (a row whose first cell is `class:<name>`). The
/// check is structural, from the request and both answers, so a class
/// cannot hide an unrelated difference in the same case.
fn explained_by_class(
    allow: &[String],
    request: &[u8],
    hail_out: &[u8],
    hs_out: &[u8],
) -> Option<&'static str> {
    if allow.iter().any(|p| p == "class:drained-target")
        && drained_target(request, hail_out, hs_out)
    {
        return Some("class:drained-target");
    }
    None
}

/// `class:drained-target`: hail's answer makes a node Ganeti refuses
/// (drained, offline or not vm_capable) take over an instance or a new
/// secondary, and hailstone declines exactly that:
/// * allocate-secondary: hail's chosen secondary is such a node and
///   hailstone chose another one (or none);
/// * node-evacuate / change-group: some instance that hail moves starts its
///   job with a failover (no target node) while its current secondary is
///   such a node, and hailstone lists that instance as failed with
///   [`DRAINED_TARGET_MESSAGE`].
fn drained_target(request: &[u8], hail_out: &[u8], hs_out: &[u8]) -> bool {
    use serde_json::Value;
    let (Ok(req), Ok(hail), Ok(hs)) = (
        serde_json::from_slice::<Value>(request),
        serde_json::from_slice::<Value>(hail_out),
        serde_json::from_slice::<Value>(hs_out),
    ) else {
        return false;
    };
    let refused_node = |name: &str| -> bool {
        req.get("nodes").and_then(|n| n.get(name)).is_some_and(|n| {
            n.get("offline").and_then(Value::as_bool).unwrap_or(false)
                || n.get("drained").and_then(Value::as_bool).unwrap_or(false)
                || !n.get("vm_capable").and_then(Value::as_bool).unwrap_or(true)
        })
    };
    let rtype = req
        .get("request")
        .and_then(|r| r.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("");
    match rtype {
        "allocate-secondary" => {
            let Some(chosen) = hail.get("result").and_then(Value::as_str) else {
                return false;
            };
            refused_node(chosen) && hs.get("result").and_then(Value::as_str) != Some(chosen)
        }
        "node-evacuate" | "change-group" => {
            let result = |v: &Value, i: usize| {
                v.get("result")
                    .and_then(|r| r.get(i))
                    .and_then(Value::as_array)
                    .cloned()
            };
            let (Some(moved), Some(jobs), Some(hs_failed)) =
                (result(&hail, 0), result(&hail, 2), result(&hs, 1))
            else {
                return false;
            };
            moved.iter().zip(jobs.iter()).any(|(m, job)| {
                let Some(name) = m.get(0).and_then(Value::as_str) else {
                    return false;
                };
                let first_is_failover = job.get(0).is_some_and(|op| {
                    matches!(
                        op.get("OP_ID").and_then(Value::as_str),
                        Some("OP_INSTANCE_MIGRATE") | Some("OP_INSTANCE_FAILOVER")
                    ) && op.get("target_node").is_none()
                });
                let secondary = req
                    .get("instances")
                    .and_then(|i| i.get(name))
                    .and_then(|i| i.get("nodes"))
                    .and_then(|n| n.get(1))
                    .and_then(Value::as_str);
                let declined = hs_failed.iter().any(|f| {
                    f.get(0).and_then(Value::as_str) == Some(name)
                        && f.get(1)
                            .and_then(Value::as_str)
                            .is_some_and(|msg| msg.contains(DRAINED_TARGET_MESSAGE))
                });
                first_is_failover && secondary.is_some_and(refused_node) && declined
            })
        }
        _ => false,
    }
}

// ---------------------------------------------------------------------------
// Running the binaries.
// ---------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum RunStatus {
    /// Exited with a code.
    Exited(i32),
    /// Killed by a signal (or no exit code available).
    Killed,
    /// Exceeded the time limit and was killed.
    TimedOut,
    /// Could not be started.
    SpawnError(String),
}

#[derive(Clone, Debug)]
struct RunResult {
    status: RunStatus,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    elapsed: Duration,
}

impl RunResult {
    fn ok(&self) -> bool {
        self.status == RunStatus::Exited(0)
    }
    fn describe(&self) -> String {
        match &self.status {
            RunStatus::Exited(c) => format!("exit {}", c),
            RunStatus::Killed => "killed by a signal".to_string(),
            RunStatus::TimedOut => "timed out".to_string(),
            RunStatus::SpawnError(e) => format!("could not start: {}", e),
        }
    }
}

/// Runs `bin INPUT OPTIONS...` like ganeti-noded: cwd `/`, stdin closed,
/// `LC_ALL=C.UTF-8`, killed after `timeout`.
fn run_binary(bin: &Path, input: &Path, opts: &[String], timeout: Duration) -> RunResult {
    let start = Instant::now();
    let mut cmd = Command::new(bin);
    cmd.arg(input)
        .args(opts)
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("LC_ALL", "C.UTF-8");
    // A process group of its own, so that a timeout also stops any helper
    // processes the binary started (they would keep the output pipes open).
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return RunResult {
                status: RunStatus::SpawnError(e.to_string()),
                stdout: Vec::new(),
                stderr: Vec::new(),
                elapsed: start.elapsed(),
            }
        }
    };
    let mut out = child.stdout.take();
    let mut err = child.stderr.take();
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        if let Some(o) = out.as_mut() {
            let _ = o.read_to_end(&mut v);
        }
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        if let Some(e) = err.as_mut() {
            let _ = e.read_to_end(&mut v);
        }
        v
    });
    let mut poll = Duration::from_millis(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => {
                break st
                    .code()
                    .map(RunStatus::Exited)
                    .unwrap_or(RunStatus::Killed)
            }
            Ok(None) => {}
            Err(e) => break RunStatus::SpawnError(e.to_string()),
        }
        if start.elapsed() >= timeout {
            // Kill the whole process group we created (its id is the child's pid).
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let _ = child.kill();
            let _ = child.wait();
            break RunStatus::TimedOut;
        }
        std::thread::sleep(poll);
        poll = (poll * 2).min(Duration::from_millis(20));
    };
    let stdout = t_out.join().unwrap_or_default();
    let stderr = t_err.join().unwrap_or_default();
    RunResult {
        status,
        stdout,
        stderr,
        elapsed: start.elapsed(),
    }
}

// ---------------------------------------------------------------------------
// Classification.
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    HailTimeout,
    NotImplemented,
    Identical,
    SameResult,
    DifferentResult,
    BothRefused,
    RefusalDiffers,
    HailstoneTimeout,
}

impl Outcome {
    fn label(self) -> &'static str {
        match self {
            Outcome::HailTimeout => "hail timeout",
            Outcome::NotImplemented => "not implemented",
            Outcome::Identical => "identical",
            Outcome::SameResult => "same result, info differs",
            Outcome::DifferentResult => "different result",
            Outcome::BothRefused => "both refused",
            Outcome::RefusalDiffers => "refusal differs",
            Outcome::HailstoneTimeout => "hailstone timeout",
        }
    }

    fn is_difference(self) -> bool {
        matches!(
            self,
            Outcome::SameResult
                | Outcome::DifferentResult
                | Outcome::RefusalDiffers
                | Outcome::HailstoneTimeout
        )
    }
}

/// Parses an answer and returns its `success` and `result`.
fn answer_core(out: &[u8]) -> Option<(serde_json::Value, serde_json::Value)> {
    let v: serde_json::Value = serde_json::from_slice(out).ok()?;
    let o = v.as_object()?;
    Some((o.get("success")?.clone(), o.get("result")?.clone()))
}

fn classify(hail: &RunResult, hs: &RunResult) -> Outcome {
    if hail.status == RunStatus::TimedOut {
        return Outcome::HailTimeout;
    }
    if hs.status == RunStatus::Exited(3)
        && String::from_utf8_lossy(&hs.stderr).contains("is not implemented yet")
    {
        return Outcome::NotImplemented;
    }
    if hs.status == RunStatus::TimedOut {
        return Outcome::HailstoneTimeout;
    }
    match (hail.ok(), hs.ok()) {
        (true, true) => {
            if hail.stdout == hs.stdout {
                Outcome::Identical
            } else {
                match (answer_core(&hail.stdout), answer_core(&hs.stdout)) {
                    (Some(a), Some(b)) if a == b => Outcome::SameResult,
                    _ => Outcome::DifferentResult,
                }
            }
        }
        (false, false) => Outcome::BothRefused,
        _ => Outcome::RefusalDiffers,
    }
}

// ---------------------------------------------------------------------------
// Cases.
// ---------------------------------------------------------------------------

/// One input of the run.
enum Source {
    /// A file on disk (protocol sample or `--case`).
    File(PathBuf),
    /// A generated case, produced by the worker.
    Gen(CaseSpec),
}

struct Input {
    /// Position in the run (output order).
    index: usize,
    source: Source,
}

/// Everything known about a case after running it.
struct Done {
    id: String,
    kind: String,
    input_path: PathBuf,
    options: Vec<String>,
    regen: Option<String>,
    outcome: Result<Outcome, String>,
    hail: Option<RunResult>,
    hs: Option<RunResult>,
    accepted: bool,
    kept: Option<PathBuf>,
}

fn read_args_sidecar(json: &Path) -> Result<Vec<String>, String> {
    let args = json.with_extension("args");
    match std::fs::read_to_string(&args) {
        Ok(s) => Ok(s
            .lines()
            .map(|l| l.trim_end_matches('\r').to_string())
            .filter(|l| !l.is_empty())
            .collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(format!("cannot read {}: {}", args.display(), e)),
    }
}

/// The kind slug of a request text (`other` when it cannot be told).
fn kind_of_request(bytes: &[u8]) -> String {
    let v: serde_json::Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(_) => return "other".to_string(),
    };
    let r = &v["request"];
    let t = r["type"].as_str().unwrap_or("");
    let slug = if t == "node-evacuate" {
        format!("node-evacuate-{}", r["evac_mode"].as_str().unwrap_or(""))
    } else {
        t.to_string()
    };
    match RequestKind::from_slug(&slug) {
        Some(k) => k.slug().to_string(),
        None => "other".to_string(),
    }
}

fn file_stem(id: &str) -> String {
    id.replace('/', "_")
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=,:+@%".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn command_line(bin: &Path, input: &Path, opts: &[String]) -> String {
    let mut parts = vec![
        shell_quote(&bin.display().to_string()),
        shell_quote(&input.display().to_string()),
    ];
    parts.extend(opts.iter().map(|o| shell_quote(o)));
    format!("(cd / && LC_ALL=C.UTF-8 {} </dev/null)", parts.join(" "))
}

struct Shared {
    hail: PathBuf,
    hailstone: PathBuf,
    timeout: Duration,
    tmp: PathBuf,
    keep: Option<PathBuf>,
    allow: Vec<String>,
    nodes_arg: (usize, usize),
}

fn process(input: &Input, sh: &Shared) -> Done {
    let (id, kind, path, options, regen, temp) = match &input.source {
        Source::File(p) => {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            let bytes = std::fs::read(p).unwrap_or_default();
            let opts = read_args_sidecar(p);
            let kind = kind_of_request(&bytes);
            match opts {
                Ok(o) => (format!("sample:{}", name), kind, p.clone(), o, None, false),
                Err(e) => {
                    return Done {
                        id: format!("sample:{}", name),
                        kind,
                        input_path: p.clone(),
                        options: Vec::new(),
                        regen: None,
                        outcome: Err(e),
                        hail: None,
                        hs: None,
                        accepted: false,
                        kept: None,
                    }
                }
            }
        }
        Source::Gen(spec) => {
            let case = generate::generate(spec);
            let id = format!("gen:{}", case.id);
            let path = sh.tmp.join(format!("{}.json", file_stem(&case.id)));
            let regen = format!(
                "hailstone-gen --random --kind {} --seed {} --nodes {}-{} -o FILE.json",
                spec.kind.slug(),
                spec.seed,
                sh.nodes_arg.0,
                sh.nodes_arg.1
            );
            if let Err(e) = std::fs::write(&path, case.request.as_bytes()) {
                return Done {
                    id,
                    kind: spec.kind.slug().to_string(),
                    input_path: path.clone(),
                    options: case.options,
                    regen: Some(regen),
                    outcome: Err(format!("cannot write {}: {}", path.display(), e)),
                    hail: None,
                    hs: None,
                    accepted: false,
                    kept: None,
                };
            }
            (
                id,
                spec.kind.slug().to_string(),
                path,
                case.options,
                Some(regen),
                true,
            )
        }
    };
    let hail = run_binary(&sh.hail, &path, &options, sh.timeout);
    let hs = run_binary(&sh.hailstone, &path, &options, sh.timeout);
    let outcome = match (&hail.status, &hs.status) {
        (RunStatus::SpawnError(e), _) => Err(format!("cannot run hail: {}", e)),
        (_, RunStatus::SpawnError(e)) => Err(format!("cannot run hailstone: {}", e)),
        _ => Ok(classify(&hail, &hs)),
    };
    let differs = match outcome {
        Ok(o) => o.is_difference(),
        Err(_) => true,
    };
    let accepted = differs
        && (is_accepted(&sh.allow, &id)
            || std::fs::read(&path)
                .ok()
                .and_then(|req| explained_by_class(&sh.allow, &req, &hail.stdout, &hs.stdout))
                .is_some());
    let mut kept = None;
    if differs {
        if let Some(dir) = &sh.keep {
            let stem = file_stem(id.split_once(':').map(|x| x.1).unwrap_or(&id));
            let stem = stem.trim_end_matches(".json").to_string();
            let dst = dir.join(format!("{}.json", stem));
            if std::fs::copy(&path, &dst).is_ok() {
                let mut a = String::new();
                for o in &options {
                    a.push_str(o);
                    a.push('\n');
                }
                let _ = std::fs::write(dst.with_extension("args"), a);
                kept = Some(dst);
            }
        }
    }
    if temp {
        let _ = std::fs::remove_file(&path);
    }
    Done {
        id,
        kind,
        input_path: path,
        options,
        regen,
        outcome,
        hail: Some(hail),
        hs: Some(hs),
        accepted,
        kept,
    }
}

// ---------------------------------------------------------------------------
// Reporting.
// ---------------------------------------------------------------------------

#[derive(Default, Clone)]
struct Tally {
    cases: usize,
    identical: usize,
    same_result: usize,
    not_impl: usize,
    both_refused: usize,
    accepted: usize,
    unexplained: usize,
    hail_timeouts: usize,
    /// Cases where hail answered (exit 0) and hailstone is implemented.
    answered: usize,
}

impl Tally {
    fn add(&mut self, d: &Done) {
        self.cases += 1;
        match d.outcome {
            Ok(o) => {
                match o {
                    Outcome::Identical => {
                        self.identical += 1;
                        self.same_result += 1;
                    }
                    Outcome::SameResult => self.same_result += 1,
                    Outcome::NotImplemented => self.not_impl += 1,
                    Outcome::BothRefused => self.both_refused += 1,
                    Outcome::HailTimeout => self.hail_timeouts += 1,
                    _ => {}
                }
                let hail_ok = d.hail.as_ref().map(|h| h.ok()).unwrap_or(false);
                if hail_ok && o != Outcome::NotImplemented && o != Outcome::HailTimeout {
                    self.answered += 1;
                }
                if o.is_difference() {
                    if d.accepted {
                        self.accepted += 1;
                    } else {
                        self.unexplained += 1;
                    }
                }
            }
            Err(_) => {
                if d.accepted {
                    self.accepted += 1;
                } else {
                    self.unexplained += 1;
                }
            }
        }
    }

    fn merge(&mut self, o: &Tally) {
        self.cases += o.cases;
        self.identical += o.identical;
        self.same_result += o.same_result;
        self.not_impl += o.not_impl;
        self.both_refused += o.both_refused;
        self.accepted += o.accepted;
        self.unexplained += o.unexplained;
        self.hail_timeouts += o.hail_timeouts;
        self.answered += o.answered;
    }
}

fn pct(a: usize, b: usize) -> String {
    if b == 0 {
        "-".to_string()
    } else {
        format!("{:.1}%", a as f64 * 100.0 / b as f64)
    }
}

fn table(tallies: &BTreeMap<usize, (String, Tally)>) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "{:<30} {:>6} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8}\n",
        "kind", "cases", "identical", "same", "not", "both", "accepted", "unexpl.", "hail"
    ));
    s.push_str(&format!(
        "{:<30} {:>6} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8}\n",
        "", "", "answers", "results", "impl.", "refused", "diffs", "diffs", "timeouts"
    ));
    let mut total = Tally::default();
    for (name, t) in tallies.values() {
        s.push_str(&format!(
            "{:<30} {:>6} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8}\n",
            name,
            t.cases,
            t.identical,
            t.same_result,
            t.not_impl,
            t.both_refused,
            t.accepted,
            t.unexplained,
            t.hail_timeouts
        ));
        total.merge(t);
    }
    s.push_str(&format!(
        "{:<30} {:>6} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8}\n",
        "total",
        total.cases,
        total.identical,
        total.same_result,
        total.not_impl,
        total.both_refused,
        total.accepted,
        total.unexplained,
        total.hail_timeouts
    ));
    s.push_str("\nAgreement over the cases hail answered (exit 0) and hailstone implements:\n");
    s.push_str(&format!(
        "{:<30} {:>9} {:>22} {:>22}\n",
        "kind", "answered", "identical success+result", "byte-identical answers"
    ));
    for (name, t) in tallies
        .values()
        .chain(std::iter::once(&("total".to_string(), total.clone())))
    {
        s.push_str(&format!(
            "{:<30} {:>9} {:>22} {:>22}\n",
            name,
            t.answered,
            pct(t.same_result, t.answered),
            pct(t.identical, t.answered)
        ));
    }
    s
}

fn window(a: &[u8], b: &[u8]) -> (String, String) {
    if a.len() <= 600 && b.len() <= 600 {
        return (
            String::from_utf8_lossy(a).into_owned(),
            String::from_utf8_lossy(b).into_owned(),
        );
    }
    let d = a
        .iter()
        .zip(b.iter())
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let lo = d.saturating_sub(150);
    let cut = |x: &[u8]| {
        let hi = (d + 150).min(x.len());
        let lo = lo.min(x.len());
        format!(
            "{}{}{} (first difference at byte {})",
            if lo > 0 { "..." } else { "" },
            String::from_utf8_lossy(&x[lo..hi]),
            if hi < x.len() { "..." } else { "" },
            d
        )
    };
    (cut(a), cut(b))
}

fn first_lines(b: &[u8], n: usize) -> String {
    let s = String::from_utf8_lossy(b);
    let v: Vec<&str> = s.lines().take(n).collect();
    v.join("\n      ")
}

fn report_difference(d: &Done, sh: &Shared) -> String {
    let mut s = String::new();
    let label = match &d.outcome {
        Ok(o) => o.label().to_string(),
        Err(e) => format!("error: {}", e),
    };
    s.push_str(&format!("--- {} [{}]\n", d.id, label));
    let input = d.kept.clone().unwrap_or_else(|| d.input_path.clone());
    s.push_str(&format!(
        "  hail:      {}\n",
        command_line(&sh.hail, &input, &d.options)
    ));
    s.push_str(&format!(
        "  hailstone: {}\n",
        command_line(&sh.hailstone, &input, &d.options)
    ));
    if d.kept.is_none() {
        if let Some(r) = &d.regen {
            s.push_str(&format!(
                "  (input not kept; use --keep DIR, or regenerate: {})\n",
                r
            ));
        }
    }
    if let (Some(h), Some(x)) = (&d.hail, &d.hs) {
        s.push_str(&format!(
            "  hail {}, hailstone {}\n",
            h.describe(),
            x.describe()
        ));
        let (a, b) = window(&h.stdout, &x.stdout);
        s.push_str(&format!("  hail answer:      {}\n", a.trim_end()));
        s.push_str(&format!("  hailstone answer: {}\n", b.trim_end()));
        if !h.ok() && !h.stderr.is_empty() {
            s.push_str(&format!(
                "  hail stderr:      {}\n",
                first_lines(&h.stderr, 5)
            ));
        }
        if !x.ok() && !x.stderr.is_empty() {
            s.push_str(&format!(
                "  hailstone stderr: {}\n",
                first_lines(&x.stderr, 5)
            ));
        }
    }
    s
}

// ---------------------------------------------------------------------------
// Setup.
// ---------------------------------------------------------------------------

fn collect_inputs(c: &Config) -> Result<Vec<Input>, String> {
    let mut inputs = Vec::new();
    if !c.cases.is_empty() {
        for p in &c.cases {
            if !p.is_file() {
                return Err(format!("case file {} not found", p.display()));
            }
            inputs.push(Input {
                index: inputs.len(),
                source: Source::File(oracle::absolute(p)),
            });
        }
        return Ok(inputs);
    }
    if !c.no_samples {
        let dir = c
            .samples
            .clone()
            .unwrap_or_else(|| PathBuf::from("protocol-samples"));
        match std::fs::read_dir(&dir) {
            Ok(rd) => {
                let mut files: Vec<PathBuf> = rd
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().map(|x| x == "json").unwrap_or(false) && p.is_file())
                    .collect();
                files.sort();
                for f in files {
                    inputs.push(Input {
                        index: inputs.len(),
                        source: Source::File(oracle::absolute(&f)),
                    });
                }
            }
            Err(e) => {
                if c.samples.is_some() {
                    return Err(format!(
                        "cannot read sample directory {}: {}",
                        dir.display(),
                        e
                    ));
                }
                eprintln!("hailstone-compat: note: no sample directory {} ({}); running generated cases only", dir.display(), e);
            }
        }
    }
    for spec in generated_specs(c) {
        inputs.push(Input {
            index: inputs.len(),
            source: Source::Gen(spec),
        });
    }
    Ok(inputs)
}

fn dump(c: &Config, dir: &Path) -> Result<usize, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {}", dir.display(), e))?;
    let specs = generated_specs(c);
    for spec in &specs {
        let case = generate::generate(spec);
        let stem = file_stem(&case.id);
        let mut args = String::new();
        for o in &case.options {
            args.push_str(o);
            args.push('\n');
        }
        std::fs::write(dir.join(format!("{}.json", stem)), case.request.as_bytes())
            .and_then(|_| std::fs::write(dir.join(format!("{}.args", stem)), args))
            .map_err(|e| format!("cannot write case {} to {}: {}", case.id, dir.display(), e))?;
    }
    Ok(specs.len())
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("hailstone-compat: {}", msg);
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        print!("{}", HELP);
        return ExitCode::SUCCESS;
    }
    let mut c = match parse_args(&args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("hailstone-compat: {}", e);
            eprintln!("Try 'hailstone-compat --help'.");
            return ExitCode::from(2);
        }
    };
    if let Some(dir) = c.dump.clone() {
        return match dump(&c, &dir) {
            Ok(n) => {
                println!("wrote {} generated cases to {}", n, dir.display());
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e),
        };
    }
    c.hail = oracle::absolute(&c.hail);
    c.hailstone = oracle::absolute(&c.hailstone);
    if let Err(e) = oracle::ensure_hail(&c.hail, c.install_hail, "hailstone-compat") {
        return fail(&e);
    }
    if !oracle::is_executable(&c.hailstone) {
        return fail(&format!(
            "hailstone binary {} not found or not executable (build it with 'cargo build --release' or pass --hailstone PATH)",
            c.hailstone.display()
        ));
    }
    let allow = match std::fs::read_to_string(&c.readme) {
        Ok(s) => parse_allowlist(&s),
        Err(e) => {
            if c.readme_given {
                return fail(&format!("cannot read {}: {}", c.readme.display(), e));
            }
            eprintln!(
                "hailstone-compat: note: no {} ({}); no accepted differences",
                c.readme.display(),
                e
            );
            Vec::new()
        }
    };
    let inputs = match collect_inputs(&c) {
        Ok(i) => i,
        Err(e) => return fail(&e),
    };
    if inputs.is_empty() {
        return fail("no cases to run");
    }
    let tmp = std::env::temp_dir().join(format!("hailstone-compat.{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&tmp) {
        return fail(&format!("cannot create {}: {}", tmp.display(), e));
    }
    let keep = match &c.keep {
        Some(k) => match std::fs::create_dir_all(k) {
            Ok(()) => Some(oracle::absolute(k)),
            Err(e) => return fail(&format!("cannot create {}: {}", k.display(), e)),
        },
        None => None,
    };
    let range = c.profile.nodes();
    let shared = Arc::new(Shared {
        hail: c.hail.clone(),
        hailstone: c.hailstone.clone(),
        timeout: c.timeout,
        tmp: tmp.clone(),
        keep,
        allow,
        nodes_arg: c.nodes.unwrap_or(range),
    });

    let total = inputs.len();
    let inputs = Arc::new(inputs);
    let next = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = mpsc::channel::<(usize, Done)>();
    let started = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..c.jobs.min(total) {
        let inputs = Arc::clone(&inputs);
        let next = Arc::clone(&next);
        let tx = tx.clone();
        let sh = Arc::clone(&shared);
        workers.push(std::thread::spawn(move || loop {
            let i = next.fetch_add(1, Ordering::SeqCst);
            if i >= inputs.len() {
                break;
            }
            let d = process(&inputs[i], &sh);
            if tx.send((inputs[i].index, d)).is_err() {
                break;
            }
        }));
    }
    drop(tx);

    // Collect in completion order, print in case order.
    let mut pending: BTreeMap<usize, Done> = BTreeMap::new();
    let mut done: Vec<Done> = Vec::with_capacity(total);
    let mut printed = 0usize;
    let mut hail_time = Duration::ZERO;
    let mut hs_time = Duration::ZERO;
    for (idx, d) in rx {
        hail_time += d.hail.as_ref().map(|h| h.elapsed).unwrap_or_default();
        hs_time += d.hs.as_ref().map(|h| h.elapsed).unwrap_or_default();
        pending.insert(idx, d);
        while let Some(d) = pending.remove(&printed) {
            if c.verbose {
                let label = match &d.outcome {
                    Ok(o) => o.label().to_string(),
                    Err(e) => format!("error: {}", e),
                };
                let mark = match &d.outcome {
                    Ok(o) if !o.is_difference() => "ok  ",
                    _ if d.accepted => "acc ",
                    _ => "DIFF",
                };
                println!("{} {} {}", mark, d.id, label);
            }
            done.push(d);
            printed += 1;
            if printed.is_multiple_of(50) && printed < total {
                eprintln!("hailstone-compat: {}/{} cases", printed, total);
            }
        }
    }
    for w in workers {
        let _ = w.join();
    }
    let _ = std::fs::remove_dir_all(&tmp);

    // Tables per kind, in a fixed order.
    let mut order: Vec<String> = generate::all_kinds()
        .iter()
        .map(|k| k.slug().to_string())
        .collect();
    order.push("other".to_string());
    let mut tallies: BTreeMap<usize, (String, Tally)> = BTreeMap::new();
    for d in &done {
        let pos = order
            .iter()
            .position(|k| *k == d.kind)
            .unwrap_or(order.len() - 1);
        tallies
            .entry(pos)
            .or_insert_with(|| (order[pos].clone(), Tally::default()))
            .1
            .add(d);
    }
    if c.verbose {
        println!();
    }
    print!("{}", table(&tallies));
    let unexplained: Vec<&Done> = done
        .iter()
        .filter(|d| {
            !d.accepted
                && d.outcome
                    .as_ref()
                    .map(|o| o.is_difference())
                    .unwrap_or(true)
        })
        .collect();
    if !unexplained.is_empty() {
        println!("\nUnexplained differences ({}):", unexplained.len());
        for d in &unexplained {
            print!("{}", report_difference(d, &shared));
        }
    }
    eprintln!(
        "hailstone-compat: {} cases in {:.1} s wall time; hail {:.1} s, hailstone {:.1} s (summed run times)",
        total,
        started.elapsed().as_secs_f64(),
        hail_time.as_secs_f64(),
        hs_time.as_secs_f64()
    );
    if unexplained.is_empty() {
        println!("\nOK: no unexplained differences");
        ExitCode::SUCCESS
    } else {
        println!("\nFAILED: {} unexplained difference(s)", unexplained.len());
        ExitCode::from(1)
    }
}

// ---------------------------------------------------------------------------
// Tests.
// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    fn res(code: i32, out: &str, err: &str) -> RunResult {
        RunResult {
            status: RunStatus::Exited(code),
            stdout: out.as_bytes().to_vec(),
            stderr: err.as_bytes().to_vec(),
            elapsed: Duration::ZERO,
        }
    }

    const A: &str = "{\"success\":true,\"info\":\"Request successful: x\",\"result\":[\"n1\"]}\n";
    const A_INFO: &str =
        "{\"success\":true,\"info\":\"Request successful: y\",\"result\":[\"n1\"]}\n";
    const B: &str = "{\"success\":true,\"info\":\"Request successful: x\",\"result\":[\"n2\"]}\n";

    #[test]
    fn classification_paths() {
        assert_eq!(classify(&res(0, A, ""), &res(0, A, "")), Outcome::Identical);
        assert_eq!(
            classify(&res(0, A, ""), &res(0, A_INFO, "")),
            Outcome::SameResult
        );
        assert_eq!(
            classify(&res(0, A, ""), &res(0, B, "")),
            Outcome::DifferentResult
        );
        assert_eq!(
            classify(&res(0, A, ""), &res(0, "garbage", "")),
            Outcome::DifferentResult
        );
        assert_eq!(
            classify(&res(1, "", "Error: x"), &res(1, "", "Error: y")),
            Outcome::BothRefused
        );
        assert_eq!(
            classify(&res(1, "", "Error"), &res(0, A, "")),
            Outcome::RefusalDiffers
        );
        assert_eq!(
            classify(&res(0, A, ""), &res(2, "", "")),
            Outcome::RefusalDiffers
        );
        let ni = res(
            3,
            "",
            "hailstone: request type 'allocate' is not implemented yet\n",
        );
        assert_eq!(classify(&res(0, A, ""), &ni), Outcome::NotImplemented);
        // Exit 3 without the message is an ordinary refusal.
        assert_eq!(
            classify(&res(0, A, ""), &res(3, "", "boom")),
            Outcome::RefusalDiffers
        );
        let mut t = res(0, "", "");
        t.status = RunStatus::TimedOut;
        assert_eq!(classify(&t, &res(0, A, "")), Outcome::HailTimeout);
        assert_eq!(classify(&res(0, A, ""), &t), Outcome::HailstoneTimeout);
        assert!(Outcome::SameResult.is_difference());
        assert!(Outcome::HailstoneTimeout.is_difference());
        assert!(!Outcome::BothRefused.is_difference());
        assert!(!Outcome::NotImplemented.is_difference());
        assert!(!Outcome::HailTimeout.is_difference());
    }

    #[test]
    fn allowlist_parsing() {
        let readme = "\
# hailstone

| `gen:not-this` | outside the section |

## Compatibility with hail

Some text.

| case | reason |
|------|--------|
| `sample:alloc-huge-int.json` | hail wraps the integer |
|`gen:allocate/*/s1234`| glob |
| plain text | ignored |
| `` | empty, ignored |

### Details
| `gen:relocate/drbd/n3/g1/s7` | still inside (level-3 heading) |

## Other section
| `gen:after` | outside again |
";
        let a = parse_allowlist(readme);
        assert_eq!(
            a,
            vec![
                "sample:alloc-huge-int.json".to_string(),
                "gen:allocate/*/s1234".to_string(),
                "gen:relocate/drbd/n3/g1/s7".to_string()
            ]
        );
        assert!(is_accepted(&a, "gen:allocate/drbd/n12/g2/s1234"));
        assert!(!is_accepted(&a, "gen:allocate/drbd/n12/g2/s12345"));
        assert!(is_accepted(&a, "sample:alloc-huge-int.json"));
        assert!(!is_accepted(&a, "gen:after"));
        assert!(!is_accepted(&a, "gen:not-this"));
    }

    #[test]
    fn globs() {
        assert!(glob_match("*", ""));
        assert!(glob_match("a*c", "abbbc"));
        assert!(glob_match("a*c", "ac"));
        assert!(!glob_match("a*c", "acb"));
        assert!(glob_match("gen:*/s1", "gen:x/y/s1"));
        assert!(glob_match("*s1*", "gen:allocate/drbd/n2/g1/s1"));
        assert!(!glob_match("gen:a", "gen:ab"));
    }

    #[test]
    fn kinds_of_requests() {
        assert_eq!(
            kind_of_request(br#"{"request":{"type":"allocate"}}"#),
            "allocate"
        );
        assert_eq!(
            kind_of_request(
                br#"{"request":{"type":"node-evacuate","evac_mode":"secondary-only"}}"#
            ),
            "node-evacuate-secondary-only"
        );
        assert_eq!(kind_of_request(b"not json"), "other");
        assert_eq!(
            kind_of_request(br#"{"request":{"type":"multi-evacuate"}}"#),
            "other"
        );
    }

    #[test]
    fn difference_window() {
        let a = "x".repeat(1000);
        let mut b = a.clone();
        b.replace_range(500..501, "y");
        let (wa, wb) = window(a.as_bytes(), b.as_bytes());
        assert!(wa.contains("first difference at byte 500"));
        assert!(wb.contains('y'));
        assert!(wa.len() < 400);
    }

    /// End-to-end through real processes, with shell scripts standing in for
    /// hail and hailstone.
    #[test]
    fn fake_binaries() {
        use std::os::unix::fs::PermissionsExt;
        let dir =
            std::env::temp_dir().join(format!("hailstone-compat-test.{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let script = |name: &str, body: &str| {
            let p = dir.join(name);
            std::fs::write(&p, format!("#!/bin/sh\n{}\n", body)).unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
            p
        };
        // The fake hail echoes its arguments, so argument passing is checked too.
        let hail = script("hail", "printf '{\"success\":true,\"info\":\"%s %s\",\"result\":[]}\\n' \"$(basename \"$1\")\" \"$2\"");
        let same = script("same", &format!("exec {} \"$@\"", hail.display()));
        let info = script(
            "info",
            "printf '{\"success\":true,\"info\":\"other\",\"result\":[]}\\n'",
        );
        let diff = script(
            "diff",
            "printf '{\"success\":false,\"info\":\"x\",\"result\":[]}\\n'",
        );
        let nimpl = script(
            "nimpl",
            "echo \"hailstone: request type 'allocate' is not implemented yet\" >&2; exit 3",
        );
        let refuse = script("refuse", "echo 'Error: no' >&2; exit 1");
        let slow = script("slow", "sleep 5");
        let cwd = script("cwd", "pwd; test -t 0 && echo tty; echo \"$LC_ALL\"");
        let input = dir.join("in.json");
        std::fs::write(&input, "{}").unwrap();
        let opts = vec!["--no-capacity-checks".to_string()];
        let t = Duration::from_secs(10);
        let h = run_binary(&hail, &input, &opts, t);
        assert_eq!(
            String::from_utf8_lossy(&h.stdout),
            "{\"success\":true,\"info\":\"in.json --no-capacity-checks\",\"result\":[]}\n"
        );
        assert_eq!(
            classify(&h, &run_binary(&same, &input, &opts, t)),
            Outcome::Identical
        );
        assert_eq!(
            classify(&h, &run_binary(&info, &input, &opts, t)),
            Outcome::SameResult
        );
        assert_eq!(
            classify(&h, &run_binary(&diff, &input, &opts, t)),
            Outcome::DifferentResult
        );
        assert_eq!(
            classify(&h, &run_binary(&nimpl, &input, &opts, t)),
            Outcome::NotImplemented
        );
        assert_eq!(
            classify(&h, &run_binary(&refuse, &input, &opts, t)),
            Outcome::RefusalDiffers
        );
        let r = run_binary(&refuse, &input, &opts, t);
        assert_eq!(classify(&r, &r), Outcome::BothRefused);
        let s = run_binary(&slow, &input, &opts, Duration::from_millis(300));
        assert_eq!(s.status, RunStatus::TimedOut);
        assert!(s.elapsed < Duration::from_secs(4));
        assert_eq!(classify(&s, &h), Outcome::HailTimeout);
        let w = run_binary(&cwd, &input, &opts, t);
        assert_eq!(String::from_utf8_lossy(&w.stdout), "/\nC.UTF-8\n");
        let missing = run_binary(&dir.join("nope"), &input, &opts, t);
        assert!(matches!(missing.status, RunStatus::SpawnError(_)));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn profiles() {
        let c = parse_args(&[]).unwrap();
        let specs = generated_specs(&c);
        assert_eq!(specs.len(), 60 * 8);
        assert!(specs.iter().all(|s| (2..=30).contains(&s.nodes)));
        let c = parse_args(&["--profile".into(), "full".into()]).unwrap();
        let specs = generated_specs(&c);
        assert_eq!(
            specs
                .iter()
                .filter(|s| s.kind == RequestKind::Allocate)
                .count(),
            500
        );
        assert_eq!(specs.len(), 500 + 7 * 300);
        let c = parse_args(&[
            "--kinds=relocate".into(),
            "--count".into(),
            "3".into(),
            "--nodes=5-6".into(),
        ])
        .unwrap();
        let specs = generated_specs(&c);
        assert_eq!(specs.len(), 3);
        assert!(specs
            .iter()
            .all(|s| s.kind == RequestKind::Relocate && (5..=6).contains(&s.nodes)));
        assert!(parse_args(&["--jobs".into(), "0".into()]).is_err());
        assert!(parse_args(&["--bogus".into()]).is_err());
        assert!(parse_args(&["--profile".into()]).is_err());
    }
}
