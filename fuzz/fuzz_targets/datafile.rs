//! `datafile`: raw bytes as a cluster data file (`-t`).
//!
//! Checks: reading never panics and refuses with a message naming the
//! file; a file that reads is written back in Ganeti's normal form, and
//! when that normal form reads again it gives itself back; the whole
//! pipeline with the file as the cluster (an allocate, a relocate and a
//! node-evacuate request, with `-S` and `-p`) keeps the answer contract
//! (`hailstone_fuzz::check_outcome`).
#![no_main]

use hailstone::shell::datafile;
use hailstone::program::hail::options::{Options, PrintNodes};
use hailstone::program::hail::pipeline::{self, DataFile, Inputs};
use hailstone_fuzz::check_outcome;
use libfuzzer_sys::fuzz_target;

const REQUESTS: [&str; 3] = [
    include_str!("../../protocol-samples/allocate-drbd.json"),
    include_str!("../../protocol-samples/relocate-drbd.json"),
    include_str!("../../protocol-samples/node-evacuate-all.json"),
];

fuzz_target!(|data: &[u8]| {
    match datafile::normalize("fuzz.data", data) {
        Err(message) => assert!(message.starts_with("fuzz.data"), "{message}"),
        Ok(normal) => {
            if let Ok(again) = datafile::normalize("fuzz.data", normal.as_bytes()) {
                assert_eq!(again, normal, "the normal form is not stable");
            }
        }
    }
    let file = DataFile {
        name: "fuzz.data".to_owned(),
        contents: Ok(data.to_vec()),
    };
    let options = Options {
        text_data: Some("fuzz.data".to_owned()),
        save: Some("/nonexistent/fuzz".to_owned()),
        print_nodes: Some(PrintNodes::DefaultsPlus(vec![
            "plist".into(),
            "peermap".into(),
        ])),
        ..Options::default()
    };
    let request = REQUESTS[data.len() % REQUESTS.len()];
    let inputs = Inputs {
        request: request.as_bytes(),
        data_file: Some(&file),
    };
    let outcome = pipeline::run(&inputs, &options);
    check_outcome(&outcome);
});
