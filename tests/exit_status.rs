//! The exit-status convention (`hailstone::program::ExitStatus`), program
//! by program: every status a program's manual lists, and the closed
//! output every program shares, is reached by a real run here, with what
//! the convention promises of the streams (a usage error's last line,
//! nothing on stdout where the program could not run, nothing at all on
//! a closed output). The table of `docs/json.md` is the convention's.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use hailstone::program::{ExitStatus, PROGRAMS};

use crate::run::{binary, scratch};
use crate::support::master::{fake_master, Queue};

/// A healthy group: two nodes, one small drbd instance.
fn healthy() -> String {
    format!(
        "g1|uuid-g1|preferred||\n\n\
         n1|16384|0|15360|100000|98976|8|N|uuid-g1|1\n\
         n2|16384|0|16384|100000|98976|8|N|uuid-g1|1\n\n\
         a|1024|1024|1|running|Y|n1|n2|drbd||1\n\n\
         {}",
        crate::check::POLICY
    )
}

/// An unhealthy group: its offline node n3 is the primary of `c`.
fn unhealthy() -> String {
    format!(
        "g1|uuid-g1|preferred||\n\n\
         n1|16384|0|16384|100000|98976|8|N|uuid-g1|1\n\
         n2|16384|0|16384|100000|100000|8|N|uuid-g1|1\n\
         n3|16384|0|15360|100000|98976|8|Y|uuid-g1|1\n\n\
         c|1024|1024|1|running|Y|n3|n1|drbd||1\n\n\
         {}",
        crate::check::POLICY
    )
}

/// One run and the status it must end with.
struct Case {
    program: &'static str,
    status: ExitStatus,
    args: Vec<String>,
}

/// The files the cases read, in one folder.
struct Files {
    dir: PathBuf,
    healthy: String,
    unhealthy: String,
    request: String,
    missing: String,
    rapi: String,
    /// hailstone-shadow's records: one difference.
    records: String,
}

