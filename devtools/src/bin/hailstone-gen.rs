//! `hailstone-gen`: command-line front end of the synthetic request generator
//! (`hailstone_devtools::generate`).
//!
//! This file owns the CLI only: it turns options into a
//! [`CaseSpec`], prints one request, or writes
//! a whole corpus (`<id>.json` plus `<id>.args` per case) to a directory.

use hailstone_devtools::cases::{parse_range, write_case};
use hailstone_devtools::toolargs;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use hailstone_devtools::generate::{self, CaseSpec, DiskTemplate, JsonStyle, RequestKind, Shape};

const HELP: &str = "\
hailstone-gen: synthetic Ganeti iallocator requests (protocol version 2)

USAGE:
  hailstone-gen [--kind KIND] [--seed N] [--nodes N|MIN-MAX] [--groups G]
                [--instances-per-node F] [--template T] [--instance-templates L]
                [--tightness F] [--style S] [--shape S] [--random]
                [--profile multi-group]
                [--print-options] [--print-id] [--data-file] [-o FILE]
  hailstone-gen corpus --out DIR --count N [--nodes MIN-MAX] [--kinds K1,K2,...]
                [--seed BASE]
  hailstone-gen --help

SINGLE REQUEST (default command):
  Prints the request JSON on stdout. The output depends only on the options:
  the same seed gives the same bytes on every machine.

  --kind KIND            allocate (default), multi-allocate, relocate,
                         node-evacuate-primary-only (or -pri),
                         node-evacuate-secondary-only (or -sec),
                         node-evacuate-all, change-group, allocate-secondary
  --seed N               seed of all random choices (default 1)
  --nodes N|MIN-MAX      cluster size (default 10); a range only makes sense
                         with --random, which draws the size log-uniformly
  --profile multi-group  a node-evacuate request on a cluster of several
                         groups in several storage partitions (lvm,
                         shared, file), shared and local storage, often
                         with offline nodes still hosting instances and
                         nodes failing N+1 (CaseSpec::multi_group; --groups
                         defaults to 3); for hailstone-groups
  --random               draw every feature switch, the tightness, template
                         mix, hypervisors and hail options from the seed
                         (CaseSpec::random); without it a plain roomy cluster
                         with all features off is generated (CaseSpec::new)
  --groups G             number of node groups (overrides --random's choice)
  --instances-per-node F average instances per node (overrides --random's)
  --template T           disk template of the request (allocate,
                         multi-allocate, relocate)
  --instance-templates L the existing instances' templates, weighted:
                         T[:W],... (e.g. ext or ext:3,sharedfile:1)
  --tightness F          target memory fill of the nodes, 0.05 to 1.0
  --shape S              standard (default) or hosting: three hardware
                         generations in every group, instances from a
                         catalogue of flavours with a heavy tail, primaries
                         piled on a third of the nodes, exclusion tags; a
                         shape the planners were not tuned on
  --style S              compact, spaced (Ganeti's own layout) or pretty
  --data-file            print the cluster of the request as a Ganeti cluster
                         data file (what hailstone -S saves before the run;
                         hbal -t and hailstone-balance -t read it) instead
                         of the request
  --print-options        print the hail options of the case on stderr, on
                         one line, separated by single spaces (an empty line
                         when there are none); pass them to hail after the
                         input path
  --print-id             print the case id on stderr (before the options)
  --print-spec           print the full CaseSpec on stderr (debugging aid)
  -o FILE                write the request to FILE and the options to
                         FILE's .args sibling (one per line) instead of stdout

CORPUS:
  Writes DIR/<name>.json and DIR/<name>.args (hail options, one per line) for
  COUNT cases of every kind, where <name> is the case id with '/' replaced by
  '_' (e.g. allocate_drbd_n37_g2_s1234). Specs come from CaseSpec::random
  with seeds BASE, BASE+1, ... (default BASE 1) per kind.

  --out DIR              output directory (created if missing)
  --count N              cases per kind
  --nodes MIN-MAX        node-count range (default 2-40)
  --kinds LIST           comma-separated kinds; node-evacuate means all three
                         modes, all means every kind (default all)
  --seed BASE            first seed

EXIT STATUS: 0 on success, 2 on a usage error, 1 on an I/O error.
";

fn usage_error(msg: &str) -> ExitCode {
    eprintln!("hailstone-gen: {}", msg);
    eprintln!("Try 'hailstone-gen --help'.");
    ExitCode::from(2)
}

struct Opts {
    kind: RequestKind,
    kinds: Option<Vec<RequestKind>>,
    seed: u64,
    nodes: Option<(usize, usize)>,
    groups: Option<usize>,
    ipn: Option<f64>,
    instance_templates: Option<Vec<(DiskTemplate, u32)>>,
    tightness: Option<f64>,
    template: Option<DiskTemplate>,
    style: Option<JsonStyle>,
    shape: Shape,
    data_file: bool,
    random: bool,
    multi_group: bool,
    print_options: bool,
    print_id: bool,
    print_spec: bool,
    out_file: Option<PathBuf>,
    out_dir: Option<PathBuf>,
    count: Option<usize>,
}

fn parse_args(args: &[String]) -> Result<(bool, Opts), String> {
    let mut o = Opts {
        kind: RequestKind::Allocate,
        kinds: None,
        seed: 1,
        nodes: None,
        groups: None,
        ipn: None,
        instance_templates: None,
        tightness: None,
        template: None,
        style: None,
        shape: Shape::Standard,
        data_file: false,
        random: false,
        multi_group: false,
        print_options: false,
        print_id: false,
        print_spec: false,
        out_file: None,
        out_dir: None,
        count: None,
    };
    // An optional first word names the subcommand.
    let (corpus, args) = match args.first().map(String::as_str) {
        Some("corpus") => (true, &args[1..]),
        Some("gen") => (false, &args[1..]),
        _ => (false, args),
    };
    let mut words = toolargs::Args::new(args);
    let takes_value = |name: &str| {
        matches!(
            name,
            "--kind"
                | "--kinds"
                | "--seed"
                | "--nodes"
                | "--groups"
                | "--instances-per-node"
                | "--template"
                | "--instance-templates"
                | "--tightness"
                | "--style"
                | "--profile"
                | "--shape"
                | "-o"
                | "--output"
                | "--out"
                | "--count"
        )
    };
    while let Some(arg) = words.next(takes_value) {
        let toolargs::Arg { name, value } = arg?;
        let v = value.unwrap_or_default();
        match name {
            "--kind" => {
                o.kind = RequestKind::from_slug(&v).ok_or_else(|| {
                    format!(
                        "unknown kind '{}' (use one of: {})",
                        v,
                        generate::all_kinds()
                            .iter()
                            .map(|k| k.slug())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })?
            }
            "--kinds" => o.kinds = Some(generate::parse_kinds(&v)?),
            "--seed" => o.seed = v.parse().map_err(|_| format!("invalid seed '{}'", v))?,
            "--nodes" => o.nodes = Some(parse_range(&v)?),
            "--groups" => {
                let g: usize = v
                    .parse()
                    .map_err(|_| format!("invalid group count '{}'", v))?;
                if g == 0 {
                    return Err("--groups must be at least 1".into());
                }
                o.groups = Some(g)
            }
            "--instances-per-node" => {
                let f: f64 = v.parse().map_err(|_| format!("invalid number '{}'", v))?;
                if !(0.0..=1000.0).contains(&f) {
                    return Err(format!("--instances-per-node out of range: {}", v));
                }
                o.ipn = Some(f)
            }
            "--template" => {
                o.template = Some(
                    DiskTemplate::parse(&v)
                        .ok_or_else(|| format!("unknown disk template '{}'", v))?,
                )
            }
            "--instance-templates" => {
                let mut list = Vec::new();
                for item in v.split(',') {
                    let (name, weight) = item.split_once(':').unwrap_or((item, "1"));
                    let t = DiskTemplate::parse(name)
                        .ok_or_else(|| format!("unknown disk template '{}'", name))?;
                    let w: u32 = weight
                        .parse()
                        .map_err(|_| format!("invalid weight '{}'", weight))?;
                    list.push((t, w));
                }
                o.instance_templates = Some(list);
            }
            "--tightness" => {
                let f: f64 = v.parse().map_err(|_| format!("invalid number '{}'", v))?;
                if !(0.05..=1.0).contains(&f) {
                    return Err(format!("--tightness out of range: {}", v));
                }
                o.tightness = Some(f)
            }
            "--style" => {
                o.style = Some(match v.as_str() {
                    "compact" => JsonStyle::Compact,
                    "spaced" => JsonStyle::Spaced,
                    "pretty" => JsonStyle::Pretty,
                    _ => return Err(format!("unknown style '{}' (compact, spaced, pretty)", v)),
                })
            }
            "--shape" => {
                o.shape = Shape::parse(&v)
                    .ok_or_else(|| format!("unknown shape '{}' (standard, hosting)", v))?
            }
            "--random" => o.random = true,
            "--profile" => match v.as_str() {
                "multi-group" => o.multi_group = true,
                _ => return Err(format!("unknown profile '{}' (multi-group)", v)),
            },
            "--print-options" => o.print_options = true,
            "--data-file" => o.data_file = true,
            "--print-id" => o.print_id = true,
            "--print-spec" => o.print_spec = true,
            "-o" | "--output" => o.out_file = Some(PathBuf::from(v)),
            "--out" => o.out_dir = Some(PathBuf::from(v)),
            "--count" => o.count = Some(v.parse().map_err(|_| format!("invalid count '{}'", v))?),
            _ => return Err(format!("unknown argument '{}'", name)),
        }
    }
    Ok((corpus, o))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        print!("{}", HELP);
        return ExitCode::SUCCESS;
    }
    let (corpus, o) = match parse_args(&args) {
        Ok(x) => x,
        Err(e) => return usage_error(&e),
    };
    if corpus {
        let Some(dir) = o.out_dir.clone() else {
            return usage_error("corpus needs --out DIR");
        };
        let Some(count) = o.count else {
            return usage_error("corpus needs --count N");
        };
        let (lo, hi) = o.nodes.unwrap_or((2, 40));
        let kinds = o.kinds.clone().unwrap_or_else(generate::all_kinds);
        if let Err(e) = std::fs::create_dir_all(&dir) {
            eprintln!("hailstone-gen: cannot create {}: {}", dir.display(), e);
            return ExitCode::from(1);
        }
        let specs = generate::corpus_specs(&kinds, count, lo..=hi, o.seed);
        for spec in &specs {
            let case = generate::generate(spec);
            if let Err(e) = write_case(&dir, &case) {
                eprintln!("hailstone-gen: {e}");
                return ExitCode::from(1);
            }
        }
        eprintln!(
            "hailstone-gen: wrote {} cases to {}",
            specs.len(),
            dir.display()
        );
        return ExitCode::SUCCESS;
    }
    if o.out_dir.is_some() || o.count.is_some() || o.kinds.is_some() {
        return usage_error("--out, --count and --kinds belong to the corpus command");
    }
    let (lo, hi) = o.nodes.unwrap_or((10, 10));
    let mut spec = if o.multi_group {
        if lo != hi || o.random {
            return usage_error("--profile multi-group takes one node count and no --random");
        }
        CaseSpec::multi_group(o.seed, lo, o.groups.unwrap_or(3))
    } else if o.random {
        CaseSpec::random(o.seed, o.kind, lo..=hi)
    } else {
        if lo != hi {
            return usage_error("a node range needs --random");
        }
        CaseSpec::new(o.seed, o.kind, lo)
    };
    if let Some(g) = o.groups {
        spec.groups = g;
    }
    if let Some(f) = o.ipn {
        spec.instances_per_node = f;
    }
    if let Some(t) = o.template {
        spec.template = Some(t);
    }
    if let Some(list) = &o.instance_templates {
        spec.instance_templates = list.clone();
    }
    if let Some(f) = o.tightness {
        spec.tightness = f;
    }
    if let Some(s) = o.style {
        spec.style = s;
    }
    spec.shape = o.shape;
    let mut case = generate::generate(&spec);
    if o.data_file {
        match hailstone::program::datafile::from_request(
            case.request.as_bytes(),
            &hailstone::program::hail::options::LoadOptions::default(),
        ) {
            Ok(text) => case.request = text,
            Err(e) => {
                eprintln!("hailstone-gen: the generated request is not read back: {e}");
                return ExitCode::from(1);
            }
        }
    }
    if o.print_spec {
        eprintln!("{:#?}", spec);
    }
    if o.print_id {
        eprintln!("{}", case.id);
    }
    if o.print_options {
        eprintln!("{}", case.options.join(" "));
    }
    match &o.out_file {
        Some(path) => {
            let args_path = path.with_extension("args");
            let mut args = String::new();
            for opt in &case.options {
                args.push_str(opt);
                args.push('\n');
            }
            if let Err(e) = std::fs::write(path, case.request.as_bytes())
                .and_then(|_| std::fs::write(&args_path, args))
            {
                eprintln!("hailstone-gen: cannot write {}: {}", path.display(), e);
                return ExitCode::from(1);
            }
        }
        None => {
            let mut out = std::io::stdout().lock();
            if let Err(e) = out
                .write_all(case.request.as_bytes())
                .and_then(|_| out.flush())
            {
                if e.kind() != std::io::ErrorKind::BrokenPipe {
                    eprintln!("hailstone-gen: cannot write the request: {}", e);
                    return ExitCode::from(1);
                }
            }
        }
    }
    ExitCode::SUCCESS
}
