//! Explanations of allocations: for each group, its policy, its outcome
//! and its rank; for its candidate nodes or pairs, the first check that
//! refused each one (counted by reason, the closest misses named with
//! their numbers), the candidates the global N+1 check dropped and the
//! node that could not have been evacuated; the winner's score component
//! by component next to the runner-up's.
//!
//! The searches are hail's own ([`crate::search::allocate`]) run with
//! their notes on; the numbers come from the same node and policy checks
//! ([`crate::model::refusal`]), asked again for the refused candidates.

use crate::model::group::Group;
use crate::model::instance::Instance;
use crate::model::policy::IPolicy;
use crate::model::refusal::Refusal;
use crate::model::types::SoftChecks;
use crate::model::TagTable;
use crate::score::metric::N_COMPONENTS;
use crate::search::allocate::{self, AllocOptions, GroupSearch, SearchError};
use crate::search::dedicated::LostAllocations;
use crate::search::globaln1;
use crate::search::solution::{AllocSolution, CandidateNote, CandidateOutcome, Metric};
use crate::search::state::{Crash, State};

use super::reasons::{self, Names, ReasonCount, Role, Tally};

/// What the instance asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct Needs {
    pub template: &'static str,
    pub nodes: i64,
    pub memory: i64,
    pub disk: i64,
    pub vcpus: i64,
    pub spindles: i64,
}

/// A candidate shown with its score, its components when known.
#[derive(Debug, Clone, PartialEq)]
pub struct Pick {
    pub nodes: Vec<String>,
    pub score: f64,
    /// The metric in words, when the ranking is not by score (dedicated
    /// allocation: lost allocations, then free disk).
    pub metric: Option<String>,
    /// The 20 statistics of the cluster with the candidate placed
    /// (hail's full computation).
    pub components: Option<[f64; N_COMPONENTS]>,
}

/// How a search's metric is shown: hail's cluster score, or dedicated
/// allocation's lost allocations.
pub trait Shown: Metric {
    /// The score, when the metric is one (else NaN).
    fn score(&self) -> f64;
    /// The metric in words, when it is not a score.
    fn words(&self) -> Option<String>;
}

impl Shown for f64 {
    fn score(&self) -> f64 {
        *self
    }
    fn words(&self) -> Option<String> {
        None
    }
}

impl Shown for LostAllocations {
    fn score(&self) -> f64 {
        f64::NAN
    }
    fn words(&self) -> Option<String> {
        let lost: Vec<String> = self.lost.iter().map(i64::to_string).collect();
        Some(format!(
            "allocations lost [{}] (one per policy spec), then {} MiB of disk left",
            lost.join(", "),
            self.disk
        ))
    }
}

/// A candidate the global N+1 check dropped.
#[derive(Debug, Clone, PartialEq)]
pub struct Dropped {
    pub nodes: Vec<String>,
    pub score: f64,
    /// The first node that could not have been evacuated with it placed.
    pub unevacuable: Option<String>,
    /// The instance that could not have left that node, and how.
    pub blocker: Option<String>,
    /// Why the instance could not leave, node by node ([`Shortage`]).
    pub shortage: Option<Shortage>,
}

impl Shortage {
    /// The numbers in words, when they explain the failure.
    pub fn words(&self) -> Option<String> {
        match (&self.instance, &self.closest) {
            _ if self.others == 0 => Some(
                "the group has no other online node to move its instances to: a one-node group never passes the N+1 check"
                    .to_owned(),
            ),
            (Some(inst), Some((node, detail))) => Some(format!(
                "{inst} fits on none of the other {} online nodes; the closest is {node}: {detail}",
                self.others
            )),
            _ => None,
        }
    }
}

/// Why an instance could not leave the node the N+1 check failed on: the
/// instance, how many other online nodes the group has, and the closest
/// of them with its refusal in words (none when one of them would take it
/// on its own: then the node's other instances, moved first, took the
/// room).
#[derive(Debug, Clone, PartialEq)]
pub struct Shortage {
    pub instance: Option<String>,
    /// The group of the node that could not be evacuated: hail's N+1
    /// check covers every node of the cluster (`GlobalN1.redundant`), so
    /// it can be another group than the candidate's.
    pub group: String,
    pub others: usize,
    pub closest: Option<(String, String)>,
}

/// How many dropped candidates are examined by name.
const DROPPED_SHOWN: usize = 3;

