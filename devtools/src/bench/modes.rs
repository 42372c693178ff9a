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
    pub(super) const ALL: [Mode; 11] = [
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
            Mode::Balance | Mode::Squeeze | Mode::Space | Mode::SpaceModel
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

    /// The original program of the mode's rows.
    pub(super) fn original(self) -> &'static str {
        match self {
            Mode::Balance => "hbal",
            Mode::Squeeze => "hsqueeze",
            Mode::Space | Mode::SpaceModel => "hspace",
            _ => "hail",
        }
    }

    /// hailstone's program of the mode's rows.
    pub(super) fn ours(self) -> &'static str {
        match self {
            Mode::Balance => "hailstone-balance",
            Mode::Squeeze => "hailstone-squeeze",
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
            Mode::AllocateDrbd
            | Mode::AllocatePlain
            | Mode::Balance
            | Mode::Squeeze
            | Mode::Space
            | Mode::SpaceModel => RequestKind::Allocate,
            Mode::MultiAllocate => RequestKind::MultiAllocate,
            Mode::Relocate | Mode::RelocateIndependent | Mode::RelocateDataFile => {
                RequestKind::Relocate
            }
            Mode::NodeEvacuateAll => RequestKind::NodeEvacuate(EvacMode::All),
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

/// The parsed command line.
#[derive(Debug)]
pub(super) struct Config {
    pub(super) hail: PathBuf,
    pub(super) hailstone: PathBuf,
    pub(super) sizes: Vec<usize>,
    pub(super) modes: Vec<Mode>,
    pub(super) runs: usize,
    pub(super) hail_cap: Duration,
    pub(super) hail_runs: Option<usize>,
    pub(super) mix: Mix,
    /// The generator's shape of every case (`--shape`).
    pub(super) shape: Shape,
    pub(super) seed: u64,
    pub(super) keep: Option<PathBuf>,
    pub(super) install_hail: bool,
    pub(super) markdown: bool,
    /// Whether `--modes` was given (a missing hailstone-balance is then an
    /// error rather than a note).
    pub(super) modes_given: bool,
    pub(super) hbal: PathBuf,
    pub(super) balance_bin: PathBuf,
    /// Cluster sizes of the balance rows.
    pub(super) balance_sizes: Vec<usize>,
    /// hbal is not run on larger balance clusters (hailstone-balance alone).
    pub(super) hbal_max_nodes: usize,
    /// hail is not run on larger clusters (hailstone alone).
    pub(super) hail_max_nodes: usize,
    pub(super) hsqueeze: PathBuf,
    pub(super) squeeze_bin: PathBuf,
    /// Cluster sizes of the squeeze rows.
    pub(super) squeeze_sizes: Vec<usize>,
    pub(super) hspace: PathBuf,
    pub(super) space_bin: PathBuf,
    /// Cluster sizes of the space rows.
    pub(super) space_sizes: Vec<usize>,
    /// The cap of the space rows' runs (`--space-cap`; without it
    /// [`DEFAULT_SPACE_CAP`] or `--hail-cap` when that is larger).
    pub(super) space_cap: Option<Duration>,
    /// Also time hailstone with `--explain` on the allocator rows.
    pub(super) explain: bool,
}

impl Config {
    /// The cap of a mode's runs: `--hail-cap`, but for the space rows
    /// `--space-cap`, by default at least [`DEFAULT_SPACE_CAP`].
    pub(super) fn cap(&self, mode: Mode) -> Duration {
        if mode.table() != Mode::Space {
            return self.hail_cap;
        }
        self.space_cap
            .unwrap_or_else(|| self.hail_cap.max(DEFAULT_SPACE_CAP))
    }
}

/// Parses a comma-separated list of cluster sizes (sorted, without
/// duplicates).
pub(super) fn parse_sizes(name: &str, value: &str) -> Result<Vec<usize>, String> {
    let mut sizes = Vec::new();
    for part in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.replace('_', "").parse::<usize>() {
            Ok(n) if (4..=100_000).contains(&n) => sizes.push(n),
            _ => {
                return Err(format!(
                    "{name}: '{part}' is not a cluster size between 4 and 100000 nodes"
                ))
            }
        }
    }
    if sizes.is_empty() {
        return Err(format!("{name}: empty list"));
    }
    sizes.sort_unstable();
    sizes.dedup();
    Ok(sizes)
}

/// Parses a positive integer option value.
pub(super) fn parse_count(name: &str, v: &str) -> Result<usize, String> {
    match v.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{} wants a positive integer, not '{}'", name, v)),
    }
}

/// Parses a cap: a positive number of seconds (at most a million).
pub(super) fn parse_seconds(name: &str, v: &str) -> Result<Duration, String> {
    match v.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 1e6 => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!(
            "{name} wants a positive number of seconds, not '{v}'"
        )),
    }
}

