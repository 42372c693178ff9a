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

use std::sync::Arc;

use smallvec::SmallVec;

use super::instance::Instance;
use super::refusal::{Check, Refusal};
use super::TagId;
use crate::model::types::{FailMode, SoftChecks};

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

/// The per-node quantities the cluster metric reads. A node yields them
/// with [`Node::scalars`]; a placement probe yields the would-be values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scalars {
    pub offline: bool,
    pub t_mem: f64,
    pub n_mem: i64,
    pub i_mem: i64,
    pub x_mem: i64,
    pub t_dsk: f64,
    pub f_dsk: i64,
    pub t_spindles: i64,
    pub f_spindles: i64,
    pub excl_storage: bool,
    pub fail_n1: bool,
    pub n_pri: usize,
    pub n_sec: usize,
    pub r_mem: i64,
    pub u_cpu: i64,
    pub t_cpu: f64,
    pub util_load: [f64; 4],
    pub conflicting_primaries: i64,
    pub inst_spindles: f64,
    pub hi_spindles: f64,
    pub f_mem_forth: i64,
    pub f_dsk_forth: i64,
    pub f_spindles_forth: i64,
    pub u_cpu_forth: i64,
    pub inst_spindles_forth: f64,
    pub location_score: i64,
    /// Relative CPU speed (`tCpuSpeed`).
    pub cpu_speed: f64,
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

/// `computePDsk`: the free fraction, or 1 when the total is zero.
pub fn compute_p_dsk(free: i64, total: f64) -> f64 {
    if total == 0.0 {
        1.0
    } else {
        free as f64 / total
    }
}

impl Scalars {
    /// Unallocated memory (`unallocatedMem`): recorded free memory minus any
    /// positive missing memory.
    pub fn unallocated_mem(&self) -> i64 {
        unallocated_mem(self.t_mem, self.n_mem, self.i_mem, self.x_mem)
    }

    /// Free memory fraction (`pMem`).
    pub fn p_mem(&self) -> f64 {
        self.unallocated_mem() as f64 / self.t_mem
    }

    /// Free disk fraction (`pDsk`): spindles with exclusive storage.
    pub fn p_dsk(&self) -> f64 {
        if self.excl_storage {
            compute_p_dsk(self.f_spindles, self.t_spindles as f64)
        } else {
            compute_p_dsk(self.f_dsk, self.t_dsk)
        }
    }

    /// Free disk fraction counting forthcoming instances (`pDskForth`).
    pub fn p_dsk_forth(&self) -> f64 {
        if self.excl_storage {
            compute_p_dsk(self.f_spindles_forth, self.t_spindles as f64)
        } else {
            compute_p_dsk(self.f_dsk_forth, self.t_dsk)
        }
    }
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

/// The would-be state of a node after adding a primary instance, as
/// computed by [`Node::probe_add_pri`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PriProbe {
    /// Whether the instance is forthcoming (only the forthcoming mirrors
    /// and the tags change then).
    forthcoming: bool,
    i_mem: i64,
    fail_n1: bool,
    f_dsk: i64,
    f_spindles: i64,
    inst_spindles: f64,
    u_cpu: i64,
    location_delta: i64,
    conflicts_delta: i64,
    f_mem_forth: i64,
    f_dsk_forth: i64,
    f_spindles_forth: i64,
    inst_spindles_forth: f64,
    u_cpu_forth: i64,
    /// The instance's utilisation (`util`), added to the node's load.
    util: [f64; 4],
}

impl PriProbe {
    /// The same probe for the instance with `extra` more location score
    /// (the pair search probes a primary once, before knowing the
    /// secondary that sets the instance's location score).
    pub fn with_extra_location(mut self, extra: i64) -> PriProbe {
        if !self.forthcoming {
            self.location_delta += extra;
        }
        self
    }
}

/// The would-be state of a node after adding a secondary instance, as
/// computed by [`Node::probe_add_sec`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SecProbe {
    forthcoming: bool,
    f_dsk: i64,
    f_spindles: i64,
    inst_spindles: f64,
    fail_n1: bool,
    r_mem: i64,
    peer: i32,
    peer_mem: i64,
    f_dsk_forth: i64,
    f_spindles_forth: i64,
    inst_spindles_forth: f64,
    /// The instance's disk utilisation, added to the node's disk load.
    util_dsk: f64,
}

