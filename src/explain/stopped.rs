//! Why a balancing stopped where it did, as data built on its final
//! state (`hailstone-balance --explain`, `hailstone-groups balance
//! --explain`): the stopping rule, the imbalance left in its largest score
//! terms with the nodes behind each, and, when moves were left to try,
//! what refused them: every refused candidate counted by check with the
//! closest misses and their numbers, and the refused moves that would
//! lower the score if the soft checks let them through, each with the
//! check, the node and the numbers.
//!
//! The refusals come from [`crate::search::balance::blocked`], which asks
//! the moves' checks again on the final state; the balancing itself is
//! not run again (its last step is, once, for the best move left:
//! [`crate::search::balance::why_stopped`]).
//!
//! Text rounds scores and statistics to four significant digits
//! ([`super::reasons::sig`]); the JSON keeps every number whole.

use crate::model::TagTable;
use crate::score::metric::{Aggregation, COMPONENTS};
use crate::search::balance::blocked::{self, Forced, RefusedMove, Scanned};
use crate::search::balance::{self, BalanceOptions, Placement, Stop};
use crate::search::moves::Move;
use crate::search::state::State;

use super::reasons::{self, sig, Names, ReasonCount, Role, Tally};
use crate::write::json::{s, Json};

/// How many score terms the text names.
pub const TERMS_SHOWN: usize = 5;

/// How many nodes a term names in the text (the JSON: [`NODES_LISTED`]).
const TERM_NODES_SHOWN: usize = 3;

/// How many nodes of a summed term the JSON lists.
const NODES_LISTED: usize = 100;

/// How many of the refused moves that would lower the score the text
/// names (the best first); the JSON lists [`LOWERING_LISTED`].
const LOWERING_SHOWN: usize = 5;
const LOWERING_LISTED: usize = 100;

/// Why a balancing stopped.
#[derive(Debug, Clone, PartialEq)]
pub struct Stopped {
    /// The rule: `step-limit`, `good-enough`, `no-move`, `no-improvement`
    /// or `gain-too-small`.
    pub kind: &'static str,
    /// The best move left and its score (for the last two rules).
    pub best: Option<(String, f64)>,
    /// The final score, the stopping score and `-g`.
    pub fin: f64,
    pub stop_score: f64,
    pub min_gain: f64,
    /// The score's terms that are not zero, the largest first.
    pub terms: Vec<Term>,
    /// What refused the moves left (when moves were left to try: not
    /// after the step limit or a score good enough).
    pub blocked: Option<Blocked>,
}

/// One term of the final score: a weighted statistic over the nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct Term {
    /// hbal's name for it (`--print-nodes`, `-v`).
    pub name: &'static str,
    pub weight: f64,
    /// The statistic; the term is `weight × value`.
    pub value: f64,
    pub aggregation: Aggregation,
    /// Whether the statistic is over the offline nodes (else the online).
    pub offline: bool,
    /// The nodes behind it: for a sum, those contributing, largest first;
    /// for a standard deviation, the highest and the lowest node.
    pub nodes: Vec<(String, f64)>,
    /// For a sum, how many nodes contribute.
    pub contributing: usize,
}

impl Term {
    pub fn weighted(&self) -> f64 {
        self.weight * self.value
    }
}

/// The candidate moves left, and what refused them.
#[derive(Debug, Clone, PartialEq)]
pub struct Blocked {
    pub scanned: Scanned,
    /// The refused candidates by check, most frequent first.
    pub reasons: Vec<ReasonCount>,
    /// Whether the soft checks were ignored already (`--ignore-soft-errors`).
    pub soft_ignored: bool,
    /// Of the refused: how many the soft checks alone refused and would
    /// lower the score, would not lower it, and are refused by a hard check.
    pub lower: u64,
    pub not_lower: u64,
    pub hard: u64,
    /// How many instances those that would lower the score belong to.
    pub lower_instances: usize,
    /// The refused moves that would lower the score, lowest score first
    /// (at most [`LOWERING_LISTED`]).
    pub lowering: Vec<Lowering>,
}

/// A refused move that would lower the score if the soft checks let it
/// through.
#[derive(Debug, Clone, PartialEq)]
pub struct Lowering {
    pub instance: String,
    /// The move in words (`inst (new secondary n3: n1/n2 -> n1/n3)`).
    pub label: String,
    /// The score it would give.
    pub score: f64,
    /// The check that refused it: hail's mode, the role of the node, the
    /// check's name, the node and the check in words with its numbers.
    pub refusal: RefusalPart,
}

