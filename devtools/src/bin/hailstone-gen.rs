//! `hailstone-gen`: command-line front end of the synthetic request generator
//! (`hailstone_devtools::generate`).
//!
//! This file owns the CLI only: it turns options into a
//! [`CaseSpec`], prints one request, or writes
//! a whole corpus (`<id>.json` plus `<id>.args` per case) to a directory.

use hailstone_devtools::cases::{parse_range, write_case};

use std::io::Write;

use clap::{Parser, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

use hailstone_devtools::generate::{self, CaseSpec, DiskTemplate, JsonStyle, RequestKind, Shape};

/// The text before the options in `--help`.
const ABOUT: &str = "\
hailstone-gen: synthetic Ganeti iallocator requests (protocol version 2)

SINGLE REQUEST (default command, or 'gen'):
  Prints the request JSON on stdout. The output depends only on the options:
  the same seed gives the same bytes on every machine.

CORPUS ('corpus'):
  Writes DIR/<name>.json and DIR/<name>.args (hail options, one per line) for
  COUNT cases of every kind, where <name> is the case id with '/' replaced by
  '_' (e.g. allocate_drbd_n37_g2_s1234). Specs come from CaseSpec::random
  with seeds BASE, BASE+1, ... (default BASE 1) per kind.";

/// The text after the options in `--help`.
const AFTER_HELP: &str = "EXIT STATUS: 0 on success, 2 on a usage error, 1 on an I/O error.";

/// The generator's commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Command {
    /// One request (the default).
    Gen,
    /// A corpus of requests in a folder.
    Corpus,
}

