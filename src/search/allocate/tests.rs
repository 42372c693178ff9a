//! The allocation search's unit tests: explanations, the bounded and the
//! threaded pair scans against the plain one, `winner_only`, and the
//! shared data of a multi-group search against fresh searches.

use super::bounded::{bounded_scan, PairPlan};
use super::pairs::{scan_all, BOUNDED_PARALLEL_FACTOR};
use super::row::{pair_scan, primary_row, PairScan, SecCache};
use super::*;
use crate::model::types::FailMode;
use crate::model::Request;
use crate::read::loader::{load_document, LoadOptions};
use crate::search::solution::CandidateOutcome;

/// Reads a request into the model.
fn load_request(bytes: &[u8]) -> crate::read::loader::Loaded {
    let doc = crate::read::json::parse_document(bytes).expect("valid JSON");
    load_document(&doc, &LoadOptions::default()).expect("loads")
}

/// The new instance and node count of an allocate request.
fn allocate_request(loaded: &crate::read::loader::Loaded) -> (&Instance, i64) {
    match &loaded.request {
        Request::Allocate {
            instance,
            required_nodes,
            ..
        } => (instance, *required_nodes),
        _ => panic!("an allocate request"),
    }
}

/// The allocation search of an allocate request with capacity checks.
fn search(loaded: &crate::read::loader::Loaded, explain: bool) -> AllocSolution<f64> {
    let (instance, required_nodes) = allocate_request(loaded);
    let opts = AllocOptions {
        capacity_checks: true,
        explain,
        ..Default::default()
    };
    let mut state = State::new(&loaded.cluster);
    try_mg_alloc(
        &loaded.cluster.groups,
        &mut state,
        instance,
        required_nodes,
        &opts,
    )
    .expect("answers")
}

/// With `explain`, the search keeps each candidate's outcome: refused
/// with its reason, scored, or dropped by the capacity check.
#[test]
fn explain_records_every_candidate() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/protocol-samples/allocate-n1-fail.json"
    );
    let loaded = load_request(&std::fs::read(path).expect("sample exists"));
    let sol = search(&loaded, true);
    // hail's info for this sample: successes 1, failures 2 (FailMem: 1, FailN1: 1).
    let refused = sol
        .notes
        .iter()
        .filter(|n| matches!(n.outcome, CandidateOutcome::Refused(FailMode::Mem)))
        .count();
    let dropped = sol
        .notes
        .iter()
        .filter(|n| matches!(n.outcome, CandidateOutcome::Dropped(_)))
        .count();
    let scored = sol
        .notes
        .iter()
        .filter(|n| matches!(n.outcome, CandidateOutcome::Scored(_)))
        .count();
    assert_eq!((refused, dropped, scored), (1, 1, 1), "{:?}", sol.notes);
    let winner = sol.best.as_ref().expect("a placement").primary;
    assert!(sol
        .notes
        .iter()
        .any(|n| n.primary == winner && matches!(n.outcome, CandidateOutcome::Scored(_))));
    // Without `explain`, nothing is recorded.
    let sol = search(&loaded, false);
    assert!(sol.notes.is_empty());
}

