//! Explanations of `hailstone-squeeze`'s plans: the reserve each node
//! must keep, why standby nodes are (or are not) powered on, and for each
//! node tried in hsqueeze's order whether it can be powered off and, when
//! not, why: an instance that cannot leave it, a node too small to keep
//! the reserve even without instances, too little memory left on the
//! other nodes, or the node that could not keep the reserve after the
//! balancing, with that check's numbers; then the plan's cautions
//! ([`crate::search::squeeze_cautions`]): what hsqueeze plans the same and
//! Ganeti refuses, or that breaks what Ganeti keeps; last, what the moves
//! cost ([`crate::model::cost`]).

use crate::model::cost::PlanCost;
use crate::model::instance::Instance;
use crate::model::refusal::{Check, Refusal};
use crate::model::types::FailMode;
use crate::model::Cluster;
use crate::search::squeeze::{
    offline_candidates, reserve_instance, Decision, Reasoning, TrialFailure,
};
use crate::search::squeeze_cautions::Caution;
use crate::search::state::State;

use super::reasons::{self, Names};
use super::Format;
use crate::write::json::{s, Json};

/// A reserve level.
struct Reserve {
    option: &'static str,
    factor: f64,
    memory: i64,
    vcpus: i64,
    spindles: i64,
}

impl Reserve {
    fn new(option: &'static str, factor: f64, r: &Instance) -> Reserve {
        Reserve {
            option,
            factor,
            memory: r.mem,
            vcpus: r.vcpus,
            spindles: r.spindle_use,
        }
    }

    fn text(&self) -> String {
        format!(
            "{} × the standard instance ({}) = {} MiB memory, {} vCPU{}, {} spindle{}",
            reasons::num(self.factor),
            self.option,
            self.memory,
            self.vcpus,
            if self.vcpus == 1 { "" } else { "s" },
            self.spindles,
            if self.spindles == 1 { "" } else { "s" }
        )
    }

    fn json(&self) -> Json {
        Json::Obj(vec![
            ("option", s(self.option)),
            ("factor", Json::Num(self.factor)),
            ("memory", Json::Int(self.memory)),
            ("vcpus", Json::Int(self.vcpus)),
            ("spindles", Json::Int(self.spindles)),
        ])
    }
}

