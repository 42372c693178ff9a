//! `hailstone-compat`: compares hailstone with the original Ganeti
//! programs (see `hailstone_devtools::compat`).

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = hailstone_devtools::compat::main(&args);
    // A panic fails the comparison even where an accepted difference
    // covers the case.
    let panics = hailstone_devtools::process::panics();
    if panics.is_empty() {
        return code;
    }
    println!("\nFAILED: hailstone panicked in {} run(s):", panics.len());
    for p in &panics {
        println!("  {p}");
    }
    std::process::ExitCode::from(1)
}
