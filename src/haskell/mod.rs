//! GHC's Prelude as Ganeti's programs use it: how text becomes a value
//! ([`read`]: `reads` at `Int`, `Double` and `Bool`, `sepSplit`) and how a
//! value becomes text ([`show`]: `show`, `printf "%.Nf"`; [`json`]:
//! Text.JSON's string literals; [`time`]: dates and `ClockTime`), and
//! [`num`]: `fromIntegral` from `Integer` to `Double`.
//!
//! * Owns: the exact Haskell renderings and readings that both the readers
//!   (option values, data files, error messages quoting names) and the
//!   writers need.
//! * May use: nothing else of the crate (it is the leaf every stage may use).
//! * Must never: know a Ganeti record or a cluster; that is `model`, and the
//!   derived `show` of records is `write::records`.

pub mod json;
pub mod num;
pub mod read;
pub mod show;
pub mod time;
