//! The opcodes of evacuation and group-change jobs, checked field by
//! field against Ganeti's opcode definitions.

use super::*;

#[derive(Clone, Copy, PartialEq)]
pub(super) enum OpKind {
    Migrate,
    Failover,
    Replace,
}

impl OpKind {
    pub(super) fn id(self) -> &'static str {
        match self {
            OpKind::Migrate => "OP_INSTANCE_MIGRATE",
            OpKind::Failover => "OP_INSTANCE_FAILOVER",
            OpKind::Replace => "OP_INSTANCE_REPLACE_DISKS",
        }
    }
}

/// The parts of an opcode the checker applies.
pub(super) struct Op {
    pub(super) kind: OpKind,
    pub(super) instance: String,
    pub(super) target_node: Option<String>,
    pub(super) remote_node: Option<String>,
}

pub(super) type FieldTest = fn(&J) -> bool;

pub(super) fn t_bool(j: &J) -> bool {
    matches!(j, J::Bool(_))
}
pub(super) fn t_maybe_bool(j: &J) -> bool {
    matches!(j, J::Bool(_) | J::Null)
}
pub(super) fn t_str(j: &J) -> bool {
    matches!(j, J::Str(_))
}
pub(super) fn t_maybe_str(j: &J) -> bool {
    matches!(j, J::Str(_) | J::Null)
}
pub(super) fn t_nonneg_int(j: &J) -> bool {
    matches!(j, J::Int(i) if *i >= 0)
}
pub(super) fn t_maybe_nonneg_int(j: &J) -> bool {
    *j == J::Null || t_nonneg_int(j)
}
pub(super) fn t_priority(j: &J) -> bool {
    matches!(j, J::Int(-10 | 0 | 10))
}
pub(super) fn t_maybe_list(j: &J) -> bool {
    matches!(j, J::Arr(_) | J::Null)
}
pub(super) fn t_depends(j: &J) -> bool {
    match j {
        J::Null => true,
        J::Arr(deps) => deps.iter().all(|d| match d.as_arr() {
            Some([J::Int(_) | J::Str(_), J::Arr(states)]) => states
                .iter()
                .all(|s| matches!(s.as_str(), Some("canceled" | "success" | "error"))),
            _ => false,
        }),
        _ => false,
    }
}
pub(super) fn t_maybe_migration_mode(j: &J) -> bool {
    matches!(j, J::Null) || matches!(j.as_str(), Some("live" | "non-live"))
}
pub(super) fn t_replace_mode(j: &J) -> bool {
    matches!(
        j.as_str(),
        Some(
            "replace_auto"
                | "replace_new_secondary"
                | "replace_on_primary"
                | "replace_on_secondary"
        )
    )
}
pub(super) fn t_disk_indices(j: &J) -> bool {
    j.as_arr().is_some_and(|a| {
        a.iter()
            .all(|d| matches!(d, J::Int(i) if (0..=16).contains(i)))
    })
}

/// Parameters every opcode accepts (`opcodes.OpCode.OP_PARAMS`).
pub(super) const BASE_FIELDS: &[(&str, FieldTest)] = &[
    ("dry_run", t_maybe_bool),
    ("debug_level", t_maybe_nonneg_int),
    ("priority", t_priority),
    ("depends", t_depends),
    ("comment", t_maybe_str),
    ("reason", t_maybe_list),
];

/// `opcodes.OpInstanceMigrate.OP_PARAMS`.
pub(super) const MIGRATE_FIELDS: &[(&str, FieldTest)] = &[
    ("instance_name", t_str),
    ("instance_uuid", t_maybe_str),
    ("mode", t_maybe_migration_mode),
    ("live", t_maybe_bool),
    ("target_node", t_maybe_str),
    ("target_node_uuid", t_maybe_str),
    ("allow_runtime_changes", t_bool),
    ("ignore_ipolicy", t_bool),
    ("cleanup", t_bool),
    ("iallocator", t_maybe_str),
    ("allow_failover", t_bool),
    ("ignore_hvversions", t_bool),
];

/// `opcodes.OpInstanceFailover.OP_PARAMS`.
pub(super) const FAILOVER_FIELDS: &[(&str, FieldTest)] = &[
    ("instance_name", t_str),
    ("instance_uuid", t_maybe_str),
    ("shutdown_timeout", t_nonneg_int),
    ("ignore_consistency", t_bool),
    ("target_node", t_maybe_str),
    ("target_node_uuid", t_maybe_str),
    ("ignore_ipolicy", t_bool),
    ("cleanup", t_bool),
    ("iallocator", t_maybe_str),
];

/// `opcodes.OpInstanceReplaceDisks.OP_PARAMS`.
pub(super) const REPLACE_FIELDS: &[(&str, FieldTest)] = &[
    ("instance_name", t_str),
    ("instance_uuid", t_maybe_str),
    ("early_release", t_bool),
    ("ignore_ipolicy", t_bool),
    ("mode", t_replace_mode),
    ("disks", t_disk_indices),
    ("remote_node", t_maybe_str),
    ("remote_node_uuid", t_maybe_str),
    ("iallocator", t_maybe_str),
];

