//! Tests of the independent safety checker in `tests/support/safety.rs`.
//!
//! Every request here is written in code on a small made-up cluster (no
//! Ganeti sample data). The positive tests give the checker a correct answer
//! for each request type and expect no violation; the negative tests break
//! exactly one rule of a correct answer and expect exactly that rule; the
//! robustness tests feed it garbage and expect `answer-shape`, never a panic.

use serde_json::{json, Value};

use crate::support::safety::{check, Violation, RULES};

// ------------------------------------------------------------------------------------------
// Fixtures

/// A permissive instance policy: everything from tiny to large is allowed.
fn ipolicy() -> Value {
    json!({
        "minmax": [{
            "min": {"memory-size": 128, "cpu-count": 1, "disk-size": 512, "disk-count": 1, "nic-count": 1, "spindle-use": 1},
            "max": {"memory-size": 32768, "cpu-count": 8, "disk-size": 524288, "disk-count": 8, "nic-count": 4, "spindle-use": 8}
        }],
        "std": {"memory-size": 1024, "cpu-count": 1, "disk-size": 1024, "disk-count": 1, "nic-count": 1, "spindle-use": 1},
        "disk-templates": ["drbd", "plain", "diskless", "ext", "file", "sharedfile", "rbd", "blockdev", "gluster"],
        "vcpu-ratio": 4.0,
        "spindle-ratio": 32.0
    })
}

fn group(name: &str) -> Value {
    json!({"name": name, "alloc_policy": "preferred", "networks": [], "ipolicy": ipolicy(), "tags": []})
}

fn node(group_uuid: &str) -> Value {
    json!({
        "group": group_uuid, "offline": false, "drained": false, "vm_capable": true,
        "master_candidate": true, "master_capable": true,
        "ndparams": {"exclusive_storage": false, "spindle_count": 1},
        "total_memory": 16384, "reserved_memory": 1024, "free_memory": 8192,
        "total_disk": 200000, "free_disk": 100000, "total_spindles": 8, "free_spindles": 8,
        "total_cpus": 8, "reserved_cpus": 1, "tags": []
    })
}

/// An instance as Ganeti describes it; `disk` is the one disk's size in MiB.
fn instance(nodes: &[&str], template: &str, memory: i64, disk: i64) -> Value {
    let total = if template == "drbd" { disk + 128 } else { disk };
    json!({
        "nodes": nodes, "disk_template": template, "memory": memory, "vcpus": 1, "spindle_use": 1,
        "disk_space_total": total, "disks": [{"size": disk, "mode": "rw"}],
        "nics": [{"mac": "aa:00:00:11:22:33", "ip": null, "mode": "bridged", "link": "br0", "bridge": "br0"}],
        "tags": [], "admin_state": "up", "os": "debian", "hypervisor": "kvm"
    })
}

/// Two groups: alpha (a1..a4) and beta (b1, b2), with four instances:
/// web (drbd a1/a2), db (drbd a1/a3), scratch (plain a4, down) and cloud (ext a2).
fn cluster(request: Value) -> Value {
    let mut scratch = instance(&["a4"], "plain", 512, 4096);
    scratch["admin_state"] = json!("down");
    json!({
        "version": 2,
        "cluster_name": "test.example.org",
        "cluster_tags": [],
        "enabled_hypervisors": ["kvm"],
        "ipolicy": ipolicy(),
        "nodegroups": {"uuid-alpha": group("alpha"), "uuid-beta": group("beta")},
        "nodes": {
            "a1": node("uuid-alpha"), "a2": node("uuid-alpha"), "a3": node("uuid-alpha"), "a4": node("uuid-alpha"),
            "b1": node("uuid-beta"), "b2": node("uuid-beta")
        },
        "instances": {
            "web": instance(&["a1", "a2"], "drbd", 1024, 10240),
            "db": instance(&["a1", "a3"], "drbd", 2048, 20480),
            "scratch": scratch,
            "cloud": instance(&["a2"], "ext", 1024, 8192)
        },
        "request": request
    })
}

/// The body of a new instance (allocate and multi-allocate entries).
fn new_instance(name: &str, template: &str, memory: i64, disk: i64) -> Value {
    let total = if template == "drbd" { disk + 128 } else { disk };
    json!({
        "name": name, "disk_template": template, "memory": memory, "vcpus": 1, "spindle_use": 1,
        "disks": [{"size": disk, "mode": "rw"}], "disk_space_total": total,
        "nics": [{"mac": "aa:00:00:44:55:66", "ip": null, "bridge": null}],
        "tags": [], "os": "debian", "hypervisor": "kvm",
        "required_nodes": if template == "drbd" { 2 } else { 1 }, "group_name": null
    })
}

fn allocate(template: &str, memory: i64, disk: i64) -> Value {
    let mut r = new_instance("fresh", template, memory, disk);
    r["type"] = json!("allocate");
    cluster(r)
}

fn multi_allocate(instances: Vec<Value>) -> Value {
    cluster(json!({"type": "multi-allocate", "instances": instances}))
}

fn allocate_secondary(name: &str) -> Value {
    cluster(json!({"type": "allocate-secondary", "name": name}))
}

fn relocate(name: &str, from: &str) -> Value {
    cluster(
        json!({"type": "relocate", "name": name, "required_nodes": 1, "disk_space_total": 10368, "relocate_from": [from]}),
    )
}

fn evacuate(instances: &[&str], mode: &str) -> Value {
    cluster(json!({"type": "node-evacuate", "instances": instances, "evac_mode": mode}))
}

fn change_group(instances: &[&str], targets: &[&str]) -> Value {
    cluster(json!({"type": "change-group", "instances": instances, "target_groups": targets}))
}

