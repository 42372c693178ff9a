//! Carrying out one reboot group of hroller's plan (`hailstone-roll -X`):
//! what leaves the group's nodes before the reboot and how, what must
//! resynchronise after it, and what returns — each instance to the nodes
//! it had — so that the next group is planned against the cluster as it
//! was. The evacuation is checked against the cluster as it is (hroller
//! checks the non-redundant moves, not the drbd migrations to the
//! secondaries): a group whose instances do not fit where they go is
//! refused before any job runs.
//!
//! Only running instances move: a reboot does not touch an instance that
//! is down. A running instance whose primary is rebooted
//!
//! * drbd: migrates to its secondary (with `--full-evacuation` its new
//!   secondary, the rebooted node, is replaced by the planned one), and
//!   after the reboot its disks resynchronise before it migrates back;
//! * shared storage or diskless: migrates to the planned node and back;
//! * plain or file: is copied to the planned node (`gnt-instance move`)
//!   and back;
//! * not moved by the plan (`--ignore-non-redundant`), or any instance
//!   under `--offline-maintenance`: is shut down and started again.
//!
//! A running drbd instance whose secondary is rebooted stays where it is
//! (with `--full-evacuation` its secondary is replaced and restored) and
//! resynchronises after the reboot.

use crate::model::instance::Instance;
use crate::model::types::{FailMode, MirrorType, SoftChecks};
use crate::search::roll::{Conf, Maintenance};

/// What a job does to one instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Live migration (failover for an instance that stopped meanwhile):
    /// to the secondary (`None`, drbd) or to a node (shared storage).
    Migrate(Option<usize>),
    /// A copy to another node (`gnt-instance move`: plain, file).
    Move(usize),
    /// A new secondary node (drbd).
    ReplaceSecondary(usize),
    /// Disks activated, waiting until they are in sync.
    Resync,
    Shutdown,
    Startup,
}

/// One job: an instance (index) and its actions, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    pub instance: usize,
    pub actions: Vec<Action>,
}

/// A reboot group carried out: before the reboot, after it, and back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupPlan {
    /// The nodes rebooted (indices).
    pub nodes: Vec<usize>,
    /// The jobs that empty the nodes of running instances.
    pub evacuate: Vec<Job>,
    /// After the reboot: the drbd instances whose disks resynchronise.
    pub resync: Vec<Job>,
    /// Then: the jobs that bring the instances back.
    pub restore: Vec<Job>,
}

/// Why a group cannot be carried out safely.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsafe {
    /// The instance (index).
    pub instance: usize,
    /// What stands in the way (its words: `write::roll`).
    pub reason: Obstacle,
}

/// What stands in the way of an instance leaving a reboot group (nodes by
/// name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Obstacle {
    /// Its primary and secondary nodes are both in the group.
    BothNodesInGroup,
    /// Its target node is offline.
    TargetOffline(String),
    /// Its target node is rebooted in the same group.
    TargetInGroup(String),
    /// The node refuses it: the check that failed.
    Refused(String, FailMode),
    /// After a migration, its old primary cannot be its secondary.
    OldPrimaryRefused(FailMode),
}

