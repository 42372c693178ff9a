//! The `hailstone-roll` binary: hroller's command line and output on
//! hailstone's node model (reboot groups) (see `hailstone::program::roll`).

use std::ffi::OsString;
use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(hailstone::program::exit::guarded("hailstone-roll", || {
        let args: Vec<OsString> = std::env::args_os().skip(1).collect();
        let stdout = std::io::stdout();
        let stderr = std::io::stderr();
        hailstone::program::roll::main(&args, &mut stdout.lock(), &mut stderr.lock())
    }))
}
