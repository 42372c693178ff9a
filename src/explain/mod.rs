//! Explanations (`--explain`): why each group, node and pair was refused
//! or chosen. The answer's own searches run with their notes on (which
//! changes nothing they decide) and a [`Recorder`] turns each search into
//! its explanation as it happens, on the state the search saw.
//!
//! * [`allocate`]: allocations (allocate, multi-allocate), group by group.
//! * [`moves`]: one-node moves of existing instances (relocate, and
//!   node-evacuate's new secondaries and shared-storage primaries).
//! * [`cost`]: what an evacuation answer's moves cost (relocate,
//!   node-evacuate, change-group).
//! * [`balance`]: `hailstone-balance`'s plans: the limits, the targets.
//! * [`stopped`]: why a balancing stopped (`hailstone-balance`,
//!   `hailstone-groups balance`): the imbalance left in its largest score
//!   terms, and what refused the moves that would lower it.
//! * [`squeeze`]: `hailstone-squeeze`'s plans: the reserves, each node
//!   tried and why it was kept.
//! * [`reasons`]: refusals in words, counted by reason.
//! * [`verdict`]: the first line: where the instance went, or what
//!   refused it and what to change.
//! * [`render`]: the text for people and the JSON for scripts
//!   (`write::json`).
//! * [`recorder`]: the [`Recorder`], which the request's search shows
//!   each search as it happens.
//! * here: the whole explanation.

pub mod allocate;
pub mod balance;
pub mod cost;
pub mod groups;
pub mod moves;
pub mod reasons;
pub mod recorder;
pub mod render;
pub mod space;
pub mod squeeze;
pub mod stopped;
pub mod verdict;

pub use recorder::Recorder;

use crate::model::{Cluster, Request};
use crate::write::iallocator::Answer;

/// The explanation's format (`--explain-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Aligned text for people.
    #[default]
    Text,
    /// One JSON object for scripts.
    Json,
}

/// Everything explained about one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// The request type.
    pub request: &'static str,
    /// The answer given: success and info.
    pub success: bool,
    pub info: String,
    /// One part per instance placed, in the request's order.
    pub placements: Vec<allocate::Placement>,
    /// One part per instance moved to one new node, in order.
    pub moves: Vec<moves::MovePart>,
    /// Notes on the whole request (dedicated allocation, instances that
    /// could not be moved).
    pub notes: Vec<String>,
    /// Whether the text shows the winner's score terms (`-v`; the JSON
    /// always carries them).
    pub score_terms: bool,
    /// What an evacuation answer's moves cost (relocate, node-evacuate,
    /// change-group); none when the answer moves no instance.
    pub cost: Option<cost::AnswerCost>,
}

/// The explanation of the `answer` to a request of type `request` from
/// what was recorded.
pub fn explanation(request: &'static str, answer: &Answer, recorded: Recorder) -> Explanation {
    Explanation {
        request,
        success: answer.success,
        info: answer.info.clone(),
        placements: recorded.placements,
        moves: recorded.moves,
        notes: recorded.notes,
        score_terms: false,
        cost: None,
    }
}

/// The request type and its first instance's name (`allocate-web1`).
pub fn subject(cluster: &Cluster, request: &Request) -> String {
    let name = match request {
        Request::Allocate { instance, .. } => Some(instance.name.to_string()),
        Request::MultiAllocate { instances, .. } => {
            instances.first().map(|(i, _)| i.name.to_string())
        }
        Request::Relocate { instance, .. } | Request::AllocateSecondary { instance } => {
            cluster.instances.get(*instance).map(|i| i.name.to_string())
        }
        Request::NodeEvacuate { instances, .. } | Request::ChangeGroup { instances, .. } => {
            instances
                .first()
                .and_then(|&k| cluster.instances.get(k))
                .map(|i| i.name.to_string())
        }
    };
    match name {
        Some(n) => format!("{}-{n}", request.type_name()),
        None => request.type_name().to_owned(),
    }
}
