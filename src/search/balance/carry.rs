//! Carrying an instance's [`Record`] over a step that changed one of its
//! own nodes (another instance landed on or left its primary or
//! secondary), instead of scanning its thousands of candidates again.
//!
//! A candidate's values on its target and on the nodes it does not touch
//! are those of the group; on its own nodes they are one of a few
//! [`Variant`](super::candidates::Variant)s (the node without the instance, with it as secondary,
//! ...), the same for most targets. The step changed an own node from
//! `x` to `x'`; the instance's context computed afresh gives each
//! variant's new values `y'` beside the kept `y`. Their discrepancies
//! `(y' - y) - (x' - x)` (nothing but rounding for the additive parts of
//! a value) widen the group's drift into the candidates' own
//! ([`Drift::personal`]), which carries the record's bounds as for an
//! instance whose nodes did not change.
//!
//! The record is not carried (the instance is scanned in full) when a
//! probe that failed before now succeeds (its candidates were never
//! covered), when a kept value cannot be recomputed, or when an own node
//! is offline.

use smallvec::SmallVec;

use crate::model::instance::Instance;
use crate::model::types::SoftChecks;
use crate::score::base::ScoreBase;
use crate::score::metric::NodeValues;
use crate::score::spread::{Drift, OwnChange};
use crate::search::state::State;

use super::candidates::{Changes, InstanceCtx};
use super::record::Record;

/// Carries `rec`, the record of `inst`, over `drift` to the group `now`,
/// the step having changed the nodes in `before` (ascending, with their
/// values before it). Returns `false` (the record untouched but for its kept
/// context) when it cannot.
pub(super) fn carry(
    state: &State,
    inst: &Instance,
    soft: SoftChecks,
    rec: &mut Record,
    drift: &Drift,
    now: &ScoreBase,
    before: &[(usize, NodeValues)],
) -> bool {
    let Some(old) = rec.take_kept() else {
        return false;
    };
    if old.nodes() != (inst.p_node, inst.s_node) {
        return false;
    }
    let own_offline = [inst.p_node, inst.s_node]
        .iter()
        .any(|&n| n >= 0 && state.node(n).is_ok_and(|n| n.offline));
    if own_offline {
        return false;
    }
    let Some(ctx) = InstanceCtx::new(state, inst, soft, None) else {
        return false;
    };
    let mut buf = Changes::new();
    for mv in old.reps() {
        // A failure is an answer too: the probe's entry is kept as failed.
        let _ = ctx.own_changes(state, mv, &mut buf);
    }
    let new = ctx.into_kept();
    let changed: SmallVec<[usize; 4]> = before.iter().map(|(k, _)| *k).collect();
    let fresh = new.variants();
    // Per own node: the discrepancies of its variants.
    let mut per_node: SmallVec<[(usize, OwnChange); 2]> = SmallVec::new();
    for v in old.variants() {
        let Some(w) = fresh.iter().find(|w| w.id == v.id) else {
            // Not recomputed: only the changed targets (scanned again)
            // may have needed it, or its candidates fail now.
            if new.may_need(v.id, &changed) {
                return false;
            }
            continue;
        };
        let (y, y2) = match (v.values, w.values) {
            (None, Some(_)) => return false,
            (Some(y), Some(y2)) if v.valued => (y, y2),
            _ => continue,
        };
        let x2 = state.values(v.node);
        let x = before
            .iter()
            .find(|(k, _)| *k == v.node)
            .map_or(x2, |(_, x)| x);
        let pos = match per_node.iter().position(|(k, _)| *k == v.node) {
            Some(pos) => pos,
            None => {
                per_node.push((v.node, OwnChange::default()));
                per_node.len() - 1
            }
        };
        if !per_node[pos].1.cover(x, x2, &y, &y2) {
            return false;
        }
    }
    let own = per_node
        .iter()
        .fold(OwnChange::default(), |acc, (_, c)| acc.plus(c));
    let Some(personal) = drift.personal(now, &own) else {
        return false;
    };
    rec.keep(new);
    rec.rebase(&personal);
    true
}
