//! The generated clusters of the check and info suites, and what their
//! option sets pick from a cluster (online nodes, instances, exclusion
//! tag prefixes).
//!
//! One cluster in three is a multi-group cluster of the generator's
//! multi-group profile ([`CaseSpec::multi_group`], the clusters the groups
//! suite plans on: two to four groups in several storage partitions,
//! offline nodes often still hosting instances, nodes failing N+1); the
//! others are single-group clusters of a random spec with the shape's
//! templates (DRBD, plain, ext, or every template alike), offline nodes
//! (with or without instances) and drained nodes drawn from the seed.
//! About a third of them are full and placed without N+1 redundancy, so
//! that nodes fail N+1.
//! Each is written as a data file by hailstone's own writer (what `hail
//! -S` saves) and then edited from the seed: a master node, instance
//! states other than up and down, `auto_balance` off. Everything depends
//! on the seed and the cluster's number only.

use super::super::balance::clusters::{misreport_memory, other_states, set_master};
use super::super::balance::datafile::{self, inst, node, DataFile};
use crate::generate::rng::Rng;
use crate::generate::{self, CaseSpec, DiskTemplate, RequestKind};

/// The kind of a generated cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The multi-group profile: two to four groups, mixed templates.
    MultiGroup,
    Drbd,
    Plain,
    Ext,
    /// Every template alike.
    Mixed,
}

/// The single-group shapes, in turn.
const SINGLE: [Shape; 4] = [Shape::Drbd, Shape::Plain, Shape::Ext, Shape::Mixed];

impl Shape {
    /// The shape of cluster number `k`: every third a multi-group one,
    /// the single-group shapes in turn between them.
    pub fn of(k: usize) -> Shape {
        if k.is_multiple_of(3) {
            Shape::MultiGroup
        } else {
            SINGLE[(2 * (k / 3) + k % 3 - 1) % SINGLE.len()]
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Shape::MultiGroup => "multi-group",
            Shape::Drbd => "drbd",
            Shape::Plain => "plain",
            Shape::Ext => "ext",
            Shape::Mixed => "mixed",
        }
    }

    fn templates(self) -> Vec<(DiskTemplate, u32)> {
        match self {
            Shape::MultiGroup => Vec::new(),
            Shape::Drbd => vec![(DiskTemplate::Drbd, 1)],
            Shape::Plain => vec![(DiskTemplate::Plain, 1)],
            Shape::Ext => vec![(DiskTemplate::Ext, 1)],
            Shape::Mixed => DiskTemplate::ALL.iter().map(|&t| (t, 1)).collect(),
        }
    }
}

/// One generated cluster.
#[derive(Clone, Debug)]
pub struct Cluster {
    /// `gen/<shape>/n<nodes>/g<groups with nodes>/s<seed>`.
    pub id: String,
    pub shape: Shape,
    /// The data file.
    pub data: DataFile,
    /// The generator's iallocator request of the cluster as generated
    /// (before the edits), for `-I`.
    pub request: String,
    /// What it holds beyond its shape (for the report).
    pub features: Vec<&'static str>,
}

