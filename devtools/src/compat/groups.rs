//! The groups suite (`--suite groups`): `hailstone-groups` has no original
//! in Ganeti, so Ganeti's own `hcheck` 3.0.2 judges it, on generated
//! multi-group clusters (the generator's multi-group profile, the shapes of
//! `tests/groups.rs`):
//!
//! * `check` must agree with hcheck on the cluster as read: per group, the
//!   nodes failing N+1 (hcheck's `N1_FAIL`), the instances whose primary
//!   node is offline (`OFFLINE_PRI`), and "unhealthy" exactly when an
//!   offline node of the group hosts an instance (counted here from the
//!   data file, since hcheck's `OFFLINE_SEC` counts offline nodes),
//!   "weakly unhealthy" otherwise exactly when a node fails N+1 or an
//!   instance of the group has its secondary in another group (from the
//!   data file: hcheck dies on such an instance).
//! * `repair -S`, `compress --evacuate -S` and `balance -S`: hcheck runs on
//!   each saved state after the plan. Every group the repair says it
//!   repaired has `N1_FAIL=0` and `OFFLINE_PRI=0`; no plan makes a group
//!   that hcheck found healthy before (no N+1 failure, nothing on offline
//!   nodes) unhealthy; the saved state holds the same instances.
//!
//! Nothing is accepted but one thing Ganeti itself does: hbal 3.0.2 can
//! leave a node of the group it balanced failing N+1 by hcheck's count
//! (its moves check N+1 incrementally, hcheck recounts on the saved file).
//! A balanced group that hcheck finds failing N+1 passes only when hbal,
//! balancing the same group of the same file, leaves it with the same
//! figures; such groups are counted apart.  Every other disagreement fails
//! the suite.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use super::balance::datafile::{inst, node, DataFile};
use super::common::{fail, Common, Profile};
use crate::generate::{self, CaseSpec};
use crate::oracle;
use crate::process::{self, Invocation, Status};

/// The groups suite's own options (its judges, hcheck and hbal, are the
/// check and balance suites' originals).
#[derive(clap::Args, Debug)]
pub(super) struct GroupsOptions {
    /// The program judged.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "target/release/hailstone-groups"
    )]
    pub(super) groups_bin: PathBuf,
}

/// Clusters and first seed of a profile.
fn corpus(c: &Common) -> (usize, u64) {
    let (count, seed) = match c.profile {
        Profile::Full => (1000, 1),
        Profile::None => (0, 1),
        Profile::Ci | Profile::Exclusive => (300, 1),
    };
    (c.count.unwrap_or(count), c.seed.unwrap_or(seed))
}

/// The shape of the cluster of `seed` (as `tests/groups.rs` draws it):
/// 4-18 nodes in 2-4 groups, or a node count from `--nodes`.
fn shape(seed: u64, nodes: Option<(usize, usize)>) -> (usize, usize) {
    let groups = 2 + (seed as usize) % 3;
    let n = match nodes {
        Some((lo, hi)) => lo + (seed as usize * 7) % (hi - lo + 1),
        None => 4 + (seed as usize * 7) % 15,
    };
    (n.max(groups), groups)
}

/// The planners judged, with the suffix of the state each saves.
const PLANS: [(&str, &[&str], &str); 3] = [
    ("repair", &[], "repaired"),
    ("compress", &["--evacuate"], "compressed"),
    ("balance", &[], "balanced"),
];

/// hcheck's figures for one group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Figures {
    n1_fail: i64,
    offline_pri: i64,
}

impl Figures {
    fn healthy(self) -> bool {
        self.n1_fail == 0 && self.offline_pri == 0
    }
}

/// The judgement of one cluster.
struct Verdict {
    id: String,
    groups: usize,
    /// Plans made, per planner of [`PLANS`].
    plans: [usize; 3],
    /// Groups repaired (and confirmed by hcheck).
    repaired: usize,
    /// Balanced groups failing N+1 after the plan exactly as after hbal's.
    as_hbal: usize,
    problems: Vec<String>,
    wall: Duration,
}

