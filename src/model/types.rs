//! The small value types of the cluster model: disk templates, allocation
//! policies, instance policies (ipolicy), run states, failure modes and
//! the Ganeti release whose semantics apply.
//!
//! Names follow Ganeti's vocabulary (`Ganeti.Types`, `Ganeti.HTools.Types`);
//! enum variant order follows Ganeti's where it is observable (failure
//! tallies in `info`, policy sorting of groups).

use std::fmt;

/// A disk template, in Ganeti's declaration order (`DTDiskless` … `DTGluster`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DiskTemplate {
    Diskless,
    File,
    SharedFile,
    Plain,
    Blockdev,
    Drbd,
    Rbd,
    Ext,
    Gluster,
}

impl DiskTemplate {
    /// Every template, in declaration order.
    pub const ALL: [DiskTemplate; 9] = [
        DiskTemplate::Diskless,
        DiskTemplate::File,
        DiskTemplate::SharedFile,
        DiskTemplate::Plain,
        DiskTemplate::Blockdev,
        DiskTemplate::Drbd,
        DiskTemplate::Rbd,
        DiskTemplate::Ext,
        DiskTemplate::Gluster,
    ];

    /// The name on the wire (`"drbd"`, `"plain"`, …).
    pub fn raw(self) -> &'static str {
        match self {
            DiskTemplate::Diskless => "diskless",
            DiskTemplate::File => "file",
            DiskTemplate::SharedFile => "sharedfile",
            DiskTemplate::Plain => "plain",
            DiskTemplate::Blockdev => "blockdev",
            DiskTemplate::Drbd => "drbd",
            DiskTemplate::Rbd => "rbd",
            DiskTemplate::Ext => "ext",
            DiskTemplate::Gluster => "gluster",
        }
    }

    /// Parses the wire name.
    pub fn from_raw(s: &str) -> Option<DiskTemplate> {
        DiskTemplate::ALL.into_iter().find(|t| t.raw() == s)
    }

    /// Ganeti's Haskell constructor name, as it appears in `show` output.
    pub fn constructor(self) -> &'static str {
        match self {
            DiskTemplate::Diskless => "DTDiskless",
            DiskTemplate::File => "DTFile",
            DiskTemplate::SharedFile => "DTSharedFile",
            DiskTemplate::Plain => "DTPlain",
            DiskTemplate::Blockdev => "DTBlock",
            DiskTemplate::Drbd => "DTDrbd8",
            DiskTemplate::Rbd => "DTRbd",
            DiskTemplate::Ext => "DTExt",
            DiskTemplate::Gluster => "DTGluster",
        }
    }

    /// How the template's storage is mirrored (`templateMirrorType`).
    pub fn mirror_type(self) -> MirrorType {
        match self {
            DiskTemplate::Drbd => MirrorType::Internal,
            DiskTemplate::Plain | DiskTemplate::File => MirrorType::None,
            _ => MirrorType::External,
        }
    }

    /// Whether the instance's disks live on the nodes' local volume group
    /// and so consume node disk (`usesLocalStorage`: plain and drbd).
    pub fn uses_local_storage(self) -> bool {
        matches!(self, DiskTemplate::Plain | DiskTemplate::Drbd)
    }

    /// Whether the instance can be moved to another node without copying
    /// data (`diskTemplateMovable`): the shared-storage templates except
    /// blockdev.
    pub fn movable(self) -> bool {
        matches!(
            self,
            DiskTemplate::Diskless
                | DiskTemplate::SharedFile
                | DiskTemplate::Rbd
                | DiskTemplate::Ext
                | DiskTemplate::Gluster
        )
    }

    /// Whether the balancer may move instances of this template unless told
    /// otherwise (the `movable` flag `Instance.create` sets): drbd and the
    /// shared-storage templates, not plain, file or diskless.
    pub fn balancer_movable(self) -> bool {
        matches!(
            self,
            DiskTemplate::Drbd
                | DiskTemplate::Blockdev
                | DiskTemplate::SharedFile
                | DiskTemplate::Gluster
                | DiskTemplate::Rbd
                | DiskTemplate::Ext
        )
    }

    /// The number of nodes an instance of this template occupies.
    pub fn required_nodes(self) -> usize {
        if self == DiskTemplate::Drbd {
            2
        } else {
            1
        }
    }
}

