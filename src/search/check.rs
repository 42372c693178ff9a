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

use crate::model::types::GanetiVersion;
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
    /// Instances of the group (primary in it, not forthcoming, as
    /// `offline_pri` counts them) whose secondary node is offline: the true
    /// count.
    pub offline_sec: usize,
    /// With the capacity checks: the nodes that could not be evacuated
    /// (`canEvacuateNode`), in key order, with what stopped each when
    /// asked for ([`Evacuation::Blocker`]).
    pub unevacuable: Option<Vec<Unevacuable>>,
    /// The group's score (`compCV`).
    pub score: f64,
}

/// What the fourth count, hcheck's `OFFLINE_SEC`, counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfflineSec {
    /// The offline nodes, as hcheck counts them.
    Nodes,
    /// The instances whose secondary node is offline (`--true-counts`).
    Instances,
}

impl GroupFigures {
    /// hcheck's five counts, in its order (`GN1_FAIL` only with the
    /// capacity checks), the fourth as `offline_sec` says.
    pub fn counts(&self, offline_sec: OfflineSec) -> Vec<usize> {
        let mut c = vec![
            self.n1_fail,
            self.conflict_tags,
            self.offline_pri,
            match offline_sec {
                OfflineSec::Instances => self.offline_sec,
                OfflineSec::Nodes => self.offline_nodes,
            },
        ];
        if let Some(u) = &self.unevacuable {
            c.push(u.len());
        }
        c
    }
}

/// How a node's N+1 failure is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum N1Rule {
    /// The node's own flag, as the moves so far left it (hcheck's
    /// `computeBadItems`, before and after its simulated rebalancing).
    Flag,
    /// What reading the state back would flag, by the Ganeti version the
    /// state follows. A move changes a node's primaries' memory but not
    /// its reported free memory (`fMem`), which a saved state keeps; read
    /// back, the memory missing from the report is counted anew. 3.0.2:
    /// free memory below the largest failover reservation; 3.1: the
    /// unallocated memory as read back (the lesser of the free memory and
    /// what the records leave) at most that reservation. The flag of the
    /// primitives uses the unallocated memory the moves left, which
    /// differs on nodes whose report and records disagree. hcheck run on
    /// a state hailstone-groups saves judges it so.
    AsRead,
}

/// The nodes `keys` of a group sorted by what is wrong with them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeVerdicts {
    /// The offline nodes.
    pub offline: Vec<usize>,
    /// The online nodes failing N+1.
    pub n1_failing: Vec<usize>,
}

/// The offline nodes and the online nodes failing N+1 among `keys`, in
/// their order, by `rule`: the one judgement hailstone-check and
/// hailstone-groups' health share.
pub fn node_verdicts(state: &State, keys: &[usize], rule: N1Rule) -> NodeVerdicts {
    let mut v = NodeVerdicts::default();
    for &k in keys {
        let n = state.node_at(k);
        let failing = match rule {
            N1Rule::Flag => n.fail_n1,
            N1Rule::AsRead => as_read(state, k).fails(state.ganeti()),
        };
        if n.offline {
            v.offline.push(k);
        } else if failing {
            v.n1_failing.push(k);
        }
    }
    v
}

/// The two memory figures the [`N1Rule::AsRead`] judgement of a node
/// compares (MiB).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct N1Memory {
    /// The memory free for instances as read back: 3.0.2 the node's
    /// reported free memory (`fMem`); 3.1 the lesser of it and what the
    /// records leave.
    pub free: i64,
    /// The memory its largest failover needs (`rMem`): the most that the
    /// secondaries of one primary node take.
    pub needed: i64,
}

impl N1Memory {
    /// Whether the node fails N+1 by the release's rule: 3.0.2 when `free`
    /// is below `needed` (`buildPeers`), 3.1 when it is at most `needed`.
    pub fn fails(self, ganeti: GanetiVersion) -> bool {
        match ganeti {
            GanetiVersion::V30 => self.free < self.needed,
            GanetiVersion::V31 => self.free <= self.needed,
        }
    }
}

/// Node `k`'s figures of the [`N1Rule::AsRead`] judgement, by the Ganeti
/// version the state follows: the figures a report of that judgement
/// prints.
pub fn as_read(state: &State, k: usize) -> N1Memory {
    let n = state.node_at(k);
    let free = match state.ganeti() {
        GanetiVersion::V30 => n.f_mem,
        GanetiVersion::V31 => n.recorded_free_mem().min(n.f_mem),
    };
    N1Memory {
        free,
        needed: n.r_mem,
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
    let verdicts = node_verdicts(state, &keys, N1Rule::Flag);
    let offline_pri = verdicts
        .offline
        .iter()
        .map(|&k| state.node_at(k).p_list.len())
        .sum();
    let conflict_tags = keys
        .iter()
        .filter(|&&k| state.node_at(k).conflicting_primaries() > 0)
        .count();
    let offline_sec = state
        .instances()
        .filter(|i| !i.forthcoming && i.s_node >= 0 && offline(i.s_node))
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
        n1_fail: verdicts.n1_failing.len(),
        conflict_tags,
        offline_pri,
        offline_nodes: verdicts.offline.len(),
        offline_sec,
        unevacuable,
        score: state.score_with(&[]),
    })
}
