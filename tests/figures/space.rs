//! `hailstone-space`, hspace's count and `--allocator-model`: the states
//! saved after each allocation (`FILE.tiered`, `FILE.standard`: the input
//! with the new instances; the nodes' constants unchanged), the `-p`
//! tables of the three states, every cluster figure of `--json`'s keys
//! (`CLUSTER_*`, and `INI_*`, `TRL_*`, `FIN_*` recomputed from the input,
//! the tiered and the standard state as `Cluster.totalResources` sums the
//! nodes; `KM_*` from the first two), `--explain`'s memory breakdowns and
//! the report page's bars before and after each allocation.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::support::figures::{self, NodeFigures};
use crate::support::plan;

use super::groups::{after_verdicts, loaded_verdicts};
use super::{aliases, check_saved, explain, read, report, run, table, Case, Findings};

/// `Cluster.totalResources`' sums over every node, by key (without the
/// phase's prefix), and the totals of `clusterData` (`CLUSTER_*`).
fn stats(
    figs: &BTreeMap<String, NodeFigures>,
    ratios: &BTreeMap<String, f64>,
) -> BTreeMap<&'static str, f64> {
    let sum = |g: &dyn Fn(&NodeFigures) -> f64| figs.values().map(g).sum::<f64>();
    let max = |g: &dyn Fn(&NodeFigures) -> f64| figs.values().map(g).fold(0.0, f64::max);
    let avail_mem = |n: &NodeFigures| n.mem_available as f64;
    let avail_dsk = |n: &NodeFigures| n.dsk_free.max(0) as f64;
    let mut s = BTreeMap::new();
    let t_mem = sum(&|n| n.mem_total as f64);
    let t_dsk = sum(&|n| n.dsk_total as f64);
    let t_spn = sum(&|n| n.spindles_total as f64);
    let v_cpu = sum(&|n| n.vcpu_limit as f64);
    s.insert("INST_CNT", sum(&|n| n.primaries.len() as f64));
    s.insert("MEM_FREE", sum(&|n| n.mem_free as f64));
    s.insert("MEM_AVAIL", sum(&avail_mem));
    s.insert("MEM_RESVD", sum(&|n| n.mem_free as f64) - sum(&avail_mem));
    s.insert("MEM_INST", sum(&|n| n.mem_instances as f64));
    s.insert(
        "MEM_OVERHEAD",
        sum(&|n| (n.mem_unaccounted + n.mem_node) as f64),
    );
    s.insert("MEM_EFF", sum(&|n| n.mem_instances as f64) / t_mem);
    s.insert("DSK_FREE", sum(&|n| n.dsk_free as f64));
    s.insert("DSK_AVAIL", sum(&avail_dsk));
    s.insert("DSK_RESVD", sum(&|n| n.dsk_free as f64) - sum(&avail_dsk));
    s.insert("DSK_INST", sum(&|n| n.dsk_used as f64));
    s.insert("DSK_EFF", sum(&|n| n.dsk_used as f64) / t_dsk);
    s.insert("SPN_FREE", sum(&|n| n.spindles_free as f64));
    s.insert(
        "SPN_INST",
        sum(&|n| (n.spindles_total - n.spindles_free) as f64),
    );
    s.insert(
        "SPN_EFF",
        sum(&|n| (n.spindles_total - n.spindles_free) as f64) / t_spn,
    );
    s.insert("CPU_INST", sum(&|n| n.vcpus_used as f64));
    s.insert("CPU_EFF", sum(&|n| n.vcpus_used as f64) / v_cpu);
    s.insert("MNODE_MEM_AVAIL", max(&avail_mem));
    s.insert("MNODE_DSK_AVAIL", max(&avail_dsk));
    // For `CLUSTER_*` and `KM_*`.
    s.insert("T_MEM", t_mem);
    s.insert("T_DSK", t_dsk);
    s.insert("T_SPN", t_spn);
    s.insert("T_CPU", sum(&|n| n.cpu_physical));
    s.insert("V_CPU", v_cpu);
    s.insert("N_CPU", sum(&|n| n.vcpus_used as f64 / ratios[&n.name]));
    s.insert("NODES", figs.len() as f64);
    s
}

