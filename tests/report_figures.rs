//! The node figures of `--report` pages: a plan never changes a node's
//! totals nor the memory the node reports beyond its instances, on the
//! bars (their tooltips) and in the figures' tables (`data-` attributes),
//! and the figures after a plan are the saved state's (`-S`); every bar
//! is named, or binned with the extremes named.

use std::collections::BTreeMap;
use std::process::Command;

use hailstone::program::hail::options::LoadOptions;
use hailstone::shell::datafile;
use hailstone_devtools::generate::{generate, CaseSpec};

fn run(program: &str, args: &[&str]) -> std::process::Output {
    Command::new(program)
        .args(args)
        .output()
        .expect("run a hailstone program")
}

/// Undoes the page's escaping.
fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The `data-` attributes of an opening tag, without the prefix.
fn attributes(tag: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rest = tag;
    while let Some(k) = rest.find(" data-") {
        let after = &rest[k + 6..];
        let eq = after.find("=\"").expect("an attribute's value");
        let value = &after[eq + 2..];
        let end = value.find('"').expect("a closed value");
        out.insert(after[..eq].to_owned(), unescape(&value[..end]));
        rest = &value[end..];
    }
    out
}

/// The rows of the figures' table of `scope` marked `when`, by node name.
fn figures(page: &str, scope: &str, when: &str) -> BTreeMap<String, BTreeMap<String, f64>> {
    let opening = format!("<table class=\"figures\" data-scope=\"{scope}\" data-when=\"{when}\">");
    let start = page
        .find(&opening)
        .unwrap_or_else(|| panic!("no figures of {scope} {when}"));
    let body = &page[start..];
    let body = &body[..body.find("</table>").expect("table closed")];
    body.split("<tr data-node=")
        .skip(1)
        .map(|row| {
            let tag = format!(" data-node={}", &row[..row.find('>').unwrap()]);
            let mut a = attributes(&tag);
            let name = a.remove("node").unwrap();
            a.remove("offline");
            let values = a
                .into_iter()
                .map(|(k, v)| {
                    let x: f64 = v.parse().unwrap_or_else(|_| panic!("{k}={v}"));
                    (k, x)
                })
                .collect();
            (name, values)
        })
        .collect()
}

/// Every memory bar's tooltip of node `name`, in the page's order: the
/// total it is drawn against, and the memory it shows as the node's
/// beyond its instances (0 when it shows none).
fn memory_bars(page: &str, name: &str) -> Vec<(f64, f64)> {
    let opening = format!("<title>{name}: Memory (MiB) of ");
    page.match_indices(&opening)
        .map(|(k, _)| {
            let text = &page[k + opening.len()..];
            let text = &text[..text.find("</title>").unwrap()];
            let mib = |s: &str| -> f64 { s.trim().trim_end_matches(" MiB").parse().unwrap() };
            let mut lines = text.lines();
            let total = mib(lines.next().unwrap());
            let beyond = lines
                .find_map(|l| {
                    l.strip_prefix("unaccounted ")
                        .or_else(|| l.strip_prefix("reported beyond instances "))
                })
                .map_or(0.0, mib);
            (total, beyond)
        })
        .collect()
}

/// A data file's nodes (name to the `|`-separated fields) and instances.
fn data_file(text: &str) -> (BTreeMap<String, Vec<String>>, Vec<Vec<String>>) {
    let sections: Vec<&str> = text.split("\n\n").collect();
    let split = |l: &str| -> Vec<String> { l.split('|').map(str::to_owned).collect() };
    let nodes = sections[1]
        .lines()
        .map(split)
        .map(|f| (f[0].clone(), f))
        .collect();
    let instances = sections[2].lines().map(split).collect();
    (nodes, instances)
}

/// The memory of the running primaries of each node of a data file.
fn instance_memory(text: &str) -> BTreeMap<String, f64> {
    let (nodes, instances) = data_file(text);
    let mut out: BTreeMap<String, f64> = nodes.keys().map(|n| (n.clone(), 0.0)).collect();
    for i in instances {
        if let (true, Some(used)) = (i[4] == "running", out.get_mut(&i[6])) {
            *used += i[1].parse::<f64>().unwrap();
        }
    }
    out
}

