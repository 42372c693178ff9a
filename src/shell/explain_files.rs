//! Where `hailstone --explain=PATH` writes: a file, or a new file in a
//! directory (made when missing), and the rotation of a directory's old
//! explanations (`--explain-keep`).
//!
//! PATH names a directory when it is one, ends in `/`, or does not exist
//! and its last component has no `.` (`/var/log/ganeti/hailstone`: on a
//! master candidate's first run as master the directory is not there yet,
//! and one overwritten file would keep only the last explanation).
//! Anything else is a file, overwritten on each run.

use std::path::{Path, PathBuf};

use crate::explain::Format as ExplainFormat;
use crate::program::cli::ExplainTo;

/// Whether `path` names a directory (see the module doc).
pub fn names_directory(path: &str) -> bool {
    let p = Path::new(path);
    path.ends_with('/')
        || p.is_dir()
        || (!p.exists()
            && p.file_name()
                .is_some_and(|n| !n.to_string_lossy().contains('.')))
}

/// Where an explanation goes: `None` for stderr, else the file to write.
/// A directory gets a new file named by `now` (UTC, to the nanosecond),
/// the subject and the format.
pub fn explanation_path(
    to: &ExplainTo,
    subject: &str,
    format: ExplainFormat,
    now: std::time::SystemTime,
) -> Option<PathBuf> {
    let ExplainTo::Path(path) = to else {
        return None;
    };
    if !names_directory(path) {
        return Some(PathBuf::from(path));
    }
    let since = now
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let ext = match format {
        ExplainFormat::Text => "txt",
        ExplainFormat::Json => "json",
    };
    let safe = file_name_part(subject);
    Some(PathBuf::from(path).join(format!(
        "{}.{:09}Z-{safe}.{ext}",
        crate::shell::clock::utc_stamp(since.as_secs()),
        since.subsec_nanos()
    )))
}

/// Whether `name` is one of the files [`explanation_path`] makes
/// (`20251124T204244.000000001Z-SUBJECT.txt|json`).
fn is_explanation(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() > 27
        && b[..8].iter().all(u8::is_ascii_digit)
        && b[8] == b'T'
        && b[9..15].iter().all(u8::is_ascii_digit)
        && b[15] == b'.'
        && b[16..25].iter().all(u8::is_ascii_digit)
        && &b[25..27] == b"Z-"
        && (name.ends_with(".txt") || name.ends_with(".json"))
}

/// Removes the oldest explanations of directory `dir` beyond the newest
/// `keep` (0: keeps them all); other files are left alone. Returns how
/// many were removed.
///
/// # Errors
///
/// The directory cannot be listed or a file cannot be removed.
pub fn rotate(dir: &Path, keep: usize) -> std::io::Result<usize> {
    if keep == 0 {
        return Ok(0);
    }
    let mut names: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| is_explanation(n))
        .collect();
    // The names start with the time: their order is their age.
    names.sort();
    let old = names.len().saturating_sub(keep);
    for name in &names[..old] {
        std::fs::remove_file(dir.join(name))?;
    }
    Ok(old)
}

/// `text` as part of a file name: letters, digits, `-` and `.` kept,
/// every other character `_`.
pub(crate) fn file_name_part(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_and_files() {
        assert!(names_directory("/nonexistent-hailstone/explanations"));
        assert!(names_directory("/nonexistent-hailstone/e.txt/"));
        assert!(!names_directory("/nonexistent-hailstone/e.txt"));
        assert!(names_directory("/tmp"));
        let at = std::time::UNIX_EPOCH + std::time::Duration::new(1_764_016_964, 5);
        let to = ExplainTo::Path("/nonexistent-hailstone/log".to_owned());
        let path = explanation_path(&to, "allocate-web 1", ExplainFormat::Json, at).unwrap();
        assert_eq!(
            path,
            PathBuf::from(
                "/nonexistent-hailstone/log/20251124T204244.000000005Z-allocate-web_1.json"
            )
        );
        assert!(is_explanation(&path.file_name().unwrap().to_string_lossy()));
        assert!(!is_explanation("notes.txt"));
        assert_eq!(
            explanation_path(&ExplainTo::Stderr, "x", ExplainFormat::Text, at),
            None
        );
    }

    #[test]
    fn rotation_keeps_the_newest_and_other_files() {
        let dir = std::env::temp_dir().join(format!("hailstone-rotate-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let names = [
            "20251124T204244.000000003Z-a.txt",
            "20251124T204244.000000001Z-a.json",
            "20251125T000000.000000000Z-b.txt",
            "README",
        ];
        for n in names {
            std::fs::write(dir.join(n), "x").unwrap();
        }
        assert_eq!(rotate(&dir, 0).unwrap(), 0);
        assert_eq!(rotate(&dir, 2).unwrap(), 1);
        assert!(!dir.join(names[1]).exists());
        for n in [names[0], names[2], names[3]] {
            assert!(dir.join(n).exists(), "{n}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
