//! The generated clusters of the balance suite and the hbal option sets
//! run on them.
//!
//! A cluster comes from the request generator ([`crate::generate`], a
//! random spec with the shape's templates and forced features), is
//! written as a data file by hailstone's own writer (what `hail -S` saves,
//! [`hailstone::shell::datafile::from_request`]) and then edited from a
//! seed for what the generator does not express: a master node, piled-up
//! primaries (so that there is balancing to do), instance states other than
//! up/down/offline, `auto_balance` off, forthcoming instances, CPU speeds,
//! extra exclusion tags and, rarely, an instance split over two groups.
//! Everything depends on the seed and the case number only.

use std::ops::RangeInclusive;

use super::datafile::{self, inst, node, DataFile};
use crate::generate::rng::Rng;
use crate::generate::{self, CaseSpec, DiskTemplate, RequestKind};

/// The instance templates of a generated cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Every instance DRBD.
    Drbd,
    /// Every instance plain: nothing is movable.
    Plain,
    /// Every instance ext (externally mirrored: failover to any node).
    Ext,
    /// Every template alike.
    Mixed,
    /// The generator's usual DRBD/plain cluster with a few others.
    Typical,
    /// DRBD with some rbd and plain.
    DrbdRbd,
}

impl Shape {
    pub const ALL: [Shape; 6] = [
        Shape::Drbd,
        Shape::Plain,
        Shape::Ext,
        Shape::Mixed,
        Shape::Typical,
        Shape::DrbdRbd,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Shape::Drbd => "drbd",
            Shape::Plain => "plain",
            Shape::Ext => "ext",
            Shape::Mixed => "mixed",
            Shape::Typical => "typical",
            Shape::DrbdRbd => "drbd-rbd",
        }
    }

    fn templates(self) -> Vec<(DiskTemplate, u32)> {
        match self {
            Shape::Drbd => vec![(DiskTemplate::Drbd, 1)],
            Shape::Plain => vec![(DiskTemplate::Plain, 1)],
            Shape::Ext => vec![(DiskTemplate::Ext, 1)],
            Shape::Mixed => DiskTemplate::ALL.iter().map(|&t| (t, 1)).collect(),
            Shape::Typical => Vec::new(),
            Shape::DrbdRbd => vec![
                (DiskTemplate::Drbd, 3),
                (DiskTemplate::Rbd, 1),
                (DiskTemplate::Plain, 1),
            ],
        }
    }
}

/// One generated cluster.
#[derive(Clone, Debug)]
pub struct Cluster {
    /// `gen/<shape>/n<nodes>/s<seed>`, with `+split` when an instance has
    /// its nodes in two groups.
    pub id: String,
    /// The data file.
    pub data: DataFile,
    /// What was done to it beyond the generator (for the report).
    pub edits: Vec<&'static str>,
}

/// Instance states that use memory on their primary (Ganeti's
/// `usesMemory`, forthcoming instances aside).
fn uses_memory(status: &str) -> bool {
    matches!(
        status,
        "running" | "ERROR_up" | "ERROR_nodedown" | "ERROR_nodeoffline" | "ERROR_wrongnode"
    )
}

fn uses_disk(template: &str) -> bool {
    matches!(template, "drbd" | "plain")
}