/// Storage mirroring kind of a template (`MirrorType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MirrorType {
    /// No mirroring, the instance cannot move (plain, file).
    None,
    /// DRBD: a primary and a secondary node.
    Internal,
    /// Shared or external storage: any node with access can run it.
    External,
}

/// A node group's allocation policy; the order is Ganeti's preference order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum AllocPolicy {
    Preferred,
    LastResort,
    Unallocable,
}

impl AllocPolicy {
    /// The name on the wire.
    pub fn raw(self) -> &'static str {
        match self {
            AllocPolicy::Preferred => "preferred",
            AllocPolicy::LastResort => "last_resort",
            AllocPolicy::Unallocable => "unallocable",
        }
    }

    /// Parses the wire name.
    pub fn from_raw(s: &str) -> Option<AllocPolicy> {
        [
            AllocPolicy::Preferred,
            AllocPolicy::LastResort,
            AllocPolicy::Unallocable,
        ]
        .into_iter()
        .find(|p| p.raw() == s)
    }

    /// Ganeti's Haskell constructor name, as it appears in `show` output.
    pub fn constructor(self) -> &'static str {
        match self {
            AllocPolicy::Preferred => "AllocPreferred",
            AllocPolicy::LastResort => "AllocLastResort",
            AllocPolicy::Unallocable => "AllocUnallocable",
        }
    }
}

/// Node evacuation mode (`EvacMode`), with Ganeti's constructor names.
#[allow(clippy::enum_variant_names)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvacMode {
    /// `primary-only`: move the instances' primaries away.
    ChangePrimary,
    /// `secondary-only`: move the instances' secondaries away.
    ChangeSecondary,
    /// `all`: move both.
    ChangeAll,
}

impl EvacMode {
    /// Parses the wire name.
    pub fn from_raw(s: &str) -> Option<EvacMode> {
        match s {
            "primary-only" => Some(EvacMode::ChangePrimary),
            "secondary-only" => Some(EvacMode::ChangeSecondary),
            "all" => Some(EvacMode::ChangeAll),
            _ => None,
        }
    }
}

/// An instance's run state (`InstanceStatus`). The iallocator request
/// gives only `admin_state` (`up` is [`RunState::Running`], `down`
/// [`RunState::AdminDown`], `offline` [`RunState::AdminOffline`]); the
/// cluster data files carry all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunState {
    /// `running`; also any `admin_state` other than `down` and `offline`.
    Running,
    /// `ADMIN_down`.
    AdminDown,
    /// `ADMIN_offline`.
    AdminOffline,
    /// `ERROR_down`.
    ErrorDown,
    /// `ERROR_up`.
    ErrorUp,
    /// `ERROR_nodedown`.
    NodeDown,
    /// `ERROR_nodeoffline`.
    NodeOffline,
    /// `USER_down`.
    UserDown,
    /// `ERROR_wrongnode`.
    WrongNode,
}

impl RunState {
    /// Every status, in Ganeti's order.
    pub const ALL: [RunState; 9] = [
        RunState::Running,
        RunState::AdminDown,
        RunState::AdminOffline,
        RunState::ErrorDown,
        RunState::ErrorUp,
        RunState::NodeDown,
        RunState::NodeOffline,
        RunState::UserDown,
        RunState::WrongNode,
    ];

