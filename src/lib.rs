//! hailstone: a drop-in replacement for Ganeti's `hail` iallocator.
//!
//! The pipeline is parse → model → candidates → score → choose → answer:
//! [`json`] reads the bytes into an order-preserving document tape,
//! [`protocol`] checks it against the iallocator protocol, [`model::loader`] builds the
//! index-based cluster model, [`process`] dispatches the request to the
//! algorithms ([`allocate`], with [`globaln1`], [`moves`] and [`metric`]),
//! and [`answer`] writes hail's envelope. `ARCHITECTURE.md` has the map.

pub mod allocate;
pub mod answer;
pub mod argmin;
pub mod cli;
pub mod dedicated;
pub mod evacuate;
pub mod globaln1;
pub mod hsfmt;
pub mod hslist;
pub mod json;
pub mod metric;
pub mod model;
pub mod moves;
pub mod pipeline;
pub mod process;
pub mod protocol;
pub mod solution;
pub mod state;
