//! Where Ganeti's data files (`test/data/htools` of the `ganeti-testsuite`
//! package) are: `HAILSTONE_GANETI_DATA` (that folder), else an unpacked
//! package under `target/ganeti-testsuite/VERSION/`, else, with
//! `HAILSTONE_TESTSUITE_FETCH=1` (`make test` sets it), the package
//! downloaded there now. Without them the tests check the generated corpus
//! only and say so on stderr, loudly; with the fetch asked for, a failed
//! fetch fails the tests.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The data folder inside an unpacked package's test tree.
const DATA: &str = "data/htools";
/// The test tree inside an unpacked package.
const TREE: &str = "usr/share/ganeti/testsuite/test";

fn cache() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ganeti-testsuite")
}

fn find() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("HAILSTONE_GANETI_DATA") {
        let dir = PathBuf::from(dir);
        assert!(
            dir.is_dir(),
            "HAILSTONE_GANETI_DATA={} is not a folder",
            dir.display()
        );
        return Some(dir);
    }
    let mut unpacked: Vec<PathBuf> = std::fs::read_dir(cache())
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join(TREE).join(DATA))
        .filter(|p| p.is_dir())
        .collect();
    unpacked.sort();
    if let Some(dir) = unpacked.pop() {
        return Some(dir);
    }
    if std::env::var("HAILSTONE_TESTSUITE_FETCH").as_deref() == Ok("1") {
        let tree = hailstone_devtools::compat::ganeti_testsuite(&cache())
            .unwrap_or_else(|e| panic!("HAILSTONE_TESTSUITE_FETCH=1: {e}"));
        let dir = tree.join(DATA);
        assert!(dir.is_dir(), "{} has no {DATA}", tree.display());
        return Some(dir);
    }
    None
}

/// Ganeti's data folder, if it is found (or fetched); the first call
/// fetches it when asked to, the others reuse the answer.
pub fn data_dir() -> Option<PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    let dir = DIR.get_or_init(find).clone();
    if dir.is_none() {
        eprintln!(
            "\n*** figures: Ganeti's data files are NOT checked: no HAILSTONE_GANETI_DATA, \
             no unpacked ganeti-testsuite under {}, and HAILSTONE_TESTSUITE_FETCH is not 1 \
             (`make test` fetches them). Only the generated corpus was checked. ***\n",
            cache().display()
        );
    }
    dir
}