    /// The name in cluster data files (`instanceStatusToRaw`).
    pub fn raw(self) -> &'static str {
        match self {
            RunState::Running => "running",
            RunState::AdminDown => "ADMIN_down",
            RunState::AdminOffline => "ADMIN_offline",
            RunState::ErrorDown => "ERROR_down",
            RunState::ErrorUp => "ERROR_up",
            RunState::NodeDown => "ERROR_nodedown",
            RunState::NodeOffline => "ERROR_nodeoffline",
            RunState::UserDown => "USER_down",
            RunState::WrongNode => "ERROR_wrongnode",
        }
    }

    /// Parses the name in cluster data files.
    pub fn from_raw(s: &str) -> Option<RunState> {
        RunState::ALL.into_iter().find(|r| r.raw() == s)
    }

    /// Whether the instance runs (`isRunning`: `running` or `ERROR_up`).
    pub fn is_running(self) -> bool {
        matches!(self, RunState::Running | RunState::ErrorUp)
    }

    /// Whether the instance is administratively offline (`isOffline`).
    pub fn is_offline(self) -> bool {
        self == RunState::AdminOffline
    }

    /// Whether a placed instance of this state uses memory on its node
    /// (`usesMemory`, before the forthcoming check).
    pub fn uses_memory(self) -> bool {
        !matches!(
            self,
            RunState::AdminDown | RunState::AdminOffline | RunState::ErrorDown | RunState::UserDown
        )
    }
}

/// Whether a placement keeps the soft limits (Ganeti's `force` flag of
/// `Node.addPriEx` and `addSecExEx`): N+1 memory, the vCPU and spindle
/// ratios, exclusion tags and the instance policy. The hard limits (memory,
/// disk, CPU count) always hold.
///
/// The command line decides it once (`--ignore-soft-errors` gives
/// [`SoftChecks::Ignore`]); hail also ignores the soft limits for any move
/// away from an offline node ([`SoftChecks::ignored_if`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SoftChecks {
    /// Refuse a placement that breaks a soft limit.
    #[default]
    Enforce,
    /// Accept it (`force`).
    Ignore,
}

impl SoftChecks {
    /// [`SoftChecks::Ignore`] when `condition` holds, else `self`
    /// (hail's `force || condition`).
    pub fn ignored_if(self, condition: bool) -> SoftChecks {
        if condition {
            SoftChecks::Ignore
        } else {
            self
        }
    }
}

/// Why a placement was refused (`FailMode`), in Ganeti's order: the
/// failure tallies in `info` list the modes in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FailMode {
    Mem,
    Disk,
    Cpu,
    N1,
    Tags,
    Mig,
    DiskCount,
    Spindles,
    Internal,
}

impl FailMode {
    /// Every mode, in tally order.
    pub const ALL: [FailMode; 9] = [
        FailMode::Mem,
        FailMode::Disk,
        FailMode::Cpu,
        FailMode::N1,
        FailMode::Tags,
        FailMode::Mig,
        FailMode::DiskCount,
        FailMode::Spindles,
        FailMode::Internal,
    ];

    /// Ganeti's name for the mode (`FailMem`, …).
    pub fn name(self) -> &'static str {
        match self {
            FailMode::Mem => "FailMem",
            FailMode::Disk => "FailDisk",
            FailMode::Cpu => "FailCPU",
            FailMode::N1 => "FailN1",
            FailMode::Tags => "FailTags",
            FailMode::Mig => "FailMig",
            FailMode::DiskCount => "FailDiskCount",
            FailMode::Spindles => "FailSpindles",
            FailMode::Internal => "FailInternal",
        }
    }
}

impl fmt::Display for FailMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Counts of failed candidates per mode, in tally order: what a search
/// keeps instead of one record per refused candidate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FailTally {
    pub counts: [u64; 9],
}

impl FailTally {
    /// Records one failure.
    pub fn add(&mut self, mode: FailMode) {
        self.counts[mode as usize] += 1;
    }

    /// Records `n` failures of one mode.
    pub fn add_n(&mut self, mode: FailMode, n: u64) {
        self.counts[mode as usize] += n;
    }

    /// Takes back one recorded failure (a count computed for many
    /// candidates, corrected for one of them).
    pub fn remove(&mut self, mode: FailMode) {
        self.counts[mode as usize] -= 1;
    }

    /// Adds another tally.
    pub fn merge(&mut self, other: &FailTally) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += *b;
        }
    }

    /// Total number of failures.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// `FailMem: 3, FailDisk: 1`: the non-zero modes in tally order.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for mode in FailMode::ALL {
            let n = self.counts[mode as usize];
            if n > 0 {
                if !out.is_empty() {
                    out.push_str(", ");
                }
                out.push_str(mode.name());
                out.push_str(": ");
                out.push_str(&n.to_string());
            }
        }
        out
    }
}

