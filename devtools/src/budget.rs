//! `hailstone-budget`: how much of the balance a data budget buys. On
//! held-out generated clusters (seeds far from those the searches were
//! tuned on; both generator shapes, DRBD-only and the generator's mixed
//! templates, 12 to 200 nodes) it runs `hailstone-balance --json` (hbal's
//! plan, byte for byte), and at budgets of 10%, 25% and 50% of the disk
//! data that plan copies:
//!
//! * hbal's plan cut where its data reaches the budget (its longest
//!   prefix copying at most the budget): the score there;
//! * `hailstone-balance --max-copy=BUDGET -C`: its final score, and the
//!   data its `replace-disks` commands copy (each its instance's disk size
//!   in the data file), which must not pass the budget.
//!
//! Each score is given as the fraction of the full plan's improvement it
//! reaches; the table has a row per cluster and the medians, and counts
//! where `--max-copy` is above the cut (never expected), strictly below it
//! and over the budget (never expected). The exit status is 1 when one of
//! the never-expected counts is not 0.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use hailstone::program::hail::options::LoadOptions;
use hailstone::shell::datafile;

use crate::generate::{generate, CaseSpec, DiskTemplate, RequestKind, Shape};

/// The cluster sizes, in order.
pub const SIZES: [usize; 8] = [12, 16, 20, 30, 50, 80, 120, 200];

/// The budgets, as parts of the full plan's data.
pub const BUDGETS: [f64; 3] = [0.10, 0.25, 0.50];

/// The first seed: far from the seeds the tests and the tuning use.
pub const SEED_BASE: u64 = 70_001;

/// One cluster's figures.
pub struct Row {
    pub name: String,
    pub nodes: usize,
    pub moves: usize,
    pub data: i64,
    pub initial: f64,
    pub fin: f64,
    /// Per budget: the budget, the cut's score, `--max-copy`'s score, the
    /// data its commands copy, its moves.
    pub budgets: Vec<(i64, f64, f64, i64, usize)>,
}

/// The clusters: for each size, three of the four (shape, mix) pairs in
/// turn, so every pair comes at six sizes.
pub fn specs() -> Vec<(String, CaseSpec)> {
    let pairs = [
        (Shape::Standard, true),
        (Shape::Hosting, false),
        (Shape::Standard, false),
        (Shape::Hosting, true),
    ];
    let mut out = Vec::new();
    let mut k = 0;
    for &nodes in &SIZES {
        for _ in 0..3 {
            let (shape, drbd) = pairs[k % 4];
            let seed = SEED_BASE + k as u64;
            let mut spec = CaseSpec::new(seed, RequestKind::Allocate, nodes);
            spec.shape = shape;
            spec.instances_per_node = 4.0;
            if drbd {
                spec.instance_templates = vec![(DiskTemplate::Drbd, 1)];
            }
            let name = format!(
                "{}-{}-n{nodes}-s{seed}",
                shape.name(),
                if drbd { "drbd" } else { "mixed" }
            );
            out.push((name, spec));
            k += 1;
        }
    }
    out
}

fn run_json(bin: &Path, args: &[&str]) -> Result<serde_json::Value, String> {
    let out = Command::new(bin)
        .args(args)
        .output()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "{} {args:?}: {e}: {}",
            bin.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The disk size of each instance of a data file, by full name.
fn disks(text: &str) -> Vec<(String, i64)> {
    text.split("\n\n")
        .nth(2)
        .unwrap_or("")
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split('|').collect();
            Some((f.first()?.to_string(), f.get(2)?.parse().ok()?))
        })
        .collect()
}

/// The data the `replace-disks` commands of a document's moves copy.
fn copied(doc: &serde_json::Value, disks: &[(String, i64)]) -> i64 {
    let mut total = 0;
    for m in doc["moves"].as_array().into_iter().flatten() {
        for c in m["commands"].as_array().into_iter().flatten() {
            let c = c.as_str().unwrap_or("");
            if c.starts_with("gnt-instance replace-disks ") {
                let name = c.split_whitespace().last().unwrap_or("");
                total += disks
                    .iter()
                    .find(|(n, _)| {
                        n == name || n.strip_prefix(name).is_some_and(|r| r.starts_with('.'))
                    })
                    .map_or(i64::MAX / 4, |d| d.1);
            }
        }
    }
    total
}

