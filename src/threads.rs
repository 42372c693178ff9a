//! How many threads hailstone may use: the processors the process may run
//! on, or the number in `HAILSTONE_THREADS` when it is set.
//!
//! Every part that runs on several threads (the second reading thread of
//! a large request, the pair scans of the allocator and of the
//! evacuations, a balancing step's scans, the squeeze's next trial, the
//! compression trials) puts its results back in the one-thread order, so
//! the output is the same bytes on any number of threads
//! (`tests/threads.rs` runs every program on 1, 2 and 16).
//!
//! * Owns: the thread count and the check of `HAILSTONE_THREADS`.
//! * Must never: decide anything a result depends on.

use std::ffi::OsStr;
use std::sync::OnceLock;

/// The environment variable that sets the number of threads.
pub const VARIABLE: &str = "HAILSTONE_THREADS";

/// The most threads `HAILSTONE_THREADS` may ask for.
pub const MAX: usize = 1024;

/// The value of `HAILSTONE_THREADS`: a whole number from 1 to [`MAX`].
fn parse(value: &OsStr) -> Result<usize, String> {
    let text = value.to_str().unwrap_or("");
    match text.parse::<usize>() {
        Ok(n) if (1..=MAX).contains(&n) => Ok(n),
        _ => Err(format!(
            "{VARIABLE}={}: expected a number of threads from 1 to {MAX}",
            value.to_string_lossy()
        )),
    }
}

/// Refuses a `HAILSTONE_THREADS` that is set but not a number of threads
/// (a program checks it before it reads anything).
///
/// # Errors
///
/// The message naming the variable, its value and the range.
pub fn check() -> Result<(), String> {
    match std::env::var_os(VARIABLE) {
        Some(v) => parse(&v).map(|_| ()),
        None => Ok(()),
    }
}

/// The number of threads hailstone may use (asked once per process: the
/// question reads the cgroup files each time).
pub fn available() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| {
        let processors = || std::thread::available_parallelism().map_or(1, |n| n.get());
        match std::env::var_os(VARIABLE) {
            // A bad value was refused at the start ([`check`]).
            Some(v) => parse(&v).unwrap_or_else(|_| processors()),
            None => processors(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_of_the_variable() {
        assert_eq!(parse(OsStr::new("1")), Ok(1));
        assert_eq!(parse(OsStr::new("16")), Ok(16));
        assert_eq!(parse(OsStr::new("1024")), Ok(1024));
        for bad in ["0", "1025", "-1", "", "two", " 2", "2.0"] {
            let e = parse(OsStr::new(bad)).unwrap_err();
            assert!(e.starts_with(&format!("HAILSTONE_THREADS={bad}:")), "{e}");
        }
    }
}
