//! Node groups: name, UUID, allocation policy, connected networks and the
//! instance policy that applies to their nodes (`Ganeti.HTools.Group`).

use super::policy::{IPolicy, ISpec};
use super::types::AllocPolicy;
use crate::write::haskell::{show_double, show_string, show_string_list};

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

/// Haskell's derived `show` of an `ISpec` record.
fn show_ispec(s: &ISpec) -> String {
    format!(
        "ISpec {{iSpecMemorySize = {}, iSpecCpuCount = {}, iSpecDiskSize = {}, iSpecDiskCount = {}, iSpecNicCount = {}, iSpecSpindleUse = {}}}",
        s.memory_size, s.cpu_count, s.disk_size, s.disk_count, s.nic_count, s.spindle_use
    )
}

impl Group {
    /// Haskell's derived `show` of the group record, which hail leaks into
    /// one change-group failure message.
    pub fn hs_show(&self) -> String {
        let minmax: Vec<String> = self
            .ipolicy
            .minmax
            .iter()
            .map(|mm| {
                format!(
                    "MinMaxISpecs {{minMaxISpecsMinSpec = {}, minMaxISpecsMaxSpec = {}}}",
                    show_ispec(&mm.min),
                    show_ispec(&mm.max)
                )
            })
            .collect();
        let templates: Vec<&str> = self
            .ipolicy
            .disk_templates
            .iter()
            .map(|t| t.constructor())
            .collect();
        let networks: Vec<&str> = self.networks.iter().map(String::as_str).collect();
        let tags: Vec<&str> = self.tags.iter().map(String::as_str).collect();
        format!(
            "Group {{name = {}, uuid = {}, idx = {}, allocPolicy = {}, networks = {}, iPolicy = IPolicy {{iPolicyMinMaxISpecs = [{}], iPolicyStdSpec = {}, iPolicyDiskTemplates = [{}], iPolicyVcpuRatio = {}, iPolicySpindleRatio = {}}}, allTags = {}}}",
            show_string(&self.name),
            show_string(&self.uuid),
            self.idx,
            self.alloc_policy.constructor(),
            show_string_list(&networks),
            minmax.join(","),
            show_ispec(&self.ipolicy.std),
            templates.join(","),
            show_double(self.ipolicy.vcpu_ratio),
            show_double(self.ipolicy.spindle_ratio),
            show_string_list(&tags),
        )
    }
}
