//! Reading: turns what Ganeti hands over into the [model](crate::model).
//!
//! * Owns: the JSON parser ([`json`]), the iallocator message on the wire
//!   ([`iallocator`]) and the loader that builds the model from it
//!   ([`loader`], with the node and instance builders it shares with the
//!   second reading thread, [`build`] and [`split`], and its settings,
//!   [`settings`]); what every backend does to a cluster once read
//!   ([`merge`]); cluster data files ([`text`]); `--simulate` specs
//!   ([`simulate`]); a live cluster's Luxi and RAPI replies ([`live`]);
//!   every input error, named by where it is. No two of its files use each
//!   other, directly or through others (`tests/layers/`).
//! * May use: the model.
//! * Must never: score, search or print; let a wire type out of this folder
//!   (the rest of the crate sees only the model).

pub(crate) mod build;
pub mod iallocator;
pub mod json;
pub(crate) mod live;
pub(crate) mod loader;
pub(crate) mod merge;
pub(crate) mod rebase;
pub(crate) mod select;
pub(crate) mod settings;
pub(crate) mod simulate;
pub(crate) mod split;
pub(crate) mod text;
