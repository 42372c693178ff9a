//! `hailstone-squeeze`'s cautions (`--json`'s `cautions`, `--explain`'s
//! block) against what the independent plan checker (`support::plan`)
//! finds when it replays the plan: on generated multi-group clusters
//! (hsqueeze balances the whole cluster as one group, so its moves cross
//! groups) every move the checker finds into a group whose policy does not
//! allow the instance's disk template is a `policy` caution and the other
//! way round, every instance the replayed plan leaves split across groups
//! is a `split` caution and the other way round; on a hand-made cluster
//! whose forthcoming instances have their secondary on a node the plan
//! powers off, that node (which the checker finds still holding them) is
//! a `forthcoming` caution. The plan itself is hsqueeze's (the compat
//! suite holds it); `--explain` says the same as the document.

use std::collections::BTreeSet;
use std::process::Command;

use hailstone::program::hail::options::LoadOptions;
use hailstone::shell::datafile;
use hailstone_devtools::generate::{generate, CaseSpec};
use serde_json::Value;

use crate::support::plan;

/// Runs hailstone-squeeze with `args`: its stdout, its explanation
/// (`--explain` written to `explain`) and its `--report` page (written
/// beside it) of the same plan.
fn squeeze(args: &[&str], explain: &std::path::Path) -> (Value, String, String) {
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_hailstone-squeeze"))
            .args(args)
            .args(extra)
            .output()
            .expect("run hailstone-squeeze");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let doc: Value = serde_json::from_str(&run(&["--json"])).expect("a document");
    let opt = format!("--explain={}", explain.display());
    run(&[&opt]);
    let text = std::fs::read_to_string(explain).expect("the explanation");
    let page = explain.with_extension("html");
    run(&[&format!("--report={}", page.display())]);
    let page = std::fs::read_to_string(page).expect("the report");
    (doc, text, page)
}

/// The report page's cautions, unescaped: the items of its
/// `<ul class="cautions">` (none without one).
fn page_cautions(page: &str) -> Vec<String> {
    let Some(list) = page
        .split("<ul class=\"cautions\">")
        .nth(1)
        .and_then(|rest| rest.split("</ul>").next())
    else {
        return Vec::new();
    };
    list.split("<li>")
        .filter_map(|item| item.strip_suffix("</li>"))
        .map(|item| {
            item.replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&#39;", "'")
                .replace("&amp;", "&")
        })
        .collect()
}

/// The commands of the document's plan in the order `-C` prints them:
/// powering on, then the moves; or the moves, then powering off.
fn commands(doc: &Value) -> String {
    let nodes: Vec<&str> = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    let moves: Vec<String> = doc["moves"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["commands"].as_array().unwrap().clone())
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    let power = |how: &str| -> Vec<String> {
        nodes
            .iter()
            .map(|n| format!("gnt-node power -f {how} {n}"))
            .collect()
    };
    let all = match doc["decision"].as_str() {
        Some("online") => [power("on"), moves].concat(),
        Some("offline") => [moves, power("off")].concat(),
        _ => moves,
    };
    all.join("\n")
}

