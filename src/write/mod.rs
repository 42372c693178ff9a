//! Writing: every byte hailstone's programs print, as Ganeti's programs
//! print them, from the outcomes the searches return.
//!
//! * Owns: the one JSON writer ([`json`]); the planners' and checkers'
//!   `--json` documents ([`document`]); the text of `--help` after the
//!   options and the man pages ([`manual`]), with the exit-status
//!   convention every program follows ([`exit_status`]); the iallocator answer with its
//!   info text and evacuation jobs ([`iallocator`]); Ganeti's opcodes
//!   ([`opcodes`]) and Luxi requests ([`luxi`]); cluster data files
//!   ([`text`]); text tables and the node table of `-p` ([`table`],
//!   [`nodes`]); htools' stderr notes ([`notes`]); hbal's texts: steps,
//!   moves, commands, job sets, reports ([`balance`]); hsqueeze's
//!   ([`squeeze`]), hspace's ([`space`]),
//!   hcheck's ([`check`]), hinfo's ([`info`]), hscan's ([`scan`]) and hroller's ([`roll`]);
//!   hailstone-groups' report ([`groups`]);
//!   the HTML pages of `--report` ([`report`]); a plan's cost in words
//!   and JSON ([`cost`]).
//! * May use: the model (the records and the response it writes), the
//!   Haskell renderings of [`crate::haskell`], and the searches' outcome
//!   types, never a search function (`tests/layers/`).
//! * Must never: read input, score or search; decide anything.

pub mod balance;
pub mod check;
pub mod cost;
pub mod document;
pub mod exit_status;
pub mod groups;
pub mod iallocator;
pub mod info;
pub mod json;
pub mod luxi;
pub mod manual;
pub(crate) mod nodes;
pub mod notes;
pub mod opcodes;
pub mod repair;
pub mod report;
pub mod roll;
pub mod scan;
pub mod space;
pub mod squeeze;
pub mod table;
pub(crate) mod text;

/// Who hspace's and hcheck's figures are printed for: people (sentences
/// and tables), or scripts (`--machine-readable`: `KEY=value` lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    People,
    Scripts,
}
