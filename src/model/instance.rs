//! Instances (virtual machines) as the placement code sees them: resource
//! needs, disk template, run state, the tags that matter to placement, and
//! where the instance currently runs.
//!
//! Mirrors Ganeti's `Ganeti.HTools.Instance`, including its bookkeeping: an
//! instance carries its own `idx`, which is what nodes list in their
//! primary/secondary lists. It normally equals the instance's position in
//! the cluster's instance list, but not always (a newly allocated instance
//! keeps `idx = -1`), and hail's behaviour depends on that difference.

use std::sync::Arc;

use super::types::{DiskTemplate, MirrorType, RunState};
use super::TagId;

/// Index meaning "no node" (`Node.noSecondary`).
pub const NO_NODE: i32 = -1;

/// One disk of an instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Disk {
    /// Size in MiB.
    pub size: i64,
    /// Spindles (physical volumes) the disk takes with exclusive storage.
    pub spindles: Option<i64>,
}

/// One network interface; only its network matters to placement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nic {
    /// The network UUID the NIC is connected to, if any.
    pub network: Option<String>,
}

/// An instance (`Instance.Instance`).
///
/// The descriptive fields that no placement changes (names, disks, tags,
/// NICs) are shared (`Arc`): the search copies instance records for every
/// trial move, and a copy must not allocate.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    /// Full name, as written in answers.
    pub name: Arc<str>,
    /// The length of the name without the cluster's common domain suffix
    /// (see [`Instance::alias`]).
    pub alias_len: usize,
    /// The instance's own index (`Instance.idx`); `-1` for an instance being
    /// allocated.
    pub idx: i32,
    /// Memory, MiB.
    pub mem: i64,
    /// Disk accounted on nodes, MiB (`disk_space_total`, not the sum of
    /// the disk sizes).
    pub dsk: i64,
    /// The individual disks.
    pub disks: Arc<[Disk]>,
    /// Virtual CPUs.
    pub vcpus: i64,
    /// Run state (`runSt`).
    pub run_state: RunState,
    /// Whether the instance is auto-balanced (`autoBalance`); always on
    /// for instances of an iallocator request.
    pub auto_balance: bool,
    /// Primary node index, or [`NO_NODE`].
    pub p_node: i32,
    /// Secondary node index, or [`NO_NODE`].
    pub s_node: i32,
    /// Disk template.
    pub disk_template: DiskTemplate,
    /// Spindles used (`spindle_use`), for the non-exclusive-storage spindle
    /// accounting.
    pub spindle_use: i64,
    /// All tags, as given.
    pub tags: Arc<[String]>,
    /// Exclusion tags: tags starting with a `htools:iextags:` prefix, in tag
    /// order, duplicates kept.
    pub excl_tags: Arc<[TagId]>,
    /// Desired-location tags (a set: sorted, unique).
    pub dsrd_loc_tags: Arc<[TagId]>,
    /// Number of location (failure-domain) tags the primary and secondary
    /// share.
    pub location_score: i64,
    /// Network interfaces.
    pub nics: Arc<[Nic]>,
    /// Whether the instance is forthcoming (reserved, not yet created).
    pub forthcoming: bool,
    /// Its resource utilisation, cpu, mem, dsk, net (`util`): 1 each
    /// unless given (hbal's `-U`) or cleared (`--ignore-dynu`).
    pub util: [f64; 4],
}

impl Instance {
    /// A running instance that exists only for a calculation (hail's test
    /// instances, hsqueeze's reserve): placed nowhere, without disks,
    /// tags or NICs, fully utilised.
    pub fn for_calculation(
        name: &str,
        mem: i64,
        dsk: i64,
        vcpus: i64,
        spindle_use: i64,
        disk_template: DiskTemplate,
        auto_balance: bool,
    ) -> Instance {
        Instance {
            name: Arc::from(name),
            alias_len: name.len(),
            idx: -1,
            mem,
            dsk,
            disks: Arc::from([]),
            vcpus,
            run_state: RunState::Running,
            auto_balance,
            p_node: NO_NODE,
            s_node: NO_NODE,
            disk_template,
            spindle_use,
            tags: Arc::from([]),
            excl_tags: Arc::from([]),
            dsrd_loc_tags: Arc::from([]),
            location_score: 0,
            nics: Arc::from([]),
            forthcoming: false,
            util: [1.0; 4],
        }
    }

    /// The name without the cluster's common domain suffix; name lookups
    /// match either.
    pub fn alias(&self) -> &str {
        self.name.get(..self.alias_len).unwrap_or(&self.name)
    }

    /// Whether the instance's memory is in use on its primary
    /// (`usesMemory`): not forthcoming, and in a state that uses memory.
    pub fn uses_memory(&self) -> bool {
        !self.forthcoming && self.run_state.uses_memory()
    }

    /// Whether the instance is not administratively offline.
    pub fn not_offline(&self) -> bool {
        !self.run_state.is_offline()
    }

    /// Whether a secondary must reserve memory for a failover
    /// (`usesSecMem`): not offline and auto-balanced.
    pub fn uses_sec_mem(&self) -> bool {
        self.not_offline() && self.auto_balance
    }

    /// Whether the disks consume node disk (plain and drbd).
    pub fn uses_local_storage(&self) -> bool {
        self.disk_template.uses_local_storage()
    }

    /// Whether the template has a secondary node (drbd).
    pub fn has_secondary(&self) -> bool {
        self.disk_template == DiskTemplate::Drbd
    }

    /// Mirroring kind of the template.
    pub fn mirror_type(&self) -> MirrorType {
        self.disk_template.mirror_type()
    }

    /// Sum of the disks' spindles, or `None` if any disk lacks the value
    /// (`getTotalSpindles`).
    pub fn total_spindles(&self) -> Option<i64> {
        let mut sum: i64 = 0;
        for d in self.disks.iter() {
            sum = sum.wrapping_add(d.spindles?);
        }
        Some(sum)
    }

    /// The nodes the instance occupies (`allNodes`): primary, and for drbd
    /// the secondary.
    pub fn all_nodes(&self) -> Vec<i32> {
        if self.disk_template == DiskTemplate::Drbd {
            vec![self.p_node, self.s_node]
        } else {
            vec![self.p_node]
        }
    }
}
