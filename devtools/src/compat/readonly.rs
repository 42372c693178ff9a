//! The engine of the check, info and roll suites (`--suite check`,
//! `--suite info`, `--suite roll`): a read-only htools program (`hcheck`,
//! `hinfo`, `hroller`: they read a cluster and print, writing no file but
//! hroller's `-S FILE.original`) against its hailstone replacement, which
//! must print the same bytes on stdout and stderr, exit with the same
//! status and write the same files in its output folder.
//!
//! The suites ([`super::check`], [`super::info`], [`super::roll`]) give
//! the runs of their `generated` part (clusters of [`clusters`] with their
//! option sets) and of their `cli` part (bad input and the help texts);
//! this module adds the two parts that come from Ganeti's test suite and
//! runs everything on the ordered pool:
//!
//! * `shelltests` — every test of Ganeti's `hs/shelltests/*.test` files
//!   that runs the program ([`shell`]), each file's tests in order in a
//!   fresh copy of the fixtures with the earlier tests that make the `$T`
//!   files they read: a test must meet its expectations with both
//!   programs and give the original's bytes; the original must pass them
//!   all (else the environment is wrong: exit status 2).
//! * `datafiles` — every `data/htools/*.data` file of the test suite with
//!   the suite's option sets.
//!
//! Then it prints the report ([`report`](fn@report)).
//!
//! A run where the original reaches the cap is listed apart, not
//! compared. A difference is accepted when it is one of the known kinds
//! ([`known`]: the help, usage, completion and version texts naming our
//! program, a data file error's location, a runtime error's program name)
//! and checked to be exactly that, or when a `<suite>:<id glob>` pattern
//! of the accepted list (`docs/accepted-differences.txt`) names the run
//! and the difference is not a known kind that fails its check.

pub(super) mod clusters;
pub(in crate::compat) mod known;
mod report;
pub(super) mod shell;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use super::accepted::{accepts_class, glob_match, is_accepted, HINT_CLASS};
use super::balance::side::{self, Folders, Side};
use super::balance::testsuite;
use super::balance::{BalanceOptions, Part};
use super::config::Config;
use crate::cases::shell_quote;
use crate::oracle;
use crate::process::{self, Run, Status};
use known::{Known, Names, Reference, Texts};
use report::report;
use shell::ShellFile;

/// One run of both programs: `{IN}` is the input folder (its `files`),
/// `{OUT}` each program's output folder (and working directory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct RunSpec {
    pub(super) id: String,
    pub(super) part: Part,
    /// The option family (generated runs) or the option set (data files).
    pub(super) family: String,
    pub(super) args: Vec<String>,
    pub(super) files: Vec<(String, String)>,
}

/// The folder of the original htools (Debian's `ganeti-htools-3.0`).
const HTOOLS: &str = "/usr/lib/ganeti/3.0/usr/bin";

/// A suite's two programs (`--hNAME`, `--NAME-bin`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Programs {
    pub(super) original: PathBuf,
    pub(super) ours: PathBuf,
}

impl Programs {
    /// The original among Debian's htools, ours in `target/release`.
    pub(super) fn named(names: Names) -> Programs {
        Programs {
            original: Path::new(HTOOLS).join(names.original),
            ours: Path::new("target/release").join(names.ours),
        }
    }
}

/// The data file option sets of a suite per profile.
pub(super) type DatafileSets = &'static [(&'static str, &'static [&'static str])];

/// A suite's data file option sets in each profile.
pub(super) struct ProfileSets {
    pub(super) ci: DatafileSets,
    pub(super) full: DatafileSets,
}

impl ProfileSets {
    /// The sets of `profile` (the full ones for `full`, else the ci ones).
    pub(super) fn of(&self, profile: super::config::Profile) -> DatafileSets {
        if profile == super::config::Profile::Full {
            self.full
        } else {
            self.ci
        }
    }
}

