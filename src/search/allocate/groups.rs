//! Group ranking and the searches over groups: the multi-group search
//! (`findBestAllocGroup`, `tryMGAlloc`; each group's search sharing the
//! state's data, [`super::SearchBase`]), the ranking of its results
//! (`filterMGResults`, `sortMGResults`), their description
//! (`solutionDescription`), and the search in one named group
//! (`tryGroupAlloc`, `findAllocation`).

use crate::model::group::Group;
use crate::model::instance::Instance;
use crate::model::types::AllocPolicy;
use crate::model::{find_group, NameMatch};
use crate::search::ghc_sort;
use crate::search::solution::{AllocSolution, Metric};
use crate::search::state::{Crash, State};

use super::{
    gen_alloc_nodes, try_alloc, try_alloc_with, AllocOptions, GroupsRead, SearchBase, SearchError,
};

/// Whether the group is connected to every network the instance's NICs
/// use (`hasRequiredNetworks`).
pub fn has_required_networks(group: &Group, inst: &Instance) -> bool {
    inst.nics.iter().all(|nic| match &nic.network {
        None => true,
        Some(net) => group.networks.iter().any(|g| g == net),
    })
}

/// `solutionDescription`: one line per log entry of a group's solution, or
/// the group's error.
pub fn describe_group<M: Metric>(
    group: &Group,
    result: &Result<AllocSolution<M>, SearchError>,
) -> Vec<String> {
    match result {
        Ok(sol) => sol
            .log
            .iter()
            .map(|l| format!("Group {} ({}): {}", group.name, group.alloc_policy.raw(), l))
            .collect(),
        Err(SearchError::Message(m)) => vec![format!("Group {}: error {}", group.name, m)],
        Err(SearchError::Crash(_)) => Vec::new(),
    }
}

/// The groups that own at least one node of the state, ascending, with
/// their node keys (`splitCluster`).
pub fn split_groups(state: &State, n_groups: usize) -> Vec<(usize, Vec<usize>)> {
    let mut per_group: Vec<Vec<usize>> = vec![Vec::new(); n_groups];
    for k in state.node_keys() {
        per_group[state.node_at(k).group].push(k);
    }
    per_group
        .into_iter()
        .enumerate()
        .filter(|(_, keys)| !keys.is_empty())
        .collect()
}

/// The outcome of a multi-group search.
pub struct GroupChoice<M> {
    /// The chosen group.
    pub group: usize,
    /// Its solution.
    pub solution: AllocSolution<M>,
    /// Every message: network refusals, then each group's description.
    pub messages: Vec<String>,
}

/// Ranks groups (`filterMGResults` + `sortMGResults`): groups with a
/// solution that are not unallocable, sorted stably by (policy, metric) on
/// the reversed group order; the first wins.
pub fn rank_groups<M: Metric>(
    node_groups: &[Group],
    results: Vec<(usize, Result<AllocSolution<M>, SearchError>)>,
) -> Option<(usize, AllocSolution<M>)> {
    let first = rank_group_results(node_groups, &results).first().copied()?;
    match results.into_iter().nth(first)? {
        (g, Ok(sol)) => Some((g, sol)),
        (_, Err(_)) => None,
    }
}

/// [`rank_groups`]'s order as positions in `results`, best first; groups
/// that cannot win are left out.
pub fn rank_group_results<M: Metric>(
    node_groups: &[Group],
    results: &[(usize, Result<AllocSolution<M>, SearchError>)],
) -> Vec<usize> {
    let mut good: Vec<usize> = Vec::new();
    for (i, (g, r)) in results.iter().enumerate() {
        if let Ok(sol) = r {
            if sol.best.is_some() && node_groups[*g].is_allocable() {
                good.push(i);
            }
        }
    }
    good.reverse();
    let key = |i: usize| -> (AllocPolicy, Option<&M>) {
        let (g, r) = &results[i];
        let metric = r
            .as_ref()
            .ok()
            .and_then(|s| s.best.as_ref())
            .map(|b| &b.metric);
        (node_groups[*g].alloc_policy, metric)
    };
    ghc_sort::sort_by(good, |&a, &b| {
        let (pa, ma) = key(a);
        let (pb, mb) = key(b);
        pa.cmp(&pb).then_with(|| match (ma, mb) {
            (Some(x), Some(y)) => x.hs_compare(y),
            _ => std::cmp::Ordering::Equal,
        })
    })
}

