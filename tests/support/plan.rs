//! An independent checker for balancing plans.
//!
//! It answers one question: if Ganeti ran these `gnt-instance` commands one
//! after another on the cluster of this data file, would any of them put an
//! instance where Ganeti or the hardware forbids? It reads the data file
//! with its own small parser (nothing from the `hailstone` library; every
//! section and field of the `-S` format, which `support::figures` reads
//! too),
//! replays the commands of `-C` (migrate, failover, `-n` moves,
//! `replace-disks -n`, `move -n` copies, and a squeeze plan's `gnt-node power` and
//! `add-tags`) on a plain model, checks every intermediate cluster, and
//! returns the final placement so that a test can compare it with the
//! state the planner saved (`-S FILE.balanced`, `FILE.squeezed`). A node
//! powered off must hold no instance; [`reserve_violations`] checks the
//! memory a squeeze plan promises to leave on every online node.
//!
//! Rules, from what Ganeti checks when it runs the job or what a node can
//! hold: the instance exists; a target node exists, is online and is not
//! the instance's other node; the target's group, when it is not the
//! primary's, allows the instance's template; a failover needs a drbd
//! instance and moves it to its secondary; a move to a named node needs a shared-storage
//! template; a copy (`move`) needs a template with disks that is not
//! drbd; a secondary replacement needs drbd; after each command every
//! node's free memory (reported, minus what running instances moved in
//! take) and free disk (minus the disks placed there) is not negative.

use std::collections::BTreeMap;

#[derive(Debug, Clone)]
pub struct Inst {
    pub mem: i64,
    pub dsk: i64,
    pub running: bool,
    pub template: String,
    pub pri: String,
    pub sec: String,
    pub vcpus: i64,
    /// The run state as the file writes it (`running`, `ADMIN_down`, ...).
    pub status: String,
    pub auto_balance: bool,
    pub tags: Vec<String>,
    pub spindle_use: i64,
    /// The disks' spindles (`-`: none given).
    pub spindles: Option<i64>,
    pub forthcoming: bool,
}

#[derive(Debug, Clone)]
pub struct Node {
    /// The free memory the node reports, less what the replayed commands
    /// moved onto it (the replay's running account).
    pub free_mem: i64,
    /// The free disk, kept up to date by the replay.
    pub free_dsk: i64,
    pub offline: bool,
    /// The node group's UUID.
    pub group: String,
    /// The fields as the file gives them: total, node and reported free
    /// memory, total disk, physical CPUs, spindles, free spindles, the
    /// node's own CPUs.
    pub t_mem: f64,
    pub n_mem: i64,
    pub f_mem: i64,
    pub t_dsk: f64,
    pub f_dsk: i64,
    pub t_cpu: f64,
    pub master: bool,
    pub spindles: i64,
    pub tags: Vec<String>,
    pub excl_storage: bool,
    pub free_spindles: i64,
    pub n_cpu: i64,
    /// The CPU speed relative to the cluster's reference.
    pub cpu_speed: f64,
}

/// A group's instance policy: the templates it allows and its ratios.
#[derive(Debug, Clone)]
pub struct Policy {
    pub templates: Vec<String>,
    pub vcpu_ratio: f64,
    pub spindle_ratio: f64,
}

/// The cluster of a data file: nodes and instances by full name.
#[derive(Debug, Clone, Default)]
pub struct Cluster {
    pub nodes: BTreeMap<String, Node>,
    pub insts: BTreeMap<String, Inst>,
    /// The disk templates each group's policy allows, by group UUID
    /// (absent: every template).
    pub templates: BTreeMap<String, Vec<String>>,
    /// Group UUIDs by name.
    pub groups: BTreeMap<String, String>,
    /// Each group's policy by UUID (absent: none in the file, Ganeti's
    /// default policy applies).
    pub policies: BTreeMap<String, Policy>,
    /// The cluster's policy (the line with an empty owner), if any.
    pub cluster_policy: Option<Policy>,
    /// The cluster tags.
    pub cluster_tags: Vec<String>,
    /// The node and instance names in the file's order (an instance name
    /// the file repeats: `NAME#2`, ...).
    pub node_order: Vec<String>,
    pub inst_order: Vec<String>,
}

fn int(s: &str) -> i64 {
    s.trim().parse::<f64>().map_or(0, |v| v as i64)
}

fn float(s: &str) -> f64 {
    s.trim().parse::<f64>().unwrap_or(0.0)
}

fn list(s: &str) -> Vec<String> {
    if s.is_empty() {
        Vec::new()
    } else {
        s.split(',').map(str::to_owned).collect()
    }
}

