//! What the planners (`hailstone-balance`, `hailstone-squeeze`,
//! `hailstone-groups`) share around a plan: the job of each accepted step
//! (its `gnt-instance` commands and opcodes) and its step line, the
//! balancing with its lines printed as found, the grouping of jobs into
//! job sets (`Cluster.splitJobs`) and `-C`.

use std::io::Write;

use crate::model::cost::{move_cost, MoveCost, PlanCost, Rates};
use crate::model::instance::{Instance, NO_NODE};
use crate::model::types::DiskTemplate;
use crate::model::Cluster;
use crate::search::balance::budget::{self, Budgeted};
use crate::search::balance::Placement;
use crate::search::moves::Move;
use crate::search::state::State;
use crate::shell::exit::{write_file, Stop};
use crate::write::balance::{self as texts, MoveText};
use crate::write::document;
use crate::write::json::Json;
use crate::write::opcodes;

/// Node names and alias lengths, by node index.
pub type Names = [(String, usize)];

/// The alias (name without the common suffix) of node `k`; empty for no
/// node.
pub fn alias_of(names: &Names, k: i32) -> &str {
    usize::try_from(k)
        .ok()
        .and_then(|k| names.get(k))
        .map_or("", |(n, a)| &n[..(*a).min(n.len())])
}

/// One accepted step as `-C` and `-X` need it: the nodes it involves,
/// its commands, and its opcodes.
pub struct MoveJob {
    /// The instance moved (full name).
    pub instance: String,
    pub nodes: Vec<i32>,
    pub commands: Vec<String>,
    /// The opcodes `-X` submits for the step (`iMoveToJob`, nodes by full
    /// name); empty for plans that are only printed (hailstone-groups).
    pub opcodes: Vec<crate::write::json::Json>,
    /// What the step copies and does ([`crate::model::cost`]).
    pub cost: MoveCost,
}

/// The job of step `p` of instance `inst` (named `inst_name` in the
/// commands; migrated when running); also the move's `a=` text. Node
/// names in the commands are aliases of the nodes after the move
/// (`computeMoves`), in the opcodes their full names.
pub fn step_job(
    p: &Placement,
    inst: &Instance,
    inst_name: &str,
    names: &Names,
) -> (String, MoveJob) {
    let template = inst.disk_template;
    let running = inst.run_state.is_running();
    let full = |k: i32| {
        usize::try_from(k)
            .ok()
            .and_then(|k| names.get(k))
            .map_or("", |(n, _)| n.as_str())
    };
    let (c, d) = p.new_nodes;
    let opcodes = opcodes::move_opcodes(
        &inst.name,
        inst.forthcoming,
        move_named(p.mv, full(c), full(d)),
    );
    let mv = move_named(p.mv, alias_of(names, c), alias_of(names, d));
    let (a, commands) = texts::move_commands(mv, inst_name, running);
    // `involvedNodes`: the new primary and secondary, then the instance's
    // nodes before the move, without repeats.
    let old_all = if template == DiskTemplate::Drbd {
        vec![p.old_nodes.0, p.old_nodes.1]
    } else {
        vec![p.old_nodes.0]
    };
    let mut nodes: Vec<i32> = Vec::new();
    for n in [p.new_nodes.0, p.new_nodes.1].into_iter().chain(old_all) {
        if n >= 0 && n != NO_NODE && !nodes.contains(&n) {
            nodes.push(n);
        }
    }
    (
        a,
        MoveJob {
            instance: inst.name.to_string(),
            nodes,
            commands,
            opcodes,
            cost: move_cost(inst, &p.mv),
        },
    )
}

/// Move `mv` with its nodes named `c` (the new primary) and `d` (the new
/// secondary): aliases for the commands, full names for the opcodes.
fn move_named<'a>(mv: Move, c: &'a str, d: &'a str) -> MoveText<'a> {
    match mv {
        Move::Failover => MoveText::Failover,
        Move::FailoverToAny(_) => MoveText::FailoverToAny(c),
        Move::FailoverAndReplace(_) => MoveText::FailoverAndReplace(d),
        Move::ReplaceSecondary(_) => MoveText::ReplaceSecondary(d),
        Move::ReplaceAndFailover(_) => MoveText::ReplaceAndFailover(c),
        Move::ReplacePrimary(_) => MoveText::ReplacePrimary(c),
    }
}

