//! Instance moves (`Cluster.Moves.applyMoveEx`): failover, failover to any
//! node, secondary replacement, and the three composite moves the balancer
//! also tries (replace the primary, replace and fail over, fail over and
//! replace), computed on a [`State`] without changing it. A move yields the nodes it changes (in hail's write order)
//! and the moved instance; the caller scores it and commits it if chosen.

use smallvec::SmallVec;

use crate::model::instance::Instance;
use crate::model::node::{intersection_len, Node, Scalars};
use crate::model::types::{FailMode, SoftChecks};
use crate::search::state::{Crash, State};

/// A move of one instance, its node by key.
pub type Move = crate::model::types::IMove<usize>;

/// The outcome of a successful move.
#[derive(Debug, Clone)]
pub struct Moved {
    /// Changed nodes by key; later entries win on equal keys, as in hail's
    /// `Container.add` sequence.
    pub nodes: SmallVec<[(usize, Node); 3]>,
    /// The instance after the move.
    pub inst: Instance,
}

impl Moved {
    /// Writes the move into the state.
    pub fn commit(self, state: &mut State, inst_key: usize) {
        for (k, n) in self.nodes {
            state.set_node(k, n);
        }
        state.set_inst(inst_key, self.inst);
    }

    /// The changed nodes with duplicates resolved (last write wins), for
    /// scoring.
    pub fn final_nodes(&self) -> SmallVec<[(usize, &Node); 3]> {
        let mut out: SmallVec<[(usize, &Node); 3]> = SmallVec::new();
        for (k, n) in self.nodes.iter() {
            match out.iter_mut().find(|(ok, _)| ok == k) {
                Some(slot) => slot.1 = n,
                None => out.push((*k, n)),
            }
        }
        out
    }
}

/// Why a move failed: a placement failure, or a lookup hail crashes on.
#[derive(Debug, Clone, PartialEq)]
pub enum MoveError {
    Fail(FailMode),
    Crash(Crash),
}

impl From<FailMode> for MoveError {
    fn from(f: FailMode) -> Self {
        MoveError::Fail(f)
    }
}

impl From<Crash> for MoveError {
    fn from(c: Crash) -> Self {
        MoveError::Crash(c)
    }
}

fn key(k: i32) -> usize {
    // Keys passed here were validated by a successful `State::node` lookup.
    k as usize
}

/// The location score of an instance with primary `p` and secondary `s`
/// (`setInstanceLocationScore`).
pub fn location_score(p: &Node, s: &Node) -> i64 {
    intersection_len(&p.info.location_tags, &s.info.location_tags) as i64
}

/// Where a move reads nodes from: the state, or an overlay on it.
pub trait Nodes {
    /// The node at key `k`, as `Container.find` (a missing key is a crash).
    fn node(&self, k: i32) -> Result<&Node, Crash>;
}

impl Nodes for State {
    fn node(&self, k: i32) -> Result<&Node, Crash> {
        State::node(self, k)
    }
}

/// The changed nodes and instances of an [`Overlay`], by key.
pub type Changes = (
    SmallVec<[(usize, Node); 8]>,
    SmallVec<[(usize, Instance); 8]>,
);

/// A few changed nodes and instances over a state, for trials that must
/// not touch the state (the capacity check's failovers, evacuation
/// trials).
#[derive(Clone)]
pub struct Overlay<'s> {
    base: &'s State,
    nodes: SmallVec<[(usize, Node); 8]>,
    insts: SmallVec<[(usize, Instance); 8]>,
}

