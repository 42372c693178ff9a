//! Placing the existing instances: names, NICs, templates, shapes that fit
//! their nodes, and the nodes' accounting.

use super::*;

impl<'a> Gen<'a> {
    pub(super) fn inst_name(&mut self, service: Option<&str>) -> String {
        self.inst_counter += 1;
        let k = self.inst_counter;
        let base = match service {
            Some(s) => format!("{}-{:05}", s, k),
            None => format!("inst-{:05}", k),
        };
        if self.f().non_ascii && self.r.chance(0.02) {
            return format!("{}-\u{e9}t\u{e9}.{}", base, self.domain);
        }
        if self.f().no_common_suffix {
            match k % 3 {
                0 => format!("{}.{}", base, self.domain),
                1 => format!("{}.apps.example.org", base),
                _ => base,
            }
        } else {
            format!("{}.{}", base, self.domain)
        }
    }

    pub(super) fn mac(&mut self) -> String {
        self.mac_counter += 1;
        let m = self.mac_counter;
        format!(
            "aa:00:00:{:02x}:{:02x}:{:02x}",
            (m >> 16) & 0xff,
            (m >> 8) & 0xff,
            m & 0xff
        )
    }

    pub(super) fn make_nics(&mut self, count: usize, group: Option<usize>) -> Vec<Nic> {
        let mut v = Vec::new();
        for _ in 0..count {
            let mode = ["bridged", "routed", "openvswitch"][self.r.weighted(&[8, 1, 1])];
            let link = match mode {
                "bridged" => format!("br{}", self.r.below(3)),
                "routed" => "100".to_string(),
                _ => "switch1".to_string(),
            };
            let ip = if self.r.chance(0.3) {
                Some(format!(
                    "10.{}.{}.{}",
                    20 + self.r.below(10),
                    self.r.below(250),
                    1 + self.r.below(250)
                ))
            } else {
                None
            };
            let network = if self.f().instance_nic_networks && self.r.chance(0.6) {
                // Existing instances use networks their group is connected to.
                match group {
                    Some(g) if !self.groups[g].networks.is_empty() => {
                        Some(self.r.pick(&self.groups[g].networks.clone()).clone())
                    }
                    _ => None,
                }
            } else {
                None
            };
            let mac = self.mac();
            v.push(Nic {
                mac,
                ip,
                mode,
                link,
                network,
            });
        }
        v
    }

    pub(super) fn pick_template(&mut self, g: usize) -> DiskTemplate {
        if self.groups[g].excl {
            return DiskTemplate::Plain;
        }
        let default_mix: [(DiskTemplate, u32); 6] = [
            (DiskTemplate::Drbd, 50),
            (DiskTemplate::Plain, 32),
            (DiskTemplate::Diskless, 4),
            (DiskTemplate::File, 4),
            (DiskTemplate::Rbd, 6),
            (DiskTemplate::Ext, 4),
        ];
        let mix: Vec<(DiskTemplate, u32)> = if self.spec.instance_templates.is_empty() {
            default_mix.to_vec()
        } else {
            self.spec.instance_templates.clone()
        };
        let w: Vec<u32> = mix.iter().map(|x| x.1).collect();
        let vm_nodes = self.groups[g]
            .nodes
            .iter()
            .filter(|&&n| self.nodes[n].hosts)
            .count();
        let mut t = mix[self.r.weighted(&w)].0;
        for _ in 0..3 {
            let ok_policy = self.groups[g].ipolicy.allows(t)
                || (self.spec.features.policy_violations && self.r.chance(0.3));
            let ok_nodes = t != DiskTemplate::Drbd || vm_nodes >= 2;
            if ok_policy && ok_nodes {
                return t;
            }
            t = mix[self.r.weighted(&w)].0;
        }
        if !self.f().policy_violations {
            // Fall back to a template the policy allows (and the group can hold).
            let pol = &self.groups[g].ipolicy;
            let ok: Vec<DiskTemplate> = pol
                .templates
                .iter()
                .copied()
                .filter(|&x| x != DiskTemplate::Drbd || vm_nodes >= 2)
                .collect();
            let in_mix: Vec<DiskTemplate> = ok
                .iter()
                .copied()
                .filter(|x| mix.iter().any(|m| m.0 == *x))
                .collect();
            if !in_mix.is_empty() {
                return *self.r.pick(&in_mix);
            }
            if !ok.is_empty() {
                return *self.r.pick(&ok);
            }
        }
        if t == DiskTemplate::Drbd && vm_nodes < 2 {
            DiskTemplate::Plain
        } else {
            t
        }
    }

