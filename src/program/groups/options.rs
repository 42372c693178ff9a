//! `hailstone-groups`' command line: the operation (`check`, `repair`,
//! `compress` or `balance`) and its options, in the htools style (GetOpt
//! with Ganeti's messages and exit codes, as the other planners).
//!
//! The outcomes are checked in this order: GetOpt errors (exit 2), option
//! value errors (exit 1), `--help`, `--version`, `--help-completion`
//! (stdout, exit 0), then the operation (exit 1 when missing, unknown or
//! followed by other arguments).

use std::ffi::OsString;

use crate::haskell::read::{read_double, read_int};
pub use crate::program::getopt::Exit;
use crate::program::getopt::{self, ArgKind, OptDescr};

/// The program name.
pub const PROGRAM: &str = "hailstone-groups";

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

/// The options of one run, after value conversion.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub operation: Operation,
    /// `-t FILE`: the cluster data file.
    pub text_data: Option<String>,
    /// `-I FILE`: an iallocator request as the cluster.
    pub ialloc_src: Option<String>,
    /// `-L[SOCKET]`: the Luxi socket of a live cluster (as hbal's).
    pub luxi: Option<String>,
    /// `-m ADDRESS`: a live cluster's RAPI or `file://DIR` (as hbal's).
    pub master: Option<String>,
    /// `--static-kvm-node-memory` (as hbal's; only a live KVM cluster is
    /// affected).
    pub static_kvm_node_memory: i64,
    /// `-G GROUP`: the group to repair or balance.
    pub group: Option<String>,
    /// `--evacuate`: with compress, the plan that empties the group that
    /// frees the most.
    pub evacuate: bool,
    /// `-C[FILE]`: the commands, to stdout (`-`) or to a script FILE.
    pub print_commands: Option<String>,
    /// `-S FILE`: save the cluster before (`FILE.original`) and after the
    /// plan (`FILE.repaired`, `FILE.compressed`, `FILE.balanced`).
    pub save: Option<String>,
    /// `--ignore-soft-errors`.
    pub ignore_soft_errors: bool,
    /// `-e`: balance: the score above the optimum below which a group is
    /// balanced enough.
    pub min_score: f64,
    /// `--explain[=PATH]`: the detailed account, on stderr (`None` inside)
    /// or in the file PATH.
    pub explain: Option<Option<String>>,
    /// `--explain-format=text|json`.
    pub explain_format: crate::explain::Format,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            operation: Operation::Check,
            text_data: None,
            ialloc_src: None,
            luxi: None,
            master: None,
            static_kvm_node_memory: 4096,
            group: None,
            evacuate: false,
            print_commands: None,
            save: None,
            ignore_soft_errors: false,
            min_score: 1e-9,
            explain: None,
            explain_format: crate::explain::Format::Text,
        }
    }
}

/// Parses the command line (without `argv[0]`).
///
/// # Errors
///
/// The [`Exit`] to take instead of running.
pub fn parse(args: &[OsString]) -> Result<Options, Exit> {
    let mut fold = Fold::default();
    let version = || getopt::program_version(PROGRAM, "the htools of Ganeti");
    let non_options = getopt::parse_with(
        OPTIONS,
        args,
        &mut fold,
        &usage(),
        version,
        "choices=check,repair,compress,balance 1 1\n",
    )?;
    let words: Vec<String> = non_options
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut o = fold.options;
    o.operation = match words.as_slice() {
        [one] => match one.as_str() {
            "check" => Operation::Check,
            "repair" => Operation::Repair,
            "compress" => Operation::Compress,
            "balance" => Operation::Balance,
            other => {
                return Err(getopt::error_exit(&format!(
                    "Unknown operation '{other}': use check, repair, compress or balance."
                )))
            }
        },
        [] => {
            return Err(getopt::error_exit(
                "No operation given: use check, repair, compress or balance.",
            ))
        }
        _ => {
            return Err(getopt::error_exit(
                "Exactly one operation is taken: check, repair, compress or balance.",
            ))
        }
    };
    if o.group.is_some() && !matches!(o.operation, Operation::Repair | Operation::Balance) {
        return Err(getopt::error_exit(
            "-G/--group chooses the group to repair or balance; it does not apply to check or compress.",
        ));
    }
    if o.evacuate && o.operation != Operation::Compress {
        return Err(getopt::error_exit("--evacuate applies to compress only."));
    }
    Ok(o)
}

