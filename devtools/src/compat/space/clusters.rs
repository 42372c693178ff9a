//! The generated clusters of the space suite and the hspace option sets
//! run on them.
//!
//! A cluster comes from the request generator ([`crate::generate`]: a
//! random spec with the shape's instance templates, one to three node
//! groups, tags, offline and drained nodes, exclusive storage on some),
//! written as a data file by hailstone's own writer (what `hail -S` saves;
//! a drained node is saved offline, as Ganeti's loaders make it). Its
//! instance policies are then rewritten from a seed, because they decide
//! how long hspace runs: hspace's tiered allocation starts at the policy's
//! largest spec and, each time an allocation fails, shrinks the failing
//! resource by one unit (64 MiB of memory, 256 MiB of disk, one CPU) and
//! tries every node (pair) again, so a policy from 128 MiB to 32 GiB and
//! from 1 GiB to 1 TiB keeps hspace busy for minutes on a few drbd nodes.
//! The rewritten policies have a minimum spec sized from the cluster's free
//! memory and disk (so that a drawn number of instances fit), a maximum a
//! few dozen units above it, a standard spec between them, sometimes a
//! second min/max pair, and a list of disk templates that starts with the
//! shape's own (hspace's default template is the first one the cluster
//! policy allows). Everything depends on the seed and the case number only.

use crate::compat::balance::datafile::{self, node, DataFile};
use crate::generate::rng::Rng;
use crate::generate::{self, CaseSpec, DiskTemplate, RequestKind};

/// The instance templates of a generated cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Plain,
    Drbd,
    Ext,
    File,
    Sharedfile,
    /// drbd, plain, ext, file, sharedfile, rbd and diskless instances; the
    /// policy's first template drawn.
    Mixed,
}

impl Shape {
    pub const ALL: [Shape; 6] = [
        Shape::Plain,
        Shape::Drbd,
        Shape::Ext,
        Shape::File,
        Shape::Sharedfile,
        Shape::Mixed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Shape::Plain => "plain",
            Shape::Drbd => "drbd",
            Shape::Ext => "ext",
            Shape::File => "file",
            Shape::Sharedfile => "sharedfile",
            Shape::Mixed => "mixed",
        }
    }

    fn templates(self) -> Vec<(DiskTemplate, u32)> {
        use DiskTemplate as T;
        match self {
            Shape::Plain => vec![(T::Plain, 1)],
            Shape::Drbd => vec![(T::Drbd, 1)],
            Shape::Ext => vec![(T::Ext, 1)],
            Shape::File => vec![(T::File, 1)],
            Shape::Sharedfile => vec![(T::Sharedfile, 1)],
            Shape::Mixed => vec![
                (T::Drbd, 3),
                (T::Plain, 2),
                (T::Ext, 1),
                (T::File, 1),
                (T::Sharedfile, 1),
                (T::Rbd, 1),
                (T::Diskless, 1),
            ],
        }
    }

    /// The template the cluster policy lists first (hspace's default).
    fn first_template(self, r: &mut Rng) -> DiskTemplate {
        use DiskTemplate as T;
        match self {
            Shape::Plain => T::Plain,
            Shape::Drbd => T::Drbd,
            Shape::Ext => T::Ext,
            Shape::File => T::File,
            Shape::Sharedfile => T::Sharedfile,
            Shape::Mixed => *r.pick(&[
                T::Drbd,
                T::Drbd,
                T::Plain,
                T::Ext,
                T::File,
                T::Sharedfile,
                T::Rbd,
                T::Diskless,
                T::Blockdev,
                T::Gluster,
            ]),
        }
    }
}

/// How large a corpus's clusters and policies are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scale {
    /// The node counts.
    pub nodes: (usize, usize),
    /// The number of minimum-size instances the free memory or disk of the
    /// cluster holds (drawn in this range).
    pub fits: (i64, i64),
    /// The most units (64 MiB, 256 MiB) between a policy's minimum and
    /// maximum memory and disk.
    pub width: (i64, i64),
}

