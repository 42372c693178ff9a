//! `hailstone-htools`' command line: the operation (`enable`, `disable`
//! or `status`) and `--root` (the options themselves are
//! [`crate::program::cli`]'s).

use std::ffi::OsString;

use crate::program::cli::getopt::error_exit;
pub use crate::program::cli::Exit;
pub use crate::program::cli::Options;
use crate::program::cli::{self, take, Opt, Program};

/// The program's command line.
pub const COMMAND_LINE: Program = Program {
    name: "hailstone-htools",
    original: "the htools of Ganeti",
    synopsis: "enable|disable|status [OPTION...]",
    options: &[
        take(Opt::Root),
        take(Opt::Version),
        take(Opt::Help),
        take(Opt::HelpCompletion),
    ],
    arguments: "choices=enable,disable,status 1 1\n",
    flag_values: false,
};

/// The name printed wherever the program prints its own.
pub const PROGRAM: &str = COMMAND_LINE.name;

/// What to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Enable,
    Disable,
    Status,
}

/// The operation and the options.
#[derive(Debug)]
pub struct Invocation {
    pub operation: Operation,
    pub options: Options,
}

/// Reads the command line.
///
/// # Errors
///
/// Ganeti's command-line errors, or a missing, unknown or extra
/// operation (exit status 1).
pub fn parse(args: &[OsString]) -> Result<Invocation, Exit> {
    let (options, arguments) = cli::parse(&COMMAND_LINE, args)?;
    let words: Vec<String> = arguments
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let operation = match words.as_slice() {
        [w] if w == "enable" => Operation::Enable,
        [w] if w == "disable" => Operation::Disable,
        [w] if w == "status" => Operation::Status,
        _ => return Err(error_exit("Give one operation: enable, disable or status.")),
    };
    Ok(Invocation { operation, options })
}
