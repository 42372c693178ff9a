//! `hailstone-groups`: the multi-group planners of seed 004 on a cluster
//! read from a data file (`-t`) or an iallocator request (`-I`):
//!
//! * `check`: the storage partitions and each group's health;
//! * `repair`: the problem instances of unhealthy groups moved into
//!   connected healthy groups ([`crate::search::groups::repair`]);
//! * `compress`: the groups that could be emptied into their peers, and
//!   with `--evacuate` the plan that empties the one freeing the most;
//! * `balance`: group scores, the worst group that can improve balanced by
//!   the engine of `hailstone-balance`.
//!
//! A plan comes out as step lines on stdout, its `gnt-instance` commands
//! with `-C` (hbal's job sets and script) and the cluster after it with
//! `-S` (Ganeti's data file format, so that `hcheck -t` can judge it);
//! what the plan costs ([`crate::model::cost`]) in `--json`, `--explain`,
//! `--report`, and with `--print-cost` in the text.
//! Reasons (why a group is unhealthy, why an instance found no group) are
//! part of the report; `--explain` adds every group search's account.

#[cfg(test)]
mod exhaustive;
pub mod options;

use std::ffi::OsString;
use std::io::Write;

use crate::explain::stopped::Stopped;
use crate::model::cost::{MoveCost, PlanCost};
use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::model::{find_group, Cluster, NameMatch};
use crate::program::balance::engine_options;
use crate::read::merge::MergeOptions;
use crate::score::metric::optimal_score;
use crate::search::allocate::{AllocOptions, GroupsRead};
use crate::search::balance;
use crate::search::groups::{self, Relocation};
use crate::search::state::State;
use crate::shell::exit::{self, stop, Stop};
use crate::shell::plan::{self, commands_text, split_jobs, MoveJob};
use crate::shell::source;
use crate::write::balance as texts;
use crate::write::groups as report;
use crate::write::json::Json;
use crate::write::text;
use options::{Invocation, Operation, Options, PROGRAM};

/// Runs `hailstone-groups` with `args` (without `argv[0]`); returns the
/// exit status.
pub fn main(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    exit::main(PROGRAM, options::parse(args), run, out, err)
}

/// Why each balancing tried stopped (`--explain`): a group and its stop,
/// in the order of the group scores.
type Stops = Vec<(usize, Stopped)>;

/// A plan's jobs: one per relocation or balancing step.
struct Plan {
    jobs: Vec<MoveJob>,
}

