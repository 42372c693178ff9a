//! Node groups: name, UUID, allocation policy, connected networks and the
//! instance policy that applies to their nodes (`Ganeti.HTools.Group`).

use super::policy::IPolicy;
use super::types::AllocPolicy;

/// A node group.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The group's name (what answers and messages show).
    pub name: String,
    /// The group's UUID (its key in the request's `nodegroups`).
    pub uuid: String,
    /// Position in the request's `nodegroups` (`Group.idx`).
    pub idx: usize,
    /// Allocation policy.
    pub alloc_policy: AllocPolicy,
    /// UUIDs of the networks connected to the group.
    pub networks: Vec<String>,
    /// Instance policy of the group's nodes.
    pub ipolicy: IPolicy,
    /// Group tags.
    pub tags: Vec<String>,
}

impl Group {
    /// Whether new instances may be placed in the group when no group was
    /// asked for.
    pub fn is_allocable(&self) -> bool {
        self.alloc_policy != AllocPolicy::Unallocable
    }

    /// Whether `name` names this group (`allNames`: the name or the UUID).
    pub fn has_name(&self, name: &str) -> bool {
        self.name == name || self.uuid == name
    }
}
