//! The request's bytes for the `hailstone` binary: the file Ganeti wrote,
//! mapped rather than copied when it can be, or stdin for `-`.
//!
//! A regular file is mapped (read-only, private, populated at once:
//! `memmap2`'s `populate`, the kernel's `MAP_POPULATE`): the request is
//! read once, by the parser, straight from the page cache, and its pages
//! need neither a copy nor a fresh zeroed page each, nor a fault each.
//! Anything else (stdin, a pipe, a file that reports no size, a map that
//! fails) is read as `std::fs::read` reads it, with the same messages. The
//! bytes live until the process exits (the caller never frees the
//! request).

use std::ffi::OsStr;
use std::fs::File;
use std::io::Read;

use memmap2::{Mmap, MmapOptions};

/// Reads the whole input: a file path, or `-` for stdin. The error is the
/// message the binary prints after `hailstone: error: `.
pub fn read_request(input: &OsStr) -> Result<&'static [u8], String> {
    if input == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut buf)
            .map_err(|e| format!("cannot read the request from stdin: {e}"))?;
        Ok(buf.leak())
    } else {
        let message = |e: std::io::Error| {
            format!(
                "cannot read the request file {:?}: {e}",
                input.to_string_lossy()
            )
        };
        // `std::fs::read` opens the file the same way: its errors, and so
        // the messages, are the same.
        let mut file = File::open(input).map_err(message)?;
        if let Some(bytes) = map_file(&file) {
            return Ok(bytes);
        }
        let mut buf = Vec::new();
        file.read_to_end(&mut buf).map_err(message)?;
        Ok(buf.leak())
    }
}

/// The contents of `file`, mapped read-only and populated (its pages
/// mapped from the page cache at once, not one fault at a time), when it
/// is a regular file of known, non-zero size; `None` when it is not, or
/// when the map fails. The map is never unmapped: it lives until exit.
///
/// A file truncated by another process while it is mapped would end the
/// process (SIGBUS); Ganeti writes the request to a file of its own before
/// running the allocator and does not touch it again.
fn map_file(file: &File) -> Option<&'static [u8]> {
    let meta = file.metadata().ok()?;
    let len = usize::try_from(meta.len()).ok()?;
    if !meta.is_file() || len == 0 {
        return None;
    }
    // SAFETY: a private, read-only map of an open regular file of `len`
    // bytes (memmap2 asks for no address, so no other memory is touched,
    // and checks the result). Mapped memory is only sound while the file
    // is not changed under it: Ganeti writes the request file before
    // running the allocator and never touches it again (a truncation
    // would raise SIGBUS, not give wrong bytes). The map is leaked below,
    // so the slice stays valid for the process's life.
    let map: Mmap = unsafe {
        MmapOptions::new()
            .len(len)
            .populate()
            .map_copy_read_only(file)
    }
    .ok()?;
    let map: &'static Mmap = Box::leak(Box::new(map));
    Some(&map[..])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mapped file gives its bytes; an empty file and a directory are
    /// not mapped. (Miri cannot map files: the `unsafe` map is checked
    /// by these tests in the normal test run only.)
    #[test]
    #[cfg_attr(miri, ignore)]
    fn a_regular_file_is_mapped_with_its_bytes() {
        let dir = std::env::temp_dir().join(format!("hailstone-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("request.json");
        let bytes: Vec<u8> = (0..70_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(map_file(&File::open(&path).unwrap()), Some(&bytes[..]));
        assert_eq!(read_request(path.as_os_str()).unwrap(), &bytes[..]);
        let empty = dir.join("empty.json");
        std::fs::write(&empty, b"").unwrap();
        assert_eq!(map_file(&File::open(&empty).unwrap()), None);
        assert_eq!(read_request(empty.as_os_str()).unwrap(), b"");
        assert_eq!(map_file(&File::open(&dir).unwrap()), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
