//! hbal's command line for `hailstone-balance`: the same options,
//! abbreviations, value messages and exit codes as `hbal` (Ganeti 3.0.2),
//! read once into typed settings.
//!
//! The outcomes are checked in hbal's order: GetOpt errors (exit 2), option
//! value errors in command-line order (exit 1), `--help`, `--version`,
//! `--help-completion` (stdout, exit 0), then extra arguments (exit 1).
//! `-L[SOCKET]` (Luxi) and `-m ADDRESS` (RAPI) read a live cluster
//! (`program::plan::read_cluster`); `-X` submits the plan's jobs through
//! Luxi (with `-L`; otherwise the run ends as hbal's, with an error
//! after the plan); `--mond` applies the monitoring daemons' CPU data
//! (`program::mond`).

use std::ffi::OsString;

use crate::haskell::read::{read_double, read_int, sep_split};
use crate::model::types::SoftChecks;
pub use crate::program::getopt::Exit;
use crate::program::getopt::{self, ArgKind, OptDescr};
use crate::write::nodes::PrintNodes;

/// The program name printed wherever hbal prints `hbal`.
pub const PROGRAM: &str = "hailstone-balance";

/// The options of one run, after value conversion (defaults as hbal's).
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// `-p[FIELDS]`: node tables on stderr before and after.
    pub print_nodes: Option<PrintNodes>,
    /// `--print-instances`: instance maps on stderr before and after.
    pub print_instances: bool,
    /// `-C[FILE]`: the commands, to stdout (`-`) or to a script FILE.
    pub print_commands: Option<String>,
    /// `-t FILE`: the cluster data file.
    pub text_data: Option<String>,
    /// `-I FILE`: an iallocator request as the cluster.
    pub ialloc_src: Option<String>,
    /// `-L[SOCKET]`: the Luxi socket of a live cluster.
    pub luxi: Option<String>,
    /// `-m ADDRESS`: a live cluster's RAPI (or `file://DIR`).
    pub master: Option<String>,
    /// `--explain[=PATH]` (hailstone only): why the balancing stopped, on
    /// stderr (`None` inside) or in the file PATH.
    pub explain: Option<Option<String>>,
    /// `--explain-format=text|json` (hailstone only).
    pub explain_format: crate::explain::Format,
    /// `-E`: move only instances on offline nodes.
    pub evac_mode: bool,
    /// `--restricted-migration`.
    pub restricted_migration: bool,
    /// `--first-job-group`: only the first set of jobs in `-C` and `-X`.
    pub first_job_group: bool,
    /// `-X`: carry the plan out through Luxi (needs `-L`).
    pub exec: bool,
    /// `--reason`: the reason trail text of the submitted jobs.
    pub reason: Option<String>,
    /// `--priority`: the submitted jobs' priority (-10 high, 0 normal,
    /// 10 low).
    pub priority: i32,
    /// `-G`: the node group, by name or UUID.
    pub group: Option<String>,
    /// `-l N`: the most moves; negative for no limit.
    pub max_length: i64,
    /// Verbosity: 1, plus one per `-v`, minus one per `-q`.
    pub verbose: i64,
    /// `-O NODE`, repeatable; the last given first, as hbal keeps them.
    pub offline: Vec<String>,
    /// `--static-kvm-node-memory` (no effect on data files).
    pub static_kvm_node_memory: i64,
    /// `-e`: the score excess over the optimum that is worth balancing.
    pub min_score: f64,
    /// `--max-cpu`: every node's virtual-to-physical CPU ratio.
    pub max_cpu: Option<f64>,
    /// `--min-disk`: the free disk ratio every node keeps.
    pub min_disk: f64,
    /// `-g`.
    pub min_gain: f64,
    /// `--min-gain-limit`.
    pub min_gain_limit: f64,
    /// Not `--no-disk-moves`.
    pub disk_moves: bool,
    /// Not `--no-instance-moves`.
    pub inst_moves: bool,
    /// `--select-instances`: only these move.
    pub select_instances: Vec<String>,
    /// `--exclude-instances`: these never move.
    pub exclude_instances: Vec<String>,
    /// `--ignore-soft-errors`.
    pub soft: SoftChecks,
    /// `-U FILE`: instance utilisation.
    pub dynu_file: Option<String>,
    /// `--ignore-dynu`.
    pub ignore_dynu: bool,
    /// `--mond`, `--mond-data`, `--mond-xen`, `--exit-on-missing-mond-data`
    /// (`ignore_dynu` is copied in after the scan).
    pub mond: crate::program::mond::MondOptions,
    /// `--exclusion-tags`: exclusion tag prefixes (each gets a `:`).
    pub exclusion_tags: Option<Vec<String>>,
    /// `-S FILE`: save the cluster before and after.
    pub save: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            print_nodes: None,
            print_instances: false,
            print_commands: None,
            text_data: None,
            ialloc_src: None,
            luxi: None,
            master: None,
            explain: None,
            explain_format: crate::explain::Format::Text,
            evac_mode: false,
            restricted_migration: false,
            first_job_group: false,
            exec: false,
            reason: None,
            priority: 0,
            group: None,
            max_length: -1,
            verbose: 1,
            offline: Vec::new(),
            static_kvm_node_memory: 4096,
            min_score: 1e-9,
            max_cpu: None,
            min_disk: 0.0,
            min_gain: 0.01,
            min_gain_limit: 0.1,
            disk_moves: true,
            inst_moves: true,
            select_instances: Vec::new(),
            exclude_instances: Vec::new(),
            soft: SoftChecks::Enforce,
            dynu_file: None,
            ignore_dynu: false,
            mond: crate::program::mond::MondOptions::default(),
            exclusion_tags: None,
            save: None,
        }
    }
}

