//! The tiered count (`tieredAlloc`, `sufficesShrinking`): the instance
//! placed as long as it fits, then shrunk by the resource that failed
//! most, on as long as that places more; otherwise shrunk by the first
//! resource, most failed first, whose shrinking alone lets one fit.
//!
//! hspace recurses once per unit the instance shrinks (a policy's
//! maximum of 2 TiB of memory is 33 million levels, each a search); the
//! count here is a loop over a stack of the levels waiting for a smaller
//! instance's count, and it skips the sizes every node refuses the same
//! way ([`super::steady`]): where hspace takes a level per unit, it
//! takes one for the run of sizes, and gives the same answer.
//!
//! Why skipping a run is exact. A level whose instance every node
//! refuses places nothing and counts the same failures as the level
//! above, so it shrinks by the same resource to the next size, with the
//! limit less the count so far (hspace takes the whole count off each
//! level's limit). So the run's levels go down to its smallest size
//! (`J`, counted for real; never past a level the limit stops). If `J`'s
//! count places more, that is every level's answer above it. If not,
//! each level of the run goes on from the same state with its big step
//! (`sufficesShrinking` from its own size, by each resource), and the
//! level above the run rolls back whatever they did unless one places
//! more. None does when `J`'s big step found nothing by walks that met
//! only refusals of every node ([`steady::refused_by_all`]): by the
//! run's own resource a walk from a larger size goes through `J`'s, and
//! by another resource it meets only sizes that `J`'s walk met, larger
//! in the run's resource, which are refused ([`super::steady`]'s
//! monotony). Nor does one when `J`'s big step found an instance by the
//! run's own resource (each level then counts that same instance again,
//! with the same limit when there is none or nothing was counted yet).
//! Nor does one when no search tells the run's sizes apart at all
//! ([`steady::Run::everywhere`], where nodes blind to the resource may
//! take the instance and a capacity check drop it; the level above
//! checks once that counting its own size again places nothing): each
//! level then does what `J` did. Otherwise (in principle: no cluster
//! seen does this) the run's levels are counted one by one, smallest
//! first.

use crate::model::instance::Instance;
use crate::model::types::{FailMode, FailTally};
use crate::search::allocate::AllocNodes;
use crate::search::state::State;

use super::{modes_by_count, shrink, shrink_by, steady, Allocated, Attempt, Counter, Memo};
use super::{PhaseError, Refusal};

#[cfg(test)]
thread_local! {
    /// For the tests: whether the levels of a skipped run are always
    /// counted one by one when the smallest size places nothing more.
    pub(super) static ONE_BY_ONE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A level of the tiered count waiting for the count of a smaller
/// instance, with what it needs to go on when that places nothing more.
struct Level {
    /// The level's instance.
    template: Instance,
    /// The state after the level's own count, and its instance count.
    checkpoint: usize,
    placed: usize,
    /// The level's failures and refusal, given back on a rollback.
    failures: FailTally,
    refusal: Option<(Instance, Refusal)>,
    /// The modes of the failures, least failed first.
    sorted: Vec<FailMode>,
    /// The limit of the level below.
    limit: Option<i64>,
}

/// What a level's big step found, as the run of sizes above it needs to
/// know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    /// Nothing, by walks that met only refusals of every node (or by the
    /// run's own resource).
    Nothing,
    /// An instance, by the run's own resource (the first tried).
    ByRun,
    /// Anything else.
    Other,
}

/// The levels of a run of sizes skipped between a level and the run's
/// smallest size: `top` shrunk by 1 to `left` units by `mode` (the ones
/// not counted yet; all, unless they are counted one by one).
struct Skipped {
    top: Instance,
    mode: FailMode,
    left: i64,
    /// The state of the run (that of the level above), its instance
    /// count, the count so far and the limit of the run's first level.
    checkpoint: usize,
    placed: usize,
    count: i64,
    limit: Option<i64>,
    /// Whether the run holds at any size of the other resources
    /// ([`steady::Run::everywhere`]): each level's big step is then its
    /// smallest size's.
    everywhere: bool,
    /// What the big step of the run's smallest size found.
    found: Option<Found>,
}