/// Generates cluster number `k` of a corpus from `seed`, with a node count
/// drawn from `nodes`.
///
/// # Errors
///
/// When hailstone's reader refuses the generated request (a generator bug).
pub fn generate_cluster(
    k: usize,
    seed: u64,
    nodes: RangeInclusive<usize>,
) -> Result<Cluster, String> {
    let shape = Shape::ALL[k % Shape::ALL.len()];
    let lo = (*nodes.start()).max(2);
    let mut spec = CaseSpec::random(seed, RequestKind::Allocate, lo..=(*nodes.end()).max(lo));
    let n = spec.nodes;
    spec.instance_templates = shape.templates();
    spec.groups = if k % 3 == 2 && n >= 6 {
        2 + (k / 3) % 2
    } else {
        1
    };
    let f = &mut spec.features;
    f.exclusion_tags = k.is_multiple_of(3);
    f.location_tags = k % 4 == 1;
    f.desired_location = k % 5 == 2;
    f.migration_tags = k % 4 == 3;
    f.mixed_migration_tags = f.migration_tags && k % 8 == 7;
    f.offline_nodes = k % 3 == 1;
    f.offline_with_instances = f.offline_nodes && k.is_multiple_of(2);
    // hbal's time grows about as nodes^2 x instances: larger clusters are
    // less dense so that it finishes within the cap.
    spec.instances_per_node = if n > 40 {
        spec.instances_per_node.clamp(1.0, 1.75)
    } else if n > 25 {
        spec.instances_per_node.clamp(1.0, 2.5)
    } else {
        spec.instances_per_node.clamp(1.0, 5.0)
    };
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
    let mut r = Rng::new(seed ^ 0xba1a_0ce5_5eed ^ (k as u64).wrapping_mul(0x9e37_79b9));
    let mut edits = Vec::new();
    if r.chance(0.7) && set_master(&mut data, &mut r) {
        edits.push("master");
    }
    if k.is_multiple_of(2) || r.chance(0.3) {
        pile_up(&mut data, &mut r);
        edits.push("piled-up");
    }
    if r.chance(0.5) {
        other_states(&mut data, &mut r);
        edits.push("states");
    }
    if r.chance(0.4) {
        for i in data.instances_mut().iter_mut() {
            if r.chance(0.15) {
                datafile::set(i, inst::AUTO_BALANCE, "N");
            }
        }
        edits.push("auto_balance-N");
    }
    if r.chance(0.15) {
        for i in data.instances_mut().iter_mut() {
            if r.chance(0.08) {
                datafile::set(i, inst::FORTHCOMING, "Y");
            }
        }
        edits.push("forthcoming");
    }
    if r.chance(0.3) {
        for n in data.nodes_mut().iter_mut() {
            if r.chance(0.4) {
                let speed = *r.pick(&["2.0", "0.5", "1.5", "1.25", "3.0"]);
                datafile::set(n, node::CPU_SPEED, speed);
            }
        }
        edits.push("cpu-speed");
    }
    if !data
        .cluster_tags()
        .iter()
        .any(|t| t.starts_with("htools:iextags:"))
        && r.chance(0.2)
    {
        data.add_cluster_tag("htools:iextags:svc");
        for i in data.instances_mut().iter_mut() {
            if r.chance(0.5) {
                let tag = format!("svc:{}", r.pick(&["a", "b", "c"]));
                let mut tags = i.get(inst::TAGS).cloned().unwrap_or_default();
                if !tags.is_empty() {
                    tags.push(',');
                }
                tags.push_str(&tag);
                datafile::set(i, inst::TAGS, tags);
            }
        }
        edits.push("iextags");
    }
    if data.groups_with_nodes().len() > 1 && r.chance(0.08) && split_instance(&mut data, &mut r) {
        edits.push("split-instance");
    }
    if r.chance(0.5) && misreport_memory(&mut data, &mut r) {
        edits.push("misreported-memory");
    }
    // A split instance makes hbal crash on some outputs (the accepted
    // hbal-split-insts patterns), so the id says so.
    let split = if edits.contains(&"split-instance") {
        "+split"
    } else {
        ""
    };
    Ok(Cluster {
        id: format!("gen/{}/n{}/s{}{split}", shape.name(), n, seed),
        data,
        edits,
    })
}

