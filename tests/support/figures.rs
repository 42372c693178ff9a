//! Every node's figures recomputed from a data file's state, by Ganeti's
//! definitions (`src/Ganeti/HTools/Node.hs`, `Loader.hs`, `Cluster.hs` of
//! Ganeti 3.0.2) and nothing from the `hailstone` library: the reader is
//! [`super::plan::parse`], the arithmetic is here.
//!
//! A state is read with the state it came from (its *base*: the input of
//! the run). A node's totals never change across a plan, and neither does
//! the memory it reports in use beyond its instances (hbal's `x_mem`,
//! Ganeti's `xMem`, computed once when the cluster is loaded): the
//! figures of a state after a plan take them from the base and the
//! placement from the state. Ganeti writes the free memory the node
//! reported (`f_mem`) unchanged into a saved state and the free disk
//! (`f_dsk`) less what the plan moved there; [`saved_state_faults`] holds a
//! saved state to exactly that.
//!
//! Memory (MiB), `Node.hs`:
//! * total `tMem`, the node's own `nMem`, reported free `fMem`;
//! * used by instances `iMem`: the memory of the primaries that use
//!   memory (`Instance.usesMemory`: running, `ERROR_up`, `ERROR_nodedown`,
//!   `ERROR_nodeoffline`, `ERROR_wrongnode`; not forthcoming);
//! * unaccounted `xMem` = `tMem - nMem - iMem - fMem` of the base;
//! * free for instances (`unallocatedMem`) = `tMem - nMem - iMem - max 0 xMem`;
//! * reserved for N+1 (`rMem`): the most memory of one primary's
//!   instances that have this node as secondary and count for it
//!   (`usesSecMem`: auto-balanced and not `ADMIN_offline`);
//! * available (`availMem`) = `max 0 (free - reserved)`;
//! * failing N+1: `free <= reserved` (`Node.hs`' check after every
//!   change); as Ganeti 3.0.2 loads a cluster (`buildPeers`):
//!   `fMem < rMem`.
//!
//! Disk (MiB): total `tDsk`, free `fDsk`, used `tDsk - fDsk`, and the
//! instances' (`drbd` and `plain` disks, primary and secondary).
//! vCPUs: `uCpu` = the node's own `nCpu` + the vCPUs of the primaries
//! that are not `ADMIN_offline`; the limit `hiCpu` = ⌊vcpu ratio × tCpu⌋.
//! Spindles: the instances' `spindle_use` on local storage (`instSpindles`)
//! against the ratio's limit `hiSpindles` = spindle ratio × spindles;
//! with exclusive storage, the spindles taken (`tSpindles - fSpindles`),
//! the free ones less the spindles of the disks the plan moved there,
//! whatever their template (`Node.calcNewFreeSpindles`); without, the
//! free spindles the file gives, and 0 once an instance joined or left
//! the node (Ganeti's same function).

use std::collections::BTreeMap;

use super::plan::{Cluster, Inst, Node};

/// Ganeti's default policy ratios (`Types.defIPolicy`): a group without a
/// policy line has these.
const DEFAULT_VCPU_RATIO: f64 = 4.0;
const DEFAULT_SPINDLE_RATIO: f64 = 32.0;

/// One node's figures in one state.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeFigures {
    pub name: String,
    /// The group's name.
    pub group: String,
    pub offline: bool,
    pub master: bool,
    /// Tagged `htools:standby:...` (powered off by hsqueeze).
    pub standby: bool,
    // Memory, MiB.
    pub mem_total: i64,
    pub mem_node: i64,
    pub mem_reported_free: i64,
    pub mem_unaccounted: i64,
    pub mem_instances: i64,
    pub mem_free: i64,
    pub mem_reserved: i64,
    pub mem_available: i64,
    /// `free <= reserved`: Ganeti's verdict after a change on the node.
    pub n1_fail: bool,
    /// `reported free < reserved`: Ganeti 3.0.2's verdict when it loads
    /// the cluster.
    pub n1_fail_loaded: bool,
    // Disk, MiB.
    pub dsk_total: i64,
    pub dsk_free: i64,
    pub dsk_used: i64,
    pub dsk_instances: i64,
    // vCPUs.
    pub cpu_physical: f64,
    pub cpu_speed: f64,
    pub cpu_node: i64,
    pub vcpus_used: i64,
    pub vcpus_instances: i64,
    pub vcpu_limit: i64,
    /// The vCPU ratio times the physical CPUs, not rounded.
    pub vcpu_ratio_limit: f64,
    // Spindles.
    pub spindles_total: i64,
    pub spindles_free: i64,
    pub spindles_used: f64,
    pub spindle_limit: f64,
    pub exclusive_storage: bool,
    // Instances.
    pub primaries: Vec<String>,
    pub secondaries: Vec<String>,
}

