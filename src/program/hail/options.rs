//! hailstone's command line: the same options, abbreviations, error texts and
//! exit codes as `hail` (Ganeti 3.0.2), whose parser is GHC's
//! `System.Console.GetOpt` in `Permute` mode followed by Ganeti's option fold
//! (`Ganeti.Common.parseOptsInner`) and hail's argument-count check.
//!
//! This module owns everything between `argv` and a validated [`Invocation`]:
//! option scanning (long-option prefixes, clustered short options, `--`),
//! GetOpt's error collection, option value conversion (with hail's messages),
//! `--help`, `--version` and `--help-completion`, and the refusal of options
//! that hail accepts but hailstone does not implement yet.
//!
//! The outcomes are checked in hail's order:
//!
//! 1. GetOpt errors: exit 2, `Command line error: ...` followed by the usage.
//! 2. Option value errors, first failing option in command-line order: exit 1,
//!    `Error while parsing command line arguments:\n<msg>\n`.
//! 3. `--help`, then `--version`, then `--help-completion`: stdout, exit 0.
//! 4. The number of non-option arguments (exactly one is required).
//! 5. hailstone only: options whose behaviour is not implemented yet (exit 2).

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};

/// The program name printed wherever hail prints `hail`.
const PROGRAM: &str = "hailstone";

/// The hail release whose behaviour hailstone reproduces.
const HAIL_VERSION: &str = "3.0.2";

/// How the initial N+1 flag of a node is computed from the request.
#[derive(Debug, Clone, PartialEq)]
pub enum N1Rule {
    /// hail 3.0.2 (`Node.buildPeers`): a node fails N+1 when its reported
    /// `free_memory` is strictly less than the memory reserved for its
    /// secondaries. This is the default, because it is what the installed
    /// `hail` binary does.
    Hail30,
    /// Ganeti 3.1 (`Loader.updateMemStat`): a node fails N+1 when its
    /// unallocated memory is less than or equal to the memory reserved for its
    /// secondaries.
    Ganeti31,
}

/// The node fields requested with `-p`/`--print-nodes`, classified the way
/// `Cluster.printNodes` interprets hail's parsed field list.
///
/// hail splits the option value on `,` (an empty value gives no fields, and a
/// trailing comma gives an empty field name); a leading `+` is split off as a
/// separate `+` element first.
#[derive(Debug, Clone, PartialEq)]
pub enum PrintNodes {
    /// No field list (`-p`, `--print-nodes`, `--print-nodes=`): print
    /// `Node.defaultFields`.
    Defaults,
    /// A value starting with `+` (`-p+xmem,ymem`): print the default fields
    /// followed by these (which may be empty, and may contain empty names).
    DefaultsPlus(Vec<String>),
    /// Any other value: print exactly these fields, in this order.
    Fields(Vec<String>),
}

/// The options of one hailstone invocation, after value conversion.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// `-p`/`--print-nodes[=FIELDS]`: print node tables to stderr before and
    /// after the run. Not implemented yet: giving it makes [`parse`] fail.
    pub print_nodes: Option<PrintNodes>,
    /// `-S`/`--save=FILE`: save the cluster state before and after the run.
    /// Not implemented yet: giving it makes [`parse`] fail.
    pub save: Option<String>,
    /// `-t`/`--text-data=FILE`: replace the request's cluster by an htools
    /// text file. Not implemented yet: giving it makes [`parse`] fail.
    pub text_data: Option<String>,
    /// `--simulate=SPEC`, repeatable. Each one is *prepended*, exactly as in
    /// hail, so the first element is the last option given. The specs are not
    /// validated here: hail validates them when it loads the cluster. Not
    /// implemented yet: giving it makes [`parse`] fail.
    pub simulate: Vec<String>,
    /// Verbosity: starts at 1, and each `-v`/`--verbose` adds one.
    pub verbose: u32,
    /// `--ignore-dynu`. On the JSON request path hail only uses it together
    /// with `--mond`, `-t` or `--simulate`, none of which hailstone
    /// implements, so it is accepted and has no effect.
    pub ignore_dynu: bool,
    /// `--ignore-soft-errors`: skip soft policy checks where hail does.
    pub ignore_soft_errors: bool,
    /// `--no-capacity-checks`: disable the global N+1 capacity predicate.
    pub no_capacity_checks: bool,
    /// `--restrict-allocation-to=N1,N2,...`: a whitelist of node names that
    /// overrides the request's own restriction. The value is split on `,` as
    /// hail's `sepSplit` does: an empty value gives an empty list (no node is
    /// allowed), and a trailing comma gives an empty name. When the option is
    /// repeated, the last one wins.
    pub restrict_allocation_to: Option<Vec<String>>,
    /// `--mond[=yes|no]` (a bare `--mond` means yes): query the monitoring
    /// daemons. Querying is not implemented, so a final value of yes makes
    /// [`parse`] fail; `--mond=no` is accepted.
    pub mond: bool,
    /// `--mond-xen`: use the Xen collector when querying the monitoring
    /// daemons. Without `--mond` hail ignores it, so it is accepted and has no
    /// effect.
    pub mond_xen: bool,
    /// `--static-kvm-node-memory=N` (default 4096): the node memory to assume
    /// on KVM clusters; 0 keeps the hypervisor's value. Parsed like Haskell's
    /// `reads :: ReadS Int`, with the same wrap-around on overflow.
    pub static_kvm_node_memory: i64,
    /// `--n1-rule=3.0|3.1` (hailstone only): how the initial N+1 flag of a
    /// node is computed.
    pub n1_rule: N1Rule,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            print_nodes: None,
            save: None,
            text_data: None,
            simulate: Vec::new(),
            verbose: 1,
            ignore_dynu: false,
            ignore_soft_errors: false,
            no_capacity_checks: false,
            restrict_allocation_to: None,
            mond: false,
            mond_xen: false,
            static_kvm_node_memory: 4096,
            n1_rule: N1Rule::Hail30,
        }
    }
}

