//! `hailstone-squeeze`: hsqueeze's program (`Program/Hsqueeze.hs`) on the
//! planner of [`crate::search::squeeze`]: the cluster is read from a data
//! file or an iallocator request, the nodes to power off (or the standby
//! nodes to power on) are chosen, and the node list, the commands of the
//! plan and the saved states come out as hsqueeze 3.0.2 prints them.

pub mod options;

use std::ffi::OsString;
use std::io::Write;

use crate::explain;
use crate::haskell::show::show_double;
use crate::model::cost::PlanCost;
use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::model::Cluster;
use crate::read::merge::MergeOptions;
use crate::score::metric;
use crate::search::squeeze::{
    offline_candidates, online_candidates, Decision, Progress, Squeeze, Trial,
};
use crate::search::squeeze_cautions::{self, Caution};
use crate::search::state::State;
use crate::shell::exit::{self, Stop};
use crate::shell::jobs;
use crate::shell::plan::{self, alias_of, commands_text, split_jobs, step_job, MoveJob, Names};
use crate::shell::source;
use crate::write::json::Json;
use crate::write::opcodes::{self, meta_opcode};
use crate::write::squeeze as texts;
use crate::write::text;
use options::{Options, PROGRAM};

/// Runs `hailstone-squeeze` with `args` (without `argv[0]`); returns the
/// exit status.
pub fn main(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    main_showing(args, out, err, ProgressLine::Hidden)
}

/// Whether a line on stderr counts the nodes tried while the decision is
/// searched for: shown where a person watches (a terminal: the search can
/// take a while on a large cluster). The output does not depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressLine {
    Shown,
    Hidden,
}

/// [`main`], with the `progress` line or without.
pub fn main_showing(
    args: &[OsString],
    out: &mut dyn Write,
    err: &mut dyn Write,
    progress: ProgressLine,
) -> u8 {
    exit::main(
        PROGRAM,
        options::COMMAND_LINE.parse_without_arguments(args),
        |o: &Options, out: &mut dyn Write, err: &mut dyn Write| run(o, out, err, progress),
        out,
        err,
    )
}

/// A decision's heading, or none with `--no-headers`.
fn heading<'a>(o: &Options, text: &'a str) -> Option<&'a str> {
    (!o.no_headers).then_some(text)
}

/// Reads the cluster (`loadExternalData`: the data file, else the
/// request) and prints the loader's warnings.
fn load(o: &Options, err: &mut dyn Write) -> Result<Cluster, Stop> {
    let (cluster, warnings) = source::read_cluster(
        source::Sources::of(o, None),
        &MergeOptions::default(),
        o.load,
    )?;
    // hsqueeze has no -q: the warnings always show.
    err.write_all(crate::write::notes::warnings(&warnings).as_bytes())?;
    Ok(cluster)
}

/// The jobs of a trial's moves: instances by full name in the commands,
/// nodes by alias.
fn move_jobs(cluster: &Cluster, trial: &Trial, names: &Names) -> Vec<MoveJob> {
    trial
        .steps
        .iter()
        .map(|p| {
            let inst = &cluster.instances[p.inst];
            step_job(p, inst, &inst.name, names).1
        })
        .collect()
}

