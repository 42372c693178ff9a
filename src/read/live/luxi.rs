//! Luxi, Ganeti's local query protocol, as the htools' Luxi backend reads
//! a cluster (`Backend/Luxi.hs`, `Ganeti/Luxi.hs`): the reply envelope and
//! the four queries' results.
//!
//! A message is one JSON object followed by the byte 0x03 (the framing is
//! the client's, `shell::luxi`; the requests are `write::luxi`'s). A request is `{"method": M, "args":
//! [...]}`; a reply is `{"success": bool, "result": ...}`, whose result on
//! failure is Ganeti's error: `[error class, [arguments]]` ([`envelope`]).
//!
//! hbal asks four things, in this order (`write::luxi::cluster_queries`): `Query` of the nodes,
//! of the instances, `QueryClusterInfo`, `Query` of the node groups. A
//! `Query` result is `{"fields": [...], "data": [row, ...]}`; a row has one
//! `[status, value]` pair per requested field, in the request's order.
//! The status is Ganeti's `ResultStatus`: 0 normal, 1 unknown field, 2 no
//! data, 3 unavailable, 4 offline; any other is an error for the field
//! (`checkRS`). hbal reads the results in another order ([`read`]): groups,
//! nodes (each resolving its group by UUID), instances (each resolving its
//! nodes by name), cluster info (then the master by name), so that is the
//! order in which errors are found.
//!
//! Node fields of a node that is offline or not `vm_capable` (not "live")
//! take defaults instead of their value, whatever their status
//! (`eitherLive`): memory, CPUs and, with exclusive storage, spindles.
//! Disk sizes and free spindles fall back to 0 on any error (a cluster
//! with only shared-file storage reports none).

use crate::model::instance::Disk;
use crate::model::node::Resources;
use crate::model::types::{AllocPolicy, DiskTemplate, RunState};
use crate::read::iallocator::{
    as_array, as_object, bool_value, enum_value, f64_value, int_value, read_ipolicy, str_list,
    str_value, Hypervisor, InputError, Path,
};
use crate::read::json::{Document, Value};
use crate::read::live::{field_error, secondary, Assembly, ClusterInfo, Live, LiveError};
use crate::read::merge::{node_info, InstanceRecord};

/// Why a reply carries no result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    /// Not `{"success": bool, "result": ...}`.
    #[error("malformed reply: {0}")]
    Malformed(String),
    /// `success` is false: Ganeti's error, in words.
    #[error("the master refused the query: {0}")]
    Failed(String),
}

/// The result of a parsed reply (`validateResult`).
///
/// # Errors
///
/// The reply's shape, or Ganeti's error when `success` is false.
pub fn envelope<'d>(doc: &'d Document<'_>) -> Result<Value<'d>, EnvelopeError> {
    let root = doc.root();
    let Some(obj) = root.as_object() else {
        return Err(EnvelopeError::Malformed(format!(
            "expected an object {{\"success\": ..., \"result\": ...}}, found {}",
            root.describe()
        )));
    };
    let success = match obj.get("success") {
        Some(v) => v.as_bool().ok_or_else(|| {
            EnvelopeError::Malformed(format!(
                "\"success\": expected true or false, found {}",
                v.describe()
            ))
        })?,
        None => return Err(EnvelopeError::Malformed("no \"success\" member".to_owned())),
    };
    let result = obj
        .get("result")
        .ok_or_else(|| EnvelopeError::Malformed("no \"result\" member".to_owned()))?;
    if success {
        Ok(result)
    } else {
        Err(EnvelopeError::Failed(ganeti_error(result)))
    }
}

/// Ganeti's encoded error (`[class, [arguments]]`) in words:
/// `OpPrereqError: text, wrong_input`; any other value described.
fn ganeti_error(v: Value<'_>) -> String {
    let items: Vec<Value<'_>> = v.as_array().map(|a| a.iter().collect()).unwrap_or_default();
    if let [class, args] = items.as_slice() {
        if let Some(class) = class.as_str() {
            let args: Vec<String> = match args.as_array() {
                Some(a) => a
                    .iter()
                    .map(|x| x.as_str().map_or_else(|| x.describe(), str::to_owned))
                    .collect(),
                None => vec![args.as_str().map_or_else(|| args.describe(), str::to_owned)],
            };
            return format!("{class}: {}", args.join(", "));
        }
    }
    v.describe()
}

