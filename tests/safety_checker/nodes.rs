//! Broken rules of node states and node choice.

use super::*;

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
