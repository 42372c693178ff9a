//! The components of hbal's cluster score that come from the nodes'
//! figures, recomputed (`Cluster/Metrics.hs`, `compDetailedCVNode`): over
//! the online nodes the population standard deviation of the free memory
//! (`free_mem_cv`: free for instances over the total), of the free disk
//! (`free_disk_cv`; free spindles under exclusive storage), of the memory
//! reserved for N+1 (`reserved_mem_cv`) and of the vCPUs in use per
//! physical CPU over its speed (`vcpu_ratio_cv`), of the instances'
//! spindles over the limit (`spindles_cv`), the instances on nodes failing
//! N+1 (`n1_cnt`) and the sum of the reservations (`reserved_mem_rtotal`);
//! over the offline nodes the instances they hold (`offline_all_cnt`) and
//! their primaries (`offline_pri_cnt`). The load, tag, location and
//! forthcoming components need data the figures do not hold and are not
//! compared.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::support::figures::NodeFigures;

use super::Findings;

fn stdev(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    (xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n).sqrt()
}

/// The components recomputed from the nodes of one group, by name.
pub fn of(nodes: &[NodeFigures], n1: &BTreeMap<String, bool>) -> BTreeMap<&'static str, f64> {
    let online: Vec<&NodeFigures> = nodes.iter().filter(|n| !n.offline).collect();
    let offline: Vec<&NodeFigures> = nodes.iter().filter(|n| n.offline).collect();
    let per = |g: &dyn Fn(&NodeFigures) -> f64| online.iter().map(|n| g(n)).collect::<Vec<f64>>();
    let p_dsk = |n: &NodeFigures| {
        if n.exclusive_storage {
            if n.spindles_total == 0 {
                1.0
            } else {
                n.spindles_free as f64 / n.spindles_total as f64
            }
        } else if n.dsk_total == 0 {
            1.0
        } else {
            n.dsk_free as f64 / n.dsk_total as f64
        }
    };
    let inst_spindles = |n: &NodeFigures| {
        if n.exclusive_storage {
            0.0
        } else {
            n.spindles_used
        }
    };
    let count = |n: &NodeFigures| (n.primaries.len() + n.secondaries.len()) as f64;
    let mut out = BTreeMap::new();
    out.insert(
        "free_mem_cv",
        stdev(&per(&|n| n.mem_free as f64 / n.mem_total as f64)),
    );
    out.insert("free_disk_cv", stdev(&per(&p_dsk)));
    out.insert(
        "n1_cnt",
        online
            .iter()
            .filter(|n| n1[&n.name])
            .map(|n| count(n))
            .sum(),
    );
    out.insert(
        "reserved_mem_cv",
        stdev(&per(&|n| n.mem_reserved as f64 / n.mem_total as f64)),
    );
    out.insert("offline_all_cnt", offline.iter().map(|n| count(n)).sum());
    out.insert(
        "offline_pri_cnt",
        offline.iter().map(|n| n.primaries.len() as f64).sum(),
    );
    out.insert(
        "vcpu_ratio_cv",
        stdev(&per(&|n| {
            n.vcpus_used as f64 / n.cpu_physical / n.cpu_speed
        })),
    );
    out.insert(
        "spindles_cv",
        stdev(&per(&|n| inst_spindles(n) / n.spindle_limit)),
    );
    out.insert(
        "reserved_mem_rtotal",
        per(&|n| n.mem_reserved as f64 / n.mem_total as f64)
            .iter()
            .sum(),
    );
    out
}

/// Holds a document's components (`[{"name", "value", "weight"}]`) to the
/// recomputed ones (within a millionth, relative: the planners update
/// them step by step).
pub fn compare(
    f: &mut Findings,
    at: &str,
    doc: &Value,
    nodes: &[NodeFigures],
    n1: &BTreeMap<String, bool>,
) {
    let want = of(nodes, n1);
    let mut seen = 0;
    for c in doc.as_array().into_iter().flatten() {
        let name = c["name"].as_str().unwrap_or("?");
        let Some(w) = want.get(name) else { continue };
        seen += 1;
        let printed = c["value"].as_f64().unwrap_or(f64::NAN);
        if w.is_nan() {
            continue;
        }
        f.near(at, name, printed, *w, 1e-6 * w.abs().max(1.0));
    }
    f.same(at, "components recomputed and found", seen, want.len());
}
