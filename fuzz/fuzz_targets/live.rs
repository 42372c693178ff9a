//! `live`: raw bytes as a live cluster's replies: the four Luxi replies
//! of `-L` (nodes, instances, cluster info, node groups) and the four
//! RAPI resources of `-m` (groups, nodes, instances, cluster info).
//!
//! The input is cut into four parts at its 0x03 bytes (Luxi's end of
//! message; missing parts are empty) and read both ways. Checks: no
//! panic; a refusal carries a message naming the query or resource; the
//! same bytes read twice give the same cluster or error; a cluster that
//! reads is written as a data file (what `-S` saves), which reads again
//! without a panic, and when it does (names from the wire may hold the
//! file's separators), gives a normal form that reads back to itself.
#![no_main]

use hailstone::shell::{datafile, replies};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parts = four_parts(data);
    let luxi = replies::luxi_cluster(parts);
    match &luxi {
        Err(message) => assert!(message.starts_with("Luxi query \""), "{message}"),
        Ok((saved, _)) => reads_back(saved),
    }
    assert_eq!(luxi, replies::luxi_cluster(parts));
    let rapi = replies::rapi_cluster(parts);
    match &rapi {
        Err(message) => assert!(!message.is_empty()),
        Ok((saved, _)) => reads_back(saved),
    }
    assert_eq!(rapi, replies::rapi_cluster(parts));
});

/// The input cut at its first three 0x03 bytes; missing parts are empty.
fn four_parts(data: &[u8]) -> [&[u8]; 4] {
    let mut parts = data.splitn(4, |&b| b == 3);
    [(); 4].map(|()| parts.next().unwrap_or(&[]))
}

/// A saved cluster reads again, and its normal form is stable.
fn reads_back(saved: &str) {
    match datafile::normalize("saved.data", saved.as_bytes()) {
        Ok(normal) => assert_eq!(
            datafile::normalize("saved.data", normal.as_bytes()).as_ref(),
            Ok(&normal),
            "the normal form is not stable"
        ),
        Err(message) => assert!(message.starts_with("saved.data"), "{message}"),
    }
}
