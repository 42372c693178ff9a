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
//! * [`stats`]: the cluster's resource statistics (`CStats`,
//!   `totalResources`, `computeAllocationDelta`).
//! * here: the instance of a spec, the phases, the shrinking.

pub mod stats;

use crate::model::instance::{Disk, Instance};
use crate::model::policy::RSpec;
use crate::model::types::{DiskTemplate, FailMode, FailTally};
use crate::search::allocate::{try_alloc, AllocNodes, AllocOptions, SearchError};
use crate::search::globaln1;
use crate::search::state::State;

/// hspace's unit steps of shrinking (`unitMem`, `unitDsk`, `unitCpu`,
/// `unitSpindle`).
const UNIT_MEM: i64 = 64;
const UNIT_DSK: i64 = 256;
const UNIT_CPU: i64 = 1;
const UNIT_SPINDLE: i64 = 1;

/// `instFromSpec`: the instance hspace places for a spec: named `new`,
/// one disk of the spec's size and spindles, running, auto-balanced.
pub fn instance_from_spec(spec: &RSpec, template: DiskTemplate, spindle_use: i64) -> Instance {
    let mut inst = Instance::for_calculation(
        "new",
        spec.mem,
        spec.dsk,
        spec.cpu,
        spindle_use,
        template,
        true,
    );
    inst.disks = std::sync::Arc::from([Disk {
        size: spec.dsk,
        spindles: Some(spec.spn),
    }]);
    inst.util = [1.0; 4];
    inst
}

/// `specOf`: an instance's spec (its spindles when it has one disk with
/// them, else 0).
pub fn spec_of(inst: &Instance) -> RSpec {
    let spn = match &inst.disks[..] {
        [Disk {
            spindles: Some(s), ..
        }] => *s,
        _ => 0,
    };
    RSpec {
        cpu: inst.vcpus,
        mem: inst.mem,
        dsk: inst.dsk,
        spn,
    }
}

/// `shrinkByType`: the instance one unit smaller in the resource `mode`
/// failed on, or `None` when it cannot shrink further (or `mode` is not a
/// resource).
pub fn shrink(inst: &Instance, mode: FailMode) -> Option<Instance> {
    let mut out = inst.clone();
    match mode {
        FailMode::Mem => {
            let v = inst.mem - UNIT_MEM;
            if v < UNIT_MEM {
                return None;
            }
            out.mem = v;
        }
        FailMode::Disk => {
            let disks: Vec<Disk> = inst
                .disks
                .iter()
                .map(|d| Disk {
                    size: d.size - UNIT_DSK,
                    ..*d
                })
                .collect();
            if disks.iter().any(|d| d.size < UNIT_DSK) {
                return None;
            }
            out.dsk = inst.dsk - inst.disks.len() as i64 * UNIT_DSK;
            out.disks = std::sync::Arc::from(disks);
        }
        FailMode::Cpu => {
            let v = inst.vcpus - UNIT_CPU;
            if v < UNIT_CPU {
                return None;
            }
            out.vcpus = v;
        }
        FailMode::Spindles => match &inst.disks[..] {
            [Disk {
                size,
                spindles: Some(sp),
            }] => {
                let v = sp - UNIT_SPINDLE;
                if v < UNIT_SPINDLE {
                    return None;
                }
                out.disks = std::sync::Arc::from([Disk {
                    size: *size,
                    spindles: Some(v),
                }]);
            }
            _ => return None,
        },
        _ => return None,
    }
    Some(out)
}

/// How hspace allocates (`AlgorithmOptions` as `Hspace.main` sets them).
#[derive(Debug, Clone)]
pub struct SpaceOptions {
    /// The searches' options: the soft checks, whether the global N+1
    /// check runs (`--no-capacity-checks` turns it off) and the nodes it
    /// looks at (`algCapacityIgnoreGroups`, `algAcceptExisting`).
    pub alloc: AllocOptions,
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
}

/// Why a phase could not run at all: hail's message (`Bad`).
pub type PhaseError = String;

fn message(e: SearchError) -> PhaseError {
    match e {
        SearchError::Message(m) => m,
        SearchError::Crash(c) => c.0,
    }
}

/// One search with the options' N+1 scope, the state left as it was.
fn search(
    state: &mut State,
    inst: &Instance,
    nodes: &AllocNodes,
    alloc: &AllocOptions,
) -> Result<crate::search::solution::AllocSolution<f64>, SearchError> {
    try_alloc(state, inst, nodes, alloc)
}

