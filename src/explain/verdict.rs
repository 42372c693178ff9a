//! The first line of an explanation: where the instance went, or what
//! refused it, with the numbers of the nearest miss and what to change.

use super::allocate::{GroupPart, Placement};
use super::moves::MovePart;
use super::reasons::{ReasonCount, Role};
use super::Explanation;

/// The verdict on the whole request: the first instance that could not
/// be placed or moved, else where the first went.
pub fn line(e: &Explanation) -> String {
    if let Some(p) = e.placements.iter().find(|p| p.chosen.is_none()) {
        return failed_placement(e.request, p);
    }
    if let Some(m) = e.moves.iter().find(|m| m.chosen.is_none()) {
        return failed_move(m);
    }
    if let Some(p) = e.placements.first() {
        let (g, nodes) = p.chosen.as_ref().map_or(("", &[][..]), |(g, n)| (g, n));
        let others = match e.placements.len() {
            0 | 1 => String::new(),
            2 => " (and the other instance)".to_owned(),
            n => format!(" (and the {} other instances)", n - 1),
        };
        return format!(
            "{} goes to {} in group {g}{others}",
            p.instance,
            nodes.join("/")
        );
    }
    if let Some(m) = e.moves.first() {
        let node = m.chosen.as_ref().map_or("", |(n, _)| n.as_str());
        return format!("{} goes to {node}", m.instance);
    }
    if e.success {
        "nothing to place or move".to_owned()
    } else {
        format!("the request failed: {}", e.info)
    }
}

/// Why instance `p` was placed nowhere (for a request of type `request`).
fn failed_placement(request: &str, p: &Placement) -> String {
    let inst = &p.instance;
    if p.groups.is_empty() {
        if request.contains("allocate") {
            return format!(
                "{inst} cannot be placed: no node group has a node to place it on; add nodes (gnt-node add)"
            );
        }
        return format!(
            "{inst} cannot be moved: no node group was left to move it to (the notes say which were allowed)"
        );
    }
    let allocable: Vec<&GroupPart> = p
        .groups
        .iter()
        .filter(|g| g.alloc_policy != "unallocable")
        .collect();
    if allocable.is_empty() {
        let names: Vec<&str> = p.groups.iter().map(|g| g.name.as_str()).collect();
        return format!(
            "{inst} cannot be placed: every node group ({}) is unallocable by its allocation policy; \
             gnt-group modify --alloc-policy=preferred GROUP opens one",
            names.join(", ")
        );
    }
    // The group that came closest: the most candidates tried.
    let mut best = allocable[0];
    for g in &allocable[1..] {
        if g.candidates > best.candidates {
            best = g;
        }
    }
    if best.candidates == 0 && best.reasons.is_empty() {
        return format!(
            "{inst} cannot be placed: group {}: {}",
            best.name, best.verdict
        );
    }
    if best.fit > 0 && best.dropped == best.fit {
        return n1_verdict(inst, best);
    }
    match best.reasons.first() {
        Some(r) => refused_verdict(inst, &best.name, best.candidates, p.needs.nodes, r),
        None => format!(
            "{inst} cannot be placed: group {}: {}",
            best.name, best.verdict
        ),
    }
}

/// Every candidate of group `g` that fitted was dropped by the N+1 check.
fn n1_verdict(inst: &str, g: &GroupPart) -> String {
    let Some(d) = g.dropped_picks.first() else {
        return format!(
            "{inst} cannot be placed: every candidate of group {} fails the N+1 check",
            g.name
        );
    };
    let fix = "free memory in the group or add a node, or set no-capacity-checks=yes \
               (gnt-cluster modify --default-iallocator-params=no-capacity-checks=yes)";
    match (&d.shortage, &d.unevacuable) {
        (Some(s), _) if s.others == 0 && s.group == g.name => format!(
            "{inst} cannot be placed: group {} has one online node, so the N+1 check can never pass; \
             add a node to the group or set no-capacity-checks=yes",
            g.name
        ),
        (Some(s), Some(node)) if s.others == 0 => format!(
            "{inst} cannot be placed: the N+1 check covers every node of the cluster, and {node} \
             cannot pass it: its group {} has no other online node to take its instances; \
             add a node to group {} or set no-capacity-checks=yes",
            s.group, s.group
        ),
        (shortage, Some(node)) => {
            let numbers = shortage
                .as_ref()
                .and_then(super::allocate::Shortage::words)
                .map_or_else(String::new, |w| format!(": {w}"));
            format!(
                "{inst} cannot be placed: on each of the {} candidates of group {} that fit, the N+1 check \
                 fails (with it on {}, {node} could not be evacuated{numbers}); {fix}",
                g.fit,
                g.name,
                d.nodes.join("/")
            )
        }
        (_, None) => format!(
            "{inst} cannot be placed: every candidate of group {} that fits has an offline, drained \
             or not vm_capable secondary",
            g.name
        ),
    }
}

