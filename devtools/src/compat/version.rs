//! Comparing with another Ganeti release's htools: `--originals DIR`
//! takes every original (hail, hbal, hspace, hsqueeze, hcheck, hinfo,
//! hroller, hscan) from DIR, and `--ganeti-version 3.1` runs each of our
//! programs with `--ganeti-version=3.1`, through a wrapper script in a
//! scratch folder that adds the option, so that every suite's command
//! lines stay as they are. Ganeti's test tree (`test/hs/shelltests`,
//! `test/data/htools`) is the same in 3.0.2 and 3.1.0, and no Debian
//! release packages 3.1.0's: the shelltests come from the testsuite
//! package of Debian's 3.0 htools.

use std::path::{Path, PathBuf};

use super::balance::testsuite;
use crate::oracle;
use crate::process;

/// Where `make oracle-3.1` installs Ganeti 3.1.0's htools.
pub(super) const ORACLE_3_1: &str = "/opt/ganeti-3.1.0/bin";

/// The test tree of Debian's 3.0 htools (their `ganeti-testsuite`), for
/// originals whose own version no Debian package has.
///
/// # Errors
///
/// The version of the 3.0 hbal cannot be read, or its testsuite cannot
/// be fetched.
pub(super) fn testsuite_of_debian_3_0(cache: &Path) -> Result<PathBuf, String> {
    let hbal = Path::new(super::balance::DEFAULT_HBAL);
    let version = testsuite::hbal_version(hbal)?;
    testsuite::ensure_testsuite(&oracle::absolute(cache), &version)
}

/// Replaces each of `ours` (our programs, as the suites' options name
/// them) by a script that runs it with `--ganeti-version=VERSION` first.
///
/// # Errors
///
/// The scratch folder or a script cannot be written.
pub(super) fn wrap_ours(ours: Vec<&mut PathBuf>, version: &str) -> Result<(), String> {
    let dir = process::temp_dir(&format!("hailstone-compat-ganeti-{version}"))?;
    for p in ours {
        let real = oracle::absolute(p);
        let name = real
            .file_name()
            .ok_or_else(|| format!("{} names no program", real.display()))?;
        let script = dir.join(name);
        let text = format!(
            "#!/bin/sh\nexec {} --ganeti-version={version} \"$@\"\n",
            shell_quote(&real.to_string_lossy())
        );
        write_executable(&script, &text)?;
        *p = script;
    }
    Ok(())
}

/// `text` as one single-quoted shell word.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

fn write_executable(path: &Path, text: &str) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("cannot make {} executable: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_keeps_a_path_one_word() {
        assert_eq!(shell_quote("/a b/c"), "'/a b/c'");
        assert_eq!(shell_quote("/it's"), "'/it'\\''s'");
    }

    #[test]
    fn wrappers_pass_the_version_first() {
        let mut echo = PathBuf::from("/bin/echo");
        let mut other = PathBuf::from("target/release/hailstone-balance");
        wrap_ours(vec![&mut echo, &mut other], "3.1").expect("wrappers written");
        let out = std::process::Command::new(&echo)
            .args(["-t", "x y"])
            .output()
            .expect("wrapper runs");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "--ganeti-version=3.1 -t x y\n"
        );
        let dir = echo.parent().expect("a folder").to_path_buf();
        assert!(other.starts_with(&dir));
        let _ = std::fs::remove_dir_all(dir);
    }
}
