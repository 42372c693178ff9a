//! The space suite (`--suite space`): Ganeti's `hspace` against
//! `hailstone-space`, which must print the same bytes on stdout and
//! stderr, exit with the same status and write the same `-S FILE` files
//! (`FILE.tiered`, `FILE.standard`).
//!
//! Four parts, each a list of runs made on the ordered pool:
//!
//! * `generated` — clusters from the request generator saved as data files
//!   ([`clusters`]): plain, drbd, ext, file, sharedfile and mixed
//!   instances, one to three node groups, tags, offline and drained nodes,
//!   exclusive storage on some, memory and disk filled apart, and instance
//!   policies rewritten so that hspace finishes (its tiered allocation
//!   shrinks the spec one unit at a time). Each cluster runs with its
//!   defaults, then with option families in turn over the corpus
//!   ([`clusters::FAMILIES`]).
//! * `cli` — the help, version and completion texts, bad option values,
//!   bad and missing data files, `--simulate`, on the first cluster.
//! * `shelltests` — every test of Ganeti's `htools-hspace.test` and the
//!   hspace tests of the other shelltest files, from the
//!   `ganeti-testsuite` package: a test must meet its expectations with
//!   both programs (its `$T` the program's own output folder) and give
//!   hspace's bytes; the real hspace must pass them all.
//! * `model` — `--allocator-model` against hail asked one instance at a
//!   time on the same generated clusters ([`model`]).
//! * `datafiles` — every `data/htools/*.data` file of the test suite with
//!   three option sets (seven in the full profile), and the tiered data
//!   files (and `hspace-existing.data`) with one resource of their
//!   instance policies set far above the nodes ([`policies`]: 13 runs,
//!   29 in the full profile).
//!
//! A run where hspace reaches the cap is listed apart as an hspace
//! timeout, not as a difference. Differences are accepted only by a
//! `space:<id glob>` pattern of the accepted list
//! (`docs/accepted-differences.txt`); where the difference is one of the
//! kinds [`checks`] knows (help and version texts, data file errors,
//! hspace's crash on an instance in two groups), it must also be exactly
//! that kind.

mod checks;
mod clusters;
mod model;
mod policies;
mod report;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use super::accepted::{glob_match, is_accepted};
use super::balance::datafile::{self, inst};
use super::balance::shelltest::{self, ShellTest};
use super::balance::side::{self, Folders, Side};
use super::balance::testsuite;
use super::common::{Common, Profile, TestSuite};
use crate::cases::shell_quote;
use crate::oracle;
use crate::process::{self, Status};
use checks::{Known, Texts};
use clusters::{Cluster, Scale};

/// The space suite's own options (hspace itself is `--hspace`, the
/// shelltest fixtures' program: [`TestSuite::hspace`]).
#[derive(clap::Args, Debug)]
pub(super) struct SpaceOptions {
    /// The program compared.
    #[arg(long, value_name = "PATH", default_value = DEFAULT_SPACE)]
    pub(super) space_bin: PathBuf,
}

pub(super) const DEFAULT_HSPACE: &str = "/usr/lib/ganeti/3.0/usr/bin/hspace";
pub(super) const DEFAULT_SPACE: &str = "target/release/hailstone-space";

/// The parts of the suite.
const PARTS: [&str; 5] = ["generated", "model", "cli", "shelltests", "datafiles"];

/// What a profile runs.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Corpus {
    pub(super) count: usize,
    pub(super) scale: Scale,
    pub(super) seed: u64,
    /// Family runs per cluster after its default run.
    pub(super) extra: usize,
    /// The option sets of the data files.
    pub(super) datafile_sets: &'static [(&'static str, &'static [&'static str])],
    /// The rewritten policies of the tiered data files.
    pub(super) policy_rewrites: &'static [policies::Rewrite],
    /// The cap per run.
    pub(super) cap: Duration,
}

