//! Synthetic iallocator requests for hailstone's compatibility runs, benchmarks
//! and property tests.
//!
//! This module owns the request generator: from a [`CaseSpec`] (a seed, a request
//! kind, a cluster size and a set of feature switches) it builds one valid,
//! realistic iallocator request (protocol version 2) shaped exactly like the
//! ones a Ganeti 3.0 master writes for `hail`, including the keys that hail
//! ignores (`primary_ip`, `i_pri_memory`, `disks_active`, the full `ndparams`,
//! the cluster `ipolicy`, and so on).
//!
//! Properties the rest of the project relies on:
//!
//! * **Determinism.** The output depends only on the spec. The generator uses
//!   its own splitmix64 generator and only integer arithmetic and exactly
//!   rounded floating-point operations (no `ln`/`exp`/`powf`), so the same seed
//!   gives byte-identical requests on every machine.
//! * **Consistency.** Reported node resources agree with the instances placed
//!   on the node the way Ganeti computes them: `free_memory = total_memory -
//!   reserved_memory - memory of running primaries` (minus a deliberate
//!   "missing" amount on a few nodes when [`Features::missing_memory`] is on),
//!   `free_disk = total_disk - disk_space_total` of the plain/drbd instances
//!   using the node, and with exclusive storage `free_spindles =
//!   total_spindles - spindles` of those instances' disks.
//! * **Order control.** JSON objects are written from ordered member lists
//!   (never through a sorted map), because hail numbers groups, nodes and
//!   instances in key order and most tie-breaks depend on it.
//!
//! The entry points are [`CaseSpec::random`] (draw every switch from a seed),
//! [`generate`] (spec to request text and hail options) and [`corpus_specs`]
//! (the fixed-seed corpora used by `hailstone-gen corpus` and
//! `hailstone-compat`).

use std::fmt::Write as _;
use std::ops::RangeInclusive;

// ---------------------------------------------------------------------------
// Request kinds and disk templates.
// ---------------------------------------------------------------------------

/// The evacuation mode of a `node-evacuate` request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EvacMode {
    /// Move the primary instances of the nodes away (`primary-only`).
    PrimaryOnly,
    /// Move the DRBD secondaries away (`secondary-only`).
    SecondaryOnly,
    /// Move both (`all`).
    All,
}

impl EvacMode {
    /// The protocol spelling of the mode (`primary-only`, `secondary-only`, `all`).
    pub fn as_str(self) -> &'static str {
        match self {
            EvacMode::PrimaryOnly => "primary-only",
            EvacMode::SecondaryOnly => "secondary-only",
            EvacMode::All => "all",
        }
    }
}

/// The type of iallocator request to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RequestKind {
    /// `allocate`: place one new instance.
    Allocate,
    /// `multi-allocate`: place several new instances.
    MultiAllocate,
    /// `relocate`: change the secondary (DRBD) or primary (shared storage) of one instance.
    Relocate,
    /// `node-evacuate` with the given mode.
    NodeEvacuate(EvacMode),
    /// `change-group`: move instances to other node groups.
    ChangeGroup,
    /// `allocate-secondary`: choose a secondary for a plain instance converted to DRBD.
    AllocateSecondary,
}

impl RequestKind {
    /// The request `type` string of the protocol.
    pub fn request_type(self) -> &'static str {
        match self {
            RequestKind::Allocate => "allocate",
            RequestKind::MultiAllocate => "multi-allocate",
            RequestKind::Relocate => "relocate",
            RequestKind::NodeEvacuate(_) => "node-evacuate",
            RequestKind::ChangeGroup => "change-group",
            RequestKind::AllocateSecondary => "allocate-secondary",
        }
    }

    /// A short unique name used in case ids, file names and on command lines:
    /// the request type, with the evacuation mode appended for `node-evacuate`
    /// (e.g. `node-evacuate-primary-only`).
    pub fn slug(self) -> &'static str {
        match self {
            RequestKind::Allocate => "allocate",
            RequestKind::MultiAllocate => "multi-allocate",
            RequestKind::Relocate => "relocate",
            RequestKind::NodeEvacuate(EvacMode::PrimaryOnly) => "node-evacuate-primary-only",
            RequestKind::NodeEvacuate(EvacMode::SecondaryOnly) => "node-evacuate-secondary-only",
            RequestKind::NodeEvacuate(EvacMode::All) => "node-evacuate-all",
            RequestKind::ChangeGroup => "change-group",
            RequestKind::AllocateSecondary => "allocate-secondary",
        }
    }

    /// Parses a kind name: any [`slug`](Self::slug), plus the short forms
    /// `node-evacuate-pri`/`-sec`. The bare `node-evacuate` is ambiguous and is
    /// expanded by [`parse_kinds`] instead.
    pub fn from_slug(s: &str) -> Option<RequestKind> {
        let k = match s {
            "allocate" => RequestKind::Allocate,
            "multi-allocate" => RequestKind::MultiAllocate,
            "relocate" => RequestKind::Relocate,
            "node-evacuate-primary-only" | "node-evacuate-pri" => {
                RequestKind::NodeEvacuate(EvacMode::PrimaryOnly)
            }
            "node-evacuate-secondary-only" | "node-evacuate-sec" => {
                RequestKind::NodeEvacuate(EvacMode::SecondaryOnly)
            }
            "node-evacuate-all" => RequestKind::NodeEvacuate(EvacMode::All),
            "change-group" => RequestKind::ChangeGroup,
            "allocate-secondary" => RequestKind::AllocateSecondary,
            _ => return None,
        };
        Some(k)
    }

    /// A per-kind constant mixed into seeds so that different kinds with the
    /// same seed do not produce the same cluster.
    fn salt(self) -> u64 {
        match self {
            RequestKind::Allocate => 0x11,
            RequestKind::MultiAllocate => 0x22,
            RequestKind::Relocate => 0x33,
            RequestKind::NodeEvacuate(EvacMode::PrimaryOnly) => 0x44,
            RequestKind::NodeEvacuate(EvacMode::SecondaryOnly) => 0x55,
            RequestKind::NodeEvacuate(EvacMode::All) => 0x66,
            RequestKind::ChangeGroup => 0x77,
            RequestKind::AllocateSecondary => 0x88,
        }
    }
}

/// Every request kind, including the three evacuation modes, in a fixed order.
pub fn all_kinds() -> Vec<RequestKind> {
    vec![
        RequestKind::Allocate,
        RequestKind::MultiAllocate,
        RequestKind::Relocate,
        RequestKind::NodeEvacuate(EvacMode::PrimaryOnly),
        RequestKind::NodeEvacuate(EvacMode::SecondaryOnly),
        RequestKind::NodeEvacuate(EvacMode::All),
        RequestKind::ChangeGroup,
        RequestKind::AllocateSecondary,
    ]
}

/// Parses a comma-separated list of kind names (see [`RequestKind::from_slug`]).
/// `node-evacuate` expands to its three modes and `all` to [`all_kinds`].
/// Duplicates are dropped; the order of first appearance is kept.
pub fn parse_kinds(list: &str) -> Result<Vec<RequestKind>, String> {
    let mut out: Vec<RequestKind> = Vec::new();
    for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let ks = match part {
            "all" => all_kinds(),
            "node-evacuate" => vec![
                RequestKind::NodeEvacuate(EvacMode::PrimaryOnly),
                RequestKind::NodeEvacuate(EvacMode::SecondaryOnly),
                RequestKind::NodeEvacuate(EvacMode::All),
            ],
            other => match RequestKind::from_slug(other) {
                Some(k) => vec![k],
                None => {
                    return Err(format!(
                        "unknown request kind '{}' (known: all, node-evacuate, {})",
                        other,
                        all_kinds()
                            .iter()
                            .map(|k| k.slug())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                }
            },
        };
        for k in ks {
            if !out.contains(&k) {
                out.push(k);
            }
        }
    }
    if out.is_empty() {
        return Err("empty list of request kinds".to_string());
    }
    Ok(out)
}

/// A Ganeti disk template. The variants are in alphabetical order, which is
/// the order Ganeti uses when it writes a policy's `disk-templates`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DiskTemplate {
    /// `blockdev`: adopted block devices (external mirroring, no node disk accounted).
    Blockdev,
    /// `diskless`: no disks at all.
    Diskless,
    /// `drbd`: internally mirrored LVM volumes on a primary and a secondary node.
    Drbd,
    /// `ext`: external storage provider.
    Ext,
    /// `file`: image files on the node's file storage directory.
    File,
    /// `gluster`: Gluster shared file storage.
    Gluster,
    /// `plain`: LVM volumes on one node.
    Plain,
    /// `rbd`: Ceph RBD volumes.
    Rbd,
    /// `sharedfile`: image files on shared storage.
    Sharedfile,
}

impl DiskTemplate {
    /// All nine templates in alphabetical order.
    pub const ALL: [DiskTemplate; 9] = [
        DiskTemplate::Blockdev,
        DiskTemplate::Diskless,
        DiskTemplate::Drbd,
        DiskTemplate::Ext,
        DiskTemplate::File,
        DiskTemplate::Gluster,
        DiskTemplate::Plain,
        DiskTemplate::Rbd,
        DiskTemplate::Sharedfile,
    ];

    /// The protocol spelling (`drbd`, `plain`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            DiskTemplate::Blockdev => "blockdev",
            DiskTemplate::Diskless => "diskless",
            DiskTemplate::Drbd => "drbd",
            DiskTemplate::Ext => "ext",
            DiskTemplate::File => "file",
            DiskTemplate::Gluster => "gluster",
            DiskTemplate::Plain => "plain",
            DiskTemplate::Rbd => "rbd",
            DiskTemplate::Sharedfile => "sharedfile",
        }
    }

    /// Parses the protocol spelling.
    pub fn parse(s: &str) -> Option<DiskTemplate> {
        DiskTemplate::ALL.iter().copied().find(|t| t.as_str() == s)
    }

    /// True for the LVM-based templates (plain, drbd), the only ones whose disks
    /// are accounted in a node's `free_disk` and spindles.
    pub fn is_lvm(self) -> bool {
        matches!(self, DiskTemplate::Plain | DiskTemplate::Drbd)
    }

    /// True for templates whose instances can move their primary between nodes
    /// without copying disks (Ganeti's `DTS_EXT_MIRROR`).
    pub fn is_external_mirror(self) -> bool {
        !matches!(
            self,
            DiskTemplate::Plain | DiskTemplate::Drbd | DiskTemplate::File
        )
    }

    /// The `required_nodes` Ganeti sends for an allocation of this template.
    pub fn required_nodes(self) -> usize {
        if self == DiskTemplate::Drbd {
            2
        } else {
            1
        }
    }

    /// The space one disk of `size` MiB needs, as Ganeti's
    /// `masterd.instance.ComputeDiskSize` counts it: drbd adds 128 MiB of
    /// metadata per disk, blockdev and diskless count nothing.
    pub fn disk_space(self, size: i64) -> i64 {
        match self {
            DiskTemplate::Drbd => size + 128,
            DiskTemplate::Blockdev | DiskTemplate::Diskless => 0,
            _ => size,
        }
    }
}

// ---------------------------------------------------------------------------
// The specification of one case.
// ---------------------------------------------------------------------------

/// Feature switches of a generated cluster and request. Each switch adds one
/// kind of data that hail treats specially; [`CaseSpec::random`] draws them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Features {
    /// Some nodes are offline (sent without run-time data, as Ganeti does).
    pub offline_nodes: bool,
    /// Some offline nodes still hold instances (otherwise offline nodes have
    /// been evacuated). hail's global N+1 check then fails for every
    /// allocation whose cluster has DRBD partners or shared-storage instances
    /// stranded there.
    pub offline_with_instances: bool,
    /// Some drained nodes (run-time data present, never a candidate).
    pub drained_nodes: bool,
    /// Some nodes are not vm_capable (sent without run-time data, hold no instances).
    pub non_vm_capable: bool,
    /// One node group has only offline or drained nodes ("No online nodes").
    pub dead_group: bool,
    /// An extra node group without any node.
    pub empty_group: bool,
    /// Groups use random alloc policies (preferred / last_resort / unallocable),
    /// sometimes all unallocable.
    pub alloc_policies: bool,
    /// Cluster networks: groups connect to subsets, new instances' NICs name
    /// networks (sometimes ones that some groups lack).
    pub networks: bool,
    /// Existing instances' NICs carry a `network` too (Ganeti 3.0 does not send
    /// it, but hail reads it, and change-group checks it).
    pub instance_nic_networks: bool,
    /// Node groups carry tags.
    pub group_tags: bool,
    /// Nodes carry unrelated tags.
    pub node_tags: bool,
    /// `htools:iextags:<p>` cluster tags with many instances tagged `<p>...`.
    pub exclusion_tags: bool,
    /// `htools:nlocation:<p>` cluster tags with node tags `<p>:<x>`.
    pub location_tags: bool,
    /// `htools:desiredlocation:<p>` cluster tags with instance tags `<p>:<x>`.
    pub desired_location: bool,
    /// `htools:migration:<p>` / `htools:allowmigration:...` cluster tags with node tags.
    pub migration_tags: bool,
    /// Nodes of one group carry different migration tags, so some failovers
    /// are refused (`FailMig`), which also breaks hail's N+1 check.
    pub mixed_migration_tags: bool,
    /// Some (sometimes all) groups use exclusive storage, with 2–4 policy specs
    /// and spindles on disks.
    pub exclusive_storage: bool,
    /// Group policies with 1–3 min/max specs (disjoint or overlapping).
    pub multi_minmax: bool,
    /// Group policies allow only a subset of the disk templates.
    pub restricted_templates: bool,
    /// Some existing instances violate their group's policy (sizes outside
    /// every min/max spec, or a template the policy no longer allows).
    pub policy_violations: bool,
    /// Tight vCPU ratios (1.0–2.0).
    pub tight_vcpu_ratio: bool,
    /// Tight spindle ratios (1–8).
    pub tight_spindle_ratio: bool,
    /// A few nodes report less free memory than their instances explain
    /// (hail's "inconsistent data" warning).
    pub missing_memory: bool,
    /// Existing placement ignores N+1 redundancy, vCPU and spindle ratios
    /// (only physical limits are kept).
    pub overcommitted: bool,
    /// Some tags, one group name and sometimes an instance name use non-ASCII
    /// characters.
    pub non_ascii: bool,
    /// Node and instance names do not share a common domain suffix.
    pub no_common_suffix: bool,
    /// Nodes and instances appear in shuffled rather than name order.
    pub shuffled_order: bool,
    /// The allocate request names a node group (`group_name`).
    pub group_name: bool,
    /// The allocate request carries `restrict-to-nodes`.
    pub restrict_to_nodes: bool,
    /// Unrelated cluster tags.
    pub cluster_tag_noise: bool,
}

/// Command-line options to pass to hail after the input path.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HailOptions {
    /// `--no-capacity-checks`.
    pub no_capacity_checks: bool,
    /// `--ignore-soft-errors`.
    pub ignore_soft_errors: bool,
    /// `--restrict-allocation-to=<some online nodes>` (the list is drawn by [`generate`]).
    pub restrict_allocation: bool,
    /// `--static-kvm-node-memory=<N>`.
    pub static_kvm_node_memory: Option<i64>,
}

/// How nodes report `total_disk`/`free_disk`/spindles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StorageReport {
    /// Every node reports its LVM volume group and physical volumes.
    Lvm,
    /// As Ganeti 3.0 does: the storage of the request's disk template (or of the
    /// cluster's first enabled template); file storage for `file`, nothing
    /// (zeros) for templates without space reporting.
    ByTemplate,
}

