//! Ganeti's own checks of an allocator's answer, as Ganeti 3.0.2's
//! master applies them before it acts on one (what
//! `../shared/tools/ganeti_validate.py` runs with Ganeti's real code, here
//! for the report, where no Ganeti is needed):
//!
//! * `IAllocator._ValidateResult` (`lib/masterd/iallocator.py`): the
//!   answer is a JSON object (an old `nodes` key stands for `result`)
//!   with `success`, `info` and `result`;
//! * with a true `success`, the request type's `REQ_RESULT` shape and
//!   `ValidateResult`: allocate a list of `required_nodes` nodes;
//!   allocate-secondary a string; multi-allocate `[[[name, [node...]]...],
//!   [name...]]`; relocate a list whose nodes stay in the instance's
//!   groups; node-evacuate and change-group `[moved, failed, jobs]`, each
//!   job a list of opcodes whose `OP_ID` is a failover, a migration or a
//!   disk replacement;
//! * what the calling logical unit does with it: node names resolved
//!   (`ExpandNodeUuidAndName`: the full name, or a unique short name
//!   before a dot; `GetNodeInfoByName`: the full name), multi-allocate's
//!   instances all answered once, node-evacuate's and change-group's
//!   opcodes' instances and nodes resolved.
//!
//! A well-formed answer saying `success: false`, or listing instances it
//! could not move, is accepted: Ganeti then fails the job with the
//! allocator's reason, as it should. A request whose instance or nodes
//! are not in it cannot be checked ([`Check::Unmappable`]).

use crate::read::json::{parse, Json};

/// Ganeti's verdict on an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// Ganeti acts on it (with what it does, in words).
    Accepted(String),
    /// Ganeti refuses it, with its error.
    Rejected(String),
    /// The request itself cannot be checked against.
    Unmappable(String),
}

impl Check {
    /// In words, for the report.
    pub fn describe(&self) -> String {
        match self {
            Check::Accepted(w) => format!("accepted ({w})"),
            Check::Rejected(w) => format!("rejected: {w}"),
            Check::Unmappable(w) => format!("cannot be checked: {w}"),
        }
    }

    /// `accepted`, `rejected` or `unmappable`.
    pub fn word(&self) -> &'static str {
        match self {
            Check::Accepted(_) => "accepted",
            Check::Rejected(_) => "rejected",
            Check::Unmappable(_) => "unmappable",
        }
    }
}

/// The last member named `key` (Python's dictionaries keep the last of
/// duplicate keys).
fn get<'a, 'j>(v: &'a Json<'j>, key: &str) -> Option<&'a Json<'j>> {
    match v {
        Json::Object(m) => m.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
        _ => None,
    }
}

/// Python's truth of a value.
fn truthy(v: &Json) -> bool {
    match v {
        Json::Null => false,
        Json::Bool(b) => *b,
        Json::Number(n) => n.as_f64() != 0.0,
        Json::String(s) => !s.is_empty(),
        Json::Array(a) => !a.is_empty(),
        Json::Object(o) => !o.is_empty(),
    }
}

fn string<'a>(v: &'a Json) -> Option<&'a str> {
    match v {
        Json::String(s) => Some(s),
        _ => None,
    }
}

fn nonempty_string<'a>(v: &'a Json) -> Option<&'a str> {
    string(v).filter(|s| !s.is_empty())
}

fn list<'a, 'j>(v: &'a Json<'j>) -> Option<&'a [Json<'j>]> {
    match v {
        Json::Array(a) => Some(a),
        _ => None,
    }
}

/// The cluster as the request describes it.
struct Cluster<'a, 'j> {
    /// Node names and their group's UUID.
    nodes: Vec<(&'a str, Option<&'a str>)>,
    /// Group UUIDs and names.
    groups: Vec<(&'a str, Option<&'a str>)>,
    /// Instance names and their nodes.
    instances: Vec<(&'a str, &'a Json<'j>)>,
}

impl<'a, 'j> Cluster<'a, 'j> {
    fn of(doc: &'a Json<'j>) -> Cluster<'a, 'j> {
        let members = |key: &str| match get(doc, key) {
            Some(Json::Object(m)) => m.iter().map(|(k, v)| (k.as_ref(), v)).collect(),
            _ => Vec::new(),
        };
        let nodes: Vec<(&str, &Json)> = members("nodes");
        let groups: Vec<(&str, &Json)> = members("nodegroups");
        Cluster {
            nodes: nodes
                .into_iter()
                .map(|(n, v)| (n, get(v, "group").and_then(string)))
                .collect(),
            groups: groups
                .into_iter()
                .map(|(u, v)| (u, get(v, "name").and_then(string)))
                .collect(),
            instances: members("instances"),
        }
    }

