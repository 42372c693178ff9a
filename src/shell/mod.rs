//! The suite's one I/O shell: the I/O every program shares, below the
//! programs and above the pure stages.
//!
//! * Owns: [`exit`], how a run ends (Ganeti's stops and exit statuses,
//!   the process entry and panic guard, stderr, files written as a
//!   Haskell program writes them); [`source`], where a planner reads its
//!   cluster (a data file, Luxi, RAPI, a request); [`datafile`], cluster
//!   data files converted and normalised; [`plan`], what the planners
//!   share around a plan (job sets, `-C`); [`clock`], the one reader of
//!   the clock, and file-name stamps; [`explain_files`], where
//!   `--explain=PATH` writes and its rotation; the live backends' I/O:
//!   [`luxi`], a Luxi client on a unix socket, [`rapi`], RAPI resources
//!   from a directory or fetched by `curl`, [`mond`], `--mond`'s
//!   monitoring daemons' reports, [`jobs`], the planners' `-X` (job sets
//!   submitted through Luxi and waited for), and [`lock`], one plan at a
//!   time on a cluster; [`replies`], what these read from the outside as
//!   functions of bytes, for the tests and the fuzz targets.
//! * May use: every stage below `program`, and of `program` only
//!   [`crate::program::cli`], the settings the command line reads
//!   (`tests/layers/`: `shell_uses_only_the_settings_of_program`).
//! * Must never: be used by a stage below `program`; hold an algorithm
//!   (the searches decide) or a report's text (`write` words them; the
//!   shell's own texts are its I/O's: `-X`'s progress, `openFile`
//!   errors). It reads, fetches, submits, waits, saves and ends the run.

pub mod clock;
pub mod datafile;
pub mod exit;
pub mod explain_files;
pub mod jobs;
pub mod lock;
pub mod luxi;
pub mod mond;
pub mod plan;
pub mod rapi;
pub mod replies;
pub mod source;
