//! `replies`: raw bytes as the smaller replies and files the planners
//! read: `-X`'s `QueryJobs` and `SubmitManyJobs` replies, a node
//! monitoring daemon's report (`--mond`, both collectors), a
//! `--mond-data` file and a `-U` utilisation file.
//!
//! Checks: no panic; a refusal carries a message; a reply that reads
//! gives exactly as many statuses or ids as jobs were asked for, each
//! status one of Luxi's; the same bytes read twice read the same.
#![no_main]

use hailstone::shell::replies;
use hailstone::shell::replies::Collector;
use libfuzzer_sys::fuzz_target;

const STATUSES: [&str; 8] = [
    "queued",
    "waiting",
    "canceling",
    "running",
    "canceled",
    "success",
    "error",
    "unknown",
];

fuzz_target!(|data: &[u8]| {
    // The number of jobs asked for: the input's first byte, 0 to 7.
    let expected = usize::from(data.first().copied().unwrap_or(0) % 8);
    match replies::job_statuses(data, expected) {
        Ok(statuses) => {
            assert_eq!(statuses.len(), expected);
            for s in &statuses {
                assert!(STATUSES.contains(&s.as_str()), "{s}");
            }
        }
        Err(message) => assert!(!message.is_empty()),
    }
    match replies::submitted_ids(data, expected) {
        Ok(ids) => assert_eq!(ids.len(), expected),
        Err(message) => assert!(!message.is_empty()),
    }
    assert_eq!(
        replies::job_statuses(data, expected),
        replies::job_statuses(data, expected)
    );
    let _ = replies::mond_report(data, Collector::TotalCpu);
    let _ = replies::mond_report(data, Collector::XenCpu);
    match replies::mond_data(data) {
        Ok(_) => {}
        Err(message) => assert!(!message.is_empty()),
    }
    let text = String::from_utf8_lossy(data);
    match replies::utilisation(&text) {
        // Compared as text: a load may be NaN, which equals nothing.
        Ok(loads) => assert_eq!(
            format!("{:?}", Ok::<_, String>(loads)),
            format!("{:?}", replies::utilisation(&text))
        ),
        Err(message) => assert!(!message.is_empty()),
    }
});
