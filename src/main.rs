//! The `hailstone` binary: `hailstone INPUT [OPTIONS]`, as Ganeti runs an
//! iallocator. The command line and the two streams go to
//! `hailstone::program::hail::main`, the allocator's shell, under
//! `shell::exit` as every program's do.

use std::process::ExitCode;

fn main() -> ExitCode {
    hailstone::shell::exit::process("hailstone", hailstone::program::hail::main)
}