/// A successful answer, keys in hail's order.
fn ok(result: Value) -> String {
    format!(r#"{{"success":true,"info":"Request successful: test","result":{result}}}"#)
}

fn failed() -> String {
    r#"{"success":false,"info":"Request failed: no luck","result":[]}"#.to_owned()
}

// Opcodes exactly as hail writes them.

fn migrate(inst: &str) -> Value {
    json!({"OP_ID": "OP_INSTANCE_MIGRATE", "instance_name": inst, "allow_runtime_changes": false,
           "ignore_ipolicy": false, "cleanup": false, "allow_failover": true, "ignore_hvversions": true})
}

fn migrate_to(inst: &str, target: &str) -> Value {
    let mut op = migrate(inst);
    op["target_node"] = json!(target);
    op
}

fn failover(inst: &str) -> Value {
    json!({"OP_ID": "OP_INSTANCE_FAILOVER", "instance_name": inst, "shutdown_timeout": 120,
           "ignore_consistency": false, "ignore_ipolicy": false, "cleanup": false})
}

fn replace(inst: &str, node: &str) -> Value {
    json!({"OP_ID": "OP_INSTANCE_REPLACE_DISKS", "instance_name": inst, "early_release": false,
           "ignore_ipolicy": false, "mode": "replace_new_secondary", "disks": [], "remote_node": node})
}

/// A node-evacuate / change-group result: `[moved, failed, jobs]`.
fn moves(moved: &[(&str, &str, &[&str])], failed: &[(&str, &str)], jobs: Vec<Vec<Value>>) -> Value {
    let moved: Vec<Value> = moved.iter().map(|(i, g, n)| json!([i, g, n])).collect();
    let failed: Vec<Value> = failed.iter().map(|(i, m)| json!([i, m])).collect();
    json!([moved, failed, jobs])
}

fn run(request: &Value, options: &[&str], answer: &str) -> Vec<Violation> {
    let options: Vec<String> = options.iter().map(|s| (*s).to_owned()).collect();
    check(&request.to_string(), &options, answer)
}

/// The distinct rule ids, in order of first appearance.
fn rules(v: &[Violation]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for x in v {
        if !out.contains(&x.rule) {
            out.push(x.rule);
        }
    }
    out
}

#[track_caller]
fn assert_safe(v: &[Violation]) {
    assert!(v.is_empty(), "expected no violations, got:\n{}", render(v));
}

/// Asserts that exactly these rules (as a set) are reported.
#[track_caller]
fn assert_rules(v: &[Violation], expected: &[&str]) {
    let mut got = rules(v);
    got.sort_unstable();
    let mut want = expected.to_vec();
    want.sort_unstable();
    assert_eq!(got, want, "violations:\n{}", render(v));
}

fn render(v: &[Violation]) -> String {
    v.iter().map(|x| format!("  {x}\n")).collect()
}

/// Replaces the value at `path`; numeric components index arrays.
fn set(req: &mut Value, path: &[&str], value: Value) {
    let mut cur = req;
    for key in path {
        cur = match key.parse::<usize>() {
            Ok(i) if cur.is_array() => &mut cur[i],
            _ => &mut cur[*key],
        };
    }
    *cur = value;
}

// ------------------------------------------------------------------------------------------
// Positive: correct answers for every request type

#[test]
fn allocate_drbd_pair_is_safe() {
    assert_safe(&run(
        &allocate("drbd", 2048, 20480),
        &[],
        &ok(json!(["a2", "a3"])),
    ));
}

#[test]
fn allocate_plain_and_shared_storage_are_safe() {
    assert_safe(&run(
        &allocate("plain", 2048, 20480),
        &[],
        &ok(json!(["b1"])),
    ));
    assert_safe(&run(&allocate("ext", 2048, 20480), &[], &ok(json!(["a4"]))));
    assert_safe(&run(
        &allocate("file", 2048, 20480),
        &[],
        &ok(json!(["a1"])),
    ));
}

#[test]
fn allocate_in_the_requested_group_is_safe_by_name_or_uuid() {
    for g in ["beta", "uuid-beta"] {
        let mut req = allocate("drbd", 1024, 1024);
        set(&mut req, &["request", "group_name"], json!(g));
        assert_safe(&run(&req, &[], &ok(json!(["b1", "b2"]))));
    }
}

#[test]
fn allocate_fitting_exactly_is_safe() {
    // Ganeti refuses only when the request exceeds what is free.
    let mut req = allocate("plain", 8192, 100000);
    set(&mut req, &["request", "disk_space_total"], json!(100000));
    assert_safe(&run(&req, &[], &ok(json!(["a1"]))));
}

#[test]
fn multi_allocate_is_safe() {
    let req = multi_allocate(vec![
        new_instance("m1", "drbd", 4096, 1024),
        new_instance("m2", "drbd", 4096, 1024),
    ]);
    let answer = ok(json!([[["m1", ["a1", "a2"]], ["m2", ["a1", "a3"]]], []]));
    assert_safe(&run(&req, &[], &answer));
}

#[test]
fn multi_allocate_failed_entries_may_be_pairs_or_names() {
    let req = multi_allocate(vec![
        new_instance("m1", "plain", 1024, 1024),
        new_instance("m2", "plain", 1024, 1024),
        new_instance("m3", "plain", 1024, 1024),
    ]);
    // hail writes [name, reason]; Ganeti 3.0 validates plain names.
    let answer = ok(json!([
        [["m1", ["a1"]]],
        [["m2", "No valid allocation solutions"], "m3"]
    ]));
    assert_safe(&run(&req, &[], &answer));
}

#[test]
fn allocate_secondary_is_safe() {
    assert_safe(&run(&allocate_secondary("scratch"), &[], &ok(json!("a1"))));
}

#[test]
fn relocate_is_safe() {
    // DRBD: the result is the new secondary.
    assert_safe(&run(&relocate("web", "a2"), &[], &ok(json!(["a4"]))));
    // Shared storage: the result is the new primary.
    assert_safe(&run(&relocate("cloud", "a2"), &[], &ok(json!(["a3"]))));
}

#[test]
fn node_evacuate_primary_only_is_safe() {
    let answer = moves(
        &[
            ("web", "alpha", &["a2", "a1"]),
            ("db", "alpha", &["a3", "a1"]),
        ],
        &[],
        vec![vec![migrate("web")], vec![migrate("db")]],
    );
    assert_safe(&run(
        &evacuate(&["web", "db"], "primary-only"),
        &[],
        &ok(answer),
    ));
}

#[test]
fn node_evacuate_shared_storage_is_safe() {
    let answer = moves(
        &[("cloud", "alpha", &["a4"])],
        &[],
        vec![vec![migrate_to("cloud", "a4")]],
    );
    assert_safe(&run(
        &evacuate(&["cloud"], "primary-only"),
        &[],
        &ok(answer),
    ));
}

#[test]
fn node_evacuate_secondary_only_is_safe() {
    let answer = moves(
        &[("web", "alpha", &["a1", "a4"])],
        &[],
        vec![vec![replace("web", "a4")]],
    );
    assert_safe(&run(
        &evacuate(&["web"], "secondary-only"),
        &[],
        &ok(answer),
    ));
}

#[test]
fn node_evacuate_all_is_safe() {
    // hail's four steps without the leading failover: replace, migrate, replace.
    let job = vec![replace("web", "a3"), migrate("web"), replace("web", "a4")];
    let answer = moves(&[("web", "alpha", &["a3", "a4"])], &[], vec![job]);
    assert_safe(&run(&evacuate(&["web"], "all"), &[], &ok(answer)));
}

#[test]
fn node_evacuate_all_with_offline_primary_fails_over_first() {
    let mut req = evacuate(&["web"], "all");
    set(
        &mut req,
        &["nodes", "a1"],
        json!({"group": "uuid-alpha", "offline": true, "drained": false,
                                           "ndparams": {"exclusive_storage": false, "spindle_count": 1}}),
    );
    let job = vec![
        migrate("web"),
        replace("web", "a3"),
        migrate("web"),
        replace("web", "a4"),
    ];
    let answer = moves(&[("web", "alpha", &["a3", "a4"])], &[], vec![job]);
    assert_safe(&run(&req, &[], &ok(answer)));
}

#[test]
fn failover_opcodes_are_accepted() {
    let answer = moves(
        &[("web", "alpha", &["a2", "a1"])],
        &[],
        vec![vec![failover("web")]],
    );
    assert_safe(&run(&evacuate(&["web"], "primary-only"), &[], &ok(answer)));
}

#[test]
fn node_evacuate_with_failed_instances_is_safe() {
    let answer = moves(
        &[],
        &[("scratch", "Instances of type plain cannot be relocated")],
        vec![],
    );
    assert_safe(&run(
        &evacuate(&["scratch"], "primary-only"),
        &[],
        &ok(answer),
    ));
}

#[test]
fn change_group_is_safe() {
    let job = vec![replace("web", "b1"), migrate("web"), replace("web", "b2")];
    let answer = moves(&[("web", "beta", &["b1", "b2"])], &[], vec![job]);
    assert_safe(&run(
        &change_group(&["web"], &["uuid-beta"]),
        &[],
        &ok(answer.clone()),
    ));
    assert_safe(&run(&change_group(&["web"], &[]), &[], &ok(answer)));
    let answer = moves(
        &[("cloud", "beta", &["b2"])],
        &[],
        vec![vec![migrate_to("cloud", "b2")]],
    );
    assert_safe(&run(&change_group(&["cloud"], &["beta"]), &[], &ok(answer)));
}

#[test]
fn failure_answers_are_safe_for_every_request_type() {
    let requests = [
        allocate("drbd", 1024, 1024),
        multi_allocate(vec![new_instance("m1", "plain", 1024, 1024)]),
        allocate_secondary("scratch"),
        relocate("web", "a2"),
        evacuate(&["web"], "all"),
        change_group(&["web"], &[]),
    ];
    for req in &requests {
        assert_safe(&run(req, &[], &failed()));
    }
}

#[test]
fn options_that_do_not_matter_are_accepted() {
    let opts = [
        "--static-kvm-node-memory=0",
        "--no-capacity-checks",
        "-v",
        "-v",
        "--mond=no",
        "-p",
        "request.json",
        "--ignore-dynu",
    ];
    assert_safe(&run(
        &allocate("plain", 1024, 1024),
        &opts,
        &ok(json!(["a1"])),
    ));
}

#[test]
fn every_rule_id_is_listed_once() {
    let mut ids: Vec<&str> = RULES.iter().map(|(id, _)| *id).collect();
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n);
}

