//! `hailstone-shadow` as Ganeti runs it: the answer Ganeti receives is
//! the reference's, byte for byte, with its exit status, whatever the
//! shadow does (crash, hang past its limit, garbage, SIGKILL of the
//! shadow or of the recorder itself) and whatever the record folder is
//! (not writable, full); a reference that answers differently shows up
//! in `report` with its reproduction commands and Ganeti's checks;
//! `--primary=hailstone` hands Ganeti hailstone's answer; the htools'
//! names in the shadow (`hailstone-htools enable --shadow`) run the
//! originals unchanged and record hailstone's runs beside. Ganeti's own
//! Python checker (`../shared/tools/ganeti_validate.py`) judges the same
//! answers as the report's checks, where it is installed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const SHADOW: &str = env!("CARGO_BIN_EXE_hailstone-shadow");
const HAILSTONE: &str = env!("CARGO_BIN_EXE_hailstone");
const HAIL: &str = "/usr/lib/ganeti/iallocators/hail";

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("protocol-samples")
        .join(name)
}

/// An executable shell script `name` in `dir`.
fn script(dir: &Path, name: &str, body: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    p.to_string_lossy().into_owned()
}

/// The reference stub's answer.
const STUB_ANSWER: &str =
    "{\"success\":true,\"info\":\"stub\",\"result\":[\"node2.example.com\",\"node1.example.com\"]}\n";

/// A scratch folder with a request (a copy of a sample, as Ganeti's
/// temporary file), an empty settings file and a reference stub.
struct Lab {
    dir: PathBuf,
    request: String,
    config: String,
    stub: String,
    records: PathBuf,
}

impl Lab {
    fn new(name: &str) -> Lab {
        let dir = crate::run::scratch(&format!("shadow-{name}"));
        let request = dir.join("ganeti-iallocator.req");
        std::fs::copy(sample("allocate-drbd.json"), &request).unwrap();
        let config = dir.join("empty.conf");
        std::fs::write(&config, "").unwrap();
        let stub = script(
            &dir,
            "stub-reference",
            &format!(
                "echo 'stub stderr' >&2\nprintf '%s\\n' '{}'",
                STUB_ANSWER.trim_end()
            ),
        );
        Lab {
            records: dir.join("records"),
            request: request.to_string_lossy().into_owned(),
            config: format!("--config={}", config.display()),
            stub,
            dir,
        }
    }

    /// Runs the shadow as Ganeti does (request first), with `options`;
    /// the output and how long the call took.
    fn call(&self, options: &[&str]) -> (Output, Duration) {
        let start = Instant::now();
        let out = Command::new(SHADOW)
            .arg(&self.request)
            .arg(&self.config)
            .arg(format!("--record-dir={}", self.records.display()))
            .args(options)
            .stdin(Stdio::null())
            .output()
            .expect("hailstone-shadow runs");
        (out, start.elapsed())
    }

    /// Waits (up to 20 s) for `n` records; returns them.
    fn records(&self, n: usize) -> Vec<PathBuf> {
        records_in(&self.records, n)
    }
}

fn records_in(dir: &Path, n: usize) -> Vec<PathBuf> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let found = hailstone::program::shadow::record::list(dir).unwrap_or_default();
        if found.len() >= n || Instant::now() > deadline {
            return found;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn meta(record: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(record.join("record.json")).unwrap()).unwrap()
}

/// The answer is the stub reference's, with its status, quickly.
fn assert_reference_answer(what: &str, out: &Output, took: Duration) {
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        STUB_ANSWER,
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "{what}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "stub stderr\n",
        "{what}"
    );
    // The shadow's own limit is longer: a call that waited for it would
    // take longer than this.
    assert!(
        took < Duration::from_secs(3),
        "{what}: the call took {took:?}"
    );
}

