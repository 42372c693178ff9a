//! The balance suite (`--suite balance`): Ganeti's `hbal` against
//! `hailstone-balance`, which must print the same bytes on stdout and
//! stderr, exit with the same status and write the same `-C FILE` script
//! and `-S FILE` files (`FILE.original`, `FILE.balanced`).
//!
//! Four parts, each a list of runs made on the ordered pool:
//!
//! * `generated` — clusters from the request generator written as data
//!   files and edited from a seed ([`clusters`]): six template shapes,
//!   exclusion, location, desired-location and migration tags, offline
//!   nodes, a master, several groups (one run per group with `-G`),
//!   auto-balance off, every instance state, piled-up primaries. Each run
//!   takes one balancing option family and one output family in turn
//!   ([`clusters::ALGORITHM_FAMILIES`], [`clusters::OUTPUT_FAMILIES`]).
//! * `cli` — bad input (unknown option, missing file, bad values, unknown
//!   group, node or instance, unwritable outputs, an empty cluster) and the
//!   help texts, on the first generated cluster.
//! * `shelltests` — every test of Ganeti's `hs/shelltests/*.test` that runs
//!   hbal (and the `cat`/`diff` checks of the files they leave), from the
//!   `ganeti-testsuite` package ([`testsuite`]): each file's tests run in
//!   order with each program in a fresh copy of the fixtures; a test must
//!   meet its file's expectations and give hbal's bytes. Tests of features
//!   hailstone-balance deliberately lacks (RAPI, Luxi, `-X`, MonD) are
//!   listed apart. The real hbal must pass every test; when it does not,
//!   the environment is wrong and the tool says so (exit status 2).
//! * `datafiles` — every `data/htools/*.data` file of the test suite and the
//!   shelltest fixtures, every group, with a few option sets.
//!
//! Each program writes into a folder of its own; that folder's path is
//! written `{OUT}` in both outputs before they are compared. A run that
//! reaches the cap (`--timeout`) is reported apart when hbal reached it,
//! and is a difference when only hailstone-balance did. Differences are
//! accepted only by a `balance:<id glob>` pattern of the accepted list
//! (`docs/accepted-differences.txt`).

pub(super) mod clusters;
pub(super) mod datafile;
mod posix;
pub(super) mod shelltest;
pub(super) mod side;
#[cfg(test)]
mod tests;
pub(super) mod testsuite;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use super::accepted::{glob_match, is_accepted};
use super::common::{Common, Part, Profile, TestSuite};
use crate::cases::shell_quote;
use crate::oracle;
use crate::process::{self, Status};
use clusters::{Cluster, RunSpec};
use side::{Folders, Side};

/// The parts of the suite.
/// The balance suite's own options.
#[derive(clap::Args, Debug)]
pub(super) struct BalanceOptions {
    /// hbal (--install-hail installs ganeti-htools if missing; the groups
    /// suite's judge of a balanced group too).
    #[arg(long, value_name = "PATH", default_value = DEFAULT_HBAL)]
    pub(super) hbal: PathBuf,
    /// The program compared with hbal (pass hbal itself to check the
    /// harness: everything must be identical).
    #[arg(long, value_name = "PATH", default_value = DEFAULT_BALANCE)]
    pub(super) balance_bin: PathBuf,
}

pub(super) const DEFAULT_HBAL: &str = "/usr/lib/ganeti/3.0/usr/bin/hbal";
pub(super) const DEFAULT_BALANCE: &str = "target/release/hailstone-balance";

/// Generated clusters, node range and first seed of a profile.
fn corpus(c: &Common) -> (usize, (usize, usize), u64) {
    let (count, nodes, seed) = match c.profile {
        Profile::Full => (220, (5, 60), 1000),
        Profile::None => (0, (5, 20), 1),
        Profile::Ci | Profile::Exclusive => (60, (5, 20), 1),
    };
    (
        c.count.unwrap_or(count),
        c.nodes.unwrap_or(nodes),
        c.seed.unwrap_or(seed),
    )
}

/// How a comparison ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    Identical,
    Different,
    /// hbal reached the cap (not a difference).
    HbalCapped,
    /// hailstone-balance reached the cap and hbal did not (a difference).
    BalanceCapped,
    /// The run could not be made.
    Error(String),
}

