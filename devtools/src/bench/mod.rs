//! `hailstone-bench`: times hailstone against Ganeti's `hail` on generated
//! clusters of growing size and prints one comparison table (`make bench`).
//!
//! For every request mode (allocate drbd, allocate plain, multi-allocate of 10
//! mostly DRBD instances, relocate, relocate with another program's key layout,
//! relocate from a data file, node-evacuate `all`, change-group) and every
//! cluster size (20 to 10,000 nodes by default; hail not above
//! `--hail-max-nodes`, 2,000) the tool generates one request
//! with `hailstone_devtools::generate` (two node groups, five instances per node, every
//! feature switch off, existing instances all DRBD unless `--mix` says
//! otherwise), writes it to a temporary directory and runs both binaries on it
//! the way Ganeti's node daemon does: `BINARY INPUT OPTIONS...`, working
//! directory `/`, stdin closed, `LC_ALL=C.UTF-8`. Runs are sequential, never
//! concurrent, and hail and hailstone runs alternate so that background noise
//! on a shared machine hits both alike.
//!
//! Case choice is deterministic: seeds `--seed`, `--seed + 1`, ... are tried
//! until the request has the intended shape (node-evacuate: every instance of
//! one node, at least five; change-group: one instance) and hailstone's first
//! (warm-up) answer is a success, since a speed benchmark should time real
//! placements. The chosen case ids are printed under the table.
//!
//! Why all-DRBD clusters by default: hail's global N+1 capacity check
//! re-creates every plain instance of every node elsewhere for each candidate
//! it checks, so with plain instances in the cluster hail takes over a minute
//! for a DRBD allocation on 100 nodes; `--mix typical` measures exactly that.
//!
//! Reading the table:
//!
//! * `hail s` and `hailstone s` are the median wall-clock times of the runs
//!   (`--runs`, default 3; hail runs once when its first run takes over 5 s).
//!   A run still going at the cap (`--hail-cap`, default 60 s) is killed and
//!   shown as `> 60`; once a binary hits the cap for a mode, the larger
//!   clusters of that mode are not run with it at all (also shown as `> 60`).
//! * `ratio` is hail time / hailstone time, the figure that matters: absolute
//!   times depend on the machine, the ratio much less. `> N×` means hail was
//!   capped, so the real ratio is larger.
//! * `hailstone peak RSS (MB)` is hailstone's peak resident set size,
//!   measured by one extra (untimed, warm-up) run under GNU time
//!   (`/usr/bin/time`, Debian package `time`); `n/a` when GNU time is
//!   missing.
//! * `same answer` is `yes` when both binaries exited with the same status and
//!   wrote byte-identical answers (the last run of each is compared), `no`
//!   otherwise. Where the original gave no answer (not run above its size
//!   limit, stopped at the cap, or none at all: compress), hailstone's
//!   finished runs (the warm-up and the timed ones) are compared with each
//!   other instead: `yes (runs)`, `NO (runs)`; `NO (runs)` also replaces a
//!   `yes` when hailstone's runs differ; `n/a` when fewer than two finished.
//!   Any `no` (or a hailstone crash) makes the tool exit with status 1 after
//!   the table: a speed-up that changes an answer is a bug. A hailstone run
//!   that hits the cap is shown as `> 60` with a note, like hail's.
//!
//! Notes under the table list the cases whose answer is not a success (a speed
//! benchmark should time real placements), every mismatch with the first 300
//! characters of both answers, and cases whose generated request does not
//! have the intended shape. Progress goes to stderr as each case runs.
//!
//! The balance rows (mode `balance`, last, in a table of their own) time
//! Ganeti's `hbal` against `hailstone-balance` the same way: a one-group
//! cluster of DRBD instances, five per node, saved as a data file the way
//! `hail -S` saves it, balanced with `-t FILE -C` (stdout compared), on
//! `--balance-sizes` clusters (20, 60, 100 and 1,000 nodes); hbal is not
//! run above `--hbal-max-nodes` (100), so the 1,000-node row times
//! hailstone-balance alone, to convergence. The squeeze rows time hsqueeze
//! against `hailstone-squeeze -t FILE -C` on one-group clusters of ext
//! instances with a fifth of the memory used, on `--squeeze-sizes` (20, 60
//! and 200 nodes). Both clusters are a relocate case's, so that the
//! 1,000-node balance and 200-node squeeze rows run on docs/performance.md's
//! held-out files byte for byte (see [`modes::spec_for`]).
//!
//! The compress rows (mode `compress`, in a table of their own after the
//! squeeze rows) time `hailstone-groups compress -t FILE` alone: Ganeti
//! has no multi-group compression. Their clusters are the generator's
//! multi-group profile in [`COMPRESS_GROUPS`] groups with ext and DRBD
//! instances and a fifth of the memory used (`hailstone-gen --profile
//! multi-group --groups 10 --instance-templates ext:1,drbd:1 --tightness
//! 0.2 --data-file`), on `--compress-sizes` clusters (2,000 nodes). The
//! original's column is `not run`, or with `--groups-against PATH` another
//! hailstone-groups build, timed and compared as an original.
//!
//! The space rows (mode `space`, in a table of their own after the squeeze
//! rows) time Ganeti's `hspace` against `hailstone-space` on one-group
//! clusters of DRBD and plain instances (4 : 1, five per node) saved as data
//! files, run as `-t FILE --machine-readable` (stdout compared), on
//! `--space-sizes` clusters (5, 20, 60 and 200 nodes); hspace is not run on
//! clusters larger than one where it reached the cap, hailstone-space always
//! is. Each size has a second row, `space --allocator-model`:
//! hailstone-space's count as the allocator answers one request at a time.
//! hspace has no such mode, so that row's ratio is hspace's default run time
//! (the row above's, not run again) over hailstone-space
//! `--allocator-model`'s, and it has no output to compare.

