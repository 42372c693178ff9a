//! `hailstone-budget`: `hailstone-balance --max-copy` against hbal's plan
//! cut at the same data budget, on held-out generated clusters
//! (`hailstone_devtools::budget`); prints the table (Markdown) and exits 1
//! when `--max-copy` ends above the cut plan or copies more than the
//! budget.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use hailstone_devtools::budget;

/// hailstone-balance --max-copy against hbal's plan cut at the budget, on
/// 24 held-out generated clusters of 12 to 200 nodes.
#[derive(Parser)]
#[command(name = "hailstone-budget")]
struct Args {
    /// The hailstone-balance to run.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "target/release/hailstone-balance"
    )]
    balance: PathBuf,
    /// Where the clusters are written (kept).
    #[arg(long, value_name = "DIR", default_value = "target/budget")]
    out: PathBuf,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        eprintln!("hailstone-budget: {}: {e}", args.out.display());
        return ExitCode::FAILURE;
    }
    let mut rows = Vec::new();
    for (name, spec) in budget::specs() {
        let start = std::time::Instant::now();
        match budget::measure(&args.balance, &args.out, &name, &spec) {
            Ok(row) => {
                eprintln!("{name}: {:.1} s", start.elapsed().as_secs_f64());
                rows.push(row);
            }
            Err(e) => {
                eprintln!("hailstone-budget: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let (text, ok) = budget::table(&rows);
    print!("{text}");
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
