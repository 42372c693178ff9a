//! `hailstone-bench`: times hailstone against the original Ganeti programs
//! (see `hailstone_devtools::bench`).

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    hailstone_devtools::bench::main(&args)
}
