//! The `--json` documents of the planners and checkers (schema:
//! `docs/json.md`): one JSON object per run, on one line of stdout,
//! instead of the text, carrying the same figures. This module owns what
//! the documents share: their head, a planned move, score components, and
//! the typed values of the `KEY=value` lines of `--machine-readable`; and
//! the document of `hailstone-groups` ([`operation_document`]), whose
//! report is `write::groups::report_json`. The other programs' documents
//! are in their own writers (`write::balance`, `write::check`,
//! `write::squeeze`, ...).

use crate::model::types::{GanetiVersion, IMove};
use crate::search::balance::Placement;
use crate::write::json::{s, Json};

/// `--json` with `-X`: refused before anything is read.
pub const JSON_AND_EXEC: &str =
    "Error: --json prints the plan and -X carries it out: run them one after the other.\n";

/// The schema's version, in every document (`"schema"`); raised when a
/// field changes meaning or goes away, not when one is added.
pub const SCHEMA: i64 = 1;

/// A document: `program`, `schema`, the Ganeti release followed, then
/// the program's own `fields`.
pub fn document(program: &str, ganeti: GanetiVersion, fields: Vec<(&'static str, Json)>) -> Json {
    let mut all = vec![
        ("program", s(program)),
        ("schema", Json::Int(SCHEMA)),
        ("ganeti", s(ganeti.release())),
    ];
    all.extend(fields);
    Json::Obj(all)
}

/// A move's kind (Ganeti's `IMove` constructors, in lower case with
/// dashes).
pub fn move_kind<N>(mv: &IMove<N>) -> &'static str {
    match mv {
        IMove::Failover => "failover",
        IMove::FailoverToAny(_) => "failover-to-any",
        IMove::ReplaceSecondary(_) => "replace-secondary",
        IMove::ReplacePrimary(_) => "replace-primary",
        IMove::ReplaceAndFailover(_) => "replace-and-failover",
        IMove::FailoverAndReplace(_) => "failover-and-replace",
    }
}

/// `{"primary":P,"secondary":S}`, `null` for no node.
pub fn node_pair(primary: Option<&str>, secondary: Option<&str>) -> Json {
    let name = |n: Option<&str>| n.map_or(Json::Null, s);
    Json::Obj(vec![
        ("primary", name(primary)),
        ("secondary", name(secondary)),
    ])
}

/// One step of a plan: its number, the instance, the kind of move, the
/// nodes before and after (by full name: `node` names an index, `None`
/// for no node), the cluster score after it, its `gnt-instance` commands
/// (`gnt-instance` subcommands) and the job set it is in (from 1).
pub fn plan_move(
    step: usize,
    instance: &str,
    p: &Placement,
    node: &dyn Fn(i32) -> Option<String>,
    commands: &[String],
    job_set: usize,
) -> Json {
    let pair = |(a, b): (i32, i32)| node_pair(node(a).as_deref(), node(b).as_deref());
    Json::Obj(vec![
        ("step", Json::Int(count(step))),
        ("instance", s(instance)),
        ("move", s(move_kind(&p.mv))),
        ("from", pair(p.old_nodes)),
        ("to", pair(p.new_nodes)),
        ("score", Json::Num(p.score)),
        ("commands", command_lines(commands)),
        ("job_set", Json::Int(count(job_set))),
    ])
}

/// A `gnt-instance` subcommand as the command line an operator runs (the
/// lines of `-C`, the documents' `commands`).
pub fn command(c: &str) -> String {
    format!("gnt-instance {c}")
}

/// A step's `gnt-instance` subcommands as the command lines of `-C`.
pub fn command_lines(commands: &[String]) -> Json {
    Json::Arr(commands.iter().map(|c| s(&command(c))).collect())
}

/// The score's components (`metric::components`: name, value, weight).
pub fn components(values: &[(&str, f64, f64)]) -> Json {
    Json::Arr(
        values
            .iter()
            .map(|(name, value, weight)| {
                Json::Obj(vec![
                    ("name", s(name)),
                    ("value", Json::Num(*value)),
                    ("weight", Json::Num(*weight)),
                ])
            })
            .collect(),
    )
}

