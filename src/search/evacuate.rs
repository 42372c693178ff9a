//! Moving existing instances: node evacuation, relocation and group change
//! (`Cluster.Evacuate.tryNodeEvac`, `nodeEvacInstance`,
//! `IAlloc.processRelocate`, `Cluster.tryChangeGroup`), and the jobs of
//! opcodes that carry the moves out (`Cluster.Utils.iMoveToJob`).
//!
//! Instances are handled one after another on the updated cluster; a
//! failed instance leaves the cluster unchanged. For each instance the
//! target nodes are tried in index order and scored by the full score of
//! the target group; ties go to the later node (or pair).
//!
//! Cost, for a group of G nodes: one node choice is O(G) moves; a drbd
//! "all" evacuation tries O(G²) pairs, the moves that depend only on the
//! new primary done once per primary. Both pick their winner by hail's
//! full score (O(G) each) only among near-ties: the others are ruled out by
//! the `argmin` approximation in O(1).

use smallvec::SmallVec;

use crate::model::group::Group;
use crate::model::instance::Instance;
use crate::model::node::{Node, Scalars};
use crate::model::refusal::Refusal;
use crate::model::types::{DiskTemplate, EvacMode, MirrorType, SoftChecks};
use crate::score::argmin::{self, GroupSums};
use crate::score::metric::{self, NodeValues};
use crate::score::rowbound;
use crate::search::allocate::{
    scan_threads, search_groups, split_groups, AllocOptions, GroupSearch, SearchError,
    PARALLEL_PAIRS,
};
use crate::search::moves::location_score;
use crate::search::moves::{self, Move, MoveError, Moved, Nodes, Overlay};
use crate::search::state::{Crash, State};

/// The outcome of an evacuation (`EvacSolution`), in request order.
#[derive(Debug, Clone, Default)]
pub struct EvacSolution {
    /// Moved instances: key, group of the new primary, new nodes.
    pub moved: Vec<(usize, usize, Vec<usize>)>,
    /// Failed instances with hail's reason.
    pub failed: Vec<(usize, String)>,
    /// The moves of each moved instance, in order: one job each in the
    /// answer (`iMoveToJob`), the `gnt-instance` commands of the planners.
    pub moves: Vec<Vec<Move>>,
}

/// One moved instance's moves.
type Job = Vec<Move>;

/// What an explained one-node move (a new secondary, or a new primary for
/// shared storage) found for one instance: every target tried, in order,
/// and the one chosen.
#[derive(Debug, Clone)]
pub struct MoveNote {
    /// The instance's key.
    pub inst: usize,
    /// The move.
    pub kind: MoveKind,
    /// Each target and what became of it.
    pub targets: Vec<Target>,
    /// The chosen target (and secondary, for a new pair) and its score (the
    /// target group's full score).
    pub chosen: Option<(usize, Option<usize>, f64)>,
}

/// One target of a move and what became of it.
#[derive(Debug, Clone)]
pub struct Target {
    /// The node (the new primary, for a new pair).
    pub node: usize,
    /// The new secondary, for a new pair; `None` when the outcome is the
    /// new primary's alone (then it stands for `count` pairs).
    pub secondary: Option<usize>,
    /// How many candidates the outcome stands for.
    pub count: u64,
    pub outcome: TargetOutcome,
}

impl Target {
    fn one(node: usize, outcome: TargetOutcome) -> Target {
        Target {
            node,
            secondary: None,
            count: 1,
            outcome,
        }
    }
}

/// The kind of a one-node move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveKind {
    /// A drbd instance's new secondary.
    NewSecondary,
    /// A shared-storage instance's new primary.
    NewPrimary,
    /// A drbd instance's failover to its secondary.
    Failover,
    /// A drbd instance's new primary and secondary (node-evacuate `all`,
    /// change-group inside the target group).
    NewPair,
}

/// What became of one target of a one-node move.
#[derive(Debug, Clone)]
pub enum TargetOutcome {
    /// The move fits.
    Fit,
    /// hail's failure mode, with the target's refused check and the target
    /// as it was when checked (when the node check is what refused it).
    Refused(String, Option<Box<(Refusal, Node)>>),
}

/// Called with each instance's group search of a group change (on the
/// state the search saw), when the change is explained.
pub type GroupSearchHook<'a> =
    dyn FnMut(&mut State, &Instance, i64, &GroupSearch) -> Result<(), Crash> + 'a;

/// The explanation notes of a search, when asked for.
pub type Notes<'a> = Option<&'a mut Vec<MoveNote>>;

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

/// The note of a failover that failed with `mode`: the check that
/// refused it, on the secondary taking the instance over (or on the old
/// primary becoming its secondary), as `moves::apply` ran them.
fn failover_note(state: &State, inst: &Instance, soft: SoftChecks, mode: &str) -> MoveNote {
    let detail = (|| {
        let (pn, sn) = (state.node(inst.p_node).ok()?, state.node(inst.s_node).ok()?);
        let soft = soft.ignored_if(pn.offline);
        let mut int_s = sn.clone();
        int_s.remove_sec(inst);
        if let Err(r) = int_s.check_add_pri(soft, inst) {
            return Some((r, int_s, inst.s_node));
        }
        let mut int_p = pn.clone();
        int_p.remove_pri(inst);
        int_p
            .check_add_sec(pn.offline, soft, inst, inst.s_node)
            .err()
            .map(|r| (r, int_p, inst.p_node))
    })();
    let target = usize::try_from(inst.s_node).unwrap_or(usize::MAX);
    let refused = detail
        .filter(|(r, ..)| r.mode.name() == mode)
        .map(|(r, node, _)| Box::new((r, node)));
    MoveNote {
        inst: usize::try_from(inst.idx).unwrap_or(usize::MAX),
        kind: MoveKind::Failover,
        targets: vec![Target::one(
            target,
            TargetOutcome::Refused(mode.to_owned(), refused),
        )],
        chosen: None,
    }
}

/// Why one instance could not be moved: hail's message, or a crash.
enum EvacError {
    Message(String),
    Crash(Crash),
}

impl From<Crash> for EvacError {
    fn from(c: Crash) -> Self {
        EvacError::Crash(c)
    }
}

/// Applies a move, turning a placement failure into hail's message text.
fn apply(
    state: &impl Nodes,
    inst: &Instance,
    mv: Move,
    soft: SoftChecks,
) -> Result<Result<Moved, String>, Crash> {
    match moves::apply(state, inst, mv, soft) {
        Ok(m) => Ok(Ok(m)),
        Err(MoveError::Fail(f)) => Ok(Err(f.name().to_owned())),
        Err(MoveError::Crash(c)) => Err(c),
    }
}

