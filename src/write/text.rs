//! Ganeti's cluster data files, written as Ganeti 3.0.2 writes them
//! (`Backend/Text.hs` `serializeCluster`): what `-S` saves and `-t` reads
//! back.
//!
//! Sections in order (groups, nodes, instances, cluster tags, policies),
//! each line's fields joined by `|`, every field written (older files'
//! short lines come back complete), numbers in hail's formats: `%.0f` for
//! the node's total memory, disk and CPUs, `%f` (shortest fixed) for its
//! CPU speed, Haskell's `show` for the policy ratios. Objects come in the
//! order they are given, which is hail's container (key) order.

use crate::haskell::show::{printf_fixed, show_double, show_ffloat};
use crate::model::group::Group;
use crate::model::instance::{Instance, NO_NODE};
use crate::model::node::Node;
use crate::model::policy::{IPolicy, ISpec};
use crate::model::Cluster;
use crate::search::request::Final;

/// What a data file holds.
pub struct Contents<'a> {
    /// The node groups, in index order.
    pub groups: &'a [Group],
    /// The nodes to write, in key order.
    pub nodes: Vec<&'a Node>,
    /// The instances to write, in key order.
    pub instances: Vec<&'a Instance>,
    /// The name of every node of the cluster by node index (instance lines
    /// name their nodes, which need not be among the nodes written).
    pub node_names: &'a [&'a str],
    /// The cluster tags.
    pub cluster_tags: &'a [String],
    /// The cluster's instance policy.
    pub ipolicy: &'a IPolicy,
}

/// The file's text.
pub fn serialize(c: &Contents<'_>) -> String {
    let mut out = String::new();
    for g in c.groups {
        out.push_str(&group_line(g));
        out.push('\n');
    }
    out.push('\n');
    for n in &c.nodes {
        out.push_str(&node_line(n, c.groups));
        out.push('\n');
    }
    out.push('\n');
    for i in &c.instances {
        out.push_str(&instance_line(i, c.node_names));
        out.push('\n');
    }
    out.push('\n');
    for t in c.cluster_tags {
        out.push_str(t);
        out.push('\n');
    }
    out.push('\n');
    out.push_str(&policy_line("", c.ipolicy));
    out.push('\n');
    for g in c.groups {
        out.push_str(&policy_line(&g.name, &g.ipolicy));
        out.push('\n');
    }
    out
}

/// `name|uuid|alloc_policy|tags|networks`.
fn group_line(g: &Group) -> String {
    format!(
        "{}|{}|{}|{}|{}",
        g.name,
        g.uuid,
        g.alloc_policy.raw(),
        g.tags.join(","),
        g.networks.join(",")
    )
}

fn yes_no(b: bool) -> char {
    if b {
        'Y'
    } else {
        'N'
    }
}

/// `name|t_mem|n_mem|f_mem|t_disk|f_disk|t_cpu|flag|group|spindles|tags|
/// exclusive_storage|free_spindles|n_cpu|cpu_speed`; the flag is `Y` for
/// an offline node, else `M` for the master, else `N`.
fn node_line(n: &Node, groups: &[Group]) -> String {
    let flag = if n.offline {
        'Y'
    } else if n.info.master {
        'M'
    } else {
        'N'
    };
    let group = groups.get(n.group).map_or("", |g| g.uuid.as_str());
    format!(
        "{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}",
        n.info.name,
        printf_fixed(n.t_mem, 0),
        n.n_mem,
        n.f_mem,
        printf_fixed(n.t_dsk, 0),
        n.f_dsk,
        printf_fixed(n.t_cpu, 0),
        flag,
        group,
        n.t_spindles,
        n.info.tags.join(","),
        yes_no(n.excl_storage),
        n.f_spindles,
        n.info.n_cpu,
        show_ffloat(n.info.cpu_speed)
    )
}

/// `name|mem|disk|vcpus|status|auto_balance|pnode|snode|disk_template|
/// tags|spindle_use|spindles|forthcoming`; the spindles are the disks'
/// total, `-` when a disk lacks them.
fn instance_line(i: &Instance, node_names: &[&str]) -> String {
    let node = |k: i32| -> &str {
        if k == NO_NODE {
            ""
        } else {
            usize::try_from(k)
                .ok()
                .and_then(|k| node_names.get(k))
                .copied()
                .unwrap_or("")
        }
    };
    format!(
        "{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}",
        i.name,
        i.mem,
        i.dsk,
        i.vcpus,
        i.run_state.raw(),
        yes_no(i.auto_balance),
        node(i.p_node),
        node(i.s_node),
        i.disk_template.raw(),
        i.tags.join(","),
        i.spindle_use,
        i.total_spindles()
            .map_or_else(|| "-".to_owned(), |s| s.to_string()),
        yes_no(i.forthcoming)
    )
}

/// `mem,cpu,disk,disk_count,nic_count,spindle_use`.
fn ispec(s: &ISpec) -> String {
    format!(
        "{},{},{},{},{},{}",
        s.memory_size, s.cpu_count, s.disk_size, s.disk_count, s.nic_count, s.spindle_use
    )
}

/// `owner|std|min;max[;min;max...]|disk_templates|vcpu_ratio|spindle_ratio`.
fn policy_line(owner: &str, p: &IPolicy) -> String {
    let minmax: Vec<String> = p
        .minmax
        .iter()
        .flat_map(|mm| [ispec(&mm.min), ispec(&mm.max)])
        .collect();
    let templates: Vec<&str> = p.disk_templates.iter().map(|t| t.raw()).collect();
    format!(
        "{owner}|{}|{}|{}|{}|{}",
        ispec(&p.std),
        minmax.join(";"),
        templates.join(","),
        show_double(p.vcpu_ratio),
        show_double(p.spindle_ratio)
    )
}
/// A cluster's data file text.
pub fn serialize_cluster(cluster: &Cluster) -> String {
    serialize_lists(
        cluster,
        cluster.nodes.iter().collect(),
        cluster.instances.iter().collect(),
    )
}

/// A cluster's data file text with these nodes and instances (its groups,
/// tags and policy, and the names of all its nodes).
pub fn serialize_lists(cluster: &Cluster, nodes: Vec<&Node>, instances: Vec<&Instance>) -> String {
    let names: Vec<&str> = cluster.nodes.iter().map(|n| n.info.name.as_str()).collect();
    serialize(&Contents {
        groups: &cluster.groups,
        nodes,
        instances,
        node_names: &names,
        cluster_tags: &cluster.cluster_tags,
        ipolicy: &cluster.ipolicy,
    })
}
/// The data file text of hail's final lists. When hail's node list lacks
/// a node that an instance uses (a group-local allocation on a cluster
/// whose other groups hold instances), hail fails writing the file; this
/// writes every node instead.
pub fn final_lists(
    fin: &Final,
    names: &[String],
    groups: &[Group],
    cluster_tags: &[String],
    ipolicy: &IPolicy,
) -> String {
    let listed = |k: i32| k == NO_NODE || fin.nodes.iter().any(|n| n.idx as i32 == k);
    let complete = fin
        .instances
        .iter()
        .all(|i| listed(i.p_node) && listed(i.s_node));
    let nodes: Vec<&Node> = if complete {
        fin.nodes.iter().collect()
    } else {
        fin.all_nodes.iter().collect()
    };
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    serialize(&Contents {
        groups,
        nodes,
        instances: fin.instances.iter().collect(),
        node_names: &names,
        cluster_tags,
        ipolicy,
    })
}
