//! The request document: nodes, instances and groups written as a Ganeti
//! master writes them.

use super::*;

impl<'a> Gen<'a> {
    pub(super) fn node_json(&self, n: &Node, report: DiskTemplate) -> J {
        let mut o = ObjB::new();
        if n.live() {
            let lvm = self.spec.storage_report == StorageReport::Lvm || report.is_lvm();
            let (tdsk, fdsk) = if lvm {
                (n.tdsk, n.tdsk - n.lvm_used)
            } else if report == DiskTemplate::File {
                (n.tdsk, n.tdsk - n.file_used)
            } else {
                (0, 0)
            };
            let (tsp, fsp) = if lvm && n.excl {
                (n.tspindles, n.tspindles - n.spindles_used)
            } else {
                (0, 0)
            };
            let free_mem = (n.tmem - n.reserved_mem - n.up_mem - n.missing).max(0);
            o.put("total_memory", n.tmem)
                .put("reserved_memory", n.reserved_mem)
                .put("free_memory", free_mem)
                .put("total_disk", tdsk)
                .put("free_disk", fdsk)
                .put("total_spindles", tsp)
                .put("free_spindles", fsp)
                .put("total_cpus", n.tcpu)
                .put("reserved_cpus", n.reserved_cpus)
                .put("i_pri_memory", n.pri_mem)
                .put("i_pri_up_memory", n.up_mem);
        }
        let nd = ObjB::new()
            .putj("cpu_speed", J::Float(1.0))
            .put("exclusive_storage", n.excl)
            .put("oob_program", "")
            .put("ovs", false)
            .put("ovs_link", "")
            .put("ovs_name", "switch1")
            .put("spindle_count", n.spindle_count)
            .put("ssh_port", 22i64)
            .done();
        o.putj("tags", str_list(&n.tags))
            .put("primary_ip", &n.pip)
            .put("secondary_ip", &n.sip)
            .put("offline", n.offline)
            .put("drained", n.drained)
            .put("master_candidate", n.master_candidate)
            .put("group", &self.groups[n.group].uuid)
            .put("master_capable", n.master_capable)
            .put("vm_capable", n.vm_capable)
            .putj("ndparams", nd);
        o.done()
    }

    pub(super) fn inst_json(&self, i: &Inst) -> J {
        let mut nodes = vec![self.nodes[i.pnode].name.clone()];
        if let Some(s) = i.snode {
            nodes.push(self.nodes[s].name.clone());
        }
        let nics: Vec<J> = i
            .nics
            .iter()
            .map(|n| {
                let mut o = ObjB::new();
                o.put("mac", &n.mac)
                    .putj("ip", n.ip.as_ref().map(J::from).unwrap_or(J::Null))
                    .put("mode", n.mode)
                    .put("link", &n.link);
                if n.mode == "bridged" {
                    o.put("bridge", &n.link);
                }
                if let Some(net) = &n.network {
                    o.put("network", net);
                }
                o.done()
            })
            .collect();
        let disks: Vec<J> = i
            .disks
            .iter()
            .map(|d| {
                ObjB::new()
                    .put("dev_type", i.template.as_str())
                    .put("size", d.size)
                    .put("mode", d.mode)
                    .putj("spindles", d.spindles.map(J::Int).unwrap_or(J::Null))
                    .done()
            })
            .collect();
        ObjB::new()
            .putj("tags", str_list(&i.tags))
            .put("admin_state", i.admin.as_str())
            .put("vcpus", i.vcpus)
            .put("memory", i.mem)
            .put("spindle_use", i.su)
            .put("os", i.os)
            .putj("nodes", str_list(&nodes))
            .putj("nics", J::Arr(nics))
            .putj("disks", J::Arr(disks))
            .put("disk_template", i.template.as_str())
            .put("disks_active", i.admin == AdminState::Up)
            .put("hypervisor", &i.hv)
            .put("disk_space_total", i.dsk())
            .done()
    }

    pub(super) fn document(&mut self, request: J, report: DiskTemplate) -> J {
        let mut gorder: Vec<usize> = (0..self.groups.len()).collect();
        let mut norder: Vec<usize> = (0..self.nodes.len()).collect();
        let mut iorder: Vec<usize> = (0..self.insts.len()).collect();
        if self.f().shuffled_order {
            self.r.shuffle(&mut norder);
            self.r.shuffle(&mut iorder);
            self.r.shuffle(&mut gorder);
        } else {
            norder.sort_by(|&a, &b| self.nodes[a].name.cmp(&self.nodes[b].name));
            iorder.sort_by(|&a, &b| self.insts[a].name.cmp(&self.insts[b].name));
        }
        let groups: Vec<(String, J)> = gorder
            .iter()
            .map(|&g| {
                let gr = &self.groups[g];
                let j = ObjB::new()
                    .put("name", &gr.name)
                    .put("alloc_policy", gr.policy.as_str())
                    .putj("networks", str_list(&gr.networks))
                    .putj("ipolicy", gr.ipolicy.json())
                    .putj("tags", str_list(&gr.tags))
                    .done();
                (gr.uuid.clone(), j)
            })
            .collect();
        let nodes: Vec<(String, J)> = norder
            .iter()
            .map(|&i| {
                (
                    self.nodes[i].name.clone(),
                    self.node_json(&self.nodes[i], report),
                )
            })
            .collect();
        let insts: Vec<(String, J)> = iorder
            .iter()
            .map(|&i| (self.insts[i].name.clone(), self.inst_json(&self.insts[i])))
            .collect();
        let cluster_policy = self
            .cluster_policy
            .as_ref()
            .map(|p| p.json())
            .unwrap_or(J::Null);
        let hvs: Vec<String> = self.spec.hypervisors.clone();
        ObjB::new()
            .put("version", 2i64)
            .put("cluster_name", format!("cluster.{}", self.domain))
            .putj("cluster_tags", str_list(&self.cluster_tags))
            .putj("enabled_hypervisors", str_list(&hvs))
            .putj("ipolicy", cluster_policy)
            .putj("nodegroups", J::Obj(groups))
            .putj("nodes", J::Obj(nodes))
            .putj("instances", J::Obj(insts))
            .putj("request", request)
            .done()
    }
}
