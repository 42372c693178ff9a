//! `--report=FILE.html` read back: on generated clusters the page of
//! `hailstone-balance` carries the numbers of its text (the `-p` node
//! tables before and after, the scores, the moves) and the page of
//! `hailstone-squeeze` those of its decision and saved final state; the
//! normal output is the same bytes with and without `--report`; the page
//! loads nothing from anywhere and runs no script.

use std::path::Path;
use std::process::Command;

use hailstone::program::hail::options::LoadOptions;
use hailstone::shell::datafile;
use hailstone_devtools::generate::{generate, CaseSpec, RequestKind};

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

/// The cells of the page's table that starts with `opening`, row by row
/// (header row first).
fn table_rows(page: &str, opening: &str) -> Vec<Vec<String>> {
    let start = page
        .find(opening)
        .unwrap_or_else(|| panic!("no {opening} in the page"));
    let body = &page[start..];
    let body = &body[..body.find("</table>").expect("table closed")];
    body.split("<tr>").skip(1).map(cells).collect()
}

/// The contents of a row's `<td>` and `<th>` cells.
fn cells(row: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = row;
    while let Some(k) = rest.find("<t") {
        let after = &rest[k + 2..];
        let is_cell = (after.starts_with('d') || after.starts_with('h'))
            && matches!(after.as_bytes().get(1), Some(b' ' | b'>'));
        if !is_cell {
            rest = after;
            continue;
        }
        let content = &after[after.find('>').expect("cell opened") + 1..];
        let close = content.find("</t").expect("cell closed");
        out.push(unescape(&content[..close]));
        rest = &content[close..];
    }
    out
}

/// Rows (header first) as maps from column to value, without the status
/// column `F`: blank in most rows, so the text's rows lack it.
fn by_column(rows: &[Vec<String>]) -> Vec<std::collections::BTreeMap<String, String>> {
    let head = &rows[0];
    rows[1..]
        .iter()
        .map(|r| {
            let values = if r.len() == head.len() {
                &r[1..]
            } else {
                &r[..]
            };
            head[1..]
                .iter()
                .cloned()
                .zip(values.iter().cloned())
                .collect()
        })
        .collect()
}

/// A fact of the page by its key.
fn fact(page: &str, key: &str) -> String {
    let tag = format!("<dd data-key=\"{key}\">");
    let start = page.find(&tag).unwrap_or_else(|| panic!("no fact {key}")) + tag.len();
    unescape(&page[start..start + page[start..].find("</dd>").expect("fact closed")])
}

/// The rows of a `-p` table on stderr after `heading`: the columns split
/// on blanks (the names have none).
fn text_table(stderr: &str, heading: &str) -> Vec<Vec<String>> {
    let start = stderr
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading} on stderr"));
    stderr[start..]
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().map(str::to_owned).collect())
        .collect()
}

/// The generated cluster of `seed`, as a data file.
fn cluster(seed: u64, kind: RequestKind, nodes: std::ops::RangeInclusive<usize>) -> Option<String> {
    let case = generate(&CaseSpec::random(seed, kind, nodes));
    datafile::from_request(case.request.as_bytes(), &LoadOptions::default()).ok()
}

fn assert_self_contained(page: &str) {
    assert!(page.starts_with("<!DOCTYPE html>"));
    for banned in [
        "<script", "src=", "href=", "@import", "url(", "http://", "https://",
    ] {
        let hits: Vec<&str> = page
            .match_indices(banned)
            .map(|(k, _)| &page[k..(k + 60).min(page.len())])
            .filter(|s| !s.starts_with("http://www.w3.org/2000/svg"))
            .collect();
        assert!(hits.is_empty(), "{banned}: {hits:?}");
    }
}

