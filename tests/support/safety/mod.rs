//! An independent safety checker for iallocator answers.
//!
//! This module owns one question: if Ganeti executed this answer on the cluster
//! the request describes, would it break a rule of Ganeti or of the hardware?
//! [`check`] takes the request JSON, the allocator's command-line options and
//! the answer JSON, applies the answer to a model of the cluster (placements one
//! after another, evacuation jobs opcode by opcode) and returns every
//! [`Violation`] it finds; an empty list means the answer is safe.
//!
//! The checker is deliberately independent of the allocator. It imports nothing
//! from the `hailstone` library and does not reproduce hail's algorithm (no
//! scores, no N+1 simulation, no tie-breaking). Its rules come from what Ganeti
//! itself refuses or needs when it executes an answer (`masterd/iallocator.py`
//! for the answer shape, `cmdlib/instance_create.py`, `instance_migration.py`,
//! `instance_storage.py` and `instance_set_params.py` for node and capacity
//! checks, `opcodes.py` for the job opcodes) and from what a node can
//! physically hold. Several rules are weaker than hail's own policy on purpose
//! (memory is checked against the reported `free_memory` only, soft policies
//! such as the vcpu ratio are ignored): it checks safety, not hail's choices.
//!
//! The request is read leniently. The checker assumes a request that hail
//! accepts, reads only the fields its rules need, and uses conservative
//! defaults for missing resource numbers (a node without `free_memory` has no
//! free memory). A request it cannot interpret at all gives one
//! `request-invalid` violation. Nothing in here panics on any input: numbers are
//! clamped, arithmetic saturates, and every lookup is checked.
//!
//! How answers are applied:
//!
//! * allocate places one instance; multi-allocate places its instances in the
//!   order of the answer, each on the cluster the earlier ones left (memory,
//!   disk, spindles and exclusion tags add up). Only `--restrict-allocation-to`
//!   restricts multi-allocate (Ganeti sends no list there); its instances use
//!   their own `group_name`, else the outer one.
//! * node-evacuate and change-group apply the jobs in answer order, opcode by
//!   opcode. A moving instance takes its memory (if running) to the new
//!   primary and frees it on the old one; a new DRBD secondary takes
//!   `disk_space_total` and the old one gets it back. Ganeti checks capacity
//!   again when each job runs, so an answer that relies on an earlier job
//!   freeing room is at worst refused, never overcommitted.
//! * A DRBD pair may straddle two groups between the opcodes of one job (the
//!   change-group sequence does), but not once the job is done.
//!
//! Rules that go beyond what hail itself enforces, because Ganeti refuses the
//! result when it executes it: `exclusive-storage-template` (only plain may
//! use exclusive storage), `spindles-without-exclusive-storage`,
//! `ipolicy-nic-count` (Ganeti checks the NIC count, hail does not), the
//! instance policy's spindle use (Ganeti checks the `spindle_use` parameter of
//! a new instance, hail the disks' spindles under exclusive storage), the DRBD
//! metadata (128 MiB per disk) on an allocate-secondary target, and a
//! multi-allocate instance's own `group_name` (hail reads only the outer one).
//!
//! Output is deterministic: violations come in the order they were found, and
//! everything is iterated in input order (the JSON reader keeps key order).

// Test binaries that include this module use different parts of it.
#![allow(dead_code)]

mod apply;
mod cluster;
mod envelope;
mod json;
mod opcodes;
mod options;
mod policy;

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use apply::*;
use cluster::*;
use envelope::*;
use json::*;
use opcodes::*;
use options::*;
use policy::*;

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// A short stable identifier of the rule, one of [`RULES`].
    pub rule: &'static str,
    /// What exactly is wrong, naming the instances and nodes involved.
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.rule, self.detail)
    }
}

