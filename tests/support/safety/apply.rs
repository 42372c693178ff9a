//! Applying an answer to the cluster: placements one after another,
//! evacuation jobs opcode by opcode, each checked against Ganeti's rules.

use super::*;

/// Resources this answer has consumed so far, per node (negative where it freed some).
pub(super) struct Usage {
    pub(super) memory: Vec<i128>,
    pub(super) disk: Vec<i128>,
    pub(super) spindles: Vec<i128>,
    /// Exclusion tags of instances this answer put on the node as primary.
    pub(super) tags: Vec<Vec<String>>,
}

impl Usage {
    pub(super) fn new(n: usize) -> Usage {
        Usage {
            memory: vec![0; n],
            disk: vec![0; n],
            spindles: vec![0; n],
            tags: vec![Vec::new(); n],
        }
    }
}

pub(super) fn add_at(v: &mut [i128], n: usize, amount: i128) {
    if let Some(x) = v.get_mut(n) {
        *x = x.saturating_add(amount);
    }
}

pub(super) fn at(v: &[i128], n: usize) -> i128 {
    v.get(n).copied().unwrap_or(0)
}

pub(super) struct Checker<'a> {
    pub(super) c: &'a Cluster,
    pub(super) opts: &'a Options,
    pub(super) rep: &'a mut Report,
    pub(super) usage: Usage,
}

