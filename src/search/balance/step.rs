//! One balancing step: the best move from the current state by hbal's rule
//! (the first candidate, in hbal's order, with the lowest score, and only
//! if strictly below the current score), without scoring every candidate.
//!
//! A candidate's score is approximated in O(1) from the group's prepared
//! sums with a rigorous error bound ([`ScoreBase::approx_leaving`], which
//! also takes a move off an offline node: those nodes count only in the
//! offline sums; a move other than a failover of an instance on online
//! nodes through [`InstanceCtx::approx_split`], its own nodes' part made
//! once per look at the instance); only the candidates
//! whose interval reaches below the best upper end (the ceiling) are
//! applied and scored exactly as hbal does, in hbal's order, so ties go to
//! the same candidate.
//!
//! Across steps, most candidates are not even approximated again. A step
//! changes two or three nodes; a candidate none of whose nodes changed
//! sees the change only through the group's sums, so each instance's
//! [`Record`] (a lower bound per target node and for its failover) is
//! carried to the next step over the group's [`Drift`]
//! ([`crate::score::spread`]). Each step then
//!
//! 1. for every instance with a record, approximates only its moves to the
//!    changed nodes (and its failover, when one of its own nodes changed:
//!    its record is then carried by [`super::carry`]); then scans in full
//!    the instances whose record could not be carried (the moved one, and
//!    all of them on the first step);
//! 2. lowest bound first, approximates the moves of the other instances to
//!    the targets whose bound still reaches below the ceiling, which only
//!    falls as they are looked at (all of an instance's moves, its record
//!    afresh, when a third of them reach below: carried bounds only
//!    loosen, and a fresh record's stay tight for many steps); in waves of
//!    1, 2, 4, ... up to 64 instances, each wave's targets picked by the
//!    ceiling at its start (one instance at a time when the balancing may
//!    not use threads);
//! 3. scores exactly, in hbal's order, the candidates whose interval
//!    reaches below the final ceiling.
//!
//! Every candidate left out has a score provably above some candidate's,
//! so the winner is hbal's. The two parts of 1. and each wave of 2. run on
//! the available threads ([`crate::threads`]) over contiguous parts of
//! their instances (a wave's of about equal numbers of targets). A look
//! at an instance depends on nothing another part finds (in 2., on the
//! ceiling at its wave's start, and the waves are the same on any number
//! of threads: they depend only on whether the balancing may use threads
//! at all), and the candidates are put back in hbal's order before
//! the exact scoring: the records, the work and the result never depend
//! on the threads.

use smallvec::SmallVec;

use crate::score::argmin::{GroupSums, Terms};
use crate::score::base::ScoreBase;
use crate::score::metric::NodeValues;
use crate::score::spread::Drift;
use crate::search::moves::{self, Move, Moved};
use crate::search::state::State;

use super::candidates::{candidate_moves, rank, Changes, InstanceCtx, OwnParts};
use super::carry::carry;
use super::record::{Record, FAILOVER};
use super::{relocatable, BalanceOptions, Placement};

/// What one step leaves for the next: per instance what is known of its
/// candidates, and the group it was computed on.
pub(super) struct Memo {
    /// By instance key; `None` when the instance must be scanned in full.
    records: Vec<Option<Record>>,
    /// The last step's group.
    prev: Option<ScoreBase>,
    /// The nodes the last accepted move changed, ascending, with their
    /// values before it.
    changed: SmallVec<[(usize, NodeValues); 4]>,
}

impl Memo {
    /// Nothing known yet: the first step scans every instance.
    pub(super) fn new(inst_slots: usize) -> Memo {
        Memo {
            records: vec![None; inst_slots],
            prev: None,
            changed: SmallVec::new(),
        }
    }

    /// Notes the nodes the accepted move changes in `state` (not yet
    /// applied).
    pub(super) fn accepted(&mut self, state: &State, moved: &Moved) {
        let mut keys: SmallVec<[usize; 4]> = moved.final_nodes().iter().map(|(k, _)| *k).collect();
        keys.sort_unstable();
        keys.dedup();
        self.changed = keys.iter().map(|&k| (k, *state.values(k))).collect();
    }
}

