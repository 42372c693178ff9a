//! harep's auto-repair state machine (`Program/Harep.hs`, the policy of
//! `Loader.setArPolicy`), as data: the repair types an instance may get
//! (`ganeti:watcher:autorepair:TYPE` tags on the cluster, the node group
//! or the instance, the narrowest scope winning, `...:suspend:[TIME]`
//! suspending), the repair history its `...:pending:` and `...:result:`
//! tags record, the state that history leaves it in, and what is broken
//! (an offline primary or secondary of a drbd or plain instance) with
//! the repair that fixes it.
//!
//! Times are whole seconds since the epoch; the program supplies "now"
//! and new task UUIDs.
//!
//! What a repair's opcodes cost ([`op_cost`], [`crate::model::cost`]'s
//! measures): a new secondary resyncs every disk of the instance; a
//! failover (never a migration) copies nothing; recreating a drbd
//! instance's disks makes a new pair whose secondary resyncs every disk
//! from the new primary, a disk replacement; a plain instance's disks
//! and the reinstall copy nothing over the network.

use std::cmp::Ordering;

use crate::model::cost::{disk_data, MoveCost};
use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::model::types::DiskTemplate;

/// Every auto-repair tag starts so.
pub const PREFIX: &str = "ganeti:watcher:autorepair:";
const PENDING: &str = "ganeti:watcher:autorepair:pending:";
const RESULT: &str = "ganeti:watcher:autorepair:result:";
const SUSPEND: &str = "ganeti:watcher:autorepair:suspend:";

/// A repair, from the least to the most intrusive (Ganeti's order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RepairType {
    FixStorage,
    Migrate,
    Failover,
    Reinstall,
}

impl RepairType {
    const ALL: [RepairType; 4] = [
        RepairType::FixStorage,
        RepairType::Migrate,
        RepairType::Failover,
        RepairType::Reinstall,
    ];

    /// The name in tags.
    pub fn raw(self) -> &'static str {
        match self {
            RepairType::FixStorage => "fix-storage",
            RepairType::Migrate => "migrate",
            RepairType::Failover => "failover",
            RepairType::Reinstall => "reinstall",
        }
    }

    fn from_raw(s: &str) -> Option<RepairType> {
        RepairType::ALL.into_iter().find(|t| t.raw() == s)
    }

    /// Haskell's `show` (`ArFixStorage`, ...).
    pub fn constructor(self) -> &'static str {
        match self {
            RepairType::FixStorage => "ArFixStorage",
            RepairType::Migrate => "ArMigrate",
            RepairType::Failover => "ArFailover",
            RepairType::Reinstall => "ArReinstall",
        }
    }
}

/// How a repair ended (Ganeti's order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RepairResult {
    /// Not allowed by the policy.
    Enoperm,
    Success,
    Failure,
}

impl RepairResult {
    fn raw(self) -> &'static str {
        match self {
            RepairResult::Enoperm => "enoperm",
            RepairResult::Success => "success",
            RepairResult::Failure => "failure",
        }
    }

    fn from_raw(s: &str) -> Option<RepairResult> {
        [
            RepairResult::Enoperm,
            RepairResult::Success,
            RepairResult::Failure,
        ]
        .into_iter()
        .find(|r| r.raw() == s)
    }
}

/// Whether repairs are allowed for an instance (`AutoRepairPolicy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Up to this type.
    Enabled(RepairType),
    /// Suspended forever (`None`) or until a time.
    Suspended(Option<i64>),
    NotEnabled,
}

/// One repair task as a tag records it (`AutoRepairData`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepairData {
    pub kind: RepairType,
    pub uuid: String,
    pub time: i64,
    pub jobs: Vec<i64>,
    pub result: Option<RepairResult>,
    /// The tag it was read from, or the one [`RepairData::retag`] wrote.
    pub tag: String,
}

impl RepairData {
    /// A new task's record with its tag (`updateTag`).
    pub fn new(
        kind: RepairType,
        uuid: String,
        time: i64,
        jobs: Vec<i64>,
        result: Option<RepairResult>,
    ) -> RepairData {
        let mut d = RepairData {
            kind,
            uuid,
            time,
            jobs,
            result,
            tag: String::new(),
        };
        d.retag();
        d
    }

    /// Writes the tag that records the other fields (`updateTag`).
    pub fn retag(&mut self) {
        let jobs: Vec<String> = self.jobs.iter().map(i64::to_string).collect();
        let mut parts = vec![
            self.kind.raw().to_owned(),
            self.uuid.clone(),
            self.time.to_string(),
        ];
        let prefix = match self.result {
            None => PENDING,
            Some(r) => {
                parts.push(r.raw().to_owned());
                RESULT
            }
        };
        parts.push(jobs.join("+"));
        self.tag = format!("{prefix}{}", parts.join(":"));
    }
}