/// A count as a JSON integer.
pub fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Names as a JSON array of strings.
pub fn names<S: AsRef<str>>(v: &[S]) -> Json {
    Json::Arr(v.iter().map(|x| s(x.as_ref())).collect())
}

/// A `--machine-readable` value typed: an integer or a decimal number as
/// a number, anything else (names, lists, `'quoted text'` unquoted) as a
/// string.
pub fn typed(value: &str) -> Json {
    let v = value
        .strip_prefix('\'')
        .and_then(|v| v.strip_suffix('\''))
        .unwrap_or(value);
    let numeric = !v.is_empty()
        && v.bytes()
            .all(|b| b.is_ascii_digit() || b == b'-' || b == b'.')
        && v.bytes().any(|b| b.is_ascii_digit());
    if numeric {
        if let Ok(i) = v.parse::<i64>() {
            return Json::Int(i);
        }
        if let Ok(x) = v.parse::<f64>() {
            return Json::Num(x);
        }
    }
    s(v)
}

/// The `PREFIX_KEY=value` lines of a `--machine-readable` text as one
/// object, `KEY` to its typed value, in the text's order.
pub fn keys(prefix: &str, text: &str) -> Json {
    let lead = format!("{prefix}_");
    Json::Map(
        text.lines()
            .filter_map(|l| l.strip_prefix(lead.as_str()))
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_owned(), typed(v)))
            .collect(),
    )
}

/// The `--json` document of an operation across node groups
/// (`hailstone-groups`, `docs/json.md`): the operation, whether every
/// group is healthy, its `report`, the plan's moves given as job sets
/// (from 1) of instances with their commands and costs, and the plan's
/// `cost` (`null` for an operation that plans nothing).
pub fn operation_document(
    program: &str,
    ganeti: GanetiVersion,
    operation: &str,
    healthy: bool,
    report: Json,
    sets: &[Vec<(&str, &[String], Json)>],
    cost: Json,
) -> Json {
    let mut moves = Vec::new();
    for (set, members) in sets.iter().enumerate() {
        for (instance, commands, move_cost) in members {
            moves.push(Json::Obj(vec![
                ("step", Json::Int(count(moves.len() + 1))),
                ("instance", s(instance)),
                ("commands", command_lines(commands)),
                ("job_set", Json::Int(count(set + 1))),
                ("cost", move_cost.clone()),
            ]));
        }
    }
    document(
        program,
        ganeti,
        vec![
            ("operation", s(operation)),
            ("healthy", Json::Bool(healthy)),
            ("report", report),
            ("moves", Json::Arr(moves)),
            ("cost", cost),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machine_readable_values_are_typed() {
        assert_eq!(typed("12"), Json::Int(12));
        assert_eq!(typed("-3"), Json::Int(-3));
        assert_eq!(typed("0.50000000"), Json::Num(0.5));
        assert_eq!(typed("'a-b c'"), s("a-b c"));
        assert_eq!(typed("node1.example.com"), s("node1.example.com"));
        assert_eq!(typed("FailMem"), s("FailMem"));
        assert_eq!(typed("-"), s("-"));
        assert_eq!(
            keys("HTS", "HTS_INI_SCORE=1.5\nHTS_OK=1\nother\n").line(),
            "{\"INI_SCORE\":1.5,\"OK\":1}\n"
        );
    }

    #[test]
    fn moves_are_named_as_ganeti_names_them() {
        let p = Placement {
            inst: 0,
            old_nodes: (0, 1),
            new_nodes: (2, 1),
            mv: IMove::ReplacePrimary(2),
            score: 0.25,
        };
        let names = ["n1", "n2", "n3"];
        let node = |k: i32| {
            usize::try_from(k)
                .ok()
                .and_then(|k| names.get(k))
                .map(|n| (*n).to_owned())
        };
        let j = plan_move(3, "i1", &p, &node, &["x".to_owned()], 2);
        assert_eq!(
            j.line(),
            "{\"step\":3,\"instance\":\"i1\",\"move\":\"replace-primary\",\
             \"from\":{\"primary\":\"n1\",\"secondary\":\"n2\"},\
             \"to\":{\"primary\":\"n3\",\"secondary\":\"n2\"},\"score\":0.25,\
             \"commands\":[\"gnt-instance x\"],\"job_set\":2}\n"
        );
    }
}