/// The pairs of every primary of a drbd allocation, by the bounded scan
/// (each secondary's check once, rows walked in the order of the
/// secondaries' floors) and by the plain scan: the same tallies and the
/// same best pair (lowest score, ties to the later secondary), on
/// roomy clusters of near-identical nodes (many exact ties), tight ones
/// (many refusals) and random ones (offline and drained nodes, tags,
/// policies, exclusive storage).
#[test]
fn bounded_scan_matches_plain_scan() {
    use hailstone_devtools::generate::{generate, CaseSpec, DiskTemplate, RequestKind};
    let mut specs = Vec::new();
    for seed in 1..=3 {
        let mut tie = CaseSpec::new(seed, RequestKind::Allocate, 60);
        tie.instances_per_node = 0.3;
        tie.tightness = 0.1;
        specs.push(tie);
        let mut tight = CaseSpec::new(seed, RequestKind::Allocate, 80);
        tight.tightness = 0.95;
        tight.disk_tightness = 0.9;
        tight.new_size = 0.8;
        specs.push(tight);
    }
    for seed in 1..=40 {
        specs.push(CaseSpec::random(seed, RequestKind::Allocate, 20..=120));
    }
    let (mut bounded_rows, mut pruned) = (0usize, 0usize);
    for mut spec in specs {
        spec.template = Some(DiskTemplate::Drbd);
        let loaded = load_request(generate(&spec).request.as_bytes());
        let (instance, _) = allocate_request(&loaded);
        let state = State::new(&loaded.cluster);
        let stats = state.cluster_stats();
        let opts = AllocOptions::default();
        for (_, keys) in split_groups(&state, loaded.cluster.groups.len()) {
            let Ok(AllocNodes::Pairs(list)) = gen_alloc_nodes(&state, &keys, 2, None) else {
                continue;
            };
            let cache = SecCache::new(&state, instance, &list);
            let plan = PairPlan::new(&state, &stats, instance, &list, &opts, &cache);
            for (at, (p, secs, l)) in list.iter_indexed().enumerate() {
                let Some(lp) = plan.lists[l].as_ref() else {
                    continue;
                };
                let Some(fast) = bounded_scan(&state, instance, p, at, &plan, lp, &cache, None)
                else {
                    continue;
                };
                let slow = pair_scan(&state, &stats, instance, p, secs, &opts, false, None, None);
                bounded_rows += 1;
                match (&fast, &slow) {
                    (
                        PairScan::Best { any_nan: false, .. },
                        PairScan::Best { any_nan: false, .. },
                    ) => assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{spec:?}"),
                    (
                        PairScan::Best {
                            failures: f1,
                            succeeded: s1,
                            ..
                        },
                        PairScan::Best {
                            failures: f2,
                            succeeded: s2,
                            ..
                        },
                    ) => assert_eq!((f1, s1), (f2, s2)),
                    _ => panic!("{fast:?} {slow:?}"),
                }
                // How many secondaries the walk scored.
                let best = match &fast {
                    PairScan::Best { best: Some(b), .. } => b.score,
                    _ => continue,
                };
                let floor = crate::score::pairbound::row_floor(
                    &primary_row(&state, &stats, instance, p, &opts)
                        .expect("checked")
                        .expect("online")
                        .values,
                );
                pruned += lp
                    .sorted
                    .iter()
                    .filter(|(f, _, _)| crate::score::pairbound::cannot_beat(floor, *f, best))
                    .count();
            }
        }
    }
    assert!(bounded_rows >= 1000, "only {bounded_rows} rows bounded");
    assert!(pruned >= 10 * bounded_rows, "only {pruned} pairs pruned");
}

/// `winner_only` settles only the rows that can still win: the same
/// placement and score as the exact search, and, when no placement is
/// found, the same tallies; on tight clusters where the capacity check
/// drops many rows' best pairs.
#[test]
fn winner_only_keeps_the_placement() {
    use hailstone_devtools::generate::{generate, CaseSpec, DiskTemplate, RequestKind};
    let (mut placed, mut differ) = (0usize, 0usize);
    for seed in 1..=40 {
        let mut spec = CaseSpec::random(seed, RequestKind::Allocate, 10..=150);
        spec.template = Some(DiskTemplate::Drbd);
        if seed.is_multiple_of(2) {
            spec.tightness = 0.9;
            spec.new_size = 0.5;
        }
        let loaded = load_request(generate(&spec).request.as_bytes());
        let (instance, required_nodes) = allocate_request(&loaded);
        let run = |winner_only: bool| {
            let opts = AllocOptions {
                capacity_checks: true,
                winner_only,
                ..Default::default()
            };
            let mut state = State::new(&loaded.cluster);
            let search = search_groups(
                &loaded.cluster.groups,
                &mut state,
                None,
                instance,
                required_nodes,
                &opts,
            )
            .expect("no crash");
            search
                .results
                .into_iter()
                .map(|(g, r)| match r {
                    Ok(sol) => {
                        let best = sol
                            .best
                            .as_ref()
                            .map(|b| (b.primary, b.secondary, b.metric.to_bits()));
                        let tallies = best.is_none().then(|| sol.describe());
                        (g, Ok((best, tallies)), sol.describe())
                    }
                    Err(e) => (g, Err(format!("{e:?}")), String::new()),
                })
                .collect::<Vec<_>>()
        };
        let exact = run(false);
        let fast = run(true);
        for (e, f) in exact.iter().zip(&fast) {
            assert_eq!((&e.0, &e.1), (&f.0, &f.1), "seed {seed}");
            if matches!(&e.1, Ok((Some(_), _))) {
                placed += 1;
            }
            if e.2 != f.2 {
                differ += 1;
            }
        }
    }
    assert!(placed >= 20, "only {placed} placements");
    // Some searches skipped a dropped pair's row (their tallies differ).
    assert!(differ >= 1, "no row was left unsettled");
}