/// One generated cluster.
#[derive(Clone, Debug)]
pub struct Cluster {
    /// `gen/<shape>/g<groups>/n<nodes>/s<seed>`, with `+excl` when some
    /// nodes have exclusive storage.
    pub id: String,
    /// The data file.
    pub data: DataFile,
    /// The templates the cluster policy allows, hspace's default first.
    pub templates: Vec<String>,
    /// The cluster policy's standard spec and the minimum and maximum of
    /// its pair (memory, disk, CPUs): minimum, standard, maximum.
    pub specs: [(i64, i64, i64); 3],
    /// What the cluster has beyond the generator's usual (for the report).
    pub features: Vec<&'static str>,
}

/// Generates cluster number `k` of a corpus from `seed`.
///
/// # Errors
///
/// When hailstone's reader refuses the generated request (a generator bug).
pub fn generate_cluster(k: usize, seed: u64, scale: &Scale) -> Result<Cluster, String> {
    let shape = Shape::ALL[k % Shape::ALL.len()];
    let (lo, hi) = (
        scale.nodes.0.max(2),
        scale.nodes.1.max(scale.nodes.0.max(2)),
    );
    let mut spec = CaseSpec::random(seed, RequestKind::Allocate, lo..=hi);
    let n = spec.nodes;
    let mut r = Rng::new(seed ^ 0x0005_bace_ce11 ^ (k as u64).wrapping_mul(0x9e37_79b9));
    spec.instance_templates = shape.templates();
    // One to three groups, in turn, each of two nodes at least.
    spec.groups = ((k / Shape::ALL.len()) % 3 + 1).min((n / 2).max(1));
    spec.instances_per_node = match r.below(4) {
        0 => 0.5 + r.unit(),
        1 | 2 => 1.0 + 2.0 * r.unit(),
        _ => 3.0 + 2.0 * r.unit(),
    };
    // Memory and disk fill drawn apart: roomy, medium or nearly full.
    let fill = |r: &mut Rng| match r.below(5) {
        0 | 1 => 0.1 + 0.3 * r.unit(),
        2 | 3 => 0.4 + 0.3 * r.unit(),
        _ => 0.7 + 0.25 * r.unit(),
    };
    spec.tightness = fill(&mut r);
    spec.disk_tightness = fill(&mut r);
    let f = &mut spec.features;
    // The policies are rewritten below.
    f.multi_minmax = false;
    f.restricted_templates = false;
    f.policy_violations = false;
    f.storage_partitions = false;
    // Names as Ganeti's text files have them.
    f.non_ascii = false;
    f.node_tags = r.chance(0.5);
    f.group_tags = r.chance(0.3);
    f.exclusion_tags = r.chance(0.3);
    f.location_tags = r.chance(0.3);
    // Offline and drained nodes where groups keep two online nodes or so.
    f.offline_nodes = n >= 4 && r.chance(0.35);
    f.offline_with_instances = f.offline_nodes && r.chance(0.3);
    f.drained_nodes = n >= 4 && r.chance(0.25);
    f.exclusive_storage = matches!(shape, Shape::Plain | Shape::Drbd | Shape::Mixed) && k % 4 == 1;
    f.overcommitted = r.chance(0.1);
    // Rarely a group without online nodes, nodes that are not vm_capable
    // (saved offline) or groups that are last resort or unallocable.
    f.dead_group = r.chance(0.04);
    f.non_vm_capable = n >= 4 && r.chance(0.1);
    f.alloc_policies = r.chance(0.1);
    let exclusive = f.exclusive_storage;
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
    let mut features = Vec::new();
    let excl_nodes = data
        .nodes()
        .iter()
        .any(|l| l.get(11).map(String::as_str) == Some("Y"));
    if exclusive && excl_nodes {
        features.push("exclusive storage");
    }
    if data
        .nodes()
        .iter()
        .any(|l| l.get(node::FLAG).map(String::as_str) == Some("Y"))
    {
        features.push("offline nodes");
    }
    if data
        .nodes()
        .iter()
        .any(|l| l.get(node::TAGS).is_some_and(|t| !t.is_empty()))
    {
        features.push("node tags");
    }
    if r.chance(0.6) && set_master(&mut data, &mut r) {
        features.push("master");
    }
    let first = shape.first_template(&mut r);
    let (templates, specs) = rewrite_policies(&mut data, &mut r, first, scale);
    if data.sections.get(4).is_some_and(|p| {
        p.iter()
            .any(|l| l.get(2).is_some_and(|mm| mm.split(';').count() > 2))
    }) {
        features.push("two min/max pairs");
    }
    let groups = data.groups_with_nodes().len();
    let excl = if features.contains(&"exclusive storage") {
        "+excl"
    } else {
        ""
    };
    Ok(Cluster {
        id: format!("gen/{}/g{groups}/n{n}/s{seed}{excl}", shape.name()),
        data,
        templates,
        specs,
        features,
    })
}