/// The sections of a data file: runs of lines between empty lines (as
/// Ganeti's `sepSplit ""` cuts them, so an empty section is kept).
fn sections(text: &str) -> Vec<Vec<&str>> {
    let mut out = vec![Vec::new()];
    for line in text.lines() {
        if line.is_empty() {
            out.push(Vec::new());
        } else {
            out.last_mut().expect("one section").push(line);
        }
    }
    out
}

/// Reads a data file: groups, nodes, instances, cluster tags, policies.
/// Missing trailing fields take Ganeti's defaults (`Text.loadNode`,
/// `loadInst`); a node whose numbers are `?` has none (zeros), as Ganeti
/// reads it.
pub fn parse(text: &str) -> Cluster {
    let sections = sections(text);
    let section = |k: usize| sections.get(k).cloned().unwrap_or_default();
    let mut c = Cluster::default();
    for line in section(0) {
        let f: Vec<&str> = line.split('|').collect();
        if f.len() >= 2 {
            c.groups.insert(f[0].to_owned(), f[1].to_owned());
        }
    }
    // The policies: `group|std|minmax|templates|vcpu ratio|spindle ratio`
    // (the cluster's has an empty group name).
    for line in section(4) {
        let f: Vec<&str> = line.split('|').collect();
        if f.len() < 6 {
            continue;
        }
        let policy = Policy {
            templates: list(f[3]),
            vcpu_ratio: float(f[4]),
            spindle_ratio: float(f[5]),
        };
        if f[0].is_empty() {
            c.cluster_policy = Some(policy);
        } else if let Some(uuid) = c.groups.get(f[0]) {
            c.templates.insert(uuid.clone(), policy.templates.clone());
            c.policies.insert(uuid.clone(), policy);
        }
    }
    c.cluster_tags = section(3).iter().map(|l| (*l).to_owned()).collect();
    for line in section(1) {
        let f: Vec<&str> = line.split('|').collect();
        if f.len() < 9 {
            continue;
        }
        let field = |k: usize, default: &'static str| f.get(k).copied().unwrap_or(default);
        let unknown = f[1..7].contains(&"?");
        let num = |k: usize| if unknown { 0 } else { int(f[k]) };
        let real = |k: usize| if unknown { 0.0 } else { float(f[k]) };
        c.node_order.push(f[0].to_owned());
        c.nodes.insert(
            f[0].to_owned(),
            Node {
                free_mem: num(3),
                free_dsk: num(5),
                offline: f[7] == "Y" || unknown,
                group: f[8].to_owned(),
                t_mem: real(1),
                n_mem: num(2),
                f_mem: num(3),
                t_dsk: real(4),
                f_dsk: num(5),
                t_cpu: real(6),
                master: f[7] == "M",
                spindles: if unknown { 0 } else { int(field(9, "1")) },
                tags: list(field(10, "")),
                excl_storage: field(11, "N") == "Y",
                free_spindles: if unknown { 0 } else { int(field(12, "0")) },
                n_cpu: if unknown { 0 } else { int(field(13, "1")) },
                cpu_speed: float(field(14, "1.0")),
            },
        );
    }
    for line in section(2) {
        let f: Vec<&str> = line.split('|').collect();
        if f.len() < 9 {
            continue;
        }
        let field = |k: usize, default: &'static str| f.get(k).copied().unwrap_or(default);
        // A name given twice (Ganeti keeps both instances) is kept under
        // `NAME#2`, ...
        let mut key = f[0].to_owned();
        let mut k = 1;
        while c.insts.contains_key(&key) {
            k += 1;
            key = format!("{}#{k}", f[0]);
        }
        c.inst_order.push(key.clone());
        c.insts.insert(
            key,
            Inst {
                mem: int(f[1]),
                dsk: int(f[2]),
                running: matches!(f[4], "running" | "ERROR_up"),
                template: f[8].to_owned(),
                pri: f[6].to_owned(),
                sec: f[7].to_owned(),
                vcpus: int(f[3]),
                status: f[4].to_owned(),
                auto_balance: f[5] == "Y",
                tags: list(field(9, "")),
                spindle_use: int(field(10, "1")),
                spindles: match field(11, "-") {
                    "-" => None,
                    s => Some(int(s)),
                },
                forthcoming: field(12, "N") == "Y",
            },
        );
    }
    c
}

