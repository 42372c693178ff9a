//! The metric's view of a node: the per-node quantities the cluster
//! metric reads ([`Scalars`]), taken from a node as it is
//! ([`Node::scalars`]), and the free fractions they give (`pMem`, `pDsk`,
//! `pDskForth`, `computePDsk`). A placement probe yields the would-be
//! values beside its checks (`Node::scalars_with_pri`,
//! `Node::scalars_with_sec`).
//!
//! * Owns: [`Scalars`] and [`compute_p_dsk`].
//! * May use: the node's record and its `unallocatedMem`.
//! * Must never: change a node, or weigh the quantities (the score does).

use super::{unallocated_mem, Node};

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
}
