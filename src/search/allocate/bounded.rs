//! The bounded scan of a pair search's rows: a plan per secondary list
//! ([`PairPlan`]: each secondary's check once, its lower bound of its part
//! of any row's score, `score::pairbound`), by which a plain row scores
//! only the secondaries that may reach its minimum and still finds hail's
//! exact best pair, tie included, and its exact tallies
//! ([`bounded_scan`], the same [`PairScan`] as the full scan of
//! `allocateOnPair` for each secondary).

use crate::model::instance::Instance;
use crate::model::types::FailTally;
use crate::score::metric;
use crate::search::state::State;

use super::row::{
    pair_score, primary_row, row_is_plain, secondary_values, PairScan, RowStats, SecCache,
};
use super::{AllocOptions, Candidate, PairList};

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
pub(super) struct ListPlan {
    /// Each position's kind.
    kinds: Vec<SecKind>,
    /// Each node key's position in the list (`u32::MAX`: none).
    pos_of: Vec<u32>,
    /// The bounded secondaries, ascending by floor: (floor, key, position).
    pub(super) sorted: Vec<(f64, usize, u32)>,
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
/// (the [`SecCache`]), each primary's row statistics and their range, and
/// per list the secondaries ordered by the lower bound of their part of a
/// score.
pub(super) struct PairPlan {
    ranges: crate::score::pairbound::RowRanges,
    pub(super) lists: Vec<Option<ListPlan>>,
    /// Each primary's row statistics, by its position in the pair list
    /// (`None`: its check failed, or no node is online): computed once,
    /// for the ranges and the row's scan.
    rows: Vec<Option<RowStats>>,
}

/// Below this many secondaries, a list's rows are scanned in full.
const BOUNDED_LIST: usize = 16;

impl PairPlan {
    pub(super) fn new(
        state: &State,
        stats: &metric::ClusterStats,
        inst: &Instance,
        list: &PairList,
        opts: &AllocOptions,
        cache: &SecCache,
    ) -> PairPlan {
        use crate::score::pairbound::{secondary_floor, RowRanges};
        let mut ranges = RowRanges::default();
        let rows: Vec<Option<RowStats>> = list
            .iter()
            .map(|(p, _)| {
                let row = primary_row(state, stats, inst, p, opts).ok().flatten()?;
                ranges.include(&row.base);
                Some(row)
            })
            .collect();
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
        PairPlan {
            ranges,
            lists,
            rows,
        }
    }
}

/// [`pair_scan`](super::row::pair_scan) of a plain row (without notes, not
/// collecting) by its plan: the tallies from the list's, corrected for the
/// primary itself and the secondaries it is a peer of (checked for this
/// primary); the exact secondaries scored; then the bounded ones in
/// ascending order of their floor, until the row's floor plus theirs lies
/// above the best score so far: every later one scores strictly higher, so
/// the lowest score and its last pair in list order (hail's tie rule) are
/// found without them. With `outranked_above` (a score above which no
/// placement can be chosen, [`super::GroupsRead::Winner`]), the scan also
/// stops once every later pair scores above it; a row whose best is then
/// above it or not found is [`PairScan::Outranked`]. `None` when the row
/// is not plain or its statistics are out of the plan's ranges: the
/// caller scans it in full.
#[allow(clippy::too_many_arguments)]
pub(super) fn bounded_scan(
    state: &State,
    inst: &Instance,
    p: usize,
    at: usize,
    plan: &PairPlan,
    list: &ListPlan,
    cache: &SecCache,
    outranked_above: Option<f64>,
) -> Option<PairScan> {
    use crate::score::pairbound::{cannot_beat, row_floor};
    if !row_is_plain(state, inst, p) {
        return None;
    }
    let row = plan.rows.get(at)?.as_ref()?;
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
                any_nan |= consider(&mut best, pair_score(state, inst, p, row, s, &y), pos, s);
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
                any_nan |= consider(&mut best, pair_score(state, inst, p, row, s, &y), pos, s);
            }
        }
    }
    // Whether the rest of the row surely scores above `outranked_above`
    // while its best so far does not settle it.
    let mut cut = false;
    if !any_nan {
        let floor = row_floor(&row.values);
        for &(sf, s, pos) in &list.sorted {
            if let Some((b, _, _)) = best {
                if cannot_beat(floor, sf, b) {
                    break;
                }
            }
            if outranked_above.is_some_and(|c| cannot_beat(floor, sf, c)) {
                cut = true;
                break;
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
    // Cut short (the best so far did not stop the scan, so it too lies
    // above `outranked_above`), the row is not chosen.
    if cut {
        return Some(PairScan::Outranked {
            failures,
            succeeded,
        });
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
