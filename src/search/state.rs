//! A mutable what-if copy of the cluster: hail's `(Node.List,
//! Instance.List)` pair, with an undo log so that a tentative placement,
//! a capacity check or an evacuation trial can be rolled back cheaply.
//!
//! Like hail's `IntMap` containers, both lists are keyed by index and may
//! have holes: a group-local search sees only its group's nodes, and an
//! instance key need not equal the instance's own `idx` field (hail adds a
//! new instance at key `size il` while its record keeps `idx = -1`). Where
//! hail would fail a lookup (`IntMap.!: key … is not an element`), the
//! state returns [`Crash`], which hailstone reports as an error instead of
//! answering.
//!
//! The state keeps each present node's metric values cached, so that a
//! full score with a few substituted nodes is one tight O(N) loop.

use crate::model::group::Group;
use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::model::policy::IPolicy;
use crate::model::types::GanetiVersion;

use crate::score::metric::{self, LocationExclusion, NodeValues};

/// A lookup hail itself would crash on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crash(pub String);

enum Undo {
    Node(usize, Box<Node>, NodeValues),
    Inst(usize, Option<Instance>),
}

/// The nodes and instances a trial changed, as it left them
/// ([`State::changes_since`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Changes {
    nodes: Vec<(usize, Node)>,
    insts: Vec<(usize, Instance)>,
}

/// The what-if state.
pub struct State {
    nodes: Vec<Option<Node>>,
    values: Vec<NodeValues>,
    insts: Vec<Option<Instance>>,
    inst_count: usize,
    policies: Vec<IPolicy>,
    /// Present node keys per group, ascending (node groups never change).
    group_keys: Vec<Vec<usize>>,
    /// Present node keys, ascending.
    present: Vec<usize>,
    /// Each node's htools offline flag (never changes).
    offline: Vec<bool>,
    /// Whether any node may have a location-exclusion map (then scores
    /// compute that component; otherwise it is 0).
    any_instance_map: bool,
    /// The Ganeti version by which a node's N+1 state is judged when the
    /// state is read back ([`State::ganeti`]).
    ganeti: GanetiVersion,
    log: Vec<Undo>,
}

/// The derived indexes of a node list: group members, present keys,
/// offline flags and whether any location-exclusion map exists.
fn node_indexes(
    nodes: &[Option<Node>],
    n_groups: usize,
) -> (Vec<Vec<usize>>, Vec<usize>, Vec<bool>, bool) {
    let present = nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.is_some())
        .map(|(k, _)| k)
        .collect();
    let offline = nodes
        .iter()
        .map(|n| n.as_ref().is_some_and(|n| n.offline))
        .collect();
    let any_map = nodes.iter().flatten().any(|n| !n.instance_map.is_empty());
    (group_keys(nodes, n_groups), present, offline, any_map)
}

fn group_keys(nodes: &[Option<Node>], n_groups: usize) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); n_groups];
    for (k, n) in nodes.iter().enumerate() {
        if let Some(n) = n {
            if let Some(g) = out.get_mut(n.group) {
                g.push(k);
            }
        }
    }
    out
}

/// A node's replacement for scoring.
pub type Subst<'a> = (usize, &'a Node);

impl State {
    /// A copy of the whole cluster (the cluster stays as loaded).
    pub fn new(cluster: &crate::model::Cluster) -> State {
        State::from_lists(
            cluster.nodes.clone(),
            cluster.instances.clone(),
            &cluster.groups,
        )
    }