/// A shelltest's own result.
pub(super) struct ShellResult {
    /// The expectations hailstone-balance misses.
    pub(super) balance_misses: Vec<String>,
    /// The expectations hbal misses (an environment problem).
    pub(super) hbal_misses: Vec<String>,
    /// The feature hailstone-balance lacks that the test uses.
    pub(super) lacking: Option<&'static str>,
}

/// One comparison.
pub(super) struct Compared {
    pub(super) id: String,
    pub(super) part: Part,
    pub(super) families: Vec<String>,
    /// hbal's command line (placeholders as run, `{IN}`/`{OUT}` or `$T`).
    pub(super) command: String,
    pub(super) verdict: Verdict,
    pub(super) differences: Vec<String>,
    pub(super) accepted: bool,
    pub(super) shell: Option<ShellResult>,
    pub(super) walls: (Duration, Duration),
    /// hbal's solution length, when it printed one.
    pub(super) moves: Option<usize>,
}

/// The `Solution length=N` of hbal's stdout.
fn solution_length(stdout: &[u8]) -> Option<usize> {
    let text = String::from_utf8_lossy(stdout);
    text.lines()
        .find_map(|l| l.strip_prefix("Solution length="))
        .and_then(|n| n.trim().parse().ok())
}

impl Compared {
    /// Whether the comparison fails the run.
    fn unexplained(&self) -> bool {
        if self.accepted {
            return false;
        }
        if let Some(s) = &self.shell {
            if s.lacking.is_some() {
                return false;
            }
            if !s.balance_misses.is_empty() {
                return true;
            }
        }
        matches!(
            self.verdict,
            Verdict::Different | Verdict::BalanceCapped | Verdict::Error(_)
        )
    }
}

/// One unit of work on the pool.
enum Work {
    /// A run on input files written to the worker's input folder.
    Run {
        part: Part,
        spec: RunSpec,
        files: Vec<(String, String)>,
    },
    /// A shelltest file.
    Shell(usize),
}

/// Everything the workers share.
struct Shared<'a> {
    hbal: PathBuf,
    balance: PathBuf,
    tmp: PathBuf,
    cap: Duration,
    allow: &'a [String],
    keep: Option<PathBuf>,
    test_files: Vec<testsuite::TestFile>,
    fixtures: PathBuf,
    testdata: PathBuf,
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("hailstone-compat: {msg}");
    ExitCode::from(2)
}

/// The command line of `program` with `args`, for the report.
fn command_line(program: &Path, args: &[String]) -> String {
    let mut parts = vec![shell_quote(&program.display().to_string())];
    parts.extend(args.iter().map(|a| shell_quote(a)));
    parts.join(" ")
}

