//! Ganeti opcodes as JSON, in the field order Ganeti 3.0.2's Haskell
//! serialiser writes them: the jobs of a node evacuation or group change
//! in hail's answers (`Cluster.iMoveToJob`), and the jobs the planners
//! submit with `-X` (hbal's moves; hsqueeze's tags, offline flags and
//! out-of-band power commands; hailstone-roll's evacuations, instance
//! moves, shutdowns, startups and disk activations around a reboot),
//! wrapped with their `priority`, `depends`,
//! `comment` and `reason` fields (a `MetaOpCode`). Each opcode is a
//! [`Json`] object, written by the one JSON writer.

use crate::search::repair::RepairOp;
use crate::write::balance::MoveText;
use crate::write::json::{s, strs, Json};

/// An opcode: its `OP_ID` first, then its fields.
fn opcode(id: &str, fields: Vec<(&'static str, Json)>) -> Json {
    let mut all = Vec::with_capacity(fields.len() + 1);
    all.push(("OP_ID", s(id)));
    all.extend(fields);
    Json::Obj(all)
}

/// The opcodes of one move of instance `inst` (`iMoveToJob`), with the
/// nodes it goes to by full name. A forthcoming instance fails over
/// instead of migrating.
pub fn move_opcodes(inst: &str, forthcoming: bool, mv: MoveText<'_>) -> Vec<Json> {
    let failover = |target: Option<&str>| -> Json {
        if !forthcoming {
            return migrate_opcode(inst, target);
        }
        let mut fields = vec![
            ("instance_name", s(inst)),
            ("shutdown_timeout", Json::Int(SHUTDOWN_TIMEOUT)),
            ("ignore_consistency", Json::Bool(false)),
        ];
        if let Some(t) = target {
            fields.push(("target_node", s(t)));
        }
        fields.push(("ignore_ipolicy", Json::Bool(false)));
        fields.push(("cleanup", Json::Bool(false)));
        opcode("OP_INSTANCE_FAILOVER", fields)
    };
    let replace = |t: &str| replace_secondary_opcode(inst, t);
    match mv {
        MoveText::Failover => vec![failover(None)],
        MoveText::FailoverToAny(t) => vec![failover(Some(t))],
        MoveText::ReplaceSecondary(t) => vec![replace(t)],
        MoveText::ReplacePrimary(t) => vec![failover(None), replace(t), failover(None)],
        MoveText::ReplaceAndFailover(t) => vec![replace(t), failover(None)],
        MoveText::FailoverAndReplace(t) => vec![failover(None), replace(t)],
    }
}

/// Ganeti's default shutdown timeout, in seconds
/// (`C.defaultShutdownTimeout`).
const SHUTDOWN_TIMEOUT: i64 = 120;

/// `OP_INSTANCE_MIGRATE` of `inst`: to its secondary (`target` `None`,
/// drbd) or to `target` (shared storage); an instance that is not
/// running fails over instead (`allow_failover`).
pub fn migrate_opcode(inst: &str, target: Option<&str>) -> Json {
    let mut fields = vec![("instance_name", s(inst))];
    if let Some(t) = target {
        fields.push(("target_node", s(t)));
    }
    fields.push(("allow_runtime_changes", Json::Bool(false)));
    fields.push(("ignore_ipolicy", Json::Bool(false)));
    fields.push(("cleanup", Json::Bool(false)));
    fields.push(("allow_failover", Json::Bool(true)));
    fields.push(("ignore_hvversions", Json::Bool(true)));
    opcode("OP_INSTANCE_MIGRATE", fields)
}

/// `OP_INSTANCE_REPLACE_DISKS` giving the drbd instance `inst` the new
/// secondary node `node`.
pub fn replace_secondary_opcode(inst: &str, node: &str) -> Json {
    opcode(
        "OP_INSTANCE_REPLACE_DISKS",
        vec![
            ("instance_name", s(inst)),
            ("early_release", Json::Bool(false)),
            ("ignore_ipolicy", Json::Bool(false)),
            ("mode", s("replace_new_secondary")),
            ("disks", Json::Arr(Vec::new())),
            ("remote_node", s(node)),
        ],
    )
}

/// `OP_INSTANCE_MOVE` copying the non-redundant instance `inst` (plain,
/// file) to `node` (`gnt-instance move`: shut down, copied, started
/// again if it ran).
pub fn instance_move_opcode(inst: &str, node: &str) -> Json {
    opcode(
        "OP_INSTANCE_MOVE",
        vec![
            ("instance_name", s(inst)),
            ("shutdown_timeout", Json::Int(SHUTDOWN_TIMEOUT)),
            ("ignore_ipolicy", Json::Bool(false)),
            ("target_node", s(node)),
            ("compress", s("none")),
            ("ignore_consistency", Json::Bool(false)),
        ],
    )
}

/// `OP_INSTANCE_SHUTDOWN` of `inst` (`gnt-instance shutdown`; the new
/// state is remembered).
pub fn shutdown_opcode(inst: &str) -> Json {
    opcode(
        "OP_INSTANCE_SHUTDOWN",
        vec![
            ("instance_name", s(inst)),
            ("force", Json::Bool(false)),
            ("ignore_offline_nodes", Json::Bool(false)),
            ("timeout", Json::Int(SHUTDOWN_TIMEOUT)),
            ("no_remember", Json::Bool(false)),
        ],
    )
}

/// `OP_INSTANCE_STARTUP` of `inst` (`gnt-instance startup`).
pub fn startup_opcode(inst: &str) -> Json {
    opcode(
        "OP_INSTANCE_STARTUP",
        vec![
            ("instance_name", s(inst)),
            ("force", Json::Bool(false)),
            ("ignore_offline_nodes", Json::Bool(false)),
            ("hvparams", Json::Obj(Vec::new())),
            ("beparams", Json::Obj(Vec::new())),
            ("no_remember", Json::Bool(false)),
            ("startup_paused", Json::Bool(false)),
            ("shutdown_timeout", Json::Int(SHUTDOWN_TIMEOUT)),
        ],
    )
}

/// `OP_INSTANCE_ACTIVATE_DISKS` of `inst`, waiting until its disks are in
/// sync (`gnt-instance activate-disks --wait-for-sync`): a drbd instance
/// whose node was rebooted reconnects and resynchronises.
pub fn activate_disks_opcode(inst: &str) -> Json {
    opcode(
        "OP_INSTANCE_ACTIVATE_DISKS",
        vec![
            ("instance_name", s(inst)),
            ("ignore_size", Json::Bool(false)),
            ("wait_for_sync", Json::Bool(true)),
        ],
    )
}

/// The opcodes of a harep repair of `inst` (`detectBroken`), the new
/// nodes chosen by `iallocator`; without the optional fields harep leaves
/// out.
pub fn repair_opcode(inst: &str, op: RepairOp, iallocator: &str) -> Json {
    let name = ("instance_name", s(inst));
    match op {
        RepairOp::RecreateDisks => opcode(
            "OP_INSTANCE_RECREATE_DISKS",
            vec![
                name,
                ("disks", Json::Arr(Vec::new())),
                ("nodes", Json::Arr(Vec::new())),
                ("iallocator", s(iallocator)),
            ],
        ),
        RepairOp::Reinstall => opcode(
            "OP_INSTANCE_REINSTALL",
            vec![name, ("force_variant", Json::Bool(false))],
        ),
        RepairOp::Failover => opcode(
            "OP_INSTANCE_FAILOVER",
            vec![
                name,
                ("shutdown_timeout", Json::Int(SHUTDOWN_TIMEOUT)),
                ("ignore_consistency", Json::Bool(false)),
                ("ignore_ipolicy", Json::Bool(false)),
                ("cleanup", Json::Bool(false)),
            ],
        ),
        RepairOp::ReplaceSecondary => opcode(
            "OP_INSTANCE_REPLACE_DISKS",
            vec![
                name,
                ("early_release", Json::Bool(false)),
                ("ignore_ipolicy", Json::Bool(false)),
                ("mode", s("replace_new_secondary")),
                ("disks", Json::Arr(Vec::new())),
                ("iallocator", s(iallocator)),
            ],
        ),
    }
}

/// `OP_TEST_DELAY` on the master of `seconds` (harep's `--job-delay`
/// before a repair, so that its tag job gets the instance's locks first).
pub fn test_delay_opcode(seconds: f64) -> Json {
    opcode(
        "OP_TEST_DELAY",
        vec![
            ("duration", haskell_json_double(seconds)),
            ("on_master", Json::Bool(true)),
            ("on_nodes", Json::Arr(Vec::new())),
            ("repeat", Json::Int(0)),
            ("interruptible", Json::Bool(false)),
            ("no_locks", Json::Bool(false)),
        ],
    )
}

/// A double as Text.JSON writes it: an integer when it is one.
fn haskell_json_double(x: f64) -> Json {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Json::Int(x as i64)
    } else {
        Json::Num(x)
    }
}

