//! `hailstone-groups`' command line: the operation (`check`, `repair`,
//! `compress` or `balance`) and its options (the options themselves are
//! [`crate::program::cli`]'s).
//!
//! After Ganeti's checks ([`cli::parse`]) comes the operation and the
//! options that apply to some operations only: a usage error (exit 2,
//! with the nearest operation to a misspelt one) when the operation is
//! missing, unknown or followed by other arguments, or an option does not
//! apply to it.

use std::ffi::OsString;

use crate::program::cli::getopt::usage_error;
use crate::program::cli::suggest;
pub use crate::program::cli::Exit;
pub use crate::program::cli::Options;
use crate::program::cli::{self, take_own, take_own_as, Opt, Program};
use crate::write::manual::{ExitStatus, Manual};

/// The program's command line.
pub const COMMAND_LINE: Program = Program {
    name: "hailstone-groups",
    original: "the htools of Ganeti",
    synopsis: "check|repair|compress|balance [OPTION...]",
    options: &[
        take_own(Opt::TextData),
        take_own(Opt::IallocSrc),
        take_own(Opt::Master),
        take_own(Opt::Luxi),
        take_own(Opt::StaticKvmNodeMemory),
        take_own_as(Opt::Group, "the node group to repair or balance (name or UUID)"),
        take_own(Opt::Evacuate),
        take_own(Opt::PrintCommands),
        take_own_as(
            Opt::Save,
            "Save cluster state before (FILE.original) and after the plan (FILE.repaired, FILE.compressed, FILE.balanced)",
        ),
        take_own_as(
            Opt::IgnoreSoftErrors,
            "ignore soft errors (policy violations other than the disk template) when balancing",
        ),
        take_own_as(
            Opt::MinScore,
            "balance: a group within EPSILON of its optimal score is balanced enough [1e-9]",
        ),
        take_own_as(
            Opt::Explain,
            "explain the plan (group health, each instance's search), on stderr or in the file PATH",
        ),
        take_own(Opt::ExplainFormat),
        take_own_as(
            Opt::Report,
            "also write the operation as a self-contained HTML page to FILE: its report, each group's nodes, instances and score before and after the plan, the moves, each node's memory, disk, vCPUs and spindles (the normal output is unchanged)",
        ),
        take_own(Opt::Version),
        take_own(Opt::Help),
        take_own(Opt::HelpCompletion),
        take_own(Opt::GanetiVersion),
        take_own(Opt::Json),
        take_own(Opt::PrintCost),
        take_own(Opt::ResyncRate),
        take_own(Opt::MigrationBandwidth),
    ],
    arguments: "choices=check,repair,compress,balance 1 1\n",
    flag_values: true,
    manual: Manual {
        summary: "check, repair, compress and balance a Ganeti cluster across node groups",
        description: &[
            "Reads the cluster from a Ganeti cluster data file (-t), a live cluster over Luxi (-L) or RAPI (-m), or an iallocator request (-I), and runs one operation:",
            "check: each node group's health (healthy; weakly unhealthy: online nodes fail N+1, or a split instance: its primary node in the group, its secondary node in another group; unhealthy: offline nodes host instances) and which groups share storage; exits with status 3 when a group is not healthy.",
            "check judges a group by what moving instances between groups repairs, so its verdict may differ from hailstone-check's, which is hcheck 3.0.2's: both count the nodes failing N+1 and the instances on offline nodes alike, but hailstone-check also finds that the cluster needs rebalancing for an offline node that hosts nothing (hcheck counts the offline nodes), for primaries sharing an exclusion tag and for a node its global N+1 check cannot evacuate (problems hcheck leaves to a rebalancing within the group: hailstone-balance); and it refuses a cluster with a split instance (hcheck dies on one with its capacity checks on, and passes it over without them), which check reports.",
            "repair: moves the instances that make groups unhealthy into healthy groups sharing their storage; a group alone in its storage is named with what repairs it within itself (hailstone-balance -G GROUP --evac-mode).",
            "compress: which groups could be emptied into the others; with --evacuate, the plan that empties the one freeing the most.",
            "balance: every group's score, and the worst group that can improve balanced as hailstone-balance would (-G chooses the group).",
            "-C prints the plan's gnt-instance commands; -S FILE saves the cluster before (FILE.original) and after the plan (FILE.repaired, FILE.compressed, FILE.balanced) for hailstone-check -t. --json prints one JSON document instead of the text.",
            "repair, compress --evacuate and balance say what their plan costs in --json, --explain and --report, and with --print-cost in the text, after the report and before the commands: the disk data its replacements resync, the memory its live migrations copy, their counts, the job sets and an estimated time at --resync-rate and --migration-bandwidth. check and compress without --evacuate plan nothing (their cost is null).",
        ],
        exit_status: &[
            (ExitStatus::Done, "the report or plan was printed; for check, every group is healthy; for repair, every unhealthy group was repaired; for compress --evacuate, a group can be emptied"),
            (ExitStatus::Failed, "bad input, a cluster that cannot be read or a file that cannot be written (an error on stderr, nothing on stdout)"),
            (ExitStatus::Usage, "no operation or an unknown one, an option the operation does not take, an unknown or ambiguous option, a missing or bad value"),
            (ExitStatus::Findings, "check found a group that is not healthy, repair left a group unhealthy, or compress --evacuate found no group that can be emptied (the report is on stdout)"),
        ],
        examples: &[
            ("hailstone-groups check -L", "the health of every group (exit status 3 when one is not healthy, 1 when the cluster cannot be read: for cron and monitoring)"),
            ("hailstone-groups repair -L -C", "plan moving instances out of unhealthy groups, with the commands"),
            ("hailstone-groups compress -t cluster.data --evacuate -S after", "plan emptying a group, the cluster after it in after.compressed"),
        ],
        files: &[],
        decides: crate::program::cli::decides::groups,
    },
};

