//! Broken policy rules: instance policy, exclusion tags, networks.

use super::*;

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