/// Runs the suite.
pub(super) fn run_balance(
    c: &Common,
    t: &TestSuite,
    b: &BalanceOptions,
    allow: &[String],
) -> ExitCode {
    let hbal = oracle::absolute(&b.hbal);
    let balance = oracle::absolute(&b.balance_bin);
    if let Err(e) = oracle::ensure_program(&hbal, "hbal", c.install_hail, "hailstone-compat") {
        return fail(&e);
    }
    if !oracle::is_executable(&balance) {
        return fail(&format!(
            "hailstone-balance binary {} not found or not executable (build it with 'cargo build --release' or pass --balance-bin PATH)",
            balance.display()
        ));
    }
    let cap = c.cap(if c.profile == Profile::Full {
        Duration::from_secs(600)
    } else {
        Duration::from_secs(120)
    });
    let tmp = match process::temp_dir("hailstone-compat-balance") {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    let code = run_in(c, t, allow, hbal, balance, cap, &tmp);
    let _ = std::fs::remove_dir_all(&tmp);
    code
}

#[allow(clippy::too_many_arguments)]
fn run_in(
    c: &Common,
    b: &TestSuite,
    allow: &[String],
    hbal: PathBuf,
    balance: PathBuf,
    cap: Duration,
    tmp: &Path,
) -> ExitCode {
    let started = Instant::now();
    let wants = |p: Part| b.parts.contains(&p);
    let selected = |id: &str| b.only.as_ref().is_none_or(|g| glob_match(g, id));
    let mut work: Vec<Work> = Vec::new();

    // The generated clusters (the first one also carries the cli cases).
    let (count, (lo, hi), seed) = corpus(c);
    let mut clusters: Vec<Cluster> = Vec::new();
    if wants(Part::Generated) || wants(Part::Cli) {
        let made = if wants(Part::Generated) { count } else { 0 };
        let made = if wants(Part::Cli) { made.max(1) } else { made };
        for k in 0..made {
            match clusters::generate_cluster(k, seed.wrapping_add(k as u64), lo..=hi) {
                Ok(cl) => clusters.push(cl),
                Err(e) => return fail(&e),
            }
        }
    }
    let mut n = 0usize;
    let mut shapes: BTreeMap<String, usize> = BTreeMap::new();
    let mut edits: BTreeMap<&str, usize> = BTreeMap::new();
    if wants(Part::Generated) {
        for cl in clusters.iter().take(count) {
            let shape = cl.id.split('/').nth(1).unwrap_or("").to_owned();
            *shapes.entry(shape).or_default() += 1;
            for e in &cl.edits {
                *edits.entry(e).or_default() += 1;
            }
            let groups = cl.data.groups_with_nodes();
            for g in &groups {
                let spec = clusters::run_spec(n, cl, g, groups.len() > 1);
                n += 1;
                if !selected(&spec.id) {
                    continue;
                }
                let mut files = vec![("cluster.data".to_owned(), cl.data.text())];
                if let Some(d) = &spec.dynu {
                    files.push(("dynu".to_owned(), d.clone()));
                }
                work.push(Work::Run {
                    part: Part::Generated,
                    spec,
                    files,
                });
            }
        }
    }
    if wants(Part::Cli) {
        if let Some(cl) = clusters.first() {
            for spec in clusters::cli_cases(cl) {
                if !selected(&spec.id) {
                    continue;
                }
                let mut files = vec![
                    ("cluster.data".to_owned(), cl.data.text()),
                    ("empty.data".to_owned(), clusters::empty_cluster(cl)),
                ];
                if let Some(d) = &spec.dynu {
                    files.push(("dynu".to_owned(), d.clone()));
                }
                work.push(Work::Run {
                    part: Part::Cli,
                    spec,
                    files,
                });
            }
        }
    }

    // Ganeti's test suite.
    let mut test_files = Vec::new();
    let fixtures = tmp.join("fixtures");
    let mut testdata = PathBuf::new();
    if wants(Part::Shelltests) || wants(Part::DataFiles) {
        let cache = oracle::absolute(&b.testsuite_cache);
        let test_dir = match testsuite::resolve_test_dir(b.testsuite.as_deref(), &hbal, &cache) {
            Ok(t) => t,
            Err(e) => return fail(&e),
        };
        testdata = test_dir.join("data/htools");
        let hspace = b
            .hspace
            .clone()
            .unwrap_or_else(|| hbal.with_file_name("hspace"));
        if let Err(e) = oracle::ensure_program(&hspace, "hspace", false, "hailstone-compat")
            .and_then(|()| testsuite::make_fixtures(&hspace, &fixtures))
        {
            return fail(&e);
        }
        if wants(Part::Shelltests) {
            let names: Vec<String> = side::read_files(&fixtures).into_keys().collect();
            test_files = match testsuite::hbal_test_files(&test_dir, &names) {
                Ok(f) => f,
                Err(e) => return fail(&e),
            };
            for (k, f) in test_files.iter().enumerate() {
                let any = f
                    .tests
                    .iter()
                    .any(|t| selected(&format!("shelltest/{}:{}", f.name, t.line)));
                if any || selected(&format!("shelltest/{}", f.name)) {
                    work.push(Work::Shell(k));
                }
            }
        }
        if wants(Part::DataFiles) {
            match datafile_runs(&testdata, &fixtures, c.profile == Profile::Full) {
                Ok(runs) => work.extend(runs.into_iter().filter(|s| selected(&s.id)).map(|spec| {
                    Work::Run {
                        part: Part::DataFiles,
                        spec,
                        files: Vec::new(),
                    }
                })),
                Err(e) => return fail(&e),
            }
        }
    }
    if work.is_empty() {
        return fail("no runs selected");
    }
    let keep = match &c.keep {
        Some(k) => match std::fs::create_dir_all(k) {
            Ok(()) => Some(oracle::absolute(k)),
            Err(e) => return fail(&format!("cannot create {}: {e}", k.display())),
        },
        None => None,
    };
    let shared = Shared {
        hbal: hbal.clone(),
        balance: balance.clone(),
        tmp: tmp.to_path_buf(),
        cap,
        allow,
        keep,
        test_files,
        fixtures,
        testdata,
    };
    eprintln!(
        "hailstone-compat: balance suite, {} units of work ({} generated clusters), cap {} s, {} jobs",
        work.len(),
        if wants(Part::Generated) { count } else { 0 },
        cap.as_secs_f64(),
        c.jobs
    );
    let total = work.len();
    let mut results: Vec<Compared> = Vec::new();
    process::ordered_pool(
        &work,
        c.jobs,
        |_, worker, w| process_work(w, worker, &shared),
        |done, r| {
            if c.verbose {
                for x in &r {
                    let mark = if x.unexplained() {
                        "DIFF"
                    } else if x.accepted {
                        "acc "
                    } else if x.verdict == Verdict::HbalCapped {
                        "cap "
                    } else {
                        "ok  "
                    };
                    println!("{mark} {}", x.id);
                }
            }
            results.extend(r);
            if (done + 1).is_multiple_of(50) && done + 1 < total {
                eprintln!("hailstone-compat: {}/{} balance units", done + 1, total);
            }
        },
    );
    let report = report(&results, (&shapes, &edits), &hbal, &balance);
    print!("{report}");
    let (hbal_time, balance_time) = results.iter().fold((0.0, 0.0), |(a, b), r| {
        (a + r.walls.0.as_secs_f64(), b + r.walls.1.as_secs_f64())
    });
    eprintln!(
        "hailstone-compat: {} balance comparisons in {:.1} s wall time; hbal {:.1} s, hailstone-balance {:.1} s (summed run times)",
        results.len(),
        started.elapsed().as_secs_f64(),
        hbal_time,
        balance_time
    );
    let oracle_bad = results
        .iter()
        .filter(|r| r.shell.as_ref().is_some_and(|s| !s.hbal_misses.is_empty()))
        .count();
    let unexplained = results.iter().filter(|r| r.unexplained()).count();
    if oracle_bad > 0 {
        println!(
            "\nERROR: the real hbal ({}) fails {oracle_bad} of Ganeti's own shelltests (listed above): the oracle environment is wrong (another hbal version, or missing fixtures)",
            hbal.display()
        );
        return ExitCode::from(2);
    }
    if unexplained == 0 {
        println!("\nOK: no unexplained differences");
        ExitCode::SUCCESS
    } else {
        println!("\nFAILED: {unexplained} unexplained difference(s)");
        ExitCode::from(1)
    }
}

/// The runs on Ganeti's data files and the shelltest fixtures: every file,
/// every group (`-G` when there are several), each option set.
fn datafile_runs(testdata: &Path, fixtures: &Path, full: bool) -> Result<Vec<RunSpec>, String> {
    let s = |x: &str| x.to_owned();
    let mut sets: Vec<(&str, Vec<String>)> = vec![
        ("defaults", vec![]),
        ("-E", vec![s("-E"), s("--restricted-migration")]),
        (
            "--ignore-soft-errors",
            vec![s("--ignore-soft-errors"), s("-C")],
        ),
        ("-l", vec![s("-l"), s("2"), s("-v"), s("-v"), s("-v")]),
        (
            "--ignore-dynu",
            vec![
                s("--ignore-dynu"),
                s("-p"),
                s("--print-instances"),
                s("-S"),
                s("{OUT}/state"),
            ],
        ),
    ];
    if full {
        sets.extend([
            ("--no-disk-moves", vec![s("--no-disk-moves")]),
            (
                "--no-instance-moves",
                vec![s("--no-instance-moves"), s("-C{OUT}/cmds")],
            ),
            ("-E", vec![s("-E")]),
            ("--restricted-migration", vec![s("--restricted-migration")]),
            ("--exclusion-tags", vec![s("--exclusion-tags"), s("test")]),
            (
                "-g",
                vec![s("-g"), s("0.1"), s("--min-gain-limit"), s("1"), s("-q")],
            ),
            (
                "-p+FIELDS",
                vec![
                    s("-p+idx,plist,slist,ptags,peermap,inst_spindles"),
                    s("-v"),
                    s("-v"),
                ],
            ),
        ]);
    }
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in [testdata, fixtures] {
        let rd =
            std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let mut here: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                let name = p
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                p.is_file()
                    && (name.ends_with(".data")
                        || name.ends_with(".standard")
                        || name.ends_with(".tiered"))
                    && !name.starts_with("simu-rebal-orig")
            })
            .collect();
        here.sort();
        files.extend(here);
    }
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        let data = datafile::DataFile::parse(&text);
        let groups = data.group_names();
        let name = f
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let several = groups.len() > 1;
        let group_runs: Vec<Option<String>> = if several {
            groups.into_iter().map(Some).collect()
        } else {
            vec![None]
        };
        if several {
            // Without -G hbal refuses a cluster of several groups.
            out.push(RunSpec {
                id: format!("data/{name}"),
                args: vec![s("-t"), f.display().to_string()],
                families: vec![s("defaults")],
                dynu: None,
            });
        }
        for g in group_runs {
            for (family, opts) in &sets {
                let mut args = vec![s("-t"), f.display().to_string()];
                if let Some(g) = &g {
                    args.push(s("-G"));
                    args.push(g.clone());
                }
                args.extend(opts.iter().cloned());
                let gtext = g.as_ref().map(|g| format!(" -G {g}")).unwrap_or_default();
                out.push(RunSpec {
                    id: format!("data/{name}{gtext} {}", opts.join(" "))
                        .trim_end()
                        .to_owned(),
                    args,
                    families: vec![(*family).to_owned()],
                    dynu: None,
                });
            }
        }
    }
    Ok(out)
}

