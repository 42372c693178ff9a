//! Instance policies (ipolicy): the per-group bounds on instance size and
//! the allowed disk templates, and the check of an instance against them
//! (`Instance.instMatchesPolicy`).

use super::instance::{Disk, Instance};
use super::refusal::{Check, PolicyBound, PolicyResource, Refusal};
use super::types::{DiskTemplate, FailMode};

/// One instance specification bound (`ISpec`), all in Ganeti units (MiB,
/// counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ISpec {
    pub memory_size: i64,
    pub cpu_count: i64,
    pub disk_size: i64,
    pub disk_count: i64,
    pub nic_count: i64,
    pub spindle_use: i64,
}

/// A resource spec (`Types.RSpec`): what one instance of a capacity
/// calculation takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RSpec {
    pub cpu: i64,
    pub mem: i64,
    pub dsk: i64,
    pub spn: i64,
}

impl RSpec {
    /// `rspecFromISpec`: an instance policy spec's CPUs, memory, disk size
    /// and spindle use.
    pub fn from_ispec(s: &ISpec) -> RSpec {
        RSpec {
            cpu: s.cpu_count,
            mem: s.memory_size,
            dsk: s.disk_size,
            spn: s.spindle_use,
        }
    }

    /// `specOf`: an instance's spec (its spindles when it has one disk
    /// with them, else 0).
    pub fn of(inst: &Instance) -> RSpec {
        let spn = match &inst.disks[..] {
            [Disk {
                spindles: Some(s), ..
            }] => *s,
            _ => 0,
        };
        RSpec {
            cpu: inst.vcpus,
            mem: inst.mem,
            dsk: inst.dsk,
            spn,
        }
    }

    /// `instFromSpec`: the instance hspace places for this spec: named
    /// `new`, one disk of the spec's size and spindles, running,
    /// auto-balanced.
    pub fn instance(&self, template: DiskTemplate, spindle_use: i64) -> Instance {
        let mut inst = Instance::for_calculation(
            "new",
            self.mem,
            self.dsk,
            self.cpu,
            spindle_use,
            template,
            true,
        );
        inst.disks = std::sync::Arc::from([Disk {
            size: self.dsk,
            spindles: Some(self.spn),
        }]);
        inst.util = [1.0; 4];
        inst
    }
}

/// One `{min, max}` pair of an instance policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MinMaxISpecs {
    pub min: ISpec,
    pub max: ISpec,
}

/// A node group's instance policy (`IPolicy`).
#[derive(Debug, Clone, PartialEq)]
pub struct IPolicy {
    /// The allowed ranges; an instance must fit at least one. Empty means
    /// no range constraint.
    pub minmax: Vec<MinMaxISpecs>,
    /// The standard spec; parsed for completeness, unused by hail.
    pub std: ISpec,
    /// The templates instances of the group may use.
    pub disk_templates: Vec<DiskTemplate>,
    /// Maximum ratio of virtual to physical CPUs.
    pub vcpu_ratio: f64,
    /// Maximum ratio of used to physical spindles.
    pub spindle_ratio: f64,
}

impl IPolicy {
    /// Ganeti's default instance policy (`defIPolicy`): one min/max pair
    /// (128 MiB, 1 CPU, 1 GiB, 1 disk, 1 NIC, 1 spindle up to 32 GiB,
    /// 8 CPUs, 1 TiB, 16 disks, 8 NICs, 12 spindles), the minimum as the
    /// standard spec, every disk template, vCPU ratio 4 and spindle ratio
    /// 32. Cluster data files fill in what they do not give with it.
    pub fn ganeti_default() -> IPolicy {
        let min = ISpec {
            memory_size: 128,
            cpu_count: 1,
            disk_size: 1024,
            disk_count: 1,
            nic_count: 1,
            spindle_use: 1,
        };
        let max = ISpec {
            memory_size: 32768,
            cpu_count: 8,
            disk_size: 1024 * 1024,
            disk_count: 16,
            nic_count: 8,
            spindle_use: 12,
        };
        IPolicy {
            minmax: vec![MinMaxISpecs { min, max }],
            std: min,
            disk_templates: DiskTemplate::ALL.to_vec(),
            vcpu_ratio: 4.0,
            spindle_ratio: 32.0,
        }
    }
}

impl PolicyBound {
    /// Whether `value` violates the bound `limit`.
    fn violated(self, value: i64, limit: i64) -> bool {
        match self {
            PolicyBound::Min => value < limit,
            PolicyBound::Max => value > limit,
        }
    }
}

