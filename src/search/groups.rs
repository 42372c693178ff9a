//! Operations across node groups (seed 004, "Super cluster operations"):
//! group health, relocation of an instance into a connected group, the
//! repair of unhealthy groups and the compression of the super cluster.
//!
//! A group is *unhealthy* when an offline node of it still hosts
//! instances, *weakly unhealthy* when an online node fails N+1 (its free
//! memory below its largest failover reservation, as `hcheck` judges a
//! saved cluster) or an instance whose primary node is in it has its
//! secondary in another group (a split instance), healthy otherwise. A
//! [`Health`] keeps the figures of its judgement, so that a report of the
//! cluster before a plan never reads the state after it. Groups are
//! connected through a storage pool they share
//! ([`crate::model::storage`]); an instance moves only to a group of its
//! own pool.
//!
//! An instance moves between groups the way Ganeti changes its group
//! (`gnt-instance change-group`, hail's `tryChangeGroup`): the target
//! group is the one a new allocation of the instance would choose among
//! the allowed groups, and the instance is evacuated into it in "all"
//! mode (a drbd instance gets a new pair through replace-disks and
//! failovers, a shared-storage one fails over to the best node). Plain
//! and file instances cannot move, as in hail. Each relocation keeps the
//! moves and the opcodes of its job.
//!
//! Every trial runs on the one [`State`] and is rolled back through its
//! undo log: a group's repair that does not reach a healthy group, and
//! each compression trial, leave the state as they found it.
//!
//! Compression trials are independent (each starts from the state as
//! read), so they run side by side, each thread on its own copy of the
//! state ([`State::snapshot`]), the largest trial first; their results
//! are taken in group order, so the report is the one-thread report (the
//! searches inside a trial then keep to their thread:
//! [`AllocOptions::one_thread`]). The plan of `--evacuate` is not a second
//! run of the chosen trial: what the trial changed
//! ([`State::changes_since`]) is written back into the state.
//!
//! Cost of a compression: one group search per instance of each
//! candidate group (every other group of its pool, see
//! [`crate::search::allocate::search_groups`]) and one evacuation into
//! the chosen group; the README's 2,000-node, 10-group cluster runs about
//! 5,000 relocations.

use crate::model::group::Group;
use crate::model::instance::Instance;
use crate::model::storage::{self, StoragePool};
use crate::model::types::{DiskTemplate, RunState};
use crate::search::allocate::{AllocOptions, GroupSearch, GroupsRead};
use crate::search::check::{self, N1Memory, N1Rule};
use crate::search::evacuate::{self, GroupSearchHook};
use crate::search::moves::Move;
use crate::search::state::{Changes, Crash, State};

/// A group's health, as the seed defines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    Healthy,
    /// Online nodes fail N+1, or instances are split across groups.
    WeaklyUnhealthy,
    /// Offline nodes host instances.
    Unhealthy,
}

/// An offline node that hosts instances, and how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OfflineHost {
    pub node: usize,
    pub primaries: usize,
    pub secondaries: usize,
}

/// An online node failing N+1, with the figures of that judgement as they
/// were when it was made ([`check::as_read`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct N1Failure {
    pub node: usize,
    pub memory: N1Memory,
}

/// An instance of the group (its primary node is in it) whose secondary
/// node is in another group (Ganeti's `findSplitInstances`; `gnt-cluster
/// verify` warns of it, hbal leaves it where it is, hcheck 3.0.2 dies on
/// it with its capacity checks on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitInstance {
    pub inst: usize,
    /// Its secondary node and that node's group.
    pub secondary: usize,
    pub secondary_group: usize,
}

/// What makes a group unhealthy, as it was when judged: its offline nodes
/// that host instances and its online nodes failing N+1 (node keys,
/// ascending), its instances split across groups (by index). Every figure
/// a report gives is here: a report never reads a state, which a plan may
/// have changed since.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Health {
    pub group: usize,
    pub offline_hosts: Vec<OfflineHost>,
    pub n1_failing: Vec<N1Failure>,
    pub split: Vec<SplitInstance>,
}

