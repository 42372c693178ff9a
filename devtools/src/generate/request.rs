//! The request: the instances to allocate, the instances to move for
//! relocation, evacuation and group change, and hail's options.

use super::*;

impl<'a> Gen<'a> {
    /// Draws a new instance of template `t`. `size` is the relative size of
    /// its bottleneck resource (see [`CaseSpec::new_size`]).
    pub(super) fn new_instance(
        &mut self,
        t: DiskTemplate,
        idx: usize,
        size: f64,
        share: f64,
    ) -> NewInst {
        let cands = self.candidate_nodes();
        // One resource (memory, disk, vCPUs or none) is the bottleneck at the
        // requested size; the others get a small share of a typical node.
        let bind = self.r.weighted(&[45, 25, 15, 15]);
        let big = size * (0.85 + self.r.unit() * 0.25);
        let draw = |r: &mut Rng, vals: &mut Vec<i64>, k: usize| -> i64 {
            if bind == k {
                // Below 1 the size is a fraction of the chosen node's free amount,
                // growing with the size, so small clusters are not filled to the brim.
                let frac = if big < 1.0 { 0.45 + 0.5 * big } else { 1.0 };
                scale(Self::quantile(vals, big), share * frac)
            } else {
                let med = Self::quantile(vals, 0.5);
                scale(med, 0.02 + r.unit() * 0.2)
            }
        };
        let mut mems: Vec<i64> = cands
            .iter()
            .map(|&i| self.unalloc(&self.nodes[i]) - self.nodes[i].rmem())
            .collect();
        let mut mem = nice_mem(draw(&mut self.r, &mut mems, 0).max(128));
        if cands.is_empty() {
            mem = 1024;
        }
        if self.r.chance(0.05) {
            mem = self.r.range(128, 3000);
        }
        let ndisks = if t == DiskTemplate::Diskless {
            0
        } else {
            [1usize, 1, 1, 1, 2, 2, 3][self.r.below(7) as usize]
        };
        let any_excl = cands.iter().any(|&i| self.nodes[i].excl);
        let mut frees: Vec<i64> = cands
            .iter()
            .map(|&i| {
                let n = &self.nodes[i];
                if t == DiskTemplate::File {
                    n.tdsk - n.file_used
                } else {
                    n.tdsk - n.lvm_used
                }
            })
            .collect();
        let dtotal = if t.is_lvm() || t == DiskTemplate::File {
            draw(&mut self.r, &mut frees, 1).max(1024)
        } else {
            *self.r.pick(&[10240, 20480, 102400, 1048576])
        };
        let mut sp_free: Vec<i64> = cands
            .iter()
            .filter(|&&i| self.nodes[i].excl)
            .map(|&i| self.nodes[i].tspindles - self.nodes[i].spindles_used)
            .collect();
        let sp_total = draw(&mut self.r, &mut sp_free, 1).max(1);
        let mut cpus: Vec<i64> = cands
            .iter()
            .map(|&i| {
                let n = &self.nodes[i];
                let r = self.groups[n.group].ipolicy.vcpu_ratio;
                (r * n.tcpu as f64) as i64 - n.reserved_cpus - n.vcpus_used
            })
            .collect();
        let mut vcpus = draw(&mut self.r, &mut cpus, 2).clamp(1, 256);
        if bind != 2 {
            vcpus = vcpus.min(*self.r.pick(&[1, 1, 2, 2, 4, 8]));
        }
        // Most requests respect one min/max spec of a candidate group's policy.
        let pair = if !cands.is_empty() && self.r.chance(if size > 1.0 { 0.5 } else { 0.85 }) {
            let g = self.nodes[*self.r.pick(&cands)].group;
            let mm = &self.groups[g].ipolicy.minmax;
            Some(mm[self.r.below(mm.len() as u64) as usize])
        } else {
            None
        };
        if let Some((lo, hi)) = pair {
            mem = mem.clamp(lo.mem, hi.mem);
            vcpus = vcpus.clamp(lo.cpu, hi.cpu);
        }
        let with_spindles = match self.new_spindles {
            Some(w) if self.r.chance(0.9) => w,
            _ => any_excl && self.r.chance(0.85),
        };
        self.new_spindles = Some(with_spindles);
        let mut disks = Vec::new();
        for k in 0..ndisks {
            let share = if ndisks == 1 {
                1.0
            } else if k == 0 {
                0.7
            } else {
                0.3 / (ndisks - 1) as f64
            };
            let mut dsize = nice_disk(scale(dtotal, share).max(256));
            if t == DiskTemplate::Drbd {
                dsize = (dsize - 128).max(128);
            }
            if let Some((lo, hi)) = pair {
                dsize = dsize.clamp(lo.disk_size, hi.disk_size);
            }
            let spindles = if with_spindles {
                Some(((sp_total as f64 * share) as i64).max(1))
            } else {
                None
            };
            disks.push(Disk {
                size: dsize,
                mode: "rw",
                spindles,
            });
        }
        let mut tags = Vec::new();
        if !self.excl_prefixes.is_empty() && self.r.chance(0.6) {
            let p = self.r.pick(&self.excl_prefixes.clone()).clone();
            tags.push(format!("{}:{}", p, self.r.pick(&SERVICES[..4])));
        }
        if self.desired_prefix.is_some() && self.r.chance(0.6) {
            let v = self.r.pick(&self.loc_values.clone()).clone();
            tags.push(v);
        }
        if self.f().non_ascii && self.r.chance(0.3) {
            tags.push("projekt:gr\u{fc}n".to_string());
        }
        match &self.new_tags {
            Some(t) if self.r.chance(0.7) => tags = t.clone(),
            _ => self.new_tags = Some(tags.clone()),
        }
        let nn = if self.r.chance(0.1) {
            0
        } else {
            1 + usize::from(self.r.chance(0.2))
        };
        let mut nics = Vec::new();
        let mut nic_uuids = Vec::new();
        for _ in 0..nn {
            let shared = match &self.new_network {
                Some(n) if self.r.chance(0.85) => Some(n.clone()),
                _ => None,
            };
            let network = if let Some(n) = shared {
                n
            } else if self.networks.is_empty() {
                None
            } else {
                let connected: Vec<String> = cands
                    .iter()
                    .flat_map(|&i| self.groups[self.nodes[i].group].networks.iter().cloned())
                    .collect();
                match self.r.below(10) {
                    // Usually a network some candidate group is connected to.
                    0..=4 if !connected.is_empty() => Some(self.r.pick(&connected).clone()),
                    // Sometimes any network, so some groups are likely not connected.
                    5..=6 => Some(self.r.pick(&self.networks.clone()).clone()),
                    _ => None,
                }
            };
            self.new_network = Some(network.clone());
            let mac = if self.r.chance(0.5) {
                "auto".to_string()
            } else {
                self.mac()
            };
            let ip = if network.is_some() && self.r.chance(0.5) {
                Some(format!(
                    "10.{}.0.{}",
                    30 + self.r.below(5),
                    1 + self.r.below(250)
                ))
            } else {
                None
            };
            nics.push(Nic {
                mac,
                ip,
                mode: "bridged",
                link: String::new(),
                network,
            });
            nic_uuids.push(self.r.uuid());
        }
        let su = if self.r.chance(0.85) {
            1
        } else {
            self.r.range(2, 6)
        };
        let base = format!("new-{:03}", idx + 1);
        let name = if self.f().non_ascii && self.r.chance(0.3) {
            format!("{}-\u{e9}t\u{e9}.{}", base, self.domain)
        } else if self.f().no_common_suffix && self.r.chance(0.5) {
            base
        } else {
            format!("{}.{}", base, self.domain)
        };
        let hv = self
            .spec
            .hypervisors
            .first()
            .cloned()
            .unwrap_or_else(|| "kvm".to_string());
        let os: &'static str = OSES[self.r.below(OSES.len() as u64) as usize];
        NewInst {
            name,
            template: t,
            mem,
            vcpus,
            disks,
            nics,
            nic_uuids,
            tags,
            os,
            hv,
            su,
        }
    }

