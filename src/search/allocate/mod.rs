//! Allocation of a new instance (`Cluster.genAllocNodes`, `tryAlloc`,
//! `findBestAllocGroup`, `tryMGAlloc`, `tryGroupAlloc`, `allocList`).
//!
//! Candidates are enumerated in hail's order (nodes by index; pairs
//! primary-major), each checked with the policy and the node capacity
//! primitives and scored; successes are sorted by score (ties to the later
//! candidate) and the first one that keeps the cluster N+1 redundant wins.
//! For pairs this happens per primary node, and the per-primary winners
//! are combined. Groups are then ranked by allocation policy and score.
//!
//! Cost: single-node placement scores each of N candidates with a full
//! O(N) score (hail's bits require it): O(N²). Pairs are scored with the
//! running statistics in O(1) each, O(G²) per group of G nodes at worst;
//! a [`PairPlan`](bounded::PairPlan) orders each list's secondaries by a
//! lower bound of their part of any row's score
//! ([`crate::score::pairbound`]), so that a row (one primary) scores only
//! the secondaries that may reach its minimum and still finds hail's exact
//! best pair, tie included, and its exact tallies
//! ([`bounded_scan`](bounded::bounded_scan)). The capacity check runs for
//! each primary's best candidate (see [`crate::search::globaln1`]), or,
//! when only the placement is read ([`AllocOptions::winner_only`]), for
//! the rows that could still win.
//!
//! The groups of one multi-group search ([`search_groups`]) see the same
//! state (each group's search rolls its trial placements back), so what
//! depends only on the state is computed once for them ([`SearchBase`]):
//! hail's running statistics of the cluster for pairs, the running sums
//! of the single-node shortcut, and the capacity check's verdicts. When
//! only the chosen group is read ([`GroupsRead::Winner`]), a group's pair
//! search also stops each row once its floor lies above the placement of
//! a group searched before it that ranks as well.
//!
//! * [`single`]: the single-node search and its shortcut by bounds.
//! * [`pairs`]: the pair search: every primary's row scanned (on several
//!   threads for a large list) and settled with the capacity check.
//! * [`row`]: one primary's row: its statistics, each pair's score, each
//!   secondary's check and values (once per search: [`row::SecCache`]).
//! * [`bounded`]: the bounded scan of a row by its list's plan
//!   ([`PairPlan`](bounded::PairPlan)).
//! * [`groups`]: group ranking and the multi-group and named-group
//!   searches.
//! * [`secondary`]: the search of allocate-secondary.
//! * here: the options, the candidate lists and errors, the search's entry
//!   and the choice of the winner among scored candidates, and the
//!   candidate notes.

mod bounded;
mod groups;
mod pairs;
mod row;
mod secondary;
mod single;
#[cfg(test)]
mod tests;

use crate::model::instance::{Instance, NO_NODE};
use crate::model::node::Node;
use crate::model::types::SoftChecks;
use crate::score::argmin::GroupSums;
use crate::score::base::ScoreBase;
use crate::score::metric;
use crate::search::ghc_sort;
use crate::search::globaln1::{self, N1Scope, N1Slot};
use crate::search::moves::location_score;
use crate::search::solution::{AllocSolution, CandidateNote, CandidateOutcome, Metric, Placement};
use crate::search::state::{Crash, State};
use crate::search::AlgorithmOptions;

pub use groups::{
    describe_group, group_state, has_required_networks, mg_solution, rank_group_results,
    rank_groups, search_groups, search_groups_with, split_groups, try_group_alloc, try_mg_alloc,
    GroupSearch,
};
pub(crate) use pairs::{scan_threads, PARALLEL_PAIRS};
pub use secondary::try_allocate_secondary;

use pairs::try_pairs;
use single::try_single;

