//! hail's command line: the options `hailstone` takes (hail's, in hail's
//! order, and hailstone's `--ganeti-version` (and its former name `--n1-rule`), `--explain`, `--explain-format` and
//! `--inter-group-evacuation`), and hail's argument check: exactly one
//! input file. The options themselves are [`crate::program::cli`]'s; each
//! stage gets its part of the settings: the loader [`Options::load`], the
//! searches [`Options::algorithm`].
//!
//! After Ganeti's checks ([`cli::parse`]) comes the number of non-option
//! arguments: exactly one is required (exit 1 otherwise).

use std::ffi::OsString;

pub use crate::explain::Format as ExplainFormat;
pub use crate::model::types::SoftChecks;
use crate::program::cli::getopt::error_exit;
pub use crate::program::cli::{
    self, take, take_as, take_own, Exit, ExplainTo, Opt, Options, Program,
};
pub use crate::read::loader::{GanetiVersion, LoadOptions};
pub use crate::search::AlgorithmOptions;
use crate::write::manual::{ExitStatus, Manual};
pub use crate::write::nodes::PrintNodes;

/// The iallocator's command line.
pub const COMMAND_LINE: Program = Program {
    name: "hailstone",
    original: "hail",
    synopsis: "[OPTION...] INPUT|-",
    options: &[
        take(Opt::PrintNodes),
        take_as(
            Opt::Save,
            "save the cluster before (FILE.pre-ialloc) and after the answer (FILE.post-ialloc) as data files",
        ),
        take(Opt::TextData),
        take(Opt::Simulate),
        take(Opt::Verbose),
        take(Opt::IgnoreDynu),
        take_as(
            Opt::IgnoreSoftErrors,
            "ignore soft policy violations (every instance-policy limit but the disk template) when placing instances",
        ),
        take(Opt::NoCapacityChecks),
        take(Opt::RestrictAllocationTo),
        take(Opt::Mond),
        take(Opt::MondXen),
        take(Opt::StaticKvmNodeMemory),
        take_own(Opt::GanetiVersion),
        take_own(Opt::N1Rule),
        take_own(Opt::Explain),
        take_own(Opt::ExplainFormat),
        take_own(Opt::ExplainKeep),
        take_own(Opt::InterGroupEvacuation),
        take_own(Opt::ResyncRate),
        take_own(Opt::MigrationBandwidth),
        take(Opt::Version),
        take(Opt::Help),
        take(Opt::HelpCompletion),
    ],
    arguments: "file 1 1\n",
    flag_values: true,
    manual: Manual {
        summary: "Ganeti iallocator with the decisions of hail 3.0.2, faster, with explanations",
        description: &[
            "Ganeti runs it as 'hailstone INPUT [--key=value...]' while it holds the node locks. INPUT is the iallocator request (a JSON file, or - for stdin); the answer is one JSON line on stdout, also when no node fits (\"success\": false, with the reason in \"info\"). Make it the cluster's allocator with gnt-cluster modify --default-iallocator=hailstone, or name it for one command with --iallocator=hailstone.",
            "The cluster's iallocator parameters (gnt-cluster modify --default-iallocator-params=KEY=VALUE,...) arrive as --KEY=VALUE options; every switch also takes =yes, =no, =true or =false (--ignore-soft-errors=yes).",
            "-t FILE answers on the cluster of a data file instead of the request's, --simulate on empty node groups; -p prints the node table before and after on stderr, -S FILE saves the cluster before and after (FILE.pre-ialloc, FILE.post-ialloc). --explain[=PATH] says why each group, node and pair was refused or chosen, and what would change the answer.",
            "For the answers that move existing instances (relocate, node-evacuate, change-group), --explain also says what their jobs cost: the disk data each new secondary resyncs, the memory each live migration copies, their counts, and an estimated time at --resync-rate and --migration-bandwidth (Ganeti's defaults; as iallocator parameters, resync-rate=RATE). Ganeti submits an evacuation's jobs together: the estimate is the longest job, the shortest the evacuation can take.",
        ],
        exit_status: &[
            (ExitStatus::Done, "an answer was printed (a success, or Ganeti's \"success\": false saying why nothing fits)"),
            (ExitStatus::Failed, "the request or a data file is wrong (the error names where, nothing on stdout) or a -S file cannot be written; also, as hail exits, no input file or more than one, or a bad value of one of hail's options (a bad value of an option only hailstone has is a usage error)"),
            (ExitStatus::Usage, "an unknown or ambiguous option, a missing value, or a bad value of --explain-format, --explain-keep, --ganeti-version, --n1-rule, --resync-rate or --migration-bandwidth"),
        ],
        examples: &[
            ("hailstone request.json", "answer a request as Ganeti asks it"),
            ("hailstone request.json --explain=/var/log/ganeti/hailstone/", "answer it, and write why into a new file in that directory"),
            ("gnt-cluster modify --default-iallocator=hailstone --default-iallocator-params=ganeti-version=3.1", "make hailstone the cluster's allocator, following Ganeti 3.1.0's htools"),
        ],
        files: &[
            ("/usr/lib/ganeti/iallocators/hailstone", "where Ganeti looks for the allocator named hailstone"),
        ],
        decides: crate::program::cli::decides::hail,
    },
};