/// The groups of one [`search_groups`] share the data of the state
/// ([`SearchBase`]): each group's result is the one a search of that
/// group alone finds on a fresh copy of the state (same placement,
/// score bits, tallies and text), with and without the capacity check,
/// for single nodes and pairs. Without the capacity check, `winner_only`
/// changes no group's result either (what lets a group change read
/// every group's tallies with it).
#[test]
fn shared_search_base_matches_fresh_searches() {
    use hailstone_devtools::generate::{generate, CaseSpec, DiskTemplate, RequestKind};
    let summary = |sol: &AllocSolution<f64>| {
        let best = sol.best.as_ref().map(|b| {
            (
                b.primary,
                b.secondary,
                b.metric.to_bits(),
                b.node_names.clone(),
            )
        });
        (best, sol.allocs, sol.failures, sol.log.clone())
    };
    let (mut compared, mut placed, mut singles) = (0usize, 0usize, 0usize);
    for seed in 1..=60u64 {
        let mut spec = CaseSpec::random(seed, RequestKind::Allocate, 20..=160);
        spec.groups = 2 + (seed as usize) % 3;
        spec.template = Some(match seed % 3 {
            0 => DiskTemplate::Ext,
            1 => DiskTemplate::Plain,
            _ => DiskTemplate::Drbd,
        });
        if seed.is_multiple_of(4) {
            spec.tightness = 0.9;
        }
        let loaded = load_request(generate(&spec).request.as_bytes());
        let (instance, required_nodes) = allocate_request(&loaded);
        let groups = &loaded.cluster.groups;
        for (capacity_checks, winner_only) in [(true, false), (false, false), (false, true)] {
            let opts = AllocOptions {
                capacity_checks,
                winner_only,
                ..Default::default()
            };
            let mut state = State::new(&loaded.cluster);
            let search = search_groups(groups, &mut state, None, instance, required_nodes, &opts)
                .expect("no crash");
            // Each group alone, on its own fresh state, every tally
            // exact.
            let alone_opts = AllocOptions {
                winner_only: false,
                ..opts.clone()
            };
            for (g, r) in &search.results {
                let mut fresh = State::new(&loaded.cluster);
                let keys = fresh.group_keys(*g).to_vec();
                let alone = gen_alloc_nodes(&fresh, &keys, required_nodes, None)
                    .and_then(|nodes| try_alloc(&mut fresh, instance, &nodes, &alone_opts));
                match (r, &alone) {
                    (Ok(a), Ok(b)) => {
                        assert_eq!(summary(a), summary(b), "seed {seed} group {g}");
                        placed += usize::from(a.best.is_some());
                        singles += usize::from(required_nodes == 1);
                    }
                    (a, b) => {
                        assert_eq!(a.as_ref().err(), b.as_ref().err(), "seed {seed} group {g}")
                    }
                }
                compared += 1;
            }
        }
    }
    assert!(
        compared >= 300 && placed >= 100 && singles >= 50,
        "too few cases: {compared} groups, {placed} placements, {singles} single-node"
    );
}

