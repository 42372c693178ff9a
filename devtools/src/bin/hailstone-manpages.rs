//! `hailstone-manpages DIR`: writes the man page of every hailstone
//! program as `DIR/NAME.1` (roff, from the programs' own option tables and
//! manuals: `hailstone::program::man_pages`), for `make deb`.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    const USAGE: &str = "usage: hailstone-manpages DIR";
    let [dir] = args.as_slice() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    if dir == "--help" || dir == "-h" {
        println!("{USAGE}\nWrites the man page of every hailstone program as DIR/NAME.1.");
        return ExitCode::SUCCESS;
    }
    // An option is never taken for the folder to write into.
    if dir.starts_with('-') {
        eprintln!("hailstone-manpages: unknown option {dir}\n{USAGE}");
        return ExitCode::from(2);
    }
    let dir = PathBuf::from(dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("hailstone-manpages: {}: {e}", dir.display());
        return ExitCode::from(1);
    }
    for (name, page) in hailstone::program::man_pages() {
        let path = dir.join(format!("{name}.1"));
        if let Err(e) = std::fs::write(&path, page) {
            eprintln!("hailstone-manpages: {}: {e}", path.display());
            return ExitCode::from(1);
        }
    }
    ExitCode::SUCCESS
}
