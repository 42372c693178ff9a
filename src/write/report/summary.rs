//! The plain-language summary at the top of a page: a few sentences that
//! say what the plan does, what fits or what is wrong (e.g. "4 moves: 2
//! primary replacements, 1 failover then replacement, 1 secondary
//! replacement. Score 46.9 → 0.266; nodes failing N+1: 0 (unchanged).").
//!
//! * Owns: the summary's phrases and their short numbers ([`short`]);
//!   each phrase that carries a figure is a `<span data-key="summary-…">`
//!   with the exact figure in `data-value` (or `data-before` and
//!   `data-after`), as the program's text prints it, so a script or a
//!   test can check the sentence against the text.

use std::fmt::Write;

use crate::haskell::show::printf_fixed;
use crate::model::node::Node;
use crate::model::types::IMove;
use crate::search::balance::Placement;

use super::svg::escape;

/// The summary: sentences of HTML phrases.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    sentences: Vec<String>,
}

impl Summary {
    pub fn new() -> Summary {
        Summary::default()
    }

    /// A sentence of `phrases` (HTML), joined by `"; "`; the first
    /// begins it (with a capital: names keep their case, so no phrase is
    /// capitalised here).
    pub fn say(&mut self, phrases: &[String]) {
        let s: Vec<&String> = phrases.iter().filter(|p| !p.is_empty()).collect();
        if s.is_empty() {
            return;
        }
        let joined: Vec<&str> = s.iter().map(|p| p.as_str()).collect();
        let mut sentence = joined.join("; ");
        sentence.push('.');
        self.sentences.push(sentence);
    }

