//! hbal's command line for `hailstone-balance`: hbal's options in hbal's
//! order (the options themselves are [`crate::program::cli`]'s), plus
//! `--explain` and `--explain-format`; no arguments.
//!
//! `-L[SOCKET]` (Luxi) and `-m ADDRESS` (RAPI) read a live cluster
//! (`shell::plan::read_cluster`); `-X` submits the plan's jobs through
//! Luxi (with `-L`; otherwise the run ends as hbal's, with an error after
//! the plan); `--mond` applies the monitoring daemons' CPU data
//! (`shell::mond`).

pub use crate::program::cli::Exit;
pub use crate::program::cli::Options;
use crate::program::cli::{take, take_as, take_own, take_own_as, Opt, Program};
use crate::write::manual::{ExitStatus, Manual};

/// hbal's command line.
pub const COMMAND_LINE: Program = Program {
    name: "hailstone-balance",
    original: "hbal",
    synopsis: "[OPTION...]",
    options: &[
        take(Opt::PrintNodes),
        take(Opt::PrintInstances),
        take(Opt::PrintCommands),
        take(Opt::TextData),
        take(Opt::EvacMode),
        take(Opt::RestrictedMigration),
        take(Opt::Master),
        take(Opt::Luxi),
        take(Opt::IallocSrc),
        take(Opt::Exec),
        take(Opt::FirstJobGroup),
        take(Opt::Reason),
        take(Opt::Group),
        take(Opt::MaxLength),
        take(Opt::Verbose),
        take(Opt::Quiet),
        take(Opt::Offline),
        take(Opt::StaticKvmNodeMemory),
        take(Opt::MinScore),
        take(Opt::MaxCpu),
        take(Opt::MinDisk),
        take(Opt::MinGain),
        take(Opt::MinGainLimit),
        take(Opt::NoDiskMoves),
        take(Opt::SelectInstances),
        take(Opt::NoInstanceMoves),
        take(Opt::IgnoreSoftErrors),
        take(Opt::DynuFile),
        take(Opt::IgnoreDynu),
        take(Opt::Mond),
        take(Opt::MondData),
        take(Opt::ExitOnMissingMondData),
        take(Opt::MondXen),
        take(Opt::ExclusionTags),
        take(Opt::ExcludeInstances),
        take_as(
            Opt::Save,
            "save the cluster before (FILE.original) and after balancing (FILE.balanced) as data files",
        ),
        take(Opt::Priority),
        take(Opt::Version),
        take(Opt::Help),
        take(Opt::HelpCompletion),
        take_own_as(
            Opt::Explain,
            "explain the plan (the scores, the limits, why the balancing stopped) on stderr or in the file PATH",
        ),
        take_own(Opt::ExplainFormat),
        take_own(Opt::GanetiVersion),
        take_own(Opt::Json),
        take_own(Opt::Report),
        take_own(Opt::PrintCost),
        take_own(Opt::ResyncRate),
        take_own(Opt::MigrationBandwidth),
        take_own(Opt::MaxCopy),
    ],
    arguments: "",
    flag_values: false,
    manual: Manual {
        summary: "balance a Ganeti node group as hbal 3.0.2 does",
        description: &[
            "Reads the cluster from a Ganeti cluster data file (-t), a live cluster over Luxi (-L) or RAPI (-m), or an iallocator request (-I), chooses a node group (-G, needed when there are several), and prints the moves that lower the cluster score, one line each: the instance, its nodes before and after, the score after the move and the move's kind (a=f failover, r:NODE replace the secondary, ...). It stops when no move lowers the score (or, once the score is below --min-gain-limit, lowers it by less than -g), after -l moves, or within -e of the best score N+1 allows.",
            "-C prints the gnt-instance commands in job sets whose jobs can run side by side; -X submits them over Luxi, one job set after the other. --evac-mode only moves instances off offline and drained nodes. --json prints one JSON document instead of the text: the group, the scores and every move with its nodes, score and commands (/usr/share/doc/hailstone/docs/json.md).",
        ],
        exit_status: &[
            (ExitStatus::Done, "the plan was printed (also when there is nothing to do), or carried out with -X"),
            (ExitStatus::Failed, "bad input, a cluster that cannot be read, a file that cannot be written, or with -X a job that failed; with --json nothing on stdout; also, as hbal exits, arguments given to it or a bad value of one of hbal's options (a bad value of an option only hailstone has is a usage error)"),
            (ExitStatus::Usage, "an unknown or ambiguous option, a missing value, or a bad value of --explain-format, --ganeti-version, --max-copy, --resync-rate or --migration-bandwidth"),
        ],
        examples: &[
            ("hailstone-balance -L -C", "plan on the local cluster (on the master) and print the commands"),
            ("hailstone-balance -t cluster.data -G group1 --evac-mode -C", "plan moving the instances of group1 off its offline and drained nodes"),
            ("hailstone-balance -L -X -l 10", "carry out at most ten moves"),
            ("hailstone-balance -L --json", "the plan as JSON, for a script"),
        ],
        files: &[],
        decides: crate::program::cli::decides::balance,
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

    /// The option rows of the help text are hbal 3.0.2's options in its
    /// order, with corrected texts, then hailstone's own.
    #[test]
    fn help_rows_are_hbals() {
        let text = COMMAND_LINE.usage();
        let rows: Vec<&str> = text.lines().skip(2).take_while(|l| !l.is_empty()).collect();
        assert_eq!(rows.len(), 49);
        assert_eq!(
            rows[0],
            "  -p[FIELDS]  --print-nodes[=FIELDS]       print the node table before and after, on stderr (FIELDS: the columns, comma-separated; +FIELD,... adds to the default ones)"
        );
        assert_eq!(
            rows[18],
            "  -e EPSILON  --min-score=EPSILON          stop once the score is within EPSILON of the best score N+1 allows [1e-9]"
        );
    }

    #[test]
    fn values_and_errors() {
        let o = run(&["-t", "f", "-l5", "-vv", "-q", "-O", "a", "-Ob", "-C"]).unwrap();
        assert_eq!(o.max_length, 5);
        assert_eq!(o.verbose, 2);
        assert_eq!(o.offline, vec!["b".to_owned(), "a".to_owned()]);
        assert_eq!(o.print_commands.as_deref(), Some("-"));
        let Err(Exit::Stderr { code, message }) = run(&["-l", "abc"]) else {
            panic!("expected an error")
        };
        assert_eq!(code, 1);
        assert_eq!(
            message,
            "Error while parsing command line arguments:\nmax solution length: cannot parse string 'abc'\n"
        );
        let Err(Exit::Stderr { message, .. }) = run(&["--max-cpu=0"]) else {
            panic!("expected an error")
        };
        assert!(message.contains("Invalid value of the max-cpu ratio, expected >0"));
        let Err(Exit::Stderr { code, message }) = run(&["x"]) else {
            panic!("expected an error")
        };
        assert_eq!(
            (code, message.as_str()),
            (1, "Error: This program doesn't take any arguments.\n")
        );
        let o = run(&["-L"]).unwrap();
        assert_eq!(
            o.luxi.as_deref(),
            Some("/var/run/ganeti/socket/ganeti-query")
        );
        let o = run(&["--luxi=/s", "-m", "https://u:p@h:5080"]).unwrap();
        assert_eq!(o.luxi.as_deref(), Some("/s"));
        assert_eq!(o.master.as_deref(), Some("https://u:p@h:5080"));
        let o = run(&["-L", "-X", "--priority=low", "--reason=r"]).unwrap();
        assert!(o.exec);
        assert_eq!((o.priority, o.reason.as_deref()), (10, Some("r")));
        let o = run(&[
            "-L",
            "--mond",
            "--mond-data=f",
            "--mond-xen",
            "--ignore-dynu",
        ])
        .unwrap();
        assert!(o.mond && o.mond_xen && o.ignore_dynu);
        assert_eq!(o.mond_data.as_deref(), Some("f"));
        assert!(!run(&["-L", "--mond", "--mond=no"]).unwrap().mond);
    }
}