/// The step line (`  %3d. inst old => new score a=...`) and the job of one
/// accepted balancing step `p` at position `pos`, from the state before
/// the move; `widths` are the instance and node name columns, nodes are
/// named by `names` (aliases), the instance by `inst_name`.
pub fn step_line(
    state: &State,
    p: &Placement,
    pos: usize,
    widths: (usize, usize),
    names: &Names,
    inst_name: fn(&Instance) -> &str,
) -> (String, MoveJob) {
    let inst = state.inst(p.inst as i32).ok();
    let iname = inst.map_or("", inst_name);
    let pair = |(a, b): (i32, i32)| {
        if b == NO_NODE {
            alias_of(names, a).to_owned()
        } else {
            format!("{}:{}", alias_of(names, a), alias_of(names, b))
        }
    };
    let (a, job) = match inst {
        Some(i) => step_job(p, i, iname, names),
        // A step always moves a known instance.
        None => (
            String::new(),
            MoveJob {
                instance: String::new(),
                nodes: Vec::new(),
                commands: Vec::new(),
                opcodes: Vec::new(),
                cost: MoveCost::default(),
            },
        ),
    };
    let line = texts::solution_line(
        pos,
        widths.0,
        iname,
        widths.1,
        &pair(p.old_nodes),
        &pair(p.new_nodes),
        p.score,
        &a,
    );
    (line, job)
}

/// The cost of a plan whose jobs are in `sets` (`split_jobs`), at `rates`.
pub fn plan_cost(sets: &[Vec<&MoveJob>], rates: Rates) -> PlanCost {
    let costs: Vec<Vec<MoveCost>> = sets
        .iter()
        .map(|s| s.iter().map(|j| j.cost).collect())
        .collect();
    PlanCost::of_sets(&costs, rates)
}

/// The cost of the plan of `jobs`, in hbal's job sets (`split_jobs`), at
/// `rates`.
pub fn jobs_cost(jobs: &[MoveJob], rates: Rates) -> PlanCost {
    plan_cost(&split_jobs(jobs), rates)
}

/// Each job's instance and cost, in order (`--report`'s cost table).
pub fn job_costs(jobs: &[MoveJob]) -> Vec<(String, MoveCost)> {
    jobs.iter().map(|j| (j.instance.clone(), j.cost)).collect()
}

/// The `--json` moves of a plan: `steps` with their jobs in `sets`
/// (`split_jobs` of the steps' jobs, in step order), nodes by full name,
/// each with its cost at `rates`.
pub fn moves_document(
    steps: &[Placement],
    sets: &[Vec<&MoveJob>],
    names: &Names,
    rates: Rates,
) -> Vec<Json> {
    let node = |k: i32| node_name(names, k);
    let jobs = sets
        .iter()
        .enumerate()
        .flat_map(|(set, jobs)| jobs.iter().map(move |j| (set + 1, *j)));
    steps
        .iter()
        .zip(jobs)
        .enumerate()
        .map(|(k, (p, (set, job)))| {
            let mut m = document::plan_move(k + 1, &job.instance, p, &node, &job.commands, set);
            if let Json::Obj(fields) = &mut m {
                fields.push(("cost", crate::write::cost::move_json(&job.cost, rates)));
            }
            m
        })
        .collect()
}

/// The full name of node `k`, `None` for no node.
pub fn node_name(names: &Names, k: i32) -> Option<String> {
    usize::try_from(k)
        .ok()
        .and_then(|k| names.get(k))
        .map(|(n, _)| n.clone())
}

/// Every node's name and alias length, by index.
pub fn node_names(cluster: &Cluster) -> Vec<(String, usize)> {
    cluster
        .nodes
        .iter()
        .map(|n| (n.info.name.clone(), n.info.alias_len))
        .collect()
}

/// Balances `state` (`search::balance::balance`), printing each step's
/// line to `out` as it is found, as hbal does; the steps and their jobs.
///
/// # Errors
///
/// A failed write to `out` (after the balancing).
pub fn balance_printing(
    state: &mut State,
    movable: &[bool],
    options: &crate::search::balance::BalanceOptions,
    initial: f64,
    widths: (usize, usize),
    names: &Names,
    out: &mut dyn Write,
) -> Result<(Vec<Placement>, Vec<MoveJob>), Stop> {
    let mut jobs: Vec<MoveJob> = Vec::new();
    let mut io_error: Option<std::io::Error> = None;
    let steps = crate::search::balance::balance(state, movable, options, initial, |st, p| {
        let (line, job) = step_line(st, p, jobs.len() + 1, widths, names, Instance::alias);
        jobs.push(job);
        if io_error.is_none() {
            if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
                io_error = Some(e);
            }
        }
    });
    match io_error {
        Some(e) => Err(e.into()),
        None => Ok((steps, jobs)),
    }
}

