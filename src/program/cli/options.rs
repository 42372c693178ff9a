//! The settings of one run, as the command line gives them (Ganeti's
//! `Options` record with `defaultOptions`), and what each option's value
//! does to them ([`apply`], with the originals' value messages).
//!
//! Every program reads the same record; each reads only the fields of the
//! options it takes. The settings a stage needs travel as that stage's own
//! type: the loader's [`LoadOptions`] and the searches' [`AlgorithmOptions`]
//! are fields of the record, so no stage sees the command line.

use super::suggest;
use super::table::Opt;
use crate::explain::Format as ExplainFormat;
use crate::haskell::read::{
    parse_unit, read_double, read_int_in_range, sep_split, split_on, ReadError,
};
use crate::haskell::show::show_string;
use crate::model::cost::Rates;
use crate::model::policy::RSpec;
use crate::model::types::DiskTemplate;
use crate::model::types::SoftChecks;
use crate::read::loader::{GanetiVersion, LoadOptions};
use crate::search::AlgorithmOptions;
use crate::write::nodes::PrintNodes;
use crate::write::Audience;

/// The socket `-L` uses when it is given without one.
pub const DEFAULT_LUXI_SOCKET: &str = "/var/run/ganeti/socket/ganeti-query";

/// Where `--explain` sends the explanation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExplainTo {
    /// stderr (a bare `--explain`, or `--explain=-`).
    Stderr,
    /// This file (hailstone: or a new file in this directory).
    Path(String),
}