    /// The summary's HTML.
    pub fn html(&self) -> String {
        if self.sentences.is_empty() {
            return String::new();
        }
        let mut out = String::from(r#"<div class="summary" data-key="summary">"#);
        for s in &self.sentences {
            let _ = write!(out, "<p>{s}</p>");
        }
        out.push_str("</div>");
        out
    }
}

/// A phrase carrying figures: `text` (escaped) in a span keyed
/// `summary-KEY`, with `data` as `data-` attributes.
pub fn phrase(key: &str, data: &[(&str, String)], text: &str) -> String {
    let mut out = format!(r#"<span data-key="summary-{}""#, escape(key));
    for (k, v) in data {
        let _ = write!(out, r#" data-{k}="{}""#, escape(v));
    }
    let _ = write!(out, ">{}</span>", escape(text));
    out
}

/// `n` with its noun: "1 move", "4 moves".
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A figure to three significant digits, for reading (46.9, 0.266,
/// 1235); the page's tables and the phrases' attributes keep the text's.
pub fn short(v: f64) -> String {
    if !v.is_finite() {
        return printf_fixed(v, 0);
    }
    if v == 0.0 {
        return "0".to_owned();
    }
    let magnitude = v.abs().log10().floor() as i32;
    let decimals = (2 - magnitude).clamp(0, 8) as usize;
    printf_fixed(v, decimals)
}

/// A change as a reader sees it: "a → b", or "a (unchanged)".
pub fn change(before: &str, after: &str) -> String {
    if before == after {
        format!("{before} (unchanged)")
    } else {
        format!("{before} → {after}")
    }
}

/// What a kind of move is called, one and many.
fn move_words<N>(mv: &IMove<N>) -> (&'static str, &'static str) {
    match mv {
        IMove::Failover => ("failover", "failovers"),
        IMove::FailoverToAny(_) => ("failover to another node", "failovers to another node"),
        IMove::ReplaceSecondary(_) => ("secondary replacement", "secondary replacements"),
        IMove::ReplacePrimary(_) => ("primary replacement", "primary replacements"),
        IMove::ReplaceAndFailover(_) => {
            ("replacement then failover", "replacements then failovers")
        }
        IMove::FailoverAndReplace(_) => {
            ("failover then replacement", "failovers then replacements")
        }
    }
}

/// "4 moves: 2 primary replacements, 2 failovers", or "no move"; the
/// kinds in the order they first come.
pub fn moves(steps: &[Placement]) -> String {
    let mut kinds: Vec<((&str, &str), usize)> = Vec::new();
    for p in steps {
        let w = move_words(&p.mv);
        match kinds.iter_mut().find(|(k, _)| *k == w) {
            Some((_, n)) => *n += 1,
            None => kinds.push((w, 1)),
        }
    }
    let head = phrase(
        "moves",
        &[("value", steps.len().to_string())],
        &if steps.is_empty() {
            "No move".to_owned()
        } else {
            count(steps.len(), "move", "moves")
        },
    );
    if kinds.is_empty() {
        return head;
    }
    let list: Vec<String> = kinds
        .iter()
        .map(|((one, many), n)| count(*n, one, many))
        .collect();
    format!("{head}: {}", escape(&list.join(", ")))
}

/// A score's change: "score 46.9 → 0.266", the text's eight decimals in
/// the attributes.
pub fn score_change(key: &str, label: &str, before: f64, after: f64) -> String {
    phrase(
        key,
        &[
            ("before", printf_fixed(before, 8)),
            ("after", printf_fixed(after, 8)),
        ],
        &format!("{label} {}", change(&short(before), &short(after))),
    )
}

/// A count's change: "nodes failing N+1: 2 → 0".
pub fn count_change(key: &str, label: &str, before: usize, after: usize) -> String {
    phrase(
        key,
        &[("before", before.to_string()), ("after", after.to_string())],
        &format!(
            "{label}: {}",
            change(&before.to_string(), &after.to_string())
        ),
    )
}

/// The online nodes whose N+1 flag is set (hbal's bad nodes).
pub fn n1_failing(nodes: &[&Node]) -> usize {
    nodes.iter().filter(|n| !n.offline && n.fail_n1).count()
}

/// The primaries and secondaries offline nodes hold.
pub fn on_offline(nodes: &[&Node]) -> usize {
    nodes
        .iter()
        .filter(|n| n.offline)
        .map(|n| n.p_list.len() + n.s_list.len())
        .sum()
}

/// The figures every plan's summary has: the moves and their kinds, the
/// score, the nodes failing N+1, and (when there are) the instances on
/// offline nodes.
pub fn plan(
    s: &mut Summary,
    steps: &[Placement],
    before: &[&Node],
    after: &[&Node],
    scores: (f64, f64),
) {
    s.say(&[moves(steps)]);
    let mut changes = vec![
        score_change("score", "Score", scores.0, scores.1),
        count_change(
            "n1",
            "nodes failing N+1",
            n1_failing(before),
            n1_failing(after),
        ),
    ];
    let (off0, off1) = (on_offline(before), on_offline(after));
    if off0 + off1 > 0 {
        changes.push(count_change(
            "offline-instances",
            "instances on offline nodes (primaries and secondaries)",
            off0,
            off1,
        ));
    }
    s.say(&changes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_numbers_keep_three_digits() {
        assert_eq!(short(46.94539253), "46.9");
        assert_eq!(short(0.26606742), "0.266");
        assert_eq!(short(1234.4), "1234");
        assert_eq!(short(0.0), "0");
        assert_eq!(short(3.0), "3.00");
        assert_eq!(short(0.000012345), "0.0000123");
    }

    #[test]
    fn sentences_join_their_phrases() {
        let mut s = Summary::new();
        s.say(&[
            phrase("moves", &[("value", "4".into())], "4 moves"),
            "score".into(),
        ]);
        s.say(&["No move".into(), String::new()]);
        assert_eq!(
            s.html(),
            r#"<div class="summary" data-key="summary"><p><span data-key="summary-moves" data-value="4">4 moves</span>; score.</p><p>No move.</p></div>"#
        );
        assert_eq!(change("2", "2"), "2 (unchanged)");
        assert_eq!(count(1, "node", "nodes"), "1 node");
    }
}
