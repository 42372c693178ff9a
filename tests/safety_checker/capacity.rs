//! Broken capacity rules: memory, disk, spindles.

use super::*;

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
