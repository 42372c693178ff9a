//! The dependency bench (`make bench-deps`): each part hailstone writes
//! itself instead of taking a maintained crate, measured against that
//! crate on generated Ganeti requests (docs/performance.md, "Hand-written
//! dependencies"):
//!
//! * `json` — the JSON reader against simd-json and serde_json
//!   ([`json`]);
//! * `threads` — the second reading thread against one thread
//!   ([`threads`]);
//! * `hash` — the hash of `FastMap` (rustc-hash) against SipHash ([`hash`]).
//!
//! The requests are relocation requests from the devtools generator, in
//! Ganeti's own layout, written to `--dir` once (`hailstone-gen --kind
//! relocate --seed 1 --nodes N --groups 2 --instances-per-node 5
//! --template drbd --instance-templates drbd --style spaced` writes the
//! same bytes). Every table gives callgrind's instruction counts
//! ([`measure`]; `--no-callgrind` leaves them out) and median times
//! (in-process: the thread's processor time; the threads part: the
//! process's wall-clock and processor time); the crates compared are dev-dependencies of devtools, never
//! dependencies of the `hailstone` crate.

mod hash;
mod json;
mod measure;
mod threads;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use hailstone_devtools::generate::{self, CaseSpec, DiskTemplate, JsonStyle, RequestKind};

use measure::{callgrind, millions, ms, MARKER};

/// The parts of the bench.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Part {
    Json,
    Threads,
    Hash,
    All,
}

/// The command line.
#[derive(Parser, Debug)]
#[command(
    name = "deps",
    about = "hailstone's hand-written dependencies against maintained crates \
             (cargo bench -p hailstone-devtools --bench deps -- [PART] [OPTIONS])",
    args_override_self = true
)]
struct Options {
    /// json, threads, hash or all.
    #[arg(value_enum, default_value = "all")]
    part: Part,
    /// Request sizes in nodes (json and hash; threads takes those of at
    /// least 1,000 nodes, the others are read on one thread anyway).
    #[arg(long, value_delimiter = ',', default_value = "100,1000,10000")]
    sizes: Vec<usize>,
    /// Timed runs of each in-process measurement (the median is shown).
    #[arg(long, default_value = "21")]
    runs: usize,
    /// Timed runs of each thread count of the threads part.
    #[arg(long, default_value = "41")]
    process_runs: usize,
    /// The allocator (the json part's model row and the threads part).
    #[arg(long, default_value = "target/release/hailstone")]
    hailstone: PathBuf,
    /// Where the generated requests are written (and kept). Relative
    /// paths are the workspace's (`cargo bench` runs the bench in
    /// devtools/).
    #[arg(long, default_value = "target/depbench")]
    dir: PathBuf,
    /// threads: also time two threads with this environment variable set
    /// (NAME=VALUE), for a build that reads it (docs/performance.md: the
    /// second thread left on the parse's processor).
    #[arg(long, value_name = "NAME=VALUE", value_parser = name_value)]
    variant_env: Option<(String, String)>,
    /// threads: run the allocator under `chrt -f 1` (a real-time
    /// priority; needs root), so that a loaded machine's other processes
    /// do not delay it.
    #[arg(long)]
    realtime: bool,
    /// Times only, no instruction counts (no valgrind needed).
    #[arg(long)]
    no_callgrind: bool,
    /// Internal: measure one parser or hasher once (under callgrind).
    #[arg(long, hide = true, num_args = 2, value_names = ["WHAT", "FILE"])]
    one: Option<Vec<String>>,
}