/// `OP_TAGS_SET` (`set`) or `OP_TAGS_DEL` of an instance's tags.
pub fn instance_tags_opcode(inst: &str, tags: &[&str], set: bool) -> Json {
    opcode(
        if set { "OP_TAGS_SET" } else { "OP_TAGS_DEL" },
        vec![
            ("kind", s("instance")),
            ("tags", strs(tags)),
            ("name", s(inst)),
        ],
    )
}

/// `OP_TAGS_SET` of a node (`Node.genAddTagsOpCode`).
pub fn node_tags_opcode(node: &str, tags: &[&str]) -> Json {
    opcode(
        "OP_TAGS_SET",
        vec![("kind", s("node")), ("tags", strs(tags)), ("name", s(node))],
    )
}

/// `OP_NODE_SET_PARAMS` setting or clearing a node's offline flag
/// (`genOpSetOffline`).
pub fn node_offline_opcode(node: &str, offline: bool) -> Json {
    opcode(
        "OP_NODE_SET_PARAMS",
        vec![
            ("node_name", s(node)),
            ("force", Json::Bool(false)),
            ("offline", Json::Bool(offline)),
            ("auto_promote", Json::Bool(false)),
        ],
    )
}

/// `OP_OOB_COMMAND` powering nodes on or off (`genOobCommand`).
pub fn oob_power_opcode(nodes: &[&str], on: bool) -> Json {
    opcode(
        "OP_OOB_COMMAND",
        vec![
            ("node_names", strs(nodes)),
            ("command", s(if on { "power-on" } else { "power-off" })),
            ("timeout", Json::Int(60)),
            ("ignore_status", Json::Bool(false)),
            ("power_delay", Json::Int(2)),
        ],
    )
}