/// Makes one online node the master.
fn set_master(data: &mut DataFile, r: &mut Rng) -> bool {
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

/// One instance spec of a policy: memory, CPUs, disk size, disk count,
/// NIC count, spindle use (the data file's order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ISpec {
    pub mem: i64,
    pub cpu: i64,
    pub dsk: i64,
    pub disks: i64,
    pub nics: i64,
    pub spindles: i64,
}

impl ISpec {
    pub fn text(&self) -> String {
        format!(
            "{},{},{},{},{},{}",
            self.mem, self.cpu, self.dsk, self.disks, self.nics, self.spindles
        )
    }
}

/// A policy line's fields after the name.
#[derive(Clone, Debug, PartialEq)]
pub struct Policy {
    pub std: ISpec,
    pub minmax: Vec<(ISpec, ISpec)>,
    pub templates: Vec<DiskTemplate>,
    pub vcpu_ratio: f64,
    pub spindle_ratio: f64,
}

impl Policy {
    /// The line of the data file for `name` (empty for the cluster's).
    pub fn line(&self, name: &str) -> Vec<String> {
        let minmax: Vec<String> = self
            .minmax
            .iter()
            .map(|(lo, hi)| format!("{};{}", lo.text(), hi.text()))
            .collect();
        let templates: Vec<&str> = self.templates.iter().map(|t| t.as_str()).collect();
        vec![
            name.to_owned(),
            self.std.text(),
            minmax.join(";"),
            templates.join(","),
            format!("{:?}", self.vcpu_ratio),
            format!("{:?}", self.spindle_ratio),
        ]
    }
}

/// `v` rounded down to a multiple of `unit`, at least `min`.
fn round_down(v: i64, unit: i64, min: i64) -> i64 {
    ((v / unit) * unit).max(min)
}

/// The free memory and the free disk of the online nodes, each largest
/// first.
fn free_resources(data: &DataFile) -> (Vec<i64>, Vec<i64>) {
    let online = data
        .nodes()
        .iter()
        .filter(|l| l.get(node::FLAG).map(String::as_str) != Some("Y"));
    let (mut mem, mut dsk): (Vec<i64>, Vec<i64>) = online
        .map(|l| {
            (
                datafile::int(l, node::F_MEM).max(0),
                datafile::int(l, node::F_DSK).max(0),
            )
        })
        .unzip();
    mem.sort_unstable_by(|a, b| b.cmp(a));
    dsk.sort_unstable_by(|a, b| b.cmp(a));
    (mem, dsk)
}

/// What `fits` instances of one size may take of `free` (largest first):
/// the free space but for the largest node's (which N+1 keeps for a
/// failover), and no more than half of the second largest node's each.
fn share(free: &[i64], fits: i64, copies: i64) -> i64 {
    let usable: i64 = free
        .iter()
        .skip(1)
        .sum::<i64>()
        .max(free.first().copied().unwrap_or(0));
    let one = free.get(1).or(free.first()).copied().unwrap_or(0) / 2;
    (usable / copies / fits.max(1)).min(one)
}

