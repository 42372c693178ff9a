//! harep's command line for `hailstone-repair`: harep's options in its
//! order (the options themselves are [`crate::program::cli`]'s); no
//! arguments.

pub use crate::program::cli::Exit;
pub use crate::program::cli::Options;
use crate::program::cli::{take, Opt, Program};

/// harep's command line.
pub const COMMAND_LINE: Program = Program {
    name: "hailstone-repair",
    original: "harep",
    synopsis: "[OPTION...]",
    options: &[
        take(Opt::Luxi),
        take(Opt::JobDelay),
        take(Opt::Reason),
        take(Opt::DryRun),
        take(Opt::Version),
        take(Opt::Help),
        take(Opt::HelpCompletion),
    ],
    arguments: "",
    flag_values: false,
};

/// The name printed wherever harep prints its own.
pub const PROGRAM: &str = COMMAND_LINE.name;

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    /// harep 3.0.2's help rows, line for line.
    #[test]
    fn help_rows_are_hareps() {
        let text = COMMAND_LINE.usage();
        let rows: Vec<&str> = text.lines().skip(2).collect();
        assert_eq!(
            rows,
            [
                "  -L[SOCKET]  --luxi[=SOCKET]      collect data via Luxi, optionally using the given SOCKET path [/var/run/ganeti/socket/ganeti-query]",
                "              --job-delay=SECONDS  insert this much delay before the execution of repair jobs to allow the tool to continue processing instances",
                "              --reason=REASON      The reason to pass to the submitted jobs",
                "              --dry-run            do not execute any commands and just report what would be done",
                "  -V          --version            show the version of the program",
                "  -h          --help               show help",
                "              --help-completion    show completion info",
            ]
        );
    }

    #[test]
    fn delay_and_dry_run() {
        let parse = |a: &[&str]| {
            let args: Vec<OsString> = a.iter().map(OsString::from).collect();
            crate::program::cli::parse(&COMMAND_LINE, &args).map(|(o, _)| o)
        };
        let o = parse(&[]).unwrap();
        assert!((o.job_delay - 10.0).abs() < f64::EPSILON && !o.dry_run);
        let o = parse(&["--job-delay=2.5", "--dry-run", "--reason=night"]).unwrap();
        assert!((o.job_delay - 2.5).abs() < f64::EPSILON && o.dry_run);
        assert_eq!(o.reason.as_deref(), Some("night"));
        assert!(parse(&["--job-delay=x"]).is_err());
    }
}
