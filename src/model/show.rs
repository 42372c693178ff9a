//! Haskell's derived `show` of the model's records (the `deriving Show`
//! of Ganeti's types), which the originals print: an instance policy
//! (hbal's `Loaded cluster ipolicy` line) and a node group (one of hail's
//! change-group failure messages).

use crate::haskell::show::{show_double, show_string, show_string_list};
use crate::model::group::Group;
use crate::model::policy::{IPolicy, ISpec};

/// Haskell's derived `show` of an `ISpec` record.
fn show_ispec(s: &ISpec) -> String {
    format!(
        "ISpec {{iSpecMemorySize = {}, iSpecCpuCount = {}, iSpecDiskSize = {}, iSpecDiskCount = {}, iSpecNicCount = {}, iSpecSpindleUse = {}}}",
        s.memory_size, s.cpu_count, s.disk_size, s.disk_count, s.nic_count, s.spindle_use
    )
}

/// Haskell's derived `show` of an instance policy record (hbal's
/// `Loaded cluster ipolicy` line).
pub fn show_ipolicy(p: &IPolicy) -> String {
    let minmax: Vec<String> = p
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
    let templates: Vec<&str> = p.disk_templates.iter().map(|t| t.constructor()).collect();
    format!(
        "IPolicy {{iPolicyMinMaxISpecs = [{}], iPolicyStdSpec = {}, iPolicyDiskTemplates = [{}], iPolicyVcpuRatio = {}, iPolicySpindleRatio = {}}}",
        minmax.join(","),
        show_ispec(&p.std),
        templates.join(","),
        show_double(p.vcpu_ratio),
        show_double(p.spindle_ratio),
    )
}

/// Haskell's derived `show` of a group record, which hail leaks into one
/// change-group failure message.
pub fn show_group(group: &Group) -> String {
    let networks: Vec<&str> = group.networks.iter().map(String::as_str).collect();
    let tags: Vec<&str> = group.tags.iter().map(String::as_str).collect();
    format!(
        "Group {{name = {}, uuid = {}, idx = {}, allocPolicy = {}, networks = {}, iPolicy = {}, allTags = {}}}",
        show_string(&group.name),
        show_string(&group.uuid),
        group.idx,
        group.alloc_policy.constructor(),
        show_string_list(&networks),
        show_ipolicy(&group.ipolicy),
        show_string_list(&tags),
    )
}
