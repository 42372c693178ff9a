//! `pipeline`: raw bytes → `pipeline::run`, with hail's default options and
//! with one more option set chosen by the input's length: none more,
//! `--no-capacity-checks`, `--ignore-soft-errors`,
//! `--restrict-allocation-to=` every other node of the request, the
//! Ganeti 3.1 N+1 rule with `-v -v`, or `--static-kvm-node-memory=0`
//! (with `FUZZ_ONCE`, the defaults only: see `hailstone_fuzz::once`).
//!
//! Checks (see `hailstone_fuzz::run_checked`): no panic; an answer is one
//! line ending in a newline, a JSON object with the keys `success`, `info`,
//! `result` in that order; a failure carries a message; two runs give the
//! same outcome.
#![no_main]

use hailstone::program::hail::options::{GanetiVersion, Options, SoftChecks};
use hailstone::read::json;
use hailstone_fuzz::{node_names, once, run_checked};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let defaults = Options::default();
    run_checked(data, &defaults);
    if once() {
        return;
    }

    let mut options = Options::default();
    match data.len() % 6 {
        0 => return,
        1 => options.algorithm.capacity_checks = false,
        2 => options.algorithm.soft = SoftChecks::Ignore,
        3 => {
            let names = json::parse(data)
                .map(|d| node_names(&d))
                .unwrap_or_default();
            options.algorithm.restrict_allocation_to =
                Some(names.into_iter().step_by(2).collect::<Vec<String>>());
        }
        4 => {
            options.load.ganeti = GanetiVersion::V31;
            options.verbose = 3;
        }
        _ => options.load.static_kvm_node_memory = 0,
    }
    run_checked(data, &options);
});
