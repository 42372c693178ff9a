//! The balancing engine (`Cluster.tryBalance` and hbal's `iterateDepth`):
//! one group's instances are moved, one move per step, while a move
//! lowers the cluster score enough.
//!
//! Each step considers, for every movable instance in index order, a
//! failover first and then, for every online node of the group in
//! ascending order, the moves hbal's `possibleMoves` allows; the winner is
//! the first candidate with the lowest score, and only if it is strictly
//! below the current score. hbal computes the full score of the group for
//! every candidate; here a candidate costs O(1):
//!
//! * The instance's removal from its nodes is computed once per instance;
//!   each target is then a probe on one node (no copy of a node), whose
//!   metric values replace the node's in the group's running sums
//!   ([`GroupSums`]), giving the candidate's approximate score and a
//!   rigorous bound on its distance to hbal's floating-point score.
//! * Candidates whose interval lies above the best upper end (or above
//!   the current score) cannot win and are dropped at once; the few left
//!   are applied for real and scored exactly as hbal does, in candidate
//!   order, so ties go to the same candidate as in hbal.
//!
//! The instances are split into two halves scored on two threads; the
//! survivors are merged in candidate order, so the result never depends
//! on the threads.

use smallvec::SmallVec;

use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::model::types::{MirrorType, SoftChecks};
use crate::score::argmin::{GroupSums, Terms};
use crate::score::metric::{self, NodeValues};
use crate::search::moves::{self, location_score, Move, Moved};
use crate::search::state::State;

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

/// A candidate left for exact scoring: instance key and move.
type Survivor = (usize, Move);

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
    loop {
        let allowed = (options.max_length < 0 || (steps.len() as i64) < options.max_length)
            && score > options.stop_score;
        if !allowed {
            break;
        }
        let Some((placement, moved)) = best_step(state, movable, options, score) else {
            break;
        };
        let fin = placement.score;
        let gain_ok =
            fin < score && (score > options.min_gain_limit || score - fin >= options.min_gain);
        if !gain_ok {
            break;
        }
        on_step(state, &placement);
        moved.commit(state, placement.inst);
        state.commit();
        score = fin;
        steps.push(placement);
    }
    steps
}

