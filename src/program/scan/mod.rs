//! `hailstone-scan`: hscan's program (`Program/Hscan.hs`): each cluster
//! named on the command line is read over RAPI (none named: the local
//! cluster over Luxi, as `LOCAL`), summarised in one line (with `-p` its
//! node table) and saved as a Ganeti cluster data file `DIR/NAME.data`
//! (`-d DIR`, default `.`). As hscan 3.0.2 it saves the cluster as read
//! (the nodes' memory as reported) and summarises it as corrected (the
//! memory `--static-kvm-node-memory` sets); with `--ganeti-version=3.1`
//! it saves the corrected cluster too, as hscan 3.1.0 does.
//! A cluster that cannot be read is reported on stdout and the others are
//! still scanned; the exit status is then 2.

pub mod options;

use std::ffi::OsString;
use std::io::Write;

use crate::model::node::Node;
use crate::model::Cluster;
use crate::program::cli::DEFAULT_LUXI_SOCKET;
use crate::read::live;
use crate::read::loader::GanetiVersion;
use crate::read::merge::MergeOptions;
use crate::search::balance::group::check_group;
use crate::search::state::State;
use crate::shell::exit::{self, stop, Stop};
use crate::shell::source::{read_luxi_checked, read_rapi, LuxiRead};
use crate::write::nodes::{print_nodes, PrintNodes};
use crate::write::scan::{self as texts, Summary};
use crate::write::text::serialize_cluster;
use options::{Options, PROGRAM};

/// Runs `hailstone-scan` with `args` (without `argv[0]`); returns the exit
/// status.
pub fn main(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    exit::main(PROGRAM, options::parse(args), run, out, err)
}

/// `printCluster`'s figures of the whole cluster.
fn summary(cluster: &Cluster) -> Summary {
    let mut s = Summary {
        nodes: cluster.nodes.len(),
        instances: cluster.instances.len(),
        bad_nodes: 0,
        bad_instances: 0,
        t_mem: 0.0,
        f_mem: 0,
        t_dsk: 0.0,
        f_dsk: 0,
        score: 0.0,
    };
    for n in &cluster.nodes {
        s.t_mem += n.t_mem;
        s.f_mem += n.f_mem;
        s.t_dsk += n.t_dsk;
        s.f_dsk += n.f_dsk;
    }
    // computeBadItems over every node: a cluster-wide check of each group
    // gives the same nodes, and the instances on them counted once.
    let mut bad: Vec<i32> = Vec::new();
    for g in 0..cluster.groups.len() {
        let check = check_group(cluster, g);
        s.bad_nodes += check.bad_nodes.len();
        bad.extend(
            check
                .bad_nodes
                .iter()
                .flat_map(|n| n.s_list.iter().chain(n.p_list.iter()).copied()),
        );
    }
    bad.sort_unstable();
    bad.dedup();
    s.bad_instances = bad.len();
    let state = State::from_lists(
        cluster.nodes.clone(),
        cluster.instances.clone(),
        &cluster.groups,
    );
    s.score = state.score_with(&[]);
    s
}

/// Scans one cluster: its line (and node table) on stdout, its data
/// file; `false` when it could not be read.
fn scan(
    o: &Options,
    width: usize,
    name: &str,
    read: Result<live::Live, String>,
    out: &mut dyn Write,
) -> Result<bool, Stop> {
    let live = match read {
        Ok(live) => live,
        Err(details) => {
            out.write_all(texts::load_error(name, &details).as_bytes())?;
            return Ok(false);
        }
    };
    let merge = MergeOptions {
        ganeti: o.load.ganeti,
        ..MergeOptions::default()
    };
    let as_read = match o.load.ganeti {
        GanetiVersion::V30 => Some(live::load(live.clone(), &merge, 0).0),
        GanetiVersion::V31 => None,
    };
    let (fixed, _) = live::load(live, &merge, o.load.static_kvm_node_memory);
    out.write_all(texts::name(width, name).as_bytes())?;
    out.flush()?;
    out.write_all(texts::figures(&summary(&fixed)).as_bytes())?;
    out.flush()?;
    if let Some(fields) = o.print_nodes.as_ref().map(PrintNodes::fields) {
        let nodes: Vec<&Node> = fixed.nodes.iter().collect();
        out.write_all(print_nodes(&nodes, &fields, &fixed.tags, 0).as_bytes())?;
    }
    let path = texts::data_file(&o.output_dir, name);
    let saved = serialize_cluster(as_read.as_ref().unwrap_or(&fixed));
    exit::write_file(PROGRAM, &path, &saved)?;
    Ok(true)
}

fn run(
    invocation: &(Options, Vec<String>),
    out: &mut dyn Write,
    _err: &mut dyn Write,
) -> Result<(), Stop> {
    let (o, clusters) = invocation;
    const LOCAL: &str = "LOCAL";
    let width = clusters
        .iter()
        .map(|c| c.chars().count())
        .max()
        .unwrap_or(LOCAL.len());
    if !o.no_headers {
        out.write_all(texts::header(width).as_bytes())?;
    }
    let mut all_read = true;
    if clusters.is_empty() {
        let socket = o.luxi.as_deref().unwrap_or(DEFAULT_LUXI_SOCKET);
        // A connection that fails stops hscan with its runtime's error
        // (exit status 1); a reply it cannot read is one more cluster not
        // read.
        let read = match read_luxi_checked(socket) {
            Err(LuxiRead::Unreachable(m)) => {
                out.flush()?;
                return Err(stop(format!("{PROGRAM}: {m}\n")));
            }
            Err(LuxiRead::Unreadable(m)) => Err(m),
            Ok(live) => Ok(live),
        };
        all_read &= scan(o, width, LOCAL, read, out)?;
    }
    for name in clusters {
        all_read &= scan(o, width, name, read_rapi(name), out)?;
    }
    out.flush()?;
    if all_read {
        Ok(())
    } else {
        // hscan's status for a cluster that could not be read, kept.
        Err(Stop {
            code: crate::program::ExitStatus::Usage.code(),
            message: String::new(),
            named: false,
        })
    }
}
