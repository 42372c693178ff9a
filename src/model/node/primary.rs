//! A primary instance on a node: `Node.addPriEx`'s checks in hail's order
//! as a probe ([`Node::probe_add_pri`]; [`Node::check_add_pri`] with the
//! refused check's numbers) and its commit ([`Node::commit_add_pri`]; both
//! in [`Node::add_pri`]), the metric's view after the probe
//! ([`Node::scalars_with_pri`]), whether the checks' sums wrap
//! ([`Node::add_pri_wraps`]), and `removePri` ([`Node::remove_pri`]), with
//! the exclusion-tag counts (`addTag`, `delTag`) and the
//! location-exclusion pairs a primary brings.
//!
//! * Owns: [`PriProbe`] and the node's primary placements.
//! * May use: the node's record and the arithmetic its placements share
//!   (`super`), the instance, the refusal's checks.
//! * Must never: allocate in a probe (the candidate search calls it in its
//!   hot loop); change what the node keeps for its secondaries (`peers`,
//!   `rMem`).

use smallvec::SmallVec;

use super::{delete_newest_first, truncate, unallocated_mem, Node, Scalars};
use crate::model::instance::Instance;
use crate::model::refusal::{Check, Refusal};
use crate::model::types::{FailMode, SoftChecks};
use crate::model::TagId;

/// The would-be state of a node after adding a primary instance, as
/// computed by [`Node::probe_add_pri`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PriProbe {
    /// Whether the instance is forthcoming (only the forthcoming mirrors
    /// and the tags change then).
    forthcoming: bool,
    i_mem: i64,
    fail_n1: bool,
    f_dsk: i64,
    f_spindles: i64,
    inst_spindles: f64,
    u_cpu: i64,
    location_delta: i64,
    conflicts_delta: i64,
    f_mem_forth: i64,
    f_dsk_forth: i64,
    f_spindles_forth: i64,
    inst_spindles_forth: f64,
    u_cpu_forth: i64,
    /// The instance's utilisation (`util`), added to the node's load.
    util: [f64; 4],
}

impl PriProbe {
    /// The same probe for the instance with `extra` more location score
    /// (the pair search probes a primary once, before knowing the
    /// secondary that sets the instance's location score).
    pub fn with_extra_location(mut self, extra: i64) -> PriProbe {
        if !self.forthcoming {
            self.location_delta += extra;
        }
        self
    }
}

/// Adds one to a tag count map (`addTag`).
fn add_tag<A: smallvec::Array<Item = (K, i64)>, K: PartialEq + Copy>(
    map: &mut SmallVec<A>,
    key: K,
) {
    match map.iter_mut().find(|(k, _)| *k == key) {
        Some((_, v)) => *v = v.wrapping_add(1),
        None => map.push((key, 1)),
    }
}

/// Removes one from a tag count map, dropping the key at zero (`delTag`).
fn del_tag<A: smallvec::Array<Item = (K, i64)>, K: PartialEq + Copy>(
    map: &mut SmallVec<A>,
    key: K,
) {
    if let Some(pos) = map.iter().position(|(k, _)| *k == key) {
        if map[pos].1 > 1 {
            map[pos].1 -= 1;
        } else {
            map.remove(pos);
        }
    }
}

impl Node {
    /// Change in conflicting-primaries count from adding the instance's
    /// exclusion tags.
    fn conflicts_delta(&self, inst: &Instance) -> i64 {
        let mut delta = 0;
        for (i, t) in inst.excl_tags.iter().enumerate() {
            if self.p_tags.iter().any(|(k, _)| k == t) || inst.excl_tags[..i].contains(t) {
                delta += 1;
            }
        }
        delta
    }

    /// Checks adding `inst` as a primary and computes the result
    /// (`addPriEx`). [`SoftChecks::Ignore`] skips the soft checks.
    #[inline]
    pub fn probe_add_pri(&self, soft: SoftChecks, inst: &Instance) -> Result<PriProbe, FailMode> {
        self.check_add_pri(soft, inst).map_err(|r| r.mode)
    }

