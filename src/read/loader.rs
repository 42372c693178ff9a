//! Builds the cluster model from the request, as hail's loader does
//! (`Backend.IAlloc.parseData`, `Loader.mergeData`, `Loader.updateMissing`).
//! [`load`] parses the request bytes and builds each node and instance as
//! the protocol reader hands it over (`Builder`), then does what needs the
//! whole cluster (`finish`):
//! indices in input order, node and instance names resolved, tags turned
//! into exclusion, location, desired-location and migration sets, instances
//! placed on their nodes, failover reservations (peers) built, the KVM
//! reserved-memory override applied, memory statistics computed, and the
//! "inconsistent data" warnings collected.
//!
//! Cost: O(nodes + instances) plus the tag work.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use smallvec::SmallVec;

use crate::model::group::Group;
use crate::model::instance::{Disk, Instance, Nic, NO_NODE};
use crate::model::node::{intersection_len, Node, NodeInfo};
use crate::model::types::DiskTemplate;
use crate::model::{Cluster, NameMatch, Request, TagId, TagTable};
use crate::read::iallocator::{
    self, ClusterSink, Hypervisor, InputError, Message, Path, WireGroup, WireInstance,
    WireInstanceBody, WireNode, WireRequest,
};
use crate::read::json::{self, ParseError};

/// The rule for a node's initial N+1 flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum N1Rule {
    /// hail 3.0.2: the node fails N+1 when its reported free memory is
    /// below its largest failover reservation.
    #[default]
    Hail30,
    /// Ganeti 3.1: when its unallocated memory is at most that reservation.
    Ganeti31,
}

/// Loader settings that come from the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// `--static-kvm-node-memory`: on KVM clusters, every node's reserved
    /// memory becomes this value (0 keeps the reported one).
    pub static_kvm_node_memory: i64,
    /// The initial N+1 rule.
    pub n1_rule: N1Rule,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            static_kvm_node_memory: 4096,
            n1_rule: N1Rule::Hail30,
        }
    }
}

/// A loaded request.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// The cluster.
    pub cluster: Cluster,
    /// The request with names resolved.
    pub request: Request,
    /// hail's "cluster has inconsistent data" messages, in hail's order.
    pub warnings: Vec<String>,
}

