//! Tests of JSON reading and writing, by topic: `accepted.rs` (documents,
//! strings, the byte scanners, writing, the tree and the tape),
//! `numbers.rs` (numbers and their two views), `refused.rs` (refused input,
//! error positions and messages, limits, random bytes). This file holds
//! what they share: parsing helpers that check the streaming parse agrees,
//! a small random generator and a sample request.

mod accepted;
mod numbers;
mod refused;

use super::*;

/// Parses text that must be valid.
fn ok(text: &str) -> Json<'_> {
    check_streaming(text.as_bytes());
    match parse(text.as_bytes()) {
        Ok(v) => v,
        Err(e) => panic!("{text:?} was refused: {e}"),
    }
}

/// Parses bytes that must be refused.
fn refused(bytes: &[u8]) -> ParseError {
    check_streaming(bytes);
    match parse(bytes) {
        Ok(v) => panic!("{:?} was accepted as {v:?}", String::from_utf8_lossy(bytes)),
        Err(e) => e,
    }
}

/// Parses a number literal.
fn number(text: &str) -> Number {
    match ok(text) {
        Json::Number(n) => n,
        other => panic!("{text:?} parsed as {other:?}"),
    }
}

/// Records what a streaming parse hands over: for each top-level member in
/// order, the members of its value if it was streamed.
struct Recorder {
    /// Which members to stream: all objects, or those whose key length has
    /// this parity.
    parity: Option<bool>,
    members: Vec<Option<Vec<String>>>,
    ended: usize,
}

impl Streamer for Recorder {
    fn wants(&mut self, so_far: &Document<'_>, key: &str, is_object: bool) -> bool {
        let complete = so_far.root().as_object().map(|o| o.len());
        assert_eq!(complete, Some(self.members.len()), "members so far");
        let want = self.parity.is_none_or(|p| key.len().is_multiple_of(2) == p);
        self.members.push((want && is_object).then(Vec::new));
        want
    }

    fn member(&mut self, key: &str, value: Value<'_>) {
        let last = self.members.last_mut().and_then(|m| m.as_mut());
        last.expect("a member of a streamed object")
            .push(format!("{key:?}: {:?}", value.to_tree()));
    }

    fn end(&mut self) {
        self.ended += 1;
    }
}

/// Checks that a streaming parse accepts and refuses what `parse` does,
/// with the same error, and that its document plus what it handed over is
/// the whole document.
fn check_streaming(bytes: &[u8]) {
    let whole = parse(bytes);
    for parity in [None, Some(true), Some(false)] {
        let mut rec = Recorder {
            parity,
            members: Vec::new(),
            ended: 0,
        };
        let streamed = parse_document_streaming(bytes, &mut rec).map(|d| d.to_tree());
        match (&whole, streamed) {
            (Err(a), Err(b)) => assert_eq!(*a, b, "{:?}", String::from_utf8_lossy(bytes)),
            (Ok(whole), Ok(main)) => {
                let streams = rec.members.iter().filter(|m| m.is_some()).count();
                assert_eq!(rec.ended, streams);
                match (whole, main) {
                    (Json::Object(all), Json::Object(kept)) => {
                        assert_eq!(all.len(), kept.len());
                        assert_eq!(all.len(), rec.members.len());
                        for (((k1, v1), (k2, v2)), rec) in all.iter().zip(&kept).zip(&rec.members) {
                            assert_eq!(k1, k2);
                            match rec {
                                None => assert_eq!(v1, v2),
                                Some(members) => {
                                    assert_eq!(*v2, Json::Object(Vec::new()));
                                    let Json::Object(ms) = v1 else {
                                        panic!("streamed a non-object")
                                    };
                                    let expected: Vec<String> =
                                        ms.iter().map(|(k, v)| format!("{k:?}: {v:?}")).collect();
                                    assert_eq!(*members, expected);
                                }
                            }
                        }
                    }
                    (whole, main) => {
                        assert!(rec.members.is_empty());
                        assert_eq!(*whole, main);
                    }
                }
            }
            (a, b) => panic!(
                "{:?}: parse {a:?}, streaming parse {b:?}",
                String::from_utf8_lossy(bytes)
            ),
        }
    }
}

/// A small deterministic pseudo-random generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const SAMPLE: &str = r#"{
  "version": 2,
  "cluster_name": "cluster.example.com",
  "nodes": {
"node1": {"total_memory": 32768, "free_memory": 31389.5, "offline": false,
          "tags": ["a", "b\u00e9\n", "\ud83d\ude00"], "group": null},
"node1": {"total_memory": 1.5e0, "ratio": -0.25E-3}
  },
  "request": {"type": "allocate", "name": "inst\"1\\", "disks": [{"size": 1024}, {"size": 0}],
          "empty": {}, "none": [], "unicode": "ü€😀"}
}
"#;