/// Whether the instance's memory counts on its primary
/// (`Instance.usesMemory`).
pub fn uses_memory(i: &Inst) -> bool {
    !i.forthcoming
        && !matches!(
            i.status.as_str(),
            "ADMIN_down" | "ADMIN_offline" | "ERROR_down" | "USER_down"
        )
}

/// Whether the instance is not administratively offline
/// (`Instance.notOffline`).
pub fn not_offline(i: &Inst) -> bool {
    i.status != "ADMIN_offline"
}

/// Whether the instance's disks take space on its nodes (`drbd`, `plain`).
pub fn uses_local_storage(i: &Inst) -> bool {
    matches!(i.template.as_str(), "drbd" | "plain")
}

/// The memory a secondary keeps for the instance (`usesSecMem`).
fn sec_mem(i: &Inst) -> i64 {
    if not_offline(i) && i.auto_balance && !i.forthcoming {
        i.mem
    } else {
        0
    }
}

/// The policy ratios of a node's group: the group's policy line, else
/// Ganeti's default policy.
fn ratios(c: &Cluster, n: &Node) -> (f64, f64) {
    c.policies
        .get(&n.group)
        .map_or((DEFAULT_VCPU_RATIO, DEFAULT_SPINDLE_RATIO), |p| {
            (p.vcpu_ratio, p.spindle_ratio)
        })
}

/// The group's name of a UUID.
fn group_name(c: &Cluster, uuid: &str) -> String {
    c.groups
        .iter()
        .find(|(_, u)| *u == uuid)
        .map_or_else(|| uuid.to_owned(), |(n, _)| n.clone())
}

/// What the instances of `c` put on each node: memory of primaries,
/// reservations by primary, local disk, vCPUs, spindles.
#[derive(Default)]
struct Load {
    i_mem: i64,
    peers: BTreeMap<String, i64>,
    dsk: i64,
    vcpus: i64,
    spindles: i64,
    excl_spindles: i64,
    primaries: Vec<String>,
    secondaries: Vec<String>,
}

fn loads(c: &Cluster) -> BTreeMap<String, Load> {
    let mut out: BTreeMap<String, Load> = BTreeMap::new();
    for name in &c.inst_order {
        let i = &c.insts[name];
        if i.forthcoming {
            continue;
        }
        let local = uses_local_storage(i);
        {
            let p = out.entry(i.pri.clone()).or_default();
            p.primaries.push(name.clone());
            if uses_memory(i) {
                p.i_mem += i.mem;
            }
            if not_offline(i) {
                p.vcpus += i.vcpus;
            }
            if local {
                p.dsk += i.dsk;
                p.spindles += i.spindle_use;
            }
            p.excl_spindles += i.spindles.unwrap_or(0);
        }
        if !i.sec.is_empty() {
            let s = out.entry(i.sec.clone()).or_default();
            s.secondaries.push(name.clone());
            *s.peers.entry(i.pri.clone()).or_default() += sec_mem(i);
            if local {
                s.dsk += i.dsk;
                s.spindles += i.spindle_use;
            }
            s.excl_spindles += i.spindles.unwrap_or(0);
        }
    }
    out
}

/// The figures of every node of `state`, whose node constants (totals,
/// reported free memory, the unaccounted memory) come from `base`, the
/// state the run started from (`state` itself for the input). A node of
/// `state` that `base` lacks takes its own constants.
pub fn figures(state: &Cluster, base: &Cluster) -> BTreeMap<String, NodeFigures> {
    let now = loads(state);
    let before = loads(base);
    let empty = Load::default();
    let mut out = BTreeMap::new();
    for name in &state.node_order {
        let n = &state.nodes[name];
        let b = base.nodes.get(name).unwrap_or(n);
        let load = now.get(name).unwrap_or(&empty);
        let load0 = if base.nodes.contains_key(name) {
            before.get(name).unwrap_or(&empty)
        } else {
            load
        };
        let t_mem = b.t_mem as i64;
        let x_mem = t_mem - b.n_mem - load0.i_mem - b.f_mem;
        let free = t_mem - b.n_mem - load.i_mem - x_mem.max(0);
        let reserved = load.peers.values().copied().max().unwrap_or(0).max(0);
        let (vcpu_ratio, spindle_ratio) = ratios(state, n);
        let dsk_free = b.f_dsk + load0.dsk - load.dsk;
        let (spindles_free, spindles_used) = if b.excl_storage {
            let free = b.free_spindles + load0.excl_spindles - load.excl_spindles;
            (free, (b.spindles - free) as f64)
        } else {
            // Ganeti sets a node's free spindles to 0 whenever an instance
            // joins or leaves it without exclusive storage
            // (`calcNewFreeSpindles`); untouched, the file's stay.
            let touched = sorted(&load.primaries) != sorted(&load0.primaries)
                || sorted(&load.secondaries) != sorted(&load0.secondaries);
            (
                if touched { 0 } else { b.free_spindles },
                load.spindles as f64,
            )
        };
        out.insert(
            name.clone(),
            NodeFigures {
                name: name.clone(),
                group: group_name(state, &n.group),
                offline: n.offline,
                master: n.master,
                standby: n.tags.iter().any(|t| t.starts_with("htools:standby:")),
                mem_total: t_mem,
                mem_node: b.n_mem,
                mem_reported_free: b.f_mem,
                mem_unaccounted: x_mem,
                mem_instances: load.i_mem,
                mem_free: free,
                mem_reserved: reserved,
                mem_available: (free - reserved).max(0),
                n1_fail: free <= reserved,
                n1_fail_loaded: b.f_mem < reserved,
                dsk_total: b.t_dsk as i64,
                dsk_free,
                dsk_used: b.t_dsk as i64 - dsk_free,
                dsk_instances: load.dsk,
                cpu_physical: b.t_cpu,
                cpu_speed: b.cpu_speed,
                cpu_node: b.n_cpu,
                vcpus_used: b.n_cpu + load.vcpus,
                vcpus_instances: load.vcpus,
                vcpu_limit: (vcpu_ratio * b.t_cpu).floor() as i64,
                vcpu_ratio_limit: vcpu_ratio * b.t_cpu,
                spindles_total: b.spindles,
                spindles_free,
                spindles_used,
                spindle_limit: spindle_ratio * b.spindles as f64,
                exclusive_storage: b.excl_storage,
                primaries: load.primaries.clone(),
                secondaries: load.secondaries.clone(),
            },
        );
    }
    out
}

