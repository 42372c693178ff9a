//! How a planner's run ends and writes its files: the early stop with
//! Ganeti's text and exit status ([`Stop`]), the process entry that prints
//! the command line's exit or the run's stop ([`main`]), and files written
//! as a Haskell program writes them (GHC's `openFile` messages, `-S`'s
//! `maybeSaveData`, `--explain=FILE`).

use std::io::Write;

use crate::program::cli::{Exit, ExplainTo};
use crate::write::exit_status::ExitStatus;

/// Why a run stopped early: the exit status and the text for stderr.
#[derive(Debug)]
pub struct Stop {
    pub code: u8,
    pub message: String,
    /// Whether the program's name goes before the message (an error on
    /// stdout, which Haskell reports as `program: <stdout>: ...`).
    pub named: bool,
}

/// A stop with exit status 1: the program could not run
/// ([`ExitStatus::Failed`]).
pub fn stop(message: String) -> Stop {
    Stop {
        code: ExitStatus::Failed.code(),
        message,
        named: false,
    }
}

/// The stop of a run that found the cluster unhealthy or could not make
/// all of the plan asked for: its report is printed, nothing more is said
/// ([`ExitStatus::Findings`]).
pub fn findings() -> Stop {
    Stop {
        code: ExitStatus::Findings.code(),
        message: String::new(),
        named: false,
    }
}

/// The stop of a run whose standard output was closed (`| head`): no
/// message, [`ExitStatus::ClosedPipe`].
pub fn closed_pipe() -> Stop {
    Stop {
        code: ExitStatus::ClosedPipe.code(),
        message: String::new(),
        named: false,
    }
}

/// A failed write to stdout: quietly [`closed_pipe`] when the reader went
/// away, else the error as Haskell's runtime reports it (exit 1).
impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Stop {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return closed_pipe();
        }
        Stop {
            code: ExitStatus::Failed.code(),
            message: format!("<stdout>: {e}\n"),
            named: true,
        }
    }
}

impl Stop {
    /// The text for stderr, for the program `program`.
    pub fn text(&self, program: &str) -> String {
        if self.named {
            format!("{program}: {}", self.message)
        } else {
            self.message.clone()
        }
    }
}

/// GHC's text for an I/O error on opening `path` (`openFile: ...`).
pub fn open_error(path: &str, e: &std::io::Error) -> String {
    use std::io::ErrorKind;
    let what = match e.kind() {
        ErrorKind::NotFound => "does not exist (No such file or directory)".to_owned(),
        ErrorKind::PermissionDenied => "permission denied (Permission denied)".to_owned(),
        _ if e.raw_os_error() == Some(21) => "inappropriate type (is a directory)".to_owned(),
        _ => e.to_string(),
    };
    format!("{path}: openFile: {what}")
}

/// Writes `text` to `path`, or the stop a Haskell program's uncaught
/// `writeFile` exception gives (`program: path: openFile: ...`).
pub fn write_file(program: &str, path: &str, text: &str) -> Result<(), Stop> {
    std::fs::write(path, text).map_err(|e| stop(format!("{program}: {}\n", open_error(path, &e))))
}

/// Writes a file that only hailstone's own options ask for (`--report`,
/// `--explain=FILE`): the error says which file, and why, in hailstone's
/// words (exit status 1).
pub fn write_own_file(what: &str, path: &str, text: &str) -> Result<(), Stop> {
    std::fs::write(path, text)
        .map_err(|e| stop(format!("Error: cannot write the {what} to {path}: {e}\n")))
}

/// A planner's `--explain` text: on stderr, or in the file named.
pub fn write_explanation(to: &ExplainTo, text: &str, err: &mut dyn Write) -> Result<(), Stop> {
    match to {
        ExplainTo::Stderr => Ok(err.write_all(text.as_bytes())?),
        ExplainTo::Path(path) => write_own_file("explanation", path, text),
    }
}

/// `maybeSaveData` of the planners: writes `text` to `PATH.EXT` and says so
/// on stderr, with `what` (e.g. "before balancing") in the note.
pub fn save_state(
    program: &str,
    path: &str,
    ext: &str,
    what: &str,
    text: &str,
    err: &mut dyn Write,
) -> Result<(), Stop> {
    let file = format!("{path}.{ext}");
    write_file(program, &file, text)?;
    err.write_all(crate::write::notes::saved(what, &file).as_bytes())?;
    Ok(())
}

/// A planner's process: the command line's outcome (`parsed`) printed when
/// it is an exit, else `run` with the options, its stop printed for
/// `program`. Returns the exit status.
pub fn main<O>(
    program: &str,
    parsed: Result<O, Exit>,
    run: impl FnOnce(&O, &mut dyn Write, &mut dyn Write) -> Result<(), Stop>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let options = match parsed {
        Ok(o) => o,
        Err(Exit::Stdout(text)) => {
            return match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                Ok(()) => ExitStatus::Done.code(),
                Err(e) => Stop::from(e).code,
            };
        }
        Err(Exit::Stderr { code, message }) => {
            let _ = err.write_all(message.as_bytes());
            return code;
        }
    };
    // The last bytes are flushed here: a reader that went away before
    // them is a closed pipe too.
    match run(&options, out, err).and_then(|()| Ok(out.flush()?)) {
        Ok(()) => ExitStatus::Done.code(),
        Err(s) => {
            // After a closed pipe, the flush fails again: ignored.
            let _ = out.flush();
            let _ = err.write_all(s.text(program).as_bytes());
            s.code
        }
    }
}

