//! Programs: one module per command, each reading its command line once
//! into typed settings and running the stages with them.
//!
//! * Owns: one folder a program: [`hail`] — the iallocator (`hailstone
//!   INPUT [OPTIONS]`): its options, its shell (with [`hail::input`], the
//!   request's bytes: a mapped file or stdin) and its pure core
//!   ([`hail::pipeline`]); [`balance`], [`squeeze`], [`groups`],
//!   [`space`], [`check`], [`info`], [`scan`], [`roll`], [`repair`],
//!   [`htools`] and [`shadow`]; [`cli`], the command line they all read:
//!   the options, GHC's option scanner ([`cli::getopt`]) and the man
//!   pages' HOW IT DECIDES ([`cli::decides`]); [`PROGRAMS`], their list.
//! * May use: every stage, and [`crate::shell`] for the I/O they share
//!   (inputs, Luxi, RAPI, jobs, locks, the clock, explanation files, exit
//!   statuses). Nothing else in the crate uses a program, but the shell
//!   takes the settings of [`cli`].
//! * Must never: hold an algorithm or a format of its own; a program only
//!   reads options, calls the stages and the shell and maps outcomes to
//!   exit statuses.

pub mod balance;
pub mod check;
pub mod cli;
pub mod groups;
pub mod hail;
pub mod htools;
pub mod info;
pub mod repair;
pub mod roll;
pub mod scan;
pub mod shadow;
pub mod space;
pub mod squeeze;

/// Every program's command line, the allocator first (for the man pages
/// and the tests that check every `--help`).
pub const PROGRAMS: [&cli::Program; 12] = [
    &hail::options::COMMAND_LINE,
    &balance::options::COMMAND_LINE,
    &squeeze::options::COMMAND_LINE,
    &groups::options::COMMAND_LINE,
    &space::options::COMMAND_LINE,
    &check::options::COMMAND_LINE,
    &info::options::COMMAND_LINE,
    &scan::options::COMMAND_LINE,
    &roll::options::COMMAND_LINE,
    &repair::options::COMMAND_LINE,
    &htools::options::COMMAND_LINE,
    &shadow::options::COMMAND_LINE,
];

pub use crate::write::exit_status::ExitStatus;

/// The exit-status convention every program follows, as the Markdown
/// table `docs/json.md` carries (a test keeps the two the same).
pub fn exit_status_table() -> String {
    crate::write::exit_status::markdown()
}

/// The man page of every program: its name and roff text.
pub fn man_pages() -> Vec<(&'static str, String)> {
    let names: Vec<&str> = PROGRAMS.iter().map(|p| p.name).collect();
    PROGRAMS
        .iter()
        .map(|p| (p.name, p.man_page(&names)))
        .collect()
}
