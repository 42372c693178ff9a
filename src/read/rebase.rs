//! A request kept and its cluster replaced, as hail does with `-t` and
//! `--simulate` (`IAlloc.readRequest` on another cluster): the request's
//! indices stay as they were, its new instances' tags move to the new
//! cluster, and indices the new cluster lacks are refused where hail
//! would fail a lookup.

use std::sync::Arc;

use crate::model::instance::Instance;
use crate::model::{Cluster, Request, TagId};

/// The request read from the iallocator input, for the cluster of a data
/// file or simulation (hail keeps the request and replaces its cluster):
/// instance, node and group indices stay as they were (hail's own
/// quirk: they name whatever has that index in the new cluster); the tags
/// of new instances, derived from the request's cluster tags, are
/// re-interned in the new cluster.
pub fn rebase(request: Request, from: &Cluster, to: &mut Cluster) -> Request {
    let mut move_tags = |inst: &mut Instance| {
        let mut moved = |ids: &[TagId]| -> Vec<TagId> {
            ids.iter()
                .map(|&t| to.tags.intern(from.tags.name(t)))
                .collect()
        };
        let excl = moved(&inst.excl_tags);
        let mut dsrd = moved(&inst.dsrd_loc_tags);
        dsrd.sort_unstable();
        inst.excl_tags = Arc::from(excl);
        inst.dsrd_loc_tags = Arc::from(dsrd);
    };
    match request {
        Request::Allocate {
            mut instance,
            required_nodes,
            group_name,
            restrict_to_nodes,
        } => {
            move_tags(&mut instance);
            Request::Allocate {
                instance,
                required_nodes,
                group_name,
                restrict_to_nodes,
            }
        }
        Request::MultiAllocate {
            mut instances,
            group_name,
        } => {
            for (inst, _) in instances.iter_mut() {
                move_tags(inst);
            }
            Request::MultiAllocate {
                instances,
                group_name,
            }
        }
        other => other,
    }
}

/// hail fails a lookup when the request's instance or group indices are
/// not in the cluster (a data file or simulation smaller than the
/// request's cluster).
pub fn check_indices(request: &Request, cluster: &Cluster) -> Result<(), String> {
    let instance = |k: usize| {
        if k < cluster.instances.len() {
            Ok(())
        } else {
            Err(format!(
                "the request's instance index {k} is not in the cluster's instance list"
            ))
        }
    };
    match request {
        Request::Relocate { instance: k, .. } | Request::AllocateSecondary { instance: k } => {
            instance(*k)
        }
        Request::NodeEvacuate { instances, .. } => instances.iter().try_for_each(|&k| instance(k)),
        Request::ChangeGroup {
            instances,
            target_groups,
        } => {
            instances.iter().try_for_each(|&k| instance(k))?;
            match target_groups.iter().find(|&&g| g >= cluster.groups.len()) {
                Some(g) => Err(format!(
                    "the request's group index {g} is not in the cluster's group list"
                )),
                None => Ok(()),
            }
        }
        Request::Allocate { .. } | Request::MultiAllocate { .. } => Ok(()),
    }
}
