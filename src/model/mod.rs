//! The validated, index-based cluster model every algorithm works on: node
//! groups, nodes and instances addressed by index (their order in the
//! request), with names kept for output, plus the resolved request.
//!
//! The model is the one source of truth after loading; it is never
//! serialised back to JSON. `read::loader` builds it from the wire types.
//!
//! * Owns: the cluster's records (`Group`, `Node`, `Instance`), their
//!   capacity primitives (`Node::add_pri` and friends, the instance-policy
//!   check), the small enums of Ganeti's vocabulary (`types`), the
//!   resolved request and the iallocator's response as data (`response`),
//!   the hasher of maps that are never iterated (`hash`), the cluster's
//!   resource statistics as hspace sums them (`stats`),
//!   what a move and a plan cost to carry out (`cost`: data copied, time),
//!   and the derived `show` of its records (`show`, as Haskell derives it
//!   with the type).
//! * May use: the Haskell renderings of `crate::haskell`. Every other
//!   stage uses the model.
//! * Must never: read or write bytes, know a file format, or score.

pub mod cost;
pub mod group;
pub mod hash;
pub mod instance;
pub mod node;
pub mod policy;
pub mod refusal;
pub mod response;
pub mod show;
pub mod stats;
pub mod storage;
pub mod types;

use std::collections::BTreeMap;

use group::Group;
use instance::Instance;
use node::Node;
use policy::IPolicy;
use types::EvacMode;

/// An interned tag string. Tag sets are sorted vectors of ids.
pub type TagId = u32;

/// The interning table for tags that matter to placement (exclusion,
/// location, desired-location and migration tags).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TagTable {
    names: Vec<String>,
    ids: BTreeMap<String, TagId>,
}

impl TagTable {
    /// The id of `tag`, adding it if new.
    pub fn intern(&mut self, tag: &str) -> TagId {
        if let Some(&id) = self.ids.get(tag) {
            return id;
        }
        let id = self.names.len() as TagId;
        self.names.push(tag.to_owned());
        self.ids.insert(tag.to_owned(), id);
        id
    }

    /// The tag string of an id.
    pub fn name(&self, id: TagId) -> &str {
        &self.names[id as usize]
    }
}

/// The whole cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct Cluster {
    /// Node groups, by index.
    pub groups: Vec<Group>,
    /// Nodes, by index.
    pub nodes: Vec<Node>,
    /// Instances, by key (normally equal to their `idx`).
    pub instances: Vec<Instance>,
    /// Cluster tags.
    pub cluster_tags: Vec<String>,
    /// Interned placement tags.
    pub tags: TagTable,
    /// Exclusion tag prefixes from `htools:iextags:` cluster tags.
    pub excl_prefixes: Vec<String>,
    /// Desired-location prefixes from `htools:desiredlocation:` cluster tags.
    pub dsrd_loc_prefixes: Vec<String>,
    /// The cluster's instance policy. An iallocator request does not carry
    /// it (hail keeps Ganeti's default); a cluster data file does.
    pub ipolicy: IPolicy,
}

/// Result of a name lookup that must match exactly one element
/// (`findByName`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameMatch {
    One(usize),
    None,
    Many,
}

fn find_unique<T>(items: &[T], matches: impl Fn(&T) -> bool) -> NameMatch {
    let mut found = NameMatch::None;
    for (i, item) in items.iter().enumerate() {
        if matches(item) {
            found = match found {
                NameMatch::None => NameMatch::One(i),
                _ => return NameMatch::Many,
            };
        }
    }
    found
}

/// Finds a group by name or UUID.
pub fn find_group(groups: &[Group], name: &str) -> NameMatch {
    find_unique(groups, |g| g.has_name(name))
}

impl Cluster {
    /// Whether the balancer may move `inst`: its template allows moves and
    /// its nodes are in one group (`mergeData` clears `movable` for an
    /// instance split over two groups).
    pub fn balancer_movable(&self, inst: &instance::Instance) -> bool {
        let group = |k: i32| {
            usize::try_from(k)
                .ok()
                .and_then(|k| self.nodes.get(k))
                .map(|n| n.group)
        };
        let split = inst.s_node != instance::NO_NODE && group(inst.p_node) != group(inst.s_node);
        inst.disk_template.balancer_movable() && !split
    }

    /// Finds a node by full name or alias.
    pub fn find_node(&self, name: &str) -> NameMatch {
        find_unique(&self.nodes, |n| {
            n.info.name == name || n.info.alias() == name
        })
    }

    /// Finds an instance by full name or alias.
    pub fn find_instance(&self, name: &str) -> NameMatch {
        find_unique(&self.instances, |i| *i.name == *name || i.alias() == name)
    }

    /// Finds a group by name or UUID.
    pub fn find_group(&self, name: &str) -> NameMatch {
        find_group(&self.groups, name)
    }

    /// Computes the tag-derived fields of an instance from its tags:
    /// exclusion tags and desired-location tags.
    pub fn instance_tag_sets<S: AsRef<str>>(&mut self, tags: &[S]) -> (Vec<TagId>, Vec<TagId>) {
        let mut excl = Vec::new();
        for t in tags {
            let t = t.as_ref();
            if self.excl_prefixes.iter().any(|p| t.starts_with(p.as_str())) {
                excl.push(self.tags.intern(t));
            }
        }
        let mut dsrd = Vec::new();
        for t in tags {
            let t = t.as_ref();
            if self
                .dsrd_loc_prefixes
                .iter()
                .any(|p| t.starts_with(p.as_str()))
            {
                dsrd.push(self.tags.intern(t));
            }
        }
        dsrd.sort_unstable();
        dsrd.dedup();
        (excl, dsrd)
    }
}

/// The request, with names resolved to indices (hail's `RqType`).
// One value per run: the size difference between variants does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// Place a new instance.
    Allocate {
        instance: Instance,
        required_nodes: i64,
        group_name: Option<String>,
        restrict_to_nodes: Option<Vec<String>>,
    },
    /// Place several new instances, one after another.
    MultiAllocate {
        instances: Vec<(Instance, i64)>,
        group_name: Option<String>,
    },
    /// Find a new secondary (drbd) or primary (shared storage) node.
    Relocate {
        instance: usize,
        required_nodes: i64,
        relocate_from: Vec<usize>,
    },
    /// Move instances off nodes.
    NodeEvacuate {
        instances: Vec<usize>,
        mode: EvacMode,
    },
    /// Move instances to other node groups.
    ChangeGroup {
        instances: Vec<usize>,
        target_groups: Vec<usize>,
    },
    /// Find a secondary for a plain instance being converted to drbd.
    AllocateSecondary { instance: usize },
}

impl Request {
    /// The request type as on the wire.
    pub fn type_name(&self) -> &'static str {
        match self {
            Request::Allocate { .. } => "allocate",
            Request::MultiAllocate { .. } => "multi-allocate",
            Request::Relocate { .. } => "relocate",
            Request::NodeEvacuate { .. } => "node-evacuate",
            Request::ChangeGroup { .. } => "change-group",
            Request::AllocateSecondary { .. } => "allocate-secondary",
        }
    }
}
