//! The known differences between a read-only htools program (`hcheck`,
//! `hinfo`, `hroller`) and its hailstone replacement, each checked to be exactly
//! that difference and nothing more before it is accepted:
//!
//! * the help text (`--help`, and the usage text after a command-line
//!   error): ours names itself on its first two lines, then lists the
//!   original's options in its order with the same names and arguments
//!   (each with a description, ours), then rows of its own options (none
//!   of which the original has), then its text about the program;
//! * the completion list (`--help-completion`): the original's rows, then
//!   rows of its own options;
//! * the version text: `<ours> version X.Y.Z`, then `compatible with
//!   <original> (ganeti) V`, V being the original's version without the
//!   Debian revision;
//! * a data file error (not a Luxi or RAPI connection error): ours names
//!   the file, the line, the object and the field before the original's
//!   own words (`FILE, line N: OBJECT, field FIELD: `), or for a file
//!   whose sections are wrong the file before them and the layout
//!   expected in parentheses after them;
//! * a runtime error (a file that cannot be opened) that names the
//!   program: `<ours>: ` where the original's runtime prints
//!   `<original>: `;
//! * the usage text after a command-line error: where the original
//!   prints its whole help after its error, ours names the nearest option
//!   to each unknown one (`--x: did you mean --y?`) and ends with
//!   `see <ours> --help` ([`usage_lead`]);
//! * an error that says what is valid: ours is the original's error,
//!   word for word, then lines naming the valid values ([`hint`]).
//!
//! The originals' own texts ([`Reference`]) are asked once per run of the
//! suite, so a kind is recognised by the original's output being exactly
//! that text (or ending with it, for the usage text).

use crate::process::Status;

/// The two programs' names: the original's (`hcheck`) and ours
/// (`hailstone-check`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Names {
    pub original: &'static str,
    pub ours: &'static str,
}

/// What one program did, its output folder already written `{OUT}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Texts {
    pub status: Status,
    pub stdout: String,
    pub stderr: String,
}

/// The texts the programs print about themselves, asked once: the
/// original's `--help`, `--version` and `--help-completion` and our
/// `--help` (the tail of our usage text).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reference {
    pub help: String,
    pub version: String,
    pub completion: String,
    pub our_help: String,
}

/// A kind of known difference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Known {
    Help,
    Version,
    Completion,
    /// The help text after a command-line error.
    Usage,
    DataFileError,
    /// A runtime error prefixed with the program's name.
    RuntimeError,
    /// The original's error, then lines of ours saying what is valid.
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
            Known::RuntimeError => "a runtime error naming the program",
            Known::Hint => "the original's error followed by what is valid",
        }
    }
}

/// The start of every htools data loading error.
pub const LOAD_ERROR: &str = "Error: failed to load data, aborting: ";

/// Words of a load error that is no data file's: the Luxi socket or the
/// RAPI address could not be reached.
const CONNECTION: [&str; 2] = ["Network.Socket", "<socket: "];

/// The original's words on a data file whose sections are wrong.
const LAYOUT_ERROR: &str = "Invalid format of the input file: ";

/// The known difference the original's outputs `h` call for, if any.
pub fn known_kind(names: Names, h: &Texts, r: &Reference) -> Option<Known> {
    let exact = |text: &str, reference: &str| !reference.is_empty() && text == reference;
    if exact(&h.stdout, &r.help) {
        Some(Known::Help)
    } else if exact(&h.stdout, &r.version) {
        Some(Known::Version)
    } else if exact(&h.stdout, &r.completion) {
        Some(Known::Completion)
    } else if !r.help.is_empty() && h.stderr.ends_with(&r.help) {
        Some(Known::Usage)
    } else if h.stderr.starts_with(&format!("{}: ", names.original))
        && h.stderr.contains(": openFile: ")
    {
        Some(Known::RuntimeError)
    } else if h.stderr.starts_with(LOAD_ERROR) && !CONNECTION.iter().any(|w| h.stderr.contains(w)) {
        Some(Known::DataFileError)
    } else {
        None
    }
}

