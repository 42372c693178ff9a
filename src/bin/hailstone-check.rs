//! The `hailstone-check` binary: hcheck's command line and output on
//! hailstone's N+1 checks and balancing engine (see `hailstone::program::check`).

use std::process::ExitCode;

fn main() -> ExitCode {
    hailstone::shell::exit::process("hailstone-check", hailstone::program::check::main)
}
