//! The iallocator request on the wire (protocol version 2, as Ganeti's
//! `doc/iallocator.rst` describes it) and its reading from the parsed JSON
//! document; the wire message borrows its strings from that document.
//!
//! This module only checks shapes and types and keeps names as strings; the
//! model loader resolves names to indices and derives values. The nodes and
//! instances are not collected: each goes to a [`ClusterSink`] (the loader)
//! as soon as it is read, so that a large cluster never exists twice in
//! memory and the sink's own errors come in hail's order (hail resolves a
//! node's group and an instance's nodes as it reads them). [`Reader`] goes
//! further and takes them while the request is still being parsed (it is
//! the parser's [`Streamer`]), so the parsed document never holds them
//! either. What is
//! accepted follows hail exactly, with these deliberate deviations (all of
//! them inputs no Ganeti master sends):
//! * integers beyond ±2^53 are refused (hail wraps them modulo 2^64);
//! * non-finite numbers (`1e400`) are refused;
//! * JSON that RFC 8259 refuses is refused (hail accepts `1.` and lone
//!   surrogate escapes).
//!
//! Like hail, objects ignore unknown keys except the instance policy, which
//! is strict; optional fields treat `null` as absent; a required field that
//! is `null` is a type error; integer fields accept any number and round it
//! half to even; `admin_state` and `forthcoming` silently fall back to their
//! defaults on any bad value.
//!
//! Errors name the JSON path of the offending value, e.g.
//! `nodes."node3".total_memory: expected a number, found "lots"`.

use std::fmt;

use smallvec::SmallVec;

use crate::model::policy::{IPolicy, ISpec, MinMaxISpecs};
use crate::model::types::{AllocPolicy, DiskTemplate, EvacMode, RunState};
use crate::read::json::{Array, Document, Object, ParseError, Picked, Scan, Streamer, Value};

/// Bad input: the request cannot be read. Refused with exit status 1 and
/// nothing on stdout.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct InputError {
    /// Where in the request, e.g. `nodes."node3".total_memory`.
    pub path: String,
    /// What was expected and what was found.
    pub message: String,
}

/// A segment of a JSON path, kept borrowed until an error needs it.
#[derive(Clone, Copy)]
enum Seg<'a> {
    /// A schema field, printed bare (`.total_memory`).
    Field(&'a str),
    /// A user-chosen key such as a node name, printed quoted (`."node3"`).
    Name(&'a str),
    /// An array position (`[2]`).
    Index(usize),
}

/// A JSON path as a chain of segments; rendered only on error.
#[derive(Clone, Copy)]
pub struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    seg: Option<Seg<'a>>,
}

impl<'a> Path<'a> {
    /// The document root.
    pub const ROOT: Path<'static> = Path {
        parent: None,
        seg: None,
    };

    /// The path of a schema field below this one.
    pub fn field(&'a self, name: &'a str) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Some(Seg::Field(name)),
        }
    }

    pub(crate) fn name(&'a self, name: &'a str) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Some(Seg::Name(name)),
        }
    }

    /// The path of an array position below this one.
    pub fn index(&'a self, i: usize) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Some(Seg::Index(i)),
        }
    }

    /// Builds an error at this path.
    pub fn error(&self, message: impl Into<String>) -> InputError {
        InputError {
            path: self.to_string(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut segs = Vec::new();
        let mut cur = Some(self);
        while let Some(p) = cur {
            if let Some(s) = p.seg {
                segs.push(s);
            }
            cur = p.parent;
        }
        if segs.is_empty() {
            return f.write_str("(top level)");
        }
        for (i, s) in segs.iter().rev().enumerate() {
            match s {
                Seg::Field(n) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(n)?;
                }
                Seg::Name(n) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    let mut q = String::new();
                    crate::haskell::json::write_string(&mut q, n);
                    f.write_str(&q)?;
                }
                Seg::Index(k) => write!(f, "[{k}]")?,
            }
        }
        Ok(())
    }
}

/// The largest integer magnitude hailstone accepts (2^53).
pub const MAX_INT: i64 = 1 << 53;

/// A hypervisor name from `enabled_hypervisors`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hypervisor {
    Kvm,
    XenPvm,
    Chroot,
    XenHvm,
    Lxc,
    Fake,
}

impl Hypervisor {
    pub(crate) const ALL: [(&'static str, Hypervisor); 6] = [
        ("kvm", Hypervisor::Kvm),
        ("xen-pvm", Hypervisor::XenPvm),
        ("chroot", Hypervisor::Chroot),
        ("xen-hvm", Hypervisor::XenHvm),
        ("lxc", Hypervisor::Lxc),
        ("fake", Hypervisor::Fake),
    ];
}

/// The iallocator message apart from its nodes and instances, which went
/// to the [`ClusterSink`] while it was read.
#[derive(Debug, Clone, PartialEq)]
pub struct Message<'a> {
    /// Node groups in input order, keyed by UUID.
    pub groups: Vec<(&'a str, WireGroup<'a>)>,
    /// Cluster tags.
    pub cluster_tags: Vec<&'a str>,
    /// Enabled hypervisors; only the first matters.
    pub enabled_hypervisors: Vec<Hypervisor>,
    /// The `request` object.
    pub request: WireRequest<'a>,
}

