//! What blocks a balancing where it stopped, for its explanation: every
//! candidate move of the final state that a check refuses, the check with
//! its numbers and the node it refused ([`MoveChecks`]: the checks of
//! [`moves::apply`], in its order, asked again for their numbers), and
//! whether the move would lower the score if the soft checks let it
//! through (what hbal's `--ignore-soft-errors` would score it).
//!
//! The balancing keeps no note of refusals (a step looks at most
//! candidates only through bounds), and none is needed for its answer:
//! [`refused_moves`] goes once over the final state's candidates, as the
//! first full scan of a step does, and changes nothing. It runs only when
//! an explanation is asked for.

use smallvec::SmallVec;

use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::model::refusal::Refusal;
use crate::model::types::{FailMode, SoftChecks};
use crate::score::base::ScoreBase;
use crate::score::metric::NodeValues;
use crate::search::moves::{self, location_score, Move, Nodes};
use crate::search::state::State;

use super::candidates::{candidate_moves, Changes, InstanceCtx};
use super::{relocatable, BalanceOptions};

/// The check that refuses a move, and where.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoveRefusal {
    /// The check, with its numbers.
    pub refusal: Refusal,
    /// The node the check refused (for a migration, the node the instance
    /// would migrate to).
    pub node: usize,
    /// Whether the node was checked as the instance's primary (or as the
    /// target of a migration); otherwise as its secondary.
    pub as_primary: bool,
}

fn refused(refusal: Refusal, node: i32, as_primary: bool) -> Option<MoveRefusal> {
    Some(MoveRefusal {
        refusal,
        node: usize::try_from(node).ok()?,
        as_primary,
    })
}

fn migration(node: i32) -> Option<MoveRefusal> {
    refused(Refusal::mode_only(FailMode::Mig), node, true)
}

/// The checks of one instance's moves: its own nodes without it,
/// computed once for all its moves.
pub struct MoveChecks<'s> {
    inst: &'s Instance,
    /// The primary without the instance.
    int_p: Node,
    /// The secondary without the instance (`None` without a secondary).
    int_s: Option<Node>,
}