/// A successfully parsed command line.
#[derive(Debug)]
pub struct Invocation {
    /// The converted options.
    pub options: Options,
    /// The request file, or `-` for stdin. It stays an `OsString` because a
    /// Linux path need not be UTF-8.
    pub input: OsString,
}

/// Parses hailstone's command line. `args` excludes `argv[0]`.
///
/// # Errors
///
/// The [`Exit`] that hail would take instead of running for the same
/// command line (with `hailstone` in place of `hail` in its texts): GetOpt
/// errors (exit 2), option value errors (exit 1), help, version or
/// completion output (stdout, exit 0), a wrong number of arguments (exit
/// 1).
pub fn parse(args: &[OsString]) -> Result<Invocation, Exit> {
    let (options, non_options) = cli::parse(&COMMAND_LINE, args)?;
    let mut non_options = non_options.into_iter();
    match (non_options.next(), non_options.next()) {
        (None, _) => Err(error_exit("This program needs an input file.")),
        (Some(_), Some(_)) => Err(error_exit("Only one argument is accepted (the input file)")),
        (Some(input), None) => Ok(Invocation { options, input }),
    }
}

/// The full help text, as printed by `--help` and after GetOpt errors.
pub fn usage() -> String {
    COMMAND_LINE.usage()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option table of the help text, as hail prints it, plus hailstone's
    /// `--ganeti-version`, `--n1-rule`, `--explain` and the cost's rates.
    const TABLE: &str = "  -p[FIELDS]  --print-nodes[=FIELDS]             print the node table before and after, on stderr (FIELDS: the columns, comma-separated; +FIELD,... adds to the default ones)
  -S FILE     --save=FILE                        save the cluster before (FILE.pre-ialloc) and after the answer (FILE.post-ialloc) as data files
  -t FILE     --text-data=FILE                   the cluster data FILE
              --simulate=SPEC                    simulate an empty node group of identical nodes, given as 'policy,nodes,disk,memory,cpus[,spindles[,exclusive_storage]]' (policy p, a or u: preferred, last_resort, unallocable; sizes in MiB or with a unit: m, g, t binary, M, G, T decimal; exclusive_storage True or False); repeat it for more groups
  -v          --verbose                          increase the verbosity level
              --ignore-dynu                      Ignore any dynamic utilisation information
              --ignore-soft-errors               ignore soft policy violations (every instance-policy limit but the disk template) when placing instances
              --no-capacity-checks               disable capacity checks (like global N+1 redundancy)
              --restrict-allocation-to=NODE,...  Restrict allocations to the given set of nodes
              --mond[=CHOICE]                    pass either 'yes' or 'no' to query all monDs [no]
              --mond-xen                         also consider xen-specific collectors in MonD queries
              --static-kvm-node-memory=N         use static node memory [in MB] on KVM instead of value reported by hypervisor. Use 0 to take value reported from hypervisor. [4096]
              --ganeti-version=VERSION           follow Ganeti VERSION's htools: 3.0 (3.0.2, default) or 3.1 (3.1.0: a node's initial N+1 state from its unallocated memory)
              --n1-rule=RULE                     the former name of --ganeti-version
              --explain[=PATH]                   explain the answer (why each group, node and pair was refused or chosen) on stderr, in the file PATH, or in a new file in the directory PATH (made when missing: a PATH ending in / or without a dot in its last name)
              --explain-format=FORMAT            format of the explanation: text (default) or json
              --explain-keep=N                   with --explain=DIRECTORY, keep the newest N explanations there and remove older ones (0: keep all) [1000]
              --inter-group-evacuation           node-evacuate: move an instance that fits nowhere in its own group to another group sharing its storage pool (Ganeti runs the jobs of a group change)
              --resync-rate=RATE                 the DRBD resync rate the plan's time is estimated at, per second (MiB, or with a unit: m, g binary, M, G decimal) [60: Ganeti's resync-rate default, 61440 KiB/s]
              --migration-bandwidth=RATE         the live-migration bandwidth the plan's time is estimated at, per second (MiB, or with a unit) [32: Ganeti's KVM migration_bandwidth default]
  -V          --version                          show the version of the program
  -h          --help                             show help
              --help-completion                  show completion info
