//! hbal's texts (`Cluster.printSolutionLine`, `computeMoves`,
//! `formatCmds`, `printInsts`, `printStats`): the step lines, the
//! commands of a plan and its job sets, the instance map and the score
//! table, each in hbal 3.0.2's exact format.

use crate::haskell::show::printf_fixed;
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
                lines.push(format!("  gnt-instance {c}"));
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
pub fn instance_map(rows: &[InstanceRow<'_>]) -> String {
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