    pub(super) fn new_inst_json(
        &self,
        ni: &NewInst,
        with_type: bool,
        group_name: Option<&str>,
        restrict: Option<&[String]>,
    ) -> J {
        let disks: Vec<J> = ni
            .disks
            .iter()
            .map(|d| {
                let mut o = ObjB::new();
                o.put("size", d.size).put("mode", d.mode);
                o.put("vg", "xenvg")
                    .putj("name", J::Null)
                    .put("dev_type", ni.template.as_str());
                if let Some(s) = d.spindles {
                    o.put("spindles", s);
                }
                if ni.template == DiskTemplate::Ext {
                    o.put("provider", "pvdr");
                }
                o.done()
            })
            .collect();
        let nics: Vec<J> = ni
            .nics
            .iter()
            .zip(ni.nic_uuids.iter())
            .map(|(n, u)| {
                let mut o = ObjB::new();
                o.put("mac", &n.mac);
                if let Some(ip) = &n.ip {
                    o.put("ip", ip);
                }
                if let Some(net) = &n.network {
                    o.put("network", net);
                }
                o.putj("nicparams", J::Obj(Vec::new()));
                o.put("uuid", u);
                o.done()
            })
            .collect();
        let dst: i64 = ni
            .disks
            .iter()
            .map(|d| ni.template.disk_space(d.size))
            .sum();
        let mut o = ObjB::new();
        o.put("name", &ni.name)
            .put("disk_template", ni.template.as_str())
            .putj("group_name", group_name.map(J::from).unwrap_or(J::Null))
            .putj("tags", str_list(&ni.tags))
            .put("os", ni.os)
            .put("vcpus", ni.vcpus)
            .put("memory", ni.mem)
            .put("spindle_use", ni.su)
            .putj("disks", J::Arr(disks))
            .put("disk_space_total", dst)
            .putj("nics", J::Arr(nics))
            .put("required_nodes", ni.template.required_nodes() as i64)
            .put("hypervisor", &ni.hv);
        if with_type {
            o.put("type", "allocate");
        }
        if let Some(rs) = restrict {
            o.putj("restrict-to-nodes", str_list(rs));
        }
        o.done()
    }

