//! The verdicts of every node of a state ([`N1Cache`]), computed once per
//! state and brought up to date from one state to the next of a count
//! ([`N1Slot`]): only the nodes whose verdict a change could touch are
//! evaluated again.

use smallvec::SmallVec;

use crate::score::argmin::GroupSums;
use crate::search::state::{Crash, State};

use super::{redundant_with, verdict, Depth, N1Scope, Verdict};

/// The verdicts of the nodes of a state.
pub struct N1Cache {
    /// The nodes looked at.
    scope: N1Scope,
    pub(super) verdicts: Vec<Option<Verdict>>,
    /// For each node, the nodes whose verdict depends on it.
    pub(super) dependents: Vec<SmallVec<[usize; 4]>>,
    /// Nodes that must be evaluated in full for every placement, ascending.
    pub(super) volatile: Vec<usize>,
    /// Nodes whose cached verdict is "no", ascending.
    pub(super) refusing: Vec<usize>,
    /// The running sums of the state's node values, from which full
    /// evaluations start their approximate scores.
    pub(super) sums: BaseSums,
    /// Whether every lookup of an evacuation's simulation succeeds on the
    /// state (and so on any state a placement makes of it): every
    /// instance a node lists exists, and so do its nodes.
    pub(super) lookups_sound: bool,
}

/// Whether the lists of the nodes at `keys` name only instances that
/// exist, whose primary (and a drbd instance's secondary) exist.
fn lookups_sound(state: &State, keys: impl IntoIterator<Item = usize>) -> bool {
    keys.into_iter().all(|k| {
        let Ok(node) = state.node(k as i32) else {
            return false;
        };
        node.p_list.iter().chain(node.s_list.iter()).all(|&idx| {
            let Ok(inst) = state.inst(idx) else {
                return false;
            };
            let secondary_ok = if inst.has_secondary() {
                state.node(inst.s_node).is_ok()
            } else {
                inst.s_node < 0 || state.node(inst.s_node).is_ok()
            };
            state.node(inst.p_node).is_ok() && secondary_ok
        })
    })
}

/// The running sums of a state's node values (every present node's, and
/// each group's), with the undo-log checkpoint of that state.
pub(super) struct BaseSums {
    at: usize,
    present: GroupSums,
    groups: Vec<GroupSums>,
}

impl BaseSums {
    fn new(state: &State) -> BaseSums {
        BaseSums {
            at: state.checkpoint(),
            present: state.present_sums(),
            groups: (0..state.group_count())
                .map(|g| state.group_sums(g))
                .collect(),
        }
    }

    /// Brings the sums up to date with the present state, which extends
    /// the state they were made for.
    fn refresh(&mut self, state: &State) {
        for (k, old) in state.node_values_since(self.at) {
            let node = state.node_at(k);
            let new = state.values(k);
            self.present.replace(&old, new, node.offline);
            if let Some(g) = self.groups.get_mut(node.group) {
                g.replace(&old, new, node.offline);
            }
        }
        self.at = state.checkpoint();
    }

    /// The sums of the present state (which extends theirs): every
    /// present node's, and group `g`'s.
    pub(super) fn now(&self, state: &State, g: usize) -> (GroupSums, Option<GroupSums>) {
        let mut present = self.present.clone();
        let mut group = self.groups.get(g).cloned();
        for (k, old) in state.node_values_since(self.at) {
            let node = state.node_at(k);
            let new = state.values(k);
            present.replace(&old, new, node.offline);
            if let (Some(sums), true) = (group.as_mut(), node.group == g) {
                sums.replace(&old, new, node.offline);
            }
        }
        (present, group)
    }
}

impl N1Cache {
    /// Evaluates every node of the state that `scope` covers (the state
    /// must be the search's base state, before any placement).
    pub fn new(state: &mut State, scope: &N1Scope) -> N1Cache {
        let slots = state.node_slots();
        let mut cache = N1Cache {
            scope: scope.clone(),
            verdicts: vec![None; slots],
            dependents: vec![SmallVec::new(); slots],
            volatile: Vec::new(),
            refusing: Vec::new(),
            sums: BaseSums::new(state),
            lookups_sound: lookups_sound(state, state.node_keys()),
        };
        let keys: Vec<usize> = state
            .node_keys()
            .filter(|&k| scope.covers(state.node_at(k)))
            .collect();
        for k in keys {
            cache.evaluate_node(state, k);
        }
        cache.list();
        cache
    }

