//! The node table of `-p`/`--print-nodes` (`Cluster.printNodes`,
//! `Node.showField`, `Node.showHeader`): one row per node in index order,
//! the columns a field list names, each value in hail's format.

use crate::haskell::show::{printf_fixed, show_double, show_int_list};
use crate::model::node::{compute_p_dsk, Node};
use crate::model::TagTable;
use crate::write::table::print_table;

/// Which fields a node table shows, as `-p` gives them.
#[derive(Debug, Clone, PartialEq)]
pub enum PrintNodes {
    /// No field list (`-p`, `--print-nodes`, `--print-nodes=`): the default
    /// fields.
    Defaults,
    /// A value starting with `+` (`-p+xmem,ymem`): the default fields
    /// followed by these (which may be empty, and may contain empty names).
    DefaultsPlus(Vec<String>),
    /// Any other value: exactly these fields, in this order.
    Fields(Vec<String>),
}

/// `Node.defaultFields`.
pub const DEFAULT_FIELDS: [&str; 22] = [
    "status", "name", "tmem", "nmem", "imem", "xmem", "fmem", "umem", "rmem", "tdsk", "fdsk",
    "tcpu", "ucpu", "pcnt", "scnt", "pfmem", "pfdsk", "rcpu", "cload", "mload", "dload", "nload",
];

impl PrintNodes {
    /// The `-p` value as every htools program reads it (`CLI.oPrintNodes`,
    /// then the field-list interpretation of `Cluster.printNodes`).
    pub fn from_option(value: &str) -> PrintNodes {
        let (plus, rest) = match value.strip_prefix('+') {
            Some(rest) => (true, rest),
            None => (false, value),
        };
        // Ganeti's `sepSplit ','`: nothing for an empty text.
        let fields: Vec<String> = if rest.is_empty() {
            Vec::new()
        } else {
            rest.split(',').map(str::to_owned).collect()
        };
        if plus {
            PrintNodes::DefaultsPlus(fields)
        } else if fields.is_empty() {
            PrintNodes::Defaults
        } else {
            PrintNodes::Fields(fields)
        }
    }

    /// The field names to show.
    pub fn fields(&self) -> Vec<String> {
        let defaults = DEFAULT_FIELDS.iter().map(|f| f.to_string());
        match self {
            PrintNodes::Defaults => defaults.collect(),
            PrintNodes::DefaultsPlus(more) => defaults.chain(more.iter().cloned()).collect(),
            PrintNodes::Fields(fields) => fields.clone(),
        }
    }
}

/// The table of `nodes` (in the order given) with `fields`. `tags` names
/// the interned tags; `index_base` is added to the node indices shown (in
/// the `idx` and `peermap` columns: simulated clusters count from 1).
pub fn print_nodes(
    nodes: &[&Node],
    fields: &[String],
    tags: &TagTable,
    index_base: usize,
) -> String {
    let (header, numeric): (Vec<String>, Vec<bool>) = headers(fields).into_iter().unzip();
    let rows: Vec<Vec<String>> = nodes
        .iter()
        .map(|n| {
            fields
                .iter()
                .map(|f| show_field(n, f, tags, index_base))
                .collect()
        })
        .collect();
    print_table("", &header, &rows, &numeric)
}

/// The headers of `fields` and whether each is numeric, as the table of
/// [`print_nodes`] has them.
pub fn headers(fields: &[String]) -> Vec<(String, bool)> {
    fields
        .iter()
        .map(|f| {
            let (h, n) = header(f);
            (h.to_owned(), n)
        })
        .collect()
}

/// `node`'s values of `fields`, as a row of [`print_nodes`] has them
/// (padded; node indices from 0).
pub fn cells(node: &Node, fields: &[String], tags: &TagTable) -> Vec<String> {
    fields
        .iter()
        .map(|f| show_field(node, f, tags, 0))
        .collect()
}

