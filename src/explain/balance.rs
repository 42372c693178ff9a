//! Explanations of `hailstone-balance`'s plans: the scores and limits the
//! balancing ran with, how many instances could move and where to, and
//! what the plan costs ([`crate::model::cost`]: data copied, operations,
//! time), and why it stopped ([`super::stopped`]: the stopping rule, the imbalance
//! left in its largest score terms, and what refused the moves that would
//! lower it).
//!
//! Text rounds scores to four significant digits ([`super::reasons::sig`]);
//! the JSON keeps every number whole.

use crate::model::cost::{Knee, PlanCost};
use crate::search::balance::budget::Strategy;
use crate::search::balance::BalanceOptions;
use crate::search::state::State;

use super::reasons::sig;
use super::stopped::{self, Stopped};
use super::Format;
use crate::write::json::Json;

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
    pub stopped: Stopped,
    /// What the plan costs (`crate::model::cost`) and its knee.
    pub cost: Option<(&'a PlanCost, Option<&'a Knee>)>,
    /// `--max-copy`'s budget (MiB) and the plan kept.
    pub budget: Option<(i64, Strategy)>,
}

fn movable_count(r: &Run<'_>) -> usize {
    (0..r.state.inst_slots())
        .filter(|&k| {
            r.movable.get(k).copied().unwrap_or(false)
                && r.state.inst(k as i32).is_ok_and(|i| i.auto_balance)
        })
        .count()
}

/// The online nodes (the targets of every move) and the names of the
/// offline ones (offline or drained: no move goes there).
fn targets(state: &State) -> (usize, Vec<String>) {
    let mut online = 0;
    let mut offline = Vec::new();
    for k in state.node_keys() {
        let n = state.node_at(k);
        if n.offline {
            offline.push(n.info.name.clone());
        } else {
            online += 1;
        }
    }
    (online, offline)
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
    let (online, offline) = targets(r.state);
    let mut fields = vec![
        ("initial_score", Json::Num(r.initial)),
        ("final_score", Json::Num(r.fin)),
        ("optimal_score", Json::Num(r.optimal)),
        ("steps", Json::Int(r.steps as i64)),
        ("movable_instances", Json::Int(movable_count(r) as i64)),
        ("instances", Json::Int(r.state.inst_count() as i64)),
        ("online_nodes", Json::Int(online as i64)),
        ("offline_nodes", crate::write::json::strs(&offline)),
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
    ];
    fields.extend(stopped::json_fields(&r.stopped));
    if let Some((c, k)) = r.cost {
        fields.push((
            "cost",
            crate::write::cost::with_budget(
                crate::write::cost::plan_json_with_knee(c, k),
                r.budget,
            ),
        ));
    }
    Json::Obj(fields)
}

/// The explanation, as text.
fn text(r: &Run<'_>) -> String {
    let o = r.options;
    let mut out = String::from("hailstone-balance explain\n");
    out.push_str(&format!(
        "score: initial {}, final {} after {} step{}; the N+1 reservations allow {} at best\n",
        sig(r.initial),
        sig(r.fin),
        r.steps,
        if r.steps == 1 { "" } else { "s" },
        sig(r.optimal)
    ));
    out.push_str(&format!(
        "{} of {} instances may move (the others: not auto-balanced, excluded or not selected, split across groups, or a template that cannot move)\n",
        movable_count(r),
        r.state.inst_count()
    ));
    let (online, offline) = targets(r.state);
    out.push_str(&format!("target nodes: {online} online"));
    if !offline.is_empty() {
        out.push_str(&format!(
            "; not targets (offline or drained): {}",
            offline.join(", ")
        ));
    }
    out.push('\n');
    let limit = if o.max_length < 0 {
        "no step limit".to_owned()
    } else {
        format!("at most {} steps", o.max_length)
    };
    out.push_str(&format!(
        "rules: {limit}; stop at score {}; a step must gain {} once the score is at most {}\n",
        sig(o.stop_score),
        sig(o.min_gain),
        sig(o.min_gain_limit)
    ));
    if let Some((c, k)) = r.cost {
        out.push_str(&crate::write::cost::line(c));
        out.push('\n');
        if c.moves > 0 {
            out.push_str(&crate::write::cost::knee_line(k, c.total.disk));
            out.push('\n');
        }
    }
    if let Some((b, strategy)) = r.budget {
        out.push_str(&format!(
            "data budget (--max-copy): {}; of the two plans made within it (gain per byte from the first move; hbal's moves while their data fits, then gain per byte), the lower score: {}\n",
            crate::write::cost::size(b),
            crate::write::cost::strategy_words(strategy)
        ));
    }
    out.push_str(&stopped::text(&r.stopped, ""));
    out
}
