//! Programs: one module per command, each reading its command line once
//! into typed settings and running the stages with them.
//!
//! * Owns: [`hail`] — the iallocator (`hailstone INPUT [OPTIONS]`): its
//!   options, its shell and its pure core ([`hail::pipeline`]);
//!   [`cli::getopt`], GHC's option scanner that every htools program uses;
//!   [`input`], the request's bytes for `hailstone` (a mapped file or
//!   stdin);
//!   [`datafile`], cluster data files converted and normalised;
//!   [`clock`], the one reader of the clock, and file-name stamps;
//!   [`explain_files`], where `--explain=PATH` writes and its rotation; the planners'
//!   live backends' I/O: [`luxi`], a Luxi client on a unix socket, and
//!   [`rapi`], RAPI resources from a directory or fetched by `curl`;
//!   [`jobs`], the planners' `-X`: job sets submitted through Luxi and
//!   waited for; [`mond`], `--mond`: the monitoring daemons' reports.
//! * May use: every stage. Nothing else in the crate uses a program.
//! * Must never: hold an algorithm or a format of its own; a program only
//!   reads options, calls the stages and maps outcomes to exit statuses.

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
