//! hinfo's command line for `hailstone-info`: hinfo's options in hinfo's
//! order (the options themselves are [`crate::program::cli`]'s); no
//! arguments.

pub use crate::program::cli::Exit;
pub use crate::program::cli::Options;
use crate::program::cli::{take, Opt, Program};

/// hinfo's command line.
pub const COMMAND_LINE: Program = Program {
    name: "hailstone-info",
    original: "hinfo",
    synopsis: "[OPTION...]",
    options: &[
        take(Opt::PrintNodes),
        take(Opt::PrintInstances),
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
        take(Opt::GanetiVersion),
    ],
    arguments: "",
    flag_values: false,
};

/// The name printed wherever hinfo prints its own.
pub const PROGRAM: &str = COMMAND_LINE.name;

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    /// hinfo 3.0.2's help rows, line for line.
    #[test]
    fn help_rows_are_hinfos() {
        let text = COMMAND_LINE.usage();
        let rows: Vec<&str> = text.lines().skip(2).collect();
        assert_eq!(rows.len(), 17);
        assert_eq!(
            rows[0],
            "  -p[FIELDS]  --print-nodes[=FIELDS]      print the final node list"
        );
        assert_eq!(
            rows[12],
            "              --static-kvm-node-memory=N  use static node memory [in MB] on KVM instead of value reported by hypervisor. Use 0 to take value reported from hypervisor."
        );
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