impl<'s> MoveChecks<'s> {
    /// The checks of `inst`'s moves on `state`; `None` when its primary
    /// is missing (then [`moves::apply`] says what is wrong).
    pub fn new(state: &impl Nodes, inst: &'s Instance) -> Option<MoveChecks<'s>> {
        let mut int_p = state.node(inst.p_node).ok()?.clone();
        int_p.remove_pri(inst);
        let int_s = state.node(inst.s_node).ok().map(|s| {
            let mut s = s.clone();
            s.remove_sec(inst);
            s
        });
        Some(MoveChecks { inst, int_p, int_s })
    }

    /// The check that refuses `mv` with the soft checks `soft`, as
    /// [`moves::apply`] runs them (the same order, the same nodes), or
    /// `None` when the move passes (or a node is missing: `apply` reports
    /// that). Debug builds check that `apply` fails with the same mode.
    pub fn refusal(&self, state: &impl Nodes, mv: Move, soft: SoftChecks) -> Option<MoveRefusal> {
        let found = self.refusal_of(state, mv, soft);
        #[cfg(debug_assertions)]
        {
            let applied = match moves::apply(state, self.inst, mv, soft) {
                Err(moves::MoveError::Fail(mode)) => Some(mode),
                _ => None,
            };
            debug_assert_eq!(
                found.map(|r| r.refusal.mode),
                applied,
                "{mv:?} of {}",
                self.inst.name
            );
        }
        found
    }

    fn refusal_of(&self, state: &impl Nodes, mv: Move, soft: SoftChecks) -> Option<MoveRefusal> {
        let inst = self.inst;
        let (old_pdx, old_sdx) = (inst.p_node, inst.s_node);
        let old_p = state.node(old_pdx).ok()?;
        let int_p = &self.int_p;
        match mv {
            Move::Failover => {
                let old_s = state.node(old_sdx).ok()?;
                let int_s = self.int_s.as_ref()?;
                let soft_p = soft.ignored_if(old_p.offline);
                if old_p.check_migration(old_s).is_err() {
                    return migration(old_sdx);
                }
                if let Err(r) = int_s.check_add_pri(soft_p, inst) {
                    return refused(r, old_sdx, true);
                }
                let r = int_p
                    .check_add_sec(old_p.offline, soft_p, inst, old_sdx)
                    .err()?;
                refused(r, old_pdx, false)
            }
            Move::FailoverToAny(t) => {
                let tgt = state.node(t as i32).ok()?;
                if old_p.check_migration(tgt).is_err() {
                    return migration(t as i32);
                }
                let r = tgt
                    .check_add_pri(soft.ignored_if(old_p.offline), inst)
                    .err()?;
                refused(r, t as i32, true)
            }
            Move::ReplaceSecondary(t) => {
                let old_s = state.node(old_sdx).ok()?;
                let tgt = state.node(t as i32).ok()?;
                let mut new_inst = inst.clone();
                new_inst.location_score = location_score(old_p, tgt);
                new_inst.s_node = t as i32;
                let soft_s = soft.ignored_if(old_s.offline);
                if let Err(r) = tgt.check_add_sec(false, soft_s, &new_inst, old_pdx) {
                    return refused(r, t as i32, false);
                }
                let r = int_p.check_add_pri(SoftChecks::Ignore, &new_inst).err()?;
                refused(r, old_pdx, true)
            }
            Move::ReplacePrimary(t) => {
                let old_s = state.node(old_sdx).ok()?;
                let tgt = state.node(t as i32).ok()?;
                let mut int_s = self.int_s.as_ref()?.clone();
                let mut new_inst = inst.clone();
                new_inst.location_score = location_score(tgt, &int_s);
                new_inst.p_node = t as i32;
                let soft_p = soft.ignored_if(old_p.offline);
                if old_p.check_migration(old_s).is_err() {
                    return migration(old_sdx);
                }
                if old_s.check_migration(tgt).is_err() {
                    return migration(t as i32);
                }
                // The old secondary hosts the instance during the
                // migrations.
                match int_s.check_add_pri(soft_p, &new_inst) {
                    Err(r) => return refused(r, old_sdx, true),
                    Ok(p) => int_s.commit_add_pri(&p, &new_inst),
                }
                int_s.remove_pri(&new_inst);
                if let Err(r) = tgt.check_add_pri(soft_p, &new_inst) {
                    return refused(r, t as i32, true);
                }
                let r = int_s
                    .check_add_sec(false, soft_p, &new_inst, t as i32)
                    .err()?;
                refused(r, old_sdx, false)
            }
            Move::ReplaceAndFailover(t) => {
                let old_s = state.node(old_sdx).ok()?;
                let tgt = state.node(t as i32).ok()?;
                let mut new_inst = inst.clone();
                new_inst.location_score = location_score(tgt, int_p);
                new_inst.p_node = t as i32;
                new_inst.s_node = old_pdx;
                if old_p.check_migration(tgt).is_err() {
                    return migration(t as i32);
                }
                if let Err(r) = tgt.check_add_pri(soft, &new_inst) {
                    return refused(r, t as i32, true);
                }
                let soft_s = soft.ignored_if(old_s.offline);
                let r = int_p
                    .check_add_sec(false, soft_s, &new_inst, t as i32)
                    .err()?;
                refused(r, old_pdx, false)
            }
            Move::FailoverAndReplace(t) => {
                let old_s = state.node(old_sdx).ok()?;
                let tgt = state.node(t as i32).ok()?;
                let int_s = self.int_s.as_ref()?;
                let soft_p = soft.ignored_if(old_p.offline);
                let mut new_inst = inst.clone();
                new_inst.location_score = location_score(int_s, tgt);
                new_inst.p_node = old_sdx;
                new_inst.s_node = t as i32;
                if old_p.check_migration(old_s).is_err() {
                    return migration(old_sdx);
                }
                if let Err(r) = int_s.check_add_pri(soft_p, &new_inst) {
                    return refused(r, old_sdx, true);
                }
                let r = tgt.check_add_sec(false, soft_p, &new_inst, old_sdx).err()?;
                refused(r, t as i32, false)
            }
        }
    }
}

/// The primary and secondary a move would give the instance.
pub fn new_nodes(inst: &Instance, mv: Move) -> (i32, i32) {
    let (p, s) = (inst.p_node, inst.s_node);
    match mv {
        Move::Failover => (s, p),
        Move::FailoverToAny(t) => (t as i32, s),
        Move::ReplaceSecondary(t) => (p, t as i32),
        Move::ReplacePrimary(t) => (t as i32, s),
        Move::ReplaceAndFailover(t) => (t as i32, p),
        Move::FailoverAndReplace(t) => (s, t as i32),
    }
}

/// What a refused move would do if the soft checks let it through.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Forced {
    /// It would still be refused: a hard check (memory, disk, spindles, a
    /// migration), or the soft checks were already ignored.
    Hard,
    /// It would not lower the score.
    NotLower,
    /// It would lower the score to this (the full score, as hbal computes
    /// it).
    Lower(f64),
}

/// One refused candidate move.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RefusedMove {
    /// The instance's key.
    pub inst: usize,
    pub mv: Move,
    /// Its primary and secondary now, and those the move would give.
    pub old_nodes: (i32, i32),
    pub new_nodes: (i32, i32),
    /// The check that refused it.
    pub why: MoveRefusal,
    pub forced: Forced,
}

/// The counts of a scan of the candidate moves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scanned {
    /// The instances a step considers.
    pub instances: usize,
    /// Their candidate moves (hbal's `possibleMoves`), those that pass
    /// every check, and those refused.
    pub candidates: u64,
    pub fit: u64,
    pub refused: u64,
}

