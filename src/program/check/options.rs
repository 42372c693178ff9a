//! hcheck's command line for `hailstone-check`: hcheck's options in
//! hcheck's order (the options themselves are [`crate::program::cli`]'s),
//! plus `--true-counts`; no arguments.

pub use crate::program::cli::Exit;
pub use crate::program::cli::Options;
use crate::program::cli::{take, take_own, take_own_as, Opt, Program};
use crate::write::manual::{ExitStatus, Manual};

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
        take_own(Opt::TrueCounts),
        take_own_as(
            Opt::Report,
            "also write the check as a self-contained HTML page to FILE: each group's counts before and after the simulated rebalancing, the unhealthy nodes and why, each node's memory, disk, vCPUs and spindles (the normal output is unchanged)",
        ),
        take_own(Opt::GanetiVersion),
        take_own(Opt::Json),
    ],
    arguments: "",
    flag_values: false,
    manual: Manual {
        summary: "check the node groups of a Ganeti cluster for N+1 redundancy as hcheck 3.0.2 does",
        description: &[
            "Reads the cluster from a Ganeti cluster data file (-t), a live cluster over Luxi (-L) or RAPI (-m) or an iallocator request (-I) and prints, for each node group and the whole cluster, the online nodes failing N+1, the nodes with conflicting primary instances, the instances on offline nodes and the nodes that could not be evacuated (the global N+1 check), before and after a simulated rebalancing, for people or with --machine-readable as HCHECK_ shell variables, or with --json as one JSON document.",
            "--true-counts corrects the two counting faults of hcheck and names, for each node that cannot be evacuated, the instance that cannot leave it.",
            "The verdict is hcheck's, so it may differ from hailstone-groups check's, which judges a group by what moving instances between groups repairs: both count the nodes failing N+1 and the instances on offline nodes alike, but here the cluster also needs rebalancing for an offline node that hosts nothing (hcheck counts the offline nodes), for primaries sharing an exclusion tag and for a node the global N+1 check cannot evacuate. A cluster with a split instance (its secondary node in another group than its primary) is refused with the capacity checks on, where hcheck 3.0.2 dies, and passed over with --no-capacity-checks; hailstone-groups check reports it as a problem of the primary's group.",
        ],
        exit_status: &[
            (ExitStatus::Done, "no problem found (or --no-simulation)"),
            (ExitStatus::Failed, "bad input, a cluster that cannot be read or a file that cannot be written (an error on stderr, nothing on stdout); also, as hcheck exits, when the cluster needs rebalancing (the report is on stdout: hailstone-groups check gives 3 for an unhealthy group), and arguments given to it or a bad value of one of hcheck's options"),
            (ExitStatus::Usage, "an unknown or ambiguous option, a missing value, or a bad value of --ganeti-version"),
        ],
        examples: &[
            ("hailstone-check -L", "the local cluster's N+1 health (exit status 1 when it needs rebalancing)"),
            ("hailstone-check -L --machine-readable", "the figures as HCHECK_ keys, for scripts"),
            ("hailstone-check -t cluster.data --true-counts -v", "the true counts, and why each node cannot be evacuated"),
        ],
        files: &[],
        decides: crate::program::cli::decides::check,
    },
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

    /// hcheck 3.0.2's help rows, in its order, before hailstone's own.
    #[test]
    fn help_rows_are_hchecks() {
        let text = COMMAND_LINE.usage();
        let rows: Vec<&str> = text.lines().skip(2).take_while(|l| !l.is_empty()).collect();
        assert_eq!(rows.len(), 32);
        assert_eq!(
            rows[0],
            "  -t FILE     --text-data=FILE             the cluster data FILE"
        );
        assert_eq!(
            rows[18],
            "              --no-simulation              do not perform rebalancing simulation"
        );
        assert!(rows[28].starts_with("              --true-counts "));
        assert!(rows[29].starts_with("              --report=FILE "));
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