/// Every rule identifier the checker can report, with a one-line description.
pub const RULES: &[(&str, &str)] = &[
    (ANSWER_SHAPE, "the answer is not {success, info, result} in that order, or the result does not have the request type's shape"),
    (REQUEST_INVALID, "the request itself cannot be interpreted"),
    (OPTIONS_UNSUPPORTED, "an option is unknown or ambiguous, or replaces the cluster data (-t, --simulate)"),
    (UNKNOWN_NAME, "a node, instance or group named in the result does not exist in the request"),
    (NODE_COUNT, "the number of nodes differs from required_nodes or from what the disk template needs"),
    (SAME_NODE, "one node is used twice where two different nodes are needed"),
    (CROSS_GROUP, "the primary and secondary of a DRBD instance are in different node groups"),
    (OFFLINE_TARGET, "a new primary or secondary is offline"),
    (DRAINED_TARGET, "a new primary or secondary is drained"),
    (NOT_VM_CAPABLE_TARGET, "a new primary or secondary is not vm_capable"),
    (MEMORY, "a running instance does not fit in the free memory of its (new) primary"),
    (DISK, "the disks do not fit in the free disk of a (new) node"),
    (SPINDLES, "exclusive storage: free spindles do not cover the disks, or a disk has no spindle count"),
    (SPINDLES_WITHOUT_ES, "disks carry spindle counts but no chosen node has exclusive storage (Ganeti refuses)"),
    (ES_TEMPLATE, "a node with exclusive storage gets a disk template Ganeti does not support there"),
    (IPOLICY, "the instance violates the instance policy of the group it is placed in or moved to"),
    (IPOLICY_NIC_COUNT, "the instance matches a min/max pair only if the NIC count is ignored (Ganeti checks it, hail does not)"),
    (NETWORK, "a NIC's network is not connected to the chosen group"),
    (EXCLUSION_TAG, "two instances sharing an exclusion tag end up on the same primary"),
    (UNALLOCABLE_GROUP, "an allocation without group_name uses an unallocable group"),
    (GROUP_NAME, "an allocation with group_name uses nodes outside that group"),
    (RESTRICT, "a node is outside --restrict-allocation-to / restrict-to-nodes"),
    (MULTI_ALLOC_LIST, "multi-allocate: an instance is unknown, listed twice, or missing from both lists"),
    (BAD_OPCODE, "a job opcode is not one Ganeti's job loader accepts, or would not move the instance as intended"),
    (JOB_INSTANCE, "an opcode names another instance than the moved entry its job belongs to"),
    (UNMOVABLE_TEMPLATE, "an opcode or relocation Ganeti refuses for the instance's disk template"),
    (REPLACE_OFFLINE_PRIMARY, "replace-disks is asked for while the instance's primary is offline"),
    (MIGRATION_TAGS, "a migration/failover target lacks the migration tags (htools:migration) of the source"),
    (MOVED_LIST, "the moved list disagrees with the state after the jobs, or jobs and moved entries do not pair up"),
    (FAILED_LIST, "a failed entry names an instance that was not requested or that was also moved"),
    (EVACUATED_NODE, "node-evacuate: a moved instance still uses the evacuated node in the evacuated role"),
    (CHANGE_GROUP_TARGET, "change-group: a moved instance does not end in a target group, or stays in its own group"),
    (RELOCATE_GROUP, "relocate: the new node is outside the groups of the instance and relocate_from"),
];

/// Rule id: the answer envelope or result shape is wrong.
pub const ANSWER_SHAPE: &str = "answer-shape";
/// Rule id: the request cannot be interpreted.
pub const REQUEST_INVALID: &str = "request-invalid";
/// Rule id: the options are unknown, ambiguous or not supported by the checker.
pub const OPTIONS_UNSUPPORTED: &str = "options-unsupported";
/// Rule id: a name in the result does not exist in the request.
pub const UNKNOWN_NAME: &str = "unknown-name";
/// Rule id: wrong number of nodes.
pub const NODE_COUNT: &str = "node-count";
/// Rule id: the same node twice.
pub const SAME_NODE: &str = "same-node";
/// Rule id: DRBD pair across groups.
pub const CROSS_GROUP: &str = "cross-group";
/// Rule id: offline target node.
pub const OFFLINE_TARGET: &str = "offline-target";
/// Rule id: drained target node.
pub const DRAINED_TARGET: &str = "drained-target";
/// Rule id: target node is not vm_capable.
pub const NOT_VM_CAPABLE_TARGET: &str = "not-vm-capable-target";
/// Rule id: memory overcommit.
pub const MEMORY: &str = "memory";
/// Rule id: disk overcommit.
pub const DISK: &str = "disk";
/// Rule id: exclusive-storage spindles.
pub const SPINDLES: &str = "spindles";
/// Rule id: spindles given without exclusive storage.
pub const SPINDLES_WITHOUT_ES: &str = "spindles-without-exclusive-storage";
/// Rule id: disk template not supported with exclusive storage.
pub const ES_TEMPLATE: &str = "exclusive-storage-template";
/// Rule id: instance policy.
pub const IPOLICY: &str = "ipolicy";
/// Rule id: instance policy, NIC count only.
pub const IPOLICY_NIC_COUNT: &str = "ipolicy-nic-count";
/// Rule id: network not connected.
pub const NETWORK: &str = "network";
/// Rule id: exclusion tags.
pub const EXCLUSION_TAG: &str = "exclusion-tag";
/// Rule id: unallocable group.
pub const UNALLOCABLE_GROUP: &str = "unallocable-group";
/// Rule id: requested group not honoured.
pub const GROUP_NAME: &str = "group-name";
/// Rule id: restrict list.
pub const RESTRICT: &str = "restrict";
/// Rule id: multi-allocate lists.
pub const MULTI_ALLOC_LIST: &str = "multi-alloc-list";
/// Rule id: bad opcode.
pub const BAD_OPCODE: &str = "bad-opcode";
/// Rule id: opcode for the wrong instance.
pub const JOB_INSTANCE: &str = "job-instance";
/// Rule id: operation refused for the disk template.
pub const UNMOVABLE_TEMPLATE: &str = "unmovable-template";
/// Rule id: replace-disks with an offline primary.
pub const REPLACE_OFFLINE_PRIMARY: &str = "replace-offline-primary";
/// Rule id: migration tags.
pub const MIGRATION_TAGS: &str = "migration-tags";
/// Rule id: moved list.
pub const MOVED_LIST: &str = "moved-list";
/// Rule id: failed list.
pub const FAILED_LIST: &str = "failed-list";
/// Rule id: evacuated node still used.
pub const EVACUATED_NODE: &str = "evacuated-node";
/// Rule id: change-group target.
pub const CHANGE_GROUP_TARGET: &str = "change-group-target";
/// Rule id: relocate group.
pub const RELOCATE_GROUP: &str = "relocate-group";

