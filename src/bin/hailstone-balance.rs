//! The `hailstone-balance` binary: hbal's command line and output on
//! hailstone's balancing engine (see `hailstone::program::balance`).

use std::process::ExitCode;

fn main() -> ExitCode {
    hailstone::shell::exit::process("hailstone-balance", hailstone::program::balance::main)
}