mod case;
mod modes;
mod options;
mod table;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::cases::{file_stem, head};
use crate::generate::{self, Case, CaseSpec, DiskTemplate, EvacMode, RequestKind, Shape};
use crate::oracle;
use crate::process::{self, median, Run, Status, GNU_TIME};
use case::*;
use modes::*;
use options::*;
use table::*;

/// Number of node groups of every generated cluster.
const GROUPS: usize = 2;
/// Average instances per node of every generated cluster.
const INSTANCES_PER_NODE: f64 = 5.0;
/// Number of instances of a multi-allocate request.
const MULTI_COUNT: usize = 10;
/// Memory fill of the squeeze rows' clusters.
const SQUEEZE_TIGHTNESS: f64 = 0.2;
/// Node groups of the compress rows' clusters.
const COMPRESS_GROUPS: usize = 10;
/// Memory fill of the compress rows' clusters.
const COMPRESS_TIGHTNESS: f64 = 0.2;
/// A hail run slower than this is not repeated (unless `--hail-runs` says so).
const SLOW_HAIL: Duration = Duration::from_secs(5);
/// How many consecutive seeds to try for a request of the intended shape.
const SEED_TRIES: u64 = 64;
/// How many requests of the intended shape to try for a successful answer.
const SUCCESS_TRIES: usize = 8;
/// Characters of each answer shown for a mismatch.
const SHOW_CHARS: usize = 300;

fn fail(msg: &str) -> ExitCode {
    eprintln!("hailstone-bench: {}", msg);
    ExitCode::from(2)
}