/// A field's header and whether it is numeric (`Node.showHeader`).
fn header(field: &str) -> (&'static str, bool) {
    match field {
        "idx" => ("Index", true),
        "name" | "fqdn" => ("Name", false),
        "status" => ("F", false),
        "tmem" => ("t_mem", true),
        "nmem" => ("n_mem", true),
        "xmem" => ("x_mem", true),
        "fmem" => ("f_mem", true),
        "umem" => ("u_mem", true),
        "imem" => ("i_mem", true),
        "rmem" => ("r_mem", true),
        "amem" => ("a_mem", true),
        "tdsk" => ("t_dsk", true),
        "fdsk" => ("f_dsk", true),
        "tcpu" => ("pcpu", true),
        "ucpu" => ("vcpu", true),
        "pcnt" => ("pcnt", true),
        "scnt" => ("scnt", true),
        "plist" => ("primaries", true),
        "slist" => ("secondaries", true),
        "pfmem" => ("p_fmem", true),
        "pfdsk" => ("p_fdsk", true),
        "rcpu" => ("r_cpu", true),
        "cload" => ("lCpu", true),
        "mload" => ("lMem", true),
        "dload" => ("lDsk", true),
        "nload" => ("lNet", true),
        "ptags" => ("PrimaryTags", false),
        "peermap" => ("PeerMap", false),
        "spindle_count" => ("NodeSpindles", true),
        "hi_spindles" => ("MaxSpindles", true),
        "inst_spindles" => ("InstSpindles", true),
        _ => ("<unknown field>", false),
    }
}

/// Haskell's `printf "%<width>d"`.
fn int(width: usize, v: i64) -> String {
    format!("{v:>width$}")
}

/// Haskell's `printf "%<width>.<decimals>f"`.
fn fixed(width: usize, decimals: usize, v: f64) -> String {
    format!("{:>width$}", printf_fixed(v, decimals))
}

/// A node's value of a field (`Node.showField`).
fn show_field(n: &Node, field: &str, tags: &TagTable, index_base: usize) -> String {
    let s = n.scalars();
    match field {
        "idx" => int(4, (n.idx + index_base) as i64),
        "name" => n.info.alias().to_owned(),
        "fqdn" => n.info.name.clone(),
        "status" => if n.offline {
            "-"
        } else if n.fail_n1 {
            "*"
        } else {
            " "
        }
        .to_owned(),
        "tmem" => fixed(5, 0, n.t_mem),
        "nmem" => int(5, n.n_mem),
        "xmem" => int(5, n.x_mem),
        "fmem" => int(5, n.f_mem),
        "umem" => int(5, s.unallocated_mem()),
        "imem" => int(5, n.i_mem),
        "rmem" => int(5, n.r_mem),
        "amem" => int(5, s.unallocated_mem().wrapping_sub(n.r_mem).max(0)),
        "tdsk" => fixed(5, 0, n.t_dsk / 1024.0),
        "fdsk" => int(5, n.f_dsk.div_euclid(1024)),
        "tcpu" => fixed(4, 0, n.t_cpu),
        "ucpu" => int(4, n.u_cpu),
        "pcnt" => int(3, n.p_list.len() as i64),
        "scnt" => int(3, n.s_list.len() as i64),
        "plist" => show_int_list(&n.primaries().map(i64::from).collect::<Vec<_>>()),
        "slist" => show_int_list(&n.secondaries().map(i64::from).collect::<Vec<_>>()),
        "pfmem" => fixed(6, 4, s.p_mem()),
        "pfdsk" => fixed(
            6,
            4,
            if n.excl_storage {
                compute_p_dsk(n.f_spindles, n.t_spindles as f64)
            } else {
                compute_p_dsk(n.f_dsk, n.t_dsk)
            },
        ),
        "rcpu" => fixed(5, 2, n.u_cpu as f64 / n.t_cpu),
        "cload" => fixed(5, 3, n.util_load[0]),
        "mload" => fixed(5, 3, n.util_load[1]),
        "dload" => fixed(5, 3, n.util_load[2]),
        "nload" => fixed(5, 3, n.util_load[3]),
        "ptags" => {
            let mut pairs: Vec<(&str, i64)> =
                n.p_tags.iter().map(|(t, c)| (tags.name(*t), *c)).collect();
            pairs.sort_by(|a, b| a.0.cmp(b.0));
            pairs
                .iter()
                .map(|(t, c)| format!("{t}={c}"))
                .collect::<Vec<_>>()
                .join(",")
        }
        "peermap" => {
            let items: Vec<String> = n
                .peers
                .iter()
                .map(|(k, v)| format!("({},{v})", i64::from(*k) + index_base as i64))
                .collect();
            format!("[{}]", items.join(","))
        }
        "spindle_count" => n.t_spindles.to_string(),
        "hi_spindles" => show_double(n.hi_spindles),
        "inst_spindles" => show_double(n.inst_spindles),
        _ => "<unknown field>".to_owned(),
    }
}
