//! The full simulation's steps: a shared-storage instance moved to the
//! best node of its group, a non-movable one recreated on the best node;
//! with many nodes, only the nodes whose approximate score can win are
//! scored exactly (`argmin`).

use smallvec::SmallVec;

use crate::model::instance::{Instance, NO_NODE};
use crate::model::node::{Node, PriProbe};
use crate::model::types::SoftChecks;
use crate::score::argmin::{self, GroupSums};
use crate::score::metric::{self, NodeValues};
use crate::search::ghc_sort;
use crate::search::moves::{self, Move, MoveError};
use crate::search::solution::Metric;
use crate::search::state::{Crash, State};

use super::cache::BaseSums;

/// Below this many escape nodes a move or a recreation scores each
/// exactly.
const SHORTCUT_TARGETS: usize = 16;

/// The running sums behind one full evaluation's approximate scores (the
/// present nodes' for recreations, the group's for moves), built when
/// first needed and kept up to date as the evaluation changes nodes.
#[derive(Default)]
pub(super) struct Sums {
    present: Option<GroupSums>,
    group: Option<(usize, GroupSums)>,
}

impl Sums {
    /// The sums of a full evaluation of a node of `group`: from those of
    /// the state it started from, when known, else built when needed.
    pub(super) fn starting_from(base: Option<&BaseSums>, state: &State, group: usize) -> Sums {
        match base {
            Some(b) => {
                let (present, group_sums) = b.now(state, group);
                Sums {
                    present: Some(present),
                    group: group_sums.map(|sums| (group, sums)),
                }
            }
            None => Sums::default(),
        }
    }

    fn present(&mut self, state: &State) -> &GroupSums {
        self.present.get_or_insert_with(|| state.present_sums())
    }

    fn group(&mut self, state: &State, g: usize) -> &GroupSums {
        if self.group.as_ref().is_none_or(|(have, _)| *have != g) {
            self.group = Some((g, state.group_sums(g)));
        }
        match &self.group {
            Some((_, sums)) => sums,
            None => unreachable!("the group's sums were just built"),
        }
    }

    /// Writes `nodes` into the state, keeping the sums up to date.
    fn set_nodes(&mut self, state: &mut State, nodes: impl IntoIterator<Item = (usize, Node)>) {
        for (k, node) in nodes {
            let old = *state.values(k);
            let (offline, g) = (node.offline, node.group);
            state.set_node(k, node);
            let new = state.values(k);
            if let Some(p) = &mut self.present {
                p.replace(&old, new, offline);
            }
            if let Some((have, sums)) = &mut self.group {
                if *have == g {
                    sums.replace(&old, new, offline);
                }
            }
        }
    }
}

/// Moves a shared-storage instance to the best escape node
/// (`nodeEvacInstance … ChangePrimary`, soft errors ignored): best group
/// score, ties to the later node. With many escape nodes, only those
/// whose approximate score can win are scored exactly.
pub(super) fn evacuate_shared(
    state: &mut State,
    inst: &Instance,
    group: usize,
    escape: &[usize],
    sums: &mut Sums,
) -> Result<bool, Crash> {
    let mut ok: Vec<moves::Moved> = Vec::new();
    for &t in escape {
        match moves::apply(state, inst, Move::FailoverToAny(t), SoftChecks::Ignore) {
            Err(MoveError::Fail(_)) => {}
            Err(MoveError::Crash(c)) => return Err(c),
            Ok(m) => ok.push(m),
        }
    }
    let exact = |state: &State, m: &moves::Moved| state.group_score_with(group, &m.final_nodes());
    let chosen = bounded_move(state, group, &ok, &exact, sums).or_else(|| {
        let mut best: Option<(usize, f64)> = None;
        for (i, m) in ok.iter().enumerate() {
            let cv = exact(state, m);
            let keep_old = matches!(best, Some((_, old)) if old < cv);
            if !keep_old {
                best = Some((i, cv));
            }
        }
        best.map(|(i, _)| i)
    });
    let Some(i) = chosen else {
        return Ok(false);
    };
    let m = ok.swap_remove(i);
    sums.set_nodes(state, m.nodes);
    // hail stores the moved instance under its own idx.
    if let Ok(k) = usize::try_from(inst.idx) {
        state.set_inst(k, m.inst);
    }
    Ok(true)
}