// ------------------------------------------------------------------------------------------
// Negative: node states

fn offline_node(group_uuid: &str) -> Value {
    json!({"group": group_uuid, "offline": true, "drained": false,
           "ndparams": {"exclusive_storage": false, "spindle_count": 1}})
}

#[test]
fn offline_target_is_reported() {
    // Resource data is kept so that only the offline flag is wrong.
    let mut req = allocate("plain", 1024, 1024);
    set(&mut req, &["nodes", "a3", "offline"], json!(true));
    assert_rules(&run(&req, &[], &ok(json!(["a3"]))), &["offline-target"]);
}

#[test]
fn offline_target_of_replace_disks_is_reported() {
    let mut req = evacuate(&["web"], "secondary-only");
    set(&mut req, &["nodes", "a4", "offline"], json!(true));
    let answer = moves(
        &[("web", "alpha", &["a1", "a4"])],
        &[],
        vec![vec![replace("web", "a4")]],
    );
    assert_rules(&run(&req, &[], &ok(answer)), &["offline-target"]);
}

#[test]
fn drained_target_is_reported() {
    let mut req = allocate("drbd", 1024, 1024);
    set(&mut req, &["nodes", "a3", "drained"], json!(true));
    assert_rules(
        &run(&req, &[], &ok(json!(["a2", "a3"]))),
        &["drained-target"],
    );
}

#[test]
fn drained_secondary_from_allocate_secondary_is_reported() {
    // Ganeti asks for the secondary from LUInstanceSetParams.Exec, after the
    // drained check in CheckPrereq, so the checker is the only guard here.
    let mut req = allocate_secondary("scratch");
    set(&mut req, &["nodes", "a1", "drained"], json!(true));
    assert_rules(&run(&req, &[], &ok(json!("a1"))), &["drained-target"]);
}

#[test]
fn failover_to_a_drained_secondary_is_reported() {
    let mut req = evacuate(&["web"], "primary-only");
    set(&mut req, &["nodes", "a2", "drained"], json!(true));
    let answer = moves(
        &[("web", "alpha", &["a2", "a1"])],
        &[],
        vec![vec![migrate("web")]],
    );
    assert_rules(&run(&req, &[], &ok(answer)), &["drained-target"]);
}

#[test]
fn not_vm_capable_target_is_reported() {
    let mut req = allocate("plain", 1024, 1024);
    set(&mut req, &["nodes", "b2", "vm_capable"], json!(false));
    assert_rules(
        &run(&req, &[], &ok(json!(["b2"]))),
        &["not-vm-capable-target"],
    );
}

// ------------------------------------------------------------------------------------------
// Negative: node choice

#[test]
fn same_node_twice_is_reported() {
    assert_rules(
        &run(&allocate("drbd", 1024, 1024), &[], &ok(json!(["a2", "a2"]))),
        &["same-node"],
    );
}

#[test]
fn replacing_the_secondary_with_the_primary_is_reported() {
    let answer = moves(
        &[("web", "alpha", &["a1", "a1"])],
        &[],
        vec![vec![replace("web", "a1")]],
    );
    let v = run(&evacuate(&["web"], "secondary-only"), &[], &ok(answer));
    assert_rules(&v, &["same-node", "moved-list", "evacuated-node"]);
}

#[test]
fn cross_group_pair_is_reported() {
    assert_rules(
        &run(&allocate("drbd", 1024, 1024), &[], &ok(json!(["a2", "b1"]))),
        &["cross-group"],
    );
}

#[test]
fn cross_group_pair_after_a_job_is_reported() {
    let answer = moves(
        &[("web", "alpha", &["a1", "b1"])],
        &[],
        vec![vec![replace("web", "b1")]],
    );
    assert_rules(
        &run(&evacuate(&["web"], "secondary-only"), &[], &ok(answer)),
        &["cross-group"],
    );
}

#[test]
fn wrong_node_count_is_reported() {
    assert_rules(
        &run(&allocate("drbd", 1024, 1024), &[], &ok(json!(["a2"]))),
        &["node-count"],
    );
    assert_rules(
        &run(
            &allocate("plain", 1024, 1024),
            &[],
            &ok(json!(["a2", "a3"])),
        ),
        &["node-count"],
    );
    assert_rules(
        &run(&relocate("web", "a2"), &[], &ok(json!(["a3", "a4"]))),
        &["node-count"],
    );
}

#[test]
fn required_nodes_disagreeing_with_the_template_is_reported() {
    // Ganeti derives the node count from the template, whatever required_nodes says.
    let mut req = allocate("drbd", 1024, 1024);
    set(&mut req, &["request", "required_nodes"], json!(1));
    assert_rules(&run(&req, &[], &ok(json!(["a2"]))), &["node-count"]);
}

#[test]
fn unknown_names_are_reported() {
    assert_rules(
        &run(&allocate("plain", 1024, 1024), &[], &ok(json!(["zz"]))),
        &["unknown-name"],
    );
    let answer = moves(
        &[("web", "nowhere", &["a2", "a1"])],
        &[],
        vec![vec![migrate("web")]],
    );
    assert_rules(
        &run(&evacuate(&["web"], "primary-only"), &[], &ok(answer)),
        &["unknown-name", "moved-list"],
    );
    let answer = moves(
        &[("web", "alpha", &["a1", "zz"])],
        &[],
        vec![vec![replace("web", "zz")]],
    );
    let v = run(&evacuate(&["web"], "secondary-only"), &[], &ok(answer));
    assert_rules(&v, &["unknown-name", "moved-list", "evacuated-node"]);
}

