//! The `hailstone-info` binary: hinfo's command line and output on
//! hailstone's cluster model and metric (see `hailstone::program::info`).

use std::ffi::OsString;
use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(hailstone::program::exit::guarded("hailstone-info", || {
        let args: Vec<OsString> = std::env::args_os().skip(1).collect();
        let stdout = std::io::stdout();
        let stderr = std::io::stderr();
        hailstone::program::info::main(&args, &mut stdout.lock(), &mut stderr.lock())
    }))
}