/// Receives the cluster as it is read: the node groups once, then each
/// node and each instance in input order (duplicate names included). What
/// it is given lives for the call only. An error from the sink ends the
/// reading and is its result.
pub trait ClusterSink {
    /// All node groups, before the first node.
    fn groups(&mut self, groups: &[(&str, WireGroup<'_>)]) -> Result<(), InputError>;
    /// One node; `path` is its place in the message, for errors.
    fn node(&mut self, name: &str, node: WireNode<'_>, path: &Path) -> Result<(), InputError>;
    /// One instance; `path` is its place in the message, for errors.
    fn instance(
        &mut self,
        name: &str,
        instance: WireInstance<'_>,
        path: &Path,
    ) -> Result<(), InputError>;
    /// Whether the sink takes instances before the nodes
    /// ([`ClusterSink::early_instance`]): then a request whose instances
    /// come first (keys in alphabetical order) streams them too.
    fn takes_early_instances(&self) -> bool {
        false
    }
    /// One instance read before any node: kept, its node names resolved
    /// by [`ClusterSink::resolve_early_instances`] once the nodes are in,
    /// with the errors [`ClusterSink::instance`] would have given.
    fn early_instance(&mut self, _name: &str, _instance: WireInstance<'_>) {}
    /// Resolves the early instances' nodes in input order (the nodes have
    /// all been handed over): the first error [`ClusterSink::instance`]
    /// would have given for them, in the same order.
    fn resolve_early_instances(&mut self) -> Result<(), InputError> {
        Ok(())
    }
    /// The parser reached the split position `at` in the instances object
    /// (see [`crate::read::split`]): the instances from there to the end
    /// of the object, if they were read on another thread. When `take`,
    /// the sink takes them as [`ClusterSink::instance`] (or, when `early`,
    /// [`ClusterSink::early_instance`]) would have taken them one by one,
    /// up to the first error; otherwise only where the reading ended is
    /// wanted. `None`: nothing was read there; the parser reads on.
    fn split_instances(&mut self, _at: usize, _early: bool, _take: bool) -> Option<SplitTaken> {
        None
    }
    /// As [`ClusterSink::split_instances`], at the split position `at` in
    /// the nodes object: the nodes from there to the end of the object,
    /// taken as [`ClusterSink::node`] would have taken them one by one
    /// when `take`.
    fn split_nodes(&mut self, _at: usize, _take: bool) -> Option<SplitTaken> {
        None
    }
}

/// What [`ClusterSink::split_instances`] and [`ClusterSink::split_nodes`]
/// give back.
#[derive(Debug)]
pub struct SplitTaken {
    /// The position after the object, or the parse error met reading its
    /// members.
    pub end: Result<usize, ParseError>,
    /// The first error among the members taken, as they would have given
    /// it one by one.
    pub error: Option<InputError>,
}

/// A sink that keeps every node and instance as read, written out (for
/// tests and the fuzz targets, which compare whole messages).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Collected {
    /// Nodes in input order (duplicates kept), as `name: node`.
    pub nodes: Vec<String>,
    /// Instances in input order (duplicates kept), as `name: instance`.
    pub instances: Vec<String>,
}

impl ClusterSink for Collected {
    fn groups(&mut self, _: &[(&str, WireGroup<'_>)]) -> Result<(), InputError> {
        Ok(())
    }

    fn node(&mut self, name: &str, node: WireNode<'_>, _: &Path) -> Result<(), InputError> {
        self.nodes.push(format!("{name:?}: {node:?}"));
        Ok(())
    }

    fn instance(
        &mut self,
        name: &str,
        instance: WireInstance<'_>,
        _: &Path,
    ) -> Result<(), InputError> {
        self.instances.push(format!("{name:?}: {instance:?}"));
        Ok(())
    }
}

/// Where a request's nodes or instances are read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    /// Their key has not come yet.
    Unseen,
    /// From the document, by [`Reader::finish`].
    OnTape,
    /// As the parser hands them over; [`Section::Streamed`] once all came.
    Streaming,
    Streamed,
    /// Instances that come before the nodes, handed over as the parser
    /// reaches them to a sink that takes them early; their node names are
    /// resolved in [`Reader::finish`], where the instances are read.
    EarlyStreaming,
    EarlyStreamed,
}

/// Reads a request into a [`ClusterSink`] and a [`Message`]. As the
/// parser's [`Streamer`] it takes the nodes and the instances one by one
/// while the request is parsed, so that they are never all in memory: the
/// nodes when the node groups came before them, the instances when the
/// nodes were streamed (a Ganeti master writes the groups, the nodes and
/// the instances in that order), or when they come before the nodes (keys
/// in alphabetical order) and the sink takes them early: then their node
/// names are resolved, and their first error given, when
/// [`Reader::finish`] reaches the instances. [`Reader::finish`] then reads the rest of
/// the document, and whatever was not streamed, in hail's order, so that
/// the first error is the same either way.
pub struct Reader<'s, S> {
    sink: &'s mut S,
    nodes: Section,
    instances: Section,
    /// Whether the node groups went to the sink already.
    groups_sent: bool,
    /// The first error met while streaming; later members are only parsed.
    error: Option<InputError>,
    /// The first error met while streaming instances early: it comes after
    /// the errors of the groups, the nodes and the instances before it, so
    /// it waits until [`Reader::finish`] reaches the instances.
    early_error: Option<InputError>,
}

impl<'s, S: ClusterSink> Reader<'s, S> {
    pub fn new(sink: &'s mut S) -> Self {
        Reader {
            sink,
            nodes: Section::Unseen,
            instances: Section::Unseen,
            groups_sent: false,
            error: None,
            early_error: None,
        }
    }

    /// Reads the rest of the message from the parsed document.
    pub fn finish<'d>(mut self, doc: &'d Document<'_>) -> Result<Message<'d>, InputError> {
        let root = Path::ROOT;
        let top = doc.root();
        let Some(top) = top.as_object() else {
            return Err(root.error(format!("expected a JSON object, found {}", found(top))));
        };

        // hail reads the keys in this order and stops at the first error.
        let req_path = root.field("request");
        let req_members = as_object(
            required(&top, "request", &req_path, "an object")?,
            &req_path,
        )?;
        // What streaming met comes next: it read the groups, nodes and
        // instances in this very order.
        if let Some(e) = self.error.take() {
            return Err(e);
        }

        let groups = read_groups(&top)?;
        if !self.groups_sent {
            self.sink.groups(&groups)?;
        }

        if self.nodes != Section::Streamed {
            let nodes_path = root.field("nodes");
            let nodes_json = as_object(
                required(&top, "nodes", &nodes_path, "an object")?,
                &nodes_path,
            )?;
            for (name, n) in nodes_json.iter() {
                node_to(self.sink, &nodes_path, name, n)?;
            }
        }

        if self.instances == Section::EarlyStreamed {
            self.sink.resolve_early_instances()?;
            if let Some(e) = self.early_error.take() {
                return Err(e);
            }
        } else if self.instances != Section::Streamed {
            let inst_path = root.field("instances");
            let inst_json = as_object(
                required(&top, "instances", &inst_path, "an object")?,
                &inst_path,
            )?;
            for (name, i) in inst_json.iter() {
                instance_to(self.sink, &inst_path, name, i)?;
            }
        }

        let cluster_tags = req_str_list(&top, "cluster_tags", &root)?;

        let hv_path = root.field("enabled_hypervisors");
        let hv_json = as_array(
            required(
                &top,
                "enabled_hypervisors",
                &hv_path,
                "a list of hypervisor names",
            )?,
            &hv_path,
        )?;
        let mut enabled_hypervisors = Vec::with_capacity(hv_json.len());
        for (i, h) in hv_json.iter().enumerate() {
            enabled_hypervisors.push(enum_value(h, &hv_path.index(i), &Hypervisor::ALL)?);
        }

        let request = read_request_dict(req_members, &req_path)?;
        Ok(Message {
            groups,
            cluster_tags,
            enabled_hypervisors,
            request,
        })
    }
}

impl<S: ClusterSink> Streamer for Reader<'_, S> {
    fn wants(&mut self, so_far: &Document<'_>, key: &str, is_object: bool) -> bool {
        match key {
            "nodes" if self.nodes == Section::Unseen => {
                self.nodes = Section::OnTape;
                // The groups must all be known before the first node.
                let Some(top) = so_far.root().as_object() else {
                    return false;
                };
                if !is_object || top.get("nodegroups").is_none() {
                    return false;
                }
                match read_groups(&top) {
                    Ok(groups) => self.note(|sink| sink.groups(&groups)),
                    Err(e) => self.note(|_| Err(e)),
                }
                self.groups_sent = true;
                self.nodes = Section::Streaming;
                true
            }
            "instances" if self.instances == Section::Unseen => {
                self.instances = Section::OnTape;
                if !is_object {
                    return false;
                }
                if self.nodes == Section::Streamed {
                    self.instances = Section::Streaming;
                    return true;
                }
                if self.nodes == Section::Unseen && self.sink.takes_early_instances() {
                    self.instances = Section::EarlyStreaming;
                    return true;
                }
                false
            }
            _ => false,
        }
    }

    fn member(&mut self, name: &str, value: Value<'_>) {
        let root = Path::ROOT;
        if self.nodes == Section::Streaming {
            let section = root.field("nodes");
            self.note(|sink| node_to(sink, &section, name, value));
        } else if self.instances == Section::Streaming {
            let section = root.field("instances");
            self.note(|sink| instance_to(sink, &section, name, value));
        } else if self.instances == Section::EarlyStreaming && self.early_error.is_none() {
            let section = root.field("instances");
            match read_instance(value, &section.name(name)) {
                Ok(wi) => self.sink.early_instance(name, wi),
                Err(e) => self.early_error = Some(e),
            }
        }
    }

    fn fast(&mut self, mut scan: Scan<'_>) -> Option<usize> {
        // As `member`, for the members `scan_node` and `scan_instance`
        // can read.
        if self.nodes == Section::Streaming {
            if self.error.is_some() {
                return None;
            }
            let (name, wn) = scan_node(&mut scan)?;
            let section = Path::ROOT.field("nodes");
            let path = section.name(name);
            self.note(|sink| sink.node(name, wn, &path));
            return Some(scan.pos());
        }
        match self.instances {
            Section::Streaming if self.error.is_none() => {
                let (name, wi) = scan_instance(&mut scan)?;
                let section = Path::ROOT.field("instances");
                let path = section.name(name);
                self.note(|sink| sink.instance(name, wi, &path));
            }
            Section::EarlyStreaming if self.early_error.is_none() => {
                let (name, wi) = scan_instance(&mut scan)?;
                self.sink.early_instance(name, wi);
            }
            _ => return None,
        }
        Some(scan.pos())
    }

    fn split(&mut self, at: usize) -> Option<Result<usize, ParseError>> {
        if self.nodes == Section::Streaming {
            // After the first error, later nodes are only parsed.
            let taken = self.sink.split_nodes(at, self.error.is_none())?;
            if let Some(e) = taken.error {
                self.error.get_or_insert(e);
            }
            return Some(taken.end);
        }
        let early = match self.instances {
            Section::Streaming => false,
            Section::EarlyStreaming => true,
            _ => return None,
        };
        // After the first error, later instances are only parsed.
        let take = if early {
            self.early_error.is_none()
        } else {
            self.error.is_none()
        };
        let taken = self.sink.split_instances(at, early, take)?;
        if let Some(e) = taken.error {
            let first = if early {
                &mut self.early_error
            } else {
                &mut self.error
            };
            first.get_or_insert(e);
        }
        Some(taken.end)
    }

    fn end(&mut self) {
        if self.nodes == Section::Streaming {
            self.nodes = Section::Streamed;
        } else if self.instances == Section::Streaming {
            self.instances = Section::Streamed;
        } else if self.instances == Section::EarlyStreaming {
            self.instances = Section::EarlyStreamed;
        }
    }
}

impl<S: ClusterSink> Reader<'_, S> {
    /// Reads and hands something to the sink unless an error came first
    /// (later members are then only parsed), and keeps the new error.
    fn note(&mut self, give: impl FnOnce(&mut S) -> Result<(), InputError>) {
        if self.error.is_none() {
            if let Err(e) = give(self.sink) {
                self.error = Some(e);
            }
        }
    }
}

/// Reads the message from its parsed document, handing its nodes and
/// instances to `sink` (without streaming: for tests and tools).
pub fn read_message<'d>(
    doc: &'d Document<'_>,
    sink: &mut impl ClusterSink,
) -> Result<Message<'d>, InputError> {
    Reader::new(sink).finish(doc)
}