/// Whitespace style of the emitted JSON text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonStyle {
    /// No whitespace.
    Compact,
    /// `", "` and `": "` separators on one line, as Ganeti's simplejson writes.
    Spaced,
    /// Indented over several lines.
    Pretty,
}

/// Everything that determines one generated case.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseSpec {
    /// Seed of all random choices made by [`generate`].
    pub seed: u64,
    /// The request type.
    pub kind: RequestKind,
    /// Number of nodes (at least 1; 2 or more for anything useful).
    pub nodes: usize,
    /// Number of node groups holding nodes (capped at `nodes`).
    pub groups: usize,
    /// Average number of instances per vm_capable node.
    pub instances_per_node: f64,
    /// Disk template of the request: the new instance(s) of allocate and
    /// multi-allocate, the instance of relocate; `None` draws one (or, for
    /// the evacuation kinds, leaves the mix).
    pub template: Option<DiskTemplate>,
    /// Weighted templates of the existing instances; empty means a typical
    /// DRBD/plain cluster with a few others.
    pub instance_templates: Vec<(DiskTemplate, u32)>,
    /// Target memory fill of the nodes (0.05 roomy ... 1.0 full).
    pub tightness: f64,
    /// Target disk fill of the nodes (0.05 ... 1.0).
    pub disk_tightness: f64,
    /// Size of the new instance(s) relative to the free capacity of the online
    /// nodes: 0 fits everywhere, 1 fits about one node, above 1 fits none.
    pub new_size: f64,
    /// `enabled_hypervisors`; only the first one matters to hail.
    pub hypervisors: Vec<String>,
    /// Number of instances in a multi-allocate request.
    pub multi_count: usize,
    /// How nodes report disk space.
    pub storage_report: StorageReport,
    /// Whitespace style.
    pub style: JsonStyle,
    /// Write non-ASCII as `\uXXXX` escapes (what Ganeti does) instead of raw UTF-8.
    pub ascii_escape: bool,
    /// Feature switches.
    pub features: Features,
    /// hail options.
    pub options: HailOptions,
}

/// One generated case.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// Stable id, `<kind slug>/<template>/n<nodes>/g<groups>/s<seed>`, e.g.
    /// `allocate/drbd/n37/g2/s1234`.
    pub id: String,
    /// The request kind.
    pub kind: RequestKind,
    /// The request JSON text (ends with a newline).
    pub request: String,
    /// hail command-line options to pass after the input path.
    pub options: Vec<String>,
}

impl CaseSpec {
    /// A plain spec: one group, about two instances per node (five above 500
    /// nodes), a roomy DRBD/plain cluster, KVM, every feature switch off.
    pub fn new(seed: u64, kind: RequestKind, nodes: usize) -> CaseSpec {
        CaseSpec {
            seed,
            kind,
            nodes: nodes.max(1),
            groups: 1,
            instances_per_node: if nodes > 500 { 5.0 } else { 2.0 },
            template: None,
            instance_templates: Vec::new(),
            tightness: 0.4,
            disk_tightness: 0.4,
            new_size: 0.3,
            hypervisors: vec!["kvm".to_string()],
            multi_count: 3,
            storage_report: StorageReport::Lvm,
            style: JsonStyle::Compact,
            ascii_escape: true,
            features: Features::default(),
            options: HailOptions::default(),
        }
    }

    /// Draws a complete spec from `seed`: node count (log-uniform in `nodes`),
    /// groups, density, templates, tightness, every feature switch and the hail
    /// options. The same arguments always give the same spec.
    pub fn random(seed: u64, kind: RequestKind, nodes: RangeInclusive<usize>) -> CaseSpec {
        let mut r = Rng::new(mix(seed, kind.salt() ^ 0x005e_ed0f_5bec));
        let mut lo = (*nodes.start()).max(2);
        let hi = (*nodes.end()).max(lo);
        if kind == RequestKind::ChangeGroup {
            // Group changes happen between groups of several nodes.
            lo = lo.max(4.min(hi));
        }
        let n = r.log_uniform(lo as u64, hi as u64) as usize;
        let mut spec = CaseSpec::new(seed, kind, n);

        // Groups: change-group wants several, everything else mostly one or two.
        let g = if kind == RequestKind::ChangeGroup {
            [1, 2, 2, 2, 3, 3, 4][r.below(7) as usize]
        } else {
            [1, 1, 1, 1, 2, 2, 2, 3, 4][r.below(9) as usize]
        };
        // Groups of a single node are rare in practice (and hail's global N+1
        // check fails every allocation when one holds a plain instance).
        let cap = if r.chance(0.9) { (n / 2).max(1) } else { n };
        spec.groups = g.min(cap).max(1);
        if kind == RequestKind::ChangeGroup && n >= 2 {
            // Ganeti refuses a group change without a possible target group.
            spec.groups = spec.groups.max(2);
        }

        spec.instances_per_node = if n > 500 {
            5.0
        } else {
            // Mostly 1.5-5 instances per node, sometimes empty-ish or dense.
            match r.below(10) {
                0 => r.below(3) as f64 * 0.25,
                1 => 6.0 + r.below(5) as f64,
                _ => 1.5 + r.below(15) as f64 * 0.25,
            }
        };

        spec.instance_templates = match r.below(20) {
            0..=10 => Vec::new(),
            11..=12 => DiskTemplate::ALL.iter().map(|&t| (t, 1)).collect(),
            13 => vec![(DiskTemplate::Plain, 1)],
            14 => vec![(DiskTemplate::Drbd, 1)],
            15 => vec![
                (DiskTemplate::Drbd, 3),
                (DiskTemplate::Plain, 1),
                (DiskTemplate::File, 1),
            ],
            16 => vec![
                (DiskTemplate::Rbd, 4),
                (DiskTemplate::Ext, 2),
                (DiskTemplate::Diskless, 1),
                (DiskTemplate::Sharedfile, 1),
            ],
            17 => vec![
                (DiskTemplate::Sharedfile, 2),
                (DiskTemplate::Gluster, 2),
                (DiskTemplate::Blockdev, 1),
                (DiskTemplate::Drbd, 2),
            ],
            _ => vec![
                (DiskTemplate::Drbd, 2),
                (DiskTemplate::Plain, 2),
                (DiskTemplate::Rbd, 1),
            ],
        };

        spec.template = match kind {
            RequestKind::Allocate | RequestKind::MultiAllocate => {
                let w = [
                    (DiskTemplate::Drbd, 34),
                    (DiskTemplate::Plain, 26),
                    (DiskTemplate::File, 5),
                    (DiskTemplate::Sharedfile, 5),
                    (DiskTemplate::Diskless, 6),
                    (DiskTemplate::Blockdev, 4),
                    (DiskTemplate::Rbd, 10),
                    (DiskTemplate::Ext, 6),
                    (DiskTemplate::Gluster, 4),
                ];
                Some(w[r.weighted(&w.iter().map(|x| x.1).collect::<Vec<_>>())].0)
            }
            RequestKind::Relocate => {
                if r.chance(0.6) {
                    Some(DiskTemplate::Drbd)
                } else {
                    Some(*r.pick(&[
                        DiskTemplate::Rbd,
                        DiskTemplate::Ext,
                        DiskTemplate::Diskless,
                        DiskTemplate::Sharedfile,
                        DiskTemplate::Gluster,
                        DiskTemplate::Blockdev,
                    ]))
                }
            }
            RequestKind::AllocateSecondary => Some(DiskTemplate::Plain),
            _ => None,
        };

        // Tightness: roomy, medium or nearly full clusters.
        let tight = |r: &mut Rng| {
            let (tlo, thi) = match r.below(20) {
                0..=9 => (5, 50),
                10..=16 => (50, 80),
                _ => (80, 100),
            };
            r.range(tlo, thi) as f64 / 100.0
        };
        spec.tightness = tight(&mut r);
        spec.disk_tightness = if r.chance(0.4) {
            spec.tightness
        } else {
            tight(&mut r)
        };
        spec.new_size = match r.below(20) {
            0..=9 => r.range(0, 40) as f64 / 100.0,
            10..=15 => r.range(40, 100) as f64 / 100.0,
            _ => r.range(100, 160) as f64 / 100.0,
        };

        spec.hypervisors = match r.below(20) {
            0..=13 => vec!["kvm".into()],
            14..=15 => vec!["xen-pvm".into(), "kvm".into()],
            16 => vec!["kvm".into(), "xen-pvm".into()],
            17 => vec!["xen-hvm".into()],
            18 => vec!["xen-pvm".into()],
            _ => vec!["lxc".into(), "kvm".into()],
        };
        // Bulk creations are smaller than the cluster.
        spec.multi_count = 2 + r.below(19.min(n as u64)) as usize;

        spec.storage_report = if r.chance(0.2) {
            StorageReport::ByTemplate
        } else {
            StorageReport::Lvm
        };
        spec.style = match r.below(10) {
            0..=4 => JsonStyle::Spaced,
            5..=7 => JsonStyle::Compact,
            _ => JsonStyle::Pretty,
        };
        spec.ascii_escape = r.chance(0.85);

        let f = &mut spec.features;
        f.offline_nodes = r.chance(0.3);
        f.offline_with_instances = f.offline_nodes
            && r.chance(
                if matches!(kind, RequestKind::NodeEvacuate(_) | RequestKind::Relocate) {
                    0.8
                } else {
                    0.35
                },
            );
        f.drained_nodes = r.chance(0.25);
        f.non_vm_capable = r.chance(0.1);
        f.dead_group = r.chance(0.06);
        f.empty_group = r.chance(0.06);
        f.alloc_policies = r.chance(0.25);
        f.networks = r.chance(0.25);
        f.instance_nic_networks = f.networks && r.chance(0.5);
        f.group_tags = r.chance(0.3);
        f.node_tags = r.chance(0.3);
        f.exclusion_tags = r.chance(0.3);
        f.location_tags = r.chance(0.25);
        f.desired_location = r.chance(0.15);
        f.migration_tags = r.chance(0.2);
        f.mixed_migration_tags = f.migration_tags && r.chance(0.4);
        f.exclusive_storage = r.chance(0.15);
        f.multi_minmax = r.chance(0.25);
        f.restricted_templates = r.chance(0.15);
        f.policy_violations = r.chance(0.08);
        f.tight_vcpu_ratio = r.chance(0.15);
        f.tight_spindle_ratio = r.chance(0.1);
        f.missing_memory = r.chance(0.1);
        f.overcommitted = r.chance(0.1);
        f.non_ascii = r.chance(0.04);
        f.no_common_suffix = r.chance(0.15);
        f.shuffled_order = r.chance(0.3);
        f.group_name = matches!(kind, RequestKind::Allocate) && r.chance(0.12);
        f.restrict_to_nodes = matches!(kind, RequestKind::Allocate) && r.chance(0.1);
        f.cluster_tag_noise = r.chance(0.3);
        if f.non_ascii {
            // hail reads raw non-ASCII only under a UTF-8 locale; Ganeti escapes it.
            spec.ascii_escape = r.chance(0.7);
        }
        // About a third of the cases are "healthy" clusters: only the features
        // that do not by themselves make requests fail, moderate fill and a
        // modest request, so that successes stay common next to every kind of
        // failure.
        // hail's global N+1 check costs roughly nodes² × instances per
        // candidate, and a cluster that already fails it makes hail check every
        // candidate: beyond a few dozen nodes such requests take minutes to
        // hours. Larger random clusters are therefore N+1-healthy, less dense
        // and get smaller bulk requests; small ones cover the failures.
        let big = n > 40;
        if big {
            f.offline_with_instances &=
                matches!(kind, RequestKind::NodeEvacuate(_) | RequestKind::Relocate);
            f.mixed_migration_tags = false;
            f.overcommitted = false;
            f.policy_violations = false;
            f.missing_memory = false;
            if n <= 500 {
                spec.instances_per_node =
                    spec.instances_per_node.min(1.0 + r.below(9) as f64 * 0.25);
            }
            spec.tightness = spec.tightness.min(0.7);
            spec.disk_tightness = spec.disk_tightness.min(0.7);
            spec.multi_count = spec.multi_count.min(2 + r.below(4) as usize);
        }
        let healthy = if kind == RequestKind::ChangeGroup {
            0.55
        } else {
            0.35
        };
        if r.chance(healthy) {
            f.dead_group = false;
            f.offline_with_instances = false;
            f.mixed_migration_tags = false;
            f.alloc_policies = false;
            f.instance_nic_networks = false;
            f.exclusion_tags = false;
            f.migration_tags = false;
            f.multi_minmax = false;
            f.restricted_templates = false;
            f.policy_violations = false;
            f.tight_vcpu_ratio = false;
            f.tight_spindle_ratio = false;
            f.missing_memory = false;
            f.overcommitted = false;
            spec.tightness = spec.tightness.min(0.6);
            spec.disk_tightness = spec.disk_tightness.min(0.6);
            spec.new_size = spec.new_size.min(0.4);
        }

        let o = &mut spec.options;
        o.no_capacity_checks = r.chance(0.12);
        o.ignore_soft_errors = match kind {
            RequestKind::NodeEvacuate(_) | RequestKind::Relocate => r.chance(0.3),
            _ => r.chance(0.08),
        };
        // For DRBD pairs hail runs one global N+1 check per primary candidate
        // (minutes from about 80 nodes on); bulk requests and group changes
        // repeat it per instance. Large clusters of those kinds mostly skip
        // the check, so their scoring can still be compared with hail.
        let pairs = spec.template == Some(DiskTemplate::Drbd);
        let costly = match kind {
            RequestKind::Allocate => pairs,
            RequestKind::MultiAllocate | RequestKind::ChangeGroup => true,
            _ => false,
        };
        if costly && n > 50 && r.chance(0.9) {
            o.no_capacity_checks = true;
        }
        o.restrict_allocation = matches!(
            kind,
            RequestKind::Allocate | RequestKind::MultiAllocate | RequestKind::ChangeGroup
        ) && r.chance(0.06);
        o.static_kvm_node_memory = match r.below(20) {
            0..=1 => Some(0),
            2 => Some(*r.pick(&[1024i64, 2048, 8192])),
            _ => None,
        };
        spec
    }
}

/// The specs of a fixed-seed corpus: for every kind, `count` specs drawn by
/// [`CaseSpec::random`] with seeds `base_seed, base_seed + 1, ...` and node
/// counts in `nodes`. Kinds come in the given order, seeds ascending within a kind.
pub fn corpus_specs(
    kinds: &[RequestKind],
    count: usize,
    nodes: RangeInclusive<usize>,
    base_seed: u64,
) -> Vec<CaseSpec> {
    let mut out = Vec::with_capacity(kinds.len() * count);
    for &k in kinds {
        for i in 0..count as u64 {
            out.push(CaseSpec::random(
                base_seed.wrapping_add(i),
                k,
                nodes.clone(),
            ));
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Deterministic random numbers.
// ---------------------------------------------------------------------------

/// A small deterministic pseudo-random generator (splitmix64). Every method
/// uses integer arithmetic or exactly rounded floating-point operations, so
/// results are identical on every platform.
#[derive(Clone, Debug)]
pub struct Rng(u64);

/// Mixes two 64-bit values into a well-distributed seed.
fn mix(a: u64, b: u64) -> u64 {
    let mut r = Rng(a ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    r.next_u64()
}

impl Rng {
    /// A generator with the given seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// A uniform integer in `lo..=hi` (`lo` when `hi < lo`).
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        lo + self.below((hi - lo) as u64 + 1) as i64
    }

    /// A uniform float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// A uniformly chosen element (the slice must not be empty).
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }

    /// An index chosen with the given weights (0 if all weights are 0).
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|&w| w as u64).sum();
        if total == 0 {
            return 0;
        }
        let mut x = self.below(total);
        for (i, &w) in weights.iter().enumerate() {
            if x < w as u64 {
                return i;
            }
            x -= w as u64;
        }
        weights.len() - 1
    }

    /// Shuffles a slice in place (Fisher-Yates).
    pub fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            xs.swap(i, j);
        }
    }

    /// An integer in `lo..=hi`, roughly log-uniform: a random octave
    /// `[2^k, 2^(k+1))` is chosen uniformly, then a value inside it.
    pub fn log_uniform(&mut self, lo: u64, hi: u64) -> u64 {
        let lo = lo.max(1);
        if hi <= lo {
            return lo;
        }
        let klo = 63 - lo.leading_zeros();
        let khi = 63 - hi.leading_zeros();
        let k = klo + self.below((khi - klo + 1) as u64) as u32;
        let a = (1u64 << k).max(lo);
        let b = ((1u64 << k).saturating_mul(2) - 1).min(hi);
        a + self.below(b - a + 1)
    }

    /// A random UUID-shaped string (version-4 layout).
    fn uuid(&mut self) -> String {
        let a = self.next_u64();
        let b = self.next_u64();
        format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            0x8000 | (b >> 48) & 0x3fff,
            b & 0xffff_ffff_ffff
        )
    }
}