/// One group's part.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupPart {
    pub name: String,
    pub alloc_policy: &'static str,
    pub policy: Vec<String>,
    /// The group's place among the groups that could take the instance
    /// (1 = chosen), if it could.
    pub rank: Option<usize>,
    /// Why it ranks there or is out, in words.
    pub verdict: String,
    /// Candidates tried, those that fit, those the global N+1 check
    /// dropped.
    pub candidates: u64,
    pub fit: u64,
    pub dropped: u64,
    pub reasons: Vec<ReasonCount>,
    pub dropped_picks: Vec<Dropped>,
    pub winner: Option<Pick>,
    pub runner_up: Option<Pick>,
}

/// The explanation of one instance's placement.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    pub instance: String,
    pub needs: Needs,
    pub groups: Vec<GroupPart>,
    /// The chosen group and nodes.
    pub chosen: Option<(String, Vec<String>)>,
}

/// The instance's needs.
pub fn needs(inst: &Instance, count: i64) -> Needs {
    Needs {
        template: inst.disk_template.raw(),
        nodes: count,
        memory: inst.mem,
        disk: inst.dsk,
        vcpus: inst.vcpus,
        spindles: inst.spindle_use,
    }
}

/// The policy in words: one line per spec pair, then templates and ratios.
pub fn policy_lines(p: &IPolicy) -> Vec<String> {
    let mut out: Vec<String> = p
        .minmax
        .iter()
        .enumerate()
        .map(|(i, mm)| {
            format!(
                "spec {}: memory {}..{} MiB, disk {}..{} MiB, vCPUs {}..{}, spindles {}..{}, disks {}..{}",
                i + 1,
                mm.min.memory_size,
                mm.max.memory_size,
                mm.min.disk_size,
                mm.max.disk_size,
                mm.min.cpu_count,
                mm.max.cpu_count,
                mm.min.spindle_use,
                mm.max.spindle_use,
                mm.min.disk_count,
                mm.max.disk_count
            )
        })
        .collect();
    let templates: Vec<&str> = p.disk_templates.iter().map(|t| t.raw()).collect();
    out.push(format!(
        "disk templates {}; vCPU ratio {}; spindle ratio {}",
        templates.join(", "),
        reasons::num(p.vcpu_ratio),
        reasons::num(p.spindle_ratio)
    ));
    out
}

/// What the explanation of a search needs besides the search: the
/// groups, the tag names and the options the search ran with (its notes
/// on).
pub struct Context<'a> {
    pub groups: &'a [Group],
    pub tags: &'a TagTable,
    pub opts: &'a AllocOptions,
}

/// Explains a multi-group search of `inst` on `count` nodes
/// ([`allocate::search_groups`], run with notes on `state`).
pub fn from_search(
    ctx: &Context<'_>,
    state: &mut State,
    inst: &Instance,
    count: i64,
    search: &GroupSearch,
) -> Result<Placement, Crash> {
    let mut out = placement(inst, count);
    for (g, message) in &search.unconnected {
        out.groups.push(outside(&ctx.groups[*g], message));
    }
    let ranking = search.ranking(ctx.groups);
    for (i, (g, r)) in search.results.iter().enumerate() {
        let rank = ranking.iter().position(|&x| x == i).map(|r| r + 1);
        out.groups
            .push(group_part(ctx, state, &ctx.groups[*g], inst, r, rank)?);
    }
    if let Some(&first) = ranking.first() {
        let (g, r) = &search.results[first];
        if let Ok(Some(best)) = r.as_ref().map(|s| s.best.as_ref()) {
            out.chosen = Some((ctx.groups[*g].name.clone(), best.node_names.clone()));
        }
    }
    Ok(out)
}

/// Explains the search of `inst` in the one group `g` (a request naming
/// its group): `result` is the search on the group's state `gstate`, or
/// why there was none.
pub fn from_group(
    ctx: &Context<'_>,
    gstate: &mut State,
    g: Option<usize>,
    inst: &Instance,
    count: i64,
    result: &Result<AllocSolution<f64>, SearchError>,
) -> Result<Placement, Crash> {
    let mut out = placement(inst, count);
    let Some(g) = g else {
        return Ok(out);
    };
    let group = &ctx.groups[g];
    let rank = matches!(result, Ok(s) if s.best.is_some()).then_some(1);
    let part = group_part(ctx, gstate, group, inst, result, rank)?;
    if let (Some(1), Some(w)) = (rank, &part.winner) {
        out.chosen = Some((group.name.clone(), w.nodes.clone()));
    }
    out.groups.push(part);
    Ok(out)
}