    /// Average usable memory, disk and vCPU budget of a group's nodes.
    pub(super) fn group_means(&self, g: usize) -> (i64, i64, i64) {
        let ns = &self.groups[g].nodes;
        if ns.is_empty() {
            return (8192, 102400, 8);
        }
        let (mut m, mut d, mut c) = (0i64, 0i64, 0i64);
        for &i in ns {
            let n = &self.nodes[i];
            m += n.tmem - self.eff_reserved(n);
            d += n.tdsk;
            c += n.tcpu;
        }
        let k = ns.len() as i64;
        ((m / k).max(1024), (d / k).max(10240), (c / k).max(1))
    }

    /// Target memory fill of group `g`: the spec's tightness, lowered for some
    /// groups so that multi-group clusters have roomier and fuller groups.
    pub(super) fn tight(&self, g: usize) -> f64 {
        self.spec.tightness * self.groups[g].fill
    }

    /// Target disk fill of group `g`.
    pub(super) fn disk_tight(&self, g: usize) -> f64 {
        self.spec.disk_tightness * self.groups[g].fill
    }

    pub(super) fn eff_reserved(&self, n: &Node) -> i64 {
        match self.hail_reserved {
            Some(h) => h.max(n.reserved_mem),
            None => n.reserved_mem,
        }
    }

    /// Memory hail considers unallocated on the node (before N+1 reservations).
    pub(super) fn unalloc(&self, n: &Node) -> i64 {
        n.tmem - self.eff_reserved(n) - n.up_mem - n.missing
    }

