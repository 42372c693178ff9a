//! The same bytes on 1, 2 and 16 threads: every program whose work runs
//! on several threads (the allocator's pair scans and second reading
//! thread, the evacuations' pair scans, a balancing step's scans, the
//! squeeze's next trial, the compression trials) is run with
//! `HAILSTONE_THREADS=1`, `2` and `16` on generated clusters large enough
//! to take the parallel paths, and must print the same stdout and stderr
//! and exit the same. A bad `HAILSTONE_THREADS` is a command-line error.

use std::path::Path;
use std::process::{Command, Output};

use hailstone::program::hail::options::LoadOptions;
use hailstone::shell::datafile;
use hailstone_devtools::generate::{generate, CaseSpec, DiskTemplate, RequestKind, Shape};

const THREADS: [&str; 3] = ["1", "2", "16"];

fn run_with(threads: &str, bin: &str, args: &[&str]) -> Output {
    Command::new(bin)
        .args(args)
        .env("HAILSTONE_THREADS", threads)
        .output()
        .expect("run a hailstone program")
}

/// Runs `bin args` on every thread count: the same outputs each time.
/// Returns the one-thread stdout.
fn same_on_every_count(bin: &str, args: &[&str]) -> String {
    let one = run_with(THREADS[0], bin, args);
    for t in &THREADS[1..] {
        let other = run_with(t, bin, args);
        assert_eq!(
            one.status.code(),
            other.status.code(),
            "{bin} {args:?}: exit on {t} threads"
        );
        assert!(
            one.stdout == other.stdout,
            "{bin} {args:?}: stdout differs on {t} threads"
        );
        assert!(
            one.stderr == other.stderr,
            "{bin} {args:?}: stderr differs on {t} threads"
        );
    }
    assert_eq!(
        one.status.code(),
        Some(0),
        "{bin} {args:?}: {}",
        String::from_utf8_lossy(&one.stderr)
    );
    String::from_utf8(one.stdout).expect("UTF-8 output")
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write the input");
    path.to_string_lossy().into_owned()
}

fn data_file(spec: &CaseSpec) -> String {
    let case = generate(spec);
    datafile::from_request(case.request.as_bytes(), &LoadOptions::default())
        .expect("a generated cluster reads")
}

/// One group of DRBD instances, five per node.
fn one_group(seed: u64, nodes: usize, templates: DiskTemplate, shape: Shape) -> CaseSpec {
    let mut spec = CaseSpec::new(seed, RequestKind::Relocate, nodes);
    spec.instances_per_node = 5.0;
    spec.instance_templates = vec![(templates, 1)];
    spec.shape = shape;
    spec
}

#[test]
fn the_allocator_answers_the_same_on_any_number_of_threads() {
    let dir = crate::run::scratch("threads-alloc");
    let bin = env!("CARGO_BIN_EXE_hailstone");
    for (seed, kind) in [
        (5, RequestKind::Allocate),
        (
            6,
            RequestKind::NodeEvacuate(hailstone_devtools::generate::EvacMode::All),
        ),
        (7, RequestKind::Relocate),
    ] {
        // 300 nodes of five instances: a request over the second reading
        // thread's threshold (512 KiB) and tens of thousands of pairs.
        let mut spec = CaseSpec::new(seed, kind, 300);
        spec.instances_per_node = 5.0;
        spec.template = Some(DiskTemplate::Drbd);
        let case = generate(&spec);
        assert!(case.request.len() > 512 * 1024);
        let file = write(&dir, &format!("r{seed}.json"), &case.request);
        let answer = same_on_every_count(bin, &[&file]);
        assert!(answer.starts_with("{\"success\":true"), "{answer}");
    }
}

#[test]
fn balancing_is_the_same_on_any_number_of_threads() {
    let dir = crate::run::scratch("threads-balance");
    let bin = env!("CARGO_BIN_EXE_hailstone-balance");
    for (seed, shape) in [(3, Shape::Hosting), (4, Shape::Standard)] {
        let text = data_file(&one_group(seed, 80, DiskTemplate::Drbd, shape));
        let file = write(&dir, &format!("c{seed}.data"), &text);
        let plan = same_on_every_count(bin, &["-t", &file, "-C", "-l", "40"]);
        assert!(plan.contains("gnt-instance"), "{plan}");
    }
}

#[test]
fn squeezing_is_the_same_on_any_number_of_threads() {
    let dir = crate::run::scratch("threads-squeeze");
    let bin = env!("CARGO_BIN_EXE_hailstone-squeeze");
    for seed in [2, 5] {
        let mut spec = one_group(seed, 24, DiskTemplate::Ext, Shape::Standard);
        spec.tightness = 0.2;
        let file = write(&dir, &format!("c{seed}.data"), &data_file(&spec));
        let plan = same_on_every_count(bin, &["-t", &file, "-C"]);
        assert!(plan.contains("gnt-node power -f off"), "{plan}");
    }
}

#[test]
fn compression_is_the_same_on_any_number_of_threads() {
    let dir = crate::run::scratch("threads-compress");
    let bin = env!("CARGO_BIN_EXE_hailstone-groups");
    for seed in [4, 11] {
        let mut spec = CaseSpec::multi_group(seed, 80, 6);
        spec.tightness = 0.2;
        spec.instance_templates = vec![(DiskTemplate::Ext, 1), (DiskTemplate::Drbd, 1)];
        let file = write(&dir, &format!("c{seed}.data"), &data_file(&spec));
        let report = same_on_every_count(bin, &["compress", "-t", &file]);
        assert!(report.contains("can be emptied"), "{report}");
        same_on_every_count(bin, &["compress", "-t", &file, "--evacuate", "-C"]);
    }
}

#[test]
fn a_bad_thread_count_is_refused() {
    for bin in [
        env!("CARGO_BIN_EXE_hailstone"),
        env!("CARGO_BIN_EXE_hailstone-balance"),
    ] {
        for bad in ["0", "many", "100000"] {
            let out = run_with(bad, bin, &["--version"]);
            assert_eq!(out.status.code(), Some(2), "{bin} {bad}");
            assert!(out.stdout.is_empty());
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains(&format!(
                    "HAILSTONE_THREADS={bad}: expected a number of threads from 1 to 1024"
                )),
                "{err}"
            );
        }
    }
}