/// The candidate moves of one instance (`checkInstanceMove`), in hbal's
/// order; the failover first.
fn candidate_moves(
    state: &State,
    online: &[usize],
    inst: &Instance,
    options: &BalanceOptions,
    out: &mut Vec<Move>,
) {
    out.clear();
    let (p, s) = (inst.p_node, inst.s_node);
    let mir = inst.mirror_type();
    let use_sec = s >= 0 && online.binary_search(&(s as usize)).is_ok() && options.inst_moves;
    if mir == MirrorType::Internal && use_sec {
        out.push(Move::Failover);
    }
    let pri_off = state.node(p).map(|n| n.offline).unwrap_or(false);
    let rest = options.restricted_migration;
    for &t in online {
        if t as i32 == p || t as i32 == s {
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

/// What a step's scan shares: the group's sums and terms, the map value.
struct Scan<'s> {
    state: &'s State,
    online: Vec<usize>,
    sums: GroupSums,
    terms: Option<Terms>,
    map_value: i64,
    any_location: bool,
    options: &'s BalanceOptions,
}

/// The survivors of one slice of instances and the lowest upper end seen.
struct Partial {
    survivors: Vec<(Survivor, Option<(f64, f64)>)>,
    ceiling: f64,
}

impl Scan<'_> {
    /// Approximates every candidate of the instances `keys`, keeping those
    /// that may still win.
    fn scan(&self, keys: &[usize], ini: f64) -> Partial {
        let mut part = Partial {
            survivors: Vec::new(),
            ceiling: ini,
        };
        let mut moves_buf = Vec::new();
        for &k in keys {
            let Ok(inst) = self.state.inst(k as i32) else {
                continue;
            };
            candidate_moves(self.state, &self.online, inst, self.options, &mut moves_buf);
            if moves_buf.is_empty() {
                continue;
            }
            let ctx = InstanceCtx::new(self.state, inst, self.options.soft);
            let exact_only = self.terms.is_none()
                || ctx.is_none()
                || (self.any_location && !inst.excl_tags.is_empty());
            for &mv in &moves_buf {
                let approx = if exact_only {
                    None
                } else {
                    let ctx = ctx.as_ref().expect("checked above");
                    match ctx.changes(self.state, mv) {
                        Err(()) => continue,
                        Ok(changes) => self.approx(&changes),
                    }
                };
                match approx {
                    Some((a, e)) => {
                        if a - e > part.ceiling {
                            continue;
                        }
                        part.ceiling = part.ceiling.min(a + e);
                        part.survivors.push(((k, mv), Some((a, e))));
                    }
                    None => part.survivors.push(((k, mv), None)),
                }
            }
            // Drop survivors the lowered ceiling rules out, keeping the
            // list short.
            if part.survivors.len() > 64 {
                let c = part.ceiling;
                part.survivors
                    .retain(|(_, ap)| ap.is_none_or(|(a, e)| a - e <= c));
            }
        }
        part
    }

    /// The approximate score with some nodes' values replaced.
    fn approx(&self, changes: &[(usize, NodeValues)]) -> Option<(f64, f64)> {
        let sums = &self.sums;
        let mut list: SmallVec<[(&NodeValues, &NodeValues, bool); 3]> = SmallVec::new();
        for (k, v) in changes {
            list.push((self.state.values(*k), v, self.state.node_at(*k).offline));
        }
        sums.approx_replacing(self.terms.as_ref()?, &list, self.map_value)
    }
}

/// The best step from the current state, if any candidate scores strictly
/// below `ini`: the placement and the move to commit.
fn best_step(
    state: &State,
    movable: &[bool],
    options: &BalanceOptions,
    ini: f64,
) -> Option<(Placement, Moved)> {
    let keys = relocatable(state, movable, options);
    if keys.is_empty() {
        return None;
    }
    let online: Vec<usize> = state
        .node_keys()
        .filter(|&k| !state.node_at(k).offline)
        .collect();
    let sums = state.present_sums();
    let stats = state.cluster_stats();
    let map_value = stats.map_value_after(&[]);
    let terms = sums.terms(map_value);
    let any_location = state
        .node_keys()
        .any(|k| !state.node_at(k).info.location_tags.is_empty());
    let scan = Scan {
        state,
        online,
        sums,
        terms,
        map_value,
        any_location,
        options,
    };
    let parts: Vec<Partial> = if keys.len() >= 64 {
        let (a, b) = keys.split_at(keys.len() / 2);
        std::thread::scope(|sc| {
            let h = sc.spawn(|| scan.scan(b, ini));
            let first = scan.scan(a, ini);
            let second = match h.join() {
                Ok(p) => p,
                Err(e) => std::panic::resume_unwind(e),
            };
            vec![first, second]
        })
    } else {
        vec![scan.scan(&keys, ini)]
    };
    let ceiling = parts.iter().map(|p| p.ceiling).fold(ini, f64::min);
    let mut best: Option<(Placement, Moved)> = None;
    for ((k, mv), ap) in parts.into_iter().flat_map(|p| p.survivors) {
        if let Some((a, e)) = ap {
            if a - e > ceiling {
                continue;
            }
        }
        let Ok(inst) = state.inst(k as i32) else {
            continue;
        };
        let Ok(moved) = moves::apply(state, inst, mv, options.soft) else {
            continue;
        };
        let s = state.score_with(&moved.final_nodes());
        let bound = best.as_ref().map_or(ini, |(b, _)| b.score);
        if s < bound {
            let placement = Placement {
                inst: k,
                old_nodes: (inst.p_node, inst.s_node),
                new_nodes: (moved.inst.p_node, moved.inst.s_node),
                mv,
                score: s,
            };
            best = Some((placement, moved));
        }
    }
    best
}

/// One instance's removal from its nodes, computed once for all its
/// candidates.
struct InstanceCtx {
    inst: Instance,
    p: usize,
    s: Option<usize>,
    int_p: Node,
    int_p_values: NodeValues,
    int_s: Option<(Node, NodeValues)>,
    soft_p: SoftChecks,
    soft_s: SoftChecks,
    soft: SoftChecks,
    /// The moved instance's record, rewritten for each candidate (its
    /// location score and nodes) instead of copied.
    ni: std::cell::RefCell<Instance>,
    /// The old secondary after hosting and releasing the instance as a
    /// primary (`ReplacePrimary`), by the instance's location score.
    tmp_s: std::cell::RefCell<TmpSecondaries>,
}

type Changes = SmallVec<[(usize, NodeValues); 3]>;

/// The old secondary after hosting and releasing the instance, by location
/// score (`None` when it cannot host it).
type TmpSecondaries = SmallVec<[(i64, Option<Node>); 2]>;

fn values_of(s: &crate::model::node::Scalars) -> NodeValues {
    metric::node_values(s)
}

impl InstanceCtx {
    fn new(state: &State, inst: &Instance, soft: SoftChecks) -> Option<InstanceCtx> {
        let p = usize::try_from(inst.p_node).ok()?;
        let pn = state.node(inst.p_node).ok()?;
        let mut int_p = pn.clone();
        int_p.remove_pri(inst);
        let int_p_values = values_of(&int_p.scalars());
        let (s, int_s, soft_s) = if inst.s_node >= 0 {
            let sn = state.node(inst.s_node).ok()?;
            let mut int_s = sn.clone();
            int_s.remove_sec(inst);
            let v = values_of(&int_s.scalars());
            (
                Some(inst.s_node as usize),
                Some((int_s, v)),
                soft.ignored_if(sn.offline),
            )
        } else {
            (None, None, soft)
        };
        Some(InstanceCtx {
            inst: inst.clone(),
            p,
            s,
            int_p,
            int_p_values,
            int_s,
            soft_p: soft.ignored_if(pn.offline),
            soft_s,
            soft,
            ni: std::cell::RefCell::new(inst.clone()),
            tmp_s: std::cell::RefCell::new(SmallVec::new()),
        })
    }

    /// The nodes a move changes and their new metric values, or `Err` when
    /// the move fails (the same checks as [`moves::apply`]).
    fn changes(&self, state: &State, mv: Move) -> Result<Changes, ()> {
        let inst = &self.inst;
        let mut ni_cell = self.ni.borrow_mut();
        let ni = &mut *ni_cell;
        ni.p_node = inst.p_node;
        ni.s_node = inst.s_node;
        let pn = state.node_at(self.p);
        let mut out = Changes::new();
        match mv {
            Move::Failover => {
                let m = moves::apply(state, inst, mv, self.soft).map_err(|_| ())?;
                for (k, n) in m.final_nodes() {
                    out.push((k, values_of(&n.scalars())));
                }
            }
            Move::FailoverToAny(t) => {
                let tn = state.node_at(t);
                pn.check_migration(tn).map_err(|_| ())?;
                let pr = tn.probe_add_pri(self.soft_p, inst).map_err(|_| ())?;
                out.push((self.p, self.int_p_values));
                out.push((t, values_of(&tn.scalars_with_pri(&pr))));
            }
            Move::ReplaceSecondary(t) => {
                let (s, (_, int_s_values)) = (self.s.ok_or(())?, self.int_s.as_ref().ok_or(())?);
                let tn = state.node_at(t);
                ni.location_score = location_score(pn, tn);
                ni.s_node = t as i32;
                let ps = tn
                    .probe_add_sec(false, self.soft_s, &*ni, inst.p_node)
                    .map_err(|_| ())?;
                let pp = self
                    .int_p
                    .probe_add_pri(SoftChecks::Ignore, &*ni)
                    .map_err(|_| ())?;
                out.push((s, *int_s_values));
                out.push((t, values_of(&tn.scalars_with_sec(&ps))));
                out.push((self.p, values_of(&self.int_p.scalars_with_pri(&pp))));
            }
            Move::ReplaceAndFailover(t) => {
                let (s, (_, int_s_values)) = (self.s.ok_or(())?, self.int_s.as_ref().ok_or(())?);
                let tn = state.node_at(t);
                pn.check_migration(tn).map_err(|_| ())?;
                ni.location_score = location_score(tn, &self.int_p);
                ni.p_node = t as i32;
                ni.s_node = inst.p_node;
                let pt = tn.probe_add_pri(self.soft, &*ni).map_err(|_| ())?;
                let pp = self
                    .int_p
                    .probe_add_sec(false, self.soft_s, &*ni, t as i32)
                    .map_err(|_| ())?;
                out.push((self.p, values_of(&self.int_p.scalars_with_sec(&pp))));
                out.push((s, *int_s_values));
                out.push((t, values_of(&tn.scalars_with_pri(&pt))));
            }
            Move::ReplacePrimary(t) => {
                let s = self.s.ok_or(())?;
                let (int_s, _) = self.int_s.as_ref().ok_or(())?;
                let sn = state.node_at(s);
                let tn = state.node_at(t);
                pn.check_migration(sn).map_err(|_| ())?;
                sn.check_migration(tn).map_err(|_| ())?;
                ni.location_score = location_score(tn, int_s);
                ni.p_node = t as i32;
                let pt = tn.probe_add_pri(self.soft_p, &*ni).map_err(|_| ())?;
                let mut cache = self.tmp_s.borrow_mut();
                let pos = match cache.iter().position(|(l, _)| *l == ni.location_score) {
                    Some(pos) => pos,
                    None => {
                        let mut tmp = int_s.clone();
                        let ok = tmp.add_pri(self.soft_p, &*ni).is_ok();
                        if ok {
                            tmp.remove_pri(&*ni);
                        }
                        cache.push((ni.location_score, ok.then_some(tmp)));
                        cache.len() - 1
                    }
                };
                let tmp = cache[pos].1.as_ref().ok_or(())?;
                let ps = tmp
                    .probe_add_sec(false, self.soft_p, &*ni, t as i32)
                    .map_err(|_| ())?;
                out.push((self.p, self.int_p_values));
                out.push((s, values_of(&tmp.scalars_with_sec(&ps))));
                out.push((t, values_of(&tn.scalars_with_pri(&pt))));
            }
            Move::FailoverAndReplace(t) => {
                let s = self.s.ok_or(())?;
                let (int_s, _) = self.int_s.as_ref().ok_or(())?;
                let sn = state.node_at(s);
                let tn = state.node_at(t);
                pn.check_migration(sn).map_err(|_| ())?;
                ni.location_score = location_score(int_s, tn);
                ni.p_node = s as i32;
                ni.s_node = t as i32;
                let ps = int_s.probe_add_pri(self.soft_p, &*ni).map_err(|_| ())?;
                let pt = tn
                    .probe_add_sec(false, self.soft_p, &*ni, s as i32)
                    .map_err(|_| ())?;
                out.push((s, values_of(&int_s.scalars_with_pri(&ps))));
                out.push((self.p, self.int_p_values));
                out.push((t, values_of(&tn.scalars_with_sec(&pt))));
            }
        }
        Ok(out)
    }
}
