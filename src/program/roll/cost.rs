//! What carrying out `hailstone-roll`'s reboot groups costs
//! ([`crate::model::cost`]): the jobs `-X` submits for each group
//! ([`crate::search::reboot::plan`], the master left out as `-X` leaves
//! it), by what each action copies:
//!
//! * a live migration (`migrate`) copies the instance's memory;
//! * a new secondary (`replace-disks -n`) resyncs every disk, and
//!   `gnt-instance move` (plain and file instances) copies every disk;
//! * the resync of a drbd instance whose secondary was rebooted copies
//!   only the blocks written while it was down, which no input says: it
//!   is not counted; shutting down and starting up copy nothing.
//!
//! A group's evacuation jobs are submitted together (one job set), then
//! after the reboot its return jobs (another): a group takes the longest
//! of each, the groups one after another. A group that `-X` would refuse
//! (an instance that cannot leave it safely) has no cost.

use crate::model::cost::{disk_data, MoveCost, PlanCost, Rates};
use crate::model::instance::Instance;
use crate::search::reboot::{self, Action, Job};
use crate::search::roll::{Conf, Maintenance};

/// What one action on `inst` copies and does. Every action is on a
/// running instance (the plan moves no other).
fn action(inst: &Instance, a: Action) -> MoveCost {
    match a {
        Action::Migrate(_) => MoveCost {
            memory: inst.mem.max(0),
            migrations: 1,
            ..MoveCost::default()
        },
        Action::ReplaceSecondary(_) => MoveCost {
            disk: disk_data(inst),
            replacements: 1,
            ..MoveCost::default()
        },
        Action::Move(_) => MoveCost {
            disk: disk_data(inst),
            ..MoveCost::default()
        },
        Action::Resync | Action::Shutdown | Action::Startup => MoveCost::default(),
    }
}

/// A job's cost: its actions' added up.
fn job(conf: &Conf, j: &Job) -> MoveCost {
    let inst = &conf.insts[j.instance];
    j.actions
        .iter()
        .fold(MoveCost::default(), |t, &a| t.plus(action(inst, a)))
}

/// The job sets of reboot group `group` (node indices) with hroller's
/// configuration `after` for it: its evacuation, then its return; `None`
/// when `-X` would refuse the group.
pub fn group_sets(
    conf: &Conf,
    after: &Conf,
    group: &[usize],
    maintenance: Maintenance,
) -> Option<Vec<Vec<MoveCost>>> {
    let master = conf.nodes.iter().position(|n| n.info.master);
    let nodes: Vec<usize> = group
        .iter()
        .copied()
        .filter(|&n| Some(n) != master)
        .collect();
    let p = reboot::plan(conf, after, &nodes, maintenance).ok()?;
    let set = |jobs: &[Job]| -> Vec<MoveCost> { jobs.iter().map(|j| job(conf, j)).collect() };
    Some(
        [set(&p.evacuate), set(&p.restore)]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect(),
    )
}

/// The cost of the groups' job sets (each `None`: refused, left out), in
/// order, at `rates`.
pub fn total(groups: &[Option<Vec<Vec<MoveCost>>>], rates: Rates) -> PlanCost {
    let sets: Vec<Vec<MoveCost>> = groups.iter().flatten().flatten().cloned().collect();
    PlanCost::of_sets(&sets, rates)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::types::DiskTemplate;

    /// Each action copies what it moves: memory for a migration, the
    /// disks for a new secondary or a copy, nothing for the rest.
    #[test]
    fn actions_copy_what_they_move() {
        let i = Instance::for_calculation("i", 512, 2048, 1, 1, DiskTemplate::Drbd, true);
        assert_eq!(action(&i, Action::Migrate(None)).memory, 512);
        assert_eq!(action(&i, Action::ReplaceSecondary(1)).disk, 2048);
        assert_eq!(action(&i, Action::ReplaceSecondary(1)).replacements, 1);
        assert_eq!(action(&i, Action::Move(1)).disk, 2048);
        assert_eq!(action(&i, Action::Move(1)).replacements, 0);
        assert_eq!(action(&i, Action::Resync), MoveCost::default());
    }
}