/// A check that refused a move, in words.
#[derive(Debug, Clone, PartialEq)]
pub struct RefusalPart {
    pub mode: &'static str,
    pub role: Role,
    pub kind: &'static str,
    pub node: String,
    pub detail: String,
}

fn node_name(state: &State, k: i32) -> String {
    state
        .node(k)
        .map_or_else(|_| "none".to_owned(), |n| n.info.name.clone())
}

/// A move in words: `inst (what: old nodes -> new nodes)`.
pub fn move_text(state: &State, inst: usize, mv: Move, old: (i32, i32), new: (i32, i32)) -> String {
    let node = |k: i32| node_name(state, k);
    let name = state
        .inst(inst as i32)
        .map_or_else(|_| format!("instance #{inst}"), |i| i.name.to_string());
    let what = match mv {
        Move::Failover => "failover".to_owned(),
        Move::FailoverToAny(t) => format!("migrate to {}", node(t as i32)),
        Move::ReplaceSecondary(t) => format!("new secondary {}", node(t as i32)),
        Move::ReplacePrimary(t) => format!("new primary {}", node(t as i32)),
        Move::ReplaceAndFailover(t) => format!("replace and fail over to {}", node(t as i32)),
        Move::FailoverAndReplace(t) => format!("fail over, new secondary {}", node(t as i32)),
    };
    let pair = |(a, b): (i32, i32)| {
        if b < 0 {
            node(a)
        } else {
            format!("{}/{}", node(a), node(b))
        }
    };
    format!("{name} ({what}: {} -> {})", pair(old), pair(new))
}

fn placement_text(state: &State, p: &Placement) -> String {
    move_text(state, p.inst, p.mv, p.old_nodes, p.new_nodes)
}

impl Stopped {
    /// Why the balancing that left `state` at score `fin` after `steps`
    /// steps stopped. `tags` names exclusion tags.
    pub fn new(
        state: &State,
        tags: &TagTable,
        movable: &[bool],
        options: &BalanceOptions,
        fin: f64,
        steps: usize,
    ) -> Stopped {
        let stop = balance::why_stopped(state, movable, options, fin, steps);
        let (kind, best) = match &stop {
            Stop::MaxLength => ("step-limit", None),
            Stop::GoodEnough => ("good-enough", None),
            Stop::NoMove => ("no-move", None),
            Stop::NoImprovement(p) => ("no-improvement", Some(p)),
            Stop::GainTooSmall(p) => ("gain-too-small", Some(p)),
        };
        let blocked = match stop {
            Stop::MaxLength | Stop::GoodEnough => None,
            _ => Some(blocked_moves(state, tags, movable, options, fin)),
        };
        // The scan and the step agree: no move at all when none fits
        // (with a NaN score, as hbal's, no move compares better, so moves
        // that fit leave "no move" too).
        debug_assert!(
            fin.is_nan()
                || blocked
                    .as_ref()
                    .is_none_or(|b| (b.scanned.fit == 0) == (kind == "no-move"))
        );
        Stopped {
            kind,
            best: best.map(|p| (placement_text(state, p), p.score)),
            fin,
            stop_score: options.stop_score,
            min_gain: options.min_gain,
            terms: terms(state),
            blocked,
        }
    }

    /// The stopping rule in words, its numbers written by `num`.
    pub fn detail(&self, num: impl Fn(f64) -> String) -> String {
        match (self.kind, &self.best) {
            ("step-limit", _) => "the step limit (-l) was reached".to_owned(),
            ("good-enough", _) => format!(
                "the score {} is at most {} (the best possible plus -e)",
                num(self.fin),
                num(self.stop_score)
            ),
            ("no-improvement", Some((m, score))) if *score == self.fin => format!(
                "no move lowers the score; the best left is {m} at {} (equal to the current {})",
                num(*score),
                num(self.fin)
            ),
            ("no-improvement", Some((m, score))) => format!(
                "no move lowers the score; the best left is {m} at {} ({} above the current {})",
                num(*score),
                num(score - self.fin),
                num(self.fin)
            ),
            ("gain-too-small", Some((m, score))) => format!(
                "the best move left, {m}, gains {} (to {}), less than -g {}",
                num(self.fin - score),
                num(*score),
                num(self.min_gain)
            ),
            _ => match &self.blocked {
                Some(b) if self.fin.is_nan() && b.scanned.fit > 0 => format!(
                    "the score is not a number (NaN: a statistic over values that are not numbers), so none of the {} moves that fit can compare lower, as in hbal",
                    b.scanned.fit
                ),
                Some(b) if b.scanned.candidates > 0 => format!(
                    "no move is left: all {} candidate moves of the {} instances that may move are refused by a check",
                    b.scanned.candidates, b.scanned.instances
                ),
                _ => "no instance has a move to try".to_owned(),
            },
        }
    }
}