    /// [`Node::probe_add_pri`] with the refused check's numbers.
    ///
    /// Every check compares an amount that grows with one resource of the
    /// instance (memory, disk, vCPUs, spindles) or with none, and fails
    /// when the amount is too large, as long as no sum wraps around
    /// ([`Node::add_pri_wraps`]): `search::space::steady` skips the sizes
    /// of the tiered count on that ground. A new check must keep it so and
    /// name its resource in `Check::grows_with`.
    #[inline]
    pub fn check_add_pri(&self, soft: SoftChecks, inst: &Instance) -> Result<PriProbe, Refusal> {
        let strict = soft == SoftChecks::Enforce;
        let uses_disk = inst.uses_local_storage();
        let l_cpu = self.vcpu_ratio;
        let online = inst.not_offline();
        let mem_need = if inst.uses_memory() { inst.mem } else { 0 };
        let now = Refusal::now;

        let f_mem_forth = self.f_mem_forth.wrapping_sub(inst.mem);
        let f_dsk_forth = if uses_disk {
            self.f_dsk_forth.wrapping_sub(inst.dsk)
        } else {
            self.f_dsk_forth
        };
        let f_spindles_forth = self.new_free_spindles(true, inst, self.f_spindles_forth);
        let inst_spindles_forth = self.new_inst_spindles(true, inst, self.inst_spindles_forth);
        let u_cpu_forth = if online {
            self.u_cpu_forth.wrapping_add(inst.vcpus)
        } else {
            self.u_cpu_forth
        };
        let forth_violation = || -> Option<Refusal> {
            let p_cpu_forth = u_cpu_forth as f64 / self.t_cpu;
            let (mode, check) = if f_mem_forth <= 0 {
                let (need, free) = (inst.mem, self.f_mem_forth);
                (FailMode::Mem, Check::Memory { need, free })
            } else if uses_disk && f_dsk_forth <= 0 {
                let (need, free) = (inst.dsk, self.f_dsk_forth);
                (FailMode::Disk, Check::Disk { need, free })
            } else if uses_disk && f_dsk_forth < self.lo_dsk {
                // loDsk is always 0 in hail.
                let (left, reserve) = (f_dsk_forth, self.lo_dsk);
                (FailMode::Disk, Check::DiskReserve { left, reserve })
            } else if uses_disk && self.excl_storage && f_spindles_forth < 0 {
                let free = self.f_spindles_forth;
                let need = free.wrapping_sub(f_spindles_forth);
                (FailMode::Spindles, Check::Spindles { need, free })
            } else if uses_disk && inst_spindles_forth > self.hi_spindles {
                (FailMode::Disk, self.spindle_ratio(inst_spindles_forth))
            } else if l_cpu >= 0.0 && l_cpu < p_cpu_forth {
                (FailMode::Cpu, self.vcpu_check(u_cpu_forth))
            } else {
                return None;
            };
            Some(Refusal::forthcoming(mode, check))
        };
        let conflicts_delta = self.conflicts_delta(inst);

        if inst.forthcoming {
            if strict {
                if let Some(f) = forth_violation() {
                    return Err(f);
                }
            }
            return Ok(PriProbe {
                forthcoming: true,
                i_mem: self.i_mem,
                fail_n1: self.fail_n1,
                f_dsk: self.f_dsk,
                f_spindles: self.f_spindles,
                inst_spindles: self.inst_spindles,
                u_cpu: self.u_cpu,
                location_delta: 0,
                conflicts_delta,
                f_mem_forth,
                f_dsk_forth,
                f_spindles_forth,
                inst_spindles_forth,
                u_cpu_forth,
                util: inst.util,
            });
        }

        let i_mem = self.i_mem.wrapping_add(mem_need);
        let new_free_mem = unallocated_mem(self.t_mem, self.n_mem, i_mem, self.x_mem);
        let fail_n1 = new_free_mem <= self.r_mem;
        let f_dsk = if uses_disk {
            self.f_dsk.wrapping_sub(inst.dsk)
        } else {
            self.f_dsk
        };
        let f_spindles = self.new_free_spindles(true, inst, self.f_spindles);
        let inst_spindles = self.new_inst_spindles(true, inst, self.inst_spindles);
        let u_cpu = if online {
            self.u_cpu.wrapping_add(inst.vcpus)
        } else {
            self.u_cpu
        };
        let p_cpu = u_cpu as f64 / self.t_cpu;

        if new_free_mem <= 0 {
            let free = self.unallocated_mem();
            return Err(now(
                FailMode::Mem,
                Check::Memory {
                    need: mem_need,
                    free,
                },
            ));
        }
        if uses_disk && f_dsk <= 0 {
            let (need, free) = (inst.dsk, self.f_dsk);
            return Err(now(FailMode::Disk, Check::Disk { need, free }));
        }
        if strict && uses_disk && f_dsk < self.lo_dsk {
            let (left, reserve) = (f_dsk, self.lo_dsk);
            return Err(now(FailMode::Disk, Check::DiskReserve { left, reserve }));
        }
        if uses_disk && self.excl_storage && f_spindles < 0 {
            let free = self.f_spindles;
            let need = free.wrapping_sub(f_spindles);
            return Err(now(FailMode::Spindles, Check::Spindles { need, free }));
        }
        if strict && uses_disk && inst_spindles > self.hi_spindles {
            return Err(now(FailMode::Disk, self.spindle_ratio(inst_spindles)));
        }
        if strict && fail_n1 && !self.fail_n1 {
            let check = Check::N1Reserve {
                left: new_free_mem,
                reserved: self.r_mem,
                peer: self.largest_peer(),
            };
            return Err(now(FailMode::Mem, check));
        }
        if strict && l_cpu >= 0.0 && l_cpu < p_cpu {
            return Err(now(FailMode::Cpu, self.vcpu_check(u_cpu)));
        }
        if strict {
            if let Some(&tag) = inst
                .excl_tags
                .iter()
                .find(|t| self.p_tags.iter().any(|(k, _)| k == *t))
            {
                return Err(now(FailMode::Tags, Check::ExclusionTag { tag }));
            }
        }
        if strict {
            if let Some(f) = forth_violation() {
                return Err(f);
            }
        }
        Ok(PriProbe {
            forthcoming: false,
            i_mem,
            fail_n1,
            f_dsk,
            f_spindles,
            inst_spindles,
            u_cpu,
            location_delta: inst.location_score + self.dsrd_loc_score(inst),
            conflicts_delta,
            f_mem_forth,
            f_dsk_forth,
            f_spindles_forth,
            inst_spindles_forth,
            u_cpu_forth,
            util: inst.util,
        })
    }