fn process_work(w: &Work, worker: usize, sh: &Shared<'_>) -> Vec<Compared> {
    let base = sh.tmp.join(format!("worker{worker}"));
    match w {
        Work::Run { part, spec, files } => vec![compare_run(*part, spec, files, &base, sh)],
        Work::Shell(k) => compare_shell_file(&sh.test_files[*k], &base, sh),
    }
}

/// Runs both programs once and compares them.
fn compare_run(
    part: Part,
    spec: &RunSpec,
    files: &[(String, String)],
    base: &Path,
    sh: &Shared<'_>,
) -> Compared {
    let input = base.join("in");
    let mut out = Compared {
        id: spec.id.clone(),
        part,
        families: spec.families.clone(),
        command: command_line(&sh.hbal, &spec.args),
        verdict: Verdict::Identical,
        differences: Vec::new(),
        accepted: false,
        shell: None,
        walls: (Duration::ZERO, Duration::ZERO),
        moves: None,
    };
    if let Err(e) = side::write_inputs(&input, files) {
        out.verdict = Verdict::Error(e);
        return out;
    }
    let (hf, bf) = (Folders::new(base, "hbal"), Folders::new(base, "balance"));
    let sides = run_side_pair(sh, &spec.args, &input, &hf, &bf);
    let (h, b) = match sides {
        Ok(x) => x,
        Err(e) => {
            out.verdict = Verdict::Error(e);
            return out;
        }
    };
    out.walls = (h.run.wall, b.run.wall);
    out.moves = solution_length(&h.run.stdout);
    out.verdict = match (&h.run.status, &b.run.status) {
        (Status::Capped, _) => Verdict::HbalCapped,
        (_, Status::Capped) => Verdict::BalanceCapped,
        _ => {
            out.differences = side::differences(&h, &hf.out, &b, &bf.out);
            if out.differences.is_empty() {
                Verdict::Identical
            } else {
                Verdict::Different
            }
        }
    };
    if out.verdict == Verdict::BalanceCapped {
        out.differences.push(format!(
            "hailstone-balance reached the cap ({} s); hbal took {:.1} s",
            sh.cap.as_secs_f64(),
            h.run.wall.as_secs_f64()
        ));
    }
    out.accepted =
        !out.differences.is_empty() && is_accepted(sh.allow, &format!("balance:{}", spec.id));
    if out.unexplained() {
        if let Some(keep) = &sh.keep {
            let dir = keep.join(crate::cases::file_stem(&spec.id).replace([' ', '#', '='], "_"));
            let _ = std::fs::create_dir_all(&dir);
            for (name, text) in files {
                let _ = std::fs::write(dir.join(name), text);
            }
            out.command = command_line(
                &sh.hbal,
                &side::expand(&spec.args, &dir, Path::new("{OUT}")),
            );
        }
    }
    out
}

