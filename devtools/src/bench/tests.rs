//! The benchmark tool's own tests.

use super::*;

fn args(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

#[test]
fn parses_options() {
    let c = parse_args(&args(
        "--sizes 100,20,20 --modes relocate,allocate-drbd --runs=5 --hail-cap 2.5 --seed 9",
    ))
    .unwrap();
    assert_eq!(c.sizes, vec![20, 100]);
    assert_eq!(c.modes, vec![Mode::AllocateDrbd, Mode::Relocate]);
    assert_eq!(c.runs, 5);
    assert_eq!(c.hail_cap, Duration::from_millis(2500));
    assert_eq!(c.seed, 9);
    for help in ["--help", "-h"] {
        let e = parse_args(&args(help)).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::DisplayHelp);
        assert_eq!(e.exit_code(), 0);
    }
    assert!(!c.modes_given || c.modes.len() == 2);
    let b = parse_args(&args(
        "--modes balance --balance-sizes 60,20 --hbal-max-nodes 50",
    ))
    .unwrap();
    assert_eq!(b.modes, vec![Mode::Balance]);
    assert!(b.modes_given);
    assert_eq!(b.balance_sizes, vec![20, 60]);
    assert_eq!(b.hbal_max_nodes, 50);
    let sp = parse_args(&args(
        "--modes space --space-sizes 60,5 --hspace /x/hspace --space-bin /y/hailstone-space",
    ))
    .unwrap();
    assert_eq!(sp.modes, vec![Mode::Space]);
    assert_eq!(sp.space_sizes, vec![5, 60]);
    assert_eq!(sp.hspace, PathBuf::from("/x/hspace"));
    assert_eq!(sp.space_bin, PathBuf::from("/y/hailstone-space"));
    // The space rows' cap: --space-cap, else at least 300 s.
    assert_eq!(sp.cap(Mode::Space), Duration::from_secs(300));
    assert_eq!(sp.cap(Mode::SpaceModel), Duration::from_secs(300));
    assert_eq!(sp.cap(Mode::Squeeze), Duration::from_secs(60));
    let big = parse_args(&args("--hail-cap 600")).unwrap();
    assert_eq!(big.cap(Mode::Space), Duration::from_secs(600));
    let own = parse_args(&args("--hail-cap 600 --space-cap 90")).unwrap();
    assert_eq!(own.cap(Mode::SpaceModel), Duration::from_secs(90));
    assert_eq!(own.cap(Mode::Balance), Duration::from_secs(600));
    let h = parse_args(&args("--hail-max-nodes 400")).unwrap();
    assert_eq!(h.hail_max_nodes, 400);
    let d = parse_args(&args("")).unwrap();
    assert_eq!(d.hail_max_nodes, 2000);
    assert_eq!(d.sizes, vec![20, 100, 400, 1000, 2000, 5000, 10000]);
    assert!(!d.modes_given);
    assert_eq!(d.balance_sizes, vec![20, 60, 100, 1000]);
    assert!(d.modes.contains(&Mode::Balance));
    assert!(d.modes.contains(&Mode::Squeeze));
    assert!(d.modes.contains(&Mode::Space));
    // The --allocator-model rows come with the space rows, not on their own.
    assert!(!d.modes.contains(&Mode::SpaceModel));
    assert_eq!(d.space_sizes, vec![5, 20, 60, 200]);
    assert_eq!(d.squeeze_sizes, vec![20, 60, 200]);
    assert_eq!(
        d.hspace,
        PathBuf::from("/usr/lib/ganeti/3.0/usr/bin/hspace")
    );
    assert_eq!(d.space_bin, PathBuf::from("target/release/hailstone-space"));
    assert_eq!(c.mix, Mix::Drbd);
    assert_eq!(
        parse_args(&args("--mix=typical")).unwrap().mix,
        Mix::Typical
    );
    for bad in [
        "--runs 0",
        "--sizes 2",
        "--modes bogus",
        "--hail-cap -1",
        "--frob",
        "--runs",
        "--markdown=1",
        "--mix x",
        "--balance-sizes 3",
        "--hbal-max-nodes 0",
        "--hail-max-nodes x",
        "--space-sizes 3",
        "--space-sizes",
        "--space-cap 0",
        "--space-cap x",
        "--modes space-allocator-model",
    ] {
        assert!(parse_args(&args(bad)).is_err(), "{}", bad);
    }
}

