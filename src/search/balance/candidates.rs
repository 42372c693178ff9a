//! One instance's candidate moves in a balancing step (hbal's
//! `possibleMoves` and `checkInstanceMove`) and what each candidate does to
//! the nodes it touches, computed without copying the cluster.
//!
//! What depends only on the instance's own nodes (its removal from them,
//! and the other node of each move kind, which differs between targets
//! only by the location score and the peer memory) is computed once and
//! [`Kept`] with the instance's record while those nodes do not change.
//! From it, the own nodes' part of the candidates' approximations
//! ([`OwnPart`], one per value left on the own nodes) is made once per
//! look at the instance, so that a candidate's approximation
//! ([`InstanceCtx::approx_split`]) probes and sums only its target.
//!
//! Candidates are identified within their instance by a rank that follows
//! hbal's order (the failover first, then by target node and move kind),
//! so that candidates found at different times can be put back in the
//! order hbal tries them.

use smallvec::SmallVec;

use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::model::types::{MirrorType, SoftChecks};
use crate::score::base::{OwnPart, ScoreBase};
use crate::score::metric::{self, NodeValues};
use crate::search::moves::{self, location_score, Move};
use crate::search::state::State;

use super::BalanceOptions;

/// A candidate's place in hbal's order among its instance's candidates.
pub(super) fn rank(mv: Move) -> u64 {
    let kind = match mv {
        Move::Failover => return 0,
        Move::FailoverToAny(_) | Move::ReplaceSecondary(_) => 0,
        Move::ReplaceAndFailover(_) => 1,
        Move::ReplacePrimary(_) => 2,
        Move::FailoverAndReplace(_) => 3,
    };
    let t = mv.target().unwrap_or(0) as u64;
    (t + 1) * 4 + kind
}

/// The candidate moves of one instance (`checkInstanceMove`), in hbal's
/// order: the failover if `failover` is set, then the moves to every
/// online node (`targets` = `None`) or only to the nodes in `list`
/// (`Some(list)`, ascending).
pub(super) fn candidate_moves(
    state: &State,
    online: &[usize],
    inst: &Instance,
    options: &BalanceOptions,
    targets: Option<&[usize]>,
    failover: bool,
    out: &mut Vec<Move>,
) {
    out.clear();
    let (p, s) = (inst.p_node, inst.s_node);
    let mir = inst.mirror_type();
    let use_sec = s >= 0 && online.binary_search(&(s as usize)).is_ok() && options.inst_moves;
    if mir == MirrorType::Internal && use_sec && failover {
        out.push(Move::Failover);
    }
    let pri_off = state.node(p).map(|n| n.offline).unwrap_or(false);
    let rest = options.restricted_migration;
    let chosen: &[usize] = targets.unwrap_or(online);
    for &t in chosen {
        if t as i32 == p || t as i32 == s {
            continue;
        }
        if targets.is_some() && online.binary_search(&t).is_err() {
            continue;
        }
        match mir {
            MirrorType::None => {}
            MirrorType::External => {
                if options.inst_moves {
                    out.push(Move::FailoverToAny(t));
                }
            }
            MirrorType::Internal => {
                if !options.disk_moves {
                    continue;
                }
                if !options.inst_moves || (rest && !pri_off) {
                    out.push(Move::ReplaceSecondary(t));
                } else if use_sec && !rest {
                    out.extend([
                        Move::ReplaceSecondary(t),
                        Move::ReplaceAndFailover(t),
                        Move::ReplacePrimary(t),
                        Move::FailoverAndReplace(t),
                    ]);
                } else if use_sec {
                    out.extend([
                        Move::ReplaceSecondary(t),
                        Move::ReplaceAndFailover(t),
                        Move::FailoverAndReplace(t),
                    ]);
                } else {
                    out.extend([Move::ReplaceSecondary(t), Move::ReplaceAndFailover(t)]);
                }
            }
        }
    }
}

/// One instance's removal from its nodes, computed once for all its
/// candidates. Only an instance with a secondary needs its nodes without
/// it ([`Mirrored`]); the others need only their primary's metric values
/// without them, which a step may already know.
pub(super) struct InstanceCtx<'s> {
    inst: &'s Instance,
    p: usize,
    soft_p: SoftChecks,
    soft: SoftChecks,
    kept: Kept,
}

