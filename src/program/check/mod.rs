//! `hailstone-check`: hcheck's program (`Program/Hcheck.hs`): the cluster
//! is read as hbal reads it, split into its node groups, and each group's
//! figures ([`crate::search::check`]) are printed before and after a
//! simulated rebalancing by the engine of `hailstone-balance`; the exit
//! status is 1 when the cluster needs rebalancing (and the simulation was
//! not turned off).
//!
//! By default the output is hcheck 3.0.2's, byte for byte, with its two
//! counting faults; `--true-counts` corrects them and names, for each node
//! that cannot be evacuated, the instance that cannot leave it. `--json`
//! is hailstone's own document: its `offline_sec` is always the true count
//! of instances whose secondary is offline, hcheck's figure (the offline
//! nodes) beside it as `offline_nodes` (docs/json.md).
//!
//! Everything is computed before anything is printed: an error leaves
//! stdout empty (hcheck dies half-way through its output on an instance
//! whose nodes are in two groups; docs/compatibility.md).

pub mod options;

use std::ffi::OsString;
use std::io::Write;

use crate::model::Cluster;
use crate::program::balance::{engine_options, load};
use crate::read::select;
use crate::score::metric::optimal_score;
use crate::search::balance;
use crate::search::balance::group::split_instances;
use crate::search::check::{group_figures, Evacuation, GroupFigures, OfflineSec};
use crate::search::state::{Crash, State};
use crate::shell::exit::{self, stop, Stop};
use crate::write::balance as balance_texts;
use crate::write::check::{self as texts, Capacity, Phase, Simulation, Style};
use crate::write::json::Json;
use crate::write::report::check as page;
use crate::write::Audience;
use options::{Options, PROGRAM};

/// Runs `hailstone-check` with `args` (without `argv[0]`); returns the
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

/// A group's state and its figures in one phase.
struct Checked {
    group: usize,
    state: State,
    figures: GroupFigures,
}

/// The error for a node whose evacuation looks outside its group.
fn crashed(cluster: &Cluster, g: usize, c: &Crash) -> Stop {
    let split: Vec<&str> = split_instances(cluster)
        .into_iter()
        .map(|k| &cluster.instances[k])
        .filter(|i| usize::try_from(i.p_node).is_ok_and(|p| cluster.nodes[p].group == g))
        .map(|i| &*i.name)
        .collect();
    let named = match split.len() {
        0 => "none".to_owned(),
        n if n <= 5 => split.join(", "),
        n => format!("{} and {} more", split[..5].join(", "), n - 5),
    };
    stop(format!(
        "Error: cannot check the evacuation of the nodes of group {}: {} \
         (instances with their secondary node in another group: {named}); \
         hcheck 3.0.2 dies here\n",
        cluster.groups[g].name, c.0,
    ))
}

/// The figures of group `g` in `state`.
fn check(
    cluster: &Cluster,
    g: usize,
    mut state: State,
    evacuation: Evacuation,
) -> Result<Checked, Stop> {
    let offline = |k: i32| {
        usize::try_from(k)
            .ok()
            .and_then(|k| cluster.nodes.get(k))
            .is_some_and(|n| n.offline)
    };
    let figures =
        group_figures(&mut state, offline, evacuation).map_err(|c| crashed(cluster, g, &c))?;
    Ok(Checked {
        group: g,
        state,
        figures,
    })
}

/// `maybeSimulateGroupRebalance`: the group balanced by hbal's engine
/// unless its score is already below the optimum plus `-e`.
fn rebalanced(o: &Options, movable: &[bool], mut state: State) -> State {
    let nodes: Vec<&crate::model::node::Node> =
        state.node_keys().map(|k| state.node_at(k)).collect();
    let optimal = optimal_score(&nodes);
    let initial = state.score_with(&[]);
    if initial < o.min_score + optimal {
        return state;
    }
    let options = engine_options(o, optimal);
    balance::balance(&mut state, movable, &options, initial, |_, _| {});
    state
}

/// Whether the capacity checks run (not with `--no-capacity-checks`).
fn capacity(o: &Options) -> Capacity {
    if o.algorithm.capacity_checks {
        Capacity::Checked
    } else {
        Capacity::Unchecked
    }
}

/// What hcheck's `OFFLINE_SEC` counts: the offline nodes, or with
/// `--true-counts` the instances whose secondary is offline.
fn offline_sec(o: &Options) -> OfflineSec {
    if o.true_counts {
        OfflineSec::Instances
    } else {
        OfflineSec::Nodes
    }
}

/// The cluster's counts: each group's, summed key by key (`transpose`).
fn cluster_counts(checked: &[Checked], offline_sec: OfflineSec) -> Vec<usize> {
    let mut sums: Vec<usize> = Vec::new();
    for c in checked {
        let counts = c.figures.counts(offline_sec);
        if sums.is_empty() {
            sums = counts;
        } else {
            for (s, v) in sums.iter_mut().zip(counts) {
                *s += v;
            }
        }
    }
    sums
}

