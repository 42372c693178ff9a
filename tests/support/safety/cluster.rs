//! The checker's own model of the cluster the request describes.

use super::*;

/// Disk templates whose disks take space from the nodes' volume group (`DTS_LVM`).
pub(super) const LOCAL_STORAGE: &[&str] = &["plain", "drbd"];
/// Disk templates that can fail over or migrate (`DTS_MIRRORED`).
pub(super) const MIRRORED: &[&str] = &[
    "blockdev",
    "diskless",
    "drbd",
    "ext",
    "gluster",
    "rbd",
    "sharedfile",
];
/// Disk templates allowed on nodes with exclusive storage (`DTS_EXCL_STORAGE`).
pub(super) const EXCL_STORAGE_TEMPLATES: &[&str] = &["plain"];
/// The DRBD metadata volume Ganeti adds to every disk (`DRBD_META_SIZE`, MiB).
pub(super) const DRBD_META_SIZE: i128 = 128;

pub(super) fn is_drbd(template: &str) -> bool {
    template == "drbd"
}

pub(super) fn is_local(template: &str) -> bool {
    LOCAL_STORAGE.contains(&template)
}

/// The node count Ganeti asks for with this template (`IAReqInstanceAlloc.RequiredNodes`).
pub(super) fn template_nodes(template: &str) -> usize {
    if is_drbd(template) {
        2
    } else {
        1
    }
}

/// One min or max instance spec; a missing value is no constraint (as in Ganeti).
#[derive(Default, Clone)]
pub(super) struct Spec {
    pub(super) memory: Option<i128>,
    pub(super) cpu: Option<i128>,
    pub(super) disk_size: Option<i128>,
    pub(super) disk_count: Option<i128>,
    pub(super) nic_count: Option<i128>,
    pub(super) spindle_use: Option<i128>,
}

impl Spec {
    pub(super) fn parse(j: &J) -> Spec {
        Spec {
            memory: j.int_field("memory-size"),
            cpu: j.int_field("cpu-count"),
            disk_size: j.int_field("disk-size"),
            disk_count: j.int_field("disk-count"),
            nic_count: j.int_field("nic-count"),
            spindle_use: j.int_field("spindle-use"),
        }
    }
}

/// The parts of a group's instance policy that Ganeti enforces.
#[derive(Clone)]
pub(super) struct IPolicy {
    /// The `minmax` pairs; the instance must fit one of them.
    pub(super) minmax: Vec<(Spec, Spec)>,
    /// `disk-templates`: the allowed templates.
    pub(super) templates: Vec<String>,
}

pub(super) struct Group {
    pub(super) uuid: String,
    pub(super) name: String,
    /// `alloc_policy`: preferred, last_resort or unallocable.
    pub(super) alloc_policy: String,
    /// Network UUIDs connected to the group.
    pub(super) networks: Vec<String>,
    pub(super) ipolicy: Option<IPolicy>,
}

pub(super) struct Node {
    pub(super) name: String,
    /// Index into `Cluster::groups`.
    pub(super) group: usize,
    pub(super) offline: bool,
    pub(super) drained: bool,
    pub(super) vm_capable: bool,
    /// `ndparams.exclusive_storage`.
    pub(super) exclusive_storage: bool,
    /// `free_memory`, MiB, as reported (0 when absent).
    pub(super) free_memory: i128,
    /// `free_disk`, MiB, as reported (0 when absent).
    pub(super) free_disk: i128,
    /// `free_spindles`, as reported (0 when absent).
    pub(super) free_spindles: i128,
    pub(super) tags: Vec<String>,
}

#[derive(Clone)]
pub(super) struct Disk {
    pub(super) size: i128,
    pub(super) spindles: Option<i128>,
}

/// An instance, existing or requested.
#[derive(Clone)]
pub(super) struct Inst {
    pub(super) name: String,
    pub(super) template: String,
    pub(super) memory: i128,
    pub(super) vcpus: i128,
    pub(super) spindle_use: Option<i128>,
    /// `disk_space_total`: the disk Ganeti accounts on each node holding the disks.
    pub(super) disk_space_total: i128,
    pub(super) disks: Vec<Disk>,
    /// The `network` of each NIC (None when the NIC has none).
    pub(super) nic_networks: Vec<Option<String>>,
    pub(super) tags: Vec<String>,
    /// Whether the instance runs (admin_state up or missing, and not forthcoming).
    pub(super) uses_memory: bool,
    /// Existing instances: primary and optional secondary (node indices).
    pub(super) primary: Option<usize>,
    pub(super) secondary: Option<usize>,
    /// Requests: `required_nodes` and `group_name`.
    pub(super) required_nodes: Option<i128>,
    pub(super) group_name: Option<String>,
}