impl Health {
    pub fn status(&self) -> Status {
        if !self.offline_hosts.is_empty() {
            Status::Unhealthy
        } else if !self.n1_failing.is_empty() || !self.split.is_empty() {
            Status::WeaklyUnhealthy
        } else {
            Status::Healthy
        }
    }
}

/// The health of group `g` in `state`: its offline nodes that host
/// instances, its online nodes failing N+1 as reading the state back
/// would judge them (hcheck judges the states hailstone-groups saves),
/// by hailstone-check's node verdicts, and its primaries whose secondary
/// is in another group.
pub fn health(state: &State, g: usize) -> Health {
    let keys = state.group_keys(g);
    let v = check::node_verdicts(state, keys, N1Rule::AsRead);
    let offline_hosts = v
        .offline
        .into_iter()
        .map(|k| {
            let n = state.node_at(k);
            OfflineHost {
                node: k,
                primaries: n.p_list.len(),
                secondaries: n.s_list.len(),
            }
        })
        .filter(|h| h.primaries + h.secondaries > 0)
        .collect();
    let n1_failing = v
        .n1_failing
        .into_iter()
        .map(|k| N1Failure {
            node: k,
            memory: check::as_read(state, k),
        })
        .collect();
    let mut split: Vec<SplitInstance> = keys
        .iter()
        .flat_map(|&k| state.node_at(k).p_list.iter())
        .filter_map(|&i| {
            let inst = state.inst(i).ok()?;
            let secondary = usize::try_from(inst.s_node).ok()?;
            let secondary_group = state.node(inst.s_node).ok()?.group;
            (secondary_group != g).then_some(SplitInstance {
                inst: usize::try_from(i).ok()?,
                secondary,
                secondary_group,
            })
        })
        .collect();
    split.sort_unstable_by_key(|s| s.inst);
    Health {
        group: g,
        offline_hosts,
        n1_failing,
        split,
    }
}

/// Why an instance is one of its group's problems.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// It lives on this offline node.
    OnOffline(usize),
    /// Its secondary is on this node of another group.
    Split(usize),
    /// It is a secondary on this node failing N+1.
    SecondaryOnN1(usize),
    /// It is a primary on this node failing N+1.
    PrimaryOnN1(usize),
}

/// The instances causing a group's problems, in the seed's order: every
/// instance on an offline node, then every instance split across groups
/// (it must leave whatever else moves), then every secondary on a node
/// failing N+1, then every primary there; nodes in key order, each node's
/// instances by index, each instance once (for its first reason).
pub fn problem_instances(state: &State, h: &Health) -> Vec<(usize, Problem)> {
    let mut out: Vec<(usize, Problem)> = Vec::new();
    let mut push = |list: &[i32], why: Problem| {
        let mut keys: Vec<usize> = list
            .iter()
            .filter_map(|&i| usize::try_from(i).ok())
            .collect();
        keys.sort_unstable();
        for k in keys {
            if !out.iter().any(|(o, _)| *o == k) {
                out.push((k, why));
            }
        }
    };
    for o in &h.offline_hosts {
        let n = state.node_at(o.node);
        let mut all: Vec<i32> = n.p_list.to_vec();
        all.extend_from_slice(&n.s_list);
        push(&all, Problem::OnOffline(o.node));
    }
    for s in &h.split {
        push(&[s.inst as i32], Problem::Split(s.secondary));
    }
    for f in &h.n1_failing {
        push(
            &state.node_at(f.node).s_list,
            Problem::SecondaryOnN1(f.node),
        );
    }
    for f in &h.n1_failing {
        push(&state.node_at(f.node).p_list, Problem::PrimaryOnN1(f.node));
    }
    out
}

/// One instance moved into another group.
#[derive(Debug, Clone, PartialEq)]
pub struct Relocation {
    pub inst: usize,
    /// Primary and secondary before ([`NO_NODE`](crate::model::instance::NO_NODE) for none).
    pub old_nodes: (i32, i32),
    /// The group it went to.
    pub group: usize,
    /// Its new nodes (primary first).
    pub nodes: Vec<usize>,
    /// The moves, in order (one job).
    pub moves: Vec<Move>,
    /// Whether it was running (migrations, not failovers).
    pub running: bool,
    pub template: DiskTemplate,
    /// What the group search said of each group tried (hail's texts).
    pub messages: Vec<String>,
}

