//! `hailstone-bench`: times hailstone against Ganeti's `hail` on generated
//! clusters of growing size and prints one comparison table (`make bench`).
//!
//! For every request mode (allocate drbd, allocate plain, multi-allocate of 10
//! mostly DRBD instances, relocate, node-evacuate `all`, change-group) and every
//! cluster size (20 to 2,000 nodes by default) the tool generates one request
//! with `hailstone_devtools::generate` (two node groups, five instances per node, every
//! feature switch off, existing instances all DRBD unless `--mix` says
//! otherwise), writes it to a temporary directory and runs both binaries on it
//! the way Ganeti's node daemon does: `BINARY INPUT OPTIONS...`, working
//! directory `/`, stdin closed, `LC_ALL=C.UTF-8`. Runs are sequential, never
//! concurrent, and hail and hailstone runs alternate so that background noise
//! on a shared machine hits both alike.
//!
//! Case choice is deterministic: seeds `--seed`, `--seed + 1`, ... are tried
//! until the request has the intended shape (node-evacuate: every instance of
//! one node, at least five; change-group: one instance) and hailstone's first
//! (warm-up) answer is a success, since a speed benchmark should time real
//! placements. The chosen case ids are printed under the table.
//!
//! Why all-DRBD clusters by default: hail's global N+1 capacity check
//! re-creates every plain instance of every node elsewhere for each candidate
//! it checks, so with plain instances in the cluster hail takes over a minute
//! for a DRBD allocation on 100 nodes; `--mix typical` measures exactly that.
//!
//! Reading the table:
//!
//! * `hail s` and `hailstone s` are the median wall-clock times of the runs
//!   (`--runs`, default 3; hail runs once when its first run takes over 5 s).
//!   A run still going at the cap (`--hail-cap`, default 60 s) is killed and
//!   shown as `> 60`; once a binary hits the cap for a mode, the larger
//!   clusters of that mode are not run with it at all (also shown as `> 60`).
//! * `ratio` is hail time / hailstone time, the figure that matters: absolute
//!   times depend on the machine, the ratio much less. `> N×` means hail was
//!   capped, so the real ratio is larger.
//! * `hailstone peak RSS (MB)` is hailstone's peak resident set size,
//!   measured by one extra (untimed, warm-up) run under GNU time
//!   (`/usr/bin/time`, Debian package `time`); `n/a` when GNU time is
//!   missing.
//! * `same answer` is `yes` when both binaries exited with the same status and
//!   wrote byte-identical answers (the last run of each is compared), `no`
//!   otherwise, `n/a` when either did not finish. Any `no` (or a hailstone
//!   crash) makes the tool exit with status 1 after the table: a speed-up
//!   that changes an answer is a bug. A hailstone run that hits the cap is
//!   shown as `> 60` with a note, like hail's.
//!
//! Notes under the table list the cases whose answer is not a success (a speed
//! benchmark should time real placements), every mismatch with the first 300
//! characters of both answers, and cases whose generated request does not
//! have the intended shape. Progress goes to stderr as each case runs.

use hailstone_devtools::oracle;

use hailstone_devtools::toolargs;

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hailstone_devtools::generate::{self, Case, CaseSpec, DiskTemplate, EvacMode, RequestKind};

const HELP: &str = "\
hailstone-bench: time hailstone against Ganeti's hail on generated clusters

USAGE:
  hailstone-bench [--hail PATH] [--hailstone PATH] [--sizes LIST]
                  [--modes LIST] [--runs N] [--hail-cap SECONDS]
                  [--hail-runs N] [--mix MIX] [--seed S] [--keep DIR]
                  [--install-hail] [--markdown]
  hailstone-bench --help

CASES:
  One generated request per mode and cluster size: 2 node groups, 5 instances
  per node, a roomy cluster with every generator feature switch off and fixed
  seeds (the same inputs on every run and machine).
  --sizes LIST       cluster sizes in nodes, comma-separated, each >= 4
                     (default 20,100,400,1000,2000)
  --modes LIST       comma-separated, default all of:
                       allocate-drbd       allocate one DRBD instance
                       allocate-plain      allocate one plain instance
                       multi-allocate      multi-allocate 10 instances, mostly
                                           DRBD (the generator makes about 1
                                           in 5 plain, diskless or rbd)
                       relocate            relocate a DRBD instance (new
                                           secondary)
                       node-evacuate-all   node-evacuate, mode all, every
                                           instance of one node (>= 5)
                       change-group        change-group of one instance
  --mix MIX          templates of the existing instances:
                       drbd        all DRBD (the default)
                       drbd-heavy  4 DRBD : 1 plain
                       typical     the generator's usual DRBD/plain cluster
                                   with a few rbd/ext/file/diskless (hail's
                                   N+1 check is very slow on plain instances)
  --seed S           first seed (default 1); seeds S, S+1, ... are tried
                     until the request has the intended shape and
                     hailstone's answer is a success

RUNNING:
  --hail PATH        hail binary (default /usr/lib/ganeti/iallocators/hail)
  --hailstone PATH   hailstone binary (default target/release/hailstone)
  --runs N           timed runs per binary and case; the median is shown
                     (default 3)
  --hail-runs N      timed hail runs per case (default: 1 when the first hail
                     run takes over 5 s, else the --runs value)
  --hail-cap SECONDS kill a run after this long (default 60), hail's or
                     hailstone's; it is then shown as '> SECONDS', and that
                     binary is not run on larger clusters of the same mode
  --install-hail     if hail is missing, run
                     'apt-get update && apt-get install -y ganeti-htools'
                     (needs root)
  --keep DIR         write the requests and both answers to DIR (created if
                     missing) and keep them; otherwise a temporary directory
                     is used and removed at the end

OUTPUT:
  The machine (CPUs, model, memory), the date and the versions, then one table
  (mode | nodes | hail s | hailstone s | ratio | hailstone peak RSS (MB) |
  same answer), then notes and the case ids. Times are medians of wall-clock
  seconds; ratio is hail / hailstone ('> N×' when hail hit the cap); the RSS
  is hailstone's peak resident memory from one extra run under GNU time
  (/usr/bin/time, Debian package 'time'); 'same answer' compares exit status
  and answer bytes. Progress lines go to stderr.
  --markdown         print the table as Markdown (for the README) instead of
                     aligned plain text

EXIT STATUS: 0 no answer differs, 1 an answer differs or hailstone crashed
             or could not run, 2 usage or setup error (e.g. hail missing).
";

const DEFAULT_HAIL: &str = "/usr/lib/ganeti/iallocators/hail";
const DEFAULT_HAILSTONE: &str = "target/release/hailstone";
const GNU_TIME: &str = "/usr/bin/time";
const DEFAULT_SIZES: [usize; 5] = [20, 100, 400, 1000, 2000];