    /// Whether a sum or difference of [`Node::check_add_pri`] on `inst`
    /// wraps around (leaves `i64`, where Haskell's `Int` wraps too): the
    /// checks are then no longer monotone in the instance's resources.
    pub fn add_pri_wraps(&self, inst: &Instance) -> bool {
        let uses_disk = inst.uses_local_storage();
        let mem_need = if inst.uses_memory() { inst.mem } else { 0 };
        let memory = self.f_mem_forth.checked_sub(inst.mem).is_none()
            || self
                .i_mem
                .checked_add(mem_need)
                .and_then(|i_mem| {
                    truncate(self.t_mem)
                        .checked_sub(self.n_mem)?
                        .checked_sub(i_mem)?
                        .checked_sub(self.x_mem.max(0))
                })
                .is_none();
        let disk = uses_disk
            && (self.f_dsk.checked_sub(inst.dsk).is_none()
                || self.f_dsk_forth.checked_sub(inst.dsk).is_none());
        let spindles = self.excl_storage
            && match inst
                .disks
                .iter()
                .map(|d| d.spindles)
                .collect::<Option<Vec<i64>>>()
            {
                None => false,
                Some(each) => each
                    .iter()
                    .try_fold(0i64, |sum, s| sum.checked_add(*s))
                    .and_then(|total| {
                        self.f_spindles.checked_sub(total)?;
                        self.f_spindles_forth.checked_sub(total)
                    })
                    .is_none(),
            };
        let cpu = inst.not_offline()
            && (self.u_cpu.checked_add(inst.vcpus).is_none()
                || self.u_cpu_forth.checked_add(inst.vcpus).is_none());
        memory || disk || spindles || cpu
    }

    /// The metric's view of the node after a successful primary probe.
    pub fn scalars_with_pri(&self, p: &PriProbe) -> Scalars {
        let mut s = self.scalars();
        s.f_mem_forth = p.f_mem_forth;
        s.f_dsk_forth = p.f_dsk_forth;
        s.u_cpu_forth = p.u_cpu_forth;
        s.f_spindles_forth = p.f_spindles_forth;
        s.inst_spindles_forth = p.inst_spindles_forth;
        s.conflicting_primaries += p.conflicts_delta;
        if p.forthcoming {
            return s;
        }
        s.i_mem = p.i_mem;
        s.fail_n1 = p.fail_n1;
        s.f_dsk = p.f_dsk;
        s.f_spindles = p.f_spindles;
        s.inst_spindles = p.inst_spindles;
        s.u_cpu = p.u_cpu;
        s.n_pri += 1;
        for (l, u) in s.util_load.iter_mut().zip(p.util) {
            *l += u;
        }
        s.location_score += p.location_delta;
        s
    }

