//! The monitoring daemons' data (`--mond`, `--mond-data`), as the htools
//! use it (`Backend/MonD.hs`): one data collector's report per node, turned
//! into the instances' and nodes' CPU load.
//!
//! Two collectors, chosen as hbal and hail choose (`collectors`, in
//! `shell::mond`): by
//! default `cpu-avg-load` (category `default`): a node's `cpu_total`
//! becomes its CPU load, and each of its primary instances gets the share
//! `cpu_total / used vCPUs * instance vCPUs`; with `--mond-xen`
//! `xen-cpu-avg-load`: a map from instance name to CPU load, each node's
//! load the sum over its primaries; none with `--ignore-dynu`.
//!
//! A report that cannot be decoded counts as missing. When one node's
//! report is missing, the collector's data are ignored, with htools'
//! warning; the caller says whether everything was there (for
//! `--exit-on-missing-mond-data`). No I/O here: the program fetches each
//! report (`shell::mond`) or reads the `--mond-data` file and hands the
//! bytes over.

use std::collections::HashMap;

use crate::model::Cluster;
use crate::read::json::{parse_document, Value};

/// A data collector the htools use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Collector {
    /// `cpu-avg-load`: the node's total CPU load.
    TotalCpu,
    /// `xen-cpu-avg-load`: each instance's CPU load.
    XenCpu,
}

impl Collector {
    /// The collector's name in reports and URLs.
    pub fn name(self) -> &'static str {
        match self {
            Collector::TotalCpu => "cpu-avg-load",
            Collector::XenCpu => "xen-cpu-avg-load",
        }
    }

    /// The URL path of the collector's latest report on a node's daemon
    /// (`prepareUrl`: API version 1, the category or `default`).
    pub fn report_path(self) -> String {
        format!("/1/report/default/{}", self.name())
    }
}

/// One node's report, decoded for its collector.
#[derive(Debug, Clone, PartialEq)]
pub enum Report {
    /// `cpu-avg-load`'s `cpu_total`.
    CpuTotal(f64),
    /// `xen-cpu-avg-load`'s instance loads.
    InstanceCpu(HashMap<String, f64>),
}

/// A report (`DCReport`: `name`, `version`, `format_version`,
/// `timestamp`, `category`, `kind`, `data`) decoded for `collector`, or
/// `None` when it is not one (`mkReport`).
pub fn decode_report(collector: Collector, report: Value<'_>) -> Option<Report> {
    let obj = report.as_object()?;
    for key in [
        "name",
        "version",
        "format_version",
        "timestamp",
        "kind",
        "data",
    ] {
        obj.get(key)?;
    }
    let data = obj.get("data")?;
    match collector {
        Collector::TotalCpu => {
            let d = data.as_object()?;
            d.get("cpu_number")?.as_number()?.as_int()?;
            for c in d.get("cpus")?.as_array()?.iter() {
                c.as_number()?;
            }
            Some(Report::CpuTotal(d.get("cpu_total")?.as_number()?.as_f64()))
        }
        Collector::XenCpu => {
            let mut m = HashMap::new();
            for (k, v) in data.as_object()?.iter() {
                m.insert(k.to_owned(), v.as_number()?.as_f64());
            }
            Some(Report::InstanceCpu(m))
        }
    }
}

/// A report fetched from a node's daemon (`fromCurl`): `None` when it is
/// not JSON or not a report.
pub fn decode_fetched(collector: Collector, body: &[u8]) -> Option<Report> {
    let doc = parse_document(body).ok()?;
    decode_report(collector, doc.root())
}

/// A `--mond-data` file: per node, each report's collector name and its
/// decoding for each collector.
pub type MondData = HashMap<String, Vec<(String, [Option<Report>; 2])>>;

