//! The `hailstone-squeeze` binary: hsqueeze's command line and output on
//! hailstone's balancing engine (see `hailstone::program::squeeze`).

use std::io::IsTerminal;
use std::process::ExitCode;

fn main() -> ExitCode {
    hailstone::shell::exit::process_with("hailstone-squeeze", |argv, out, err| {
        // Progress only where a person watches: never in a file or a pipe.
        use hailstone::program::squeeze::{main_showing, ProgressLine};
        let progress = if std::io::stderr().is_terminal() {
            ProgressLine::Shown
        } else {
            ProgressLine::Hidden
        };
        main_showing(argv.get(1..).unwrap_or(&[]), out, err, progress)
    })
}
