//! hbal's `-p` node tables (on stderr, after a heading such as `Initial
//! cluster status:`) read back and held to the recomputed figures,
//! column by column as Ganeti's `Node.showField` prints them.

use std::collections::BTreeMap;

use crate::support::figures::NodeFigures;

use super::Findings;

/// One table row: the status letter and the columns by header.
pub struct Row {
    pub status: char,
    pub cells: BTreeMap<String, String>,
}

/// The rows of the table after `heading` on `stderr` (the `occurrence`th
/// such table, from 0), by node alias; `None` if there is no such table.
pub fn read(stderr: &str, heading: &str, occurrence: usize) -> Option<BTreeMap<String, Row>> {
    let start = stderr
        .match_indices(heading)
        .filter(|(k, _)| *k == 0 || stderr.as_bytes()[k - 1] == b'\n')
        .nth(occurrence)?
        .0;
    let mut lines = stderr[start..].lines().skip(1);
    let header: Vec<String> = lines
        .next()?
        .split_whitespace()
        .skip(1)
        .map(str::to_owned)
        .collect();
    let mut rows = BTreeMap::new();
    for line in lines.take_while(|l| !l.trim().is_empty()) {
        let status = line.chars().nth(1).unwrap_or(' ');
        let values: Vec<&str> = line.get(2..).unwrap_or("").split_whitespace().collect();
        let cells: BTreeMap<String, String> = header
            .iter()
            .cloned()
            .zip(values.iter().map(|v| (*v).to_owned()))
            .collect();
        let name = cells.get("Name").cloned().unwrap_or_default();
        rows.insert(name, Row { status, cells });
    }
    Some(rows)
}

fn num(s: &str) -> f64 {
    s.parse::<f64>().unwrap_or(f64::NAN)
}

/// Holds the table `rows` to the figures of its nodes: `nodes` maps each
/// alias the table should show to the node's figures and N+1 verdict.
pub fn compare(
    f: &mut Findings,
    at: &str,
    rows: &BTreeMap<String, Row>,
    nodes: &BTreeMap<String, (&NodeFigures, bool)>,
) {
    f.same(
        at,
        "the nodes of the table",
        rows.keys().cloned().collect::<Vec<_>>(),
        nodes.keys().cloned().collect::<Vec<_>>(),
    );
    for (alias, row) in rows {
        let Some((n, n1)) = nodes.get(alias) else {
            continue;
        };
        let at = format!("{at}: node {alias}");
        let status = if n.offline {
            '-'
        } else if *n1 {
            '*'
        } else {
            ' '
        };
        f.same(&at, "status (F)", row.status, status);
        let t_mem = n.mem_total as f64;
        let p_dsk = if n.exclusive_storage {
            if n.spindles_total == 0 {
                1.0
            } else {
                n.spindles_free as f64 / n.spindles_total as f64
            }
        } else if n.dsk_total == 0 {
            1.0
        } else {
            n.dsk_free as f64 / n.dsk_total as f64
        };
        // Integers exactly; the rest within the printed precision.
        let exact: [(&str, i64); 10] = [
            ("t_mem", n.mem_total),
            ("n_mem", n.mem_node),
            ("i_mem", n.mem_instances),
            ("x_mem", n.mem_unaccounted),
            ("f_mem", n.mem_reported_free),
            ("u_mem", n.mem_free),
            ("r_mem", n.mem_reserved),
            ("f_dsk", n.dsk_free.div_euclid(1024)),
            ("vcpu", n.vcpus_used),
            ("pcnt", n.primaries.len() as i64),
        ];
        for (col, want) in exact {
            if let Some(cell) = row.cells.get(col) {
                f.same(&at, col, cell.parse::<i64>().ok(), Some(want));
            }
        }
        if let Some(cell) = row.cells.get("scnt") {
            f.same(
                &at,
                "scnt",
                cell.parse::<i64>().ok(),
                Some(n.secondaries.len() as i64),
            );
        }
        let approx: [(&str, f64, f64); 5] = [
            ("t_dsk", n.dsk_total as f64 / 1024.0, 0.5),
            ("pcpu", n.cpu_physical, 0.5),
            ("p_fmem", n.mem_free as f64 / t_mem, 0.00005),
            ("p_fdsk", p_dsk, 0.00005),
            ("r_cpu", n.vcpus_used as f64 / n.cpu_physical, 0.005),
        ];
        for (col, want, tolerance) in approx {
            if !want.is_finite() {
                continue;
            }
            if let Some(cell) = row.cells.get(col) {
                f.near(&at, col, num(cell), want, tolerance + 1e-9);
            }
        }
    }
}
