//! The `hailstone` binary: `hailstone INPUT [OPTIONS]`, as Ganeti runs an
//! iallocator. Reads the request (a file, mapped rather than copied when it
//! can be, or `-` for stdin), prints exactly one answer line on stdout, and
//! sends everything else to stderr.
//!
//! Exit status is decided in one place ([`exit_code`]): 0 when an answer
//! was printed (also `"success": false`), 1 for bad input or data hail
//! would fail on (and a `-S` file that cannot be written), 2 for
//! command-line errors and options whose behaviour is not built yet.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::process::ExitCode;

use hailstone::program::hail::options::{self as cli, Exit, Invocation};
use hailstone::program::hail::RunError;
use hailstone::program::hail::{self as pipeline, DataFile, Failure};

fn exit_code(failure: &Failure) -> u8 {
    match failure {
        Failure::Input(_) => 1,
        Failure::Run(RunError::Inconsistent(_)) => 1,
    }
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let Invocation { options, input } = match cli::parse(&args) {
        Ok(inv) => inv,
        Err(Exit::Stdout(text)) => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            return ExitCode::SUCCESS;
        }
        Err(Exit::Stderr { code, message }) => {
            eprint!("{message}");
            return ExitCode::from(code);
        }
    };
    let bytes = match read_input(&input) {
        Ok(b) => b,
        Err(message) => {
            eprintln!("hailstone: error: {message}");
            return ExitCode::from(1);
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
            eprint!("{}", &outcome.stderr[..save.stderr_at]);
            eprintln!("hailstone: error: cannot write {:?}: {e}", save.path);
            return ExitCode::from(1);
        }
    }
    eprint!("{}", outcome.stderr);
    if let Some(explained) = &outcome.explanation {
        write_explanation(explained, &options);
    }
    match outcome.answer {
        Ok(answer) => {
            let mut out = std::io::stdout().lock();
            if let Err(e) = out.write_all(answer.as_bytes()).and_then(|()| out.flush()) {
                eprintln!("hailstone: cannot write the answer: {e}");
                return ExitCode::from(1);
            }
            ExitCode::SUCCESS
        }
        Err(failure) => {
            match &failure {
                Failure::Input(message) => eprintln!("hailstone: error: {message}"),
                Failure::Run(e) => eprintln!("hailstone: {e}"),
            }
            ExitCode::from(exit_code(&failure))
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
            eprintln!("hailstone: warning: {message}");
            return;
        }
    };
    let Some(to) = &options.explain else {
        return;
    };
    let now = std::time::SystemTime::now();
    match pipeline::explanation_path(to, &e.subject, options.explain_format, now) {
        None => eprint!("{}", e.text),
        Some(path) => {
            if let Err(err) = std::fs::write(&path, &e.text) {
                eprintln!(
                    "hailstone: warning: cannot write the explanation to {:?}: {err}",
                    path.display().to_string()
                );
            }
        }
    }
}

/// Reads the whole input: a file path, or `-` for stdin.
///
/// A regular file is mapped rather than copied (see [`map_file`]): the
/// request is read once, by the parser, straight from the page cache, and
/// its pages need neither a copy nor a fresh zeroed page each. Anything
/// else (stdin, a pipe, a file that reports no size, a map that fails) is
/// read as `std::fs::read` reads it, with the same messages. The bytes live
/// until the process exits (the caller never frees the request).
fn read_input(input: &OsString) -> Result<&'static [u8], String> {
    if input == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut buf)
            .map_err(|e| format!("cannot read the request from stdin: {e}"))?;
        Ok(buf.leak())
    } else {
        let message = |e: std::io::Error| {
            format!(
                "cannot read the request file {:?}: {e}",
                input.to_string_lossy()
            )
        };
        // `std::fs::read` opens the file the same way: its errors, and so
        // the messages, are the same.
        let mut file = std::fs::File::open(input).map_err(message)?;
        if let Some(bytes) = map_file(&file) {
            return Ok(bytes);
        }
        let mut buf = Vec::new();
        file.read_to_end(&mut buf).map_err(message)?;
        Ok(buf.leak())
    }
}

/// The contents of `file`, mapped read-only and populated (its pages
/// mapped from the page cache at once, not one fault at a time), when it
/// is a regular file of known, non-zero size; `None` when it is not, or
/// when the map fails. The map is never unmapped: it lives until exit.
///
/// A file truncated by another process while it is mapped would end the
/// process (SIGBUS); Ganeti writes the request to a file of its own before
/// running the allocator and does not touch it again.
fn map_file(file: &std::fs::File) -> Option<&'static [u8]> {
    use std::os::fd::AsRawFd;
    extern "C" {
        fn mmap(addr: *mut u8, len: usize, prot: i32, flags: i32, fd: i32, off: i64) -> *mut u8;
    }
    const PROT_READ: i32 = 1;
    const MAP_PRIVATE: i32 = 2;
    const MAP_POPULATE: i32 = 0x8000;
    const MAP_FAILED: usize = usize::MAX;
    let meta = file.metadata().ok()?;
    let len = usize::try_from(meta.len()).ok()?;
    if !meta.is_file() || len == 0 {
        return None;
    }
    // SAFETY: a fresh private read-only map of `len` bytes of an open
    // regular file (no address asked for, so no other memory is touched);
    // the result is checked before use. The slice is only read, and the
    // map is never unmapped, so the slice stays valid for the process's
    // life.
    unsafe {
        let at = mmap(
            std::ptr::null_mut(),
            len,
            PROT_READ,
            MAP_PRIVATE | MAP_POPULATE,
            file.as_raw_fd(),
            0,
        );
        if at.is_null() || at as usize == MAP_FAILED {
            return None;
        }
        Some(std::slice::from_raw_parts(at, len))
    }
}