/// The reports of a `--mond-data` file (`pMonDData`): a list of
/// `{"node": NAME, "reports": [REPORT...]}`.
///
/// # Errors
///
/// Why the file is not such a list (hbal: "can't parse MonD data").
pub fn parse_mond_data(bytes: &[u8]) -> Result<MondData, String> {
    let doc = parse_document(bytes).map_err(|e| e.to_string())?;
    let list = doc.root().as_array().ok_or_else(|| {
        format!(
            "expected a list of nodes' reports, got {}",
            doc.root().describe()
        )
    })?;
    let mut out = HashMap::new();
    for (i, entry) in list.iter().enumerate() {
        let obj = entry
            .as_object()
            .ok_or_else(|| format!("entry {i}: expected an object, got {}", entry.describe()))?;
        let node = obj
            .get("node")
            .and_then(|n| n.as_str())
            .ok_or_else(|| format!("entry {i}: no node name (\"node\")"))?;
        let reports = obj
            .get("reports")
            .and_then(|r| r.as_array())
            .ok_or_else(|| format!("entry {i} ({node}): no list of reports (\"reports\")"))?;
        let mut decoded = Vec::new();
        for r in reports.iter() {
            let Some(name) = r
                .as_object()
                .and_then(|o| o.get("name"))
                .and_then(|n| n.as_str())
            else {
                return Err(format!("entry {i} ({node}): a report without a name"));
            };
            decoded.push((
                name.to_owned(),
                [
                    decode_report(Collector::TotalCpu, r),
                    decode_report(Collector::XenCpu, r),
                ],
            ));
        }
        out.insert(node.to_owned(), decoded);
    }
    Ok(out)
}

/// The report of `collector` for `node` in a `--mond-data` file's
/// reports (`fromFile`).
pub fn from_file(data: &MondData, collector: Collector, node: &str) -> Option<Report> {
    let (_, decoded) = data
        .get(node)?
        .iter()
        .find(|(name, _)| name == collector.name())?;
    decoded[collector as usize].clone()
}

/// One collector's reports for a cluster, as the program fetched them or
/// read them from a `--mond-data` file: one per node, in node order
/// (`None`: missing or not a report), and the nodes whose daemon did not
/// answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Collected {
    /// The collector.
    pub collector: Collector,
    /// Each node's report.
    pub reports: Vec<Option<Report>>,
    /// The nodes whose daemon could not be reached, in node order.
    pub unreachable: Vec<String>,
}

/// Applies each collector's reports in turn (`queryAllMonDDCs`). Returns
/// the lines htools print (for each collector, the daemons not reached,
/// then its warnings) and whether every collector's data were complete.
pub fn apply_all(cluster: &mut Cluster, collected: Vec<Collected>) -> (String, bool) {
    let mut said = String::new();
    let mut complete = true;
    for c in collected {
        for name in &c.unreachable {
            said.push_str(&format!(
                "Failed to contact node's {name} MonD for DC {}\n",
                c.collector.name()
            ));
        }
        let (warnings, ok) = apply(cluster, c.collector, c.reports);
        for w in warnings {
            said.push_str(&w);
            said.push('\n');
        }
        complete &= ok;
    }
    (said, complete)
}