impl Inst {
    pub(super) fn parse(name: &str, j: &J) -> Inst {
        let disks = j
            .field("disks")
            .and_then(J::as_arr)
            .unwrap_or(&[])
            .iter()
            .map(|d| Disk {
                size: d.int_field("size").unwrap_or(0),
                spindles: d.int_field("spindles"),
            })
            .collect();
        let nic_networks = j
            .field("nics")
            .and_then(J::as_arr)
            .unwrap_or(&[])
            .iter()
            .map(|n| n.str_field("network"))
            .collect();
        let admin_up = !matches!(
            j.field("admin_state").and_then(J::as_str),
            Some("down" | "offline")
        );
        let forthcoming = j.bool_field("forthcoming").unwrap_or(false);
        Inst {
            name: name.to_owned(),
            template: j.str_field("disk_template").unwrap_or_default(),
            memory: j.int_field("memory").unwrap_or(0),
            vcpus: j.int_field("vcpus").unwrap_or(0),
            spindle_use: j.int_field("spindle_use"),
            disk_space_total: j.int_field("disk_space_total").unwrap_or(0),
            disks,
            nic_networks,
            tags: j.str_list("tags").unwrap_or_default(),
            uses_memory: admin_up && !forthcoming,
            primary: None,
            secondary: None,
            required_nodes: j.int_field("required_nodes"),
            group_name: j.str_field("group_name"),
        }
    }

    pub(super) fn disk_sizes(&self) -> Vec<i128> {
        self.disks.iter().map(|d| d.size).collect()
    }

    /// The sum of the disks' spindles, or None if a disk has no spindle count.
    pub(super) fn spindle_sum(&self) -> Option<i128> {
        self.disks
            .iter()
            .try_fold(0i128, |acc, d| d.spindles.map(|s| acc.saturating_add(s)))
    }
}

#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum EvacMode {
    PrimaryOnly,
    SecondaryOnly,
    All,
}

pub(super) enum Kind {
    Allocate {
        inst: Box<Inst>,
        group_name: Option<String>,
        restrict: Option<Vec<String>>,
    },
    MultiAllocate {
        insts: Vec<Inst>,
        group_name: Option<String>,
    },
    AllocateSecondary {
        inst: usize,
    },
    Relocate {
        inst: usize,
        relocate_from: Vec<usize>,
    },
    NodeEvacuate {
        insts: Vec<usize>,
        mode: EvacMode,
    },
    ChangeGroup {
        insts: Vec<usize>,
        targets: Vec<usize>,
    },
}

pub(super) struct Cluster {
    pub(super) groups: Vec<Group>,
    pub(super) nodes: Vec<Node>,
    pub(super) insts: Vec<Inst>,
    pub(super) node_ix: BTreeMap<String, usize>,
    pub(super) inst_ix: BTreeMap<String, usize>,
    /// Exclusion-tag prefixes from `htools:iextags:P` cluster tags.
    pub(super) excl_prefixes: Vec<String>,
    /// Migration-tag prefixes from `htools:migration:P` cluster tags.
    pub(super) mig_prefixes: Vec<String>,
    /// `htools:allowmigration:Y::Z` pairs (Y, Z).
    pub(super) allow_mig: Vec<(String, String)>,
    pub(super) kind: Kind,
}

pub(super) fn objects<'a>(root: &'a J, key: &str) -> Result<&'a [(String, J)], String> {
    match root.get(key) {
        Some(J::Obj(o)) => Ok(o),
        Some(_) => Err(format!("'{key}' is not an object")),
        None => Err(format!("the request has no '{key}'")),
    }
}