#[test]
fn balance_pages_carry_the_texts_numbers() {
    let dir = crate::run::scratch("report-balance");
    let bin = env!("CARGO_BIN_EXE_hailstone-balance");
    let mut pages = 0;
    let mut moves = 0;
    for seed in 1..=24u64 {
        let Some(text) = cluster(seed, RequestKind::Relocate, 3..=14) else {
            continue;
        };
        let file = dir.join(format!("c{seed}.data"));
        std::fs::write(&file, &text).unwrap();
        let file = file.to_str().unwrap();
        let Some(group) = crate::balance::groups(&text).into_iter().next() else {
            continue;
        };
        let report = dir.join(format!("c{seed}.html"));
        let report_arg = format!("--report={}", report.display());
        let plain = run(bin, &["-t", file, "-G", &group, "-p", "-C"]);
        let with = run(bin, &["-t", file, "-G", &group, "-p", "-C", &report_arg]);
        assert_eq!(plain.status.code(), with.status.code(), "seed {seed}");
        assert_eq!(plain.stdout, with.stdout, "seed {seed}: stdout changed");
        if plain.status.code() != Some(0) {
            assert!(!report.exists(), "seed {seed}: a page of a failed run");
            continue;
        }
        let out = String::from_utf8_lossy(&with.stdout);
        let err = String::from_utf8_lossy(&with.stderr);
        let page = std::fs::read_to_string(&report).expect("the page");
        assert_self_contained(&page);
        pages += 1;
        // Scores and moves.
        let initial = out
            .lines()
            .find_map(|l| l.strip_prefix("Initial score: "))
            .expect("initial score");
        assert_eq!(fact(&page, "initial-score"), initial, "seed {seed}");
        let steps = out
            .lines()
            .filter(|l| {
                l.trim_start()
                    .split_once(". ")
                    .is_some_and(|(n, _)| n.parse::<usize>().is_ok())
            })
            .count();
        assert_eq!(fact(&page, "moves"), steps.to_string(), "seed {seed}");
        moves += steps;
        if let Some(l) = out
            .lines()
            .find(|l| l.starts_with("Cluster score improved from"))
        {
            let fin = l.rsplit(' ').next().unwrap();
            assert_eq!(fact(&page, "final-score"), fin, "seed {seed}");
        }
        // The node tables: the text's columns are a superset of the page's.
        for (heading, when) in [
            ("Initial cluster status:", "before"),
            ("Final cluster status:", "after"),
        ] {
            if when == "after" && steps == 0 && !err.contains(heading) {
                continue;
            }
            let text_rows = by_column(&text_table(&err, heading));
            let opening = format!("<table class=\"numbers\" data-when=\"{when}\">");
            let page_rows = by_column(&table_rows(&page, &opening));
            assert_eq!(text_rows.len(), page_rows.len(), "seed {seed} {when}: rows");
            for (t, p) in text_rows.iter().zip(&page_rows) {
                assert!(p.len() >= 12, "seed {seed}: {p:?}");
                for (col, value) in p {
                    if let Some(text) = t.get(col) {
                        assert_eq!(text, value, "seed {seed} {when} {col}");
                    }
                }
            }
        }
        // The moves table has one row per step.
        if steps > 0 {
            let rows = table_rows(&page, "<table class=\"moves\">");
            assert_eq!(rows.len() - 1, steps, "seed {seed}");
        }
    }
    assert!(pages >= 15 && moves >= 20, "{pages} pages, {moves} moves");
}

/// A squeeze page's decision and switched nodes are the text's, and its
/// numbers after the plan are the saved final state's.
#[test]
fn squeeze_pages_carry_the_decision_and_the_final_state() {
    let dir = crate::run::scratch("report-squeeze");
    let bin = env!("CARGO_BIN_EXE_hailstone-squeeze");
    let (mut offline, mut online) = (0, 0);
    for seed in 1..=32u64 {
        let Some(text) = cluster(seed, RequestKind::Relocate, 3..=10) else {
            continue;
        };
        let file = dir.join(format!("s{seed}.data"));
        std::fs::write(&file, &text).unwrap();
        let file = file.to_str().unwrap();
        let report = dir.join(format!("s{seed}.html"));
        let save = dir.join(format!("s{seed}"));
        let report_arg = format!("--report={}", report.display());
        let save_arg = format!("-S{}", save.display());
        let plain = run(bin, &["-t", file, "-C"]);
        let with = run(bin, &["-t", file, "-C", &report_arg, &save_arg]);
        assert_eq!(plain.stdout, with.stdout, "seed {seed}: stdout changed");
        if plain.status.code() != Some(0) {
            continue;
        }
        let out = String::from_utf8_lossy(&with.stdout);
        let page = std::fs::read_to_string(&report).expect("the page");
        assert_self_contained(&page);
        // The decision's heading (quoted), then the nodes, one a line.
        let mut lines = out.lines();
        let heading = lines.next().unwrap_or("");
        let listed: Vec<&str> = lines.take_while(|l| !l.is_empty()).map(str::trim).collect();
        let decision = fact(&page, "decision");
        if heading.contains("Nodes to offline") {
            assert_eq!(decision, "offline");
            offline += 1;
        } else if heading.contains("No action") {
            assert_eq!(decision, "no-action");
        } else {
            assert_eq!(decision, "online", "{heading}");
            online += 1;
        }
        assert_eq!(
            fact(&page, "switched"),
            listed.len().to_string(),
            "seed {seed}"
        );
        for n in &listed {
            assert!(page.contains(&format!("<li>{n}</li>")), "seed {seed}: {n}");
        }
        // The final state's memory and status, by node, against the page.
        let saved = std::fs::read_to_string(format!("{}.squeezed", save.display())).unwrap();
        let nodes: Vec<Vec<&str>> = saved
            .split("\n\n")
            .nth(1)
            .unwrap_or("")
            .lines()
            .map(|l| l.split('|').collect())
            .collect();
        let rows = table_rows(&page, "<table class=\"numbers\" data-when=\"after\">");
        let head = &rows[0];
        let col = |name: &str| head.iter().position(|h| h == name).unwrap();
        assert_eq!(rows.len() - 1, nodes.len(), "seed {seed}");
        for (row, node) in rows.iter().skip(1).zip(&nodes) {
            assert!(
                node[0].starts_with(row[col("Name")].as_str()),
                "seed {seed}"
            );
            assert_eq!(row[col("t_mem")], node[1], "seed {seed} t_mem");
            assert_eq!(row[col("n_mem")], node[2], "seed {seed} n_mem");
            assert_eq!(row[col("f_mem")], node[3], "seed {seed} f_mem");
            let offline = row[col("F")] == "-";
            assert_eq!(offline, node[7] == "Y", "seed {seed} {}: offline", node[0]);
        }
    }
    assert!(
        offline >= 3 && online >= 3,
        "{offline} clusters powered nodes off, {online} on"
    );
}

