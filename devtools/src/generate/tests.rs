//! The generator's own tests: determinism, consistency of the reported
//! resources, request shapes.

use super::json::write_str;
use super::*;
use serde_json::Value;

fn parse(c: &Case) -> Value {
    serde_json::from_str(&c.request).expect("generated request is valid JSON")
}

#[test]
fn same_seed_same_bytes() {
    for k in all_kinds() {
        for seed in [1u64, 42, 9999] {
            let a = generate(&CaseSpec::random(seed, k, 2..=40));
            let b = generate(&CaseSpec::random(seed, k, 2..=40));
            assert_eq!(a, b);
        }
    }
    let a = generate(&CaseSpec::random(1, RequestKind::Allocate, 2..=40));
    let b = generate(&CaseSpec::random(2, RequestKind::Allocate, 2..=40));
    assert_ne!(a.request, b.request);
}

#[test]
fn every_kind_generates_its_request_type() {
    for k in all_kinds() {
        for seed in 0..40u64 {
            let c = generate(&CaseSpec::random(seed, k, 2..=30));
            let v = parse(&c);
            assert_eq!(v["version"], 2);
            assert_eq!(v["request"]["type"], k.request_type(), "{}", c.id);
            assert!(c.id.starts_with(k.slug()));
            let r = &v["request"];
            match k {
                RequestKind::NodeEvacuate(m) => {
                    assert_eq!(r["evac_mode"], m.as_str());
                    assert!(!r["instances"].as_array().unwrap().is_empty(), "{}", c.id);
                }
                RequestKind::ChangeGroup => {
                    assert!(!r["instances"].as_array().unwrap().is_empty())
                }
                RequestKind::Relocate | RequestKind::AllocateSecondary => {
                    let name = r["name"].as_str().unwrap();
                    assert!(v["instances"].get(name).is_some(), "{}", c.id);
                }
                RequestKind::MultiAllocate => {
                    assert!(!r["instances"].as_array().unwrap().is_empty())
                }
                RequestKind::Allocate => {
                    let t = DiskTemplate::parse(r["disk_template"].as_str().unwrap()).unwrap();
                    assert_eq!(r["required_nodes"], t.required_nodes() as i64);
                }
            }
        }
    }
}

