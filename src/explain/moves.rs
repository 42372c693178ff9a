//! Explanations of one-node moves of existing instances (relocate, and the
//! moves of node-evacuate that give an instance a new secondary, a new
//! primary for shared storage, or fail a drbd instance over to its
//! secondary): per instance, every target tried, the
//! refusals counted by reason with the closest misses and their numbers,
//! and the target chosen with its score.

use crate::model::refusal::Refusal;
use crate::model::types::FailMode;
use crate::model::TagTable;
use crate::search::evacuate::{MoveKind, MoveNote, TargetOutcome};
use crate::search::state::State;

use super::reasons::{self, Miss, Names, ReasonCount, Role, Tally};

/// One instance's move.
#[derive(Debug, Clone, PartialEq)]
pub struct MovePart {
    pub instance: String,
    /// "a new secondary" or "a new primary".
    pub what: &'static str,
    pub targets: u64,
    pub fit: u64,
    pub reasons: Vec<ReasonCount>,
    /// The chosen target and its score.
    pub chosen: Option<(String, f64)>,
}

/// The parts of the notes, named from `state` (the cluster after the
/// run: names do not change).
pub fn parts(state: &State, tags: &TagTable, notes: &[MoveNote]) -> Vec<MovePart> {
    notes.iter().map(|n| part(state, tags, n)).collect()
}

fn part(state: &State, tags: &TagTable, note: &MoveNote) -> MovePart {
    let names = Names { state, tags };
    let role = match note.kind {
        MoveKind::NewSecondary => Role::Secondary,
        MoveKind::NewPrimary | MoveKind::Failover => Role::Primary,
    };
    let node_name = |k: usize| {
        state
            .node(k as i32)
            .map_or_else(|_| format!("node #{k}"), |n| n.info.name.clone())
    };
    let mut tally = Tally::default();
    let mut fit = 0;
    for (t, outcome) in &note.targets {
        match outcome {
            TargetOutcome::Fit => fit += 1,
            TargetOutcome::Refused(_, Some(detail)) => {
                let (r, node) = &**detail;
                tally.add(role, r, 1, || Miss {
                    nodes: vec![node_name(*t)],
                    detail: reasons::describe(r, node, None, &names),
                    shortfall: r.shortfall(),
                });
            }
            TargetOutcome::Refused(mode, None) => {
                // Refused before the target's own check (a migration
                // between hypervisors or tags): hail's mode alone.
                let mode = FailMode::ALL
                    .into_iter()
                    .find(|m| m.name() == mode)
                    .unwrap_or(FailMode::Internal);
                let r = Refusal::mode_only(mode);
                let node = state.node_at(*t);
                tally.add(role, &r, 1, || Miss {
                    nodes: vec![node_name(*t)],
                    detail: reasons::describe(&r, node, None, &names),
                    shortfall: None,
                });
            }
        }
    }
    let instance = state.inst(note.inst as i32).map_or_else(
        |_| format!("instance #{}", note.inst),
        |i| i.name.to_string(),
    );
    MovePart {
        instance,
        what: match note.kind {
            MoveKind::NewSecondary => "a new secondary",
            MoveKind::NewPrimary => "a new primary",
            MoveKind::Failover => "a failover to its secondary",
        },
        targets: note.targets.len() as u64,
        fit,
        reasons: tally.sorted(),
        chosen: note.chosen.map(|(t, score)| (node_name(t), score)),
    }
}