/// Number of node groups of every generated cluster.
const GROUPS: usize = 2;
/// Average instances per node of every generated cluster.
const INSTANCES_PER_NODE: f64 = 5.0;
/// Number of instances of a multi-allocate request.
const MULTI_COUNT: usize = 10;
/// A hail run slower than this is not repeated (unless `--hail-runs` says so).
const SLOW_HAIL: Duration = Duration::from_secs(5);
/// How many consecutive seeds to try for a request of the intended shape.
const SEED_TRIES: u64 = 64;
/// How many requests of the intended shape to try for a successful answer.
const SUCCESS_TRIES: usize = 8;
/// Characters of each answer shown for a mismatch.
const SHOW_CHARS: usize = 300;

// ---------------------------------------------------------------------------
// Modes and configuration.
// ---------------------------------------------------------------------------

/// One benchmarked request mode (a row group of the table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Mode {
    AllocateDrbd,
    AllocatePlain,
    MultiAllocate,
    Relocate,
    NodeEvacuateAll,
    ChangeGroup,
}

impl Mode {
    /// Every mode, in table order.
    const ALL: [Mode; 6] = [
        Mode::AllocateDrbd,
        Mode::AllocatePlain,
        Mode::MultiAllocate,
        Mode::Relocate,
        Mode::NodeEvacuateAll,
        Mode::ChangeGroup,
    ];

    /// The command-line and table name of the mode.
    fn name(self) -> &'static str {
        match self {
            Mode::AllocateDrbd => "allocate-drbd",
            Mode::AllocatePlain => "allocate-plain",
            Mode::MultiAllocate => "multi-allocate",
            Mode::Relocate => "relocate",
            Mode::NodeEvacuateAll => "node-evacuate-all",
            Mode::ChangeGroup => "change-group",
        }
    }

    /// Parses a mode name.
    fn parse(s: &str) -> Option<Mode> {
        Mode::ALL.iter().copied().find(|m| m.name() == s)
    }

    /// The generator's request kind for this mode.
    fn kind(self) -> RequestKind {
        match self {
            Mode::AllocateDrbd | Mode::AllocatePlain => RequestKind::Allocate,
            Mode::MultiAllocate => RequestKind::MultiAllocate,
            Mode::Relocate => RequestKind::Relocate,
            Mode::NodeEvacuateAll => RequestKind::NodeEvacuate(EvacMode::All),
            Mode::ChangeGroup => RequestKind::ChangeGroup,
        }
    }
}

/// The disk templates of the existing instances (`--mix`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mix {
    /// Every instance DRBD.
    Drbd,
    /// Four DRBD instances to one plain.
    DrbdHeavy,
    /// The generator's default mix (mostly DRBD and plain, a few others).
    Typical,
}

impl Mix {
    /// The command-line name.
    fn name(self) -> &'static str {
        match self {
            Mix::Drbd => "drbd",
            Mix::DrbdHeavy => "drbd-heavy",
            Mix::Typical => "typical",
        }
    }

    /// Parses a mix name.
    fn parse(s: &str) -> Option<Mix> {
        [Mix::Drbd, Mix::DrbdHeavy, Mix::Typical]
            .into_iter()
            .find(|m| m.name() == s)
    }

    /// The generator's `instance_templates` (empty: its default mix).
    fn templates(self) -> Vec<(DiskTemplate, u32)> {
        match self {
            Mix::Drbd => vec![(DiskTemplate::Drbd, 1)],
            Mix::DrbdHeavy => vec![(DiskTemplate::Drbd, 4), (DiskTemplate::Plain, 1)],
            Mix::Typical => Vec::new(),
        }
    }

    /// A description for the report header.
    fn describe(self) -> &'static str {
        match self {
            Mix::Drbd => "all existing instances DRBD",
            Mix::DrbdHeavy => "existing instances 4 DRBD : 1 plain",
            Mix::Typical => "the generator's typical DRBD/plain instance mix",
        }
    }
}

/// The parsed command line.
#[derive(Debug)]
struct Config {
    hail: PathBuf,
    hailstone: PathBuf,
    sizes: Vec<usize>,
    modes: Vec<Mode>,
    runs: usize,
    hail_cap: Duration,
    hail_runs: Option<usize>,
    mix: Mix,
    seed: u64,
    keep: Option<PathBuf>,
    install_hail: bool,
    markdown: bool,
}

/// Parses a positive integer option value.
fn parse_count(name: &str, v: &str) -> Result<usize, String> {
    match v.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{} wants a positive integer, not '{}'", name, v)),
    }
}

/// Parses the command line (without the program name). `Ok(None)` means
/// `--help` was asked for.
fn parse_args(args: &[String]) -> Result<Option<Config>, String> {
    let mut c = Config {
        hail: PathBuf::from(DEFAULT_HAIL),
        hailstone: PathBuf::from(DEFAULT_HAILSTONE),
        sizes: DEFAULT_SIZES.to_vec(),
        modes: Mode::ALL.to_vec(),
        runs: 3,
        hail_cap: Duration::from_secs(60),
        hail_runs: None,
        mix: Mix::Drbd,
        seed: 1,
        keep: None,
        install_hail: false,
        markdown: false,
    };
    let takes_value = |name: &str| {
        matches!(
            name,
            "--hail"
                | "--hailstone"
                | "--sizes"
                | "--modes"
                | "--runs"
                | "--hail-cap"
                | "--hail-runs"
                | "--mix"
                | "--seed"
                | "--keep"
        )
    };
    let mut words = toolargs::Args::new(args);
    while let Some(arg) = words.next(takes_value) {
        let toolargs::Arg { name, value } = arg?;
        let value = match (name, value) {
            ("-h" | "--help", _) => return Ok(None),
            ("--install-hail", _) => {
                c.install_hail = true;
                continue;
            }
            ("--markdown", _) => {
                c.markdown = true;
                continue;
            }
            (_, Some(value)) => value,
            (other, None) => return Err(format!("unknown option '{}'", other)),
        };
        match name {
            "--hail" => c.hail = PathBuf::from(value),
            "--hailstone" => c.hailstone = PathBuf::from(value),
            "--sizes" => {
                let mut sizes = Vec::new();
                for part in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    match part.replace('_', "").parse::<usize>() {
                        Ok(n) if (4..=100_000).contains(&n) => sizes.push(n),
                        _ => {
                            return Err(format!(
                                "--sizes: '{}' is not a cluster size between 4 and 100000 nodes",
                                part
                            ))
                        }
                    }
                }
                if sizes.is_empty() {
                    return Err("--sizes: empty list".to_string());
                }
                sizes.sort_unstable();
                sizes.dedup();
                c.sizes = sizes;
            }
            "--modes" => {
                let mut modes = Vec::new();
                for part in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    if part == "all" {
                        modes.extend(Mode::ALL);
                        continue;
                    }
                    match Mode::parse(part) {
                        Some(m) => modes.push(m),
                        None => {
                            return Err(format!(
                                "--modes: unknown mode '{}' (known: all, {})",
                                part,
                                Mode::ALL
                                    .iter()
                                    .map(|m| m.name())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ))
                        }
                    }
                }
                if modes.is_empty() {
                    return Err("--modes: empty list".to_string());
                }
                modes.sort_unstable();
                modes.dedup();
                c.modes = modes;
            }
            "--runs" => c.runs = parse_count(name, &value)?,
            "--hail-runs" => c.hail_runs = Some(parse_count(name, &value)?),
            "--hail-cap" => match value.trim().parse::<f64>() {
                Ok(s) if s.is_finite() && s > 0.0 && s <= 1e6 => {
                    c.hail_cap = Duration::from_secs_f64(s)
                }
                _ => {
                    return Err(format!(
                        "--hail-cap wants a positive number of seconds, not '{}'",
                        value
                    ))
                }
            },
            "--seed" => {
                c.seed = value
                    .trim()
                    .parse::<u64>()
                    .map_err(|_| format!("--seed wants an unsigned integer, not '{}'", value))?
            }
            "--keep" => c.keep = Some(PathBuf::from(value)),
            "--mix" => {
                c.mix = Mix::parse(value.trim()).ok_or_else(|| {
                    format!(
                        "--mix: unknown mix '{}' (known: drbd, drbd-heavy, typical)",
                        value
                    )
                })?
            }
            _ => return Err(format!("unknown option '{}'", name)),
        }
    }
    Ok(Some(c))
}

