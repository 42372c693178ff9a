//! The one place the clock is read, and calendar stamps for file names:
//! the `YYYYmmddTHHMMSS` stamp `--explain=DIR` names its files with (the
//! civil date is [`crate::haskell::time`]'s).
//!
//! Every other file asks here and passes the time on as a value;
//! `tests/invariants.rs` lists the files that may ask, each for what it
//! uses the time for.

use std::time::{Duration, Instant, SystemTime};

use crate::haskell::time::civil_from_days;

/// The wall clock's time now.
pub fn now() -> SystemTime {
    SystemTime::now()
}

/// `time` as whole seconds since the epoch (0 before it).
pub fn epoch_seconds(time: SystemTime) -> i64 {
    since_epoch(time).as_secs().try_into().unwrap_or(i64::MAX)
}

/// `time` as the time since the epoch (zero before it).
pub fn since_epoch(time: SystemTime) -> Duration {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
}

/// How long ago `then` was by the wall clock; `None` when it is ahead.
pub fn age(then: SystemTime) -> Option<Duration> {
    then.elapsed().ok()
}

/// The monotonic clock now: for waits, time limits and durations.
pub fn monotonic() -> Instant {
    Instant::now()
}

/// How long since `start` by the monotonic clock.
pub fn since(start: Instant) -> Duration {
    start.elapsed()
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
