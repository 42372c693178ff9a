//! The loader's settings from the command line (`--static-kvm-node-memory`
//! and `--ganeti-version`): [`LoadOptions`] and the [`GanetiVersion`]
//! whose semantics every reader's merge applies. Programs take them from
//! here through `read::loader`'s re-export.

pub use crate::model::types::GanetiVersion;

/// Loader settings that come from the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// `--static-kvm-node-memory`: on KVM clusters, every node's reserved
    /// memory becomes this value (0 keeps the reported one).
    pub static_kvm_node_memory: i64,
    /// `--ganeti-version`.
    pub ganeti: GanetiVersion,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            static_kvm_node_memory: 4096,
            ganeti: GanetiVersion::V30,
        }
    }
}