/// Stores a moved instance as hail does: under its own `idx` (ignored for
/// the placeholder -1, which no later lookup can reach).
fn commit(state: &mut State, m: Moved, idx: i32) {
    match usize::try_from(idx) {
        Ok(k) => m.commit(state, k),
        Err(_) => {
            for (k, n) in m.nodes {
                state.set_node(k, n);
            }
        }
    }
}

/// Whether failing the drbd instance over would make a node Ganeti refuses
/// (drained, offline or not vm_capable) its primary. hail fails over to the
/// secondary whatever its state; Ganeti's migration refuses a drained
/// target, so hailstone reports the instance as failed instead.
fn failover_target_unusable(state: &State, inst: &Instance) -> bool {
    state.node(inst.s_node).is_ok_and(|s| s.offline)
}

fn drained_target_message(state: &State, inst: &Instance) -> String {
    let name = state
        .node(inst.s_node)
        .map_or("?", |n| n.info.name.as_str());
    format!("the secondary node {name} is drained or offline and cannot take over the instance")
}

/// The group sums for the `argmin` shortcut, or `None` when the
/// location-exclusion component could be non-zero (it is then computed
/// exactly only): some node has an exclusion map already, or the instance
/// has exclusion tags, so that moving it could create one.
fn shortcut_sums(state: &State, inst: &Instance, group: usize) -> Option<GroupSums> {
    (!state.any_instance_map() && inst.excl_tags.is_empty()).then(|| state.group_sums(group))
}

/// Changes one node of the instance to the best available node
/// (`evacOneNodeOnly`): the secondary for drbd, the primary for shared
/// storage.
fn evac_one_node_only(
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

/// One step of a drbd "all" evacuation on an overlay: the move, or hail's
/// message for its failure.
fn all_step<'s>(
    ov: &mut Overlay<'s>,
    current: &mut Instance,
    mv: Move,
    what: &str,
    soft: SoftChecks,
    key: i32,
) -> Result<Result<(), String>, Crash> {
    let guard_drained = mv == Move::Failover && what == "Failing over to the secondary";
    match apply(&*ov, current, mv, soft)? {
        Err(f) => Ok(Err(format!("{what}: {f}"))),
        Ok(_) if guard_drained && ov.node(current.s_node).is_ok_and(|s| s.offline) => {
            let name = ov
                .node(current.s_node)
                .map_or("?", |n| n.info.name.as_str())
                .to_owned();
            Ok(Err(format!(
                "{what}: the secondary node {name} is drained or offline and cannot take over the instance"
            )))
        }
        Ok(m) => {
            *current = m.inst.clone();
            ov.apply(m, usize::try_from(key).unwrap_or(usize::MAX));
            Ok(Ok(()))
        }
    }
}

/// What the last move of a drbd "all" evacuation (replacing the secondary
/// by the final one) does that does not depend on the final secondary.
struct LastMove {
    /// The soft checks for adding the secondary: ignored when the old
    /// secondary is offline or soft errors are ignored.
    soft_s: SoftChecks,
    /// The old secondary after the instance left it.
    old_secondary_after: Node,
    old_secondary: usize,
    /// The new primary before the move, with its metric values.
    p_after: Node,
    p_values: NodeValues,
    /// The instance's location score before the move (old pair).
    loc_old: i64,
}

impl LastMove {
    fn new(
        ov_p: &Overlay<'_>,
        cur: &Instance,
        p: usize,
        soft: SoftChecks,
    ) -> Result<LastMove, Crash> {
        let old_s = ov_p.node(cur.s_node)?;
        let mut old_secondary_after = old_s.clone();
        old_secondary_after.remove_sec(cur);
        let p_after = ov_p.node(p as i32)?.clone();
        let p_values = metric::node_values(&p_after.scalars());
        Ok(LastMove {
            soft_s: soft.ignored_if(old_s.offline),
            old_secondary_after,
            old_secondary: cur.s_node as usize,
            p_values,
            loc_old: cur.location_score,
            p_after,
        })
    }

    /// The group's sums with the overlay's nodes and the old secondary's
    /// final state replaced.
    fn group_sums(
        &self,
        state: &State,
        base: &GroupSums,
        group: usize,
        ov_p: &Overlay<'_>,
    ) -> GroupSums {
        let mut sums = with_overlay(state, base, group, &ov_p.changed_nodes());
        if self.old_secondary_after.group == group {
            let before = ov_p
                .node(self.old_secondary as i32)
                .map(|n| metric::node_values(&n.scalars()));
            if let Ok(before) = before {
                let after = metric::node_values(&self.old_secondary_after.scalars());
                sums.replace(&before, &after, self.old_secondary_after.offline);
            }
        }
        sums
    }

    /// Whether this shortcut gives the real move's node values (checked in
    /// debug builds, which the tests use).
    fn matches_real_move(
        &self,
        state: &State,
        ov_p: &Overlay<'_>,
        cur: &Instance,
        p: usize,
        s: usize,
        soft: SoftChecks,
    ) -> bool {
        let Ok(Ok(m)) = apply(ov_p, cur, Move::ReplaceSecondary(s), soft) else {
            return false;
        };
        let vals = |n: &Node| metric::node_values(&n.scalars());
        let finals = m.final_nodes();
        finals.iter().all(|(k, n)| {
            if *k == self.old_secondary {
                vals(n) == vals(&self.old_secondary_after)
            } else if *k == p {
                let mut want = self.p_values;
                want[metric::LOCATION_COMPONENT] +=
                    (location_score(&self.p_after, state.node_at(s)) - self.loc_old) as f64;
                vals(n) == want
            } else {
                true
            }
        })
    }
}

/// The moves of a drbd "all" evacuation that depend only on the new primary
/// `p` (replace the secondary by `p`, fail over), on top of `base`. Returns
/// the overlay, the instance, and the failure message if a step failed;
/// `pre_error` is a failure of the pair-independent first step.
fn primary_steps<'s>(
    base: &Overlay<'s>,
    start: &Instance,
    p: usize,
    pre_error: Option<&str>,
    soft: SoftChecks,
    key: i32,
) -> Result<(Overlay<'s>, Instance, Option<String>), Crash> {
    let mut ov = base.clone();
    let mut cur = start.clone();
    if let Some(e) = pre_error {
        return Ok((ov, cur, Some(e.to_owned())));
    }
    for (mv, what) in [
        (
            Move::ReplaceSecondary(p),
            "Changing secondary to new primary",
        ),
        (Move::Failover, "Failing over to new primary"),
    ] {
        if let Err(e) = all_step(&mut ov, &mut cur, mv, what, soft, key)? {
            return Ok((ov, cur, Some(e)));
        }
    }
    Ok((ov, cur, None))
}

