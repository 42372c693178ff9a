//! Cluster data files through the binary: `-S` saves, `-t` replays,
//! `--simulate` builds a cluster, `-p` prints node tables; bad files and
//! paths are refused with the place named and nothing on stdout.
//! `make compat` (`--suite datafiles`) holds the same outputs against
//! hail's byte for byte; these tests hold the behaviour hailstone owns.

use std::path::Path;

use crate::run::{assert_contract, hailstone, scratch};

fn sample(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("protocol-samples")
        .join(name)
        .display()
        .to_string()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn save_writes_both_states_and_replaying_the_first_gives_the_same_run() {
    let dir = scratch("save");
    let request = sample("allocate-drbd.json");
    let save = dir.join("state").display().to_string();
    let first = hailstone(&[&request, "-S", &save], None);
    assert_contract(&first, "-S");
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(first.stderr.contains(&format!(
        "The cluster state before iallocator run has been written to file '{save}.pre-ialloc'\n"
    )));
    let pre = read(&dir.join("state.pre-ialloc"));
    let post = read(&dir.join("state.post-ialloc"));
    // The allocated instance comes first in the final state.
    let instances = post.split("\n\n").nth(2).expect("an instance section");
    assert!(instances.starts_with("new1.example.com|"), "{instances}");
    assert_ne!(pre, post);

    let replay_save = dir.join("replay").display().to_string();
    let replay = hailstone(
        &[
            &request,
            "-t",
            &format!("{save}.pre-ialloc"),
            "-S",
            &replay_save,
        ],
        None,
    );
    assert_eq!(replay.code, 0, "{}", replay.stderr);
    assert_eq!(replay.stdout, first.stdout);
    assert_eq!(read(&dir.join("replay.pre-ialloc")), pre);
    assert_eq!(read(&dir.join("replay.post-ialloc")), post);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unwritable_save_path_stops_the_run_without_an_answer() {
    let out = hailstone(
        &[
            &sample("allocate-drbd.json"),
            "-S",
            "/nonexistent/dir/state",
        ],
        None,
    );
    assert_contract(&out, "unwritable -S");
    assert_eq!(out.code, 1);
    assert!(out.stdout.is_empty());
    assert!(
        out.stderr
            .contains("cannot write \"/nonexistent/dir/state.pre-ialloc\""),
        "{}",
        out.stderr
    );
}

#[test]
fn bad_data_files_are_refused_naming_file_line_and_field() {
    let dir = scratch("bad");
    let good = "default|uuid-1|preferred||\n\n\
n1|16384|1024|13312|102400|92160|4|M|uuid-1\n\n\
i1|2048|10240|2|running|Y|n1||plain|\n\n";
    let cases: &[(&str, &str)] = &[
        ("", "0 sections instead of 4 or more"),
        ("default|uuid-1\n\n\n\n", "line 1: Invalid/incomplete group data"),
        (&good.replace("13312", "13x"), "line 3: node n1, field f_mem: n1: leftover characters when parsing '13x': 'x'"),
        (&good.replace("|M|uuid-1", "|M|nouuid"), "line 3: node n1, field group: Unknown group 'nouuid' for node n1"),
        (&good.replace("running", "up"), "line 5: instance i1, field status: Invalid string value for type InstanceStatus: \"up\""),
        (&good.replace("|n1||plain|", "|n1|n1|drbd|"), "Instance i1 has same primary and secondary node - n1"),
        (&good.replace("|n1||plain|", "|n1||drbd|"), "a drbd instance needs a secondary node"),
        (&format!("{good}\n|128,1|||4.0|32.0\n"), "line 8: cluster policy, field std spec: Invalid ispec data for /stdspec"),
        (&good.replace("default|uuid-1", "|uuid-1"), "line 1: node group, field name: empty"),
    ];
    for (i, (text, expected)) in cases.iter().enumerate() {
        let file = dir.join(format!("bad{i}.data"));
        std::fs::write(&file, text).expect("write");
        let file = file.display().to_string();
        let out = hailstone(&[&sample("allocate-plain.json"), "-t", &file], None);
        assert_contract(&out, &file);
        assert_eq!(out.code, 1, "{file}: {}", out.stderr);
        assert!(out.stdout.is_empty());
        assert!(out.stderr.contains(&file), "{file}: {}", out.stderr);
        assert!(out.stderr.contains(expected), "{file}: {}", out.stderr);
    }
    let missing = hailstone(
        &[&sample("allocate-plain.json"), "-t", "/nonexistent.data"],
        None,
    );
    assert_eq!(missing.code, 1);
    assert!(missing.stdout.is_empty());
    assert!(missing
        .stderr
        .contains("cannot read the cluster data file \"/nonexistent.data\""));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_simulated_cluster_answers_and_a_bad_spec_is_refused() {
    let request = sample("allocate-drbd.json");
    let out = hailstone(&[&request, "--simulate=p,4,100g,16g,8", "-p"], None);
    assert_contract(&out, "--simulate");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("node-01-00"), "{}", out.stdout);
    assert!(
        out.stderr.contains("\nInitial cluster status:\n F Name"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("\nFinal cluster status:\n"),
        "{}",
        out.stderr
    );
    // --simulate wins over -t: the data file is not even read.
    let both = hailstone(
        &[
            &request,
            "--simulate=p,4,100g,16g,8",
            "-t",
            "/nonexistent.data",
        ],
        None,
    );
    assert_eq!(both.code, 0, "{}", both.stderr);
    let bad = hailstone(&[&request, "--simulate=p,4,1x,16g,8"], None);
    assert_contract(&bad, "bad spec");
    assert_eq!(bad.code, 1);
    assert!(
        bad.stderr.contains("disk size: Unknown unit 'x'"),
        "{}",
        bad.stderr
    );
}

#[test]
fn requests_with_indices_outside_the_data_file_fail_as_hail_fails() {
    let dir = scratch("indices");
    let file = dir.join("one.data");
    std::fs::write(
        &file,
        "g|u|preferred||\n\nn1|16384|1024|13312|102400|92160|4|N|u\n\n\n\n",
    )
    .expect("write");
    let out = hailstone(
        &[
            &sample("node-evacuate-all.json"),
            "-t",
            &file.display().to_string(),
        ],
        None,
    );
    assert_contract(&out, "indices");
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("is not in the cluster's instance list"),
        "{}",
        out.stderr
    );
    // The indices are checked before `-S` saves anything (hail writes
    // FILE.pre-ialloc, then crashes: docs/compatibility.md).
    let save = dir.join("state").display().to_string();
    let saved = hailstone(
        &[
            &sample("node-evacuate-all.json"),
            "-t",
            &file.display().to_string(),
            "-S",
            &save,
        ],
        None,
    );
    assert_contract(&saved, "indices -S");
    assert_eq!((saved.code, &saved.stderr), (out.code, &out.stderr));
    assert!(!dir.join("state.pre-ialloc").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
