//! The squeeze suite (`--suite squeeze`): Ganeti's `hsqueeze` against
//! `hailstone-squeeze`, which must print the same bytes on stdout and
//! stderr, exit with the same status and write the same `-C FILE` script
//! and `-S FILE` files (`FILE.original`, `FILE.squeezed`).
//!
//! Four parts, each a list of runs made on the ordered pool:
//!
//! * `generated` — clusters from the request generator with externally
//!   mirrored and shared-file instances (some with rbd, drbd or plain ones
//!   mixed in), at low and high memory use, edited from a seed: a master,
//!   offline nodes with and without a standby tag, instances that do not
//!   auto-balance, other instance states. Two runs per cluster: verbose
//!   with `-C` and `-S`, then drawn reserve factors with a command script.
//! * `cli` — bad input and the help texts, on the first generated cluster.
//! * `shelltests` — every test of Ganeti's `htools-hsqueeze.test`, from the
//!   `ganeti-testsuite` package: a test must meet its expectations with both
//!   programs and give hsqueeze's bytes.
//! * `datafiles` — every `data/htools/*.data` file of the test suite with
//!   three option sets.
//!
//! Differences are accepted only by a `squeeze:<id glob>` pattern of the
//! accepted list (`docs/accepted-differences.txt`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use super::accepted::is_accepted;
use super::balance::clusters::{other_states, set_master};
use super::balance::datafile::{self, inst, node, DataFile};
use super::balance::shelltest::{self, ShellTest};
use super::balance::side::{self, Folders, Side};
use super::balance::testsuite;
use super::common::{Common, Profile, TestSuite};
use crate::cases::shell_quote;
use crate::generate::rng::Rng;
use crate::generate::{self, CaseSpec, DiskTemplate, RequestKind};
use crate::oracle;
use crate::process::{self, Status};

/// The squeeze suite's own options.
#[derive(clap::Args, Debug)]
pub(super) struct SqueezeOptions {
    /// hsqueeze.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "/usr/lib/ganeti/3.0/usr/bin/hsqueeze"
    )]
    pub(super) hsqueeze: PathBuf,
    /// The program compared.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "target/release/hailstone-squeeze"
    )]
    pub(super) squeeze_bin: PathBuf,
}

/// Generated clusters, node range and first seed of a profile.
fn corpus(c: &Common) -> (usize, (usize, usize), u64) {
    let (count, nodes, seed) = match c.profile {
        Profile::Full => (300, (4, 24), 3000),
        Profile::None => (0, (4, 12), 1),
        Profile::Ci | Profile::Exclusive => (110, (4, 12), 1),
    };
    (
        c.count.unwrap_or(count),
        c.nodes.unwrap_or(nodes),
        c.seed.unwrap_or(seed),
    )
}

/// The parts of the suite.
const PARTS: [&str; 4] = ["generated", "cli", "shelltests", "datafiles"];

/// One run of both programs: `{IN}` is the input folder, `{OUT}` each
/// program's output folder (and working directory).
struct RunSpec {
    id: String,
    part: &'static str,
    args: Vec<String>,
    files: Vec<(String, String)>,
}

/// One unit of work.
enum Work {
    Run(RunSpec),
    /// A shelltest (its file's line).
    Shell(ShellTest),
}

