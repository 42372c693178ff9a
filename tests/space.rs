//! `hailstone-space` end to end on generated clusters, both counts
//! (hspace's and `--allocator-model`), both phases: the states saved with
//! `-S` are read by the independent data-file reader of the plan checker
//! (`support::plan`) and checked against the cluster before: the existing
//! instances stay where they were; each new instance is of the template
//! asked for, on online nodes (a drbd instance on two nodes of one group);
//! no node gives more memory or disk than it had free; the number of new
//! instances is the count printed. The same input gives the same bytes.

use std::collections::BTreeMap;
use std::process::Command;

use hailstone::program::hail::options::LoadOptions;
use hailstone::shell::datafile;
use hailstone_devtools::generate::{generate, CaseSpec, DiskTemplate, RequestKind};

use crate::support::plan::{self, Cluster};

fn space(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_hailstone-space"))
        .args(args)
        .output()
        .expect("run hailstone-space")
}

/// A generated cluster (2 to 8 nodes, one or two groups).
fn generated_cluster(seed: u64) -> Option<String> {
    let mut spec = CaseSpec::random(seed, RequestKind::Allocate, 2..=8);
    spec.instance_templates = match seed % 3 {
        0 => vec![(DiskTemplate::Drbd, 1)],
        1 => vec![(DiskTemplate::Plain, 2), (DiskTemplate::Drbd, 1)],
        _ => vec![(DiskTemplate::Ext, 1)],
    };
    spec.groups = 1 + usize::from(seed.is_multiple_of(4));
    spec.tightness = [0.1, 0.3, 0.5][(seed % 3) as usize];
    spec.instances_per_node = [0.5, 1.5][(seed % 2) as usize];
    let case = generate(&spec);
    datafile::from_request(case.request.as_bytes(), &LoadOptions::default()).ok()
}

/// The value of `HTS_KEY` in machine-readable output.
fn key<'a>(stdout: &'a str, name: &str) -> Option<&'a str> {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(&format!("HTS_{name}=")))
}

/// The ways the saved state `after` is not the cluster `before` plus new
/// instances of `template` placed within the nodes' free resources.
fn violations(before: &Cluster, after: &Cluster, template: &str) -> Vec<String> {
    let mut bad = Vec::new();
    let mut mem: BTreeMap<&str, i64> = BTreeMap::new();
    let mut dsk: BTreeMap<&str, i64> = BTreeMap::new();
    for (name, i) in &before.insts {
        match after.insts.get(name) {
            Some(a) if a.pri == i.pri && a.sec == i.sec => {}
            _ => bad.push(format!("existing instance {name} moved or vanished")),
        }
    }
    for (name, i) in after
        .insts
        .iter()
        .filter(|(n, _)| !before.insts.contains_key(*n))
    {
        if i.template != template {
            bad.push(format!(
                "{name}: template {} (asked {template})",
                i.template
            ));
        }
        let node = |n: &str| before.nodes.get(n);
        match node(&i.pri) {
            Some(p) if !p.offline => {}
            _ => bad.push(format!("{name}: primary {} not an online node", i.pri)),
        }
        if template == "drbd" {
            match (node(&i.pri), node(&i.sec)) {
                (Some(p), Some(s)) if !s.offline && p.group == s.group && i.pri != i.sec => {}
                _ => bad.push(format!("{name}: bad secondary {:?}", i.sec)),
            }
        }
        *mem.entry(&i.pri).or_default() += i.mem;
        if matches!(template, "drbd" | "plain") {
            *dsk.entry(&i.pri).or_default() += i.dsk;
            if template == "drbd" {
                *dsk.entry(&i.sec).or_default() += i.dsk;
            }
        }
    }
    for (name, n) in &before.nodes {
        let used = mem.get(name.as_str()).copied().unwrap_or(0);
        if used > n.free_mem {
            bad.push(format!("{name}: {used} MiB placed, {} free", n.free_mem));
        }
        let used = dsk.get(name.as_str()).copied().unwrap_or(0);
        if used > n.free_dsk {
            bad.push(format!(
                "{name}: {used} MiB of disk placed, {} free",
                n.free_dsk
            ));
        }
    }
    bad
}

