//! hroller's reboot groups (`Program/Hroller.hs`, `Graph.hs`,
//! `Node.mkNodeGraph`/`mkRebootNodeGraph`): the node graph whose edges
//! join nodes that must not be down together, its three greedy colourings
//! (`LF`, `Dsatur`, `Dcolor`, each as Ganeti orders and breaks ties), the
//! smallest of them, the split of each colour class into groups whose
//! non-redundant instances can be moved away (and with
//! `--full-evacuation`, whose drbd instances can be migrated and whose
//! secondaries can be replaced), and the moves each group needs.
//!
//! Configurations are plain node and instance lists by index, changed
//! as hroller changes them, including its slip in `replaceSecondary`,
//! which stores the primary node's record (with the instance's secondary
//! removed) in the old secondary's slot.

use std::collections::BTreeMap;

use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::model::types::SoftChecks;

/// A cluster configuration: nodes and instances by index.
#[derive(Debug, Clone)]
pub struct Conf {
    pub nodes: Vec<Node>,
    pub insts: Vec<Instance>,
}

/// `Data.Graph` over the vertices `lo..=hi`: each vertex's neighbours in
/// `buildG`'s order (the last edge first), duplicates and loops kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    pub lo: usize,
    pub adj: Vec<Vec<usize>>,
}

impl Graph {
    pub fn vertices(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.adj.len()).map(|k| k + self.lo)
    }

    pub fn neighbours(&self, v: usize) -> &[usize] {
        &self.adj[v - self.lo]
    }

    fn degree(&self, v: usize) -> usize {
        self.neighbours(v).len()
    }
}

fn pri_of(insts: &[Instance], k: i32) -> Option<usize> {
    usize::try_from(k)
        .ok()
        .and_then(|k| insts.get(k))
        .and_then(|i| usize::try_from(i.p_node).ok())
}

/// How a reboot group's nodes are cleared: their running instances moved
/// away (hroller's default), or shut down with the nodes
/// (`--offline-maintenance`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Maintenance {
    Online,
    Offline,
}

/// `mkRebootNodeGraph` (online maintenance: the primaries of instances
/// sharing a secondary joined too) or `mkNodeGraph` (offline) over the
/// nodes `members` (ascending indices); `None` when there are none.
pub fn node_graph(conf: &Conf, members: &[usize], maintenance: Maintenance) -> Option<Graph> {
    let (&lo, &hi) = (members.first()?, members.last()?);
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for i in &conf.insts {
        if let (Ok(p), true) = (usize::try_from(i.p_node), i.has_secondary()) {
            if let Ok(s) = usize::try_from(i.s_node) {
                edges.push((p, s));
                edges.push((s, p));
            }
        }
    }
    if maintenance == Maintenance::Online {
        // `union`: the shared-secondary cliques, each edge once, those
        // not already among the instances' edges.
        let mut seen: std::collections::BTreeSet<(usize, usize)> = edges.iter().copied().collect();
        for n in &conf.nodes {
            let prims: Vec<usize> = n
                .secondaries()
                .filter_map(|k| pri_of(&conf.insts, k))
                .collect();
            for &a in &prims {
                for &b in &prims {
                    if seen.insert((a, b)) {
                        edges.push((a, b));
                    }
                }
            }
        }
    }
    let member = |k: usize| members.binary_search(&k).is_ok();
    let mut adj = vec![Vec::new(); hi - lo + 1];
    for (u, v) in edges {
        if member(u) && member(v) {
            adj[u - lo].push(v);
        }
    }
    for a in &mut adj {
        a.reverse();
    }
    Some(Graph { lo, adj })
}

/// `colorNode`: the smallest colour no coloured neighbour has.
fn colour_of(g: &Graph, colours: &BTreeMap<usize, usize>, v: usize) -> usize {
    let used: Vec<usize> = g
        .neighbours(v)
        .iter()
        .filter_map(|u| colours.get(u).copied())
        .collect();
    (0..).find(|c| !used.contains(c)).unwrap_or(0)
}

/// `colorLF`: by degree, ascending (stable), coloured from the last.
fn colour_lf(g: &Graph) -> BTreeMap<usize, usize> {
    let mut order: Vec<usize> = g.vertices().collect();
    order.sort_by_key(|&v| g.degree(v));
    let mut colours = BTreeMap::new();
    for &v in order.iter().rev() {
        let c = colour_of(g, &colours, v);
        colours.insert(v, c);
    }
    colours
}

/// `colorDynamicOrder`: the vertex of the largest key next (the last of
/// equal keys, as `maximumBy`).
fn colour_dynamic(
    g: &Graph,
    key: impl Fn(&BTreeMap<usize, usize>, usize) -> (usize, usize),
) -> BTreeMap<usize, usize> {
    let mut remaining: Vec<usize> = g.vertices().collect();
    let mut colours = BTreeMap::new();
    while !remaining.is_empty() {
        let mut best = 0;
        let mut best_key = key(&colours, remaining[0]);
        for (k, &v) in remaining.iter().enumerate().skip(1) {
            let kv = key(&colours, v);
            if kv >= best_key {
                best = k;
                best_key = kv;
            }
        }
        let v = remaining.remove(best);
        let c = colour_of(g, &colours, v);
        colours.insert(v, c);
    }
    colours
}

