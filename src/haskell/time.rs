//! Dates as Ganeti's programs print them: the civil (proleptic
//! Gregorian, UTC) date of a count of days since 1970-01-01, and
//! `System.Time`'s `show` of a `ClockTime` (in UTC, the zone of the
//! masters this runs on).

/// The civil date (year, month, day) of a day count since 1970-01-01
/// (Howard Hinnant's `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `show` of a `ClockTime` of `seconds` since the epoch, in UTC
/// (`Fri Jan  1 00:00:00 UTC 2100`).
pub fn show_clock_time(seconds: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = seconds.div_euclid(86_400);
    let secs = seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{} {} {day:>2} {:02}:{:02}:{:02} UTC {year}",
        DAYS[days.rem_euclid(7) as usize],
        MONTHS[(month - 1) as usize],
        secs / 3_600,
        secs % 3_600 / 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(
            show_clock_time(4_102_444_800),
            "Fri Jan  1 00:00:00 UTC 2100"
        );
        assert_eq!(show_clock_time(0), "Thu Jan  1 00:00:00 UTC 1970");
        assert_eq!(
            show_clock_time(1_795_783_244),
            "Fri Nov 27 12:40:44 UTC 2026"
        );
    }
}
