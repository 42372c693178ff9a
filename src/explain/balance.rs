//! Explanations of `hailstone-balance`'s plans: the scores and limits the
//! balancing ran with, how many instances could move, and why it stopped
//! — the step limit, a score good enough, no move at all, or the best
//! move left with its score, which does not lower the cluster's (or not
//! by `-g`).

use crate::search::balance::{BalanceOptions, Placement, Stop};
use crate::search::moves::Move;
use crate::search::state::State;

use super::Format;
use crate::write::json::{s, Json};

/// What the explanation says about one balancing.
pub struct Run<'a> {
    /// The group's state after the balancing.
    pub state: &'a State,
    pub options: &'a BalanceOptions,
    pub movable: &'a [bool],
    pub initial: f64,
    pub optimal: f64,
    pub fin: f64,
    pub steps: usize,
    pub stop: Stop,
}

fn move_text(state: &State, p: &Placement) -> String {
    let node = |k: i32| {
        state
            .node(k)
            .map_or_else(|_| "none".to_owned(), |n| n.info.name.clone())
    };
    let inst = state
        .inst(p.inst as i32)
        .map_or_else(|_| format!("instance #{}", p.inst), |i| i.name.to_string());
    let what = match p.mv {
        Move::Failover => "failover".to_owned(),
        Move::FailoverToAny(t) => format!("migrate to {}", node(t as i32)),
        Move::ReplaceSecondary(t) => format!("new secondary {}", node(t as i32)),
        Move::ReplacePrimary(t) => format!("new primary {}", node(t as i32)),
        Move::ReplaceAndFailover(t) => format!("replace and fail over to {}", node(t as i32)),
        Move::FailoverAndReplace(t) => format!("fail over, new secondary {}", node(t as i32)),
    };
    let pair = |(a, b): (i32, i32)| {
        if b < 0 {
            node(a)
        } else {
            format!("{}/{}", node(a), node(b))
        }
    };
    format!(
        "{inst} ({what}: {} -> {})",
        pair(p.old_nodes),
        pair(p.new_nodes)
    )
}

/// The stop in words, and its kind and best move for scripts.
fn stop_parts(r: &Run<'_>) -> (&'static str, String, Option<(String, f64)>) {
    let o = r.options;
    match &r.stop {
        Stop::MaxLength => (
            "step-limit",
            "the step limit (-l) was reached".to_owned(),
            None,
        ),
        Stop::GoodEnough => (
            "good-enough",
            format!(
                "the score {} is at most {} (the best possible plus -e)",
                r.fin, o.stop_score
            ),
            None,
        ),
        Stop::NoMove => ("no-move", "no instance has a move to try".to_owned(), None),
        Stop::NoImprovement(p) => (
            "no-improvement",
            format!(
                "no move lowers the score; the best left is {} at {} (current {})",
                move_text(r.state, p),
                p.score,
                r.fin
            ),
            Some((move_text(r.state, p), p.score)),
        ),
        Stop::GainTooSmall(p) => (
            "gain-too-small",
            format!(
                "the best move left, {}, gains {} (to {}), less than -g {}",
                move_text(r.state, p),
                r.fin - p.score,
                p.score,
                o.min_gain
            ),
            Some((move_text(r.state, p), p.score)),
        ),
    }
}

fn movable_count(r: &Run<'_>) -> usize {
    (0..r.state.inst_slots())
        .filter(|&k| {
            r.movable.get(k).copied().unwrap_or(false)
                && r.state.inst(k as i32).is_ok_and(|i| i.auto_balance)
        })
        .count()
}

/// The explanation in `format`.
pub fn render(r: &Run<'_>, format: Format) -> String {
    match format {
        Format::Text => text(r),
        Format::Json => json(r).line(),
    }
}

fn json(r: &Run<'_>) -> Json {
    let o = r.options;
    let (kind, detail, best) = stop_parts(r);
    Json::Obj(vec![
        ("initial_score", Json::Num(r.initial)),
        ("final_score", Json::Num(r.fin)),
        ("optimal_score", Json::Num(r.optimal)),
        ("steps", Json::Int(r.steps as i64)),
        ("movable_instances", Json::Int(movable_count(r) as i64)),
        ("instances", Json::Int(r.state.inst_count() as i64)),
        (
            "max_length",
            if o.max_length < 0 {
                Json::Null
            } else {
                Json::Int(o.max_length)
            },
        ),
        ("stop_score", Json::Num(o.stop_score)),
        ("min_gain", Json::Num(o.min_gain)),
        ("min_gain_limit", Json::Num(o.min_gain_limit)),
        ("stop", s(kind)),
        ("stop_detail", s(&detail)),
        (
            "best_move_left",
            match best {
                Some((m, score)) => Json::Obj(vec![("move", s(&m)), ("score", Json::Num(score))]),
                None => Json::Null,
            },
        ),
    ])
}

/// The explanation, as text.
fn text(r: &Run<'_>) -> String {
    let o = r.options;
    let mut out = String::from("hailstone-balance explain\n");
    out.push_str(&format!(
        "score: initial {}, final {} after {} step{}; the N+1 reservations allow {} at best\n",
        r.initial,
        r.fin,
        r.steps,
        if r.steps == 1 { "" } else { "s" },
        r.optimal
    ));
    out.push_str(&format!(
        "{} of {} instances may move (the others: not auto-balanced, excluded or not selected, split across groups, or a template that cannot move)\n",
        movable_count(r),
        r.state.inst_count()
    ));
    let limit = if o.max_length < 0 {
        "no step limit".to_owned()
    } else {
        format!("at most {} steps", o.max_length)
    };
    out.push_str(&format!(
        "rules: {limit}; stop at score {}; a step must gain {} once the score is at most {}\n",
        o.stop_score, o.min_gain, o.min_gain_limit
    ));
    out.push_str(&format!("stopped: {}\n", stop_parts(r).1));
    out
}