/// Haskell's `delete`: removes the first occurrence, in hail's list order
/// (newest first), of `x`; hailstone stores lists newest last.
fn delete_newest_first(list: &mut SmallVec<[i32; 8]>, x: i32) {
    if let Some(pos) = list.iter().rposition(|&y| y == x) {
        list.remove(pos);
    }
}

/// Adds one to a tag count map (`addTag`).
fn add_tag<A: smallvec::Array<Item = (K, i64)>, K: PartialEq + Copy>(
    map: &mut SmallVec<A>,
    key: K,
) {
    match map.iter_mut().find(|(k, _)| *k == key) {
        Some((_, v)) => *v = v.wrapping_add(1),
        None => map.push((key, 1)),
    }
}

/// Removes one from a tag count map, dropping the key at zero (`delTag`).
fn del_tag<A: smallvec::Array<Item = (K, i64)>, K: PartialEq + Copy>(
    map: &mut SmallVec<A>,
    key: K,
) {
    if let Some(pos) = map.iter().position(|(k, _)| *k == key) {
        if map[pos].1 > 1 {
            map[pos].1 -= 1;
        } else {
            map.remove(pos);
        }
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
    /// The metric's view of the node.
    pub fn scalars(&self) -> Scalars {
        Scalars {
            offline: self.offline,
            t_mem: self.t_mem,
            n_mem: self.n_mem,
            i_mem: self.i_mem,
            x_mem: self.x_mem,
            t_dsk: self.t_dsk,
            f_dsk: self.f_dsk,
            t_spindles: self.t_spindles,
            f_spindles: self.f_spindles,
            excl_storage: self.excl_storage,
            fail_n1: self.fail_n1,
            n_pri: self.p_list.len(),
            n_sec: self.s_list.len(),
            r_mem: self.r_mem,
            u_cpu: self.u_cpu,
            t_cpu: self.t_cpu,
            util_load: self.util_load,
            cpu_speed: self.info.cpu_speed,
            conflicting_primaries: self.conflicting_primaries(),
            inst_spindles: self.inst_spindles,
            hi_spindles: self.hi_spindles,
            f_mem_forth: self.f_mem_forth,
            f_dsk_forth: self.f_dsk_forth,
            f_spindles_forth: self.f_spindles_forth,
            u_cpu_forth: self.u_cpu_forth,
            inst_spindles_forth: self.inst_spindles_forth,
            location_score: self.location_score,
        }
    }

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

    /// Change in conflicting-primaries count from adding the instance's
    /// exclusion tags.
    fn conflicts_delta(&self, inst: &Instance) -> i64 {
        let mut delta = 0;
        for (i, t) in inst.excl_tags.iter().enumerate() {
            if self.p_tags.iter().any(|(k, _)| k == t) || inst.excl_tags[..i].contains(t) {
                delta += 1;
            }
        }
        delta
    }

    /// Checks adding `inst` as a primary and computes the result
    /// (`addPriEx`). [`SoftChecks::Ignore`] skips the soft checks.
    #[inline]
    pub fn probe_add_pri(&self, soft: SoftChecks, inst: &Instance) -> Result<PriProbe, FailMode> {
        self.check_add_pri(soft, inst).map_err(|r| r.mode)
    }

    /// [`Node::probe_add_pri`] with the refused check's numbers.
    ///
    /// Every check compares an amount that grows with one resource of the
    /// instance (memory, disk, vCPUs, spindles) or with none, and fails
    /// when the amount is too large, as long as no sum wraps around
    /// ([`Node::add_pri_wraps`]): `search::space::steady` skips the sizes
    /// of the tiered count on that ground. A new check must keep it so and
    /// name its resource in `Check::grows_with`.
    #[inline]
    pub fn check_add_pri(&self, soft: SoftChecks, inst: &Instance) -> Result<PriProbe, Refusal> {
        let strict = soft == SoftChecks::Enforce;
        let uses_disk = inst.uses_local_storage();
        let l_cpu = self.vcpu_ratio;
        let online = inst.not_offline();
        let mem_need = if inst.uses_memory() { inst.mem } else { 0 };
        let now = Refusal::now;

        let f_mem_forth = self.f_mem_forth.wrapping_sub(inst.mem);
        let f_dsk_forth = if uses_disk {
            self.f_dsk_forth.wrapping_sub(inst.dsk)
        } else {
            self.f_dsk_forth
        };
        let f_spindles_forth = self.new_free_spindles(true, inst, self.f_spindles_forth);
        let inst_spindles_forth = self.new_inst_spindles(true, inst, self.inst_spindles_forth);
        let u_cpu_forth = if online {
            self.u_cpu_forth.wrapping_add(inst.vcpus)
        } else {
            self.u_cpu_forth
        };
        let forth_violation = || -> Option<Refusal> {
            let p_cpu_forth = u_cpu_forth as f64 / self.t_cpu;
            let (mode, check) = if f_mem_forth <= 0 {
                let (need, free) = (inst.mem, self.f_mem_forth);
                (FailMode::Mem, Check::Memory { need, free })
            } else if uses_disk && f_dsk_forth <= 0 {
                let (need, free) = (inst.dsk, self.f_dsk_forth);
                (FailMode::Disk, Check::Disk { need, free })
            } else if uses_disk && f_dsk_forth < self.lo_dsk {
                // loDsk is always 0 in hail.
                let (left, reserve) = (f_dsk_forth, self.lo_dsk);
                (FailMode::Disk, Check::DiskReserve { left, reserve })
            } else if uses_disk && self.excl_storage && f_spindles_forth < 0 {
                let free = self.f_spindles_forth;
                let need = free.wrapping_sub(f_spindles_forth);
                (FailMode::Spindles, Check::Spindles { need, free })
            } else if uses_disk && inst_spindles_forth > self.hi_spindles {
                (FailMode::Disk, self.spindle_ratio(inst_spindles_forth))
            } else if l_cpu >= 0.0 && l_cpu < p_cpu_forth {
                (FailMode::Cpu, self.vcpu_check(u_cpu_forth))
            } else {
                return None;
            };
            Some(Refusal::forthcoming(mode, check))
        };
        let conflicts_delta = self.conflicts_delta(inst);

        if inst.forthcoming {
            if strict {
                if let Some(f) = forth_violation() {
                    return Err(f);
                }
            }
            return Ok(PriProbe {
                forthcoming: true,
                i_mem: self.i_mem,
                fail_n1: self.fail_n1,
                f_dsk: self.f_dsk,
                f_spindles: self.f_spindles,
                inst_spindles: self.inst_spindles,
                u_cpu: self.u_cpu,
                location_delta: 0,
                conflicts_delta,
                f_mem_forth,
                f_dsk_forth,
                f_spindles_forth,
                inst_spindles_forth,
                u_cpu_forth,
                util: inst.util,
            });
        }

        let i_mem = self.i_mem.wrapping_add(mem_need);
        let new_free_mem = unallocated_mem(self.t_mem, self.n_mem, i_mem, self.x_mem);
        let fail_n1 = new_free_mem <= self.r_mem;
        let f_dsk = if uses_disk {
            self.f_dsk.wrapping_sub(inst.dsk)
        } else {
            self.f_dsk
        };
        let f_spindles = self.new_free_spindles(true, inst, self.f_spindles);
        let inst_spindles = self.new_inst_spindles(true, inst, self.inst_spindles);
        let u_cpu = if online {
            self.u_cpu.wrapping_add(inst.vcpus)
        } else {
            self.u_cpu
        };
        let p_cpu = u_cpu as f64 / self.t_cpu;

        if new_free_mem <= 0 {
            let free = self.unallocated_mem();
            return Err(now(
                FailMode::Mem,
                Check::Memory {
                    need: mem_need,
                    free,
                },
            ));
        }
        if uses_disk && f_dsk <= 0 {
            let (need, free) = (inst.dsk, self.f_dsk);
            return Err(now(FailMode::Disk, Check::Disk { need, free }));
        }
        if strict && uses_disk && f_dsk < self.lo_dsk {
            let (left, reserve) = (f_dsk, self.lo_dsk);
            return Err(now(FailMode::Disk, Check::DiskReserve { left, reserve }));
        }
        if uses_disk && self.excl_storage && f_spindles < 0 {
            let free = self.f_spindles;
            let need = free.wrapping_sub(f_spindles);
            return Err(now(FailMode::Spindles, Check::Spindles { need, free }));
        }
        if strict && uses_disk && inst_spindles > self.hi_spindles {
            return Err(now(FailMode::Disk, self.spindle_ratio(inst_spindles)));
        }
        if strict && fail_n1 && !self.fail_n1 {
            let check = Check::N1Reserve {
                left: new_free_mem,
                reserved: self.r_mem,
                peer: self.largest_peer(),
            };
            return Err(now(FailMode::Mem, check));
        }
        if strict && l_cpu >= 0.0 && l_cpu < p_cpu {
            return Err(now(FailMode::Cpu, self.vcpu_check(u_cpu)));
        }
        if strict {
            if let Some(&tag) = inst
                .excl_tags
                .iter()
                .find(|t| self.p_tags.iter().any(|(k, _)| k == *t))
            {
                return Err(now(FailMode::Tags, Check::ExclusionTag { tag }));
            }
        }
        if strict {
            if let Some(f) = forth_violation() {
                return Err(f);
            }
        }
        Ok(PriProbe {
            forthcoming: false,
            i_mem,
            fail_n1,
            f_dsk,
            f_spindles,
            inst_spindles,
            u_cpu,
            location_delta: inst.location_score + self.dsrd_loc_score(inst),
            conflicts_delta,
            f_mem_forth,
            f_dsk_forth,
            f_spindles_forth,
            inst_spindles_forth,
            u_cpu_forth,
            util: inst.util,
        })
    }

    /// Whether a sum or difference of [`Node::check_add_pri`] on `inst`
    /// wraps around (leaves `i64`, where Haskell's `Int` wraps too): the
    /// checks are then no longer monotone in the instance's resources.
    pub fn add_pri_wraps(&self, inst: &Instance) -> bool {
        let uses_disk = inst.uses_local_storage();
        let mem_need = if inst.uses_memory() { inst.mem } else { 0 };
        let memory = self.f_mem_forth.checked_sub(inst.mem).is_none()
            || self
                .i_mem
                .checked_add(mem_need)
                .and_then(|i_mem| {
                    truncate(self.t_mem)
                        .checked_sub(self.n_mem)?
                        .checked_sub(i_mem)?
                        .checked_sub(self.x_mem.max(0))
                })
                .is_none();
        let disk = uses_disk
            && (self.f_dsk.checked_sub(inst.dsk).is_none()
                || self.f_dsk_forth.checked_sub(inst.dsk).is_none());
        let spindles = self.excl_storage
            && match inst
                .disks
                .iter()
                .map(|d| d.spindles)
                .collect::<Option<Vec<i64>>>()
            {
                None => false,
                Some(each) => each
                    .iter()
                    .try_fold(0i64, |sum, s| sum.checked_add(*s))
                    .and_then(|total| {
                        self.f_spindles.checked_sub(total)?;
                        self.f_spindles_forth.checked_sub(total)
                    })
                    .is_none(),
            };
        let cpu = inst.not_offline()
            && (self.u_cpu.checked_add(inst.vcpus).is_none()
                || self.u_cpu_forth.checked_add(inst.vcpus).is_none());
        memory || disk || spindles || cpu
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

    /// The metric's view of the node after a successful primary probe.
    pub fn scalars_with_pri(&self, p: &PriProbe) -> Scalars {
        let mut s = self.scalars();
        s.f_mem_forth = p.f_mem_forth;
        s.f_dsk_forth = p.f_dsk_forth;
        s.u_cpu_forth = p.u_cpu_forth;
        s.f_spindles_forth = p.f_spindles_forth;
        s.inst_spindles_forth = p.inst_spindles_forth;
        s.conflicting_primaries += p.conflicts_delta;
        if p.forthcoming {
            return s;
        }
        s.i_mem = p.i_mem;
        s.fail_n1 = p.fail_n1;
        s.f_dsk = p.f_dsk;
        s.f_spindles = p.f_spindles;
        s.inst_spindles = p.inst_spindles;
        s.u_cpu = p.u_cpu;
        s.n_pri += 1;
        for (l, u) in s.util_load.iter_mut().zip(p.util) {
            *l += u;
        }
        s.location_score += p.location_delta;
        s
    }

    /// Applies a successful primary probe for `inst`.
    pub fn commit_add_pri(&mut self, p: &PriProbe, inst: &Instance) {
        for &t in inst.excl_tags.iter() {
            add_tag(&mut self.p_tags, t);
        }
        self.f_mem_forth = p.f_mem_forth;
        self.f_dsk_forth = p.f_dsk_forth;
        self.u_cpu_forth = p.u_cpu_forth;
        self.f_spindles_forth = p.f_spindles_forth;
        self.inst_spindles_forth = p.inst_spindles_forth;
        if p.forthcoming {
            return;
        }
        self.p_list.push(inst.idx);
        self.i_mem = p.i_mem;
        self.f_dsk = p.f_dsk;
        self.fail_n1 = p.fail_n1;
        self.u_cpu = p.u_cpu;
        for (l, u) in self.util_load.iter_mut().zip(p.util) {
            *l += u;
        }
        self.inst_spindles = p.inst_spindles;
        self.f_spindles = p.f_spindles;
        self.location_score = self.location_score.wrapping_add(p.location_delta);
        self.add_location_exclusion_pairs(inst);
    }

    /// Adds `inst` as a primary (`addPriEx`).
    pub fn add_pri(&mut self, soft: SoftChecks, inst: &Instance) -> Result<(), FailMode> {
        let p = self.probe_add_pri(soft, inst)?;
        self.commit_add_pri(&p, inst);
        Ok(())
    }

    /// The (location tag, exclusion tag) pairs the instance contributes
    /// here as a primary (`getLocationExclusionPairs`).
    fn location_exclusion_pairs<'a>(
        &'a self,
        inst: &'a Instance,
    ) -> impl Iterator<Item = (TagId, TagId)> + 'a {
        self.info
            .location_tags
            .iter()
            .flat_map(move |&l| inst.excl_tags.iter().map(move |&e| (l, e)))
    }

    fn add_location_exclusion_pairs(&mut self, inst: &Instance) {
        let pairs: Vec<(TagId, TagId)> = self.location_exclusion_pairs(inst).collect();
        for pair in pairs {
            add_tag(&mut self.instance_map, pair);
        }
    }

    /// The location-exclusion pairs adding `inst` as a primary would add.
    pub fn new_location_exclusion_pairs<'a>(
        &'a self,
        inst: &'a Instance,
    ) -> impl Iterator<Item = (TagId, TagId)> + 'a {
        self.location_exclusion_pairs(inst)
    }

    /// Removes a primary instance (`removePri`). The instance is taken off
    /// the primary list by its own `idx` (nothing happens to the list if it
    /// isn't there, as in hail).
    pub fn remove_pri(&mut self, inst: &Instance) {
        let uses_disk = inst.uses_local_storage();
        let online = inst.not_offline();
        if !inst.forthcoming {
            delete_newest_first(&mut self.p_list, inst.idx);
            if inst.uses_memory() {
                self.i_mem = self.i_mem.wrapping_sub(inst.mem);
            }
            let new_free_mem = self.unallocated_mem();
            self.fail_n1 = new_free_mem <= self.r_mem;
            if uses_disk {
                self.f_dsk = self.f_dsk.wrapping_add(inst.dsk);
            }
            self.f_spindles = self.new_free_spindles(false, inst, self.f_spindles);
            self.inst_spindles = self.new_inst_spindles(false, inst, self.inst_spindles);
            if online {
                self.u_cpu = self.u_cpu.wrapping_sub(inst.vcpus);
            }
            for (l, u) in self.util_load.iter_mut().zip(inst.util) {
                *l -= u;
            }
            self.location_score = self
                .location_score
                .wrapping_sub(inst.location_score)
                .wrapping_sub(self.dsrd_loc_score(inst));
            let pairs: Vec<(TagId, TagId)> = self.location_exclusion_pairs(inst).collect();
            for pair in pairs {
                del_tag(&mut self.instance_map, pair);
            }
        }
        for &t in inst.excl_tags.iter() {
            del_tag(&mut self.p_tags, t);
        }
        self.f_mem_forth = self.f_mem_forth.wrapping_add(inst.mem);
        if uses_disk {
            self.f_dsk_forth = self.f_dsk_forth.wrapping_add(inst.dsk);
        }
        self.f_spindles_forth = self.new_free_spindles(false, inst, self.f_spindles_forth);
        self.inst_spindles_forth = self.new_inst_spindles(false, inst, self.inst_spindles_forth);
        if online {
            self.u_cpu_forth = self.u_cpu_forth.wrapping_sub(inst.vcpus);
        }
    }

    /// Checks adding `inst` as a secondary whose primary is node `pdx`, and
    /// computes the result (`addSecExEx`). `ignore_disks` skips the free
    /// disk check (failing over off an offline primary);
    /// [`SoftChecks::Ignore`] skips the soft checks.
    #[inline]
    pub fn probe_add_sec(
        &self,
        ignore_disks: bool,
        soft: SoftChecks,
        inst: &Instance,
        pdx: i32,
    ) -> Result<SecProbe, FailMode> {
        self.check_add_sec(ignore_disks, soft, inst, pdx)
            .map_err(|r| r.mode)
    }

    /// [`Node::probe_add_sec`] with the refused check's numbers.
    #[inline]
    pub fn check_add_sec(
        &self,
        ignore_disks: bool,
        soft: SoftChecks,
        inst: &Instance,
        pdx: i32,
    ) -> Result<SecProbe, Refusal> {
        let strict = soft == SoftChecks::Enforce;
        let need = if inst.uses_sec_mem() { inst.mem } else { 0 };
        let peer_mem = self.peer_mem(pdx).wrapping_add(need);
        let now = Refusal::now;

        let f_dsk_forth = self.f_dsk_forth.wrapping_sub(inst.dsk);
        let f_spindles_forth = self.new_free_spindles(true, inst, self.f_spindles_forth);
        let inst_spindles_forth = self.new_inst_spindles(true, inst, self.inst_spindles_forth);
        let forth_violation = || -> Option<Refusal> {
            let (mode, check) = if !inst.has_secondary() {
                (FailMode::Disk, Check::NoSecondary)
            } else if f_dsk_forth <= 0 {
                let (need, free) = (inst.dsk, self.f_dsk_forth);
                (FailMode::Disk, Check::Disk { need, free })
            } else if f_dsk_forth < self.lo_dsk {
                let (left, reserve) = (f_dsk_forth, self.lo_dsk);
                (FailMode::Disk, Check::DiskReserve { left, reserve })
            } else if self.excl_storage && f_spindles_forth < 0 {
                let free = self.f_spindles_forth;
                let need = free.wrapping_sub(f_spindles_forth);
                (FailMode::Spindles, Check::Spindles { need, free })
            } else if inst_spindles_forth > self.hi_spindles {
                (FailMode::Disk, self.spindle_ratio(inst_spindles_forth))
            } else if need >= self.f_mem_forth {
                let free = self.f_mem_forth;
                (FailMode::Mem, Check::FailoverMemory { need, free })
            } else {
                return None;
            };
            Some(Refusal::forthcoming(mode, check))
        };

        if inst.forthcoming {
            if strict {
                if let Some(f) = forth_violation() {
                    return Err(f);
                }
            }
            return Ok(SecProbe {
                forthcoming: true,
                f_dsk: self.f_dsk,
                f_spindles: self.f_spindles,
                inst_spindles: self.inst_spindles,
                fail_n1: self.fail_n1,
                r_mem: self.r_mem,
                peer: pdx,
                peer_mem,
                f_dsk_forth,
                f_spindles_forth,
                inst_spindles_forth,
                util_dsk: inst.util[2],
            });
        }

        let old_mem = self.unallocated_mem();
        let f_dsk = self.f_dsk.wrapping_sub(inst.dsk);
        let f_spindles = self.new_free_spindles(true, inst, self.f_spindles);
        let inst_spindles = self.new_inst_spindles(true, inst, self.inst_spindles);
        let r_mem = self.r_mem.max(peer_mem);
        let fail_n1 = old_mem <= r_mem;

        if !inst.has_secondary() {
            return Err(now(FailMode::Disk, Check::NoSecondary));
        }
        if !ignore_disks && f_dsk <= 0 {
            let (need, free) = (inst.dsk, self.f_dsk);
            return Err(now(FailMode::Disk, Check::Disk { need, free }));
        }
        if strict && f_dsk < self.lo_dsk {
            let (left, reserve) = (f_dsk, self.lo_dsk);
            return Err(now(FailMode::Disk, Check::DiskReserve { left, reserve }));
        }
        if self.excl_storage && f_spindles < 0 {
            let free = self.f_spindles;
            let need = free.wrapping_sub(f_spindles);
            return Err(now(FailMode::Spindles, Check::Spindles { need, free }));
        }
        if strict && inst_spindles > self.hi_spindles {
            return Err(now(FailMode::Disk, self.spindle_ratio(inst_spindles)));
        }
        if strict && need >= old_mem {
            let free = old_mem;
            return Err(now(FailMode::Mem, Check::FailoverMemory { need, free }));
        }
        if strict && fail_n1 && !self.fail_n1 {
            // The reservation that fails is this primary's when it grew
            // past the others.
            let peer = if peer_mem >= self.r_mem {
                Some(pdx)
            } else {
                self.largest_peer()
            };
            let check = Check::N1Reserve {
                left: old_mem,
                reserved: r_mem,
                peer,
            };
            return Err(now(FailMode::Mem, check));
        }
        if strict {
            if let Some(f) = forth_violation() {
                return Err(f);
            }
        }
        Ok(SecProbe {
            forthcoming: false,
            f_dsk,
            f_spindles,
            inst_spindles,
            fail_n1,
            r_mem,
            peer: pdx,
            peer_mem,
            f_dsk_forth,
            f_spindles_forth,
            inst_spindles_forth,
            util_dsk: inst.util[2],
        })
    }

    /// The metric's view of the node after a successful secondary probe.
    pub fn scalars_with_sec(&self, p: &SecProbe) -> Scalars {
        let mut s = self.scalars();
        s.f_dsk_forth = p.f_dsk_forth;
        s.f_spindles_forth = p.f_spindles_forth;
        s.inst_spindles_forth = p.inst_spindles_forth;
        if p.forthcoming {
            return s;
        }
        s.f_dsk = p.f_dsk;
        s.f_spindles = p.f_spindles;
        s.inst_spindles = p.inst_spindles;
        s.fail_n1 = p.fail_n1;
        s.r_mem = p.r_mem;
        s.n_sec += 1;
        s.util_load[2] += p.util_dsk;
        s
    }

    /// Applies a successful secondary probe for `inst`.
    pub fn commit_add_sec(&mut self, p: &SecProbe, inst: &Instance) {
        self.f_dsk_forth = p.f_dsk_forth;
        self.f_spindles_forth = p.f_spindles_forth;
        self.inst_spindles_forth = p.inst_spindles_forth;
        if p.forthcoming {
            return;
        }
        self.s_list.push(inst.idx);
        self.f_dsk = p.f_dsk;
        set_peer(&mut self.peers, p.peer, p.peer_mem);
        self.fail_n1 = p.fail_n1;
        self.r_mem = p.r_mem;
        self.util_load[2] += p.util_dsk;
        self.inst_spindles = p.inst_spindles;
        self.f_spindles = p.f_spindles;
    }

    /// Adds `inst` as a secondary with primary `pdx` (`addSecExEx`).
    pub fn add_sec(
        &mut self,
        ignore_disks: bool,
        soft: SoftChecks,
        inst: &Instance,
        pdx: i32,
    ) -> Result<(), FailMode> {
        let p = self.probe_add_sec(ignore_disks, soft, inst, pdx)?;
        self.commit_add_sec(&p, inst);
        Ok(())
    }

    /// Removes a secondary instance (`removeSec`): its peer reservation
    /// shrinks and the N+1 flag is recomputed.
    pub fn remove_sec(&mut self, inst: &Instance) {
        let uses_disk = inst.uses_local_storage();
        if !inst.forthcoming {
            delete_newest_first(&mut self.s_list, inst.idx);
            if uses_disk {
                self.f_dsk = self.f_dsk.wrapping_add(inst.dsk);
            }
            self.f_spindles = self.new_free_spindles(false, inst, self.f_spindles);
            self.inst_spindles = self.new_inst_spindles(false, inst, self.inst_spindles);
            let pnode = inst.p_node;
            let old_peem = self.peer_mem(pnode);
            let new_peem = if inst.uses_sec_mem() {
                old_peem.wrapping_sub(inst.mem)
            } else {
                old_peem
            };
            if new_peem > 0 {
                set_peer(&mut self.peers, pnode, new_peem);
            } else {
                self.peers.retain(|(k, _)| *k != pnode);
            }
            if old_peem >= self.r_mem {
                self.r_mem = self.peers.iter().map(|(_, v)| *v).max().unwrap_or(0);
            }
            self.fail_n1 = self.unallocated_mem() <= self.r_mem;
            self.util_load[2] -= inst.util[2];
        }
        if uses_disk {
            self.f_dsk_forth = self.f_dsk_forth.wrapping_add(inst.dsk);
        }
        self.f_spindles_forth = self.new_free_spindles(false, inst, self.f_spindles_forth);
        self.inst_spindles_forth = self.new_inst_spindles(false, inst, self.inst_spindles_forth);
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