/// The checks of a plan's page against the data file read and the state
/// saved after the plan: each node's bars are drawn against its total
/// with the memory reported beyond its instances as read, before and
/// after; the figures' constants are the same before and after; what
/// instances use and what is free after is the saved state's.
fn check_plan_page(page: &str, scope: &str, read: &str, saved: &str) {
    let (nodes, _) = data_file(read);
    let used_before = instance_memory(read);
    let used_after = instance_memory(saved);
    let (saved_nodes, _) = data_file(saved);
    let reported = |name: &str| -> f64 {
        let f = &nodes[name];
        let field = |k: usize| -> f64 { f[k].parse().unwrap() };
        field(1) - field(2) - used_before[name] - field(3)
    };
    for (name, f) in &nodes {
        let total: f64 = f[1].parse().unwrap();
        // The bars: two (before, after), each of the node's total and
        // with the memory it reported beyond its instances.
        let bars = memory_bars(page, name);
        assert_eq!(bars.len(), 2, "{name}: {bars:?}");
        for (k, (drawn, beyond)) in bars.iter().enumerate() {
            let when = ["before", "after"][k];
            assert_eq!(*drawn, total, "{name} {when}: the bar's total");
            assert_eq!(
                *beyond,
                reported(name).max(0.0),
                "{name} {when}: memory reported beyond the instances"
            );
        }
    }
    let before = figures(page, scope, "before");
    let after = figures(page, scope, "after");
    for (name, f) in &nodes {
        let total: f64 = f[1].parse().unwrap();
        let own: f64 = f[2].parse().unwrap();
        let reported = reported(name);
        // The figures: the node's constants before and after; the
        // instances' memory and the free memory after as saved.
        let (b, a) = (&before[name], &after[name]);
        for key in [
            "mem-total",
            "mem-node",
            "mem-unaccounted",
            "dsk-total",
            "cpu-total",
            "spn-total",
        ] {
            assert_eq!(b[key], a[key], "{name}: {key} changed by the plan");
        }
        assert_eq!(b["mem-unaccounted"], reported, "{name}");
        for (f, used) in [(b, used_before[name]), (a, used_after[name])] {
            assert_eq!(f["mem-instances"], used, "{name}");
            assert_eq!(f["mem-used"], own + reported.max(0.0) + used, "{name}");
            assert_eq!(f["mem-free"], total - f["mem-used"], "{name}");
            assert_eq!(f["mem-total"], total, "{name}");
        }
        let saved_free_disk: f64 = saved_nodes[name][5].parse().unwrap();
        assert_eq!(a["dsk-free"], saved_free_disk, "{name}");
        assert_eq!(a["dsk-used"], a["dsk-total"] - a["dsk-free"], "{name}");
    }
}

/// A group of four nodes, one offline with two primaries and a secondary,
/// one reporting 512 MiB in use beyond its instances: balancing moves the
/// instances off the offline node (hbal-evac's case, on numbers of its
/// own).
const EVACUATION: &str = "\
grp|uuid-g|preferred||

gone|4096|0|2048|6144|3072|32|Y|uuid-g|4
ant|4096|0|3072|6144|4096|32|N|uuid-g|4
bee|4096|0|3072|6144|2048|32|N|uuid-g|4
cat|4096|0|1536|6144|3072|32|N|uuid-g|4

web1|1024|1024|1|running|Y|gone|ant|drbd||1
web2|1024|1024|1|running|Y|gone|cat|drbd||1
db1|1024|1024|1|running|Y|bee|gone|drbd||1
db2|1024|1024|1|running|Y|ant|bee|drbd||1
mail1|1024|1024|1|running|Y|cat|bee|drbd||1
mail2|1024|1024|1|running|Y|cat|bee|drbd||1


|256,1,256,1,1,1|256,1,256,1,1,1;16384,8,65536,16,8,12|drbd,plain|4.0|32.0
grp|256,1,256,1,1,1|256,1,256,1,1,1;16384,8,65536,16,8,12|drbd,plain|4.0|32.0
";

