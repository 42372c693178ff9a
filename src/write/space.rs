//! hspace's texts (`Program/Hspace.hs`): the cluster's resources, the
//! instance specs, the tiered and standard results for people, and the
//! same as `HTS_KEY=value` lines for scripts (`--machine-readable`), each
//! in hspace 3.0.2's exact format.

use crate::haskell::show::{printf_fixed, show_double};
use crate::model::policy::RSpec;
use crate::model::stats::{allocation_delta, AllocInfo, ClusterStats};
use crate::model::types::{DiskTemplate, FailMode};
use crate::search::allocate::AllocNodes;
use crate::write::Audience;

/// Which spec a line is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecType {
    /// The standard (fixed-size) instance.
    Normal,
    /// The first instance of the tiered allocation.
    Tiered,
}

impl SpecType {
    fn prefix(self) -> &'static str {
        match self {
            SpecType::Normal => "SPEC",
            SpecType::Tiered => "TSPEC_INI",
        }
    }

    fn description(self) -> &'static str {
        match self {
            SpecType::Normal => "Standard (fixed-size)",
            SpecType::Tiered => "Tiered (initial size)",
        }
    }
}

/// The phase a block of statistics is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Before any allocation.
    Initial,
    /// After the tiered allocation.
    Tiered,
    /// After the standard allocation.
    Final,
}

impl Phase {
    fn key(self) -> &'static str {
        match self {
            Phase::Initial => "INI",
            Phase::Tiered => "TRL",
            Phase::Final => "FIN",
        }
    }
}

/// `ensureQuoted`: a value of letters, digits and dots as it is, anything
/// else in single quotes.
pub(crate) fn ensure_quoted(v: &str) -> String {
    if v.chars().all(|c| c.is_alphanumeric() || c == '.') {
        v.to_owned()
    } else {
        format!("'{v}'")
    }
}

/// `printKeys "HTS"`: one `HTS_KEY=value` line per pair.
pub fn keys(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("HTS_{}={}\n", k.to_uppercase(), ensure_quoted(v)))
        .collect()
}

fn pair(k: impl Into<String>, v: impl Into<String>) -> (String, String) {
    (k.into(), v.into())
}

/// `printStats`: the statistics of a phase as keys.
pub fn stats_keys(phase: Phase, cs: &ClusterStats) -> Vec<(String, String)> {
    let k = phase.key();
    let f8 = |x: f64| printf_fixed(x, 8);
    vec![
        pair(format!("{k}_SCORE"), f8(cs.score)),
        pair(format!("{k}_INST_CNT"), cs.ninst.to_string()),
        pair(format!("{k}_MEM_FREE"), cs.fmem.to_string()),
        pair(format!("{k}_MEM_AVAIL"), cs.amem.to_string()),
        pair(format!("{k}_MEM_RESVD"), (cs.fmem - cs.amem).to_string()),
        pair(format!("{k}_MEM_INST"), cs.imem.to_string()),
        pair(format!("{k}_MEM_OVERHEAD"), (cs.xmem + cs.nmem).to_string()),
        pair(format!("{k}_MEM_EFF"), f8(cs.mem_eff())),
        pair(format!("{k}_DSK_FREE"), cs.fdsk.to_string()),
        pair(format!("{k}_DSK_AVAIL"), cs.adsk.to_string()),
        pair(format!("{k}_DSK_RESVD"), (cs.fdsk - cs.adsk).to_string()),
        pair(format!("{k}_DSK_INST"), cs.idsk.to_string()),
        pair(format!("{k}_DSK_EFF"), f8(cs.dsk_eff())),
        pair(format!("{k}_SPN_FREE"), cs.fspn.to_string()),
        pair(format!("{k}_SPN_INST"), cs.ispn.to_string()),
        pair(format!("{k}_SPN_EFF"), f8(cs.spn_eff())),
        pair(format!("{k}_CPU_INST"), cs.icpu.to_string()),
        pair(format!("{k}_CPU_EFF"), f8(cs.cpu_eff())),
        pair(format!("{k}_MNODE_MEM_AVAIL"), cs.mmem.to_string()),
        pair(format!("{k}_MNODE_DSK_AVAIL"), cs.mdsk.to_string()),
    ]
}

/// The cluster's totals: memory, disk, CPUs, virtual CPUs (and spindles).
fn cluster_data(cs: &ClusterStats, spindles: bool) -> Vec<(&'static str, String)> {
    let mut v = vec![
        ("MEM", printf_fixed(cs.tmem, 0)),
        ("DSK", printf_fixed(cs.tdsk, 0)),
        ("CPU", printf_fixed(cs.tcpu, 0)),
        ("VCPU", cs.vcpu.to_string()),
    ];
    if spindles {
        v.push(("SPN", printf_fixed(cs.tspn, 0)));
    }
    v
}

