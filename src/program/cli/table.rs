//! Every option of every hailstone program, each declared once (Ganeti's
//! `CLI.hs`): its letter, long name, argument, completion kind, help text
//! and what its value sets in [`super::Options`], refused with which
//! message ([`super::declare`] makes the [`Opt`] enum, the rows and the
//! fold from these entries). A program takes a list of them
//! ([`super::Program`]).
//!
//! The help texts say what the option does here: the originals' wording
//! where it is right, corrected where it was wrong (`-e`, `-p`, `-S`); a
//! program gives its own text for an option whose meaning it narrows
//! ([`super::Use::help`]).
//!
//! An `arg` of `Flag` is a switch that, in a program whose switches take
//! values ([`super::Program::flag_values`]), also accepts
//! `=yes|no|true|false`; elsewhere it is a plain `NoArg`.

use super::getopt::ArgKind::{Flag, No, Opt as Optional, Req};
use super::options::{ExplainTo, Primary, DEFAULT_LUXI_SOCKET};
use super::suggest;
use crate::explain::Format as ExplainFormat;
use crate::haskell::show::show_string;
use crate::model::types::{DiskTemplate, SoftChecks};
use crate::read::loader::GanetiVersion;
use crate::write::nodes::PrintNodes;

super::declare::options! {
    // Where the cluster comes from.
    TextData {
        short: 't',
        long: "text-data",
        arg: Req("FILE"),
        completion: "file",
        help: "the cluster data FILE",
        set: |o, a| o.text_data = Some(a.owned()),
    }
    IallocSrc {
        short: 'I',
        long: "ialloc-src",
        arg: Req("FILE"),
        completion: "file",
        help: "read the cluster from the iallocator request FILE",
        set: |o, a| o.ialloc_src = Some(a.owned()),
    }
    Luxi {
        short: 'L',
        long: "luxi",
        arg: Optional("SOCKET"),
        completion: "file",
        help: "collect data via Luxi, optionally using the given SOCKET path [/var/run/ganeti/socket/ganeti-query]",
        set: |o, a| o.luxi = Some(a.given().unwrap_or(DEFAULT_LUXI_SOCKET).to_owned()),
    }
    Master {
        short: 'm',
        long: "master",
        arg: Req("ADDRESS"),
        completion: "host",
        help: "collect data via RAPI at the given ADDRESS",
        set: |o, a| o.master = Some(a.owned()),
    }
    Simulate {
        long: "simulate",
        arg: Req("SPEC"),
        completion: "string",
        help: "simulate an empty node group of identical nodes, given as 'policy,nodes,disk,memory,cpus[,spindles[,exclusive_storage]]' (policy p, a or u: preferred, last_resort, unallocable; sizes in MiB or with a unit: m, g, t binary, M, G, T decimal; exclusive_storage True or False); repeat it for more groups",
        set: |o, a| o.simulate.insert(0, a.owned()),
    }
    StaticKvmNodeMemory {
        long: "static-kvm-node-memory",
        arg: Req("N"),
        completion: "integer",
        help: "use static node memory [in MB] on KVM instead of value reported by hypervisor. Use 0 to take value reported from hypervisor. [4096]",
        set: |o, a| o.load.static_kvm_node_memory = a.int("static node memory")?,
    }
    GanetiVersion {
        long: "ganeti-version",
        arg: Req("VERSION"),
        completion: "choices=3.0,3.1",
        help: "follow Ganeti VERSION's htools: 3.0 (3.0.2, default) or 3.1 (3.1.0: a node's initial N+1 state from its unallocated memory)",
        set: |o, a| o.load.ganeti = ganeti_version(a.text())?,
    }
    N1Rule {
        long: "n1-rule",
        arg: Req("RULE"),
        completion: "choices=3.0,3.1",
        help: "the former name of --ganeti-version",
        set: |o, a| o.load.ganeti = ganeti_version(a.text())?,
    }
    Offline {
        short: 'O',
        long: "offline",
        arg: Req("NODE"),
        completion: "onenode",
        help: "set node as offline",
        set: |o, a| o.offline.insert(0, a.owned()),
    }
    DynuFile {
        short: 'U',
        long: "dynu-file",
        arg: Req("FILE"),
        completion: "file",
        help: "Import dynamic utilisation data from the given FILE",
        set: |o, a| o.dynu_file = Some(a.owned()),
    }
    IgnoreDynu {
        long: "ignore-dynu",
        arg: Flag,
        completion: "none",
        help: "Ignore any dynamic utilisation information",
        set: |o, a| o.ignore_dynu = a.switch()?,
    }
    Mond {
        long: "mond",
        arg: Optional("CHOICE"),
        completion: "choices=yes,no",
        help: "pass either 'yes' or 'no' to query all monDs [no]",
        set: |o, a| o.mond = a.yes_no()?,
    }
    MondData {
        long: "mond-data",
        arg: Req("FILE"),
        completion: "file",
        help: "Import data provided by MonDs from the given FILE",
        set: |o, a| o.mond_data = Some(a.owned()),
    }
    MondXen {
        long: "mond-xen",
        arg: Flag,
        completion: "none",
        help: "also consider xen-specific collectors in MonD queries",
        set: |o, a| o.mond_xen = a.switch()?,
    }
    ExitOnMissingMondData {
        long: "exit-on-missing-mond-data",
        arg: Flag,
        completion: "none",
        help: "abort if the data available from the monitoring daemons is incomplete",
        set: |o, a| o.mond_exit_on_missing = a.switch()?,
    }

    // What the algorithms may do.
    IgnoreSoftErrors {
        long: "ignore-soft-errors",
        arg: Flag,
        completion: "none",
        help: "ignore soft policy violations (every instance-policy limit but the disk template) when balancing",
        set: |o, a| {
            o.algorithm.soft = if a.switch()? {
                SoftChecks::Ignore
            } else {
                SoftChecks::Enforce
            };
        },
    }
    NoCapacityChecks {
        long: "no-capacity-checks",
        arg: Flag,
        completion: "none",
        help: "disable capacity checks (like global N+1 redundancy)",
        set: |o, a| o.algorithm.capacity_checks = !a.switch()?,
    }
    RestrictAllocationTo {
        long: "restrict-allocation-to",
        arg: Req("NODE,..."),
        completion: "manynodes",
        help: "Restrict allocations to the given set of nodes",
        set: |o, a| o.algorithm.restrict_allocation_to = Some(a.list()),
    }
    InterGroupEvacuation {
        long: "inter-group-evacuation",
        arg: Flag,
        completion: "none",
        help: "node-evacuate: move an instance that fits nowhere in its own group to another group sharing its storage pool (Ganeti runs the jobs of a group change)",
        set: |o, a| o.algorithm.inter_group_evacuation = a.switch()?,
    }
    Group {
        short: 'G',
        long: "group",
        arg: Req("ID"),
        completion: "onegroup",
        help: "the target node group (name or UUID)",
        set: |o, a| o.group = Some(a.owned()),
    }
    MaxLength {
        short: 'l',
        long: "max-length",
        arg: Req("N"),
        completion: "integer",
        help: "cap the solution at this many balancing or allocation rounds (useful for very unbalanced clusters or empty clusters) [-1: no limit]",
        set: |o, a| o.max_length = a.int("max solution length")?,
    }
    MinScore {
        short: 'e',
        long: "min-score",
        arg: Req("EPSILON"),
        completion: "float",
        help: "stop once the score is within EPSILON of the best score N+1 allows [1e-9]",
        set: |o, a| o.min_score = a.double("min score")?,
    }
    MaxCpu {
        long: "max-cpu",
        arg: Req("RATIO"),
        completion: "float",
        help: "maximum virtual-to-physical cpu ratio for nodes (from 0 upwards) [default read from cluster]",
        set: |o, a| {
            let v = a.double("parsing max-cpu")?;
            if v <= 0.0 {
                return Err("Invalid value of the max-cpu ratio, expected >0".to_owned());
            }
            o.max_cpu = Some(v);
        },
    }
    MinDisk {
        long: "min-disk",
        arg: Req("RATIO"),
        completion: "float",
        help: "minimum free disk space for nodes (between 0 and 1) [0]",
        set: |o, a| {
            // Outside 0..1 the reserve is negative (disks planned past the
            // node's size) or larger than the disk; the originals take it.
            let v = a.double("min free disk space")?;
            if !(0.0..=1.0).contains(&v) {
                return Err(format!(
                    "Invalid value of the min-disk ratio '{}', expected a number from 0 to 1",
                    a.text()
                ));
            }
            o.min_disk = v;
        },
    }
    MinGain {
        short: 'g',
        long: "min-gain",
        arg: Req("DELTA"),
        completion: "float",
        help: "minimum gain to aim for in a balancing step before giving up [0.01]",
        set: |o, a| o.min_gain = a.double("min gain")?,
    }
    MinGainLimit {
        long: "min-gain-limit",
        arg: Req("SCORE"),
        completion: "float",
        help: "minimum cluster score for which we start checking the min-gain [0.1]",
        set: |o, a| o.min_gain_limit = a.double("min gain limit")?,
    }
    NoDiskMoves {
        long: "no-disk-moves",
        arg: Flag,
        completion: "none",
        help: "disallow disk moves from the list of allowed instance changes, thus allowing only the 'cheap' failover/migrate operations",
        set: |o, a| o.disk_moves = !a.switch()?,
    }
    NoInstanceMoves {
        long: "no-instance-moves",
        arg: Flag,
        completion: "none",
        help: "move no primary: only change secondaries (slower drbd copies, but the instances keep running where they are)",
        set: |o, a| o.inst_moves = !a.switch()?,
    }
    EvacMode {
        short: 'E',
        long: "evac-mode",
        arg: Flag,
        completion: "none",
        help: "enable evacuation mode, where the algorithm only moves instances away from offline and drained nodes",
        set: |o, a| o.evac_mode = a.switch()?,
    }
    RestrictedMigration {
        long: "restricted-migration",
        arg: Flag,
        completion: "none",
        help: "disallow replace-primary moves (aka frf-moves); in evacuation mode, this will ensure that the only migrations are off the drained nodes",
        set: |o, a| o.restricted_migration = a.switch()?,
    }
    SelectInstances {
        long: "select-instances",
        arg: Req("INSTS"),
        completion: "manyinstances",
        help: "only select given instances for any moves",
        set: |o, a| o.select_instances = a.list(),
    }
    ExcludeInstances {
        long: "exclude-instances",
        arg: Req("INSTS"),
        completion: "manyinstances",
        help: "exclude given instances from any moves",
        set: |o, a| o.exclude_instances = a.list(),
    }
    ExclusionTags {
        long: "exclusion-tags",
        arg: Req("TAG,..."),
        completion: "string",
        help: "Enable instance exclusion based on given tag prefix",
        set: |o, a| o.exclusion_tags = Some(a.list()),
    }
    MinimalResources {
        long: "minimal-resources",
        arg: Req("FACTOR"),
        completion: "float",
        help: "bring standby nodes online when some online node could not host one more instance of FACTOR times the policy's standard spec (memory, CPUs, spindles) [2.0]",
        set: |o, a| o.minimal_resources = a.factor()?,
    }
    TargetResources {
        long: "target-resources",
        arg: Req("FACTOR"),
        completion: "float",
        help: "power nodes off only while every node left online could still host one more instance of FACTOR times the policy's standard spec (memory, CPUs, spindles) [2.0]",
        set: |o, a| o.target_resources = a.factor()?,
    }
    Evacuate {
        long: "evacuate",
        arg: Flag,
        completion: "none",
        help: "compress: plan the emptying of the group that frees the most",
        set: |o, a| o.evacuate = a.switch()?,
    }
    IndependentGroups {
        long: "independent-groups",
        arg: Flag,
        completion: "none",
        help: "count each node group on its own, as if it were the only one (by default the groups fill in allocation order)",
        set: |o, a| o.independent_groups = a.switch()?,
    }
    NoSimulation {
        long: "no-simulation",
        arg: Flag,
        completion: "none",
        help: "do not perform rebalancing simulation",
        set: |o, a| o.no_simulation = a.switch()?,
    }
    TrueCounts {
        long: "true-counts",
        arg: Flag,
        completion: "none",
        help: "count the instances whose secondary node is offline (hcheck counts the offline nodes), judge the final NEED_REBALANCE on the final figures (hcheck repeats the initial one), and name for each node that cannot be evacuated the instance that cannot leave and why",
        set: |o, a| o.true_counts = a.switch()?,
    }
    OfflineMaintenance {
        long: "offline-maintenance",
        arg: Flag,
        completion: "none",
        help: "plan reboots for offline maintenance: take every instance as shut down, so no instance needs to move",
        set: |o, a| o.roll.offline_maintenance = a.switch()?,
    }
    NodeTags {
        long: "node-tags",
        arg: Req("TAG,..."),
        completion: "string",
        help: "Restrict to nodes with the given tags",
        set: |o, a| o.node_tags = Some(a.list()),
    }
    FullEvacuation {
        long: "full-evacuation",
        arg: Flag,
        completion: "none",
        help: "fully evacuate the nodes to be rebooted",
        set: |o, a| o.roll.full_evacuation = a.switch()?,
    }
    SkipNonRedundant {
        long: "skip-non-redundant",
        arg: Flag,
        completion: "none",
        help: "Skip nodes that host a non-redundant instance",
        set: |o, a| o.roll.skip_non_redundant = a.switch()?,
    }
    IgnoreNonRedundant {
        long: "ignore-non-redundant",
        arg: Flag,
        completion: "none",
        help: "Pretend that there are no non-redundant instances in the cluster",
        set: |o, a| o.roll.ignore_non_redundant = a.switch()?,
    }
    OneStepOnly {
        long: "one-step-only",
        arg: Flag,
        completion: "none",
        help: "Only do the first step",
        set: |o, a| o.roll.one_step_only = a.switch()?,
    }
    Force {
        short: 'f',
        long: "force",
        arg: Flag,
        completion: "none",
        help: "force the execution of this program, even if warnings would otherwise prevent it",
        set: |o, a| o.roll.force = a.switch()?,
    }
    PrintMoves {
        long: "print-moves",
        arg: Flag,
        completion: "none",
        help: "print the moves of the instances",
        set: |o, a| o.roll.print_moves = a.switch()?,
    }
    SharedStorageMovable {
        long: "shared-storage-movable",
        arg: Flag,
        completion: "none",
        help: "treat instances on shared storage (ext, rbd, sharedfile, gluster, diskless) as movable by live migration: --skip-non-redundant keeps the nodes that hold them",
        set: |o, a| o.roll.shared_storage_movable = a.switch()?,
    }
    RebootCommand {
        long: "reboot-command",
        arg: Req("CMD"),
        completion: "none",
        help: "with -X, reboot each node of a group by running CMD with /bin/sh, the node's name as $1; it returns once the node is back (without it, -X waits for the operator at the terminal)",
        set: |o, a| o.roll.reboot_command = Some(a.owned()),
    }
    AcceptExistingErrors {
        long: "accept-existing-errors",
        arg: Flag,
        completion: "none",
        help: "Accept existing N+1 violations; just don't add new ones",
        set: |o, a| o.accept_existing = a.switch()?,
    }
    DiskTemplate {
        long: "disk-template",
        arg: Req("TEMPLATE"),
        completion: "choices=diskless,file,sharedfile,plain,blockdev,drbd,rbd,ext,gluster",
        help: "select the desired disk template [default read from cluster]",
        set: |o, a| o.disk_template = Some(disk_template(a.text())?),
    }
    SpindleUse {
        long: "spindle-use",
        arg: Req("SPINDLES"),
        completion: "float",
        help: "select how many virtual spindle instances use [default read from cluster]",
        set: |o, a| {
            let su = a.int("parsing spindle-use")?;
            if su < 0 {
                return Err("Invalid value of the spindle-use (expected >= 0)".to_owned());
            }
            o.spindle_use = Some(su);
        },
    }
    StandardAlloc {
        long: "standard-alloc",
        arg: Req("STDSPEC"),
        completion: "string",
        help: "enable standard specs allocation, given as 'disk,ram,cpu' [default read from cluster]",
        set: |o, a| o.std_spec = Some(a.ispec("standard")?),
    }
    TieredAlloc {
        long: "tiered-alloc",
        arg: Req("TSPEC"),
        completion: "string",
        help: "enable tiered specs allocation, given as 'disk,ram,cpu' [default read from cluster]",
        set: |o, a| o.tiered_spec = Some(a.ispec("tiered")?),
    }
    AllocatorModel {
        long: "allocator-model",
        arg: Flag,
        completion: "none",
        help: "count what the allocator itself would accept, one instance at a time (its group choice, the global N+1 check for every template, the lost-allocations metric on exclusive storage) instead of hspace's count",
        set: |o, a| o.allocator_model = a.switch()?,
    }
    MaxCopy {
        long: "max-copy",
        arg: Req("SIZE"),
        completion: "string",
        help: "choose the moves that lower the score most for the data they copy, and copy at most SIZE of disk in all (MiB, or with a unit: m, g, t binary, M, G, T decimal; 0: only migrations and failovers) [no limit: hbal's plan]",
        set: |o, a| o.max_copy = Some(a.size_mib()?),
    }

    // What is printed or saved.
    PrintNodes {
        short: 'p',
        long: "print-nodes",
        arg: Optional("FIELDS"),
        completion: "none",
        help: "print the node table before and after, on stderr (FIELDS: the columns, comma-separated; +FIELD,... adds to the default ones)",
        set: |o, a| o.print_nodes = Some(PrintNodes::from_option(a.text())),
    }
    PrintInstances {
        long: "print-instances",
        arg: Flag,
        completion: "none",
        help: "print the instance map before and after, on stderr",
        set: |o, a| o.print_instances = a.switch()?,
    }
    PrintCommands {
        short: 'C',
        long: "print-commands",
        arg: Optional("FILE"),
        completion: "none",
        help: "print the ganeti command list for reaching the solution, if an argument is passed then write the commands to a file named as such",
        set: |o, a| o.print_commands = Some(a.given().unwrap_or("-").to_owned()),
    }
    Save {
        short: 'S',
        long: "save",
        arg: Req("FILE"),
        completion: "none",
        help: "save the cluster before and after as data files (FILE.original and FILE.<what was done>)",
        set: |o, a| o.save = Some(a.owned()),
    }
    OutputDir {
        short: 'd',
        long: "output-dir",
        arg: Req("PATH"),
        completion: "dir",
        help: "directory in which to write output files [.]",
        set: |o, a| o.output_dir = a.owned(),
    }
    Verbose {
        short: 'v',
        long: "verbose",
        arg: No,
        completion: "none",
        help: "increase the verbosity level",
        set: |o, _a| o.verbose = o.verbose.saturating_add(1),
    }
    Quiet {
        short: 'q',
        long: "quiet",
        arg: No,
        completion: "none",
        help: "decrease the verbosity level",
        set: |o, _a| o.verbose = o.verbose.saturating_sub(1),
    }
    NoHeaders {
        long: "no-headers",
        arg: Flag,
        completion: "none",
        help: "do not show a header line",
        set: |o, a| o.no_headers = a.switch()?,
    }
    MachineReadable {
        long: "machine-readable",
        arg: Optional("CHOICE"),
        completion: "choices=yes,no",
        help: "enable machine readable output (pass either 'yes' or 'no' to explicitly control the flag, or without an argument defaults to yes)",
        set: |o, a| o.machine_readable = a.yes_no()?,
    }
    Json {
        long: "json",
        arg: Flag,
        completion: "none",
        help: "print the result as one JSON document on stdout instead of the text (schema: docs/json.md)",
        set: |o, a| o.json = a.switch()?,
    }
    Explain {
        long: "explain",
        arg: Optional("PATH"),
        completion: "none",
        help: "explain the answer (why each group, node and pair was refused or chosen) on stderr, in the file PATH, or in a new file in the directory PATH (made when missing: a PATH ending in / or without a dot in its last name)",
        set: |o, a| {
            o.explain = Some(match a.given() {
                None | Some("-") => ExplainTo::Stderr,
                Some("") => {
                    return Err("the path is empty; give a PATH, or no value for stderr".to_owned())
                }
                Some(path) => ExplainTo::Path(path.to_owned()),
            });
        },
    }
    ExplainFormat {
        long: "explain-format",
        arg: Req("FORMAT"),
        completion: "choices=text,json",
        help: "format of the explanation: text (default) or json",
        set: |o, a| {
            o.explain_format = match a.text() {
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
        },
    }
    ExplainKeep {
        long: "explain-keep",
        arg: Req("N"),
        completion: "integer",
        help: "with --explain=DIRECTORY, keep the newest N explanations there and remove older ones (0: keep all) [1000]",
        set: |o, a| {
            let text = a.text();
            let n = text.parse::<i64>().map_err(|_| {
                format!("'{text}' is not a number of explanations to keep (0 keeps them all)")
            })?;
            o.explain_keep = usize::try_from(n)
                .map_err(|_| format!("{n} is negative; 0 keeps every explanation"))?;
        },
    }
    Report {
        long: "report",
        arg: Req("FILE"),
        completion: "file",
        help: "also write the plan as a self-contained HTML page to FILE: each node's memory, disk, vCPUs and spindles before and after, the score's components and the moves (the normal output is unchanged)",
        set: |o, a| o.report = Some(a.writable_file("FILE")?),
    }
    PrintCost {
        long: "print-cost",
        arg: Flag,
        completion: "none",
        help: "print what the plan costs: the disk data it copies, the memory it migrates, its migrations, failovers and disk replacements, its job sets and their estimated time",
        set: |o, a| o.print_cost = a.switch()?,
    }
    ResyncRate {
        long: "resync-rate",
        arg: Req("RATE"),
        completion: "string",
        help: "the DRBD resync rate the plan's time is estimated at, per second (MiB, or with a unit: m, g binary, M, G decimal) [60: Ganeti's resync-rate default, 61440 KiB/s]",
        set: |o, a| o.rates.resync = a.rate()?,
    }
    MigrationBandwidth {
        long: "migration-bandwidth",
        arg: Req("RATE"),
        completion: "string",
        help: "the live-migration bandwidth the plan's time is estimated at, per second (MiB, or with a unit) [32: Ganeti's KVM migration_bandwidth default]",
        set: |o, a| o.rates.migration = a.rate()?,
    }

    // Carrying the plan out.
    Exec {
        short: 'X',
        long: "exec",
        arg: Flag,
        completion: "none",
        help: "execute the suggested moves via Luxi (only available when using it for data gathering)",
        set: |o, a| o.exec = a.switch()?,
    }
    FirstJobGroup {
        long: "first-job-group",
        arg: Flag,
        completion: "none",
        help: "only execute the first group of jobs",
        set: |o, a| o.first_job_group = a.switch()?,
    }
    Reason {
        long: "reason",
        arg: Req("REASON"),
        completion: "none",
        help: "The reason to pass to the submitted jobs",
        set: |o, a| o.reason = Some(a.owned()),
    }
    Priority {
        long: "priority",
        arg: Req("PRIO"),
        completion: "choices=low,normal,high",
        help: "set the priority of submitted jobs [normal]",
        set: |o, a| {
            o.priority = match a.text() {
                "low" => 10,
                "normal" => 0,
                "high" => -10,
                // hbal's words, then the valid values.
                text => {
                    return Err(format!(
                        "Unknown priority '{text}'\nthe priorities are low, normal or high"
                    ))
                }
            };
        },
    }
    JobDelay {
        long: "job-delay",
        arg: Req("SECONDS"),
        completion: "float",
        help: "wait this many seconds before each repair job runs, so that the other instances are processed meanwhile [10]",
        set: |o, a| o.job_delay = a.double("job delay")?,
    }
    DryRun {
        long: "dry-run",
        arg: Flag,
        completion: "none",
        help: "do not execute any commands and just report what would be done",
        set: |o, a| o.dry_run = a.switch()?,
    }
    Root {
        long: "root",
        arg: Req("DIR"),
        completion: "dir",
        help: "the root of the file system whose names to switch (default /; for trying it out in a copy)",
        set: |o, a| o.root = a.owned(),
    }
    Shadow {
        long: "shadow",
        arg: Flag,
        completion: "none",
        help: "with enable: keep running the originals, and run hailstone's program beside each of hbal, hsqueeze, hspace, hcheck, hinfo and hroller, recording where they differ (hailstone-shadow report); harep and hscan stay the originals",
        set: |o, a| o.htools_shadow = a.switch()?,
    }

    // hailstone-shadow's.
    Reference {
        long: "reference",
        arg: Req("PATH"),
        completion: "file",
        help: "the allocator hailstone is compared with [/usr/lib/ganeti/iallocators/hail]",
        set: |o, a| o.shadow.reference = a.nonempty("reference allocator")?,
    }
    ShadowHailstone {
        long: "hailstone",
        arg: Req("PATH"),
        completion: "file",
        help: "the hailstone allocator to run [hailstone in this program's folder]",
        set: |o, a| o.shadow.hailstone = Some(a.nonempty("hailstone allocator")?),
    }
    Primary {
        long: "primary",
        arg: Req("ALLOCATOR"),
        completion: "choices=hail,hailstone",
        help: "whose answer Ganeti gets: hail (the reference, default) or hailstone; the other one runs in the shadow",
        set: |o, a| {
            o.shadow.primary = match a.text() {
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
        },
    }
    RecordDir {
        long: "record-dir",
        arg: Req("DIR"),
        completion: "dir",
        help: "where each run is recorded [/var/log/ganeti/hailstone-shadow]",
        set: |o, a| o.shadow.record_dir = a.nonempty("record folder")?,
    }
    ShadowTimeout {
        long: "shadow-timeout",
        arg: Req("SECONDS"),
        completion: "float",
        help: "stop the allocator in the shadow after this many seconds [300]",
        set: |o, a| {
            let text = a.text();
            o.shadow.timeout = match text.parse::<f64>() {
                Ok(v) if v.is_finite() && v > 0.0 && v <= 86_400.0 => v,
                _ => {
                    return Err(format!(
                        "'{text}' is not a time limit: give seconds, more than 0 and at most 86400"
                    ))
                }
            };
        },
    }
    Keep {
        long: "keep",
        arg: Req("N"),
        completion: "integer",
        help: "keep the newest N records, remove older ones (0: no limit) [1000]",
        set: |o, a| {
            let text = a.text();
            o.shadow.keep = text.parse::<usize>().map_err(|_| {
                format!("'{text}' is not a number of records to keep (0 keeps them all)")
            })?;
        },
    }
    KeepSize {
        long: "keep-size",
        arg: Req("SIZE"),
        completion: "string",
        help: "keep at most SIZE of records, oldest removed first (bytes, or with K, M or G; 0: no limit) [512M]",
        set: |o, a| o.shadow.keep_size = a.size()?,
    }
    ShadowConfig {
        long: "config",
        arg: Req("FILE"),
        completion: "file",
        help: "read these settings from FILE first, one KEY=VALUE a line (a missing default file is no error) [/etc/ganeti/hailstone-shadow.conf]",
        set: |o, a| o.shadow.config = Some(a.nonempty("settings file")?),
    }

    // Every program's.
    Version {
        short: 'V',
        long: "version",
        arg: No,
        completion: "none",
        help: "show the version of the program",
        set: |o, _a| o.show_version = true,
    }
    Help {
        short: 'h',
        long: "help",
        arg: No,
        completion: "none",
        help: "show help",
        set: |o, _a| o.show_help = true,
    }
    HelpCompletion {
        long: "help-completion",
        arg: No,
        completion: "none",
        help: "show completion info",
        set: |o, _a| o.show_completion = true,
    }
}

/// `--ganeti-version` and `--n1-rule`: the Ganeti release to follow.
fn ganeti_version(text: &str) -> Result<GanetiVersion, String> {
    GanetiVersion::parse(text)
        .ok_or_else(|| format!("Invalid Ganeti version '{text}', pass one of '3.0' or '3.1'"))
}

/// `--disk-template`: hspace's words for an unknown template, then the
/// nearest and the valid ones.
fn disk_template(text: &str) -> Result<DiskTemplate, String> {
    DiskTemplate::from_raw(text).ok_or_else(|| {
        let names = DiskTemplate::ALL.map(DiskTemplate::raw);
        let near = suggest::nearest(text, names)
            .map(|n| format!("did you mean {n}? "))
            .unwrap_or_default();
        format!(
            "Invalid string value for type DiskTemplate: {}\n{near}the disk templates are {}",
            show_string(text),
            suggest::one_of(&names)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each option's row is its own, and no two rows share a name or a
    /// letter.
    #[test]
    fn one_row_per_option_and_name() {
        for (i, a) in Opt::ALL.iter().map(|o| o.descr()).enumerate() {
            assert_eq!(a.id, Opt::ALL[i], "--{} is another option's row", a.long);
            for b in Opt::ALL[i + 1..].iter().map(|o| o.descr()) {
                assert_ne!(a.long, b.long);
                if a.short.is_some() {
                    assert_ne!(a.short, b.short, "-{:?} twice", a.short);
                }
            }
        }
    }

    /// A value reaches the field its option names, and a bad one is
    /// refused with the option's message.
    #[test]
    fn values_reach_their_settings() {
        let mut o = super::super::Options::default();
        Opt::MinGain.apply(&mut o, Some("0.5")).unwrap();
        Opt::NoDiskMoves.apply(&mut o, None).unwrap();
        Opt::Verbose.apply(&mut o, None).unwrap();
        Opt::Simulate.apply(&mut o, Some("a")).unwrap();
        Opt::Simulate.apply(&mut o, Some("b")).unwrap();
        assert_eq!(o.min_gain, 0.5);
        assert!(!o.disk_moves);
        assert_eq!(o.verbose, 2);
        assert_eq!(o.simulate, ["b", "a"]);
        assert_eq!(
            Opt::Json.apply(&mut o, Some("maybe")),
            Err(
                "Invalid value 'maybe' for --json, pass one of 'yes', 'no', 'true' or 'false'"
                    .to_owned()
            )
        );
    }

    /// Adding an option only hailstone has never changes what an
    /// abbreviation of the original's options means: on every program,
    /// every prefix of an original's long name scans to the same option
    /// (or the same ambiguity, listing the same options) with the
    /// program's whole table as with the original's options alone.
    #[test]
    fn own_options_leave_the_originals_abbreviations_alone() {
        use crate::program::cli::getopt::scan;
        use std::ffi::OsString;
        let mut checked = 0;
        for program in crate::program::PROGRAMS {
            let whole = program.table();
            let originals: Vec<_> = whole.iter().filter(|o| !o.own).cloned().collect();
            for opt in &originals {
                for end in 1..=opt.long.len() {
                    let arg = [OsString::from(format!("--{}", &opt.long[..end]))];
                    let (a, b) = (scan(&whole, &arg), scan(&originals, &arg));
                    let ids = |s: &crate::program::cli::getopt::Scan<Opt>| {
                        s.given.iter().map(|g| g.id).collect::<Vec<_>>()
                    };
                    assert_eq!(ids(&a), ids(&b), "{} {:?}", program.name, arg);
                    assert_eq!(a.errors, b.errors, "{} {:?}", program.name, arg);
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }
}