/// The instances with a node in the group `uuid`.
pub fn instances_in_group(c: &Cluster, uuid: &str) -> Vec<String> {
    c.insts
        .iter()
        .filter(|(_, i)| {
            [&i.pri, &i.sec]
                .into_iter()
                .any(|n| c.nodes.get(n).is_some_and(|n| n.group == uuid))
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// The instances with a node that is offline.
pub fn instances_on_offline_nodes(c: &Cluster) -> Vec<String> {
    c.insts
        .iter()
        .filter(|(_, i)| {
            [&i.pri, &i.sec]
                .into_iter()
                .any(|n| c.nodes.get(n).is_some_and(|n| n.offline))
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// Where every instance is: (primary, secondary) by instance name.
pub fn placement(c: &Cluster) -> BTreeMap<String, (String, String)> {
    c.insts
        .iter()
        .map(|(n, i)| (n.clone(), (i.pri.clone(), i.sec.clone())))
        .collect()
}

/// The full name a `-C` command names by its alias (the name with the
/// cluster's common domain suffix dropped).
fn resolve<'a>(names: impl Iterator<Item = &'a String>, alias: &str) -> Option<String> {
    let found: Vec<&String> = names
        .filter(|n| *n == alias || n.strip_prefix(alias).is_some_and(|r| r.starts_with('.')))
        .collect();
    match found.as_slice() {
        [one] => Some((*one).clone()),
        _ => found.iter().find(|n| **n == alias).map(|n| (*n).clone()),
    }
}

fn uses_local_disk(template: &str) -> bool {
    matches!(template, "drbd" | "plain")
}

/// A `gnt-node` command of a plan: `power -f on|off NODE` switches the
/// node (a node powered off must hold no instance), `add-tags NODE TAG`
/// needs the node.
fn node_command(c: &mut Cluster, cmd: &str, bad: &mut Vec<String>) {
    let words: Vec<&str> = cmd.split_whitespace().collect();
    let node_names: Vec<String> = c.nodes.keys().cloned().collect();
    let (what, alias) = match words.as_slice() {
        ["power", "-f", what @ ("on" | "off"), node] => (*what, *node),
        ["add-tags", node, _tag] => ("tag", *node),
        _ => {
            bad.push(format!("gnt-node {cmd}: not a command a plan may contain"));
            return;
        }
    };
    let Some(name) = resolve(node_names.iter(), alias) else {
        bad.push(format!("gnt-node {cmd}: unknown node {alias}"));
        return;
    };
    match what {
        "off" => {
            let held: Vec<&String> = c
                .insts
                .iter()
                .filter(|(_, i)| i.pri == name || i.sec == name)
                .map(|(n, _)| n)
                .collect();
            if !held.is_empty() {
                bad.push(format!("gnt-node {cmd}: the node still holds {held:?}"));
            }
            c.nodes.get_mut(&name).expect("present").offline = true;
        }
        "on" => c.nodes.get_mut(&name).expect("present").offline = false,
        _ => {}
    }
}

/// The ways the cluster falls short of a reserve: an instance whose
/// primary is offline, or an online node without more than `mem` MiB of
/// memory free.
pub fn reserve_violations(c: &Cluster, mem: i64) -> Vec<String> {
    let mut bad = Vec::new();
    for (name, i) in &c.insts {
        if c.nodes.get(&i.pri).is_none_or(|n| n.offline) {
            bad.push(format!("instance {name} is on offline node {}", i.pri));
        }
    }
    for (name, n) in &c.nodes {
        if !n.offline && n.free_mem <= mem {
            bad.push(format!(
                "node {name} keeps {} MiB free, not more than the reserve {mem}",
                n.free_mem
            ));
        }
    }
    bad
}

/// Replays the commands of `commands` (the text `-C` prints: `gnt-instance`
/// moves, and the `gnt-node` power and tag commands of a squeeze plan) on
/// `c` in order; returns the violations (empty when every step is safe).
pub fn replay(c: &mut Cluster, commands: &str) -> Vec<String> {
    let mut bad = Vec::new();
    for line in commands.lines() {
        if let Some(cmd) = line.trim().strip_prefix("gnt-node ") {
            node_command(c, cmd, &mut bad);
            continue;
        }
        let Some(cmd) = line.trim().strip_prefix("gnt-instance ") else {
            continue;
        };
        let words: Vec<&str> = cmd.split_whitespace().collect();
        let node_names: Vec<String> = c.nodes.keys().cloned().collect();
        let inst_alias = words.last().copied().unwrap_or("");
        let Some(iname) = resolve(c.insts.keys(), inst_alias) else {
            bad.push(format!("{cmd}: no instance {inst_alias}"));
            continue;
        };
        let target = words
            .iter()
            .position(|w| *w == "-n")
            .and_then(|p| words.get(p + 1))
            .map(|t| resolve(node_names.iter(), t));
        let inst = c.insts[&iname].clone();
        match (words[0], target.clone()) {
            ("migrate" | "failover", None) => {
                if inst.template != "drbd" {
                    bad.push(format!("{cmd}: failover of a {} instance", inst.template));
                    continue;
                }
                let (p, s) = (inst.pri.clone(), inst.sec.clone());
                if c.nodes.get(&s).is_none_or(|n| n.offline) {
                    bad.push(format!("{cmd}: secondary {s} is offline or unknown"));
                }
                if inst.running {
                    if let Some(n) = c.nodes.get_mut(&s) {
                        n.free_mem -= inst.mem;
                    }
                    if let Some(n) = c.nodes.get_mut(&p) {
                        n.free_mem += inst.mem;
                    }
                }
                let i = c.insts.get_mut(&iname).expect("present");
                i.pri = s;
                i.sec = p;
            }
            ("migrate" | "failover", Some(t)) => {
                let Some(t) = t else {
                    bad.push(format!("{cmd}: unknown target node"));
                    continue;
                };
                if inst.template == "drbd" || uses_local_disk(&inst.template) {
                    bad.push(format!(
                        "{cmd}: move of a {} instance to a named node",
                        inst.template
                    ));
                }
                if t == inst.pri || c.nodes.get(&t).is_none_or(|n| n.offline) {
                    bad.push(format!(
                        "{cmd}: target {t} is the primary, offline or unknown"
                    ));
                }
                if inst.running {
                    if let Some(n) = c.nodes.get_mut(&t) {
                        n.free_mem -= inst.mem;
                    }
                    if let Some(n) = c.nodes.get_mut(&inst.pri) {
                        n.free_mem += inst.mem;
                    }
                }
                c.insts.get_mut(&iname).expect("present").pri = t;
            }
            ("move", Some(t)) => {
                let Some(t) = t else {
                    bad.push(format!("{cmd}: unknown target node"));
                    continue;
                };
                if inst.template == "drbd" || inst.template == "diskless" {
                    bad.push(format!("{cmd}: copy of a {} instance", inst.template));
                }
                if t == inst.pri || c.nodes.get(&t).is_none_or(|n| n.offline) {
                    bad.push(format!(
                        "{cmd}: target {t} is the primary, offline or unknown"
                    ));
                }
                if let Some(n) = c.nodes.get_mut(&t) {
                    if inst.running {
                        n.free_mem -= inst.mem;
                    }
                    if uses_local_disk(&inst.template) {
                        n.free_dsk -= inst.dsk;
                    }
                }
                if let Some(n) = c.nodes.get_mut(&inst.pri) {
                    if inst.running {
                        n.free_mem += inst.mem;
                    }
                    if uses_local_disk(&inst.template) {
                        n.free_dsk += inst.dsk;
                    }
                }
                c.insts.get_mut(&iname).expect("present").pri = t;
            }
            ("replace-disks", Some(t)) => {
                let Some(t) = t else {
                    bad.push(format!("{cmd}: unknown target node"));
                    continue;
                };
                if inst.template != "drbd" {
                    bad.push(format!(
                        "{cmd}: replace-disks on a {} instance",
                        inst.template
                    ));
                    continue;
                }
                if t == inst.pri || t == inst.sec || c.nodes.get(&t).is_none_or(|n| n.offline) {
                    bad.push(format!("{cmd}: new secondary {t} is one of the instance's nodes, offline or unknown"));
                }
                if let Some(n) = c.nodes.get_mut(&t) {
                    n.free_dsk -= inst.dsk;
                }
                if let Some(n) = c.nodes.get_mut(&inst.sec) {
                    n.free_dsk += inst.dsk;
                }
                c.insts.get_mut(&iname).expect("present").sec = t;
            }
            _ => bad.push(format!("{cmd}: not a command a plan may contain")),
        }
        let touched = [&inst.pri, &inst.sec];
        let now = &c.insts[&iname];
        // A node of another group than the instance's primary may take
        // it only if that group's policy allows the template (Ganeti's
        // `CheckTargetNodeIPolicy` for `migrate` and `replace-disks -n`,
        // whenever the target's group is not the primary's).
        let target_node = match target {
            None => Some(inst.sec.clone()),
            Some(t) => t,
        };
        let group_of = |n: &str| c.nodes.get(n).map(|n| n.group.as_str());
        if let Some(node) = target_node.filter(|n| !n.is_empty()) {
            let group = group_of(&node);
            if group.is_some() && group != group_of(&inst.pri) {
                let allowed = group.and_then(|g| c.templates.get(g));
                if allowed.is_some_and(|a| !a.contains(&inst.template)) {
                    bad.push(format!(
                        "after `{cmd}`: {iname} ({}) is on {node}, whose group does not allow the template",
                        inst.template
                    ));
                }
            }
        }
        for (name, n) in c
            .nodes
            .iter()
            .filter(|(k, _)| touched.contains(k) || **k == now.pri || **k == now.sec)
        {
            if n.free_mem < 0 {
                bad.push(format!(
                    "after `{cmd}`: node {name} has {} MiB of memory free",
                    n.free_mem
                ));
            }
            if n.free_dsk < 0 {
                bad.push(format!(
                    "after `{cmd}`: node {name} has {} MiB of disk free",
                    n.free_dsk
                ));
            }
        }
    }
    bad
}
