//! The generated cluster before it is written out: groups with their
//! instance policies, nodes with their resources and what their instances
//! use, instances and the instances of the request.

use super::json::{ObjB, J};
use super::spec::DiskTemplate;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ISpec {
    pub(super) mem: i64,
    pub(super) cpu: i64,
    pub(super) disk_size: i64,
    pub(super) disk_count: i64,
    pub(super) nic_count: i64,
    pub(super) spindle_use: i64,
}

impl ISpec {
    pub(super) fn json(&self) -> J {
        ObjB::new()
            .put("cpu-count", self.cpu)
            .put("disk-count", self.disk_count)
            .put("disk-size", self.disk_size)
            .put("memory-size", self.mem)
            .put("nic-count", self.nic_count)
            .put("spindle-use", self.spindle_use)
            .done()
    }
}

#[derive(Clone, Debug)]
pub(super) struct IPolicy {
    pub(super) minmax: Vec<(ISpec, ISpec)>,
    pub(super) std: ISpec,
    pub(super) templates: Vec<DiskTemplate>,
    pub(super) vcpu_ratio: f64,
    pub(super) spindle_ratio: f64,
}

impl IPolicy {
    pub(super) fn json(&self) -> J {
        let mm = self
            .minmax
            .iter()
            .map(|(lo, hi)| {
                ObjB::new()
                    .putj("max", hi.json())
                    .putj("min", lo.json())
                    .done()
            })
            .collect();
        ObjB::new()
            .putj(
                "disk-templates",
                J::Arr(self.templates.iter().map(|t| J::from(t.as_str())).collect()),
            )
            .putj("minmax", J::Arr(mm))
            .putj("spindle-ratio", J::Float(self.spindle_ratio))
            .putj("std", self.std.json())
            .putj("vcpu-ratio", J::Float(self.vcpu_ratio))
            .done()
    }

    pub(super) fn allows(&self, t: DiskTemplate) -> bool {
        self.templates.contains(&t)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AllocPolicy {
    Preferred,
    LastResort,
    Unallocable,
}

impl AllocPolicy {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            AllocPolicy::Preferred => "preferred",
            AllocPolicy::LastResort => "last_resort",
            AllocPolicy::Unallocable => "unallocable",
        }
    }
}

#[derive(Clone, Debug)]
pub(super) struct Group {
    pub(super) uuid: String,
    pub(super) name: String,
    pub(super) policy: AllocPolicy,
    pub(super) networks: Vec<String>,
    pub(super) ipolicy: IPolicy,
    pub(super) tags: Vec<String>,
    pub(super) excl: bool,
    /// Fill factor applied to the spec's tightness for this group.
    pub(super) fill: f64,
    pub(super) nodes: Vec<usize>,
}

#[derive(Clone, Debug)]
pub(super) struct Node {
    pub(super) name: String,
    pub(super) group: usize,
    pub(super) offline: bool,
    pub(super) drained: bool,
    pub(super) vm_capable: bool,
    /// Whether instances are placed on the node (offline nodes have usually
    /// been evacuated already).
    pub(super) hosts: bool,
    pub(super) master_candidate: bool,
    pub(super) master_capable: bool,
    pub(super) tmem: i64,
    pub(super) reserved_mem: i64,
    pub(super) tdsk: i64,
    pub(super) tcpu: i64,
    pub(super) reserved_cpus: i64,
    pub(super) spindle_count: i64,
    pub(super) tspindles: i64,
    pub(super) excl: bool,
    pub(super) tags: Vec<String>,
    pub(super) pip: String,
    pub(super) sip: String,
    // Accounting of the instances placed on the node.
    pub(super) pri_mem: i64,
    pub(super) up_mem: i64,
    pub(super) lvm_used: i64,
    pub(super) file_used: i64,
    pub(super) spindles_used: i64,
    pub(super) vcpus_used: i64,
    pub(super) su_used: i64,
    /// Memory reserved for failovers, per primary node: (primary index, MiB).
    pub(super) peers: Vec<(usize, i64)>,
    pub(super) missing: i64,
}

impl Node {
    pub(super) fn live(&self) -> bool {
        !self.offline && self.vm_capable
    }
    pub(super) fn online(&self) -> bool {
        self.live() && !self.drained
    }
    pub(super) fn rmem(&self) -> i64 {
        self.peers.iter().map(|p| p.1).max().unwrap_or(0)
    }
    pub(super) fn peer(&self, p: usize) -> i64 {
        self.peers
            .iter()
            .find(|x| x.0 == p)
            .map(|x| x.1)
            .unwrap_or(0)
    }
}

#[derive(Clone, Debug)]
pub(super) struct Disk {
    pub(super) size: i64,
    pub(super) mode: &'static str,
    pub(super) spindles: Option<i64>,
}

#[derive(Clone, Debug)]
pub(super) struct Nic {
    pub(super) mac: String,
    pub(super) ip: Option<String>,
    pub(super) mode: &'static str,
    pub(super) link: String,
    pub(super) network: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AdminState {
    Up,
    Down,
    Offline,
}

impl AdminState {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            AdminState::Up => "up",
            AdminState::Down => "down",
            AdminState::Offline => "offline",
        }
    }
}

#[derive(Clone, Debug)]
pub(super) struct Inst {
    pub(super) name: String,
    pub(super) template: DiskTemplate,
    pub(super) mem: i64,
    pub(super) vcpus: i64,
    pub(super) disks: Vec<Disk>,
    pub(super) nics: Vec<Nic>,
    pub(super) tags: Vec<String>,
    pub(super) admin: AdminState,
    pub(super) os: &'static str,
    pub(super) hv: String,
    pub(super) su: i64,
    pub(super) pnode: usize,
    pub(super) snode: Option<usize>,
}

impl Inst {
    pub(super) fn dsk(&self) -> i64 {
        self.disks
            .iter()
            .map(|d| self.template.disk_space(d.size))
            .sum()
    }
    pub(super) fn disk_spindles(&self) -> i64 {
        self.disks.iter().map(|d| d.spindles.unwrap_or(0)).sum()
    }
}

/// A new instance of an allocate or multi-allocate request.
#[derive(Clone, Debug)]
pub(super) struct NewInst {
    pub(super) name: String,
    pub(super) template: DiskTemplate,
    pub(super) mem: i64,
    pub(super) vcpus: i64,
    pub(super) disks: Vec<Disk>,
    pub(super) nics: Vec<Nic>,
    pub(super) nic_uuids: Vec<String>,
    pub(super) tags: Vec<String>,
    pub(super) os: &'static str,
    pub(super) hv: String,
    pub(super) su: i64,
}

pub(super) const OSES: [&str; 5] = [
    "debootstrap+default",
    "debootstrap+bookworm",
    "image+ubuntu-22.04",
    "noop",
    "instance-debootstrap",
];
pub(super) const SERVICES: [&str; 8] = [
    "web", "db", "cache", "mail", "dns", "ldap", "proxy", "queue",
];
