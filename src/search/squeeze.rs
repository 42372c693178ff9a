//! hsqueeze's planner (`Program/Hsqueeze.hs`, Ganeti 3.0.2) on the
//! balancing engine: which nodes to power off when the cluster is quiet,
//! or which standby nodes to power on when it runs short.
//!
//! * A *trial* marks some nodes offline (or online), balances the whole
//!   cluster as one table (every group's online nodes are targets, minimum
//!   gain 0, no length limit) from the loaded state, and succeeds when
//!   every instance's primary is online and every node, offline ones and
//!   the master included, could still take the reserve instance as a new
//!   primary with strict checks (`allNodesCapacityFor`).
//! * Offlining: the candidates (online, not master, no secondaries, no
//!   plain or drbd primaries), sorted by descending primary count (stable),
//!   are tried greedily from the end, each trial with the nodes chosen so
//!   far; the target reserve is `--target-resources` times the cluster
//!   policy's standard instance.
//! * Onlining, when some node cannot take the minimal reserve already: the
//!   shortest prefix (the empty one first) of the offline standby nodes, in
//!   node order, whose trial succeeds; all of them when none does.
//!
//! Each trial is hsqueeze's, so the result is hsqueeze's; what is faster
//! is how the trials are run. A trial that cannot succeed whatever the
//! balancing does (an unmovable instance left on an offline node, or less
//! memory on the online nodes than the instances and the reserve need) is
//! failed without balancing. Greedy offlining runs the next trial on a
//! second thread, betting that it sees the same outcome as the last one;
//! a lost bet is thrown away, so results are taken in hsqueeze's order and
//! never depend on the threads.

use crate::model::instance::Instance;
use crate::model::node::Node;
use crate::model::policy::ISpec;
use crate::model::refusal::Refusal;
use crate::model::types::{DiskTemplate, SoftChecks};
use crate::model::Cluster;
use crate::search::balance::{self, BalanceOptions, Placement};
use crate::search::state::State;

/// GHC's `floor :: Double -> Int` (its `floorDoubleInt` rule): truncation
/// as the x86-64 `cvttsd2si` instruction does it (NaN and out-of-range
/// values give `i64::MIN`), then one less when that is above `x`.
pub fn ghc_floor(x: f64) -> i64 {
    // 2^63 as a double; `x >= 2^63 || x < -2^63` overflow the conversion.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    let n = if x.is_nan() || !(-LIMIT..LIMIT).contains(&x) {
        i64::MIN
    } else {
        x as i64
    };
    if x < n as f64 {
        n.wrapping_sub(1)
    } else {
        n
    }
}

/// hsqueeze's reserve instance (`instanceFromSpecAndFactor`): `factor`
/// times the standard spec's memory, CPUs and spindles, externally
/// mirrored, without disks, running.
pub fn reserve_instance(std: &ISpec, factor: f64) -> Instance {
    let scaled = |v: i64| ghc_floor(factor * v as f64);
    Instance::for_calculation(
        "targetInstance",
        scaled(std.memory_size),
        0,
        scaled(std.cpu_count),
        scaled(std.spindle_use),
        DiskTemplate::Ext,
        false,
    )
}

/// The first of `nodes` (key, node) that could not take `reserve` as a
/// new primary with strict checks, with the check that refused it
/// (`allNodesCapacityFor` fails on it).
pub fn first_short<'a>(
    mut nodes: impl Iterator<Item = (usize, &'a Node)>,
    reserve: &Instance,
) -> Option<(usize, Refusal)> {
    nodes.find_map(|(k, n)| {
        n.check_add_pri(SoftChecks::Enforce, reserve)
            .err()
            .map(|r| (k, r))
    })
}

/// The nodes that may be powered off, in the order hsqueeze keeps them:
/// online, not the master, without secondaries or local-storage primaries,
/// most primaries first (ties in node order).
pub fn offline_candidates(cluster: &Cluster) -> Vec<usize> {
    let local = |k: &i32| {
        usize::try_from(*k)
            .ok()
            .and_then(|k| cluster.instances.get(k))
            .is_some_and(Instance::uses_local_storage)
    };
    let mut out: Vec<usize> = (0..cluster.nodes.len())
        .filter(|&k| {
            let n = &cluster.nodes[k];
            !n.offline && !n.info.master && n.s_list.is_empty() && !n.p_list.iter().any(local)
        })
        .collect();
    // Stable: equal counts keep node order.
    out.sort_by_key(|&k| std::cmp::Reverse(cluster.nodes[k].p_list.len()));
    out
}