/// Makes some nodes report a free memory their records do not give, where
/// Ganeti 3.0.2 and 3.1.0 judge a node's initial N+1 state apart (3.0.2:
/// reported free memory below the largest failover reservation; 3.1.0:
/// the lesser of it and what the records leave at most that reservation):
/// exactly the reservation, above it on a node whose records leave less,
/// or 512 MiB to 3 GiB more or less than reported. Whether any node
/// changed.
pub fn misreport_memory(data: &mut DataFile, r: &mut Rng) -> bool {
    let Ok(figures) = hailstone::shell::datafile::node_memory("gen", data.text().as_bytes()) else {
        return false;
    };
    let mut changed = false;
    for (n, m) in data.nodes_mut().iter_mut().zip(figures) {
        if !r.chance(0.4) {
            continue;
        }
        let delta = (1 + r.below(6) as i64) * 512;
        let new = if m.reserved > 0 && r.chance(0.4) {
            m.reserved
        } else if m.reserved > 0 && m.recorded_free <= m.reserved && r.chance(0.7) {
            m.reserved + delta
        } else if r.chance(0.7) {
            m.free + delta
        } else {
            (m.free - delta).max(0)
        };
        if new != m.free {
            datafile::set(n, node::F_MEM, new.to_string());
            changed = true;
        }
    }
    changed
}

/// Makes one online node the master.
pub fn set_master(data: &mut DataFile, r: &mut Rng) -> bool {
    let online: Vec<usize> = (0..data.nodes().len())
        .filter(|&k| data.nodes()[k].get(node::FLAG).map(String::as_str) == Some("N"))
        .collect();
    if online.is_empty() {
        return false;
    }
    let k = *r.pick(&online);
    datafile::set(&mut data.nodes_mut()[k], node::FLAG, "M");
    true
}

/// Moves the primaries of some instances of each group onto one or two
/// nodes (keeping the reported free memory and disk consistent where they
/// fit), so that hbal has moves to make.
fn pile_up(data: &mut DataFile, r: &mut Rng) {
    for group in data.groups_with_nodes() {
        let names = data.nodes_of_group(&group);
        let online: Vec<String> = names
            .iter()
            .filter(|n| {
                data.nodes()
                    .iter()
                    .find(|l| &l[node::NAME] == *n)
                    .is_some_and(|l| l.get(node::FLAG).map(String::as_str) != Some("Y"))
            })
            .cloned()
            .collect();
        if online.len() < 2 {
            continue;
        }
        let hot: Vec<String> = (0..1 + r.below(2))
            .map(|_| r.pick(&online).clone())
            .collect();
        let count = data.instances().len();
        for k in 0..count {
            let on_group = names.contains(&data.instances()[k][inst::PNODE]);
            if !on_group || !r.chance(0.4) {
                continue;
            }
            let target = r.pick(&hot).clone();
            move_primary(data, k, &target);
        }
    }
}

fn node_index(data: &DataFile, name: &str) -> Option<usize> {
    data.nodes().iter().position(|l| l[node::NAME] == name)
}

/// Moves instance `k`'s primary to `target` if the target's reported free
/// memory and disk allow it, updating both nodes' free values (a DRBD
/// instance whose secondary is the target swaps its two nodes).
fn move_primary(data: &mut DataFile, k: usize, target: &str) {
    let i = data.instances()[k].clone();
    let (pnode, snode) = (&i[inst::PNODE], &i[inst::SNODE]);
    if pnode == target {
        return;
    }
    let (Some(p), Some(t)) = (node_index(data, pnode), node_index(data, target)) else {
        return;
    };
    let mem = if uses_memory(&i[inst::STATUS]) {
        datafile::int(&i, inst::MEM)
    } else {
        0
    };
    let swap = snode == target;
    let dsk = if uses_disk(&i[inst::TEMPLATE]) && !swap {
        datafile::int(&i, inst::DSK)
    } else {
        0
    };
    let tl = &data.nodes()[t];
    if datafile::int(tl, node::F_MEM) < mem || datafile::int(tl, node::F_DSK) < dsk {
        return;
    }
    let nodes = data.nodes_mut();
    let add = |l: &mut Vec<String>, k: usize, d: i64| {
        let v = datafile::int(l, k) + d;
        datafile::set(l, k, v.to_string());
    };
    add(&mut nodes[t], node::F_MEM, -mem);
    add(&mut nodes[p], node::F_MEM, mem);
    add(&mut nodes[t], node::F_DSK, -dsk);
    add(&mut nodes[p], node::F_DSK, dsk);
    let line = &mut data.instances_mut()[k];
    if swap {
        let old = line[inst::PNODE].clone();
        datafile::set(line, inst::SNODE, old);
    }
    datafile::set(line, inst::PNODE, target);
}