/// The data file option sets of the ci profile.
const DATAFILE_SETS_CI: [(&str, &[&str]); 3] = [
    ("default", &[]),
    (
        "machine-readable+independent-groups",
        &["--machine-readable", "--independent-groups"],
    ),
    (
        "accept-existing-errors+vvvv+save",
        &[
            "--accept-existing-errors",
            "-v",
            "-v",
            "-v",
            "-v",
            "-S",
            "{OUT}/state",
        ],
    ),
];

/// The data file option sets of the full profile.
const DATAFILE_SETS_FULL: [(&str, &[&str]); 7] = [
    ("default", &[]),
    ("machine-readable", &["--machine-readable"]),
    ("no-capacity-checks", &["--no-capacity-checks"]),
    ("independent-groups", &["--independent-groups"]),
    (
        "accept-existing-errors",
        &["--accept-existing-errors", "-v", "-v"],
    ),
    ("vvvv+save", &["-v", "-v", "-v", "-v", "-S", "{OUT}/state"]),
    ("print-nodes", &["-pname,pcnt,fmem,fdsk,tags"]),
];

/// The profile's corpus, with `--count`, `--nodes`, `--seed` and
/// `--timeout` applied.
pub(super) fn corpus(c: &Common) -> Corpus {
    let full = c.profile == Profile::Full;
    let (count, nodes, seed) = match c.profile {
        Profile::Full => (200, (2, 12), 7000),
        Profile::None => (0, (2, 6), 1),
        Profile::Ci | Profile::Exclusive => (40, (2, 6), 1),
    };
    Corpus {
        count: c.count.unwrap_or(count),
        scale: Scale {
            nodes: c.nodes.unwrap_or(nodes),
            fits: if full { (4, 48) } else { (4, 30) },
            width: if full { (0, 64) } else { (0, 32) },
        },
        seed: c.seed.unwrap_or(seed),
        extra: if full { 5 } else { 3 },
        datafile_sets: if full {
            &DATAFILE_SETS_FULL
        } else {
            &DATAFILE_SETS_CI
        },
        policy_rewrites: if full { policies::FULL } else { policies::CI },
        cap: c.cap(if full {
            Duration::from_secs(300)
        } else {
            Duration::from_secs(60)
        }),
    }
}

/// Writes the profile's generated clusters as `DIR/<id>.data` (`/`
/// written `_`); returns how many.
pub(super) fn dump(c: &Common, dir: &Path) -> Result<usize, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let corpus = corpus(c);
    for k in 0..corpus.count {
        let cl = clusters::generate_cluster(k, corpus.seed.wrapping_add(k as u64), &corpus.scale)?;
        let path = dir.join(format!("{}.data", crate::cases::file_stem(&cl.id)));
        std::fs::write(&path, cl.data.text())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(corpus.count)
}

/// One run of both programs: `{IN}` is the input folder, `{OUT}` each
/// program's output folder (and working directory).
#[derive(Clone, Debug)]
pub(super) struct RunSpec {
    pub(super) id: String,
    pub(super) part: &'static str,
    pub(super) family: &'static str,
    pub(super) args: Vec<String>,
    pub(super) files: Vec<(String, String)>,
}

/// One unit of work.
enum Work {
    Run(RunSpec),
    /// `--allocator-model` against hail one request at a time: the
    /// cluster's id and data file, and the disk template.
    Model(String, String, &'static str),
    /// A shelltest: its file's name and the test.
    Shell(String, ShellTest),
}

/// How a comparison ended.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Verdict {
    Identical,
    Different,
    /// hspace reached the cap (not a difference).
    HspaceCapped,
    /// hailstone-space reached the cap and hspace did not.
    SpaceCapped,
    /// A model run where the counts agree as far as hail's chain went:
    /// hail died saving its state (`class:hail-save-crash`).
    HailSaveCrash,
    /// A model run where hailstone-space refused to count (no online node
    /// for the template, or a policy that refuses it): nothing compared.
    Skipped,
    Error(String),
}

