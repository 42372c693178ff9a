//! node-evacuate's fallback across groups (`--inter-group-evacuation`,
//! hailstone only; seed 004, "Node evacuation changes"): each instance
//! the evacuation could not move inside its group is moved, in order,
//! into the best allocable group of its storage partition as a group
//! change moves it ([`crate::search::groups::relocate`]).
//!
//! Its entry then becomes `(instance, remote group, nodes)` with the jobs
//! of the group change. One that fits nowhere keeps its failure, hail's
//! message, followed by the message the other groups gave: both are part
//! of the answer's failure texts, carried as strings as hail's are.

use crate::model::group::Group;
use crate::model::storage;
use crate::search::allocate::AllocOptions;
use crate::search::groups::{relocate, NoGroup, Refused};
use crate::search::state::{Crash, State};

use super::EvacSolution;

/// Moves every failed instance of `sol` it can into another group of its
/// storage partition; the others keep their failure.
pub fn evacuate_elsewhere(
    node_groups: &[Group],
    state: &mut State,
    mut sol: EvacSolution,
    opts: &AllocOptions,
) -> Result<EvacSolution, Crash> {
    let failed = std::mem::take(&mut sol.failed);
    for (k, reason) in failed {
        let inst = state.inst(k as i32)?;
        let own = state.node(inst.p_node)?.group;
        let template = inst.disk_template;
        let targets: Vec<usize> = storage::peer_groups(node_groups, own, template)
            .into_iter()
            .filter(|&g| node_groups[g].is_allocable() && !state.group_keys(g).is_empty())
            .collect();
        if targets.is_empty() {
            sol.failed.push((k, reason));
            continue;
        }
        match relocate(node_groups, state, k, &targets, opts)? {
            Ok(r) => {
                sol.moved.push((k, r.group, r.nodes));
                sol.moves.push(r.moves);
            }
            Err(Refused {
                reason: NoGroup::Failed(other),
                ..
            }) => sol
                .failed
                .push((k, format!("{reason}; in other groups: {other}"))),
            // The targets are other groups of its pool, so the group
            // change was tried (the other refusals are the repair's).
            Err(_) => sol.failed.push((k, reason)),
        }
    }
    state.commit();
    Ok(sol)
}
