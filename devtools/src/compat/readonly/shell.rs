//! Ganeti's shelltests of one read-only program (`hcheck`, `hinfo`): the
//! tests of every `hs/shelltests/*.test` file that run it, and the earlier
//! tests of the same file that make the `$T` files those tests read.
//!
//! Most of these tests read the fixtures Ganeti's `offline-test.sh` makes
//! with hspace (`$T/simu-onegroup.standard`, `$BACKEND_BAL_STD`, ...;
//! [`testsuite::make_fixtures`]), but some read what an earlier test of
//! their file saved: `htools-balancing.test`'s hcheck reads
//! `$T/simu-rebal.standard.balanced`, which its hbal `-S
//! $T/simu-rebal.standard` wrote. Such earlier tests (the "setup" steps)
//! run with the real htools program they name, from the original's
//! folder, in each side's own `$T` before the tests that need them, as the
//! balance suite runs a file's tests in order in a fresh copy of the
//! fixtures; only the program's own tests are compared.

use std::path::Path;
use std::time::Duration;

use super::super::balance::shelltest::{self, ShellTest};
use super::super::balance::testsuite;
use crate::cases::shell_quote;
use crate::process::{self, Run, Status};

/// Where a shelltest finds the htools programs in Ganeti's build tree.
pub const TOOLS: &str = "./test/hs/";

/// One test of a file: compared, or run only to make the `$T` files a
/// later compared test reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub test: ShellTest,
    pub compared: bool,
}

/// A shelltest file with tests of the program: its name and its steps in
/// file order.
#[derive(Clone, Debug)]
pub struct ShellFile {
    pub name: String,
    pub steps: Vec<Step>,
}

/// Whether `command` runs `./test/hs/<program>` (the whole name).
pub fn runs_program(command: &str, program: &str) -> bool {
    let tag = format!("{TOOLS}{program}");
    command.match_indices(&tag).any(|(at, _)| {
        command[at + tag.len()..]
            .chars()
            .next()
            .is_none_or(|c| c.is_whitespace() || ";|&)".contains(c))
    })
}

/// The steps of a file's tests for `program`: its own tests, and before
/// them the earlier tests that run an htools program and name a `$T`
/// path that starts a path a later test of `program` reads (one that is
/// not a fixture).
pub fn select(tests: Vec<ShellTest>, program: &str, fixtures: &[String]) -> Vec<Step> {
    let compared: Vec<bool> = tests
        .iter()
        .map(|t| runs_program(&t.command, program))
        .collect();
    let mut out = Vec::new();
    for (k, test) in tests.iter().enumerate() {
        if compared[k] {
            out.push(Step {
                test: test.clone(),
                compared: true,
            });
            continue;
        }
        if !test.command.contains(TOOLS) {
            continue;
        }
        let later: Vec<&str> = tests[k + 1..]
            .iter()
            .zip(&compared[k + 1..])
            .filter(|(_, c)| **c)
            .flat_map(|(t, _)| testsuite::t_paths(&t.command))
            .filter(|p| !fixtures.iter().any(|f| f == p))
            .collect();
        let makes = testsuite::t_paths(&test.command)
            .into_iter()
            .any(|p| !p.is_empty() && later.iter().any(|l| l.starts_with(p)));
        if makes {
            out.push(Step {
                test: test.clone(),
                compared: false,
            });
        }
    }
    out
}

/// The shelltest files with tests of `program`, in name order.
///
/// # Errors
///
/// A folder or file that cannot be read or parsed, or no test of
/// `program` in any file.
pub fn program_files(
    test_dir: &Path,
    program: &str,
    fixtures: &[String],
) -> Result<Vec<ShellFile>, String> {
    let dir = test_dir.join("hs/shelltests");
    let paths = testsuite::files_with_extension(&dir, "test")?;
    let mut out = Vec::new();
    for p in paths {
        let name = p
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let text =
            std::fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        let tests = shelltest::parse(&text).map_err(|e| format!("{name}: {e}"))?;
        let steps = select(tests, program, fixtures);
        if steps.iter().any(|s| s.compared) {
            out.push(ShellFile { name, steps });
        }
    }
    if out.is_empty() {
        return Err(format!(
            "no shelltest in {} runs {TOOLS}{program}",
            dir.display()
        ));
    }
    Ok(out)
}

/// One step run with one program.
pub struct StepRun {
    pub run: Run,
    /// The expectations of its test it misses.
    pub misses: Vec<String>,
}

/// The programs of one side of a file's run.
pub struct Programs<'a> {
    /// The name the tests run (`hcheck`).
    pub name: &'a str,
    /// The program compared run in its place.
    pub program: &'a Path,
    /// The folder of the real htools the setup steps run.
    pub tools: &'a Path,
}

/// Runs a file's steps in order in `t` (a fresh copy of the fixtures),
/// each with `sh -c` (and its `<<<` text, if any, on standard input): the
/// compared tests with `p.program`, the setup steps with the real tools.
pub fn run_steps(
    file: &ShellFile,
    p: &Programs<'_>,
    t: &Path,
    testdata: &Path,
    scratch: &Path,
    cap: Duration,
) -> Vec<StepRun> {
    let vars = testsuite::variables(t, testdata);
    let program = shell_quote(&p.program.display().to_string());
    let tools = format!("{}/", shell_quote(&p.tools.display().to_string()));
    let tag = format!("{TOOLS}{}", p.name);
    file.steps
        .iter()
        .map(|step| {
            let mut command = testsuite::expand_vars(&step.test.command, &vars);
            if step.compared {
                command = command.replace(&tag, &program);
            }
            command = command.replace(TOOLS, &tools);
            if let Some(input) = &step.test.stdin {
                let path = scratch.join("stdin");
                if std::fs::write(&path, input).is_ok() {
                    command = format!(
                        "( {command}\n) < {}",
                        shell_quote(&path.display().to_string())
                    );
                }
            }
            let run = process::run(&process::Invocation {
                program: Path::new("/bin/sh"),
                args: vec!["-c".into(), command.into()],
                cwd: t,
                cap,
                measure_rss: false,
                scratch,
            });
            let misses = match run.status {
                Status::Capped => vec!["stopped at the cap".to_owned()],
                Status::Exited(code) => step.test.check(
                    &String::from_utf8_lossy(&run.stdout),
                    &String::from_utf8_lossy(&run.stderr),
                    code,
                ),
                _ => step.test.check(
                    &String::from_utf8_lossy(&run.stdout),
                    &String::from_utf8_lossy(&run.stderr),
                    -1,
                ),
            };
            StepRun { run, misses }
        })
        .collect()
}