/// Reads the node `v` named `name` in the nodes object at `section` and
/// hands it to `sink`.
fn node_to(
    sink: &mut impl ClusterSink,
    section: &Path,
    name: &str,
    v: Value<'_>,
) -> Result<(), InputError> {
    let p = section.name(name);
    sink.node(name, read_node(v, &p)?, &p)
}

/// Reads the instance `v` named `name` in the instances object at
/// `section` and hands it to `sink`.
fn instance_to(
    sink: &mut impl ClusterSink,
    section: &Path,
    name: &str,
    v: Value<'_>,
) -> Result<(), InputError> {
    let p = section.name(name);
    sink.instance(name, read_instance(v, &p)?, &p)
}

/// The node groups of the top-level object, in input order.
fn read_groups<'d>(top: &Object<'d>) -> Result<Vec<(&'d str, WireGroup<'d>)>, InputError> {
    let groups_path = Path::ROOT.field("nodegroups");
    let groups_json = as_object(
        required(top, "nodegroups", &groups_path, "an object")?,
        &groups_path,
    )?;
    let mut groups = Vec::with_capacity(groups_json.len());
    for (uuid, g) in groups_json.iter() {
        let p = groups_path.name(uuid);
        groups.push((uuid, read_group(g, &p)?));
    }
    Ok(groups)
}

/// A node group as sent.
#[derive(Debug, Clone, PartialEq)]
pub struct WireGroup<'a> {
    pub name: &'a str,
    pub alloc_policy: AllocPolicy,
    pub networks: Vec<&'a str>,
    pub ipolicy: IPolicy,
    pub tags: Vec<&'a str>,
}

/// A node's run-time data, present for live nodes (online and
/// vm_capable).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LiveData {
    /// `total_spindles`, read only with exclusive storage.
    pub total_spindles: Option<i64>,
    pub free_spindles: i64,
    pub total_memory: f64,
    pub reserved_memory: i64,
    pub free_memory: i64,
    pub total_disk: f64,
    pub free_disk: i64,
    pub total_cpus: f64,
    pub reserved_cpus: i64,
}

