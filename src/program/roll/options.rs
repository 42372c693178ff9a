//! hroller's command line for `hailstone-roll`: hroller's options in
//! hroller's order (the options themselves are [`crate::program::cli`]'s),
//! plus `--shared-storage-movable` and `-X` with its settings; no
//! arguments.

pub use crate::program::cli::Exit;
pub use crate::program::cli::Options;
use crate::program::cli::{take, take_as, take_own, take_own_as, Opt, Program};
use crate::write::manual::{ExitStatus, Manual};

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
        take_as(
            Opt::Save,
            "save the cluster as read (FILE.original) as a data file",
        ),
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
        take_own(Opt::SharedStorageMovable),
        take_own_as(Opt::Exec, "carry out the reboot groups via Luxi, one after the other: evacuate, reboot (see --reboot-command), wait for the nodes, bring the instances back"),
        take_own(Opt::RebootCommand),
        take_own(Opt::Reason),
        take_own(Opt::Priority),
        take_own(Opt::GanetiVersion),
        take_own(Opt::Json),
        take_own(Opt::PrintCost),
        take_own(Opt::ResyncRate),
        take_own(Opt::MigrationBandwidth),
    ],
    arguments: "",
    flag_values: false,
    manual: Manual {
        summary: "plan rolling reboots of Ganeti nodes as hroller 3.0.2 does",
        description: &[
            "Reads the cluster from a Ganeti cluster data file (-t), a live cluster over Luxi (-L) or RAPI (-m) or an iallocator request (-I) and prints the groups of nodes that can be rebooted together (no two nodes of a group hold the two halves of a drbd instance, or primaries of instances sharing a secondary), largest first and the master last, each split so that its non-redundant instances can move to other nodes of their group; --full-evacuation also migrates the drbd instances away and replaces the secondaries, --print-moves prints the moves, --one-step-only only the first group. Choose the nodes with --node-tags, -G, --skip-non-redundant; --offline-maintenance pretends every instance is off. --json prints one JSON document instead of the text.",
            "With -L, -X carries the groups out one after the other: evacuates the nodes of their running instances, reboots them with --reboot-command (or waits for the operator), waits until Ganeti reaches them, resynchronises the drbd disks and brings every instance back; it never reboots the master node.",
            "--print-cost adds, after the groups, what carrying them out costs (--json gives it per group and in all): the jobs -X submits for each group, its evacuation and then its return, each a job set, with the memory their live migrations copy, the disk data their new secondaries resync and gnt-instance move copies, and an estimated time at --resync-rate and --migration-bandwidth. The resync after a reboot copies only what was written meanwhile, which no input says: it is not counted. A group -X would refuse has no cost.",
        ],
        exit_status: &[
            (ExitStatus::Done, "the reboot groups were printed, or carried out with -X"),
            (ExitStatus::Failed, "bad input, groups that cannot be cleared, or with -X a job or reboot that failed (what is left to do is said on stderr); also, as hroller exits, arguments given to it or a bad value of one of hroller's options (a bad value of an option only hailstone has is a usage error)"),
            (ExitStatus::Usage, "an unknown or ambiguous option, a missing value, or a bad value of --priority, --ganeti-version, --resync-rate or --migration-bandwidth"),
        ],
        examples: &[
            ("hailstone-roll -L --full-evacuation --print-moves", "the reboot groups of the local cluster, with every instance moved away first"),
            ("hailstone-roll -L -X --reboot-command=/usr/local/sbin/reboot-node", "carry the reboots out, running the command with each node's name"),
        ],
        files: &[],
        decides: crate::program::cli::decides::roll,
    },
};

/// The name printed wherever hroller prints its own.
pub const PROGRAM: &str = COMMAND_LINE.name;

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    /// hroller 3.0.2's options, in its order (texts that say what each does).
    /// hroller's abbreviations keep their meaning beside hailstone's own
    /// options (`--print` was `--print-moves` before `--print-cost`).
    #[test]
    fn hrollers_abbreviations_keep_their_meaning() {
        let args: Vec<std::ffi::OsString> = ["--print", "--full", "--one"]
            .iter()
            .map(std::ffi::OsString::from)
            .collect();
        let (o, _) = crate::program::cli::parse(&COMMAND_LINE, &args).unwrap();
        assert!(o.roll.print_moves && !o.print_cost);
        // Only hailstone's own (--reboot-command, --reason, --resync-rate):
        // still ambiguous.
        let args = [std::ffi::OsString::from("--re=x")];
        assert!(crate::program::cli::parse(&COMMAND_LINE, &args).is_err());
    }

    #[test]
    fn help_rows_are_hrollers() {
        let text = COMMAND_LINE.usage();
        let rows: Vec<&str> = text.lines().skip(2).take_while(|l| !l.is_empty()).collect();
        assert_eq!(rows.len(), 32);
        assert_eq!(
            rows[5],
            "              --offline-maintenance       plan reboots for offline maintenance: take every instance as shut down, so no instance needs to move"
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