/// The approximate score of the group, and its error bound, once a
/// move's nodes of the group replace theirs, from the group prepared once
/// (`argmin::ScoreBase`); `None` when the shortcut does not apply.
fn approx_moved<'a>(
    state: &State,
    base: &argmin::ScoreBase,
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

/// The group sums with the overlay's changed nodes of the group replaced.
fn with_overlay(
    state: &State,
    base: &GroupSums,
    group: usize,
    changed: &[(usize, &crate::model::node::Node)],
) -> GroupSums {
    let mut sums = base.clone();
    for (k, n) in changed {
        if n.group == group {
            sums.replace(
                state.values(*k),
                &metric::node_values(&n.scalars()),
                n.offline,
            );
        }
    }
    sums
}

/// A drbd "all" evacuation (`nodeEvacInstance … ChangeAll`): every ordered
/// pair of available nodes is tried with hail's moves (fail over first if
/// the primary is offline; replace the secondary by the new primary; fail
/// over; replace the secondary by the final secondary), scored by the full
/// score of the target group; the best pair wins, ties to the later one.
///
/// The moves before the final secondary depend only on the new primary, so
/// they are computed once per primary; each pair then adds one move. All
/// trials run on overlays and leave the state untouched until the winner is
/// written.
#[allow(clippy::too_many_arguments)]
fn evac_drbd_all(
    state: &mut State,
    inst: &Instance,
    group: usize,
    avail: &[usize],
    soft: SoftChecks,
    notes: Notes<'_>,
    one_thread: bool,
) -> Result<Result<Job, String>, Crash> {
    let key = inst.idx;
    let note_template = notes.is_some().then(|| MoveNote {
        inst: usize::try_from(inst.idx).unwrap_or(usize::MAX),
        kind: MoveKind::NewPair,
        targets: Vec::new(),
        chosen: None,
    });
    let mut base = Overlay::new(state);
    let mut start = inst.clone();
    let mut pre_ops: Vec<Move> = Vec::new();
    let mut pre_error = None;
    if state.node(inst.p_node)?.offline {
        match all_step(
            &mut base,
            &mut start,
            Move::Failover,
            "Failing over to the secondary",
            soft,
            key,
        )? {
            Ok(()) => pre_ops.push(Move::Failover),
            Err(e) => pre_error = Some(e),
        }
    }
    // Running sums of the target group, for the approximate scores.
    let base_sums = shortcut_sums(state, inst, group);
    // Candidates arrive pair by pair; only those that can still win are
    // kept (see `argmin::Survivors`). Enumerated a second time, every pair
    // kept, only if a pair without an approximation comes after some were
    // dropped. A large group is scanned in contiguous runs of primaries on
    // separate threads, combined in order (unless notes are asked for).
    let scan = PairScan {
        state,
        base: &base,
        start: &start,
        pre_error: pre_error.as_deref(),
        base_sums: base_sums.as_ref(),
        group,
        avail,
        soft,
        key,
    };
    let mut exhaustive = base_sums.is_none();
    let (best, note, last_error) = loop {
        let mut note = note_template.clone();
        let run = if note.is_some() || one_thread || avail.len() * avail.len() < PARALLEL_PAIRS {
            scan.run(avail, exhaustive, note.as_mut().map(|n| &mut n.targets))?
        } else {
            scan.parallel(exhaustive)?
        };
        let (survivors, last_error) = (run.survivors, run.last_error);
        let last_error = last_error.unwrap_or_else(|| "no nodes available".to_owned());
        // The exact score of a candidate: its moves replayed (the primary's
        // part cached across consecutive candidates), then the group's full
        // score.
        let mut cached: Option<(usize, Overlay<'_>, Instance)> = None;
        let mut failure: Option<Crash> = None;
        let best = survivors.best(|&(p, s)| {
            let mut exact = || -> Result<f64, Crash> {
                if cached.as_ref().is_none_or(|(cp, _, _)| *cp != p) {
                    let (ov_p, cur_p, None) = primary_steps(&base, &start, p, None, soft, key)?
                    else {
                        return Ok(f64::NAN);
                    };
                    cached = Some((p, ov_p, cur_p));
                }
                let Some((_, ov_p, cur_p)) = cached.as_ref() else {
                    return Ok(f64::NAN);
                };
                let m = match apply(ov_p, cur_p, Move::ReplaceSecondary(s), soft)? {
                    Ok(m) => m,
                    Err(_) => return Ok(f64::NAN),
                };
                let last = m.final_nodes();
                let mut nodes = ov_p.changed_nodes();
                for (k, n) in last.iter() {
                    match nodes.iter_mut().find(|(ok, _)| ok == k) {
                        Some(slot) => slot.1 = n,
                        None => nodes.push((*k, n)),
                    }
                }
                Ok(state.group_score_with(group, &nodes))
            };
            match exact() {
                Ok(v) => v,
                Err(c) => {
                    failure = Some(c);
                    f64::NAN
                }
            }
        });
        if let Some(c) = failure {
            return Err(c);
        }
        match best {
            Ok(best) => break (best, note, last_error),
            Err(argmin::Incomplete) => exhaustive = true,
        }
    };
    if let (Some(notes), Some(mut note)) = (notes, note) {
        note.chosen = best.map(|((p, s), v)| (p, Some(s), v));
        notes.push(note);
    }
    let Some(((p, s), _)) = best else {
        return Ok(Err(format!(
            "Can't find any good nodes for relocation: {last_error}"
        )));
    };
    // Replay the winning pair and write it into the state.
    let mut ov = base.clone();
    let mut cur = start.clone();
    let mut ops = pre_ops;
    for (mv, what) in [
        (
            Move::ReplaceSecondary(p),
            "Changing secondary to new primary",
        ),
        (Move::Failover, "Failing over to new primary"),
        (
            Move::ReplaceSecondary(s),
            "Changing secondary to final secondary",
        ),
    ] {
        if let Err(e) = all_step(&mut ov, &mut cur, mv, what, soft, key)? {
            return Ok(Err(e));
        }
        ops.push(mv);
    }
    let (nodes, insts) = ov.into_changes();
    for (k, n) in nodes {
        state.set_node(k, n);
    }
    for (k, i) in insts {
        if k != usize::MAX {
            state.set_inst(k, i);
        }
    }
    Ok(Ok(ops))
}

/// The pair scan of [`evac_drbd_all`]: everything a run of primaries
/// needs, shared by the threads.
struct PairScan<'a, 's> {
    state: &'a State,
    base: &'a Overlay<'s>,
    start: &'a Instance,
    pre_error: Option<&'a str>,
    base_sums: Option<&'a GroupSums>,
    group: usize,
    avail: &'a [usize],
    soft: SoftChecks,
    key: i32,
}

/// Skipping the rows of [`evac_drbd_all`] that cannot win
/// (`score::rowbound`): the table of every ordinary secondary's change,
/// built from the first row that needs it. A secondary is ordinary when
/// neither the moves before the pair scan nor the first row touched it and
/// it is not a peer of that row's primary; then adding the instance to it
/// changes it the same way whatever the primary, except for a primary it
/// already is a peer of. A skipped row still scans its other secondaries:
/// the special ones and those whose peer the row's primary is.
struct RowPruning {
    table: rowbound::RowTable,
    /// The soft checks the table's changes were made with.
    soft_s: SoftChecks,
    /// Secondaries the table does not cover, in scan order.
    special: Vec<usize>,
    /// Each node key's position in the scan (`usize::MAX`: not scanned).
    position: Vec<usize>,
    /// Per primary key, the secondaries it is a peer of.
    peers_of: std::collections::BTreeMap<usize, Vec<usize>>,
}

impl RowPruning {
    fn new(
        scan: &PairScan<'_, '_>,
        p0: usize,
        ov_p: &Overlay<'_>,
        cur_p: &Instance,
        last: &LastMove,
        base_p: &argmin::ScoreBase,
    ) -> RowPruning {
        let state = scan.state;
        let mut special: Vec<usize> = scan
            .base
            .changed_keys()
            .chain(ov_p.changed_keys())
            .collect();
        special.push(p0);
        for k in [scan.start.p_node, scan.start.s_node] {
            if let Ok(k) = usize::try_from(k) {
                special.push(k);
            }
        }
        let mut peers_of: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
        let mut changes = Vec::new();
        for &s in scan.avail {
            let node_s = state.node_at(s);
            for &(pk, _) in &node_s.peers {
                if let Ok(pk) = usize::try_from(pk) {
                    peers_of.entry(pk).or_default().push(s);
                }
            }
            if node_s.peers.iter().any(|&(pk, _)| pk == p0 as i32) {
                special.push(s);
                continue;
            }
            if special.contains(&s) || node_s.group != scan.group || node_s.offline {
                continue;
            }
            // Refused secondaries are never candidates of an ordinary row.
            if let Ok(probe) = node_s.probe_add_sec(false, last.soft_s, cur_p, p0 as i32) {
                let after = metric::node_values(&node_s.scalars_with_sec(&probe));
                changes.push((*state.values(s), after));
            }
        }
        let slots = scan.avail.iter().max().map_or(0, |m| m + 1);
        let mut position = vec![usize::MAX; slots];
        for (i, &s) in scan.avail.iter().enumerate() {
            position[s] = i;
        }
        // Only candidates count, in scan order.
        let at = |k: &usize| position.get(*k).copied().unwrap_or(usize::MAX);
        special.retain(|k| at(k) != usize::MAX);
        special.sort_unstable_by_key(at);
        special.dedup();
        let means = std::array::from_fn(|k| base_p.comps()[k].sum / base_p.n());
        RowPruning {
            table: rowbound::RowTable::new(changes, base_p.n(), &means),
            soft_s: last.soft_s,
            special,
            position,
            peers_of,
        }
    }

    /// The secondaries row `p` must still scan when the row cannot win
    /// (its bound, less a margin for hail's floating-point scores, lies
    /// above `ceiling`), in scan order; `None` when the row is scanned in
    /// full.
    fn extras_if_pruned(
        &mut self,
        p: usize,
        ov_p: &Overlay<'_>,
        last: &LastMove,
        base_p: &argmin::ScoreBase,
        ceiling: f64,
    ) -> Option<Vec<usize>> {
        if last.soft_s != self.soft_s || !ceiling.is_finite() {
            return None;
        }
        // The row's moves touch only the primary and the special nodes.
        if ov_p.changed_keys().any(|k| {
            k != p
                && !self.special.contains(&k)
                && self.position.get(k).is_some_and(|&i| i != usize::MAX)
        }) {
            return None;
        }
        // The pair also moves the primary's location score by
        // `location_score(p, s) - loc_old`, at least `-loc_old`.
        let location =
            metric::COMPONENTS[metric::LOCATION_COMPONENT].weight * last.loc_old.max(0) as f64;
        let bound = self.table.bound(base_p)? - location - base_p.margin();
        // (A NaN bound never skips a row.)
        if bound.partial_cmp(&ceiling) != Some(std::cmp::Ordering::Greater) {
            return None;
        }
        let mut extras = self.special.clone();
        if let Some(more) = self.peers_of.get(&p) {
            extras.extend(more);
        }
        let position = &self.position;
        extras.sort_unstable_by_key(|&k| position.get(k).copied().unwrap_or(usize::MAX));
        extras.dedup();
        Some(extras)
    }
}

/// What a run of primaries found: the pairs that can still win, whether
/// any pair fit, and hail's last failure before the first fit.
struct PairRun {
    survivors: argmin::Survivors<(usize, usize)>,
    any_success: bool,
    last_error: Option<String>,
}

impl PairRun {
    /// The two runs as one run over both in order: the later run's
    /// failures count only if the earlier found no fit.
    fn then(mut self, later: PairRun) -> PairRun {
        if !self.any_success {
            if later.last_error.is_some() {
                self.last_error = later.last_error;
            }
            self.any_success = later.any_success;
        }
        self.survivors.append(later.survivors);
        self
    }
}

impl PairScan<'_, '_> {
    /// Checks and approximates every pair of the primaries `run`, in order
    /// (with each target's note when `targets` is given).
    fn run(
        &self,
        run: &[usize],
        exhaustive: bool,
        mut targets: Option<&mut Vec<Target>>,
    ) -> Result<PairRun, Crash> {
        let mut last_error: Option<String> = None;
        let mut any_success = false;
        // (primary, secondary) as node keys.
        let mut survivors = argmin::Survivors::new(exhaustive);
        let mut rows: Option<RowPruning> = None;
        for &p in run {
            let (ov_p, cur_p, p_error) = primary_steps(
                self.base,
                self.start,
                p,
                self.pre_error,
                self.soft,
                self.key,
            )?;
            if let Some(e) = &p_error {
                if !any_success && self.avail.iter().any(|&s| s != p) {
                    last_error = Some(format!("Allocation failed: {e}"));
                }
                if let Some(targets) = targets.as_deref_mut() {
                    targets.push(Target {
                        node: p,
                        secondary: None,
                        count: self.avail.iter().filter(|&&s| s != p).count() as u64,
                        outcome: TargetOutcome::Refused(e.clone(), None),
                    });
                }
                continue;
            }
            // The last move, ReplaceSecondary(s), takes the instance off its
            // current secondary (the old primary) the same way for every s,
            // and re-adds it on the new primary changing only its location
            // score; only the new secondary's state depends on s. So per pair
            // only the secondary's check and values are computed here, and
            // its approximate score from the group prepared once per primary.
            let last = LastMove::new(&ov_p, &cur_p, p, self.soft)?;
            let base_p = self
                .base_sums
                .and_then(|b| last.group_sums(self.state, b, self.group, &ov_p).base(0));
            // Once a pair fits (hail's failure message is then settled) and
            // no notes are kept, a row whose every candidate scores above
            // the lowest upper end so far is skipped, but for the
            // secondaries the bound does not cover (see `RowPruning`).
            let pruned = match (&base_p, any_success, targets.is_none()) {
                (Some(bp), true, true) if !survivors.is_exhaustive() => {
                    let rows = rows
                        .get_or_insert_with(|| RowPruning::new(self, p, &ov_p, &cur_p, &last, bp));
                    rows.extras_if_pruned(p, &ov_p, &last, bp, survivors.ceiling())
                }
                _ => None,
            };
            let row: &[usize] = pruned.as_deref().unwrap_or(self.avail);
            for &s in row {
                if s == p {
                    continue;
                }
                // The secondary as the earlier moves left it (normally untouched).
                let node_s = ov_p.node(s as i32)?;
                let probe = node_s.probe_add_sec(false, last.soft_s, &cur_p, p as i32);
                if let Some(targets) = targets.as_deref_mut() {
                    let outcome = match &probe {
                        Ok(_) => TargetOutcome::Fit,
                        Err(f) => TargetOutcome::Refused(
                            f.name().to_owned(),
                            node_s
                                .check_add_sec(false, last.soft_s, &cur_p, p as i32)
                                .err()
                                .map(|r| Box::new((r, node_s.clone()))),
                        ),
                    };
                    targets.push(Target {
                        node: p,
                        secondary: Some(s),
                        count: 1,
                        outcome,
                    });
                }
                match probe {
                    Err(f) => {
                        if !any_success {
                            last_error = Some(format!(
                                "Allocation failed: Changing secondary to final secondary: {f}"
                            ));
                        }
                    }
                    Ok(probe) => {
                        any_success = true;
                        let approx = base_p.as_ref().and_then(|bp| {
                            debug_assert!(
                                last.matches_real_move(self.state, &ov_p, &cur_p, p, s, self.soft)
                            );
                            pair_approx(self.state, bp, &ov_p, &last, self.group, node_s, s, &probe)
                        });
                        survivors.push((p, s), approx);
                    }
                }
            }
        }
        Ok(PairRun {
            survivors,
            any_success,
            last_error,
        })
    }

    /// [`PairScan::run`] over every primary, in contiguous runs on up to
    /// [`scan_threads`] threads, combined in order.
    fn parallel(&self, exhaustive: bool) -> Result<PairRun, Crash> {
        let threads = scan_threads();
        if threads <= 1 || self.avail.len() < 2 {
            return self.run(self.avail, exhaustive, None);
        }
        let run_len = self.avail.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let mut handles = Vec::new();
            for run in self.avail.chunks(run_len) {
                match std::thread::Builder::new()
                    .spawn_scoped(scope, move || self.run(run, exhaustive, None))
                {
                    Ok(h) => handles.push(Ok(h)),
                    // No thread to be had: scan this run here.
                    Err(_) => handles.push(Err(run)),
                }
            }
            let mut out: Option<PairRun> = None;
            for h in handles {
                let r = match h {
                    Ok(h) => match h.join() {
                        Ok(r) => r?,
                        Err(panic) => std::panic::resume_unwind(panic),
                    },
                    Err(run) => self.run(run, exhaustive, None)?,
                };
                out = Some(match out {
                    None => r,
                    Some(o) => o.then(r),
                });
            }
            Ok(out.unwrap_or(PairRun {
                survivors: argmin::Survivors::new(exhaustive),
                any_success: false,
                last_error: None,
            }))
        })
    }
}