/// A move of one instance (`Types.IMove`; hail's allocator uses the first
/// three, the balancer all six), its node named by `N`: a node's key in
/// the searches, its name where the move is printed or submitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IMove<N> {
    /// Swap primary and secondary of a drbd instance.
    Failover,
    /// Move a shared-storage instance's primary to the node.
    FailoverToAny(N),
    /// Give a drbd instance a new secondary node.
    ReplaceSecondary(N),
    /// A drbd instance's new primary is the node, its secondary stays
    /// (fail over, replace the secondary by the node, fail over).
    ReplacePrimary(N),
    /// The node becomes the new primary and the old primary the secondary
    /// (replace the secondary by the node, fail over).
    ReplaceAndFailover(N),
    /// The old secondary becomes the primary and the node the new
    /// secondary (fail over, replace the secondary by the node).
    FailoverAndReplace(N),
}

impl<N> IMove<N> {
    /// The node the move names (`None` for a failover).
    pub fn target(self) -> Option<N> {
        match self {
            IMove::Failover => None,
            IMove::FailoverToAny(t)
            | IMove::ReplaceSecondary(t)
            | IMove::ReplacePrimary(t)
            | IMove::ReplaceAndFailover(t)
            | IMove::FailoverAndReplace(t) => Some(t),
        }
    }

    /// The same move, its node borrowed.
    pub fn as_ref(&self) -> IMove<&N> {
        match self {
            IMove::Failover => IMove::Failover,
            IMove::FailoverToAny(t) => IMove::FailoverToAny(t),
            IMove::ReplaceSecondary(t) => IMove::ReplaceSecondary(t),
            IMove::ReplacePrimary(t) => IMove::ReplacePrimary(t),
            IMove::ReplaceAndFailover(t) => IMove::ReplaceAndFailover(t),
            IMove::FailoverAndReplace(t) => IMove::FailoverAndReplace(t),
        }
    }

    /// The same move with its node named by `f`.
    pub fn map<M>(self, f: impl FnOnce(N) -> M) -> IMove<M> {
        match self {
            IMove::Failover => IMove::Failover,
            IMove::FailoverToAny(t) => IMove::FailoverToAny(f(t)),
            IMove::ReplaceSecondary(t) => IMove::ReplaceSecondary(f(t)),
            IMove::ReplacePrimary(t) => IMove::ReplacePrimary(f(t)),
            IMove::ReplaceAndFailover(t) => IMove::ReplaceAndFailover(f(t)),
            IMove::FailoverAndReplace(t) => IMove::FailoverAndReplace(f(t)),
        }
    }
}

/// The Ganeti release whose htools' semantics a program follows. Between
/// 3.0.2 and 3.1.0 two things change: a node's initial N+1 flag (Ganeti
/// commit 3c45a5c27, `Loader.updateMemStat`), applied by every reader's
/// merge, and the data file hscan saves (commit 837354e98: the cluster
/// as corrected, not as read), hailstone-scan's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GanetiVersion {
    /// 3.0.2: a node fails N+1 when its reported free memory is below its
    /// largest failover reservation (`Node.buildPeers`).
    #[default]
    V30,
    /// 3.1.0: when its unallocated memory (its memory less that of the
    /// node itself, of its primaries and of what the report misses) is at
    /// most that reservation.
    V31,
}

impl GanetiVersion {
    /// The release whose htools it follows, as `--version` names it.
    pub fn release(self) -> &'static str {
        match self {
            GanetiVersion::V30 => "3.0.2",
            GanetiVersion::V31 => "3.1.0",
        }
    }

    /// The version an option value names: `3.0` or `3.1`.
    pub fn parse(text: &str) -> Option<GanetiVersion> {
        match text {
            "3.0" => Some(GanetiVersion::V30),
            "3.1" => Some(GanetiVersion::V31),
            _ => None,
        }
    }
}
