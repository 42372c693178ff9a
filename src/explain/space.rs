//! Explanations of `hailstone-space`'s counts (`--explain`): what stopped
//! each phase. With the allocator model, the last instance the allocator
//! refused, group by group, in the allocator's words (which check refused
//! which node, with the numbers; which node could not have been evacuated
//! afterwards): [`super::allocate`]. With hspace's count, the refusals of
//! its last search, counted by reason, and the rules hspace applied.

use crate::explain::{allocate, render, Explanation, Format};
use crate::model::types::{DiskTemplate, FailMode};
use crate::model::TagTable;
use crate::search::allocate::AllocOptions;
use crate::search::space::{Allocated, Engine, Refusal};
use crate::search::state::{Crash, State};
use crate::write::json::{s, Json};

/// What stopped one phase.
pub struct PhaseStop {
    /// The explanation of its last refusal.
    pub explanation: Explanation,
}

/// The explanation of a phase (`phase`: "tiered", "standard") that
/// placed `done.placed` and was stopped by its last search, on the state
/// the phase ended with.
#[allow(clippy::too_many_arguments)]
pub fn phase_stop(
    phase: &str,
    engine: &Engine<'_>,
    tags: &TagTable,
    opts: &AllocOptions,
    state: &mut State,
    done: &Allocated,
    count: i64,
    reasons: &[(FailMode, u64)],
) -> Result<PhaseStop, Crash> {
    let mut notes = Vec::new();
    let mut placements = Vec::new();
    let main = reasons
        .first()
        .filter(|(_, n)| *n > 0)
        .map_or("none", |(m, _)| m.name());
    match (engine, &done.refusal) {
        (Engine::Allocator { groups, .. }, Some((inst, refusal))) => {
            let ctx = allocate::Context { groups, tags, opts };
            match refusal {
                Refusal::Groups(search) => {
                    placements.push(allocate::from_search(&ctx, state, inst, count, search)?);
                }
                Refusal::Dedicated(results) => {
                    notes.push(
                        "dedicated allocation (every node has exclusive storage): the allocator \
                         compares candidates by the policy's minimal instances they lose"
                            .to_owned(),
                    );
                    placements.push(allocate::from_dedicated(&ctx, state, inst, count, results)?);
                }
                Refusal::Message(m) if !m.is_empty() => {
                    notes.push(format!("the allocator said: {m}"))
                }
                _ => {}
            }
        }
        (Engine::Hspace, refusal) => {
            notes.push(
                "hspace's count: every group's nodes searched at once and scored on the whole \
                 cluster; --allocator-model counts what the allocator accepts"
                    .to_owned(),
            );
            if let Some((inst, _)) = refusal {
                if inst.disk_template == DiskTemplate::Drbd {
                    notes.push(
                        "hspace places drbd instances without the global N+1 check (the \
                         allocator refuses an instance whose placement leaves a node that \
                         could not be evacuated)"
                            .to_owned(),
                    );
                }
            }
            let counted: Vec<String> = reasons
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(m, n)| format!("{} {n}", m.name()))
                .collect();
            if !counted.is_empty() {
                notes.push(format!(
                    "the last search's refused candidates: {}",
                    counted.join(", ")
                ));
            }
        }
        (Engine::Allocator { .. }, None) => {}
    }
    Ok(PhaseStop {
        explanation: Explanation {
            request: "allocate",
            success: false,
            info: format!(
                "{phase} allocation: {} instances placed, then refused (most failures: {main})",
                done.placed.len()
            ),
            placements,
            moves: Vec::new(),
            notes,
            score_terms: false,
            cost: None,
        },
    })
}

/// The explanations of the phases in `format`, ending with a newline.
pub fn render(stops: &[PhaseStop], format: Format) -> String {
    match format {
        Format::Text => stops
            .iter()
            .map(|p| render::render(&p.explanation, Format::Text))
            .collect::<Vec<_>>()
            .join("\n"),
        Format::Json => {
            let phases = stops.iter().map(|p| render::json(&p.explanation)).collect();
            Json::Obj(vec![
                ("program", s("hailstone-space")),
                ("phases", Json::Arr(phases)),
            ])
            .line()
        }
    }
}