/// What an instance's context computes from its own nodes only: valid, and
/// kept from step to step, while neither of them changes.
#[derive(Debug, Clone)]
pub(super) struct Kept {
    /// The instance's primary and secondary when this was computed.
    nodes: (i32, i32),
    /// The primary's metric values without the instance.
    int_p_values: NodeValues,
    mirrored: Option<Box<Mirrored>>,
}

/// The own-node parts of an instance's candidates' approximations, by
/// the values they leave on the own nodes, made when first needed (for
/// the candidates of one look at the instance: kept from step to step,
/// they would cost more to read than to make).
pub(super) type OwnParts = SmallVec<[(OwnKey, OwnPart); 4]>;

/// Which values a candidate leaves on the instance's own nodes: what its
/// [`OwnPart`] depends on. `Cache(c, key)` is the entry `key` of the
/// probe cache `c` (with the fixed value of the other own node).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OwnKey {
    /// A failover (both own nodes computed afresh: no part kept).
    None,
    /// The primary without the instance, alone (a move of an instance
    /// without secondary).
    IntP,
    Cache(u8, (i64, i64)),
}

/// Which value a [`Variant`] is (the first part of its id): the primary
/// and the secondary without the instance, then the probes kept by key
/// (see [`Mirrored`]).
const INT_P: u8 = 0;
const INT_S: u8 = 1;
const KEPT_P: u8 = 2;
const NEW_S: u8 = 3;
const KEPT_S: u8 = 4;
const NEW_P: u8 = 5;
const TMP_S: u8 = 6;

/// One of the values the instance's candidates may leave on one of its own
/// nodes ([`Kept::variants`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Variant {
    /// Which value: the cache and its key.
    pub(super) id: (u8, i64, i64),
    /// The own node.
    pub(super) node: usize,
    /// The node's values (`None` when the probe failed).
    pub(super) values: Option<NodeValues>,
    /// Whether `values` are values left on the node (otherwise only
    /// whether the probe succeeds counts).
    pub(super) valued: bool,
}

/// What the moves of an instance with a secondary need.
#[derive(Debug, Clone)]
struct Mirrored {
    s: usize,
    /// The primary without the instance.
    int_p: Node,
    /// The secondary without the instance, and its metric values.
    int_s: Node,
    int_s_values: NodeValues,
    soft_s: SoftChecks,
    /// The moved instance's record, rewritten for each candidate (its
    /// location score and nodes) instead of copied.
    ni: std::cell::RefCell<Instance>,
    /// The old secondary after hosting and releasing the instance as a
    /// primary (`ReplacePrimary`), by the instance's location score.
    tmp_s: std::cell::RefCell<TmpSecondaries>,
    /// The metric values of the node a move leaves the instance on or
    /// hands it to besides the target: the primary keeping it
    /// (`ReplaceSecondary`), the old secondary taking it as primary
    /// (`FailoverAndReplace`), the old primary taking it as secondary
    /// (`ReplaceAndFailover`), the old secondary after `ReplacePrimary`.
    /// A probe of those nodes reads of the target only the instance's
    /// location score there and, for a secondary, the memory the node
    /// already keeps for the target's primaries: the same for most targets,
    /// so each is computed once per (location score, peer memory).
    kept_p: std::cell::RefCell<Probed>,
    new_p: std::cell::RefCell<Probed>,
    new_s: std::cell::RefCell<Probed>,
    kept_s: std::cell::RefCell<Probed>,
    /// A move that filled each entry of the caches above, in order: what
    /// recomputes them on changed nodes ([`Kept::reps`]).
    reps: std::cell::RefCell<SmallVec<[Move; 4]>>,
}

/// A node's metric values after a probe, by the instance's location score
/// and the node's peer memory of the target (`None` when the probe
/// fails).
type Probed = SmallVec<[((i64, i64), Option<NodeValues>); 2]>;

