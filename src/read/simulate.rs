//! Simulated clusters (`--simulate SPEC`, Ganeti's `Backend/Simu.hs`):
//! each spec `policy,nodes,disk,memory,cpus[,spindles[,exclusive_storage]]`
//! is one empty node group of identical nodes.
//!
//! Spec number g (from 1, in the order the program keeps them) gives group
//! `group-0g` (UUID `fake-uuid-0g`) with nodes `node-0g-00i`, each with the
//! spec's memory (all free, none reserved), disk (all free), CPUs (one
//! reserved), spindles (none free) and exclusive storage; the first node
//! of the first group is the master. Sizes take a unit (`m`, `g`, `t` and
//! their `MiB`-style spellings are binary; `M`, `G`, `T`, `MB`, `GB`, `TB`
//! are decimal), MiB without one.

use crate::haskell::read::{parse_unit, read_bool, read_int, split_on};
use crate::model::group::Group;
use crate::model::node::{Node, NodeInfo, Resources};
use crate::model::policy::IPolicy;
use crate::model::types::AllocPolicy;
use crate::model::Cluster;
use crate::read::merge::{merge, Empties, MergeOptions, Parts};
use crate::read::settings::GanetiVersion;

/// The most nodes `--simulate` makes, in all its groups: ten times the
/// largest clusters hailstone is measured on (hail, without a limit, runs
/// the machine out of memory on a count of 10^8).
pub const MAX_SIMULATED_NODES: i64 = 100_000;

/// Builds the simulated cluster of `specs`, in order.
///
/// # Errors
///
/// hail's message for the first bad spec; more than
/// [`MAX_SIMULATED_NODES`] nodes in all (checked before any is made).
pub fn load(specs: &[String], ganeti: GanetiVersion) -> Result<Cluster, String> {
    let parsed = specs
        .iter()
        .map(|spec| parse_spec(spec))
        .collect::<Result<Vec<Spec>, String>>()?;
    let total = parsed
        .iter()
        .fold(0i64, |t, s| t.saturating_add(s.count.max(0)));
    if total > MAX_SIMULATED_NODES {
        return Err(format!(
            "--simulate: {total} nodes in all, more than the {MAX_SIMULATED_NODES} hailstone simulates"
        ));
    }
    let mut groups = Vec::new();
    let mut nodes = Vec::new();
    for (i, s) in parsed.into_iter().enumerate() {
        let g = i + 1;
        let group_idx = groups.len();
        groups.push(Group {
            name: format!("group-{g:02}"),
            uuid: format!("fake-uuid-{g:02}"),
            idx: group_idx,
            alloc_policy: s.policy,
            networks: Vec::new(),
            ipolicy: IPolicy::ganeti_default(),
            tags: Vec::new(),
        });
        for n in 1..=s.count.max(0) {
            let name = format!("node-{g:02}-{n:03}");
            let info = NodeInfo {
                alias_len: name.len(),
                name,
                tags: Vec::new(),
                location_tags: Vec::new(),
                mig_tags: Vec::new(),
                rmig_tags: Vec::new(),
                master: g == 1 && n == 1,
                n_cpu: 1,
                cpu_speed: 1.0,
            };
            let resources = Resources {
                t_mem: s.memory as f64,
                n_mem: 0,
                f_mem: s.memory,
                t_dsk: s.disk as f64,
                f_dsk: s.disk,
                t_cpu: s.cpus as f64,
                t_spindles: s.spindles,
                f_spindles: 0,
                excl_storage: s.exclusive_storage,
                offline: false,
            };
            nodes.push(Node::create(info, nodes.len(), group_idx, resources));
        }
    }
    let parts = Parts {
        groups,
        nodes,
        instances: Vec::new(),
        cluster_tags: Vec::new(),
        ipolicy: IPolicy::ganeti_default(),
    };
    let options = MergeOptions {
        ganeti,
        ..MergeOptions::default()
    };
    Ok(merge(parts, &Empties::new(), &options).0)
}

/// One group's spec.
struct Spec {
    policy: AllocPolicy,
    count: i64,
    disk: i64,
    memory: i64,
    cpus: i64,
    spindles: i64,
    exclusive_storage: bool,
}