/// A page that cannot be written is an error after the normal output,
/// exit status 1.
#[test]
fn an_unwritable_page_is_an_error() {
    let dir = crate::run::scratch("report-unwritable");
    let text = cluster(3, RequestKind::Relocate, 4..=6).expect("a cluster");
    let file = dir.join("c.data");
    std::fs::write(&file, &text).unwrap();
    let group = crate::balance::groups(&text).remove(0);
    let missing = Path::new("/nonexistent-dir/r.html");
    let o = run(
        env!("CARGO_BIN_EXE_hailstone-balance"),
        &[
            "-t",
            file.to_str().unwrap(),
            "-G",
            &group,
            &format!("--report={}", missing.display()),
        ],
    );
    // Refused before the run: a usage error that says why.
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err,
        "Error: option --report: cannot write /nonexistent-dir/r.html: the folder /nonexistent-dir does not exist; give a FILE in an existing folder\nsee hailstone-balance --help\n"
    );
    assert!(o.stdout.is_empty());
    // A page that cannot be written at the end (no file can be made in
    // /proc, even by root): the run could not finish (exit status 1).
    let o = run(
        env!("CARGO_BIN_EXE_hailstone-balance"),
        &[
            "-t",
            file.to_str().unwrap(),
            "-G",
            &group,
            "--report=/proc/r.html",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("Error: cannot write the report to /proc/r.html: "),
        "{err}"
    );
}