/// Every allowed group's search for one instance (the loop of
/// `findBestAllocGroup`), before ranking.
#[derive(Debug, Clone)]
pub struct GroupSearch {
    /// The groups owning nodes, with their node keys.
    pub groups: Vec<(usize, Vec<usize>)>,
    /// Whether any group was allowed.
    pub any_allowed: bool,
    /// The allowed groups refused for their networks, with hail's message.
    pub unconnected: Vec<(usize, String)>,
    /// The other allowed groups' results, in group order.
    pub results: Vec<(usize, Result<AllocSolution<f64>, SearchError>)>,
    /// With [`GroupsRead::Winner`], the groups whose search stopped rows
    /// that surely score above the placement of a group that ranks at
    /// least as well: they cannot win, and their results may lack the
    /// placement (their descriptions are then not hail's).
    pub outranked: Vec<usize>,
}

/// Searches every allowed group for the instance, scoring and checking
/// capacity over the whole state. Fails only on a lookup hail crashes on.
pub fn search_groups(
    node_groups: &[Group],
    state: &mut State,
    allowed: Option<&[usize]>,
    inst: &Instance,
    count: i64,
    opts: &AllocOptions,
) -> Result<GroupSearch, Crash> {
    // Each group's search leaves the state as it found it.
    let mut shared = SearchBase::new();
    search_groups_with(node_groups, state, allowed, inst, count, opts, &mut shared)
}

/// [`search_groups`] with the data of the state computed by earlier
/// searches on the same state (see [`SearchBase`]).
pub fn search_groups_with(
    node_groups: &[Group],
    state: &mut State,
    allowed: Option<&[usize]>,
    inst: &Instance,
    count: i64,
    opts: &AllocOptions,
    shared: &mut SearchBase,
) -> Result<GroupSearch, Crash> {
    let groups = split_groups(state, node_groups.len());
    let mut any_allowed = false;
    let mut unconnected = Vec::new();
    let mut results: Vec<(usize, Result<AllocSolution<f64>, SearchError>)> = Vec::new();
    let mut outranked = Vec::new();
    for (g, keys) in groups
        .iter()
        .filter(|(g, _)| allowed.is_none_or(|a| a.contains(g)))
    {
        any_allowed = true;
        let group = &node_groups[*g];
        if !has_required_networks(group, inst) {
            let message = format!(
                "group {} is not connected to a network required by instance {}",
                group.name, inst.name
            );
            unconnected.push((*g, message));
            continue;
        }
        // An unallocable group never wins, and its description is shown
        // when no group does: its tallies stay exact.
        let exact;
        let group_opts = if opts.winner_only && !group.is_allocable() {
            exact = AllocOptions {
                winner_only: false,
                ..opts.clone()
            };
            &exact
        } else {
            opts
        };
        // Only the winner read: a placement here scoring above the best
        // of a group searched before that ranks at least as well (by
        // policy, then score; equal scores go to the later group) cannot
        // be chosen.
        shared.outranked_above = match opts.groups_read {
            GroupsRead::Winner if group.is_allocable() => {
                outranking_score(node_groups, &results, group)
            }
            _ => None,
        };
        let r = gen_alloc_nodes(state, keys, count, opts.restrict.as_deref())
            .and_then(|nodes| try_alloc_with(state, inst, &nodes, group_opts, shared));
        shared.outranked_above = None;
        if std::mem::take(&mut shared.outranked) {
            outranked.push((results.len(), keys));
        }
        if let Err(SearchError::Crash(c)) = r {
            return Err(c);
        }
        results.push((*g, r));
    }
    // A NaN score makes hail's sort of the groups depend on their places,
    // where a group above another's placement might still come first: the
    // groups cut short are searched again in full.
    let nan = results.iter().any(|(_, r)| {
        r.as_ref()
            .is_ok_and(|sol| sol.best.as_ref().is_some_and(|b| b.metric.is_nan()))
    });
    if nan {
        for (i, keys) in std::mem::take(&mut outranked) {
            let r = gen_alloc_nodes(state, keys, count, opts.restrict.as_deref())
                .and_then(|nodes| try_alloc_with(state, inst, &nodes, opts, shared));
            if let Err(SearchError::Crash(c)) = r {
                return Err(c);
            }
            results[i].1 = r;
        }
    }
    let outranked = outranked.iter().map(|&(i, _)| results[i].0).collect();
    Ok(GroupSearch {
        groups,
        any_allowed,
        unconnected,
        results,
        outranked,
    })
}

