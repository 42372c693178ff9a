//! Classifying one case by the two runs' outcomes.

use crate::process::{Run, Status};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    HailTimeout,
    NotImplemented,
    Identical,
    SameResult,
    DifferentResult,
    BothRefused,
    RefusalDiffers,
    HailstoneTimeout,
}

impl Outcome {
    pub(super) fn label(self) -> &'static str {
        match self {
            Outcome::HailTimeout => "hail timeout",
            Outcome::NotImplemented => "not implemented",
            Outcome::Identical => "identical",
            Outcome::SameResult => "same result, info differs",
            Outcome::DifferentResult => "different result",
            Outcome::BothRefused => "both refused",
            Outcome::RefusalDiffers => "refusal differs",
            Outcome::HailstoneTimeout => "hailstone timeout",
        }
    }

    pub(super) fn is_difference(self) -> bool {
        matches!(
            self,
            Outcome::SameResult
                | Outcome::DifferentResult
                | Outcome::RefusalDiffers
                | Outcome::HailstoneTimeout
        )
    }
}

/// Parses an answer and returns its `success` and `result`.
pub(super) fn answer_core(out: &[u8]) -> Option<(serde_json::Value, serde_json::Value)> {
    let v: serde_json::Value = serde_json::from_slice(out).ok()?;
    let o = v.as_object()?;
    Some((o.get("success")?.clone(), o.get("result")?.clone()))
}

pub(super) fn classify(hail: &Run, hs: &Run) -> Outcome {
    if hail.status == Status::Capped {
        return Outcome::HailTimeout;
    }
    if hs.status == Status::Exited(3)
        && String::from_utf8_lossy(&hs.stderr).contains("is not implemented yet")
    {
        return Outcome::NotImplemented;
    }
    if hs.status == Status::Capped {
        return Outcome::HailstoneTimeout;
    }
    match (hail.ok(), hs.ok()) {
        (true, true) => {
            if hail.stdout == hs.stdout {
                Outcome::Identical
            } else {
                match (answer_core(&hail.stdout), answer_core(&hs.stdout)) {
                    (Some(a), Some(b)) if a == b => Outcome::SameResult,
                    _ => Outcome::DifferentResult,
                }
            }
        }
        (false, false) => Outcome::BothRefused,
        _ => Outcome::RefusalDiffers,
    }
}
