//! hsqueeze's command line for `hailstone-squeeze`: the same options,
//! abbreviations, value messages and exit codes as `hsqueeze` (Ganeti
//! 3.0.2), plus `-I` (an iallocator request as the cluster, as hbal has it).
//!
//! The outcomes are checked in hsqueeze's order: GetOpt errors (exit 2),
//! option value errors in command-line order (exit 1), `--help`,
//! `--version`, `--help-completion` (stdout, exit 0), then extra arguments
//! (exit 1). `-L[SOCKET]` reads a live cluster over Luxi
//! (`program::plan::read_cluster`); `-X` submits the plan's jobs through
//! Luxi (with `-L`; otherwise the run ends as hsqueeze's, with an error
//! after the plan).

use std::ffi::OsString;

use crate::haskell::read::{read_double, read_int};
pub use crate::program::getopt::Exit;
use crate::program::getopt::{self, ArgKind, OptDescr};

/// The program name printed wherever hsqueeze prints `hsqueeze`.
pub const PROGRAM: &str = "hailstone-squeeze";

/// The options of one run, after value conversion (defaults as
/// hsqueeze's).
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// `-t FILE`: the cluster data file.
    pub text_data: Option<String>,
    /// `-I FILE`: an iallocator request as the cluster.
    pub ialloc_src: Option<String>,
    /// `-L[SOCKET]`: the Luxi socket of a live cluster.
    pub luxi: Option<String>,
    /// `--explain[=PATH]` (hailstone only): why each node was powered off
    /// or kept, on stderr (`None` inside) or in the file PATH.
    pub explain: Option<Option<String>>,
    /// `--explain-format=text|json` (hailstone only).
    pub explain_format: crate::explain::Format,
    /// `--minimal-resources`: below this reserve on some node, standby
    /// nodes are powered on (in standard instances).
    pub minimal_resources: f64,
    /// `--target-resources`: the reserve every node keeps after nodes are
    /// powered off (in standard instances).
    pub target_resources: f64,
    /// `-S FILE`: save the cluster before and after.
    pub save: Option<String>,
    /// `-C[FILE]`: the commands, to stdout (`-`) or to a script FILE.
    pub print_commands: Option<String>,
    /// Verbosity: 1, plus one per `-v`.
    pub verbose: i64,
    /// `--no-headers`: no quoted heading line.
    pub no_headers: bool,
    /// `--static-kvm-node-memory` (no effect on data files).
    pub static_kvm_node_memory: i64,
    /// `-X`: carry the plan out through Luxi (needs `-L`).
    pub exec: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            text_data: None,
            ialloc_src: None,
            luxi: None,
            explain: None,
            explain_format: crate::explain::Format::Text,
            minimal_resources: 2.0,
            target_resources: 2.0,
            save: None,
            print_commands: None,
            verbose: 1,
            no_headers: false,
            static_kvm_node_memory: 4096,
            exec: false,
        }
    }
}

/// Parses the command line (without `argv[0]`).
///
/// # Errors
///
/// The [`Exit`] hsqueeze would take instead of running.
pub fn parse(args: &[OsString]) -> Result<Options, Exit> {
    let mut fold = Fold::default();
    let version = || getopt::program_version(PROGRAM, "hsqueeze");
    let non_options = getopt::parse_with(OPTIONS, args, &mut fold, &usage(), version, "")?;
    getopt::planner_checks(&non_options)?;
    Ok(fold.options)
}

