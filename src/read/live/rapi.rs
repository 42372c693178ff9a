//! RAPI, Ganeti's remote HTTP API, as the htools' RAPI backend reads a
//! cluster (`Backend/Rapi.hs`): four resources ([`RESOURCES`]), each a
//! JSON body: the node groups, nodes and instances (`?bulk=1`: a list of
//! objects) and the cluster info (one object). The program fetches them
//! (from a `file://` directory or over HTTPS); this module reads the
//! bodies in hbal's order (groups, nodes, instances, info: [`read`]).
//!
//! Unlike Luxi, the fields are plain members. What hbal takes from them:
//! * nodes: `vm_capable` may be absent or `null` (true), `group.uuid` may
//!   be absent or `null` (Ganeti's default group UUID); a node that is
//!   offline or not `vm_capable` takes defaults for its memory, disk and
//!   CPU members (`eitherLive`); `dtotal`, `dfree` and `spfree` may be
//!   absent or `null` (0); spindles come from `ndparams` unless the node
//!   has exclusive storage; the CPU speed is not read (1);
//! * instances: the memory is `oper_ram` when it is a number, else
//!   `beparams.memory`, else `beparams.maxmem`; a missing or bad
//!   `forthcoming` is false; vCPUs, auto-balance and spindle use come from
//!   `beparams`.

use crate::model::instance::Disk;
use crate::model::node::Resources;
use crate::model::types::{DiskTemplate, RunState};
use crate::read::iallocator::{
    as_array, as_object, bool_value, enum_value, f64_value, int_value, read_ipolicy, str_list,
    str_value, Hypervisor, InputError, Path,
};
use crate::read::json::{parse_document, Document, Object, Value};
use crate::read::live::luxi::alloc_policies;
use crate::read::live::{field_error, secondary, Assembly, ClusterInfo, Live, LiveError};
use crate::read::merge::{node_info, InstanceRecord};

/// The four resources hbal reads, in its order: name, the path below the
/// cluster's address, the file of a `file://` directory.
pub const RESOURCES: [(&str, &str, &str); 4] = [
    ("groups", "/2/groups?bulk=1", "groups.json"),
    ("nodes", "/2/nodes?bulk=1", "nodes.json"),
    ("instances", "/2/instances?bulk=1", "instances.json"),
    ("info", "/2/info", "info.json"),
];

/// Ganeti's default node group UUID (`defaultGroupID`), for a node that
/// names none.
const DEFAULT_GROUP: &str = "00000000-0000-0000-0000-000000000000";

/// One fetched resource: where it came from (for messages) and its body.
pub struct Body<'a> {
    pub source: &'a str,
    pub bytes: &'a [u8],
}

/// Builds the cluster from the four bodies, in [`RESOURCES`]' order.
///
/// # Errors
///
/// The first problem, naming the resource, the object and the member.
pub(crate) fn read(bodies: [Body<'_>; 4]) -> Result<Live, LiveError> {
    let [groups, nodes, instances, info] = bodies;
    let mut asm = Assembly::new();
    let doc = document(&groups)?;
    for (i, obj) in objects(&groups, &doc)?.into_iter().enumerate() {
        read_group(&mut asm, groups.source, obj, i)?;
    }
    let doc = document(&nodes)?;
    for (i, obj) in objects(&nodes, &doc)?.into_iter().enumerate() {
        read_node(&mut asm, nodes.source, obj, i)?;
    }
    let doc = document(&instances)?;
    for (i, obj) in objects(&instances, &doc)?.into_iter().enumerate() {
        read_instance(&mut asm, instances.source, obj, i)?;
    }
    let doc = document(&info)?;
    let cluster = read_info(info.source, doc.root())?;
    asm.finish(cluster)
        .map_err(|m| LiveError::new(info.source, format!("field master: {m}")))
}

fn document<'a>(body: &Body<'a>) -> Result<Document<'a>, LiveError> {
    parse_document(body.bytes)
        .map_err(|e| LiveError::new(body.source, format!("not valid JSON: {e}")))
}

