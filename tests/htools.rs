//! `hailstone-htools` in a copy of a file system (`--root`, its own dpkg
//! database): `enable` moves each original name aside with dpkg-divert
//! and links it to hailstone, so that `hbal`, `harep`, ... run
//! hailstone's programs with the originals' command lines; `disable`
//! puts every original back as it was; both can be repeated.

use std::path::Path;
use std::process::{Command, Output};

const HTOOLS: &str = env!("CARGO_BIN_EXE_hailstone-htools");

fn htools(root: &Path, op: &str) -> Output {
    Command::new(HTOOLS)
        .args([op, &format!("--root={}", root.display())])
        .output()
        .expect("hailstone-htools runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn enable_and_disable_in_a_copy() {
    if Command::new("dpkg-divert")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("dpkg-divert is missing: nothing to test");
        return;
    }
    let root = crate::run::scratch("htools");
    let bin = root.join("usr/bin");
    let dpkg = root.join("var/lib/dpkg");
    for d in [&bin, &dpkg.join("info"), &dpkg.join("updates")] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(dpkg.join("diversions"), "").unwrap();
    std::fs::write(dpkg.join("status"), "").unwrap();
    // An original as Debian installs it (a relative link) and one as a file.
    std::os::unix::fs::symlink("../lib/ganeti/default/usr/bin/hbal", bin.join("hbal")).unwrap();
    std::fs::write(bin.join("harep"), "#!/bin/sh\necho the original harep\n").unwrap();

    let o = htools(&root, "status");
    assert!(
        stdout(&o).starts_with(
            "hbal: the original (../lib/ganeti/default/usr/bin/hbal)\nhspace: not installed\n"
        ),
        "{}",
        stdout(&o)
    );
    for _ in 0..2 {
        let o = htools(&root, "enable");
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(stdout(&o).contains("hbal: hailstone-balance\n"));
    }
    assert_eq!(
        std::fs::read_link(bin.join("hbal.htools")).unwrap(),
        Path::new("../lib/ganeti/default/usr/bin/hbal")
    );
    for (name, ours) in [
        ("hbal", "hailstone-balance"),
        ("harep", "hailstone-repair"),
        ("hroller", "hailstone-roll"),
    ] {
        let v = Command::new(bin.join(name))
            .arg("--version")
            .output()
            .unwrap();
        assert!(
            stdout(&v).starts_with(&format!("{ours} version ")),
            "{name}: {}",
            stdout(&v)
        );
    }
    // A bad command line under an original's name is that program's.
    let bad = Command::new(bin.join("hcheck"))
        .arg("--bogus")
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("hailstone-check"));

    for _ in 0..2 {
        let o = htools(&root, "disable");
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert_eq!(
        std::fs::read_link(bin.join("hbal")).unwrap(),
        Path::new("../lib/ganeti/default/usr/bin/hbal")
    );
    assert_eq!(
        std::fs::read_to_string(bin.join("harep")).unwrap(),
        "#!/bin/sh\necho the original harep\n"
    );
    assert!(!bin.join("hspace").exists() && !bin.join("hbal.htools").exists());
    assert_eq!(
        std::fs::read_to_string(dpkg.join("diversions")).unwrap(),
        ""
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn an_operation_is_required() {
    let o = Command::new(HTOOLS).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let o = Command::new(HTOOLS)
        .args(["enable", "disable"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    // A misspelt operation is repeated, with the nearest one.
    let o = Command::new(HTOOLS).arg("enbale").output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "Error: unknown operation 'enbale' (did you mean enable?); the operations are enable, disable or status\nsee hailstone-htools --help\n"
    );
}
