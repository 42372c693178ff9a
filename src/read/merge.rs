//! What hail does with a cluster once it is read, whatever it was read
//! from (`Loader.mergeData`, `Loader.updateMissing`): tags turned into
//! exclusion, location, desired-location and migration sets, the names'
//! common domain suffix, each group's policy on its nodes, instances placed
//! on their nodes, failover reservations (peers), the static KVM memory,
//! the memory statistics and the "inconsistent data" warnings.
//!
//! Cost: O(nodes + instances) plus the tag work.

use std::sync::Arc;

use smallvec::SmallVec;

use crate::model::group::Group;
use crate::model::instance::{Disk, Instance, Nic, NO_NODE};
use crate::model::node::{intersection_len, set_peer, Node, NodeInfo};
use crate::model::policy::IPolicy;
use crate::model::types::{DiskTemplate, RunState};
use crate::model::{Cluster, TagId, TagTable};
use crate::read::settings::GanetiVersion;

/// A cluster as read, before [`merge`].
#[derive(Clone)]
pub(crate) struct Parts {
    /// Node groups, by index, with their policies.
    pub groups: Vec<Group>,
    /// Nodes, by index, without instances placed.
    pub nodes: Vec<Node>,
    /// Instances, by index.
    pub instances: Vec<Instance>,
    /// Cluster tags.
    pub cluster_tags: Vec<String>,
    /// The cluster's instance policy.
    pub ipolicy: IPolicy,
}

/// A node's unchanging parts as a backend reads them (`Node.create`,
/// `setNodeTags`, `setCpuSpeed`; `setMaster` for the master): no location
/// or migration tags yet, the alias the whole name until [`merge`].
pub(in crate::read) fn node_info(
    name: &str,
    tags: Vec<String>,
    master: bool,
    n_cpu: i64,
    cpu_speed: f64,
) -> NodeInfo {
    NodeInfo {
        name: name.to_owned(),
        alias_len: name.len(),
        tags,
        location_tags: Vec::new(),
        mig_tags: Vec::new(),
        rmig_tags: Vec::new(),
        master,
        n_cpu,
        cpu_speed,
    }
}

/// An instance as a backend reads it (`Instance.create`), with its nodes
/// already resolved to indices: what the data file, Luxi and RAPI readers
/// share.
pub(crate) struct InstanceRecord {
    pub name: String,
    /// Memory, MiB.
    pub mem: i64,
    /// Disk used on the nodes, MiB.
    pub dsk: i64,
    pub disks: Vec<Disk>,
    pub vcpus: i64,
    pub run_state: RunState,
    pub auto_balance: bool,
    pub p_node: i32,
    /// The secondary node or [`NO_NODE`].
    pub s_node: i32,
    pub disk_template: DiskTemplate,
    pub spindle_use: i64,
    pub tags: Vec<String>,
    pub forthcoming: bool,
}

impl InstanceRecord {
    /// What is wrong with the instance's nodes for hailstone, whatever the
    /// backend: a drbd instance whose secondary is its primary (hail's
    /// text backend refuses it: "same primary and secondary node") or that
    /// has no secondary (hail accepts it and fails as soon as it moves it).
    /// `p_name` is the primary's name.
    pub(crate) fn node_problem(&self, p_name: &str) -> Option<String> {
        if self.disk_template != DiskTemplate::Drbd {
            return None;
        }
        if self.s_node == self.p_node {
            Some(format!(
                "Instance {} has same primary and secondary node - {p_name}",
                self.name
            ))
        } else if self.s_node == NO_NODE {
            Some(
                "a drbd instance needs a secondary node (hail would fail as soon as it \
                 moves the instance)"
                    .to_owned(),
            )
        } else {
            None
        }
    }