/// A successfully parsed command line.
#[derive(Debug)]
pub struct Invocation {
    /// The converted options.
    pub options: Options,
    /// The request file, or `-` for stdin. It stays an `OsString` because a
    /// Linux path need not be UTF-8.
    pub input: OsString,
}

/// What the process should do instead of running, when [`parse`] does not
/// return an [`Invocation`].
#[derive(Debug, PartialEq)]
pub enum Exit {
    /// Print this text to stdout as it is, and exit 0 (`--help`, `--version`,
    /// `--help-completion`).
    Stdout(String),
    /// Print `message` (which already ends with its newline) to stderr, and
    /// exit with `code`.
    Stderr {
        /// The process exit status.
        code: u8,
        /// The complete text to print.
        message: String,
    },
}

/// Parses hailstone's command line. `args` excludes `argv[0]`.
///
/// Returns the invocation to run.
///
/// # Errors
///
/// Returns the [`Exit`] that hail would take instead of running for the same
/// command line (with `hailstone` in place of `hail` in its texts): GetOpt
/// errors (exit 2), option value errors (exit 1), help, version or completion
/// output (stdout, exit 0), a wrong number of arguments (exit 1), and, for
/// hailstone only, options that are not implemented yet (exit 2).
pub fn parse(args: &[OsString]) -> Result<Invocation, Exit> {
    let scan = scan(args);

    // GetOpt reports every scanning error at once: first the ambiguous,
    // missing-argument and unexpected-argument errors, then the unrecognised
    // options, each group in command-line order.
    if !scan.errors.is_empty() || !scan.unrecognized.is_empty() {
        let mut message = String::from("Command line error: ");
        for error in &scan.errors {
            message.push_str(error);
        }
        for option in &scan.unrecognized {
            message.push_str(&format!("unrecognized option `{option}'\n"));
        }
        message.push('\n');
        message.push_str(&usage());
        return Err(Exit::Stderr { code: 2, message });
    }

    let mut fold = Fold::default();
    for (position, given) in scan.given.iter().enumerate() {
        if let Err(msg) = fold.apply(position, given) {
            return Err(Exit::Stderr {
                code: 1,
                message: format!("Error while parsing command line arguments:\n{msg}\n"),
            });
        }
    }

    if fold.help {
        return Err(Exit::Stdout(usage()));
    }
    if fold.version {
        return Err(Exit::Stdout(version_text()));
    }
    if fold.completion {
        return Err(Exit::Stdout(completion_text()));
    }

    let mut non_options = scan.non_options.into_iter();
    let input = match (non_options.next(), non_options.next()) {
        (None, _) => return Err(error_exit("This program needs an input file.")),
        (Some(_), Some(_)) => {
            return Err(error_exit("Only one argument is accepted (the input file)"))
        }
        (Some(input), None) => input,
    };

    let mut unimplemented = fold.unimplemented;
    if fold.options.mond {
        if let Some(position) = fold.first_mond_yes {
            unimplemented.push((position, "mond"));
        }
    }
    if let Some((_, name)) = unimplemented.iter().min_by_key(|(position, _)| *position) {
        return Err(Exit::Stderr {
            code: 2,
            message: format!(
                "{PROGRAM}: option --{name} is accepted by hail but not implemented in \
                 {PROGRAM} yet\n"
            ),
        });
    }

    Ok(Invocation {
        options: fold.options,
        input,
    })
}

/// The full help text, as printed by `--help` and after GetOpt errors: the
/// version line, the usage line, then GetOpt's option table.
pub fn usage() -> String {
    let header = format!(
        "{PROGRAM} version {}\nUsage: {PROGRAM} [OPTION...]",
        env!("CARGO_PKG_VERSION")
    );
    let all: Vec<&OptDescr> = OPTIONS.iter().collect();
    usage_info(&header, &all)
}