fn main() -> ExitCode {
    // `cargo bench` passes `--bench` to harness-less benches too.
    let args = std::env::args_os().filter(|a| a != "--bench");
    let o = match Options::try_parse_from(args) {
        Ok(o) => o,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    match run(&o) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("deps: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(o: &Options) -> Result<(), String> {
    keep_freed_memory();
    // `cargo bench` runs the bench in devtools/: relative paths are the
    // workspace's.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::env::set_current_dir(&root).map_err(|e| format!("{}: {e}", root.display()))?;
    if let Some(one) = &o.one {
        return measure_one(&one[0], Path::new(&one[1]));
    }
    // The allocator runs in `/`, as Ganeti runs it.
    let o = &Options {
        hailstone: std::fs::canonicalize(&o.hailstone).unwrap_or_else(|_| o.hailstone.clone()),
        dir: o.dir.clone(),
        sizes: o.sizes.clone(),
        variant_env: o.variant_env.clone(),
        realtime: o.realtime,
        one: None,
        ..*o
    };
    std::fs::create_dir_all(&o.dir).map_err(|e| format!("{}: {e}", o.dir.display()))?;
    let mut requests = Vec::new();
    for &n in &o.sizes {
        requests.push((n, request(&o.dir, n)?));
    }
    println!("{}", machine());
    let all = o.part == Part::All;
    if all || o.part == Part::Json {
        json_part(o, &requests)?;
    }
    if all || o.part == Part::Threads {
        threads_part(o, &requests)?;
    }
    if all || o.part == Part::Hash {
        hash_part(o, &requests)?;
    }
    Ok(())
}

/// The generated relocation request of `nodes` nodes, written to `dir`
/// unless it is there already.
fn request(dir: &Path, nodes: usize) -> Result<PathBuf, String> {
    let path = dir.join(format!("relocate-n{nodes}.json"));
    if !path.exists() {
        let mut spec = CaseSpec::new(1, RequestKind::Relocate, nodes);
        spec.groups = 2;
        spec.instances_per_node = 5.0;
        spec.template = Some(DiskTemplate::Drbd);
        spec.instance_templates = vec![(DiskTemplate::Drbd, 1)];
        spec.style = JsonStyle::Spaced;
        let case = generate::generate(&spec);
        std::fs::write(&path, case.request).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("deps: wrote {}", path.display());
    }
    std::fs::canonicalize(&path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The machine and its load, for the tables' header.
fn machine() -> String {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let model = read("/proc/cpuinfo")
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .map(|m| m.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_default();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load = read("/proc/loadavg");
    let load: Vec<&str> = load.split_whitespace().take(3).collect();
    format!(
        "{cpus} processors ({model}), load average {} at the start",
        load.join(" ")
    )
}

/// The loader's function in the allocator's binary (`loader::load` and
/// `load_into` are inlined into it: the body of its `thread::scope`, every
/// step from the request's bytes to the model).
const LOADER: &str = "hailstone::read::loader::load_split*";

/// The bench's own binary, to run again under callgrind.
fn this() -> Result<PathBuf, String> {
    std::env::current_exe().map_err(|e| e.to_string())
}

/// Has glibc's malloc keep the memory a measurement frees for the next
/// one (no `mmap` of large blocks, no trimming of the heap): every
/// measurement after the first then writes to memory it has touched
/// before, whatever the subject before it freed. The first-touch page
/// faults a fresh process pays for its memory are thus left out of the
/// in-process times, as callgrind leaves them out of the counts; the
/// whole-process times of the threads part have them.
fn keep_freed_memory() {
    // SAFETY: `mallopt` takes two numbers and only returns one; called
    // before this process's threads are started.
    let done = unsafe {
        // The largest threshold glibc takes (32 MiB on 64 bits): larger
        // blocks are still mapped.
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20) == 1
            && libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX) == 1
    };
    if !done {
        eprintln!("deps: note: mallopt refused; freed memory may go back to the system");
    }
}

/// `--one WHAT FILE`: one parse or one index, for callgrind.
fn measure_one(what: &str, file: &Path) -> Result<(), String> {
    let input = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    if let Some(hasher) = what.strip_prefix("hash:") {
        let names = hash::Names::of(&input)?;
        measure::settle_malloc();
        return hash::run_once(hasher, &names).map(drop);
    }
    measure::settle_malloc();
    json::parse_once(what, &input, &mut Vec::new()).map(drop)
}

/// Instructions of one `--one WHAT FILE` run inside the measured
/// function.
fn instructions_of(what: &str, file: &Path) -> Result<u64, String> {
    let file = file.to_string_lossy();
    callgrind(&this()?, &["--one", what, &file], &[MARKER], &[])
}

fn size_mb(path: &Path) -> f64 {
    std::fs::metadata(path).map_or(0.0, |m| m.len() as f64 / 1e6)
}

fn json_part(o: &Options, requests: &[(usize, PathBuf)]) -> Result<(), String> {
    println!("\n## json: the request's bytes to a value tree, and to the model\n");
    println!(
        "Median processor time of {} in-process runs (ms) and, in brackets, millions of instructions (callgrind).\n",
        o.runs
    );
    print!("| parser |");
    for (n, path) in requests {
        print!(" {n} nodes ({:.1} MB) |", size_mb(path));
    }
    println!();
    println!("|---|{}", "---:|".repeat(requests.len()));
    let mut times = Vec::new();
    for (_, path) in requests {
        let input = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        times.push(json::medians(&input, o.runs)?);
    }
    for (k, p) in json::PARSERS.iter().enumerate() {
        print!("| {} |", p.name);
        for ((_, path), took) in requests.iter().zip(&times) {
            let ins = if o.no_callgrind {
                String::new()
            } else {
                format!(" ({})", millions(instructions_of(p.name, path)?))
            };
            print!(" {}{ins} |", ms(took[k]));
        }
        println!();
    }
    if !o.no_callgrind {
        print!("| hailstone's loader, to the model (one thread) |");
        for (_, path) in requests {
            let file = path.to_string_lossy();
            let ins = callgrind(
                &o.hailstone,
                &[&file],
                &[LOADER],
                &[("HAILSTONE_THREADS", "1")],
            )?;
            if ins == 0 {
                return Err(format!(
                    "no instructions in {LOADER}: has the loader's entry been renamed or inlined?"
                ));
            }
            print!(" ({}) |", millions(ins));
        }
        println!();
        print!("| the whole `hailstone REQUEST` process (one thread) |");
        for (_, path) in requests {
            let file = path.to_string_lossy();
            let ins = callgrind(&o.hailstone, &[&file], &[], &[("HAILSTONE_THREADS", "1")])?;
            print!(" ({}) |", millions(ins));
        }
        println!();
    }
    println!();
    for p in &json::PARSERS {
        println!("- {}: {}", p.name, p.builds);
    }
    Ok(())
}

fn threads_part(o: &Options, requests: &[(usize, PathBuf)]) -> Result<(), String> {
    use threads::Setting;
    println!("\n## threads: `hailstone REQUEST` on one thread and on two\n");
    println!(
        "Medians of {} runs of each setting, taken in turn{}: wall-clock and CPU (user + system) ms; \
         millions of instructions of the whole process, all threads (callgrind).\n",
        o.process_runs,
        if o.realtime {
            ", under `chrt -f 1`"
        } else {
            ""
        }
    );
    let mut settings = vec![
        Setting {
            threads: 1,
            env: None,
            realtime: o.realtime,
        },
        Setting {
            threads: 2,
            env: None,
            realtime: o.realtime,
        },
    ];
    let mut names = vec!["1 thread".to_owned(), "2 threads".to_owned()];
    if let Some((name, value)) = &o.variant_env {
        settings.push(Setting {
            threads: 2,
            env: Some((name.clone(), value.clone())),
            realtime: o.realtime,
        });
        names.push(format!("2 threads, {name}={value}"));
    }
    print!("| nodes | MB |");
    for what in ["wall", "CPU"] {
        for n in &names {
            print!(" {n} {what} |");
        }
    }
    println!(" 1 thread instructions | 2 threads instructions |");
    println!("|---:|---:|{}", "---:|".repeat(2 * names.len() + 2));
    for (n, path) in requests.iter().filter(|(n, _)| *n >= 1000) {
        let times = threads::medians(&o.hailstone, path, &settings, o.process_runs)?;
        let ins = |t: &str| -> Result<String, String> {
            if o.no_callgrind {
                return Ok(String::new());
            }
            let file = path.to_string_lossy();
            callgrind(&o.hailstone, &[&file], &[], &[("HAILSTONE_THREADS", t)]).map(millions)
        };
        print!("| {n} | {:.1} |", size_mb(path));
        for t in &times {
            print!(" {} |", ms(t.wall));
        }
        for t in &times {
            print!(" {} |", ms(t.cpu));
        }
        println!(" {} | {} |", ins("1")?, ins("2")?);
    }
    Ok(())
}

/// `NAME=VALUE`.
fn name_value(v: &str) -> Result<(String, String), String> {
    v.split_once('=')
        .filter(|(n, _)| !n.is_empty())
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
        .ok_or_else(|| format!("'{v}' is not NAME=VALUE"))
}

fn hash_part(o: &Options, requests: &[(usize, PathBuf)]) -> Result<(), String> {
    println!("\n## hash: the node-name index (build, then each instance's nodes looked up)\n");
    println!(
        "Median processor time of {} in-process runs (ms) and, in brackets, millions of instructions (callgrind).\n",
        o.runs
    );
    print!("| hasher |");
    let mut names = Vec::new();
    for (n, path) in requests {
        let input = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let these = hash::Names::of(&input)?;
        print!(" {n} nodes, {} lookups |", these.lookups.len());
        names.push(these);
    }
    println!();
    println!("|---|{}", "---:|".repeat(requests.len()));
    let times = names
        .iter()
        .map(|these| hash::medians(these, o.runs))
        .collect::<Result<Vec<_>, _>>()?;
    for (k, h) in hash::HASHERS.iter().enumerate() {
        print!("| {h} |");
        for ((_, path), took) in requests.iter().zip(&times) {
            let ins = if o.no_callgrind {
                String::new()
            } else {
                format!(
                    " ({})",
                    millions(instructions_of(&format!("hash:{h}"), path)?)
                )
            };
            print!(" {}{ins} |", ms(took[k]));
        }
        println!();
    }
    Ok(())
}