";

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    fn run(list: &[&str]) -> Result<Invocation, Exit> {
        parse(&args(list))
    }

    /// Parses a command line that must succeed, and returns its options.
    fn ok(list: &[&str]) -> Options {
        match run(list) {
            Ok(inv) => inv.options,
            Err(e) => panic!("{list:?} failed: {e:?}"),
        }
    }

    /// Parses a command line that must fail, and returns (code, text).
    fn fail(list: &[&str]) -> (u8, String) {
        match run(list) {
            Ok(inv) => panic!("{list:?} unexpectedly succeeded: {inv:?}"),
            Err(Exit::Stdout(text)) => (0, text),
            Err(Exit::Stderr { code, message }) => (code, message),
        }
    }

    /// The options of a command line that must parse, with an input file
    /// added at its end.
    fn fold(list: &[&str]) -> Options {
        let mut list = list.to_vec();
        list.push("x");
        ok(&list)
    }

    fn command_line_error(errors: &str) -> (u8, String) {
        (
            2,
            format!("Command line error: {errors}see hailstone --help\n"),
        )
    }

    fn value_error(msg: &str) -> (u8, String) {
        (
            1,
            format!("Error while parsing command line arguments:\n{msg}\n"),
        )
    }

    #[test]
    fn usage_matches_hail_layout() {
        let expected = format!(
            "hailstone version {}\nUsage: hailstone [OPTION...] INPUT|-\n{TABLE}{}",
            env!("CARGO_PKG_VERSION"),
            crate::write::manual::help_tail(&COMMAND_LINE.manual)
        );
        assert_eq!(usage(), expected);
    }

    #[test]
    fn help_version_and_completion_go_to_stdout() {
        assert_eq!(fail(&["--help"]), (0, usage()));
        assert_eq!(fail(&["-h", "x", "y"]), (0, usage()));
        // Help wins over version, which wins over completion.
        assert_eq!(fail(&["-Vh"]), (0, usage()));
        let version = format!(
            "hailstone version {}\ncompatible with hail (ganeti) 3.0.2\n",
            env!("CARGO_PKG_VERSION")
        );
        assert_eq!(fail(&["--version"]), (0, version.clone()));
        assert_eq!(fail(&["--help-completion", "-V"]), (0, version));
        let completion = "\
-p,--print-nodes none
-S,--save none
-t,--text-data file
--simulate string
-v,--verbose none
--ignore-dynu none
--ignore-soft-errors none
--no-capacity-checks none
--restrict-allocation-to manynodes
--mond choices=yes,no
--mond-xen none
--static-kvm-node-memory integer
--ganeti-version choices=3.0,3.1
--n1-rule choices=3.0,3.1
--explain none
--explain-format choices=text,json
--explain-keep integer
--inter-group-evacuation none
--resync-rate string
--migration-bandwidth string
-V,--version none
-h,--help none
--help-completion none
file 1 1
";
        assert_eq!(fail(&["--help-completion"]), (0, completion.to_string()));
        // `--help` is an exact name, so it is not ambiguous with
        // `--help-completion`; `--help-c` abbreviates the latter.
        assert_eq!(fail(&["--help-c"]), (0, completion.to_string()));
    }

    #[test]
    fn ambiguous_prefix_lists_only_the_candidates() {
        assert_eq!(
            fail(&["--ign", "x"]),
            command_line_error(
                "option `--ign' is ambiguous; could be one of:
    --ignore-dynu         Ignore any dynamic utilisation information
    --ignore-soft-errors  ignore soft policy violations (every instance-policy limit but the disk template) when placing instances
"
            )
        );
        assert_eq!(
            fail(&["--ver=1"]),
            command_line_error(
                "option `--ver' is ambiguous; could be one of:
  -v  --verbose  increase the verbosity level
  -V  --version  show the version of the program
"
            )
        );
        // `--n` is hail's `--no-capacity-checks`, as in hail: hailstone's
        // own `--n1-rule` leaves the original's abbreviations alone.
        assert!(!ok(&["--n", "x"]).algorithm.capacity_checks);
        // Among hailstone's own options, an abbreviation is ambiguous as
        // any other.
        let (code, text) = fail(&["--explain-", "x"]);
        assert_eq!(code, 2);
        assert!(
            text.starts_with("Command line error: option `--explain-' is ambiguous")
                && text.contains("--explain-format=FORMAT")
                && text.contains("--explain-keep=N"),
            "{text}"
        );
        // An empty name abbreviates every option: hail's are listed, as
        // hail lists them, and hailstone's own are not candidates.
        let own = [
            "--ganeti-version",
            "--n1-rule",
            "--explain",
            "--inter-group-evacuation",
            "--resync-rate",
            "--migration-bandwidth",
        ];
        let hails: String = TABLE
            .lines()
            .filter(|line| !own.iter().any(|o| line.contains(o)))
            .map(|line| format!("{line}\n"))
            .collect();
        assert_eq!(hails.lines().count(), 15);
        assert_eq!(
            fail(&["--=x"]),
            command_line_error(&format!(
                "option `--' is ambiguous; could be one of:\n{hails}"
            ))
        );
    }

    #[test]
    fn getopt_errors_are_collected_with_unrecognized_last() {
        assert_eq!(
            fail(&["-x", "-y", "--ign", "--save"]),
            command_line_error(
                "option `--ign' is ambiguous; could be one of:
    --ignore-dynu         Ignore any dynamic utilisation information
    --ignore-soft-errors  ignore soft policy violations (every instance-policy limit but the disk template) when placing instances
option `--save' requires an argument FILE
unrecognized option `-x'
unrecognized option `-y'
"
            )
        );
        assert_eq!(
            fail(&["--foo=bar", "-t"]),
            command_line_error(
                "option `-t' requires an argument FILE\nunrecognized option `--foo=bar'\n"
            )
        );
        assert_eq!(
            fail(&["--verbose=3", "--save"]),
            command_line_error(
                "option `--verbose' doesn't allow an argument\n\
                 option `--save' requires an argument FILE\n"
            )
        );
        // GetOpt errors come before value errors and before help.
        assert_eq!(
            fail(&["--static-kvm-node-memory=x", "--help", "-q"]),
            command_line_error("unrecognized option `-q'\n")
        );
    }

    #[test]
    fn getopt_error_texts() {
        let cases: &[(&[&str], &str)] = &[
            (&["--foo"], "unrecognized option `--foo'\n"),
            (&["---"], "unrecognized option `---'\n"),
            (&["-vxv", "x"], "unrecognized option `-x'\n"),
            (&["-hx"], "unrecognized option `-x'\n"),
            (&["-h="], "unrecognized option `-='\n"),
            (&["--sav"], "option `--sav' requires an argument FILE\n"),
            (&["-S"], "option `-S' requires an argument FILE\n"),
            (&["-vt"], "option `-t' requires an argument FILE\n"),
            (
                &["x", "--simulate"],
                "option `--simulate' requires an argument SPEC\n",
            ),
            (&["--verb=1"], "option `--verb' doesn't allow an argument\n"),
            (&["--help="], "option `--help' doesn't allow an argument\n"),
            (
                &["--help-completion=2"],
                "option `--help-completion' doesn't allow an argument\n",
            ),
        ];
        for (list, errors) in cases {
            assert_eq!(fail(list), command_line_error(errors), "{list:?}");
        }
    }

    #[test]
    fn value_errors_in_command_line_order() {
        assert_eq!(
            fail(&["--static-kvm-node-memory=abc", "x"]),
            value_error("static node memory: cannot parse string 'abc'")
        );
        assert_eq!(
            fail(&["--static-kvm-node-memory=5MB", "x"]),
            value_error("static node memory: leftover characters when parsing '5MB': 'MB'")
        );
        assert_eq!(
            fail(&["--static-kvm-node-memory", "5 "]),
            value_error("static node memory: leftover characters when parsing '5 ': ' '")
        );
        assert_eq!(
            fail(&["--mond=maybe", "--static-kvm-node-memory=x", "x"]),
            value_error("Invalid choice 'maybe', pass one of 'yes' or 'no'")
        );
        assert_eq!(
            fail(&["--static-kvm-node-memory=x", "--mond=maybe", "x"]),
            value_error("static node memory: cannot parse string 'x'")
        );
        assert_eq!(
            fail(&["--mond=", "x"]),
            value_error("Invalid choice '', pass one of 'yes' or 'no'")
        );
        // A value error wins over --help.
        assert_eq!(
            fail(&["--static-kvm-node-memory=x", "--help"]),
            value_error("static node memory: cannot parse string 'x'")
        );
        // An option only hailstone has: a usage error.
        assert_eq!(
            fail(&["--n1-rule=3.2", "x"]),
            (
                2,
                "Error: option --n1-rule: Invalid Ganeti version '3.2', pass one of '3.0' or '3.1'\nsee hailstone --help\n".to_owned()
            )
        );
    }

    #[test]
    fn argument_count() {
        let none = (1, "Error: This program needs an input file.\n".to_string());
        let many = (
            1,
            "Error: Only one argument is accepted (the input file)\n".to_string(),
        );
        assert_eq!(fail(&[]), none);
        assert_eq!(fail(&["--"]), none);
        assert_eq!(fail(&["-v"]), none);
        // `--restrict-allocation-to FILE` swallows the file name.
        assert_eq!(fail(&["--restrict-allocation-to", "req.json"]), none);
        assert_eq!(fail(&["a", "b"]), many);
        assert_eq!(fail(&["-", "-"]), many);
        assert_eq!(fail(&["x", "--", "-v"]), many);
        // The argument count is checked before unimplemented options.
        assert_eq!(fail(&["--save=f"]), none);
    }

    #[test]
    fn input_path_and_end_of_options() {
        let input = |list: &[&str]| run(list).map(|inv| inv.input);
        assert_eq!(input(&["-"]).ok(), Some(OsString::from("-")));
        assert_eq!(input(&[""]).ok(), Some(OsString::from("")));
        assert_eq!(input(&["--", "-v"]).ok(), Some(OsString::from("-v")));
        assert_eq!(
            input(&["--", "--help"]).ok(),
            Some(OsString::from("--help"))
        );
        assert_eq!(input(&["--", "--"]).ok(), Some(OsString::from("--")));
        assert_eq!(input(&["-v-", "x"]).ok(), Some(OsString::from("x")));
        // Options after `--` are not options.
        let inv = run(&["-v", "--", "-v"]).ok();
        assert_eq!(inv.map(|i| i.options.verbose), Some(2));
    }

    #[test]
    fn interleaving_and_clusters() {
        let inv = run(&["-v", "req.json", "--ignore-soft-errors", "-vv"]);
        let inv = inv.expect("parses");
        assert_eq!(inv.input, OsString::from("req.json"));
        assert_eq!(inv.options.verbose, 4);
        assert!(inv.options.algorithm.soft == SoftChecks::Ignore);
        assert_eq!(ok(&["-vvv", "x"]).verbose, 4);
        assert_eq!(ok(&["x"]), Options::default());
        // `-v-v` continues as `--v`, which is ambiguous.
        let (code, text) = fail(&["-v-v", "x"]);
        assert_eq!(code, 2);
        assert!(text.starts_with("Command line error: option `--v' is ambiguous"));
        // `-v-help` continues as `--help`.
        assert_eq!(fail(&["-v-help", "x"]), (0, usage()));
    }

    #[test]
    fn abbreviations() {
        assert!(!ok(&["--no-cap", "x"]).algorithm.capacity_checks);
        assert!(!ok(&["--no", "x"]).algorithm.capacity_checks);
        assert_eq!(ok(&["--ignore-s", "x"]).algorithm.soft, SoftChecks::Ignore);
        assert!(ok(&["--ignore-d", "x"]).ignore_dynu);
        assert_eq!(ok(&["--verb", "x"]).verbose, 2);
        assert_eq!(ok(&["--st=7", "x"]).load.static_kvm_node_memory, 7);
        assert_eq!(ok(&["--st", "8", "x"]).load.static_kvm_node_memory, 8);
        assert_eq!(
            ok(&["--rest=a,b", "x"]).algorithm.restrict_allocation_to,
            Some(vec!["a".to_string(), "b".to_string()])
        );
        // `--mond` is exact, although it is also a prefix of `--mond-xen`.
        let options = ok(&["--mond=no", "x"]);
        assert!(!options.mond && !options.mond_xen);
        assert!(ok(&["--mond-", "x"]).mond_xen);
        assert_eq!(ok(&["--n1", "3.1", "x"]).load.ganeti, GanetiVersion::V31);
        assert_eq!(ok(&["--gan", "3.1", "x"]).load.ganeti, GanetiVersion::V31);
        assert_eq!(fold(&["--simu=p,3,1,2,3"]).simulate, vec!["p,3,1,2,3"]);
        assert_eq!(ok(&["--simu=p,3,1,2,3", "x"]).simulate, vec!["p,3,1,2,3"]);
    }

    #[test]
    fn option_values() {
        let options = fold(&["-tFILE"]);
        assert_eq!(options.text_data.as_deref(), Some("FILE"));
        assert_eq!(fold(&["-t", "-v"]).text_data.as_deref(), Some("-v"));
        assert_eq!(fold(&["--save", "--help"]).save.as_deref(), Some("--help"));
        assert_eq!(fold(&["-S", "a", "-Sb"]).save.as_deref(), Some("b"));
        assert_eq!(
            fold(&["--simulate=a", "--simulate", "b", "--simulate=c"]).simulate,
            vec!["c", "b", "a"]
        );
        let restrict = |list: &[&str]| fold(list).algorithm.restrict_allocation_to;
        assert_eq!(restrict(&["--restrict-allocation-to="]), Some(vec![]));
        assert_eq!(
            restrict(&["--restrict-allocation-to=a,"]),
            Some(vec!["a".into(), "".into()])
        );
        assert_eq!(
            restrict(&["--restrict-allocation-to=a", "--restrict-allocation-to=b,c"]),
            Some(vec!["b".into(), "c".into()])
        );
        assert!(fold(&["--mond"]).mond);
        assert!(!fold(&["--mond", "--mond=no"]).mond);
        assert_eq!(fold(&["--n1-rule=3.0"]).load.ganeti, GanetiVersion::V30);
        assert_eq!(
            fold(&["--ganeti-version=3.1"]).load.ganeti,
            GanetiVersion::V31
        );
        assert_eq!(
            fold(&["--ganeti-version=3.1", "--n1-rule=3.0"]).load.ganeti,
            GanetiVersion::V30
        );
        assert_eq!(
            fold(&["--static-kvm-node-memory=-0"])
                .load
                .static_kvm_node_memory,
            0
        );
    }

    #[test]
    fn print_nodes_fields() {
        let pn = |list: &[&str]| fold(list).print_nodes;
        let strings = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(pn(&[]), None);
        assert_eq!(pn(&["-p"]), Some(PrintNodes::Defaults));
        // `-p name`: `name` is the input, not the fields.
        assert_eq!(ok(&["-p", "name"]).print_nodes, Some(PrintNodes::Defaults));
        assert_eq!(pn(&["--print-nodes="]), Some(PrintNodes::Defaults));
        assert_eq!(
            pn(&["-pname,fmem"]),
            Some(PrintNodes::Fields(strings(&["name", "fmem"])))
        );
        assert_eq!(
            pn(&["--print-nodes=a,"]),
            Some(PrintNodes::Fields(strings(&["a", ""])))
        );
        assert_eq!(pn(&["-p+"]), Some(PrintNodes::DefaultsPlus(vec![])));
        assert_eq!(
            pn(&["-p+x,y"]),
            Some(PrintNodes::DefaultsPlus(strings(&["x", "y"])))
        );
        assert_eq!(
            pn(&["-p+,y"]),
            Some(PrintNodes::DefaultsPlus(strings(&["", "y"])))
        );
        assert_eq!(pn(&["-p,+"]), Some(PrintNodes::Fields(strings(&["", "+"]))));
        assert_eq!(pn(&["-pv"]), Some(PrintNodes::Fields(strings(&["v"]))));
    }

    #[test]
    fn mond_choices() {
        let options = ok(&["-v", "-tfoo", "--save=x", "-p", "--simulate=p,1,1,1,1", "x"]);
        assert_eq!(options.text_data.as_deref(), Some("foo"));
        assert!(ok(&["x", "--mond"]).mond);
        assert!(ok(&["--mond=no", "--mond=yes", "-p", "x"]).mond);
        assert!(ok(&["--mond", "-p", "--mond=no", "x"])
            .print_nodes
            .is_some());
        let options = ok(&["--mond", "--mond=no", "--mond-xen", "--ignore-dynu", "x"]);
        assert!(!options.mond && options.mond_xen && options.ignore_dynu);
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_arguments() {
        use std::os::unix::ffi::OsStringExt;
        let raw = |bytes: &[u8]| OsString::from_vec(bytes.to_vec());
        // A non-UTF-8 input path is kept as it is.
        let path = raw(b"req\xff.json");
        let inv = parse(&[OsString::from("-v"), path.clone()]);
        assert_eq!(inv.ok().map(|i| i.input), Some(path));
        // A non-UTF-8 option value is refused.
        let result = parse(&[raw(b"--restrict-allocation-to=n\xff"), OsString::from("x")]);
        assert_eq!(
            result.err(),
            Some(Exit::Stderr {
                code: 1,
                message: "Error while parsing command line arguments:\noption \
                          --restrict-allocation-to: the value 'n\u{FFFD}' is not valid UTF-8\n"
                    .to_string()
            })
        );
        let result = parse(&[OsString::from("-S"), raw(b"\xfe"), OsString::from("x")]);
        assert!(matches!(result, Err(Exit::Stderr { code: 1, .. })));
        // Invalid bytes in option names are unrecognised options.
        let result = parse(&[raw(b"-v\xff"), raw(b"--sa\xffve=1")]);
        assert_eq!(
            result.err(),
            Some(Exit::Stderr {
                code: 2,
                message: "Command line error: unrecognized option `-\u{FFFD}'\n\
                          unrecognized option `--sa\u{FFFD}ve=1'\n\
                          --sa\u{FFFD}ve: did you mean --save?\n\
                          see hailstone --help\n"
                    .to_owned()
            })
        );
    }

    /// hailstone's flags take `yes`/`no`/`true`/`false` in their long form
    /// (Ganeti passes allocator options only as `--key=value`); a later
    /// occurrence wins; anything else is a value error (exit 1).
    #[test]
    fn flags_take_yes_and_no() {
        let f = fold(&["--no-capacity-checks=yes", "--ignore-soft-errors=true"]);
        assert!(!f.algorithm.capacity_checks);
        assert_eq!(f.algorithm.soft, SoftChecks::Ignore);
        let f = fold(&["--no-capacity-checks", "--no-cap=no", "--ignore-dynu=false"]);
        assert!(f.algorithm.capacity_checks);
        assert!(!f.ignore_dynu);
        assert!(fold(&["--mond-xen=yes"]).mond_xen);
        let Err(Exit::Stderr { code, message }) =
            parse(&args(&["x", "--no-capacity-checks=maybe"]))
        else {
            panic!("a bad flag value is an error")
        };
        assert_eq!(code, 1);
        assert!(
            message.contains("Invalid value 'maybe' for --no-capacity-checks"),
            "{message}"
        );
        // The help still shows them as hail does.
        assert!(usage().contains("              --no-capacity-checks               disable"));
    }
}
