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
//! a [`PairPlan`] orders each list's secondaries by a lower bound of their
//! part of any row's score ([`crate::score::pairbound`]), so that a row
//! (one primary) scores only the secondaries that may reach its minimum
//! and still finds hail's exact best pair, tie included, and its exact
//! tallies ([`bounded_scan`]). The capacity check runs for each primary's
//! best candidate (see [`crate::search::globaln1`]), or, when only the
//! placement is read ([`AllocOptions::winner_only`]), for the rows that
//! could still win.
//!
//! The groups of one multi-group search ([`search_groups`]) see the same
//! state (each group's search rolls its trial placements back), so what
//! depends only on the state is computed once for them ([`SearchBase`]):
//! hail's running statistics of the cluster for pairs, the running sums
//! of the single-node shortcut, and the capacity check's verdicts.

use crate::model::group::Group;
use crate::model::instance::{Instance, NO_NODE};
use crate::model::node::Node;
use crate::model::types::{AllocPolicy, FailTally, SoftChecks};
use crate::model::{find_group, NameMatch};
use crate::score::argmin::ScoreBase;
use crate::score::metric::{self, NodeValues};
use crate::search::ghc_sort;
use crate::search::globaln1::{self, N1Cache};
use crate::search::moves::location_score;
use crate::search::solution::{AllocSolution, CandidateNote, CandidateOutcome, Metric, Placement};
use crate::search::state::{Crash, State};
use crate::search::AlgorithmOptions;

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
/// verdicts of every node ([`N1Cache`]). Valid only while the state does
/// not change: a new one for each instance.
#[derive(Default)]
pub struct SearchBase {
    stats: Option<metric::ClusterStats>,
    present: Option<Option<ScoreBase>>,
    n1: Option<N1Cache>,
}

