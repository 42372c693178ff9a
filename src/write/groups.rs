//! `hailstone-groups`' report: the counts it loaded, the storage
//! partitions, each group's health and why, the repair of each unhealthy
//! group (each relocation, each instance that found no group and why),
//! the compression figures and trials, and the group scores of a
//! balancing with the balanced group's steps; as text on stdout, and as
//! the `report` of the `--json` document ([`report_json`]).
//!
//! Every decision comes with its one-line reason, in words built here
//! from the searches' typed outcomes ([`crate::search::groups`]: a
//! [`Status`], a [`Problem`], a [`NoGroup`], a [`NotCandidate`]). The
//! `--explain` account (what every group search said, the numbers behind
//! each unhealthy node) is `explain::groups`, on these words.

use crate::haskell::show::printf_fixed;
use crate::model::group::Group;
use crate::model::instance::NO_NODE;
use crate::model::storage::{self, StoragePool};
use crate::model::Cluster;
use crate::search::groups::{
    Compress, Compression, GroupRepair, Health, NoGroup, NotCandidate, Outcome, Problem, Refused,
    Relocation, RepairPlan, Resources, Status, Trial, Usage,
};
use crate::write::json::{s, strs, Json};

/// What the reports read names from.
pub struct Context<'a> {
    pub groups: &'a [Group],
    pub cluster: &'a Cluster,
}

impl Context<'_> {
    /// Node `k`'s name (`?` when there is none).
    pub fn node(&self, k: usize) -> &str {
        self.cluster
            .nodes
            .get(k)
            .map_or("?", |n| n.info.name.as_str())
    }

    /// Instance `k`'s name.
    pub fn inst(&self, k: usize) -> &str {
        self.cluster.instances.get(k).map_or("?", |i| &*i.name)
    }

    /// Group `g`'s name.
    pub fn group(&self, g: usize) -> &str {
        self.groups.get(g).map_or("?", |g| g.name.as_str())
    }

    /// The name of node `k`'s group (nodes never change group).
    pub fn node_group(&self, k: usize) -> &str {
        self.cluster
            .nodes
            .get(k)
            .map_or("?", |n| self.group(n.group))
    }

    /// The names of nodes `keys`, comma-separated.
    pub fn nodes(&self, keys: &[usize]) -> String {
        keys.iter()
            .map(|&k| self.node(k))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A primary and secondary (`p:s`, or `p` alone).
    pub fn pair(&self, (p, s): (i32, i32)) -> String {
        let name = |k: i32| usize::try_from(k).map_or("-", |k| self.node(k));
        if s == NO_NODE {
            name(p).to_owned()
        } else {
            format!("{}:{}", name(p), name(s))
        }
    }
}

/// A group's score in a balancing, and what became of it.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupScore {
    pub group: usize,
    pub score: f64,
    pub optimal: f64,
    pub verdict: Option<Verdict>,
}

/// Why a group was or was not balanced.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Within `-e` of its optimal score.
    BalancedEnough,
    /// The engine found no move that gains enough.
    NoMove,
    /// Balanced in `steps` steps to score `fin`.
    Balanced { steps: usize, fin: f64 },
}

/// What a run decided: its report's and its explanation's matter.
pub enum Detail {
    Check(Vec<Health>),
    Repair(RepairPlan),
    Compress(Compression),
    Balance(Vec<GroupScore>),
}

/// The word the reports say for a group's health.
pub fn status_name(status: Status) -> &'static str {
    match status {
        Status::Healthy => "healthy",
        Status::WeaklyUnhealthy => "weakly unhealthy",
        Status::Unhealthy => "unhealthy",
    }
}

/// The first line of the report: what was loaded.
pub fn loaded(nodes: usize, instances: usize, groups: usize) -> String {
    format!("Loaded {nodes} nodes, {instances} instances in {groups} node groups\n")
}

/// The first five of `names`, then how many more.
fn some_names(names: &[&str]) -> String {
    match names.len() {
        n if n <= 5 => names.join(", "),
        n => format!("{} and {} more", names[..5].join(", "), n - 5),
    }
}

/// The names of a health's split instances.
fn split_names<'a>(ctx: &'a Context<'_>, h: &Health) -> Vec<&'a str> {
    h.split.iter().map(|s| ctx.inst(s.inst)).collect()
}