/// The nodes that may be powered on: offline with a standby tag, in node
/// order.
pub fn online_candidates(cluster: &Cluster) -> Vec<usize> {
    (0..cluster.nodes.len())
        .filter(|&k| cluster.nodes[k].offline && cluster.nodes[k].info.has_standby_tag())
        .collect()
}

/// The balancing of every trial: hsqueeze's `Alg.defaultOptions` with
/// minimum gain 0 and no stopping rule but a strict improvement.
fn trial_options(threads: bool) -> BalanceOptions {
    BalanceOptions {
        soft: SoftChecks::Enforce,
        disk_moves: true,
        inst_moves: true,
        restricted_migration: false,
        evac_mode: false,
        min_gain: 0.0,
        min_gain_limit: 0.0,
        max_length: -1,
        stop_score: f64::NEG_INFINITY,
        threads,
    }
}

/// Why a trial failed.
#[derive(Debug, Clone)]
pub enum TrialFailure {
    /// An instance that the balancing may not move (its template, or not
    /// auto-balanced) would stay on a node being powered off.
    Stuck { inst: usize, node: usize },
    /// The online nodes lack the memory for the instances plus the reserve
    /// on each (MiB): at most `room` for `used`, every node able to keep
    /// the reserve when empty.
    Memory { room: i128, used: i128 },
    /// An online node cannot keep the reserve even without instances: its
    /// memory for instances (`free`: its total less its own and its
    /// unaccounted memory, MiB) is not above the reserve's (`need`).
    TooSmall { node: usize, need: i64, free: i64 },
    /// After the balancing, an instance is still on an offline node.
    LeftOffline { inst: usize },
    /// After the balancing, a node could not take the reserve: the node
    /// (as it was then) and the refused check.
    Short {
        node: usize,
        refusal: Refusal,
        after: Box<Node>,
    },
}

/// A trial's outcome.
pub struct Trial {
    /// Whether the nodes could be switched (see the module doc).
    pub ok: bool,
    /// Why not, when it failed.
    pub failure: Option<TrialFailure>,
    /// The balancing's steps, oldest first (empty when the trial was
    /// failed without balancing).
    pub steps: Vec<Placement>,
    /// The cluster after the switch and the balancing (`None` when the
    /// trial was failed without balancing).
    pub state: Option<State>,
}

/// What hsqueeze decides.
pub enum Decision {
    /// Some node cannot take the minimal reserve: power on these standby
    /// nodes (`enough` false when even all of them do not suffice).
    Online {
        nodes: Vec<usize>,
        enough: bool,
        trial: Trial,
    },
    /// Nothing to power off.
    NoAction,
    /// Power off these nodes (in candidate order).
    Offline { nodes: Vec<usize>, trial: Trial },
}

/// One trial as hsqueeze's order took it: the node it added (offlining)
/// or the standby nodes it switched on (onlining), and why it failed.
#[derive(Debug, Clone)]
pub struct Attempt {
    pub nodes: Vec<usize>,
    pub failure: Option<TrialFailure>,
}

/// How far the decision is: trials taken of the candidates, and the
/// nodes chosen so far (to power on, when `on`; else off).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub tried: usize,
    pub candidates: usize,
    pub chosen: usize,
    pub on: bool,
}

/// How the decision was reached, for explanations.
#[derive(Debug, Clone, Default)]
pub struct Reasoning {
    /// The first node that cannot take the minimal reserve now (then
    /// standby nodes are powered on), with its check.
    pub short_now: Option<(usize, Refusal)>,
    /// The trials, in hsqueeze's order.
    pub attempts: Vec<Attempt>,
}

/// The planner over one loaded cluster.
pub struct Squeeze<'a> {
    cluster: &'a Cluster,
    /// By instance key: whether the balancer may move it (template, and
    /// not split over two groups).
    movable: Vec<bool>,
    /// Total memory in use by primaries, summed over all nodes.
    used_mem: i128,
}