/// An instance that could not move, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Refused {
    pub inst: usize,
    pub reason: NoGroup,
    /// What the group search said of each group tried (hail's texts).
    pub messages: Vec<String>,
}

/// Why an instance found no group (its words: `write::groups`).
#[derive(Debug, Clone, PartialEq)]
pub enum NoGroup {
    /// No other group takes its storage pool: no group could be tried.
    NoPeer(StoragePool),
    /// The group change failed: hail's message.
    Failed(String),
    /// Moving it would leave its target group with this status.
    WouldLeave { group: usize, status: Status },
}

/// Moves instance `k` into the best of `targets` (its own group is never
/// one), as a group change does. On failure the state is unchanged and the
/// reason is hail's message (or that no group could be tried). The
/// relocation keeps what the search said of each group tried only with
/// [`GroupsRead::Every`] (with [`GroupsRead::Winner`] its `messages` are
/// empty, and the search of a group that cannot win may stop early).
pub fn relocate(
    node_groups: &[Group],
    state: &mut State,
    k: usize,
    targets: &[usize],
    opts: &AllocOptions,
) -> Result<Result<Relocation, Refused>, Crash> {
    let inst = state.inst(k as i32)?;
    let (old_nodes, running, template) = (
        (inst.p_node, inst.s_node),
        inst.run_state == RunState::Running,
        inst.disk_template,
    );
    let own = state.node(inst.p_node)?.group;
    let targets: Vec<usize> = targets.iter().copied().filter(|&g| g != own).collect();
    if targets.is_empty() {
        return Ok(Err(Refused {
            inst: k,
            reason: NoGroup::NoPeer(StoragePool::of(template)),
            messages: Vec::new(),
        }));
    }
    let cp = state.checkpoint();
    let mut messages = Vec::new();
    let mut hook = |_: &mut State, _: &Instance, _: i64, search: &GroupSearch| {
        messages = search.messages(node_groups);
        Ok(())
    };
    // What the search said of each group is kept only when it is read.
    let hook: Option<&mut GroupSearchHook<'_>> = match opts.groups_read {
        GroupsRead::Every => Some(&mut hook),
        GroupsRead::Winner => None,
    };
    let sol = evacuate::change_group(node_groups, state, &targets, &[k], opts, hook, None)?;
    if let Some((_, reason)) = sol.failed.into_iter().next() {
        state.rollback(cp);
        return Ok(Err(Refused {
            inst: k,
            reason: NoGroup::Failed(reason),
            messages,
        }));
    }
    let (Some((_, group, nodes)), Some(moves)) =
        (sol.moved.into_iter().next(), sol.moves.into_iter().next())
    else {
        state.rollback(cp);
        return Err(Crash(format!("instance {k} neither moved nor failed")));
    };
    Ok(Ok(Relocation {
        inst: k,
        old_nodes,
        group,
        nodes,
        moves,
        running,
        template,
        messages,
    }))
}

/// The groups an instance of group `g` with `template` may go to, among
/// `allowed`: the other groups of its storage pool.
pub fn peers_among(
    node_groups: &[Group],
    g: usize,
    template: DiskTemplate,
    allowed: &[usize],
) -> Vec<usize> {
    storage::peer_groups(node_groups, g, template)
        .into_iter()
        .filter(|p| allowed.contains(p))
        .collect()
}

/// What became of one unhealthy group.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The relocations made it healthy; they stay in the state.
    Repaired,
    /// No repair was found; the state is as before.
    NoRepair,
}