/// Gives some instances the states the generator does not make, keeping
/// the primary's reported free memory consistent.
pub fn other_states(data: &mut DataFile, r: &mut Rng) {
    const STATES: [&str; 7] = [
        "ERROR_up",
        "USER_down",
        "ERROR_down",
        "ERROR_wrongnode",
        "ERROR_nodedown",
        "ERROR_nodeoffline",
        "ADMIN_down",
    ];
    for k in 0..data.instances().len() {
        if !r.chance(0.15) {
            continue;
        }
        let new = *r.pick(&STATES);
        let i = data.instances()[k].clone();
        let delta = match (uses_memory(&i[inst::STATUS]), uses_memory(new)) {
            (true, false) => datafile::int(&i, inst::MEM),
            (false, true) => -datafile::int(&i, inst::MEM),
            _ => 0,
        };
        if let Some(p) = node_index(data, &i[inst::PNODE]) {
            let l = &mut data.nodes_mut()[p];
            let v = datafile::int(l, node::F_MEM) + delta;
            if v < 0 {
                continue;
            }
            datafile::set(l, node::F_MEM, v.to_string());
        }
        datafile::set(&mut data.instances_mut()[k], inst::STATUS, new);
    }
}

/// Moves one DRBD instance's secondary to a node of another group.
fn split_instance(data: &mut DataFile, r: &mut Rng) -> bool {
    let groups = data.groups_with_nodes();
    let drbd: Vec<usize> = (0..data.instances().len())
        .filter(|&k| data.instances()[k][inst::TEMPLATE] == "drbd")
        .collect();
    if drbd.is_empty() {
        return false;
    }
    let k = *r.pick(&drbd);
    let pnode = data.instances()[k][inst::PNODE].clone();
    let Some(other) = groups
        .iter()
        .find(|g| !data.nodes_of_group(g).contains(&pnode))
        .cloned()
    else {
        return false;
    };
    let target = data.nodes_of_group(&other)[0].clone();
    datafile::set(&mut data.instances_mut()[k], inst::SNODE, target);
    true
}

// ---------------------------------------------------------------------------
// Option sets.
// ---------------------------------------------------------------------------

/// The balancing option families, used in turn.
pub const ALGORITHM_FAMILIES: [&str; 19] = [
    "defaults",
    "-E",
    "--restricted-migration",
    "--no-disk-moves",
    "--no-instance-moves",
    "--ignore-soft-errors",
    "-l",
    "-g",
    "--min-gain-limit",
    "-e",
    "--max-cpu",
    "--min-disk",
    "-O",
    "--select-instances",
    "--exclude-instances",
    "--exclusion-tags",
    "--ignore-dynu",
    "-U",
    "combined",
];

/// The output option families, used in turn (coprime with the balancing
/// ones, so that every pair comes up).
pub const OUTPUT_FAMILIES: [&str; 12] = [
    "no output option",
    "-C",
    "-CFILE",
    "-S",
    "-p",
    "-pFIELDS",
    "-p+FIELDS",
    "--print-instances",
    "-v",
    "-v -v -v",
    "-q",
    "all outputs",
];

/// One run of a generated cluster: its options (with `{IN}` for the input
/// folder and `{OUT}` for the program's own output folder), the families
/// it belongs to, and the `-U` file it needs.
#[derive(Clone, Debug)]
pub struct RunSpec {
    pub id: String,
    pub args: Vec<String>,
    pub families: Vec<String>,
    pub dynu: Option<String>,
}

fn num(r: &mut Rng, xs: &[&str]) -> String {
    (*r.pick(xs)).to_owned()
}

/// A name as hbal's `lookupName` also accepts it: the full name, or (when
/// it has a domain) sometimes the part before the first dot.
fn maybe_short(name: &str, r: &mut Rng) -> String {
    match name.split_once('.') {
        Some((short, _)) if r.chance(0.3) => short.to_owned(),
        _ => name.to_owned(),
    }
}

