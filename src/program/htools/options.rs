//! `hailstone-htools`' command line: the operation (`enable`, `disable`
//! or `status`) and `--root` (the options themselves are
//! [`crate::program::cli`]'s).

use std::ffi::OsString;

use crate::program::cli::getopt::error_exit;
pub use crate::program::cli::Exit;
pub use crate::program::cli::Options;
use crate::program::cli::{self, take, Opt, Program};
use crate::write::manual::Manual;

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
    manual: Manual {
        summary: "run the hailstone programs under the names of the Ganeti htools",
        description: &[
            "Called as hbal, hspace, hsqueeze, hcheck, hinfo, hscan, hroller or harep (a link to it), runs hailstone-balance, hailstone-space, hailstone-squeeze, hailstone-check, hailstone-info, hailstone-scan, hailstone-roll or hailstone-repair with the command line of the original. hailstone-htools enable makes those names in /usr/bin links to it, each original moved aside with dpkg-divert (to NAME.htools) so that package upgrades keep it; hailstone-htools disable puts the originals back; hailstone-htools status says what each name runs. Removing the package puts the originals back.",
        ],
        exit_status: &[
            (0, "done (or, called by an htools name, that program's status)"),
            (1, "the names could not be switched (dpkg-divert failed, or a link could not be made): an error on stderr"),
            (2, "the command line is wrong: the error and this help on stderr"),
        ],
        examples: &[
            ("hailstone-htools enable", "hbal, hcheck, ... run hailstone's programs from now on"),
            ("hailstone-htools status", "what each name runs"),
            ("hailstone-htools disable", "the originals again"),
        ],
        files: &[
            ("/usr/bin/hbal, /usr/bin/hspace, ...", "the htools names it switches"),
            ("/usr/bin/NAME.htools", "an original, moved aside by enable"),
        ],
    },
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
