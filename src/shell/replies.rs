//! What the programs read from a live cluster and from an operator's
//! side files, as functions of bytes: the four Luxi replies (`-L`), the
//! four RAPI resources (`-m`), the job-status and job-submission replies
//! of `-X`, a node's monitoring-daemon report and a `--mond-data` file
//! (`--mond`), and a `-U` utilisation file. Each is the very code the
//! programs run on what they received, without the socket, `curl` or the
//! file: for the tests and the fuzz targets (`fuzz/`), which hand them
//! captured or made-up bytes.

use crate::model::Cluster;
use crate::read::live::{self, mond};
use crate::read::merge::MergeOptions;
use crate::read::select;
use crate::shell::{jobs, source};
use crate::write::text::serialize_cluster;

/// The monitoring daemons' collectors, for [`mond_report`].
pub use crate::read::live::mond::Collector;

/// The cluster in hbal's four Luxi replies (nodes, instances, cluster
/// info, node groups; each message without its end byte), merged as
/// `-L` merges it: as the data file `-S` would save, with the loader's
/// warnings.
///
/// # Errors
///
/// The message `-L` gives: the query, then what is wrong where.
pub fn luxi_cluster(replies: [&[u8]; 4]) -> Result<(String, Vec<String>), String> {
    let live = source::luxi_replies(replies, crate::write::luxi::CLUSTER_QUERIES)?;
    Ok(saved(live::load(live, &MergeOptions::default(), 0)))
}

/// The cluster in the four RAPI resources (groups, nodes, instances,
/// cluster info), merged as `-m` merges it: as a data file, with the
/// loader's warnings.
///
/// # Errors
///
/// The message `-m` gives: the resource, then what is wrong where.
pub fn rapi_cluster(bodies: [&[u8]; 4]) -> Result<(String, Vec<String>), String> {
    let sources = live::rapi::RESOURCES.map(|(name, _, _)| name);
    let bodies = [0, 1, 2, 3].map(|i| live::rapi::Body {
        source: sources[i],
        bytes: bodies[i],
    });
    let live = live::rapi::read(bodies).map_err(|e| e.to_string())?;
    Ok(saved(live::load(live, &MergeOptions::default(), 0)))
}

/// The statuses in a `QueryJobs` reply (the whole Luxi message) for
/// `expected` jobs, as `-X` reads them while it waits.
///
/// # Errors
///
/// A malformed reply, the master's error, or not one status per job.
pub fn job_statuses(reply: &[u8], expected: usize) -> Result<Vec<String>, String> {
    jobs::read_reply("QueryJobs", reply, |v| jobs::job_statuses(v, expected))
}

/// The job ids in a `SubmitManyJobs` reply for `expected` jobs.
///
/// # Errors
///
/// A malformed reply, the master's error, or a job the master refused.
pub fn submitted_ids(reply: &[u8], expected: usize) -> Result<Vec<i64>, String> {
    jobs::read_reply("SubmitManyJobs", reply, |v| {
        jobs::submitted_ids(v, expected)
    })
}

/// A node's report fetched from its monitoring daemon, for `collector`:
/// whether it is a report hbal would use.
pub fn mond_report(body: &[u8], collector: Collector) -> bool {
    mond::decode_fetched(collector, body).is_some()
}

/// A `--mond-data` file: the number of nodes it reports on.
///
/// # Errors
///
/// Why it is not such a file (hbal: "can't parse MonD data").
pub fn mond_data(bytes: &[u8]) -> Result<usize, String> {
    mond::parse_mond_data(bytes).map(|d| d.len())
}

/// A `-U` utilisation file: each instance's name and its four loads.
///
/// # Errors
///
/// The line that is not `NAME CPU MEM DSK NET`.
pub fn utilisation(text: &str) -> Result<Vec<(String, [f64; 4])>, String> {
    select::utilisation(text)
}

/// A loaded cluster as its data file, with the warnings.
fn saved((cluster, warnings): (Cluster, Vec<String>)) -> (String, Vec<String>) {
    (serialize_cluster(&cluster), warnings)
}