/// The settings of one run, after value conversion, with the originals'
/// defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// `-t FILE`: the cluster data file.
    pub text_data: Option<String>,
    /// `-I FILE`: an iallocator request as the cluster.
    pub ialloc_src: Option<String>,
    /// `-L[SOCKET]`: the Luxi socket of a live cluster.
    pub luxi: Option<String>,
    /// `-m ADDRESS`: a live cluster's RAPI (or `file://DIR`).
    pub master: Option<String>,
    /// `--simulate=SPEC`, repeatable; each one is *prepended*, as in hail,
    /// so the first is the last given. Checked when the cluster is built.
    pub simulate: Vec<String>,
    /// The loader's settings: `--static-kvm-node-memory=N` (default 4096;
    /// 0 keeps the hypervisor's value; Haskell's `reads :: Int`, wrapping
    /// on overflow) and `--n1-rule=3.0|3.1` (hailstone only).
    pub load: LoadOptions,
    /// `-O NODE`, repeatable; the last given first, as hbal keeps them.
    pub offline: Vec<String>,
    /// `-U FILE`: instance utilisation.
    pub dynu_file: Option<String>,
    /// `--ignore-dynu`: no utilisation data (from a data file, `-U` or the
    /// monitoring daemons).
    pub ignore_dynu: bool,
    /// `--mond[=yes|no]`: query the monitoring daemons.
    pub mond: bool,
    /// `--mond-data=FILE`: their reports from a file instead.
    pub mond_data: Option<String>,
    /// `--mond-xen`: the Xen collector instead of the node's total.
    pub mond_xen: bool,
    /// `--exit-on-missing-mond-data`.
    pub mond_exit_on_missing: bool,
    /// The searches' settings: `--ignore-soft-errors`,
    /// `--no-capacity-checks`, `--restrict-allocation-to=N1,N2,...` (split
    /// as `sepSplit` does: an empty value allows no node; the last one
    /// given wins) and `--inter-group-evacuation`.
    pub algorithm: AlgorithmOptions,
    /// `-G`: the node group, by name or UUID.
    pub group: Option<String>,
    /// `-l N`: the most moves; negative for no limit.
    pub max_length: i64,
    /// `-e`: the score excess over the optimum that is worth balancing.
    pub min_score: f64,
    /// `--max-cpu`: every node's virtual-to-physical CPU ratio.
    pub max_cpu: Option<f64>,
    /// `--min-disk`: the free disk ratio every node keeps.
    pub min_disk: f64,
    /// `-g`.
    pub min_gain: f64,
    /// `--min-gain-limit`.
    pub min_gain_limit: f64,
    /// Not `--no-disk-moves`.
    pub disk_moves: bool,
    /// Not `--no-instance-moves`.
    pub inst_moves: bool,
    /// `-E`: move only instances on offline nodes.
    pub evac_mode: bool,
    /// `--restricted-migration`.
    pub restricted_migration: bool,
    /// `--select-instances`: only these move.
    pub select_instances: Vec<String>,
    /// `--exclude-instances`: these never move.
    pub exclude_instances: Vec<String>,
    /// `--exclusion-tags`: exclusion tag prefixes (each gets a `:`).
    pub exclusion_tags: Option<Vec<String>>,
    /// `--minimal-resources`: below this reserve on some node, standby
    /// nodes are powered on (in standard instances).
    pub minimal_resources: f64,
    /// `--target-resources`: the reserve every node keeps after nodes are
    /// powered off (in standard instances).
    pub target_resources: f64,
    /// `--evacuate` (hailstone-groups compress): plan the emptying of the
    /// group that frees the most.
    pub evacuate: bool,
    /// `--independent-groups`: a group that is not N+1 redundant takes no
    /// instance, and the others are checked without it.
    pub independent_groups: bool,
    /// `--no-simulation`: hcheck's figures without the simulated
    /// rebalancing.
    pub no_simulation: bool,
    /// `--true-counts` (hailstone only): hcheck's figures without its two
    /// counting faults, and why each node cannot be evacuated.
    pub true_counts: bool,
    /// hroller's switches: `--offline-maintenance`, `--full-evacuation`,
    /// `--skip-non-redundant`, `--ignore-non-redundant`,
    /// `--one-step-only`, `-f`, `--print-moves`; and hailstone's
    /// `--shared-storage-movable`.
    pub roll: RollSwitches,
    /// `--node-tags=TAG,...`: only nodes with one of these tags.
    pub node_tags: Option<Vec<String>>,
    /// `--accept-existing-errors`: existing N+1 failures do not stop the
    /// capacity calculation.
    pub accept_existing: bool,
    /// `--disk-template`: the template of the instances to place.
    pub disk_template: Option<DiskTemplate>,
    /// `--spindle-use`: their spindle use.
    pub spindle_use: Option<i64>,
    /// `--standard-alloc=DISK,RAM,CPU[,SPINDLES]`: the standard instance.
    pub std_spec: Option<RSpec>,
    /// `--tiered-alloc=DISK,RAM,CPU[,SPINDLES]`: the first tiered instance.
    pub tiered_spec: Option<RSpec>,
    /// `--allocator-model` (hailstone only): count as the allocator places
    /// instances, not as hspace does.
    pub allocator_model: bool,
    /// `--max-copy=SIZE` (hailstone only): the most disk data a balancing
    /// plan copies, MiB; `None`: hbal's plan.
    pub max_copy: Option<i64>,
    /// `-p[FIELDS]`: node tables on stderr before and after.
    pub print_nodes: Option<PrintNodes>,
    /// `--print-instances`: instance maps on stderr before and after.
    pub print_instances: bool,
    /// `-C[FILE]`: the commands, to stdout (`-`) or to a script FILE.
    pub print_commands: Option<String>,
    /// `-S FILE`: save the cluster state.
    pub save: Option<String>,
    /// `-d PATH`: where hscan writes its data files (default `.`).
    pub output_dir: String,
    /// Verbosity: 1, plus one per `-v`, minus one per `-q`.
    pub verbose: i64,
    /// `--no-headers`: no heading line.
    pub no_headers: bool,
    /// `--machine-readable[=yes|no]`: `KEY=value` lines for scripts.
    pub machine_readable: bool,
    /// `--json`: one JSON document on stdout instead of the text.
    pub json: bool,
    /// `--explain[=PATH]` (hailstone only).
    pub explain: Option<ExplainTo>,
    /// `--report=FILE`: the HTML page of the run (hailstone only).
    pub report: Option<String>,
    /// `--print-cost` (hailstone only): the plan's cost in the text.
    pub print_cost: bool,
    /// `--resync-rate`, `--migration-bandwidth` (hailstone only): the rates
    /// a plan's time is estimated at.
    pub rates: Rates,
    /// `--explain-format=text|json` (hailstone only).
    pub explain_format: ExplainFormat,
    /// `--explain-keep=N`: the explanations a directory keeps (0: all).
    pub explain_keep: usize,
    /// `-X`: carry the plan out through Luxi (needs `-L`).
    pub exec: bool,
    /// `--first-job-group`: only the first set of jobs in `-C` and `-X`.
    pub first_job_group: bool,
    /// `--reason`: the reason trail text of the submitted jobs.
    pub reason: Option<String>,
    /// `--priority`: the submitted jobs' priority (-10 high, 0 normal, 10
    /// low).
    pub priority: i32,
    /// `--job-delay`: seconds of delay before a repair's jobs (harep).
    pub job_delay: f64,
    /// `--dry-run`: report what would be done, do nothing (harep).
    pub dry_run: bool,
    /// `--root`: the file system whose drop-in names hailstone-htools
    /// switches.
    pub root: String,
    /// `--shadow` (hailstone-htools enable): the originals run, hailstone's
    /// programs beside them.
    pub htools_shadow: bool,
    /// hailstone-shadow's settings.
    pub shadow: ShadowSettings,
    /// `--help`.
    pub show_help: bool,
    /// `--version`.
    pub show_version: bool,
    /// `--help-completion`.
    pub show_completion: bool,
}