    /// Finds (or, failing that, creates) an existing instance matching `want`.
    pub(super) fn find_or_make(
        &mut self,
        want: &dyn Fn(&Inst, &[Node]) -> bool,
        t: DiskTemplate,
    ) -> usize {
        let found: Vec<usize> = (0..self.insts.len())
            .filter(|&i| want(&self.insts[i], &self.nodes))
            .collect();
        if !found.is_empty() {
            return *self.r.pick(&found);
        }
        // Create one in a group able to hold it.
        let mut groups: Vec<usize> = (0..self.groups.len())
            .filter(|&g| {
                let vm = self.groups[g]
                    .nodes
                    .iter()
                    .filter(|&&n| self.nodes[n].vm_capable)
                    .count();
                vm >= t.required_nodes() && (!self.groups[g].excl || t == DiskTemplate::Plain)
            })
            .collect();
        if groups.is_empty() {
            groups = (0..self.groups.len())
                .filter(|&g| {
                    self.groups[g]
                        .nodes
                        .iter()
                        .filter(|&&n| self.nodes[n].vm_capable)
                        .count()
                        >= t.required_nodes()
                })
                .collect();
        }
        for _ in 0..4 {
            if groups.is_empty() {
                break;
            }
            let g = *self.r.pick(&groups);
            if let Some(i) = self.make_instance(g, t, true) {
                return i;
            }
        }
        // Last resort: a vm_capable node (or pair) anywhere, plain template.
        let g = (0..self.groups.len())
            .find(|&g| {
                self.groups[g]
                    .nodes
                    .iter()
                    .any(|&n| self.nodes[n].vm_capable)
            })
            .unwrap_or(0);
        if let Some(i) = self.make_instance(g, DiskTemplate::Plain, true) {
            return i;
        }
        // No vm_capable node at all: make the first node vm_capable.
        let first = self.groups[g].nodes.first().copied().unwrap_or(0);
        self.nodes[first].vm_capable = true;
        self.nodes[first].hosts = true;
        self.make_instance(self.nodes[first].group, DiskTemplate::Plain, true)
            .unwrap_or(0)
    }