/// The entry of a small cache for `key`, made by `make` when missing;
/// `None` (and nothing kept) when `make` gives none (a value that is
/// itself an `Option` keeps a failure as `Some(None)`).
fn cached<'c, A, K: PartialEq + 'c, V: 'c>(
    cache: &'c mut SmallVec<A>,
    key: K,
    make: impl FnOnce() -> Option<V>,
) -> Option<&'c V>
where
    A: smallvec::Array<Item = (K, V)>,
{
    let pos = match cache.iter().position(|(k, _)| *k == key) {
        Some(pos) => pos,
        None => {
            cache.push((key, make()?));
            cache.len() - 1
        }
    };
    Some(&cache[pos].1)
}

/// The node values of `cache` for `key`, probed when missing (noting
/// `mv` in `reps` then).
fn probed(
    cache: &std::cell::RefCell<Probed>,
    key: (i64, i64),
    reps: &std::cell::RefCell<SmallVec<[Move; 4]>>,
    mv: Move,
    probe: impl FnOnce() -> Option<NodeValues>,
) -> Result<NodeValues, ()> {
    cached(&mut cache.borrow_mut(), key, || {
        reps.borrow_mut().push(mv);
        Some(probe())
    })
    .copied()
    .flatten()
    .ok_or(())
}

pub(super) type Changes = SmallVec<[(usize, NodeValues); 3]>;

/// The old secondary after hosting and releasing the instance, by location
/// score (`None` when it cannot host it).
type TmpSecondaries = SmallVec<[(i64, Option<Node>); 2]>;

fn values_of(s: &crate::model::node::Scalars) -> NodeValues {
    metric::node_values(s)
}

impl Kept {
    /// Computes the instance's removal from its primary `pn` and its
    /// secondary.
    fn new(state: &State, inst: &Instance, pn: &Node, soft: SoftChecks) -> Option<Kept> {
        let without_p = || {
            let mut int_p = pn.clone();
            int_p.remove_pri(inst);
            let v = values_of(&int_p.scalars());
            (int_p, v)
        };
        if inst.s_node < 0 {
            return Some(Kept {
                nodes: (inst.p_node, inst.s_node),
                int_p_values: without_p().1,
                mirrored: None,
            });
        }
        let sn = state.node(inst.s_node).ok()?;
        let mut int_s = sn.clone();
        int_s.remove_sec(inst);
        let int_s_values = values_of(&int_s.scalars());
        let (int_p, int_p_values) = without_p();
        let m = Mirrored {
            s: inst.s_node as usize,
            int_p,
            int_s,
            int_s_values,
            soft_s: soft.ignored_if(sn.offline),
            ni: std::cell::RefCell::new(inst.clone()),
            tmp_s: std::cell::RefCell::new(SmallVec::new()),
            kept_p: std::cell::RefCell::new(SmallVec::new()),
            new_p: std::cell::RefCell::new(SmallVec::new()),
            new_s: std::cell::RefCell::new(SmallVec::new()),
            kept_s: std::cell::RefCell::new(SmallVec::new()),
            reps: std::cell::RefCell::new(SmallVec::new()),
        };
        Some(Kept {
            nodes: (inst.p_node, inst.s_node),
            int_p_values,
            mirrored: Some(Box::new(m)),
        })
    }
}

impl Kept {
    /// The instance's primary and secondary when this was computed.
    pub(super) fn nodes(&self) -> (i32, i32) {
        self.nodes
    }

    /// The moves that computed the probes kept so far: replayed on a
    /// fresh context, they compute the same entries on changed nodes.
    pub(super) fn reps(&self) -> SmallVec<[Move; 4]> {
        self.mirrored
            .as_ref()
            .map(|m| m.reps.borrow().clone())
            .unwrap_or_default()
    }

    /// Whether a candidate of a target outside `changed` (ascending) may
    /// still need the probe `id` ([`Variant::id`]), which these (present)
    /// values lack. It cannot when the probe it follows fails now, or when
    /// its key is a peer memory other than 0 that no such target has: the
    /// targets with that key are the peers the own node keeps that much
    /// memory for.
    pub(super) fn may_need(&self, id: (u8, i64, i64), changed: &[usize]) -> bool {
        let Some(m) = self.mirrored.as_ref() else {
            return true;
        };
        let node = match id.0 {
            NEW_S => &m.int_p,
            KEPT_S => {
                let loc = id.1;
                if m.tmp_s
                    .borrow()
                    .iter()
                    .any(|(l, t)| *l == loc && t.is_none())
                {
                    return false;
                }
                &m.int_s
            }
            _ => return true,
        };
        id.2 == 0
            || node.peers.iter().any(|&(u, mem)| {
                mem == id.2
                    && usize::try_from(u).map_or(true, |u| changed.binary_search(&u).is_err())
            })
    }

