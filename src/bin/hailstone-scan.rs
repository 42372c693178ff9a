//! The `hailstone-scan` binary: hscan's command line and output on
//! hailstone's live readers and data-file writer (see `hailstone::program::scan`).

use std::process::ExitCode;

fn main() -> ExitCode {
    hailstone::shell::exit::process("hailstone-scan", hailstone::program::scan::main)
}