/// `parseDesc`: 5, 6 or 7 comma-separated fields.
fn parse_spec(spec: &str) -> Result<Spec, String> {
    let mut f: Vec<&str> = split_on(spec, ',').collect();
    if f.len() == 5 {
        f.push("1");
    }
    if f.len() == 6 {
        f.push("False");
    }
    if f.len() != 7 {
        let got = split_on(spec, ',').count();
        return Err(format!(
            "Invalid cluster specification, expected 6 comma-separated sections \
             (allocation policy, node count, disk size, memory size, number of CPUs, \
             spindles) but got {got}: '{spec}'"
        ));
    }
    let policy = AllocPolicy::from_raw(f[0])
        .or(match f[0] {
            "p" => Some(AllocPolicy::Preferred),
            "a" => Some(AllocPolicy::LastResort),
            "u" => Some(AllocPolicy::Unallocable),
            _ => None,
        })
        .ok_or_else(|| {
            format!(
                "Invalid string value for type AllocPolicy: {}; Cannot parse AllocPolicy \
                 abbreviation '{}'",
                crate::haskell::show::show_string(f[0]),
                f[0]
            )
        })?;
    let count = read_int(f[1]).map_err(|e| e.message("node count", f[1]))?;
    let disk = parse_unit(f[2]).map_err(|e| format!("disk size: {e}"))?;
    let memory = parse_unit(f[3]).map_err(|e| format!("memory size: {e}"))?;
    let cpus = read_int(f[4]).map_err(|e| e.message("cpu count", f[4]))?;
    let spindles = read_int(f[5]).map_err(|e| e.message("spindles", f[5]))?;
    let exclusive_storage = read_bool(f[6]).map_err(|e| e.message("exclusive storage", f[6]))?;
    Ok(Spec {
        policy,
        count,
        disk,
        memory,
        cpus,
        spindles,
        exclusive_storage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_follow_ganeti() {
        assert_eq!(parse_unit("16g"), Ok(16384));
        assert_eq!(parse_unit("1G"), Ok(953));
        assert_eq!(parse_unit("1T"), Ok(953674));
        assert_eq!(parse_unit("2000M"), Ok(1907));
        assert_eq!(parse_unit("1MB"), Ok(0));
        assert_eq!(parse_unit("1 g"), Ok(1024));
        assert_eq!(parse_unit("500"), Ok(500));
        assert_eq!(parse_unit("1.5g"), Err("Can't parse string '1.5g'".into()));
        assert_eq!(parse_unit("1x"), Err("Unknown unit 'x'".into()));
    }

    #[test]
    fn specs_and_their_errors() {
        let c = load(
            &[
                "p,2,100g,16g,8".into(),
                "last_resort,1,1T,1G,4,7,True".into(),
            ],
            GanetiVersion::V30,
        )
        .expect("valid specs");
        let names: Vec<&str> = c.nodes.iter().map(|n| n.info.name.as_str()).collect();
        assert_eq!(names, ["node-01-001", "node-01-002", "node-02-001"]);
        assert!(c.nodes[0].info.master && !c.nodes[1].info.master);
        assert_eq!(c.groups[1].name, "group-02");
        assert!(c.nodes[2].excl_storage);
        assert_eq!(c.nodes[2].t_spindles, 7);
        let err = |spec: &str| {
            load(&[spec.to_owned()], GanetiVersion::V30)
                .err()
                .unwrap_or_default()
        };
        assert_eq!(
            err("x,1,1,1,1"),
            "Invalid string value for type AllocPolicy: \"x\"; Cannot parse AllocPolicy abbreviation 'x'"
        );
        assert_eq!(err("p,a,1,1,1"), "node count: cannot parse string 'a'");
        assert_eq!(
            err("p,1,1,1,1,1,true"),
            "exclusive storage: cannot parse string 'true'"
        );
        assert!(err("").ends_with("but got 0: ''"));
        assert!(err("p,1,1,1").ends_with("but got 4: 'p,1,1,1'"));
        assert_eq!(
            err("p,100000000,100g,16g,8"),
            "--simulate: 100000000 nodes in all, more than the 100000 hailstone simulates"
        );
        let two = load(
            &["p,60000,1g,1g,1".into(), "p,60000,1g,1g,1".into()],
            GanetiVersion::V30,
        );
        assert!(two
            .err()
            .unwrap_or_default()
            .contains("120000 nodes in all"));
    }
}