/// Whose answer Ganeti gets from hailstone-shadow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Primary {
    /// The reference allocator (hail): hailstone runs in the shadow.
    Reference,
    /// hailstone: the reference runs in the shadow.
    Hailstone,
}

/// hailstone-shadow's settings (`--reference`, `--hailstone`,
/// `--primary`, `--record-dir`, `--shadow-timeout`, `--keep`,
/// `--keep-size`, `--config`).
#[derive(Debug, Clone, PartialEq)]
pub struct ShadowSettings {
    /// The reference allocator's path.
    pub reference: String,
    /// hailstone's path; `None`: `hailstone` in the program's folder.
    pub hailstone: Option<String>,
    /// Whose answer Ganeti gets.
    pub primary: Primary,
    /// Where the records go.
    pub record_dir: String,
    /// The shadow's time limit, in seconds.
    pub timeout: f64,
    /// The most records kept (0: no limit).
    pub keep: usize,
    /// The most bytes of records kept (0: no limit).
    pub keep_size: u64,
    /// The settings file; `None`: the default one, if it exists.
    pub config: Option<String>,
}

/// Where hailstone-shadow reads its settings when `--config` is not given.
pub const DEFAULT_SHADOW_CONFIG: &str = "/etc/ganeti/hailstone-shadow.conf";

impl Default for ShadowSettings {
    fn default() -> Self {
        ShadowSettings {
            reference: "/usr/lib/ganeti/iallocators/hail".to_owned(),
            hailstone: None,
            primary: Primary::Reference,
            record_dir: "/var/log/ganeti/hailstone-shadow".to_owned(),
            timeout: 300.0,
            keep: 1000,
            keep_size: 512 << 20,
            config: None,
        }
    }
}

/// A size in bytes: digits, then nothing (bytes) or `K`, `M`, `G` or `T`
/// (powers of 1024, `KiB`, `KB`, ... and lower case taken alike).
fn size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = t.split_at(digits);
    let unit = unit.trim().to_ascii_uppercase();
    let shift = match unit.trim_end_matches('B').trim_end_matches('I') {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => u32::MAX,
    };
    match number.parse::<u64>() {
        Ok(n) if shift != u32::MAX && n.leading_zeros() >= shift => Ok(n << shift),
        _ => Err(format!(
            "'{text}' is not a size: give bytes, or a number with K, M or G (512M)"
        )),
    }
}

/// A rate per second (`--resync-rate`, `--migration-bandwidth`): MiB, or
/// a size with a unit as `--simulate` takes it; more than 0.
fn rate(text: &str) -> Result<i64, String> {
    match parse_unit(text) {
        Ok(v) if v > 0 => Ok(v),
        _ => Err(format!(
            "'{text}' is not a rate: give MiB per second, or a number with a unit (1g), more than 0"
        )),
    }
}

/// hroller's switches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RollSwitches {
    pub offline_maintenance: bool,
    pub full_evacuation: bool,
    pub skip_non_redundant: bool,
    pub ignore_non_redundant: bool,
    pub one_step_only: bool,
    pub force: bool,
    pub print_moves: bool,
    /// `--shared-storage-movable` (hailstone only).
    pub shared_storage_movable: bool,
    /// `--reboot-command` (hailstone only): how `-X` reboots a node.
    pub reboot_command: Option<String>,
}