fn run_side_pair(
    sh: &Shared<'_>,
    args: &[String],
    input: &Path,
    hf: &Folders,
    bf: &Folders,
) -> Result<(Side, Side), String> {
    let h = side::run_side(&sh.hbal, args, input, hf, sh.cap)?;
    let b = side::run_side(&sh.balance, args, input, bf, sh.cap)?;
    Ok((h, b))
}

/// Runs one shelltest file with each program and compares test by test,
/// then the files the tests left in `$T`.
fn compare_shell_file(file: &testsuite::TestFile, base: &Path, sh: &Shared<'_>) -> Vec<Compared> {
    let (ht, bt) = (base.join("T-hbal"), base.join("T-balance"));
    let scratch = base.join("shell-scratch");
    let prepared = testsuite::copy_fixtures(&sh.fixtures, &ht)
        .and_then(|()| testsuite::copy_fixtures(&sh.fixtures, &bt))
        .and_then(|()| {
            std::fs::create_dir_all(&scratch)
                .map_err(|e| format!("cannot create {}: {e}", scratch.display()))
        });
    if let Err(e) = prepared {
        return vec![Compared {
            id: format!("shelltest/{}", file.name),
            part: Part::Shelltests,
            families: vec![file.name.clone()],
            command: String::new(),
            verdict: Verdict::Error(e),
            differences: Vec::new(),
            accepted: false,
            shell: None,
            walls: (Duration::ZERO, Duration::ZERO),
            moves: None,
        }];
    }
    let h = testsuite::run_file(file, &sh.hbal, &ht, &sh.testdata, &scratch, sh.cap);
    let b = testsuite::run_file(file, &sh.balance, &bt, &sh.testdata, &scratch, sh.cap);
    let mut out = Vec::new();
    for ((test, hr), br) in file.tests.iter().zip(&h).zip(&b) {
        let id = format!("shelltest/{}:{}", file.name, test.line);
        let verdict = match (&hr.run.status, &br.run.status) {
            (Status::Capped, _) => Verdict::HbalCapped,
            (_, Status::Capped) => Verdict::BalanceCapped,
            _ => Verdict::Identical,
        };
        let differences = if verdict == Verdict::Identical {
            testsuite::run_differences(&hr.run, &ht, &br.run, &bt)
        } else {
            Vec::new()
        };
        let verdict = if verdict == Verdict::Identical && !differences.is_empty() {
            Verdict::Different
        } else {
            verdict
        };
        let accepted = !differences.is_empty() && is_accepted(sh.allow, &format!("balance:{id}"));
        out.push(Compared {
            id,
            part: Part::Shelltests,
            families: vec![file.name.clone()],
            command: test.command.clone(),
            verdict,
            differences,
            accepted,
            shell: Some(ShellResult {
                balance_misses: br.misses.clone(),
                hbal_misses: hr.misses.clone(),
                lacking: testsuite::lacking_feature(&test.command),
            }),
            walls: (hr.run.wall, br.run.wall),
            moves: solution_length(&hr.run.stdout),
        });
    }
    // The files the tests left behind ($T's fixtures included).
    let (hfiles, bfiles) = (side::read_files(&ht), side::read_files(&bt));
    let mut differences = Vec::new();
    let names: std::collections::BTreeSet<&String> = hfiles.keys().chain(bfiles.keys()).collect();
    for name in names {
        match (hfiles.get(name), bfiles.get(name)) {
            (Some(x), Some(y)) if x != y => {
                let (x, y) = (side::normalise(x, &ht, "$T"), side::normalise(y, &bt, "$T"));
                if x != y {
                    differences.push(format!(
                        "$T/{name} differs:\n{}",
                        side::short_diff(&x, &y, 8)
                    ));
                }
            }
            (Some(_), None) => differences.push(format!("$T/{name}: left by hbal's run only")),
            (None, Some(_)) => {
                differences.push(format!("$T/{name}: left by hailstone-balance's run only"))
            }
            _ => {}
        }
    }
    let id = format!("shelltest/{} $T files", file.name);
    out.push(Compared {
        accepted: !differences.is_empty() && is_accepted(sh.allow, &format!("balance:{id}")),
        id,
        part: Part::Shelltests,
        families: vec![file.name.clone()],
        command: String::new(),
        verdict: if differences.is_empty() {
            Verdict::Identical
        } else {
            Verdict::Different
        },
        differences,
        shell: None,
        walls: (Duration::ZERO, Duration::ZERO),
        moves: None,
    });
    out
}