/// The help text.
pub fn usage() -> String {
    let header = format!(
        "{PROGRAM} version {}\nUsage: {PROGRAM} check|repair|compress|balance [OPTION...]",
        env!("CARGO_PKG_VERSION")
    );
    getopt::usage(&header, OPTIONS)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OptId {
    TextData,
    IallocSrc,
    Master,
    Luxi,
    StaticKvmNodeMemory,
    Group,
    Evacuate,
    PrintCommands,
    Save,
    IgnoreSoftErrors,
    MinScore,
    Explain,
    ExplainFormat,
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

const OPTIONS: &[OptDescr<OptId>] = &[
    opt(OptId::TextData, Some('t'), "text-data", ArgKind::Req("FILE"), "the cluster data FILE", "file"),
    opt(OptId::IallocSrc, Some('I'), "ialloc-src", ArgKind::Req("FILE"), "Specify an iallocator spec as the cluster data source", "file"),
    opt(OptId::Master, Some('m'), "master", ArgKind::Req("ADDRESS"), "collect data via RAPI at the given ADDRESS", "host"),
    opt(OptId::Luxi, Some('L'), "luxi", ArgKind::Opt("SOCKET"), "collect data via Luxi, optionally using the given SOCKET path [/var/run/ganeti/socket/ganeti-query]", "file"),
    opt(OptId::StaticKvmNodeMemory, None, "static-kvm-node-memory", ArgKind::Req("N"), "use static node memory [in MB] on KVM instead of value reported by hypervisor. Use 0 to take value reported from hypervisor.", "integer"),
    opt(OptId::Group, Some('G'), "group", ArgKind::Req("ID"), "the node group to repair or balance (name or UUID)", "onegroup"),
    opt(OptId::Evacuate, None, "evacuate", ArgKind::No, "compress: plan the emptying of the group that frees the most", "none"),
    opt(OptId::PrintCommands, Some('C'), "print-commands", ArgKind::Opt("FILE"), "print the ganeti command list for reaching the solution, if an argument is passed then write the commands to a file named as such", "none"),
    opt(OptId::Save, Some('S'), "save", ArgKind::Req("FILE"), "Save cluster state before (FILE.original) and after the plan (FILE.repaired, FILE.compressed, FILE.balanced)", "none"),
    opt(OptId::IgnoreSoftErrors, None, "ignore-soft-errors", ArgKind::Flag, "ignore soft errors (policy violations other than the disk template) when balancing", "none"),
    opt(OptId::MinScore, Some('e'), "min-score", ArgKind::Req("EPSILON"), "balance: a group within EPSILON of its optimal score is balanced enough", "none"),
    opt(OptId::Explain, None, "explain", ArgKind::Opt("PATH"), "explain the plan (group health, each instance's search), on stderr or in the file PATH", "none"),
    opt(OptId::ExplainFormat, None, "explain-format", ArgKind::Req("FORMAT"), "format of the explanation: text (default) or json", "choices=text,json"),
    opt(OptId::Version, Some('V'), "version", ArgKind::No, "show the version of the program", "none"),
    opt(OptId::Help, Some('h'), "help", ArgKind::No, "show help", "none"),
    opt(OptId::HelpCompletion, None, "help-completion", ArgKind::No, "show completion info", "none"),
];

#[derive(Debug, Default)]
struct Fold {
    options: Options,
    help: bool,
    version: bool,
    completion: bool,
}

impl getopt::Fold<OptId> for Fold {
    fn asked(&self) -> (bool, bool, bool) {
        (self.help, self.version, self.completion)
    }

    fn apply(&mut self, id: OptId, value: Option<&str>) -> Result<(), String> {
        let text = value.unwrap_or("");
        let o = &mut self.options;
        match id {
            OptId::TextData => o.text_data = Some(text.to_owned()),
            OptId::IallocSrc => o.ialloc_src = Some(text.to_owned()),
            OptId::Master => o.master = Some(text.to_owned()),
            OptId::Luxi => {
                o.luxi = Some(
                    value
                        .unwrap_or(crate::program::luxi::DEFAULT_SOCKET)
                        .to_owned(),
                );
            }
            OptId::StaticKvmNodeMemory => {
                o.static_kvm_node_memory =
                    read_int(text).map_err(|e| e.message("static node memory", text))?;
            }
            OptId::Group => o.group = Some(text.to_owned()),
            OptId::Evacuate => o.evacuate = true,
            OptId::PrintCommands => o.print_commands = Some(value.unwrap_or("-").to_owned()),
            OptId::Save => o.save = Some(text.to_owned()),
            OptId::IgnoreSoftErrors => {
                o.ignore_soft_errors = getopt::flag_value("ignore-soft-errors", value)?;
            }
            OptId::MinScore => {
                o.min_score = read_double(text).map_err(|e| e.message("min score", text))?;
            }
            OptId::Explain => o.explain = Some(getopt::explain_target(value)?),
            OptId::ExplainFormat => o.explain_format = getopt::explain_format(text)?,
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

    #[test]
    fn operation_and_options() {
        let o = run(&["repair", "-t", "f", "-G", "g1", "-C", "-S", "s"]).unwrap();
        assert_eq!(o.operation, Operation::Repair);
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
        assert_eq!(o.static_kvm_node_memory, 0);
        let o = run(&["compress", "--evacuate", "--ignore-soft-errors=yes"]).unwrap();
        assert!(o.evacuate && o.ignore_soft_errors);
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
