//! A generated cluster as the four RAPI resources hscan reads from a
//! `file://` directory (`groups.json`, `nodes.json`, `instances.json`,
//! `info.json`: what `GET /2/groups?bulk=1` and the others return), made
//! from its data file and varied from the seed where a data file says
//! nothing: an unavailable node's live fields as `null` (offline or not
//! `vm_capable`), drained nodes among the data file's offline ones, the
//! memory an instance really uses (`oper_ram`), the hypervisor.

use serde_json::{json, Value};

use super::super::balance::datafile::{inst, node, DataFile};
use crate::generate::rng::Rng;

fn num(s: &str) -> Value {
    if let Ok(i) = s.parse::<i64>() {
        json!(i)
    } else if let Ok(f) = s.parse::<f64>() {
        json!(f)
    } else {
        json!(0)
    }
}

fn tags(s: &str) -> Value {
    json!(s.split(',').filter(|t| !t.is_empty()).collect::<Vec<_>>())
}

/// An instance spec of a policy line (`mem,cpu,disk,disk count,nic
/// count,spindle use`).
fn ispec(s: &str) -> Value {
    let f: Vec<&str> = s.split(',').collect();
    let at = |k: usize| num(f.get(k).copied().unwrap_or("0"));
    json!({
        "memory-size": at(0), "cpu-count": at(1), "disk-size": at(2),
        "disk-count": at(3), "nic-count": at(4), "spindle-use": at(5),
    })
}

/// A policy line (`name|std|min;max;...|templates|vcpu ratio|spindle
/// ratio`) as an ipolicy object.
fn ipolicy(p: &[String]) -> Value {
    let get = |k: usize| p.get(k).map_or("", String::as_str);
    let specs: Vec<&str> = get(2).split(';').collect();
    let minmax: Vec<Value> = specs
        .chunks(2)
        .filter(|c| c.len() == 2)
        .map(|c| json!({"min": ispec(c[0]), "max": ispec(c[1])}))
        .collect();
    json!({
        "minmax": minmax,
        "std": ispec(get(1)),
        "disk-templates": get(3).split(',').filter(|t| !t.is_empty()).collect::<Vec<_>>(),
        "vcpu-ratio": num(get(4)),
        "spindle-ratio": num(get(5)),
    })
}

/// The four files of the cluster `data`, varied by `r`.
pub fn files(data: &DataFile, r: &mut Rng) -> Vec<(String, String)> {
    let policies = data.sections.get(4).cloned().unwrap_or_default();
    let policy_of = |name: &str| {
        policies
            .iter()
            .find(|p| p.first().is_some_and(|n| n == name))
            .map(|p| ipolicy(p))
            .unwrap_or_else(|| json!({}))
    };
    let groups: Vec<Value> = data
        .groups()
        .iter()
        .map(|g| {
            json!({
                "name": g[0], "uuid": g[1], "alloc_policy": g[2],
                "ipolicy": policy_of(&g[0]), "tags": tags(g.get(3).map_or("", String::as_str)),
            })
        })
        .collect();
    let mut master = String::new();
    let nodes: Vec<Value> = data
        .nodes()
        .iter()
        .map(|n| {
            let flag = n[node::FLAG].as_str();
            if flag == "M" {
                master = n[node::NAME].clone();
            }
            // A data file's "Y" is offline or drained; a few online nodes
            // are not vm_capable.
            let (offline, drained) = match flag {
                "Y" => {
                    let drained = r.below(3) == 0;
                    (!drained, drained)
                }
                _ => (false, false),
            };
            let vm_capable = offline || flag == "M" || r.below(12) != 0;
            let live = !offline && vm_capable;
            let f = |k: usize| n.get(k).map_or("0", String::as_str);
            let lv = |k: usize| if live { num(f(k)) } else { Value::Null };
            let excl = f(11) == "Y";
            json!({
                "name": n[node::NAME], "offline": offline, "drained": drained,
                "vm_capable": vm_capable, "group.uuid": n[node::GROUP],
                "ndparams": {"spindle_count": num(f(9)), "exclusive_storage": excl},
                "mtotal": lv(1), "mnode": lv(2), "mfree": lv(3), "dtotal": lv(4),
                "dfree": lv(5), "ctotal": lv(6), "cnos": lv(13),
                "sptotal": if excl { lv(9) } else { Value::Null },
                "spfree": if excl { lv(12) } else { Value::Null },
                "tags": tags(f(node::TAGS)),
            })
        })
        .collect();
    let instances: Vec<Value> = data
        .instances()
        .iter()
        .map(|i| {
            let f = |k: usize| i.get(k).map_or("", String::as_str);
            let template = f(inst::TEMPLATE);
            let dsk = num(f(inst::DSK));
            let sizes = if template == "diskless" {
                Vec::new()
            } else {
                vec![dsk.clone()]
            };
            let spindles: Vec<Value> = sizes
                .iter()
                .map(|_| match f(11).parse::<i64>() {
                    Ok(s) if r.below(2) == 0 => json!(s),
                    _ => Value::Null,
                })
                .collect();
            let running = f(inst::STATUS) == "running";
            let oper_ram = if running && r.below(4) == 0 {
                json!(f(inst::MEM).parse::<i64>().unwrap_or(0) / 2)
            } else {
                Value::Null
            };
            let snodes: Vec<&str> = Some(f(inst::SNODE))
                .filter(|s| !s.is_empty())
                .into_iter()
                .collect();
            json!({
                "name": f(inst::NAME), "pnode": f(inst::PNODE), "snodes": snodes,
                "disk_usage": dsk, "disk.sizes": sizes, "disk.spindles": spindles,
                "status": f(inst::STATUS), "tags": tags(f(inst::TAGS)),
                "disk_template": template, "oper_ram": oper_ram,
                "forthcoming": f(inst::FORTHCOMING) == "Y",
                "beparams": {
                    "memory": num(f(inst::MEM)), "maxmem": num(f(inst::MEM)),
                    "vcpus": num(f(3)), "auto_balance": f(inst::AUTO_BALANCE) == "Y",
                    "spindle_use": num(f(10)),
                },
            })
        })
        .collect();
    // A live cluster always has a master: the first node where the data
    // file names none.
    if master.is_empty() {
        master = data
            .nodes()
            .first()
            .map(|n| n[node::NAME].clone())
            .unwrap_or_default();
    }
    let hypervisor = *r.pick(&["kvm", "xen-pvm", "xen-hvm"]);
    let info = json!({
        "name": "cluster.example.com", "master": master,
        "default_hypervisor": hypervisor, "tags": data.cluster_tags(),
        "ipolicy": policy_of(""),
    });
    let text = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default();
    vec![
        ("groups.json".to_owned(), text(&json!(groups))),
        ("nodes.json".to_owned(), text(&json!(nodes))),
        ("instances.json".to_owned(), text(&json!(instances))),
        ("info.json".to_owned(), text(&info)),
    ]
}