/// How one allocation search runs: the command line's
/// [`AlgorithmOptions`] with the request's node restriction, and the
/// search's own switches.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AllocOptions {
    /// Whether primaries are placed with the soft checks
    /// (`--ignore-soft-errors` turns them off).
    pub soft: SoftChecks,
    /// The global N+1 check (off with `--no-capacity-checks`).
    pub capacity_checks: bool,
    /// Node whitelist: `--restrict-allocation-to`, else the request's
    /// `restrict-to-nodes`.
    pub restrict: Option<Vec<String>>,
    /// Refuse placements whose secondary is offline, drained or not
    /// vm_capable. hail's allocate-secondary offers every node of the group
    /// and may pick a drained one, which Ganeti must not use; hailstone
    /// drops such a placement the way the capacity check drops one (it
    /// counts as `FailN1`) and takes the next best.
    pub online_secondary_only: bool,
    /// Record every candidate's outcome in the solution's `notes` (for an
    /// explain mode); off in normal runs.
    pub explain: bool,
    /// Only the placement of a search that finds one is read, not its
    /// tallies: a pair search then checks the capacity of a primary's
    /// best pair only while that pair could still beat or tie the best
    /// placement found (rows in ascending order of their best score), and
    /// the rows left unchecked count no `FailN1`. The tallies of a search
    /// without a placement stay exact. For multi-allocate and the group
    /// choice of a group change, whose answers show no tally of a group
    /// that wins.
    pub winner_only: bool,
    /// Scan on the calling thread only: the caller already runs searches
    /// side by side (the compression trials). The answer is the same.
    pub one_thread: bool,
    /// The nodes the capacity check looks at (all, for hail).
    pub n1_scope: globaln1::N1Scope,
    /// Which groups' results of a multi-group search are read.
    pub groups_read: GroupsRead,
}

/// Which groups' results of a multi-group search ([`search_groups`]) the
/// caller reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum GroupsRead {
    /// Every group's, as hail describes them (a group change's hook, the
    /// log of an allocation).
    #[default]
    Every,
    /// Only the chosen group (a group change without a hook). A pair
    /// search then stops a row once it surely scores above the placement
    /// of a group searched before that ranks at least as well: such a
    /// group may be left without its placement ([`GroupSearch::outranked`]).
    Winner,
}

impl AllocOptions {
    /// The options of a search for a request whose own node restriction
    /// (`restrict-to-nodes`) is `request_restrict`; the command line's
    /// `--restrict-allocation-to` replaces it.
    pub fn new(algorithm: &AlgorithmOptions, request_restrict: Option<Vec<String>>) -> Self {
        AllocOptions {
            soft: algorithm.soft,
            capacity_checks: algorithm.capacity_checks,
            restrict: algorithm
                .restrict_allocation_to
                .clone()
                .or(request_restrict),
            online_secondary_only: false,
            explain: false,
            winner_only: false,
            one_thread: false,
            n1_scope: globaln1::N1Scope::default(),
            groups_read: GroupsRead::Every,
        }
    }
}

/// Candidate nodes (`AllocNodes`).
#[derive(Debug, Clone, PartialEq)]
pub enum AllocNodes {
    /// Single-node placement over these nodes.
    Single(Vec<usize>),
    /// Pairs: each primary with its possible secondaries.
    Pairs(PairList),
}

/// Candidate pairs without a list per primary (hail's `Right` alloc nodes):
/// each primary's secondaries are the nodes of one shared list, minus the
/// primary itself, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct PairList {
    lists: Vec<Vec<usize>>,
    primaries: Vec<(usize, usize)>,
}

impl PairList {
    /// One primary with an explicit list of secondaries.
    pub fn single(primary: usize, secondaries: Vec<usize>) -> PairList {
        PairList {
            lists: vec![secondaries],
            primaries: vec![(primary, 0)],
        }
    }

    /// Every node some primary may take as secondary (with repeats).
    fn all_secondaries(&self) -> impl Iterator<Item = usize> + '_ {
        self.lists.iter().flatten().copied()
    }

    /// Whether no primary has a secondary.
    pub fn is_empty(&self) -> bool {
        self.primaries.is_empty()
    }

    /// The primaries, in order, with their secondaries.
    pub fn iter(&self) -> impl Iterator<Item = (usize, Secondaries<'_>)> + '_ {
        self.iter_indexed().map(|(p, s, _)| (p, s))
    }

    /// [`PairList::iter`] with the index of each primary's list.
    fn iter_indexed(&self) -> impl Iterator<Item = (usize, Secondaries<'_>, usize)> + '_ {
        self.primaries.iter().map(|&(p, l)| {
            (
                p,
                Secondaries {
                    list: &self.lists[l],
                    skip: p,
                },
                l,
            )
        })
    }
}

/// A primary's secondaries: a shared list without the primary.
#[derive(Debug, Clone, Copy)]
pub struct Secondaries<'a> {
    list: &'a [usize],
    skip: usize,
}

impl Secondaries<'_> {
    /// The secondaries, in order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        let skip = self.skip;
        self.list.iter().copied().filter(move |&s| s != skip)
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.iter().count()
    }
}