/// What hspace answered, for the report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Outcome {
    /// It exited with a non-zero status.
    pub(super) error: bool,
    /// Instances of the tiered allocation.
    pub(super) tiered: Option<u64>,
    /// Instances of the standard allocation.
    pub(super) standard: Option<u64>,
}

/// The instances hspace's output reports (human or machine-readable).
pub(super) fn outcome(status: &Status, stdout: &str) -> Outcome {
    let mut o = Outcome {
        error: *status != Status::Exited(0),
        ..Outcome::default()
    };
    for line in stdout.lines() {
        let t = line.trim_start_matches([' ', '-']).trim_start();
        if t == "no instances allocated" {
            // The tiered allocation's line when it placed nothing.
            o.tiered.get_or_insert(0);
        } else if let Some(n) = t.strip_suffix(" instances allocated") {
            o.standard = n.trim().parse().ok();
        } else if let Some((n, _)) = t.split_once(" instances of spec ") {
            *o.tiered.get_or_insert(0) += n.trim().parse::<u64>().unwrap_or(0);
        } else if let Some(n) = line.strip_prefix("HTS_ALLOC_INSTANCES=") {
            o.standard = n.parse().ok();
        } else if let Some(spec) = line.strip_prefix("HTS_TSPEC=") {
            let spec = spec.trim_matches('\'');
            o.tiered = Some(
                spec.split_whitespace()
                    .filter_map(|s| s.rsplit_once('=').and_then(|(_, n)| n.parse::<u64>().ok()))
                    .sum(),
            );
        }
    }
    o
}

/// One comparison.
struct Compared {
    id: String,
    part: &'static str,
    family: &'static str,
    /// hspace's command line.
    command: String,
    verdict: Verdict,
    differences: Vec<String>,
    accepted: bool,
    /// The known difference it was checked to be.
    known: Option<Known>,
    /// Expectations a shelltest misses: hspace's, hailstone-space's.
    misses: (Vec<String>, Vec<String>),
    walls: (Duration, Duration),
    outcome: Outcome,
}

impl Compared {
    fn unexplained(&self) -> bool {
        !self.misses.1.is_empty()
            || match self.verdict {
                Verdict::Identical
                | Verdict::HspaceCapped
                | Verdict::HailSaveCrash
                | Verdict::Skipped => false,
                Verdict::Different => !self.accepted,
                Verdict::SpaceCapped | Verdict::Error(_) => true,
            }
    }
}

