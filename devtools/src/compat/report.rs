//! Reporting: the per-kind tables, and each unexplained difference with
//! the commands that reproduce it.

use std::collections::BTreeMap;

use super::case::{Done, Shared};
use super::classify::Outcome;
use crate::cases;

#[derive(Default, Clone)]
pub(super) struct Tally {
    pub(super) cases: usize,
    pub(super) identical: usize,
    pub(super) same_result: usize,
    pub(super) not_impl: usize,
    pub(super) both_refused: usize,
    pub(super) accepted: usize,
    pub(super) unexplained: usize,
    pub(super) hail_timeouts: usize,
    /// Cases where hail answered (exit 0) and hailstone is implemented.
    pub(super) answered: usize,
}

impl Tally {
    pub(super) fn add(&mut self, d: &Done) {
        self.cases += 1;
        match d.outcome {
            Ok(o) => {
                match o {
                    Outcome::Identical => {
                        self.identical += 1;
                        self.same_result += 1;
                    }
                    Outcome::SameResult => self.same_result += 1,
                    Outcome::NotImplemented => self.not_impl += 1,
                    Outcome::BothRefused => self.both_refused += 1,
                    Outcome::HailTimeout => self.hail_timeouts += 1,
                    _ => {}
                }
                let hail_ok = d.hail.as_ref().map(|h| h.ok()).unwrap_or(false);
                if hail_ok && o != Outcome::NotImplemented && o != Outcome::HailTimeout {
                    self.answered += 1;
                }
                if o.is_difference() {
                    if d.accepted {
                        self.accepted += 1;
                    } else {
                        self.unexplained += 1;
                    }
                }
            }
            Err(_) => {
                if d.accepted {
                    self.accepted += 1;
                } else {
                    self.unexplained += 1;
                }
            }
        }
    }

    pub(super) fn merge(&mut self, o: &Tally) {
        self.cases += o.cases;
        self.identical += o.identical;
        self.same_result += o.same_result;
        self.not_impl += o.not_impl;
        self.both_refused += o.both_refused;
        self.accepted += o.accepted;
        self.unexplained += o.unexplained;
        self.hail_timeouts += o.hail_timeouts;
        self.answered += o.answered;
    }
}

pub(super) fn pct(a: usize, b: usize) -> String {
    if b == 0 {
        "-".to_string()
    } else {
        format!("{:.1}%", a as f64 * 100.0 / b as f64)
    }
}

pub(super) fn table(tallies: &BTreeMap<usize, (String, Tally)>) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "{:<30} {:>6} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8}\n",
        "kind", "cases", "identical", "same", "not", "both", "accepted", "unexpl.", "hail"
    ));
    s.push_str(&format!(
        "{:<30} {:>6} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8}\n",
        "", "", "answers", "results", "impl.", "refused", "diffs", "diffs", "timeouts"
    ));
    let mut total = Tally::default();
    for (name, t) in tallies.values() {
        s.push_str(&format!(
            "{:<30} {:>6} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8}\n",
            name,
            t.cases,
            t.identical,
            t.same_result,
            t.not_impl,
            t.both_refused,
            t.accepted,
            t.unexplained,
            t.hail_timeouts
        ));
        total.merge(t);
    }
    s.push_str(&format!(
        "{:<30} {:>6} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8}\n",
        "total",
        total.cases,
        total.identical,
        total.same_result,
        total.not_impl,
        total.both_refused,
        total.accepted,
        total.unexplained,
        total.hail_timeouts
    ));
    s.push_str("\nAgreement over the cases hail answered (exit 0) and hailstone implements:\n");
    s.push_str(&format!(
        "{:<30} {:>9} {:>22} {:>22}\n",
        "kind", "answered", "identical success+result", "byte-identical answers"
    ));
    for (name, t) in tallies
        .values()
        .chain(std::iter::once(&("total".to_string(), total.clone())))
    {
        s.push_str(&format!(
            "{:<30} {:>9} {:>22} {:>22}\n",
            name,
            t.answered,
            pct(t.same_result, t.answered),
            pct(t.identical, t.answered)
        ));
    }
    s
}

pub(super) fn window(a: &[u8], b: &[u8]) -> (String, String) {
    if a.len() <= 600 && b.len() <= 600 {
        return (
            String::from_utf8_lossy(a).into_owned(),
            String::from_utf8_lossy(b).into_owned(),
        );
    }
    let d = a
        .iter()
        .zip(b.iter())
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let lo = d.saturating_sub(150);
    let cut = |x: &[u8]| {
        let hi = (d + 150).min(x.len());
        let lo = lo.min(x.len());
        format!(
            "{}{}{} (first difference at byte {})",
            if lo > 0 { "..." } else { "" },
            String::from_utf8_lossy(&x[lo..hi]),
            if hi < x.len() { "..." } else { "" },
            d
        )
    };
    (cut(a), cut(b))
}

pub(super) fn first_lines(b: &[u8], n: usize) -> String {
    let s = String::from_utf8_lossy(b);
    let v: Vec<&str> = s.lines().take(n).collect();
    v.join("\n      ")
}

pub(super) fn report_difference(d: &Done, sh: &Shared) -> String {
    let mut s = String::new();
    let label = match &d.outcome {
        Ok(o) => o.label().to_string(),
        Err(e) => format!("error: {}", e),
    };
    s.push_str(&format!("--- {} [{}]\n", d.id, label));
    let input = d.kept.clone().unwrap_or_else(|| d.input_path.clone());
    s.push_str(&format!(
        "  hail:      {}\n",
        cases::command_line(&sh.hail, &input, &d.options)
    ));
    s.push_str(&format!(
        "  hailstone: {}\n",
        cases::command_line(&sh.hailstone, &input, &d.options)
    ));
    if d.kept.is_none() {
        if let Some(r) = &d.regen {
            s.push_str(&format!(
                "  (input not kept; use --keep DIR, or regenerate: {})\n",
                r
            ));
        }
    }
    if let (Some(h), Some(x)) = (&d.hail, &d.hs) {
        s.push_str(&format!(
            "  hail {}, hailstone {}\n",
            h.describe(),
            x.describe()
        ));
        let (a, b) = window(&h.stdout, &x.stdout);
        s.push_str(&format!("  hail answer:      {}\n", a.trim_end()));
        s.push_str(&format!("  hailstone answer: {}\n", b.trim_end()));
        if !h.ok() && !h.stderr.is_empty() {
            s.push_str(&format!(
                "  hail stderr:      {}\n",
                first_lines(&h.stderr, 5)
            ));
        }
        if !x.ok() && !x.stderr.is_empty() {
            s.push_str(&format!(
                "  hailstone stderr: {}\n",
                first_lines(&x.stderr, 5)
            ));
        }
    }
    s
}
