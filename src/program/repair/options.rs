//! harep's command line for `hailstone-repair`: harep's options in its
//! order (the options themselves are [`crate::program::cli`]'s); no
//! arguments.

pub use crate::program::cli::Exit;
pub use crate::program::cli::Options;
use crate::program::cli::{take, take_own, Opt, Program};
use crate::write::manual::{ExitStatus, Manual};

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
        take_own(Opt::PrintCost),
        take_own(Opt::ResyncRate),
        take_own(Opt::MigrationBandwidth),
    ],
    arguments: "",
    flag_values: false,
    manual: Manual {
        summary: "repair Ganeti instances on offline nodes as harep 3.0.2 does",
        description: &[
            "Reads the cluster over Luxi (-L) and carries out the auto-repair tags of the instances (ganeti:watcher:autorepair:TYPE on the cluster, a node group or the instance, with ganeti:watcher:autorepair:suspend:[TIME]): the pending repairs whose jobs ended become results, and every drbd or plain instance with an offline node gets, as far as its policy allows, a new secondary (fix-storage), a failover (failover) or its disks recreated and its OS reinstalled (reinstall), recorded in pending and result tags; the new nodes are chosen by the default iallocator of the cluster. --dry-run prints the jobs instead of submitting them; --job-delay waits before each repair so that its tag is set first. Run it from cron on the master, as harep.",
            "--print-cost adds, after the counts, what the repair jobs of this run cost (those it submits, or prints with --dry-run), all in one job set as they are submitted together: a new secondary (fix-storage) resyncs every disk of the instance; a failover off an offline primary copies nothing; a reinstall of a drbd instance recreates its disks on new nodes and the new secondary resyncs them (counted as a disk replacement), of a plain one copies nothing; and an estimated time at --resync-rate and --migration-bandwidth, without the --job-delay before each job and the wait for locks.",
        ],
        exit_status: &[
            (ExitStatus::Done, "the repairs were submitted (or printed, with --dry-run)"),
            (ExitStatus::Failed, "the cluster cannot be read or a job cannot be submitted; also, as harep exits, arguments given to it or a bad value of one of harep's options"),
            (ExitStatus::Usage, "an unknown or ambiguous option, a missing value, or a bad value of --resync-rate or --migration-bandwidth"),
        ],
        examples: &[
            ("hailstone-repair -L --dry-run", "the repairs the tags ask for, without submitting them"),
            ("hailstone-repair -L", "as harep, from cron on the master"),
        ],
        files: &[],
        decides: crate::program::cli::decides::repair,
    },
};

/// The name printed wherever harep prints its own.
pub const PROGRAM: &str = COMMAND_LINE.name;

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    /// harep 3.0.2's options, in its order (texts that say what each
    /// does), then hailstone's own.
    #[test]
    fn help_rows_are_hareps() {
        let text = COMMAND_LINE.usage();
        let rows: Vec<&str> = text.lines().skip(2).take_while(|l| !l.is_empty()).collect();
        assert_eq!(
            rows[..7],
            [
                "  -L[SOCKET]  --luxi[=SOCKET]             collect data via Luxi, optionally using the given SOCKET path [/var/run/ganeti/socket/ganeti-query]",
                "              --job-delay=SECONDS         wait this many seconds before each repair job runs, so that the other instances are processed meanwhile [10]",
                "              --reason=REASON             The reason to pass to the submitted jobs",
                "              --dry-run                   do not execute any commands and just report what would be done",
                "  -V          --version                   show the version of the program",
                "  -h          --help                      show help",
                "              --help-completion           show completion info",
            ]
        );
        let own: Vec<&str> = rows[7..]
            .iter()
            .filter_map(|r| r.split_whitespace().next())
            .collect();
        assert_eq!(
            own,
            [
                "--print-cost",
                "--resync-rate=RATE",
                "--migration-bandwidth=RATE"
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
        let o = parse(&[
            "--print-cost",
            "--resync-rate=1g",
            "--migration-bandwidth=100",
        ])
        .unwrap();
        assert!(o.print_cost);
        assert_eq!((o.rates.resync, o.rates.migration), (1024, 100));
    }
}
