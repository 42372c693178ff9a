//! hbal's texts (`Cluster.printSolutionLine`, `computeMoves`,
//! `formatCmds`, `printInsts`, `printStats`): the step lines, the
//! commands of a plan and its job sets, the instance map and the score
//! table, each in hbal 3.0.2's exact format; and the `--json` document
//! of a run ([`Head::document`]).

use crate::haskell::show::{printf_fixed, printf_general, show_string, show_string_list};
use crate::model::instance::{Instance, NO_NODE};
use crate::model::node::Node;
use crate::model::types::{GanetiVersion, IMove, SoftChecks};
use crate::model::Cluster;
use crate::search::balance::group::{GroupCheck, SelectError};
use crate::search::groups::Relocation;
use crate::write::document::{self, command};
use crate::write::json::Json;
use crate::write::table::print_table;

/// A move as hbal writes it, with the name of the node it goes to (`c`:
/// the new primary of `fa:c`, `r:c f` and `f r:c f`; `d`: the new
/// secondary of `r:d` and `f r:d`, as in `computeMoves`): aliases in hbal's
/// texts, full names in the opcodes ([`crate::write::opcodes`]).
pub type MoveText<'a> = crate::model::types::IMove<&'a str>;

/// The `a=` text and the `gnt-instance` commands of a move of instance
/// `inst` (its alias), which migrates when `running` and fails over
/// otherwise.
pub fn move_commands(mv: MoveText<'_>, inst: &str, running: bool) -> (String, Vec<String>) {
    let morf = if running { "migrate" } else { "failover" };
    let mig = format!("{morf} -f {inst}");
    let rep = |n: &str| format!("replace-disks -n {n} {inst}");
    match mv {
        MoveText::Failover => ("f".to_owned(), vec![mig]),
        MoveText::FailoverToAny(c) => (format!("fa:{c}"), vec![format!("{morf} -f -n {c} {inst}")]),
        MoveText::FailoverAndReplace(d) => (format!("f r:{d}"), vec![mig, rep(d)]),
        MoveText::ReplaceSecondary(d) => (format!("r:{d}"), vec![rep(d)]),
        MoveText::ReplaceAndFailover(c) => (format!("r:{c} f"), vec![rep(c), mig]),
        MoveText::ReplacePrimary(c) => (format!("f r:{c} f"), vec![mig.clone(), rep(c), mig]),
    }
}

/// Pads on the right to `width` characters (`%-*s`; never truncates).
fn left(s: &str, width: usize) -> String {
    format!("{s:<width$}")
}

/// One step line: `  %3d. %-*s %-*s => %-*s %12.8f a=%s`.
#[allow(clippy::too_many_arguments)]
pub fn solution_line(
    pos: usize,
    imlen: usize,
    inst: &str,
    nmlen: usize,
    old_nodes: &str,
    new_nodes: &str,
    score: f64,
    moves: &str,
) -> String {
    let pmlen = 2 * nmlen + 1;
    format!(
        "  {pos:>3}. {} {} => {} {:>12} a={moves}",
        left(inst, imlen),
        left(old_nodes, pmlen),
        left(new_nodes, pmlen),
        printf_fixed(score, 8)
    )
}