impl Files {
    fn new(dir: &Path) -> Files {
        let write = |name: &str, text: &str| {
            let p = dir.join(name);
            std::fs::write(&p, text).unwrap();
            p.to_string_lossy().into_owned()
        };
        // One allocator call whose reference answers otherwise than
        // hailstone, recorded.
        let records = dir.join("shadow-records");
        let stub = dir.join("stub-reference");
        std::fs::write(&stub, "#!/bin/sh\necho '{}'\n").unwrap();
        std::fs::set_permissions(&stub, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let request = write("request.json", crate::hostile::VALID);
        let called = std::process::Command::new(binary("hailstone-shadow"))
            .arg(&request)
            .arg(format!("--reference={}", stub.display()))
            .arg(format!("--record-dir={}", records.display()))
            .arg("--config=/dev/null")
            .output()
            .unwrap();
        assert_eq!(called.stdout, b"{}\n");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while hailstone::program::shadow::record::list(&records).map_or(0, |r| r.len()) == 0
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Files {
            records: records.to_string_lossy().into_owned(),
            dir: dir.to_owned(),
            healthy: write("healthy.data", &healthy()),
            unhealthy: write("unhealthy.data", &unhealthy()),
            request,
            missing: dir.join("missing.data").to_string_lossy().into_owned(),
            rapi: format!(
                "file://{}",
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/live/lab.rapi")
                    .display()
            ),
        }
    }
}

/// Every case but `hailstone-repair`'s done (it needs a master, below).
fn cases(f: &Files) -> Vec<Case> {
    use ExitStatus::*;
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    let t = |file: &str| s(&["-t", file]);
    let out_dir = f.dir.join("scan-out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let d = out_dir.to_string_lossy().into_owned();
    let nowhere = format!("file://{}", f.dir.join("nowhere").display());
    let planners = [
        "hailstone-balance",
        "hailstone-squeeze",
        "hailstone-space",
        "hailstone-info",
    ];
    let mut cases = vec![
        Case {
            program: "hailstone",
            status: Done,
            args: s(&[&f.request]),
        },
        Case {
            program: "hailstone",
            status: Failed,
            args: s(&[&f.missing]),
        },
        Case {
            program: "hailstone",
            status: Usage,
            args: s(&["--bogus", &f.request]),
        },
        Case {
            program: "hailstone",
            status: Usage,
            args: s(&["--explain-format=xml", &f.request]),
        },
        Case {
            program: "hailstone-check",
            status: Done,
            args: [t(&f.healthy), s(&["--no-simulation"])].concat(),
        },
        // hcheck's status for a cluster that needs rebalancing, kept.
        Case {
            program: "hailstone-check",
            status: Failed,
            args: t(&f.unhealthy),
        },
        Case {
            program: "hailstone-check",
            status: Failed,
            args: t(&f.missing),
        },
        Case {
            program: "hailstone-check",
            status: Usage,
            args: s(&["--bogus"]),
        },
        Case {
            program: "hailstone-groups",
            status: Done,
            args: [s(&["check"]), t(&f.healthy)].concat(),
        },
        Case {
            program: "hailstone-groups",
            status: Failed,
            args: [s(&["check"]), t(&f.missing)].concat(),
        },
        Case {
            program: "hailstone-groups",
            status: Usage,
            args: [s(&["chek"]), t(&f.healthy)].concat(),
        },
        Case {
            program: "hailstone-groups",
            status: Usage,
            args: t(&f.healthy),
        },
        Case {
            program: "hailstone-groups",
            status: Usage,
            args: [s(&["check", "--evacuate"]), t(&f.healthy)].concat(),
        },
        Case {
            program: "hailstone-groups",
            status: Findings,
            args: [s(&["check"]), t(&f.unhealthy)].concat(),
        },
        Case {
            program: "hailstone-groups",
            status: Findings,
            args: [s(&["compress", "--evacuate"]), t(&f.healthy)].concat(),
        },
        Case {
            program: "hailstone-scan",
            status: Done,
            args: s(&["-d", &d, &f.rapi]),
        },
        Case {
            program: "hailstone-scan",
            status: Failed,
            args: [s(&["-d", &d]), s(&[&format!("-L{}", f.missing)])].concat(),
        },
        Case {
            program: "hailstone-scan",
            status: Usage,
            args: s(&["--bogus"]),
        },
        // hscan's status for a cluster that cannot be read, kept.
        Case {
            program: "hailstone-scan",
            status: Usage,
            args: s(&["-d", &d, &nowhere]),
        },
        Case {
            program: "hailstone-roll",
            status: Done,
            args: [s(&["-f"]), t(&f.healthy)].concat(),
        },
        Case {
            program: "hailstone-roll",
            status: Failed,
            args: t(&f.healthy),
        },
        Case {
            program: "hailstone-roll",
            status: Usage,
            args: [s(&["--priority=urgent"]), t(&f.healthy)].concat(),
        },
        Case {
            program: "hailstone-repair",
            status: Failed,
            args: s(&[&format!("-L{}", f.missing)]),
        },
        Case {
            program: "hailstone-repair",
            status: Usage,
            args: s(&["--bogus"]),
        },
        Case {
            program: "hailstone-htools",
            status: Done,
            args: s(&["status", &format!("--root={}", f.dir.display())]),
        },
        Case {
            program: "hailstone-htools",
            status: Failed,
            args: s(&[
                "enable",
                &format!("--root={}", f.dir.join("healthy.data").display()),
            ]),
        },
        Case {
            program: "hailstone-htools",
            status: Usage,
            args: s(&["enbale"]),
        },
        Case {
            program: "hailstone-shadow",
            status: Done,
            args: s(&["report", &d, "--config=/dev/null"]),
        },
        Case {
            program: "hailstone-shadow",
            status: Failed,
            args: s(&[
                &f.request,
                "--reference=/nonexistent-hailstone/hail",
                "--config=/dev/null",
            ]),
        },
        Case {
            program: "hailstone-shadow",
            status: Usage,
            args: s(&[&f.request, "--primary=hial", "--config=/dev/null"]),
        },
        Case {
            program: "hailstone-shadow",
            status: Findings,
            args: s(&["report", &f.records, "--config=/dev/null"]),
        },
    ];
    for p in planners {
        cases.push(Case {
            program: p,
            status: Done,
            args: t(&f.healthy),
        });
        cases.push(Case {
            program: p,
            status: Failed,
            args: t(&f.missing),
        });
        cases.push(Case {
            program: p,
            status: Usage,
            args: s(&["--bogus"]),
        });
    }
    cases
}

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(program: &str, args: &[String], closed_stdout: bool) -> Ran {
    let mut cmd = Command::new(binary(program));
    cmd.args(args).stdin(Stdio::null()).stderr(Stdio::piped());
    if closed_stdout {
        // A pipe whose reader is gone before the program writes.
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        cmd.stdout(writer);
        let out = cmd.output().expect("the program runs");
        return Ran {
            code: out.status.code(),
            stdout: String::new(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
    }
    cmd.stdout(Stdio::piped());
    let out = cmd.output().expect("the program runs");
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// What the convention promises of a run that ended with `status`.
fn check_streams(program: &str, status: ExitStatus, ran: &Ran, what: &str) {
    assert!(!ran.stderr.contains("panicked"), "{what}: {}", ran.stderr);
    match status {
        ExitStatus::Usage if !program.ends_with("scan") || ran.stdout.is_empty() => {
            assert!(
                ran.stderr.ends_with(&format!("see {program} --help\n")),
                "{what}: a usage error ends with 'see {program} --help': {}",
                ran.stderr
            );
            assert!(ran.stdout.is_empty(), "{what}: stdout {}", ran.stdout);
        }
        // hcheck's "needs rebalancing" and hscan's heading come with
        // their stdout.
        ExitStatus::Failed if !matches!(program, "hailstone-check" | "hailstone-scan") => {
            assert!(ran.stdout.is_empty(), "{what}: stdout {}", ran.stdout);
            assert!(!ran.stderr.is_empty(), "{what}: no message");
        }
        ExitStatus::Findings => {
            assert!(!ran.stdout.is_empty(), "{what}: findings without a report");
        }
        _ => {}
    }
}

#[test]
fn every_program_reaches_each_status_its_manual_lists() {
    let dir = scratch("exit-status");
    let files = Files::new(&dir);
    let cases = cases(&files);
    for c in &cases {
        let what = format!("{} {}", c.program, c.args.join(" "));
        let ran = run(c.program, &c.args, false);
        assert_eq!(
            ran.code,
            Some(i32::from(c.status.code())),
            "{what}: {}{}",
            ran.stdout,
            ran.stderr
        );
        check_streams(c.program, c.status, &ran, &what);
    }
    // hailstone-repair's done, against a fake master.
    let queue = Arc::new(Mutex::new(Queue {
        instant: true,
        ..Queue::default()
    }));
    let replies =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/live/repair.luxi"))
            .unwrap();
    let sock = fake_master(&dir, replies, queue);
    let ran = run(
        "hailstone-repair",
        &[format!("-L{sock}"), "--dry-run".to_owned()],
        false,
    );
    assert_eq!(
        ran.code,
        Some(0),
        "hailstone-repair --dry-run: {}",
        ran.stderr
    );
    // Every status a manual lists has its case, and nothing else is listed.
    for p in PROGRAMS {
        for (status, _) in p.manual.exit_status {
            let covered = cases
                .iter()
                .any(|c| c.program == p.name && c.status == *status)
                || (p.name == "hailstone-repair" && *status == ExitStatus::Done);
            assert!(covered, "{}: no case ends with {status:?}", p.name);
        }
        for c in cases.iter().filter(|c| c.program == p.name) {
            assert!(
                p.manual.exit_status.iter().any(|(s, _)| *s == c.status),
                "{}: ends with {:?}, which its manual does not list",
                p.name,
                c.status
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A closed standard output ends every program quietly: no message, the
/// documented status; for `--help` and for a real run's output (the
/// pipe's reader is gone before the program writes, as after `| head
/// -1` has read its line).
#[test]
fn a_closed_output_ends_quietly() {
    let dir = scratch("exit-status-pipe");
    let files = Files::new(&dir);
    let out_dir = dir.join("scan-out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let t = |file: &str| vec!["-t".to_owned(), file.to_owned()];
    let runs: Vec<(&str, Vec<String>)> = vec![
        ("hailstone", vec![files.request.clone()]),
        ("hailstone-balance", t(&files.healthy)),
        ("hailstone-squeeze", t(&files.healthy)),
        (
            "hailstone-groups",
            [vec!["check".to_owned()], t(&files.healthy)].concat(),
        ),
        ("hailstone-space", t(&files.healthy)),
        (
            "hailstone-check",
            [t(&files.healthy), vec!["--no-simulation".to_owned()]].concat(),
        ),
        ("hailstone-info", t(&files.healthy)),
        (
            "hailstone-scan",
            vec![
                "-d".to_owned(),
                out_dir.to_string_lossy().into_owned(),
                files.rapi.clone(),
            ],
        ),
        (
            "hailstone-roll",
            [vec!["-f".to_owned()], t(&files.healthy)].concat(),
        ),
        (
            "hailstone-htools",
            vec!["status".to_owned(), format!("--root={}", dir.display())],
        ),
    ];
    let helps = PROGRAMS.iter().map(|p| (p.name, vec!["--help".to_owned()]));
    for (program, args) in runs.into_iter().chain(helps) {
        let what = format!("{program} {} > closed pipe", args.join(" "));
        let ran = run(program, &args, true);
        assert_eq!(
            ran.code,
            Some(i32::from(ExitStatus::ClosedPipe.code())),
            "{what}: {}",
            ran.stderr
        );
        // Nothing is said of the closed output: stderr is what the run
        // says when its output is read (its warnings, if any).
        let read = run(program, &args, false);
        assert!(!read.stdout.is_empty(), "{what}: the run prints nothing");
        assert_eq!(ran.stderr, read.stderr, "{what}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `docs/json.md` carries the convention's table as the programs know it.
#[test]
fn the_documented_table_is_the_convention() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/json.md"))
        .unwrap();
    let table = hailstone::program::exit_status_table();
    assert!(
        doc.contains(&table),
        "docs/json.md must carry the exit-status table as the programs have it:\n{table}"
    );
}
