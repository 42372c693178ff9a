//! Cases on disk, shared by the tools: a case is `NAME.json` (the request)
//! with an optional `NAME.args` beside it (the program's options, one per
//! line). Also the command lines the tools print so that a difference can
//! be rerun by hand, and the node-count ranges they take.

use std::path::Path;

use crate::generate::Case;

/// The file name (without extension) for a case id (`allocate/drbd/n37`
/// gives `allocate_drbd_n37`).
pub fn file_stem(id: &str) -> String {
    id.replace('/', "_")
}

/// Writes `DIR/<stem>.json` and `DIR/<stem>.args` for a generated case.
pub fn write_case(dir: &Path, case: &Case) -> Result<(), String> {
    let stem = file_stem(&case.id);
    let mut args = String::new();
    for o in &case.options {
        args.push_str(o);
        args.push('\n');
    }
    std::fs::write(dir.join(format!("{stem}.json")), case.request.as_bytes())
        .and_then(|()| std::fs::write(dir.join(format!("{stem}.args")), args))
        .map_err(|e| format!("cannot write case {} to {}: {e}", case.id, dir.display()))
}

/// The options in the `.args` file beside `json` (none when it is missing).
pub fn read_args(json: &Path) -> Result<Vec<String>, String> {
    let args = json.with_extension("args");
    match std::fs::read_to_string(&args) {
        Ok(s) => Ok(s
            .lines()
            .map(|l| l.trim_end_matches('\r').to_string())
            .filter(|l| !l.is_empty())
            .collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(format!("cannot read {}: {e}", args.display())),
    }
}

/// `s` quoted for a POSIX shell where it needs it.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=,:+@%".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The shell command that reruns `bin INPUT OPTIONS...` as the tools run
/// an iallocator.
pub fn command_line(bin: &Path, input: &Path, opts: &[String]) -> String {
    let mut parts = vec![
        shell_quote(&bin.display().to_string()),
        shell_quote(&input.display().to_string()),
    ];
    parts.extend(opts.iter().map(|o| shell_quote(o)));
    format!("(cd / && LC_ALL=C.UTF-8 {} </dev/null)", parts.join(" "))
}

/// Reads a node count `N` or a range `MIN-MAX` (both at least 1).
pub fn parse_range(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("invalid node count '{s}' (expected N or MIN-MAX)");
    let (a, b) = s.split_once('-').unwrap_or((s, s));
    let a: usize = a.trim().parse().map_err(|_| bad())?;
    let b: usize = b.trim().parse().map_err(|_| bad())?;
    if a == 0 || b < a {
        return Err(bad());
    }
    Ok((a, b))
}

/// The first `n` characters of some output, lossily decoded, on one line
/// (newlines written `\n`), with `...` when cut.
pub fn head(bytes: &[u8], n: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let out: String = text
        .chars()
        .take(n)
        .collect::<String>()
        .replace('\n', "\\n");
    if text.chars().count() > n {
        format!("{out}...")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(parse_range("5"), Ok((5, 5)));
        assert_eq!(parse_range("2-40"), Ok((2, 40)));
        assert!(parse_range("0").is_err());
        assert!(parse_range("9-3").is_err());
        assert!(parse_range("x").is_err());
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("a-b/c.json"), "a-b/c.json");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }
}