/// A policy whose minimum spec fits about `fits` times in the free
/// resources, with `first` the first of its templates.
pub fn make_policy(
    r: &mut Rng,
    free: (&[i64], &[i64]),
    first: DiskTemplate,
    scale: &Scale,
) -> Policy {
    let (mem_free, dsk_free) = free;
    let fits = |r: &mut Rng| r.range(scale.fits.0, scale.fits.1).max(1);
    // drbd places its disks on two nodes.
    let copies = if first == DiskTemplate::Drbd { 2 } else { 1 };
    let mem = round_down(share(mem_free, fits(r), 1), 64, *r.pick(&[128, 256, 512]));
    let dsk = round_down(share(dsk_free, fits(r), copies), 256, 1024);
    let width = |r: &mut Rng| r.range(scale.width.0, scale.width.1);
    let min = ISpec {
        mem,
        cpu: if r.chance(0.2) { 2 } else { 1 },
        dsk,
        disks: 1,
        nics: 1,
        spindles: 1,
    };
    let max = ISpec {
        mem: min.mem + 64 * width(r),
        cpu: min.cpu + r.range(0, 3),
        dsk: min.dsk + 256 * width(r),
        disks: *r.pick(&[1, 4, 16]),
        nics: *r.pick(&[1, 8]),
        spindles: min.spindles + r.range(0, 3),
    };
    let between =
        |r: &mut Rng, lo: i64, hi: i64, unit: i64| lo + unit * r.range(0, (hi - lo) / unit);
    let std = ISpec {
        mem: between(r, min.mem, max.mem, 64),
        cpu: between(r, min.cpu, max.cpu, 1),
        dsk: between(r, min.dsk, max.dsk, 256),
        disks: 1,
        nics: 1,
        spindles: between(r, min.spindles, max.spindles, 1),
    };
    let mut minmax = vec![(min, max)];
    if r.chance(0.2) {
        // A second, smaller pair (as Ganeti's dualspec test data has).
        let lo = ISpec {
            mem: round_down(min.mem / 2, 64, 128),
            dsk: round_down(min.dsk / 2, 256, 1024),
            ..min
        };
        let hi = ISpec {
            mem: (lo.mem + 64 * width(r)).min(min.mem),
            dsk: (lo.dsk + 256 * width(r)).min(min.dsk),
            ..max
        };
        minmax.push((lo, hi));
        if r.chance(0.5) {
            minmax.reverse();
        }
    }
    let mut templates = vec![first];
    let mut others: Vec<DiskTemplate> = DiskTemplate::ALL
        .iter()
        .copied()
        .filter(|t| *t != first)
        .collect();
    r.shuffle(&mut others);
    let keep_all = r.chance(0.4);
    templates.extend(others.into_iter().filter(|_| keep_all || r.chance(0.5)));
    Policy {
        std,
        minmax,
        templates,
        vcpu_ratio: *r.pick(&[4.0, 4.0, 2.0, 1.0, 8.0]),
        spindle_ratio: *r.pick(&[32.0, 32.0, 4.0, 8.0]),
    }
}

/// Rewrites the cluster's and the groups' policies (most groups keep the
/// cluster's); returns the cluster policy's templates and its first pair's
/// minimum, its standard and its maximum spec.
fn rewrite_policies(
    data: &mut DataFile,
    r: &mut Rng,
    first: DiskTemplate,
    scale: &Scale,
) -> (Vec<String>, [(i64, i64, i64); 3]) {
    let (mem, dsk) = free_resources(data);
    let free = (&mem[..], &dsk[..]);
    let cluster = make_policy(r, free, first, scale);
    let mut lines = vec![cluster.line("")];
    for g in data.group_names() {
        let policy = if r.chance(0.75) {
            cluster.clone()
        } else {
            // A group of its own: other sizes, and sometimes without the
            // cluster's first template.
            let own_first = if r.chance(0.7) {
                first
            } else {
                *r.pick(&DiskTemplate::ALL)
            };
            make_policy(r, free, own_first, scale)
        };
        lines.push(policy.line(&g));
    }
    while data.sections.len() < 5 {
        data.sections.push(Vec::new());
    }
    data.sections[4] = lines;
    // The pair of the standard spec.
    let std = cluster.std;
    let (lo, hi) = cluster
        .minmax
        .iter()
        .copied()
        .find(|(lo, hi)| {
            lo.mem <= std.mem && std.mem <= hi.mem && lo.dsk <= std.dsk && std.dsk <= hi.dsk
        })
        .unwrap_or(cluster.minmax[0]);
    let t = |s: &ISpec| (s.mem, s.dsk, s.cpu);
    (
        cluster
            .templates
            .iter()
            .map(|t| t.as_str().to_owned())
            .collect(),
        [t(&lo), t(&cluster.std), t(&hi)],
    )
}