// ---------------------------------------------------------------------------
// Case generation.
// ---------------------------------------------------------------------------

/// The generator spec of a mode, size, seed and instance mix: the
/// generator's plain roomy cluster (`CaseSpec::new`, every feature switch
/// off, no hail options) with two groups and five instances per node.
fn spec_for(mode: Mode, nodes: usize, seed: u64, mix: Mix) -> CaseSpec {
    let mut spec = CaseSpec::new(seed, mode.kind(), nodes);
    spec.groups = GROUPS;
    spec.instances_per_node = INSTANCES_PER_NODE;
    spec.instance_templates = mix.templates();
    match mode {
        Mode::AllocateDrbd | Mode::Relocate => spec.template = Some(DiskTemplate::Drbd),
        Mode::AllocatePlain => spec.template = Some(DiskTemplate::Plain),
        Mode::MultiAllocate => {
            spec.template = Some(DiskTemplate::Drbd);
            spec.multi_count = MULTI_COUNT;
        }
        // The instances to move come from the mix.
        Mode::NodeEvacuateAll | Mode::ChangeGroup => {}
    }
    spec
}

/// The strings of a JSON list (empty when it is not a list).
fn str_list(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The instance names listed in a request's `request.instances`.
fn request_instances(req: &serde_json::Value) -> Vec<String> {
    str_list(&req["request"]["instances"])
}

/// Whether a generated request has the shape the mode wants. The generator
/// draws the instance list of node-evacuate and change-group requests from the
/// seed, so the bench tries consecutive seeds until one fits:
///
/// * node-evacuate: every instance that uses one node (a real node
///   evacuation), at least [`INSTANCES_PER_NODE`] of them;
/// * change-group: exactly one instance and at least one target group;
/// * every other mode: any request.
fn has_wanted_shape(mode: Mode, case: &Case) -> bool {
    if !matches!(mode, Mode::NodeEvacuateAll | Mode::ChangeGroup) {
        return true;
    }
    let v: serde_json::Value = match serde_json::from_str(&case.request) {
        Ok(v) => v,
        Err(_) => return false,
    };
    let names = request_instances(&v);
    match mode {
        Mode::ChangeGroup => {
            let targets = v["request"]["target_groups"]
                .as_array()
                .map(|a| a.len())
                .unwrap_or(0);
            names.len() == 1 && targets > 0
        }
        _ => {
            if (names.len() as f64) < INSTANCES_PER_NODE {
                return false;
            }
            let nodes_of = |name: &str| str_list(&v["instances"][name]["nodes"]);
            // The nodes every listed instance uses.
            let (first, rest) = match names.split_first() {
                Some(x) => x,
                None => return false,
            };
            let mut common = nodes_of(first);
            for n in rest {
                let ns = nodes_of(n);
                common.retain(|x| ns.contains(x));
            }
            let all = match v["instances"].as_object() {
                Some(o) => o,
                None => return false,
            };
            common.iter().any(|node| {
                let using = all
                    .values()
                    .filter(|i| {
                        i["nodes"]
                            .as_array()
                            .map(|a| a.iter().any(|x| x.as_str() == Some(node)))
                            .unwrap_or(false)
                    })
                    .count();
                using == names.len()
            })
        }
    }
}

/// A short description of a request's size for progress lines (instances in
/// the cluster and in the request).
fn describe_request(case: &Case) -> String {
    let v: serde_json::Value = match serde_json::from_str(&case.request) {
        Ok(v) => v,
        Err(e) => return format!("unparsable request: {}", e),
    };
    let insts = v["instances"].as_object().map(|o| o.len()).unwrap_or(0);
    let listed = request_instances(&v).len();
    let mut s = format!(
        "{} instances, {:.1} MB request",
        insts,
        case.request.len() as f64 / 1e6
    );
    if listed > 0 {
        s.push_str(&format!(", {} in the request", listed));
    }
    s
}

// ---------------------------------------------------------------------------
// Running a binary.
// ---------------------------------------------------------------------------

/// How one run ended.
#[derive(Clone, Debug, PartialEq)]
enum Status {
    /// Exited with this code.
    Exited(i32),
    /// Killed by a signal not sent by the bench.
    Signalled,
    /// Killed by the bench at the cap.
    Capped,
    /// Could not be started.
    SpawnError(String),
}

/// The result of one run.
#[derive(Debug)]
struct Run {
    status: Status,
    wall: Duration,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    /// Peak RSS in KiB (runs under GNU time only).
    rss_kib: Option<u64>,
}

impl Run {
    fn describe(&self) -> String {
        match &self.status {
            Status::Exited(c) => format!("exit {}", c),
            Status::Signalled => "killed by a signal".to_string(),
            Status::Capped => "stopped at the cap".to_string(),
            Status::SpawnError(e) => format!("could not start: {}", e),
        }
    }
}

/// The pids of all descendants of `pid`, read from `/proc/PID/task/*/children`.
fn descendants(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut stack = vec![pid];
    while let Some(p) = stack.pop() {
        let tasks = match std::fs::read_dir(format!("/proc/{}/task", p)) {
            Ok(t) => t,
            Err(_) => continue,
        };
        for t in tasks.flatten() {
            let text = std::fs::read_to_string(t.path().join("children")).unwrap_or_default();
            for c in text
                .split_whitespace()
                .filter_map(|x| x.parse::<u32>().ok())
            {
                if !out.contains(&c) {
                    out.push(c);
                    stack.push(c);
                }
            }
        }
    }
    out
}

/// Kills `pid` and its descendants (the program under GNU time) with SIGKILL,
/// by process id.
fn kill_tree(pid: u32) {
    let mut pids = descendants(pid);
    pids.push(pid);
    let r = Command::new("kill")
        .arg("-KILL")
        .args(pids.iter().map(|p| p.to_string()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if let Err(e) = r {
        eprintln!(
            "hailstone-bench: warning: cannot run 'kill' to stop process {}: {}",
            pid, e
        );
    }
}

/// Runs `bin INPUT OPTIONS...` like ganeti-noded (cwd `/`, stdin closed,
/// `LC_ALL=C.UTF-8`), with stdout and stderr going to files in `scratch`,
/// and kills it after `cap`. With `gnu_time`, the run goes through
/// `/usr/bin/time -f %M` to measure the peak RSS.
fn run_once(
    bin: &Path,
    input: &Path,
    opts: &[String],
    cap: Duration,
    scratch: &Path,
    gnu_time: bool,
) -> Run {
    let out_path = scratch.join("run.stdout");
    let err_path = scratch.join("run.stderr");
    let time_path = scratch.join("run.time");
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
                "cannot create output files in {}: {}",
                scratch.display(),
                e
            ))
        }
    };
    let mut cmd = if gnu_time {
        let mut c = Command::new(GNU_TIME);
        c.arg("-f").arg("%M").arg("-o").arg(&time_path).arg(bin);
        c
    } else {
        Command::new(bin)
    };
    cmd.arg(input)
        .args(opts)
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::from(out_f))
        .stderr(Stdio::from(err_f))
        .env("LC_ALL", "C.UTF-8");
    let start = Instant::now();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return spawn_error(e.to_string()),
    };
    // A watchdog thread kills the run at the cap, so that this thread can wait
    // for the child directly and take the end time the moment it exits. The
    // pid cannot be reused before `wait` below reaps the child.
    let pid = child.id();
    let capped = Arc::new(AtomicBool::new(false));
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let watchdog = {
        let capped = Arc::clone(&capped);
        std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = done_rx.recv_timeout(cap) {
                capped.store(true, Ordering::SeqCst);
                kill_tree(pid);
            }
        })
    };
    let waited: std::io::Result<ExitStatus> = child.wait();
    let wall = start.elapsed();
    let _ = done_tx.send(());
    let _ = watchdog.join();
    let status = match waited {
        Err(e) => Status::SpawnError(format!("wait failed: {}", e)),
        Ok(_) if capped.load(Ordering::SeqCst) => Status::Capped,
        Ok(st) => match st.code() {
            // GNU time exits with 128 + N when the program died of signal N.
            Some(c) if gnu_time && c > 128 => Status::Signalled,
            Some(c) => Status::Exited(c),
            None => Status::Signalled,
        },
    };
    let rss_kib = if gnu_time {
        // GNU time may put "Command exited with non-zero status N" before the value.
        std::fs::read_to_string(&time_path)
            .ok()
            .and_then(|t| t.lines().rev().find_map(|l| l.trim().parse::<u64>().ok()))
    } else {
        None
    };
    Run {
        status,
        wall,
        stdout: std::fs::read(&out_path).unwrap_or_default(),
        stderr: std::fs::read(&err_path).unwrap_or_default(),
        rss_kib,
    }
}

