//! hscan's command line for `hailstone-scan`: hscan's options in hscan's
//! order (the options themselves are [`crate::program::cli`]'s); the
//! arguments are the RAPI addresses of the clusters to scan (none: the
//! local cluster over Luxi).

use std::ffi::OsString;

pub use crate::program::cli::Exit;
pub use crate::program::cli::Options;
use crate::program::cli::{self, take, take_as, take_own_as, Opt, Program};
use crate::write::manual::{ExitStatus, Manual};

/// hscan's command line.
pub const COMMAND_LINE: Program = Program {
    name: "hailstone-scan",
    original: "hscan",
    synopsis: "[OPTION...] [CLUSTER...]",
    options: &[
        take_as(
            Opt::PrintNodes,
            "print each cluster's node table after its line (FIELDS: the columns, comma-separated; +FIELD,... adds to the default ones)",
        ),
        take(Opt::OutputDir),
        take(Opt::Luxi),
        take(Opt::Verbose),
        take(Opt::NoHeaders),
        take(Opt::StaticKvmNodeMemory),
        take(Opt::Version),
        take(Opt::Help),
        take(Opt::HelpCompletion),
        take_own_as(
            Opt::GanetiVersion,
            "follow Ganeti VERSION's hscan: 3.0 (3.0.2, default) or 3.1 (3.1.0: a node's initial N+1 state from its unallocated memory; the data file saved as corrected, with --static-kvm-node-memory's memory)",
        ),
    ],
    arguments: "host 0 none\n",
    flag_values: false,
    manual: Manual {
        summary: "save live Ganeti clusters as cluster data files as hscan 3.0.2 does",
        description: &[
            "Reads each cluster named on the command line over RAPI (a host name, an https address, or file://DIRECTORY with the four RAPI replies), or without arguments the local cluster over Luxi (-L, as LOCAL), prints one summary line per cluster (nodes, instances, nodes and instances failing N+1, memory, disk, score; -p adds the node table) and writes each as a Ganeti cluster data file NAME.data in the directory of -d (default the current one), for hailstone-balance -t and the other programs.",
        ],
        exit_status: &[
            (ExitStatus::Done, "every cluster was read and saved"),
            (ExitStatus::Failed, "a data file cannot be written or the Luxi socket cannot be reached; also, as hscan exits, a bad value of one of hscan's options"),
            (ExitStatus::Usage, "an unknown or ambiguous option, a missing value, or a bad value of --ganeti-version; also, as hscan exits, a cluster that could not be read (the others are saved)"),
        ],
        examples: &[
            ("hailstone-scan -d /var/tmp/clusters cluster1.example.com", "save cluster1 over RAPI as /var/tmp/clusters/cluster1.example.com.data"),
            ("hailstone-scan -L", "save the local cluster as LOCAL.data"),
        ],
        files: &[],
    },
};

/// The name printed wherever hscan prints its own.
pub const PROGRAM: &str = COMMAND_LINE.name;

/// Parses the command line (without `argv[0]`): the options and the
/// clusters named.
///
/// # Errors
///
/// The [`Exit`] hscan would take instead of running.
pub fn parse(args: &[OsString]) -> Result<(Options, Vec<String>), Exit> {
    let (options, arguments) = cli::parse(&COMMAND_LINE, args)?;
    let clusters = arguments
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    Ok((options, clusters))
}

/// The help text.
pub fn usage() -> String {
    COMMAND_LINE.usage()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// hscan 3.0.2's help rows, in its order.
    #[test]
    fn help_rows_are_hscans() {
        let text = usage();
        let rows: Vec<&str> = text.lines().skip(2).take_while(|l| !l.is_empty()).collect();
        assert_eq!(rows.len(), 10);
        assert_eq!(
            rows[1],
            "  -d PATH     --output-dir=PATH           directory in which to write output files"
        );
    }

    #[test]
    fn clusters_and_directory() {
        let args: Vec<OsString> = ["-d", "/tmp/out", "c1", "--no-headers", "c2"]
            .iter()
            .map(OsString::from)
            .collect();
        let (o, clusters) = parse(&args).unwrap();
        assert_eq!(o.output_dir, "/tmp/out");
        assert!(o.no_headers);
        assert_eq!(clusters, vec!["c1".to_owned(), "c2".to_owned()]);
    }
}
