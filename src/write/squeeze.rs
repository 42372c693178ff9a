//! hsqueeze's texts (`Program/Hsqueeze.hs`): the candidate lines, the
//! decision's heading and node list, and the commands of a plan (the
//! moves' job sets, then the tag and power commands of the nodes); and
//! the `--json` document of a run ([`document`]).

/// The tag hsqueeze puts on the nodes it powers off (`standbyAuto`).
pub const STANDBY_TAG: &str = "htools:standby:auto";

/// The candidates of `-v -v`: the nodes that could be powered off and
/// the standby nodes that could be powered on, by full name.
pub fn candidates(off: &[&str], on: &[&str]) -> String {
    format!(
        "Offline candidates: {}\nOnline candidates: {}\n",
        off.join(","),
        on.join(",")
    )
}

/// The decision's heading, quoted (`None` with `--no-headers`), and its
/// nodes by full name, one a line.
pub fn decision(heading: Option<&str>, nodes: &[&str]) -> String {
    let mut text = heading.map_or_else(String::new, |h| format!("'{h}'\n"));
    for n in nodes {
        text.push_str(n);
        text.push('\n');
    }
    text
}

/// The note that even every standby node is not enough (`-v -v`).
pub const NOT_ENOUGH: &str = "Onlining all nodes will not yield enough capacity\n";

/// The commands of powering on the nodes `aliases`, then the moves'
/// commands (`moves`, as `write::balance::format_commands` writes them).
pub fn online_commands(aliases: &[&str], moves: &str) -> String {
    let mut cmds = String::from("echo Power Commands\n");
    for a in aliases {
        cmds.push_str(&format!("  gnt-node power -f on {a}\n"));
    }
    cmds.push_str(moves);
    cmds
}

/// The moves' commands (`moves`), then tagging the nodes `aliases`
/// standby and powering them off.
pub fn offline_commands(aliases: &[&str], moves: &str) -> String {
    let mut cmds = String::from(moves);
    cmds.push_str("\necho Tagging Commands\n");
    for a in aliases {
        cmds.push_str(&format!("  gnt-node add-tags {a} {STANDBY_TAG}\n"));
    }
    cmds.push_str("\necho Power Commands\n");
    for a in aliases {
        cmds.push_str(&format!("  gnt-node power -f off {a}\n"));
    }
    cmds
}

/// The progress line on a terminal: it rewrites itself (`\r`) as trials
/// are taken.
pub fn progress(p: &crate::search::squeeze::Progress) -> String {
    let (what, verb) = if p.on {
        ("standby nodes", "to power on")
    } else {
        ("candidate nodes", "to power off")
    };
    format!(
        "\rhailstone-squeeze: {} of {} {what} tried, {} {verb} so far",
        p.tried, p.candidates, p.chosen
    )
}

/// The commands when nothing is to be done.
pub const NOTHING_TO_DO: &str = "echo Nothing to do";

/// The comment of the jobs `-X` submits: expanding (`on`) or condensing
/// by `count` nodes.
pub fn jobs_comment(on: bool, count: usize, program: &str, version: &str) -> String {
    let what = if on { "expanding" } else { "condensing" };
    format!("{what} by {count} nodes ({program} {version})")
}

/// What a run decided, for its `--json` document.
pub struct Decided<'a> {
    /// `online`, `offline` or `no-action`.
    pub decision: &'a str,
    /// The nodes to power on or off, by full name.
    pub nodes: &'a [&'a str],
    /// Whether the nodes powered on are enough (`null` unless powering on).
    pub enough: Option<bool>,
    /// The candidates to power off and on.
    pub candidates: (&'a [&'a str], &'a [&'a str]),
}

/// The `--json` document of `program`'s run (`docs/json.md`): the
/// decision, its nodes, the candidates, the plan's `moves` and its
/// `cautions` (as `--explain` gives them).
pub fn document(
    program: &str,
    ganeti: crate::model::types::GanetiVersion,
    d: &Decided<'_>,
    moves: Vec<crate::write::json::Json>,
    cautions: crate::write::json::Json,
) -> crate::write::json::Json {
    use crate::write::document::{self, names};
    use crate::write::json::Json;
    document::document(
        program,
        ganeti,
        vec![
            ("decision", Json::Str(d.decision.to_owned())),
            ("nodes", names(d.nodes)),
            ("enough", d.enough.map_or(Json::Null, Json::Bool)),
            (
                "candidates",
                Json::Obj(vec![
                    ("offline", names(d.candidates.0)),
                    ("online", names(d.candidates.1)),
                ]),
            ),
            ("moves", Json::Arr(moves)),
            ("cautions", cautions),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_as_hsqueeze_prints_them() {
        assert_eq!(
            offline_commands(&["n2"], ""),
            "\necho Tagging Commands\n  gnt-node add-tags n2 htools:standby:auto\n\necho Power Commands\n  gnt-node power -f off n2\n"
        );
        assert_eq!(
            online_commands(&["n3"], ""),
            "echo Power Commands\n  gnt-node power -f on n3\n"
        );
        assert_eq!(decision(Some("No action"), &[]), "'No action'\n");
        assert_eq!(decision(None, &["a"]), "a\n");
    }
}
