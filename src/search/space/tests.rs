//! The tiered count's skipping ([`super::steady`]) against the count of
//! every size: on generated clusters whose instance policies are
//! rewritten to wide maxima (hundreds to thousands of units of each
//! resource), `hailstone-space` prints the same bytes and exits the same
//! with and without skipping, with hspace's count and the allocator's,
//! with and without explanations; and it does skip.

use std::ffi::OsString;

use hailstone_devtools::generate::rng::Rng;
use hailstone_devtools::generate::{generate, CaseSpec, DiskTemplate, RequestKind};

use super::steady::{SKIPPED, SKIPPING};
use super::tiered::ONE_BY_ONE;
use super::{shrink, shrink_by};
use crate::model::instance::{Disk, Instance};
use crate::model::types::FailMode;
use crate::program::hail::options::LoadOptions;
use crate::shell::datafile;

/// `hailstone-space ARGS`: exit status, stdout, stderr.
fn space(args: &[String]) -> (u8, String, String) {
    let args: Vec<OsString> = args.iter().map(OsString::from).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = crate::program::space::main(&args, &mut out, &mut err);
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    (status, text(out), text(err))
}

/// An instance policy spec: memory, CPUs, disk, disks, NICs, spindles.
fn spec(mem: i64, cpu: i64, dsk: i64, spindles: i64) -> String {
    format!("{mem},{cpu},{dsk},1,1,{spindles}")
}

/// A random maximum of one resource: a few units above the minimum, or
/// hundreds to a thousand and a half.
fn wide(r: &mut Rng, min: i64, unit: i64) -> i64 {
    let units = if r.below(2) == 0 {
        r.range(0, 12)
    } else {
        r.range(200, 1500)
    };
    min + unit * units
}

/// An instance policy line's fields after the group name: a minimum
/// spec (sometimes raised in one resource), a wide maximum, sometimes a
/// second pair, the templates with `first` first, the ratios.
fn policy(r: &mut Rng, first: &str) -> String {
    let mut min = [128, 1, 1024, 1];
    if r.below(3) == 0 {
        let i = r.below(4) as usize;
        min[i] *= r.range(2, 40);
    }
    let max = [
        wide(r, min[0], 64),
        wide(r, min[1], 1),
        wide(r, min[2], 256),
        wide(r, min[3], 1),
    ];
    let mut pairs = format!(
        "{};{}",
        spec(min[0], min[1], min[2], min[3]),
        spec(max[0], max[1], max[2], max[3])
    );
    if r.below(3) == 0 {
        pairs.push_str(&format!(
            ";{};{}",
            spec(128, 1, 1024, 1),
            spec(
                min[0] + 64 * r.range(0, 30),
                2,
                1024 + 256 * r.range(0, 30),
                2
            )
        ));
    }
    let templates = [
        "plain",
        "drbd",
        "file",
        "sharedfile",
        "diskless",
        "ext",
        "rbd",
    ];
    let mut list = vec![first];
    list.extend(templates.iter().filter(|t| **t != first));
    let vcpu = ["1.0", "4.0", "8.0"][r.below(3) as usize];
    let spindle = ["4.0", "32.0"][r.below(2) as usize];
    format!(
        "{}|{pairs}|{}|{vcpu}|{spindle}",
        spec(min[0], min[1], min[2], min[3]),
        list.join(",")
    )
}

/// Generated cluster `seed` as a data file with its policies rewritten
/// (the cluster's and each group's drawn apart, one template first).
fn cluster(seed: u64) -> Option<String> {
    let mut r = Rng::new(seed);
    let mut spec = CaseSpec::random(seed, RequestKind::Allocate, 2..=6);
    spec.instance_templates = match seed % 3 {
        0 => vec![(DiskTemplate::Drbd, 1)],
        1 => vec![(DiskTemplate::Plain, 2), (DiskTemplate::Drbd, 1)],
        _ => vec![(DiskTemplate::Ext, 1), (DiskTemplate::File, 1)],
    };
    spec.groups = 1 + usize::from(seed.is_multiple_of(3));
    spec.instances_per_node = [0.5, 1.5][(seed % 2) as usize];
    let data =
        datafile::from_request(generate(&spec).request.as_bytes(), &LoadOptions::default()).ok()?;
    let first = ["plain", "drbd", "file", "diskless", "ext"][r.below(5) as usize];
    let lines: Vec<String> = data
        .split('\n')
        .map(|line| {
            let fields: Vec<&str> = line.split('|').collect();
            if fields.len() == 6 && fields[2].contains(';') {
                format!("{}|{}", fields[0], policy(&mut r, first))
            } else {
                line.to_owned()
            }
        })
        .collect();
    Some(lines.join("\n"))
}

/// Skipping changes nothing: every generated cluster gives the same
/// output with and without it, in both models, whether the levels of a
/// run are counted one by one or stood for by the smallest size's; and
/// runs of sizes are skipped.
#[test]
fn skipping_sizes_gives_the_count_of_every_size() {
    let dir = std::env::temp_dir().join(format!("hailstone-steady-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut compared = 0;
    SKIPPED.set(0);
    for seed in 0..30u64 {
        let Some(text) = cluster(seed) else { continue };
        let file = dir.join(format!("c{seed}.data"));
        std::fs::write(&file, &text).unwrap();
        let extra: &[&str] = match seed % 5 {
            0 => &[],
            1 => &["--explain"],
            2 => &["--no-capacity-checks"],
            3 => &["-l", "9"],
            _ => &["-l", "3", "--explain"],
        };
        for model in [false, true] {
            let mut args = vec!["-t".to_owned(), file.display().to_string()];
            args.extend(extra.iter().map(|s| (*s).to_owned()));
            if model {
                args.push("--allocator-model".to_owned());
            }
            SKIPPING.set(false);
            let every = space(&args);
            SKIPPING.set(true);
            ONE_BY_ONE.set(true);
            let one_by_one = space(&args);
            ONE_BY_ONE.set(false);
            let skipping = space(&args);
            assert_eq!(
                one_by_one, every,
                "one by one: seed {seed} {args:?}\n{text}"
            );
            assert_eq!(skipping, every, "seed {seed} {args:?}\n{text}");
            compared += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(compared >= 50, "only {compared} runs compared");
    assert!(
        SKIPPED.get() >= 20,
        "only {} runs of sizes skipped",
        SKIPPED.get()
    );
}

/// One instance for the shrinking tests: 1 GiB of memory, 10 GiB of
/// disk on one disk with 5 spindles, 4 vCPUs.
fn instance() -> Instance {
    let mut inst = Instance::for_calculation(
        "new",
        1024,
        10240,
        4,
        1,
        crate::model::types::DiskTemplate::Plain,
        true,
    );
    inst.disks = std::sync::Arc::from([Disk {
        size: 10240,
        spindles: Some(5),
    }]);
    inst
}

/// Shrinking `k` units at once is shrinking one unit `k` times, down to
/// where a step cannot shrink.
#[test]
fn shrinking_by_k_units_is_shrinking_k_times() {
    for mode in [
        FailMode::Mem,
        FailMode::Disk,
        FailMode::Cpu,
        FailMode::Spindles,
        FailMode::N1,
    ] {
        let mut step = Some(instance());
        for k in 1..=45 {
            step = step.and_then(|i| shrink(&i, mode));
            assert_eq!(shrink_by(&instance(), mode, k), step, "{mode:?} {k}");
        }
    }
}
