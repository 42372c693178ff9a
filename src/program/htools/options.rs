//! `hailstone-htools`' command line: the operation (`enable`, `disable`
//! or `status`) and `--root` (the options themselves are
//! [`crate::program::cli`]'s).

use std::ffi::OsString;

use crate::program::cli::getopt::usage_error;
use crate::program::cli::suggest;
pub use crate::program::cli::Exit;
pub use crate::program::cli::Options;
use crate::program::cli::{self, take_own, Opt, Program};
use crate::write::manual::{ExitStatus, Manual};

/// The program's command line.
pub const COMMAND_LINE: Program = Program {
    name: "hailstone-htools",
    original: "the htools of Ganeti",
    synopsis: "enable|disable|status [OPTION...]",
    options: &[
        take_own(Opt::Shadow),
        take_own(Opt::Root),
        take_own(Opt::Version),
        take_own(Opt::Help),
        take_own(Opt::HelpCompletion),
    ],
    arguments: "choices=enable,disable,status 1 1\n",
    flag_values: false,
    manual: Manual {
        summary: "run the hailstone programs under the names of the Ganeti htools",
        description: &[
            "Called as hbal, hspace, hsqueeze, hcheck, hinfo, hscan, hroller or harep (a link to it), runs hailstone-balance, hailstone-space, hailstone-squeeze, hailstone-check, hailstone-info, hailstone-scan, hailstone-roll or hailstone-repair with the command line of the original. hailstone-htools enable makes those names in /usr/bin links to it, each original moved aside with dpkg-divert (to NAME.htools) so that package upgrades keep it; hailstone-htools disable puts the originals back; hailstone-htools status says what each name runs. Removing the package puts the originals back.",
            "hailstone-htools enable --shadow is the step before: hbal, hsqueeze, hspace, hcheck, hinfo and hroller become links to hailstone-shadow, which runs the original exactly as it was called (its output, errors, exit status and the jobs of -X unchanged), then, detached, hailstone's program on the state the original read with the same options less -X, and records where the two differ, beside the allocator's records (hailstone-shadow report). For hbal and hsqueeze that state is the original's own -S FILE.original (the wrapper adds a -S in a private folder when none was given, and removes the one note line it causes from the errors it passes on); for the others reading a live cluster, a snapshot taken just before, which the report marks as possibly drifted. harep and hscan stay the originals: harep acts on the cluster and cannot be run twice, hscan's data files are the live state at another moment. The settings (record folder, time limit, how many records) are those of /etc/ganeti/hailstone-shadow.conf.",
        ],
        exit_status: &[
            (ExitStatus::Done, "done (or, called by an htools name, that program's status)"),
            (ExitStatus::Failed, "the names could not be switched (dpkg-divert failed, or a link could not be made)"),
            (ExitStatus::Usage, "no operation or an unknown one, an unknown or ambiguous option"),
        ],
        examples: &[
            ("hailstone-htools enable", "hbal, hcheck, ... run hailstone's programs from now on"),
            ("hailstone-htools enable --shadow", "the originals still run; hailstone's programs run beside them and hailstone-shadow report shows where they differ"),
            ("hailstone-htools status", "what each name runs"),
            ("hailstone-htools disable", "the originals again"),
        ],
        files: &[
            ("/usr/bin/hbal, /usr/bin/hspace, ...", "the htools names it switches"),
            ("/usr/bin/NAME.htools", "an original, moved aside by enable"),
            ("/usr/lib/ganeti/iallocators/hailstone-shadow", "what the names link to after enable --shadow"),
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
/// operation (a usage error, exit status 2, naming the operations).
pub fn parse(args: &[OsString]) -> Result<Invocation, Exit> {
    let (options, arguments) = cli::parse(&COMMAND_LINE, args)?;
    let words: Vec<String> = arguments
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    const WORDS: [(&str, Operation); 3] = [
        ("enable", Operation::Enable),
        ("disable", Operation::Disable),
        ("status", Operation::Status),
    ];
    let list = "enable, disable or status";
    let operation = match words.as_slice() {
        [w] => match WORDS.iter().find(|(word, _)| word == w) {
            Some((_, op)) => *op,
            None => {
                let near = suggest::nearest(w, WORDS.map(|(word, _)| word))
                    .map(|n| format!(" (did you mean {n}?)"))
                    .unwrap_or_default();
                return Err(usage_error(
                    PROGRAM,
                    &format!("unknown operation '{w}'{near}; the operations are {list}"),
                ));
            }
        },
        [] => {
            return Err(usage_error(
                PROGRAM,
                &format!("no operation given; the operations are {list}"),
            ))
        }
        [_, rest @ ..] => {
            return Err(usage_error(
                PROGRAM,
                &format!(
                    "one operation is taken, then options; '{}' is not an option (the operations are {list})",
                    rest[0]
                ),
            ))
        }
    };
    if options.htools_shadow && operation != Operation::Enable {
        return Err(usage_error(
            PROGRAM,
            "--shadow is an option of enable (hailstone-htools enable --shadow)",
        ));
    }
    Ok(Invocation { operation, options })
}
