//! The two cost facts at the top of the `--report` pages of
//! `hailstone-balance`, `hailstone-squeeze` and `hailstone-groups`
//! (`<dd data-key="disk-copied">` and `<dd data-key="estimated-time">`)
//! read back and held to the plan's cost recomputed from the same run's
//! `-C` commands ([`super::cost::plan_totals`], the planners' code not
//! used), written here as the text writes sizes and times: a size in MiB
//! below 1 GiB (`512 MiB`), else in GiB with one decimal below 1 TiB
//! (`3.5 GiB`), else in TiB with two (`1.18 TiB`); a time rounded to the
//! second, in seconds below a minute (`40 s`), in minutes and seconds
//! below an hour (`12 min 5 s`), else in hours and minutes (`3 h 20 min`).
//! `hailstone-groups check` plans nothing: its page has neither fact.

use std::path::Path;

use crate::support::plan;

use super::cost::{plan_totals, rates_for, rates_of, GivenRates};
use super::report::unescape;
use super::{read, run, Case, Findings};

/// A size given in MiB as the pages write it.
fn size_words(mib: i64) -> String {
    const GIB: i64 = 1024;
    const TIB: i64 = 1024 * 1024;
    if mib.abs() < GIB {
        format!("{mib} MiB")
    } else if mib.abs() < TIB {
        format!("{:.1} GiB", mib as f64 / GIB as f64)
    } else {
        format!("{:.2} TiB", mib as f64 / TIB as f64)
    }
}

