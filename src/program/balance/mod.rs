//! `hailstone-balance`: hbal's program (`Program/Hbal.hs`) on the
//! balancing engine ([`crate::search::balance`]): the cluster is read from
//! a data file, one node group is chosen, checked and balanced, and every
//! step, the commands of the plan and the saved states come out as hbal
//! 3.0.2 prints them.
//!
//! Output goes straight to the two streams given, in hbal's order (step
//! lines as they are found); an error stops the run with hbal's message
//! and exit status after whatever hbal would also have printed.

pub mod options;

use std::ffi::OsString;
use std::io::Write;

use crate::explain;
use crate::model::cost::{Knee, MoveCost, PlanCost};
use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::model::Cluster;
use crate::read::merge::MergeOptions;
use crate::read::select;
use crate::score::metric::{self, optimal_score};
use crate::search::balance::budget::Strategy;
use crate::search::balance::{self, group, BalanceOptions};
use crate::search::state::State;
use crate::shell::exit::{self, open_error, stop, Stop};
use crate::shell::jobs;
use crate::shell::mond;
use crate::shell::plan::{self, commands_text, split_jobs};
use crate::shell::source;
use crate::write::balance as texts;
use crate::write::cost as cost_text;
use crate::write::json::Json;
use crate::write::nodes::{print_nodes, PrintNodes};
use crate::write::notes;
use crate::write::report::cost::CostView;
use crate::write::text;
use options::{Options, PROGRAM};

/// Runs `hailstone-balance` with `args` (without `argv[0]`); returns the
/// exit status.
pub fn main(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    exit::main(
        PROGRAM,
        options::COMMAND_LINE.parse_without_arguments(args),
        run,
        out,
        err,
    )
}

/// Reads the cluster for `program` (`loadExternalData` with hbal's extras: `-U`,
/// `--exclusion-tags`, `--mond`, the instances that may move), with the
/// movable flags of its instances by index.
pub(crate) fn load(
    program: &str,
    o: &Options,
    err: &mut dyn Write,
) -> Result<(Cluster, Vec<bool>), Stop> {
    let utilisation = match &o.dynu_file {
        Some(path) => {
            let text = std::fs::read(path)
                .map_err(|e| stop(format!("{program}: {}\n", open_error(path, &e))))?;
            select::utilisation(&String::from_utf8_lossy(&text))
                .map_err(|m| stop(format!("Error: can't parse utilisation data: {m}\n")))?
        }
        None => Vec::new(),
    };
    let merge = MergeOptions {
        ignore_dynu: o.ignore_dynu,
        utilisation,
        exclusion_prefixes: o
            .exclusion_tags
            .iter()
            .flatten()
            .map(|t| format!("{t}:"))
            .collect(),
        ..MergeOptions::default()
    };
    // `-I` reads the request's cluster once (hbal merges it twice:
    // docs/compatibility.md).
    let (mut cluster, warnings) =
        source::read_cluster(source::Sources::of(o, o.master.as_deref()), &merge, o.load)?;
    mond::apply(&mut cluster, o, err)?;
    let movable = select::movable_instances(&cluster, &o.select_instances, &o.exclude_instances)
        .map_err(|unknown| exit::load_failed(texts::unknown_instances(&unknown)))?;
    if o.verbose != 0 {
        err.write_all(crate::write::notes::warnings(&warnings).as_bytes())?;
    }
    Ok((cluster, movable))
}

fn run(o: &Options, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), Stop> {
    exit::text_or_document(PROGRAM, o, out, err, |out, err| plan_text(o, out, err))
}

