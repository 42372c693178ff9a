//! The group hbal balances, chosen and checked before the balancing
//! (`Hbal.selectGroup`, `checkGroup`), as data: `write::balance` says
//! what it found in hbal's words.

use crate::model::node::Node;
use crate::model::Cluster;

/// Why no group could be chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectError {
    /// No group was named and several groups have nodes (their indices).
    Several(Vec<usize>),
    /// No single group has the name or UUID given.
    NotFound(String),
}

/// `selectGroup`: the group named (by name or UUID), or the only group
/// that has nodes.
///
/// # Errors
///
/// None named and not exactly one group with nodes, or no single group
/// by the name given.
pub fn select_group(cluster: &Cluster, wanted: Option<&str>) -> Result<usize, SelectError> {
    match wanted {
        None => {
            let with_nodes: Vec<usize> = (0..cluster.groups.len())
                .filter(|g| cluster.nodes.iter().any(|n| n.group == *g))
                .collect();
            match with_nodes.as_slice() {
                [one] => Ok(*one),
                _ => Err(SelectError::Several(with_nodes)),
            }
        }
        Some(name) => {
            let found: Vec<usize> = (0..cluster.groups.len())
                .filter(|&i| cluster.groups[i].name == name || cluster.groups[i].uuid == name)
                .collect();
            match found.as_slice() {
                [one] => Ok(*one),
                _ => Err(SelectError::NotFound(name.to_owned())),
            }
        }
    }
}

/// A node's soft-policy fault (`Node.checkPolicy`'s first), in hbal's
/// words for its verbose listing.
pub fn policy_fault(n: &Node) -> Option<&'static str> {
    if n.inst_spindles > n.hi_spindles {
        Some("Bad FailDisk")
    } else if n.u_cpu as f64 / n.t_cpu > n.vcpu_ratio {
        Some("Bad FailCPU")
    } else {
        None
    }
}

/// What `checkGroup` finds in a group before the balancing.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupCheck<'c> {
    /// The group's nodes, in index order.
    pub nodes: Vec<&'c Node>,
    /// The group's instances (those whose primary is in it), by index.
    pub instances: Vec<usize>,
    /// The online nodes that fail N+1.
    pub bad_nodes: Vec<&'c Node>,
    /// The instances on them (primary or secondary), counted once.
    pub bad_instances: usize,
    /// The other nodes, with their soft-policy fault.
    pub others: Vec<(&'c Node, Option<&'static str>)>,
}

impl GroupCheck<'_> {
    /// The nodes that violate a soft policy.
    pub fn policy_violations(&self) -> usize {
        self.others.iter().filter(|(_, f)| f.is_some()).count()
    }
}

/// `checkGroup` of group `g`.
pub fn check_group(cluster: &Cluster, g: usize) -> GroupCheck<'_> {
    let nodes: Vec<&Node> = cluster.nodes.iter().filter(|n| n.group == g).collect();
    let in_group = |k: i32| usize::try_from(k).is_ok_and(|k| cluster.nodes[k].group == g);
    let instances = (0..cluster.instances.len())
        .filter(|&k| in_group(cluster.instances[k].p_node))
        .collect();
    let bad_nodes: Vec<&Node> = nodes
        .iter()
        .copied()
        .filter(|n| !n.offline && n.fail_n1)
        .collect();
    let mut bad: Vec<i32> = bad_nodes
        .iter()
        .flat_map(|n| n.s_list.iter().chain(n.p_list.iter()).copied())
        .collect();
    bad.sort_unstable();
    bad.dedup();
    let others = nodes
        .iter()
        .copied()
        .filter(|n| !bad_nodes.iter().any(|b| b.idx == n.idx))
        .map(|n| (n, policy_fault(n)))
        .collect();
    GroupCheck {
        nodes,
        instances,
        bad_nodes,
        bad_instances: bad.len(),
        others,
    }
}

/// The instances whose primary and secondary are in different groups
/// (`checkCluster`'s note), by index.
pub fn split_instances(cluster: &Cluster) -> Vec<usize> {
    let group_of = |k: i32| usize::try_from(k).ok().map(|k| cluster.nodes[k].group);
    (0..cluster.instances.len())
        .filter(|&k| {
            let i = &cluster.instances[k];
            i.s_node != crate::model::instance::NO_NODE && group_of(i.p_node) != group_of(i.s_node)
        })
        .collect()
}

/// The group's free memory (unallocated) and free disk, summed.
pub fn free_totals(nodes: &[&Node]) -> (i128, i128) {
    nodes.iter().fold((0, 0), |(m, d), n| {
        (m + i128::from(n.unallocated_mem()), d + i128::from(n.f_dsk))
    })
}