/// Each node's vCPU ratio (its group's policy, else Ganeti's default).
fn vcpu_ratios(c: &plan::Cluster) -> BTreeMap<String, f64> {
    c.nodes
        .iter()
        .map(|(k, n)| {
            (
                k.clone(),
                c.policies.get(&n.group).map_or(4.0, |p| p.vcpu_ratio),
            )
        })
        .collect()
}

/// A key's value in the document, as a number.
fn key(doc: &Value, k: &str) -> Option<f64> {
    doc["keys"][k].as_f64()
}

fn compare_keys(
    f: &mut Findings,
    at: &str,
    doc: &Value,
    prefix: &str,
    s: &BTreeMap<&'static str, f64>,
) {
    for (k, want) in s {
        if k.starts_with("T_") || k.starts_with("V_") || k.starts_with("N_") || *k == "NODES" {
            continue;
        }
        let name = format!("{prefix}_{k}");
        // `%.8f`: within half of the last digit.
        let tolerance = if k.ends_with("_EFF") {
            5e-9 + 1e-15
        } else {
            0.0
        };
        match key(doc, &name) {
            Some(v) if want.is_finite() => f.near(at, &name, v, *want, tolerance),
            // A quotient of nothing (no disk, no memory): no number.
            _ if !want.is_finite() => {}
            Some(v) => f.fault(at, format!("{name}: printed {v}, recomputed {want}")),
            None => f.fault(at, format!("no key {name}")),
        }
    }
}

