//! `hailstone-htools`: the drop-in names. Called as `hbal`, `hspace`,
//! `hsqueeze`, `hcheck`, `hinfo`, `hscan`, `hroller` or `harep` (a
//! symbolic link to it), it runs hailstone's program for that name with
//! the original's command line, as Ganeti's own `htools` binary acts by
//! the name it is called with. Called by its own name:
//!
//! * `enable` — each name in `/usr/bin` becomes a link to
//!   `/usr/bin/hailstone-htools`; an original there is first moved aside
//!   with `dpkg-divert --rename` (to `NAME.htools`), so that upgrades of
//!   Ganeti's packages keep it there instead of overwriting the link;
//! * `disable` — the links removed and the originals put back;
//! * `status` — what each name runs.
//!
//! `enable --shadow` keeps the originals answering: hbal, hsqueeze,
//! hspace, hcheck, hinfo and hroller become links to `hailstone-shadow`,
//! which runs the original exactly as called and hailstone's program
//! beside it, recording where they differ
//! (`crate::program::shadow::planners`); harep and hscan stay the
//! originals. `enable` without it, or `disable`, switches from the shadow
//! mode as from the originals.
//!
//! `--root=DIR` does it in a copy of the file system (its own dpkg
//! database), for trying it out and for the tests. The links name the
//! programs where the package installs them (`/usr/bin/hailstone-htools`,
//! `/usr/lib/ganeti/iallocators/hailstone-shadow`), as the system in DIR
//! sees its own files, whatever DIR and whichever binary made them.

pub mod options;

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::shell::exit::{self, stop, Stop};
use options::{Invocation, Operation, PROGRAM};

/// A program's entry point.
type Main = fn(&[OsString], &mut dyn Write, &mut dyn Write) -> u8;

/// The original names and hailstone's programs.
pub const NAMES: [(&str, &str); 8] = [
    ("hbal", "hailstone-balance"),
    ("hspace", "hailstone-space"),
    ("hsqueeze", "hailstone-squeeze"),
    ("hcheck", "hailstone-check"),
    ("hinfo", "hailstone-info"),
    ("hscan", "hailstone-scan"),
    ("hroller", "hailstone-roll"),
    ("harep", "hailstone-repair"),
];

/// Where the package installs this binary (what the links point to).
const INSTALLED: &str = "/usr/bin/hailstone-htools";

/// Where the package installs `hailstone-shadow` (what the links of the
/// shadow mode point to).
pub const SHADOW_INSTALLED: &str = "/usr/lib/ganeti/iallocators/hailstone-shadow";

/// What the two modes link to.
struct Targets {
    /// hailstone's programs.
    ours: PathBuf,
    /// The originals with hailstone's programs in the shadow.
    shadow: PathBuf,
}

impl Targets {
    /// The installed programs, as the system in the root sees them: the
    /// same paths for `--root=DIR` as for `/` (a copy's links run that
    /// system's programs once it is the root, never the binary that made
    /// them).
    fn installed() -> Targets {
        Targets {
            ours: PathBuf::from(INSTALLED),
            shadow: PathBuf::from(SHADOW_INSTALLED),
        }
    }

    /// Whether `link` points to one of them.
    fn is_ours(&self, link: &Path) -> bool {
        std::fs::read_link(link).is_ok_and(|t| t == self.ours || t == self.shadow)
    }
}

fn program_of(name: &str) -> Option<Main> {
    use crate::program as p;
    Some(match name {
        "hbal" => p::balance::main,
        "hspace" => p::space::main,
        "hsqueeze" => p::squeeze::main,
        "hcheck" => p::check::main,
        "hinfo" => p::info::main,
        "hscan" => p::scan::main,
        "hroller" => p::roll::main,
        "harep" => p::repair::main,
        _ => return None,
    })
}

/// Runs the program `argv0` names, or `hailstone-htools` itself, with
/// `args`; returns the exit status.
pub fn main(argv0: &OsStr, args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let name = Path::new(argv0)
        .file_name()
        .and_then(OsStr::to_str)
        .unwrap_or("");
    if let Some(program) = program_of(name) {
        return program(args, out, err);
    }
    exit::main(PROGRAM, options::parse(args), run, out, err)
}

