//! The `hailstone-info` binary: hinfo's command line and output on
//! hailstone's cluster model and metric (see `hailstone::program::info`).

use std::process::ExitCode;

fn main() -> ExitCode {
    hailstone::shell::exit::process("hailstone-info", hailstone::program::info::main)
}
