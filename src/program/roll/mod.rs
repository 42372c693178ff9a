//! `hailstone-roll`: hroller's program (`Program/Hroller.hs`): the
//! cluster is read as hbal reads it, the nodes to reboot are chosen
//! (online, with `--node-tags`, `-G`, `--skip-non-redundant`), and the
//! groups of nodes that can be rebooted together come out in hroller's
//! order ([`crate::search::roll`]: the node graph, the smallest of three
//! colourings, each colour split so that its non-redundant instances, and
//! with `--full-evacuation` its drbd instances, can move away), the
//! groups largest first and the master last, with `--print-moves` the
//! moves each needs. The output is hroller 3.0.2's, byte for byte;
//! `--shared-storage-movable` keeps, under `--skip-non-redundant`, the
//! nodes whose only non-redundant instances are on shared storage (their
//! instances are planned to migrate away like the others). `-X` carries
//! the groups out ([`exec`]).

mod cost;
mod exec;
pub mod options;

use std::ffi::OsString;
use std::io::Write;

use crate::haskell::show::show_string_list;
use crate::model::cost::PlanCost;
use crate::program::balance::load;
use crate::program::cli::suggest;
use crate::read::select;
use crate::search::roll::{self, Clearing, Conf, Maintenance};
use crate::shell::exit::{self, stop, Stop};
use crate::write::balance as balance_texts;
use crate::write::json::Json;
use crate::write::roll as texts;
use crate::write::text;
use options::{Options, PROGRAM};

/// Runs `hailstone-roll` with `args` (without `argv[0]`); returns the exit
/// status.
pub fn main(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    exit::main(
        PROGRAM,
        options::COMMAND_LINE.parse_without_arguments(args),
        run,
        out,
        err,
    )
}

fn error(message: &str) -> Stop {
    stop(format!("Error: {message}\n"))
}

/// How the reboot groups are cleared (`--offline-maintenance`).
fn maintenance(o: &Options) -> Maintenance {
    if o.roll.offline_maintenance {
        Maintenance::Offline
    } else {
        Maintenance::Online
    }
}

fn run(o: &Options, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), Stop> {
    exit::text_or_document(PROGRAM, o, out, err, |out, err| plan_text(o, out, err))
}