/// Checks that `h` (the original) and `q` (ours) differ only by the known
/// difference `kind`.
///
/// # Errors
///
/// What else differs.
pub fn check(kind: Known, names: Names, h: &Texts, q: &Texts, r: &Reference) -> Result<(), String> {
    if h.status != q.status {
        return Err(format!(
            "the exit status differs ({:?}, {:?})",
            h.status, q.status
        ));
    }
    match kind {
        Known::Help => {
            same(&h.stderr, &q.stderr, "stderr")?;
            help_text(names, &h.stdout, &q.stdout)
        }
        Known::Version => {
            same(&h.stderr, &q.stderr, "stderr")?;
            version_text(names, &h.stdout, &q.stdout)
        }
        Known::Completion => {
            same(&h.stderr, &q.stderr, "stderr")?;
            completion_text(names, &h.stdout, &q.stdout)
        }
        Known::Usage => {
            same(&h.stdout, &q.stdout, "stdout")?;
            let h_lead = h
                .stderr
                .strip_suffix(r.help.as_str())
                .ok_or("the original's usage text")?;
            // GetOpt's error ends with an empty line before the usage.
            let h_lead = h_lead.strip_suffix('\n').unwrap_or(h_lead);
            same_error_lead(h_lead, usage_lead(names.ours, &q.stderr)?)?;
            help_text(names, &r.help, &r.our_help)
        }
        Known::Hint => {
            same(&h.stdout, &q.stdout, "stdout")?;
            hint(&h.stderr, &q.stderr)
        }
        Known::DataFileError => {
            same(&h.stdout, &q.stdout, "stdout")?;
            data_file_error(&h.stderr, &q.stderr)
        }
        Known::RuntimeError => {
            same(&h.stdout, &q.stdout, "stdout")?;
            let rest = h
                .stderr
                .strip_prefix(&format!("{}: ", names.original))
                .ok_or("the original's error")?;
            same(&format!("{}: {rest}", names.ours), &q.stderr, "stderr")
        }
    }
}

/// Our usage error without what it adds after the error's own lines: the
/// nearest option to each unknown one (`--x: did you mean --y?`) and the
/// last line, `see <ours> --help`.
///
/// # Errors
///
/// Our text does not end so.
pub fn usage_lead<'a>(ours: &str, q: &'a str) -> Result<&'a str, String> {
    let rest = q
        .strip_suffix(&format!("see {ours} --help\n"))
        .ok_or_else(|| format!("{ours}'s usage error does not end with 'see {ours} --help'"))?;
    let nearest =
        |l: &&str| l.starts_with("--") && l.contains(": did you mean --") && l.ends_with("?\n");
    let mut lines: Vec<&str> = rest.split_inclusive('\n').collect();
    while lines.last().is_some_and(nearest) {
        lines.pop();
    }
    let end: usize = lines.iter().map(|l| l.len()).sum();
    Ok(&rest[..end])
}

/// Whether our stderr `q` is the original's `h`, word for word, with
/// lines added after it.
pub fn is_hint(h: &str, q: &str) -> bool {
    !h.is_empty() && h.ends_with('\n') && q.len() > h.len() && q.starts_with(h)
}

/// An error that says what is valid: the original's error `h`, then our
/// lines (none of them another error).
///
/// # Errors
///
/// Ours does not start with the original's, or adds an error.
pub fn hint(h: &str, q: &str) -> Result<(), String> {
    if !is_hint(h, q) {
        return Err("our error does not start with the original's".to_owned());
    }
    let added = &q[h.len()..];
    if !added.ends_with('\n') || added.lines().any(|l| l.starts_with("Error")) {
        return Err(format!("our added lines are not only hints: {added:?}"));
    }
    Ok(())
}

fn same(a: &str, b: &str, what: &str) -> Result<(), String> {
    if a == b {
        Ok(())
    } else {
        Err(format!("{what} differs too"))
    }
}

/// The long options a row names (`--name`, cut at `=` or `[`): in a
/// help row only those of its option columns (GetOpt's columns are two
/// spaces apart; the description, which may mention other options, is
/// the first column that does not start with `-`), in a completion row
/// those of its first word.
fn long_options(row: &str, help: bool) -> Vec<&str> {
    let columns: Vec<&str> = if help {
        option_columns(row)
    } else {
        row.split(' ').take(1).collect()
    };
    columns
        .into_iter()
        .flat_map(|c| c.split([' ', ',']))
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| w.split(['=', '[']).next().unwrap_or(w))
        .collect()
}

