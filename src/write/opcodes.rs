//! Ganeti opcodes as JSON, in the field order Ganeti 3.0.2's Haskell
//! serialiser writes them: the jobs of a node evacuation or group change
//! in hail's answers (`Cluster.iMoveToJob`), and the jobs the planners
//! submit with `-X` (hbal's moves; hsqueeze's tags, offline flags and
//! out-of-band power commands), wrapped with their `priority`, `depends`,
//! `comment` and `reason` fields (a `MetaOpCode`).

use crate::write::answer::string;
use crate::write::balance::MoveText;

/// The opcodes of one move of instance `inst` (`iMoveToJob`), with the
/// nodes it goes to by full name. A forthcoming instance fails over
/// instead of migrating.
pub fn move_opcodes(inst: &str, forthcoming: bool, mv: MoveText<'_>) -> Vec<String> {
    let failover = |target: Option<&str>| -> String {
        let name = string(inst);
        let target = target.map(|t| format!(",\"target_node\":{}", string(t)));
        if forthcoming {
            format!(
                "{{\"OP_ID\":\"OP_INSTANCE_FAILOVER\",\"instance_name\":{name},\"shutdown_timeout\":120,\"ignore_consistency\":false{},\"ignore_ipolicy\":false,\"cleanup\":false}}",
                target.unwrap_or_default()
            )
        } else {
            format!(
                "{{\"OP_ID\":\"OP_INSTANCE_MIGRATE\",\"instance_name\":{name}{},\"allow_runtime_changes\":false,\"ignore_ipolicy\":false,\"cleanup\":false,\"allow_failover\":true,\"ignore_hvversions\":true}}",
                target.unwrap_or_default()
            )
        }
    };
    let replace = |t: &str| -> String {
        format!(
            "{{\"OP_ID\":\"OP_INSTANCE_REPLACE_DISKS\",\"instance_name\":{},\"early_release\":false,\"ignore_ipolicy\":false,\"mode\":\"replace_new_secondary\",\"disks\":[],\"remote_node\":{}}}",
            string(inst),
            string(t)
        )
    };
    match mv {
        MoveText::Failover => vec![failover(None)],
        MoveText::FailoverToAny(t) => vec![failover(Some(t))],
        MoveText::ReplaceSecondary(t) => vec![replace(t)],
        MoveText::ReplacePrimary(t) => vec![failover(None), replace(t), failover(None)],
        MoveText::ReplaceAndFailover(t) => vec![replace(t), failover(None)],
        MoveText::FailoverAndReplace(t) => vec![failover(None), replace(t)],
    }
}

/// `OP_TAGS_SET` of a node (`Node.genAddTagsOpCode`).
pub fn node_tags_opcode(node: &str, tags: &[&str]) -> String {
    let tags: Vec<String> = tags.iter().map(|t| string(t)).collect();
    format!(
        "{{\"OP_ID\":\"OP_TAGS_SET\",\"kind\":\"node\",\"tags\":[{}],\"name\":{}}}",
        tags.join(","),
        string(node)
    )
}

/// `OP_NODE_SET_PARAMS` setting or clearing a node's offline flag
/// (`genOpSetOffline`).
pub fn node_offline_opcode(node: &str, offline: bool) -> String {
    format!(
        "{{\"OP_ID\":\"OP_NODE_SET_PARAMS\",\"node_name\":{},\"force\":false,\"offline\":{offline},\"auto_promote\":false}}",
        string(node)
    )
}

/// `OP_OOB_COMMAND` powering nodes on or off (`genOobCommand`).
pub fn oob_power_opcode(nodes: &[&str], on: bool) -> String {
    let names: Vec<String> = nodes.iter().map(|n| string(n)).collect();
    let command = if on { "power-on" } else { "power-off" };
    format!(
        "{{\"OP_ID\":\"OP_OOB_COMMAND\",\"node_names\":[{}],\"command\":\"{command}\",\"timeout\":60,\"ignore_status\":false,\"power_delay\":2}}",
        names.join(",")
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

/// An opcode (`{"OP_ID":...}` as [`move_opcodes`] and the others write
/// it) wrapped as Ganeti's MetaOpCode: the annotation's fields first.
///
/// # Panics
///
/// Never for the opcodes of this module (each starts with `{`).
pub fn meta_opcode(opcode: &str, a: &Annotation) -> String {
    let body = opcode.strip_prefix('{').unwrap_or(opcode);
    format!(
        "{{\"priority\":{},\"depends\":null,\"comment\":{},\"reason\":[[{},{},{}]],{body}",
        a.priority,
        string(&a.comment),
        string(&a.reason.0),
        string(&a.reason.1),
        a.reason.2
    )
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
            meta_opcode(&ops[0], &a),
            r#"{"priority":0,"depends":null,"comment":"rebalancing via hbal (ganeti) version 3.0.2-3","reason":[["hbal","hbal (ganeti) version 3.0.2-3 called",1795568266697805000]],"OP_ID":"OP_INSTANCE_MIGRATE","instance_name":"inst36.example.com","target_node":"node3.example.com","allow_runtime_changes":false,"ignore_ipolicy":false,"cleanup":false,"allow_failover":true,"ignore_hvversions":true}"#
        );
    }

    /// hsqueeze 3.0.2 -X's tag, offline and power-off opcodes (captured).
    #[test]
    fn squeeze_opcodes_as_hsqueeze_submits_them() {
        assert_eq!(
            node_tags_opcode("node2.example.com", &["htools:standby:auto"]),
            r#"{"OP_ID":"OP_TAGS_SET","kind":"node","tags":["htools:standby:auto"],"name":"node2.example.com"}"#
        );
        assert_eq!(
            node_offline_opcode("node2.example.com", true),
            r#"{"OP_ID":"OP_NODE_SET_PARAMS","node_name":"node2.example.com","force":false,"offline":true,"auto_promote":false}"#
        );
        assert_eq!(
            oob_power_opcode(&["node2.example.com", "node4.example.com"], false),
            r#"{"OP_ID":"OP_OOB_COMMAND","node_names":["node2.example.com","node4.example.com"],"command":"power-off","timeout":60,"ignore_status":false,"power_delay":2}"#
        );
    }

    #[test]
    fn moves_of_drbd_instances_in_imovetojob_order() {
        let ops = move_opcodes("i", false, MoveText::ReplacePrimary("n2"));
        let ids: Vec<&str> = ops
            .iter()
            .map(|o| {
                if o.contains("OP_INSTANCE_MIGRATE") {
                    "m"
                } else {
                    "r"
                }
            })
            .collect();
        assert_eq!(ids, ["m", "r", "m"]);
        assert!(ops[1].ends_with(r#""remote_node":"n2"}"#));
        let forced = move_opcodes("i", true, MoveText::Failover);
        assert!(forced[0].starts_with(r#"{"OP_ID":"OP_INSTANCE_FAILOVER""#));
    }
}