/// The repair of one unhealthy group.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupRepair {
    /// Its health before any repair (the figures of the cluster as read).
    pub before: Health,
    /// Its problem instances when its repair starts, in the order tried.
    pub problems: Vec<(usize, Problem)>,
    /// The relocations, in order (rolled back when there is no repair).
    pub relocations: Vec<Relocation>,
    /// The instances that found no group.
    pub refused: Vec<Refused>,
    /// The group's health after the relocations.
    pub after: Health,
    pub outcome: Outcome,
}

/// The repair plan of a super cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct RepairPlan {
    /// Every group with nodes, with its health before any repair.
    pub health: Vec<Health>,
    /// Groups sharing no storage pool with another group (left out).
    pub alone: Vec<usize>,
    /// The healthy, allocable connected groups (the possible targets).
    pub healthy: Vec<usize>,
    /// One entry per unhealthy connected group, in group order (none when
    /// there is no healthy group to move to).
    pub repairs: Vec<GroupRepair>,
}

/// The groups owning nodes, in order.
pub fn groups_with_nodes(state: &State, n_groups: usize) -> Vec<usize> {
    (0..n_groups)
        .filter(|&g| !state.group_keys(g).is_empty())
        .collect()
}

/// The health of every group with nodes, in group order.
pub fn all_health(state: &State, n_groups: usize) -> Vec<Health> {
    groups_with_nodes(state, n_groups)
        .into_iter()
        .map(|g| health(state, g))
        .collect()
}

/// Repairs every unhealthy group it can (seed 004, steps 1 to 5): the
/// problem instances, in order, are moved one by one into a connected
/// healthy group until their group is healthy. A group whose problems are
/// not all solved keeps nothing of its trial. Only the groups in `only`
/// are repaired when it is given; every healthy group may receive.
pub fn repair(
    node_groups: &[Group],
    state: &mut State,
    opts: &AllocOptions,
    only: Option<usize>,
) -> Result<RepairPlan, Crash> {
    let with_nodes = groups_with_nodes(state, node_groups.len());
    let health = all_health(state, node_groups.len());
    let connected: Vec<usize> = with_nodes
        .iter()
        .copied()
        .filter(|&g| storage::is_connected_among(node_groups, g, &with_nodes))
        .collect();
    let alone: Vec<usize> = with_nodes
        .iter()
        .copied()
        .filter(|g| !connected.contains(g))
        .collect();
    let status = |g: usize| {
        health
            .iter()
            .find(|h| h.group == g)
            .map_or(Status::Healthy, Health::status)
    };
    // Unallocable groups take no instance (as in every allocation).
    let healthy: Vec<usize> = connected
        .iter()
        .copied()
        .filter(|&g| status(g) == Status::Healthy && node_groups[g].is_allocable())
        .collect();
    let mut repairs = Vec::new();
    if !healthy.is_empty() {
        for h in &health {
            let g = h.group;
            if !connected.contains(&g)
                || h.status() == Status::Healthy
                || only.is_some_and(|o| o != g)
            {
                continue;
            }
            repairs.push(repair_group(node_groups, state, h, &healthy, opts)?);
        }
    }
    Ok(RepairPlan {
        health,
        alone,
        healthy,
        repairs,
    })
}

/// One group's repair (seed 004, step 5), `before` being its health
/// before any repair. Its problems are those of the state the repairs of
/// the groups before it left (which change its nodes only through the
/// instances they share with it).
fn repair_group(
    node_groups: &[Group],
    state: &mut State,
    before: &Health,
    healthy: &[usize],
    opts: &AllocOptions,
) -> Result<GroupRepair, Crash> {
    let g = before.group;
    let before = before.clone();
    let problems = problem_instances(state, &health(state, g));
    let cp = state.checkpoint();
    let mut relocations = Vec::new();
    let mut refused = Vec::new();
    for &(k, _) in &problems {
        let now = health(state, g);
        if now.status() == Status::Healthy {
            break;
        }
        // An earlier move may have solved this instance's problem.
        if !problem_instances(state, &now).iter().any(|(o, _)| *o == k) {
            continue;
        }
        let template = state.inst(k as i32)?.disk_template;
        let targets = peers_among(node_groups, g, template, healthy);
        let step = state.checkpoint();
        match relocate(node_groups, state, k, &targets, opts)? {
            Ok(r) => {
                let target = health(state, r.group);
                if target.status() == Status::Healthy {
                    relocations.push(r);
                } else {
                    // The primitives keep a target's nodes N+1 happy; a
                    // move that would not is refused all the same.
                    state.rollback(step);
                    refused.push(Refused {
                        inst: k,
                        reason: NoGroup::WouldLeave {
                            group: r.group,
                            status: target.status(),
                        },
                        messages: r.messages,
                    });
                }
            }
            Err(refusal) => refused.push(refusal),
        }
    }
    let after = health(state, g);
    let outcome = if after.status() == Status::Healthy {
        Outcome::Repaired
    } else {
        state.rollback(cp);
        Outcome::NoRepair
    };
    Ok(GroupRepair {
        before,
        problems,
        relocations,
        refused,
        after,
        outcome,
    })
}

