//! A node and an instance of the model built from their wire values, as
//! the loader builds them one by one and the second reading thread
//! ([`crate::read::split`]) builds its part: [`build_node`],
//! [`build_instance`], the node-name index ([`NodeIndex`]) and the node
//! names of instances built before their nodes could be looked up
//! ([`Unresolved`]), resolved later with the errors hail gives.

use std::sync::Arc;

use crate::model::hash::FastMap;
use crate::model::instance::{Disk, Instance, Nic, NO_NODE};
use crate::model::node::{Node, NodeInfo, Resources};
use crate::model::types::DiskTemplate;
use crate::read::iallocator::{InputError, Path, WireInstance, WireInstanceBody, WireNode};
use crate::read::merge::{owned, Empties};

/// A node as sent, its index `idx`, in the group of index `group`.
pub(crate) fn build_node(name: &str, wn: &WireNode<'_>, idx: usize, group: usize) -> Node {
    let live = wn.live;
    let t_spindles = if wn.exclusive_storage {
        live.and_then(|l| l.total_spindles).unwrap_or(0)
    } else {
        wn.spindle_count.unwrap_or(0)
    };
    let f_spindles = live.map_or(0, |l| l.free_spindles);
    let f_mem = live.map_or(0, |l| l.free_memory);
    let f_dsk = live.map_or(0, |l| l.free_disk);
    let n_cpu = live.map_or(0, |l| l.reserved_cpus);
    let info = NodeInfo {
        name: name.to_owned(),
        alias_len: name.len(),
        tags: owned(&wn.tags),
        location_tags: Vec::new(),
        mig_tags: Vec::new(),
        rmig_tags: Vec::new(),
        master: false,
        n_cpu,
        cpu_speed: 1.0,
    };
    let resources = Resources {
        t_mem: live.map_or(0.0, |l| l.total_memory),
        n_mem: live.map_or(0, |l| l.reserved_memory),
        f_mem,
        t_dsk: live.map_or(0.0, |l| l.total_disk),
        f_dsk,
        t_cpu: live.map_or(0.0, |l| l.total_cpus),
        t_spindles,
        f_spindles,
        excl_storage: wn.exclusive_storage,
        offline: live.is_none() || wn.drained,
    };
    Node::create(info, idx, group, resources)
}

/// An instance as sent; its exclusion and desired-location tag sets are
/// left empty (they need the cluster tags) and its location score 0.
pub(crate) fn build_instance(
    empty: &Empties,
    name: &str,
    body: &WireInstanceBody,
    idx: i32,
    p_node: i32,
    s_node: i32,
) -> Instance {
    let name: Arc<str> = Arc::from(name);
    Instance {
        alias_len: name.len(),
        name,
        idx,
        mem: body.memory,
        dsk: body.disk_space_total,
        disks: body
            .disks
            .iter()
            .map(|d| Disk {
                size: d.size,
                spindles: d.spindles,
            })
            .collect(),
        vcpus: body.vcpus,
        run_state: body.run_state,
        auto_balance: true,
        p_node,
        s_node,
        disk_template: body.disk_template,
        spindle_use: body.spindle_use,
        tags: if body.tags.is_empty() {
            empty.tags.clone()
        } else {
            body.tags.iter().map(|&t| t.to_owned()).collect()
        },
        excl_tags: empty.ids.clone(),
        dsrd_loc_tags: empty.ids.clone(),
        location_score: 0,
        nics: if body.nic_networks.is_empty() {
            empty.nics.clone()
        } else if body.nic_networks.as_slice() == [None] {
            empty.one_plain_nic.clone()
        } else {
            body.nic_networks
                .iter()
                .map(|n| Nic {
                    network: n.map(str::to_owned),
                })
                .collect()
        },
        forthcoming: body.forthcoming,
        util: [1.0; 4],
    }
}

/// A name quoted for an error, with the answer's JSON escaping.
pub(crate) fn quoted(name: &str) -> String {
    let mut q = String::new();
    crate::haskell::json::write_string(&mut q, name);
    q
}

/// The node-name index: exact names to node indices.
pub(crate) type NodeIndex = FastMap<Box<str>, usize>;

/// The node names of instances read before their nodes could be looked
/// up (the instances before the nodes, or read on the second thread), one
/// entry per instance, until they are resolved.
#[derive(Default)]
pub(crate) struct Unresolved {
    nodes: Vec<EarlyNodes>,
    /// The names, one after the other.
    names: String,
}

/// The node names of one instance.
struct EarlyNodes {
    /// Where the names are in `Unresolved::names`.
    primary: std::ops::Range<usize>,
    secondary: Option<std::ops::Range<usize>>,
    /// Whether the instance is drbd (which needs a secondary).
    drbd: bool,
}

impl Unresolved {
    /// Keeps the node names of the next instance.
    pub(crate) fn keep(&mut self, wi: &WireInstance<'_>) {
        let mut keep = |name: &str| {
            let start = self.names.len();
            self.names.push_str(name);
            start..self.names.len()
        };
        let primary = keep(wi.primary);
        let secondary = wi.secondary.map(keep);
        self.nodes.push(EarlyNodes {
            primary,
            secondary,
            drbd: wi.body.disk_template == DiskTemplate::Drbd,
        });
    }

    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Appends `other`'s instances after these.
    pub(crate) fn append(&mut self, other: Unresolved) {
        let shift = self.names.len();
        let moved = |r: std::ops::Range<usize>| r.start + shift..r.end + shift;
        self.names.push_str(&other.names);
        self.nodes
            .extend(other.nodes.into_iter().map(|n| EarlyNodes {
                primary: moved(n.primary),
                secondary: n.secondary.map(moved),
                drbd: n.drbd,
            }));
    }

    /// The primary and secondary node indices of the `k`th instance, named
    /// `inst`, with the checks and errors of the loader's `Builder::instance`, in its
    /// order and with its paths.
    pub(crate) fn resolve(
        &self,
        k: usize,
        inst: &str,
        index: &NodeIndex,
    ) -> Result<(i32, i32), InputError> {
        let name = |span: &std::ops::Range<usize>| self.names.get(span.clone()).unwrap_or("");
        let fail = |message: String, at: Option<usize>| {
            let root = Path::ROOT;
            let section = root.field("instances");
            let inst_path = section.name(inst);
            let nodes_path = inst_path.field("nodes");
            match at {
                Some(i) => nodes_path.index(i).error(message),
                None => nodes_path.error(message),
            }
        };
        let Some(nodes) = self.nodes.get(k) else {
            return Err(fail("internal error: no node names kept".to_owned(), None));
        };
        let primary = name(&nodes.primary);
        let Some(&p) = index.get(primary) else {
            return Err(fail(format!("no node named {}", quoted(primary)), Some(0)));
        };
        let s = match nodes.secondary.as_ref().map(name) {
            None => NO_NODE,
            Some(sname) => match index.get(sname) {
                Some(&s) => s as i32,
                None => return Err(fail(format!("no node named {}", quoted(sname)), Some(1))),
            },
        };
        if nodes.drbd && s == NO_NODE {
            return Err(fail(
                "a drbd instance needs a primary and a secondary node, found only the primary"
                    .to_owned(),
                None,
            ));
        }
        Ok((p as i32, s))
    }
}