/// The index in `ok` of the move [`evacuate_shared`] picks, found from
/// approximate scores; `None` when the shortcut does not apply.
fn bounded_move(
    state: &State,
    group: usize,
    ok: &[moves::Moved],
    exact: &impl Fn(&State, &moves::Moved) -> f64,
    sums: &mut Sums,
) -> Option<usize> {
    if ok.len() < SHORTCUT_TARGETS || state.any_instance_map() {
        return None;
    }
    let base = sums.group(state, group).base(0)?;
    let mut approxes = Vec::with_capacity(ok.len());
    for m in ok {
        let mut online: SmallVec<[(usize, NodeValues); 3]> = SmallVec::new();
        let mut offline: SmallVec<[(usize, NodeValues); 3]> = SmallVec::new();
        for (k, node) in m.final_nodes() {
            if node.group != group {
                return None;
            }
            let new = metric::node_values(&node.scalars());
            if node.offline {
                offline.push((k, new));
            } else {
                online.push((k, new));
            }
        }
        let on: SmallVec<[(&NodeValues, &NodeValues); 3]> = online
            .iter()
            .map(|(k, new)| (state.values(*k), new))
            .collect();
        let off: SmallVec<[(&NodeValues, &NodeValues); 3]> = offline
            .iter()
            .map(|(k, new)| (state.values(*k), new))
            .collect();
        approxes.push(Some(base.approx_leaving(&on, &off, |_, _, _, _| {})?));
    }
    best_unless_nan(&approxes, |i| exact(state, &ok[i]))
}

/// Recreates a non-movable instance on the best escape node
/// (`GlobalN1.recreate`): policy check and forced primary placement, best
/// full cluster score, ties to the later node. The instance stays on its
/// old node too.
///
/// With many escape nodes, each one's full O(N) score is replaced by the
/// `argmin` approximation with its bound, and only the nodes that can win
/// are scored exactly (as the single-node search does); any value out of
/// the shortcut's range, or a NaN score, falls back to scoring every node.
pub(super) fn recreate_instance(
    state: &mut State,
    inst: &Instance,
    targets: &[usize],
    sums: &mut Sums,
) -> Result<bool, Crash> {
    let mut ok: Vec<(usize, PriProbe)> = Vec::new();
    for &t in targets {
        let p = state.node_at(t);
        if state.policy(p.group).check(inst, p.excl_storage).is_err() {
            continue;
        }
        if let Ok(probe) = p.probe_add_pri(SoftChecks::Ignore, inst) {
            ok.push((t, probe));
        }
    }
    let exact = |state: &State, (t, probe): &(usize, PriProbe)| {
        let mut new_p = state.node_at(*t).clone();
        new_p.commit_add_pri(probe, inst);
        state.score_with(&[(*t, &new_p)])
    };
    let chosen = match bounded_choice(state, &ok, &exact, sums) {
        Some(i) => Some(i),
        None => {
            // hail collects successes newest first and takes the first
            // after a stable sort by score: the best score, ties to the
            // later node.
            let mut scored: Vec<(usize, f64)> = ok
                .iter()
                .enumerate()
                .map(|(i, c)| (i, exact(state, c)))
                .collect();
            scored.reverse();
            let sorted = ghc_sort::sort_by(scored, |a, b| a.1.hs_compare(&b.1));
            sorted.first().map(|(i, _)| *i)
        }
    };
    let Some(i) = chosen else {
        return Ok(false);
    };
    let (t, probe) = &ok[i];
    let mut new_p = state.node_at(*t).clone();
    new_p.commit_add_pri(probe, inst);
    // hail's `extractNl`/`updateIl`: the instance at a new key, the
    // node's placeholder index turned into it.
    let new_key = state.inst_count();
    for i in new_p.p_list.iter_mut().chain(new_p.s_list.iter_mut()) {
        if *i < 0 {
            *i = new_key as i32;
        }
    }
    let mut placed = inst.clone();
    placed.p_node = *t as i32;
    placed.s_node = NO_NODE;
    sums.set_nodes(state, [(*t, new_p)]);
    state.set_inst(new_key, placed);
    Ok(true)
}

/// The index in `ok` of the escape node a recreation picks, found from
/// approximate scores; `None` when the shortcut does not apply (few
/// nodes, location tags, values out of range, a NaN exact score).
fn bounded_choice(
    state: &State,
    ok: &[(usize, PriProbe)],
    exact: &impl Fn(&State, &(usize, PriProbe)) -> f64,
    sums: &mut Sums,
) -> Option<usize> {
    if ok.len() < SHORTCUT_TARGETS || state.any_instance_map() {
        return None;
    }
    let base = sums.present(state).base(0)?;
    let mut approxes = Vec::with_capacity(ok.len());
    for (t, probe) in ok {
        let node = state.node_at(*t);
        let new = metric::node_values(&node.scalars_with_pri(probe));
        let change = [(state.values(*t), &new)];
        let approx = if node.offline {
            base.approx_leaving(&[], &change, |_, _, _, _| {})
        } else {
            base.approx_leaving(&change, &[], |_, _, _, _| {})
        };
        approxes.push(Some(approx?));
    }
    best_unless_nan(&approxes, |i| exact(state, &ok[i]))
}

/// [`argmin::best_by_score`]'s winner, or `None` when an exact score is
/// NaN (hail's sort then depends on positions: the caller scores every
/// candidate).
fn best_unless_nan(
    approxes: &[Option<(f64, f64)>],
    mut exact: impl FnMut(usize) -> f64,
) -> Option<usize> {
    let mut nan = false;
    let best = argmin::best_by_score(approxes, |i| {
        let v = exact(i);
        nan |= v.is_nan();
        v
    });
    if nan {
        return None;
    }
    best.map(|(i, _)| i)
}