/// A candidate left for exact scoring.
#[derive(Debug, Clone, Copy)]
struct Survivor {
    key: usize,
    rank: u64,
    mv: Move,
    /// The approximate score and its error bound; `None` forces the exact
    /// score.
    approx: Option<(f64, f64)>,
}

/// The candidates found so far that may still win, and the lowest upper
/// end of any candidate's interval (or the current score).
struct Found {
    survivors: Vec<Survivor>,
    ceiling: f64,
    /// Keep every candidate (for checks, and for a choice by another
    /// measure than the score: [`rescan`]).
    keep_all: bool,
}

impl Found {
    fn new(ceiling: f64) -> Found {
        Found {
            survivors: Vec::new(),
            ceiling,
            keep_all: false,
        }
    }

    /// Takes in what another scan found.
    fn merge(&mut self, other: Found) {
        self.ceiling = self.ceiling.min(other.ceiling);
        self.survivors.extend(other.survivors);
    }

    fn push(&mut self, s: Survivor) {
        if self.keep_all {
            self.survivors.push(s);
            return;
        }
        if let Some((a, e)) = s.approx {
            if a - e > self.ceiling {
                return;
            }
            self.ceiling = self.ceiling.min(a + e);
        }
        self.survivors.push(s);
        // Drop the survivors the lowered ceiling rules out, keeping the
        // list short.
        if self.survivors.len() > 256 {
            let c = self.ceiling;
            self.survivors
                .retain(|s| s.approx.is_none_or(|(a, e)| a - e <= c));
        }
    }
}

/// Which of an instance's candidates to look at.
#[derive(Debug, Clone, Copy)]
enum Which<'a> {
    /// All of them: what was known is forgotten.
    All,
    /// The moves to these nodes (ascending), and the failover if asked.
    Some {
        targets: &'a [usize],
        failover: bool,
    },
}

/// What a step's scans share.
struct Scan<'s> {
    state: &'s State,
    online: Vec<usize>,
    /// By node key: the node's position in `online`.
    online_pos: Vec<usize>,
    sums: GroupSums,
    terms: Option<Terms>,
    base: Option<ScoreBase>,
    map_value: i64,
    any_location: bool,
    options: &'s BalanceOptions,
    /// The current score.
    ini: f64,
    /// Whether a full scan of an instance makes its [`Record`] (not when
    /// only the candidates' approximations are wanted: [`rescan`]).
    records: bool,
}

