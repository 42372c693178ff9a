//! The record folder: one folder per run, written whole or not at all,
//! and its rotation.
//!
//! A record is made in a hidden `.tmp-*` folder and renamed into place
//! once every file is written, so a reader never sees half a record and a
//! recorder killed half-way leaves only a `.tmp-*` folder (removed by a
//! later rotation once it is an hour old). Its name starts with the time
//! in UTC to the nanosecond (`20261207T053218.123456789Z-allocate-inst1`),
//! so the names' order is the records' age. Folders are made with mode
//! 0700 and files with 0600: a request is the cluster's whole inventory,
//! for root alone. A file whose name ends in `.gz` is written
//! gzip-compressed ([`flate2`], its pure-Rust back end).
//!
//! [`rotate`] keeps the newest `keep` records and at most `keep_size`
//! bytes of them (0: no limit), removing the oldest first, never the
//! newest one.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::shell::clock;

/// The file of each record that says what it holds.
pub const META: &str = "record.json";

/// How old a `.tmp-*` folder must be before a rotation removes it.
const STALE: Duration = Duration::from_secs(3600);

/// Makes `dir` (and its parents) with mode 0700 when missing.
///
/// # Errors
///
/// It cannot be made.
pub fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// Writes `bytes` to a new file `path` with mode 0600, gzip-compressed
/// when its name ends in `.gz`.
///
/// # Errors
///
/// The file cannot be made or written.
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    let mut out = std::io::BufWriter::new(file);
    if path.extension().is_some_and(|e| e == "gz") {
        let mut gz = flate2::write::GzEncoder::new(out, flate2::Compression::default());
        gz.write_all(bytes)?;
        out = gz.finish()?;
    } else {
        out.write_all(bytes)?;
    }
    out.into_inner().map_err(|e| e.into_error())?.sync_all()
}

/// The bytes of `path`, decompressed when its name ends in `.gz`.
///
/// # Errors
///
/// It cannot be read or is not gzip.
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    let bytes = std::fs::read(path)?;
    if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut out)?;
        Ok(out)
    } else {
        Ok(bytes)
    }
}

/// A record being written: its hidden folder, renamed by [`Pending::commit`].
pub struct Pending {
    tmp: PathBuf,
    name: String,
    dir: PathBuf,
    done: bool,
}

impl Pending {
    /// Starts a record of `subject` (e.g. `allocate-inst1.example.com`)
    /// in `dir`, made when missing.
    ///
    /// # Errors
    ///
    /// The folders cannot be made.
    pub fn start(dir: &Path, subject: &str, now: SystemTime) -> std::io::Result<Pending> {
        make_private_dir(dir)?;
        let since = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default();
        let mut safe = crate::shell::explain_files::file_name_part(subject);
        safe.truncate(120);
        let name = format!(
            "{}.{:09}Z-{safe}",
            crate::shell::clock::utc_stamp(since.as_secs()),
            since.subsec_nanos()
        );
        let tmp = dir.join(format!(".tmp-{name}-{}", std::process::id()));
        std::fs::DirBuilder::new().mode(0o700).create(&tmp)?;
        Ok(Pending {
            tmp,
            name,
            dir: dir.to_owned(),
            done: false,
        })
    }

    /// The path of a file of the record while it is written.
    pub fn path(&self, file: &str) -> PathBuf {
        self.tmp.join(file)
    }

    /// Writes one file of the record.
    ///
    /// # Errors
    ///
    /// As [`write_private`].
    pub fn write(&self, file: &str, bytes: &[u8]) -> std::io::Result<()> {
        write_private(&self.path(file), bytes)
    }

    /// The folder the record will have once committed (unless another
    /// record of the same nanosecond took it).
    pub fn folder(&self) -> PathBuf {
        self.dir.join(&self.name)
    }

    /// Puts the record in place; returns its folder.
    ///
    /// # Errors
    ///
    /// The rename fails.
    pub fn commit(mut self) -> std::io::Result<PathBuf> {
        let mut target = self.dir.join(&self.name);
        // Two records of the same nanosecond: the second gets a suffix.
        if target.exists() {
            target = self
                .dir
                .join(format!("{}-{}", self.name, std::process::id()));
        }
        std::fs::rename(&self.tmp, &target)?;
        self.done = true;
        Ok(target)
    }
}

impl Drop for Pending {
    /// A record not committed leaves nothing behind.
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}