impl SearchBase {
    /// Nothing computed yet.
    pub fn new() -> SearchBase {
        SearchBase::default()
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
    Ok(sol.annotate())
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
    cache: &mut Option<N1Cache>,
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
    cache: &mut Option<N1Cache>,
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
        if cache.is_none() {
            *cache = Some(N1Cache::new(state)?);
        }
        let changed: Vec<(usize, &Node)> = nodes.iter().map(|(k, n)| (*k, n)).collect();
        match cache {
            Some(c) => globaln1::placement_is_redundant(state, c, &changed, &record)?,
            None => true,
        }
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
    cache: &mut Option<N1Cache>,
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

/// Below this many candidates a single-node search scores each exactly.
const SHORTCUT_SINGLES: usize = 16;

fn try_single(
    state: &mut State,
    inst: &Instance,
    list: &[usize],
    opts: &AllocOptions,
    shared: &mut SearchBase,
) -> Result<AllocSolution<f64>, SearchError> {
    let mut failures = FailTally::default();
    let mut notes = Vec::new();
    let mut ok = Vec::new();
    let SearchBase {
        present, n1: cache, ..
    } = shared;
    // Without explanations, each candidate's full O(N) score is replaced by
    // an approximation with a rigorous bound (`argmin`), and only the
    // candidates that can win are scored exactly (see `choose_by_bounds`).
    let base = if !opts.explain && !state.any_instance_map() && list.len() >= SHORTCUT_SINGLES {
        present
            .get_or_insert_with(|| state.present_sums().base(0))
            .as_ref()
    } else {
        None
    };
    let exact = |state: &State, p: usize| {
        let mut new_p = state.node_at(p).clone();
        // The candidate's checks passed on the same state.
        if let Ok(probe) = new_p.probe_add_pri(opts.soft, inst) {
            new_p.commit_add_pri(&probe, inst);
        }
        state.score_with(&[(p, &new_p)])
    };
    let mut approxes: Vec<(usize, (f64, f64))> = Vec::new();
    let mut shortcut = base.is_some();
    // Candidates scored exactly (every one, when there is no shortcut).
    let mut scored: Vec<Candidate> = Vec::new();
    for &p in list {
        let node = state.node_at(p);
        let outcome = state
            .policy(node.group)
            .check(inst, node.excl_storage)
            .and_then(|()| node.probe_add_pri(opts.soft, inst));
        match outcome {
            Err(f) => {
                failures.add(f);
                if opts.explain {
                    notes.push(note(p, None, CandidateOutcome::Refused(f)));
                }
            }
            Ok(probe) => {
                ok.push(p);
                let Some(base) = base.as_ref() else {
                    let score = exact(state, p);
                    if opts.explain {
                        notes.push(note(p, None, CandidateOutcome::Scored(score)));
                    }
                    scored.push(Candidate {
                        primary: p,
                        secondary: None,
                        score,
                    });
                    continue;
                };
                if shortcut {
                    let new = metric::node_values(&node.scalars_with_pri(&probe));
                    let change = [(state.values(p), &new)];
                    let approx = if node.offline {
                        base.approx_leaving(&[], &change, |_, _, _, _| {})
                    } else {
                        base.approx_leaving(&change, &[], |_, _, _, _| {})
                    };
                    match approx {
                        Some(a) => approxes.push((p, a)),
                        None => shortcut = false,
                    }
                }
            }
        }
    }
    let succeeded = ok.len() as u64;
    // (`shortcut` holds only with `base`.)
    let bounded = if shortcut {
        choose_by_bounds(state, cache, inst, &approxes, exact, opts)?
    } else {
        None
    };
    let (best, dropped) = match bounded {
        Some(chosen) => chosen,
        None => {
            if base.is_some() {
                // The shortcut gave up: every candidate scored exactly.
                scored = ok
                    .iter()
                    .map(|&p| Candidate {
                        primary: p,
                        secondary: None,
                        score: exact(state, p),
                    })
                    .collect();
            }
            choose(state, cache, inst, scored, opts)?
        }
    };
    mark_dropped(&mut notes, &dropped);
    failures.add_n(crate::model::types::FailMode::N1, dropped.len() as u64);
    Ok(AllocSolution {
        failures,
        allocs: succeeded - dropped.len() as u64,
        best,
        log: Vec::new(),
        notes,
    })
}

fn try_pairs(
    state: &mut State,
    inst: &Instance,
    list: &PairList,
    opts: &AllocOptions,
    shared: &mut SearchBase,
) -> Result<AllocSolution<f64>, SearchError> {
    let SearchBase {
        stats, n1: cache, ..
    } = shared;
    let stats: &metric::ClusterStats = stats.get_or_insert_with(|| state.cluster_stats());
    // The scans only read the state: done up front (on several threads for
    // a large list, each primary's notes with it), then taken in list
    // order.
    let scans = scan_all(state, stats, inst, list, opts);
    let entries: Vec<(usize, Secondaries<'_>)> = list.iter().collect();
    // The order in which the rows are settled: list order, or with
    // `winner_only` ascending by their best score (rows with a NaN score
    // first), so that the rows after the first whose best lies above the
    // best placement found cannot win or tie.
    let mut order: Vec<usize> = (0..scans.len()).collect();
    let row_best: Vec<Option<f64>> = scans
        .iter()
        .map(|(scan, _)| match scan {
            PairScan::Best {
                best: Some(c),
                any_nan: false,
                ..
            } => Some(c.score),
            _ => None,
        })
        .collect();
    let best_score = |i: usize| row_best[i];
    if opts.winner_only && !opts.explain {
        order.sort_by(|&a, &b| match (best_score(a), best_score(b)) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (None, Some(_)) => std::cmp::Ordering::Less,
            (Some(_), None) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
    }
    // The settled rows' solutions, by row (few with `winner_only`).
    let mut settled: Vec<(usize, AllocSolution<f64>)> = Vec::new();
    // The best placement's score so far; `None` also after a NaN.
    let mut ceiling: Option<f64> = None;
    let mut any_nan_winner = false;
    let mut scans: Vec<Option<(PairScan, Vec<CandidateNote>)>> =
        scans.into_iter().map(Some).collect();
    for &i in &order {
        if opts.winner_only && !opts.explain && !any_nan_winner {
            if let (Some(b), Some(c)) = (best_score(i), ceiling) {
                if b > c {
                    break;
                }
            }
        }
        let Some((scan, notes)) = scans[i].take() else {
            continue;
        };
        let (p, secondaries) = entries[i];
        let psol = settle_row(state, stats, cache, inst, p, secondaries, opts, scan, notes)?;
        if let Some(b) = &psol.best {
            if b.metric.is_nan() {
                any_nan_winner = true;
            } else if ceiling.is_none_or(|c| b.metric < c) {
                ceiling = Some(b.metric);
            }
        }
        settled.push((i, psol));
    }
    // Every row's part, in list order, added in place.
    settled.sort_unstable_by_key(|(i, _)| *i);
    let mut settled = settled.into_iter().peekable();
    let mut total = AllocSolution::default();
    for (i, scan) in scans.into_iter().enumerate() {
        if let Some((_, psol)) = settled.next_if(|(j, _)| *j == i) {
            total.add(psol);
            continue;
        }
        // A row that cannot win: its tallies without the capacity check.
        let (failures, allocs, notes) = match scan {
            Some((PairScan::Failed(failures), notes)) => (failures, 0, notes),
            Some((
                PairScan::Best {
                    failures,
                    succeeded,
                    ..
                },
                notes,
            )) => (failures, succeeded, notes),
            Some((PairScan::All(_), _)) | None => continue,
        };
        total.failures.merge(&failures);
        total.allocs += allocs;
        let mut notes = notes;
        total.notes.append(&mut notes);
    }
    Ok(total)
}

/// One primary's part of the solution from its scan (`collectionToSolution`
/// of the row): its best pair if that passes the capacity check, else
/// every pair of the row scored, sorted, and the first that passes.
#[allow(clippy::too_many_arguments)]
fn settle_row(
    state: &mut State,
    stats: &metric::ClusterStats,
    cache: &mut Option<N1Cache>,
    inst: &Instance,
    p: usize,
    secondaries: Secondaries<'_>,
    opts: &AllocOptions,
    scan: PairScan,
    mut notes: Vec<CandidateNote>,
) -> Result<AllocSolution<f64>, SearchError> {
    Ok(match scan {
        PairScan::Failed(failures) => AllocSolution {
            failures,
            allocs: 0,
            best: None,
            log: Vec::new(),
            notes,
        },
        PairScan::Best {
            failures,
            succeeded,
            best,
            any_nan,
        } => {
            // The fast path: with no NaN score the sorted list starts
            // with the minimum (ties to the later pair), and usually
            // that one passes the capacity check.
            let first = match (any_nan, best) {
                (false, Some(c)) => Some(choose(state, cache, inst, vec![c], opts)?),
                _ => None,
            };
            let (best, dropped) = match first {
                Some((Some(b), d)) if d.is_empty() => (Some(b), d),
                _ if succeeded == 0 => (None, Vec::new()),
                _ => {
                    let all =
                        match pair_scan(state, stats, inst, p, secondaries, opts, true, None, None)
                        {
                            PairScan::All(c) => c,
                            _ => Vec::new(),
                        };
                    choose(state, cache, inst, all, opts)?
                }
            };
            mark_dropped(&mut notes, &dropped);
            let mut failures = failures;
            failures.add_n(crate::model::types::FailMode::N1, dropped.len() as u64);
            AllocSolution {
                failures,
                allocs: succeeded - dropped.len() as u64,
                best,
                log: Vec::new(),
                notes,
            }
        }
        PairScan::All(_) => AllocSolution::default(),
    })
}

/// Below this many pairs, a search scans on one thread (starting threads
/// would cost more than it saves).
pub(crate) const PARALLEL_PAIRS: usize = 16_000;

/// A search whose lists are bounded ([`PairPlan`]) scans on one thread
/// below this many times [`PARALLEL_PAIRS`] pairs.
const BOUNDED_PARALLEL_FACTOR: usize = 16;

/// At most this many threads scan pairs.
pub(crate) const MAX_SCAN_THREADS: usize = 4;

/// How many threads a large scan uses: the processors available (asked
/// once per process: the question reads the cgroup files each time), at
/// most [`MAX_SCAN_THREADS`].
pub(crate) fn scan_threads() -> usize {
    static PROCESSORS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let n = *PROCESSORS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    n.min(MAX_SCAN_THREADS)
}

/// [`pair_scan`] of every primary of the list, in list order, with the
/// primary's candidate notes when `opts.explain` asks for them. A large
/// list is split into contiguous runs of primaries scanned on separate
/// threads; each result goes to its primary's position, so the outcome is
/// the same as scanning in order on one thread.
fn scan_all(
    state: &State,
    stats: &metric::ClusterStats,
    inst: &Instance,
    list: &PairList,
    opts: &AllocOptions,
) -> Vec<(PairScan, Vec<CandidateNote>)> {
    let entries: Vec<(usize, Secondaries<'_>, usize)> = list.iter_indexed().collect();
    let cache = (!opts.explain).then(|| SecCache::new(state, inst, list));
    let plan = cache
        .as_ref()
        .map(|c| PairPlan::new(state, stats, inst, list, opts, c));
    let scan_run =
        |run: &[(usize, Secondaries<'_>, usize)]| -> Vec<(PairScan, Vec<CandidateNote>)> {
            run.iter()
                .map(|&(p, secondaries, l)| {
                    if let (Some(plan), Some(cache)) = (plan.as_ref(), cache.as_ref()) {
                        if let Some(lp) = plan.lists[l].as_ref() {
                            if let Some(scan) =
                                bounded_scan(state, stats, inst, p, opts, plan, lp, cache)
                            {
                                return (scan, Vec::new());
                            }
                        }
                    }
                    let mut notes = Vec::new();
                    let notes_ref = opts.explain.then_some(&mut notes);
                    let scan = pair_scan(
                        state,
                        stats,
                        inst,
                        p,
                        secondaries,
                        opts,
                        false,
                        notes_ref,
                        cache.as_ref(),
                    );
                    (scan, notes)
                })
                .collect()
        };
    let pairs: usize = entries.iter().map(|(_, s, _)| s.list.len()).sum();
    // A bounded scan scores a small part of its pairs: threads pay only
    // for much larger lists.
    let parallel = if plan
        .as_ref()
        .is_some_and(|p| p.lists.iter().any(Option::is_some))
    {
        PARALLEL_PAIRS * BOUNDED_PARALLEL_FACTOR
    } else {
        PARALLEL_PAIRS
    };
    let threads = if pairs < parallel || opts.one_thread {
        1
    } else {
        scan_threads()
    };
    if threads <= 1 || entries.len() < 2 {
        return scan_run(&entries);
    }
    let run_len = entries.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        let mut out = Vec::with_capacity(entries.len());
        for run in entries.chunks(run_len) {
            match std::thread::Builder::new().spawn_scoped(scope, move || scan_run(run)) {
                Ok(h) => handles.push(Ok(h)),
                // No thread to be had: scan this run here.
                Err(_) => handles.push(Err(run)),
            }
        }
        for h in handles {
            match h {
                Ok(h) => match h.join() {
                    Ok(scans) => out.extend(scans),
                    Err(panic) => std::panic::resume_unwind(panic),
                },
                Err(run) => out.extend(scan_run(run)),
            }
        }
        out
    })
}

/// The outcome of scanning one primary's secondaries.
#[derive(Debug)]
enum PairScan {
    /// The primary itself failed: every pair fails the same way.
    Failed(FailTally),
    /// The per-pair failures, the number of successes, and the best pair
    /// (lowest score, ties to the later) unless a score was NaN.
    Best {
        failures: FailTally,
        succeeded: u64,
        best: Option<Candidate>,
        any_nan: bool,
    },
    /// Every successful pair, in order (when asked for).
    All(Vec<Candidate>),
}

/// A row's statistics after its primary's update: hail's running
/// statistics, the location-exclusion value, and the component values
/// (what a pair's score keeps of the components its secondary does not
/// change).
#[derive(Debug, Clone, Copy)]
struct RowStats {
    base: metric::StatArray,
    map_value: i64,
    values: [f64; metric::N_COMPONENTS],
}

/// Primary `p`'s checks and its update of the statistics: the check's
/// failure, or the row's statistics (`None` when no node is online: every
/// score is then 0).
fn primary_row(
    state: &State,
    stats: &metric::ClusterStats,
    inst: &Instance,
    p: usize,
    opts: &AllocOptions,
) -> Result<Option<RowStats>, crate::model::types::FailMode> {
    let node_p = state.node_at(p);
    let probe_p = state
        .policy(node_p.group)
        .check(inst, node_p.excl_storage)
        .and_then(|()| node_p.probe_add_pri(opts.soft, inst))?;
    let Some(mut base) = stats.array() else {
        return Ok(None);
    };
    let new_p_vals: NodeValues = metric::node_values(&node_p.scalars_with_pri(&probe_p));
    let p_map_new: smallvec::SmallVec<[((u32, u32), i64); 2]>;
    let p_map_new: &[((u32, u32), i64)] =
        if node_p.info.location_tags.is_empty() || inst.excl_tags.is_empty() {
            &node_p.instance_map
        } else {
            let mut m = node_p.instance_map.clone();
            for pair in node_p.new_location_exclusion_pairs(inst) {
                match m.iter_mut().find(|(k, _)| *k == pair) {
                    Some((_, c)) => *c += 1,
                    None => m.push((pair, 1)),
                }
            }
            p_map_new = m;
            &p_map_new
        };
    base.update(state.values(p), node_p.offline, &new_p_vals);
    let map_value = if node_p.offline {
        stats.map_value_after(&[])
    } else {
        stats.map_value_after(&[(&node_p.instance_map, p_map_new)])
    };
    Ok(Some(RowStats {
        base,
        map_value,
        values: base.values(map_value),
    }))
}

/// Whether no pair of primary `p` corrects the location score (the plain
/// case of [`pair_score`]): the primary has no location tag (so no pair
/// shares one) and the instance has no location score of its own, or the
/// correction does not apply.
fn row_is_plain(state: &State, inst: &Instance, p: usize) -> bool {
    let node_p = state.node_at(p);
    node_p.offline
        || inst.forthcoming
        || (node_p.info.location_tags.is_empty() && inst.location_score == 0)
}

/// The score of the pair (`p`, `s`) whose secondary takes the values
/// `new_s_vals`, with the row's statistics `row`: hail's running update of
/// the secondary after the primary's.
fn pair_score(
    state: &State,
    inst: &Instance,
    p: usize,
    row: &RowStats,
    s: usize,
    new_s_vals: &NodeValues,
) -> f64 {
    let node_p = state.node_at(p);
    let node_s = state.node_at(s);
    // hail sets the instance's location score from the pair before
    // adding it; the primary's update used the instance's own (0 for a
    // new instance, the current pair's for change-group's trial of an
    // existing one). The component is a sum of small integers, so
    // correcting it afterwards gives the same bits.
    let loc_delta = location_score(node_p, node_s) - inst.location_score;
    if loc_delta != 0 && !node_p.offline && !inst.forthcoming {
        let mut arr = row.base;
        arr.add_to_sum(metric::LOCATION_COMPONENT, loc_delta as f64);
        let values = arr.values(row.map_value);
        return arr.score_after_update(
            &values,
            state.values(s),
            node_s.offline,
            new_s_vals,
            row.map_value,
        );
    }
    row.base.score_after_update(
        &row.values,
        state.values(s),
        node_s.offline,
        new_s_vals,
        row.map_value,
    )
}

/// Checks and scores every pair of primary `p` (`allocateOnPair` for each
/// secondary) with hail's running statistics. The primary's update is
/// computed once; each pair adds the secondary's update.
#[allow(clippy::too_many_arguments)]
fn pair_scan(
    state: &State,
    stats: &metric::ClusterStats,
    inst: &Instance,
    p: usize,
    secondaries: Secondaries<'_>,
    opts: &AllocOptions,
    collect: bool,
    notes: Option<&mut Vec<CandidateNote>>,
    cache: Option<&SecCache>,
) -> PairScan {
    let row = match primary_row(state, stats, inst, p, opts) {
        Err(f) => {
            let mut failures = FailTally::default();
            failures.add_n(f, secondaries.len() as u64);
            if let Some(notes) = notes {
                notes.extend(
                    secondaries
                        .iter()
                        .map(|s| note(p, Some(s), CandidateOutcome::Refused(f))),
                );
            }
            return PairScan::Failed(failures);
        }
        Ok(row) => row,
    };
    let Some(row) = row else {
        // No online node: every score is 0.
        return scan_secondaries(
            state,
            inst,
            p,
            secondaries,
            collect,
            notes,
            cache,
            |_, _| 0.0,
        );
    };
    scan_secondaries(
        state,
        inst,
        p,
        secondaries,
        collect,
        notes,
        cache,
        |s, new_s_vals| pair_score(state, inst, p, &row, s, new_s_vals),
    )
}

/// What one secondary of a list is for every primary it is not a peer of
/// ([`PairPlan`]).
#[derive(Debug, Clone, Copy, PartialEq)]
enum SecKind {
    /// Refused by its check.
    Failed(crate::model::types::FailMode),
    /// Accepted, with a lower bound of its part of every plain row's
    /// scores (`score::pairbound::secondary_floor`).
    Bounded,
    /// Checked and scored in every row.
    Exact,
}

/// One secondary list's plan for the bounded scan ([`bounded_scan`]).
struct ListPlan {
    /// Each position's kind.
    kinds: Vec<SecKind>,
    /// Each node key's position in the list (`u32::MAX`: none).
    pos_of: Vec<u32>,
    /// The bounded secondaries, ascending by floor: (floor, key, position).
    sorted: Vec<(f64, usize, u32)>,
    /// The exact secondaries: (key, position).
    exact: Vec<(usize, u32)>,
    /// The refusals of the refused secondaries, all together.
    failures: FailTally,
    /// The number of bounded secondaries.
    bounded: u64,
    /// (primary key, secondary key) for each secondary of the list that
    /// is a peer of that primary, ascending.
    peers: Vec<(usize, usize)>,
}

/// The plan of a search's bounded pair scans: each secondary's check once
/// (the [`SecCache`]), the range of the rows' statistics, and per list the
/// secondaries ordered by the lower bound of their part of a score.
pub(crate) struct PairPlan {
    ranges: crate::score::pairbound::RowRanges,
    lists: Vec<Option<ListPlan>>,
}

/// Below this many secondaries, a list's rows are scanned in full.
const BOUNDED_LIST: usize = 16;

impl PairPlan {
    fn new(
        state: &State,
        stats: &metric::ClusterStats,
        inst: &Instance,
        list: &PairList,
        opts: &AllocOptions,
        cache: &SecCache,
    ) -> PairPlan {
        use crate::score::pairbound::{secondary_floor, RowRanges};
        let mut ranges = RowRanges::default();
        for (p, _) in list.iter() {
            if let Ok(Some(row)) = primary_row(state, stats, inst, p, opts) {
                ranges.include(&row.base);
            }
        }
        let slots = state.node_slots();
        let lists = list
            .lists
            .iter()
            .map(|secs| {
                if secs.len() < BOUNDED_LIST {
                    return None;
                }
                let mut pos_of = vec![u32::MAX; slots];
                let mut kinds = Vec::with_capacity(secs.len());
                let mut sorted = Vec::new();
                let mut exact = Vec::new();
                let mut failures = FailTally::default();
                let mut peers = Vec::new();
                for (i, &s) in secs.iter().enumerate() {
                    // A repeated secondary: no plan (never built so).
                    if s >= slots || pos_of[s] != u32::MAX {
                        return None;
                    }
                    pos_of[s] = i as u32;
                    let node_s = state.node_at(s);
                    let kind = match cache.get(s) {
                        Some(Err(f)) => {
                            failures.add(*f);
                            SecKind::Failed(*f)
                        }
                        Some(Ok(y)) if !node_s.offline => {
                            match secondary_floor(&ranges, state.values(s), y) {
                                Some(floor) => {
                                    sorted.push((floor, s, i as u32));
                                    SecKind::Bounded
                                }
                                None => SecKind::Exact,
                            }
                        }
                        _ => SecKind::Exact,
                    };
                    if kind == SecKind::Exact {
                        exact.push((s, i as u32));
                    }
                    kinds.push(kind);
                    for &(k, _) in &node_s.peers {
                        if let Ok(k) = usize::try_from(k) {
                            peers.push((k, s));
                        }
                    }
                }
                sorted.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.2.cmp(&b.2)));
                peers.sort_unstable();
                peers.dedup();
                Some(ListPlan {
                    kinds,
                    pos_of,
                    bounded: sorted.len() as u64,
                    sorted,
                    exact,
                    failures,
                    peers,
                })
            })
            .collect();
        PairPlan { ranges, lists }
    }
}

/// [`pair_scan`] of a plain row (without notes, not collecting) by its
/// plan: the tallies from the list's, corrected for the primary itself and
/// the secondaries it is a peer of (checked for this primary); the exact
/// secondaries scored; then the bounded ones in ascending order of their
/// floor, until the row's floor plus theirs lies above the best score so
/// far: every later one scores strictly higher, so the lowest score and
/// its last pair in list order (hail's tie rule) are found without them.
/// `None` when the row is not plain or its statistics are out of the
/// plan's ranges: the caller scans it in full.
#[allow(clippy::too_many_arguments)]
fn bounded_scan(
    state: &State,
    stats: &metric::ClusterStats,
    inst: &Instance,
    p: usize,
    opts: &AllocOptions,
    plan: &PairPlan,
    list: &ListPlan,
    cache: &SecCache,
) -> Option<PairScan> {
    use crate::score::pairbound::{cannot_beat, row_floor};
    if !row_is_plain(state, inst, p) {
        return None;
    }
    let row = primary_row(state, stats, inst, p, opts).ok()??;
    if !plan.ranges.covers(&row.base) {
        return None;
    }
    let mut failures = list.failures;
    let mut succeeded = list.bounded;
    let mut any_nan = false;
    // (score, position, key) of the best pair so far: the lowest score,
    // ties to the later position.
    let mut best: Option<(f64, u32, usize)> = None;
    let consider = |best: &mut Option<(f64, u32, usize)>, sc: f64, pos: u32, s: usize| {
        let keep_old = matches!(*best, Some((b, bp, _)) if b < sc || (b == sc && bp > pos));
        if !keep_old {
            *best = Some((sc, pos, s));
        }
        sc.is_nan()
    };
    // The secondaries whose global entry does not hold for this row.
    let lo = list.peers.partition_point(|&(k, _)| k < p);
    let peers = &list.peers[lo..];
    let peers = &peers[..peers.partition_point(|&(k, _)| k == p)];
    let own = list.pos_of.get(p).copied().filter(|&i| i != u32::MAX);
    let take_back =
        |failures: &mut FailTally, succeeded: &mut u64, pos: u32| match list.kinds[pos as usize] {
            SecKind::Failed(f) => failures.remove(f),
            SecKind::Bounded => *succeeded -= 1,
            SecKind::Exact => {}
        };
    if let Some(pos) = own {
        take_back(&mut failures, &mut succeeded, pos);
    }
    for &(_, s) in peers {
        if s == p {
            continue;
        }
        let pos = list.pos_of[s];
        take_back(&mut failures, &mut succeeded, pos);
        match secondary_values(state.node_at(s), inst, p as i32) {
            Err(f) => failures.add(f),
            Ok(y) => {
                succeeded += 1;
                any_nan |= consider(&mut best, pair_score(state, inst, p, &row, s, &y), pos, s);
            }
        }
    }
    let is_peer = |s: usize| peers.binary_search_by(|&(_, x)| x.cmp(&s)).is_ok();
    for &(s, pos) in &list.exact {
        if s == p || is_peer(s) {
            continue;
        }
        let outcome = match cache.get(s) {
            Some(r) => *r,
            None => secondary_values(state.node_at(s), inst, p as i32),
        };
        match outcome {
            Err(f) => failures.add(f),
            Ok(y) => {
                succeeded += 1;
                any_nan |= consider(&mut best, pair_score(state, inst, p, &row, s, &y), pos, s);
            }
        }
    }
    if !any_nan {
        let floor = row_floor(&row.values);
        for &(sf, s, pos) in &list.sorted {
            if let Some((b, _, _)) = best {
                if cannot_beat(floor, sf, b) {
                    break;
                }
            }
            if s == p || is_peer(s) {
                continue;
            }
            let Some(Ok(y)) = cache.get(s) else {
                continue;
            };
            let sc =
                row.base
                    .score_after_update(&row.values, state.values(s), false, y, row.map_value);
            any_nan |= consider(&mut best, sc, pos, s);
        }
    }
    Some(PairScan::Best {
        failures,
        succeeded,
        best: best.map(|(score, _, s)| Candidate {
            primary: p,
            secondary: Some(s),
            score,
        }),
        any_nan,
    })
}

/// A secondary's check and values with a drbd instance whose primary is
/// the node of key `pdx` (`allocateOnPair`'s secondary half).
fn secondary_values(
    node_s: &Node,
    inst: &Instance,
    pdx: i32,
) -> Result<NodeValues, crate::model::types::FailMode> {
    node_s
        .probe_add_sec(false, SoftChecks::Enforce, inst, pdx)
        .map(|probe| metric::node_values(&node_s.scalars_with_sec(&probe)))
}

/// Each secondary's check and values for a primary it is not yet a peer
/// of (the check depends on the primary only through the memory the node
/// already reserves for it), computed once per search instead of once per
/// pair.
pub(crate) struct SecCache {
    entries: Vec<Option<Result<NodeValues, crate::model::types::FailMode>>>,
}

impl SecCache {
    fn new(state: &State, inst: &Instance, list: &PairList) -> SecCache {
        let mut entries: Vec<Option<Result<NodeValues, crate::model::types::FailMode>>> =
            Vec::new();
        for s in list.all_secondaries() {
            if entries.len() <= s {
                entries.resize(s + 1, None);
            }
            let node_s = state.node_at(s);
            // Computed with a key no node has, hence no node's peer.
            if entries[s].is_none() && !node_s.peers.iter().any(|&(k, _)| k < 0) {
                entries[s] = Some(secondary_values(node_s, inst, -1));
            }
        }
        SecCache { entries }
    }

    fn get(&self, s: usize) -> Option<&Result<NodeValues, crate::model::types::FailMode>> {
        self.entries.get(s).and_then(Option::as_ref)
    }
}

/// The per-secondary part of [`pair_scan`]: the secondary's checks, then
/// `score(s, new values of s)`.
#[allow(clippy::too_many_arguments)]
fn scan_secondaries(
    state: &State,
    inst: &Instance,
    p: usize,
    secondaries: Secondaries<'_>,
    collect: bool,
    mut notes: Option<&mut Vec<CandidateNote>>,
    cache: Option<&SecCache>,
    score: impl Fn(usize, &NodeValues) -> f64,
) -> PairScan {
    let mut failures = FailTally::default();
    let mut succeeded = 0u64;
    let mut best: Option<Candidate> = None;
    let mut any_nan = false;
    let mut all = Vec::new();
    for s in secondaries.iter() {
        let node_s = state.node_at(s);
        // A secondary that does not host an instance of this primary yet
        // is checked and changed the same way whatever the primary.
        let cached = match cache {
            Some(c) if notes.is_none() && !node_s.peers.iter().any(|&(k, _)| k == p as i32) => {
                c.get(s)
            }
            _ => None,
        };
        let new_s_vals = match cached {
            Some(Err(f)) => {
                failures.add(*f);
                continue;
            }
            Some(Ok(values)) => *values,
            None => match secondary_values(node_s, inst, p as i32) {
                Err(f) => {
                    failures.add(f);
                    if let Some(n) = notes.as_deref_mut() {
                        n.push(note(p, Some(s), CandidateOutcome::Refused(f)));
                    }
                    continue;
                }
                Ok(values) => values,
            },
        };
        let sc = score(s, &new_s_vals);
        if let Some(n) = notes.as_deref_mut() {
            n.push(note(p, Some(s), CandidateOutcome::Scored(sc)));
        }
        succeeded += 1;
        let c = Candidate {
            primary: p,
            secondary: Some(s),
            score: sc,
        };
        if collect {
            all.push(c);
            continue;
        }
        if sc.is_nan() {
            any_nan = true;
        }
        let keep_old = matches!(&best, Some(b) if b.score < sc);
        if !keep_old {
            best = Some(c);
        }
    }
    if collect {
        PairScan::All(all)
    } else {
        PairScan::Best {
            failures,
            succeeded,
            best,
            any_nan,
        }
    }
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
pub struct GroupSearch {
    /// The groups owning nodes, with their node keys.
    pub groups: Vec<(usize, Vec<usize>)>,
    /// Whether any group was allowed.
    pub any_allowed: bool,
    /// The allowed groups refused for their networks, with hail's message.
    pub unconnected: Vec<(usize, String)>,
    /// The other allowed groups' results, in group order.
    pub results: Vec<(usize, Result<AllocSolution<f64>, SearchError>)>,
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
    let groups = split_groups(state, node_groups.len());
    let mut any_allowed = false;
    let mut unconnected = Vec::new();
    let mut results = Vec::new();
    // Each group's search leaves the state as it found it.
    let mut shared = SearchBase::new();
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
        let r = gen_alloc_nodes(state, keys, count, opts.restrict.as_deref())
            .and_then(|nodes| try_alloc_with(state, inst, &nodes, group_opts, &mut shared));
        if let Err(SearchError::Crash(c)) = r {
            return Err(c);
        }
        results.push((*g, r));
    }
    Ok(GroupSearch {
        groups,
        any_allowed,
        unconnected,
        results,
    })
}

impl GroupSearch {
    /// Every message: network refusals, then each group's description.
    pub fn messages(&self, node_groups: &[Group]) -> Vec<String> {
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

/// Finds a secondary for a single-node instance being converted to drbd
/// (`AllocateSecondary.tryAllocateSecondary`): the instance is taken off
/// its primary and re-placed there as drbd with every other node of the
/// primary's group as a candidate secondary, offline and drained ones
/// included. Returns the solution, or hail's message.
pub fn try_allocate_secondary(
    state: &mut State,
    idx: usize,
    opts: &AllocOptions,
) -> Result<Result<AllocSolution<f64>, String>, Crash> {
    let inst = state.inst(idx as i32)?.clone();
    if inst.s_node >= 0 {
        return Ok(Err("Instance already has a secondary".to_owned()));
    }
    let pidx = inst.p_node;
    let mut pnode = state.node(pidx)?.clone();
    pnode.remove_pri(&inst);
    let group = pnode.group;
    let p = pidx as usize;
    state.set_node(p, pnode);
    let mut drbd = inst;
    drbd.disk_template = crate::model::types::DiskTemplate::Drbd;
    let opts = &AllocOptions {
        online_secondary_only: true,
        ..opts.clone()
    };
    let secondaries: Vec<usize> = state
        .node_keys()
        .filter(|&k| k != p && state.node_at(k).group == group)
        .collect();
    match try_alloc(
        state,
        &drbd,
        &AllocNodes::Pairs(PairList::single(p, secondaries)),
        opts,
    ) {
        Ok(sol) => Ok(Ok(sol)),
        Err(SearchError::Message(m)) => Ok(Err(m)),
        Err(SearchError::Crash(c)) => Err(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::types::FailMode;
    use crate::model::Request;
    use crate::read::loader::{load_document, LoadOptions};
    use crate::search::solution::CandidateOutcome;

    /// Reads a request into the model.
    fn load_request(bytes: &[u8]) -> crate::read::loader::Loaded {
        let doc = crate::read::json::parse_document(bytes).expect("valid JSON");
        load_document(&doc, &LoadOptions::default()).expect("loads")
    }

    /// The new instance and node count of an allocate request.
    fn allocate_request(loaded: &crate::read::loader::Loaded) -> (&Instance, i64) {
        match &loaded.request {
            Request::Allocate {
                instance,
                required_nodes,
                ..
            } => (instance, *required_nodes),
            _ => panic!("an allocate request"),
        }
    }

    /// The allocation search of an allocate request with capacity checks.
    fn search(loaded: &crate::read::loader::Loaded, explain: bool) -> AllocSolution<f64> {
        let (instance, required_nodes) = allocate_request(loaded);
        let opts = AllocOptions {
            capacity_checks: true,
            explain,
            ..Default::default()
        };
        let mut state = State::new(&loaded.cluster);
        try_mg_alloc(
            &loaded.cluster.groups,
            &mut state,
            instance,
            required_nodes,
            &opts,
        )
        .expect("answers")
    }

    /// With `explain`, the search keeps each candidate's outcome: refused
    /// with its reason, scored, or dropped by the capacity check.
    #[test]
    fn explain_records_every_candidate() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/protocol-samples/allocate-n1-fail.json"
        );
        let loaded = load_request(&std::fs::read(path).expect("sample exists"));
        let sol = search(&loaded, true);
        // hail's info for this sample: successes 1, failures 2 (FailMem: 1, FailN1: 1).
        let refused = sol
            .notes
            .iter()
            .filter(|n| matches!(n.outcome, CandidateOutcome::Refused(FailMode::Mem)))
            .count();
        let dropped = sol
            .notes
            .iter()
            .filter(|n| matches!(n.outcome, CandidateOutcome::Dropped(_)))
            .count();
        let scored = sol
            .notes
            .iter()
            .filter(|n| matches!(n.outcome, CandidateOutcome::Scored(_)))
            .count();
        assert_eq!((refused, dropped, scored), (1, 1, 1), "{:?}", sol.notes);
        let winner = sol.best.as_ref().expect("a placement").primary;
        assert!(sol
            .notes
            .iter()
            .any(|n| n.primary == winner && matches!(n.outcome, CandidateOutcome::Scored(_))));
        // Without `explain`, nothing is recorded.
        let sol = search(&loaded, false);
        assert!(sol.notes.is_empty());
    }

    /// The pairs of every primary of a drbd allocation, by the bounded scan
    /// (each secondary's check once, rows walked in the order of the
    /// secondaries' floors) and by the plain scan: the same tallies and the
    /// same best pair (lowest score, ties to the later secondary), on
    /// roomy clusters of near-identical nodes (many exact ties), tight ones
    /// (many refusals) and random ones (offline and drained nodes, tags,
    /// policies, exclusive storage).
    #[test]
    fn bounded_scan_matches_plain_scan() {
        use hailstone_devtools::generate::{generate, CaseSpec, DiskTemplate, RequestKind};
        let mut specs = Vec::new();
        for seed in 1..=3 {
            let mut tie = CaseSpec::new(seed, RequestKind::Allocate, 60);
            tie.instances_per_node = 0.3;
            tie.tightness = 0.1;
            specs.push(tie);
            let mut tight = CaseSpec::new(seed, RequestKind::Allocate, 80);
            tight.tightness = 0.95;
            tight.disk_tightness = 0.9;
            tight.new_size = 0.8;
            specs.push(tight);
        }
        for seed in 1..=40 {
            specs.push(CaseSpec::random(seed, RequestKind::Allocate, 20..=120));
        }
        let (mut bounded_rows, mut pruned) = (0usize, 0usize);
        for mut spec in specs {
            spec.template = Some(DiskTemplate::Drbd);
            let loaded = load_request(generate(&spec).request.as_bytes());
            let (instance, _) = allocate_request(&loaded);
            let state = State::new(&loaded.cluster);
            let stats = state.cluster_stats();
            let opts = AllocOptions::default();
            for (_, keys) in split_groups(&state, loaded.cluster.groups.len()) {
                let Ok(AllocNodes::Pairs(list)) = gen_alloc_nodes(&state, &keys, 2, None) else {
                    continue;
                };
                let cache = SecCache::new(&state, instance, &list);
                let plan = PairPlan::new(&state, &stats, instance, &list, &opts, &cache);
                for (p, secs, l) in list.iter_indexed() {
                    let Some(lp) = plan.lists[l].as_ref() else {
                        continue;
                    };
                    let Some(fast) =
                        bounded_scan(&state, &stats, instance, p, &opts, &plan, lp, &cache)
                    else {
                        continue;
                    };
                    let slow =
                        pair_scan(&state, &stats, instance, p, secs, &opts, false, None, None);
                    bounded_rows += 1;
                    match (&fast, &slow) {
                        (
                            PairScan::Best { any_nan: false, .. },
                            PairScan::Best { any_nan: false, .. },
                        ) => assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{spec:?}"),
                        (
                            PairScan::Best {
                                failures: f1,
                                succeeded: s1,
                                ..
                            },
                            PairScan::Best {
                                failures: f2,
                                succeeded: s2,
                                ..
                            },
                        ) => assert_eq!((f1, s1), (f2, s2)),
                        _ => panic!("{fast:?} {slow:?}"),
                    }
                    // How many secondaries the walk scored.
                    let best = match &fast {
                        PairScan::Best { best: Some(b), .. } => b.score,
                        _ => continue,
                    };
                    let floor = crate::score::pairbound::row_floor(
                        &primary_row(&state, &stats, instance, p, &opts)
                            .expect("checked")
                            .expect("online")
                            .values,
                    );
                    pruned += lp
                        .sorted
                        .iter()
                        .filter(|(f, _, _)| crate::score::pairbound::cannot_beat(floor, *f, best))
                        .count();
                }
            }
        }
        assert!(bounded_rows >= 1000, "only {bounded_rows} rows bounded");
        assert!(pruned >= 10 * bounded_rows, "only {pruned} pairs pruned");
    }

    /// `winner_only` settles only the rows that can still win: the same
    /// placement and score as the exact search, and, when no placement is
    /// found, the same tallies; on tight clusters where the capacity check
    /// drops many rows' best pairs.
    #[test]
    fn winner_only_keeps_the_placement() {
        use hailstone_devtools::generate::{generate, CaseSpec, DiskTemplate, RequestKind};
        let (mut placed, mut differ) = (0usize, 0usize);
        for seed in 1..=40 {
            let mut spec = CaseSpec::random(seed, RequestKind::Allocate, 10..=150);
            spec.template = Some(DiskTemplate::Drbd);
            if seed.is_multiple_of(2) {
                spec.tightness = 0.9;
                spec.new_size = 0.5;
            }
            let loaded = load_request(generate(&spec).request.as_bytes());
            let (instance, required_nodes) = allocate_request(&loaded);
            let run = |winner_only: bool| {
                let opts = AllocOptions {
                    capacity_checks: true,
                    winner_only,
                    ..Default::default()
                };
                let mut state = State::new(&loaded.cluster);
                let search = search_groups(
                    &loaded.cluster.groups,
                    &mut state,
                    None,
                    instance,
                    required_nodes,
                    &opts,
                )
                .expect("no crash");
                search
                    .results
                    .into_iter()
                    .map(|(g, r)| match r {
                        Ok(sol) => {
                            let best = sol
                                .best
                                .as_ref()
                                .map(|b| (b.primary, b.secondary, b.metric.to_bits()));
                            let tallies = best.is_none().then(|| sol.describe());
                            (g, Ok((best, tallies)), sol.describe())
                        }
                        Err(e) => (g, Err(format!("{e:?}")), String::new()),
                    })
                    .collect::<Vec<_>>()
            };
            let exact = run(false);
            let fast = run(true);
            for (e, f) in exact.iter().zip(&fast) {
                assert_eq!((&e.0, &e.1), (&f.0, &f.1), "seed {seed}");
                if matches!(&e.1, Ok((Some(_), _))) {
                    placed += 1;
                }
                if e.2 != f.2 {
                    differ += 1;
                }
            }
        }
        assert!(placed >= 20, "only {placed} placements");
        // Some searches skipped a dropped pair's row (their tallies differ).
        assert!(differ >= 1, "no row was left unsettled");
    }

    /// The groups of one [`search_groups`] share the data of the state
    /// ([`SearchBase`]): each group's result is the one a search of that
    /// group alone finds on a fresh copy of the state (same placement,
    /// score bits, tallies and text), with and without the capacity check,
    /// for single nodes and pairs. Without the capacity check, `winner_only`
    /// changes no group's result either (what lets a group change read
    /// every group's tallies with it).
    #[test]
    fn shared_search_base_matches_fresh_searches() {
        use hailstone_devtools::generate::{generate, CaseSpec, DiskTemplate, RequestKind};
        let summary = |sol: &AllocSolution<f64>| {
            let best = sol.best.as_ref().map(|b| {
                (
                    b.primary,
                    b.secondary,
                    b.metric.to_bits(),
                    b.node_names.clone(),
                )
            });
            (best, sol.allocs, sol.failures, sol.log.clone())
        };
        let (mut compared, mut placed, mut singles) = (0usize, 0usize, 0usize);
        for seed in 1..=60u64 {
            let mut spec = CaseSpec::random(seed, RequestKind::Allocate, 20..=160);
            spec.groups = 2 + (seed as usize) % 3;
            spec.template = Some(match seed % 3 {
                0 => DiskTemplate::Ext,
                1 => DiskTemplate::Plain,
                _ => DiskTemplate::Drbd,
            });
            if seed.is_multiple_of(4) {
                spec.tightness = 0.9;
            }
            let loaded = load_request(generate(&spec).request.as_bytes());
            let (instance, required_nodes) = allocate_request(&loaded);
            let groups = &loaded.cluster.groups;
            for (capacity_checks, winner_only) in [(true, false), (false, false), (false, true)] {
                let opts = AllocOptions {
                    capacity_checks,
                    winner_only,
                    ..Default::default()
                };
                let mut state = State::new(&loaded.cluster);
                let search =
                    search_groups(groups, &mut state, None, instance, required_nodes, &opts)
                        .expect("no crash");
                // Each group alone, on its own fresh state, every tally
                // exact.
                let alone_opts = AllocOptions {
                    winner_only: false,
                    ..opts.clone()
                };
                for (g, r) in &search.results {
                    let mut fresh = State::new(&loaded.cluster);
                    let keys = fresh.group_keys(*g).to_vec();
                    let alone = gen_alloc_nodes(&fresh, &keys, required_nodes, None)
                        .and_then(|nodes| try_alloc(&mut fresh, instance, &nodes, &alone_opts));
                    match (r, &alone) {
                        (Ok(a), Ok(b)) => {
                            assert_eq!(summary(a), summary(b), "seed {seed} group {g}");
                            placed += usize::from(a.best.is_some());
                            singles += usize::from(required_nodes == 1);
                        }
                        (a, b) => {
                            assert_eq!(a.as_ref().err(), b.as_ref().err(), "seed {seed} group {g}")
                        }
                    }
                    compared += 1;
                }
            }
        }
        assert!(
            compared >= 300 && placed >= 100 && singles >= 50,
            "too few cases: {compared} groups, {placed} placements, {singles} single-node"
        );
    }

    /// A search large enough to scan on several threads finds what the
    /// one-thread scan finds, and the same with its notes on: same
    /// placement, score and counts.
    #[test]
    fn threaded_scan_matches_sequential_scan() {
        use hailstone_devtools::generate::{generate, CaseSpec, DiskTemplate, RequestKind};
        let mut spec = CaseSpec::new(7, RequestKind::Allocate, 600);
        spec.template = Some(DiskTemplate::Drbd);
        let loaded = load_request(generate(&spec).request.as_bytes());
        let (instance, required_nodes) = allocate_request(&loaded);
        let summary = |explain: bool| {
            let sol = search(&loaded, explain);
            let best = sol
                .best
                .as_ref()
                .map(|b| (b.primary, b.secondary, b.metric.to_bits()));
            (best, sol.allocs, format!("{:?}", sol.failures), sol.log)
        };
        // Each primary's scan, threaded and in order.
        let state = State::new(&loaded.cluster);
        let stats = state.cluster_stats();
        let opts = AllocOptions::default();
        let keys: Vec<usize> = state.node_keys().collect();
        let nodes = gen_alloc_nodes(&state, &keys, required_nodes, None).expect("candidates");
        let AllocNodes::Pairs(list) = nodes else {
            panic!("pairs for a drbd instance")
        };
        let pairs: usize = list.iter().map(|(_, s)| s.len()).sum();
        assert!(
            pairs >= PARALLEL_PAIRS * BOUNDED_PARALLEL_FACTOR,
            "the search must be large enough to thread"
        );
        let threaded: Vec<String> = scan_all(&state, &stats, instance, &list, &opts)
            .iter()
            .map(|(s, _)| format!("{s:?}"))
            .collect();
        let in_order: Vec<String> = list
            .iter()
            .map(|(p, s)| {
                format!(
                    "{:?}",
                    pair_scan(&state, &stats, instance, p, s, &opts, false, None, None)
                )
            })
            .collect();
        assert_eq!(threaded, in_order);
        // And the whole search.
        let threaded = summary(false);
        assert!(threaded.0.is_some(), "a placement: {threaded:?}");
        assert_eq!(threaded, summary(true));
    }
}