/// One comparison.
struct Compared {
    id: String,
    part: &'static str,
    command: String,
    differences: Vec<String>,
    accepted: bool,
    /// Expectations a shelltest misses: hsqueeze's, hailstone-squeeze's.
    misses: (Vec<String>, Vec<String>),
    error: Option<String>,
    walls: (Duration, Duration),
    /// hsqueeze's decision (its heading) and the moves it printed, for
    /// the report.
    outcome: Option<(&'static str, usize)>,
}

/// The decision and the number of instance commands in hsqueeze's output.
fn outcome(side: &Side) -> Option<(&'static str, usize)> {
    let text = String::from_utf8_lossy(&side.run.stdout);
    let what = if side.run.status != Status::Exited(0) {
        "error"
    } else if text.contains("'Nodes to offline'") {
        "offline"
    } else if text.contains("'Nodes to online'") {
        "online"
    } else if text.contains("'No action'") {
        "no action"
    } else {
        "no heading"
    };
    let script: usize = side
        .files
        .values()
        .map(|f| String::from_utf8_lossy(f).matches("gnt-instance ").count())
        .sum();
    Some((what, text.matches("gnt-instance ").count() + script))
}

impl Compared {
    fn unexplained(&self) -> bool {
        // An accepted difference may miss the shelltest's expectations
        // (a refusal where hsqueeze plans).
        self.error.is_some()
            || ((!self.misses.1.is_empty() || !self.differences.is_empty()) && !self.accepted)
    }
}

/// The instance templates of a generated cluster's shape.
fn shape(k: usize) -> (&'static str, Vec<(DiskTemplate, u32)>) {
    match k % 4 {
        0 => ("ext", vec![(DiskTemplate::Ext, 1)]),
        1 => ("sharedfile", vec![(DiskTemplate::Sharedfile, 1)]),
        2 => (
            "ext-mixed",
            vec![
                (DiskTemplate::Ext, 4),
                (DiskTemplate::Sharedfile, 2),
                (DiskTemplate::Rbd, 1),
                (DiskTemplate::Drbd, 1),
                (DiskTemplate::Plain, 1),
            ],
        ),
        _ => (
            "ext-rbd",
            vec![(DiskTemplate::Ext, 2), (DiskTemplate::Rbd, 1)],
        ),
    }
}

/// Generated cluster number `k`: its id and data file.
fn generate_cluster(
    k: usize,
    seed: u64,
    nodes: (usize, usize),
) -> Result<(String, DataFile), String> {
    let (name, templates) = shape(k);
    let lo = nodes.0.max(2);
    let mut spec = CaseSpec::random(seed, RequestKind::Allocate, lo..=nodes.1.max(lo));
    let n = spec.nodes;
    spec.instance_templates = templates;
    spec.groups = if k % 5 == 4 && n >= 4 { 2 } else { 1 };
    let high = (k / 4) % 2 == 1;
    let mut r = Rng::new(seed ^ 0x5e0e_e2e5 ^ (k as u64).wrapping_mul(0x9e37_79b9));
    if high {
        spec.instances_per_node = 3.0 + 3.0 * r.unit();
        spec.tightness = 0.6 + 0.35 * r.unit();
    } else {
        spec.instances_per_node = 0.5 + 1.5 * r.unit();
        spec.tightness = 0.1 + 0.3 * r.unit();
    }
    let f = &mut spec.features;
    f.exclusion_tags = k.is_multiple_of(6);
    f.location_tags = k % 6 == 1;
    f.desired_location = k % 10 == 2;
    f.migration_tags = k % 7 == 3;
    f.offline_nodes = false;
    let case = generate::generate(&spec);
    let text = hailstone::shell::datafile::from_request(
        case.request.as_bytes(),
        &hailstone::program::hail::options::LoadOptions::default(),
    )
    .map_err(|e| format!("generated cluster {} is not read back: {e}", case.id))?;
    let mut data = DataFile::parse(&text);
    if r.chance(0.7) {
        set_master(&mut data, &mut r);
    }
    // Offline nodes, most of them standby nodes; empty ones preferred.
    let standby = (r.below(4) as usize).min(n.saturating_sub(2));
    for _ in 0..standby {
        let online: Vec<usize> = (0..data.nodes().len())
            .filter(|&i| data.nodes()[i].get(node::FLAG).map(String::as_str) == Some("N"))
            .collect();
        let empty: Vec<usize> = online
            .iter()
            .copied()
            .filter(|&i| {
                let name = data.nodes()[i][node::NAME].clone();
                data.instances_on(&[name]).is_empty()
            })
            .collect();
        let pool = if !empty.is_empty() && r.chance(0.8) {
            empty
        } else {
            online
        };
        if pool.is_empty() {
            break;
        }
        let i = *r.pick(&pool);
        let line = &mut data.nodes_mut()[i];
        datafile::set(line, node::FLAG, "Y");
        if r.chance(0.8) {
            let kind = *r.pick(&["manual", "auto", ""]);
            let mut tags = line.get(node::TAGS).cloned().unwrap_or_default();
            if !tags.is_empty() {
                tags.push(',');
            }
            tags.push_str(&format!("htools:standby:{kind}"));
            datafile::set(line, node::TAGS, tags);
        }
    }
    if r.chance(0.2) {
        for i in data.instances_mut().iter_mut() {
            if r.chance(0.1) {
                datafile::set(i, inst::AUTO_BALANCE, "N");
            }
        }
    }
    if r.chance(0.3) {
        other_states(&mut data, &mut r);
    }
    let util = if high { "high" } else { "low" };
    Ok((format!("gen/{name}/{util}/n{n}/s{seed}"), data))
}

/// The two runs on a generated cluster.
fn generated_runs(k: usize, id: &str, data: &DataFile) -> Vec<RunSpec> {
    let mut r = Rng::new(0xc0ffee ^ (k as u64).wrapping_mul(0x2545_f491));
    let factor =
        |r: &mut Rng| (*r.pick(&["0", "0.5", "1", "2", "4", "8", "16", "32", "64"])).to_owned();
    let files = vec![("cluster.data".to_owned(), data.text())];
    let s = |x: &str| x.to_owned();
    // The minimum at most the target: hailstone-squeeze refuses a
    // minimum above it (the cli cases have one).
    let (a, b) = (factor(&mut r), factor(&mut r));
    let (minimal, target) = if a.parse::<f64>().unwrap_or(0.0) <= b.parse::<f64>().unwrap_or(0.0) {
        (a, b)
    } else {
        (b, a)
    };
    let mut second = vec![
        format!("--target-resources={target}"),
        format!("--minimal-resources={minimal}"),
        s("-C{OUT}/cmds.sh"),
        s("-t"),
        s("{IN}/cluster.data"),
    ];
    if r.chance(0.3) {
        second.insert(0, s("--no-headers"));
    }
    vec![
        RunSpec {
            id: format!("{id}#verbose"),
            part: "generated",
            args: vec![
                s("-v"),
                s("-C"),
                s("-S"),
                s("{OUT}/state"),
                s("-t"),
                s("{IN}/cluster.data"),
            ],
            files: files.clone(),
        },
        RunSpec {
            id: format!("{id}#factors"),
            part: "generated",
            args: second,
            files,
        },
    ]
}

/// Bad input and the help texts, on a generated cluster.
fn cli_runs(data: &DataFile) -> Vec<RunSpec> {
    let cases: &[(&str, &[&str])] = &[
        ("help", &["--help"]),
        ("version", &["--version"]),
        ("completion", &["--help-completion"]),
        ("unknown-option", &["--bogus", "-t", "{IN}/cluster.data"]),
        ("missing-value", &["-t"]),
        (
            "bad-factor",
            &["--target-resources=x", "-t", "{IN}/cluster.data"],
        ),
        (
            "leftover-factor",
            &["--minimal-resources=1.", "-t", "{IN}/cluster.data"],
        ),
        (
            "bad-int",
            &["--static-kvm-node-memory=1.5", "-t", "{IN}/cluster.data"],
        ),
        ("extra-argument", &["-t", "{IN}/cluster.data", "extra"]),
        ("no-backend", &[]),
        ("missing-file", &["-t", "{IN}/no-such.data"]),
        ("bad-file", &["-t", "{IN}/bad.data"]),
        ("empty-file", &["-t", "{IN}/empty.data"]),
        ("luxi", &["-L", "-t", "{IN}/cluster.data"]),
        ("exec", &["-X", "-t", "{IN}/cluster.data"]),
        (
            "save-bad-path",
            &["-S", "{OUT}/no/dir/x", "-t", "{IN}/cluster.data"],
        ),
        (
            "commands-bad-path",
            &["-C{OUT}/no/dir/x", "-t", "{IN}/cluster.data"],
        ),
        (
            "abbreviations",
            &["--targ=1", "--min=0.5", "--no-h", "-t", "{IN}/cluster.data"],
        ),
        (
            "nan-factor",
            &["--target-resources=NaN", "-t", "{IN}/cluster.data"],
        ),
        (
            "negative-factor",
            &["--target-resources=-1", "-v", "-t", "{IN}/cluster.data"],
        ),
        (
            "inverted-factors",
            &[
                "--minimal-resources=5",
                "--target-resources=1",
                "-t",
                "{IN}/cluster.data",
            ],
        ),
        (
            "request-and-data-file",
            &["-t", "{IN}/cluster.data", "-I", "{IN}/cluster.data"],
        ),
    ];
    let files = vec![
        ("cluster.data".to_owned(), data.text()),
        ("bad.data".to_owned(), "group|uuid\n\nnode1|x\n".to_owned()),
        ("empty.data".to_owned(), String::new()),
    ];
    cases
        .iter()
        .map(|(name, args)| RunSpec {
            id: format!("cli/{name}"),
            part: "cli",
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            files: files.clone(),
        })
        .collect()
}

/// The runs on Ganeti's data files.
fn datafile_runs(testdata: &Path) -> Result<Vec<RunSpec>, String> {
    let sets: [(&str, &[&str]); 3] = [
        ("verbose", &["-v", "-C", "-S", "{OUT}/state"]),
        (
            "reserve",
            &["-v", "-C", "--minimal-resources=4", "--target-resources=5"],
        ),
        (
            "zero",
            &[
                "--no-headers",
                "--target-resources=0",
                "--minimal-resources=0",
                "-C{OUT}/cmds.sh",
            ],
        ),
    ];
    Ok(testsuite::datafile_cases(testdata, &sets)?
        .into_iter()
        .map(|c| RunSpec {
            id: c.id,
            part: "datafiles",
            args: c.args,
            files: Vec::new(),
        })
        .collect())
}

/// What the workers share.
struct Shared<'a> {
    hsqueeze: PathBuf,
    squeeze: PathBuf,
    tmp: PathBuf,
    cap: Duration,
    allow: &'a [String],
    testdata: PathBuf,
}