/// What a read-only suite is, its programs apart: its name (and accepted
/// patterns' prefix), the programs' names, the option naming ours, its
/// corpus, what the original's run says, the data file option sets, and
/// the runs of a generated cluster and of the command line.
pub(super) struct SuiteSpec {
    pub(super) name: &'static str,
    pub(super) names: Names,
    pub(super) ours_option: &'static str,
    pub(super) corpus: CorpusSpec,
    pub(super) outcome: fn(&Run) -> &'static str,
    pub(super) datafile_sets: ProfileSets,
    pub(super) generated: fn(&clusters::Cluster, usize, usize, &mut usize) -> Vec<RunSpec>,
    pub(super) cli: fn(&clusters::Cluster) -> Vec<RunSpec>,
}

/// Runs the suite `spec` with `programs`.
pub(super) fn run_suite(
    c: &Config,
    b: &BalanceOptions,
    spec: &SuiteSpec,
    programs: &Programs,
    allow: &[String],
) -> ExitCode {
    let corpus = spec.corpus.corpus(c);
    let suite = Suite {
        name: spec.name,
        names: spec.names,
        original: oracle::absolute(&programs.original),
        ours: oracle::absolute(&programs.ours),
        ours_option: spec.ours_option,
        outcome: spec.outcome,
        datafile_sets: spec.datafile_sets.of(c.profile),
        cap: corpus.cap,
    };
    run(
        c,
        b,
        &suite,
        |parts| corpus.runs(parts, spec.generated, spec.cli),
        allow,
    )
}

/// A suite's generated corpus per profile: clusters, node range and first
/// seed of `ci` and of `full`, the family runs per cluster after the fixed
/// ones (`ci`, `full`), the `full` profile's cap, and the suite's edit.
pub(super) struct CorpusSpec {
    pub(super) ci: (usize, (usize, usize), u64),
    pub(super) full: (usize, (usize, usize), u64),
    pub(super) extra: (usize, usize),
    pub(super) full_cap: Duration,
    pub(super) edit: Option<fn(&mut clusters::Cluster, &mut crate::generate::rng::Rng)>,
}

impl CorpusSpec {
    /// The profile's corpus, with `--count`, `--nodes`, `--seed` and
    /// `--timeout` applied.
    pub(super) fn corpus(&self, c: &Config) -> Corpus {
        let full = c.profile == super::config::Profile::Full;
        let (count, nodes, seed) = match c.profile {
            super::config::Profile::Full => self.full,
            super::config::Profile::None => (0, self.ci.1, self.ci.2),
            super::config::Profile::Ci | super::config::Profile::Exclusive => self.ci,
        };
        Corpus {
            count: c.count.unwrap_or(count),
            nodes: c.nodes.unwrap_or(nodes),
            seed: c.seed.unwrap_or(seed),
            extra: if full { self.extra.1 } else { self.extra.0 },
            cap: if c.timeout_given {
                c.timeout
            } else if full {
                self.full_cap
            } else {
                Duration::from_secs(60)
            },
            edit: self.edit,
        }
    }
}

/// What a profile runs on the generated clusters.
#[derive(Clone, Debug)]
pub(super) struct Corpus {
    pub(super) count: usize,
    pub(super) nodes: (usize, usize),
    pub(super) seed: u64,
    /// Family runs per cluster after its fixed runs.
    pub(super) extra: usize,
    pub(super) cap: Duration,
    /// The suite's own edit of each generated cluster (the roll suite's
    /// master and node tags), drawn from its own generator seeded by the
    /// cluster's seed.
    pub(super) edit: Option<fn(&mut clusters::Cluster, &mut crate::generate::rng::Rng)>,
}

impl Corpus {
    /// Cluster number `k` (with the suite's edit).
    pub(super) fn cluster(&self, k: usize) -> Result<clusters::Cluster, String> {
        let seed = self.seed.wrapping_add(k as u64);
        let mut cl = clusters::generate_cluster(k, seed, self.nodes)?;
        if let Some(edit) = self.edit {
            let mut r = crate::generate::rng::Rng::new(seed ^ 0xed17_0000_0000);
            edit(&mut cl, &mut r);
        }
        Ok(cl)
    }

