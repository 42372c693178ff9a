//! Relocation (`IAlloc.processRelocate`): a new secondary for a drbd
//! instance, a new primary for shared storage, as the node evacuation of
//! the one instance, with hail's checks of the request and of the moved
//! instance's nodes.

use crate::model::group::Group;
use crate::model::types::{EvacMode, MirrorType, SoftChecks};
use crate::search::state::{Crash, State};

use super::node_evac::try_node_evac;
use super::Notes;

/// Relocation (`processRelocate`): a new secondary for drbd, a new primary
/// for shared storage. Returns the new node's index, or hail's message.
pub fn relocate(
    node_groups: &[Group],
    state: &mut State,
    idx: usize,
    required_nodes: i64,
    relocate_from: &[usize],
    soft: SoftChecks,
    notes: Notes<'_>,
) -> Result<Result<usize, String>, Crash> {
    if required_nodes != 1 {
        return Ok(Err(format!(
            "Exchange {required_nodes} nodes mode is not implemented"
        )));
    }
    let orig = state.inst(idx as i32)?.clone();
    let (expected, what, mode) = match orig.mirror_type() {
        MirrorType::None => return Ok(Err("Can't relocate non-mirrored instances".to_owned())),
        MirrorType::Internal => (orig.s_node, "secondary", EvacMode::ChangeSecondary),
        MirrorType::External => (orig.p_node, "primary", EvacMode::ChangePrimary),
    };
    if relocate_from.len() != 1 || relocate_from[0] as i64 != i64::from(expected) {
        let shown: Vec<i64> = relocate_from.iter().map(|&k| k as i64).collect();
        return Ok(Err(format!(
            "Unsupported request: excluded nodes not equal to instance's {what}({expected} versus {})",
            crate::haskell::show::show_int_list(&shown)
        )));
    }
    let sol = try_node_evac(node_groups, state, mode, &[idx], soft, notes)?;
    if let Some((_, msg)) = sol.failed.iter().find(|(k, _)| *k == idx) {
        return Ok(Err(msg.clone()));
    }
    let Some((_, _, nodes)) = sol.moved.iter().find(|(k, _, _)| *k == idx) else {
        return Ok(Err(
            "Internal error: lost instance idx during move".to_owned()
        ));
    };
    let inst = state.inst(idx as i32)?;
    let (pnode, snode) = (inst.p_node, inst.s_node);
    let show_nodes = |nodes: &[usize]| {
        let v: Vec<i64> = nodes.iter().map(|&k| k as i64).collect();
        crate::haskell::show::show_int_list(&v)
    };
    match orig.mirror_type() {
        MirrorType::Internal => {
            if snode == orig.s_node {
                return Ok(Err(
                    "Internal error: instance didn't change secondary node?!".to_owned(),
                ));
            }
            if snode == pnode {
                return Ok(Err(
                    "Internal error: selected primary as new secondary?!".to_owned()
                ));
            }
            if nodes.len() == 2 && nodes[0] as i32 == pnode && nodes[1] as i32 == snode {
                Ok(Ok(snode as usize))
            } else {
                Ok(Err(format!(
                    "Internal error: inconsistent node list ({}) versus instance nodes ({pnode},{snode})",
                    show_nodes(nodes)
                )))
            }
        }
        _ => {
            if pnode == orig.p_node {
                return Ok(Err(
                    "Internal error: instance didn't change primary node?!".to_owned()
                ));
            }
            if nodes.len() == 1 && nodes[0] as i32 == pnode {
                Ok(Ok(pnode as usize))
            } else {
                Ok(Err(format!(
                    "Internal error: inconsistent node list ({}) versus instance node ({pnode})",
                    show_nodes(nodes)
                )))
            }
        }
    }
}