const NAMES: (&str, &str) = ("hsqueeze", "hailstone-squeeze");

fn fail(msg: &str) -> ExitCode {
    eprintln!("hailstone-compat: {msg}");
    ExitCode::from(2)
}

/// Runs the suite.
pub(super) fn run_squeeze(
    c: &Common,
    b: &TestSuite,
    s: &SqueezeOptions,
    allow: &[String],
) -> ExitCode {
    let hsqueeze = oracle::absolute(&s.hsqueeze);
    let squeeze = oracle::absolute(&s.squeeze_bin);
    if let Err(e) =
        oracle::ensure_program(&hsqueeze, "hsqueeze", c.install_hail, "hailstone-compat")
    {
        return fail(&e);
    }
    if !oracle::is_executable(&squeeze) {
        return fail(&format!(
            "hailstone-squeeze binary {} not found or not executable (build it with 'cargo build --release' or pass --squeeze-bin PATH)",
            squeeze.display()
        ));
    }
    let started = Instant::now();
    let parts: Vec<&str> = b
        .parts
        .iter()
        .map(|p| p.name())
        .filter(|p| PARTS.contains(p))
        .collect();
    let wants = |p: &str| parts.contains(&p);
    let selected = |id: &str| {
        b.only
            .as_ref()
            .is_none_or(|g| super::accepted::glob_match(g, id))
    };
    let mut work: Vec<Work> = Vec::new();
    let (count, range, seed) = corpus(c);
    let mut first: Option<DataFile> = None;
    let made = if wants("generated") { count } else { 0 };
    let made = if wants("cli") { made.max(1) } else { made };
    for k in 0..made {
        let (id, data) = match generate_cluster(k, seed.wrapping_add(k as u64), range) {
            Ok(x) => x,
            Err(e) => return fail(&e),
        };
        if wants("generated") && k < count {
            work.extend(
                generated_runs(k, &id, &data)
                    .into_iter()
                    .filter(|r| selected(&r.id))
                    .map(Work::Run),
            );
        }
        if first.is_none() {
            first = Some(data);
        }
    }
    if wants("cli") {
        if let Some(d) = &first {
            work.extend(
                cli_runs(d)
                    .into_iter()
                    .filter(|r| selected(&r.id))
                    .map(Work::Run),
            );
        }
    }
    let mut testdata = PathBuf::new();
    if wants("shelltests") || wants("datafiles") {
        let cache = oracle::absolute(&b.testsuite_cache);
        let test_dir = match testsuite::resolve_test_dir(b.testsuite.as_deref(), &hsqueeze, &cache)
        {
            Ok(t) => t,
            Err(e) => return fail(&e),
        };
        testdata = test_dir.join("data/htools");
        if wants("shelltests") {
            let path = test_dir.join("hs/shelltests/htools-hsqueeze.test");
            let tests = match std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))
                .and_then(|t| shelltest::parse(&t))
            {
                Ok(t) => t,
                Err(e) => return fail(&e),
            };
            if tests.is_empty() {
                return fail(&format!("{} has no tests", path.display()));
            }
            work.extend(
                tests
                    .into_iter()
                    .filter(|t| selected(&format!("shelltest/htools-hsqueeze.test:{}", t.line)))
                    .map(Work::Shell),
            );
        }
        if wants("datafiles") {
            match datafile_runs(&testdata) {
                Ok(runs) => {
                    work.extend(runs.into_iter().filter(|r| selected(&r.id)).map(Work::Run))
                }
                Err(e) => return fail(&e),
            }
        }
    }
    if work.is_empty() {
        return fail("no runs selected");
    }
    let tmp = match process::temp_dir("hailstone-compat-squeeze") {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    let shared = Shared {
        hsqueeze: hsqueeze.clone(),
        squeeze,
        tmp: tmp.clone(),
        cap: c.cap(Duration::from_secs(120)),
        allow,
        testdata,
    };
    eprintln!(
        "hailstone-compat: squeeze suite, {} runs ({} generated clusters), cap {} s, {} jobs",
        work.len(),
        if wants("generated") { count } else { 0 },
        c.cap(Duration::from_secs(120)).as_secs_f64(),
        c.jobs
    );
    let mut results: Vec<Compared> = Vec::new();
    process::ordered_pool(
        &work,
        c.jobs,
        |_, worker, w| compare(w, &shared.tmp.join(format!("worker{worker}")), &shared),
        |_, r| {
            if c.verbose {
                let mark = if r.unexplained() {
                    "DIFF"
                } else if r.accepted {
                    "acc "
                } else {
                    "ok  "
                };
                println!("{mark} {}", r.id);
            }
            results.push(r);
        },
    );
    let _ = std::fs::remove_dir_all(&tmp);
    print!("{}", report(&results));
    let (h, q) = results.iter().fold((0.0, 0.0), |(a, b), r| {
        (a + r.walls.0.as_secs_f64(), b + r.walls.1.as_secs_f64())
    });
    eprintln!(
        "hailstone-compat: {} squeeze comparisons in {:.1} s wall time; hsqueeze {:.1} s, hailstone-squeeze {:.1} s (summed run times)",
        results.len(),
        started.elapsed().as_secs_f64(),
        h,
        q
    );
    if results.iter().any(|r| !r.misses.0.is_empty()) {
        println!(
            "\nERROR: the real hsqueeze ({}) fails some of Ganeti's own shelltests (listed above): the oracle environment is wrong",
            hsqueeze.display()
        );
        return ExitCode::from(2);
    }
    let unexplained = results.iter().filter(|r| r.unexplained()).count();
    if unexplained == 0 {
        println!("\nOK: no unexplained differences");
        ExitCode::SUCCESS
    } else {
        println!("\nFAILED: {unexplained} unexplained difference(s)");
        ExitCode::from(1)
    }
}