/// The magnitude below which the memory pre-check's sums cannot differ
/// from Ganeti's wrapping arithmetic.
const SANE: i128 = 1 << 52;

impl<'a> Squeeze<'a> {
    /// Prepares the planner.
    pub fn new(cluster: &'a Cluster) -> Squeeze<'a> {
        let movable = cluster
            .instances
            .iter()
            .map(|i| cluster.balancer_movable(i))
            .collect();
        let used_mem = cluster.nodes.iter().map(|n| i128::from(n.i_mem)).sum();
        Squeeze {
            cluster,
            movable,
            used_mem,
        }
    }

    /// Whether the trial switching `nodes` to `offline` surely fails
    /// whatever the balancing does: an instance that cannot move would be
    /// left on an offline node, or the online nodes lack the memory for
    /// the instances plus the reserve on each.
    fn surely_fails(
        &self,
        nodes: &[usize],
        offline: bool,
        reserve: &Instance,
    ) -> Option<TrialFailure> {
        let is_offline = |k: usize| {
            if nodes.contains(&k) {
                offline
            } else {
                self.cluster.nodes[k].offline
            }
        };
        let stuck = self.cluster.instances.iter().enumerate().find(|(k, i)| {
            let on_offline = usize::try_from(i.p_node).is_ok_and(is_offline);
            on_offline && !(self.movable[*k] && i.auto_balance)
        });
        if let Some((inst, i)) = stuck {
            let node = usize::try_from(i.p_node).unwrap_or(usize::MAX);
            return Some(TrialFailure::Stuck { inst, node });
        }
        let r_mem = i128::from(reserve.mem);
        if !(0..SANE).contains(&r_mem) || !(0..SANE).contains(&self.used_mem) {
            return None;
        }
        let mut room: i128 = 0;
        // The first online node whose share is negative: it cannot keep the
        // reserve even empty.
        let mut too_small: Option<(usize, i64)> = None;
        for (k, n) in self.cluster.nodes.iter().enumerate() {
            if is_offline(k) {
                continue;
            }
            let parts = [
                crate::model::node::truncate(n.t_mem),
                n.n_mem,
                n.x_mem.max(0),
                n.i_mem,
            ];
            if parts
                .iter()
                .any(|v| !(-SANE..SANE).contains(&i128::from(*v)))
            {
                return None;
            }
            // A node keeps room for the reserve when its unallocated memory
            // exceeds the reserve's: it holds at most this much (the sum of
            // these shares bounds what the nodes hold, negative ones
            // included, as no instance takes negative memory).
            let free = i128::from(parts[0]) - i128::from(parts[1]) - i128::from(parts[2]);
            let share = free - r_mem - 1;
            if share < 0 && too_small.is_none() {
                too_small = Some((k, parts[0] - parts[1] - parts[2]));
            }
            room += share;
        }
        if room >= self.used_mem {
            return None;
        }
        // The reason in true figures: a node too small for the reserve, or
        // the room of nodes that each can keep it.
        Some(match too_small {
            Some((node, free)) => TrialFailure::TooSmall {
                node,
                need: reserve.mem,
                free,
            },
            None => TrialFailure::Memory {
                room,
                used: self.used_mem,
            },
        })
    }

    /// One trial: `nodes` switched to `offline`, the cluster balanced, the
    /// outcome checked against `reserve`. With `precheck`, a trial that
    /// surely fails is not balanced.
    fn trial(
        &self,
        nodes: &[usize],
        offline: bool,
        reserve: &Instance,
        precheck: bool,
        threads: bool,
    ) -> Trial {
        if let Some(failure) = precheck
            .then(|| self.surely_fails(nodes, offline, reserve))
            .flatten()
        {
            return Trial {
                ok: false,
                failure: Some(failure),
                steps: Vec::new(),
                state: None,
            };
        }
        let mut list = self.cluster.nodes.clone();
        for &k in nodes {
            list[k].offline = offline;
        }
        let mut state =
            State::from_lists(list, self.cluster.instances.clone(), &self.cluster.groups);
        let score = state.score_with(&[]);
        let steps = balance::balance(
            &mut state,
            &self.movable,
            &trial_options(threads),
            score,
            |_, _| {},
        );
        let left = (0..state.inst_slots()).find(|&k| {
            state
                .inst(k as i32)
                .is_ok_and(|i| state.node(i.p_node).is_ok_and(|n| n.offline))
        });
        let failure = match left {
            Some(inst) => Some(TrialFailure::LeftOffline { inst }),
            None => first_short(state.node_keys().map(|k| (k, state.node_at(k))), reserve).map(
                |(node, refusal)| TrialFailure::Short {
                    node,
                    refusal,
                    after: Box::new(state.node_at(node).clone()),
                },
            ),
        };
        Trial {
            ok: failure.is_none(),
            failure,
            steps,
            state: Some(state),
        }
    }

    /// hsqueeze's decision for the reserve factors `minimal` and `target`,
    /// and how it was reached; `progress` is shown each trial as it is
    /// taken (the decision does not depend on it).
    pub fn decide(
        &self,
        minimal: f64,
        target: f64,
        progress: &mut dyn FnMut(Progress),
    ) -> (Decision, Reasoning) {
        let std = &self.cluster.ipolicy.std;
        let min_inst = reserve_instance(std, minimal);
        let target_inst = reserve_instance(std, target);
        let mut why = Reasoning {
            short_now: first_short(self.cluster.nodes.iter().enumerate(), &min_inst),
            attempts: Vec::new(),
        };
        if why.short_now.is_some() {
            let cands = online_candidates(self.cluster);
            let mut last = None;
            for len in 0..=cands.len() {
                let trial = self.trial(&cands[..len], false, &min_inst, true, true);
                why.attempts.push(Attempt {
                    nodes: cands[..len].to_vec(),
                    failure: trial.failure.clone(),
                });
                progress(Progress {
                    tried: len,
                    candidates: cands.len(),
                    chosen: len,
                    on: true,
                });
                if trial.ok {
                    let d = Decision::Online {
                        nodes: cands[..len].to_vec(),
                        enough: true,
                        trial,
                    };
                    return (d, why);
                }
                last = Some(trial);
            }
            // Nothing suffices: all of them, balanced (the last trial,
            // unless it was failed without balancing).
            let trial = match last {
                Some(t) if t.state.is_some() => t,
                _ => self.trial(&cands, false, &min_inst, false, true),
            };
            let d = Decision::Online {
                nodes: cands,
                enough: false,
                trial,
            };
            return (d, why);
        }
        let cands = offline_candidates(self.cluster);
        let (chosen, trial) =
            self.greedy_offline(&cands, &target_inst, &mut why.attempts, progress);
        let d = match trial {
            Some(trial) if !chosen.is_empty() => Decision::Offline {
                nodes: chosen,
                trial,
            },
            _ => Decision::NoAction,
        };
        (d, why)
    }

    /// `greedyOfflineNodes`: from the last candidate to the first, a node
    /// joins the chosen ones when the trial with all of them succeeds.
    /// Returns the chosen nodes in candidate order and the last successful
    /// trial (which is the plan); each trial taken is noted in `attempts`
    /// (with the node it tried).
    fn greedy_offline(
        &self,
        cands: &[usize],
        reserve: &Instance,
        attempts: &mut Vec<Attempt>,
        progress: &mut dyn FnMut(Progress),
    ) -> (Vec<usize>, Option<Trial>) {
        let mut chosen: Vec<usize> = Vec::new();
        let mut plan: Option<Trial> = None;
        let mut last_ok = true;
        let mut i = cands.len();
        let parallel = crate::threads::available() > 1;
        let mut taken = 0;
        let mut note = |node: usize, t: &Trial, chosen: usize| {
            attempts.push(Attempt {
                nodes: vec![node],
                failure: t.failure.clone(),
            });
            taken += 1;
            progress(Progress {
                tried: taken,
                candidates: cands.len(),
                chosen: chosen + usize::from(t.ok),
                on: false,
            });
        };
        while i > 0 {
            let node = cands[i - 1];
            let with = |chosen: &[usize], extra: usize| {
                let mut set = vec![extra];
                set.extend_from_slice(chosen);
                set
            };
            let set = with(&chosen, node);
            if !parallel || i == 1 {
                let t = self.trial(&set, true, reserve, true, true);
                note(node, &t, chosen.len());
                if t.ok {
                    chosen = set;
                    plan = Some(t);
                }
                i -= 1;
                continue;
            }
            // The next trial, betting on this one's outcome being the last
            // one's.
            let next = cands[i - 2];
            let bet_set = if last_ok {
                with(&set, next)
            } else {
                with(&chosen, next)
            };
            let (t, bet) = std::thread::scope(|s| {
                // Two balancings side by side: each on one thread.
                let h = s.spawn(|| self.trial(&bet_set, true, reserve, true, false));
                let t = self.trial(&set, true, reserve, true, false);
                (t, h.join())
            });
            let bet = bet.unwrap_or_else(|p| std::panic::resume_unwind(p));
            let won = t.ok == last_ok;
            last_ok = t.ok;
            note(node, &t, chosen.len());
            if t.ok {
                chosen = set;
                plan = Some(t);
            }
            i -= 1;
            if won {
                last_ok = bet.ok;
                note(next, &bet, chosen.len());
                if bet.ok {
                    chosen = bet_set;
                    plan = Some(bet);
                }
                i -= 1;
            }
        }
        (chosen, plan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_is_ghcs() {
        assert_eq!(ghc_floor(2.5), 2);
        assert_eq!(ghc_floor(-2.5), -3);
        assert_eq!(ghc_floor(-0.0), 0);
        assert_eq!(ghc_floor(3.0), 3);
        assert_eq!(ghc_floor(f64::NAN), i64::MIN);
        assert_eq!(ghc_floor(f64::INFINITY), i64::MIN);
        assert_eq!(ghc_floor(1e300), i64::MIN);
        // -Inf truncates to i64::MIN, which is above -Inf: one less wraps.
        assert_eq!(ghc_floor(f64::NEG_INFINITY), i64::MAX);
        assert_eq!(ghc_floor(-1e300), i64::MAX);
    }

    /// Ganeti's `hspace-tiered-exclusive.data`: two nodes too small for
    /// twice the standard instance even empty, two with room for it.
    const TOO_SMALL: &str = "group-01|fake-uuid-01|preferred||

node-01-001|262144|65536|196608|2097152|2097152|8|N|fake-uuid-01|10||Y|10
node-01-002|262144|65536|196608|2097152|2097152|8|N|fake-uuid-01|10||Y|9
node-01-003|262144|1024|261120|2097152|2097152|8|N|fake-uuid-01|8||Y|8
node-01-004|262144|1024|261120|2097152|2097152|8|N|fake-uuid-01|8||Y|8



|129024,4,1047552,1,1,1|129024,4,1047552,1,1,1;131072,4,1048576,16,8,12|plain,diskless,file,sharedfile,blockdev,drbd,rbd,ext|4.0|32.0
group-01|129024,4,1047552,1,1,1|129024,4,1047552,1,1,1;131072,4,1048576,16,8,12|plain,diskless,file,sharedfile,blockdev,drbd,rbd,ext|4.0|32.0
";

    /// The memory pre-check names the first online node that cannot keep
    /// the reserve even empty, with its true figures, rather than a sum
    /// of the nodes' shares made negative by it; without those nodes the
    /// others have room.
    #[test]
    fn a_node_too_small_for_the_reserve_is_named() {
        let (cluster, _) = crate::read::text::load(
            "test",
            TOO_SMALL.as_bytes(),
            &crate::read::merge::MergeOptions::default(),
        )
        .expect("the data file");
        let reserve = reserve_instance(&cluster.ipolicy.std, 2.0);
        let squeeze = Squeeze::new(&cluster);
        let failure = squeeze.surely_fails(&[], false, &reserve);
        assert!(
            matches!(
                failure,
                Some(TrialFailure::TooSmall {
                    node: 0,
                    need: 258048,
                    free: 196608
                })
            ),
            "{failure:?}"
        );
        let failure = squeeze.surely_fails(&[0, 1], true, &reserve);
        assert!(failure.is_none(), "{failure:?}");
    }

    #[test]
    fn reserve_scales_the_standard_spec() {
        let std = ISpec {
            memory_size: 128,
            cpu_count: 1,
            disk_size: 1024,
            disk_count: 1,
            nic_count: 1,
            spindle_use: 1,
        };
        let r = reserve_instance(&std, 2.5);
        assert_eq!((r.mem, r.vcpus, r.spindle_use, r.dsk), (320, 2, 2, 0));
        assert!(!r.uses_local_storage());
    }
}