    /// Draws the size of an existing instance of template `t` in group `g`,
    /// scaled to the spec's density and tightness. Returns memory, vCPUs,
    /// disks, spindle use and the policy min/max pair the instance obeys
    /// (`None` for a deliberate policy violation).
    #[allow(clippy::type_complexity)]
    pub(super) fn draw_instance_shape(
        &mut self,
        g: usize,
        t: DiskTemplate,
    ) -> (i64, i64, Vec<Disk>, i64, Option<(ISpec, ISpec)>) {
        let (mavail, dmean, cmean) = self.group_means(g);
        let ipn = self.spec.instances_per_node.max(0.5);
        let mut mem_mean = scale(mavail, self.tight(g) / ipn);
        if t == DiskTemplate::Drbd {
            mem_mean = scale(mem_mean, 0.8);
        }
        let hosting = self.spec.shape == Shape::Hosting;
        // The hosting shape's flavour: its memory relative to the mean (the
        // catalogue's weighted mean factor is 1.245) and its vCPUs.
        let flavour = hosting.then(|| {
            [
                (0.125 / 1.245, 1i64),
                (0.25 / 1.245, 1),
                (0.5 / 1.245, 2),
                (1.0 / 1.245, 2),
                (2.0 / 1.245, 4),
                (4.0 / 1.245, 8),
                (8.0 / 1.245, 16),
            ][self.r.weighted(&[20, 20, 20, 15, 12, 9, 4])]
        });
        let mut mem = match flavour {
            Some((f, _)) => nice_mem(scale(mem_mean, f)).max(512),
            None => {
                let factor = *self
                    .r
                    .pick(&[0.25, 0.5, 0.5, 0.75, 1.0, 1.0, 1.0, 1.25, 1.5, 2.0]);
                nice_mem(scale(mem_mean, factor))
            }
        };
        if !hosting && self.r.chance(0.03) {
            mem = self.r.range(128, 4000);
        }
        let pol = self.groups[g].ipolicy.clone();
        let pair = pol.minmax[self.r.below(pol.minmax.len() as u64) as usize];
        let obey = !self.f().policy_violations || self.r.chance(0.7);
        let vmax = ((cmean as f64 * pol.vcpu_ratio) as i64 / ipn.ceil() as i64).max(1);
        let mut vcpus = match flavour {
            Some((_, v)) => v.min(vmax.max(1)),
            None => (*self.r.pick(&[1i64, 1, 2, 2, 2, 4, 4, 8])).min(vmax.max(1)),
        };
        if !hosting && self.r.chance(0.05) {
            vcpus = *self.r.pick(&[8, 16, 24]);
        }
        let ndisks = if t == DiskTemplate::Diskless {
            0
        } else if hosting {
            1 + usize::from(self.r.chance(0.3))
        } else {
            [1usize, 1, 1, 1, 1, 1, 2, 2, 2, 3, 4][self.r.below(11) as usize]
        };
        let dsk_total = if t.is_lvm() {
            let lvm_share = if t == DiskTemplate::Drbd { 1.6 } else { 1.0 };
            scale(dmean, self.disk_tight(g) / (ipn * lvm_share))
        } else {
            *self.r.pick(&[10240, 20480, 51200, 102400, 512000])
        };
        let mut disks = Vec::new();
        let excl = self.groups[g].excl;
        let pv_size = {
            let gn = &self.groups[g].nodes;
            let n = &self.nodes[gn[0]];
            if n.tspindles > 0 {
                n.tdsk / n.tspindles
            } else {
                n.tdsk.max(1)
            }
        };
        for k in 0..ndisks {
            let share = if ndisks == 1 {
                1.0
            } else if k == 0 {
                0.7
            } else {
                0.3 / (ndisks - 1) as f64
            };
            // The hosting shape's disks: mostly small, a few huge (the
            // weighted mean factor is 1).
            let f = if hosting {
                [0.25, 0.5, 1.0, 2.0, 4.0][self.r.weighted(&[30, 30, 20, 15, 5])] / 1.025
            } else {
                *self.r.pick(&[0.3, 0.5, 0.8, 1.0, 1.0, 1.2, 1.6])
            };
            let mut size = nice_disk(scale(dsk_total, share * f));
            if self.r.chance(0.03) {
                size = self.r.range(100, 50000);
            }
            let spindles = if excl {
                Some(((size + pv_size - 1) / pv_size.max(1)).max(1) + i64::from(self.r.chance(0.1)))
            } else {
                None
            };
            let mode = if self.r.chance(0.05) { "ro" } else { "rw" };
            disks.push(Disk {
                size,
                mode,
                spindles,
            });
        }
        let su = if self.r.chance(0.85) {
            1
        } else {
            self.r.range(2, 4)
        };
        let mut shape = (mem, vcpus, disks, su);
        if obey {
            conform(
                &mut shape.0,
                &mut shape.1,
                &mut shape.2,
                &mut shape.3,
                &pair,
            );
        }
        (
            shape.0,
            shape.1,
            shape.2,
            shape.3,
            if obey { Some(pair) } else { None },
        )
    }