/// Where an instance stands (`AutoRepairStatus`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Healthy(Option<RepairData>),
    NeedsRepair(RepairData),
    Pending(RepairData),
    Failed(RepairData),
}

impl Status {
    /// The task record, if any (`getArData`).
    pub fn data(&self) -> Option<&RepairData> {
        match self {
            Status::Healthy(d) => d.as_ref(),
            Status::NeedsRepair(d) | Status::Pending(d) | Status::Failed(d) => Some(d),
        }
    }

    /// The short name (`arStateName`).
    pub fn name(&self) -> &'static str {
        match self {
            Status::Healthy(_) => "Healthy",
            Status::Failed(_) => "Failure",
            Status::Pending(_) => "Pending repair",
            Status::NeedsRepair(_) => "Needs repair",
        }
    }
}

/// An instance's repair state and the tags to remove when it is next
/// committed (`InstanceData`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstanceState {
    pub instance: usize,
    pub status: Status,
    pub to_remove: Vec<String>,
}

impl InstanceState {
    /// The tags to remove with the present task's tag added
    /// (`delCurTag`).
    pub fn with_current_tag(&self) -> Vec<String> {
        let mut v = Vec::with_capacity(self.to_remove.len() + 1);
        if let Some(d) = self.status.data() {
            v.push(d.tag.clone());
        }
        v.extend(self.to_remove.iter().cloned());
        v
    }

    /// The next state, the present task's tag to be removed.
    pub fn moved_to(&self, status: Status) -> InstanceState {
        InstanceState {
            instance: self.instance,
            to_remove: self.with_current_tag(),
            status,
        }
    }
}

/// Haskell's `read` of an integer: optional spaces around it, an
/// optional minus sign.
fn read_int(s: &str) -> Option<i64> {
    let t = s.trim();
    let digits = t.strip_prefix('-').unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

/// The policy the tags of one scope set (`getArPolicy`): a suspension
/// without a time, then one in the future (the latest), then the least
/// enabled type.
pub fn scope_policy(tags: &[String], now: i64) -> Option<Policy> {
    let enabled = tags
        .iter()
        .filter_map(|t| t.strip_prefix(PREFIX))
        .filter_map(RepairType::from_raw)
        .min();
    let suspended: Vec<&str> = tags
        .iter()
        .filter_map(|t| t.strip_prefix(SUSPEND))
        .collect();
    let future = suspended
        .iter()
        .filter_map(|s| read_int(s))
        .filter(|&t| t > now)
        .max();
    if suspended.contains(&"") {
        Some(Policy::Suspended(None))
    } else if let Some(t) = future {
        Some(Policy::Suspended(Some(t)))
    } else {
        enabled.map(Policy::Enabled)
    }
}

/// An instance's policy (`setArPolicy`): its own tags', else its primary
/// node's group's, else the cluster's, else not enabled.
pub fn policy(
    cluster_tags: &[String],
    group_tags: &[String],
    inst_tags: &[String],
    now: i64,
) -> Policy {
    scope_policy(inst_tags, now)
        .or_else(|| scope_policy(group_tags, now))
        .or_else(|| scope_policy(cluster_tags, now))
        .unwrap_or(Policy::NotEnabled)
}

/// A pending or result tag as a task record (`parseInitTag`); `None`
/// for any other tag or a malformed one (a task without jobs is one).
pub fn parse_tag(tag: &str) -> Option<RepairData> {
    let (fields, pending): (Vec<&str>, bool) = if let Some(rest) = tag.strip_prefix(PENDING) {
        (rest.split(':').collect(), true)
    } else if let Some(rest) = tag.strip_prefix(RESULT) {
        (rest.split(':').collect(), false)
    } else {
        return None;
    };
    let (kind, uuid, time, result, jobs) = match (pending, fields.as_slice()) {
        (true, [k, u, t, j]) => (k, u, t, None, j),
        (false, [k, u, t, r, j]) => (k, u, t, Some(RepairResult::from_raw(r)?), j),
        _ => return None,
    };
    let jobs = jobs
        .split('+')
        .map(|j| read_int(j).filter(|&n| n >= 0))
        .collect::<Option<Vec<i64>>>()?;
    Some(RepairData {
        kind: RepairType::from_raw(kind)?,
        uuid: (*uuid).to_owned(),
        time: read_int(time)?,
        jobs,
        result,
        tag: tag.to_owned(),
    })
}

/// The state an instance's tags leave it in (`setInitialState`): its
/// tasks grouped by UUID, the groups from the oldest, each deciding by
/// its latest record (by result, then time) unless a failure came first.
///
/// # Errors
///
/// A pending task followed by another (harep's message).
pub fn initial_state(
    instance: usize,
    name: &str,
    tags: &[String],
) -> Result<InstanceState, String> {
    let mut data: Vec<RepairData> = tags.iter().filter_map(|t| parse_tag(t)).collect();
    data.sort_by(|a, b| a.uuid.cmp(&b.uuid));
    let mut groups: Vec<Vec<RepairData>> = Vec::new();
    for d in data {
        match groups.last_mut() {
            Some(g) if g[0].uuid == d.uuid => g.push(d),
            _ => groups.push(vec![d]),
        }
    }
    let oldest = |g: &Vec<RepairData>| g.iter().map(|d| d.time).min().unwrap_or(0);
    groups.sort_by_key(oldest);
    let mut state = InstanceState {
        instance,
        status: Status::Healthy(None),
        to_remove: Vec::new(),
    };
    for mut g in groups {
        g.sort_by(|a, b| match a.result.cmp(&b.result) {
            Ordering::Equal => a.time.cmp(&b.time),
            other => other,
        });
        let newest = g.pop().expect("a group has a record");
        let next = match newest.result {
            Some(RepairResult::Success | RepairResult::Enoperm) => Status::Healthy(Some(newest)),
            Some(RepairResult::Failure) => Status::Failed(newest),
            None => Status::Pending(newest),
        };
        state = match &state.status {
            Status::Failed(_) => state,
            Status::Healthy(_) => state.moved_to(next),
            Status::Pending(old) => {
                let new_tag = next.data().map_or(String::new(), |d| d.tag.clone());
                return Err(format!(
                    "An unfinished repair was found in instance {name}: found tag {}, but older pending tag {}exists.",
                    crate::haskell::show::show_string(&new_tag),
                    crate::haskell::show::show_string(&old.tag)
                ));
            }
            Status::NeedsRepair(_) => {
                return Err("programming error: ArNeedsRepair found as an initial state".to_owned())
            }
        };
    }
    Ok(state)
}

/// An opcode of a repair (harep's jobs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepairOp {
    /// Recreate every disk on nodes the iallocator chooses.
    RecreateDisks,
    Reinstall,
    /// To the secondary.
    Failover,
    /// A new secondary the iallocator chooses.
    ReplaceSecondary,
}