/// Every candidate move of the balancing's final `state` (score `score`)
/// that a check refuses, shown to `each` in hbal's order (instances by
/// key, the failover first, then by target node and move kind), with the
/// counts of the scan.
pub fn refused_moves(
    state: &State,
    movable: &[bool],
    options: &BalanceOptions,
    score: f64,
    mut each: impl FnMut(RefusedMove),
) -> Scanned {
    let keys = relocatable(state, movable, options);
    let online: Vec<usize> = state
        .node_keys()
        .filter(|&k| !state.node_at(k).offline)
        .collect();
    let map_value = state.cluster_stats().map_value_after(&[]);
    let base = state.present_sums().base(map_value);
    let any_location = state.any_location_tags(state.node_keys());
    let mut scanned = Scanned {
        instances: keys.len(),
        ..Scanned::default()
    };
    let mut buf = Vec::new();
    let mut changes = Changes::new();
    for k in keys {
        let Ok(inst) = state.inst(k as i32) else {
            continue;
        };
        candidate_moves(state, &online, inst, options, None, true, &mut buf);
        let ctx = InstanceCtx::new(state, inst, options.soft, None);
        // The checks asked again, made at the instance's first refusal.
        let mut checks: Option<Option<MoveChecks<'_>>> = None;
        // The same moves with the soft checks ignored, made when needed.
        let mut ignoring: Option<Option<InstanceCtx<'_>>> = None;
        for &mv in &buf {
            scanned.candidates += 1;
            let fits = match &ctx {
                Some(c) => c.changes(state, mv, &mut changes).is_ok(),
                None => moves::apply(state, inst, mv, options.soft).is_ok(),
            };
            if fits {
                scanned.fit += 1;
                continue;
            }
            scanned.refused += 1;
            let why = checks
                .get_or_insert_with(|| MoveChecks::new(state, inst))
                .as_ref()
                .and_then(|c| c.refusal(state, mv, options.soft));
            let Some(why) = why else {
                continue;
            };
            // A hard check refuses the move whatever the soft checks: the
            // checks before it pass either way and change the same nodes.
            let forced = if options.soft == SoftChecks::Ignore || !why.refusal.is_soft() {
                debug_assert!(moves::apply(state, inst, mv, SoftChecks::Ignore).is_err());
                Forced::Hard
            } else {
                let exact_only = any_location && !inst.excl_tags.is_empty();
                let screen = match base.as_ref().filter(|_| !exact_only) {
                    Some(base) => ignoring
                        .get_or_insert_with(|| {
                            InstanceCtx::new(state, inst, SoftChecks::Ignore, None)
                        })
                        .as_ref()
                        .map(|ctx| Screen { ctx, base }),
                    None => None,
                };
                forced(state, inst, mv, score, screen, &mut changes)
            };
            each(RefusedMove {
                inst: k,
                mv,
                old_nodes: (inst.p_node, inst.s_node),
                new_nodes: new_nodes(inst, mv),
                why,
                forced,
            });
        }
    }
    scanned
}

/// What screens a forced move by the score's approximation: the
/// instance's moves with the soft checks ignored, and the group prepared
/// for the approximation.
struct Screen<'a, 's> {
    ctx: &'a InstanceCtx<'s>,
    base: &'a ScoreBase,
}

/// [`Forced`] of a refused move: with the soft checks ignored, screened
/// by the score's approximation (when `screen` is given) and scored in
/// full (applied as [`moves::apply`] does) only when it may be below
/// `score`.
fn forced(
    state: &State,
    inst: &Instance,
    mv: Move,
    score: f64,
    screen: Option<Screen<'_, '_>>,
    changes: &mut Changes,
) -> Forced {
    if let Some(sc) = screen {
        if sc.ctx.changes(state, mv, changes).is_err() {
            return Forced::Hard;
        }
        // The changed online nodes, and the offline ones.
        let mut online: SmallVec<[(&NodeValues, &NodeValues); 3]> = SmallVec::new();
        let mut offline: SmallVec<[(&NodeValues, &NodeValues); 2]> = SmallVec::new();
        for (k, v) in changes.iter() {
            let pair = (state.values(*k), v);
            if state.node_at(*k).offline {
                offline.push(pair);
            } else {
                online.push(pair);
            }
        }
        if let Some((a, e)) = sc.base.approx_leaving(&online, &offline, |_, _, _, _| {}) {
            let margin = 1e-9 * (score.abs() + 1.0);
            if a - e - margin >= score {
                return Forced::NotLower;
            }
        }
    }
    let Ok(moved) = moves::apply(state, inst, mv, SoftChecks::Ignore) else {
        return Forced::Hard;
    };
    let exact = state.score_with(&moved.final_nodes());
    if exact < score {
        Forced::Lower(exact)
    } else {
        Forced::NotLower
    }
}
