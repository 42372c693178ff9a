//! The `hailstone-space` binary: hspace's command line and output on
//! hailstone's allocator (see `hailstone::program::space`).

use std::ffi::OsString;
use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(hailstone::program::exit::guarded("hailstone-space", || {
        let args: Vec<OsString> = std::env::args_os().skip(1).collect();
        let stdout = std::io::stdout();
        let stderr = std::io::stderr();
        hailstone::program::space::main(&args, &mut stdout.lock(), &mut stderr.lock())
    }))
}