/// The text printed by `--version`.
fn version_text() -> String {
    format!(
        "{PROGRAM} version {}\ncompatible with hail (ganeti) {HAIL_VERSION}\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// The text printed by `--help-completion`: one line per option (its names and
/// the completion kind), then one line for the input-file argument.
fn completion_text() -> String {
    let mut text = String::new();
    for opt in OPTIONS {
        let mut names = Vec::new();
        if let Some(short) = opt.short {
            names.push(format!("-{short}"));
        }
        names.push(format!("--{}", opt.long));
        text.push_str(&format!("{} {}\n", names.join(","), opt.completion));
    }
    text.push_str("file 1 1\n");
    text
}

/// An `Error: <msg>` exit with status 1, as hail's `exitErr` prints it.
fn error_exit(msg: &str) -> Exit {
    Exit::Stderr {
        code: 1,
        message: format!("Error: {msg}\n"),
    }
}

// ---------------------------------------------------------------------------
// The option table.
// ---------------------------------------------------------------------------

/// Identifies an option independently of the name it was given by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OptId {
    PrintNodes,
    Save,
    TextData,
    Simulate,
    Verbose,
    IgnoreDynu,
    IgnoreSoftErrors,
    NoCapacityChecks,
    RestrictAllocationTo,
    Mond,
    MondXen,
    StaticKvmNodeMemory,
    N1Rule,
    Version,
    Help,
    HelpCompletion,
}

/// Whether an option takes a value, as GetOpt's `ArgDescr`; the string is the
/// value's name in the help text.
#[derive(Debug, Clone, Copy)]
enum ArgKind {
    /// `NoArg`: no value allowed.
    No,
    /// `ReqArg`: a value is required (`--opt=V`, `--opt V`, `-oV`, `-o V`).
    Req(&'static str),
    /// `OptArg`: an optional value, only in the attached forms (`--opt=V`,
    /// `-oV`).
    Opt(&'static str),
}

/// One option: GetOpt's `OptDescr` plus Ganeti's completion kind.
struct OptDescr {
    id: OptId,
    short: Option<char>,
    long: &'static str,
    kind: ArgKind,
    help: &'static str,
    completion: &'static str,
}

/// hail's options in hail's order (which is also the help order), with
/// hailstone's `--n1-rule` after `--static-kvm-node-memory`.
const OPTIONS: &[OptDescr] = &[
    OptDescr {
        id: OptId::PrintNodes,
        short: Some('p'),
        long: "print-nodes",
        kind: ArgKind::Opt("FIELDS"),
        help: "print the final node list",
        completion: "none",
    },
    OptDescr {
        id: OptId::Save,
        short: Some('S'),
        long: "save",
        kind: ArgKind::Req("FILE"),
        help: "Save cluster state at the end of the processing to FILE",
        completion: "none",
    },
    OptDescr {
        id: OptId::TextData,
        short: Some('t'),
        long: "text-data",
        kind: ArgKind::Req("FILE"),
        help: "the cluster data FILE",
        completion: "file",
    },
    OptDescr {
        id: OptId::Simulate,
        short: None,
        long: "simulate",
        kind: ArgKind::Req("SPEC"),
        help: "simulate an empty cluster, given as 'alloc_policy,num_nodes,disk,ram,cpu'",
        completion: "string",
    },
    OptDescr {
        id: OptId::Verbose,
        short: Some('v'),
        long: "verbose",
        kind: ArgKind::No,
        help: "increase the verbosity level",
        completion: "none",
    },
    OptDescr {
        id: OptId::IgnoreDynu,
        short: None,
        long: "ignore-dynu",
        kind: ArgKind::No,
        help: "Ignore any dynamic utilisation information",
        completion: "none",
    },
    OptDescr {
        id: OptId::IgnoreSoftErrors,
        short: None,
        long: "ignore-soft-errors",
        kind: ArgKind::No,
        help: "Ignore any soft restrictions in balancing",
        completion: "none",
    },
    OptDescr {
        id: OptId::NoCapacityChecks,
        short: None,
        long: "no-capacity-checks",
        kind: ArgKind::No,
        help: "disable capacity checks (like global N+1 redundancy)",
        completion: "none",
    },
    OptDescr {
        id: OptId::RestrictAllocationTo,
        short: None,
        long: "restrict-allocation-to",
        kind: ArgKind::Req("NODE,..."),
        help: "Restrict allocations to the given set of nodes",
        completion: "manynodes",
    },
    OptDescr {
        id: OptId::Mond,
        short: None,
        long: "mond",
        kind: ArgKind::Opt("CHOICE"),
        help: "pass either 'yes' or 'no' to query all monDs",
        completion: "choices=yes,no",
    },
    OptDescr {
        id: OptId::MondXen,
        short: None,
        long: "mond-xen",
        kind: ArgKind::No,
        help: "also consider xen-specific collectors in MonD queries",
        completion: "none",
    },
    OptDescr {
        id: OptId::StaticKvmNodeMemory,
        short: None,
        long: "static-kvm-node-memory",
        kind: ArgKind::Req("N"),
        help: "use static node memory [in MB] on KVM instead of value reported by hypervisor. \
               Use 0 to take value reported from hypervisor.",
        completion: "integer",
    },
    OptDescr {
        id: OptId::N1Rule,
        short: None,
        long: "n1-rule",
        kind: ArgKind::Req("RULE"),
        help: "initial N+1 state of a node: 3.0 (hail 3.0.2, default) or 3.1 (Ganeti 3.1)",
        completion: "choices=3.0,3.1",
    },
    OptDescr {
        id: OptId::Version,
        short: Some('V'),
        long: "version",
        kind: ArgKind::No,
        help: "show the version of the program",
        completion: "none",
    },
    OptDescr {
        id: OptId::Help,
        short: Some('h'),
        long: "help",
        kind: ArgKind::No,
        help: "show help",
        completion: "none",
    },
    OptDescr {
        id: OptId::HelpCompletion,
        short: None,
        long: "help-completion",
        kind: ArgKind::No,
        help: "show completion info",
        completion: "none",
    },
];

/// GetOpt's `usageInfo`: the header line, then one row per option (and per
/// extra description line), with the short-name and long-name columns padded
/// to the widest entry among `opts` only.
fn usage_info(header: &str, opts: &[&OptDescr]) -> String {
    let mut rows: Vec<(String, String, &str)> = Vec::new();
    for opt in opts {
        let short = match opt.short {
            None => String::new(),
            Some(c) => match opt.kind {
                ArgKind::No => format!("-{c}"),
                ArgKind::Req(name) => format!("-{c} {name}"),
                ArgKind::Opt(name) => format!("-{c}[{name}]"),
            },
        };
        let long = match opt.kind {
            ArgKind::No => format!("--{}", opt.long),
            ArgKind::Req(name) => format!("--{}={name}", opt.long),
            ArgKind::Opt(name) => format!("--{}[={name}]", opt.long),
        };
        // Haskell's `lines` yields no line at all for an empty description.
        let mut lines = haskell_lines(opt.help).into_iter();
        rows.push((short, long, lines.next().unwrap_or("")));
        for line in lines {
            rows.push((String::new(), String::new(), line));
        }
    }
    let short_width = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    let long_width = rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0);
    let mut text = String::from(header);
    text.push('\n');
    for (short, long, descr) in rows {
        text.push_str(&format!(
            "  {short:<short_width$}  {long:<long_width$}  {descr}\n"
        ));
    }
    text
}

/// Haskell's `lines`: split on `\n`, where a final `\n` does not start an
/// extra empty line.
fn haskell_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.is_empty() || text.ends_with('\n') {
        lines.pop();
    }
    lines
}

// ---------------------------------------------------------------------------
// Scanning: GetOpt in Permute mode.
// ---------------------------------------------------------------------------

/// One element of an argument as GetOpt sees it: a character, or a byte that
/// is not part of valid UTF-8 (which can match no option name).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Unit {
    Char(char),
    Byte(u8),
}