/// hailstone-balance emptying an offline node: after the plan no node
/// is drawn bigger than it is (node `ant` was drawn of 6144 MiB) and the
/// offline node shows no memory in use (it showed 2048 MiB unaccounted).
#[test]
fn balancing_off_an_offline_node_keeps_every_node_as_it_is() {
    let dir = crate::run::scratch("report-figures-balance");
    let file = dir.join("evacuation.data");
    std::fs::write(&file, EVACUATION).unwrap();
    let page_file = dir.join("balance.html");
    let save = dir.join("state");
    let o = run(
        env!("CARGO_BIN_EXE_hailstone-balance"),
        &[
            "-t",
            file.to_str().unwrap(),
            &format!("--report={}", page_file.display()),
            &format!("-S{}", save.display()),
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("Solution length="), "{out}");
    let page = std::fs::read_to_string(&page_file).unwrap();
    let saved = std::fs::read_to_string(format!("{}.balanced", save.display())).unwrap();
    check_plan_page(&page, "grp", EVACUATION, &saved);
    // The offline node is empty after the plan: all its memory free.
    let gone = &figures(&page, "grp", "after")["gone"];
    assert_eq!((gone["mem-used"], gone["mem-free"]), (0.0, 4096.0));
}

/// Two groups: the first's two nodes fail N+1 (node `a1` reports 1 MiB
/// free), the second's are empty; the repair moves two instances into the
/// second group (hspace-groups-two's case, on numbers of its own).
const TWO_GROUPS: &str = "\
east|uuid-e|preferred||
west|uuid-w|preferred||

a1|4097|0|1|4097|1025|16|N|uuid-e|1||N|0|1
a2|4097|0|2049|4097|1025|16|N|uuid-e|1||N|0|1
b1|4097|0|4097|4097|4097|16|N|uuid-w|1||N|0|1
b2|4097|0|4097|4097|4097|16|N|uuid-w|1||N|0|1

vm0|2048|1024|1|running|Y|a1|a2|drbd||1|1
vm1|2048|1024|1|running|Y|a2|a1|drbd||1|1
vm2|2048|1024|1|running|Y|a1|a2|drbd||1|1


|512,1,512,1,1,1|512,1,512,1,1,1;4096,8,4096,16,8,12|drbd|4.0|32.0
east|512,1,512,1,1,1|512,1,512,1,1,1;4096,8,4096,16,8,12|drbd,plain|4.0|32.0
west|512,1,512,1,1,1|512,1,512,1,1,1;4096,8,4096,16,8,12|drbd,plain|4.0|32.0
";

/// hailstone-groups repair: after the plan the first group's nodes show
/// no memory in use that their instances left (they showed half their
/// memory unaccounted), and the second group's nodes keep their size
/// (`b1` was drawn of 6145 MiB).
#[test]
fn repairing_a_group_keeps_every_node_as_it_is() {
    let dir = crate::run::scratch("report-figures-groups");
    let file = dir.join("two-groups.data");
    std::fs::write(&file, TWO_GROUPS).unwrap();
    let page_file = dir.join("groups.html");
    let save = dir.join("state");
    let o = run(
        env!("CARGO_BIN_EXE_hailstone-groups"),
        &[
            "repair",
            "-t",
            file.to_str().unwrap(),
            &format!("--report={}", page_file.display()),
            &format!("-S{}", save.display()),
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("Repaired 1 of 1 unhealthy groups with 2 moves"),
        "{out}"
    );
    let page = std::fs::read_to_string(&page_file).unwrap();
    let saved = std::fs::read_to_string(format!("{}.repaired", save.display())).unwrap();
    // Each group's section has its nodes' bars; the data file's nodes
    // are checked group by group.
    for (group, names) in [("east", ["a1", "a2"]), ("west", ["b1", "b2"])] {
        let keep = |text: &str| -> String {
            let mut sections: Vec<String> = text.split("\n\n").map(str::to_owned).collect();
            sections[1] = sections[1]
                .lines()
                .filter(|l| names.iter().any(|n| l.starts_with(&format!("{n}|"))))
                .collect::<Vec<_>>()
                .join("\n");
            sections.join("\n\n")
        };
        check_plan_page(&page, group, &keep(TWO_GROUPS), &keep(&saved));
    }
    // a1 keeps one instance of 2048 MiB: 2049 MiB free, none missing.
    let a1 = &figures(&page, "east", "after")["a1"];
    assert_eq!((a1["mem-unaccounted"], a1["mem-free"]), (0.0, 2049.0));
}

/// The generated cluster of `seed` with `nodes` nodes, as a data file.
fn cluster(seed: u64, nodes: usize) -> String {
    let case = generate(&CaseSpec::multi_group(seed, nodes, 1));
    datafile::from_request(case.request.as_bytes(), &LoadOptions::default()).expect("a cluster")
}

/// Up to 60 nodes, every bar carries its node's name; above, each bar is
/// a bin of nodes (every node in one bin of each chart) and the fullest
/// and emptiest nodes are named, the fullest first.
#[test]
fn every_bar_is_named_or_binned_with_the_extremes_named() {
    let dir = crate::run::scratch("report-figures-names");
    for (seed, nodes) in [(3u64, 24usize), (4, 60), (5, 90)] {
        let text = cluster(seed, nodes);
        let file = dir.join(format!("c{nodes}.data"));
        std::fs::write(&file, &text).unwrap();
        let page_file = dir.join(format!("c{nodes}.html"));
        let o = run(
            env!("CARGO_BIN_EXE_hailstone-info"),
            &[
                "-t",
                file.to_str().unwrap(),
                &format!("--report={}", page_file.display()),
            ],
        );
        assert_eq!(o.status.code(), Some(0));
        let page = std::fs::read_to_string(&page_file).unwrap();
        let group = crate::balance::groups(&text).remove(0);
        let now = figures(&page, &group, "now");
        assert_eq!(now.len(), nodes, "{nodes} nodes");
        // The group's section: from its heading to the next section.
        let start = page
            .find(&format!("<h2>Node group {group}</h2>"))
            .expect("the group's section");
        let section = &page[start..];
        let section = &section[..section.find("</section>").unwrap()];
        let charts: Vec<&str> = section.split("<svg").skip(1).collect();
        let charts: Vec<&str> = charts
            .into_iter()
            .filter(|c| c.contains("data-node=") || c.contains("data-bin="))
            .collect();
        assert_eq!(charts.len(), 4, "{nodes} nodes: four resources");
        for chart in charts {
            let groups: Vec<BTreeMap<String, String>> = chart
                .split("<g ")
                .skip(1)
                .map(|g| attributes(&format!(" {}", &g[..g.find('>').unwrap()])))
                .collect();
            let names: Vec<String> = chart
                .split("class=\"name")
                .skip(1)
                .map(|t| unescape(&t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()]))
                .collect();
            if nodes <= 60 {
                assert_eq!(groups.len(), nodes);
                let drawn: Vec<&str> = groups.iter().map(|g| g["node"].as_str()).collect();
                let listed: Vec<&str> = now.keys().map(String::as_str).collect();
                let mut sorted = drawn.clone();
                sorted.sort_unstable();
                assert_eq!(sorted, listed, "a bar per node");
                assert_eq!(names.len(), nodes, "a name under each bar");
                for (name, node) in names.iter().zip(&drawn) {
                    let short = name.trim_end_matches('…');
                    assert!(node.starts_with(short), "{name} under {node}'s bar");
                }
            } else {
                assert!(
                    groups.len() <= 60 && groups.len() >= 30,
                    "{} bins",
                    groups.len()
                );
                let mut members: Vec<&str> =
                    groups.iter().flat_map(|g| g["nodes"].split(' ')).collect();
                members.sort_unstable();
                let listed: Vec<&str> = now.keys().map(String::as_str).collect();
                assert_eq!(members, listed, "every node in one bin");
                // The first bin's fullest node and the last bin's
                // emptiest are named under them.
                assert_eq!(names.len(), 2, "{names:?}");
                let first = groups[0]["nodes"].split(' ').next().unwrap();
                let last = groups.last().unwrap()["nodes"]
                    .split(' ')
                    .next_back()
                    .unwrap();
                assert!(first.starts_with(names[0].trim_end_matches('…')));
                assert!(last.starts_with(names[1].trim_end_matches('…')));
            }
        }
        if nodes > 60 {
            assert_eq!(
                section.matches("<p class=\"extremes\">fullest: ").count(),
                4
            );
        } else {
            assert!(!section.contains("class=\"extremes\""));
        }
    }
}