/// Runs one unit with both programs and compares them.
fn compare(w: &Work, base: &Path, sh: &Shared<'_>) -> Compared {
    let mut out = Compared {
        id: String::new(),
        part: "",
        command: String::new(),
        differences: Vec::new(),
        accepted: false,
        misses: (Vec::new(), Vec::new()),
        error: None,
        walls: (Duration::ZERO, Duration::ZERO),
        outcome: None,
    };
    let (hf, qf) = (
        Folders::new(base, "hsqueeze"),
        Folders::new(base, "squeeze"),
    );
    let result = match w {
        Work::Run(spec) => {
            out.id = spec.id.clone();
            out.part = spec.part;
            let mut parts = vec![shell_quote(&sh.hsqueeze.display().to_string())];
            parts.extend(spec.args.iter().map(|a| shell_quote(a)));
            out.command = parts.join(" ");
            side::run_pair(
                (&sh.hsqueeze, &sh.squeeze),
                &spec.args,
                &spec.files,
                base,
                (&hf, &qf),
                sh.cap,
            )
        }
        Work::Shell(test) => {
            out.id = format!("shelltest/htools-hsqueeze.test:{}", test.line);
            out.part = "shelltests";
            out.command = test.command.clone();
            shell_pair(test, sh, &hf, &qf).map(|(h, q)| {
                let check = |s: &Side| {
                    let status = match s.run.status {
                        Status::Exited(c) => c,
                        _ => -1,
                    };
                    test.check(
                        &String::from_utf8_lossy(&s.run.stdout),
                        &String::from_utf8_lossy(&s.run.stderr),
                        status,
                    )
                };
                out.misses = (check(&h), check(&q));
                (h, q)
            })
        }
    };
    match result {
        Ok((h, q)) => {
            out.walls = (h.run.wall, q.run.wall);
            out.outcome = outcome(&h);
            if h.run.status == Status::Capped {
                out.error = Some(format!("hsqueeze reached the cap ({} s)", sh.cap.as_secs()));
            } else if q.run.status == Status::Capped {
                out.error = Some(format!(
                    "hailstone-squeeze reached the cap ({} s)",
                    sh.cap.as_secs()
                ));
            } else {
                out.differences = side::differences_of(NAMES, &h, &hf.out, &q, &qf.out);
            }
        }
        Err(e) => out.error = Some(e),
    }
    out.accepted =
        !out.differences.is_empty() && is_accepted(sh.allow, &format!("squeeze:{}", out.id));
    out
}