/// One field of a row: its status and value.
type Field<'d> = (Value<'d>, Value<'d>);

/// The rows of a `Query` result (`getData`, `parseQueryResult`), each
/// checked to have `width` fields.
fn rows<'d>(
    source: &str,
    result: Value<'d>,
    width: usize,
) -> Result<Vec<Vec<Field<'d>>>, LiveError> {
    let top = as_object(result, &Path::ROOT).map_err(|e| LiveError::new(source, e.message))?;
    let data = top.get("data").ok_or_else(|| {
        LiveError::new(
            source,
            "the result has no \"data\" member (the query's rows)",
        )
    })?;
    let data_path = Path::ROOT.field("data");
    let data = as_array(data, &data_path).map_err(|e| LiveError::new(source, e.to_string()))?;
    let mut out = Vec::with_capacity(data.len());
    for (i, row) in data.iter().enumerate() {
        let row_path = data_path.index(i);
        let row = as_array(row, &row_path).map_err(|e| LiveError::new(source, e.to_string()))?;
        if row.len() != width {
            return Err(LiveError::new(
                source,
                format!(
                    "{row_path}: expected {width} fields (one per field asked for), found {}",
                    row.len()
                ),
            ));
        }
        let mut fields = Vec::with_capacity(width);
        for (j, pair) in row.iter().enumerate() {
            let p = row_path.index(j);
            let items = as_array(pair, &p).map_err(|e| LiveError::new(source, e.to_string()))?;
            let mut it = items.iter();
            match (it.next(), it.next(), it.next()) {
                (Some(status), Some(value), None) => fields.push((status, value)),
                _ => {
                    return Err(LiveError::new(
                        source,
                        format!(
                            "{p}: expected a [status, value] pair, found an array of {}",
                            items.len()
                        ),
                    ))
                }
            }
        }
        out.push(fields);
    }
    Ok(out)
}

/// A field's value when its status is normal (`fromJValWithStatus`,
/// `checkRS`); the error's path is the field's name.
fn checked<'d>((status, value): Field<'d>, name: &str) -> Result<Value<'d>, InputError> {
    let path = Path::ROOT.field(name);
    let code = int_value(status, &path).map_err(|e| InputError {
        path: e.path,
        message: format!("bad status: {}", e.message),
    })?;
    let message = match code {
        0 => return Ok(value),
        1 => "Unknown field (status 1)".to_owned(),
        2 => "No data for a field (status 2)".to_owned(),
        3 => "Ganeti reports unavailable data (status 3)".to_owned(),
        4 => "Ganeti reports resource as offline (status 4)".to_owned(),
        other => format!("unknown status {other} (Ganeti's are 0 to 4)"),
    };
    Err(path.error(message))
}

/// Typed readings of a field (Text.JSON's `readJSON` for each type).
struct Row<'d, 'a> {
    fields: &'a [Field<'d>],
    names: &'static [&'static str],
}

