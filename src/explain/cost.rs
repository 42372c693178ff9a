//! What the allocator's evacuation answers cost to carry out
//! ([`crate::model::cost`]): the moves of a node-evacuate or change-group
//! answer, and the new node of a relocate answer, each instance's job with
//! the data it copies, and the whole answer's cost, for `--explain`. An
//! answer that moves no instance (a failed request) has no plan: no
//! cost.
//!
//! An answer's jobs are the instances' moves as Ganeti runs them
//! (`Cluster.iMoveToJob`): a failover is a migration of a running
//! instance (memory copied), of a stopped or forthcoming one a failover
//! (nothing copied); a new secondary
//! (`replace-disks`) resyncs every disk. A relocate answer is one new
//! secondary for a drbd instance (Ganeti's `replace-disks -I`), a new
//! primary (a migration) for shared storage. Ganeti submits an
//! evacuation's jobs together, so the answer is one job set: its time is
//! its longest job's (the shortest it can take: jobs on one node share
//! its network and may wait for its locks). The answer does not tell an
//! offline primary from a drained one (the loaded cluster marks both
//! offline): a running instance's migration is counted with its memory
//! even off an offline primary, where Ganeti fails it over and copies
//! nothing, so the memory is at most what is copied.
//!
//! The cluster is moved into the request's search, so what the cost needs
//! (the instances concerned, the nodes' names and offline flags) is kept
//! before it runs ([`Basis::new`]).

use std::collections::BTreeMap;

use crate::model::cost::{relocation_cost, MoveCost, PlanCost, Rates};
use crate::model::instance::Instance;
use crate::model::response::Response;
use crate::model::types::{DiskTemplate, IMove};
use crate::model::{Cluster, Request};
use crate::write::json::{s, Json};

/// What an answer's cost is computed from: the request's instances as
/// they were before it, the nodes by name.
#[derive(Debug, Clone)]
pub struct Basis {
    /// The instances the request moves, by name.
    instances: BTreeMap<String, Instance>,
    /// Each node's index, by name.
    nodes: BTreeMap<String, usize>,
    /// A relocate request's instance.
    relocated: Option<String>,
}

impl Basis {
    /// The basis of `request` on `cluster`, for the requests that move
    /// existing instances (relocate, node-evacuate, change-group); `None`
    /// for the others.
    pub fn new(cluster: &Cluster, request: &Request) -> Option<Basis> {
        let (concerned, relocated): (Vec<usize>, Option<usize>) = match request {
            Request::Relocate { instance, .. } => (vec![*instance], Some(*instance)),
            Request::NodeEvacuate { instances, .. } | Request::ChangeGroup { instances, .. } => {
                (instances.clone(), None)
            }
            _ => return None,
        };
        let instances = concerned
            .iter()
            .filter_map(|&k| cluster.instances.get(k))
            .map(|i| (i.name.to_string(), i.clone()))
            .collect();
        let nodes = cluster
            .nodes
            .iter()
            .enumerate()
            .map(|(k, n)| (n.info.name.clone(), k))
            .collect();
        Some(Basis {
            instances,
            nodes,
            relocated: relocated
                .and_then(|k| cluster.instances.get(k))
                .map(|i| i.name.to_string()),
        })
    }

    fn node(&self, name: &str) -> Option<usize> {
        self.nodes.get(name).copied()
    }

    /// The cost of one instance's `moves` (nodes by name), `running` or not.
    fn job(&self, inst: &Instance, moves: &[IMove<String>], running: bool) -> Option<MoveCost> {
        let moves: Option<Vec<IMove<usize>>> = moves
            .iter()
            .map(|m| {
                Some(match m {
                    IMove::Failover => IMove::Failover,
                    IMove::FailoverToAny(n) => IMove::FailoverToAny(self.node(n)?),
                    IMove::ReplaceSecondary(n) => IMove::ReplaceSecondary(self.node(n)?),
                    IMove::ReplacePrimary(n) => IMove::ReplacePrimary(self.node(n)?),
                    IMove::ReplaceAndFailover(n) => IMove::ReplaceAndFailover(self.node(n)?),
                    IMove::FailoverAndReplace(n) => IMove::FailoverAndReplace(self.node(n)?),
                })
            })
            .collect();
        Some(relocation_cost(
            inst,
            (inst.p_node, inst.s_node),
            &moves?,
            running,
            |_| false,
        ))
    }

    /// What the answer `response` costs at `rates`: each moved instance's
    /// job and the whole (one job set); `None` for an answer that moves
    /// nothing it knows (another request type, a failed relocation, an
    /// evacuation that moved no instance): without a move there is no
    /// plan to cost.
    pub fn cost(&self, response: &Response, rates: Rates) -> Option<AnswerCost> {
        let jobs: Vec<(String, MoveCost)> = match response {
            Response::Relocate(Ok(node)) => {
                let name = self.relocated.as_ref()?;
                let inst = self.instances.get(name)?;
                let mv = if inst.disk_template == DiskTemplate::Drbd {
                    IMove::ReplaceSecondary(node.clone())
                } else {
                    IMove::FailoverToAny(node.clone())
                };
                let running = inst.run_state.is_running() && !inst.forthcoming;
                vec![(name.clone(), self.job(inst, &[mv], running)?)]
            }
            Response::Relocate(Err(_)) => return None,
            Response::Evacuate(e) => e
                .moved
                .iter()
                .filter_map(|m| {
                    let inst = self.instances.get(&m.instance)?;
                    let running = inst.run_state.is_running() && !m.forthcoming;
                    Some((m.instance.clone(), self.job(inst, &m.moves, running)?))
                })
                .collect(),
            _ => return None,
        };
        if jobs.is_empty() {
            return None;
        }
        let set: Vec<MoveCost> = jobs.iter().map(|j| j.1).collect();
        Some(AnswerCost {
            plan: PlanCost::of_sets(&[set], rates),
            jobs,
        })
    }
}

/// What an evacuation answer costs: each instance's job, and the whole.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerCost {
    /// Each moved instance and its job's cost, in the answer's order.
    pub jobs: Vec<(String, MoveCost)>,
    /// The answer's cost: one job set of those jobs.
    pub plan: PlanCost,
}

impl AnswerCost {
    /// The text: the cost line, then one line per instance.
    pub fn text(&self) -> String {
        let mut out = crate::write::cost::line(&self.plan);
        out.push('\n');
        for (name, c) in &self.jobs {
            out.push_str(&format!(
                "  {name}: {} of disk, {} of memory; about {}\n",
                crate::write::cost::size(c.disk),
                crate::write::cost::size(c.memory),
                crate::write::cost::duration(c.seconds(self.plan.rates))
            ));
        }
        out
    }

    /// The `cost` object: the plan's, with each instance's job.
    pub fn json(&self) -> Json {
        let jobs = Json::Arr(
            self.jobs
                .iter()
                .map(|(name, c)| {
                    Json::Obj(vec![
                        ("instance", s(name)),
                        ("cost", crate::write::cost::move_json(c, self.plan.rates)),
                    ])
                })
                .collect(),
        );
        match crate::write::cost::plan_json(&self.plan) {
            Json::Obj(mut fields) => {
                fields.push(("jobs", jobs));
                Json::Obj(fields)
            }
            other => other,
        }
    }
}
