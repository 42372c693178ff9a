//! hscan's texts (`Program/Hscan.hs`): the header, one summary line per
//! cluster scanned (its name, node and instance counts, N+1 failures,
//! memory and disk, score) and the error of a cluster that could not be
//! read.

use crate::haskell::show::printf_fixed;

/// The header line; `width` is the widest cluster name.
pub fn header(width: usize) -> String {
    format!(
        "{:<width$} {:>5} {:>5} {:>5} {:>5} {:>6} {:>6} {:>6} {:>6} {:>10}\n",
        "Name", "Nodes", "Inst", "BNode", "BInst", "t_mem", "f_mem", "t_disk", "f_disk", "Score"
    )
}

/// One cluster's figures (`printCluster`).
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub nodes: usize,
    pub instances: usize,
    pub bad_nodes: usize,
    pub bad_instances: usize,
    /// Total memory (MiB), summed as hscan sums it.
    pub t_mem: f64,
    pub f_mem: i64,
    /// Total disk (MiB).
    pub t_dsk: f64,
    pub f_dsk: i64,
    pub score: f64,
}

/// The cluster's figures after its name (`printCluster`): disk in GiB,
/// the total divided, the free floored.
pub fn figures(s: &Summary) -> String {
    format!(
        "{:>5} {:>5} {:>5} {:>5} {:>6} {:>6} {:>6} {:>6} {}\n",
        s.nodes,
        s.instances,
        s.bad_nodes,
        s.bad_instances,
        printf_fixed(s.t_mem, 0),
        s.f_mem,
        printf_fixed(s.t_dsk / 1024.0, 0),
        s.f_dsk.div_euclid(1024),
        printf_fixed(s.score, 8),
    )
}

/// The cluster's name, padded to `width`, before its figures.
pub fn name(width: usize, name: &str) -> String {
    format!("{name:<width$} ")
}

/// A cluster whose data could not be loaded.
pub fn load_error(name: &str, details: &str) -> String {
    format!("\nError for {name}: failed to load data. Details:\n{details}\n")
}

/// `fixSlash` and `</>`, `<.>`: the data file of cluster `name` in `dir`.
pub fn data_file(dir: &str, name: &str) -> String {
    let file = format!("{}.data", name.replace('/', "_"));
    if dir.is_empty() {
        file
    } else if dir.ends_with('/') {
        format!("{dir}{file}")
    } else {
        format!("{dir}/{file}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_line() {
        assert_eq!(
            header(5),
            "Name  Nodes  Inst BNode BInst  t_mem  f_mem t_disk f_disk      Score\n"
        );
        let s = Summary {
            nodes: 4,
            instances: 10,
            bad_nodes: 1,
            bad_instances: 3,
            t_mem: 65536.5,
            f_mem: 1000,
            t_dsk: 409_600.0,
            f_dsk: 2047,
            score: 1.25,
        };
        assert_eq!(
            format!("{}{}", name(7, "c1"), figures(&s)),
            "c1          4    10     1     3  65536   1000    400      1 1.25000000\n"
        );
    }

    #[test]
    fn data_file_names() {
        assert_eq!(data_file(".", "LOCAL"), "./LOCAL.data");
        assert_eq!(data_file("/tmp/x/", "a/b"), "/tmp/x/a_b.data");
    }
}
