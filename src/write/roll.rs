//! hroller's texts (`Program/Hroller.hs`): the node graph and the
//! colourings' statistics (`-v -v`, `-v -v -v`), the heading, each reboot
//! group (its nodes on one line, or one per line for `--one-step-only`)
//! and with `--print-moves` the moves it needs; for `-X`, each phase of a
//! group as the `gnt-instance` commands an operator would type, and what
//! stands in the way of a group that cannot be carried out (`Obstacle`'s
//! words).

use std::fmt;

use crate::search::reboot::{Action, Job, Obstacle};
use crate::search::roll::{Classes, Graph, Move};
use crate::write::json::Json;

/// `Node Graph: ` and Haskell's `show` of the graph (`array (lo,hi)
/// [(v,[...]),...]`).
pub fn graph(g: &Graph) -> String {
    let hi = g.lo + g.adj.len() - 1;
    let items: Vec<String> = g
        .vertices()
        .map(|v| {
            let n: Vec<String> = g.neighbours(v).iter().map(ToString::to_string).collect();
            format!("({v},[{}])", n.join(","))
        })
        .collect();
    format!("Node Graph: array ({},{hi}) [{}]\n", g.lo, items.join(","))
}

/// `getStats`: the colourings by size, each with its class sizes, and
/// whether it tied with or lost to the next.
pub fn stats(colourings: &[(&str, Classes)]) -> String {
    let mut by_size: Vec<&(&str, Classes)> = colourings.iter().collect();
    by_size.sort_by_key(|c| std::cmp::Reverse(c.1.len()));
    let stat = |(name, m): &(&str, Classes)| {
        let sizes: Vec<String> = m.values().map(|c| c.len().to_string()).collect();
        format!("{name}: {} ({})", m.len(), sizes.join(","))
    };
    let (mut old, mut text) = (0usize, String::new());
    for el in by_size.iter().rev() {
        let size = el.1.len();
        if old == 0 {
            text = stat(el);
        } else if old == size {
            text = format!("{text} TIE {}", stat(el));
        } else {
            text = format!("{text} LOOSE {}", stat(el));
        }
        old = size;
    }
    format!("{text}\n")
}

/// Which reboot groups are shown: all, or the first (`--one-step-only`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    All,
    First,
}

/// Whether a reboot group's moves follow its nodes (`--print-moves`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moves {
    Printed,
    Omitted,
}

/// The heading (`'Node Reboot Groups'`, or `'First Reboot Group'` for
/// `--one-step-only`).
pub fn heading(shown: Shown) -> &'static str {
    if shown == Shown::First {
        "'First Reboot Group'\n"
    } else {
        "'Node Reboot Groups'\n"
    }
}

/// One reboot group: its node names (one a line when only the first
/// group is shown), then its moves when asked for.
pub fn group(names: &[&str], moves: &[Move], shown: Shown, printed: Moves) -> String {
    let mut s = if shown == Shown::First {
        names.iter().map(|n| format!("{n}\n")).collect()
    } else {
        format!("{}\n", names.join(","))
    };
    if printed == Moves::Printed {
        for m in moves {
            match &m.secondary {
                Some(sec) => s.push_str(&format!("  {} {} {sec}\n", m.instance, m.primary)),
                None => s.push_str(&format!("  {} {}\n", m.instance, m.primary)),
            }
        }
    }
    s
}

/// A reboot group in the `--json` document: its nodes, then the moves
/// that clear them (instance, new primary, new secondary or `null`).
pub fn group_document(names: &[&str], moves: &[Move]) -> Json {
    let moves = moves
        .iter()
        .map(|m| {
            Json::Obj(vec![
                ("instance", Json::Str(m.instance.clone())),
                ("primary", Json::Str(m.primary.clone())),
                (
                    "secondary",
                    m.secondary.clone().map_or(Json::Null, Json::Str),
                ),
            ])
        })
        .collect();
    Json::Obj(vec![
        ("nodes", crate::write::document::names(names)),
        ("moves", Json::Arr(moves)),
    ])
}

