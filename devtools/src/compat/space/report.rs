//! The space suite's report: a table per part (the generated runs by
//! family), what hspace allocated, the slowest runs, the timeouts, every
//! unexplained difference.

use std::collections::BTreeMap;
use std::path::Path;

use super::{Compared, Known, Outcome, Verdict, PARTS};

/// Counts of one row of the report.
#[derive(Default)]
struct Tally {
    runs: usize,
    identical: usize,
    accepted: usize,
    unexplained: usize,
    capped: usize,
}

impl Tally {
    fn of<'a>(rs: impl Iterator<Item = &'a Compared>) -> Tally {
        let mut t = Tally::default();
        for r in rs {
            t.runs += 1;
            if r.verdict == Verdict::Identical && r.misses.1.is_empty() {
                t.identical += 1;
            }
            if r.verdict == Verdict::HspaceCapped {
                t.capped += 1;
            }
            if r.accepted && !r.unexplained() {
                t.accepted += 1;
            }
            if r.unexplained() {
                t.unexplained += 1;
            }
        }
        t
    }

    fn row(&self, name: &str) -> String {
        format!(
            "  {name:<38} {:>5} {:>9} {:>8} {:>11} {:>14}\n",
            self.runs, self.identical, self.accepted, self.unexplained, self.capped
        )
    }
}

const HEADER: &str =
    "  part / family                           runs identical accepted unexplained hspace timeout\n";

/// The report: a table per part (the generated runs by family), what
/// hspace allocated, the slowest runs, the timeouts, every unexplained
/// difference.
pub(super) fn report(
    results: &[Compared],
    features: &BTreeMap<String, usize>,
    hspace: &Path,
    space: &Path,
) -> String {
    let mut s = format!(
        "hailstone-compat --suite space: {} against {}\n\n",
        space.display(),
        hspace.display()
    );
    s.push_str(HEADER);
    for part in PARTS {
        let rs: Vec<&Compared> = results.iter().filter(|r| r.part == part).collect();
        if rs.is_empty() {
            continue;
        }
        s.push_str(&Tally::of(rs.iter().copied()).row(part));
        let mut families: Vec<&str> = rs.iter().map(|r| r.family).collect();
        families.sort_unstable();
        families.dedup();
        if part != "cli" {
            for f in families {
                s.push_str(
                    &Tally::of(rs.iter().copied().filter(|r| r.family == f)).row(&format!("  {f}")),
                );
            }
        }
    }
    s.push_str(&Tally::of(results.iter()).row("total"));
    let generated: Vec<&Compared> = results.iter().filter(|r| r.part == "generated").collect();
    if !generated.is_empty() {
        let text: Vec<String> = features.iter().map(|(k, v)| format!("{k} {v}")).collect();
        s.push_str(&format!("\nGenerated clusters: {}\n", text.join(", ")));
        let count = |f: &dyn Fn(&Outcome) -> bool| {
            generated
                .iter()
                .filter(|r| r.verdict != Verdict::HspaceCapped && f(&r.outcome))
                .count()
        };
        let sum = |f: &dyn Fn(&Outcome) -> Option<u64>| -> u64 {
            generated.iter().filter_map(|r| f(&r.outcome)).sum()
        };
        s.push_str(&format!(
            "hspace's answers on them: {} with tiered instances ({} in all), {} with standard instances ({} in all), {} allocating nothing, {} errors\n",
            count(&|o| o.tiered.unwrap_or(0) > 0),
            sum(&|o| o.tiered),
            count(&|o| o.standard.unwrap_or(0) > 0),
            sum(&|o| o.standard),
            count(&|o| !o.error && o.tiered.unwrap_or(0) == 0 && o.standard.unwrap_or(0) == 0),
            count(&|o| o.error),
        ));
    }
    let mut slow: Vec<&Compared> = results.iter().collect();
    slow.sort_by_key(|r| std::cmp::Reverse(r.walls.0));
    s.push_str("\nSlowest hspace runs (hspace, hailstone-space):\n");
    for r in slow.iter().take(5) {
        s.push_str(&format!(
            "  {:>6.1} s {:>6.1} s  {}\n",
            r.walls.0.as_secs_f64(),
            r.walls.1.as_secs_f64(),
            r.id
        ));
    }
    let known: Vec<&Compared> = results
        .iter()
        .filter(|r| r.accepted && !r.unexplained())
        .collect();
    if !known.is_empty() {
        s.push_str(&format!("\nAccepted differences ({}):\n", known.len()));
        for r in known {
            let kind = if r.verdict == Verdict::HailSaveCrash {
                "class:hail-save-crash, compared as far as hail went"
            } else {
                r.known.map_or("by its pattern", Known::describe)
            };
            s.push_str(&format!("  {} [{kind}]\n", r.id));
        }
    }
    let capped: Vec<&Compared> = results
        .iter()
        .filter(|r| r.verdict == Verdict::HspaceCapped)
        .collect();
    if !capped.is_empty() {
        s.push_str(&format!(
            "\nhspace timeouts (not compared, {}):\n",
            capped.len()
        ));
        for r in capped {
            s.push_str(&format!(
                "  {} (hailstone-space {:.1} s)\n",
                r.id,
                r.walls.1.as_secs_f64()
            ));
        }
    }
    let shell: Vec<&Compared> = results.iter().filter(|r| r.part == "shelltests").collect();
    if !shell.is_empty() {
        let pass =
            |f: fn(&Compared) -> &Vec<String>| shell.iter().filter(|r| f(r).is_empty()).count();
        s.push_str(&format!(
            "\nShelltests passing their own expectations: hspace {}/{}, hailstone-space {}/{}\n",
            pass(|r| &r.misses.0),
            shell.len(),
            pass(|r| &r.misses.1),
            shell.len()
        ));
    }
    for r in results.iter().filter(|r| !r.misses.0.is_empty()) {
        s.push_str(&format!(
            "\nORACLE FAILURE {}: the real hspace misses its own test: {}\n  {}\n",
            r.id,
            r.misses.0.join("; "),
            r.command
        ));
    }
    let bad: Vec<&Compared> = results.iter().filter(|r| r.unexplained()).collect();
    if !bad.is_empty() {
        s.push_str(&format!(
            "\nUnexplained differences ({}; rerun one with --only 'ID' --keep DIR):\n",
            bad.len()
        ));
        for r in bad {
            s.push_str(&format!("--- {}\n  command: {}\n", r.id, r.command));
            if let Verdict::Error(e) = &r.verdict {
                s.push_str(&format!("  error: {e}\n"));
            }
            for m in &r.misses.1 {
                s.push_str(&format!(
                    "  hailstone-space misses the test's expectation: {m}\n"
                ));
            }
            for d in &r.differences {
                s.push_str(&format!("  {d}\n"));
            }
        }
    }
    s
}
