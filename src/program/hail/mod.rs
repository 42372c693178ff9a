//! hail's program: the iallocator `hailstone INPUT [OPTIONS]`.
//!
//! [`options`] reads the command line; [`pipeline`] is the allocator's
//! pure core (bytes in; the answer, the notes, the `-S` files and the
//! explanation out, as values). [`main`] is its shell, run by `main.rs`
//! through [`crate::shell::exit`] as every program is: it reads the
//! request ([`input`]: a file, mapped, or stdin), the `-t` file, fetches `--mond`'s
//! reports, calls the core, then writes the `-S` files and the
//! explanation and prints. The fuzz targets and tests call the core.

pub mod input;
pub mod options;
pub mod pipeline;

use std::ffi::OsString;
use std::io::Write;

use options::{Exit, ExplainTo, Invocation, Options};
use pipeline::{DataFile, Explained, Failure, Inputs, Outcome, Teardown};

use crate::shell::exit::{self, closed_pipe, stop, Stop};
use crate::shell::{clock, explain_files, mond};
use crate::write::exit_status::ExitStatus;

/// The program's name in its messages.
const PROGRAM: &str = "hailstone";

/// What the command line asks for: a text to print (`--help`,
/// `--version`, `--help-completion`), or a request to answer.
enum Asked {
    Text(String),
    Answer(Box<Invocation>),
}

/// The `hailstone` process: the command line (without `argv[0]`), stdout
/// and stderr in; the exit status out (`ExitStatus`: 0 when an answer was
/// printed, also `"success": false`; 1 for bad input, data hail would fail
/// on or a `-S` file that cannot be written; 2 for command-line errors;
/// 141 quietly when stdout was closed).
pub fn main(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let asked = match options::parse(args) {
        Ok(invocation) => Ok(Asked::Answer(Box::new(invocation))),
        // Printed as an answer is (its own text when stdout fails).
        Err(Exit::Stdout(text)) => Ok(Asked::Text(text)),
        Err(e) => Err(e),
    };
    exit::main(PROGRAM, asked, run, out, err)
}

fn run(asked: &Asked, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), Stop> {
    match asked {
        Asked::Text(text) => print(text, out),
        Asked::Answer(invocation) => {
            let Invocation { options, input } = &**invocation;
            let request =
                input::read_request(input).map_err(|m| stop(format!("{PROGRAM}: error: {m}\n")))?;
            // hail reads a data file only when no simulation is asked for.
            let data_file = match (&options.text_data, options.simulate.is_empty()) {
                (Some(name), true) => Some(DataFile {
                    name: name.clone(),
                    contents: std::fs::read(name).map_err(|e| e.to_string()),
                }),
                _ => None,
            };
            let inputs = Inputs {
                request,
                data_file: data_file.as_ref(),
            };
            let outcome = match pipeline::load(&inputs, options) {
                Err(failed) => failed.into(),
                Ok(loaded) => {
                    // `--mond`: the reports of the loaded cluster's nodes.
                    let monitoring = options
                        .mond
                        .then(|| mond::collect(&loaded.node_names(), None, options));
                    pipeline::answer(loaded, monitoring, options, Teardown::Leak)
                }
            };
            deliver(outcome, options, out, err)
        }
    }
}

/// Writes the outcome: the `-S` files first, so that a file that cannot be
/// written stops the run with no answer on stdout; then the notes, the
/// explanation and the answer.
fn deliver(
    outcome: Outcome,
    options: &Options,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Stop> {
    for save in &outcome.saves {
        if let Err(e) = std::fs::write(&save.path, &save.contents) {
            err.write_all(&outcome.stderr.as_bytes()[..save.stderr_at])?;
            return Err(stop(format!(
                "{PROGRAM}: error: cannot write {:?}: {e}\n",
                save.path
            )));
        }
    }
    err.write_all(outcome.stderr.as_bytes())?;
    if let Some(explained) = &outcome.explanation {
        write_explanation(explained, options, err)?;
    }
    match outcome.answer {
        Ok(answer) => print(&answer, out),
        Err(Failure::Input(message)) => Err(stop(format!("{PROGRAM}: error: {message}\n"))),
        Err(Failure::Run(e)) => Err(stop(format!("{PROGRAM}: {e}\n"))),
    }
}

/// Writes `text` to stdout; a reader that went away is a quiet
/// [`closed_pipe`], any other failure [`ExitStatus::Failed`] with the
/// error.
fn print(text: &str, out: &mut dyn Write) -> Result<(), Stop> {
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(closed_pipe()),
        Err(e) => Err(Stop {
            code: ExitStatus::Failed.code(),
            message: format!("{PROGRAM}: cannot write the answer: {e}\n"),
            named: false,
        }),
    }
}

/// Writes the explanation where `--explain` says. The answer does not
/// depend on it: when it cannot be written, a warning goes to stderr and
/// the answer is still printed.
fn write_explanation(
    explained: &Result<Explained, String>,
    options: &Options,
    err: &mut dyn Write,
) -> std::io::Result<()> {
    let e = match explained {
        Ok(e) => e,
        Err(message) => return writeln!(err, "{PROGRAM}: warning: {message}"),
    };
    let Some(to) = &options.explain else {
        return Ok(());
    };
    // A directory is made when missing (a master candidate's log
    // directory on its first run as master).
    let directory = match to {
        ExplainTo::Path(dir) if explain_files::names_directory(dir) => Some(dir),
        _ => None,
    };
    if let Some(dir) = directory {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return writeln!(
                err,
                "{PROGRAM}: warning: cannot create the explanation directory {dir:?}: {e}"
            );
        }
    }
    let path =
        explain_files::explanation_path(to, &e.subject, options.explain_format, clock::now());
    let Some(path) = path else {
        return err.write_all(e.text.as_bytes());
    };
    if let Err(e) = std::fs::write(&path, &e.text) {
        return writeln!(
            err,
            "{PROGRAM}: warning: cannot write the explanation to {:?}: {e}",
            path.display().to_string()
        );
    }
    if let Some(dir) = directory {
        if let Err(e) = explain_files::rotate(std::path::Path::new(dir), options.explain_keep) {
            writeln!(
                err,
                "{PROGRAM}: warning: cannot remove old explanations in {dir:?}: {e}"
            )?;
        }
    }
    Ok(())
}