/// The options of run number `n` of the corpus on `group` of a cluster
/// (`-G` when the cluster has several groups or sometimes anyway).
pub fn run_spec(n: usize, cluster: &Cluster, group: &str, several: bool) -> RunSpec {
    let data = &cluster.data;
    let mut r = Rng::new((n as u64).wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0x0bad_cafe);
    let alg = ALGORITHM_FAMILIES[n % ALGORITHM_FAMILIES.len()];
    let out = OUTPUT_FAMILIES[n % OUTPUT_FAMILIES.len()];
    let mut args: Vec<String> = vec!["-t".into(), "{IN}/cluster.data".into()];
    if several || r.chance(0.2) {
        let by_uuid = r.chance(0.2);
        let g = data.groups().iter().find(|g| g[0] == group);
        let value = match g {
            Some(g) if by_uuid => g[1].clone(),
            _ => group.to_owned(),
        };
        args.push("-G".into());
        args.push(value);
    }
    let nodes = data.nodes_of_group(group);
    let insts = data.instances_on(&nodes);
    let mut dynu = None;
    let s = |x: &str| x.to_owned();
    let alg_args: Vec<String> = match alg {
        "defaults" => vec![],
        "-E" => vec![s("-E")],
        "--restricted-migration" => {
            if r.chance(0.5) {
                vec![s("--restricted-migration"), s("-E")]
            } else {
                vec![s("--restricted-migration")]
            }
        }
        "--no-disk-moves" | "--no-instance-moves" | "--ignore-soft-errors" | "--ignore-dynu" => {
            vec![s(alg)]
        }
        "-l" => {
            let l = r.range(0, 6).to_string();
            if r.chance(0.5) {
                vec![format!("-l{l}")]
            } else {
                vec![s("-l"), l]
            }
        }
        "-g" => vec![s("-g"), num(&mut r, &["0.001", "0.05", "0.1", "0.5"])],
        "--min-gain-limit" => vec![
            s("-g"),
            num(&mut r, &["0.05", "0.2", "1"]),
            s("--min-gain-limit"),
            num(&mut r, &["0.5", "1", "5", "0.01"]),
        ],
        "-e" => vec![s("-e"), num(&mut r, &["0.01", "0.1", "0.5", "2", "1e-3"])],
        "--max-cpu" => vec![s("--max-cpu"), num(&mut r, &["0.5", "1.5", "2", "8"])],
        "--min-disk" => vec![s("--min-disk"), num(&mut r, &["0.1", "0.3", "0.6"])],
        "-O" => {
            let mut v = Vec::new();
            for _ in 0..1 + usize::from(nodes.len() > 3 && r.chance(0.3)) {
                if let Some(name) = (!nodes.is_empty()).then(|| r.pick(&nodes).clone()) {
                    v.push(s("-O"));
                    v.push(maybe_short(&name, &mut r));
                }
            }
            v
        }
        "--select-instances" | "--exclude-instances" => {
            let mut chosen: Vec<String> = Vec::new();
            for _ in 0..r.range(1, 3) {
                if !insts.is_empty() {
                    let name = r.pick(&insts).clone();
                    if !chosen.contains(&name) {
                        chosen.push(name);
                    }
                }
            }
            let list: Vec<String> = chosen.iter().map(|c| maybe_short(c, &mut r)).collect();
            vec![format!("{alg}={}", list.join(","))]
        }
        "--exclusion-tags" => {
            let mut prefixes: Vec<String> = data
                .instances()
                .iter()
                .flat_map(|i| {
                    i.get(inst::TAGS)
                        .map(|t| {
                            t.split(',')
                                .filter_map(|t| t.split_once(':').map(|x| x.0.to_owned()))
                                .collect::<Vec<_>>()
                        })
                        .unwrap_or_default()
                })
                .collect();
            prefixes.sort();
            prefixes.dedup();
            let p = if prefixes.is_empty() {
                s("test")
            } else {
                r.pick(&prefixes).clone()
            };
            vec![s("--exclusion-tags"), p]
        }
        "-U" => {
            dynu = Some(dynu_file(data, &mut r));
            let mut v = vec![s("-U"), s("{IN}/dynu")];
            if r.chance(0.25) {
                v.push(s("--ignore-dynu"));
            }
            v
        }
        _ => {
            let pool = [
                "-E",
                "--restricted-migration",
                "--ignore-soft-errors",
                "--no-disk-moves",
                "--ignore-dynu",
                "--no-instance-moves",
            ];
            let mut v = Vec::new();
            for p in pool {
                if r.chance(0.4) {
                    v.push(s(p));
                }
            }
            v.push(s("-l"));
            v.push(r.range(1, 8).to_string());
            v
        }
    };
    let out_args: Vec<String> = match out {
        "no output option" => vec![],
        "-C" => vec![s(if r.chance(0.5) { "-C" } else { "--print-commands" })],
        "-CFILE" => vec![s("-C{OUT}/commands.sh")],
        "-S" => vec![s("-S"), s("{OUT}/state")],
        "-p" => vec![s("-p")],
        "-pFIELDS" => vec![s("-pname,fmem,fdsk,pcnt,scnt,pfmem,rcpu,cload")],
        "-p+FIELDS" => vec![s(
            "-p+idx,fqdn,plist,slist,ptags,peermap,spindle_count,hi_spindles,inst_spindles,amem,bogus",
        )],
        "--print-instances" => vec![s("--print-instances")],
        "-v" => vec![s("-v")],
        "-v -v -v" => {
            if r.chance(0.5) {
                vec![s("-v"), s("-v"), s("-v")]
            } else {
                vec![s("-vvvv")]
            }
        }
        "-q" => vec![s("-q")],
        _ => vec![
            s("-C"),
            s("-S"),
            s("{OUT}/state"),
            s("-p"),
            s("--print-instances"),
            s("-v"),
            s("-v"),
        ],
    };
    // Options before or after the others, as a user might write them.
    if r.chance(0.5) {
        args.extend(alg_args);
        args.extend(out_args);
    } else {
        let mut all = out_args;
        all.extend(alg_args);
        all.extend(args);
        args = all;
    }
    RunSpec {
        id: format!("{} -G {group} #{n}", cluster.id),
        args,
        families: vec![alg.to_owned(), out.to_owned()],
        dynu,
    }
}

