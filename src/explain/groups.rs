//! `hailstone-groups`' reports and explanations: the storage partitions,
//! each group's health and why, the repair of each unhealthy group (each
//! relocation, each instance that found no group and hail's reason), the
//! compression figures and trials, and the group scores of a balancing.
//!
//! The report (stdout) gives every decision with its one-line reason;
//! `--explain` adds the account of each group search (what every group
//! tried said, in hail's words) and the numbers behind each unhealthy node,
//! as text or as one JSON object.

use crate::explain::Format;
use crate::haskell::show::printf_fixed;
use crate::model::group::Group;
use crate::model::instance::NO_NODE;
use crate::model::storage::{self, StoragePool};
use crate::model::Cluster;
use crate::search::groups::{
    Compression, GroupRepair, Health, N1Failure, NotCandidate, Outcome, Problem, Refused,
    Relocation, RepairPlan, Resources, Status, Trial, Usage,
};
use crate::write::json::{s, strs, Json};

/// What the reports read names from.
pub struct Context<'a> {
    pub groups: &'a [Group],
    pub cluster: &'a Cluster,
}

impl Context<'_> {
    fn node(&self, k: usize) -> &str {
        self.cluster
            .nodes
            .get(k)
            .map_or("?", |n| n.info.name.as_str())
    }

    fn inst(&self, k: usize) -> &str {
        self.cluster.instances.get(k).map_or("?", |i| &*i.name)
    }

    fn group(&self, g: usize) -> &str {
        self.groups.get(g).map_or("?", |g| g.name.as_str())
    }

    /// The name of node `k`'s group (nodes never change group).
    fn node_group(&self, k: usize) -> &str {
        self.cluster
            .nodes
            .get(k)
            .map_or("?", |n| self.group(n.group))
    }

    fn nodes(&self, keys: &[usize]) -> String {
        keys.iter()
            .map(|&k| self.node(k))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn pair(&self, (p, s): (i32, i32)) -> String {
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
    /// Why its balancing stopped (with `--explain`, for a group balanced
    /// or tried).
    pub stopped: Option<super::stopped::Stopped>,
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

/// What a run decided, for `--explain`.
pub enum Detail {
    Check(Vec<Health>),
    Repair(RepairPlan),
    Compress(Compression),
    Balance(Vec<GroupScore>),
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
            h.status().name()
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn problem_text(ctx: &Context<'_>, p: &Problem) -> String {
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

fn refused_line(ctx: &Context<'_>, r: &Refused) -> String {
    format!("       {} found no group: {}\n", ctx.inst(r.inst), r.reason)
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
            r.before.status().name()
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
                    r.after.status().name(),
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
        h.status().name()
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

/// The compression report.
pub fn compress_text(ctx: &Context<'_>, c: &Compression, evacuate: bool) -> String {
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
    if let (true, Some(g)) = (evacuate, c.chosen) {
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
            r.reason
        ),
        None => "no instance failed".to_owned(),
    }
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

/// The `--explain` account of a run.
pub fn explain(ctx: &Context<'_>, detail: &Detail, format: Format) -> String {
    match format {
        Format::Text => explain_text(ctx, detail),
        Format::Json => {
            let mut doc = explain_json(ctx, detail);
            // Why each balancing stopped: in the explanation only (the
            // `--json` document's report stays as it is).
            if let (Detail::Balance(scored), Json::Obj(fields)) = (detail, &mut doc) {
                let stops = scored
                    .iter()
                    .filter_map(|e| {
                        let st = e.stopped.as_ref()?;
                        let mut f = vec![("group", s(ctx.group(e.group)))];
                        f.extend(super::stopped::json_fields(st));
                        Some(Json::Obj(f))
                    })
                    .collect();
                fields.push(("stopped", Json::Arr(stops)));
            }
            doc.line()
        }
    }
}

fn node_numbers(f: &N1Failure) -> String {
    format!(
        "{} MiB free for instances, {} MiB needed to take over its largest peer's instances",
        f.memory.free, f.memory.needed
    )
}

fn searches_text(ctx: &Context<'_>, out: &mut String, rels: &[Relocation], refused: &[Refused]) {
    for r in rels {
        out.push_str(&format!(
            "  {}: to group {} on {}\n",
            ctx.inst(r.inst),
            ctx.group(r.group),
            ctx.nodes(&r.nodes)
        ));
        for m in &r.messages {
            out.push_str(&format!("    {m}\n"));
        }
    }
    for r in refused {
        out.push_str(&format!(
            "  {}: found no group: {}\n",
            ctx.inst(r.inst),
            r.reason
        ));
        for m in &r.messages {
            out.push_str(&format!("    {m}\n"));
        }
    }
}

fn explain_text(ctx: &Context<'_>, detail: &Detail) -> String {
    let mut out = String::new();
    let health_detail = |out: &mut String, h: &Health| {
        for f in &h.n1_failing {
            out.push_str(&format!(
                "  node {} fails N+1: {}\n",
                ctx.node(f.node),
                node_numbers(f)
            ));
        }
        for o in &h.offline_hosts {
            out.push_str(&format!(
                "  node {} is offline and hosts instances ({} primary, {} secondary)\n",
                ctx.node(o.node),
                o.primaries,
                o.secondaries
            ));
        }
        for sp in &h.split {
            out.push_str(&format!(
                "  instance {} is split across groups: its secondary is on {} of group {}\n",
                ctx.inst(sp.inst),
                ctx.node(sp.secondary),
                ctx.group(sp.secondary_group)
            ));
        }
    };
    match detail {
        Detail::Check(health) => {
            for h in health {
                out.push_str(&format!(
                    "Group {} is {}\n",
                    ctx.group(h.group),
                    h.status().name()
                ));
                health_detail(&mut out, h);
            }
        }
        Detail::Repair(plan) => {
            for r in &plan.repairs {
                out.push_str(&format!(
                    "Group {} was {}\n",
                    ctx.group(r.before.group),
                    r.before.status().name()
                ));
                health_detail(&mut out, &r.before);
                out.push_str("  problem instances, in the order tried:\n");
                for (k, p) in &r.problems {
                    out.push_str(&format!(
                        "    {} ({})\n",
                        ctx.inst(*k),
                        problem_text(ctx, p)
                    ));
                }
                searches_text(ctx, &mut out, &r.relocations, &r.refused);
                if r.outcome == Outcome::NoRepair {
                    out.push_str(
                        "  the moves above were not kept: the group would not be healthy\n",
                    );
                }
            }
        }
        Detail::Compress(c) => {
            for t in &c.trials {
                out.push_str(&format!(
                    "Trial evacuation of group {}\n",
                    ctx.group(t.group)
                ));
                searches_text(ctx, &mut out, &t.relocations, &t.refused);
            }
        }
        Detail::Balance(scored) => {
            out.push_str(&scores_text(ctx.groups, scored));
            for e in scored {
                if let Some(st) = &e.stopped {
                    out.push_str(&format!("Balancing of group {}:\n", ctx.group(e.group)));
                    out.push_str(&super::stopped::text(st, "  "));
                }
            }
        }
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
        ("status", s(h.status().name())),
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
        ("reason", s(&r.reason)),
        ("searched", strs(&r.messages)),
    ])
}

/// The operation's account as JSON: the explanation of
/// `--explain-format=json`, and the `report` of `--json`.
pub fn explain_json(ctx: &Context<'_>, detail: &Detail) -> Json {
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