/// The approximate score of pair (p, s) of [`evac_drbd_all`] from the
/// group prepared after the primary's steps (`base_p`): the new
/// secondary's values with the instance added (`probe`), and the new
/// primary's location score, which depends on the pair.
#[allow(clippy::too_many_arguments)]
fn pair_approx(
    state: &State,
    base_p: &argmin::ScoreBase,
    ov_p: &Overlay<'_>,
    last: &LastMove,
    group: usize,
    node_s: &Node,
    s: usize,
    probe: &crate::model::node::SecProbe,
) -> Option<(f64, f64)> {
    let s_values = if ov_p.changed_keys().any(|k| k == s) {
        metric::node_values(&node_s.scalars())
    } else {
        *state.values(s)
    };
    let new_s = metric::node_values(&node_s.scalars_with_sec(probe));
    let mut new_p = last.p_values;
    let delta = location_score(&last.p_after, node_s) - last.loc_old;
    new_p[metric::LOCATION_COMPONENT] += delta as f64;
    let mut online: [(&NodeValues, &NodeValues); 2] = [(&s_values, &new_s); 2];
    let mut offline: [(&NodeValues, &NodeValues); 2] = [(&s_values, &new_s); 2];
    let (mut n_on, mut n_off) = (0, 0);
    let mut add = |change, off: bool| {
        if off {
            offline[n_off] = change;
            n_off += 1;
        } else {
            online[n_on] = change;
            n_on += 1;
        }
    };
    if node_s.group == group {
        add((&s_values, &new_s), node_s.offline);
    }
    if last.p_after.group == group && delta != 0 {
        add((&last.p_values, &new_p), last.p_after.offline);
    }
    base_p.approx_leaving(&online[..n_on], &offline[..n_off], |_, _, _, _| {})
}

