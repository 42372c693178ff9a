//! `hailstone-htools` in a copy of a file system (`--root`, its own dpkg
//! database): `enable` moves each original name aside with dpkg-divert
//! and links it to hailstone, so that `hbal`, `harep`, ... run
//! hailstone's programs with the originals' command lines; `disable`
//! puts every original back as it was; both can be repeated. The links
//! name the installed programs (`/usr/bin/hailstone-htools`), as the
//! system in the copy sees them, never the binary that made them.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const HTOOLS: &str = env!("CARGO_BIN_EXE_hailstone-htools");

fn htools(root: &Path, op: &str) -> Output {
    Command::new(HTOOLS)
        .args([op, &format!("--root={}", root.display())])
        .output()
        .expect("hailstone-htools runs")
}

/// A command running `bin/name` as the system in `root` would: its link
/// (which must name an installed path, absolute) followed inside `root`,
/// the program called by the link's name.
pub fn in_root(root: &Path, name: &str) -> Command {
    let link = root.join("usr/bin").join(name);
    let target = std::fs::read_link(&link).unwrap();
    assert!(target.is_absolute(), "{name} -> {}", target.display());
    let mut c = Command::new(root.join(target.strip_prefix("/").unwrap()));
    c.arg0(&link);
    c
}

/// `root`'s copy of the installed programs: links to the ones built.
pub fn install_in(root: &Path) -> PathBuf {
    let bin = root.join("usr/bin");
    let iallocators = root.join("usr/lib/ganeti/iallocators");
    for d in [&bin, &iallocators] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::os::unix::fs::symlink(HTOOLS, bin.join("hailstone-htools")).unwrap();
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_hailstone-shadow"),
        iallocators.join("hailstone-shadow"),
    )
    .unwrap();
    bin
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
    let bin = install_in(&root);
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
    // Each name runs the installed program, as the system in the copy
    // sees it.
    for name in ["hbal", "harep", "hspace"] {
        assert_eq!(
            std::fs::read_link(bin.join(name)).unwrap(),
            Path::new("/usr/bin/hailstone-htools"),
            "{name}"
        );
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
        let v = in_root(&root, name).arg("--version").output().unwrap();
        assert!(
            stdout(&v).starts_with(&format!("{ours} version ")),
            "{name}: {}",
            stdout(&v)
        );
    }
    // A bad command line under an original's name is that program's.
    let bad = in_root(&root, "hcheck").arg("--bogus").output().unwrap();
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
