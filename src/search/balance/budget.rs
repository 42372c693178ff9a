//! Balancing within a data budget (`hailstone-balance --max-copy=SIZE`):
//! the lowest score this finds while the plan's disk replacements copy at
//! most SIZE ([`crate::model::cost`]).
//!
//! Every step is a move hbal could make: an instance's candidates are
//! hbal's (`possibleMoves`, [`super::candidates`]), each applied by the
//! same move evaluation ([`moves::apply`]: capacity and N+1 memory,
//! exclusion tags, instance policies, no offline or drained target), and
//! hbal's stopping rules hold (`-l`, the score within `-e` of the optimum,
//! `-g` below `--min-gain-limit`). Only which move is taken differs, and
//! a move that would take the plan's data past the budget is never
//! taken. Two plans are made, each step for step:
//!
//! 1. **gain per byte**: each step takes, among the moves that fit in what
//!    is left of the budget and lower the score, one that copies no disk
//!    (a migration or a failover) with the largest gain if any, otherwise
//!    the one with the largest gain per MiB of disk it copies;
//! 2. **hbal's prefix, then gain per byte**: hbal's own steps while their
//!    data fits (exactly hbal's plan cut at the budget), then steps as in
//!    1. in what is left.
//!
//! The plan with the lower final score is kept (on a tie, the one that
//! copies less, then the first), so the result is never above hbal's plan
//! cut at the budget. On equal measure the earlier candidate in hbal's
//! order wins; nothing depends on threads or hash order.
//!
//! A step ranks the candidates by the measure of their approximate gain
//! (the score less the candidate's approximate score,
//! [`super::step::rescan`], the balancing step's approximation), computed
//! afresh for the candidates the last move may have changed (every move of
//! an instance on a node it changed, every move to such a node) and kept
//! for the others, and scores them exactly in that order until the next
//! one's ranking measure is below the best exact measure found; only exact
//! scores and the move evaluation of hbal decide what is taken.

use crate::model::cost::{move_cost, MoveCost};
use crate::search::moves::{self, Move, Moved};
use crate::search::state::State;

use std::collections::BTreeMap;

use super::candidates::rank;
use super::step::{best_step, rescan, Memo};
use super::{BalanceOptions, Placement};

/// Which of the two plans was kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Gain per byte from the first step.
    GainPerByte,
    /// hbal's steps while they fit, then gain per byte.
    HbalThenGainPerByte,
}

/// A budgeted balancing's plan.
#[derive(Debug, Clone)]
pub struct Budgeted {
    pub steps: Vec<Placement>,
    pub strategy: Strategy,
    /// The disk data its moves copy, MiB.
    pub copied: i64,
}

/// What a step's choice ranks by: zero-copy moves first by gain, then
/// the others by gain per MiB (larger is better).
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
struct Measure {
    free: bool,
    value: f64,
}

fn measure(gain: f64, disk: i64) -> Measure {
    if disk <= 0 {
        Measure {
            free: true,
            value: gain,
        }
    } else {
        Measure {
            free: false,
            value: gain / disk as f64,
        }
    }
}

/// Whether a step from score `ini` to `fin` passes hbal's gain rule.
fn gain_ok(options: &BalanceOptions, ini: f64, fin: f64) -> bool {
    fin < ini && (ini > options.min_gain_limit || ini - fin >= options.min_gain)
}

/// Whether another step may be tried after `steps` steps at `score`.
fn may_go_on(options: &BalanceOptions, steps: usize, score: f64) -> bool {
    (options.max_length < 0 || (steps as i64) < options.max_length) && score > options.stop_score
}

/// The candidates of a run of steps, kept from step to step: by
/// instance key and hbal's rank, the move and its approximate gain (the
/// score then less its approximate score) when it was last computed.
struct Pool {
    entries: BTreeMap<(usize, u64), (Move, Option<f64>)>,
    /// The nodes the last step changed (ascending); `None` before the
    /// first step.
    changed: Option<Vec<usize>>,
}

