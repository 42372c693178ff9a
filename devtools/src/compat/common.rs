//! The options every suite reads: the profile and its overrides, the
//! limits of a run, and where Ganeti's test suite is. Each suite's own
//! options are the suite's (`balance::BalanceOptions`, ...); the command
//! line (`config`) gathers them all.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, ValueEnum};

/// The size of a run: which generated corpus each suite takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum Profile {
    /// The small corpus of `make compat` (the default).
    Ci,
    /// The large corpus of `make compat-full`.
    Full,
    /// allocate and multi-allocate on clusters with exclusive-storage
    /// groups (several policy specs, spindles), mixed with ordinary ones.
    Exclusive,
    /// No generated cases.
    None,
}

/// The parts of the suites that compare a program with its original.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Part {
    Generated,
    Cli,
    Shelltests,
    DataFiles,
}

impl Part {
    pub(super) const ALL: [Part; 4] = [
        Part::Generated,
        Part::Cli,
        Part::Shelltests,
        Part::DataFiles,
    ];

    pub(super) fn name(self) -> &'static str {
        match self {
            Part::Generated => "generated",
            Part::Cli => "cli",
            Part::Shelltests => "shelltests",
            Part::DataFiles => "datafiles",
        }
    }

    /// Parses a comma-separated list of part names.
    pub(super) fn parse_list(s: &str) -> Result<Vec<Part>, String> {
        let mut out = Vec::new();
        for w in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let p = Part::ALL
                .into_iter()
                .find(|p| p.name() == w)
                .ok_or_else(|| {
                    format!("unknown part '{w}' (generated, cli, shelltests, datafiles)")
                })?;
            if !out.contains(&p) {
                out.push(p);
            }
        }
        if out.is_empty() {
            return Err("empty list of parts".to_owned());
        }
        out.sort();
        Ok(out)
    }
}

/// What every suite reads: the corpus, the limits, the output.
#[derive(Args, Debug)]
pub(super) struct Common {
    /// The generated corpus: ci (the default), full, exclusive or none
    /// (see INPUTS below).
    #[arg(long, value_enum, default_value = "ci", value_name = "PROFILE")]
    pub(super) profile: Profile,
    /// Generated cases per kind, or the suite's clusters (overrides the
    /// profile).
    #[arg(long, value_name = "N", value_parser = count)]
    pub(super) count: Option<usize>,
    /// Node-count range (overrides the profile).
    #[arg(long, value_name = "MIN-MAX", value_parser = crate::cases::parse_range)]
    pub(super) nodes: Option<(usize, usize)>,
    /// First seed (overrides the profile).
    #[arg(long, value_name = "BASE", value_parser = seed)]
    pub(super) seed: Option<u64>,
    /// Time limit per run (default 120, or the suite's); a timeout of the
    /// original is reported as its timeout, not as a difference.
    #[arg(long, value_name = "SECS", value_parser = timeout)]
    pub(super) timeout: Option<Duration>,
    /// Parallel cases.
    #[arg(long, short = 'j', value_name = "N", default_value = "2", value_parser = jobs)]
    pub(super) jobs: usize,
    /// The accepted differences (default docs/accepted-differences.txt;
    /// see ACCEPTED DIFFERENCES below).
    #[arg(long, value_name = "PATH")]
    pub(super) accepted: Option<PathBuf>,
    /// Copy the inputs (and .args) of differing cases to DIR.
    #[arg(long, value_name = "DIR")]
    pub(super) keep: Option<PathBuf>,
    /// If an original is missing, run
    /// 'apt-get update && apt-get install -y ganeti-htools'.
    #[arg(long)]
    pub(super) install_hail: bool,
    /// Also print one line per case.
    #[arg(long, short = 'v')]
    pub(super) verbose: bool,
}

impl Common {
    /// `--timeout`, else `default`.
    pub(super) fn cap(&self, default: Duration) -> Duration {
        self.timeout.unwrap_or(default)
    }
}

/// Where Ganeti's test suite is, and which parts and runs of a suite to
/// make (balance, squeeze, space, check, info, roll, scan).
#[derive(Args, Debug)]
pub(super) struct TestSuite {
    /// hspace for the shelltest fixtures (default: beside hbal; the space
    /// suite's hspace too).
    #[arg(long, value_name = "PATH")]
    pub(super) hspace: Option<PathBuf>,
    /// An unpacked ganeti-testsuite (its root or its test folder); default:
    /// 'apt-get download ganeti-testsuite=<hbal's version>' and 'dpkg -x'
    /// into --testsuite-cache DIR the first time.
    #[arg(long, value_name = "DIR")]
    pub(super) testsuite: Option<PathBuf>,
    /// Where the test suite is unpacked.
    #[arg(long, value_name = "DIR", default_value = "target/ganeti-testsuite")]
    pub(super) testsuite_cache: PathBuf,
    /// The parts to run, comma-separated: generated, cli, shelltests,
    /// datafiles (default all).
    #[arg(long, value_name = "LIST", value_parser = Part::parse_list, default_value = "generated,cli,shelltests,datafiles")]
    pub(super) parts: ::std::vec::Vec<Part>,
    /// Only the runs whose id matches ('*' any text), e.g. 'gen/drbd/*',
    /// 'cli/*', 'shelltest/htools-hbal.test*'.
    #[arg(long, value_name = "GLOB")]
    pub(super) only: Option<String>,
}

fn count(s: &str) -> Result<usize, String> {
    s.parse().map_err(|_| format!("invalid count '{s}'"))
}

fn seed(s: &str) -> Result<u64, String> {
    s.parse().map_err(|_| format!("invalid seed '{s}'"))
}

fn timeout(s: &str) -> Result<Duration, String> {
    match s.parse::<f64>() {
        Ok(t) if t > 0.0 && t < 1e7 => Ok(Duration::from_secs_f64(t)),
        _ => Err(format!("invalid timeout '{s}'")),
    }
}

fn jobs(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("--jobs must be at least 1".to_owned()),
        Ok(j) => Ok(j),
        Err(_) => Err(format!("invalid job count '{s}'")),
    }
}

/// A setup error of a suite: the message, exit status 2.
pub(super) fn fail(msg: &str) -> ExitCode {
    eprintln!("hailstone-compat: {msg}");
    ExitCode::from(2)
}
