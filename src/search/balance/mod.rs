//! The balancing engine (`Cluster.tryBalance` and hbal's `iterateDepth`):
//! one group's instances are moved, one move per step, while a move
//! lowers the cluster score enough.
//!
//! Each step considers, for every movable instance in index order, a
//! failover first and then, for every online node of the group in
//! ascending order, the moves hbal's `possibleMoves` allows; the winner is
//! the first candidate with the lowest score, and only if it is strictly
//! below the current score. hbal computes the full score of the group for
//! every candidate; here a candidate costs O(1) and most candidates are
//! not looked at again after the first step ([`step`]).
//!
//! * [`candidates`]: an instance's candidate moves in hbal's order and
//!   what each does to the nodes it touches, without copying a node.
//! * [`step`]: one step's search, its bounds carried from step to step in
//!   a [`record`] per instance; [`carry`] carries a record over a change
//!   of the instance's own nodes.
//! * [`blocked`]: for explanations, the candidate moves of a final state
//!   that a check refuses, the check with its numbers, and what each would
//!   score with the soft checks ignored.
//! * [`budget`]: balancing within a data budget (`--max-copy`), by gain
//!   per byte of disk copied, on the same candidates and checks.
//! * here: the options, the loop and its stopping rules.

pub mod blocked;
pub mod budget;
mod candidates;
mod carry;
pub mod group;
mod ranking;
mod record;
mod step;

use crate::model::types::SoftChecks;
use crate::search::moves::Move;
use crate::search::state::State;

use step::{best_step, Memo};

/// The settings of a balancing (hbal's `AlgorithmOptions` and limits).
#[derive(Debug, Clone, PartialEq)]
pub struct BalanceOptions {
    /// `--ignore-soft-errors`.
    pub soft: SoftChecks,
    /// Moves that change an instance's disks (not `--no-disk-moves`).
    pub disk_moves: bool,
    /// Moves that change an instance's primary (not
    /// `--no-instance-moves`).
    pub inst_moves: bool,
    /// `--restricted-migration`.
    pub restricted_migration: bool,
    /// `-E`: only instances on offline nodes move.
    pub evac_mode: bool,
    /// `-g`: a step must gain this much once the score is at most
    /// `min_gain_limit`.
    pub min_gain: f64,
    /// `--min-gain-limit`.
    pub min_gain_limit: f64,
    /// `-l`: the most steps; negative for no limit.
    pub max_length: i64,
    /// The score at or below which balancing stops (hbal: the optimal
    /// score plus `-e`).
    pub stop_score: f64,
    /// Whether a step may scan on a second thread (off when the caller
    /// already runs balancings side by side). Never changes a result.
    pub threads: bool,
}

/// One accepted step.
#[derive(Debug, Clone)]
pub struct Placement {
    /// The moved instance's key.
    pub inst: usize,
    /// Its primary and secondary before the move.
    pub old_nodes: (i32, i32),
    /// Its primary and secondary after the move.
    pub new_nodes: (i32, i32),
    /// The move.
    pub mv: Move,
    /// The cluster score after the move.
    pub score: f64,
}

/// Balances the present nodes of `state` (one group), moving the
/// instances whose `movable` entry (by key) is set. `score` is the current
/// score. Each accepted step is shown to `on_step` with the state before
/// the move, then applied. Returns the steps.
pub fn balance(
    state: &mut State,
    movable: &[bool],
    options: &BalanceOptions,
    mut score: f64,
    mut on_step: impl FnMut(&State, &Placement),
) -> Vec<Placement> {
    let mut steps = Vec::new();
    let mut memo = Memo::new(state.inst_slots());
    loop {
        let allowed = (options.max_length < 0 || (steps.len() as i64) < options.max_length)
            && score > options.stop_score;
        if !allowed {
            break;
        }
        let Some((placement, moved)) = best_step(state, movable, options, score, &mut memo) else {
            break;
        };
        let fin = placement.score;
        let gain_ok =
            fin < score && (score > options.min_gain_limit || score - fin >= options.min_gain);
        if !gain_ok {
            break;
        }
        on_step(state, &placement);
        memo.accepted(state, &moved);
        moved.commit(state, placement.inst);
        state.commit();
        score = fin;
        steps.push(placement);
    }
    steps
}

/// Why a balancing stopped.
#[derive(Debug, Clone)]
pub enum Stop {
    /// It made `-l` steps.
    MaxLength,
    /// The score reached the stopping score (hbal: optimal plus `-e`).
    GoodEnough,
    /// No candidate move at all (nothing may move, or nowhere to go).
    NoMove,
    /// The best move does not lower the score (it is shown).
    NoImprovement(Placement),
    /// The best move lowers the score by less than `-g`, the score being
    /// at most `--min-gain-limit` (it is shown).
    GainTooSmall(Placement),
}

/// Why the balancing that left `state` at `score` after `steps` steps
/// stopped: its stopping rules checked again, and the best move left
/// (scored without a bound) when one exists. For explanations.
pub fn why_stopped(
    state: &State,
    movable: &[bool],
    options: &BalanceOptions,
    score: f64,
    steps: usize,
) -> Stop {
    if options.max_length >= 0 && steps as i64 >= options.max_length {
        return Stop::MaxLength;
    }
    if score <= options.stop_score {
        return Stop::GoodEnough;
    }
    let mut memo = Memo::new(state.inst_slots());
    match best_step(state, movable, options, f64::INFINITY, &mut memo) {
        None => Stop::NoMove,
        Some((p, _)) if p.score < score => Stop::GainTooSmall(p),
        Some((p, _)) => Stop::NoImprovement(p),
    }
}

/// The instances a step considers (`tryBalance`'s filters), by key.
fn relocatable(state: &State, movable: &[bool], options: &BalanceOptions) -> Vec<usize> {
    let mut out = Vec::new();
    for k in 0..state.inst_slots() {
        let Ok(inst) = state.inst(k as i32) else {
            continue;
        };
        if !movable.get(k).copied().unwrap_or(false) || !inst.auto_balance {
            continue;
        }
        if options.evac_mode {
            let on_offline = inst
                .all_nodes()
                .iter()
                .any(|&n| state.node(n).is_ok_and(|n| n.offline));
            if !on_offline {
                continue;
            }
        }
        out.push(k);
    }
    out
}
