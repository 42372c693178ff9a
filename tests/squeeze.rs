//! `hailstone-squeeze` end to end on generated clusters of externally
//! mirrored and shared-file instances: every plan is replayed by the
//! independent plan checker (`support::plan`), power and tag commands
//! included; every step must be safe, every node powered off must be
//! empty, and after a plan that powers nodes off (or on, when that is
//! enough) every instance is on an online node and every online node keeps
//! more memory free than the reserve asked for. The state the checker
//! reaches must be the one saved with `-S`; the same input gives the same
//! bytes.

use std::process::Command;

use hailstone::program::hail::options::LoadOptions;
use hailstone::shell::datafile;
use hailstone_devtools::generate::{generate, CaseSpec, DiskTemplate, RequestKind};

use crate::support::plan;

fn squeeze(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_hailstone-squeeze"))
        .args(args)
        .output()
        .expect("run hailstone-squeeze")
}

/// A generated cluster of ext and sharedfile instances (3 to 12 nodes),
/// with up to two empty nodes turned into offline standby nodes.
pub(crate) fn generated_cluster(seed: u64) -> Option<String> {
    let mut spec = CaseSpec::random(seed, RequestKind::Allocate, 3..=12);
    spec.instance_templates = vec![(DiskTemplate::Ext, 3), (DiskTemplate::Sharedfile, 1)];
    spec.groups = 1 + usize::from(seed.is_multiple_of(5));
    spec.features.offline_nodes = false;
    spec.tightness = [0.15, 0.4, 0.7, 0.9][(seed % 4) as usize];
    spec.instances_per_node = [1.0, 2.5, 4.0][(seed % 3) as usize];
    let case = generate(&spec);
    let text = datafile::from_request(case.request.as_bytes(), &LoadOptions::default()).ok()?;
    let mut sections: Vec<String> = text.split("\n\n").map(str::to_owned).collect();
    let insts = sections.get(2).cloned().unwrap_or_default();
    let mut standby = (seed % 3) as usize;
    let nodes: Vec<String> = sections[1]
        .lines()
        .map(|line| {
            let mut f: Vec<String> = line.split('|').map(str::to_owned).collect();
            let used = insts
                .lines()
                .any(|i| i.split('|').nth(6) == Some(f[0].as_str()));
            if standby > 0 && !used && f.len() > 10 && f[7] == "N" {
                standby -= 1;
                f[7] = "Y".to_owned();
                f[10] = "htools:standby:manual".to_owned();
            }
            f.join("|")
        })
        .collect();
    sections[1] = nodes.join("\n");
    Some(sections.join("\n\n"))
}

/// The standard instance memory of the cluster policy (the policy line
/// without a group name).
fn std_memory(text: &str) -> i64 {
    text.lines()
        .filter_map(|l| l.strip_prefix('|'))
        .find_map(|rest| rest.split(',').next()?.parse().ok())
        .expect("a cluster policy line")
}

#[test]
fn plans_are_safe_free_nodes_and_keep_the_reserve() {
    let dir = crate::run::scratch("squeeze-test");
    let (mut offline_plans, mut online_plans, mut moves) = (0, 0, 0);
    let mut refused_inverted = 0;
    for seed in 1..=48u64 {
        let Some(text) = generated_cluster(seed) else {
            continue;
        };
        let file = dir.join(format!("c{seed}.data"));
        std::fs::write(&file, &text).unwrap();
        let file = file.to_str().unwrap();
        let save = dir.join(format!("c{seed}"));
        let save = save.to_str().unwrap();
        let (target, minimal) =
            [(2.0, 2.0), (16.0, 8.0), (64.0, 32.0), (0.5, 128.0)][(seed % 4) as usize];
        let t = format!("--target-resources={target}");
        let m = format!("--minimal-resources={minimal}");
        let args = ["-v", "-v", "-C", "-S", save, &t, &m, "-t", file];
        let out = squeeze(&args);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        if minimal > target && out.status.code() == Some(1) {
            // A minimum above the target: powering on is planned, powering
            // off (which the next run would undo) is refused.
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.contains("is above --target-resources"),
                "{args:?}: {stderr}"
            );
            assert!(out.stdout.is_empty(), "{args:?}");
            refused_inverted += 1;
            continue;
        }
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            squeeze(&args).stdout,
            out.stdout,
            "{args:?}: output differs between runs"
        );
        check_explanation(&dir, seed, &args, &out.stdout);
        let commands = stdout.split("Commands to run:").nth(1).unwrap_or("");
        let mut cluster = plan::parse(&text);
        let violations = plan::replay(&mut cluster, commands);
        assert!(
            violations.is_empty(),
            "{args:?}: unsafe plan: {violations:#?}\n{stdout}"
        );
        moves += commands.matches("gnt-instance ").count();
        let std_mem = std_memory(&text);
        let reserve = if stdout.contains("'Nodes to offline'") {
            offline_plans += 1;
            Some((target * std_mem as f64).floor() as i64)
        } else if stdout.contains("'Nodes to online'") {
            online_plans += 1;
            (!stdout.contains("will not yield enough capacity"))
                .then(|| (minimal * std_mem as f64).floor() as i64)
        } else {
            None
        };
        if let Some(mem) = reserve {
            let short = plan::reserve_violations(&cluster, mem);
            assert!(
                short.is_empty(),
                "{args:?}: reserve not kept: {short:#?}\n{stdout}"
            );
        }
        let squeezed = std::fs::read_to_string(format!("{save}.squeezed")).unwrap();
        let saved = plan::parse(&squeezed);
        assert_eq!(
            plan::placement(&saved),
            plan::placement(&cluster),
            "{args:?}"
        );
        for (name, n) in &saved.nodes {
            assert_eq!(
                n.offline, cluster.nodes[name].offline,
                "{args:?}: node {name}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        offline_plans >= 8 && online_plans >= 8 && moves >= 30 && refused_inverted >= 1,
        "too few plans to prove anything: {offline_plans} offline, {online_plans} online, \
         {moves} moves, {refused_inverted} inverted refused"
    );
}

