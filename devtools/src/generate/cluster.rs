//! Building the cluster: groups and their policies, nodes and their
//! hardware, tags.

use super::*;

impl<'a> Gen<'a> {
    pub(super) fn new(spec: &'a CaseSpec) -> Gen<'a> {
        let mut r = Rng::new(mix(spec.seed, spec.kind.salt()));
        let domain = match r.below(6) {
            0..=2 => "example.com".to_string(),
            3 => "example.org".to_string(),
            4 => format!("dc{}.example.net", 1 + r.below(9)),
            _ => "ganeti.test".to_string(),
        };
        let kvm_first = spec
            .hypervisors
            .first()
            .map(|h| h == "kvm")
            .unwrap_or(false);
        let hail_reserved = match (kvm_first, spec.options.static_kvm_node_memory) {
            (true, None) => Some(4096),
            (true, Some(v)) if v > 0 => Some(v),
            _ => None,
        };
        Gen {
            spec,
            r,
            domain,
            groups: Vec::new(),
            nodes: Vec::new(),
            insts: Vec::new(),
            cluster_tags: Vec::new(),
            networks: Vec::new(),
            excl_prefixes: Vec::new(),
            loc_prefix: None,
            loc_values: Vec::new(),
            desired_prefix: None,
            mig_prefix: None,
            mac_counter: 0,
            inst_counter: 0,
            hail_reserved,
            new_spindles: None,
            new_network: None,
            new_tags: None,
            cluster_policy: None,
        }
    }

    pub(super) fn f(&self) -> &Features {
        &self.spec.features
    }

    // ----- groups -----

    pub(super) fn build_groups(&mut self) {
        let nodes = self.spec.nodes.max(1);
        let ng = self.spec.groups.clamp(1, nodes);
        if self.f().networks {
            let nn = 1 + self.r.below(4) as usize;
            for _ in 0..nn {
                let u = self.r.uuid();
                self.networks.push(u);
            }
        }
        let naming = self.r.below(4);
        let all_unalloc = self.f().alloc_policies && self.r.chance(0.15);
        let all_excl = self.f().exclusive_storage && self.r.chance(0.35);
        let total = ng + usize::from(self.f().empty_group);
        // Groups usually inherit the cluster's policy; some override it.
        let cluster_policy = self.make_ipolicy(false);
        self.cluster_policy = Some(cluster_policy.clone());
        for gi in 0..total {
            let mut name = match naming {
                0 => {
                    if gi == 0 {
                        "default".to_string()
                    } else {
                        format!("group{}", gi + 1)
                    }
                }
                1 => format!("rack-{}", (b'a' + gi as u8) as char),
                2 => format!("zone{}", gi + 1),
                _ => format!("grp-{:02}", gi),
            };
            if self.f().non_ascii && gi == 1 {
                name.push_str("-s\u{fc}d");
            }
            let policy = if all_unalloc {
                AllocPolicy::Unallocable
            } else if self.f().alloc_policies {
                [
                    AllocPolicy::Preferred,
                    AllocPolicy::LastResort,
                    AllocPolicy::Unallocable,
                ][self.r.weighted(&[6, 3, 2])]
            } else {
                AllocPolicy::Preferred
            };
            let excl = self.f().exclusive_storage && (all_excl || self.r.chance(0.5));
            let mut ipolicy = if !excl && self.r.chance(0.6) {
                cluster_policy.clone()
            } else {
                self.make_ipolicy(excl)
            };
            if self.f().storage_partitions {
                use DiskTemplate as T;
                let kinds: [&[DiskTemplate]; 4] = [
                    &[T::Diskless, T::Plain, T::Drbd],
                    &[T::Diskless, T::Plain, T::Drbd, T::Rbd, T::Ext],
                    &[T::Diskless, T::Sharedfile, T::Rbd, T::Ext],
                    &[T::File],
                ];
                let kind = if gi == 0 {
                    1
                } else {
                    self.r.weighted(&[3, 3, 3, 1])
                };
                ipolicy.templates = kinds[kind].to_vec();
                if excl && !ipolicy.templates.contains(&T::Plain) {
                    ipolicy.templates.push(T::Plain);
                }
                ipolicy.templates.sort();
            }
            let networks = if self.networks.is_empty() {
                Vec::new()
            } else {
                let mut v: Vec<String> = Vec::new();
                for i in 0..self.networks.len() {
                    if self.r.chance(0.65) {
                        v.push(self.networks[i].clone());
                    }
                }
                v
            };
            let mut tags = Vec::new();
            if self.f().group_tags {
                let pool = [
                    "dc:ams1",
                    "tier:gold",
                    "owner:ops",
                    "env:prod",
                    "env:staging",
                    "power:a",
                ];
                for _ in 0..self.r.below(3) {
                    let t = self.r.pick(&pool).to_string();
                    if !tags.contains(&t) {
                        tags.push(t);
                    }
                }
                if self.f().non_ascii && self.r.chance(0.5) {
                    tags.push("besitzer:m\u{fc}ller".to_string());
                }
            }
            let uuid = self.r.uuid();
            let fill = if gi == 0 || self.r.chance(0.5) {
                1.0
            } else {
                self.r.range(20, 100) as f64 / 100.0
            };
            self.groups.push(Group {
                uuid,
                name,
                policy,
                networks,
                ipolicy,
                tags,
                excl,
                fill,
                nodes: Vec::new(),
            });
        }
    }

    pub(super) fn make_ipolicy(&mut self, excl: bool) -> IPolicy {
        let r = &mut self.r;
        let base_min = ISpec {
            mem: 128,
            cpu: 1,
            disk_size: 1024,
            disk_count: 1,
            nic_count: 1,
            spindle_use: 1,
        };
        let base_max = ISpec {
            mem: 32768,
            cpu: 8,
            disk_size: 1048576,
            disk_count: 16,
            nic_count: 8,
            spindle_use: 12,
        };
        let npairs = if excl {
            2 + r.below(3) as usize
        } else if self.spec.features.multi_minmax {
            1 + r.below(3) as usize
        } else {
            1
        };
        let mut minmax = Vec::new();
        if npairs == 1 {
            let mut lo = base_min;
            let mut hi = base_max;
            if r.chance(0.5) {
                hi.mem = *r.pick(&[65536, 131072, 262144, 524288]);
                hi.cpu = *r.pick(&[8, 16, 32, 64]);
                hi.disk_size = *r.pick(&[1048576, 2097152, 4194304]);
            }
            if r.chance(0.2) {
                lo.disk_size = *r.pick(&[128, 256, 512]);
            }
            if r.chance(0.1) {
                hi.spindle_use = *r.pick(&[2, 4, 8]);
            }
            minmax.push((lo, hi));
        } else if r.chance(0.5) {
            // Disjoint tiers: small, medium, large, huge.
            let mems = [128, 4096, 16384, 65536, 262144];
            let dsks = [128, 65536, 262144, 1048576, 4194304];
            let cpus = [1, 2, 4, 8, 32];
            let start = r.below((5 - npairs) as u64) as usize;
            for k in 0..npairs {
                let i = (start + k).min(3);
                let lo = ISpec {
                    mem: mems[i],
                    cpu: cpus[i],
                    disk_size: dsks[i],
                    disk_count: 1,
                    nic_count: 1,
                    spindle_use: 1,
                };
                let hi = ISpec {
                    mem: mems[i + 1] - if k + 1 < npairs { 1 } else { 0 },
                    cpu: cpus[i + 1],
                    disk_size: dsks[i + 1] - if k + 1 < npairs { 1 } else { 0 },
                    disk_count: 16,
                    nic_count: 8,
                    spindle_use: 12,
                };
                minmax.push((lo, hi));
            }
            if r.chance(0.5) {
                minmax.reverse();
            }
        } else {
            // Overlapping specs around the default.
            for _ in 0..npairs {
                let lo = ISpec {
                    mem: *r.pick(&[128, 512, 1024, 2048]),
                    cpu: 1,
                    disk_size: *r.pick(&[128, 1024, 10240]),
                    disk_count: 1,
                    nic_count: 1,
                    spindle_use: 1,
                };
                let hi = ISpec {
                    mem: *r.pick(&[8192, 32768, 65536, 131072]),
                    cpu: *r.pick(&[4, 8, 16, 32]),
                    disk_size: *r.pick(&[262144, 1048576, 4194304]),
                    disk_count: *r.pick(&[4, 8, 16]),
                    nic_count: 8,
                    spindle_use: *r.pick(&[4, 12, 24]),
                };
                minmax.push((lo, hi));
            }
        }
        let (lo0, hi0) = minmax[0];
        let std = ISpec {
            mem: (1024i64).clamp(lo0.mem, hi0.mem),
            cpu: 1i64.clamp(lo0.cpu, hi0.cpu),
            disk_size: (1024i64).clamp(lo0.disk_size, hi0.disk_size),
            disk_count: 1,
            nic_count: 1,
            spindle_use: 1i64.clamp(lo0.spindle_use, hi0.spindle_use),
        };
        let mut templates: Vec<DiskTemplate> = DiskTemplate::ALL.to_vec();
        if self.spec.features.restricted_templates && r.chance(0.7) {
            templates.retain(|_| r.chance(0.6));
            if templates.is_empty() {
                templates.push(*r.pick(&DiskTemplate::ALL));
            }
            if excl && !templates.contains(&DiskTemplate::Plain) {
                templates.push(DiskTemplate::Plain);
                templates.sort();
            }
        }
        if r.chance(0.1) {
            r.shuffle(&mut templates);
        }
        let vcpu_ratio = if self.spec.features.tight_vcpu_ratio {
            *r.pick(&[1.0, 1.5, 2.0])
        } else if r.chance(0.3) {
            *r.pick(&[2.0, 3.0, 6.0, 8.0, 16.0, 32.0])
        } else {
            4.0
        };
        let spindle_ratio = if self.spec.features.tight_spindle_ratio {
            *r.pick(&[1.0, 2.0, 4.0, 8.0])
        } else if r.chance(0.1) {
            *r.pick(&[16.0, 64.0])
        } else {
            32.0
        };
        IPolicy {
            minmax,
            std,
            templates,
            vcpu_ratio,
            spindle_ratio,
        }
    }

    // ----- nodes -----

    pub(super) fn build_nodes(&mut self) {
        let n = self.spec.nodes.max(1);
        let ng = self.spec.groups.clamp(1, n);
        // Distribute the nodes over the groups that hold nodes, each getting at least one.
        let weights: Vec<u64> = (0..ng).map(|_| 1 + self.r.below(4)).collect();
        let wsum: u64 = weights.iter().sum();
        let min_per_group = if n >= 3 * ng {
            3
        } else if n >= 2 * ng {
            2
        } else {
            1
        };
        let mut counts: Vec<usize> = vec![min_per_group; ng];
        let rest = n - ng * min_per_group;
        let mut given = 0;
        for g in 0..ng {
            let c = (rest as u64 * weights[g] / wsum) as usize;
            counts[g] += c;
            given += c;
        }
        for i in 0..(rest - given) {
            counts[i % ng] += 1;
        }
        let interleave = self.r.chance(0.25);
        let mut order: Vec<usize> = Vec::with_capacity(n);
        if interleave {
            let mut left = counts.clone();
            while order.len() < n {
                for (g, l) in left.iter_mut().enumerate() {
                    if *l > 0 {
                        *l -= 1;
                        order.push(g);
                    }
                }
            }
        } else {
            for (g, &c) in counts.iter().enumerate() {
                order.extend(std::iter::repeat_n(g, c));
            }
        }

        // Hardware profile per group; heterogeneous groups draw per node.
        let mut hws = Vec::new();
        let cluster_hw = self.draw_hw();
        for _ in 0..ng {
            let hw = if self.r.chance(0.6) {
                cluster_hw
            } else {
                self.draw_hw()
            };
            hws.push(hw);
        }

        let naming = if self.f().no_common_suffix {
            3 + self.r.below(2)
        } else {
            self.r.below(3)
        };
        let dead_group = if self.f().dead_group {
            Some(self.r.below(ng as u64) as usize)
        } else {
            None
        };
        let mc_count = self.r.range(3, 10) as usize;
        for (i, &gi) in order.iter().enumerate() {
            let name = match naming {
                0 => format!("node-{:04}.{}", i + 1, self.domain),
                1 => format!("node{}.{}", i + 1, self.domain),
                2 => format!(
                    "{}-n{:03}.{}",
                    self.groups[gi].name.replace('\u{fc}', "u"),
                    i + 1,
                    self.domain
                ),
                3 => {
                    // Mixed domains: no suffix shared by every name.
                    let d = ["example.com", "example.org", "lab.example.net"][i % 3];
                    format!("node-{:04}.{}", i + 1, d)
                }
                _ => format!("node{}", i + 1),
            };
            let name = if naming == 2 {
                name.chars().filter(|c| c.is_ascii()).collect()
            } else {
                name
            };
            let (mem, cpu, dsk, spc, pvs, _) = if self.spec.shape == Shape::Hosting {
                self.draw_hosting_hw()
            } else if hws[gi].5 && self.r.chance(0.5) {
                self.draw_hw()
            } else {
                hws[gi]
            };
            let excl = self.groups[gi].excl;
            let reserved_mem = match self.spec.hypervisors.first().map(String::as_str) {
                Some("kvm") | Some("lxc") => {
                    *self.r.pick(&[512, 1024, 1536, 2048, 3072, 4096, 4608])
                }
                _ => *self.r.pick(&[1024, 1024, 2048, 4096]),
            };
            let reserved_mem = reserved_mem.min(mem / 4);
            let mut offline = self.f().offline_nodes && self.r.chance(0.07);
            // Multi-group profile: offline nodes in every third group only,
            // so that healthy groups remain to repair the others into.
            offline &= !(self.f().storage_partitions && gi % 3 != 1);
            let mut drained = self.f().drained_nodes && self.r.chance(0.07);
            let vm_capable = !(self.f().non_vm_capable && self.r.chance(0.08));
            if dead_group == Some(gi) {
                if self.r.chance(0.5) {
                    offline = true;
                } else {
                    drained = true;
                }
            }
            let (pip, sip) = if n < 250 {
                (
                    format!("192.0.2.{}", i + 1),
                    format!("198.51.100.{}", i + 1),
                )
            } else {
                (
                    format!("10.0.{}.{}", (i + 1) / 250, (i + 1) % 250 + 1),
                    format!("10.128.{}.{}", (i + 1) / 250, (i + 1) % 250 + 1),
                )
            };
            let master_candidate = i < mc_count && !offline && !drained;
            // Offline nodes have usually been evacuated already; with the
            // switch on, some still hold their instances.
            let keep = if self.f().offline_with_instances {
                0.6
            } else {
                0.0
            };
            let hosts = vm_capable && (!offline || self.r.chance(keep));
            let tspindles = if excl { pvs } else { 0 };
            self.nodes.push(Node {
                name,
                group: gi,
                offline,
                drained,
                vm_capable,
                hosts,
                master_candidate,
                master_capable: vm_capable || self.r.chance(0.8),
                tmem: mem,
                reserved_mem,
                tdsk: dsk,
                tcpu: cpu,
                reserved_cpus: if self.r.chance(0.85) {
                    1
                } else {
                    *self.r.pick(&[0, 2, 4])
                },
                spindle_count: spc,
                tspindles,
                excl,
                tags: Vec::new(),
                pip,
                sip,
                pri_mem: 0,
                up_mem: 0,
                lvm_used: 0,
                file_used: 0,
                spindles_used: 0,
                vcpus_used: 0,
                su_used: 0,
                peers: Vec::new(),
                missing: 0,
            });
            self.groups[gi].nodes.push(i);
        }
        // Make sure the switches that promise some offline/drained nodes deliver one.
        if n >= 3 {
            if self.f().offline_nodes && !self.nodes.iter().any(|x| x.offline) {
                let i = self.r.below(n as u64) as usize;
                self.nodes[i].offline = true;
                self.nodes[i].master_candidate = false;
            }
            if self.f().drained_nodes && !self.nodes.iter().any(|x| x.drained) {
                let i = self.r.below(n as u64) as usize;
                self.nodes[i].drained = true;
                self.nodes[i].master_candidate = false;
            }
        }
    }

    pub(super) fn draw_hw(&mut self) -> (i64, i64, i64, i64, i64, bool) {
        let r = &mut self.r;
        let mut mem = *r.pick(&[
            8192i64, 16384, 32768, 65536, 65536, 98304, 131072, 262144, 524288,
        ]);
        if r.chance(0.6) {
            // Real nodes report a little less than the installed memory.
            mem -= r.range(1, 700);
        }
        let cpu = *r.pick(&[4i64, 8, 12, 16, 24, 32, 48, 64, 128]);
        let mut dsk = *r.pick(&[
            102400i64, 256000, 512000, 1048576, 2097152, 4194304, 8388608,
        ]);
        if r.chance(0.6) {
            dsk -= r.range(1, 40) * 1024 + r.range(0, 1023);
        }
        let spc = if r.chance(0.8) { 1 } else { r.range(2, 4) };
        let pvs = r.range(4, 24);
        let hetero = r.chance(0.2);
        (mem, cpu, dsk, spc, pvs, hetero)
    }

    /// One node of the hosting shape: one of three hardware generations
    /// (the oldest small, the newest large), drawn per node.
    pub(super) fn draw_hosting_hw(&mut self) -> (i64, i64, i64, i64, i64, bool) {
        let r = &mut self.r;
        let (mem, cpu, dsk) = [
            (98304i64, 24i64, 1_887_436i64),
            (196608, 48, 3_774_873),
            (393216, 64, 7_549_747),
        ][r.weighted(&[2, 5, 3])];
        (
            mem - r.range(200, 900),
            cpu,
            dsk - r.range(0, 20) * 1024,
            1,
            12,
            true,
        )
    }

    // ----- tags -----

    pub(super) fn build_tags(&mut self) {
        if self.f().exclusion_tags || self.spec.shape == Shape::Hosting {
            let np = 1 + usize::from(self.r.chance(0.3));
            let prefixes = ["service", "app"];
            for p in prefixes.iter().take(np) {
                self.excl_prefixes.push(p.to_string());
                self.cluster_tags.push(format!("htools:iextags:{}", p));
            }
        }
        if self.f().location_tags || self.f().desired_location {
            let p = *self.r.pick(&["rack", "power", "zone"]);
            let nv = self.r.range(2, 5);
            self.loc_values = (0..nv)
                .map(|k| format!("{}:{}{}", p, &p[..1], k + 1))
                .collect();
            if self.f().location_tags {
                self.cluster_tags.push(format!("htools:nlocation:{}", p));
            }
            if self.f().desired_location {
                self.cluster_tags
                    .push(format!("htools:desiredlocation:{}", p));
                self.desired_prefix = Some(p.to_string());
            }
            self.loc_prefix = Some(p.to_string());
        }
        let mut mig_values: Vec<String> = Vec::new();
        if self.f().migration_tags {
            let p = "hv".to_string();
            self.cluster_tags.push(format!("htools:migration:{}", p));
            mig_values = vec![
                "hv:kvm6".to_string(),
                "hv:kvm7".to_string(),
                "hv:kvm8".to_string(),
            ];
            if self.r.chance(0.6) {
                self.cluster_tags
                    .push("htools:allowmigration:hv:kvm6::hv:kvm7".to_string());
            }
            if self.r.chance(0.3) {
                self.cluster_tags
                    .push("htools:allowmigration:hv:kvm7::hv:kvm8".to_string());
            }
            self.mig_prefix = Some(p);
        }
        if self.f().cluster_tag_noise {
            let pool = [
                "production",
                "backup:daily",
                "owner:infra",
                "htools:other",
                "monitoring",
            ];
            for _ in 0..self.r.range(1, 3) {
                let t = self.r.pick(&pool).to_string();
                if !self.cluster_tags.contains(&t) {
                    self.cluster_tags.push(t);
                }
            }
        }
        if self.r.chance(0.3) {
            self.r.shuffle(&mut self.cluster_tags);
        }
        // Node tags: location tags per block of nodes, migration tags per group.
        let loc_block = self.r.range(1, 4) as usize;
        for i in 0..self.nodes.len() {
            let mut tags = Vec::new();
            if self.loc_prefix.is_some() && self.r.chance(0.9) {
                let k = (i / loc_block) % self.loc_values.len();
                tags.push(self.loc_values[k].clone());
            }
            if !mig_values.is_empty() && self.r.chance(0.85) {
                let gi = self.nodes[i].group;
                let mixed = self.f().mixed_migration_tags && self.r.chance(0.15);
                let k = if mixed {
                    self.r.below(3) as usize
                } else {
                    gi % mig_values.len()
                };
                tags.push(mig_values[k].clone());
            }
            if self.f().node_tags && self.r.chance(0.5) {
                let pool = ["hw:gen3", "hw:gen4", "owner:ops", "maintenance", "ssd"];
                tags.push(self.r.pick(&pool).to_string());
                if self.f().non_ascii && self.r.chance(0.3) {
                    tags.push("standort:k\u{f6}ln".to_string());
                }
            }
            self.nodes[i].tags = tags;
        }
    }

    // ----- instances -----
}