    /// The whole cluster from its node and instance lists, which the state
    /// takes over: a request's search runs on the loaded lists themselves,
    /// without a copy.
    pub fn from_lists(nodes: Vec<Node>, instances: Vec<Instance>, groups: &[Group]) -> State {
        // `Option<Node>` has the size of `Node` (its `Arc` gives the niche),
        // so these collects reuse the lists' memory.
        let nodes: Vec<Option<Node>> = nodes.into_iter().map(Some).collect();
        let values = nodes
            .iter()
            .map(|n| {
                n.as_ref().map_or([0.0; metric::N_COMPONENTS], |n| {
                    metric::node_values(&n.scalars())
                })
            })
            .collect();
        let insts: Vec<Option<Instance>> = instances.into_iter().map(Some).collect();
        let inst_count = insts.iter().filter(|i| i.is_some()).count();
        let policies: Vec<IPolicy> = groups.iter().map(|g| g.ipolicy.clone()).collect();
        let (group_keys, present, offline, any_instance_map) = node_indexes(&nodes, policies.len());
        State {
            nodes,
            values,
            insts,
            inst_count,
            policies,
            group_keys,
            present,
            offline,
            any_instance_map,
            ganeti: GanetiVersion::V30,
            log: Vec::new(),
        }
    }

    /// The state of one group of a cluster, as hbal balances it: the
    /// group's nodes and the instances whose primary is among them.
    pub fn of_group(cluster: &crate::model::Cluster, g: usize) -> State {
        let in_group = |k: i32| {
            usize::try_from(k).is_ok_and(|k| cluster.nodes.get(k).is_some_and(|n| n.group == g))
        };
        let full = State::from_lists(
            cluster.nodes.clone(),
            cluster.instances.clone(),
            &cluster.groups,
        );
        full.restricted(|n| n.group == g, |i| in_group(i.p_node))
    }

    /// A copy holding only the present nodes and instances selected by the
    /// predicates (hail's `Container.filter`); keys are kept.
    pub fn restricted(
        &self,
        node_in: impl Fn(&Node) -> bool,
        inst_in: impl Fn(&Instance) -> bool,
    ) -> State {
        let nodes: Vec<Option<Node>> = self
            .nodes
            .iter()
            .map(|n| n.as_ref().filter(|n| node_in(n)).cloned())
            .collect();
        let insts: Vec<Option<Instance>> = self
            .insts
            .iter()
            .map(|i| i.as_ref().filter(|i| inst_in(i)).cloned())
            .collect();
        let inst_count = insts.iter().filter(|i| i.is_some()).count();
        let (group_keys, present, offline, any_instance_map) =
            node_indexes(&nodes, self.policies.len());
        State {
            nodes,
            values: self.values.clone(),
            insts,
            inst_count,
            policies: self.policies.clone(),
            group_keys,
            present,
            offline,
            any_instance_map,
            ganeti: self.ganeti,
            log: Vec::new(),
        }
    }

    /// Follows `version`'s semantics where the two differ on a state:
    /// how reading it back would judge a node's N+1 state.
    pub fn follow(&mut self, version: GanetiVersion) {
        self.ganeti = version;
    }

    /// The Ganeti version the state follows (3.0 unless told).
    pub fn ganeti(&self) -> GanetiVersion {
        self.ganeti
    }

    /// An independent copy of the whole state as it is now, without its
    /// undo log (for trials run side by side on separate threads).
    pub fn snapshot(&self) -> State {
        State {
            nodes: self.nodes.clone(),
            values: self.values.clone(),
            insts: self.insts.clone(),
            inst_count: self.inst_count,
            policies: self.policies.clone(),
            group_keys: self.group_keys.clone(),
            present: self.present.clone(),
            offline: self.offline.clone(),
            any_instance_map: self.any_instance_map,
            ganeti: self.ganeti,
            log: Vec::new(),
        }
    }

    /// The node at key `k` (`Container.find`).
    pub fn node(&self, k: i32) -> Result<&Node, Crash> {
        usize::try_from(k)
            .ok()
            .and_then(|k| self.nodes.get(k))
            .and_then(|n| n.as_ref())
            .ok_or_else(|| Crash(format!("node index {k} is not in the node list")))
    }

    /// The node at a key known to be present.
    pub fn node_at(&self, k: usize) -> &Node {
        match self.nodes.get(k).and_then(|n| n.as_ref()) {
            Some(n) => n,
            None => unreachable_node(k),
        }
    }