/// A node as sent.
#[derive(Debug, Clone, PartialEq)]
pub struct WireNode<'a> {
    pub offline: bool,
    pub drained: bool,
    /// The group's UUID.
    pub group: &'a str,
    pub vm_capable: bool,
    pub exclusive_storage: bool,
    /// `ndparams.spindle_count`, read only without exclusive storage.
    pub spindle_count: Option<i64>,
    pub tags: Vec<&'a str>,
    /// Run-time data; `None` for offline or non-vm_capable nodes, which
    /// hail does not read it from.
    pub live: Option<LiveData>,
}

/// One disk as sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WireDisk {
    pub size: i64,
    pub spindles: Option<i64>,
}

/// The instance fields shared by cluster instances and instances to
/// allocate (`parseBaseInstance`).
#[derive(Debug, Clone, PartialEq)]
pub struct WireInstanceBody<'a> {
    pub disk_space_total: i64,
    /// Inline up to four disks: reading an instance allocates nothing
    /// for them.
    pub disks: SmallVec<[WireDisk; 4]>,
    pub memory: i64,
    pub vcpus: i64,
    pub tags: Vec<&'a str>,
    pub disk_template: DiskTemplate,
    pub spindle_use: i64,
    /// The networks of the NICs, one entry per NIC (up to four inline).
    pub nic_networks: SmallVec<[Option<&'a str>; 4]>,
    pub run_state: RunState,
    pub forthcoming: bool,
}

/// A cluster instance as sent.
#[derive(Debug, Clone, PartialEq)]
pub struct WireInstance<'a> {
    pub body: WireInstanceBody<'a>,
    /// Primary node name.
    pub primary: &'a str,
    /// Secondary node name, if the `nodes` list has a second entry.
    pub secondary: Option<&'a str>,
}

/// An instance to allocate.
#[derive(Debug, Clone, PartialEq)]
pub struct WireNewInstance<'a> {
    pub name: &'a str,
    pub required_nodes: i64,
    pub body: WireInstanceBody<'a>,
}

/// The `request` object, by type.
#[derive(Debug, Clone, PartialEq)]
pub enum WireRequest<'a> {
    Allocate {
        /// Boxed: its body keeps disks and NICs inline.
        instance: Box<WireNewInstance<'a>>,
        group_name: Option<&'a str>,
        restrict_to_nodes: Option<Vec<&'a str>>,
    },
    Relocate {
        name: &'a str,
        required_nodes: i64,
        relocate_from: Vec<&'a str>,
    },
    ChangeGroup {
        instances: Vec<&'a str>,
        target_groups: Vec<&'a str>,
    },
    NodeEvacuate {
        instances: Vec<&'a str>,
        evac_mode: EvacMode,
    },
    MultiAllocate {
        instances: Vec<WireNewInstance<'a>>,
        /// The outer request's `group_name`, which hail applies to every
        /// instance.
        group_name: Option<&'a str>,
    },
    AllocateSecondary {
        name: &'a str,
    },
}

impl WireRequest<'_> {
    /// The request type as on the wire.
    pub fn type_name(&self) -> &'static str {
        match self {
            WireRequest::Allocate { .. } => "allocate",
            WireRequest::Relocate { .. } => "relocate",
            WireRequest::ChangeGroup { .. } => "change-group",
            WireRequest::NodeEvacuate { .. } => "node-evacuate",
            WireRequest::MultiAllocate { .. } => "multi-allocate",
            WireRequest::AllocateSecondary { .. } => "allocate-secondary",
        }
    }
}

// ---------------------------------------------------------------------------
// Typed accessors.

/// An object's members by key: the object itself, or the members picked
/// from it in one pass for an object read many times (nodes, instances).
trait Fields<'d> {
    /// The value of the first member with this key.
    fn field(&self, key: &str) -> Option<Value<'d>>;
}

impl<'d> Fields<'d> for Object<'d> {
    fn field(&self, key: &str) -> Option<Value<'d>> {
        self.get(key)
    }
}

impl<'d, const N: usize> Fields<'d> for Picked<'d, N> {
    fn field(&self, key: &str) -> Option<Value<'d>> {
        self.get(key)
    }
}

fn found(v: Value<'_>) -> String {
    v.describe()
}

pub(crate) fn as_object<'d>(v: Value<'d>, path: &Path) -> Result<Object<'d>, InputError> {
    v.as_object()
        .ok_or_else(|| path.error(format!("expected an object, found {}", found(v))))
}

pub(crate) fn as_array<'d>(v: Value<'d>, path: &Path) -> Result<Array<'d>, InputError> {
    v.as_array()
        .ok_or_else(|| path.error(format!("expected an array, found {}", found(v))))
}

/// A required key; `null` counts as present (and then fails the type
/// check).
fn required<'d>(
    m: &impl Fields<'d>,
    key: &str,
    path: &Path,
    what: &str,
) -> Result<Value<'d>, InputError> {
    m.field(key)
        .ok_or_else(|| path.error(format!("missing; expected {what}")))
}

/// An optional key: absent and `null` are both `None`.
fn optional<'d>(m: &impl Fields<'d>, key: &str) -> Option<Value<'d>> {
    m.field(key).filter(|v| !v.is_null())
}

pub(crate) fn int_value(v: Value<'_>, path: &Path) -> Result<i64, InputError> {
    match v.as_number() {
        Some(n) => n.as_int().ok_or_else(|| {
            path.error(format!(
                "expected an integer between -{MAX_INT} and {MAX_INT}, found {}",
                found(v)
            ))
        }),
        None => Err(path.error(format!("expected an integer, found {}", found(v)))),
    }
}

pub(crate) fn f64_value(v: Value<'_>, path: &Path) -> Result<f64, InputError> {
    match v.as_number() {
        Some(n) => {
            let x = n.as_f64();
            if x.is_finite() {
                Ok(x)
            } else {
                Err(path.error(format!("expected a finite number, found {}", found(v))))
            }
        }
        None => Err(path.error(format!("expected a number, found {}", found(v)))),
    }
}

pub(crate) fn bool_value(v: Value<'_>, path: &Path) -> Result<bool, InputError> {
    v.as_bool()
        .ok_or_else(|| path.error(format!("expected true or false, found {}", found(v))))
}

pub(crate) fn str_value<'d>(v: Value<'d>, path: &Path) -> Result<&'d str, InputError> {
    v.as_str()
        .ok_or_else(|| path.error(format!("expected a string, found {}", found(v))))
}

pub(crate) fn str_list<'d>(v: Value<'d>, path: &Path) -> Result<Vec<&'d str>, InputError> {
    let items = as_array(v, path)?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        out.push(str_value(item, &path.index(i))?);
    }
    Ok(out)
}

