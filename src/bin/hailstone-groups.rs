//! The `hailstone-groups` binary: the multi-group planners (check, repair,
//! compress, balance; see `hailstone::program::groups`).

use std::ffi::OsString;
use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(hailstone::program::exit::guarded(
        "hailstone-groups",
        || {
            let args: Vec<OsString> = std::env::args_os().skip(1).collect();
            let stdout = std::io::stdout();
            let stderr = std::io::stderr();
            hailstone::program::groups::main(&args, &mut stdout.lock(), &mut stderr.lock())
        },
    ))
}