/// `iterateAllocSmallStep`: places `template` (renamed `new-N`, indexed
/// at the end of the instance list) until no place is found or `limit`
/// is reached; the global N+1 check is off for drbd.
fn small_steps(
    state: &mut State,
    template: &Instance,
    nodes: &AllocNodes,
    mut limit: Option<i64>,
    opts: &SpaceOptions,
    placed: &mut Vec<Instance>,
) -> Result<FailTally, PhaseError> {
    let mut alloc = opts.alloc.clone();
    if template.disk_template == DiskTemplate::Drbd {
        alloc.capacity_checks = false;
    }
    loop {
        let new_key = state.inst_count();
        let mut inst = template.clone();
        inst.name = std::sync::Arc::from(format!("new-{}", placed.len()));
        inst.alias_len = inst.name.len();
        inst.idx = new_key as i32;
        let sol = search(state, &inst, nodes, &alloc).map_err(message)?;
        let Some(best) = sol.best else {
            return Ok(sol.failures);
        };
        if limit == Some(0) {
            return Ok(sol.failures);
        }
        let changed: Vec<(usize, &crate::model::node::Node)> =
            best.nodes.iter().map(|(k, n)| (*k, n)).collect();
        globaln1::apply_placement(state, &changed, &best.inst, new_key);
        placed.push(best.inst);
        limit = limit.map(|l| l - 1);
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

/// `iterateAlloc`: with the N+1 check on, big steps without it, each kept
/// only when the cluster is redundant afterwards; then steps of 10; then
/// one instance at a time.
pub fn iterate(
    state: &mut State,
    template: &Instance,
    nodes: &AllocNodes,
    limit: Option<i64>,
    opts: &SpaceOptions,
    placed: &mut Vec<Instance>,
) -> Result<FailTally, PhaseError> {
    iterate_from(state, template, nodes, limit, opts, placed, true)
}

fn iterate_from(
    state: &mut State,
    template: &Instance,
    nodes: &AllocNodes,
    mut limit: Option<i64>,
    opts: &SpaceOptions,
    placed: &mut Vec<Instance>,
    mut huge: bool,
) -> Result<FailTally, PhaseError> {
    loop {
        if !opts.alloc.capacity_checks {
            return small_steps(state, template, nodes, limit, opts, placed);
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
        let unchecked = SpaceOptions {
            alloc: AllocOptions {
                capacity_checks: false,
                ..opts.alloc.clone()
            },
        };
        let cp = state.checkpoint();
        let before = placed.len();
        let failures = small_steps(state, template, nodes, step_limit, &unchecked, placed)?;
        if globaln1::redundant(state, &opts.alloc.n1_scope).map_err(|c| c.0)? {
            if next_limit == Some(0) || placed.len() == before {
                return Ok(failures);
            }
            limit = next_limit;
            continue;
        }
        state.rollback(cp);
        placed.truncate(before);
        if huge {
            huge = false;
            continue;
        }
        return small_steps(state, template, nodes, limit, opts, placed);
    }
}

/// The modes of a failure tally sorted by count, ascending, ties in tally
/// order (`sortBy (comparing snd)`).
fn modes_by_count(failures: &FailTally) -> Vec<FailMode> {
    let mut modes: Vec<FailMode> = FailMode::ALL.to_vec();
    modes.sort_by_key(|m| failures.counts[*m as usize]);
    modes
}

/// `sufficesShrinking`: the first instance, from `inst` shrinking by
/// `mode` one unit at a time, that finds a place, as long as each one
/// before it failed at least once on `mode`.
fn suffices_shrinking(
    state: &mut State,
    inst: &Instance,
    nodes: &AllocNodes,
    alloc: &AllocOptions,
    mode: FailMode,
) -> Option<Instance> {
    let mut cur = inst.clone();
    loop {
        // `tryAlloc`'s failure is an empty solution here.
        let sol = search(state, &cur, nodes, alloc).ok();
        if sol.as_ref().is_some_and(|s| s.best.is_some()) {
            return Some(cur);
        }
        let failed_on = sol.is_some_and(|s| s.failures.counts[mode as usize] > 0);
        if !failed_on {
            return None;
        }
        cur = shrink(&cur, mode)?;
    }
}

/// `tieredAlloc`: places `template` as [`iterate`] does, then shrinks it
/// by the resource that failed most and goes on while that places more;
/// otherwise shrinks by the first resource, most failed first, whose
/// shrinking alone lets an instance fit.
pub fn tiered(
    state: &mut State,
    template: &Instance,
    nodes: &AllocNodes,
    limit: Option<i64>,
    opts: &SpaceOptions,
    placed: &mut Vec<Instance>,
) -> Result<FailTally, PhaseError> {
    let failures = iterate(state, template, nodes, limit, opts, placed)?;
    let count = placed.len() as i64;
    let (stop, next_limit) = match limit {
        None => (false, None),
        Some(n) => (n <= count, Some(n - count)),
    };
    if stop {
        return Ok(failures);
    }
    let sorted = modes_by_count(&failures);
    // The smaller instance, on as long as it places more.
    if let Some(smaller) = sorted.last().and_then(|&m| shrink(template, m)) {
        let cp = state.checkpoint();
        let before = placed.len();
        match tiered(state, &smaller, nodes, next_limit, opts, placed) {
            Ok(f) if placed.len() > before => return Ok(f),
            _ => {
                state.rollback(cp);
                placed.truncate(before);
            }
        }
    }
    // A resource whose shrinking alone lets one fit.
    for &mode in sorted.iter().rev() {
        if let Some(next) = suffices_shrinking(state, template, nodes, &opts.alloc, mode) {
            if next == *template {
                // hspace would retry the same instance forever; nothing
                // more fits.
                break;
            }
            return tiered(state, &next, nodes, next_limit, opts, placed);
        }
    }
    Ok(failures)
}
