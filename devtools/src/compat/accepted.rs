//! Accepted differences: the README's compatibility section (named cases
//! and classes) and the check that a difference is exactly its class.

/// Extracts the accepted-difference patterns from a README: in the section
/// whose heading starts with `## Compatibility`, every table row whose first
/// cell is a backticked id or glob.
pub(super) fn parse_allowlist(readme: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in readme.lines() {
        let t = line.trim_end();
        if t.starts_with('#') {
            let level = t.chars().take_while(|&c| c == '#').count();
            if level <= 2 {
                inside = level == 2 && t.starts_with("## Compatibility");
            }
            continue;
        }
        if !inside {
            continue;
        }
        let row = t.trim_start();
        if !row.starts_with('|') {
            continue;
        }
        let first = row[1..].split('|').next().unwrap_or("").trim();
        if first.len() >= 2 && first.starts_with('`') && first.ends_with('`') {
            let pat = first[1..first.len() - 1].trim();
            if !pat.is_empty() {
                out.push(pat.to_string());
            }
        }
    }
    out
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
/// node Ganeti refuses (README: `class:drained-target`).
pub(super) const DRAINED_TARGET_MESSAGE: &str =
    "is drained or offline and cannot take over the instance";

/// Whether a difference is explained by a class of deliberate differences
/// that the README lists (a row whose first cell is `class:<name>`). The
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
