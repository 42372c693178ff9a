//! Searching: where instances go.
//!
//! * Owns: the mutable what-if cluster ([`state`]), instance moves
//!   ([`moves`]), allocation on one node or a pair ([`allocate`], a
//!   folder: the single-node search in `single.rs`, the pair search in
//!   `pairs.rs`, `row.rs` and `bounded.rs`, group ranking and the
//!   multi-group search in `groups.rs`, allocate-secondary in
//!   `secondary.rs`), the lost-allocations search of exclusive-storage
//!   clusters ([`dedicated`]), the global N+1 capacity check
//!   ([`globaln1`]), evacuation, relocation and group change with their
//!   jobs ([`evacuate`], a folder: one-node moves in `one_node.rs`, a drbd
//!   instance's new pair in `drbd_all.rs`, node evacuation and group
//!   change in `node_evac.rs`, relocation in `relocation.rs`), the
//!   allocation solutions with their failure tallies ([`solution`]), GHC's
//!   sort for hail's exact order ([`ghc_sort`]), and the balancing engine
//!   of hbal and the planners built on it ([`balance`]); hroller's reboot
//!   groups ([`roll`]) and how one is carried out ([`reboot`]); what a
//!   squeeze plan does that Ganeti refuses ([`squeeze_cautions`]).
//! * May use: the model, scoring, and the writing helpers (Haskell
//!   formatting of the texts hail builds during its search, answer JSON).
//! * Must never: read input or parse options; print; decide anything from a
//!   hash map's order or a thread's timing.

pub mod allocate;
pub mod balance;
pub mod check;
pub mod dedicated;
pub mod evacuate;
pub mod ghc_sort;
pub mod globaln1;
pub mod groups;
pub mod moves;
pub mod reboot;
pub mod repair;
pub mod request;
pub mod roll;
pub mod solution;
pub mod space;
pub mod squeeze;
pub mod squeeze_cautions;
pub mod state;

use crate::model::types::SoftChecks;

/// The algorithm settings that come from the command line (Ganeti's
/// `AlgorithmOptions`), read once by the program and handed to the
/// searches; each search takes the part it needs.
#[derive(Debug, Clone, PartialEq)]
pub struct AlgorithmOptions {
    /// `--ignore-soft-errors` gives [`SoftChecks::Ignore`].
    pub soft: SoftChecks,
    /// The global N+1 capacity check; `--no-capacity-checks` turns it off.
    pub capacity_checks: bool,
    /// `--restrict-allocation-to`: only these nodes may receive a new
    /// instance (replaces the request's `restrict-to-nodes`).
    pub restrict_allocation_to: Option<Vec<String>>,
    /// `--inter-group-evacuation` (hailstone only, off by default as hail
    /// never does it): node-evacuate moves an instance that fits nowhere in
    /// its own group into a group of its storage partition.
    pub inter_group_evacuation: bool,
}

impl Default for AlgorithmOptions {
    fn default() -> Self {
        AlgorithmOptions {
            soft: SoftChecks::Enforce,
            capacity_checks: true,
            restrict_allocation_to: None,
            inter_group_evacuation: false,
        }
    }
}