/// The rows after the original's own in our text: each the row of an
/// option (its first word, after the short-option column of a help row,
/// starts with `-`), each naming a long option that none of the
/// original's rows names, none named twice.
fn extra_rows(original: &[&str], extra: &[&str], help: bool) -> Result<(), String> {
    let theirs: Vec<&str> = original
        .iter()
        .flat_map(|r| long_options(r, help))
        .collect();
    let mut seen: Vec<&str> = Vec::new();
    for row in extra {
        let body = if help { row.trim_start() } else { row };
        if !body.starts_with('-') || (help && !row.starts_with(' ')) {
            return Err(format!(
                "row {row:?} after the original's is not an option's"
            ));
        }
        if !help && body.split(' ').filter(|w| !w.is_empty()).count() != 2 {
            return Err(format!("completion row {row:?} is not 'OPTIONS KIND'"));
        }
        let names = long_options(body, help);
        if names.is_empty() {
            return Err(format!("row {row:?} names no long option"));
        }
        for n in names {
            if theirs.contains(&n) {
                return Err(format!("row {row:?} repeats the original's option {n}"));
            }
            if seen.contains(&n) {
                return Err(format!("option {n} has two rows"));
            }
            seen.push(n);
        }
    }
    Ok(())
}

/// Where two row lists first differ, for the error.
fn first_difference(what: &str, names: Names, a: &[&str], b: &[&str]) -> String {
    let k = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    format!(
        "{what} {} differs: {} {:?}, {} {:?}",
        k + 1,
        names.original,
        a.get(k).copied().unwrap_or(""),
        names.ours,
        b.get(k).copied().unwrap_or("")
    )
}

/// The error before the usage text: the same lines, where an option row
/// (GetOpt lists the candidates of an ambiguous option) may carry our
/// description of the same option.
pub fn same_error_lead(h: &str, q: &str) -> Result<(), String> {
    let (hl, ql): (Vec<&str>, Vec<&str>) = (h.lines().collect(), q.lines().collect());
    let row = |l: &str| l.starts_with(' ') && l.trim_start().starts_with('-');
    let same = hl.len() == ql.len()
        && h.ends_with('\n') == q.ends_with('\n')
        && hl
            .iter()
            .zip(&ql)
            .all(|(a, b)| a == b || (row(a) && row(b) && option_columns(a) == option_columns(b)));
    if same {
        Ok(())
    } else {
        Err("the error before the usage text differs too".to_owned())
    }
}

/// The option columns of a help row: its short and long names with
/// their arguments (GetOpt's columns before the description).
pub fn option_columns(row: &str) -> Vec<&str> {
    row.trim_start()
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .take_while(|c| c.starts_with('-'))
        .collect()
}

/// `--help`: the original's options are our first option rows, in its
/// order, with the same names and arguments (the descriptions are ours:
/// corrected where the original's were wrong), then rows of our own
/// options; after an empty line, our text about the program (exit
/// statuses, examples). The first two lines name the program.
pub fn help_text(names: Names, h: &str, q: &str) -> Result<(), String> {
    let (hl, ql): (Vec<&str>, Vec<&str>) = (h.lines().collect(), q.lines().collect());
    if hl.len() < 2 || ql.len() < 2 || !h.ends_with('\n') || !q.ends_with('\n') {
        return Err("a help text without its two heading lines".to_owned());
    }
    let (o, ours) = (names.original, names.ours);
    if !hl[0].starts_with(&format!("{o} (ganeti) version "))
        || hl[1] != format!("Usage: {o} [OPTION...]")
    {
        return Err(format!("{o}'s heading is {:?}", &hl[..2]));
    }
    version_line(ours, ql[0])?;
    // hailstone-scan's shows its arguments, which hscan's does not.
    let usage = format!("Usage: {ours} [OPTION...]");
    if ql[1] != usage && ql[1] != format!("{usage} [CLUSTER...]") {
        return Err(format!("{ours}'s usage line is {:?}", ql[1]));
    }
    let hr = &hl[2..];
    let qr: Vec<&str> = ql[2..]
        .iter()
        .copied()
        .take_while(|l| !l.is_empty())
        .collect();
    if ql.len() > qr.len() + 2
        && !ql[qr.len() + 2..]
            .iter()
            .any(|l| l.starts_with("Exit status:"))
    {
        return Err(format!(
            "{ours}'s text after the options has no exit statuses"
        ));
    }
    if qr.len() < hr.len() {
        return Err(format!("{ours} lists fewer options than {o}"));
    }
    for (k, (a, b)) in hr.iter().zip(&qr).enumerate() {
        let described = b
            .trim_start()
            .split("  ")
            .map(str::trim)
            .any(|c| !c.is_empty() && !c.starts_with('-'));
        if option_columns(a) != option_columns(b) || !described {
            return Err(format!(
                "option row {} differs: {o} {a:?}, {ours} {b:?}",
                k + 1
            ));
        }
    }
    extra_rows(hr, &qr[hr.len()..], true)
}