#[test]
fn the_command_line_reads_as_the_makefile_writes_it() {
    use clap::CommandFactory;
    Config::command().debug_assert();
    // make bench's first run: BENCH_HOSTING_ARGS, then BENCH_ARGS; the
    // later of a repeated option wins.
    let line = "--install-hail --hail /x/hail --hailstone /x/hailstone --hail-cap 180 \
         --shape hosting --modes relocate,balance,squeeze,compress,space --sizes 100,1000";
    let hosting = parse_args(&args(line)).unwrap();
    assert_eq!(
        hosting.modes,
        [
            Mode::Relocate,
            Mode::Balance,
            Mode::Squeeze,
            Mode::Compress,
            Mode::Space
        ]
    );
    assert_eq!(hosting.compress_sizes, [2000]);
    let c = parse_args(&args(&format!("{line} --modes balance"))).unwrap();
    assert_eq!(c.modes, vec![Mode::Balance]);
    assert!(c.modes_given && c.install_hail);
    assert_eq!(
        (c.shape, c.sizes.clone()),
        (Shape::Hosting, vec![100, 1000])
    );
    assert_eq!(c.hail, PathBuf::from("/x/hail"));
    assert_eq!(c.hail_cap, Duration::from_secs(180));
    // A bad value is named with its option and the reason.
    let e = parse_args(&args("--sizes 20,2")).unwrap_err().to_string();
    assert!(
        e.contains("--sizes") && e.contains("'2' is not a cluster size"),
        "{e}"
    );
    let e = parse_args(&args("--modes all,bogus"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown mode 'bogus' (known: all, allocate-drbd"),
        "{e}"
    );
    assert_eq!(parse_args(&args("--runs 0")).unwrap_err().exit_code(), 2);
}

#[test]
fn medians() {
    let d = |ms: u64| Duration::from_millis(ms);
    assert_eq!(median(&[d(3000), d(1000), d(2000)]), Some(2.0));
    assert_eq!(median(&[d(1000), d(2000)]), Some(1.5));
    assert_eq!(median(&[]), None);
}

#[test]
fn dates() {
    assert_eq!(civil_from_days(0), (1970, 1, 1));
    assert_eq!(civil_from_days(19_723), (2024, 1, 1));
    assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    assert_eq!(now_utc().len(), "2024-01-01 00:00 UTC".len());
}

#[test]
fn specs_and_shapes() {
    for mix in [Mix::Drbd, Mix::DrbdHeavy, Mix::Typical] {
        for m in Mode::ALL.into_iter().chain([Mode::SpaceModel]) {
            // Some seed among the first few gives the intended shape.
            let found = (1..=SEED_TRIES)
                .map(|seed| generate::generate(&spec_for(m, 20, seed, mix, Shape::Standard)))
                .find(|c| has_wanted_shape(m, c));
            let case = found.expect("a case of the wanted shape");
            assert_eq!(case.kind, m.kind());
            assert!(case.options.is_empty());
            let v: serde_json::Value = serde_json::from_str(&case.request).unwrap();
            let groups = match m {
                Mode::Compress => COMPRESS_GROUPS,
                _ if m.is_planner() => 1,
                _ => GROUPS,
            };
            assert_eq!(v["nodegroups"].as_object().unwrap().len(), groups);
            assert_eq!(v["nodes"].as_object().unwrap().len(), 20);
            if m == Mode::ChangeGroup {
                assert_eq!(request_instances(&v).len(), 1);
            }
            if m == Mode::NodeEvacuateAll {
                assert!(request_instances(&v).len() >= 5);
            }
            if m == Mode::Compress {
                // ext and DRBD instances whatever the mix, file ones in
                // the groups whose storage is files.
                for i in v["instances"].as_object().unwrap().values() {
                    let t = i["disk_template"].as_str().unwrap();
                    assert!(["ext", "drbd", "file"].contains(&t), "{t}");
                }
                continue;
            }
            if m.table() == Mode::Space {
                // DRBD and plain instances, both, whatever the mix.
                let mut seen: Vec<&str> = v["instances"]
                    .as_object()
                    .unwrap()
                    .values()
                    .map(|i| i["disk_template"].as_str().unwrap())
                    .collect();
                seen.sort_unstable();
                seen.dedup();
                assert_eq!(seen, ["drbd", "plain"], "{}", m.name());
                continue;
            }
            let template = match m {
                Mode::Squeeze => Some("ext"),
                Mode::Balance => Some("drbd"),
                _ if mix == Mix::Drbd => Some("drbd"),
                _ => None,
            };
            // The squeeze cluster's one DRBD instance is the relocate
            // request's.
            let requested = v["request"]["name"].as_str().unwrap_or_default();
            if let Some(t) = template {
                for (name, i) in v["instances"].as_object().unwrap() {
                    if m == Mode::Squeeze && name == requested {
                        assert_eq!(i["disk_template"], "drbd");
                    } else {
                        assert_eq!(i["disk_template"], t);
                    }
                }
            }
        }
    }
}

#[test]
fn formatting() {
    assert_eq!(secs(0.00123), "0.0012");
    assert_eq!(secs(0.19), "0.190");
    assert_eq!(secs(3.912), "3.91");
    assert_eq!(secs(22.04), "22.0");
    assert_eq!(cap_text(Duration::from_secs(60)), "> 60");
    assert_eq!(cap_text(Duration::from_millis(2500)), "> 2.50");
}

/// The independent layout is the same document with other key order and
/// spacing: not the generator's bytes, the same JSON value.
#[test]
fn independent_layout_keeps_the_document() {
    let case = generate::generate(&spec_for(
        Mode::RelocateIndependent,
        20,
        1,
        Mix::Drbd,
        Shape::Standard,
    ));
    let other = independent_layout(&case.request).unwrap();
    assert_ne!(other, case.request);
    let a: serde_json::Value = serde_json::from_str(&case.request).unwrap();
    let b: serde_json::Value = serde_json::from_str(&other).unwrap();
    assert_eq!(a, b);
    // Keys in alphabetical order, not a master's: "version" comes first in
    // the generator's request, after "cluster_name" here.
    let first = |t: &str, k: &str| t.find(&format!("\"{k}\"")).unwrap();
    assert!(first(&case.request, "version") < first(&case.request, "cluster_name"));
    assert!(first(&other, "cluster_name") < first(&other, "version"));
    assert!(other.contains("\n  \""), "two-space indentation");
}

/// The space rows: one table for both, the model row after the space row
/// of each size, and the instance counts of a machine-readable report.
#[test]
fn space_rows() {
    assert_eq!(Mode::SpaceModel.table(), Mode::Space);
    assert_eq!(Mode::Squeeze.table(), Mode::Squeeze);
    assert!(Mode::Space.is_planner() && Mode::SpaceModel.is_planner());
    assert_eq!(Mode::SpaceModel.original(), "hspace");
    assert_eq!(Mode::SpaceModel.ours(), "hailstone-space");
    assert_eq!(Mode::parse("space"), Some(Mode::Space));
    assert_eq!(Mode::parse(Mode::SpaceModel.name()), None);
    let mut keys = [
        (Mode::SpaceModel, 20),
        (Mode::Space, 200),
        (Mode::Space, 20),
        (Mode::Squeeze, 200),
        (Mode::SpaceModel, 5),
        (Mode::Space, 5),
    ];
    keys.sort_by_key(|&(m, n)| (m.table(), n, m));
    assert_eq!(
        keys,
        [
            (Mode::Squeeze, 200),
            (Mode::Space, 5),
            (Mode::SpaceModel, 5),
            (Mode::Space, 20),
            (Mode::SpaceModel, 20),
            (Mode::Space, 200),
        ]
    );
    assert_eq!(
        headers(Mode::Space),
        [
            "mode",
            "nodes",
            "hspace s",
            "hailstone-space s",
            "ratio",
            "hailstone-space peak RSS (MB)",
            "same output"
        ]
    );
    let text = legend(Mode::Space).unwrap();
    assert!(text.contains("hspace has no such mode"), "{text}");
    assert!(text.contains("hspace's default run time / hailstone-space --allocator-model's time"));
    assert!(text.contains("'space --allocator-model' rows"));
    assert_eq!(legend(Mode::Squeeze), None);
    assert_eq!(legend(Mode::AllocateDrbd), None);
    let report = b"HTS_INI_INST_CNT=25\nHTS_TRL_INST_CNT=30\nHTS_ALLOC_INSTANCES=77\nHTS_OK=1\n";
    assert_eq!(space_counts(report), Some((5, 77)));
    assert_eq!(space_counts(b"HTS_ALLOC_INSTANCES=77\n"), None);
    assert_eq!(space_counts(b""), None);
}

/// The ratio of a space --allocator-model row is taken against hspace's
/// default run, and an hspace that reached the cap makes it a lower bound.
#[test]
fn space_model_ratio() {
    let row = |hail: HailTime, stone: StoneTime| Row {
        mode: Mode::SpaceModel,
        nodes: 20,
        case_id: String::new(),
        seed: 1,
        hail,
        stone,
        rss_kib: None,
        same: Same::NotApplicable,
        explain: None,
        notes: Vec::new(),
    };
    let cap = Duration::from_secs(60);
    let r = row(HailTime::Median(12.0, 1), StoneTime::Median(0.75, 3));
    assert_eq!(ratio_cell(&r, cap), "16.0×");
    assert_eq!(same_cell(r.same), "n/a");
    let r = row(HailTime::Skipped, StoneTime::Median(6.0, 3));
    assert_eq!(ratio_cell(&r, cap), "> 10.0×");
    assert_eq!(hail_cell(&r.hail, cap), "> 60");
    let cells = cells(&[r], cap);
    assert_eq!(cells[0][0], "space --allocator-model");
}

/// The compress rows: hailstone-groups alone on the generator's
/// multi-group cluster of docs/performance.md (`hailstone-gen --profile
/// multi-group --groups 10 --instance-templates ext:1,drbd:1 --tightness
/// 0.2 --data-file --shape S`), run as `compress -t FILE`, in a table of
/// their own between the squeeze and the space tables.
#[test]
fn compress_rows() {
    assert_eq!(Mode::parse("compress"), Some(Mode::Compress));
    assert!(Mode::Compress.is_planner());
    assert_eq!(Mode::Compress.table(), Mode::Compress);
    assert_eq!(Mode::Compress.ours(), "hailstone-groups");
    assert!(Mode::Squeeze < Mode::Compress && Mode::Compress < Mode::Space);
    let d = parse_args(&args("")).unwrap();
    assert!(d.modes.contains(&Mode::Compress));
    assert_eq!(d.compress_sizes, vec![2000]);
    assert_eq!(
        d.groups_bin,
        PathBuf::from("target/release/hailstone-groups")
    );
    assert_eq!(d.groups_against, None);
    assert_eq!(d.cap(Mode::Compress), d.hail_cap);
    let c = parse_args(&args(
        "--modes compress --compress-sizes 2000,400 --groups-against /x/hailstone-groups",
    ))
    .unwrap();
    assert_eq!(c.modes, vec![Mode::Compress]);
    assert_eq!(c.compress_sizes, vec![400, 2000]);
    assert_eq!(c.groups_against, Some(PathBuf::from("/x/hailstone-groups")));
    assert!(parse_args(&args("--compress-sizes 3")).is_err());

    // The spec is hailstone-gen's for those options.
    for shape in [Shape::Standard, Shape::Hosting] {
        let spec = spec_for(Mode::Compress, 2000, 1, Mix::Drbd, shape);
        let mut gen = CaseSpec::multi_group(1, 2000, 10);
        gen.instance_templates = vec![(DiskTemplate::Ext, 1), (DiskTemplate::Drbd, 1)];
        gen.tightness = 0.2;
        gen.shape = shape;
        assert_eq!(format!("{spec:?}"), format!("{gen:?}"));
    }
    let case = generate::generate(&spec_for(Mode::Compress, 60, 1, Mix::Drbd, Shape::Hosting));
    let text = hailstone::shell::datafile::from_request(
        case.request.as_bytes(),
        &hailstone::program::hail::options::LoadOptions::default(),
    )
    .unwrap();
    // The data file's first section: one line per group.
    assert_eq!(text.split("\n\n").next().unwrap().lines().count(), 10);
    let id = planner_id(&case.id, Mode::Compress, "ext-drbd");
    assert_eq!(id, "compress/ext-drbd/n60/g10/s1/hosting");
    assert_eq!(
        planner_id("allocate/drbd/n1000/g1/s1", Mode::Balance, "drbd"),
        "balance/drbd/n1000/g1/s1"
    );
    let data = Path::new("/d/compress.data");
    assert_eq!(
        planner_options(Mode::Compress, data),
        ["compress", "-t", "/d/compress.data"]
    );
    assert_eq!(
        planner_options(Mode::Balance, data),
        ["-t", "/d/compress.data"]
    );

    // No original: the column says so, and the legend says why.
    assert_eq!(headers(Mode::Compress)[2], "other hailstone-groups s");
    let text = legend(Mode::Compress).unwrap();
    assert!(
        text.contains("Ganeti has no multi-group compression"),
        "{text}"
    );
    assert!(text.contains("--groups-against"), "{text}");
}

/// hailstone's runs compared with each other: runs that did not finish
/// are left out, the first differing one is named.
#[test]
fn runs_check() {
    let run = |status: Status, out: &str| Run {
        status,
        wall: Duration::from_millis(10),
        stdout: out.as_bytes().to_vec(),
        stderr: Vec::new(),
        rss_kib: None,
    };
    let mut c = RunsCheck::new();
    c.add(&run(Status::Capped, "partial"));
    c.add(&run(Status::Exited(0), "plan"));
    assert_eq!((c.finished, c.differ), (1, None));
    c.add(&run(Status::Exited(0), "plan"));
    c.add(&run(Status::Signalled, ""));
    assert_eq!((c.finished, c.differ), (2, None));
    c.add(&run(Status::Exited(0), "other plan"));
    c.add(&run(Status::Exited(1), "plan"));
    assert_eq!((c.finished, c.differ), (4, Some(2)));
    assert_eq!(c.other, b"other plan");
    let mut s = RunsCheck::new();
    s.add(&run(Status::Exited(0), "plan"));
    s.add(&run(Status::Exited(1), "plan"));
    assert_eq!(s.differ, Some(1));
    assert_eq!(s.other_status, Status::Exited(1));
    assert_eq!(same_cell(Same::RunsYes), "yes (runs)");
    assert_eq!(same_cell(Same::RunsNo), "NO (runs)");
}

/// The balance and squeeze rows' clusters are docs/performance.md's
/// held-out files: `hailstone-gen --kind relocate --seed S --nodes N
/// --groups 1 --instances-per-node 5 --data-file --shape SHAPE` with
/// `--instance-templates drbd` (balance), `--instance-templates ext
/// --tightness 0.2` (squeeze), as hailstone-gen builds its spec.
#[test]
fn planner_clusters_are_the_held_out_files() {
    for shape in [Shape::Standard, Shape::Hosting] {
        for (mode, nodes, template, tightness) in [
            (Mode::Balance, 1000, DiskTemplate::Drbd, None),
            (Mode::Squeeze, 200, DiskTemplate::Ext, Some(0.2)),
        ] {
            let mut gen = CaseSpec::new(1, RequestKind::Relocate, nodes);
            gen.groups = 1;
            gen.instances_per_node = 5.0;
            gen.instance_templates = vec![(template, 1)];
            if let Some(t) = tightness {
                gen.tightness = t;
            }
            gen.shape = shape;
            let spec = spec_for(mode, nodes, 1, Mix::Typical, shape);
            assert_eq!(format!("{spec:?}"), format!("{gen:?}"), "{}", mode.name());
        }
    }
    // The id names the planner, not the relocate request.
    let case = generate::generate(&spec_for(Mode::Squeeze, 20, 1, Mix::Drbd, Shape::Hosting));
    assert!(case.id.starts_with("relocate/"), "{}", case.id);
    assert_eq!(
        planner_id(&case.id, Mode::Squeeze, "ext"),
        "squeeze/ext/n20/g1/s1/hosting"
    );
}