// ---------------------------------------------------------------------------
// A minimal ordered JSON tree and its writer.
// ---------------------------------------------------------------------------

/// A JSON value whose objects keep their members in insertion order.
#[derive(Clone, Debug)]
enum J {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl From<&str> for J {
    fn from(s: &str) -> J {
        J::Str(s.to_string())
    }
}
impl From<String> for J {
    fn from(s: String) -> J {
        J::Str(s)
    }
}
impl From<&String> for J {
    fn from(s: &String) -> J {
        J::Str(s.clone())
    }
}
impl From<i64> for J {
    fn from(v: i64) -> J {
        J::Int(v)
    }
}
impl From<bool> for J {
    fn from(v: bool) -> J {
        J::Bool(v)
    }
}

/// Builds an object from `(key, value)` pairs, keeping their order.
struct ObjB(Vec<(String, J)>);

impl ObjB {
    fn new() -> ObjB {
        ObjB(Vec::new())
    }
    fn put(&mut self, k: &str, v: impl Into<J>) -> &mut ObjB {
        self.0.push((k.to_string(), v.into()));
        self
    }
    fn putj(&mut self, k: &str, v: J) -> &mut ObjB {
        self.0.push((k.to_string(), v));
        self
    }
    fn done(&mut self) -> J {
        J::Obj(std::mem::take(&mut self.0))
    }
}

fn str_list(xs: &[String]) -> J {
    J::Arr(xs.iter().map(|s| J::Str(s.clone())).collect())
}

/// Writes `s` as a JSON string literal: `"` and `\` escaped, control
/// characters in short or `\u00xx` form, non-ASCII raw or as `\uXXXX` escapes
/// (with surrogate pairs above U+FFFF) when `ascii` is set.
fn write_str(out: &mut String, s: &str, ascii: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if ascii && (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for u in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{:04x}", u);
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write_json(out: &mut String, v: &J, style: JsonStyle, ascii: bool, depth: usize) {
    let (comma, colon) = match style {
        JsonStyle::Compact => (",", ":"),
        JsonStyle::Spaced => (", ", ": "),
        JsonStyle::Pretty => (",", ": "),
    };
    let newline = |out: &mut String, d: usize| {
        if style == JsonStyle::Pretty {
            out.push('\n');
            for _ in 0..d {
                out.push_str("  ");
            }
        }
    };
    match v {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Int(i) => {
            let _ = write!(out, "{}", i);
        }
        J::Float(f) => {
            // `{:?}` always keeps a fractional part ("4.0"), like Python.
            let _ = write!(out, "{:?}", f);
        }
        J::Str(s) => write_str(out, s, ascii),
        J::Arr(xs) => {
            if xs.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, x) in xs.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                newline(out, depth + 1);
                write_json(out, x, style, ascii, depth + 1);
            }
            newline(out, depth);
            out.push(']');
        }
        J::Obj(ms) => {
            if ms.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            for (i, (k, x)) in ms.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                newline(out, depth + 1);
                write_str(out, k, ascii);
                out.push_str(colon);
                write_json(out, x, style, ascii, depth + 1);
            }
            newline(out, depth);
            out.push('}');
        }
    }
}

// ---------------------------------------------------------------------------
// The cluster model.
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ISpec {
    mem: i64,
    cpu: i64,
    disk_size: i64,
    disk_count: i64,
    nic_count: i64,
    spindle_use: i64,
}