/// Memory (MiB), disk (MiB) and virtual CPUs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Resources {
    pub mem: i64,
    pub dsk: i64,
    pub cpu: i64,
}

impl Resources {
    fn add(self, o: Resources) -> Resources {
        Resources {
            mem: self.mem + o.mem,
            dsk: self.dsk + o.dsk,
            cpu: self.cpu + o.cpu,
        }
    }

    fn sub(self, o: Resources) -> Resources {
        Resources {
            mem: self.mem - o.mem,
            dsk: self.dsk - o.dsk,
            cpu: self.cpu - o.cpu,
        }
    }

    /// Whether every resource is strictly below `o`'s.
    pub fn below(self, o: Resources) -> bool {
        self.mem < o.mem && self.dsk < o.dsk && self.cpu < o.cpu
    }
}

/// A set of nodes' capacity: total, used and free.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub total: Resources,
    pub used: Resources,
    pub free: Resources,
}

/// The capacity of the online nodes at `keys`: memory total and free as
/// Ganeti reports them (free being what is not used by running instances
/// or the node itself), used as the memory of running primaries; disk
/// total, free and the difference; vCPUs as the policy's ratio times the
/// physical CPUs, used as the vCPUs of the primaries (and the node's
/// reserved CPUs). Instances on offline nodes count as used.
pub fn usage(state: &State, keys: &[usize]) -> Usage {
    let mut u = Usage::default();
    for &k in keys {
        let n = state.node_at(k);
        if n.offline {
            u.used = u.used.add(Resources {
                mem: n.i_mem,
                dsk: 0,
                cpu: 0,
            });
            continue;
        }
        let cpu_total = (n.t_cpu * n.vcpu_ratio).floor() as i64;
        let total = Resources {
            mem: n.t_mem as i64,
            dsk: n.t_dsk as i64,
            cpu: cpu_total,
        };
        let free = Resources {
            mem: n.unallocated_mem(),
            dsk: n.f_dsk,
            cpu: cpu_total - n.u_cpu,
        };
        u.total = u.total.add(total);
        u.free = u.free.add(free);
        u.used = u.used.add(Resources {
            mem: n.i_mem,
            dsk: n.t_dsk as i64 - n.f_dsk,
            cpu: n.u_cpu,
        });
    }
    u
}