/// The figures of the input state itself.
pub fn initial(state: &Cluster) -> BTreeMap<String, NodeFigures> {
    figures(state, state)
}

/// How a state saved after a plan departs from what the plan can change:
/// every node of the base is still there (`whole`; else the saved state
/// is one group's, as hbal saves it) with the same totals, node memory,
/// reported free memory, CPUs and spindles; its free disk is the base's
/// less the disk the plan moved onto it; and no node appears from
/// nowhere.
pub fn saved_state_faults(saved: &Cluster, base: &Cluster, whole: bool) -> Vec<String> {
    saved_rows_faults(saved, saved, base, whole)
}

/// [`saved_state_faults`] of the node rows of `saved` whose cluster after
/// the plan is `state` (the whole cluster, when `saved` holds one group).
pub fn saved_rows_faults(
    saved: &Cluster,
    state: &Cluster,
    base: &Cluster,
    whole: bool,
) -> Vec<String> {
    let mut bad = Vec::new();
    let figs = figures(state, base);
    for (name, b) in &base.nodes {
        let Some(s) = saved.nodes.get(name) else {
            if whole {
                bad.push(format!("node {name} is missing from the saved state"));
            }
            continue;
        };
        let pairs: [(&str, f64, f64); 8] = [
            ("total memory", b.t_mem, s.t_mem),
            ("node memory", b.n_mem as f64, s.n_mem as f64),
            ("reported free memory", b.f_mem as f64, s.f_mem as f64),
            ("total disk", b.t_dsk, s.t_dsk),
            ("physical CPUs", b.t_cpu, s.t_cpu),
            ("spindles", b.spindles as f64, s.spindles as f64),
            ("node CPUs", b.n_cpu as f64, s.n_cpu as f64),
            ("free disk", figs[name].dsk_free as f64, s.f_dsk as f64),
        ];
        for (what, want, got) in pairs {
            if want != got {
                bad.push(format!(
                    "node {name}: {what} {got} in the saved state, {want} by the base and the plan"
                ));
            }
        }
        if figs[name].spindles_free != s.free_spindles {
            bad.push(format!(
                "node {name}: free spindles {} in the saved state, {} by the base and the plan",
                s.free_spindles, figs[name].spindles_free
            ));
        }
    }
    for name in saved.nodes.keys() {
        if !base.nodes.contains_key(name) {
            bad.push(format!("node {name} of the saved state is not in the base"));
        }
    }
    bad
}

fn sorted(v: &[String]) -> Vec<String> {
    let mut v = v.to_vec();
    v.sort();
    v
}

/// The nodes whose instances differ between two states (Ganeti
/// recomputes the N+1 verdict of a node only when an instance joins or
/// leaves it).
pub fn touched(
    before: &BTreeMap<String, NodeFigures>,
    after: &BTreeMap<String, NodeFigures>,
) -> Vec<String> {
    after
        .iter()
        .filter(|(name, a)| {
            before.get(*name).is_none_or(|b| {
                sorted(&a.primaries) != sorted(&b.primaries)
                    || sorted(&a.secondaries) != sorted(&b.secondaries)
            })
        })
        .map(|(name, _)| name.clone())
        .collect()
}