/// The median of some durations, in seconds (`None` for no values).
fn median(xs: &[Duration]) -> Option<f64> {
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

// ---------------------------------------------------------------------------
// One case.
// ---------------------------------------------------------------------------

/// What hail's column shows.
#[derive(Clone, Debug, PartialEq)]
enum HailTime {
    /// Median seconds over this many runs.
    Median(f64, usize),
    /// Hail hit the cap.
    Capped,
    /// Not run: hail hit the cap on a smaller cluster of the same mode.
    Skipped,
    /// Hail could not run (or died of a signal).
    Failed(String),
}

/// What hailstone's column shows.
#[derive(Clone, Debug, PartialEq)]
enum StoneTime {
    /// Median seconds over this many runs.
    Median(f64, usize),
    /// Hailstone hit the cap.
    Capped,
    /// Not run: hailstone hit the cap on a smaller cluster of the same mode.
    Skipped,
    /// Hailstone could not run (or died of a signal).
    Failed(String),
}

/// Whether the answers agree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Same {
    Yes,
    No,
    NotApplicable,
}

/// One table row.
#[derive(Debug)]
struct Row {
    mode: Mode,
    nodes: usize,
    case_id: String,
    hail: HailTime,
    stone: StoneTime,
    rss_kib: Option<u64>,
    same: Same,
    /// Notes about this case (printed under the table).
    notes: Vec<String>,
}

/// Settings shared by all cases.
struct Bench<'a> {
    cfg: &'a Config,
    /// Directory of the requests (and, with `--keep`, the answers).
    dir: PathBuf,
    /// Directory for the per-run output files.
    scratch: PathBuf,
    /// Whether GNU time is available for the RSS measurement.
    gnu_time: bool,
}

/// `id` with `/` replaced by `_`, for file names.
fn file_stem(id: &str) -> String {
    id.replace('/', "_")
}

/// The first `n` characters of an answer, lossily decoded, on one line.
fn head(bytes: &[u8], n: usize) -> String {
    let s = String::from_utf8_lossy(bytes);
    let t: String = s.chars().take(n).collect();
    let t = t.replace('\n', "\\n");
    if s.chars().count() > n {
        format!("{}...", t)
    } else {
        t
    }
}

/// The `success` and `info` of an answer, if it is one.
fn answer_success(bytes: &[u8]) -> Option<(bool, String)> {
    let v: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let ok = v["success"].as_bool()?;
    Some((ok, v["info"].as_str().unwrap_or("").to_string()))
}

/// The case chosen for a mode and size.
struct Chosen {
    /// The generator's case id.
    id: String,
    /// The hail options of the case.
    options: Vec<String>,
    /// The request file.
    input: PathBuf,
    /// Hailstone's warm-up run under GNU time (`None` when hailstone is skipped).
    warm: Option<Run>,
    /// Notes about the choice.
    notes: Vec<String>,
}

