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

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

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

// ------------------------------------------------------------------------------------------
// JSON reading

/// A JSON value that keeps object keys in input order, duplicates included.
#[derive(Debug, Clone, PartialEq)]
enum J {
    Null,
    Bool(bool),
    /// An integer, clamped to ±[`NUM_LIMIT`].
    Int(i128),
    Float(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

/// Numbers are clamped to this magnitude so that sums can never overflow.
const NUM_LIMIT: i128 = 1_000_000_000_000_000_000_000_000_000_000;

/// The key serde_json uses for numbers when its `arbitrary_precision` feature is on.
const ARBITRARY_NUMBER_KEY: &str = "$serde_json::private::Number";

fn parse_json(text: &str) -> Result<J, serde_json::Error> {
    serde_json::from_str::<J>(text)
}

fn clamp(v: i128) -> i128 {
    v.clamp(-NUM_LIMIT, NUM_LIMIT)
}

/// Reads a number written as text (only needed with `arbitrary_precision`).
fn number_from_text(s: &str) -> J {
    if let Ok(i) = s.parse::<i128>() {
        return J::Int(clamp(i));
    }
    match s.parse::<f64>() {
        Ok(f) => J::Float(f),
        Err(_) => J::Str(s.to_owned()),
    }
}

impl<'de> Deserialize<'de> for J {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<J, D::Error> {
        d.deserialize_any(JVisitor)
    }
}

struct JVisitor;

impl<'de> Visitor<'de> for JVisitor {
    type Value = J;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<J, E> {
        Ok(J::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<J, E> {
        Ok(J::Int(clamp(i128::from(v))))
    }
    fn visit_u64<E>(self, v: u64) -> Result<J, E> {
        Ok(J::Int(clamp(i128::from(v))))
    }
    fn visit_i128<E>(self, v: i128) -> Result<J, E> {
        Ok(J::Int(clamp(v)))
    }
    fn visit_u128<E>(self, v: u128) -> Result<J, E> {
        Ok(J::Int(i128::try_from(v).map_or(NUM_LIMIT, clamp)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<J, E> {
        Ok(J::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<J, E> {
        Ok(J::Str(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<J, E> {
        Ok(J::Str(v))
    }
    fn visit_unit<E>(self) -> Result<J, E> {
        Ok(J::Null)
    }
    fn visit_none<E>(self) -> Result<J, E> {
        Ok(J::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<J, D::Error> {
        J::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<J, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<J>()? {
            items.push(item);
        }
        Ok(J::Arr(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<J, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value::<J>()?;
            entries.push((key, value));
        }
        if let [(key, J::Str(text))] = entries.as_slice() {
            if key == ARBITRARY_NUMBER_KEY {
                return Ok(number_from_text(text));
            }
        }
        Ok(J::Obj(entries))
    }
}

impl J {
    /// The first value under `key`, like hail's lookups.
    fn get(&self, key: &str) -> Option<&J> {
        match self {
            J::Obj(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    /// The value under `key`, with `null` read as missing.
    fn field(&self, key: &str) -> Option<&J> {
        self.get(key).filter(|v| **v != J::Null)
    }
    fn as_str(&self) -> Option<&str> {
        match self {
            J::Str(s) => Some(s),
            _ => None,
        }
    }
    fn as_bool(&self) -> Option<bool> {
        match self {
            J::Bool(b) => Some(*b),
            _ => None,
        }
    }
    /// An integer field; fractions round half to even (as hail reads them).
    fn as_int(&self) -> Option<i128> {
        match self {
            J::Int(i) => Some(*i),
            J::Float(f) if f.is_finite() => {
                let r = f.round_ties_even();
                if r >= NUM_LIMIT as f64 {
                    Some(NUM_LIMIT)
                } else if r <= -(NUM_LIMIT as f64) {
                    Some(-NUM_LIMIT)
                } else {
                    Some(r as i128)
                }
            }
            _ => None,
        }
    }
    fn as_arr(&self) -> Option<&[J]> {
        match self {
            J::Arr(a) => Some(a),
            _ => None,
        }
    }
    fn as_obj(&self) -> Option<&[(String, J)]> {
        match self {
            J::Obj(o) => Some(o),
            _ => None,
        }
    }
    fn str_field(&self, key: &str) -> Option<String> {
        self.field(key).and_then(J::as_str).map(str::to_owned)
    }
    fn int_field(&self, key: &str) -> Option<i128> {
        self.field(key).and_then(J::as_int)
    }
    fn bool_field(&self, key: &str) -> Option<bool> {
        self.field(key).and_then(J::as_bool)
    }
    /// A list of strings; non-string entries are skipped.
    fn str_list(&self, key: &str) -> Option<Vec<String>> {
        self.field(key)
            .and_then(J::as_arr)
            .map(|a| a.iter().filter_map(J::as_str).map(str::to_owned).collect())
    }
}

/// A short rendering of a JSON value for violation details.
fn brief(j: &J) -> String {
    let mut out = String::new();
    render(j, &mut out);
    if out.chars().count() > 120 {
        let cut: String = out.chars().take(117).collect();
        return format!("{cut}...");
    }
    out
}

fn render(j: &J, out: &mut String) {
    // Rendering stops early once the text is long enough for `brief`.
    if out.len() > 200 {
        return;
    }
    match j {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Int(i) => out.push_str(&i.to_string()),
        J::Float(f) => out.push_str(&f.to_string()),
        J::Str(s) => out.push_str(&format!("{s:?}")),
        J::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                render(item, out);
            }
            out.push(']');
        }
        J::Obj(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&format!("{k:?}:"));
                render(v, out);
            }
            out.push('}');
        }
    }
}

// ------------------------------------------------------------------------------------------
// Options

/// The allocator options that matter for safety.
struct Options {
    /// `--ignore-soft-errors`: exclusion tags are not enforced.
    ignore_soft_errors: bool,
    /// `--restrict-allocation-to`: the node whitelist, overriding the request's.
    restrict: Option<Vec<String>>,
    /// `-t`/`--simulate`: the answer is about another cluster; nothing is checked.
    replaces_cluster: bool,
}

/// Whether a long option takes no argument, an optional one (only as `--opt=V`)
/// or a required one (`--opt=V` or `--opt V`).
#[derive(Clone, Copy, PartialEq)]
enum Arg {
    No,
    Optional,
    Required,
}

/// hail's long options (`Program/Hail.hs` and the generic CLI options).
const LONG_OPTIONS: &[(&str, Arg)] = &[
    ("print-nodes", Arg::Optional),
    ("save", Arg::Required),
    ("text-data", Arg::Required),
    ("simulate", Arg::Required),
    ("verbose", Arg::No),
    ("ignore-dynu", Arg::No),
    ("ignore-soft-errors", Arg::No),
    ("no-capacity-checks", Arg::No),
    ("restrict-allocation-to", Arg::Required),
    ("mond", Arg::Optional),
    ("mond-xen", Arg::No),
    ("static-kvm-node-memory", Arg::Required),
    ("version", Arg::No),
    ("help", Arg::No),
    ("help-completion", Arg::No),
];

impl Options {
    /// Reads the options like hail's GetOpt: long options may be abbreviated to
    /// a unique prefix, and `--` ends the options.
    fn parse(args: &[String], rep: &mut Report) -> Options {
        let mut o = Options {
            ignore_soft_errors: false,
            restrict: None,
            replaces_cluster: false,
        };
        let mut i = 0;
        while i < args.len() {
            let arg = args[i].as_str();
            i += 1;
            if arg == "--" {
                break;
            }
            if let Some(body) = arg.strip_prefix("--") {
                let (name, inline) = match body.split_once('=') {
                    Some((n, v)) => (n, Some(v.to_owned())),
                    None => (body, None),
                };
                let Some((full, kind)) = resolve_long(name, rep) else {
                    continue;
                };
                let value = match (kind, inline) {
                    (Arg::No, Some(_)) => {
                        rep.add(
                            OPTIONS_UNSUPPORTED,
                            format!("option --{full} takes no argument"),
                        );
                        continue;
                    }
                    (Arg::Required, None) => {
                        let next = args.get(i).cloned();
                        i += 1;
                        if next.is_none() {
                            rep.add(
                                OPTIONS_UNSUPPORTED,
                                format!("option --{full} needs an argument"),
                            );
                        }
                        next
                    }
                    (_, v) => v,
                };
                o.apply(full, value, rep);
            } else if let Some(flags) = arg.strip_prefix('-') {
                if flags.is_empty() {
                    // A lone "-" is the request read from stdin.
                    continue;
                }
                let chars: Vec<char> = flags.chars().collect();
                let mut k = 0;
                while k < chars.len() {
                    let c = chars[k];
                    k += 1;
                    let rest: String = chars[k..].iter().collect();
                    match c {
                        'v' | 'V' | 'h' => {}
                        'p' => break,
                        'S' | 't' => {
                            let value = if rest.is_empty() {
                                let next = args.get(i).cloned();
                                i += 1;
                                next
                            } else {
                                Some(rest)
                            };
                            o.apply(if c == 't' { "text-data" } else { "save" }, value, rep);
                            break;
                        }
                        other => {
                            rep.add(OPTIONS_UNSUPPORTED, format!("unknown option -{other}"));
                            break;
                        }
                    }
                }
            }
        }
        o
    }

    fn apply(&mut self, name: &str, value: Option<String>, rep: &mut Report) {
        match name {
            "ignore-soft-errors" => self.ignore_soft_errors = true,
            "restrict-allocation-to" => {
                self.restrict = Some(
                    value
                        .unwrap_or_default()
                        .split(',')
                        .map(str::to_owned)
                        .collect(),
                );
            }
            "text-data" | "simulate" => {
                self.replaces_cluster = true;
                rep.add(
                    OPTIONS_UNSUPPORTED,
                    format!("--{name} replaces the request's cluster data, so the answer cannot be checked against the request"),
                );
            }
            _ => {}
        }
    }
}

/// Finds the long option `name` names: an exact match, or the only option it is a prefix of.
fn resolve_long(name: &str, rep: &mut Report) -> Option<(&'static str, Arg)> {
    if let Some(&(full, kind)) = LONG_OPTIONS.iter().find(|(n, _)| *n == name) {
        return Some((full, kind));
    }
    let matches: Vec<&(&str, Arg)> = LONG_OPTIONS
        .iter()
        .filter(|(n, _)| !name.is_empty() && n.starts_with(name))
        .collect();
    match matches.as_slice() {
        [(full, kind)] => Some((*full, *kind)),
        [] => {
            rep.add(OPTIONS_UNSUPPORTED, format!("unknown option --{name}"));
            None
        }
        _ => {
            rep.add(OPTIONS_UNSUPPORTED, format!("option --{name} is ambiguous"));
            None
        }
    }
}

// ------------------------------------------------------------------------------------------
// Cluster model

/// Disk templates whose disks take space from the nodes' volume group (`DTS_LVM`).
const LOCAL_STORAGE: &[&str] = &["plain", "drbd"];
/// Disk templates that can fail over or migrate (`DTS_MIRRORED`).
const MIRRORED: &[&str] = &[
    "blockdev",
    "diskless",
    "drbd",
    "ext",
    "gluster",
    "rbd",
    "sharedfile",
];
/// Disk templates allowed on nodes with exclusive storage (`DTS_EXCL_STORAGE`).
const EXCL_STORAGE_TEMPLATES: &[&str] = &["plain"];
/// The DRBD metadata volume Ganeti adds to every disk (`DRBD_META_SIZE`, MiB).
const DRBD_META_SIZE: i128 = 128;

fn is_drbd(template: &str) -> bool {
    template == "drbd"
}

fn is_local(template: &str) -> bool {
    LOCAL_STORAGE.contains(&template)
}

/// The node count Ganeti asks for with this template (`IAReqInstanceAlloc.RequiredNodes`).
fn template_nodes(template: &str) -> usize {
    if is_drbd(template) {
        2
    } else {
        1
    }
}

/// One min or max instance spec; a missing value is no constraint (as in Ganeti).
#[derive(Default, Clone)]
struct Spec {
    memory: Option<i128>,
    cpu: Option<i128>,
    disk_size: Option<i128>,
    disk_count: Option<i128>,
    nic_count: Option<i128>,
    spindle_use: Option<i128>,
}

impl Spec {
    fn parse(j: &J) -> Spec {
        Spec {
            memory: j.int_field("memory-size"),
            cpu: j.int_field("cpu-count"),
            disk_size: j.int_field("disk-size"),
            disk_count: j.int_field("disk-count"),
            nic_count: j.int_field("nic-count"),
            spindle_use: j.int_field("spindle-use"),
        }
    }
}

/// The parts of a group's instance policy that Ganeti enforces.
#[derive(Clone)]
struct IPolicy {
    /// The `minmax` pairs; the instance must fit one of them.
    minmax: Vec<(Spec, Spec)>,
    /// `disk-templates`: the allowed templates.
    templates: Vec<String>,
}

struct Group {
    uuid: String,
    name: String,
    /// `alloc_policy`: preferred, last_resort or unallocable.
    alloc_policy: String,
    /// Network UUIDs connected to the group.
    networks: Vec<String>,
    ipolicy: Option<IPolicy>,
}

struct Node {
    name: String,
    /// Index into `Cluster::groups`.
    group: usize,
    offline: bool,
    drained: bool,
    vm_capable: bool,
    /// `ndparams.exclusive_storage`.
    exclusive_storage: bool,
    /// `free_memory`, MiB, as reported (0 when absent).
    free_memory: i128,
    /// `free_disk`, MiB, as reported (0 when absent).
    free_disk: i128,
    /// `free_spindles`, as reported (0 when absent).
    free_spindles: i128,
    tags: Vec<String>,
}

#[derive(Clone)]
struct Disk {
    size: i128,
    spindles: Option<i128>,
}

/// An instance, existing or requested.
#[derive(Clone)]
struct Inst {
    name: String,
    template: String,
    memory: i128,
    vcpus: i128,
    spindle_use: Option<i128>,
    /// `disk_space_total`: the disk Ganeti accounts on each node holding the disks.
    disk_space_total: i128,
    disks: Vec<Disk>,
    /// The `network` of each NIC (None when the NIC has none).
    nic_networks: Vec<Option<String>>,
    tags: Vec<String>,
    /// Whether the instance runs (admin_state up or missing, and not forthcoming).
    uses_memory: bool,
    /// Existing instances: primary and optional secondary (node indices).
    primary: Option<usize>,
    secondary: Option<usize>,
    /// Requests: `required_nodes` and `group_name`.
    required_nodes: Option<i128>,
    group_name: Option<String>,
}

impl Inst {
    fn parse(name: &str, j: &J) -> Inst {
        let disks = j
            .field("disks")
            .and_then(J::as_arr)
            .unwrap_or(&[])
            .iter()
            .map(|d| Disk {
                size: d.int_field("size").unwrap_or(0),
                spindles: d.int_field("spindles"),
            })
            .collect();
        let nic_networks = j
            .field("nics")
            .and_then(J::as_arr)
            .unwrap_or(&[])
            .iter()
            .map(|n| n.str_field("network"))
            .collect();
        let admin_up = !matches!(
            j.field("admin_state").and_then(J::as_str),
            Some("down" | "offline")
        );
        let forthcoming = j.bool_field("forthcoming").unwrap_or(false);
        Inst {
            name: name.to_owned(),
            template: j.str_field("disk_template").unwrap_or_default(),
            memory: j.int_field("memory").unwrap_or(0),
            vcpus: j.int_field("vcpus").unwrap_or(0),
            spindle_use: j.int_field("spindle_use"),
            disk_space_total: j.int_field("disk_space_total").unwrap_or(0),
            disks,
            nic_networks,
            tags: j.str_list("tags").unwrap_or_default(),
            uses_memory: admin_up && !forthcoming,
            primary: None,
            secondary: None,
            required_nodes: j.int_field("required_nodes"),
            group_name: j.str_field("group_name"),
        }
    }

    fn disk_sizes(&self) -> Vec<i128> {
        self.disks.iter().map(|d| d.size).collect()
    }

    /// The sum of the disks' spindles, or None if a disk has no spindle count.
    fn spindle_sum(&self) -> Option<i128> {
        self.disks
            .iter()
            .try_fold(0i128, |acc, d| d.spindles.map(|s| acc.saturating_add(s)))
    }
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum EvacMode {
    PrimaryOnly,
    SecondaryOnly,
    All,
}

enum Kind {
    Allocate {
        inst: Box<Inst>,
        group_name: Option<String>,
        restrict: Option<Vec<String>>,
    },
    MultiAllocate {
        insts: Vec<Inst>,
        group_name: Option<String>,
    },
    AllocateSecondary {
        inst: usize,
    },
    Relocate {
        inst: usize,
        relocate_from: Vec<usize>,
    },
    NodeEvacuate {
        insts: Vec<usize>,
        mode: EvacMode,
    },
    ChangeGroup {
        insts: Vec<usize>,
        targets: Vec<usize>,
    },
}

struct Cluster {
    groups: Vec<Group>,
    nodes: Vec<Node>,
    insts: Vec<Inst>,
    node_ix: BTreeMap<String, usize>,
    inst_ix: BTreeMap<String, usize>,
    /// Exclusion-tag prefixes from `htools:iextags:P` cluster tags.
    excl_prefixes: Vec<String>,
    /// Migration-tag prefixes from `htools:migration:P` cluster tags.
    mig_prefixes: Vec<String>,
    /// `htools:allowmigration:Y::Z` pairs (Y, Z).
    allow_mig: Vec<(String, String)>,
    kind: Kind,
}

fn objects<'a>(root: &'a J, key: &str) -> Result<&'a [(String, J)], String> {
    match root.get(key) {
        Some(J::Obj(o)) => Ok(o),
        Some(_) => Err(format!("'{key}' is not an object")),
        None => Err(format!("the request has no '{key}'")),
    }
}

impl Cluster {
    fn parse(root: &J) -> Result<Cluster, String> {
        if root.as_obj().is_none() {
            return Err("the request is not a JSON object".into());
        }
        let request = match root.get("request") {
            Some(r @ J::Obj(_)) => r,
            _ => return Err("the request has no 'request' object".into()),
        };
        let mut groups = Vec::new();
        for (uuid, g) in objects(root, "nodegroups")? {
            let ipolicy = g.field("ipolicy").map(|p| IPolicy {
                minmax: p
                    .field("minmax")
                    .and_then(J::as_arr)
                    .unwrap_or(&[])
                    .iter()
                    .map(|mm| {
                        (
                            Spec::parse(mm.field("min").unwrap_or(&J::Null)),
                            Spec::parse(mm.field("max").unwrap_or(&J::Null)),
                        )
                    })
                    .collect(),
                templates: p.str_list("disk-templates").unwrap_or_default(),
            });
            groups.push(Group {
                uuid: uuid.clone(),
                name: g.str_field("name").unwrap_or_else(|| uuid.clone()),
                alloc_policy: g.str_field("alloc_policy").unwrap_or_default(),
                networks: g.str_list("networks").unwrap_or_default(),
                ipolicy,
            });
        }
        let mut nodes = Vec::new();
        let mut node_ix = BTreeMap::new();
        for (name, n) in objects(root, "nodes")? {
            let guuid = n.str_field("group").unwrap_or_default();
            let Some(group) = groups.iter().position(|g| g.uuid == guuid) else {
                return Err(format!("node {name} is in unknown group '{guuid}'"));
            };
            let ndparams = n.field("ndparams").unwrap_or(&J::Null);
            node_ix.entry(name.clone()).or_insert(nodes.len());
            nodes.push(Node {
                name: name.clone(),
                group,
                offline: n.bool_field("offline").unwrap_or(false),
                drained: n.bool_field("drained").unwrap_or(false),
                vm_capable: n.bool_field("vm_capable").unwrap_or(true),
                exclusive_storage: ndparams.bool_field("exclusive_storage").unwrap_or(false),
                free_memory: n.int_field("free_memory").unwrap_or(0),
                free_disk: n.int_field("free_disk").unwrap_or(0),
                free_spindles: n.int_field("free_spindles").unwrap_or(0),
                tags: n.str_list("tags").unwrap_or_default(),
            });
        }
        let mut insts = Vec::new();
        let mut inst_ix = BTreeMap::new();
        for (name, i) in objects(root, "instances")? {
            let mut inst = Inst::parse(name, i);
            let names = i.str_list("nodes").unwrap_or_default();
            let lookup = |n: &String| {
                node_ix
                    .get(n)
                    .copied()
                    .ok_or_else(|| format!("unknown node '{n}' for instance {name}"))
            };
            match names.as_slice() {
                [] => return Err(format!("instance {name} has no nodes")),
                [p] => inst.primary = Some(lookup(p)?),
                [p, s, ..] => {
                    inst.primary = Some(lookup(p)?);
                    inst.secondary = Some(lookup(s)?);
                }
            }
            inst_ix.entry(name.clone()).or_insert(insts.len());
            insts.push(inst);
        }
        let cluster_tags = root.str_list("cluster_tags").unwrap_or_default();
        let excl_prefixes = cluster_tags
            .iter()
            .filter_map(|t| t.strip_prefix("htools:iextags:"))
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect();
        let mig_prefixes = cluster_tags
            .iter()
            .filter_map(|t| t.strip_prefix("htools:migration:"))
            .map(str::to_owned)
            .collect();
        let allow_mig = cluster_tags
            .iter()
            .filter_map(|t| t.strip_prefix("htools:allowmigration:"))
            .filter_map(|rest| {
                let (y, z) = rest.split_once("::")?;
                (!z.contains("::")).then(|| (y.to_owned(), z.to_owned()))
            })
            .collect();

        let find_inst = |name: &str| {
            inst_ix
                .get(name)
                .copied()
                .ok_or_else(|| format!("unknown instance '{name}'"))
        };
        let find_group = |name: &str| {
            groups
                .iter()
                .position(|g| g.name == name || g.uuid == name)
                .ok_or_else(|| format!("unknown group '{name}'"))
        };
        let rtype = request
            .str_field("type")
            .ok_or("the request has no 'type'")?;
        let kind = match rtype.as_str() {
            "allocate" => {
                let name = request.str_field("name").unwrap_or_default();
                Kind::Allocate {
                    inst: Box::new(Inst::parse(&name, request)),
                    group_name: request.str_field("group_name"),
                    restrict: request.str_list("restrict-to-nodes"),
                }
            }
            "multi-allocate" => {
                let list = request
                    .field("instances")
                    .and_then(J::as_arr)
                    .ok_or("multi-allocate without 'instances'")?;
                let insts = list
                    .iter()
                    .map(|r| Inst::parse(&r.str_field("name").unwrap_or_default(), r))
                    .collect();
                Kind::MultiAllocate {
                    insts,
                    group_name: request.str_field("group_name"),
                }
            }
            "allocate-secondary" => Kind::AllocateSecondary {
                inst: find_inst(&request.str_field("name").unwrap_or_default())?,
            },
            "relocate" => {
                let inst = find_inst(&request.str_field("name").unwrap_or_default())?;
                let mut relocate_from = Vec::new();
                for n in request.str_list("relocate_from").unwrap_or_default() {
                    relocate_from.push(
                        node_ix
                            .get(&n)
                            .copied()
                            .ok_or_else(|| format!("unknown node '{n}' in relocate_from"))?,
                    );
                }
                Kind::Relocate {
                    inst,
                    relocate_from,
                }
            }
            "node-evacuate" => {
                let names = request
                    .str_list("instances")
                    .ok_or("node-evacuate without 'instances'")?;
                let insts = names
                    .iter()
                    .map(|n| find_inst(n))
                    .collect::<Result<Vec<_>, _>>()?;
                let mode = match request.str_field("evac_mode").as_deref() {
                    Some("primary-only") => EvacMode::PrimaryOnly,
                    Some("secondary-only") => EvacMode::SecondaryOnly,
                    Some("all") => EvacMode::All,
                    other => return Err(format!("invalid evac_mode {other:?}")),
                };
                Kind::NodeEvacuate { insts, mode }
            }
            "change-group" => {
                let names = request
                    .str_list("instances")
                    .ok_or("change-group without 'instances'")?;
                let insts = names
                    .iter()
                    .map(|n| find_inst(n))
                    .collect::<Result<Vec<_>, _>>()?;
                let targets = request.str_list("target_groups").unwrap_or_default();
                let targets = targets
                    .iter()
                    .map(|g| find_group(g))
                    .collect::<Result<Vec<_>, _>>()?;
                Kind::ChangeGroup { insts, targets }
            }
            other => return Err(format!("unknown request type '{other}'")),
        };
        Ok(Cluster {
            groups,
            nodes,
            insts,
            node_ix,
            inst_ix,
            excl_prefixes,
            mig_prefixes,
            allow_mig,
            kind,
        })
    }

    fn node_name(&self, n: usize) -> &str {
        self.nodes.get(n).map_or("?", |x| x.name.as_str())
    }

    fn group_of(&self, n: usize) -> Option<&Group> {
        self.nodes.get(n).and_then(|x| self.groups.get(x.group))
    }

    fn group_ix_of(&self, n: usize) -> Option<usize> {
        self.nodes.get(n).map(|x| x.group)
    }

    fn group_name_of(&self, n: usize) -> &str {
        self.group_of(n).map_or("?", |g| g.name.as_str())
    }

    /// The instance's exclusion tags: its tags that start with an `htools:iextags:` prefix.
    fn exclusion_tags(&self, tags: &[String]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for t in tags {
            if self.excl_prefixes.iter().any(|p| t.starts_with(p.as_str())) && !out.contains(t) {
                out.push(t.clone());
            }
        }
        out
    }

    /// The node's migration tags (node tags `P:...` for each `htools:migration:P`).
    fn mig_tags(&self, n: usize) -> Vec<String> {
        let Some(node) = self.nodes.get(n) else {
            return Vec::new();
        };
        let mut out: Vec<String> = Vec::new();
        for p in &self.mig_prefixes {
            let prefix = format!("{p}:");
            for t in &node.tags {
                if t.starts_with(&prefix) && !out.contains(t) {
                    out.push(t.clone());
                }
            }
        }
        out
    }

    /// The migration tags the node can receive: its own plus those allowed by
    /// `htools:allowmigration:Y::Z` for each of its tags Z.
    fn recv_mig_tags(&self, n: usize) -> Vec<String> {
        let own = self.mig_tags(n);
        let mut out = own.clone();
        for (y, z) in &self.allow_mig {
            if own.contains(z) && !out.contains(y) {
                out.push(y.clone());
            }
        }
        out
    }
}

// ------------------------------------------------------------------------------------------
// Answer envelope

/// Checks `{success, info, result}` and returns the result to check further,
/// or None when there is nothing more to check (failure answers, broken envelopes).
fn check_envelope<'a>(answer: &'a J, rep: &mut Report) -> Option<&'a J> {
    let Some(entries) = answer.as_obj() else {
        rep.add(
            ANSWER_SHAPE,
            format!("the answer is not a JSON object: {}", brief(answer)),
        );
        return None;
    };
    let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
    if keys != ["success", "info", "result"] {
        rep.add(
            ANSWER_SHAPE,
            format!("the answer's keys are {keys:?}, expected [\"success\", \"info\", \"result\"]"),
        );
    }
    let success = match answer.get("success") {
        Some(J::Bool(b)) => *b,
        other => {
            rep.add(
                ANSWER_SHAPE,
                format!(
                    "'success' is not a boolean: {}",
                    other.map_or("missing".into(), brief)
                ),
            );
            return None;
        }
    };
    let info = match answer.get("info") {
        Some(J::Str(s)) => s.as_str(),
        other => {
            rep.add(
                ANSWER_SHAPE,
                format!(
                    "'info' is not a string: {}",
                    other.map_or("missing".into(), brief)
                ),
            );
            return None;
        }
    };
    let Some(result) = answer.get("result") else {
        rep.add(ANSWER_SHAPE, "the answer has no 'result'");
        return None;
    };
    if success {
        if !info.starts_with("Request successful: ") {
            rep.add(ANSWER_SHAPE, format!("a successful answer's info does not start with 'Request successful: ': {info:?}"));
        }
        Some(result)
    } else {
        if !info.starts_with("Request failed: ") {
            rep.add(
                ANSWER_SHAPE,
                format!("a failed answer's info does not start with 'Request failed: ': {info:?}"),
            );
        }
        if *result != J::Arr(Vec::new()) {
            rep.add(
                ANSWER_SHAPE,
                format!("a failed answer's result is not []: {}", brief(result)),
            );
        }
        None
    }
}

/// Reads a list of node names; None (with an answer-shape violation) if it is not one.
fn name_list(j: &J, what: &str, rep: &mut Report) -> Option<Vec<String>> {
    let Some(items) = j.as_arr() else {
        rep.add(ANSWER_SHAPE, format!("{what} is not a list: {}", brief(j)));
        return None;
    };
    let mut out = Vec::new();
    for item in items {
        match item {
            J::Str(s) if !s.is_empty() => out.push(s.clone()),
            _ => {
                rep.add(
                    ANSWER_SHAPE,
                    format!(
                        "{what} has an entry that is not a non-empty string: {}",
                        brief(item)
                    ),
                );
                return None;
            }
        }
    }
    Some(out)
}

// ------------------------------------------------------------------------------------------
// Applying answers

/// Resources this answer has consumed so far, per node (negative where it freed some).
struct Usage {
    memory: Vec<i128>,
    disk: Vec<i128>,
    spindles: Vec<i128>,
    /// Exclusion tags of instances this answer put on the node as primary.
    tags: Vec<Vec<String>>,
}

impl Usage {
    fn new(n: usize) -> Usage {
        Usage {
            memory: vec![0; n],
            disk: vec![0; n],
            spindles: vec![0; n],
            tags: vec![Vec::new(); n],
        }
    }
}

fn add_at(v: &mut [i128], n: usize, amount: i128) {
    if let Some(x) = v.get_mut(n) {
        *x = x.saturating_add(amount);
    }
}

fn at(v: &[i128], n: usize) -> i128 {
    v.get(n).copied().unwrap_or(0)
}

struct Checker<'a> {
    c: &'a Cluster,
    opts: &'a Options,
    rep: &'a mut Report,
    usage: Usage,
}

impl Checker<'_> {
    /// Resolves node names, reporting unknown ones; None if any is unknown.
    fn resolve_nodes(&mut self, names: &[String], what: &str) -> Option<Vec<usize>> {
        let mut out = Vec::new();
        let mut ok = true;
        for n in names {
            match self.c.node_ix.get(n).copied() {
                Some(ix) => out.push(ix),
                None => {
                    self.rep.add(
                        UNKNOWN_NAME,
                        format!("{what}: node '{n}' does not exist in the request"),
                    );
                    ok = false;
                }
            }
        }
        ok.then_some(out)
    }

    /// A node that gets a new primary or secondary role must be online, not
    /// drained and vm_capable (`CheckNodeOnline`, `CheckNodeNotDrained`,
    /// `CheckNodeVmCapable`; iallocator.rst: "No allocations should be made on
    /// nodes having either the drained or offline flags set").
    fn check_target(&mut self, n: usize, role: &str, what: &str) {
        let Some(node) = self.c.nodes.get(n) else {
            return;
        };
        if node.offline {
            self.rep.add(
                OFFLINE_TARGET,
                format!("{what}: {role} {} is offline", node.name),
            );
        }
        if node.drained {
            self.rep.add(
                DRAINED_TARGET,
                format!("{what}: {role} {} is drained", node.name),
            );
        }
        if !node.vm_capable {
            self.rep.add(
                NOT_VM_CAPABLE_TARGET,
                format!("{what}: {role} {} is not vm_capable", node.name),
            );
        }
    }

    /// The instance's memory must fit in the node's reported free memory minus
    /// what this answer already put there (`CheckNodeFreeMemory`: refused when
    /// requested > free).
    fn take_memory(&mut self, n: usize, inst: &Inst, what: &str) {
        if !inst.uses_memory {
            return;
        }
        let Some(node) = self.c.nodes.get(n) else {
            return;
        };
        let free = node.free_memory.saturating_sub(at(&self.usage.memory, n));
        if inst.memory > free {
            self.rep.add(
                MEMORY,
                format!(
                    "{what}: {} needs {} MiB on {} but only {} MiB are free (reported {}, net use by earlier steps of this answer {})",
                    inst.name,
                    inst.memory,
                    node.name,
                    free,
                    node.free_memory,
                    at(&self.usage.memory, n)
                ),
            );
        }
        add_at(&mut self.usage.memory, n, inst.memory);
    }

    /// The instance's disks must fit in the node's free disk (and free spindles
    /// with exclusive storage), cumulatively over the answer.
    fn take_disk(&mut self, n: usize, inst: &Inst, need: i128, what: &str) {
        let Some(node) = self.c.nodes.get(n) else {
            return;
        };
        let free = node.free_disk.saturating_sub(at(&self.usage.disk, n));
        if need > free {
            self.rep.add(
                DISK,
                format!(
                    "{what}: {} needs {} MiB of disk on {} but only {} MiB are free (reported {}, net use by earlier steps of this answer {})",
                    inst.name,
                    need,
                    node.name,
                    free,
                    node.free_disk,
                    at(&self.usage.disk, n)
                ),
            );
        }
        add_at(&mut self.usage.disk, n, need);
        if node.exclusive_storage {
            match inst.spindle_sum() {
                None => self.rep.add(
                    SPINDLES,
                    format!("{what}: {} has a disk without a spindle count but {} has exclusive storage", inst.name, node.name),
                ),
                Some(s) => {
                    let free = node.free_spindles.saturating_sub(at(&self.usage.spindles, n));
                    if s > free {
                        self.rep.add(
                            SPINDLES,
                            format!("{what}: {} needs {s} spindles on {} but only {free} are free", inst.name, node.name),
                        );
                    }
                    add_at(&mut self.usage.spindles, n, s);
                }
            }
        }
    }

    /// Gives back the disk (and exclusive-storage spindles) of an instance that leaves a node.
    fn release_disk(&mut self, n: usize, inst: &Inst, amount: i128) {
        add_at(&mut self.usage.disk, n, amount.saturating_neg());
        if self.c.nodes.get(n).is_some_and(|x| x.exclusive_storage) {
            if let Some(s) = inst.spindle_sum() {
                add_at(&mut self.usage.spindles, n, s.saturating_neg());
            }
        }
    }

    // ---- allocation ----------------------------------------------------------------------

    fn allocate(
        &mut self,
        inst: &Inst,
        group_name: Option<&str>,
        restrict: Option<&[String]>,
        result: &J,
    ) {
        let Some(names) = name_list(result, "the allocate result", self.rep) else {
            return;
        };
        let restrict = self.opts.restrict.as_deref().or(restrict);
        self.place_new(
            inst,
            &names,
            group_name,
            restrict,
            &format!("allocate {}", inst.name),
        );
    }

    fn multi_allocate(&mut self, insts: &[Inst], outer_group: Option<&str>, result: &J) {
        let (allocated, failed) = match result.as_arr() {
            Some([J::Arr(a), J::Arr(f)]) => (a, f),
            _ => {
                self.rep.add(
                    ANSWER_SHAPE,
                    format!(
                        "the multi-allocate result is not [allocated, failed]: {}",
                        brief(result)
                    ),
                );
                return;
            }
        };
        // Check the shape of both lists first, so that nothing is applied from a broken answer.
        let mut placements: Vec<(String, Vec<String>)> = Vec::new();
        for entry in allocated {
            match entry.as_arr() {
                Some([J::Str(name), nodes]) if !name.is_empty() => {
                    let Some(nodes) =
                        name_list(nodes, &format!("the node list of {name}"), self.rep)
                    else {
                        return;
                    };
                    placements.push((name.clone(), nodes));
                }
                _ => {
                    self.rep.add(
                        ANSWER_SHAPE,
                        format!(
                            "a multi-allocate entry is not [name, [nodes]]: {}",
                            brief(entry)
                        ),
                    );
                    return;
                }
            }
        }
        // Ganeti 3.0 validates failed entries as plain names, hail writes [name, reason] pairs;
        // both are read here.
        let mut failed_names: Vec<String> = Vec::new();
        for entry in failed {
            match entry {
                J::Str(name) if !name.is_empty() => failed_names.push(name.clone()),
                J::Arr(pair) => match pair.as_slice() {
                    [J::Str(name), J::Str(_)] if !name.is_empty() => {
                        failed_names.push(name.clone())
                    }
                    _ => {
                        self.rep.add(
                            ANSWER_SHAPE,
                            format!(
                                "a multi-allocate failed entry is not [name, reason]: {}",
                                brief(entry)
                            ),
                        );
                        return;
                    }
                },
                _ => {
                    self.rep.add(
                        ANSWER_SHAPE,
                        format!(
                            "a multi-allocate failed entry is not a name: {}",
                            brief(entry)
                        ),
                    );
                    return;
                }
            }
        }
        let mut seen: Vec<&str> = Vec::new();
        for name in placements.iter().map(|(n, _)| n).chain(failed_names.iter()) {
            if !insts.iter().any(|i| i.name == *name) {
                self.rep.add(
                    MULTI_ALLOC_LIST,
                    format!("instance '{name}' is not one of the requested instances"),
                );
            } else if seen.contains(&name.as_str()) {
                self.rep.add(
                    MULTI_ALLOC_LIST,
                    format!("instance '{name}' is listed more than once"),
                );
            }
            seen.push(name);
        }
        for inst in insts {
            if !seen.contains(&inst.name.as_str()) {
                self.rep.add(
                    MULTI_ALLOC_LIST,
                    format!(
                        "requested instance '{}' is neither allocated nor failed",
                        inst.name
                    ),
                );
            }
        }
        // Placements are applied one after another, each on the cluster the earlier ones left.
        let restrict = self.opts.restrict.clone();
        for (name, nodes) in &placements {
            let Some(inst) = insts.iter().find(|i| i.name == *name) else {
                continue;
            };
            let group = inst.group_name.as_deref().or(outer_group);
            self.place_new(
                inst,
                nodes,
                group,
                restrict.as_deref(),
                &format!("multi-allocate {name}"),
            );
        }
    }

    /// Checks one new instance placed on `names` (primary first) and records its usage.
    fn place_new(
        &mut self,
        inst: &Inst,
        names: &[String],
        group_name: Option<&str>,
        restrict: Option<&[String]>,
        what: &str,
    ) {
        let Some(nodes) = self.resolve_nodes(names, what) else {
            return;
        };
        let c = self.c;
        let expected = template_nodes(&inst.template);
        let required = inst.required_nodes.and_then(|r| usize::try_from(r).ok());
        if required.is_some_and(|r| r != nodes.len()) {
            self.rep.add(
                NODE_COUNT,
                format!(
                    "{what}: the answer has {} node(s) but required_nodes is {}",
                    nodes.len(),
                    inst.required_nodes.unwrap_or(0)
                ),
            );
        } else if nodes.len() != expected {
            self.rep.add(
                NODE_COUNT,
                format!(
                    "{what}: the answer has {} node(s) but disk template '{}' needs {expected}",
                    nodes.len(),
                    inst.template
                ),
            );
        }
        let Some(&primary) = nodes.first() else {
            return;
        };
        for (i, &a) in nodes.iter().enumerate() {
            if nodes[..i].contains(&a) {
                self.rep.add(
                    SAME_NODE,
                    format!("{what}: node {} is used twice", c.node_name(a)),
                );
            }
        }
        for &n in &nodes[1..] {
            if c.group_ix_of(n) != c.group_ix_of(primary) {
                self.rep.add(
                    CROSS_GROUP,
                    format!(
                        "{what}: {} is in group {} but the primary {} is in group {}",
                        c.node_name(n),
                        c.group_name_of(n),
                        c.node_name(primary),
                        c.group_name_of(primary)
                    ),
                );
            }
        }
        for (i, &n) in nodes.iter().enumerate() {
            self.check_target(n, if i == 0 { "primary" } else { "secondary" }, what);
        }
        if let Some(list) = restrict {
            for &n in &nodes {
                if !list.iter().any(|r| r == c.node_name(n)) {
                    self.rep.add(
                        RESTRICT,
                        format!(
                            "{what}: node {} is not in the restrict list {list:?}",
                            c.node_name(n)
                        ),
                    );
                }
            }
        }
        let Some(group) = c.group_of(primary) else {
            return;
        };
        match group_name {
            Some(wanted) => {
                for &n in &nodes {
                    if let Some(g) = c.group_of(n) {
                        if g.name != wanted && g.uuid != wanted {
                            self.rep.add(
                                GROUP_NAME,
                                format!("{what}: node {} is in group {}, not in the requested group {wanted}", c.node_name(n), g.name),
                            );
                        }
                    }
                }
            }
            None => {
                if group.alloc_policy == "unallocable" {
                    self.rep.add(
                        UNALLOCABLE_GROUP,
                        format!("{what}: group {} is unallocable", group.name),
                    );
                }
            }
        }
        for net in inst.nic_networks.iter().flatten() {
            if !group.networks.contains(net) {
                self.rep.add(
                    NETWORK,
                    format!(
                        "{what}: network {net} is not connected to group {}",
                        group.name
                    ),
                );
            }
        }
        if let Some(pol) = &group.ipolicy {
            let spec = PolicyInput::new_instance(inst);
            self.check_policy(pol, &spec, &inst.template, &group.name, what);
        }
        // Exclusive storage, as LUInstanceCreate.CheckPrereq sees it: any chosen node with it counts.
        let used = &nodes[..nodes.len().min(expected)];
        let any_es = used
            .iter()
            .any(|&n| c.nodes.get(n).is_some_and(|x| x.exclusive_storage));
        if any_es && !EXCL_STORAGE_TEMPLATES.contains(&inst.template.as_str()) {
            self.rep.add(
                ES_TEMPLATE,
                format!(
                    "{what}: disk template '{}' is not supported with exclusive storage",
                    inst.template
                ),
            );
        }
        if !any_es && inst.disks.iter().any(|d| d.spindles.is_some()) {
            self.rep.add(
                SPINDLES_WITHOUT_ES,
                format!("{what}: the disks have spindle counts but none of the chosen nodes has exclusive storage"),
            );
        }
        self.take_memory(primary, inst, what);
        if is_local(&inst.template) {
            for &n in used {
                self.take_disk(n, inst, inst.disk_space_total, what);
            }
        }
        self.check_exclusion(primary, inst, what);
    }

    /// No two instances sharing an exclusion tag may have the same primary
    /// (hail's `htools:iextags`); `--ignore-soft-errors` turns this off.
    fn check_exclusion(&mut self, n: usize, inst: &Inst, what: &str) {
        let c = self.c;
        let mine = c.exclusion_tags(&inst.tags);
        if mine.is_empty() {
            return;
        }
        if !self.opts.ignore_soft_errors {
            let mut clashes: Vec<String> = Vec::new();
            for other in c.insts.iter().filter(|o| o.primary == Some(n)) {
                for t in c.exclusion_tags(&other.tags) {
                    if mine.contains(&t) {
                        clashes.push(format!("{t} (instance {})", other.name));
                    }
                }
            }
            for t in self.usage.tags.get(n).map_or(&[][..], |v| v.as_slice()) {
                if mine.contains(t) {
                    clashes.push(format!("{t} (placed earlier by this answer)"));
                }
            }
            if !clashes.is_empty() {
                self.rep.add(
                    EXCLUSION_TAG,
                    format!(
                        "{what}: primary {} already hosts exclusion tag(s) {}",
                        c.node_name(n),
                        clashes.join(", ")
                    ),
                );
            }
        }
        if let Some(v) = self.usage.tags.get_mut(n) {
            v.extend(mine);
        }
    }

    fn check_policy(
        &mut self,
        pol: &IPolicy,
        spec: &PolicyInput,
        template: &str,
        group: &str,
        what: &str,
    ) {
        let (hard, nic_only) = policy_violations(pol, spec, template);
        for msg in hard {
            self.rep
                .add(IPOLICY, format!("{what}: group {group}: {msg}"));
        }
        if let Some(msg) = nic_only {
            self.rep
                .add(IPOLICY_NIC_COUNT, format!("{what}: group {group}: {msg}"));
        }
    }

    fn allocate_secondary(&mut self, ix: usize, result: &J) {
        let c = self.c;
        let Some(inst) = c.insts.get(ix) else { return };
        let what = format!("allocate-secondary {}", inst.name);
        let J::Str(name) = result else {
            self.rep.add(
                ANSWER_SHAPE,
                format!(
                    "the allocate-secondary result is not a node name: {}",
                    brief(result)
                ),
            );
            return;
        };
        let Some(sec) = self
            .resolve_nodes(std::slice::from_ref(name), &what)
            .and_then(|v| v.first().copied())
        else {
            return;
        };
        let Some(primary) = inst.primary else { return };
        if sec == primary {
            self.rep.add(
                SAME_NODE,
                format!("{what}: the new secondary {name} is the primary"),
            );
        }
        if c.group_ix_of(sec) != c.group_ix_of(primary) {
            self.rep.add(
                CROSS_GROUP,
                format!(
                    "{what}: {name} is in group {} but the primary is in group {}",
                    c.group_name_of(sec),
                    c.group_name_of(primary)
                ),
            );
        }
        self.check_target(sec, "new secondary", &what);
        if let Some(pol) = c.group_of(primary).and_then(|g| g.ipolicy.as_ref()) {
            if !pol.templates.iter().any(|t| t == "drbd") {
                self.rep.add(
                    IPOLICY,
                    format!(
                        "{what}: group {} does not allow disk template drbd",
                        c.group_name_of(primary)
                    ),
                );
            }
        }
        if [primary, sec]
            .iter()
            .any(|&n| c.nodes.get(n).is_some_and(|x| x.exclusive_storage))
        {
            self.rep.add(
                ES_TEMPLATE,
                format!("{what}: disk template 'drbd' is not supported with exclusive storage"),
            );
        }
        // The new DRBD secondary holds every disk plus Ganeti's DRBD metadata volume.
        let with_meta = inst.disks.iter().fold(0i128, |acc, d| {
            acc.saturating_add(d.size).saturating_add(DRBD_META_SIZE)
        });
        let need = inst.disk_space_total.max(with_meta);
        self.take_disk(sec, inst, need, &what);
    }

    // ---- moves ---------------------------------------------------------------------------

    fn relocate(&mut self, ix: usize, relocate_from: &[usize], result: &J) {
        let c = self.c;
        let Some(inst) = c.insts.get(ix) else { return };
        let what = format!("relocate {}", inst.name);
        let Some(names) = name_list(result, "the relocate result", self.rep) else {
            return;
        };
        if names.len() != 1 {
            self.rep.add(
                NODE_COUNT,
                format!(
                    "{what}: the answer has {} node(s), relocate needs exactly 1",
                    names.len()
                ),
            );
        }
        let Some(nodes) = self.resolve_nodes(&names, &what) else {
            return;
        };
        let Some(&target) = nodes.first() else { return };
        let Some(primary) = inst.primary else { return };
        // IAReqRelocate.ValidateResult: the result's groups must be among those of relocate_from and the primary.
        let allowed: Vec<Option<usize>> = relocate_from
            .iter()
            .chain([&primary])
            .map(|&n| c.group_ix_of(n))
            .collect();
        if !allowed.contains(&c.group_ix_of(target)) {
            self.rep.add(
                RELOCATE_GROUP,
                format!(
                    "{what}: {} is in group {}, outside the groups of the instance",
                    c.node_name(target),
                    c.group_name_of(target)
                ),
            );
        }
        let mut st = MoveState::new(c);
        if is_drbd(&inst.template) {
            self.replace_secondary(&mut st, ix, target, &what);
            self.check_pair_group(&st, ix, &what);
        } else if MIRRORED.contains(&inst.template.as_str()) {
            self.migrate(&mut st, ix, Some(target), &what);
        } else {
            self.rep.add(
                UNMOVABLE_TEMPLATE,
                format!(
                    "{what}: instances with disk template '{}' cannot be relocated",
                    inst.template
                ),
            );
        }
    }

    /// node-evacuate and change-group: `[moved, failed, jobs]`.
    fn moves(&mut self, requested: &[usize], kind: MoveKind<'_>, result: &J) {
        let c = self.c;
        let (moved, failed, jobs) = match result.as_arr() {
            Some([J::Arr(m), J::Arr(f), J::Arr(j)]) => (m, f, j),
            _ => {
                self.rep.add(
                    ANSWER_SHAPE,
                    format!("the result is not [moved, failed, jobs]: {}", brief(result)),
                );
                return;
            }
        };
        // Shapes first (Ganeti's _NEVAC_RESULT), so nothing is applied from a broken answer.
        let mut moved_entries: Vec<(String, String, Vec<String>)> = Vec::new();
        for entry in moved {
            match entry.as_arr() {
                Some([J::Str(name), J::Str(group), nodes])
                    if !name.is_empty() && !group.is_empty() =>
                {
                    let Some(nodes) = name_list(
                        nodes,
                        &format!("the node list of moved instance {name}"),
                        self.rep,
                    ) else {
                        return;
                    };
                    moved_entries.push((name.clone(), group.clone(), nodes));
                }
                _ => {
                    self.rep.add(
                        ANSWER_SHAPE,
                        format!(
                            "a moved entry is not [instance, group, [nodes]]: {}",
                            brief(entry)
                        ),
                    );
                    return;
                }
            }
        }
        let mut failed_names = Vec::new();
        for entry in failed {
            match entry.as_arr() {
                Some([J::Str(name), J::Str(_) | J::Null]) if !name.is_empty() => {
                    failed_names.push(name.clone())
                }
                _ => {
                    self.rep.add(
                        ANSWER_SHAPE,
                        format!("a failed entry is not [instance, reason]: {}", brief(entry)),
                    );
                    return;
                }
            }
        }
        let mut job_lists: Vec<&[J]> = Vec::new();
        for job in jobs {
            match job.as_arr() {
                Some(ops) => job_lists.push(ops),
                None => {
                    self.rep.add(
                        ANSWER_SHAPE,
                        format!("a job is not a list of opcodes: {}", brief(job)),
                    );
                    return;
                }
            }
        }

        // Names in the lists.
        let requested_names: Vec<&str> = requested
            .iter()
            .filter_map(|&i| c.insts.get(i))
            .map(|i| i.name.as_str())
            .collect();
        let mut moved_ix: Vec<Option<usize>> = Vec::new();
        for (k, (name, group, nodes)) in moved_entries.iter().enumerate() {
            let ix = c.inst_ix.get(name).copied();
            if ix.is_none() {
                self.rep.add(
                    UNKNOWN_NAME,
                    format!("moved instance '{name}' does not exist in the request"),
                );
            } else if !requested_names.contains(&name.as_str()) {
                self.rep.add(
                    MOVED_LIST,
                    format!("moved instance '{name}' was not requested"),
                );
            }
            if moved_entries[..k].iter().any(|(n, _, _)| n == name) {
                self.rep.add(
                    MOVED_LIST,
                    format!("instance '{name}' is moved more than once"),
                );
            }
            if !c.groups.iter().any(|g| g.name == *group) {
                self.rep.add(
                    UNKNOWN_NAME,
                    format!(
                        "moved instance '{name}': group '{group}' does not exist in the request"
                    ),
                );
            }
            for n in nodes {
                if !c.node_ix.contains_key(n) {
                    self.rep.add(
                        UNKNOWN_NAME,
                        format!(
                            "moved instance '{name}': node '{n}' does not exist in the request"
                        ),
                    );
                }
            }
            moved_ix.push(ix);
        }
        for (k, name) in failed_names.iter().enumerate() {
            if !requested_names.contains(&name.as_str()) {
                self.rep.add(
                    FAILED_LIST,
                    format!("failed instance '{name}' was not requested"),
                );
            }
            if failed_names[..k].contains(name) {
                self.rep.add(
                    FAILED_LIST,
                    format!("instance '{name}' is listed as failed more than once"),
                );
            }
            if moved_entries.iter().any(|(n, _, _)| n == name) {
                self.rep.add(
                    FAILED_LIST,
                    format!("instance '{name}' is listed as both moved and failed"),
                );
            }
        }
        if job_lists.len() != moved_entries.len() {
            self.rep.add(
                MOVED_LIST,
                format!("there are {} moved instance(s) but {} job(s); each moved instance needs exactly one job", moved_entries.len(), job_lists.len()),
            );
        }

        // Apply the jobs in order.
        let mut st = MoveState::new(c);
        for (k, ops) in job_lists.iter().enumerate() {
            let owner = moved_entries.get(k).map(|(n, _, _)| n.as_str());
            let mut touched: Vec<usize> = Vec::new();
            for (o, op) in ops.iter().enumerate() {
                let where_ = format!("job {k} opcode {o}");
                let Some(op) = parse_opcode(op, &where_, self.rep) else {
                    continue;
                };
                if let Some(owner) = owner {
                    if op.instance != owner {
                        self.rep.add(
                            JOB_INSTANCE,
                            format!(
                                "{where_}: opcode for instance '{}' in the job of '{owner}'",
                                op.instance
                            ),
                        );
                    }
                }
                let Some(ix) = c.inst_ix.get(&op.instance).copied() else {
                    self.rep.add(
                        UNKNOWN_NAME,
                        format!(
                            "{where_}: instance '{}' does not exist in the request",
                            op.instance
                        ),
                    );
                    continue;
                };
                let what = format!("{where_} ({} {})", op.kind.id(), op.instance);
                match op.kind {
                    OpKind::Migrate | OpKind::Failover => {
                        let target = match &op.target_node {
                            Some(t) => match self.c.node_ix.get(t) {
                                Some(&n) => Some(n),
                                None => {
                                    self.rep.add(UNKNOWN_NAME, format!("{what}: target node '{t}' does not exist in the request"));
                                    continue;
                                }
                            },
                            None => None,
                        };
                        self.migrate(&mut st, ix, target, &what);
                    }
                    OpKind::Replace => {
                        let Some(remote) = op.remote_node.as_ref() else {
                            continue;
                        };
                        let Some(&n) = c.node_ix.get(remote) else {
                            self.rep.add(
                                UNKNOWN_NAME,
                                format!(
                                    "{what}: remote node '{remote}' does not exist in the request"
                                ),
                            );
                            continue;
                        };
                        self.replace_secondary(&mut st, ix, n, &what);
                    }
                }
                if !touched.contains(&ix) {
                    touched.push(ix);
                }
            }
            // A DRBD instance may straddle two groups between the steps of a
            // change-group job, but not once its job is done.
            for ix in touched {
                self.check_pair_group(&st, ix, &format!("after job {k}"));
            }
        }

        // The moved list must describe the state after the jobs.
        for ((name, group, nodes), ix) in moved_entries.iter().zip(&moved_ix) {
            let Some(ix) = *ix else { continue };
            let Some(p) = st.primary.get(ix).copied().flatten() else {
                continue;
            };
            let s = st.secondary.get(ix).copied().flatten();
            let mut actual = vec![c.node_name(p).to_owned()];
            if let Some(s) = s {
                actual.push(c.node_name(s).to_owned());
            }
            if *nodes != actual {
                self.rep.add(MOVED_LIST, format!("moved instance '{name}' is listed on {nodes:?} but the jobs leave it on {actual:?}"));
            }
            if c.group_name_of(p) != group {
                self.rep.add(
                    MOVED_LIST,
                    format!("moved instance '{name}' is listed in group '{group}' but its primary ends in group '{}'", c.group_name_of(p)),
                );
            }
            let Some(orig) = c.insts.get(ix) else {
                continue;
            };
            match kind {
                MoveKind::Evacuate(mode) => self.check_evacuated(orig, p, s, mode),
                MoveKind::ChangeGroup(targets) => self.check_change_group(orig, p, s, targets),
            }
        }
    }

    fn check_evacuated(&mut self, orig: &Inst, p: usize, s: Option<usize>, mode: EvacMode) {
        let c = self.c;
        let name = &orig.name;
        let (op, os) = (orig.primary, orig.secondary);
        match mode {
            EvacMode::PrimaryOnly => {
                if Some(p) == op {
                    self.rep.add(
                        EVACUATED_NODE,
                        format!("instance '{name}' is still primary on {}", c.node_name(p)),
                    );
                }
            }
            EvacMode::SecondaryOnly => {
                if s.is_some() && s == os {
                    self.rep.add(
                        EVACUATED_NODE,
                        format!(
                            "instance '{name}' is still secondary on {}",
                            c.node_name(s.unwrap_or(0))
                        ),
                    );
                }
            }
            EvacMode::All => {
                for n in [Some(p), s].into_iter().flatten() {
                    if Some(n) == op || Some(n) == os {
                        self.rep.add(
                            EVACUATED_NODE,
                            format!(
                                "instance '{name}' still uses {} after evacuating all its nodes",
                                c.node_name(n)
                            ),
                        );
                    }
                }
            }
        }
    }

    fn check_change_group(&mut self, orig: &Inst, p: usize, s: Option<usize>, targets: &[usize]) {
        let c = self.c;
        let own: Vec<usize> = [orig.primary, orig.secondary]
            .into_iter()
            .flatten()
            .filter_map(|n| c.group_ix_of(n))
            .collect();
        for n in [Some(p), s].into_iter().flatten() {
            let Some(g) = c.group_ix_of(n) else { continue };
            if own.contains(&g) {
                self.rep.add(
                    CHANGE_GROUP_TARGET,
                    format!(
                        "instance '{}' still uses its own group {} (node {})",
                        orig.name,
                        c.group_name_of(n),
                        c.node_name(n)
                    ),
                );
            } else if !targets.is_empty() && !targets.contains(&g) {
                self.rep.add(
                    CHANGE_GROUP_TARGET,
                    format!(
                        "instance '{}' ends on {} in group {}, which is not a target group",
                        orig.name,
                        c.node_name(n),
                        c.group_name_of(n)
                    ),
                );
            }
        }
    }

    fn check_pair_group(&mut self, st: &MoveState, ix: usize, when: &str) {
        let c = self.c;
        let (Some(Some(p)), Some(Some(s))) = (st.primary.get(ix), st.secondary.get(ix)) else {
            return;
        };
        if c.group_ix_of(*p) != c.group_ix_of(*s) {
            let name = c.insts.get(ix).map_or("?", |i| i.name.as_str());
            self.rep.add(
                CROSS_GROUP,
                format!(
                    "{when}: instance '{name}' has primary {} in group {} and secondary {} in group {}",
                    c.node_name(*p),
                    c.group_name_of(*p),
                    c.node_name(*s),
                    c.group_name_of(*s)
                ),
            );
        }
    }

    /// OP_INSTANCE_MIGRATE / OP_INSTANCE_FAILOVER (`TLMigrateInstance.CheckPrereq`).
    fn migrate(&mut self, st: &mut MoveState, ix: usize, target: Option<usize>, what: &str) {
        let c = self.c;
        let Some(inst) = c.insts.get(ix) else { return };
        let Some(p) = st.primary.get(ix).copied().flatten() else {
            return;
        };
        let s = st.secondary.get(ix).copied().flatten();
        if !MIRRORED.contains(&inst.template.as_str()) {
            self.rep.add(
                UNMOVABLE_TEMPLATE,
                format!(
                    "{what}: disk template '{}' does not allow failover or migration",
                    inst.template
                ),
            );
            return;
        }
        let new_p = if is_drbd(&inst.template) {
            let Some(s) = s else {
                self.rep.add(
                    UNMOVABLE_TEMPLATE,
                    format!("{what}: the DRBD instance has no secondary to fail over to"),
                );
                return;
            };
            if target.is_some_and(|t| t != s) {
                self.rep.add(
                    BAD_OPCODE,
                    format!(
                        "{what}: a DRBD instance can only move to its secondary {}, not to {}",
                        c.node_name(s),
                        c.node_name(target.unwrap_or(s))
                    ),
                );
                return;
            }
            s
        } else {
            let Some(t) = target else {
                self.rep.add(
                    BAD_OPCODE,
                    format!("{what}: a shared-storage instance needs a target_node"),
                );
                return;
            };
            if t == p {
                self.rep.add(
                    SAME_NODE,
                    format!(
                        "{what}: the target {} is already the primary",
                        c.node_name(t)
                    ),
                );
                return;
            }
            t
        };
        self.check_target(new_p, "new primary", what);
        let (src, dst) = (c.mig_tags(p), c.recv_mig_tags(new_p));
        let missing: Vec<&String> = src.iter().filter(|t| !dst.contains(t)).collect();
        if !missing.is_empty() {
            self.rep.add(
                MIGRATION_TAGS,
                format!("{what}: {} cannot receive instances from {} (missing migration tags {missing:?})", c.node_name(new_p), c.node_name(p)),
            );
        }
        self.check_cross_group_policy(inst, st, ix, p, new_p, what);
        // The memory moves with a running instance: the node it leaves gets it back.
        if inst.uses_memory {
            add_at(&mut self.usage.memory, p, inst.memory.saturating_neg());
            self.take_memory(new_p, inst, what);
        }
        if let Some(x) = st.primary.get_mut(ix) {
            *x = Some(new_p);
        }
        if is_drbd(&inst.template) {
            if let Some(x) = st.secondary.get_mut(ix) {
                *x = Some(p);
            }
        }
    }

    /// OP_INSTANCE_REPLACE_DISKS in mode replace_new_secondary (`TLReplaceDisks.CheckPrereq`).
    fn replace_secondary(&mut self, st: &mut MoveState, ix: usize, remote: usize, what: &str) {
        let c = self.c;
        let Some(inst) = c.insts.get(ix) else { return };
        let Some(p) = st.primary.get(ix).copied().flatten() else {
            return;
        };
        let old = st.secondary.get(ix).copied().flatten();
        if !is_drbd(&inst.template) {
            self.rep.add(
                UNMOVABLE_TEMPLATE,
                format!(
                    "{what}: replace-disks only works for DRBD instances, not '{}'",
                    inst.template
                ),
            );
            return;
        }
        if remote == p {
            self.rep.add(
                SAME_NODE,
                format!(
                    "{what}: the new secondary {} is the primary",
                    c.node_name(remote)
                ),
            );
            return;
        }
        if Some(remote) == old {
            self.rep.add(
                SAME_NODE,
                format!("{what}: {} is already the secondary", c.node_name(remote)),
            );
            return;
        }
        if c.nodes.get(p).is_some_and(|n| n.offline) {
            self.rep.add(
                REPLACE_OFFLINE_PRIMARY,
                format!("{what}: the primary {} is offline", c.node_name(p)),
            );
        }
        self.check_target(remote, "new secondary", what);
        self.check_cross_group_policy(inst, st, ix, p, remote, what);
        // The old secondary's volumes are removed at the end of the replacement.
        if let Some(old) = old {
            self.release_disk(old, inst, inst.disk_space_total);
        }
        self.take_disk(remote, inst, inst.disk_space_total, what);
        if let Some(x) = st.secondary.get_mut(ix) {
            *x = Some(remote);
        }
    }

    /// `CheckTargetNodeIPolicy`: moving a node role into another group than the
    /// primary's requires the instance to meet that group's policy.
    fn check_cross_group_policy(
        &mut self,
        inst: &Inst,
        st: &MoveState,
        ix: usize,
        p: usize,
        target: usize,
        what: &str,
    ) {
        let c = self.c;
        if c.group_ix_of(p) == c.group_ix_of(target) {
            return;
        }
        let Some(group) = c.group_of(target) else {
            return;
        };
        let Some(pol) = &group.ipolicy else { return };
        let es = [
            st.primary.get(ix).copied().flatten(),
            st.secondary.get(ix).copied().flatten(),
        ]
        .into_iter()
        .flatten()
        .any(|n| c.nodes.get(n).is_some_and(|x| x.exclusive_storage));
        let spec = PolicyInput::existing_instance(inst, es);
        if es && inst.spindle_sum().is_none() {
            self.rep.add(
                IPOLICY,
                format!(
                    "{what}: group {}: the disks have no spindle counts under exclusive storage",
                    group.name
                ),
            );
        }
        self.check_policy(pol, &spec, &inst.template, &group.name, what);
    }
}

/// What a node-evacuate or change-group request asks for.
#[derive(Clone, Copy)]
enum MoveKind<'a> {
    Evacuate(EvacMode),
    /// The target groups (empty: any other group).
    ChangeGroup(&'a [usize]),
}

/// Where each existing instance is while the jobs are applied.
struct MoveState {
    primary: Vec<Option<usize>>,
    secondary: Vec<Option<usize>>,
}

impl MoveState {
    fn new(c: &Cluster) -> MoveState {
        MoveState {
            primary: c.insts.iter().map(|i| i.primary).collect(),
            secondary: c.insts.iter().map(|i| i.secondary).collect(),
        }
    }
}

// ------------------------------------------------------------------------------------------
// Opcodes

#[derive(Clone, Copy, PartialEq)]
enum OpKind {
    Migrate,
    Failover,
    Replace,
}

impl OpKind {
    fn id(self) -> &'static str {
        match self {
            OpKind::Migrate => "OP_INSTANCE_MIGRATE",
            OpKind::Failover => "OP_INSTANCE_FAILOVER",
            OpKind::Replace => "OP_INSTANCE_REPLACE_DISKS",
        }
    }
}

/// The parts of an opcode the checker applies.
struct Op {
    kind: OpKind,
    instance: String,
    target_node: Option<String>,
    remote_node: Option<String>,
}

type FieldTest = fn(&J) -> bool;

fn t_bool(j: &J) -> bool {
    matches!(j, J::Bool(_))
}
fn t_maybe_bool(j: &J) -> bool {
    matches!(j, J::Bool(_) | J::Null)
}
fn t_str(j: &J) -> bool {
    matches!(j, J::Str(_))
}
fn t_maybe_str(j: &J) -> bool {
    matches!(j, J::Str(_) | J::Null)
}
fn t_nonneg_int(j: &J) -> bool {
    matches!(j, J::Int(i) if *i >= 0)
}
fn t_maybe_nonneg_int(j: &J) -> bool {
    *j == J::Null || t_nonneg_int(j)
}
fn t_priority(j: &J) -> bool {
    matches!(j, J::Int(-10 | 0 | 10))
}
fn t_maybe_list(j: &J) -> bool {
    matches!(j, J::Arr(_) | J::Null)
}
fn t_depends(j: &J) -> bool {
    match j {
        J::Null => true,
        J::Arr(deps) => deps.iter().all(|d| match d.as_arr() {
            Some([J::Int(_) | J::Str(_), J::Arr(states)]) => states
                .iter()
                .all(|s| matches!(s.as_str(), Some("canceled" | "success" | "error"))),
            _ => false,
        }),
        _ => false,
    }
}
fn t_maybe_migration_mode(j: &J) -> bool {
    matches!(j, J::Null) || matches!(j.as_str(), Some("live" | "non-live"))
}
fn t_replace_mode(j: &J) -> bool {
    matches!(
        j.as_str(),
        Some(
            "replace_auto"
                | "replace_new_secondary"
                | "replace_on_primary"
                | "replace_on_secondary"
        )
    )
}
fn t_disk_indices(j: &J) -> bool {
    j.as_arr().is_some_and(|a| {
        a.iter()
            .all(|d| matches!(d, J::Int(i) if (0..=16).contains(i)))
    })
}

/// Parameters every opcode accepts (`opcodes.OpCode.OP_PARAMS`).
const BASE_FIELDS: &[(&str, FieldTest)] = &[
    ("dry_run", t_maybe_bool),
    ("debug_level", t_maybe_nonneg_int),
    ("priority", t_priority),
    ("depends", t_depends),
    ("comment", t_maybe_str),
    ("reason", t_maybe_list),
];

/// `opcodes.OpInstanceMigrate.OP_PARAMS`.
const MIGRATE_FIELDS: &[(&str, FieldTest)] = &[
    ("instance_name", t_str),
    ("instance_uuid", t_maybe_str),
    ("mode", t_maybe_migration_mode),
    ("live", t_maybe_bool),
    ("target_node", t_maybe_str),
    ("target_node_uuid", t_maybe_str),
    ("allow_runtime_changes", t_bool),
    ("ignore_ipolicy", t_bool),
    ("cleanup", t_bool),
    ("iallocator", t_maybe_str),
    ("allow_failover", t_bool),
    ("ignore_hvversions", t_bool),
];

/// `opcodes.OpInstanceFailover.OP_PARAMS`.
const FAILOVER_FIELDS: &[(&str, FieldTest)] = &[
    ("instance_name", t_str),
    ("instance_uuid", t_maybe_str),
    ("shutdown_timeout", t_nonneg_int),
    ("ignore_consistency", t_bool),
    ("target_node", t_maybe_str),
    ("target_node_uuid", t_maybe_str),
    ("ignore_ipolicy", t_bool),
    ("cleanup", t_bool),
    ("iallocator", t_maybe_str),
];

/// `opcodes.OpInstanceReplaceDisks.OP_PARAMS`.
const REPLACE_FIELDS: &[(&str, FieldTest)] = &[
    ("instance_name", t_str),
    ("instance_uuid", t_maybe_str),
    ("early_release", t_bool),
    ("ignore_ipolicy", t_bool),
    ("mode", t_replace_mode),
    ("disks", t_disk_indices),
    ("remote_node", t_maybe_str),
    ("remote_node_uuid", t_maybe_str),
    ("iallocator", t_maybe_str),
];

/// Validates one opcode as Ganeti's job loader would (`OpCode.LoadOpCode`:
/// unknown keys are refused; `Validate`: typed parameters, `instance_name` and
/// the replace `mode` required), plus the settings that would make the opcode
/// do something other than the move it stands for. Returns the opcode when it
/// can be applied.
fn parse_opcode(j: &J, where_: &str, rep: &mut Report) -> Option<Op> {
    let Some(entries) = j.as_obj() else {
        rep.add(BAD_OPCODE, format!("{where_}: not an object: {}", brief(j)));
        return None;
    };
    let kind = match j.get("OP_ID").and_then(J::as_str) {
        Some("OP_INSTANCE_MIGRATE") => OpKind::Migrate,
        Some("OP_INSTANCE_FAILOVER") => OpKind::Failover,
        Some("OP_INSTANCE_REPLACE_DISKS") => OpKind::Replace,
        other => {
            rep.add(
                BAD_OPCODE,
                format!(
                    "{where_}: OP_ID {other:?} is not a failover, migrate or replace-disks opcode"
                ),
            );
            return None;
        }
    };
    let fields = match kind {
        OpKind::Migrate => MIGRATE_FIELDS,
        OpKind::Failover => FAILOVER_FIELDS,
        OpKind::Replace => REPLACE_FIELDS,
    };
    let mut ok = true;
    for (i, (key, value)) in entries.iter().enumerate() {
        if key == "OP_ID" {
            continue;
        }
        if entries[..i].iter().any(|(k, _)| k == key) {
            rep.add(BAD_OPCODE, format!("{where_}: field '{key}' appears twice"));
            ok = false;
            continue;
        }
        match fields.iter().chain(BASE_FIELDS).find(|(k, _)| k == key) {
            None => {
                rep.add(
                    BAD_OPCODE,
                    format!("{where_}: {} has no parameter '{key}'", kind.id()),
                );
                ok = false;
            }
            Some((_, test)) if !test(value) => {
                rep.add(
                    BAD_OPCODE,
                    format!(
                        "{where_}: parameter '{key}' has an invalid value {}",
                        brief(value)
                    ),
                );
                ok = false;
            }
            Some(_) => {}
        }
    }
    let instance = j
        .get("instance_name")
        .and_then(J::as_str)
        .map(str::to_owned);
    if instance.is_none() {
        rep.add(BAD_OPCODE, format!("{where_}: instance_name is missing"));
        ok = false;
    }
    if kind == OpKind::Replace && !j.get("mode").is_some_and(t_replace_mode) {
        rep.add(
            BAD_OPCODE,
            format!("{where_}: the replace-disks mode is missing"),
        );
        ok = false;
    }
    // Settings Ganeti accepts but that would not perform the intended move, or
    // that hand the decision to something the checker cannot see.
    let set = |key: &str| {
        j.get(key)
            .is_some_and(|v| *v != J::Null && *v != J::Bool(false))
    };
    for key in [
        "dry_run",
        "cleanup",
        "ignore_ipolicy",
        "ignore_consistency",
        "iallocator",
        "instance_uuid",
        "target_node_uuid",
        "remote_node_uuid",
    ] {
        if set(key) {
            rep.add(
                BAD_OPCODE,
                format!(
                    "{where_}: '{key}' is set ({})",
                    j.get(key).map_or(String::new(), brief)
                ),
            );
            ok = false;
        }
    }
    if kind == OpKind::Migrate && set("live") && j.get("mode").is_some_and(|m| *m != J::Null) {
        rep.add(
            BAD_OPCODE,
            format!("{where_}: only one of 'live' and 'mode' may be given"),
        );
        ok = false;
    }
    let remote_node = j.get("remote_node").and_then(J::as_str).map(str::to_owned);
    if kind == OpKind::Replace {
        if j.get("mode").and_then(J::as_str) != Some("replace_new_secondary") {
            rep.add(
                BAD_OPCODE,
                format!("{where_}: replace-disks mode is not replace_new_secondary"),
            );
            ok = false;
        }
        if remote_node.is_none() {
            rep.add(
                BAD_OPCODE,
                format!("{where_}: replace-disks has no remote_node"),
            );
            ok = false;
        }
        if j.get("disks")
            .and_then(J::as_arr)
            .is_some_and(|d| !d.is_empty())
        {
            rep.add(
                BAD_OPCODE,
                format!("{where_}: disks cannot be given when changing the secondary"),
            );
            ok = false;
        }
    }
    if !ok {
        return None;
    }
    Some(Op {
        kind,
        instance: instance.unwrap_or_default(),
        target_node: j.get("target_node").and_then(J::as_str).map(str::to_owned),
        remote_node,
    })
}

// ------------------------------------------------------------------------------------------
// Instance policy

/// The values an instance policy is checked against.
struct PolicyInput {
    memory: i128,
    vcpus: i128,
    spindle_use: Option<i128>,
    disk_sizes: Vec<i128>,
    nic_count: i128,
}

impl PolicyInput {
    /// A new instance (`LUInstanceCreate.CheckPrereq`: the `spindle_use` parameter).
    fn new_instance(inst: &Inst) -> PolicyInput {
        PolicyInput {
            memory: inst.memory,
            vcpus: inst.vcpus,
            spindle_use: inst.spindle_use,
            disk_sizes: inst.disk_sizes(),
            nic_count: i128::try_from(inst.nic_networks.len()).unwrap_or(NUM_LIMIT),
        }
    }

    /// An existing instance (`ComputeIPolicyInstanceViolation`: with exclusive
    /// storage the disks' spindles, otherwise `spindle_use`).
    fn existing_instance(inst: &Inst, exclusive_storage: bool) -> PolicyInput {
        let mut p = PolicyInput::new_instance(inst);
        if exclusive_storage {
            p.spindle_use = inst.spindle_sum();
        }
        p
    }
}

/// Returns the policy violations (`ComputeIPolicySpecViolation`), split into
/// those that hold without the NIC count and the one that only the NIC count
/// causes.
fn policy_violations(
    pol: &IPolicy,
    x: &PolicyInput,
    template: &str,
) -> (Vec<String>, Option<String>) {
    let mut hard = Vec::new();
    if !pol.templates.iter().any(|t| t == template) {
        hard.push(format!(
            "disk template '{template}' is not allowed (allowed: {:?})",
            pol.templates
        ));
    }
    if x.disk_sizes.is_empty()
        && template != "diskless"
        && !pol.templates.iter().any(|t| t == "diskless")
    {
        hard.push(
            "an instance without disks needs disk template 'diskless' to be allowed".to_owned(),
        );
    }
    if pol.minmax.is_empty() {
        return (hard, None);
    }
    let errors = |min: &Spec, max: &Spec, with_nic: bool| -> Vec<String> {
        let mut e = Vec::new();
        let mut test = |name: &str, value: Option<i128>, lo: Option<i128>, hi: Option<i128>| {
            let Some(v) = value else { return };
            if lo.is_some_and(|lo| v < lo) || hi.is_some_and(|hi| v > hi) {
                e.push(format!("{name} {v} not in [{}, {}]", opt(lo), opt(hi)));
            }
        };
        test("memory-size", Some(x.memory), min.memory, max.memory);
        test("cpu-count", Some(x.vcpus), min.cpu, max.cpu);
        test(
            "spindle-use",
            x.spindle_use,
            min.spindle_use,
            max.spindle_use,
        );
        for (i, d) in x.disk_sizes.iter().enumerate() {
            test(
                &format!("disk-size/{i}"),
                Some(*d),
                min.disk_size,
                max.disk_size,
            );
        }
        if !x.disk_sizes.is_empty() {
            let count = i128::try_from(x.disk_sizes.len()).unwrap_or(NUM_LIMIT);
            test("disk-count", Some(count), min.disk_count, max.disk_count);
        }
        if with_nic {
            test("nic-count", Some(x.nic_count), min.nic_count, max.nic_count);
        }
        e
    };
    let without_nic: Vec<Vec<String>> = pol
        .minmax
        .iter()
        .map(|(lo, hi)| errors(lo, hi, false))
        .collect();
    if without_nic.iter().all(|e| !e.is_empty()) {
        let first = without_nic
            .first()
            .map(|e| e.join(", "))
            .unwrap_or_default();
        hard.push(format!(
            "the instance fits no min/max pair (first pair: {first})"
        ));
        return (hard, None);
    }
    let with_nic_fits = pol
        .minmax
        .iter()
        .any(|(lo, hi)| errors(lo, hi, true).is_empty());
    let nic = (!with_nic_fits).then(|| {
        format!(
            "nic-count {} fits no min/max pair that the other values fit",
            x.nic_count
        )
    });
    (hard, nic)
}

fn opt(v: Option<i128>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| v.to_string())
}
