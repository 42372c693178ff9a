//! Broken job rules (opcodes, moved and failed lists, evacuation goals)
//! and answer shapes.

use super::*;

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
