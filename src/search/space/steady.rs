//! The sizes the tiered count can skip: how many units an instance can
//! shrink by one resource with every search on the present state
//! refusing each size the same way as the first, without searching them.
//!
//! A search's tally is made of its candidates' outcomes, and a candidate
//! that fails on its primary node fails there first: the node's group
//! policy (`instMatchesPolicy`), then the node's checks (`addPriEx`),
//! before its secondary or the capacity check. Between two sizes of one
//! resource:
//!
//! * every comparison of the policy is monotone in the resource, so when
//!   each comes out the same at both sizes it does at every size between
//!   ([`IPolicy::same_verdicts`]);
//! * every check of the node compares an amount that grows with one
//!   resource, or with none, and fails when it is too large
//!   (`Node::check_add_pri`), as long as no sum wraps around
//!   ([`Node::add_pri_wraps`]) and, for vCPUs, the node has CPUs; each
//!   changes its verdict at most once between the sizes, so when the
//!   first check that fails is the same at both sizes it is at every
//!   size between.
//!
//! So when every node that can be a candidate (`genAllocNodes`: any node
//! not offline) fails at both sizes on the same check, the searches of
//! the sizes between count the same tally and place nothing, whatever
//! the engine ([`super::Engine`]) and whichever of these nodes it looks
//! at. The largest such shrinking is found by doubling, then halving
//! (the property holds for a shrinking if it holds for a larger one).
//!
//! A resource can also not matter to a node at all (it is *blind* to
//! it): the disk spindles to a node without exclusive storage, the disk
//! size to every node when the template keeps no disk on its nodes. Such
//! a node's checks, state and score are the same at every size (its
//! policy's verdicts aside, which are checked as above). When every other
//! node refuses the run's sizes on a hard check of the resource (one that
//! holds with the soft checks ignored, at any size of the other
//! resources, so also in the capacity check's trial evacuations, where
//! free resources only shrink), no computation can tell two sizes of the
//! run apart: the searches' placements on blind nodes, their scores and
//! their capacity checks are the same ([`Run::everywhere`]; the caller
//! checks once that the count of the first size places nothing).
//!
//! The same grounds make a refusal monotone over such a run, at any size
//! of the other resources: a node that refuses an instance at the run's
//! smallest size in the resource refuses it at every larger size of the
//! run (its policy's verdicts in that resource do not change, and a
//! check of the resource that fails at the smaller size fails at the
//! larger). [`refused_by_all`] says when an instance is refused by every
//! node, so that [`super::tiered`] knows when a walk from the run's
//! smallest size that met only such refusals stands for the walks from
//! the larger sizes.

use crate::model::instance::{Disk, Instance};
use crate::model::node::Node;
use crate::model::policy::IPolicy;
use crate::model::refusal::Refusal;
use crate::model::types::{FailMode, SoftChecks};
use crate::search::state::State;

use super::shrink_by;

#[cfg(test)]
thread_local! {
    /// For the tests: whether sizes are skipped, and how many runs of
    /// sizes were.
    pub(super) static SKIPPING: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
    pub(super) static SKIPPED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The nodes that can be candidates of a search: those not offline
/// (`genAllocNodes`; the engines look at these or fewer).
fn candidates(state: &State) -> impl Iterator<Item = &Node> {
    state
        .node_keys()
        .map(|k| state.node_at(k))
        .filter(|n| !n.offline)
}

/// The node's verdict on `inst` as a candidate's primary: its group
/// policy, then its checks.
fn outcome(
    policy: &IPolicy,
    node: &Node,
    inst: &Instance,
    soft: SoftChecks,
) -> Result<(), Refusal> {
    policy
        .check_detail(inst, node.excl_storage)
        .and_then(|()| node.check_add_pri(soft, inst).map(|_| ()))
}

/// Whether every node that can be a candidate refuses `inst` as a
/// primary (so every search of it places nothing).
pub fn refused_by_all(state: &State, soft: SoftChecks, inst: &Instance) -> bool {
    candidates(state).all(|n| outcome(state.policy(n.group), n, inst, soft).is_err())
}

/// A run of sizes that no search tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Run {
    /// How many units (0 or more) the instance shrinks through it.
    pub units: i64,
    /// Whether it holds at any size of the other resources, and with
    /// nodes blind to the resource, which may take the instance.
    pub everywhere: bool,
}