impl Cluster {
    pub(super) fn parse(root: &J) -> Result<Cluster, String> {
        if root.as_obj().is_none() {
            return Err("the request is not a JSON object".into());
        }
        let request = match root.get("request") {
            Some(r @ J::Obj(_)) => r,
            _ => return Err("the request has no 'request' object".into()),
        };
        let mut groups = Vec::new();
        for (uuid, g) in objects(root, "nodegroups")? {
            let ipolicy = g.field("ipolicy").map(|p| IPolicy {
                minmax: p
                    .field("minmax")
                    .and_then(J::as_arr)
                    .unwrap_or(&[])
                    .iter()
                    .map(|mm| {
                        (
                            Spec::parse(mm.field("min").unwrap_or(&J::Null)),
                            Spec::parse(mm.field("max").unwrap_or(&J::Null)),
                        )
                    })
                    .collect(),
                templates: p.str_list("disk-templates").unwrap_or_default(),
            });
            groups.push(Group {
                uuid: uuid.clone(),
                name: g.str_field("name").unwrap_or_else(|| uuid.clone()),
                alloc_policy: g.str_field("alloc_policy").unwrap_or_default(),
                networks: g.str_list("networks").unwrap_or_default(),
                ipolicy,
            });
        }
        let mut nodes = Vec::new();
        let mut node_ix = BTreeMap::new();
        for (name, n) in objects(root, "nodes")? {
            let guuid = n.str_field("group").unwrap_or_default();
            let Some(group) = groups.iter().position(|g| g.uuid == guuid) else {
                return Err(format!("node {name} is in unknown group '{guuid}'"));
            };
            let ndparams = n.field("ndparams").unwrap_or(&J::Null);
            node_ix.entry(name.clone()).or_insert(nodes.len());
            nodes.push(Node {
                name: name.clone(),
                group,
                offline: n.bool_field("offline").unwrap_or(false),
                drained: n.bool_field("drained").unwrap_or(false),
                vm_capable: n.bool_field("vm_capable").unwrap_or(true),
                exclusive_storage: ndparams.bool_field("exclusive_storage").unwrap_or(false),
                free_memory: n.int_field("free_memory").unwrap_or(0),
                free_disk: n.int_field("free_disk").unwrap_or(0),
                free_spindles: n.int_field("free_spindles").unwrap_or(0),
                tags: n.str_list("tags").unwrap_or_default(),
            });
        }
        let mut insts = Vec::new();
        let mut inst_ix = BTreeMap::new();
        for (name, i) in objects(root, "instances")? {
            let mut inst = Inst::parse(name, i);
            let names = i.str_list("nodes").unwrap_or_default();
            let lookup = |n: &String| {
                node_ix
                    .get(n)
                    .copied()
                    .ok_or_else(|| format!("unknown node '{n}' for instance {name}"))
            };
            match names.as_slice() {
                [] => return Err(format!("instance {name} has no nodes")),
                [p] => inst.primary = Some(lookup(p)?),
                [p, s, ..] => {
                    inst.primary = Some(lookup(p)?);
                    inst.secondary = Some(lookup(s)?);
                }
            }
            inst_ix.entry(name.clone()).or_insert(insts.len());
            insts.push(inst);
        }
        let cluster_tags = root.str_list("cluster_tags").unwrap_or_default();
        let excl_prefixes = cluster_tags
            .iter()
            .filter_map(|t| t.strip_prefix("htools:iextags:"))
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect();
        let mig_prefixes = cluster_tags
            .iter()
            .filter_map(|t| t.strip_prefix("htools:migration:"))
            .map(str::to_owned)
            .collect();
        let allow_mig = cluster_tags
            .iter()
            .filter_map(|t| t.strip_prefix("htools:allowmigration:"))
            .filter_map(|rest| {
                let (y, z) = rest.split_once("::")?;
                (!z.contains("::")).then(|| (y.to_owned(), z.to_owned()))
            })
            .collect();

        let find_inst = |name: &str| {
            inst_ix
                .get(name)
                .copied()
                .ok_or_else(|| format!("unknown instance '{name}'"))
        };
        let find_group = |name: &str| {
            groups
                .iter()
                .position(|g| g.name == name || g.uuid == name)
                .ok_or_else(|| format!("unknown group '{name}'"))
        };
        let rtype = request
            .str_field("type")
            .ok_or("the request has no 'type'")?;
        let kind = match rtype.as_str() {
            "allocate" => {
                let name = request.str_field("name").unwrap_or_default();
                Kind::Allocate {
                    inst: Box::new(Inst::parse(&name, request)),
                    group_name: request.str_field("group_name"),
                    restrict: request.str_list("restrict-to-nodes"),
                }
            }
            "multi-allocate" => {
                let list = request
                    .field("instances")
                    .and_then(J::as_arr)
                    .ok_or("multi-allocate without 'instances'")?;
                let insts = list
                    .iter()
                    .map(|r| Inst::parse(&r.str_field("name").unwrap_or_default(), r))
                    .collect();
                Kind::MultiAllocate {
                    insts,
                    group_name: request.str_field("group_name"),
                }
            }
            "allocate-secondary" => Kind::AllocateSecondary {
                inst: find_inst(&request.str_field("name").unwrap_or_default())?,
            },
            "relocate" => {
                let inst = find_inst(&request.str_field("name").unwrap_or_default())?;
                let mut relocate_from = Vec::new();
                for n in request.str_list("relocate_from").unwrap_or_default() {
                    relocate_from.push(
                        node_ix
                            .get(&n)
                            .copied()
                            .ok_or_else(|| format!("unknown node '{n}' in relocate_from"))?,
                    );
                }
                Kind::Relocate {
                    inst,
                    relocate_from,
                }
            }
            "node-evacuate" => {
                let names = request
                    .str_list("instances")
                    .ok_or("node-evacuate without 'instances'")?;
                let insts = names
                    .iter()
                    .map(|n| find_inst(n))
                    .collect::<Result<Vec<_>, _>>()?;
                let mode = match request.str_field("evac_mode").as_deref() {
                    Some("primary-only") => EvacMode::PrimaryOnly,
                    Some("secondary-only") => EvacMode::SecondaryOnly,
                    Some("all") => EvacMode::All,
                    other => return Err(format!("invalid evac_mode {other:?}")),
                };
                Kind::NodeEvacuate { insts, mode }
            }
            "change-group" => {
                let names = request
                    .str_list("instances")
                    .ok_or("change-group without 'instances'")?;
                let insts = names
                    .iter()
                    .map(|n| find_inst(n))
                    .collect::<Result<Vec<_>, _>>()?;
                let targets = request.str_list("target_groups").unwrap_or_default();
                let targets = targets
                    .iter()
                    .map(|g| find_group(g))
                    .collect::<Result<Vec<_>, _>>()?;
                Kind::ChangeGroup { insts, targets }
            }
            other => return Err(format!("unknown request type '{other}'")),
        };
        Ok(Cluster {
            groups,
            nodes,
            insts,
            node_ix,
            inst_ix,
            excl_prefixes,
            mig_prefixes,
            allow_mig,
            kind,
        })
    }

