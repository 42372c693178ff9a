//! Capacity planning as hspace 3.0.2 counts it (`Cluster.iterateAlloc`,
//! `tieredAlloc`, `Program/Hspace.hs`): instances of one spec placed on
//! the whole cluster, one after another, until none fits; and the tiered
//! count, which shrinks the spec by the resource that failed most and
//! goes on.
//!
//! hspace's search is hail's `tryAlloc` over every group's nodes and pairs
//! at once, scored on the whole cluster ([`crate::search::allocate`] on a
//! state of the whole cluster), with two departures from hail that this
//! module keeps, because they are hspace's answers: the global N+1 check
//! is off for drbd instances, and "big steps" place many instances without
//! it and keep them only when the cluster is redundant afterwards
//! (`iterateAlloc'`).
//!
//! * [`model`]: how the next instance is placed: hspace's search, or the
//!   allocator's answer to one request (`--allocator-model`).
//! * [`tiered`]: the tiered count, a loop over the sizes it shrinks
//!   through, and [`steady`]: the sizes it can skip, which every search
//!   refuses the same way.
//! * here: the phases, the shrinking. (A spec's instance and an
//!   instance's spec are [`RSpec`](crate::model::policy::RSpec)'s; the
//!   cluster's statistics, `CStats`, are [`crate::model::stats`].)

pub mod model;
pub mod steady;
#[cfg(test)]
mod tests;
pub mod tiered;

pub use model::{Attempt, Engine, Refusal};

use std::sync::Arc;

use crate::model::hash::FastMap;
use crate::model::instance::{Disk, Instance};
use crate::model::types::{DiskTemplate, FailMode, FailTally};
use crate::search::allocate::{AllocNodes, AllocOptions, SearchBase, SearchError};
use crate::search::globaln1;
use crate::search::state::State;

/// hspace's unit steps of shrinking (`unitMem`, `unitDsk`, `unitCpu`,
/// `unitSpindle`).
pub const UNIT_MEM: i64 = 64;
pub const UNIT_DSK: i64 = 256;
pub const UNIT_CPU: i64 = 1;
pub const UNIT_SPINDLE: i64 = 1;

/// The instance as Ganeti's master asks the allocator for it
/// (`gnt-instance add -t T --disk 0:size=D -B memory=M,vcpus=C`): one
/// disk, and the disk space of drbd's metadata (128 MiB) in its total.
/// (The disk's spindles count only on a cluster of exclusive storage.)
pub fn as_requested(mut inst: Instance) -> Instance {
    if inst.disk_template == DiskTemplate::Drbd {
        inst.dsk += DRBD_META_SIZE;
    }
    inst
}

/// The disk space of a drbd disk's metadata, in MiB (`DRBD_META_SIZE`).
const DRBD_META_SIZE: i64 = 128;

/// The unit step of shrinking by `mode`, for the modes that are a
/// resource.
fn unit(mode: FailMode) -> Option<i64> {
    match mode {
        FailMode::Mem => Some(UNIT_MEM),
        FailMode::Disk => Some(UNIT_DSK),
        FailMode::Cpu => Some(UNIT_CPU),
        FailMode::Spindles => Some(UNIT_SPINDLE),
        _ => None,
    }
}

/// `shrinkByType`: the instance one unit smaller in the resource `mode`
/// failed on, or `None` when it cannot shrink further (or `mode` is not a
/// resource).
pub fn shrink(inst: &Instance, mode: FailMode) -> Option<Instance> {
    shrink_by(inst, mode, 1)
}

/// `shrinkByType` `k` times (`k` at least 1): the instance `k` units
/// smaller in the resource `mode`, or `None` when one of the steps cannot
/// shrink (each stops below one unit; for more than one step, also where
/// a step would wrap around, which one step does as Haskell's `Int`).
pub fn shrink_by(inst: &Instance, mode: FailMode, k: i64) -> Option<Instance> {
    let unit = unit(mode)?;
    let less = |v: i64| -> Option<i64> {
        let v = if k == 1 {
            v.wrapping_sub(unit)
        } else {
            v.checked_sub(unit.checked_mul(k)?)?
        };
        (v >= unit).then_some(v)
    };
    let mut out = inst.clone();
    match mode {
        FailMode::Mem => out.mem = less(inst.mem)?,
        FailMode::Disk => {
            let disks = inst
                .disks
                .iter()
                .map(|d| {
                    Some(Disk {
                        size: less(d.size)?,
                        ..*d
                    })
                })
                .collect::<Option<Vec<Disk>>>()?;
            let total = (inst.disks.len() as i64)
                .checked_mul(unit)?
                .checked_mul(k)?;
            out.dsk = inst.dsk.wrapping_sub(total);
            out.disks = std::sync::Arc::from(disks);
        }
        FailMode::Cpu => out.vcpus = less(inst.vcpus)?,
        FailMode::Spindles => match &inst.disks[..] {
            [Disk {
                size,
                spindles: Some(sp),
            }] => {
                out.disks = std::sync::Arc::from([Disk {
                    size: *size,
                    spindles: Some(less(*sp)?),
                }]);
            }
            _ => return None,
        },
        _ => return None,
    }
    Some(out)
}