/// Bad input, the texts and `--simulate`, on a generated cluster.
pub(super) fn cli_runs(cluster: &Cluster) -> Vec<RunSpec> {
    let t: &[&str] = &["-t", "{IN}/cluster.data"];
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("help", vec!["--help"]),
        ("version", vec!["--version"]),
        ("version-short", vec!["-V"]),
        ("completion", vec!["--help-completion"]),
        ("disk-template-foo", [&["--disk-template=foo"], t].concat()),
        (
            "standard-alloc-short",
            [&["--standard-alloc=1,2"], t].concat(),
        ),
        (
            "tiered-alloc-bad-unit",
            [&["--tiered-alloc=1x,2,3"], t].concat(),
        ),
        ("spindle-use-negative", [&["--spindle-use=-1"], t].concat()),
        (
            "machine-readable-maybe",
            [&["--machine-readable=maybe"], t].concat(),
        ),
        ("max-cpu-not-a-number", [&["--max-cpu=x"], t].concat()),
        ("unknown-option", [&["--bogus"], t].concat()),
        ("missing-value", [t, &["-l"]].concat()),
        ("extra-argument", [t, &["extra"]].concat()),
        ("no-backend", vec![]),
        ("two-backends", [&["-L"], t].concat()),
        ("missing-file", vec!["-t", "{IN}/no-such.data"]),
        ("unknown-node", vec!["-t", "{IN}/unknown-node.data"]),
        ("bad-file", vec!["-t", "{IN}/bad.data"]),
        (
            "unknown-offline-node",
            [&["-O", "no-such-node"], t].concat(),
        ),
        (
            "save-bad-path",
            [&["-S", "{OUT}/no/dir/x", "-l", "2"], t].concat(),
        ),
        ("max-length-zero", [&["-l", "0"], t].concat()),
        (
            "abbreviations",
            [&["--machine", "--indep", "--no-cap", "-l", "3"], t].concat(),
        ),
        (
            "simulate-plain",
            vec![
                "--simulate=p,3,1T,16g,8",
                "--disk-template=plain",
                "-l",
                "5",
            ],
        ),
        (
            "simulate-two-groups",
            vec![
                "--simulate=p,2,512g,8g,4",
                "--simulate=u,2,512g,8g,4",
                "--disk-template=drbd",
                "-l",
                "3",
                "--machine-readable",
            ],
        ),
        ("simulate-bad", vec!["--simulate=p,x"]),
    ];
    let mut unknown = cluster.data.clone();
    match unknown.instances_mut().first_mut() {
        Some(i) => datafile::set(i, inst::PNODE, "no-such-node"),
        None => unknown.instances_mut().push(
            "new-0|128|1024|1|running|Y|no-such-node||plain||1|-|N"
                .split('|')
                .map(str::to_owned)
                .collect(),
        ),
    }
    let files = vec![
        ("cluster.data".to_owned(), cluster.data.text()),
        ("unknown-node.data".to_owned(), unknown.text()),
        ("bad.data".to_owned(), "group|uuid\n".to_owned()),
    ];
    cases
        .into_iter()
        .map(|(name, args)| RunSpec {
            id: format!("cli/{name}"),
            part: "cli",
            family: "cli",
            args: args.into_iter().map(str::to_owned).collect(),
            files: files.clone(),
        })
        .collect()
}

/// The runs on Ganeti's data files.
fn datafile_runs(
    testdata: &Path,
    sets: &'static [(&'static str, &'static [&'static str])],
) -> Result<Vec<RunSpec>, String> {
    Ok(testsuite::datafile_cases(testdata, sets)?
        .into_iter()
        .map(|c| RunSpec {
            id: c.id,
            part: "datafiles",
            family: c.set,
            args: c.args,
            files: Vec::new(),
        })
        .collect())
}

/// The program a shelltest runs from Ganeti's build tree.
const PROGRAM: &str = "./test/hs/hspace";

/// The shelltests that run hspace: all of `htools-hspace.test` and those
/// of the other files, by file name in order.
pub(super) fn shell_tests(test_dir: &Path) -> Result<Vec<(String, ShellTest)>, String> {
    let dir = test_dir.join("hs/shelltests");
    let paths = testsuite::files_with_extension(&dir, "test")?;
    let mut out = Vec::new();
    let mut own = 0;
    for p in paths {
        let name = p
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let text =
            std::fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        let tests = shelltest::parse(&text).map_err(|e| format!("{name}: {e}"))?;
        for t in tests {
            if t.command.contains(PROGRAM) {
                if name == "htools-hspace.test" {
                    own += 1;
                }
                out.push((name.clone(), t));
            }
        }
    }
    if own == 0 {
        return Err(format!(
            "{} has no htools-hspace.test with hspace tests",
            dir.display()
        ));
    }
    Ok(out)
}

/// What the workers share.
struct Shared<'a> {
    hspace: PathBuf,
    hail: PathBuf,
    space: PathBuf,
    tmp: PathBuf,
    cap: Duration,
    allow: &'a [String],
    keep: Option<PathBuf>,
    testdata: PathBuf,
    /// Both programs' `--help` texts (for the usage after an error).
    helps: (String, String),
}

