//! Builds the cluster model from the request, as hail's loader does
//! (`Backend.IAlloc.parseData`, `Loader.mergeData`, `Loader.updateMissing`).
//! [`load`] parses the request bytes and builds each node and instance as
//! the protocol reader hands it over (`Builder`, with the builders of
//! [`crate::read::build`]; instances handed over before the nodes keep
//! their node names until the nodes are in, then are resolved in input
//! order with the same errors), then does what needs the
//! whole cluster (`finish`):
//! indices in input order, node and instance names resolved, tags turned
//! into exclusion, location, desired-location and migration sets, instances
//! placed on their nodes, failover reservations (peers) built, the KVM
//! reserved-memory override applied, memory statistics computed, and the
//! "inconsistent data" warnings collected.
//!
//! Cost: O(nodes + instances) plus the tag work.

use std::collections::{BTreeMap, HashMap};

use crate::model::group::Group;
use crate::model::instance::{Instance, NO_NODE};
use crate::model::node::Node;
use crate::model::policy::IPolicy;
use crate::model::types::DiskTemplate;
use crate::model::{Cluster, NameMatch, Request};
use crate::read::build::{build_instance, build_node, quoted, NodeIndex, Unresolved};
use crate::read::iallocator::{
    self, ClusterSink, Hypervisor, InputError, Message, Path, SplitTaken, WireGroup, WireInstance,
    WireInstanceBody, WireNode, WireRequest,
};
use crate::read::json::{self, ParseError};
use crate::read::merge::{merge, owned, tag_sets, Empties, MergeOptions, Parts};
use crate::read::split;
// The settings live in their own file, which the merge reads too; the
// programs name them here.
pub use crate::read::settings::{GanetiVersion, LoadOptions};

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

#[cfg(test)]
thread_local! {
    /// How many times this thread's parses took nodes read on a second
    /// thread (for the tests).
    static NODES_TAKEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A node's error when its group is not in the request: `path` is the
/// node's.
fn group_error(path: &Path, uuid: &str) -> InputError {
    path.field("group")
        .error(format!("no node group with UUID {}", quoted(uuid)))
}

fn name_error(path: String, what: &str, name: &str, m: NameMatch) -> InputError {
    let mut quoted = String::new();
    crate::haskell::json::write_string(&mut quoted, name);
    let message = match m {
        NameMatch::Many => format!("{quoted} matches more than one {what} (by name or short name)"),
        _ => format!("no {what} named {quoted}"),
    };
    InputError { path, message }
}

/// The model as the protocol hands it over: groups, then nodes and
/// instances built one by one in input order. What needs the cluster tags
/// (which come after the instances) waits for [`finish`].
struct Builder<'s> {
    groups: Vec<Group>,
    /// Group UUIDs to indices; a duplicate UUID resolves to the last.
    group_by_uuid: BTreeMap<String, usize>,
    /// Exact node names to indices, the last of duplicate names winning;
    /// only looked up, never iterated, so their order cannot reach the
    /// answer.
    node_by_name: NodeIndex,
    nodes: Vec<Node>,
    instances: Vec<Instance>,
    /// The node names of the instances taken before the nodes (the
    /// request's keys in alphabetical order), one per instance.
    early: Unresolved,
    empty: Empties,
    /// The second thread reading the later instances, if one was started.
    split: Option<split::Running<'s>>,
}

