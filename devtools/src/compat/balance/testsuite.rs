//! Ganeti's own test suite for hbal: the `ganeti-testsuite` Debian package
//! (the version of the installed hbal), downloaded with `apt-get download`
//! and unpacked with `dpkg -x` into a cache folder the first time it is
//! needed (its files are never part of this repository); the fixtures its
//! shelltests expect (made by `hspace` exactly as Ganeti's
//! `test/hs/offline-test.sh` makes them); and the shelltests that run
//! hbal, run against both programs.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::shelltest::{self, ShellTest};
use super::side::{normalise, read_files, short_diff};
use crate::cases::shell_quote;
use crate::process::{self, Run, Status};

/// Where the unpacked package keeps the test tree.
const TEST_TREE: &str = "usr/share/ganeti/testsuite/test";

/// The test folder (`.../testsuite/test`) inside `dir`: `dir` itself when
/// it has `hs/shelltests`, else `dir/usr/share/ganeti/testsuite/test`.
pub fn test_dir_in(dir: &Path) -> Option<PathBuf> {
    if dir.join("hs/shelltests").is_dir() {
        return Some(dir.to_path_buf());
    }
    let t = dir.join(TEST_TREE);
    t.join("hs/shelltests").is_dir().then_some(t)
}

/// The test folder to use: inside `given` when one was given, else the
/// unpacked ganeti-testsuite package of `program`'s version under `cache`
/// (fetched when missing).
pub fn resolve_test_dir(
    given: Option<&Path>,
    program: &Path,
    cache: &Path,
) -> Result<PathBuf, String> {
    match given {
        Some(d) => test_dir_in(d).ok_or_else(|| {
            format!(
                "{} has no Ganeti test tree (hs/shelltests, or {TEST_TREE}/hs/shelltests)",
                d.display()
            )
        }),
        None => ensure_testsuite(cache, &hbal_version(program)?),
    }
}

/// hbal's package version from `hbal --version` (`hbal (ganeti) version
/// 3.0.2-3` gives `3.0.2-3`).
pub fn hbal_version(hbal: &Path) -> Result<String, String> {
    let out = Command::new(hbal)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {} --version: {e}", hbal.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or("");
    match first.rsplit_once("version ") {
        Some((_, v)) if !v.trim().is_empty() => Ok(v.trim().to_owned()),
        _ => Err(format!(
            "{} --version does not say its version (first line {first:?})",
            hbal.display()
        )),
    }
}

fn run_quiet(cmd: &mut Command) -> Result<(), String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// The test folder of `ganeti-testsuite` `version` under the cache folder
/// `cache`, downloading and unpacking the package when it is not there.
pub fn ensure_testsuite(cache: &Path, version: &str) -> Result<PathBuf, String> {
    let dir = cache.join(version);
    if let Some(t) = test_dir_in(&dir) {
        return Ok(t);
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let package = format!("ganeti-testsuite={version}");
    eprintln!(
        "hailstone-compat: fetching {package} into {} (apt-get download, dpkg -x)",
        dir.display()
    );
    let download = || {
        run_quiet(
            Command::new("apt-get")
                .args(["download", &package])
                .current_dir(&dir),
        )
    };
    if download().is_err() {
        // The package lists may be missing or old.
        run_quiet(Command::new("apt-get").arg("update"))
            .map_err(|e| format!("apt-get update failed: {e}"))?;
        download().map_err(|e| {
            format!("cannot download {package} (needs Debian's package lists and network access to them): {e}")
        })?;
    }
    let mut debs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "deb")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("ganeti-testsuite_"))
        })
        .collect();
    debs.sort();
    let deb = debs.pop().ok_or_else(|| {
        format!(
            "apt-get download left no ganeti-testsuite .deb in {}",
            dir.display()
        )
    })?;
    run_quiet(Command::new("dpkg").arg("-x").arg(&deb).arg(&dir))?;
    let _ = std::fs::remove_file(&deb);
    test_dir_in(&dir).ok_or_else(|| {
        format!(
            "{} unpacked into {}, but it has no {TEST_TREE}/hs/shelltests",
            deb.display(),
            dir.display()
        )
    })
}