/// Orders node `k`'s instance lists as hail finds them when it reads the
/// state it saved after the previous request (`hail -t STATE -S NEXT`):
/// its saved file lists the instance it placed first, so on reading the
/// placed instances come first, newest first, then the cluster's own, and
/// a node's lists, built in file order, hold the cluster's own instances
/// newest first, then the placed ones oldest first. The global N+1
/// check's trial evacuations visit a node's instances in that order.
fn as_reloaded(state: &mut State, k: usize, first_new: usize) {
    let order = |i: &i32| {
        let key = usize::try_from(*i).unwrap_or(0);
        if key >= first_new {
            (0, usize::MAX - key)
        } else {
            (1, key)
        }
    };
    let mut node = state.node_at(k).clone();
    node.p_list.sort_by_key(order);
    node.s_list.sort_by_key(order);
    state.set_node(k, node);
}

/// How a count allocates.
#[derive(Debug, Clone)]
pub struct SpaceOptions<'a> {
    /// The searches' options: the soft checks, whether the global N+1
    /// check runs (`--no-capacity-checks` turns it off) and the nodes it
    /// looks at (`algCapacityIgnoreGroups`, `algAcceptExisting`).
    pub alloc: AllocOptions,
    /// How each instance is placed.
    pub engine: Engine<'a>,
    /// The nodes each instance needs (1, or 2 for drbd).
    pub count: i64,
}

/// A phase's outcome (`AllocResult` without its state, which is the
/// state the phase ran on).
#[derive(Debug, Clone, Default)]
pub struct Allocated {
    /// The failures of the search that found no place (all modes, in
    /// tally order).
    pub failures: FailTally,
    /// The instances placed, in the order they were placed.
    pub placed: Vec<Instance>,
    /// The last search that found no place (kept when the options keep
    /// notes, for `--explain`), with the instance it tried.
    pub refusal: Option<(Instance, Refusal)>,
}

/// Why a phase could not run at all: hail's message (`Bad`).
pub type PhaseError = String;

fn message(e: SearchError) -> PhaseError {
    match e {
        SearchError::Message(m) => m,
        SearchError::Crash(c) => c.0,
    }
}

/// `guessBigstepSize`: the cluster's available memory in instances, less
/// one per node, at least 20.
fn big_step_size(state: &State, inst: &Instance) -> i64 {
    let avail: i64 = state
        .node_keys()
        .map(|k| state.node_at(k).avail_mem())
        .sum();
    let capacity = if inst.mem > 0 {
        avail.div_euclid(inst.mem)
    } else {
        i64::MAX
    };
    let guess = capacity.saturating_sub(state.node_keys().count() as i64);
    guess.max(20)
}

/// The modes of a failure tally sorted by count, ascending, ties in tally
/// order (`sortBy (comparing snd)`).
fn modes_by_count(failures: &FailTally) -> Vec<FailMode> {
    let mut modes: Vec<FailMode> = FailMode::ALL.to_vec();
    modes.sort_by_key(|m| failures.counts[*m as usize]);
    modes
}

/// The key of an attempt whose outcome does not change while the state
/// does not: the instance's resources, disks and index, and whether the
/// N+1 check ran.
type AttemptKey = (
    i64,
    i64,
    i64,
    smallvec::SmallVec<[(i64, Option<i64>); 1]>,
    i32,
    bool,
);

/// Where a shrinking walk ended (the instance that finds a place, if
/// any) and whether it met only instances every node refuses.
type WalkEnd = (Option<Arc<Instance>>, bool);