    /// Every value the candidates looked at so far leave on the
    /// instance's own nodes, and whether each probe of them succeeded.
    pub(super) fn variants(&self) -> SmallVec<[Variant; 8]> {
        let p = self.nodes.0 as usize;
        let mut out: SmallVec<[Variant; 8]> = SmallVec::new();
        let mut put = |id, node, values, valued| {
            out.push(Variant {
                id,
                node,
                values,
                valued,
            })
        };
        put((INT_P, 0, 0), p, Some(self.int_p_values), true);
        let Some(m) = self.mirrored.as_ref() else {
            return out;
        };
        put((INT_S, 0, 0), m.s, Some(m.int_s_values), true);
        let caches = [
            (KEPT_P, p, &m.kept_p),
            (NEW_S, p, &m.new_s),
            (KEPT_S, m.s, &m.kept_s),
            (NEW_P, m.s, &m.new_p),
        ];
        for (c, node, cache) in caches {
            for &((a, b), v) in cache.borrow().iter() {
                put((c, a, b), node, v, true);
            }
        }
        for (loc, tmp) in m.tmp_s.borrow().iter() {
            put(
                (TMP_S, *loc, 0),
                m.s,
                tmp.as_ref().map(|_| [0.0; metric::N_COMPONENTS]),
                false,
            );
        }
        out
    }
}

