//! harep's texts (`Program/Harep.hs`): a pending repair that ended, the
//! tags added and removed, the repairs started, refused or not allowed,
//! the jobs of `--dry-run`, and the final count of instances per state.

use crate::haskell::show::show_string;
use crate::haskell::time::show_clock_time;
use crate::search::repair::{Policy, RepairType};
use crate::write::json::Json;

/// `Moving NAME from "FROM" to "TO"`.
pub fn moving(name: &str, from: &str, to: &str) -> String {
    format!(
        "Moving {name} from {} to {}\n",
        show_string(from),
        show_string(to)
    )
}

/// The tag about to be added to an instance.
pub fn adding_tag(name: &str, tag: &str) -> String {
    format!(
        ">>> Adding the following tag to {name}:\n{}\n",
        show_string(tag)
    )
}

/// The tags about to be removed from an instance.
pub fn removing_tags(name: &str, tags: &[String]) -> String {
    let mut s = format!(">>> Removing the following tags from {name}:\n");
    for t in tags {
        s.push_str(&show_string(t));
        s.push('\n');
    }
    s
}

/// A repair started.
pub fn executing(kind: RepairType, name: &str) -> String {
    format!("Executing {} repair on {name}\n", kind.constructor())
}

/// A repair beyond what the policy allows.
pub fn not_allowed(kind: RepairType, name: &str, max: RepairType) -> String {
    format!(
        "Not performing a repair of type {} on {name} because only repairs up to {} are allowed\n",
        kind.constructor(),
        max.constructor()
    )
}

/// A broken instance whose policy allows no repair.
pub fn not_repairing(name: &str, policy: Policy) -> String {
    let state = match policy {
        Policy::Enabled(t) => format!("ArEnabled {}", t.constructor()),
        Policy::Suspended(None) => "ArSuspended Forever".to_owned(),
        Policy::Suspended(Some(t)) => format!("ArSuspended (Until {})", show_clock_time(t)),
        Policy::NotEnabled => "ArNotEnabled".to_owned(),
    };
    format!("Not repairing {name} because it's in state {state}\n")
}

/// `--dry-run`'s line for the jobs it would submit (the opcodes without
/// their annotations).
pub fn dry_run_jobs(jobs: &[Vec<Json>]) -> String {
    let all = Json::Arr(jobs.iter().map(|j| Json::Arr(j.clone())).collect());
    format!("jobs: {}", all.line())
}

/// The final count of instances per state name (names in order).
pub fn counts(by_state: &[(&str, usize)]) -> String {
    let mut s =
        String::from("---------------------\nInstance status count\n---------------------\n");
    for (name, n) in by_state {
        s.push_str(&format!("{name}: {n}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts() {
        assert_eq!(
            not_repairing("i", Policy::Suspended(None)),
            "Not repairing i because it's in state ArSuspended Forever\n"
        );
        assert_eq!(
            not_repairing("i", Policy::Suspended(Some(4_102_444_800))),
            "Not repairing i because it's in state ArSuspended (Until Fri Jan  1 00:00:00 UTC 2100)\n"
        );
        assert_eq!(
            removing_tags("i", &["a".to_owned(), "b".to_owned()]),
            ">>> Removing the following tags from i:\n\"a\"\n\"b\"\n"
        );
        assert_eq!(
            counts(&[("Failure", 2), ("Healthy", 4)]),
            "---------------------\nInstance status count\n---------------------\nFailure: 2\nHealthy: 4\n"
        );
    }
}
