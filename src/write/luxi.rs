//! The Luxi requests hailstone's programs send (`Ganeti/Luxi.hs`): the
//! message `{"method": M, "args": [...]}` and the arguments of hbal's four
//! queries, `SubmitManyJobs` and `QueryJobs`. The framing (the byte 0x03)
//! and the socket are `shell::luxi`'s; the replies are read by
//! `read::live::luxi`.

use crate::write::json::{s, strs, Json};

/// A request message (without its 0x03 terminator).
pub fn request(method: &str, args: &Json) -> String {
    let mut text = String::from(r#"{"method":"#);
    s(method).write(&mut text);
    text.push_str(r#","args":"#);
    args.write(&mut text);
    text.push('}');
    text
}

/// The arguments of a `Query` of `what`'s `fields`, with no filter.
fn query(what: &str, fields: &[&str]) -> Json {
    Json::Arr(vec![s(what), strs(fields), Json::Null])
}

/// The fields of hbal's three queries, in its order.
pub struct QueryFields<'a> {
    pub node: &'a [&'a str],
    pub instance: &'a [&'a str],
    pub group: &'a [&'a str],
}

/// hbal 3.0.2's four Luxi requests, in the order it sends them: the
/// query's name (for messages), the method and the arguments, exactly as
/// hbal writes them.
pub fn cluster_queries(fields: &QueryFields<'_>) -> [(&'static str, &'static str, Json); 4] {
    let [node, instance, info, group] = CLUSTER_QUERIES;
    [
        (node, "Query", query("node", fields.node)),
        (instance, "Query", query("instance", fields.instance)),
        (info, "QueryClusterInfo", Json::Arr(Vec::new())),
        (group, "Query", query("group", fields.group)),
    ]
}

/// The names of [`cluster_queries`], in their order (the messages name
/// the query).
pub const CLUSTER_QUERIES: [&str; 4] = ["node", "instance", "cluster info", "group"];

/// The arguments of a `Query` of every node's name and boot id (how
/// `hailstone-roll -X` sees a rebooted node answer again).
pub fn node_boot_ids() -> Json {
    query("node", &["name", "bootid"])
}

/// `SubmitManyJobs`' arguments: the jobs, each a list of opcodes.
pub fn submit_many_jobs(jobs: &[Vec<Json>]) -> Json {
    Json::Arr(vec![Json::Arr(
        jobs.iter().map(|ops| Json::Arr(ops.clone())).collect(),
    )])
}

/// `QueryJobs`' arguments for the status of the jobs `ids`.
pub fn query_job_status(ids: &[i64]) -> Json {
    Json::Arr(vec![
        Json::Arr(ids.iter().map(|&id| Json::Int(id)).collect()),
        strs(&["status"]),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The requests as hbal 3.0.2 sends them (captured from the lab
    /// cluster's Luxi socket).
    #[test]
    fn requests_as_hbal_sends_them() {
        let [node, instance, info, group] = cluster_queries(&QueryFields {
            node: &[
                "name",
                "mtotal",
                "mnode",
                "mfree",
                "dtotal",
                "dfree",
                "ctotal",
                "cnos",
                "offline",
                "drained",
                "vm_capable",
                "ndp/spindle_count",
                "group.uuid",
                "tags",
                "ndp/exclusive_storage",
                "sptotal",
                "spfree",
                "ndp/cpu_speed",
            ],
            instance: &[
                "name",
                "disk_usage",
                "be/memory",
                "be/vcpus",
                "status",
                "pnode",
                "snodes",
                "tags",
                "be/auto_balance",
                "disk_template",
                "be/spindle_use",
                "disk.sizes",
                "disk.spindles",
                "forthcoming",
            ],
            group: &["uuid", "name", "alloc_policy", "ipolicy", "tags"],
        });
        assert_eq!(
            request(node.1, &node.2),
            r#"{"method":"Query","args":["node",["name","mtotal","mnode","mfree","dtotal","dfree","ctotal","cnos","offline","drained","vm_capable","ndp/spindle_count","group.uuid","tags","ndp/exclusive_storage","sptotal","spfree","ndp/cpu_speed"],null]}"#
        );
        assert_eq!(
            request(instance.1, &instance.2),
            r#"{"method":"Query","args":["instance",["name","disk_usage","be/memory","be/vcpus","status","pnode","snodes","tags","be/auto_balance","disk_template","be/spindle_use","disk.sizes","disk.spindles","forthcoming"],null]}"#
        );
        assert_eq!(
            request(info.1, &info.2),
            r#"{"method":"QueryClusterInfo","args":[]}"#
        );
        assert_eq!(
            request(group.1, &group.2),
            r#"{"method":"Query","args":["group",["uuid","name","alloc_policy","ipolicy","tags"],null]}"#
        );
        assert_eq!(
            request("QueryJobs", &query_job_status(&[4, 5])),
            r#"{"method":"QueryJobs","args":[[4,5],["status"]]}"#
        );
        let job = vec![Json::Obj(vec![("OP_ID", s("OP_TEST_DELAY"))])];
        assert_eq!(
            request("SubmitManyJobs", &submit_many_jobs(&[job])),
            r#"{"method":"SubmitManyJobs","args":[[[{"OP_ID":"OP_TEST_DELAY"}]]]}"#
        );
    }
}