impl Options {
    /// Who the figures are printed for (`--machine-readable`).
    pub fn audience(&self) -> Audience {
        if self.machine_readable {
            Audience::Scripts
        } else {
            Audience::People
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            text_data: None,
            ialloc_src: None,
            luxi: None,
            master: None,
            simulate: Vec::new(),
            load: LoadOptions::default(),
            offline: Vec::new(),
            dynu_file: None,
            ignore_dynu: false,
            mond: false,
            mond_data: None,
            mond_xen: false,
            mond_exit_on_missing: false,
            algorithm: AlgorithmOptions::default(),
            group: None,
            max_length: -1,
            min_score: 1e-9,
            max_cpu: None,
            min_disk: 0.0,
            min_gain: 0.01,
            min_gain_limit: 0.1,
            disk_moves: true,
            inst_moves: true,
            evac_mode: false,
            restricted_migration: false,
            select_instances: Vec::new(),
            exclude_instances: Vec::new(),
            exclusion_tags: None,
            minimal_resources: 2.0,
            target_resources: 2.0,
            evacuate: false,
            independent_groups: false,
            no_simulation: false,
            true_counts: false,
            roll: RollSwitches::default(),
            node_tags: None,
            accept_existing: false,
            disk_template: None,
            spindle_use: None,
            std_spec: None,
            tiered_spec: None,
            allocator_model: false,
            max_copy: None,
            print_nodes: None,
            print_instances: false,
            print_commands: None,
            save: None,
            output_dir: ".".to_owned(),
            verbose: 1,
            no_headers: false,
            machine_readable: false,
            json: false,
            explain: None,
            report: None,
            print_cost: false,
            rates: Rates::default(),
            explain_format: ExplainFormat::Text,
            explain_keep: 1000,
            exec: false,
            first_job_group: false,
            reason: None,
            priority: 0,
            job_delay: 10.0,
            dry_run: false,
            root: "/".to_owned(),
            htools_shadow: false,
            shadow: ShadowSettings::default(),
            show_help: false,
            show_version: false,
            show_completion: false,
        }
    }
}

/// A value read as Haskell's `Double` or `Int`, with `tryRead`'s message
/// naming `what`.
fn double(what: &str, text: &str) -> Result<f64, String> {
    read_double(text).map_err(|e: ReadError| e.message(what, text))
}

/// A path option's value, refused when empty.
fn nonempty(what: &str, text: &str) -> Result<String, String> {
    if text.is_empty() {
        Err(format!("the {what} is empty; give a path"))
    } else {
        Ok(text.to_owned())
    }
}

/// An integer option. A number outside `Int`'s range is refused where
/// the originals wrap it around (`-l 99999999999999999999999` would be a
/// short limit, or none).
/// A file a hailstone-only option writes at the end of the run (`NAME`
/// in the help): refused at once when it cannot be made, saying why.
///
/// # Errors
///
/// The empty name, a name that is a folder, a folder that does not exist
/// or is no folder.
fn writable_file(name: &str, path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err(format!(
            "the {name} name is empty; give a {name} in an existing folder"
        ));
    }
    let file = std::path::Path::new(path);
    if file.is_dir() {
        return Err(format!(
            "cannot write {path}: it is a folder; give a {name} in it"
        ));
    }
    let folder = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    match std::fs::metadata(folder) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(format!(
            "cannot write {path}: {} is not a folder; give a {name} in an existing folder",
            folder.display()
        )),
        Err(_) => Err(format!(
            "cannot write {path}: the folder {} does not exist; give a {name} in an existing folder",
            folder.display()
        )),
    }
}

fn int(what: &str, text: &str) -> Result<i64, String> {
    read_int_in_range(text)
        .map_err(|e| e.message(what, text))?
        .ok_or_else(|| {
            format!(
                "{what}: '{text}' is out of range (integers run from {} to {})",
                i64::MIN,
                i64::MAX
            )
        })
}

/// hsqueeze's `--minimal-resources` and `--target-resources`: a multiple
/// of the standard instance, refused when negative or not a number (a
/// negative target lets every node be powered off; hsqueeze takes it).
fn factor(long: &str, text: &str) -> Result<f64, String> {
    let what = long.replace('-', " ");
    let v = double(&what, text)?;
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(format!(
            "Invalid value of --{long} '{text}', expected a number of standard instances, 0 or more"
        ))
    }
}

