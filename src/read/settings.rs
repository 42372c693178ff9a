//! The loader's settings from the command line (`--static-kvm-node-memory`
//! and `--ganeti-version`): [`LoadOptions`] and the [`GanetiVersion`]
//! whose semantics every reader's merge applies. Programs take them from
//! here through `read::loader`'s re-export.

/// The Ganeti release whose htools' semantics a program follows. Between
/// 3.0.2 and 3.1.0 two things change: a node's initial N+1 flag (Ganeti
/// commit 3c45a5c27, `Loader.updateMemStat`), applied by every reader's
/// merge, and the data file hscan saves (commit 837354e98: the cluster
/// as corrected, not as read), hailstone-scan's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GanetiVersion {
    /// 3.0.2: a node fails N+1 when its reported free memory is below its
    /// largest failover reservation (`Node.buildPeers`).
    #[default]
    V30,
    /// 3.1.0: when its unallocated memory (its memory less that of the
    /// node itself, of its primaries and of what the report misses) is at
    /// most that reservation.
    V31,
}

impl GanetiVersion {
    /// The version an option value names: `3.0` or `3.1`.
    pub fn parse(text: &str) -> Option<GanetiVersion> {
        match text {
            "3.0" => Some(GanetiVersion::V30),
            "3.1" => Some(GanetiVersion::V31),
            _ => None,
        }
    }
}

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
