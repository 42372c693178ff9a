//! hroller's command line for `hailstone-roll`: hroller's options in
//! hroller's order (the options themselves are [`crate::program::cli`]'s),
//! plus `--shared-storage-movable` and `-X` with its settings; no
//! arguments.

pub use crate::program::cli::Exit;
pub use crate::program::cli::Options;
use crate::program::cli::{take, take_as, Opt, Program};

/// hroller's command line.
pub const COMMAND_LINE: Program = Program {
    name: "hailstone-roll",
    original: "hroller",
    synopsis: "[OPTION...]",
    options: &[
        take(Opt::Luxi),
        take(Opt::Master),
        take(Opt::TextData),
        take(Opt::IallocSrc),
        take(Opt::Offline),
        take(Opt::OfflineMaintenance),
        take(Opt::Verbose),
        take(Opt::Quiet),
        take(Opt::NoHeaders),
        take(Opt::NodeTags),
        take(Opt::Save),
        take(Opt::Group),
        take(Opt::PrintMoves),
        take(Opt::FullEvacuation),
        take(Opt::SkipNonRedundant),
        take(Opt::IgnoreNonRedundant),
        take(Opt::Force),
        take(Opt::OneStepOnly),
        take(Opt::StaticKvmNodeMemory),
        take(Opt::Version),
        take(Opt::Help),
        take(Opt::HelpCompletion),
        take(Opt::SharedStorageMovable),
        take_as(Opt::Exec, "carry out the reboot groups via Luxi, one after the other: evacuate, reboot (see --reboot-command), wait for the nodes, bring the instances back"),
        take(Opt::RebootCommand),
        take(Opt::Reason),
        take(Opt::Priority),
        take(Opt::GanetiVersion),
    ],
    arguments: "",
    flag_values: false,
};

/// The name printed wherever hroller prints its own.
pub const PROGRAM: &str = COMMAND_LINE.name;

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    /// hroller 3.0.2's help rows, line for line.
    #[test]
    fn help_rows_are_hrollers() {
        let text = COMMAND_LINE.usage();
        let rows: Vec<&str> = text.lines().skip(2).collect();
        assert_eq!(rows.len(), 28);
        assert_eq!(
            rows[5],
            "              --offline-maintenance       Schedule offline maintenance, i.e., pretend that all instance are offline."
        );
        assert_eq!(
            rows[16],
            "  -f          --force                     force the execution of this program, even if warnings would otherwise prevent it"
        );
    }

    #[test]
    fn switches_and_tags() {
        let args: Vec<OsString> = [
            "--node-tags=a,b",
            "-f",
            "--full-evacuation",
            "--print-moves",
            "--one-step-only",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        let o = COMMAND_LINE.parse_without_arguments(&args).unwrap();
        assert_eq!(o.node_tags, Some(vec!["a".to_owned(), "b".to_owned()]));
        assert!(
            o.roll.force && o.roll.full_evacuation && o.roll.print_moves && o.roll.one_step_only
        );
        assert!(!o.roll.skip_non_redundant && !o.roll.ignore_non_redundant);
    }
}
