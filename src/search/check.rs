//! hcheck's figures of one node group (`Hcheck.perGroupChecks`): the
//! online nodes failing N+1, the nodes hosting conflicting primaries, the
//! instances on offline primaries, hcheck's offline-secondary count (the
//! offline nodes themselves), the nodes the global N+1 check could not
//! evacuate, and the group's score; with the true count of instances
//! whose secondary is offline and, for each node that cannot be
//! evacuated, the instance that cannot leave it.
//!
//! The state is the group's own (`splitCluster`: its nodes, and the
//! instances whose primary is in it), before or after the simulated
//! rebalancing.

use crate::search::globaln1::{self, Unevacuable};
use crate::search::state::{Crash, State};

/// The figures of a group.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupFigures {
    /// Online nodes failing N+1 (`computeBadItems`).
    pub n1_fail: usize,
    /// Nodes hosting primaries with a common exclusion tag.
    pub conflict_tags: usize,
    /// Primary instances of offline nodes.
    pub offline_pri: usize,
    /// hcheck's `OFFLINE_SEC`: the number of offline nodes.
    pub offline_nodes: usize,
    /// Instances whose secondary node is offline (the true count).
    pub offline_sec: usize,
    /// With the capacity checks: the nodes that could not be evacuated
    /// (`canEvacuateNode`), in key order, with what stopped each when
    /// asked for ([`Evacuation::Blocker`]).
    pub unevacuable: Option<Vec<Unevacuable>>,
    /// The group's score (`compCV`).
    pub score: f64,
}

impl GroupFigures {
    /// hcheck's five counts, in its order (`GN1_FAIL` only with the
    /// capacity checks); with `true_counts` the instances whose secondary
    /// is offline instead of the offline nodes.
    pub fn counts(&self, true_counts: bool) -> Vec<usize> {
        let mut c = vec![
            self.n1_fail,
            self.conflict_tags,
            self.offline_pri,
            if true_counts {
                self.offline_sec
            } else {
                self.offline_nodes
            },
        ];
        if let Some(u) = &self.unevacuable {
            c.push(u.len());
        }
        c
    }
}

/// How far the global N+1 check goes for each node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evacuation {
    /// Not run (`--no-capacity-checks`).
    Off,
    /// Whether each node can be evacuated.
    Verdict,
    /// And, for a node that cannot, the instance that stops it.
    Blocker,
}

/// The figures of the group in `state`; `offline(k)` says whether node
/// `k` of the whole cluster is offline (a secondary may lie outside the
/// group). `evacuation` says how far the global N+1 check goes.
///
/// # Errors
///
/// A node whose evacuation looks up a node outside the group (an
/// instance whose secondary is in another group): hcheck dies there.
pub fn group_figures(
    state: &mut State,
    offline: impl Fn(i32) -> bool,
    evacuation: Evacuation,
) -> Result<GroupFigures, Crash> {
    let keys: Vec<usize> = state.node_keys().collect();
    let (mut n1_fail, mut conflict_tags, mut offline_pri, mut offline_nodes) = (0, 0, 0, 0);
    for &k in &keys {
        let n = state.node_at(k);
        if n.offline {
            offline_nodes += 1;
            offline_pri += n.p_list.len();
        } else if n.fail_n1 {
            n1_fail += 1;
        }
        if n.conflicting_primaries() > 0 {
            conflict_tags += 1;
        }
    }
    let offline_sec = state
        .instances()
        .filter(|i| i.s_node >= 0 && offline(i.s_node))
        .count();
    let unevacuable = match evacuation {
        Evacuation::Off => None,
        Evacuation::Verdict => {
            let mut found = Vec::new();
            for &k in &keys {
                if !globaln1::can_evacuate_node(state, k)? {
                    found.push(Unevacuable {
                        node: k,
                        blocker: None,
                    });
                }
            }
            Some(found)
        }
        Evacuation::Blocker => {
            let mut found = Vec::new();
            for &k in &keys {
                found.extend(globaln1::evacuation_blocker(state, k)?);
            }
            Some(found)
        }
    };
    Ok(GroupFigures {
        n1_fail,
        conflict_tags,
        offline_pri,
        offline_nodes,
        offline_sec,
        unevacuable,
        score: state.score_with(&[]),
    })
}
