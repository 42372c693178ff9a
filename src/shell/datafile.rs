//! Cluster data files as the programs use them, beyond reading them as a
//! cluster: a request's cluster saved as a data file (what `hail -S` saves
//! before the run, and what hbal's `-I` reads), and a data file read and
//! written back in Ganeti's normal form (what `-t FILE -S` saves before the
//! run). The balancing comparisons and the fuzz targets use them; the
//! text itself is `write::text`'s.

use crate::read::loader::{self, LoadError, LoadOptions};
use crate::read::merge::MergeOptions;
use crate::read::text;
use crate::write::text::serialize_cluster as serialize;

/// The data file of the cluster an iallocator request describes, as
/// `hail -S` saves it before the run (the request itself is not run).
///
/// # Errors
///
/// The request's input error, as hailstone reports it.
pub fn from_request(bytes: &[u8], options: &LoadOptions) -> Result<String, String> {
    let loaded = loader::load(bytes, options).map_err(|e| match e {
        LoadError::Json(e) => format!("the request is not valid JSON: {e}"),
        LoadError::Input(e) => e.to_string(),
    })?;
    Ok(serialize(&loaded.cluster))
}

/// A data file read and written back: every field present, numbers in
/// Ganeti's formats, policies for every group.
///
/// # Errors
///
/// Why the file cannot be read (file, line, field).
pub fn normalize(name: &str, bytes: &[u8]) -> Result<String, String> {
    let (cluster, _) =
        text::load(name, bytes, &MergeOptions::default()).map_err(|e| e.to_string())?;
    Ok(serialize(&cluster))
}

/// A node's memory figures as a data file gives them, in MiB.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeMemory {
    /// The node's name.
    pub name: String,
    /// Free memory as reported (`fMem`).
    pub free: i64,
    /// Free memory as the records leave it: total less the node's own and
    /// its running primaries' (`recordedFreeMem`).
    pub recorded_free: i64,
    /// The largest failover reservation for its secondaries (`rMem`).
    pub reserved: i64,
}

/// The memory figures of every node of a data file, in its order (the
/// comparisons draw edits from them).
///
/// # Errors
///
/// Why the file cannot be read (file, line, field).
pub fn node_memory(name: &str, bytes: &[u8]) -> Result<Vec<NodeMemory>, String> {
    let (cluster, _) =
        text::load(name, bytes, &MergeOptions::default()).map_err(|e| e.to_string())?;
    Ok(cluster
        .nodes
        .iter()
        .map(|n| NodeMemory {
            name: n.info.name.to_string(),
            free: n.f_mem,
            recorded_free: n.recorded_free_mem(),
            reserved: n.r_mem,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "default|uuid-1|preferred||\n\n\
node1.example.com|16384|1024|13312|102400|92160|4|M|uuid-1\n\
node2.example.com|16384|1024|15360|102400|102400|4|N|uuid-1|1|rack:a\n\n\
web.example.com|2048|10240|2|running|Y|node1.example.com||plain|\n\n";

    #[test]
    fn normal_form_fills_the_defaults_and_is_stable() {
        let once = normalize("small.data", FILE.as_bytes()).expect("valid file");
        assert_eq!(
            once,
            "default|uuid-1|preferred||\n\n\
node1.example.com|16384|1024|13312|102400|92160|4|M|uuid-1|1||N|0|1|1.0\n\
node2.example.com|16384|1024|15360|102400|102400|4|N|uuid-1|1|rack:a|N|0|1|1.0\n\n\
web.example.com|2048|10240|2|running|Y|node1.example.com||plain||1|-|N\n\n\n\
|128,1,1024,1,1,1|128,1,1024,1,1,1;32768,8,1048576,16,8,12|diskless,file,sharedfile,plain,blockdev,drbd,rbd,ext,gluster|4.0|32.0\n\
default|128,1,1024,1,1,1|128,1,1024,1,1,1;32768,8,1048576,16,8,12|diskless,file,sharedfile,plain,blockdev,drbd,rbd,ext,gluster|4.0|32.0\n"
        );
        assert_eq!(normalize("again", once.as_bytes()).as_ref(), Ok(&once));
    }

    #[test]
    fn errors_name_the_file_line_and_field() {
        let bad = FILE.replace("13312", "13x");
        assert_eq!(
            normalize("small.data", bad.as_bytes()),
            Err("small.data, line 3: node node1.example.com, field f_mem: \
                 node1.example.com: leftover characters when parsing '13x': 'x'"
                .to_owned())
        );
        assert_eq!(
            normalize("empty.data", b""),
            Err(
                "empty.data: Invalid format of the input file: 0 sections instead of 4 or \
                 more (groups, nodes, instances, cluster tags and policies, separated by \
                 empty lines)"
                    .to_owned()
            )
        );
    }
}