/// The command line.
#[derive(Parser, Debug)]
#[command(
    name = "hailstone-gen",
    about = ABOUT,
    override_usage = "hailstone-gen [gen] [--kind KIND] [--seed N] [--nodes N|MIN-MAX] [OPTIONS]\n       \
                      hailstone-gen corpus --out DIR --count N [--nodes MIN-MAX] [--kinds K1,K2,...] [--seed BASE]\n       \
                      hailstone-gen --help",
    after_help = AFTER_HELP,
    args_override_self = true,
    disable_help_subcommand = true
)]
struct Opts {
    /// gen (one request, the default) or corpus.
    #[arg(
        value_enum,
        value_name = "COMMAND",
        default_value = "gen",
        hide_possible_values = true,
        hide_default_value = true
    )]
    command: Command,
    /// allocate (default), multi-allocate, relocate,
    /// node-evacuate-primary-only (or -pri), node-evacuate-secondary-only
    /// (or -sec), node-evacuate-all, change-group, allocate-secondary.
    #[arg(long, value_name = "KIND", value_parser = kind, default_value = "allocate", hide_default_value = true)]
    kind: RequestKind,
    /// Seed of all random choices (default 1); the corpus' first seed.
    #[arg(long, value_name = "N", default_value = "1", hide_default_value = true, value_parser = seed)]
    seed: u64,
    /// Cluster size (default 10; corpus: 2-40); a range only makes sense
    /// with --random, which draws the size log-uniformly.
    #[arg(long, value_name = "N|MIN-MAX", value_parser = parse_range)]
    nodes: Option<(usize, usize)>,
    /// multi-group: a node-evacuate request on a cluster of several groups
    /// in several storage partitions (lvm, shared, file), shared and local
    /// storage, often with offline nodes still hosting instances and nodes
    /// failing N+1 (CaseSpec::multi_group; --groups defaults to 3); for
    /// hailstone-groups.
    #[arg(long, value_name = "PROFILE", value_parser = ["multi-group"])]
    profile: Option<String>,
    /// Draw every feature switch, the tightness, template mix, hypervisors
    /// and hail options from the seed (CaseSpec::random); without it a
    /// plain roomy cluster with all features off is generated
    /// (CaseSpec::new).
    #[arg(long)]
    random: bool,
    /// Number of node groups (overrides --random's choice).
    #[arg(long, value_name = "G", value_parser = groups)]
    groups: Option<usize>,
    /// Average instances per node (overrides --random's).
    #[arg(long = "instances-per-node", value_name = "F", value_parser = instances_per_node)]
    ipn: Option<f64>,
    /// Disk template of the request (allocate, multi-allocate, relocate).
    #[arg(long, value_name = "T", value_parser = template)]
    template: Option<DiskTemplate>,
    /// The existing instances' templates, weighted: `T[:W],...` (e.g. ext or
    /// ext:3,sharedfile:1).
    #[arg(long, value_name = "L", value_parser = instance_templates)]
    instance_templates: Option<::std::vec::Vec<(DiskTemplate, u32)>>,
    /// Target memory fill of the nodes, 0.05 to 1.0.
    #[arg(long, value_name = "F", value_parser = tightness)]
    tightness: Option<f64>,
    /// compact, spaced (Ganeti's own layout) or pretty.
    #[arg(long, value_name = "S", value_parser = style)]
    style: Option<JsonStyle>,
    /// standard (default) or hosting: three hardware generations in every
    /// group, instances from a catalogue of flavours with a heavy tail,
    /// primaries piled on a third of the nodes, exclusion tags; a shape
    /// the planners were not tuned on.
    #[arg(long, value_name = "S", value_parser = shape, default_value = "standard", hide_default_value = true)]
    shape: Shape,
    /// Print the cluster of the request as a Ganeti cluster data file (what
    /// hailstone -S saves before the run; hbal -t and hailstone-balance -t
    /// read it) instead of the request.
    #[arg(long)]
    data_file: bool,
    /// Print the hail options of the case on stderr, on one line, separated
    /// by single spaces (an empty line when there are none); pass them to
    /// hail after the input path.
    #[arg(long)]
    print_options: bool,
    /// Print the case id on stderr (before the options).
    #[arg(long)]
    print_id: bool,
    /// Print the full CaseSpec on stderr (debugging aid).
    #[arg(long)]
    print_spec: bool,
    /// Write the request to FILE and the options to FILE's .args sibling
    /// (one per line) instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    out_file: Option<PathBuf>,
    /// corpus: output directory (created if missing).
    #[arg(long = "out", value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// corpus: cases per kind.
    #[arg(long, value_name = "N", value_parser = count)]
    count: Option<usize>,
    /// corpus: comma-separated kinds; node-evacuate means all three modes,
    /// all means every kind (default all).
    #[arg(long, value_name = "LIST", value_parser = generate::parse_kinds)]
    kinds: Option<::std::vec::Vec<RequestKind>>,
}

