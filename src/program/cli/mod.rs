//! The command line of every hailstone program, as Ganeti's htools read
//! theirs (`Ganeti.HTools.CLI`, `Ganeti.Common.parseOptsInner`): one
//! entry per option, holding all of it ([`table`], declared with
//! [`declare`], its values read by [`value`]), one settings record
//! ([`options`]), GHC's GetOpt ([`getopt`]); a program is a [`Program`]:
//! its name and the list of the options it takes.
//!
//! A command line is checked in Ganeti's order:
//!
//! 1. GetOpt errors: exit 2, `Command line error: ...` followed by the
//!    nearest option to each unknown one and `see PROGRAM --help`
//!    (where the originals print their whole usage).
//! 2. Option values, first failing option in command-line order: exit 1
//!    with Ganeti's words for an option the original takes, as it exits;
//!    exit 2 ([`getopt::usage_error`]) for an option only hailstone has.
//! 3. `--help`, then `--version`, then `--help-completion`: stdout, exit 0.
//! 4. The program's own argument checks, on the arguments [`parse`]
//!    returns.

pub mod decides;
pub mod declare;
pub mod getopt;
pub mod options;
pub mod suggest;
pub mod table;
pub mod value;

use std::ffi::OsString;

pub use getopt::Exit;
use getopt::{ArgKind, OptDescr};
pub use options::{
    ExplainTo, Options, Primary, ShadowSettings, DEFAULT_LUXI_SOCKET, DEFAULT_SHADOW_CONFIG,
};
pub use table::Opt;

use crate::read::loader::GanetiVersion;
use crate::write::manual::{self, Manual};

/// One option as a program takes it.
#[derive(Debug, Clone, Copy)]
pub struct Use {
    /// The option.
    pub opt: Opt,
    /// The program's own help text, where it narrows the option's meaning.
    pub help: Option<&'static str>,
    /// Whether only hailstone's program has it (the original it mirrors
    /// does not): its value errors are usage errors (exit 2), where the
    /// original's options keep the original's status (exit 1).
    pub own: bool,
}

/// An option the original program also takes, with the table's help text.
pub const fn take(opt: Opt) -> Use {
    Use {
        opt,
        help: None,
        own: false,
    }
}

/// An option the original program also takes, with the program's own
/// help text.
pub const fn take_as(opt: Opt, help: &'static str) -> Use {
    Use {
        opt,
        help: Some(help),
        own: false,
    }
}

/// An option only hailstone's program has, with the table's help text.
pub const fn take_own(opt: Opt) -> Use {
    Use {
        opt,
        help: None,
        own: true,
    }
}

/// An option only hailstone's program has, with the program's own help
/// text.
pub const fn take_own_as(opt: Opt, help: &'static str) -> Use {
    Use {
        opt,
        help: Some(help),
        own: true,
    }
}

/// A program's command line.
#[derive(Debug)]
pub struct Program {
    /// The name it prints (`hailstone-balance`).
    pub name: &'static str,
    /// The original it is compatible with, for `--version` (`hbal`).
    pub original: &'static str,
    /// What follows the name in the usage line.
    pub synopsis: &'static str,
    /// The options it takes, in its help order.
    pub options: &'static [Use],
    /// The argument lines of `--help-completion` (e.g. `file 1 1\n`).
    pub arguments: &'static str,
    /// Whether its switches also take `=yes|no|true|false` (hailstone:
    /// Ganeti passes an allocator's options only as `--key=value`).
    pub flag_values: bool,
    /// What `--help` and the man page say beyond the options.
    pub manual: Manual,
}

impl Program {
    /// Parses the command line (without `argv[0]`) of a program that
    /// takes no arguments (`exitErr "This program doesn't take any
    /// arguments."` otherwise).
    ///
    /// # Errors
    ///
    /// The [`Exit`] the original would take instead of running.
    pub fn parse_without_arguments(&self, args: &[OsString]) -> Result<Options, Exit> {
        let (options, arguments) = parse(self, args)?;
        no_arguments(&arguments)?;
        Ok(options)
    }