impl Pool {
    fn new() -> Pool {
        Pool {
            entries: BTreeMap::new(),
            changed: None,
        }
    }

    /// Brings the candidates up to date with `state`: all of them on the
    /// first step; then those a change of the last step's nodes may
    /// change (every move of an instance on them, every move to them),
    /// the others kept as they were computed.
    fn refresh(&mut self, state: &State, movable: &[bool], options: &BalanceOptions, ini: f64) {
        let changed = self.changed.take();
        if let Some(c) = &changed {
            self.entries.retain(|&(k, _), (mv, _)| {
                let to_changed = mv.target().is_some_and(|t| c.binary_search(&t).is_ok());
                let on_changed = state.inst(k as i32).is_ok_and(|inst| {
                    inst.all_nodes()
                        .iter()
                        .any(|&n| n >= 0 && c.binary_search(&(n as usize)).is_ok())
                });
                !to_changed && !on_changed
            });
        }
        for (k, mv, approx) in rescan(state, movable, options, changed.as_deref()) {
            self.entries
                .insert((k, rank(mv)), (mv, approx.map(|(a, _)| ini - a)));
        }
    }

    /// Notes the nodes the accepted move changes.
    fn accepted(&mut self, moved: &Moved) {
        let mut keys: Vec<usize> = moved.final_nodes().iter().map(|(k, _)| *k).collect();
        keys.sort_unstable();
        keys.dedup();
        self.changed = Some(keys);
    }
}

/// The step with the best [`Measure`] among the candidates of `state` that
/// copy at most `room` MiB of disk and pass the gain rule from `ini`.
///
/// The candidates are ranked by the measure of their approximate gain
/// (as last computed: [`Pool`]) and scored exactly in that order; the
/// search stops at the first candidate whose approximate measure is below
/// the best exact one found. Among equal measures the earlier candidate in
/// hbal's order wins.
fn best_within(
    state: &State,
    movable: &[bool],
    options: &BalanceOptions,
    ini: f64,
    room: i64,
    pool: &mut Pool,
) -> Option<(Placement, Moved, MoveCost)> {
    pool.refresh(state, movable, options, ini);
    // Each candidate with its cost and the measure it is ranked by.
    let mut ranked: Vec<(Measure, usize, usize, Move, MoveCost)> = Vec::new();
    for (order, (&(key, _), &(mv, approx))) in pool.entries.iter().enumerate() {
        let Ok(inst) = state.inst(key as i32) else {
            continue;
        };
        let cost = move_cost(inst, &mv);
        if cost.disk > room {
            continue;
        }
        // Without an approximation, only the exact score says: first.
        let m = approx.map_or(
            Measure {
                free: true,
                value: f64::INFINITY,
            },
            |gain| measure(gain, cost.disk),
        );
        if m.value <= 0.0 {
            continue;
        }
        ranked.push((m, order, key, mv, cost));
    }
    // Highest measure first, hbal's order among equals.
    ranked.sort_by(|a, b| {
        b.0.partial_cmp(&a.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.1.cmp(&b.1))
    });
    let mut best: Option<(Measure, usize, Placement, Moved, MoveCost)> = None;
    for (ranked_by, order, key, mv, cost) in ranked {
        if let Some((m, ..)) = &best {
            if ranked_by < *m {
                break;
            }
        }
        let Ok(inst) = state.inst(key as i32) else {
            continue;
        };
        let Ok(moved) = moves::apply(state, inst, mv, options.soft) else {
            continue;
        };
        let score = state.score_with(&moved.final_nodes());
        if !gain_ok(options, ini, score) {
            continue;
        }
        let m = measure(ini - score, cost.disk);
        let better = match &best {
            None => true,
            Some((bm, border, ..)) => m > *bm || (m == *bm && order < *border),
        };
        if better {
            let placement = Placement {
                inst: key,
                old_nodes: (inst.p_node, inst.s_node),
                new_nodes: (moved.inst.p_node, moved.inst.s_node),
                mv,
                score,
            };
            best = Some((m, order, placement, moved, cost));
        }
    }
    best.map(|(_, _, p, moved, c)| (p, moved, c))
}

