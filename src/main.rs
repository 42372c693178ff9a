//! The `hailstone` binary: `hailstone INPUT [OPTIONS]`, as Ganeti runs an
//! iallocator. Reads the request ([`read_request`]: a file, mapped
//! rather than copied when it can be, or `-` for stdin), prints exactly one
//! answer line on stdout, and sends everything else to stderr.
//!
//! Exit statuses follow the suite's convention
//! (`hailstone::program::ExitStatus`): 0 when an answer was printed (also
//! `"success": false`), 1 for bad input or data hail would fail on (and a
//! `-S` file that cannot be written), 2 for command-line errors, 141
//! quietly when stdout was closed.

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use hailstone::program::exit;
use hailstone::program::explain_files;
use hailstone::program::hail::options::{self as cli, Exit, Invocation};
use hailstone::program::hail::RunError;
use hailstone::program::hail::{self as pipeline, DataFile, Failure};
use hailstone::program::input::read_request;
use hailstone::program::ExitStatus;

/// Writes to stderr, ignoring a stderr that cannot be written (a full
/// disk, `2>/dev/full`): the answer and the exit status do not depend on
/// the warnings and notes (`eprint!` would panic).
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

/// [`say!`] with a newline.
macro_rules! sayln {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

fn exit_code(failure: &Failure) -> u8 {
    match failure {
        Failure::Input(_) => ExitStatus::Failed.code(),
        Failure::Run(RunError::Inconsistent(_)) => ExitStatus::Failed.code(),
    }
}

/// Writes `text` to stdout: [`ExitStatus::Done`], or quietly
/// [`ExitStatus::ClosedPipe`] when the reader went away, or the error and
/// [`ExitStatus::Failed`].
fn print(text: &str) -> u8 {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitStatus::Done.code(),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitStatus::ClosedPipe.code(),
        Err(e) => {
            sayln!("hailstone: cannot write the answer: {e}");
            ExitStatus::Failed.code()
        }
    }
}

fn main() -> ExitCode {
    ExitCode::from(exit::guarded("hailstone", run))
}

fn run() -> u8 {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let Invocation { options, input } = match cli::parse(&args) {
        Ok(inv) => inv,
        Err(Exit::Stdout(text)) => return print(&text),
        Err(Exit::Stderr { code, message }) => {
            say!("{message}");
            return code;
        }
    };
    let bytes = match read_request(&input) {
        Ok(b) => b,
        Err(message) => {
            sayln!("hailstone: error: {message}");
            return ExitStatus::Failed.code();
        }
    };
    // hail reads a data file only when no simulation is asked for.
    let data_file = match (&options.text_data, options.simulate.is_empty()) {
        (Some(name), true) => Some(DataFile {
            name: name.clone(),
            contents: std::fs::read(name).map_err(|e| e.to_string()),
        }),
        _ => None,
    };
    let outcome = pipeline::run_and_leak(bytes, data_file.as_ref(), &options);
    // Every file is written before anything is printed, so that a file
    // that cannot be written stops the run with no answer on stdout.
    for save in &outcome.saves {
        if let Err(e) = std::fs::write(&save.path, &save.contents) {
            say!("{}", &outcome.stderr[..save.stderr_at]);
            sayln!("hailstone: error: cannot write {:?}: {e}", save.path);
            return ExitStatus::Failed.code();
        }
    }
    say!("{}", outcome.stderr);
    if let Some(explained) = &outcome.explanation {
        write_explanation(explained, &options);
    }
    match outcome.answer {
        Ok(answer) => print(&answer),
        Err(failure) => {
            match &failure {
                Failure::Input(message) => sayln!("hailstone: error: {message}"),
                Failure::Run(e) => sayln!("hailstone: {e}"),
            }
            exit_code(&failure)
        }
    }
}

/// Writes the explanation where `--explain` says. The answer does not
/// depend on it: when it cannot be written, a warning goes to stderr and
/// the answer is still printed.
fn write_explanation(explained: &Result<pipeline::Explained, String>, options: &cli::Options) {
    let e = match explained {
        Ok(e) => e,
        Err(message) => {
            sayln!("hailstone: warning: {message}");
            return;
        }
    };
    let Some(to) = &options.explain else {
        return;
    };
    // A directory is made when missing (a master candidate's log
    // directory on its first run as master).
    let directory = match to {
        cli::ExplainTo::Path(dir) if explain_files::names_directory(dir) => Some(dir),
        _ => None,
    };
    if let Some(dir) = directory {
        if let Err(err) = std::fs::create_dir_all(dir) {
            sayln!("hailstone: warning: cannot create the explanation directory {dir:?}: {err}");
            return;
        }
    }
    let now = std::time::SystemTime::now();
    match explain_files::explanation_path(to, &e.subject, options.explain_format, now) {
        None => say!("{}", e.text),
        Some(path) => {
            if let Err(err) = std::fs::write(&path, &e.text) {
                sayln!(
                    "hailstone: warning: cannot write the explanation to {:?}: {err}",
                    path.display().to_string()
                );
                return;
            }
            if let Some(dir) = directory {
                let kept = explain_files::rotate(std::path::Path::new(dir), options.explain_keep);
                if let Err(err) = kept {
                    sayln!("hailstone: warning: cannot remove old explanations in {dir:?}: {err}");
                }
            }
        }
    }
}