impl Scan<'_> {
    /// The record slot of a move.
    fn slot(&self, mv: Move) -> usize {
        match mv.target() {
            None => FAILOVER,
            Some(t) => self.online_pos[t] + 1,
        }
    }

    /// Notes candidate `mv` of instance `k` with its approximate score
    /// (`None`: only the exact score says): the interval's lower end
    /// bounds the move's slot of `record`, and the candidate joins
    /// `found`.
    fn note(
        &self,
        k: usize,
        mv: Move,
        approx: Option<(f64, f64)>,
        record: &mut Option<Record>,
        found: &mut Found,
    ) {
        if let (Some((a, e)), Some(rec)) = (approx, record.as_mut()) {
            rec.cover(self.slot(mv), a - e);
        }
        found.push(Survivor {
            key: k,
            rank: rank(mv),
            mv,
            approx,
        });
    }

    /// Approximates the candidates `which` of instance `k`, adding those
    /// that may win to `found` and noting them in `record`, which becomes
    /// `None` when a candidate cannot be covered.
    fn instance(
        &self,
        k: usize,
        which: Which<'_>,
        record: &mut Option<Record>,
        found: &mut Found,
        moves_buf: &mut Vec<Move>,
    ) {
        let Ok(inst) = self.state.inst(k as i32) else {
            *record = None;
            return;
        };
        let (targets, failover) = match which {
            Which::All => {
                *record = self
                    .base
                    .as_ref()
                    .filter(|_| self.records)
                    .map(|b| Record::new(b, self.ini, self.online.len()));
                (None, true)
            }
            Which::Some { targets, failover } => (Some(targets), failover),
        };
        candidate_moves(
            self.state,
            &self.online,
            inst,
            self.options,
            targets,
            failover,
            moves_buf,
        );
        if let (Which::Some { .. }, Some(rec)) = (which, record.as_mut()) {
            for &mv in moves_buf.iter() {
                rec.clear(self.slot(mv));
            }
        }
        if moves_buf.is_empty() {
            return;
        }
        let kept = record.as_mut().and_then(Record::take_kept);
        let owned = InstanceCtx::new(self.state, inst, self.options.soft, kept);
        let (Some(terms), Some(ctx), false) = (
            self.terms.as_ref(),
            owned.as_ref(),
            self.any_location && !inst.excl_tags.is_empty(),
        ) else {
            // Scored exactly, every step.
            *record = None;
            for &mv in moves_buf.iter() {
                self.note(k, mv, None, record, found);
            }
            return;
        };
        let mut changes = Changes::new();
        let split = self.base.as_ref().filter(|_| ctx.splits(self.state));
        let mut parts = OwnParts::new();
        for &mv in moves_buf.iter() {
            if let (Some(base), false) = (split, mv == Move::Failover) {
                // Only the target probed; the own nodes' part prepared
                // once per value they are left with.
                let approx = match record.as_mut() {
                    Some(rec) => {
                        let sp = rec.spread_mut();
                        let cover = |k, v, ve, d1| sp.cover_component(k, v, ve, d1);
                        ctx.approx_split(self.state, base, mv, &mut changes, &mut parts, cover)
                    }
                    None => {
                        let none = |_, _, _, _| {};
                        ctx.approx_split(self.state, base, mv, &mut changes, &mut parts, none)
                    }
                };
                let approx = match approx {
                    Err(()) => continue,
                    Ok(Some(ae)) => Some(ae),
                    Ok(None) => {
                        *record = None;
                        None
                    }
                };
                self.note(k, mv, approx, record, found);
                continue;
            }
            if ctx.changes(self.state, mv, &mut changes).is_err() {
                continue;
            }
            // The changed online nodes, and the offline ones a move off an
            // offline node changes.
            let mut list: SmallVec<[(&NodeValues, &NodeValues); 3]> = SmallVec::new();
            let mut off: SmallVec<[(&NodeValues, &NodeValues); 2]> = SmallVec::new();
            for (n, v) in &changes {
                if self.state.node_at(*n).offline {
                    off.push((self.state.values(*n), v));
                } else {
                    list.push((self.state.values(*n), v));
                }
            }
            let fast = self.base.as_ref().and_then(|base| match record.as_mut() {
                Some(rec) => {
                    let sp = rec.spread_mut();
                    base.approx_leaving(&list, &off, |k, var, var_err, d1| {
                        sp.cover_component(k, var, var_err, d1)
                    })
                }
                None => base.approx_leaving(&list, &off, |_, _, _, _| {}),
            });
            let approx = match (fast, self.base.is_some()) {
                (Some(ae), _) => Some(ae),
                (None, true) if off.is_empty() => {
                    *record = None;
                    None
                }
                _ => {
                    // No prepared base, or an offline node's value would
                    // grow: the slower general approximation, and the
                    // instance is scanned in full every step.
                    *record = None;
                    let mut list: SmallVec<[(&NodeValues, &NodeValues, bool); 3]> = SmallVec::new();
                    for (n, v) in &changes {
                        list.push((self.state.values(*n), v, self.state.node_at(*n).offline));
                    }
                    self.sums.approx_replacing(terms, &list, self.map_value)
                }
            };
            self.note(k, mv, approx, record, found);
        }
        if let (Some(rec), Some(ctx)) = (record.as_mut(), owned) {
            rec.keep(ctx.into_kept());
        }
    }

    /// Looks at the candidates `look` names of its instance (a step's
    /// second part).
    fn look(&self, look: &mut Look, found: &mut Found, moves_buf: &mut Vec<Move>) {
        let which = if look.all {
            Which::All
        } else {
            Which::Some {
                targets: &look.targets,
                failover: look.failover,
            }
        };
        self.instance(look.key, which, &mut look.record, found, moves_buf);
    }

    /// The first part of a step over the instances `keys`, whose records
    /// are `records` (indexed by key minus `offset`): the moves to the
    /// `changed` nodes of the instances with a usable record. Returns what
    /// was found, those instances with their record's lower bound, and the
    /// instances to scan in full.
    fn first_pass(
        &self,
        keys: &[usize],
        records: &mut [Option<Record>],
        offset: usize,
        changed: &[usize],
        before: &[(usize, NodeValues)],
        drift: Option<&Drift>,
    ) -> (Found, Vec<(f64, usize)>, Vec<usize>) {
        let mut found = Found::new(self.ini);
        let mut partial = Vec::new();
        let mut full = Vec::new();
        let mut moves_buf = Vec::new();
        for &k in keys {
            let slot = &mut records[k - offset];
            let inst = self.state.inst(k as i32).ok();
            let touched = inst.is_some_and(|inst| {
                inst.all_nodes()
                    .iter()
                    .any(|&n| n >= 0 && changed.binary_search(&(n as usize)).is_ok())
            });
            let usable = match (drift, slot.as_mut(), inst, self.base.as_ref()) {
                (Some(d), Some(rec), _, _) if !touched => {
                    rec.rebase(d);
                    true
                }
                (Some(d), Some(rec), Some(inst), Some(now)) => {
                    carry(self.state, inst, self.options.soft, rec, d, now, before)
                }
                _ => false,
            };
            if usable {
                // An instance whose own node changed has its failover
                // looked at again (it touches only those nodes).
                let which = Which::Some {
                    targets: changed,
                    failover: touched,
                };
                self.instance(k, which, slot, &mut found, &mut moves_buf);
                if let Some(rec) = slot.as_mut() {
                    partial.push((rec.lower_bound(), k));
                    continue;
                }
            }
            full.push(k);
        }
        (found, partial, full)
    }

    /// Full scans of the instances `keys` (records indexed as in
    /// [`Scan::first_pass`]).
    fn full_pass(&self, keys: &[usize], records: &mut [Option<Record>], offset: usize) -> Found {
        let mut found = Found::new(self.ini);
        let mut moves_buf = Vec::new();
        for &k in keys {
            self.instance(
                k,
                Which::All,
                &mut records[k - offset],
                &mut found,
                &mut moves_buf,
            );
        }
        found
    }
}

