//! The parts of the message read from the parsed document in hail's
//! order and with its acceptance rules: the node groups and their strict
//! instance policies, each node and instance (`read_node`,
//! `read_instance`: also the general reading of a member that
//! [`super::scan`] gives up on) and the `request` object by type.

use smallvec::SmallVec;

use super::fields::{
    as_array, as_object, bool_value, disk_template, enum_value, found, int_value, opt_str,
    optional, req_bool, req_f64, req_int, req_str, req_str_list, required, str_list, str_value,
    Fields,
};
use super::path::{InputError, Path};
use super::wire::{
    LiveData, WireDisk, WireGroup, WireInstance, WireInstanceBody, WireNewInstance, WireNode,
    WireRequest,
};
use crate::model::policy::{IPolicy, ISpec, MinMaxISpecs};
use crate::model::types::{AllocPolicy, EvacMode, RunState};
use crate::read::json::{Object, Value};

/// The node groups of the top-level object, in input order.
pub(super) fn read_groups<'d>(
    top: &Object<'d>,
) -> Result<Vec<(&'d str, WireGroup<'d>)>, InputError> {
    let groups_path = Path::ROOT.field("nodegroups");
    let groups_json = as_object(
        required(top, "nodegroups", &groups_path, "an object")?,
        &groups_path,
    )?;
    let mut groups = Vec::with_capacity(groups_json.len());
    for (uuid, g) in groups_json.iter() {
        let p = groups_path.name(uuid);
        groups.push((uuid, read_group(g, &p)?));
    }
    Ok(groups)
}

fn read_group<'d>(v: Value<'d>, path: &Path) -> Result<WireGroup<'d>, InputError> {
    let m = as_object(v, path)?;
    let name = req_str(&m, "name", path)?;
    let pol_path = path.field("alloc_policy");
    let alloc_policy = enum_value(
        required(&m, "alloc_policy", &pol_path, "an allocation policy")?,
        &pol_path,
        &[
            ("preferred", AllocPolicy::Preferred),
            ("last_resort", AllocPolicy::LastResort),
            ("unallocable", AllocPolicy::Unallocable),
        ],
    )?;
    let networks = req_str_list(&m, "networks", path)?;
    let ip_path = path.field("ipolicy");
    let ipolicy = read_ipolicy(
        required(&m, "ipolicy", &ip_path, "an instance policy object")?,
        &ip_path,
    )?;
    let tags = req_str_list(&m, "tags", path)?;
    Ok(WireGroup {
        name,
        alloc_policy,
        networks,
        ipolicy,
        tags,
    })
}

/// Refuses keys outside `allowed` (hail's policy objects are strict).
fn strict_keys(m: Object<'_>, allowed: &[&str], path: &Path, what: &str) -> Result<(), InputError> {
    for (k, _) in m.iter() {
        if !allowed.contains(&k) {
            let names: Vec<String> = allowed.iter().map(|a| format!("\"{a}\"")).collect();
            return Err(path.error(format!(
                "unexpected key \"{k}\"; {what} allows only {}",
                names.join(", ")
            )));
        }
    }
    Ok(())
}

pub(crate) fn read_ipolicy(v: Value<'_>, path: &Path) -> Result<IPolicy, InputError> {
    let m = as_object(v, path)?;
    strict_keys(
        m,
        &[
            "disk-templates",
            "minmax",
            "spindle-ratio",
            "std",
            "vcpu-ratio",
        ],
        path,
        "an instance policy",
    )?;
    let mm_path = path.field("minmax");
    let mm_json = as_array(
        required(&m, "minmax", &mm_path, "a list of {min, max} objects")?,
        &mm_path,
    )?;
    let mut minmax = Vec::with_capacity(mm_json.len());
    for (i, entry) in mm_json.iter().enumerate() {
        let p = mm_path.index(i);
        let em = as_object(entry, &p)?;
        strict_keys(em, &["max", "min"], &p, "a min/max pair")?;
        let min_path = p.field("min");
        let min = read_ispec(
            required(&em, "min", &min_path, "an instance spec")?,
            &min_path,
        )?;
        let max_path = p.field("max");
        let max = read_ispec(
            required(&em, "max", &max_path, "an instance spec")?,
            &max_path,
        )?;
        minmax.push(MinMaxISpecs { min, max });
    }
    let std_path = path.field("std");
    let std = read_ispec(
        required(&m, "std", &std_path, "an instance spec")?,
        &std_path,
    )?;
    let dt_path = path.field("disk-templates");
    let dt_json = as_array(
        required(&m, "disk-templates", &dt_path, "a list of disk templates")?,
        &dt_path,
    )?;
    let mut disk_templates = Vec::with_capacity(dt_json.len());
    for (i, t) in dt_json.iter().enumerate() {
        disk_templates.push(disk_template(t, &dt_path.index(i))?);
    }
    let vcpu_ratio = req_f64(&m, "vcpu-ratio", path)?;
    let spindle_ratio = req_f64(&m, "spindle-ratio", path)?;
    Ok(IPolicy {
        minmax,
        std,
        disk_templates,
        vcpu_ratio,
        spindle_ratio,
    })
}

