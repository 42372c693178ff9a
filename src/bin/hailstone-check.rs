//! The `hailstone-check` binary: hcheck's command line and output on
//! hailstone's N+1 checks and balancing engine (see `hailstone::program::check`).

use std::ffi::OsString;
use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(hailstone::program::exit::guarded("hailstone-check", || {
        let args: Vec<OsString> = std::env::args_os().skip(1).collect();
        let stdout = std::io::stdout();
        let stderr = std::io::stderr();
        hailstone::program::check::main(&args, &mut stdout.lock(), &mut stderr.lock())
    }))
}
