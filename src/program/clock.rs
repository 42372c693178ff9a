//! The one place the clock is read, and calendar stamps for file names:
//! the `YYYYmmddTHHMMSS` stamp `--explain=DIR` names its files with (the
//! civil date is [`crate::haskell::time`]'s).
//!
//! Every other file takes the time from here, as a value
//! (`tests/invariants.rs` lists who may ask).

use std::time::SystemTime;

use crate::haskell::time::civil_from_days;

/// The wall clock's time now.
pub fn now() -> SystemTime {
    SystemTime::now()
}

/// `YYYYmmddTHHMMSS` for seconds since the epoch, in UTC.
pub fn utc_stamp(secs: u64) -> String {
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let rem = secs % 86_400;
    format!(
        "{y:04}{m:02}{d:02}T{:02}{:02}{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(utc_stamp(1_764_016_964), "20251124T204244");
    }
}
