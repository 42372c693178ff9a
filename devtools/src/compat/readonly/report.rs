//! The report of the check and info suites: per part the runs, the
//! identical, known, accepted and unexplained ones and the original's
//! timeouts; the original's outcomes on the generated clusters; the
//! shelltests passing their own expectations; the known differences by
//! kind; then every timeout and every unexplained difference with its
//! command line and a short diff.

use std::collections::BTreeMap;

use super::super::common::Part;
use super::known::{Known, Names};
use super::{Acceptance, Compared, Verdict};

/// The report: per part the runs, identical, known, accepted and
/// unexplained ones and the original's timeouts; the original's outcomes
/// on the generated clusters; the known differences by kind; then every
/// timeout and unexplained difference.
pub(super) fn report(results: &[Compared], names: Names) -> String {
    let o = names.original;
    let mut s = format!(
        "{:<12} {:>6} {:>10} {:>6} {:>9} {:>12} {:>10}\n",
        "part",
        "runs",
        "identical",
        "known",
        "accepted",
        "unexplained",
        format!("{o}-cap")
    );
    for part in Part::ALL {
        let rs: Vec<&Compared> = results.iter().filter(|r| r.part == part).collect();
        if rs.is_empty() {
            continue;
        }
        let count = |f: &dyn Fn(&Compared) -> bool| rs.iter().filter(|r| f(r)).count();
        s.push_str(&format!(
            "{:<12} {:>6} {:>10} {:>6} {:>9} {:>12} {:>10}\n",
            part.name(),
            rs.len(),
            count(&|r| r.verdict == Verdict::Identical),
            count(&|r| matches!(r.accepted, Acceptance::Known(_))),
            count(&|r| r.accepted == Acceptance::Pattern),
            count(&|r| r.unexplained()),
            count(&|r| r.verdict == Verdict::OriginalCapped),
        ));
        if part == Part::Generated {
            let mut outcomes: BTreeMap<&str, usize> = BTreeMap::new();
            for r in &rs {
                if let Some(x) = r.outcome {
                    *outcomes.entry(x).or_default() += 1;
                }
            }
            let list: Vec<String> = outcomes.iter().map(|(k, n)| format!("{n} {k}")).collect();
            s.push_str(&format!("  {o}'s outcomes: {}\n", list.join(", ")));
        }
        if part == Part::Shelltests {
            let tests: Vec<&&Compared> = rs.iter().filter(|r| !r.id.ends_with("(setup)")).collect();
            let pass =
                |f: fn(&Compared) -> &Vec<String>| tests.iter().filter(|r| f(r).is_empty()).count();
            s.push_str(&format!(
                "  shelltests passing their own expectations: {o} {}/{}, {} {}/{}\n",
                pass(|r| &r.misses.0),
                tests.len(),
                names.ours,
                pass(|r| &r.misses.1),
                tests.len()
            ));
        }
    }
    let mut kinds: BTreeMap<Known, usize> = BTreeMap::new();
    for r in results {
        if let Acceptance::Known(k) = r.accepted {
            *kinds.entry(k).or_default() += 1;
        }
    }
    if !kinds.is_empty() {
        let list: Vec<String> = kinds
            .iter()
            .map(|(k, n)| format!("{} {n}", k.describe()))
            .collect();
        s.push_str(&format!(
            "known differences (checked): {}\n",
            list.join(", ")
        ));
    }
    for r in results
        .iter()
        .filter(|r| r.verdict == Verdict::OriginalCapped)
    {
        s.push_str(&format!("\n{o} timeout (not compared) {}\n", r.id));
    }
    for r in results
        .iter()
        .filter(|r| r.unexplained() || !r.misses.0.is_empty())
    {
        s.push_str(&format!(
            "\nDIFF {} [{}]\n  {}\n",
            r.id, r.family, r.command
        ));
        if let Verdict::Error(e) = &r.verdict {
            s.push_str(&format!("  error: {e}\n"));
        }
        let whose = if r.id.ends_with("(setup)") {
            "the real htools program of this setup step"
        } else {
            o
        };
        for m in &r.misses.0 {
            s.push_str(&format!("  {whose} misses: {m}\n"));
        }
        for m in &r.misses.1 {
            s.push_str(&format!("  {} misses: {m}\n", names.ours));
        }
        for d in &r.differences {
            s.push_str(&format!("  {d}\n"));
        }
    }
    s
}
