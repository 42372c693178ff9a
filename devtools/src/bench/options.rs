//! The command line of `hailstone-bench` (clap's derive API, as the other
//! tools): [`Config`], its defaults, the checks of each value and the help
//! text.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;

use super::modes::{Mix, Mode};
use crate::generate::Shape;

const DEFAULT_HAIL: &str = "/usr/lib/ganeti/iallocators/hail";
const DEFAULT_HAILSTONE: &str = "target/release/hailstone";
const DEFAULT_HBAL: &str = "/usr/lib/ganeti/3.0/usr/bin/hbal";
const DEFAULT_BALANCE: &str = "target/release/hailstone-balance";
const DEFAULT_HSQUEEZE: &str = "/usr/lib/ganeti/3.0/usr/bin/hsqueeze";
const DEFAULT_SQUEEZE: &str = "target/release/hailstone-squeeze";
const DEFAULT_HSPACE: &str = "/usr/lib/ganeti/3.0/usr/bin/hspace";
const DEFAULT_SPACE: &str = "target/release/hailstone-space";
const DEFAULT_GROUPS: &str = "target/release/hailstone-groups";
/// The least cap of the space rows without `--space-cap`: hailstone-space
/// --allocator-model took 103 to 114 s on the 200-node cluster (seed 2;
/// nothing fits seed 1's, which fails N+1 as generated), hspace 233 s on
/// 60 nodes.
const DEFAULT_SPACE_CAP: Duration = Duration::from_secs(300);

/// The text before the options in `--help`.
const ABOUT: &str = "\
hailstone-bench: time hailstone against Ganeti's hail on generated clusters

One generated request per mode and cluster size: 2 node groups, 5 instances
per node, a roomy cluster with every generator feature switch off and fixed
seeds (the same inputs on every run and machine). Runs are sequential; hail
and hailstone runs alternate.";

/// The text after the options in `--help`.
const AFTER_HELP: &str = "\
OUTPUT:
  The machine (CPUs, model, memory), the date and the versions, then one table
  (mode | nodes | hail s | hailstone s | ratio | hailstone peak RSS (MB) |
  same answer), then notes and the case ids. Times are medians of wall-clock
  seconds; ratio is hail / hailstone ('> N×' when hail hit the cap); the RSS
  is hailstone's peak resident memory from one extra run under GNU time
  (/usr/bin/time, Debian package 'time'); 'same answer' compares exit status
  and answer bytes, and where the original did not run (above its size
  limit, after its cap, or none: compress), hailstone's own runs with each
  other ('yes (runs)'). The relocate rows' notes give the reading speed: the
  input's size over hailstone's median time for the whole run. Progress lines
  go to stderr.

EXIT STATUS: 0 no answer differs, 1 an answer differs or hailstone crashed
             or could not run, 2 usage or setup error (e.g. hail missing).";