// ------------------------------------------------------------------------------------------
// Negative: capacity

#[test]
fn memory_overcommit_is_reported() {
    assert_rules(
        &run(&allocate("plain", 8193, 1024), &[], &ok(json!(["a1"]))),
        &["memory"],
    );
}

#[test]
fn memory_is_not_needed_for_an_instance_that_is_down() {
    let mut req = allocate("plain", 8193, 1024);
    set(&mut req, &["request", "admin_state"], json!("down"));
    assert_safe(&run(&req, &[], &ok(json!(["a1"]))));
}

#[test]
fn memory_overcommit_across_placements_is_reported() {
    let req = multi_allocate(vec![
        new_instance("m1", "plain", 5000, 1024),
        new_instance("m2", "plain", 5000, 1024),
    ]);
    let v = run(
        &req,
        &[],
        &ok(json!([[["m1", ["a1"]], ["m2", ["a1"]]], []])),
    );
    assert_rules(&v, &["memory"]);
    assert!(v[0].detail.contains("m2"), "{}", render(&v));
}

#[test]
fn memory_overcommit_on_failover_is_reported() {
    let mut req = evacuate(&["db"], "primary-only");
    set(&mut req, &["nodes", "a3", "free_memory"], json!(2047));
    let answer = moves(
        &[("db", "alpha", &["a3", "a1"])],
        &[],
        vec![vec![migrate("db")]],
    );
    assert_rules(&run(&req, &[], &ok(answer)), &["memory"]);
}

#[test]
fn memory_overcommit_across_jobs_is_reported() {
    // Each fits on a2 alone, together they do not.
    let mut req = evacuate(&["web", "db"], "primary-only");
    set(&mut req, &["instances", "db", "nodes"], json!(["a1", "a2"]));
    set(&mut req, &["nodes", "a2", "free_memory"], json!(3000));
    let answer = moves(
        &[
            ("web", "alpha", &["a2", "a1"]),
            ("db", "alpha", &["a2", "a1"]),
        ],
        &[],
        vec![vec![migrate("web")], vec![migrate("db")]],
    );
    assert_rules(&run(&req, &[], &ok(answer)), &["memory"]);
}

#[test]
fn memory_freed_by_an_earlier_job_can_be_used() {
    // Jobs apply in answer order: web leaves a1 before db needs the room there.
    let mut req = evacuate(&["web", "db"], "primary-only");
    set(&mut req, &["instances", "db", "nodes"], json!(["a2", "a1"]));
    set(&mut req, &["nodes", "a1", "free_memory"], json!(1500));
    let web = ("web", "alpha", &["a2", "a1"][..]);
    let db = ("db", "alpha", &["a1", "a2"][..]);
    let answer = moves(
        &[web, db],
        &[],
        vec![vec![migrate("web")], vec![migrate("db")]],
    );
    assert_safe(&run(&req, &[], &ok(answer)));
    let answer = moves(
        &[db, web],
        &[],
        vec![vec![migrate("db")], vec![migrate("web")]],
    );
    assert_rules(&run(&req, &[], &ok(answer)), &["memory"]);
}

#[test]
fn disk_overcommit_is_reported() {
    assert_rules(
        &run(
            &allocate("drbd", 1024, 99873),
            &[],
            &ok(json!(["a2", "a3"])),
        ),
        &["disk"],
    );
}

#[test]
fn disk_is_not_accounted_for_shared_storage() {
    assert_safe(&run(
        &allocate("ext", 1024, 500000),
        &[],
        &ok(json!(["a2"])),
    ));
}

#[test]
fn disk_overcommit_across_placements_is_reported() {
    let req = multi_allocate(vec![
        new_instance("m1", "drbd", 1024, 60000),
        new_instance("m2", "drbd", 1024, 60000),
    ]);
    let v = run(
        &req,
        &[],
        &ok(json!([[["m1", ["a1", "a2"]], ["m2", ["a3", "a2"]]], []])),
    );
    assert_rules(&v, &["disk"]);
}

#[test]
fn disk_overcommit_on_a_new_secondary_is_reported() {
    let mut req = evacuate(&["web"], "secondary-only");
    set(&mut req, &["nodes", "a4", "free_disk"], json!(10000));
    let answer = moves(
        &[("web", "alpha", &["a1", "a4"])],
        &[],
        vec![vec![replace("web", "a4")]],
    );
    assert_rules(&run(&req, &[], &ok(answer)), &["disk"]);
}

#[test]
fn allocate_secondary_needs_room_for_drbd_metadata() {
    // scratch has one 4096 MiB disk; as DRBD it needs 4096 + 128 MiB.
    let mut req = allocate_secondary("scratch");
    set(&mut req, &["nodes", "a1", "free_disk"], json!(4100));
    assert_rules(&run(&req, &[], &ok(json!("a1"))), &["disk"]);
}

fn exclusive_storage(req: &mut Value, nodes: &[&str], free_spindles: i64) {
    for n in nodes {
        set(
            req,
            &["nodes", n, "ndparams", "exclusive_storage"],
            json!(true),
        );
        set(req, &["nodes", n, "free_spindles"], json!(free_spindles));
    }
}

#[test]
fn exclusive_storage_with_enough_spindles_is_safe() {
    let mut req = allocate("plain", 1024, 1024);
    exclusive_storage(&mut req, &["a1"], 2);
    set(&mut req, &["request", "disks", "0", "spindles"], json!(2));
    assert_safe(&run(&req, &[], &ok(json!(["a1"]))));
}

#[test]
fn spindle_overcommit_is_reported() {
    let mut req = allocate("plain", 1024, 1024);
    exclusive_storage(&mut req, &["a1"], 1);
    set(&mut req, &["request", "disks", "0", "spindles"], json!(2));
    assert_rules(&run(&req, &[], &ok(json!(["a1"]))), &["spindles"]);
}

#[test]
fn missing_spindles_under_exclusive_storage_are_reported() {
    let mut req = allocate("plain", 1024, 1024);
    exclusive_storage(&mut req, &["a1"], 4);
    assert_rules(&run(&req, &[], &ok(json!(["a1"]))), &["spindles"]);
}

#[test]
fn spindles_without_exclusive_storage_are_reported() {
    let mut req = allocate("plain", 1024, 1024);
    set(&mut req, &["request", "disks", "0", "spindles"], json!(1));
    assert_rules(
        &run(&req, &[], &ok(json!(["a1"]))),
        &["spindles-without-exclusive-storage"],
    );
}

#[test]
fn drbd_on_exclusive_storage_is_reported() {
    let mut req = allocate("drbd", 1024, 1024);
    exclusive_storage(&mut req, &["a1", "a2"], 4);
    set(&mut req, &["request", "disks", "0", "spindles"], json!(1));
    assert_rules(
        &run(&req, &[], &ok(json!(["a1", "a2"]))),
        &["exclusive-storage-template"],
    );
}