/// Moves one instance (`nodeEvacInstance`); a large drbd "all"
/// evacuation scans on several threads unless `one_thread`.
#[allow(clippy::too_many_arguments)]
fn node_evac_instance(
    state: &mut State,
    inst: &Instance,
    mode: EvacMode,
    group: usize,
    avail: &[usize],
    soft: SoftChecks,
    notes: Notes<'_>,
    one_thread: bool,
) -> Result<Job, EvacError> {
    let t = inst.disk_template;
    match t {
        DiskTemplate::Plain => Err(EvacError::Message(
            "Instances of type plain cannot be relocated".to_owned(),
        )),
        DiskTemplate::File => Err(EvacError::Message(
            "Instances of type file cannot be relocated".to_owned(),
        )),
        DiskTemplate::Drbd => match mode {
            EvacMode::ChangePrimary => match apply(state, inst, Move::Failover, soft)? {
                Err(f) => {
                    if let Some(notes) = notes {
                        notes.push(failover_note(state, inst, soft, &f));
                    }
                    Err(EvacError::Message(f))
                }
                Ok(_) if failover_target_unusable(state, inst) => {
                    Err(EvacError::Message(drained_target_message(state, inst)))
                }
                Ok(m) => {
                    commit(state, m, inst.idx);
                    Ok(vec![Move::Failover])
                }
            },
            EvacMode::ChangeSecondary => evac_one_node_only(state, inst, group, avail, soft, notes),
            EvacMode::ChangeAll => {
                match evac_drbd_all(state, inst, group, avail, soft, notes, one_thread)? {
                    Ok(jobs) => Ok(jobs),
                    Err(msg) => Err(EvacError::Message(msg)),
                }
            }
        },
        _ => {
            if mode == EvacMode::ChangeSecondary {
                return Err(EvacError::Message(format!(
                    "Instances with disk template '{}' can't execute change secondary",
                    t.raw()
                )));
            }
            evac_one_node_only(state, inst, group, avail, soft, notes)
        }
    }
}