/// The parsed command line.
#[derive(Parser, Debug)]
#[command(
    name = "hailstone-bench",
    about = ABOUT,
    after_help = AFTER_HELP,
    args_override_self = true,
    disable_help_subcommand = true,
    next_help_heading = "Cases"
)]
pub(super) struct Config {
    /// Cluster sizes in nodes, comma-separated, each from 4 to 100000.
    #[arg(long, value_name = "LIST", value_parser = sizes, default_value = "20,100,400,1000,2000,5000,10000")]
    pub(super) sizes: ::std::vec::Vec<usize>,
    /// Comma-separated, default all of:
    ///   allocate-drbd       allocate one DRBD instance
    ///   allocate-plain      allocate one plain instance
    ///   multi-allocate      multi-allocate 10 instances, mostly DRBD (the
    ///                       generator makes about 1 in 5 plain, diskless or
    ///                       rbd)
    ///   relocate            relocate a DRBD instance (new secondary)
    ///   relocate-independent  the relocate request written as another
    ///                       program would: keys in alphabetical order,
    ///                       two-space indentation (hailstone's reader off
    ///                       its master-order fast path)
    ///   relocate-datafile   the relocate cluster saved as a cluster data
    ///                       file and read with -t for a two-node relocate
    ///                       request (reading the file is nearly all of the
    ///                       run)
    ///   node-evacuate-all   node-evacuate, mode all, every instance of one
    ///                       node (>= 5)
    ///   change-group        change-group of one instance
    ///   balance             hbal against hailstone-balance: balancing a
    ///                       one-group cluster of DRBD instances (5 per node)
    ///                       saved as a data file as hail -S saves it, run as
    ///                       '-t FILE -C' (to convergence), on the
    ///                       --balance-sizes clusters
    ///   squeeze             hsqueeze against hailstone-squeeze: choosing
    ///                       nodes to power off on a one-group cluster of ext
    ///                       instances (5 per node, 20% memory used), '-t
    ///                       FILE -C', on the --squeeze-sizes clusters
    ///   compress            hailstone-groups compress alone (Ganeti has no
    ///                       multi-group compression): which groups of a
    ///                       10-group cluster could be emptied (the
    ///                       generator's multi-group profile, ext and DRBD
    ///                       instances, file ones in the file-storage groups,
    ///                       20% memory used), 'compress -t FILE',
    ///                       on the --compress-sizes clusters; against
    ///                       another build with --groups-against
    ///   space               hspace against hailstone-space: counting the
    ///                       instances that still fit a one-group cluster of
    ///                       DRBD and plain instances (4 : 1, 5 per node),
    ///                       '-t FILE --machine-readable', on the
    ///                       --space-sizes clusters; a second row per size
    ///                       times hailstone-space --allocator-model against
    ///                       hspace's default run (hspace has no such mode)
    /// (--modes balance runs only the balance rows)
    #[arg(long = "modes", value_name = "LIST", value_parser = modes, verbatim_doc_comment)]
    modes_arg: Option<::std::vec::Vec<Mode>>,
    /// The modes to run (`--modes`, else all).
    #[arg(skip)]
    pub(super) modes: Vec<Mode>,
    /// Whether `--modes` was given (a missing hailstone-balance is then an
    /// error rather than a note).
    #[arg(skip)]
    pub(super) modes_given: bool,
    /// hail is not run on larger clusters (hailstone alone, e.g. at 5,000
    /// and 10,000 nodes).
    #[arg(long, value_name = "N", value_parser = count, default_value = "2000")]
    pub(super) hail_max_nodes: usize,
    // hbal took 5.5 s on 20 nodes and did not finish in 20 minutes on 100;
    // hailstone-balance alone on 1,000.
    /// Cluster sizes of the balance rows.
    #[arg(long, value_name = "LIST", value_parser = sizes, default_value = "20,60,100,1000")]
    pub(super) balance_sizes: ::std::vec::Vec<usize>,
    /// hbal is not run on larger balance clusters (hailstone-balance alone,
    /// e.g. on 1,000 nodes and 5,000 instances).
    #[arg(long, value_name = "N", value_parser = count, default_value = "100")]
    pub(super) hbal_max_nodes: usize,
    // hsqueeze took 19 s on 20 nodes of ext instances and did not finish
    // in 20 minutes on 60.
    /// Cluster sizes of the squeeze rows; hsqueeze is not run on clusters
    /// larger than one where it reached the cap.
    #[arg(long, value_name = "LIST", value_parser = sizes, default_value = "20,60,200")]
    pub(super) squeeze_sizes: ::std::vec::Vec<usize>,
    // hspace took 0.35 s on 5 nodes, 12 s on 20 and 233 s on 60 (the
    // bench's clusters, seed 1) and reached the 300-second cap on 200 (seed
    // 2), where hailstone-space took 22 s.
    // hailstone-groups compress took 5.8 s (standard) and 6.2 s (hosting)
    // on 2,000 nodes in 10 groups.
    /// Cluster sizes of the compress rows (10 node groups each).
    #[arg(long, value_name = "LIST", value_parser = sizes, default_value = "2000")]
    pub(super) compress_sizes: ::std::vec::Vec<usize>,
    /// Cluster sizes of the space rows; hspace is not run on clusters
    /// larger than one where it reached the cap (--space-cap),
    /// hailstone-space always is. The case of a size is the first seed
    /// from --seed on whose cluster at least one instance fits (seed 1's
    /// 200-node cluster fails N+1 as generated).
    #[arg(long, value_name = "LIST", value_parser = sizes, default_value = "5,20,60,200")]
    pub(super) space_sizes: ::std::vec::Vec<usize>,
    /// Templates of the existing instances: drbd (all DRBD), drbd-heavy
    /// (4 DRBD : 1 plain) or typical (the generator's usual DRBD/plain
    /// cluster with a few rbd/ext/file/diskless; hail's N+1 check is very
    /// slow on plain instances).
    #[arg(long, value_name = "MIX", value_parser = mix, default_value = "drbd")]
    pub(super) mix: Mix,
    /// The generator's shape of the clusters: standard or hosting, held
    /// out from the searches' tuning (see hailstone-gen --help).
    #[arg(long, value_name = "SHAPE", value_parser = shape, default_value = "standard")]
    pub(super) shape: Shape,
    /// First seed; seeds S, S+1, ... are tried until the request has the
    /// intended shape and hailstone's answer is a success.
    #[arg(long, value_name = "S", value_parser = seed, default_value = "1")]
    pub(super) seed: u64,

