//! The `hailstone-htools` binary: hailstone's programs under the htools'
//! names (`hbal`, `hspace`, ... as links to it), and the switch between
//! them and the originals (see `hailstone::program::htools`).

use std::process::ExitCode;

fn main() -> ExitCode {
    hailstone::shell::exit::process_with("hailstone-htools", |argv, out, err| {
        let argv0 = argv.first().cloned().unwrap_or_default();
        hailstone::program::htools::main(&argv0, argv.get(1..).unwrap_or(&[]), out, err)
    })
}