fn read_ispec(v: Value<'_>, path: &Path) -> Result<ISpec, InputError> {
    let m = as_object(v, path)?;
    strict_keys(
        m,
        &[
            "cpu-count",
            "disk-count",
            "disk-size",
            "memory-size",
            "nic-count",
            "spindle-use",
        ],
        path,
        "an instance spec",
    )?;
    Ok(ISpec {
        memory_size: req_int(&m, "memory-size", path)?,
        cpu_count: req_int(&m, "cpu-count", path)?,
        disk_size: req_int(&m, "disk-size", path)?,
        disk_count: req_int(&m, "disk-count", path)?,
        nic_count: req_int(&m, "nic-count", path)?,
        spindle_use: req_int(&m, "spindle-use", path)?,
    })
}

/// The node keys hail reads.
const NODE_KEYS: [&str; 15] = [
    "offline",
    "drained",
    "group",
    "vm_capable",
    "ndparams",
    "tags",
    "total_spindles",
    "free_spindles",
    "total_memory",
    "reserved_memory",
    "free_memory",
    "total_disk",
    "free_disk",
    "total_cpus",
    "reserved_cpus",
];

pub(crate) fn read_node<'d>(v: Value<'d>, path: &Path) -> Result<WireNode<'d>, InputError> {
    let m = as_object(v, path)?.pick(&NODE_KEYS);
    let offline = req_bool(&m, "offline", path)?;
    let drained = req_bool(&m, "drained", path)?;
    let group = req_str(&m, "group", path)?;
    let vm_capable = match optional(&m, "vm_capable") {
        None => true,
        Some(v) => bool_value(v, &path.field("vm_capable"))?,
    };
    let nd_path = path.field("ndparams");
    let nd = as_object(required(&m, "ndparams", &nd_path, "an object")?, &nd_path)?;
    let tags = match optional(&m, "tags") {
        None => Vec::new(),
        Some(v) => str_list(v, &path.field("tags"))?,
    };
    let exclusive_storage = req_bool(&nd, "exclusive_storage", &nd_path)?;
    let live = !offline && vm_capable;
    let spindle_count = if exclusive_storage {
        None
    } else {
        Some(req_int(&nd, "spindle_count", &nd_path)?)
    };
    let live = if live {
        let total_spindles = if exclusive_storage {
            Some(req_int(&m, "total_spindles", path)?)
        } else {
            None
        };
        Some(LiveData {
            total_spindles,
            free_spindles: req_int(&m, "free_spindles", path)?,
            total_memory: req_f64(&m, "total_memory", path)?,
            reserved_memory: req_int(&m, "reserved_memory", path)?,
            free_memory: req_int(&m, "free_memory", path)?,
            total_disk: req_f64(&m, "total_disk", path)?,
            free_disk: req_int(&m, "free_disk", path)?,
            total_cpus: req_f64(&m, "total_cpus", path)?,
            reserved_cpus: req_int(&m, "reserved_cpus", path)?,
        })
    } else {
        None
    };
    Ok(WireNode {
        offline,
        drained,
        group,
        vm_capable,
        exclusive_storage,
        spindle_count,
        tags,
        live,
    })
}

