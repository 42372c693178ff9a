//! `hailstone-shadow report [DIR] [--json]`: what the records of a
//! folder say. For the allocator's runs: the requests by type, how many
//! answers were identical, whose answer Ganeti got, and hailstone's time
//! over the reference's (median and 99th percentile, over the runs where
//! both answered); for each difference, the verdict, the commands that
//! reproduce it, and whether Ganeti's own checks ([`super::validate`])
//! accept each answer. For the htools' runs through the shadow wrappers
//! ([`super::planners`]): the runs by program, how many were identical,
//! and each difference with its reproduction commands. Exit status 3
//! when a difference was recorded, for cron and monitoring.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::record;
use super::validate::{self, Check};
use crate::read::json::{parse, Json};
use crate::shell::exit::{findings, stop, Stop};
use crate::write::json::{s, strs, Json as Out};

/// A value of a record's `record.json`.
fn field<'a, 'j>(v: &'a Json<'j>, path: &[&str]) -> Option<&'a Json<'j>> {
    path.iter().try_fold(v, |v, k| v.get(k))
}

fn text(v: &Json, path: &[&str]) -> String {
    match field(v, path) {
        Some(Json::String(t)) => t.to_string(),
        _ => String::new(),
    }
}

fn number(v: &Json, path: &[&str]) -> Option<f64> {
    match field(v, path) {
        Some(Json::Number(n)) => Some(n.as_f64()),
        _ => None,
    }
}

