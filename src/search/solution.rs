//! Allocation solutions (`Cluster.AllocationSolution`): the failure tally,
//! the success count and the best placement of a candidate search, how
//! searches combine, and the `info` text describing them.
//!
//! Failures are data (a [`FailTally`] of counts per mode), never strings;
//! text is rendered only for the final answer.

use std::cmp::Ordering;

use crate::haskell::show as haskell;
use crate::model::instance::Instance;
use crate::model::types::{FailMode, FailTally};

/// A placement metric: hail's score (a float, lower is better) or the
/// dedicated-allocation metric. Comparisons follow Haskell's semantics
/// exactly, NaN included.
pub trait Metric: Clone {
    /// Haskell's `compare`.
    fn hs_compare(&self, other: &Self) -> Ordering;
    /// Haskell's `<`.
    fn hs_lt(&self, other: &Self) -> bool;
    /// The metric as hail prints it in `info`.
    fn describe(&self) -> String;
}

impl Metric for f64 {
    fn hs_compare(&self, other: &f64) -> Ordering {
        // GHC: if x < y then LT else if x == y then EQ else GT.
        if self < other {
            Ordering::Less
        } else if self == other {
            Ordering::Equal
        } else {
            Ordering::Greater
        }
    }

    fn hs_lt(&self, other: &f64) -> bool {
        self < other
    }

    fn describe(&self) -> String {
        haskell::printf_fixed(*self, 8)
    }
}

/// A chosen placement: the nodes (by index) and the instance as placed.
#[derive(Debug, Clone)]
pub struct Placement<M> {
    /// Primary node.
    pub primary: usize,
    /// Secondary node, for pair placements.
    pub secondary: Option<usize>,
    /// The placement's metric.
    pub metric: M,
    /// The instance with its new nodes (and location score) set.
    pub inst: Instance,
    /// Names of the placement's nodes, for messages and answers.
    pub node_names: Vec<String>,
    /// The placement's new nodes by index (primary, then secondary).
    pub nodes: Vec<(usize, crate::model::node::Node)>,
}

/// What became of one candidate placement; recorded only when asked for
/// (`AllocOptions::explain`), so that an explain mode can say why each node
/// or pair was refused without another search.
#[derive(Debug, Clone, PartialEq)]
pub struct CandidateNote {
    /// The candidate's primary node.
    pub primary: usize,
    /// Its secondary node, for pairs.
    pub secondary: Option<usize>,
    /// The outcome.
    pub outcome: CandidateOutcome,
}

/// The outcome of one candidate.
#[derive(Debug, Clone, PartialEq)]
pub enum CandidateOutcome {
    /// A policy or capacity check refused it.
    Refused(FailMode),
    /// It fit, with this score.
    Scored(f64),
    /// It fit and scored better than the winner, but would have left some
    /// node unable to be evacuated (the global N+1 check), or put a
    /// secondary on a node Ganeti refuses.
    Dropped(f64),
}

/// The result of a candidate search (`GenericAllocSolution`).
#[derive(Debug, Clone)]
pub struct AllocSolution<M> {
    /// Failed candidates per mode (`asFailures`).
    pub failures: FailTally,
    /// Successful candidates (`asAllocs`).
    pub allocs: u64,
    /// The best placement (`asSolution`).
    pub best: Option<Placement<M>>,
    /// Informational messages (`asLog`).
    pub log: Vec<String>,
    /// Every candidate's outcome, in search order, when asked for.
    pub notes: Vec<CandidateNote>,
}

impl<M: Metric> Default for AllocSolution<M> {
    fn default() -> Self {
        AllocSolution {
            failures: FailTally::default(),
            allocs: 0,
            best: None,
            log: Vec::new(),
            notes: Vec::new(),
        }
    }
}

/// `bestAllocElement`: keeps `a` only if it is strictly better, so ties go
/// to the later candidate `b`.
pub fn best_of<M: Metric>(
    a: Option<Placement<M>>,
    b: Option<Placement<M>>,
) -> Option<Placement<M>> {
    match (a, b) {
        (a, None) => a,
        (None, b) => b,
        (Some(a), Some(b)) => {
            if a.metric.hs_lt(&b.metric) {
                Some(a)
            } else {
                Some(b)
            }
        }
    }
}

impl<M: Metric> AllocSolution<M> {
    /// `sumAllocs`: adds a later partial solution.
    pub fn sum(mut self, later: AllocSolution<M>) -> AllocSolution<M> {
        self.add(later);
        self
    }

    /// [`AllocSolution::sum`] in place (no copy of the solution).
    pub fn add(&mut self, later: AllocSolution<M>) {
        self.failures.merge(&later.failures);
        self.allocs += later.allocs;
        if later.best.is_some() {
            self.best = best_of(self.best.take(), later.best);
        }
        if !later.log.is_empty() {
            let mut log = later.log;
            log.append(&mut self.log);
            self.log = log;
        }
        let mut later_notes = later.notes;
        self.notes.append(&mut later_notes);
    }

    /// `genericDescribeSolution`: the one-line summary of the search.
    pub fn describe(&self) -> String {
        match &self.best {
            None => {
                let reasons = if self.failures.total() == 0 {
                    "unknown reasons".to_owned()
                } else {
                    self.failures.describe()
                };
                format!("No valid allocation solutions, failure reasons: {reasons}")
            }
            Some(p) => format!(
                "score: {}, successes {}, failures {} ({}) for node(s) {}",
                p.metric.describe(),
                self.allocs,
                self.failures.total(),
                self.failures.describe(),
                p.node_names.join("/")
            ),
        }
    }

    /// `annotateSolution`: prepends the description to the log.
    pub fn annotate(mut self) -> AllocSolution<M> {
        let d = self.describe();
        self.log.insert(0, d);
        self
    }
}