fn kind(v: &str) -> Result<RequestKind, String> {
    RequestKind::from_slug(v).ok_or_else(|| {
        format!(
            "unknown kind '{}' (use one of: {})",
            v,
            generate::all_kinds()
                .iter()
                .map(|k| k.slug())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

fn seed(v: &str) -> Result<u64, String> {
    v.parse().map_err(|_| format!("invalid seed '{v}'"))
}

fn count(v: &str) -> Result<usize, String> {
    v.parse().map_err(|_| format!("invalid count '{v}'"))
}

fn groups(v: &str) -> Result<usize, String> {
    match v.parse::<usize>() {
        Ok(0) => Err("--groups must be at least 1".into()),
        Ok(g) => Ok(g),
        Err(_) => Err(format!("invalid group count '{v}'")),
    }
}

fn instances_per_node(v: &str) -> Result<f64, String> {
    let f: f64 = v.parse().map_err(|_| format!("invalid number '{v}'"))?;
    if !(0.0..=1000.0).contains(&f) {
        return Err(format!("--instances-per-node out of range: {v}"));
    }
    Ok(f)
}

fn template(v: &str) -> Result<DiskTemplate, String> {
    DiskTemplate::parse(v).ok_or_else(|| format!("unknown disk template '{v}'"))
}

fn instance_templates(v: &str) -> Result<Vec<(DiskTemplate, u32)>, String> {
    let mut list = Vec::new();
    for item in v.split(',') {
        let (name, weight) = item.split_once(':').unwrap_or((item, "1"));
        let w: u32 = weight
            .parse()
            .map_err(|_| format!("invalid weight '{weight}'"))?;
        list.push((template(name)?, w));
    }
    Ok(list)
}

fn tightness(v: &str) -> Result<f64, String> {
    let f: f64 = v.parse().map_err(|_| format!("invalid number '{v}'"))?;
    if !(0.05..=1.0).contains(&f) {
        return Err(format!("--tightness out of range: {v}"));
    }
    Ok(f)
}

fn style(v: &str) -> Result<JsonStyle, String> {
    match v {
        "compact" => Ok(JsonStyle::Compact),
        "spaced" => Ok(JsonStyle::Spaced),
        "pretty" => Ok(JsonStyle::Pretty),
        _ => Err(format!("unknown style '{v}' (compact, spaced, pretty)")),
    }
}

fn shape(v: &str) -> Result<Shape, String> {
    Shape::parse(v).ok_or_else(|| format!("unknown shape '{v}' (standard, hosting)"))
}

fn usage_error(msg: &str) -> ExitCode {
    eprintln!("hailstone-gen: {}", msg);
    eprintln!("Try 'hailstone-gen --help'.");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let o = match Opts::try_parse() {
        Ok(o) => o,
        Err(e) => {
            // Help on stdout (status 0), a usage error on stderr (2).
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    if o.command == Command::Corpus {
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
    let mut spec = if o.profile.is_some() {
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
        match hailstone::shell::datafile::from_request(
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn parse(words: &str) -> Result<Opts, clap::Error> {
        Opts::try_parse_from(std::iter::once("hailstone-gen").chain(words.split_whitespace()))
    }

    #[test]
    fn the_documented_command_lines_read() {
        Opts::command().debug_assert();
        // README's and docs/performance.md's lines.
        let o = parse("--random --seed 38 --nodes 6-30 --instance-templates drbd:3,plain:1 --data-file -o cluster.data").unwrap();
        assert!(o.random && o.data_file);
        assert_eq!((o.seed, o.nodes), (38, Some((6, 30))));
        assert_eq!(
            o.instance_templates,
            Some(vec![(DiskTemplate::Drbd, 3), (DiskTemplate::Plain, 1)])
        );
        assert_eq!(o.out_file, Some(PathBuf::from("cluster.data")));
        let o = parse("--profile multi-group --seed 5 --nodes 8 --groups 3 --data-file").unwrap();
        assert_eq!(
            (o.profile.as_deref(), o.groups),
            (Some("multi-group"), Some(3))
        );
        let o =
            parse("--kind relocate --seed 3 --nodes 6 --groups 1 --instances-per-node 3").unwrap();
        assert_eq!(
            (o.kind, o.command, o.ipn),
            (RequestKind::Relocate, Command::Gen, Some(3.0))
        );
        let o = parse("corpus --out d --count 3 --kinds=relocate --seed=9").unwrap();
        assert_eq!(o.command, Command::Corpus);
        assert_eq!((o.count, o.seed), (Some(3), 9));
        assert_eq!(o.kinds, Some(vec![RequestKind::Relocate]));
        let o = parse("gen --style pretty --shape hosting --tightness 0.5").unwrap();
        assert_eq!(
            (o.style, o.shape, o.tightness),
            (Some(JsonStyle::Pretty), Shape::Hosting, Some(0.5))
        );
        // The defaults.
        let o = parse("").unwrap();
        assert_eq!(
            (o.kind, o.seed, o.nodes, o.shape),
            (RequestKind::Allocate, 1, None, Shape::Standard)
        );
    }

    #[test]
    fn bad_values_are_usage_errors() {
        for bad in [
            "--groups 0",
            "--tightness 2",
            "--kind nothing",
            "--style ugly",
            "--profile one-group",
            "--seed",
            "--bogus",
            "other",
        ] {
            let e = parse(bad).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{bad}: {e}");
        }
        assert!(parse("--kind nothing")
            .unwrap_err()
            .to_string()
            .contains("use one of: allocate"));
        assert_eq!(parse("--help").unwrap_err().exit_code(), 0);
    }
}
