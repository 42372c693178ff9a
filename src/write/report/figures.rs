//! A node's figures as the report draws them: for memory, disk, vCPUs and
//! spindles, the total, what is used, what N+1 keeps and what is free;
//! for memory also the parts of what is used (the node's own, what the
//! node reports beyond its instances, the instances').
//!
//! * Owns: the rule that a node's totals never change across a plan. A
//!   plan moves instances; it does not resize nodes nor create memory
//!   use. So the totals, the node's own memory and the memory the node
//!   reported beyond its instances (`x_mem`: the reported total, less the
//!   free memory, the instances' memory and the node's own, as the loaded
//!   data describe it) are taken from the node as read
//!   ([`Figures::after`]), and only what instances use comes from the
//!   state after the plan.
//! * Free memory is Ganeti's `unallocatedMem` (the `-p` table's `u_mem`),
//!   never the reported free memory (`f_mem`): a move changes a node's
//!   instance memory and leaves its reported free memory as it was read
//!   (and a saved state keeps it so), so counting `f_mem` as free after a
//!   plan would turn every moved instance into memory nobody uses (or
//!   into a node grown by the instance's memory).
//! * The same figures are written into the page for scripts
//!   ([`data_attributes`]; `README.md`, "Reviewing a plan").
//! * A node as the charts and tables see it ([`Shown`]): the node, its
//!   marks (offline, master, standby) and its figures.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::model::node::{unallocated_mem, Node};

/// One resource's figures. `free` is `total - used` for every resource
/// but memory, where it is Ganeti's unallocated memory (the truncated
/// total less what is used); `reserved` is part of `free` (what N+1 keeps
/// of it; 0 but for memory). `free` may be negative: more used than
/// there is.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Amount {
    pub total: f64,
    pub used: f64,
    pub reserved: f64,
    pub free: f64,
}

/// What a node's used memory is made of.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MemoryParts {
    /// The node's own memory (`n_mem`).
    pub node: f64,
    /// The memory the node reports beyond its instances and its own
    /// (`x_mem`); negative when it reports more free memory than its
    /// records leave (then not counted as used, as in `unallocatedMem`).
    pub unaccounted: f64,
    /// The memory of its primary instances (`i_mem`).
    pub instances: f64,
}

/// A node's figures: memory (MiB), disk (MiB), vCPUs (against the vCPU
/// ratio's limit) and spindles (against the spindle ratio's limit; with
/// exclusive storage, against the node's spindles).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Figures {
    pub mem: Amount,
    pub mem_parts: MemoryParts,
    pub dsk: Amount,
    /// `used` is the node's own CPUs and its primaries' vCPUs, as Ganeti
    /// counts them against the ratio's limit (`uCpu` starts at `nCpu`).
    pub cpu: Amount,
    /// The node's own CPUs (`nCpu`), part of `cpu.used`.
    pub cpu_node: f64,
    /// Without exclusive storage the primaries' spindle use
    /// (`instSpindles`) against the ratio's limit (`hiSpindles`); with it
    /// the spindles taken (`tSpindles - fSpindles`) of the node's
    /// spindles, as Ganeti checks them (`addPri`'s free spindles).
    pub spn: Amount,
    /// Whether the spindles are the node's (exclusive storage).
    pub spn_exclusive: bool,
}

impl Figures {
    /// The figures of `n` as it is.
    pub fn of(n: &Node) -> Figures {
        Figures::after(n, n)
    }

    /// The figures of `after`, a state of the node `read` after a plan:
    /// the totals and the memory that is not the instances' are `read`'s.
    pub fn after(read: &Node, after: &Node) -> Figures {
        let x_mem = read.x_mem;
        let node = read.n_mem as f64;
        let instances = after.i_mem as f64;
        let unaccounted = x_mem as f64;
        let mem_free = unallocated_mem(read.t_mem, read.n_mem, after.i_mem, x_mem) as f64;
        let mem = Amount {
            total: read.t_mem,
            used: node + unaccounted.max(0.0) + instances,
            reserved: after.r_mem as f64,
            free: mem_free,
        };
        let plain = |total: f64, used: f64| Amount {
            total,
            used,
            reserved: 0.0,
            free: total - used,
        };
        let dsk_free = after.f_dsk as f64;
        let dsk = Amount {
            total: read.t_dsk,
            used: read.t_dsk - dsk_free,
            reserved: 0.0,
            free: dsk_free,
        };
        Figures {
            mem,
            mem_parts: MemoryParts {
                node,
                unaccounted,
                instances,
            },
            dsk,
            cpu: plain(read.t_cpu * read.vcpu_ratio, after.u_cpu as f64),
            cpu_node: read.info.n_cpu as f64,
            spn: if read.excl_storage {
                let total = read.t_spindles as f64;
                plain(total, total - after.f_spindles as f64)
            } else {
                plain(read.hi_spindles, after.inst_spindles)
            },
            spn_exclusive: read.excl_storage,
        }
    }

