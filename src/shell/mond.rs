//! `--mond`: the monitoring daemons' reports, fetched or read from
//! `--mond-data`, applied to the loaded cluster before anything else runs
//! (`MonD.queryAllMonDDCs`, as hail and hbal call it).
//!
//! Each node's daemon is asked at `http://NODE:1815/1/report/default/
//! COLLECTOR` by the system `curl` (`shell::rapi`'s fetch), node by node
//! in node order; a node that does not answer is reported ("Failed to
//! contact node's NODE MonD for DC COLLECTOR") and the collector's data
//! are then ignored for the whole cluster, as htools do. The decoding and
//! the update are `read::live::mond`'s: [`collect`] only fetches (the
//! allocator's shell calls it between its pure steps), [`apply`] is the
//! planners' fetch and update in one.

use std::io::Write;

use crate::model::Cluster;
use crate::program::cli::Options;
use crate::read::live::mond::{self, Collected, Collector, MondData};
use crate::shell::exit::{open_error, stop, Stop};
use crate::shell::rapi::curl_get;

/// The port of Ganeti's monitoring daemon (`defaultMondPort`).
const MOND_PORT: u16 = 1815;

/// Applies the daemons' data to `cluster` when `--mond` asks for it,
/// writing htools' warnings to `err`. The settings are `--mond`,
/// `--mond-data`, `--mond-xen`, `--ignore-dynu` and
/// `--exit-on-missing-mond-data`.
///
/// # Errors
///
/// A `--mond-data` file that cannot be read or parsed (hbal: "can't parse
/// MonD data"), and with `--exit-on-missing-mond-data` incomplete data
/// ("Not all required data available").
pub fn apply(cluster: &mut Cluster, o: &Options, err: &mut dyn Write) -> Result<(), Stop> {
    if !o.mond {
        return Ok(());
    }
    let file = read_data(o)?;
    let names: Vec<&str> = cluster.nodes.iter().map(|n| n.info.name.as_str()).collect();
    let collected = collect(&names, file.as_ref(), o);
    let (said, complete) = mond::apply_all(cluster, collected);
    err.write_all(said.as_bytes())?;
    if o.mond_exit_on_missing && !complete {
        return Err(stop("Error: Not all required data available\n".to_owned()));
    }
    Ok(())
}

/// The collectors for the options (`collectors`): none with
/// `--ignore-dynu`, else Xen's with `--mond-xen`, else the total CPU load.
fn collectors(o: &Options) -> Vec<Collector> {
    if o.ignore_dynu {
        Vec::new()
    } else if o.mond_xen {
        vec![Collector::XenCpu]
    } else {
        vec![Collector::TotalCpu]
    }
}

/// The `--mond-data` file's reports, when one is named.
///
/// # Errors
///
/// The file cannot be read or parsed (hbal: "can't parse MonD data").
pub fn read_data(o: &Options) -> Result<Option<MondData>, Stop> {
    let Some(path) = &o.mond_data else {
        return Ok(None);
    };
    let bytes =
        std::fs::read(path).map_err(|e| stop(format!("Error: {}\n", open_error(path, &e))))?;
    mond::parse_mond_data(&bytes)
        .map(Some)
        .map_err(|m| stop(format!("Error: can't parse MonD data: {path}: {m}\n")))
}

/// Each chosen collector's report for each node of `names` (in that
/// order): from `file` when `--mond-data` gave one, else fetched from the
/// node's daemon, node by node.
pub fn collect(names: &[&str], file: Option<&MondData>, o: &Options) -> Vec<Collected> {
    collectors(o)
        .into_iter()
        .map(|collector| {
            let mut unreachable = Vec::new();
            let reports = names
                .iter()
                .map(|&name| match file {
                    Some(data) => mond::from_file(data, collector, name),
                    None => {
                        let url = format!("{name}:{MOND_PORT}{}", collector.report_path());
                        match curl_get(&url) {
                            Ok(body) => mond::decode_fetched(collector, &body),
                            Err(_) => {
                                unreachable.push(name.to_owned());
                                None
                            }
                        }
                    }
                })
                .collect();
            Collected {
                collector,
                reports,
                unreachable,
            }
        })
        .collect()
}
