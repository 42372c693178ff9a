//! Explanations of `hailstone-squeeze`'s plans: the reserve each node
//! must keep, why standby nodes are (or are not) powered on, and for each
//! node tried in hsqueeze's order whether it can be powered off and, when
//! not, why: an instance that cannot leave it, too little memory left on
//! the other nodes, or the node that could not keep the reserve after the
//! balancing, with that check's numbers.

use crate::model::instance::Instance;
use crate::model::Cluster;
use crate::search::squeeze::{
    offline_candidates, reserve_instance, Attempt, Decision, Reasoning, TrialFailure,
};
use crate::search::state::State;

use super::reasons::{self, Names};

fn reserve_text(r: &Instance, factor: f64, option: &str) -> String {
    format!(
        "{} × the standard instance ({option}) = {} MiB memory, {} vCPU{}, {} spindle{}",
        reasons::num(factor),
        r.mem,
        r.vcpus,
        if r.vcpus == 1 { "" } else { "s" },
        r.spindle_use,
        if r.spindle_use == 1 { "" } else { "s" }
    )
}

/// Why a node of the cluster is not a candidate for powering off, if it
/// is not.
fn not_candidate(cluster: &Cluster, k: usize) -> Option<String> {
    let n = &cluster.nodes[k];
    if n.offline {
        return Some("offline".to_owned());
    }
    if n.info.master {
        return Some("the master".to_owned());
    }
    if !n.s_list.is_empty() {
        return Some("holds secondaries".to_owned());
    }
    let local = n.p_list.iter().find_map(|&i| {
        usize::try_from(i)
            .ok()
            .and_then(|i| cluster.instances.get(i))
            .filter(|i| i.uses_local_storage())
    });
    local.map(|i| {
        format!(
            "runs {} on local storage ({})",
            i.name,
            i.disk_template.raw()
        )
    })
}

/// The explanation, as text.
pub fn text(
    cluster: &Cluster,
    decision: &Decision,
    why: &Reasoning,
    minimal: f64,
    target: f64,
) -> String {
    let std = &cluster.ipolicy.std;
    let min_inst = reserve_instance(std, minimal);
    let target_inst = reserve_instance(std, target);
    let state = State::from_lists(
        cluster.nodes.clone(),
        cluster.instances.clone(),
        &cluster.groups,
    );
    let names = Names {
        state: &state,
        tags: &cluster.tags,
    };
    let node = |k: usize| cluster.nodes.get(k).map_or("?", |n| n.info.name.as_str());
    let inst = |k: usize| cluster.instances.get(k).map_or("?", |i| &*i.name);
    let failure = |f: &TrialFailure| -> String {
        match f {
            TrialFailure::Stuck { inst: i, node: n } => format!(
                "{} cannot leave {} (its disk template or it is not auto-balanced)",
                inst(*i),
                node(*n)
            ),
            TrialFailure::Memory { room, used } => format!(
                "the remaining nodes can hold at most {room} MiB of instances beside their reserves; the instances use {used} MiB"
            ),
            TrialFailure::LeftOffline { inst: i } => {
                format!("after the balancing {} is still on one of the nodes tried", inst(*i))
            }
            TrialFailure::Short {
                node: n,
                refusal,
                after,
            } => format!(
                "after the balancing {} could not keep the reserve: {}",
                node(*n),
                reasons::describe(refusal, after, None, &names)
            ),
        }
    };
    let mut out = String::from("hailstone-squeeze explain\n");
    out.push_str(&format!(
        "minimal reserve: {}\n",
        reserve_text(&min_inst, minimal, "--minimal-resources")
    ));
    match &why.short_now {
        Some((k, r)) => {
            out.push_str(&format!(
                "{} cannot take it now ({}): standby nodes are powered on\n",
                node(*k),
                reasons::describe(r, &cluster.nodes[*k], None, &names)
            ));
            let tried = |a: &Attempt| {
                if a.nodes.is_empty() {
                    "no standby node".to_owned()
                } else {
                    a.nodes
                        .iter()
                        .map(|&k| node(k))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            };
            for a in &why.attempts {
                match &a.failure {
                    None => out.push_str(&format!("  with {}: enough\n", tried(a))),
                    Some(f) => out.push_str(&format!(
                        "  with {}: not enough: {}\n",
                        tried(a),
                        failure(f)
                    )),
                }
            }
            if let Decision::Online { enough: false, .. } = decision {
                out.push_str("  no set of standby nodes is enough: all of them are powered on\n");
            }
            return out;
        }
        None => out.push_str("every node can take it now: no standby node is powered on\n"),
    }
    out.push_str(&format!(
        "target reserve: {}\n",
        reserve_text(&target_inst, target, "--target-resources")
    ));
    let cands = offline_candidates(cluster);
    out.push_str(&format!(
        "{} candidate{} to power off, tried from the fewest primaries:\n",
        cands.len(),
        if cands.len() == 1 { "" } else { "s" }
    ));
    for a in &why.attempts {
        let Some(&k) = a.nodes.first() else {
            continue;
        };
        match &a.failure {
            None => out.push_str(&format!("  {}: powered off\n", node(k))),
            Some(f) => out.push_str(&format!("  {}: kept: {}\n", node(k), failure(f))),
        }
    }
    let others: Vec<String> = (0..cluster.nodes.len())
        .filter_map(|k| not_candidate(cluster, k).map(|why| format!("  {}: {why}\n", node(k))))
        .collect();
    if !others.is_empty() {
        out.push_str("not candidates:\n");
        for o in others {
            out.push_str(&o);
        }
    }
    out
}