/// Applies one collector's reports, one per node in node order
/// (`queryAllMonDs`). Returns the warnings htools print and whether the
/// data were complete.
pub fn apply(
    cluster: &mut Cluster,
    collector: Collector,
    reports: Vec<Option<Report>>,
) -> (Vec<String>, bool) {
    if reports.len() != cluster.nodes.len() || reports.iter().any(Option::is_none) {
        return (
            vec![format!(
                "Didn't receive an answer by all MonDs, {}'s data will be ignored.",
                collector.name()
            )],
            false,
        );
    }
    let reports: Vec<Report> = reports.into_iter().flatten().collect();
    match collector {
        Collector::TotalCpu => {
            // `useNodeTotalCPU`: the node's load is the total; each of its
            // primaries gets its vCPUs' share.
            // (hail walks every instance once per node; one walk gives the
            // same figures.)
            let mut shares: Vec<Option<(f64, f64)>> = vec![None; cluster.nodes.len()];
            for (k, r) in reports.iter().enumerate() {
                let Report::CpuTotal(ct) = r else { continue };
                let node = &mut cluster.nodes[k];
                node.util_load[0] = *ct;
                shares[k] = Some((*ct, node.u_cpu as f64));
            }
            for inst in cluster.instances.iter_mut() {
                let share = usize::try_from(inst.p_node)
                    .ok()
                    .and_then(|k| shares.get(k).copied().flatten());
                if let Some((ct, u_cpu)) = share {
                    inst.util[0] = ct / u_cpu * inst.vcpus as f64;
                }
            }
            (Vec::new(), true)
        }
        Collector::XenCpu => {
            // `useInstanceCpuData`: every instance needs a figure.
            let mut usage: HashMap<&str, f64> = HashMap::new();
            for r in &reports {
                if let Report::InstanceCpu(m) = r {
                    for (k, v) in m {
                        usage.entry(k.as_str()).or_insert(*v);
                    }
                }
            }
            let mut missing: Vec<&str> = cluster
                .instances
                .iter()
                .map(|i| &*i.name)
                .filter(|n| !usage.contains_key(n))
                .collect();
            if !missing.is_empty() {
                missing.sort_unstable();
                let names: Vec<String> = missing.iter().map(|n| format!("{n:?}")).collect();
                return (
                    vec![format!(
                        "No CPU information available for [{}]",
                        names.join(",")
                    )],
                    false,
                );
            }
            for inst in cluster.instances.iter_mut() {
                if let Some(c) = usage.get(&*inst.name) {
                    inst.util[0] = *c;
                }
            }
            for node in cluster.nodes.iter_mut() {
                // hail's pList is newest first.
                let cpu = node.p_list.iter().rev().fold(0.0, |acc, &i| {
                    acc + usize::try_from(i)
                        .ok()
                        .and_then(|i| cluster.instances.get(i))
                        .map_or(0.0, |inst| inst.util[0])
                });
                node.util_load[0] = cpu;
            }
            (Vec::new(), true)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(text: &str, c: Collector) -> Option<Report> {
        decode_fetched(c, text.as_bytes())
    }

    /// A report the lab's ganeti-mond served (2026-11-25).
    #[test]
    fn the_labs_cpu_report() {
        let text = r#"{"name":"cpu-avg-load","version":"B","format_version":1,"timestamp":1795570704082711000,"category":null,"kind":0,"data":{"cpu_number":2,"cpus":[0.9898305410113789,0.9838315680355523],"cpu_total":1.9776614243641488}}"#;
        assert_eq!(
            report(text, Collector::TotalCpu),
            Some(Report::CpuTotal(1.977_661_424_364_148_8))
        );
        // The Xen collector's empty map on the same daemon.
        let xen = r#"{"name":"xen-cpu-avg-load","version":"B","format_version":1,"timestamp":1,"category":null,"kind":0,"data":{}}"#;
        assert_eq!(
            report(xen, Collector::XenCpu),
            Some(Report::InstanceCpu(HashMap::new()))
        );
    }

    #[test]
    fn what_is_not_a_report_is_missing() {
        for bad in [
            "A web handler threw an exception.",
            "{}",
            r#"{"name":"cpu-avg-load","version":"B","format_version":1,"timestamp":1,"kind":0,"data":{"cpus":[],"cpu_total":1}}"#,
            r#"{"name":"cpu-avg-load","version":"B","format_version":1,"timestamp":1,"kind":0,"data":{"cpu_number":1,"cpus":[],"cpu_total":"x"}}"#,
        ] {
            assert_eq!(report(bad, Collector::TotalCpu), None, "{bad}");
        }
    }

    #[test]
    fn mond_data_files() {
        let file = br#"[{"node":"n1","reports":[{"name":"cpu-avg-load","version":"B","format_version":1,"timestamp":1,"category":null,"kind":0,"data":{"cpu_number":2,"cpus":[0.5,0.5],"cpu_total":1.5}}]}]"#;
        let data = parse_mond_data(file).unwrap();
        assert_eq!(
            from_file(&data, Collector::TotalCpu, "n1"),
            Some(Report::CpuTotal(1.5))
        );
        assert_eq!(from_file(&data, Collector::TotalCpu, "n2"), None);
        assert_eq!(from_file(&data, Collector::XenCpu, "n1"), None);
        assert!(parse_mond_data(b"{}").is_err());
        assert!(parse_mond_data(br#"[{"reports":[]}]"#).is_err());
        assert!(parse_mond_data(br#"[{"node":"n","reports":[{}]}]"#).is_err());
    }
}