/// Why a search produced no solution list at all.
#[derive(Debug, Clone, PartialEq)]
pub enum SearchError {
    /// A message hail reports for the group or the request.
    Message(String),
    /// A lookup hail itself crashes on.
    Crash(Crash),
}

impl From<Crash> for SearchError {
    fn from(c: Crash) -> Self {
        SearchError::Crash(c)
    }
}

/// The candidate nodes among `keys` (`genAllocNodes`): online nodes passing
/// the restriction, alone or paired with the other such nodes of their
/// group.
pub fn gen_alloc_nodes(
    state: &State,
    keys: &[usize],
    count: i64,
    restrict: Option<&[String]>,
) -> Result<AllocNodes, SearchError> {
    let all: Vec<usize> = keys
        .iter()
        .copied()
        .filter(|&k| {
            let n = state.node_at(k);
            !n.offline && restrict.is_none_or(|r| r.contains(&n.info.name))
        })
        .collect();
    match count {
        1 => Ok(AllocNodes::Single(all)),
        2 => {
            // The candidates of each group, in order; a primary pairs with
            // the others of its group, and one alone in its group has none.
            let mut groups: Vec<usize> = Vec::new();
            let mut lists: Vec<Vec<usize>> = Vec::new();
            for &k in &all {
                let g = state.node_at(k).group;
                match groups.iter().position(|&x| x == g) {
                    Some(i) => lists[i].push(k),
                    None => {
                        groups.push(g);
                        lists.push(vec![k]);
                    }
                }
            }
            let primaries = all
                .iter()
                .filter_map(|&p| {
                    let g = state.node_at(p).group;
                    let i = groups.iter().position(|&x| x == g)?;
                    (lists[i].len() > 1).then_some((p, i))
                })
                .collect();
            Ok(AllocNodes::Pairs(PairList { lists, primaries }))
        }
        _ => Err(SearchError::Message(
            "Unsupported number of nodes, only one or two  supported".to_owned(),
        )),
    }
}

/// A candidate's nodes: primary, and secondary for pairs.
type CandidateId = (usize, Option<usize>);

/// A successful candidate before the capacity check.
#[derive(Debug)]
struct Candidate {
    primary: usize,
    secondary: Option<usize>,
    score: f64,
}

/// What the searches of one instance in several groups share: data of the
/// whole state, computed when first needed, from the state as every
/// group's search finds it. A search leaves the state as it found it (its
/// capacity checks roll their trial placements back), so the groups of
/// one [`search_groups`] see the same state and may share these: hail's
/// running statistics of the present nodes (pairs), the running sums of
/// the present nodes (the single-node shortcut) and the capacity check's
/// verdicts of every node ([`globaln1::N1Cache`]). Valid only while the state does
/// not change: a new one for each instance.
#[derive(Default)]
pub struct SearchBase {
    stats: Option<metric::ClusterStats>,
    present: Option<Option<ScoreBase>>,
    /// The running sums of the present nodes' values, of the state at an
    /// undo-log checkpoint that the present state extends.
    sums: Option<(usize, GroupSums)>,
    n1: N1Slot,
    /// With [`GroupsRead::Winner`], the score above which a placement in
    /// the group being searched cannot be chosen (the best placement of
    /// the groups searched before it that rank at least as well).
    outranked_above: Option<f64>,
    /// Whether the last search stopped a row at `outranked_above`.
    outranked: bool,
}

impl SearchBase {
    /// Nothing computed yet.
    pub fn new() -> SearchBase {
        SearchBase::default()
    }

    /// Nothing computed yet for a state that extends the state at
    /// checkpoint `at`, whose data `earlier` holds: the capacity
    /// verdicts will be brought up to date rather than computed again.
    pub fn after(earlier: SearchBase, at: usize) -> SearchBase {
        SearchBase {
            sums: earlier.sums,
            n1: N1Slot::after(earlier.n1, at),
            ..SearchBase::default()
        }
    }

    /// The single-node shortcut's base of the present state: the running
    /// sums of the state they were made for, brought up to date (`None`
    /// when the shortcut does not apply).
    fn present_base(&mut self, state: &State) -> Option<&ScoreBase> {
        let SearchBase { present, sums, .. } = self;
        present
            .get_or_insert_with(|| {
                let now = state.checkpoint();
                let fresh = match sums.take() {
                    Some((at, mut s)) if at <= now => {
                        for (k, old) in state.node_values_since(at) {
                            s.replace(&old, state.values(k), state.node_at(k).offline);
                        }
                        s
                    }
                    _ => state.present_sums(),
                };
                let base = fresh.base(0);
                *sums = Some((now, fresh));
                base
            })
            .as_ref()
    }

