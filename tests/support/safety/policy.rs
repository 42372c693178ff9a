//! The instance policy, checked as Ganeti checks a new or moved instance.

use super::*;

/// The values an instance policy is checked against.
pub(super) struct PolicyInput {
    pub(super) memory: i128,
    pub(super) vcpus: i128,
    pub(super) spindle_use: Option<i128>,
    pub(super) disk_sizes: Vec<i128>,
    pub(super) nic_count: i128,
}

impl PolicyInput {
    /// A new instance (`LUInstanceCreate.CheckPrereq`: the `spindle_use` parameter).
    pub(super) fn new_instance(inst: &Inst) -> PolicyInput {
        PolicyInput {
            memory: inst.memory,
            vcpus: inst.vcpus,
            spindle_use: inst.spindle_use,
            disk_sizes: inst.disk_sizes(),
            nic_count: i128::try_from(inst.nic_networks.len()).unwrap_or(NUM_LIMIT),
        }
    }

    /// An existing instance (`ComputeIPolicyInstanceViolation`: with exclusive
    /// storage the disks' spindles, otherwise `spindle_use`).
    pub(super) fn existing_instance(inst: &Inst, exclusive_storage: bool) -> PolicyInput {
        let mut p = PolicyInput::new_instance(inst);
        if exclusive_storage {
            p.spindle_use = inst.spindle_sum();
        }
        p
    }
}

/// Returns the policy violations (`ComputeIPolicySpecViolation`), split into
/// those that hold without the NIC count and the one that only the NIC count
/// causes.
pub(super) fn policy_violations(
    pol: &IPolicy,
    x: &PolicyInput,
    template: &str,
) -> (Vec<String>, Option<String>) {
    let mut hard = Vec::new();
    if !pol.templates.iter().any(|t| t == template) {
        hard.push(format!(
            "disk template '{template}' is not allowed (allowed: {:?})",
            pol.templates
        ));
    }
    if x.disk_sizes.is_empty()
        && template != "diskless"
        && !pol.templates.iter().any(|t| t == "diskless")
    {
        hard.push(
            "an instance without disks needs disk template 'diskless' to be allowed".to_owned(),
        );
    }
    if pol.minmax.is_empty() {
        return (hard, None);
    }
    let errors = |min: &Spec, max: &Spec, with_nic: bool| -> Vec<String> {
        let mut e = Vec::new();
        let mut test = |name: &str, value: Option<i128>, lo: Option<i128>, hi: Option<i128>| {
            let Some(v) = value else { return };
            if lo.is_some_and(|lo| v < lo) || hi.is_some_and(|hi| v > hi) {
                e.push(format!("{name} {v} not in [{}, {}]", opt(lo), opt(hi)));
            }
        };
        test("memory-size", Some(x.memory), min.memory, max.memory);
        test("cpu-count", Some(x.vcpus), min.cpu, max.cpu);
        test(
            "spindle-use",
            x.spindle_use,
            min.spindle_use,
            max.spindle_use,
        );
        for (i, d) in x.disk_sizes.iter().enumerate() {
            test(
                &format!("disk-size/{i}"),
                Some(*d),
                min.disk_size,
                max.disk_size,
            );
        }
        if !x.disk_sizes.is_empty() {
            let count = i128::try_from(x.disk_sizes.len()).unwrap_or(NUM_LIMIT);
            test("disk-count", Some(count), min.disk_count, max.disk_count);
        }
        if with_nic {
            test("nic-count", Some(x.nic_count), min.nic_count, max.nic_count);
        }
        e
    };
    let without_nic: Vec<Vec<String>> = pol
        .minmax
        .iter()
        .map(|(lo, hi)| errors(lo, hi, false))
        .collect();
    if without_nic.iter().all(|e| !e.is_empty()) {
        let first = without_nic
            .first()
            .map(|e| e.join(", "))
            .unwrap_or_default();
        hard.push(format!(
            "the instance fits no min/max pair (first pair: {first})"
        ));
        return (hard, None);
    }
    let with_nic_fits = pol
        .minmax
        .iter()
        .any(|(lo, hi)| errors(lo, hi, true).is_empty());
    let nic = (!with_nic_fits).then(|| {
        format!(
            "nic-count {} fits no min/max pair that the other values fit",
            x.nic_count
        )
    });
    (hard, nic)
}

pub(super) fn opt(v: Option<i128>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| v.to_string())
}
