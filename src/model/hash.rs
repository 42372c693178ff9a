//! The hash of the maps that are only looked up, never iterated: eight
//! bytes at a time, multiplied and rotated (the scheme of rustc's own
//! `FxHasher`), far cheaper than the standard library's SipHash on short
//! keys (node names, the capacity counts' instance shapes). A map that is
//! never iterated cannot let the hash change an output; a key crafted to
//! collide costs time, not correctness, and comes from the cluster's own
//! master or the program's own search.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The hasher (see the module's doc).
#[derive(Default)]
pub struct FastHasher(u64);

/// A map under [`FastHasher`]: look it up, never iterate it.
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

impl FastHasher {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::SEED);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        let mut word = [0u8; 8];
        if let Some(w) = word.get_mut(..rest.len()) {
            w.copy_from_slice(rest);
        }
        self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

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
