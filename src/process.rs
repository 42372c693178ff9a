//! Runs one loaded request (`IAlloc.processRequest` and hail's `main`):
//! decides whether an allocation is dedicated, dispatches by request type,
//! and turns the algorithm's outcome into an [`Answer`].

use crate::allocate::{self, AllocOptions, SearchError};
use crate::answer::{self, Answer};
use crate::model::loader::Loaded;
use crate::model::{Cluster, Request};
use crate::solution::{AllocSolution, Metric};
use crate::state::State;

/// Why no answer can be given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// The request needs behaviour hailstone does not have yet.
    #[error("{0} is not implemented yet")]
    NotImplemented(String),
    /// hail itself would crash on this input (an internal lookup fails).
    #[error("cannot answer: the cluster data is inconsistent ({0}); hail fails on this input too")]
    Inconsistent(String),
}

/// The command-line settings that affect the algorithms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunOptions {
    /// `--ignore-soft-errors`.
    pub ignore_soft_errors: bool,
    /// `--no-capacity-checks` turns this off.
    pub capacity_checks: bool,
    /// `--restrict-allocation-to`.
    pub restrict_allocation_to: Option<Vec<String>>,
}

/// Whether an allocation request is "dedicated" (`Dedicated.isDedicated`):
/// every node either has exclusive storage or is outside the relevant
/// groups (those named by `group_name`, else all allocable groups).
pub fn is_dedicated(cluster: &Cluster, group_name: Option<&str>) -> bool {
    let relevant = |g: usize| match group_name {
        Some(name) => cluster.groups[g].name == name,
        None => cluster.groups[g].is_allocable(),
    };
    cluster.nodes.iter().all(|n| n.excl_storage || !relevant(n.group))
}

/// The group name that decides dedicated allocation, if the request is an
/// allocation (`isAllocationRequest`).
pub fn allocation_group(request: &Request) -> Option<Option<&str>> {
    match request {
        Request::Allocate { group_name, .. } => Some(group_name.as_deref()),
        Request::MultiAllocate { instances, group_name } => {
            // Every instance carries the outer group name, so the unique
            // group is that name whenever there is at least one instance.
            if instances.is_empty() {
                Some(None)
            } else {
                Some(group_name.as_deref())
            }
        }
        _ => None,
    }
}

fn search_failure<M: Metric>(r: Result<AllocSolution<M>, SearchError>) -> Result<Result<AllocSolution<M>, String>, RunError> {
    match r {
        Ok(sol) => Ok(Ok(sol)),
        Err(SearchError::Message(m)) => Ok(Err(m)),
        Err(SearchError::Crash(c)) => Err(RunError::Inconsistent(c.0)),
    }
}

/// `formatAllocate`: the node names, or a failure carrying the log.
fn format_allocate<M: Metric>(sol: &AllocSolution<M>) -> Answer {
    let info = sol.log.join(", ");
    match &sol.best {
        None => Answer::failure(&info),
        Some(p) => Answer::success(&info, answer::string_list(&p.node_names)),
    }
}

/// Processes the request.
pub fn run(loaded: &Loaded, opts: &RunOptions) -> Result<Answer, RunError> {
    let cluster = &loaded.cluster;
    if let Some(group) = allocation_group(&loaded.request) {
        if is_dedicated(cluster, group) {
            return Err(RunError::NotImplemented(
                "allocation on a dedicated (exclusive storage) cluster".to_owned(),
            ));
        }
    }
    match &loaded.request {
        Request::Allocate { instance, required_nodes, group_name, restrict_to_nodes } => {
            let alloc_opts = AllocOptions {
                ignore_soft_errors: opts.ignore_soft_errors,
                capacity_checks: opts.capacity_checks,
                restrict: opts.restrict_allocation_to.clone().or_else(|| restrict_to_nodes.clone()),
            };
            let result = match group_name {
                None => {
                    let mut state = State::new(cluster);
                    allocate::try_mg_alloc(cluster, &mut state, instance, *required_nodes, &alloc_opts)
                }
                Some(g) => allocate::try_group_alloc(cluster, g, instance, *required_nodes, &alloc_opts),
            };
            Ok(match search_failure(result)? {
                Ok(sol) => format_allocate(&sol),
                Err(message) => Answer::failure(&message),
            })
        }
        other => Err(RunError::NotImplemented(format!("request type '{}'", other.type_name()))),
    }
}
