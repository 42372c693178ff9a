//! Nodes and the capacity primitives that place or remove an instance on a
//! node: `add_pri`, `add_sec`, `remove_pri`, `remove_sec` (Ganeti's
//! `Node.addPriEx`, `addSecExEx`, `removePri`, `removeSec`), with hail's
//! checks in hail's order and hail's integer and floating-point arithmetic.
//!
//! Every placement is split in two: a *probe* computes the would-be values
//! and the failure mode without touching the node (no allocation, so the
//! candidate search can call it in its hot loop), and a *commit* applies a
//! successful probe. The metric reads a node through [`Scalars`], which a
//! probe can also produce, so the search scores a candidate without
//! building it.
//!
//! * Owns: the node's record ([`Node`], the shared [`NodeInfo`], the
//!   [`Resources`] it is created from), what a node derives from its
//!   fields (`availMem`, `availDisk`, `availCpu`, a peer's memory, ...),
//!   the arithmetic its placements share (`truncate`, `unallocatedMem`,
//!   `calcNewFreeSpindles`, `calcSpindleUse`, `PeerMap.add`, `delete`,
//!   the spindle and vCPU ratio checks' numbers), and one concept a file:
//!   `scalars` (what the metric reads: [`Scalars`]), `primary` (adding
//!   and removing a primary instance: [`PriProbe`]) and `secondary` (a
//!   secondary instance: [`SecProbe`]). This file names their public
//!   items: other stages write `model::node::…`.
//! * May use: the model's instances, refusals, tags and small enums.
//! * Must never: know the cluster beyond the node and the instance it is
//!   given (the searches hold the cluster); score; word a refusal.

mod primary;
mod scalars;
mod secondary;

use std::sync::Arc;

use smallvec::SmallVec;

pub use primary::PriProbe;
pub use scalars::{compute_p_dsk, Scalars};
pub use secondary::SecProbe;

use super::instance::Instance;
use super::refusal::Check;
use super::TagId;
use crate::model::types::FailMode;

/// The parts of a node that never change during a run, shared between all
/// copies of the node.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeInfo {
    /// Full name, as written in answers (`name`).
    pub name: String,
    /// The length of the name without the cluster's common domain suffix
    /// (see [`NodeInfo::alias`]).
    pub alias_len: usize,
    /// Node tags.
    pub tags: Vec<String>,
    /// Location (failure-domain) tags, a sorted set (`locationTags`).
    pub location_tags: Vec<TagId>,
    /// Migration-relevant tags, a sorted set (`migTags`).
    pub mig_tags: Vec<TagId>,
    /// Migration tags the node can receive, a sorted set (`rmigTags`).
    pub rmig_tags: Vec<TagId>,
    /// Whether it is the master node (`isMaster`); only cluster data files
    /// say so.
    pub master: bool,
    /// CPUs reserved for the node itself (`nCpu`).
    pub n_cpu: i64,
    /// Relative CPU speed (`tCpuSpeed`); 1 unless a cluster data file
    /// gives it.
    pub cpu_speed: f64,
}

impl NodeInfo {
    /// The name without the cluster's common domain suffix (`alias`); name
    /// lookups match either.
    pub fn alias(&self) -> &str {
        self.name.get(..self.alias_len).unwrap_or(&self.name)
    }

    /// Whether the node carries a standby tag (hsqueeze's
    /// [`STANDBY_PREFIX`]: an offline node it may power on).
    pub fn has_standby_tag(&self) -> bool {
        self.tags.iter().any(|t| t.starts_with(STANDBY_PREFIX))
    }
}

/// The prefix of the node tag that marks a standby node.
pub const STANDBY_PREFIX: &str = "htools:standby:";