    /// hail binary.
    #[arg(long, value_name = "PATH", default_value = DEFAULT_HAIL, help_heading = "Running")]
    pub(super) hail: PathBuf,
    /// hailstone binary.
    #[arg(long, value_name = "PATH", default_value = DEFAULT_HAILSTONE, help_heading = "Running")]
    pub(super) hailstone: PathBuf,
    /// hbal.
    #[arg(long, value_name = "PATH", default_value = DEFAULT_HBAL, help_heading = "Running")]
    pub(super) hbal: PathBuf,
    /// hailstone-balance (without --modes, a missing one only drops the
    /// balance rows, with a note).
    #[arg(long, value_name = "PATH", default_value = DEFAULT_BALANCE, help_heading = "Running")]
    pub(super) balance_bin: PathBuf,
    /// hsqueeze.
    #[arg(long, value_name = "PATH", default_value = DEFAULT_HSQUEEZE, help_heading = "Running")]
    pub(super) hsqueeze: PathBuf,
    /// hailstone-squeeze.
    #[arg(long, value_name = "PATH", default_value = DEFAULT_SQUEEZE, help_heading = "Running")]
    pub(super) squeeze_bin: PathBuf,
    /// hailstone-groups (without --modes, a missing one only drops the
    /// compress rows, with a note).
    #[arg(long, value_name = "PATH", default_value = DEFAULT_GROUPS, help_heading = "Running")]
    pub(super) groups_bin: PathBuf,
    /// Another hailstone-groups build to run on the compress rows in the
    /// original's column: its time, the ratio, and whether both printed
    /// the same bytes (without it, hailstone-groups runs alone and its
    /// own runs are compared).
    #[arg(long, value_name = "PATH", help_heading = "Running")]
    pub(super) groups_against: Option<PathBuf>,
    /// hspace.
    #[arg(long, value_name = "PATH", default_value = DEFAULT_HSPACE, help_heading = "Running")]
    pub(super) hspace: PathBuf,
    /// hailstone-space.
    #[arg(long, value_name = "PATH", default_value = DEFAULT_SPACE, help_heading = "Running")]
    pub(super) space_bin: PathBuf,
    /// Timed runs per binary and case; the median is shown.
    #[arg(long, value_name = "N", value_parser = count, default_value = "3", help_heading = "Running")]
    pub(super) runs: usize,
    /// Timed hail runs per case (default: 1 when the first hail run takes
    /// over 5 s, else the --runs value).
    #[arg(long, value_name = "N", value_parser = count, help_heading = "Running")]
    pub(super) hail_runs: Option<usize>,
    /// Kill a run after this long, hail's or hailstone's; it is then shown
    /// as '> SECONDS', and that binary is not run on larger clusters of the
    /// same mode.
    #[arg(long, value_name = "SECONDS", value_parser = seconds, default_value = "60", help_heading = "Running")]
    pub(super) hail_cap: Duration,
    /// The cap of the space rows (default 300, or --hail-cap when that is
    /// larger): hailstone-space --allocator-model took 103-114 s on the
    /// 200-node cluster, hspace 233 s on 60 nodes.
    #[arg(long, value_name = "SECONDS", value_parser = seconds, help_heading = "Running")]
    pub(super) space_cap: Option<Duration>,
    /// If hail (or hbal) is missing, run 'apt-get update && apt-get install
    /// -y ganeti-htools' (needs root).
    #[arg(long, help_heading = "Running")]
    pub(super) install_hail: bool,
    /// Write the requests and both answers to DIR (created if missing) and
    /// keep them; otherwise a temporary directory is used and removed at
    /// the end.
    #[arg(long, value_name = "DIR", help_heading = "Running")]
    pub(super) keep: Option<PathBuf>,

