//! The `hailstone-balance` binary: hbal's command line and output on
//! hailstone's balancing engine (see `hailstone::program::balance`).

use std::ffi::OsString;
use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(hailstone::program::exit::guarded(
        "hailstone-balance",
        || {
            let args: Vec<OsString> = std::env::args_os().skip(1).collect();
            let stdout = std::io::stdout();
            let stderr = std::io::stderr();
            hailstone::program::balance::main(&args, &mut stdout.lock(), &mut stderr.lock())
        },
    ))
}