    /// The instance at index `idx`, before [`merge`] (no tag sets, no
    /// location score, no NICs, full utilisation).
    pub(crate) fn into_instance(self, idx: i32, empty: &Empties) -> Instance {
        let name: Arc<str> = Arc::from(self.name);
        Instance {
            alias_len: name.len(),
            name,
            idx,
            mem: self.mem,
            dsk: self.dsk,
            disks: Arc::from(self.disks),
            vcpus: self.vcpus,
            run_state: self.run_state,
            auto_balance: self.auto_balance,
            p_node: self.p_node,
            s_node: self.s_node,
            disk_template: self.disk_template,
            spindle_use: self.spindle_use,
            tags: if self.tags.is_empty() {
                empty.tags.clone()
            } else {
                Arc::from(self.tags)
            },
            excl_tags: empty.ids.clone(),
            dsrd_loc_tags: empty.ids.clone(),
            location_score: 0,
            nics: empty.nics.clone(),
            forthcoming: self.forthcoming,
            util: [1.0; 4],
        }
    }
}

const EXCL_PREFIX: &str = "htools:iextags:";
const DSRD_LOC_PREFIX: &str = "htools:desiredlocation:";
const LOCATION_PREFIX: &str = "htools:nlocation:";
const MIGRATION_PREFIX: &str = "htools:migration:";
const ALLOW_MIGRATION_PREFIX: &str = "htools:allowmigration:";

/// The longest suffix starting with `.` shared by all names
/// (`longestDomain`); one name alone yields everything from its first dot.
fn longest_domain(names: &[&str]) -> String {
    let Some((first, rest)) = names.split_first() else {
        return String::new();
    };
    for (i, ch) in first.char_indices() {
        if ch == '.' {
            let suffix = &first[i..];
            if rest.iter().all(|n| n.ends_with(suffix)) {
                return suffix.to_owned();
            }
        }
    }
    String::new()
}

/// Owned copies of borrowed strings.
pub(crate) fn owned(strs: &[&str]) -> Vec<String> {
    strs.iter().map(|&s| s.to_owned()).collect()
}

/// The length of the name without the common suffix (`computeAlias`).
fn alias_len(name: &str, suffix: &str) -> usize {
    name.strip_suffix(suffix).unwrap_or(name).len()
}

