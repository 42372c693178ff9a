//! A live cluster's replies turned into the cluster's [`Parts`], as the
//! htools' Luxi and RAPI backends do (`Backend/Luxi.hs`,
//! `Backend/Rapi.hs`): node groups first (keyed by UUID), then the nodes
//! (each resolving its group), the instances (each resolving its primary
//! and secondary node by name), the cluster's tags, policy, master and
//! default hypervisor. The result is merged as every cluster is
//! ([`crate::read::merge`]), so a live cluster, a data file and a request
//! give the same model for the same facts.
//!
//! * Owns: what both live backends share: the assembly of groups, nodes
//!   and instances with hbal's name resolution and its errors ("Unknown
//!   group", "Unknown node", "Master node ... unknown"), the cluster info
//!   ([`ClusterInfo`]), the error type ([`LiveError`]) and loading with the
//!   `--static-kvm-node-memory` rule (`setStaticKvmNodeMem`: on a KVM
//!   cluster every node's reserved memory becomes the option's value when
//!   it is positive). [`luxi`] reads the four Luxi query results (every
//!   field a `[status, value]` pair), [`rapi`] the four RAPI resources.
//! * Does no I/O: the socket and the `curl` child process are the
//!   shell's (`shell::luxi`, `shell::rapi`); this folder is handed
//!   the replies' bytes or parsed values, so that it can be tested on
//!   captures and never blocks. Reading never scores, searches or prints
//!   (ARCHITECTURE.md, "Layers").
//!
//! Deviation, as in the data file reader: a drbd instance whose secondary
//! is missing or is its primary is refused (hbal accepts it and fails as
//! soon as it moves the instance).

pub(crate) mod luxi;
pub(crate) mod mond;
pub(crate) mod rapi;

use std::collections::HashMap;

use crate::model::group::Group;
use crate::model::instance::NO_NODE;
use crate::model::node::{Node, NodeInfo, Resources};
use crate::model::policy::IPolicy;
use crate::model::types::AllocPolicy;
use crate::model::Cluster;
use crate::read::iallocator::{Hypervisor, InputError};
use crate::read::merge::{merge, Empties, InstanceRecord, MergeOptions, Parts};

/// Why a live cluster cannot be read: which reply, and what is wrong in it
/// (the object and field, then the problem).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{place}: {message}")]
pub struct LiveError {
    /// The reply: `Luxi query "node"`, `RAPI resource nodes (URL)` or
    /// a file of a `file://` directory.
    pub place: String,
    /// Where in the reply and what is wrong, e.g. `node
    /// 'node2.example.com', field mtotal: Ganeti reports unavailable data`.
    pub message: String,
}

impl LiveError {
    pub(crate) fn new(source: &str, message: impl Into<String>) -> LiveError {
        LiveError {
            place: source.to_owned(),
            message: message.into(),
        }
    }
}

/// A JSON reading error of field `e.path` of `object` in `source`.
pub(crate) fn field_error(source: &str, object: &str, e: InputError) -> LiveError {
    LiveError::new(source, format!("{object}, field {}: {}", e.path, e.message))
}

/// The cluster-wide facts of `QueryClusterInfo` and RAPI's `/2/info`.
pub(crate) struct ClusterInfo {
    pub tags: Vec<String>,
    pub ipolicy: IPolicy,
    /// The master node's name (`setMaster`).
    pub master: String,
    /// The default hypervisor, every node's (`setHypervisor`).
    pub hypervisor: Hypervisor,
    /// The cluster's default iallocator, when it names one (what harep's
    /// repairs use in hailstone-repair).
    pub default_iallocator: Option<String>,
}

/// A live cluster as read, before merging.
#[derive(Clone)]
pub(crate) struct Live {
    parts: Parts,
    hypervisor: Hypervisor,
    default_iallocator: Option<String>,
}

impl Live {
    /// The cluster's default iallocator, when it names one.
    pub(crate) fn default_iallocator(&self) -> Option<&str> {
        self.default_iallocator.as_deref()
    }
}

/// Builds the cluster's parts in hbal's order, resolving names as hbal's
/// `assignIndices` does (a repeated name or UUID resolves to the last).
pub(crate) struct Assembly {
    empty: Empties,
    groups: Vec<Group>,
    group_by_uuid: HashMap<String, usize>,
    nodes: Vec<Node>,
    node_by_name: HashMap<String, usize>,
    instances: Vec<crate::model::instance::Instance>,
}