/// Why a group has the status it has, in one line.
fn health_reason(ctx: &Context<'_>, h: &Health) -> String {
    let mut parts = Vec::new();
    if !h.offline_hosts.is_empty() {
        let hosts: Vec<String> = h
            .offline_hosts
            .iter()
            .map(|o| {
                format!(
                    "{} ({} primary, {} secondary)",
                    ctx.node(o.node),
                    o.primaries,
                    o.secondaries
                )
            })
            .collect();
        parts.push(format!(
            "offline nodes hosting instances: {}",
            hosts.join(", ")
        ));
    }
    if !h.n1_failing.is_empty() {
        parts.push(format!("nodes failing N+1: {}", ctx.nodes(&n1_nodes(h))));
    }
    if !h.split.is_empty() {
        parts.push(format!(
            "instances split across groups (secondary in another group): {}",
            some_names(&split_names(ctx, h))
        ));
    }
    parts.join("; ")
}

/// The keys of a health's nodes failing N+1.
fn n1_nodes(h: &Health) -> Vec<usize> {
    h.n1_failing.iter().map(|f| f.node).collect()
}

/// The partitions and the health table.
pub fn check_text(ctx: &Context<'_>, health: &[Health]) -> String {
    let with_nodes: Vec<usize> = health.iter().map(|h| h.group).collect();
    let mut out = String::from("Storage partitions:\n");
    for (pool, members) in storage::partitions(ctx.groups) {
        let members: Vec<&str> = members
            .iter()
            .filter(|g| with_nodes.contains(g))
            .map(|&g| ctx.group(g))
            .collect();
        if !members.is_empty() {
            out.push_str(&format!("  {:<20} {}\n", pool.name(), members.join(", ")));
        }
    }
    out.push_str("Group health:\n");
    let width = health
        .iter()
        .map(|h| ctx.group(h.group).chars().count())
        .max()
        .unwrap_or(0);
    for h in health {
        let mut reason = health_reason(ctx, h);
        if !storage::is_connected_among(ctx.groups, h.group, &with_nodes) {
            if !reason.is_empty() {
                reason.push_str("; ");
            }
            reason.push_str("alone in its storage partitions (no move to or from another group)");
        }
        let line = format!(
            "  {:<width$}  {:<16}  {reason}",
            ctx.group(h.group),
            status_name(h.status())
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Why an instance is one of its group's problems.
pub fn problem_text(ctx: &Context<'_>, p: &Problem) -> String {
    match *p {
        Problem::OnOffline(k) => format!("on offline node {}", ctx.node(k)),
        Problem::Split(k) => format!(
            "split across groups: secondary on {} of group {}",
            ctx.node(k),
            ctx.node_group(k)
        ),
        Problem::SecondaryOnN1(k) => format!("secondary on {}, failing N+1", ctx.node(k)),
        Problem::PrimaryOnN1(k) => format!("primary on {}, failing N+1", ctx.node(k)),
    }
}

fn relocation_line(ctx: &Context<'_>, pos: usize, r: &Relocation) -> String {
    let new = match r.nodes.as_slice() {
        [p, s] => format!("{}:{}", ctx.node(*p), ctx.node(*s)),
        [p] => ctx.node(*p).to_owned(),
        _ => "-".to_owned(),
    };
    format!(
        "  {pos:>3}. {} {} => {} (group {})\n",
        ctx.inst(r.inst),
        ctx.pair(r.old_nodes),
        new,
        ctx.group(r.group)
    )
}

/// Why an instance found no group.
pub fn no_group(ctx: &Context<'_>, why: &NoGroup) -> String {
    match why {
        NoGroup::NoPeer(pool) => {
            format!("no other group takes its storage pool ({})", pool.name())
        }
        NoGroup::Failed(message) => message.clone(),
        NoGroup::WouldLeave { group, status } => format!(
            "moving it would leave group {} {}",
            ctx.group(*group),
            status_name(*status)
        ),
    }
}

fn refused_line(ctx: &Context<'_>, r: &Refused) -> String {
    format!(
        "       {} found no group: {}\n",
        ctx.inst(r.inst),
        no_group(ctx, &r.reason)
    )
}

/// The repair report (after the health table of the cluster before it).
pub fn repair_text(ctx: &Context<'_>, plan: &RepairPlan) -> String {
    let mut out = String::new();
    let unhealthy = plan
        .health
        .iter()
        .filter(|h| h.status() != Status::Healthy && !plan.alone.contains(&h.group))
        .count();
    let alone: String = plan
        .health
        .iter()
        .filter(|h| h.status() != Status::Healthy && plan.alone.contains(&h.group))
        .map(|h| alone_line(ctx, h))
        .collect();
    out.push_str(&alone);
    if unhealthy == 0 {
        out.push_str(if alone.is_empty() {
            "Every group that shares storage with another is healthy: nothing to repair.\n"
        } else {
            "Every group that shares storage with another is healthy: nothing to repair across groups.\n"
        });
        return out;
    }
    if plan.healthy.is_empty() {
        out.push_str("No connected group is healthy: no group can receive instances, nothing can be repaired.\n");
        if plan.health.iter().any(|h| !h.split.is_empty()) {
            out.push_str(SPLIT_FIX);
        }
        return out;
    }
    let mut pos = 0;
    let mut repaired = 0;
    for r in &plan.repairs {
        let g = r.before.group;
        out.push_str(&format!(
            "Group {} ({}):\n",
            ctx.group(g),
            status_name(r.before.status())
        ));
        match r.outcome {
            Outcome::Repaired => {
                repaired += 1;
                for rel in &r.relocations {
                    pos += 1;
                    out.push_str(&relocation_line(ctx, pos, rel));
                }
                for f in &r.refused {
                    out.push_str(&refused_line(ctx, f));
                }
                out.push_str(&if r.relocations.is_empty() {
                    format!(
                        "  repaired: group {} is healthy after the moves of the groups before it\n",
                        ctx.group(g)
                    )
                } else {
                    format!(
                        "  repaired: group {} is healthy after {} moves\n",
                        ctx.group(g),
                        r.relocations.len()
                    )
                });
            }
            Outcome::NoRepair => {
                for f in &r.refused {
                    out.push_str(&refused_line(ctx, f));
                }
                out.push_str(&format!(
                    "  no repair: after moving the {} instances that could move, the group stays {} ({})\n",
                    r.relocations.len(),
                    status_name(r.after.status()),
                    no_repair_reason(ctx, r)
                ));
            }
        }
    }
    out.push_str(&format!(
        "Repaired {repaired} of {} unhealthy groups with {pos} moves.\n",
        plan.repairs.len()
    ));
    out
}

/// What makes a split instance whole without another group.
const SPLIT_FIX: &str = "A split instance is made whole within its primary's group by gnt-instance replace-disks -n NODE (a node of that group).\n";

/// An unhealthy group no instance can leave (it shares no storage pool
/// with another group), and what repairs it within itself: hbal's
/// evacuation mode moves instances off offline nodes; plain balancing,
/// whose score counts the nodes failing N+1, relieves them.
fn alone_line(ctx: &Context<'_>, h: &Health) -> String {
    let g = ctx.group(h.group);
    let fix = if !h.offline_hosts.is_empty() {
        format!("hailstone-balance -G {g} --evac-mode moves what it can off its offline nodes within it")
    } else if !h.n1_failing.is_empty() {
        format!("hailstone-balance -G {g} rebalances it within itself (its score counts the nodes failing N+1)")
    } else {
        "gnt-instance replace-disks -n NODE, with a node of its primary's group, makes a split instance whole".to_owned()
    };
    format!(
        "Group {g} ({}) shares storage with no other group, so no instance can leave it: {fix}.\n",
        status_name(h.status())
    )
}

/// Why a repair failed, from the state it was tried on.
fn no_repair_reason(ctx: &Context<'_>, r: &GroupRepair) -> String {
    let mut parts = Vec::new();
    if !r.after.offline_hosts.is_empty() {
        let hosts: Vec<usize> = r.after.offline_hosts.iter().map(|o| o.node).collect();
        parts.push(format!(
            "offline nodes still hosting instances: {}",
            ctx.nodes(&hosts)
        ));
    }
    if !r.after.n1_failing.is_empty() {
        parts.push(format!(
            "nodes still failing N+1: {}",
            ctx.nodes(&n1_nodes(&r.after))
        ));
    }
    if !r.after.split.is_empty() {
        parts.push(format!(
            "instances still split across groups: {}",
            some_names(&split_names(ctx, &r.after))
        ));
    }
    parts.join("; ")
}

fn resources_text(r: &Resources) -> String {
    format!("memory {} MiB, disk {} MiB, {} vCPUs", r.mem, r.dsk, r.cpu)
}

/// The compression report; with [`Compress::Empty`] (`--evacuate`), the
/// plan's group is named as emptied.
pub fn compress_text(ctx: &Context<'_>, c: &Compression, mode: Compress) -> String {
    let mut out = format!(
        "Super cluster: total {}\n               free  {}\n",
        resources_text(&c.cluster.total),
        resources_text(&c.cluster.free)
    );
    let width = c
        .groups
        .iter()
        .map(|(g, _)| ctx.group(*g).chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    out.push_str(&format!(
        "  {:<width$} {:>10} {:>10} {:>10} {:>12} {:>12} {:>12} {:>6} {:>6} {:>6}\n",
        "Group",
        "t_mem",
        "used_mem",
        "free_mem",
        "t_dsk",
        "used_dsk",
        "free_dsk",
        "t_cpu",
        "u_cpu",
        "f_cpu"
    ));
    for (g, u) in &c.groups {
        out.push_str(&format!(
            "  {:<width$} {:>10} {:>10} {:>10} {:>12} {:>12} {:>12} {:>6} {:>6} {:>6}\n",
            ctx.group(*g),
            u.total.mem,
            u.used.mem,
            u.free.mem,
            u.total.dsk,
            u.used.dsk,
            u.free.dsk,
            u.total.cpu,
            u.used.cpu,
            u.free.cpu
        ));
    }
    for (g, why) in &c.not_candidates {
        out.push_str(&format!(
            "Group {} is not a candidate: {}\n",
            ctx.group(*g),
            not_candidate_text(why)
        ));
    }
    for t in &c.trials {
        if t.evacuable() {
            out.push_str(&format!(
                "Group {} can be emptied: its {} instances move to its peers\n",
                ctx.group(t.group),
                t.relocations.len()
            ));
        } else {
            out.push_str(&format!(
                "Group {} cannot be emptied: {}\n",
                ctx.group(t.group),
                trial_failure(ctx, t)
            ));
        }
    }
    let evacuable: Vec<&str> = c
        .trials
        .iter()
        .filter(|t| t.evacuable())
        .map(|t| ctx.group(t.group))
        .collect();
    if evacuable.is_empty() {
        out.push_str("No group can be emptied.\n");
        return out;
    }
    out.push_str(&format!(
        "Groups that can be emptied: {}\n",
        evacuable.join(", ")
    ));
    if let (Compress::Empty, Some(g)) = (mode, c.chosen) {
        let total = c
            .groups
            .iter()
            .find(|(x, _)| *x == g)
            .map_or(Resources::default(), |(_, u)| u.total);
        out.push_str(&format!(
            "Emptying group {} (frees the most: {}):\n",
            ctx.group(g),
            resources_text(&total)
        ));
        if let Some(t) = c.trials.iter().find(|t| t.group == g) {
            for (i, r) in t.relocations.iter().enumerate() {
                out.push_str(&relocation_line(ctx, i + 1, r));
            }
        }
    } else if let Some(g) = c.chosen {
        out.push_str(&format!(
            "The group that frees the most is {}; --evacuate gives the plan.\n",
            ctx.group(g)
        ));
    }
    out
}

fn not_candidate_text(why: &NotCandidate) -> String {
    match why {
        NotCandidate::Alone => "it shares no storage pool with another group".to_owned(),
        NotCandidate::Empty => "it holds no instance".to_owned(),
        NotCandidate::TooBig { used, others_free } => format!(
            "it uses {} but the other groups have {} free",
            resources_text(used),
            resources_text(others_free)
        ),
    }
}

fn trial_failure(ctx: &Context<'_>, t: &Trial) -> String {
    match t.refused.first() {
        Some(r) => format!(
            "{} found no group ({} moved before it): {}",
            ctx.inst(r.inst),
            t.relocations.len(),
            no_group(ctx, &r.reason)
        ),
        None => "no instance failed".to_owned(),
    }
}

/// The end of a balancing's report: the group balanced, its step lines
/// and its score before and after; or that no group can be improved.
pub fn balanced(balanced: Option<(&str, &[String], f64, f64)>) -> String {
    let Some((group, lines, ini, fin)) = balanced else {
        return "No group can be improved.\n".to_owned();
    };
    let mut out = format!("Balancing group {group}:\n");
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str(&format!(
        "Group score improved from {} to {}\n",
        printf_fixed(ini, 8),
        printf_fixed(fin, 8)
    ));
    out
}

/// The group scores of a balancing, worst first.
pub fn scores_text(groups: &[Group], scored: &[GroupScore]) -> String {
    let width = scored
        .iter()
        .map(|s| groups[s.group].name.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::from("Group scores (worst first):\n");
    for e in scored {
        let verdict = match &e.verdict {
            None => String::new(),
            Some(Verdict::BalancedEnough) => "balanced enough".to_owned(),
            Some(Verdict::NoMove) => "no move improves it".to_owned(),
            Some(Verdict::Balanced { steps, fin }) => {
                format!("balanced in {steps} steps to {}", printf_fixed(*fin, 8))
            }
        };
        let line = format!(
            "  {:<width$} {:>14} (optimum {}) {verdict}",
            groups[e.group].name,
            printf_fixed(e.score, 8),
            printf_fixed(e.optimal, 8)
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn usage_json(u: &Usage) -> Json {
    let r = |r: &Resources| {
        Json::Obj(vec![
            ("memory", Json::Int(r.mem)),
            ("disk", Json::Int(r.dsk)),
            ("vcpus", Json::Int(r.cpu)),
        ])
    };
    Json::Obj(vec![
        ("total", r(&u.total)),
        ("used", r(&u.used)),
        ("free", r(&u.free)),
    ])
}

fn health_json(ctx: &Context<'_>, h: &Health) -> Json {
    Json::Obj(vec![
        ("group", s(ctx.group(h.group))),
        ("status", s(status_name(h.status()))),
        (
            "offline_nodes_hosting",
            strs(
                &h.offline_hosts
                    .iter()
                    .map(|o| ctx.node(o.node).to_owned())
                    .collect::<Vec<_>>(),
            ),
        ),
        (
            "nodes_failing_n1",
            Json::Arr(
                h.n1_failing
                    .iter()
                    .map(|f| {
                        Json::Obj(vec![
                            ("node", s(ctx.node(f.node))),
                            ("free_memory", Json::Int(f.memory.free)),
                            ("needed_memory", Json::Int(f.memory.needed)),
                        ])
                    })
                    .collect(),
            ),
        ),
        (
            "split_instances",
            Json::Arr(
                h.split
                    .iter()
                    .map(|sp| {
                        Json::Obj(vec![
                            ("instance", s(ctx.inst(sp.inst))),
                            ("secondary", s(ctx.node(sp.secondary))),
                            ("secondary_group", s(ctx.group(sp.secondary_group))),
                        ])
                    })
                    .collect(),
            ),
        ),
    ])
}

fn relocation_json(ctx: &Context<'_>, r: &Relocation) -> Json {
    Json::Obj(vec![
        ("instance", s(ctx.inst(r.inst))),
        ("from", s(&ctx.pair(r.old_nodes))),
        ("group", s(ctx.group(r.group))),
        (
            "nodes",
            strs(
                &r.nodes
                    .iter()
                    .map(|&k| ctx.node(k).to_owned())
                    .collect::<Vec<_>>(),
            ),
        ),
        ("pool", s(StoragePool::of(r.template).name())),
        ("searched", strs(&r.messages)),
    ])
}

fn refused_json(ctx: &Context<'_>, r: &Refused) -> Json {
    Json::Obj(vec![
        ("instance", s(ctx.inst(r.inst))),
        ("reason", s(&no_group(ctx, &r.reason))),
        ("searched", strs(&r.messages)),
    ])
}

/// The operation's account as JSON: the `report` of `--json`, and the
/// explanation of `--explain-format=json` (which adds why each balancing
/// stopped).
pub fn report_json(ctx: &Context<'_>, detail: &Detail) -> Json {
    match detail {
        Detail::Check(health) => Json::Obj(vec![
            ("operation", s("check")),
            (
                "groups",
                Json::Arr(health.iter().map(|h| health_json(ctx, h)).collect()),
            ),
        ]),
        Detail::Repair(plan) => Json::Obj(vec![
            ("operation", s("repair")),
            (
                "alone",
                strs(
                    &plan
                        .alone
                        .iter()
                        .map(|&g| ctx.group(g).to_owned())
                        .collect::<Vec<_>>(),
                ),
            ),
            (
                "healthy",
                strs(
                    &plan
                        .healthy
                        .iter()
                        .map(|&g| ctx.group(g).to_owned())
                        .collect::<Vec<_>>(),
                ),
            ),
            (
                "repairs",
                Json::Arr(
                    plan.repairs
                        .iter()
                        .map(|r| {
                            Json::Obj(vec![
                                ("before", health_json(ctx, &r.before)),
                                (
                                    "problems",
                                    Json::Arr(
                                        r.problems
                                            .iter()
                                            .map(|(k, p)| {
                                                Json::Obj(vec![
                                                    ("instance", s(ctx.inst(*k))),
                                                    ("why", s(&problem_text(ctx, p))),
                                                ])
                                            })
                                            .collect(),
                                    ),
                                ),
                                (
                                    "relocations",
                                    Json::Arr(
                                        r.relocations
                                            .iter()
                                            .map(|x| relocation_json(ctx, x))
                                            .collect(),
                                    ),
                                ),
                                (
                                    "refused",
                                    Json::Arr(
                                        r.refused.iter().map(|x| refused_json(ctx, x)).collect(),
                                    ),
                                ),
                                ("repaired", Json::Bool(r.outcome == Outcome::Repaired)),
                            ])
                        })
                        .collect(),
                ),
            ),
        ]),
        Detail::Compress(c) => Json::Obj(vec![
            ("operation", s("compress")),
            ("cluster", usage_json(&c.cluster)),
            (
                "groups",
                Json::Arr(
                    c.groups
                        .iter()
                        .map(|(g, u)| {
                            Json::Obj(vec![("group", s(ctx.group(*g))), ("usage", usage_json(u))])
                        })
                        .collect(),
                ),
            ),
            (
                "not_candidates",
                Json::Arr(
                    c.not_candidates
                        .iter()
                        .map(|(g, why)| {
                            Json::Obj(vec![
                                ("group", s(ctx.group(*g))),
                                ("why", s(&not_candidate_text(why))),
                            ])
                        })
                        .collect(),
                ),
            ),
            (
                "trials",
                Json::Arr(
                    c.trials
                        .iter()
                        .map(|t| {
                            Json::Obj(vec![
                                ("group", s(ctx.group(t.group))),
                                ("evacuable", Json::Bool(t.evacuable())),
                                (
                                    "relocations",
                                    Json::Arr(
                                        t.relocations
                                            .iter()
                                            .map(|x| relocation_json(ctx, x))
                                            .collect(),
                                    ),
                                ),
                                (
                                    "refused",
                                    Json::Arr(
                                        t.refused.iter().map(|x| refused_json(ctx, x)).collect(),
                                    ),
                                ),
                            ])
                        })
                        .collect(),
                ),
            ),
            ("chosen", c.chosen.map_or(Json::Null, |g| s(ctx.group(g)))),
        ]),
        Detail::Balance(scored) => Json::Obj(vec![
            ("operation", s("balance")),
            (
                "groups",
                Json::Arr(
                    scored
                        .iter()
                        .map(|e| {
                            let verdict = match &e.verdict {
                                None => Json::Null,
                                Some(Verdict::BalancedEnough) => s("balanced enough"),
                                Some(Verdict::NoMove) => s("no move improves it"),
                                Some(Verdict::Balanced { .. }) => s("balanced"),
                            };
                            Json::Obj(vec![
                                ("group", s(ctx.group(e.group))),
                                ("score", Json::Num(e.score)),
                                ("optimal", Json::Num(e.optimal)),
                                ("verdict", verdict),
                            ])
                        })
                        .collect(),
                ),
            ),
        ]),
    }
}