/// Runs a shelltest's command with each program in its output folder.
fn shell_pair(
    test: &ShellTest,
    sh: &Shared<'_>,
    hf: &Folders,
    qf: &Folders,
) -> Result<(Side, Side), String> {
    let vars = [("TESTDATA_DIR", sh.testdata.display().to_string())];
    let run = |program: &Path, f: &Folders| -> Result<Side, String> {
        f.reset()?;
        let command = testsuite::expand_vars(&test.command, &vars).replace(
            "./test/hs/hsqueeze",
            &shell_quote(&program.display().to_string()),
        );
        let run = process::run(&process::Invocation {
            program: Path::new("/bin/sh"),
            args: vec!["-c".into(), command.into()],
            cwd: &f.out,
            cap: sh.cap,
            measure_rss: false,
            scratch: &f.scratch,
        });
        Ok(Side {
            files: side::read_files(&f.out),
            run,
        })
    };
    Ok((run(&sh.hsqueeze, hf)?, run(&sh.squeeze, qf)?))
}

/// The report: per part the runs, identical, accepted and unexplained
/// ones, then every unexplained difference.
fn report(results: &[Compared]) -> String {
    let mut s = format!(
        "{:<12} {:>6} {:>10} {:>9} {:>12}\n",
        "part", "runs", "identical", "accepted", "unexplained"
    );
    for part in PARTS {
        let rs: Vec<&Compared> = results.iter().filter(|r| r.part == part).collect();
        if rs.is_empty() {
            continue;
        }
        let identical = rs
            .iter()
            .filter(|r| r.differences.is_empty() && r.error.is_none())
            .count();
        let accepted = rs.iter().filter(|r| r.accepted).count();
        let unexplained = rs.iter().filter(|r| r.unexplained()).count();
        s.push_str(&format!(
            "{part:<12} {:>6} {identical:>10} {accepted:>9} {unexplained:>12}\n",
            rs.len()
        ));
        if part == "generated" {
            let count = |w: &str| {
                rs.iter()
                    .filter(|r| r.outcome.is_some_and(|o| o.0 == w))
                    .count()
            };
            let moves: usize = rs.iter().filter_map(|r| r.outcome.map(|o| o.1)).sum();
            s.push_str(&format!(
                "  hsqueeze's decisions: {} offline, {} online, {} no action, {} with --no-headers, {} errors; {moves} instance commands\n",
                count("offline"),
                count("online"),
                count("no action"),
                count("no heading"),
                count("error")
            ));
        }
        if part == "shelltests" {
            let pass =
                |f: fn(&Compared) -> &Vec<String>| rs.iter().filter(|r| f(r).is_empty()).count();
            s.push_str(&format!(
                "  shelltests passing their own expectations: hsqueeze {}/{}, hailstone-squeeze {}/{}\n",
                pass(|r| &r.misses.0),
                rs.len(),
                pass(|r| &r.misses.1),
                rs.len()
            ));
        }
    }
    for r in results
        .iter()
        .filter(|r| r.unexplained() || !r.misses.0.is_empty())
    {
        s.push_str(&format!("\nDIFF {}\n  {}\n", r.id, r.command));
        if let Some(e) = &r.error {
            s.push_str(&format!("  error: {e}\n"));
        }
        for m in &r.misses.0 {
            s.push_str(&format!("  hsqueeze misses: {m}\n"));
        }
        for m in &r.misses.1 {
            s.push_str(&format!("  hailstone-squeeze misses: {m}\n"));
        }
        for d in &r.differences {
            s.push_str(&format!("  {d}\n"));
        }
    }
    s
}
