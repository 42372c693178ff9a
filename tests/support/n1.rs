//! Each node's N+1 figures and each group's memory, worked out from a
//! data file by Ganeti 3.0.2's definitions with a parser of its own
//! (nothing from the `hailstone` library), for the tests that check what
//! hailstone-groups reports of a cluster as read.
//!
//! * free memory for instances: the node's reported free memory (`fMem`,
//!   the fourth field), which `Node.buildPeers` compares;
//! * needed memory (`rMem`): over the primary nodes of the instances whose
//!   secondary is this node, the most memory one primary's instances
//!   take, counting an instance when it is not `ADMIN_offline`, balances
//!   automatically (`auto_balance` `Y`) and is not forthcoming
//!   (`Instance.usesSecMem`);
//! * a node fails N+1 when it is online and free < needed;
//! * a group's memory (`hailstone-groups compress`): total (`tMem`), used
//!   by the primaries that use memory (`Instance.usesMemory`: not down,
//!   offline or forthcoming) and free as Ganeti's `unallocatedMem` leaves
//!   it (the lesser of `fMem` and what the records leave), online nodes
//!   only; an offline node's primaries count as used.
//!
//! An offline node is flagged `Y`, or has a `?` among its figures (Ganeti
//! creates it empty then).

use std::collections::BTreeMap;

/// One node of the data file.
#[derive(Debug, Clone)]
pub struct Node {
    pub name: String,
    pub group: String,
    pub offline: bool,
    pub t_mem: i64,
    pub n_mem: i64,
    pub f_mem: i64,
}

/// One instance of the data file.
#[derive(Debug, Clone)]
pub struct Inst {
    pub name: String,
    pub mem: i64,
    pub status: String,
    pub auto_balance: bool,
    pub forthcoming: bool,
    pub pri: String,
    pub sec: String,
}

/// The groups (name by UUID), nodes and instances of a data file.
#[derive(Debug, Clone, Default)]
pub struct Data {
    pub groups: BTreeMap<String, String>,
    pub nodes: Vec<Node>,
    pub insts: Vec<Inst>,
}

/// A node's N+1 figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Figures {
    pub free: i64,
    pub needed: i64,
}

fn int(s: &str) -> i64 {
    s.trim().parse::<f64>().map_or(0, |v| v as i64)
}

/// Reads the group, node and instance sections.
pub fn parse(text: &str) -> Data {
    let sections: Vec<&str> = text.split("\n\n").collect();
    let mut d = Data::default();
    let lines = |k: usize| {
        sections
            .get(k)
            .map(|s| s.lines().filter(|l| !l.is_empty()).collect::<Vec<_>>())
            .unwrap_or_default()
    };
    for line in lines(0) {
        let f: Vec<&str> = line.split('|').collect();
        if f.len() >= 2 {
            d.groups.insert(f[1].to_owned(), f[0].to_owned());
        }
    }
    for line in lines(1) {
        let f: Vec<&str> = line.split('|').collect();
        if f.len() < 9 {
            continue;
        }
        let unknown = f[1..7].contains(&"?");
        d.nodes.push(Node {
            name: f[0].to_owned(),
            group: d.groups.get(f[8]).cloned().unwrap_or_default(),
            offline: f[7] == "Y" || unknown,
            t_mem: int(f[1]),
            n_mem: int(f[2]),
            f_mem: int(f[3]),
        });
    }
    for line in lines(2) {
        let f: Vec<&str> = line.split('|').collect();
        if f.len() < 9 {
            continue;
        }
        d.insts.push(Inst {
            name: f[0].to_owned(),
            mem: int(f[1]),
            status: f[4].to_owned(),
            auto_balance: f[5] == "Y",
            forthcoming: f.get(12) == Some(&"Y"),
            pri: f[6].to_owned(),
            sec: f[7].to_owned(),
        });
    }
    d
}

impl Data {
    fn node(&self, name: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.name == name)
    }

    /// Node `name`'s N+1 figures.
    pub fn figures(&self, name: &str) -> Figures {
        let mut by_primary: BTreeMap<&str, i64> = BTreeMap::new();
        for i in &self.insts {
            if i.sec == name && i.status != "ADMIN_offline" && i.auto_balance && !i.forthcoming {
                *by_primary.entry(&i.pri).or_default() += i.mem;
            }
        }
        Figures {
            free: self.node(name).map_or(0, |n| n.f_mem),
            needed: by_primary.values().copied().max().unwrap_or(0).max(0),
        }
    }

    /// The online nodes failing N+1, with their figures, by group name;
    /// each group's nodes in the data file's order.
    pub fn n1_failing(&self) -> BTreeMap<String, Vec<(String, Figures)>> {
        let mut out: BTreeMap<String, Vec<(String, Figures)>> = BTreeMap::new();
        for n in self.nodes.iter().filter(|n| !n.offline) {
            let f = self.figures(&n.name);
            if f.free < f.needed {
                out.entry(n.group.clone())
                    .or_default()
                    .push((n.name.clone(), f));
            }
        }
        out
    }

    /// The instances whose primary and secondary nodes are in different
    /// groups, by name.
    pub fn split_instances(&self) -> Vec<String> {
        let group = |n: &str| self.node(n).map(|n| n.group.clone());
        self.insts
            .iter()
            .filter(|i| !i.sec.is_empty() && group(&i.pri) != group(&i.sec))
            .map(|i| i.name.clone())
            .collect()
    }

    /// Whether an offline node is the primary or secondary of an instance.
    pub fn offline_node_hosts(&self) -> bool {
        self.insts.iter().any(|i| {
            [&i.pri, &i.sec]
                .into_iter()
                .any(|n| self.node(n).is_some_and(|n| n.offline))
        })
    }

    /// A group's memory: total, used and free (MiB), as
    /// `hailstone-groups compress` gives it.
    pub fn group_memory(&self, group: &str) -> (i64, i64, i64) {
        let (mut total, mut used, mut free) = (0, 0, 0);
        for n in self.nodes.iter().filter(|n| n.group == group) {
            let i_mem: i64 = self
                .insts
                .iter()
                .filter(|i| i.pri == n.name && uses_memory(i))
                .map(|i| i.mem)
                .sum();
            if n.offline {
                used += i_mem;
                continue;
            }
            total += n.t_mem;
            used += i_mem;
            free += n.f_mem.min(n.t_mem - n.n_mem - i_mem);
        }
        (total, used, free)
    }
}

/// `Instance.usesMemory`: not forthcoming, and not down, offline, down
/// by error or by its user.
fn uses_memory(i: &Inst) -> bool {
    !i.forthcoming
        && !matches!(
            i.status.as_str(),
            "ADMIN_down" | "ADMIN_offline" | "ERROR_down" | "USER_down"
        )
}