/// Balances `state` within `budget` MiB of disk data
/// (`search::balance::budget`), then prints each step's line to `out` as
/// [`balance_printing`] does; the steps, their jobs and the plan kept.
///
/// # Errors
///
/// A failed write to `out`.
#[allow(clippy::too_many_arguments)]
pub fn budgeted_printing(
    state: &mut State,
    movable: &[bool],
    options: &crate::search::balance::BalanceOptions,
    initial: f64,
    budget: i64,
    widths: (usize, usize),
    names: &Names,
    out: &mut dyn Write,
) -> Result<(Vec<Placement>, Vec<MoveJob>, Budgeted), Stop> {
    let planned = budget::plan_within(state, movable, options, initial, budget);
    let mut jobs: Vec<MoveJob> = Vec::new();
    let mut lines = String::new();
    budget::replay(state, &planned.steps, options, |st, p| {
        let (line, job) = step_line(st, p, jobs.len() + 1, widths, names, Instance::alias);
        jobs.push(job);
        lines.push_str(&line);
        lines.push('\n');
    });
    out.write_all(lines.as_bytes())?;
    out.flush()?;
    Ok((planned.steps.clone(), jobs, planned))
}

/// `-C` (`maybeSaveCommands`): the commands on stdout under `heading`
/// (`dest` `-`), or as a script in the file `dest`.
///
/// # Errors
///
/// The script cannot be written, or stdout fails.
pub fn print_commands(
    program: &str,
    dest: Option<&str>,
    heading: &str,
    commands: &str,
    out: &mut dyn Write,
) -> Result<(), Stop> {
    match dest {
        None => Ok(()),
        Some("-") => {
            out.write_all(texts::commands_for_stdout(heading, commands).as_bytes())?;
            Ok(())
        }
        Some(dest) => {
            out.flush()?;
            write_file(program, dest, &texts::commands_script(commands))?;
            writeln!(out, "The commands have been written to file '{dest}'")?;
            Ok(())
        }
    }
}

/// `splitJobs`: consecutive moves on disjoint nodes share a job set,
/// decided from the last move backwards.
pub fn split_jobs(jobs: &[MoveJob]) -> Vec<Vec<&MoveJob>> {
    let mut sets: Vec<Vec<&MoveJob>> = Vec::new();
    let mut buf: Vec<i32> = Vec::new();
    for job in jobs.iter().rev() {
        match sets.first_mut() {
            Some(first) if !job.nodes.iter().any(|n| buf.contains(n)) => {
                first.insert(0, job);
                let mut nb = job.nodes.clone();
                nb.extend_from_slice(&buf);
                buf = nb;
            }
            _ => {
                sets.insert(0, vec![job]);
                buf = job.nodes.clone();
            }
        }
    }
    sets
}

/// The commands text of job sets (`formatCmds`).
pub fn commands_text(sets: &[Vec<&MoveJob>]) -> String {
    let sets: Vec<Vec<Vec<String>>> = sets
        .iter()
        .map(|s| s.iter().map(|j| j.commands.clone()).collect())
        .collect();
    texts::format_commands(&sets)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(nodes: &[i32]) -> MoveJob {
        MoveJob {
            instance: String::new(),
            nodes: nodes.to_vec(),
            commands: vec![format!("{nodes:?}")],
            opcodes: Vec::new(),
            cost: MoveCost::default(),
        }
    }

    /// Job sets are decided from the newest move backwards: the last move
    /// opens a set, and an older one joins it while its nodes are new.
    #[test]
    fn jobs_split_from_the_end() {
        let jobs = [job(&[0]), job(&[1, 2]), job(&[2]), job(&[3])];
        let sets = split_jobs(&jobs);
        let shape: Vec<Vec<&[i32]>> = sets
            .iter()
            .map(|s| s.iter().map(|j| j.nodes.as_slice()).collect())
            .collect();
        assert_eq!(
            shape,
            vec![vec![&[0][..], &[1, 2][..]], vec![&[2][..], &[3][..]]]
        );
    }
}