impl Skipped {
    /// The limit of the level `k` units below `top`.
    fn limit_at(&self, k: i64) -> Option<i64> {
        self.limit
            .map(|l| l.saturating_sub((k - 1).saturating_mul(self.count)))
    }
}

/// What waits for a count's answer.
enum Waiting {
    Level(Box<Level>),
    Skipped(Box<Skipped>),
}

/// What a level does after its own count.
enum Next {
    /// Nothing more: the level's answer is the count so far.
    Done,
    /// A smaller instance's count (with its limit), to be compared with
    /// the level's (and the run of sizes skipped down to it).
    Smaller(Box<Level>, Option<Box<Skipped>>, Instance, Option<i64>),
    /// Another instance's count, which is the level's answer.
    Instead(Instance, Option<i64>),
}

/// Tells the run of sizes waiting on top of `waiting`, if any, what the
/// big step of its smallest size found (the first big step made under
/// it: that size's own).
fn note(waiting: &mut [Waiting], found: Found) {
    if let Some(Waiting::Skipped(run)) = waiting.last_mut() {
        run.found.get_or_insert(found);
    }
}

impl Counter<'_> {
    /// `tieredAlloc`: places `template` as [`Counter::iterate`] does, then
    /// shrinks it by the resource that failed most and goes on while that
    /// places more; otherwise shrinks by the first resource, most failed
    /// first, whose shrinking alone lets an instance fit.
    pub fn tiered(
        &mut self,
        state: &mut State,
        template: &Instance,
        nodes: &AllocNodes,
        limit: Option<i64>,
        done: &mut Allocated,
    ) -> Result<(), PhaseError> {
        let mut waiting: Vec<Waiting> = Vec::new();
        let mut next = (template.clone(), limit);
        loop {
            let mut result = match self.level(state, next.0, nodes, next.1, done) {
                Ok((Next::Smaller(level, run, smaller, limit), _)) => {
                    waiting.push(Waiting::Level(level));
                    if let Some(run) = run {
                        waiting.push(Waiting::Skipped(run));
                    }
                    next = (smaller, limit);
                    continue;
                }
                Ok((Next::Instead(other, limit), found)) => {
                    if let Some(found) = found {
                        note(&mut waiting, found);
                    }
                    next = (other, limit);
                    continue;
                }
                Ok((Next::Done, found)) => {
                    if let Some(found) = found {
                        note(&mut waiting, found);
                    }
                    Ok(())
                }
                Err(e) => Err(e),
            };
            // The answer goes to what waits for it.
            loop {
                let Some(entry) = waiting.pop() else {
                    return result;
                };
                let (checkpoint, placed) = match &entry {
                    Waiting::Level(l) => (l.checkpoint, l.placed),
                    Waiting::Skipped(r) => (r.checkpoint, r.placed),
                };
                if result.is_ok() && done.placed.len() > placed {
                    continue;
                }
                self.rollback(state, checkpoint);
                done.placed.truncate(placed);
                let other = match entry {
                    Waiting::Level(level) => {
                        done.failures = level.failures;
                        done.refusal = level.refusal;
                        let (other, found) =
                            self.big_step(state, &level.template, nodes, &level.sorted);
                        note(&mut waiting, found);
                        other.map(|o| (o, level.limit))
                    }
                    Waiting::Skipped(mut run) => {
                        match self.skipped_level(state, &mut run, nodes, done) {
                            Ok(None) if run.left == 0 => None,
                            Ok(None) => {
                                waiting.push(Waiting::Skipped(run));
                                result = Ok(());
                                continue;
                            }
                            Ok(Some(other)) => {
                                waiting.push(Waiting::Skipped(run));
                                Some(other)
                            }
                            Err(e) => {
                                // Its own count failed: that is its answer.
                                if run.left > 0 {
                                    waiting.push(Waiting::Skipped(run));
                                }
                                result = Err(e);
                                continue;
                            }
                        }
                    }
                };
                match other {
                    Some(other) => {
                        next = other;
                        break;
                    }
                    None => result = Ok(()),
                }
            }
        }
    }

    /// One level of `tieredAlloc`: the count of `template`, then what
    /// comes next (with what its big step found, when it made one).
    fn level(
        &mut self,
        state: &mut State,
        template: Instance,
        nodes: &AllocNodes,
        limit: Option<i64>,
        done: &mut Allocated,
    ) -> Result<(Next, Option<Found>), PhaseError> {
        self.iterate(state, &template, nodes, limit, done)?;
        let count = done.placed.len() as i64;
        let (stop, next_limit) = match limit {
            None => (false, None),
            Some(n) => (n <= count, Some(n - count)),
        };
        if stop {
            return Ok((Next::Done, None));
        }
        let sorted = modes_by_count(&done.failures);
        let most = *sorted.last().unwrap_or(&FailMode::Mem);
        // The smaller instance, on as long as it places more.
        if let Some(smaller) = shrink(&template, most) {
            // The sizes every node refuses as this one, down to the last
            // before a level the limit stops.
            let run = steady::run(state, self.opts.alloc.soft, &template, most);
            let mut units = run.units;
            if let (Some(l), 1..) = (next_limit, count) {
                let stops_at = l.div_euclid(count) + i64::from(l.rem_euclid(count) != 0);
                units = units.min(stops_at - 1);
                if run.everywhere {
                    // Each level's count has its own limit.
                    units = 0;
                }
            }
            if units >= 2
                && run.everywhere
                && !self.places_nothing(state, &template, nodes, next_limit, done)
            {
                units = 0;
            }
            let jump = (units >= 2)
                .then(|| shrink_by(&template, most, units))
                .flatten();
            let (run, smaller, smaller_limit) = match jump {
                Some(bottom) => {
                    let run = Skipped {
                        top: template.clone(),
                        mode: most,
                        left: units - 1,
                        checkpoint: state.checkpoint(),
                        placed: done.placed.len(),
                        count,
                        limit: next_limit,
                        everywhere: run.everywhere,
                        found: None,
                    };
                    let limit = run.limit_at(units);
                    (Some(Box::new(run)), bottom, limit)
                }
                None => (None, smaller, next_limit),
            };
            let level = Level {
                checkpoint: state.checkpoint(),
                placed: done.placed.len(),
                failures: done.failures,
                refusal: done.refusal.take(),
                sorted,
                limit: next_limit,
                template,
            };
            return Ok((
                Next::Smaller(Box::new(level), run, smaller, smaller_limit),
                None,
            ));
        }
        let (other, found) = self.big_step(state, &template, nodes, &sorted);
        let next = match other {
            Some(other) => Next::Instead(other, next_limit),
            None => Next::Done,
        };
        Ok((next, Some(found)))
    }

    /// Whether counting `template` again on the present state places
    /// nothing and fails as the count that led there (which the levels of
    /// a run that holds everywhere then all do); the state is left as it
    /// is.
    fn places_nothing(
        &mut self,
        state: &mut State,
        template: &Instance,
        nodes: &AllocNodes,
        limit: Option<i64>,
        done: &Allocated,
    ) -> bool {
        let checkpoint = state.checkpoint();
        let mut again = done.clone();
        let counted = self.iterate(state, template, nodes, limit, &mut again);
        self.rollback(state, checkpoint);
        counted.is_ok()
            && again.placed.len() == done.placed.len()
            && again.failures == done.failures
    }

    /// The next level of a run of skipped sizes when they are counted one
    /// by one (the run's smallest size placed nothing more and its big
    /// step does not stand for theirs): its own count, then its big step;
    /// `None` when there is none to make or it finds nothing.
    fn skipped_level(
        &mut self,
        state: &mut State,
        run: &mut Skipped,
        nodes: &AllocNodes,
        done: &mut Allocated,
    ) -> Result<Option<(Instance, Option<i64>)>, PhaseError> {
        let same_limits = run.limit.is_none() || run.count == 0;
        #[cfg(test)]
        if ONE_BY_ONE.get() {
            run.found = Some(Found::Other);
            run.everywhere = false;
        }
        match run.found {
            _ if run.everywhere => run.left = 0,
            Some(Found::Nothing) => run.left = 0,
            Some(Found::ByRun) if same_limits => run.left = 0,
            // From here on, no big step stands for the run's.
            _ => run.found = Some(Found::Other),
        }
        if run.left == 0 {
            return Ok(None);
        }
        let k = run.left;
        run.left -= 1;
        let Some(inst) = shrink_by(&run.top, run.mode, k) else {
            return Ok(None);
        };
        // Its count places nothing (every node refuses it) and gives back
        // its failures and refusal.
        let limit = run.limit_at(k);
        self.iterate(state, &inst, nodes, limit, done)?;
        let sorted = modes_by_count(&done.failures);
        let next_limit = run.limit_at(k + 1);
        Ok(self
            .big_step(state, &inst, nodes, &sorted)
            .0
            .map(|other| (other, next_limit)))
    }

    /// The big step of a level that the smaller instance did not take
    /// further: the first resource, most failed first, whose shrinking
    /// alone lets an instance fit, and that instance.
    fn big_step(
        &mut self,
        state: &mut State,
        template: &Instance,
        nodes: &AllocNodes,
        sorted: &[FailMode],
    ) -> (Option<Instance>, Found) {
        let mut clean = true;
        for (i, &mode) in sorted.iter().rev().enumerate() {
            let (found, walk_clean) = self.suffices_shrinking(state, template, nodes, mode);
            if let Some(next) = found {
                if next == *template {
                    // hspace would retry the same instance forever; nothing
                    // more fits.
                    return (None, Found::Other);
                }
                let found = if i == 0 { Found::ByRun } else { Found::Other };
                return (Some(next), found);
            }
            clean &= i == 0 || walk_clean;
        }
        (None, if clean { Found::Nothing } else { Found::Other })
    }

    /// `sufficesShrinking`: the first instance, from `inst` shrinking by
    /// `mode` one unit at a time, that finds a place, as long as each one
    /// before it failed at least once on `mode`; and whether the walk met
    /// only instances every node refuses ([`steady::refused_by_all`]).
    /// The walk visits only the instances that can shrink once more
    /// (`iterateOk` stops at the first that cannot, without it): the
    /// smallest instance of a resource is never tried, nor is any
    /// instance for a mode that is not a resource. It skips the sizes
    /// refused as the one it is at ([`steady::run`]). A walk remembers
    /// where it ended, so that a walk from a larger instance that reaches
    /// its start (the tiered count's next larger spec) stops there; the
    /// instances within it are searched once and forgotten.
    fn suffices_shrinking(
        &mut self,
        state: &mut State,
        inst: &Instance,
        nodes: &AllocNodes,
        mode: FailMode,
    ) -> (Option<Instance>, bool) {
        let mut cur = inst.clone();
        let alloc = self.opts.alloc.clone();
        let at = state.checkpoint();
        let start = Memo::key(&cur, &alloc);
        let mut first = true;
        let mut clean = true;
        let end = loop {
            let key = Memo::key(&cur, &alloc);
            if let Some((end, walk_clean)) = self.memo.shrunk.get(&(at, key, mode)) {
                clean &= *walk_clean;
                break end.clone();
            }
            let Some(next) = shrink(&cur, mode) else {
                break None;
            };
            // A search that cannot run counts as an empty solution here.
            let failed_on = match self.attempt(state, &cur, nodes, &alloc, first) {
                Ok(Attempt::Placed { .. }) => break Some(std::sync::Arc::new(cur)),
                Ok(Attempt::Refused { failures, .. }) => {
                    clean &= steady::refused_by_all(state, alloc.soft, &cur);
                    failures.counts[mode as usize] > 0
                }
                Err(_) => {
                    clean = false;
                    false
                }
            };
            if !failed_on {
                break None;
            }
            first = false;
            cur = match steady::run(state, alloc.soft, &cur, mode).units {
                units @ 2.. => shrink_by(&cur, mode, units).unwrap_or(next),
                _ => next,
            };
        };
        self.memo.shrinks_to(at, start, mode, end.clone(), clean);
        (end.map(std::sync::Arc::unwrap_or_clone), clean)
    }
}