/// A node (`Node.Node`). Fields keep Ganeti's names in their docs. What
/// never changes lives in the shared [`NodeInfo`]; the lists a node carries
/// are short and stored inline, so copying a node rarely allocates.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Name, tags and tag sets.
    pub info: Arc<NodeInfo>,
    /// Position in the request's `nodes` (`idx`).
    pub idx: usize,
    /// Index of the node's group (`group`).
    pub group: usize,
    /// Total memory, MiB (`tMem`).
    pub t_mem: f64,
    /// Memory reserved for the node itself, MiB (`nMem`).
    pub n_mem: i64,
    /// Free memory as reported by the node, MiB (`fMem`).
    pub f_mem: i64,
    /// Memory used by running primary instances, MiB (`iMem`).
    pub i_mem: i64,
    /// Memory unaccounted for: recorded free minus reported free (`xMem`).
    pub x_mem: i64,
    /// Total disk, MiB (`tDsk`).
    pub t_dsk: f64,
    /// Free disk, MiB (`fDsk`).
    pub f_dsk: i64,
    /// Physical CPUs (`tCpu`).
    pub t_cpu: f64,
    /// Virtual CPUs in use, starting at the node's reserved CPUs (`uCpu`).
    pub u_cpu: i64,
    /// Total spindles: physical volumes with exclusive storage, else the
    /// `spindle_count` node parameter (`tSpindles`).
    pub t_spindles: i64,
    /// Free spindles (`fSpindles`).
    pub f_spindles: i64,
    /// Whether exclusive storage is on (`exclStorage`).
    pub excl_storage: bool,
    /// htools' offline flag: offline, drained or not vm_capable
    /// (`offline`). Such nodes are never candidates and sit in the offline
    /// part of the metric.
    pub offline: bool,
    /// Maximum vCPU ratio from the group policy (`iPolicyVcpuRatio`).
    pub vcpu_ratio: f64,
    /// Spindle limit: policy spindle ratio × total spindles (`hiSpindles`).
    pub hi_spindles: f64,
    /// Free disk a placement must leave: hbal's `--min-disk` ratio of the
    /// total, rounded down; 0 otherwise (`loDsk`).
    pub lo_dsk: i64,
    /// Indices of primary instances, newest last (hail keeps newest first;
    /// see [`Node::primaries`]) (`pList`).
    pub p_list: SmallVec<[i32; 8]>,
    /// Indices of secondary instances, newest last (`sList`).
    pub s_list: SmallVec<[i32; 8]>,
    /// Memory each primary node would need here on failover, per primary
    /// node (`peers`).
    pub peers: SmallVec<[(i32, i64); 4]>,
    /// The largest peer reservation (`rMem`).
    pub r_mem: i64,
    /// Whether the node fails N+1 (`failN1`).
    pub fail_n1: bool,
    /// Instance load: cpu, mem, dsk, net (`utilLoad`).
    pub util_load: [f64; 4],
    /// Spindles used by instances, without exclusive storage
    /// (`instSpindles`).
    pub inst_spindles: f64,
    /// Sum of location and unsatisfied desired-location scores of the
    /// primaries (`locationScore`).
    pub location_score: i64,
    /// Count of primaries per (node location tag, instance exclusion tag)
    /// pair (`instanceMap`).
    pub instance_map: SmallVec<[((TagId, TagId), i64); 2]>,
    /// Count of primaries per exclusion tag (`pTags`).
    pub p_tags: SmallVec<[(TagId, i64); 4]>,
    /// Free memory counting forthcoming instances (`fMemForth`).
    pub f_mem_forth: i64,
    /// Free disk counting forthcoming instances (`fDskForth`).
    pub f_dsk_forth: i64,
    /// Used vCPUs counting forthcoming instances (`uCpuForth`).
    pub u_cpu_forth: i64,
    /// Free spindles counting forthcoming instances (`fSpindlesForth`).
    pub f_spindles_forth: i64,
    /// Instance spindles counting forthcoming instances
    /// (`instSpindlesForth`).
    pub inst_spindles_forth: f64,
}

/// A node's resources as read (the arguments of `Node.create`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resources {
    /// Total memory, MiB.
    pub t_mem: f64,
    /// Memory reserved for the node itself, MiB.
    pub n_mem: i64,
    /// Free memory as reported, MiB.
    pub f_mem: i64,
    /// Total disk, MiB.
    pub t_dsk: f64,
    /// Free disk, MiB.
    pub f_dsk: i64,
    /// Physical CPUs.
    pub t_cpu: f64,
    /// Total spindles.
    pub t_spindles: i64,
    /// Free spindles.
    pub f_spindles: i64,
    /// Exclusive storage.
    pub excl_storage: bool,
    /// htools' offline flag.
    pub offline: bool,
}

