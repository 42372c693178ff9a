//! The [`Recorder`]: what the answer's searches showed, turned into parts
//! of the explanation as each search happens, on the state it saw (the
//! recorder is the request search's [`Observer`]).

use crate::explain::{allocate, moves};
use crate::model::group::Group;
use crate::model::instance::Instance;
use crate::model::types::DiskTemplate;
use crate::model::{Cluster, TagTable};
use crate::search::allocate::{AllocOptions, GroupSearch, SearchError};
use crate::search::dedicated::GroupResults;
use crate::search::evacuate::{EvacSolution, MoveNote};
use crate::search::request::Observer;
use crate::search::solution::AllocSolution;
use crate::search::state::{Crash, State};

/// What the answer's searches explained, in order.
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    /// The tag names, for refusals that name a tag.
    pub tags: TagTable,
    /// One part per instance placed, in the request's order.
    pub placements: Vec<allocate::Placement>,
    /// One part per instance moved to one new node, in order.
    pub moves: Vec<moves::MovePart>,
    /// Notes on the whole request (dedicated allocation, instances that
    /// could not be moved).
    pub notes: Vec<String>,
}

impl Recorder {
    /// A recorder for a request on `cluster`.
    pub fn new(cluster: &Cluster) -> Recorder {
        Recorder {
            tags: cluster.tags.clone(),
            placements: Vec::new(),
            moves: Vec::new(),
            notes: Vec::new(),
        }
    }
}

impl Recorder {
    /// Adds the placement `explain` builds with this recorder's context.
    fn place(
        &mut self,
        groups: &[Group],
        opts: &AllocOptions,
        explain: impl FnOnce(&allocate::Context<'_>) -> Result<allocate::Placement, Crash>,
    ) -> Result<(), Crash> {
        let ctx = allocate::Context {
            groups,
            tags: &self.tags,
            opts,
        };
        let part = explain(&ctx)?;
        self.placements.push(part);
        Ok(())
    }
}

impl Observer for Recorder {
    fn dedicated_request(&mut self) {
        self.notes.push(
            "dedicated allocation (every node has exclusive storage): hail compares the \
             candidates by the allocations of the policy's minimal instances they lose, then \
             by the disk they leave, not by the cluster score"
                .to_owned(),
        );
    }

    fn group_search(
        &mut self,
        groups: &[Group],
        opts: &AllocOptions,
        state: &mut State,
        inst: &Instance,
        count: i64,
        search: &GroupSearch,
    ) -> Result<(), Crash> {
        self.place(groups, opts, |ctx| {
            allocate::from_search(ctx, state, inst, count, search)
        })
    }

    fn group_alloc(
        &mut self,
        groups: &[Group],
        opts: &AllocOptions,
        gstate: &mut State,
        group: Option<usize>,
        inst: &Instance,
        count: i64,
        result: &Result<AllocSolution<f64>, SearchError>,
    ) -> Result<(), Crash> {
        self.place(groups, opts, |ctx| {
            allocate::from_group(ctx, gstate, group, inst, count, result)
        })
    }

    /// Explains a dedicated allocation of `inst`: each group's dedicated
    /// search (all groups, or the one named). A group whose search hail
    /// crashes on ends the explanation with the crash.
    fn dedicated(
        &mut self,
        groups: &[Group],
        opts: &AllocOptions,
        state: &mut State,
        inst: &Instance,
        count: i64,
        results: &GroupResults,
    ) -> Result<(), Crash> {
        if let Some((_, Err(SearchError::Crash(c)))) = results
            .iter()
            .find(|(_, r)| matches!(r, Err(SearchError::Crash(_))))
        {
            return Err(c.clone());
        }
        self.place(groups, opts, |ctx| {
            allocate::from_dedicated(ctx, state, inst, count, results)
        })
    }

    /// Explains an allocate-secondary search: the instance as the search
    /// saw it (drbd, off its primary, which the state still shows), its
    /// primary's group and the pairs tried.
    fn secondary(
        &mut self,
        groups: &[Group],
        opts: &AllocOptions,
        state: &mut State,
        idx: usize,
        sol: &AllocSolution<f64>,
    ) -> Result<(), Crash> {
        let mut drbd = state.inst(idx as i32)?.clone();
        drbd.disk_template = DiskTemplate::Drbd;
        let group = state.node(drbd.p_node)?.group;
        let opts = AllocOptions {
            online_secondary_only: true,
            ..opts.clone()
        };
        self.place(groups, &opts, |ctx| {
            allocate::from_group(ctx, state, Some(group), &drbd, 2, &Ok(sol.clone()))
        })
    }

    fn moves(&mut self, state: &State, notes: &[MoveNote]) {
        let parts = moves::parts(state, &self.tags, notes);
        self.moves.extend(parts);
    }

    /// Notes each instance an evacuation could not move, with hail's
    /// reason; for a group change, the group and nodes each instance went
    /// to (the group search picks the group; the move inside it picks its
    /// own nodes: the explanation shows those).
    fn evacuated(
        &mut self,
        groups: &[Group],
        state: &State,
        instances: Option<&[usize]>,
        sol: &EvacSolution,
    ) {
        if let Some(instances) = instances {
            for (part, &k) in self.placements.iter_mut().zip(instances) {
                part.chosen = sol.moved.iter().find(|m| m.0 == k).map(|(_, g, nodes)| {
                    let names = nodes
                        .iter()
                        .map(|&n| state.node_at(n).info.name.clone())
                        .collect();
                    (groups[*g].name.clone(), names)
                });
            }
        }
        for (k, message) in &sol.failed {
            let name = state.inst(*k as i32).map_or("?", |i| &i.name);
            self.notes.push(format!("{name} was not moved: {message}"));
        }
    }
}
