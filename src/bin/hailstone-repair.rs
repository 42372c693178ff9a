//! The `hailstone-repair` binary: harep's command line and output on
//! hailstone's cluster reader (auto-repair) (see
//! `hailstone::program::repair`).

use std::ffi::OsString;
use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(hailstone::program::exit::guarded(
        "hailstone-repair",
        || {
            let args: Vec<OsString> = std::env::args_os().skip(1).collect();
            let stdout = std::io::stdout();
            let stderr = std::io::stderr();
            hailstone::program::repair::main(&args, &mut stdout.lock(), &mut stderr.lock())
        },
    ))
}