/// Splits an argument into [`Unit`]s.
fn decode(arg: &OsStr) -> Vec<Unit> {
    let mut units = Vec::new();
    for chunk in arg.as_encoded_bytes().utf8_chunks() {
        units.extend(chunk.valid().chars().map(Unit::Char));
        units.extend(chunk.invalid().iter().map(|b| Unit::Byte(*b)));
    }
    units
}

/// Renders units as text, with U+FFFD for each byte that is not valid UTF-8.
fn lossy(units: &[Unit]) -> String {
    units
        .iter()
        .map(|u| match u {
            Unit::Char(c) => *c,
            Unit::Byte(_) => char::REPLACEMENT_CHARACTER,
        })
        .collect()
}

/// An option value as given on the command line.
#[derive(Debug, Clone)]
struct Value {
    /// The value, with U+FFFD in place of bytes that are not valid UTF-8.
    text: String,
    /// Whether the value was valid UTF-8 (and `text` is therefore exact).
    utf8: bool,
}

impl Value {
    fn new(units: &[Unit]) -> Self {
        Value {
            text: lossy(units),
            utf8: units.iter().all(|u| matches!(u, Unit::Char(_))),
        }
    }
}

/// One recognised option occurrence, in command-line order.
#[derive(Debug)]
struct Given {
    id: OptId,
    value: Option<Value>,
}

/// What GetOpt found on the command line.
#[derive(Debug, Default)]
struct Scan {
    given: Vec<Given>,
    non_options: Vec<OsString>,
    /// Ambiguity, missing-argument and unexpected-argument messages, each
    /// ending with a newline.
    errors: Vec<String>,
    /// Unrecognised options, as typed (e.g. `--foo=bar`, `-x`).
    unrecognized: Vec<String>,
}

/// An argument waiting to be scanned: its units, and the original argument
/// unless GetOpt synthesised it from the rest of a short-option cluster.
type Pending = (Vec<Unit>, Option<OsString>);

/// Runs GetOpt's `Permute` scan over the arguments.
fn scan(args: &[OsString]) -> Scan {
    let mut queue: VecDeque<Pending> = args
        .iter()
        .map(|arg| (decode(arg), Some(arg.clone())))
        .collect();
    let mut scan = Scan::default();
    while let Some((units, original)) = queue.pop_front() {
        match units.as_slice() {
            // `--` ends option processing: everything after it is a
            // non-option, and so are any arguments already found.
            [Unit::Char('-'), Unit::Char('-')] => {
                for (rest, rest_original) in queue.drain(..) {
                    scan.non_options
                        .push(rest_original.unwrap_or_else(|| OsString::from(lossy(&rest))));
                }
            }
            [Unit::Char('-'), Unit::Char('-'), rest @ ..] => {
                long_option(rest, &mut queue, &mut scan);
            }
            [Unit::Char('-'), first, rest @ ..] => {
                short_option(*first, rest, &mut queue, &mut scan);
            }
            // Everything else, including a lone `-`, is a non-option.
            _ => scan
                .non_options
                .push(original.unwrap_or_else(|| OsString::from(lossy(&units)))),
        }
    }
    scan
}

/// Handles `--name[=value]`, where `text` is what follows the `--`.
fn long_option(text: &[Unit], queue: &mut VecDeque<Pending>, scan: &mut Scan) {
    let (name_units, attached) = match text.iter().position(|u| *u == Unit::Char('=')) {
        Some(eq) => {
            let (name, rest) = text.split_at(eq);
            (name, Some(rest.get(1..).unwrap_or(&[])))
        }
        None => (text, None),
    };
    let name = lossy(name_units);
    // An exact name wins even when it is also a prefix of other names;
    // otherwise every option that the name abbreviates is a candidate.
    let exact: Vec<&OptDescr> = OPTIONS.iter().filter(|o| o.long == name).collect();
    let candidates = if exact.is_empty() {
        OPTIONS
            .iter()
            .filter(|o| o.long.starts_with(&name))
            .collect()
    } else {
        exact
    };
    let opt_str = format!("--{name}");
    let opt = match candidates.as_slice() {
        [] => {
            scan.unrecognized.push(format!("--{}", lossy(text)));
            return;
        }
        [opt] => *opt,
        _ => {
            let header = format!("option `{opt_str}' is ambiguous; could be one of:");
            scan.errors.push(usage_info(&header, &candidates));
            return;
        }
    };
    match (opt.kind, attached) {
        (ArgKind::No, None) => scan.given.push(Given {
            id: opt.id,
            value: None,
        }),
        (ArgKind::No, Some(_)) => scan
            .errors
            .push(format!("option `{opt_str}' doesn't allow an argument\n")),
        (ArgKind::Req(arg_name), None) => match queue.pop_front() {
            Some((next, _)) => scan.given.push(Given {
                id: opt.id,
                value: Some(Value::new(&next)),
            }),
            None => scan.errors.push(format!(
                "option `{opt_str}' requires an argument {arg_name}\n"
            )),
        },
        (ArgKind::Req(_) | ArgKind::Opt(_), Some(value)) => scan.given.push(Given {
            id: opt.id,
            value: Some(Value::new(value)),
        }),
        (ArgKind::Opt(_), None) => scan.given.push(Given {
            id: opt.id,
            value: None,
        }),
    }
}

