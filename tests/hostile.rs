//! Bad and hostile inputs. hail's own shell tests' bad-input cases are
//! refused like hail refuses them (exit 1, nothing on stdout; the wording
//! is hailstone's, naming the JSON path). Hostile inputs (deep nesting,
//! huge numbers, invalid UTF-8, truncation, random mutation) never make
//! hailstone panic, print half an answer, or hang.

use crate::run::{assert_contract, hailstone, on_stdin, Output};

/// A small valid allocate request: two nodes in one group, one drbd
/// instance.
pub const VALID: &str = r#"{
  "version": 2,
  "cluster_name": "cluster.example.com",
  "cluster_tags": ["htools:iextags:service"],
  "enabled_hypervisors": ["kvm"],
  "nodegroups": {
    "uuid-g1": {"name": "default", "alloc_policy": "preferred", "networks": [], "tags": [],
      "ipolicy": {"minmax": [{"min": {"memory-size": 128, "cpu-count": 1, "disk-size": 1024, "disk-count": 1, "nic-count": 1, "spindle-use": 1},
                              "max": {"memory-size": 32768, "cpu-count": 8, "disk-size": 1048576, "disk-count": 16, "nic-count": 8, "spindle-use": 12}}],
                  "std": {"memory-size": 128, "cpu-count": 1, "disk-size": 1024, "disk-count": 1, "nic-count": 1, "spindle-use": 1},
                  "disk-templates": ["drbd", "plain"], "vcpu-ratio": 4.0, "spindle-ratio": 32.0}}
  },
  "nodes": {
    "node1.example.com": {"group": "uuid-g1", "offline": false, "drained": false, "vm_capable": true,
      "ndparams": {"exclusive_storage": false, "spindle_count": 1}, "tags": [],
      "total_memory": 32768, "reserved_memory": 1024, "free_memory": 29696, "total_disk": 1048576, "free_disk": 1038336,
      "total_cpus": 8, "reserved_cpus": 1, "total_spindles": 1, "free_spindles": 1},
    "node2.example.com": {"group": "uuid-g1", "offline": false, "drained": false, "vm_capable": true,
      "ndparams": {"exclusive_storage": false, "spindle_count": 1}, "tags": [],
      "total_memory": 32768, "reserved_memory": 1024, "free_memory": 31744, "total_disk": 1048576, "free_disk": 1038336,
      "total_cpus": 8, "reserved_cpus": 1, "total_spindles": 1, "free_spindles": 1}
  },
  "instances": {
    "web1.example.com": {"nodes": ["node1.example.com", "node2.example.com"], "disk_template": "drbd",
      "disks": [{"size": 10112, "mode": "rw"}], "disk_space_total": 10240, "memory": 2048, "vcpus": 2,
      "spindle_use": 1, "admin_state": "up", "tags": ["service:web"], "os": "debootstrap",
      "nics": [{"mac": "aa:00:00:00:00:01", "ip": null, "mode": "bridged", "link": "br0"}]}
  },
  "request": {"type": "allocate", "name": "new1.example.com", "disk_template": "drbd", "required_nodes": 2,
    "memory": 1024, "vcpus": 1, "disks": [{"size": 2048, "mode": "rw"}], "disk_space_total": 2176,
    "spindle_use": 1, "tags": [], "os": "debootstrap", "hypervisor": "kvm",
    "nics": [{"mac": "aa:00:00:00:00:02", "ip": null, "mode": "bridged", "link": "br0"}]}
}"#;

fn refused(out: &Output, what: &str) {
    assert_contract(out, what);
    assert_eq!(
        out.code, 1,
        "{what}: expected exit 1, got {}: {}",
        out.code, out.stderr
    );
}

fn refused_mentioning(input: &[u8], needle: &str) {
    let out = on_stdin(input, &[]);
    refused(&out, needle);
    assert!(
        out.stderr.contains(needle),
        "stderr {:?} should mention {needle:?}",
        out.stderr
    );
}

