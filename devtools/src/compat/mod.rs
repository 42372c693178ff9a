//! `hailstone-compat`: runs hailstone's programs and Ganeti's originals
//! on the same inputs and compares what they print and write.
//!
//! The compatibility driver used by `make compat` (the `ci` profile) and
//! `make compat-full` (the `full` profile). This module reads the command
//! line ([`config`]) and hands each suite its options: the iallocator
//! answers and the data files ([`answers`]), hbal ([`balance`]), hsqueeze
//! ([`squeeze`]), hailstone-groups judged by hcheck ([`groups`]), hspace
//! ([`space`]), and the programs that only report, hcheck, hinfo, hroller
//! and hscan ([`readonly`] with the specs of [`check`], [`info`], [`roll`]
//! and [`scan`]). Every suite prints its results in case order, so that
//! the output is deterministic, and fails only on a difference that
//! `docs/accepted-differences.txt` (`--accepted`, [`accepted`]) does not
//! list. Against another release's originals, [`version`] wraps our
//! programs.

mod accepted;
mod answers;
mod balance;
mod case;
mod check;
mod classify;
mod common;
mod config;
mod datafiles;
mod groups;
mod info;
mod readonly;
mod report;
mod roll;
mod scan;
mod space;
mod squeeze;
#[cfg(test)]
mod tests;

/// Ganeti's test tree (`.../testsuite/test`) of the `ganeti-testsuite`
/// package of the installed hbal's version (3.0.2-3 when hbal is not
/// installed), downloaded and unpacked under `cache` the first time
/// (`apt-get download`, `dpkg -x`). The integration tests read its
/// `data/htools` files (`make test` sets `HAILSTONE_TESTSUITE_FETCH=1`).
///
/// # Errors
///
/// The package cannot be downloaded or unpacked.
pub fn ganeti_testsuite(cache: &std::path::Path) -> Result<std::path::PathBuf, String> {
    let hbal = std::path::Path::new(balance::DEFAULT_HBAL);
    let version = balance::testsuite::hbal_version(hbal).unwrap_or_else(|_| "3.0.2-3".to_owned());
    balance::testsuite::ensure_testsuite(&crate::oracle::absolute(cache), &version)
}
mod version;

use std::path::Path;
use std::process::ExitCode;

use crate::oracle;
use accepted::read_allowlist;
use answers::Which;
use common::fail;
use config::{Config, Suite};

/// Writes the suite's generated corpus to `dir` (`--dump DIR`); how many
/// cases or clusters.
fn dump(c: &Config, dir: &Path) -> Result<usize, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {}", dir.display(), e))?;
    match c.suite {
        Suite::Space => space::dump(&c.common, dir),
        Suite::Check => check::SPEC.corpus.corpus(&c.common).dump(dir),
        Suite::Info => info::SPEC.corpus.corpus(&c.common).dump(dir),
        Suite::Roll => roll::SPEC.corpus.corpus(&c.common).dump(dir),
        Suite::Scan => scan::SPEC.corpus.corpus(&c.common).dump(dir),
        Suite::DataFiles => answers::dump(&c.common, &c.answers, Which::DataFiles, dir),
        // The suites that generate their clusters as they run write the
        // answers suite's requests.
        Suite::Answers | Suite::Balance | Suite::Squeeze | Suite::Groups => {
            answers::dump(&c.common, &c.answers, Which::Answers, dir)
        }
    }
}

/// The data files of the check suite's generated corpus in its `ci`
/// profile (what `--suite check --dump DIR` writes): each cluster's id and
/// text, in order. For the tests that run other programs on the clusters
/// the suite compares hcheck on (`tests/verdicts.rs`).
///
/// # Errors
///
/// A generated cluster hailstone's reader refuses (a generator bug).
pub fn check_corpus() -> Result<Vec<(String, String)>, String> {
    let c = config::parse_args(&["--suite", "check"]).map_err(|e| e.to_string())?;
    let corpus = check::SPEC.corpus.corpus(&c.common);
    (0..corpus.count)
        .map(|k| corpus.cluster(k).map(|cl| (cl.id, cl.data.text())))
        .collect()
}

/// The tool: `args` are its options (without the program name).
pub fn main(args: &[String]) -> ExitCode {
    let mut c = match config::parse_args(args) {
        Ok(c) => c,
        Err(e) => {
            // Help on stdout (status 0), a usage error on stderr (2).
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    if let Some(version) = c.ganeti.clone() {
        if version == "3.1" && c.originals.is_none() {
            c.set_originals(Path::new(version::ORACLE_3_1), |_| false);
        }
        if !oracle::is_executable(&c.answers.hail) {
            return fail(&format!(
                "no htools of Ganeti {version} at {} (make oracle-3.1 builds them; or pass --originals DIR)",
                c.answers.hail.display()
            ));
        }
        if let Err(e) = version::wrap_ours(c.ours(), &version) {
            return fail(&e);
        }
        if version == "3.1" && c.testsuite.testsuite.is_none() {
            match version::testsuite_of_debian_3_0(&c.testsuite.testsuite_cache) {
                Ok(t) => c.testsuite.testsuite = Some(t),
                Err(e) => return fail(&e),
            }
        }
    }
    if let Some(dir) = c.dump.clone() {
        return match dump(&c, &dir) {
            Ok(n) => {
                println!("wrote {} generated cases to {}", n, dir.display());
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e),
        };
    }
    let (common, t) = (&c.common, &c.testsuite);
    let readonly = match c.suite {
        Suite::Answers => return answers::run(common, &c.answers, Which::Answers),
        Suite::DataFiles => return answers::run(common, &c.answers, Which::DataFiles),
        Suite::Groups => {
            return groups::run_groups(common, &c.groups, &c.check.hcheck, &c.balance.hbal)
        }
        Suite::Balance | Suite::Squeeze | Suite::Space => None,
        Suite::Check => Some((&check::SPEC, c.check.programs())),
        Suite::Info => Some((&info::SPEC, c.info.programs())),
        Suite::Roll => Some((&roll::SPEC, c.roll.programs())),
        Suite::Scan => Some((&scan::SPEC, c.scan.programs())),
    };
    let allow = match read_allowlist(common.accepted.as_deref()) {
        Ok(a) => a,
        Err(e) => return fail(&e),
    };
    match (c.suite, readonly) {
        (_, Some((spec, programs))) => readonly::run_suite(common, t, spec, &programs, &allow),
        (Suite::Balance, _) => balance::run_balance(common, t, &c.balance, &allow),
        (Suite::Squeeze, _) => squeeze::run_squeeze(common, t, &c.squeeze, &allow),
        _ => space::run_space(common, t, &c.space, &c.answers.hail, &allow),
    }
}
