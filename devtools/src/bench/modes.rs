//! What is timed: the request modes, the cluster mixes, the options, and
//! the generated case of each mode and size.

use super::*;

/// One benchmarked request mode (a row group of the table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Mode {
    AllocateDrbd,
    AllocatePlain,
    MultiAllocate,
    Relocate,
    NodeEvacuateAll,
    ChangeGroup,
    /// The relocate mode's request written as another program would: keys
    /// in alphabetical order (not a master's order), two-space indentation,
    /// a space after each colon. hailstone's reader takes its fast path only
    /// for a master's key order, so this row times the other one.
    RelocateIndependent,
    /// The relocate mode's cluster read from a cluster data file (`-t`)
    /// with a two-node relocate request: reading the file is nearly all of
    /// the run, to hold against the relocate row's JSON reading.
    RelocateDataFile,
    /// hbal against hailstone-balance: balancing a whole cluster read from
    /// a data file (`-t FILE -C`), on [`Config::balance_sizes`].
    Balance,
    /// hsqueeze against hailstone-squeeze: planning which nodes to power
    /// off on a cluster of ext instances (`-t FILE -C`), on
    /// [`Config::squeeze_sizes`].
    Squeeze,
    /// hailstone-groups compress alone (Ganeti has no multi-group
    /// compression; `--groups-against` puts another build in the
    /// original's column): which groups of a cluster of [`COMPRESS_GROUPS`]
    /// groups could be emptied (`compress -t FILE`), on
    /// [`Config::compress_sizes`].
    Compress,
    /// hspace against hailstone-space: counting the instances a cluster
    /// of DRBD and plain instances still has room for (`-t FILE
    /// --machine-readable`), on [`Config::space_sizes`].
    Space,
    /// hailstone-space `--allocator-model` on the space rows' clusters, a
    /// row of the space table only (not a `--modes` name: `space` runs
    /// it). hspace has no such mode: the row's hspace time is the space
    /// row's (hspace's default count), not run again.
    SpaceModel,
}

impl Mode {
    /// Every mode, in table order.
    pub(super) const ALL: [Mode; 12] = [
        Mode::AllocateDrbd,
        Mode::AllocatePlain,
        Mode::MultiAllocate,
        Mode::Relocate,
        Mode::RelocateIndependent,
        Mode::RelocateDataFile,
        Mode::NodeEvacuateAll,
        Mode::ChangeGroup,
        Mode::Balance,
        Mode::Squeeze,
        Mode::Compress,
        Mode::Space,
    ];

    /// The command-line and table name of the mode.
    pub(super) fn name(self) -> &'static str {
        match self {
            Mode::AllocateDrbd => "allocate-drbd",
            Mode::AllocatePlain => "allocate-plain",
            Mode::MultiAllocate => "multi-allocate",
            Mode::Relocate => "relocate",
            Mode::RelocateIndependent => "relocate-independent",
            Mode::NodeEvacuateAll => "node-evacuate-all",
            Mode::ChangeGroup => "change-group",
            Mode::RelocateDataFile => "relocate-datafile",
            Mode::Balance => "balance",
            Mode::Squeeze => "squeeze",
            Mode::Compress => "compress",
            Mode::Space => "space",
            Mode::SpaceModel => "space --allocator-model",
        }
    }

    /// Whether the mode's run is nearly all reading (its notes give the
    /// reading speed).
    pub(super) fn is_reading(self) -> bool {
        matches!(
            self,
            Mode::Relocate | Mode::RelocateIndependent | Mode::RelocateDataFile
        )
    }

    /// Whether the mode times a planner on a data file (its own table and
    /// sizes) rather than the iallocator.
    pub(super) fn is_planner(self) -> bool {
        matches!(
            self,
            Mode::Balance | Mode::Squeeze | Mode::Compress | Mode::Space | Mode::SpaceModel
        )
    }

    /// The mode whose table the mode's rows are in (the space table holds
    /// both space modes).
    pub(super) fn table(self) -> Mode {
        match self {
            Mode::SpaceModel => Mode::Space,
            m => m,
        }
    }

    /// The original program of the mode's rows (for compress, which has
    /// none, the other build of `--groups-against`).
    pub(super) fn original(self) -> &'static str {
        match self {
            Mode::Balance => "hbal",
            Mode::Squeeze => "hsqueeze",
            Mode::Compress => "other hailstone-groups",
            Mode::Space | Mode::SpaceModel => "hspace",
            _ => "hail",
        }
    }

    /// hailstone's program of the mode's rows.
    pub(super) fn ours(self) -> &'static str {
        match self {
            Mode::Balance => "hailstone-balance",
            Mode::Squeeze => "hailstone-squeeze",
            Mode::Compress => "hailstone-groups",
            Mode::Space | Mode::SpaceModel => "hailstone-space",
            _ => "hailstone",
        }
    }

    /// Parses a mode name.
    pub(super) fn parse(s: &str) -> Option<Mode> {
        Mode::ALL.iter().copied().find(|m| m.name() == s)
    }

    /// The generator's request kind for this mode.
    pub(super) fn kind(self) -> RequestKind {
        match self {
            Mode::AllocateDrbd | Mode::AllocatePlain | Mode::Space | Mode::SpaceModel => {
                RequestKind::Allocate
            }
            Mode::MultiAllocate => RequestKind::MultiAllocate,
            // The balance and squeeze clusters are those of relocate cases,
            // as `hailstone-gen --kind relocate` makes docs/performance.md's
            // held-out files.
            Mode::Relocate
            | Mode::RelocateIndependent
            | Mode::RelocateDataFile
            | Mode::Balance
            | Mode::Squeeze => RequestKind::Relocate,
            // The multi-group profile's request (its cluster is what counts).
            Mode::NodeEvacuateAll | Mode::Compress => RequestKind::NodeEvacuate(EvacMode::All),
            Mode::ChangeGroup => RequestKind::ChangeGroup,
        }
    }
}

