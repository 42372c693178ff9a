//! hcheck's command line for `hailstone-check`: hcheck's options in
//! hcheck's order (the options themselves are [`crate::program::cli`]'s),
//! plus `--true-counts`; no arguments.

pub use crate::program::cli::Exit;
pub use crate::program::cli::Options;
use crate::program::cli::{take, Opt, Program};

/// hcheck's command line.
pub const COMMAND_LINE: Program = Program {
    name: "hailstone-check",
    original: "hcheck",
    synopsis: "[OPTION...]",
    options: &[
        take(Opt::TextData),
        take(Opt::NoDiskMoves),
        take(Opt::DynuFile),
        take(Opt::IgnoreDynu),
        take(Opt::EvacMode),
        take(Opt::ExcludeInstances),
        take(Opt::ExclusionTags),
        take(Opt::IallocSrc),
        take(Opt::NoInstanceMoves),
        take(Opt::Luxi),
        take(Opt::MachineReadable),
        take(Opt::MaxCpu),
        take(Opt::MaxLength),
        take(Opt::MinDisk),
        take(Opt::MinGain),
        take(Opt::MinGainLimit),
        take(Opt::MinScore),
        take(Opt::IgnoreSoftErrors),
        take(Opt::NoSimulation),
        take(Opt::Offline),
        take(Opt::Quiet),
        take(Opt::Master),
        take(Opt::SelectInstances),
        take(Opt::NoCapacityChecks),
        take(Opt::Verbose),
        take(Opt::Version),
        take(Opt::Help),
        take(Opt::HelpCompletion),
        take(Opt::TrueCounts),
        take(Opt::GanetiVersion),
    ],
    arguments: "",
    flag_values: false,
};

/// The name printed wherever hcheck prints its own.
pub const PROGRAM: &str = COMMAND_LINE.name;

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn run(list: &[&str]) -> Result<Options, Exit> {
        COMMAND_LINE.parse_without_arguments(&list.iter().map(OsString::from).collect::<Vec<_>>())
    }

    /// hcheck 3.0.2's help rows, line for line, before hailstone's own.
    #[test]
    fn help_rows_are_hchecks() {
        let text = COMMAND_LINE.usage();
        let rows: Vec<&str> = text.lines().skip(2).collect();
        assert_eq!(rows.len(), 30);
        assert_eq!(
            rows[0],
            "  -t FILE     --text-data=FILE             the cluster data FILE"
        );
        assert_eq!(
            rows[18],
            "              --no-simulation              do not perform rebalancing simulation"
        );
        assert!(rows[28].starts_with("              --true-counts "));
    }

    #[test]
    fn values_and_errors() {
        let o = run(&["-t", "f", "--no-simulation", "--machine-readable=no", "-q"]).unwrap();
        assert!(o.no_simulation && !o.machine_readable && !o.true_counts);
        assert_eq!(o.verbose, 0);
        let o = run(&[
            "--machine-readable",
            "--true-counts",
            "--no-capacity-checks",
        ])
        .unwrap();
        assert!(o.machine_readable && o.true_counts && !o.algorithm.capacity_checks);
        let Err(Exit::Stderr { code, message }) = run(&["x"]) else {
            panic!("expected an error")
        };
        assert_eq!(
            (code, message.as_str()),
            (1, "Error: This program doesn't take any arguments.\n")
        );
        let Err(Exit::Stderr { code, .. }) = run(&["--print-nodes"]) else {
            panic!("expected an error")
        };
        assert_eq!(code, 2);
    }
}