    /// The instance at key `k` (`Container.find`).
    pub fn inst(&self, k: i32) -> Result<&Instance, Crash> {
        usize::try_from(k)
            .ok()
            .and_then(|k| self.insts.get(k))
            .and_then(|i| i.as_ref())
            .ok_or_else(|| Crash(format!("instance index {k} is not in the instance list")))
    }

    /// The present nodes of group `g`, ascending.
    pub fn group_keys(&self, g: usize) -> &[usize] {
        self.group_keys.get(g).map_or(&[], |v| v.as_slice())
    }

    /// The number of groups (with or without present nodes).
    pub fn group_count(&self) -> usize {
        self.group_keys.len()
    }

    /// The nodes written since `checkpoint`, each once by key (ascending),
    /// with their metric values at `checkpoint`.
    pub fn node_values_since(&self, checkpoint: usize) -> Vec<(usize, NodeValues)> {
        let mut out: Vec<(usize, NodeValues)> = Vec::new();
        for undo in self.log.iter().skip(checkpoint) {
            if let Undo::Node(k, _, values) = undo {
                if !out.iter().any(|(seen, _)| seen == k) {
                    out.push((*k, *values));
                }
            }
        }
        out.sort_unstable_by_key(|(k, _)| *k);
        out
    }

    /// Whether any node may carry a location-exclusion map.
    pub fn any_instance_map(&self) -> bool {
        self.any_instance_map
    }

    /// Running sums of group `g`'s node values, for approximate scores.
    pub fn group_sums(&self, g: usize) -> crate::score::argmin::GroupSums {
        crate::score::argmin::GroupSums::new(
            self.group_keys(g)
                .iter()
                .map(|&k| (&self.values[k], self.offline[k])),
        )
    }

    /// Running sums of every present node's values.
    pub fn present_sums(&self) -> crate::score::argmin::GroupSums {
        crate::score::argmin::GroupSums::new(
            self.present
                .iter()
                .map(|&k| (&self.values[k], self.offline[k])),
        )
    }

    /// Number of instance slots (present or not).
    pub fn inst_slots(&self) -> usize {
        self.insts.len()
    }

    /// The instance policy of group `g`.
    pub fn policy(&self, g: usize) -> &IPolicy {
        &self.policies[g]
    }

    /// Number of instances (`Container.size`).
    pub fn inst_count(&self) -> usize {
        self.inst_count
    }

    /// Whether any of the nodes `keys` has a location tag: only then can
    /// an instance's exclusion tag pair with one there.
    pub fn any_location_tags(&self, mut keys: impl Iterator<Item = usize>) -> bool {
        keys.any(|k| !self.node_at(k).info.location_tags.is_empty())
    }