/// Handles `-x...`: the option letter `letter`, followed by `rest` (the rest
/// of the cluster, or an attached value).
fn short_option(letter: Unit, rest: &[Unit], queue: &mut VecDeque<Pending>, scan: &mut Scan) {
    let opt = match letter {
        Unit::Char(c) => OPTIONS.iter().find(|o| o.short == Some(c)),
        Unit::Byte(_) => None,
    };
    let opt_str = format!("-{}", lossy(&[letter]));
    // As in GetOpt, the rest of a cluster is scanned again as a new argument
    // `-rest`; so `-v-` ends option processing and `-v-x` is the long option
    // `--x`.
    let push_rest = |queue: &mut VecDeque<Pending>| {
        if !rest.is_empty() {
            let mut again = Vec::with_capacity(rest.len() + 1);
            again.push(Unit::Char('-'));
            again.extend_from_slice(rest);
            queue.push_front((again, None));
        }
    };
    let Some(opt) = opt else {
        scan.unrecognized.push(opt_str);
        push_rest(queue);
        return;
    };
    match opt.kind {
        ArgKind::No => {
            scan.given.push(Given {
                id: opt.id,
                value: None,
            });
            push_rest(queue);
        }
        ArgKind::Req(arg_name) => {
            let value = if rest.is_empty() {
                queue.pop_front().map(|(next, _)| Value::new(&next))
            } else {
                Some(Value::new(rest))
            };
            match value {
                Some(value) => scan.given.push(Given {
                    id: opt.id,
                    value: Some(value),
                }),
                None => scan.errors.push(format!(
                    "option `{opt_str}' requires an argument {arg_name}\n"
                )),
            }
        }
        ArgKind::Opt(_) => scan.given.push(Given {
            id: opt.id,
            value: (!rest.is_empty()).then(|| Value::new(rest)),
        }),
    }
}

// ---------------------------------------------------------------------------
// Folding the recognised options into `Options`.
// ---------------------------------------------------------------------------