impl<'d> Row<'d, '_> {
    fn value(&self, i: usize) -> Result<(Value<'d>, Path<'static>), InputError> {
        let name = self.names[i];
        let v = checked(self.fields[i], name)?;
        Ok((v, Path::ROOT.field(name)))
    }

    fn str(&self, i: usize) -> Result<&'d str, InputError> {
        let (v, p) = self.value(i)?;
        str_value(v, &p)
    }

    fn int(&self, i: usize) -> Result<i64, InputError> {
        let (v, p) = self.value(i)?;
        int_value(v, &p)
    }

    fn f64(&self, i: usize) -> Result<f64, InputError> {
        let (v, p) = self.value(i)?;
        f64_value(v, &p)
    }

    fn bool(&self, i: usize) -> Result<bool, InputError> {
        let (v, p) = self.value(i)?;
        bool_value(v, &p)
    }

    fn strs(&self, i: usize) -> Result<Vec<&'d str>, InputError> {
        let (v, p) = self.value(i)?;
        str_list(v, &p)
    }

    fn owned_strs(&self, i: usize) -> Result<Vec<String>, InputError> {
        Ok(self.strs(i)?.into_iter().map(str::to_owned).collect())
    }

    fn ints(&self, i: usize) -> Result<Vec<i64>, InputError> {
        let (v, p) = self.value(i)?;
        let items = as_array(v, &p)?;
        let mut out = Vec::with_capacity(items.len());
        for (k, x) in items.iter().enumerate() {
            out.push(int_value(x, &p.index(k))?);
        }
        Ok(out)
    }

    /// A list whose `null`s are absent values (`arrayMaybeFromJVal`).
    fn maybe_ints(&self, i: usize) -> Result<Vec<Option<i64>>, InputError> {
        let (v, p) = self.value(i)?;
        let items = as_array(v, &p)?;
        let mut out = Vec::with_capacity(items.len());
        for (k, x) in items.iter().enumerate() {
            out.push(if x.is_null() {
                None
            } else {
                Some(int_value(x, &p.index(k))?)
            });
        }
        Ok(out)
    }

    /// `eitherLive live def`: the field only when the node is live.
    fn live<T>(
        &self,
        live: bool,
        default: T,
        read: impl FnOnce() -> Result<T, InputError>,
    ) -> Result<T, InputError> {
        if live {
            read()
        } else {
            Ok(default)
        }
    }
}

/// The fields of hbal's node query, in its order (the requests are
/// `write::luxi`'s, which a program gives these lists).
pub const NODE_FIELDS: [&str; 18] = [
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
];

/// The fields of hbal's instance query, in its order.
pub const INSTANCE_FIELDS: [&str; 14] = [
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
];

/// The fields of hbal's node group query, in its order.
pub const GROUP_FIELDS: [&str; 5] = ["uuid", "name", "alloc_policy", "ipolicy", "tags"];

/// The source named in messages for query `name`.
fn source_of(name: &str) -> String {
    format!("Luxi query \"{name}\"")
}

/// A node's answer to `Query` of `name` and `bootid`: its name and its
/// boot id, `None` when the node daemon did not answer (any status but
/// normal). `hailstone-roll -X` asks it to see a rebooted node return.
///
/// # Errors
///
/// The result's shape: no rows, a row of another width, a name that is
/// not a string.
pub fn boot_ids(result: Value<'_>) -> Result<Vec<(String, Option<String>)>, LiveError> {
    let source = "node boot ids";
    let mut out = Vec::new();
    for row in rows(source, result, 2)? {
        let name = checked(row[0], "name")
            .and_then(|v| str_value(v, &Path::ROOT.field("name")))
            .map_err(|e| field_error(source, "a node", e))?;
        let boot = checked(row[1], "bootid")
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned));
        out.push((name.to_owned(), boot));
    }
    Ok(out)
}

/// Builds the cluster from the four results, given in [`CLUSTER_QUERIES`](crate::write::luxi::CLUSTER_QUERIES)' order
/// (nodes, instances, cluster info, groups), read in hbal's order
/// (`parseData`).
///
/// # Errors
///
/// The first problem, naming the query, the object and the field.
pub(crate) fn read(results: [Value<'_>; 4]) -> Result<Live, LiveError> {
    let [nodes, instances, info, groups] = results;
    let mut asm = Assembly::new();
    read_groups(&mut asm, groups)?;
    read_nodes(&mut asm, nodes)?;
    read_instances(&mut asm, instances)?;
    let info = read_info(info)?;
    asm.finish(info)
        .map_err(|m| LiveError::new(&source_of("cluster info"), format!("field master: {m}")))
}

/// The name of row `i`, first of its fields.
fn row_name<'d>(
    source: &str,
    row: &Row<'d, '_>,
    what: &str,
    i: usize,
    field: usize,
) -> Result<&'d str, LiveError> {
    row.str(field)
        .map_err(|e| field_error(source, &format!("{what} in row {i}"), e))
}

