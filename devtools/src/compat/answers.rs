//! The answers and data-file suites (`--suite answers`, the default, and
//! `--suite datafiles`): hailstone and Ganeti's `hail` on the same
//! iallocator requests, the protocol samples and the generated cases.
//!
//! Inputs are the files in `protocol-samples/` (each with an optional
//! `<name>.args` sidecar, one hail option per line) plus generated cases
//! from [`crate::generate`]. Both binaries are run the way Ganeti's node
//! daemon runs an iallocator (`BINARY INPUT OPTIONS...`, cwd `/`, stdin
//! closed, `LC_ALL=C.UTF-8`), in parallel ([`super::case`]), classified
//! ([`super::classify`]) and reported in case order
//! ([`super::report`]), so that the output is deterministic. The data-file
//! suite ([`super::datafiles`]) runs each request with `-S`, `-t`, `-p`
//! and `--simulate` instead.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Args;

use super::accepted::read_allowlist;
use super::case::{process_case, Done, Input, Shared, Source};
use super::common::{fail, Common, Profile};
use super::datafiles;
use super::report::{report_difference, table, Tally};
use crate::cases;
use crate::generate::{self, CaseSpec, RequestKind};
use crate::oracle;
use crate::process;

/// The answers suite's own options (the data-file suite's too).
#[derive(Args, Debug)]
pub(super) struct AnswersOptions {
    /// Only these kinds (comma-separated; node-evacuate = all three modes;
    /// all = every kind).
    #[arg(long, value_name = "LIST", value_parser = generate::parse_kinds)]
    pub(super) kinds: Option<::std::vec::Vec<RequestKind>>,
    /// Sample directory (default protocol-samples).
    #[arg(long, value_name = "DIR")]
    pub(super) samples: Option<PathBuf>,
    /// Skip the samples.
    #[arg(long)]
    pub(super) no_samples: bool,
    /// Run only this file (repeatable; its .args sidecar is used if
    /// present); no samples, no generated cases.
    #[arg(long = "case", value_name = "FILE")]
    pub(super) cases: Vec<PathBuf>,
    /// hail binary.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "/usr/lib/ganeti/iallocators/hail"
    )]
    pub(super) hail: PathBuf,
    /// hailstone binary.
    #[arg(long, value_name = "PATH", default_value = "target/release/hailstone")]
    pub(super) hailstone: PathBuf,
}

/// Which of the two suites runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Which {
    Answers,
    DataFiles,
}

/// Generated cases per kind of a profile.
fn profile_count(profile: Profile, kind: RequestKind) -> usize {
    match profile {
        Profile::Ci => 60,
        Profile::Full if kind == RequestKind::Allocate => 500,
        Profile::Full | Profile::Exclusive => 300,
        Profile::None => 0,
    }
}

/// Node-count range of a profile.
fn profile_nodes(profile: Profile) -> (usize, usize) {
    match profile {
        Profile::Full => (2, 200),
        Profile::Exclusive => (2, 60),
        _ => (2, 30),
    }
}

/// First seed of a profile.
fn profile_seed(profile: Profile) -> u64 {
    match profile {
        Profile::Full => 1000,
        Profile::Exclusive => 5000,
        _ => 1,
    }
}

/// The generated-case specs of the suite (profile plus overrides).
pub(super) fn generated_specs(c: &Common, a: &AnswersOptions, which: Which) -> Vec<CaseSpec> {
    if !a.cases.is_empty() {
        return Vec::new();
    }
    let kinds = a.kinds.clone().unwrap_or_else(|| match c.profile {
        Profile::Exclusive => vec![RequestKind::Allocate, RequestKind::MultiAllocate],
        _ => generate::all_kinds(),
    });
    let (lo, hi) = c.nodes.unwrap_or(profile_nodes(c.profile));
    let seed = c.seed.unwrap_or(profile_seed(c.profile));
    let mut out = Vec::new();
    for k in kinds {
        let n = c.count.unwrap_or(match which {
            // Each data-file case runs each program twice or more.
            Which::DataFiles => profile_count(c.profile, k) * 2 / 3,
            Which::Answers => profile_count(c.profile, k),
        });
        out.extend(generate::corpus_specs(&[k], n, lo..=hi, seed));
    }
    if c.profile == Profile::Exclusive {
        for spec in out.iter_mut() {
            spec.features.exclusive_storage = true;
            spec.features.multi_minmax = true;
        }
    }
    out
}