fn run(i: &Invocation, out: &mut dyn Write, _err: &mut dyn Write) -> Result<(), Stop> {
    let root = PathBuf::from(&i.options.root);
    let bin = root.join("usr/bin");
    let targets = Targets::installed();
    let shadowed = |name: &str| {
        crate::program::shadow::planners::WRAPPED
            .iter()
            .any(|(w, _)| *w == name)
    };
    match i.operation {
        Operation::Status => {
            for (name, ours) in NAMES {
                writeln!(out, "{name}: {}", describe(&bin.join(name), &targets, ours))?;
            }
        }
        Operation::Enable if i.options.htools_shadow => {
            for (name, ours) in NAMES {
                if shadowed(name) {
                    enable(&root, &bin, name, &targets.shadow, &targets)?;
                } else {
                    disable(&root, &bin, name, &targets)?;
                }
                writeln!(out, "{name}: {}", describe(&bin.join(name), &targets, ours))?;
            }
        }
        Operation::Enable => {
            for (name, ours) in NAMES {
                enable(&root, &bin, name, &targets.ours, &targets)?;
                writeln!(out, "{name}: {ours}")?;
            }
        }
        Operation::Disable => {
            for (name, _) in NAMES {
                disable(&root, &bin, name, &targets)?;
                writeln!(out, "{name}: {}", describe(&bin.join(name), &targets, ""))?;
            }
        }
    }
    Ok(())
}

/// What `path` runs now.
fn describe(path: &Path, targets: &Targets, ours: &str) -> String {
    match std::fs::read_link(path) {
        Ok(t) if t == targets.ours => ours.to_owned(),
        Ok(t) if t == targets.shadow => format!("the original, {ours} in the shadow"),
        Ok(t) => format!("the original ({})", t.display()),
        Err(_) if path.exists() => "the original".to_owned(),
        Err(_) => "not installed".to_owned(),
    }
}

fn divert(root: &Path, add: bool, name: &str) -> Result<(), Stop> {
    let file = format!("/usr/bin/{name}");
    let mut c = Command::new("dpkg-divert");
    c.arg(format!("--root={}", root.display())).args([
        "--package",
        "hailstone",
        "--rename",
        "--quiet",
    ]);
    if add {
        c.args(["--divert", &format!("{file}.htools"), "--add", &file]);
    } else {
        c.args(["--remove", &file]);
    }
    let output = c
        .output()
        .map_err(|e| stop(format!("Error: {PROGRAM}: cannot run dpkg-divert: {e}\n")))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(stop(format!(
            "Error: {PROGRAM}: dpkg-divert {} {file}: {}",
            if add { "--add" } else { "--remove" },
            String::from_utf8_lossy(&output.stderr)
        )))
    }
}

/// `name` runs `target` (hailstone's program, or the shadow wrapper):
/// the original diverted aside, the link made (nothing changes when it
/// already runs `target`; a link to the other mode is replaced).
fn enable(
    root: &Path,
    bin: &Path,
    name: &str,
    target: &Path,
    targets: &Targets,
) -> Result<(), Stop> {
    let path = bin.join(name);
    if std::fs::read_link(&path).is_ok_and(|t| t == target) {
        return Ok(());
    }
    if targets.is_ours(&path) {
        std::fs::remove_file(&path)
            .map_err(|e| stop(format!("Error: {PROGRAM}: {}: {e}\n", path.display())))?;
    } else {
        divert(root, true, name)?;
    }
    if std::fs::symlink_metadata(&path).is_ok() {
        return Err(stop(format!(
            "Error: {PROGRAM}: {} is still there after dpkg-divert: not replaced\n",
            path.display()
        )));
    }
    std::os::unix::fs::symlink(target, &path)
        .map_err(|e| stop(format!("Error: {PROGRAM}: {}: {e}\n", path.display())))
}

/// `name` runs the original again: our link (of either mode) removed,
/// the diversion undone (nothing changes when it is not ours).
fn disable(root: &Path, bin: &Path, name: &str, targets: &Targets) -> Result<(), Stop> {
    let path = bin.join(name);
    if targets.is_ours(&path) {
        std::fs::remove_file(&path)
            .map_err(|e| stop(format!("Error: {PROGRAM}: {}: {e}\n", path.display())))?;
    } else if std::fs::symlink_metadata(&path).is_ok() {
        return Ok(());
    }
    let diverted = bin.join(format!("{name}.htools"));
    if std::fs::symlink_metadata(&diverted).is_ok() || diverted_by_us(root, name) {
        divert(root, false, name)?;
    }
    Ok(())
}

/// Whether the dpkg database of `root` lists our diversion of `name`.
fn diverted_by_us(root: &Path, name: &str) -> bool {
    Command::new("dpkg-divert")
        .arg(format!("--root={}", root.display()))
        .args(["--listpackage", &format!("/usr/bin/{name}")])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "hailstone")
}