    /// Writes the clusters as `DIR/<id>.data` (`/` written `_`); returns
    /// how many.
    pub(super) fn dump(&self, dir: &Path) -> Result<usize, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        for k in 0..self.count {
            let cl = self.cluster(k)?;
            let path = dir.join(format!("{}.data", crate::cases::file_stem(&cl.id)));
            std::fs::write(&path, cl.data.text())
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        Ok(self.count)
    }

    /// The runs of the `generated` and `cli` parts among `parts`: each
    /// cluster's runs (`generated` gets the cluster, its number and the
    /// count of family runs made so far, which it advances), and the
    /// `cli` runs on the first cluster.
    pub(super) fn runs(
        &self,
        parts: &[Part],
        generated: impl Fn(&clusters::Cluster, usize, usize, &mut usize) -> Vec<RunSpec>,
        cli: impl Fn(&clusters::Cluster) -> Vec<RunSpec>,
    ) -> Result<Runs, String> {
        let gen = parts.contains(&Part::Generated);
        let made = if gen { self.count } else { 0 };
        let made = if parts.contains(&Part::Cli) {
            made.max(1)
        } else {
            made
        };
        let mut out = Runs::default();
        let mut families = 0usize;
        for k in 0..made {
            let cl = self.cluster(k)?;
            if gen && k < self.count {
                out.runs
                    .extend(generated(&cl, k, self.extra, &mut families));
                out.clusters += 1;
                *out.shapes.entry(cl.shape.name()).or_default() += 1;
                for f in &cl.features {
                    *out.features.entry(f).or_default() += 1;
                }
            }
            if k == 0 && parts.contains(&Part::Cli) {
                out.runs.extend(cli(&cl));
            }
        }
        Ok(out)
    }
}

/// The runs a suite makes of its own, and what its generated clusters
/// hold (for the report).
#[derive(Debug, Default)]
pub(super) struct Runs {
    pub(super) runs: Vec<RunSpec>,
    pub(super) clusters: usize,
    /// Clusters per shape.
    pub(super) shapes: BTreeMap<&'static str, usize>,
    /// Clusters per feature beyond their shape.
    pub(super) features: BTreeMap<&'static str, usize>,
}

impl Runs {
    /// One line on the generated clusters, for the report.
    fn describe(&self) -> String {
        let list = |m: &BTreeMap<&'static str, usize>| {
            m.iter()
                .map(|(k, n)| format!("{n} {k}"))
                .collect::<Vec<String>>()
                .join(", ")
        };
        format!(
            "generated clusters: {} ({}); with {}\n",
            self.clusters,
            list(&self.shapes),
            list(&self.features)
        )
    }
}

/// The `-t` option of cluster number `k`'s runs, its three spellings in
/// turn.
pub(super) fn text_data(k: usize) -> Vec<String> {
    match k % 3 {
        0 => vec!["-t".to_owned(), "{IN}/cluster.data".to_owned()],
        1 => vec!["-t{IN}/cluster.data".to_owned()],
        _ => vec!["--text-data={IN}/cluster.data".to_owned()],
    }
}

/// The input files of the `cli` runs: the cluster, one with an unknown
/// node, one whose sections are wrong, an empty one, the generator's
/// request (`-I`) and a `-U` file.
pub(super) fn cli_files(cl: &clusters::Cluster) -> Vec<(String, String)> {
    let mut r = crate::generate::rng::Rng::new(0xc11);
    vec![
        ("cluster.data".to_owned(), cl.data.text()),
        (
            "unknown-node.data".to_owned(),
            clusters::unknown_node(&cl.data),
        ),
        ("bad.data".to_owned(), "group|uuid\n\nnode1|x\n".to_owned()),
        ("empty.data".to_owned(), String::new()),
        ("request.json".to_owned(), cl.request.clone()),
        ("dynu".to_owned(), clusters::dynu_file(&cl.data, &mut r)),
    ]
}

