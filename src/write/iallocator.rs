//! The iallocator's answer on stdout (`IAlloc.formatResponse`): exactly
//! one JSON object with the keys `success`, `info` and `result` in that
//! order, no whitespace, hail's string escaping, and a trailing newline;
//! the `info` text and the `result` of each request type
//! (`formatAllocate`, `formatMultiAlloc`, `formatNodeEvac`), and the jobs
//! of an evacuation, one per moved instance (`iMoveToJob`), from the
//! [`Response`] the search found.

use crate::model::response::{Evacuated, MultiPlaced, Placed, Response};
use crate::write::json::{s, strs, Json};
use crate::write::opcodes::move_opcodes;

/// One answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// Whether the request was satisfied.
    pub success: bool,
    /// The `info` text, prefix included.
    pub info: String,
    /// The `result` value.
    pub result: Json,
}

impl Answer {
    /// A successful answer: `info` is `Request successful: <message>`.
    fn success(message: &str, result: Json) -> Answer {
        Answer {
            success: true,
            info: format!("Request successful: {message}"),
            result,
        }
    }

    /// A failed answer: `info` is `Request failed: <message>`, `result` is
    /// `[]`.
    fn failure(message: &str) -> Answer {
        Answer {
            success: false,
            info: format!("Request failed: {message}"),
            result: Json::Arr(Vec::new()),
        }
    }

    /// The bytes to print: the JSON object and a newline.
    pub fn render(&self) -> String {
        Json::Obj(vec![
            ("success", Json::Bool(self.success)),
            ("info", s(&self.info)),
            ("result", self.result.clone()),
        ])
        .line()
    }
}

/// The answer to a request whose search found `response`.
pub fn answer(response: &Response) -> Answer {
    match response {
        Response::Allocate(Ok(p)) => placed(p, strs),
        Response::AllocateSecondary(Ok(p)) => placed(p, |nodes| s(nodes.first().map_or("", |n| n))),
        Response::MultiAllocate(Ok(rows)) => multi_allocate(rows),
        Response::Relocate(Ok(node)) => Answer::success("success", strs(&[node])),
        Response::Evacuate(e) => evacuate(e),
        Response::Allocate(Err(m))
        | Response::AllocateSecondary(Err(m))
        | Response::MultiAllocate(Err(m))
        | Response::Relocate(Err(m)) => Answer::failure(m),
    }
}

/// `info`: the log's entries joined by `, `.
fn info(log: &[String]) -> String {
    log.join(", ")
}

/// An allocation's answer (`formatAllocate`): its nodes as `result`.
fn placed(p: &Placed, result: impl Fn(&[String]) -> Json) -> Answer {
    match &p.nodes {
        Some(nodes) => Answer::success(&info(&p.log), result(nodes)),
        None => Answer::failure(&info(&p.log)),
    }
}

/// `formatMultiAlloc`: `[[[name, [nodes]], ...], [[name, info], ...]]`.
fn multi_allocate(rows: &[MultiPlaced]) -> Answer {
    let mut placed = Vec::new();
    let mut failed = Vec::new();
    for r in rows {
        match &r.placed.nodes {
            Some(nodes) => placed.push(Json::Arr(vec![s(&r.instance), strs(nodes)])),
            None => failed.push(Json::Arr(vec![s(&r.instance), s(&info(&r.placed.log))])),
        }
    }
    let message = format!(
        "{} instances failed to allocate and {} were allocated successfully",
        failed.len(),
        placed.len()
    );
    Answer::success(
        &message,
        Json::Arr(vec![Json::Arr(placed), Json::Arr(failed)]),
    )
}

/// `formatNodeEvac`: `[[[name, group, [nodes]], ...], [[name, reason],
/// ...], [job, ...]]`, a job being the opcodes of one instance's moves.
fn evacuate(e: &Evacuated) -> Answer {
    let moved = e
        .moved
        .iter()
        .map(|m| Json::Arr(vec![s(&m.instance), s(&m.group), strs(&m.nodes)]))
        .collect();
    let failed = e
        .failed
        .iter()
        .map(|(name, reason)| Json::Arr(vec![s(name), s(reason)]))
        .collect();
    let jobs = e
        .moved
        .iter()
        .map(|m| {
            Json::Arr(
                m.moves
                    .iter()
                    .flat_map(|mv| {
                        move_opcodes(&m.instance, m.forthcoming, mv.as_ref().map(String::as_str))
                    })
                    .collect(),
            )
        })
        .collect();
    let message = format!(
        "{} instances failed to move and {} were moved successfully",
        e.failed.len(),
        e.moved.len()
    );
    Answer::success(
        &message,
        Json::Arr(vec![Json::Arr(moved), Json::Arr(failed), Json::Arr(jobs)]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_has_hails_key_order_and_newline() {
        let a = Answer::success("score: 1", strs(&["n1", "n2"]));
        assert_eq!(
            a.render(),
            "{\"success\":true,\"info\":\"Request successful: score: 1\",\"result\":[\"n1\",\"n2\"]}\n"
        );
        let f = Answer::failure("no \"room\"\n");
        assert_eq!(
            f.render(),
            "{\"success\":false,\"info\":\"Request failed: no \\\"room\\\"\\n\",\"result\":[]}\n"
        );
    }
}