/// Node tags selected by `htools:<kind>:P` cluster tags: those starting
/// with `P:` (`Tags.getTags`).
fn selected_tags(
    table: &mut TagTable,
    cluster_tags: &[String],
    prefix: &str,
    node_tags: &[String],
) -> Vec<TagId> {
    let mut out = Vec::new();
    for ct in cluster_tags {
        if let Some(p) = ct.strip_prefix(prefix) {
            let want = format!("{p}:");
            for t in node_tags {
                if t.starts_with(&want) {
                    out.push(table.intern(t));
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Splits `Y::Z` at its only `::` (`splitAtColons`): the first `::`, and
/// nothing if another follows.
fn split_at_colons(s: &str) -> Option<(&str, &str)> {
    let i = s.find("::")?;
    let rest = &s[i + 2..];
    if rest.contains("::") {
        None
    } else {
        Some((&s[..i], rest))
    }
}

/// Shared lists for the common cases, so that instances without tags, or
/// with no NIC or one NIC outside any network, share one allocation.
pub(crate) struct Empties {
    pub tags: Arc<[String]>,
    pub ids: Arc<[TagId]>,
    pub nics: Arc<[Nic]>,
    pub one_plain_nic: Arc<[Nic]>,
}

impl Empties {
    pub(crate) fn new() -> Empties {
        Empties {
            tags: Arc::from([]),
            ids: Arc::from([]),
            nics: Arc::from([]),
            one_plain_nic: Arc::from([Nic { network: None }]),
        }
    }

    fn ids(&self, v: Vec<TagId>) -> Arc<[TagId]> {
        if v.is_empty() {
            self.ids.clone()
        } else {
            Arc::from(v)
        }
    }
}

/// An instance's exclusion and desired-location tag sets from its tags,
/// interned in the cluster's tag table.
pub(crate) fn tag_sets<S: AsRef<str>>(
    cluster: &mut Cluster,
    empty: &Empties,
    tags: &[S],
) -> (Arc<[TagId]>, Arc<[TagId]>) {
    let (excl, dsrd) = cluster.instance_tag_sets(tags);
    (empty.ids(excl), empty.ids(dsrd))
}

/// Places an existing instance on its nodes at load time (`Node.setPri`,
/// `Node.setSec`): lists, CPU, load, spindles, tags and location scores;
/// free memory and disk are already net of it in the reported values.
fn set_pri(node: &mut Node, inst: &Instance) {
    for &t in inst.excl_tags.iter() {
        match node.p_tags.iter_mut().find(|(k, _)| *k == t) {
            Some((_, c)) => *c += 1,
            None => node.p_tags.push((t, 1)),
        }
    }
    if inst.not_offline() {
        node.u_cpu_forth = node.u_cpu_forth.wrapping_add(inst.vcpus);
    }
    if !inst.uses_memory() {
        node.f_mem_forth = node.f_mem_forth.wrapping_sub(inst.mem);
    }
    if !node.excl_storage {
        if inst.uses_local_storage() {
            node.inst_spindles_forth += inst.spindle_use as f64;
        }
    } else {
        node.inst_spindles_forth = 0.0;
    }
    if inst.forthcoming {
        if inst.uses_local_storage() {
            node.f_dsk_forth = node.f_dsk_forth.wrapping_sub(inst.dsk);
        }
        node.f_spindles_forth = forthcoming_free_spindles(node, inst);
        return;
    }
    node.p_list.push(inst.idx);
    if inst.not_offline() {
        node.u_cpu = node.u_cpu.wrapping_add(inst.vcpus);
    }
    for (l, u) in node.util_load.iter_mut().zip(inst.util) {
        *l += u;
    }
    if !node.excl_storage {
        if inst.uses_local_storage() {
            node.inst_spindles += inst.spindle_use as f64;
        }
    } else {
        node.inst_spindles = 0.0;
    }
    node.location_score = node
        .location_score
        .wrapping_add(inst.location_score)
        .wrapping_add(node.dsrd_loc_score(inst));
    let pairs: Vec<(TagId, TagId)> = node.new_location_exclusion_pairs(inst).collect();
    for pair in pairs {
        match node.instance_map.iter_mut().find(|(k, _)| *k == pair) {
            Some((_, c)) => *c += 1,
            None => node.instance_map.push((pair, 1)),
        }
    }
}

/// Free spindles after a forthcoming instance at load time
/// (`calcNewFreeSpindlesForth True`).
fn forthcoming_free_spindles(node: &Node, inst: &Instance) -> i64 {
    if !node.excl_storage {
        return 0;
    }
    match inst.total_spindles() {
        None => -1,
        Some(s) => node.f_spindles_forth.wrapping_sub(s),
    }
}

fn set_sec(node: &mut Node, inst: &Instance) {
    if !node.excl_storage {
        if inst.uses_local_storage() {
            node.inst_spindles_forth += inst.spindle_use as f64;
        }
    } else {
        node.inst_spindles_forth = 0.0;
    }
    if inst.forthcoming {
        if inst.uses_local_storage() {
            node.f_dsk_forth = node.f_dsk_forth.wrapping_sub(inst.dsk);
        }
        node.f_spindles_forth = forthcoming_free_spindles(node, inst);
        return;
    }
    node.s_list.push(inst.idx);
    node.util_load[2] += inst.util[2];
    if !node.excl_storage {
        if inst.uses_local_storage() {
            node.inst_spindles += inst.spindle_use as f64;
        }
    } else {
        node.inst_spindles = 0.0;
    }
}

/// How a cluster is merged: settings of the program that read it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MergeOptions {
    /// The initial N+1 rule.
    pub ganeti: GanetiVersion,
    /// Every node's reserved memory becomes this (hail's
    /// `--static-kvm-node-memory` on a KVM cluster read from a request).
    pub static_node_memory: Option<i64>,
    /// `--ignore-dynu`: every instance's utilisation is cleared
    /// (`clearDynU`).
    pub ignore_dynu: bool,
    /// Instance utilisation by instance name (hbal's `-U` file), applied
    /// in order to the one instance of that name; unknown names are
    /// skipped, as in Ganeti's `mergeData`.
    pub utilisation: Vec<(String, [f64; 4])>,
    /// Exclusion tag prefixes given on the command line (hbal's
    /// `--exclusion-tags`, each already ending in `:`), before those of
    /// the cluster tags.
    pub exclusion_prefixes: Vec<String>,
}

/// Merges a cluster as read into the model (`mergeData`, then
/// `updateMissing`); the warnings come in hail's order.
pub(crate) fn merge(
    parts: Parts,
    empty: &Empties,
    options: &MergeOptions,
) -> (Cluster, Vec<String>) {
    let Parts {
        groups,
        nodes,
        mut instances,
        cluster_tags,
        ipolicy,
    } = parts;
    let MergeOptions {
        ganeti,
        static_node_memory,
        ignore_dynu,
        utilisation,
        exclusion_prefixes,
    } = options.clone();
    if ignore_dynu {
        for inst in instances.iter_mut() {
            inst.util = [0.0; 4];
        }
    } else {
        for (name, util) in &utilisation {
            let mut found = instances.iter_mut().filter(|i| &*i.name == name.as_str());
            if let (Some(inst), None) = (found.next(), found.next()) {
                inst.util = *util;
            }
        }
    }
    let excl_prefixes: Vec<String> = exclusion_prefixes
        .into_iter()
        .chain(
            cluster_tags
                .iter()
                .filter_map(|t| t.strip_prefix(EXCL_PREFIX))
                .filter(|p| !p.is_empty())
                .map(str::to_owned),
        )
        .collect();
    let dsrd_loc_prefixes: Vec<String> = cluster_tags
        .iter()
        .filter_map(|t| t.strip_prefix(DSRD_LOC_PREFIX))
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect();

    let mut cluster = Cluster {
        groups,
        nodes,
        instances,
        cluster_tags,
        tags: TagTable::default(),
        excl_prefixes,
        dsrd_loc_prefixes,
        ipolicy,
    };

    // Node location tags (needed for the instances' location scores).
    for node in cluster.nodes.iter_mut() {
        let location_tags = selected_tags(
            &mut cluster.tags,
            &cluster.cluster_tags,
            LOCATION_PREFIX,
            &node.info.tags,
        );
        Arc::make_mut(&mut node.info).location_tags = location_tags;
    }

    // The instances' tag sets and location scores, in instance order.
    for i in 0..cluster.instances.len() {
        let inst = &cluster.instances[i];
        if !inst.tags.is_empty() {
            let tags = inst.tags.clone();
            let (excl, dsrd) = tag_sets(&mut cluster, empty, &tags);
            let inst = &mut cluster.instances[i];
            inst.excl_tags = excl;
            inst.dsrd_loc_tags = dsrd;
        }
        let inst = &cluster.instances[i];
        if inst.s_node != NO_NODE {
            let a = &cluster.nodes[inst.p_node as usize].info.location_tags;
            let b = &cluster.nodes[inst.s_node as usize].info.location_tags;
            let score = intersection_len(a, b) as i64;
            cluster.instances[i].location_score = score;
        }
    }

    // Aliases: names without the common domain suffix.
    let suffix = {
        let mut names: Vec<&str> = cluster.nodes.iter().map(|n| n.info.name.as_str()).collect();
        names.extend(cluster.instances.iter().map(|i| &*i.name));
        longest_domain(&names)
    };
    if !suffix.is_empty() {
        for n in cluster.nodes.iter_mut() {
            let a = alias_len(&n.info.name, &suffix);
            Arc::make_mut(&mut n.info).alias_len = a;
        }
        for i in cluster.instances.iter_mut() {
            i.alias_len = alias_len(&i.name, &suffix);
        }
    }

    // The group's instance policy on each node (`setNodePolicy`).
    for node in cluster.nodes.iter_mut() {
        let policy = &cluster.groups[node.group].ipolicy;
        node.vcpu_ratio = policy.vcpu_ratio;
        node.hi_spindles = policy.spindle_ratio * node.t_spindles as f64;
    }

    // Place instances on their nodes, in instance order.
    for inst in &cluster.instances {
        set_pri(&mut cluster.nodes[inst.p_node as usize], inst);
        if inst.s_node != NO_NODE {
            set_sec(&mut cluster.nodes[inst.s_node as usize], inst);
        }
    }

    // Failover reservations (`buildPeers`).
    for node in cluster.nodes.iter_mut() {
        let mut peers: SmallVec<[(i32, i64); 4]> = SmallVec::new();
        for sidx in node.s_list.iter() {
            let inst = &cluster.instances[*sidx as usize];
            let mem = if inst.uses_sec_mem() && !inst.forthcoming {
                inst.mem
            } else {
                0
            };
            // `PeerMap.accumArray (+)`: summed per primary, kept in hail's
            // order (hail's list is newest first and folded from its end).
            let sum = peers
                .iter()
                .find(|(k, _)| *k == inst.p_node)
                .map_or(mem, |(_, v)| v.wrapping_add(mem));
            set_peer(&mut peers, inst.p_node, sum);
        }
        node.r_mem = peers.iter().map(|(_, v)| *v).max().unwrap_or(0);
        node.peers = peers;
        if ganeti == GanetiVersion::V30 {
            node.fail_n1 = node.f_mem < node.r_mem;
        }
    }

    // Migration tags.
    let allowed: Vec<(String, String)> = cluster
        .cluster_tags
        .iter()
        .filter_map(|t| t.strip_prefix(ALLOW_MIGRATION_PREFIX))
        .filter_map(split_at_colons)
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .collect();
    for ni in 0..cluster.nodes.len() {
        let node_tags = cluster.nodes[ni].info.tags.clone();
        let mig = selected_tags(
            &mut cluster.tags,
            &cluster.cluster_tags,
            MIGRATION_PREFIX,
            &node_tags,
        );
        let mut rmig = mig.clone();
        for &t in &mig {
            let tname = cluster.tags.name(t).to_owned();
            for (y, z) in &allowed {
                if *z == tname {
                    rmig.push(cluster.tags.intern(y));
                }
            }
        }
        rmig.sort_unstable();
        rmig.dedup();
        let info = Arc::make_mut(&mut cluster.nodes[ni].info);
        info.mig_tags = mig;
        info.rmig_tags = rmig;
    }

    // Memory fix-ups and warnings (`updateMissing`).
    let mut warnings = Vec::new();
    for ni in 0..cluster.nodes.len() {
        if let Some(mem) = static_node_memory {
            cluster.nodes[ni].n_mem = mem;
        }
        let node = &cluster.nodes[ni];
        let i_mem = node
            .primaries()
            .map(|k| &cluster.instances[k as usize])
            .filter(|i| i.uses_memory())
            .fold(0i64, |a, i| a.wrapping_add(i.mem));
        let i_dsk = node
            .primaries()
            .chain(node.secondaries())
            .map(|k| cluster.instances[k as usize].dsk)
            .fold(0i64, |a, d| a.wrapping_add(d));
        let node = &mut cluster.nodes[ni];
        node.i_mem = i_mem;
        node.x_mem = node.recorded_free_mem().wrapping_sub(node.f_mem);
        if ganeti == GanetiVersion::V31 {
            node.fail_n1 = node.unallocated_mem() <= node.r_mem;
        }
        let delta_mem = node.x_mem;
        let delta_dsk = crate::model::node::truncate(node.t_dsk)
            .wrapping_sub(node.f_dsk)
            .wrapping_sub(i_dsk);
        if delta_mem > 512 || delta_dsk > 1024 {
            warnings.push(format!(
                "node {} is missing {} MB ram and {} GB disk",
                node.info.name,
                delta_mem,
                delta_dsk.div_euclid(1024)
            ));
        }
    }
    warnings.reverse();

    (cluster, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_domain_follows_hail() {
        assert_eq!(longest_domain(&["a.b.c"]), ".b.c");
        assert_eq!(
            longest_domain(&["n1.example.com", "i1.example.com"]),
            ".example.com"
        );
        assert_eq!(longest_domain(&["n1.example.com", "i1.other.com"]), ".com");
        assert_eq!(longest_domain(&["n1", "i1.example.com"]), "");
        assert_eq!(longest_domain(&[]), "");
    }

    #[test]
    fn split_at_colons_takes_the_only_double_colon() {
        assert_eq!(split_at_colons("a::b"), Some(("a", "b")));
        assert_eq!(split_at_colons("a:::b"), Some(("a", ":b")));
        assert_eq!(split_at_colons("a::b::c"), None);
        assert_eq!(split_at_colons("ab"), None);
    }
}