    /// The figures in the order of [`KEYS`].
    fn values(&self) -> [f64; 20] {
        let a = |x: &Amount| [x.total, x.used, x.reserved, x.free];
        let [mt, mu, mr, mf] = a(&self.mem);
        let [dt, du, dr, df] = a(&self.dsk);
        let [ct, cu, cr, cf] = a(&self.cpu);
        let [st, su, sr, sf] = a(&self.spn);
        let p = &self.mem_parts;
        [
            mt,
            mu,
            mr,
            mf,
            p.node,
            p.unaccounted,
            p.instances,
            dt,
            du,
            dr,
            df,
            ct,
            cu,
            cr,
            cf,
            self.cpu_node,
            st,
            su,
            sr,
            sf,
        ]
    }
}

/// The names of the figures in the page (`data-` attributes), in the
/// order of [`Figures::values`].
pub const KEYS: [&str; 20] = [
    "mem-total",
    "mem-used",
    "mem-reserved",
    "mem-free",
    "mem-node",
    "mem-unaccounted",
    "mem-instances",
    "dsk-total",
    "dsk-used",
    "dsk-reserved",
    "dsk-free",
    "cpu-total",
    "cpu-used",
    "cpu-reserved",
    "cpu-free",
    "cpu-node",
    "spn-total",
    "spn-used",
    "spn-reserved",
    "spn-free",
];

/// A figure as the page's attributes write it: an integer without a
/// decimal point, anything else with the fewest digits that read back
/// the same `f64`.
pub fn number(v: f64) -> String {
    if !v.is_finite() {
        return "0".to_owned();
    }
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// The figures as ` data-KEY="VALUE"` attributes, every key of [`KEYS`].
pub fn data_attributes(f: &Figures) -> String {
    let mut out = String::new();
    for (key, v) in KEYS.iter().zip(f.values()) {
        let _ = write!(out, r#" data-{key}="{}""#, number(v));
    }
    out
}

/// How a node is marked under its bar.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Marks {
    pub offline: bool,
    pub master: bool,
    pub standby: bool,
}

impl Marks {
    /// The marks of a node: offline, master, standby.
    pub fn of(n: &Node) -> Marks {
        Marks {
            offline: n.offline,
            master: n.info.master,
            standby: n.info.has_standby_tag(),
        }
    }

    pub fn letter(self) -> &'static str {
        if self.offline {
            "o"
        } else if self.master {
            "M"
        } else if self.standby {
            "s"
        } else {
            ""
        }
    }
}

/// A node as the charts see it: the node, its marks and its figures.
pub struct Shown<'a> {
    pub node: &'a Node,
    pub marks: Marks,
    pub figures: Figures,
}

/// `nodes` as they are.
pub fn shown<'a>(nodes: &[&'a Node]) -> Vec<Shown<'a>> {
    nodes
        .iter()
        .map(|n| Shown {
            node: n,
            marks: Marks::of(n),
            figures: Figures::of(n),
        })
        .collect()
}

/// `after`, states of the nodes `before` after a plan: each with the
/// figures of [`Figures::after`] against the same node before (by name).
pub fn shown_after<'a>(before: &[&Node], after: &[&'a Node]) -> Vec<Shown<'a>> {
    let read: BTreeMap<&str, &Node> = before.iter().map(|n| (&*n.info.name, *n)).collect();
    after
        .iter()
        .map(|n| Shown {
            node: n,
            marks: Marks::of(n),
            figures: Figures::after(read.get(&*n.info.name).copied().unwrap_or(n), n),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::node::{NodeInfo, Resources};

    fn node(t_mem: f64, f_mem: i64, i_mem: i64) -> Node {
        let info = NodeInfo {
            name: "n".to_owned(),
            alias_len: 1,
            tags: Vec::new(),
            location_tags: Vec::new(),
            mig_tags: Vec::new(),
            rmig_tags: Vec::new(),
            master: false,
            n_cpu: 0,
            cpu_speed: 1.0,
        };
        let mut n = Node::create(
            info,
            0,
            0,
            Resources {
                t_mem,
                n_mem: 0,
                f_mem,
                t_dsk: 6000.0,
                f_dsk: 3000,
                t_cpu: 4.0,
                t_spindles: 1,
                f_spindles: 1,
                excl_storage: false,
                offline: false,
            },
        );
        n.i_mem = i_mem;
        n.x_mem = n.recorded_free_mem() - n.f_mem;
        n
    }

    #[test]
    fn a_plan_changes_what_instances_use_not_the_node() {
        // 4000 MiB, 1000 used by instances, 3000 reported free.
        let read = node(4000.0, 3000, 1000);
        // A plan adds an instance of 1000 MiB: the reported free memory
        // stays as read.
        let mut after = read.clone();
        after.i_mem = 2000;
        let f = Figures::after(&read, &after);
        assert_eq!(f.mem.total, 4000.0);
        assert_eq!(f.mem_parts.unaccounted, 0.0);
        assert_eq!((f.mem.used, f.mem.free), (2000.0, 2000.0));
        // Memory the node reports beyond its instances stays as read.
        let read = node(4000.0, 2000, 1000);
        let mut after = read.clone();
        after.i_mem = 0;
        let f = Figures::after(&read, &after);
        assert_eq!(f.mem_parts.unaccounted, 1000.0);
        assert_eq!((f.mem.used, f.mem.free), (1000.0, 3000.0));
    }

    #[test]
    fn numbers_are_short_and_exact() {
        assert_eq!(number(4000.0), "4000");
        assert_eq!(number(-1000.0), "-1000");
        assert_eq!(number(6.5), "6.5");
        assert_eq!(number(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(number(f64::NAN), "0");
    }
}
