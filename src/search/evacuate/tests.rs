//! The evacuation's unit tests: a secondary's replacement tried by probes
//! against the move itself, and the threaded and row-skipping pair scans
//! of drbd "all" against the scan in one run.

use super::*;
use crate::model::node::Scalars;
use crate::model::types::MirrorType;
use crate::model::Request;
use crate::read::loader::{load_document, LoadOptions};
use crate::search::allocate::{AllocOptions, PARALLEL_PAIRS};

/// A secondary's replacement tried by probes (`SecondaryTrial`) gives,
/// for every drbd instance and target, what the move itself gives: the
/// same failure, or the same values of the same changed nodes; the
/// instance's own nodes are left to the move. Clusters of every
/// generator feature (offline and drained nodes, exclusive storage,
/// forthcoming instances, tags), both soft-check modes.
#[test]
fn secondary_trials_give_the_moves_values() {
    use crate::model::types::SoftChecks;
    use hailstone_devtools::generate::{all_kinds, generate, CaseSpec};
    let (mut fits, mut fails) = (0, 0);
    for seed in 0..40u64 {
        let kinds = all_kinds();
        let kind = kinds[seed as usize % kinds.len()];
        let text = generate(&CaseSpec::random(seed, kind, 3..=24)).request;
        let doc = crate::read::json::parse_document(text.as_bytes()).expect("valid JSON");
        let Ok(loaded) = load_document(&doc, &LoadOptions::default()) else {
            continue;
        };
        let state = State::new(&loaded.cluster);
        for inst in &loaded.cluster.instances {
            if inst.mirror_type() != MirrorType::Internal {
                continue;
            }
            for soft in [SoftChecks::Enforce, SoftChecks::Ignore] {
                let Some(mut trial) = moves::SecondaryTrial::new(&state, inst, soft) else {
                    continue;
                };
                for t in state.node_keys() {
                    let tried = trial.try_target(&state, t);
                    let moved = moves::apply(&state, inst, Move::ReplaceSecondary(t), soft);
                    let own = [inst.p_node, inst.s_node].contains(&(t as i32));
                    let what = format!("seed {seed}, {} to {t}", inst.name);
                    match (tried, moved) {
                        (None, _) => assert!(own, "{what}: not tried"),
                        (Some(_), _) if own => panic!("{what}: own node tried"),
                        (Some(Ok(values)), Ok(m)) => {
                            let expected: Vec<(usize, Scalars)> = m
                                .final_nodes()
                                .iter()
                                .map(|(k, n)| (*k, n.scalars()))
                                .collect();
                            assert_eq!(values.to_vec(), expected, "{what}");
                            fits += 1;
                        }
                        (Some(Err(MoveError::Fail(a))), Err(MoveError::Fail(b))) => {
                            assert_eq!(a, b, "{what}");
                            fails += 1;
                        }
                        (a, b) => panic!("{what}: {a:?} against {:?}", b.err()),
                    }
                }
            }
        }
    }
    assert!(fits > 1000 && fails > 1000, "{fits} fits, {fails} failures");
}

/// A change-group large enough for the pair scan to run on threads
/// gives the same moves, jobs and failures as the scan in one run
/// (which explaining forces), on clusters of mostly empty, identical
/// nodes, where exact ties are decided by the candidates' order.
#[test]
fn threaded_pair_scan_matches_one_run() {
    use hailstone_devtools::generate::{generate, CaseSpec, DiskTemplate, RequestKind};
    let mut moved = 0;
    for seed in 1..=6 {
        let mut spec = CaseSpec::new(seed, RequestKind::ChangeGroup, 900);
        spec.groups = 2;
        spec.template = Some(DiskTemplate::Drbd);
        spec.instances_per_node = 0.3;
        spec.tightness = 0.2;
        let text = generate(&spec).request;
        let doc = crate::read::json::parse_document(text.as_bytes()).expect("valid JSON");
        let loaded = load_document(&doc, &LoadOptions::default()).expect("loads");
        let Request::ChangeGroup {
            instances,
            target_groups,
        } = &loaded.request
        else {
            panic!("a change-group request")
        };
        let groups = loaded.cluster.groups.clone();
        let probe = State::new(&loaded.cluster);
        // The instances' group is left for the other one.
        let own = probe
            .inst(instances[0] as i32)
            .and_then(|i| probe.node(i.p_node))
            .expect("the instance's node")
            .group;
        let other = probe
            .node_keys()
            .filter(|&k| probe.node_at(k).group != own)
            .count();
        assert!(
            other * other >= PARALLEL_PAIRS,
            "{other} nodes: too few to thread"
        );
        let opts = AllocOptions::new(&Default::default(), None);
        let run = |explain: bool| {
            let mut state = State::new(&loaded.cluster);
            let mut notes = explain.then(Vec::new);
            let sol = change_group(
                &groups,
                &mut state,
                target_groups,
                instances,
                &opts,
                None,
                notes.as_mut(),
            )
            .expect("no crash");
            (sol.moved, sol.failed, sol.moves)
        };
        let threaded = run(false);
        moved += threaded.0.len();
        assert_eq!(threaded, run(true), "seed {seed}");
    }
    assert!(moved >= 3, "too few instances moved: {moved}");
}

/// Node evacuation ("all") of drbd instances inside their group, on
/// groups large enough to thread and with varied nodes (rows skipped by
/// their bound, special secondaries among the old nodes): the same
/// answer as the scan in one run without skipping (explaining forces
/// both).
#[test]
fn skipped_rows_keep_the_answer() {
    use crate::model::types::{EvacMode, SoftChecks};
    use hailstone_devtools::generate::{generate, CaseSpec, EvacMode as GenMode, RequestKind};
    let mut moved = 0;
    for seed in 1..=4 {
        let mut spec = CaseSpec::new(seed, RequestKind::NodeEvacuate(GenMode::All), 700);
        spec.groups = 2;
        let text = generate(&spec).request;
        let doc = crate::read::json::parse_document(text.as_bytes()).expect("valid JSON");
        let loaded = load_document(&doc, &LoadOptions::default()).expect("loads");
        let Request::NodeEvacuate { instances, mode } = &loaded.request else {
            panic!("a node-evacuate request")
        };
        assert_eq!(*mode, EvacMode::ChangeAll);
        let groups = loaded.cluster.groups.clone();
        let run = |explain: bool| {
            let mut state = State::new(&loaded.cluster);
            let mut notes = explain.then(Vec::new);
            let sol = try_node_evac(
                &groups,
                &mut state,
                *mode,
                instances,
                SoftChecks::Enforce,
                notes.as_mut(),
            )
            .expect("no crash");
            (sol.moved, sol.failed, sol.moves)
        };
        let fast = run(false);
        moved += fast.0.len();
        assert_eq!(fast, run(true), "seed {seed}");
    }
    assert!(moved >= 5, "too few instances moved: {moved}");
}