/// Whether `name` is a record's folder name.
pub fn is_record(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() > 27
        && b[..8].iter().all(u8::is_ascii_digit)
        && b[8] == b'T'
        && b[9..15].iter().all(u8::is_ascii_digit)
        && b[15] == b'.'
        && b[16..25].iter().all(u8::is_ascii_digit)
        && &b[25..27] == b"Z-"
}

/// The records of `dir`, oldest first.
///
/// # Errors
///
/// `dir` cannot be listed.
pub fn list(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut names: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| is_record(n))
        .collect();
    names.sort();
    Ok(names.into_iter().map(|n| dir.join(n)).collect())
}

/// The bytes of the files of a record.
fn size(record: &Path) -> u64 {
    std::fs::read_dir(record)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// Removes the oldest records of `dir` beyond the newest `keep` and
/// beyond `keep_size` bytes (each 0: no limit), never the newest, and
/// hidden folders of recorders that died an hour ago or more. Returns how
/// many records were removed. A record another recorder removed at the
/// same time is no error.
///
/// # Errors
///
/// `dir` cannot be listed or a record cannot be removed.
pub fn rotate(dir: &Path, keep: usize, keep_size: u64) -> std::io::Result<usize> {
    let records = list(dir)?;
    let sizes: Vec<u64> = records.iter().map(|r| size(r)).collect();
    let mut total: u64 = sizes.iter().sum();
    let mut count = records.len();
    let mut removed = 0;
    for (record, bytes) in records.iter().zip(&sizes) {
        let over_count = keep > 0 && count > keep;
        let over_size = keep_size > 0 && total > keep_size;
        if count <= 1 || !(over_count || over_size) {
            break;
        }
        match std::fs::remove_dir_all(record) {
            Ok(()) => removed += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        count -= 1;
        total -= bytes;
    }
    for entry in std::fs::read_dir(dir)?.filter_map(Result::ok) {
        let name = entry.file_name();
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| clock::age(t).is_some_and(|age| age >= STALE));
        if name.to_string_lossy().starts_with(".tmp-") && stale {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn scratch(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("hailstone-record-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_record_is_private_and_whole() {
        let dir = scratch("private").join("records");
        let at = SystemTime::UNIX_EPOCH + Duration::new(1_764_016_964, 5);
        let p = Pending::start(&dir, "allocate-inst 1", at).unwrap();
        p.write("request.json.gz", b"{\"request\":{}}").unwrap();
        p.write("a.out", b"x").unwrap();
        assert!(list(&dir).unwrap().is_empty(), "not there before commit");
        let r = p.commit().unwrap();
        assert_eq!(
            r.file_name().unwrap(),
            "20251124T204244.000000005Z-allocate-inst_1"
        );
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&r), 0o700);
        assert_eq!(mode(&r.join("a.out")), 0o600);
        assert_eq!(
            read(&r.join("request.json.gz")).unwrap(),
            b"{\"request\":{}}"
        );
        assert_ne!(
            std::fs::read(r.join("request.json.gz")).unwrap()[..2],
            b"{\""[..]
        );
        // A record dropped before its commit leaves nothing.
        let p = Pending::start(&dir, "x", at).unwrap();
        p.write("a", b"1").unwrap();
        drop(p);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(dir.parent().unwrap());
    }

    #[test]
    fn rotation_by_count_and_size_keeps_the_newest() {
        let dir = scratch("rotate");
        let mut made = Vec::new();
        for i in 0..5u64 {
            let at = SystemTime::UNIX_EPOCH + Duration::new(1_764_016_964 + i, 0);
            let p = Pending::start(&dir, &format!("r{i}"), at).unwrap();
            p.write("data", &vec![b'x'; 1000]).unwrap();
            made.push(p.commit().unwrap());
        }
        std::fs::create_dir(dir.join("not-a-record")).unwrap();
        assert_eq!(rotate(&dir, 3, 0).unwrap(), 2);
        assert_eq!(list(&dir).unwrap(), made[2..].to_vec());
        assert_eq!(rotate(&dir, 0, 2500).unwrap(), 1);
        assert_eq!(list(&dir).unwrap(), made[3..].to_vec());
        // The newest stays even when it alone is over the size.
        assert_eq!(rotate(&dir, 1, 10).unwrap(), 1);
        assert_eq!(list(&dir).unwrap(), made[4..].to_vec());
        assert!(dir.join("not-a-record").is_dir());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