    /// Whether every node that `scope` covers can be evacuated
    /// ([`globaln1::redundant`]), from the state's capacity verdicts.
    ///
    /// # Errors
    ///
    /// A lookup hail crashes on.
    pub fn redundant(&mut self, state: &mut State, scope: &N1Scope) -> Result<bool, Crash> {
        let cache = self.n1.get(state, scope);
        globaln1::redundant_cached(state, cache)
    }
}

/// Tries every candidate (`tryAlloc`) and returns the annotated solution.
pub fn try_alloc(
    state: &mut State,
    inst: &Instance,
    nodes: &AllocNodes,
    opts: &AllocOptions,
) -> Result<AllocSolution<f64>, SearchError> {
    try_alloc_with(state, inst, nodes, opts, &mut SearchBase::new())
}

/// [`try_alloc`] with the data of the state computed by an earlier search
/// of the same instance on the same state (see [`SearchBase`]).
pub fn try_alloc_with(
    state: &mut State,
    inst: &Instance,
    nodes: &AllocNodes,
    opts: &AllocOptions,
    shared: &mut SearchBase,
) -> Result<AllocSolution<f64>, SearchError> {
    Ok(try_alloc_unlogged(state, inst, nodes, opts, shared)?.annotate())
}

/// [`try_alloc_with`] without the summary line at the head of the log,
/// for the counts that place thousands of instances and print no log.
pub fn try_alloc_unlogged(
    state: &mut State,
    inst: &Instance,
    nodes: &AllocNodes,
    opts: &AllocOptions,
    shared: &mut SearchBase,
) -> Result<AllocSolution<f64>, SearchError> {
    let sol = match nodes {
        AllocNodes::Single(list) if list.is_empty() => {
            return Err(SearchError::Message("No online nodes".to_owned()))
        }
        AllocNodes::Pairs(list) if list.is_empty() => {
            return Err(SearchError::Message("Not enough online nodes".to_owned()))
        }
        AllocNodes::Single(list) => try_single(state, inst, list, opts, shared)?,
        AllocNodes::Pairs(list) => try_pairs(state, inst, list, opts, shared)?,
    };
    Ok(sol)
}

/// The instance as placed on `p` (and `s`).
fn placed(inst: &Instance, p: usize, s: Option<usize>, loc: i64) -> Instance {
    let mut i = inst.clone();
    i.p_node = p as i32;
    i.s_node = s.map_or(NO_NODE, |s| s as i32);
    if s.is_some() {
        i.location_score = loc;
    }
    i
}

/// Sorts successful candidates as hail does (collected newest first, then
/// a stable sort by score) and returns the first that passes the capacity
/// check, with the number of better ones it failed.
fn choose(
    state: &mut State,
    cache: &mut N1Slot,
    inst: &Instance,
    mut ok: Vec<Candidate>,
    opts: &AllocOptions,
) -> Result<(Option<Placement<f64>>, Vec<CandidateId>), Crash> {
    ok.reverse();
    let sorted = ghc_sort::sort_by(ok, |a, b| a.score.hs_compare(&b.score));
    let mut dropped = Vec::new();
    for c in sorted {
        if let Some(placement) = try_place(state, cache, inst, &c, opts)? {
            return Ok((Some(placement), dropped));
        }
        dropped.push((c.primary, c.secondary));
    }
    Ok((None, dropped))
}

/// The placement of candidate `c` if it passes the checks made after the
/// scores (an online secondary when asked, the capacity check), else
/// `None`: it is dropped and the next best is tried.
fn try_place(
    state: &mut State,
    cache: &mut N1Slot,
    inst: &Instance,
    c: &Candidate,
    opts: &AllocOptions,
) -> Result<Option<Placement<f64>>, Crash> {
    let loc = match c.secondary {
        Some(s) => location_score(state.node_at(c.primary), state.node_at(s)),
        None => 0,
    };
    let record = placed(inst, c.primary, c.secondary, loc);
    let nodes = materialize(state, &record, c.primary, c.secondary, opts);
    let secondary_ok = match c.secondary {
        Some(s) if opts.online_secondary_only => !state.node_at(s).offline,
        _ => true,
    };
    let pass = if !secondary_ok {
        false
    } else if opts.capacity_checks {
        let cache = cache.get(state, &opts.n1_scope);
        let changed: Vec<(usize, &Node)> = nodes.iter().map(|(k, n)| (*k, n)).collect();
        globaln1::placement_is_redundant(state, cache, &changed, &record)?
    } else {
        true
    };
    if !pass {
        return Ok(None);
    }
    let node_names = nodes.iter().map(|(_, n)| n.info.name.clone()).collect();
    Ok(Some(Placement {
        primary: c.primary,
        secondary: c.secondary,
        metric: c.score,
        inst: record,
        node_names,
        nodes,
    }))
}

