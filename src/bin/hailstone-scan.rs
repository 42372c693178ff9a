//! The `hailstone-scan` binary: hscan's command line and output on
//! hailstone's live readers and data-file writer (see `hailstone::program::scan`).

use std::ffi::OsString;
use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(hailstone::program::exit::guarded("hailstone-scan", || {
        let args: Vec<OsString> = std::env::args_os().skip(1).collect();
        let stdout = std::io::stdout();
        let stderr = std::io::stderr();
        hailstone::program::scan::main(&args, &mut stdout.lock(), &mut stderr.lock())
    }))
}
