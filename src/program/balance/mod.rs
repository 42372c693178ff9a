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
use crate::haskell::read::{read_double, split_on};
use crate::haskell::show::{printf_fixed, printf_general, show_string, show_string_list};
use crate::model::instance::{Instance, NO_NODE};
use crate::model::node::Node;
use crate::model::Cluster;
use crate::program::datafile;
use crate::program::jobs;
use crate::program::mond;
use crate::program::plan::{
    self, commands_text, open_error, split_jobs, stop, write_file, MoveJob, Stop,
};
use crate::read::merge::MergeOptions;
use crate::score::metric::{optimal_score, COMPONENTS};
use crate::search::balance::{self, BalanceOptions};
use crate::search::state::State;
use crate::write::balance as texts;
use crate::write::nodes::{print_nodes, PrintNodes};
use options::{Options, PROGRAM};

/// Runs `hailstone-balance` with `args` (without `argv[0]`); returns the
/// exit status.
pub fn main(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    plan::main(PROGRAM, options::parse(args), run, out, err)
}

/// Ganeti's `lookupName`: an exact name, or the only name that starts with
/// `key` followed by a dot.
pub fn lookup_name<'a>(names: impl Iterator<Item = &'a str>, key: &str) -> Option<&'a str> {
    let dotted = format!("{key}.");
    let mut partial: Option<&str> = None;
    let mut several = false;
    for name in names {
        if name == key {
            return Some(name);
        }
        if name.starts_with(&dotted) {
            several |= partial.is_some();
            partial = Some(name);
        }
    }
    if several {
        None
    } else {
        partial
    }
}

/// hbal's `-U` file: `name cpu mem dsk net` per line.
fn parse_utilisation(text: &str) -> Result<Vec<(String, [f64; 4])>, String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let fields: Vec<&str> = if line.is_empty() {
            Vec::new()
        } else {
            split_on(line, ' ').collect()
        };
        let [name, rest @ ..] = fields.as_slice() else {
            return Err(format!("Cannot parse line {line}"));
        };
        if rest.len() != 4 {
            return Err(format!("Cannot parse line {line}"));
        }
        let mut util = [0.0; 4];
        for (slot, text) in util.iter_mut().zip(rest) {
            *slot = read_double(text).map_err(|e| e.message(name, text))?;
        }
        out.push(((*name).to_owned(), util));
    }
    Ok(out)
}

