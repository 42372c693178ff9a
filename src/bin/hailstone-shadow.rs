//! The `hailstone-shadow` binary: the allocator Ganeti runs to try
//! hailstone in the shadow of hail, the report of what it recorded, and,
//! called as hbal, hsqueeze, hspace, hcheck, hinfo or hroller (links made
//! by `hailstone-htools enable --shadow`), the original htools program
//! with hailstone's beside it (see `hailstone::program::shadow`).

use std::process::ExitCode;

fn main() -> ExitCode {
    hailstone::shell::exit::process_with("hailstone-shadow", hailstone::program::shadow::process)
}
