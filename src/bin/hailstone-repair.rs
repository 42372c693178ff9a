//! The `hailstone-repair` binary: harep's command line and output on
//! hailstone's cluster reader (auto-repair) (see
//! `hailstone::program::repair`).

use std::process::ExitCode;

fn main() -> ExitCode {
    hailstone::shell::exit::process("hailstone-repair", hailstone::program::repair::main)
}