/// `colorDsatur`: the number of distinct neighbour colours, then degree.
fn colour_dsatur(g: &Graph) -> BTreeMap<usize, usize> {
    colour_dynamic(g, |colours, v| {
        let mut seen: Vec<usize> = g
            .neighbours(v)
            .iter()
            .filter_map(|u| colours.get(u).copied())
            .collect();
        seen.sort_unstable();
        seen.dedup();
        (seen.len(), g.degree(v))
    })
}

/// `colorDcolor`: the number of coloured neighbours, then degree.
fn colour_dcolor(g: &Graph) -> BTreeMap<usize, usize> {
    colour_dynamic(g, |colours, v| {
        let coloured = g
            .neighbours(v)
            .iter()
            .filter(|u| colours.contains_key(u))
            .count();
        (coloured, g.degree(v))
    })
}

/// A colouring: each colour's vertices, ascending, by colour.
pub type Classes = BTreeMap<usize, Vec<usize>>;

/// `colorVertMap`: each colour's vertices, ascending.
fn by_colour(colours: &BTreeMap<usize, usize>) -> Classes {
    let mut m: Classes = BTreeMap::new();
    for (&v, &c) in colours {
        m.entry(c).or_default().push(v);
    }
    m
}

/// The three colourings, in hroller's order, with their names.
pub fn colourings(g: &Graph) -> Vec<(&'static str, Classes)> {
    vec![
        ("LF", by_colour(&colour_lf(g))),
        ("Dsatur", by_colour(&colour_dsatur(g))),
        ("Dcolor", by_colour(&colour_dcolor(g))),
    ]
}

/// `minimumBy (comparing size)`: the first of the colourings with the
/// fewest colours, its classes by colour.
pub fn smallest(colourings: &[(&str, Classes)]) -> Vec<Vec<usize>> {
    let mut best = &colourings[0].1;
    for (_, c) in &colourings[1..] {
        if c.len() < best.len() {
            best = c;
        }
    }
    best.values().cloned().collect()
}

/// `move`: the instance's primary to `to` (soft checks ignored); on a
/// refusal nothing changes.
fn move_primary(conf: &mut Conf, idx: usize, to: usize) -> bool {
    let inst = conf.insts[idx].clone();
    let Ok(old) = usize::try_from(inst.p_node) else {
        return false;
    };
    let mut new_node = conf.nodes[to].clone();
    if new_node.add_pri(SoftChecks::Ignore, &inst).is_err() {
        return false;
    }
    let mut old_node = conf.nodes[old].clone();
    old_node.remove_pri(&inst);
    conf.nodes[to] = new_node;
    conf.nodes[old] = old_node;
    conf.insts[idx].p_node = to as i32;
    true
}

/// `migrate`: primary and secondary swap roles.
fn migrate(conf: &mut Conf, idx: usize) -> bool {
    let inst = conf.insts[idx].clone();
    let (Ok(p), Ok(s)) = (usize::try_from(inst.p_node), usize::try_from(inst.s_node)) else {
        return false;
    };
    let mut p_node = conf.nodes[p].clone();
    let mut s_node = conf.nodes[s].clone();
    p_node.remove_pri(&inst);
    s_node.remove_sec(&inst);
    if s_node.add_pri(SoftChecks::Ignore, &inst).is_err() {
        return false;
    }
    if p_node
        .add_sec(false, SoftChecks::Ignore, &inst, s as i32)
        .is_err()
    {
        return false;
    }
    conf.nodes[s] = s_node;
    conf.nodes[p] = p_node;
    conf.insts[idx].p_node = s as i32;
    conf.insts[idx].s_node = p as i32;
    true
}

/// `replaceSecondary`, as hroller writes it: the new secondary takes the
/// instance, and the old secondary's slot receives the *primary* node
/// with the instance's secondary removed; on a refusal nothing changes.
fn replace_secondary(conf: &mut Conf, idx: usize, to: usize) -> bool {
    let inst = conf.insts[idx].clone();
    let (Ok(p), Ok(old)) = (usize::try_from(inst.p_node), usize::try_from(inst.s_node)) else {
        return false;
    };
    if p == to {
        return false;
    }
    let mut new_sec = conf.nodes[to].clone();
    if new_sec
        .add_sec(false, SoftChecks::Ignore, &inst, p as i32)
        .is_err()
    {
        return false;
    }
    let mut slipped = conf.nodes[p].clone();
    slipped.remove_sec(&inst);
    conf.nodes[to] = new_sec;
    conf.nodes[old] = slipped;
    conf.insts[idx].s_node = to as i32;
    true
}

