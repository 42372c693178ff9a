//! `hailstone-info`: hinfo's program (`Program/Hinfo.hs`): the cluster is
//! read as hbal reads it and summarised: its tags (and policy at `-v -v
//! -v`), its size, the instances split between node groups, each group's
//! nodes, instances, N+1 failures and score (`-v -v`), the instance map
//! (`--print-instances`) and node table (`-p`) on stderr, and the whole
//! cluster's score with its components. The output is hinfo 3.0.2's,
//! byte for byte.

pub mod options;

use std::ffi::OsString;
use std::io::Write;

use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::program::balance::load;
use crate::read::select;
use crate::score::metric;
use crate::search::balance::group::{check_group, split_instances};
use crate::search::state::State;
use crate::shell::exit::{self, stop, Stop};
use crate::shell::plan;
use crate::write::balance as balance_texts;
use crate::write::info::{self as texts, GroupRow};
use crate::write::json::Json;
use crate::write::nodes::{print_nodes, PrintNodes};
use crate::write::notes;
use options::{Options, PROGRAM};

/// Runs `hailstone-info` with `args` (without `argv[0]`); returns the exit
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

fn run(o: &Options, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), Stop> {
    exit::text_or_document(PROGRAM, o, out, err, |out, err| summary(o, out, err))
}

/// The run: its text on `out`, its `--json` document returned.
fn summary(o: &Options, out: &mut dyn Write, err: &mut dyn Write) -> Result<Json, Stop> {
    let (mut cluster, _) = load(PROGRAM, o, err)?;
    writeln!(
        out,
        "Loaded cluster tags: {}",
        cluster.cluster_tags.join(",")
    )?;
    if o.verbose > 2 {
        let both = balance_texts::loaded_cluster(&cluster.cluster_tags, &cluster.ipolicy);
        // The policy line only: the tags were printed above.
        out.write_all(both.split_once('\n').map_or("", |(_, p)| p).as_bytes())?;
    }
    select::set_node_status(&mut cluster, &o.offline, o.max_cpu, o.min_disk)
        .map_err(|wrong| stop(balance_texts::wrong_offline(&wrong)))?;
    out.write_all(
        texts::common(
            cluster.nodes.len(),
            cluster.instances.len(),
            cluster.groups.len(),
            o.verbose,
            &notes::suffix(&cluster),
        )
        .as_bytes(),
    )?;
    let split: Vec<&str> = split_instances(&cluster)
        .into_iter()
        .map(|k| &*cluster.instances[k].name)
        .collect();
    let (note, names) = texts::split_instances(&split, o.verbose);
    out.write_all(note.as_bytes())?;
    out.flush()?;
    err.write_all(names.as_bytes())?;

    // The whole cluster, for each group's score and the cluster's.
    let state = State::from_lists(
        cluster.nodes.clone(),
        cluster.instances.clone(),
        &cluster.groups,
    );
    // showGroupInfo: the groups that have nodes, by index.
    let with_nodes: Vec<usize> = (0..cluster.groups.len())
        .filter(|&g| cluster.nodes.iter().any(|n| n.group == g))
        .collect();
    let rows: Vec<GroupRow<'_>> = with_nodes
        .iter()
        .map(|&g| {
            let check = check_group(&cluster, g);
            GroupRow {
                name: &cluster.groups[g].name,
                nodes: check.nodes.len(),
                instances: check.instances.len(),
                bad_nodes: check.bad_nodes.len(),
                bad_instances: check.bad_instances,
                score: state.group_score_with(g, &[]),
            }
        })
        .collect();
    out.write_all(texts::groups(&rows, o.verbose).as_bytes())?;
    out.flush()?;

    if o.print_instances {
        let names = plan::node_names(&cluster);
        let insts: Vec<&Instance> = cluster.instances.iter().collect();
        err.write_all(balance_texts::instance_map("Instances", &insts, &names).as_bytes())?;
    }
    if let Some(fields) = o.print_nodes.as_ref().map(PrintNodes::fields) {
        let nodes: Vec<&Node> = cluster.nodes.iter().collect();
        let table = print_nodes(&nodes, &fields, &cluster.tags, 0);
        err.write_all(notes::node_table("Cluster", &table).as_bytes())?;
    }
    let components = metric::components(state.statistics());
    let score = state.score_with(&[]);
    out.write_all(texts::coefficients(&components, score).as_bytes())?;
    out.flush()?;
    let uuids: Vec<(GroupRow<'_>, &str)> = rows
        .iter()
        .zip(&with_nodes)
        .map(|(r, &g)| (r.clone(), cluster.groups[g].uuid.as_str()))
        .collect();
    let document = texts::document(
        PROGRAM,
        o.load.ganeti,
        &texts::Summary {
            tags: &cluster.cluster_tags,
            nodes: cluster.nodes.len(),
            instances: cluster.instances.len(),
            groups: cluster.groups.len(),
            split: &split,
            rows: &uuids,
            components: &components,
            score,
        },
    );
    if let Some(path) = &o.report {
        let groups = rows
            .into_iter()
            .zip(&with_nodes)
            .map(|(row, &g)| {
                let nodes = cluster.nodes.iter().filter(|n| n.group == g).collect();
                (row, nodes)
            })
            .collect();
        let page = crate::write::report::info::page(&crate::write::report::info::InfoReport {
            program: PROGRAM,
            tags: &cluster.tags,
            instances: cluster.instances.len(),
            groups,
            score,
            components: &components,
        });
        exit::write_own_file("report", path, &page)?;
    }
    Ok(document)
}
