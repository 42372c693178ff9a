//! The loader's settings from the command line (hail's
//! `--static-kvm-node-memory` and `--n1-rule`): [`LoadOptions`] and the
//! initial [`N1Rule`], which every reader's merge applies. Programs take
//! them from here through `read::loader`'s re-export.

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