impl Bench<'_> {
    /// Writes a request to the request directory; returns its path.
    fn write_request(&self, case: &Case) -> Result<PathBuf, String> {
        let input = self.dir.join(format!("{}.json", file_stem(&case.id)));
        std::fs::write(&input, case.request.as_bytes())
            .map_err(|e| format!("cannot write the request {}: {}", input.display(), e))?;
        Ok(input)
    }

    /// Hailstone's warm-up run on a request, under GNU time for the peak RSS.
    fn warm_up(&self, input: &Path, opts: &[String]) -> Run {
        run_once(
            &self.cfg.hailstone,
            input,
            opts,
            self.cfg.hail_cap,
            &self.scratch,
            self.gnu_time,
        )
    }

    /// Chooses the case of a mode and size: the first of the seeds `--seed`,
    /// `--seed + 1`, ... whose request has the intended shape (see
    /// [`has_wanted_shape`]) and gets a successful answer from hailstone's
    /// warm-up run (an answer that is not a success moves on to the next
    /// seed, at most [`SUCCESS_TRIES`] times; no answer at all, e.g. at the
    /// cap, is accepted). Without such a seed among [`SEED_TRIES`], the case
    /// of `--seed` is used, with a note.
    fn choose_case(
        &self,
        mode: Mode,
        nodes: usize,
        skip_stone: bool,
        progress: &str,
    ) -> Result<Chosen, String> {
        let cfg = self.cfg;
        let mut failures = 0usize;
        for k in 0..SEED_TRIES {
            let t0 = Instant::now();
            let case =
                generate::generate(&spec_for(mode, nodes, cfg.seed.wrapping_add(k), cfg.mix));
            if !has_wanted_shape(mode, &case) {
                continue;
            }
            eprintln!(
                "{} {} {}: generated {} ({}) in {:.1} s",
                progress,
                mode.name(),
                nodes,
                case.id,
                describe_request(&case),
                t0.elapsed().as_secs_f64()
            );
            let input = self.write_request(&case)?;
            if skip_stone {
                return Ok(Chosen {
                    id: case.id,
                    options: case.options,
                    input,
                    warm: None,
                    notes: Vec::new(),
                });
            }
            let warm = self.warm_up(&input, &case.options);
            let success = answer_success(&warm.stdout).map(|(ok, _)| ok);
            if success == Some(false) && failures + 1 < SUCCESS_TRIES {
                failures += 1;
                eprintln!(
                    "{}   hailstone's answer is not a success; trying the next seed",
                    progress
                );
                let _ = std::fs::remove_file(&input);
                continue;
            }
            return Ok(Chosen {
                id: case.id,
                options: case.options,
                input,
                warm: Some(warm),
                notes: Vec::new(),
            });
        }
        let case = generate::generate(&spec_for(mode, nodes, cfg.seed, cfg.mix));
        let note = format!(
            "{} {}: no seed in {}..={} gives a request of the intended shape with a successful answer; timed {} as generated",
            mode.name(),
            nodes,
            cfg.seed,
            cfg.seed.wrapping_add(SEED_TRIES - 1),
            case.id
        );
        eprintln!("{} {}", progress, note);
        let input = self.write_request(&case)?;
        let warm = if skip_stone {
            None
        } else {
            Some(self.warm_up(&input, &case.options))
        };
        Ok(Chosen {
            id: case.id,
            options: case.options,
            input,
            warm,
            notes: vec![note],
        })
    }

    /// Generates, writes and times one case. `skip_hail` (`skip_stone`) is
    /// true when hail (hailstone) already hit the cap on a smaller cluster of
    /// this mode.
    fn run_case(
        &self,
        mode: Mode,
        nodes: usize,
        skip_hail: bool,
        skip_stone: bool,
        progress: &str,
    ) -> Result<Row, String> {
        let cfg = self.cfg;
        let Chosen {
            id,
            options: opts,
            input,
            warm,
            mut notes,
        } = self.choose_case(mode, nodes, skip_stone, progress)?;

        // The warm-up run gives the peak RSS; a warm-up that does not finish
        // ends hailstone's part of the case.
        let rss_kib = warm.as_ref().and_then(|w| w.rss_kib);
        let mut stone_bad: Option<StoneTime> = match warm.as_ref().map(|w| &w.status) {
            None => Some(StoneTime::Skipped),
            Some(Status::Capped) => Some(StoneTime::Capped),
            Some(Status::SpawnError(_)) | Some(Status::Signalled) => Some(StoneTime::Failed(
                warm.as_ref().map(Run::describe).unwrap_or_default(),
            )),
            Some(Status::Exited(_)) => None,
        };
        let mut stone_runs: Vec<Duration> = Vec::new();
        let mut stone_last: Option<Run> = None;

        // Timed runs, hail and hailstone alternating.
        let mut hail_runs: Vec<Duration> = Vec::new();
        let mut hail_last: Option<Run> = None;
        let mut hail_bad: Option<HailTime> = if skip_hail {
            Some(HailTime::Skipped)
        } else {
            None
        };
        let mut hail_planned = cfg.hail_runs.unwrap_or(cfg.runs);
        let mut i = 0;
        loop {
            let stone_more = stone_bad.is_none() && i < cfg.runs;
            let hail_more = hail_bad.is_none() && i < hail_planned;
            if !stone_more && !hail_more {
                break;
            }
            if stone_more {
                let r = run_once(
                    &cfg.hailstone,
                    &input,
                    &opts,
                    cfg.hail_cap,
                    &self.scratch,
                    false,
                );
                match r.status {
                    Status::Capped => stone_bad = Some(StoneTime::Capped),
                    Status::SpawnError(_) | Status::Signalled => {
                        stone_bad = Some(StoneTime::Failed(r.describe()))
                    }
                    Status::Exited(_) => stone_runs.push(r.wall),
                }
                stone_last = Some(r);
            }
            if hail_more {
                let r = run_once(&cfg.hail, &input, &opts, cfg.hail_cap, &self.scratch, false);
                match r.status {
                    Status::Capped => hail_bad = Some(HailTime::Capped),
                    Status::SpawnError(_) | Status::Signalled => {
                        hail_bad = Some(HailTime::Failed(r.describe()))
                    }
                    Status::Exited(_) => {
                        // A slow hail runs once unless --hail-runs asks for more.
                        if i == 0 && cfg.hail_runs.is_none() && r.wall > SLOW_HAIL {
                            hail_planned = 1;
                        }
                        hail_runs.push(r.wall);
                    }
                }
                eprintln!(
                    "{}   hail run {}: {:.3} s ({})",
                    progress,
                    i + 1,
                    r.wall.as_secs_f64(),
                    r.describe()
                );
                hail_last = Some(r);
            }
            i += 1;
        }

        let stone = match stone_bad {
            Some(b) => b,
            None => match median(&stone_runs) {
                Some(m) => StoneTime::Median(m, stone_runs.len()),
                None => StoneTime::Failed("no run".to_string()),
            },
        };
        let hail = match hail_bad {
            Some(b) => b,
            None => match median(&hail_runs) {
                Some(m) => HailTime::Median(m, hail_runs.len()),
                None => HailTime::Failed("no run".to_string()),
            },
        };

        // Compare the last answers. A hailstone crash next to a finished hail
        // counts as a different answer.
        let same = match (&hail, &hail_last, &stone_last) {
            (HailTime::Median(..), Some(h), Some(s))
                if matches!(stone, StoneTime::Median(..) | StoneTime::Failed(_)) =>
            {
                if h.status == s.status && h.stdout == s.stdout {
                    Same::Yes
                } else {
                    Same::No
                }
            }
            _ => Same::NotApplicable,
        };
        let label = format!("{} {}", mode.name(), nodes);
        if let Some(s) = stone_last.as_ref().or(warm.as_ref()) {
            match answer_success(&s.stdout) {
                Some((true, _)) => {}
                Some((false, info)) => notes.push(format!(
                    "{}: hailstone's answer is not a success: {}",
                    label,
                    head(info.as_bytes(), SHOW_CHARS)
                )),
                None if s.status == Status::Capped => {}
                None => notes.push(format!(
                    "{}: hailstone wrote no answer ({}); stderr: {}",
                    label,
                    s.describe(),
                    head(&s.stderr, SHOW_CHARS)
                )),
            }
        }
        if same == Same::No {
            if let (Some(h), Some(s)) = (&hail_last, &stone_last) {
                notes.push(format!(
                    "{}: ANSWERS DIFFER ({}; hail {}, hailstone {})\n    hail:      {}\n    hailstone: {}",
                    label,
                    id,
                    h.describe(),
                    s.describe(),
                    head(&h.stdout, SHOW_CHARS),
                    head(&s.stdout, SHOW_CHARS)
                ));
            }
        }
        if let HailTime::Failed(why) = &hail {
            notes.push(format!("{}: hail failed: {}", label, why));
        }
        if let StoneTime::Failed(why) = &stone {
            notes.push(format!("{}: hailstone failed: {}", label, why));
        }
        if stone == StoneTime::Capped {
            notes.push(format!(
                "{}: HAILSTONE HIT THE CAP ({} s)",
                label,
                cap_text(cfg.hail_cap).trim_start_matches("> ")
            ));
        }

        // Keep the answers next to the request when asked to.
        if cfg.keep.is_some() {
            let stem = file_stem(&id);
            for (who, run) in [("hail", &hail_last), ("hailstone", &stone_last)] {
                if let Some(r) = run {
                    let p = self.dir.join(format!("{}.{}.out", stem, who));
                    if let Err(e) = std::fs::write(&p, &r.stdout) {
                        eprintln!(
                            "hailstone-bench: warning: cannot write {}: {}",
                            p.display(),
                            e
                        );
                    }
                }
            }
            if !opts.is_empty() {
                let p = self.dir.join(format!("{}.args", stem));
                if let Err(e) = std::fs::write(&p, opts.join("\n") + "\n") {
                    eprintln!(
                        "hailstone-bench: warning: cannot write {}: {}",
                        p.display(),
                        e
                    );
                }
            }
        } else {
            let _ = std::fs::remove_file(&input);
        }

        let row = Row {
            mode,
            nodes,
            case_id: id,
            hail,
            stone,
            rss_kib,
            same,
            notes,
        };
        eprintln!(
            "{} {}: hail {} s, hailstone {} s, ratio {}, peak RSS (MB) {}, same answer {}",
            progress,
            label,
            hail_cell(&row.hail, cfg.hail_cap),
            stone_cell(&row.stone, cfg.hail_cap),
            ratio_cell(&row, cfg.hail_cap),
            rss_cell(row.rss_kib),
            same_cell(row.same)
        );
        Ok(row)
    }
}

