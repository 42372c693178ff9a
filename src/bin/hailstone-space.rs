//! The `hailstone-space` binary: hspace's command line and output on
//! hailstone's allocator (see `hailstone::program::space`).

use std::process::ExitCode;

fn main() -> ExitCode {
    hailstone::shell::exit::process("hailstone-space", hailstone::program::space::main)
}