/// One phase's texts: each group's statistics, then the cluster's; and
/// the phase's `--json` figures: each group's, then the cluster's (the
/// true `offline_sec` beside hcheck's count, whatever `--true-counts`).
fn phase_text(
    o: &Options,
    cluster: &Cluster,
    style: Style,
    phase: Phase,
    checked: &[Checked],
    need_rebalance: bool,
) -> (String, Vec<Json>, Json) {
    let mut s = String::new();
    let mut groups = Vec::new();
    for c in checked {
        let group = &cluster.groups[c.group];
        let level = if style.audience == Audience::Scripts {
            group.idx.to_string()
        } else {
            group.name.clone()
        };
        let counts = c.figures.counts(offline_sec(o));
        s.push_str(&texts::group_stats(
            style,
            &level,
            phase,
            &counts,
            c.figures.score,
        ));
        let unevacuable: Option<Vec<texts::UnevacuableNode>> =
            match (&c.figures.unevacuable, o.true_counts) {
                (Some(u), true) => Some(
                    u.iter()
                        .map(|u| {
                            (
                                c.state.node_at(u.node).info.name.to_string(),
                                u.blocker.clone(),
                            )
                        })
                        .collect(),
                ),
                _ => None,
            };
        if let Some(nodes) = &unevacuable {
            s.push_str(&texts::unevacuable(style, &level, phase, nodes));
        }
        groups.push(texts::figures_document(
            style.capacity,
            &c.figures.counts(OfflineSec::Nodes),
            c.figures.offline_sec,
            texts::Last::Score(c.figures.score),
            unevacuable.as_deref(),
        ));
    }
    let counts = cluster_counts(checked, offline_sec(o));
    s.push_str(&texts::cluster_stats(style, phase, &counts, need_rebalance));
    // The sums over no group are zeros (the text pairs no count, as
    // hcheck does).
    let mut sums = cluster_counts(checked, OfflineSec::Nodes);
    if sums.is_empty() {
        sums = vec![0; texts::common_data(style.capacity).len()];
    }
    let whole = texts::figures_document(
        style.capacity,
        &sums,
        checked.iter().map(|c| c.figures.offline_sec).sum(),
        texts::Last::NeedRebalance(need_rebalance),
        None,
    );
    (s, groups, whole)
}

/// `--report`'s page: each group as read and, when simulated, after the
/// rebalancing; a node that cannot be evacuated named with the instance
/// that cannot leave it.
fn write_page(
    o: &Options,
    cluster: &Cluster,
    need_rebalance: bool,
    initial: Vec<Checked>,
    finals: Option<Vec<Checked>>,
) -> Result<String, Stop> {
    let simulated = finals.is_some();
    let mut finals = finals.map(Vec::into_iter);
    let mut owned = Vec::new();
    for ini in initial {
        let g = ini.group;
        let fin = finals.as_mut().and_then(Iterator::next);
        let ini = page_phase(cluster, g, ini)?;
        let fin = fin.map(|c| page_phase(cluster, g, c)).transpose()?;
        owned.push((g, ini, fin));
    }
    let groups = owned
        .iter()
        .map(|(g, (ini_state, ini), fin)| page::GroupCheck {
            name: &cluster.groups[*g].name,
            initial: page::GroupPhase {
                nodes: ini_state
                    .node_keys()
                    .map(|k| ini_state.node_at(k))
                    .collect(),
                counts: ini.counts(offline_sec(o)),
                score: ini.score,
                unevacuable: unevacuable_names(ini_state, ini),
            },
            rebalanced: fin.as_ref().map(|(state, f)| page::GroupPhase {
                nodes: state.node_keys().map(|k| state.node_at(k)).collect(),
                counts: f.counts(offline_sec(o)),
                score: f.score,
                unevacuable: unevacuable_names(state, f),
            }),
        })
        .collect();
    Ok(page::page(&page::CheckReport {
        program: PROGRAM,
        tags: &cluster.tags,
        capacity: capacity(o),
        need_rebalance,
        simulated,
        groups,
    }))
}

/// A checked group's state and figures, each node that cannot be
/// evacuated with the instance that stops it (looked for when the run
/// did not).
fn page_phase(cluster: &Cluster, g: usize, mut c: Checked) -> Result<(State, GroupFigures), Stop> {
    if let Some(list) = c.figures.unevacuable.as_mut() {
        for u in list.iter_mut().filter(|u| u.blocker.is_none()) {
            if let Some(found) = crate::search::globaln1::evacuation_blocker(&mut c.state, u.node)
                .map_err(|e| crashed(cluster, g, &e))?
            {
                *u = found;
            }
        }
    }
    Ok((c.state, c.figures))
}