/// Runs `work` over the instances `keys` (ascending) and their records,
/// in contiguous parts on up to `threads` threads, each part at least
/// `min_len / 2` instances (fewer are not worth a thread); the results
/// come in key order.
fn in_parts<T: Send>(
    keys: &[usize],
    records: &mut [Option<Record>],
    threads: usize,
    min_len: usize,
    work: impl Fn(&[usize], &mut [Option<Record>], usize) -> T + Sync,
) -> Vec<T> {
    let parts = threads.min(2 * keys.len() / min_len.max(2)).max(1);
    if parts == 1 {
        return vec![work(keys, records, 0)];
    }
    let work = &work;
    let chunks: Vec<&[usize]> = keys.chunks(keys.len().div_ceil(parts)).collect();
    // Part i owns the records from its first key to the next part's.
    let mut rest = records;
    let mut offset = 0;
    let mut mine = Vec::with_capacity(chunks.len());
    for (i, ks) in chunks.iter().enumerate() {
        let end = chunks.get(i + 1).map_or(offset + rest.len(), |c| c[0]);
        let (rs, tail) = std::mem::take(&mut rest).split_at_mut(end - offset);
        mine.push((*ks, rs, offset));
        rest = tail;
        offset = end;
    }
    on_threads(mine, |(ks, rs, off)| work(ks, rs, off))
}

/// Runs `work` on each of `parts`, the first on this thread and each other
/// on a thread of its own; the results come in the parts' order.
fn on_threads<P: Send, T: Send>(parts: Vec<P>, work: impl Fn(P) -> T + Sync) -> Vec<T> {
    let work = &work;
    let mut parts = parts.into_iter();
    let Some(first) = parts.next() else {
        return Vec::new();
    };
    if parts.len() == 0 {
        return vec![work(first)];
    }
    std::thread::scope(|sc| {
        let handles: Vec<_> = parts.map(|p| sc.spawn(move || work(p))).collect();
        let mut out = Vec::with_capacity(handles.len() + 1);
        out.push(work(first));
        for h in handles {
            match h.join() {
                Ok(p) => out.push(p),
                Err(e) => std::panic::resume_unwind(e),
            }
        }
        out
    })
}