/// The run: its text on `out`, its `--json` document returned.
fn plan_text(o: &Options, out: &mut dyn Write, err: &mut dyn Write) -> Result<Json, Stop> {
    let (mut cluster, movable) = load(PROGRAM, o, err)?;
    if o.verbose > 1 {
        out.write_all(texts::loaded_cluster(&cluster.cluster_tags, &cluster.ipolicy).as_bytes())?;
    }
    let original = o.save.as_ref().map(|_| text::serialize_cluster(&cluster));
    select::set_node_status(&mut cluster, &o.offline, o.max_cpu, o.min_disk)
        .map_err(|wrong| stop(texts::wrong_offline(&wrong)))?;
    // checkCluster.
    if cluster.instances.is_empty() {
        writeln!(out, "Cluster is empty, exiting.")?;
        return Ok(texts::empty_document(PROGRAM, o.load.ganeti));
    }
    if o.verbose > 1 {
        let split = group::split_instances(&cluster);
        let names: Vec<&str> = split.iter().map(|&k| &*cluster.instances[k].name).collect();
        err.write_all(texts::split_instances(&names).as_bytes())?;
    }
    out.write_all(texts::loaded(&cluster, o.verbose).as_bytes())?;
    if let (Some(path), Some(text)) = (&o.save, &original) {
        exit::save_state(PROGRAM, path, "original", "before balancing", text, err)?;
    }
    // selectGroup and checkGroup.
    let group = group::select_group(&cluster, o.group.as_deref())
        .map_err(|e| stop(texts::select_error(&e, &cluster)))?;
    let check = group::check_group(&cluster, group);
    let gname = &cluster.groups[group].name;
    out.write_all(texts::group_check(&check, gname, o.verbose, o.algorithm.soft).as_bytes())?;
    let names = plan::node_names(&cluster);
    let group_insts: Vec<&Instance> = check
        .instances
        .iter()
        .map(|&k| &cluster.instances[k])
        .collect();
    if o.print_instances {
        err.write_all(texts::instance_map("Initial", &group_insts, &names).as_bytes())?;
    }
    let fields = o.print_nodes.as_ref().map(PrintNodes::fields);
    if let Some(fields) = &fields {
        let table = print_nodes(&check.nodes, fields, &cluster.tags, 0);
        err.write_all(notes::node_table("Initial cluster", &table).as_bytes())?;
    }

    // The group's state and scores.
    let widths = texts::name_widths(&group_insts, &check.nodes);
    let opt_cv = optimal_score(&check.nodes);
    let ini_free = group::free_totals(&check.nodes);
    let mut state = State::of_group(&cluster, group);
    let ini_cv = state.score_with(&[]);
    let ini_components = metric::components(state.statistics());
    out.write_all(texts::initial_score(ini_cv, &ini_components, o.verbose).as_bytes())?;
    let options = engine_options(o, opt_cv);
    let explain = |state: &State,
                   fin: f64,
                   steps: usize,
                   cost: Option<(&PlanCost, Option<&Knee>)>,
                   budget: Option<(i64, Strategy)>,
                   err: &mut dyn Write| {
        let Some(to) = &o.explain else {
            return Ok(());
        };
        let run = explain::balance::Run {
            state,
            options: &options,
            movable: &movable,
            initial: ini_cv,
            optimal: opt_cv,
            fin,
            steps,
            stopped: explain::stopped::Stopped::new(
                state,
                &cluster.tags,
                &movable,
                &options,
                fin,
                steps,
            ),
            cost,
            budget,
        };
        let text = explain::balance::render(&run, o.explain_format);
        exit::write_explanation(to, &text, err)
    };
    let report = |status: &str,
                  after: &[&Node],
                  steps: &[balance::Placement],
                  fin: f64,
                  fin_components: texts::Terms<'_>,
                  cost: Option<CostView<'_>>| {
        let Some(path) = &o.report else {
            return Ok(());
        };
        let node_name = |k: i32| plan::node_name(&names, k);
        let instance_name = |k: usize| cluster.instances[k].name.to_string();
        let page =
            crate::write::report::balance::page(&crate::write::report::balance::BalanceReport {
                program: PROGRAM,
                group: gname,
                plan: crate::write::report::Plan {
                    tags: &cluster.tags,
                    before: &check.nodes,
                    after,
                    steps,
                    instance_name: &instance_name,
                    node_name: &node_name,
                    components: (&ini_components, fin_components),
                },
                scores: (ini_cv, fin, opt_cv),
                status,
                cost,
            });
        exit::write_own_file("report", path, &page)
    };
    if ini_cv - opt_cv < o.min_score {
        let cost = PlanCost::of_sets(&[], o.rates);
        explain(
            &state,
            ini_cv,
            0,
            Some((&cost, None)),
            o.max_copy.map(|b| (b, Strategy::HbalThenGainPerByte)),
            err,
        )?;
        out.write_all(texts::well_balanced(ini_cv, opt_cv, o.min_score).as_bytes())?;
        if o.print_cost {
            out.write_all(cost_text::text(&cost).as_bytes())?;
        }
        let view = CostView {
            cost: &cost,
            steps: &[],
            initial: ini_cv,
            knee: None,
        };
        report(
            "well balanced",
            &check.nodes,
            &[],
            ini_cv,
            &ini_components,
            Some(view),
        )?;
        let head = texts::Head {
            group: gname,
            check: &check,
            scores: (ini_cv, ini_cv, opt_cv, o.min_score),
            components: (&ini_components, &ini_components),
        };
        let doc = head.document(PROGRAM, o.load.ganeti, "well-balanced", Vec::new());
        return Ok(cost_text::with_cost(
            doc,
            cost_text::with_budget(
                cost_text::plan_json_with_knee(&cost, None),
                o.max_copy.map(|b| (b, Strategy::HbalThenGainPerByte)),
            ),
        ));
    }
    writeln!(out, "Trying to minimize the CV...")?;
    out.flush()?;
    let (steps, jobs, budgeted) = match o.max_copy {
        None => {
            let (steps, jobs) = plan::balance_printing(
                &mut state, &movable, &options, ini_cv, widths, &names, out,
            )?;
            (steps, jobs, None)
        }
        Some(budget) => {
            let (steps, jobs, planned) = plan::budgeted_printing(
                &mut state, &movable, &options, ini_cv, budget, widths, &names, out,
            )?;
            (steps, jobs, Some((budget, planned.strategy)))
        }
    };
    let fin_cv = steps.last().map_or(ini_cv, |p| p.score);
    let all_sets = split_jobs(&jobs);
    let cost = plan::plan_cost(&all_sets, o.rates);
    let step_costs: Vec<(MoveCost, f64)> = jobs
        .iter()
        .zip(&steps)
        .map(|(j, p)| (j.cost, p.score))
        .collect();
    let knee = plan_knee(ini_cv, &step_costs);
    explain(
        &state,
        fin_cv,
        steps.len(),
        Some((&cost, knee.as_ref())),
        budgeted,
        err,
    )?;
    let fin_components = metric::components(state.statistics());
    out.write_all(
        texts::balanced(steps.len(), ini_cv, fin_cv, &fin_components, o.verbose).as_bytes(),
    )?;
    if o.print_cost {
        out.write_all(cost_text::text(&cost).as_bytes())?;
        writeln!(
            out,
            "  {}",
            cost_text::knee_line(knee.as_ref(), cost.total.disk)
        )?;
    }
    let moves = plan::moves_document(&steps, &all_sets, &names, o.rates);
    let mut sets = all_sets;
    if o.first_job_group {
        sets.truncate(1);
    }
    let heading = if o.first_job_group {
        "First set of jobs:"
    } else {
        "Commands to run to reach the above solution:"
    };
    plan::print_commands(
        PROGRAM,
        o.print_commands.as_deref(),
        heading,
        &commands_text(&sets),
        out,
    )?;

    let fin_nodes: Vec<&Node> = state.node_keys().map(|k| state.node_at(k)).collect();
    let fin_insts: Vec<&Instance> = state.instances().collect();
    if let Some(path) = &o.save {
        let text = text::serialize_lists(&cluster, fin_nodes.clone(), fin_insts.clone());
        out.flush()?;
        exit::save_state(PROGRAM, path, "balanced", "after balancing", &text, err)?;
    }
    if o.print_instances {
        err.write_all(texts::instance_map("Final", &fin_insts, &names).as_bytes())?;
    }
    if let Some(fields) = &fields {
        let table = print_nodes(&fin_nodes, fields, &cluster.tags, 0);
        err.write_all(notes::node_table("Final cluster", &table).as_bytes())?;
    }
    if o.verbose > 3 {
        let totals = texts::free_totals(ini_free, group::free_totals(&fin_nodes));
        out.write_all(totals.as_bytes())?;
    }
    report(
        "balanced",
        &fin_nodes,
        &steps,
        fin_cv,
        &fin_components,
        Some(CostView {
            cost: &cost,
            steps: &step_costs,
            initial: ini_cv,
            knee: knee.as_ref(),
        }),
    )?;
    // hbal ignores -X when there is nothing to do.
    if o.exec && !steps.is_empty() {
        let comment = format!("rebalancing via {PROGRAM} {}", env!("CARGO_PKG_VERSION"));
        let a = jobs::annotation(PROGRAM, &comment, o.reason.as_deref(), o.priority);
        let sets = jobs::move_sets(&sets, &a, "Executing jobset for instances");
        jobs::exec(PROGRAM, o.luxi.as_deref(), &sets, out)?;
    }
    out.flush()?;
    let head = texts::Head {
        group: gname,
        check: &check,
        scores: (ini_cv, fin_cv, opt_cv, o.min_score),
        components: (&ini_components, &fin_components),
    };
    let doc = head.document(PROGRAM, o.load.ganeti, "balanced", moves);
    Ok(cost_text::with_cost(
        doc,
        cost_text::with_budget(
            cost_text::plan_json_with_knee(&cost, knee.as_ref()),
            budgeted,
        ),
    ))
}

/// The knee of a plan whose steps have these costs and scores, from the
/// score `initial` ([`crate::model::cost::knee`]).
pub(crate) fn plan_knee(initial: f64, steps: &[(MoveCost, f64)]) -> Option<Knee> {
    let scores: Vec<f64> = steps.iter().map(|s| s.1).collect();
    let data: Vec<i64> = steps.iter().map(|s| s.0.disk).collect();
    crate::model::cost::knee(initial, &scores, &data)
}

/// The balancing engine's settings from hbal's options, for a group whose
/// optimal score is `optimal`.
pub(crate) fn engine_options(o: &Options, optimal: f64) -> BalanceOptions {
    BalanceOptions {
        soft: o.algorithm.soft,
        disk_moves: o.disk_moves,
        inst_moves: o.inst_moves,
        restricted_migration: o.restricted_migration,
        evac_mode: o.evac_mode,
        min_gain: o.min_gain,
        min_gain_limit: o.min_gain_limit,
        max_length: o.max_length,
        stop_score: optimal + o.min_score,
        threads: true,
    }
}