fn texts(v: &Json, path: &[&str]) -> Vec<String> {
    match field(v, path) {
        Some(Json::Array(a)) => a
            .iter()
            .filter_map(|x| match x {
                Json::String(t) => Some(t.to_string()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A word for the shell, quoted when it needs to be.
pub fn shell_word(w: &str) -> String {
    let plain = !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        w.to_owned()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// A command line for the shell.
fn command(words: &[String]) -> String {
    words
        .iter()
        .map(|w| shell_word(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One difference of the allocator, as reported.
struct AllocatorDifference {
    record: String,
    kind: String,
    subject: String,
    words: String,
    path: Option<String>,
    reproduce: Vec<String>,
    reference_check: Check,
    hailstone_check: Check,
    explanation: Option<PathBuf>,
}

/// One difference of a planner, as reported.
struct PlannerDifference {
    record: String,
    program: String,
    words: String,
    reproduce: Vec<String>,
    drifted: bool,
}

/// Counts of one kind (request type or program).
#[derive(Default)]
struct Tally {
    runs: usize,
    identical: usize,
}

/// Everything the report says.
#[derive(Default)]
struct Summary {
    records: usize,
    by_type: Vec<(String, Tally)>,
    primary_reference: usize,
    primary_hailstone: usize,
    ratios: Vec<f64>,
    differences: Vec<AllocatorDifference>,
    by_program: Vec<(String, Tally)>,
    planner_differences: Vec<PlannerDifference>,
    unreadable: Vec<String>,
}

fn tally<'a>(list: &'a mut Vec<(String, Tally)>, key: &str) -> &'a mut Tally {
    let at = match list.iter().position(|(k, _)| k == key) {
        Some(i) => i,
        None => {
            list.push((key.to_owned(), Tally::default()));
            list.len() - 1
        }
    };
    &mut list[at].1
}

/// The `p`th percentile of sorted `v` (nearest rank), `None` when empty.
pub fn percentile(v: &[f64], p: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    Some(v[rank.clamp(1, v.len()) - 1])
}

/// The median of sorted `v`.
pub fn median(v: &[f64]) -> Option<f64> {
    match v.len() {
        0 => None,
        n if n % 2 == 1 => Some(v[n / 2]),
        n => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

fn read_record(dir: &Path, name: &str, meta: &Json, sum: &mut Summary) {
    let identical = text(meta, &["verdict"]) == "identical";
    let folder = dir.join(name);
    if text(meta, &["kind"]) == "planner" {
        let program = text(meta, &["program"]);
        let t = tally(&mut sum.by_program, &program);
        t.runs += 1;
        t.identical += usize::from(identical);
        if !identical {
            sum.planner_differences.push(PlannerDifference {
                record: name.to_owned(),
                program,
                words: text(meta, &["difference"]),
                reproduce: texts(meta, &["reproduce"]),
                drifted: field(meta, &["state", "drifted"]) == Some(&Json::Bool(true)),
            });
        }
        return;
    }
    let kind = text(meta, &["type"]);
    let t = tally(&mut sum.by_type, &kind);
    t.runs += 1;
    t.identical += usize::from(identical);
    if text(meta, &["primary"]) == "hailstone" {
        sum.primary_hailstone += 1;
    } else {
        sum.primary_reference += 1;
    }
    let answered = |who: &str| text(meta, &[who, "ended"]) == "exit";
    if answered("reference") && answered("hailstone") {
        if let (Some(r), Some(h)) = (
            number(meta, &["reference", "seconds"]),
            number(meta, &["hailstone", "seconds"]),
        ) {
            if r > 0.0 && h > 0.0 {
                sum.ratios.push(h / r);
            }
        }
    }
    if identical {
        return;
    }
    let request = folder.join(text(meta, &["request"]));
    let mut reproduce = vec![format!(
        "zcat {} > /tmp/r.json",
        shell_word(&request.to_string_lossy())
    )];
    for who in ["hailstone", "reference"] {
        let mut words = vec![text(meta, &[who, "path"]), "/tmp/r.json".to_owned()];
        words.extend(texts(meta, &[who, "options"]));
        reproduce.push(command(&words));
    }
    let check = |who: &str| -> Check {
        let request = record::read(&request);
        let answer = std::fs::read(folder.join(text(meta, &[who, "answer"])));
        match (request, answer) {
            (Ok(r), Ok(a)) => validate::check(&r, &a),
            (Err(e), _) | (_, Err(e)) => Check::Unmappable(format!("cannot read the record: {e}")),
        }
    };
    let explanation = match field(meta, &["explanation"]) {
        Some(Json::String(f)) => Some(folder.join(f.as_ref())),
        _ => None,
    };
    sum.differences.push(AllocatorDifference {
        record: name.to_owned(),
        kind,
        subject: text(meta, &["subject"]),
        words: text(meta, &["difference"]),
        path: match field(meta, &["path"]) {
            Some(Json::String(p)) => Some(p.to_string()),
            _ => None,
        },
        reproduce,
        reference_check: check("reference"),
        hailstone_check: check("hailstone"),
        explanation,
    });
}

fn summarise(dir: &Path) -> Result<Summary, Stop> {
    let records = record::list(dir).map_err(|e| {
        stop(format!(
            "Error: hailstone-shadow: cannot read the records in {}: {e}\n",
            dir.display()
        ))
    })?;
    let mut sum = Summary {
        records: records.len(),
        ..Summary::default()
    };
    for folder in &records {
        let name = folder
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let bytes = std::fs::read(folder.join(record::META));
        match bytes.as_deref().map(parse) {
            Ok(Ok(meta)) => read_record(dir, &name, &meta, &mut sum),
            _ => sum.unreadable.push(name),
        }
    }
    sum.ratios.sort_by(f64::total_cmp);
    Ok(sum)
}

fn ratio_text(x: Option<f64>) -> String {
    x.map_or("-".to_owned(), |x| format!("{x:.3}"))
}

fn write_text(dir: &Path, sum: &Summary, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "Records in {}: {}", dir.display(), sum.records)?;
    let runs: usize = sum.by_type.iter().map(|(_, t)| t.runs).sum();
    let identical: usize = sum.by_type.iter().map(|(_, t)| t.identical).sum();
    if runs > 0 {
        writeln!(
            out,
            "\nAllocator runs: {runs}, {identical} identical (Ganeti got the reference's answer {} times, hailstone's {} times)",
            sum.primary_reference, sum.primary_hailstone
        )?;
        writeln!(
            out,
            "  {:<20} {:>6} {:>10}",
            "request type", "runs", "identical"
        )?;
        for (kind, t) in &sum.by_type {
            writeln!(out, "  {kind:<20} {:>6} {:>10}", t.runs, t.identical)?;
        }
        writeln!(
            out,
            "hailstone's time over the reference's: median {}, 99th percentile {} ({} runs where both answered)",
            ratio_text(median(&sum.ratios)),
            ratio_text(percentile(&sum.ratios, 99.0)),
            sum.ratios.len()
        )?;
    }
    if !sum.differences.is_empty() {
        writeln!(out, "\nDifferences ({}):", sum.differences.len())?;
        for d in &sum.differences {
            writeln!(out, "{}", d.record)?;
            writeln!(out, "  {} {}: {}", d.kind, d.subject, d.words)?;
            writeln!(out, "  reproduce:")?;
            for c in &d.reproduce {
                writeln!(out, "    {c}")?;
            }
            writeln!(
                out,
                "  Ganeti's checks: the reference's answer {}; hailstone's answer {}",
                d.reference_check.describe(),
                d.hailstone_check.describe()
            )?;
            if let Some(e) = &d.explanation {
                writeln!(out, "  hailstone's explanation: {}", e.display())?;
            }
        }
    }
    let planner_runs: usize = sum.by_program.iter().map(|(_, t)| t.runs).sum();
    if planner_runs > 0 {
        let same: usize = sum.by_program.iter().map(|(_, t)| t.identical).sum();
        writeln!(out, "\nhtools runs: {planner_runs}, {same} identical")?;
        writeln!(out, "  {:<20} {:>6} {:>10}", "program", "runs", "identical")?;
        for (p, t) in &sum.by_program {
            writeln!(out, "  {p:<20} {:>6} {:>10}", t.runs, t.identical)?;
        }
        for d in &sum.planner_differences {
            writeln!(out, "{}", d.record)?;
            writeln!(
                out,
                "  {}: {}{}",
                d.program,
                d.words,
                if d.drifted {
                    " (compared on a snapshot taken just before: the cluster may have changed in between)"
                } else {
                    ""
                }
            )?;
            writeln!(out, "  reproduce:")?;
            for c in &d.reproduce {
                writeln!(out, "    {c}")?;
            }
        }
    }
    if !sum.unreadable.is_empty() {
        writeln!(
            out,
            "\nUnreadable records ({}): {}",
            sum.unreadable.len(),
            sum.unreadable.join(", ")
        )?;
    }
    if sum.differences.is_empty() && sum.planner_differences.is_empty() {
        writeln!(out, "\nNo difference.")?;
    }
    Ok(())
}

fn check_json(c: &Check) -> Out {
    let detail = match c {
        Check::Accepted(w) | Check::Rejected(w) | Check::Unmappable(w) => w,
    };
    Out::Obj(vec![("verdict", s(c.word())), ("detail", s(detail))])
}

fn tallies(list: &[(String, Tally)], key: &'static str) -> Out {
    Out::Arr(
        list.iter()
            .map(|(k, t)| {
                Out::Obj(vec![
                    (key, s(k)),
                    ("runs", Out::Int(t.runs as i64)),
                    ("identical", Out::Int(t.identical as i64)),
                ])
            })
            .collect(),
    )
}

fn document(dir: &Path, sum: &Summary) -> Out {
    let opt = |x: Option<f64>| x.map_or(Out::Null, Out::Num);
    let runs: usize = sum.by_type.iter().map(|(_, t)| t.runs).sum();
    let identical: usize = sum.by_type.iter().map(|(_, t)| t.identical).sum();
    let planner_runs: usize = sum.by_program.iter().map(|(_, t)| t.runs).sum();
    let planner_same: usize = sum.by_program.iter().map(|(_, t)| t.identical).sum();
    Out::Obj(vec![
        ("program", s("hailstone-shadow")),
        ("schema", Out::Int(1)),
        ("folder", s(&dir.to_string_lossy())),
        ("records", Out::Int(sum.records as i64)),
        (
            "allocator",
            Out::Obj(vec![
                ("runs", Out::Int(runs as i64)),
                ("identical", Out::Int(identical as i64)),
                (
                    "primary",
                    Out::Obj(vec![
                        ("reference", Out::Int(sum.primary_reference as i64)),
                        ("hailstone", Out::Int(sum.primary_hailstone as i64)),
                    ]),
                ),
                ("by_type", tallies(&sum.by_type, "type")),
                (
                    "time_ratio",
                    Out::Obj(vec![
                        ("runs", Out::Int(sum.ratios.len() as i64)),
                        ("median", opt(median(&sum.ratios))),
                        ("p99", opt(percentile(&sum.ratios, 99.0))),
                    ]),
                ),
                (
                    "differences",
                    Out::Arr(
                        sum.differences
                            .iter()
                            .map(|d| {
                                Out::Obj(vec![
                                    ("record", s(&d.record)),
                                    ("type", s(&d.kind)),
                                    ("subject", s(&d.subject)),
                                    ("difference", s(&d.words)),
                                    ("path", d.path.as_deref().map_or(Out::Null, s)),
                                    ("reproduce", strs(&d.reproduce)),
                                    (
                                        "ganeti",
                                        Out::Obj(vec![
                                            ("reference", check_json(&d.reference_check)),
                                            ("hailstone", check_json(&d.hailstone_check)),
                                        ]),
                                    ),
                                    (
                                        "explanation",
                                        d.explanation
                                            .as_ref()
                                            .map_or(Out::Null, |e| s(&e.to_string_lossy())),
                                    ),
                                ])
                            })
                            .collect(),
                    ),
                ),
            ]),
        ),
        (
            "htools",
            Out::Obj(vec![
                ("runs", Out::Int(planner_runs as i64)),
                ("identical", Out::Int(planner_same as i64)),
                ("by_program", tallies(&sum.by_program, "program")),
                (
                    "differences",
                    Out::Arr(
                        sum.planner_differences
                            .iter()
                            .map(|d| {
                                Out::Obj(vec![
                                    ("record", s(&d.record)),
                                    ("program", s(&d.program)),
                                    ("difference", s(&d.words)),
                                    ("drifted", Out::Bool(d.drifted)),
                                    ("reproduce", strs(&d.reproduce)),
                                ])
                            })
                            .collect(),
                    ),
                ),
            ]),
        ),
        ("unreadable", strs(&sum.unreadable)),
    ])
}

/// How the report is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Text,
    /// One JSON document (`--json`).
    Json,
}

/// The report of `dir`, as text or one JSON document.
///
/// # Errors
///
/// `dir` cannot be listed (exit 1), a difference was recorded
/// ([`findings`], exit 3), or stdout cannot be written.
pub fn run(dir: &str, form: Form, out: &mut dyn Write) -> Result<(), Stop> {
    let dir = Path::new(dir);
    let sum = summarise(dir)?;
    if form == Form::Json {
        out.write_all(document(dir, &sum).line().as_bytes())?;
    } else {
        write_text(dir, &sum, out)?;
    }
    if sum.differences.is_empty() && sum.planner_differences.is_empty() {
        Ok(())
    } else {
        out.flush()?;
        Err(findings())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 99.0), Some(99.0));
        assert_eq!(percentile(&v, 100.0), Some(100.0));
        assert_eq!(percentile(&[3.0], 99.0), Some(3.0));
        assert_eq!(percentile(&[], 99.0), None);
        assert_eq!(median(&[1.0, 2.0, 4.0]), Some(2.0));
        assert_eq!(median(&[1.0, 2.0, 4.0, 8.0]), Some(3.0));
    }

    #[test]
    fn shell_words() {
        assert_eq!(shell_word("/tmp/r.json"), "/tmp/r.json");
        assert_eq!(shell_word("--explain=a b"), "'--explain=a b'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
    }
}
