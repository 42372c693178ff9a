//! The cost of a plan ([`crate::model::cost`]) in words and in JSON:
//! the block `--print-cost` adds to a planner's text, the `--explain`
//! line, the `cost` objects of the `--json` documents (`docs/json.md`).
//!
//! Sizes are MiB in the documents; the text gives them in MiB, GiB or TiB
//! (binary, one or two decimals) and times in seconds, minutes and hours.

use crate::model::cost::{Knee, MoveCost, PlanCost, Rates};
use crate::search::balance::budget::Strategy;
use crate::write::json::Json;

/// A size given in MiB, for people: `512 MiB`, `3.5 GiB`, `1.18 TiB`.
pub fn size(mib: i64) -> String {
    let m = mib as f64;
    if mib.abs() < 1024 {
        format!("{mib} MiB")
    } else if mib.abs() < 1024 * 1024 {
        format!("{:.1} GiB", m / 1024.0)
    } else {
        format!("{:.2} TiB", m / (1024.0 * 1024.0))
    }
}

/// A time given in seconds, for people: `40 s`, `12 min 5 s`, `3 h 20 min`.
pub fn duration(seconds: f64) -> String {
    let s = if seconds.is_finite() {
        seconds.round().max(0.0) as u64
    } else {
        0
    };
    if s < 60 {
        format!("{s} s")
    } else if s < 3600 {
        format!("{} min {} s", s / 60, s % 60)
    } else {
        format!("{} h {} min", s / 3600, (s % 3600) / 60)
    }
}

/// What a failover is in the cost (`MoveCost::failovers`): the move of
/// an instance to its secondary without a live migration, for a stopped
/// instance or off an offline primary (the instance started again on its
/// secondary: hailstone-repair's and the group changes' failovers).
const FAILOVER: &str = "failover of a stopped instance or off an offline primary";
/// [`FAILOVER`], more than one.
pub const FAILOVERS: &str = "failovers of stopped instances or off offline primaries";

fn plural(n: i64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The rates in words: `DRBD resync at 60 MiB/s, live migration at 32 MiB/s`.
pub fn rates(r: Rates) -> String {
    format!(
        "DRBD resync at {} MiB/s, live migration at {} MiB/s",
        r.resync, r.migration
    )
}

/// A plan's cost in words, piece by piece, as [`text`] and [`line()`] give
/// them.
struct Words {
    /// `3 moves`.
    moves: String,
    /// `2 job sets`.
    sets: String,
    /// The disk data copied: `6.0 GiB`.
    disk: String,
    /// `1 disk replacement`.
    replacements: String,
    /// The memory migrated: `512 MiB`.
    memory: String,
    /// `2 live migrations`.
    migrations: String,
    /// `1 failover of a stopped instance or off an offline primary`.
    failovers: String,
    /// The estimated time: `1 min 42 s`.
    time: String,
    /// The rates it is estimated at ([`rates`]).
    rates: String,
}

impl Words {
    fn of(c: &PlanCost) -> Words {
        let t = &c.total;
        Words {
            moves: plural(c.moves as i64, "move", "moves"),
            sets: plural(c.sets.len() as i64, "job set", "job sets"),
            disk: size(t.disk),
            replacements: plural(t.replacements, "disk replacement", "disk replacements"),
            memory: size(t.memory),
            migrations: plural(t.migrations, "live migration", "live migrations"),
            failovers: plural(t.failovers, FAILOVER, FAILOVERS),
            time: duration(c.seconds),
            rates: rates(c.rates),
        }
    }
}

/// The block `--print-cost` adds to the text, one line per figure.
pub fn text(c: &PlanCost) -> String {
    let w = Words::of(c);
    format!(
        "Cost of the plan: {} in {}\n  disk copied:     {} in {}\n  memory migrated: {} in {}; {}\n  estimated time:  {} ({}; the job sets one after another, the jobs of a set side by side)\n",
        w.moves, w.sets, w.disk, w.replacements, w.memory, w.migrations, w.failovers, w.time, w.rates,
    )
}

/// The plan's cost in one line (`--explain`), without a newline.
pub fn line(c: &PlanCost) -> String {
    let w = Words::of(c);
    format!(
        "cost: {} in {} copy {} of disk ({}) and {} of memory ({}, {}); about {} ({})",
        w.moves,
        w.sets,
        w.disk,
        w.replacements,
        w.memory,
        w.migrations,
        w.failovers,
        w.time,
        w.rates,
    )
}

/// The knee in words: `80% of the improvement for 30% of the data
/// (1.2 TiB of 4.0 TiB): -l 4`.
pub fn knee_words(k: &Knee, total_disk: i64) -> String {
    format!(
        "{:.0}% of the improvement for {:.0}% of the data ({} of {}): -l {}",
        100.0 * k.improvement,
        100.0 * k.data,
        size(k.data_mib),
        size(total_disk),
        k.steps
    )
}

/// The knee's line (`--explain`, `--print-cost`), without a newline:
/// where the plan's curve of score against data bends, or that it has no
/// bend.
pub fn knee_line(k: Option<&Knee>, total_disk: i64) -> String {
    match k {
        Some(k) => format!("knee: {}", knee_words(k, total_disk)),
        None => "knee: none (fewer than two moves, no disk data copied, or every move as good per byte as the plan's average)".to_owned(),
    }
}

/// The knee's object in `--json`: `null` without one.
pub fn knee_json(k: Option<&Knee>) -> Json {
    match k {
        None => Json::Null,
        Some(k) => Json::Obj(vec![
            (
                "steps",
                Json::Int(i64::try_from(k.steps).unwrap_or(i64::MAX)),
            ),
            ("improvement", Json::Num(k.improvement)),
            ("data", Json::Num(k.data)),
            ("disk_mib", Json::Int(k.data_mib)),
            ("score", Json::Num(k.score)),
        ]),
    }
}

/// A move's `cost` object: what it copies, its operations and its time.
pub fn move_json(c: &MoveCost, r: Rates) -> Json {
    Json::Obj(vec![
        ("disk_mib", Json::Int(c.disk)),
        ("memory_mib", Json::Int(c.memory)),
        ("migrations", Json::Int(c.migrations)),
        ("failovers", Json::Int(c.failovers)),
        ("replacements", Json::Int(c.replacements)),
        ("seconds", Json::Num(c.seconds(r))),
    ])
}

/// A plan's `cost` object: the totals, the job sets' times, the plan's
/// time and the rates.
pub fn plan_json(c: &PlanCost) -> Json {
    let t = &c.total;
    Json::Obj(vec![
        (
            "moves",
            Json::Int(i64::try_from(c.moves).unwrap_or(i64::MAX)),
        ),
        (
            "job_sets",
            Json::Int(i64::try_from(c.sets.len()).unwrap_or(i64::MAX)),
        ),
        ("disk_mib", Json::Int(t.disk)),
        ("memory_mib", Json::Int(t.memory)),
        ("migrations", Json::Int(t.migrations)),
        ("failovers", Json::Int(t.failovers)),
        ("replacements", Json::Int(t.replacements)),
        ("seconds", Json::Num(c.seconds)),
        (
            "job_set_seconds",
            Json::Arr(c.sets.iter().map(|&s| Json::Num(s)).collect()),
        ),
        ("resync_rate_mib_s", Json::Int(c.rates.resync)),
        ("migration_bandwidth_mib_s", Json::Int(c.rates.migration)),
    ])
}

/// A balancing plan's `cost` object: [`plan_json`] and its `knee`.
pub fn plan_json_with_knee(c: &PlanCost, k: Option<&Knee>) -> Json {
    match plan_json(c) {
        Json::Obj(mut fields) => {
            fields.push(("knee", knee_json(k)));
            Json::Obj(fields)
        }
        other => other,
    }
}

/// A plan's `cost` object with the budget it was made within
/// (`--max-copy`): `budget_mib` and `budget_strategy` (the plan kept).
pub fn with_budget(cost: Json, budget: Option<(i64, Strategy)>) -> Json {
    match (cost, budget) {
        (Json::Obj(mut fields), Some((b, strategy))) => {
            fields.push(("budget_mib", Json::Int(b)));
            fields.push((
                "budget_strategy",
                Json::Str(strategy_name(strategy).to_owned()),
            ));
            Json::Obj(fields)
        }
        (other, _) => other,
    }
}

/// A budgeted plan's strategy as `--json` names it.
pub fn strategy_name(s: Strategy) -> &'static str {
    match s {
        Strategy::GainPerByte => "gain-per-byte",
        Strategy::HbalThenGainPerByte => "hbal-then-gain-per-byte",
    }
}