/// The final score's terms that are not zero, the largest first (equal
/// terms in hbal's order).
fn terms(state: &State) -> Vec<Term> {
    let Some(values) = state.statistics() else {
        return Vec::new();
    };
    let keys: Vec<usize> = state.node_keys().collect();
    let mut out: Vec<Term> = COMPONENTS
        .iter()
        .enumerate()
        .filter(|(k, c)| c.weight * values[*k] != 0.0)
        .map(|(k, c)| {
            let offline = !c.online;
            let per_node: Vec<(String, f64)> = keys
                .iter()
                .filter(|&&n| state.node_at(n).offline == offline)
                .map(|&n| (state.node_at(n).info.name.clone(), state.values(n)[k]))
                .collect();
            let (nodes, contributing) = match c.aggregation {
                Aggregation::Sum => {
                    let mut nz: Vec<(String, f64)> =
                        per_node.into_iter().filter(|(_, v)| *v != 0.0).collect();
                    nz.sort_by(|a, b| b.1.total_cmp(&a.1));
                    let n = nz.len();
                    nz.truncate(NODES_LISTED);
                    (nz, n)
                }
                Aggregation::StdDev => {
                    // The first of equals, in node order.
                    let mut hi: Option<&(String, f64)> = None;
                    let mut lo: Option<&(String, f64)> = None;
                    for p in &per_node {
                        if hi.is_none_or(|h| p.1 > h.1) {
                            hi = Some(p);
                        }
                        if lo.is_none_or(|l| p.1 < l.1) {
                            lo = Some(p);
                        }
                    }
                    (hi.into_iter().chain(lo).cloned().collect(), 0)
                }
                Aggregation::Map => (Vec::new(), 0),
            };
            Term {
                name: c.name,
                weight: c.weight,
                value: values[k],
                aggregation: c.aggregation,
                offline,
                nodes,
                contributing,
            }
        })
        .collect();
    out.sort_by(|a, b| b.weighted().total_cmp(&a.weighted()));
    out
}

/// The refused candidate moves of the final state.
fn blocked_moves(
    state: &State,
    tags: &TagTable,
    movable: &[bool],
    options: &BalanceOptions,
    fin: f64,
) -> Blocked {
    let names = Names { state, tags };
    let mut tally = Tally::capped();
    let (mut lower, mut not_lower, mut hard) = (0, 0, 0);
    let mut lowering: Vec<(f64, RefusedMove)> = Vec::new();
    let mut lower_insts: Vec<usize> = Vec::new();
    let scanned = blocked::refused_moves(state, movable, options, fin, |m| {
        let role = if m.why.as_primary {
            Role::Primary
        } else {
            Role::Secondary
        };
        let r = &m.why.refusal;
        tally.add_named(
            role,
            r,
            1,
            || {
                vec![format!(
                    "{} refused by {}",
                    move_text(state, m.inst, m.mv, m.old_nodes, m.new_nodes),
                    node_name(state, m.why.node as i32)
                )]
            },
            r.shortfall(),
            || refusal_detail(state, &names, &m),
        );
        match m.forced {
            Forced::Hard => hard += 1,
            Forced::NotLower => not_lower += 1,
            Forced::Lower(score) => {
                lower += 1;
                lower_insts.push(m.inst);
                lowering.push((score, m));
                if lowering.len() > 2 * LOWERING_LISTED {
                    keep_best(&mut lowering);
                }
            }
        }
    });
    keep_best(&mut lowering);
    lower_insts.sort_unstable();
    lower_insts.dedup();
    let lowering = lowering
        .into_iter()
        .map(|(score, m)| Lowering {
            instance: state
                .inst(m.inst as i32)
                .map_or_else(|_| format!("instance #{}", m.inst), |i| i.name.to_string()),
            label: move_text(state, m.inst, m.mv, m.old_nodes, m.new_nodes),
            score,
            refusal: refusal_part(state, &names, &m),
        })
        .collect();
    Blocked {
        scanned,
        reasons: tally.sorted(),
        soft_ignored: options.soft == crate::model::types::SoftChecks::Ignore,
        lower,
        not_lower,
        hard,
        lower_instances: lower_insts.len(),
        lowering,
    }
}