fn req_int<'d>(m: &impl Fields<'d>, key: &str, path: &Path) -> Result<i64, InputError> {
    let p = path.field(key);
    int_value(required(m, key, &p, "an integer")?, &p)
}

fn req_f64<'d>(m: &impl Fields<'d>, key: &str, path: &Path) -> Result<f64, InputError> {
    let p = path.field(key);
    f64_value(required(m, key, &p, "a number")?, &p)
}

fn req_bool<'d>(m: &impl Fields<'d>, key: &str, path: &Path) -> Result<bool, InputError> {
    let p = path.field(key);
    bool_value(required(m, key, &p, "true or false")?, &p)
}

fn req_str<'d>(m: &impl Fields<'d>, key: &str, path: &Path) -> Result<&'d str, InputError> {
    let p = path.field(key);
    str_value(required(m, key, &p, "a string")?, &p)
}

fn req_str_list<'d>(
    m: &impl Fields<'d>,
    key: &str,
    path: &Path,
) -> Result<Vec<&'d str>, InputError> {
    let p = path.field(key);
    str_list(required(m, key, &p, "a list of strings")?, &p)
}

fn opt_str<'d>(m: &impl Fields<'d>, key: &str, path: &Path) -> Result<Option<&'d str>, InputError> {
    match optional(m, key) {
        None => Ok(None),
        Some(v) => Ok(Some(str_value(v, &path.field(key))?)),
    }
}

pub(crate) fn enum_value<T: Copy>(
    v: Value<'_>,
    path: &Path,
    choices: &[(&str, T)],
) -> Result<T, InputError> {
    let Some(s) = v.as_str() else {
        return Err(path.error(format!("expected a string, found {}", found(v))));
    };
    choices
        .iter()
        .find(|(name, _)| *name == s)
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            let names: Vec<String> = choices.iter().map(|(n, _)| format!("\"{n}\"")).collect();
            path.error(format!(
                "expected one of {}, found {}",
                names.join(", "),
                found(v)
            ))
        })
}

fn template_choices() -> Vec<(&'static str, DiskTemplate)> {
    DiskTemplate::ALL.iter().map(|t| (t.raw(), *t)).collect()
}

pub(crate) fn disk_template(v: Value<'_>, path: &Path) -> Result<DiskTemplate, InputError> {
    enum_value(v, path, &template_choices())
}

// ---------------------------------------------------------------------------
// The document.

fn read_group<'d>(v: Value<'d>, path: &Path) -> Result<WireGroup<'d>, InputError> {
    let m = as_object(v, path)?;
    let name = req_str(&m, "name", path)?;
    let pol_path = path.field("alloc_policy");
    let alloc_policy = enum_value(
        required(&m, "alloc_policy", &pol_path, "an allocation policy")?,
        &pol_path,
        &[
            ("preferred", AllocPolicy::Preferred),
            ("last_resort", AllocPolicy::LastResort),
            ("unallocable", AllocPolicy::Unallocable),
        ],
    )?;
    let networks = req_str_list(&m, "networks", path)?;
    let ip_path = path.field("ipolicy");
    let ipolicy = read_ipolicy(
        required(&m, "ipolicy", &ip_path, "an instance policy object")?,
        &ip_path,
    )?;
    let tags = req_str_list(&m, "tags", path)?;
    Ok(WireGroup {
        name,
        alloc_policy,
        networks,
        ipolicy,
        tags,
    })
}

/// Refuses keys outside `allowed` (hail's policy objects are strict).
fn strict_keys(m: Object<'_>, allowed: &[&str], path: &Path, what: &str) -> Result<(), InputError> {
    for (k, _) in m.iter() {
        if !allowed.contains(&k) {
            let names: Vec<String> = allowed.iter().map(|a| format!("\"{a}\"")).collect();
            return Err(path.error(format!(
                "unexpected key \"{k}\"; {what} allows only {}",
                names.join(", ")
            )));
        }
    }
    Ok(())
}

pub(crate) fn read_ipolicy(v: Value<'_>, path: &Path) -> Result<IPolicy, InputError> {
    let m = as_object(v, path)?;
    strict_keys(
        m,
        &[
            "disk-templates",
            "minmax",
            "spindle-ratio",
            "std",
            "vcpu-ratio",
        ],
        path,
        "an instance policy",
    )?;
    let mm_path = path.field("minmax");
    let mm_json = as_array(
        required(&m, "minmax", &mm_path, "a list of {min, max} objects")?,
        &mm_path,
    )?;
    let mut minmax = Vec::with_capacity(mm_json.len());
    for (i, entry) in mm_json.iter().enumerate() {
        let p = mm_path.index(i);
        let em = as_object(entry, &p)?;
        strict_keys(em, &["max", "min"], &p, "a min/max pair")?;
        let min_path = p.field("min");
        let min = read_ispec(
            required(&em, "min", &min_path, "an instance spec")?,
            &min_path,
        )?;
        let max_path = p.field("max");
        let max = read_ispec(
            required(&em, "max", &max_path, "an instance spec")?,
            &max_path,
        )?;
        minmax.push(MinMaxISpecs { min, max });
    }
    let std_path = path.field("std");
    let std = read_ispec(
        required(&m, "std", &std_path, "an instance spec")?,
        &std_path,
    )?;
    let dt_path = path.field("disk-templates");
    let dt_json = as_array(
        required(&m, "disk-templates", &dt_path, "a list of disk templates")?,
        &dt_path,
    )?;
    let mut disk_templates = Vec::with_capacity(dt_json.len());
    for (i, t) in dt_json.iter().enumerate() {
        disk_templates.push(disk_template(t, &dt_path.index(i))?);
    }
    let vcpu_ratio = req_f64(&m, "vcpu-ratio", path)?;
    let spindle_ratio = req_f64(&m, "spindle-ratio", path)?;
    Ok(IPolicy {
        minmax,
        std,
        disk_templates,
        vcpu_ratio,
        spindle_ratio,
    })
}

fn read_ispec(v: Value<'_>, path: &Path) -> Result<ISpec, InputError> {
    let m = as_object(v, path)?;
    strict_keys(
        m,
        &[
            "cpu-count",
            "disk-count",
            "disk-size",
            "memory-size",
            "nic-count",
            "spindle-use",
        ],
        path,
        "an instance spec",
    )?;
    Ok(ISpec {
        memory_size: req_int(&m, "memory-size", path)?,
        cpu_count: req_int(&m, "cpu-count", path)?,
        disk_size: req_int(&m, "disk-size", path)?,
        disk_count: req_int(&m, "disk-count", path)?,
        nic_count: req_int(&m, "nic-count", path)?,
        spindle_use: req_int(&m, "spindle-use", path)?,
    })
}