    /// The exit for a bad value `message` of the option `opt` (long name
    /// `long`): Ganeti's report and exit 1 for an option the original
    /// takes, a usage error (exit 2) for one only hailstone has.
    fn value_error(&self, opt: Opt, long: &str, message: &str) -> Exit {
        let own = self.options.iter().any(|u| u.opt == opt && u.own);
        if own {
            getopt::usage_error(self.name, &format!("option --{long}: {message}"))
        } else {
            getopt::value_error(message)
        }
    }

    /// The GetOpt table of the program: the table's rows in its order,
    /// with its help texts and its kind of switch.
    pub fn table(&self) -> Vec<OptDescr<Opt>> {
        self.options
            .iter()
            .map(|u| {
                let row = u.opt.descr();
                let kind = match row.kind {
                    ArgKind::Flag if !self.flag_values => ArgKind::No,
                    kind => kind,
                };
                OptDescr {
                    kind,
                    help: u.help.unwrap_or(row.help),
                    own: u.own,
                    ..*row
                }
            })
            .collect()
    }

    /// `--help`: the version line, the usage line, the option table,
    /// then what the program does, its exit statuses and examples.
    pub fn usage(&self) -> String {
        let header = format!(
            "{} version {}\nUsage: {} {}",
            self.name,
            env!("CARGO_PKG_VERSION"),
            self.name,
            self.synopsis
        );
        getopt::usage(&header, &self.table()) + &manual::help_tail(&self.manual)
    }

    /// The man page (roff); `see_also` names the other programs.
    pub fn man_page(&self, see_also: &[&str]) -> String {
        let rows: Vec<manual::OptionRow> = self
            .table()
            .iter()
            .map(|o| manual::OptionRow {
                names: getopt::names(o),
                help: o.help.to_owned(),
            })
            .collect();
        manual::man_page(
            self.name,
            env!("CARGO_PKG_VERSION"),
            self.synopsis,
            &self.manual,
            &rows,
            see_also,
        )
    }

    /// `--version`: the version and the original it is compatible with
    /// (that of the Ganeti release `ganeti` names).
    pub fn version(&self, ganeti: GanetiVersion) -> String {
        format!(
            "{} version {}\ncompatible with {} (ganeti) {}\n",
            self.name,
            env!("CARGO_PKG_VERSION"),
            self.original,
            ganeti.release()
        )
    }

    /// `--help-completion`: one line per option, then the argument lines.
    pub fn completion(&self) -> String {
        getopt::completion_text(&self.table(), self.arguments)
    }
}

/// Reads `args` (without `argv[0]`) for `program` (`parseOptsInner`):
/// GetOpt's scan and its error report, each option's value folded into the
/// settings in command-line order, then `--help`, `--version` and
/// `--help-completion`. Returns the settings and the arguments that are
/// not options, for the program's own checks.
///
/// # Errors
///
/// The [`Exit`] the program takes instead of running.
pub fn parse(program: &Program, args: &[OsString]) -> Result<(Options, Vec<OsString>), Exit> {
    let table = program.table();
    let scan = getopt::scan(&table, args);
    if let Some(exit) = getopt::command_line_error(&scan, &table, program.name) {
        return Err(exit);
    }
    let mut options = Options::default();
    for given in &scan.given {
        let long = given.id.descr().long;
        getopt::value_text(given, long)
            .and_then(|value| given.id.apply(&mut options, value))
            .map_err(|message| program.value_error(given.id, long, &message))?;
    }
    if options.show_help {
        return Err(Exit::Stdout(program.usage()));
    }
    if options.show_version {
        return Err(Exit::Stdout(program.version(options.load.ganeti)));
    }
    if options.show_completion {
        return Err(Exit::Stdout(program.completion()));
    }
    Ok((options, scan.non_options))
}

/// The planners' check after parsing: no arguments (exit 1).
///
/// # Errors
///
/// The [`Exit`] when there are arguments.
pub fn no_arguments(non_options: &[OsString]) -> Result<(), Exit> {
    if non_options.is_empty() {
        Ok(())
    } else {
        Err(getopt::error_exit(
            "This program doesn't take any arguments.",
        ))
    }
}