/// One instance of a wave of a step's second part: its record (taken out
/// of the step's while the wave runs) and the candidates to look at.
struct Look {
    key: usize,
    record: Option<Record>,
    targets: Vec<usize>,
    failover: bool,
    /// Every candidate, its record afresh.
    all: bool,
}

impl Look {
    /// About how many candidates the look approximates, in targets.
    fn cost(&self, n_online: usize) -> usize {
        if self.all {
            n_online + 1
        } else {
            self.targets.len() + usize::from(self.failover)
        }
    }
}

/// `looks`, whose costs sum to `cost`, in `parts` contiguous parts of
/// about equal cost.
fn split_by_cost(
    looks: &mut [Look],
    parts: usize,
    cost: usize,
    n_online: usize,
) -> Vec<&mut [Look]> {
    let mut split = Vec::with_capacity(parts);
    let mut rest = looks;
    let mut left = cost;
    for p in (1..=parts).rev() {
        let share = left.div_ceil(p);
        let mut n = 0;
        let mut c = 0;
        while n < rest.len() && (c < share || p == 1) {
            c += rest[n].cost(n_online);
            n += 1;
        }
        let (part, tail) = std::mem::take(&mut rest).split_at_mut(n);
        split.push(part);
        rest = tail;
        left -= c;
    }
    split
}

/// The most instances one wave of a step's second part looks at.
const WAVE_MAX: usize = 64;

/// About how many targets' candidates are worth a thread of their own in a
/// wave.
const WAVE_PART: usize = 256;

#[cfg(debug_assertions)]
impl Scan<'_> {
    /// Checks the carried bounds against every candidate scanned afresh:
    /// a candidate's true score is at most its upper end, and never below
    /// its slot's bound.
    fn verify_records(&self, partial: &[(f64, usize)], records: &[Option<Record>]) {
        let mut moves_buf = Vec::new();
        for &(_, k) in partial {
            let Some(rec) = records[k].as_ref() else {
                continue;
            };
            let mut fresh = None;
            let mut found = Found::new(f64::INFINITY);
            found.keep_all = true;
            self.instance(k, Which::All, &mut fresh, &mut found, &mut moves_buf);
            for s in &found.survivors {
                if let Some((a, e)) = s.approx {
                    let bound = rec.slot_bound(self.slot(s.mv));
                    assert!(
                        a + e >= bound,
                        "instance {k}, {:?}: score at most {} but carried bound {bound}",
                        s.mv,
                        a + e
                    );
                }
            }
        }
    }
}

impl<'s> Scan<'s> {
    /// What a step's scans of `state` share; `ini` is the current score.
    fn new(state: &'s State, options: &'s BalanceOptions, ini: f64) -> Scan<'s> {
        let online: Vec<usize> = state
            .node_keys()
            .filter(|&k| !state.node_at(k).offline)
            .collect();
        let sums = state.present_sums();
        let stats = state.cluster_stats();
        let map_value = stats.map_value_after(&[]);
        let terms = sums.terms(map_value);
        let base = sums.base(map_value);
        let any_location = state.any_location_tags(state.node_keys());
        let mut online_pos = vec![usize::MAX; online.last().map_or(0, |&k| k + 1)];
        for (i, &k) in online.iter().enumerate() {
            online_pos[k] = i;
        }
        Scan {
            state,
            online,
            online_pos,
            sums,
            terms,
            base,
            map_value,
            any_location,
            options,
            ini,
            records: true,
        }
    }
}

/// How many instances a full [`rescan`] approximates at a time: what one
/// round holds is bounded by this many instances' candidates, whatever
/// the cluster's size.
const RESCAN_ROUND: usize = 128;

