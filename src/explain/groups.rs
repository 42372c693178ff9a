//! `hailstone-groups`' `--explain` account: for each group, the numbers
//! behind its health (each node failing N+1 with its free and needed
//! memory, each offline host, each split instance), the problem
//! instances of a repair in the order tried, what every group search
//! said of each relocation or refusal (hail's words), and why each
//! balancing stopped, and what the plan costs ([`crate::model::cost`]:
//! repair, compress --evacuate, balance); as text or as one JSON object
//! (the `--json` report, [`crate::write::groups::report_json`], with the
//! balancings' stops and the cost). The report itself, and the words of every reason, are
//! [`crate::write::groups`]'.

use crate::explain::stopped::{self, Stopped};
use crate::explain::Format;
use crate::model::cost::PlanCost;
use crate::search::groups::{Health, N1Failure, Outcome, Refused, Relocation};
use crate::write::groups::{
    no_group, problem_text, report_json, scores_text, status_name, Context, Detail,
};
use crate::write::json::{s, Json};

/// The `--explain` account of a run; `stops` is why each balancing
/// stopped (a group and its stop, in the order of the group scores);
/// `cost` what the plan costs, for the operations that plan.
pub fn explain(
    ctx: &Context<'_>,
    detail: &Detail,
    stops: &[(usize, Stopped)],
    cost: Option<&PlanCost>,
    format: Format,
) -> String {
    match format {
        Format::Text => {
            let mut out = explain_text(ctx, detail, stops);
            if let Some(c) = cost {
                out.push_str(&crate::write::cost::line(c));
                out.push('\n');
            }
            out
        }
        Format::Json => {
            let mut doc = report_json(ctx, detail);
            // Why each balancing stopped: in the explanation only (the
            // `--json` document's report stays as it is).
            if let (Detail::Balance(_), Json::Obj(fields)) = (detail, &mut doc) {
                let stops = stops
                    .iter()
                    .map(|(g, st)| {
                        let mut f = vec![("group", s(ctx.group(*g)))];
                        f.extend(stopped::json_fields(st));
                        Json::Obj(f)
                    })
                    .collect();
                fields.push(("stopped", Json::Arr(stops)));
            }
            if let Json::Obj(fields) = &mut doc {
                fields.push((
                    "cost",
                    cost.map_or(Json::Null, crate::write::cost::plan_json),
                ));
            }
            doc.line()
        }
    }
}

fn node_numbers(f: &N1Failure) -> String {
    format!(
        "{} MiB free for instances, {} MiB needed to take over its largest peer's instances",
        f.memory.free, f.memory.needed
    )
}

fn searches_text(ctx: &Context<'_>, out: &mut String, rels: &[Relocation], refused: &[Refused]) {
    for r in rels {
        out.push_str(&format!(
            "  {}: to group {} on {}\n",
            ctx.inst(r.inst),
            ctx.group(r.group),
            ctx.nodes(&r.nodes)
        ));
        for m in &r.messages {
            out.push_str(&format!("    {m}\n"));
        }
    }
    for r in refused {
        out.push_str(&format!(
            "  {}: found no group: {}\n",
            ctx.inst(r.inst),
            no_group(ctx, &r.reason)
        ));
        for m in &r.messages {
            out.push_str(&format!("    {m}\n"));
        }
    }
}

fn explain_text(ctx: &Context<'_>, detail: &Detail, stops: &[(usize, Stopped)]) -> String {
    let mut out = String::new();
    let health_detail = |out: &mut String, h: &Health| {
        for f in &h.n1_failing {
            out.push_str(&format!(
                "  node {} fails N+1: {}\n",
                ctx.node(f.node),
                node_numbers(f)
            ));
        }
        for o in &h.offline_hosts {
            out.push_str(&format!(
                "  node {} is offline and hosts instances ({} primary, {} secondary)\n",
                ctx.node(o.node),
                o.primaries,
                o.secondaries
            ));
        }
        for sp in &h.split {
            out.push_str(&format!(
                "  instance {} is split across groups: its secondary is on {} of group {}\n",
                ctx.inst(sp.inst),
                ctx.node(sp.secondary),
                ctx.group(sp.secondary_group)
            ));
        }
    };
    match detail {
        Detail::Check(health) => {
            for h in health {
                out.push_str(&format!(
                    "Group {} is {}\n",
                    ctx.group(h.group),
                    status_name(h.status())
                ));
                health_detail(&mut out, h);
            }
        }
        Detail::Repair(plan) => {
            for r in &plan.repairs {
                out.push_str(&format!(
                    "Group {} was {}\n",
                    ctx.group(r.before.group),
                    status_name(r.before.status())
                ));
                health_detail(&mut out, &r.before);
                out.push_str("  problem instances, in the order tried:\n");
                for (k, p) in &r.problems {
                    out.push_str(&format!(
                        "    {} ({})\n",
                        ctx.inst(*k),
                        problem_text(ctx, p)
                    ));
                }
                searches_text(ctx, &mut out, &r.relocations, &r.refused);
                if r.outcome == Outcome::NoRepair {
                    out.push_str(
                        "  the moves above were not kept: the group would not be healthy\n",
                    );
                }
            }
        }
        Detail::Compress(c) => {
            for t in &c.trials {
                out.push_str(&format!(
                    "Trial evacuation of group {}\n",
                    ctx.group(t.group)
                ));
                searches_text(ctx, &mut out, &t.relocations, &t.refused);
            }
        }
        Detail::Balance(scored) => {
            out.push_str(&scores_text(ctx.groups, scored));
            for (g, st) in stops {
                out.push_str(&format!("Balancing of group {}:\n", ctx.group(*g)));
                out.push_str(&stopped::text(st, "  "));
            }
        }
    }
    out
}