impl<'s> Overlay<'s> {
    /// An empty overlay.
    pub fn new(base: &'s State) -> Overlay<'s> {
        Overlay {
            base,
            nodes: SmallVec::new(),
            insts: SmallVec::new(),
        }
    }

    /// The instance at key `k`, changed or from the state.
    pub fn inst(&self, k: i32) -> Result<&Instance, Crash> {
        match self.insts.iter().rev().find(|(key, _)| *key as i32 == k) {
            Some((_, i)) => Ok(i),
            None => self.base.inst(k),
        }
    }

    /// The instance at key `k` if the overlay changed it.
    pub fn changed_inst(&self, k: i32) -> Option<&Instance> {
        self.insts
            .iter()
            .rev()
            .find(|(key, _)| *key as i32 == k)
            .map(|(_, i)| i)
    }

    /// Records a move's result.
    pub fn apply(&mut self, m: Moved, inst_key: usize) {
        for (k, n) in m.nodes {
            match self.nodes.iter_mut().find(|(key, _)| *key == k) {
                Some(slot) => slot.1 = n,
                None => self.nodes.push((k, n)),
            }
        }
        self.insts.push((inst_key, m.inst));
    }

    /// The node at key `k` for changing, copied from the state on first use.
    fn node_mut(&mut self, k: usize) -> Result<&mut Node, Crash> {
        let pos = match self.nodes.iter().position(|(key, _)| *key == k) {
            Some(pos) => pos,
            None => {
                let node = self.base.node(k as i32)?.clone();
                self.nodes.push((k, node));
                self.nodes.len() - 1
            }
        };
        Ok(&mut self.nodes[pos].1)
    }

    /// A failover of the instance stored under `inst_key`, written straight
    /// into the overlay: the same checks, nodes and instance record as
    /// [`apply`] with [`Move::Failover`] followed by [`Overlay::apply`],
    /// without building the move first. For trials that stop at the first
    /// failure: after an error the overlay is left half-changed.
    pub fn failover_in_place(
        &mut self,
        inst: &Instance,
        inst_key: usize,
        soft: SoftChecks,
    ) -> Result<(), MoveError> {
        let (p, s) = (inst.p_node, inst.s_node);
        let old_p = self.node(p)?;
        let old_s = self.node(s)?;
        if p == s {
            // Both halves of the move act on one node: keep hail's order.
            let m = apply(self, inst, Move::Failover, soft)?;
            self.apply(m, inst_key);
            return Ok(());
        }
        let p_offline = old_p.offline;
        old_p.check_migration(old_s)?;
        let int_s = self.node_mut(key(s))?;
        int_s.remove_sec(inst);
        int_s.add_pri(soft.ignored_if(p_offline), inst)?;
        let int_p = self.node_mut(key(p))?;
        int_p.remove_pri(inst);
        int_p.add_sec(p_offline, soft.ignored_if(p_offline), inst, s)?;
        let mut new_inst = inst.clone();
        new_inst.p_node = s;
        new_inst.s_node = p;
        self.insts.push((inst_key, new_inst));
        Ok(())
    }

    /// The keys of the changed nodes.
    pub fn changed_keys(&self) -> impl Iterator<Item = usize> + '_ {
        self.nodes.iter().map(|(k, _)| *k)
    }

    /// The changed nodes, for scoring.
    pub fn changed_nodes(&self) -> SmallVec<[(usize, &Node); 8]> {
        self.nodes.iter().map(|(k, n)| (*k, n)).collect()
    }

    /// Takes the changes out, to write them later.
    pub fn into_changes(self) -> Changes {
        (self.nodes, self.insts)
    }
}

impl Nodes for Overlay<'_> {
    fn node(&self, k: i32) -> Result<&Node, Crash> {
        match self.nodes.iter().find(|(key, _)| *key as i32 == k) {
            Some((_, n)) => Ok(n),
            None => self.base.node(k),
        }
    }
}

/// The nodes of a drbd instance's composite move to node `target`, with the
/// instance already taken off its primary and secondary (hbal's `int_p`
/// and `int_s`, computed before any check, as in `applyMoveEx`).
struct DrbdMove<'a> {
    old_pdx: i32,
    old_sdx: i32,
    old_p: &'a Node,
    old_s: &'a Node,
    tgt: &'a Node,
    int_p: Node,
    int_s: Node,
}

impl<'a> DrbdMove<'a> {
    fn new(state: &'a impl Nodes, inst: &Instance, target: usize) -> Result<Self, Crash> {
        let (old_pdx, old_sdx) = (inst.p_node, inst.s_node);
        let old_p = state.node(old_pdx)?;
        let old_s = state.node(old_sdx)?;
        let tgt = state.node(target as i32)?;
        let mut int_p = old_p.clone();
        int_p.remove_pri(inst);
        let mut int_s = old_s.clone();
        int_s.remove_sec(inst);
        Ok(DrbdMove {
            old_pdx,
            old_sdx,
            old_p,
            old_s,
            tgt,
            int_p,
            int_s,
        })
    }
}