/// The `gnt-instance` command of each action of `jobs`, one per line
/// (indented), the instances and nodes named by `instance` and `node`.
pub fn commands(
    jobs: &[Job],
    instance: impl Fn(usize) -> String,
    node: impl Fn(usize) -> String,
) -> String {
    let mut s = String::new();
    for j in jobs {
        let i = instance(j.instance);
        for a in &j.actions {
            let line = match *a {
                Action::Migrate(None) => format!("gnt-instance migrate -f {i}"),
                Action::Migrate(Some(t)) => format!("gnt-instance migrate -f -n {} {i}", node(t)),
                Action::Move(t) => format!("gnt-instance move -f -n {} {i}", node(t)),
                Action::ReplaceSecondary(t) => {
                    format!("gnt-instance replace-disks -n {} {i}", node(t))
                }
                Action::Resync => format!("gnt-instance activate-disks --wait-for-sync {i}"),
                Action::Shutdown => format!("gnt-instance shutdown {i}"),
                Action::Startup => format!("gnt-instance startup {i}"),
            };
            s.push_str("  ");
            s.push_str(&line);
            s.push('\n');
        }
    }
    s
}

/// The `--json` document of `program`'s run (`docs/json.md`): whether
/// only the first reboot group is shown, then each node group's reboot
/// groups ([`group_document`]).
pub fn document(
    program: &str,
    ganeti: crate::model::types::GanetiVersion,
    shown: Shown,
    groups: Vec<Json>,
) -> Json {
    crate::write::document::document(
        program,
        ganeti,
        vec![
            ("one_step_only", Json::Bool(shown == Shown::First)),
            ("groups", Json::Arr(groups)),
        ],
    )
}

/// What stands in the way of an instance leaving its reboot group, as
/// `-X`'s refusal says it ("... cannot leave: {obstacle}").
impl fmt::Display for Obstacle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Obstacle::BothNodesInGroup => {
                f.write_str("its primary and secondary nodes are both in the group")
            }
            Obstacle::TargetOffline(name) => write!(f, "its target node {name} is offline"),
            Obstacle::TargetInGroup(name) => {
                write!(f, "its target node {name} is rebooted in the same group")
            }
            Obstacle::Refused(name, mode) => write!(f, "node {name} cannot take it ({mode})"),
            Obstacle::OldPrimaryRefused(mode) => {
                write!(f, "its old primary cannot be its secondary ({mode})")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_and_moves() {
        let moves = vec![
            Move {
                instance: "i1".to_owned(),
                primary: "n3".to_owned(),
                secondary: None,
            },
            Move {
                instance: "i2".to_owned(),
                primary: "n4".to_owned(),
                secondary: Some("n5".to_owned()),
            },
        ];
        assert_eq!(
            group(&["n1", "n2"], &moves, Shown::All, Moves::Printed),
            "n1,n2\n  i1 n3\n  i2 n4 n5\n"
        );
        assert_eq!(
            group(&["n1", "n2"], &moves, Shown::First, Moves::Omitted),
            "n1\nn2\n"
        );
        assert_eq!(group(&[], &moves, Shown::All, Moves::Omitted), "\n");
    }

    #[test]
    fn phase_commands() {
        let jobs = vec![
            Job {
                instance: 0,
                actions: vec![Action::Migrate(None), Action::ReplaceSecondary(2)],
            },
            Job {
                instance: 1,
                actions: vec![Action::Move(1), Action::Resync, Action::Startup],
            },
        ];
        let text = commands(&jobs, |i| format!("i{i}"), |n| format!("n{n}"));
        assert_eq!(
            text,
            "  gnt-instance migrate -f i0\n  gnt-instance replace-disks -n n2 i0\n  gnt-instance move -f -n n1 i1\n  gnt-instance activate-disks --wait-for-sync i1\n  gnt-instance startup i1\n"
        );
    }
}