    /// Print the table as Markdown (for the README) instead of aligned
    /// plain text.
    #[arg(long, help_heading = "Output")]
    pub(super) markdown: bool,
    /// Also time hailstone with --explain (the explanation written to a
    /// file) on the allocator rows, in one more table: hailstone s | with
    /// --explain s | cost (the ratio) | same answer.
    #[arg(long, help_heading = "Output")]
    pub(super) explain: bool,
}

impl Config {
    /// The cap of a mode's runs: `--hail-cap`, but for the space rows
    /// `--space-cap`, by default at least [`DEFAULT_SPACE_CAP`].
    pub(super) fn cap(&self, mode: Mode) -> Duration {
        if mode.table() != Mode::Space {
            return self.hail_cap;
        }
        self.space_cap
            .unwrap_or_else(|| self.hail_cap.max(DEFAULT_SPACE_CAP))
    }
}

/// Reads the command line (`args` without the program name).
///
/// # Errors
///
/// A usage error, or the request for help (clap's error says which and
/// carries the text and exit status).
pub(super) fn parse_args<S: Into<OsString> + Clone>(args: &[S]) -> Result<Config, clap::Error> {
    let words = std::iter::once(OsString::from("hailstone-bench"))
        .chain(args.iter().cloned().map(Into::into));
    let mut c = Config::try_parse_from(words)?;
    c.modes_given = c.modes_arg.is_some();
    c.modes = c.modes_arg.clone().unwrap_or_else(|| Mode::ALL.to_vec());
    Ok(c)
}

/// A comma-separated list of cluster sizes (sorted, without duplicates).
fn sizes(value: &str) -> Result<Vec<usize>, String> {
    let mut sizes = Vec::new();
    for part in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.replace('_', "").parse::<usize>() {
            Ok(n) if (4..=100_000).contains(&n) => sizes.push(n),
            _ => {
                return Err(format!(
                    "'{part}' is not a cluster size between 4 and 100000 nodes"
                ))
            }
        }
    }
    if sizes.is_empty() {
        return Err("empty list".to_owned());
    }
    sizes.sort_unstable();
    sizes.dedup();
    Ok(sizes)
}

/// A comma-separated list of modes (`all` for every one), in table order.
fn modes(value: &str) -> Result<Vec<Mode>, String> {
    let mut modes = Vec::new();
    for part in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if part == "all" {
            modes.extend(Mode::ALL);
            continue;
        }
        match Mode::parse(part) {
            Some(m) => modes.push(m),
            None => {
                let known: Vec<&str> = Mode::ALL.iter().map(|m| m.name()).collect();
                return Err(format!(
                    "unknown mode '{part}' (known: all, {})",
                    known.join(", ")
                ));
            }
        }
    }
    if modes.is_empty() {
        return Err("empty list".to_owned());
    }
    modes.sort_unstable();
    modes.dedup();
    Ok(modes)
}

/// A positive integer.
fn count(v: &str) -> Result<usize, String> {
    match v.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("wants a positive integer, not '{v}'")),
    }
}

/// A cap: a positive number of seconds (at most a million).
fn seconds(v: &str) -> Result<Duration, String> {
    match v.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 1e6 => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!("wants a positive number of seconds, not '{v}'")),
    }
}

/// An unsigned integer.
fn seed(v: &str) -> Result<u64, String> {
    v.trim()
        .parse::<u64>()
        .map_err(|_| format!("wants an unsigned integer, not '{v}'"))
}

fn mix(v: &str) -> Result<Mix, String> {
    Mix::parse(v.trim())
        .ok_or_else(|| format!("unknown mix '{v}' (known: drbd, drbd-heavy, typical)"))
}

fn shape(v: &str) -> Result<Shape, String> {
    Shape::parse(v.trim()).ok_or_else(|| format!("unknown shape '{v}' (known: standard, hosting)"))
}