/// What to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Operation {
    /// Each group's health and the storage partitions.
    #[default]
    Check,
    /// Move the problem instances of unhealthy groups into healthy ones.
    Repair,
    /// Find the groups that can be emptied into their peers.
    Compress,
    /// Balance the worst group that can be improved.
    Balance,
}

impl Operation {
    /// Every operation, in the order the help names them.
    pub const ALL: [Operation; 4] = [
        Operation::Check,
        Operation::Repair,
        Operation::Compress,
        Operation::Balance,
    ];

    /// The operations for a sentence.
    const LIST: &'static str = "check, repair, compress or balance";

    /// The operation's word on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Operation::Check => "check",
            Operation::Repair => "repair",
            Operation::Compress => "compress",
            Operation::Balance => "balance",
        }
    }
}

/// A successfully parsed command line.
#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    /// What to do.
    pub operation: Operation,
    /// The settings.
    pub options: Options,
}

/// The name printed wherever the original prints its own.
pub const PROGRAM: &str = COMMAND_LINE.name;

/// Parses the command line (without `argv[0]`).
///
/// # Errors
///
/// The [`Exit`] to take instead of running.
pub fn parse(args: &[OsString]) -> Result<Invocation, Exit> {
    let (options, arguments) = cli::parse(&COMMAND_LINE, args)?;
    let words: Vec<String> = arguments
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let usage = |message: String| Err(usage_error(PROGRAM, &message));
    let operation = match words.as_slice() {
        [one] => match Operation::ALL.iter().find(|op| op.name() == one) {
            Some(op) => *op,
            None => {
                let near = suggest::nearest(one, Operation::ALL.map(Operation::name))
                    .map(|w| format!(" (did you mean {w}?)"))
                    .unwrap_or_default();
                return usage(format!(
                    "unknown operation '{one}'{near}; the operations are {}",
                    Operation::LIST
                ));
            }
        },
        [] => {
            return usage(format!(
                "no operation given; the operations are {}",
                Operation::LIST
            ))
        }
        [_, rest @ ..] => {
            return usage(format!(
            "one operation is taken, then options; '{}' is not an option (the operations are {})",
            rest[0],
            Operation::LIST
        ))
        }
    };
    if options.group.is_some() && !matches!(operation, Operation::Repair | Operation::Balance) {
        return usage(format!(
            "-G/--group chooses the group to repair or balance; {} does not take it",
            operation.name()
        ));
    }
    if options.evacuate && operation != Operation::Compress {
        return usage(format!(
            "--evacuate applies to compress only; {} does not take it",
            operation.name()
        ));
    }
    Ok(Invocation { operation, options })
}

/// The help text.
pub fn usage() -> String {
    COMMAND_LINE.usage()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(list: &[&str]) -> Result<Options, Exit> {
        parse(&list.iter().map(OsString::from).collect::<Vec<_>>()).map(|i| i.options)
    }

    fn operation(list: &[&str]) -> Operation {
        parse(&list.iter().map(OsString::from).collect::<Vec<_>>())
            .map(|i| i.operation)
            .unwrap()
    }

    #[test]
    fn operation_and_options() {
        let o = run(&["repair", "-t", "f", "-G", "g1", "-C", "-S", "s"]).unwrap();
        assert_eq!(operation(&["repair", "-t", "f"]), Operation::Repair);
        assert_eq!(o.group.as_deref(), Some("g1"));
        assert_eq!(o.print_commands.as_deref(), Some("-"));
        let o = run(&["check", "-L", "-m", "file:///d"]).unwrap();
        assert_eq!(
            o.luxi.as_deref(),
            Some("/var/run/ganeti/socket/ganeti-query")
        );
        assert_eq!(o.master.as_deref(), Some("file:///d"));
        let o = run(&["check", "-L/s", "--static-kvm-node-memory=0"]).unwrap();
        assert_eq!(o.luxi.as_deref(), Some("/s"));
        assert_eq!(o.load.static_kvm_node_memory, 0);
        let o = run(&["compress", "--evacuate", "--ignore-soft-errors=yes"]).unwrap();
        assert!(o.evacuate && o.algorithm.soft == crate::model::types::SoftChecks::Ignore);
        for bad in [
            &["-t", "f"][..],
            &["fix"],
            &["check", "repair"],
            &["check", "-G", "g"],
            &["repair", "--evacuate"],
        ] {
            let Err(Exit::Stderr { code, message }) = run(bad) else {
                panic!("{bad:?} accepted")
            };
            assert_eq!(code, 2, "{bad:?}");
            assert!(
                message.ends_with("\nsee hailstone-groups --help\n"),
                "{message}"
            );
            assert_eq!(message.lines().count(), 2, "{message}");
        }
        let Err(Exit::Stderr { message, .. }) = run(&["chek", "-t", "f"]) else {
            panic!("chek accepted")
        };
        assert_eq!(
            message,
            "Error: unknown operation 'chek' (did you mean check?); the operations are check, repair, compress or balance\nsee hailstone-groups --help\n"
        );
        let Err(Exit::Stderr { code, .. }) = run(&["check", "--bogus"]) else {
            panic!("expected a GetOpt error")
        };
        assert_eq!(code, 2);
    }
}