/// Generates cluster number `k` of a corpus from `seed`, with a node
/// count drawn from `nodes`.
///
/// # Errors
///
/// When hailstone's reader refuses the generated request (a generator bug).
pub fn generate_cluster(k: usize, seed: u64, nodes: (usize, usize)) -> Result<Cluster, String> {
    let shape = Shape::of(k);
    let lo = nodes.0.max(3);
    let hi = nodes.1.max(lo);
    let mut r = Rng::new(seed ^ 0x4ec4_1f00 ^ (k as u64).wrapping_mul(0x9e37_79b9));
    let mut features = Vec::new();
    let spec = if shape == Shape::MultiGroup {
        let n = lo + r.below((hi - lo + 1) as u64) as usize;
        let groups = (2 + r.below(3) as usize).min((n / 2).max(2));
        let spec = CaseSpec::multi_group(seed, n, groups);
        if spec.features.offline_with_instances {
            features.push("offline-with-instances");
        }
        spec
    } else {
        let mut spec = CaseSpec::random(seed, RequestKind::Allocate, lo..=hi);
        spec.groups = 1;
        spec.instance_templates = shape.templates();
        let f = &mut spec.features;
        f.dead_group = false;
        f.offline_nodes = r.chance(0.4);
        f.offline_with_instances = f.offline_nodes && r.chance(0.5);
        f.drained_nodes = r.chance(0.3);
        f.exclusion_tags = r.chance(0.35);
        f.location_tags = r.chance(0.2);
        f.migration_tags = r.chance(0.15);
        for (on, name) in [
            (f.offline_with_instances, "offline-with-instances"),
            (f.drained_nodes, "drained"),
            (f.exclusion_tags, "exclusion-tags"),
            (f.location_tags, "location-tags"),
            (f.migration_tags, "migration-tags"),
            (f.empty_group, "empty-group"),
        ] {
            if on {
                features.push(name);
            }
        }
        spec
    };
    // Full nodes placed without N+1 redundancy, so that some nodes fail
    // N+1.
    let mut spec = spec;
    if r.chance(0.35) {
        spec.features.overcommitted = true;
        spec.tightness = spec.tightness.max(0.85 + 0.13 * r.unit());
        features.push("overcommitted");
    }
    let case = generate::generate(&spec);
    let text = hailstone::shell::datafile::from_request(
        case.request.as_bytes(),
        &hailstone::program::hail::options::LoadOptions::default(),
    )
    .map_err(|e| {
        format!(
            "generated cluster {} (seed {seed}) is not read back: {e}",
            case.id
        )
    })?;
    let mut data = DataFile::parse(&text);
    if data.nodes().iter().any(|n| flag(n) == "Y") {
        features.push("offline");
    }
    if r.chance(0.7) && set_master(&mut data, &mut r) {
        features.push("master");
    }
    if r.chance(0.3) {
        other_states(&mut data, &mut r);
        features.push("states");
    }
    if r.chance(0.2) {
        for i in data.instances_mut().iter_mut() {
            if r.chance(0.15) {
                datafile::set(i, inst::AUTO_BALANCE, "N");
            }
        }
        features.push("auto_balance-N");
    }
    if r.chance(0.5) && misreport_memory(&mut data, &mut r) {
        features.push("misreported-memory");
    }
    Ok(Cluster {
        id: format!(
            "gen/{}/n{}/g{}/s{seed}",
            shape.name(),
            data.nodes().len(),
            data.groups_with_nodes().len()
        ),
        shape,
        data,
        request: case.request,
        features,
    })
}

fn flag(line: &[String]) -> &str {
    line.get(node::FLAG).map_or("", String::as_str)
}

/// The names of the online nodes (the master among them).
pub fn online_nodes(data: &DataFile) -> Vec<String> {
    data.nodes()
        .iter()
        .filter(|n| matches!(flag(n), "N" | "M"))
        .map(|n| n[node::NAME].clone())
        .collect()
}

/// The instance names, in file order.
pub fn instance_names(data: &DataFile) -> Vec<String> {
    data.instances()
        .iter()
        .map(|i| i[inst::NAME].clone())
        .collect()
}

/// The prefixes of the cluster's `htools:iextags:` tags.
pub fn exclusion_prefixes(data: &DataFile) -> Vec<String> {
    data.cluster_tags()
        .iter()
        .filter_map(|t| t.strip_prefix("htools:iextags:"))
        .map(str::to_owned)
        .collect()
}

/// Up to `count` distinct items of `xs` drawn with `r`, in `xs`' order.
pub fn some_of(xs: &[String], count: usize, r: &mut Rng) -> Vec<String> {
    let mut picked: Vec<usize> = (0..xs.len()).collect();
    r.shuffle(&mut picked);
    picked.truncate(count);
    picked.sort_unstable();
    picked.into_iter().map(|k| xs[k].clone()).collect()
}

/// A copy of the cluster's data file whose first instance names an
/// unknown primary node (a data file error with a line).
pub fn unknown_node(data: &DataFile) -> String {
    let mut bad = data.clone();
    match bad.instances_mut().first_mut() {
        Some(i) => datafile::set(i, inst::PNODE, "no-such-node"),
        None => bad.instances_mut().push(
            "new-0|128|1024|1|running|Y|no-such-node||plain||1|-|N"
                .split('|')
                .map(str::to_owned)
                .collect(),
        ),
    }
    bad.text()
}

/// A `-U` file: utilisations for about half the instances, in file order,
/// and one unknown name.
pub fn dynu_file(data: &DataFile, r: &mut Rng) -> String {
    let mut out = String::new();
    for name in instance_names(data) {
        if r.chance(0.5) {
            let v = |r: &mut Rng| *r.pick(&["0.5", "1", "2", "0.25", "4"]);
            out.push_str(&format!("{name} {} {} {} {}\n", v(r), v(r), v(r), v(r)));
        }
    }
    out.push_str("no-such-instance 1 1 1 1\n");
    out
}