/// A time given in whole seconds as the pages write it.
fn duration_words(s: u64) -> String {
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

/// The ways a time of `seconds` may be written: rounded to the second,
/// either way when the recomputed time is within a microsecond of half a
/// second (the planners add the same times in another order).
fn durations(seconds: f64) -> Vec<String> {
    let mut out: Vec<String> = [seconds - 1e-6, seconds + 1e-6]
        .iter()
        .map(|s| duration_words(s.round().max(0.0) as u64))
        .collect();
    out.dedup();
    out
}

/// The values of the facts named `key` at the top of `page`.
fn facts(page: &str, key: &str) -> Vec<String> {
    let Some(dl) = page
        .split("<dl class=\"facts\">")
        .nth(1)
        .and_then(|d| d.split("</dl>").next())
    else {
        return Vec::new();
    };
    dl.split(&format!("<dd data-key=\"{key}\">"))
        .skip(1)
        .map(|v| unescape(v.split("</dd>").next().unwrap_or("")))
        .collect()
}

/// The one fact named `key` of `page`, or a fault at `at`.
fn one_fact(f: &mut Findings, at: &str, page: &str, key: &str) -> Option<String> {
    let mut found = facts(page, key);
    if found.len() == 1 {
        found.pop()
    } else {
        f.fault(at, format!("{} facts {key} on the page", found.len()));
        None
    }
}

/// Runs `program` with `args`, `-C` and `--report` (a page in `dir`
/// named `name`) and holds the page's two cost facts to the plan of
/// `-C`'s text recomputed on the input of `case`.
fn check_page(
    f: &mut Findings,
    dir: &Path,
    name: &str,
    case: &Case,
    program: &str,
    args: &[&str],
    rates: GivenRates,
) {
    let page_path = dir.join(format!("{name}.html"));
    let page_arg = format!("--report={}", page_path.to_str().expect("a path"));
    let (given, resync, migration) = rates_of(rates);
    let all = [args, &given, &["-C", page_arg.as_str()]].concat();
    let at = format!("{program} {}", all.join(" "));
    let text = run(program, &all);
    if text.code != 0 {
        // Refused, or stopped after part of its text: no plan to hold.
        f.count("refused");
        return;
    }
    let Some(page) = read(&page_path) else {
        if text.stdout.contains("Cluster is empty") {
            f.count("empty");
        } else {
            f.fault(&at, "no report page".to_owned());
        }
        return;
    };
    f.count("pages");
    let input = plan::parse(&case.text);
    let totals = plan_totals(f, &at, &input, &text.stdout, (resync, migration));
    if totals.disk_mib() > 0 {
        f.count("pages copying disk data");
    }
    if let Some(disk) = one_fact(f, &at, &page, "disk-copied") {
        f.same(&at, "disk data copied", disk, size_words(totals.disk_mib()));
    }
    if totals.seconds() >= 60.0 {
        f.count("times of a minute or more");
    }
    if let Some(time) = one_fact(f, &at, &page, "estimated-time") {
        let want = durations(totals.seconds());
        if want.contains(&time) {
            f.compared += 1;
        } else {
            f.fault(
                &at,
                format!("estimated time: printed {time:?}, recomputed {want:?}"),
            );
        }
    }
}

/// Every balancing plan's page, at Ganeti's default rates and at others.
#[test]
fn balance_report_cost_facts_are_the_recomputed_ones() {
    super::over_corpus(
        "hailstone-balance report cost",
        &[
            ("cases", 18),
            ("pages", 60),
            ("pages copying disk data", 20),
            ("times of a minute or more", 20),
        ],
        |f, dir, case, k| {
            let file = case.path.to_str().expect("a path");
            let input = plan::parse(&case.text);
            for (g, group) in super::populated_groups(&input).into_iter().enumerate() {
                let args = ["-t", file, "-G", group];
                check_page(
                    f,
                    dir,
                    &format!("c{k}-{g}"),
                    case,
                    "hailstone-balance",
                    &args,
                    rates_for(k),
                );
            }
        },
    );
}

/// Every squeezing plan's page, at hsqueeze's reserves and at lower ones
/// (more nodes powered off, more moves).
#[test]
fn squeeze_report_cost_facts_are_the_recomputed_ones() {
    super::over_corpus(
        "hailstone-squeeze report cost",
        &[
            ("cases", 18),
            ("pages", 100),
            ("pages copying disk data", 15),
            ("times of a minute or more", 15),
        ],
        |f, dir, case, k| {
            let file = case.path.to_str().expect("a path");
            let reserves: [&[&str]; 2] =
                [&[], &["--minimal-resources=0.5", "--target-resources=1"]];
            for (r, extra) in reserves.iter().enumerate() {
                let args = [&["-t", file][..], extra].concat();
                check_page(
                    f,
                    dir,
                    &format!("c{k}-{r}"),
                    case,
                    "hailstone-squeeze",
                    &args,
                    rates_for(k + r),
                );
            }
        },
    );
}

/// Every page of `hailstone-groups`' plans (repair, compress --evacuate,
/// balance); check's page has no cost facts.
#[test]
fn groups_report_cost_facts_are_the_recomputed_ones() {
    super::over_corpus(
        "hailstone-groups report cost",
        &[
            ("cases", 18),
            ("pages", 90),
            ("pages copying disk data", 15),
            ("times of a minute or more", 15),
            ("check pages", 40),
        ],
        |f, dir, case, k| {
            let file = case.path.to_str().expect("a path");
            let ops: [&[&str]; 3] = [&["repair"], &["compress", "--evacuate"], &["balance"]];
            for (o, op) in ops.iter().enumerate() {
                let args = [op, &["-t", file][..]].concat();
                check_page(
                    f,
                    dir,
                    &format!("c{k}-{o}"),
                    case,
                    "hailstone-groups",
                    &args,
                    rates_for(k),
                );
            }
            let page_path = dir.join(format!("c{k}-check.html"));
            let page_arg = format!("--report={}", page_path.to_str().expect("a path"));
            let checked = run("hailstone-groups", &["check", "-t", file, &page_arg]);
            if checked.code != 0 {
                f.count("refused");
                return;
            }
            let at = format!("hailstone-groups check -t {file}");
            match read(&page_path) {
                Some(page) => {
                    f.count("check pages");
                    for key in ["disk-copied", "estimated-time"] {
                        f.same(&at, &format!("facts {key}"), facts(&page, key).len(), 0);
                    }
                }
                None => f.fault(&at, "no report page".to_owned()),
            }
        },
    );
}

#[test]
fn sizes_and_times_are_written_as_the_text_writes_them() {
    assert_eq!(size_words(512), "512 MiB");
    assert_eq!(size_words(3584), "3.5 GiB");
    assert_eq!(size_words(1_237_320), "1.18 TiB");
    assert_eq!(durations(40.4), ["40 s"]);
    assert_eq!(durations(725.0), ["12 min 5 s"]);
    assert_eq!(durations(12_000.0), ["3 h 20 min"]);
    assert_eq!(durations(59.5), ["59 s", "1 min 0 s"]);
}