    /// Builds the request object; returns it, the template label of the case id
    /// and the node list for `--restrict-allocation-to`, if any.
    pub(super) fn build_request(&mut self) -> (J, String, Option<Vec<String>>) {
        let kind = self.spec.kind;
        let mut label = "mixed".to_string();
        let req = match kind {
            RequestKind::Allocate => {
                let t = self.spec.template.unwrap_or(DiskTemplate::Drbd);
                label = t.as_str().to_string();
                let ni = self.new_instance(t, 0, self.spec.new_size, 1.0);
                let gname = if self.f().group_name && !self.groups.is_empty() {
                    let g = self.r.below(self.groups.len() as u64) as usize;
                    Some(self.groups[g].name.clone())
                } else {
                    None
                };
                let restrict = if self.f().restrict_to_nodes {
                    Some(self.node_subset())
                } else {
                    None
                };
                self.new_inst_json(&ni, true, gname.as_deref(), restrict.as_deref())
            }
            RequestKind::MultiAllocate => {
                let t0 = self.spec.template.unwrap_or(DiskTemplate::Drbd);
                label = t0.as_str().to_string();
                let count = self.spec.multi_count.max(1);
                let mut list = Vec::new();
                // Each instance is smaller than a single allocation would be, except
                // sometimes one big one.
                let big_one = if self.r.chance(0.3) {
                    Some(self.r.below(count as u64) as usize)
                } else {
                    None
                };
                for i in 0..count {
                    // The instances share the free capacity: each binding resource is
                    // scaled down by the count, except for the big one.
                    let share = if big_one == Some(i) {
                        1.0
                    } else {
                        (3.0 / count as f64).min(1.0)
                    };
                    let t = if self.r.chance(0.8) {
                        t0
                    } else {
                        *self.r.pick(&[
                            DiskTemplate::Drbd,
                            DiskTemplate::Plain,
                            DiskTemplate::Diskless,
                            DiskTemplate::Rbd,
                        ])
                    };
                    let ni = self.new_instance(t, i, self.spec.new_size, share);
                    list.push(self.new_inst_json(&ni, false, None, None));
                }
                ObjB::new()
                    .putj("instances", J::Arr(list))
                    .put("type", "multi-allocate")
                    .done()
            }
            RequestKind::Relocate => {
                let t = self.spec.template.unwrap_or(DiskTemplate::Drbd);
                let t = if t == DiskTemplate::Plain || t == DiskTemplate::File {
                    DiskTemplate::Drbd
                } else {
                    t
                };
                let prefer_bad = self.r.chance(0.3);
                let idx = {
                    let want = move |i: &Inst, nodes: &[Node]| {
                        i.template == t
                            && (t != DiskTemplate::Drbd || i.snode.is_some())
                            && (!prefer_bad || {
                                let n = &nodes[i.snode.unwrap_or(i.pnode)];
                                n.offline || n.drained
                            })
                    };
                    let found = (0..self.insts.len()).any(|i| want(&self.insts[i], &self.nodes));
                    if found {
                        self.find_or_make(&want, t)
                    } else {
                        let want2 = move |i: &Inst, _: &[Node]| {
                            i.template == t && (t != DiskTemplate::Drbd || i.snode.is_some())
                        };
                        self.find_or_make(&want2, t)
                    }
                };
                let inst = self.insts[idx].clone();
                label = inst.template.as_str().to_string();
                let from = match inst.snode {
                    Some(s) if inst.template == DiskTemplate::Drbd => s,
                    _ => inst.pnode,
                };
                ObjB::new()
                    .put("name", &inst.name)
                    .put("disk_space_total", inst.dsk())
                    .put("required_nodes", 1i64)
                    .putj("relocate_from", str_list(&[self.nodes[from].name.clone()]))
                    .put("type", "relocate")
                    .done()
            }
            RequestKind::NodeEvacuate(mode) => {
                let names = self.evac_instances(mode);
                ObjB::new()
                    .putj("instances", str_list(&names))
                    .put("evac_mode", mode.as_str())
                    .put("type", "node-evacuate")
                    .done()
            }
            RequestKind::ChangeGroup => {
                let (names, targets) = self.change_group_instances();
                ObjB::new()
                    .putj("instances", str_list(&names))
                    .putj("target_groups", str_list(&targets))
                    .put("type", "change-group")
                    .done()
            }
            RequestKind::AllocateSecondary => {
                let want =
                    |i: &Inst, _: &[Node]| i.template == DiskTemplate::Plain && i.snode.is_none();
                let idx = self.find_or_make(&want, DiskTemplate::Plain);
                let inst = self.insts[idx].clone();
                label = inst.template.as_str().to_string();
                ObjB::new()
                    .put("name", &inst.name)
                    .put("type", "allocate-secondary")
                    .done()
            }
        };
        let restrict = if self.spec.options.restrict_allocation {
            Some(self.node_subset())
        } else {
            None
        };
        (req, label, restrict)
    }

