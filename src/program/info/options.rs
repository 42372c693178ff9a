//! hinfo's command line for `hailstone-info`: hinfo's options in hinfo's
//! order (the options themselves are [`crate::program::cli`]'s); no
//! arguments.

pub use crate::program::cli::Exit;
pub use crate::program::cli::Options;
use crate::program::cli::{take, take_as, take_own, take_own_as, Opt, Program};
use crate::write::manual::{ExitStatus, Manual};

/// hinfo's command line.
pub const COMMAND_LINE: Program = Program {
    name: "hailstone-info",
    original: "hinfo",
    synopsis: "[OPTION...]",
    options: &[
        take_as(
            Opt::PrintNodes,
            "print the node table on stderr (FIELDS: the columns, comma-separated; +FIELD,... adds to the default ones)",
        ),
        take_as(Opt::PrintInstances, "print the instance map on stderr"),
        take(Opt::TextData),
        take(Opt::Master),
        take(Opt::Luxi),
        take(Opt::IallocSrc),
        take(Opt::Verbose),
        take(Opt::Quiet),
        take(Opt::Offline),
        take(Opt::IgnoreDynu),
        take(Opt::Mond),
        take(Opt::MondData),
        take(Opt::StaticKvmNodeMemory),
        take(Opt::Version),
        take(Opt::Help),
        take(Opt::HelpCompletion),
        take_own_as(
            Opt::Report,
            "also write the summary as a self-contained HTML page to FILE: each group's nodes, instances, N+1 failures and score, each node's memory, disk, vCPUs and spindles, the score's components (the normal output is unchanged)",
        ),
        take_own(Opt::GanetiVersion),
        take_own(Opt::Json),
    ],
    arguments: "",
    flag_values: false,
    manual: Manual {
        summary: "summarise a Ganeti cluster as hinfo 3.0.2 does",
        description: &[
            "Reads the cluster from a Ganeti cluster data file (-t), a live cluster over Luxi (-L) or RAPI (-m) or an iallocator request (-I) and prints its size, the instances split between node groups, the nodes, instances, N+1 failures and score of each group (-v -v), the instance map (--print-instances) and node table (-p) on stderr, and the score of the cluster with its components.",
            "--json prints one JSON document instead of the text, with the same figures (docs/json.md).",
        ],
        exit_status: &[
            (ExitStatus::Done, "the summary was printed"),
            (ExitStatus::Failed, "bad input, a cluster that cannot be read or a file that cannot be written; also, as hinfo exits, arguments given to it or a bad value of one of hinfo's options (a bad value of an option only hailstone has is a usage error)"),
            (ExitStatus::Usage, "an unknown or ambiguous option, a missing value, or a bad value of --ganeti-version"),
        ],
        examples: &[
            ("hailstone-info -L -v -v", "the local cluster and each group's figures"),
            ("hailstone-info -t cluster.data -p", "with the node table"),
        ],
        files: &[],
        decides: crate::program::cli::decides::info,
    },
};

/// The name printed wherever hinfo prints its own.
pub const PROGRAM: &str = COMMAND_LINE.name;

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    /// hinfo 3.0.2's options, in its order, then hailstone's own.
    #[test]
    fn help_rows_are_hinfos() {
        let text = COMMAND_LINE.usage();
        let rows: Vec<&str> = text.lines().skip(2).take_while(|l| !l.is_empty()).collect();
        assert_eq!(rows.len(), 19);
        assert_eq!(
            rows[0],
            "  -p[FIELDS]  --print-nodes[=FIELDS]      print the node table on stderr (FIELDS: the columns, comma-separated; +FIELD,... adds to the default ones)"
        );
        assert_eq!(
            rows[12],
            "              --static-kvm-node-memory=N  use static node memory [in MB] on KVM instead of value reported by hypervisor. Use 0 to take value reported from hypervisor. [4096]"
        );
        assert!(rows[16].starts_with("              --report=FILE "));
    }

    #[test]
    fn arguments_are_refused() {
        let Err(Exit::Stderr { code, message }) =
            COMMAND_LINE.parse_without_arguments(&[OsString::from("x")])
        else {
            panic!("expected an error")
        };
        assert_eq!(
            (code, message.as_str()),
            (1, "Error: This program doesn't take any arguments.\n")
        );
    }
}