/// Makes the shelltests' fixtures in `t` with `hspace`, as Ganeti's
/// `test/hs/offline-test.sh` does.
pub fn make_fixtures(hspace: &Path, t: &Path) -> Result<(), String> {
    std::fs::create_dir_all(t).map_err(|e| format!("cannot create {}: {e}", t.display()))?;
    let h = shell_quote(&hspace.display().to_string());
    let t = shell_quote(&t.display().to_string());
    let script = format!(
        "set -e\n\
         {h} --simu p,4,8T,64g,16 -S {t}/simu-onegroup --disk-template drbd -l 8 -v -v -v >/dev/null 2>&1\n\
         {h} --simu p,4,8T,64g,16 --simu p,4,8T,64g,16 -S {t}/simu-twogroups --disk-template drbd -l 8 >/dev/null 2>&1\n\
         {h} --simu u,4,8T,64g,16 --simu p,4,8T,64g,16 -S {t}/simu-rebal-orig --disk-template drbd -l 8 >/dev/null 2>&1\n\
         for s in standard tiered; do\n\
           sed -re 's/^(node-.*|fake-uuid-)-02(|.*)/\\1-01\\2/' < {t}/simu-rebal-orig.$s > {t}/simu-rebal-merged.$s\n\
         done\n"
    );
    run_quiet(Command::new("sh").arg("-c").arg(&script)).map_err(|e| {
        format!(
            "making the shelltest fixtures with {} failed: {e}",
            hspace.display()
        )
    })
}

/// Options hailstone-balance deliberately lacks: hbal's iallocator
/// backend. A shelltest that uses one is listed as such, not counted.
/// (`-m` and `-L` are compared: the suite's `RAPI_URL` is Ganeti's RAPI
/// test data; `-X` too: the suite only runs it on a data file, where both
/// refuse it; and the monitoring daemons' options with their data files.)
const LACKING: [(&str, &str); 2] = [
    ("-I", "the iallocator backend (-I)"),
    ("--ialloc-src", "the iallocator backend (-I)"),
];

/// The feature of `command` that hailstone-balance lacks, if any.
pub fn lacking_feature(command: &str) -> Option<&'static str> {
    command.split_whitespace().find_map(|w| {
        LACKING.iter().find_map(|&(opt, what)| {
            let hit = if opt.starts_with("--") {
                w == opt || w.starts_with(&format!("{opt}="))
            } else {
                // A short option, alone or with its value attached.
                w.starts_with(opt)
            };
            hit.then_some(what)
        })
    })
}

/// The program a shelltest command runs from Ganeti's build tree.
const PROGRAM: &str = "./test/hs/hbal";

/// The `$T/...` paths a command names.
pub fn t_paths(command: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for pre in ["$T/", "${T}/"] {
        let mut rest = command;
        while let Some(at) = rest.find(pre) {
            let tail = &rest[at + pre.len()..];
            let end = tail
                .find(|c: char| c.is_whitespace() || "'\";|&<>".contains(c))
                .unwrap_or(tail.len());
            out.push(&tail[..end]);
            rest = &tail[end..];
        }
    }
    out
}

/// The tests of a file that belong to the suite: those that run hbal, and
/// those that (running no other htools program) only look at fixtures
/// and at files that earlier hbal tests of the file named (`cat
/// $T/rebal-cmds.standard` after `-C$T/rebal-cmds.standard`, `diff` of the
/// `.original` that `-S $T/simu-rebal.standard` wrote).
pub fn hbal_tests(tests: Vec<ShellTest>, fixtures: &[String]) -> Vec<ShellTest> {
    let mut named: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for t in tests {
        if t.command.contains(PROGRAM) {
            named.extend(t_paths(&t.command).into_iter().map(str::to_owned));
            out.push(t);
            continue;
        }
        let paths = t_paths(&t.command);
        let known = |p: &&str| {
            fixtures.iter().any(|f| f == p)
                || named
                    .iter()
                    .any(|n| !n.is_empty() && p.starts_with(n.as_str()))
        };
        if !t.command.contains("./test/hs/") && !paths.is_empty() && paths.iter().all(known) {
            out.push(t);
        }
    }
    out
}

/// Replaces `$NAME` and `${NAME}` for the names in `vars` (others are
/// left alone).
pub fn expand_vars(command: &str, vars: &[(&str, String)]) -> String {
    let mut out = String::new();
    let mut rest = command;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, len) = if let Some(braced) = after.strip_prefix('{') {
            match braced.find('}') {
                Some(end) => (&braced[..end], end + 2),
                None => ("", 0),
            }
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], end)
        };
        match vars.iter().find(|(n, _)| *n == name) {
            Some((_, v)) if len > 0 => {
                out.push_str(v);
                rest = &after[len..];
            }
            _ => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The variables of Ganeti's `offline-test.sh` for a test folder `t`.
pub fn variables(t: &Path, testdata: &Path) -> Vec<(&'static str, String)> {
    let t = t.display().to_string();
    let d = testdata.display().to_string();
    vec![
        ("T", t.clone()),
        ("TESTDATA_DIR", d.clone()),
        (
            "BACKEND_BAL_STD",
            format!("-t{t}/simu-rebal-merged.standard"),
        ),
        (
            "BACKEND_BAL_TIER",
            format!("-t{t}/simu-rebal-merged.tiered"),
        ),
        ("BACKEND_DYNU", format!("-t {t}/simu-onegroup.standard")),
        ("BACKEND_EXCL", format!("-t {t}/simu-onegroup.standard")),
        ("RAPI_URL", format!("file://{d}/rapi")),
    ]
}

/// One shelltest file of the suite: its name and the tests that belong to
/// it, in file order.
pub struct TestFile {
    pub name: String,
    pub tests: Vec<ShellTest>,
}

/// The files of `dir` ending in `.ext`, in name order.
///
/// # Errors
///
/// The folder cannot be read.
pub fn files_with_extension(dir: &Path, ext: &str) -> Result<Vec<PathBuf>, String> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    paths.sort();
    Ok(paths)
}