// ------------------------------------------------------------------------------------------
// Negative: policies

#[test]
fn instance_policy_violation_is_reported() {
    assert_rules(
        &run(&allocate("plain", 65536, 1024), &[], &ok(json!(["a1"]))),
        &["ipolicy", "memory"],
    );
    let mut req = allocate("plain", 1024, 1024);
    set(&mut req, &["request", "vcpus"], json!(9));
    assert_rules(&run(&req, &[], &ok(json!(["a1"]))), &["ipolicy"]);
    let mut req = allocate("plain", 1024, 1024);
    set(
        &mut req,
        &["nodegroups", "uuid-alpha", "ipolicy", "disk-templates"],
        json!(["drbd"]),
    );
    assert_rules(&run(&req, &[], &ok(json!(["a1"]))), &["ipolicy"]);
}

#[test]
fn instance_policy_uses_the_primary_group() {
    // beta only allows diskless; alpha's policy is what counts for a1.
    let mut req = allocate("plain", 1024, 1024);
    set(
        &mut req,
        &["nodegroups", "uuid-beta", "ipolicy", "disk-templates"],
        json!(["diskless"]),
    );
    assert_safe(&run(&req, &[], &ok(json!(["a1"]))));
    assert_rules(&run(&req, &[], &ok(json!(["b1"]))), &["ipolicy"]);
}

#[test]
fn instance_policy_with_several_pairs_needs_only_one() {
    let mut req = allocate("plain", 40000, 1024);
    set(&mut req, &["nodes", "a1", "free_memory"], json!(50000));
    let mut big = ipolicy()["minmax"][0].clone();
    big["min"]["memory-size"] = json!(32769);
    big["max"]["memory-size"] = json!(65536);
    let pairs = json!([ipolicy()["minmax"][0].clone(), big]);
    set(
        &mut req,
        &["nodegroups", "uuid-alpha", "ipolicy", "minmax"],
        pairs,
    );
    assert_safe(&run(&req, &[], &ok(json!(["a1"]))));
}

#[test]
fn nic_count_outside_the_policy_is_reported_separately() {
    let mut req = allocate("plain", 1024, 1024);
    set(&mut req, &["request", "nics"], json!([]));
    assert_rules(&run(&req, &[], &ok(json!(["a1"]))), &["ipolicy-nic-count"]);
}

#[test]
fn moving_into_a_group_whose_policy_rejects_the_instance_is_reported() {
    let mut req = change_group(&["cloud"], &["beta"]);
    set(
        &mut req,
        &["nodegroups", "uuid-beta", "ipolicy", "disk-templates"],
        json!(["drbd"]),
    );
    let answer = moves(
        &[("cloud", "beta", &["b2"])],
        &[],
        vec![vec![migrate_to("cloud", "b2")]],
    );
    assert_rules(&run(&req, &[], &ok(answer)), &["ipolicy"]);
}

#[test]
fn unconnected_network_is_reported() {
    let mut req = allocate("plain", 1024, 1024);
    set(
        &mut req,
        &["request", "nics", "0", "network"],
        json!("net-uuid-1"),
    );
    set(
        &mut req,
        &["nodegroups", "uuid-beta", "networks"],
        json!(["net-uuid-1"]),
    );
    assert_safe(&run(&req, &[], &ok(json!(["b1"]))));
    assert_rules(&run(&req, &[], &ok(json!(["a1"]))), &["network"]);
}

fn with_exclusion_tags(mut req: Value) -> Value {
    set(
        &mut req,
        &["cluster_tags"],
        json!(["htools:iextags:service:"]),
    );
    set(
        &mut req,
        &["instances", "cloud", "tags"],
        json!(["service:mail", "owner:x"]),
    );
    req
}

#[test]
fn shared_exclusion_tag_is_reported() {
    let mut req = with_exclusion_tags(allocate("plain", 1024, 1024));
    set(&mut req, &["request", "tags"], json!(["service:mail"]));
    assert_safe(&run(&req, &[], &ok(json!(["a1"]))));
    assert_rules(&run(&req, &[], &ok(json!(["a2"]))), &["exclusion-tag"]);
}

#[test]
fn tags_without_the_exclusion_prefix_may_be_shared() {
    let mut req = with_exclusion_tags(allocate("plain", 1024, 1024));
    set(&mut req, &["request", "tags"], json!(["owner:x"]));
    assert_safe(&run(&req, &[], &ok(json!(["a2"]))));
}

#[test]
fn ignore_soft_errors_allows_shared_exclusion_tags() {
    let mut req = with_exclusion_tags(allocate("plain", 1024, 1024));
    set(&mut req, &["request", "tags"], json!(["service:mail"]));
    assert_safe(&run(&req, &["--ignore-soft-errors"], &ok(json!(["a2"]))));
    assert_safe(&run(&req, &["--ignore-soft"], &ok(json!(["a2"]))));
}

#[test]
fn shared_exclusion_tag_across_placements_is_reported() {
    let mut a = new_instance("m1", "plain", 1024, 1024);
    a["tags"] = json!(["service:dns"]);
    let mut b = new_instance("m2", "plain", 1024, 1024);
    b["tags"] = json!(["service:dns"]);
    let req = with_exclusion_tags(multi_allocate(vec![a, b]));
    assert_safe(&run(
        &req,
        &[],
        &ok(json!([[["m1", ["a1"]], ["m2", ["a3"]]], []])),
    ));
    assert_rules(
        &run(
            &req,
            &[],
            &ok(json!([[["m1", ["a1"]], ["m2", ["a1"]]], []])),
        ),
        &["exclusion-tag"],
    );
}

#[test]
fn unallocable_group_is_reported() {
    let mut req = allocate("plain", 1024, 1024);
    set(
        &mut req,
        &["nodegroups", "uuid-beta", "alloc_policy"],
        json!("unallocable"),
    );
    assert_rules(&run(&req, &[], &ok(json!(["b1"]))), &["unallocable-group"]);
    // Naming the group explicitly is allowed (Ganeti's group_name wins over the policy).
    set(&mut req, &["request", "group_name"], json!("beta"));
    assert_safe(&run(&req, &[], &ok(json!(["b1"]))));
}

#[test]
fn nodes_outside_the_requested_group_are_reported() {
    let mut req = allocate("drbd", 1024, 1024);
    set(&mut req, &["request", "group_name"], json!("beta"));
    assert_rules(&run(&req, &[], &ok(json!(["a1", "a2"]))), &["group-name"]);
}

#[test]
fn multi_allocate_honours_each_instance_group() {
    let mut m1 = new_instance("m1", "plain", 1024, 1024);
    m1["group_name"] = json!("beta");
    let req = multi_allocate(vec![m1]);
    assert_safe(&run(&req, &[], &ok(json!([[["m1", ["b1"]]], []]))));
    assert_rules(
        &run(&req, &[], &ok(json!([[["m1", ["a1"]]], []]))),
        &["group-name"],
    );
}

#[test]
fn nodes_outside_the_restrict_list_are_reported() {
    let mut req = allocate("drbd", 1024, 1024);
    set(
        &mut req,
        &["request", "restrict-to-nodes"],
        json!(["a1", "a2"]),
    );
    assert_safe(&run(&req, &[], &ok(json!(["a1", "a2"]))));
    assert_rules(&run(&req, &[], &ok(json!(["a1", "a3"]))), &["restrict"]);
}