impl ClusterSink for Builder<'_> {
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
            return Err(group_error(path, wn.group));
        };
        let i = self.nodes.len();
        self.node_by_name.insert(name.into(), i);
        self.nodes.push(build_node(name, &wn, i, gidx));
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

    fn takes_early_instances(&self) -> bool {
        true
    }

    fn early_instance(&mut self, name: &str, wi: WireInstance<'_>) {
        let i = self.instances.len() as i32;
        let inst = build_instance(&self.empty, name, &wi.body, i, NO_NODE, NO_NODE);
        self.instances.push(inst);
        self.early.keep(&wi);
    }

    fn resolve_early_instances(&mut self) -> Result<(), InputError> {
        let early = std::mem::take(&mut self.early);
        for (k, inst) in self.instances.iter_mut().enumerate().take(early.len()) {
            let (p, s) = early.resolve(k, &inst.name, &self.node_by_name)?;
            inst.p_node = p;
            inst.s_node = s;
        }
        Ok(())
    }

    fn split_instances(&mut self, at: usize, early: bool, take: bool) -> Option<SplitTaken> {
        let split::Tail {
            instances,
            unresolved,
            error,
            end,
        } = self.split.as_mut()?.instances(at)?;
        // A parse error is the reading's error whatever was read.
        if end.is_err() || !take {
            return Some(SplitTaken { end, error: None });
        }
        let base = self.instances.len();
        let mut taken = instances.into_iter().enumerate();
        if early {
            self.instances.extend(taken.map(|(k, inst)| Instance {
                idx: (base + k) as i32,
                ..inst
            }));
            self.early.append(unresolved);
            return Some(SplitTaken { end, error });
        }
        // As `instance` would have taken them, one by one, up to the
        // first error.
        self.instances.reserve(taken.len());
        for (k, inst) in &mut taken {
            match unresolved.resolve(k, &inst.name, &self.node_by_name) {
                Ok((p_node, s_node)) => self.instances.push(Instance {
                    idx: (base + k) as i32,
                    p_node,
                    s_node,
                    ..inst
                }),
                Err(e) => {
                    return Some(SplitTaken {
                        end,
                        error: Some(e),
                    })
                }
            }
        }
        Some(SplitTaken { end, error })
    }

    fn split_nodes(&mut self, at: usize, take: bool) -> Option<SplitTaken> {
        let split::NodeTail {
            mut nodes,
            groups,
            mut error,
            end,
        } = self.split.as_mut()?.nodes(at)?;
        if end.is_err() || !take {
            return Some(SplitTaken { end, error: None });
        }
        let group_idx: Vec<Option<usize>> = groups
            .iter()
            .map(|uuid| self.group_by_uuid.get(uuid.as_str()).copied())
            .collect();
        // As `node` would have taken them, one by one, up to the first
        // error: a node in an unknown group is the first.
        let section = Path::ROOT.field("nodes");
        let base = self.nodes.len();
        let mut kept = nodes.len();
        for (k, node) in nodes.iter_mut().enumerate() {
            let Some(gidx) = group_idx.get(node.group).copied().flatten() else {
                let uuid = groups.get(node.group).map_or("", String::as_str);
                error = Some(group_error(&section.name(&node.info.name), uuid));
                kept = k;
                break;
            };
            node.idx = base + k;
            node.group = gidx;
        }
        nodes.truncate(kept);
        self.node_by_name.reserve(nodes.len());
        for node in &nodes {
            self.node_by_name
                .insert(node.info.name.as_str().into(), node.idx);
        }
        // The second thread's vector, already in its memory, with the
        // nodes read before it in front.
        nodes.splice(0..0, self.nodes.drain(..));
        self.nodes = nodes;
        #[cfg(test)]
        NODES_TAKEN.with(|n| n.set(n.get() + 1));
        Some(SplitTaken { end, error })
    }
}

impl Builder<'_> {
    fn new() -> Self {
        Builder {
            groups: Vec::new(),
            group_by_uuid: BTreeMap::new(),
            node_by_name: HashMap::default(),
            nodes: Vec::new(),
            instances: Vec::new(),
            early: Unresolved::default(),
            empty: Empties::new(),
            split: None,
        }
    }
}

/// Builds the cluster model and the resolved request from the request's
/// bytes. The nodes and instances are built as the parser reaches them
/// (see [`iallocator::Reader`]), so the parsed document never holds them.
///
/// A large request's later instances are read on a second thread while
/// the parser reads up to them ([`split`]); the result is the one-thread
/// reading's.
pub fn load(input: &[u8], opts: &LoadOptions) -> Result<Loaded, LoadError> {
    load_split(input, opts, split::Plan::Choose)
}

