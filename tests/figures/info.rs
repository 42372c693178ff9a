//! `hailstone-info -v -v -p`: the group table (nodes, instances, nodes
//! failing N+1 and the instances on them, the N+1 verdict), whether the
//! cluster is N+1 happy, the `-p` table, the score's components that come
//! from the nodes' figures, and the report page's bars and N+1 count.

use std::collections::BTreeMap;
use std::path::Path;

use crate::support::figures::{self, NodeFigures};
use crate::support::plan;

use super::groups::loaded_verdicts;
use super::{aliases, components, group_instances, read, report, run, table, Case, Findings};

fn one(f: &mut Findings, dir: &Path, case: &Case, k: usize) {
    let at = format!("hailstone-info -t {}", case.name);
    let file = case.path.to_str().expect("a path");
    let page = dir
        .join(format!("c{k}.html"))
        .to_str()
        .expect("a path")
        .to_owned();
    let out = run(
        "hailstone-info",
        &["-t", file, "-v", "-v", "-p", &format!("--report={page}")],
    );
    if out.refused() {
        f.count("refused");
        return;
    }
    f.count("runs");
    let input = plan::parse(&case.text);
    let before = figures::initial(&input);
    let names = aliases(&input);
    let loaded = loaded_verdicts(&before);
    // Each group: nodes, instances (by primary), nodes failing N+1 (online),
    // the instances on them, the verdict.
    let mut groups: BTreeMap<String, (usize, usize, usize, usize, bool)> = BTreeMap::new();
    for g in before.values().map(|n| n.group.clone()) {
        let members: Vec<&NodeFigures> = before.values().filter(|n| n.group == g).collect();
        let bad: Vec<&&NodeFigures> = members
            .iter()
            .filter(|n| !n.offline && loaded[&n.name])
            .collect();
        let mut on: Vec<&String> = bad
            .iter()
            .flat_map(|n| n.primaries.iter().chain(n.secondaries.iter()))
            .collect();
        on.sort();
        on.dedup();
        let insts = group_instances(&input, &g);
        groups.insert(
            g,
            (members.len(), insts, bad.len(), on.len(), bad.is_empty()),
        );
    }
    let mut rows = BTreeMap::new();
    if let Some(start) = out.stdout.find("Node group information:\n") {
        for line in out.stdout[start..].lines().skip(2) {
            let w: Vec<&str> = line.split_whitespace().collect();
            if !line.starts_with("  ") || w.len() != 7 {
                break;
            }
            let n = |k: usize| w[k].parse::<usize>().unwrap_or(usize::MAX);
            rows.insert(w[0].to_owned(), (n(1), n(2), n(3), n(4), w[5] == "True"));
        }
    }
    f.same(
        &at,
        "group table (nodes, instances, bad nodes, bad instances, N+1 happy)",
        rows,
        groups.clone(),
    );
    let happy = groups.values().all(|g| g.4);
    let said = out
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("Cluster is N+1 "));
    f.same(
        &at,
        "Cluster is N+1 ...",
        said,
        Some(if happy { "happy" } else { "unhappy" }),
    );
    match table::read(&out.stderr, "Cluster status:", 0) {
        Some(rows) => {
            f.count("tables");
            let nodes: BTreeMap<String, (&NodeFigures, bool)> = names
                .iter()
                .map(|(a, full)| (a.clone(), (&before[full], loaded[full])))
                .collect();
            table::compare(f, &format!("{at}: -p"), &rows, &nodes);
        }
        None => f.fault(&at, "no -p table".to_owned()),
    }
    // The coefficients, as `  name  value  xweight`.
    let printed: Vec<serde_json::Value> = out
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("Cluster coefficients:"))
        .skip(2)
        .map_while(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.len() == 3)
                .then(|| serde_json::json!({"name": w[0], "value": w[1].parse::<f64>().ok()}))
        })
        .collect();
    let nodes: Vec<NodeFigures> = before.values().cloned().collect();
    let want = components::of(&nodes, &loaded);
    let mut seen = 0;
    for c in &printed {
        let name = c["name"].as_str().unwrap_or("?");
        if let (Some(w), Some(v)) = (want.get(name), c["value"].as_f64()) {
            seen += 1;
            if w.is_finite() {
                f.near(
                    &at,
                    &format!("coefficient {name}"),
                    v,
                    *w,
                    5e-9 + 1e-9 * w.abs(),
                );
            }
        }
    }
    if !before.is_empty() {
        f.same(&at, "coefficients recomputed and found", seen, want.len());
    }
    let Some(page) = read(Path::new(&page)) else {
        f.fault(&at, "no report page".to_owned());
        return;
    };
    f.count("report pages");
    let b = &before;
    let figs_of = move |state: &str| state.is_empty().then_some(b);
    report::compare_page(f, &at, &page, &figs_of, &names, &input.node_order);
    let failing = before
        .values()
        .filter(|n| !n.offline && loaded[&n.name])
        .count();
    let tag = "<dd data-key=\"n1-failing\">";
    let fact = page.find(tag).map(|k| {
        let rest = &page[k + tag.len()..];
        rest[..rest.find("</dd>").unwrap_or(0)].to_owned()
    });
    f.same(
        &at,
        "report fact n1-failing",
        fact,
        Some(failing.to_string()),
    );
}

#[test]
fn info_figures_are_the_recomputed_ones() {
    super::over_corpus(
        "hailstone-info",
        &[
            ("cases", 18),
            ("runs", 18),
            ("tables", 18),
            ("report pages", 18),
        ],
        |f, dir, case, k| {
            one(f, dir, case, k);
        },
    );
}