/// A search large enough to scan on several threads finds what the
/// one-thread scan finds, and the same with its notes on: same
/// placement, score and counts.
#[test]
fn threaded_scan_matches_sequential_scan() {
    use hailstone_devtools::generate::{generate, CaseSpec, DiskTemplate, RequestKind};
    let mut spec = CaseSpec::new(7, RequestKind::Allocate, 600);
    spec.template = Some(DiskTemplate::Drbd);
    let loaded = load_request(generate(&spec).request.as_bytes());
    let (instance, required_nodes) = allocate_request(&loaded);
    let summary = |explain: bool| {
        let sol = search(&loaded, explain);
        let best = sol
            .best
            .as_ref()
            .map(|b| (b.primary, b.secondary, b.metric.to_bits()));
        (best, sol.allocs, format!("{:?}", sol.failures), sol.log)
    };
    // Each primary's scan, threaded and in order.
    let state = State::new(&loaded.cluster);
    let stats = state.cluster_stats();
    let opts = AllocOptions::default();
    let keys: Vec<usize> = state.node_keys().collect();
    let nodes = gen_alloc_nodes(&state, &keys, required_nodes, None).expect("candidates");
    let AllocNodes::Pairs(list) = nodes else {
        panic!("pairs for a drbd instance")
    };
    let pairs: usize = list.iter().map(|(_, s)| s.len()).sum();
    assert!(
        pairs >= PARALLEL_PAIRS * BOUNDED_PARALLEL_FACTOR,
        "the search must be large enough to thread"
    );
    let threaded: Vec<String> = scan_all(&state, &stats, instance, &list, &opts, None)
        .iter()
        .map(|(s, _)| format!("{s:?}"))
        .collect();
    let in_order: Vec<String> = list
        .iter()
        .map(|(p, s)| {
            format!(
                "{:?}",
                pair_scan(&state, &stats, instance, p, s, &opts, false, None, None)
            )
        })
        .collect();
    assert_eq!(threaded, in_order);
    // And the whole search.
    let threaded = summary(false);
    assert!(threaded.0.is_some(), "a placement: {threaded:?}");
    assert_eq!(threaded, summary(true));
}

/// With [`GroupsRead::Winner`], a pair search cuts the rows that surely
/// score above the placement of a group searched before it: the chosen
/// group and its placement (pair, score bits) are those of the full
/// search, and a group that was not cut has the very same result.
#[test]
fn outranked_groups_leave_the_choice_unchanged() {
    use hailstone_devtools::generate::{generate, CaseSpec, DiskTemplate, RequestKind};
    let placement = |r: &Result<AllocSolution<f64>, SearchError>| {
        r.as_ref().ok().and_then(|sol| {
            sol.best
                .as_ref()
                .map(|b| (b.primary, b.secondary, b.metric.to_bits()))
        })
    };
    let (mut chosen, mut cut) = (0usize, 0usize);
    for seed in 1..=40u64 {
        let mut spec = CaseSpec::random(seed, RequestKind::Allocate, 60..=240);
        spec.groups = 2 + (seed as usize) % 3;
        spec.template = Some(if seed % 4 == 0 {
            DiskTemplate::Ext
        } else {
            DiskTemplate::Drbd
        });
        let loaded = load_request(generate(&spec).request.as_bytes());
        let (instance, required_nodes) = allocate_request(&loaded);
        let groups = &loaded.cluster.groups;
        for capacity_checks in [false, true] {
            let search = |groups_read| {
                let opts = AllocOptions {
                    capacity_checks,
                    winner_only: true,
                    groups_read,
                    ..Default::default()
                };
                let mut state = State::new(&loaded.cluster);
                search_groups(groups, &mut state, None, instance, required_nodes, &opts)
                    .expect("no crash")
            };
            let (every, winner) = (search(GroupsRead::Every), search(GroupsRead::Winner));
            assert!(every.outranked.is_empty());
            let won = every.winner(groups);
            assert_eq!(won, winner.winner(groups), "seed {seed}");
            chosen += usize::from(won.is_some());
            for ((g, a), (h, b)) in every.results.iter().zip(&winner.results) {
                assert_eq!(g, h);
                if Some(*g) == won {
                    assert_eq!(placement(a), placement(b), "seed {seed} group {g}");
                }
                if winner.outranked.contains(g) {
                    cut += 1;
                    continue;
                }
                assert_eq!(placement(a), placement(b), "seed {seed} group {g}");
                assert_eq!(
                    a.as_ref().map(|s| (s.allocs, s.failures)).ok(),
                    b.as_ref().map(|s| (s.allocs, s.failures)).ok(),
                    "seed {seed} group {g}"
                );
            }
        }
    }
    assert!(
        chosen >= 40 && cut >= 10,
        "too few cases: {chosen} chosen, {cut} groups cut"
    );
}
