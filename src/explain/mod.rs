//! Explanations (`--explain`): why each group, node and pair was refused
//! or chosen, computed after the answer from the same cluster and request,
//! without touching the answer.
//!
//! * [`allocate`]: allocations (allocate, multi-allocate), group by group.
//! * [`reasons`]: refusals in words, counted by reason.
//! * [`render`]: the text for people and the JSON for scripts.
//! * here: which request is explained how, and where the text goes.

pub mod allocate;
pub mod reasons;
pub mod render;

use crate::model::{Cluster, Request};
use crate::search::state::{Crash, State};
use crate::search::AlgorithmOptions;
use crate::write::answer::Answer;

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
    /// What is not explained in detail, and why.
    pub notes: Vec<String>,
}

/// Explains `request` on `cluster` (both as loaded, before the answer was
/// computed), given the answer; `dedicated` when hail took the request as
/// a dedicated allocation.
pub fn explain(
    cluster: &Cluster,
    request: &Request,
    algorithm: &AlgorithmOptions,
    answer: &Answer,
    dedicated: bool,
) -> Result<Explanation, Crash> {
    let mut e = Explanation {
        request: request.type_name(),
        success: answer.success,
        info: answer.info.clone(),
        placements: Vec::new(),
        notes: Vec::new(),
    };
    if dedicated {
        e.notes.push(
            "dedicated allocation (every node has exclusive storage): hail ranks candidates \
             by lost allocations there; this explanation does not cover it yet"
                .to_owned(),
        );
        return Ok(e);
    }
    let mut state = State::from_lists(
        cluster.nodes.clone(),
        cluster.instances.clone(),
        &cluster.groups,
    );
    match request {
        Request::Allocate {
            instance,
            required_nodes,
            group_name,
            restrict_to_nodes,
        } => {
            let p = allocate::explain(
                cluster,
                &mut state,
                instance,
                *required_nodes,
                group_name.as_deref(),
                restrict_to_nodes.clone(),
                algorithm,
            )?;
            e.placements.push(p);
        }
        other => e.notes.push(format!(
            "{} requests are not explained in detail yet",
            other.type_name()
        )),
    }
    Ok(e)
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