impl ISpec {
    fn json(&self) -> J {
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
struct IPolicy {
    minmax: Vec<(ISpec, ISpec)>,
    std: ISpec,
    templates: Vec<DiskTemplate>,
    vcpu_ratio: f64,
    spindle_ratio: f64,
}

impl IPolicy {
    fn json(&self) -> J {
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

    fn allows(&self, t: DiskTemplate) -> bool {
        self.templates.contains(&t)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AllocPolicy {
    Preferred,
    LastResort,
    Unallocable,
}

impl AllocPolicy {
    fn as_str(self) -> &'static str {
        match self {
            AllocPolicy::Preferred => "preferred",
            AllocPolicy::LastResort => "last_resort",
            AllocPolicy::Unallocable => "unallocable",
        }
    }
}

#[derive(Clone, Debug)]
struct Group {
    uuid: String,
    name: String,
    policy: AllocPolicy,
    networks: Vec<String>,
    ipolicy: IPolicy,
    tags: Vec<String>,
    excl: bool,
    /// Fill factor applied to the spec's tightness for this group.
    fill: f64,
    nodes: Vec<usize>,
}

#[derive(Clone, Debug)]
struct Node {
    name: String,
    group: usize,
    offline: bool,
    drained: bool,
    vm_capable: bool,
    /// Whether instances are placed on the node (offline nodes have usually
    /// been evacuated already).
    hosts: bool,
    master_candidate: bool,
    master_capable: bool,
    tmem: i64,
    reserved_mem: i64,
    tdsk: i64,
    tcpu: i64,
    reserved_cpus: i64,
    spindle_count: i64,
    tspindles: i64,
    excl: bool,
    tags: Vec<String>,
    pip: String,
    sip: String,
    // Accounting of the instances placed on the node.
    pri_mem: i64,
    up_mem: i64,
    lvm_used: i64,
    file_used: i64,
    spindles_used: i64,
    vcpus_used: i64,
    su_used: i64,
    /// Memory reserved for failovers, per primary node: (primary index, MiB).
    peers: Vec<(usize, i64)>,
    missing: i64,
}

impl Node {
    fn live(&self) -> bool {
        !self.offline && self.vm_capable
    }
    fn online(&self) -> bool {
        self.live() && !self.drained
    }
    fn rmem(&self) -> i64 {
        self.peers.iter().map(|p| p.1).max().unwrap_or(0)
    }
    fn peer(&self, p: usize) -> i64 {
        self.peers
            .iter()
            .find(|x| x.0 == p)
            .map(|x| x.1)
            .unwrap_or(0)
    }
}

#[derive(Clone, Debug)]
struct Disk {
    size: i64,
    mode: &'static str,
    spindles: Option<i64>,
}

#[derive(Clone, Debug)]
struct Nic {
    mac: String,
    ip: Option<String>,
    mode: &'static str,
    link: String,
    network: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AdminState {
    Up,
    Down,
    Offline,
}

impl AdminState {
    fn as_str(self) -> &'static str {
        match self {
            AdminState::Up => "up",
            AdminState::Down => "down",
            AdminState::Offline => "offline",
        }
    }
}

#[derive(Clone, Debug)]
struct Inst {
    name: String,
    template: DiskTemplate,
    mem: i64,
    vcpus: i64,
    disks: Vec<Disk>,
    nics: Vec<Nic>,
    tags: Vec<String>,
    admin: AdminState,
    os: &'static str,
    hv: String,
    su: i64,
    pnode: usize,
    snode: Option<usize>,
}

impl Inst {
    fn dsk(&self) -> i64 {
        self.disks
            .iter()
            .map(|d| self.template.disk_space(d.size))
            .sum()
    }
    fn disk_spindles(&self) -> i64 {
        self.disks.iter().map(|d| d.spindles.unwrap_or(0)).sum()
    }
}

/// A new instance of an allocate or multi-allocate request.
#[derive(Clone, Debug)]
struct NewInst {
    name: String,
    template: DiskTemplate,
    mem: i64,
    vcpus: i64,
    disks: Vec<Disk>,
    nics: Vec<Nic>,
    nic_uuids: Vec<String>,
    tags: Vec<String>,
    os: &'static str,
    hv: String,
    su: i64,
}

const OSES: [&str; 5] = [
    "debootstrap+default",
    "debootstrap+bookworm",
    "image+ubuntu-22.04",
    "noop",
    "instance-debootstrap",
];
const SERVICES: [&str; 8] = [
    "web", "db", "cache", "mail", "dns", "ldap", "proxy", "queue",
];

/// The generator's state for one case.
struct Gen<'a> {
    spec: &'a CaseSpec,
    r: Rng,
    domain: String,
    groups: Vec<Group>,
    nodes: Vec<Node>,
    insts: Vec<Inst>,
    cluster_tags: Vec<String>,
    networks: Vec<String>,
    excl_prefixes: Vec<String>,
    loc_prefix: Option<String>,
    loc_values: Vec<String>,
    desired_prefix: Option<String>,
    mig_prefix: Option<String>,
    mac_counter: u64,
    inst_counter: usize,
    /// The reserved memory hail uses (the KVM override), for capacity decisions.
    hail_reserved: Option<i64>,
    /// Choices shared by the new instances of one request (a bulk creation
    /// uses the same disk spindles, network and tags for most instances).
    new_spindles: Option<bool>,
    new_network: Option<Option<String>>,
    new_tags: Option<Vec<String>>,
    /// The cluster-wide policy (sent for information; groups mostly inherit it).
    cluster_policy: Option<IPolicy>,
}

/// Generates the request and the hail options described by `spec`.
pub fn generate(spec: &CaseSpec) -> Case {
    let mut g = Gen::new(spec);
    g.build_groups();
    g.build_nodes();
    g.build_tags();
    g.place_instances();
    let (request, label, restrict) = g.build_request();
    g.apply_missing_memory();
    let report = g.report_template(label_template(&label));
    let doc = g.document(request, report);
    let mut text = String::with_capacity(256 + spec.nodes * 900 + g.insts.len() * 700);
    write_json(&mut text, &doc, spec.style, spec.ascii_escape, 0);
    text.push('\n');
    let options = g.options(restrict);
    Case {
        id: format!(
            "{}/{}/n{}/g{}/s{}",
            spec.kind.slug(),
            label,
            spec.nodes,
            spec.groups,
            spec.seed
        ),
        kind: spec.kind,
        request: text,
        options,
    }
}

fn label_template(label: &str) -> Option<DiskTemplate> {
    DiskTemplate::parse(label)
}

/// Rounds a memory size to a "nice" value (multiples of 128, 512 or 1024 MiB).
fn nice_mem(x: i64) -> i64 {
    let x = x.max(128);
    if x < 1024 {
        x / 128 * 128
    } else if x < 8192 {
        x / 512 * 512
    } else {
        x / 1024 * 1024
    }
}

/// Rounds a disk size to a "nice" value (whole GiB above 4 GiB).
fn nice_disk(x: i64) -> i64 {
    let x = x.max(128);
    if x < 4096 {
        x / 256 * 256
    } else {
        x / 1024 * 1024
    }
}

fn scale(x: i64, f: f64) -> i64 {
    (x as f64 * f) as i64
}

/// Clamps an instance's memory, vCPUs, disk sizes and spindle use into one
/// min/max pair of a policy, the way hail's policy check looks at them (with
/// exclusive storage the spindle use is the sum of the disks' spindles).
fn conform(
    mem: &mut i64,
    vcpus: &mut i64,
    disks: &mut Vec<Disk>,
    su: &mut i64,
    pair: &(ISpec, ISpec),
) {
    let (lo, hi) = pair;
    *mem = (*mem).clamp(lo.mem, hi.mem);
    *vcpus = (*vcpus).clamp(lo.cpu, hi.cpu);
    *su = (*su).clamp(lo.spindle_use, hi.spindle_use.max(lo.spindle_use));
    if !disks.is_empty() {
        disks.truncate(hi.disk_count.max(1) as usize);
        for d in disks.iter_mut() {
            d.size = d.size.clamp(lo.disk_size, hi.disk_size.max(lo.disk_size));
        }
        if disks[0].spindles.is_some() {
            let hi_su = hi.spindle_use.max(lo.spindle_use);
            disks.truncate(hi_su.max(1) as usize);
            for d in disks.iter_mut() {
                d.spindles = Some(d.spindles.unwrap_or(1).clamp(1, hi_su.max(1)));
            }
            let mut sum: i64 = disks.iter().map(|d| d.spindles.unwrap_or(0)).sum();
            let mut i = 0;
            while sum > hi_su && i < disks.len() {
                let cut = (sum - hi_su).min(disks[i].spindles.unwrap_or(1) - 1);
                disks[i].spindles = Some(disks[i].spindles.unwrap_or(1) - cut);
                sum -= cut;
                i += 1;
            }
            if sum < lo.spindle_use {
                disks[0].spindles = Some(disks[0].spindles.unwrap_or(1) + lo.spindle_use - sum);
            }
        }
    }
}

impl<'a> Gen<'a> {
    fn new(spec: &'a CaseSpec) -> Gen<'a> {
        let mut r = Rng::new(mix(spec.seed, spec.kind.salt()));
        let domain = match r.below(6) {
            0..=2 => "example.com".to_string(),
            3 => "example.org".to_string(),
            4 => format!("dc{}.example.net", 1 + r.below(9)),
            _ => "ganeti.test".to_string(),
        };
        let kvm_first = spec
            .hypervisors
            .first()
            .map(|h| h == "kvm")
            .unwrap_or(false);
        let hail_reserved = match (kvm_first, spec.options.static_kvm_node_memory) {
            (true, None) => Some(4096),
            (true, Some(v)) if v > 0 => Some(v),
            _ => None,
        };
        Gen {
            spec,
            r,
            domain,
            groups: Vec::new(),
            nodes: Vec::new(),
            insts: Vec::new(),
            cluster_tags: Vec::new(),
            networks: Vec::new(),
            excl_prefixes: Vec::new(),
            loc_prefix: None,
            loc_values: Vec::new(),
            desired_prefix: None,
            mig_prefix: None,
            mac_counter: 0,
            inst_counter: 0,
            hail_reserved,
            new_spindles: None,
            new_network: None,
            new_tags: None,
            cluster_policy: None,
        }
    }

    fn f(&self) -> &Features {
        &self.spec.features
    }

    // ----- groups -----

    fn build_groups(&mut self) {
        let nodes = self.spec.nodes.max(1);
        let ng = self.spec.groups.clamp(1, nodes);
        if self.f().networks {
            let nn = 1 + self.r.below(4) as usize;
            for _ in 0..nn {
                let u = self.r.uuid();
                self.networks.push(u);
            }
        }
        let naming = self.r.below(4);
        let all_unalloc = self.f().alloc_policies && self.r.chance(0.15);
        let all_excl = self.f().exclusive_storage && self.r.chance(0.35);
        let total = ng + usize::from(self.f().empty_group);
        // Groups usually inherit the cluster's policy; some override it.
        let cluster_policy = self.make_ipolicy(false);
        self.cluster_policy = Some(cluster_policy.clone());
        for gi in 0..total {
            let mut name = match naming {
                0 => {
                    if gi == 0 {
                        "default".to_string()
                    } else {
                        format!("group{}", gi + 1)
                    }
                }
                1 => format!("rack-{}", (b'a' + gi as u8) as char),
                2 => format!("zone{}", gi + 1),
                _ => format!("grp-{:02}", gi),
            };
            if self.f().non_ascii && gi == 1 {
                name.push_str("-s\u{fc}d");
            }
            let policy = if all_unalloc {
                AllocPolicy::Unallocable
            } else if self.f().alloc_policies {
                [
                    AllocPolicy::Preferred,
                    AllocPolicy::LastResort,
                    AllocPolicy::Unallocable,
                ][self.r.weighted(&[6, 3, 2])]
            } else {
                AllocPolicy::Preferred
            };
            let excl = self.f().exclusive_storage && (all_excl || self.r.chance(0.5));
            let ipolicy = if !excl && self.r.chance(0.6) {
                cluster_policy.clone()
            } else {
                self.make_ipolicy(excl)
            };
            let networks = if self.networks.is_empty() {
                Vec::new()
            } else {
                let mut v: Vec<String> = Vec::new();
                for i in 0..self.networks.len() {
                    if self.r.chance(0.65) {
                        v.push(self.networks[i].clone());
                    }
                }
                v
            };
            let mut tags = Vec::new();
            if self.f().group_tags {
                let pool = [
                    "dc:ams1",
                    "tier:gold",
                    "owner:ops",
                    "env:prod",
                    "env:staging",
                    "power:a",
                ];
                for _ in 0..self.r.below(3) {
                    let t = self.r.pick(&pool).to_string();
                    if !tags.contains(&t) {
                        tags.push(t);
                    }
                }
                if self.f().non_ascii && self.r.chance(0.5) {
                    tags.push("besitzer:m\u{fc}ller".to_string());
                }
            }
            let uuid = self.r.uuid();
            let fill = if gi == 0 || self.r.chance(0.5) {
                1.0
            } else {
                self.r.range(20, 100) as f64 / 100.0
            };
            self.groups.push(Group {
                uuid,
                name,
                policy,
                networks,
                ipolicy,
                tags,
                excl,
                fill,
                nodes: Vec::new(),
            });
        }
    }

    fn make_ipolicy(&mut self, excl: bool) -> IPolicy {
        let r = &mut self.r;
        let base_min = ISpec {
            mem: 128,
            cpu: 1,
            disk_size: 1024,
            disk_count: 1,
            nic_count: 1,
            spindle_use: 1,
        };
        let base_max = ISpec {
            mem: 32768,
            cpu: 8,
            disk_size: 1048576,
            disk_count: 16,
            nic_count: 8,
            spindle_use: 12,
        };
        let npairs = if excl {
            2 + r.below(3) as usize
        } else if self.spec.features.multi_minmax {
            1 + r.below(3) as usize
        } else {
            1
        };
        let mut minmax = Vec::new();
        if npairs == 1 {
            let mut lo = base_min;
            let mut hi = base_max;
            if r.chance(0.5) {
                hi.mem = *r.pick(&[65536, 131072, 262144, 524288]);
                hi.cpu = *r.pick(&[8, 16, 32, 64]);
                hi.disk_size = *r.pick(&[1048576, 2097152, 4194304]);
            }
            if r.chance(0.2) {
                lo.disk_size = *r.pick(&[128, 256, 512]);
            }
            if r.chance(0.1) {
                hi.spindle_use = *r.pick(&[2, 4, 8]);
            }
            minmax.push((lo, hi));
        } else if r.chance(0.5) {
            // Disjoint tiers: small, medium, large, huge.
            let mems = [128, 4096, 16384, 65536, 262144];
            let dsks = [128, 65536, 262144, 1048576, 4194304];
            let cpus = [1, 2, 4, 8, 32];
            let start = r.below((5 - npairs) as u64) as usize;
            for k in 0..npairs {
                let i = (start + k).min(3);
                let lo = ISpec {
                    mem: mems[i],
                    cpu: cpus[i],
                    disk_size: dsks[i],
                    disk_count: 1,
                    nic_count: 1,
                    spindle_use: 1,
                };
                let hi = ISpec {
                    mem: mems[i + 1] - if k + 1 < npairs { 1 } else { 0 },
                    cpu: cpus[i + 1],
                    disk_size: dsks[i + 1] - if k + 1 < npairs { 1 } else { 0 },
                    disk_count: 16,
                    nic_count: 8,
                    spindle_use: 12,
                };
                minmax.push((lo, hi));
            }
            if r.chance(0.5) {
                minmax.reverse();
            }
        } else {
            // Overlapping specs around the default.
            for _ in 0..npairs {
                let lo = ISpec {
                    mem: *r.pick(&[128, 512, 1024, 2048]),
                    cpu: 1,
                    disk_size: *r.pick(&[128, 1024, 10240]),
                    disk_count: 1,
                    nic_count: 1,
                    spindle_use: 1,
                };
                let hi = ISpec {
                    mem: *r.pick(&[8192, 32768, 65536, 131072]),
                    cpu: *r.pick(&[4, 8, 16, 32]),
                    disk_size: *r.pick(&[262144, 1048576, 4194304]),
                    disk_count: *r.pick(&[4, 8, 16]),
                    nic_count: 8,
                    spindle_use: *r.pick(&[4, 12, 24]),
                };
                minmax.push((lo, hi));
            }
        }
        let (lo0, hi0) = minmax[0];
        let std = ISpec {
            mem: (1024i64).clamp(lo0.mem, hi0.mem),
            cpu: 1i64.clamp(lo0.cpu, hi0.cpu),
            disk_size: (1024i64).clamp(lo0.disk_size, hi0.disk_size),
            disk_count: 1,
            nic_count: 1,
            spindle_use: 1i64.clamp(lo0.spindle_use, hi0.spindle_use),
        };
        let mut templates: Vec<DiskTemplate> = DiskTemplate::ALL.to_vec();
        if self.spec.features.restricted_templates && r.chance(0.7) {
            templates.retain(|_| r.chance(0.6));
            if templates.is_empty() {
                templates.push(*r.pick(&DiskTemplate::ALL));
            }
            if excl && !templates.contains(&DiskTemplate::Plain) {
                templates.push(DiskTemplate::Plain);
                templates.sort();
            }
        }
        if r.chance(0.1) {
            r.shuffle(&mut templates);
        }
        let vcpu_ratio = if self.spec.features.tight_vcpu_ratio {
            *r.pick(&[1.0, 1.5, 2.0])
        } else if r.chance(0.3) {
            *r.pick(&[2.0, 3.0, 6.0, 8.0, 16.0, 32.0])
        } else {
            4.0
        };
        let spindle_ratio = if self.spec.features.tight_spindle_ratio {
            *r.pick(&[1.0, 2.0, 4.0, 8.0])
        } else if r.chance(0.1) {
            *r.pick(&[16.0, 64.0])
        } else {
            32.0
        };
        IPolicy {
            minmax,
            std,
            templates,
            vcpu_ratio,
            spindle_ratio,
        }
    }

    // ----- nodes -----

    fn build_nodes(&mut self) {
        let n = self.spec.nodes.max(1);
        let ng = self.spec.groups.clamp(1, n);
        // Distribute the nodes over the groups that hold nodes, each getting at least one.
        let weights: Vec<u64> = (0..ng).map(|_| 1 + self.r.below(4)).collect();
        let wsum: u64 = weights.iter().sum();
        let min_per_group = if n >= 3 * ng {
            3
        } else if n >= 2 * ng {
            2
        } else {
            1
        };
        let mut counts: Vec<usize> = vec![min_per_group; ng];
        let rest = n - ng * min_per_group;
        let mut given = 0;
        for g in 0..ng {
            let c = (rest as u64 * weights[g] / wsum) as usize;
            counts[g] += c;
            given += c;
        }
        for i in 0..(rest - given) {
            counts[i % ng] += 1;
        }
        let interleave = self.r.chance(0.25);
        let mut order: Vec<usize> = Vec::with_capacity(n);
        if interleave {
            let mut left = counts.clone();
            while order.len() < n {
                for (g, l) in left.iter_mut().enumerate() {
                    if *l > 0 {
                        *l -= 1;
                        order.push(g);
                    }
                }
            }
        } else {
            for (g, &c) in counts.iter().enumerate() {
                order.extend(std::iter::repeat_n(g, c));
            }
        }

        // Hardware profile per group; heterogeneous groups draw per node.
        let mut hws = Vec::new();
        let cluster_hw = self.draw_hw();
        for _ in 0..ng {
            let hw = if self.r.chance(0.6) {
                cluster_hw
            } else {
                self.draw_hw()
            };
            hws.push(hw);
        }

        let naming = if self.f().no_common_suffix {
            3 + self.r.below(2)
        } else {
            self.r.below(3)
        };
        let dead_group = if self.f().dead_group {
            Some(self.r.below(ng as u64) as usize)
        } else {
            None
        };
        let mc_count = self.r.range(3, 10) as usize;
        for (i, &gi) in order.iter().enumerate() {
            let name = match naming {
                0 => format!("node-{:04}.{}", i + 1, self.domain),
                1 => format!("node{}.{}", i + 1, self.domain),
                2 => format!(
                    "{}-n{:03}.{}",
                    self.groups[gi].name.replace('\u{fc}', "u"),
                    i + 1,
                    self.domain
                ),
                3 => {
                    // Mixed domains: no suffix shared by every name.
                    let d = ["example.com", "example.org", "lab.example.net"][i % 3];
                    format!("node-{:04}.{}", i + 1, d)
                }
                _ => format!("node{}", i + 1),
            };
            let name = if naming == 2 {
                name.chars().filter(|c| c.is_ascii()).collect()
            } else {
                name
            };
            let (mem, cpu, dsk, spc, pvs, _) = if hws[gi].5 && self.r.chance(0.5) {
                self.draw_hw()
            } else {
                hws[gi]
            };
            let excl = self.groups[gi].excl;
            let reserved_mem = match self.spec.hypervisors.first().map(String::as_str) {
                Some("kvm") | Some("lxc") => {
                    *self.r.pick(&[512, 1024, 1536, 2048, 3072, 4096, 4608])
                }
                _ => *self.r.pick(&[1024, 1024, 2048, 4096]),
            };
            let reserved_mem = reserved_mem.min(mem / 4);
            let mut offline = self.f().offline_nodes && self.r.chance(0.07);
            let mut drained = self.f().drained_nodes && self.r.chance(0.07);
            let vm_capable = !(self.f().non_vm_capable && self.r.chance(0.08));
            if dead_group == Some(gi) {
                if self.r.chance(0.5) {
                    offline = true;
                } else {
                    drained = true;
                }
            }
            let (pip, sip) = if n < 250 {
                (
                    format!("192.0.2.{}", i + 1),
                    format!("198.51.100.{}", i + 1),
                )
            } else {
                (
                    format!("10.0.{}.{}", (i + 1) / 250, (i + 1) % 250 + 1),
                    format!("10.128.{}.{}", (i + 1) / 250, (i + 1) % 250 + 1),
                )
            };
            let master_candidate = i < mc_count && !offline && !drained;
            // Offline nodes have usually been evacuated already; with the
            // switch on, some still hold their instances.
            let keep = if self.f().offline_with_instances {
                0.6
            } else {
                0.0
            };
            let hosts = vm_capable && (!offline || self.r.chance(keep));
            let tspindles = if excl { pvs } else { 0 };
            self.nodes.push(Node {
                name,
                group: gi,
                offline,
                drained,
                vm_capable,
                hosts,
                master_candidate,
                master_capable: vm_capable || self.r.chance(0.8),
                tmem: mem,
                reserved_mem,
                tdsk: dsk,
                tcpu: cpu,
                reserved_cpus: if self.r.chance(0.85) {
                    1
                } else {
                    *self.r.pick(&[0, 2, 4])
                },
                spindle_count: spc,
                tspindles,
                excl,
                tags: Vec::new(),
                pip,
                sip,
                pri_mem: 0,
                up_mem: 0,
                lvm_used: 0,
                file_used: 0,
                spindles_used: 0,
                vcpus_used: 0,
                su_used: 0,
                peers: Vec::new(),
                missing: 0,
            });
            self.groups[gi].nodes.push(i);
        }
        // Make sure the switches that promise some offline/drained nodes deliver one.
        if n >= 3 {
            if self.f().offline_nodes && !self.nodes.iter().any(|x| x.offline) {
                let i = self.r.below(n as u64) as usize;
                self.nodes[i].offline = true;
                self.nodes[i].master_candidate = false;
            }
            if self.f().drained_nodes && !self.nodes.iter().any(|x| x.drained) {
                let i = self.r.below(n as u64) as usize;
                self.nodes[i].drained = true;
                self.nodes[i].master_candidate = false;
            }
        }
    }

    fn draw_hw(&mut self) -> (i64, i64, i64, i64, i64, bool) {
        let r = &mut self.r;
        let mut mem = *r.pick(&[
            8192i64, 16384, 32768, 65536, 65536, 98304, 131072, 262144, 524288,
        ]);
        if r.chance(0.6) {
            // Real nodes report a little less than the installed memory.
            mem -= r.range(1, 700);
        }
        let cpu = *r.pick(&[4i64, 8, 12, 16, 24, 32, 48, 64, 128]);
        let mut dsk = *r.pick(&[
            102400i64, 256000, 512000, 1048576, 2097152, 4194304, 8388608,
        ]);
        if r.chance(0.6) {
            dsk -= r.range(1, 40) * 1024 + r.range(0, 1023);
        }
        let spc = if r.chance(0.8) { 1 } else { r.range(2, 4) };
        let pvs = r.range(4, 24);
        let hetero = r.chance(0.2);
        (mem, cpu, dsk, spc, pvs, hetero)
    }

    // ----- tags -----

    fn build_tags(&mut self) {
        if self.f().exclusion_tags {
            let np = 1 + usize::from(self.r.chance(0.3));
            let prefixes = ["service", "app"];
            for p in prefixes.iter().take(np) {
                self.excl_prefixes.push(p.to_string());
                self.cluster_tags.push(format!("htools:iextags:{}", p));
            }
        }
        if self.f().location_tags || self.f().desired_location {
            let p = *self.r.pick(&["rack", "power", "zone"]);
            let nv = self.r.range(2, 5);
            self.loc_values = (0..nv)
                .map(|k| format!("{}:{}{}", p, &p[..1], k + 1))
                .collect();
            if self.f().location_tags {
                self.cluster_tags.push(format!("htools:nlocation:{}", p));
            }
            if self.f().desired_location {
                self.cluster_tags
                    .push(format!("htools:desiredlocation:{}", p));
                self.desired_prefix = Some(p.to_string());
            }
            self.loc_prefix = Some(p.to_string());
        }
        let mut mig_values: Vec<String> = Vec::new();
        if self.f().migration_tags {
            let p = "hv".to_string();
            self.cluster_tags.push(format!("htools:migration:{}", p));
            mig_values = vec![
                "hv:kvm6".to_string(),
                "hv:kvm7".to_string(),
                "hv:kvm8".to_string(),
            ];
            if self.r.chance(0.6) {
                self.cluster_tags
                    .push("htools:allowmigration:hv:kvm6::hv:kvm7".to_string());
            }
            if self.r.chance(0.3) {
                self.cluster_tags
                    .push("htools:allowmigration:hv:kvm7::hv:kvm8".to_string());
            }
            self.mig_prefix = Some(p);
        }
        if self.f().cluster_tag_noise {
            let pool = [
                "production",
                "backup:daily",
                "owner:infra",
                "htools:other",
                "monitoring",
            ];
            for _ in 0..self.r.range(1, 3) {
                let t = self.r.pick(&pool).to_string();
                if !self.cluster_tags.contains(&t) {
                    self.cluster_tags.push(t);
                }
            }
        }
        if self.r.chance(0.3) {
            self.r.shuffle(&mut self.cluster_tags);
        }
        // Node tags: location tags per block of nodes, migration tags per group.
        let loc_block = self.r.range(1, 4) as usize;
        for i in 0..self.nodes.len() {
            let mut tags = Vec::new();
            if self.loc_prefix.is_some() && self.r.chance(0.9) {
                let k = (i / loc_block) % self.loc_values.len();
                tags.push(self.loc_values[k].clone());
            }
            if !mig_values.is_empty() && self.r.chance(0.85) {
                let gi = self.nodes[i].group;
                let mixed = self.f().mixed_migration_tags && self.r.chance(0.15);
                let k = if mixed {
                    self.r.below(3) as usize
                } else {
                    gi % mig_values.len()
                };
                tags.push(mig_values[k].clone());
            }
            if self.f().node_tags && self.r.chance(0.5) {
                let pool = ["hw:gen3", "hw:gen4", "owner:ops", "maintenance", "ssd"];
                tags.push(self.r.pick(&pool).to_string());
                if self.f().non_ascii && self.r.chance(0.3) {
                    tags.push("standort:k\u{f6}ln".to_string());
                }
            }
            self.nodes[i].tags = tags;
        }
    }

    // ----- instances -----

    fn inst_name(&mut self, service: Option<&str>) -> String {
        self.inst_counter += 1;
        let k = self.inst_counter;
        let base = match service {
            Some(s) => format!("{}-{:05}", s, k),
            None => format!("inst-{:05}", k),
        };
        if self.f().non_ascii && self.r.chance(0.02) {
            return format!("{}-\u{e9}t\u{e9}.{}", base, self.domain);
        }
        if self.f().no_common_suffix {
            match k % 3 {
                0 => format!("{}.{}", base, self.domain),
                1 => format!("{}.apps.example.org", base),
                _ => base,
            }
        } else {
            format!("{}.{}", base, self.domain)
        }
    }

    fn mac(&mut self) -> String {
        self.mac_counter += 1;
        let m = self.mac_counter;
        format!(
            "aa:00:00:{:02x}:{:02x}:{:02x}",
            (m >> 16) & 0xff,
            (m >> 8) & 0xff,
            m & 0xff
        )
    }

    fn make_nics(&mut self, count: usize, group: Option<usize>) -> Vec<Nic> {
        let mut v = Vec::new();
        for _ in 0..count {
            let mode = ["bridged", "routed", "openvswitch"][self.r.weighted(&[8, 1, 1])];
            let link = match mode {
                "bridged" => format!("br{}", self.r.below(3)),
                "routed" => "100".to_string(),
                _ => "switch1".to_string(),
            };
            let ip = if self.r.chance(0.3) {
                Some(format!(
                    "10.{}.{}.{}",
                    20 + self.r.below(10),
                    self.r.below(250),
                    1 + self.r.below(250)
                ))
            } else {
                None
            };
            let network = if self.f().instance_nic_networks && self.r.chance(0.6) {
                // Existing instances use networks their group is connected to.
                match group {
                    Some(g) if !self.groups[g].networks.is_empty() => {
                        Some(self.r.pick(&self.groups[g].networks.clone()).clone())
                    }
                    _ => None,
                }
            } else {
                None
            };
            let mac = self.mac();
            v.push(Nic {
                mac,
                ip,
                mode,
                link,
                network,
            });
        }
        v
    }

    fn pick_template(&mut self, g: usize) -> DiskTemplate {
        if self.groups[g].excl {
            return DiskTemplate::Plain;
        }
        let default_mix: [(DiskTemplate, u32); 6] = [
            (DiskTemplate::Drbd, 50),
            (DiskTemplate::Plain, 32),
            (DiskTemplate::Diskless, 4),
            (DiskTemplate::File, 4),
            (DiskTemplate::Rbd, 6),
            (DiskTemplate::Ext, 4),
        ];
        let mix: Vec<(DiskTemplate, u32)> = if self.spec.instance_templates.is_empty() {
            default_mix.to_vec()
        } else {
            self.spec.instance_templates.clone()
        };
        let w: Vec<u32> = mix.iter().map(|x| x.1).collect();
        let vm_nodes = self.groups[g]
            .nodes
            .iter()
            .filter(|&&n| self.nodes[n].hosts)
            .count();
        let mut t = mix[self.r.weighted(&w)].0;
        for _ in 0..3 {
            let ok_policy = self.groups[g].ipolicy.allows(t)
                || (self.spec.features.policy_violations && self.r.chance(0.3));
            let ok_nodes = t != DiskTemplate::Drbd || vm_nodes >= 2;
            if ok_policy && ok_nodes {
                return t;
            }
            t = mix[self.r.weighted(&w)].0;
        }
        if !self.f().policy_violations {
            // Fall back to a template the policy allows (and the group can hold).
            let pol = &self.groups[g].ipolicy;
            let ok: Vec<DiskTemplate> = pol
                .templates
                .iter()
                .copied()
                .filter(|&x| x != DiskTemplate::Drbd || vm_nodes >= 2)
                .collect();
            let in_mix: Vec<DiskTemplate> = ok
                .iter()
                .copied()
                .filter(|x| mix.iter().any(|m| m.0 == *x))
                .collect();
            if !in_mix.is_empty() {
                return *self.r.pick(&in_mix);
            }
            if !ok.is_empty() {
                return *self.r.pick(&ok);
            }
        }
        if t == DiskTemplate::Drbd && vm_nodes < 2 {
            DiskTemplate::Plain
        } else {
            t
        }
    }

    /// Average usable memory, disk and vCPU budget of a group's nodes.
    fn group_means(&self, g: usize) -> (i64, i64, i64) {
        let ns = &self.groups[g].nodes;
        if ns.is_empty() {
            return (8192, 102400, 8);
        }
        let (mut m, mut d, mut c) = (0i64, 0i64, 0i64);
        for &i in ns {
            let n = &self.nodes[i];
            m += n.tmem - self.eff_reserved(n);
            d += n.tdsk;
            c += n.tcpu;
        }
        let k = ns.len() as i64;
        ((m / k).max(1024), (d / k).max(10240), (c / k).max(1))
    }

    /// Target memory fill of group `g`: the spec's tightness, lowered for some
    /// groups so that multi-group clusters have roomier and fuller groups.
    fn tight(&self, g: usize) -> f64 {
        self.spec.tightness * self.groups[g].fill
    }

    /// Target disk fill of group `g`.
    fn disk_tight(&self, g: usize) -> f64 {
        self.spec.disk_tightness * self.groups[g].fill
    }

    fn eff_reserved(&self, n: &Node) -> i64 {
        match self.hail_reserved {
            Some(h) => h.max(n.reserved_mem),
            None => n.reserved_mem,
        }
    }

    /// Memory hail considers unallocated on the node (before N+1 reservations).
    fn unalloc(&self, n: &Node) -> i64 {
        n.tmem - self.eff_reserved(n) - n.up_mem - n.missing
    }

    /// Draws the size of an existing instance of template `t` in group `g`,
    /// scaled to the spec's density and tightness. Returns memory, vCPUs,
    /// disks, spindle use and the policy min/max pair the instance obeys
    /// (`None` for a deliberate policy violation).
    #[allow(clippy::type_complexity)]
    fn draw_instance_shape(
        &mut self,
        g: usize,
        t: DiskTemplate,
    ) -> (i64, i64, Vec<Disk>, i64, Option<(ISpec, ISpec)>) {
        let (mavail, dmean, cmean) = self.group_means(g);
        let ipn = self.spec.instances_per_node.max(0.5);
        let mut mem_mean = scale(mavail, self.tight(g) / ipn);
        if t == DiskTemplate::Drbd {
            mem_mean = scale(mem_mean, 0.8);
        }
        let factor = *self
            .r
            .pick(&[0.25, 0.5, 0.5, 0.75, 1.0, 1.0, 1.0, 1.25, 1.5, 2.0]);
        let mut mem = nice_mem(scale(mem_mean, factor));
        if self.r.chance(0.03) {
            mem = self.r.range(128, 4000);
        }
        let pol = self.groups[g].ipolicy.clone();
        let pair = pol.minmax[self.r.below(pol.minmax.len() as u64) as usize];
        let obey = !self.f().policy_violations || self.r.chance(0.7);
        let vmax = ((cmean as f64 * pol.vcpu_ratio) as i64 / ipn.ceil() as i64).max(1);
        let mut vcpus = (*self.r.pick(&[1i64, 1, 2, 2, 2, 4, 4, 8])).min(vmax.max(1));
        if self.r.chance(0.05) {
            vcpus = *self.r.pick(&[8, 16, 24]);
        }
        let ndisks = if t == DiskTemplate::Diskless {
            0
        } else {
            [1usize, 1, 1, 1, 1, 1, 2, 2, 2, 3, 4][self.r.below(11) as usize]
        };
        let dsk_total = if t.is_lvm() {
            let lvm_share = if t == DiskTemplate::Drbd { 1.6 } else { 1.0 };
            scale(dmean, self.disk_tight(g) / (ipn * lvm_share))
        } else {
            *self.r.pick(&[10240, 20480, 51200, 102400, 512000])
        };
        let mut disks = Vec::new();
        let excl = self.groups[g].excl;
        let pv_size = {
            let gn = &self.groups[g].nodes;
            let n = &self.nodes[gn[0]];
            if n.tspindles > 0 {
                n.tdsk / n.tspindles
            } else {
                n.tdsk.max(1)
            }
        };
        for k in 0..ndisks {
            let share = if ndisks == 1 {
                1.0
            } else if k == 0 {
                0.7
            } else {
                0.3 / (ndisks - 1) as f64
            };
            let f = *self.r.pick(&[0.3, 0.5, 0.8, 1.0, 1.0, 1.2, 1.6]);
            let mut size = nice_disk(scale(dsk_total, share * f));
            if self.r.chance(0.03) {
                size = self.r.range(100, 50000);
            }
            let spindles = if excl {
                Some(((size + pv_size - 1) / pv_size.max(1)).max(1) + i64::from(self.r.chance(0.1)))
            } else {
                None
            };
            let mode = if self.r.chance(0.05) { "ro" } else { "rw" };
            disks.push(Disk {
                size,
                mode,
                spindles,
            });
        }
        let su = if self.r.chance(0.85) {
            1
        } else {
            self.r.range(2, 4)
        };
        let mut shape = (mem, vcpus, disks, su);
        if obey {
            conform(
                &mut shape.0,
                &mut shape.1,
                &mut shape.2,
                &mut shape.3,
                &pair,
            );
        }
        (
            shape.0,
            shape.1,
            shape.2,
            shape.3,
            if obey { Some(pair) } else { None },
        )
    }

    /// Can `inst` run on node `p` as primary, given the current accounting?
    fn fits_primary(&self, p: usize, inst: &Inst) -> bool {
        let n = &self.nodes[p];
        if !n.hosts {
            return false;
        }
        let over = self.f().overcommitted;
        if inst.admin == AdminState::Up {
            // Memory left on the node after placing the instance.
            let avail = n.tmem - self.eff_reserved(n) - n.up_mem - inst.mem;
            if avail <= 0 {
                return false;
            }
            if !over {
                // Keep the N+1 reserve and stay within the target fill level.
                let keep = scale(n.tmem - self.eff_reserved(n), 1.0 - self.tight(n.group));
                if avail <= n.rmem() || avail < keep {
                    return false;
                }
            }
        }
        if inst.template.is_lvm() {
            let dcap = if over {
                0
            } else {
                scale(n.tdsk, 1.0 - self.disk_tight(n.group))
            };
            if n.tdsk - n.lvm_used - inst.dsk() <= dcap.max(0) {
                return false;
            }
            if n.excl && n.tspindles - n.spindles_used - inst.disk_spindles() < 0 {
                return false;
            }
            let pol = &self.groups[n.group].ipolicy;
            if !over
                && !n.excl
                && (n.su_used + inst.su) as f64 > pol.spindle_ratio * n.spindle_count as f64
            {
                return false;
            }
        }
        if inst.template == DiskTemplate::File && n.tdsk - n.file_used - inst.dsk() <= 0 {
            return false;
        }
        if !over {
            let pol = &self.groups[n.group].ipolicy;
            let limit = (pol.vcpu_ratio * n.tcpu as f64) as i64;
            if n.reserved_cpus + n.vcpus_used + inst.vcpus > limit {
                return false;
            }
        }
        true
    }

    fn fits_secondary(&self, s: usize, p: usize, inst: &Inst) -> bool {
        let n = &self.nodes[s];
        if !n.hosts || s == p {
            return false;
        }
        let over = self.f().overcommitted;
        if n.tdsk - n.lvm_used - inst.dsk()
            <= if over {
                0
            } else {
                scale(n.tdsk, 1.0 - self.disk_tight(n.group)).max(0)
            }
        {
            return false;
        }
        let pol = &self.groups[n.group].ipolicy;
        if !over && (n.su_used + inst.su) as f64 > pol.spindle_ratio * n.spindle_count as f64 {
            return false;
        }
        if !over && inst.admin != AdminState::Offline {
            // N+1: the secondary must be able to take over all instances of p.
            let need = n.peer(p) + inst.mem;
            if need >= self.unalloc(n) {
                return false;
            }
        }
        true
    }

    fn account(&mut self, idx: usize) {
        let inst = self.insts[idx].clone();
        let dsk = inst.dsk();
        let sp = inst.disk_spindles();
        {
            let p = &mut self.nodes[inst.pnode];
            p.pri_mem += inst.mem;
            if inst.admin == AdminState::Up {
                p.up_mem += inst.mem;
            }
            p.vcpus_used += inst.vcpus;
            if inst.template.is_lvm() {
                p.lvm_used += dsk;
                p.su_used += inst.su;
                if p.excl {
                    p.spindles_used += sp;
                }
            }
            if inst.template == DiskTemplate::File {
                p.file_used += dsk;
            }
        }
        if let Some(s) = inst.snode {
            let pnode = inst.pnode;
            let n = &mut self.nodes[s];
            n.lvm_used += dsk;
            n.su_used += inst.su;
            if n.excl {
                n.spindles_used += sp;
            }
            if inst.admin != AdminState::Offline {
                match n.peers.iter_mut().find(|x| x.0 == pnode) {
                    Some(e) => e.1 += inst.mem,
                    None => n.peers.push((pnode, inst.mem)),
                }
            }
        }
    }

    fn inst_tags(&mut self) -> Vec<String> {
        let mut tags = Vec::new();
        if !self.excl_prefixes.is_empty() && self.r.chance(0.6) {
            let p = self.r.pick(&self.excl_prefixes.clone()).clone();
            // Few distinct values, so conflicts on nodes are likely.
            let v = self.r.pick(&SERVICES[..4]);
            tags.push(format!("{}:{}", p, v));
        }
        if self.desired_prefix.is_some() && self.r.chance(0.4) {
            let v = self.r.pick(&self.loc_values.clone()).clone();
            tags.push(v);
        }
        if self.r.chance(0.15) {
            tags.push(
                self.r
                    .pick(&["owner:alice", "owner:bob", "backup", "critical"])
                    .to_string(),
            );
        }
        if self.f().non_ascii && self.r.chance(0.1) {
            tags.push("kunde:m\u{fc}ller-gro\u{df}".to_string());
        }
        tags
    }

    /// Creates one existing instance in group `g` (template `t`), trying to
    /// place it within capacity; with `force` it is placed regardless.
    fn make_instance(&mut self, g: usize, t: DiskTemplate, force: bool) -> Option<usize> {
        let mut cands: Vec<usize> = self.groups[g]
            .nodes
            .iter()
            .copied()
            .filter(|&n| self.nodes[n].hosts)
            .collect();
        if force && (cands.is_empty() || (t == DiskTemplate::Drbd && cands.len() < 2)) {
            cands = self.groups[g]
                .nodes
                .iter()
                .copied()
                .filter(|&n| self.nodes[n].vm_capable)
                .collect();
        }
        if cands.is_empty() || (t == DiskTemplate::Drbd && cands.len() < 2) {
            return None;
        }
        let (mem, vcpus, disks, su, pair) = self.draw_instance_shape(g, t);
        let admin =
            [AdminState::Up, AdminState::Down, AdminState::Offline][self.r.weighted(&[80, 15, 5])];
        let tags = self.inst_tags();
        let service = tags
            .iter()
            .find_map(|t| t.split_once(':').map(|x| x.1.to_string()))
            .filter(|s| SERVICES.contains(&s.as_str()));
        let name = self.inst_name(service.as_deref());
        let nn = if t == DiskTemplate::Diskless && self.r.chance(0.3) {
            0
        } else {
            1 + usize::from(self.r.chance(0.15))
        };
        let nics = self.make_nics(nn, Some(g));
        let os = *self.r.pick(&OSES);
        let hv = if self.spec.hypervisors.len() > 1 && self.r.chance(0.15) {
            self.spec.hypervisors[1].clone()
        } else {
            self.spec
                .hypervisors
                .first()
                .cloned()
                .unwrap_or_else(|| "kvm".to_string())
        };
        let mut inst = Inst {
            name,
            template: t,
            mem,
            vcpus,
            disks,
            nics,
            tags,
            admin,
            os,
            hv,
            su,
            pnode: cands[0],
            snode: None,
        };
        let tries = if cands.len() <= 12 {
            cands.len() * 2
        } else {
            12
        };
        for round in 0..4 {
            if round > 0 {
                // Shrink and retry.
                inst.mem = nice_mem(inst.mem / 2);
                for d in inst.disks.iter_mut() {
                    d.size = nice_disk(d.size / 2).max(128);
                }
                inst.vcpus = (inst.vcpus / 2).max(1);
                if let Some(pair) = &pair {
                    conform(
                        &mut inst.mem,
                        &mut inst.vcpus,
                        &mut inst.disks,
                        &mut inst.su,
                        pair,
                    );
                }
            }
            for _ in 0..tries {
                let p = *self.r.pick(&cands);
                if !self.fits_primary(p, &inst) {
                    continue;
                }
                if t == DiskTemplate::Drbd {
                    let mut found = None;
                    for _ in 0..tries {
                        let s = *self.r.pick(&cands);
                        if self.fits_secondary(s, p, &inst) {
                            found = Some(s);
                            break;
                        }
                    }
                    match found {
                        Some(s) => inst.snode = Some(s),
                        None => continue,
                    }
                }
                inst.pnode = p;
                self.insts.push(inst);
                let idx = self.insts.len() - 1;
                self.account(idx);
                return Some(idx);
            }
        }
        if !force {
            return None;
        }
        // Forced: the node (pair) of the group with the most free disk; the
        // instance is shrunk so that the accounting stays physically possible.
        let free_disk = |g: &Gen, n: usize| g.nodes[n].tdsk - g.nodes[n].lvm_used;
        let p = *cands
            .iter()
            .max_by_key(|&&n| (free_disk(self, n), std::cmp::Reverse(n)))
            .unwrap_or(&cands[0]);
        inst.pnode = p;
        inst.snode = None;
        if t == DiskTemplate::Drbd {
            let s = *cands
                .iter()
                .filter(|&&x| x != p)
                .max_by_key(|&&n| (free_disk(self, n), std::cmp::Reverse(n)))
                .unwrap_or(&cands[0]);
            inst.snode = Some(s);
        }
        inst.mem = inst
            .mem
            .min(128.max(self.unalloc(&self.nodes[p]) / 2))
            .max(128);
        if t.is_lvm() {
            let mut room = free_disk(self, p);
            if let Some(s) = inst.snode {
                room = room.min(free_disk(self, s));
            }
            let nd = inst.disks.len().max(1) as i64;
            let meta = if t == DiskTemplate::Drbd { 128 } else { 0 };
            let per = ((room / 2) / nd - meta).max(0);
            if per < 1 {
                inst.disks.clear();
            } else {
                for d in inst.disks.iter_mut() {
                    d.size = d.size.min(per);
                }
            }
            if self.nodes[p].excl {
                let mut sp = self.nodes[p].tspindles - self.nodes[p].spindles_used;
                if let Some(s) = inst.snode {
                    sp = sp.min(self.nodes[s].tspindles - self.nodes[s].spindles_used);
                }
                let k = sp.max(0) as usize;
                inst.disks.truncate(k);
                for d in inst.disks.iter_mut() {
                    d.spindles = Some(1);
                }
            }
        }
        self.insts.push(inst);
        let idx = self.insts.len() - 1;
        self.account(idx);
        Some(idx)
    }

    fn place_instances(&mut self) {
        let ipn = self.spec.instances_per_node.max(0.0);
        for g in 0..self.groups.len() {
            let vm = self.groups[g]
                .nodes
                .iter()
                .filter(|&&n| self.nodes[n].hosts)
                .count();
            let exact = vm as f64 * ipn;
            let mut count = exact as usize;
            if self.r.unit() < exact - count as f64 {
                count += 1;
            }
            for _ in 0..count {
                let t = self.pick_template(g);
                self.make_instance(g, t, false);
            }
        }
    }

    fn apply_missing_memory(&mut self) {
        if !self.f().missing_memory {
            return;
        }
        let live: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| self.nodes[i].live())
            .collect();
        if live.is_empty() {
            return;
        }
        let k = 1 + self.r.below(3.min(live.len() as u64)) as usize;
        for _ in 0..k {
            let i = *self.r.pick(&live);
            let n = &self.nodes[i];
            let free = n.tmem - n.reserved_mem - n.up_mem;
            let m = self.r.range(100, 6000).min(free.max(0));
            self.nodes[i].missing = m;
        }
    }

    // ----- the request -----

    /// Online nodes in allocatable groups (the usual candidates).
    fn candidate_nodes(&self) -> Vec<usize> {
        let v: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| {
                self.nodes[i].online()
                    && self.groups[self.nodes[i].group].policy != AllocPolicy::Unallocable
            })
            .collect();
        if v.is_empty() {
            (0..self.nodes.len())
                .filter(|&i| self.nodes[i].online())
                .collect()
        } else {
            v
        }
    }

    fn quantile(vals: &mut [i64], q: f64) -> i64 {
        if vals.is_empty() {
            return 0;
        }
        vals.sort_unstable();
        if q >= 1.0 {
            return scale(vals[vals.len() - 1], q);
        }
        let i = ((vals.len() - 1) as f64 * q.max(0.0)) as usize;
        vals[i]
    }

    /// Draws a new instance of template `t`. `size` is the relative size of
    /// its bottleneck resource (see [`CaseSpec::new_size`]).
    fn new_instance(&mut self, t: DiskTemplate, idx: usize, size: f64, share: f64) -> NewInst {
        let cands = self.candidate_nodes();
        // One resource (memory, disk, vCPUs or none) is the bottleneck at the
        // requested size; the others get a small share of a typical node.
        let bind = self.r.weighted(&[45, 25, 15, 15]);
        let big = size * (0.85 + self.r.unit() * 0.25);
        let draw = |r: &mut Rng, vals: &mut Vec<i64>, k: usize| -> i64 {
            if bind == k {
                // Below 1 the size is a fraction of the chosen node's free amount,
                // growing with the size, so small clusters are not filled to the brim.
                let frac = if big < 1.0 { 0.45 + 0.5 * big } else { 1.0 };
                scale(Self::quantile(vals, big), share * frac)
            } else {
                let med = Self::quantile(vals, 0.5);
                scale(med, 0.02 + r.unit() * 0.2)
            }
        };
        let mut mems: Vec<i64> = cands
            .iter()
            .map(|&i| self.unalloc(&self.nodes[i]) - self.nodes[i].rmem())
            .collect();
        let mut mem = nice_mem(draw(&mut self.r, &mut mems, 0).max(128));
        if cands.is_empty() {
            mem = 1024;
        }
        if self.r.chance(0.05) {
            mem = self.r.range(128, 3000);
        }
        let ndisks = if t == DiskTemplate::Diskless {
            0
        } else {
            [1usize, 1, 1, 1, 2, 2, 3][self.r.below(7) as usize]
        };
        let any_excl = cands.iter().any(|&i| self.nodes[i].excl);
        let mut frees: Vec<i64> = cands
            .iter()
            .map(|&i| {
                let n = &self.nodes[i];
                if t == DiskTemplate::File {
                    n.tdsk - n.file_used
                } else {
                    n.tdsk - n.lvm_used
                }
            })
            .collect();
        let dtotal = if t.is_lvm() || t == DiskTemplate::File {
            draw(&mut self.r, &mut frees, 1).max(1024)
        } else {
            *self.r.pick(&[10240, 20480, 102400, 1048576])
        };
        let mut sp_free: Vec<i64> = cands
            .iter()
            .filter(|&&i| self.nodes[i].excl)
            .map(|&i| self.nodes[i].tspindles - self.nodes[i].spindles_used)
            .collect();
        let sp_total = draw(&mut self.r, &mut sp_free, 1).max(1);
        let mut cpus: Vec<i64> = cands
            .iter()
            .map(|&i| {
                let n = &self.nodes[i];
                let r = self.groups[n.group].ipolicy.vcpu_ratio;
                (r * n.tcpu as f64) as i64 - n.reserved_cpus - n.vcpus_used
            })
            .collect();
        let mut vcpus = draw(&mut self.r, &mut cpus, 2).clamp(1, 256);
        if bind != 2 {
            vcpus = vcpus.min(*self.r.pick(&[1, 1, 2, 2, 4, 8]));
        }
        // Most requests respect one min/max spec of a candidate group's policy.
        let pair = if !cands.is_empty() && self.r.chance(if size > 1.0 { 0.5 } else { 0.85 }) {
            let g = self.nodes[*self.r.pick(&cands)].group;
            let mm = &self.groups[g].ipolicy.minmax;
            Some(mm[self.r.below(mm.len() as u64) as usize])
        } else {
            None
        };
        if let Some((lo, hi)) = pair {
            mem = mem.clamp(lo.mem, hi.mem);
            vcpus = vcpus.clamp(lo.cpu, hi.cpu);
        }
        let with_spindles = match self.new_spindles {
            Some(w) if self.r.chance(0.9) => w,
            _ => any_excl && self.r.chance(0.85),
        };
        self.new_spindles = Some(with_spindles);
        let mut disks = Vec::new();
        for k in 0..ndisks {
            let share = if ndisks == 1 {
                1.0
            } else if k == 0 {
                0.7
            } else {
                0.3 / (ndisks - 1) as f64
            };
            let mut dsize = nice_disk(scale(dtotal, share).max(256));
            if t == DiskTemplate::Drbd {
                dsize = (dsize - 128).max(128);
            }
            if let Some((lo, hi)) = pair {
                dsize = dsize.clamp(lo.disk_size, hi.disk_size);
            }
            let spindles = if with_spindles {
                Some(((sp_total as f64 * share) as i64).max(1))
            } else {
                None
            };
            disks.push(Disk {
                size: dsize,
                mode: "rw",
                spindles,
            });
        }
        let mut tags = Vec::new();
        if !self.excl_prefixes.is_empty() && self.r.chance(0.6) {
            let p = self.r.pick(&self.excl_prefixes.clone()).clone();
            tags.push(format!("{}:{}", p, self.r.pick(&SERVICES[..4])));
        }
        if self.desired_prefix.is_some() && self.r.chance(0.6) {
            let v = self.r.pick(&self.loc_values.clone()).clone();
            tags.push(v);
        }
        if self.f().non_ascii && self.r.chance(0.3) {
            tags.push("projekt:gr\u{fc}n".to_string());
        }
        match &self.new_tags {
            Some(t) if self.r.chance(0.7) => tags = t.clone(),
            _ => self.new_tags = Some(tags.clone()),
        }
        let nn = if self.r.chance(0.1) {
            0
        } else {
            1 + usize::from(self.r.chance(0.2))
        };
        let mut nics = Vec::new();
        let mut nic_uuids = Vec::new();
        for _ in 0..nn {
            let shared = match &self.new_network {
                Some(n) if self.r.chance(0.85) => Some(n.clone()),
                _ => None,
            };
            let network = if let Some(n) = shared {
                n
            } else if self.networks.is_empty() {
                None
            } else {
                let connected: Vec<String> = cands
                    .iter()
                    .flat_map(|&i| self.groups[self.nodes[i].group].networks.iter().cloned())
                    .collect();
                match self.r.below(10) {
                    // Usually a network some candidate group is connected to.
                    0..=4 if !connected.is_empty() => Some(self.r.pick(&connected).clone()),
                    // Sometimes any network, so some groups are likely not connected.
                    5..=6 => Some(self.r.pick(&self.networks.clone()).clone()),
                    _ => None,
                }
            };
            self.new_network = Some(network.clone());
            let mac = if self.r.chance(0.5) {
                "auto".to_string()
            } else {
                self.mac()
            };
            let ip = if network.is_some() && self.r.chance(0.5) {
                Some(format!(
                    "10.{}.0.{}",
                    30 + self.r.below(5),
                    1 + self.r.below(250)
                ))
            } else {
                None
            };
            nics.push(Nic {
                mac,
                ip,
                mode: "bridged",
                link: String::new(),
                network,
            });
            nic_uuids.push(self.r.uuid());
        }
        let su = if self.r.chance(0.85) {
            1
        } else {
            self.r.range(2, 6)
        };
        let base = format!("new-{:03}", idx + 1);
        let name = if self.f().non_ascii && self.r.chance(0.3) {
            format!("{}-\u{e9}t\u{e9}.{}", base, self.domain)
        } else if self.f().no_common_suffix && self.r.chance(0.5) {
            base
        } else {
            format!("{}.{}", base, self.domain)
        };
        let hv = self
            .spec
            .hypervisors
            .first()
            .cloned()
            .unwrap_or_else(|| "kvm".to_string());
        let os: &'static str = OSES[self.r.below(OSES.len() as u64) as usize];
        NewInst {
            name,
            template: t,
            mem,
            vcpus,
            disks,
            nics,
            nic_uuids,
            tags,
            os,
            hv,
            su,
        }
    }

    fn new_inst_json(
        &self,
        ni: &NewInst,
        with_type: bool,
        group_name: Option<&str>,
        restrict: Option<&[String]>,
    ) -> J {
        let disks: Vec<J> = ni
            .disks
            .iter()
            .map(|d| {
                let mut o = ObjB::new();
                o.put("size", d.size).put("mode", d.mode);
                o.put("vg", "xenvg")
                    .putj("name", J::Null)
                    .put("dev_type", ni.template.as_str());
                if let Some(s) = d.spindles {
                    o.put("spindles", s);
                }
                if ni.template == DiskTemplate::Ext {
                    o.put("provider", "pvdr");
                }
                o.done()
            })
            .collect();
        let nics: Vec<J> = ni
            .nics
            .iter()
            .zip(ni.nic_uuids.iter())
            .map(|(n, u)| {
                let mut o = ObjB::new();
                o.put("mac", &n.mac);
                if let Some(ip) = &n.ip {
                    o.put("ip", ip);
                }
                if let Some(net) = &n.network {
                    o.put("network", net);
                }
                o.putj("nicparams", J::Obj(Vec::new()));
                o.put("uuid", u);
                o.done()
            })
            .collect();
        let dst: i64 = ni
            .disks
            .iter()
            .map(|d| ni.template.disk_space(d.size))
            .sum();
        let mut o = ObjB::new();
        o.put("name", &ni.name)
            .put("disk_template", ni.template.as_str())
            .putj("group_name", group_name.map(J::from).unwrap_or(J::Null))
            .putj("tags", str_list(&ni.tags))
            .put("os", ni.os)
            .put("vcpus", ni.vcpus)
            .put("memory", ni.mem)
            .put("spindle_use", ni.su)
            .putj("disks", J::Arr(disks))
            .put("disk_space_total", dst)
            .putj("nics", J::Arr(nics))
            .put("required_nodes", ni.template.required_nodes() as i64)
            .put("hypervisor", &ni.hv);
        if with_type {
            o.put("type", "allocate");
        }
        if let Some(rs) = restrict {
            o.putj("restrict-to-nodes", str_list(rs));
        }
        o.done()
    }

    /// Finds (or, failing that, creates) an existing instance matching `want`.
    fn find_or_make(&mut self, want: &dyn Fn(&Inst, &[Node]) -> bool, t: DiskTemplate) -> usize {
        let found: Vec<usize> = (0..self.insts.len())
            .filter(|&i| want(&self.insts[i], &self.nodes))
            .collect();
        if !found.is_empty() {
            return *self.r.pick(&found);
        }
        // Create one in a group able to hold it.
        let mut groups: Vec<usize> = (0..self.groups.len())
            .filter(|&g| {
                let vm = self.groups[g]
                    .nodes
                    .iter()
                    .filter(|&&n| self.nodes[n].vm_capable)
                    .count();
                vm >= t.required_nodes() && (!self.groups[g].excl || t == DiskTemplate::Plain)
            })
            .collect();
        if groups.is_empty() {
            groups = (0..self.groups.len())
                .filter(|&g| {
                    self.groups[g]
                        .nodes
                        .iter()
                        .filter(|&&n| self.nodes[n].vm_capable)
                        .count()
                        >= t.required_nodes()
                })
                .collect();
        }
        for _ in 0..4 {
            if groups.is_empty() {
                break;
            }
            let g = *self.r.pick(&groups);
            if let Some(i) = self.make_instance(g, t, true) {
                return i;
            }
        }
        // Last resort: a vm_capable node (or pair) anywhere, plain template.
        let g = (0..self.groups.len())
            .find(|&g| {
                self.groups[g]
                    .nodes
                    .iter()
                    .any(|&n| self.nodes[n].vm_capable)
            })
            .unwrap_or(0);
        if let Some(i) = self.make_instance(g, DiskTemplate::Plain, true) {
            return i;
        }
        // No vm_capable node at all: make the first node vm_capable.
        let first = self.groups[g].nodes.first().copied().unwrap_or(0);
        self.nodes[first].vm_capable = true;
        self.nodes[first].hosts = true;
        self.make_instance(self.nodes[first].group, DiskTemplate::Plain, true)
            .unwrap_or(0)
    }

    /// Builds the request object; returns it, the template label of the case id
    /// and the node list for `--restrict-allocation-to`, if any.
    fn build_request(&mut self) -> (J, String, Option<Vec<String>>) {
        let kind = self.spec.kind;
        let mut label = "mixed".to_string();
        let req = match kind {
            RequestKind::Allocate => {
                let t = self.spec.template.unwrap_or(DiskTemplate::Drbd);
                label = t.as_str().to_string();
                let ni = self.new_instance(t, 0, self.spec.new_size, 1.0);
                let gname = if self.f().group_name && !self.groups.is_empty() {
                    let g = self.r.below(self.groups.len() as u64) as usize;
                    Some(self.groups[g].name.clone())
                } else {
                    None
                };
                let restrict = if self.f().restrict_to_nodes {
                    Some(self.node_subset())
                } else {
                    None
                };
                self.new_inst_json(&ni, true, gname.as_deref(), restrict.as_deref())
            }
            RequestKind::MultiAllocate => {
                let t0 = self.spec.template.unwrap_or(DiskTemplate::Drbd);
                label = t0.as_str().to_string();
                let count = self.spec.multi_count.max(1);
                let mut list = Vec::new();
                // Each instance is smaller than a single allocation would be, except
                // sometimes one big one.
                let big_one = if self.r.chance(0.3) {
                    Some(self.r.below(count as u64) as usize)
                } else {
                    None
                };
                for i in 0..count {
                    // The instances share the free capacity: each binding resource is
                    // scaled down by the count, except for the big one.
                    let share = if big_one == Some(i) {
                        1.0
                    } else {
                        (3.0 / count as f64).min(1.0)
                    };
                    let t = if self.r.chance(0.8) {
                        t0
                    } else {
                        *self.r.pick(&[
                            DiskTemplate::Drbd,
                            DiskTemplate::Plain,
                            DiskTemplate::Diskless,
                            DiskTemplate::Rbd,
                        ])
                    };
                    let ni = self.new_instance(t, i, self.spec.new_size, share);
                    list.push(self.new_inst_json(&ni, false, None, None));
                }
                ObjB::new()
                    .putj("instances", J::Arr(list))
                    .put("type", "multi-allocate")
                    .done()
            }
            RequestKind::Relocate => {
                let t = self.spec.template.unwrap_or(DiskTemplate::Drbd);
                let t = if t == DiskTemplate::Plain || t == DiskTemplate::File {
                    DiskTemplate::Drbd
                } else {
                    t
                };
                let prefer_bad = self.r.chance(0.3);
                let idx = {
                    let want = move |i: &Inst, nodes: &[Node]| {
                        i.template == t
                            && (t != DiskTemplate::Drbd || i.snode.is_some())
                            && (!prefer_bad || {
                                let n = &nodes[i.snode.unwrap_or(i.pnode)];
                                n.offline || n.drained
                            })
                    };
                    let found = (0..self.insts.len()).any(|i| want(&self.insts[i], &self.nodes));
                    if found {
                        self.find_or_make(&want, t)
                    } else {
                        let want2 = move |i: &Inst, _: &[Node]| {
                            i.template == t && (t != DiskTemplate::Drbd || i.snode.is_some())
                        };
                        self.find_or_make(&want2, t)
                    }
                };
                let inst = self.insts[idx].clone();
                label = inst.template.as_str().to_string();
                let from = match inst.snode {
                    Some(s) if inst.template == DiskTemplate::Drbd => s,
                    _ => inst.pnode,
                };
                ObjB::new()
                    .put("name", &inst.name)
                    .put("disk_space_total", inst.dsk())
                    .put("required_nodes", 1i64)
                    .putj("relocate_from", str_list(&[self.nodes[from].name.clone()]))
                    .put("type", "relocate")
                    .done()
            }
            RequestKind::NodeEvacuate(mode) => {
                let names = self.evac_instances(mode);
                ObjB::new()
                    .putj("instances", str_list(&names))
                    .put("evac_mode", mode.as_str())
                    .put("type", "node-evacuate")
                    .done()
            }
            RequestKind::ChangeGroup => {
                let (names, targets) = self.change_group_instances();
                ObjB::new()
                    .putj("instances", str_list(&names))
                    .putj("target_groups", str_list(&targets))
                    .put("type", "change-group")
                    .done()
            }
            RequestKind::AllocateSecondary => {
                let want =
                    |i: &Inst, _: &[Node]| i.template == DiskTemplate::Plain && i.snode.is_none();
                let idx = self.find_or_make(&want, DiskTemplate::Plain);
                let inst = self.insts[idx].clone();
                label = inst.template.as_str().to_string();
                ObjB::new()
                    .put("name", &inst.name)
                    .put("type", "allocate-secondary")
                    .done()
            }
        };
        let restrict = if self.spec.options.restrict_allocation {
            Some(self.node_subset())
        } else {
            None
        };
        (req, label, restrict)
    }

    /// A random non-empty subset of the online nodes, in name order (sometimes
    /// including a node that is not online).
    fn node_subset(&mut self) -> Vec<String> {
        let online: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| self.nodes[i].online())
            .collect();
        let pool = if online.is_empty() {
            (0..self.nodes.len()).collect()
        } else {
            online
        };
        let frac = *self.r.pick(&[0.2, 0.5, 0.5, 0.8]);
        let mut v: Vec<usize> = pool
            .iter()
            .copied()
            .filter(|_| self.r.chance(frac))
            .collect();
        if v.is_empty() {
            v.push(*self.r.pick(&pool));
        }
        if self.r.chance(0.1) {
            let any = self.r.below(self.nodes.len() as u64) as usize;
            if !v.contains(&any) {
                v.push(any);
            }
        }
        let mut names: Vec<String> = v.iter().map(|&i| self.nodes[i].name.clone()).collect();
        names.sort();
        names
    }

    fn evac_instances(&mut self, mode: EvacMode) -> Vec<String> {
        let relevant = |inst: &Inst, node: usize| match mode {
            EvacMode::PrimaryOnly => inst.pnode == node,
            EvacMode::SecondaryOnly => inst.snode == Some(node),
            EvacMode::All => inst.pnode == node || inst.snode == Some(node),
        };
        let mut per_node: Vec<Vec<usize>> = vec![Vec::new(); self.nodes.len()];
        for (i, inst) in self.insts.iter().enumerate() {
            per_node[inst.pnode].push(i);
            if let Some(s) = inst.snode {
                per_node[s].push(i);
            }
        }
        let with: Vec<usize> = (0..self.nodes.len())
            .filter(|&n| per_node[n].iter().any(|&i| relevant(&self.insts[i], n)))
            .collect();
        let mut chosen: Vec<usize> = Vec::new();
        if with.is_empty() {
            // Create an instance that gives the evacuation something to do.
            let t = if mode == EvacMode::PrimaryOnly && self.r.chance(0.3) {
                DiskTemplate::Rbd
            } else {
                DiskTemplate::Drbd
            };
            let want = |i: &Inst, _: &[Node]| i.template == DiskTemplate::Drbd && i.snode.is_some();
            let idx = self.find_or_make(&want, t);
            let inst = &self.insts[idx];
            let node = match (mode, inst.snode) {
                (EvacMode::SecondaryOnly, Some(s)) => s,
                _ => inst.pnode,
            };
            per_node = vec![Vec::new(); self.nodes.len()];
            for (i, inst) in self.insts.iter().enumerate() {
                per_node[inst.pnode].push(i);
                if let Some(s) = inst.snode {
                    per_node[s].push(i);
                }
            }
            chosen.push(node);
        } else {
            let bad: Vec<usize> = with
                .iter()
                .copied()
                .filter(|&n| self.nodes[n].offline || self.nodes[n].drained)
                .collect();
            let first = if !bad.is_empty() && self.r.chance(0.6) {
                *self.r.pick(&bad)
            } else {
                *self.r.pick(&with)
            };
            chosen.push(first);
            let extra = [0usize, 0, 0, 0, 0, 0, 1, 1, 2][self.r.below(9) as usize];
            for _ in 0..extra {
                let n = *self.r.pick(&with);
                if !chosen.contains(&n) {
                    chosen.push(n);
                }
            }
        }
        let mut idxs: Vec<usize> = Vec::new();
        for &n in &chosen {
            for &i in &per_node[n] {
                if relevant(&self.insts[i], n) && !idxs.contains(&i) {
                    idxs.push(i);
                }
            }
        }
        // gnt-debug can send any subset; Ganeti's own node evacuation sends every
        // instance of the node. Mode "all" (only reachable via gnt-debug) uses
        // subsets more often.
        let subset_p = if mode == EvacMode::All { 0.5 } else { 0.15 };
        if idxs.len() > 1 && self.r.chance(subset_p) {
            self.r.shuffle(&mut idxs);
            let k = 1 + self.r.below(3.min(idxs.len() as u64)) as usize;
            idxs.truncate(k);
        }
        if idxs.is_empty() {
            // The created instance may not be relevant for secondary-only (no drbd possible).
            idxs.push(per_node[chosen[0]].first().copied().unwrap_or(0));
        }
        if self.r.chance(0.5) {
            idxs.sort_by(|&a, &b| self.insts[a].name.cmp(&self.insts[b].name));
        } else {
            idxs.sort_unstable();
        }
        idxs.iter().map(|&i| self.insts[i].name.clone()).collect()
    }

    fn change_group_instances(&mut self) -> (Vec<String>, Vec<String>) {
        if self.insts.is_empty() {
            let t = if self.r.chance(0.6) {
                DiskTemplate::Drbd
            } else {
                DiskTemplate::Plain
            };
            let want = |_: &Inst, _: &[Node]| true;
            self.find_or_make(&want, t);
        }
        let src_groups: Vec<usize> = {
            let mut v: Vec<usize> = self
                .insts
                .iter()
                .map(|i| self.nodes[i.pnode].group)
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let src = *self.r.pick(&src_groups);
        let in_src: Vec<usize> = (0..self.insts.len())
            .filter(|&i| self.nodes[self.insts[i].pnode].group == src)
            .collect();
        // Mostly instances that can move at all (DRBD or shared storage).
        let movable: Vec<usize> = in_src
            .iter()
            .copied()
            .filter(|&i| {
                self.insts[i].template != DiskTemplate::Plain
                    && self.insts[i].template != DiskTemplate::File
            })
            .collect();
        let pool = if !movable.is_empty() && self.r.chance(0.75) {
            movable
        } else {
            in_src.clone()
        };
        let mut idxs: Vec<usize> =
            if self.r.chance(0.2) && in_src.len() <= 24 && self.spec.nodes <= 50 {
                // A group evacuation: every instance of the group (only in small
                // clusters, as hail handles every instance separately).
                in_src.clone()
            } else {
                let k = 1 + [0usize, 0, 0, 1, 1, 2, 3][self.r.below(7) as usize];
                let mut v = Vec::new();
                for _ in 0..k {
                    let i = *self.r.pick(&pool);
                    if !v.contains(&i) {
                        v.push(i);
                    }
                }
                v
            };
        if src_groups.len() > 1 && self.r.chance(0.1) {
            // Instances from two groups.
            let i = self.r.below(self.insts.len() as u64) as usize;
            if !idxs.contains(&i) {
                idxs.push(i);
            }
        }
        let mut evac_groups: Vec<usize> = idxs
            .iter()
            .map(|&i| self.nodes[self.insts[i].pnode].group)
            .collect();
        evac_groups.sort_unstable();
        evac_groups.dedup();
        let others: Vec<usize> = (0..self.groups.len())
            .filter(|g| !evac_groups.contains(g))
            .collect();
        let targets: Vec<usize> = match self.r.below(20) {
            0..=10 => others.clone(),
            11..=15 if !others.is_empty() => vec![*self.r.pick(&others)],
            16 => Vec::new(),
            _ => {
                let mut v: Vec<usize> = others
                    .iter()
                    .copied()
                    .filter(|_| self.r.chance(0.5))
                    .collect();
                if self.r.chance(0.3) {
                    v.push(src);
                }
                v
            }
        };
        let names = idxs.iter().map(|&i| self.insts[i].name.clone()).collect();
        let targets = targets
            .iter()
            .map(|&g| self.groups[g].uuid.clone())
            .collect();
        (names, targets)
    }

    /// The template whose storage the nodes report (see [`StorageReport`]).
    fn report_template(&self, request_template: Option<DiskTemplate>) -> DiskTemplate {
        let from_request = match self.spec.kind {
            RequestKind::Allocate | RequestKind::Relocate => request_template,
            _ => None,
        };
        from_request.unwrap_or_else(|| {
            // The cluster's first enabled disk template: the most weighted one.
            if self.spec.instance_templates.is_empty() {
                DiskTemplate::Drbd
            } else {
                let mut best = self.spec.instance_templates[0];
                for &(t, w) in &self.spec.instance_templates {
                    if w > best.1 {
                        best = (t, w);
                    }
                }
                best.0
            }
        })
    }

    fn options(&self, restrict: Option<Vec<String>>) -> Vec<String> {
        let o = &self.spec.options;
        let mut v = Vec::new();
        if o.ignore_soft_errors {
            v.push("--ignore-soft-errors".to_string());
        }
        if o.no_capacity_checks {
            v.push("--no-capacity-checks".to_string());
        }
        if let Some(r) = restrict {
            v.push(format!("--restrict-allocation-to={}", r.join(",")));
        }
        if let Some(m) = o.static_kvm_node_memory {
            v.push(format!("--static-kvm-node-memory={}", m));
        }
        v
    }

    // ----- the document -----

    fn node_json(&self, n: &Node, report: DiskTemplate) -> J {
        let mut o = ObjB::new();
        if n.live() {
            let lvm = self.spec.storage_report == StorageReport::Lvm || report.is_lvm();
            let (tdsk, fdsk) = if lvm {
                (n.tdsk, n.tdsk - n.lvm_used)
            } else if report == DiskTemplate::File {
                (n.tdsk, n.tdsk - n.file_used)
            } else {
                (0, 0)
            };
            let (tsp, fsp) = if lvm && n.excl {
                (n.tspindles, n.tspindles - n.spindles_used)
            } else {
                (0, 0)
            };
            let free_mem = (n.tmem - n.reserved_mem - n.up_mem - n.missing).max(0);
            o.put("total_memory", n.tmem)
                .put("reserved_memory", n.reserved_mem)
                .put("free_memory", free_mem)
                .put("total_disk", tdsk)
                .put("free_disk", fdsk)
                .put("total_spindles", tsp)
                .put("free_spindles", fsp)
                .put("total_cpus", n.tcpu)
                .put("reserved_cpus", n.reserved_cpus)
                .put("i_pri_memory", n.pri_mem)
                .put("i_pri_up_memory", n.up_mem);
        }
        let nd = ObjB::new()
            .putj("cpu_speed", J::Float(1.0))
            .put("exclusive_storage", n.excl)
            .put("oob_program", "")
            .put("ovs", false)
            .put("ovs_link", "")
            .put("ovs_name", "switch1")
            .put("spindle_count", n.spindle_count)
            .put("ssh_port", 22i64)
            .done();
        o.putj("tags", str_list(&n.tags))
            .put("primary_ip", &n.pip)
            .put("secondary_ip", &n.sip)
            .put("offline", n.offline)
            .put("drained", n.drained)
            .put("master_candidate", n.master_candidate)
            .put("group", &self.groups[n.group].uuid)
            .put("master_capable", n.master_capable)
            .put("vm_capable", n.vm_capable)
            .putj("ndparams", nd);
        o.done()
    }

    fn inst_json(&self, i: &Inst) -> J {
        let mut nodes = vec![self.nodes[i.pnode].name.clone()];
        if let Some(s) = i.snode {
            nodes.push(self.nodes[s].name.clone());
        }
        let nics: Vec<J> = i
            .nics
            .iter()
            .map(|n| {
                let mut o = ObjB::new();
                o.put("mac", &n.mac)
                    .putj("ip", n.ip.as_ref().map(J::from).unwrap_or(J::Null))
                    .put("mode", n.mode)
                    .put("link", &n.link);
                if n.mode == "bridged" {
                    o.put("bridge", &n.link);
                }
                if let Some(net) = &n.network {
                    o.put("network", net);
                }
                o.done()
            })
            .collect();
        let disks: Vec<J> = i
            .disks
            .iter()
            .map(|d| {
                ObjB::new()
                    .put("dev_type", i.template.as_str())
                    .put("size", d.size)
                    .put("mode", d.mode)
                    .putj("spindles", d.spindles.map(J::Int).unwrap_or(J::Null))
                    .done()
            })
            .collect();
        ObjB::new()
            .putj("tags", str_list(&i.tags))
            .put("admin_state", i.admin.as_str())
            .put("vcpus", i.vcpus)
            .put("memory", i.mem)
            .put("spindle_use", i.su)
            .put("os", i.os)
            .putj("nodes", str_list(&nodes))
            .putj("nics", J::Arr(nics))
            .putj("disks", J::Arr(disks))
            .put("disk_template", i.template.as_str())
            .put("disks_active", i.admin == AdminState::Up)
            .put("hypervisor", &i.hv)
            .put("disk_space_total", i.dsk())
            .done()
    }

    fn document(&mut self, request: J, report: DiskTemplate) -> J {
        let mut gorder: Vec<usize> = (0..self.groups.len()).collect();
        let mut norder: Vec<usize> = (0..self.nodes.len()).collect();
        let mut iorder: Vec<usize> = (0..self.insts.len()).collect();
        if self.f().shuffled_order {
            self.r.shuffle(&mut norder);
            self.r.shuffle(&mut iorder);
            self.r.shuffle(&mut gorder);
        } else {
            norder.sort_by(|&a, &b| self.nodes[a].name.cmp(&self.nodes[b].name));
            iorder.sort_by(|&a, &b| self.insts[a].name.cmp(&self.insts[b].name));
        }
        let groups: Vec<(String, J)> = gorder
            .iter()
            .map(|&g| {
                let gr = &self.groups[g];
                let j = ObjB::new()
                    .put("name", &gr.name)
                    .put("alloc_policy", gr.policy.as_str())
                    .putj("networks", str_list(&gr.networks))
                    .putj("ipolicy", gr.ipolicy.json())
                    .putj("tags", str_list(&gr.tags))
                    .done();
                (gr.uuid.clone(), j)
            })
            .collect();
        let nodes: Vec<(String, J)> = norder
            .iter()
            .map(|&i| {
                (
                    self.nodes[i].name.clone(),
                    self.node_json(&self.nodes[i], report),
                )
            })
            .collect();
        let insts: Vec<(String, J)> = iorder
            .iter()
            .map(|&i| (self.insts[i].name.clone(), self.inst_json(&self.insts[i])))
            .collect();
        let cluster_policy = self
            .cluster_policy
            .as_ref()
            .map(|p| p.json())
            .unwrap_or(J::Null);
        let hvs: Vec<String> = self.spec.hypervisors.clone();
        ObjB::new()
            .put("version", 2i64)
            .put("cluster_name", format!("cluster.{}", self.domain))
            .putj("cluster_tags", str_list(&self.cluster_tags))
            .putj("enabled_hypervisors", str_list(&hvs))
            .putj("ipolicy", cluster_policy)
            .putj("nodegroups", J::Obj(groups))
            .putj("nodes", J::Obj(nodes))
            .putj("instances", J::Obj(insts))
            .putj("request", request)
            .done()
    }
}

// ---------------------------------------------------------------------------
// Tests.
// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn parse(c: &Case) -> Value {
        serde_json::from_str(&c.request).expect("generated request is valid JSON")
    }