/// The pages open in a real browser: headless Chromium (`HAILSTONE_CHROMIUM`,
/// which `make test` sets, installing Debian's chromium when missing)
/// parses every chart, logs nothing to the console and draws a screenshot
/// of some size; one balance page has one bar per node, another bins 150
/// nodes; a squeeze page; a space page of both models; the pages of
/// hailstone-check, hailstone-info and hailstone-groups. The summary at
/// the top of each page, as the browser reads it, says what the
/// program's text says (the moves and scores of a plan, the nodes
/// switched, the instances that fit, whether the cluster needs
/// rebalancing, the cluster's size).
#[test]
fn pages_render_in_a_browser() {
    let Some(chromium) = std::env::var_os("HAILSTONE_CHROMIUM") else {
        eprintln!("skipped: HAILSTONE_CHROMIUM is not set (make test sets it)");
        return;
    };
    let dir = crate::run::scratch("report-browser");
    let cases = [
        ("balance", 5u64, 30..=40usize, "hailstone-balance"),
        ("binned", 6, 150..=150, "hailstone-balance"),
        ("squeeze", 7, 8..=12, "hailstone-squeeze"),
        ("space", 8, 10..=20, "hailstone-space"),
        ("check", 9, 10..=20, "hailstone-check"),
        ("info", 10, 10..=20, "hailstone-info"),
        ("groups", 11, 10..=20, "hailstone-groups"),
    ];
    for (name, seed, nodes, program) in cases {
        let text = cluster(seed, RequestKind::Relocate, nodes).expect("a cluster");
        let file = dir.join(format!("{name}.data"));
        std::fs::write(&file, &text).unwrap();
        let page = dir.join(format!("{name}.html"));
        let mut args = vec![
            "-t".to_owned(),
            file.display().to_string(),
            format!("--report={}", page.display()),
        ];
        match program {
            "hailstone-balance" => args.extend([
                "-G".to_owned(),
                crate::balance::groups(&text).remove(0),
                "-l".to_owned(),
                "20".to_owned(),
            ]),
            "hailstone-space" => args.push("--allocator-model".to_owned()),
            "hailstone-groups" => args.insert(0, "balance".to_owned()),
            _ => {}
        }
        let bin = match program {
            "hailstone-balance" => env!("CARGO_BIN_EXE_hailstone-balance"),
            "hailstone-space" => env!("CARGO_BIN_EXE_hailstone-space"),
            "hailstone-check" => env!("CARGO_BIN_EXE_hailstone-check"),
            "hailstone-info" => env!("CARGO_BIN_EXE_hailstone-info"),
            "hailstone-groups" => env!("CARGO_BIN_EXE_hailstone-groups"),
            _ => env!("CARGO_BIN_EXE_hailstone-squeeze"),
        };
        let o = Command::new(bin).args(&args).output().unwrap();
        let o_text = o.stdout.clone();
        // hailstone-check exits 1 when the cluster needs rebalancing.
        let expected = if program == "hailstone-check" {
            o.status.code()
        } else {
            Some(0)
        };
        assert_eq!(
            o.status.code(),
            expected,
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(page.exists(), "{name}: no page");
        let html = std::fs::read_to_string(&page).unwrap();
        let shot = dir.join(format!("{name}.png"));
        let url = format!("file://{}", page.display());
        let browser = |extra: &[String]| {
            Command::new(&chromium)
                .args([
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--hide-scrollbars",
                ])
                .args([
                    "--enable-logging=stderr",
                    "--v=0",
                    "--window-size=1300,1600",
                ])
                .args(extra)
                .arg(&url)
                .output()
                .expect("run chromium")
        };
        let o = browser(&[format!("--screenshot={}", shot.display())]);
        let log = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{name}: chromium failed: {log}");
        for word in ["CONSOLE", "Uncaught", "SyntaxError"] {
            assert!(
                !log.contains(word),
                "{name}: the browser logged {word}: {log}"
            );
        }
        let png = std::fs::read(&shot).expect("the screenshot");
        assert!(png.starts_with(b"\x89PNG"), "{name}: not a PNG");
        assert!(
            png.len() > 30_000,
            "{name}: a screenshot of {} bytes",
            png.len()
        );
        // The browser's document has every chart of the page.
        let o = browser(&["--dump-dom".to_owned()]);
        let dom = String::from_utf8_lossy(&o.stdout);
        let charts = html.matches("<svg").count();
        assert!(charts >= 4, "{name}: {charts} charts");
        assert_eq!(
            dom.matches("<svg").count(),
            charts,
            "{name}: charts lost in parsing"
        );
        assert_eq!(
            dom.matches("<rect").count(),
            html.matches("<rect").count(),
            "{name}"
        );
        // The summary the browser shows says what the program's text says.
        let text = String::from_utf8_lossy(&o_text).into_owned();
        check_summary(name, &dom, &text);
    }
}

/// The phrases of the summary at the top of a page, as a browser's
/// document has them: key (without `summary-`) to its attributes and
/// its text.
fn summary_phrases(
    dom: &str,
) -> std::collections::BTreeMap<String, (std::collections::BTreeMap<String, String>, String)> {
    let start = dom
        .find("<div class=\"summary\" data-key=\"summary\">")
        .expect("a summary at the top");
    assert!(
        start < dom.find("<h2>").unwrap_or(dom.len()),
        "the summary first"
    );
    let body = &dom[start..];
    let body = &body[..body.find("</div>").expect("summary closed")];
    body.split("<span ")
        .skip(1)
        .map(|span| {
            let tag = &span[..span.find('>').unwrap()];
            let text = unescape(&span[tag.len() + 1..span.find("</span>").unwrap()]);
            let mut attributes = std::collections::BTreeMap::new();
            for attribute in tag.split("\" ") {
                let (k, v) = attribute.split_once("=\"").expect("an attribute");
                attributes.insert(k.trim().to_owned(), unescape(v.trim_end_matches('"')));
            }
            let key = attributes["data-key"]
                .strip_prefix("summary-")
                .expect("a summary key")
                .to_owned();
            (key, (attributes, text))
        })
        .collect()
}

/// `shown`, a number of the summary, is `exact` to three significant
/// digits.
fn close_to(shown: &str, exact: &str) -> bool {
    let (shown, exact): (f64, f64) = (shown.parse().unwrap(), exact.parse().unwrap());
    (shown - exact).abs() <= exact.abs() * 0.005 + 1e-8
}

/// The numbers written in a phrase's text, in order.
fn numbers_in(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter(|w| w.chars().any(|c| c.is_ascii_digit()))
        .map(|w| w.trim_matches('.').to_owned())
        .collect()
}

/// The step lines of a plan's text ("  1. inst ...").
fn step_lines(text: &str) -> usize {
    text.lines()
        .filter(|l| {
            l.trim_start()
                .split_once(". ")
                .is_some_and(|(n, _)| n.parse::<usize>().is_ok())
        })
        .count()
}

/// The summary of page `name` against its program's text.
fn check_summary(name: &str, dom: &str, text: &str) {
    let phrases = summary_phrases(dom);
    let value = |key: &str| -> String {
        let (a, _) = phrases
            .get(key)
            .unwrap_or_else(|| panic!("{name}: no summary-{key} in {phrases:?}"));
        a["data-value"].clone()
    };
    match name {
        "balance" | "binned" | "groups" => {
            let steps = step_lines(text);
            assert_eq!(value("moves"), steps.to_string(), "{name}: moves");
            let (_, said) = &phrases["moves"];
            assert!(
                said == &format!("{steps} moves") || said == "1 move" || said == "No move",
                "{name}: {said}"
            );
        }
        _ => {}
    }
    match name {
        "balance" | "binned" => {
            let initial = text
                .lines()
                .find_map(|l| l.strip_prefix("Initial score: "))
                .expect("the initial score");
            let fin = text
                .lines()
                .find(|l| l.starts_with("Cluster score improved from"))
                .map_or(initial, |l| l.rsplit(' ').next().unwrap());
            let (a, said) = &phrases["score"];
            assert_eq!(
                (a["data-before"].as_str(), a["data-after"].as_str()),
                (initial, fin)
            );
            let shown = numbers_in(said);
            assert!(close_to(&shown[0], initial), "{name}: {said} {initial}");
            assert!(close_to(shown.last().unwrap(), fin), "{name}: {said} {fin}");
            let bad = text
                .lines()
                .find_map(|l| l.strip_prefix("Initial check done: "))
                .and_then(|l| l.split(' ').next())
                .expect("the initial check");
            assert_eq!(phrases["n1"].0["data-before"], bad, "{name}: N+1");
        }
        "squeeze" => {
            let listed = text.lines().skip(1).take_while(|l| !l.is_empty()).count();
            assert_eq!(value("switched"), listed.to_string(), "{name}");
        }
        "space" => {
            for (phase, heading) in [
                ("tiered", "Tiered allocation results:"),
                ("standard", "Normal (fixed-size) allocation results:"),
            ] {
                let (placed, _, _) = space_phase(text, heading);
                assert_eq!(value(&format!("allocator-{phase}")), placed.to_string());
                // hspace's own count beside, or why it failed.
                assert!(
                    phrases.contains_key(&format!("hspace-{phase}"))
                        || phrases.contains_key("hspace-failed"),
                    "{phrases:?}"
                );
            }
        }
        "check" => {
            let needs = if text.contains("Cluster needs rebalancing") {
                "yes"
            } else {
                "no"
            };
            assert_eq!(value("rebalance"), needs, "{name}");
        }
        "info" => {
            let loaded: Vec<&str> = text
                .lines()
                .find(|l| l.starts_with("Loaded ") && l.contains(" nodes"))
                .expect("the size")
                .split(' ')
                .collect();
            assert_eq!(value("nodes"), loaded[1], "{name}");
            assert_eq!(value("instances"), loaded[3], "{name}");
        }
        _ => {}
    }
}

/// The text's figures of one phase: instances placed, the usage
/// efficiencies (name, percent) and the most likely failure reason.
fn space_phase(text: &str, heading: &str) -> (usize, Vec<(String, String)>, String) {
    let start = text.find(heading).unwrap_or_else(|| panic!("no {heading}"));
    let mut placed = 0;
    let mut efficiency = Vec::new();
    let mut reason = String::new();
    for line in text[start..].lines().skip(1) {
        let Some(item) = line.strip_prefix("  - ") else {
            break;
        };
        let item = item.trim();
        if let Some((n, rest)) = item.split_once(' ') {
            if rest.starts_with("instances") {
                placed += n.parse::<usize>().unwrap_or(0);
            }
        }
        if let Some(r) = item.strip_prefix("most likely failure reason: ") {
            reason = r.to_owned();
        }
        if let Some((name, value)) = item.split_once(" usage efficiency: ") {
            efficiency.push((name.trim().to_owned(), value.trim().to_owned()));
        }
    }
    (placed, efficiency, reason)
}

/// A space page's counts, usage efficiencies after each phase and main
/// refusal are the text's; with --allocator-model it also carries
/// hspace's count, the same as a run without it.
#[test]
fn space_pages_carry_the_counts_and_the_efficiencies() {
    let dir = crate::run::scratch("report-space");
    let bin = env!("CARGO_BIN_EXE_hailstone-space");
    let mut pages = 0;
    let mut placed_total = 0;
    for seed in 1..=12u64 {
        let Some(text) = cluster(seed, RequestKind::Allocate, 3..=12) else {
            continue;
        };
        let file = dir.join(format!("p{seed}.data"));
        std::fs::write(&file, &text).unwrap();
        let file = file.to_str().unwrap();
        let template = ["drbd", "plain", "diskless", "file"][seed as usize % 4];
        let template_arg = format!("--disk-template={template}");
        let mut texts = Vec::new();
        for model in ["hspace", "allocator"] {
            let report = dir.join(format!("p{seed}-{model}.html"));
            let report_arg = format!("--report={}", report.display());
            // A smaller tiered start than the policy's largest instance: the
            // allocator model's tiered search of a cluster that takes
            // nothing shrinks through every size (a minute in debug).
            let mut args = vec![
                "-t",
                file,
                "-l",
                "60",
                "--tiered-alloc=102400,8192,4",
                template_arg.as_str(),
            ];
            if model == "allocator" {
                args.push("--allocator-model");
            }
            let plain = run(bin, &args);
            args.push(&report_arg);
            let with = run(bin, &args);
            assert_eq!(
                plain.stdout, with.stdout,
                "seed {seed} {model}: stdout changed"
            );
            assert_eq!(plain.status.code(), with.status.code());
            if plain.status.code() != Some(0) {
                assert!(!report.exists());
                break;
            }
            let out = String::from_utf8_lossy(&with.stdout).into_owned();
            let page = std::fs::read_to_string(&report).expect("the page");
            assert_self_contained(&page);
            pages += 1;
            for (phase, heading) in [
                ("tiered", "Tiered allocation results:"),
                ("standard", "Normal (fixed-size) allocation results:"),
            ] {
                let (placed, efficiency, reason) = space_phase(&out, heading);
                let key = format!("{model}-{phase}");
                assert_eq!(fact(&page, &key), placed.to_string(), "seed {seed} {key}");
                placed_total += placed;
                let rows = table_rows(&page, &format!("data-key=\"{key}-efficiency\""));
                assert_eq!(rows.len() - 1, efficiency.len(), "seed {seed} {key}");
                for (row, (name, value)) in rows[1..].iter().zip(&efficiency) {
                    assert_eq!(&row[0], name, "seed {seed} {key}");
                    assert_eq!(&row[2], value, "seed {seed} {key} {name}");
                }
                let stop_tag = format!("<strong data-key=\"{key}-stop\">");
                let stop = &page[page.find(&stop_tag).expect("the stop") + stop_tag.len()..];
                let stop = &stop[..stop.find('<').unwrap()];
                assert!(
                    stop == reason || stop == "none",
                    "seed {seed} {key}: {stop} {reason}"
                );
            }
            texts.push((out, page));
        }
        // The allocator model's page carries hspace's count as it is.
        if let [(hspace_text, _), (_, allocator_page)] = &texts[..] {
            for (phase, heading) in [
                ("tiered", "Tiered allocation results:"),
                ("standard", "Normal (fixed-size) allocation results:"),
            ] {
                let (placed, _, _) = space_phase(hspace_text, heading);
                assert_eq!(
                    fact(allocator_page, &format!("hspace-{phase}")),
                    placed.to_string(),
                    "seed {seed} {phase}"
                );
            }
        }
    }
    assert!(
        pages >= 12 && placed_total >= 150,
        "{pages} pages, {placed_total} placed"
    );
}

/// The counts of each group in the text of hailstone-check: group name
/// and phase ("initially", "after rebalancing") to the numbers in order.
fn check_counts(text: &str) -> std::collections::BTreeMap<(String, String), Vec<String>> {
    let mut out = std::collections::BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix("Statistics for group ") else {
            continue;
        };
        let (group, phase) = rest
            .split_once(' ')
            .unwrap_or_else(|| panic!("a heading: {line}"));
        let numbers = lines
            .by_ref()
            .take_while(|l| !l.is_empty())
            .filter(|l| !l.trim_start().starts_with("Group score") && l.contains(": "))
            .filter(|l| !l.contains("cannot be evacuated"))
            .map(|l| l.rsplit(": ").next().unwrap().to_owned())
            .collect();
        out.insert((group.to_owned(), phase.to_owned()), numbers);
    }
    out
}