/// [`load`], with the second thread started as `plan` says (for tests:
/// whatever the input's size).
fn load_split(input: &[u8], opts: &LoadOptions, plan: split::Plan) -> Result<Loaded, LoadError> {
    let link = split::Link::default();
    std::thread::scope(|scope| {
        let mut built = Builder::new();
        built.split = split::start(scope, input, &link, plan);
        load_into(built, input, &link, opts)
    })
}

/// [`load`] with the second thread, if any, in `built`, meeting the parse
/// through `link`.
fn load_into<'a>(
    mut built: Builder<'_>,
    input: &'a [u8],
    link: &'a split::Link,
    opts: &LoadOptions,
) -> Result<Loaded, LoadError> {
    let mut reader = iallocator::Reader::new(&mut built);
    let parsed = json::parse_document_streaming_split(input, &mut reader, &link.point);
    link.stop();
    let doc = parsed.map_err(LoadError::Json)?;
    let msg = reader.finish(&doc).map_err(LoadError::Input)?;
    // Dropped, the second thread is told to stop.
    drop(built.split.take());
    finish(built, &msg, opts).map_err(LoadError::Input)
}

#[cfg(test)]
/// [`load`] from a document parsed whole (for tests and tools).
pub fn load_document(doc: &json::Document, opts: &LoadOptions) -> Result<Loaded, InputError> {
    let mut built = Builder::new();
    let msg = iallocator::read_message(doc, &mut built)?;
    finish(built, &msg, opts)
}

