//! The known differences between hspace and hailstone-space, each checked
//! to be exactly that difference before its accepted pattern may accept
//! it: a pattern of the accepted list names the runs where a difference
//! is allowed, and the check here makes sure that the difference found
//! there is the one the pattern's reason describes and nothing more.
//!
//! * help, completion and version texts: hailstone-space names itself and
//!   lists its own options after hspace's (the read-only suites' check of
//!   the help text, then its extra options in order); after a
//!   command-line error, where hspace prints its help, hailstone-space
//!   names the nearest option and ends with `see hailstone-space --help`;
//! * a data file error: hailstone-space names the file, the line, the
//!   object and the field before hspace's own words;
//! * an error that says what is valid: hspace's error, word for word,
//!   then lines of hailstone-space naming the valid values;
//! * hspace's crash on an instance whose nodes are in two groups
//!   (`IntMap.!: key N is not an element of the map`), where
//!   hailstone-space goes on: everything hspace printed before it died is
//!   the start of what hailstone-space prints.

use crate::process::Status;

/// The options hailstone-space adds after hspace's, in order.
pub const EXTRA_OPTIONS: [&str; 6] = [
    "--allocator-model",
    "--explain",
    "--explain-format",
    "--report",
    "--ganeti-version",
    "--json",
];

/// What one program did, its output folder already written `{OUT}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Texts {
    pub status: Status,
    pub stdout: String,
    pub stderr: String,
    /// The files it wrote, by name.
    pub files: Vec<(String, Vec<u8>)>,
}

/// Which known difference a run's outputs look like, from hspace's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    Help,
    Version,
    Completion,
    /// The help text after a command-line error.
    Usage,
    DataFileError,
    SplitCrash,
    /// `-l 0`: hspace dies on `Prelude.head: empty list` after the tiered
    /// results' first line.
    HeadCrash,
    /// A runtime error (a file that cannot be opened) prefixed with the
    /// program's name.
    RuntimeError,
    /// hspace's error, then lines of ours saying what is valid.
    Hint,
}

impl Known {
    pub fn describe(self) -> &'static str {
        match self {
            Known::Help => "the help text",
            Known::Version => "the version text",
            Known::Completion => "the completion list",
            Known::Usage => "the usage text after a command-line error",
            Known::DataFileError => "a data file error's location",
            Known::SplitCrash => "hspace's crash on an instance in two groups",
            Known::HeadCrash => "hspace's crash on -l 0",
            Known::RuntimeError => "a runtime error names hailstone-space",
            Known::Hint => "hspace's error followed by what is valid",
        }
    }
}

use super::super::readonly::known::{self, Names, LOAD_ERROR};

/// hspace's death with `-l 0` (`Hspace.hs` takes the head of the tiered
/// specs, an empty list when no instance was allocated).
const HEAD_CRASH: &str = "hspace: Prelude.head: empty list";

/// The known difference hspace's outputs `h` call for, if any (`h_help`
/// is hspace's `--help` text).
pub fn known_kind(h: &Texts, h_help: &str) -> Option<Known> {
    if h.stderr.contains(" is not an element of the map") && h.stderr.contains("IntMap.!") {
        Some(Known::SplitCrash)
    } else if h.stderr.contains(HEAD_CRASH) {
        Some(Known::HeadCrash)
    } else if h.stderr.starts_with("hspace: ") && h.stderr.contains(": openFile: ") {
        Some(Known::RuntimeError)
    } else if h.stdout.starts_with("hspace (ganeti) version ") {
        if h.stdout.contains("\nUsage: hspace ") {
            Some(Known::Help)
        } else {
            Some(Known::Version)
        }
    } else if h.stdout.starts_with("-p,--print-nodes ") {
        Some(Known::Completion)
    } else if h.stderr.starts_with(LOAD_ERROR) {
        Some(Known::DataFileError)
    } else if !h_help.is_empty() && h.stderr.ends_with(h_help) {
        Some(Known::Usage)
    } else {
        None
    }
}

/// Checks that `h` (hspace) and `q` (hailstone-space) differ only by the
/// known difference `kind`.
///
/// # Errors
///
/// What else differs.
pub fn check(kind: Known, h: &Texts, q: &Texts, helps: (&str, &str)) -> Result<(), String> {
    if !matches!(kind, Known::SplitCrash | Known::HeadCrash) && h.status != q.status {
        return Err(format!(
            "the exit status differs ({:?}, {:?})",
            h.status, q.status
        ));
    }
    match kind {
        Known::Help => {
            same(&h.stderr, &q.stderr, "stderr")?;
            same_files(h, q)?;
            help_text(&h.stdout, &q.stdout)
        }
        Known::Version => {
            same(&h.stderr, &q.stderr, "stderr")?;
            same_files(h, q)?;
            version_text(&h.stdout, &q.stdout)
        }
        Known::Completion => {
            same(&h.stderr, &q.stderr, "stderr")?;
            same_files(h, q)?;
            completion_text(&h.stdout, &q.stdout)
        }
        Known::Usage => {
            same(&h.stdout, &q.stdout, "stdout")?;
            same_files(h, q)?;
            let (h_help, q_help) = helps;
            let h_lead = h.stderr.strip_suffix(h_help).ok_or("hspace's usage text")?;
            // GetOpt's error ends with an empty line before the usage.
            let h_lead = h_lead.strip_suffix('\n').unwrap_or(h_lead);
            known::same_error_lead(h_lead, known::usage_lead("hailstone-space", &q.stderr)?)?;
            help_text(h_help, q_help)
        }
        Known::DataFileError => {
            same(&h.stdout, &q.stdout, "stdout")?;
            same_files(h, q)?;
            data_file_error(&h.stderr, &q.stderr)
        }
        Known::SplitCrash => crash(h, q, "hspace: IntMap.!", "is not an element of the map"),
        Known::HeadCrash => crash(h, q, HEAD_CRASH, ""),
        Known::RuntimeError => {
            same(&h.stdout, &q.stdout, "stdout")?;
            same_files(h, q)?;
            let rest = h.stderr.strip_prefix("hspace: ").ok_or("hspace's error")?;
            same(&format!("hailstone-space: {rest}"), &q.stderr, "stderr")
        }
        Known::Hint => {
            same(&h.stdout, &q.stdout, "stdout")?;
            same_files(h, q)?;
            known::hint(&h.stderr, &q.stderr)
        }
    }
}