/// `-X` of a decision: hsqueeze's job sets, annotated with `comment`.
/// Powering off: the moves' sets, one set per node to tag standby, and
/// one job setting the nodes offline and powering them off. Powering on:
/// one job powering the nodes on and then setting them online, then the
/// moves' sets. (hsqueeze 3.0.2 sets the nodes online before powering
/// them on, which Ganeti refuses: "Node ... needs to be turned on before
/// its offline status can be reset".)
fn exec_sets(
    cluster: &Cluster,
    moves: &[MoveJob],
    nodes: &[usize],
    on: bool,
    comment: &str,
) -> Vec<jobs::JobSet> {
    let a = jobs::annotation(PROGRAM, comment, None, 0);
    let full: Vec<&str> = nodes
        .iter()
        .map(|&k| cluster.nodes[k].info.name.as_str())
        .collect();
    let move_sets = jobs::move_sets(&split_jobs(moves), &a, "Moving instances");
    let mut power: Vec<crate::write::json::Json> = Vec::new();
    if on {
        power.push(opcodes::oob_power_opcode(&full, true));
    }
    power.extend(full.iter().map(|n| opcodes::node_offline_opcode(n, !on)));
    if !on {
        power.push(opcodes::oob_power_opcode(&full, false));
    }
    let power = jobs::JobSet {
        description: if on {
            "Powering on nodes"
        } else {
            "Powering off nodes"
        }
        .to_owned(),
        jobs: vec![power.iter().map(|o| meta_opcode(o, &a)).collect()],
    };
    if on {
        // No standby node to power on: only the moves (hsqueeze would
        // submit an out-of-band command for no node).
        let mut sets = if full.is_empty() {
            Vec::new()
        } else {
            vec![power]
        };
        sets.extend(move_sets);
        return sets;
    }
    let mut sets = move_sets;
    for n in &full {
        sets.push(jobs::JobSet {
            description: format!("Tagging node {n} with standby"),
            jobs: vec![vec![meta_opcode(
                &opcodes::node_tags_opcode(n, &[texts::STANDBY_TAG]),
                &a,
            )]],
        });
    }
    sets.push(power);
    sets
}

/// This program's version, in the jobs' comments.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The cluster after a trial, as a data file.
fn trial_data(cluster: &Cluster, trial: &Trial) -> String {
    match &trial.state {
        Some(state) => {
            let nodes: Vec<&Node> = state.node_keys().map(|k| state.node_at(k)).collect();
            let insts: Vec<&Instance> = state.instances().collect();
            text::serialize_lists(cluster, nodes, insts)
        }
        None => text::serialize_cluster(cluster),
    }
}

/// Prints the commands (`maybeSaveCommands`) to stdout or a script.
fn save_commands(o: &Options, out: &mut dyn Write, cmds: &str) -> Result<(), Stop> {
    plan::print_commands(
        PROGRAM,
        o.print_commands.as_deref(),
        "Commands to run:",
        cmds,
        out,
    )
}

/// Writes the final state to `<S>.squeezed`, with `what` in the message.
fn save_final(
    o: &Options,
    out: &mut dyn Write,
    err: &mut dyn Write,
    what: &str,
    data: impl FnOnce() -> String,
) -> Result<(), Stop> {
    if let Some(path) = &o.save {
        out.flush()?;
        exit::save_state(PROGRAM, path, "squeezed", what, &data(), err)?;
    }
    Ok(())
}

fn run(
    o: &Options,
    out: &mut dyn Write,
    err: &mut dyn Write,
    progress: ProgressLine,
) -> Result<(), Stop> {
    exit::text_or_document(PROGRAM, o, out, err, |out, err| {
        plan_text(o, out, err, progress)
    })
}