    #[test]
    fn same_seed_same_bytes() {
        for k in all_kinds() {
            for seed in [1u64, 42, 9999] {
                let a = generate(&CaseSpec::random(seed, k, 2..=40));
                let b = generate(&CaseSpec::random(seed, k, 2..=40));
                assert_eq!(a, b);
            }
        }
        let a = generate(&CaseSpec::random(1, RequestKind::Allocate, 2..=40));
        let b = generate(&CaseSpec::random(2, RequestKind::Allocate, 2..=40));
        assert_ne!(a.request, b.request);
    }

    #[test]
    fn every_kind_generates_its_request_type() {
        for k in all_kinds() {
            for seed in 0..40u64 {
                let c = generate(&CaseSpec::random(seed, k, 2..=30));
                let v = parse(&c);
                assert_eq!(v["version"], 2);
                assert_eq!(v["request"]["type"], k.request_type(), "{}", c.id);
                assert!(c.id.starts_with(k.slug()));
                let r = &v["request"];
                match k {
                    RequestKind::NodeEvacuate(m) => {
                        assert_eq!(r["evac_mode"], m.as_str());
                        assert!(!r["instances"].as_array().unwrap().is_empty(), "{}", c.id);
                    }
                    RequestKind::ChangeGroup => {
                        assert!(!r["instances"].as_array().unwrap().is_empty())
                    }
                    RequestKind::Relocate | RequestKind::AllocateSecondary => {
                        let name = r["name"].as_str().unwrap();
                        assert!(v["instances"].get(name).is_some(), "{}", c.id);
                    }
                    RequestKind::MultiAllocate => {
                        assert!(!r["instances"].as_array().unwrap().is_empty())
                    }
                    RequestKind::Allocate => {
                        let t = DiskTemplate::parse(r["disk_template"].as_str().unwrap()).unwrap();
                        assert_eq!(r["required_nodes"], t.required_nodes() as i64);
                    }
                }
            }
        }
    }