/// The state of Ganeti's option fold (`foldM (flip id) defaults opts`).
#[derive(Debug, Default)]
struct Fold {
    options: Options,
    help: bool,
    version: bool,
    completion: bool,
    /// Unimplemented options given, with their position in command-line order
    /// and their long name.
    unimplemented: Vec<(usize, &'static str)>,
    /// The position of the first `--mond` that means yes.
    first_mond_yes: Option<usize>,
}

impl Fold {
    /// Applies one option occurrence; `Err` carries hail's message.
    fn apply(&mut self, position: usize, given: &Given) -> Result<(), String> {
        let name = OPTIONS
            .iter()
            .find(|o| o.id == given.id)
            .map_or("", |o| o.long);
        let value = match &given.value {
            Some(value) if !value.utf8 => {
                return Err(format!(
                    "option --{name}: the value '{}' is not valid UTF-8",
                    value.text
                ));
            }
            Some(value) => Some(value.text.as_str()),
            None => None,
        };
        let text = value.unwrap_or("");
        let options = &mut self.options;
        match given.id {
            OptId::PrintNodes => {
                options.print_nodes = Some(parse_print_nodes(text));
                self.unimplemented.push((position, name));
            }
            OptId::Save => {
                options.save = Some(text.to_string());
                self.unimplemented.push((position, name));
            }
            OptId::TextData => {
                options.text_data = Some(text.to_string());
                self.unimplemented.push((position, name));
            }
            OptId::Simulate => {
                options.simulate.insert(0, text.to_string());
                self.unimplemented.push((position, name));
            }
            OptId::Verbose => options.verbose = options.verbose.saturating_add(1),
            OptId::IgnoreDynu => options.ignore_dynu = true,
            OptId::IgnoreSoftErrors => options.ignore_soft_errors = true,
            OptId::NoCapacityChecks => options.no_capacity_checks = true,
            OptId::RestrictAllocationTo => {
                options.restrict_allocation_to = Some(sep_split(text));
            }
            OptId::Mond => {
                let yes = match value {
                    None | Some("yes") => true,
                    Some("no") => false,
                    Some(other) => {
                        return Err(format!(
                            "Invalid choice '{other}', pass one of 'yes' or 'no'"
                        ))
                    }
                };
                options.mond = yes;
                if yes && self.first_mond_yes.is_none() {
                    self.first_mond_yes = Some(position);
                }
            }
            OptId::MondXen => options.mond_xen = true,
            OptId::StaticKvmNodeMemory => {
                options.static_kvm_node_memory = read_int(text).map_err(|e| match e {
                    ReadError::NoParse => {
                        format!("static node memory: cannot parse string '{text}'")
                    }
                    ReadError::Leftover(rest) => format!(
                        "static node memory: leftover characters when parsing '{text}': \
                         '{rest}'"
                    ),
                })?;
            }
            OptId::N1Rule => {
                options.n1_rule = match text {
                    "3.0" => N1Rule::Hail30,
                    "3.1" => N1Rule::Ganeti31,
                    other => {
                        return Err(format!(
                            "Invalid N+1 rule '{other}', pass one of '3.0' or '3.1'"
                        ))
                    }
                };
            }
            OptId::Version => self.version = true,
            OptId::Help => self.help = true,
            OptId::HelpCompletion => self.completion = true,
        }
        Ok(())
    }
}

/// Ganeti's `sepSplit ','`: an empty string gives no elements; otherwise the
/// pieces between commas, including empty ones.
fn sep_split(text: &str) -> Vec<String> {
    if text.is_empty() {
        Vec::new()
    } else {
        text.split(',').map(str::to_string).collect()
    }
}

/// hail's `-p` value handling (`CLI.oPrintNodes`) followed by the field-list
/// interpretation of `Cluster.printNodes`.
fn parse_print_nodes(value: &str) -> PrintNodes {
    let mut fields = Vec::new();
    let rest = match value.strip_prefix('+') {
        Some(rest) => {
            fields.push("+".to_string());
            rest
        }
        None => value,
    };
    fields.extend(sep_split(rest));
    match fields.split_first() {
        None => PrintNodes::Defaults,
        Some((first, tail)) if first == "+" => PrintNodes::DefaultsPlus(tail.to_vec()),
        Some(_) => PrintNodes::Fields(fields),
    }
}

// ---------------------------------------------------------------------------
// Haskell's `reads :: ReadS Int`.
// ---------------------------------------------------------------------------

/// Why a string is not an `Int` for Ganeti's `tryRead`.
#[derive(Debug, PartialEq)]
enum ReadError {
    /// `reads` found no parse.
    NoParse,
    /// `reads` parsed a prefix; this is the rest.
    Leftover(String),
}

/// Ganeti's `tryRead` at type `Int`, i.e. GHC's `reads`: optional white space
/// and balanced parentheses around an optional `-` sign and a number, where a
/// number is decimal digits, or `0x`/`0X` hex digits, or `0o`/`0O` octal
/// digits. A decimal number with a fraction or an exponent is a number token
/// that is not an integer, so it does not parse at all. Values wrap around
/// modulo 2^64, as `fromInteger` does for `Int`.
fn read_int(text: &str) -> Result<i64, ReadError> {
    let chars: Vec<char> = text.chars().collect();
    let mut pos = skip_spaces(&chars, 0);
    let mut open = 0usize;
    while chars.get(pos) == Some(&'(') {
        open += 1;
        pos = skip_spaces(&chars, pos + 1);
    }
    let negative = chars.get(pos) == Some(&'-');
    if negative {
        // A `-` must be a token of its own: the only continuations that can
        // lead to a number are white space and digits, neither of which can
        // extend a symbol token.
        pos = skip_spaces(&chars, pos + 1);
    }
    let (magnitude, end) = lex_integer(&chars, pos).ok_or(ReadError::NoParse)?;
    pos = end;
    for _ in 0..open {
        pos = skip_spaces(&chars, pos);
        if chars.get(pos) != Some(&')') {
            return Err(ReadError::NoParse);
        }
        pos += 1;
    }
    let value = if negative {
        magnitude.wrapping_neg()
    } else {
        magnitude
    };
    match chars.get(pos..) {
        Some(rest) if !rest.is_empty() => Err(ReadError::Leftover(rest.iter().collect())),
        _ => Ok(value),
    }
}

/// Lexes a number token at `pos` (GHC's `Text.Read.Lex.lexNumber`) and
/// converts it to an `Int`; returns the value and the position after the
/// token, or `None` when there is no integer token there.
fn lex_integer(chars: &[char], pos: usize) -> Option<(i64, usize)> {
    // `0x1F` and `0o17`, when at least one digit of the base follows.
    if chars.get(pos) == Some(&'0') {
        let base = match chars.get(pos + 1) {
            Some('x' | 'X') => Some(16),
            Some('o' | 'O') => Some(8),
            _ => None,
        };
        if let Some(base) = base {
            let (value, end) = digits(chars, pos + 2, base);
            if end > pos + 2 {
                return Some((value, end));
            }
        }
    }
    let (value, end) = digits(chars, pos, 10);
    if end == pos {
        return None;
    }
    let is_digit = |i: usize| chars.get(i).is_some_and(char::is_ascii_digit);
    // A fraction (`.` and a digit) or an exponent (`e`, an optional sign, and a
    // digit) belongs to the token, which then is not an integer.
    if chars.get(end) == Some(&'.') && is_digit(end + 1) {
        return None;
    }
    if matches!(chars.get(end), Some('e' | 'E'))
        && (is_digit(end + 1)
            || (matches!(chars.get(end + 1), Some('+' | '-')) && is_digit(end + 2)))
    {
        return None;
    }
    Some((value, end))
}

/// Reads the digits of `base` starting at `pos`, wrapping around modulo 2^64;
/// returns the value and the position after the last digit.
fn digits(chars: &[char], mut pos: usize, base: u32) -> (i64, usize) {
    let mut value: i64 = 0;
    while let Some(digit) = chars.get(pos).and_then(|c| c.to_digit(base)) {
        value = value
            .wrapping_mul(i64::from(base))
            .wrapping_add(i64::from(digit));
        pos += 1;
    }
    (value, pos)
}

/// Skips GHC's `isSpace` characters from `pos`.
fn skip_spaces(chars: &[char], mut pos: usize) -> usize {
    while chars.get(pos).copied().is_some_and(is_haskell_space) {
        pos += 1;
    }
    pos
}

/// GHC's `Data.Char.isSpace`: the Latin-1 white space characters, and the
/// Unicode space separators (general category Zs).
fn is_haskell_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option table of the help text, as hail prints it, plus hailstone's
    /// `--n1-rule` line.
    const TABLE: &str = "  -p[FIELDS]  --print-nodes[=FIELDS]             print the final node list
  -S FILE     --save=FILE                        Save cluster state at the end of the processing to FILE
  -t FILE     --text-data=FILE                   the cluster data FILE
              --simulate=SPEC                    simulate an empty cluster, given as 'alloc_policy,num_nodes,disk,ram,cpu'
  -v          --verbose                          increase the verbosity level
              --ignore-dynu                      Ignore any dynamic utilisation information
              --ignore-soft-errors               Ignore any soft restrictions in balancing
              --no-capacity-checks               disable capacity checks (like global N+1 redundancy)
              --restrict-allocation-to=NODE,...  Restrict allocations to the given set of nodes
              --mond[=CHOICE]                    pass either 'yes' or 'no' to query all monDs
              --mond-xen                         also consider xen-specific collectors in MonD queries
              --static-kvm-node-memory=N         use static node memory [in MB] on KVM instead of value reported by hypervisor. Use 0 to take value reported from hypervisor.
              --n1-rule=RULE                     initial N+1 state of a node: 3.0 (hail 3.0.2, default) or 3.1 (Ganeti 3.1)
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

