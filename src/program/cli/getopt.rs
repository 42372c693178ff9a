//! GHC's `System.Console.GetOpt` in `Permute` mode, which every htools
//! program reads its command line with, over a program's option table:
//! long-option prefixes, clustered short options, `--`, the error texts,
//! and the usage and completion texts. What the options mean is
//! [`super::options`]'.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};

use super::suggest;
use crate::write::exit_status::ExitStatus;

/// What the process should do instead of running, when a command line does
/// not give a program something to run.
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

/// Whether an option takes a value, as GetOpt's `ArgDescr`; the string is the
/// value's name in the help text.
#[derive(Debug, Clone, Copy)]
pub enum ArgKind {
    /// `NoArg`: no value allowed.
    No,
    /// `ReqArg`: a value is required (`--opt=V`, `--opt V`, `-oV`, `-o V`).
    Req(&'static str),
    /// `OptArg`: an optional value, only in the attached forms (`--opt=V`,
    /// `-oV`).
    Opt(&'static str),
    /// hailstone only: a flag shown as `NoArg`, that also takes an attached
    /// value in its long form (`--opt=yes`), because Ganeti passes
    /// allocator options only as `--key=value` (its values are read by
    /// `cli::options`).
    Flag,
}

/// One option: GetOpt's `OptDescr` plus Ganeti's completion kind. `Id`
/// identifies the option to the program independently of the name it was
/// given by.
#[derive(Debug, Clone, Copy)]
pub struct OptDescr<Id> {
    /// The program's name for the option.
    pub id: Id,
    /// The short name (`-v`), if any.
    pub short: Option<char>,
    /// The long name, without `--`.
    pub long: &'static str,
    /// Whether it takes a value.
    pub kind: ArgKind,
    /// The help text (may span lines).
    pub help: &'static str,
    /// Ganeti's completion kind (`none`, `file`, `choices=...`).
    pub completion: &'static str,
    /// Whether only hailstone's program has it: an abbreviation matches
    /// it only when it matches none of the original's options.
    pub own: bool,
}

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
pub struct Value {
    /// The value, with U+FFFD in place of bytes that are not valid UTF-8.
    pub text: String,
    /// Whether the value was valid UTF-8 (and `text` is therefore exact).
    pub utf8: bool,
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
pub struct Given<Id> {
    /// Which option.
    pub id: Id,
    /// Its value, if one was given.
    pub value: Option<Value>,
}

/// What GetOpt found on the command line.
#[derive(Debug)]
pub struct Scan<Id> {
    /// The recognised options, in command-line order.
    pub given: Vec<Given<Id>>,
    /// The arguments that are not options.
    pub non_options: Vec<OsString>,
    /// Ambiguity, missing-argument and unexpected-argument messages, each
    /// ending with a newline.
    pub errors: Vec<String>,
    /// Unrecognised options, as typed (e.g. `--foo=bar`, `-x`).
    pub unrecognized: Vec<String>,
}

/// An argument waiting to be scanned: its units, and the original argument
/// unless GetOpt synthesised it from the rest of a short-option cluster.
type Pending = (Vec<Unit>, Option<OsString>);

/// Runs GetOpt's `Permute` scan of `args` (without `argv[0]`) over `table`.
pub fn scan<Id: Copy>(table: &[OptDescr<Id>], args: &[OsString]) -> Scan<Id> {
    let mut queue: VecDeque<Pending> = args
        .iter()
        .map(|arg| (decode(arg), Some(arg.clone())))
        .collect();
    let mut scan = Scan {
        given: Vec::new(),
        non_options: Vec::new(),
        errors: Vec::new(),
        unrecognized: Vec::new(),
    };
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
                long_option(table, rest, &mut queue, &mut scan);
            }
            [Unit::Char('-'), first, rest @ ..] => {
                short_option(table, *first, rest, &mut queue, &mut scan);
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
fn long_option<Id: Copy>(
    table: &[OptDescr<Id>],
    text: &[Unit],
    queue: &mut VecDeque<Pending>,
    scan: &mut Scan<Id>,
) {
    let (name_units, attached) = match text.iter().position(|u| *u == Unit::Char('=')) {
        Some(eq) => {
            let (name, rest) = text.split_at(eq);
            (name, Some(rest.get(1..).unwrap_or(&[])))
        }
        None => (text, None),
    };
    let name = lossy(name_units);
    // An exact name wins even when it is also a prefix of other names;
    // otherwise every option that the name abbreviates is a candidate, the
    // original's options first: an abbreviation the original takes keeps
    // its meaning (`--print` is hroller's `--print-moves`, not ambiguous
    // with hailstone-roll's own `--print-cost`), and the options only
    // hailstone has are candidates when none of the original's is.
    let exact: Vec<&OptDescr<Id>> = table.iter().filter(|o| o.long == name).collect();
    let candidates = if exact.is_empty() {
        let prefixed = table.iter().filter(|o| o.long.starts_with(&name));
        let originals: Vec<&OptDescr<Id>> = prefixed.clone().filter(|o| !o.own).collect();
        if originals.is_empty() {
            prefixed.collect()
        } else {
            originals
        }
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
        (ArgKind::No | ArgKind::Flag, None) => scan.given.push(Given {
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
        (ArgKind::Req(_) | ArgKind::Opt(_) | ArgKind::Flag, Some(value)) => {
            scan.given.push(Given {
                id: opt.id,
                value: Some(Value::new(value)),
            })
        }
        (ArgKind::Opt(_), None) => scan.given.push(Given {
            id: opt.id,
            value: None,
        }),
    }
}

/// Handles `-x...`: the option letter `letter`, followed by `rest` (the rest
/// of the cluster, or an attached value).
fn short_option<Id: Copy>(
    table: &[OptDescr<Id>],
    letter: Unit,
    rest: &[Unit],
    queue: &mut VecDeque<Pending>,
    scan: &mut Scan<Id>,
) {
    let opt = match letter {
        Unit::Char(c) => table.iter().find(|o| o.short == Some(c)),
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
        ArgKind::No | ArgKind::Flag => {
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

/// GetOpt's error report, when the scan found any: every scanning error at
/// once, first the ambiguous, missing-argument and unexpected-argument
/// errors, then the unrecognised options, each group in command-line order
/// (GetOpt's words). Then, where the original prints its whole usage,
/// hailstone names the nearest long option of `table` to each unknown one
/// (`--explian: did you mean --explain?`) and ends with `see PROGRAM
/// --help`. Exit
/// status 2 ([`ExitStatus::Usage`]).
pub fn command_line_error<Id>(
    scan: &Scan<Id>,
    table: &[OptDescr<Id>],
    program: &str,
) -> Option<Exit> {
    if scan.errors.is_empty() && scan.unrecognized.is_empty() {
        return None;
    }
    let mut message = String::from("Command line error: ");
    for error in &scan.errors {
        message.push_str(error);
    }
    for option in &scan.unrecognized {
        message.push_str(&format!("unrecognized option `{option}'\n"));
    }
    for option in &scan.unrecognized {
        let Some(long) = option.strip_prefix("--") else {
            continue;
        };
        let name = long.split_once('=').map_or(long, |(n, _)| n);
        let near: Vec<String> = suggest::nearest_all(name, table.iter().map(|o| o.long))
            .iter()
            .map(|n| format!("--{n}"))
            .collect();
        if !near.is_empty() {
            let near: Vec<&str> = near.iter().map(String::as_str).collect();
            message.push_str(&format!(
                "--{name}: did you mean {}?\n",
                suggest::one_of(&near)
            ));
        }
    }
    message.push_str(&suggest::see_help(program));
    Some(Exit::Stderr {
        code: ExitStatus::Usage.code(),
        message,
    })
}

/// An option value's text for the program's fold: `None` when no value was
/// given; an error (the program's option `name` in it) when the value is not
/// valid UTF-8.
pub fn value_text<'a, Id>(given: &'a Given<Id>, name: &str) -> Result<Option<&'a str>, String> {
    match &given.value {
        Some(value) if !value.utf8 => Err(format!(
            "option --{name}: the value '{}' is not valid UTF-8",
            value.text
        )),
        Some(value) => Ok(Some(value.text.as_str())),
        None => Ok(None),
    }
}

/// Ganeti's report of a bad value of one of the original's options: exit
/// 1, as the originals exit ([`crate::write::exit_status::ExitStatus::Failed`]).
pub fn value_error(message: &str) -> Exit {
    Exit::Stderr {
        code: ExitStatus::Failed.code(),
        message: format!("Error while parsing command line arguments:\n{message}\n"),
    }
}

/// An `Error: <msg>` exit with status 1, as Ganeti's `exitErr` prints it
/// (the originals' own argument checks).
pub fn error_exit(message: &str) -> Exit {
    Exit::Stderr {
        code: ExitStatus::Failed.code(),
        message: format!("Error: {message}\n"),
    }
}

/// A usage error of hailstone's own (an option or an argument only
/// hailstone has): `Error: <msg>` saying what is valid, then
/// `see PROGRAM --help`; exit status 2.
pub fn usage_error(program: &str, message: &str) -> Exit {
    Exit::Stderr {
        code: ExitStatus::Usage.code(),
        message: format!("Error: {message}\n{}", suggest::see_help(program)),
    }
}

/// The usage text of a whole table under `header`.
pub fn usage<Id>(header: &str, table: &[OptDescr<Id>]) -> String {
    let all: Vec<&OptDescr<Id>> = table.iter().collect();
    usage_info(header, &all)
}

/// An option's names as the help table shows them, comma-separated
/// (`-p[FIELDS], --print-nodes[=FIELDS]`).
pub fn names<Id>(opt: &OptDescr<Id>) -> String {
    let (short, long) = columns(opt);
    if short.is_empty() {
        long
    } else {
        format!("{short}, {long}")
    }
}

/// The short-name and long-name columns of an option's help row.
fn columns<Id>(opt: &OptDescr<Id>) -> (String, String) {
    let short = match opt.short {
        None => String::new(),
        Some(c) => match opt.kind {
            ArgKind::No | ArgKind::Flag => format!("-{c}"),
            ArgKind::Req(name) => format!("-{c} {name}"),
            ArgKind::Opt(name) => format!("-{c}[{name}]"),
        },
    };
    let long = match opt.kind {
        ArgKind::No | ArgKind::Flag => format!("--{}", opt.long),
        ArgKind::Req(name) => format!("--{}={name}", opt.long),
        ArgKind::Opt(name) => format!("--{}[={name}]", opt.long),
    };
    (short, long)
}

/// GetOpt's `usageInfo`: the header line, then one row per option (and per
/// extra description line), with the short-name and long-name columns padded
/// to the widest entry among `opts` only.
pub fn usage_info<Id>(header: &str, opts: &[&OptDescr<Id>]) -> String {
    let mut rows: Vec<(String, String, &str)> = Vec::new();
    for opt in opts {
        let (short, long) = columns(opt);
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

/// The text printed by `--help-completion`: one line per option (its names
/// and the completion kind), then `arguments` (one line per kind of
/// argument, e.g. `file 1 1`).
pub fn completion_text<Id>(table: &[OptDescr<Id>], arguments: &str) -> String {
    let mut text = String::new();
    for opt in table {
        let mut names = Vec::new();
        if let Some(short) = opt.short {
            names.push(format!("-{short}"));
        }
        names.push(format!("--{}", opt.long));
        text.push_str(&format!("{} {}\n", names.join(","), opt.completion));
    }
    text.push_str(arguments);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn haskell_lines_matches_prelude() {
        assert_eq!(haskell_lines(""), Vec::<&str>::new());
        assert_eq!(haskell_lines("a"), vec!["a"]);
        assert_eq!(haskell_lines("a\n"), vec!["a"]);
        assert_eq!(haskell_lines("a\n\nb"), vec!["a", "", "b"]);
    }

    fn row(long: &'static str, own: bool) -> OptDescr<&'static str> {
        OptDescr {
            id: long,
            short: None,
            long,
            kind: ArgKind::No,
            help: "",
            completion: "none",
            own,
        }
    }

    /// An abbreviation means the original's option when it matches one,
    /// and an option only hailstone has when it matches none of them.
    #[test]
    fn abbreviations_prefer_the_originals_options() {
        let table = [
            row("print-moves", false),
            row("print-nodes", false),
            row("print-cost", true),
        ];
        let given = |arg: &str| {
            let s = scan(&table, &[OsString::from(arg)]);
            (s.given.iter().map(|g| g.id).collect::<Vec<_>>(), s.errors)
        };
        assert_eq!(given("--print-m"), (vec!["print-moves"], vec![]));
        assert_eq!(given("--print-c"), (vec!["print-cost"], vec![]));
        assert_eq!(given("--print-cost"), (vec!["print-cost"], vec![]));
        let (ids, errors) = given("--print");
        assert!(ids.is_empty());
        assert_eq!(errors.len(), 1);
        assert!(errors[0].contains("--print-moves") && errors[0].contains("--print-nodes"));
        assert!(!errors[0].contains("--print-cost"), "{}", errors[0]);
        let only_one = [row("print-moves", false), row("print-cost", true)];
        let s = scan(&only_one, &[OsString::from("--print")]);
        assert_eq!(
            s.given.iter().map(|g| g.id).collect::<Vec<_>>(),
            ["print-moves"]
        );
    }
}
