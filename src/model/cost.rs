//! What a plan costs to carry out: the data each move copies over the
//! network, the counts of its operations, and how long the plan's job sets
//! take at given rates.
//!
//! A move is one of Ganeti's `IMove` kinds, carried out as hbal writes it
//! (`Cluster.iMoveToJob`, `-C`): a failover of a running instance is a
//! live migration (`gnt-instance migrate`), of a stopped one a failover;
//! a secondary change is `gnt-instance replace-disks -n NODE`.
//!
//! | move | operations |
//! |---|---|
//! | `Failover` | one failover |
//! | `FailoverToAny` | one failover (shared storage: no disk moves) |
//! | `ReplaceSecondary` | one disk replacement |
//! | `ReplaceAndFailover` | one disk replacement, one failover |
//! | `FailoverAndReplace` | one failover, one disk replacement |
//! | `ReplacePrimary` | two failovers around one disk replacement |
//!
//! What each operation copies:
//!
//! * a disk replacement makes a new DRBD secondary, which resyncs every
//!   disk of the instance from the primary: the sum of the instance's disk
//!   sizes (a data file gives one disk, the instance's disk size);
//! * a live migration of a running instance copies its memory;
//! * a failover copies nothing (its disks are already on the other node,
//!   or on shared storage): of a stopped instance, or off an offline
//!   primary, where a running instance is started again on its secondary
//!   (`--ignore-consistency`: the group changes off an offline node,
//!   hailstone-repair's failovers).
//!
//! A job is one move's operations, run one after the other: its time is
//! its disk data at the DRBD resync rate plus its memory at the migration
//! bandwidth. The jobs of a job set (hbal's `splitJobs`: consecutive moves
//! on disjoint nodes) run side by side and the sets one after another, as
//! `-X` submits them: a plan's time is the sum over its sets of the
//! longest job of the set. The defaults are Ganeti's own
//! ([`DEFAULT_RESYNC_RATE`], [`DEFAULT_MIGRATION_BANDWIDTH`]). The
//! estimate leaves out what no input says: the time a job waits for its
//! locks, DRBD's dynamic resync controller, a migration's dirty pages.

use crate::model::instance::Instance;
use crate::model::types::IMove;

/// Ganeti's default DRBD resync rate, in MiB/s: the disk parameter
/// `resync-rate` defaults to `classicDrbdSyncSpeed`, 61440 KiB/s
/// (`src/Ganeti/Constants.hs`, 3.0.2).
pub const DEFAULT_RESYNC_RATE: i64 = 61440 / 1024;

/// Ganeti's default live-migration bandwidth, in MiB/s: the KVM
/// hypervisor parameter `migration_bandwidth` defaults to 32
/// (`hvcDefaults` in `src/Ganeti/Constants.hs`, 3.0.2).
pub const DEFAULT_MIGRATION_BANDWIDTH: i64 = 32;

/// The rates a plan's time is estimated at, in MiB per second; each is
/// more than 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rates {
    /// How fast a new DRBD secondary resyncs.
    pub resync: i64,
    /// How fast a live migration copies memory.
    pub migration: i64,
}

impl Default for Rates {
    fn default() -> Self {
        Rates {
            resync: DEFAULT_RESYNC_RATE,
            migration: DEFAULT_MIGRATION_BANDWIDTH,
        }
    }
}

/// What one move (or, added up, a plan) copies and does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MoveCost {
    /// Disk data resynced to new DRBD secondaries, MiB.
    pub disk: i64,
    /// Memory copied by live migrations, MiB.
    pub memory: i64,
    /// Live migrations (failovers of running instances).
    pub migrations: i64,
    /// Failovers (no live migration): of stopped instances, and off
    /// offline primaries.
    pub failovers: i64,
    /// Disk replacements (new secondaries).
    pub replacements: i64,
}

impl MoveCost {
    /// The sum of two costs.
    pub fn plus(self, o: MoveCost) -> MoveCost {
        MoveCost {
            disk: self.disk.saturating_add(o.disk),
            memory: self.memory.saturating_add(o.memory),
            migrations: self.migrations + o.migrations,
            failovers: self.failovers + o.failovers,
            replacements: self.replacements + o.replacements,
        }
    }

    /// The time the move takes at `rates`, in seconds: its disk data at the
    /// resync rate plus its memory at the migration bandwidth.
    pub fn seconds(&self, rates: Rates) -> f64 {
        self.disk as f64 / rates.resync.max(1) as f64
            + self.memory as f64 / rates.migration.max(1) as f64
    }
}

/// The data a disk replacement of `inst` resyncs: the sum of its disk
/// sizes, MiB (its disk size when it lists no disk).
pub fn disk_data(inst: &Instance) -> i64 {
    if inst.disks.is_empty() {
        return inst.dsk.max(0);
    }
    inst.disks
        .iter()
        .fold(0i64, |t, d| t.saturating_add(d.size.max(0)))
}

