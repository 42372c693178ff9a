//! The README's commands run as it says. Every line of the README's
//! ```` ```sh ```` blocks is a command (a `\` at the end of a line goes on
//! with the next; a line that is only a comment is skipped), and its
//! trailing comment says how it is checked:
//!
//! * `# live cluster…` — needs a Ganeti master, and `# root…` — changes
//!   the system as root: not run; when it calls a hailstone program, that
//!   program must exist;
//! * `# exit N…` — run; it must end with exit status N;
//! * anything else — run; it must end with exit status 0.
//!
//! A command runs with `bash -o pipefail -c` in a scratch folder holding
//! the files the README's examples name: `cluster.data` (a cluster data
//! file as hscan saves it: `tests/live/varied.rapi.data`, two groups, an
//! offline node hosting instances) and `request.json` (a request as Ganeti
//! sends it: `protocol-samples/allocate-spindle-ratio.json`). The built
//! programs come first on `PATH`, and the package's allocator folder
//! `/usr/lib/ganeti/iallocators/` is read as the build folder. A `make
//! TARGET` command runs as `make -n TARGET` in the source tree (the target
//! exists and its recipe expands; running it builds for minutes, and `make
//! test` would run this test). The commands run one after the other in the
//! same folder, so that one may read what an earlier one wrote. No
//! command may panic.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the package installs the allocator and hailstone-shadow.
const ALLOCATOR_DIR: &str = "/usr/lib/ganeti/iallocators/";

/// How a README command is checked.
#[derive(Debug, PartialEq)]
enum Expect {
    /// Needs a live cluster: not run.
    LiveCluster,
    /// Needs root: not run.
    Root,
    /// `make TARGET`: run as `make -n TARGET`.
    Make,
    /// Run; this exit status.
    Exit(i32),
}

/// One command of a shell block.
#[derive(Debug)]
struct ReadmeCommand {
    /// The README's line (1-based) where the command starts.
    line: usize,
    /// The command, without its comment.
    text: String,
    expect: Expect,
}

/// The commands of `readme`'s ```` ```sh ```` blocks.
fn commands(readme: &str) -> Vec<ReadmeCommand> {
    let mut found = Vec::new();
    let mut in_sh = false;
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in readme.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_sh = !in_sh && trimmed == "```sh";
            continue;
        }
        if !in_sh || trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let (start, mut text) = pending.take().unwrap_or((i + 1, String::new()));
        if let Some(continued) = line.strip_suffix('\\') {
            text.push_str(continued);
            text.push(' ');
            pending = Some((start, text));
            continue;
        }
        text.push_str(line);
        let (command, comment) = match text.find(" #") {
            Some(at) => (text[..at].trim(), text[at + 2..].trim()),
            None => (text.trim(), ""),
        };
        let expect = if comment.starts_with("live cluster") {
            Expect::LiveCluster
        } else if comment.starts_with("root") {
            Expect::Root
        } else if let Some(status) = comment.strip_prefix("exit ") {
            let digits: String = status.chars().take_while(char::is_ascii_digit).collect();
            Expect::Exit(digits.parse().unwrap_or_else(|_| {
                panic!("README line {start}: `# exit` without a status: {comment}")
            }))
        } else if command.starts_with("make ") {
            Expect::Make
        } else {
            Expect::Exit(0)
        };
        found.push(ReadmeCommand {
            line: start,
            text: command.to_owned(),
            expect,
        });
    }
    found
}

/// The folder of the built programs.
fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_hailstone"))
        .parent()
        .expect("the programs' folder")
        .to_path_buf()
}

