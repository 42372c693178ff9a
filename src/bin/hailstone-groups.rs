//! The `hailstone-groups` binary: the multi-group planners (check, repair,
//! compress, balance; see `hailstone::program::groups`).

use std::process::ExitCode;

fn main() -> ExitCode {
    hailstone::shell::exit::process("hailstone-groups", hailstone::program::groups::main)
}
