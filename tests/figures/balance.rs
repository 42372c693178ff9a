//! `hailstone-balance -G GROUP` on every group: the saved states
//! (`FILE.original` the input, `FILE.balanced` the group with the plan
//! replayed), the `-p` tables before and after, the `--json` figures
//! (the group's nodes and instances, the nodes failing N+1 and the
//! instances on them, the score's components computed from the nodes'
//! figures) and the report page's bars before and after.

use std::collections::BTreeMap;
use std::path::Path;

use crate::support::figures::{self, NodeFigures};
use crate::support::plan;

use super::groups::{after_verdicts, loaded_verdicts};
use super::{
    aliases, check_original, check_replay, check_saved_group, commands, components, explain,
    group_instances, read, report, table, text_and_document, Case, Findings,
};

/// The nodes of `group` in a table's terms: alias → (figures, verdict).
pub fn table_nodes<'a>(
    figs: &'a BTreeMap<String, NodeFigures>,
    verdicts: &BTreeMap<String, bool>,
    names: &BTreeMap<String, String>,
    group: &str,
) -> BTreeMap<String, (&'a NodeFigures, bool)> {
    names
        .iter()
        .filter(|(_, full)| figs[*full].group == group)
        .map(|(alias, full)| (alias.clone(), (&figs[full], verdicts[full])))
        .collect()
}

fn one(f: &mut Findings, dir: &Path, case: &Case, k: usize, group: &str) {
    let at = format!("hailstone-balance -t {} -G {group}", case.name);
    let file = case.path.to_str().expect("a path");
    let save = dir
        .join(format!("c{k}-{group}"))
        .to_str()
        .expect("a path")
        .to_owned();
    let (explained, page) = (format!("{save}.explain"), format!("{save}.html"));
    let args = ["-t", file, "-G", group];
    let saved = [
        "-S",
        &save,
        "-p",
        &format!("--explain={explained}"),
        &format!("--report={page}"),
    ];
    let Some((text, doc)) = text_and_document(f, &at, "hailstone-balance", &args, &saved) else {
        return;
    };
    if doc["status"] == "empty" {
        // No instance: nothing is saved, printed or drawn.
        f.count("empty");
        return;
    }
    f.count("runs");
    let input = plan::parse(&case.text);
    let before = figures::initial(&input);
    let names = aliases(&input);
    let loaded = loaded_verdicts(&before);
    match read(Path::new(&format!("{save}.original"))) {
        Some(o) => check_original(f, &format!("{at}: FILE.original"), &plan::parse(&o), &input),
        None => f.fault(&at, "no FILE.original".to_owned()),
    }
    let after_state = match read(Path::new(&format!("{save}.balanced"))) {
        Some(s) => {
            f.count("plans");
            let s = check_saved_group(f, &format!("{at}: FILE.balanced"), &plan::parse(&s), &input);
            check_replay(
                f,
                &format!("{at}: --json moves"),
                &input,
                &commands(&doc),
                &s,
            );
            s
        }
        None => input.clone(),
    };
    let after = figures::figures(&after_state, &input);
    let after_n1 = after_verdicts(&before, &after);
    // The -p tables.
    for (heading, figs, verdicts) in [
        ("Initial cluster status:", &before, &loaded),
        ("Final cluster status:", &after, &after_n1),
    ] {
        match table::read(&text.stderr, heading, 0) {
            Some(rows) => {
                f.count("tables");
                table::compare(
                    f,
                    &format!("{at}: -p {heading}"),
                    &rows,
                    &table_nodes(figs, verdicts, &names, group),
                );
            }
            None if heading.starts_with("Initial") => f.fault(&at, format!("no {heading} table")),
            None => {}
        }
    }
    // The document.
    {
        let members: Vec<&NodeFigures> = before.values().filter(|n| n.group == group).collect();
        f.same(&at, "json group", doc["group"].as_str(), Some(group));
        f.same(
            &at,
            "json nodes",
            doc["nodes"].as_u64(),
            Some(members.len() as u64),
        );
        let insts = group_instances(&input, group);
        f.same(
            &at,
            "json instances",
            doc["instances"].as_u64(),
            Some(insts as u64),
        );
        let failing: Vec<&&NodeFigures> = members
            .iter()
            .filter(|n| !n.offline && loaded[&n.name])
            .collect();
        let mut printed: Vec<String> = doc["n1_failures"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|x| x.as_str().unwrap_or("?").to_owned())
                    .collect()
            })
            .unwrap_or_default();
        printed.sort();
        let want: Vec<String> = failing.iter().map(|n| n.name.clone()).collect();
        f.same(&at, "json n1_failures", printed, want);
        let mut on: Vec<&String> = failing
            .iter()
            .flat_map(|n| n.primaries.iter().chain(n.secondaries.iter()))
            .collect();
        on.sort();
        on.dedup();
        f.same(
            &at,
            "json instances_on_n1_failures",
            doc["instances_on_n1_failures"].as_u64(),
            Some(on.len() as u64),
        );
        let group_of = |figs: &BTreeMap<String, NodeFigures>| -> Vec<NodeFigures> {
            figs.values()
                .filter(|n| n.group == group)
                .cloned()
                .collect()
        };
        components::compare(
            f,
            &format!("{at}: json components.initial"),
            &doc["components"]["initial"],
            &group_of(&before),
            &loaded,
        );
        components::compare(
            f,
            &format!("{at}: json components.final"),
            &doc["components"]["final"],
            &group_of(&after),
            &after_n1,
        );
    }
    // The explanation's memory breakdowns.
    let explained = std::fs::read_to_string(&explained).unwrap_or_default();
    explain::check_memory_parts(f, &format!("{at}: --explain"), &explained, &before);
    // The report page.
    let Some(page) = read(Path::new(&page)) else {
        f.fault(&at, "no report page".to_owned());
        return;
    };
    f.count("report pages");
    let nodes: Vec<String> = before
        .values()
        .filter(|n| n.group == group)
        .map(|n| n.name.clone())
        .collect();
    let (b, a) = (&before, &after);
    let figs_of = move |state: &str| match state {
        "before" => Some(b),
        "after the plan" => Some(a),
        _ => None,
    };
    report::compare_page(f, &at, &page, &figs_of, &names, &nodes);
}

#[test]
fn balance_figures_are_the_recomputed_ones() {
    super::over_corpus(
        "hailstone-balance",
        &[
            ("cases", 18),
            ("runs", 40),
            ("plans", 15),
            ("tables", 60),
            ("report pages", 40),
        ],
        |f, dir, case, k| {
            let c = plan::parse(&case.text);
            for group in super::populated_groups(&c) {
                one(f, dir, case, k, group);
            }
        },
    );
}
