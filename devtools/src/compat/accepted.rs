//! Accepted differences: the list in `docs/accepted-differences.txt`
//! (named cases and classes) and the check that a difference is exactly
//! its class.

/// The classes of deliberate differences the tool can check
/// ([`explained_by_class`], the datafiles suite's `hail-save-crash`, and
/// `hint`: the read-only and space suites' check that an error is the
/// original's, word for word, followed by lines saying what is valid).
pub(super) const KNOWN_CLASSES: [&str; 3] =
    ["class:drained-target", "class:hail-save-crash", HINT_CLASS];

/// The class of an original's error followed by hailstone's lines saying
/// what is valid.
pub(super) const HINT_CLASS: &str = "class:hint";

/// Whether the list accepts the class `class` wherever its check passes.
pub(super) fn accepts_class(allow: &[String], class: &str) -> bool {
    allow.iter().any(|p| p == class)
}

/// Reads the accepted-differences file: one `PATTERN<TAB>REASON` per line,
/// blank lines and lines starting with `#` ignored. Returns the patterns in
/// file order; an error names the line. Every pattern needs a reason, a
/// `class:` pattern must be a known class, and no pattern may appear twice.
pub(super) fn parse_accepted(text: &str) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let Some((pattern, reason)) = line.split_once('\t') else {
            return Err(format!(
                "line {n}: no tab between the pattern and its reason: '{}'",
                line.trim()
            ));
        };
        let pattern = pattern.trim();
        if pattern.is_empty() {
            return Err(format!("line {n}: empty pattern"));
        }
        if reason.trim().is_empty() {
            return Err(format!("line {n}: '{pattern}' has no reason"));
        }
        if pattern.starts_with("class:") && !KNOWN_CLASSES.contains(&pattern) {
            return Err(format!(
                "line {n}: unknown class '{pattern}' (known: {})",
                KNOWN_CLASSES.join(", ")
            ));
        }
        if out.iter().any(|p| p == pattern) {
            return Err(format!("line {n}: '{pattern}' is listed twice"));
        }
        out.push(pattern.to_string());
    }
    Ok(out)
}

/// Glob match where `*` matches any (possibly empty) text, including `/`.
pub(super) fn glob_match(pat: &str, text: &str) -> bool {
    let p: Vec<char> = pat.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

pub(super) fn is_accepted(allow: &[String], id: &str) -> bool {
    allow
        .iter()
        .filter(|p| !p.starts_with("class:"))
        .any(|p| glob_match(p, id))
}

/// The message hailstone gives where hail would fail an instance over to a
/// node Ganeti refuses (`class:drained-target`).
pub(super) const DRAINED_TARGET_MESSAGE: &str =
    "is drained or offline and cannot take over the instance";

/// Whether a difference is explained by a class of deliberate differences
/// that the accepted list names (a `class:<name>` pattern). The
/// check is structural, from the request and both answers, so a class
/// cannot hide an unrelated difference in the same case.
pub(super) fn explained_by_class(
    allow: &[String],
    request: &[u8],
    hail_out: &[u8],
    hs_out: &[u8],
) -> Option<&'static str> {
    if allow.iter().any(|p| p == "class:drained-target")
        && drained_target(request, hail_out, hs_out)
    {
        return Some("class:drained-target");
    }
    None
}

/// `class:drained-target`: hail's answer makes a node Ganeti refuses
/// (drained, offline or not vm_capable) take over an instance or a new
/// secondary, and hailstone declines exactly that:
/// * allocate-secondary: hail's chosen secondary is such a node and
///   hailstone chose another one (or none);
/// * node-evacuate / change-group: some instance that hail moves starts its
///   job with a failover (no target node) while its current secondary is
///   such a node, and hailstone lists that instance as failed with
///   [`DRAINED_TARGET_MESSAGE`].
pub(super) fn drained_target(request: &[u8], hail_out: &[u8], hs_out: &[u8]) -> bool {
    use serde_json::Value;
    let (Ok(req), Ok(hail), Ok(hs)) = (
        serde_json::from_slice::<Value>(request),
        serde_json::from_slice::<Value>(hail_out),
        serde_json::from_slice::<Value>(hs_out),
    ) else {
        return false;
    };
    let refused_node = |name: &str| -> bool {
        req.get("nodes").and_then(|n| n.get(name)).is_some_and(|n| {
            n.get("offline").and_then(Value::as_bool).unwrap_or(false)
                || n.get("drained").and_then(Value::as_bool).unwrap_or(false)
                || !n.get("vm_capable").and_then(Value::as_bool).unwrap_or(true)
        })
    };
    let rtype = req
        .get("request")
        .and_then(|r| r.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("");
    match rtype {
        "allocate-secondary" => {
            let Some(chosen) = hail.get("result").and_then(Value::as_str) else {
                return false;
            };
            refused_node(chosen) && hs.get("result").and_then(Value::as_str) != Some(chosen)
        }
        "node-evacuate" | "change-group" => {
            let result = |v: &Value, i: usize| {
                v.get("result")
                    .and_then(|r| r.get(i))
                    .and_then(Value::as_array)
                    .cloned()
            };
            let (Some(moved), Some(jobs), Some(hs_failed)) =
                (result(&hail, 0), result(&hail, 2), result(&hs, 1))
            else {
                return false;
            };
            moved.iter().zip(jobs.iter()).any(|(m, job)| {
                let Some(name) = m.get(0).and_then(Value::as_str) else {
                    return false;
                };
                let first_is_failover = job.get(0).is_some_and(|op| {
                    matches!(
                        op.get("OP_ID").and_then(Value::as_str),
                        Some("OP_INSTANCE_MIGRATE") | Some("OP_INSTANCE_FAILOVER")
                    ) && op.get("target_node").is_none()
                });
                let secondary = req
                    .get("instances")
                    .and_then(|i| i.get(name))
                    .and_then(|i| i.get("nodes"))
                    .and_then(|n| n.get(1))
                    .and_then(Value::as_str);
                let declined = hs_failed.iter().any(|f| {
                    f.get(0).and_then(Value::as_str) == Some(name)
                        && f.get(1)
                            .and_then(Value::as_str)
                            .is_some_and(|msg| msg.contains(DRAINED_TARGET_MESSAGE))
                });
                first_is_failover && secondary.is_some_and(refused_node) && declined
            })
        }
        _ => false,
    }
}