/// The explanation of one plan.
struct Explanation {
    minimal: Reserve,
    /// The node short of the minimal reserve now, and why.
    short_now: Option<(String, String)>,
    /// Onlining: each set of standby nodes tried, and why it was not
    /// enough.
    standby: Vec<(Vec<String>, Option<String>)>,
    /// Onlining: whether some set was enough.
    enough: bool,
    target: Reserve,
    /// Offlining: each candidate in the order tried, and why it was kept.
    candidates: Vec<(String, Option<String>)>,
    /// The nodes that are not candidates, and why.
    not_candidates: Vec<(String, String)>,
    /// The plan's cautions: each in words and as JSON.
    cautions: Vec<(String, Json)>,
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

fn build(
    cluster: &Cluster,
    decision: &Decision,
    why: &Reasoning,
    cautions: &[Caution],
    minimal: f64,
    target: f64,
) -> Explanation {
    let std = &cluster.ipolicy.std;
    let state = State::from_lists(
        cluster.nodes.clone(),
        cluster.instances.clone(),
        &cluster.groups,
    );
    let names = Names {
        state: &state,
        tags: &cluster.tags,
    };
    let node = |k: usize| {
        cluster
            .nodes
            .get(k)
            .map_or_else(|| "?".to_owned(), |n| n.info.name.clone())
    };
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
            TrialFailure::TooSmall {
                node: n,
                need,
                free,
            } => {
                // The memory check of the reserve on the node emptied.
                let mut empty = cluster.nodes[*n].clone();
                empty.i_mem = 0;
                let refusal = Refusal::now(
                    FailMode::Mem,
                    Check::Memory {
                        need: *need,
                        free: *free,
                    },
                );
                format!(
                    "{} cannot keep the reserve even without instances: {}",
                    node(*n),
                    reasons::describe(&refusal, &empty, None, &names)
                )
            }
            TrialFailure::LeftOffline { inst: i } => format!(
                "after the balancing {} is still on one of the nodes tried",
                inst(*i)
            ),
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
    let short_now = why.short_now.as_ref().map(|(k, r)| {
        (
            node(*k),
            reasons::describe(r, &cluster.nodes[*k], None, &names),
        )
    });
    let mut e = Explanation {
        minimal: Reserve::new(
            "--minimal-resources",
            minimal,
            &reserve_instance(std, minimal),
        ),
        short_now,
        standby: Vec::new(),
        enough: !matches!(decision, Decision::Online { enough: false, .. }),
        target: Reserve::new("--target-resources", target, &reserve_instance(std, target)),
        candidates: Vec::new(),
        not_candidates: Vec::new(),
        cautions: described(cluster, &names, cautions),
    };
    if e.short_now.is_some() {
        e.standby = why
            .attempts
            .iter()
            .map(|a| {
                let nodes = a.nodes.iter().map(|&k| node(k)).collect();
                (nodes, a.failure.as_ref().map(failure))
            })
            .collect();
        return e;
    }
    e.candidates = why
        .attempts
        .iter()
        .filter_map(|a| {
            let k = *a.nodes.first()?;
            Some((node(k), a.failure.as_ref().map(failure)))
        })
        .collect();
    e.not_candidates = (0..cluster.nodes.len())
        .filter_map(|k| not_candidate(cluster, k).map(|why| (node(k), why)))
        .collect();
    e
}

/// Each caution in words and as JSON (`kind` `"policy"`, `"split"` or
/// `"forthcoming"`, the `step` from 1 as the moves count them).
fn described(cluster: &Cluster, names: &Names<'_>, cautions: &[Caution]) -> Vec<(String, Json)> {
    let node = |k: usize| cluster.nodes.get(k).map_or("?", |n| &*n.info.name);
    let group = |k: usize| {
        cluster
            .nodes
            .get(k)
            .and_then(|n| cluster.groups.get(n.group))
            .map_or("?", |g| &*g.name)
    };
    let inst = |k: usize| cluster.instances.get(k).map_or("?", |i| &*i.name);
    cautions
        .iter()
        .map(|c| match c {
            Caution::Policy {
                step,
                inst: i,
                node: n,
                refusal,
            } => {
                let reason = reasons::describe(refusal, &cluster.nodes[*n], None, names);
                (
                    format!(
                        "step {}: Ganeti refuses to move {} to {} of group {}, whose instance policy it does not meet: {reason}",
                        step + 1,
                        inst(*i),
                        node(*n),
                        group(*n)
                    ),
                    Json::Obj(vec![
                        ("kind", s("policy")),
                        ("step", Json::Int(*step as i64 + 1)),
                        ("instance", s(inst(*i))),
                        ("node", s(node(*n))),
                        ("group", s(group(*n))),
                        ("reason", s(&reason)),
                    ]),
                )
            }
            Caution::Split {
                inst: i,
                primary,
                secondary,
            } => (
                format!(
                    "{} is left split across groups: primary {} (group {}), secondary {} (group {})",
                    inst(*i),
                    node(*primary),
                    group(*primary),
                    node(*secondary),
                    group(*secondary)
                ),
                Json::Obj(vec![
                    ("kind", s("split")),
                    ("instance", s(inst(*i))),
                    ("primary", s(node(*primary))),
                    ("primary_group", s(group(*primary))),
                    ("secondary", s(node(*secondary))),
                    ("secondary_group", s(group(*secondary))),
                ]),
            ),
            Caution::Forthcoming { node: n, insts } => {
                let names: Vec<&str> = insts.iter().map(|&i| inst(i)).collect();
                (
                    format!(
                        "{} is powered off though forthcoming instances are to be created on it: {}",
                        node(*n),
                        names.join(", ")
                    ),
                    Json::Obj(vec![
                        ("kind", s("forthcoming")),
                        ("node", s(node(*n))),
                        ("instances", crate::write::json::strs(&names)),
                    ]),
                )
            }
        })
        .collect()
}

/// The plan's cautions as `--json` carries them (the explanation's
/// `cautions`).
pub fn cautions_json(cluster: &Cluster, cautions: &[Caution]) -> Json {
    let state = State::from_lists(
        cluster.nodes.clone(),
        cluster.instances.clone(),
        &cluster.groups,
    );
    let names = Names {
        state: &state,
        tags: &cluster.tags,
    };
    Json::Arr(
        described(cluster, &names, cautions)
            .into_iter()
            .map(|(_, j)| j)
            .collect(),
    )
}

/// The plan's cautions in words, as the explanation's text gives them
/// (the `--report` page's "Cautions").
pub fn cautions_texts(cluster: &Cluster, cautions: &[Caution]) -> Vec<String> {
    let state = State::from_lists(
        cluster.nodes.clone(),
        cluster.instances.clone(),
        &cluster.groups,
    );
    let names = Names {
        state: &state,
        tags: &cluster.tags,
    };
    described(cluster, &names, cautions)
        .into_iter()
        .map(|(t, _)| t)
        .collect()
}

/// The explanation of the plan, in `format`.
pub fn render(
    cluster: &Cluster,
    decision: &Decision,
    why: &Reasoning,
    cautions: &[Caution],
    (minimal, target): (f64, f64),
    cost: &PlanCost,
    format: Format,
) -> String {
    let e = build(cluster, decision, why, cautions, minimal, target);
    match format {
        Format::Text => {
            let mut out = text(&e, offline_candidates(cluster).len());
            out.push_str(&crate::write::cost::line(cost));
            out.push('\n');
            out
        }
        Format::Json => match json(&e) {
            Json::Obj(mut fields) => {
                fields.push(("cost", crate::write::cost::plan_json(cost)));
                Json::Obj(fields).line()
            }
            other => other.line(),
        },
    }
}

fn text(e: &Explanation, n_candidates: usize) -> String {
    let mut out = String::from("hailstone-squeeze explain\n");
    out.push_str(&format!("minimal reserve: {}\n", e.minimal.text()));
    if let Some((node, detail)) = &e.short_now {
        out.push_str(&format!(
            "{node} cannot take it now ({detail}): standby nodes are powered on\n"
        ));
        for (nodes, failure) in &e.standby {
            let tried = if nodes.is_empty() {
                "no standby node".to_owned()
            } else {
                nodes.join(", ")
            };
            match failure {
                None => out.push_str(&format!("  with {tried}: enough\n")),
                Some(f) => out.push_str(&format!("  with {tried}: not enough: {f}\n")),
            }
        }
        if !e.enough {
            out.push_str("  no set of standby nodes is enough: all of them are powered on\n");
        }
        out.push_str(&cautions_text(e));
        return out;
    }
    out.push_str("every node can take it now: no standby node is powered on\n");
    out.push_str(&format!("target reserve: {}\n", e.target.text()));
    out.push_str(&format!(
        "{n_candidates} candidate{} to power off, tried from the fewest primaries:\n",
        if n_candidates == 1 { "" } else { "s" }
    ));
    for (node, failure) in &e.candidates {
        match failure {
            None => out.push_str(&format!("  {node}: powered off\n")),
            Some(f) => out.push_str(&format!("  {node}: kept: {f}\n")),
        }
    }
    if !e.not_candidates.is_empty() {
        out.push_str("not candidates:\n");
        for (node, why) in &e.not_candidates {
            out.push_str(&format!("  {node}: {why}\n"));
        }
    }
    out.push_str(&cautions_text(e));
    out
}

/// The cautions' block of the text (nothing when there is none).
fn cautions_text(e: &Explanation) -> String {
    if e.cautions.is_empty() {
        return String::new();
    }
    let mut out = String::from("cautions (hsqueeze plans the same; the plan is left as it is):\n");
    for (text, _) in &e.cautions {
        out.push_str(&format!("  {text}\n"));
    }
    out
}

fn json(e: &Explanation) -> Json {
    let opt = |x: &Option<String>| x.as_deref().map_or(Json::Null, s);
    Json::Obj(vec![
        ("minimal_reserve", e.minimal.json()),
        (
            "short_now",
            match &e.short_now {
                Some((node, detail)) => Json::Obj(vec![("node", s(node)), ("detail", s(detail))]),
                None => Json::Null,
            },
        ),
        (
            "standby_tried",
            Json::Arr(
                e.standby
                    .iter()
                    .map(|(nodes, f)| {
                        Json::Obj(vec![
                            ("nodes", crate::write::json::strs(nodes)),
                            ("not_enough", opt(f)),
                        ])
                    })
                    .collect(),
            ),
        ),
        ("standby_enough", Json::Bool(e.enough)),
        ("target_reserve", e.target.json()),
        (
            "candidates",
            Json::Arr(
                e.candidates
                    .iter()
                    .map(|(node, f)| {
                        Json::Obj(vec![
                            ("node", s(node)),
                            ("powered_off", Json::Bool(f.is_none())),
                            ("kept_because", opt(f)),
                        ])
                    })
                    .collect(),
            ),
        ),
        (
            "not_candidates",
            Json::Arr(
                e.not_candidates
                    .iter()
                    .map(|(node, why)| Json::Obj(vec![("node", s(node)), ("why", s(why))]))
                    .collect(),
            ),
        ),
        (
            "cautions",
            Json::Arr(e.cautions.iter().map(|(_, j)| j.clone()).collect()),
        ),
    ])
}