#[test]
fn ganeti_gets_the_reference_answer_whatever_the_shadow_does() {
    let lab = Lab::new("faults");
    let cases = [
        ("crashes", "kill -SEGV $$", "killed by signal 11"),
        (
            "hangs past its limit",
            "exec sleep 60",
            "stopped at the time limit",
        ),
        (
            "prints garbage",
            "echo garbage",
            "hailstone's answer is not JSON",
        ),
        (
            "is killed with SIGKILL",
            "kill -KILL $$",
            "killed by signal 9",
        ),
    ];
    for (n, (what, body, verdict)) in cases.iter().enumerate() {
        let bad = script(&lab.dir, &format!("bad-{n}"), body);
        let (out, took) = lab.call(&[
            &format!("--reference={}", lab.stub),
            &format!("--hailstone={bad}"),
            "--shadow-timeout=4",
        ]);
        assert_reference_answer(what, &out, took);
        let records = lab.records(n + 1);
        assert_eq!(records.len(), n + 1, "{what}: not recorded");
        let m = meta(records.last().unwrap());
        assert_eq!(m["verdict"], "different", "{what}");
        let words = m["difference"].as_str().unwrap();
        assert!(words.contains(verdict), "{what}: {words}");
    }
    // The recorder itself killed with SIGKILL (by the shadow, its child):
    // the answer is the same and nothing half-written is left.
    let killer = script(&lab.dir, "kill-recorder", "kill -KILL $PPID; sleep 1");
    let (out, took) = lab.call(&[
        &format!("--reference={}", lab.stub),
        &format!("--hailstone={killer}"),
    ]);
    assert_reference_answer("the recorder is killed with SIGKILL", &out, took);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(lab.records(0).len(), cases.len());
    let _ = std::fs::remove_dir_all(&lab.dir);
}

#[test]
fn a_record_folder_that_cannot_be_written_changes_nothing() {
    let lab = Lab::new("unwritable");
    // A folder under a file: it can never be made, even by root.
    let file = lab.dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    let (out, took) = Command::new(SHADOW)
        .arg(&lab.request)
        .arg(&lab.config)
        .arg(format!("--record-dir={}", file.join("records").display()))
        .arg(format!("--reference={}", lab.stub))
        .output()
        .map(|o| (o, Duration::ZERO))
        .unwrap();
    assert_reference_answer("unwritable record folder", &out, took);
    // A read-only folder (root writes anywhere else).
    let readonly = lab.dir.join("readonly");
    std::fs::create_dir(&readonly).unwrap();
    let mounted = Command::new("mount")
        .args(["--bind", "-o", "ro"])
        .arg(&readonly)
        .arg(&readonly)
        .status()
        .is_ok_and(|s| s.success());
    if mounted {
        let _ = Command::new("mount")
            .args(["-o", "remount,bind,ro"])
            .arg(&readonly)
            .status();
        let (out, took) = Command::new(SHADOW)
            .arg(&lab.request)
            .arg(&lab.config)
            .arg(format!(
                "--record-dir={}",
                readonly.join("records").display()
            ))
            .arg(format!("--reference={}", lab.stub))
            .output()
            .map(|o| (o, Duration::ZERO))
            .unwrap();
        assert_reference_answer("read-only record folder", &out, took);
        std::thread::sleep(Duration::from_millis(500));
        let _ = Command::new("umount").arg(&readonly).status();
    } else {
        println!("a read-only bind mount is not permitted here: that case is not run");
    }
    let _ = std::fs::remove_dir_all(&lab.dir);
}

#[test]
fn a_full_record_folder_changes_nothing() {
    let lab = Lab::new("full");
    let mount = lab.dir.join("tiny");
    std::fs::create_dir(&mount).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
        .arg(&mount)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        println!("mounting a tmpfs is not permitted here: the full record folder case is not run");
        return;
    }
    // Fill it up.
    let mut filler = std::fs::File::create(mount.join("filler")).unwrap();
    let block = vec![b'x'; 4096];
    while std::io::Write::write_all(&mut filler, &block).is_ok() {}
    drop(filler);
    let records = mount.join("records");
    let (out, took) = {
        let start = Instant::now();
        let o = Command::new(SHADOW)
            .arg(&lab.request)
            .arg(&lab.config)
            .arg(format!("--record-dir={}", records.display()))
            .arg(format!("--reference={}", lab.stub))
            .output()
            .unwrap();
        (o, start.elapsed())
    };
    assert_reference_answer("a full record folder", &out, took);
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        records_in(&records, 0).is_empty(),
        "nothing recorded on a full disk"
    );
    let _ = Command::new("umount").arg(&mount).status();
    let _ = std::fs::remove_dir_all(&lab.dir);
}