/// A `-U` file: fractional utilisations for most instances, in file order,
/// and one unknown name (hbal ignores it).
fn dynu_file(data: &DataFile, r: &mut Rng) -> String {
    let values = [
        "0.1", "0.25", "1.5", "2.75", "0.05", "3.3", "1", "0", "0.333",
    ];
    let mut out = String::new();
    for i in data.instances() {
        if r.chance(0.7) {
            out.push_str(&format!(
                "{} {} {} {} {}\n",
                i[inst::NAME],
                r.pick(&values),
                r.pick(&values),
                r.pick(&values),
                r.pick(&values)
            ));
        }
    }
    out.push_str("no-such-instance.example.com 1 1 1 1\n");
    out
}

/// The bad-input and command-line cases, on a cluster: each an id, a
/// family and the options (same placeholders as [`RunSpec`]), plus the
/// extra input files they need.
pub fn cli_cases(cluster: &Cluster) -> Vec<RunSpec> {
    let data = &cluster.data;
    let groups = data.groups_with_nodes();
    let group = groups.first().cloned().unwrap_or_default();
    let s = |x: &str| x.to_owned();
    let t = || vec![s("-t"), s("{IN}/cluster.data")];
    let mut out: Vec<(&str, &str, Vec<String>, Option<String>)> = vec![
        (
            "unknown option",
            "bad input",
            vec![s("--no-such-option")],
            None,
        ),
        (
            "unknown option with data",
            "bad input",
            [t(), vec![s("-x")]].concat(),
            None,
        ),
        (
            "missing file",
            "bad input",
            vec![s("-t"), s("{IN}/no-such-file.data")],
            None,
        ),
        (
            "directory as file",
            "bad input",
            vec![s("-t"), s("{IN}")],
            None,
        ),
        ("no backend", "bad input", vec![], None),
        (
            "bad -l",
            "bad input",
            [t(), vec![s("-l"), s("abc")]].concat(),
            None,
        ),
        (
            "bad -l leftover",
            "bad input",
            [t(), vec![s("-l5x")]].concat(),
            None,
        ),
        (
            "-l without value",
            "bad input",
            [t(), vec![s("-l")]].concat(),
            None,
        ),
        (
            "bad -e",
            "bad input",
            [t(), vec![s("-e"), s(".5")]].concat(),
            None,
        ),
        (
            "overflowing -l",
            "bad input",
            [t(), vec![s("-l"), s("99999999999999999999999")]].concat(),
            None,
        ),
        (
            "--min-disk above 1",
            "bad input",
            [t(), vec![s("--min-disk=5")]].concat(),
            None,
        ),
        (
            "data file and request",
            "bad input",
            [t(), vec![s("-I"), s("{IN}/no-such-request.json")]].concat(),
            None,
        ),
        (
            "bad --max-cpu",
            "bad input",
            [t(), vec![s("--max-cpu=0")]].concat(),
            None,
        ),
        (
            "unknown group",
            "bad input",
            [t(), vec![s("-G"), s("no-such-group")]].concat(),
            None,
        ),
        (
            "unknown -O node",
            "bad input",
            [t(), vec![s("-O"), s("no-such-node"), s("-O"), s("other")]].concat(),
            None,
        ),
        (
            "unknown instance",
            "bad input",
            [t(), vec![s("--select-instances=no-such-inst,x")]].concat(),
            None,
        ),
        (
            "extra argument",
            "bad input",
            [t(), vec![s("unexpected-argument")]].concat(),
            None,
        ),
        (
            "ambiguous option",
            "bad input",
            [t(), vec![s("--no")]].concat(),
            None,
        ),
        (
            "missing -U file",
            "bad input",
            [t(), vec![s("-U"), s("{IN}/no-such-dynu")]].concat(),
            None,
        ),
        (
            "bad -U line",
            "bad input",
            [t(), vec![s("-U"), s("{IN}/dynu")]].concat(),
            Some(s("a b c\n")),
        ),
        (
            "bad -U value",
            "bad input",
            [t(), vec![s("-U"), s("{IN}/dynu")]].concat(),
            Some(s("inst cpu mem dsk net\n")),
        ),
        (
            "unwritable -S",
            "bad input",
            [t(), vec![s("-S"), s("{OUT}/no-such-dir/state")]].concat(),
            None,
        ),
        (
            "unwritable -C",
            "bad input",
            [t(), vec![s("-C{OUT}/no-such-dir/cmds")]].concat(),
            None,
        ),
        ("--help", "help and version", vec![s("--help")], None),
        ("--version", "help and version", vec![s("-V")], None),
        (
            "--help-completion",
            "help and version",
            vec![s("--help-completion")],
            None,
        ),
        (
            "abbreviated options",
            "command line",
            [
                t(),
                vec![s("--max-len=2"), s("--print-n=name,pcnt"), s("--evac")],
            ]
            .concat(),
            None,
        ),
        (
            "bundled flags",
            "command line",
            [t(), vec![s("-vvq"), s("-El3")]].concat(),
            None,
        ),
    ];
    if groups.len() > 1 {
        out.push(("several groups without -G", "bad input", t(), None));
    } else if !group.is_empty() {
        out.push((
            "-G by name",
            "command line",
            [t(), vec![s("--group"), group.clone()]].concat(),
            None,
        ));
    }
    out.push((
        "empty cluster",
        "bad input",
        vec![s("-t"), s("{IN}/empty.data")],
        None,
    ));
    out.into_iter()
        .map(|(name, family, args, dynu)| RunSpec {
            id: format!("cli/{name}"),
            args,
            families: vec![family.to_owned()],
            dynu,
        })
        .collect()
}

/// A data file with the cluster's groups and nodes and no instance (hbal:
/// "Cluster is empty, exiting.").
pub fn empty_cluster(cluster: &Cluster) -> String {
    let mut d = cluster.data.clone();
    d.instances_mut().clear();
    d.text()
}