/// Counts of one row of the report.
#[derive(Default)]
struct Tally {
    runs: usize,
    identical: usize,
    different: usize,
    accepted: usize,
    hbal_capped: usize,
}

impl Tally {
    fn add(&mut self, r: &Compared) {
        self.runs += 1;
        match r.verdict {
            Verdict::Identical => self.identical += 1,
            Verdict::HbalCapped => self.hbal_capped += 1,
            _ => self.different += 1,
        }
        if r.accepted {
            self.accepted += 1;
        }
    }

    fn row(&self, name: &str) -> String {
        format!(
            "  {name:<28} {:>5} {:>9} {:>9} {:>8} {:>11}\n",
            self.runs, self.identical, self.different, self.accepted, self.hbal_capped
        )
    }
}

const HEADER: &str =
    "  family                        runs identical different accepted hbal capped\n";

/// The report: tables per part and family, the capped runs, the shelltests
/// of lacking features, every unexplained difference.
fn report(
    results: &[Compared],
    (shapes, edits): (&BTreeMap<String, usize>, &BTreeMap<&str, usize>),
    hbal: &Path,
    balance: &Path,
) -> String {
    let mut s = format!(
        "hailstone-compat --suite balance: {} against {}\n",
        balance.display(),
        hbal.display()
    );
    let of = |p: Part| results.iter().filter(move |r| r.part == p);
    // Generated runs, by option family (a run counts in each of its families).
    let generated: Vec<&Compared> = of(Part::Generated).collect();
    if !generated.is_empty() {
        let shape_text: Vec<String> = shapes.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let edit_text: Vec<String> = edits.iter().map(|(k, v)| format!("{k} {v}")).collect();
        s.push_str(&format!(
            "\nGenerated clusters ({}; edited: {}): {} runs\n",
            shape_text.join(", "),
            edit_text.join(", "),
            generated.len()
        ));
        s.push_str(HEADER);
        let mut total = Tally::default();
        for table in [
            &clusters::ALGORITHM_FAMILIES[..],
            &clusters::OUTPUT_FAMILIES[..],
        ] {
            for fam in table {
                let mut t = Tally::default();
                for r in generated
                    .iter()
                    .filter(|r| r.families.iter().any(|f| f == fam))
                {
                    t.add(r);
                }
                s.push_str(&t.row(fam));
            }
            s.push_str("  --\n");
        }
        for r in &generated {
            total.add(r);
        }
        s.push_str(&total.row("all generated runs"));
        let with =
            |f: &dyn Fn(usize) -> bool| generated.iter().filter(|r| r.moves.is_some_and(f)).count();
        let longest = generated.iter().filter_map(|r| r.moves).max().unwrap_or(0);
        s.push_str(&format!(
            "  hbal's solutions: {} runs with moves (up to {longest}), {} without, {} without a solution line (-q, refusals)\n",
            with(&|m| m > 0),
            with(&|m| m == 0),
            generated.len() - with(&|_| true)
        ));
    }
    for (part, title) in [
        (Part::Cli, "Command line and bad input"),
        (
            Part::DataFiles,
            "Ganeti's data files (data/htools and the shelltest fixtures)",
        ),
    ] {
        let rs: Vec<&Compared> = of(part).collect();
        if rs.is_empty() {
            continue;
        }
        s.push_str(&format!("\n{title}: {} runs\n", rs.len()));
        s.push_str(HEADER);
        let mut fams: Vec<&String> = rs.iter().flat_map(|r| r.families.iter()).collect();
        fams.sort();
        fams.dedup();
        let mut total = Tally::default();
        for fam in fams {
            let mut t = Tally::default();
            for r in rs.iter().filter(|r| r.families.contains(fam)) {
                t.add(r);
            }
            s.push_str(&t.row(fam));
        }
        for r in &rs {
            total.add(r);
        }
        s.push_str(&total.row("total"));
    }
    let shell: Vec<&Compared> = of(Part::Shelltests).filter(|r| r.shell.is_some()).collect();
    if !shell.is_empty() {
        s.push_str(&format!(
            "\nGaneti's shelltests that run hbal: {} tests\n",
            shell.len()
        ));
        s.push_str(
            "  file                          tests  pass(hbal) pass(balance) identical lacking\n",
        );
        let mut files: Vec<&String> = shell.iter().map(|r| &r.families[0]).collect();
        files.dedup();
        let row = |name: &str, rs: &[&&Compared]| {
            let pass = |f: &dyn Fn(&ShellResult) -> bool| {
                rs.iter()
                    .filter(|r| r.shell.as_ref().is_some_and(f))
                    .count()
            };
            format!(
                "  {name:<28} {:>6} {:>11} {:>13} {:>9} {:>7}\n",
                rs.len(),
                pass(&|x| x.hbal_misses.is_empty()),
                pass(&|x| x.balance_misses.is_empty()),
                rs.iter()
                    .filter(|r| r.verdict == Verdict::Identical)
                    .count(),
                pass(&|x| x.lacking.is_some())
            )
        };
        for f in &files {
            let rs: Vec<&&Compared> = shell.iter().filter(|r| &r.families[0] == *f).collect();
            s.push_str(&row(f, &rs));
        }
        let all: Vec<&&Compared> = shell.iter().collect();
        s.push_str(&row("total", &all));
        let lacking: Vec<&&Compared> = all
            .iter()
            .copied()
            .filter(|r| r.shell.as_ref().is_some_and(|x| x.lacking.is_some()))
            .collect();
        if !lacking.is_empty() {
            s.push_str(
                "\nShelltests of features hailstone-balance deliberately lacks (not counted):\n",
            );
            for r in lacking {
                let x = r
                    .shell
                    .as_ref()
                    .map(|x| (x.lacking.unwrap_or(""), x.balance_misses.is_empty()));
                let (what, pass) = x.unwrap_or(("", false));
                s.push_str(&format!(
                    "  {} [{what}; hailstone-balance {}]: {}\n",
                    r.id,
                    if pass { "passes anyway" } else { "fails" },
                    r.command
                ));
            }
        }
        for r in &all {
            if let Some(x) = &r.shell {
                if !x.hbal_misses.is_empty() {
                    s.push_str(&format!(
                        "\nORACLE FAILURE {}: the real hbal misses its own test: {}\n  {}\n",
                        r.id,
                        x.hbal_misses.join("; "),
                        r.command
                    ));
                }
            }
        }
    }
    let capped: Vec<&Compared> = results
        .iter()
        .filter(|r| r.verdict == Verdict::HbalCapped)
        .collect();
    if !capped.is_empty() {
        s.push_str(&format!(
            "\nRuns where hbal reached the cap (not counted, {}):\n",
            capped.len()
        ));
        for r in capped {
            s.push_str(&format!("  {}\n", r.id));
        }
    }
    let bad: Vec<&Compared> = results.iter().filter(|r| r.unexplained()).collect();
    if !bad.is_empty() {
        s.push_str(&format!(
            "\nUnexplained differences ({}; rerun one with --only 'ID' --keep DIR):\n",
            bad.len()
        ));
        for r in bad {
            s.push_str(&format!("--- {}\n", r.id));
            if !r.command.is_empty() {
                s.push_str(&format!("  command: {}\n", r.command));
            }
            if let Verdict::Error(e) = &r.verdict {
                s.push_str(&format!("  error: {e}\n"));
            }
            if let Some(x) = &r.shell {
                for m in &x.balance_misses {
                    s.push_str(&format!(
                        "  hailstone-balance misses the test's expectation: {m}\n"
                    ));
                }
            }
            for d in &r.differences {
                s.push_str(&format!("  {d}\n"));
            }
        }
    }
    s
}
