//! The iallocator's answer as data: what the search of one request found,
//! every node, group and instance by name, as `IAlloc.formatResponse`
//! receives it. `write::iallocator` writes it; nothing else reads it.

use crate::model::types::IMove;

/// The outcome of one request, by request type.
#[derive(Debug, Clone, PartialEq)]
pub enum Response {
    /// allocate: the search's outcome, or hail's reason for none.
    Allocate(Result<Placed, String>),
    /// allocate-secondary: as allocate, the new secondary as its node.
    AllocateSecondary(Result<Placed, String>),
    /// multi-allocate: one row per instance, in the request's order, or
    /// hail's reason when the whole request failed.
    MultiAllocate(Result<Vec<MultiPlaced>, String>),
    /// relocate: the new secondary's name, or hail's reason.
    Relocate(Result<String, String>),
    /// node-evacuate and change-group.
    Evacuate(Evacuated),
}

/// One allocation search: hail's log of it (`asLog`, one entry per line of
/// the `info` text) and the placement's nodes, if one was found.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    /// The log, in order.
    pub log: Vec<String>,
    /// The chosen nodes (primary first), when the search found a place.
    pub nodes: Option<Vec<String>>,
}

/// One instance of a multi-allocation.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiPlaced {
    /// The instance's name.
    pub instance: String,
    /// Its search.
    pub placed: Placed,
}

/// An evacuation's outcome (`EvacSolution`), in request order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Evacuated {
    /// The instances moved.
    pub moved: Vec<MovedInstance>,
    /// The instances that could not be moved, with hail's reason.
    pub failed: Vec<(String, String)>,
}

/// One moved instance and the job that moves it.
#[derive(Debug, Clone, PartialEq)]
pub struct MovedInstance {
    /// The instance's name.
    pub instance: String,
    /// Whether it is forthcoming (it fails over instead of migrating).
    pub forthcoming: bool,
    /// The group of its new primary.
    pub group: String,
    /// Its new nodes, primary first.
    pub nodes: Vec<String>,
    /// The moves of its job, in order, their nodes by name.
    pub moves: Vec<IMove<String>>,
}
