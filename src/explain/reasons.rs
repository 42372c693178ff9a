//! Refusals in words, and their aggregation: the candidates a search
//! refused, counted by reason, with the closest misses of each reason
//! named, so that a 1,000-node cluster reads in one screen.

use crate::model::node::Node;
use crate::model::refusal::{Check, PolicyBound, PolicyResource, Refusal};
use crate::model::types::FailMode;
use crate::model::TagTable;
use crate::search::state::State;

/// Which placement a check was about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// The instance policy of the node's group.
    Policy,
    /// The node as the primary.
    Primary,
    /// The node as the secondary.
    Secondary,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Policy => "policy",
            Role::Primary => "primary",
            Role::Secondary => "secondary",
        }
    }
}

/// A refusal's reason without its numbers: what candidates are counted by.
pub fn kind(check: &Check) -> &'static str {
    match check {
        Check::Memory { .. } => "memory",
        Check::FailoverMemory { .. } => "memory for a failover",
        Check::N1Reserve { .. } => "N+1 memory reserve",
        Check::Disk { .. } => "disk",
        Check::DiskReserve { .. } => "disk reserve",
        Check::Spindles { .. } => "spindles",
        Check::SpindleRatio { .. } => "spindle ratio",
        Check::VcpuRatio { .. } => "vCPU ratio",
        Check::ExclusionTag { .. } => "exclusion tag",
        Check::NoSecondary => "no secondary",
        Check::Policy { .. } => "instance policy",
        Check::PolicyTemplate { .. } => "disk template",
        Check::Migration => "migration",
        Check::Unexplained => "other",
    }
}

/// What the explanation needs to name things.
pub struct Names<'a> {
    pub state: &'a State,
    pub tags: &'a TagTable,
}

impl Names<'_> {
    fn node(&self, k: i32) -> String {
        self.state
            .node(k)
            .map_or_else(|_| format!("node #{k}"), |n| n.info.name.clone())
    }

    /// The instances on `node` holding the exclusion tag `tag`.
    fn holders(&self, node: &Node, tag: u32) -> Vec<String> {
        node.p_list
            .iter()
            .filter_map(|&i| self.state.inst(i).ok())
            .filter(|i| i.excl_tags.contains(&tag))
            .map(|i| i.name.to_string())
            .collect()
    }
}

fn resource_name(r: PolicyResource) -> &'static str {
    match r {
        PolicyResource::Memory => "memory",
        PolicyResource::DiskSize => "disk size",
        PolicyResource::Cpus => "vCPUs",
        PolicyResource::Spindles => "spindles",
        PolicyResource::DiskCount => "disk count",
    }
}

fn resource_unit(r: PolicyResource) -> &'static str {
    match r {
        PolicyResource::Memory | PolicyResource::DiskSize => " MiB",
        _ => "",
    }
}

/// A number as people read it: integers without a fraction, others with
/// at most two decimals.
pub fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        let s = format!("{x:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// A score or a statistic as people read it: four significant digits,
/// trailing zeros dropped, never an exponent (`0.2661`, `46.95`,
/// `0.005208`, `16`). The JSON keeps the whole number.
pub fn sig(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x == 0.0 {
        return "0".to_owned();
    }
    let magnitude = x.abs().log10().floor() as i64;
    let decimals = (3 - magnitude).max(0) as usize;
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    }
}

/// Where a node's memory goes: total, the node's own, the instances',
/// and what the node reports in use beyond them (hail's `xMem`: a dom0
/// or hypervisor larger than declared shows here).
fn memory_parts(node: &Node) -> String {
    let mut out = format!(
        " ({} total - {} for the node - {} for instances",
        crate::model::node::truncate(node.t_mem),
        node.n_mem,
        node.i_mem
    );
    if node.x_mem > 0 {
        out.push_str(&format!(" - {} unaccounted", node.x_mem));
    }
    out.push(')');
    out
}

/// The refusal in words, with its numbers; `node` is the node checked and
/// `primary` the candidate's primary (for a secondary's reservation).
pub fn describe(r: &Refusal, node: &Node, primary: Option<usize>, names: &Names<'_>) -> String {
    describe_with(r, node, primary, names, true)
}

/// [`describe`] without the node's memory breakdown, for a check made on
/// the node as a move would leave it, which the breakdown of `node` (the
/// node as it is) would not add up to.
pub fn describe_checked(
    r: &Refusal,
    node: &Node,
    primary: Option<usize>,
    names: &Names<'_>,
) -> String {
    describe_with(r, node, primary, names, false)
}

