//! Programs: one module per command, each reading its command line once
//! into typed settings and running the stages with them.
//!
//! * Owns: [`hail`] — the iallocator (`hailstone INPUT [OPTIONS]`): its
//!   options, the request pipeline and the dispatch by request type;
//!   [`getopt`], GHC's option scanner that every htools program uses;
//!   [`input`], the request's bytes for `hailstone` (a mapped file or
//!   stdin);
//!   [`datafile`], cluster data files converted and normalised;
//!   [`clock`], calendar dates for file names and reports; the planners'
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
pub mod clock;
pub mod datafile;
pub mod exit;
pub mod groups;
pub mod hail;
pub mod htools;
pub mod info;
pub mod input;
pub mod jobs;
pub mod luxi;
pub mod mond;
pub mod plan;
pub mod rapi;
pub mod repair;
pub mod roll;
pub mod scan;
pub mod source;
pub mod space;
pub mod squeeze;
