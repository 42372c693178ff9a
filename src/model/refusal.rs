//! Why a check refused a placement, with its numbers: the first failing
//! check of a node (`Node::check_add_pri`, `Node::check_add_sec`) or of
//! an instance policy (`IPolicy::check_detail`). The allocator itself only
//! keeps the [`FailMode`] (hail's `FailMem`, `FailDisk`, ...); the explain
//! mode asks again for the details.

use super::types::{DiskTemplate, FailMode};
use super::TagId;

/// One refused check: hail's failure mode and what failed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Refusal {
    /// The mode hail counts.
    pub mode: FailMode,
    /// The check and its numbers.
    pub check: Check,
    /// Whether the check was on the node's forthcoming resources (those
    /// counting instances that are not created yet).
    pub forthcoming: bool,
}

/// An instance resource an instance policy bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyResource {
    Memory,
    DiskSize,
    Cpus,
    Spindles,
    DiskCount,
}

/// Which bound of an instance policy spec pair failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyBound {
    Min,
    Max,
}

/// The failing check.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Check {
    /// The instance needs `need` MiB of memory; the node has `free` MiB
    /// unallocated.
    Memory { need: i64, free: i64 },
    /// Memory to take the instance over on a failover: `need` MiB, against
    /// `free` MiB unallocated on the secondary.
    FailoverMemory { need: i64, free: i64 },
    /// The node would lose N+1 redundancy: `left` MiB would stay free
    /// while `reserved` MiB are kept to take over the instances of the
    /// primary node `peer` (its key; `None` when unknown).
    N1Reserve {
        left: i64,
        reserved: i64,
        peer: Option<i32>,
    },
    /// The instance needs `need` MiB of disk; the node has `free` MiB.
    Disk { need: i64, free: i64 },
    /// `left` MiB of disk would stay free, below the reserve `reserve`.
    DiskReserve { left: i64, reserve: i64 },
    /// The instance needs `need` spindles; the node has `free` (exclusive
    /// storage).
    Spindles { need: i64, free: i64 },
    /// `used` spindles would be in use, above the node's limit `limit`
    /// (`total` spindles times the policy's spindle ratio).
    SpindleRatio { used: f64, limit: f64, total: i64 },
    /// `vcpus` virtual CPUs on `cpus` physical ones would exceed the
    /// policy's ratio `ratio`.
    VcpuRatio { vcpus: i64, cpus: f64, ratio: f64 },
    /// An instance on the node already holds the exclusion tag `tag`.
    ExclusionTag { tag: TagId },
    /// The instance's disk template has no secondary.
    NoSecondary,
    /// The instance's `resource` (`value`) is outside the `bound` of the
    /// policy's spec pair `pair` (0-based), whose limit is `limit`.
    Policy {
        pair: usize,
        bound: PolicyBound,
        resource: PolicyResource,
        value: i64,
        limit: i64,
    },
    /// The policy does not allow the instance's disk template.
    PolicyTemplate { template: DiskTemplate },
    /// The instance cannot migrate between the two nodes (their
    /// hypervisors or migration tags).
    Migration,
    /// Refused by a check that does not say more than its mode.
    Unexplained,
}

impl Refusal {
    /// A refusal of the node's current resources.
    pub fn now(mode: FailMode, check: Check) -> Refusal {
        Refusal {
            mode,
            check,
            forthcoming: false,
        }
    }

    /// A refusal known only by its mode (a migration check for
    /// `FailMig`).
    pub fn mode_only(mode: FailMode) -> Refusal {
        let check = if mode == FailMode::Mig {
            Check::Migration
        } else {
            Check::Unexplained
        };
        Refusal::now(mode, check)
    }

    /// A refusal of the node's forthcoming resources.
    pub fn forthcoming(mode: FailMode, check: Check) -> Refusal {
        Refusal {
            mode,
            check,
            forthcoming: true,
        }
    }

    /// Whether the check is a soft one, which `--ignore-soft-errors` (and
    /// a move off an offline node) skips: every check on forthcoming
    /// resources, and all but free memory, free disk, free spindles, a
    /// disk template without a secondary and a migration
    /// (`Node::check_add_pri`, `Node::check_add_sec`).
    pub fn is_soft(&self) -> bool {
        self.forthcoming
            || !matches!(
                self.check,
                Check::Memory { .. }
                    | Check::Disk { .. }
                    | Check::Spindles { .. }
                    | Check::NoSecondary
                    | Check::Migration
                    | Check::Unexplained
            )
    }

    /// How far the candidate was from passing, in the check's own unit
    /// (MiB, spindles, vCPUs); `None` for the checks that are not about an
    /// amount. Smaller is closer.
    pub fn shortfall(&self) -> Option<f64> {
        match self.check {
            Check::Memory { need, free } | Check::Disk { need, free } => {
                Some(need as f64 - free as f64 + 1.0)
            }
            Check::FailoverMemory { need, free } => Some(need as f64 - free as f64 + 1.0),
            Check::N1Reserve { left, reserved, .. } => Some(reserved as f64 - left as f64 + 1.0),
            Check::DiskReserve { left, reserve } => Some(reserve as f64 - left as f64),
            Check::Spindles { need, free } => Some(need as f64 - free as f64),
            Check::SpindleRatio { used, limit, .. } => Some(used - limit),
            Check::VcpuRatio { vcpus, cpus, ratio } => Some(vcpus as f64 - ratio * cpus),
            Check::Policy { value, limit, .. } => Some((value - limit).abs() as f64),
            Check::ExclusionTag { .. }
            | Check::NoSecondary
            | Check::PolicyTemplate { .. }
            | Check::Migration
            | Check::Unexplained => None,
        }
    }

    /// Whether `other` was refused by the same check as this one: the same
    /// mode, the same resources (current or forthcoming), the same kind
    /// of check (for a policy bound, the same pair, bound and resource),
    /// whatever the numbers. Each check of `Node::check_add_pri` and of a
    /// policy bound is one such kind.
    pub fn same_check(&self, other: &Refusal) -> bool {
        let policy = |c: &Check| match *c {
            Check::Policy {
                pair,
                bound,
                resource,
                ..
            } => Some((pair, bound, resource)),
            _ => None,
        };
        self.mode == other.mode
            && self.forthcoming == other.forthcoming
            && std::mem::discriminant(&self.check) == std::mem::discriminant(&other.check)
            && policy(&self.check) == policy(&other.check)
    }
}

impl Check {
    /// The instance's resource whose growth makes a check of
    /// `Node::check_add_pri` fail (the one it compares), as the mode that
    /// shrinks it; `None` for the checks no resource of a spec changes
    /// (the spindle ratio counts the instance's spindle use, a tag is a
    /// tag) and for the checks of other places.
    pub fn grows_with(&self) -> Option<FailMode> {
        match self {
            Check::Memory { .. } | Check::N1Reserve { .. } => Some(FailMode::Mem),
            Check::Disk { .. } | Check::DiskReserve { .. } => Some(FailMode::Disk),
            Check::Spindles { .. } => Some(FailMode::Spindles),
            Check::VcpuRatio { .. } => Some(FailMode::Cpu),
            _ => None,
        }
    }
}
