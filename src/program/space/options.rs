//! hspace's command line for `hailstone-space`: hspace's options in
//! hspace's order (the options themselves are [`crate::program::cli`]'s),
//! plus `--allocator-model`, `--explain`, `--explain-format` and
//! `--report`; no
//! arguments.

pub use crate::program::cli::Exit;
pub use crate::program::cli::Options;
use crate::program::cli::{take, take_as, take_own, take_own_as, Opt, Program};
use crate::write::manual::{ExitStatus, Manual};

/// hspace's command line.
pub const COMMAND_LINE: Program = Program {
    name: "hailstone-space",
    original: "hspace",
    synopsis: "[OPTION...]",
    options: &[
        take(Opt::PrintNodes),
        take(Opt::TextData),
        take(Opt::DiskTemplate),
        take(Opt::SpindleUse),
        take(Opt::Simulate),
        take(Opt::Master),
        take(Opt::Luxi),
        take(Opt::IallocSrc),
        take(Opt::Verbose),
        take(Opt::Quiet),
        take(Opt::IndependentGroups),
        take(Opt::AcceptExistingErrors),
        take(Opt::Offline),
        take(Opt::NoCapacityChecks),
        take(Opt::MachineReadable),
        take(Opt::MaxCpu),
        take(Opt::MaxLength),
        take(Opt::MinDisk),
        take(Opt::StandardAlloc),
        take(Opt::TieredAlloc),
        take_as(
            Opt::Save,
            "save the cluster after each phase (FILE.tiered, FILE.standard) as data files",
        ),
        take(Opt::StaticKvmNodeMemory),
        take(Opt::Version),
        take(Opt::Help),
        take(Opt::HelpCompletion),
        take_own(Opt::AllocatorModel),
        take_own_as(
            Opt::Explain,
            "explain what stopped each allocation (the resource or the rule, and the node) on stderr or in the file PATH",
        ),
        take_own(Opt::ExplainFormat),
        take_own_as(
            Opt::Report,
            "also write the count as a self-contained HTML page to FILE: how the cluster fills instance after instance, what stopped each phase, each node before and after (with --allocator-model, hspace's count beside it; the normal output is unchanged)",
        ),
        take_own(Opt::GanetiVersion),
        take_own(Opt::Json),
    ],
    arguments: "",
    flag_values: false,
    manual: Manual {
        summary: "count how many instances fit on a Ganeti cluster as hspace 3.0.2 does, or as the allocator would place them",
        description: &[
            "Reads the cluster from a Ganeti cluster data file (-t), a live cluster over Luxi (-L) or RAPI (-m) or an iallocator request (-I), or simulates empty node groups (--simulate), then fills it with new instances: first tiered, starting from the largest size the instance policy allows and shrinking the resource that runs out, then of the standard size (--tiered-alloc and --standard-alloc give other sizes, --disk-template another template), and prints how many fit and what is left, for people or with --machine-readable as HTS_ shell variables; -S FILE saves the cluster after each phase (FILE.tiered, FILE.standard).",
            "With --allocator-model it counts what the allocator itself (hailstone, as hail) would accept, one instance at a time: its choice of group, the global N+1 check for every disk template and the lost-allocations metric on exclusive storage. --json prints the HTS_ keys as one JSON document.",
        ],
        exit_status: &[
            (ExitStatus::Done, "the counts were printed"),
            (ExitStatus::Failed, "bad input, a cluster that cannot be read or a file that cannot be written; also, as hspace exits, arguments given to it or a bad value of one of hspace's options (a bad value of an option only hailstone has is a usage error)"),
            (ExitStatus::Usage, "an unknown or ambiguous option, a missing value, or a bad value of --explain-format or --ganeti-version"),
        ],
        examples: &[
            ("hailstone-space -L", "how many instances of the policy's sizes still fit on the local cluster"),
            ("hailstone-space -t cluster.data --standard-alloc=10240,4096,2 --machine-readable", "how many instances of 10 GiB disk, 4 GiB memory and 2 vCPUs fit, as HTS_ keys"),
            ("hailstone-space --simulate=p,10,2t,256g,32 --disk-template=drbd", "the capacity of ten empty nodes of 2 TiB disk, 256 GiB memory and 32 CPUs"),
        ],
        files: &[],
        decides: crate::program::cli::decides::space,
    },
};

/// The name printed wherever hspace prints its own.
pub const PROGRAM: &str = COMMAND_LINE.name;

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    /// hspace 3.0.2's help rows, in its order, before hailstone's own.
    #[test]
    fn help_rows_are_hspaces() {
        let text = COMMAND_LINE.usage();
        let rows: Vec<&str> = text.lines().skip(2).take_while(|l| !l.is_empty()).collect();
        assert_eq!(
            rows[0],
            "  -p[FIELDS]  --print-nodes[=FIELDS]       print the node table before and after, on stderr (FIELDS: the columns, comma-separated; +FIELD,... adds to the default ones)"
        );
        assert_eq!(
            rows[14],
            "              --machine-readable[=CHOICE]  enable machine readable output (pass either 'yes' or 'no' to explicitly control the flag, or without an argument defaults to yes)"
        );
        assert_eq!(
            rows[24],
            "              --help-completion            show completion info"
        );
    }

    #[test]
    fn values_and_errors() {
        let run = |list: &[&str]| {
            COMMAND_LINE
                .parse_without_arguments(&list.iter().map(OsString::from).collect::<Vec<_>>())
        };
        let o = run(&[
            "--simulate=p,4,8T,64g,16",
            "--machine-readable",
            "--disk-template",
            "drbd",
            "-l",
            "8",
        ])
        .unwrap();
        assert!(o.machine_readable);
        assert_eq!(o.max_length, 8);
        assert_eq!(o.simulate, vec!["p,4,8T,64g,16"]);
        let o = run(&["--standard-alloc=1g,512,2", "--tiered-alloc=10G,1g,4,3"]).unwrap();
        let std = o.std_spec.unwrap();
        assert_eq!((std.dsk, std.mem, std.cpu, std.spn), (1024, 512, 2, 1));
        let t = o.tiered_spec.unwrap();
        assert_eq!((t.dsk, t.mem, t.cpu, t.spn), (9536, 1024, 4, 3));
        for (args, message) in [
            (
                &["--disk-template=foo"][..],
                "Invalid string value for type DiskTemplate: \"foo\"\nthe disk templates are diskless, file, sharedfile, plain, blockdev, drbd, rbd, ext or gluster",
            ),
            (
                &["--standard-alloc=1,2"],
                "Invalid standard specification: '1,2', expected disk,ram,cpu",
            ),
            (
                &["--tiered-alloc=1x,2,3"],
                "tiered specs disk: Unknown unit 'x'",
            ),
            (
                &["--spindle-use=-1"],
                "Invalid value of the spindle-use (expected >= 0)",
            ),
            (
                &["--machine-readable=maybe"],
                "Invalid choice 'maybe', pass one of 'yes' or 'no'",
            ),
        ] {
            let Err(Exit::Stderr {
                code,
                message: text,
            }) = run(args)
            else {
                panic!("{args:?} accepted")
            };
            assert_eq!(code, 1, "{args:?}");
            assert_eq!(
                text,
                format!("Error while parsing command line arguments:\n{message}\n")
            );
        }
    }
}