fn placement(inst: &Instance, count: i64) -> Placement {
    Placement {
        instance: inst.name.to_string(),
        needs: needs(inst, count),
        groups: Vec::new(),
        chosen: None,
    }
}

/// A group left out before its search.
fn outside(group: &Group, message: &str) -> GroupPart {
    GroupPart {
        name: group.name.clone(),
        alloc_policy: group.alloc_policy.raw(),
        policy: policy_lines(&group.ipolicy),
        rank: None,
        verdict: message.to_owned(),
        candidates: 0,
        fit: 0,
        dropped: 0,
        reasons: Vec::new(),
        dropped_picks: Vec::new(),
        winner: None,
        runner_up: None,
    }
}

/// A refusal: the placement checked, the failing check, the node refused.
pub type Diagnosis = (Role, Refusal, usize);

/// The first check refusing the candidate (the search's order: the
/// policy, the primary, then the secondary), with the node it refused.
pub fn diagnose(
    state: &State,
    inst: &Instance,
    p: usize,
    s: Option<usize>,
    soft: SoftChecks,
) -> Option<Diagnosis> {
    let np = state.node_at(p);
    if let Err(r) = state.policy(np.group).check_detail(inst, np.excl_storage) {
        return Some((Role::Policy, r, p));
    }
    if let Err(r) = np.check_add_pri(soft, inst) {
        return Some((Role::Primary, r, p));
    }
    let s = s?;
    match state
        .node_at(s)
        .check_add_sec(false, SoftChecks::Enforce, inst, p as i32)
    {
        Err(r) => Some((Role::Secondary, r, s)),
        Ok(_) => None,
    }
}

fn node_names(state: &State, p: usize, s: Option<usize>) -> Vec<String> {
    std::iter::once(p)
        .chain(s)
        .map(|k| state.node_at(k).info.name.clone())
        .collect()
}

/// Counts the refused notes by reason.
pub fn tally_refusals(
    tags: &TagTable,
    state: &State,
    inst: &Instance,
    notes: &[CandidateNote],
    soft: SoftChecks,
) -> Vec<ReasonCount> {
    let names = Names { state, tags };
    let mut tally = Tally::default();
    // A primary refused for one pair is refused for all its pairs: its
    // diagnosis is kept while the notes go through its secondaries.
    let mut last_primary: Option<(usize, Option<Diagnosis>)> = None;
    for n in notes {
        let CandidateOutcome::Refused(mode) = n.outcome else {
            continue;
        };
        let primary_refusal = match &last_primary {
            Some((p, d)) if *p == n.primary => *d,
            _ => {
                let d = diagnose(state, inst, n.primary, None, soft);
                last_primary = Some((n.primary, d));
                d
            }
        };
        let d = match primary_refusal {
            Some(d) => Some(d),
            None => diagnose(state, inst, n.primary, n.secondary, soft),
        };
        match d {
            Some((role, r, node)) => {
                debug_assert_eq!(r.mode, mode, "diagnosis differs from the search");
                // A refused primary is one miss, whatever its secondary.
                let shown = if role == Role::Secondary {
                    node_names(state, n.primary, n.secondary)
                } else {
                    node_names(state, n.primary, None)
                };
                tally.add(role, &r, 1, shown, r.shortfall(), || {
                    reasons::describe(&r, state.node_at(node), Some(n.primary), &names)
                });
            }
            None => {
                // Not a node or policy check (the search refused it
                // otherwise): counted by its mode alone.
                let r = Refusal::mode_only(mode);
                let nodes = node_names(state, n.primary, n.secondary);
                tally.add(Role::Secondary, &r, 1, nodes, None, || {
                    format!("refused ({})", mode.name())
                });
            }
        }
    }
    tally.sorted()
}

