//! The hash of the maps that are only looked up, never iterated:
//! rustc-hash's `FxHasher` (eight bytes at a time, multiplied and rotated),
//! far cheaper than the standard library's SipHash on short keys (node
//! names, the capacity counts' instance shapes). A map that is never
//! iterated cannot let the hash change an output; a key crafted to collide
//! costs time, not correctness, and comes from the cluster's own master or
//! the program's own search. `make bench-deps` measures it against SipHash
//! (docs/performance.md, "Hand-written dependencies").

use std::collections::HashMap;

/// A map under rustc-hash's `FxHasher`: look it up, never iterate it.
pub type FastMap<K, V> = HashMap<K, V, rustc_hash::FxBuildHasher>;

#[cfg(test)]
mod tests {
    use super::FastMap;

    #[test]
    fn keys_of_every_kind_are_found_and_told_apart() {
        let mut m: FastMap<(i64, Box<str>, bool), usize> = FastMap::default();
        for i in 0..1000i64 {
            m.insert((i, format!("node{i}").into(), i % 2 == 0), i as usize);
        }
        assert_eq!(m.len(), 1000);
        assert_eq!(m.get(&(7, "node7".into(), false)), Some(&7));
        assert_eq!(m.get(&(7, "node7".into(), true)), None);
        assert_eq!(m.get(&(-7, "node7".into(), false)), None);
    }
}
