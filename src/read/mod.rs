//! Reading: turns what Ganeti hands over into the [model](crate::model).
//!
//! * Owns: the JSON parser ([`json`]), the iallocator message on the wire
//!   ([`iallocator`]) and the loader that builds the model from it
//!   ([`loader`]); cluster data files ([`text`]); a live cluster's Luxi
//!   and RAPI replies ([`live`]); every input error, named by where it is.
//! * May use: the model.
//! * Must never: score, search or print; let a wire type out of this folder
//!   (the rest of the crate sees only the model).

pub mod iallocator;
pub mod json;
pub(crate) mod live;
pub(crate) mod loader;
pub(crate) mod merge;
pub(crate) mod select;
pub(crate) mod simulate;
pub(crate) mod split;
pub(crate) mod text;
