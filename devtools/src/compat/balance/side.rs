//! One program's side of a comparison: its run (capped), the files it
//! wrote into its own output folder (`-C FILE`, `-S FILE`'s `.original`
//! and `.balanced`), and the comparison of two sides byte for byte, with
//! each side's own folder written the same way in what they print.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::process::{self, Run, Status};

/// What one program did.
pub struct Side {
    pub run: Run,
    /// The files of its output folder, by name.
    pub files: BTreeMap<String, Vec<u8>>,
}

/// The folders of one side: where its outputs go and its scratch space
/// for the captured streams.
pub struct Folders {
    pub out: PathBuf,
    pub scratch: PathBuf,
}

impl Folders {
    /// `base/<name>` and `base/<name>.scratch`.
    pub fn new(base: &Path, name: &str) -> Folders {
        Folders {
            out: base.join(name),
            scratch: base.join(format!("{name}.scratch")),
        }
    }

    /// Empties both folders (creating them).
    pub fn reset(&self) -> Result<(), String> {
        for d in [&self.out, &self.scratch] {
            let _ = std::fs::remove_dir_all(d);
            std::fs::create_dir_all(d)
                .map_err(|e| format!("cannot create {}: {e}", d.display()))?;
        }
        Ok(())
    }
}

/// The options with `{IN}` and `{OUT}` replaced.
pub fn expand(args: &[String], input: &Path, out: &Path) -> Vec<String> {
    args.iter()
        .map(|a| {
            a.replace("{IN}", &input.display().to_string())
                .replace("{OUT}", &out.display().to_string())
        })
        .collect()
}

/// Runs `program` with `args` (placeholders expanded) in its output
/// folder, and reads what it left there.
pub fn run_side(
    program: &Path,
    args: &[String],
    input: &Path,
    folders: &Folders,
    cap: Duration,
) -> Result<Side, String> {
    folders.reset()?;
    let args: Vec<OsString> = expand(args, input, &folders.out)
        .into_iter()
        .map(OsString::from)
        .collect();
    let run = process::run(&process::Invocation {
        program,
        args,
        cwd: &folders.out,
        cap,
        measure_rss: false,
        scratch: &folders.scratch,
    });
    if let Status::SpawnError(e) = &run.status {
        return Err(format!("cannot run {}: {e}", program.display()));
    }
    Ok(Side {
        files: read_files(&folders.out),
        run,
    })
}

/// Writes `files` (name, text) into `base/in` and runs the original and
/// hailstone's program with the same `args` there, each in its own
/// folders.
///
/// # Errors
///
/// Empties the folder `input` (creating it) and writes the `files`
/// (name, text) into it.
///
/// # Errors
///
/// A folder or file that cannot be written (its path).
pub fn write_inputs(input: &Path, files: &[(String, String)]) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(input);
    std::fs::create_dir_all(input)
        .map_err(|e| format!("cannot create {}: {e}", input.display()))?;
    for (name, text) in files {
        if let Some(parent) = input.join(name).parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::write(input.join(name), text)
            .map_err(|e| format!("cannot write {}: {e}", input.join(name).display()))?;
    }
    Ok(())
}

/// A file that cannot be written, a program that cannot be started.
pub fn run_pair(
    programs: (&Path, &Path),
    args: &[String],
    files: &[(String, String)],
    base: &Path,
    folders: (&Folders, &Folders),
    cap: Duration,
) -> Result<(Side, Side), String> {
    let input = base.join("in");
    write_inputs(&input, files)?;
    let original = run_side(programs.0, args, &input, folders.0, cap)?;
    let ours = run_side(programs.1, args, &input, folders.1, cap)?;
    Ok((original, ours))
}

/// Every regular file under `dir`, by path relative to it, in name order.
pub fn read_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if let Ok(bytes) = std::fs::read(&p) {
                let rel = p.strip_prefix(dir).unwrap_or(&p).display().to_string();
                out.insert(rel, bytes);
            }
        }
    }
    out
}

/// `bytes` as text with `folder` written `name` (so that each side's own
/// folder reads the same).
pub fn normalise(bytes: &[u8], folder: &Path, name: &str) -> String {
    String::from_utf8_lossy(bytes).replace(&folder.display().to_string(), name)
}

/// The differences between the original's side `a` and hailstone-balance's
/// side `b`: exit status, stdout, stderr (each side's output folder
/// written `{OUT}`) and the files they wrote, each with a short diff.
pub fn differences(a: &Side, a_out: &Path, b: &Side, b_out: &Path) -> Vec<String> {
    differences_of(("hbal", "hailstone-balance"), a, a_out, b, b_out)
}

/// [`differences`] for the programs named `names` (the original's first).
pub fn differences_of(
    names: (&str, &str),
    a: &Side,
    a_out: &Path,
    b: &Side,
    b_out: &Path,
) -> Vec<String> {
    let mut out = Vec::new();
    if a.run.status != b.run.status {
        out.push(format!(
            "exit status: {} {}, {} {}",
            names.0,
            a.run.describe(),
            names.1,
            b.run.describe()
        ));
    }
    for (what, x, y) in [
        ("stdout", &a.run.stdout, &b.run.stdout),
        ("stderr", &a.run.stderr, &b.run.stderr),
    ] {
        let (x, y) = (normalise(x, a_out, "{OUT}"), normalise(y, b_out, "{OUT}"));
        if x != y {
            out.push(format!("{what} differs:\n{}", short_diff(&x, &y, 8)));
        }
    }
    let files: std::collections::BTreeSet<&String> = a.files.keys().chain(b.files.keys()).collect();
    for name in files {
        match (a.files.get(name), b.files.get(name)) {
            (Some(x), Some(y)) if x != y => out.push(format!(
                "file {name} differs:\n{}",
                short_diff(&String::from_utf8_lossy(x), &String::from_utf8_lossy(y), 8)
            )),
            (Some(_), None) => out.push(format!("file {name}: written by {} only", names.0)),
            (None, Some(_)) => out.push(format!("file {name}: written by {} only", names.1)),
            _ => {}
        }
    }
    out
}

/// A short line diff of two texts: the first differing region, with up to
/// two lines of context before it and at most `max` lines from each side
/// (`-` hbal, `+` hailstone-balance), indented by four spaces.
pub fn short_diff(a: &str, b: &str, max: usize) -> String {
    let la: Vec<&str> = a.split_inclusive('\n').collect();
    let lb: Vec<&str> = b.split_inclusive('\n').collect();
    let prefix = la.iter().zip(&lb).take_while(|(x, y)| x == y).count();
    let suffix = la[prefix..]
        .iter()
        .rev()
        .zip(lb[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let mid_a = &la[prefix..la.len() - suffix];
    let mid_b = &lb[prefix..lb.len() - suffix];
    let show = |l: &str| {
        let t = l
            .strip_suffix('\n')
            .map_or_else(|| format!("{l}\\ (no newline at the end)"), str::to_owned);
        if t.chars().count() > 300 {
            format!("{}...", t.chars().take(300).collect::<String>())
        } else {
            t
        }
    };
    let mut out = format!("    @@ line {} @@\n", prefix + 1);
    for l in &la[prefix.saturating_sub(2)..prefix] {
        out.push_str(&format!("     {}\n", show(l)));
    }
    for (sign, mid) in [('-', mid_a), ('+', mid_b)] {
        for l in mid.iter().take(max) {
            out.push_str(&format!("    {sign}{}\n", show(l)));
        }
        if mid.len() > max {
            out.push_str(&format!("    {sign}... ({} more lines)\n", mid.len() - max));
        }
    }
    out.trim_end_matches('\n').to_owned()
}