/// A check page's counts are the text's, group by group and phase by
/// phase; with --true-counts every node the text names as not evacuable
/// is on the page with the same instance.
#[test]
fn check_pages_carry_the_counts_and_the_unhealthy_nodes() {
    let dir = crate::run::scratch("report-check");
    let bin = env!("CARGO_BIN_EXE_hailstone-check");
    let (mut pages, mut unhealthy, mut blockers) = (0, 0, 0);
    for seed in 1..=12u64 {
        let case = generate(&CaseSpec::multi_group(seed, 8 + seed as usize, 3));
        let Ok(text) = datafile::from_request(case.request.as_bytes(), &LoadOptions::default())
        else {
            continue;
        };
        let file = dir.join(format!("k{seed}.data"));
        std::fs::write(&file, &text).unwrap();
        let file = file.to_str().unwrap();
        for extra in [&[][..], &["--true-counts", "-v"][..]] {
            let report = dir.join(format!("k{seed}-{}.html", extra.len()));
            let report_arg = format!("--report={}", report.display());
            let mut args = vec!["-t", file];
            args.extend_from_slice(extra);
            let plain = run(bin, &args);
            args.push(&report_arg);
            let with = run(bin, &args);
            assert_eq!(plain.stdout, with.stdout, "seed {seed}: stdout changed");
            assert_eq!(plain.status.code(), with.status.code(), "seed {seed}");
            if !plain.stderr.is_empty() && plain.stdout.is_empty() {
                continue;
            }
            let out = String::from_utf8_lossy(&with.stdout).into_owned();
            let page = std::fs::read_to_string(&report).expect("the page");
            assert_self_contained(&page);
            pages += 1;
            assert_eq!(
                fact(&page, "need-rebalance"),
                if out.contains("Cluster needs rebalancing") {
                    "yes"
                } else {
                    "no"
                },
                "seed {seed}"
            );
            for ((group, phase), numbers) in check_counts(&out) {
                let rows = table_rows(
                    &page,
                    &format!("<table class=\"counts\" data-group=\"{group}\">"),
                );
                let column = if phase == "initially" { 2 } else { 3 };
                let page_numbers: Vec<String> =
                    rows[1..].iter().map(|r| r[column].clone()).collect();
                assert_eq!(page_numbers, numbers, "seed {seed} {group} {phase}");
            }
            unhealthy += fact(&page, "unhealthy").parse::<usize>().unwrap();
            // --true-counts -v names each node that cannot be evacuated.
            for line in out.lines() {
                let Some((node, why)) = line
                    .trim()
                    .strip_prefix("Node ")
                    .and_then(|l| l.split_once(" cannot be evacuated"))
                else {
                    continue;
                };
                let expected = format!("cannot be evacuated{why}");
                let found = page.split("<tr>").any(|row| {
                    let c = cells(row);
                    c.len() == 2 && c[0] == node && c[1].contains(&expected)
                });
                assert!(found, "seed {seed}: {node} {expected}");
                blockers += 1;
            }
        }
    }
    assert!(
        pages >= 20 && unhealthy >= 5 && blockers >= 3,
        "{pages} pages, {unhealthy} unhealthy nodes, {blockers} not evacuable"
    );
}

