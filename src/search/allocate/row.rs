//! One primary's row of the pair search (`allocateOnPair` for each of its
//! secondaries): the primary's checks and its update of hail's running
//! statistics ([`primary_row`]), each pair's score from them
//! ([`pair_score`]), each secondary's check and values (once per search
//! for the secondaries that are no peer of the primary: [`SecCache`]),
//! and the row's scan ([`pair_scan`]).

use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::model::types::{FailTally, SoftChecks};
use crate::score::metric::{self, NodeValues};
use crate::search::moves::location_score;
use crate::search::solution::{CandidateNote, CandidateOutcome};
use crate::search::state::State;

use super::{note, AllocOptions, Candidate, PairList, Secondaries};

/// The outcome of scanning one primary's secondaries.
#[derive(Debug)]
pub(super) enum PairScan {
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
    /// The per-pair failures and the number of successes of a row whose
    /// every pair scores above the search's `outranked_above` (see
    /// [`super::GroupsRead::Winner`]): it cannot be chosen, and its best
    /// pair was not looked for.
    Outranked { failures: FailTally, succeeded: u64 },
}

/// A row's statistics after its primary's update: hail's running
/// statistics, the location-exclusion value, and the component values
/// (what a pair's score keeps of the components its secondary does not
/// change).
#[derive(Debug, Clone, Copy)]
pub(super) struct RowStats {
    pub(super) base: metric::StatArray,
    pub(super) map_value: i64,
    pub(super) values: [f64; metric::N_COMPONENTS],
}

/// Primary `p`'s checks and its update of the statistics: the check's
/// failure, or the row's statistics (`None` when no node is online: every
/// score is then 0).
pub(super) fn primary_row(
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
pub(super) fn row_is_plain(state: &State, inst: &Instance, p: usize) -> bool {
    let node_p = state.node_at(p);
    node_p.offline
        || inst.forthcoming
        || (node_p.info.location_tags.is_empty() && inst.location_score == 0)
}

/// The score of the pair (`p`, `s`) whose secondary takes the values
/// `new_s_vals`, with the row's statistics `row`: hail's running update of
/// the secondary after the primary's.
pub(super) fn pair_score(
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
pub(super) fn pair_scan(
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

/// A secondary's check and values with a drbd instance whose primary is
/// the node of key `pdx` (`allocateOnPair`'s secondary half).
pub(super) fn secondary_values(
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
pub(super) struct SecCache {
    /// The entry of node key `first + i` at `i`: sized once to the list's
    /// span of keys (a group's keys lie close together), not to every key
    /// up to the largest, nor grown key by key.
    first: usize,
    entries: Vec<Option<Result<NodeValues, crate::model::types::FailMode>>>,
}

impl SecCache {
    pub(super) fn new(state: &State, inst: &Instance, list: &PairList) -> SecCache {
        let (first, last) = list
            .all_secondaries()
            .fold((usize::MAX, 0), |(lo, hi), s| (lo.min(s), hi.max(s)));
        let mut entries: Vec<Option<Result<NodeValues, crate::model::types::FailMode>>> =
            if first > last {
                Vec::new()
            } else {
                vec![None; last - first + 1]
            };
        for s in list.all_secondaries() {
            let slot = &mut entries[s - first];
            let node_s = state.node_at(s);
            // Computed with a key no node has, hence no node's peer.
            if slot.is_none() && !node_s.peers.iter().any(|&(k, _)| k < 0) {
                *slot = Some(secondary_values(node_s, inst, -1));
            }
        }
        SecCache { first, entries }
    }

    pub(super) fn get(
        &self,
        s: usize,
    ) -> Option<&Result<NodeValues, crate::model::types::FailMode>> {
        s.checked_sub(self.first)
            .and_then(|i| self.entries.get(i))
            .and_then(Option::as_ref)
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