impl Checker<'_> {
    /// Resolves node names, reporting unknown ones; None if any is unknown.
    pub(super) fn resolve_nodes(&mut self, names: &[String], what: &str) -> Option<Vec<usize>> {
        let mut out = Vec::new();
        let mut ok = true;
        for n in names {
            match self.c.node_ix.get(n).copied() {
                Some(ix) => out.push(ix),
                None => {
                    self.rep.add(
                        UNKNOWN_NAME,
                        format!("{what}: node '{n}' does not exist in the request"),
                    );
                    ok = false;
                }
            }
        }
        ok.then_some(out)
    }

    /// A node that gets a new primary or secondary role must be online, not
    /// drained and vm_capable (`CheckNodeOnline`, `CheckNodeNotDrained`,
    /// `CheckNodeVmCapable`; iallocator.rst: "No allocations should be made on
    /// nodes having either the drained or offline flags set").
    pub(super) fn check_target(&mut self, n: usize, role: &str, what: &str) {
        let Some(node) = self.c.nodes.get(n) else {
            return;
        };
        if node.offline {
            self.rep.add(
                OFFLINE_TARGET,
                format!("{what}: {role} {} is offline", node.name),
            );
        }
        if node.drained {
            self.rep.add(
                DRAINED_TARGET,
                format!("{what}: {role} {} is drained", node.name),
            );
        }
        if !node.vm_capable {
            self.rep.add(
                NOT_VM_CAPABLE_TARGET,
                format!("{what}: {role} {} is not vm_capable", node.name),
            );
        }
    }

    /// The instance's memory must fit in the node's reported free memory minus
    /// what this answer already put there (`CheckNodeFreeMemory`: refused when
    /// requested > free).
    pub(super) fn take_memory(&mut self, n: usize, inst: &Inst, what: &str) {
        if !inst.uses_memory {
            return;
        }
        let Some(node) = self.c.nodes.get(n) else {
            return;
        };
        let free = node.free_memory.saturating_sub(at(&self.usage.memory, n));
        if inst.memory > free {
            self.rep.add(
                MEMORY,
                format!(
                    "{what}: {} needs {} MiB on {} but only {} MiB are free (reported {}, net use by earlier steps of this answer {})",
                    inst.name,
                    inst.memory,
                    node.name,
                    free,
                    node.free_memory,
                    at(&self.usage.memory, n)
                ),
            );
        }
        add_at(&mut self.usage.memory, n, inst.memory);
    }

    /// The instance's disks must fit in the node's free disk (and free spindles
    /// with exclusive storage), cumulatively over the answer.
    pub(super) fn take_disk(&mut self, n: usize, inst: &Inst, need: i128, what: &str) {
        let Some(node) = self.c.nodes.get(n) else {
            return;
        };
        let free = node.free_disk.saturating_sub(at(&self.usage.disk, n));
        if need > free {
            self.rep.add(
                DISK,
                format!(
                    "{what}: {} needs {} MiB of disk on {} but only {} MiB are free (reported {}, net use by earlier steps of this answer {})",
                    inst.name,
                    need,
                    node.name,
                    free,
                    node.free_disk,
                    at(&self.usage.disk, n)
                ),
            );
        }
        add_at(&mut self.usage.disk, n, need);
        if node.exclusive_storage {
            match inst.spindle_sum() {
                None => self.rep.add(
                    SPINDLES,
                    format!("{what}: {} has a disk without a spindle count but {} has exclusive storage", inst.name, node.name),
                ),
                Some(s) => {
                    let free = node.free_spindles.saturating_sub(at(&self.usage.spindles, n));
                    if s > free {
                        self.rep.add(
                            SPINDLES,
                            format!("{what}: {} needs {s} spindles on {} but only {free} are free", inst.name, node.name),
                        );
                    }
                    add_at(&mut self.usage.spindles, n, s);
                }
            }
        }
    }

    /// Gives back the disk (and exclusive-storage spindles) of an instance that leaves a node.
    pub(super) fn release_disk(&mut self, n: usize, inst: &Inst, amount: i128) {
        add_at(&mut self.usage.disk, n, amount.saturating_neg());
        if self.c.nodes.get(n).is_some_and(|x| x.exclusive_storage) {
            if let Some(s) = inst.spindle_sum() {
                add_at(&mut self.usage.spindles, n, s.saturating_neg());
            }
        }
    }

    // ---- allocation ----------------------------------------------------------------------

    pub(super) fn allocate(
        &mut self,
        inst: &Inst,
        group_name: Option<&str>,
        restrict: Option<&[String]>,
        result: &J,
    ) {
        let Some(names) = name_list(result, "the allocate result", self.rep) else {
            return;
        };
        let restrict = self.opts.restrict.as_deref().or(restrict);
        self.place_new(
            inst,
            &names,
            group_name,
            restrict,
            &format!("allocate {}", inst.name),
        );
    }

    pub(super) fn multi_allocate(&mut self, insts: &[Inst], outer_group: Option<&str>, result: &J) {
        let (allocated, failed) = match result.as_arr() {
            Some([J::Arr(a), J::Arr(f)]) => (a, f),
            _ => {
                self.rep.add(
                    ANSWER_SHAPE,
                    format!(
                        "the multi-allocate result is not [allocated, failed]: {}",
                        brief(result)
                    ),
                );
                return;
            }
        };
        // Check the shape of both lists first, so that nothing is applied from a broken answer.
        let mut placements: Vec<(String, Vec<String>)> = Vec::new();
        for entry in allocated {
            match entry.as_arr() {
                Some([J::Str(name), nodes]) if !name.is_empty() => {
                    let Some(nodes) =
                        name_list(nodes, &format!("the node list of {name}"), self.rep)
                    else {
                        return;
                    };
                    placements.push((name.clone(), nodes));
                }
                _ => {
                    self.rep.add(
                        ANSWER_SHAPE,
                        format!(
                            "a multi-allocate entry is not [name, [nodes]]: {}",
                            brief(entry)
                        ),
                    );
                    return;
                }
            }
        }
        // Ganeti 3.0 validates failed entries as plain names, hail writes [name, reason] pairs;
        // both are read here.
        let mut failed_names: Vec<String> = Vec::new();
        for entry in failed {
            match entry {
                J::Str(name) if !name.is_empty() => failed_names.push(name.clone()),
                J::Arr(pair) => match pair.as_slice() {
                    [J::Str(name), J::Str(_)] if !name.is_empty() => {
                        failed_names.push(name.clone())
                    }
                    _ => {
                        self.rep.add(
                            ANSWER_SHAPE,
                            format!(
                                "a multi-allocate failed entry is not [name, reason]: {}",
                                brief(entry)
                            ),
                        );
                        return;
                    }
                },
                _ => {
                    self.rep.add(
                        ANSWER_SHAPE,
                        format!(
                            "a multi-allocate failed entry is not a name: {}",
                            brief(entry)
                        ),
                    );
                    return;
                }
            }
        }
        let mut seen: Vec<&str> = Vec::new();
        for name in placements.iter().map(|(n, _)| n).chain(failed_names.iter()) {
            if !insts.iter().any(|i| i.name == *name) {
                self.rep.add(
                    MULTI_ALLOC_LIST,
                    format!("instance '{name}' is not one of the requested instances"),
                );
            } else if seen.contains(&name.as_str()) {
                self.rep.add(
                    MULTI_ALLOC_LIST,
                    format!("instance '{name}' is listed more than once"),
                );
            }
            seen.push(name);
        }
        for inst in insts {
            if !seen.contains(&inst.name.as_str()) {
                self.rep.add(
                    MULTI_ALLOC_LIST,
                    format!(
                        "requested instance '{}' is neither allocated nor failed",
                        inst.name
                    ),
                );
            }
        }
        // Placements are applied one after another, each on the cluster the earlier ones left.
        let restrict = self.opts.restrict.clone();
        for (name, nodes) in &placements {
            let Some(inst) = insts.iter().find(|i| i.name == *name) else {
                continue;
            };
            let group = inst.group_name.as_deref().or(outer_group);
            self.place_new(
                inst,
                nodes,
                group,
                restrict.as_deref(),
                &format!("multi-allocate {name}"),
            );
        }
    }

    /// Checks one new instance placed on `names` (primary first) and records its usage.
    pub(super) fn place_new(
        &mut self,
        inst: &Inst,
        names: &[String],
        group_name: Option<&str>,
        restrict: Option<&[String]>,
        what: &str,
    ) {
        let Some(nodes) = self.resolve_nodes(names, what) else {
            return;
        };
        let c = self.c;
        let expected = template_nodes(&inst.template);
        let required = inst.required_nodes.and_then(|r| usize::try_from(r).ok());
        if required.is_some_and(|r| r != nodes.len()) {
            self.rep.add(
                NODE_COUNT,
                format!(
                    "{what}: the answer has {} node(s) but required_nodes is {}",
                    nodes.len(),
                    inst.required_nodes.unwrap_or(0)
                ),
            );
        } else if nodes.len() != expected {
            self.rep.add(
                NODE_COUNT,
                format!(
                    "{what}: the answer has {} node(s) but disk template '{}' needs {expected}",
                    nodes.len(),
                    inst.template
                ),
            );
        }
        let Some(&primary) = nodes.first() else {
            return;
        };
        for (i, &a) in nodes.iter().enumerate() {
            if nodes[..i].contains(&a) {
                self.rep.add(
                    SAME_NODE,
                    format!("{what}: node {} is used twice", c.node_name(a)),
                );
            }
        }
        for &n in &nodes[1..] {
            if c.group_ix_of(n) != c.group_ix_of(primary) {
                self.rep.add(
                    CROSS_GROUP,
                    format!(
                        "{what}: {} is in group {} but the primary {} is in group {}",
                        c.node_name(n),
                        c.group_name_of(n),
                        c.node_name(primary),
                        c.group_name_of(primary)
                    ),
                );
            }
        }
        for (i, &n) in nodes.iter().enumerate() {
            self.check_target(n, if i == 0 { "primary" } else { "secondary" }, what);
        }
        if let Some(list) = restrict {
            for &n in &nodes {
                if !list.iter().any(|r| r == c.node_name(n)) {
                    self.rep.add(
                        RESTRICT,
                        format!(
                            "{what}: node {} is not in the restrict list {list:?}",
                            c.node_name(n)
                        ),
                    );
                }
            }
        }
        let Some(group) = c.group_of(primary) else {
            return;
        };
        match group_name {
            Some(wanted) => {
                for &n in &nodes {
                    if let Some(g) = c.group_of(n) {
                        if g.name != wanted && g.uuid != wanted {
                            self.rep.add(
                                GROUP_NAME,
                                format!("{what}: node {} is in group {}, not in the requested group {wanted}", c.node_name(n), g.name),
                            );
                        }
                    }
                }
            }
            None => {
                if group.alloc_policy == "unallocable" {
                    self.rep.add(
                        UNALLOCABLE_GROUP,
                        format!("{what}: group {} is unallocable", group.name),
                    );
                }
            }
        }
        for net in inst.nic_networks.iter().flatten() {
            if !group.networks.contains(net) {
                self.rep.add(
                    NETWORK,
                    format!(
                        "{what}: network {net} is not connected to group {}",
                        group.name
                    ),
                );
            }
        }
        if let Some(pol) = &group.ipolicy {
            let spec = PolicyInput::new_instance(inst);
            self.check_policy(pol, &spec, &inst.template, &group.name, what);
        }
        // Exclusive storage, as LUInstanceCreate.CheckPrereq sees it: any chosen node with it counts.
        let used = &nodes[..nodes.len().min(expected)];
        let any_es = used
            .iter()
            .any(|&n| c.nodes.get(n).is_some_and(|x| x.exclusive_storage));
        if any_es && !EXCL_STORAGE_TEMPLATES.contains(&inst.template.as_str()) {
            self.rep.add(
                ES_TEMPLATE,
                format!(
                    "{what}: disk template '{}' is not supported with exclusive storage",
                    inst.template
                ),
            );
        }
        if !any_es && inst.disks.iter().any(|d| d.spindles.is_some()) {
            self.rep.add(
                SPINDLES_WITHOUT_ES,
                format!("{what}: the disks have spindle counts but none of the chosen nodes has exclusive storage"),
            );
        }
        self.take_memory(primary, inst, what);
        if is_local(&inst.template) {
            for &n in used {
                self.take_disk(n, inst, inst.disk_space_total, what);
            }
        }
        self.check_exclusion(primary, inst, what);
    }

    /// No two instances sharing an exclusion tag may have the same primary
    /// (hail's `htools:iextags`); `--ignore-soft-errors` turns this off.
    pub(super) fn check_exclusion(&mut self, n: usize, inst: &Inst, what: &str) {
        let c = self.c;
        let mine = c.exclusion_tags(&inst.tags);
        if mine.is_empty() {
            return;
        }
        if !self.opts.ignore_soft_errors {
            let mut clashes: Vec<String> = Vec::new();
            for other in c.insts.iter().filter(|o| o.primary == Some(n)) {
                for t in c.exclusion_tags(&other.tags) {
                    if mine.contains(&t) {
                        clashes.push(format!("{t} (instance {})", other.name));
                    }
                }
            }
            for t in self.usage.tags.get(n).map_or(&[][..], |v| v.as_slice()) {
                if mine.contains(t) {
                    clashes.push(format!("{t} (placed earlier by this answer)"));
                }
            }
            if !clashes.is_empty() {
                self.rep.add(
                    EXCLUSION_TAG,
                    format!(
                        "{what}: primary {} already hosts exclusion tag(s) {}",
                        c.node_name(n),
                        clashes.join(", ")
                    ),
                );
            }
        }
        if let Some(v) = self.usage.tags.get_mut(n) {
            v.extend(mine);
        }
    }

    pub(super) fn check_policy(
        &mut self,
        pol: &IPolicy,
        spec: &PolicyInput,
        template: &str,
        group: &str,
        what: &str,
    ) {
        let (hard, nic_only) = policy_violations(pol, spec, template);
        for msg in hard {
            self.rep
                .add(IPOLICY, format!("{what}: group {group}: {msg}"));
        }
        if let Some(msg) = nic_only {
            self.rep
                .add(IPOLICY_NIC_COUNT, format!("{what}: group {group}: {msg}"));
        }
    }

    pub(super) fn allocate_secondary(&mut self, ix: usize, result: &J) {
        let c = self.c;
        let Some(inst) = c.insts.get(ix) else { return };
        let what = format!("allocate-secondary {}", inst.name);
        let J::Str(name) = result else {
            self.rep.add(
                ANSWER_SHAPE,
                format!(
                    "the allocate-secondary result is not a node name: {}",
                    brief(result)
                ),
            );
            return;
        };
        let Some(sec) = self
            .resolve_nodes(std::slice::from_ref(name), &what)
            .and_then(|v| v.first().copied())
        else {
            return;
        };
        let Some(primary) = inst.primary else { return };
        if sec == primary {
            self.rep.add(
                SAME_NODE,
                format!("{what}: the new secondary {name} is the primary"),
            );
        }
        if c.group_ix_of(sec) != c.group_ix_of(primary) {
            self.rep.add(
                CROSS_GROUP,
                format!(
                    "{what}: {name} is in group {} but the primary is in group {}",
                    c.group_name_of(sec),
                    c.group_name_of(primary)
                ),
            );
        }
        self.check_target(sec, "new secondary", &what);
        if let Some(pol) = c.group_of(primary).and_then(|g| g.ipolicy.as_ref()) {
            if !pol.templates.iter().any(|t| t == "drbd") {
                self.rep.add(
                    IPOLICY,
                    format!(
                        "{what}: group {} does not allow disk template drbd",
                        c.group_name_of(primary)
                    ),
                );
            }
        }
        if [primary, sec]
            .iter()
            .any(|&n| c.nodes.get(n).is_some_and(|x| x.exclusive_storage))
        {
            self.rep.add(
                ES_TEMPLATE,
                format!("{what}: disk template 'drbd' is not supported with exclusive storage"),
            );
        }
        // The new DRBD secondary holds every disk plus Ganeti's DRBD metadata volume.
        let with_meta = inst.disks.iter().fold(0i128, |acc, d| {
            acc.saturating_add(d.size).saturating_add(DRBD_META_SIZE)
        });
        let need = inst.disk_space_total.max(with_meta);
        self.take_disk(sec, inst, need, &what);
    }

    // ---- moves ---------------------------------------------------------------------------

    pub(super) fn relocate(&mut self, ix: usize, relocate_from: &[usize], result: &J) {
        let c = self.c;
        let Some(inst) = c.insts.get(ix) else { return };
        let what = format!("relocate {}", inst.name);
        let Some(names) = name_list(result, "the relocate result", self.rep) else {
            return;
        };
        if names.len() != 1 {
            self.rep.add(
                NODE_COUNT,
                format!(
                    "{what}: the answer has {} node(s), relocate needs exactly 1",
                    names.len()
                ),
            );
        }
        let Some(nodes) = self.resolve_nodes(&names, &what) else {
            return;
        };
        let Some(&target) = nodes.first() else { return };
        let Some(primary) = inst.primary else { return };
        // IAReqRelocate.ValidateResult: the result's groups must be among those of relocate_from and the primary.
        let allowed: Vec<Option<usize>> = relocate_from
            .iter()
            .chain([&primary])
            .map(|&n| c.group_ix_of(n))
            .collect();
        if !allowed.contains(&c.group_ix_of(target)) {
            self.rep.add(
                RELOCATE_GROUP,
                format!(
                    "{what}: {} is in group {}, outside the groups of the instance",
                    c.node_name(target),
                    c.group_name_of(target)
                ),
            );
        }
        let mut st = MoveState::new(c);
        if is_drbd(&inst.template) {
            self.replace_secondary(&mut st, ix, target, &what);
            self.check_pair_group(&st, ix, &what);
        } else if MIRRORED.contains(&inst.template.as_str()) {
            self.migrate(&mut st, ix, Some(target), &what);
        } else {
            self.rep.add(
                UNMOVABLE_TEMPLATE,
                format!(
                    "{what}: instances with disk template '{}' cannot be relocated",
                    inst.template
                ),
            );
        }
    }

    /// node-evacuate and change-group: `[moved, failed, jobs]`.
    pub(super) fn moves(&mut self, requested: &[usize], kind: MoveKind<'_>, result: &J) {
        let c = self.c;
        let (moved, failed, jobs) = match result.as_arr() {
            Some([J::Arr(m), J::Arr(f), J::Arr(j)]) => (m, f, j),
            _ => {
                self.rep.add(
                    ANSWER_SHAPE,
                    format!("the result is not [moved, failed, jobs]: {}", brief(result)),
                );
                return;
            }
        };
        // Shapes first (Ganeti's _NEVAC_RESULT), so nothing is applied from a broken answer.
        let mut moved_entries: Vec<(String, String, Vec<String>)> = Vec::new();
        for entry in moved {
            match entry.as_arr() {
                Some([J::Str(name), J::Str(group), nodes])
                    if !name.is_empty() && !group.is_empty() =>
                {
                    let Some(nodes) = name_list(
                        nodes,
                        &format!("the node list of moved instance {name}"),
                        self.rep,
                    ) else {
                        return;
                    };
                    moved_entries.push((name.clone(), group.clone(), nodes));
                }
                _ => {
                    self.rep.add(
                        ANSWER_SHAPE,
                        format!(
                            "a moved entry is not [instance, group, [nodes]]: {}",
                            brief(entry)
                        ),
                    );
                    return;
                }
            }
        }
        let mut failed_names = Vec::new();
        for entry in failed {
            match entry.as_arr() {
                Some([J::Str(name), J::Str(_) | J::Null]) if !name.is_empty() => {
                    failed_names.push(name.clone())
                }
                _ => {
                    self.rep.add(
                        ANSWER_SHAPE,
                        format!("a failed entry is not [instance, reason]: {}", brief(entry)),
                    );
                    return;
                }
            }
        }
        let mut job_lists: Vec<&[J]> = Vec::new();
        for job in jobs {
            match job.as_arr() {
                Some(ops) => job_lists.push(ops),
                None => {
                    self.rep.add(
                        ANSWER_SHAPE,
                        format!("a job is not a list of opcodes: {}", brief(job)),
                    );
                    return;
                }
            }
        }

        // Names in the lists.
        let requested_names: Vec<&str> = requested
            .iter()
            .filter_map(|&i| c.insts.get(i))
            .map(|i| i.name.as_str())
            .collect();
        let mut moved_ix: Vec<Option<usize>> = Vec::new();
        for (k, (name, group, nodes)) in moved_entries.iter().enumerate() {
            let ix = c.inst_ix.get(name).copied();
            if ix.is_none() {
                self.rep.add(
                    UNKNOWN_NAME,
                    format!("moved instance '{name}' does not exist in the request"),
                );
            } else if !requested_names.contains(&name.as_str()) {
                self.rep.add(
                    MOVED_LIST,
                    format!("moved instance '{name}' was not requested"),
                );
            }
            if moved_entries[..k].iter().any(|(n, _, _)| n == name) {
                self.rep.add(
                    MOVED_LIST,
                    format!("instance '{name}' is moved more than once"),
                );
            }
            if !c.groups.iter().any(|g| g.name == *group) {
                self.rep.add(
                    UNKNOWN_NAME,
                    format!(
                        "moved instance '{name}': group '{group}' does not exist in the request"
                    ),
                );
            }
            for n in nodes {
                if !c.node_ix.contains_key(n) {
                    self.rep.add(
                        UNKNOWN_NAME,
                        format!(
                            "moved instance '{name}': node '{n}' does not exist in the request"
                        ),
                    );
                }
            }
            moved_ix.push(ix);
        }
        for (k, name) in failed_names.iter().enumerate() {
            if !requested_names.contains(&name.as_str()) {
                self.rep.add(
                    FAILED_LIST,
                    format!("failed instance '{name}' was not requested"),
                );
            }
            if failed_names[..k].contains(name) {
                self.rep.add(
                    FAILED_LIST,
                    format!("instance '{name}' is listed as failed more than once"),
                );
            }
            if moved_entries.iter().any(|(n, _, _)| n == name) {
                self.rep.add(
                    FAILED_LIST,
                    format!("instance '{name}' is listed as both moved and failed"),
                );
            }
        }
        if job_lists.len() != moved_entries.len() {
            self.rep.add(
                MOVED_LIST,
                format!("there are {} moved instance(s) but {} job(s); each moved instance needs exactly one job", moved_entries.len(), job_lists.len()),
            );
        }

        // Apply the jobs in order.
        let mut st = MoveState::new(c);
        for (k, ops) in job_lists.iter().enumerate() {
            let owner = moved_entries.get(k).map(|(n, _, _)| n.as_str());
            let mut touched: Vec<usize> = Vec::new();
            for (o, op) in ops.iter().enumerate() {
                let where_ = format!("job {k} opcode {o}");
                let Some(op) = parse_opcode(op, &where_, self.rep) else {
                    continue;
                };
                if let Some(owner) = owner {
                    if op.instance != owner {
                        self.rep.add(
                            JOB_INSTANCE,
                            format!(
                                "{where_}: opcode for instance '{}' in the job of '{owner}'",
                                op.instance
                            ),
                        );
                    }
                }
                let Some(ix) = c.inst_ix.get(&op.instance).copied() else {
                    self.rep.add(
                        UNKNOWN_NAME,
                        format!(
                            "{where_}: instance '{}' does not exist in the request",
                            op.instance
                        ),
                    );
                    continue;
                };
                let what = format!("{where_} ({} {})", op.kind.id(), op.instance);
                match op.kind {
                    OpKind::Migrate | OpKind::Failover => {
                        let target = match &op.target_node {
                            Some(t) => match self.c.node_ix.get(t) {
                                Some(&n) => Some(n),
                                None => {
                                    self.rep.add(UNKNOWN_NAME, format!("{what}: target node '{t}' does not exist in the request"));
                                    continue;
                                }
                            },
                            None => None,
                        };
                        self.migrate(&mut st, ix, target, &what);
                    }
                    OpKind::Replace => {
                        let Some(remote) = op.remote_node.as_ref() else {
                            continue;
                        };
                        let Some(&n) = c.node_ix.get(remote) else {
                            self.rep.add(
                                UNKNOWN_NAME,
                                format!(
                                    "{what}: remote node '{remote}' does not exist in the request"
                                ),
                            );
                            continue;
                        };
                        self.replace_secondary(&mut st, ix, n, &what);
                    }
                }
                if !touched.contains(&ix) {
                    touched.push(ix);
                }
            }
            // A DRBD instance may straddle two groups between the steps of a
            // change-group job, but not once its job is done.
            for ix in touched {
                self.check_pair_group(&st, ix, &format!("after job {k}"));
            }
        }

        // The moved list must describe the state after the jobs.
        for ((name, group, nodes), ix) in moved_entries.iter().zip(&moved_ix) {
            let Some(ix) = *ix else { continue };
            let Some(p) = st.primary.get(ix).copied().flatten() else {
                continue;
            };
            let s = st.secondary.get(ix).copied().flatten();
            let mut actual = vec![c.node_name(p).to_owned()];
            if let Some(s) = s {
                actual.push(c.node_name(s).to_owned());
            }
            if *nodes != actual {
                self.rep.add(MOVED_LIST, format!("moved instance '{name}' is listed on {nodes:?} but the jobs leave it on {actual:?}"));
            }
            if c.group_name_of(p) != group {
                self.rep.add(
                    MOVED_LIST,
                    format!("moved instance '{name}' is listed in group '{group}' but its primary ends in group '{}'", c.group_name_of(p)),
                );
            }
            let Some(orig) = c.insts.get(ix) else {
                continue;
            };
            match kind {
                MoveKind::Evacuate(mode) => self.check_evacuated(orig, p, s, mode),
                MoveKind::ChangeGroup(targets) => self.check_change_group(orig, p, s, targets),
            }
        }
    }

    pub(super) fn check_evacuated(
        &mut self,
        orig: &Inst,
        p: usize,
        s: Option<usize>,
        mode: EvacMode,
    ) {
        let c = self.c;
        let name = &orig.name;
        let (op, os) = (orig.primary, orig.secondary);
        match mode {
            EvacMode::PrimaryOnly => {
                if Some(p) == op {
                    self.rep.add(
                        EVACUATED_NODE,
                        format!("instance '{name}' is still primary on {}", c.node_name(p)),
                    );
                }
            }
            EvacMode::SecondaryOnly => {
                if s.is_some() && s == os {
                    self.rep.add(
                        EVACUATED_NODE,
                        format!(
                            "instance '{name}' is still secondary on {}",
                            c.node_name(s.unwrap_or(0))
                        ),
                    );
                }
            }
            EvacMode::All => {
                for n in [Some(p), s].into_iter().flatten() {
                    if Some(n) == op || Some(n) == os {
                        self.rep.add(
                            EVACUATED_NODE,
                            format!(
                                "instance '{name}' still uses {} after evacuating all its nodes",
                                c.node_name(n)
                            ),
                        );
                    }
                }
            }
        }
    }

    pub(super) fn check_change_group(
        &mut self,
        orig: &Inst,
        p: usize,
        s: Option<usize>,
        targets: &[usize],
    ) {
        let c = self.c;
        let own: Vec<usize> = [orig.primary, orig.secondary]
            .into_iter()
            .flatten()
            .filter_map(|n| c.group_ix_of(n))
            .collect();
        for n in [Some(p), s].into_iter().flatten() {
            let Some(g) = c.group_ix_of(n) else { continue };
            if own.contains(&g) {
                self.rep.add(
                    CHANGE_GROUP_TARGET,
                    format!(
                        "instance '{}' still uses its own group {} (node {})",
                        orig.name,
                        c.group_name_of(n),
                        c.node_name(n)
                    ),
                );
            } else if !targets.is_empty() && !targets.contains(&g) {
                self.rep.add(
                    CHANGE_GROUP_TARGET,
                    format!(
                        "instance '{}' ends on {} in group {}, which is not a target group",
                        orig.name,
                        c.node_name(n),
                        c.group_name_of(n)
                    ),
                );
            }
        }
    }

    pub(super) fn check_pair_group(&mut self, st: &MoveState, ix: usize, when: &str) {
        let c = self.c;
        let (Some(Some(p)), Some(Some(s))) = (st.primary.get(ix), st.secondary.get(ix)) else {
            return;
        };
        if c.group_ix_of(*p) != c.group_ix_of(*s) {
            let name = c.insts.get(ix).map_or("?", |i| i.name.as_str());
            self.rep.add(
                CROSS_GROUP,
                format!(
                    "{when}: instance '{name}' has primary {} in group {} and secondary {} in group {}",
                    c.node_name(*p),
                    c.group_name_of(*p),
                    c.node_name(*s),
                    c.group_name_of(*s)
                ),
            );
        }
    }

    /// OP_INSTANCE_MIGRATE / OP_INSTANCE_FAILOVER (`TLMigrateInstance.CheckPrereq`).
    pub(super) fn migrate(
        &mut self,
        st: &mut MoveState,
        ix: usize,
        target: Option<usize>,
        what: &str,
    ) {
        let c = self.c;
        let Some(inst) = c.insts.get(ix) else { return };
        let Some(p) = st.primary.get(ix).copied().flatten() else {
            return;
        };
        let s = st.secondary.get(ix).copied().flatten();
        if !MIRRORED.contains(&inst.template.as_str()) {
            self.rep.add(
                UNMOVABLE_TEMPLATE,
                format!(
                    "{what}: disk template '{}' does not allow failover or migration",
                    inst.template
                ),
            );
            return;
        }
        let new_p = if is_drbd(&inst.template) {
            let Some(s) = s else {
                self.rep.add(
                    UNMOVABLE_TEMPLATE,
                    format!("{what}: the DRBD instance has no secondary to fail over to"),
                );
                return;
            };
            if target.is_some_and(|t| t != s) {
                self.rep.add(
                    BAD_OPCODE,
                    format!(
                        "{what}: a DRBD instance can only move to its secondary {}, not to {}",
                        c.node_name(s),
                        c.node_name(target.unwrap_or(s))
                    ),
                );
                return;
            }
            s
        } else {
            let Some(t) = target else {
                self.rep.add(
                    BAD_OPCODE,
                    format!("{what}: a shared-storage instance needs a target_node"),
                );
                return;
            };
            if t == p {
                self.rep.add(
                    SAME_NODE,
                    format!(
                        "{what}: the target {} is already the primary",
                        c.node_name(t)
                    ),
                );
                return;
            }
            t
        };
        self.check_target(new_p, "new primary", what);
        let (src, dst) = (c.mig_tags(p), c.recv_mig_tags(new_p));
        let missing: Vec<&String> = src.iter().filter(|t| !dst.contains(t)).collect();
        if !missing.is_empty() {
            self.rep.add(
                MIGRATION_TAGS,
                format!("{what}: {} cannot receive instances from {} (missing migration tags {missing:?})", c.node_name(new_p), c.node_name(p)),
            );
        }
        self.check_cross_group_policy(inst, st, ix, p, new_p, what);
        // The memory moves with a running instance: the node it leaves gets it back.
        if inst.uses_memory {
            add_at(&mut self.usage.memory, p, inst.memory.saturating_neg());
            self.take_memory(new_p, inst, what);
        }
        if let Some(x) = st.primary.get_mut(ix) {
            *x = Some(new_p);
        }
        if is_drbd(&inst.template) {
            if let Some(x) = st.secondary.get_mut(ix) {
                *x = Some(p);
            }
        }
    }

    /// OP_INSTANCE_REPLACE_DISKS in mode replace_new_secondary (`TLReplaceDisks.CheckPrereq`).
    pub(super) fn replace_secondary(
        &mut self,
        st: &mut MoveState,
        ix: usize,
        remote: usize,
        what: &str,
    ) {
        let c = self.c;
        let Some(inst) = c.insts.get(ix) else { return };
        let Some(p) = st.primary.get(ix).copied().flatten() else {
            return;
        };
        let old = st.secondary.get(ix).copied().flatten();
        if !is_drbd(&inst.template) {
            self.rep.add(
                UNMOVABLE_TEMPLATE,
                format!(
                    "{what}: replace-disks only works for DRBD instances, not '{}'",
                    inst.template
                ),
            );
            return;
        }
        if remote == p {
            self.rep.add(
                SAME_NODE,
                format!(
                    "{what}: the new secondary {} is the primary",
                    c.node_name(remote)
                ),
            );
            return;
        }
        if Some(remote) == old {
            self.rep.add(
                SAME_NODE,
                format!("{what}: {} is already the secondary", c.node_name(remote)),
            );
            return;
        }
        if c.nodes.get(p).is_some_and(|n| n.offline) {
            self.rep.add(
                REPLACE_OFFLINE_PRIMARY,
                format!("{what}: the primary {} is offline", c.node_name(p)),
            );
        }
        self.check_target(remote, "new secondary", what);
        self.check_cross_group_policy(inst, st, ix, p, remote, what);
        // The old secondary's volumes are removed at the end of the replacement.
        if let Some(old) = old {
            self.release_disk(old, inst, inst.disk_space_total);
        }
        self.take_disk(remote, inst, inst.disk_space_total, what);
        if let Some(x) = st.secondary.get_mut(ix) {
            *x = Some(remote);
        }
    }

    /// `CheckTargetNodeIPolicy`: moving a node role into another group than the
    /// primary's requires the instance to meet that group's policy.
    pub(super) fn check_cross_group_policy(
        &mut self,
        inst: &Inst,
        st: &MoveState,
        ix: usize,
        p: usize,
        target: usize,
        what: &str,
    ) {
        let c = self.c;
        if c.group_ix_of(p) == c.group_ix_of(target) {
            return;
        }
        let Some(group) = c.group_of(target) else {
            return;
        };
        let Some(pol) = &group.ipolicy else { return };
        let es = [
            st.primary.get(ix).copied().flatten(),
            st.secondary.get(ix).copied().flatten(),
        ]
        .into_iter()
        .flatten()
        .any(|n| c.nodes.get(n).is_some_and(|x| x.exclusive_storage));
        let spec = PolicyInput::existing_instance(inst, es);
        if es && inst.spindle_sum().is_none() {
            self.rep.add(
                IPOLICY,
                format!(
                    "{what}: group {}: the disks have no spindle counts under exclusive storage",
                    group.name
                ),
            );
        }
        self.check_policy(pol, &spec, &inst.template, &group.name, what);
    }
}

/// What a node-evacuate or change-group request asks for.
#[derive(Clone, Copy)]
pub(super) enum MoveKind<'a> {
    Evacuate(EvacMode),
    /// The target groups (empty: any other group).
    ChangeGroup(&'a [usize]),
}

/// Where each existing instance is while the jobs are applied.
pub(super) struct MoveState {
    pub(super) primary: Vec<Option<usize>>,
    pub(super) secondary: Vec<Option<usize>>,
}

impl MoveState {
    pub(super) fn new(c: &Cluster) -> MoveState {
        MoveState {
            primary: c.insts.iter().map(|i| i.primary).collect(),
            secondary: c.insts.iter().map(|i| i.secondary).collect(),
        }
    }
}