#[test]
fn a_reference_that_differs_is_reported_with_its_reproduction() {
    let lab = Lab::new("differs");
    let (out, took) = lab.call(&[
        &format!("--reference={}", lab.stub),
        "--no-capacity-checks=yes",
    ]);
    assert_reference_answer("a stub reference", &out, took);
    let records = lab.records(1);
    assert_eq!(records.len(), 1);
    let r = &records[0];
    let m = meta(r);
    assert_eq!(m["verdict"], "different");
    assert_eq!(m["path"], "info");
    assert_eq!(m["type"], "allocate");
    assert_eq!(
        m["reference"]["options"],
        serde_json::json!(["--no-capacity-checks=yes"])
    );
    assert!(
        r.join("explain.txt").is_file(),
        "hailstone's explanation is kept"
    );
    let mode = |p: &Path| {
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(p).unwrap().permissions())
            & 0o777
    };
    assert_eq!(mode(r), 0o700);
    assert_eq!(mode(&r.join("request.json.gz")), 0o600);
    assert_eq!(
        hailstone::program::shadow::record::read(&r.join("request.json.gz")).unwrap(),
        std::fs::read(&lab.request).unwrap()
    );
    let report = Command::new(SHADOW)
        .args(["report"])
        .arg(&lab.records)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&report.stdout);
    assert_eq!(report.status.code(), Some(3), "{text}");
    let zcat = format!("zcat {}/request.json.gz > /tmp/r.json", r.display());
    for line in [
        zcat.as_str(),
        &format!("{HAILSTONE} /tmp/r.json --no-capacity-checks=yes"),
        &format!("{} /tmp/r.json --no-capacity-checks=yes", lab.stub),
        "Ganeti's checks: the reference's answer accepted (on node2.example.com, node1.example.com); hailstone's answer accepted",
    ] {
        assert!(text.contains(line), "{line}:\n{text}");
    }
    let json = Command::new(SHADOW)
        .args(["report", "--json"])
        .arg(&lab.records)
        .output()
        .unwrap();
    assert_eq!(json.status.code(), Some(3));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(doc["allocator"]["runs"], 1);
    assert_eq!(doc["allocator"]["identical"], 0);
    assert_eq!(doc["allocator"]["differences"][0]["path"], "info");
    assert_eq!(doc["allocator"]["differences"][0]["reproduce"][0], zcat);
    // The reproduction gives the recorded answers.
    let copy = lab.dir.join("r.json");
    std::fs::write(
        &copy,
        hailstone::program::shadow::record::read(&r.join("request.json.gz")).unwrap(),
    )
    .unwrap();
    let again = Command::new(HAILSTONE)
        .arg(&copy)
        .arg("--no-capacity-checks=yes")
        .output()
        .unwrap();
    assert_eq!(
        again.stdout,
        std::fs::read(r.join("hailstone.out")).unwrap()
    );
    let _ = std::fs::remove_dir_all(&lab.dir);
}

#[test]
fn the_real_hail_and_hailstone_agree_and_report_exits_0() {
    if !Path::new(HAIL).exists() {
        println!("{HAIL} is not installed: the case with the real hail is not run");
        return;
    }
    let lab = Lab::new("hail");
    let direct = Command::new(HAIL).arg(&lab.request).output().unwrap();
    let (out, _) = lab.call(&[]);
    assert_eq!(out.stdout, direct.stdout);
    assert_eq!(out.status.code(), direct.status.code());
    let records = lab.records(1);
    assert_eq!(meta(&records[0])["verdict"], "identical");
    let report = Command::new(SHADOW)
        .arg("report")
        .arg(&lab.records)
        .output()
        .unwrap();
    assert_eq!(
        report.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&report.stdout)
    );
    assert!(String::from_utf8_lossy(&report.stdout).contains("\nNo difference.\n"));
    let _ = std::fs::remove_dir_all(&lab.dir);
}