/// What was found on the present state, so that the tiered count's
/// shrinking, which tries the same smaller instances again at each step
/// down (quadratically many searches for a large spec), searches each
/// once: the refused attempts, and where shrinking an instance by a mode
/// ends (`sufficesShrinking`'s answer, and whether its walk met only
/// instances every node refuses). Entries are by the state's
/// undo-log length, logged in the order they were made: the state only
/// grows between rollbacks, so a rollback forgets the newest entries, those
/// of the states undone, and nothing else.
#[derive(Debug, Default)]
struct Memo {
    refused: FastMap<(usize, AttemptKey), (FailTally, Option<Refusal>)>,
    shrunk: FastMap<(usize, AttemptKey, FailMode), WalkEnd>,
    log: Vec<(usize, AttemptKey, Option<FailMode>)>,
}

impl Memo {
    fn key(inst: &Instance, alloc: &AllocOptions) -> AttemptKey {
        (
            inst.mem,
            inst.dsk,
            inst.vcpus,
            inst.disks.iter().map(|d| (d.size, d.spindles)).collect(),
            inst.idx,
            alloc.capacity_checks,
        )
    }

    fn refuse(&mut self, at: usize, key: AttemptKey, found: (FailTally, Option<Refusal>)) {
        self.log.push((at, key.clone(), None));
        self.refused.insert((at, key), found);
    }

    fn shrinks_to(
        &mut self,
        at: usize,
        key: AttemptKey,
        mode: FailMode,
        to: Option<Arc<Instance>>,
        clean: bool,
    ) {
        self.log.push((at, key.clone(), Some(mode)));
        self.shrunk.insert((at, key, mode), (to, clean));
    }

    /// Forgets what was found on the states after `checkpoint`.
    fn rollback(&mut self, checkpoint: usize) {
        while let Some((at, key, mode)) = self.log.pop() {
            if at <= checkpoint {
                self.log.push((at, key, mode));
                break;
            }
            match mode {
                None => {
                    self.refused.remove(&(at, key));
                }
                Some(m) => {
                    self.shrunk.remove(&(at, key, m));
                }
            }
        }
    }
}

/// A count in progress: its options and what it already searched.
pub struct Counter<'a> {
    /// How it allocates.
    pub opts: SpaceOptions<'a>,
    memo: Memo,
    /// What the searches computed of the present state (the capacity
    /// check's verdicts of every node, the cluster's statistics), with the
    /// undo-log length it belongs to; dropped by a rollback.
    base: (usize, SearchBase),
    /// The key of the first instance a count places (the cluster's
    /// instance count when the first phase starts).
    first_new: Option<usize>,
}