#[test]
fn restrict_option_overrides_the_request_list() {
    let mut req = allocate("plain", 1024, 1024);
    set(&mut req, &["request", "restrict-to-nodes"], json!(["a1"]));
    assert_safe(&run(
        &req,
        &["--restrict-allocation-to=a3,a4"],
        &ok(json!(["a3"])),
    ));
    assert_rules(
        &run(
            &req,
            &["--restrict-allocation-to=a3,a4"],
            &ok(json!(["a1"])),
        ),
        &["restrict"],
    );
    // The separate-argument form and an abbreviation.
    assert_rules(
        &run(&req, &["--restrict", "a3"], &ok(json!(["a1"]))),
        &["restrict"],
    );
    // An empty list allows no node at all.
    assert_rules(
        &run(&req, &["--restrict-allocation-to="], &ok(json!(["a1"]))),
        &["restrict"],
    );
}

#[test]
fn multi_allocate_lists_must_cover_the_request() {
    let req = multi_allocate(vec![
        new_instance("m1", "plain", 1024, 1024),
        new_instance("m2", "plain", 1024, 1024),
    ]);
    // m2 missing.
    assert_rules(
        &run(&req, &[], &ok(json!([[["m1", ["a1"]]], []]))),
        &["multi-alloc-list"],
    );
    // An instance that was not requested.
    assert_rules(
        &run(
            &req,
            &[],
            &ok(json!([
                [["m1", ["a1"]], ["m2", ["a2"]], ["m9", ["a3"]]],
                []
            ])),
        ),
        &["multi-alloc-list"],
    );
    // Allocated and failed at once.
    assert_rules(
        &run(
            &req,
            &[],
            &ok(json!([[["m1", ["a1"]], ["m2", ["a2"]]], [["m2", "x"]]])),
        ),
        &["multi-alloc-list"],
    );
}

// ------------------------------------------------------------------------------------------
// Negative: jobs and opcodes

fn primary_only_with(op: Value) -> Vec<Violation> {
    let answer = moves(&[("web", "alpha", &["a2", "a1"])], &[], vec![vec![op]]);
    run(&evacuate(&["web"], "primary-only"), &[], &ok(answer))
}

#[test]
fn unknown_opcode_field_is_reported() {
    let mut op = migrate("web");
    op["force"] = json!(true);
    assert_rules(
        &primary_only_with(op),
        &["bad-opcode", "moved-list", "evacuated-node"],
    );
}

#[test]
fn wrong_op_id_is_reported() {
    let mut op = migrate("web");
    op["OP_ID"] = json!("OP_INSTANCE_MOVE");
    assert_rules(
        &primary_only_with(op),
        &["bad-opcode", "moved-list", "evacuated-node"],
    );
}

#[test]
fn opcode_field_types_are_checked() {
    for (key, value) in [
        ("instance_name", json!(null)),
        ("allow_failover", json!(1)),
        ("mode", json!("fast")),
        ("priority", json!(5)),
    ] {
        let mut op = migrate("web");
        op[key] = value;
        assert!(
            rules(&primary_only_with(op)).contains(&"bad-opcode"),
            "{key}"
        );
    }
    let mut op = failover("web");
    op["shutdown_timeout"] = json!(120.0);
    assert!(rules(&primary_only_with(op)).contains(&"bad-opcode"));
}

#[test]
fn opcode_settings_that_change_the_move_are_reported() {
    for (key, value) in [
        ("cleanup", json!(true)),
        ("iallocator", json!("hail")),
        ("dry_run", json!(true)),
        ("ignore_ipolicy", json!(true)),
    ] {
        let mut op = migrate("web");
        op[key] = value;
        assert!(
            rules(&primary_only_with(op)).contains(&"bad-opcode"),
            "{key}"
        );
    }
}

#[test]
fn replace_disks_must_change_the_secondary() {
    let evac = |op: Value| {
        let answer = moves(&[("web", "alpha", &["a1", "a4"])], &[], vec![vec![op]]);
        run(&evacuate(&["web"], "secondary-only"), &[], &ok(answer))
    };
    let mut op = replace("web", "a4");
    op["mode"] = json!("replace_auto");
    assert!(rules(&evac(op)).contains(&"bad-opcode"));
    let mut op = replace("web", "a4");
    op["remote_node"] = json!(null);
    assert!(rules(&evac(op)).contains(&"bad-opcode"));
    let mut op = replace("web", "a4");
    op["disks"] = json!([0]);
    assert!(rules(&evac(op)).contains(&"bad-opcode"));
}

#[test]
fn drbd_migration_to_another_node_than_the_secondary_is_reported() {
    assert_rules(
        &primary_only_with(migrate_to("web", "a3")),
        &["bad-opcode", "moved-list", "evacuated-node"],
    );
}

#[test]
fn opcode_for_another_instance_is_reported() {
    let answer = moves(
        &[
            ("web", "alpha", &["a2", "a1"]),
            ("db", "alpha", &["a3", "a1"]),
        ],
        &[],
        vec![vec![migrate("db")], vec![migrate("web")]],
    );
    assert_rules(
        &run(&evacuate(&["web", "db"], "primary-only"), &[], &ok(answer)),
        &["job-instance"],
    );
}

#[test]
fn migrating_a_plain_instance_is_reported() {
    let answer = moves(
        &[("scratch", "alpha", &["a3"])],
        &[],
        vec![vec![migrate_to("scratch", "a3")]],
    );
    let v = run(&evacuate(&["scratch"], "primary-only"), &[], &ok(answer));
    assert_rules(&v, &["unmovable-template", "moved-list", "evacuated-node"]);
    assert_rules(
        &run(&relocate("scratch", "a4"), &[], &ok(json!(["a3"]))),
        &["unmovable-template"],
    );
}

#[test]
fn shared_storage_migration_needs_a_target() {
    let answer = moves(
        &[("cloud", "alpha", &["a4"])],
        &[],
        vec![vec![migrate("cloud")]],
    );
    let v = run(&evacuate(&["cloud"], "primary-only"), &[], &ok(answer));
    assert_rules(&v, &["bad-opcode", "moved-list", "evacuated-node"]);
}

#[test]
fn replace_disks_with_an_offline_primary_is_reported() {
    let mut req = evacuate(&["web"], "secondary-only");
    set(&mut req, &["nodes", "a1"], offline_node("uuid-alpha"));
    let answer = moves(
        &[("web", "alpha", &["a1", "a4"])],
        &[],
        vec![vec![replace("web", "a4")]],
    );
    assert_rules(&run(&req, &[], &ok(answer)), &["replace-offline-primary"]);
}