/// An info page's size, group table, score and components are the text's
/// (`-v -v`: hinfo's group table).
#[test]
fn info_pages_carry_the_groups_and_the_score() {
    let dir = crate::run::scratch("report-info");
    let bin = env!("CARGO_BIN_EXE_hailstone-info");
    let mut groups = 0;
    for seed in 1..=8u64 {
        let case = generate(&CaseSpec::multi_group(
            seed,
            6 + seed as usize,
            1 + seed as usize % 4,
        ));
        let Ok(text) = datafile::from_request(case.request.as_bytes(), &LoadOptions::default())
        else {
            continue;
        };
        let file = dir.join(format!("i{seed}.data"));
        std::fs::write(&file, &text).unwrap();
        let file = file.to_str().unwrap();
        let report = dir.join(format!("i{seed}.html"));
        let report_arg = format!("--report={}", report.display());
        let plain = run(bin, &["-t", file, "-v", "-v"]);
        let with = run(bin, &["-t", file, "-v", "-v", &report_arg]);
        assert_eq!(plain.stdout, with.stdout, "seed {seed}: stdout changed");
        assert_eq!(with.status.code(), Some(0), "seed {seed}");
        let out = String::from_utf8_lossy(&with.stdout).into_owned();
        let page = std::fs::read_to_string(&report).expect("the page");
        assert_self_contained(&page);
        let loaded: Vec<&str> = out
            .lines()
            .find(|l| l.starts_with("Loaded ") && l.contains(" nodes"))
            .expect("the size")
            .split(' ')
            .collect();
        assert_eq!(fact(&page, "nodes"), loaded[1], "seed {seed}");
        assert_eq!(fact(&page, "instances"), loaded[3], "seed {seed}");
        let score = out
            .lines()
            .find_map(|l| l.strip_prefix("Cluster score: "))
            .expect("the score");
        assert_eq!(fact(&page, "score"), score, "seed {seed}");
        // The group table: name, nodes, instances, bad nodes, bad
        // instances, score (the text's N+1 column aside).
        let text_groups: Vec<Vec<String>> = out
            .lines()
            .skip_while(|l| !l.starts_with("Node group information:"))
            .skip(2)
            .take_while(|l| l.starts_with("   "))
            .map(|l| {
                let c: Vec<String> = l.split_whitespace().map(str::to_owned).collect();
                vec![
                    c[0].clone(),
                    c[1].clone(),
                    c[2].clone(),
                    c[3].clone(),
                    c[4].clone(),
                    c[6].clone(),
                ]
            })
            .collect();
        let page_groups = table_rows(&page, "<table class=\"groups\">");
        assert_eq!(&page_groups[1..], &text_groups[..], "seed {seed}");
        groups += text_groups.len();
        // The components: name and value.
        let text_components: Vec<(String, String)> = out
            .lines()
            .skip_while(|l| !l.starts_with("Cluster coefficients:"))
            .skip(2)
            .take_while(|l| l.starts_with("   "))
            .map(|l| {
                let c: Vec<&str> = l.split_whitespace().collect();
                (c[0].to_owned(), c[1].to_owned())
            })
            .collect();
        let page_components: Vec<(String, String)> =
            table_rows(&page, "<table class=\"components\">")[1..]
                .iter()
                .map(|r| (r[0].clone(), r[2].clone()))
                .collect();
        assert_eq!(page_components, text_components, "seed {seed}");
        assert!(text_components.len() >= 10);
    }
    assert!(groups >= 12, "{groups} groups");
}