    /// Keys of the present nodes, ascending.
    pub fn node_keys(&self) -> impl Iterator<Item = usize> + '_ {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.is_some())
            .map(|(k, _)| k)
    }

    /// The present instances, in key order.
    pub fn instances(&self) -> impl Iterator<Item = &Instance> + '_ {
        self.insts.iter().flatten()
    }

    /// Number of node slots (present or not).
    pub fn node_slots(&self) -> usize {
        self.nodes.len()
    }

    /// Replaces the node at key `k` (`Container.add`).
    pub fn set_node(&mut self, k: usize, node: Node) {
        let values = metric::node_values(&node.scalars());
        if !node.instance_map.is_empty() {
            self.any_instance_map = true;
        }
        let old_values = std::mem::replace(&mut self.values[k], values);
        match self.nodes[k].replace(node) {
            Some(old) => self.log.push(Undo::Node(k, Box::new(old), old_values)),
            None => unreachable_node(k),
        }
    }

    /// Replaces or adds the instance at key `k` (`Container.add`).
    pub fn set_inst(&mut self, k: usize, inst: Instance) {
        if k >= self.insts.len() {
            self.insts.resize_with(k + 1, || None);
        }
        let old = self.insts[k].replace(inst);
        if old.is_none() {
            self.inst_count += 1;
        }
        self.log.push(Undo::Inst(k, old));
    }

    /// A point to roll back to.
    pub fn checkpoint(&self) -> usize {
        self.log.len()
    }

    /// Undoes every change since `checkpoint`.
    pub fn rollback(&mut self, checkpoint: usize) {
        while self.log.len() > checkpoint {
            match self.log.pop() {
                Some(Undo::Node(k, node, values)) => {
                    self.nodes[k] = Some(*node);
                    self.values[k] = values;
                }
                Some(Undo::Inst(k, old)) => {
                    if old.is_none() {
                        self.inst_count -= 1;
                    }
                    self.insts[k] = old;
                }
                None => break,
            }
        }
    }

    /// What changed since `checkpoint`: the nodes and instances written
    /// since, as they are now (each once, by key). Writing it back
    /// ([`State::reapply`]) after a rollback to `checkpoint` gives the same
    /// nodes, values and instances as before the rollback.
    pub fn changes_since(&self, checkpoint: usize) -> Changes {
        let mut nodes: Vec<usize> = Vec::new();
        let mut insts: Vec<usize> = Vec::new();
        for undo in self.log.iter().skip(checkpoint) {
            match undo {
                Undo::Node(k, _, _) => nodes.push(*k),
                Undo::Inst(k, _) => insts.push(*k),
            }
        }
        nodes.sort_unstable();
        nodes.dedup();
        insts.sort_unstable();
        insts.dedup();
        Changes {
            nodes: nodes
                .into_iter()
                .map(|k| (k, self.node_at(k).clone()))
                .collect(),
            // Instances are only ever added or replaced: each is present.
            insts: insts
                .into_iter()
                .filter_map(|k| Some((k, self.insts[k].clone()?)))
                .collect(),
        }
    }

    /// The keys of the nodes written since `checkpoint`, and of the nodes
    /// of each instance record written since (before and after), sorted.
    pub fn nodes_changed_since(&self, checkpoint: usize) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        let mut push = |inst: Option<&Instance>| {
            if let Some(i) = inst {
                for k in [i.p_node, i.s_node] {
                    if let Ok(k) = usize::try_from(k) {
                        out.push(k);
                    }
                }
            }
        };
        let mut nodes: Vec<usize> = Vec::new();
        for undo in self.log.iter().skip(checkpoint) {
            match undo {
                Undo::Node(k, _, _) => nodes.push(*k),
                Undo::Inst(k, old) => {
                    push(old.as_ref());
                    push(self.insts.get(*k).and_then(Option::as_ref));
                }
            }
        }
        out.extend(nodes);
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Writes changes taken by [`State::changes_since`] (through the undo
    /// log, so that they can be rolled back in turn).
    pub fn reapply(&mut self, changes: Changes) {
        for (k, node) in changes.nodes {
            self.set_node(k, node);
        }
        for (k, inst) in changes.insts {
            self.set_inst(k, inst);
        }
    }

    /// Running statistics of the present nodes, for scoring pairs.
    pub fn cluster_stats(&self) -> metric::ClusterStats {
        let keys: Vec<usize> = self.node_keys().collect();
        metric::ClusterStats::new(keys.len(), |i| {
            let k = keys[i];
            let n = self.node_at(k);
            (&self.values[k], n.offline, n.instance_map.as_slice())
        })
    }

    /// The metric values of the node at key `k`.
    pub fn values(&self, k: usize) -> &NodeValues {
        &self.values[k]
    }

    /// Forgets the undo log (the changes become the new base).
    pub fn commit(&mut self) {
        self.log.clear();
    }

    /// The 20 statistics of the present nodes (`compDetailedCV`), or
    /// `None` when no node is online.
    pub fn statistics(&self) -> Option<[f64; metric::N_COMPONENTS]> {
        let mut map = LocationExclusion::default();
        if self.any_instance_map {
            for &k in &self.present {
                let node = self.node_at(k);
                if !node.offline && !node.instance_map.is_empty() {
                    map.add_node(&node.instance_map);
                }
            }
        }
        metric::values_walk(
            self.present
                .iter()
                .map(|&k| (&self.values[k], self.offline[k])),
            map.value(),
        )
    }

    /// The full score of the present nodes (`compCV`), with some nodes
    /// replaced.
    pub fn score_with(&self, subst: &[Subst<'_>]) -> f64 {
        self.score_over(&self.present, subst)
    }

    /// The full score of the present nodes of group `g` (`compCVNodes` of
    /// that group), with some nodes replaced.
    pub fn group_score_with(&self, g: usize, subst: &[Subst<'_>]) -> f64 {
        self.score_over(self.group_keys(g), subst)
    }

    /// The full score of the nodes at `keys` (ascending), with some nodes
    /// replaced: one pass over cached values, the replaced nodes' values
    /// computed here.
    fn score_over(&self, keys: &[usize], subst: &[Subst<'_>]) -> f64 {
        self.statistics_over(keys, subst)
            .map_or(0.0, |v| metric::weighted_sum(&v))
    }

    /// The 20 statistics of the present nodes with some nodes replaced, or
    /// `None` when no node is online.
    pub fn statistics_with(&self, subst: &[Subst<'_>]) -> Option<[f64; metric::N_COMPONENTS]> {
        self.statistics_over(&self.present, subst)
    }

    /// [`State::score_over`]'s statistics.
    fn statistics_over(
        &self,
        keys: &[usize],
        subst: &[Subst<'_>],
    ) -> Option<[f64; metric::N_COMPONENTS]> {
        let mut sub: smallvec::SmallVec<[(usize, NodeValues, bool); 4]> = smallvec::SmallVec::new();
        for (k, n) in subst {
            sub.push((*k, metric::node_values(&n.scalars()), n.offline));
        }
        let map_value =
            if self.any_instance_map || subst.iter().any(|(_, n)| !n.instance_map.is_empty()) {
                let mut map = LocationExclusion::default();
                for &k in keys {
                    let node = subst
                        .iter()
                        .find(|(sk, _)| *sk == k)
                        .map_or_else(|| self.node_at(k), |(_, n)| *n);
                    if !node.offline && !node.instance_map.is_empty() {
                        map.add_node(&node.instance_map);
                    }
                }
                map.value()
            } else {
                0
            };
        sub.sort_unstable_by_key(|(k, _, _)| *k);
        metric::values_walk(
            Walk {
                keys,
                sub: &sub,
                values: &self.values,
                offline: &self.offline,
                i: 0,
                j: 0,
            },
            map_value,
        )
    }
}

/// Walks the nodes at `keys` in order, taking a replaced node's values
/// from `sub` (sorted by key) and the others from the cache.
#[derive(Clone)]
struct Walk<'a> {
    keys: &'a [usize],
    sub: &'a [(usize, NodeValues, bool)],
    values: &'a [NodeValues],
    offline: &'a [bool],
    i: usize,
    j: usize,
}

impl<'a> Iterator for Walk<'a> {
    type Item = (&'a NodeValues, bool);

    fn next(&mut self) -> Option<Self::Item> {
        let &k = self.keys.get(self.i)?;
        self.i += 1;
        while self.j < self.sub.len() && self.sub[self.j].0 < k {
            self.j += 1;
        }
        match self.sub.get(self.j) {
            Some((sk, v, off)) if *sk == k => Some((v, *off)),
            _ => Some((&self.values[k], self.offline[k])),
        }
    }
}

#[cold]
fn unreachable_node(k: usize) -> ! {
    // Callers only pass keys they obtained from the state itself.
    panic!("internal error: node key {k} is not present")
}
