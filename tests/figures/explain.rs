//! The numbers of `--explain`'s text read back: lines matched whole
//! against templates whose `{}` holes take a number or a name, so that a
//! line that changes shape is noticed (it matches no template and the
//! tests that expect it say so) and a changed number is compared.

use std::collections::BTreeMap;

use crate::support::figures::NodeFigures;

use super::Findings;

/// Matches `line` whole against `template` (`{}` holes: the shortest text
/// up to the next literal part; the last hole takes the rest); the holes'
/// texts, or `None`.
pub fn scan<'a>(template: &str, line: &'a str) -> Option<Vec<&'a str>> {
    let parts: Vec<&str> = template.split("{}").collect();
    let mut rest = line.strip_prefix(parts[0])?;
    let mut holes = Vec::new();
    for (k, lit) in parts.iter().enumerate().skip(1) {
        let last = k == parts.len() - 1;
        if last && lit.is_empty() {
            holes.push(rest);
            rest = "";
            continue;
        }
        let at = if last {
            rest.strip_suffix(lit).map(str::len)?
        } else {
            rest.find(lit)?
        };
        holes.push(&rest[..at]);
        rest = &rest[at + lit.len()..];
    }
    (rest.is_empty() && holes.iter().all(|h| !h.is_empty())).then_some(holes)
}

/// A hole's number.
pub fn int(s: &str) -> Option<i64> {
    s.parse().ok()
}

/// Where a node's memory goes as the explanations write it after a free
/// figure: `F MiB free (T total - N for the node - I for instances[ - X
/// unaccounted])`, found anywhere in `text`: (F, T, N, I, X).
pub fn memory_parts(text: &str) -> Vec<(i64, i64, i64, i64, i64)> {
    let mut out = Vec::new();
    for (k, _) in text.match_indices(" total - ") {
        // Back to the free figure: `F MiB free (T`.
        let before = &text[..k];
        let Some(open) = before.rfind(" MiB free (") else {
            continue;
        };
        let free_start = before[..open]
            .rfind(|c: char| !c.is_ascii_digit() && c != '-')
            .map_or(0, |p| p + 1);
        let Some(end) = text[k..].find(')') else {
            continue;
        };
        let line = &text[free_start..k + end + 1];
        let parsed = scan(
            "{} MiB free ({} total - {} for the node - {} for instances - {} unaccounted)",
            line,
        )
        .or_else(|| {
            scan(
                "{} MiB free ({} total - {} for the node - {} for instances)",
                line,
            )
            .map(|mut v| {
                v.push("0");
                v
            })
        });
        let Some(v) = parsed else {
            out.push((i64::MIN, 0, 0, 0, 0));
            continue;
        };
        let n: Vec<i64> = v.iter().map(|s| int(s).unwrap_or(i64::MIN)).collect();
        out.push((n[0], n[1], n[2], n[3], n[4]));
    }
    out
}

/// Holds every memory breakdown of `text` to arithmetic and to the
/// nodes' constants: free = total - node - instances - unaccounted, and
/// some node of `figs` has that total, node memory and unaccounted
/// memory (a constant of the node; written only when positive).
pub fn check_memory_parts(
    f: &mut Findings,
    at: &str,
    text: &str,
    figs: &BTreeMap<String, NodeFigures>,
) {
    for (free, total, node, inst, unacc) in memory_parts(text) {
        f.count("memory breakdowns");
        if free == i64::MIN {
            f.fault(at, "a memory breakdown that does not read as `F MiB free (T total - N for the node - I for instances[ - X unaccounted])`".to_owned());
            continue;
        }
        f.same(
            at,
            &format!("free memory of the breakdown {total} - {node} - {inst} - {unacc}"),
            free,
            total - node - inst - unacc,
        );
        let known = figs.values().any(|n| {
            n.mem_total == total && n.mem_node == node && n.mem_unaccounted.max(0) == unacc
        });
        f.same(
            at,
            &format!("a node with {total} MiB total, {node} for the node, {unacc} unaccounted"),
            known,
            true,
        );
    }
}

/// The memory breakdowns of `text` that name their node on the state the
/// search saw: the lines of a refused candidate, `  NODE: needs M MiB of
/// memory[ and 1 MiB to spare], F MiB free (T total - N for the node - I
/// for instances[ - X unaccounted])`, read whole (a line about a state
/// with the new instance placed somewhere, such as a dropped candidate's,
/// is not one of them): (node, [F, T, N, I, X]).
pub fn named_memory_parts(text: &str) -> Vec<(String, [i64; 5])> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(entry) = line.strip_prefix("  ").map(str::trim_start) else {
            continue;
        };
        let v = scan("{}: needs {} MiB of memory, {} MiB free ({} total - {} for the node - {} for instances{}", entry)
            .or_else(|| scan("{}: needs {} MiB of memory and 1 MiB to spare, {} MiB free ({} total - {} for the node - {} for instances{}", entry));
        let Some(v) = v.filter(|v| !v[0].contains(' ')) else {
            continue;
        };
        let unacc = match v[6] {
            ")" => Some(0),
            x => x
                .strip_prefix(" - ")
                .and_then(|u| u.strip_suffix(" unaccounted)"))
                .and_then(int),
        };
        let n = [int(v[2]), int(v[3]), int(v[4]), int(v[5]), unacc];
        out.push((v[0].to_owned(), n.map(|x| x.unwrap_or(i64::MIN))));
    }
    out
}

/// Holds each named memory breakdown of `text` to its node's figures in
/// `figs` (the state the search that refused it saw).
pub fn check_named_memory_parts(
    f: &mut Findings,
    at: &str,
    text: &str,
    figs: &BTreeMap<String, NodeFigures>,
    aliases: &BTreeMap<String, String>,
) {
    for (node, got) in named_memory_parts(text) {
        let name = aliases.get(&node).cloned().unwrap_or(node);
        let Some(n) = figs.get(&name) else {
            f.fault(at, format!("a memory breakdown of unknown node {name}"));
            continue;
        };
        f.count("named memory breakdowns");
        f.same(
            at,
            &format!("node {name}: free, total, node, instances, unaccounted"),
            got,
            [
                n.mem_free,
                n.mem_total,
                n.mem_node,
                n.mem_instances,
                n.mem_unaccounted.max(0),
            ],
        );
    }
}
