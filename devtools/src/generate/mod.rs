//! Synthetic iallocator requests for hailstone's compatibility runs, benchmarks
//! and property tests.
//!
//! This module owns the request generator: from a [`CaseSpec`] (a seed, a request
//! kind, a cluster size and a set of feature switches) it builds one valid,
//! realistic iallocator request (protocol version 2) shaped exactly like the
//! ones a Ganeti 3.0 master writes for `hail`, including the keys that hail
//! ignores (`primary_ip`, `i_pri_memory`, `disks_active`, the full `ndparams`,
//! the cluster `ipolicy`, and so on).
//!
//! Properties the rest of the project relies on:
//!
//! * **Determinism.** The output depends only on the spec. The generator uses
//!   its own splitmix64 generator and only integer arithmetic and exactly
//!   rounded floating-point operations (no `ln`/`exp`/`powf`), so the same seed
//!   gives byte-identical requests on every machine.
//! * **Consistency.** Reported node resources agree with the instances placed
//!   on the node the way Ganeti computes them: `free_memory = total_memory -
//!   reserved_memory - memory of running primaries` (minus a deliberate
//!   "missing" amount on a few nodes when [`Features::missing_memory`] is on),
//!   `free_disk = total_disk - disk_space_total` of the plain/drbd instances
//!   using the node, and with exclusive storage `free_spindles =
//!   total_spindles - spindles` of those instances' disks.
//! * **Order control.** JSON objects are written from ordered member lists
//!   (never through a sorted map), because hail numbers groups, nodes and
//!   instances in key order and most tie-breaks depend on it.
//!
//! The entry points are [`CaseSpec::random`] (draw every switch from a seed),
//! [`generate`] (spec to request text and hail options) and [`corpus_specs`]
//! (the fixed-seed corpora used by `hailstone-gen corpus` and
//! `hailstone-compat`).
//!
//! The files follow the generation: [`spec`] (what a case is), [`rng`],
//! [`model`] (the cluster before it is written), `cluster` (groups, nodes,
//! tags), `instances` (placing the existing instances), `request` (the
//! request and its options), `wire` (the document) and [`json`] (writing it).

mod cluster;
mod instances;
pub mod json;
pub mod model;
mod request;
pub mod rng;
pub mod spec;
#[cfg(test)]
mod tests;
mod wire;

use json::{str_list, write_json, ObjB, J};
use model::*;
use rng::{mix, Rng};
pub use spec::*;

/// The generator's state for one case.
struct Gen<'a> {
    spec: &'a CaseSpec,
    r: Rng,
    domain: String,
    groups: Vec<Group>,
    nodes: Vec<Node>,
    insts: Vec<Inst>,
    cluster_tags: Vec<String>,
    networks: Vec<String>,
    excl_prefixes: Vec<String>,
    loc_prefix: Option<String>,
    loc_values: Vec<String>,
    desired_prefix: Option<String>,
    mig_prefix: Option<String>,
    mac_counter: u64,
    inst_counter: usize,
    /// The reserved memory hail uses (the KVM override), for capacity decisions.
    hail_reserved: Option<i64>,
    /// Choices shared by the new instances of one request (a bulk creation
    /// uses the same disk spindles, network and tags for most instances).
    new_spindles: Option<bool>,
    new_network: Option<Option<String>>,
    new_tags: Option<Vec<String>>,
    /// The cluster-wide policy (sent for information; groups mostly inherit it).
    cluster_policy: Option<IPolicy>,
}

/// Generates the request and the hail options described by `spec`.
pub fn generate(spec: &CaseSpec) -> Case {
    let mut g = Gen::new(spec);
    g.build_groups();
    g.build_nodes();
    g.build_tags();
    g.place_instances();
    let (request, label, restrict) = g.build_request();
    g.apply_missing_memory();
    let report = g.report_template(label_template(&label));
    let doc = g.document(request, report);
    let mut text = String::with_capacity(256 + spec.nodes * 900 + g.insts.len() * 700);
    write_json(&mut text, &doc, spec.style, spec.ascii_escape, 0);
    text.push('\n');
    let options = g.options(restrict);
    Case {
        id: format!(
            "{}/{}/n{}/g{}/s{}{}",
            spec.kind.slug(),
            label,
            spec.nodes,
            spec.groups,
            spec.seed,
            match spec.shape {
                Shape::Standard => "",
                Shape::Hosting => "/hosting",
            }
        ),
        kind: spec.kind,
        request: text,
        options,
    }
}

fn label_template(label: &str) -> Option<DiskTemplate> {
    DiskTemplate::parse(label)
}

/// Rounds a memory size to a "nice" value (multiples of 128, 512 or 1024 MiB).
fn nice_mem(x: i64) -> i64 {
    let x = x.max(128);
    if x < 1024 {
        x / 128 * 128
    } else if x < 8192 {
        x / 512 * 512
    } else {
        x / 1024 * 1024
    }
}

/// Rounds a disk size to a "nice" value (whole GiB above 4 GiB).
fn nice_disk(x: i64) -> i64 {
    let x = x.max(128);
    if x < 4096 {
        x / 256 * 256
    } else {
        x / 1024 * 1024
    }
}

fn scale(x: i64, f: f64) -> i64 {
    (x as f64 * f) as i64
}

/// Clamps an instance's memory, vCPUs, disk sizes and spindle use into one
/// min/max pair of a policy, the way hail's policy check looks at them (with
/// exclusive storage the spindle use is the sum of the disks' spindles).
fn conform(
    mem: &mut i64,
    vcpus: &mut i64,
    disks: &mut Vec<Disk>,
    su: &mut i64,
    pair: &(ISpec, ISpec),
) {
    let (lo, hi) = pair;
    *mem = (*mem).clamp(lo.mem, hi.mem);
    *vcpus = (*vcpus).clamp(lo.cpu, hi.cpu);
    *su = (*su).clamp(lo.spindle_use, hi.spindle_use.max(lo.spindle_use));
    if !disks.is_empty() {
        disks.truncate(hi.disk_count.max(1) as usize);
        for d in disks.iter_mut() {
            d.size = d.size.clamp(lo.disk_size, hi.disk_size.max(lo.disk_size));
        }
        if disks[0].spindles.is_some() {
            let hi_su = hi.spindle_use.max(lo.spindle_use);
            disks.truncate(hi_su.max(1) as usize);
            for d in disks.iter_mut() {
                d.spindles = Some(d.spindles.unwrap_or(1).clamp(1, hi_su.max(1)));
            }
            let mut sum: i64 = disks.iter().map(|d| d.spindles.unwrap_or(0)).sum();
            let mut i = 0;
            while sum > hi_su && i < disks.len() {
                let cut = (sum - hi_su).min(disks[i].spindles.unwrap_or(1) - 1);
                disks[i].spindles = Some(disks[i].spindles.unwrap_or(1) - cut);
                sum -= cut;
                i += 1;
            }
            if sum < lo.spindle_use {
                disks[0].spindles = Some(disks[0].spindles.unwrap_or(1) + lo.spindle_use - sum);
            }
        }
    }
}
