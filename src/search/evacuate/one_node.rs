//! One-node moves (`Cluster.Evacuate.evacOneNodeOnly`): a drbd
//! instance's new secondary (tried by probes, `moves::SecondaryTrial`) or
//! a shared-storage instance's new primary. Every available node is tried
//! in order; the winner is the best by the target group's full score,
//! computed only for the near-ties of the `argmin` approximation
//! ([`approx_moved`]); an explained move notes each target with the check
//! that refused it ([`target_refusal`]).

use smallvec::SmallVec;

use crate::model::instance::Instance;
use crate::model::node::Scalars;
use crate::model::refusal::Refusal;
use crate::model::types::{MirrorType, SoftChecks};
use crate::score::argmin;
use crate::score::metric::{self, NodeValues};
use crate::search::moves::location_score;
use crate::search::moves::{self, Move, MoveError};
use crate::search::state::{Crash, State};

use super::{
    apply, commit, shortcut_sums, EvacError, Job, MoveKind, MoveNote, Notes, Target, TargetOutcome,
};

/// The target's own check that refused a one-node move, as the move ran
/// it (`moves::apply`): the new secondary's or the new primary's.
fn target_refusal(state: &State, inst: &Instance, mv: Move, soft: SoftChecks) -> Option<Refusal> {
    match mv {
        Move::ReplaceSecondary(t) => {
            let old_s = state.node(inst.s_node).ok()?;
            let tgt = state.node(t as i32).ok()?;
            let mut new_inst = inst.clone();
            new_inst.location_score = location_score(state.node(inst.p_node).ok()?, tgt);
            new_inst.s_node = t as i32;
            tgt.check_add_sec(
                false,
                soft.ignored_if(old_s.offline),
                &new_inst,
                inst.p_node,
            )
            .err()
        }
        Move::FailoverToAny(t) => {
            let old_p = state.node(inst.p_node).ok()?;
            let tgt = state.node(t as i32).ok()?;
            tgt.check_add_pri(soft.ignored_if(old_p.offline), inst)
                .err()
        }
        _ => None,
    }
}