/// The lowest scores first (equal scores in hbal's order), at most
/// [`LOWERING_LISTED`].
fn keep_best(list: &mut Vec<(f64, RefusedMove)>) {
    // Stable: equal scores keep the scan's order.
    list.sort_by(|a, b| a.0.total_cmp(&b.0));
    list.truncate(LOWERING_LISTED);
}

/// The refusal in words; a secondary's reservation names the move's
/// primary.
fn refusal_detail(state: &State, names: &Names<'_>, m: &RefusedMove) -> String {
    let primary = (!m.why.as_primary)
        .then(|| usize::try_from(m.new_nodes.0).ok())
        .flatten();
    // The check saw the node as the move would leave it: no breakdown of
    // the node as it is.
    reasons::describe_checked(&m.why.refusal, state.node_at(m.why.node), primary, names)
}

fn refusal_part(state: &State, names: &Names<'_>, m: &RefusedMove) -> RefusalPart {
    RefusalPart {
        mode: m.why.refusal.mode.name(),
        role: if m.why.as_primary {
            Role::Primary
        } else {
            Role::Secondary
        },
        kind: reasons::kind(&m.why.refusal.check),
        node: node_name(state, m.why.node as i32),
        detail: refusal_detail(state, names, m),
    }
}

// ---------------------------------------------------------------------------
// Text.
// ---------------------------------------------------------------------------

/// The explanation's lines after the rules, each indented by `indent`:
/// the stop, the imbalance left, the moves left and what refused them.
pub fn text(st: &Stopped, indent: &str) -> String {
    let mut out = format!("{indent}stopped: {}\n", st.detail(sig));
    terms_text(&mut out, st, indent);
    if let Some(b) = &st.blocked {
        blocked_text(&mut out, b, indent);
    }
    out
}

fn terms_text(out: &mut String, st: &Stopped, indent: &str) {
    if st.terms.is_empty() {
        out.push_str(&format!(
            "{indent}remaining imbalance: {} (no term above zero)\n",
            sig(st.fin)
        ));
        return;
    }
    let shown = st.terms.len().min(TERMS_SHOWN);
    out.push_str(&format!(
        "{indent}remaining imbalance: {}; {shown} of its {} terms above zero, the largest first (term = weight × statistic):\n",
        sig(st.fin),
        st.terms.len()
    ));
    for t in &st.terms[..shown] {
        let over = if t.offline { "offline" } else { "online" };
        let nodes = |list: &[(String, f64)]| -> Vec<String> {
            list.iter()
                .map(|(n, v)| format!("{n} {}", sig(*v)))
                .collect()
        };
        let about = match t.aggregation {
            Aggregation::Sum => {
                let shown: Vec<String> = nodes(&t.nodes[..t.nodes.len().min(TERM_NODES_SHOWN)]);
                let more = t.contributing.saturating_sub(shown.len());
                let more = if more > 0 {
                    format!(", and {more} more")
                } else {
                    String::new()
                };
                format!(" (sum over the {over} nodes: {}{more})", shown.join(", "))
            }
            Aggregation::StdDev => match t.nodes.as_slice() {
                [(hn, hv), (ln, lv)] => format!(
                    " (standard deviation over the {over} nodes: highest {hn} {}, lowest {ln} {})",
                    sig(*hv),
                    sig(*lv)
                ),
                _ => String::new(),
            },
            Aggregation::Map => {
                " (location and exclusion tags shared on the online nodes)".to_owned()
            }
        };
        out.push_str(&format!(
            "{indent}  {}: {} = {} × {}{about}\n",
            t.name,
            sig(t.weighted()),
            reasons::num(t.weight),
            sig(t.value)
        ));
    }
}