/// What is broken with an instance and the repair for it
/// (`detectBroken`): drbd with both nodes offline, or plain with its
/// node offline: reinstall; drbd with its primary offline: failover; with
/// its secondary offline: a new secondary. Other templates are not
/// repaired.
pub fn detect(inst: &Instance, nodes: &[Node]) -> Option<(RepairType, Vec<RepairOp>)> {
    let offline = |k: i32| {
        usize::try_from(k)
            .ok()
            .and_then(|k| nodes.get(k))
            .is_some_and(|n| n.offline)
    };
    let (pri, sec) = (offline(inst.p_node), offline(inst.s_node));
    let reinstall = (
        RepairType::Reinstall,
        vec![RepairOp::RecreateDisks, RepairOp::Reinstall],
    );
    match inst.disk_template {
        DiskTemplate::Drbd if pri && sec => Some(reinstall),
        DiskTemplate::Drbd if pri => Some((RepairType::Failover, vec![RepairOp::Failover])),
        DiskTemplate::Drbd if sec => {
            Some((RepairType::FixStorage, vec![RepairOp::ReplaceSecondary]))
        }
        DiskTemplate::Plain if pri => Some(reinstall),
        _ => None,
    }
}

/// What the opcode `op` of a repair of `inst` copies and does.
pub fn op_cost(inst: &Instance, op: RepairOp) -> MoveCost {
    let replacement = MoveCost {
        disk: disk_data(inst),
        replacements: 1,
        ..MoveCost::default()
    };
    match op {
        RepairOp::ReplaceSecondary => replacement,
        RepairOp::RecreateDisks if inst.disk_template == DiskTemplate::Drbd => replacement,
        RepairOp::RecreateDisks | RepairOp::Reinstall => MoveCost::default(),
        RepairOp::Failover => MoveCost {
            failovers: 1,
            ..MoveCost::default()
        },
    }
}