    /// Can `inst` run on node `p` as primary, given the current accounting?
    pub(super) fn fits_primary(&self, p: usize, inst: &Inst) -> bool {
        let n = &self.nodes[p];
        if !n.hosts {
            return false;
        }
        let over = self.f().overcommitted;
        if inst.admin == AdminState::Up {
            // Memory left on the node after placing the instance.
            let avail = n.tmem - self.eff_reserved(n) - n.up_mem - inst.mem;
            if avail <= 0 {
                return false;
            }
            if !over {
                // Keep the N+1 reserve and stay within the target fill level.
                let keep = scale(n.tmem - self.eff_reserved(n), 1.0 - self.tight(n.group));
                if avail <= n.rmem() || avail < keep {
                    return false;
                }
            }
        }
        if inst.template.is_lvm() {
            let dcap = if over {
                0
            } else {
                scale(n.tdsk, 1.0 - self.disk_tight(n.group))
            };
            if n.tdsk - n.lvm_used - inst.dsk() <= dcap.max(0) {
                return false;
            }
            if n.excl && n.tspindles - n.spindles_used - inst.disk_spindles() < 0 {
                return false;
            }
            let pol = &self.groups[n.group].ipolicy;
            if !over
                && !n.excl
                && (n.su_used + inst.su) as f64 > pol.spindle_ratio * n.spindle_count as f64
            {
                return false;
            }
        }
        if inst.template == DiskTemplate::File && n.tdsk - n.file_used - inst.dsk() <= 0 {
            return false;
        }
        if !over {
            let pol = &self.groups[n.group].ipolicy;
            let limit = (pol.vcpu_ratio * n.tcpu as f64) as i64;
            if n.reserved_cpus + n.vcpus_used + inst.vcpus > limit {
                return false;
            }
        }
        true
    }

    pub(super) fn fits_secondary(&self, s: usize, p: usize, inst: &Inst) -> bool {
        let n = &self.nodes[s];
        if !n.hosts || s == p {
            return false;
        }
        let over = self.f().overcommitted;
        if n.tdsk - n.lvm_used - inst.dsk()
            <= if over {
                0
            } else {
                scale(n.tdsk, 1.0 - self.disk_tight(n.group)).max(0)
            }
        {
            return false;
        }
        let pol = &self.groups[n.group].ipolicy;
        if !over && (n.su_used + inst.su) as f64 > pol.spindle_ratio * n.spindle_count as f64 {
            return false;
        }
        if !over && inst.admin != AdminState::Offline {
            // N+1: the secondary must be able to take over all instances of p.
            let need = n.peer(p) + inst.mem;
            if need >= self.unalloc(n) {
                return false;
            }
        }
        true
    }

    pub(super) fn account(&mut self, idx: usize) {
        let inst = self.insts[idx].clone();
        let dsk = inst.dsk();
        let sp = inst.disk_spindles();
        {
            let p = &mut self.nodes[inst.pnode];
            p.pri_mem += inst.mem;
            if inst.admin == AdminState::Up {
                p.up_mem += inst.mem;
            }
            p.vcpus_used += inst.vcpus;
            if inst.template.is_lvm() {
                p.lvm_used += dsk;
                p.su_used += inst.su;
                if p.excl {
                    p.spindles_used += sp;
                }
            }
            if inst.template == DiskTemplate::File {
                p.file_used += dsk;
            }
        }
        if let Some(s) = inst.snode {
            let pnode = inst.pnode;
            let n = &mut self.nodes[s];
            n.lvm_used += dsk;
            n.su_used += inst.su;
            if n.excl {
                n.spindles_used += sp;
            }
            if inst.admin != AdminState::Offline {
                match n.peers.iter_mut().find(|x| x.0 == pnode) {
                    Some(e) => e.1 += inst.mem,
                    None => n.peers.push((pnode, inst.mem)),
                }
            }
        }
    }

    pub(super) fn inst_tags(&mut self) -> Vec<String> {
        let mut tags = Vec::new();
        if !self.excl_prefixes.is_empty() && self.r.chance(0.6) {
            let p = self.r.pick(&self.excl_prefixes.clone()).clone();
            // Few distinct values, so conflicts on nodes are likely.
            let v = self.r.pick(&SERVICES[..4]);
            tags.push(format!("{}:{}", p, v));
        }
        if self.desired_prefix.is_some() && self.r.chance(0.4) {
            let v = self.r.pick(&self.loc_values.clone()).clone();
            tags.push(v);
        }
        if self.r.chance(0.15) {
            tags.push(
                self.r
                    .pick(&["owner:alice", "owner:bob", "backup", "critical"])
                    .to_string(),
            );
        }
        if self.f().non_ascii && self.r.chance(0.1) {
            tags.push("kunde:m\u{fc}ller-gro\u{df}".to_string());
        }
        tags
    }