/// Checks one answer.
///
/// `options` are the allocator's command-line options (e.g.
/// `"--ignore-soft-errors"`, `"--restrict-allocation-to=a,b"`,
/// `"--static-kvm-node-memory=0"`); arguments that are not options (such as the
/// request file name) are ignored. Returns all violations found, in a
/// deterministic order; an empty list means the answer is safe. An answer that
/// cannot be interpreted (not one JSON object with `success`, `info` and
/// `result`, or a result of the wrong shape for the request type) is reported
/// as `answer-shape`, never as a panic.
pub fn check(request_json: &str, options: &[String], answer_json: &str) -> Vec<Violation> {
    let mut rep = Report::default();
    let opts = Options::parse(options, &mut rep);
    if opts.replaces_cluster {
        return rep.list;
    }
    let request = match parse_json(request_json) {
        Ok(j) => j,
        Err(e) => {
            rep.add(
                REQUEST_INVALID,
                format!("the request is not valid JSON: {e}"),
            );
            return rep.list;
        }
    };
    let cluster = match Cluster::parse(&request) {
        Ok(c) => c,
        Err(e) => {
            rep.add(REQUEST_INVALID, e);
            return rep.list;
        }
    };
    let answer = match parse_json(answer_json) {
        Ok(j) => j,
        Err(e) => {
            rep.add(ANSWER_SHAPE, format!("the answer is not valid JSON: {e}"));
            return rep.list;
        }
    };
    let Some(result) = check_envelope(&answer, &mut rep) else {
        return rep.list;
    };
    let mut ck = Checker {
        c: &cluster,
        opts: &opts,
        rep: &mut rep,
        usage: Usage::new(cluster.nodes.len()),
    };
    match &cluster.kind {
        Kind::Allocate {
            inst,
            group_name,
            restrict,
        } => ck.allocate(inst, group_name.as_deref(), restrict.as_deref(), result),
        Kind::MultiAllocate { insts, group_name } => {
            ck.multi_allocate(insts, group_name.as_deref(), result)
        }
        Kind::AllocateSecondary { inst } => ck.allocate_secondary(*inst, result),
        Kind::Relocate {
            inst,
            relocate_from,
        } => ck.relocate(*inst, relocate_from, result),
        Kind::NodeEvacuate { insts, mode } => ck.moves(insts, MoveKind::Evacuate(*mode), result),
        Kind::ChangeGroup { insts, targets } => {
            ck.moves(insts, MoveKind::ChangeGroup(targets), result)
        }
    }
    rep.list
}

// ------------------------------------------------------------------------------------------
// Reporting

/// The violations found so far.
#[derive(Default)]
struct Report {
    list: Vec<Violation>,
}

impl Report {
    fn add(&mut self, rule: &'static str, detail: impl Into<String>) {
        self.list.push(Violation {
            rule,
            detail: detail.into(),
        });
    }
}
