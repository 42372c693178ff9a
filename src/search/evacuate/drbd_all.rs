//! A drbd instance's new primary and secondary (`nodeEvacInstance …
//! ChangeAll`: node-evacuate "all", and a group change's move into its
//! target group): every ordered pair of available nodes tried with hail's
//! moves ([`evac_drbd_all`]). The moves that depend only on the new
//! primary are made once per primary ([`primary_steps`], [`LastMove`]);
//! each pair is approximated in O(1) by `argmin` ([`pair_approx`]), a row
//! that cannot win is skipped by its bound ([`RowPruning`],
//! `score::rowbound`; a group change's likely primary is scanned early,
//! so that the bound cuts from early on), a large group is scanned on
//! several threads ([`PairScan`]), and the winner is settled among
//! near-ties by hail's full score.

use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::model::types::SoftChecks;
use crate::score::argmin::{self, GroupSums};
use crate::score::metric::{self, NodeValues};
use crate::score::rowbound;
use crate::search::allocate::{scan_threads, PARALLEL_PAIRS};
use crate::search::moves::location_score;
use crate::search::moves::{Move, Nodes, Overlay};
use crate::search::state::{Crash, State};

use super::{apply, shortcut_sums, Job, MoveKind, MoveNote, Notes, Target, TargetOutcome};

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
///
/// `likely`, a primary likely to win (a group change's: the primary of the
/// placement that chose the group), has its row scanned right after the
/// first pair that fits (hail's failure message is then settled), so that
/// the rows that cannot win are skipped from early on; the winner does
/// not depend on the order, the candidates being taken in scan order.
#[allow(clippy::too_many_arguments)]
pub(super) fn evac_drbd_all(
    state: &mut State,
    inst: &Instance,
    group: usize,
    avail: &[usize],
    soft: SoftChecks,
    notes: Notes<'_>,
    one_thread: bool,
    likely: Option<usize>,
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
        likely: likely.filter(|p| avail.contains(p)),
    };
    let mut exhaustive = base_sums.is_none();
    let (best, note, last_error) = loop {
        let mut note = note_template.clone();
        let run = if note.is_some() || one_thread || avail.len() * avail.len() < PARALLEL_PAIRS {
            scan.run(avail, exhaustive, note.as_mut().map(|n| &mut n.targets))?
        } else {
            scan.parallel(exhaustive)?
        };
        let (mut survivors, last_error) = (run.survivors, run.last_error);
        // The likely primary's row came early: the candidates in scan
        // order again, for hail's tie rule.
        if scan.likely.is_some() {
            let mut position = vec![usize::MAX; avail.iter().max().map_or(0, |m| m + 1)];
            for (i, &k) in avail.iter().enumerate() {
                position[k] = i;
            }
            // A row's candidates are in order: by their primary's turn.
            survivors.sort_kept_by_key(|&(p, _)| position.get(p).copied());
        }
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
    /// A primary of `avail` likely to win, scanned early ([`evac_drbd_all`]).
    likely: Option<usize>,
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
        base_p: &crate::score::base::ScoreBase,
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
        base_p: &crate::score::base::ScoreBase,
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
        // The likely primary's row (without notes), once a pair fits,
        // unless its turn came before: it then comes out of its turn.
        let mut pending = self.likely.filter(|l| targets.is_none() && run.contains(l));
        let mut early = None;
        let mut next = 0;
        loop {
            let p = match pending {
                Some(l) if any_success => {
                    pending = None;
                    early = Some(l);
                    l
                }
                _ => {
                    let Some(&p) = run.get(next) else {
                        break;
                    };
                    next += 1;
                    if early == Some(p) {
                        continue;
                    }
                    if pending == Some(p) {
                        pending = None;
                    }
                    p
                }
            };
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
    base_p: &crate::score::base::ScoreBase,
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