/// The stop for a cluster that cannot be loaded (`loadExternalData`).
pub fn load_failed(message: String) -> Stop {
    stop(format!("Error: failed to load data, aborting: {message}\n"))
}

/// A planner's run with `--json` or without: `plan` writes its text to
/// the stream it is given and returns its document; with `--json` the
/// text goes nowhere and the document is all of `out`. `--json` with
/// `-X` is refused before anything is read; `-X` on a Luxi socket holds
/// the cluster's lock ([`crate::shell::lock`]) from
/// before the cluster is read to the end of the run.
///
/// # Errors
///
/// The run's stop, another program holding the lock, or a failed write
/// to `out`.
pub fn text_or_document(
    program: &str,
    o: &crate::program::cli::Options,
    out: &mut dyn Write,
    err: &mut dyn Write,
    plan: impl FnOnce(&mut dyn Write, &mut dyn Write) -> Result<crate::write::json::Json, Stop>,
) -> Result<(), Stop> {
    if o.json && o.exec {
        return Err(Stop {
            code: ExitStatus::Usage.code(),
            message: format!(
                "{}{}",
                crate::write::document::JSON_AND_EXEC,
                crate::program::cli::suggest::see_help(program)
            ),
            named: false,
        });
    }
    let _lock = match (o.exec, o.luxi.as_deref()) {
        (true, Some(socket)) => {
            Some(crate::shell::lock::lock_cluster(program, socket).map_err(stop)?)
        }
        _ => None,
    };
    if !o.json {
        return plan(out, err).map(|_| ());
    }
    let document = plan(&mut std::io::sink(), err)?;
    out.write_all(document.line().as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Runs a program's process (`run`, returning its exit status) so that a
/// panic never reaches the operator as a crash: the panic's message goes
/// to stderr as `PROGRAM: internal error: ...` (a stderr that cannot be
/// written is ignored) and the exit status is 1, with nothing more on
/// stdout than what was written before. A `HAILSTONE_THREADS` that is not
/// a number of threads stops the program first, with exit status 2 (as a
/// bad command line).
pub fn guarded(program: &'static str, run: impl FnOnce() -> u8 + std::panic::UnwindSafe) -> u8 {
    if let Err(e) = crate::threads::check() {
        let _ = writeln!(std::io::stderr(), "{program}: {e}");
        return ExitStatus::Usage.code();
    }
    std::panic::set_hook(Box::new(move |info| {
        let _ = writeln!(
            std::io::stderr(),
            "{program}: internal error (please report it): {info}"
        );
    }));
    std::panic::catch_unwind(run).unwrap_or(ExitStatus::Failed.code())
}

/// A program's `main(args, stdout, stderr)`.
pub type ProgramMain = fn(&[std::ffi::OsString], &mut dyn Write, &mut dyn Write) -> u8;

/// The process of the binary `program`: its command line (without
/// `argv[0]`) and the two standard streams handed to `main`, under
/// [`guarded`] ([`process_with`]).
pub fn process(program: &'static str, main: ProgramMain) -> std::process::ExitCode {
    process_with(program, |argv, out, err| {
        main(argv.get(1..).unwrap_or(&[]), out, err)
    })
}

/// The process of the binary `program`, under [`guarded`]: `main` gets
/// the whole command line (`argv[0]` first), stdout and stderr. A write
/// to stderr that fails is dropped ([`Diagnostics`]).
pub fn process_with(
    program: &'static str,
    main: impl FnOnce(&[std::ffi::OsString], &mut dyn Write, &mut dyn Write) -> u8
        + std::panic::UnwindSafe,
) -> std::process::ExitCode {
    std::process::ExitCode::from(guarded(program, || {
        let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
        // stderr is not held locked: a panic on a search thread writes its
        // message through the hook while this thread waits for it.
        let stdout = std::io::stdout();
        main(
            &argv,
            &mut stdout.lock(),
            &mut Diagnostics(std::io::stderr()),
        )
    }))
}

/// The programs' stderr: a write that fails (`2>/dev/full`, a closed
/// pipe) is dropped, so a failed warning, explanation or progress line
/// never cuts short the plan, report or answer on stdout nor changes the
/// exit status.
pub struct Diagnostics<W: Write>(pub W);

impl<W: Write> Write for Diagnostics<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let _ = self.0.write_all(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let _ = self.0.flush();
        Ok(())
    }
}

#[cfg(test)]
mod guard_tests {
    use super::*;

    #[test]
    fn a_panic_is_exit_status_1() {
        assert_eq!(guarded("test", || 3), 3);
        assert_eq!(guarded("test", || panic!("boom")), 1);
        let _ = std::panic::take_hook();
    }
}