fn collect_inputs(c: &Common, a: &AnswersOptions, which: Which) -> Result<Vec<Input>, String> {
    let mut inputs = Vec::new();
    if !a.cases.is_empty() {
        for p in &a.cases {
            if !p.is_file() {
                return Err(format!("case file {} not found", p.display()));
            }
            inputs.push(Input {
                source: Source::File(oracle::absolute(p)),
            });
        }
        return Ok(inputs);
    }
    if !a.no_samples {
        let dir = a
            .samples
            .clone()
            .unwrap_or_else(|| PathBuf::from("protocol-samples"));
        match std::fs::read_dir(&dir) {
            Ok(rd) => {
                let mut files: Vec<PathBuf> = rd
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().map(|x| x == "json").unwrap_or(false) && p.is_file())
                    .collect();
                files.sort();
                for f in files {
                    inputs.push(Input {
                        source: Source::File(oracle::absolute(&f)),
                    });
                }
            }
            Err(e) => {
                if a.samples.is_some() {
                    return Err(format!(
                        "cannot read sample directory {}: {}",
                        dir.display(),
                        e
                    ));
                }
                eprintln!("hailstone-compat: note: no sample directory {} ({}); running generated cases only", dir.display(), e);
            }
        }
    }
    for spec in generated_specs(c, a, which) {
        inputs.push(Input {
            source: Source::Gen(spec),
        });
    }
    Ok(inputs)
}

/// Writes the generated requests of the suite (`--dump DIR`); how many.
pub(super) fn dump(
    c: &Common,
    a: &AnswersOptions,
    which: Which,
    dir: &Path,
) -> Result<usize, String> {
    let specs = generated_specs(c, a, which);
    for spec in &specs {
        cases::write_case(dir, &generate::generate(spec))?;
    }
    Ok(specs.len())
}