/// How many failovers and disk replacements a move of kind `mv` is.
pub fn operations<N>(mv: &IMove<N>) -> (i64, i64) {
    match mv {
        IMove::Failover | IMove::FailoverToAny(_) => (1, 0),
        IMove::ReplaceSecondary(_) => (0, 1),
        IMove::ReplaceAndFailover(_) | IMove::FailoverAndReplace(_) => (1, 1),
        IMove::ReplacePrimary(_) => (2, 1),
    }
}

/// The cost of moving `inst` (as it is before the move) by `mv`.
pub fn move_cost<N>(inst: &Instance, mv: &IMove<N>) -> MoveCost {
    let (fails, replaces) = operations(mv);
    let running = inst.run_state.is_running();
    MoveCost {
        disk: disk_data(inst).saturating_mul(replaces),
        memory: if running {
            inst.mem.max(0).saturating_mul(fails)
        } else {
            0
        },
        migrations: if running { fails } else { 0 },
        failovers: if running { 0 } else { fails },
        replacements: replaces,
    }
}

/// The cost of a group change of `inst` (hailstone-groups' relocations,
/// the allocator's change-group): its `moves` one after another from
/// its nodes `old` (primary, secondary; negative for none), `running` or
/// not; a switch off a primary that `offline` says is offline is a failover
/// that copies nothing (`--ignore-consistency`), as the commands say.
pub fn relocation_cost(
    inst: &Instance,
    old: (i32, i32),
    moves: &[IMove<usize>],
    running: bool,
    offline: impl Fn(i32) -> bool,
) -> MoveCost {
    let (mut p, mut s) = old;
    let mut total = MoveCost::default();
    for mv in moves {
        let (fails, replaces) = operations(mv);
        let live = running && !offline(p);
        total = total.plus(MoveCost {
            disk: disk_data(inst).saturating_mul(replaces),
            memory: if live {
                inst.mem.max(0).saturating_mul(fails)
            } else {
                0
            },
            migrations: if live { fails } else { 0 },
            failovers: if live { 0 } else { fails },
            replacements: replaces,
        });
        match *mv {
            IMove::Failover => std::mem::swap(&mut p, &mut s),
            IMove::FailoverToAny(t) => p = t as i32,
            IMove::ReplaceSecondary(t) => s = t as i32,
            // A group change moves only by the three above.
            _ => {}
        }
    }
    total
}

/// A plan's cost: the totals of its moves and its estimated time.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanCost {
    /// The moves' costs added up.
    pub total: MoveCost,
    /// The number of moves.
    pub moves: usize,
    /// Each job set's time, seconds (its longest job).
    pub sets: Vec<f64>,
    /// The plan's time, seconds: the sets' times added up.
    pub seconds: f64,
    /// The rates it was estimated at.
    pub rates: Rates,
}

impl PlanCost {
    /// The cost of a plan whose moves, with their costs, come in the job
    /// sets `sets` (in order).
    pub fn of_sets(sets: &[Vec<MoveCost>], rates: Rates) -> PlanCost {
        let mut total = MoveCost::default();
        let mut moves = 0;
        let mut times = Vec::with_capacity(sets.len());
        for set in sets {
            let mut longest = 0.0_f64;
            for c in set {
                total = total.plus(*c);
                moves += 1;
                longest = longest.max(c.seconds(rates));
            }
            times.push(longest);
        }
        // From +0.0: an empty sum of floats is -0.0.
        let seconds = times.iter().fold(0.0, |t, s| t + s);
        PlanCost {
            total,
            moves,
            sets: times,
            seconds,
            rates,
        }
    }
}

/// Where a plan's curve of score against data copied bends: the first
/// `steps` moves reach `improvement` of the plan's score improvement for
/// `data` of its disk data (both fractions of the whole plan's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Knee {
    /// How many moves, from the first (`-l steps` gives this part).
    pub steps: usize,
    /// The part of the plan's improvement they reach, 0 to 1.
    pub improvement: f64,
    /// The part of the plan's disk data they copy, 0 to 1.
    pub data: f64,
    /// The disk data they copy, MiB.
    pub data_mib: i64,
    /// The score after them.
    pub score: f64,
}

