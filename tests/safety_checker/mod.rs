//! Tests of the independent safety checker in `tests/support/safety/`.
//!
//! Every request here is written in code on a small made-up cluster (no
//! Ganeti sample data). The positive tests give the checker a correct answer
//! for each request type and expect no violation; the negative tests break
//! exactly one rule of a correct answer and expect exactly that rule; the
//! robustness tests feed it garbage and expect `answer-shape`, never a panic.

use serde_json::{json, Value};

use crate::support::safety::{check, Violation, RULES};

mod accepted;
mod capacity;
mod jobs;
mod nodes;
mod policies;
mod robustness;

// ------------------------------------------------------------------------------------------
// Fixtures

/// A permissive instance policy: everything from tiny to large is allowed.
pub(super) fn ipolicy() -> Value {
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

pub(super) fn group(name: &str) -> Value {
    json!({"name": name, "alloc_policy": "preferred", "networks": [], "ipolicy": ipolicy(), "tags": []})
}

pub(super) fn node(group_uuid: &str) -> Value {
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
pub(super) fn instance(nodes: &[&str], template: &str, memory: i64, disk: i64) -> Value {
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
pub(super) fn cluster(request: Value) -> Value {
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
pub(super) fn new_instance(name: &str, template: &str, memory: i64, disk: i64) -> Value {
    let total = if template == "drbd" { disk + 128 } else { disk };
    json!({
        "name": name, "disk_template": template, "memory": memory, "vcpus": 1, "spindle_use": 1,
        "disks": [{"size": disk, "mode": "rw"}], "disk_space_total": total,
        "nics": [{"mac": "aa:00:00:44:55:66", "ip": null, "bridge": null}],
        "tags": [], "os": "debian", "hypervisor": "kvm",
        "required_nodes": if template == "drbd" { 2 } else { 1 }, "group_name": null
    })
}

pub(super) fn allocate(template: &str, memory: i64, disk: i64) -> Value {
    let mut r = new_instance("fresh", template, memory, disk);
    r["type"] = json!("allocate");
    cluster(r)
}

pub(super) fn multi_allocate(instances: Vec<Value>) -> Value {
    cluster(json!({"type": "multi-allocate", "instances": instances}))
}

pub(super) fn allocate_secondary(name: &str) -> Value {
    cluster(json!({"type": "allocate-secondary", "name": name}))
}

pub(super) fn relocate(name: &str, from: &str) -> Value {
    cluster(
        json!({"type": "relocate", "name": name, "required_nodes": 1, "disk_space_total": 10368, "relocate_from": [from]}),
    )
}

pub(super) fn evacuate(instances: &[&str], mode: &str) -> Value {
    cluster(json!({"type": "node-evacuate", "instances": instances, "evac_mode": mode}))
}

pub(super) fn change_group(instances: &[&str], targets: &[&str]) -> Value {
    cluster(json!({"type": "change-group", "instances": instances, "target_groups": targets}))
}

/// A successful answer, keys in hail's order.
pub(super) fn ok(result: Value) -> String {
    format!(r#"{{"success":true,"info":"Request successful: test","result":{result}}}"#)
}

pub(super) fn failed() -> String {
    r#"{"success":false,"info":"Request failed: no luck","result":[]}"#.to_owned()
}

// Opcodes exactly as hail writes them.

pub(super) fn migrate(inst: &str) -> Value {
    json!({"OP_ID": "OP_INSTANCE_MIGRATE", "instance_name": inst, "allow_runtime_changes": false,
           "ignore_ipolicy": false, "cleanup": false, "allow_failover": true, "ignore_hvversions": true})
}

pub(super) fn migrate_to(inst: &str, target: &str) -> Value {
    let mut op = migrate(inst);
    op["target_node"] = json!(target);
    op
}

pub(super) fn failover(inst: &str) -> Value {
    json!({"OP_ID": "OP_INSTANCE_FAILOVER", "instance_name": inst, "shutdown_timeout": 120,
           "ignore_consistency": false, "ignore_ipolicy": false, "cleanup": false})
}

pub(super) fn replace(inst: &str, node: &str) -> Value {
    json!({"OP_ID": "OP_INSTANCE_REPLACE_DISKS", "instance_name": inst, "early_release": false,
           "ignore_ipolicy": false, "mode": "replace_new_secondary", "disks": [], "remote_node": node})
}

/// A node-evacuate / change-group result: `[moved, failed, jobs]`.
pub(super) fn moves(
    moved: &[(&str, &str, &[&str])],
    failed: &[(&str, &str)],
    jobs: Vec<Vec<Value>>,
) -> Value {
    let moved: Vec<Value> = moved.iter().map(|(i, g, n)| json!([i, g, n])).collect();
    let failed: Vec<Value> = failed.iter().map(|(i, m)| json!([i, m])).collect();
    json!([moved, failed, jobs])
}

pub(super) fn run(request: &Value, options: &[&str], answer: &str) -> Vec<Violation> {
    let options: Vec<String> = options.iter().map(|s| (*s).to_owned()).collect();
    check(&request.to_string(), &options, answer)
}

/// The distinct rule ids, in order of first appearance.
pub(super) fn rules(v: &[Violation]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for x in v {
        if !out.contains(&x.rule) {
            out.push(x.rule);
        }
    }
    out
}

#[track_caller]
pub(super) fn assert_safe(v: &[Violation]) {
    assert!(v.is_empty(), "expected no violations, got:\n{}", render(v));
}

/// Asserts that exactly these rules (as a set) are reported.
#[track_caller]
pub(super) fn assert_rules(v: &[Violation], expected: &[&str]) {
    let mut got = rules(v);
    got.sort_unstable();
    let mut want = expected.to_vec();
    want.sort_unstable();
    assert_eq!(got, want, "violations:\n{}", render(v));
}

pub(super) fn render(v: &[Violation]) -> String {
    v.iter().map(|x| format!("  {x}\n")).collect()
}

/// Replaces the value at `path`; numeric components index arrays.
pub(super) fn set(req: &mut Value, path: &[&str], value: Value) {
    let mut cur = req;
    for key in path {
        cur = match key.parse::<usize>() {
            Ok(i) if cur.is_array() => &mut cur[i],
            _ => &mut cur[*key],
        };
    }
    *cur = value;
}

pub(super) fn offline_node(group_uuid: &str) -> Value {
    json!({"group": group_uuid, "offline": true, "drained": false,
           "ndparams": {"exclusive_storage": false, "spindle_count": 1}})
}

pub(super) fn with_exclusion_tags(mut req: Value) -> Value {
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