fn run(invocation: &Invocation, stdout: &mut dyn Write, err: &mut dyn Write) -> Result<(), Stop> {
    let o = &invocation.options;
    // With --json the text goes nowhere; the document is all of stdout.
    let mut sink = std::io::sink();
    let printed: &mut dyn Write = if o.json { &mut sink } else { stdout };
    // With --report, what is printed is kept for the page too.
    let mut tee = Tee {
        out: printed,
        copy: o.report.as_ref().map(|_| Vec::new()),
    };
    let out: &mut dyn Write = &mut tee;
    let (cluster, warnings) = source::read_cluster(
        source::Sources::of(o, o.master.as_deref()),
        &MergeOptions::default(),
        o.load,
    )?;
    err.write_all(crate::write::notes::warnings(&warnings).as_bytes())?;
    let only = match &o.group {
        None => None,
        Some(name) => match find_group(&cluster.groups, name) {
            NameMatch::One(g) => Some(g),
            _ => {
                let names: Vec<&str> = cluster.groups.iter().map(|g| g.name.as_str()).collect();
                return Err(stop(format!(
                    "Error: node group {name} not found; the groups are: {}\n",
                    names.join(", ")
                )));
            }
        },
    };
    if let Some(path) = &o.save {
        let text = text::serialize_cluster(&cluster);
        exit::save_state(PROGRAM, path, "original", "before the plan", &text, err)?;
    }
    let node_groups = cluster.groups.clone();
    let mut state = State::from_lists(
        cluster.nodes.clone(),
        cluster.instances.clone(),
        &node_groups,
    );
    state.follow(o.load.ganeti);
    // The groups' scores before the plan, for --report's page only.
    let scores_before: Vec<f64> = match o.report {
        Some(_) => (0..node_groups.len())
            .map(|g| state.group_score_with(g, &[]))
            .collect(),
        None => Vec::new(),
    };
    // And their health, for the page's summary.
    let health_before: Vec<groups::Health> = match o.report {
        Some(_) => groups::all_health(&state, node_groups.len()),
        None => Vec::new(),
    };
    let opts = AllocOptions {
        soft: o.algorithm.soft,
        // Health is the seed's: per-node N+1, which every placement keeps
        // (hail's global check would refuse every move while any group of
        // the cluster is unhealthy, the very case being repaired).
        capacity_checks: false,
        // What each relocation's search said of every group is printed
        // only by --json and --explain.
        groups_read: if o.json || o.explain.is_some() {
            GroupsRead::Every
        } else {
            GroupsRead::Winner
        },
        ..AllocOptions::default()
    };
    let ctx = report::Context {
        groups: &node_groups,
        cluster: &cluster,
    };
    out.write_all(
        report::loaded(
            cluster.nodes.len(),
            cluster.instances.len(),
            groups::groups_with_nodes(&state, node_groups.len()).len(),
        )
        .as_bytes(),
    )?;
    // Why each balancing stopped, for --explain.
    let mut stops = Vec::new();
    let (plan, detail) = match invocation.operation {
        Operation::Check => {
            let health = groups::all_health(&state, node_groups.len());
            out.write_all(report::check_text(&ctx, &health).as_bytes())?;
            (None, report::Detail::Check(health))
        }
        Operation::Repair => {
            let repair = groups::repair(&node_groups, &mut state, &opts, only)
                .map_err(|c| stop(format!("Error: {}\n", c.0)))?;
            // The health before the repair, as the repair judged it.
            out.write_all(report::check_text(&ctx, &repair.health).as_bytes())?;
            out.write_all(report::repair_text(&ctx, &repair).as_bytes())?;
            let relocations: Vec<&Relocation> = repair
                .repairs
                .iter()
                .filter(|r| r.outcome == groups::Outcome::Repaired)
                .flat_map(|r| r.relocations.iter())
                .collect();
            let plan = relocation_plan(&cluster, &relocations);
            (Some(plan), report::Detail::Repair(repair))
        }
        Operation::Compress => {
            let mode = if o.evacuate {
                groups::Compress::Empty
            } else {
                groups::Compress::Report
            };
            let compression = groups::compress(&node_groups, &mut state, &opts, mode)
                .map_err(|c| stop(format!("Error: {}\n", c.0)))?;
            out.write_all(report::compress_text(&ctx, &compression, mode).as_bytes())?;
            let plan = o.evacuate.then(|| {
                let relocations: Vec<&Relocation> = compression
                    .trials
                    .iter()
                    .filter(|t| Some(t.group) == compression.chosen)
                    .flat_map(|t| t.relocations.iter())
                    .collect();
                relocation_plan(&cluster, &relocations)
            });
            (plan, report::Detail::Compress(compression))
        }
        Operation::Balance => {
            let (plan, detail, stopped) = balance_worst(o, &cluster, &mut state, only, out)?;
            stops = stopped;
            (plan, detail)
        }
    };
    // A plan without a step is no plan: no commands, no state after it.
    let plan = plan.filter(|p| !p.jobs.is_empty());
    // `check` fails when a group is not healthy, as hcheck does when a
    // group needs rebalancing.
    let unhealthy = match &detail {
        report::Detail::Check(health) => {
            health.iter().any(|h| h.status() != groups::Status::Healthy)
        }
        _ => false,
    };
    // Findings (exit status 3): a group not healthy (check), a group the
    // repair asked for left unhealthy, no group to empty (compress
    // --evacuate).
    let findings = match &detail {
        report::Detail::Check(_) => unhealthy,
        report::Detail::Repair(_) => groups::all_health(&state, node_groups.len())
            .iter()
            .enumerate()
            .any(|(g, h)| only.is_none_or(|o| o == g) && h.status() != groups::Status::Healthy),
        report::Detail::Compress(c) => o.evacuate && c.chosen.is_none(),
        _ => false,
    };
    // What the plan costs, for the operations that plan (check and a
    // compression report plan nothing).
    let planning = match invocation.operation {
        Operation::Check => false,
        Operation::Compress => o.evacuate,
        Operation::Repair | Operation::Balance => true,
    };
    let no_jobs = Vec::new();
    let jobs = plan.as_ref().map_or(&no_jobs, |p| &p.jobs);
    let cost = planning.then(|| plan::jobs_cost(jobs, o.rates));
    let job_costs = plan::job_costs(jobs);
    if let (Some(c), true) = (&cost, o.print_cost) {
        tee.write_all(crate::write::cost::text(c).as_bytes())?;
    }
    let said = String::from_utf8_lossy(tee.copy.as_deref().unwrap_or_default()).into_owned();
    let out: &mut dyn Write = tee.out;
    if let Some(plan) = &plan {
        print_commands(o, plan, out)?;
        if let Some(path) = &o.save {
            let ext = match invocation.operation {
                Operation::Repair => "repaired",
                Operation::Compress => "compressed",
                _ => "balanced",
            };
            let nodes: Vec<&Node> = state.node_keys().map(|k| state.node_at(k)).collect();
            let insts: Vec<&Instance> = state.instances().collect();
            let text = text::serialize_lists(&cluster, nodes, insts);
            out.flush()?;
            exit::save_state(PROGRAM, path, ext, "after the plan", &text, err)?;
        }
    }
    if let Some(to) = &o.explain {
        let text =
            crate::explain::groups::explain(&ctx, &detail, &stops, cost.as_ref(), o.explain_format);
        exit::write_explanation(to, &text, err)?;
    }
    out.flush()?;
    let page = o.report.as_ref().map(|path| {
        let page = write_page(&Run {
            operation: invocation.operation.name(),
            cluster: &cluster,
            state: &state,
            scores_before: &scores_before,
            health_before: &health_before,
            said: &said,
            healthy: matches!(detail, report::Detail::Check(_)).then_some(!unhealthy),
            plan: plan.as_ref(),
            cost: cost.as_ref().map(|c| (c, job_costs.as_slice())),
        });
        (path, page)
    });
    if o.json {
        let sets = plan.as_ref().map(|p| split_jobs(&p.jobs));
        let sets: Vec<Vec<(&str, &[String], Json)>> = sets
            .iter()
            .flatten()
            .map(|set| {
                set.iter()
                    .map(|j| {
                        (
                            j.instance.as_str(),
                            j.commands.as_slice(),
                            crate::write::cost::move_json(&j.cost, o.rates),
                        )
                    })
                    .collect()
            })
            .collect();
        let document = crate::write::document::operation_document(
            PROGRAM,
            o.load.ganeti,
            invocation.operation.name(),
            !unhealthy,
            report::report_json(&ctx, &detail),
            &sets,
            cost.as_ref()
                .map_or(Json::Null, crate::write::cost::plan_json),
        );
        stdout.write_all(document.line().as_bytes())?;
        stdout.flush()?;
    }
    if let Some((path, page)) = page {
        exit::write_own_file("report", path, &page)?;
    }
    if findings {
        return Err(exit::findings());
    }
    Ok(())
}