/// `--help-completion`: the original's option rows, then rows of our own
/// options, then the original's argument rows (those that do not start
/// with `-`, which end the list).
pub fn completion_text(names: Names, h: &str, q: &str) -> Result<(), String> {
    let (hl, ql): (Vec<&str>, Vec<&str>) = (h.lines().collect(), q.lines().collect());
    if !q.ends_with('\n') {
        return Err(format!(
            "{}'s completion list does not end its line",
            names.ours
        ));
    }
    let options = |rows: &[&str]| rows.iter().take_while(|r| r.starts_with('-')).count();
    let (ho, qo) = (options(&hl), options(&ql));
    if hl[ho..] != ql[qo..] {
        return Err(first_difference(
            "completion argument row",
            names,
            &hl[ho..],
            &ql[qo..],
        ));
    }
    let (hl, ql) = (&hl[..ho], &ql[..qo]);
    if ql.len() < hl.len() || ql[..hl.len()] != *hl {
        return Err(first_difference("completion row", names, hl, ql));
    }
    extra_rows(hl, &ql[hl.len()..], false)
}

/// `<ours> version X.Y.Z`.
pub fn version_line(ours: &str, line: &str) -> Result<(), String> {
    let v = line
        .strip_prefix(&format!("{ours} version "))
        .ok_or_else(|| format!("{line:?} does not say '{ours} version V'"))?;
    let parts: Vec<&str> = v.split('.').collect();
    if parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    {
        Ok(())
    } else {
        Err(format!("{line:?}: the version is not X.Y.Z"))
    }
}

/// `--version`: `<ours> version X.Y.Z`, then `compatible with <original>
/// (ganeti) V`.
pub fn version_text(names: Names, h: &str, q: &str) -> Result<(), String> {
    let first = h.lines().next().unwrap_or("");
    let full = first
        .strip_prefix(&format!("{} (ganeti) version ", names.original))
        .ok_or_else(|| format!("{}'s version line is {first:?}", names.original))?;
    let upstream = full.split('-').next().unwrap_or(full);
    let ql: Vec<&str> = q.lines().collect();
    if ql.len() != 2 || !q.ends_with('\n') {
        return Err(format!(
            "{}'s version text has {} lines, expected 2",
            names.ours,
            ql.len()
        ));
    }
    version_line(names.ours, ql[0])?;
    let want = format!("compatible with {} (ganeti) {upstream}", names.original);
    if ql[1] != want {
        return Err(format!("{:?} where {want:?} was expected", ql[1]));
    }
    Ok(())
}

/// A data file error: our message is the original's with where before
/// the original's words (`FILE, line N: OBJECT, field FIELD: `, or
/// `FILE: ` for the file's layout) and, for the layout, what it should be
/// in parentheses after them.
pub fn data_file_error(h: &str, q: &str) -> Result<(), String> {
    let hm = h.strip_prefix(LOAD_ERROR).ok_or("the original's error")?;
    let qm = q
        .strip_prefix(LOAD_ERROR)
        .ok_or("our error does not start as the original's")?;
    let hm = hm.trim_end_matches('\n');
    let qm = qm.trim_end_matches('\n');
    if h.ends_with('\n') != q.ends_with('\n') {
        return Err("our error does not end its line as the original's".to_owned());
    }
    let at = qm
        .find(hm)
        .filter(|_| !hm.is_empty())
        .ok_or("our error does not hold the original's words")?;
    let (added, after) = (&qm[..at], &qm[at + hm.len()..]);
    let remark = after.starts_with(" (") && after.ends_with(')');
    if !after.is_empty() && !remark {
        return Err(format!(
            "the words after the original's, {after:?}, are not a remark in parentheses"
        ));
    }
    let bad = || {
        format!(
            "the words added, {added:?}, are not 'FILE, line N: OBJECT, field FIELD: ' or 'FILE: '"
        )
    };
    let Some((_, rest)) = added.split_once(", line ") else {
        // The file's layout: its name before, the layout expected after.
        let file = added.strip_suffix(": ").unwrap_or("");
        return if hm.starts_with(LAYOUT_ERROR) && !file.is_empty() && !file.contains(": ") {
            Ok(())
        } else {
            Err(bad())
        };
    };
    if !after.is_empty() {
        return Err(bad());
    }
    let (line, rest) = rest.split_once(": ").ok_or_else(bad)?;
    if line.is_empty() || !line.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let (object, field) = rest.split_once(", field ").ok_or_else(bad)?;
    if object.is_empty() || !field.ends_with(": ") || field.len() < 3 {
        return Err(bad());
    }
    Ok(())
}