/// What a reboot group clears from its nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clearing {
    /// The non-redundant primaries, moved to another node of the group.
    NonRedundant,
    /// The secondaries, replaced by another node of the group.
    Secondaries,
}

/// The instances of node `ndx` a clearing moves, in hroller's order.
fn to_clear(conf: &Conf, how: Clearing, ndx: usize) -> Vec<usize> {
    let n = &conf.nodes[ndx];
    let keys: Vec<i32> = match how {
        Clearing::NonRedundant => n
            .primaries()
            .filter(|&k| usize::try_from(k).is_ok_and(|k| !conf.insts[k].has_secondary()))
            .collect(),
        Clearing::Secondaries => n.secondaries().collect(),
    };
    keys.into_iter()
        .filter_map(|k| usize::try_from(k).ok())
        .collect()
}

/// `locateInstances` / `findSecondaries`: every instance to the first
/// target that takes it; `None` when one finds none.
fn relocate(conf: &Conf, how: Clearing, idxs: &[usize], targets: &[usize]) -> Option<Conf> {
    let mut conf = conf.clone();
    for &idx in idxs {
        let mut placed = false;
        // A refused move leaves the configuration as it was.
        for &t in targets {
            let ok = match how {
                Clearing::NonRedundant => move_primary(&mut conf, idx, t),
                Clearing::Secondaries => replace_secondary(&mut conf, idx, t),
            };
            if ok {
                placed = true;
                break;
            }
        }
        if !placed {
            return None;
        }
    }
    Some(conf)
}

/// `greedyClearNodes`: the nodes of `ndxs`, in order, that can be cleared
/// together, each into the other targets of its group, and the
/// configuration after clearing them.
fn greedy_clear(
    how: Clearing,
    ndxs: &[usize],
    targets: &[usize],
    conf: &Conf,
) -> (Vec<usize>, Conf) {
    let mut targets = targets.to_vec();
    let mut conf = conf.clone();
    let mut cleared = Vec::new();
    for &ndx in ndxs {
        let mut others = targets.clone();
        if let Some(k) = others.iter().position(|&t| t == ndx) {
            others.remove(k);
        }
        let group = conf.nodes[ndx].group;
        let same_group: Vec<usize> = others
            .iter()
            .copied()
            .filter(|&t| conf.nodes[t].group == group)
            .collect();
        let idxs = to_clear(&conf, how, ndx);
        if let Some(next) = relocate(&conf, how, &idxs, &same_group) {
            cleared.push(ndx);
            targets = others;
            conf = next;
        }
    }
    (cleared, conf)
}

/// `partitionNodes`: `ndxs` split into groups that can each be cleared
/// (from `conf`); `None` when some node cannot be cleared at all.
pub fn partition(
    how: Clearing,
    ndxs: &[usize],
    targets: &[usize],
    conf: &Conf,
) -> Option<Vec<(Vec<usize>, Conf)>> {
    let mut remaining = ndxs.to_vec();
    let mut parts = Vec::new();
    while !remaining.is_empty() {
        let (group, after) = greedy_clear(how, &remaining, targets, conf);
        if group.is_empty() {
            return None;
        }
        remaining.retain(|n| !group.contains(n));
        parts.push((group, after));
    }
    Some(parts)
}

/// `migrateOffNodes`: every drbd primary of the nodes migrated to its
/// secondary; `None` when one cannot be.
pub fn migrate_off(ndxs: &[usize], conf: &Conf) -> Option<Conf> {
    let mut conf = conf.clone();
    let idxs: Vec<usize> = ndxs
        .iter()
        .flat_map(|&n| {
            conf.nodes[n]
                .primaries()
                .filter_map(|k| usize::try_from(k).ok())
                .filter(|&k| conf.insts[k].has_secondary())
                .collect::<Vec<_>>()
        })
        .collect();
    for idx in idxs {
        if !migrate(&mut conf, idx) {
            return None;
        }
    }
    Some(conf)
}

/// One instance's move in a reboot group: the instance, its new primary
/// and, with a secondary, its new secondary (names from the group's
/// configuration).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    pub instance: String,
    pub primary: String,
    pub secondary: Option<String>,
}

/// `getMoves`: the instances whose nodes differ between `before` and
/// `after`, except those whose primary and secondary only swapped.
pub fn moves(before: &Conf, after: &Conf) -> Vec<Move> {
    let name = |k: i32| {
        usize::try_from(k)
            .ok()
            .and_then(|k| after.nodes.get(k))
            .map_or(String::new(), |n| n.info.name.to_string())
    };
    let mut out = Vec::new();
    for (inst, new) in before.insts.iter().zip(&after.insts) {
        let has_sec = inst.has_secondary();
        let changed = inst.p_node != new.p_node || (has_sec && inst.s_node != new.s_node);
        let swapped = new.p_node == inst.s_node && new.s_node == inst.p_node;
        if changed && !swapped {
            out.push(Move {
                instance: new.name.to_string(),
                primary: name(new.p_node),
                secondary: has_sec.then(|| name(new.s_node)),
            });
        }
    }
    out
}