/// The tool: `args` are its options (without the program name).
pub fn main(args: &[String]) -> ExitCode {
    let mut cfg = match parse_args(args) {
        Ok(c) => c,
        Err(e) => {
            // Help on stdout (status 0), a usage error on stderr (2).
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    cfg.hail = oracle::absolute(&cfg.hail);
    cfg.hailstone = oracle::absolute(&cfg.hailstone);
    cfg.hbal = oracle::absolute(&cfg.hbal);
    cfg.balance_bin = oracle::absolute(&cfg.balance_bin);
    cfg.hsqueeze = oracle::absolute(&cfg.hsqueeze);
    cfg.squeeze_bin = oracle::absolute(&cfg.squeeze_bin);
    cfg.hspace = oracle::absolute(&cfg.hspace);
    cfg.space_bin = oracle::absolute(&cfg.space_bin);
    cfg.groups_bin = oracle::absolute(&cfg.groups_bin);
    cfg.groups_against = cfg.groups_against.as_deref().map(oracle::absolute);
    for (mode, bin, flag) in [
        (Mode::Balance, cfg.balance_bin.clone(), "--balance-bin"),
        (Mode::Squeeze, cfg.squeeze_bin.clone(), "--squeeze-bin"),
        (Mode::Compress, cfg.groups_bin.clone(), "--groups-bin"),
        (Mode::Space, cfg.space_bin.clone(), "--space-bin"),
    ] {
        if cfg.modes.contains(&mode) && !oracle::is_executable(&bin) {
            let why = format!(
                "{} binary {} not found or not executable (build it with 'cargo build --release' or pass {flag} PATH)",
                mode.ours(),
                bin.display()
            );
            if cfg.modes_given {
                return fail(&why);
            }
            eprintln!("hailstone-bench: note: no {} rows: {why}", mode.name());
            cfg.modes.retain(|&m| m != mode);
        }
    }
    let balance = cfg.modes.contains(&Mode::Balance);
    let squeeze = cfg.modes.contains(&Mode::Squeeze);
    let compress = cfg.modes.contains(&Mode::Compress);
    let space = cfg.modes.contains(&Mode::Space);
    let allocator = cfg.modes.iter().any(|&m| !m.is_planner());
    if allocator {
        if let Err(e) = oracle::ensure_hail(&cfg.hail, cfg.install_hail, "hailstone-bench") {
            return fail(&e);
        }
        if !oracle::is_executable(&cfg.hailstone) {
            return fail(&format!(
                "hailstone binary {} not found or not executable (build it with 'cargo build --release' or pass --hailstone PATH)",
                cfg.hailstone.display()
            ));
        }
    }
    if balance {
        if let Err(e) =
            oracle::ensure_program(&cfg.hbal, "hbal", cfg.install_hail, "hailstone-bench")
        {
            return fail(&e);
        }
    }
    if squeeze {
        if let Err(e) = oracle::ensure_program(
            &cfg.hsqueeze,
            "hsqueeze",
            cfg.install_hail,
            "hailstone-bench",
        ) {
            return fail(&e);
        }
    }
    if let Some(other) = cfg.groups_against.as_ref().filter(|_| compress) {
        if !oracle::is_executable(other) {
            return fail(&format!(
                "--groups-against {} not found or not executable",
                other.display()
            ));
        }
    }
    if space {
        if let Err(e) =
            oracle::ensure_program(&cfg.hspace, "hspace", cfg.install_hail, "hailstone-bench")
        {
            return fail(&e);
        }
    }
    let gnu_time = oracle::is_executable(Path::new(GNU_TIME));
    if !gnu_time {
        eprintln!(
            "hailstone-bench: note: {} (GNU time) not found, so no peak RSS; install it with 'apt-get install time'",
            GNU_TIME
        );
    }

    // The directory of the requests: --keep DIR, or a temporary one.
    let (dir, temporary) = match &cfg.keep {
        Some(k) => {
            if let Err(e) = std::fs::create_dir_all(k) {
                return fail(&format!("cannot create {}: {}", k.display(), e));
            }
            (oracle::absolute(k), false)
        }
        None => match process::temp_dir("hailstone-bench") {
            Ok(d) => (d, true),
            Err(e) => return fail(&e),
        },
    };
    let scratch = if temporary {
        dir.clone()
    } else {
        match process::temp_dir("hailstone-bench") {
            Ok(d) => d,
            Err(e) => return fail(&e),
        }
    };

    let hail_version = version(&cfg.hail);
    let stone_version = version(&cfg.hailstone);
    let hbal_version = version(&cfg.hbal);
    let balance_version = version(&cfg.balance_bin);
    let hsqueeze_version = version(&cfg.hsqueeze);
    let squeeze_version = version(&cfg.squeeze_bin);
    let hspace_version = version(&cfg.hspace);
    let space_version = version(&cfg.space_bin);
    let groups_version = version(&cfg.groups_bin);
    let started = now_utc();
    let bench = Bench {
        cfg: &cfg,
        dir: dir.clone(),
        scratch: scratch.clone(),
        gnu_time,
    };

    // Run size by size, so that the quick small clusters come first (the
    // balance rows last, on their own sizes); the table is ordered by mode.
    let mut plan: Vec<(Mode, usize)> = Vec::new();
    for &nodes in &cfg.sizes {
        for &mode in cfg.modes.iter().filter(|&&m| !m.is_planner()) {
            plan.push((mode, nodes));
        }
    }
    if balance {
        plan.extend(cfg.balance_sizes.iter().map(|&n| (Mode::Balance, n)));
    }
    if squeeze {
        plan.extend(cfg.squeeze_sizes.iter().map(|&n| (Mode::Squeeze, n)));
    }
    if compress {
        plan.extend(cfg.compress_sizes.iter().map(|&n| (Mode::Compress, n)));
    }
    if space {
        for &n in &cfg.space_sizes {
            plan.push((Mode::Space, n));
            plan.push((Mode::SpaceModel, n));
        }
    }
    let total = plan.len();
    let mut rows: Vec<Row> = Vec::new();
    // The smallest size at which each binary hit the cap, per mode.
    let mut hail_capped_at: BTreeMap<Mode, usize> = BTreeMap::new();
    let mut stone_capped_at: BTreeMap<Mode, usize> = BTreeMap::new();
    let mut error: Option<String> = None;
    let t_all = Instant::now();
    {
        for &(mode, nodes) in &plan {
            let progress = format!("[{}/{}]", rows.len() + 1, total);
            let skip_hail = hail_capped_at
                .get(&mode)
                .map(|&n| n < nodes)
                .unwrap_or(false);
            let skip_stone = stone_capped_at
                .get(&mode)
                .map(|&n| n < nodes)
                .unwrap_or(false);
            // hspace has no --allocator-model: that row holds hailstone-space
            // against hspace's default run, timed on the space row before it.
            let space_row = rows
                .iter()
                .rev()
                .find(|r| mode == Mode::SpaceModel && r.mode == Mode::Space && r.nodes == nodes);
            match bench.run_case(mode, nodes, skip_hail, skip_stone, space_row, &progress) {
                Ok(row) => {
                    if row.hail == HailTime::Capped {
                        hail_capped_at.entry(mode.table()).or_insert(nodes);
                    }
                    if row.stone == StoneTime::Capped {
                        stone_capped_at.entry(mode).or_insert(nodes);
                    }
                    rows.push(row);
                }
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
    }
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    if let Some(e) = error {
        return fail(&e);
    }
    // The space table holds both space rows of each size together.
    rows.sort_by_key(|r| (r.mode.table(), r.nodes, r.mode));

    // The report.
    let mut names: Vec<&str> = Vec::new();
    if allocator {
        names.push("hail");
    }
    if balance {
        names.push("hbal");
    }
    if squeeze {
        names.push("hsqueeze");
    }
    if compress && cfg.groups_against.is_some() {
        names.push("the other hailstone-groups");
    }
    if space {
        names.push("hspace");
    }
    let originals = names.join(" and ");
    let runs_text = match cfg.hail_runs {
        _ if names.is_empty() => format!("median of {} runs", cfg.runs),
        Some(h) => format!("median of {} runs ({originals}: {})", cfg.runs, h),
        None => format!(
            "median of {} runs ({originals}: 1 run when over {} s)",
            cfg.runs,
            SLOW_HAIL.as_secs()
        ),
    };
    if allocator {
        println!("hailstone-bench: {} vs {}", stone_version, hail_version);
    }
    if balance {
        println!(
            "hailstone-bench: {} ({}) vs {} ({})",
            balance_version,
            cfg.balance_bin.display(),
            hbal_version,
            cfg.hbal.display()
        );
    }
    if squeeze {
        println!(
            "hailstone-bench: {} ({}) vs {} ({})",
            squeeze_version,
            cfg.squeeze_bin.display(),
            hsqueeze_version,
            cfg.hsqueeze.display()
        );
    }
    if compress {
        match &cfg.groups_against {
            Some(other) => println!(
                "hailstone-bench: {} ({}) vs {} ({})",
                groups_version,
                cfg.groups_bin.display(),
                version(other),
                other.display()
            ),
            None => println!(
                "hailstone-bench: {} ({}) alone: Ganeti has no multi-group compression",
                groups_version,
                cfg.groups_bin.display()
            ),
        }
    }
    if space {
        println!(
            "hailstone-bench: {} ({}) vs {} ({})",
            space_version,
            cfg.space_bin.display(),
            hspace_version,
            cfg.hspace.display()
        );
    }
    println!("machine: {}", machine());
    println!(
        "date: {} (took {:.0} s)",
        started,
        t_all.elapsed().as_secs_f64()
    );
    if allocator {
        println!(
            "cases: {} node groups, {} instances per node, {}, first seed {}",
            GROUPS,
            INSTANCES_PER_NODE,
            cfg.mix.describe(),
            cfg.seed
        );
    }
    if balance {
        println!(
            "balance cases: one node group, {} instances per node, all DRBD (a relocate case's cluster), saved as a data file as hail -S does, run as '-t FILE -C' (to convergence); seed {}; hbal not run above {} nodes",
            INSTANCES_PER_NODE, cfg.seed, cfg.hbal_max_nodes
        );
    }
    if squeeze {
        println!(
            "squeeze cases: one node group, {} instances per node, all ext but the relocate case's one DRBD instance, {:.0}% of the memory used, saved as a data file as hail -S does, run as '-t FILE -C'; seed {}; hsqueeze not run on larger clusters once it reached the cap",
            INSTANCES_PER_NODE,
            SQUEEZE_TIGHTNESS * 100.0,
            cfg.seed
        );
    }
    if compress {
        println!(
            "compress cases: {} node groups, the generator's multi-group profile with ext and DRBD instances (1 : 1; file instances in the groups whose storage is files) and {:.0}% of the memory used, saved as a data file as hail -S does, run as 'compress -t FILE'; seed {}",
            COMPRESS_GROUPS,
            COMPRESS_TIGHTNESS * 100.0,
            cfg.seed
        );
    }
    if space {
        println!(
            "space cases: one node group, {} instances per node, DRBD and plain 4 : 1, saved as a data file as hail -S does, run as '-t FILE --machine-readable' (and with --allocator-model); the first seed from {} where an instance fits; hspace not run on larger clusters once it reached the cap",
            INSTANCES_PER_NODE, cfg.seed
        );
    }
    let space_cap = if space && cfg.cap(Mode::Space) != cfg.hail_cap {
        format!(
            " (space rows {} s)",
            cap_text(cfg.cap(Mode::Space)).trim_start_matches("> ")
        )
    } else {
        String::new()
    };
    println!(
        "timing: wall clock, {}; cap {} s{space_cap}; ratio = the original's time / hailstone's (each table names both)",
        runs_text,
        cap_text(cfg.hail_cap).trim_start_matches("> "),
    );
    println!(
        "shape: the generator's {} clusters{}",
        cfg.shape.name(),
        match cfg.shape {
            Shape::Standard => " (what the searches were tuned on)",
            Shape::Hosting => " (held out from the searches' tuning: mixed hardware generations, a heavy tail of instance sizes, primaries piled on a third of the nodes, exclusion tags)",
        }
    );
    let (planner_rows, allocator_rows): (Vec<Row>, Vec<Row>) =
        rows.into_iter().partition(|r| r.mode.is_planner());
    // One table per planner (balance, squeeze, space), in row order.
    let mut planner_tables: Vec<Vec<Row>> = Vec::new();
    for r in planner_rows {
        match planner_tables.last_mut() {
            Some(t) if t[0].mode.table() == r.mode.table() => t.push(r),
            _ => planner_tables.push(vec![r]),
        }
    }
    for part in std::iter::once(&allocator_rows).chain(&planner_tables) {
        let Some(first) = part.first() else {
            continue;
        };
        let mode = first.mode.table();
        println!();
        if let Some(legend) = legend(mode) {
            println!("{legend}");
            if cfg.markdown {
                println!();
            }
        }
        if cfg.markdown {
            print!("{}", markdown_table(part, cfg.cap(mode), mode));
        } else {
            print!("{}", plain_table(part, cfg.cap(mode), mode));
        }
    }
    if cfg.explain {
        println!();
        print!("{}", explain_table(&allocator_rows, cfg.markdown));
    }
    let rows: Vec<Row> = allocator_rows
        .into_iter()
        .chain(planner_tables.into_iter().flatten())
        .collect();
    let mut notes: Vec<String> = Vec::new();
    for r in &rows {
        // The space --allocator-model row's hspace time is the space row's,
        // whose notes say why hspace was not run.
        let own_hail = r.mode != Mode::SpaceModel;
        if own_hail && r.hail == HailTime::Skipped {
            notes.push(format!(
                "{} {}: {} not run, it exceeded the cap on {} nodes",
                r.mode.name(),
                r.nodes,
                r.mode.original(),
                hail_capped_at.get(&r.mode).copied().unwrap_or(0)
            ));
        }
        if own_hail && r.hail == HailTime::NotRun && r.mode == Mode::Compress {
            notes.push(format!(
                "{} {}: {} alone, Ganeti has no multi-group compression (--groups-against PATH times another build)",
                r.mode.name(),
                r.nodes,
                r.mode.ours()
            ));
        } else if own_hail && r.hail == HailTime::NotRun {
            notes.push(format!(
                "{} {}: {} not run above {} nodes ({} alone)",
                r.mode.name(),
                r.nodes,
                r.mode.original(),
                if r.mode.is_planner() {
                    cfg.hbal_max_nodes
                } else {
                    cfg.hail_max_nodes
                },
                r.mode.ours()
            ));
        }
        if r.stone == StoneTime::Skipped {
            notes.push(format!(
                "{} {}: {} not run, it exceeded the cap on {} nodes",
                r.mode.name(),
                r.nodes,
                r.mode.ours(),
                stone_capped_at.get(&r.mode).copied().unwrap_or(0)
            ));
        }
        notes.extend(r.notes.iter().cloned());
    }
    if !notes.is_empty() {
        println!();
        println!("notes:");
        for n in &notes {
            println!("  - {}", n);
        }
    }
    println!();
    println!("case ids:");
    for r in &rows {
        println!("  {} {}: {}", r.mode.name(), r.nodes, r.case_id);
    }
    if !temporary {
        println!("requests and answers kept in {}", dir.display());
    }

    let bad = rows.iter().any(|r| {
        matches!(r.same, Same::No | Same::RunsNo) || matches!(r.stone, StoneTime::Failed(_))
    });
    if bad {
        eprintln!("hailstone-bench: FAILED: an answer differs (from the original's, or between hailstone's runs) or hailstone failed (see the notes)");
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