/// The run of sizes from `top` down by `mode` that every search on
/// `state` tells apart from `top` no more than by their size: refused by
/// every candidate node as `top` is, or, failing that, the same to every
/// node ([`Run::everywhere`]).
pub fn run(state: &State, soft: SoftChecks, top: &Instance, mode: FailMode) -> Run {
    #[cfg(test)]
    if !SKIPPING.get() {
        return Run::default();
    }
    let units = units(state, soft, top, mode);
    let run = if units >= 2 {
        Run {
            units,
            everywhere: false,
        }
    } else {
        Run {
            units: blind_units(state, top, mode),
            everywhere: true,
        }
    };
    #[cfg(test)]
    if run.units >= 2 {
        SKIPPED.set(SKIPPED.get() + 1);
    }
    run
}

/// Whether no check, state or score of `node` reads the resource `mode`
/// of `inst` (its policy's comparisons aside).
fn blind(node: &Node, inst: &Instance, mode: FailMode) -> bool {
    match mode {
        FailMode::Spindles => !node.excl_storage,
        FailMode::Disk => !inst.uses_local_storage(),
        _ => false,
    }
}

/// How many units `top` can shrink by `mode` with every node blind to
/// the resource or refusing each size on a hard check of it, at any size
/// of the other resources.
fn blind_units(state: &State, top: &Instance, mode: FailMode) -> i64 {
    let nodes: Vec<(&Node, &IPolicy)> = state
        .node_keys()
        .map(|k| state.node_at(k))
        .map(|n| (n, state.policy(n.group)))
        .collect();
    if !nodes.iter().any(|(n, _)| blind(n, top, mode)) {
        return 0;
    }
    let top_alone = alone(top, mode);
    let holds = |k: i64| -> bool {
        let Some(low) = shrink_by(top, mode, k) else {
            return false;
        };
        let low_alone = alone(&low, mode);
        nodes.iter().all(|(node, policy)| {
            policy.same_verdicts(top, &low, node.excl_storage)
                && (blind(node, top, mode)
                    || (!node.add_pri_wraps(top)
                        && !node.add_pri_wraps(&low)
                        && !node.add_pri_wraps(&top_alone)
                        && !node.add_pri_wraps(&low_alone)
                        && matches!(node.check_add_pri(SoftChecks::Ignore, &low_alone),
                                    Err(r) if r.check.grows_with() == Some(mode))))
        })
    };
    largest(holds)
}

/// `inst` with every resource but `mode`'s at nothing.
fn alone(inst: &Instance, mode: FailMode) -> Instance {
    let mut out = inst.clone();
    if mode != FailMode::Mem {
        out.mem = 0;
    }
    if mode != FailMode::Cpu {
        out.vcpus = 0;
    }
    if mode != FailMode::Disk {
        out.dsk = 0;
    }
    let disks: Vec<Disk> = inst
        .disks
        .iter()
        .map(|d| Disk {
            size: if mode == FailMode::Disk { d.size } else { 0 },
            spindles: d
                .spindles
                .map(|s| if mode == FailMode::Spindles { s } else { 0 }),
        })
        .collect();
    out.disks = std::sync::Arc::from(disks);
    out
}

/// The largest `k` for which `holds`, a property that holds for `k` if
/// it holds for a larger one (0 when it does not hold for 1): by
/// doubling, then halving between the last that held and the first that
/// did not.
fn largest(holds: impl Fn(i64) -> bool) -> i64 {
    let (mut good, mut bad) = (0i64, 1i64);
    while holds(bad) {
        good = bad;
        match bad.checked_mul(2) {
            Some(b) => bad = b,
            None => return good,
        }
    }
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        if holds(mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    good
}

/// How many units (0 or more) `top` can shrink by `mode` with every
/// size down to that one refused by every candidate node on `state` as
/// `top` is.
fn units(state: &State, soft: SoftChecks, top: &Instance, mode: FailMode) -> i64 {
    // What each node refuses at the top size.
    let mut nodes: Vec<(&Node, &IPolicy, Refusal)> = Vec::new();
    for node in candidates(state) {
        let policy = state.policy(node.group);
        let growing = mode != FailMode::Cpu || (node.t_cpu.is_finite() && node.t_cpu > 0.0);
        if !growing || node.add_pri_wraps(top) {
            return 0;
        }
        match outcome(policy, node, top, soft) {
            Err(r) => nodes.push((node, policy, r)),
            Ok(()) => return 0,
        }
    }
    let holds = |k: i64| -> bool {
        let Some(low) = shrink_by(top, mode, k) else {
            return false;
        };
        nodes.iter().all(|(node, policy, refusal)| {
            !node.add_pri_wraps(&low)
                && policy.same_verdicts(top, &low, node.excl_storage)
                && matches!(outcome(policy, node, &low, soft), Err(r) if r.same_check(refusal))
        })
    };
    largest(holds)
}