/// What the planners add to every opcode they submit (hbal's and
/// hsqueeze's `annotateOpCode`): the job priority, a comment, and one
/// entry of the reason trail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotation {
    /// Ganeti's opcode priority: -10 high, 0 normal, 10 low.
    pub priority: i32,
    /// The opcode's comment.
    pub comment: String,
    /// The reason trail entry: source, reason, timestamp (nanoseconds).
    pub reason: (String, String, i64),
}

/// An opcode of this module wrapped as Ganeti's MetaOpCode: the
/// annotation's fields first.
pub fn meta_opcode(opcode: &Json, a: &Annotation) -> Json {
    let mut fields = vec![
        ("priority", Json::Int(i64::from(a.priority))),
        ("depends", Json::Null),
        ("comment", s(&a.comment)),
        (
            "reason",
            Json::Arr(vec![Json::Arr(vec![
                s(&a.reason.0),
                s(&a.reason.1),
                Json::Int(a.reason.2),
            ])]),
        ),
    ];
    if let Json::Obj(own) = opcode {
        fields.extend(own.iter().cloned());
    }
    Json::Obj(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// hbal 3.0.2 -X submitted exactly this for a move of a shared-storage
    /// instance (captured from the lab cluster's Luxi socket).
    #[test]
    fn a_migration_as_hbal_submits_it() {
        let a = Annotation {
            priority: 0,
            comment: "rebalancing via hbal (ganeti) version 3.0.2-3".to_owned(),
            reason: (
                "hbal".to_owned(),
                "hbal (ganeti) version 3.0.2-3 called".to_owned(),
                1_795_568_266_697_805_000,
            ),
        };
        let ops = move_opcodes(
            "inst36.example.com",
            false,
            MoveText::FailoverToAny("node3.example.com"),
        );
        assert_eq!(ops.len(), 1);
        assert_eq!(
            meta_opcode(&ops[0], &a).line(),
            concat!(
                r#"{"priority":0,"depends":null,"comment":"rebalancing via hbal (ganeti) version 3.0.2-3","reason":[["hbal","hbal (ganeti) version 3.0.2-3 called",1795568266697805000]],"OP_ID":"OP_INSTANCE_MIGRATE","instance_name":"inst36.example.com","target_node":"node3.example.com","allow_runtime_changes":false,"ignore_ipolicy":false,"cleanup":false,"allow_failover":true,"ignore_hvversions":true}"#,
                "\n"
            )
        );
    }

    /// hsqueeze 3.0.2 -X's tag, offline and power-off opcodes (captured).
    #[test]
    fn squeeze_opcodes_as_hsqueeze_submits_them() {
        assert_eq!(
            node_tags_opcode("node2.example.com", &["htools:standby:auto"]).line(),
            concat!(
                r#"{"OP_ID":"OP_TAGS_SET","kind":"node","tags":["htools:standby:auto"],"name":"node2.example.com"}"#,
                "\n"
            )
        );
        assert_eq!(
            node_offline_opcode("node2.example.com", true).line(),
            concat!(
                r#"{"OP_ID":"OP_NODE_SET_PARAMS","node_name":"node2.example.com","force":false,"offline":true,"auto_promote":false}"#,
                "\n"
            )
        );
        assert_eq!(
            oob_power_opcode(&["node2.example.com", "node4.example.com"], false).line(),
            concat!(
                r#"{"OP_ID":"OP_OOB_COMMAND","node_names":["node2.example.com","node4.example.com"],"command":"power-off","timeout":60,"ignore_status":false,"power_delay":2}"#,
                "\n"
            )
        );
    }

    #[test]
    fn moves_of_drbd_instances_in_imovetojob_order() {
        let ops = move_opcodes("i", false, MoveText::ReplacePrimary("n2"));
        let ids: Vec<&str> = ops
            .iter()
            .map(|o| {
                if o.line().contains("OP_INSTANCE_MIGRATE") {
                    "m"
                } else {
                    "r"
                }
            })
            .collect();
        assert_eq!(ids, ["m", "r", "m"]);
        assert!(ops[1].line().ends_with("\"remote_node\":\"n2\"}\n"));
        let forced = move_opcodes("i", true, MoveText::Failover);
        assert!(forced[0]
            .line()
            .starts_with(r#"{"OP_ID":"OP_INSTANCE_FAILOVER""#));
    }
}