    /// Creates one existing instance in group `g` (template `t`), trying to
    /// place it within capacity; with `force` it is placed regardless.
    pub(super) fn make_instance(
        &mut self,
        g: usize,
        t: DiskTemplate,
        force: bool,
    ) -> Option<usize> {
        let mut cands: Vec<usize> = self.groups[g]
            .nodes
            .iter()
            .copied()
            .filter(|&n| self.nodes[n].hosts)
            .collect();
        if force && (cands.is_empty() || (t == DiskTemplate::Drbd && cands.len() < 2)) {
            cands = self.groups[g]
                .nodes
                .iter()
                .copied()
                .filter(|&n| self.nodes[n].vm_capable)
                .collect();
        }
        if cands.is_empty() || (t == DiskTemplate::Drbd && cands.len() < 2) {
            return None;
        }
        let (mem, vcpus, disks, su, pair) = self.draw_instance_shape(g, t);
        let admin =
            [AdminState::Up, AdminState::Down, AdminState::Offline][self.r.weighted(&[80, 15, 5])];
        let tags = self.inst_tags();
        let service = tags
            .iter()
            .find_map(|t| t.split_once(':').map(|x| x.1.to_string()))
            .filter(|s| SERVICES.contains(&s.as_str()));
        let name = self.inst_name(service.as_deref());
        let nn = if t == DiskTemplate::Diskless && self.r.chance(0.3) {
            0
        } else {
            1 + usize::from(self.r.chance(0.15))
        };
        let nics = self.make_nics(nn, Some(g));
        let os = *self.r.pick(&OSES);
        let hv = if self.spec.hypervisors.len() > 1 && self.r.chance(0.15) {
            self.spec.hypervisors[1].clone()
        } else {
            self.spec
                .hypervisors
                .first()
                .cloned()
                .unwrap_or_else(|| "kvm".to_string())
        };
        let mut inst = Inst {
            name,
            template: t,
            mem,
            vcpus,
            disks,
            nics,
            tags,
            admin,
            os,
            hv,
            su,
            pnode: cands[0],
            snode: None,
        };
        let tries = if cands.len() <= 12 {
            cands.len() * 2
        } else {
            12
        };
        for round in 0..4 {
            if round > 0 {
                // Shrink and retry.
                inst.mem = nice_mem(inst.mem / 2);
                for d in inst.disks.iter_mut() {
                    d.size = nice_disk(d.size / 2).max(128);
                }
                inst.vcpus = (inst.vcpus / 2).max(1);
                if let Some(pair) = &pair {
                    conform(
                        &mut inst.mem,
                        &mut inst.vcpus,
                        &mut inst.disks,
                        &mut inst.su,
                        pair,
                    );
                }
            }
            // The hosting shape piles primaries on the first third of the
            // group's nodes.
            let first_third = &cands[..(cands.len() / 3).max(2).min(cands.len())];
            for _ in 0..tries {
                let p = if self.spec.shape == Shape::Hosting && self.r.chance(0.6) {
                    *self.r.pick(first_third)
                } else {
                    *self.r.pick(&cands)
                };
                if !self.fits_primary(p, &inst) {
                    continue;
                }
                if t == DiskTemplate::Drbd {
                    let mut found = None;
                    for _ in 0..tries {
                        let s = *self.r.pick(&cands);
                        if self.fits_secondary(s, p, &inst) {
                            found = Some(s);
                            break;
                        }
                    }
                    match found {
                        Some(s) => inst.snode = Some(s),
                        None => continue,
                    }
                }
                inst.pnode = p;
                self.insts.push(inst);
                let idx = self.insts.len() - 1;
                self.account(idx);
                return Some(idx);
            }
        }
        if !force {
            return None;
        }
        // Forced: the node (pair) of the group with the most free disk; the
        // instance is shrunk so that the accounting stays physically possible.
        let free_disk = |g: &Gen, n: usize| g.nodes[n].tdsk - g.nodes[n].lvm_used;
        let p = *cands
            .iter()
            .max_by_key(|&&n| (free_disk(self, n), std::cmp::Reverse(n)))
            .unwrap_or(&cands[0]);
        inst.pnode = p;
        inst.snode = None;
        if t == DiskTemplate::Drbd {
            let s = *cands
                .iter()
                .filter(|&&x| x != p)
                .max_by_key(|&&n| (free_disk(self, n), std::cmp::Reverse(n)))
                .unwrap_or(&cands[0]);
            inst.snode = Some(s);
        }
        inst.mem = inst
            .mem
            .min(128.max(self.unalloc(&self.nodes[p]) / 2))
            .max(128);
        if t.is_lvm() {
            let mut room = free_disk(self, p);
            if let Some(s) = inst.snode {
                room = room.min(free_disk(self, s));
            }
            let nd = inst.disks.len().max(1) as i64;
            let meta = if t == DiskTemplate::Drbd { 128 } else { 0 };
            let per = ((room / 2) / nd - meta).max(0);
            if per < 1 {
                inst.disks.clear();
            } else {
                for d in inst.disks.iter_mut() {
                    d.size = d.size.min(per);
                }
            }
            if self.nodes[p].excl {
                let mut sp = self.nodes[p].tspindles - self.nodes[p].spindles_used;
                if let Some(s) = inst.snode {
                    sp = sp.min(self.nodes[s].tspindles - self.nodes[s].spindles_used);
                }
                let k = sp.max(0) as usize;
                inst.disks.truncate(k);
                for d in inst.disks.iter_mut() {
                    d.spindles = Some(1);
                }
            }
        }
        self.insts.push(inst);
        let idx = self.insts.len() - 1;
        self.account(idx);
        Some(idx)
    }

