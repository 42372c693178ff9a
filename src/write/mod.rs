//! Writing: the bytes hailstone prints, as Ganeti's programs print them.
//!
//! * Owns: the iallocator answer envelope and result JSON ([`answer`]),
//!   Text.JSON's string escaping ([`json`]) and Haskell's number and string
//!   formatting (`show`, `printf "%.8f"`) that hail's texts are made of
//!   ([`haskell`]), Ganeti's opcodes as JSON ([`opcodes`]).
//! * May use: the model (to write a record it describes). It is the lowest
//!   stage but the model: reading quotes names in its errors with it, the
//!   search builds hail's texts with it.
//! * Must never: read input, score or search; decide anything.

pub mod answer;
pub mod balance;
pub mod haskell;
pub mod json;
pub(crate) mod nodes;
pub mod opcodes;
pub(crate) mod table;
pub(crate) mod text;