/// A switch's value: bare, `yes` or `true` set it; `no` or `false` clear
/// it (hailstone: Ganeti passes allocator options only as `--key=value`).
fn flag(long: &str, value: Option<&str>) -> Result<bool, String> {
    match value {
        None | Some("yes") | Some("true") => Ok(true),
        Some("no") | Some("false") => Ok(false),
        Some(other) => Err(format!(
            "Invalid value '{other}' for --{long}, pass one of 'yes', 'no', 'true' or 'false'"
        )),
    }
}

/// `parseISpecString`: `DISK,RAM,CPU[,SPINDLES]`, sizes with units
/// (`parseUnit`), spindles 1 when not given; `what` names the spec in
/// the messages.
fn ispec_string(what: &str, text: &str) -> Result<RSpec, String> {
    let fields: Vec<&str> = split_on(text, ',').collect();
    if !(3..=4).contains(&fields.len()) {
        return Err(format!(
            "Invalid {what} specification: '{text}', expected disk,ram,cpu"
        ));
    }
    let unit = |i: usize, name: &str| {
        parse_unit(fields[i]).map_err(|e| format!("{what} specs {name}: {e}"))
    };
    let dsk = unit(0, "disk")?;
    let mem = unit(1, "memory")?;
    let cpu = int(&format!("{what} specs cpus"), fields[2])?;
    let spn = match fields.get(3) {
        Some(f) => int(&format!("{what} specs spindles"), f)?,
        None => 1,
    };
    Ok(RSpec { cpu, mem, dsk, spn })
}