/// Writes to `out` and, when `copy` is kept, to it too.
struct Tee<'a> {
    out: &'a mut dyn Write,
    copy: Option<Vec<u8>>,
}

impl Write for Tee<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write_all(buf)?;
        if let Some(copy) = &mut self.copy {
            copy.extend_from_slice(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// What `--report`'s page is made of.
struct Run<'a> {
    operation: &'a str,
    cluster: &'a Cluster,
    /// The cluster after the plan (as read, without one).
    state: &'a State,
    scores_before: &'a [f64],
    /// The health of the groups with nodes before the plan, in order.
    health_before: &'a [groups::Health],
    said: &'a str,
    healthy: Option<bool>,
    plan: Option<&'a Plan>,
    /// What the plan costs, each move's instance and cost (the operations
    /// that plan).
    cost: Option<(&'a PlanCost, &'a [(String, MoveCost)])>,
}

/// `--report`'s page: every group with nodes before and after the plan.
fn write_page(r: &Run<'_>) -> String {
    let cluster = r.cluster;
    let group_of = |p: i32| usize::try_from(p).ok().map(|k| cluster.nodes[k].group);
    let groups = groups::groups_with_nodes(r.state, cluster.groups.len())
        .into_iter()
        .map(|g| {
            let before: Vec<&Node> = cluster.nodes.iter().filter(|n| n.group == g).collect();
            let after: Vec<&Node> = r
                .state
                .node_keys()
                .map(|k| r.state.node_at(k))
                .filter(|n| n.group == g)
                .collect();
            let instances_before = cluster
                .instances
                .iter()
                .filter(|i| group_of(i.p_node) == Some(g))
                .count();
            let instances_after = r
                .state
                .instances()
                .filter(|i| group_of(i.p_node) == Some(g))
                .count();
            let health = |h: &groups::Health| crate::write::report::groups::Health {
                status: report::status_name(h.status()),
                n1_failing: h.n1_failing.len(),
                offline_hosts: h.offline_hosts.len(),
            };
            let health_before = r
                .health_before
                .iter()
                .find(|h| h.group == g)
                .map(health)
                .unwrap_or_default();
            crate::write::report::groups::GroupView {
                name: &cluster.groups[g].name,
                before,
                after: r.plan.map(|_| after),
                instances: (instances_before, instances_after),
                scores: (r.scores_before[g], r.state.group_score_with(g, &[])),
                health: (
                    health_before,
                    r.plan.map(|_| health(&groups::health(r.state, g))),
                ),
            }
        })
        .collect();
    let names = plan::node_names(cluster);
    let name = |k: i32| plan::node_name(&names, k);
    let pair = |p: i32, s: i32| crate::write::report::pair(&name, (p, s));
    let by_name: std::collections::BTreeMap<&str, usize> = cluster
        .instances
        .iter()
        .enumerate()
        .map(|(k, i)| (&*i.name, k))
        .collect();
    let moves = r
        .plan
        .map(|p| p.jobs.as_slice())
        .unwrap_or_default()
        .iter()
        .map(|job| {
            let k = by_name.get(job.instance.as_str()).copied();
            let before = k.map(|k| &cluster.instances[k]);
            let after = k.and_then(|k| r.state.inst(k as i32).ok());
            crate::write::report::groups::Move {
                instance: job.instance.clone(),
                from: before.map_or_else(String::new, |i| pair(i.p_node, i.s_node)),
                to: after.map_or_else(String::new, |i| pair(i.p_node, i.s_node)),
                commands: job.commands.clone(),
            }
        })
        .collect();
    crate::write::report::groups::page(&crate::write::report::groups::GroupsReport {
        program: PROGRAM,
        operation: r.operation,
        tags: &cluster.tags,
        said: r.said,
        healthy: r.healthy,
        groups,
        moves,
        cost: r.cost,
    })
}

/// `-C`: the plan's commands on stdout or in a script.
fn print_commands(o: &Options, plan: &Plan, out: &mut dyn Write) -> Result<(), Stop> {
    let text = commands_text(&split_jobs(&plan.jobs));
    let heading = "Commands to run to reach the above solution:";
    plan::print_commands(PROGRAM, o.print_commands.as_deref(), heading, &text, out)
}

/// The jobs of relocations: each instance's moves as `gnt-instance`
/// commands, full names.
fn relocation_plan(cluster: &Cluster, relocations: &[&Relocation]) -> Plan {
    Plan {
        jobs: relocations
            .iter()
            .map(|r| relocation_job(cluster, r))
            .collect(),
    }
}

/// One relocation's job: its commands (`write::balance::relocation`),
/// no opcodes (the plan is only printed).
fn relocation_job(cluster: &Cluster, r: &Relocation) -> MoveJob {
    let (commands, nodes) = texts::relocation(cluster, r);
    let inst = &cluster.instances[r.inst];
    MoveJob {
        instance: inst.name.to_string(),
        nodes,
        commands,
        opcodes: Vec::new(),
        cost: crate::model::cost::relocation_cost(inst, r.old_nodes, &r.moves, r.running, |k| {
            usize::try_from(k)
                .ok()
                .and_then(|k| cluster.nodes.get(k))
                .is_some_and(|n| n.offline)
        }),
    }
}

/// The seed's group balancing: the groups by score, worst first; the first
/// that is not balanced enough and that the engine improves is balanced.
/// With `--explain`, also why each balancing tried stopped (in the order
/// of the scores).
fn balance_worst(
    o: &Options,
    cluster: &Cluster,
    state: &mut State,
    only: Option<usize>,
    out: &mut dyn Write,
) -> Result<(Option<Plan>, report::Detail, Stops), Stop> {
    let node_groups = &cluster.groups;
    let mut scored: Vec<report::GroupScore> = groups::groups_with_nodes(state, node_groups.len())
        .into_iter()
        .filter(|&g| only.is_none_or(|o| o == g))
        .map(|g| {
            let nodes: Vec<&Node> = state
                .group_keys(g)
                .iter()
                .map(|&k| state.node_at(k))
                .collect();
            report::GroupScore {
                group: g,
                score: state.group_score_with(g, &[]),
                optimal: optimal_score(&nodes),
                verdict: None,
            }
        })
        .collect();
    // Worst first; equal scores in group order.
    scored.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.group.cmp(&b.group)));
    let movable: Vec<bool> = cluster
        .instances
        .iter()
        .map(|i| cluster.balancer_movable(i))
        .collect();
    let names: Vec<(String, usize)> = cluster
        .nodes
        .iter()
        .map(|n| (n.info.name.clone(), n.info.alias_len))
        .collect();
    // hbal's defaults, with the soft checks and `-e` given here.
    let hbal = Options {
        algorithm: crate::search::AlgorithmOptions {
            soft: o.algorithm.soft,
            ..Default::default()
        },
        min_score: o.min_score,
        ..Default::default()
    };
    let mut plan = None;
    let mut stops = Vec::new();
    for entry in scored.iter_mut() {
        if plan.is_some() {
            break;
        }
        let g = entry.group;
        if entry.score - entry.optimal < o.min_score {
            entry.verdict = Some(report::Verdict::BalancedEnough);
            continue;
        }
        let in_group = |k: i32| usize::try_from(k).is_ok_and(|k| cluster.nodes[k].group == g);
        let mut local = state.restricted(|n| n.group == g, |i| in_group(i.p_node));
        let options = engine_options(&hbal, entry.optimal);
        let mut jobs = Vec::new();
        let mut lines = Vec::new();
        let imlen = cluster
            .instances
            .iter()
            .filter(|i| in_group(i.p_node))
            .map(|i| i.name.chars().count())
            .max()
            .unwrap_or(0);
        let nmlen = cluster
            .nodes
            .iter()
            .filter(|n| n.group == g)
            .map(|n| n.info.name.chars().count())
            .max()
            .unwrap_or(0);
        let full_names: Vec<(String, usize)> =
            names.iter().map(|(n, _)| (n.clone(), n.len())).collect();
        let steps = balance::balance(&mut local, &movable, &options, entry.score, |st, p| {
            let (line, job) =
                plan::step_line(st, p, lines.len() + 1, (imlen, nmlen), &full_names, |i| {
                    &i.name
                });
            lines.push(line);
            jobs.push(job);
        });
        let fin = steps.last().map_or(entry.score, |p| p.score);
        if o.explain.is_some() {
            stops.push((
                g,
                Stopped::new(&local, &cluster.tags, &movable, &options, fin, steps.len()),
            ));
        }
        if steps.is_empty() {
            entry.verdict = Some(report::Verdict::NoMove);
            continue;
        }
        entry.verdict = Some(report::Verdict::Balanced {
            steps: steps.len(),
            fin,
        });
        // The group's new nodes and instances into the whole cluster.
        let keys: Vec<usize> = local.node_keys().collect();
        for k in keys {
            state.set_node(k, local.node_at(k).clone());
        }
        let moved: Vec<Instance> = local.instances().cloned().collect();
        for i in moved {
            if let Ok(k) = usize::try_from(i.idx) {
                state.set_inst(k, i);
            }
        }
        plan = Some((g, lines, Plan { jobs }, entry.score, fin));
    }
    out.write_all(report::scores_text(node_groups, &scored).as_bytes())?;
    let detail = report::Detail::Balance(scored);
    let balanced = plan.as_ref().map(|(g, lines, _, ini, fin)| {
        (node_groups[*g].name.as_str(), lines.as_slice(), *ini, *fin)
    });
    out.write_all(report::balanced(balanced).as_bytes())?;
    Ok((plan.map(|(_, _, plan, _, _)| plan), detail, stops))
}
