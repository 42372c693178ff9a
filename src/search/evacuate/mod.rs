//! Moving existing instances: node evacuation, relocation and group change
//! (`Cluster.Evacuate.tryNodeEvac`, `nodeEvacInstance`,
//! `IAlloc.processRelocate`, `Cluster.tryChangeGroup`), and the jobs of
//! opcodes that carry the moves out (`Cluster.Utils.iMoveToJob`).
//!
//! Instances are handled one after another on the updated cluster; a
//! failed instance leaves the cluster unchanged. For each instance the
//! target nodes are tried in index order and scored by the full score of
//! the target group; ties go to the later node (or pair).
//!
//! Cost, for a group of G nodes: one node choice is O(G) moves; a drbd
//! "all" evacuation tries O(G²) pairs, the moves that depend only on the
//! new primary done once per primary. Both pick their winner by hail's
//! full score (O(G) each) only among near-ties: the others are ruled out by
//! the `argmin` approximation in O(1).
//!
//! * [`one_node`]: one-node moves, a drbd instance's new secondary or a
//!   shared-storage instance's new primary (`evacOneNodeOnly`).
//! * [`drbd_all`]: a drbd instance's new primary and secondary
//!   (`nodeEvacInstance … ChangeAll`) and its pair scan.
//! * [`node_evac`]: node evacuation and group change, instance by
//!   instance (`tryNodeEvac`, `nodeEvacInstance`, `tryChangeGroup`).
//! * [`relocation`]: relocation (`processRelocate`), one instance's node
//!   evacuation with hail's checks.
//! * [`elsewhere`]: node evacuation's fallback across groups
//!   (`--inter-group-evacuation`).
//! * here: the outcome and the explanation notes, and what the moves
//!   share (a move applied and committed, the group sums of the `argmin`
//!   shortcut).

mod drbd_all;
mod elsewhere;
mod node_evac;
mod one_node;
mod relocation;
#[cfg(test)]
mod tests;

use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::model::refusal::Refusal;
use crate::model::types::SoftChecks;
use crate::score::argmin::GroupSums;
use crate::search::allocate::GroupSearch;
use crate::search::moves::{self, Move, MoveError, Moved, Nodes};
use crate::search::state::{Crash, State};

pub use elsewhere::evacuate_elsewhere;
pub use node_evac::{change_group, try_change_group, try_node_evac};
pub use relocation::relocate;

/// The outcome of an evacuation (`EvacSolution`), in request order.
#[derive(Debug, Clone, Default)]
pub struct EvacSolution {
    /// Moved instances: key, group of the new primary, new nodes.
    pub moved: Vec<(usize, usize, Vec<usize>)>,
    /// Failed instances with hail's reason.
    pub failed: Vec<(usize, String)>,
    /// The moves of each moved instance, in order: one job each in the
    /// answer (`iMoveToJob`), the `gnt-instance` commands of the planners.
    pub moves: Vec<Vec<Move>>,
}

/// One moved instance's moves.
type Job = Vec<Move>;

/// What an explained one-node move (a new secondary, or a new primary for
/// shared storage) found for one instance: every target tried, in order,
/// and the one chosen.
#[derive(Debug, Clone)]
pub struct MoveNote {
    /// The instance's key.
    pub inst: usize,
    /// The move.
    pub kind: MoveKind,
    /// Each target and what became of it.
    pub targets: Vec<Target>,
    /// The chosen target (and secondary, for a new pair) and its score (the
    /// target group's full score).
    pub chosen: Option<(usize, Option<usize>, f64)>,
}

/// One target of a move and what became of it.
#[derive(Debug, Clone)]
pub struct Target {
    /// The node (the new primary, for a new pair).
    pub node: usize,
    /// The new secondary, for a new pair; `None` when the outcome is the
    /// new primary's alone (then it stands for `count` pairs).
    pub secondary: Option<usize>,
    /// How many candidates the outcome stands for.
    pub count: u64,
    pub outcome: TargetOutcome,
}

impl Target {
    fn one(node: usize, outcome: TargetOutcome) -> Target {
        Target {
            node,
            secondary: None,
            count: 1,
            outcome,
        }
    }
}

/// The kind of a one-node move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveKind {
    /// A drbd instance's new secondary.
    NewSecondary,
    /// A shared-storage instance's new primary.
    NewPrimary,
    /// A drbd instance's failover to its secondary.
    Failover,
    /// A drbd instance's new primary and secondary (node-evacuate `all`,
    /// change-group inside the target group).
    NewPair,
}

/// What became of one target of a one-node move.
#[derive(Debug, Clone)]
pub enum TargetOutcome {
    /// The move fits.
    Fit,
    /// hail's failure mode, with the target's refused check and the target
    /// as it was when checked (when the node check is what refused it).
    Refused(String, Option<Box<(Refusal, Node)>>),
}

/// Called with each instance's group search of a group change (on the
/// state the search saw), when the change is explained.
pub type GroupSearchHook<'a> =
    dyn FnMut(&mut State, &Instance, i64, &GroupSearch) -> Result<(), Crash> + 'a;

/// The explanation notes of a search, when asked for.
pub type Notes<'a> = Option<&'a mut Vec<MoveNote>>;

/// Why one instance could not be moved: hail's message, or a crash.
enum EvacError {
    Message(String),
    Crash(Crash),
}

impl From<Crash> for EvacError {
    fn from(c: Crash) -> Self {
        EvacError::Crash(c)
    }
}

/// Applies a move, turning a placement failure into hail's message text.
fn apply(
    state: &impl Nodes,
    inst: &Instance,
    mv: Move,
    soft: SoftChecks,
) -> Result<Result<Moved, String>, Crash> {
    match moves::apply(state, inst, mv, soft) {
        Ok(m) => Ok(Ok(m)),
        Err(MoveError::Fail(f)) => Ok(Err(f.name().to_owned())),
        Err(MoveError::Crash(c)) => Err(c),
    }
}

/// Stores a moved instance as hail does: under its own `idx` (ignored for
/// the placeholder -1, which no later lookup can reach).
fn commit(state: &mut State, m: Moved, idx: i32) {
    match usize::try_from(idx) {
        Ok(k) => m.commit(state, k),
        Err(_) => {
            for (k, n) in m.nodes {
                state.set_node(k, n);
            }
        }
    }
}

/// The group sums for the `argmin` shortcut, or `None` when the
/// location-exclusion component could be non-zero (it is then computed
/// exactly only): some node has an exclusion map already, or the instance
/// has exclusion tags and a node of the group location tags, so that
/// moving it there could create one (a map pairs a node's location tag
/// with an instance's exclusion tag).
fn shortcut_sums(state: &State, inst: &Instance, group: usize) -> Option<GroupSums> {
    let may_pair = !inst.excl_tags.is_empty()
        && state.any_location_tags(state.group_keys(group).iter().copied());
    (!state.any_instance_map() && !may_pair).then(|| state.group_sums(group))
}