fn describe_with(
    r: &Refusal,
    node: &Node,
    primary: Option<usize>,
    names: &Names<'_>,
    breakdown: bool,
) -> String {
    let parts = |node: &Node| {
        if breakdown {
            memory_parts(node)
        } else {
            String::new()
        }
    };
    let text = match r.check {
        Check::Memory { need, free } if r.forthcoming && need == free => {
            format!("needs {need} MiB of memory and 1 MiB to spare, {free} MiB free")
        }
        Check::Memory { need, free } if r.forthcoming => {
            format!("needs {need} MiB of memory, {free} MiB free")
        }
        Check::Memory { need, free } if need == free => format!(
            "needs {need} MiB of memory and 1 MiB to spare, {free} MiB free{}",
            parts(node)
        ),
        Check::Memory { need, free } => {
            format!(
                "needs {need} MiB of memory, {free} MiB free{}",
                parts(node)
            )
        }
        Check::FailoverMemory { need, free } if need == free => format!(
            "needs {need} MiB to take the instance over on a failover and 1 MiB to spare, {free} MiB free"
        ),
        Check::FailoverMemory { need, free } => {
            format!("needs {need} MiB to take the instance over on a failover, {free} MiB free")
        }
        Check::N1Reserve {
            left,
            reserved,
            peer,
        } => {
            let whose = match peer {
                Some(p) if primary.is_some_and(|q| q as i32 == p) => {
                    format!("{}'s instances, this one included", names.node(p))
                }
                Some(p) => format!("{}'s instances", names.node(p)),
                None => "other nodes' instances".to_owned(),
            };
            // The check refuses a node left with at most its reserve.
            let than = if left == reserved {
                "no more than"
            } else {
                "less than"
            };
            format!(
                "would keep {left} MiB free, {than} the {reserved} MiB reserved to take over {whose} (N+1)"
            )
        }
        Check::Disk { need, free } if need == free => {
            format!("needs {need} MiB of disk and 1 MiB to spare, {free} MiB free")
        }
        Check::Disk { need, free } => format!("needs {need} MiB of disk, {free} MiB free"),
        Check::DiskReserve { left, reserve } => {
            format!("would keep {left} MiB of disk, below the {reserve} MiB reserve")
        }
        Check::Spindles { need, free } => format!("needs {need} spindles, {free} free"),
        Check::SpindleRatio { used, limit, total } => {
            let ratio = if total > 0 {
                format!(
                    " ({total} spindle{} × ratio {})",
                    if total == 1 { "" } else { "s" },
                    num(limit / total as f64)
                )
            } else {
                String::new()
            };
            format!(
                "would use {} spindles, above the limit {}{ratio}",
                num(used),
                num(limit)
            )
        }
        Check::VcpuRatio { vcpus, cpus, ratio } => format!(
            "would run {vcpus} vCPUs on {} CPUs ({} per CPU), above the ratio {}",
            num(cpus),
            num(vcpus as f64 / cpus),
            num(ratio)
        ),
        Check::ExclusionTag { tag } => {
            let holders = names.holders(node, tag);
            let by = if holders.is_empty() {
                String::new()
            } else {
                format!(" by {}", holders.join(", "))
            };
            format!(
                "exclusion tag '{}' already held here{by}",
                names.tags.name(tag)
            )
        }
        Check::NoSecondary => "the instance's disk template has no secondary".to_owned(),
        Check::Policy {
            pair,
            bound,
            resource,
            value,
            limit,
        } => {
            let unit = resource_unit(resource);
            let side = match bound {
                PolicyBound::Min => "below the minimum",
                PolicyBound::Max => "above the maximum",
            };
            if value < 0 && resource == PolicyResource::Spindles {
                format!(
                    "spindles unknown with exclusive storage (spec {})",
                    pair + 1
                )
            } else {
                format!(
                    "{} {value}{unit} is {side} {limit}{unit} (spec {})",
                    resource_name(resource),
                    pair + 1
                )
            }
        }
        Check::PolicyTemplate { template } => {
            format!(
                "the policy does not allow the {} disk template",
                template.raw()
            )
        }
        Check::Migration => {
            "the instance cannot migrate there (hypervisor or migration tags)".to_owned()
        }
        Check::Unexplained => format!("refused ({})", r.mode.name()),
    };
    if r.forthcoming {
        format!("{text}, counting forthcoming instances")
    } else {
        text
    }
}

/// One candidate refused for a reason, for the closest-miss lists.
#[derive(Debug, Clone, PartialEq)]
pub struct Miss {
    /// The candidate's nodes (primary, then secondary).
    pub nodes: Vec<String>,
    /// The refusal in words.
    pub detail: String,
    /// How far it was from passing (see [`Refusal::shortfall`]).
    pub shortfall: Option<f64>,
}

/// Candidates refused for one reason.
#[derive(Debug, Clone, PartialEq)]
pub struct ReasonCount {
    /// hail's failure mode.
    pub mode: FailMode,
    /// Which placement the check was about.
    pub role: Role,
    /// The reason ([`kind`]).
    pub kind: &'static str,
    /// How many candidates.
    pub count: u64,
    /// Every refused candidate, in the search's order: each node refused
    /// as a primary or by the policy once, pairs refused for their
    /// secondary up to [`PAIRS_LISTED`].
    pub every: Vec<Miss>,
    /// The refused pairs beyond [`PAIRS_LISTED`], counted only.
    pub unlisted: u64,
}