/// Candidate moves of the current state (hbal's `possibleMoves` of each
/// instance a step considers, those a check refuses left out), each given
/// to `sink` once, in hbal's order (by instance key, then as
/// [`candidate_moves`] makes them; whatever the threads): the instance's
/// key, the move, and its approximate score with the approximation's
/// error bound (`None`: only the exact score, [`moves::apply`] and
/// [`State::score_with`], says). With `changed` (ascending node keys) only those a change of
/// these nodes may change: every move of an instance on one of them, and
/// the other instances' moves to them; without it, every candidate, the
/// instances a round at a time (each round split over the threads), so
/// that nothing holds every candidate at once.
pub(super) fn rescan(
    state: &State,
    movable: &[bool],
    options: &BalanceOptions,
    changed: Option<&[usize]>,
    mut sink: impl FnMut(usize, Move, Option<(f64, f64)>),
) {
    let keys = relocatable(state, movable, options);
    let mut scan = Scan::new(state, options, f64::INFINITY);
    scan.records = false;
    let scan = scan;
    let mut records: Vec<Option<Record>> = vec![None; state.inst_slots()];
    let threads = if options.threads {
        crate::threads::available()
    } else {
        1
    };
    let round = if changed.is_some() {
        keys.len().max(1)
    } else {
        RESCAN_ROUND
    };
    for round in keys.chunks(round) {
        for found in in_parts(round, &mut records, threads, 16, |ks, rs, off| {
            let mut found = Found::new(f64::INFINITY);
            found.keep_all = true;
            let mut moves_buf = Vec::new();
            for &k in ks {
                let which = match changed {
                    None => Which::All,
                    Some(c) => {
                        let touched = state.inst(k as i32).is_ok_and(|inst| {
                            inst.all_nodes()
                                .iter()
                                .any(|&n| n >= 0 && c.binary_search(&(n as usize)).is_ok())
                        });
                        if touched {
                            Which::All
                        } else {
                            Which::Some {
                                targets: c,
                                failover: false,
                            }
                        }
                    }
                };
                scan.instance(k, which, &mut rs[k - off], &mut found, &mut moves_buf);
            }
            found
        }) {
            for s in found.survivors {
                sink(s.key, s.mv, s.approx);
            }
        }
    }
}