/// [`Move::ReplaceSecondary`] of one instance tried towards many targets:
/// what does not depend on the target (the primary and the old secondary
/// without the instance) is computed once, and each target then costs two
/// probes and no copy of a node. The checks are [`apply`]'s, in its order,
/// and so are the nodes' would-be values.
pub struct SecondaryTrial<'s> {
    old_pdx: i32,
    old_sdx: i32,
    pnode: &'s Node,
    /// The primary without the instance.
    p_removed: Node,
    /// The old secondary without the instance.
    int_s: Scalars,
    soft_s: SoftChecks,
    /// The moved instance, its secondary and location score set per
    /// target.
    new_inst: Instance,
}

impl<'s> SecondaryTrial<'s> {
    /// The trials of `inst`'s secondary replacement on `state`; `None` when
    /// its nodes are not there (then [`apply`] says what is wrong).
    pub fn new(state: &'s impl Nodes, inst: &Instance, soft: SoftChecks) -> Option<Self> {
        let old_s = state.node(inst.s_node).ok()?;
        let pnode = state.node(inst.p_node).ok()?;
        let mut p_removed = pnode.clone();
        p_removed.remove_pri(inst);
        let mut int_s = old_s.clone();
        int_s.remove_sec(inst);
        Some(SecondaryTrial {
            old_pdx: inst.p_node,
            old_sdx: inst.s_node,
            pnode,
            p_removed,
            int_s: int_s.scalars(),
            soft_s: soft.ignored_if(old_s.offline),
            new_inst: inst.clone(),
        })
    }

    /// The would-be values of the nodes that the move to `target` changes,
    /// by key, in [`apply`]'s order (the old secondary, the target, the
    /// primary), or why it fails. `None` when the target is one of the
    /// instance's own nodes (then [`apply`] computes the move).
    pub fn try_target(
        &mut self,
        state: &impl Nodes,
        target: usize,
    ) -> Option<Result<[(usize, Scalars); 3], MoveError>> {
        let t = i32::try_from(target).ok()?;
        if t == self.old_pdx || t == self.old_sdx {
            return None;
        }
        let tgt = match state.node(t) {
            Ok(n) => n,
            Err(c) => return Some(Err(c.into())),
        };
        self.new_inst.location_score = location_score(self.pnode, tgt);
        self.new_inst.s_node = t;
        let probes = tgt
            .probe_add_sec(false, self.soft_s, &self.new_inst, self.old_pdx)
            .and_then(|s| {
                let p = self
                    .p_removed
                    .probe_add_pri(SoftChecks::Ignore, &self.new_inst)?;
                Ok((s, p))
            });
        Some(match probes {
            Ok((s, p)) => Ok([
                (key(self.old_sdx), self.int_s),
                (target, tgt.scalars_with_sec(&s)),
                (key(self.old_pdx), self.p_removed.scalars_with_pri(&p)),
            ]),
            Err(f) => Err(f.into()),
        })
    }
}

