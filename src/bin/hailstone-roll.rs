//! The `hailstone-roll` binary: hroller's command line and output on
//! hailstone's node model (reboot groups) (see `hailstone::program::roll`).

use std::process::ExitCode;

fn main() -> ExitCode {
    hailstone::shell::exit::process("hailstone-roll", hailstone::program::roll::main)
}