/// The second half of loading, once the message is read: the cluster
/// merged ([`merge`]) and the request resolved against it.
fn finish(built: Builder<'_>, msg: &Message, opts: &LoadOptions) -> Result<Loaded, InputError> {
    let Builder {
        groups,
        nodes,
        instances,
        empty,
        ..
    } = built;
    let kvm = msg.enabled_hypervisors.first() == Some(&Hypervisor::Kvm);
    let static_node_memory =
        (kvm && opts.static_kvm_node_memory > 0).then_some(opts.static_kvm_node_memory);
    let parts = Parts {
        groups,
        nodes,
        instances,
        cluster_tags: owned(&msg.cluster_tags),
        ipolicy: IPolicy::ganeti_default(),
    };
    let merge_options = MergeOptions {
        ganeti: opts.ganeti,
        static_node_memory,
        ..MergeOptions::default()
    };
    let (mut cluster, warnings) = merge(parts, &empty, &merge_options);
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

    /// Loads a request parsed whole first and read from the document
    /// (no streaming, no member read straight from the input, one
    /// thread): the reference of the tests.
    fn load_whole(bytes: &[u8]) -> Result<Loaded, LoadError> {
        let opts = LoadOptions::default();
        match json::parse_document(bytes) {
            Err(e) => Err(LoadError::Json(e)),
            Ok(doc) => load_document(&doc, &opts).map_err(LoadError::Input),
        }
    }

    /// Loads a request streamed while parsed, and parsed whole first: the
    /// two must give the same model or the same first error.
    fn assert_same_load(bytes: &[u8], what: &str) {
        let streamed = load(bytes, &LoadOptions::default());
        assert_eq!(streamed, load_whole(bytes), "{what}");
    }

    /// The positions where a member may start: every quote.
    fn quotes(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
        bytes
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == b'"')
            .map(|(i, _)| i)
    }

    /// Loads a request with the second thread started at each of `at`
    /// (finding the nodes itself when the instances come first): each
    /// must give what the whole reading gives. Returns how many times the
    /// parse took nodes read on the second thread.
    fn assert_same_split_loads(bytes: &[u8], at: impl Iterator<Item = usize>, what: &str) -> usize {
        let plans = at.map(|at| split::Plan::At {
            instances: Some(at),
            nodes: None,
        });
        assert_same_planned_loads(bytes, plans, what)
    }

    /// Loads a request with the second thread started as each of `plans`
    /// says: each must give what the whole reading gives. Returns how
    /// many times the parse took nodes read on the second thread.
    fn assert_same_planned_loads(
        bytes: &[u8],
        plans: impl Iterator<Item = split::Plan>,
        what: &str,
    ) -> usize {
        let whole = load_whole(bytes);
        let opts = LoadOptions::default();
        let before = NODES_TAKEN.with(std::cell::Cell::get);
        for plan in plans {
            let split = load_split(bytes, &opts, plan);
            assert_eq!(split, whole, "{what}, split {plan:?}");
        }
        NODES_TAKEN.with(std::cell::Cell::get) - before
    }

    /// The directory of the protocol samples.
    fn samples_dir() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol-samples")
    }

    /// The protocol samples' request files, in name order.
    fn sample_paths() -> Vec<std::path::PathBuf> {
        let mut names: Vec<_> = std::fs::read_dir(samples_dir())
            .expect("protocol-samples")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        names.sort();
        assert!(names.len() > 20);
        names
    }

    /// The protocol samples, as written and with their keys sorted (the
    /// instances then come before the nodes).
    fn samples() -> Vec<(String, String)> {
        let mut out = Vec::new();
        for path in sample_paths() {
            let text = std::fs::read_to_string(&path).expect("sample");
            let name = path.display().to_string();
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
                let pretty = serde_json::to_string_pretty(&v).expect("json");
                out.push((format!("{name} sorted"), pretty));
            }
            out.push((name, text));
        }
        out
    }

    #[test]
    fn a_split_at_any_quote_reads_what_one_thread_reads() {
        // Valid requests: the split is taken where a member of the
        // instances begins and dropped anywhere else; with the keys
        // sorted, the second thread then finds the nodes after the
        // instances and the parse takes them.
        let mut taken = 0;
        for (name, text) in samples() {
            let bytes = text.as_bytes();
            let nodes = assert_same_split_loads(bytes, quotes(bytes), &name);
            if name.ends_with(" sorted")
                && load_whole(bytes).is_ok()
                && second_member(&text, "instances").is_some()
                && second_member(&text, "nodes").is_some()
            {
                assert!(nodes > 0, "{name}: no nodes taken after the instances");
            }
            taken += nodes;
        }
        assert!(taken > 100, "{taken} nodes splits taken");
    }

    #[test]
    fn a_split_in_the_nodes_at_any_quote_reads_what_one_thread_reads() {
        // The second thread reads the nodes from any quote on (in either
        // key order), or, in alphabetical order, first the instances from
        // the second one on and then the nodes from any quote on.
        let mut taken = 0;
        for (name, text) in samples() {
            let bytes = text.as_bytes();
            let plans = quotes(bytes).map(|q| split::Plan::At {
                instances: None,
                nodes: Some(q),
            });
            taken += assert_same_planned_loads(bytes, plans, &name);
            let Some(second) = second_member(&text, "instances") else {
                continue;
            };
            let plans = quotes(bytes).map(|q| split::Plan::At {
                instances: Some(second),
                nodes: Some(q),
            });
            let both = assert_same_planned_loads(bytes, plans, &name);
            // Nodes after an error (an invalid request) are only parsed.
            let valid = load_whole(bytes).is_ok();
            if valid && name.ends_with(" sorted") && second_member(&text, "nodes").is_some() {
                assert!(both > 0, "{name}: no nodes taken after the instances");
            }
            taken += both;
        }
        assert!(taken > 100, "{taken} nodes splits taken");
    }

    /// The start of the second member of the top-level object `key` of a
    /// request written one member per line (as the samples are, and
    /// serde_json's pretty form).
    fn second_member(text: &str, key: &str) -> Option<usize> {
        let open = text.find(&format!("\n  \"{key}\": {{\n"))?;
        let members = open + key.len() + 8;
        let end = text[members..].find("\n  }")? + members;
        let second = text[members..end].find("\n    \"")? + members;
        // The first member's own line; the second starts after it.
        let next = text[second + 1..end].find("\n    \"")? + second + 1;
        Some(next + 5)
    }

    #[test]
    fn a_large_request_is_read_on_two_threads_as_on_one() {
        // Past `split::MIN_INPUT` the second thread starts by itself,
        // leaves the parse's processor and chooses its position.
        use hailstone_devtools::generate::{generate, CaseSpec, RequestKind};
        for (seed, kind) in [(3, RequestKind::Relocate), (4, RequestKind::ChangeGroup)] {
            let text = generate(&CaseSpec::new(seed, kind, 400)).request;
            let sorted = serde_json::from_str::<serde_json::Value>(&text)
                .map(|v| serde_json::to_string_pretty(&v).expect("json"))
                .expect("generated JSON");
            for request in [text, sorted] {
                assert!(request.len() >= split::MIN_INPUT, "{} bytes", request.len());
                for _ in 0..3 {
                    assert_same_load(request.as_bytes(), &format!("seed {seed}"));
                }
            }
        }
    }

    #[test]
    fn a_split_reads_damaged_requests_as_one_thread_does() {
        // A byte changed, removed or doubled in the instances, before and
        // after the split: the same first error (or the same model).
        let text =
            std::fs::read_to_string(samples_dir().join("relocate-drbd.json")).expect("sample");
        let bytes = text.as_bytes();
        let start = text.find("\"instances\"").expect("instances");
        let splits: Vec<usize> = quotes(bytes).filter(|&q| q > start).step_by(5).collect();
        let replacements = [
            b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b'0', b'.', b'x', b' ',
        ];
        for (at, edit, damaged) in damaged_copies(bytes, start, 13, &replacements) {
            let near = splits
                .iter()
                .copied()
                .filter(|&q| q + 400 > at && q < at + 400);
            assert_same_split_loads(&damaged, near, &format!("edit {edit} at {at}"));
        }
    }

    /// Copies of `bytes`, each with one byte from `start` on, every
    /// `step` bytes, changed (to the next of `replacements`), removed or
    /// doubled: `(position, edit, copy)`.
    fn damaged_copies<'a>(
        bytes: &'a [u8],
        start: usize,
        step: usize,
        replacements: &'a [u8],
    ) -> impl Iterator<Item = (usize, usize, Vec<u8>)> + 'a {
        let edits = (start..bytes.len())
            .step_by(step)
            .flat_map(|at| (0..3).map(move |e| (at, e)));
        edits.enumerate().map(|(k, (at, edit))| {
            let mut damaged = bytes.to_vec();
            match edit {
                0 => damaged[at] = replacements[k % replacements.len()],
                1 => {
                    damaged.remove(at);
                }
                _ => damaged.insert(at, bytes[at]),
            }
            (at, edit, damaged)
        })
    }

    #[test]
    fn a_split_reads_damaged_nodes_as_one_thread_does() {
        // Keys sorted (the nodes after the instances): a byte changed,
        // removed or doubled in the nodes, before and after where the
        // second thread reads them from, whether it found them itself or
        // was told where: the same first error (or the same model).
        let text =
            std::fs::read_to_string(samples_dir().join("relocate-drbd.json")).expect("sample");
        let value: serde_json::Value = serde_json::from_str(&text).expect("sample JSON");
        let text = serde_json::to_string_pretty(&value).expect("json");
        let bytes = text.as_bytes();
        let second = second_member(&text, "instances").expect("two instances");
        let start = text.find("\n  \"nodes\": {").expect("nodes");
        let splits: Vec<usize> = quotes(bytes).filter(|&q| q > start).step_by(5).collect();
        let replacements = [b'"', b'{', b'}', b',', b':', b'0', b'x', b' '];
        for (at, edit, damaged) in damaged_copies(bytes, start, 11, &replacements) {
            let near = splits
                .iter()
                .copied()
                .filter(|&q| q + 300 > at && q < at + 300)
                .map(|q| split::Plan::At {
                    instances: Some(second),
                    nodes: Some(q),
                });
            let found = std::iter::once(split::Plan::At {
                instances: Some(second),
                nodes: None,
            });
            let what = format!("edit {edit} at {at}");
            assert_same_planned_loads(&damaged, found.chain(near), &what);
        }
    }

    #[test]
    fn read_straight_from_the_input_or_parsed_the_model_is_the_same() {
        // Every member shape the fast path reads or gives up on: generated
        // clusters of every feature and style, with values hail reads in
        // other forms (nulls, fractions, escapes, repeated keys, unknown
        // keys) written into them.
        use hailstone_devtools::generate::{all_kinds, generate, CaseSpec};
        let edits: [(&str, &str); 14] = [
            (r#""memory":"#, r#""memory":1.0e3,"memory":"#),
            (
                r#""vcpus":"#,
                r#""x":{"y":[1,2.5e-3,null,true,"z"]},"vcpus":"#,
            ),
            (r#""spindles":null"#, r#""spindles":2"#),
            (r#""size":"#, r#""size":10.5,"s":"#),
            (r#""tags":[]"#, r#""tags":["ab"]"#),
            (r#""ip":null"#, r#""ip":7"#),
            (r#""mode":"bridged""#, r#""mode":"other""#),
            (r#""admin_state":"up""#, r#""admin_state":"down""#),
            (
                r#""admin_state":"up""#,
                r#""admin_state":false,"forthcoming":true"#,
            ),
            (r#""free_memory":"#, r#""free_memory":null,"f":"#),
            (r#""total_memory":"#, r#""total_memory":32000.5,"t":"#),
            (r#""vm_capable":true"#, r#""vm_capable":null"#),
            (r#""offline":false"#, r#""offline":true"#),
            (
                r#""exclusive_storage":false"#,
                r#""exclusive_storage":true"#,
            ),
        ];
        for seed in 0..48u64 {
            let kinds = all_kinds();
            let kind = kinds[seed as usize % kinds.len()];
            let case = generate(&CaseSpec::random(seed, kind, 4..=40));
            let text = case.request;
            assert_same_load(text.as_bytes(), &format!("seed {seed}"));
            for (i, (from, to)) in edits.iter().enumerate() {
                let mut edited = text.replacen(from, to, 1 + seed as usize % 3);
                let compact = edited.replace(r#"": "#, r#"":"#);
                edited = compact.replacen(from, to, 1);
                assert_same_load(edited.as_bytes(), &format!("seed {seed} edit {i}"));
            }
        }
    }

    #[test]
    fn streaming_and_whole_reads_agree() {
        // Faults that stop the reading at different points, alone and
        // together: a bad request, an instance on an unknown node, a bad
        // group, a node in an unknown group, a bad instance field, bad
        // cluster tags, a duplicate key.
        let faults: [(&str, &str); 7] = [
            (r#""request":"#, r#""request": 5, "r":"#),
            // An instance on an unknown primary node (with the keys sorted,
            // found when the early-read instances are resolved).
            (r#""nodes":[""#, r#""nodes":["nowhere-"#),
            (r#""alloc_policy":"#, r#""alloc_policy": 1, "a":"#),
            (r#""group": ""#, r#""group": "x"#),
            (r#""memory":"#, r#""memory": "lots", "m":"#),
            (r#""cluster_tags":"#, r#""cluster_tags": 3, "c":"#),
            (r#""nodes":"#, r#""nodes": {}, "nodes":"#),
        ];
        for path in sample_paths() {
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
        let text =
            std::fs::read_to_string(samples_dir().join("relocate-drbd.json")).expect("sample");
        for cut in (0..text.len()).step_by(7) {
            assert_same_load(&text.as_bytes()[..cut], &format!("cut at {cut}"));
        }
    }
}
