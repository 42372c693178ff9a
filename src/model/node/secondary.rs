//! A secondary instance on a node: `Node.addSecExEx`'s checks in hail's
//! order as a probe ([`Node::probe_add_sec`]; [`Node::check_add_sec`] with
//! the refused check's numbers) and its commit ([`Node::commit_add_sec`];
//! both in [`Node::add_sec`]), the metric's view after the probe
//! ([`Node::scalars_with_sec`]), and `removeSec` ([`Node::remove_sec`]):
//! the memory the node keeps for its primary node's failover (`peers`,
//! `rMem`) and the N+1 flag that follows.
//!
//! * Owns: [`SecProbe`] and the node's secondary placements.
//! * May use: the node's record and the arithmetic its placements share
//!   (`super`), the instance, the refusal's checks.
//! * Must never: allocate in a probe (the candidate search calls it in its
//!   hot loop); change the node's primaries' memory, vCPUs or tags.

use super::{delete_newest_first, set_peer, Node, Scalars};
use crate::model::instance::Instance;
use crate::model::refusal::{Check, Refusal};
use crate::model::types::{FailMode, SoftChecks};

/// The would-be state of a node after adding a secondary instance, as
/// computed by [`Node::probe_add_sec`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SecProbe {
    forthcoming: bool,
    f_dsk: i64,
    f_spindles: i64,
    inst_spindles: f64,
    fail_n1: bool,
    r_mem: i64,
    peer: i32,
    peer_mem: i64,
    f_dsk_forth: i64,
    f_spindles_forth: i64,
    inst_spindles_forth: f64,
    /// The instance's disk utilisation, added to the node's disk load.
    util_dsk: f64,
}

impl Node {
    /// Checks adding `inst` as a secondary whose primary is node `pdx`, and
    /// computes the result (`addSecExEx`). `ignore_disks` skips the free
    /// disk check (failing over off an offline primary);
    /// [`SoftChecks::Ignore`] skips the soft checks.
    #[inline]
    pub fn probe_add_sec(
        &self,
        ignore_disks: bool,
        soft: SoftChecks,
        inst: &Instance,
        pdx: i32,
    ) -> Result<SecProbe, FailMode> {
        self.check_add_sec(ignore_disks, soft, inst, pdx)
            .map_err(|r| r.mode)
    }

    /// [`Node::probe_add_sec`] with the refused check's numbers.
    #[inline]
    pub fn check_add_sec(
        &self,
        ignore_disks: bool,
        soft: SoftChecks,
        inst: &Instance,
        pdx: i32,
    ) -> Result<SecProbe, Refusal> {
        let strict = soft == SoftChecks::Enforce;
        let need = if inst.uses_sec_mem() { inst.mem } else { 0 };
        let peer_mem = self.peer_mem(pdx).wrapping_add(need);
        let now = Refusal::now;

        let f_dsk_forth = self.f_dsk_forth.wrapping_sub(inst.dsk);
        let f_spindles_forth = self.new_free_spindles(true, inst, self.f_spindles_forth);
        let inst_spindles_forth = self.new_inst_spindles(true, inst, self.inst_spindles_forth);
        let forth_violation = || -> Option<Refusal> {
            let (mode, check) = if !inst.has_secondary() {
                (FailMode::Disk, Check::NoSecondary)
            } else if f_dsk_forth <= 0 {
                let (need, free) = (inst.dsk, self.f_dsk_forth);
                (FailMode::Disk, Check::Disk { need, free })
            } else if f_dsk_forth < self.lo_dsk {
                let (left, reserve) = (f_dsk_forth, self.lo_dsk);
                (FailMode::Disk, Check::DiskReserve { left, reserve })
            } else if self.excl_storage && f_spindles_forth < 0 {
                let free = self.f_spindles_forth;
                let need = free.wrapping_sub(f_spindles_forth);
                (FailMode::Spindles, Check::Spindles { need, free })
            } else if inst_spindles_forth > self.hi_spindles {
                (FailMode::Disk, self.spindle_ratio(inst_spindles_forth))
            } else if need >= self.f_mem_forth {
                let free = self.f_mem_forth;
                (FailMode::Mem, Check::FailoverMemory { need, free })
            } else {
                return None;
            };
            Some(Refusal::forthcoming(mode, check))
        };

        if inst.forthcoming {
            if strict {
                if let Some(f) = forth_violation() {
                    return Err(f);
                }
            }
            return Ok(SecProbe {
                forthcoming: true,
                f_dsk: self.f_dsk,
                f_spindles: self.f_spindles,
                inst_spindles: self.inst_spindles,
                fail_n1: self.fail_n1,
                r_mem: self.r_mem,
                peer: pdx,
                peer_mem,
                f_dsk_forth,
                f_spindles_forth,
                inst_spindles_forth,
                util_dsk: inst.util[2],
            });
        }

        let old_mem = self.unallocated_mem();
        let f_dsk = self.f_dsk.wrapping_sub(inst.dsk);
        let f_spindles = self.new_free_spindles(true, inst, self.f_spindles);
        let inst_spindles = self.new_inst_spindles(true, inst, self.inst_spindles);
        let r_mem = self.r_mem.max(peer_mem);
        let fail_n1 = old_mem <= r_mem;

        if !inst.has_secondary() {
            return Err(now(FailMode::Disk, Check::NoSecondary));
        }
        if !ignore_disks && f_dsk <= 0 {
            let (need, free) = (inst.dsk, self.f_dsk);
            return Err(now(FailMode::Disk, Check::Disk { need, free }));
        }
        if strict && f_dsk < self.lo_dsk {
            let (left, reserve) = (f_dsk, self.lo_dsk);
            return Err(now(FailMode::Disk, Check::DiskReserve { left, reserve }));
        }
        if self.excl_storage && f_spindles < 0 {
            let free = self.f_spindles;
            let need = free.wrapping_sub(f_spindles);
            return Err(now(FailMode::Spindles, Check::Spindles { need, free }));
        }
        if strict && inst_spindles > self.hi_spindles {
            return Err(now(FailMode::Disk, self.spindle_ratio(inst_spindles)));
        }
        if strict && need >= old_mem {
            let free = old_mem;
            return Err(now(FailMode::Mem, Check::FailoverMemory { need, free }));
        }
        if strict && fail_n1 && !self.fail_n1 {
            // The reservation that fails is this primary's when it grew
            // past the others.
            let peer = if peer_mem >= self.r_mem {
                Some(pdx)
            } else {
                self.largest_peer()
            };
            let check = Check::N1Reserve {
                left: old_mem,
                reserved: r_mem,
                peer,
            };
            return Err(now(FailMode::Mem, check));
        }
        if strict {
            if let Some(f) = forth_violation() {
                return Err(f);
            }
        }
        Ok(SecProbe {
            forthcoming: false,
            f_dsk,
            f_spindles,
            inst_spindles,
            fail_n1,
            r_mem,
            peer: pdx,
            peer_mem,
            f_dsk_forth,
            f_spindles_forth,
            inst_spindles_forth,
            util_dsk: inst.util[2],
        })
    }

