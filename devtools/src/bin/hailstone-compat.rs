//! `hailstone-compat`: compares hailstone with the original Ganeti
//! programs (see `hailstone_devtools::compat`).

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    hailstone_devtools::compat::main(&args)
}
