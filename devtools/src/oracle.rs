//! Finding (and installing) the real htools programs (hail, hbal, hspace,
//! hsqueeze, hcheck, hinfo), shared by the `hailstone-compat` and
//! `hailstone-bench` tools: path helpers and `--install-hail`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `p` made absolute against the current directory.
pub fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    }
}

/// Whether `p` is an executable file.
pub fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Makes sure hail is at `hail`; with `install`, installs Debian's
/// ganeti-htools when it is missing. `tool` names the caller in messages.
pub fn ensure_hail(hail: &Path, install: bool, tool: &str) -> Result<(), String> {
    ensure_program(hail, "hail", install, tool)
}

/// Makes sure the htools program `name` (hail, hbal, hspace, hsqueeze,
/// hcheck, hinfo) is at `path`; with `install`, installs Debian's
/// ganeti-htools, which has them all, when it is missing. `tool` names the
/// caller in messages.
pub fn ensure_program(path: &Path, name: &str, install: bool, tool: &str) -> Result<(), String> {
    if is_executable(path) {
        return Ok(());
    }
    let flag = match name {
        "hail" => "--hail",
        "hspace" => "--hspace",
        "hsqueeze" => "--hsqueeze",
        "hcheck" => "--hcheck",
        "hinfo" => "--hinfo",
        _ => "--hbal",
    };
    if !install {
        return Err(format!(
            "{name} not found at {} (install Debian's ganeti-htools package, pass {flag} PATH, or use --install-hail)",
            path.display()
        ));
    }
    eprintln!("{tool}: {name} missing; running apt-get update && apt-get install -y ganeti-htools");
    let st = Command::new("sh")
        .arg("-c")
        .arg("apt-get update && apt-get install -y ganeti-htools")
        .stdin(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run apt-get: {}", e))?;
    if !st.success() {
        return Err(format!(
            "installing ganeti-htools failed ({}); run as root, or install it by hand and pass {flag} PATH",
            st
        ));
    }
    if is_executable(path) {
        Ok(())
    } else {
        Err(format!(
            "ganeti-htools installed, but {} is still missing (pass {flag} PATH)",
            path.display()
        ))
    }
}
