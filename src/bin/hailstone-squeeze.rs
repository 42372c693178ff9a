//! The `hailstone-squeeze` binary: hsqueeze's command line and output on
//! hailstone's balancing engine (see `hailstone::program::squeeze`).

use std::ffi::OsString;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let code = hailstone::program::squeeze::main(&args, &mut stdout.lock(), &mut stderr.lock());
    ExitCode::from(code)
}
