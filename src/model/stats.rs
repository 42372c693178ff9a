//! A cluster's resource statistics as hspace reports them
//! (`Cluster.CStats`, `totalResources`, `computeAllocationDelta`): free,
//! available, used and total memory, disk, CPUs and spindles, summed over
//! the nodes in key order, and the cluster score.

use crate::haskell::num::integer_to_double;
use crate::model::node::Node;

/// `CStats`: sums over the nodes (integers without overflow, doubles in
/// node order) and the cluster score.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ClusterStats {
    /// Free memory (unallocated).
    pub fmem: i128,
    /// Free disk.
    pub fdsk: i128,
    /// Free spindles.
    pub fspn: i128,
    /// Available memory.
    pub amem: i128,
    /// Available disk.
    pub adsk: i128,
    /// Available virtual CPUs.
    pub acpu: i128,
    /// The most available memory of one node.
    pub mmem: i128,
    /// The most available disk of one node.
    pub mdsk: i128,
    /// The most available virtual CPUs of one node.
    pub mcpu: i128,
    /// Memory used by instances.
    pub imem: i128,
    /// Disk used by instances.
    pub idsk: i128,
    /// Spindles used by instances.
    pub ispn: i128,
    /// Virtual CPUs used by instances.
    pub icpu: i128,
    /// Total memory.
    pub tmem: f64,
    /// Total disk.
    pub tdsk: f64,
    /// Total spindles.
    pub tspn: f64,
    /// Total physical CPUs.
    pub tcpu: f64,
    /// Total virtual CPUs the nodes may hold.
    pub vcpu: i128,
    /// Used virtual CPUs in physical CPUs (each node's by its ratio).
    pub ncpu: f64,
    /// Memory not accounted for.
    pub xmem: i128,
    /// The nodes' own memory.
    pub nmem: i128,
    /// The cluster score.
    pub score: f64,
    /// The number of instances (primaries).
    pub ninst: usize,
}

/// The efficiencies (`memEff`, `dskEff`, `cpuEff`, `spnEff`) convert the
/// sums as GHC's `fromIntegral` does ([`integer_to_double`]): sums that
/// leave `Int` (a huge tiered spec's wrapped usage) are truncated.
impl ClusterStats {
    /// `totalResources`: the statistics of `nodes` (in key order) with the
    /// cluster `score`.
    pub fn of<'a>(nodes: impl Iterator<Item = &'a Node>, score: f64) -> ClusterStats {
        let mut cs = ClusterStats::default();
        for n in nodes {
            let amem = i128::from(n.avail_mem());
            let adsk = i128::from(n.avail_disk());
            let acpu = i128::from(n.avail_cpu());
            cs.fmem += i128::from(n.unallocated_mem());
            cs.fdsk += i128::from(n.f_dsk);
            cs.fspn += i128::from(n.f_spindles);
            cs.amem += amem;
            cs.adsk += adsk;
            cs.acpu += acpu;
            cs.mmem = cs.mmem.max(amem);
            cs.mdsk = cs.mdsk.max(adsk);
            cs.mcpu = cs.mcpu.max(acpu);
            cs.imem += i128::from(n.i_mem);
            cs.idsk += i128::from(crate::model::node::truncate(n.t_dsk)) - i128::from(n.f_dsk);
            cs.ispn += i128::from(n.t_spindles) - i128::from(n.f_spindles);
            cs.icpu += i128::from(n.u_cpu);
            cs.tmem += n.t_mem;
            cs.tdsk += n.t_dsk;
            cs.tspn += n.t_spindles as f64;
            cs.tcpu += n.t_cpu;
            cs.vcpu += i128::from(n.hi_cpu());
            cs.ncpu += n.u_cpu as f64 / n.vcpu_ratio;
            cs.xmem += i128::from(n.x_mem);
            cs.nmem += i128::from(n.n_mem);
            cs.ninst += n.p_list.len();
        }
        cs.score = score;
        cs
    }

    /// Memory efficiency: instance memory over total memory.
    pub fn mem_eff(&self) -> f64 {
        integer_to_double(self.imem) / self.tmem
    }

    /// Disk efficiency.
    pub fn dsk_eff(&self) -> f64 {
        integer_to_double(self.idsk) / self.tdsk
    }

    /// CPU efficiency: used over allowed virtual CPUs.
    pub fn cpu_eff(&self) -> f64 {
        integer_to_double(self.icpu) / integer_to_double(self.vcpu)
    }

    /// Spindle efficiency.
    pub fn spn_eff(&self) -> f64 {
        integer_to_double(self.ispn) / self.tspn
    }
}

/// `AllocInfo`: CPUs, physical CPUs, memory, disk and spindles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AllocInfo {
    pub vcpus: i128,
    pub ncpus: f64,
    pub mem: i128,
    pub disk: i128,
    pub spn: i128,
}

/// `computeAllocationDelta`: what the instances used before, what the
/// allocation added, and what stays unallocated after it.
pub fn allocation_delta(ini: &ClusterStats, fin: &ClusterStats) -> [AllocInfo; 3] {
    let used = AllocInfo {
        vcpus: ini.icpu,
        ncpus: ini.ncpu,
        mem: ini.imem,
        disk: ini.idsk,
        spn: ini.ispn,
    };
    let added = AllocInfo {
        vcpus: fin.icpu - ini.icpu,
        ncpus: fin.ncpu - ini.ncpu,
        mem: fin.imem - ini.imem,
        disk: fin.idsk - ini.idsk,
        spn: fin.ispn - ini.ispn,
    };
    let unallocated = AllocInfo {
        vcpus: fin.vcpu - fin.icpu,
        ncpus: fin.tcpu - fin.ncpu,
        mem: i128::from(crate::model::node::truncate(fin.tmem)) - fin.imem,
        disk: i128::from(crate::model::node::truncate(fin.tdsk)) - fin.idsk,
        spn: i128::from(crate::model::node::truncate(fin.tspn)) - fin.ispn,
    };
    [used, added, unallocated]
}