    /// Runs the scan and the fold only (no help, argument-count or
    /// not-implemented checks), to inspect the values of any option.
    fn fold(list: &[&str]) -> Fold {
        let scan = scan(&args(list));
        assert!(
            scan.errors.is_empty() && scan.unrecognized.is_empty(),
            "{scan:?}"
        );
        let mut fold = Fold::default();
        for (position, given) in scan.given.iter().enumerate() {
            if let Err(msg) = fold.apply(position, given) {
                panic!("{list:?}: {msg}");
            }
        }
        fold
    }

    fn command_line_error(errors: &str) -> (u8, String) {
        (2, format!("Command line error: {errors}\n{}", usage()))
    }

    fn value_error(msg: &str) -> (u8, String) {
        (
            1,
            format!("Error while parsing command line arguments:\n{msg}\n"),
        )
    }

    fn not_implemented(name: &str) -> (u8, String) {
        (
            2,
            format!(
                "hailstone: option --{name} is accepted by hail but not implemented in \
                 hailstone yet\n"
            ),
        )
    }

    #[test]
    fn usage_matches_hail_layout() {
        let expected = format!(
            "hailstone version {}\nUsage: hailstone [OPTION...]\n{TABLE}",
            env!("CARGO_PKG_VERSION")
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
--n1-rule choices=3.0,3.1
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
    --ignore-soft-errors  Ignore any soft restrictions in balancing
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
        // `--n` is ambiguous once `--n1-rule` exists.
        assert_eq!(
            fail(&["--n", "x"]),
            command_line_error(
                "option `--n' is ambiguous; could be one of:
    --no-capacity-checks  disable capacity checks (like global N+1 redundancy)
    --n1-rule=RULE        initial N+1 state of a node: 3.0 (hail 3.0.2, default) or 3.1 (Ganeti 3.1)
"
            )
        );
        // An empty name abbreviates every option.
        assert_eq!(
            fail(&["--=x"]),
            command_line_error(&format!(
                "option `--' is ambiguous; could be one of:\n{TABLE}"
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
    --ignore-soft-errors  Ignore any soft restrictions in balancing
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
            (
                &["--mond-=a"],
                "option `--mond-' doesn't allow an argument\n",
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
        assert_eq!(
            fail(&["--n1-rule=3.2", "x"]),
            value_error("Invalid N+1 rule '3.2', pass one of '3.0' or '3.1'")
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
        assert!(inv.options.ignore_soft_errors);
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
        assert!(ok(&["--no-cap", "x"]).no_capacity_checks);
        assert!(ok(&["--no", "x"]).no_capacity_checks);
        assert!(ok(&["--ignore-s", "x"]).ignore_soft_errors);
        assert!(ok(&["--ignore-d", "x"]).ignore_dynu);
        assert_eq!(ok(&["--verb", "x"]).verbose, 2);
        assert_eq!(ok(&["--st=7", "x"]).static_kvm_node_memory, 7);
        assert_eq!(ok(&["--st", "8", "x"]).static_kvm_node_memory, 8);
        assert_eq!(
            ok(&["--rest=a,b", "x"]).restrict_allocation_to,
            Some(vec!["a".to_string(), "b".to_string()])
        );
        // `--mond` is exact, although it is also a prefix of `--mond-xen`.
        let options = ok(&["--mond=no", "x"]);
        assert!(!options.mond && !options.mond_xen);
        assert!(ok(&["--mond-", "x"]).mond_xen);
        assert_eq!(ok(&["--n1", "3.1", "x"]).n1_rule, N1Rule::Ganeti31);
        assert_eq!(
            fold(&["--simu=p,3,1,2,3"]).options.simulate,
            vec!["p,3,1,2,3"]
        );
        assert_eq!(
            fail(&["--simu=p,3,1,2,3", "x"]),
            not_implemented("simulate")
        );
    }

    #[test]
    fn option_values() {
        let options = fold(&["-tFILE"]).options;
        assert_eq!(options.text_data.as_deref(), Some("FILE"));
        assert_eq!(fold(&["-t", "-v"]).options.text_data.as_deref(), Some("-v"));
        assert_eq!(
            fold(&["--save", "--help"]).options.save.as_deref(),
            Some("--help")
        );
        assert_eq!(fold(&["-S", "a", "-Sb"]).options.save.as_deref(), Some("b"));
        assert_eq!(
            fold(&["--simulate=a", "--simulate", "b", "--simulate=c"])
                .options
                .simulate,
            vec!["c", "b", "a"]
        );
        let restrict = |list: &[&str]| fold(list).options.restrict_allocation_to;
        assert_eq!(restrict(&["--restrict-allocation-to="]), Some(vec![]));
        assert_eq!(
            restrict(&["--restrict-allocation-to=a,"]),
            Some(vec!["a".into(), "".into()])
        );
        assert_eq!(
            restrict(&["--restrict-allocation-to=a", "--restrict-allocation-to=b,c"]),
            Some(vec!["b".into(), "c".into()])
        );
        assert!(fold(&["--mond"]).options.mond);
        assert!(!fold(&["--mond", "--mond=no"]).options.mond);
        assert_eq!(fold(&["--n1-rule=3.0"]).options.n1_rule, N1Rule::Hail30);
        assert_eq!(
            fold(&["--static-kvm-node-memory=-0"])
                .options
                .static_kvm_node_memory,
            0
        );
    }

    #[test]
    fn print_nodes_fields() {
        let pn = |list: &[&str]| fold(list).options.print_nodes;
        let strings = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(pn(&[]), None);
        assert_eq!(pn(&["-p"]), Some(PrintNodes::Defaults));
        assert_eq!(pn(&["-p", "name"]), Some(PrintNodes::Defaults));
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
    fn unimplemented_options_are_refused() {
        assert_eq!(
            fail(&["-v", "-tfoo", "--save=x", "x"]),
            not_implemented("text-data")
        );
        assert_eq!(fail(&["-S", "f", "x"]), not_implemented("save"));
        assert_eq!(fail(&["-p", "x"]), not_implemented("print-nodes"));
        assert_eq!(fail(&["x", "--mond"]), not_implemented("mond"));
        assert_eq!(
            fail(&["--mond=no", "--mond=yes", "-p", "x"]),
            not_implemented("mond")
        );
        assert_eq!(
            fail(&["--mond", "-p", "--mond=no", "x"]),
            not_implemented("print-nodes")
        );
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
                message: format!(
                    "Command line error: unrecognized option `-\u{FFFD}'\n\
                     unrecognized option `--sa\u{FFFD}ve=1'\n\n{}",
                    usage()
                )
            })
        );
    }

    #[test]
    fn haskell_reads_int() {
        let ok_cases: &[(&str, i64)] = &[
            ("5", 5),
            (" 5", 5),
            ("\t\n5", 5),
            ("\u{a0}5", 5),
            ("\u{2000}5", 5),
            ("(5)", 5),
            ("((5))", 5),
            ("( -5 )", -5),
            ("-5", -5),
            ("- 5", -5),
            ("0x10", 16),
            ("0X1f", 31),
            ("0o17", 15),
            ("-0x10", -16),
            ("00012", 12),
            ("0", 0),
            ("9223372036854775807", i64::MAX),
            ("9223372036854775808", i64::MIN),
            ("-9223372036854775808", i64::MIN),
            ("18446744073709551616", 0),
            (
                "99999999999999999999",
                99999999999999999999u128 as u64 as i64,
            ),
        ];
        for (text, value) in ok_cases {
            assert_eq!(read_int(text), Ok(*value), "{text:?}");
        }
        let no_parse = [
            "",
            " ",
            "abc",
            "+5",
            "1e3",
            "1E3",
            "1e+3",
            "1e-3",
            "1.5",
            "1.5e3",
            "-(5)",
            "(5",
            "((5)",
            "(5x)",
            "--5",
            "- -5",
            "٣",
            "\u{2028}5",
            "\u{85}5",
            "-",
            "()",
        ];
        for text in no_parse {
            assert_eq!(read_int(text), Err(ReadError::NoParse), "{text:?}");
        }
        let leftover: &[(&str, &str)] = &[
            ("5MB", "MB"),
            ("5 ", " "),
            ("(5) ", " "),
            ("(5))", ")"),
            ("0b101", "b101"),
            ("1.", "."),
            ("5e", "e"),
            ("5e+", "e+"),
            ("5.e3", ".e3"),
            ("0x", "x"),
            ("0xg", "xg"),
            ("0o8", "o8"),
            ("00x5", "x5"),
            ("1_000", "_000"),
            ("0x1.5", ".5"),
            ("0x1.5e", ".5e"),
            ("5\u{2028}", "\u{2028}"),
        ];
        for (text, rest) in leftover {
            assert_eq!(
                read_int(text),
                Err(ReadError::Leftover(rest.to_string())),
                "{text:?}"
            );
        }
    }

    #[test]
    fn sep_split_matches_ganeti() {
        assert_eq!(sep_split(""), Vec::<String>::new());
        assert_eq!(sep_split(","), vec!["", ""]);
        assert_eq!(sep_split("a"), vec!["a"]);
        assert_eq!(sep_split("a,,b,"), vec!["a", "", "b", ""]);
    }

    #[test]
    fn haskell_lines_matches_prelude() {
        assert_eq!(haskell_lines(""), Vec::<&str>::new());
        assert_eq!(haskell_lines("a"), vec!["a"]);
        assert_eq!(haskell_lines("a\n"), vec!["a"]);
        assert_eq!(haskell_lines("a\n\nb"), vec!["a", "", "b"]);
    }
}