/// The `cli` runs of `cases` (each a name and its options) on `files`.
/// The generated cluster's data file as a `-t` argument.
pub(super) const T_CLUSTER: &str = "-t{IN}/cluster.data";

/// The command-line cases every reporting program has: the texts, a bad
/// option or argument, the backends, bad data files, an unknown `-O`
/// node, `-I` and an unreachable Luxi socket.
const COMMON_CLI: [(&str, &[&str]); 16] = [
    ("help", &["--help"]),
    ("help-short", &["-h"]),
    ("version", &["--version"]),
    ("version-short", &["-V"]),
    ("completion", &["--help-completion"]),
    ("unknown-option", &["--bogus", T_CLUSTER]),
    ("extra-argument", &[T_CLUSTER, "extra"]),
    ("no-backend", &[]),
    ("two-backends", &["-L", T_CLUSTER]),
    ("missing-file", &["-t", "{IN}/no-such.data"]),
    ("bad-file", &["-t", "{IN}/bad.data"]),
    ("empty-file", &["-t", "{IN}/empty.data"]),
    ("unknown-node", &["-t", "{IN}/unknown-node.data"]),
    ("offline-unknown-node", &["-O", "no-such-node", T_CLUSTER]),
    ("ialloc-src", &["-I", "{IN}/request.json"]),
    ("luxi-missing-socket", &["-L{IN}/no-such-socket"]),
];

/// The command-line runs: [`COMMON_CLI`], then the suite's own `cases`.
pub(super) fn cli_runs(cases: &[(&str, &[&str])], files: &[(String, String)]) -> Vec<RunSpec> {
    COMMON_CLI
        .iter()
        .chain(cases)
        .map(|(name, args)| RunSpec {
            id: format!("cli/{name}"),
            part: Part::Cli,
            family: "cli".to_owned(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            files: files.to_vec(),
        })
        .collect()
}

/// One suite: its programs and what it runs beyond its own runs.
pub(super) struct Suite {
    /// `check`, `info` or `roll`: the suite's name and its accepted
    /// patterns' prefix.
    pub(super) name: &'static str,
    pub(super) names: Names,
    pub(super) original: PathBuf,
    pub(super) ours: PathBuf,
    /// The option that names our program (for the error when it is
    /// missing).
    pub(super) ours_option: &'static str,
    /// What the original's run says, in a few words, for the report.
    pub(super) outcome: fn(&Run) -> &'static str,
    /// The option sets of the data files (each id and its options).
    pub(super) datafile_sets: DatafileSets,
    pub(super) cap: Duration,
}

/// How a comparison ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    Identical,
    Different,
    /// The original reached the cap: not compared.
    OriginalCapped,
    /// Ours reached the cap and the original did not.
    OursCapped,
    Error(String),
}

/// Why a difference passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Acceptance {
    No,
    /// A known kind, checked.
    Known(Known),
    /// An accepted pattern names the run.
    Pattern,
}

/// One comparison.
pub(super) struct Compared {
    pub(super) id: String,
    pub(super) part: Part,
    pub(super) family: String,
    /// The original's command line.
    pub(super) command: String,
    pub(super) verdict: Verdict,
    pub(super) differences: Vec<String>,
    pub(super) accepted: Acceptance,
    /// Expectations a shelltest misses: the original's (or a setup
    /// step's), ours.
    pub(super) misses: (Vec<String>, Vec<String>),
    pub(super) walls: (Duration, Duration),
    /// The original's outcome, for the report.
    pub(super) outcome: Option<&'static str>,
}

impl Compared {
    fn new(id: String, part: Part, family: String, command: String) -> Compared {
        Compared {
            id,
            part,
            family,
            command,
            verdict: Verdict::Identical,
            differences: Vec::new(),
            accepted: Acceptance::No,
            misses: (Vec::new(), Vec::new()),
            walls: (Duration::ZERO, Duration::ZERO),
            outcome: None,
        }
    }