/// A groups page carries the report as printed, one move row per move of
/// the plan, the instances of every group summing to the cluster's before
/// and after, and a balanced group's final score.
#[test]
fn groups_pages_carry_the_report_and_the_moves() {
    let dir = crate::run::scratch("report-groups");
    let bin = env!("CARGO_BIN_EXE_hailstone-groups");
    let (mut pages, mut moves) = (0, 0);
    for seed in 1..=10u64 {
        let case = generate(&CaseSpec::multi_group(seed, 20 + seed as usize, 4));
        let Ok(text) = datafile::from_request(case.request.as_bytes(), &LoadOptions::default())
        else {
            continue;
        };
        let file = dir.join(format!("g{seed}.data"));
        std::fs::write(&file, &text).unwrap();
        let file = file.to_str().unwrap();
        for op in ["check", "repair", "compress", "balance"] {
            let report = dir.join(format!("g{seed}-{op}.html"));
            let report_arg = format!("--report={}", report.display());
            let mut args = vec![op, "-t", file];
            if op == "compress" {
                args.push("--evacuate");
            }
            let plain = run(bin, &args);
            args.push(&report_arg);
            let with = run(bin, &args);
            assert_eq!(
                plain.stdout, with.stdout,
                "seed {seed} {op}: stdout changed"
            );
            assert_eq!(plain.status.code(), with.status.code(), "seed {seed} {op}");
            if plain.stdout.is_empty() {
                continue;
            }
            let out = String::from_utf8_lossy(&with.stdout).into_owned();
            let page = std::fs::read_to_string(&report).expect("the page");
            assert_self_contained(&page);
            pages += 1;
            let said = &page[page.find("<pre class=\"said\">").expect("the report") + 18..];
            assert_eq!(
                unescape(&said[..said.find("</pre>").unwrap()]),
                out,
                "seed {seed} {op}"
            );
            let planned = match op {
                "repair" => out
                    .lines()
                    .find_map(|l| l.strip_prefix("Repaired "))
                    .and_then(|l| l.rsplit(" with ").next())
                    .and_then(|l| l.split(' ').next())
                    .map_or(0, |n| n.parse::<usize>().unwrap()),
                "balance" => out
                    .lines()
                    .filter(|l| {
                        l.trim_start()
                            .split_once(". ")
                            .is_some_and(|(n, _)| n.parse::<usize>().is_ok())
                    })
                    .count(),
                _ => fact(&page, "moves").parse().unwrap(),
            };
            assert_eq!(
                fact(&page, "moves"),
                planned.to_string(),
                "seed {seed} {op}"
            );
            let groups = table_rows(&page, "<table class=\"groups\">");
            if planned > 0 {
                assert_eq!(
                    table_rows(&page, "<table class=\"moves\">").len() - 1,
                    planned
                );
                let sum = |col: usize| -> usize {
                    groups[1..]
                        .iter()
                        .map(|r| r[col].parse::<usize>().unwrap())
                        .sum()
                };
                assert_eq!(sum(2), sum(4), "seed {seed} {op}: instances lost or made");
                moves += planned;
            }
            if let Some(line) = out
                .lines()
                .find(|l| l.starts_with("Group score improved from"))
            {
                let fin = line.rsplit(' ').next().unwrap();
                let balanced = out
                    .lines()
                    .find_map(|l| l.strip_prefix("Balancing group "))
                    .and_then(|l| l.strip_suffix(':'))
                    .expect("the balanced group");
                let row = groups.iter().find(|r| r[0] == balanced).expect("its row");
                assert_eq!(row[5], fin, "seed {seed}");
            }
        }
    }
    assert!(pages >= 30 && moves >= 20, "{pages} pages, {moves} moves");
}