/// Group `group`'s candidates (`count` nodes each) refused, most by `r`.
fn refused_verdict(
    inst: &str,
    group: &str,
    candidates: u64,
    count: i64,
    r: &ReasonCount,
) -> String {
    let what = if count == 2 { "pairs" } else { "nodes" };
    let (closest, fix) = closest_and_fix(r);
    if r.role == Role::Policy {
        let detail = r.shown().first().map_or("", |m| m.detail.as_str());
        return format!(
            "{inst} cannot be placed: the instance policy of group {group} refuses it: {detail}{fix}"
        );
    }
    format!(
        "{inst} cannot be placed: {} ({}: {}) refuses {} of the {candidates} candidate {what} of group {group}{closest}{fix}",
        r.mode.name(),
        r.role.name(),
        r.kind,
        r.count,
    )
}

/// Why instance move `m` found no target.
fn failed_move(m: &MovePart) -> String {
    match m.reasons.first() {
        Some(r) => {
            let (closest, fix) = closest_and_fix(r);
            format!(
                "{} cannot move ({}): {} ({}: {}) refuses {} of its {} targets{closest}{fix}",
                m.instance,
                m.what,
                r.mode.name(),
                r.role.name(),
                r.kind,
                r.count,
                m.targets
            )
        }
        None => format!("{} cannot move ({}): no target node", m.instance, m.what),
    }
}

/// The closest miss of `r` (`; the closest is ...`) and what to change
/// (`. ...`), each empty when there is none.
fn closest_and_fix(r: &ReasonCount) -> (String, String) {
    let closest = r
        .shown()
        .first()
        .map(|m| format!("; the closest is {}: {}", m.nodes.join("/"), m.detail))
        .unwrap_or_default();
    let fix = match hint(r.kind) {
        "" => String::new(),
        fix => format!(". {fix}"),
    };
    (closest, fix)
}

/// What to change for a refusal of kind `kind` (`reasons::kind`).
fn hint(kind: &str) -> &'static str {
    match kind {
        "memory" | "memory for a failover" | "N+1 memory reserve" => {
            "Free memory on a node or add one, or give the instance less memory"
        }
        "disk" | "disk reserve" => "Free disk on a node or add one, or give the instance less disk",
        "spindles" => "Free spindles on a node or add one, or give the instance fewer",
        "spindle ratio" => {
            "Raise the spindle ratio of the instance policy (gnt-group modify --ipolicy-spindle-ratio) or add nodes"
        }
        "vCPU ratio" => {
            "Raise the vCPU ratio of the instance policy (gnt-group modify --ipolicy-vcpu-ratio), add nodes, or give the instance fewer vCPUs"
        }
        "exclusion tag" => {
            "Each candidate already runs an instance with the same exclusion tag: add a node, or drop the tag from the instance"
        }
        "instance policy" => {
            "Give the instance a size within the policy, or change the policy's bounds (gnt-group modify --ipolicy-bounds-specs)"
        }
        "disk template" => {
            "Use a disk template the policy allows, or allow this one (gnt-group modify --ipolicy-disk-templates)"
        }
        "no secondary" => "This disk template needs two nodes: add a node to the group",
        _ => "",
    }
}