// ---------------------------------------------------------------------------
// Formatting.
// ---------------------------------------------------------------------------

/// Seconds with about three significant digits.
fn secs(t: f64) -> String {
    if t >= 100.0 {
        format!("{:.0}", t)
    } else if t >= 10.0 {
        format!("{:.1}", t)
    } else if t >= 1.0 {
        format!("{:.2}", t)
    } else if t >= 0.01 {
        format!("{:.3}", t)
    } else {
        format!("{:.4}", t)
    }
}

/// The text of a capped time, `> 60` for a 60-second cap.
fn cap_text(cap: Duration) -> String {
    let c = cap.as_secs_f64();
    if c.fract() == 0.0 {
        format!("> {}", c)
    } else {
        format!("> {}", secs(c))
    }
}

fn hail_cell(h: &HailTime, cap: Duration) -> String {
    match h {
        HailTime::Median(t, _) => secs(*t),
        HailTime::Capped | HailTime::Skipped => cap_text(cap),
        HailTime::Failed(_) => "failed".to_string(),
    }
}

fn stone_cell(s: &StoneTime, cap: Duration) -> String {
    match s {
        StoneTime::Median(t, _) => secs(*t),
        StoneTime::Capped | StoneTime::Skipped => cap_text(cap),
        StoneTime::Failed(_) => "failed".to_string(),
    }
}

/// A ratio with two or three significant digits.
fn ratio_text(r: f64) -> String {
    if r >= 100.0 {
        format!("{:.0}", r)
    } else if r >= 10.0 {
        format!("{:.1}", r)
    } else {
        format!("{:.2}", r)
    }
}

fn ratio_cell(row: &Row, cap: Duration) -> String {
    let stone = match row.stone {
        StoneTime::Median(t, _) if t > 0.0 => t,
        _ => return "n/a".to_string(),
    };
    match row.hail {
        HailTime::Median(h, _) => format!("{}×", ratio_text(h / stone)),
        HailTime::Capped | HailTime::Skipped => {
            format!("> {}×", ratio_text(cap.as_secs_f64() / stone))
        }
        HailTime::Failed(_) => "n/a".to_string(),
    }
}

fn rss_cell(kib: Option<u64>) -> String {
    match kib {
        Some(k) => format!("{:.1}", k as f64 / 1024.0),
        None => "n/a".to_string(),
    }
}

fn same_cell(s: Same) -> &'static str {
    match s {
        Same::Yes => "yes",
        Same::No => "no",
        Same::NotApplicable => "n/a",
    }
}

