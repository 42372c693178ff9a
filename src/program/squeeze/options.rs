//! hsqueeze's command line for `hailstone-squeeze`: hsqueeze's options in
//! hsqueeze's order (the options themselves are
//! [`crate::program::cli`]'s), plus `-I` (an iallocator request as the
//! cluster, as hbal has it), `--explain`, `--explain-format`, `--report`,
//! `--print-cost`, `--resync-rate` and `--migration-bandwidth`; no
//! arguments.
//!
//! `-L[SOCKET]` reads a live cluster over Luxi
//! (`shell::plan::read_cluster`); `-X` submits the plan's jobs through
//! Luxi (with `-L`; otherwise the run ends as hsqueeze's, with an error
//! after the plan).

pub use crate::program::cli::Exit;
pub use crate::program::cli::Options;
use crate::program::cli::{take, take_as, take_own, take_own_as, Opt, Program};
use crate::write::manual::{ExitStatus, Manual};

/// hsqueeze's command line.
pub const COMMAND_LINE: Program = Program {
    name: "hailstone-squeeze",
    original: "hsqueeze",
    synopsis: "[OPTION...]",
    options: &[
        take(Opt::Luxi),
        take(Opt::TextData),
        take_own(Opt::IallocSrc),
        take(Opt::Exec),
        take(Opt::MinimalResources),
        take(Opt::TargetResources),
        take_as(
            Opt::Save,
            "save the cluster before (FILE.original) and after the plan (FILE.squeezed) as data files",
        ),
        take(Opt::PrintCommands),
        take(Opt::Verbose),
        take(Opt::NoHeaders),
        take(Opt::StaticKvmNodeMemory),
        take(Opt::Version),
        take(Opt::Help),
        take(Opt::HelpCompletion),
        take_own_as(
            Opt::Explain,
            "explain why each node is powered off or kept, on stderr or in the file PATH",
        ),
        take_own(Opt::ExplainFormat),
        take_own(Opt::GanetiVersion),
        take_own(Opt::Json),
        take_own_as(
            Opt::Report,
            "also write the plan as a self-contained HTML page to FILE: the nodes to power off or on, each node's memory, disk, vCPUs and spindles before and after, the score's components, the moves and what they cost (the normal output is unchanged)",
        ),
        take_own(Opt::PrintCost),
        take_own(Opt::ResyncRate),
        take_own(Opt::MigrationBandwidth),
    ],
    arguments: "",
    flag_values: false,
    manual: Manual {
        summary: "power Ganeti nodes off and on as hsqueeze 3.0.2 does",
        description: &[
            "Reads the cluster from a Ganeti cluster data file (-t), a live cluster over Luxi (-L) or an iallocator request (-I). When every node keeps at least --target-resources standard instances free after moving the instances of some nodes away, it prints those nodes to power off; when a node has less than --minimal-resources free, it prints the standby nodes (offline, tagged htools:standby:...) to power on. -C prints the commands (the moves, the tags, the power commands), -X carries them out (with -L).",
            "--json prints one JSON document instead of the text: the decision, the nodes and the moves with their commands and what each costs, and the plan's cost.",
            "--print-cost adds what the moves cost before the commands: the disk data their replacements resync, the memory their live migrations copy, their counts, their job sets and an estimated time at --resync-rate and --migration-bandwidth (--json, --explain and --report always carry it). Powering nodes off or on and tagging them copy nothing and are left out of the time.",
            "On a cluster of several groups the plan, as hsqueeze's, balances all nodes as one group: a move may take an instance into a group whose instance policy Ganeti then refuses it by (its disk template or specs; -X stops at that job), or leave it with its primary and secondary in different groups; a node that only holds forthcoming instances looks empty and may be powered off. --explain and --json name each such caution; the plan is left as hsqueeze makes it.",
        ],
        exit_status: &[
            (ExitStatus::Done, "the plan was printed (also when there is nothing to do), or carried out with -X"),
            (ExitStatus::Failed, "bad input, a cluster that cannot be read, a file that cannot be written, or with -X a job that failed; with --json nothing on stdout; also, as hsqueeze exits, arguments given to it or a bad value of one of hsqueeze's options (a bad value of an option only hailstone has is a usage error)"),
            (ExitStatus::Usage, "an unknown or ambiguous option, a missing value, or a bad value of --explain-format, --ganeti-version, --resync-rate or --migration-bandwidth"),
        ],
        examples: &[
            ("hailstone-squeeze -L -C", "which nodes could be powered off now, and the commands"),
            ("hailstone-squeeze -L --minimal-resources=2 --target-resources=3 -X", "keep between 2 and 3 standard instances free on every node, powering nodes off or on"),
        ],
        files: &[],
        decides: crate::program::cli::decides::squeeze,
    },
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
    /// line, with `-I`, `--explain`, `--explain-format`, `--report` and the
    /// cost's options added.
    #[test]
    fn help_rows_are_hsqueezes() {
        let text = COMMAND_LINE.usage();
        let rows: Vec<&str> = text.lines().skip(2).take_while(|l| !l.is_empty()).collect();
        assert_eq!(rows.len(), 22);
        assert_eq!(
            rows[4],
            "              --minimal-resources=FACTOR  bring standby nodes online when some online node could not host one more instance of FACTOR times the policy's standard spec (memory, CPUs, spindles) [2.0]"
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