    /// A random non-empty subset of the online nodes, in name order (sometimes
    /// including a node that is not online).
    pub(super) fn node_subset(&mut self) -> Vec<String> {
        let online: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| self.nodes[i].online())
            .collect();
        let pool = if online.is_empty() {
            (0..self.nodes.len()).collect()
        } else {
            online
        };
        let frac = *self.r.pick(&[0.2, 0.5, 0.5, 0.8]);
        let mut v: Vec<usize> = pool
            .iter()
            .copied()
            .filter(|_| self.r.chance(frac))
            .collect();
        if v.is_empty() {
            v.push(*self.r.pick(&pool));
        }
        if self.r.chance(0.1) {
            let any = self.r.below(self.nodes.len() as u64) as usize;
            if !v.contains(&any) {
                v.push(any);
            }
        }
        let mut names: Vec<String> = v.iter().map(|&i| self.nodes[i].name.clone()).collect();
        names.sort();
        names
    }

    pub(super) fn evac_instances(&mut self, mode: EvacMode) -> Vec<String> {
        let relevant = |inst: &Inst, node: usize| match mode {
            EvacMode::PrimaryOnly => inst.pnode == node,
            EvacMode::SecondaryOnly => inst.snode == Some(node),
            EvacMode::All => inst.pnode == node || inst.snode == Some(node),
        };
        let mut per_node: Vec<Vec<usize>> = vec![Vec::new(); self.nodes.len()];
        for (i, inst) in self.insts.iter().enumerate() {
            per_node[inst.pnode].push(i);
            if let Some(s) = inst.snode {
                per_node[s].push(i);
            }
        }
        let with: Vec<usize> = (0..self.nodes.len())
            .filter(|&n| per_node[n].iter().any(|&i| relevant(&self.insts[i], n)))
            .collect();
        let mut chosen: Vec<usize> = Vec::new();
        if with.is_empty() {
            // Create an instance that gives the evacuation something to do.
            let t = if mode == EvacMode::PrimaryOnly && self.r.chance(0.3) {
                DiskTemplate::Rbd
            } else {
                DiskTemplate::Drbd
            };
            let want = |i: &Inst, _: &[Node]| i.template == DiskTemplate::Drbd && i.snode.is_some();
            let idx = self.find_or_make(&want, t);
            let inst = &self.insts[idx];
            let node = match (mode, inst.snode) {
                (EvacMode::SecondaryOnly, Some(s)) => s,
                _ => inst.pnode,
            };
            per_node = vec![Vec::new(); self.nodes.len()];
            for (i, inst) in self.insts.iter().enumerate() {
                per_node[inst.pnode].push(i);
                if let Some(s) = inst.snode {
                    per_node[s].push(i);
                }
            }
            chosen.push(node);
        } else {
            let bad: Vec<usize> = with
                .iter()
                .copied()
                .filter(|&n| self.nodes[n].offline || self.nodes[n].drained)
                .collect();
            let first = if !bad.is_empty() && self.r.chance(0.6) {
                *self.r.pick(&bad)
            } else {
                *self.r.pick(&with)
            };
            chosen.push(first);
            let extra = [0usize, 0, 0, 0, 0, 0, 1, 1, 2][self.r.below(9) as usize];
            for _ in 0..extra {
                let n = *self.r.pick(&with);
                if !chosen.contains(&n) {
                    chosen.push(n);
                }
            }
        }
        let mut idxs: Vec<usize> = Vec::new();
        for &n in &chosen {
            for &i in &per_node[n] {
                if relevant(&self.insts[i], n) && !idxs.contains(&i) {
                    idxs.push(i);
                }
            }
        }
        // gnt-debug can send any subset; Ganeti's own node evacuation sends every
        // instance of the node. Mode "all" (only reachable via gnt-debug) uses
        // subsets more often.
        let subset_p = if mode == EvacMode::All { 0.5 } else { 0.15 };
        if idxs.len() > 1 && self.r.chance(subset_p) {
            self.r.shuffle(&mut idxs);
            let k = 1 + self.r.below(3.min(idxs.len() as u64)) as usize;
            idxs.truncate(k);
        }
        if idxs.is_empty() {
            // The created instance may not be relevant for secondary-only (no drbd possible).
            idxs.push(per_node[chosen[0]].first().copied().unwrap_or(0));
        }
        if self.r.chance(0.5) {
            idxs.sort_by(|&a, &b| self.insts[a].name.cmp(&self.insts[b].name));
        } else {
            idxs.sort_unstable();
        }
        idxs.iter().map(|&i| self.insts[i].name.clone()).collect()
    }

    pub(super) fn change_group_instances(&mut self) -> (Vec<String>, Vec<String>) {
        if self.insts.is_empty() {
            let t = if self.r.chance(0.6) {
                DiskTemplate::Drbd
            } else {
                DiskTemplate::Plain
            };
            let want = |_: &Inst, _: &[Node]| true;
            self.find_or_make(&want, t);
        }
        let src_groups: Vec<usize> = {
            let mut v: Vec<usize> = self
                .insts
                .iter()
                .map(|i| self.nodes[i.pnode].group)
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let src = *self.r.pick(&src_groups);
        let in_src: Vec<usize> = (0..self.insts.len())
            .filter(|&i| self.nodes[self.insts[i].pnode].group == src)
            .collect();
        // Mostly instances that can move at all (DRBD or shared storage).
        let movable: Vec<usize> = in_src
            .iter()
            .copied()
            .filter(|&i| {
                self.insts[i].template != DiskTemplate::Plain
                    && self.insts[i].template != DiskTemplate::File
            })
            .collect();
        let pool = if !movable.is_empty() && self.r.chance(0.75) {
            movable
        } else {
            in_src.clone()
        };
        let mut idxs: Vec<usize> =
            if self.r.chance(0.2) && in_src.len() <= 24 && self.spec.nodes <= 50 {
                // A group evacuation: every instance of the group (only in small
                // clusters, as hail handles every instance separately).
                in_src.clone()
            } else {
                let k = 1 + [0usize, 0, 0, 1, 1, 2, 3][self.r.below(7) as usize];
                let mut v = Vec::new();
                for _ in 0..k {
                    let i = *self.r.pick(&pool);
                    if !v.contains(&i) {
                        v.push(i);
                    }
                }
                v
            };
        if src_groups.len() > 1 && self.r.chance(0.1) {
            // Instances from two groups.
            let i = self.r.below(self.insts.len() as u64) as usize;
            if !idxs.contains(&i) {
                idxs.push(i);
            }
        }
        let mut evac_groups: Vec<usize> = idxs
            .iter()
            .map(|&i| self.nodes[self.insts[i].pnode].group)
            .collect();
        evac_groups.sort_unstable();
        evac_groups.dedup();
        let others: Vec<usize> = (0..self.groups.len())
            .filter(|g| !evac_groups.contains(g))
            .collect();
        let targets: Vec<usize> = match self.r.below(20) {
            0..=10 => others.clone(),
            11..=15 if !others.is_empty() => vec![*self.r.pick(&others)],
            16 => Vec::new(),
            _ => {
                let mut v: Vec<usize> = others
                    .iter()
                    .copied()
                    .filter(|_| self.r.chance(0.5))
                    .collect();
                if self.r.chance(0.3) {
                    v.push(src);
                }
                v
            }
        };
        let names = idxs.iter().map(|&i| self.insts[i].name.clone()).collect();
        let targets = targets
            .iter()
            .map(|&g| self.groups[g].uuid.clone())
            .collect();
        (names, targets)
    }

    /// The template whose storage the nodes report (see [`StorageReport`]).
    pub(super) fn report_template(&self, request_template: Option<DiskTemplate>) -> DiskTemplate {
        let from_request = match self.spec.kind {
            RequestKind::Allocate | RequestKind::Relocate => request_template,
            _ => None,
        };
        from_request.unwrap_or_else(|| {
            // The cluster's first enabled disk template: the most weighted one.
            if self.spec.instance_templates.is_empty() {
                DiskTemplate::Drbd
            } else {
                let mut best = self.spec.instance_templates[0];
                for &(t, w) in &self.spec.instance_templates {
                    if w > best.1 {
                        best = (t, w);
                    }
                }
                best.0
            }
        })
    }

    pub(super) fn options(&self, restrict: Option<Vec<String>>) -> Vec<String> {
        let o = &self.spec.options;
        let mut v = Vec::new();
        if o.ignore_soft_errors {
            v.push("--ignore-soft-errors".to_string());
        }
        if o.no_capacity_checks {
            v.push("--no-capacity-checks".to_string());
        }
        if let Some(r) = restrict {
            v.push(format!("--restrict-allocation-to={}", r.join(",")));
        }
        if let Some(m) = o.static_kvm_node_memory {
            v.push(format!("--static-kvm-node-memory={}", m));
        }
        v
    }

    // ----- the document -----
}