#[test]
fn primary_hailstone_hands_ganeti_hailstones_answer() {
    let lab = Lab::new("primary");
    let direct = Command::new(HAILSTONE).arg(&lab.request).output().unwrap();
    let (out, _) = lab.call(&[&format!("--reference={}", lab.stub), "--primary=hailstone"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&direct.stdout)
    );
    assert_eq!(out.status.code(), Some(0));
    let records = lab.records(1);
    let m = meta(&records[0]);
    assert_eq!(m["primary"], "hailstone");
    assert_eq!(m["verdict"], "different");
    assert_eq!(
        std::fs::read(records[0].join("reference.out")).unwrap(),
        STUB_ANSWER.as_bytes()
    );
    assert_eq!(
        std::fs::read_to_string(records[0].join("reference.err")).unwrap(),
        "stub stderr\n"
    );
    let _ = std::fs::remove_dir_all(&lab.dir);
}

#[test]
fn the_reference_status_is_handed_on_and_a_missing_one_fails() {
    let lab = Lab::new("status");
    let failing = script(&lab.dir, "failing", "echo boom >&2; exit 3");
    let (out, _) = lab.call(&[&format!("--reference={failing}")]);
    assert_eq!(out.status.code(), Some(3));
    assert!(out.stdout.is_empty());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "boom\n");
    let (out, _) = lab.call(&["--reference=/nonexistent-hailstone/hail"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with(
            "hailstone-shadow: cannot run the reference allocator /nonexistent-hailstone/hail: "
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (out, _) = lab.call(&["--primary=hial"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean hail?"));
    let _ = std::fs::remove_dir_all(&lab.dir);
}

/// The report's checks and Ganeti's own (ganeti_validate.py) judge the
/// answers alike: the samples' answers by hailstone, and answers made
/// wrong on purpose.
#[test]
fn the_reports_checks_agree_with_ganetis_own() {
    let validate = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/tools/ganeti_validate.py");
    let ready = validate.exists()
        && Command::new("/usr/bin/python3")
            .args([
                "-c",
                "import sys; sys.path.insert(0, '/usr/share/ganeti/3.0'); import ganeti, mock",
            ])
            .status()
            .is_ok_and(|s| s.success())
        && Path::new("/opt/ganeti-testsuite").exists();
    if !ready {
        println!(
            "Ganeti's Python code, python3-mock or the testsuite is missing (../shared/tools/install-ganeti-client.sh installs them): the comparison with ganeti_validate.py is not run"
        );
        return;
    }
    let dir = crate::run::scratch("shadow-validate");
    let mut compared = 0;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(sample(""))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    entries.sort();
    for (n, request) in entries.into_iter().enumerate() {
        let answer = Command::new(HAILSTONE).arg(&request).output().unwrap();
        if answer.status.code() != Some(0) {
            continue;
        }
        let text = String::from_utf8_lossy(&answer.stdout).into_owned();
        // The answer, and wrong ones: a node no one knows, one node more.
        // (Ganeti's checker takes a second a run: every fourth sample.)
        let mut answers = vec![text.clone()];
        if n % 4 == 0 {
            answers.push(text.replacen(".example.com\"", ".nowhere.example\"", 1));
            answers.push(text.replacen("\"result\":[", "\"result\":[\"node1.example.com\",", 1));
        }
        for (k, a) in answers.iter().enumerate() {
            let file = dir.join(format!("answer-{k}.json"));
            std::fs::write(&file, a).unwrap();
            let python = Command::new("/usr/bin/python3")
                .arg(&validate)
                .arg(&request)
                .arg(&file)
                .arg("-q")
                .output()
                .unwrap();
            let theirs = match python.status.code() {
                Some(0) => "accepted",
                Some(1) => "rejected",
                _ => continue,
            };
            let ours = hailstone::program::shadow::validate::check(
                &std::fs::read(&request).unwrap(),
                a.as_bytes(),
            );
            assert_eq!(
                ours.word(),
                theirs,
                "{} answer {k}: ours {ours:?}, Ganeti's {}",
                request.display(),
                String::from_utf8_lossy(&python.stdout)
            );
            compared += 1;
        }
    }
    assert!(compared >= 50, "only {compared} answers compared");
    println!("{compared} answers judged alike by the report and ganeti_validate.py");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `hailstone-htools enable --shadow` in a copy of a file system: hbal
/// and hcheck run the originals (the real ones, where installed) with
/// their output and status unchanged, and hailstone's runs are recorded.
#[test]
fn the_htools_in_the_shadow() {
    let hbal = Path::new("/usr/lib/ganeti/3.0/usr/bin/hbal");
    let hcheck = Path::new("/usr/lib/ganeti/3.0/usr/bin/hcheck");
    let have_divert = Command::new("dpkg-divert")
        .arg("--version")
        .output()
        .is_ok();
    if !(hbal.exists() && hcheck.exists() && have_divert) {
        println!("hbal, hcheck or dpkg-divert is missing: the htools' shadow is not tested");
        return;
    }
    let root = crate::run::scratch("shadow-htools");
    let bin = crate::htools::install_in(&root);
    let dpkg = root.join("var/lib/dpkg");
    for d in [
        &bin,
        &dpkg.join("info"),
        &dpkg.join("updates"),
        &root.join("etc/ganeti"),
    ] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(dpkg.join("diversions"), "").unwrap();
    std::fs::write(dpkg.join("status"), "").unwrap();
    std::os::unix::fs::symlink(hbal, bin.join("hbal")).unwrap();
    std::os::unix::fs::symlink(hcheck, bin.join("hcheck")).unwrap();
    let records = root.join("records");
    std::fs::write(
        root.join("etc/ganeti/hailstone-shadow.conf"),
        format!("record-dir={}\n", records.display()),
    )
    .unwrap();
    let htools = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_hailstone-htools"))
            .args(args)
            .arg(format!("--root={}", root.display()))
            .output()
            .unwrap()
    };
    let o = htools(&["enable", "--shadow"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let status = String::from_utf8_lossy(&htools(&["status"]).stdout).into_owned();
    assert!(
        status.contains("hbal: the original, hailstone-balance in the shadow\n"),
        "{status}"
    );
    assert!(status.contains("harep: not installed\n"), "{status}");
    assert_eq!(htools(&["status", "--shadow"]).status.code(), Some(2));
    // An unbalanced group: hbal has moves to print.
    let data = root.join("cluster.data");
    std::fs::write(
        &data,
        format!(
            "g1|uuid-g1|preferred||\n\n\
             n1|16384|0|9216|100000|90000|8|N|uuid-g1|1\n\
             n2|16384|0|16384|100000|100000|8|N|uuid-g1|1\n\
             n3|16384|0|16384|100000|100000|8|N|uuid-g1|1\n\n\
             a|2048|1024|1|running|Y|n1||diskless||1\n\
             b|2048|1024|1|running|Y|n1||diskless||1\n\
             c|2048|1024|1|running|Y|n1||diskless||1\n\n\
             {}",
            crate::check::POLICY
        ),
    )
    .unwrap();
    let runs: [(&str, &Path, Vec<String>); 2] = [
        (
            "hbal",
            hbal,
            vec!["-t".into(), data.to_string_lossy().into(), "-C".into()],
        ),
        (
            "hcheck",
            hcheck,
            vec!["-t".into(), data.to_string_lossy().into()],
        ),
    ];
    for (n, (name, original, args)) in runs.iter().enumerate() {
        let direct = Command::new(original).args(args).output().unwrap();
        assert_eq!(
            std::fs::read_link(bin.join(name)).unwrap(),
            Path::new("/usr/lib/ganeti/iallocators/hailstone-shadow"),
            "{name}"
        );
        let wrapped = crate::htools::in_root(&root, name)
            .args(args)
            .output()
            .unwrap();
        assert_eq!(wrapped.status.code(), direct.status.code(), "{name}");
        assert_eq!(
            String::from_utf8_lossy(&wrapped.stdout),
            String::from_utf8_lossy(&direct.stdout),
            "{name}"
        );
        assert_eq!(
            String::from_utf8_lossy(&wrapped.stderr),
            String::from_utf8_lossy(&direct.stderr),
            "{name}: the note of the added -S is not passed on"
        );
        let found = records_in(&records, n + 1);
        assert_eq!(found.len(), n + 1, "{name}: not recorded");
        let m = meta(found.last().unwrap());
        assert_eq!(m["kind"], "planner");
        assert_eq!(m["program"], *name);
        assert_eq!(m["verdict"], "identical", "{name}: {m}");
    }
    let report = Command::new(SHADOW)
        .arg("report")
        .arg(&records)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&report.stdout);
    assert_eq!(report.status.code(), Some(0), "{text}");
    assert!(text.contains("htools runs: 2, 2 identical"), "{text}");
    let o = htools(&["disable"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(std::fs::read_link(bin.join("hbal")).unwrap(), hbal);
    let _ = std::fs::remove_dir_all(&root);
}

/// What `hailstone-shadow` adds to the time Ganeti waits for the
/// reference's answer, on a corpus (`HAILSTONE_SHADOW_CORPUS`: a folder
/// of `<id>.json` and `<id>.args`, as `hailstone-gen corpus` writes
/// them): each request answered by hail alone and through the shadow,
/// alternately, five times each, each call timed as Ganeti waits for it
/// (start to exit); the difference of the two medians per request, its
/// median and 99th percentile over the corpus. The recorder of each
/// shadow call is waited for before the next call, so that hailstone's
/// run in the shadow does not slow the next measurement.
/// `HAILSTONE_SHADOW_BIN` names the binary to measure (a release build).
/// Run with `--ignored`; docs/performance.md has the figures.
#[test]
#[ignore]
fn added_latency() {
    let Some(corpus) = std::env::var_os("HAILSTONE_SHADOW_CORPUS") else {
        println!("HAILSTONE_SHADOW_CORPUS is not set: nothing measured");
        return;
    };
    let shadow = std::env::var_os("HAILSTONE_SHADOW_BIN")
        .map_or_else(|| PathBuf::from(SHADOW), PathBuf::from);
    let dir = crate::run::scratch("shadow-latency");
    let records = dir.join("records");
    let mut requests: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    requests.sort();
    let time = |cmd: &mut Command| {
        let start = Instant::now();
        let out = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .output()
            .unwrap();
        (start.elapsed().as_secs_f64(), out)
    };
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        hailstone::program::shadow::report::median(&v).unwrap()
    };
    let (mut added, mut alone) = (Vec::new(), Vec::new());
    let mut recorded = 0;
    for request in &requests {
        let args: Vec<String> = std::fs::read_to_string(request.with_extension("args"))
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..5 {
            let (t, direct) = time(Command::new(HAIL).arg(request).args(&args));
            a.push(t);
            let (t, through) = time(
                Command::new(&shadow)
                    .arg(request)
                    .args(&args)
                    .arg("--config=/dev/null")
                    .arg(format!("--record-dir={}", records.display()))
                    .arg("--keep=0")
                    .arg("--keep-size=0"),
            );
            b.push(t);
            assert_eq!(through.stdout, direct.stdout, "{}", request.display());
            recorded += 1;
            records_in(&records, recorded);
        }
        let (a, b) = (median(a), median(b));
        alone.push(a);
        added.push(b - a);
    }
    added.sort_by(f64::total_cmp);
    alone.sort_by(f64::total_cmp);
    let report = &hailstone::program::shadow::report::percentile;
    println!(
        "{} requests: hail alone median {:.1} ms; added by hailstone-shadow: median {:.2} ms, 99th percentile {:.2} ms",
        requests.len(),
        1000.0 * median(alone.clone()),
        1000.0 * median(added.clone()),
        1000.0 * report(&added, 99.0).unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