/// Checks one bound (`instCompareISpec`), failing with the first offending
/// resource in hail's order: memory, any disk size, vcpus, spindles, disk
/// count (not for diskless). `nic-count` is never checked. `pair` is the
/// spec pair's position, for the refusal.
fn check_bound(
    inst: &Instance,
    spec: &ISpec,
    bound: PolicyBound,
    excl_storage: bool,
    pair: usize,
) -> Result<(), Refusal> {
    let fail = |mode, resource, value, limit| {
        Err(Refusal::now(
            mode,
            Check::Policy {
                pair,
                bound,
                resource,
                value,
                limit,
            },
        ))
    };
    if bound.violated(inst.mem, spec.memory_size) {
        return fail(
            FailMode::Mem,
            PolicyResource::Memory,
            inst.mem,
            spec.memory_size,
        );
    }
    if let Some(d) = inst
        .disks
        .iter()
        .find(|d| bound.violated(d.size, spec.disk_size))
    {
        return fail(
            FailMode::Disk,
            PolicyResource::DiskSize,
            d.size,
            spec.disk_size,
        );
    }
    if bound.violated(inst.vcpus, spec.cpu_count) {
        return fail(
            FailMode::Cpu,
            PolicyResource::Cpus,
            inst.vcpus,
            spec.cpu_count,
        );
    }
    let spindles = if excl_storage {
        // Unknown spindles fail either bound.
        inst.total_spindles().ok_or_else(|| {
            let check = Check::Policy {
                pair,
                bound,
                resource: PolicyResource::Spindles,
                value: -1,
                limit: spec.spindle_use,
            };
            Refusal::now(FailMode::Spindles, check)
        })?
    } else {
        inst.spindle_use
    };
    if bound.violated(spindles, spec.spindle_use) {
        return fail(
            FailMode::Spindles,
            PolicyResource::Spindles,
            spindles,
            spec.spindle_use,
        );
    }
    let count = inst.disks.len() as i64;
    if inst.disk_template != DiskTemplate::Diskless && bound.violated(count, spec.disk_count) {
        return fail(
            FailMode::DiskCount,
            PolicyResource::DiskCount,
            count,
            spec.disk_count,
        );
    }
    Ok(())
}

/// Every comparison [`check_bound`] can make of `inst` against `spec`, in
/// its order, with its verdict (`None` for an unknown spindle count).
fn verdicts<'a>(
    inst: &'a Instance,
    spec: &'a ISpec,
    bound: PolicyBound,
    excl_storage: bool,
) -> impl Iterator<Item = Option<bool>> + 'a {
    let spindles = if excl_storage {
        inst.total_spindles()
    } else {
        Some(inst.spindle_use)
    };
    let count = (inst.disk_template != DiskTemplate::Diskless).then_some(inst.disks.len() as i64);
    [Some(inst.mem), Some(inst.vcpus), spindles, count]
        .into_iter()
        .zip([
            spec.memory_size,
            spec.cpu_count,
            spec.spindle_use,
            spec.disk_count,
        ])
        .chain(inst.disks.iter().map(|d| (Some(d.size), spec.disk_size)))
        .map(move |(value, limit)| value.map(|v| bound.violated(v, limit)))
}

/// Checks an instance against one min/max pair: the min bound first.
fn check_minmax(
    inst: &Instance,
    mm: &MinMaxISpecs,
    excl_storage: bool,
    pair: usize,
) -> Result<(), Refusal> {
    check_bound(inst, &mm.min, PolicyBound::Min, excl_storage, pair)?;
    check_bound(inst, &mm.max, PolicyBound::Max, excl_storage, pair)
}

impl IPolicy {
    /// Whether `inst` may be placed on a node with this policy and the
    /// given exclusive-storage flag (`instMatchesPolicy`). The instance must
    /// fit any one min/max pair (when all fail, the first pair's failure is
    /// reported), then its template must be allowed (else `FailDisk`).
    #[inline]
    pub fn check(&self, inst: &Instance, excl_storage: bool) -> Result<(), FailMode> {
        self.check_detail(inst, excl_storage).map_err(|r| r.mode)
    }

    /// Whether every comparison of the check (each resource against each
    /// bound of each pair, the template) comes out the same for `a` and
    /// `b`, instances of one template and as many disks: the check then
    /// refuses both the same way or neither. Each comparison is monotone
    /// in its resource, so two instances that differ in one resource and
    /// pass this have the same verdicts as every instance between them.
    pub fn same_verdicts(&self, a: &Instance, b: &Instance, excl_storage: bool) -> bool {
        a.disk_template == b.disk_template
            && a.disks.len() == b.disks.len()
            && self.minmax.iter().all(|mm| {
                [(&mm.min, PolicyBound::Min), (&mm.max, PolicyBound::Max)]
                    .into_iter()
                    .all(|(spec, bound)| {
                        verdicts(a, spec, bound, excl_storage).eq(verdicts(
                            b,
                            spec,
                            bound,
                            excl_storage,
                        ))
                    })
            })
    }

    /// [`IPolicy::check`] with the refused bound.
    pub fn check_detail(&self, inst: &Instance, excl_storage: bool) -> Result<(), Refusal> {
        if !self.minmax.is_empty() {
            let mut first_failure = None;
            for (pair, mm) in self.minmax.iter().enumerate() {
                match check_minmax(inst, mm, excl_storage, pair) {
                    Ok(()) => {
                        first_failure = None;
                        break;
                    }
                    Err(f) => {
                        if first_failure.is_none() {
                            first_failure = Some(f);
                        }
                    }
                }
            }
            if let Some(f) = first_failure {
                return Err(f);
            }
        }
        if self.disk_templates.contains(&inst.disk_template) {
            Ok(())
        } else {
            let template = inst.disk_template;
            Err(Refusal::now(
                FailMode::Disk,
                Check::PolicyTemplate { template },
            ))
        }
    }
}