/// The knee of a plan that starts at score `initial` and whose moves
/// leave the scores `scores` and copy the disk data `data` (MiB), in plan
/// order.
///
/// Each prefix of `k` moves is a point: the part of the plan's disk data
/// it copies, `x = D(k) / D(n)`, and the part of the plan's score
/// improvement it reaches, `y = (initial - score(k)) / (initial -
/// score(n))`. The chord from the start (0, 0) to the plan's end (1, 1) is
/// `y = x`; the knee is the prefix farthest above it, the `k` in
/// `1..n` with the largest `y - x` (the earliest on a tie), when that is
/// more than 0. Before it, a move brings more improvement per byte than
/// the plan's average; after it, less. A plan of fewer than two moves, or
/// that copies no disk data, or whose score does not fall, has no knee.
pub fn knee(initial: f64, scores: &[f64], data: &[i64]) -> Option<Knee> {
    let n = scores.len().min(data.len());
    if n < 2 {
        return None;
    }
    let total: i64 = data[..n].iter().fold(0i64, |t, &d| t.saturating_add(d));
    let gain = initial - scores[n - 1];
    if total <= 0 || gain.is_nan() || gain <= 0.0 {
        return None;
    }
    let mut best: Option<(f64, Knee)> = None;
    let mut copied = 0i64;
    for k in 0..n - 1 {
        copied = copied.saturating_add(data[k]);
        let x = copied as f64 / total as f64;
        let y = (initial - scores[k]) / gain;
        let d = y - x;
        if d > 0.0 && best.as_ref().is_none_or(|(b, _)| d > *b) {
            best = Some((
                d,
                Knee {
                    steps: k + 1,
                    improvement: y,
                    data: x,
                    data_mib: copied,
                    score: scores[k],
                },
            ));
        }
    }
    best.map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::instance::Disk;
    use crate::model::types::{DiskTemplate, RunState};

    fn inst(mem: i64, disks: &[i64], running: bool) -> Instance {
        let mut i = Instance::for_calculation("i", mem, 0, 1, 1, DiskTemplate::Drbd, true);
        i.disks = disks
            .iter()
            .map(|&size| Disk {
                size,
                spindles: None,
            })
            .collect();
        i.run_state = if running {
            RunState::Running
        } else {
            RunState::AdminDown
        };
        i
    }

    /// Each kind copies what its operations copy: every disk per
    /// replacement, the memory per migration, nothing for a stopped
    /// instance's failover.
    #[test]
    fn moves_copy_their_operations_data() {
        let up = inst(1024, &[100, 200], true);
        let down = inst(1024, &[100, 200], false);
        let c = move_cost(&up, &IMove::ReplacePrimary(3usize));
        assert_eq!(
            c,
            MoveCost {
                disk: 300,
                memory: 2048,
                migrations: 2,
                failovers: 0,
                replacements: 1
            }
        );
        let c = move_cost(&down, &IMove::<usize>::Failover);
        assert_eq!((c.disk, c.memory, c.failovers), (0, 0, 1));
        let c = move_cost(&up, &IMove::ReplaceSecondary(1usize));
        assert_eq!((c.disk, c.memory, c.migrations), (300, 0, 0));
        let c = move_cost(&up, &IMove::FailoverToAny(1usize));
        assert_eq!((c.disk, c.memory, c.migrations), (0, 1024, 1));
    }

    /// The knee is the prefix farthest above the chord; none without
    /// data or gain.
    #[test]
    fn knee_is_farthest_above_the_chord() {
        // Gains 6, 2, 1, 1 of 10 for data 10, 10, 40, 40 of 100.
        let k = knee(10.0, &[4.0, 2.0, 1.0, 0.0], &[10, 10, 40, 40]).unwrap();
        assert_eq!((k.steps, k.data_mib), (2, 20));
        assert!((k.improvement - 0.8).abs() < 1e-12 && (k.data - 0.2).abs() < 1e-12);
        assert_eq!(knee(10.0, &[5.0, 0.0], &[0, 0]), None);
        assert_eq!(knee(10.0, &[5.0], &[10]), None);
        // A straight line has no point above its chord.
        assert_eq!(knee(10.0, &[5.0, 0.0], &[10, 10]), None);
    }

    /// Sets run one after another, their jobs side by side.
    #[test]
    fn plan_time_is_the_sum_of_each_sets_longest_job() {
        let rates = Rates {
            resync: 10,
            migration: 5,
        };
        let a = MoveCost {
            disk: 100,
            ..MoveCost::default()
        };
        let b = MoveCost {
            memory: 100,
            ..MoveCost::default()
        };
        let p = PlanCost::of_sets(&[vec![a, b], vec![a]], rates);
        assert_eq!(p.sets, vec![20.0, 10.0]);
        assert_eq!(p.seconds, 30.0);
        assert_eq!((p.total.disk, p.total.memory, p.moves), (200, 100, 3));
        assert_eq!(Rates::default().resync, 60);
        let none = PlanCost::of_sets(&[], rates);
        assert!(none.seconds == 0.0 && none.seconds.is_sign_positive());
    }
}