    pub(super) fn place_instances(&mut self) {
        let ipn = self.spec.instances_per_node.max(0.0);
        for g in 0..self.groups.len() {
            let vm = self.groups[g]
                .nodes
                .iter()
                .filter(|&&n| self.nodes[n].hosts)
                .count();
            let exact = vm as f64 * ipn;
            let mut count = exact as usize;
            if self.r.unit() < exact - count as f64 {
                count += 1;
            }
            for _ in 0..count {
                let t = self.pick_template(g);
                self.make_instance(g, t, false);
            }
        }
    }

    pub(super) fn apply_missing_memory(&mut self) {
        if !self.f().missing_memory {
            return;
        }
        let live: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| self.nodes[i].live())
            .collect();
        if live.is_empty() {
            return;
        }
        let k = 1 + self.r.below(3.min(live.len() as u64)) as usize;
        for _ in 0..k {
            let i = *self.r.pick(&live);
            let n = &self.nodes[i];
            let free = n.tmem - n.reserved_mem - n.up_mem;
            let m = self.r.range(100, 6000).min(free.max(0));
            self.nodes[i].missing = m;
        }
    }

    // ----- the request -----

    /// Online nodes in allocatable groups (the usual candidates).
    pub(super) fn candidate_nodes(&self) -> Vec<usize> {
        let v: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| {
                self.nodes[i].online()
                    && self.groups[self.nodes[i].group].policy != AllocPolicy::Unallocable
            })
            .collect();
        if v.is_empty() {
            (0..self.nodes.len())
                .filter(|&i| self.nodes[i].online())
                .collect()
        } else {
            v
        }
    }

    pub(super) fn quantile(vals: &mut [i64], q: f64) -> i64 {
        if vals.is_empty() {
            return 0;
        }
        vals.sort_unstable();
        if q >= 1.0 {
            return scale(vals[vals.len() - 1], q);
        }
        let i = ((vals.len() - 1) as f64 * q.max(0.0)) as usize;
        vals[i]
    }
}