    pub(super) fn node_name(&self, n: usize) -> &str {
        self.nodes.get(n).map_or("?", |x| x.name.as_str())
    }

    pub(super) fn group_of(&self, n: usize) -> Option<&Group> {
        self.nodes.get(n).and_then(|x| self.groups.get(x.group))
    }

    pub(super) fn group_ix_of(&self, n: usize) -> Option<usize> {
        self.nodes.get(n).map(|x| x.group)
    }

    pub(super) fn group_name_of(&self, n: usize) -> &str {
        self.group_of(n).map_or("?", |g| g.name.as_str())
    }

    /// The instance's exclusion tags: its tags that start with an `htools:iextags:` prefix.
    pub(super) fn exclusion_tags(&self, tags: &[String]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for t in tags {
            if self.excl_prefixes.iter().any(|p| t.starts_with(p.as_str())) && !out.contains(t) {
                out.push(t.clone());
            }
        }
        out
    }

    /// The node's migration tags (node tags `P:...` for each `htools:migration:P`).
    pub(super) fn mig_tags(&self, n: usize) -> Vec<String> {
        let Some(node) = self.nodes.get(n) else {
            return Vec::new();
        };
        let mut out: Vec<String> = Vec::new();
        for p in &self.mig_prefixes {
            let prefix = format!("{p}:");
            for t in &node.tags {
                if t.starts_with(&prefix) && !out.contains(t) {
                    out.push(t.clone());
                }
            }
        }
        out
    }

    /// The migration tags the node can receive: its own plus those allowed by
    /// `htools:allowmigration:Y::Z` for each of its tags Z.
    pub(super) fn recv_mig_tags(&self, n: usize) -> Vec<String> {
        let own = self.mig_tags(n);
        let mut out = own.clone();
        for (y, z) in &self.allow_mig {
            if own.contains(z) && !out.contains(y) {
                out.push(y.clone());
            }
        }
        out
    }
}