/// Validates one opcode as Ganeti's job loader would (`OpCode.LoadOpCode`:
/// unknown keys are refused; `Validate`: typed parameters, `instance_name` and
/// the replace `mode` required), plus the settings that would make the opcode
/// do something other than the move it stands for. Returns the opcode when it
/// can be applied.
pub(super) fn parse_opcode(j: &J, where_: &str, rep: &mut Report) -> Option<Op> {
    let Some(entries) = j.as_obj() else {
        rep.add(BAD_OPCODE, format!("{where_}: not an object: {}", brief(j)));
        return None;
    };
    let kind = match j.get("OP_ID").and_then(J::as_str) {
        Some("OP_INSTANCE_MIGRATE") => OpKind::Migrate,
        Some("OP_INSTANCE_FAILOVER") => OpKind::Failover,
        Some("OP_INSTANCE_REPLACE_DISKS") => OpKind::Replace,
        other => {
            rep.add(
                BAD_OPCODE,
                format!(
                    "{where_}: OP_ID {other:?} is not a failover, migrate or replace-disks opcode"
                ),
            );
            return None;
        }
    };
    let fields = match kind {
        OpKind::Migrate => MIGRATE_FIELDS,
        OpKind::Failover => FAILOVER_FIELDS,
        OpKind::Replace => REPLACE_FIELDS,
    };
    let mut ok = true;
    for (i, (key, value)) in entries.iter().enumerate() {
        if key == "OP_ID" {
            continue;
        }
        if entries[..i].iter().any(|(k, _)| k == key) {
            rep.add(BAD_OPCODE, format!("{where_}: field '{key}' appears twice"));
            ok = false;
            continue;
        }
        match fields.iter().chain(BASE_FIELDS).find(|(k, _)| k == key) {
            None => {
                rep.add(
                    BAD_OPCODE,
                    format!("{where_}: {} has no parameter '{key}'", kind.id()),
                );
                ok = false;
            }
            Some((_, test)) if !test(value) => {
                rep.add(
                    BAD_OPCODE,
                    format!(
                        "{where_}: parameter '{key}' has an invalid value {}",
                        brief(value)
                    ),
                );
                ok = false;
            }
            Some(_) => {}
        }
    }
    let instance = j
        .get("instance_name")
        .and_then(J::as_str)
        .map(str::to_owned);
    if instance.is_none() {
        rep.add(BAD_OPCODE, format!("{where_}: instance_name is missing"));
        ok = false;
    }
    if kind == OpKind::Replace && !j.get("mode").is_some_and(t_replace_mode) {
        rep.add(
            BAD_OPCODE,
            format!("{where_}: the replace-disks mode is missing"),
        );
        ok = false;
    }
    // Settings Ganeti accepts but that would not perform the intended move, or
    // that hand the decision to something the checker cannot see.
    let set = |key: &str| {
        j.get(key)
            .is_some_and(|v| *v != J::Null && *v != J::Bool(false))
    };
    for key in [
        "dry_run",
        "cleanup",
        "ignore_ipolicy",
        "ignore_consistency",
        "iallocator",
        "instance_uuid",
        "target_node_uuid",
        "remote_node_uuid",
    ] {
        if set(key) {
            rep.add(
                BAD_OPCODE,
                format!(
                    "{where_}: '{key}' is set ({})",
                    j.get(key).map_or(String::new(), brief)
                ),
            );
            ok = false;
        }
    }
    if kind == OpKind::Migrate && set("live") && j.get("mode").is_some_and(|m| *m != J::Null) {
        rep.add(
            BAD_OPCODE,
            format!("{where_}: only one of 'live' and 'mode' may be given"),
        );
        ok = false;
    }
    let remote_node = j.get("remote_node").and_then(J::as_str).map(str::to_owned);
    if kind == OpKind::Replace {
        if j.get("mode").and_then(J::as_str) != Some("replace_new_secondary") {
            rep.add(
                BAD_OPCODE,
                format!("{where_}: replace-disks mode is not replace_new_secondary"),
            );
            ok = false;
        }
        if remote_node.is_none() {
            rep.add(
                BAD_OPCODE,
                format!("{where_}: replace-disks has no remote_node"),
            );
            ok = false;
        }
        if j.get("disks")
            .and_then(J::as_arr)
            .is_some_and(|d| !d.is_empty())
        {
            rep.add(
                BAD_OPCODE,
                format!("{where_}: disks cannot be given when changing the secondary"),
            );
            ok = false;
        }
    }
    if !ok {
        return None;
    }
    Some(Op {
        kind,
        instance: instance.unwrap_or_default(),
        target_node: j.get("target_node").and_then(J::as_str).map(str::to_owned),
        remote_node,
    })
}