/// The least score of the placements found so far (`results`) in
/// allocable groups whose policy is at least as good as `group`'s: a
/// placement of `group` above it cannot be chosen. `None` when there is
/// none, or it is not a finite number.
fn outranking_score(
    node_groups: &[Group],
    results: &[(usize, Result<AllocSolution<f64>, SearchError>)],
    group: &Group,
) -> Option<f64> {
    let mut least: Option<f64> = None;
    for (g, r) in results {
        let other = &node_groups[*g];
        let Ok(Some(best)) = r.as_ref().map(|sol| sol.best.as_ref()) else {
            continue;
        };
        if !other.is_allocable() || other.alloc_policy > group.alloc_policy {
            continue;
        }
        if !best.metric.is_finite() {
            return None;
        }
        least = Some(least.map_or(best.metric, |l| l.min(best.metric)));
    }
    least
}

impl GroupSearch {
    /// Every message: network refusals, then each group's description
    /// (hail's only when no group was cut short: `outranked`).
    pub fn messages(&self, node_groups: &[Group]) -> Vec<String> {
        debug_assert!(
            self.outranked.is_empty(),
            "the descriptions of groups cut short are not hail's"
        );
        let mut messages: Vec<String> = self.unconnected.iter().map(|(_, m)| m.clone()).collect();
        for (g, r) in &self.results {
            messages.extend(describe_group(&node_groups[*g], r));
        }
        messages
    }

    /// The positions in `results` of the groups that may win, best first
    /// (see [`rank_groups`]).
    pub fn ranking(&self, node_groups: &[Group]) -> Vec<usize> {
        rank_group_results(node_groups, &self.results)
    }

    /// The chosen group, when one has a solution (what [`Self::choose`]
    /// chooses, without the messages).
    pub fn winner(&self, node_groups: &[Group]) -> Option<usize> {
        let first = self.ranking(node_groups).first().copied()?;
        self.results.get(first).map(|(g, _)| *g)
    }

    /// The best group, or hail's message when none has a solution.
    pub fn choose(
        self,
        node_groups: &[Group],
        allowed: Option<&[usize]>,
    ) -> Result<GroupChoice<f64>, SearchError> {
        let messages = self.messages(node_groups);
        let first = self.ranking(node_groups).first().copied();
        match first {
            Some(i) => {
                let (group, solution) = match self.results.into_iter().nth(i) {
                    Some((g, Ok(sol))) => (g, sol),
                    // Ranked results are solutions.
                    _ => return Err(SearchError::Message(messages.join(", "))),
                };
                Ok(GroupChoice {
                    group,
                    solution,
                    messages,
                })
            }
            None if !self.any_allowed => Err(SearchError::Message(no_groups_message(
                node_groups,
                allowed,
                &self.groups,
            ))),
            None => Err(SearchError::Message(messages.join(", "))),
        }
    }
}

