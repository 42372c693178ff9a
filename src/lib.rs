//! hailstone: a drop-in replacement for Ganeti's `hail` iallocator.
//!
//! The folders are the stages of the pipeline, in the order a request
//! meets them:
//!
//! * [`read`] — bytes to the model: the JSON parser, the iallocator
//!   message, the loader;
//! * [`model`] — the validated, index-based cluster and request;
//! * [`score`] — hail's cluster metric and the bounded argmin;
//! * [`search`] — the what-if state, moves, allocation, N+1, evacuation;
//! * [`write`](mod@write) — every byte the programs print;
//! * [`haskell`] — GHC's `reads` and `show`, which reading and writing
//!   share;
//! * [`explain`] — why the answer is what it is (`--explain`), after it;
//! * [`shell`] — the suite's one I/O shell, shared by every program:
//!   inputs, Luxi, RAPI, jobs, locks, the clock, explanation files, exit
//!   statuses;
//! * [`program`] — each command: its options and how it runs the stages;
//! * [`threads`] — how many threads the stages may use (no stage of its
//!   own: it uses none).
//!
//! Dependencies point one way (`read → model ← score ← search → write`,
//! `explain` above `search`, `shell` above all of them, taking the
//! programs' settings, and `program` above the shell); `tests/layers/`
//! fails when a lower stage uses a higher one. `ARCHITECTURE.md` has the
//! map and the rules.

pub(crate) mod explain;
pub mod haskell;
pub(crate) mod model;
pub mod program;
pub mod read;
pub(crate) mod score;
pub(crate) mod search;
pub mod shell;
pub mod threads;
pub(crate) mod write;