const NAMES: (&str, &str) = ("hspace", "hailstone-space");

fn fail(msg: &str) -> ExitCode {
    eprintln!("hailstone-compat: {msg}");
    ExitCode::from(2)
}

/// `program --help`'s stdout.
fn help_of(program: &Path) -> String {
    std::process::Command::new(program)
        .arg("--help")
        .env("LC_ALL", "C.UTF-8")
        .stdin(std::process::Stdio::null())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// Runs the suite.
pub(super) fn run_space(
    c: &Common,
    b: &TestSuite,
    s: &SpaceOptions,
    hail: &Path,
    allow: &[String],
) -> ExitCode {
    let hspace = oracle::absolute(b.hspace.as_deref().unwrap_or(Path::new(DEFAULT_HSPACE)));
    let space = oracle::absolute(&s.space_bin);
    if let Err(e) = oracle::ensure_program(&hspace, "hspace", c.install_hail, "hailstone-compat") {
        return fail(&e);
    }
    if !oracle::is_executable(&space) {
        return fail(&format!(
            "hailstone-space binary {} not found or not executable (build it with 'cargo build --release' or pass --space-bin PATH)",
            space.display()
        ));
    }
    let corpus = corpus(c);
    let started = Instant::now();
    let parts: Vec<&str> = b
        .parts
        .iter()
        .map(|p| p.name())
        .filter(|p| PARTS.contains(p))
        .collect();
    let wants = |p: &str| parts.contains(&p);
    let selected = |id: &str| b.only.as_ref().is_none_or(|g| glob_match(g, id));
    let mut work: Vec<Work> = Vec::new();
    let mut first: Option<Cluster> = None;
    let made = if wants("generated") { corpus.count } else { 0 };
    let made = if wants("cli") { made.max(1) } else { made };
    let mut features: BTreeMap<String, usize> = BTreeMap::new();
    let mut family_runs = 0usize;
    for k in 0..made {
        let cl = match clusters::generate_cluster(
            k,
            corpus.seed.wrapping_add(k as u64),
            &corpus.scale,
        ) {
            Ok(x) => x,
            Err(e) => return fail(&e),
        };
        if wants("generated") && k < corpus.count {
            let shape = cl.id.split('/').nth(1).unwrap_or("");
            *features.entry(shape.to_owned()).or_default() += 1;
            for f in &cl.features {
                *features.entry((*f).to_owned()).or_default() += 1;
            }
            let files = vec![("cluster.data".to_owned(), cl.data.text())];
            for t in model::TEMPLATES {
                let id = format!("model/{}#{t}", cl.id);
                if cl.templates.iter().any(|a| a == t) && selected(&id) {
                    work.push(Work::Model(id, cl.data.text(), t));
                }
            }
            for r in clusters::runs(&cl, k, corpus.extra, &mut family_runs) {
                if selected(&r.id) {
                    work.push(Work::Run(RunSpec {
                        id: r.id,
                        part: "generated",
                        family: r.family,
                        args: r.args,
                        files: files.clone(),
                    }));
                }
            }
        }
        if first.is_none() {
            first = Some(cl);
        }
    }
    if wants("cli") {
        if let Some(cl) = &first {
            work.extend(
                cli_runs(cl)
                    .into_iter()
                    .filter(|r| selected(&r.id))
                    .map(Work::Run),
            );
        }
    }
    let mut testdata = PathBuf::new();
    if wants("shelltests") || wants("datafiles") {
        let cache = oracle::absolute(&b.testsuite_cache);
        let test_dir = match testsuite::resolve_test_dir(b.testsuite.as_deref(), &hspace, &cache) {
            Ok(t) => t,
            Err(e) => return fail(&e),
        };
        testdata = test_dir.join("data/htools");
        if wants("shelltests") {
            match shell_tests(&test_dir) {
                Ok(tests) => work.extend(
                    tests
                        .into_iter()
                        .filter(|(f, t)| selected(&format!("shelltest/{f}:{}", t.line)))
                        .map(|(f, t)| Work::Shell(f, t)),
                ),
                Err(e) => return fail(&e),
            }
        }
        if wants("datafiles") {
            let runs = datafile_runs(&testdata, corpus.datafile_sets).and_then(|mut runs| {
                runs.extend(policies::runs(&testdata, corpus.policy_rewrites)?);
                Ok(runs)
            });
            match runs {
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
    let keep = match &c.keep {
        Some(k) => match std::fs::create_dir_all(k) {
            Ok(()) => Some(oracle::absolute(k)),
            Err(e) => return fail(&format!("cannot create {}: {e}", k.display())),
        },
        None => None,
    };
    let tmp = match process::temp_dir("hailstone-compat-space") {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    let shared = Shared {
        helps: (help_of(&hspace), help_of(&space)),
        hspace: hspace.clone(),
        hail: oracle::absolute(hail),
        space: space.clone(),
        tmp: tmp.clone(),
        cap: corpus.cap,
        allow,
        keep,
        testdata,
    };
    eprintln!(
        "hailstone-compat: space suite, {} runs ({} generated clusters of {}-{} nodes), cap {} s, {} jobs",
        work.len(),
        if wants("generated") { corpus.count } else { 0 },
        corpus.scale.nodes.0,
        corpus.scale.nodes.1,
        corpus.cap.as_secs_f64(),
        c.jobs
    );
    let total = work.len();
    let mut results: Vec<Compared> = Vec::new();
    let mut skipped = 0usize;
    process::ordered_pool(
        &work,
        c.jobs,
        |_, worker, w| compare(w, &shared.tmp.join(format!("worker{worker}")), &shared),
        |printed, r| {
            if c.verbose {
                let mark = if r.unexplained() {
                    "DIFF"
                } else if r.verdict == Verdict::HspaceCapped {
                    "cap "
                } else if r.accepted {
                    "acc "
                } else {
                    "ok  "
                };
                println!(
                    "{mark} {} ({:.1} s, {:.1} s)",
                    r.id,
                    r.walls.0.as_secs_f64(),
                    r.walls.1.as_secs_f64()
                );
            }
            if r.verdict == Verdict::Skipped {
                skipped += 1;
            } else {
                results.push(r);
            }
            if (printed + 1).is_multiple_of(100) && printed + 1 < total {
                eprintln!("hailstone-compat: {}/{total} runs", printed + 1);
            }
        },
    );
    let _ = std::fs::remove_dir_all(&tmp);
    print!("{}", report::report(&results, &features, &hspace, &space));
    let model: Vec<&Compared> = results.iter().filter(|r| r.part == "model").collect();
    if !model.is_empty() || skipped > 0 {
        let counts: Vec<u64> = model.iter().filter_map(|r| r.outcome.standard).collect();
        let (hail, ours) = model.iter().fold((0.0, 0.0), |(a, b), r| {
            (a + r.walls.0.as_secs_f64(), b + r.walls.1.as_secs_f64())
        });
        println!(
            "\n--allocator-model against hail one request at a time: {} comparisons ({} with instances, {} instances in all; hail {:.1} s, hailstone-space {:.1} s), {} where hailstone-space refuses to count, {} compared as far as hail went before dying saving its state (class:hail-save-crash)",
            model.len(),
            counts.iter().filter(|&&c| c > 0).count(),
            counts.iter().sum::<u64>(),
            hail,
            ours,
            skipped,
            model
                .iter()
                .filter(|r| r.verdict == Verdict::HailSaveCrash)
                .count()
        );
    }
    let (h, q) = results.iter().fold((0.0, 0.0), |(a, b), r| {
        (a + r.walls.0.as_secs_f64(), b + r.walls.1.as_secs_f64())
    });
    eprintln!(
        "hailstone-compat: {} space comparisons in {:.1} s wall time; hspace {:.1} s, hailstone-space {:.1} s (summed run times)",
        results.len(),
        started.elapsed().as_secs_f64(),
        h,
        q
    );
    if results.iter().any(|r| !r.misses.0.is_empty()) {
        println!(
            "\nERROR: the real hspace ({}) fails some of Ganeti's own shelltests (listed above): the oracle environment is wrong",
            hspace.display()
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

/// A side's outputs as text, its output folder written `{OUT}`.
fn texts(s: &Side, out: &Path) -> Texts {
    Texts {
        status: s.run.status.clone(),
        stdout: side::normalise(&s.run.stdout, out, "{OUT}"),
        stderr: side::normalise(&s.run.stderr, out, "{OUT}"),
        files: s
            .files
            .iter()
            .map(|(n, b)| (n.clone(), side::normalise(b, out, "{OUT}").into_bytes()))
            .collect(),
    }
}

/// Compares one model run (see [`model`]).
fn model_compared(
    mut out: Compared,
    id: &str,
    data: &str,
    template: &'static str,
    base: &Path,
    sh: &Shared<'_>,
) -> Compared {
    out.id = id.to_owned();
    out.part = "model";
    out.family = template;
    out.command = format!(
        "{} --allocator-model --machine-readable --disk-template={template} -t CLUSTER, then {} -t STATE -S NEXT REQUEST per instance",
        sh.space.display(),
        sh.hail.display()
    );
    match model::compare(
        &sh.space,
        &sh.hail,
        data,
        template,
        &base.join("model"),
        sh.cap,
    ) {
        Ok(Some(r)) => {
            out.walls = r.walls;
            out.outcome.standard = Some(r.count as u64);
            out.verdict = if r.differences.is_empty() && r.save_crash.is_some() {
                Verdict::HailSaveCrash
            } else if r.differences.is_empty() {
                Verdict::Identical
            } else {
                Verdict::Different
            };
            out.differences = r.differences;
            out.accepted = out.verdict == Verdict::HailSaveCrash
                || out.verdict == Verdict::Different
                    && is_accepted(sh.allow, &format!("space:{}", out.id));
        }
        Ok(None) => out.verdict = Verdict::Skipped,
        Err(e) => out.verdict = Verdict::Error(e),
    }
    out
}

/// Runs one unit with both programs and compares them.
fn compare(w: &Work, base: &Path, sh: &Shared<'_>) -> Compared {
    let mut out = Compared {
        id: String::new(),
        part: "",
        family: "",
        command: String::new(),
        verdict: Verdict::Identical,
        differences: Vec::new(),
        accepted: false,
        known: None,
        misses: (Vec::new(), Vec::new()),
        walls: (Duration::ZERO, Duration::ZERO),
        outcome: Outcome::default(),
    };
    let (hf, qf) = (Folders::new(base, "hspace"), Folders::new(base, "space"));
    let result = match w {
        Work::Model(id, data, template) => {
            return model_compared(out, id, data, template, base, sh);
        }
        Work::Run(spec) => {
            out.id = spec.id.clone();
            out.part = spec.part;
            out.family = spec.family;
            out.command = command_line(&sh.hspace, &spec.args);
            side::run_pair(
                (&sh.hspace, &sh.space),
                &spec.args,
                &spec.files,
                base,
                (&hf, &qf),
                sh.cap,
            )
        }
        Work::Shell(file, test) => {
            out.id = format!("shelltest/{file}:{}", test.line);
            out.part = "shelltests";
            out.family = if file == "htools-hspace.test" {
                "htools-hspace.test"
            } else {
                "other files"
            };
            out.command = test.command.clone();
            shell_pair(test, sh, base, &hf, &qf).map(|(h, q)| {
                let check = |s: &Side| {
                    if s.run.status == Status::Capped {
                        return vec!["stopped at the cap".to_owned()];
                    }
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
    let (h, q) = match result {
        Ok(x) => x,
        Err(e) => {
            out.verdict = Verdict::Error(e);
            return out;
        }
    };
    out.walls = (h.run.wall, q.run.wall);
    out.outcome = outcome(&h.run.status, &String::from_utf8_lossy(&h.run.stdout));
    out.verdict = match (&h.run.status, &q.run.status) {
        (Status::Capped, _) => Verdict::HspaceCapped,
        (_, Status::Capped) => {
            out.differences.push(format!(
                "hailstone-space reached the cap ({} s); hspace took {:.1} s",
                sh.cap.as_secs_f64(),
                h.run.wall.as_secs_f64()
            ));
            Verdict::SpaceCapped
        }
        _ => {
            out.differences = side::differences_of(NAMES, &h, &hf.out, &q, &qf.out);
            if out.differences.is_empty() {
                Verdict::Identical
            } else {
                Verdict::Different
            }
        }
    };
    if out.verdict == Verdict::Different {
        let listed = is_accepted(sh.allow, &format!("space:{}", out.id));
        let (ht, qt) = (texts(&h, &hf.out), texts(&q, &qf.out));
        out.known = checks::known_kind(&ht, &sh.helps.0).or_else(|| {
            super::readonly::known::is_hint(&ht.stderr, &qt.stderr).then_some(checks::Known::Hint)
        });
        // An error followed by what is valid is accepted by its class.
        let pattern = listed
            || (out.known == Some(checks::Known::Hint)
                && super::accepted::accepts_class(sh.allow, super::accepted::HINT_CLASS));
        let checked = out
            .known
            .map(|k| checks::check(k, &ht, &qt, (&sh.helps.0, &sh.helps.1)));
        out.accepted = pattern && !matches!(checked, Some(Err(_)));
        if let (true, Some(k), Some(Err(why))) = (pattern, out.known, &checked) {
            out.differences.insert(
                0,
                format!(
                    "an accepted pattern names this run, but the difference is not only {}: {why}",
                    k.describe()
                ),
            );
        }
    }
    if out.unexplained() {
        if let (Some(keep), Work::Run(spec)) = (&sh.keep, w) {
            if !spec.files.is_empty() {
                let dir =
                    keep.join(crate::cases::file_stem(&spec.id).replace([' ', '#', '='], "_"));
                let _ = std::fs::create_dir_all(&dir);
                for (name, text) in &spec.files {
                    let _ = std::fs::write(dir.join(name), text);
                }
                out.command = command_line(
                    &sh.hspace,
                    &side::expand(&spec.args, &dir, Path::new("{OUT}")),
                );
            }
        }
    }
    out
}

/// The command line of `program` with `args`, for the report.
fn command_line(program: &Path, args: &[String]) -> String {
    let mut parts = vec![shell_quote(&program.display().to_string())];
    parts.extend(args.iter().map(|a| shell_quote(a)));
    parts.join(" ")
}

/// Runs a shelltest's command with each program, `$T` being the program's
/// own output folder.
fn shell_pair(
    test: &ShellTest,
    sh: &Shared<'_>,
    base: &Path,
    hf: &Folders,
    qf: &Folders,
) -> Result<(Side, Side), String> {
    let run = |program: &Path, f: &Folders| -> Result<Side, String> {
        f.reset()?;
        let vars = testsuite::variables(&f.out, &sh.testdata);
        let mut command = testsuite::expand_vars(&test.command, &vars)
            .replace(PROGRAM, &shell_quote(&program.display().to_string()));
        if let Some(input) = &test.stdin {
            let path = base.join("stdin");
            std::fs::write(&path, input)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            command = format!(
                "( {command}\n) < {}",
                shell_quote(&path.display().to_string())
            );
        }
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
    Ok((run(&sh.hspace, hf)?, run(&sh.space, qf)?))
}