fn read_groups(asm: &mut Assembly, result: Value<'_>) -> Result<(), LiveError> {
    let source = source_of("group");
    for (i, fields) in rows(&source, result, GROUP_FIELDS.len())?
        .iter()
        .enumerate()
    {
        let row = Row {
            fields,
            names: &GROUP_FIELDS,
        };
        let name = row_name(&source, &row, "node group", i, 1)?;
        let object = format!("node group '{name}'");
        let err = |e| field_error(&source, &object, e);
        let uuid = row.str(0).map_err(err)?;
        let alloc_policy = row
            .value(2)
            .and_then(|(v, p)| enum_value(v, &p, &alloc_policies()))
            .map_err(err)?;
        let ipolicy = row
            .value(3)
            .and_then(|(v, p)| read_ipolicy(v, &p))
            .map_err(err)?;
        let tags = row.owned_strs(4).map_err(err)?;
        asm.group(name, uuid, alloc_policy, ipolicy, tags);
    }
    Ok(())
}

/// Ganeti's allocation policies by name.
pub(crate) fn alloc_policies() -> [(&'static str, AllocPolicy); 3] {
    [
        ("preferred", AllocPolicy::Preferred),
        ("last_resort", AllocPolicy::LastResort),
        ("unallocable", AllocPolicy::Unallocable),
    ]
}

fn read_nodes(asm: &mut Assembly, result: Value<'_>) -> Result<(), LiveError> {
    let source = source_of("node");
    for (i, fields) in rows(&source, result, NODE_FIELDS.len())?.iter().enumerate() {
        let row = Row {
            fields,
            names: &NODE_FIELDS,
        };
        let name = row_name(&source, &row, "node", i, 0)?;
        let object = format!("node '{name}'");
        let err = |e| field_error(&source, &object, e);
        let offline = row.bool(8).map_err(err)?;
        let drained = row.bool(9).map_err(err)?;
        let vm_capable = row.bool(10).map_err(err)?;
        let uuid = row.str(12).map_err(err)?;
        let group = asm
            .group_of(uuid, name)
            .map_err(|m| LiveError::new(&source, format!("{object}, field group.uuid: {m}")))?;
        let tags = row.owned_strs(13).map_err(err)?;
        let excl_storage = row.bool(14).map_err(err)?;
        let cpu_speed = row.f64(17).map_err(err)?;
        let live = !offline && vm_capable;
        let t_spindles = if excl_storage {
            row.live(live, 0, || row.int(15)).map_err(err)?
        } else {
            row.int(11).map_err(err)?
        };
        let f_spindles = row.live(live, 0, || row.int(16)).unwrap_or(0);
        let t_mem = row.live(live, 0.0, || row.f64(1)).map_err(err)?;
        let n_mem = row.live(live, 0, || row.int(2)).map_err(err)?;
        let f_mem = row.live(live, 0, || row.int(3)).map_err(err)?;
        let t_dsk = row.live(live, 0.0, || row.f64(4)).unwrap_or(0.0);
        let f_dsk = row.live(live, 0, || row.int(5)).unwrap_or(0);
        let t_cpu = row.live(live, 0.0, || row.f64(6)).map_err(err)?;
        let n_cpu = row.live(live, 0, || row.int(7)).map_err(err)?;
        let info = node_info(name, tags, false, n_cpu, cpu_speed);
        let resources = Resources {
            t_mem,
            n_mem,
            f_mem,
            t_dsk,
            f_dsk,
            t_cpu,
            t_spindles,
            f_spindles,
            excl_storage,
            offline: !live || drained,
        };
        asm.node(info, group, resources);
    }
    Ok(())
}

fn read_instances(asm: &mut Assembly, result: Value<'_>) -> Result<(), LiveError> {
    let source = source_of("instance");
    let statuses: Vec<(&str, RunState)> = RunState::ALL.iter().map(|r| (r.raw(), *r)).collect();
    let templates: Vec<(&str, DiskTemplate)> =
        DiskTemplate::ALL.iter().map(|t| (t.raw(), *t)).collect();
    for (i, fields) in rows(&source, result, INSTANCE_FIELDS.len())?
        .iter()
        .enumerate()
    {
        let row = Row {
            fields,
            names: &INSTANCE_FIELDS,
        };
        let name = row_name(&source, &row, "instance", i, 0)?;
        let object = format!("instance '{name}'");
        let err = |e| field_error(&source, &object, e);
        let named = |field: &str, m: String| {
            LiveError::new(&source, format!("{object}, field {field}: {m}"))
        };
        let dsk = row.int(1).map_err(err)?;
        let mem = row.int(2).map_err(err)?;
        let vcpus = row.int(3).map_err(err)?;
        let pnode = row.str(5).map_err(err)?;
        let p_node = asm.node_of(pnode, name).map_err(|m| named("pnode", m))?;
        let snodes = row.strs(6).map_err(err)?;
        let s_node = secondary(asm, &snodes, name).map_err(|m| named("snodes", m))?;
        let run_state = row
            .value(4)
            .and_then(|(v, p)| enum_value(v, &p, &statuses))
            .map_err(err)?;
        let tags = row.owned_strs(7).map_err(err)?;
        let auto_balance = row.bool(8).map_err(err)?;
        let disk_template = row
            .value(9)
            .and_then(|(v, p)| enum_value(v, &p, &templates))
            .map_err(err)?;
        let spindle_use = row.int(10).map_err(err)?;
        let sizes = row.ints(11).map_err(err)?;
        let spindles = row.maybe_ints(12).map_err(err)?;
        let forthcoming = row.bool(13).map_err(err)?;
        let disks = sizes
            .into_iter()
            .zip(spindles)
            .map(|(size, spindles)| Disk { size, spindles })
            .collect();
        asm.instance(InstanceRecord {
            name: name.to_owned(),
            mem,
            dsk,
            disks,
            vcpus,
            run_state,
            auto_balance,
            p_node,
            s_node,
            disk_template,
            spindle_use,
            tags,
            forthcoming,
        })
        .map_err(|m| LiveError::new(&source, format!("{object}: {m}")))?;
    }
    Ok(())
}

/// `getClusterData`: tags, policy, master, default hypervisor.
fn read_info(result: Value<'_>) -> Result<ClusterInfo, LiveError> {
    let source = source_of("cluster info");
    let err = |e: InputError| LiveError::new(&source, e.to_string());
    let obj = as_object(result, &Path::ROOT).map_err(err)?;
    let get = |key: &'static str| {
        obj.get(key)
            .map(|v| (v, Path::ROOT.field(key)))
            .ok_or_else(|| LiveError::new(&source, format!("{key}: missing")))
    };
    let (v, p) = get("tags")?;
    let tags = str_list(v, &p)
        .map_err(err)?
        .into_iter()
        .map(str::to_owned)
        .collect();
    let (v, p) = get("ipolicy")?;
    let ipolicy = read_ipolicy(v, &p).map_err(err)?;
    let (v, p) = get("master")?;
    let master = str_value(v, &p).map_err(err)?.to_owned();
    let (v, p) = get("default_hypervisor")?;
    let hypervisor = enum_value(v, &p, &Hypervisor::ALL).map_err(err)?;
    let default_iallocator = obj
        .get("default_iallocator")
        .and_then(|v| v.as_str())
        .filter(|s| !s.is_empty())
        .map(str::to_owned);
    Ok(ClusterInfo {
        tags,
        ipolicy,
        master,
        hypervisor,
        default_iallocator,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::json::parse_document;

    /// The lab's four replies, in the order hbal asks.
    const LAB: &[u8] = include_bytes!("../../../tests/live/lab.luxi");

    fn replies(bytes: &[u8]) -> Vec<Vec<u8>> {
        bytes
            .split(|&b| b == 3)
            .filter(|m| !m.is_empty())
            .map(<[u8]>::to_vec)
            .collect()
    }

    fn load(messages: &[Vec<u8>]) -> Result<Live, LiveError> {
        let docs: Vec<Document<'_>> = messages
            .iter()
            .map(|m| parse_document(m).unwrap())
            .collect();
        let results: Vec<Value<'_>> = docs.iter().map(|d| envelope(d).unwrap()).collect();
        read([results[0], results[1], results[2], results[3]])
    }

    #[test]
    fn the_lab_cluster_is_read_with_its_master_and_disks() {
        let live = load(&replies(LAB)).unwrap();
        let p = &live.parts;
        assert_eq!(
            (p.groups.len(), p.nodes.len(), p.instances.len()),
            (2, 3, 4)
        );
        assert!(p.nodes[0].info.master && !p.nodes[1].info.master);
        assert_eq!(p.nodes[1].info.tags, ["ntag"]);
        // sptotal and spfree have status 2 (no data): spindles come from
        // ndp/spindle_count, free spindles fall back to 0.
        assert_eq!((p.nodes[0].t_spindles, p.nodes[0].f_spindles), (1, 0));
        assert_eq!(p.instances[0].disks.len(), 0);
        assert_eq!(p.instances[1].disks[0].size, 1024);
        assert_eq!(p.instances[1].disks[0].spindles, None);
        assert_eq!(p.cluster_tags, ["ctag1"]);
        assert_eq!(live.hypervisor, Hypervisor::Fake);
    }

    #[test]
    fn statuses_are_checked_and_offline_nodes_take_defaults() {
        let mut m = replies(LAB);
        let node = String::from_utf8(m[0].clone()).unwrap();
        // node1 offline: its memory is then never read, whatever its status.
        let offline = node.replacen("[0,24105]", "[4,null]", 1).replacen(
            "[0,false],[0,false],[0,true]",
            "[0,true],[0,false],[0,true]",
            1,
        );
        m[0] = offline.into_bytes();
        let live = load(&m).unwrap();
        let n = &live.parts.nodes[0];
        assert!(n.offline);
        assert_eq!((n.t_mem, n.n_mem, n.f_mem), (0.0, 0, 0));
        // The same status on a live node is an error naming node and field.
        m[0] = node.replacen("[0,24105]", "[4,null]", 1).into_bytes();
        let e = load(&m).err().unwrap();
        assert_eq!(
            e.to_string(),
            "Luxi query \"node\": node 'node1.example.com', field mtotal: Ganeti reports \
             resource as offline (status 4)"
        );
        // A missing disk size is 0, not an error.
        m[0] = node.replacen("[0,258019]", "[3,null]", 1).into_bytes();
        assert_eq!(load(&m).unwrap().parts.nodes[0].t_dsk, 0.0);
        m[0] = node
            .replacen("[0,2],[0,2]", "[0,2],[\"x\",2]", 1)
            .into_bytes();
        let e = load(&m).err().unwrap();
        assert!(e.message.contains("field cnos: bad status"), "{e}");
    }

    /// Any reply, however damaged, is read or refused: never a panic. Each
    /// message is cut short and has single bytes replaced, one at a time.
    #[test]
    fn damaged_replies_never_panic() {
        let good = replies(LAB);
        let mut refused = 0;
        for i in 0..good.len() {
            let len = good[i].len();
            for at in (0..len).step_by(7) {
                for variant in 0..4u8 {
                    let mut m = good.clone();
                    match variant {
                        0 => m[i].truncate(at),
                        1 => m[i][at] = b'0',
                        2 => m[i][at] = b'"',
                        _ => m[i][at] = b']',
                    }
                    let docs: Vec<_> = m.iter().map(|x| parse_document(x)).collect();
                    if docs.iter().any(Result::is_err) {
                        continue;
                    }
                    let docs: Vec<Document<'_>> = docs.into_iter().flatten().collect();
                    let results: Vec<_> = docs.iter().map(|d| envelope(d)).collect();
                    if results.iter().any(Result::is_err) {
                        continue;
                    }
                    let r: Vec<Value<'_>> = results.into_iter().flatten().collect();
                    if read([r[0], r[1], r[2], r[3]]).is_err() {
                        refused += 1;
                    }
                }
            }
        }
        // Many damaged replies still parse and are refused by the reader.
        assert!(refused > 100, "{refused}");
    }

    #[test]
    fn envelopes_and_ganeti_errors() {
        let doc = parse_document(
            br#"{"success":false,"result":["OpPrereqError",["bad","wrong_input"]]}"#,
        )
        .unwrap();
        assert_eq!(
            envelope(&doc).err(),
            Some(EnvelopeError::Failed(
                "OpPrereqError: bad, wrong_input".to_owned()
            ))
        );
        let doc = parse_document(br#"{"success":false,"result":"plain"}"#).unwrap();
        assert_eq!(
            envelope(&doc).err(),
            Some(EnvelopeError::Failed("\"plain\"".to_owned()))
        );
        let doc = parse_document(br#"{"result":1}"#).unwrap();
        assert!(matches!(envelope(&doc), Err(EnvelopeError::Malformed(_))));
    }
}
