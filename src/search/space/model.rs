//! The two ways of placing the next instance of a capacity count: hspace's
//! (`tryAlloc` over every group's nodes at once, scored on the whole
//! cluster) and the allocator's (`--allocator-model`: what hail answers to
//! an allocate request for the instance, `tryMGAlloc`: each group
//! searched, the best group by policy and score, the global N+1 check for
//! every template; on a cluster of exclusive storage the lost-allocations
//! metric of `Dedicated`).
//!
//! The allocator's count is the number of requests hail would accept one
//! after another, each on the cluster the previous ones left.

use crate::model::group::Group;
use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::model::types::FailTally;
use crate::search::allocate::{
    self, rank_group_results, try_alloc_unlogged, AllocNodes, AllocOptions, GroupSearch,
    SearchBase, SearchError,
};
use crate::search::dedicated::{self, GroupResults};
use crate::search::solution::{AllocSolution, Metric};
use crate::search::state::State;

/// How the next instance is placed.
#[derive(Debug, Clone, Copy)]
pub enum Engine<'a> {
    /// hspace's search.
    Hspace,
    /// hail's answer to one allocate request; `dedicated` when every node
    /// has exclusive storage (`Dedicated.isDedicated`).
    Allocator {
        groups: &'a [Group],
        dedicated: bool,
    },
}

/// The last search that found no place, kept for `--explain`.
#[derive(Debug, Clone)]
pub enum Refusal {
    /// hspace's search (its tally is the attempt's).
    Hspace,
    /// The allocator's search of every group.
    Groups(GroupSearch),
    /// The allocator's dedicated search of every group.
    Dedicated(GroupResults),
    /// A search that could not run (its message).
    Message(String),
}

/// One attempt to place an instance.
#[derive(Debug, Clone)]
pub enum Attempt {
    /// Placed: the instance as placed, its nodes as changed, and the
    /// failures of the other candidates.
    Placed {
        inst: Instance,
        nodes: Vec<(usize, Node)>,
        failures: FailTally,
    },
    /// Not placed: the failures counted and the search.
    Refused {
        failures: FailTally,
        refusal: Refusal,
    },
}

fn placed<M: Metric>(sol: &AllocSolution<M>) -> Option<Attempt> {
    sol.best.as_ref().map(|b| Attempt::Placed {
        inst: b.inst.clone(),
        nodes: b.nodes.clone(),
        failures: sol.failures,
    })
}

/// Every group's failures added up.
fn sum_failures<'a, M: Metric + 'a>(
    results: impl Iterator<Item = &'a Result<AllocSolution<M>, SearchError>>,
) -> FailTally {
    let mut tally = FailTally::default();
    for sol in results.flatten() {
        tally.merge(&sol.failures);
    }
    tally
}

impl Engine<'_> {
    /// Tries to place `inst` (needing `count` nodes; `nodes` are hspace's
    /// candidates) on the state, leaving the state as it was; `shared` is
    /// what earlier attempts computed of the same state.
    ///
    /// # Errors
    ///
    /// hspace's search that cannot run (no online nodes), or a lookup hail
    /// crashes on.
    pub fn attempt(
        &self,
        state: &mut State,
        inst: &Instance,
        count: i64,
        nodes: &AllocNodes,
        opts: &AllocOptions,
        shared: &mut SearchBase,
    ) -> Result<Attempt, SearchError> {
        match *self {
            Engine::Hspace => {
                let sol = try_alloc_unlogged(state, inst, nodes, opts, shared)?;
                Ok(placed(&sol).unwrap_or(Attempt::Refused {
                    failures: sol.failures,
                    refusal: Refusal::Hspace,
                }))
            }
            Engine::Allocator {
                groups,
                dedicated: false,
            } => {
                let search =
                    allocate::search_groups_with(groups, state, None, inst, count, opts, shared)?;
                if search.ranking(groups).is_empty() {
                    let failures = sum_failures(search.results.iter().map(|(_, r)| r));
                    return Ok(Attempt::Refused {
                        failures,
                        refusal: Refusal::Groups(search),
                    });
                }
                match search.choose(groups, None) {
                    Ok(choice) => Ok(placed(&choice.solution).unwrap_or(Attempt::Refused {
                        failures: choice.solution.failures,
                        refusal: Refusal::Message(String::new()),
                    })),
                    Err(SearchError::Message(m)) => Ok(Attempt::Refused {
                        failures: FailTally::default(),
                        refusal: Refusal::Message(m),
                    }),
                    Err(e) => Err(e),
                }
            }
            Engine::Allocator {
                groups,
                dedicated: true,
            } => {
                let results = dedicated::search_groups(groups, state, None, inst, count, opts);
                if let Some((_, Err(SearchError::Crash(c)))) = results
                    .iter()
                    .find(|(_, r)| matches!(r, Err(SearchError::Crash(_))))
                {
                    return Err(SearchError::Crash(c.clone()));
                }
                if rank_group_results(groups, &results).is_empty() {
                    let failures = sum_failures(results.iter().map(|(_, r)| r));
                    return Ok(Attempt::Refused {
                        failures,
                        refusal: Refusal::Dedicated(results),
                    });
                }
                match dedicated::choose_mg(groups, results) {
                    Ok(sol) => Ok(placed(&sol).unwrap_or(Attempt::Refused {
                        failures: sol.failures,
                        refusal: Refusal::Message(String::new()),
                    })),
                    Err(SearchError::Message(m)) => Ok(Attempt::Refused {
                        failures: FailTally::default(),
                        refusal: Refusal::Message(m),
                    }),
                    Err(e) => Err(e),
                }
            }
        }
    }

    /// Whether this is hspace's own count (its big steps and its N+1
    /// check off for drbd).
    pub fn is_hspace(&self) -> bool {
        matches!(self, Engine::Hspace)
    }
}