/// [`choose`] for single-node candidates known by an approximate score and
/// its error bound (`argmin`): the winner is the first candidate in hail's
/// sorted order (lowest score, ties to the later candidate) that passes
/// [`try_place`]. Each round scores exactly only the remaining candidates
/// whose interval reaches below the lowest upper end, which hold the
/// minimum; a dropped winner is removed and the next round runs. `None`
/// when an exact score is NaN (hail's sort then depends on positions): the
/// caller scores every candidate and uses [`choose`].
#[allow(clippy::type_complexity)]
fn choose_by_bounds(
    state: &mut State,
    cache: &mut N1Slot,
    inst: &Instance,
    cands: &[(usize, (f64, f64))],
    mut exact: impl FnMut(&State, usize) -> f64,
    opts: &AllocOptions,
) -> Result<Option<(Option<Placement<f64>>, Vec<CandidateId>)>, Crash> {
    let mut scores: Vec<Option<f64>> = vec![None; cands.len()];
    let mut alive: Vec<usize> = (0..cands.len()).collect();
    let mut dropped = Vec::new();
    while !alive.is_empty() {
        let ceiling = alive
            .iter()
            .map(|&i| cands[i].1 .0 + cands[i].1 .1)
            .fold(f64::INFINITY, f64::min);
        let mut best: Option<(usize, f64)> = None;
        for &i in &alive {
            let (a, e) = cands[i].1;
            if a - e > ceiling {
                continue;
            }
            let score = match scores[i] {
                Some(v) => v,
                None => {
                    let v = exact(state, cands[i].0);
                    scores[i] = Some(v);
                    v
                }
            };
            if score.is_nan() {
                return Ok(None);
            }
            // Ties go to the later candidate.
            if best.is_none_or(|(_, b)| score <= b) {
                best = Some((i, score));
            }
        }
        let Some((i, score)) = best else {
            return Ok(None);
        };
        let c = Candidate {
            primary: cands[i].0,
            secondary: None,
            score,
        };
        if let Some(placement) = try_place(state, cache, inst, &c, opts)? {
            return Ok(Some((Some(placement), dropped)));
        }
        dropped.push((c.primary, None));
        alive.retain(|&j| j != i);
    }
    Ok(Some((None, dropped)))
}

/// A candidate's new nodes (primary, then secondary) with the instance
/// placed on them, as the search builds them for the winner; for a
/// candidate whose checks passed.
pub fn candidate_nodes(
    state: &State,
    inst: &Instance,
    p: usize,
    s: Option<usize>,
    opts: &AllocOptions,
) -> Vec<(usize, Node)> {
    let loc = match s {
        Some(s) => location_score(state.node_at(p), state.node_at(s)),
        None => 0,
    };
    materialize(state, &placed(inst, p, s, loc), p, s, opts)
}

/// Builds the placement's new nodes (they were only probed before).
fn materialize(
    state: &State,
    record: &Instance,
    p: usize,
    s: Option<usize>,
    opts: &AllocOptions,
) -> Vec<(usize, Node)> {
    let mut out = Vec::with_capacity(2);
    let mut new_p = state.node_at(p).clone();
    // The probes succeeded, so these adds succeed too.
    let _ = new_p.add_pri(opts.soft, record);
    out.push((p, new_p));
    if let Some(s) = s {
        let mut new_s = state.node_at(s).clone();
        let _ = new_s.add_sec(false, SoftChecks::Enforce, record, p as i32);
        out.push((s, new_s));
    }
    out
}

fn note(primary: usize, secondary: Option<usize>, outcome: CandidateOutcome) -> CandidateNote {
    CandidateNote {
        primary,
        secondary,
        outcome,
    }
}

/// Marks the candidates the capacity check dropped.
fn mark_dropped(notes: &mut [CandidateNote], dropped: &[CandidateId]) {
    for n in notes.iter_mut() {
        if let CandidateOutcome::Scored(s) = n.outcome {
            if dropped.contains(&(n.primary, n.secondary)) {
                n.outcome = CandidateOutcome::Dropped(s);
            }
        }
    }
}
