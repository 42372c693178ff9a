//! What a `hailstone-squeeze` plan does that Ganeti refuses, or that
//! breaks what Ganeti keeps, though hsqueeze 3.0.2 plans the same (the
//! plan stays hsqueeze's, byte for byte; these are reported by
//! `--explain` and `--json`, docs/compatibility.md):
//!
//! * hsqueeze balances the whole cluster as one group (`balance` in
//!   `Program/Hsqueeze.hs` runs `Cluster.tryBalance` on every node), so a
//!   step may take an instance to a node of another group. Ganeti checks
//!   such a move against the target group's instance policy (its disk
//!   templates and instance specs: `CheckTargetNodeIPolicy` in
//!   `lib/cmdlib/instance_utils.py`, for `migrate` and `replace-disks
//!   -n`, whenever the target node's group is not the primary's) and
//!   refuses the job: `-X` stops there, before the nodes are powered off.
//! * Such steps may leave an instance with its primary and secondary
//!   nodes in different groups (a split instance: `gnt-cluster verify`
//!   warns of it, `hailstone-groups check` calls the group weakly
//!   unhealthy).
//! * hsqueeze's nodes list no forthcoming instance (`Node.setPri`), so a
//!   node that only holds forthcoming instances looks empty and may be
//!   powered off, with the resources Ganeti keeps there for them.

use crate::model::instance::Instance;
use crate::model::refusal::{Check, Refusal};
use crate::model::types::{FailMode, IMove};
use crate::model::Cluster;
use crate::search::balance::Placement;
use crate::search::state::State;

/// One thing a plan does that Ganeti refuses or that breaks what it
/// keeps.
#[derive(Debug, Clone)]
pub enum Caution {
    /// Step `step` (from 0, in the plan's order) takes instance `inst` to
    /// `node`, in another group than the instance's primary node then,
    /// whose instance policy refuses it (`refusal`: its disk template when
    /// the policy does not allow it, else the spec it does not meet):
    /// Ganeti refuses the job.
    Policy {
        step: usize,
        inst: usize,
        node: usize,
        refusal: Refusal,
    },
    /// After the plan, instance `inst` (not split before) has its primary
    /// and secondary nodes in different groups.
    Split {
        inst: usize,
        primary: usize,
        secondary: usize,
    },
    /// `node` is powered off while forthcoming instances (`insts`, in key
    /// order) have it as their primary or secondary node.
    Forthcoming { node: usize, insts: Vec<usize> },
}

/// The `(target, primary)` nodes of each command of a move of an
/// instance on `(p, s)`, in order: the node the command moves the
/// instance to and its primary node when the command runs (`migrate`
/// targets the secondary; `replace-disks -n` the new secondary).
fn targets(mv: IMove<usize>, (p, s): (usize, usize)) -> Vec<(usize, usize)> {
    match mv {
        IMove::Failover => vec![(s, p)],
        IMove::FailoverToAny(t) | IMove::ReplaceSecondary(t) => vec![(t, p)],
        // Fail over, replace the secondary (the old primary) by t, fail
        // over to t.
        IMove::ReplacePrimary(t) => vec![(s, p), (t, s), (t, s)],
        // Replace the secondary by t, fail over to it.
        IMove::ReplaceAndFailover(t) => vec![(t, p), (t, p)],
        // Fail over, then replace the new secondary (the old primary) by t.
        IMove::FailoverAndReplace(t) => vec![(s, p), (t, s)],
    }
}

/// The node keys of `(p, s)`, `None` for a missing one.
fn keys(nodes: (i32, i32)) -> (Option<usize>, Option<usize>) {
    (usize::try_from(nodes.0).ok(), usize::try_from(nodes.1).ok())
}

/// The cautions of a plan on `cluster`: its balancing `steps`, the state
/// they leave (`None`: the cluster as read) and the nodes it powers off
/// (`off`; empty when it powers nodes on). In order: the steps' policy
/// refusals, the split instances, the nodes with forthcoming instances.
pub fn cautions(
    cluster: &Cluster,
    steps: &[Placement],
    after: Option<&State>,
    off: &[usize],
) -> Vec<Caution> {
    let mut out = Vec::new();
    let group = |k: usize| cluster.nodes.get(k).map(|n| n.group);
    for (step, p) in steps.iter().enumerate() {
        let (Some(pri), sec) = keys(p.old_nodes) else {
            continue;
        };
        let Some(inst) = cluster.instances.get(p.inst) else {
            continue;
        };
        for (target, primary) in targets(p.mv, (pri, sec.unwrap_or(pri))) {
            let (Some(g), Some(h)) = (group(target), group(primary)) else {
                continue;
            };
            if g == h {
                continue;
            }
            let node = &cluster.nodes[target];
            let Some(policy) = cluster.groups.get(g).map(|grp| &grp.ipolicy) else {
                continue;
            };
            // The template first (no spec can make it fit), then the specs.
            let refusal = if policy.disk_templates.contains(&inst.disk_template) {
                policy.check_detail(inst, node.excl_storage).err()
            } else {
                Some(Refusal::now(
                    FailMode::Disk,
                    Check::PolicyTemplate {
                        template: inst.disk_template,
                    },
                ))
            };
            if let Some(refusal) = refusal {
                out.push(Caution::Policy {
                    step,
                    inst: p.inst,
                    node: target,
                    refusal,
                });
                // The job stops at its first refused command.
                break;
            }
        }
    }
    let now = |k: usize| -> Option<&Instance> {
        match after {
            Some(state) => i32::try_from(k).ok().and_then(|k| state.inst(k).ok()),
            None => cluster.instances.get(k),
        }
    };
    let split = |i: &Instance| match keys((i.p_node, i.s_node)) {
        (Some(p), Some(s)) if group(p) != group(s) => Some((p, s)),
        _ => None,
    };
    for (k, before) in cluster.instances.iter().enumerate() {
        let Some(i) = now(k) else { continue };
        if let (None, Some((primary, secondary))) = (split(before), split(i)) {
            out.push(Caution::Split {
                inst: k,
                primary,
                secondary,
            });
        }
    }
    for &node in off {
        let insts: Vec<usize> = (0..cluster.instances.len())
            .filter(|&k| {
                now(k).is_some_and(|i| {
                    let (p, s) = keys((i.p_node, i.s_node));
                    i.forthcoming && (p == Some(node) || s == Some(node))
                })
            })
            .collect();
        if !insts.is_empty() {
            out.push(Caution::Forthcoming { node, insts });
        }
    }
    out
}