fn same(a: &str, b: &str, what: &str) -> Result<(), String> {
    if a == b {
        Ok(())
    } else {
        Err(format!("{what} differs too"))
    }
}

fn same_files(h: &Texts, q: &Texts) -> Result<(), String> {
    if h.files == q.files {
        Ok(())
    } else {
        Err("the files written differ too".to_owned())
    }
}

/// The rows after hspace's own in hailstone-space's text: exactly one per
/// extra option, in order, each starting (after its short-option column)
/// with the option.
fn extra_rows(rows: &[&str], at_start: bool) -> Result<(), String> {
    if rows.len() != EXTRA_OPTIONS.len() {
        return Err(format!(
            "hailstone-space has {} rows after hspace's, expected {} ({})",
            rows.len(),
            EXTRA_OPTIONS.len(),
            EXTRA_OPTIONS.join(", ")
        ));
    }
    for (row, opt) in rows.iter().zip(EXTRA_OPTIONS) {
        let body = if at_start { row } else { row.trim_start() };
        let word = body.split([' ', '[', '=']).next().unwrap_or("");
        if word != opt {
            return Err(format!("row {row:?} is not the row of {opt}"));
        }
    }
    Ok(())
}

/// `--help`: the read-only suites' check (hspace's options first, in its
/// order, with their names and arguments), then exactly the extra
/// options, in order.
pub fn help_text(h: &str, q: &str) -> Result<(), String> {
    known::help_text(NAMES, h, q)?;
    let original = h.lines().count() - 2;
    let ours: Vec<&str> = q.lines().skip(2).take_while(|l| !l.is_empty()).collect();
    extra_rows(&ours[original..], false)
}

/// `--help-completion`: hspace's rows, then one row per extra option.
pub fn completion_text(h: &str, q: &str) -> Result<(), String> {
    let (hl, ql): (Vec<&str>, Vec<&str>) = (h.lines().collect(), q.lines().collect());
    if ql.len() < hl.len() || ql[..hl.len()] != *hl {
        let k = hl.iter().zip(&ql).take_while(|(a, b)| a == b).count();
        return Err(format!(
            "completion row {} differs: hspace {:?}, hailstone-space {:?}",
            k + 1,
            hl.get(k).copied().unwrap_or(""),
            ql.get(k).copied().unwrap_or("")
        ));
    }
    extra_rows(&ql[hl.len()..], true)
}

/// hspace and hailstone-space, for the checks shared with the
/// read-only suites.
const NAMES: Names = Names {
    original: "hspace",
    ours: "hailstone-space",
};

/// `--version`: `hailstone-space version X.Y.Z`, then `compatible with
/// hspace (ganeti) V`, V being hspace's version without the package
/// revision (the read-only suites' check).
pub fn version_text(h: &str, q: &str) -> Result<(), String> {
    known::version_text(NAMES, h, q)
}

/// A data file error: hailstone-space's message is hspace's with where
/// before hspace's words (the read-only suites' check).
pub fn data_file_error(h: &str, q: &str) -> Result<(), String> {
    known::data_file_error(h, q)
}

/// hspace died with `marker` (on a line of its own, followed by `tail`;
/// exit status 1) where hailstone-space finished (exit status 0), and
/// everything hspace printed before it died starts hailstone-space's
/// output; files hspace wrote are the same.
fn crash(h: &Texts, q: &Texts, marker: &str, tail: &str) -> Result<(), String> {
    if h.status != Status::Exited(1) || q.status != Status::Exited(0) {
        return Err(format!(
            "expected hspace to exit 1 and hailstone-space 0, got {:?} and {:?}",
            h.status, q.status
        ));
    }
    let at = h
        .stderr
        .find(marker)
        .ok_or("hspace's error is not on a line of its own")?;
    if !h.stderr[at..].contains(tail) {
        return Err("hspace died of something else".to_owned());
    }
    if !h.stderr[..at].is_empty() && !h.stderr[..at].ends_with('\n') {
        return Err("hspace's error is not on a line of its own".to_owned());
    }
    if !q.stderr.starts_with(&h.stderr[..at]) {
        return Err(
            "hailstone-space's stderr does not start with what hspace printed before it died"
                .to_owned(),
        );
    }
    if !q.stdout.starts_with(&h.stdout) {
        return Err("hailstone-space's stdout does not start with hspace's".to_owned());
    }
    for (name, bytes) in &h.files {
        if q.files.iter().find(|(n, _)| n == name).map(|(_, b)| b) != Some(bytes) {
            return Err(format!("file {name} differs"));
        }
    }
    Ok(())
}