    /// The metric's view of the node after a successful secondary probe.
    pub fn scalars_with_sec(&self, p: &SecProbe) -> Scalars {
        let mut s = self.scalars();
        s.f_dsk_forth = p.f_dsk_forth;
        s.f_spindles_forth = p.f_spindles_forth;
        s.inst_spindles_forth = p.inst_spindles_forth;
        if p.forthcoming {
            return s;
        }
        s.f_dsk = p.f_dsk;
        s.f_spindles = p.f_spindles;
        s.inst_spindles = p.inst_spindles;
        s.fail_n1 = p.fail_n1;
        s.r_mem = p.r_mem;
        s.n_sec += 1;
        s.util_load[2] += p.util_dsk;
        s
    }

    /// Applies a successful secondary probe for `inst`.
    pub fn commit_add_sec(&mut self, p: &SecProbe, inst: &Instance) {
        self.f_dsk_forth = p.f_dsk_forth;
        self.f_spindles_forth = p.f_spindles_forth;
        self.inst_spindles_forth = p.inst_spindles_forth;
        if p.forthcoming {
            return;
        }
        self.s_list.push(inst.idx);
        self.f_dsk = p.f_dsk;
        set_peer(&mut self.peers, p.peer, p.peer_mem);
        self.fail_n1 = p.fail_n1;
        self.r_mem = p.r_mem;
        self.util_load[2] += p.util_dsk;
        self.inst_spindles = p.inst_spindles;
        self.f_spindles = p.f_spindles;
    }

    /// Adds `inst` as a secondary with primary `pdx` (`addSecExEx`).
    pub fn add_sec(
        &mut self,
        ignore_disks: bool,
        soft: SoftChecks,
        inst: &Instance,
        pdx: i32,
    ) -> Result<(), FailMode> {
        let p = self.probe_add_sec(ignore_disks, soft, inst, pdx)?;
        self.commit_add_sec(&p, inst);
        Ok(())
    }

    /// Removes a secondary instance (`removeSec`): its peer reservation
    /// shrinks and the N+1 flag is recomputed.
    pub fn remove_sec(&mut self, inst: &Instance) {
        let uses_disk = inst.uses_local_storage();
        if !inst.forthcoming {
            delete_newest_first(&mut self.s_list, inst.idx);
            if uses_disk {
                self.f_dsk = self.f_dsk.wrapping_add(inst.dsk);
            }
            self.f_spindles = self.new_free_spindles(false, inst, self.f_spindles);
            self.inst_spindles = self.new_inst_spindles(false, inst, self.inst_spindles);
            let pnode = inst.p_node;
            let old_peem = self.peer_mem(pnode);
            let new_peem = if inst.uses_sec_mem() {
                old_peem.wrapping_sub(inst.mem)
            } else {
                old_peem
            };
            if new_peem > 0 {
                set_peer(&mut self.peers, pnode, new_peem);
            } else {
                self.peers.retain(|(k, _)| *k != pnode);
            }
            if old_peem >= self.r_mem {
                self.r_mem = self.peers.iter().map(|(_, v)| *v).max().unwrap_or(0);
            }
            self.fail_n1 = self.unallocated_mem() <= self.r_mem;
            self.util_load[2] -= inst.util[2];
        }
        if uses_disk {
            self.f_dsk_forth = self.f_dsk_forth.wrapping_add(inst.dsk);
        }
        self.f_spindles_forth = self.new_free_spindles(false, inst, self.f_spindles_forth);
        self.inst_spindles_forth = self.new_inst_spindles(false, inst, self.inst_spindles_forth);
    }
}