/// The instance keys hail reads: those of [`read_instance_body`] and
/// `nodes`.
const INSTANCE_KEYS: [&str; 11] = [
    "disk_space_total",
    "disks",
    "memory",
    "vcpus",
    "tags",
    "disk_template",
    "spindle_use",
    "nics",
    "admin_state",
    "forthcoming",
    "nodes",
];

/// The NIC keys hail reads.
const NIC_KEYS: [&str; 6] = ["mac", "ip", "mode", "link", "bridge", "network"];

/// The disk keys hail reads.
const DISK_KEYS: [&str; 2] = ["size", "spindles"];

fn read_instance_body<'d>(
    m: &impl Fields<'d>,
    path: &Path,
) -> Result<WireInstanceBody<'d>, InputError> {
    let disk_space_total = req_int(m, "disk_space_total", path)?;
    let disks_path = path.field("disks");
    let disks_json = as_array(
        required(m, "disks", &disks_path, "a list of disk objects")?,
        &disks_path,
    )?;
    let mut disk_objs: SmallVec<[_; 4]> = SmallVec::with_capacity(disks_json.len());
    for (i, d) in disks_json.iter().enumerate() {
        disk_objs.push(as_object(d, &disks_path.index(i))?.pick(&DISK_KEYS));
    }
    // hail reads every size first, then every spindle count.
    let mut sizes: SmallVec<[i64; 4]> = SmallVec::with_capacity(disk_objs.len());
    for (i, &d) in disk_objs.iter().enumerate() {
        sizes.push(req_int(&d, "size", &disks_path.index(i))?);
    }
    let mut disks = SmallVec::with_capacity(disk_objs.len());
    for (i, (&d, size)) in disk_objs.iter().zip(sizes).enumerate() {
        let spindles = match optional(&d, "spindles") {
            None => None,
            Some(v) => Some(int_value(v, &disks_path.index(i).field("spindles"))?),
        };
        disks.push(WireDisk { size, spindles });
    }
    let memory = req_int(m, "memory", path)?;
    let vcpus = req_int(m, "vcpus", path)?;
    let tags = req_str_list(m, "tags", path)?;
    let dt_path = path.field("disk_template");
    let disk_template = disk_template(
        required(m, "disk_template", &dt_path, "a disk template")?,
        &dt_path,
    )?;
    let spindle_use = req_int(m, "spindle_use", path)?;
    let nics_path = path.field("nics");
    let nics_json = as_array(
        required(m, "nics", &nics_path, "a list of NIC objects")?,
        &nics_path,
    )?;
    let mut nic_networks = SmallVec::with_capacity(nics_json.len());
    for (i, nic) in nics_json.iter().enumerate() {
        let p = nics_path.index(i);
        let nm = as_object(nic, &p)?.pick(&NIC_KEYS);
        opt_str(&nm, "mac", &p)?;
        opt_str(&nm, "ip", &p)?;
        if let Some(mode) = optional(&nm, "mode") {
            let mp = p.field("mode");
            let s = str_value(mode, &mp)?;
            if !matches!(s, "bridged" | "routed" | "openvswitch") {
                return Err(mp.error(format!(
                    "expected one of \"bridged\", \"routed\", \"openvswitch\", found {}",
                    found(mode)
                )));
            }
        }
        opt_str(&nm, "link", &p)?;
        opt_str(&nm, "bridge", &p)?;
        nic_networks.push(opt_str(&nm, "network", &p)?);
    }
    // hail falls back to "up" on a missing or bad admin_state, and to not
    // forthcoming on a missing or bad forthcoming flag.
    let run_state = match m.field("admin_state").and_then(|v| v.as_str()) {
        Some("down") => RunState::AdminDown,
        Some("offline") => RunState::AdminOffline,
        _ => RunState::Running,
    };
    let forthcoming = m.field("forthcoming").and_then(|v| v.as_bool()) == Some(true);
    Ok(WireInstanceBody {
        disk_space_total,
        disks,
        memory,
        vcpus,
        tags,
        disk_template,
        spindle_use,
        nic_networks,
        run_state,
        forthcoming,
    })
}

