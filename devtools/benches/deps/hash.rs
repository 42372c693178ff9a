//! The hash of hailstone's `FastMap` (`src/model/hash.rs`: rustc-hash's
//! `FxHasher`) against the standard library's SipHash, on the map the
//! loader builds from every request: the node-name index
//! (`read::build::NodeIndex`, names to node indices), filled with each
//! node's name as a `Box<str>` and looked up for each instance's primary
//! and secondary node.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::time::Duration;

use crate::measure::{medians_in_turn, timed};

/// The names of a request the index is built from and asked.
pub struct Names {
    /// Every node's name, in the request's order.
    pub nodes: Vec<String>,
    /// Each instance's node names (primary, then secondary if any).
    pub lookups: Vec<String>,
}

impl Names {
    /// The names of a request (`serde_json` reads it: the setup is not
    /// measured).
    ///
    /// # Errors
    ///
    /// A request that is not JSON or has no nodes.
    pub fn of(request: &[u8]) -> Result<Names, String> {
        let v: serde_json::Value = serde_json::from_slice(request).map_err(|e| e.to_string())?;
        let nodes: Vec<String> = v["nodes"]
            .as_object()
            .ok_or("the request has no nodes")?
            .keys()
            .cloned()
            .collect();
        let lookups = v["instances"]
            .as_object()
            .ok_or("the request has no instances")?
            .values()
            .flat_map(|i| i["nodes"].as_array().cloned().unwrap_or_default())
            .filter_map(|n| n.as_str().map(str::to_owned))
            .collect();
        Ok(Names { nodes, lookups })
    }
}

/// The hashers, in table order.
pub const HASHERS: [&str; 2] = ["rustc-hash FxHasher (FastMap)", "std SipHash-1-3"];

/// Builds the index and looks every instance's nodes up; the sum of the
/// indices found (so that nothing is optimised away).
fn index_and_look_up<S: BuildHasher + Default>(names: &Names) -> Result<usize, String> {
    let mut index: HashMap<Box<str>, usize, S> = HashMap::default();
    for (i, name) in names.nodes.iter().enumerate() {
        index.insert(name.as_str().into(), i);
    }
    let mut sum = 0usize;
    for name in &names.lookups {
        sum = sum.wrapping_add(*index.get(name.as_str()).ok_or("a node name not found")?);
    }
    Ok(sum)
}

/// Builds and asks the index once with the hasher named `name` (inside
/// [`depbench_measured`](crate::measure::depbench_measured)).
///
/// # Errors
///
/// An unknown name (or a name not found, a bug).
pub fn run_once(name: &str, names: &Names) -> Result<Duration, String> {
    match name {
        "rustc-hash FxHasher (FastMap)" => {
            timed(|| index_and_look_up::<rustc_hash::FxBuildHasher>(names))
        }
        "std SipHash-1-3" => timed(|| index_and_look_up::<std::hash::RandomState>(names)),
        other => Err(format!("unknown hasher '{other}'")),
    }
}

/// The median time of `runs` builds by each hasher, in [`HASHERS`]'
/// order.
///
/// # Errors
///
/// As [`run_once`].
pub fn medians(names: &Names, runs: usize) -> Result<Vec<Duration>, String> {
    medians_in_turn(runs, HASHERS.len(), |k| run_once(HASHERS[k], names))
}