/// The job sets as `formatCmds` writes them: per set an empty line and
/// `echo jobset N, M jobs`, per job `  echo job N/K`, `  check` and its
/// commands.
pub fn format_commands(jobsets: &[Vec<Vec<String>>]) -> String {
    let mut lines: Vec<String> = Vec::new();
    for (jsn, set) in jobsets.iter().enumerate() {
        for (sn, cmds) in set.iter().enumerate() {
            if sn == 0 {
                lines.push(String::new());
                lines.push(format!("echo jobset {}, {} jobs", jsn + 1, set.len()));
            }
            lines.push(format!("  echo job {}/{}", jsn + 1, sn + 1));
            lines.push("  check".to_owned());
            for c in cmds {
                lines.push(format!("  {}", command(c)));
            }
        }
    }
    let mut out = String::new();
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// `-C` on stdout: an empty line, the heading, then the commands with two
/// more spaces and without the `check` lines.
pub fn commands_for_stdout(heading: &str, commands: &str) -> String {
    let mut out = format!("\n{heading}\n");
    for line in commands.lines().filter(|l| *l != "  check") {
        out.push_str("  ");
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The shell script of `-CFILE`.
pub fn commands_script(commands: &str) -> String {
    const TEMPLATE: &str = "#!/bin/sh\n\n\
# Auto-generated script for executing cluster rebalancing\n\n\
# To stop, touch the file /tmp/stop-htools\n\n\
set -e\n\n\
check() {\n  if [ -f /tmp/stop-htools ]; then\n    echo 'Stop requested, exiting'\n    exit 0\n  fi\n}\n\n";
    format!("{TEMPLATE}{commands}")
}

/// One row of the instance map (`printInsts`).
pub struct InstanceRow<'a> {
    pub running: bool,
    pub name: &'a str,
    pub primary: &'a str,
    pub secondary: &'a str,
    pub auto_balance: bool,
    pub vcpus: i64,
    pub mem: i64,
    pub dsk: i64,
    pub util: [f64; 4],
}

/// The instance map table.
pub fn instance_table(rows: &[InstanceRow<'_>]) -> String {
    let header: Vec<String> = [
        "F", "Name", "Pri_node", "Sec_node", "Auto_bal", "vcpu", "mem", "dsk", "lCpu", "lMem",
        "lDsk", "lNet",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut v = vec![
                if r.running { "R" } else { " " }.to_owned(),
                r.name.to_owned(),
                r.primary.to_owned(),
                r.secondary.to_owned(),
                if r.auto_balance { "Y" } else { "N" }.to_owned(),
                format!("{:>3}", r.vcpus),
                format!("{:>5}", r.mem),
                format!("{:>5}", r.dsk.div_euclid(1024)),
            ];
            v.extend(r.util.iter().map(|u| format!("{:>5}", printf_fixed(*u, 3))));
            v
        })
        .collect();
    let numeric = [
        false, false, false, false, false, true, true, true, true, true, true, true,
    ];
    print_table("", &header, &cells, &numeric)
}

/// The score table of `-v -v` (`printStats`): one row per component,
/// `(name, value, weight)` (none when there is no online node).
pub fn stats_table(components: &[(&str, f64, f64)]) -> String {
    let header: Vec<String> = ["Field", "Value", "Weight"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let rows: Vec<Vec<String>> = components
        .iter()
        .map(|(name, v, w)| {
            vec![
                (*name).to_owned(),
                printf_fixed(*v, 8),
                format!("x{}", printf_fixed(*w, 2)),
            ]
        })
        .collect();
    print_table("  ", &header, &rows, &[false, true, true])
}

/// The verbose lines on the loaded cluster (`-v -v`).
pub fn loaded_cluster(tags: &[String], ipolicy: &crate::model::policy::IPolicy) -> String {
    format!(
        "Loaded cluster tags: {}\nLoaded cluster ipolicy: {}\n",
        tags.join(","),
        crate::model::show::show_ipolicy(ipolicy)
    )
}

/// `checkCluster`'s note on instances split between groups (`-v -v`).
pub fn split_instances(names: &[&str]) -> String {
    if names.is_empty() {
        return String::new();
    }
    let mut text = String::from("Found instances belonging to multiple node groups:\n");
    for n in names {
        text.push_str(&format!("  {n}\n"));
    }
    text.push_str("These instances will not be moved.\n");
    text
}

/// Why no group could be chosen (`selectGroup`): the groups with nodes,
/// or every group, by name.
pub fn select_error(err: &SelectError, cluster: &Cluster) -> String {
    let (mut text, listed): (String, Vec<usize>) = match err {
        SelectError::Several(with_nodes) => (
            "Found multiple node groups:\n".to_owned(),
            with_nodes.clone(),
        ),
        SelectError::NotFound(g) => (
            format!("Node group {g} not found. Node group list is:\n"),
            (0..cluster.groups.len()).collect(),
        ),
    };
    for g in listed {
        text.push_str(&format!("  {}\n", cluster.groups[g].name));
    }
    text.push_str("Error: Aborting.\n");
    text
}

/// The instances `--select-instances` and `--exclude-instances` name that
/// do not exist.
pub fn unknown_instances(names: &[String]) -> String {
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    format!("Unknown instance(s): {}", show_string_list(&names))
}

/// The nodes `-O` names that do not exist.
pub fn wrong_offline(names: &[String]) -> String {
    format!(
        "Error: wrong node name(s) set as offline: {}\n\n",
        names.join(",")
    )
}

/// The cluster's size, and above verbosity 1 the suffix names lose.
pub fn loaded(cluster: &Cluster, verbose: i64) -> String {
    let mut text = format!(
        "Loaded {} nodes, {} instances\n",
        cluster.nodes.len(),
        cluster.instances.len()
    );
    if verbose > 1 {
        text.push_str(&crate::write::notes::suffix(cluster));
    }
    text
}

/// The widths of the step lines' instance and node columns: the longest
/// alias of each.
pub fn name_widths(instances: &[&Instance], nodes: &[&Node]) -> (usize, usize) {
    let widest = |it: &mut dyn Iterator<Item = usize>| it.max().unwrap_or(0);
    (
        widest(&mut instances.iter().map(|i| i.alias().chars().count())),
        widest(&mut nodes.iter().map(|n| n.info.alias().chars().count())),
    )
}

/// `printInsts` under `heading` (`Initial`, `Final`): the instances with
/// their nodes by full name (`names` by node index).
pub fn instance_map(heading: &str, instances: &[&Instance], names: &[(String, usize)]) -> String {
    let full = |k: i32| -> &str {
        usize::try_from(k)
            .ok()
            .and_then(|k| names.get(k))
            .map_or("", |(n, _)| n.as_str())
    };
    let rows: Vec<InstanceRow<'_>> = instances
        .iter()
        .map(|i| InstanceRow {
            running: i.run_state.is_running(),
            name: &i.name,
            primary: full(i.p_node),
            secondary: if i.s_node == NO_NODE {
                ""
            } else {
                full(i.s_node)
            },
            auto_balance: i.auto_balance,
            vcpus: i.vcpus,
            mem: i.mem,
            dsk: i.dsk,
            util: i.util,
        })
        .collect();
    format!("\n{heading} instance map:\n{}", instance_table(&rows))
}

/// `checkGroup`'s report on stdout, at verbosity `verbose`, for the group
/// `name`, the soft checks as `--ignore-soft-errors` says.
pub fn group_check(check: &GroupCheck<'_>, name: &str, verbose: i64, soft: SoftChecks) -> String {
    let mut text = format!(
        "Group size {} nodes, {} instances\nSelected node group: {name}\n",
        check.nodes.len(),
        check.instances.len()
    );
    if verbose >= 1 {
        text.push_str(&format!(
            "Initial check done: {} bad nodes, {} bad instances.\n",
            check.bad_nodes.len(),
            check.bad_instances
        ));
    }
    if verbose > 4 {
        let bad: Vec<&str> = check
            .bad_nodes
            .iter()
            .map(|n| n.info.name.as_str())
            .collect();
        let happy: Vec<&str> = check
            .others
            .iter()
            .map(|(n, _)| n.info.name.as_str())
            .collect();
        let status: Vec<String> = check
            .others
            .iter()
            .map(|(n, fault)| {
                format!(
                    "({},{})",
                    show_string(&n.info.name),
                    fault.unwrap_or("Ok ()")
                )
            })
            .collect();
        text.push_str(&format!("Bad nodes: {}\n", show_string_list(&bad)));
        text.push_str(&format!("N+1 happy nodes: {}\n", show_string_list(&happy)));
        text.push_str(&format!("Node policy status: [{}]\n", status.join(",")));
    }
    if !check.bad_nodes.is_empty() {
        text.push_str("Cluster is not N+1 happy, continuing but no guarantee that the cluster will end N+1 happy.\n");
    }
    let policy_bad = check.policy_violations();
    if policy_bad > 0 {
        text.push_str(&format!(
            "The cluster contains {policy_bad} policy-violating nodes.\n"
        ));
        text.push_str(if soft == SoftChecks::Ignore {
            "Continuing, ignoring soft errors.\n"
        } else {
            "Continuing, but the set of moves might be too restricted; consider using the --ignore-soft-errors option.\n"
        });
    }
    text
}

/// The score before balancing: the overall score and, above verbosity 2,
/// each component (`components`: name, value, weight).
pub fn initial_score(score: f64, components: &[(&str, f64, f64)], verbose: i64) -> String {
    if verbose > 2 {
        format!(
            "Initial coefficients: overall {}\n{}",
            printf_fixed(score, 8),
            stats_table(components)
        )
    } else {
        format!("Initial score: {}\n", printf_fixed(score, 8))
    }
}

/// hbal's stop when the group is within `-e` of its optimal score.
pub fn well_balanced(initial: f64, optimal: f64, min_score: f64) -> String {
    format!(
        "Cluster is already well balanced (initial score {},\noptimum score due to N+1 reservations {},\nminimum score {}).\nNothing to do, exiting\n",
        printf_general(initial, 6),
        printf_general(optimal, 6),
        printf_general(min_score, 6)
    )
}

/// The lines after the balancing: the outcome, and the solution's length
/// from verbosity 1.
pub fn balanced(
    steps: usize,
    initial: f64,
    fin: f64,
    components: &[(&str, f64, f64)],
    verbose: i64,
) -> String {
    let mut text = if steps == 0 {
        "No solution found\n".to_owned()
    } else if verbose > 2 {
        format!(
            "Final coefficients:   overall {}\n{}",
            printf_fixed(fin, 8),
            stats_table(components)
        )
    } else {
        format!(
            "Cluster score improved from {} to {}\n",
            printf_fixed(initial, 8),
            printf_fixed(fin, 8)
        )
    };
    if verbose >= 1 {
        text.push_str(&format!("Solution length={steps}\n"));
    }
    text
}

/// The group's free memory and disk before and after (`-v -v -v -v`).
pub fn free_totals(before: (i128, i128), after: (i128, i128)) -> String {
    format!(
        "Original: mem={} disk={}\nFinal:    mem={} disk={}\n",
        before.0, before.1, after.0, after.1
    )
}

/// One relocation's `gnt-instance` commands, full names, and the nodes it
/// involves (before and after each move): a failover migrates a running
/// instance whose primary is online and otherwise fails over (ignoring the
/// consistency of disks on an offline primary); a move to a named node the
/// same with `-n`; a new secondary is `replace-disks -n`.
pub fn relocation(cluster: &Cluster, r: &Relocation) -> (Vec<String>, Vec<i32>) {
    let inst = &cluster.instances[r.inst].name;
    let name = |k: i32| {
        usize::try_from(k)
            .ok()
            .and_then(|k| cluster.nodes.get(k))
            .map_or("", |n| n.info.name.as_str())
    };
    let offline = |k: i32| {
        usize::try_from(k)
            .ok()
            .and_then(|k| cluster.nodes.get(k))
            .is_some_and(|n| n.offline)
    };
    let (mut p, mut s) = r.old_nodes;
    let mut commands = Vec::new();
    let mut nodes: Vec<i32> = Vec::new();
    let involve = |k: i32, nodes: &mut Vec<i32>| {
        if k != NO_NODE && !nodes.contains(&k) {
            nodes.push(k);
        }
    };
    involve(p, &mut nodes);
    involve(s, &mut nodes);
    for mv in &r.moves {
        let switch = |target: Option<i32>| -> String {
            let to = target.map_or(String::new(), |t| format!(" -n {}", name(t)));
            if offline(p) {
                format!("failover -f --ignore-consistency{to} {inst}")
            } else if r.running {
                format!("migrate -f{to} {inst}")
            } else {
                format!("failover -f{to} {inst}")
            }
        };
        match *mv {
            IMove::Failover => {
                commands.push(switch(None));
                std::mem::swap(&mut p, &mut s);
            }
            IMove::FailoverToAny(t) => {
                commands.push(switch(Some(t as i32)));
                p = t as i32;
            }
            IMove::ReplaceSecondary(t) => {
                commands.push(format!("replace-disks -n {} {inst}", name(t as i32)));
                s = t as i32;
            }
            // A group change moves only by the three above.
            other => commands.push(format!("# unexpected move {other:?} of {inst}")),
        }
        involve(p, &mut nodes);
        involve(s, &mut nodes);
    }
    (commands, nodes)
}

/// The `--json` document of a cluster without instances.
pub fn empty_document(program: &str, ganeti: GanetiVersion) -> Json {
    document::document(
        program,
        ganeti,
        vec![("status", Json::Str("empty".to_owned()))],
    )
}

/// The score's components: name, value, weight (`metric::components`).
pub type Terms<'a> = &'a [(&'a str, f64, f64)];

/// What the document of a run says about the group before and after.
pub struct Head<'a> {
    pub group: &'a str,
    pub check: &'a GroupCheck<'a>,
    /// Initial, final, optimal score and `-e`.
    pub scores: (f64, f64, f64, f64),
    /// The score's components before and after.
    pub components: (Terms<'a>, Terms<'a>),
}

impl Head<'_> {
    /// The `--json` document of `program`'s run (`docs/json.md`):
    /// `status`, the group, its check, scores, components and the moves.
    pub fn document(
        &self,
        program: &str,
        ganeti: GanetiVersion,
        status: &str,
        moves: Vec<Json>,
    ) -> Json {
        let (initial, fin, optimal, min_score) = self.scores;
        let check = self.check;
        let node_names = |nodes: &[&Node]| {
            document::names(
                &nodes
                    .iter()
                    .map(|n| n.info.name.as_str())
                    .collect::<Vec<_>>(),
            )
        };
        let violations: Vec<Json> = check
            .others
            .iter()
            .filter_map(|(n, f)| f.map(|f| (n, f)))
            .map(|(n, f)| {
                Json::Obj(vec![
                    ("node", Json::Str(n.info.name.clone())),
                    ("fault", Json::Str(f.to_owned())),
                ])
            })
            .collect();
        document::document(
            program,
            ganeti,
            vec![
                ("status", Json::Str(status.to_owned())),
                ("group", Json::Str(self.group.to_owned())),
                ("nodes", Json::Int(document::count(check.nodes.len()))),
                (
                    "instances",
                    Json::Int(document::count(check.instances.len())),
                ),
                ("n1_failures", node_names(&check.bad_nodes)),
                (
                    "instances_on_n1_failures",
                    Json::Int(document::count(check.bad_instances)),
                ),
                ("policy_violations", Json::Arr(violations)),
                (
                    "score",
                    Json::Obj(vec![
                        ("initial", Json::Num(initial)),
                        ("final", Json::Num(fin)),
                        ("optimal", Json::Num(optimal)),
                        ("min_score", Json::Num(min_score)),
                    ]),
                ),
                (
                    "components",
                    Json::Obj(vec![
                        ("initial", document::components(self.components.0)),
                        ("final", document::components(self.components.1)),
                    ]),
                ),
                ("moves", Json::Arr(moves)),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_line_layout() {
        let (a, cmds) = move_commands(MoveText::ReplacePrimary("n3"), "i1", true);
        assert_eq!(a, "f r:n3 f");
        assert_eq!(
            cmds,
            ["migrate -f i1", "replace-disks -n n3 i1", "migrate -f i1"]
        );
        assert_eq!(
            solution_line(1, 4, "i1", 2, "n1:n2", "n3:n2", 1.5, &a),
            "    1. i1   n1:n2 => n3:n2   1.50000000 a=f r:n3 f"
        );
    }

    #[test]
    fn commands_layout() {
        let sets = vec![vec![vec!["migrate -f i1".to_owned()]]];
        let text = format_commands(&sets);
        assert_eq!(
            text,
            "\necho jobset 1, 1 jobs\n  echo job 1/1\n  check\n  gnt-instance migrate -f i1\n"
        );
        assert_eq!(
            commands_for_stdout("Commands to run to reach the above solution:", &text),
            "\nCommands to run to reach the above solution:\n  \n  echo jobset 1, 1 jobs\n    echo job 1/1\n    gnt-instance migrate -f i1\n"
        );
    }
}
