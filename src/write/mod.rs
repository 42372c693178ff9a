//! Writing: the bytes hailstone prints, as Ganeti's programs print them.
//!
//! * Owns: the iallocator answer envelope and result JSON ([`answer`]),
//!   the derived `show` of records ([`records`]), Ganeti's opcodes as JSON
//!   ([`opcodes`]).
//! * May use: the model (to write a record it describes) and the Haskell
//!   renderings of [`crate::haskell`].
//! * Must never: read input, score or search; decide anything.

pub mod answer;
pub mod balance;
pub(crate) mod nodes;
pub mod opcodes;
pub mod records;
pub(crate) mod table;
pub(crate) mod text;
