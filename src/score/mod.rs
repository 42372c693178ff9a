//! Scoring: how good a cluster is, by hail's metric (lower is better).
//!
//! * Owns: the cluster metric with hail's exact floating-point procedure
//!   ([`metric`]) and the bounded approximation that finds the best-scoring
//!   candidate without scoring all of them exactly ([`argmin`]) and the group
//!   prepared for a search's candidates ([`base`]), the lower
//!   bound of a row of pair candidates ([`rowbound`]), the lower bounds of
//!   pair candidates under hail's running statistics ([`pairbound`]), and the
//!   bounds that carry a set of candidates' scores over a change of the
//!   group ([`spread`]).
//! * May use: the model.
//! * Must never: do IO, change the model, or allocate per candidate.

pub mod argmin;
pub mod base;
pub mod metric;
pub mod pairbound;
pub mod rowbound;
pub mod spread;
