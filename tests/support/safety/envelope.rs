//! The answer envelope and its result shapes.

use super::*;

/// Checks `{success, info, result}` and returns the result to check further,
/// or None when there is nothing more to check (failure answers, broken envelopes).
pub(super) fn check_envelope<'a>(answer: &'a J, rep: &mut Report) -> Option<&'a J> {
    let Some(entries) = answer.as_obj() else {
        rep.add(
            ANSWER_SHAPE,
            format!("the answer is not a JSON object: {}", brief(answer)),
        );
        return None;
    };
    let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
    if keys != ["success", "info", "result"] {
        rep.add(
            ANSWER_SHAPE,
            format!("the answer's keys are {keys:?}, expected [\"success\", \"info\", \"result\"]"),
        );
    }
    let success = match answer.get("success") {
        Some(J::Bool(b)) => *b,
        other => {
            rep.add(
                ANSWER_SHAPE,
                format!(
                    "'success' is not a boolean: {}",
                    other.map_or("missing".into(), brief)
                ),
            );
            return None;
        }
    };
    let info = match answer.get("info") {
        Some(J::Str(s)) => s.as_str(),
        other => {
            rep.add(
                ANSWER_SHAPE,
                format!(
                    "'info' is not a string: {}",
                    other.map_or("missing".into(), brief)
                ),
            );
            return None;
        }
    };
    let Some(result) = answer.get("result") else {
        rep.add(ANSWER_SHAPE, "the answer has no 'result'");
        return None;
    };
    if success {
        if !info.starts_with("Request successful: ") {
            rep.add(ANSWER_SHAPE, format!("a successful answer's info does not start with 'Request successful: ': {info:?}"));
        }
        Some(result)
    } else {
        if !info.starts_with("Request failed: ") {
            rep.add(
                ANSWER_SHAPE,
                format!("a failed answer's info does not start with 'Request failed: ': {info:?}"),
            );
        }
        if *result != J::Arr(Vec::new()) {
            rep.add(
                ANSWER_SHAPE,
                format!("a failed answer's result is not []: {}", brief(result)),
            );
        }
        None
    }
}

/// Reads a list of node names; None (with an answer-shape violation) if it is not one.
pub(super) fn name_list(j: &J, what: &str, rep: &mut Report) -> Option<Vec<String>> {
    let Some(items) = j.as_arr() else {
        rep.add(ANSWER_SHAPE, format!("{what} is not a list: {}", brief(j)));
        return None;
    };
    let mut out = Vec::new();
    for item in items {
        match item {
            J::Str(s) if !s.is_empty() => out.push(s.clone()),
            _ => {
                rep.add(
                    ANSWER_SHAPE,
                    format!(
                        "{what} has an entry that is not a non-empty string: {}",
                        brief(item)
                    ),
                );
                return None;
            }
        }
    }
    Some(out)
}
