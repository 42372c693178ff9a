//! Correct answers for every request type: no violation.

use super::*;

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
