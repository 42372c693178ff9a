//! The iallocator message's wire types: what the reading finds in the
//! request, names kept as strings borrowed from the parsed document
//! (the loader resolves them): the [`Message`] apart from its nodes and
//! instances, the node groups, nodes, instances and the `request` object.

use smallvec::SmallVec;

use crate::model::policy::IPolicy;
use crate::model::types::{AllocPolicy, DiskTemplate, EvacMode, RunState};

/// A hypervisor name from `enabled_hypervisors`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hypervisor {
    Kvm,
    XenPvm,
    Chroot,
    XenHvm,
    Lxc,
    Fake,
}

impl Hypervisor {
    pub(crate) const ALL: [(&'static str, Hypervisor); 6] = [
        ("kvm", Hypervisor::Kvm),
        ("xen-pvm", Hypervisor::XenPvm),
        ("chroot", Hypervisor::Chroot),
        ("xen-hvm", Hypervisor::XenHvm),
        ("lxc", Hypervisor::Lxc),
        ("fake", Hypervisor::Fake),
    ];
}

/// The iallocator message apart from its nodes and instances, which went
/// to the [`ClusterSink`](super::ClusterSink) while it was read.
#[derive(Debug, Clone, PartialEq)]
pub struct Message<'a> {
    /// Node groups in input order, keyed by UUID.
    pub groups: Vec<(&'a str, WireGroup<'a>)>,
    /// Cluster tags.
    pub cluster_tags: Vec<&'a str>,
    /// Enabled hypervisors; only the first matters.
    pub enabled_hypervisors: Vec<Hypervisor>,
    /// The `request` object.
    pub request: WireRequest<'a>,
}

/// A node group as sent.
#[derive(Debug, Clone, PartialEq)]
pub struct WireGroup<'a> {
    pub name: &'a str,
    pub alloc_policy: AllocPolicy,
    pub networks: Vec<&'a str>,
    pub ipolicy: IPolicy,
    pub tags: Vec<&'a str>,
}

/// A node's run-time data, present for live nodes (online and
/// vm_capable).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LiveData {
    /// `total_spindles`, read only with exclusive storage.
    pub total_spindles: Option<i64>,
    pub free_spindles: i64,
    pub total_memory: f64,
    pub reserved_memory: i64,
    pub free_memory: i64,
    pub total_disk: f64,
    pub free_disk: i64,
    pub total_cpus: f64,
    pub reserved_cpus: i64,
}

/// A node as sent.
#[derive(Debug, Clone, PartialEq)]
pub struct WireNode<'a> {
    pub offline: bool,
    pub drained: bool,
    /// The group's UUID.
    pub group: &'a str,
    pub vm_capable: bool,
    pub exclusive_storage: bool,
    /// `ndparams.spindle_count`, read only without exclusive storage.
    pub spindle_count: Option<i64>,
    pub tags: Vec<&'a str>,
    /// Run-time data; `None` for offline or non-vm_capable nodes, which
    /// hail does not read it from.
    pub live: Option<LiveData>,
}

/// One disk as sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WireDisk {
    pub size: i64,
    pub spindles: Option<i64>,
}

/// The instance fields shared by cluster instances and instances to
/// allocate (`parseBaseInstance`).
#[derive(Debug, Clone, PartialEq)]
pub struct WireInstanceBody<'a> {
    pub disk_space_total: i64,
    /// Inline up to four disks: reading an instance allocates nothing
    /// for them.
    pub disks: SmallVec<[WireDisk; 4]>,
    pub memory: i64,
    pub vcpus: i64,
    pub tags: Vec<&'a str>,
    pub disk_template: DiskTemplate,
    pub spindle_use: i64,
    /// The networks of the NICs, one entry per NIC (up to four inline).
    pub nic_networks: SmallVec<[Option<&'a str>; 4]>,
    pub run_state: RunState,
    pub forthcoming: bool,
}

/// A cluster instance as sent.
#[derive(Debug, Clone, PartialEq)]
pub struct WireInstance<'a> {
    pub body: WireInstanceBody<'a>,
    /// Primary node name.
    pub primary: &'a str,
    /// Secondary node name, if the `nodes` list has a second entry.
    pub secondary: Option<&'a str>,
}

/// An instance to allocate.
#[derive(Debug, Clone, PartialEq)]
pub struct WireNewInstance<'a> {
    pub name: &'a str,
    pub required_nodes: i64,
    pub body: WireInstanceBody<'a>,
}

/// The `request` object, by type.
#[derive(Debug, Clone, PartialEq)]
pub enum WireRequest<'a> {
    Allocate {
        /// Boxed: its body keeps disks and NICs inline.
        instance: Box<WireNewInstance<'a>>,
        group_name: Option<&'a str>,
        restrict_to_nodes: Option<Vec<&'a str>>,
    },
    Relocate {
        name: &'a str,
        required_nodes: i64,
        relocate_from: Vec<&'a str>,
    },
    ChangeGroup {
        instances: Vec<&'a str>,
        target_groups: Vec<&'a str>,
    },
    NodeEvacuate {
        instances: Vec<&'a str>,
        evac_mode: EvacMode,
    },
    MultiAllocate {
        instances: Vec<WireNewInstance<'a>>,
        /// The outer request's `group_name`, which hail applies to every
        /// instance.
        group_name: Option<&'a str>,
    },
    AllocateSecondary {
        name: &'a str,
    },
}

impl WireRequest<'_> {
    /// The request type as on the wire.
    pub fn type_name(&self) -> &'static str {
        match self {
            WireRequest::Allocate { .. } => "allocate",
            WireRequest::Relocate { .. } => "relocate",
            WireRequest::ChangeGroup { .. } => "change-group",
            WireRequest::NodeEvacuate { .. } => "node-evacuate",
            WireRequest::MultiAllocate { .. } => "multi-allocate",
            WireRequest::AllocateSecondary { .. } => "allocate-secondary",
        }
    }
}
