//! Where the nodes and instances go as they are read: the [`ClusterSink`]
//! (the loader is one; [`Collected`] keeps them written out for tests and
//! the fuzz targets) and what it gives back for members read on a second
//! thread ([`SplitTaken`]).

use super::path::{InputError, Path};
use super::wire::{WireGroup, WireInstance, WireNode};
use crate::read::json::ParseError;

/// Receives the cluster as it is read: the node groups once, then each
/// node and each instance in input order (duplicate names included). What
/// it is given lives for the call only. An error from the sink ends the
/// reading and is its result.
pub trait ClusterSink {
    /// All node groups, before the first node.
    fn groups(&mut self, groups: &[(&str, WireGroup<'_>)]) -> Result<(), InputError>;
    /// One node; `path` is its place in the message, for errors.
    fn node(&mut self, name: &str, node: WireNode<'_>, path: &Path) -> Result<(), InputError>;
    /// One instance; `path` is its place in the message, for errors.
    fn instance(
        &mut self,
        name: &str,
        instance: WireInstance<'_>,
        path: &Path,
    ) -> Result<(), InputError>;
    /// Whether the sink takes instances before the nodes
    /// ([`ClusterSink::early_instance`]): then a request whose instances
    /// come first (keys in alphabetical order) streams them too.
    fn takes_early_instances(&self) -> bool {
        false
    }
    /// One instance read before any node: kept, its node names resolved
    /// by [`ClusterSink::resolve_early_instances`] once the nodes are in,
    /// with the errors [`ClusterSink::instance`] would have given.
    fn early_instance(&mut self, _name: &str, _instance: WireInstance<'_>) {}
    /// Resolves the early instances' nodes in input order (the nodes have
    /// all been handed over): the first error [`ClusterSink::instance`]
    /// would have given for them, in the same order.
    fn resolve_early_instances(&mut self) -> Result<(), InputError> {
        Ok(())
    }
    /// The parser reached the split position `at` in the instances object
    /// (see [`crate::read::split`]): the instances from there to the end
    /// of the object, if they were read on another thread. When `take`,
    /// the sink takes them as [`ClusterSink::instance`] (or, when `early`,
    /// [`ClusterSink::early_instance`]) would have taken them one by one,
    /// up to the first error; otherwise only where the reading ended is
    /// wanted. `None`: nothing was read there; the parser reads on.
    fn split_instances(&mut self, _at: usize, _early: bool, _take: bool) -> Option<SplitTaken> {
        None
    }
    /// As [`ClusterSink::split_instances`], at the split position `at` in
    /// the nodes object: the nodes from there to the end of the object,
    /// taken as [`ClusterSink::node`] would have taken them one by one
    /// when `take`.
    fn split_nodes(&mut self, _at: usize, _take: bool) -> Option<SplitTaken> {
        None
    }
}

/// What [`ClusterSink::split_instances`] and [`ClusterSink::split_nodes`]
/// give back.
#[derive(Debug)]
pub struct SplitTaken {
    /// The position after the object, or the parse error met reading its
    /// members.
    pub end: Result<usize, ParseError>,
    /// The first error among the members taken, as they would have given
    /// it one by one.
    pub error: Option<InputError>,
}

/// A sink that keeps every node and instance as read, written out (for
/// tests and the fuzz targets, which compare whole messages).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Collected {
    /// Nodes in input order (duplicates kept), as `name: node`.
    pub nodes: Vec<String>,
    /// Instances in input order (duplicates kept), as `name: instance`.
    pub instances: Vec<String>,
}

impl ClusterSink for Collected {
    fn groups(&mut self, _: &[(&str, WireGroup<'_>)]) -> Result<(), InputError> {
        Ok(())
    }

    fn node(&mut self, name: &str, node: WireNode<'_>, _: &Path) -> Result<(), InputError> {
        self.nodes.push(format!("{name:?}: {node:?}"));
        Ok(())
    }

    fn instance(
        &mut self,
        name: &str,
        instance: WireInstance<'_>,
        _: &Path,
    ) -> Result<(), InputError> {
        self.instances.push(format!("{name:?}: {instance:?}"));
        Ok(())
    }
}