    /// Applies a successful primary probe for `inst`.
    pub fn commit_add_pri(&mut self, p: &PriProbe, inst: &Instance) {
        for &t in inst.excl_tags.iter() {
            add_tag(&mut self.p_tags, t);
        }
        self.f_mem_forth = p.f_mem_forth;
        self.f_dsk_forth = p.f_dsk_forth;
        self.u_cpu_forth = p.u_cpu_forth;
        self.f_spindles_forth = p.f_spindles_forth;
        self.inst_spindles_forth = p.inst_spindles_forth;
        if p.forthcoming {
            return;
        }
        self.p_list.push(inst.idx);
        self.i_mem = p.i_mem;
        self.f_dsk = p.f_dsk;
        self.fail_n1 = p.fail_n1;
        self.u_cpu = p.u_cpu;
        for (l, u) in self.util_load.iter_mut().zip(p.util) {
            *l += u;
        }
        self.inst_spindles = p.inst_spindles;
        self.f_spindles = p.f_spindles;
        self.location_score = self.location_score.wrapping_add(p.location_delta);
        self.add_location_exclusion_pairs(inst);
    }

    /// Adds `inst` as a primary (`addPriEx`).
    pub fn add_pri(&mut self, soft: SoftChecks, inst: &Instance) -> Result<(), FailMode> {
        let p = self.probe_add_pri(soft, inst)?;
        self.commit_add_pri(&p, inst);
        Ok(())
    }

    /// The (location tag, exclusion tag) pairs the instance contributes
    /// here as a primary (`getLocationExclusionPairs`).
    fn location_exclusion_pairs<'a>(
        &'a self,
        inst: &'a Instance,
    ) -> impl Iterator<Item = (TagId, TagId)> + 'a {
        self.info
            .location_tags
            .iter()
            .flat_map(move |&l| inst.excl_tags.iter().map(move |&e| (l, e)))
    }

    fn add_location_exclusion_pairs(&mut self, inst: &Instance) {
        let pairs: Vec<(TagId, TagId)> = self.location_exclusion_pairs(inst).collect();
        for pair in pairs {
            add_tag(&mut self.instance_map, pair);
        }
    }

    /// The location-exclusion pairs adding `inst` as a primary would add.
    pub fn new_location_exclusion_pairs<'a>(
        &'a self,
        inst: &'a Instance,
    ) -> impl Iterator<Item = (TagId, TagId)> + 'a {
        self.location_exclusion_pairs(inst)
    }

    /// Removes a primary instance (`removePri`). The instance is taken off
    /// the primary list by its own `idx` (nothing happens to the list if it
    /// isn't there, as in hail).
    pub fn remove_pri(&mut self, inst: &Instance) {
        let uses_disk = inst.uses_local_storage();
        let online = inst.not_offline();
        if !inst.forthcoming {
            delete_newest_first(&mut self.p_list, inst.idx);
            if inst.uses_memory() {
                self.i_mem = self.i_mem.wrapping_sub(inst.mem);
            }
            let new_free_mem = self.unallocated_mem();
            self.fail_n1 = new_free_mem <= self.r_mem;
            if uses_disk {
                self.f_dsk = self.f_dsk.wrapping_add(inst.dsk);
            }
            self.f_spindles = self.new_free_spindles(false, inst, self.f_spindles);
            self.inst_spindles = self.new_inst_spindles(false, inst, self.inst_spindles);
            if online {
                self.u_cpu = self.u_cpu.wrapping_sub(inst.vcpus);
            }
            for (l, u) in self.util_load.iter_mut().zip(inst.util) {
                *l -= u;
            }
            self.location_score = self
                .location_score
                .wrapping_sub(inst.location_score)
                .wrapping_sub(self.dsrd_loc_score(inst));
            let pairs: Vec<(TagId, TagId)> = self.location_exclusion_pairs(inst).collect();
            for pair in pairs {
                del_tag(&mut self.instance_map, pair);
            }
        }
        for &t in inst.excl_tags.iter() {
            del_tag(&mut self.p_tags, t);
        }
        self.f_mem_forth = self.f_mem_forth.wrapping_add(inst.mem);
        if uses_disk {
            self.f_dsk_forth = self.f_dsk_forth.wrapping_add(inst.dsk);
        }
        self.f_spindles_forth = self.new_free_spindles(false, inst, self.f_spindles_forth);
        self.inst_spindles_forth = self.new_inst_spindles(false, inst, self.inst_spindles_forth);
        if online {
            self.u_cpu_forth = self.u_cpu_forth.wrapping_sub(inst.vcpus);
        }
    }
}