    /// Brings the verdicts of an earlier state up to date with the
    /// present one, which differs from it in the nodes `changed`: those
    /// nodes, the nodes whose verdict depends on one of them and the nodes
    /// without a verdict are evaluated again; every other verdict stays,
    /// as it would within a search (see the module doc). The result is
    /// the cache [`N1Cache::new`] would build, up to which nodes a "yes"
    /// names as its witnesses.
    fn refresh(&mut self, state: &mut State, changed: &[usize]) {
        self.sums.refresh(state);
        self.lookups_sound = self.lookups_sound
            && lookups_sound(
                state,
                changed
                    .iter()
                    .copied()
                    .filter(|&k| state.node(k as i32).is_ok()),
            );
        let mut todo: Vec<usize> = self.volatile.clone();
        for &c in changed {
            if let Some(ds) = self.dependents.get(c) {
                todo.push(c);
                todo.extend_from_slice(ds);
            }
        }
        todo.sort_unstable();
        todo.dedup();
        for k in todo {
            match state.node(k as i32) {
                Ok(node) if self.scope.covers(node) => self.evaluate_node(state, k),
                _ => self.forget(k),
            }
        }
        self.list();
    }

    /// Drops node `k`'s verdict and its entries in the dependents.
    fn forget(&mut self, k: usize) {
        if let Some(v) = self.verdicts.get_mut(k).and_then(Option::take) {
            for d in v.deps {
                if let Some(ds) = self.dependents.get_mut(d) {
                    ds.retain(|x| *x != k);
                }
            }
        }
    }

    /// Evaluates node `k` (without its full simulation) and records the
    /// verdict.
    fn evaluate_node(&mut self, state: &mut State, k: usize) {
        self.forget(k);
        let v = verdict(state, k, Depth::Shortcuts, None);
        // A lookup hail crashes on: evaluate in full when the node is
        // reached, so the crash happens where hail's would.
        let v = v.unwrap_or(Verdict {
            result: None,
            blocker: None,
            deps: SmallVec::new(),
        });
        for &d in &v.deps {
            if let Some(ds) = self.dependents.get_mut(d) {
                if d != k && !ds.contains(&k) {
                    ds.push(k);
                }
            }
        }
        self.verdicts[k] = Some(v);
    }

    /// Lists the volatile and the refusing nodes again.
    fn list(&mut self) {
        self.volatile.clear();
        self.refusing.clear();
        for (k, v) in self.verdicts.iter().enumerate() {
            match v.as_ref().map(|v| v.result) {
                Some(None) => self.volatile.push(k),
                Some(Some(false)) => self.refusing.push(k),
                _ => {}
            }
        }
    }
}

/// The verdicts a search uses, computed when first needed: from scratch,
/// or by bringing those of an earlier state up to date (a count places
/// one instance after another, each changing a node or two).
#[derive(Default)]
pub struct N1Slot {
    ready: Option<N1Cache>,
    /// The verdicts of the state at an earlier checkpoint of the undo log
    /// that the present state extends.
    earlier: Option<(usize, N1Cache)>,
}

impl N1Slot {
    /// A slot for a state that extends the state at checkpoint `at`,
    /// whose verdicts `slot` holds or will hold.
    pub fn after(slot: N1Slot, at: usize) -> N1Slot {
        N1Slot {
            ready: None,
            earlier: slot.ready.map(|c| (at, c)).or(slot.earlier),
        }
    }

    /// The verdicts of the present state (the search's base state).
    pub fn get(&mut self, state: &mut State, scope: &N1Scope) -> &N1Cache {
        if self.ready.as_ref().is_some_and(|c| c.scope != *scope) {
            self.ready = None;
        }
        let cache = match self.ready.take() {
            Some(c) => c,
            None => match self.earlier.take() {
                Some((at, mut c))
                    if c.scope == *scope
                        && at <= state.checkpoint()
                        && c.verdicts.len() == state.node_slots() =>
                {
                    let changed = state.nodes_changed_since(at);
                    c.refresh(state, &changed);
                    c
                }
                _ => N1Cache::new(state, scope),
            },
        };
        self.ready.insert(cache)
    }
}

/// [`redundant`](super::redundant) from the verdicts of the state.
pub fn redundant_cached(state: &mut State, cache: &N1Cache) -> Result<bool, Crash> {
    redundant_with(state, cache, &[])
}