impl Node {
    /// A node without instances (`Node.create`): every instance-derived
    /// value empty, the CPUs in use starting at the reserved ones
    /// (`info.n_cpu`), failing N+1 until the peers are known. The group
    /// policy's values (vCPU ratio, spindle limit) are set when the
    /// cluster is merged.
    pub fn create(info: NodeInfo, idx: usize, group: usize, r: Resources) -> Node {
        let n_cpu = info.n_cpu;
        Node {
            info: Arc::new(info),
            idx,
            group,
            t_mem: r.t_mem,
            n_mem: r.n_mem,
            f_mem: r.f_mem,
            i_mem: 0,
            x_mem: 0,
            t_dsk: r.t_dsk,
            f_dsk: r.f_dsk,
            t_cpu: r.t_cpu,
            u_cpu: n_cpu,
            t_spindles: r.t_spindles,
            f_spindles: r.f_spindles,
            excl_storage: r.excl_storage,
            offline: r.offline,
            vcpu_ratio: 0.0,
            hi_spindles: 0.0,
            lo_dsk: 0,
            p_list: SmallVec::new(),
            s_list: SmallVec::new(),
            peers: SmallVec::new(),
            r_mem: 0,
            fail_n1: true,
            util_load: [0.0; 4],
            inst_spindles: 0.0,
            location_score: 0,
            instance_map: SmallVec::new(),
            p_tags: SmallVec::new(),
            f_mem_forth: r.f_mem,
            f_dsk_forth: r.f_dsk,
            u_cpu_forth: n_cpu,
            f_spindles_forth: r.f_spindles,
            inst_spindles_forth: 0.0,
        }
    }
}

/// Sets primary node `k`'s reservation to `v` (`PeerMap.add`), keeping
/// hail's order: largest reservation first, an entry set now before the
/// equal ones already there.
pub fn set_peer(peers: &mut SmallVec<[(i32, i64); 4]>, k: i32, v: i64) {
    peers.retain(|(key, _)| *key != k);
    let at = peers
        .iter()
        .position(|(_, e)| *e <= v)
        .unwrap_or(peers.len());
    peers.insert(at, (k, v));
}

/// `unallocatedMem` from its inputs: `trunc(tMem) - nMem - iMem - max 0 xMem`.
pub fn unallocated_mem(t_mem: f64, n_mem: i64, i_mem: i64, x_mem: i64) -> i64 {
    truncate(t_mem)
        .wrapping_sub(n_mem)
        .wrapping_sub(i_mem)
        .wrapping_sub(x_mem.max(0))
}

/// Haskell's `truncate :: Double -> Int` for the finite values hailstone
/// accepts.
pub fn truncate(x: f64) -> i64 {
    // `as` truncates toward zero (and saturates), without a libm call.
    x as i64
}

/// Haskell's `delete`: removes the first occurrence, in hail's list order
/// (newest first), of `x`; hailstone stores lists newest last.
fn delete_newest_first(list: &mut SmallVec<[i32; 8]>, x: i32) {
    if let Some(pos) = list.iter().rposition(|&y| y == x) {
        list.remove(pos);
    }
}