// ---------------------------------------------------------------------------
// Option sets.
// ---------------------------------------------------------------------------

/// The option families of the runs after a cluster's default run, used in
/// turn over the corpus.
pub const FAMILIES: [&str; 15] = [
    "--machine-readable",
    "--disk-template",
    "--no-capacity-checks",
    "--independent-groups",
    "--accept-existing-errors",
    "-l",
    "--standard-alloc",
    "--tiered-alloc",
    "-v -v -v -v",
    "-p",
    "-S",
    "-O",
    "--max-cpu",
    "--min-disk",
    "combined",
];

/// One run of a generated cluster: its options (`{IN}` the input folder,
/// `{OUT}` the program's own output folder) and its family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunSpec {
    pub id: String,
    pub family: &'static str,
    pub args: Vec<String>,
}

fn pick(r: &mut Rng, xs: &[&str]) -> String {
    (*r.pick(xs)).to_owned()
}

/// A spec for `--standard-alloc`/`--tiered-alloc`: `disk,ram,cpu` and
/// sometimes spindles, around the policy's sizes, sometimes with units.
fn alloc_spec(r: &mut Rng, cluster: &Cluster) -> String {
    let [lo, std, hi] = cluster.specs;
    let (mem, dsk, cpu) = match r.below(5) {
        0 => lo,
        1 => std,
        2 => hi,
        // Between the minimum and the maximum.
        3 => (
            lo.0 + 64 * r.range(0, (hi.0 - lo.0) / 64),
            lo.1 + 256 * r.range(0, (hi.1 - lo.1) / 256),
            r.range(lo.2, hi.2),
        ),
        // Outside the policy.
        _ => (hi.0 * 2, hi.1 + 1024, hi.2 + 1),
    };
    let dsk = if dsk % 1024 == 0 && r.chance(0.4) {
        format!("{}{}", dsk / 1024, pick(r, &["G", "g"]))
    } else {
        dsk.to_string()
    };
    let mem = if mem % 1024 == 0 && r.chance(0.3) {
        format!("{}g", mem / 1024)
    } else if r.chance(0.2) {
        format!("{mem}M")
    } else {
        mem.to_string()
    };
    let mut s = format!("{dsk},{mem},{cpu}");
    if r.chance(0.25) {
        s.push_str(&format!(",{}", r.range(1, 3)));
    }
    s
}

/// The online node names of a cluster.
fn online_nodes(data: &DataFile) -> Vec<String> {
    data.nodes()
        .iter()
        .filter(|l| l.get(node::FLAG).map(String::as_str) != Some("Y"))
        .map(|l| l[node::NAME].clone())
        .collect()
}