/// A budgeted plan's strategy in words (`--explain`).
pub fn strategy_words(s: Strategy) -> &'static str {
    match s {
        Strategy::GainPerByte => "gain per byte from the first move",
        Strategy::HbalThenGainPerByte => "hbal's moves while their data fits, then gain per byte",
    }
}

/// `doc` (a document's object) with `cost` added at its end.
pub fn with_cost(doc: Json, cost: Json) -> Json {
    match doc {
        Json::Obj(mut fields) => {
            fields.push(("cost", cost));
            Json::Obj(fields)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_times_for_people() {
        assert_eq!(size(512), "512 MiB");
        assert_eq!(size(3584), "3.5 GiB");
        assert_eq!(size(1_237_320), "1.18 TiB");
        assert_eq!(duration(40.4), "40 s");
        assert_eq!(duration(725.0), "12 min 5 s");
        assert_eq!(duration(12_000.0), "3 h 20 min");
    }

    #[test]
    fn the_text_block_and_the_line_name_every_total() {
        let c = PlanCost::of_sets(
            &[vec![MoveCost {
                disk: 6144,
                memory: 0,
                migrations: 0,
                failovers: 1,
                replacements: 1,
            }]],
            Rates::default(),
        );
        assert_eq!(
            text(&c),
            "Cost of the plan: 1 move in 1 job set\n  disk copied:     6.0 GiB in 1 disk replacement\n  memory migrated: 0 MiB in 0 live migrations; 1 failover of a stopped instance or off an offline primary\n  estimated time:  1 min 42 s (DRBD resync at 60 MiB/s, live migration at 32 MiB/s; the job sets one after another, the jobs of a set side by side)\n"
        );
        assert_eq!(
            line(&c),
            "cost: 1 move in 1 job set copy 6.0 GiB of disk (1 disk replacement) and 0 MiB of memory (0 live migrations, 1 failover of a stopped instance or off an offline primary); about 1 min 42 s (DRBD resync at 60 MiB/s, live migration at 32 MiB/s)"
        );
    }
}