/// One run on a Ganeti data file: its id (`datafile/NAME#SET`), the
/// option set's name, and the options followed by `-t FILE`.
pub struct DatafileCase {
    pub id: String,
    pub set: &'static str,
    pub args: Vec<String>,
}

/// Every `*.data` file of `testdata` (in name order) with every option
/// set of `sets`.
///
/// # Errors
///
/// The folder cannot be read.
pub fn datafile_cases(
    testdata: &Path,
    sets: &[(&'static str, &'static [&'static str])],
) -> Result<Vec<DatafileCase>, String> {
    let mut out = Vec::new();
    for f in files_with_extension(testdata, "data")? {
        let name = f
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        for (set, args) in sets {
            let mut a: Vec<String> = args.iter().map(|x| (*x).to_owned()).collect();
            a.push("-t".to_owned());
            a.push(f.display().to_string());
            out.push(DatafileCase {
                id: format!("datafile/{name}#{set}"),
                set,
                args: a,
            });
        }
    }
    Ok(out)
}

/// The shelltest files that have hbal tests, in name order, with only
/// those tests.
pub fn hbal_test_files(test_dir: &Path, fixtures: &[String]) -> Result<Vec<TestFile>, String> {
    let dir = test_dir.join("hs/shelltests");
    let paths = files_with_extension(&dir, "test")?;
    let mut out = Vec::new();
    for p in paths {
        let text =
            std::fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        let name = p
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let tests = shelltest::parse(&text).map_err(|e| format!("{name}: {e}"))?;
        let tests = hbal_tests(tests, fixtures);
        if tests.iter().any(|t| t.command.contains(PROGRAM)) {
            out.push(TestFile { name, tests });
        }
    }
    Ok(out)
}

/// One shelltest run against one program.
pub struct TestRun {
    pub run: Run,
    /// What the test expects and the run misses.
    pub misses: Vec<String>,
}

/// Runs the tests of a file in order against `program` in the fixture
/// folder `t` (a fresh copy of the fixtures), each with `sh -c` (and its
/// `<<<` text, if any, on standard input).
pub fn run_file(
    file: &TestFile,
    program: &Path,
    t: &Path,
    testdata: &Path,
    scratch: &Path,
    cap: Duration,
) -> Vec<TestRun> {
    let vars = variables(t, testdata);
    let prog = shell_quote(&program.display().to_string());
    file.tests
        .iter()
        .map(|test| {
            let mut command = expand_vars(&test.command, &vars).replace(PROGRAM, &prog);
            if let Some(input) = &test.stdin {
                // Standard input (`<<<`) from a file beside the fixtures.
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
            let status = match run.status {
                Status::Exited(c) => c,
                _ => -1,
            };
            let misses = if run.status == Status::Capped {
                vec!["stopped at the cap".to_owned()]
            } else {
                test.check(
                    &String::from_utf8_lossy(&run.stdout),
                    &String::from_utf8_lossy(&run.stderr),
                    status,
                )
            };
            TestRun { run, misses }
        })
        .collect()
}

/// Copies the files of `from` into a fresh folder `to`.
pub fn copy_fixtures(from: &Path, to: &Path) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    for (name, bytes) in read_files(from) {
        std::fs::write(to.join(&name), bytes)
            .map_err(|e| format!("cannot write {}: {e}", to.join(&name).display()))?;
    }
    Ok(())
}

/// How two runs of the same shelltest differ (each side's `$T` written
/// `$T`); empty when they are identical.
pub fn run_differences(a: &Run, a_t: &Path, b: &Run, b_t: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if a.status != b.status {
        out.push(format!(
            "exit status: hbal {}, hailstone-balance {}",
            a.describe(),
            b.describe()
        ));
    }
    for (what, x, y) in [
        ("stdout", &a.stdout, &b.stdout),
        ("stderr", &a.stderr, &b.stderr),
    ] {
        let (x, y) = (normalise(x, a_t, "$T"), normalise(y, b_t, "$T"));
        if x != y {
            out.push(format!("{what} differs:\n{}", short_diff(&x, &y, 8)));
        }
    }
    out
}