/// The disk templates of the existing instances (`--mix`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mix {
    /// Every instance DRBD.
    Drbd,
    /// Four DRBD instances to one plain.
    DrbdHeavy,
    /// The generator's default mix (mostly DRBD and plain, a few others).
    Typical,
}

impl Mix {
    /// The command-line name.
    pub(super) fn name(self) -> &'static str {
        match self {
            Mix::Drbd => "drbd",
            Mix::DrbdHeavy => "drbd-heavy",
            Mix::Typical => "typical",
        }
    }

    /// Parses a mix name.
    pub(super) fn parse(s: &str) -> Option<Mix> {
        [Mix::Drbd, Mix::DrbdHeavy, Mix::Typical]
            .into_iter()
            .find(|m| m.name() == s)
    }

    /// The generator's `instance_templates` (empty: its default mix).
    pub(super) fn templates(self) -> Vec<(DiskTemplate, u32)> {
        match self {
            Mix::Drbd => vec![(DiskTemplate::Drbd, 1)],
            Mix::DrbdHeavy => vec![(DiskTemplate::Drbd, 4), (DiskTemplate::Plain, 1)],
            Mix::Typical => Vec::new(),
        }
    }

    /// A description for the report header.
    pub(super) fn describe(self) -> &'static str {
        match self {
            Mix::Drbd => "all existing instances DRBD",
            Mix::DrbdHeavy => "existing instances 4 DRBD : 1 plain",
            Mix::Typical => "the generator's typical DRBD/plain instance mix",
        }
    }
}

// ---------------------------------------------------------------------------
// Case generation.
// ---------------------------------------------------------------------------