const HEADERS: [&str; 7] = [
    "mode",
    "nodes",
    "hail s",
    "hailstone s",
    "ratio",
    "hailstone peak RSS (MB)",
    "same answer",
];
/// Whether each column is right-aligned (numbers) or left-aligned (text).
const RIGHT: [bool; 7] = [false, true, true, true, true, true, false];

/// The cells of the table, one row per case.
fn cells(rows: &[Row], cap: Duration) -> Vec<[String; 7]> {
    rows.iter()
        .map(|r| {
            [
                r.mode.name().to_string(),
                r.nodes.to_string(),
                hail_cell(&r.hail, cap),
                stone_cell(&r.stone, cap),
                ratio_cell(r, cap),
                rss_cell(r.rss_kib),
                same_cell(r.same).to_string(),
            ]
        })
        .collect()
}

/// The table as aligned plain text.
fn plain_table(rows: &[Row], cap: Duration) -> String {
    let body = cells(rows, cap);
    let mut width: [usize; 7] = HEADERS.map(|h| h.chars().count());
    for r in &body {
        for (w, c) in width.iter_mut().zip(r.iter()) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cols: &[String]| -> String {
        let mut s = String::new();
        for (k, c) in cols.iter().enumerate() {
            let pad = " ".repeat(width[k].saturating_sub(c.chars().count()));
            if k > 0 {
                s.push_str("  ");
            }
            if RIGHT[k] {
                s.push_str(&pad);
                s.push_str(c);
            } else {
                s.push_str(c);
                if k + 1 < cols.len() {
                    s.push_str(&pad);
                }
            }
        }
        s.push('\n');
        s
    };
    let mut out = line(&HEADERS.map(str::to_string));
    out.push_str(&line(&width.map(|w| "-".repeat(w))));
    for r in &body {
        out.push_str(&line(r));
    }
    out
}

/// The table as Markdown.
fn markdown_table(rows: &[Row], cap: Duration) -> String {
    let mut out = format!("| {} |\n", HEADERS.join(" | "));
    let seps: Vec<&str> = RIGHT
        .iter()
        .map(|&r| if r { "---:" } else { "---" })
        .collect();
    out.push_str(&format!("|{}|\n", seps.join("|")));
    for r in cells(rows, cap) {
        out.push_str(&format!("| {} |\n", r.join(" | ")));
    }
    out
}

// ---------------------------------------------------------------------------
// The machine and the date.
// ---------------------------------------------------------------------------

/// "N CPUs, model, M GiB RAM" from std and /proc.
fn machine() -> String {
    let cpus = std::thread::available_parallelism()
        .map(|n| n.get().to_string())
        .unwrap_or_else(|_| "?".to_string());
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown CPU model".to_string());
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let mem = meminfo
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|k| k.parse::<u64>().ok())
        .map(|k| format!(", {:.1} GiB RAM", k as f64 / 1024.0 / 1024.0))
        .unwrap_or_default();
    format!("{} CPUs (nproc), {}{}", cpus, model, mem)
}

/// The civil date (year, month, day) of a day count since 1970-01-01
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + if month <= 2 { 1 } else { 0 };
    (year, month, day)
}

/// The current UTC date and time, `YYYY-MM-DD HH:MM UTC`.
fn now_utc() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0) as i64;
    let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02} UTC",
        year,
        month,
        day,
        rem / 3600,
        rem % 3600 / 60
    )
}

/// The first line of `bin --version`, or a placeholder.
fn version(bin: &Path) -> String {
    Command::new(bin)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .map(str::to_string)
        })
        .filter(|l| !l.trim().is_empty())
        .unwrap_or_else(|| "version unknown".to_string())
}

// ---------------------------------------------------------------------------
// Setup and main.
// ---------------------------------------------------------------------------