/// The names of the nodes of `f` that cannot be evacuated, with why.
fn unevacuable_names(state: &State, f: &GroupFigures) -> Vec<page::Unevacuable> {
    f.unevacuable
        .iter()
        .flatten()
        .map(|u| (state.node_at(u.node).info.name.clone(), u.blocker.clone()))
        .collect()
}

fn run(o: &Options, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), Stop> {
    let (mut cluster, movable) = load(PROGRAM, o, err)?;
    select::set_node_status(&mut cluster, &o.offline, o.max_cpu, o.min_disk)
        .map_err(|wrong| stop(balance_texts::wrong_offline(&wrong)))?;
    let evacuation = match (o.algorithm.capacity_checks, o.true_counts) {
        (false, _) => Evacuation::Off,
        (true, false) => Evacuation::Verdict,
        (true, true) => Evacuation::Blocker,
    };
    let style = Style {
        audience: o.audience(),
        verbose: o.verbose,
        capacity: capacity(o),
    };
    // splitCluster: the groups that have nodes, by index.
    let groups: Vec<usize> = (0..cluster.groups.len())
        .filter(|&g| cluster.nodes.iter().any(|n| n.group == g))
        .collect();
    let initial = groups
        .iter()
        .map(|&g| check(&cluster, g, State::of_group(&cluster, g), evacuation))
        .collect::<Result<Vec<_>, _>>()?;
    let need_rebalance = cluster_counts(&initial, offline_sec(o))
        .iter()
        .sum::<usize>()
        > 0;
    let simulate = !o.no_simulation && need_rebalance;
    let mut text = String::new();
    if style.audience == Audience::Scripts {
        let uuids: Vec<(usize, &str)> = cluster
            .groups
            .iter()
            .map(|g| (g.idx, g.uuid.as_str()))
            .collect();
        text.push_str(&texts::group_mappings(&uuids));
    } else if o.verbose >= 1 {
        let simulation = if o.no_simulation {
            Simulation::Skipped
        } else {
            Simulation::Run
        };
        text.push_str(texts::verdict(simulation, need_rebalance));
    }
    let group_ids: Vec<usize> = initial.iter().map(|c| c.group).collect();
    let (initial_text, initial_groups, initial_cluster) =
        phase_text(o, &cluster, style, Phase::Initial, &initial, need_rebalance);
    text.push_str(&initial_text);
    let mut rebalanced_figures = None;
    let mut finals = None;
    let mut initial = Some(initial);
    let machine = style.audience == Audience::Scripts;
    if simulate || machine || o.json {
        let rebalanced = initial
            .take()
            .unwrap_or_default()
            .into_iter()
            .map(|c| {
                let state = if simulate {
                    rebalanced(o, &movable, c.state)
                } else {
                    c.state
                };
                check(&cluster, c.group, state, evacuation)
            })
            .collect::<Result<Vec<_>, _>>()?;
        // hcheck judges the final state by the initial counts.
        let final_need = if o.true_counts {
            cluster_counts(&rebalanced, OfflineSec::Instances)
                .iter()
                .sum::<usize>()
                > 0
        } else {
            need_rebalance
        };
        let (final_text, groups, whole) = phase_text(
            o,
            &cluster,
            style,
            Phase::Rebalanced,
            &rebalanced,
            final_need,
        );
        if simulate || machine {
            text.push_str(&final_text);
        }
        rebalanced_figures = Some((groups, whole));
        finals = Some(rebalanced);
    }
    text.push_str(&texts::final_ok(style.audience));
    // With --json the rebalanced figures are always computed (the
    // initial ones again when nothing is simulated).
    if let (true, Some((final_groups, final_cluster))) = (o.json, rebalanced_figures) {
        let groups = group_ids
            .iter()
            .zip(initial_groups)
            .zip(final_groups)
            .map(|((&g, initial), rebalanced)| texts::GroupPhases {
                name: &cluster.groups[g].name,
                uuid: &cluster.groups[g].uuid,
                initial,
                rebalanced,
            })
            .collect();
        let doc = texts::document(
            PROGRAM,
            o.load.ganeti,
            need_rebalance,
            if simulate {
                Simulation::Run
            } else {
                Simulation::Skipped
            },
            groups,
            (initial_cluster, final_cluster),
        );
        text = doc.line();
    }
    out.write_all(text.as_bytes())?;
    out.flush()?;
    if let Some(path) = &o.report {
        let finals = finals.filter(|_| simulate);
        // The groups as read, checked again when the rebalancing took them.
        let initial = match initial {
            Some(initial) => initial,
            None => groups
                .iter()
                .map(|&g| check(&cluster, g, State::of_group(&cluster, g), evacuation))
                .collect::<Result<Vec<_>, _>>()?,
        };
        let page = write_page(o, &cluster, need_rebalance, initial, finals)?;
        exit::write_own_file("report", path, &page)?;
    }
    if o.no_simulation || !need_rebalance {
        Ok(())
    } else {
        Err(stop(String::new()))
    }
}