#[test]
fn migration_tags_are_enforced() {
    let mut req = evacuate(&["cloud"], "primary-only");
    set(
        &mut req,
        &["cluster_tags"],
        json!([
            "htools:migration:hv",
            "htools:allowmigration:hv:old::hv:new"
        ]),
    );
    set(&mut req, &["nodes", "a2", "tags"], json!(["hv:old"]));
    set(&mut req, &["nodes", "a3", "tags"], json!(["hv:new"]));
    set(&mut req, &["nodes", "a4", "tags"], json!(["hv:other"]));
    let to = |n: &str| {
        ok(moves(
            &[("cloud", "alpha", &[n])],
            &[],
            vec![vec![migrate_to("cloud", n)]],
        ))
    };
    // a3 has hv:new, which may receive hv:old.
    assert_safe(&run(&req, &[], &to("a3")));
    assert_rules(&run(&req, &[], &to("a4")), &["migration-tags"]);
}

// ------------------------------------------------------------------------------------------
// Negative: moved and failed lists, evacuation goals

#[test]
fn moved_list_must_match_the_jobs() {
    let evac = |moved: &[(&str, &str, &[&str])], jobs: Vec<Vec<Value>>| {
        run(
            &evacuate(&["web"], "primary-only"),
            &[],
            &ok(moves(moved, &[], jobs)),
        )
    };
    // Wrong node order.
    assert_rules(
        &evac(
            &[("web", "alpha", &["a1", "a2"])],
            vec![vec![migrate("web")]],
        ),
        &["moved-list"],
    );
    // Wrong group.
    assert_rules(
        &evac(
            &[("web", "beta", &["a2", "a1"])],
            vec![vec![migrate("web")]],
        ),
        &["moved-list"],
    );
    // A moved instance without a job.
    assert_rules(
        &evac(&[("web", "alpha", &["a2", "a1"])], vec![]),
        &["moved-list", "evacuated-node"],
    );
    // A job without a moved instance.
    assert_rules(&evac(&[], vec![vec![migrate("web")]]), &["moved-list"]);
    // An instance that was not requested.
    let answer = moves(
        &[
            ("web", "alpha", &["a2", "a1"]),
            ("db", "alpha", &["a3", "a1"]),
        ],
        &[],
        vec![vec![migrate("web")], vec![migrate("db")]],
    );
    assert_rules(
        &run(&evacuate(&["web"], "primary-only"), &[], &ok(answer)),
        &["moved-list"],
    );
}

#[test]
fn failed_list_must_name_requested_instances() {
    let answer = moves(&[], &[("db", "no room")], vec![]);
    assert_rules(
        &run(&evacuate(&["web"], "primary-only"), &[], &ok(answer)),
        &["failed-list"],
    );
    let answer = moves(
        &[("web", "alpha", &["a2", "a1"])],
        &[("web", "no room")],
        vec![vec![migrate("web")]],
    );
    assert_rules(
        &run(&evacuate(&["web"], "primary-only"), &[], &ok(answer)),
        &["failed-list"],
    );
}

#[test]
fn instance_left_on_the_evacuated_node_is_reported() {
    let stay = moves(&[("web", "alpha", &["a1", "a2"])], &[], vec![vec![]]);
    assert_rules(
        &run(&evacuate(&["web"], "primary-only"), &[], &ok(stay.clone())),
        &["evacuated-node"],
    );
    assert_rules(
        &run(&evacuate(&["web"], "secondary-only"), &[], &ok(stay)),
        &["evacuated-node"],
    );
    // "all" must leave both old nodes: a replace alone keeps the old primary.
    let half = moves(
        &[("web", "alpha", &["a1", "a4"])],
        &[],
        vec![vec![replace("web", "a4")]],
    );
    assert_rules(
        &run(&evacuate(&["web"], "all"), &[], &ok(half)),
        &["evacuated-node"],
    );
}

#[test]
fn change_group_must_leave_the_old_group_for_a_target() {
    // Staying in alpha.
    let job = vec![replace("web", "a3"), migrate("web"), replace("web", "a4")];
    let answer = moves(&[("web", "alpha", &["a3", "a4"])], &[], vec![job]);
    assert_rules(
        &run(&change_group(&["web"], &[]), &[], &ok(answer)),
        &["change-group-target"],
    );
    // Moving to beta when only a third group was allowed.
    let mut req = change_group(&["web"], &["gamma"]);
    set(&mut req, &["nodegroups", "uuid-gamma"], group("gamma"));
    let job = vec![replace("web", "b1"), migrate("web"), replace("web", "b2")];
    let answer = moves(&[("web", "beta", &["b1", "b2"])], &[], vec![job]);
    assert_rules(&run(&req, &[], &ok(answer)), &["change-group-target"]);
}

#[test]
fn relocation_to_another_group_is_reported() {
    let v = run(&relocate("web", "a2"), &[], &ok(json!(["b1"])));
    assert_rules(&v, &["relocate-group", "cross-group"]);
}

#[test]
fn relocation_checks_the_new_secondary() {
    let mut req = relocate("web", "a2");
    set(&mut req, &["nodes", "a4", "drained"], json!(true));
    assert_rules(&run(&req, &[], &ok(json!(["a4"]))), &["drained-target"]);
    assert_rules(
        &run(&relocate("web", "a2"), &[], &ok(json!(["a2"]))),
        &["same-node"],
    );
}

// ------------------------------------------------------------------------------------------
// Negative: answer envelope and shapes

#[test]
fn envelope_key_order_is_checked() {
    let req = allocate("plain", 1024, 1024);
    let answer = r#"{"info":"Request successful: x","success":true,"result":["a1"]}"#;
    assert_rules(&run(&req, &[], answer), &["answer-shape"]);
    let answer =
        r#"{"success":true,"info":"Request successful: x","result":["a1"],"nodes":["a1"]}"#;
    assert_rules(&run(&req, &[], answer), &["answer-shape"]);
}