/// The run: its text on `out`, its `--json` document returned.
fn plan_text(
    o: &Options,
    out: &mut dyn Write,
    err: &mut dyn Write,
    progress: ProgressLine,
) -> Result<Json, Stop> {
    let cluster = load(o, err)?;
    if let Some(path) = &o.save {
        let text = text::serialize_cluster(&cluster);
        exit::save_state(PROGRAM, path, "original", "before hsqueeze run", &text, err)?;
    }
    let names: Vec<(String, usize)> = cluster
        .nodes
        .iter()
        .map(|n| (n.info.name.clone(), n.info.alias_len))
        .collect();
    let full_names = |keys: &[usize]| -> Vec<&str> {
        keys.iter()
            .map(|&k| cluster.nodes[k].info.name.as_str())
            .collect()
    };
    let off = full_names(&offline_candidates(&cluster));
    let on = full_names(&online_candidates(&cluster));
    let document = |decision: &str,
                    nodes: &[usize],
                    enough: Option<bool>,
                    moves: Vec<Json>,
                    cautions: &[Caution]| {
        texts::document(
            PROGRAM,
            o.load.ganeti,
            &texts::Decided {
                decision,
                nodes: &full_names(nodes),
                enough,
                candidates: (&off, &on),
            },
            moves,
            explain::squeeze::cautions_json(&cluster, cautions),
        )
    };
    let aliases = |keys: &[usize]| -> Vec<&str> {
        keys.iter().map(|&k| alias_of(&names, k as i32)).collect()
    };
    let planner = Squeeze::new(&cluster);
    let mut shown = false;
    let mut show = |p: Progress| {
        if progress == ProgressLine::Shown {
            // A failed write to a terminal changes nothing of the plan.
            let _ = err.write_all(texts::progress(&p).as_bytes());
            let _ = err.flush();
            shown = true;
        }
    };
    let (decision, why) = planner.decide(o.minimal_resources, o.target_resources, &mut show);
    if shown {
        err.write_all(b"\n")?;
    }
    if matches!(decision, Decision::Offline { .. }) && o.minimal_resources > o.target_resources {
        // Powered off down to the target now, below the minimum at the
        // next run and powered on again: refused (hsqueeze plans it).
        // Powering on with a minimum above the target is what an
        // operator does to bring nodes back, and is kept.
        return Err(exit::stop(format!(
            "Error: --minimal-resources={} is above --target-resources={}: the nodes this run \
             would power off (down to the target) would be powered on again at the next run; \
             give a target at least the minimum\n",
            show_double(o.minimal_resources),
            show_double(o.target_resources)
        )));
    }
    if o.verbose > 1 {
        out.write_all(texts::candidates(&off, &on).as_bytes())?;
    }
    // What the plan does that Ganeti refuses or that breaks what it
    // keeps (hsqueeze plans the same; reported, the plan left as it is).
    let cautions = match &decision {
        Decision::Online { trial, .. } => {
            squeeze_cautions::cautions(&cluster, &trial.steps, trial.state.as_ref(), &[])
        }
        Decision::Offline { nodes, trial } => {
            squeeze_cautions::cautions(&cluster, &trial.steps, trial.state.as_ref(), nodes)
        }
        Decision::NoAction => Vec::new(),
    };
    // The moves' jobs and what they cost (the power and tag jobs copy
    // nothing and are left out).
    let moves = match &decision {
        Decision::Online { trial, .. } | Decision::Offline { trial, .. } => {
            move_jobs(&cluster, trial, &names)
        }
        Decision::NoAction => Vec::new(),
    };
    let cost = plan::jobs_cost(&moves, o.rates);
    if let Some(to) = &o.explain {
        let text = explain::squeeze::render(
            &cluster,
            &decision,
            &why,
            &cautions,
            (o.minimal_resources, o.target_resources),
            &cost,
            o.explain_format,
        );
        exit::write_explanation(to, &text, err)?;
    }
    let report = |decision: &str, nodes: &[usize], trial: Option<&Trial>| {
        let Some(path) = &o.report else {
            return Ok(());
        };
        let state = trial.and_then(|t| t.state.as_ref());
        let before: Vec<&Node> = cluster.nodes.iter().collect();
        let after: Vec<&Node> = match state {
            Some(s) => s.node_keys().map(|k| s.node_at(k)).collect(),
            None => before.clone(),
        };
        let loaded = State::from_lists(
            cluster.nodes.clone(),
            cluster.instances.clone(),
            &cluster.groups,
        );
        let ini_components = metric::components(loaded.statistics());
        let fin_components = state.map_or_else(
            || ini_components.clone(),
            |s| metric::components(s.statistics()),
        );
        let ini_score = loaded.score_with(&[]);
        let fin_score = state.map_or(ini_score, |s| s.score_with(&[]));
        let node_name = |k: i32| plan::node_name(&names, k);
        let instance_name = |k: usize| cluster.instances[k].name.to_string();
        let page =
            crate::write::report::squeeze::page(&crate::write::report::squeeze::SqueezeReport {
                program: PROGRAM,
                decision,
                switched: &full_names(nodes),
                reserves: (o.minimal_resources, o.target_resources),
                scores: (ini_score, fin_score),
                cautions: &explain::squeeze::cautions_texts(&cluster, &cautions),
                plan: crate::write::report::Plan {
                    tags: &cluster.tags,
                    before: &before,
                    after: &after,
                    steps: trial.map_or(&[][..], |t| &t.steps),
                    instance_name: &instance_name,
                    node_name: &node_name,
                    components: (&ini_components, &fin_components),
                },
                cost: (&cost, &plan::job_costs(&moves)),
            });
        exit::write_own_file("report", path, &page)
    };
    let result = match decision {
        Decision::Online {
            nodes,
            enough,
            trial,
        } => {
            let heading = texts::decision(heading(o, "Nodes to online"), &full_names(&nodes));
            out.write_all(heading.as_bytes())?;
            if o.verbose > 1 && !enough {
                out.write_all(texts::NOT_ENOUGH.as_bytes())?;
            }
            print_cost(o, &cost, out)?;
            let cmds =
                texts::online_commands(&aliases(&nodes), &commands_text(&split_jobs(&moves)));
            save_commands(o, out, &cmds)?;
            report("online", &nodes, Some(&trial))?;
            if o.exec {
                let comment = texts::jobs_comment(true, nodes.len(), PROGRAM, VERSION);
                let sets = exec_sets(&cluster, &moves, &nodes, true, &comment);
                jobs::exec(PROGRAM, o.luxi.as_deref(), &sets, out)?;
            }
            save_final(o, out, err, "after hsqueeze expansion", || {
                trial_data(&cluster, &trial)
            })?;
            let moves = plan::moves_document(&trial.steps, &split_jobs(&moves), &names, o.rates);
            document("online", &nodes, Some(enough), moves, &cautions)
        }
        Decision::NoAction => {
            out.write_all(texts::decision(heading(o, "No action"), &[]).as_bytes())?;
            print_cost(o, &cost, out)?;
            save_commands(o, out, texts::NOTHING_TO_DO)?;
            report("no-action", &[], None)?;
            save_final(o, out, err, "after hsqueeze doing nothing", || {
                text::serialize_cluster(&cluster)
            })?;
            document("no-action", &[], None, Vec::new(), &cautions)
        }
        Decision::Offline { nodes, trial } => {
            let heading = texts::decision(heading(o, "Nodes to offline"), &full_names(&nodes));
            out.write_all(heading.as_bytes())?;
            print_cost(o, &cost, out)?;
            let cmds =
                texts::offline_commands(&aliases(&nodes), &commands_text(&split_jobs(&moves)));
            save_commands(o, out, &cmds)?;
            report("offline", &nodes, Some(&trial))?;
            if o.exec {
                let comment = texts::jobs_comment(false, nodes.len(), PROGRAM, VERSION);
                let sets = exec_sets(&cluster, &moves, &nodes, false, &comment);
                jobs::exec(PROGRAM, o.luxi.as_deref(), &sets, out)?;
            }
            save_final(o, out, err, "after hsqueeze run", || {
                trial_data(&cluster, &trial)
            })?;
            let moves = plan::moves_document(&trial.steps, &split_jobs(&moves), &names, o.rates);
            document("offline", &nodes, None, moves, &cautions)
        }
    };
    out.flush()?;
    Ok(crate::write::cost::with_cost(
        result,
        crate::write::cost::plan_json(&cost),
    ))
}

/// `--print-cost`: what the plan's moves cost, before the commands.
fn print_cost(o: &Options, cost: &PlanCost, out: &mut dyn Write) -> Result<(), Stop> {
    if o.print_cost {
        out.write_all(crate::write::cost::text(cost).as_bytes())?;
    }
    Ok(())
}