fn one(f: &mut Findings, dir: &Path, case: &Case, k: usize, model: &[&str]) {
    let at = format!(
        "hailstone-space{} -t {}",
        model.iter().map(|m| format!(" {m}")).collect::<String>(),
        case.name
    );
    let file = case.path.to_str().expect("a path");
    let save = dir
        .join(format!("c{k}{}", model.len()))
        .to_str()
        .expect("a path")
        .to_owned();
    let (explained, page) = (format!("{save}.explain"), format!("{save}.html"));
    // At most 20 allocations a phase: the figures are as telling, the run
    // much shorter.
    let args = [&["-t", file, "-l", "20"][..], model].concat();
    let text = run(
        "hailstone-space",
        &[
            &args[..],
            &[
                "-S",
                &save,
                "-p",
                &format!("--explain={explained}"),
                &format!("--report={page}"),
            ],
        ]
        .concat(),
    );
    if text.refused() {
        f.count("refused");
        return;
    }
    let json = run("hailstone-space", &[&args[..], &["--json"]].concat());
    let Ok(doc) = serde_json::from_str::<Value>(&json.stdout) else {
        if text.code != 0 && json.code != 0 {
            // Refused with the text too (after some of it).
            f.count("refused");
        } else {
            f.fault(&at, format!("no JSON document: {}", json.stderr));
        }
        return;
    };
    f.count("runs");
    let input = plan::parse(&case.text);
    let before = figures::initial(&input);
    let names = aliases(&input);
    let ratios = vcpu_ratios(&input);
    let ini = stats(&before, &ratios);
    for (k, name) in [
        ("T_MEM", "MEM"),
        ("T_DSK", "DSK"),
        ("T_CPU", "CPU"),
        ("V_CPU", "VCPU"),
        ("T_SPN", "SPN"),
        ("NODES", "NODES"),
    ] {
        if let Some(v) = key(&doc, &format!("CLUSTER_{name}")) {
            f.near(&at, &format!("CLUSTER_{name}"), v, ini[k], 0.5);
        } else if name != "SPN" {
            f.fault(&at, format!("no key CLUSTER_{name}"));
        }
    }
    compare_keys(f, &at, &doc, "INI", &ini);
    // The phases' states.
    let mut phases = Vec::new();
    for (suffix, prefix, heading, state) in [
        (
            "tiered",
            "TRL",
            "Tiered allocation status:",
            "after the tiered allocation",
        ),
        (
            "standard",
            "FIN",
            "Standard allocation status:",
            "after the standard allocation",
        ),
    ] {
        let Some(saved) = read(Path::new(&format!("{save}.{suffix}"))) else {
            continue;
        };
        f.count("phases");
        let saved = plan::parse(&saved);
        check_saved(f, &format!("{at}: FILE.{suffix}"), &saved, &input);
        for (name, i) in &input.insts {
            f.same(
                &at,
                &format!("FILE.{suffix}: instance {name} where it was"),
                saved.insts.get(name).map(|s| (&s.pri, &s.sec)),
                Some((&i.pri, &i.sec)),
            );
        }
        let after = figures::figures(&saved, &input);
        let s = stats(&after, &ratios);
        if key(&doc, &format!("{prefix}_INST_CNT")).is_some() {
            compare_keys(f, &at, &doc, prefix, &s);
        }
        if prefix == "TRL" {
            for (k, used, unavailable) in [
                ("CPU", "CPU_INST", s["V_CPU"] - s["CPU_INST"]),
                ("NPU", "N_CPU", s["T_CPU"] - s["N_CPU"]),
                ("MEM", "MEM_INST", s["T_MEM"] - s["MEM_INST"]),
                ("DSK", "DSK_INST", s["T_DSK"] - s["DSK_INST"]),
                ("SPN", "SPN_INST", s["T_SPN"] - s["SPN_INST"]),
            ] {
                if let Some(v) = key(&doc, &format!("KM_USED_{k}")) {
                    f.near(&at, &format!("KM_USED_{k}"), v, ini[used], 1e-6);
                    f.near(
                        &at,
                        &format!("KM_POOL_{k}"),
                        key(&doc, &format!("KM_POOL_{k}")).unwrap_or(f64::NAN),
                        s[used] - ini[used],
                        1e-6,
                    );
                    f.near(
                        &at,
                        &format!("KM_UNAV_{k}"),
                        key(&doc, &format!("KM_UNAV_{k}")).unwrap_or(f64::NAN),
                        unavailable,
                        1e-6,
                    );
                }
            }
        }
        let verdicts = after_verdicts(&before, &after);
        match table::read(&text.stderr, heading, 0) {
            Some(rows) => {
                f.count("tables");
                let nodes: BTreeMap<String, (&NodeFigures, bool)> = names
                    .iter()
                    .map(|(a, full)| (a.clone(), (&after[full], verdicts[full])))
                    .collect();
                table::compare(f, &format!("{at}: -p {heading}"), &rows, &nodes);
            }
            None => f.fault(&at, format!("no {heading} table")),
        }
        phases.push((state, after));
    }
    let loaded = loaded_verdicts(&before);
    if let Some(rows) = table::read(&text.stderr, "Initial cluster status:", 0) {
        f.count("tables");
        let nodes: BTreeMap<String, (&NodeFigures, bool)> = names
            .iter()
            .map(|(a, full)| (a.clone(), (&before[full], loaded[full])))
            .collect();
        table::compare(
            f,
            &format!("{at}: -p Initial cluster status:"),
            &rows,
            &nodes,
        );
    }
    let explained = std::fs::read_to_string(&explained).unwrap_or_default();
    explain::check_memory_parts(f, &format!("{at}: --explain"), &explained, &before);
    // Each phase's explanation is of its last search, which refused on
    // the state the phase ended with.
    for block in explained.split("\nverdict: ") {
        for (phase, state) in [
            ("answer: tiered allocation", "after the tiered allocation"),
            (
                "answer: standard allocation",
                "after the standard allocation",
            ),
        ] {
            if let (true, Some((_, figs))) = (
                block.contains(phase),
                phases.iter().find(|(s, _)| *s == state),
            ) {
                explain::check_named_memory_parts(
                    f,
                    &format!("{at}: --explain ({phase})"),
                    block,
                    figs,
                    &names,
                );
            }
        }
    }
    let Some(page) = read(Path::new(&page)) else {
        f.fault(&at, "no report page".to_owned());
        return;
    };
    f.count("report pages");
    let (b, phases) = (&before, &phases);
    let figs_of = move |state: &str| {
        if state == "before" {
            return Some(b);
        }
        phases
            .iter()
            .find(|(s, _)| *s == state)
            .map(|(_, figs)| figs)
    };
    report::compare_page(f, &at, &page, &figs_of, &names, &input.node_order);
}

#[test]
fn space_figures_are_the_recomputed_ones() {
    super::over_corpus(
        "hailstone-space",
        &[
            ("cases", 18),
            ("runs", 30),
            ("phases", 40),
            ("tables", 60),
            ("report pages", 30),
        ],
        |f, dir, case, k| {
            one(f, dir, case, k, &[]);
            one(f, dir, case, k, &["--allocator-model"]);
        },
    );
}