/// Every instance with a node in group `g`, by index.
pub fn group_instances(state: &State, g: usize) -> Vec<usize> {
    let mut keys: Vec<usize> = state
        .group_keys(g)
        .iter()
        .flat_map(|&k| {
            let n = state.node_at(k);
            n.p_list.iter().chain(n.s_list.iter()).copied()
        })
        .filter_map(|i| usize::try_from(i).ok())
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The trial evacuation of one candidate group.
#[derive(Debug, Clone, PartialEq)]
pub struct Trial {
    pub group: usize,
    pub relocations: Vec<Relocation>,
    pub refused: Vec<Refused>,
}

impl Trial {
    /// Whether every instance left the group.
    pub fn evacuable(&self) -> bool {
        self.refused.is_empty()
    }
}

/// Why a group is not a compression candidate.
#[derive(Debug, Clone, PartialEq)]
pub enum NotCandidate {
    /// It shares no storage pool with another group.
    Alone,
    /// It uses more than the other groups have free.
    TooBig {
        used: Resources,
        others_free: Resources,
    },
    /// It has no instance to move.
    Empty,
}

/// The compression report (seed 004, "compressing" steps 1 to 6).
#[derive(Debug, Clone, PartialEq)]
pub struct Compression {
    /// The super cluster's capacity.
    pub cluster: Usage,
    /// Each group with nodes and its capacity.
    pub groups: Vec<(usize, Usage)>,
    pub not_candidates: Vec<(usize, NotCandidate)>,
    /// The trial of each candidate, in group order.
    pub trials: Vec<Trial>,
    /// The evacuable group that frees the most (its total capacity, memory
    /// first); its relocations are in the state when a plan was asked for.
    pub chosen: Option<usize>,
}

/// At most this many compression trials run side by side.
const MAX_TRIAL_THREADS: usize = 4;

/// What a compression does with the group it chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compress {
    /// Only says which group (and why not the others).
    Report,
    /// Empties it (`--evacuate`): its moves stay in the state.
    Empty,
}

/// Finds the groups that can be emptied into their peers; with
/// [`Compress::Empty`], empties the one that frees the most.
///
/// The trials are independent (each starts from the state as it is
/// here), so they run side by side on up to [`MAX_TRIAL_THREADS`]
/// threads, each on its own copy of the state; their results are taken
/// in group order, so the outcome is the one-thread outcome. The chosen
/// trial is not run again for the plan: what it changed is written back.
pub fn compress(
    node_groups: &[Group],
    state: &mut State,
    opts: &AllocOptions,
    mode: Compress,
) -> Result<Compression, Crash> {
    let threads = crate::threads::available();
    compress_on(
        node_groups,
        state,
        opts,
        mode == Compress::Empty,
        threads.min(MAX_TRIAL_THREADS),
    )
}

/// One candidate's trial to run: its group and the group's instances.
struct TrialTask {
    group: usize,
    insts: Vec<usize>,
}

/// A trial's outcome and, when a plan is asked for and the group could be
/// emptied, what the trial changed.
type TrialOutcome = Result<(Trial, Option<Changes>), Crash>;

/// How the evacuable groups compare: capacity (memory first), then the
/// first group among equals.
type ChoiceKey = (Resources, std::cmp::Reverse<usize>);

/// [`compress`] with the trials on up to `threads` threads.
fn compress_on(
    node_groups: &[Group],
    state: &mut State,
    opts: &AllocOptions,
    plan: bool,
    threads: usize,
) -> Result<Compression, Crash> {
    let with_nodes = groups_with_nodes(state, node_groups.len());
    let all: Vec<usize> = state.node_keys().collect();
    let cluster = usage(state, &all);
    let groups: Vec<(usize, Usage)> = with_nodes
        .iter()
        .map(|&g| (g, usage(state, state.group_keys(g))))
        .collect();
    let mut not_candidates = Vec::new();
    let mut tasks = Vec::new();
    for &(g, u) in &groups {
        let others_free = cluster.free.sub(u.free);
        if !storage::is_connected_among(node_groups, g, &with_nodes) {
            not_candidates.push((g, NotCandidate::Alone));
            continue;
        }
        let insts = group_instances(state, g);
        if insts.is_empty() {
            not_candidates.push((g, NotCandidate::Empty));
            continue;
        }
        if !u.used.below(others_free) {
            not_candidates.push((
                g,
                NotCandidate::TooBig {
                    used: u.used,
                    others_free,
                },
            ));
            continue;
        }
        tasks.push(TrialTask { group: g, insts });
    }
    let outcomes = run_trials(node_groups, state, &tasks, &with_nodes, opts, plan, threads);
    let mut trials = Vec::new();
    // The evacuable group with the largest capacity (memory first); among
    // equals the first group. With a plan, what its trial changed.
    let mut best: Option<(ChoiceKey, usize, Option<Changes>)> = None;
    for outcome in outcomes {
        let (trial, changes) = outcome?;
        let g = trial.group;
        let total = groups
            .iter()
            .find(|(x, _)| *x == g)
            .map_or(Resources::default(), |(_, u)| u.total);
        let key = (total, std::cmp::Reverse(g));
        if trial.evacuable() && best.as_ref().is_none_or(|(b, _, _)| key > *b) {
            best = Some((key, g, changes));
        }
        trials.push(trial);
    }
    let chosen = best.map(|(_, g, changes)| {
        // The trial's moves into the state, as the trial left them.
        if let Some(changes) = changes {
            state.reapply(changes);
        }
        g
    });
    Ok(Compression {
        cluster,
        groups,
        not_candidates,
        trials,
        chosen,
    })
}

