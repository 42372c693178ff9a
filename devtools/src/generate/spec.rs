//! What a generated case is: request kinds, disk templates, feature
//! switches and the [`CaseSpec`] that draws them from a seed, and the
//! fixed-seed corpora.

use std::ops::RangeInclusive;

use super::rng::{mix, Rng};

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
    pub(super) fn salt(self) -> u64 {
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
    /// Group policies allow the templates of a few storage partitions
    /// (lvm only, lvm and shared, shared only, file only), so that groups
    /// connect through some pools and not others (the multi-group
    /// profile).
    pub storage_partitions: bool,
}

/// Command-line options to pass to hail after the input path.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HailOptions {
    /// `--no-capacity-checks`.
    pub no_capacity_checks: bool,
    /// `--ignore-soft-errors`.
    pub ignore_soft_errors: bool,
    /// `--restrict-allocation-to=<some online nodes>` (the list is drawn by [`generate`](super::generate)).
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

/// The distributions a cluster is drawn from. The planners' searches were
/// tuned on the standard shape; the hosting shape is held out from that
/// tuning, so that a benchmark on it shows what an unfamiliar cluster
/// costs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Shape {
    /// The generator's own: one hardware profile for most groups, instance
    /// sizes scattered around the group's mean, primaries drawn evenly.
    #[default]
    Standard,
    /// A hosting provider's cluster: three hardware generations mixed
    /// within every group, instances from a catalogue of seven flavours
    /// (an eighth of the mean memory to eight times it, most of them
    /// small, vCPUs growing with memory), disks with a heavy tail,
    /// primaries piled on the first third of each group's nodes, and exclusion
    /// tags on most instances.
    Hosting,
}

impl Shape {
    /// Every shape, in a fixed order.
    pub const ALL: [Shape; 2] = [Shape::Standard, Shape::Hosting];

    /// The shape's name on command lines.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Standard => "standard",
            Shape::Hosting => "hosting",
        }
    }

    /// The shape of a name.
    pub fn parse(s: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|x| x.name() == s)
    }
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
    /// Seed of all random choices made by [`generate`](super::generate).
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
    /// The distributions of hardware, instance sizes and placement.
    pub shape: Shape,
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
            shape: Shape::Standard,
        }
    }

    /// The multi-group profile (`hailstone-gen --profile multi-group`): a
    /// node-evacuate request on a cluster of `groups` groups in several
    /// storage partitions, with shared and local storage, and often
    /// unhealthy groups (offline nodes still hosting instances, nodes
    /// failing N+1). Its data file is what `hailstone-groups` plans on.
    pub fn multi_group(seed: u64, nodes: usize, groups: usize) -> CaseSpec {
        let mut r = Rng::new(mix(seed, 0x6d75_6c74_6967_7270));
        let mut spec = CaseSpec::new(seed, RequestKind::NodeEvacuate(EvacMode::All), nodes);
        spec.groups = groups.clamp(1, nodes.max(1));
        spec.instances_per_node = if nodes > 500 {
            4.0
        } else {
            1.5 + r.below(11) as f64 * 0.25
        };
        spec.instance_templates = vec![
            (DiskTemplate::Drbd, 8),
            (DiskTemplate::Plain, 1),
            (DiskTemplate::Rbd, 4),
            (DiskTemplate::Ext, 3),
            (DiskTemplate::Sharedfile, 2),
            (DiskTemplate::Diskless, 1),
            (DiskTemplate::File, 1),
        ];
        spec.tightness = [0.3, 0.5, 0.7, 0.85, 0.95][r.below(5) as usize];
        spec.disk_tightness = [0.3, 0.5, 0.7][r.below(3) as usize];
        spec.style = JsonStyle::Spaced;
        let f = &mut spec.features;
        f.storage_partitions = true;
        f.offline_nodes = true;
        f.offline_with_instances = r.chance(0.6);
        f.drained_nodes = r.chance(0.2);
        f.overcommitted = nodes <= 500 && r.chance(0.4);
        f.node_tags = r.chance(0.3);
        f.alloc_policies = r.chance(0.15);
        f.shuffled_order = r.chance(0.3);
        spec
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
