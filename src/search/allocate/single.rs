//! The single-node search (`tryAlloc` over single nodes): every node's
//! checks and score, each candidate's full O(N) score replaced by the
//! `argmin` approximation with its bound when there are many, and the
//! winner chosen among them ([`super::choose_by_bounds`], else
//! [`super::choose`]).

use crate::model::instance::Instance;
use crate::model::types::FailTally;
use crate::score::metric;
use crate::search::solution::{AllocSolution, CandidateOutcome};
use crate::search::state::State;

use super::{
    choose, choose_by_bounds, mark_dropped, note, AllocOptions, Candidate, SearchBase, SearchError,
};

/// Below this many candidates a single-node search scores each exactly.
const SHORTCUT_SINGLES: usize = 16;

pub(super) fn try_single(
    state: &mut State,
    inst: &Instance,
    list: &[usize],
    opts: &AllocOptions,
    shared: &mut SearchBase,
) -> Result<AllocSolution<f64>, SearchError> {
    let mut failures = FailTally::default();
    let mut notes = Vec::new();
    let mut ok = Vec::new();
    // Without explanations, each candidate's full O(N) score is replaced by
    // an approximation with a rigorous bound (`argmin`), and only the
    // candidates that can win are scored exactly (see `choose_by_bounds`).
    let base = if !opts.explain && !state.any_instance_map() && list.len() >= SHORTCUT_SINGLES {
        shared.present_base(state).cloned()
    } else {
        None
    };
    let cache = &mut shared.n1;
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
