//! The settings of one run, as the command line gives them (Ganeti's
//! `Options` record with `defaultOptions`). What each option's value does
//! to them is its entry's `set` in [`super::table`].
//!
//! Every program reads the same record; each reads only the fields of the
//! options it takes. The settings a stage needs travel as that stage's own
//! type: the loader's [`LoadOptions`] and the searches' [`AlgorithmOptions`]
//! are fields of the record, so no stage sees the command line.

use crate::explain::Format as ExplainFormat;
use crate::model::cost::Rates;
use crate::model::policy::RSpec;
use crate::model::types::DiskTemplate;
use crate::read::loader::LoadOptions;
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