    pub(super) fn unexplained(&self) -> bool {
        !self.misses.1.is_empty()
            || match self.verdict {
                Verdict::Identical | Verdict::OriginalCapped => false,
                Verdict::Different => self.accepted == Acceptance::No,
                Verdict::OursCapped | Verdict::Error(_) => true,
            }
    }
}

/// One unit of work on the pool.
enum Work {
    Run(RunSpec),
    /// A shelltest file (its index).
    Shell(usize),
}

/// What the workers share.
struct Shared<'a> {
    suite: &'a Suite,
    tmp: PathBuf,
    allow: &'a [String],
    keep: Option<PathBuf>,
    testdata: PathBuf,
    fixtures: PathBuf,
    files: Vec<ShellFile>,
    /// The folder of the real htools the shelltests' setup steps run.
    tools: PathBuf,
    reference: Reference,
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("hailstone-compat: {msg}");
    ExitCode::from(2)
}

/// `program ARG`'s stdout (empty when it cannot be run).
fn stdout_of(program: &Path, arg: &str) -> String {
    std::process::Command::new(program)
        .arg(arg)
        .env("LC_ALL", "C.UTF-8")
        .stdin(std::process::Stdio::null())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// The command line of `program` with `args`, for the report.
fn command_line(program: &Path, args: &[String]) -> String {
    let mut parts = vec![shell_quote(&program.display().to_string())];
    parts.extend(args.iter().map(|a| shell_quote(a)));
    parts.join(" ")
}

/// The runs on Ganeti's data files: every `*.data` file of `testdata`
/// with every option set.
pub(super) fn datafile_runs(
    testdata: &Path,
    sets: &[(&'static str, &'static [&'static str])],
) -> Result<Vec<RunSpec>, String> {
    Ok(testsuite::datafile_cases(testdata, sets)?
        .into_iter()
        .map(|c| RunSpec {
            id: c.id,
            part: Part::DataFiles,
            family: c.set.to_owned(),
            args: c.args,
            files: Vec::new(),
        })
        .collect())
}

/// Runs a suite: `runs` makes the runs of its own parts (`generated`,
/// `cli`) for the parts asked; this adds the shelltests and the data
/// files.
pub(super) fn run(
    c: &Config,
    b: &BalanceOptions,
    suite: &Suite,
    runs: impl FnOnce(&[Part]) -> Result<Runs, String>,
    allow: &[String],
) -> ExitCode {
    let (o, ours) = (suite.names.original, suite.names.ours);
    if let Err(e) = oracle::ensure_program(&suite.original, o, c.install_hail, "hailstone-compat") {
        return fail(&e);
    }
    if !oracle::is_executable(&suite.ours) {
        return fail(&format!(
            "{ours} binary {} not found or not executable (build it with 'cargo build --release' or pass {} PATH)",
            suite.ours.display(),
            suite.ours_option
        ));
    }
    let started = Instant::now();
    let wants = |p: Part| b.parts.contains(&p);
    let selected = |id: &str| b.only.as_ref().is_none_or(|g| glob_match(g, id));
    let (mut work, summary): (Vec<Work>, String) = match runs(&b.parts) {
        Ok(r) => (
            r.runs
                .iter()
                .filter(|r| wants(r.part) && selected(&r.id))
                .cloned()
                .map(Work::Run)
                .collect(),
            if r.clusters > 0 {
                r.describe()
            } else {
                String::new()
            },
        ),
        Err(e) => return fail(&e),
    };
    let generated = work
        .iter()
        .filter(|w| matches!(w, Work::Run(r) if r.part == Part::Generated))
        .count();
    let tmp = match process::temp_dir(&format!("hailstone-compat-{}", suite.name)) {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    let tools = suite
        .original
        .parent()
        .map_or_else(|| PathBuf::from("/"), Path::to_path_buf);
    let fixtures = tmp.join("fixtures");
    let (testdata, files) = match from_testsuite(b, suite, &selected, &fixtures) {
        Ok((testdata, files, more)) => {
            work.extend(more);
            (testdata, files)
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return fail(&e);
        }
    };
    if work.is_empty() {
        let _ = std::fs::remove_dir_all(&tmp);
        return fail("no runs selected");
    }
    let keep = match &c.keep {
        Some(k) => match std::fs::create_dir_all(k) {
            Ok(()) => Some(oracle::absolute(k)),
            Err(e) => {
                let _ = std::fs::remove_dir_all(&tmp);
                return fail(&format!("cannot create {}: {e}", k.display()));
            }
        },
        None => None,
    };
    let shared = Shared {
        suite,
        tmp: tmp.clone(),
        allow,
        keep,
        testdata,
        fixtures,
        files,
        tools,
        reference: Reference {
            help: stdout_of(&suite.original, "--help"),
            version: stdout_of(&suite.original, "--version"),
            completion: stdout_of(&suite.original, "--help-completion"),
            our_help: stdout_of(&suite.ours, "--help"),
        },
    };
    eprintln!(
        "hailstone-compat: {} suite, {} units of work ({generated} generated runs), cap {} s, {} jobs",
        suite.name,
        work.len(),
        suite.cap.as_secs_f64(),
        c.jobs
    );
    let total = work.len();
    let mut results: Vec<Compared> = Vec::new();
    process::ordered_pool(
        &work,
        c.jobs,
        |_, worker, w| compare(w, &shared.tmp.join(format!("worker{worker}")), &shared),
        |done, rs| {
            for r in rs {
                if c.verbose {
                    let mark = if r.unexplained() {
                        "DIFF"
                    } else if r.verdict == Verdict::OriginalCapped {
                        "cap "
                    } else if r.accepted != Acceptance::No {
                        "acc "
                    } else {
                        "ok  "
                    };
                    println!(
                        "{mark} {} ({:.2} s, {:.2} s)",
                        r.id,
                        r.walls.0.as_secs_f64(),
                        r.walls.1.as_secs_f64()
                    );
                }
                results.push(r);
            }
            if (done + 1).is_multiple_of(100) && done + 1 < total {
                eprintln!("hailstone-compat: {}/{total} units of work", done + 1);
            }
        },
    );
    let _ = std::fs::remove_dir_all(&tmp);
    print!("{summary}{}", report(&results, suite.names));
    let (h, q) = results.iter().fold((0.0, 0.0), |(a, b), r| {
        (a + r.walls.0.as_secs_f64(), b + r.walls.1.as_secs_f64())
    });
    eprintln!(
        "hailstone-compat: {} {} comparisons in {:.1} s wall time; {o} {h:.1} s, {ours} {q:.1} s (summed run times)",
        results.len(),
        suite.name,
        started.elapsed().as_secs_f64(),
    );
    if results.iter().any(|r| !r.misses.0.is_empty()) {
        println!(
            "\nERROR: the real {o} ({}) or the htools of its setup steps fail some of Ganeti's own shelltests (listed above): the oracle environment is wrong",
            suite.original.display()
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

/// The work that comes from Ganeti's test suite, for the parts asked: the
/// data file runs, and the shelltest files with a selected test of the
/// program (after making their fixtures in `fixtures`); with the test
/// data folder and the shelltest files.
fn from_testsuite(
    b: &BalanceOptions,
    suite: &Suite,
    selected: &dyn Fn(&str) -> bool,
    fixtures: &Path,
) -> Result<(PathBuf, Vec<ShellFile>, Vec<Work>), String> {
    let wants = |p: Part| b.parts.contains(&p);
    let mut work = Vec::new();
    let mut files = Vec::new();
    if !wants(Part::Shelltests) && !wants(Part::DataFiles) {
        return Ok((PathBuf::new(), files, work));
    }
    let cache = oracle::absolute(&b.testsuite_cache);
    let test_dir = testsuite::resolve_test_dir(b.testsuite.as_deref(), &suite.original, &cache)?;
    let testdata = test_dir.join("data/htools");
    if wants(Part::Shelltests) {
        let hspace = oracle::absolute(
            &b.hspace
                .clone()
                .unwrap_or_else(|| suite.original.with_file_name("hspace")),
        );
        oracle::ensure_program(&hspace, "hspace", false, "hailstone-compat")?;
        testsuite::make_fixtures(&hspace, fixtures)?;
        let names: Vec<String> = side::read_files(fixtures).into_keys().collect();
        files = shell::program_files(&test_dir, suite.names.original, &names)?;
        for (k, f) in files.iter().enumerate() {
            let any = f
                .steps
                .iter()
                .filter(|s| s.compared)
                .any(|s| selected(&format!("shelltest/{}:{}", f.name, s.test.line)));
            if any {
                work.push(Work::Shell(k));
            }
        }
    }
    if wants(Part::DataFiles) {
        let runs = datafile_runs(&testdata, suite.datafile_sets)?;
        work.extend(runs.into_iter().filter(|r| selected(&r.id)).map(Work::Run));
    }
    Ok((testdata, files, work))
}

/// A side's outputs as text, its output folder written `{OUT}`.
fn texts(s: &Side, out: &Path) -> Texts {
    Texts {
        status: s.run.status.clone(),
        stdout: side::normalise(&s.run.stdout, out, "{OUT}"),
        stderr: side::normalise(&s.run.stderr, out, "{OUT}"),
    }
}

/// Compares two sides' runs into `out` (its verdict, differences and
/// acceptance).
fn judge(out: &mut Compared, sides: ((&Side, &Path), (&Side, &Path)), sh: &Shared<'_>) {
    let ((h, h_out), (q, q_out)) = sides;
    out.walls = (h.run.wall, q.run.wall);
    out.outcome = Some((sh.suite.outcome)(&h.run));
    out.verdict = match (&h.run.status, &q.run.status) {
        (Status::Capped, _) => Verdict::OriginalCapped,
        (_, Status::Capped) => {
            out.differences.push(format!(
                "{} reached the cap ({} s); {} took {:.1} s",
                sh.suite.names.ours,
                sh.suite.cap.as_secs_f64(),
                sh.suite.names.original,
                h.run.wall.as_secs_f64()
            ));
            Verdict::OursCapped
        }
        _ => {
            let names = (sh.suite.names.original, sh.suite.names.ours);
            out.differences = side::differences_of(names, h, h_out, q, q_out);
            if out.differences.is_empty() {
                Verdict::Identical
            } else {
                Verdict::Different
            }
        }
    };
    if out.verdict != Verdict::Different {
        return;
    }
    let (ht, qt) = (texts(h, h_out), texts(q, q_out));
    let names = sh.suite.names;
    let listed = is_accepted(sh.allow, &format!("{}:{}", sh.suite.name, out.id));
    let kind = known::known_kind(names, &ht, &sh.reference)
        .or_else(|| known::is_hint(&ht.stderr, &qt.stderr).then_some(Known::Hint));
    // An error followed by what is valid is accepted by its class.
    let pattern = listed || (kind == Some(Known::Hint) && accepts_class(sh.allow, HINT_CLASS));
    match kind {
        Some(k) => match known::check(k, names, &ht, &qt, &sh.reference) {
            Ok(()) if pattern => out.accepted = Acceptance::Known(k),
            Ok(()) => out.differences.insert(
                0,
                format!(
                    "{} (a known kind), but docs/accepted-differences.txt lists no pattern for this run",
                    k.describe()
                ),
            ),
            Err(why) => out.differences.insert(
                0,
                format!(
                    "the difference looks like {}, but is not only that: {why}",
                    k.describe()
                ),
            ),
        },
        None if pattern => out.accepted = Acceptance::Pattern,
        None => {}
    }
}

/// Runs one unit of work with both programs and compares them.
fn compare(w: &Work, base: &Path, sh: &Shared<'_>) -> Vec<Compared> {
    match w {
        Work::Run(spec) => vec![compare_run(spec, base, sh)],
        Work::Shell(k) => compare_shell_file(&sh.files[*k], base, sh),
    }
}

fn compare_run(spec: &RunSpec, base: &Path, sh: &Shared<'_>) -> Compared {
    let suite = sh.suite;
    let mut out = Compared::new(
        spec.id.clone(),
        spec.part,
        spec.family.clone(),
        command_line(&suite.original, &spec.args),
    );
    let (hf, qf) = (Folders::new(base, "original"), Folders::new(base, "ours"));
    match side::run_pair(
        (&suite.original, &suite.ours),
        &spec.args,
        &spec.files,
        base,
        (&hf, &qf),
        suite.cap,
    ) {
        Ok((h, q)) => judge(&mut out, ((&h, &hf.out), (&q, &qf.out)), sh),
        Err(e) => out.verdict = Verdict::Error(e),
    }
    if out.unexplained() && !spec.files.is_empty() {
        if let Some(keep) = &sh.keep {
            let dir = keep.join(
                crate::cases::file_stem(&format!("{}/{}", suite.name, spec.id))
                    .replace([' ', '#', '='], "_"),
            );
            let _ = std::fs::create_dir_all(&dir);
            for (name, text) in &spec.files {
                let _ = std::fs::write(dir.join(name), text);
            }
            out.command = command_line(
                &suite.original,
                &side::expand(&spec.args, &dir, Path::new("{OUT}")),
            );
        }
    }
    out
}

/// Runs one shelltest file's steps with each program in a fresh copy of
/// the fixtures and compares its tests of the program one by one; a
/// setup step that misses its expectations is an environment problem.
fn compare_shell_file(file: &ShellFile, base: &Path, sh: &Shared<'_>) -> Vec<Compared> {
    let suite = sh.suite;
    let (ht, qt) = (base.join("T-original"), base.join("T-ours"));
    let (hs, qs) = (base.join("scratch-original"), base.join("scratch-ours"));
    let prepared = testsuite::copy_fixtures(&sh.fixtures, &ht)
        .and_then(|()| testsuite::copy_fixtures(&sh.fixtures, &qt))
        .and_then(|()| {
            for d in [&hs, &qs] {
                std::fs::create_dir_all(d)
                    .map_err(|e| format!("cannot create {}: {e}", d.display()))?;
            }
            Ok(())
        });
    if let Err(e) = prepared {
        let mut c = Compared::new(
            format!("shelltest/{}", file.name),
            Part::Shelltests,
            file.name.clone(),
            String::new(),
        );
        c.verdict = Verdict::Error(e);
        return vec![c];
    }
    let run = |program: &Path, t: &Path, scratch: &Path| {
        let programs = shell::Programs {
            name: suite.names.original,
            program,
            tools: &sh.tools,
        };
        shell::run_steps(file, &programs, t, &sh.testdata, scratch, suite.cap)
    };
    let h = run(&suite.original, &ht, &hs);
    let q = run(&suite.ours, &qt, &qs);
    let mut out = Vec::new();
    for ((step, hr), qr) in file.steps.iter().zip(h).zip(q) {
        let id = format!("shelltest/{}:{}", file.name, step.test.line);
        if !step.compared {
            if !hr.misses.is_empty() || !qr.misses.is_empty() {
                let mut c = Compared::new(
                    format!("{id} (setup)"),
                    Part::Shelltests,
                    file.name.clone(),
                    step.test.command.clone(),
                );
                c.misses.0 = hr.misses.into_iter().chain(qr.misses).collect();
                out.push(c);
            }
            continue;
        }
        let mut c = Compared::new(
            id,
            Part::Shelltests,
            file.name.clone(),
            step.test.command.clone(),
        );
        c.misses = (hr.misses, qr.misses);
        let (hside, qside) = (
            Side {
                run: hr.run,
                files: BTreeMap::new(),
            },
            Side {
                run: qr.run,
                files: BTreeMap::new(),
            },
        );
        judge(&mut c, ((&hside, &ht), (&qside, &qt)), sh);
        out.push(c);
    }
    out
}