/// Parses the command line (without the program name). `Ok(None)` means
/// `--help` was asked for.
pub(super) fn parse_args(args: &[String]) -> Result<Option<Config>, String> {
    let mut c = Config {
        hail: PathBuf::from(DEFAULT_HAIL),
        hailstone: PathBuf::from(DEFAULT_HAILSTONE),
        sizes: DEFAULT_SIZES.to_vec(),
        modes: Mode::ALL.to_vec(),
        runs: 3,
        hail_cap: Duration::from_secs(60),
        hail_runs: None,
        mix: Mix::Drbd,
        shape: Shape::Standard,
        seed: 1,
        keep: None,
        install_hail: false,
        markdown: false,
        modes_given: false,
        hbal: PathBuf::from(DEFAULT_HBAL),
        balance_bin: PathBuf::from(DEFAULT_BALANCE),
        balance_sizes: DEFAULT_BALANCE_SIZES.to_vec(),
        hbal_max_nodes: 100,
        hail_max_nodes: 2000,
        hsqueeze: PathBuf::from(DEFAULT_HSQUEEZE),
        squeeze_bin: PathBuf::from(DEFAULT_SQUEEZE),
        squeeze_sizes: DEFAULT_SQUEEZE_SIZES.to_vec(),
        hspace: PathBuf::from(DEFAULT_HSPACE),
        space_bin: PathBuf::from(DEFAULT_SPACE),
        space_sizes: DEFAULT_SPACE_SIZES.to_vec(),
        space_cap: None,
        explain: false,
    };
    let takes_value = |name: &str| {
        matches!(
            name,
            "--hail"
                | "--hailstone"
                | "--sizes"
                | "--modes"
                | "--runs"
                | "--hail-cap"
                | "--hail-runs"
                | "--mix"
                | "--shape"
                | "--seed"
                | "--keep"
                | "--hbal"
                | "--balance-bin"
                | "--squeeze-sizes"
                | "--hsqueeze"
                | "--squeeze-bin"
                | "--space-sizes"
                | "--hspace"
                | "--space-bin"
                | "--space-cap"
                | "--balance-sizes"
                | "--hbal-max-nodes"
                | "--hail-max-nodes"
        )
    };
    let mut words = toolargs::Args::new(args);
    while let Some(arg) = words.next(takes_value) {
        let toolargs::Arg { name, value } = arg?;
        let value = match (name, value) {
            ("-h" | "--help", _) => return Ok(None),
            ("--install-hail", _) => {
                c.install_hail = true;
                continue;
            }
            ("--markdown", _) => {
                c.markdown = true;
                continue;
            }
            ("--explain", _) => {
                c.explain = true;
                continue;
            }
            (_, Some(value)) => value,
            (other, None) => return Err(format!("unknown option '{}'", other)),
        };
        match name {
            "--hail" => c.hail = PathBuf::from(value),
            "--hailstone" => c.hailstone = PathBuf::from(value),
            "--sizes" => c.sizes = parse_sizes(name, &value)?,
            "--balance-sizes" => c.balance_sizes = parse_sizes(name, &value)?,
            "--hbal-max-nodes" => c.hbal_max_nodes = parse_count(name, &value)?,
            "--hail-max-nodes" => c.hail_max_nodes = parse_count(name, &value)?,
            "--hbal" => c.hbal = PathBuf::from(value),
            "--balance-bin" => c.balance_bin = PathBuf::from(value),
            "--squeeze-sizes" => c.squeeze_sizes = parse_sizes(name, &value)?,
            "--hsqueeze" => c.hsqueeze = PathBuf::from(value),
            "--squeeze-bin" => c.squeeze_bin = PathBuf::from(value),
            "--space-sizes" => c.space_sizes = parse_sizes(name, &value)?,
            "--hspace" => c.hspace = PathBuf::from(value),
            "--space-bin" => c.space_bin = PathBuf::from(value),
            "--modes" => {
                let mut modes = Vec::new();
                for part in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    if part == "all" {
                        modes.extend(Mode::ALL);
                        continue;
                    }
                    match Mode::parse(part) {
                        Some(m) => modes.push(m),
                        None => {
                            return Err(format!(
                                "--modes: unknown mode '{}' (known: all, {})",
                                part,
                                Mode::ALL
                                    .iter()
                                    .map(|m| m.name())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ))
                        }
                    }
                }
                if modes.is_empty() {
                    return Err("--modes: empty list".to_string());
                }
                modes.sort_unstable();
                modes.dedup();
                c.modes = modes;
                c.modes_given = true;
            }
            "--runs" => c.runs = parse_count(name, &value)?,
            "--hail-runs" => c.hail_runs = Some(parse_count(name, &value)?),
            "--hail-cap" => c.hail_cap = parse_seconds(name, &value)?,
            "--space-cap" => c.space_cap = Some(parse_seconds(name, &value)?),
            "--seed" => {
                c.seed = value
                    .trim()
                    .parse::<u64>()
                    .map_err(|_| format!("--seed wants an unsigned integer, not '{}'", value))?
            }
            "--keep" => c.keep = Some(PathBuf::from(value)),
            "--shape" => {
                c.shape = Shape::parse(value.trim()).ok_or_else(|| {
                    format!("--shape: unknown shape '{value}' (known: standard, hosting)")
                })?;
            }
            "--mix" => {
                c.mix = Mix::parse(value.trim()).ok_or_else(|| {
                    format!(
                        "--mix: unknown mix '{}' (known: drbd, drbd-heavy, typical)",
                        value
                    )
                })?
            }
            _ => return Err(format!("unknown option '{}'", name)),
        }
    }
    Ok(Some(c))
}

// ---------------------------------------------------------------------------
// Case generation.
// ---------------------------------------------------------------------------

/// The generator spec of a mode, size, seed and instance mix: the
/// generator's plain roomy cluster (`CaseSpec::new`, every feature switch
/// off, no hail options) with two groups and five instances per node.
pub(super) fn spec_for(mode: Mode, nodes: usize, seed: u64, mix: Mix, shape: Shape) -> CaseSpec {
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
        // One group of ext instances: every node but the master may be
        // powered off.
        Mode::Squeeze => {
            spec.groups = 1;
            spec.instance_templates = vec![(DiskTemplate::Ext, 1)];
        }
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