/// The node keys hail reads.
const NODE_KEYS: [&str; 15] = [
    "offline",
    "drained",
    "group",
    "vm_capable",
    "ndparams",
    "tags",
    "total_spindles",
    "free_spindles",
    "total_memory",
    "reserved_memory",
    "free_memory",
    "total_disk",
    "free_disk",
    "total_cpus",
    "reserved_cpus",
];

pub(crate) fn read_node<'d>(v: Value<'d>, path: &Path) -> Result<WireNode<'d>, InputError> {
    let m = as_object(v, path)?.pick(&NODE_KEYS);
    let offline = req_bool(&m, "offline", path)?;
    let drained = req_bool(&m, "drained", path)?;
    let group = req_str(&m, "group", path)?;
    let vm_capable = match optional(&m, "vm_capable") {
        None => true,
        Some(v) => bool_value(v, &path.field("vm_capable"))?,
    };
    let nd_path = path.field("ndparams");
    let nd = as_object(required(&m, "ndparams", &nd_path, "an object")?, &nd_path)?;
    let tags = match optional(&m, "tags") {
        None => Vec::new(),
        Some(v) => str_list(v, &path.field("tags"))?,
    };
    let exclusive_storage = req_bool(&nd, "exclusive_storage", &nd_path)?;
    let live = !offline && vm_capable;
    let spindle_count = if exclusive_storage {
        None
    } else {
        Some(req_int(&nd, "spindle_count", &nd_path)?)
    };
    let live = if live {
        let total_spindles = if exclusive_storage {
            Some(req_int(&m, "total_spindles", path)?)
        } else {
            None
        };
        Some(LiveData {
            total_spindles,
            free_spindles: req_int(&m, "free_spindles", path)?,
            total_memory: req_f64(&m, "total_memory", path)?,
            reserved_memory: req_int(&m, "reserved_memory", path)?,
            free_memory: req_int(&m, "free_memory", path)?,
            total_disk: req_f64(&m, "total_disk", path)?,
            free_disk: req_int(&m, "free_disk", path)?,
            total_cpus: req_f64(&m, "total_cpus", path)?,
            reserved_cpus: req_int(&m, "reserved_cpus", path)?,
        })
    } else {
        None
    };
    Ok(WireNode {
        offline,
        drained,
        group,
        vm_capable,
        exclusive_storage,
        spindle_count,
        tags,
        live,
    })
}

/// The instance keys hail reads: those of [`read_instance_body`] and
/// `nodes`.
const INSTANCE_KEYS: [&str; 11] = [
    "disk_space_total",
    "disks",
    "memory",
    "vcpus",
    "tags",
    "disk_template",
    "spindle_use",
    "nics",
    "admin_state",
    "forthcoming",
    "nodes",
];

/// The NIC keys hail reads.
const NIC_KEYS: [&str; 6] = ["mac", "ip", "mode", "link", "bridge", "network"];

/// The disk keys hail reads.
const DISK_KEYS: [&str; 2] = ["size", "spindles"];

fn read_instance_body<'d>(
    m: &impl Fields<'d>,
    path: &Path,
) -> Result<WireInstanceBody<'d>, InputError> {
    let disk_space_total = req_int(m, "disk_space_total", path)?;
    let disks_path = path.field("disks");
    let disks_json = as_array(
        required(m, "disks", &disks_path, "a list of disk objects")?,
        &disks_path,
    )?;
    let mut disk_objs: SmallVec<[_; 4]> = SmallVec::with_capacity(disks_json.len());
    for (i, d) in disks_json.iter().enumerate() {
        disk_objs.push(as_object(d, &disks_path.index(i))?.pick(&DISK_KEYS));
    }
    // hail reads every size first, then every spindle count.
    let mut sizes: SmallVec<[i64; 4]> = SmallVec::with_capacity(disk_objs.len());
    for (i, &d) in disk_objs.iter().enumerate() {
        sizes.push(req_int(&d, "size", &disks_path.index(i))?);
    }
    let mut disks = SmallVec::with_capacity(disk_objs.len());
    for (i, (&d, size)) in disk_objs.iter().zip(sizes).enumerate() {
        let spindles = match optional(&d, "spindles") {
            None => None,
            Some(v) => Some(int_value(v, &disks_path.index(i).field("spindles"))?),
        };
        disks.push(WireDisk { size, spindles });
    }
    let memory = req_int(m, "memory", path)?;
    let vcpus = req_int(m, "vcpus", path)?;
    let tags = req_str_list(m, "tags", path)?;
    let dt_path = path.field("disk_template");
    let disk_template = disk_template(
        required(m, "disk_template", &dt_path, "a disk template")?,
        &dt_path,
    )?;
    let spindle_use = req_int(m, "spindle_use", path)?;
    let nics_path = path.field("nics");
    let nics_json = as_array(
        required(m, "nics", &nics_path, "a list of NIC objects")?,
        &nics_path,
    )?;
    let mut nic_networks = SmallVec::with_capacity(nics_json.len());
    for (i, nic) in nics_json.iter().enumerate() {
        let p = nics_path.index(i);
        let nm = as_object(nic, &p)?.pick(&NIC_KEYS);
        opt_str(&nm, "mac", &p)?;
        opt_str(&nm, "ip", &p)?;
        if let Some(mode) = optional(&nm, "mode") {
            let mp = p.field("mode");
            let s = str_value(mode, &mp)?;
            if !matches!(s, "bridged" | "routed" | "openvswitch") {
                return Err(mp.error(format!(
                    "expected one of \"bridged\", \"routed\", \"openvswitch\", found {}",
                    found(mode)
                )));
            }
        }
        opt_str(&nm, "link", &p)?;
        opt_str(&nm, "bridge", &p)?;
        nic_networks.push(opt_str(&nm, "network", &p)?);
    }
    // hail falls back to "up" on a missing or bad admin_state, and to not
    // forthcoming on a missing or bad forthcoming flag.
    let run_state = match m.field("admin_state").and_then(|v| v.as_str()) {
        Some("down") => RunState::AdminDown,
        Some("offline") => RunState::AdminOffline,
        _ => RunState::Running,
    };
    let forthcoming = m.field("forthcoming").and_then(|v| v.as_bool()) == Some(true);
    Ok(WireInstanceBody {
        disk_space_total,
        disks,
        memory,
        vcpus,
        tags,
        disk_template,
        spindle_use,
        nic_networks,
        run_state,
        forthcoming,
    })
}