/// `--explain`: the plan is the same, and the explanation agrees with it:
/// the nodes it says are powered off are exactly those listed, and it
/// says why standby nodes are powered on when they are.
fn check_explanation(dir: &std::path::Path, seed: u64, args: &[&str], plain: &[u8]) {
    let file = dir.join(format!("e{seed}.txt"));
    let opt = format!("--explain={}", file.display());
    let mut with: Vec<&str> = args.to_vec();
    with.push(&opt);
    let out = squeeze(&with);
    assert_eq!(out.stdout, plain, "{with:?}: --explain changed the plan");
    let text = std::fs::read_to_string(&file).expect("the explanation");
    let stdout = String::from_utf8_lossy(plain);
    let listed: Vec<&str> = stdout
        .split("'Nodes to offline'\n")
        .nth(1)
        .map(|rest| {
            rest.lines()
                .take_while(|l| !l.is_empty() && !l.starts_with("Commands"))
                .collect()
        })
        .unwrap_or_default();
    let mut off: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("  ")?.strip_suffix(": powered off"))
        .collect();
    let mut listed_sorted = listed.clone();
    off.sort_unstable();
    listed_sorted.sort_unstable();
    assert_eq!(off, listed_sorted, "{with:?}:\n{text}\n{stdout}");
    assert_eq!(
        stdout.contains("'Nodes to online'"),
        text.contains("standby nodes are powered on"),
        "{with:?}:\n{text}"
    );
}

/// The checker refuses to power off a node that still holds an instance,
/// and sees a reserve that is not kept.
#[test]
fn plan_checker_refuses_unsafe_power_off() {
    let text = "g|u|preferred||\n\nn1.x|1000|0|500|1000|100|4|N|u|1\nn2.x|1000|0|900|1000|100|4|N|u|1\n\ni1.x|400|80|1|running|Y|n1.x||ext||1\n\n\n";
    let fresh = || plan::parse(text);
    assert!(!plan::replay(&mut fresh(), "gnt-node power -f off n1").is_empty());
    let mut c = fresh();
    assert!(plan::replay(
        &mut c,
        "gnt-instance migrate -f -n n2 i1\ngnt-node power -f off n1"
    )
    .is_empty());
    assert!(plan::reserve_violations(&c, 400).is_empty());
    assert!(!plan::reserve_violations(&c, 500).is_empty());
    assert!(!plan::replay(&mut fresh(), "gnt-node power -f off n9").is_empty());
}

/// `-I` plans the request's cluster: the same bytes as `-t` on that
/// cluster saved as a data file.
#[test]
fn ialloc_source_is_the_saved_cluster() {
    let dir = crate::run::scratch("squeeze-ialloc");
    for seed in 1..=6u64 {
        let mut spec = CaseSpec::random(seed, RequestKind::Allocate, 3..=10);
        spec.instance_templates = vec![(DiskTemplate::Ext, 1)];
        let case = generate(&spec);
        let Ok(text) = datafile::from_request(case.request.as_bytes(), &LoadOptions::default())
        else {
            continue;
        };
        let req = dir.join(format!("r{seed}.json"));
        let data = dir.join(format!("r{seed}.data"));
        std::fs::write(&req, &case.request).unwrap();
        std::fs::write(&data, &text).unwrap();
        let a = squeeze(&["-v", "-v", "-C", "-I", req.to_str().unwrap()]);
        let b = squeeze(&["-v", "-v", "-C", "-t", data.to_str().unwrap()]);
        assert_eq!(a.status.code(), Some(0), "seed {seed}");
        assert_eq!(a.stdout, b.stdout, "seed {seed}");
        assert_eq!(a.stderr, b.stderr, "seed {seed}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// On a terminal (script(1) gives it one) a progress line counts the
/// nodes tried; in a pipe or a file there is none, and stdout is the same.
#[test]
fn progress_only_on_a_terminal() {
    let dir = crate::run::scratch("squeeze-progress");
    let text = (1..40)
        .find_map(|seed| {
            let t = generated_cluster(seed)?;
            let file = dir.join("cluster.data");
            std::fs::write(&file, &t).unwrap();
            let out = squeeze(&["-t", file.to_str().unwrap()]);
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            stdout.starts_with("'Nodes to offline'").then_some(stdout)
        })
        .expect("a cluster with nodes to power off");
    let file = dir.join("cluster.data");
    let piped = squeeze(&["-t", file.to_str().unwrap()]);
    assert!(
        piped.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&piped.stderr)
    );
    let command = format!(
        "{} -t {}",
        env!("CARGO_BIN_EXE_hailstone-squeeze"),
        file.display()
    );
    let tty = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .expect("script(1) from bsdutils");
    let seen = String::from_utf8_lossy(&tty.stdout).replace("\r\n", "\n");
    assert!(
        seen.contains("\rhailstone-squeeze: 1 of ") && seen.contains(" candidate nodes tried, "),
        "{seen:?}"
    );
    // The plan follows the progress line unchanged.
    assert!(seen.ends_with(&text), "{seen:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