#[test]
fn the_valid_base_request_is_answered() {
    let out = on_stdin(VALID.as_bytes(), &[]);
    assert_contract(&out, "valid");
    assert_eq!(out.code, 0, "{}", out.stderr);
}

// hail's shell tests: /dev/null, [], {}, {"request": 0}, invalid relocate.

#[test]
fn empty_file_is_refused() {
    let out = hailstone(&["/dev/null"], None);
    refused(&out, "/dev/null");
    assert!(out.stderr.contains("not valid JSON"), "{}", out.stderr);
}

#[test]
fn non_object_is_refused() {
    refused_mentioning(b"[]", "expected a JSON object, found an array");
}

#[test]
fn empty_object_is_refused() {
    refused_mentioning(b"{}", "request: missing");
}

#[test]
fn non_object_request_is_refused() {
    refused_mentioning(br#"{"request": 0}"#, "request: expected an object, found 0");
}

/// VALID with its `request` object replaced.
pub fn with_request(request: &str) -> String {
    let start = VALID.find("\"request\":").expect("VALID has a request");
    format!("{}\"request\": {request}\n}}", &VALID[..start])
}

#[test]
fn relocate_of_unknown_instance_is_refused() {
    let req = with_request(
        r#"{"type": "relocate", "name": "nosuch.example.com", "required_nodes": 1, "relocate_from": ["node2.example.com"]}"#,
    );
    refused_mentioning(req.as_bytes(), "no instance named \"nosuch.example.com\"");
}

// Type and range errors name the JSON path.

#[test]
fn wrong_type_names_the_path() {
    let req = VALID.replacen(r#""total_memory": 32768"#, r#""total_memory": "lots""#, 1);
    refused_mentioning(
        req.as_bytes(),
        r#"nodes."node1.example.com".total_memory: expected a number, found "lots""#,
    );
}

#[test]
fn missing_field_names_the_path() {
    let req = VALID.replacen(r#""free_disk": 1038336,"#, "", 1);
    refused_mentioning(
        req.as_bytes(),
        r#"nodes."node1.example.com".free_disk: missing"#,
    );
}

#[test]
fn huge_integer_is_refused() {
    let req = VALID.replacen(r#""free_memory": 29696"#, r#""free_memory": 1e30"#, 1);
    refused_mentioning(req.as_bytes(), "free_memory: expected an integer between");
}

#[test]
fn non_finite_double_is_refused() {
    let req = VALID.replacen(r#""total_memory": 32768"#, r#""total_memory": 1e400"#, 1);
    refused_mentioning(req.as_bytes(), "total_memory: expected a finite number");
}

#[test]
fn nan_literal_is_refused() {
    let req = VALID.replacen(r#""total_memory": 32768"#, r#""total_memory": NaN"#, 1);
    refused_mentioning(req.as_bytes(), "not valid JSON");
}

#[test]
fn unknown_request_type_is_refused() {
    let req = VALID.replacen(r#""type": "allocate""#, r#""type": "multi-evacuate""#, 1);
    refused_mentioning(
        req.as_bytes(),
        "request.type: unknown request type \"multi-evacuate\"",
    );
}

#[test]
fn strict_policy_keys() {
    let req = VALID.replacen(
        r#""vcpu-ratio": 4.0"#,
        r#""vcpu-ratio": 4.0, "extra": 1"#,
        1,
    );
    refused_mentioning(req.as_bytes(), "unexpected key \"extra\"");
}

#[test]
fn unknown_node_of_instance_is_refused() {
    let req = VALID.replacen(
        r#"["node1.example.com", "node2.example.com"]"#,
        r#"["node1.example.com", "node9"]"#,
        1,
    );
    refused_mentioning(
        req.as_bytes(),
        r#"instances."web1.example.com".nodes[1]: no node named "node9""#,
    );
}

#[test]
fn an_unknown_node_is_reported_where_hail_reads_it() {
    // hail resolves an instance's nodes while it reads the instances, before
    // it reads the cluster tags: that error comes first.
    let req = VALID
        .replacen(
            r#"["node1.example.com", "node2.example.com"]"#,
            r#"["node1.example.com", "node9"]"#,
            1,
        )
        .replacen(
            r#""cluster_tags": ["htools:iextags:service"]"#,
            r#""cluster_tags": 5"#,
            1,
        );
    refused_mentioning(
        req.as_bytes(),
        r#"instances."web1.example.com".nodes[1]: no node named "node9""#,
    );
}

#[test]
fn rounding_of_integer_fields_follows_hail() {
    // hail reads integers as exact rationals and rounds half to even.
    let req = VALID.replacen(r#""memory": 1024"#, r#""memory": 1024.5"#, 1);
    let out = on_stdin(req.as_bytes(), &[]);
    assert_contract(&out, "fractional integer");
    assert_eq!(out.code, 0, "{}", out.stderr);
}

// Hostile inputs.

#[test]
fn deep_nesting_is_refused_quickly() {
    let mut deep = Vec::new();
    deep.extend(std::iter::repeat_n(b'[', 100_000));
    deep.extend(std::iter::repeat_n(b']', 100_000));
    refused_mentioning(&deep, "nesting deeper than");
    let mut deep_obj = Vec::new();
    for _ in 0..100_000 {
        deep_obj.extend_from_slice(br#"{"a":"#);
    }
    refused_mentioning(&deep_obj, "nesting deeper than");
}

#[test]
fn invalid_utf8_is_refused() {
    let req = VALID.replacen("web1.example.com", "web1.ex\u{00e9}mple.com", 1);
    let mut bytes = req.into_bytes();
    let pos = bytes
        .windows(2)
        .position(|w| w == [0xc3, 0xa9])
        .expect("the é is there");
    bytes[pos] = 0xff;
    refused_mentioning(&bytes, "invalid UTF-8");
}

#[test]
fn byte_order_mark_is_refused() {
    let mut bytes = vec![0xef, 0xbb, 0xbf];
    bytes.extend_from_slice(VALID.as_bytes());
    refused_mentioning(&bytes, "byte order mark");
}

#[test]
fn empty_stdin_is_refused() {
    refused_mentioning(b"", "not valid JSON");
}

#[test]
fn directory_and_missing_file_are_refused() {
    let out = hailstone(&["/"], None);
    refused(&out, "directory");
    assert!(
        out.stderr.contains("cannot read the request file"),
        "{}",
        out.stderr
    );
    let out = hailstone(&["/nonexistent/request.json"], None);
    refused(&out, "missing file");
    assert!(out.stderr.contains("No such file"), "{}", out.stderr);
}

#[test]
fn duplicate_keys_are_kept_like_hail() {
    // A duplicate node name makes two nodes; hail accepts that.
    let req = VALID.replacen(r#""node2.example.com": {"#, r#""node1.example.com": {"#, 1);
    let out = on_stdin(req.as_bytes(), &[]);
    assert_contract(&out, "duplicate keys");
}

#[test]
fn every_truncation_is_refused_without_panic() {
    let bytes = VALID.as_bytes();
    for cut in (0..bytes.len()).step_by(7) {
        let out = on_stdin(&bytes[..cut], &[]);
        refused(&out, &format!("truncated at {cut}"));
    }
}

#[test]
fn random_mutations_never_panic() {
    let base = VALID.as_bytes();
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let tokens: [&[u8]; 12] = [
        b"0",
        b"-1",
        b"1e300",
        b"null",
        b"true",
        b"\"x\"",
        b"[]",
        b"{}",
        b"2.5",
        b"\"drbd\"",
        b"\"offline\"",
        b"9007199254740993",
    ];
    for round in 0..150 {
        let mut bytes = base.to_vec();
        for _ in 0..(1 + next() % 3) {
            let pos = (next() as usize) % bytes.len();
            match next() % 3 {
                0 => {
                    bytes[pos] = (next() % 256) as u8;
                }
                1 => {
                    // Replace a number or literal near pos with a token.
                    let tok = tokens[(next() as usize) % tokens.len()];
                    let end = (pos + 1 + (next() as usize) % 6).min(bytes.len());
                    bytes.splice(pos..end, tok.iter().copied());
                }
                _ => {
                    let end = (pos + (next() as usize) % 40).min(bytes.len());
                    bytes.drain(pos..end);
                }
            }
        }
        let out = on_stdin(&bytes, &[]);
        assert_contract(&out, &format!("mutation round {round}"));
    }
}

/// A stderr that cannot be written (`2>/dev/full`) changes nothing of the
/// answer: hailstone prints it and exits 0 (hail exits 1; it panicked
/// before); the planners end with a status, never a crash.
#[test]
fn a_full_stderr_is_no_crash() {
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full")
    };
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol-samples");
    // The warning of inconsistent data, -v and the explanation on stderr.
    let sample = samples.join("allocate-small-dom0.json");
    let plain = std::process::Command::new(env!("CARGO_BIN_EXE_hailstone"))
        .arg(&sample)
        .output()
        .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hailstone"))
        .arg(&sample)
        .args(["-v", "-v", "--explain"])
        .stderr(full())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, plain.stdout);
    assert!(!out.stdout.is_empty());
    let data = crate::run::scratch("full-stderr").join("c.data");
    let text = hailstone::shell::datafile::from_request(
        &std::fs::read(samples.join("allocate-drbd.json")).unwrap(),
        &hailstone::program::hail::options::LoadOptions::default(),
    )
    .unwrap();
    std::fs::write(&data, text).unwrap();
    let data = data.to_str().unwrap();
    for (bin, args) in [
        (
            env!("CARGO_BIN_EXE_hailstone-balance"),
            vec!["-t", data, "-p", "-v", "-v"],
        ),
        (
            env!("CARGO_BIN_EXE_hailstone-squeeze"),
            vec!["-t", data, "-v", "-v", "--explain"],
        ),
        (
            env!("CARGO_BIN_EXE_hailstone-info"),
            vec!["-t", data, "-p", "--print-instances"],
        ),
        (
            env!("CARGO_BIN_EXE_hailstone-space"),
            vec!["-t", data, "-p", "-v", "-v"],
        ),
        (
            env!("CARGO_BIN_EXE_hailstone-groups"),
            vec!["check", "-t", data, "--explain"],
        ),
        (
            env!("CARGO_BIN_EXE_hailstone-check"),
            vec!["-t", data, "--bogus"],
        ),
    ] {
        let plain = std::process::Command::new(bin)
            .args(&args)
            .output()
            .unwrap();
        let out = std::process::Command::new(bin)
            .args(&args)
            .stderr(full())
            .output()
            .unwrap();
        assert!(
            !plain.stderr.is_empty(),
            "{bin} {args:?} writes nothing on stderr"
        );
        assert_eq!(out.status.code(), plain.status.code(), "{bin} {args:?}");
        assert_eq!(out.stdout, plain.stdout, "{bin} {args:?}");
    }
}

/// Values that would make a plan unsafe, which the originals take, are
/// refused before anything is read or planned: exit 1, nothing on
/// stdout, the value named.
#[test]
fn unsafe_values_are_refused() {
    let dir = crate::run::scratch("unsafe-values");
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol-samples");
    let request = samples.join("allocate-drbd.json");
    let text = hailstone::shell::datafile::from_request(
        &std::fs::read(&request).unwrap(),
        &hailstone::program::hail::options::LoadOptions::default(),
    )
    .unwrap();
    let good = dir.join("c.data");
    std::fs::write(&good, &text).unwrap();
    // The first node's free memory, then the first instance's memory,
    // made negative.
    let sections: Vec<&str> = text.split("\n\n").collect();
    let negate = |section: usize, field: usize| {
        let mut parts: Vec<String> = sections.iter().map(|s| (*s).to_owned()).collect();
        let mut lines: Vec<String> = parts[section].lines().map(str::to_owned).collect();
        let mut f: Vec<String> = lines[0].split('|').map(str::to_owned).collect();
        f[field] = format!("-{}", f[field]);
        lines[0] = f.join("|");
        parts[section] = lines.join("\n");
        parts.join("\n\n")
    };
    let negative_node = dir.join("negative-node.data");
    std::fs::write(&negative_node, negate(1, 3)).unwrap();
    let negative_instance = dir.join("negative-instance.data");
    std::fs::write(&negative_instance, negate(2, 1)).unwrap();
    let (good, request) = (good.to_str().unwrap(), request.to_str().unwrap());
    let (negative_node, negative_instance) = (
        negative_node.to_str().unwrap(),
        negative_instance.to_str().unwrap(),
    );
    let balance = env!("CARGO_BIN_EXE_hailstone-balance");
    let squeeze = env!("CARGO_BIN_EXE_hailstone-squeeze");
    let cases: Vec<(&str, Vec<&str>, &str)> = vec![
        (
            balance,
            vec!["-l", "99999999999999999999999", "-t", good],
            "out of range",
        ),
        (
            balance,
            vec!["--min-disk=5", "-t", good],
            "expected a number from 0 to 1",
        ),
        (
            balance,
            vec!["--min-disk=-0.5", "-t", good],
            "expected a number from 0 to 1",
        ),
        (balance, vec!["-t", negative_node], "field f_mem: '-"),
        (balance, vec!["-t", negative_instance], "field memory: '-"),
        (
            balance,
            vec!["-t", good, "-I", request],
            "cannot be combined",
        ),
        (
            squeeze,
            vec!["--target-resources=-1", "-t", good],
            "--target-resources '-1'",
        ),
        (
            squeeze,
            vec!["--minimal-resources=-1", "-t", good],
            "--minimal-resources '-1'",
        ),
        (
            squeeze,
            vec!["--target-resources=NaN", "-t", good],
            "--target-resources 'NaN'",
        ),
        (
            squeeze,
            vec!["--minimal-resources=5", "--target-resources=1", "-t", good],
            "is above --target-resources",
        ),
        (squeeze, vec!["-t", negative_node], "field f_mem: '-"),
        (
            env!("CARGO_BIN_EXE_hailstone-groups"),
            vec!["check", "-t", good, "-I", request],
            "cannot be combined",
        ),
        (
            env!("CARGO_BIN_EXE_hailstone-space"),
            vec!["-t", negative_instance],
            "field memory: '-",
        ),
    ];
    for (bin, args, needle) in cases {
        let out = std::process::Command::new(bin)
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{bin} {args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{bin} {args:?}");
        assert!(stderr.contains(needle), "{bin} {args:?}: {stderr}");
    }
    // The limits themselves are taken.
    for (bin, args) in [
        (
            balance,
            vec!["-l", "9223372036854775807", "--min-disk=1", "-t", good],
        ),
        (
            squeeze,
            vec!["--minimal-resources=0", "--target-resources=0", "-t", good],
        ),
        (
            squeeze,
            vec!["--minimal-resources=3", "--target-resources=3", "-t", good],
        ),
    ] {
        let out = std::process::Command::new(bin)
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{bin} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Sizes from options are checked before memory is reserved: a
/// simulated cluster of 10^8 nodes (hail runs out of memory) is refused
/// with the value and the limit, within a 1 GB address space.
#[test]
fn a_huge_simulated_cluster_is_refused_within_the_memory_limit() {
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("protocol-samples")
        .join("allocate-plain.json");
    let sample = sample.to_str().unwrap();
    for (bin, args) in [
        (
            env!("CARGO_BIN_EXE_hailstone"),
            vec![sample, "--simulate=p,100000000,100g,16g,8"],
        ),
        (
            env!("CARGO_BIN_EXE_hailstone-space"),
            vec!["--simulate=p,100000000,100g,16g,8"],
        ),
    ] {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 1000000; exec \"$0\" \"$@\"")
            .arg(bin)
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{bin}: {stderr}");
        assert!(out.stdout.is_empty(), "{bin}");
        assert!(
            stderr.contains("100000000 nodes in all, more than the 100000 hailstone simulates"),
            "{bin}: {stderr}"
        );
    }
}