/// Finds the best group for the instance (`findBestAllocGroup`), scoring
/// and checking capacity over the whole state.
pub fn find_best_alloc_group(
    node_groups: &[Group],
    state: &mut State,
    allowed: Option<&[usize]>,
    inst: &Instance,
    count: i64,
    opts: &AllocOptions,
) -> Result<GroupChoice<f64>, SearchError> {
    search_groups(node_groups, state, allowed, inst, count, opts)?.choose(node_groups, allowed)
}

/// hail's message when no group is left to try.
fn no_groups_message(
    node_groups: &[Group],
    allowed: Option<&[usize]>,
    groups: &[(usize, Vec<usize>)],
) -> String {
    let allowed = match allowed {
        None => "Nothing".to_owned(),
        Some(a) => {
            let v: Vec<i64> = a.iter().map(|&g| g as i64).collect();
            format!("Just {}", crate::haskell::show::show_int_list(&v))
        }
    };
    let shown: Vec<String> = groups
        .iter()
        .map(|(g, _)| crate::model::show::show_group(&node_groups[*g]))
        .collect();
    format!(
        "no groups for evacuation: allowed groups was {allowed}, all groups: [{}]",
        shown.join(",")
    )
}

/// Allocation without a group (`tryMGAlloc`): the info log starts with the
/// selected group.
pub fn try_mg_alloc(
    node_groups: &[Group],
    state: &mut State,
    inst: &Instance,
    count: i64,
    opts: &AllocOptions,
) -> Result<AllocSolution<f64>, SearchError> {
    let choice = find_best_alloc_group(node_groups, state, None, inst, count, opts)?;
    Ok(mg_solution(node_groups, choice))
}

/// [`try_mg_alloc`]'s solution from the chosen group: the info log starts
/// with the selected group.
pub fn mg_solution(node_groups: &[Group], choice: GroupChoice<f64>) -> AllocSolution<f64> {
    let mut sol = choice.solution;
    let mut log = vec![format!(
        "Selected group: {}",
        node_groups[choice.group].name
    )];
    log.extend(choice.messages);
    sol.log = log;
    sol
}

/// The state of one group (`findAllocation`'s node and instance lists):
/// the group's nodes and the instances whose primary is among them.
pub fn group_state(base: &State, g: usize) -> State {
    let in_group: Vec<bool> = (0..base.node_slots())
        .map(|k| base.node(k as i32).is_ok_and(|n| n.group == g))
        .collect();
    base.restricted(
        |n| n.group == g,
        |i| usize::try_from(i.p_node).is_ok_and(|p| in_group.get(p).copied().unwrap_or(false)),
    )
}

/// Allocation in a named group (`tryGroupAlloc` / `findAllocation`):
/// scores and capacity are local to the group. On success the returned
/// state is the group's state (hail's next placement sees only it).
pub fn try_group_alloc(
    node_groups: &[Group],
    base: &State,
    group_name: &str,
    inst: &Instance,
    count: i64,
    opts: &AllocOptions,
) -> Result<(AllocSolution<f64>, State), SearchError> {
    let g = match find_group(node_groups, group_name) {
        NameMatch::One(g) => g,
        _ => {
            return Err(SearchError::Message(format!(
                "Wrong number of elems found with name {group_name}"
            )))
        }
    };
    let group = &node_groups[g];
    let mut state = group_state(base, g);
    if !has_required_networks(group, inst) {
        return Err(SearchError::Message(format!(
            "The group {} is not connected to a network required by instance {}",
            group.name, inst.name
        )));
    }
    let keys: Vec<usize> = state.node_keys().collect();
    let nodes = gen_alloc_nodes(&state, &keys, count, opts.restrict.as_deref())?;
    let mut sol = try_alloc(&mut state, inst, &nodes, opts)?;
    sol.log = describe_group(group, &Ok(sol.clone()));
    Ok((sol, state))
}