#[test]
fn counts_are_placements_within_the_free_resources() {
    let dir = crate::run::scratch("space-test");
    let mut placed = 0;
    let mut runs = 0;
    for seed in 1..=24u64 {
        let Some(text) = generated_cluster(seed) else {
            continue;
        };
        let file = dir.join(format!("c{seed}.data"));
        std::fs::write(&file, &text).unwrap();
        let before = plan::parse(&text);
        for (model, template) in [
            (false, "drbd"),
            (true, "drbd"),
            (false, "plain"),
            (true, "plain"),
        ] {
            let save = dir.join(format!("c{seed}-{model}-{template}"));
            let t = format!("--disk-template={template}");
            let mut args = vec![
                "--machine-readable",
                "-S",
                save.to_str().unwrap(),
                &t,
                "-t",
                file.to_str().unwrap(),
            ];
            if model {
                args.push("--allocator-model");
            }
            let out = space(&args);
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            if out.status.code() != Some(0) {
                // A cluster without an online node for the template.
                assert!(
                    String::from_utf8_lossy(&out.stderr).contains("failure during allocation"),
                    "{args:?}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                continue;
            }
            if seed % 4 == 0 {
                assert_eq!(
                    space(&args).stdout,
                    out.stdout,
                    "{args:?}: output differs between runs"
                );
            }
            runs += 1;
            let standard = std::fs::read_to_string(save.with_extension("standard")).unwrap();
            let after = plan::parse(&standard);
            let bad = violations(&before, &after, template);
            assert!(bad.is_empty(), "{args:?}: {bad:#?}");
            let count: usize = key(&stdout, "ALLOC_INSTANCES").unwrap().parse().unwrap();
            assert_eq!(after.insts.len() - before.insts.len(), count, "{args:?}");
            placed += count;
            let tiered = std::fs::read_to_string(save.with_extension("tiered")).unwrap();
            let after = plan::parse(&tiered);
            let bad = violations(&before, &after, template);
            assert!(bad.is_empty(), "{args:?} (tiered): {bad:#?}");
            let specs = key(&stdout, "TSPEC").unwrap_or("").trim_matches('\'');
            let tiered_count: usize = specs
                .split_whitespace()
                .filter_map(|s| s.rsplit('=').next()?.parse::<usize>().ok())
                .sum();
            assert_eq!(
                after.insts.len() - before.insts.len(),
                tiered_count,
                "{args:?}"
            );
        }
    }
    assert!(runs >= 60, "only {runs} runs");
    assert!(placed > 100, "only {placed} instances placed in all");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Without the global N+1 check, on one group and for plain instances,
/// hspace's search and the allocator's are the same search: the same
/// count (unless hspace stopped before it started, on a cluster with N+1
/// failures, which the allocator does not know of).
#[test]
fn the_allocator_model_is_hspaces_count_without_the_n1_shortcut() {
    let dir = crate::run::scratch("space-model-test");
    let mut compared = 0;
    for seed in 30..=45u64 {
        let Some(text) = generated_cluster(seed) else {
            continue;
        };
        let file = dir.join(format!("c{seed}.data"));
        std::fs::write(&file, &text).unwrap();
        let f = file.to_str().unwrap();
        let count = |extra: &[&str]| -> Option<usize> {
            let mut args = vec!["--machine-readable", "--disk-template=plain", "-t", f];
            args.extend_from_slice(extra);
            let out = space(&args);
            key(&String::from_utf8_lossy(&out.stdout), "ALLOC_INSTANCES")?
                .parse()
                .ok()
        };
        // Without the N+1 check, one group: the same search, the same count.
        let single_group = plan::parse(&text)
            .nodes
            .values()
            .map(|n| n.group.clone())
            .collect::<std::collections::BTreeSet<_>>()
            .len()
            == 1;
        if single_group {
            let hspace = count(&["--no-capacity-checks"]);
            let model = count(&["--no-capacity-checks", "--allocator-model"]);
            if hspace.is_some_and(|n| n > 0) {
                assert_eq!(hspace, model, "seed {seed}");
                compared += 1;
            }
        }
    }
    assert!(compared >= 5, "only {compared} clusters compared");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A three-node cluster (from the compat generator) whose group policy
/// allows instances of 7,872 MiB and more: after thirteen instances of
/// 7,872 MiB and 2 vCPUs, two nodes fail on memory and one on its vCPU
/// ratio. hspace's tiered count stops there: shrinking by vCPUs would
/// leave 1 vCPU, the last size of that walk, which `sufficesShrinking`
/// never tries (`iterateOk` stops at the instance that cannot shrink once
/// more, without it). Checked against hspace 3.0.2.
#[test]
fn the_tiered_count_never_tries_the_last_size_of_a_shrinking_walk() {
    const CLUSTER: &str = "\
grp-00|43b19675-347c-4a80-836a-da283b5f0bf9|preferred|env:staging,tier:gold|

node-0003.example.org|262144|1024|195584|0|0|24|N|43b19675-347c-4a80-836a-da283b5f0bf9|1||N|0|1|1.0
node-0001.example.org|32768|2048|30720|0|0|128|N|43b19675-347c-4a80-836a-da283b5f0bf9|1||N|0|1|1.0
node-0002.example.org|65391|1024|31599|0|0|12|N|43b19675-347c-4a80-836a-da283b5f0bf9|2||N|0|1|1.0

db-00003.example.org|32768|81920|1|running|Y|node-0002.example.org||sharedfile|service:db|1|-|N
db-00002.example.org|32768|163840|8|running|Y|node-0003.example.org||sharedfile|service:db|1|-|N
cache-00001.example.org|32768|409600|2|running|Y|node-0003.example.org||sharedfile|service:cache|1|-|N

htools:iextags:service
backup:daily

|17856,3,9216,1,1,2|15744,1,1024,1,1,1;18432,4,11264,16,1,3|sharedfile,drbd,diskless|4.0|32.0
grp-00|17024,2,3584,1,1,1|7872,1,1024,1,1,1;10304,4,1024,1,8,4;15744,1,1024,1,1,1;17792,4,4608,1,8,4|sharedfile,file,drbd|1.0|32.0
";
    let dir = crate::run::scratch("space-walk-test");
    let file = dir.join("cluster.data");
    std::fs::write(&file, CLUSTER).unwrap();
    let f = file.to_str().unwrap();
    for (spec, want) in [
        ("1024,7872,2", "'7872,1024,2,1=13'"),
        ("1024,7936,2", "'7936,1024,2,1=12'"),
    ] {
        let tiered = format!("--tiered-alloc={spec}");
        let args = [
            "--machine-readable",
            "--no-capacity-checks",
            &tiered,
            "-t",
            f,
        ];
        let out = space(&args);
        assert!(out.status.success(), "{spec}: {out:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(key(&stdout, "TSPEC"), Some(want), "{spec}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A self-made cluster for the policy tests: a group of three nodes
/// without exclusive storage (one holding an instance) and a group of two
/// with it; `POLICY` stands for the fields of each policy line.
const HUGE_POLICY_CLUSTER: &str = "\
grp-a|11111111-aaaa-4aaa-8aaa-aaaaaaaaaaaa|preferred||
grp-b|22222222-bbbb-4bbb-8bbb-bbbbbbbbbbbb|preferred||

node-a1|98304|2048|96256|1536000|1536000|16|N|11111111-aaaa-4aaa-8aaa-aaaaaaaaaaaa|4||N|4
node-a2|98304|2048|96256|1536000|1536000|16|N|11111111-aaaa-4aaa-8aaa-aaaaaaaaaaaa|4||N|4
node-a3|65536|2048|47104|1024000|921600|8|N|11111111-aaaa-4aaa-8aaa-aaaaaaaaaaaa|4||N|4
node-b1|131072|4096|126976|2048000|2048000|24|N|22222222-bbbb-4bbb-8bbb-bbbbbbbbbbbb|6||Y|6
node-b2|131072|4096|126976|2048000|2048000|24|N|22222222-bbbb-4bbb-8bbb-bbbbbbbbbbbb|6||Y|6

web-1|16384|102400|2|running|Y|node-a3||plain||1|-|N


|POLICY
grp-a|POLICY
grp-b|POLICY
";

/// The fields of a policy line whose maximum takes `field` (0 memory, 1
/// CPUs, 2 disk, 5 spindles) as `value`.
fn policy_with_max(field: usize, value: &str) -> String {
    let mut max: Vec<String> = "49152,4,409600,4,8,3"
        .split(',')
        .map(str::to_owned)
        .collect();
    max[field] = value.to_owned();
    format!(
        "1024,1,10240,1,1,1|512,1,2048,1,1,1;{}|plain,drbd,diskless,file,sharedfile,blockdev,rbd,ext|4.0|32.0",
        max.join(",")
    )
}

/// Policies whose maximum memory, disk, CPUs or spindles are far beyond
/// any node, up to 2^62: hspace's tiered count shrinks them one unit at a
/// time (a recursion and a search per unit: hours, or out of memory; the
/// count before this fix overflowed its stack); `hailstone-space` skips
/// the sizes no search tells apart and ends within seconds, in both
/// models, with a template that keeps its disks elsewhere (where disk
/// size is nothing to a node). Sizes a whole number of units apart in
/// that range give the same output but for the maximum itself (printed,
/// and counted in the statistics, where it is not shrunk). (Above
/// 2^62 a node's sums can wrap around as Haskell's `Int` does; the
/// compat suite's policy runs compare those with hspace.)
#[test]
fn huge_policy_maxima_end_within_seconds() {
    let dir = crate::run::scratch("space-huge-policy");
    let counted = |field: usize, value: i64, extra: &[&str]| -> Vec<String> {
        let value = value.to_string();
        let file = dir.join(format!("p{field}-{value}.data"));
        let text = HUGE_POLICY_CLUSTER.replace("POLICY", &policy_with_max(field, &value));
        std::fs::write(&file, text).unwrap();
        let mut args = vec!["-t", file.to_str().unwrap()];
        args.extend_from_slice(extra);
        let start = std::time::Instant::now();
        let out = space(&args);
        let took = start.elapsed().as_secs_f64();
        assert!(out.status.success(), "{field} {value} {extra:?}: {out:?}");
        assert!(took < 20.0, "{field} {value} {extra:?}: {took:.1} s");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let spec = text
            .lines()
            .skip_while(|l| !l.starts_with("Tiered (initial size)"))
            .nth(1)
            .expect("the tiered phase");
        assert!(spec.contains(&value), "{field} {value}: {spec}");
        // The resource's value, where it is not shrunk, is the only change;
        // the tiered phase's statistics then count it too and are left out.
        let lines: Vec<String> = text.lines().map(|l| l.replace(&value, "MAX")).collect();
        let unshrunk = lines
            .iter()
            .any(|l| l.contains("instances of spec") && l.contains("MAX"));
        let mut tiered = false;
        lines
            .into_iter()
            .filter(|l| {
                if l.starts_with("Tiered allocation results") || l.starts_with("Standard") {
                    tiered = l.starts_with("Tiered");
                }
                !(unshrunk && tiered && (l.contains("score") || l.contains("efficiency")))
            })
            .collect::<Vec<_>>()
    };
    let models: [&[&str]; 4] = [
        &[],
        &["--allocator-model"],
        &["--disk-template=drbd"],
        &["--disk-template=diskless", "--allocator-model"],
    ];
    let far = 1i64 << 41;
    // (field, unit): memory, CPUs, disk, spindles.
    for (field, unit) in [(0usize, 64i64), (1, 1), (2, 256), (5, 1)] {
        for extra in models {
            let at_far = counted(field, far, extra);
            assert_eq!(
                at_far,
                counted(field, far + 1000 * unit, extra),
                "{field} {extra:?}"
            );
            assert_eq!(at_far, counted(field, 1 << 62, extra), "{field} {extra:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