    /// `GetNodeInfoByName`: the node of exactly this name.
    fn exact(&self, name: &str) -> bool {
        self.nodes.iter().any(|(n, _)| *n == name)
    }

    /// `ExpandNodeUuidAndName` (`utils.MatchNameComponent`): the full
    /// name, or the one node whose name is `name` followed by a dot.
    fn expand(&self, name: &str) -> bool {
        self.exact(name)
            || self
                .nodes
                .iter()
                .filter(|(n, _)| n.strip_prefix(name).is_some_and(|r| r.starts_with('.')))
                .count()
                == 1
    }

    fn instance(&self, name: &str) -> Option<&'a Json<'j>> {
        self.instances
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    }

    /// `_NodesToGroups`: the sorted names of the groups of `nodes`
    /// (unknown nodes skipped, a group without a name by its UUID).
    fn groups_of(&self, nodes: &[&str]) -> Vec<String> {
        let mut out: Vec<String> = nodes
            .iter()
            .filter_map(|n| self.nodes.iter().rev().find(|(m, _)| m == n))
            .filter_map(|(_, g)| *g)
            .map(|g| {
                self.groups
                    .iter()
                    .rev()
                    .find(|(u, _)| *u == g)
                    .and_then(|(_, name)| *name)
                    .unwrap_or(g)
                    .to_owned()
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

/// Checks `answer` to `request` as Ganeti would.
pub fn check(request: &[u8], answer: &[u8]) -> Check {
    let Ok(doc) = parse(request) else {
        return Check::Unmappable("the request is not JSON".to_owned());
    };
    let Some(req) = get(&doc, "request") else {
        return Check::Unmappable("the request has no 'request'".to_owned());
    };
    let Some(kind) = get(req, "type").and_then(string) else {
        return Check::Unmappable("the request has no type".to_owned());
    };
    let cluster = Cluster::of(&doc);
    let answer = match parse(answer) {
        Ok(a) => a,
        Err(e) => return Check::Rejected(format!("Can't parse iallocator results: {e}")),
    };
    let Json::Object(_) = answer else {
        return Check::Rejected("Can't parse iallocator results: not a dict".to_owned());
    };
    let result_key = if get(&answer, "result").is_none() && get(&answer, "nodes").is_some() {
        "nodes"
    } else {
        "result"
    };
    for key in ["success", "info", result_key] {
        if get(&answer, key).is_none() {
            let key = if key == "nodes" { "result" } else { key };
            return Check::Rejected(format!(
                "Can't parse iallocator results: missing key '{key}'"
            ));
        }
    }
    let (Some(success), Some(result)) = (get(&answer, "success"), get(&answer, result_key)) else {
        return Check::Rejected("Can't parse iallocator results".to_owned());
    };
    if !truthy(success) {
        return Check::Accepted(
            "success=false: Ganeti fails the job with the allocator's reason".to_owned(),
        );
    }
    let checked = match kind {
        "allocate" => allocate(req, result, &cluster),
        "allocate-secondary" => allocate_secondary(result, &cluster),
        "multi-allocate" => multi_allocate(req, result, &cluster),
        "relocate" => relocate(req, result, &cluster),
        "node-evacuate" | "change-group" => evacuate(result, &cluster),
        other => return Check::Unmappable(format!("unknown request type '{other}'")),
    };
    match checked {
        Ok(what) => Check::Accepted(what),
        Err(Refusal::Answer(why)) => Check::Rejected(why),
        Err(Refusal::Request(why)) => Check::Unmappable(why),
    }
}

/// Why an answer cannot be checked or is refused.
enum Refusal {
    Answer(String),
    Request(String),
}

fn refuse<T>(why: String) -> Result<T, Refusal> {
    Err(Refusal::Answer(why))
}

fn invalid<T>(result: &Json) -> Result<T, Refusal> {
    refuse(format!(
        "iallocator returned invalid result, got {}",
        result.describe()
    ))
}

fn not_known<T>(node: &Json) -> Result<T, Refusal> {
    refuse(format!(
        "Node '{}' not known",
        string(node).map_or_else(|| node.describe(), str::to_owned)
    ))
}

fn allocate(req: &Json, result: &Json, cluster: &Cluster) -> Result<String, Refusal> {
    let Some(nodes) = list(result) else {
        return invalid(result);
    };
    let required = get(req, "required_nodes")
        .and_then(|n| match n {
            Json::Number(n) => n.as_int(),
            _ => None,
        })
        .unwrap_or_else(|| {
            let drbd = get(req, "disk_template").and_then(string) == Some("drbd");
            if drbd {
                2
            } else {
                1
            }
        });
    if i64::try_from(nodes.len()).ok() != Some(required) {
        return refuse(format!(
            "iallocator returned invalid number of nodes ({}), required {required}",
            nodes.len()
        ));
    }
    for n in nodes.iter().take(2) {
        if !string(n).is_some_and(|n| cluster.expand(n)) {
            return not_known(n);
        }
    }
    Ok(format!(
        "on {}",
        nodes
            .iter()
            .take(2)
            .filter_map(string)
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

fn allocate_secondary(result: &Json, cluster: &Cluster) -> Result<String, Refusal> {
    let Some(node) = string(result) else {
        return invalid(result);
    };
    if !cluster.exact(node) {
        return not_known(result);
    }
    Ok(format!("new secondary {node}"))
}

fn multi_allocate(req: &Json, result: &Json, cluster: &Cluster) -> Result<String, Refusal> {
    let shape = list(result).filter(|r| r.len() == 2).and_then(|r| {
        let placed: Option<Vec<(&str, Vec<&Json>)>> = list(&r[0])?
            .iter()
            .map(|p| {
                let p = list(p).filter(|p| p.len() == 2)?;
                let nodes = list(&p[1])?;
                nodes
                    .iter()
                    .all(|n| nonempty_string(n).is_some())
                    .then_some(())?;
                Some((nonempty_string(&p[0])?, nodes.iter().collect()))
            })
            .collect();
        let failed: Option<Vec<&str>> = list(&r[1])?.iter().map(nonempty_string).collect();
        Some((placed?, failed?))
    });
    let Some((placed, failed)) = shape else {
        return invalid(result);
    };
    let mut asked: Vec<&str> = get(req, "instances")
        .and_then(list)
        .map(|l| {
            l.iter()
                .filter_map(|i| get(i, "name").and_then(string))
                .collect()
        })
        .unwrap_or_default();
    for (name, nodes) in &placed {
        let Some(at) = asked.iter().position(|a| a == name) else {
            return refuse(format!(
                "KeyError: '{name}' was not asked for, or answered twice"
            ));
        };
        asked.remove(at);
        let Some(first) = nodes.first() else {
            return refuse(format!("IndexError: no node for '{name}'"));
        };
        for n in std::iter::once(first).chain(nodes.get(1)) {
            if !string(n).is_some_and(|n| cluster.expand(n)) {
                return not_known(n);
            }
        }
    }
    let missing: Vec<&str> = asked.into_iter().filter(|a| !failed.contains(a)).collect();
    if !missing.is_empty() {
        return refuse(format!(
            "Iallocator did return incomplete result: {}",
            missing.join(", ")
        ));
    }
    Ok(format!("{} placed, {} failed", placed.len(), failed.len()))
}

fn relocate(req: &Json, result: &Json, cluster: &Cluster) -> Result<String, Refusal> {
    let Some(name) = get(req, "name").and_then(string) else {
        return Err(Refusal::Request(
            "the relocate request has no name".to_owned(),
        ));
    };
    let Some(instance) = cluster.instance(name) else {
        return Err(Refusal::Request(format!(
            "instance '{name}' not in the request's instances"
        )));
    };
    let from: Vec<&str> = get(req, "relocate_from")
        .and_then(list)
        .map(|l| l.iter().filter_map(string).collect())
        .unwrap_or_default();
    let primary = get(instance, "nodes")
        .and_then(list)
        .and_then(|n| n.first())
        .and_then(string);
    let Some(nodes) = list(result) else {
        return invalid(result);
    };
    fn with<'n>(v: &[&'n str], primary: Option<&'n str>) -> Vec<&'n str> {
        let mut v = v.to_vec();
        v.extend(primary);
        v
    }
    let answered: Vec<&str> = nodes.iter().filter_map(string).collect();
    let asked_groups = cluster.groups_of(&with(&from, primary));
    let result_groups = cluster.groups_of(&with(&answered, primary));
    if !result_groups.iter().all(|g| asked_groups.contains(g)) {
        return refuse(format!(
            "Groups of nodes returned by iallocator ({}) differ from original groups ({})",
            result_groups.join(", "),
            asked_groups.join(", ")
        ));
    }
    let Some(first) = nodes.first() else {
        return refuse("IndexError: the answer names no node".to_owned());
    };
    if !string(first).is_some_and(|n| cluster.exact(n)) {
        return not_known(first);
    }
    Ok(format!("to {}", string(first).unwrap_or("")))
}

/// The opcodes a node evacuation or group change may return.
const EVACUATION_OPS: [&str; 3] = [
    "OP_INSTANCE_FAILOVER",
    "OP_INSTANCE_MIGRATE",
    "OP_INSTANCE_REPLACE_DISKS",
];

fn evacuate(result: &Json, cluster: &Cluster) -> Result<String, Refusal> {
    let Some([moved, failed, jobs]) = list(result).and_then(|r| <&[Json; 3]>::try_from(r).ok())
    else {
        return invalid(result);
    };
    let moved_ok = list(moved).is_some_and(|m| {
        m.iter().all(|x| {
            list(x).is_some_and(|x| {
                x.len() == 3
                    && nonempty_string(&x[0]).is_some()
                    && nonempty_string(&x[1]).is_some()
                    && list(&x[2]).is_some_and(|n| n.iter().all(|n| nonempty_string(n).is_some()))
            })
        })
    });
    let failed_ok = list(failed).is_some_and(|f| {
        f.iter().all(|x| {
            list(x).is_some_and(|x| {
                x.len() == 2
                    && nonempty_string(&x[0]).is_some()
                    && matches!(&x[1], Json::Null | Json::String(_))
            })
        })
    });
    let jobs_ok = list(jobs).is_some_and(|j| {
        j.iter().all(|job| {
            list(job).is_some_and(|ops| {
                ops.iter().all(|op| {
                    get(op, "OP_ID")
                        .and_then(string)
                        .is_some_and(|id| EVACUATION_OPS.contains(&id))
                })
            })
        })
    });
    if !(moved_ok && failed_ok && jobs_ok) {
        return invalid(result);
    }
    let failed = list(failed).unwrap_or_default();
    if !failed.is_empty() {
        return Ok(format!(
            "{} instance(s) could not be moved: Ganeti fails the job",
            failed.len()
        ));
    }
    let jobs = list(jobs).unwrap_or_default();
    for (j, job) in jobs.iter().enumerate() {
        for (o, op) in list(job).unwrap_or_default().iter().enumerate() {
            let Some(inst) = get(op, "instance_name").and_then(nonempty_string) else {
                return refuse(format!("job {j} op {o}: no instance_name"));
            };
            if cluster.instance(inst).is_none() {
                return refuse(format!("job {j} op {o}: Instance '{inst}' not known"));
            }
            for key in ["target_node", "remote_node"] {
                match get(op, key) {
                    None | Some(Json::Null) => {}
                    Some(n) if string(n).is_some_and(|n| cluster.expand(n)) => {}
                    Some(n) => {
                        return refuse(format!(
                            "job {j} op {o}: Node '{}' not known",
                            string(n).map_or_else(|| n.describe(), str::to_owned)
                        ))
                    }
                }
            }
        }
    }
    Ok(format!("{} job(s)", jobs.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const REQ: &str = r#"{"nodegroups":{"g1":{"name":"default"},"g2":{"name":"other"}},
      "nodes":{"node1.example.com":{"group":"g1"},"node2.example.com":{"group":"g1"},"node3.example.com":{"group":"g2"}},
      "instances":{"i1":{"nodes":["node1.example.com"]}},
      "request":{"type":"TYPE","name":"NAME","required_nodes":1,"relocate_from":["node1.example.com"],
        "instances":[{"name":"a"},{"name":"b"}]}}"#;

    fn req(kind: &str, name: &str) -> Vec<u8> {
        REQ.replace("TYPE", kind).replace("NAME", name).into_bytes()
    }

    fn verdict(kind: &str, name: &str, answer: &str) -> Check {
        check(&req(kind, name), answer.as_bytes())
    }

    #[test]
    fn envelope() {
        let r = |a: &str| verdict("allocate", "new", a);
        assert!(
            matches!(r("nonsense"), Check::Rejected(w) if w.starts_with("Can't parse iallocator results: "))
        );
        assert_eq!(
            r("[1]"),
            Check::Rejected("Can't parse iallocator results: not a dict".into())
        );
        assert_eq!(
            r(r#"{"success":true,"result":[]}"#),
            Check::Rejected("Can't parse iallocator results: missing key 'info'".into())
        );
        assert!(matches!(
            r(r#"{"success":false,"info":"no","result":[]}"#),
            Check::Accepted(_)
        ));
        assert!(matches!(
            r(r#"{"success":true,"info":"","nodes":["node2.example.com"]}"#),
            Check::Accepted(_)
        ));
    }

    #[test]
    fn allocations() {
        let r = |a: &str| verdict("allocate", "new", a);
        assert!(
            matches!(
                r(r#"{"success":true,"info":"","result":["node2"]}"#),
                Check::Accepted(_)
            ),
            "a short name"
        );
        assert_eq!(
            r(r#"{"success":true,"info":"","result":["node9"]}"#),
            Check::Rejected("Node 'node9' not known".into())
        );
        assert_eq!(
            r(r#"{"success":true,"info":"","result":["node1","node2"]}"#),
            Check::Rejected("iallocator returned invalid number of nodes (2), required 1".into())
        );
        let m = |a: &str| verdict("multi-allocate", "", a);
        assert!(matches!(
            m(r#"{"success":true,"info":"","result":[[["a",["node1.example.com"]]],["b"]]}"#),
            Check::Accepted(_)
        ));
        assert!(
            matches!(m(r#"{"success":true,"info":"","result":[[["a",["node1.example.com"]]],[]]}"#), Check::Rejected(w) if w.contains("incomplete result: b"))
        );
        assert!(matches!(
            m(r#"{"success":true,"info":"","result":[[["a",[]]],["b"]]}"#),
            Check::Rejected(_)
        ));
        assert!(
            matches!(m(r#"{"success":true,"info":"","result":[[["a","node1"]],["b"]]}"#), Check::Rejected(w) if w.starts_with("iallocator returned invalid result"))
        );
    }

    #[test]
    fn relocations_and_evacuations() {
        let r = |a: &str| verdict("relocate", "i1", a);
        assert!(matches!(
            r(r#"{"success":true,"info":"","result":["node2.example.com"]}"#),
            Check::Accepted(_)
        ));
        assert!(
            matches!(r(r#"{"success":true,"info":"","result":["node3.example.com"]}"#), Check::Rejected(w) if w.starts_with("Groups of nodes returned by iallocator (default, other)"))
        );
        assert!(
            matches!(
                r(r#"{"success":true,"info":"","result":["node2"]}"#),
                Check::Rejected(_)
            ),
            "the full name only"
        );
        assert!(matches!(
            verdict("relocate", "nobody", "{}"),
            Check::Unmappable(_) | Check::Rejected(_)
        ));
        let e = |a: &str| verdict("node-evacuate", "", a);
        let job = r#"{"success":true,"info":"","result":[[["i1","g1",["node2.example.com"]]],[],[[{"OP_ID":"OP_INSTANCE_MIGRATE","instance_name":"i1","target_node":"node2.example.com"}]]]}"#;
        assert_eq!(e(job), Check::Accepted("1 job(s)".into()));
        assert!(
            matches!(e(&job.replace("node2.example.com\"}", "node7\"}")), Check::Rejected(w) if w.ends_with("Node 'node7' not known"))
        );
        assert!(matches!(
            e(&job.replace("OP_INSTANCE_MIGRATE", "OP_INSTANCE_REMOVE")),
            Check::Rejected(_)
        ));
        assert!(
            matches!(e(r#"{"success":true,"info":"","result":[[],[["i1","no room"]],[]]}"#), Check::Accepted(w) if w.contains("could not be moved"))
        );
    }
}
