//! Every option of every hailstone program, each defined once (Ganeti's
//! `CLI.hs`): its letters, long name, argument, help text and completion
//! kind. A program takes a list of them ([`super::Program`]); what a value
//! does to the settings is [`super::options`]'.
//!
//! The help texts say what the option does here: the originals' wording
//! where it is right, corrected where it was wrong (`-e`, `-p`, `-S`); a
//! program gives its own text for an option whose meaning it narrows
//! ([`super::Use::help`]).

use super::getopt::{ArgKind, OptDescr};

/// An option, whatever name it was given by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opt {
    // Where the cluster comes from.
    TextData,
    IallocSrc,
    Luxi,
    Master,
    Simulate,
    StaticKvmNodeMemory,
    GanetiVersion,
    N1Rule,
    Offline,
    DynuFile,
    IgnoreDynu,
    Mond,
    MondData,
    MondXen,
    ExitOnMissingMondData,
    // What the algorithms may do.
    IgnoreSoftErrors,
    NoCapacityChecks,
    RestrictAllocationTo,
    InterGroupEvacuation,
    Group,
    MaxLength,
    MinScore,
    MaxCpu,
    MinDisk,
    MinGain,
    MinGainLimit,
    NoDiskMoves,
    NoInstanceMoves,
    EvacMode,
    RestrictedMigration,
    SelectInstances,
    ExcludeInstances,
    ExclusionTags,
    MinimalResources,
    TargetResources,
    Evacuate,
    IndependentGroups,
    NoSimulation,
    TrueCounts,
    OfflineMaintenance,
    NodeTags,
    FullEvacuation,
    SkipNonRedundant,
    IgnoreNonRedundant,
    OneStepOnly,
    Force,
    PrintMoves,
    SharedStorageMovable,
    RebootCommand,
    AcceptExistingErrors,
    DiskTemplate,
    SpindleUse,
    StandardAlloc,
    TieredAlloc,
    AllocatorModel,
    MaxCopy,
    // What is printed or saved.
    PrintNodes,
    PrintInstances,
    PrintCommands,
    Save,
    OutputDir,
    Verbose,
    Quiet,
    NoHeaders,
    MachineReadable,
    Json,
    Explain,
    ExplainFormat,
    ExplainKeep,
    Report,
    PrintCost,
    ResyncRate,
    MigrationBandwidth,
    // Carrying the plan out.
    Exec,
    FirstJobGroup,
    Reason,
    Priority,
    JobDelay,
    DryRun,
    Root,
    Shadow,
    // hailstone-shadow's.
    Reference,
    ShadowHailstone,
    Primary,
    RecordDir,
    ShadowTimeout,
    Keep,
    KeepSize,
    ShadowConfig,
    // Every program's.
    Version,
    Help,
    HelpCompletion,
}

/// One row of the table.
const fn row(
    id: Opt,
    short: Option<char>,
    long: &'static str,
    kind: ArgKind,
    help: &'static str,
    completion: &'static str,
) -> OptDescr<Opt> {
    OptDescr {
        id,
        short,
        long,
        kind,
        help,
        completion,
    }
}

use ArgKind::{Flag, No, Opt as Optional, Req};