/// Applies one occurrence of `opt` with its value (`None` when none was
/// given) to `o`: the fold of Ganeti's `parseOptsInner`. `Err` is the
/// original's message for a bad value.
pub fn apply(o: &mut Options, opt: Opt, value: Option<&str>) -> Result<(), String> {
    let text = value.unwrap_or("");
    let switch = || flag(super::table::descr(opt).long, value);
    match opt {
        Opt::TextData => o.text_data = Some(text.to_owned()),
        Opt::IallocSrc => o.ialloc_src = Some(text.to_owned()),
        Opt::Luxi => o.luxi = Some(value.unwrap_or(DEFAULT_LUXI_SOCKET).to_owned()),
        Opt::Master => o.master = Some(text.to_owned()),
        Opt::Simulate => o.simulate.insert(0, text.to_owned()),
        Opt::StaticKvmNodeMemory => {
            o.load.static_kvm_node_memory = int("static node memory", text)?;
        }
        Opt::GanetiVersion | Opt::N1Rule => {
            o.load.ganeti = GanetiVersion::parse(text).ok_or_else(|| {
                format!("Invalid Ganeti version '{text}', pass one of '3.0' or '3.1'")
            })?;
        }
        Opt::Offline => o.offline.insert(0, text.to_owned()),
        Opt::DynuFile => o.dynu_file = Some(text.to_owned()),
        Opt::IgnoreDynu => o.ignore_dynu = switch()?,
        Opt::Mond => {
            o.mond = match value {
                None | Some("yes") => true,
                Some("no") => false,
                Some(other) => {
                    return Err(format!(
                        "Invalid choice '{other}', pass one of 'yes' or 'no'"
                    ))
                }
            };
        }
        Opt::MondData => o.mond_data = Some(text.to_owned()),
        Opt::MondXen => o.mond_xen = switch()?,
        Opt::ExitOnMissingMondData => o.mond_exit_on_missing = switch()?,
        Opt::IgnoreSoftErrors => {
            o.algorithm.soft = if switch()? {
                SoftChecks::Ignore
            } else {
                SoftChecks::Enforce
            };
        }
        Opt::NoCapacityChecks => o.algorithm.capacity_checks = !switch()?,
        Opt::RestrictAllocationTo => o.algorithm.restrict_allocation_to = Some(sep_split(text)),
        Opt::InterGroupEvacuation => o.algorithm.inter_group_evacuation = switch()?,
        Opt::Group => o.group = Some(text.to_owned()),
        Opt::MaxLength => o.max_length = int("max solution length", text)?,
        Opt::MinScore => o.min_score = double("min score", text)?,
        Opt::MaxCpu => {
            let v = double("parsing max-cpu", text)?;
            if v <= 0.0 {
                return Err("Invalid value of the max-cpu ratio, expected >0".to_owned());
            }
            o.max_cpu = Some(v);
        }
        Opt::MinDisk => {
            // Outside 0..1 the reserve is negative (disks planned past the
            // node's size) or larger than the disk; the originals take it.
            let v = double("min free disk space", text)?;
            if !(0.0..=1.0).contains(&v) {
                return Err(format!(
                    "Invalid value of the min-disk ratio '{text}', expected a number from 0 to 1"
                ));
            }
            o.min_disk = v;
        }
        Opt::MinGain => o.min_gain = double("min gain", text)?,
        Opt::MinGainLimit => o.min_gain_limit = double("min gain limit", text)?,
        Opt::NoDiskMoves => o.disk_moves = !switch()?,
        Opt::NoInstanceMoves => o.inst_moves = !switch()?,
        Opt::EvacMode => o.evac_mode = switch()?,
        Opt::RestrictedMigration => o.restricted_migration = switch()?,
        Opt::SelectInstances => o.select_instances = sep_split(text),
        Opt::ExcludeInstances => o.exclude_instances = sep_split(text),
        Opt::ExclusionTags => o.exclusion_tags = Some(sep_split(text)),
        Opt::MinimalResources => o.minimal_resources = factor("minimal-resources", text)?,
        Opt::TargetResources => o.target_resources = factor("target-resources", text)?,
        Opt::Evacuate => o.evacuate = switch()?,
        Opt::IndependentGroups => o.independent_groups = switch()?,
        Opt::NoSimulation => o.no_simulation = switch()?,
        Opt::TrueCounts => o.true_counts = switch()?,
        Opt::OfflineMaintenance => o.roll.offline_maintenance = switch()?,
        Opt::FullEvacuation => o.roll.full_evacuation = switch()?,
        Opt::SkipNonRedundant => o.roll.skip_non_redundant = switch()?,
        Opt::IgnoreNonRedundant => o.roll.ignore_non_redundant = switch()?,
        Opt::OneStepOnly => o.roll.one_step_only = switch()?,
        Opt::Force => o.roll.force = switch()?,
        Opt::PrintMoves => o.roll.print_moves = switch()?,
        Opt::SharedStorageMovable => o.roll.shared_storage_movable = switch()?,
        Opt::RebootCommand => o.roll.reboot_command = Some(text.to_owned()),
        Opt::NodeTags => o.node_tags = Some(sep_split(text)),
        Opt::AcceptExistingErrors => o.accept_existing = switch()?,
        Opt::DiskTemplate => {
            o.disk_template = Some(DiskTemplate::from_raw(text).ok_or_else(|| {
                // hspace's words, then the valid templates.
                let names = DiskTemplate::ALL.map(DiskTemplate::raw);
                let near = suggest::nearest(text, names)
                    .map(|n| format!("did you mean {n}? "))
                    .unwrap_or_default();
                format!(
                    "Invalid string value for type DiskTemplate: {}\n{near}the disk templates are {}",
                    show_string(text),
                    suggest::one_of(&names)
                )
            })?);
        }
        Opt::SpindleUse => {
            let su = int("parsing spindle-use", text)?;
            if su < 0 {
                return Err("Invalid value of the spindle-use (expected >= 0)".to_owned());
            }
            o.spindle_use = Some(su);
        }
        Opt::StandardAlloc => o.std_spec = Some(ispec_string("standard", text)?),
        Opt::TieredAlloc => o.tiered_spec = Some(ispec_string("tiered", text)?),
        Opt::AllocatorModel => o.allocator_model = switch()?,
        Opt::MaxCopy => {
            o.max_copy = Some(match parse_unit(text) {
                Ok(v) if v >= 0 => v,
                _ => {
                    return Err(format!(
                        "'{text}' is not a size: give MiB, or a number with a unit (500g, 2t), 0 or more"
                    ))
                }
            });
        }
        Opt::PrintCost => o.print_cost = switch()?,
        Opt::ResyncRate => o.rates.resync = rate(text)?,
        Opt::MigrationBandwidth => o.rates.migration = rate(text)?,
        Opt::PrintNodes => o.print_nodes = Some(PrintNodes::from_option(text)),
        Opt::PrintInstances => o.print_instances = switch()?,
        Opt::PrintCommands => o.print_commands = Some(value.unwrap_or("-").to_owned()),
        Opt::Save => o.save = Some(text.to_owned()),
        Opt::OutputDir => o.output_dir = text.to_owned(),
        Opt::Verbose => o.verbose = o.verbose.saturating_add(1),
        Opt::Quiet => o.verbose = o.verbose.saturating_sub(1),
        Opt::NoHeaders => o.no_headers = switch()?,
        Opt::Json => o.json = switch()?,
        Opt::MachineReadable => {
            o.machine_readable = match value {
                None | Some("yes") => true,
                Some("no") => false,
                Some(other) => {
                    return Err(format!(
                        "Invalid choice '{other}', pass one of 'yes' or 'no'"
                    ))
                }
            };
        }
        Opt::Explain => {
            o.explain = Some(match value {
                None | Some("-") => ExplainTo::Stderr,
                Some("") => {
                    return Err("the path is empty; give a PATH, or no value for stderr".to_owned())
                }
                Some(path) => ExplainTo::Path(path.to_owned()),
            });
        }
        Opt::Report => {
            writable_file("FILE", text)?;
            o.report = Some(text.to_owned());
        }
        Opt::ExplainKeep => {
            let n = text.parse::<i64>().map_err(|_| {
                format!("'{text}' is not a number of explanations to keep (0 keeps them all)")
            })?;
            o.explain_keep = usize::try_from(n)
                .map_err(|_| format!("{n} is negative; 0 keeps every explanation"))?;
        }
        Opt::ExplainFormat => {
            o.explain_format = match text {
                "text" => ExplainFormat::Text,
                "json" => ExplainFormat::Json,
                other => {
                    let near = suggest::nearest(other, ["text", "json"])
                        .map(|n| format!(" (did you mean {n}?)"))
                        .unwrap_or_default();
                    return Err(format!(
                        "Invalid explanation format '{other}'{near}, pass one of 'text' or 'json'"
                    ));
                }
            };
        }
        Opt::Exec => o.exec = switch()?,
        Opt::FirstJobGroup => o.first_job_group = switch()?,
        Opt::Reason => o.reason = Some(text.to_owned()),
        Opt::JobDelay => o.job_delay = double("job delay", text)?,
        Opt::DryRun => o.dry_run = switch()?,
        Opt::Root => o.root = text.to_owned(),
        Opt::Shadow => o.htools_shadow = switch()?,
        Opt::Reference => o.shadow.reference = nonempty("reference allocator", text)?,
        Opt::ShadowHailstone => o.shadow.hailstone = Some(nonempty("hailstone allocator", text)?),
        Opt::Primary => {
            o.shadow.primary = match text {
                "hail" | "reference" => Primary::Reference,
                "hailstone" => Primary::Hailstone,
                other => {
                    let near = suggest::nearest(other, ["hail", "hailstone"])
                        .map(|n| format!(" (did you mean {n}?)"))
                        .unwrap_or_default();
                    return Err(format!(
                        "'{other}' is not an allocator{near}; pass 'hail' (the reference) or 'hailstone'"
                    ));
                }
            };
        }
        Opt::RecordDir => o.shadow.record_dir = nonempty("record folder", text)?,
        Opt::ShadowTimeout => {
            o.shadow.timeout = match text.parse::<f64>() {
                Ok(v) if v.is_finite() && v > 0.0 && v <= 86_400.0 => v,
                _ => {
                    return Err(format!(
                        "'{text}' is not a time limit: give seconds, more than 0 and at most 86400"
                    ))
                }
            };
        }
        Opt::Keep => {
            o.shadow.keep = text.parse::<usize>().map_err(|_| {
                format!("'{text}' is not a number of records to keep (0 keeps them all)")
            })?;
        }
        Opt::KeepSize => o.shadow.keep_size = size(text)?,
        Opt::ShadowConfig => o.shadow.config = Some(nonempty("settings file", text)?),
        Opt::Priority => {
            o.priority = match text {
                "low" => 10,
                "normal" => 0,
                "high" => -10,
                // hbal's words, then the valid values.
                _ => {
                    return Err(format!(
                        "Unknown priority '{text}'\nthe priorities are low, normal or high"
                    ))
                }
            };
        }
        Opt::Version => o.show_version = true,
        Opt::Help => o.show_help = true,
        Opt::HelpCompletion => o.show_completion = true,
    }
    Ok(())
}