/// Runs each task's trial on the state as it is, rolling it back after,
/// and returns the outcomes in task order (stopping at the first crash
/// on one thread; the outcomes after a crash are never read). On several
/// threads each thread takes the next task (the largest first) and runs
/// it on its own copy of the state.
#[allow(clippy::too_many_arguments)]
fn run_trials(
    node_groups: &[Group],
    state: &mut State,
    tasks: &[TrialTask],
    with_nodes: &[usize],
    opts: &AllocOptions,
    plan: bool,
    threads: usize,
) -> Vec<TrialOutcome> {
    let threads = threads.min(tasks.len());
    // Side by side, each trial's searches keep to their thread.
    let one_thread = AllocOptions {
        one_thread: true,
        ..opts.clone()
    };
    let opts = if threads > 1 { &one_thread } else { opts };
    let run_one = |state: &mut State, task: &TrialTask| -> TrialOutcome {
        let cp = state.checkpoint();
        let trial = evacuate_group(
            node_groups,
            state,
            task.group,
            &task.insts,
            with_nodes,
            opts,
        );
        let outcome = trial.map(|t| {
            let changes = (plan && t.evacuable()).then(|| state.changes_since(cp));
            (t, changes)
        });
        state.rollback(cp);
        outcome
    };
    if threads <= 1 {
        let mut out = Vec::new();
        for task in tasks {
            let outcome = run_one(state, task);
            let crashed = outcome.is_err();
            out.push(outcome);
            if crashed {
                break;
            }
        }
        return out;
    }
    // Largest first, so that the threads finish close together.
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(tasks[i].insts.len()));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let base: &State = state;
    let worker = || {
        let mut own = base.snapshot();
        let mut done: Vec<(usize, TrialOutcome)> = Vec::new();
        loop {
            let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(&i) = order.get(n) else {
                break;
            };
            done.push((i, run_one(&mut own, &tasks[i])));
        }
        done
    };
    let mut slots: Vec<Option<TrialOutcome>> = (0..tasks.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for _ in 0..threads {
            match std::thread::Builder::new().spawn_scoped(scope, worker) {
                Ok(h) => handles.push(h),
                // No thread to be had: the others (or this one) do it.
                Err(_) => break,
            }
        }
        if handles.is_empty() {
            for (i, outcome) in worker() {
                slots[i] = Some(outcome);
            }
        }
        for h in handles {
            match h.join() {
                Ok(done) => {
                    for (i, outcome) in done {
                        slots[i] = Some(outcome);
                    }
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    slots.into_iter().flatten().collect()
}

/// Moves every instance of group `g` (by index) into its peer groups;
/// stops at the first that cannot move (the group cannot be emptied).
fn evacuate_group(
    node_groups: &[Group],
    state: &mut State,
    g: usize,
    insts: &[usize],
    with_nodes: &[usize],
    opts: &AllocOptions,
) -> Result<Trial, Crash> {
    let mut trial = Trial {
        group: g,
        relocations: Vec::new(),
        refused: Vec::new(),
    };
    for &k in insts {
        let inst = state.inst(k as i32)?;
        // A drbd instance split across groups has its primary elsewhere:
        // moved as a whole all the same, into its primary's peers.
        let own = state.node(inst.p_node)?.group;
        let template = inst.disk_template;
        let mut targets = peers_among(node_groups, own, template, with_nodes);
        targets.retain(|&t| t != g && node_groups[t].is_allocable());
        match relocate(node_groups, state, k, &targets, opts)? {
            Ok(r) => trial.relocations.push(r),
            Err(refusal) => {
                trial.refused.push(refusal);
                break;
            }
        }
    }
    Ok(trial)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Cluster;
    use crate::read::merge::MergeOptions;
    use crate::read::text;
    use hailstone_devtools::generate::{generate, CaseSpec, DiskTemplate};

    /// A generated multi-group cluster, as `hailstone-groups -t` reads it.
    /// Even seeds: ext and drbd instances only, at 20% memory use (the
    /// README's compressible cluster).
    fn cluster(seed: u64, nodes: usize, groups: usize) -> Option<Cluster> {
        let mut spec = CaseSpec::multi_group(seed, nodes, groups);
        if seed.is_multiple_of(2) {
            spec.instance_templates = vec![(DiskTemplate::Ext, 1), (DiskTemplate::Drbd, 1)];
            spec.tightness = 0.2;
        }
        let case = generate(&spec);
        let data = crate::shell::datafile::from_request(
            case.request.as_bytes(),
            &crate::read::loader::LoadOptions::default(),
        )
        .ok()?;
        let (cluster, _) = text::load("gen", data.as_bytes(), &MergeOptions::default()).ok()?;
        Some(cluster)
    }

    /// Every node (with its cached values) and instance of two states.
    fn same_state(a: &State, b: &State) -> bool {
        let bits = |s: &State, k: usize| s.values(k).map(f64::to_bits);
        a.node_keys().eq(b.node_keys())
            && a.node_keys()
                .all(|k| a.node_at(k) == b.node_at(k) && bits(a, k) == bits(b, k))
            && a.instances().eq(b.instances())
    }

    /// Compression trials side by side give the one-thread report and
    /// plan; the plan written back from the chosen trial's changes leaves
    /// the state that running the chosen trial again on the rolled-back
    /// state leaves (what the planner did before), with the same trial.
    #[test]
    fn compression_side_by_side_and_written_back() {
        let (mut runs, mut plans, mut trials) = (0usize, 0usize, 0usize);
        for seed in 1..=60u64 {
            let nodes = 6 + (seed as usize * 7) % 40;
            let ngroups = 2 + (seed as usize) % 4;
            let Some(cluster) = cluster(seed, nodes, ngroups) else {
                continue;
            };
            let node_groups = cluster.groups.clone();
            let opts = AllocOptions::default();
            let fresh = || {
                State::from_lists(
                    cluster.nodes.clone(),
                    cluster.instances.clone(),
                    &node_groups,
                )
            };
            let mut one = fresh();
            let a = compress_on(&node_groups, &mut one, &opts, true, 1).expect("no crash");
            let mut many = fresh();
            let b = compress_on(&node_groups, &mut many, &opts, true, 3).expect("no crash");
            assert_eq!(a, b, "seed {seed}");
            assert!(same_state(&one, &many), "seed {seed}");
            // Without a plan, then the chosen trial again.
            let mut again = fresh();
            let c = compress_on(&node_groups, &mut again, &opts, false, 1).expect("no crash");
            assert_eq!((&a.trials, a.chosen), (&c.trials, c.chosen), "seed {seed}");
            if let Some(g) = c.chosen {
                let with_nodes = groups_with_nodes(&again, node_groups.len());
                let insts = group_instances(&again, g);
                let trial = evacuate_group(&node_groups, &mut again, g, &insts, &with_nodes, &opts)
                    .expect("no crash");
                assert_eq!(
                    a.trials.iter().find(|t| t.group == g),
                    Some(&trial),
                    "seed {seed}"
                );
                assert!(!trial.relocations.is_empty());
                plans += 1;
            }
            assert!(same_state(&one, &again), "seed {seed}");
            runs += 1;
            trials += a.trials.len();
        }
        assert!(
            runs >= 50 && plans >= 20 && trials >= 100,
            "too few cases: {runs} clusters, {trials} trials, {plans} plans"
        );
    }
}