/// The document's cautions of `kind`, each as the fields `fields` give.
fn cautions(doc: &Value, kind: &str, fields: &[&str]) -> BTreeSet<Vec<String>> {
    doc["cautions"]
        .as_array()
        .expect("cautions")
        .iter()
        .filter(|c| c["kind"] == kind)
        .map(|c| {
            fields
                .iter()
                .map(|f| match &c[*f] {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect()
        })
        .collect()
}

/// The instances whose primary and secondary nodes are in different
/// groups.
fn split(c: &plan::Cluster) -> BTreeSet<String> {
    let group = |n: &str| c.nodes.get(n).map(|n| n.group.clone());
    c.insts
        .iter()
        .filter(|(_, i)| !i.sec.is_empty() && group(&i.pri) != group(&i.sec))
        .map(|(name, _)| name.clone())
        .collect()
}

/// Holds one run's cautions to the checker's replay of its plan; returns
/// how many cautions of each kind (policy, split, forthcoming) it had.
fn compare(at: &str, text: &str, doc: &Value, explained: &str, page: &str) -> [usize; 3] {
    let input = plan::parse(text);
    let mut replayed = input.clone();
    let violations = plan::replay(&mut replayed, &commands(doc));
    // The checker: `after `CMD`: INST (T) is on NODE, whose group does
    // not allow the template`.
    let template: BTreeSet<Vec<String>> = violations
        .iter()
        .filter(|v| v.ends_with("whose group does not allow the template"))
        .filter_map(|v| {
            let rest = v.split("`: ").nth(1)?;
            let inst = rest.split(' ').next()?;
            let node = rest.split(" is on ").nth(1)?.split(',').next()?;
            Some(vec![inst.to_owned(), node.to_owned()])
        })
        .collect();
    let policy: BTreeSet<Vec<String>> = cautions(doc, "policy", &["instance", "node", "reason"])
        .into_iter()
        .filter(|c| c[2].contains("disk template"))
        .map(|c| c[..2].to_vec())
        .collect();
    assert_eq!(
        policy, template,
        "{at}: policy cautions (left) against the checker's template refusals"
    );
    let was = split(&input);
    let left: BTreeSet<Vec<String>> = split(&replayed)
        .into_iter()
        .filter(|i| !was.contains(i))
        .map(|i| vec![i])
        .collect();
    assert_eq!(
        cautions(doc, "split", &["instance"]),
        left,
        "{at}: split cautions (left) against the replayed plan"
    );
    let held: BTreeSet<Vec<String>> = violations
        .iter()
        .filter(|v| v.contains(": the node still holds "))
        .filter_map(|v| {
            let node = v
                .strip_prefix("gnt-node power -f off ")?
                .split(':')
                .next()?;
            Some(vec![node.to_owned()])
        })
        .collect();
    let forthcoming = cautions(doc, "forthcoming", &["node"]);
    assert_eq!(
        forthcoming, held,
        "{at}: forthcoming cautions (left) against the nodes powered off still holding instances"
    );
    let all = doc["cautions"].as_array().unwrap();
    let block: Vec<&str> = explained
        .split("cautions (hsqueeze plans the same; the plan is left as it is):\n")
        .nth(1)
        .map(|b| b.lines().take_while(|l| l.starts_with("  ")).collect())
        .unwrap_or_default();
    assert_eq!(
        block.len(),
        all.len(),
        "{at}: --explain's cautions\n{explained}"
    );
    let listed: Vec<&str> = block.iter().map(|l| l.trim_start()).collect();
    assert_eq!(
        page_cautions(page),
        listed,
        "{at}: --report's cautions against --explain's"
    );
    [policy.len(), left.len(), forthcoming.len()]
}

/// A cluster whose forthcoming instances have their primary on the
/// master and their secondary on an otherwise empty node.
const FORTHCOMING: &str = "default|uuid-a|preferred||

node-a|32768|1024|31744|1048576|1048576|16|M|uuid-a|1||N|0|1|1.0
node-b|32768|1024|31744|1048576|1048576|16|N|uuid-a|1||N|0|1|1.0
node-c|32768|1024|31744|1048576|1048576|16|N|uuid-a|1||N|0|1|1.0

soon-1|256|2176|1|ADMIN_down|Y|node-a|node-b|drbd||1|-|Y
soon-2|256|2176|1|ADMIN_down|Y|node-a|node-b|drbd||1|-|Y


|128,1,1024,1,1,1|128,1,512,1,1,1;1024,8,1048576,16,8,12|drbd,plain,diskless|4.0|32.0
default|128,1,1024,1,1,1|128,1,512,1,1,1;1024,8,1048576,16,8,12|drbd,plain,diskless|4.0|32.0
";

#[test]
fn cautions_are_what_the_checker_finds() {
    let dir = crate::run::scratch("squeeze-cautions");
    let explain = dir.join("explain.txt");
    let mut seen = [0usize; 3];
    let mut plans = 0;
    for seed in 1..=40u64 {
        let nodes = 4 + (seed as usize * 7) % 20;
        let groups = 2 + (seed as usize) % 3;
        let case = generate(&CaseSpec::multi_group(seed, nodes, groups));
        let Ok(text) = datafile::from_request(case.request.as_bytes(), &LoadOptions::default())
        else {
            continue;
        };
        let file = dir.join(format!("m{seed}.data"));
        std::fs::write(&file, &text).unwrap();
        let (doc, explained, page) = squeeze(&["-t", file.to_str().unwrap()], &explain);
        plans += usize::from(!doc["moves"].as_array().unwrap().is_empty());
        let got = compare(&format!("seed {seed}"), &text, &doc, &explained, &page);
        for (s, g) in seen.iter_mut().zip(got) {
            *s += g;
        }
    }
    let file = dir.join("forthcoming.data");
    std::fs::write(&file, FORTHCOMING).unwrap();
    let (doc, explained, page) = squeeze(&["-t", file.to_str().unwrap()], &explain);
    assert_eq!(doc["decision"], "offline", "{doc}");
    let got = compare("forthcoming", FORTHCOMING, &doc, &explained, &page);
    assert_eq!(got, [0, 0, 1], "{doc}");
    assert_eq!(
        cautions(&doc, "forthcoming", &["node", "instances"]),
        BTreeSet::from([vec![
            "node-b".to_owned(),
            r#"["soon-1","soon-2"]"#.to_owned()
        ]]),
        "{doc}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        plans >= 20 && seen[0] >= 10 && seen[1] >= 10,
        "too little to prove anything: {plans} plans with moves, {seen:?} cautions"
    );
}
