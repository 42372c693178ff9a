//! `--mond`: the monitoring daemons' reports, fetched or read from
//! `--mond-data`, applied to the loaded cluster before anything else runs
//! (`MonD.queryAllMonDDCs`, as hail and hbal call it).
//!
//! Each node's daemon is asked at `http://NODE:1815/1/report/default/
//! COLLECTOR` by the system `curl` (`program::rapi`'s fetch), node by node
//! in node order; a node that does not answer is reported ("Failed to
//! contact node's NODE MonD for DC COLLECTOR") and the collector's data
//! are then ignored for the whole cluster, as htools do. The decoding and
//! the update are `read::live::mond`'s.

use std::io::Write;

use crate::model::Cluster;
use crate::program::cli::Options;
use crate::program::exit::{open_error, stop, Stop};
use crate::program::rapi::curl_get;
use crate::read::live::mond::{self, Collector, Report};

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
    let file = match &o.mond_data {
        None => None,
        Some(path) => {
            let bytes = std::fs::read(path)
                .map_err(|e| stop(format!("Error: {}\n", open_error(path, &e))))?;
            Some(
                mond::parse_mond_data(&bytes)
                    .map_err(|m| stop(format!("Error: can't parse MonD data: {path}: {m}\n")))?,
            )
        }
    };
    let mut complete = true;
    for collector in Collector::chosen(o.ignore_dynu, o.mond_xen) {
        let mut reports: Vec<Option<Report>> = Vec::with_capacity(cluster.nodes.len());
        for node in &cluster.nodes {
            let name = &node.info.name;
            let report = match &file {
                Some(data) => mond::from_file(data, collector, name),
                None => {
                    let url = format!("{name}:{MOND_PORT}{}", collector.report_path());
                    match curl_get(&url) {
                        Ok(body) => mond::decode_fetched(collector, &body),
                        Err(_) => {
                            writeln!(
                                err,
                                "Failed to contact node's {name} MonD for DC {}",
                                collector.name()
                            )?;
                            None
                        }
                    }
                }
            };
            reports.push(report);
        }
        let (warnings, ok) = mond::apply(cluster, collector, reports);
        for w in warnings {
            writeln!(err, "{w}")?;
        }
        complete &= ok;
    }
    if o.mond_exit_on_missing && !complete {
        return Err(stop("Error: Not all required data available\n".to_owned()));
    }
    Ok(())
}
