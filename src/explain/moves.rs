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

use super::reasons::{self, Names, ReasonCount, Role, Tally};

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
    let node_name = |k: usize| {
        state
            .node(k as i32)
            .map_or_else(|_| format!("node #{k}"), |n| n.info.name.clone())
    };
    let mut tally = Tally::default();
    let (mut fit, mut total) = (0, 0);
    for t in &note.targets {
        total += t.count;
        // Who refused: the one node of a one-node move; for a new pair the
        // new secondary, or the new primary alone (its moves failed before
        // any secondary was tried).
        let role = match (note.kind, t.secondary) {
            (MoveKind::NewSecondary, _) | (MoveKind::NewPair, Some(_)) => Role::Secondary,
            _ => Role::Primary,
        };
        let nodes: Vec<String> = std::iter::once(t.node)
            .chain(t.secondary)
            .map(node_name)
            .collect();
        match &t.outcome {
            TargetOutcome::Fit => fit += t.count,
            TargetOutcome::Refused(_, Some(detail)) => {
                let (r, node) = &**detail;
                tally.add(role, r, t.count, nodes, r.shortfall(), || {
                    reasons::describe(r, node, None, &names)
                });
            }
            TargetOutcome::Refused(message, None) => {
                // Refused before the target's own check (a migration
                // between hypervisors or tags, or a step of a new pair's
                // moves): hail's mode, the last word of its message.
                let word = message.rsplit(' ').next().unwrap_or(message);
                let mode = FailMode::ALL
                    .into_iter()
                    .find(|m| m.name() == word)
                    .unwrap_or(FailMode::Internal);
                let r = Refusal::mode_only(mode);
                let detail = if word == message {
                    reasons::describe(&r, state.node_at(t.node), None, &names)
                } else {
                    message.clone()
                };
                tally.add(role, &r, t.count, nodes, None, || detail);
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
            MoveKind::NewPair => "a new primary and secondary",
        },
        targets: total,
        fit,
        reasons: tally.sorted(),
        chosen: note.chosen.map(|(p, sec, score)| {
            let nodes: Vec<String> = std::iter::once(p).chain(sec).map(node_name).collect();
            (nodes.join("/"), score)
        }),
    }
}