impl ReasonCount {
    /// The misses the text names: every one when there are at most
    /// [`TEXT_ALL`], closest first; otherwise the closest.
    pub fn shown(&self) -> Vec<&Miss> {
        let mut all = self.by_closeness();
        if self.every.len() > TEXT_ALL || self.unlisted > 0 {
            all.truncate(CLOSEST);
        }
        all
    }

    /// The closest misses, closest first (at most [`CLOSEST`]).
    pub fn closest(&self) -> Vec<&Miss> {
        let mut all = self.by_closeness();
        all.truncate(CLOSEST);
        all
    }

    /// Every listed miss, closest first; equal shortfalls (and misses
    /// without one) keep the search order.
    fn by_closeness(&self) -> Vec<&Miss> {
        let mut all: Vec<&Miss> = self.every.iter().collect();
        all.sort_by(|a, b| match (a.shortfall, b.shortfall) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
        all
    }

    /// How many refused candidates the text does not name.
    pub fn not_shown(&self) -> u64 {
        (self.every.len() as u64 + self.unlisted).saturating_sub(self.shown().len() as u64)
    }
}

/// How many misses each reason names at least.
pub const CLOSEST: usize = 3;

/// Up to how many misses of a reason the text names them all.
pub const TEXT_ALL: usize = 10;

/// How many pairs refused for their secondary a reason lists.
pub const PAIRS_LISTED: usize = 2000;

/// Refusals counted by reason, in the order the reasons were first met.
#[derive(Debug, Default)]
pub struct Tally {
    pub reasons: Vec<ReasonCount>,
    /// Whether every role's misses are listed up to [`PAIRS_LISTED`] (not
    /// only the pairs'): for searches whose candidates are not one node
    /// each (a balancing's moves).
    capped: bool,
}

impl Tally {
    /// A tally listing at most [`PAIRS_LISTED`] misses of each reason.
    pub fn capped() -> Tally {
        Tally {
            reasons: Vec::new(),
            capped: true,
        }
    }

    /// Counts `count` candidates (`nodes`) refused with `r` for `role`,
    /// `shortfall` from passing; `detail` says it in words (called only
    /// for a miss that is listed).
    pub fn add(
        &mut self,
        role: Role,
        r: &Refusal,
        count: u64,
        nodes: Vec<String>,
        shortfall: Option<f64>,
        detail: impl FnOnce() -> String,
    ) {
        self.add_named(role, r, count, || nodes, shortfall, detail);
    }

    /// [`Tally::add`] with the candidate's names made only for a miss
    /// that is listed.
    pub fn add_named(
        &mut self,
        role: Role,
        r: &Refusal,
        count: u64,
        nodes: impl FnOnce() -> Vec<String>,
        shortfall: Option<f64>,
        detail: impl FnOnce() -> String,
    ) {
        let k = kind(&r.check);
        let pos = match self
            .reasons
            .iter()
            .position(|x| x.role == role && x.kind == k && x.mode == r.mode)
        {
            Some(p) => p,
            None => {
                self.reasons.push(ReasonCount {
                    mode: r.mode,
                    role,
                    kind: k,
                    count: 0,
                    every: Vec::new(),
                    unlisted: 0,
                });
                self.reasons.len() - 1
            }
        };
        let entry = &mut self.reasons[pos];
        entry.count += count;
        if (role == Role::Secondary || self.capped) && entry.every.len() >= PAIRS_LISTED {
            entry.unlisted += count;
            return;
        }
        let nodes = nodes();
        // A node refused for each of its pairs is one miss.
        if entry.every.last().is_some_and(|m| m.nodes == nodes) {
            return;
        }
        entry.every.push(Miss {
            nodes,
            detail: detail(),
            shortfall,
        });
    }

    /// The reasons, most frequent first (ties in the order met).
    pub fn sorted(mut self) -> Vec<ReasonCount> {
        self.reasons.sort_by_key(|r| std::cmp::Reverse(r.count));
        self.reasons
    }
}

#[cfg(test)]
mod tests {
    use super::sig;

    #[test]
    fn sig_keeps_four_significant_digits() {
        let cases = [
            (0.0052083343333333325, "0.005208"),
            (0.031250001, "0.03125"),
            (46.94539252933034, "46.95"),
            (0.2660674201318386, "0.2661"),
            (16.0, "16"),
            (0.75, "0.75"),
            (12345.678, "12346"),
            (9.99996, "10"),
            (1e-9, "0.000000001"),
            (-0.5, "-0.5"),
            (0.0, "0"),
        ];
        for (x, want) in cases {
            assert_eq!(sig(x), want, "{x}");
        }
    }
}
