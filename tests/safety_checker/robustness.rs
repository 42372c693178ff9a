//! Garbage never panics.

use super::*;

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
