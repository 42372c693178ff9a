//! hailstone's development tools, kept out of the shipped crate.
//!
//! The `hailstone` crate (the allocator and the planners that `make install`
//! puts on a cluster) does not depend on this crate; its tests, the fuzz
//! targets and the `make compat` and `make bench` targets do (the generator
//! has no target of its own: `hailstone-gen`, built by `make build`).
//!
//! * [`generate`] — synthetic iallocator requests from a seed;
//! * [`compat`] — the comparison with the originals (`hailstone-compat`);
//! * [`process`] — running a program capped, timed and measured, and an
//!   ordered thread pool; [`cases`] — case files and command lines;
//! * [`oracle`] — finding (and installing) the original Ganeti programs;
//! * [`budget`] — `hailstone-balance --max-copy` against hbal's plan cut at
//!   the same data budget.
//!
//! Every tool's command line is clap's (derive API).
//!
//! The binaries are `hailstone-gen` (the generator's command line),
//! `hailstone-compat` (the comparison with the originals),
//! `hailstone-bench` (timings against them) and `hailstone-budget` (what a
//! data budget buys); the bench `benches/deps`
//! (`make bench-deps`) holds hailstone's own JSON reader, second reading
//! thread and hasher against maintained crates.

pub mod bench;
pub mod budget;
pub mod cases;
pub mod compat;
pub mod generate;
pub mod oracle;
pub mod process;