/// Runs the suite.
pub(super) fn run(c: &Common, a: &AnswersOptions, which: Which) -> ExitCode {
    let hail = oracle::absolute(&a.hail);
    let hailstone = oracle::absolute(&a.hailstone);
    if let Err(e) = oracle::ensure_hail(&hail, c.install_hail, "hailstone-compat") {
        return fail(&e);
    }
    if !oracle::is_executable(&hailstone) {
        return fail(&format!(
            "hailstone binary {} not found or not executable (build it with 'cargo build --release' or pass --hailstone PATH)",
            hailstone.display()
        ));
    }
    let allow = match read_allowlist(c.accepted.as_deref()) {
        Ok(a) => a,
        Err(e) => return fail(&e),
    };
    let inputs = match collect_inputs(c, a, which) {
        Ok(i) => i,
        Err(e) => return fail(&e),
    };
    if inputs.is_empty() {
        return fail("no cases to run");
    }
    let tmp = match process::temp_dir("hailstone-compat") {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    let keep = match &c.keep {
        Some(k) => match std::fs::create_dir_all(k) {
            Ok(()) => Some(oracle::absolute(k)),
            Err(e) => return fail(&format!("cannot create {}: {}", k.display(), e)),
        },
        None => None,
    };
    let range = profile_nodes(c.profile);
    let shared = Shared {
        hail,
        hailstone,
        timeout: c.cap(Duration::from_secs(120)),
        tmp: tmp.clone(),
        keep,
        allow,
        nodes_arg: c.nodes.unwrap_or(range),
    };

    if which == Which::DataFiles {
        let code = run_datafiles(c, a, inputs, &shared);
        let _ = std::fs::remove_dir_all(&tmp);
        return code;
    }

    let total = inputs.len();
    let started = Instant::now();
    let mut done: Vec<Done> = Vec::with_capacity(total);
    let mut hail_time = Duration::ZERO;
    let mut hs_time = Duration::ZERO;
    process::ordered_pool(
        &inputs,
        c.jobs,
        |_, worker, input| process_case(input, worker, &shared),
        |printed, d| {
            hail_time += d.hail.as_ref().map(|h| h.wall).unwrap_or_default();
            hs_time += d.hs.as_ref().map(|h| h.wall).unwrap_or_default();
            if c.verbose {
                let label = match &d.outcome {
                    Ok(o) => o.label().to_string(),
                    Err(e) => format!("error: {}", e),
                };
                let mark = match &d.outcome {
                    Ok(o) if !o.is_difference() => "ok  ",
                    _ if d.accepted => "acc ",
                    _ => "DIFF",
                };
                println!("{} {} {}", mark, d.id, label);
            }
            done.push(d);
            if (printed + 1).is_multiple_of(50) && printed + 1 < total {
                eprintln!("hailstone-compat: {}/{} cases", printed + 1, total);
            }
        },
    );
    let _ = std::fs::remove_dir_all(&tmp);

    // Tables per kind, in a fixed order.
    let mut order: Vec<String> = generate::all_kinds()
        .iter()
        .map(|k| k.slug().to_string())
        .collect();
    order.push("other".to_string());
    let mut tallies: BTreeMap<usize, (String, Tally)> = BTreeMap::new();
    for d in &done {
        let pos = order
            .iter()
            .position(|k| *k == d.kind)
            .unwrap_or(order.len() - 1);
        tallies
            .entry(pos)
            .or_insert_with(|| (order[pos].clone(), Tally::default()))
            .1
            .add(d);
    }
    if c.verbose {
        println!();
    }
    print!("{}", table(&tallies));
    let unexplained: Vec<&Done> = done
        .iter()
        .filter(|d| {
            !d.accepted
                && d.outcome
                    .as_ref()
                    .map(|o| o.is_difference())
                    .unwrap_or(true)
        })
        .collect();
    if !unexplained.is_empty() {
        println!("\nUnexplained differences ({}):", unexplained.len());
        for d in &unexplained {
            print!("{}", report_difference(d, &shared));
        }
    }
    eprintln!(
        "hailstone-compat: {} cases in {:.1} s wall time; hail {:.1} s, hailstone {:.1} s (summed run times)",
        total,
        started.elapsed().as_secs_f64(),
        hail_time.as_secs_f64(),
        hs_time.as_secs_f64()
    );
    if unexplained.is_empty() {
        println!("\nOK: no unexplained differences");
        ExitCode::SUCCESS
    } else {
        println!("\nFAILED: {} unexplained difference(s)", unexplained.len());
        ExitCode::from(1)
    }
}

/// The data-file suite: every request, then the simulations; a table of
/// the figures and every unexplained difference.
fn run_datafiles(c: &Common, a: &AnswersOptions, inputs: Vec<Input>, shared: &Shared) -> ExitCode {
    let samples = a
        .samples
        .clone()
        .unwrap_or_else(|| PathBuf::from("protocol-samples"));
    let sim_requests: Vec<PathBuf> = [
        "allocate-drbd",
        "allocate-plain",
        "multi-allocate",
        "allocate-spindles",
        "allocate-file",
        "relocate-drbd",
    ]
    .iter()
    .map(|n| oracle::absolute(&samples.join(format!("{n}.json"))))
    .filter(|p| p.is_file())
    .collect();
    let mut work: Vec<datafiles::Work> = inputs.into_iter().map(datafiles::Work::Request).collect();
    if !sim_requests.is_empty() && a.cases.is_empty() {
        for (n, specs) in datafiles::simulate_specs().into_iter().enumerate() {
            for k in 0..2 {
                let request = sim_requests[(2 * n + k) % sim_requests.len()].clone();
                work.push(datafiles::Work::Simulation(n, specs.clone(), request));
            }
        }
    }
    let started = Instant::now();
    let total = work.len();
    let mut results: Vec<datafiles::Compared> = Vec::new();
    process::ordered_pool(
        &work,
        c.jobs,
        |i, worker, w| datafiles::process_work(i, w, worker, shared),
        |done, r| {
            if c.verbose {
                for x in &r {
                    let mark = match (x.differences.is_empty(), x.accepted) {
                        (true, _) => "ok  ",
                        (false, true) => "acc ",
                        (false, false) if x.hail_timeout => "hail timeout",
                        (false, false) => "DIFF",
                    };
                    println!("{mark} {}", x.id);
                }
            }
            results.extend(r);
            if (done + 1).is_multiple_of(50) && done + 1 < total {
                eprintln!("hailstone-compat: {}/{} data-file cases", done + 1, total);
            }
        },
    );
    let step = |id: &str| {
        if id.starts_with("simulate:") {
            "--simulate"
        } else if id.ends_with(" -t") {
            "-t (hail's saved state)"
        } else {
            "-S and -p"
        }
    };
    // hail stopped at the time limit: nothing was compared.
    let timed_out = |r: &datafiles::Compared| !r.differences.is_empty() && r.hail_timeout;
    println!("step                       runs identical accepted unexplained hail-timeouts");
    for name in ["-S and -p", "-t (hail's saved state)", "--simulate"] {
        let of: Vec<&datafiles::Compared> =
            results.iter().filter(|r| step(&r.id) == name).collect();
        let same = of.iter().filter(|r| r.differences.is_empty()).count();
        let acc = of
            .iter()
            .filter(|r| !r.differences.is_empty() && r.accepted)
            .count();
        let capped = of.iter().filter(|r| !r.accepted && timed_out(r)).count();
        println!(
            "{name:<26} {:>4} {same:>9} {acc:>8} {:>11} {capped:>13}",
            of.len(),
            of.len() - same - acc - capped
        );
    }
    for r in results.iter().filter(|r| !r.accepted && timed_out(r)) {
        println!("\nhail timeout (not compared) {}", r.id);
    }
    let unexplained: Vec<&datafiles::Compared> = results
        .iter()
        .filter(|r| !r.differences.is_empty() && !r.accepted && !timed_out(r))
        .collect();
    for r in &unexplained {
        println!("\nDIFF {}", r.id);
        for d in &r.differences {
            println!("  {d}");
        }
    }
    eprintln!(
        "hailstone-compat: {} data-file comparisons in {:.1} s",
        results.len(),
        started.elapsed().as_secs_f64()
    );
    if unexplained.is_empty() {
        println!("\nOK: no unexplained differences");
        ExitCode::SUCCESS
    } else {
        println!("\nFAILED: {} unexplained difference(s)", unexplained.len());
        ExitCode::from(1)
    }
}