/// The table: each option once. A `Flag` is a switch that, in a program
/// whose switches take values ([`super::Program::flag_values`]), also
/// accepts `=yes|no|true|false`; elsewhere it is a plain `NoArg`.
#[rustfmt::skip]
pub const TABLE: &[OptDescr<Opt>] = &[
    row(Opt::TextData, Some('t'), "text-data", Req("FILE"), "the cluster data FILE", "file"),
    row(Opt::IallocSrc, Some('I'), "ialloc-src", Req("FILE"), "read the cluster from the iallocator request FILE", "file"),
    row(Opt::Luxi, Some('L'), "luxi", Optional("SOCKET"), "collect data via Luxi, optionally using the given SOCKET path [/var/run/ganeti/socket/ganeti-query]", "file"),
    row(Opt::Master, Some('m'), "master", Req("ADDRESS"), "collect data via RAPI at the given ADDRESS", "host"),
    row(Opt::Simulate, None, "simulate", Req("SPEC"), "simulate an empty node group of identical nodes, given as 'policy,nodes,disk,memory,cpus[,spindles[,exclusive_storage]]' (policy p, a or u: preferred, last_resort, unallocable; sizes in MiB or with a unit: m, g, t binary, M, G, T decimal; exclusive_storage True or False); repeat it for more groups", "string"),
    row(Opt::StaticKvmNodeMemory, None, "static-kvm-node-memory", Req("N"), "use static node memory [in MB] on KVM instead of value reported by hypervisor. Use 0 to take value reported from hypervisor. [4096]", "integer"),
    row(Opt::GanetiVersion, None, "ganeti-version", Req("VERSION"), "follow Ganeti VERSION's htools: 3.0 (3.0.2, default) or 3.1 (3.1.0: a node's initial N+1 state from its unallocated memory)", "choices=3.0,3.1"),
    row(Opt::N1Rule, None, "n1-rule", Req("RULE"), "the former name of --ganeti-version", "choices=3.0,3.1"),
    row(Opt::Offline, Some('O'), "offline", Req("NODE"), "set node as offline", "onenode"),
    row(Opt::DynuFile, Some('U'), "dynu-file", Req("FILE"), "Import dynamic utilisation data from the given FILE", "file"),
    row(Opt::IgnoreDynu, None, "ignore-dynu", Flag, "Ignore any dynamic utilisation information", "none"),
    row(Opt::Mond, None, "mond", Optional("CHOICE"), "pass either 'yes' or 'no' to query all monDs [no]", "choices=yes,no"),
    row(Opt::MondData, None, "mond-data", Req("FILE"), "Import data provided by MonDs from the given FILE", "file"),
    row(Opt::MondXen, None, "mond-xen", Flag, "also consider xen-specific collectors in MonD queries", "none"),
    row(Opt::ExitOnMissingMondData, None, "exit-on-missing-mond-data", Flag, "abort if the data available from the monitoring daemons is incomplete", "none"),
    row(Opt::IgnoreSoftErrors, None, "ignore-soft-errors", Flag, "ignore soft policy violations (every instance-policy limit but the disk template) when balancing", "none"),
    row(Opt::NoCapacityChecks, None, "no-capacity-checks", Flag, "disable capacity checks (like global N+1 redundancy)", "none"),
    row(Opt::RestrictAllocationTo, None, "restrict-allocation-to", Req("NODE,..."), "Restrict allocations to the given set of nodes", "manynodes"),
    row(Opt::InterGroupEvacuation, None, "inter-group-evacuation", Flag, "node-evacuate: move an instance that fits nowhere in its own group to another group sharing its storage pool (Ganeti runs the jobs of a group change)", "none"),
    row(Opt::Group, Some('G'), "group", Req("ID"), "the target node group (name or UUID)", "onegroup"),
    row(Opt::MaxLength, Some('l'), "max-length", Req("N"), "cap the solution at this many balancing or allocation rounds (useful for very unbalanced clusters or empty clusters) [-1: no limit]", "integer"),
    row(Opt::MinScore, Some('e'), "min-score", Req("EPSILON"), "stop once the score is within EPSILON of the best score N+1 allows [1e-9]", "float"),
    row(Opt::MaxCpu, None, "max-cpu", Req("RATIO"), "maximum virtual-to-physical cpu ratio for nodes (from 0 upwards) [default read from cluster]", "float"),
    row(Opt::MinDisk, None, "min-disk", Req("RATIO"), "minimum free disk space for nodes (between 0 and 1) [0]", "float"),
    row(Opt::MinGain, Some('g'), "min-gain", Req("DELTA"), "minimum gain to aim for in a balancing step before giving up [0.01]", "float"),
    row(Opt::MinGainLimit, None, "min-gain-limit", Req("SCORE"), "minimum cluster score for which we start checking the min-gain [0.1]", "float"),
    row(Opt::NoDiskMoves, None, "no-disk-moves", Flag, "disallow disk moves from the list of allowed instance changes, thus allowing only the 'cheap' failover/migrate operations", "none"),
    row(Opt::NoInstanceMoves, None, "no-instance-moves", Flag, "move no primary: only change secondaries (slower drbd copies, but the instances keep running where they are)", "none"),
    row(Opt::EvacMode, Some('E'), "evac-mode", Flag, "enable evacuation mode, where the algorithm only moves instances away from offline and drained nodes", "none"),
    row(Opt::RestrictedMigration, None, "restricted-migration", Flag, "disallow replace-primary moves (aka frf-moves); in evacuation mode, this will ensure that the only migrations are off the drained nodes", "none"),
    row(Opt::SelectInstances, None, "select-instances", Req("INSTS"), "only select given instances for any moves", "manyinstances"),
    row(Opt::ExcludeInstances, None, "exclude-instances", Req("INSTS"), "exclude given instances from any moves", "manyinstances"),
    row(Opt::ExclusionTags, None, "exclusion-tags", Req("TAG,..."), "Enable instance exclusion based on given tag prefix", "string"),
    row(Opt::MinimalResources, None, "minimal-resources", Req("FACTOR"), "bring standby nodes online when some online node could not host one more instance of FACTOR times the policy's standard spec (memory, CPUs, spindles) [2.0]", "float"),
    row(Opt::TargetResources, None, "target-resources", Req("FACTOR"), "power nodes off only while every node left online could still host one more instance of FACTOR times the policy's standard spec (memory, CPUs, spindles) [2.0]", "float"),
    row(Opt::Evacuate, None, "evacuate", Flag, "compress: plan the emptying of the group that frees the most", "none"),
    row(Opt::IndependentGroups, None, "independent-groups", Flag, "count each node group on its own, as if it were the only one (by default the groups fill in allocation order)", "none"),
    row(Opt::NoSimulation, None, "no-simulation", Flag, "do not perform rebalancing simulation", "none"),
    row(Opt::TrueCounts, None, "true-counts", Flag, "count the instances whose secondary node is offline (hcheck counts the offline nodes), judge the final NEED_REBALANCE on the final figures (hcheck repeats the initial one), and name for each node that cannot be evacuated the instance that cannot leave and why", "none"),
    row(Opt::OfflineMaintenance, None, "offline-maintenance", Flag, "plan reboots for offline maintenance: take every instance as shut down, so no instance needs to move", "none"),
    row(Opt::NodeTags, None, "node-tags", Req("TAG,..."), "Restrict to nodes with the given tags", "string"),
    row(Opt::FullEvacuation, None, "full-evacuation", Flag, "fully evacuate the nodes to be rebooted", "none"),
    row(Opt::SkipNonRedundant, None, "skip-non-redundant", Flag, "Skip nodes that host a non-redundant instance", "none"),
    row(Opt::IgnoreNonRedundant, None, "ignore-non-redundant", Flag, "Pretend that there are no non-redundant instances in the cluster", "none"),
    row(Opt::OneStepOnly, None, "one-step-only", Flag, "Only do the first step", "none"),
    row(Opt::Force, Some('f'), "force", Flag, "force the execution of this program, even if warnings would otherwise prevent it", "none"),
    row(Opt::PrintMoves, None, "print-moves", Flag, "print the moves of the instances", "none"),
    row(Opt::SharedStorageMovable, None, "shared-storage-movable", Flag, "treat instances on shared storage (ext, rbd, sharedfile, gluster, diskless) as movable by live migration: --skip-non-redundant keeps the nodes that hold them", "none"),
    row(Opt::RebootCommand, None, "reboot-command", Req("CMD"), "with -X, reboot each node of a group by running CMD with /bin/sh, the node's name as $1; it returns once the node is back (without it, -X waits for the operator at the terminal)", "none"),
    row(Opt::AcceptExistingErrors, None, "accept-existing-errors", Flag, "Accept existing N+1 violations; just don't add new ones", "none"),
    row(Opt::DiskTemplate, None, "disk-template", Req("TEMPLATE"), "select the desired disk template [default read from cluster]", "choices=diskless,file,sharedfile,plain,blockdev,drbd,rbd,ext,gluster"),
    row(Opt::SpindleUse, None, "spindle-use", Req("SPINDLES"), "select how many virtual spindle instances use [default read from cluster]", "float"),
    row(Opt::StandardAlloc, None, "standard-alloc", Req("STDSPEC"), "enable standard specs allocation, given as 'disk,ram,cpu' [default read from cluster]", "string"),
    row(Opt::TieredAlloc, None, "tiered-alloc", Req("TSPEC"), "enable tiered specs allocation, given as 'disk,ram,cpu' [default read from cluster]", "string"),
    row(Opt::AllocatorModel, None, "allocator-model", Flag, "count what the allocator itself would accept, one instance at a time (its group choice, the global N+1 check for every template, the lost-allocations metric on exclusive storage) instead of hspace's count", "none"),
    row(Opt::MaxCopy, None, "max-copy", Req("SIZE"), "choose the moves that lower the score most for the data they copy, and copy at most SIZE of disk in all (MiB, or with a unit: m, g, t binary, M, G, T decimal; 0: only migrations and failovers) [no limit: hbal's plan]", "string"),
    row(Opt::PrintNodes, Some('p'), "print-nodes", Optional("FIELDS"), "print the node table before and after, on stderr (FIELDS: the columns, comma-separated; +FIELD,... adds to the default ones)", "none"),
    row(Opt::PrintInstances, None, "print-instances", Flag, "print the instance map before and after, on stderr", "none"),
    row(Opt::PrintCommands, Some('C'), "print-commands", Optional("FILE"), "print the ganeti command list for reaching the solution, if an argument is passed then write the commands to a file named as such", "none"),
    row(Opt::Save, Some('S'), "save", Req("FILE"), "save the cluster before and after as data files (FILE.original and FILE.<what was done>)", "none"),
    row(Opt::OutputDir, Some('d'), "output-dir", Req("PATH"), "directory in which to write output files [.]", "dir"),
    row(Opt::Verbose, Some('v'), "verbose", No, "increase the verbosity level", "none"),
    row(Opt::Quiet, Some('q'), "quiet", No, "decrease the verbosity level", "none"),
    row(Opt::NoHeaders, None, "no-headers", Flag, "do not show a header line", "none"),
    row(Opt::MachineReadable, None, "machine-readable", Optional("CHOICE"), "enable machine readable output (pass either 'yes' or 'no' to explicitly control the flag, or without an argument defaults to yes)", "choices=yes,no"),
    row(Opt::Json, None, "json", Flag, "print the result as one JSON document on stdout instead of the text (schema: docs/json.md)", "none"),
    row(Opt::Explain, None, "explain", Optional("PATH"), "explain the answer (why each group, node and pair was refused or chosen) on stderr, in the file PATH, or in a new file in the directory PATH (made when missing: a PATH ending in / or without a dot in its last name)", "none"),
    row(Opt::ExplainFormat, None, "explain-format", Req("FORMAT"), "format of the explanation: text (default) or json", "choices=text,json"),
    row(Opt::ExplainKeep, None, "explain-keep", Req("N"), "with --explain=DIRECTORY, keep the newest N explanations there and remove older ones (0: keep all) [1000]", "integer"),
    row(Opt::Report, None, "report", Req("FILE"), "also write the plan as a self-contained HTML page to FILE: each node's memory, disk, vCPUs and spindles before and after, the score's components and the moves (the normal output is unchanged)", "file"),
    row(Opt::PrintCost, None, "print-cost", Flag, "print what the plan costs: the disk data it copies, the memory it migrates, its migrations, failovers and disk replacements, its job sets and their estimated time", "none"),
    row(Opt::ResyncRate, None, "resync-rate", Req("RATE"), "the DRBD resync rate the plan's time is estimated at, per second (MiB, or with a unit: m, g binary, M, G decimal) [60: Ganeti's resync-rate default, 61440 KiB/s]", "string"),
    row(Opt::MigrationBandwidth, None, "migration-bandwidth", Req("RATE"), "the live-migration bandwidth the plan's time is estimated at, per second (MiB, or with a unit) [32: Ganeti's KVM migration_bandwidth default]", "string"),
    row(Opt::Exec, Some('X'), "exec", Flag, "execute the suggested moves via Luxi (only available when using it for data gathering)", "none"),
    row(Opt::FirstJobGroup, None, "first-job-group", Flag, "only execute the first group of jobs", "none"),
    row(Opt::Reason, None, "reason", Req("REASON"), "The reason to pass to the submitted jobs", "none"),
    row(Opt::Priority, None, "priority", Req("PRIO"), "set the priority of submitted jobs [normal]", "choices=low,normal,high"),
    row(Opt::JobDelay, None, "job-delay", Req("SECONDS"), "wait this many seconds before each repair job runs, so that the other instances are processed meanwhile [10]", "float"),
    row(Opt::DryRun, None, "dry-run", Flag, "do not execute any commands and just report what would be done", "none"),
    row(Opt::Root, None, "root", Req("DIR"), "the root of the file system whose names to switch (default /; for trying it out in a copy)", "dir"),
    row(Opt::Shadow, None, "shadow", Flag, "with enable: keep running the originals, and run hailstone's program beside each of hbal, hsqueeze, hspace, hcheck, hinfo and hroller, recording where they differ (hailstone-shadow report); harep and hscan stay the originals", "none"),
    row(Opt::Reference, None, "reference", Req("PATH"), "the allocator hailstone is compared with [/usr/lib/ganeti/iallocators/hail]", "file"),
    row(Opt::ShadowHailstone, None, "hailstone", Req("PATH"), "the hailstone allocator to run [hailstone in this program's folder]", "file"),
    row(Opt::Primary, None, "primary", Req("ALLOCATOR"), "whose answer Ganeti gets: hail (the reference, default) or hailstone; the other one runs in the shadow", "choices=hail,hailstone"),
    row(Opt::RecordDir, None, "record-dir", Req("DIR"), "where each run is recorded [/var/log/ganeti/hailstone-shadow]", "dir"),
    row(Opt::ShadowTimeout, None, "shadow-timeout", Req("SECONDS"), "stop the allocator in the shadow after this many seconds [300]", "float"),
    row(Opt::Keep, None, "keep", Req("N"), "keep the newest N records, remove older ones (0: no limit) [1000]", "integer"),
    row(Opt::KeepSize, None, "keep-size", Req("SIZE"), "keep at most SIZE of records, oldest removed first (bytes, or with K, M or G; 0: no limit) [512M]", "string"),
    row(Opt::ShadowConfig, None, "config", Req("FILE"), "read these settings from FILE first, one KEY=VALUE a line (a missing default file is no error) [/etc/ganeti/hailstone-shadow.conf]", "file"),
    row(Opt::Version, Some('V'), "version", No, "show the version of the program", "none"),
    row(Opt::Help, Some('h'), "help", No, "show help", "none"),
    row(Opt::HelpCompletion, None, "help-completion", No, "show completion info", "none"),
];

/// The table's row of `opt` (the table is in the order of [`Opt`]).
pub fn descr(opt: Opt) -> &'static OptDescr<Opt> {
    &TABLE[opt as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each option has exactly one row, at its place in [`Opt`]'s order,
    /// and no two rows share a name or a letter.
    #[test]
    fn one_row_per_option_and_name() {
        assert_eq!(TABLE.len(), Opt::HelpCompletion as usize + 1);
        for (i, a) in TABLE.iter().enumerate() {
            assert_eq!(a.id as usize, i, "--{} is out of place", a.long);
            for b in &TABLE[i + 1..] {
                assert_ne!(a.long, b.long);
                if a.short.is_some() {
                    assert_ne!(a.short, b.short, "-{:?} twice", a.short);
                }
            }
        }
    }
}