/// Measures one cluster.
pub fn measure(bin: &Path, dir: &Path, name: &str, spec: &CaseSpec) -> Result<Row, String> {
    let case = generate(spec);
    let text = datafile::from_request(case.request.as_bytes(), &LoadOptions::default())
        .map_err(|e| format!("{name}: {e}"))?;
    let file: PathBuf = dir.join(format!("{name}.data"));
    std::fs::write(&file, &text).map_err(|e| format!("{}: {e}", file.display()))?;
    let f = file.to_str().unwrap_or("");
    let doc = run_json(bin, &["-t", f, "--json"])?;
    let moves = doc["moves"].as_array().cloned().unwrap_or_default();
    let steps: Vec<(i64, f64)> = moves
        .iter()
        .map(|m| {
            (
                m["cost"]["disk_mib"].as_i64().unwrap_or(0),
                m["score"].as_f64().unwrap_or(f64::NAN),
            )
        })
        .collect();
    let data: i64 = steps.iter().map(|s| s.0).sum();
    let initial = doc["score"]["initial"].as_f64().unwrap_or(f64::NAN);
    let fin = doc["score"]["final"].as_f64().unwrap_or(f64::NAN);
    let sizes = disks(&text);
    let mut budgets = Vec::new();
    for part in BUDGETS {
        let budget = (data as f64 * part).floor() as i64;
        let mut so_far = 0;
        let mut cut = initial;
        for &(d, s) in &steps {
            so_far += d;
            if so_far > budget {
                break;
            }
            cut = s;
        }
        let b = format!("--max-copy={budget}");
        let mc = run_json(bin, &["-t", f, "--json", &b])?;
        let score = mc["score"]["final"].as_f64().unwrap_or(f64::NAN);
        let n = mc["moves"].as_array().map_or(0, Vec::len);
        budgets.push((budget, cut, score, copied(&mc, &sizes), n));
    }
    Ok(Row {
        name: name.to_owned(),
        nodes: spec.nodes,
        moves: moves.len(),
        data,
        initial,
        fin,
        budgets,
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.retain(|x| x.is_finite());
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The part of the full improvement a score reaches.
fn part(r: &Row, score: f64) -> f64 {
    if r.initial > r.fin {
        (r.initial - score) / (r.initial - r.fin)
    } else {
        f64::NAN
    }
}

/// The table (Markdown) and whether every never-expected count is 0.
pub fn table(rows: &[Row]) -> (String, bool) {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| cluster | nodes | hbal moves | hbal data (GiB) | {} |",
        BUDGETS
            .iter()
            .map(|b| format!("{:.0}%: cut / --max-copy", b * 100.0))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(out, "|---|---|---|---|{}", "---|".repeat(BUDGETS.len()));
    let (mut above, mut over) = (0, 0);
    let mut better = vec![0; BUDGETS.len()];
    let mut counted = vec![0; BUDGETS.len()];
    for r in rows {
        let cells: Vec<String> = r
            .budgets
            .iter()
            .map(|&(_, cut, mc, _, _)| format!("{:.2} / {:.2}", part(r, cut), part(r, mc)))
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.0} | {} |",
            r.name,
            r.nodes,
            r.moves,
            r.data as f64 / 1024.0,
            cells.join(" | ")
        );
        for (k, &(budget, cut, mc, data, _)) in r.budgets.iter().enumerate() {
            if r.initial.is_nan() || r.fin.is_nan() || r.initial <= r.fin {
                continue;
            }
            counted[k] += 1;
            // The scores are compared as the documents give them.
            if mc > cut + 1e-9 {
                above += 1;
            }
            if mc < cut - 1e-9 {
                better[k] += 1;
            }
            if data > budget {
                over += 1;
            }
        }
    }
    let _ = writeln!(out);
    for (k, b) in BUDGETS.iter().enumerate() {
        let cut: Vec<f64> = rows.iter().map(|r| part(r, r.budgets[k].1)).collect();
        let mc: Vec<f64> = rows.iter().map(|r| part(r, r.budgets[k].2)).collect();
        let _ = writeln!(
            out,
            "budget {:.0}% of hbal's data: median part of hbal's improvement: cut plan {:.3}, --max-copy {:.3}; --max-copy strictly better on {} of {} clusters",
            b * 100.0,
            median(cut),
            median(mc),
            better[k],
            counted[k]
        );
    }
    let _ = writeln!(
        out,
        "--max-copy above the cut plan: {above}; copying more than the budget (from its -C commands): {over}"
    );
    (out, above == 0 && over == 0)
}