/// The options of one family on a cluster.
fn family_args(family: &str, cluster: &Cluster, r: &mut Rng) -> Vec<String> {
    let s = |x: &str| x.to_owned();
    match family {
        "--machine-readable" => vec![pick(
            r,
            &[
                "--machine-readable",
                "--machine-readable",
                "--machine-readable=yes",
                "--machine-readable=no",
            ],
        )],
        "--disk-template" => {
            // A template the policy allows, now and then one it does not.
            let t = if r.chance(0.9) || cluster.templates.len() == DiskTemplate::ALL.len() {
                r.pick(&cluster.templates).clone()
            } else {
                let missing: Vec<&str> = DiskTemplate::ALL
                    .iter()
                    .map(|t| t.as_str())
                    .filter(|t| !cluster.templates.iter().any(|c| c == t))
                    .collect();
                (*r.pick(&missing)).to_owned()
            };
            if r.chance(0.5) {
                vec![format!("--disk-template={t}")]
            } else {
                vec![s("--disk-template"), t]
            }
        }
        "--no-capacity-checks" | "--independent-groups" | "--accept-existing-errors" => {
            vec![s(family)]
        }
        "-l" => {
            let l = pick(r, &["1", "2", "3", "5", "8", "20"]);
            if r.chance(0.5) {
                vec![format!("-l{l}")]
            } else {
                vec![s("-l"), l]
            }
        }
        "--standard-alloc" => {
            let mut v = vec![format!("--standard-alloc={}", alloc_spec(r, cluster))];
            if r.chance(0.3) {
                v.push(format!("--tiered-alloc={}", alloc_spec(r, cluster)));
            }
            v
        }
        "--tiered-alloc" => vec![format!("--tiered-alloc={}", alloc_spec(r, cluster))],
        "-v -v -v -v" => match r.below(6) {
            0 => vec![s("-v")],
            1 => vec![s("-v"), s("-v")],
            2 => vec![s("-q")],
            3 => vec![s("-vvvv")],
            _ => vec![s("-v"), s("-v"), s("-v"), s("-v")],
        },
        "-p" => vec![pick(
            r,
            &[
                "-pname,pcnt",
                "-pname,pcnt",
                "-p",
                "-pname,fmem,fdsk,pcnt,scnt,tags",
                "-p+spindle_count,inst_spindles",
            ],
        )],
        "-S" => vec![s("-S"), s("{OUT}/state")],
        "-O" => {
            let nodes = online_nodes(&cluster.data);
            let mut v = Vec::new();
            let count = if nodes.len() > 3 && r.chance(0.3) {
                2
            } else {
                1
            };
            for _ in 0..count {
                if !nodes.is_empty() {
                    v.push(s("-O"));
                    v.push(r.pick(&nodes).clone());
                }
            }
            v
        }
        "--max-cpu" => vec![format!(
            "--max-cpu={}",
            pick(r, &["0.5", "1", "1.5", "2", "4", "8"])
        )],
        "--min-disk" => vec![format!(
            "--min-disk={}",
            pick(r, &["0", "0.1", "0.25", "0.5", "0.9"])
        )],
        _ => {
            let mut v = Vec::new();
            for o in [
                "--no-capacity-checks",
                "--independent-groups",
                "--accept-existing-errors",
                "--machine-readable",
            ] {
                if r.chance(0.4) {
                    v.push(s(o));
                }
            }
            if r.chance(0.5) {
                v.push(format!("--spindle-use={}", r.range(0, 3)));
            }
            if r.chance(0.3) {
                v.push(s("-l"));
                v.push(r.range(1, 10).to_string());
            }
            if r.chance(0.3) {
                v.push(format!("--tiered-alloc={}", alloc_spec(r, cluster)));
            }
            v.push(s("-S"));
            v.push(s("{OUT}/state"));
            v
        }
    }
}

/// The runs of cluster `k`: its default run, then `extra` runs of the
/// families that come next in turn (`n` counts the family runs made so
/// far over the corpus); each family run sometimes also asks for the
/// machine-readable output or more messages.
pub fn runs(cluster: &Cluster, k: usize, extra: usize, n: &mut usize) -> Vec<RunSpec> {
    let mut r = Rng::new((k as u64).wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0x5ace_f00d);
    let data = vec!["-t".to_owned(), "{IN}/cluster.data".to_owned()];
    let mut out = vec![RunSpec {
        id: format!("{}#default", cluster.id),
        family: "default",
        args: data.clone(),
    }];
    for _ in 0..extra {
        let family = FAMILIES[*n % FAMILIES.len()];
        *n += 1;
        let mut args = family_args(family, cluster, &mut r);
        // hspace's capacity checks refuse every allocation on most clusters
        // with plain or file instances (FailN1): a third of the runs go
        // without them.
        if !args.iter().any(|a| a == "--no-capacity-checks") && r.chance(0.35) {
            args.push("--no-capacity-checks".to_owned());
        }
        if family != "--machine-readable" && family != "combined" && r.chance(0.2) {
            args.push("--machine-readable".to_owned());
        } else if family != "-v -v -v -v" && r.chance(0.15) {
            args.push("-v".to_owned());
        }
        // The data file before or after the other options.
        if r.chance(0.5) {
            args.splice(0..0, data.iter().cloned());
        } else {
            args.extend(data.iter().cloned());
        }
        out.push(RunSpec {
            id: format!("{}#{} {family}", cluster.id, out.len()),
            family,
            args,
        });
    }
    out
}