/// Parses the command line (without `argv[0]`).
///
/// # Errors
///
/// The [`Exit`] hbal would take instead of running.
pub fn parse(args: &[OsString]) -> Result<Options, Exit> {
    let mut fold = Fold::default();
    let version = || getopt::program_version(PROGRAM, "hbal");
    let non_options = getopt::parse_with(OPTIONS, args, &mut fold, &usage(), version, "")?;
    getopt::planner_checks(&non_options)?;
    let mut options = fold.options;
    options.mond.ignore_dynu = options.ignore_dynu;
    Ok(options)
}

/// The help text.
pub fn usage() -> String {
    getopt::program_usage(PROGRAM, OPTIONS)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OptId {
    PrintNodes,
    PrintInstances,
    PrintCommands,
    TextData,
    EvacMode,
    RestrictedMigration,
    Master,
    Luxi,
    IallocSrc,
    Explain,
    ExplainFormat,
    Exec,
    FirstJobGroup,
    Reason,
    Group,
    MaxLength,
    Verbose,
    Quiet,
    Offline,
    StaticKvmNodeMemory,
    MinScore,
    MaxCpu,
    MinDisk,
    MinGain,
    MinGainLimit,
    NoDiskMoves,
    SelectInstances,
    NoInstanceMoves,
    IgnoreSoftErrors,
    DynuFile,
    IgnoreDynu,
    Mond,
    MondData,
    ExitOnMissingMondData,
    MondXen,
    ExclusionTags,
    ExcludeInstances,
    Save,
    Priority,
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

/// hbal's options, in hbal's (help) order.
const OPTIONS: &[OptDescr<OptId>] = &[
    opt(OptId::PrintNodes, Some('p'), "print-nodes", ArgKind::Opt("FIELDS"), "print the final node list", "none"),
    opt(OptId::PrintInstances, None, "print-instances", ArgKind::No, "print the final instance map", "none"),
    opt(OptId::PrintCommands, Some('C'), "print-commands", ArgKind::Opt("FILE"), "print the ganeti command list for reaching the solution, if an argument is passed then write the commands to a file named as such", "none"),
    opt(OptId::TextData, Some('t'), "text-data", ArgKind::Req("FILE"), "the cluster data FILE", "file"),
    opt(OptId::EvacMode, Some('E'), "evac-mode", ArgKind::No, "enable evacuation mode, where the algorithm only moves instances away from offline and drained nodes", "none"),
    opt(OptId::RestrictedMigration, None, "restricted-migration", ArgKind::No, "disallow replace-primary moves (aka frf-moves); in evacuation mode, this will ensure that the only migrations are off the drained nodes", "none"),
    opt(OptId::Master, Some('m'), "master", ArgKind::Req("ADDRESS"), "collect data via RAPI at the given ADDRESS", "host"),
    opt(OptId::Luxi, Some('L'), "luxi", ArgKind::Opt("SOCKET"), "collect data via Luxi, optionally using the given SOCKET path [/var/run/ganeti/socket/ganeti-query]", "file"),
    opt(OptId::IallocSrc, Some('I'), "ialloc-src", ArgKind::Req("FILE"), "Specify an iallocator spec as the cluster data source", "file"),
    opt(OptId::Exec, Some('X'), "exec", ArgKind::No, "execute the suggested moves via Luxi (only available when using it for data gathering)", "none"),
    opt(OptId::FirstJobGroup, None, "first-job-group", ArgKind::No, "only execute the first group of jobs", "none"),
    opt(OptId::Reason, None, "reason", ArgKind::Req("REASON"), "The reason to pass to the submitted jobs", "none"),
    opt(OptId::Group, Some('G'), "group", ArgKind::Req("ID"), "the target node group (name or UUID)", "onegroup"),
    opt(OptId::MaxLength, Some('l'), "max-length", ArgKind::Req("N"), "cap the solution at this many balancing or allocation rounds (useful for very unbalanced clusters or empty clusters)", "integer"),
    opt(OptId::Verbose, Some('v'), "verbose", ArgKind::No, "increase the verbosity level", "none"),
    opt(OptId::Quiet, Some('q'), "quiet", ArgKind::No, "decrease the verbosity level", "none"),
    opt(OptId::Offline, Some('O'), "offline", ArgKind::Req("NODE"), "set node as offline", "onenode"),
    opt(OptId::StaticKvmNodeMemory, None, "static-kvm-node-memory", ArgKind::Req("N"), "use static node memory [in MB] on KVM instead of value reported by hypervisor. Use 0 to take value reported from hypervisor.", "integer"),
    opt(OptId::MinScore, Some('e'), "min-score", ArgKind::Req("EPSILON"), "mininum excess to the N+1 limit to aim for", "float"),
    opt(OptId::MaxCpu, None, "max-cpu", ArgKind::Req("RATIO"), "maximum virtual-to-physical cpu ratio for nodes (from 0 upwards) [default read from cluster]", "float"),
    opt(OptId::MinDisk, None, "min-disk", ArgKind::Req("RATIO"), "minimum free disk space for nodes (between 0 and 1) [0]", "float"),
    opt(OptId::MinGain, Some('g'), "min-gain", ArgKind::Req("DELTA"), "minimum gain to aim for in a balancing step before giving up", "float"),
    opt(OptId::MinGainLimit, None, "min-gain-limit", ArgKind::Req("SCORE"), "minimum cluster score for which we start checking the min-gain", "float"),
    opt(OptId::NoDiskMoves, None, "no-disk-moves", ArgKind::No, "disallow disk moves from the list of allowed instance changes, thus allowing only the 'cheap' failover/migrate operations", "none"),
    opt(OptId::SelectInstances, None, "select-instances", ArgKind::Req("INSTS"), "only select given instances for any moves", "manyinstances"),
    opt(OptId::NoInstanceMoves, None, "no-instance-moves", ArgKind::No, "disallow instance (primary node) moves from the list of allowed, instance changes, thus allowing only slower, but sometimes safer, drbd secondary changes", "none"),
    opt(OptId::IgnoreSoftErrors, None, "ignore-soft-errors", ArgKind::No, "Ignore any soft restrictions in balancing", "none"),
    opt(OptId::DynuFile, Some('U'), "dynu-file", ArgKind::Req("FILE"), "Import dynamic utilisation data from the given FILE", "file"),
    opt(OptId::IgnoreDynu, None, "ignore-dynu", ArgKind::No, "Ignore any dynamic utilisation information", "none"),
    opt(OptId::Mond, None, "mond", ArgKind::Opt("CHOICE"), "pass either 'yes' or 'no' to query all monDs", "choices=yes,no"),
    opt(OptId::MondData, None, "mond-data", ArgKind::Req("FILE"), "Import data provided by MonDs from the given FILE", "file"),
    opt(OptId::ExitOnMissingMondData, None, "exit-on-missing-mond-data", ArgKind::No, "abort if the data available from the monitoring daemons is incomplete", "none"),
    opt(OptId::MondXen, None, "mond-xen", ArgKind::No, "also consider xen-specific collectors in MonD queries", "none"),
    opt(OptId::ExclusionTags, None, "exclusion-tags", ArgKind::Req("TAG,..."), "Enable instance exclusion based on given tag prefix", "string"),
    opt(OptId::ExcludeInstances, None, "exclude-instances", ArgKind::Req("INSTS"), "exclude given instances from any moves", "manyinstances"),
    opt(OptId::Save, Some('S'), "save", ArgKind::Req("FILE"), "Save cluster state at the end of the processing to FILE", "none"),
    opt(OptId::Priority, None, "priority", ArgKind::Req("PRIO"), "set the priority of submitted jobs", "choices=low,normal,high"),
    opt(OptId::Version, Some('V'), "version", ArgKind::No, "show the version of the program", "none"),
    opt(OptId::Help, Some('h'), "help", ArgKind::No, "show help", "none"),
    opt(OptId::HelpCompletion, None, "help-completion", ArgKind::No, "show completion info", "none"),
    opt(OptId::Explain, None, "explain", ArgKind::Opt("PATH"), "explain the plan (the scores, the limits, why the balancing stopped) on stderr or in the file PATH", "none"),
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
            OptId::PrintNodes => o.print_nodes = Some(PrintNodes::from_option(text)),
            OptId::PrintInstances => o.print_instances = true,
            OptId::PrintCommands => o.print_commands = Some(value.unwrap_or("-").to_owned()),
            OptId::TextData => o.text_data = Some(text.to_owned()),
            OptId::EvacMode => o.evac_mode = true,
            OptId::RestrictedMigration => o.restricted_migration = true,
            OptId::Master => o.master = Some(text.to_owned()),
            OptId::Luxi => {
                o.luxi = Some(
                    value
                        .unwrap_or(crate::program::luxi::DEFAULT_SOCKET)
                        .to_owned(),
                );
            }
            OptId::IallocSrc => o.ialloc_src = Some(text.to_owned()),
            OptId::ExplainFormat => o.explain_format = getopt::explain_format(text)?,
            OptId::Explain => o.explain = Some(getopt::explain_target(value)?),
            OptId::Exec => o.exec = true,
            OptId::FirstJobGroup => o.first_job_group = true,
            OptId::Reason => o.reason = Some(text.to_owned()),
            OptId::Group => o.group = Some(text.to_owned()),
            OptId::MaxLength => {
                o.max_length =
                    read_int(text).map_err(|e| e.message("max solution length", text))?;
            }
            OptId::Verbose => o.verbose += 1,
            OptId::Quiet => o.verbose -= 1,
            OptId::Offline => o.offline.insert(0, text.to_owned()),
            OptId::StaticKvmNodeMemory => {
                o.static_kvm_node_memory =
                    read_int(text).map_err(|e| e.message("static node memory", text))?;
            }
            OptId::MinScore => o.min_score = double("min score", text)?,
            OptId::MaxCpu => {
                let v = double("parsing max-cpu", text)?;
                if v <= 0.0 {
                    return Err("Invalid value of the max-cpu ratio, expected >0".to_owned());
                }
                o.max_cpu = Some(v);
            }
            OptId::MinDisk => o.min_disk = double("min free disk space", text)?,
            OptId::MinGain => o.min_gain = double("min gain", text)?,
            OptId::MinGainLimit => o.min_gain_limit = double("min gain limit", text)?,
            OptId::NoDiskMoves => o.disk_moves = false,
            OptId::SelectInstances => o.select_instances = sep_split(text),
            OptId::NoInstanceMoves => o.inst_moves = false,
            OptId::IgnoreSoftErrors => o.soft = SoftChecks::Ignore,
            OptId::DynuFile => o.dynu_file = Some(text.to_owned()),
            OptId::IgnoreDynu => o.ignore_dynu = true,
            OptId::Mond => match value {
                None | Some("yes") => o.mond.enabled = true,
                Some("no") => o.mond.enabled = false,
                Some(other) => {
                    return Err(format!(
                        "Invalid choice '{other}', pass one of 'yes' or 'no'"
                    ))
                }
            },
            OptId::MondData => o.mond.data_file = Some(text.to_owned()),
            OptId::ExitOnMissingMondData => o.mond.exit_on_missing = true,
            OptId::MondXen => o.mond.xen = true,
            OptId::ExclusionTags => o.exclusion_tags = Some(sep_split(text)),
            OptId::ExcludeInstances => o.exclude_instances = sep_split(text),
            OptId::Save => o.save = Some(text.to_owned()),
            OptId::Priority => {
                o.priority = match text {
                    "low" => 10,
                    "normal" => 0,
                    "high" => -10,
                    _ => return Err(format!("Unknown priority '{text}'")),
                };
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

    /// The option rows of the help text are hbal 3.0.2's, line for line.
    #[test]
    fn help_rows_are_hbals() {
        let text = usage();
        let rows: Vec<&str> = text.lines().skip(2).collect();
        assert_eq!(rows.len(), 42);
        assert_eq!(
            rows[0],
            "  -p[FIELDS]  --print-nodes[=FIELDS]       print the final node list"
        );
        assert_eq!(
            rows[18],
            "  -e EPSILON  --min-score=EPSILON          mininum excess to the N+1 limit to aim for"
        );
    }

    #[test]
    fn values_and_errors() {
        let o = run(&["-t", "f", "-l5", "-vv", "-q", "-O", "a", "-Ob", "-C"]).unwrap();
        assert_eq!(o.max_length, 5);
        assert_eq!(o.verbose, 2);
        assert_eq!(o.offline, vec!["b".to_owned(), "a".to_owned()]);
        assert_eq!(o.print_commands.as_deref(), Some("-"));
        let Err(Exit::Stderr { code, message }) = run(&["-l", "abc"]) else {
            panic!("expected an error")
        };
        assert_eq!(code, 1);
        assert_eq!(
            message,
            "Error while parsing command line arguments:\nmax solution length: cannot parse string 'abc'\n"
        );
        let Err(Exit::Stderr { message, .. }) = run(&["--max-cpu=0"]) else {
            panic!("expected an error")
        };
        assert!(message.contains("Invalid value of the max-cpu ratio, expected >0"));
        let Err(Exit::Stderr { code, message }) = run(&["x"]) else {
            panic!("expected an error")
        };
        assert_eq!(
            (code, message.as_str()),
            (1, "Error: This program doesn't take any arguments.\n")
        );
        let o = run(&["-L"]).unwrap();
        assert_eq!(
            o.luxi.as_deref(),
            Some("/var/run/ganeti/socket/ganeti-query")
        );
        let o = run(&["--luxi=/s", "-m", "https://u:p@h:5080"]).unwrap();
        assert_eq!(o.luxi.as_deref(), Some("/s"));
        assert_eq!(o.master.as_deref(), Some("https://u:p@h:5080"));
        let o = run(&["-L", "-X", "--priority=low", "--reason=r"]).unwrap();
        assert!(o.exec);
        assert_eq!((o.priority, o.reason.as_deref()), (10, Some("r")));
        let o = run(&[
            "-L",
            "--mond",
            "--mond-data=f",
            "--mond-xen",
            "--ignore-dynu",
        ])
        .unwrap();
        assert!(o.mond.enabled && o.mond.xen && o.mond.ignore_dynu);
        assert_eq!(o.mond.data_file.as_deref(), Some("f"));
        assert!(!run(&["-L", "--mond", "--mond=no"]).unwrap().mond.enabled);
    }
}