/// The run: its text on `out`, its `--json` document returned.
fn plan_text(o: &Options, out: &mut dyn Write, err: &mut dyn Write) -> Result<Json, Stop> {
    let (mut cluster, _) = load(PROGRAM, o, err)?;
    let masters: Vec<&str> = cluster
        .nodes
        .iter()
        .filter(|n| n.info.master)
        .map(|n| n.info.name.as_str())
        .collect();
    match masters.len() {
        0 if o.roll.force => {
            err.write_all(b"Warning: No master node found (maybe not supported by backend).\n")?;
        }
        // hroller's words, then what lets the run go on.
        0 => {
            return Err(error(
                "No master node found (maybe not supported by backend).\n\
                 a data file (-t) names no master, only a live cluster (-L, -m) does: -f (--force) plans the reboots without one",
            ))
        }
        1 => {}
        _ => {
            return Err(error(&format!(
                "Found more than one master node: {}",
                show_string_list(&masters)
            )))
        }
    }
    let original = o.save.as_ref().map(|_| text::serialize_cluster(&cluster));
    select::set_node_status(&mut cluster, &o.offline, o.max_cpu, o.min_disk)
        .map_err(|wrong| stop(balance_texts::wrong_offline(&wrong)))?;
    if let (Some(path), Some(text)) = (&o.save, &original) {
        exit::save_state(PROGRAM, path, "original", "before hroller run", text, err)?;
    }
    let wanted = match &o.group {
        None => None,
        Some(name) => match cluster.groups.iter().position(|g| g.has_name(name)) {
            Some(g) => Some(g),
            None => {
                let names: Vec<&str> = cluster.groups.iter().map(|g| g.name.as_str()).collect();
                let near = suggest::nearest(name, names.iter().copied())
                    .map(|n| format!("did you mean {n}? "))
                    .unwrap_or_default();
                return Err(error(&format!(
                    "Cannot find target group.\n{near}-G takes a node group's name or UUID: {}",
                    names.join(", ")
                )));
            }
        },
    };
    let conf = Conf {
        nodes: cluster.nodes.clone(),
        insts: cluster.instances.clone(),
    };
    // A non-redundant instance has no secondary; with
    // `--shared-storage-movable` one on shared storage is not counted:
    // it can migrate live to any node of its group (Ganeti #1006).
    let pinned = |i: usize| {
        let inst = &conf.insts[i];
        let migrates = o.roll.shared_storage_movable && inst.disk_template.movable();
        !(inst.has_secondary() || migrates)
    };
    let has_non_redundant = |k: usize| {
        conf.nodes[k]
            .primaries()
            .any(|i| usize::try_from(i).is_ok_and(pinned))
    };
    let members: Vec<usize> = (0..conf.nodes.len())
        .filter(|&k| {
            let n = &conf.nodes[k];
            let skipped = o.roll.skip_non_redundant && has_non_redundant(k);
            !(n.offline || skipped)
                && o.node_tags
                    .as_ref()
                    .is_none_or(|tags| n.info.tags.iter().any(|t| tags.contains(t)))
                && wanted.is_none_or(|g| n.group == g)
        })
        .collect();
    let graph = roll::node_graph(&conf, &members, maintenance(o))
        .ok_or_else(|| error("Cannot create node graph"))?;
    if o.verbose > 2 {
        out.write_all(texts::graph(&graph).as_bytes())?;
    }
    let colourings = roll::colourings(&graph);
    let smallest = roll::smallest(&colourings);
    let online: Vec<usize> = (0..conf.nodes.len())
        .filter(|&k| !conf.nodes[k].offline)
        .collect();
    let mut groups: Vec<(Vec<usize>, Conf)> = if o.roll.ignore_non_redundant {
        smallest.into_iter().map(|g| (g, conf.clone())).collect()
    } else {
        let mut all = Vec::new();
        for class in &smallest {
            let parts = roll::partition(Clearing::NonRedundant, class, &online, &conf)
                .ok_or_else(|| error("Not enough capacity to move non-redundant instances"))?;
            all.extend(parts);
        }
        all
    };
    if o.roll.full_evacuation {
        let mut migrated = Vec::with_capacity(groups.len());
        for (g, c) in &groups {
            let after = roll::migrate_off(g, c)
                .ok_or_else(|| error("Failed to migrate instances off nodes"))?;
            migrated.push((g.clone(), after));
        }
        let mut all = Vec::new();
        for (g, c) in &migrated {
            let parts = roll::partition(Clearing::Secondaries, g, &online, c)
                .ok_or_else(|| error("Not enough capacity to move secondaries"))?;
            all.extend(parts);
        }
        groups = all;
    }
    // The groups' nodes that were to be rebooted, largest group first
    // (stable), then the groups without the master before those with it,
    // the master last in its group.
    let mut named: Vec<(Vec<usize>, Conf)> = groups
        .into_iter()
        .map(|(g, c)| {
            (
                g.into_iter()
                    .filter(|k| members.binary_search(k).is_ok())
                    .collect(),
                c,
            )
        })
        .collect();
    named.sort_by_key(|g| std::cmp::Reverse(g.0.len()));
    let is_master = |k: &usize| conf.nodes[*k].info.master;
    let (plain, with_master): (Vec<_>, Vec<_>) = named
        .into_iter()
        .map(|(g, c)| {
            let (others, masters): (Vec<usize>, Vec<usize>) =
                g.into_iter().partition(|k| !is_master(k));
            (others, masters, c)
        })
        .partition(|(_, masters, _)| masters.is_empty());
    let ordered: Vec<(Vec<usize>, Conf)> = plain
        .into_iter()
        .chain(with_master)
        .map(|(mut others, masters, c)| {
            others.extend(masters);
            (others, c)
        })
        .collect();
    if o.verbose > 1 {
        out.write_all(texts::stats(&colourings).as_bytes())?;
    }
    let (shown_groups, printed) = (
        if o.roll.one_step_only {
            texts::Shown::First
        } else {
            texts::Shown::All
        },
        if o.roll.print_moves {
            texts::Moves::Printed
        } else {
            texts::Moves::Omitted
        },
    );
    if !o.no_headers {
        out.write_all(texts::heading(shown_groups).as_bytes())?;
    }
    let shown = if shown_groups == texts::Shown::First {
        &ordered[..ordered.len().min(1)]
    } else {
        &ordered[..]
    };
    let mut documents = Vec::new();
    // What the groups' jobs cost (as -X would submit them), when asked.
    let costed = o.json || o.print_cost;
    let mut group_sets = Vec::new();
    for (g, c) in shown {
        let names: Vec<&str> = g
            .iter()
            .map(|&k| conf.nodes[k].info.name.as_str())
            .collect();
        let moves = if o.roll.print_moves || o.json {
            roll::moves(&conf, c)
        } else {
            Vec::new()
        };
        out.write_all(texts::group(&names, &moves, shown_groups, printed).as_bytes())?;
        let document = texts::group_document(&names, &moves);
        if costed {
            let sets = cost::group_sets(&conf, c, g, maintenance(o));
            let json = sets.as_ref().map_or(Json::Null, |sets| {
                crate::write::cost::plan_json(&PlanCost::of_sets(sets, o.rates))
            });
            documents.push(crate::write::cost::with_cost(document, json));
            group_sets.push(sets);
        } else {
            documents.push(document);
        }
    }
    let total = cost::total(&group_sets, o.rates);
    if o.print_cost {
        out.write_all(crate::write::cost::text(&total).as_bytes())?;
        for (k, _) in group_sets.iter().enumerate().filter(|(_, s)| s.is_none()) {
            writeln!(
                out,
                "  reboot group {} cannot be carried out safely (-X refuses it): not counted",
                k + 1
            )?;
        }
    }
    if o.exec {
        exec::carry_out(o, &conf, shown, out, err)?;
    }
    out.flush()?;
    Ok(crate::write::cost::with_cost(
        texts::document(PROGRAM, o.load.ganeti, shown_groups, documents),
        crate::write::cost::plan_json(&total),
    ))
}