/// Reads the cluster (`loadExternalData`), with the movable flags of its
/// instances by index.
fn load(o: &Options, err: &mut dyn Write) -> Result<(Cluster, Vec<bool>), Stop> {
    let utilisation = match &o.dynu_file {
        Some(path) => {
            let text = std::fs::read(path)
                .map_err(|e| stop(format!("{PROGRAM}: {}\n", open_error(path, &e))))?;
            parse_utilisation(&String::from_utf8_lossy(&text))
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
    // `-I` reads the request's cluster once (hbal merges it twice: see the
    // README's compatibility section).
    let (mut cluster, warnings) = plan::read_cluster(
        plan::Sources {
            text_data: o.text_data.as_deref(),
            ialloc_src: o.ialloc_src.as_deref(),
            luxi: o.luxi.as_deref(),
            master: o.master.as_deref(),
        },
        &merge,
        o.load.static_kvm_node_memory,
    )?;
    mond::apply(&mut cluster, o, err)?;
    // Selected and excluded instances (`mergeData`).
    let names: Vec<&str> = cluster.instances.iter().map(|i| &*i.name).collect();
    let mut unknown: Vec<String> = Vec::new();
    let mut resolve = |list: &[String]| -> Vec<String> {
        let mut found = Vec::new();
        for key in list {
            match lookup_name(names.iter().copied(), key) {
                Some(n) => found.push(n.to_owned()),
                None => unknown.push(key.clone()),
            }
        }
        found
    };
    let selected = resolve(&o.select_instances);
    let excluded = resolve(&o.exclude_instances);
    if !unknown.is_empty() {
        return Err(plan::load_failed(format!(
            "Unknown instance(s): {}",
            show_string_list(&unknown.iter().map(String::as_str).collect::<Vec<_>>())
        )));
    }
    let movable = cluster
        .instances
        .iter()
        .map(|i| {
            let name = i.name.to_string();
            cluster.balancer_movable(i)
                && !excluded.contains(&name)
                && (selected.is_empty() || selected.contains(&name))
        })
        .collect();
    if o.verbose != 0 {
        err.write_all(plan::warnings_text(&warnings).as_bytes())?;
    }
    Ok((cluster, movable))
}

/// `setNodeStatus`: `-O`, `--max-cpu` and `--min-disk`.
fn set_node_status(o: &Options, cluster: &mut Cluster) -> Result<(), Stop> {
    let mut offline = Vec::new();
    let mut wrong = Vec::new();
    for key in &o.offline {
        match lookup_name(cluster.nodes.iter().map(|n| n.info.name.as_str()), key) {
            Some(name) => offline.push(name.to_owned()),
            None => wrong.push(key.as_str()),
        }
    }
    if !wrong.is_empty() {
        return Err(stop(format!(
            "Error: wrong node name(s) set as offline: {}\n\n",
            wrong.join(",")
        )));
    }
    for node in cluster.nodes.iter_mut() {
        if let Some(ratio) = o.max_cpu {
            node.vcpu_ratio = ratio;
        }
        node.lo_dsk = (o.min_disk * node.t_dsk).floor() as i64;
        if offline.iter().any(|n| *n == node.info.name) {
            node.offline = true;
        }
    }
    Ok(())
}

/// The name without the common suffix, the suffix being what all aliases
/// drop.
fn common_suffix(cluster: &Cluster) -> &str {
    if let Some(n) = cluster.nodes.first() {
        &n.info.name[n.info.alias_len.min(n.info.name.len())..]
    } else if let Some(i) = cluster.instances.first() {
        &i.name[i.alias_len.min(i.name.len())..]
    } else {
        ""
    }
}

fn print_instance_map(
    err: &mut dyn Write,
    heading: &str,
    instances: &[&Instance],
    names: &[(String, usize)],
) -> Result<(), Stop> {
    let full = |k: i32| -> &str {
        usize::try_from(k)
            .ok()
            .and_then(|k| names.get(k))
            .map_or("", |(n, _)| n.as_str())
    };
    let rows: Vec<texts::InstanceRow<'_>> = instances
        .iter()
        .map(|i| texts::InstanceRow {
            running: i.run_state.is_running(),
            name: &i.name,
            primary: full(i.p_node),
            secondary: if i.s_node == NO_NODE {
                ""
            } else {
                full(i.s_node)
            },
            auto_balance: i.auto_balance,
            vcpus: i.vcpus,
            mem: i.mem,
            dsk: i.dsk,
            util: i.util,
        })
        .collect();
    write!(
        err,
        "\n{heading} instance map:\n{}",
        texts::instance_map(&rows)
    )?;
    Ok(())
}

fn stats_text(values: Option<[f64; crate::score::metric::N_COMPONENTS]>) -> String {
    let rows: Vec<(&str, f64, f64)> = values
        .map(|v| {
            COMPONENTS
                .iter()
                .zip(v)
                .map(|(c, x)| (c.name, x, c.weight))
                .collect()
        })
        .unwrap_or_default();
    texts::stats_table(&rows)
}

fn run(o: &Options, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), Stop> {
    let (mut cluster, movable) = load(o, err)?;
    if o.verbose > 1 {
        writeln!(
            out,
            "Loaded cluster tags: {}",
            cluster.cluster_tags.join(",")
        )?;
        writeln!(
            out,
            "Loaded cluster ipolicy: {}",
            crate::model::show::show_ipolicy(&cluster.ipolicy)
        )?;
    }
    let original = o.save.as_ref().map(|_| datafile::serialize(&cluster));
    set_node_status(o, &mut cluster)?;

    // checkCluster.
    if cluster.instances.is_empty() {
        writeln!(out, "Cluster is empty, exiting.")?;
        return Ok(());
    }
    let group_of = |k: i32| usize::try_from(k).ok().map(|k| cluster.nodes[k].group);
    if o.verbose > 1 {
        let split: Vec<&Instance> = cluster
            .instances
            .iter()
            .filter(|i| i.s_node != NO_NODE && group_of(i.p_node) != group_of(i.s_node))
            .collect();
        if !split.is_empty() {
            let mut text = String::from("Found instances belonging to multiple node groups:\n");
            for i in split {
                text.push_str(&format!("  {}\n", i.name));
            }
            text.push_str("These instances will not be moved.\n");
            err.write_all(text.as_bytes())?;
        }
    }
    writeln!(
        out,
        "Loaded {} nodes, {} instances",
        cluster.nodes.len(),
        cluster.instances.len()
    )?;
    let suffix = common_suffix(&cluster);
    if !suffix.is_empty() && o.verbose > 1 {
        writeln!(
            out,
            "Note: Stripping common suffix of '{suffix}' from names"
        )?;
    }
    if let (Some(path), Some(text)) = (&o.save, &original) {
        plan::save_state(PROGRAM, path, "original", "before balancing", text, err)?;
    }

    // selectGroup.
    let with_nodes: Vec<usize> = (0..cluster.groups.len())
        .filter(|g| cluster.nodes.iter().any(|n| n.group == *g))
        .collect();
    let group = match &o.group {
        None => {
            if with_nodes.len() > 1 {
                let mut text = String::from("Found multiple node groups:\n");
                for g in &with_nodes {
                    text.push_str(&format!("  {}\n", cluster.groups[*g].name));
                }
                text.push_str("Error: Aborting.\n");
                return Err(stop(text));
            }
            with_nodes[0]
        }
        Some(g) => {
            let found: Vec<usize> = (0..cluster.groups.len())
                .filter(|&i| cluster.groups[i].name == *g || cluster.groups[i].uuid == *g)
                .collect();
            if found.len() != 1 {
                let mut text = format!("Node group {g} not found. Node group list is:\n");
                for grp in &cluster.groups {
                    text.push_str(&format!("  {}\n", grp.name));
                }
                text.push_str("Error: Aborting.\n");
                return Err(stop(text));
            }
            found[0]
        }
    };
    let gname = cluster.groups[group].name.clone();
    let node_groups: Vec<usize> = cluster.nodes.iter().map(|n| n.group).collect();
    let in_group = |k: i32| usize::try_from(k).is_ok_and(|k| node_groups[k] == group);
    let names: Vec<(String, usize)> = cluster
        .nodes
        .iter()
        .map(|n| (n.info.name.clone(), n.info.alias_len))
        .collect();
    let group_nodes: Vec<&Node> = cluster.nodes.iter().filter(|n| n.group == group).collect();
    let group_insts: Vec<&Instance> = cluster
        .instances
        .iter()
        .filter(|i| in_group(i.p_node))
        .collect();

    // checkGroup.
    writeln!(
        out,
        "Group size {} nodes, {} instances",
        group_nodes.len(),
        group_insts.len()
    )?;
    writeln!(out, "Selected node group: {gname}")?;
    let bad_nodes: Vec<&Node> = group_nodes
        .iter()
        .copied()
        .filter(|n| !n.offline && n.fail_n1)
        .collect();
    let mut bad_insts: Vec<i32> = bad_nodes
        .iter()
        .flat_map(|n| n.s_list.iter().chain(n.p_list.iter()).copied())
        .collect();
    bad_insts.sort_unstable();
    bad_insts.dedup();
    if o.verbose >= 1 {
        writeln!(
            out,
            "Initial check done: {} bad nodes, {} bad instances.",
            bad_nodes.len(),
            bad_insts.len()
        )?;
    }
    let other: Vec<&Node> = group_nodes
        .iter()
        .copied()
        .filter(|n| !bad_nodes.iter().any(|b| b.idx == n.idx))
        .collect();
    let health = |n: &Node| -> Option<&'static str> {
        if n.inst_spindles > n.hi_spindles {
            Some("Bad FailDisk")
        } else if n.u_cpu as f64 / n.t_cpu > n.vcpu_ratio {
            Some("Bad FailCPU")
        } else {
            None
        }
    };
    if o.verbose > 4 {
        let bad: Vec<&str> = bad_nodes.iter().map(|n| n.info.name.as_str()).collect();
        let happy: Vec<&str> = other.iter().map(|n| n.info.name.as_str()).collect();
        let status: Vec<String> = other
            .iter()
            .map(|n| {
                format!(
                    "({},{})",
                    show_string(&n.info.name),
                    health(n).unwrap_or("Ok ()")
                )
            })
            .collect();
        writeln!(out, "Bad nodes: {}", show_string_list(&bad))?;
        writeln!(out, "N+1 happy nodes: {}", show_string_list(&happy))?;
        writeln!(out, "Node policy status: [{}]", status.join(","))?;
    }
    if !bad_nodes.is_empty() {
        writeln!(
            out,
            "Cluster is not N+1 happy, continuing but no guarantee that the cluster will end N+1 happy."
        )?;
    }
    let policy_bad = other.iter().filter(|n| health(n).is_some()).count();
    if policy_bad > 0 {
        writeln!(
            out,
            "The cluster contains {policy_bad} policy-violating nodes."
        )?;
        if o.algorithm.soft == crate::model::types::SoftChecks::Ignore {
            writeln!(out, "Continuing, ignoring soft errors.")?;
        } else {
            writeln!(out, "Continuing, but the set of moves might be too restricted; consider using the --ignore-soft-errors option.")?;
        }
    }
    if o.print_instances {
        print_instance_map(err, "Initial", &group_insts, &names)?;
    }
    let fields = o.print_nodes.as_ref().map(PrintNodes::fields);
    if let Some(fields) = &fields {
        let table = print_nodes(&group_nodes, fields, &cluster.tags, 0);
        write!(err, "\nInitial cluster status:\n{table}\n")?;
    }

    // The group's state and scores.
    let imlen = group_insts
        .iter()
        .map(|i| i.alias().chars().count())
        .max()
        .unwrap_or(0);
    let nmlen = group_nodes
        .iter()
        .map(|n| n.info.alias().chars().count())
        .max()
        .unwrap_or(0);
    let opt_cv = optimal_score(&group_nodes);
    let ini_free = totals(&group_nodes);
    let full = State::from_lists(
        cluster.nodes.clone(),
        cluster.instances.clone(),
        &cluster.groups,
    );
    let mut state = full.restricted(|n| n.group == group, |i| in_group(i.p_node));
    drop(full);
    let ini_cv = state.score_with(&[]);
    if o.verbose > 2 {
        write!(
            out,
            "Initial coefficients: overall {}\n{}",
            printf_fixed(ini_cv, 8),
            stats_text(state.statistics())
        )?;
    } else {
        writeln!(out, "Initial score: {}", printf_fixed(ini_cv, 8))?;
    }
    let explain = |state: &State,
                   options: &BalanceOptions,
                   fin: f64,
                   steps: usize,
                   err: &mut dyn Write|
     -> Result<(), Stop> {
        let Some(to) = &o.explain else {
            return Ok(());
        };
        let stop = balance::why_stopped(state, &movable, options, fin, steps);
        let run = explain::balance::Run {
            state,
            options,
            movable: &movable,
            initial: ini_cv,
            optimal: opt_cv,
            fin,
            steps,
            stop,
        };
        let text = explain::balance::render(&run, o.explain_format);
        plan::write_explanation(PROGRAM, to, &text, err)?;
        Ok(())
    };
    let options = engine_options(o, opt_cv);
    if ini_cv - opt_cv < o.min_score {
        explain(&state, &options, ini_cv, 0, err)?;
        write!(
            out,
            "Cluster is already well balanced (initial score {},\noptimum score due to N+1 reservations {},\nminimum score {}).\nNothing to do, exiting\n",
            printf_general(ini_cv, 6),
            printf_general(opt_cv, 6),
            printf_general(o.min_score, 6)
        )?;
        return Ok(());
    }
    writeln!(out, "Trying to minimize the CV...")?;
    out.flush()?;

    let mut jobs: Vec<MoveJob> = Vec::new();
    let mut io_error: Option<std::io::Error> = None;
    let steps = balance::balance(&mut state, &movable, &options, ini_cv, |st, p| {
        let (line, job) = plan::step_line(
            st,
            p,
            jobs.len() + 1,
            (imlen, nmlen),
            &names,
            Instance::alias,
        );
        jobs.push(job);
        if io_error.is_none() {
            if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
                io_error = Some(e);
            }
        }
    });
    if let Some(e) = io_error {
        return Err(e.into());
    }
    let fin_cv = steps.last().map_or(ini_cv, |p| p.score);
    explain(&state, &options, fin_cv, steps.len(), err)?;
    if steps.is_empty() {
        writeln!(out, "No solution found")?;
    } else if o.verbose > 2 {
        write!(
            out,
            "Final coefficients:   overall {}\n{}",
            printf_fixed(fin_cv, 8),
            stats_text(state.statistics())
        )?;
    } else {
        writeln!(
            out,
            "Cluster score improved from {} to {}",
            printf_fixed(ini_cv, 8),
            printf_fixed(fin_cv, 8)
        )?;
    }
    if o.verbose >= 1 {
        writeln!(out, "Solution length={}", steps.len())?;
    }

    let mut sets = split_jobs(&jobs);
    if o.first_job_group {
        sets.truncate(1);
    }
    if let Some(dest) = &o.print_commands {
        let text = commands_text(&sets);
        if dest == "-" {
            let heading = if o.first_job_group {
                "First set of jobs:"
            } else {
                "Commands to run to reach the above solution:"
            };
            out.write_all(texts::commands_for_stdout(heading, &text).as_bytes())?;
        } else {
            write_file(PROGRAM, dest, &texts::commands_script(&text))?;
            writeln!(out, "The commands have been written to file '{dest}'")?;
        }
    }

    let fin_nodes: Vec<&Node> = state.node_keys().map(|k| state.node_at(k)).collect();
    let fin_insts: Vec<&Instance> = state.instances().collect();
    if let Some(path) = &o.save {
        let text = datafile::serialize_lists(&cluster, fin_nodes.clone(), fin_insts.clone());
        out.flush()?;
        plan::save_state(PROGRAM, path, "balanced", "after balancing", &text, err)?;
    }
    if o.print_instances {
        print_instance_map(err, "Final", &fin_insts, &names)?;
    }
    if let Some(fields) = &fields {
        let table = print_nodes(&fin_nodes, fields, &cluster.tags, 0);
        write!(err, "\nFinal cluster status:\n{table}\n")?;
    }
    if o.verbose > 3 {
        let fin_free = totals(&fin_nodes);
        writeln!(out, "Original: mem={} disk={}", ini_free.0, ini_free.1)?;
        writeln!(out, "Final:    mem={} disk={}", fin_free.0, fin_free.1)?;
    }
    // hbal ignores -X when there is nothing to do.
    if o.exec && !steps.is_empty() {
        let comment = format!("rebalancing via {PROGRAM} {}", env!("CARGO_PKG_VERSION"));
        let a = jobs::annotation(PROGRAM, &comment, o.reason.as_deref(), o.priority);
        let sets = jobs::move_sets(&sets, &a, "Executing jobset for instances");
        jobs::exec(PROGRAM, o.luxi.as_deref(), &sets, out)?;
    }
    out.flush()?;
    Ok(())
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

/// The group's free memory (unallocated) and free disk, summed.
fn totals(nodes: &[&Node]) -> (i128, i128) {
    nodes.iter().fold((0, 0), |(m, d), n| {
        (m + i128::from(n.unallocated_mem()), d + i128::from(n.f_dsk))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_lookup_is_ganetis() {
        let names = ["node1.example.com", "node10.example.com", "node2"];
        let find = |k: &str| lookup_name(names.iter().copied(), k);
        assert_eq!(find("node1"), Some("node1.example.com"));
        assert_eq!(find("node2"), Some("node2"));
        assert_eq!(find("node"), None);
        let dup = ["a.x", "a.y"];
        assert_eq!(lookup_name(dup.iter().copied(), "a"), None);
        assert_eq!(lookup_name(dup.iter().copied(), "a.x"), Some("a.x"));
    }

    #[test]
    fn utilisation_lines() {
        assert_eq!(
            parse_utilisation("i1 0.5 1 2 3\n").unwrap(),
            vec![("i1".to_owned(), [0.5, 1.0, 2.0, 3.0])]
        );
        assert_eq!(
            parse_utilisation("i1 0.5 0.5").unwrap_err(),
            "Cannot parse line i1 0.5 0.5"
        );
        assert_eq!(
            parse_utilisation("inst cpu 1 1 1").unwrap_err(),
            "inst: cannot parse string 'cpu'"
        );
    }
}