/// A fresh, uniquely named directory under the system temporary directory.
fn make_temp_dir() -> Result<PathBuf, String> {
    let base = std::env::temp_dir();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    for k in 0..100u32 {
        let p = base.join(format!(
            "hailstone-bench-{}-{}-{}",
            std::process::id(),
            nanos,
            k
        ));
        match std::fs::create_dir(&p) {
            Ok(()) => return Ok(p),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(format!(
                    "cannot create a temporary directory in {}: {}",
                    base.display(),
                    e
                ))
            }
        }
    }
    Err(format!(
        "cannot create a temporary directory in {}",
        base.display()
    ))
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("hailstone-bench: {}", msg);
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut cfg = match parse_args(&args) {
        Ok(Some(c)) => c,
        Ok(None) => {
            print!("{}", HELP);
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("hailstone-bench: {}", e);
            eprintln!("Try 'hailstone-bench --help'.");
            return ExitCode::from(2);
        }
    };
    cfg.hail = oracle::absolute(&cfg.hail);
    cfg.hailstone = oracle::absolute(&cfg.hailstone);
    if let Err(e) = oracle::ensure_hail(&cfg.hail, cfg.install_hail, "hailstone-bench") {
        return fail(&e);
    }
    if !oracle::is_executable(&cfg.hailstone) {
        return fail(&format!(
            "hailstone binary {} not found or not executable (build it with 'cargo build --release' or pass --hailstone PATH)",
            cfg.hailstone.display()
        ));
    }
    let gnu_time = oracle::is_executable(Path::new(GNU_TIME));
    if !gnu_time {
        eprintln!(
            "hailstone-bench: note: {} (GNU time) not found, so no peak RSS; install it with 'apt-get install time'",
            GNU_TIME
        );
    }

    // The directory of the requests: --keep DIR, or a temporary one.
    let (dir, temporary) = match &cfg.keep {
        Some(k) => {
            if let Err(e) = std::fs::create_dir_all(k) {
                return fail(&format!("cannot create {}: {}", k.display(), e));
            }
            (oracle::absolute(k), false)
        }
        None => match make_temp_dir() {
            Ok(d) => (d, true),
            Err(e) => return fail(&e),
        },
    };
    let scratch = if temporary {
        dir.clone()
    } else {
        match make_temp_dir() {
            Ok(d) => d,
            Err(e) => return fail(&e),
        }
    };

    let hail_version = version(&cfg.hail);
    let stone_version = version(&cfg.hailstone);
    let started = now_utc();
    let bench = Bench {
        cfg: &cfg,
        dir: dir.clone(),
        scratch: scratch.clone(),
        gnu_time,
    };

    // Run size by size, so that the quick small clusters come first; the
    // table is ordered by mode.
    let total = cfg.sizes.len() * cfg.modes.len();
    let mut rows: Vec<Row> = Vec::new();
    // The smallest size at which each binary hit the cap, per mode.
    let mut hail_capped_at: BTreeMap<Mode, usize> = BTreeMap::new();
    let mut stone_capped_at: BTreeMap<Mode, usize> = BTreeMap::new();
    let mut error: Option<String> = None;
    let t_all = Instant::now();
    'outer: for &nodes in &cfg.sizes {
        for &mode in &cfg.modes {
            let progress = format!("[{}/{}]", rows.len() + 1, total);
            let skip_hail = hail_capped_at
                .get(&mode)
                .map(|&n| n < nodes)
                .unwrap_or(false);
            let skip_stone = stone_capped_at
                .get(&mode)
                .map(|&n| n < nodes)
                .unwrap_or(false);
            match bench.run_case(mode, nodes, skip_hail, skip_stone, &progress) {
                Ok(row) => {
                    if row.hail == HailTime::Capped {
                        hail_capped_at.entry(mode).or_insert(nodes);
                    }
                    if row.stone == StoneTime::Capped {
                        stone_capped_at.entry(mode).or_insert(nodes);
                    }
                    rows.push(row);
                }
                Err(e) => {
                    error = Some(e);
                    break 'outer;
                }
            }
        }
    }
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    if let Some(e) = error {
        return fail(&e);
    }
    rows.sort_by_key(|r| (r.mode, r.nodes));

    // The report.
    let runs_text = match cfg.hail_runs {
        Some(h) => format!("median of {} runs (hail: {})", cfg.runs, h),
        None => format!(
            "median of {} runs (hail: 1 run when over {} s)",
            cfg.runs,
            SLOW_HAIL.as_secs()
        ),
    };
    println!("hailstone-bench: {} vs {}", stone_version, hail_version);
    println!("machine: {}", machine());
    println!(
        "date: {} (took {:.0} s)",
        started,
        t_all.elapsed().as_secs_f64()
    );
    println!(
        "cases: {} node groups, {} instances per node, {}, first seed {}",
        GROUPS,
        INSTANCES_PER_NODE,
        cfg.mix.describe(),
        cfg.seed
    );
    println!(
        "timing: wall clock, {}; cap {} s; ratio = hail / hailstone",
        runs_text,
        cap_text(cfg.hail_cap).trim_start_matches("> ")
    );
    println!();
    if cfg.markdown {
        print!("{}", markdown_table(&rows, cfg.hail_cap));
    } else {
        print!("{}", plain_table(&rows, cfg.hail_cap));
    }
    let mut notes: Vec<String> = Vec::new();
    for r in &rows {
        if r.hail == HailTime::Skipped {
            notes.push(format!(
                "{} {}: hail not run, it exceeded the cap on {} nodes",
                r.mode.name(),
                r.nodes,
                hail_capped_at.get(&r.mode).copied().unwrap_or(0)
            ));
        }
        if r.stone == StoneTime::Skipped {
            notes.push(format!(
                "{} {}: hailstone not run, it exceeded the cap on {} nodes",
                r.mode.name(),
                r.nodes,
                stone_capped_at.get(&r.mode).copied().unwrap_or(0)
            ));
        }
        notes.extend(r.notes.iter().cloned());
    }
    if !notes.is_empty() {
        println!();
        println!("notes:");
        for n in &notes {
            println!("  - {}", n);
        }
    }
    println!();
    println!("case ids:");
    for r in &rows {
        println!("  {} {}: {}", r.mode.name(), r.nodes, r.case_id);
    }
    if !temporary {
        println!("requests and answers kept in {}", dir.display());
    }

    let bad = rows
        .iter()
        .any(|r| r.same == Same::No || matches!(r.stone, StoneTime::Failed(_)));
    if bad {
        eprintln!("hailstone-bench: FAILED: an answer differs or hailstone failed (see the notes)");
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

// ---------------------------------------------------------------------------
// Tests.
// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn parses_options() {
        let c = parse_args(&args(
            "--sizes 100,20,20 --modes relocate,allocate-drbd --runs=5 --hail-cap 2.5 --seed 9",
        ))
        .unwrap()
        .unwrap();
        assert_eq!(c.sizes, vec![20, 100]);
        assert_eq!(c.modes, vec![Mode::AllocateDrbd, Mode::Relocate]);
        assert_eq!(c.runs, 5);
        assert_eq!(c.hail_cap, Duration::from_millis(2500));
        assert_eq!(c.seed, 9);
        assert!(parse_args(&args("--help")).unwrap().is_none());
        assert_eq!(c.mix, Mix::Drbd);
        assert_eq!(
            parse_args(&args("--mix=typical")).unwrap().unwrap().mix,
            Mix::Typical
        );
        for bad in [
            "--runs 0",
            "--sizes 2",
            "--modes bogus",
            "--hail-cap -1",
            "--frob",
            "--runs",
            "--markdown=1",
            "--mix x",
        ] {
            assert!(parse_args(&args(bad)).is_err(), "{}", bad);
        }
    }

    #[test]
    fn medians() {
        let d = |ms: u64| Duration::from_millis(ms);
        assert_eq!(median(&[d(3000), d(1000), d(2000)]), Some(2.0));
        assert_eq!(median(&[d(1000), d(2000)]), Some(1.5));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(now_utc().len(), "2024-01-01 00:00 UTC".len());
    }

    #[test]
    fn specs_and_shapes() {
        for mix in [Mix::Drbd, Mix::DrbdHeavy, Mix::Typical] {
            for m in Mode::ALL {
                // Some seed among the first few gives the intended shape.
                let found = (1..=SEED_TRIES)
                    .map(|seed| generate::generate(&spec_for(m, 20, seed, mix)))
                    .find(|c| has_wanted_shape(m, c));
                let case = found.expect("a case of the wanted shape");
                assert_eq!(case.kind, m.kind());
                assert!(case.options.is_empty());
                let v: serde_json::Value = serde_json::from_str(&case.request).unwrap();
                assert_eq!(v["nodegroups"].as_object().unwrap().len(), GROUPS);
                assert_eq!(v["nodes"].as_object().unwrap().len(), 20);
                if m == Mode::ChangeGroup {
                    assert_eq!(request_instances(&v).len(), 1);
                }
                if m == Mode::NodeEvacuateAll {
                    assert!(request_instances(&v).len() >= 5);
                }
                if mix == Mix::Drbd {
                    for i in v["instances"].as_object().unwrap().values() {
                        assert_eq!(i["disk_template"], "drbd");
                    }
                }
            }
        }
    }

    #[test]
    fn formatting() {
        assert_eq!(secs(0.00123), "0.0012");
        assert_eq!(secs(0.19), "0.190");
        assert_eq!(secs(3.912), "3.91");
        assert_eq!(secs(22.04), "22.0");
        assert_eq!(cap_text(Duration::from_secs(60)), "> 60");
        assert_eq!(cap_text(Duration::from_millis(2500)), "> 2.50");
    }
}