/// Why a request could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// It is not valid JSON.
    Json(ParseError),
    /// It is not a valid request.
    Input(InputError),
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
fn owned(strs: &[&str]) -> Vec<String> {
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
struct Empties {
    tags: Arc<[String]>,
    ids: Arc<[TagId]>,
    nics: Arc<[Nic]>,
    one_plain_nic: Arc<[Nic]>,
}

impl Empties {
    fn new() -> Empties {
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

/// An instance as sent; its exclusion and desired-location tag sets are
/// left empty (they need the cluster tags) and its location score 0.
fn build_instance(
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
    }
}

/// An instance's exclusion and desired-location tag sets from its tags,
/// interned in the cluster's tag table.
fn tag_sets<S: AsRef<str>>(
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
    for l in node.util_load.iter_mut() {
        *l += 1.0;
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
    node.util_load[2] += 1.0;
    if !node.excl_storage {
        if inst.uses_local_storage() {
            node.inst_spindles += inst.spindle_use as f64;
        }
    } else {
        node.inst_spindles = 0.0;
    }
}

fn name_error(path: String, what: &str, name: &str, m: NameMatch) -> InputError {
    let mut quoted = String::new();
    crate::read::json::write_string(&mut quoted, name);
    let message = match m {
        NameMatch::Many => format!("{quoted} matches more than one {what} (by name or short name)"),
        _ => format!("no {what} named {quoted}"),
    };
    InputError { path, message }
}

fn quoted(name: &str) -> String {
    let mut q = String::new();
    crate::read::json::write_string(&mut q, name);
    q
}

/// The model as the protocol hands it over: groups, then nodes and
/// instances built one by one in input order. What needs the cluster tags
/// (which come after the instances) waits for [`finish`].
struct Builder {
    groups: Vec<Group>,
    /// Group UUIDs to indices; a duplicate UUID resolves to the last.
    group_by_uuid: BTreeMap<String, usize>,
    /// Exact node names to indices, the last of duplicate names winning;
    /// only looked up, never iterated, so their order cannot reach the
    /// answer.
    node_by_name: HashMap<Box<str>, usize>,
    nodes: Vec<Node>,
    instances: Vec<Instance>,
    empty: Empties,
}

impl ClusterSink for Builder {
    fn groups(&mut self, groups: &[(&str, WireGroup<'_>)]) -> Result<(), InputError> {
        // Groups, indexed in input order.
        self.groups.reserve(groups.len());
        for (i, (uuid, g)) in groups.iter().enumerate() {
            self.group_by_uuid.insert((*uuid).to_owned(), i);
            self.groups.push(Group {
                name: g.name.to_owned(),
                uuid: (*uuid).to_owned(),
                idx: i,
                alloc_policy: g.alloc_policy,
                networks: owned(&g.networks),
                ipolicy: g.ipolicy.clone(),
                tags: owned(&g.tags),
            });
        }
        Ok(())
    }

    fn node(&mut self, name: &str, wn: WireNode<'_>, path: &Path) -> Result<(), InputError> {
        let Some(&gidx) = self.group_by_uuid.get(wn.group) else {
            return Err(path
                .field("group")
                .error(format!("no node group with UUID {}", quoted(wn.group))));
        };
        let i = self.nodes.len();
        self.node_by_name.insert(name.into(), i);
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
        let policy = &self.groups[gidx].ipolicy;
        self.nodes.push(Node {
            info: Arc::new(NodeInfo {
                name: name.to_owned(),
                alias_len: name.len(),
                tags: owned(&wn.tags),
                location_tags: Vec::new(),
                mig_tags: Vec::new(),
                rmig_tags: Vec::new(),
            }),
            idx: i,
            group: gidx,
            t_mem: live.map_or(0.0, |l| l.total_memory),
            n_mem: live.map_or(0, |l| l.reserved_memory),
            f_mem,
            i_mem: 0,
            x_mem: 0,
            t_dsk: live.map_or(0.0, |l| l.total_disk),
            f_dsk,
            t_cpu: live.map_or(0.0, |l| l.total_cpus),
            u_cpu: n_cpu,
            t_spindles,
            f_spindles,
            excl_storage: wn.exclusive_storage,
            offline: live.is_none() || wn.drained,
            vcpu_ratio: policy.vcpu_ratio,
            hi_spindles: policy.spindle_ratio * t_spindles as f64,
            p_list: SmallVec::new(),
            s_list: SmallVec::new(),
            peers: SmallVec::new(),
            r_mem: 0,
            fail_n1: true,
            util_load: [0.0; 4],
            inst_spindles: 0.0,
            location_score: 0,
            instance_map: SmallVec::new(),
            p_tags: SmallVec::new(),
            f_mem_forth: f_mem,
            f_dsk_forth: f_dsk,
            u_cpu_forth: n_cpu,
            f_spindles_forth: f_spindles,
            inst_spindles_forth: 0.0,
        });
        Ok(())
    }

    fn instance(
        &mut self,
        name: &str,
        wi: WireInstance<'_>,
        path: &Path,
    ) -> Result<(), InputError> {
        let nodes_path = path.field("nodes");
        let Some(&p) = self.node_by_name.get(wi.primary) else {
            return Err(nodes_path
                .index(0)
                .error(format!("no node named {}", quoted(wi.primary))));
        };
        let s = match wi.secondary {
            None => NO_NODE,
            Some(sname) => match self.node_by_name.get(sname) {
                Some(&s) => s as i32,
                None => {
                    return Err(nodes_path
                        .index(1)
                        .error(format!("no node named {}", quoted(sname))))
                }
            },
        };
        if wi.body.disk_template == DiskTemplate::Drbd && s == NO_NODE {
            // hail would crash ("IntMap.!: key -1") as soon as it moves the
            // instance; Ganeti never sends such an instance.
            return Err(nodes_path.error(
                "a drbd instance needs a primary and a secondary node, found only the primary",
            ));
        }
        let i = self.instances.len() as i32;
        let inst = build_instance(&self.empty, name, &wi.body, i, p as i32, s);
        self.instances.push(inst);
        Ok(())
    }
}

impl Builder {
    fn new() -> Builder {
        Builder {
            groups: Vec::new(),
            group_by_uuid: BTreeMap::new(),
            node_by_name: HashMap::new(),
            nodes: Vec::new(),
            instances: Vec::new(),
            empty: Empties::new(),
        }
    }
}

/// Builds the cluster model and the resolved request from the request's
/// bytes. The nodes and instances are built as the parser reaches them
/// (see [`iallocator::Reader`]), so the parsed document never holds them.
pub fn load(input: &[u8], opts: &LoadOptions) -> Result<Loaded, LoadError> {
    let mut built = Builder::new();
    let mut reader = iallocator::Reader::new(&mut built);
    let doc = json::parse_document_streaming(input, &mut reader).map_err(LoadError::Json)?;
    let msg = reader.finish(&doc).map_err(LoadError::Input)?;
    finish(built, &msg, opts).map_err(LoadError::Input)
}

#[cfg(test)]
/// [`load`] from a document parsed whole (for tests and tools).
pub fn load_document(doc: &json::Document, opts: &LoadOptions) -> Result<Loaded, InputError> {
    let mut built = Builder::new();
    let msg = iallocator::read_message(doc, &mut built)?;
    finish(built, &msg, opts)
}

/// The second half of loading, once the message is read: what needs the
/// cluster tags, the instances placed on their nodes, the memory
/// statistics and the request.
fn finish(built: Builder, msg: &Message, opts: &LoadOptions) -> Result<Loaded, InputError> {
    let Builder {
        groups,
        nodes,
        instances,
        empty,
        ..
    } = built;

    let cluster_tags = owned(&msg.cluster_tags);
    let excl_prefixes: Vec<String> = cluster_tags
        .iter()
        .filter_map(|t| t.strip_prefix(EXCL_PREFIX))
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
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
            let (excl, dsrd) = tag_sets(&mut cluster, &empty, &tags);
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
            match peers.iter_mut().find(|(k, _)| *k == inst.p_node) {
                Some((_, v)) => *v = v.wrapping_add(mem),
                None => peers.push((inst.p_node, mem)),
            }
        }
        node.r_mem = peers.iter().map(|(_, v)| *v).max().unwrap_or(0);
        node.peers = peers;
        if opts.n1_rule == N1Rule::Hail30 {
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
    let kvm = msg.enabled_hypervisors.first() == Some(&Hypervisor::Kvm);
    let mut warnings = Vec::new();
    for ni in 0..cluster.nodes.len() {
        if kvm && opts.static_kvm_node_memory > 0 {
            cluster.nodes[ni].n_mem = opts.static_kvm_node_memory;
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
        if opts.n1_rule == N1Rule::Ganeti31 {
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

    let request = resolve_request(&mut cluster, &empty, &msg.request)?;
    Ok(Loaded {
        cluster,
        request,
        warnings,
    })
}

fn new_instance(
    cluster: &mut Cluster,
    empty: &Empties,
    name: &str,
    body: &WireInstanceBody,
) -> Instance {
    // hail creates the new instance with both node indices 0 and index -1.
    let mut inst = build_instance(empty, name, body, -1, 0, 0);
    (inst.excl_tags, inst.dsrd_loc_tags) = tag_sets(cluster, empty, &body.tags);
    inst
}

fn resolve_request(
    cluster: &mut Cluster,
    empty: &Empties,
    req: &WireRequest,
) -> Result<Request, InputError> {
    let find_instance =
        |cluster: &Cluster, names: &[&str], field: &str| -> Result<Vec<usize>, InputError> {
            names
                .iter()
                .enumerate()
                .map(|(i, n)| match cluster.find_instance(n) {
                    NameMatch::One(k) => Ok(k),
                    m => Err(name_error(
                        format!("request.{field}[{i}]"),
                        "instance",
                        n,
                        m,
                    )),
                })
                .collect()
        };
    // The exact name, the last of duplicates winning; the request names at
    // most one such instance, so a scan costs less than an index.
    let exact_instance = |cluster: &Cluster, name: &str| -> Result<usize, InputError> {
        cluster
            .instances
            .iter()
            .rposition(|i| *i.name == *name)
            .ok_or_else(|| InputError {
                path: "request.name".to_owned(),
                message: format!("no instance named {}", quoted(name)),
            })
    };
    Ok(match req {
        WireRequest::Allocate {
            instance,
            group_name,
            restrict_to_nodes,
        } => Request::Allocate {
            instance: new_instance(cluster, empty, instance.name, &instance.body),
            required_nodes: instance.required_nodes,
            group_name: group_name.map(str::to_owned),
            restrict_to_nodes: restrict_to_nodes.as_deref().map(owned),
        },
        WireRequest::MultiAllocate {
            instances,
            group_name,
        } => {
            let mut out = Vec::with_capacity(instances.len());
            for i in instances {
                out.push((
                    new_instance(cluster, empty, i.name, &i.body),
                    i.required_nodes,
                ));
            }
            Request::MultiAllocate {
                instances: out,
                group_name: group_name.map(str::to_owned),
            }
        }
        WireRequest::Relocate {
            name,
            required_nodes,
            relocate_from,
        } => {
            let instance = exact_instance(cluster, name)?;
            let mut from = Vec::with_capacity(relocate_from.len());
            for (i, n) in relocate_from.iter().enumerate() {
                match cluster.find_node(n) {
                    NameMatch::One(k) => from.push(k),
                    m => {
                        return Err(name_error(
                            format!("request.relocate_from[{i}]"),
                            "node",
                            n,
                            m,
                        ))
                    }
                }
            }
            Request::Relocate {
                instance,
                required_nodes: *required_nodes,
                relocate_from: from,
            }
        }
        WireRequest::ChangeGroup {
            instances,
            target_groups,
        } => {
            let instances = find_instance(cluster, instances, "instances")?;
            let mut groups = Vec::with_capacity(target_groups.len());
            for (i, g) in target_groups.iter().enumerate() {
                match cluster.find_group(g) {
                    NameMatch::One(k) => groups.push(k),
                    m => {
                        return Err(name_error(
                            format!("request.target_groups[{i}]"),
                            "node group",
                            g,
                            m,
                        ))
                    }
                }
            }
            Request::ChangeGroup {
                instances,
                target_groups: groups,
            }
        }
        WireRequest::NodeEvacuate {
            instances,
            evac_mode,
        } => Request::NodeEvacuate {
            instances: find_instance(cluster, instances, "instances")?,
            mode: *evac_mode,
        },
        WireRequest::AllocateSecondary { name } => Request::AllocateSecondary {
            instance: exact_instance(cluster, name)?,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Loads a request streamed while parsed, and parsed whole first: the
    /// two must give the same model or the same first error.
    fn assert_same_load(bytes: &[u8], what: &str) {
        let opts = LoadOptions::default();
        let streamed = load(bytes, &opts);
        let whole = match json::parse_document(bytes) {
            Err(e) => Err(LoadError::Json(e)),
            Ok(doc) => load_document(&doc, &opts).map_err(LoadError::Input),
        };
        assert_eq!(streamed, whole, "{what}");
    }

    #[test]
    fn streaming_and_whole_reads_agree() {
        // Faults that stop the reading at different points, alone and
        // together: a bad request, a bad group, a node in an unknown
        // group, a bad instance field, bad cluster tags, a duplicate key.
        let faults: [(&str, &str); 6] = [
            (r#""request":"#, r#""request": 5, "r":"#),
            (r#""alloc_policy":"#, r#""alloc_policy": 1, "a":"#),
            (r#""group": ""#, r#""group": "x"#),
            (r#""memory":"#, r#""memory": "lots", "m":"#),
            (r#""cluster_tags":"#, r#""cluster_tags": 3, "c":"#),
            (r#""nodes":"#, r#""nodes": {}, "nodes":"#),
        ];
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol-samples");
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .expect("protocol-samples")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        names.sort();
        assert!(names.len() > 20);
        for path in names {
            let text = std::fs::read_to_string(&path).expect("sample");
            // As Ganeti writes it, and with its keys sorted (the instances
            // then come before the nodes and cannot be streamed).
            let sorted = serde_json::from_str::<serde_json::Value>(&text).map(|v| v.to_string());
            for base in std::iter::once(text).chain(sorted) {
                for mask in 0..1u32 << faults.len() {
                    let mut req = base.replace(r#"": "#, r#"":"#);
                    for (i, (from, to)) in faults.iter().enumerate() {
                        if mask & (1 << i) != 0 {
                            req = req.replacen(from, to, 1);
                        }
                    }
                    assert_same_load(
                        req.as_bytes(),
                        &format!("{} faults {mask:#b}", path.display()),
                    );
                }
            }
        }
        // Truncations stop the parse anywhere, inside streamed members too.
        let text = std::fs::read_to_string(dir.join("relocate-drbd.json")).expect("sample");
        for cut in (0..text.len()).step_by(7) {
            assert_same_load(&text.as_bytes()[..cut], &format!("cut at {cut}"));
        }
    }

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