/// Size of the intersection of two sorted tag sets.
pub fn intersection_len(a: &[TagId], b: &[TagId]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

impl Node {
    /// Primary instance indices in hail's order (newest first).
    pub fn primaries(&self) -> impl Iterator<Item = i32> + '_ {
        self.p_list.iter().rev().copied()
    }

    /// Secondary instance indices in hail's order (newest first).
    pub fn secondaries(&self) -> impl Iterator<Item = i32> + '_ {
        self.s_list.iter().rev().copied()
    }

    /// Unallocated memory (`unallocatedMem`).
    pub fn unallocated_mem(&self) -> i64 {
        unallocated_mem(self.t_mem, self.n_mem, self.i_mem, self.x_mem)
    }

    /// Available memory (`availMem`): unallocated memory less what the
    /// node keeps for its secondaries' failovers, at least 0.
    pub fn avail_mem(&self) -> i64 {
        self.unallocated_mem().wrapping_sub(self.r_mem).max(0)
    }

    /// Available disk (`availDisk`): free disk above the reserve, at
    /// least 0.
    pub fn avail_disk(&self) -> i64 {
        if self.f_dsk < self.lo_dsk {
            0
        } else {
            self.f_dsk - self.lo_dsk
        }
    }

    /// The most virtual CPUs the node may hold (`hiCpu`: the policy's
    /// ratio times the physical CPUs, rounded down).
    pub fn hi_cpu(&self) -> i64 {
        (self.vcpu_ratio * self.t_cpu).floor() as i64
    }

    /// Available virtual CPUs (`availCpu`), at least 0.
    pub fn avail_cpu(&self) -> i64 {
        let hi = self.hi_cpu();
        if hi >= self.u_cpu {
            hi - self.u_cpu
        } else {
            0
        }
    }

    /// Recorded free memory (`recordedFreeMem`).
    pub fn recorded_free_mem(&self) -> i64 {
        truncate(self.t_mem)
            .wrapping_sub(self.n_mem)
            .wrapping_sub(self.i_mem)
    }

    /// Sum of exclusion tag counts minus distinct tags
    /// (`conflictingPrimaries`).
    pub fn conflicting_primaries(&self) -> i64 {
        let sum: i64 = self.p_tags.iter().map(|(_, c)| *c).sum();
        sum - self.p_tags.len() as i64
    }

    /// Memory a peer would need here on failover (`P.find`).
    pub fn peer_mem(&self, pnode: i32) -> i64 {
        self.peers
            .iter()
            .find(|(k, _)| *k == pnode)
            .map_or(0, |(_, v)| *v)
    }

    /// The instance's unsatisfied desired locations if this node were its
    /// primary (`getInstanceDsrdLocScore`).
    pub fn dsrd_loc_score(&self, inst: &Instance) -> i64 {
        (inst.dsrd_loc_tags.len() - intersection_len(&inst.dsrd_loc_tags, &self.info.location_tags))
            as i64
    }

    /// New free spindles after adding (`act`) or removing an instance
    /// (`calcNewFreeSpindles`); with exclusive storage and unknown disk
    /// spindles an addition yields -1, forcing a spindle failure.
    fn new_free_spindles(&self, add: bool, inst: &Instance, current: i64) -> i64 {
        if !self.excl_storage {
            return 0;
        }
        match inst.total_spindles() {
            None => {
                if add {
                    -1
                } else {
                    current
                }
            }
            Some(s) => {
                if add {
                    current.wrapping_sub(s)
                } else {
                    current.wrapping_add(s)
                }
            }
        }
    }

    /// New instance spindle use (`calcSpindleUse`); zero with exclusive
    /// storage.
    fn new_inst_spindles(&self, add: bool, inst: &Instance, current: f64) -> f64 {
        if self.excl_storage {
            return 0.0;
        }
        if !inst.uses_local_storage() {
            return current;
        }
        let su = inst.spindle_use as f64;
        if add {
            current + su
        } else {
            current - su
        }
    }

    /// The spindle-ratio check's numbers for `used` spindles.
    fn spindle_ratio(&self, used: f64) -> Check {
        Check::SpindleRatio {
            used,
            limit: self.hi_spindles,
            total: self.t_spindles,
        }
    }

    /// The vCPU-ratio check's numbers for `vcpus` virtual CPUs.
    fn vcpu_check(&self, vcpus: i64) -> Check {
        Check::VcpuRatio {
            vcpus,
            cpus: self.t_cpu,
            ratio: self.vcpu_ratio,
        }
    }

    /// The primary node whose instances' failover needs the most memory
    /// here (the first of equals), if any.
    pub fn largest_peer(&self) -> Option<i32> {
        let mut best: Option<(i32, i64)> = None;
        for &(k, m) in &self.peers {
            if best.is_none_or(|(_, b)| m > b) {
                best = Some((k, m));
            }
        }
        best.map(|(k, _)| k)
    }

    /// Whether an instance may migrate from `self` to `target`
    /// (`checkMigration`): every migration tag of the source must be
    /// receivable by the target.
    pub fn check_migration(&self, target: &Node) -> Result<(), FailMode> {
        if self
            .info
            .mig_tags
            .iter()
            .all(|t| target.info.rmig_tags.binary_search(t).is_ok())
        {
            Ok(())
        } else {
            Err(FailMode::Mig)
        }
    }
}
