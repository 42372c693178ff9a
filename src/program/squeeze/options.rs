//! hsqueeze's command line for `hailstone-squeeze`: hsqueeze's options in
//! hsqueeze's order (the options themselves are
//! [`crate::program::cli`]'s), plus `-I` (an iallocator request as the
//! cluster, as hbal has it), `--explain` and `--explain-format`; no
//! arguments.
//!
//! `-L[SOCKET]` reads a live cluster over Luxi
//! (`program::plan::read_cluster`); `-X` submits the plan's jobs through
//! Luxi (with `-L`; otherwise the run ends as hsqueeze's, with an error
//! after the plan).

pub use crate::program::cli::Exit;
pub use crate::program::cli::Options;
use crate::program::cli::{take, take_as, Opt, Program};

/// hsqueeze's command line.
pub const COMMAND_LINE: Program = Program {
    name: "hailstone-squeeze",
    original: "hsqueeze",
    synopsis: "[OPTION...]",
    options: &[
        take(Opt::Luxi),
        take(Opt::TextData),
        take(Opt::IallocSrc),
        take(Opt::Exec),
        take(Opt::MinimalResources),
        take(Opt::TargetResources),
        take(Opt::Save),
        take(Opt::PrintCommands),
        take(Opt::Verbose),
        take(Opt::NoHeaders),
        take(Opt::StaticKvmNodeMemory),
        take(Opt::Version),
        take(Opt::Help),
        take(Opt::HelpCompletion),
        take_as(
            Opt::Explain,
            "explain why each node is powered off or kept, on stderr or in the file PATH",
        ),
        take(Opt::ExplainFormat),
        take(Opt::GanetiVersion),
    ],
    arguments: "",
    flag_values: false,
};

/// The name printed wherever the original prints its own.
pub const PROGRAM: &str = COMMAND_LINE.name;

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn run(list: &[&str]) -> Result<Options, Exit> {
        COMMAND_LINE.parse_without_arguments(&list.iter().map(OsString::from).collect::<Vec<_>>())
    }

    /// The option rows of the help text are hsqueeze 3.0.2's, line for
    /// line, with `-I`, `--explain` and `--explain-format` added.
    #[test]
    fn help_rows_are_hsqueezes() {
        let text = COMMAND_LINE.usage();
        let rows: Vec<&str> = text.lines().skip(2).collect();
        assert_eq!(rows.len(), 17);
        assert_eq!(
            rows[4],
            "              --minimal-resources=FACTOR  minimal resources to be present on each in multiples of the standard allocation for not onlining standby nodes"
        );
        assert_eq!(
            rows[9],
            "              --no-headers                do not show a header line"
        );
    }

    #[test]
    fn values_and_errors() {
        let o = run(&["-t", "f", "--targ=1.5", "-vv", "--no-h", "-Cx"]).unwrap();
        assert_eq!(o.target_resources, 1.5);
        assert_eq!(o.minimal_resources, 2.0);
        assert_eq!(o.verbose, 3);
        assert!(o.no_headers);
        assert_eq!(o.print_commands.as_deref(), Some("x"));
        let Err(Exit::Stderr { code, message }) = run(&["--minimal-resources=abc"]) else {
            panic!("expected an error")
        };
        assert_eq!(code, 1);
        assert_eq!(
            message,
            "Error while parsing command line arguments:\nminimal resources: cannot parse string 'abc'\n"
        );
        assert!(run(&["-X", "-L"]).unwrap().exec);
        let Err(Exit::Stderr { code, .. }) = run(&["--bogus"]) else {
            panic!("expected a GetOpt error")
        };
        assert_eq!(code, 2);
    }
}