/// Why the instance named `blocker` could not leave node `n`, with the
/// candidate's nodes `changed` placed: each other online node of the
/// group checked as hail's evacuation re-creates an instance there (the
/// group's policy, then the node as its primary, soft limits ignored).
fn shortage(
    state: &State,
    tags: &TagTable,
    changed: &[(usize, &crate::model::node::Node)],
    n: usize,
    blocker: Option<&str>,
) -> Shortage {
    let node_at = |k: usize| {
        changed
            .iter()
            .find(|(c, _)| *c == k)
            .map_or_else(|| state.node_at(k), |(_, node)| *node)
    };
    let others: Vec<usize> = state
        .group_keys(state.node_at(n).group)
        .iter()
        .copied()
        .filter(|&k| k != n && !node_at(k).offline)
        .collect();
    let inst = blocker.and_then(|name| state.instances().find(|i| &*i.name == name));
    let mut closest: Option<(f64, usize, Refusal)> = None;
    let mut fits_somewhere = false;
    if let Some(inst) = inst {
        for &k in &others {
            let node = node_at(k);
            let refusal = match state
                .policy(node.group)
                .check_detail(inst, node.excl_storage)
            {
                Err(r) => Some(r),
                Ok(()) => node.check_add_pri(SoftChecks::Ignore, inst).err(),
            };
            match refusal {
                None => fits_somewhere = true,
                Some(r) => {
                    let short = r.shortfall().unwrap_or(f64::INFINITY);
                    if closest.as_ref().is_none_or(|(c, ..)| short < *c) {
                        closest = Some((short, k, r));
                    }
                }
            }
        }
    }
    let names = Names { state, tags };
    let closest = closest.filter(|_| !fits_somewhere).map(|(_, k, r)| {
        let node = node_at(k);
        (
            node.info.name.clone(),
            reasons::describe(&r, node, None, &names),
        )
    });
    Shortage {
        instance: inst.map(|i| i.name.to_string()),
        group: String::new(),
        others: others.len(),
        closest,
    }
}

/// The statistics with a candidate placed.
fn components(
    state: &State,
    inst: &Instance,
    p: usize,
    s: Option<usize>,
    opts: &AllocOptions,
) -> Option<[f64; N_COMPONENTS]> {
    let nodes = allocate::candidate_nodes(state, inst, p, s, opts);
    let subst: Vec<(usize, &crate::model::node::Node)> =
        nodes.iter().map(|(k, n)| (*k, n)).collect();
    state.statistics_with(&subst)
}

fn group_part<M: Shown>(
    ctx: &Context<'_>,
    state: &mut State,
    group: &Group,
    inst: &Instance,
    result: &Result<AllocSolution<M>, SearchError>,
    rank: Option<usize>,
) -> Result<GroupPart, Crash> {
    let opts = ctx.opts;
    let mut part = outside(group, "");
    let sol = match result {
        Err(SearchError::Message(m)) => {
            part.verdict = format!("not searched: {m}");
            return Ok(part);
        }
        Err(SearchError::Crash(c)) => return Err(c.clone()),
        Ok(sol) => sol,
    };
    let notes = &sol.notes;
    part.candidates = notes.len() as u64;
    part.fit = notes
        .iter()
        .filter(|n| !matches!(n.outcome, CandidateOutcome::Refused(_)))
        .count() as u64;
    part.reasons = tally_refusals(ctx.tags, state, inst, notes, opts.soft);
    // The dropped candidates, best first (ties to the later one, as the
    // search orders them).
    let mut dropped: Vec<&CandidateNote> = notes
        .iter()
        .filter(|n| matches!(n.outcome, CandidateOutcome::Dropped(_)))
        .collect();
    part.dropped = dropped.len() as u64;
    dropped.reverse();
    dropped.sort_by(|a, b| score_of(a).hs_compare(&score_of(b)));
    for d in dropped.iter().take(DROPPED_SHOWN) {
        let nodes = allocate::candidate_nodes(state, inst, d.primary, d.secondary, opts);
        let changed: Vec<(usize, &crate::model::node::Node)> =
            nodes.iter().map(|(k, n)| (*k, n)).collect();
        let mut record = inst.clone();
        record.p_node = d.primary as i32;
        record.s_node = d.secondary.map_or(-1, |s| s as i32);
        let unevacuable = if opts.online_secondary_only
            && d.secondary.is_some_and(|s| state.node_at(s).offline)
        {
            None
        } else {
            globaln1::first_unevacuable(state, &changed, &record)?.map(|u| {
                let node = state.node_at(u.node).info.name.clone();
                let name = u.blocker.as_ref().map(|(inst, _)| inst.clone());
                let blocker = u.blocker.map(|(inst, how)| format!("{inst} {how}"));
                (node, u.node, blocker, name)
            })
        };
        let (unevacuable, blocker, shortage) = match unevacuable {
            Some((node, k, blocker, name)) => {
                let mut shortage = shortage(state, ctx.tags, &changed, k, name.as_deref());
                shortage.group = ctx.groups[state.node_at(k).group].name.clone();
                (Some(node), blocker, Some(shortage))
            }
            None => (None, None, None),
        };
        part.dropped_picks.push(Dropped {
            nodes: node_names(state, d.primary, d.secondary),
            score: score_of(d),
            unevacuable,
            blocker,
            shortage,
        });
    }
    if let Some(best) = &sol.best {
        let by_score = best.metric.words().is_none();
        part.winner = Some(Pick {
            nodes: best.node_names.clone(),
            score: best.metric.score(),
            metric: best.metric.words(),
            components: by_score
                .then(|| components(state, inst, best.primary, best.secondary, opts))
                .flatten(),
        });
        if !by_score {
            // The other candidates are not ranked by a score.
            part.rank = rank;
            part.verdict = verdict(group, rank, sol, part.dropped);
            return Ok(part);
        }
        // The runner-up: the best other candidate that fit and was kept
        // (the lowest score; of equals, the later, as hail's sort leaves
        // them).
        let mut runner_up: Option<&CandidateNote> = None;
        for n in notes {
            let kept = matches!(n.outcome, CandidateOutcome::Scored(_));
            if !kept || (n.primary, n.secondary) == (best.primary, best.secondary) {
                continue;
            }
            let better = runner_up.is_none_or(|r| {
                score_of(n).hs_compare(&score_of(r)) != std::cmp::Ordering::Greater
            });
            if better {
                runner_up = Some(n);
            }
        }
        if let Some(r) = runner_up {
            part.runner_up = Some(Pick {
                nodes: node_names(state, r.primary, r.secondary),
                score: score_of(r),
                metric: None,
                components: components(state, inst, r.primary, r.secondary, opts),
            });
        }
    }
    part.rank = rank;
    part.verdict = verdict(group, rank, sol, part.dropped);
    Ok(part)
}