/// The generator spec of a mode, size, seed and instance mix: the
/// generator's plain roomy cluster (`CaseSpec::new`, every feature switch
/// off, no hail options) with two groups and five instances per node.
///
/// The balance and squeeze rows' clusters are docs/performance.md's
/// held-out files: `hailstone-gen --kind relocate --seed S --nodes N
/// --groups 1 --instances-per-node 5 --data-file --shape SHAPE` with
/// `--instance-templates drbd` (balance) or `--instance-templates ext
/// --tightness 0.2` (squeeze).
///
/// The compress rows' spec is the generator's multi-group profile
/// instead, as `hailstone-gen --profile multi-group --groups 10
/// --instance-templates ext:1,drbd:1 --tightness 0.2` makes it (the
/// cluster of docs/performance.md's compress figures).
pub(super) fn spec_for(mode: Mode, nodes: usize, seed: u64, mix: Mix, shape: Shape) -> CaseSpec {
    if mode == Mode::Compress {
        let mut spec = CaseSpec::multi_group(seed, nodes, COMPRESS_GROUPS);
        spec.instance_templates = vec![(DiskTemplate::Ext, 1), (DiskTemplate::Drbd, 1)];
        spec.tightness = COMPRESS_TIGHTNESS;
        spec.shape = shape;
        return spec;
    }
    let mut spec = CaseSpec::new(seed, mode.kind(), nodes);
    spec.shape = shape;
    spec.groups = GROUPS;
    spec.instances_per_node = INSTANCES_PER_NODE;
    spec.instance_templates = mix.templates();
    match mode {
        Mode::AllocateDrbd
        | Mode::Relocate
        | Mode::RelocateIndependent
        | Mode::RelocateDataFile => spec.template = Some(DiskTemplate::Drbd),
        Mode::AllocatePlain => spec.template = Some(DiskTemplate::Plain),
        Mode::MultiAllocate => {
            spec.template = Some(DiskTemplate::Drbd);
            spec.multi_count = MULTI_COUNT;
        }
        // The instances to move come from the mix.
        Mode::NodeEvacuateAll | Mode::ChangeGroup => {}
        // One group of DRBD instances: hbal balances the whole cluster.
        Mode::Balance => {
            spec.groups = 1;
            spec.instance_templates = vec![(DiskTemplate::Drbd, 1)];
        }
        // One group of ext instances, a fifth of the memory used: every
        // node but the master may be powered off.
        Mode::Squeeze => {
            spec.groups = 1;
            spec.instance_templates = vec![(DiskTemplate::Ext, 1)];
            spec.tightness = SQUEEZE_TIGHTNESS;
        }
        // The multi-group profile, above.
        Mode::Compress => {}
        // One group of DRBD instances mixed with plain ones (4 : 1): hspace
        // fills the whole cluster.
        Mode::Space | Mode::SpaceModel => {
            spec.groups = 1;
            spec.instance_templates = vec![(DiskTemplate::Drbd, 4), (DiskTemplate::Plain, 1)];
        }
    }
    spec
}

/// The strings of a JSON list (empty when it is not a list).
pub(super) fn str_list(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The instance names listed in a request's `request.instances`.
pub(super) fn request_instances(req: &serde_json::Value) -> Vec<String> {
    str_list(&req["request"]["instances"])
}

/// Whether a generated request has the shape the mode wants. The generator
/// draws the instance list of node-evacuate and change-group requests from the
/// seed, so the bench tries consecutive seeds until one fits:
///
/// * node-evacuate: every instance that uses one node (a real node
///   evacuation), at least [`INSTANCES_PER_NODE`] of them;
/// * change-group: exactly one instance and at least one target group;
/// * every other mode: any request.
pub(super) fn has_wanted_shape(mode: Mode, case: &Case) -> bool {
    if !matches!(mode, Mode::NodeEvacuateAll | Mode::ChangeGroup) {
        return true;
    }
    let v: serde_json::Value = match serde_json::from_str(&case.request) {
        Ok(v) => v,
        Err(_) => return false,
    };
    let names = request_instances(&v);
    match mode {
        Mode::ChangeGroup => {
            let targets = v["request"]["target_groups"]
                .as_array()
                .map(|a| a.len())
                .unwrap_or(0);
            names.len() == 1 && targets > 0
        }
        _ => {
            if (names.len() as f64) < INSTANCES_PER_NODE {
                return false;
            }
            let nodes_of = |name: &str| str_list(&v["instances"][name]["nodes"]);
            // The nodes every listed instance uses.
            let (first, rest) = match names.split_first() {
                Some(x) => x,
                None => return false,
            };
            let mut common = nodes_of(first);
            for n in rest {
                let ns = nodes_of(n);
                common.retain(|x| ns.contains(x));
            }
            let all = match v["instances"].as_object() {
                Some(o) => o,
                None => return false,
            };
            common.iter().any(|node| {
                let using = all
                    .values()
                    .filter(|i| {
                        i["nodes"]
                            .as_array()
                            .map(|a| a.iter().any(|x| x.as_str() == Some(node)))
                            .unwrap_or(false)
                    })
                    .count();
                using == names.len()
            })
        }
    }
}

/// A short description of a request's size for progress lines (instances in
/// the cluster and in the request).
pub(super) fn describe_request(case: &Case) -> String {
    let v: serde_json::Value = match serde_json::from_str(&case.request) {
        Ok(v) => v,
        Err(e) => return format!("unparsable request: {}", e),
    };
    let insts = v["instances"].as_object().map(|o| o.len()).unwrap_or(0);
    let listed = request_instances(&v).len();
    let mut s = format!(
        "{} instances, {:.1} MB request",
        insts,
        case.request.len() as f64 / 1e6
    );
    if listed > 0 {
        s.push_str(&format!(", {} in the request", listed));
    }
    s
}