struct Shared<'a> {
    hcheck: &'a Path,
    hbal: &'a Path,
    groups_bin: &'a Path,
    tmp: &'a Path,
    cap: Duration,
}

/// Runs the suite: `hcheck` judges hailstone-groups' verdicts and plans,
/// `hbal` a balanced group hcheck finds failing N+1.
pub(super) fn run_groups(c: &Common, g: &GroupsOptions, hcheck: &Path, hbal: &Path) -> ExitCode {
    let hcheck = oracle::absolute(hcheck);
    let groups_bin = oracle::absolute(&g.groups_bin);
    let hbal = oracle::absolute(hbal);
    for (path, name) in [(&hcheck, "hcheck"), (&hbal, "hbal")] {
        if let Err(e) = oracle::ensure_program(path, name, c.install_hail, "hailstone-compat") {
            return fail(&e);
        }
    }
    if !oracle::is_executable(&groups_bin) {
        return fail(&format!(
            "hailstone-groups binary {} not found or not executable (build it with 'cargo build --release' or pass --groups-bin PATH)",
            groups_bin.display()
        ));
    }
    let (count, first) = corpus(c);
    if count == 0 {
        return fail("no clusters to run");
    }
    let tmp = match process::temp_dir("hailstone-compat-groups") {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    let shared = Shared {
        hcheck: &hcheck,
        hbal: &hbal,
        groups_bin: &groups_bin,
        tmp: &tmp,
        cap: c.cap(Duration::from_secs(120)),
    };
    eprintln!(
        "hailstone-compat: groups suite, {count} multi-group clusters (seeds from {first}), hcheck {}, {} jobs",
        hcheck.display(),
        c.jobs
    );
    let started = Instant::now();
    let seeds: Vec<u64> = (0..count as u64).map(|k| first + k).collect();
    let mut verdicts: Vec<Verdict> = Vec::new();
    process::ordered_pool(
        &seeds,
        c.jobs,
        |_, worker, &seed| judge(seed, c.nodes, &shared, worker),
        |_, v| {
            if c.verbose {
                let mark = if v.problems.is_empty() {
                    "ok  "
                } else {
                    "BAD "
                };
                println!("{mark} {}", v.id);
            }
            verdicts.push(v);
        },
    );
    let _ = std::fs::remove_dir_all(&tmp);
    let bad: Vec<&Verdict> = verdicts.iter().filter(|v| !v.problems.is_empty()).collect();
    let sum = |k: usize| verdicts.iter().map(|v| v.plans[k]).sum::<usize>();
    println!(
        "groups suite: {} clusters, {} groups compared with hcheck's check",
        verdicts.len(),
        verdicts.iter().map(|v| v.groups).sum::<usize>()
    );
    println!(
        "  plans judged by hcheck on the saved state: repair {} ({} groups repaired, each N1_FAIL=0 OFFLINE_PRI=0), compress {}, balance {}",
        sum(0),
        verdicts.iter().map(|v| v.repaired).sum::<usize>(),
        sum(1),
        sum(2)
    );
    println!(
        "  balanced groups hcheck finds failing N+1 exactly as after hbal's plan: {}",
        verdicts.iter().map(|v| v.as_hbal).sum::<usize>()
    );
    for v in &bad {
        println!("BAD {}", v.id);
        for p in &v.problems {
            println!("    {p}");
        }
    }
    let walls: f64 = verdicts.iter().map(|v| v.wall.as_secs_f64()).sum();
    eprintln!(
        "hailstone-compat: {} clusters in {:.1} s wall time ({:.1} s summed)",
        verdicts.len(),
        started.elapsed().as_secs_f64(),
        walls
    );
    if bad.is_empty() {
        println!("no unexplained differences");
        ExitCode::SUCCESS
    } else {
        println!("{} clusters with problems", bad.len());
        ExitCode::from(1)
    }
}

/// Generates the cluster of `seed`, checks and plans it, and has hcheck
/// judge every state.
fn judge(seed: u64, nodes: Option<(usize, usize)>, s: &Shared<'_>, worker: usize) -> Verdict {
    let started = Instant::now();
    let (n, g) = shape(seed, nodes);
    let mut v = Verdict {
        id: format!("groups/n{n}/g{g}/s{seed}"),
        groups: 0,
        plans: [0; 3],
        repaired: 0,
        as_hbal: 0,
        problems: Vec::new(),
        wall: Duration::ZERO,
    };
    let dir = s.tmp.join(format!("worker{worker}"));
    if let Err(e) = judge_in(seed, n, g, s, &dir, &mut v) {
        v.problems.push(e);
    }
    v.wall = started.elapsed();
    v
}

fn judge_in(
    seed: u64,
    n: usize,
    g: usize,
    s: &Shared<'_>,
    dir: &Path,
    v: &mut Verdict,
) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let case = generate::generate(&CaseSpec::multi_group(seed, n, g));
    let text = hailstone::shell::datafile::from_request(
        case.request.as_bytes(),
        &hailstone::program::hail::options::LoadOptions::default(),
    )
    .map_err(|e| format!("the generated cluster is not read back: {e}"))?;
    let input = dir.join("cluster.data");
    std::fs::write(&input, &text).map_err(|e| format!("cannot write {}: {e}", input.display()))?;
    let data = DataFile::parse(&text);
    let before = hcheck(s, dir, "cluster.data", &data)?;

    // check against hcheck.
    let explain = dir.join("check.json");
    let args = [
        "check".to_string(),
        "-t".to_string(),
        "cluster.data".to_string(),
        format!("--explain={}", explain.display()),
        "--explain-format=json".to_string(),
    ];
    // check exits with status 3 (findings) when a group is not healthy.
    let status = run_status(s, s.groups_bin, dir, &args)?;
    let report = read_json(&explain)?;
    let groups = report["groups"]
        .as_array()
        .ok_or("check's explanation has no groups")?;
    let sick = groups.iter().any(|g| g["status"] != "healthy");
    if (status == 3) != sick {
        v.problems.push(format!(
            "check: exit status {status} with {} group",
            if sick { "an unhealthy" } else { "no unhealthy" }
        ));
    }
    for entry in groups {
        let name = entry["group"].as_str().unwrap_or("?");
        v.groups += 1;
        let Some(&figures) = before.get(name) else {
            v.problems
                .push(format!("check: group {name} is not in hcheck's report"));
            continue;
        };
        let n1 = entry["nodes_failing_n1"].as_array().map_or(0, Vec::len) as i64;
        if n1 != figures.n1_fail {
            v.problems.push(format!(
                "check: group {name} has {n1} nodes failing N+1, hcheck N1_FAIL={}",
                figures.n1_fail
            ));
        }
        let hosting: BTreeSet<String> = entry["offline_nodes_hosting"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let expected = offline_hosts(&data, name);
        if hosting != expected {
            v.problems.push(format!(
                "check: group {name}: offline nodes hosting instances {hosting:?}, the data file has {expected:?}"
            ));
        }
        let primaries = primaries_on(&data, &hosting);
        if primaries != figures.offline_pri {
            v.problems.push(format!(
                "check: group {name}: {primaries} instances on offline primaries, hcheck OFFLINE_PRI={}",
                figures.offline_pri
            ));
        }
        let status = entry["status"].as_str().unwrap_or("?");
        let expected_status = if !hosting.is_empty() {
            "unhealthy"
        } else if figures.n1_fail > 0 || has_split_instance(&data, name) {
            "weakly unhealthy"
        } else {
            "healthy"
        };
        if status != expected_status {
            v.problems.push(format!(
                "check: group {name} is {status}, by hcheck's figures {expected_status}"
            ));
        }
    }

    // Each plan's saved state.
    let instances: BTreeSet<String> = data.instances().iter().map(|i| i[0].clone()).collect();
    for (k, (op, extra, suffix)) in PLANS.iter().enumerate() {
        let explain = dir.join(format!("{op}.json"));
        let mut args = vec![op.to_string(), "-t".into(), "cluster.data".into()];
        args.extend(extra.iter().map(|a| a.to_string()));
        args.extend([
            "-S".to_string(),
            "state".to_string(),
            format!("--explain={}", explain.display()),
            "--explain-format=json".to_string(),
        ]);
        run(s, s.groups_bin, dir, &args)?;
        let saved = dir.join(format!("state.{suffix}"));
        if !saved.exists() {
            continue;
        }
        v.plans[k] += 1;
        let after_text = std::fs::read_to_string(&saved)
            .map_err(|e| format!("cannot read {}: {e}", saved.display()))?;
        let after_data = DataFile::parse(&after_text);
        let after = hcheck(s, dir, &format!("state.{suffix}"), &after_data)?;
        let now: BTreeSet<String> = after_data
            .instances()
            .iter()
            .map(|i| i[0].clone())
            .collect();
        if now != instances {
            v.problems.push(format!(
                "{op}: the saved state has {} instances, the cluster {}",
                now.len(),
                instances.len()
            ));
        }
        let plan = read_json(&explain)?;
        let balanced = (*op == "balance")
            .then(|| {
                plan["groups"].as_array().and_then(|gs| {
                    gs.iter()
                        .find(|g| g["verdict"].as_str() == Some("balanced"))
                        .and_then(|g| g["group"].as_str())
                })
            })
            .flatten();
        for (name, fig) in &before {
            let later = after.get(name).copied().unwrap_or_default();
            if fig.healthy() && !later.healthy() && balanced == Some(name.as_str()) {
                let hbal_fig = hbal_figures(s, dir, name, &data)?;
                if hbal_fig == later {
                    v.as_hbal += 1;
                    continue;
                }
                v.problems.push(format!(
                    "balance: group {name} was healthy by hcheck, after the plan N1_FAIL={} OFFLINE_PRI={}, after hbal's N1_FAIL={} OFFLINE_PRI={}",
                    later.n1_fail, later.offline_pri, hbal_fig.n1_fail, hbal_fig.offline_pri
                ));
            } else if fig.healthy() && !later.healthy() {
                v.problems.push(format!(
                    "{op}: group {name} was healthy by hcheck, after the plan N1_FAIL={} OFFLINE_PRI={}",
                    later.n1_fail, later.offline_pri
                ));
            }
        }
        if *op == "repair" {
            for r in plan["repairs"].as_array().into_iter().flatten() {
                if r["repaired"].as_bool() != Some(true) {
                    continue;
                }
                let name = r["before"]["group"].as_str().unwrap_or("?");
                let fig = after.get(name).copied().unwrap_or_default();
                if fig.healthy() {
                    v.repaired += 1;
                } else {
                    v.problems.push(format!(
                        "repair: group {name} repaired, hcheck on the saved state: N1_FAIL={} OFFLINE_PRI={}",
                        fig.n1_fail, fig.offline_pri
                    ));
                }
            }
        }
        for ext in ["original", suffix] {
            let _ = std::fs::remove_file(dir.join(format!("state.{ext}")));
        }
    }
    Ok(())
}

/// Runs a program in `dir`: its stdout; an error unless it exits with
/// status 0 (or 3, hailstone-groups' findings).
fn run(s: &Shared<'_>, program: &Path, dir: &Path, args: &[String]) -> Result<Vec<u8>, String> {
    execute(s, program, dir, args).map(|(_, stdout)| stdout)
}

/// Runs a check in `dir`: its exit status, an error unless 0 or 3.
fn run_status(s: &Shared<'_>, program: &Path, dir: &Path, args: &[String]) -> Result<i32, String> {
    execute(s, program, dir, args).map(|(status, _)| status)
}

/// Runs a program in `dir`: its exit status (0, or 3 for hailstone-groups'
/// findings: an unhealthy group, a repair left incomplete, no group to
/// empty; anything else is an error) and its stdout.
fn execute(
    s: &Shared<'_>,
    program: &Path,
    dir: &Path,
    args: &[String],
) -> Result<(i32, Vec<u8>), String> {
    let scratch = dir.join("scratch");
    std::fs::create_dir_all(&scratch)
        .map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    let r = process::run(&Invocation {
        program,
        args: args.iter().map(Into::into).collect(),
        cwd: dir,
        cap: s.cap,
        measure_rss: false,
        scratch: &scratch,
    });
    let findings = program == s.groups_bin;
    match r.status {
        Status::Exited(0) => Ok((0, r.stdout)),
        Status::Exited(3) if findings => Ok((3, r.stdout)),
        _ => Err(format!(
            "{} {}: {}: {}",
            program.display(),
            args.join(" "),
            r.describe(),
            String::from_utf8_lossy(&r.stderr).trim()
        )),
    }
}

fn read_json(path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// hcheck's per-group figures on the data file `file` (in `dir`), by group
/// name.
fn hcheck(
    s: &Shared<'_>,
    dir: &Path,
    file: &str,
    data: &DataFile,
) -> Result<BTreeMap<String, Figures>, String> {
    let args: Vec<String> = ["-t", file, "--machine-readable", "--no-simulation"]
        .iter()
        .map(|a| a.to_string())
        .collect();
    let out = run(s, s.hcheck, dir, &args)?;
    parse_hcheck(&String::from_utf8_lossy(&out), data).map_err(|e| format!("hcheck on {file}: {e}"))
}

/// hcheck's machine-readable output (`--machine-readable`) as figures per
/// group name (the names from the data file, matched by UUID).
fn parse_hcheck(out: &str, data: &DataFile) -> Result<BTreeMap<String, Figures>, String> {
    let value = |key: &str| -> Option<&str> {
        out.lines()
            .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
    };
    if value("HCHECK_OK") != Some("1") {
        return Err("no HCHECK_OK=1".to_string());
    }
    let mut figures = BTreeMap::new();
    for g in data.groups() {
        let (name, uuid) = (&g[0], g.get(1).map(String::as_str).unwrap_or(""));
        let Some(idx) = out.lines().find_map(|l| {
            let (key, val) = l.split_once('=')?;
            let idx = key.strip_prefix("HCHECK_GROUP_UUID_")?;
            (val.trim_matches('\'') == uuid).then(|| idx.to_string())
        }) else {
            continue;
        };
        let field = |f: &str| -> Option<i64> {
            value(&format!("HCHECK_INIT_GROUP_{idx}_{f}"))?.parse().ok()
        };
        // Groups without nodes have no figures.
        if let (Some(n1_fail), Some(offline_pri)) = (field("N1_FAIL"), field("OFFLINE_PRI")) {
            figures.insert(
                name.clone(),
                Figures {
                    n1_fail,
                    offline_pri,
                },
            );
        }
    }
    Ok(figures)
}

/// hcheck's figures for group `name` after hbal balanced it in the
/// cluster data file `cluster.data` (in `dir`).
fn hbal_figures(
    s: &Shared<'_>,
    dir: &Path,
    name: &str,
    data: &DataFile,
) -> Result<Figures, String> {
    let args: Vec<String> = ["-t", "cluster.data", "-G", name, "-S", "hbal"]
        .iter()
        .map(|a| a.to_string())
        .collect();
    run(s, s.hbal, dir, &args)?;
    let figures = hcheck(s, dir, "hbal.balanced", data)?;
    for ext in ["original", "balanced"] {
        let _ = std::fs::remove_file(dir.join(format!("hbal.{ext}")));
    }
    Ok(figures.get(name).copied().unwrap_or_default())
}

/// The offline nodes of group `name` hosting an instance (as primary or
/// secondary), read from the data file.
fn offline_hosts(data: &DataFile, name: &str) -> BTreeSet<String> {
    let members: BTreeSet<String> = data.nodes_of_group(name).into_iter().collect();
    data.nodes()
        .iter()
        .filter(|nd| members.contains(&nd[node::NAME]))
        .filter(|nd| nd.get(node::FLAG).map(String::as_str) == Some("Y"))
        .filter(|nd| {
            data.instances().iter().any(|i| {
                i.get(inst::PNODE) == Some(&nd[node::NAME])
                    || i.get(inst::SNODE) == Some(&nd[node::NAME])
            })
        })
        .map(|nd| nd[node::NAME].clone())
        .collect()
}

/// Whether an instance with its primary node in group `name` has its
/// secondary node in another group (a split instance, which makes its
/// primary's group weakly unhealthy).
fn has_split_instance(data: &DataFile, name: &str) -> bool {
    let members: BTreeSet<String> = data.nodes_of_group(name).into_iter().collect();
    data.instances().iter().any(|i| {
        i.get(inst::PNODE).is_some_and(|p| members.contains(p))
            && i.get(inst::SNODE)
                .is_some_and(|s| !s.is_empty() && !members.contains(s))
    })
}

/// Instances whose primary node is one of `nodes`.
fn primaries_on(data: &DataFile, nodes: &BTreeSet<String>) -> i64 {
    data.instances()
        .iter()
        .filter(|i| i.get(inst::PNODE).is_some_and(|p| nodes.contains(p)))
        .count() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hcheck_figures_are_read_per_group_by_uuid() {
        let data = DataFile::parse(
            "g1|u-1|preferred||\ng2|u-2|preferred||\nempty|u-3|preferred||\n\n\
             n1|100|0|50|100|50|4|N|u-1|1||N|0|1|1.0\n\
             n2|100|0|50|100|50|4|Y|u-2|1||N|0|1|1.0\n\n\n\n",
        );
        let out = "HCHECK_GROUP_UUID_0='u-2'\nHCHECK_GROUP_UUID_1='u-1'\n\
                   HCHECK_INIT_GROUP_0_N1_FAIL=0\nHCHECK_INIT_GROUP_0_OFFLINE_PRI=3\n\
                   HCHECK_INIT_GROUP_1_N1_FAIL=2\nHCHECK_INIT_GROUP_1_OFFLINE_PRI=0\n\
                   HCHECK_FINAL_GROUP_1_N1_FAIL=7\nHCHECK_OK=1\n";
        let f = parse_hcheck(out, &data).unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!(
            f["g1"],
            Figures {
                n1_fail: 2,
                offline_pri: 0
            }
        );
        assert_eq!(
            f["g2"],
            Figures {
                n1_fail: 0,
                offline_pri: 3
            }
        );
        assert!(!f["g1"].healthy() && !f["g2"].healthy());
        assert!(parse_hcheck(&out.replace("HCHECK_OK=1", "HCHECK_OK=0"), &data).is_err());
    }

    #[test]
    fn offline_hosts_count_primaries_and_secondaries() {
        let data = DataFile::parse(
            "g|u|preferred||\n\n\
             a|100|0|50|100|50|4|Y|u|1||N|0|1|1.0\n\
             b|100|0|50|100|50|4|Y|u|1||N|0|1|1.0\n\
             c|100|0|50|100|50|4|N|u|1||N|0|1|1.0\n\
             d|100|0|50|100|50|4|Y|u|1||N|0|1|1.0\n\n\
             i1|1|1|1|running|Y|a|c|drbd||1|-|N\n\
             i2|1|1|1|running|Y|c|b|drbd||1|-|N\n\n\n",
        );
        let hosts = offline_hosts(&data, "g");
        assert_eq!(
            hosts.iter().map(String::as_str).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!(primaries_on(&data, &hosts), 1);
    }
}