/// Computes a move (`applyMoveEx force`).
pub fn apply(
    state: &impl Nodes,
    inst: &Instance,
    mv: Move,
    soft: SoftChecks,
) -> Result<Moved, MoveError> {
    match mv {
        Move::Failover => {
            let (old_pdx, old_sdx) = (inst.p_node, inst.s_node);
            let old_p = state.node(old_pdx)?;
            let old_s = state.node(old_sdx)?;
            let mut int_p = old_p.clone();
            int_p.remove_pri(inst);
            let mut int_s = old_s.clone();
            int_s.remove_sec(inst);
            old_p.check_migration(old_s)?;
            int_s.add_pri(soft.ignored_if(old_p.offline), inst)?;
            int_p.add_sec(old_p.offline, soft.ignored_if(old_p.offline), inst, old_sdx)?;
            let mut new_inst = inst.clone();
            new_inst.p_node = old_sdx;
            new_inst.s_node = old_pdx;
            let mut nodes = SmallVec::new();
            nodes.push((key(old_sdx), int_s));
            nodes.push((key(old_pdx), int_p));
            Ok(Moved {
                nodes,
                inst: new_inst,
            })
        }
        Move::FailoverToAny(new_pdx) => {
            let old_pdx = inst.p_node;
            let old_pnode = state.node(old_pdx)?;
            let new_pnode = state.node(new_pdx as i32)?;
            let soft_failover = soft.ignored_if(old_pnode.offline);
            old_pnode.check_migration(new_pnode)?;
            let mut new_p = new_pnode.clone();
            new_p.add_pri(soft_failover, inst)?;
            let mut old_p = old_pnode.clone();
            old_p.remove_pri(inst);
            let mut new_inst = inst.clone();
            new_inst.p_node = new_pdx as i32;
            let mut nodes = SmallVec::new();
            nodes.push((new_pdx, new_p));
            nodes.push((key(old_pdx), old_p));
            Ok(Moved {
                nodes,
                inst: new_inst,
            })
        }
        Move::ReplaceSecondary(new_sdx) => {
            let (old_pdx, old_sdx) = (inst.p_node, inst.s_node);
            let old_s = state.node(old_sdx)?;
            let tgt = state.node(new_sdx as i32)?;
            let pnode = state.node(old_pdx)?;
            let mut pnode2 = pnode.clone();
            pnode2.remove_pri(inst);
            let mut int_s = old_s.clone();
            int_s.remove_sec(inst);
            let soft_s = soft.ignored_if(old_s.offline);
            let mut new_inst = inst.clone();
            new_inst.location_score = location_score(pnode, tgt);
            new_inst.s_node = new_sdx as i32;
            let mut new_s = tgt.clone();
            new_s.add_sec(false, soft_s, &new_inst, old_pdx)?;
            pnode2.add_pri(SoftChecks::Ignore, &new_inst)?;
            Ok(Moved {
                nodes: SmallVec::from_iter([
                    (key(old_sdx), int_s),
                    (new_sdx, new_s),
                    (key(old_pdx), pnode2),
                ]),
                inst: new_inst,
            })
        }
        Move::ReplacePrimary(new_pdx) => {
            let DrbdMove {
                old_pdx,
                old_sdx,
                old_p,
                old_s,
                tgt,
                int_p,
                mut int_s,
            } = DrbdMove::new(state, inst, new_pdx)?;
            let mut new_inst = inst.clone();
            new_inst.location_score = location_score(tgt, &int_s);
            new_inst.p_node = new_pdx as i32;
            let soft_p = soft.ignored_if(old_p.offline);
            old_p.check_migration(old_s)?;
            old_s.check_migration(tgt)?;
            // The old secondary must host the instance during the two
            // migrations: added as a primary, then removed again.
            int_s.add_pri(soft_p, &new_inst)?;
            int_s.remove_pri(&new_inst);
            let mut new_p = tgt.clone();
            new_p.add_pri(soft_p, &new_inst)?;
            int_s.add_sec(false, soft_p, &new_inst, new_pdx as i32)?;
            Ok(Moved {
                nodes: SmallVec::from_iter([
                    (key(old_pdx), int_p),
                    (key(old_sdx), int_s),
                    (new_pdx, new_p),
                ]),
                inst: new_inst,
            })
        }
        Move::ReplaceAndFailover(new_pdx) => {
            let DrbdMove {
                old_pdx,
                old_sdx,
                old_p,
                old_s,
                tgt,
                mut int_p,
                int_s,
            } = DrbdMove::new(state, inst, new_pdx)?;
            let mut new_inst = inst.clone();
            new_inst.location_score = location_score(tgt, &int_p);
            new_inst.p_node = new_pdx as i32;
            new_inst.s_node = old_pdx;
            old_p.check_migration(tgt)?;
            let mut new_p = tgt.clone();
            new_p.add_pri(soft, &new_inst)?;
            int_p.add_sec(
                false,
                soft.ignored_if(old_s.offline),
                &new_inst,
                new_pdx as i32,
            )?;
            Ok(Moved {
                nodes: SmallVec::from_iter([
                    (key(old_pdx), int_p),
                    (key(old_sdx), int_s),
                    (new_pdx, new_p),
                ]),
                inst: new_inst,
            })
        }
        Move::FailoverAndReplace(new_sdx) => {
            let DrbdMove {
                old_pdx,
                old_sdx,
                old_p,
                old_s,
                tgt,
                int_p,
                mut int_s,
            } = DrbdMove::new(state, inst, new_sdx)?;
            let soft_p = soft.ignored_if(old_p.offline);
            let mut new_inst = inst.clone();
            new_inst.location_score = location_score(&int_s, tgt);
            new_inst.p_node = old_sdx;
            new_inst.s_node = new_sdx as i32;
            old_p.check_migration(old_s)?;
            int_s.add_pri(soft_p, &new_inst)?;
            let mut new_s = tgt.clone();
            new_s.add_sec(false, soft_p, &new_inst, old_sdx)?;
            Ok(Moved {
                nodes: SmallVec::from_iter([
                    (key(old_sdx), int_s),
                    (key(old_pdx), int_p),
                    (new_sdx, new_s),
                ]),
                inst: new_inst,
            })
        }
    }
}