/// Changes one node of the instance to the best available node
/// (`evacOneNodeOnly`): the secondary for drbd, the primary for shared
/// storage.
pub(super) fn evac_one_node_only(
    state: &mut State,
    inst: &Instance,
    group: usize,
    avail: &[usize],
    soft: SoftChecks,
    notes: Notes<'_>,
) -> Result<Job, EvacError> {
    let op = match inst.mirror_type() {
        MirrorType::None => {
            return Err(EvacError::Message(
                "Can't relocate/evacuate non-mirrored instances".to_owned(),
            ))
        }
        MirrorType::Internal => Move::ReplaceSecondary,
        MirrorType::External => Move::FailoverToAny,
    };
    // Every candidate's move is checked in order; the winner is the best by
    // the group's full score, ties to the later candidate (hail keeps the
    // old best only when it is strictly lower). The full score is computed
    // only for near-ties (see `argmin`); the approximation needs the
    // location-exclusion component to be 0.
    let base = shortcut_sums(state, inst, group).and_then(|sums| sums.base(0));
    let mut failures = String::new();
    let mut cands: Vec<usize> = Vec::new();
    let mut approxes: Vec<Option<(f64, f64)>> = Vec::new();
    let mut note = notes.is_some().then(|| MoveNote {
        inst: usize::try_from(inst.idx).unwrap_or(usize::MAX),
        kind: if inst.mirror_type() == MirrorType::Internal {
            MoveKind::NewSecondary
        } else {
            MoveKind::NewPrimary
        },
        targets: Vec::new(),
        chosen: None,
    });
    // A secondary's replacement is tried without copying nodes.
    let mut trial = if inst.mirror_type() == MirrorType::Internal {
        moves::SecondaryTrial::new(&*state, inst, soft)
    } else {
        None
    };
    for &t in avail {
        // Each target's move: the values of the nodes it changes (in the
        // group's approximation, when it applies), or why it fails.
        let outcome = match trial.as_mut().and_then(|tr| tr.try_target(&*state, t)) {
            Some(Ok(changed)) => Ok(base
                .as_ref()
                .and_then(|b| approx_moved(state, b, group, changed.iter().map(|(k, s)| (*k, s))))),
            Some(Err(MoveError::Fail(f))) => Err(f.name().to_owned()),
            Some(Err(MoveError::Crash(c))) => return Err(EvacError::Crash(c)),
            None => apply(state, inst, op(t), soft)?.map(|m| {
                let nodes = m.final_nodes();
                let scalars: SmallVec<[(usize, Scalars); 4]> =
                    nodes.iter().map(|(k, n)| (*k, n.scalars())).collect();
                base.as_ref().and_then(|b| {
                    approx_moved(state, b, group, scalars.iter().map(|(k, s)| (*k, s)))
                })
            }),
        };
        if let Some(note) = note.as_mut() {
            let o = match &outcome {
                Ok(_) => TargetOutcome::Fit,
                Err(f) => TargetOutcome::Refused(
                    f.clone(),
                    target_refusal(state, inst, op(t), soft)
                        .filter(|r| r.mode.name() == f)
                        .map(|r| Box::new((r, state.node_at(t).clone()))),
                ),
            };
            note.targets.push(Target::one(t, o));
        }
        match outcome {
            Err(f) => {
                if cands.is_empty() {
                    failures.push_str(&format!(
                        " Node {} failed: {};",
                        state.node_at(t).info.name,
                        f
                    ));
                }
            }
            Ok(approx) => {
                cands.push(t);
                approxes.push(approx);
            }
        }
    }
    let mut failure: Option<Crash> = None;
    let best = argmin::best_by_score(&approxes, |i| {
        match apply(state, inst, op(cands[i]), soft) {
            Ok(Ok(m)) => state.group_score_with(group, &m.final_nodes()),
            // The move succeeded above on the same state.
            Ok(Err(_)) => f64::NAN,
            Err(c) => {
                failure = Some(c);
                f64::NAN
            }
        }
    });
    if let Some(c) = failure {
        return Err(EvacError::Crash(c));
    }
    if let (Some(notes), Some(mut note)) = (notes, note) {
        note.chosen = best.map(|(i, score)| (cands[i], None, score));
        notes.push(note);
    }
    let Some((i, _)) = best else {
        return Err(EvacError::Message(format!(
            "Can't find any good node: {failures}"
        )));
    };
    let t = cands[i];
    let m = match apply(state, inst, op(t), soft)? {
        Ok(m) => m,
        Err(f) => return Err(EvacError::Message(f)),
    };
    commit(state, m, inst.idx);
    Ok(vec![op(t)])
}

/// The approximate score of the group, and its error bound, once a
/// move's nodes of the group replace theirs, from the group prepared once
/// (`base::ScoreBase`); `None` when the shortcut does not apply.
fn approx_moved<'a>(
    state: &State,
    base: &crate::score::base::ScoreBase,
    group: usize,
    changed: impl Iterator<Item = (usize, &'a Scalars)>,
) -> Option<(f64, f64)> {
    let mut online: SmallVec<[(NodeValues, NodeValues); 4]> = SmallVec::new();
    let mut offline: SmallVec<[(NodeValues, NodeValues); 4]> = SmallVec::new();
    for (k, s) in changed {
        // A move changes neither a node's group nor whether it is offline.
        if state.node_at(k).group != group {
            continue;
        }
        let pair = (*state.values(k), metric::node_values(s));
        if s.offline {
            offline.push(pair);
        } else {
            online.push(pair);
        }
    }
    let (online, offline) = (value_pairs(&online), value_pairs(&offline));
    base.approx_leaving(&online, &offline, |_, _, _, _| {})
}

/// The pairs of `(old, new)` values, by reference.
fn value_pairs(v: &[(NodeValues, NodeValues)]) -> SmallVec<[(&NodeValues, &NodeValues); 4]> {
    v.iter().map(|(old, new)| (old, new)).collect()
}