/// Checks free = total − used for every live node of a request.
fn check_consistency(v: &Value, exact_memory: bool) {
    let nodes = v["nodes"].as_object().unwrap();
    let insts = v["instances"].as_object().unwrap();
    for (name, n) in nodes {
        let live = !n["offline"].as_bool().unwrap() && n["vm_capable"].as_bool().unwrap();
        if !live {
            assert!(n.get("free_memory").is_none(), "{} has run-time data", name);
            continue;
        }
        let mut up = 0;
        let mut pri = 0;
        let mut lvm = 0;
        let mut spindles = 0;
        for i in insts.values() {
            let ns: Vec<&str> = i["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap())
                .collect();
            let t = i["disk_template"].as_str().unwrap();
            let is_lvm = t == "plain" || t == "drbd";
            let dst = i["disk_space_total"].as_i64().unwrap();
            if ns[0] == name {
                pri += i["memory"].as_i64().unwrap();
                if i["admin_state"] == "up" {
                    up += i["memory"].as_i64().unwrap();
                }
            }
            if ns.contains(&name.as_str()) && is_lvm {
                lvm += dst;
                for d in i["disks"].as_array().unwrap() {
                    spindles += d["spindles"].as_i64().unwrap_or(0);
                }
            }
        }
        let total = n["total_memory"].as_i64().unwrap();
        let res = n["reserved_memory"].as_i64().unwrap();
        let free = n["free_memory"].as_i64().unwrap();
        assert_eq!(n["i_pri_memory"].as_i64().unwrap(), pri);
        assert_eq!(n["i_pri_up_memory"].as_i64().unwrap(), up);
        if exact_memory {
            assert_eq!(free, (total - res - up).max(0), "{}", name);
        } else {
            assert!(free <= (total - res - up).max(0), "{}", name);
        }
        let td = n["total_disk"].as_i64().unwrap();
        if td > 0 {
            assert!(n["free_disk"].as_i64().unwrap() >= 0, "{}", name);
        }
        if n["ndparams"]["exclusive_storage"] == true && n["total_spindles"].as_i64().unwrap() > 0 {
            assert_eq!(
                n["free_spindles"].as_i64().unwrap(),
                n["total_spindles"].as_i64().unwrap() - spindles,
                "{}",
                name
            );
        }
        let _ = lvm;
    }
}

#[test]
fn resources_are_consistent() {
    for k in all_kinds() {
        for seed in 0..25u64 {
            let mut spec = CaseSpec::random(seed, k, 2..=40);
            spec.storage_report = StorageReport::Lvm;
            let missing = spec.features.missing_memory;
            let c = generate(&spec);
            let v = parse(&c);
            check_consistency(&v, !missing);
            // With LVM reporting, free_disk is exactly total minus plain/drbd usage.
            for (name, n) in v["nodes"].as_object().unwrap() {
                if n.get("free_disk").is_none() {
                    continue;
                }
                let mut used = 0;
                for i in v["instances"].as_object().unwrap().values() {
                    let t = i["disk_template"].as_str().unwrap();
                    if (t == "plain" || t == "drbd")
                        && i["nodes"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .any(|x| x == name.as_str())
                    {
                        used += i["disk_space_total"].as_i64().unwrap();
                    }
                }
                assert_eq!(
                    n["free_disk"].as_i64().unwrap(),
                    n["total_disk"].as_i64().unwrap() - used,
                    "{} in {}",
                    name,
                    c.id
                );
            }
        }
    }
}

#[test]
fn drbd_instances_have_two_nodes_in_one_group() {
    for seed in 0..40u64 {
        let c = generate(&CaseSpec::random(seed, RequestKind::Relocate, 2..=30));
        let v = parse(&c);
        for i in v["instances"].as_object().unwrap().values() {
            let ns = i["nodes"].as_array().unwrap();
            if i["disk_template"] == "drbd" {
                assert_eq!(ns.len(), 2);
                assert_ne!(ns[0], ns[1]);
                let g0 = &v["nodes"][ns[0].as_str().unwrap()]["group"];
                let g1 = &v["nodes"][ns[1].as_str().unwrap()]["group"];
                assert_eq!(g0, g1);
            } else {
                assert_eq!(ns.len(), 1);
            }
        }
    }
}

#[test]
fn disk_space_total_follows_ganeti() {
    assert_eq!(DiskTemplate::Drbd.disk_space(1024), 1152);
    assert_eq!(DiskTemplate::Plain.disk_space(1024), 1024);
    assert_eq!(DiskTemplate::Blockdev.disk_space(1024), 0);
    assert_eq!(DiskTemplate::Rbd.disk_space(1024), 1024);
}

#[test]
fn json_escaping() {
    let mut s = String::new();
    write_str(&mut s, "a\"b\\c\n\u{1}\u{fc}\u{1F600}", true);
    assert_eq!(s, "\"a\\\"b\\\\c\\n\\u0001\\u00fc\\ud83d\\ude00\"");
    let v: String = serde_json::from_str(&s).unwrap();
    assert_eq!(v, "a\"b\\c\n\u{1}\u{fc}\u{1F600}");
    let mut raw = String::new();
    write_str(&mut raw, "\u{fc}", false);
    assert_eq!(raw, "\"\u{fc}\"");
}

#[test]
fn kinds_parse() {
    assert_eq!(parse_kinds("node-evacuate").unwrap().len(), 3);
    assert_eq!(parse_kinds("all").unwrap(), all_kinds());
    for k in all_kinds() {
        assert_eq!(RequestKind::from_slug(k.slug()), Some(k));
    }
    assert!(parse_kinds("bogus").is_err());
}

#[test]
fn big_cluster_generates() {
    // A random 2,000-node spec (whatever its features) generates...
    let spec = CaseSpec::random(7, RequestKind::Allocate, 2000..=2000);
    let v = parse(&generate(&spec));
    assert_eq!(v["nodes"].as_object().unwrap().len(), 2000);
    assert!(v["instances"].as_object().unwrap().len() > 2000);
    // ...and a plain one holds close to 5 instances per node.
    let mut spec = CaseSpec::new(7, RequestKind::Allocate, 2000);
    spec.groups = 4;
    let start = std::time::Instant::now();
    let c = generate(&spec);
    let took = start.elapsed();
    let v = parse(&c);
    assert_eq!(v["nodes"].as_object().unwrap().len(), 2000);
    let n = v["instances"].as_object().unwrap().len();
    assert!(n > 9000, "{}", n);
    // Generous bound for unoptimised test builds; release builds take far less.
    assert!(took.as_secs() < 20, "took {:?}", took);
}

#[test]
fn the_hosting_shape_differs_as_documented() {
    for seed in 1..6u64 {
        let mut spec = CaseSpec::new(seed, RequestKind::Relocate, 60);
        spec.instances_per_node = 5.0;
        spec.instance_templates = vec![(DiskTemplate::Drbd, 1)];
        spec.shape = Shape::Hosting;
        let c = generate(&spec);
        assert_eq!(c, generate(&spec), "same spec, same bytes");
        assert!(c.id.ends_with("/hosting"), "{}", c.id);
        let v = parse(&c);
        check_consistency(&v, true);
        let nodes = v["nodes"].as_object().unwrap();
        // Three hardware generations, mixed in the one group.
        let mut sizes: Vec<i64> = nodes
            .values()
            .map(|n| n["total_memory"].as_i64().unwrap() / 65536)
            .collect();
        sizes.sort_unstable();
        sizes.dedup();
        assert_eq!(sizes, vec![1, 2, 5], "seed {seed}");
        let insts = v["instances"].as_object().unwrap();
        // A heavy tail: the largest instance is many times the smallest.
        let mems: Vec<i64> = insts
            .values()
            .map(|i| i["memory"].as_i64().unwrap())
            .collect();
        let (lo, hi) = (mems.iter().min().unwrap(), mems.iter().max().unwrap());
        assert!(*hi >= 16 * *lo, "seed {seed}: memory {lo} to {hi}");
        // Exclusion tags on most instances.
        let tagged = insts
            .values()
            .filter(|i| !i["tags"].as_array().unwrap().is_empty())
            .count();
        assert!(
            tagged * 2 > insts.len(),
            "seed {seed}: {tagged} of {}",
            insts.len()
        );
        // Primaries piled on the first third of the nodes: their memory
        // is fuller than the others'.
        let fill = |third: bool| {
            let (mut used, mut total) = (0i64, 0i64);
            for (name, n) in nodes {
                // The node's place in the generation order: its number.
                let label = name.split('.').next().unwrap();
                let digits =
                    label.len() - label.trim_end_matches(|c: char| c.is_ascii_digit()).len();
                let k: usize = label[label.len() - digits..].parse().unwrap();
                if (k <= nodes.len() / 3) == third {
                    total += n["total_memory"].as_i64().unwrap();
                    used += n["i_pri_memory"].as_i64().unwrap();
                }
            }
            used as f64 / total as f64
        };
        assert!(
            fill(true) > 1.3 * fill(false),
            "seed {seed}: {} against {}",
            fill(true),
            fill(false)
        );
        // And the standard shape is another cluster.
        spec.shape = Shape::Standard;
        assert_ne!(generate(&spec).request, c.request);
    }
}
