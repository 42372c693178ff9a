//! The `hailstone-htools` binary: hailstone's programs under the htools'
//! names (`hbal`, `hspace`, ... as links to it), and the switch between
//! them and the originals (see `hailstone::program::htools`).

use std::ffi::OsString;
use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(hailstone::program::exit::guarded(
        "hailstone-htools",
        || {
            let mut argv = std::env::args_os();
            let argv0 = argv.next().unwrap_or_default();
            let args: Vec<OsString> = argv.collect();
            let stdout = std::io::stdout();
            let stderr = std::io::stderr();
            hailstone::program::htools::main(&argv0, &args, &mut stdout.lock(), &mut stderr.lock())
        },
    ))
}