fn blocked_text(out: &mut String, b: &Blocked, indent: &str) {
    let sc = &b.scanned;
    out.push_str(&format!(
        "{indent}moves left: {} candidate{} of {} instance{}: {} fit, {} refused\n",
        sc.candidates,
        plural(sc.candidates),
        sc.instances,
        plural(sc.instances as u64),
        sc.fit,
        sc.refused
    ));
    if b.reasons.is_empty() {
        return;
    }
    let mut reasons_block = String::new();
    super::render::reasons_text(&mut reasons_block, &b.reasons);
    for line in reasons_block.lines() {
        out.push_str(&format!("{indent}{line}\n"));
    }
    if b.soft_ignored {
        out.push_str(&format!(
            "{indent}the soft checks are ignored already (--ignore-soft-errors): every refusal above is a hard check\n"
        ));
        return;
    }
    out.push_str(&format!(
        "{indent}with the soft checks ignored: {} refused move{} would lower the score, {} would not, {} stay refused by a hard check\n",
        b.lower,
        plural(b.lower),
        b.not_lower,
        b.hard
    ));
    if b.lowering.is_empty() {
        return;
    }
    out.push_str(&format!(
        "{indent}refused moves that would lower the score: {} of {} instance{}, the best first:\n",
        b.lower,
        b.lower_instances,
        plural(b.lower_instances as u64)
    ));
    for l in b.lowering.iter().take(LOWERING_SHOWN) {
        let r = &l.refusal;
        out.push_str(&format!(
            "{indent}  {}: score {}; refused by {} as {} ({}, {}): {}\n",
            l.label,
            sig(l.score),
            r.node,
            r.role.name(),
            r.mode,
            r.kind,
            r.detail
        ));
    }
    let more = b.lower.saturating_sub(LOWERING_SHOWN as u64);
    if more > 0 {
        out.push_str(&format!(
            "{indent}  ... and {more} more (--explain-format=json lists {})\n",
            if b.lower as usize > LOWERING_LISTED {
                format!("the best {LOWERING_LISTED}")
            } else {
                "them".to_owned()
            }
        ));
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

// ---------------------------------------------------------------------------
// JSON.
// ---------------------------------------------------------------------------

/// The explanation's fields after the rules: `stop`, `stop_detail`,
/// `best_move_left`, `terms` and `moves_left`, every number whole.
pub fn json_fields(st: &Stopped) -> Vec<(&'static str, Json)> {
    vec![
        ("stop", s(st.kind)),
        ("stop_detail", s(&st.detail(|x| x.to_string()))),
        (
            "best_move_left",
            match &st.best {
                Some((m, score)) => Json::Obj(vec![("move", s(m)), ("score", Json::Num(*score))]),
                None => Json::Null,
            },
        ),
        ("terms", Json::Arr(st.terms.iter().map(term_json).collect())),
        (
            "moves_left",
            st.blocked.as_ref().map_or(Json::Null, blocked_json),
        ),
    ]
}

fn term_json(t: &Term) -> Json {
    Json::Obj(vec![
        ("name", s(t.name)),
        ("weight", Json::Num(t.weight)),
        ("value", Json::Num(t.value)),
        ("weighted", Json::Num(t.weighted())),
        (
            "aggregation",
            s(match t.aggregation {
                Aggregation::StdDev => "standard deviation",
                Aggregation::Sum => "sum",
                Aggregation::Map => "map",
            }),
        ),
        ("nodes_online", Json::Bool(!t.offline)),
        (
            "nodes",
            Json::Arr(
                t.nodes
                    .iter()
                    .map(|(n, v)| Json::Obj(vec![("node", s(n)), ("value", Json::Num(*v))]))
                    .collect(),
            ),
        ),
        ("contributing_nodes", Json::Int(t.contributing as i64)),
    ])
}

fn blocked_json(b: &Blocked) -> Json {
    let sc = &b.scanned;
    Json::Obj(vec![
        ("instances", Json::Int(sc.instances as i64)),
        ("candidates", Json::Int(sc.candidates as i64)),
        ("fit", Json::Int(sc.fit as i64)),
        ("refused", Json::Int(sc.refused as i64)),
        (
            "refusals",
            Json::Arr(b.reasons.iter().map(super::render::reason_json).collect()),
        ),
        ("soft_checks_ignored", Json::Bool(b.soft_ignored)),
        ("would_lower", Json::Int(b.lower as i64)),
        ("would_not_lower", Json::Int(b.not_lower as i64)),
        ("hard", Json::Int(b.hard as i64)),
        ("lowering_instances", Json::Int(b.lower_instances as i64)),
        (
            "lowering",
            Json::Arr(
                b.lowering
                    .iter()
                    .map(|l| {
                        let r = &l.refusal;
                        Json::Obj(vec![
                            ("instance", s(&l.instance)),
                            ("move", s(&l.label)),
                            ("score", Json::Num(l.score)),
                            ("mode", s(r.mode)),
                            ("role", s(r.role.name())),
                            ("reason", s(r.kind)),
                            ("node", s(&r.node)),
                            ("detail", s(&r.detail)),
                        ])
                    })
                    .collect(),
            ),
        ),
    ])
}
