//! The numbers behind the node charts, folded away under them: the
//! figures drawn, a row per node (its figures also as `data-` attributes,
//! for scripts: `README.md`, "Reviewing a plan"), and the nodes as hbal's
//! `-p` prints them.

use std::fmt::Write;

use crate::model::TagTable;
use crate::write::nodes;

use super::figures::{data_attributes, Shown};
use super::svg::escape;

/// The columns of the numbers tables: hbal's `-p` fields.
pub const FIELDS: [&str; 18] = [
    "status",
    "name",
    "tmem",
    "nmem",
    "imem",
    "xmem",
    "fmem",
    "umem",
    "rmem",
    "tdsk",
    "fdsk",
    "tcpu",
    "ucpu",
    "pcnt",
    "scnt",
    "spindle_count",
    "inst_spindles",
    "hi_spindles",
];

/// `nodes` as hbal's `-p` prints them, as an HTML table marked `when`.
pub fn numbers(nodes: &[Shown<'_>], tags: &TagTable, when: &str) -> String {
    let fields: Vec<String> = FIELDS.iter().map(|f| (*f).to_owned()).collect();
    let headers = nodes::headers(&fields);
    let head: Vec<(&str, bool)> = headers.iter().map(|(h, n)| (h.as_str(), *n)).collect();
    let rows: Vec<Vec<String>> = nodes
        .iter()
        .map(|s| {
            nodes::cells(s.node, &fields, tags)
                .iter()
                .map(|v| v.trim().to_owned())
                .collect()
        })
        .collect();
    super::table(
        &format!(r#"class="numbers" data-when="{when}""#),
        &head,
        &rows,
    )
}

/// The figures drawn, a row per node (its figures as `data-` attributes
/// too), as an HTML table of `scope` marked `when`.
pub fn figures(nodes: &[Shown<'_>], scope: &str, when: &str) -> String {
    let mut out = format!(
        r#"<table class="figures" data-scope="{}" data-when="{when}"><thead><tr><th>node</th><th class="num">memory total</th><th class="num">node's own</th><th class="num">reported beyond instances</th><th class="num">instances</th><th class="num">kept for N+1</th><th class="num">free</th><th class="num">disk total (GiB)</th><th class="num">used</th><th class="num">free</th><th class="num">vCPU limit</th><th class="num">used</th><th class="num">spindle limit</th><th class="num">used</th></tr></thead><tbody>"#,
        escape(scope)
    );
    for s in nodes {
        let f = &s.figures;
        let p = &f.mem_parts;
        let _ = write!(
            out,
            r#"<tr data-node="{}" data-offline="{}"{}><td>{}</td>"#,
            escape(&s.node.info.name),
            if s.marks.offline { "yes" } else { "no" },
            data_attributes(f),
            escape(s.node.info.alias()),
        );
        let mib = |v: f64| format!("{v:.0}");
        let gib = |v: f64| format!("{:.1}", v / 1024.0);
        let one = |v: f64| format!("{v:.1}");
        for cell in [
            mib(f.mem.total),
            mib(p.node),
            mib(p.unaccounted),
            mib(p.instances),
            mib(f.mem.reserved),
            mib(f.mem.free),
            gib(f.dsk.total),
            gib(f.dsk.used),
            gib(f.dsk.free),
            one(f.cpu.total),
            mib(f.cpu.used),
            one(f.spn.total),
            one(f.spn.used),
        ] {
            let _ = write!(out, r#"<td class="num">{cell}</td>"#);
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
    out
}

/// The figures and the `-p` tables behind the charts, folded away.
pub fn behind(tables: &[(String, String, String)]) -> String {
    let mut out = String::from("<details><summary>The figures drawn, per node</summary>");
    for (heading, figures, _) in tables {
        let _ = write!(out, "<h4>{}</h4>{figures}", escape(heading));
    }
    out.push_str("</details><details><summary>The numbers (hbal's -p columns)</summary>");
    for (heading, _, numbers) in tables {
        let _ = write!(out, "<h4>{}</h4>{numbers}", escape(heading));
    }
    out.push_str("</details>");
    out
}
