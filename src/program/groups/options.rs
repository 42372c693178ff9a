//! `hailstone-groups`' command line: the operation (`check`, `repair`,
//! `compress` or `balance`) and its options (the options themselves are
//! [`crate::program::cli`]'s).
//!
//! After Ganeti's checks ([`cli::parse`]) comes the operation (exit 1 when
//! missing, unknown or followed by other arguments) and the options that
//! apply to some operations only.

use std::ffi::OsString;

use crate::program::cli::getopt::error_exit;
pub use crate::program::cli::Exit;
pub use crate::program::cli::Options;
use crate::program::cli::{self, take, take_as, Opt, Program};
use crate::write::manual::Manual;

/// The program's command line.
pub const COMMAND_LINE: Program = Program {
    name: "hailstone-groups",
    original: "the htools of Ganeti",
    synopsis: "check|repair|compress|balance [OPTION...]",
    options: &[
        take(Opt::TextData),
        take(Opt::IallocSrc),
        take(Opt::Master),
        take(Opt::Luxi),
        take(Opt::StaticKvmNodeMemory),
        take_as(Opt::Group, "the node group to repair or balance (name or UUID)"),
        take(Opt::Evacuate),
        take(Opt::PrintCommands),
        take_as(
            Opt::Save,
            "Save cluster state before (FILE.original) and after the plan (FILE.repaired, FILE.compressed, FILE.balanced)",
        ),
        take_as(
            Opt::IgnoreSoftErrors,
            "ignore soft errors (policy violations other than the disk template) when balancing",
        ),
        take_as(
            Opt::MinScore,
            "balance: a group within EPSILON of its optimal score is balanced enough",
        ),
        take_as(
            Opt::Explain,
            "explain the plan (group health, each instance's search), on stderr or in the file PATH",
        ),
        take(Opt::ExplainFormat),
        take_as(
            Opt::Report,
            "also write the operation as a self-contained HTML page to FILE: its report, each group's nodes, instances and score before and after the plan, the moves, each node's memory, disk, vCPUs and spindles (the normal output is unchanged)",
        ),
        take(Opt::Version),
        take(Opt::Help),
        take(Opt::HelpCompletion),
        take(Opt::GanetiVersion),
        take(Opt::Json),
    ],
    arguments: "choices=check,repair,compress,balance 1 1\n",
    flag_values: true,
    manual: Manual {
        summary: "check, repair, compress and balance a Ganeti cluster across node groups",
        description: &[
            "Reads the cluster from a Ganeti cluster data file (-t), a live cluster over Luxi (-L) or RAPI (-m), or an iallocator request (-I), and runs one operation:",
            "check: each node group's health (healthy; weakly unhealthy: online nodes fail N+1, or a split instance: its primary node in the group, its secondary node in another group; unhealthy: offline nodes host instances) and which groups share storage; exits with status 1 when a group is not healthy.",
            "check judges a group by what moving instances between groups repairs, so its verdict may differ from hailstone-check's, which is hcheck 3.0.2's: both count the nodes failing N+1 and the instances on offline nodes alike, but hailstone-check also finds that the cluster needs rebalancing for an offline node that hosts nothing (hcheck counts the offline nodes), for primaries sharing an exclusion tag and for a node its global N+1 check cannot evacuate (problems hcheck leaves to a rebalancing within the group: hailstone-balance); and it refuses a cluster with a split instance (hcheck dies on one with its capacity checks on, and passes it over without them), which check reports.",
            "repair: moves the instances that make groups unhealthy into healthy groups sharing their storage; a group alone in its storage is named with what repairs it within itself (hailstone-balance -G GROUP --evac-mode).",
            "compress: which groups could be emptied into the others; with --evacuate, the plan that empties the one freeing the most.",
            "balance: every group's score, and the worst group that can improve balanced as hailstone-balance would (-G chooses the group).",
            "-C prints the plan's gnt-instance commands; -S FILE saves the cluster before (FILE.original) and after the plan (FILE.repaired, FILE.compressed, FILE.balanced) for hailstone-check -t. --json prints one JSON document instead of the text.",
        ],
        exit_status: &[
            (0, "the report or plan was printed; for check, every group is healthy"),
            (1, "check found a group that is not healthy (the report is on stdout); or bad input or a cluster that cannot be read (an error on stderr, nothing on stdout)"),
            (2, "the command line is wrong: the error and this help on stderr"),
        ],
        examples: &[
            ("hailstone-groups check -L", "the health of every group (exit status 1 when one is not healthy: for cron and monitoring)"),
            ("hailstone-groups repair -L -C", "plan moving instances out of unhealthy groups, with the commands"),
            ("hailstone-groups compress -t cluster.data --evacuate -S after", "plan emptying a group, the cluster after it in after.compressed"),
        ],
        files: &[],
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
    let operation = match words.as_slice() {
        [one] => match one.as_str() {
            "check" => Operation::Check,
            "repair" => Operation::Repair,
            "compress" => Operation::Compress,
            "balance" => Operation::Balance,
            other => {
                return Err(error_exit(&format!(
                    "Unknown operation '{other}': use check, repair, compress or balance."
                )))
            }
        },
        [] => {
            return Err(error_exit(
                "No operation given: use check, repair, compress or balance.",
            ))
        }
        _ => {
            return Err(error_exit(
                "Exactly one operation is taken: check, repair, compress or balance.",
            ))
        }
    };
    if options.group.is_some() && !matches!(operation, Operation::Repair | Operation::Balance) {
        return Err(error_exit(
            "-G/--group chooses the group to repair or balance; it does not apply to check or compress.",
        ));
    }
    if options.evacuate && operation != Operation::Compress {
        return Err(error_exit("--evacuate applies to compress only."));
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
            let Err(Exit::Stderr { code, .. }) = run(bad) else {
                panic!("{bad:?} accepted")
            };
            assert_eq!(code, 1, "{bad:?}");
        }
        let Err(Exit::Stderr { code, .. }) = run(&["check", "--bogus"]) else {
            panic!("expected a GetOpt error")
        };
        assert_eq!(code, 2);
    }
}