/// The body's list of objects (`loadJSArray`).
fn objects<'d>(body: &Body<'_>, doc: &'d Document<'_>) -> Result<Vec<Object<'d>>, LiveError> {
    let err = |e: InputError| LiveError::new(body.source, e.to_string());
    let items = as_array(doc.root(), &Path::ROOT).map_err(err)?;
    items
        .iter()
        .enumerate()
        .map(|(i, v)| as_object(v, &Path::ROOT.index(i)).map_err(err))
        .collect()
}

/// Reads members of one object, errors naming the object.
struct Members<'d> {
    obj: Object<'d>,
}

impl<'d> Members<'d> {
    /// A required member (`tryFromObj`; `null` is then a type error).
    fn req(&self, key: &'static str) -> Result<(Value<'d>, Path<'static>), InputError> {
        let path = Path::ROOT.field(key);
        match self.obj.get(key) {
            Some(v) => Ok((v, path)),
            None => Err(path.error("missing")),
        }
    }

    /// An optional member: absent and `null` are `None` (`maybeFromObj`).
    fn opt(&self, key: &'static str) -> Option<(Value<'d>, Path<'static>)> {
        self.obj
            .get(key)
            .filter(|v| !v.is_null())
            .map(|v| (v, Path::ROOT.field(key)))
    }

    fn str(&self, key: &'static str) -> Result<&'d str, InputError> {
        let (v, p) = self.req(key)?;
        str_value(v, &p)
    }

    fn int(&self, key: &'static str) -> Result<i64, InputError> {
        let (v, p) = self.req(key)?;
        int_value(v, &p)
    }

    fn f64(&self, key: &'static str) -> Result<f64, InputError> {
        let (v, p) = self.req(key)?;
        f64_value(v, &p)
    }

    fn bool(&self, key: &'static str) -> Result<bool, InputError> {
        let (v, p) = self.req(key)?;
        bool_value(v, &p)
    }

    fn strs(&self, key: &'static str) -> Result<Vec<String>, InputError> {
        let (v, p) = self.req(key)?;
        Ok(str_list(v, &p)?.into_iter().map(str::to_owned).collect())
    }

    fn object(&self, key: &'static str) -> Result<Members<'d>, InputError> {
        let (v, p) = self.req(key)?;
        Ok(Members {
            obj: as_object(v, &p)?,
        })
    }
}

/// The error of member `e.path` inside member `outer` (e.g. `beparams`).
fn inside(outer: &str, e: InputError) -> InputError {
    InputError {
        path: format!("{outer}.{}", e.path),
        message: e.message,
    }
}

fn name_of<'d>(source: &str, m: &Members<'d>, what: &str, i: usize) -> Result<&'d str, LiveError> {
    m.str("name")
        .map_err(|e| field_error(source, &format!("{what} [{i}]"), e))
}

fn read_group(
    asm: &mut Assembly,
    source: &str,
    obj: Object<'_>,
    i: usize,
) -> Result<(), LiveError> {
    let m = Members { obj };
    let name = name_of(source, &m, "node group", i)?;
    let object = format!("node group '{name}'");
    let err = |e| field_error(source, &object, e);
    let uuid = m.str("uuid").map_err(err)?;
    let alloc_policy = m
        .req("alloc_policy")
        .and_then(|(v, p)| enum_value(v, &p, &alloc_policies()))
        .map_err(err)?;
    let ipolicy = m
        .req("ipolicy")
        .and_then(|(v, p)| read_ipolicy(v, &p))
        .map_err(err)?;
    let tags = m.strs("tags").map_err(err)?;
    asm.group(name, uuid, alloc_policy, ipolicy, tags);
    Ok(())
}