/// Steps by gain per byte on `state` from `score`, after `steps` that
/// copied `copied` MiB, within `budget`; the steps are applied to `state`.
fn gain_per_byte(
    state: &mut State,
    movable: &[bool],
    options: &BalanceOptions,
    mut score: f64,
    budget: i64,
    steps: &mut Vec<Placement>,
    copied: &mut i64,
) {
    let mut pool = Pool::new();
    while may_go_on(options, steps.len(), score) {
        let Some((p, moved, cost)) =
            best_within(state, movable, options, score, budget - *copied, &mut pool)
        else {
            break;
        };
        pool.accepted(&moved);
        moved.commit(state, p.inst);
        state.commit();
        score = p.score;
        *copied += cost.disk;
        steps.push(p);
    }
}

/// hbal's steps on `state` from `score` while their data fits in `budget`
/// (hbal's plan cut at the budget), applied to `state`; the steps and the
/// data they copy.
fn hbal_prefix(
    state: &mut State,
    movable: &[bool],
    options: &BalanceOptions,
    mut score: f64,
    budget: i64,
) -> (Vec<Placement>, i64) {
    let mut steps = Vec::new();
    let mut copied = 0i64;
    let mut memo = Memo::new(state.inst_slots());
    while may_go_on(options, steps.len(), score) {
        let Some((p, moved)) = best_step(state, movable, options, score, &mut memo) else {
            break;
        };
        if !gain_ok(options, score, p.score) {
            break;
        }
        let Ok(inst) = state.inst(p.inst as i32) else {
            break;
        };
        let disk = move_cost(inst, &p.mv).disk;
        if copied.saturating_add(disk) > budget {
            break;
        }
        memo.accepted(state, &moved);
        moved.commit(state, p.inst);
        state.commit();
        score = p.score;
        copied += disk;
        steps.push(p);
    }
    (steps, copied)
}

/// Plans the balancing of `state` (one group, at `score`) within `budget`
/// MiB of disk data; `state` is left as it is.
pub fn plan_within(
    state: &State,
    movable: &[bool],
    options: &BalanceOptions,
    score: f64,
    budget: i64,
) -> Budgeted {
    let budget = budget.max(0);
    let mut a_state = state.snapshot();
    let mut a = Vec::new();
    let mut a_copied = 0;
    gain_per_byte(
        &mut a_state,
        movable,
        options,
        score,
        budget,
        &mut a,
        &mut a_copied,
    );
    let mut b_state = state.snapshot();
    let (mut b, mut b_copied) = hbal_prefix(&mut b_state, movable, options, score, budget);
    let b_score = b.last().map_or(score, |p| p.score);
    gain_per_byte(
        &mut b_state,
        movable,
        options,
        b_score,
        budget,
        &mut b,
        &mut b_copied,
    );
    let fin = |s: &[Placement]| s.last().map_or(score, |p| p.score);
    let (fa, fb) = (fin(&a), fin(&b));
    if fb < fa || (fb == fa && b_copied < a_copied) {
        Budgeted {
            steps: b,
            strategy: Strategy::HbalThenGainPerByte,
            copied: b_copied,
        }
    } else {
        Budgeted {
            steps: a,
            strategy: Strategy::GainPerByte,
            copied: a_copied,
        }
    }
}

/// Carries out `steps` (a plan of [`plan_within`] for this state) on
/// `state`, showing each to `on_step` with the state before it.
pub fn replay(
    state: &mut State,
    steps: &[Placement],
    options: &BalanceOptions,
    mut on_step: impl FnMut(&State, &Placement),
) {
    for p in steps {
        let Ok(inst) = state.inst(p.inst as i32) else {
            return;
        };
        let Ok(moved) = moves::apply(state, inst, p.mv, options.soft) else {
            return;
        };
        on_step(state, p);
        moved.commit(state, p.inst);
        state.commit();
    }
}