/// Why a group ranks where it does, or is out.
fn verdict<M: Shown>(
    group: &Group,
    rank: Option<usize>,
    sol: &AllocSolution<M>,
    dropped: u64,
) -> String {
    match (rank, &sol.best) {
        (Some(1), _) => "chosen".to_owned(),
        (Some(r), Some(b)) => {
            let by = b
                .metric
                .words()
                .unwrap_or_else(|| format!("score ({})", b.metric.score()));
            format!(
                "ranked {r}: by allocation policy ({}) then {by}",
                group.alloc_policy.raw()
            )
        }
        (None, Some(_)) => format!(
            "not chosen: its allocation policy is {}",
            group.alloc_policy.raw()
        ),
        (_, None) => {
            if sol.failures.total() == 0 && dropped == 0 {
                "no solution: no candidate".to_owned()
            } else {
                format!("no solution: {}", sol.describe())
            }
        }
    }
}

/// Explains a dedicated allocation (every node with exclusive storage):
/// each group's search (`results`, run with notes on `state`), ranked as
/// hail ranks them; candidates are compared by allocations lost, not by
/// score.
pub fn from_dedicated(
    ctx: &Context<'_>,
    state: &mut State,
    inst: &Instance,
    count: i64,
    results: &[(usize, Result<AllocSolution<LostAllocations>, SearchError>)],
) -> Result<Placement, Crash> {
    let mut out = placement(inst, count);
    let ranking = allocate::rank_group_results(ctx.groups, results);
    for (i, (g, r)) in results.iter().enumerate() {
        let rank = ranking.iter().position(|&x| x == i).map(|r| r + 1);
        out.groups
            .push(group_part(ctx, state, &ctx.groups[*g], inst, r, rank)?);
    }
    if let Some(&first) = ranking.first() {
        let (g, r) = &results[first];
        if let Ok(Some(best)) = r.as_ref().map(|s| s.best.as_ref()) {
            out.chosen = Some((ctx.groups[*g].name.clone(), best.node_names.clone()));
        }
    }
    Ok(out)
}

fn score_of(n: &CandidateNote) -> f64 {
    match n.outcome {
        CandidateOutcome::Scored(s) | CandidateOutcome::Dropped(s) => s,
        CandidateOutcome::Refused(_) => f64::NAN,
    }
}