/// Records one instance's outcome (`updateEvacSolution`).
fn update_solution(
    state: &State,
    sol: &mut EvacSolution,
    idx: i32,
    result: Result<Job, EvacError>,
) -> Result<(), Crash> {
    match result {
        Err(EvacError::Crash(c)) => Err(c),
        Err(EvacError::Message(m)) => {
            sol.failed.push((idx as usize, m));
            Ok(())
        }
        Ok(moves) => {
            let inst = state.inst(idx)?;
            let group = state.node(inst.p_node)?.group;
            let nodes = inst.all_nodes().into_iter().map(|n| n as usize).collect();
            sol.moved.push((idx as usize, group, nodes));
            sol.moves.push(moves);
            Ok(())
        }
    }
}

/// The node groups' node keys (`splitCluster`, as an association list).
fn group_nodes(node_groups: &[Group], state: &State) -> Vec<(usize, Vec<usize>)> {
    split_groups(state, node_groups.len())
}

/// The available nodes of a group (`availableGroupNodes`).
fn available(
    groups: &[(usize, Vec<usize>)],
    excluded: &[bool],
    g: usize,
) -> Result<Vec<usize>, String> {
    match groups.iter().find(|(gg, _)| *gg == g) {
        None => Err(format!("Can't find group with index {g}")),
        Some((_, keys)) => Ok(keys.iter().copied().filter(|&k| !excluded[k]).collect()),
    }
}

/// Marks every offline (htools: offline, drained or not vm_capable) node as
/// excluded from the targets.
fn exclude_offline(state: &State, excluded: &mut [bool]) {
    for k in state.node_keys() {
        if state.node_at(k).offline {
            excluded[k] = true;
        }
    }
}

/// Evacuates instances (`tryNodeEvac`).
pub fn try_node_evac(
    node_groups: &[Group],
    state: &mut State,
    mode: EvacMode,
    instances: &[usize],
    soft: SoftChecks,
    mut notes: Notes<'_>,
) -> Result<EvacSolution, Crash> {
    let originals: Vec<Instance> = instances
        .iter()
        .map(|&k| state.inst(k as i32).cloned())
        .collect::<Result<_, _>>()?;
    let mut excluded = vec![false; state.node_slots()];
    for inst in &originals {
        let mut mark = |k: i32| {
            if let Ok(k) = usize::try_from(k) {
                if k < excluded.len() {
                    excluded[k] = true;
                }
            }
        };
        let with_secondary = inst.disk_template == DiskTemplate::Drbd;
        match mode {
            EvacMode::ChangePrimary => mark(inst.p_node),
            EvacMode::ChangeSecondary => {
                if with_secondary {
                    mark(inst.s_node)
                }
            }
            EvacMode::ChangeAll => {
                mark(inst.p_node);
                if with_secondary {
                    mark(inst.s_node)
                }
            }
        }
    }
    exclude_offline(state, &mut excluded);
    let groups = group_nodes(node_groups, state);
    let mut sol = EvacSolution::default();
    for inst in &originals {
        let group = state.node(inst.p_node)?.group;
        let mut excl = excluded.clone();
        if let Ok(p) = usize::try_from(inst.p_node) {
            excl[p] = true;
        }
        let cp = state.checkpoint();
        let result = match available(&groups, &excl, group) {
            Err(m) => Err(EvacError::Message(m)),
            Ok(avail) => node_evac_instance(
                state,
                inst,
                mode,
                group,
                &avail,
                soft,
                notes.as_deref_mut(),
                false,
            ),
        };
        if result.is_err() {
            state.rollback(cp);
        }
        update_solution(state, &mut sol, inst.idx, result)?;
    }
    state.commit();
    Ok(sol)
}

