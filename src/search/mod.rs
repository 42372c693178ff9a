//! Searching: where instances go.
//!
//! * Owns: the mutable what-if cluster ([`state`]), instance moves
//!   ([`moves`]), allocation on one node or a pair ([`allocate`]), the
//!   lost-allocations search of exclusive-storage clusters ([`dedicated`]),
//!   the global N+1 capacity check ([`globaln1`]), evacuation, relocation
//!   and group change with their jobs ([`evacuate`]), the allocation
//!   solutions with their failure tallies ([`solution`]) and GHC's sort for
//!   hail's exact order ([`ghc_sort`]).
//! * May use: the model, scoring, and the writing helpers (Haskell
//!   formatting of the texts hail builds during its search, answer JSON).
//! * Must never: read input or parse options; print; decide anything from a
//!   hash map's order or a thread's timing.

pub mod allocate;
pub mod dedicated;
pub mod evacuate;
pub mod ghc_sort;
pub mod globaln1;
pub mod moves;
pub mod solution;
pub mod state;