impl Assembly {
    pub(crate) fn new() -> Assembly {
        Assembly {
            empty: Empties::new(),
            groups: Vec::new(),
            group_by_uuid: HashMap::new(),
            nodes: Vec::new(),
            node_by_name: HashMap::new(),
            instances: Vec::new(),
        }
    }

    /// A node group (`Group.create`; no networks: hbal does not read them
    /// from a live cluster).
    pub(crate) fn group(
        &mut self,
        name: &str,
        uuid: &str,
        alloc_policy: AllocPolicy,
        ipolicy: IPolicy,
        tags: Vec<String>,
    ) {
        let idx = self.groups.len();
        self.group_by_uuid.insert(uuid.to_owned(), idx);
        self.groups.push(Group {
            name: name.to_owned(),
            uuid: uuid.to_owned(),
            idx,
            alloc_policy,
            networks: Vec::new(),
            ipolicy,
            tags,
        });
    }

    /// The group of UUID `uuid` for node `node` (`lookupGroup`).
    pub(crate) fn group_of(&self, uuid: &str, node: &str) -> Result<usize, String> {
        self.group_by_uuid
            .get(uuid)
            .copied()
            .ok_or_else(|| format!("Unknown group '{uuid}' for node {node}"))
    }

    /// A node (`Node.create`).
    pub(crate) fn node(&mut self, info: NodeInfo, group: usize, resources: Resources) {
        let idx = self.nodes.len();
        self.node_by_name.insert(info.name.clone(), idx);
        self.nodes.push(Node::create(info, idx, group, resources));
    }

    /// The node named `node` for instance `inst` (`lookupNode`).
    pub(crate) fn node_of(&self, node: &str, inst: &str) -> Result<i32, String> {
        self.node_by_name
            .get(node)
            .map(|&k| k as i32)
            .ok_or_else(|| format!("Unknown node '{node}' for instance {inst}"))
    }

    /// An instance (`Instance.create`), refused when its nodes cannot
    /// carry it (see the module doc).
    pub(crate) fn instance(&mut self, record: InstanceRecord) -> Result<(), String> {
        let p_name = usize::try_from(record.p_node)
            .ok()
            .and_then(|k| self.nodes.get(k))
            .map_or("", |n| n.info.name.as_str());
        if let Some(problem) = record.node_problem(p_name) {
            return Err(problem);
        }
        let idx = self.instances.len() as i32;
        self.instances.push(record.into_instance(idx, &self.empty));
        Ok(())
    }

    /// The whole cluster with its info: the master marked (`setMaster`).
    pub(crate) fn finish(mut self, info: ClusterInfo) -> Result<Live, String> {
        let master = self
            .node_by_name
            .get(&info.master)
            .copied()
            .ok_or_else(|| format!("Master node {} unknown", info.master))?;
        if let Some(node) = self.nodes.get_mut(master) {
            std::sync::Arc::make_mut(&mut node.info).master = true;
        }
        Ok(Live {
            parts: Parts {
                groups: self.groups,
                nodes: self.nodes,
                instances: self.instances,
                cluster_tags: info.tags,
                ipolicy: info.ipolicy,
            },
            hypervisor: info.hypervisor,
            default_iallocator: info.default_iallocator,
        })
    }
}

/// The live cluster merged into the model with hbal's warnings; on a KVM
/// cluster a positive `static_kvm_node_memory` becomes every node's
/// reserved memory (`setStaticKvmNodeMem`).
pub(crate) fn load(
    live: Live,
    options: &MergeOptions,
    static_kvm_node_memory: i64,
) -> (Cluster, Vec<String>) {
    let mut options = options.clone();
    if live.hypervisor == Hypervisor::Kvm && static_kvm_node_memory > 0 {
        options.static_node_memory = Some(static_kvm_node_memory);
    }
    merge(live.parts, &Empties::new(), &options)
}

/// An instance's secondary: the first of its secondary nodes, if any.
pub(crate) fn secondary(assembly: &Assembly, snodes: &[&str], inst: &str) -> Result<i32, String> {
    match snodes.first() {
        None => Ok(NO_NODE),
        Some(s) => assembly.node_of(s, inst),
    }
}