/// Relocation (`processRelocate`): a new secondary for drbd, a new primary
/// for shared storage. Returns the new node's index, or hail's message.
pub fn relocate(
    node_groups: &[Group],
    state: &mut State,
    idx: usize,
    required_nodes: i64,
    relocate_from: &[usize],
    soft: SoftChecks,
    notes: Notes<'_>,
) -> Result<Result<usize, String>, Crash> {
    if required_nodes != 1 {
        return Ok(Err(format!(
            "Exchange {required_nodes} nodes mode is not implemented"
        )));
    }
    let orig = state.inst(idx as i32)?.clone();
    let (expected, what, mode) = match orig.mirror_type() {
        MirrorType::None => return Ok(Err("Can't relocate non-mirrored instances".to_owned())),
        MirrorType::Internal => (orig.s_node, "secondary", EvacMode::ChangeSecondary),
        MirrorType::External => (orig.p_node, "primary", EvacMode::ChangePrimary),
    };
    if relocate_from.len() != 1 || relocate_from[0] as i64 != i64::from(expected) {
        let shown: Vec<i64> = relocate_from.iter().map(|&k| k as i64).collect();
        return Ok(Err(format!(
            "Unsupported request: excluded nodes not equal to instance's {what}({expected} versus {})",
            crate::haskell::show::show_int_list(&shown)
        )));
    }
    let sol = try_node_evac(node_groups, state, mode, &[idx], soft, notes)?;
    if let Some((_, msg)) = sol.failed.iter().find(|(k, _)| *k == idx) {
        return Ok(Err(msg.clone()));
    }
    let Some((_, _, nodes)) = sol.moved.iter().find(|(k, _, _)| *k == idx) else {
        return Ok(Err(
            "Internal error: lost instance idx during move".to_owned()
        ));
    };
    let inst = state.inst(idx as i32)?;
    let (pnode, snode) = (inst.p_node, inst.s_node);
    let show_nodes = |nodes: &[usize]| {
        let v: Vec<i64> = nodes.iter().map(|&k| k as i64).collect();
        crate::haskell::show::show_int_list(&v)
    };
    match orig.mirror_type() {
        MirrorType::Internal => {
            if snode == orig.s_node {
                return Ok(Err(
                    "Internal error: instance didn't change secondary node?!".to_owned(),
                ));
            }
            if snode == pnode {
                return Ok(Err(
                    "Internal error: selected primary as new secondary?!".to_owned()
                ));
            }
            if nodes.len() == 2 && nodes[0] as i32 == pnode && nodes[1] as i32 == snode {
                Ok(Ok(snode as usize))
            } else {
                Ok(Err(format!(
                    "Internal error: inconsistent node list ({}) versus instance nodes ({pnode},{snode})",
                    show_nodes(nodes)
                )))
            }
        }
        _ => {
            if pnode == orig.p_node {
                return Ok(Err(
                    "Internal error: instance didn't change primary node?!".to_owned()
                ));
            }
            if nodes.len() == 1 && nodes[0] as i32 == pnode {
                Ok(Ok(pnode as usize))
            } else {
                Ok(Err(format!(
                    "Internal error: inconsistent node list ({}) versus instance node ({pnode})",
                    show_nodes(nodes)
                )))
            }
        }
    }
}

/// Moves instances to other groups (`tryChangeGroup`): for each instance
/// the best target group is chosen as for a new allocation (with the
/// command-line options), then the instance is evacuated into it in "all"
/// mode with soft errors never ignored.
pub fn try_change_group(
    node_groups: &[Group],
    state: &mut State,
    target_groups: &[usize],
    instances: &[usize],
    opts: &AllocOptions,
    explain: Option<&mut GroupSearchHook<'_>>,
    notes: Notes<'_>,
) -> Result<EvacSolution, Crash> {
    let sol = change_group(
        node_groups,
        state,
        target_groups,
        instances,
        opts,
        explain,
        notes,
    )?;
    state.commit();
    Ok(sol)
}