/// The help text.
pub fn usage() -> String {
    getopt::program_usage(PROGRAM, OPTIONS)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OptId {
    Luxi,
    TextData,
    IallocSrc,
    Explain,
    ExplainFormat,
    Exec,
    MinimalResources,
    TargetResources,
    Save,
    PrintCommands,
    Verbose,
    NoHeaders,
    StaticKvmNodeMemory,
    Version,
    Help,
    HelpCompletion,
}

const fn opt(
    id: OptId,
    short: Option<char>,
    long: &'static str,
    kind: ArgKind,
    help: &'static str,
    completion: &'static str,
) -> OptDescr<OptId> {
    OptDescr {
        id,
        short,
        long,
        kind,
        help,
        completion,
    }
}

/// hsqueeze's options, in hsqueeze's (help) order, with `-I` after `-t`.
const OPTIONS: &[OptDescr<OptId>] = &[
    opt(OptId::Luxi, Some('L'), "luxi", ArgKind::Opt("SOCKET"), "collect data via Luxi, optionally using the given SOCKET path [/var/run/ganeti/socket/ganeti-query]", "file"),
    opt(OptId::TextData, Some('t'), "text-data", ArgKind::Req("FILE"), "the cluster data FILE", "file"),
    opt(OptId::IallocSrc, Some('I'), "ialloc-src", ArgKind::Req("FILE"), "Specify an iallocator spec as the cluster data source", "file"),
    opt(OptId::Exec, Some('X'), "exec", ArgKind::No, "execute the suggested moves via Luxi (only available when using it for data gathering)", "none"),
    opt(OptId::MinimalResources, None, "minimal-resources", ArgKind::Req("FACTOR"), "minimal resources to be present on each in multiples of the standard allocation for not onlining standby nodes", "float"),
    opt(OptId::TargetResources, None, "target-resources", ArgKind::Req("FACTOR"), "target resources to be left on each node after squeezing in multiples of the standard allocation", "float"),
    opt(OptId::Save, Some('S'), "save", ArgKind::Req("FILE"), "Save cluster state at the end of the processing to FILE", "none"),
    opt(OptId::PrintCommands, Some('C'), "print-commands", ArgKind::Opt("FILE"), "print the ganeti command list for reaching the solution, if an argument is passed then write the commands to a file named as such", "none"),
    opt(OptId::Verbose, Some('v'), "verbose", ArgKind::No, "increase the verbosity level", "none"),
    opt(OptId::NoHeaders, None, "no-headers", ArgKind::No, "do not show a header line", "none"),
    opt(OptId::StaticKvmNodeMemory, None, "static-kvm-node-memory", ArgKind::Req("N"), "use static node memory [in MB] on KVM instead of value reported by hypervisor. Use 0 to take value reported from hypervisor.", "integer"),
    opt(OptId::Version, Some('V'), "version", ArgKind::No, "show the version of the program", "none"),
    opt(OptId::Help, Some('h'), "help", ArgKind::No, "show help", "none"),
    opt(OptId::HelpCompletion, None, "help-completion", ArgKind::No, "show completion info", "none"),
    opt(OptId::Explain, None, "explain", ArgKind::Opt("PATH"), "explain why each node is powered off or kept, on stderr or in the file PATH", "none"),
    opt(OptId::ExplainFormat, None, "explain-format", ArgKind::Req("FORMAT"), "format of the explanation: text (default) or json", "choices=text,json"),
];

#[derive(Debug, Default)]
struct Fold {
    options: Options,
    help: bool,
    version: bool,
    completion: bool,
}

fn double(name: &str, text: &str) -> Result<f64, String> {
    read_double(text).map_err(|e| e.message(name, text))
}

impl getopt::Fold<OptId> for Fold {
    fn asked(&self) -> (bool, bool, bool) {
        (self.help, self.version, self.completion)
    }

    fn apply(&mut self, id: OptId, value: Option<&str>) -> Result<(), String> {
        let text = value.unwrap_or("");
        let o = &mut self.options;
        match id {
            OptId::Luxi => {
                o.luxi = Some(
                    value
                        .unwrap_or(crate::program::luxi::DEFAULT_SOCKET)
                        .to_owned(),
                );
            }
            OptId::TextData => o.text_data = Some(text.to_owned()),
            OptId::IallocSrc => o.ialloc_src = Some(text.to_owned()),
            OptId::ExplainFormat => o.explain_format = getopt::explain_format(text)?,
            OptId::Explain => o.explain = Some(getopt::explain_target(value)?),
            OptId::Exec => o.exec = true,
            OptId::MinimalResources => o.minimal_resources = double("minimal resources", text)?,
            OptId::TargetResources => o.target_resources = double("target resources", text)?,
            OptId::Save => o.save = Some(text.to_owned()),
            OptId::PrintCommands => o.print_commands = Some(value.unwrap_or("-").to_owned()),
            OptId::Verbose => o.verbose += 1,
            OptId::NoHeaders => o.no_headers = true,
            OptId::StaticKvmNodeMemory => {
                o.static_kvm_node_memory =
                    read_int(text).map_err(|e| e.message("static node memory", text))?;
            }
            OptId::Version => self.version = true,
            OptId::Help => self.help = true,
            OptId::HelpCompletion => self.completion = true,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(list: &[&str]) -> Result<Options, Exit> {
        parse(&list.iter().map(OsString::from).collect::<Vec<_>>())
    }

    /// The option rows of the help text are hsqueeze 3.0.2's, line for
    /// line, with `-I`, `--explain` and `--explain-format` added.
    #[test]
    fn help_rows_are_hsqueezes() {
        let text = usage();
        let rows: Vec<&str> = text.lines().skip(2).collect();
        assert_eq!(rows.len(), 16);
        assert_eq!(
            rows[4],
            "              --minimal-resources=FACTOR  minimal resources to be present on each in multiples of the standard allocation for not onlining standby nodes"
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