/// The plan of reboot group `group` (node indices): the instances'
/// moves read from hroller's configuration `after` for the group (what
/// it planned) against `before` (the cluster as it is).
///
/// # Errors
///
/// The first instance whose evacuation would be unsafe: its target is
/// offline, one of the group's nodes, or lacks the memory or disk (hard
/// limits, after the moves before it), or a drbd instance has both nodes
/// in the group.
pub fn plan(
    before: &Conf,
    after: &Conf,
    group: &[usize],
    maintenance: Maintenance,
) -> Result<GroupPlan, Unsafe> {
    let in_group = |k: i32| usize::try_from(k).is_ok_and(|k| group.contains(&k));
    let mut p = GroupPlan {
        nodes: group.to_vec(),
        ..GroupPlan::default()
    };
    for (idx, (inst, planned)) in before.insts.iter().zip(&after.insts).enumerate() {
        let (p_in, s_in) = (
            in_group(inst.p_node),
            inst.has_secondary() && in_group(inst.s_node),
        );
        if !(p_in || s_in) || !inst.run_state.is_running() {
            continue;
        }
        let unsafe_ = |reason: Obstacle| Unsafe {
            instance: idx,
            reason,
        };
        let job = |actions: Vec<Action>| Job {
            instance: idx,
            actions,
        };
        if p_in && s_in {
            return Err(unsafe_(Obstacle::BothNodesInGroup));
        }
        let drbd = inst.disk_template.mirror_type() == MirrorType::Internal;
        if maintenance == Maintenance::Offline && p_in {
            p.evacuate.push(job(vec![Action::Shutdown]));
            p.restore.push(job(vec![Action::Startup]));
            continue;
        }
        if !p_in {
            // A drbd secondary in the group, replaced in the plan or not.
            if maintenance == Maintenance::Online
                && planned.s_node != inst.s_node
                && planned.s_node >= 0
            {
                let to = planned.s_node as usize;
                let back = inst.s_node as usize;
                p.evacuate.push(job(vec![Action::ReplaceSecondary(to)]));
                p.restore.push(job(vec![Action::ReplaceSecondary(back)]));
            } else {
                p.resync.push(job(vec![Action::Resync]));
            }
            continue;
        }
        let home = inst.p_node as usize;
        if drbd {
            // After the migration the rebooted node is the secondary,
            // which `--full-evacuation` plans to replace.
            let migrated = planned.p_node == inst.s_node;
            if migrated && planned.s_node != inst.p_node && planned.s_node >= 0 {
                let to = planned.s_node as usize;
                p.evacuate.push(job(vec![
                    Action::Migrate(None),
                    Action::ReplaceSecondary(to),
                ]));
                p.restore.push(job(vec![
                    Action::ReplaceSecondary(home),
                    Action::Migrate(None),
                ]));
            } else {
                p.evacuate.push(job(vec![Action::Migrate(None)]));
                p.resync.push(job(vec![Action::Resync]));
                p.restore.push(job(vec![Action::Migrate(None)]));
            }
        } else if planned.p_node != inst.p_node && planned.p_node >= 0 {
            let to = planned.p_node as usize;
            let (out, back) = if inst.disk_template.mirror_type() == MirrorType::External {
                (Action::Migrate(Some(to)), Action::Migrate(Some(home)))
            } else {
                (Action::Move(to), Action::Move(home))
            };
            p.evacuate.push(job(vec![out]));
            p.restore.push(job(vec![back]));
        } else {
            p.evacuate.push(job(vec![Action::Shutdown]));
            p.restore.push(job(vec![Action::Startup]));
        }
    }
    check(before, &p)?;
    Ok(p)
}

/// Replays the evacuation on a copy of `conf`: every target online,
/// outside the group, with the memory (and local disk) the instance
/// needs after the moves before it.
fn check(conf: &Conf, p: &GroupPlan) -> Result<(), Unsafe> {
    let mut nodes = conf.nodes.clone();
    let mut insts: Vec<Instance> = conf.insts.clone();
    for j in &p.evacuate {
        for a in &j.actions {
            let inst = insts[j.instance].clone();
            let unsafe_ = |reason: Obstacle| Unsafe {
                instance: j.instance,
                reason,
            };
            let target = match *a {
                Action::Migrate(None) => inst.s_node as usize,
                Action::Migrate(Some(t)) | Action::Move(t) | Action::ReplaceSecondary(t) => t,
                Action::Resync | Action::Shutdown | Action::Startup => continue,
            };
            let name = nodes[target].info.name.to_string();
            if nodes[target].offline {
                return Err(unsafe_(Obstacle::TargetOffline(name)));
            }
            if p.nodes.contains(&target) {
                return Err(unsafe_(Obstacle::TargetInGroup(name)));
            }
            let refused = |f: FailMode| unsafe_(Obstacle::Refused(name.clone(), f));
            let (pri, sec) = (inst.p_node as usize, inst.s_node);
            match *a {
                Action::Migrate(None) => {
                    let s = sec as usize;
                    nodes[pri].remove_pri(&inst);
                    nodes[s].remove_sec(&inst);
                    nodes[s]
                        .add_pri(SoftChecks::Ignore, &inst)
                        .map_err(refused)?;
                    let mut moved = inst.clone();
                    moved.p_node = s as i32;
                    moved.s_node = pri as i32;
                    nodes[pri]
                        .add_sec(false, SoftChecks::Ignore, &moved, s as i32)
                        .map_err(|f| unsafe_(Obstacle::OldPrimaryRefused(f)))?;
                    insts[j.instance] = moved;
                }
                Action::Migrate(Some(t)) | Action::Move(t) => {
                    nodes[pri].remove_pri(&inst);
                    nodes[t]
                        .add_pri(SoftChecks::Ignore, &inst)
                        .map_err(refused)?;
                    insts[j.instance].p_node = t as i32;
                }
                Action::ReplaceSecondary(t) => {
                    nodes[sec as usize].remove_sec(&inst);
                    nodes[t]
                        .add_sec(false, SoftChecks::Ignore, &inst, pri as i32)
                        .map_err(refused)?;
                    insts[j.instance].s_node = t as i32;
                }
                Action::Resync | Action::Shutdown | Action::Startup => {}
            }
        }
    }
    Ok(())
}