impl<'a> Counter<'a> {
    /// A count with these options.
    pub fn new(opts: SpaceOptions<'a>) -> Counter<'a> {
        Counter {
            opts,
            memo: Memo::default(),
            base: (usize::MAX, SearchBase::new()),
            first_new: None,
        }
    }

    /// One attempt with `alloc`; with `remember`, a refusal found before
    /// on this state is not searched again, and a new one is remembered.
    fn attempt(
        &mut self,
        state: &mut State,
        inst: &Instance,
        nodes: &AllocNodes,
        alloc: &AllocOptions,
        remember: bool,
    ) -> Result<Attempt, SearchError> {
        self.base_for(state);
        let key = remember.then(|| (state.checkpoint(), Memo::key(inst, alloc)));
        if let Some((failures, refusal)) = key.as_ref().and_then(|k| self.memo.refused.get(k)) {
            return Ok(Attempt::Refused {
                failures: *failures,
                refusal: refusal.clone().unwrap_or(Refusal::Message(String::new())),
            });
        }
        let attempt = self.opts.engine.attempt(
            state,
            inst,
            self.opts.count,
            nodes,
            alloc,
            &mut self.base.1,
        )?;
        if let (Some((at, key)), Attempt::Refused { failures, refusal }) = (key, &attempt) {
            let kept = alloc.explain.then(|| refusal.clone());
            self.memo.refuse(at, key, (*failures, kept));
        }
        Ok(attempt)
    }

    /// Makes the search data the present state's: the data of an earlier
    /// state it extends is handed on (its capacity verdicts are brought
    /// up to date when a search needs them).
    fn base_for(&mut self, state: &State) {
        let at = state.checkpoint();
        if self.base.0 != at {
            let (earlier_at, earlier) = std::mem::take(&mut self.base);
            self.base.0 = at;
            if earlier_at <= at {
                self.base.1 = SearchBase::after(earlier, earlier_at);
            }
        }
    }

    /// Rolls the state and what was found on it back to `checkpoint`.
    pub fn rollback(&mut self, state: &mut State, checkpoint: usize) {
        state.rollback(checkpoint);
        self.memo.rollback(checkpoint);
        if self.base.0 > checkpoint {
            // Data of a state that is gone.
            self.base = (usize::MAX, SearchBase::new());
        }
    }

    /// `iterateAllocSmallStep`: places `template` (renamed `new-N`, indexed
    /// at the end of the instance list) until no place is found or `limit`
    /// is reached; hspace's global N+1 check is off for drbd.
    fn small_steps(
        &mut self,
        state: &mut State,
        template: &Instance,
        nodes: &AllocNodes,
        mut limit: Option<i64>,
        capacity: bool,
        done: &mut Allocated,
    ) -> Result<(), PhaseError> {
        let mut alloc = self.opts.alloc.clone();
        alloc.capacity_checks = capacity;
        if self.opts.engine.is_hspace() && template.disk_template == DiskTemplate::Drbd {
            alloc.capacity_checks = false;
        }
        loop {
            let new_key = state.inst_count();
            let mut inst = template.clone();
            inst.name = std::sync::Arc::from(format!("new-{}", done.placed.len()));
            inst.alias_len = inst.name.len();
            if self.opts.engine.is_hspace() {
                inst.idx = new_key as i32;
            }
            let attempt = self
                .attempt(state, &inst, nodes, &alloc, true)
                .map_err(message)?;
            let (mut placed, changed) = match attempt {
                Attempt::Refused { failures, refusal } => {
                    done.failures = failures;
                    done.refusal = alloc.explain.then_some((inst, refusal));
                    return Ok(());
                }
                Attempt::Placed {
                    inst,
                    nodes,
                    failures,
                } => {
                    if limit == Some(0) {
                        // hspace searches once more and keeps the tally, not
                        // the place.
                        done.failures = failures;
                        return Ok(());
                    }
                    (inst, nodes)
                }
            };
            // The instance as the next request reads it back: at its key.
            placed.idx = new_key as i32;
            let changed: Vec<(usize, &crate::model::node::Node)> =
                changed.iter().map(|(k, n)| (*k, n)).collect();
            globaln1::apply_placement(state, &changed, &placed, new_key);
            if !self.opts.engine.is_hspace() {
                let first_new = *self.first_new.get_or_insert(new_key - done.placed.len());
                for (k, _) in &changed {
                    as_reloaded(state, *k, first_new);
                }
            }
            done.placed.push(placed);
            limit = limit.map(|l| l - 1);
        }
    }

    /// `iterateAlloc`: with hspace's count and the N+1 check on, big steps
    /// without it, each kept only when the cluster is redundant afterwards;
    /// then steps of 10; then one instance at a time. The allocator's count
    /// places one instance at a time.
    pub fn iterate(
        &mut self,
        state: &mut State,
        template: &Instance,
        nodes: &AllocNodes,
        limit: Option<i64>,
        done: &mut Allocated,
    ) -> Result<(), PhaseError> {
        let mut limit = limit;
        let mut huge = true;
        let capacity = self.opts.alloc.capacity_checks;
        loop {
            if !capacity || !self.opts.engine.is_hspace() {
                return self.small_steps(state, template, nodes, limit, capacity, done);
            }
            let size = if huge {
                big_step_size(state, template)
            } else {
                10
            };
            let (step_limit, next_limit) = match limit {
                None => (Some(size), None),
                Some(l) => (Some(size.min(l)), Some((l - size).max(0))),
            };
            let cp = state.checkpoint();
            let before = done.placed.len();
            self.small_steps(state, template, nodes, step_limit, false, done)?;
            self.base_for(state);
            let scope = &self.opts.alloc.n1_scope;
            if self.base.1.redundant(state, scope).map_err(|c| c.0)? {
                if next_limit == Some(0) || done.placed.len() == before {
                    return Ok(());
                }
                limit = next_limit;
                continue;
            }
            self.rollback(state, cp);
            done.placed.truncate(before);
            if huge {
                huge = false;
                continue;
            }
            return self.small_steps(state, template, nodes, limit, capacity, done);
        }
    }
}
