//! The `hailstone-squeeze` binary: hsqueeze's command line and output on
//! hailstone's balancing engine (see `hailstone::program::squeeze`).

use std::ffi::OsString;
use std::io::IsTerminal;
use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(hailstone::program::exit::guarded(
        "hailstone-squeeze",
        || {
            let args: Vec<OsString> = std::env::args_os().skip(1).collect();
            let stdout = std::io::stdout();
            let stderr = std::io::stderr();
            // Progress only where a person watches: never in a file or a pipe.
            let progress = stderr.is_terminal();
            hailstone::program::squeeze::main_showing(
                &args,
                &mut stdout.lock(),
                &mut stderr.lock(),
                progress,
            )
        },
    ))
}