/// A spec's memory, disk, CPUs (and spindles).
fn spec_data(spec: &RSpec, spindles: bool) -> Vec<(&'static str, String)> {
    let mut v = vec![
        ("MEM", spec.mem.to_string()),
        ("DSK", spec.dsk.to_string()),
        ("CPU", spec.cpu.to_string()),
    ];
    if spindles {
        v.push(("SPN", spec.spn.to_string()));
    }
    v
}

/// `formatResources`: `NAME value, NAME value`.
fn resources(data: &[(&str, String)]) -> String {
    data.iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `printCluster`: the cluster's resources and its instance count.
pub fn cluster(audience: Audience, cs: &ClusterStats, nodes: usize, spindles: bool) -> String {
    if audience == Audience::Scripts {
        let mut pairs: Vec<(String, String)> = cluster_data(cs, true)
            .into_iter()
            .map(|(k, v)| pair(format!("CLUSTER_{k}"), v))
            .collect();
        pairs.push(pair("CLUSTER_NODES", nodes.to_string()));
        pairs.extend(stats_keys(Phase::Initial, cs));
        return keys(&pairs);
    }
    let count = if cs.ninst > 0 {
        cs.ninst.to_string()
    } else {
        "no".to_owned()
    };
    format!(
        "The cluster has {nodes} nodes and the following resources:\n  {}.\nThere are {count} initial instances on the cluster.\n",
        resources(&cluster_data(cs, spindles))
    )
}

/// `printISpec`: the spec a phase allocates.
pub fn spec(
    audience: Audience,
    spec: &RSpec,
    kind: SpecType,
    template: DiskTemplate,
    spindles: bool,
) -> String {
    if audience == Audience::Scripts {
        let prefix = kind.prefix();
        let mut pairs: Vec<(String, String)> = spec_data(spec, true)
            .into_iter()
            .map(|(k, v)| pair(format!("{prefix}_{k}"), v))
            .collect();
        let required = if template == DiskTemplate::Drbd { 2 } else { 1 };
        pairs.push(pair(format!("{prefix}_RQN"), required.to_string()));
        pairs.push(pair(format!("{prefix}_DISK_TEMPLATE"), template.raw()));
        return keys(&pairs);
    }
    format!(
        "{} instance spec is:\n  {}, using disk template '{}'.\n",
        kind.description(),
        resources(&spec_data(spec, spindles)),
        template.raw()
    )
}

/// The failure reasons, most frequent first (`sortReasons`).
pub fn sorted_reasons(counts: &[u64; 9]) -> Vec<(FailMode, u64)> {
    let mut v: Vec<(FailMode, u64)> = FailMode::ALL
        .iter()
        .map(|&m| (m, counts[m as usize]))
        .collect();
    v.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
    v
}

/// `printFRScores`: the most likely failure reason, the scores before and
/// after, and the usage efficiency after.
fn failure_and_scores(
    reasons: &[(FailMode, u64)],
    initial: f64,
    fin: &ClusterStats,
    spindles: bool,
) -> String {
    let reason = reasons.first().map_or("", |(m, _)| m.name());
    let mut text = format!(
        "  - most likely failure reason: {reason}\n  - initial cluster score: {}\n  -   final cluster score: {}\n",
        printf_fixed(initial, 8),
        printf_fixed(fin.score, 8)
    );
    let mut eff: Vec<(&str, f64)> = vec![
        ("memory", fin.mem_eff()),
        ("disk", fin.dsk_eff()),
        ("vcpu", fin.cpu_eff()),
    ];
    if spindles {
        eff.push(("spindles", fin.spn_eff()));
    }
    let width = eff.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    for (name, value) in eff {
        text.push_str(&format!(
            "  - {name:>width$} usage efficiency: {:>5}%\n",
            printf_fixed(value * 100.0, 2)
        ));
    }
    text
}

/// `tieredSpecMap`: consecutive instances of the same spec, counted.
pub fn spec_map(specs: &[RSpec]) -> Vec<(RSpec, usize)> {
    let mut out: Vec<(RSpec, usize)> = Vec::new();
    for s in specs {
        match out.last_mut() {
            Some((last, n)) if last == s => *n += 1,
            _ => out.push((*s, 1)),
        }
    }
    out
}

/// `formatRSpec`: the key metrics of one kind (`USED`, `POOL`, `UNAV`).
fn key_metrics(kind: &str, r: &AllocInfo) -> Vec<(String, String)> {
    vec![
        pair(format!("KM_{kind}_CPU"), r.vcpus.to_string()),
        pair(format!("KM_{kind}_NPU"), show_double(r.ncpus)),
        pair(format!("KM_{kind}_MEM"), r.mem.to_string()),
        pair(format!("KM_{kind}_DSK"), r.disk.to_string()),
        pair(format!("KM_{kind}_SPN"), r.spn.to_string()),
    ]
}

/// `printTiered`: the tiered allocation's results.
#[allow(clippy::too_many_arguments)]
pub fn tiered(
    audience: Audience,
    specs: &[(RSpec, usize)],
    initial: &ClusterStats,
    fin: &ClusterStats,
    reasons: &[(FailMode, u64)],
    ini_spindles: bool,
    fin_spindles: bool,
) -> String {
    if audience == Audience::Scripts {
        let mut pairs = stats_keys(Phase::Tiered, fin);
        let map: Vec<String> = specs
            .iter()
            .map(|(s, n)| format!("{},{},{},{}={n}", s.mem, s.dsk, s.cpu, s.spn))
            .collect();
        pairs.push(pair("TSPEC", map.join(" ")));
        let [used, pool, unav] = allocation_delta(initial, fin);
        pairs.extend(key_metrics("USED", &used));
        pairs.extend(key_metrics("POOL", &pool));
        pairs.extend(key_metrics("UNAV", &unav));
        return keys(&pairs);
    }
    let mut text = String::from("Tiered allocation results:\n");
    if specs.is_empty() {
        text.push_str("  - no instances allocated\n");
    }
    for (s, n) in specs {
        text.push_str(&format!(
            "  - {n:>3} instances of spec {}\n",
            resources(&spec_data(s, ini_spindles))
        ));
    }
    text.push_str(&failure_and_scores(
        reasons,
        initial.score,
        fin,
        fin_spindles,
    ));
    text
}

/// `printResults`: the standard allocation's results (`allocated` new
/// instances after `existing` ones).
pub fn standard(
    audience: Audience,
    initial: &ClusterStats,
    fin: &ClusterStats,
    existing: usize,
    allocated: usize,
    reasons: &[(FailMode, u64)],
    spindles: bool,
) -> String {
    if audience == Audience::Scripts {
        let mut pairs = stats_keys(Phase::Final, fin);
        let usage = existing as f64 / (existing + allocated) as f64;
        pairs.push(pair("ALLOC_USAGE", printf_fixed(usage, 8)));
        pairs.push(pair("ALLOC_INSTANCES", allocated.to_string()));
        let main = reasons.first().map_or("", |(m, _)| m.name());
        pairs.push(pair("ALLOC_FAIL_REASON", main.to_uppercase()));
        for (m, n) in reasons {
            pairs.push(pair(format!("ALLOC_{}_CNT", m.name()), n.to_string()));
        }
        return keys(&pairs);
    }
    format!(
        "Normal (fixed-size) allocation results:\n  - {allocated:>3} instances allocated\n{}",
        failure_and_scores(reasons, initial.score, fin, spindles)
    )
}

/// `printFinalHTS`: the last line of the machine-readable output.
pub fn final_ok(audience: Audience) -> String {
    if audience == Audience::Scripts {
        keys(&[pair("OK", "1")])
    } else {
        String::new()
    }
}

/// `Allocatable nodes: ...` (`-v -v -v -v`): Haskell's `show` of the
/// candidate nodes, `Left [nodes]` or `Right [(primary,[secondaries])]`.
pub fn alloc_nodes(nodes: &AllocNodes) -> String {
    let list =
        |v: &mut dyn Iterator<Item = usize>| v.map(|k| k.to_string()).collect::<Vec<_>>().join(",");
    let shown = match nodes {
        AllocNodes::Single(v) => format!("Left [{}]", list(&mut v.iter().copied())),
        AllocNodes::Pairs(pairs) => {
            let rows: Vec<String> = pairs
                .iter()
                .map(|(p, s)| format!("({p},[{}])", list(&mut s.iter())))
                .collect();
            format!("Right [{}]", rows.join(","))
        }
    };
    format!("Allocatable nodes: {shown}\n")
}

/// `printAllocationMap`: the instances placed (`rows`: name, primary,
/// secondary, memory, disk, CPUs, spindles) under `heading`.
pub fn allocation_map(heading: &str, rows: &[[String; 7]]) -> String {
    let mut text = format!("{heading} map\n");
    let cells: Vec<Vec<String>> = rows.iter().map(|r| r.to_vec()).collect();
    if let Some((first, rest)) = cells.split_first() {
        let numeric = [false, false, false, true, true, true, true];
        text.push_str(&crate::write::table::print_table("", first, rest, &numeric));
    }
    text
}
