//! Fetching a cluster's RAPI resources for the planners' `-m ADDRESS`, as
//! hbal's RAPI backend does (`Backend/Rapi.hs` `readData`).
//!
//! * `file://DIR` reads `DIR/groups.json`, `nodes.json`, `instances.json`
//!   and `info.json` (the files `hscan`-style captures keep).
//! * Any other address is the master's: without a `:` it becomes
//!   `https://ADDRESS:5080` (`formatHost`), otherwise it is used as given
//!   (`https://user:password@host:5080`, `http://host:port`), and the four
//!   resources are fetched with GETs below it.
//!
//! HTTPS is done by the system `curl` program as a child process, not by
//! a TLS library linked into hailstone: hbal uses libcurl with the same
//! settings (no certificate verification, connect timeout 15 s, 60 s in
//! all, an HTTP error status is an error). The URL goes to curl in a
//! config read from its standard input (`curl -q -K -`), never on its
//! command line, so a password in the address does not show in the process
//! list; messages name URLs without it ([`redacted`]). This is I/O, so it
//! lives in the shell; the bodies are read by `read::live::rapi`.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

use crate::read::live::rapi::RESOURCES;
use crate::shell::luxi::MAX_REPLY;

/// RAPI's port (`defaultRapiPort`).
pub const DEFAULT_PORT: u16 = 5080;

/// The prefix of a directory of captured resources.
const FILE_PREFIX: &str = "file://";

/// One fetched resource: where it came from (URL without password, or
/// file) and its body.
pub struct Fetched {
    pub source: String,
    pub body: Vec<u8>,
}

/// hbal's `formatHost`: an address without `:` is a host name.
pub fn format_host(master: &str) -> String {
    if master.contains(':') {
        master.to_owned()
    } else {
        format!("https://{master}:{DEFAULT_PORT}")
    }
}

/// `url` without the password of its user part (`https://user@host/...`).
pub fn redacted(url: &str) -> String {
    let start = url.find("://").map_or(0, |i| i + 3);
    let rest = &url[start..];
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    match authority.rfind('@') {
        Some(at) => {
            let user_info = &authority[..at];
            let user = user_info.split(':').next().unwrap_or("");
            format!("{}{user}{}", &url[..start], &rest[at..])
        }
        None => url.to_owned(),
    }
}

/// The four resources of `address`, in `RESOURCES`' order; stops at the
/// first that cannot be had.
///
/// # Errors
///
/// The message for the failing resource: a file's `openFile` error, or
/// the URL (without password) and why curl failed.
pub fn fetch(address: &str) -> Result<Vec<Fetched>, String> {
    let mut out = Vec::with_capacity(RESOURCES.len());
    if let Some(dir) = address.strip_prefix(FILE_PREFIX) {
        for (_, _, file) in RESOURCES {
            let path = std::path::Path::new(dir).join(file);
            let source = path.to_string_lossy().into_owned();
            let body =
                std::fs::read(&path).map_err(|e| crate::shell::exit::open_error(&source, &e))?;
            out.push(Fetched { source, body });
        }
        return Ok(out);
    }
    let base = format_host(address);
    for (name, path, _) in RESOURCES {
        let url = format!("{base}{path}");
        let source = format!("RAPI resource {name} ({})", redacted(&url));
        let body = curl_get(&url).map_err(|m| format!("{source}: {m}"))?;
        out.push(Fetched { source, body });
    }
    Ok(out)
}

/// A string in curl's config syntax (double-quoted, with escapes).
fn config_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// curl's config for one GET of `url` with hbal's libcurl options.
fn curl_config(url: &str) -> String {
    format!(
        "url = {}\ninsecure\nconnect-timeout = 15\nmax-time = 60\nfail\nsilent\nshow-error\n",
        config_string(url)
    )
}

/// The body of `url`, fetched by `curl`.
pub(crate) fn curl_get(url: &str) -> Result<Vec<u8>, String> {
    let mut child = Command::new("curl")
        .args(["-q", "-K", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                "cannot run curl: it is not installed (RAPI over HTTP(S) needs the curl \
                 program; a file:// address does not)"
                    .to_owned()
            } else {
                format!("cannot run curl: {e}")
            }
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        // A curl that exits at once closes the pipe: its status tells why.
        let _ = stdin.write_all(curl_config(url).as_bytes());
    }
    // The body, read here up to the limit (curl would read on).
    let mut body = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        let limit = u64::try_from(MAX_REPLY)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        let read = stdout.take(limit).read_to_end(&mut body);
        if body.len() > MAX_REPLY {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "the reply is larger than {} MiB, the most hailstone reads",
                MAX_REPLY >> 20
            ));
        }
        read.map_err(|e| format!("cannot read curl's output: {e}"))?;
    }
    let output = child
        .wait_with_output()
        .map_err(|e| format!("curl did not finish: {e}"))?;
    if output.status.success() {
        return Ok(body);
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let said = stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let said = hide_password(said, url);
    let status = match output.status.code() {
        Some(28) => "timed out (exit status 28)".to_owned(),
        Some(code) => format!("exit status {code}"),
        None => "killed by a signal".to_owned(),
    };
    Err(if said.is_empty() {
        format!("curl failed ({status})")
    } else {
        format!("curl failed ({status}): {said}")
    })
}

/// `text` with the password of `url`, if any, replaced by `***`.
fn hide_password(text: &str, url: &str) -> String {
    let plain = redacted(url);
    if plain == url {
        return text.to_owned();
    }
    let start = url.find("://").map_or(0, |i| i + 3);
    let rest = &url[start..];
    let at = rest.find(['/', '?', '#']).map_or(rest.len(), |e| e);
    let user_info = rest[..at].rsplit_once('@').map_or("", |(u, _)| u);
    match user_info.split_once(':') {
        Some((_, password)) if !password.is_empty() => text.replace(password, "***"),
        _ => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_get_https_and_the_port_unless_they_have_a_colon() {
        assert_eq!(format_host("master"), "https://master:5080");
        assert_eq!(format_host("master:1234"), "master:1234");
        assert_eq!(
            format_host("https://u:p@master:5080"),
            "https://u:p@master:5080"
        );
    }

    #[test]
    fn passwords_are_left_out_of_urls_and_messages() {
        assert_eq!(
            redacted("https://admin:s3cret@master:5080/2/info"),
            "https://admin@master:5080/2/info"
        );
        assert_eq!(
            redacted("https://master:5080/2/info"),
            "https://master:5080/2/info"
        );
        assert_eq!(redacted("u:pw@host:1/x"), "u@host:1/x");
        assert_eq!(
            hide_password(
                "curl: (6) could not resolve s3cret",
                "https://a:s3cret@h:1/2/info"
            ),
            "curl: (6) could not resolve ***"
        );
    }

    #[test]
    fn the_config_quotes_the_url() {
        let c = curl_config("https://u:p\"w\\@h:1/2/info");
        assert!(c.starts_with("url = \"https://u:p\\\"w\\\\@h:1/2/info\"\n"));
        assert!(c.contains("\ninsecure\n") && c.contains("\nfail\n"));
        assert!(c.contains("connect-timeout = 15\n") && c.contains("max-time = 60\n"));
    }
}
