//! Runs the `hailstone` binary the way Ganeti does.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// What one run printed.
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs hailstone with `args` (input first) and optional stdin bytes.
pub fn hailstone(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hailstone"));
    cmd.args(args)
        .env("LC_ALL", "C.UTF-8")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("hailstone starts");
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().expect("stdin is piped");
        // The child may stop reading early (e.g. a parse error); a broken
        // pipe here is then expected.
        let _ = pipe.write_all(bytes);
    }
    let out = child.wait_with_output().expect("hailstone finishes");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs hailstone on a request given as bytes on stdin (`-`).
pub fn on_stdin(request: &[u8], options: &[&str]) -> Output {
    let mut args = vec!["-"];
    args.extend_from_slice(options);
    hailstone(&args, Some(request))
}

/// The built executable of `program` (`hailstone`, `hailstone-balance`,
/// ...).
pub fn binary(program: &str) -> &'static str {
    match program {
        "hailstone" => env!("CARGO_BIN_EXE_hailstone"),
        "hailstone-balance" => env!("CARGO_BIN_EXE_hailstone-balance"),
        "hailstone-squeeze" => env!("CARGO_BIN_EXE_hailstone-squeeze"),
        "hailstone-groups" => env!("CARGO_BIN_EXE_hailstone-groups"),
        "hailstone-space" => env!("CARGO_BIN_EXE_hailstone-space"),
        "hailstone-check" => env!("CARGO_BIN_EXE_hailstone-check"),
        "hailstone-info" => env!("CARGO_BIN_EXE_hailstone-info"),
        "hailstone-scan" => env!("CARGO_BIN_EXE_hailstone-scan"),
        "hailstone-roll" => env!("CARGO_BIN_EXE_hailstone-roll"),
        "hailstone-repair" => env!("CARGO_BIN_EXE_hailstone-repair"),
        "hailstone-htools" => env!("CARGO_BIN_EXE_hailstone-htools"),
        "hailstone-shadow" => env!("CARGO_BIN_EXE_hailstone-shadow"),
        other => panic!("no program {other}"),
    }
}

/// A fresh folder for one test's files.
pub fn scratch(test: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("hailstone-test-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// Runs hailstone on a file.
pub fn on_file(path: &Path, options: &[String]) -> Output {
    let p = path.to_string_lossy().into_owned();
    let mut args: Vec<&str> = vec![&p];
    args.extend(options.iter().map(String::as_str));
    hailstone(&args, None)
}

/// Checks the contract of every run: exit 0 with exactly one answer line,
/// or non-zero with nothing on stdout and a message on stderr; never a
/// panic (Rust's panic exit code is 101).
pub fn assert_contract(out: &Output, what: &str) {
    assert_ne!(out.code, 101, "{what}: hailstone panicked: {}", out.stderr);
    assert!(
        !out.stderr.contains("panicked at"),
        "{what}: panic: {}",
        out.stderr
    );
    if out.code == 0 {
        assert!(out.stdout.ends_with('\n'), "{what}: answer without newline");
        assert_eq!(
            out.stdout.matches('\n').count(),
            1,
            "{what}: more than one line"
        );
        assert!(
            out.stdout.starts_with("{\"success\":"),
            "{what}: not an answer: {}",
            out.stdout
        );
    } else {
        assert!(
            out.stdout.is_empty(),
            "{what}: exit {} with output {}",
            out.code,
            out.stdout
        );
        assert!(
            !out.stderr.trim().is_empty(),
            "{what}: exit {} without a message",
            out.code
        );
    }
}