/// [`try_change_group`] without forgetting the state's undo log: a caller
/// holding a checkpoint from before may still roll the moves back (the
/// multi-group planners try a group's repair and drop it when it fails).
pub fn change_group(
    node_groups: &[Group],
    state: &mut State,
    target_groups: &[usize],
    instances: &[usize],
    opts: &AllocOptions,
    mut explain: Option<&mut GroupSearchHook<'_>>,
    mut notes: Notes<'_>,
) -> Result<EvacSolution, Crash> {
    let originals: Vec<Instance> = instances
        .iter()
        .map(|&k| state.inst(k as i32).cloned())
        .collect::<Result<_, _>>()?;
    let mut evac_groups: Vec<usize> = Vec::new();
    for inst in &originals {
        let g = state.node(inst.p_node)?.group;
        if !evac_groups.contains(&g) {
            evac_groups.push(g);
        }
    }
    // List difference: one occurrence of each evacuated group is removed.
    let mut targets: Vec<usize> = if target_groups.is_empty() {
        (0..node_groups.len()).collect()
    } else {
        target_groups.to_vec()
    };
    for g in &evac_groups {
        if let Some(pos) = targets.iter().position(|t| t == g) {
            targets.remove(pos);
        }
    }
    let mut excluded = vec![false; state.node_slots()];
    exclude_offline(state, &mut excluded);
    let groups = group_nodes(node_groups, state);
    let mut sol = EvacSolution::default();
    // Only the chosen group is read (and, when no group can take the
    // instance, the groups' descriptions, whose tallies `winner_only`
    // keeps exact), unless a hook reads the search. Without the capacity
    // check (and without refusing offline secondaries) no candidate is
    // dropped after its score, so `winner_only` leaves every tally exact
    // and a hook reads the same search.
    let exact_anyway = !opts.capacity_checks && !opts.online_secondary_only;
    let winner_opts = AllocOptions {
        winner_only: explain.is_none() || exact_anyway,
        ..opts.clone()
    };
    let opts = &winner_opts;
    for inst in &originals {
        let count = inst.disk_template.required_nodes() as i64;
        let cp = state.checkpoint();
        let search = search_groups(node_groups, state, Some(&targets), inst, count, opts)?;
        if let Some(hook) = explain.as_deref_mut() {
            hook(state, inst, count, &search)?;
        }
        let result = match search.choose(node_groups, Some(&targets)) {
            Err(SearchError::Crash(c)) => return Err(c),
            Err(SearchError::Message(m)) => Err(EvacError::Message(m)),
            Ok(choice) => match available(&groups, &excluded, choice.group) {
                Err(m) => Err(EvacError::Message(m)),
                Ok(avail) => node_evac_instance(
                    state,
                    inst,
                    EvacMode::ChangeAll,
                    choice.group,
                    &avail,
                    // hail keeps a group change strict.
                    SoftChecks::Enforce,
                    notes.as_deref_mut(),
                    opts.one_thread,
                ),
            },
        };
        if result.is_err() {
            state.rollback(cp);
        }
        update_solution(state, &mut sol, inst.idx, result)?;
    }
    Ok(sol)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Request;
    use crate::read::loader::{load_document, LoadOptions};

    /// A secondary's replacement tried by probes (`SecondaryTrial`) gives,
    /// for every drbd instance and target, what the move itself gives: the
    /// same failure, or the same values of the same changed nodes; the
    /// instance's own nodes are left to the move. Clusters of every
    /// generator feature (offline and drained nodes, exclusive storage,
    /// forthcoming instances, tags), both soft-check modes.
    #[test]
    fn secondary_trials_give_the_moves_values() {
        use crate::model::types::SoftChecks;
        use hailstone_devtools::generate::{all_kinds, generate, CaseSpec};
        let (mut fits, mut fails) = (0, 0);
        for seed in 0..40u64 {
            let kinds = all_kinds();
            let kind = kinds[seed as usize % kinds.len()];
            let text = generate(&CaseSpec::random(seed, kind, 3..=24)).request;
            let doc = crate::read::json::parse_document(text.as_bytes()).expect("valid JSON");
            let Ok(loaded) = load_document(&doc, &LoadOptions::default()) else {
                continue;
            };
            let state = State::new(&loaded.cluster);
            for inst in &loaded.cluster.instances {
                if inst.mirror_type() != MirrorType::Internal {
                    continue;
                }
                for soft in [SoftChecks::Enforce, SoftChecks::Ignore] {
                    let Some(mut trial) = moves::SecondaryTrial::new(&state, inst, soft) else {
                        continue;
                    };
                    for t in state.node_keys() {
                        let tried = trial.try_target(&state, t);
                        let moved = moves::apply(&state, inst, Move::ReplaceSecondary(t), soft);
                        let own = [inst.p_node, inst.s_node].contains(&(t as i32));
                        let what = format!("seed {seed}, {} to {t}", inst.name);
                        match (tried, moved) {
                            (None, _) => assert!(own, "{what}: not tried"),
                            (Some(_), _) if own => panic!("{what}: own node tried"),
                            (Some(Ok(values)), Ok(m)) => {
                                let expected: Vec<(usize, Scalars)> = m
                                    .final_nodes()
                                    .iter()
                                    .map(|(k, n)| (*k, n.scalars()))
                                    .collect();
                                assert_eq!(values.to_vec(), expected, "{what}");
                                fits += 1;
                            }
                            (Some(Err(MoveError::Fail(a))), Err(MoveError::Fail(b))) => {
                                assert_eq!(a, b, "{what}");
                                fails += 1;
                            }
                            (a, b) => panic!("{what}: {a:?} against {:?}", b.err()),
                        }
                    }
                }
            }
        }
        assert!(fits > 1000 && fails > 1000, "{fits} fits, {fails} failures");
    }

    /// A change-group large enough for the pair scan to run on threads
    /// gives the same moves, jobs and failures as the scan in one run
    /// (which explaining forces), on clusters of mostly empty, identical
    /// nodes, where exact ties are decided by the candidates' order.
    #[test]
    fn threaded_pair_scan_matches_one_run() {
        use hailstone_devtools::generate::{generate, CaseSpec, DiskTemplate, RequestKind};
        let mut moved = 0;
        for seed in 1..=6 {
            let mut spec = CaseSpec::new(seed, RequestKind::ChangeGroup, 900);
            spec.groups = 2;
            spec.template = Some(DiskTemplate::Drbd);
            spec.instances_per_node = 0.3;
            spec.tightness = 0.2;
            let text = generate(&spec).request;
            let doc = crate::read::json::parse_document(text.as_bytes()).expect("valid JSON");
            let loaded = load_document(&doc, &LoadOptions::default()).expect("loads");
            let Request::ChangeGroup {
                instances,
                target_groups,
            } = &loaded.request
            else {
                panic!("a change-group request")
            };
            let groups = loaded.cluster.groups.clone();
            let probe = State::new(&loaded.cluster);
            // The instances' group is left for the other one.
            let own = probe
                .inst(instances[0] as i32)
                .and_then(|i| probe.node(i.p_node))
                .expect("the instance's node")
                .group;
            let other = probe
                .node_keys()
                .filter(|&k| probe.node_at(k).group != own)
                .count();
            assert!(
                other * other >= PARALLEL_PAIRS,
                "{other} nodes: too few to thread"
            );
            let opts = AllocOptions::new(&Default::default(), None);
            let run = |explain: bool| {
                let mut state = State::new(&loaded.cluster);
                let mut notes = explain.then(Vec::new);
                let sol = change_group(
                    &groups,
                    &mut state,
                    target_groups,
                    instances,
                    &opts,
                    None,
                    notes.as_mut(),
                )
                .expect("no crash");
                (sol.moved, sol.failed, sol.moves)
            };
            let threaded = run(false);
            moved += threaded.0.len();
            assert_eq!(threaded, run(true), "seed {seed}");
        }
        assert!(moved >= 3, "too few instances moved: {moved}");
    }

    /// Node evacuation ("all") of drbd instances inside their group, on
    /// groups large enough to thread and with varied nodes (rows skipped by
    /// their bound, special secondaries among the old nodes): the same
    /// answer as the scan in one run without skipping (explaining forces
    /// both).
    #[test]
    fn skipped_rows_keep_the_answer() {
        use crate::model::types::{EvacMode, SoftChecks};
        use hailstone_devtools::generate::{generate, CaseSpec, EvacMode as GenMode, RequestKind};
        let mut moved = 0;
        for seed in 1..=4 {
            let mut spec = CaseSpec::new(seed, RequestKind::NodeEvacuate(GenMode::All), 700);
            spec.groups = 2;
            let text = generate(&spec).request;
            let doc = crate::read::json::parse_document(text.as_bytes()).expect("valid JSON");
            let loaded = load_document(&doc, &LoadOptions::default()).expect("loads");
            let Request::NodeEvacuate { instances, mode } = &loaded.request else {
                panic!("a node-evacuate request")
            };
            assert_eq!(*mode, EvacMode::ChangeAll);
            let groups = loaded.cluster.groups.clone();
            let run = |explain: bool| {
                let mut state = State::new(&loaded.cluster);
                let mut notes = explain.then(Vec::new);
                let sol = try_node_evac(
                    &groups,
                    &mut state,
                    *mode,
                    instances,
                    SoftChecks::Enforce,
                    notes.as_mut(),
                )
                .expect("no crash");
                (sol.moved, sol.failed, sol.moves)
            };
            let fast = run(false);
            moved += fast.0.len();
            assert_eq!(fast, run(true), "seed {seed}");
        }
        assert!(moved >= 5, "too few instances moved: {moved}");
    }
}