/// What a repair of `inst` by the opcodes `ops` copies and does.
pub fn repair_cost(inst: &Instance, ops: &[RepairOp]) -> MoveCost {
    ops.iter()
        .fold(MoveCost::default(), |t, &op| t.plus(op_cost(inst, op)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(t: &[&str]) -> Vec<String> {
        t.iter().map(|s| format!("{PREFIX}{s}")).collect()
    }

    #[test]
    fn policies_by_scope() {
        let now = 1_000;
        assert_eq!(
            scope_policy(&tags(&["reinstall", "migrate"]), now),
            Some(Policy::Enabled(RepairType::Migrate))
        );
        assert_eq!(
            scope_policy(&tags(&["migrate", "suspend:"]), now),
            Some(Policy::Suspended(None))
        );
        assert_eq!(
            scope_policy(&tags(&["migrate", "suspend:999", "suspend:2000"]), now),
            Some(Policy::Suspended(Some(2000)))
        );
        assert_eq!(
            scope_policy(&tags(&["migrate", "suspend:999"]), now),
            Some(Policy::Enabled(RepairType::Migrate))
        );
        assert_eq!(scope_policy(&tags(&["bogus", "pending:x"]), now), None);
        let cluster = tags(&["failover"]);
        assert_eq!(
            policy(&cluster, &[], &tags(&["fix-storage"]), now),
            Policy::Enabled(RepairType::FixStorage)
        );
        assert_eq!(
            policy(&cluster, &tags(&["suspend:"]), &[], now),
            Policy::Suspended(None)
        );
        assert_eq!(policy(&[], &[], &[], now), Policy::NotEnabled);
    }

    #[test]
    fn tags_round_trip_and_malformed_ones() {
        let d = parse_tag(&format!("{PREFIX}result:failover:u1:17:success:12+13")).unwrap();
        assert_eq!(
            (d.kind, d.time, d.jobs.clone(), d.result),
            (
                RepairType::Failover,
                17,
                vec![12, 13],
                Some(RepairResult::Success)
            )
        );
        let mut again = d.clone();
        again.retag();
        assert_eq!(again.tag, d.tag);
        // No jobs, a bad type or time: not a task.
        assert_eq!(parse_tag(&format!("{PREFIX}pending:migrate:u:17:")), None);
        assert_eq!(parse_tag(&format!("{PREFIX}pending:bogus:u:17:1")), None);
        assert_eq!(parse_tag(&format!("{PREFIX}pending:migrate:u:x:1")), None);
        let new = RepairData::new(
            RepairType::Reinstall,
            "u2".into(),
            5,
            vec![],
            Some(RepairResult::Enoperm),
        );
        assert_eq!(new.tag, format!("{PREFIX}result:reinstall:u2:5:enoperm:"));
    }

    #[test]
    fn the_earliest_failure_wins_and_pending_twice_is_an_error() {
        let t = tags(&[
            "result:fix-storage:c:200:failure:20",
            "result:migrate:d:300:success:21",
        ]);
        let s = initial_state(0, "i", &t).unwrap();
        assert_eq!(s.status.name(), "Failure");
        assert_eq!(s.to_remove, Vec::<String>::new());
        let t = tags(&[
            "result:migrate:d:300:success:21",
            "pending:migrate:e:400:22",
        ]);
        let s = initial_state(0, "i", &t).unwrap();
        assert_eq!(s.status.name(), "Pending repair");
        assert_eq!(s.to_remove, vec![t[0].clone()]);
        let t = tags(&["pending:migrate:a:100:1", "pending:failover:b:200:2"]);
        assert!(initial_state(0, "i", &t)
            .unwrap_err()
            .starts_with("An unfinished repair was found in instance i"));
    }

    /// A new secondary and a drbd reinstall resync every disk; a failover
    /// and a plain reinstall copy nothing.
    #[test]
    fn repairs_cost_their_resyncs() {
        use crate::model::instance::Disk;
        let mut drbd = Instance::for_calculation("i", 4096, 0, 1, 1, DiskTemplate::Drbd, true);
        drbd.disks = [300, 700]
            .iter()
            .map(|&size| Disk {
                size,
                spindles: None,
            })
            .collect();
        let fix = repair_cost(&drbd, &[RepairOp::ReplaceSecondary]);
        assert_eq!((fix.disk, fix.replacements, fix.memory), (1000, 1, 0));
        let fail = repair_cost(&drbd, &[RepairOp::Failover]);
        assert_eq!((fail.disk, fail.failovers, fail.migrations), (0, 1, 0));
        let again = [RepairOp::RecreateDisks, RepairOp::Reinstall];
        assert_eq!(repair_cost(&drbd, &again), fix);
        let mut plain = drbd.clone();
        plain.disk_template = DiskTemplate::Plain;
        assert_eq!(repair_cost(&plain, &again), MoveCost::default());
    }
}