/// The best step from the current state, if any candidate scores strictly
/// below `ini`: the placement and the move to commit.
pub(super) fn best_step(
    state: &State,
    movable: &[bool],
    options: &BalanceOptions,
    ini: f64,
    memo: &mut Memo,
) -> Option<(Placement, Moved)> {
    let keys = relocatable(state, movable, options);
    let scan = Scan::new(state, options, ini);
    let drift = match (&memo.prev, &scan.base) {
        (Some(prev), Some(now)) => Drift::between(prev, now),
        _ => None,
    };
    // Records of instances not considered now go stale.
    let mut records = std::mem::take(&mut memo.records);
    records.resize(state.inst_slots(), None);
    let mut next = 0;
    for &k in &keys {
        records[next..k].iter_mut().for_each(|r| *r = None);
        next = k + 1;
    }
    records[next..].iter_mut().for_each(|r| *r = None);
    let before = memo.changed.clone();
    let changed: SmallVec<[usize; 4]> = before.iter().map(|(k, _)| *k).collect();
    let d = drift.as_ref();
    // 1. The moves to the changed nodes of the instances with a usable
    // record, then full scans of the others (each split evenly over the
    // threads).
    let mut found = Found::new(ini);
    let mut partial = Vec::new();
    let mut full = Vec::new();
    // A first pass over an instance costs a few candidates, a full scan
    // thousands: the thresholds for a second thread differ.
    // Without threads, no scan is split.
    let threads = if options.threads {
        crate::threads::available()
    } else {
        1
    };
    let first = in_parts(&keys, &mut records, threads, 64, |ks, rs, off| {
        scan.first_pass(ks, rs, off, &changed, &before, d)
    });
    for (f, p, u) in first {
        found.merge(f);
        partial.extend(p);
        full.extend(u);
    }
    for f in in_parts(&full, &mut records, threads, 2, |ks, rs, off| {
        scan.full_pass(ks, rs, off)
    }) {
        found.merge(f);
    }
    #[cfg(debug_assertions)]
    scan.verify_records(&partial, &records);
    // 2. The candidates of those instances whose bound reaches below the
    // ceiling, lowest bound first. The margin covers the rounding of the
    // bounds themselves, far below any difference between moves.
    let margin = 1e-9 * (ini.abs() + 1.0);
    // (Their lower bounds were taken in the first pass, on the threads;
    // the ceiling only falls, so those above it now are never looked at.)
    let mut order: Vec<(f64, usize)> = partial;
    order.retain(|(lb, _)| lb.is_finite() && lb - margin <= found.ceiling);
    order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    // In waves of 1, 2, 4, ... instances, each wave's candidates picked by
    // the ceiling at its start and its instances looked at on the threads
    // (the same waves whatever the threads: the records do not depend on
    // them).
    let mut pos = 0;
    let mut wave = 1;
    // A balancing that may not use threads (each of the squeeze's trials,
    // themselves run side by side) looks at one instance at a time, each
    // against the ceiling the ones before it left.
    let wave_max = if options.threads { WAVE_MAX } else { 1 };
    let n_online = scan.online.len();
    let mut looks: Vec<Look> = Vec::new();
    // The target lists of the last wave, to fill again.
    let mut spare: Vec<Vec<usize>> = Vec::new();
    let mut moves_buf = Vec::new();
    while pos < order.len() {
        let ceiling = found.ceiling;
        while looks.len() < wave {
            let Some(&(lb, k)) = order.get(pos) else {
                break;
            };
            if lb - margin > ceiling {
                pos = order.len();
                break;
            }
            pos += 1;
            let Some(rec) = records[k].as_ref() else {
                continue;
            };
            let mut failover = false;
            let mut targets = spare.pop().unwrap_or_default();
            targets.clear();
            for slot in rec.slots_up_to(ceiling + margin) {
                if slot == FAILOVER {
                    failover = true;
                } else {
                    targets.push(scan.online[slot - 1]);
                }
            }
            // Carried bounds only loosen: an instance that lets a third of
            // its candidates through is scanned in full, its record afresh.
            let looked = targets.len() + usize::from(failover);
            let all = 3 * looked > n_online + 1;
            looks.push(Look {
                key: k,
                record: records[k].take(),
                targets,
                failover,
                all,
            });
        }
        if looks.is_empty() {
            break;
        }
        wave = (2 * wave).min(wave_max);
        let cost: usize = looks.iter().map(|l| l.cost(n_online)).sum();
        let parts = threads.min(cost / WAVE_PART).max(1);
        if parts == 1 {
            for look in &mut looks {
                scan.look(look, &mut found, &mut moves_buf);
            }
        } else {
            let split = split_by_cost(&mut looks, parts, cost, n_online);
            for f in on_threads(split, |part| {
                let mut found = Found::new(ceiling);
                let mut moves_buf = Vec::new();
                for look in part {
                    scan.look(look, &mut found, &mut moves_buf);
                }
                found
            }) {
                found.merge(f);
            }
        }
        for look in looks.drain(..) {
            records[look.key] = look.record;
            spare.push(look.targets);
        }
    }
    memo.records = records;
    memo.prev = scan.base;
    // 3. Exact scores of the survivors, in hbal's order.
    let ceiling = found.ceiling;
    let mut survivors = found.survivors;
    survivors.retain(|s| s.approx.is_none_or(|(a, e)| a - e <= ceiling));
    survivors.sort_by_key(|s| (s.key, s.rank));
    survivors.dedup_by_key(|s| (s.key, s.rank));
    let mut best: Option<(Placement, Moved)> = None;
    for s in survivors {
        let Ok(inst) = state.inst(s.key as i32) else {
            continue;
        };
        let Ok(moved) = moves::apply(state, inst, s.mv, options.soft) else {
            continue;
        };
        let score = state.score_with(&moved.final_nodes());
        let bound = best.as_ref().map_or(ini, |(b, _)| b.score);
        if score < bound {
            let placement = Placement {
                inst: s.key,
                old_nodes: (inst.p_node, inst.s_node),
                new_nodes: (moved.inst.p_node, moved.inst.s_node),
                mv: s.mv,
                score,
            };
            best = Some((placement, moved));
        }
    }
    best
}