#[test]
fn info_prefix_is_checked() {
    let req = allocate("plain", 1024, 1024);
    assert_rules(
        &run(&req, &[], r#"{"success":true,"info":"ok","result":["a1"]}"#),
        &["answer-shape"],
    );
    assert_rules(
        &run(&req, &[], r#"{"success":false,"info":"nope","result":[]}"#),
        &["answer-shape"],
    );
}

#[test]
fn failure_with_a_result_is_reported() {
    let req = allocate("plain", 1024, 1024);
    assert_rules(
        &run(
            &req,
            &[],
            r#"{"success":false,"info":"Request failed: x","result":["a1"]}"#,
        ),
        &["answer-shape"],
    );
}

#[test]
fn wrong_result_shapes_are_reported() {
    let cases: Vec<(Value, Value)> = vec![
        (allocate("plain", 1024, 1024), json!("a1")),
        (allocate("plain", 1024, 1024), json!([1])),
        (allocate_secondary("scratch"), json!(["a1"])),
        (relocate("web", "a2"), json!("a3")),
        (
            multi_allocate(vec![new_instance("m1", "plain", 1024, 1024)]),
            json!([["m1", ["a1"]]]),
        ),
        (
            multi_allocate(vec![new_instance("m1", "plain", 1024, 1024)]),
            json!([[["m1", "a1"]], []]),
        ),
        (evacuate(&["web"], "primary-only"), json!([[], []])),
        (
            evacuate(&["web"], "primary-only"),
            json!([[["web", "alpha"]], [], []]),
        ),
        (
            evacuate(&["web"], "primary-only"),
            json!([[], [["web"]], []]),
        ),
        (change_group(&["web"], &[]), json!({"moved": []})),
        (
            change_group(&["web"], &[]),
            json!([[], [], [{"OP_ID": "OP_INSTANCE_MIGRATE"}]]),
        ),
    ];
    for (req, result) in cases {
        let v = run(&req, &[], &ok(result.clone()));
        assert_rules(&v, &["answer-shape"]);
    }
}

#[test]
fn invalid_requests_and_options_are_reported() {
    assert_rules(&check("not json", &[], &failed()), &["request-invalid"]);
    assert_rules(
        &check(r#"{"request": {"type": "explode"}}"#, &[], &failed()),
        &["request-invalid"],
    );
    let req = allocate("plain", 1024, 1024).to_string();
    let opts = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    assert_rules(
        &check(
            &req,
            &opts(&["--simulate=p,3,1024,1024,4"]),
            &ok(json!(["node-01-001"])),
        ),
        &["options-unsupported"],
    );
    assert_rules(
        &check(&req, &opts(&["--bogus"]), &ok(json!(["a1"]))),
        &["options-unsupported"],
    );
    // "--mond" is exact, "--ignore" is ambiguous (ignore-dynu, ignore-soft-errors).
    assert_safe(&check(&req, &opts(&["--mond"]), &ok(json!(["a1"]))));
    assert_rules(
        &check(&req, &opts(&["--ignore"]), &ok(json!(["a1"]))),
        &["options-unsupported"],
    );
}

// ------------------------------------------------------------------------------------------
// Robustness: garbage never panics

fn all_requests() -> Vec<Value> {
    vec![
        allocate("drbd", 1024, 1024),
        multi_allocate(vec![new_instance("m1", "plain", 1024, 1024)]),
        allocate_secondary("scratch"),
        relocate("web", "a2"),
        evacuate(&["web", "db"], "all"),
        change_group(&["web"], &[]),
    ]
}

#[test]
fn garbage_answers_are_shape_violations() {
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let garbage = [
        "".to_owned(),
        " ".to_owned(),
        "null".to_owned(),
        "[]".to_owned(),
        "{}".to_owned(),
        "{".to_owned(),
        "\u{0}\u{1}binary".to_owned(),
        "1e400".to_owned(),
        r#"{"success":true}"#.to_owned(),
        r#"{"success":1,"info":"Request successful: x","result":[]}"#.to_owned(),
        r#"{"success":true,"info":7,"result":[]}"#.to_owned(),
        r#"{"success":true,"info":"Request successful: x","result":[1e308,-1e308,99999999999999999999999999999999]}"#.to_owned(),
        r#"{"success":true,"info":"Request successful: x","result":{"a":1}}"#.to_owned(),
        r#"{"success":true,"info":"Request successful: x","result":null} trailing"#.to_owned(),
        deep,
    ];
    for req in all_requests() {
        for g in &garbage {
            let v = run(&req, &[], g);
            assert!(!v.is_empty(), "no violation for {g:?}");
            assert!(
                v.iter().all(|x| x.rule == "answer-shape"),
                "{g:?}: {}",
                render(&v)
            );
        }
    }
}

#[test]
fn every_prefix_of_a_valid_answer_is_handled() {
    let job = vec![replace("web", "a3"), migrate("web"), replace("web", "a4")];
    let answer = ok(moves(&[("web", "alpha", &["a3", "a4"])], &[], vec![job]));
    let req = evacuate(&["web"], "all");
    for cut in 0..answer.len() {
        if answer.is_char_boundary(cut) {
            let v = run(&req, &[], &answer[..cut]);
            assert!(!v.is_empty(), "prefix {cut} accepted");
        }
    }
}

/// A small deterministic generator of arbitrary JSON values.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() as usize) % items.len()]
    }
    fn value(&mut self, depth: u32) -> Value {
        let words = [
            "a1",
            "a2",
            "b1",
            "web",
            "db",
            "cloud",
            "alpha",
            "OP_INSTANCE_MIGRATE",
            "",
            "zz",
        ];
        match self.next() % if depth > 3 { 5 } else { 8 } {
            0 => Value::Null,
            1 => json!(self.next().is_multiple_of(2)),
            2 => json!(self.next() as i64 - (1 << 30)),
            3 => json!(f64::from(self.next() as u32) * 1e300),
            4 => json!(self.pick(&words)),
            5 | 6 => Value::Array(
                (0..self.next() % 4)
                    .map(|_| self.value(depth + 1))
                    .collect(),
            ),
            _ => {
                let keys = [
                    "OP_ID",
                    "instance_name",
                    "target_node",
                    "remote_node",
                    "mode",
                    "x",
                ];
                let mut m = serde_json::Map::new();
                for _ in 0..self.next() % 4 {
                    let k = self.pick(&keys).to_owned();
                    let v = self.value(depth + 1);
                    m.insert(k, v);
                }
                Value::Object(m)
            }
        }
    }
}

#[test]
fn random_results_never_panic() {
    let mut rng = Lcg(7);
    for req in all_requests() {
        for _ in 0..300 {
            let result = rng.value(0);
            let _ = run(&req, &[], &ok(result));
        }
    }
}

#[test]
fn random_mutations_of_a_request_never_panic() {
    let mut rng = Lcg(11);
    let paths: [&[&str]; 8] = [
        &["nodes", "a1"],
        &["nodes", "a2", "free_memory"],
        &["instances", "web", "nodes"],
        &["instances", "web"],
        &["nodegroups", "uuid-alpha", "ipolicy"],
        &["request", "instances"],
        &["request", "disks"],
        &["cluster_tags"],
    ];
    let answer = ok(moves(
        &[("web", "alpha", &["a2", "a1"])],
        &[],
        vec![vec![migrate("web")]],
    ));
    for req in all_requests() {
        for _ in 0..100 {
            let mut r = req.clone();
            let path = paths[(rng.next() as usize) % paths.len()];
            set(&mut r, path, rng.value(1));
            let _ = run(&r, &["--restrict-allocation-to=a1,"], &answer);
            let _ = run(&r, &[], &ok(json!(["a1", "a2"])));
        }
    }
}

#[test]
fn huge_numbers_in_the_request_do_not_overflow() {
    let mut req = allocate("drbd", 1024, 1024);
    set(&mut req, &["nodes", "a1", "free_memory"], json!(1e300));
    set(&mut req, &["nodes", "a2", "free_disk"], json!(-1e300));
    set(&mut req, &["request", "memory"], json!(i64::MAX));
    set(&mut req, &["request", "disk_space_total"], json!(u64::MAX));
    let v = run(&req, &[], &ok(json!(["a1", "a2"])));
    assert!(rules(&v).contains(&"disk"), "{}", render(&v));
}

#[test]
fn output_is_deterministic() {
    let mut req = with_exclusion_tags(allocate("drbd", 9000, 99999));
    set(&mut req, &["request", "tags"], json!(["service:mail"]));
    set(&mut req, &["nodes", "a2", "drained"], json!(true));
    let a = run(&req, &[], &ok(json!(["a2", "b1"])));
    let b = run(&req, &[], &ok(json!(["a2", "b1"])));
    assert!(a.len() >= 5, "{}", render(&a));
    assert_eq!(a, b);
}