    /// Checks free = total − used for every live node of a request.
    fn check_consistency(v: &Value, exact_memory: bool) {
        let nodes = v["nodes"].as_object().unwrap();
        let insts = v["instances"].as_object().unwrap();
        for (name, n) in nodes {
            let live = !n["offline"].as_bool().unwrap() && n["vm_capable"].as_bool().unwrap();
            if !live {
                assert!(n.get("free_memory").is_none(), "{} has run-time data", name);
                continue;
            }
            let mut up = 0;
            let mut pri = 0;
            let mut lvm = 0;
            let mut spindles = 0;
            for i in insts.values() {
                let ns: Vec<&str> = i["nodes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_str().unwrap())
                    .collect();
                let t = i["disk_template"].as_str().unwrap();
                let is_lvm = t == "plain" || t == "drbd";
                let dst = i["disk_space_total"].as_i64().unwrap();
                if ns[0] == name {
                    pri += i["memory"].as_i64().unwrap();
                    if i["admin_state"] == "up" {
                        up += i["memory"].as_i64().unwrap();
                    }
                }
                if ns.contains(&name.as_str()) && is_lvm {
                    lvm += dst;
                    for d in i["disks"].as_array().unwrap() {
                        spindles += d["spindles"].as_i64().unwrap_or(0);
                    }
                }
            }
            let total = n["total_memory"].as_i64().unwrap();
            let res = n["reserved_memory"].as_i64().unwrap();
            let free = n["free_memory"].as_i64().unwrap();
            assert_eq!(n["i_pri_memory"].as_i64().unwrap(), pri);
            assert_eq!(n["i_pri_up_memory"].as_i64().unwrap(), up);
            if exact_memory {
                assert_eq!(free, (total - res - up).max(0), "{}", name);
            } else {
                assert!(free <= (total - res - up).max(0), "{}", name);
            }
            let td = n["total_disk"].as_i64().unwrap();
            if td > 0 {
                assert!(n["free_disk"].as_i64().unwrap() >= 0, "{}", name);
            }
            if n["ndparams"]["exclusive_storage"] == true
                && n["total_spindles"].as_i64().unwrap() > 0
            {
                assert_eq!(
                    n["free_spindles"].as_i64().unwrap(),
                    n["total_spindles"].as_i64().unwrap() - spindles,
                    "{}",
                    name
                );
            }
            let _ = lvm;
        }
    }

    #[test]
    fn resources_are_consistent() {
        for k in all_kinds() {
            for seed in 0..25u64 {
                let mut spec = CaseSpec::random(seed, k, 2..=40);
                spec.storage_report = StorageReport::Lvm;
                let missing = spec.features.missing_memory;
                let c = generate(&spec);
                let v = parse(&c);
                check_consistency(&v, !missing);
                // With LVM reporting, free_disk is exactly total minus plain/drbd usage.
                for (name, n) in v["nodes"].as_object().unwrap() {
                    if n.get("free_disk").is_none() {
                        continue;
                    }
                    let mut used = 0;
                    for i in v["instances"].as_object().unwrap().values() {
                        let t = i["disk_template"].as_str().unwrap();
                        if (t == "plain" || t == "drbd")
                            && i["nodes"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .any(|x| x == name.as_str())
                        {
                            used += i["disk_space_total"].as_i64().unwrap();
                        }
                    }
                    assert_eq!(
                        n["free_disk"].as_i64().unwrap(),
                        n["total_disk"].as_i64().unwrap() - used,
                        "{} in {}",
                        name,
                        c.id
                    );
                }
            }
        }
    }

    #[test]
    fn drbd_instances_have_two_nodes_in_one_group() {
        for seed in 0..40u64 {
            let c = generate(&CaseSpec::random(seed, RequestKind::Relocate, 2..=30));
            let v = parse(&c);
            for i in v["instances"].as_object().unwrap().values() {
                let ns = i["nodes"].as_array().unwrap();
                if i["disk_template"] == "drbd" {
                    assert_eq!(ns.len(), 2);
                    assert_ne!(ns[0], ns[1]);
                    let g0 = &v["nodes"][ns[0].as_str().unwrap()]["group"];
                    let g1 = &v["nodes"][ns[1].as_str().unwrap()]["group"];
                    assert_eq!(g0, g1);
                } else {
                    assert_eq!(ns.len(), 1);
                }
            }
        }
    }

    #[test]
    fn disk_space_total_follows_ganeti() {
        assert_eq!(DiskTemplate::Drbd.disk_space(1024), 1152);
        assert_eq!(DiskTemplate::Plain.disk_space(1024), 1024);
        assert_eq!(DiskTemplate::Blockdev.disk_space(1024), 0);
        assert_eq!(DiskTemplate::Rbd.disk_space(1024), 1024);
    }

    #[test]
    fn json_escaping() {
        let mut s = String::new();
        write_str(&mut s, "a\"b\\c\n\u{1}\u{fc}\u{1F600}", true);
        assert_eq!(s, "\"a\\\"b\\\\c\\n\\u0001\\u00fc\\ud83d\\ude00\"");
        let v: String = serde_json::from_str(&s).unwrap();
        assert_eq!(v, "a\"b\\c\n\u{1}\u{fc}\u{1F600}");
        let mut raw = String::new();
        write_str(&mut raw, "\u{fc}", false);
        assert_eq!(raw, "\"\u{fc}\"");
    }

    #[test]
    fn kinds_parse() {
        assert_eq!(parse_kinds("node-evacuate").unwrap().len(), 3);
        assert_eq!(parse_kinds("all").unwrap(), all_kinds());
        for k in all_kinds() {
            assert_eq!(RequestKind::from_slug(k.slug()), Some(k));
        }
        assert!(parse_kinds("bogus").is_err());
    }

    #[test]
    fn big_cluster_generates() {
        // A random 2,000-node spec (whatever its features) generates...
        let spec = CaseSpec::random(7, RequestKind::Allocate, 2000..=2000);
        let v = parse(&generate(&spec));
        assert_eq!(v["nodes"].as_object().unwrap().len(), 2000);
        assert!(v["instances"].as_object().unwrap().len() > 2000);
        // ...and a plain one holds close to 5 instances per node.
        let mut spec = CaseSpec::new(7, RequestKind::Allocate, 2000);
        spec.groups = 4;
        let start = std::time::Instant::now();
        let c = generate(&spec);
        let took = start.elapsed();
        let v = parse(&c);
        assert_eq!(v["nodes"].as_object().unwrap().len(), 2000);
        let n = v["instances"].as_object().unwrap().len();
        assert!(n > 9000, "{}", n);
        // Generous bound for unoptimised test builds; release builds take far less.
        assert!(took.as_secs() < 20, "took {:?}", took);
    }
}