fn read_node(asm: &mut Assembly, source: &str, obj: Object<'_>, i: usize) -> Result<(), LiveError> {
    let m = Members { obj };
    let name = name_of(source, &m, "node", i)?;
    let object = format!("node '{name}'");
    let err = |e| field_error(source, &object, e);
    let offline = m.bool("offline").map_err(err)?;
    let drained = m.bool("drained").map_err(err)?;
    let vm_capable = match m.opt("vm_capable") {
        Some((v, p)) => bool_value(v, &p).map_err(err)?,
        None => true,
    };
    let ndparams = m.object("ndparams").map_err(err)?;
    let excl_storage = ndparams
        .bool("exclusive_storage")
        .map_err(|e| err(inside("ndparams", e)))?;
    let uuid = match m.opt("group.uuid") {
        Some((v, p)) => str_value(v, &p).map_err(err)?,
        None => DEFAULT_GROUP,
    };
    let group = asm
        .group_of(uuid, name)
        .map_err(|msg| LiveError::new(source, format!("{object}, field group.uuid: {msg}")))?;
    let live = !offline && vm_capable;
    // `eitherLive`, and `fromObjWithDefault` for the members that may be
    // missing.
    let lv = |read: &dyn Fn() -> Result<i64, InputError>| if live { read() } else { Ok(0) };
    let lv_f = |read: &dyn Fn() -> Result<f64, InputError>| if live { read() } else { Ok(0.0) };
    let def_int = |key: &'static str| match m.opt(key) {
        Some((v, p)) => int_value(v, &p),
        None => Ok(0),
    };
    let t_spindles = if excl_storage {
        lv(&|| m.int("sptotal")).map_err(err)?
    } else {
        ndparams
            .int("spindle_count")
            .map_err(|e| err(inside("ndparams", e)))?
    };
    let f_spindles = lv(&|| def_int("spfree")).map_err(err)?;
    let t_mem = lv_f(&|| m.f64("mtotal")).map_err(err)?;
    let n_mem = lv(&|| m.int("mnode")).map_err(err)?;
    let f_mem = lv(&|| m.int("mfree")).map_err(err)?;
    let t_dsk = lv_f(&|| match m.opt("dtotal") {
        Some((v, p)) => f64_value(v, &p),
        None => Ok(0.0),
    })
    .map_err(err)?;
    let f_dsk = lv(&|| def_int("dfree")).map_err(err)?;
    let t_cpu = lv_f(&|| m.f64("ctotal")).map_err(err)?;
    let n_cpu = lv(&|| m.int("cnos")).map_err(err)?;
    let tags = m.strs("tags").map_err(err)?;
    let info = node_info(name, tags, false, n_cpu, 1.0);
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
    Ok(())
}

fn read_instance(
    asm: &mut Assembly,
    source: &str,
    obj: Object<'_>,
    i: usize,
) -> Result<(), LiveError> {
    let m = Members { obj };
    let name = name_of(source, &m, "instance", i)?;
    let object = format!("instance '{name}'");
    let err = |e| field_error(source, &object, e);
    let named = |field: &str, msg: String| {
        LiveError::new(source, format!("{object}, field {field}: {msg}"))
    };
    let dsk = m.int("disk_usage").map_err(err)?;
    let (v, p) = m.req("disk.sizes").map_err(err)?;
    let items = as_array(v, &p).map_err(err)?;
    let mut sizes = Vec::with_capacity(items.len());
    for (k, x) in items.iter().enumerate() {
        sizes.push(int_value(x, &p.index(k)).map_err(err)?);
    }
    let (v, p) = m.req("disk.spindles").map_err(err)?;
    let items = as_array(v, &p).map_err(err)?;
    let mut spindles = Vec::with_capacity(items.len());
    for (k, x) in items.iter().enumerate() {
        spindles.push(if x.is_null() {
            None
        } else {
            Some(int_value(x, &p.index(k)).map_err(err)?)
        });
    }
    let be = m.object("beparams").map_err(err)?;
    let be_err = |e| err(inside("beparams", e));
    let (oper_ram, p) = m.req("oper_ram").map_err(err)?;
    let mem = if oper_ram.as_number().is_some() {
        int_value(oper_ram, &p).map_err(err)?
    } else {
        be.int("memory")
            .or_else(|_| be.int("maxmem"))
            .map_err(be_err)?
    };
    let vcpus = be.int("vcpus").map_err(be_err)?;
    let pnode = m.str("pnode").map_err(err)?;
    let p_node = asm
        .node_of(pnode, name)
        .map_err(|msg| named("pnode", msg))?;
    let snodes = m
        .req("snodes")
        .and_then(|(v, p)| str_list(v, &p))
        .map_err(err)?;
    let s_node = secondary(asm, &snodes, name).map_err(|msg| named("snodes", msg))?;
    let statuses: Vec<(&str, RunState)> = RunState::ALL.iter().map(|r| (r.raw(), *r)).collect();
    let run_state = m
        .req("status")
        .and_then(|(v, p)| enum_value(v, &p, &statuses))
        .map_err(err)?;
    let tags = m.strs("tags").map_err(err)?;
    let auto_balance = be.bool("auto_balance").map_err(be_err)?;
    let templates: Vec<(&str, DiskTemplate)> =
        DiskTemplate::ALL.iter().map(|t| (t.raw(), *t)).collect();
    let disk_template = m
        .req("disk_template")
        .and_then(|(v, p)| enum_value(v, &p, &templates))
        .map_err(err)?;
    let spindle_use = be.int("spindle_use").map_err(be_err)?;
    let forthcoming = m.bool("forthcoming").unwrap_or(false);
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
    .map_err(|msg| LiveError::new(source, format!("{object}: {msg}")))
}

