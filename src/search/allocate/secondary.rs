//! Allocate-secondary (`AllocateSecondary.tryAllocateSecondary`): a
//! secondary for a single-node instance being converted to drbd, searched
//! as the pairs of its primary.

use crate::search::solution::AllocSolution;
use crate::search::state::{Crash, State};

use super::{try_alloc, AllocNodes, AllocOptions, PairList, SearchError};

/// Finds a secondary for a single-node instance being converted to drbd
/// (`AllocateSecondary.tryAllocateSecondary`): the instance is taken off
/// its primary and re-placed there as drbd with every other node of the
/// primary's group as a candidate secondary, offline and drained ones
/// included. Returns the solution, or hail's message.
pub fn try_allocate_secondary(
    state: &mut State,
    idx: usize,
    opts: &AllocOptions,
) -> Result<Result<AllocSolution<f64>, String>, Crash> {
    let inst = state.inst(idx as i32)?.clone();
    if inst.s_node >= 0 {
        return Ok(Err("Instance already has a secondary".to_owned()));
    }
    let pidx = inst.p_node;
    let mut pnode = state.node(pidx)?.clone();
    pnode.remove_pri(&inst);
    let group = pnode.group;
    let p = pidx as usize;
    state.set_node(p, pnode);
    let mut drbd = inst;
    drbd.disk_template = crate::model::types::DiskTemplate::Drbd;
    let opts = &AllocOptions {
        online_secondary_only: true,
        ..opts.clone()
    };
    let secondaries: Vec<usize> = state
        .node_keys()
        .filter(|&k| k != p && state.node_at(k).group == group)
        .collect();
    match try_alloc(
        state,
        &drbd,
        &AllocNodes::Pairs(PairList::single(p, secondaries)),
        opts,
    ) {
        Ok(sol) => Ok(Ok(sol)),
        Err(SearchError::Message(m)) => Ok(Err(m)),
        Err(SearchError::Crash(c)) => Err(c),
    }
}
