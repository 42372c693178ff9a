//! The pair search (`tryAlloc` over the pairs of `genAllocNodes`, each
//! row `collectionToSolution`): every primary's row scanned, bounded by
//! its list's plan when it can be ([`super::bounded`]) and in full
//! otherwise ([`super::row`]), on several threads for a large list; then
//! each row settled with the capacity check, in list order or, with
//! `winner_only`, only the rows that could still win.

use crate::model::instance::Instance;
use crate::score::metric;
use crate::search::globaln1::N1Slot;
use crate::search::solution::{AllocSolution, CandidateNote};
use crate::search::state::State;

use super::bounded::{bounded_scan, PairPlan};
use super::row::{pair_scan, PairScan, SecCache};
use super::{choose, mark_dropped, AllocOptions, PairList, SearchBase, SearchError, Secondaries};

pub(super) fn try_pairs(
    state: &mut State,
    inst: &Instance,
    list: &PairList,
    opts: &AllocOptions,
    shared: &mut SearchBase,
) -> Result<AllocSolution<f64>, SearchError> {
    let SearchBase {
        stats,
        n1: cache,
        outranked_above,
        outranked,
        ..
    } = shared;
    let stats: &metric::ClusterStats = stats.get_or_insert_with(|| state.cluster_stats());
    // Only the winner read: rows surely above another group's placement
    // are cut short (`PairScan::Outranked`), never settled.
    let above = if opts.winner_only && !opts.explain {
        *outranked_above
    } else {
        None
    };
    // The scans only read the state: done up front (on several threads for
    // a large list, each primary's notes with it), then taken in list
    // order.
    let scans = scan_all(state, stats, inst, list, opts, above);
    *outranked = scans
        .iter()
        .any(|(scan, _)| matches!(scan, PairScan::Outranked { .. }));
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
        if matches!(scans[i], Some((PairScan::Outranked { .. }, _))) {
            continue;
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
                PairScan::Outranked {
                    failures,
                    succeeded,
                },
                notes,
            )) => (failures, succeeded, notes),
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
    cache: &mut N1Slot,
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
        PairScan::All(_) | PairScan::Outranked { .. } => AllocSolution::default(),
    })
}

/// Below this many pairs, a search scans on one thread (starting threads
/// would cost more than it saves).
pub(crate) const PARALLEL_PAIRS: usize = 16_000;

/// A search whose lists are bounded ([`PairPlan`]) scans on one thread
/// below this many times [`PARALLEL_PAIRS`] pairs.
pub(super) const BOUNDED_PARALLEL_FACTOR: usize = 16;

/// At most this many threads scan pairs.
const MAX_SCAN_THREADS: usize = 4;

/// How many threads a large scan uses: those available
/// ([`crate::threads::available`]), at most [`MAX_SCAN_THREADS`].
pub(crate) fn scan_threads() -> usize {
    crate::threads::available().min(MAX_SCAN_THREADS)
}

/// [`pair_scan`] of every primary of the list, in list order, with the
/// primary's candidate notes when `opts.explain` asks for them. A large
/// list is split into contiguous runs of primaries scanned on separate
/// threads; each result goes to its primary's position, so the outcome is
/// the same as scanning in order on one thread.
pub(super) fn scan_all(
    state: &State,
    stats: &metric::ClusterStats,
    inst: &Instance,
    list: &PairList,
    opts: &AllocOptions,
    outranked_above: Option<f64>,
) -> Vec<(PairScan, Vec<CandidateNote>)> {
    // Each primary with its position in the list.
    type Entry<'l> = (usize, (usize, Secondaries<'l>, usize));
    let entries: Vec<Entry<'_>> = list.iter_indexed().enumerate().collect();
    let cache = (!opts.explain).then(|| SecCache::new(state, inst, list));
    let plan = cache
        .as_ref()
        .map(|c| PairPlan::new(state, stats, inst, list, opts, c));
    let scan_run = |run: &[Entry<'_>]| -> Vec<(PairScan, Vec<CandidateNote>)> {
        run.iter()
            .map(|&(at, (p, secondaries, l))| {
                if let (Some(plan), Some(cache)) = (plan.as_ref(), cache.as_ref()) {
                    if let Some(lp) = plan.lists[l].as_ref() {
                        if let Some(scan) =
                            bounded_scan(state, inst, p, at, plan, lp, cache, outranked_above)
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
    let pairs: usize = entries.iter().map(|(_, (_, s, _))| s.list.len()).sum();
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