impl<'s> InstanceCtx<'s> {
    /// The context of `inst`; `kept`, when given, is what
    /// [`InstanceCtx::into_kept`] left of it, neither of its nodes changed
    /// since.
    pub(super) fn new(
        state: &State,
        inst: &'s Instance,
        soft: SoftChecks,
        kept: Option<Kept>,
    ) -> Option<InstanceCtx<'s>> {
        let p = usize::try_from(inst.p_node).ok()?;
        let pn = state.node(inst.p_node).ok()?;
        let kept = match kept {
            Some(k) => k,
            None => Kept::new(state, inst, pn, soft)?,
        };
        Some(InstanceCtx {
            inst,
            p,
            soft_p: soft.ignored_if(pn.offline),
            soft,
            kept,
        })
    }

    /// What the next step may reuse while the instance's nodes stay.
    pub(super) fn into_kept(self) -> Kept {
        self.kept
    }

    /// The nodes a move changes and their new metric values, into `out`,
    /// or `Err` when the move fails (the same checks as [`moves::apply`]).
    #[inline]
    pub(super) fn changes(&self, state: &State, mv: Move, out: &mut Changes) -> Result<(), ()> {
        self.changes_at(state, mv, out, true, true).map(|_| ())
    }

    /// The probes of a mirrored move on the instance's own nodes only (the
    /// target is not probed and left out of `out`): what fills the kept
    /// caches again after an own node changed, whatever became of the
    /// target.
    pub(super) fn own_changes(&self, state: &State, mv: Move, out: &mut Changes) -> Result<(), ()> {
        self.changes_at(state, mv, out, false, true).map(|_| ())
    }

    /// Whether the moves of this instance other than its failover can be
    /// approximated by [`InstanceCtx::approx_split`]: its own nodes are
    /// online (a move off an offline node changes the offline sums).
    pub(super) fn splits(&self, state: &State) -> bool {
        let (p, s) = self.kept.nodes;
        [p, s]
            .iter()
            .all(|&n| n < 0 || state.node(n).is_ok_and(|n| !n.offline))
    }

    /// The approximate score of a move other than a failover of an
    /// instance that [`InstanceCtx::splits`], as [`ScoreBase::approx_leaving`] of its
    /// [`InstanceCtx::changes`] gives it (to the roundings its bound
    /// covers): the values it leaves on the own nodes are prepared once
    /// per [`OwnKey`] into `parts` ([`OwnPart`]), only the target is
    /// probed.
    /// `Err` when the move fails; `Ok(None)` when the approximation does
    /// not apply. `observe` as for [`ScoreBase::approx_leaving`].
    #[inline]
    pub(super) fn approx_split(
        &self,
        state: &State,
        base: &ScoreBase,
        mv: Move,
        buf: &mut Changes,
        parts: &mut OwnParts,
        observe: impl FnMut(usize, f64, f64, f64),
    ) -> Result<Option<(f64, f64)>, ()> {
        let key = self.changes_at(state, mv, buf, true, false)?;
        let Some((t, y)) = buf.first() else {
            return Err(());
        };
        let own = cached(parts, key, || self.own_part(state, key)).ok_or(())?;
        Ok(base.approx_with(own, state.values(*t), y, observe))
    }

    /// The [`OwnPart`] of the values `key` (probed before).
    fn own_part(&self, state: &State, key: OwnKey) -> Option<OwnPart> {
        let p = self.p;
        let int_p = (state.values(p), &self.kept.int_p_values);
        let (c, key) = match key {
            OwnKey::None => return None,
            OwnKey::IntP => return Some(OwnPart::new(&[int_p])),
            OwnKey::Cache(c, key) => (c, key),
        };
        let m = self.kept.mirrored.as_ref()?;
        let int_s = (state.values(m.s), &m.int_s_values);
        let cache = match c {
            KEPT_P => &m.kept_p,
            NEW_S => &m.new_s,
            KEPT_S => &m.kept_s,
            _ => &m.new_p,
        };
        let cache = cache.borrow();
        let v = cache.iter().find(|(k, _)| *k == key)?.1.as_ref()?;
        Some(match c {
            KEPT_P => OwnPart::new(&[int_s, (state.values(p), v)]),
            NEW_S => OwnPart::new(&[(state.values(p), v), int_s]),
            KEPT_S => OwnPart::new(&[int_p, (state.values(m.s), v)]),
            _ => OwnPart::new(&[(state.values(m.s), v), int_p]),
        })
    }

    /// The changes of a move into `out`: the target's if `target`, the
    /// own nodes' if `own`; and which values the move leaves on the own
    /// nodes.
    #[inline(always)]
    fn changes_at(
        &self,
        state: &State,
        mv: Move,
        out: &mut Changes,
        target: bool,
        own: bool,
    ) -> Result<OwnKey, ()> {
        let inst = self.inst;
        let pn = state.node_at(self.p);
        out.clear();
        match mv {
            Move::Failover => {
                let m = moves::apply(state, inst, mv, self.soft).map_err(|_| ())?;
                for (k, n) in m.final_nodes() {
                    out.push((k, values_of(&n.scalars())));
                }
                return Ok(OwnKey::None);
            }
            Move::FailoverToAny(t) => {
                let tn = state.node_at(t);
                pn.check_migration(tn).map_err(|_| ())?;
                let pr = tn.probe_add_pri(self.soft_p, inst).map_err(|_| ())?;
                if own {
                    out.push((self.p, self.kept.int_p_values));
                }
                out.push((t, values_of(&tn.scalars_with_pri(&pr))));
                return Ok(OwnKey::IntP);
            }
            _ => {}
        }
        let m = self.kept.mirrored.as_ref().ok_or(())?;
        let (s, int_p, int_s) = (m.s, &m.int_p, &m.int_s);
        let mut ni_cell = m.ni.borrow_mut();
        let ni = &mut *ni_cell;
        ni.p_node = inst.p_node;
        ni.s_node = inst.s_node;
        let key = match mv {
            Move::Failover | Move::FailoverToAny(_) => return Err(()),
            Move::ReplaceSecondary(t) => {
                let tn = state.node_at(t);
                ni.location_score = location_score(pn, tn);
                ni.s_node = t as i32;
                let ps = if target {
                    Some(
                        tn.probe_add_sec(false, m.soft_s, &*ni, inst.p_node)
                            .map_err(|_| ())?,
                    )
                } else {
                    None
                };
                // The primary's probe reads only the instance's resources,
                // tags and location score.
                let key = (ni.location_score, 0);
                let p_values = probed(&m.kept_p, key, &m.reps, mv, || {
                    let pp = int_p.probe_add_pri(SoftChecks::Ignore, &*ni).ok()?;
                    Some(values_of(&int_p.scalars_with_pri(&pp)))
                })?;
                if own {
                    out.push((s, m.int_s_values));
                }
                if let Some(ps) = ps {
                    out.push((t, values_of(&tn.scalars_with_sec(&ps))));
                }
                if own {
                    out.push((self.p, p_values));
                }
                OwnKey::Cache(KEPT_P, key)
            }
            Move::ReplaceAndFailover(t) => {
                let tn = state.node_at(t);
                pn.check_migration(tn).map_err(|_| ())?;
                ni.location_score = location_score(tn, int_p);
                ni.p_node = t as i32;
                ni.s_node = inst.p_node;
                let pt = if target {
                    Some(tn.probe_add_pri(self.soft, &*ni).map_err(|_| ())?)
                } else {
                    None
                };
                // (a secondary's probe reads no location score)
                let key = (0, int_p.peer_mem(t as i32));
                let p_values = probed(&m.new_s, key, &m.reps, mv, || {
                    let pp = int_p.probe_add_sec(false, m.soft_s, &*ni, t as i32).ok()?;
                    Some(values_of(&int_p.scalars_with_sec(&pp)))
                })?;
                if own {
                    out.push((self.p, p_values));
                    out.push((s, m.int_s_values));
                }
                if let Some(pt) = pt {
                    out.push((t, values_of(&tn.scalars_with_pri(&pt))));
                }
                OwnKey::Cache(NEW_S, key)
            }
            Move::ReplacePrimary(t) => {
                let sn = state.node_at(s);
                let tn = state.node_at(t);
                pn.check_migration(sn).map_err(|_| ())?;
                sn.check_migration(tn).map_err(|_| ())?;
                ni.location_score = location_score(tn, int_s);
                ni.p_node = t as i32;
                let pt = if target {
                    Some(tn.probe_add_pri(self.soft_p, &*ni).map_err(|_| ())?)
                } else {
                    None
                };
                let mut cache = m.tmp_s.borrow_mut();
                let tmp = cached(&mut cache, ni.location_score, || {
                    m.reps.borrow_mut().push(mv);
                    let mut tmp = int_s.clone();
                    let ok = tmp.add_pri(self.soft_p, &*ni).is_ok();
                    if ok {
                        tmp.remove_pri(&*ni);
                    }
                    Some(ok.then_some(tmp))
                })
                .and_then(Option::as_ref)
                .ok_or(())?;
                let key = (ni.location_score, tmp.peer_mem(t as i32));
                let s_values = probed(&m.kept_s, key, &m.reps, mv, || {
                    let ps = tmp.probe_add_sec(false, self.soft_p, &*ni, t as i32).ok()?;
                    Some(values_of(&tmp.scalars_with_sec(&ps)))
                })?;
                if own {
                    out.push((self.p, self.kept.int_p_values));
                    out.push((s, s_values));
                }
                if let Some(pt) = pt {
                    out.push((t, values_of(&tn.scalars_with_pri(&pt))));
                }
                OwnKey::Cache(KEPT_S, key)
            }
            Move::FailoverAndReplace(t) => {
                let sn = state.node_at(s);
                let tn = state.node_at(t);
                pn.check_migration(sn).map_err(|_| ())?;
                ni.location_score = location_score(int_s, tn);
                ni.p_node = s as i32;
                ni.s_node = t as i32;
                let key = (ni.location_score, 0);
                let s_values = probed(&m.new_p, key, &m.reps, mv, || {
                    let ps = int_s.probe_add_pri(self.soft_p, &*ni).ok()?;
                    Some(values_of(&int_s.scalars_with_pri(&ps)))
                })?;
                if own {
                    out.push((s, s_values));
                    out.push((self.p, self.kept.int_p_values));
                }
                if target {
                    let pt = tn
                        .probe_add_sec(false, self.soft_p, &*ni, s as i32)
                        .map_err(|_| ())?;
                    out.push((t, values_of(&tn.scalars_with_sec(&pt))));
                }
                OwnKey::Cache(NEW_P, key)
            }
        };
        Ok(key)
    }
}
