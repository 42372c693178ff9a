//! The notes every htools program prints on stderr around its work: the
//! loader's warnings (`maybeShowWarnings`), the node tables of `-p`
//! (`maybePrintNodes`), the note that a state was saved (`maybeSaveData`)
//! and the common suffix of the names.

use crate::model::Cluster;

/// The loader's warnings under htools' heading (nothing when there are
/// none).
pub fn warnings(warnings: &[String]) -> String {
    if warnings.is_empty() {
        return String::new();
    }
    let mut text = String::from("Warning: cluster has inconsistent data:\n");
    for w in warnings {
        text.push_str(&format!("  - {w}\n"));
    }
    text.push('\n');
    text
}

/// A node table of `-p` under `heading` (`Initial cluster`, `Final
/// cluster`): an empty line, the heading, the table and an empty line.
pub fn node_table(heading: &str, table: &str) -> String {
    format!("\n{heading} status:\n{table}\n")
}

/// The note that the cluster state `what` (e.g. "before balancing") was
/// written to `file`.
pub fn saved(what: &str, file: &str) -> String {
    format!("The cluster state {what} has been written to file '{file}'\n")
}

/// What all names drop for their alias (the common suffix).
fn common_suffix(cluster: &Cluster) -> &str {
    if let Some(n) = cluster.nodes.first() {
        &n.info.name[n.info.alias_len.min(n.info.name.len())..]
    } else if let Some(i) = cluster.instances.first() {
        &i.name[i.alias_len.min(i.name.len())..]
    } else {
        ""
    }
}

/// The note on the common suffix the names lose (nothing when they lose
/// none).
pub fn suffix(cluster: &Cluster) -> String {
    let suffix = common_suffix(cluster);
    if suffix.is_empty() {
        String::new()
    } else {
        format!("Note: Stripping common suffix of '{suffix}' from names\n")
    }
}