/// `parseCluster`: master, tags, policy, default hypervisor.
fn read_info(source: &str, root: Value<'_>) -> Result<ClusterInfo, LiveError> {
    let err = |e: InputError| LiveError::new(source, e.to_string());
    let m = Members {
        obj: as_object(root, &Path::ROOT).map_err(err)?,
    };
    let master = m.str("master").map_err(err)?.to_owned();
    let tags = m.strs("tags").map_err(err)?;
    let ipolicy = m
        .req("ipolicy")
        .and_then(|(v, p)| read_ipolicy(v, &p))
        .map_err(err)?;
    let hypervisor = m
        .req("default_hypervisor")
        .and_then(|(v, p)| enum_value(v, &p, &Hypervisor::ALL))
        .map_err(err)?;
    let default_iallocator = m
        .obj
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

    fn file(name: &str) -> String {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/live/varied.rapi/");
        std::fs::read_to_string(format!("{dir}{name}.json")).unwrap()
    }

    fn load(edit: impl Fn(&str, String) -> String) -> Result<Live, LiveError> {
        let texts: Vec<String> = RESOURCES.iter().map(|(n, _, _)| edit(n, file(n))).collect();
        read([0, 1, 2, 3].map(|i| Body {
            source: RESOURCES[i].2,
            bytes: texts[i].as_bytes(),
        }))
    }

    #[test]
    fn rapi_members_follow_hbal() {
        let live = load(|_, t| t).unwrap();
        let p = &live.parts;
        assert_eq!(live.hypervisor, Hypervisor::Kvm);
        // oper_ram, when a number, is the memory.
        assert_eq!(p.instances[3].mem, 700);
        assert_eq!(p.instances[0].mem, 4096);
        // RAPI gives no CPU speed: 1.
        assert_eq!(p.nodes[0].info.cpu_speed, 1.0);
        // Offline and non-vm-capable nodes: offline with no resources.
        assert!(p.nodes[3].offline && p.nodes[5].offline && p.nodes[1].offline);
        assert_eq!(p.nodes[5].t_mem, 0.0);
        // Without oper_ram and memory, maxmem.
        let live = load(|n, t| {
            if n == "instances" {
                t.replacen("\"memory\": 4096,", "", 1).replacen(
                    "\"maxmem\": 4096",
                    "\"maxmem\": 4000",
                    1,
                )
            } else {
                t
            }
        })
        .unwrap();
        assert_eq!(live.parts.instances[0].mem, 4000);
        // A null vm_capable is true: node6 is then live, and its null
        // memory an error.
        let e = load(|n, t| {
            if n == "nodes" {
                t.replace("\"vm_capable\": false", "\"vm_capable\": null")
            } else {
                t
            }
        })
        .err()
        .unwrap();
        assert_eq!(
            e.to_string(),
            "nodes.json: node 'node6.example.com', field mtotal: expected a number, found null"
        );
    }

    #[test]
    fn a_drbd_instance_needs_another_secondary() {
        let e = load(|n, t| {
            if n == "instances" {
                t.replacen(
                    "\"snodes\": [\n   \"node2.example.com\"\n  ]",
                    "\"snodes\": []",
                    1,
                )
            } else {
                t
            }
        })
        .err()
        .unwrap();
        assert!(
            e.message
                .starts_with("instance 'web1.example.com': a drbd instance needs"),
            "{e}"
        );
    }
}