pub(crate) fn read_instance<'d>(v: Value<'d>, path: &Path) -> Result<WireInstance<'d>, InputError> {
    let m = as_object(v, path)?.pick(&INSTANCE_KEYS);
    let body = read_instance_body(&m, path)?;
    let nodes_path = path.field("nodes");
    let nodes = as_array(
        required(&m, "nodes", &nodes_path, "a list of node names")?,
        &nodes_path,
    )?;
    // hail reads the primary and the secondary and ignores later entries.
    let mut entries = nodes.iter();
    let primary = match entries.next() {
        None => {
            return Err(nodes_path.error("expected at least the primary node, found an empty list"))
        }
        Some(p) => str_value(p, &nodes_path.index(0))?,
    };
    let secondary = match entries.next() {
        None => None,
        Some(s) => Some(str_value(s, &nodes_path.index(1))?),
    };
    Ok(WireInstance {
        body,
        primary,
        secondary,
    })
}

fn read_new_instance<'d>(m: Object<'d>, path: &Path) -> Result<WireNewInstance<'d>, InputError> {
    let name = req_str(&m, "name", path)?;
    let required_nodes = req_int(&m, "required_nodes", path)?;
    let body = read_instance_body(&m, path)?;
    Ok(WireNewInstance {
        name,
        required_nodes,
        body,
    })
}

pub(super) fn read_request_dict<'d>(
    m: Object<'d>,
    path: &Path,
) -> Result<WireRequest<'d>, InputError> {
    let type_path = path.field("type");
    let kind = str_value(
        required(&m, "type", &type_path, "a request type")?,
        &type_path,
    )?;
    match kind {
        "allocate" => {
            let name = req_str(&m, "name", path)?;
            let group_name = opt_str(&m, "group_name", path)?;
            let restrict_to_nodes = match optional(&m, "restrict-to-nodes") {
                None => None,
                Some(v) => Some(str_list(v, &path.field("restrict-to-nodes"))?),
            };
            let required_nodes = req_int(&m, "required_nodes", path)?;
            let body = read_instance_body(&m, path)?;
            Ok(WireRequest::Allocate {
                instance: Box::new(WireNewInstance { name, required_nodes, body }),
                group_name,
                restrict_to_nodes,
            })
        }
        "relocate" => Ok(WireRequest::Relocate {
            name: req_str(&m, "name", path)?,
            required_nodes: req_int(&m, "required_nodes", path)?,
            relocate_from: req_str_list(&m, "relocate_from", path)?,
        }),
        "change-group" => Ok(WireRequest::ChangeGroup {
            instances: req_str_list(&m, "instances", path)?,
            target_groups: req_str_list(&m, "target_groups", path)?,
        }),
        "node-evacuate" => {
            let instances = req_str_list(&m, "instances", path)?;
            let mode_path = path.field("evac_mode");
            let evac_mode = enum_value(
                required(&m, "evac_mode", &mode_path, "an evacuation mode")?,
                &mode_path,
                &[
                    ("primary-only", EvacMode::ChangePrimary),
                    ("secondary-only", EvacMode::ChangeSecondary),
                    ("all", EvacMode::ChangeAll),
                ],
            )?;
            Ok(WireRequest::NodeEvacuate { instances, evac_mode })
        }
        "multi-allocate" => {
            let ip = path.field("instances");
            let list = as_array(required(&m, "instances", &ip, "a list of instance objects")?, &ip)?;
            // hail reads the outer group_name once per instance, so an
            // empty list never looks at it.
            let group_name = if list.is_empty() { None } else { opt_str(&m, "group_name", path)? };
            let mut instances = Vec::with_capacity(list.len());
            for (i, entry) in list.iter().enumerate() {
                let p = ip.index(i);
                instances.push(read_new_instance(as_object(entry, &p)?, &p)?);
            }
            Ok(WireRequest::MultiAllocate { instances, group_name })
        }
        "allocate-secondary" => Ok(WireRequest::AllocateSecondary { name: req_str(&m, "name", path)? }),
        other => Err(type_path.error(format!(
            "unknown request type \"{other}\"; expected one of \"allocate\", \"multi-allocate\", \"relocate\", \"node-evacuate\", \"change-group\", \"allocate-secondary\""
        ))),
    }
}