pub(crate) fn read_instance<'d>(v: Value<'d>, path: &Path) -> Result<WireInstance<'d>, InputError> {
    let m = as_object(v, path)?.pick(&INSTANCE_KEYS);
    let body = read_instance_body(&m, path)?;
    let nodes_path = path.field("nodes");
    let nodes = as_array(
        required(&m, "nodes", &nodes_path, "a list of node names")?,
        &nodes_path,
    )?;
    // hail reads the primary and the secondary and ignores later entries.
    let mut entries = nodes.iter();
    let primary = match entries.next() {
        None => {
            return Err(nodes_path.error("expected at least the primary node, found an empty list"))
        }
        Some(p) => str_value(p, &nodes_path.index(0))?,
    };
    let secondary = match entries.next() {
        None => None,
        Some(s) => Some(str_value(s, &nodes_path.index(1))?),
    };
    Ok(WireInstance {
        body,
        primary,
        secondary,
    })
}

/// Reads a node member, `"name": {...}`, straight from the input: the
/// node [`read_node`] reads, or `None` when anything is not in the common
/// shape (as for [`scan_instance`]); the member is then parsed and read by
/// [`read_node`].
pub(crate) fn scan_node<'a>(s: &mut Scan<'a>) -> Option<(&'a str, WireNode<'a>)> {
    let name = s.member_name()?;
    let mut seen = Seen::default();
    let mut offline = None;
    let mut drained = None;
    let mut group = None;
    let mut vm_capable = None;
    let mut ndparams = None;
    let mut tags = None;
    // The run-time numbers: `Some(None)` when present but not a plain
    // integer, which only matters if they are read (a live node).
    let mut numbers: [Option<Option<i64>>; 9] = [None; 9];
    s.object(|key, s| {
        // NODE_KEYS, in its order.
        let k: u32 = match key {
            b"offline" => 0,
            b"drained" => 1,
            b"group" => 2,
            b"vm_capable" => 3,
            b"ndparams" => 4,
            b"tags" => 5,
            b"total_spindles" => 6,
            b"free_spindles" => 7,
            b"total_memory" => 8,
            b"reserved_memory" => 9,
            b"free_memory" => 10,
            b"total_disk" => 11,
            b"free_disk" => 12,
            b"total_cpus" => 13,
            b"reserved_cpus" => 14,
            _ => return s.skip(),
        };
        seen.first(k)?;
        match k {
            0 => offline = Some(s.bool()?),
            1 => drained = Some(s.bool()?),
            2 => group = Some(s.string()?),
            3 => vm_capable = Some(if s.null() { true } else { s.bool()? }),
            4 => ndparams = Some(scan_ndparams(s)?),
            5 => tags = Some(if s.null() { Vec::new() } else { s.strings()? }),
            _ => {
                *numbers.get_mut(k as usize - 6)? = Some(int_or_skipped(s)?);
            }
        }
        Some(())
    })?;
    let offline = offline?;
    let vm_capable = vm_capable.unwrap_or(true);
    let (exclusive_storage, spindle_count) = ndparams?;
    let live = if !offline && vm_capable {
        let int = |k: usize| numbers.get(k).copied().flatten().flatten();
        Some(LiveData {
            total_spindles: if exclusive_storage {
                Some(int(0)?)
            } else {
                None
            },
            free_spindles: int(1)?,
            total_memory: int(2)? as f64,
            reserved_memory: int(3)?,
            free_memory: int(4)?,
            total_disk: int(5)? as f64,
            free_disk: int(6)?,
            total_cpus: int(7)? as f64,
            reserved_cpus: int(8)?,
        })
    } else {
        None
    };
    let wn = WireNode {
        offline,
        drained: drained?,
        group: group?,
        vm_capable,
        exclusive_storage,
        spindle_count: if exclusive_storage {
            None
        } else {
            Some(spindle_count?)
        },
        tags: tags.unwrap_or_default(),
        live,
    };
    Some((name, wn))
}

/// For values read only in some cases (a live node's numbers): a plain
/// integer, or any value that is not a number, read and dropped (`None`
/// inside). Another number is left unread, so that the member is given up.
fn int_or_skipped(s: &mut Scan<'_>) -> Option<Option<i64>> {
    Some(if matches!(s.peek()?, b'-' | b'0'..=b'9') {
        s.int()
    } else {
        s.skip()?;
        None
    })
}

/// A node's `ndparams` for [`scan_node`]: `exclusive_storage` and
/// `spindle_count` (`None` when absent or not a plain integer).
fn scan_ndparams(s: &mut Scan<'_>) -> Option<(bool, Option<i64>)> {
    let mut seen = Seen::default();
    let mut exclusive_storage = None;
    let mut spindle_count = None;
    s.object(|key, s| {
        match key {
            b"exclusive_storage" => {
                exclusive_storage = Some(seen.first(0).and_then(|()| s.bool())?)
            }
            b"spindle_count" => spindle_count = seen.first(1).and_then(|()| int_or_skipped(s))?,
            _ => s.skip()?,
        }
        Some(())
    })?;
    Some((exclusive_storage?, spindle_count))
}

/// Reads an instance member, `"name": {...}`, straight from the input:
/// the instance [`read_instance`] reads, or `None` when anything is not
/// in the common shape (an escape, a repeated key, a missing field, a
/// value of another type or a number that is not a plain integer, an
/// unknown disk template, a NIC mode hail refuses): the member is then
/// parsed and read by [`read_instance`], which finds the same instance or
/// the error.
pub(crate) fn scan_instance<'a>(s: &mut Scan<'a>) -> Option<(&'a str, WireInstance<'a>)> {
    let name = s.member_name()?;
    let mut seen = Seen::default();
    let mut disk_space_total = None;
    let mut disks = None;
    let mut memory = None;
    let mut vcpus = None;
    let mut tags = None;
    let mut disk_template = None;
    let mut spindle_use = None;
    let mut nic_networks = None;
    let mut run_state = RunState::Running;
    let mut forthcoming = false;
    let mut primary = None;
    let mut secondary = None;
    s.object(|key, s| {
        match key {
            b"disk_space_total" => disk_space_total = Some(seen.first(0).and_then(|()| s.int())?),
            b"disks" => disks = Some(seen.first(1).and_then(|()| scan_disks(s))?),
            b"memory" => memory = Some(seen.first(2).and_then(|()| s.int())?),
            b"vcpus" => vcpus = Some(seen.first(3).and_then(|()| s.int())?),
            b"tags" => tags = Some(seen.first(4).and_then(|()| s.strings())?),
            b"disk_template" => {
                seen.first(5)?;
                disk_template = Some(DiskTemplate::from_raw(s.string()?)?);
            }
            b"spindle_use" => spindle_use = Some(seen.first(6).and_then(|()| s.int())?),
            b"nics" => nic_networks = Some(seen.first(7).and_then(|()| scan_nics(s))?),
            b"admin_state" => {
                // hail falls back to "up" on a bad value.
                seen.first(8)?;
                run_state = if s.peek()? == b'"' {
                    match s.string()? {
                        "down" => RunState::AdminDown,
                        "offline" => RunState::AdminOffline,
                        _ => RunState::Running,
                    }
                } else {
                    s.skip()?;
                    RunState::Running
                };
            }
            b"forthcoming" => {
                seen.first(9)?;
                forthcoming = if matches!(s.peek()?, b't' | b'f') {
                    s.bool()?
                } else {
                    s.skip()?;
                    false
                };
            }
            b"nodes" => {
                seen.first(10)?;
                let mut k = 0;
                s.array(|s| {
                    let node = s.string()?;
                    match k {
                        0 => primary = Some(node),
                        1 => secondary = Some(node),
                        _ => {}
                    }
                    k += 1;
                    Some(())
                })?;
            }
            _ => s.skip()?,
        }
        Some(())
    })?;
    let body = WireInstanceBody {
        disk_space_total: disk_space_total?,
        disks: disks?,
        memory: memory?,
        vcpus: vcpus?,
        tags: tags?,
        disk_template: disk_template?,
        spindle_use: spindle_use?,
        nic_networks: nic_networks?,
        run_state,
        forthcoming,
    };
    let wi = WireInstance {
        body,
        primary: primary?,
        secondary,
    };
    Some((name, wi))
}