fn source(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// A scratch folder with the files the README's examples name.
fn example_folder(test: &str) -> PathBuf {
    let dir = crate::run::scratch(test);
    for (name, from) in [
        ("cluster.data", "tests/live/varied.rapi.data"),
        (
            "request.json",
            "protocol-samples/allocate-spindle-ratio.json",
        ),
    ] {
        std::fs::copy(source(from), dir.join(name)).expect("an example file");
    }
    dir
}

/// Checks every command of `readme`; returns what is wrong, one line each.
fn check(readme: &str, folder: &Path) -> Vec<String> {
    let bin = bin_dir();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut wrong = Vec::new();
    for c in commands(readme) {
        let text = c
            .text
            .replace(ALLOCATOR_DIR, &format!("{}/", bin.display()));
        let what = format!("README line {}: `{}`", c.line, c.text);
        let (mut command, expected) = match c.expect {
            Expect::LiveCluster | Expect::Root => {
                let program = text.split_whitespace().next().unwrap_or_default();
                let name = Path::new(program).file_name().unwrap_or_default();
                if name.to_string_lossy().starts_with("hailstone") && !bin.join(name).is_file() {
                    wrong.push(format!("{what}: no program {}", name.to_string_lossy()));
                }
                continue;
            }
            Expect::Make => {
                let mut make = Command::new("make");
                make.arg("-n")
                    .args(text.split_whitespace().skip(1))
                    .current_dir(env!("CARGO_MANIFEST_DIR"));
                (make, 0)
            }
            Expect::Exit(status) => {
                let mut shell = Command::new("bash");
                shell
                    .args(["-o", "pipefail", "-c", &text])
                    .current_dir(folder);
                (shell, status)
            }
        };
        let output = command
            .env("PATH", &path)
            .output()
            .expect("bash and make run");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let status = output.status.code().unwrap_or(-1);
        if status != expected {
            wrong.push(format!(
                "{what}: exit status {status}, the README says {expected}; stderr:\n{stderr}"
            ));
        } else if stderr.contains("panicked") {
            wrong.push(format!("{what}: panicked:\n{stderr}"));
        }
    }
    wrong
}

fn readme() -> String {
    std::fs::read_to_string(source("README.md")).expect("README.md")
}

#[test]
fn every_readme_command_runs_as_it_says() {
    let readme = readme();
    let all = commands(&readme);
    let run = all
        .iter()
        .filter(|c| matches!(c.expect, Expect::Exit(_)))
        .count();
    assert!(run >= 10, "only {run} README commands run: {all:#?}");
    let folder = example_folder("readme");
    let wrong = check(&readme, &folder);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let _ = std::fs::remove_dir_all(folder);
}

#[test]
fn the_set_up_commands_are_there() {
    // A fresh machine needs exactly these two.
    let readme = readme();
    let all = commands(&readme);
    for target in ["make run", "make test"] {
        assert!(
            all.iter()
                .any(|c| c.text == target && c.expect == Expect::Make),
            "README has no `{target}` in a shell block"
        );
    }
}

#[test]
fn a_broken_or_mislabelled_command_is_found() {
    let readme = "```sh\n\
        hailstone-balance -t cluster.data -G default --no-such-option\n\
        hailstone-groups check -t cluster.data\n\
        hailstone-check -t cluster.data    # exit 1\n\
        hailstone-nothing -L    # live cluster\n\
        gnt-cluster verify    # live cluster\n\
        ```\n\
        ```text\nnot a command\n```\n";
    let folder = example_folder("readme-broken");
    let wrong = check(readme, &folder);
    let _ = std::fs::remove_dir_all(folder);
    assert_eq!(wrong.len(), 3, "{wrong:#?}");
    assert!(wrong[0].contains("line 2") && wrong[0].contains("exit status 2"));
    assert!(wrong[1].contains("line 3") && wrong[1].contains("exit status 3"));
    assert!(wrong[2].contains("no program hailstone-nothing"));
}

#[test]
fn markers_and_continuations() {
    let parsed = commands(
        "```sh\n# a comment\nhailstone-info \\\n  -t cluster.data    # exit 0\n\
         make run    # builds\ndpkg -i x.deb    # root\n```\n    not in a block\n",
    );
    assert_eq!(parsed.len(), 3);
    assert_eq!((parsed[0].line, parsed[0].expect_exit()), (3, Some(0)));
    assert_eq!(parsed[0].text, "hailstone-info    -t cluster.data");
    assert_eq!(parsed[1].expect, Expect::Make);
    assert_eq!(parsed[2].expect, Expect::Root);
}

impl ReadmeCommand {
    fn expect_exit(&self) -> Option<i32> {
        match self.expect {
            Expect::Exit(s) => Some(s),
            _ => None,
        }
    }
}