/// The keys of an object met so far, by number, for [`scan_instance`]:
/// a repeated key is left to the general reading (which takes the first).
#[derive(Default)]
struct Seen(u32);

impl Seen {
    /// Marks key `k`; `None` if it was met before.
    fn first(&mut self, k: u32) -> Option<()> {
        let bit = 1 << k;
        if self.0 & bit != 0 {
            return None;
        }
        self.0 |= bit;
        Some(())
    }
}

/// An instance's `disks` for [`scan_instance`]: objects with an integer
/// `size` and an integer or null `spindles`.
fn scan_disks(s: &mut Scan<'_>) -> Option<SmallVec<[WireDisk; 4]>> {
    let mut disks = SmallVec::new();
    s.array(|s| {
        let mut seen = Seen::default();
        let mut size = None;
        let mut spindles = None;
        s.object(|key, s| {
            match key {
                b"size" => size = Some(seen.first(0).and_then(|()| s.int())?),
                b"spindles" => spindles = seen.first(1).and_then(|()| s.int_or_null())?,
                _ => s.skip()?,
            }
            Some(())
        })?;
        disks.push(WireDisk {
            size: size?,
            spindles,
        });
        Some(())
    })?;
    Some(disks)
}

/// An instance's `nics` for [`scan_instance`]: objects whose keys hail
/// reads are strings or null, `mode` one hail accepts; their networks.
fn scan_nics<'a>(s: &mut Scan<'a>) -> Option<SmallVec<[Option<&'a str>; 4]>> {
    let mut networks = SmallVec::new();
    s.array(|s| {
        let mut seen = Seen::default();
        let mut network = None;
        s.object(|key, s| {
            // NIC_KEYS, in its order.
            let k = match key {
                b"mac" => 0,
                b"ip" => 1,
                b"mode" => 2,
                b"link" => 3,
                b"bridge" => 4,
                b"network" => 5,
                _ => return s.skip(),
            };
            seen.first(k)?;
            let value = s.string_or_null()?;
            if k == 2 && !matches!(value, None | Some("bridged" | "routed" | "openvswitch")) {
                return None;
            }
            if k == 5 {
                network = value;
            }
            Some(())
        })?;
        networks.push(network);
        Some(())
    })?;
    Some(networks)
}

fn read_new_instance<'d>(m: Object<'d>, path: &Path) -> Result<WireNewInstance<'d>, InputError> {
    let name = req_str(&m, "name", path)?;
    let required_nodes = req_int(&m, "required_nodes", path)?;
    let body = read_instance_body(&m, path)?;
    Ok(WireNewInstance {
        name,
        required_nodes,
        body,
    })
}

fn read_request_dict<'d>(m: Object<'d>, path: &Path) -> Result<WireRequest<'d>, InputError> {
    let type_path = path.field("type");
    let kind = str_value(
        required(&m, "type", &type_path, "a request type")?,
        &type_path,
    )?;
    match kind {
        "allocate" => {
            let name = req_str(&m, "name", path)?;
            let group_name = opt_str(&m, "group_name", path)?;
            let restrict_to_nodes = match optional(&m, "restrict-to-nodes") {
                None => None,
                Some(v) => Some(str_list(v, &path.field("restrict-to-nodes"))?),
            };
            let required_nodes = req_int(&m, "required_nodes", path)?;
            let body = read_instance_body(&m, path)?;
            Ok(WireRequest::Allocate {
                instance: Box::new(WireNewInstance { name, required_nodes, body }),
                group_name,
                restrict_to_nodes,
            })
        }
        "relocate" => Ok(WireRequest::Relocate {
            name: req_str(&m, "name", path)?,
            required_nodes: req_int(&m, "required_nodes", path)?,
            relocate_from: req_str_list(&m, "relocate_from", path)?,
        }),
        "change-group" => Ok(WireRequest::ChangeGroup {
            instances: req_str_list(&m, "instances", path)?,
            target_groups: req_str_list(&m, "target_groups", path)?,
        }),
        "node-evacuate" => {
            let instances = req_str_list(&m, "instances", path)?;
            let mode_path = path.field("evac_mode");
            let evac_mode = enum_value(
                required(&m, "evac_mode", &mode_path, "an evacuation mode")?,
                &mode_path,
                &[
                    ("primary-only", EvacMode::ChangePrimary),
                    ("secondary-only", EvacMode::ChangeSecondary),
                    ("all", EvacMode::ChangeAll),
                ],
            )?;
            Ok(WireRequest::NodeEvacuate { instances, evac_mode })
        }
        "multi-allocate" => {
            let ip = path.field("instances");
            let list = as_array(required(&m, "instances", &ip, "a list of instance objects")?, &ip)?;
            // hail reads the outer group_name once per instance, so an
            // empty list never looks at it.
            let group_name = if list.is_empty() { None } else { opt_str(&m, "group_name", path)? };
            let mut instances = Vec::with_capacity(list.len());
            for (i, entry) in list.iter().enumerate() {
                let p = ip.index(i);
                instances.push(read_new_instance(as_object(entry, &p)?, &p)?);
            }
            Ok(WireRequest::MultiAllocate { instances, group_name })
        }
        "allocate-secondary" => Ok(WireRequest::AllocateSecondary { name: req_str(&m, "name", path)? }),
        other => Err(type_path.error(format!(
            "unknown request type \"{other}\"; expected one of \"allocate\", \"multi-allocate\", \"relocate\", \"node-evacuate\", \"change-group\", \"allocate-secondary\""
        ))),
    }
}
