//! `hailstone-repair`: harep's program (`Program/Harep.hs`): the cluster
//! is read over Luxi; every instance's auto-repair tags give its state
//! ([`crate::search::repair`]); the pending repairs whose jobs ended
//! become successes or failures; then every healthy instance found broken
//! is repaired as its policy allows (or marked as not allowed); the tags
//! that record it are set and the old ones removed, each change a job
//! waited for. The output is harep 3.0.2's; the repair jobs choose new
//! nodes with the cluster's default iallocator where harep names "hail"
//! (docs/compatibility.md). `--dry-run` submits nothing and prints the
//! repair jobs instead. `--print-cost` (hailstone only) adds what this
//! run's repair jobs cost ([`repair::repair_cost`]), one job set: harep
//! submits them together.

pub mod options;

use std::ffi::OsString;
use std::io::Write;

use crate::model::cost::{MoveCost, PlanCost, Rates};
use crate::program::cli::DEFAULT_LUXI_SOCKET;
use crate::read::live;
use crate::read::merge::MergeOptions;
use crate::search::repair::{
    self, InstanceState, Policy, RepairData, RepairResult, RepairType, Status,
};
use crate::shell::exit::{self, load_failed, stop, Stop};
use crate::shell::jobs;
use crate::shell::source::read_luxi;
use crate::write::cost as cost_text;
use crate::write::json::Json;
use crate::write::notes;
use crate::write::opcodes::{self, meta_opcode, Annotation};
use crate::write::repair as texts;
use options::{Options, PROGRAM};

/// The iallocator harep names in its repairs, used when the cluster has
/// no default.
const HAREP_IALLOCATOR: &str = "hail";

/// Runs `hailstone-repair` with `args` (without `argv[0]`); returns the
/// exit status.
pub fn main(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    exit::main(
        PROGRAM,
        crate::program::cli::parse(&options::COMMAND_LINE, args),
        run,
        out,
        err,
    )
}

fn error(message: &str) -> Stop {
    stop(format!("Error: {message}\n"))
}

/// What a run needs besides the cluster.
struct Context<'a> {
    o: &'a Options,
    socket: &'a str,
    names: Vec<String>,
    now: i64,
}

impl Context<'_> {
    fn annotation(&self) -> Annotation {
        jobs::annotation(
            PROGRAM,
            &format!(
                "automated repairs by {PROGRAM} {}",
                env!("CARGO_PKG_VERSION")
            ),
            self.o.reason.as_deref(),
            0,
        )
    }

    /// Submits one job and waits for it (`execJobsWaitOk`), unless
    /// `--dry-run`.
    fn run_and_wait(&self, opcode: &Json, out: &mut dyn Write) -> Result<(), Stop> {
        if self.o.dry_run {
            return Ok(());
        }
        let set = jobs::JobSet {
            description: String::new(),
            jobs: vec![vec![meta_opcode(opcode, &self.annotation())]],
        };
        let mut quiet = std::io::sink();
        let _ = out.flush();
        let statuses = jobs::run_job_set(self.socket, &set, &mut quiet).map_err(|m| error(&m))?;
        let failed: Vec<String> = statuses
            .iter()
            .filter(|(_, s)| s != "success")
            .map(|(id, s)| format!("job {id} {s}"))
            .collect();
        if failed.is_empty() {
            Ok(())
        } else {
            Err(error(&format!(
                "Not all jobs completed successfully: {}",
                failed.join(", ")
            )))
        }
    }

    /// Sets the state's tag and removes the old ones (`commitChange`).
    fn commit(&self, mut s: InstanceState, out: &mut dyn Write) -> Result<InstanceState, Stop> {
        let name = &self.names[s.instance];
        if let Some(d) = s.status.data() {
            out.write_all(texts::adding_tag(name, &d.tag).as_bytes())?;
            self.run_and_wait(&opcodes::instance_tags_opcode(name, &[&d.tag], true), out)?;
        }
        if !s.to_remove.is_empty() {
            out.write_all(texts::removing_tags(name, &s.to_remove).as_bytes())?;
            let tags: Vec<&str> = s.to_remove.iter().map(String::as_str).collect();
            self.run_and_wait(&opcodes::instance_tags_opcode(name, &tags, false), out)?;
        }
        s.to_remove.clear();
        Ok(s)
    }
}

/// A new task's UUID, as Ganeti makes them (the kernel's).
fn new_uuid() -> Result<String, Stop> {
    std::fs::read_to_string("/proc/sys/kernel/random/uuid")
        .map(|s| s.trim().to_owned())
        .map_err(|e| {
            error(&format!(
                "cannot make a UUID: /proc/sys/kernel/random/uuid: {e}"
            ))
        })
}

fn run(
    invocation: &(Options, Vec<OsString>),
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Stop> {
    let (o, arguments) = invocation;
    if !arguments.is_empty() {
        return Err(error("this program doesn't take any arguments."));
    }
    let socket = o.luxi.as_deref().unwrap_or(DEFAULT_LUXI_SOCKET);
    // Repairs submit jobs: one program at a time on a cluster.
    let _lock = if o.dry_run {
        None
    } else {
        Some(crate::shell::lock::lock_cluster(PROGRAM, socket).map_err(stop)?)
    };
    let live = read_luxi(socket).map_err(load_failed)?;
    let iallocator = live
        .default_iallocator()
        .unwrap_or(HAREP_IALLOCATOR)
        .to_owned();
    let (cluster, warnings) = live::load(
        live,
        &MergeOptions::default(),
        o.load.static_kvm_node_memory,
    );
    if o.verbose != 0 {
        err.write_all(notes::warnings(&warnings).as_bytes())?;
    }
    // harep's `suspend:UNTIL` tags are read against the time now.
    let now = crate::shell::clock::epoch_seconds(crate::shell::clock::now());
    let cx = Context {
        o,
        socket,
        names: cluster
            .instances
            .iter()
            .map(|i| i.name.to_string())
            .collect(),
        now,
    };
    let mut states = Vec::with_capacity(cluster.instances.len());
    for (k, inst) in cluster.instances.iter().enumerate() {
        let s = repair::initial_state(k, &inst.name, &inst.tags)
            .map_err(|m| error(&format!("when parsing auto-repair tags: {m}")))?;
        states.push(s);
    }
    // First: the pending repairs whose jobs have all ended.
    let mut checked = Vec::with_capacity(states.len());
    for s in states {
        checked.push(process_pending(&cx, s, out)?);
    }
    // Then: a repair for every healthy instance found broken.
    let mut done = Vec::with_capacity(checked.len());
    let mut plan = Plan::default();
    for s in checked {
        let inst = &cluster.instances[s.instance];
        let broken = repair::detect(inst, &cluster.nodes);
        match (broken, &s.status) {
            (Some(found), Status::Healthy(_)) => {
                let group_tags = usize::try_from(inst.p_node)
                    .ok()
                    .and_then(|p| cluster.nodes.get(p))
                    .and_then(|n| cluster.groups.get(n.group))
                    .map_or(&[][..], |g| &g.tags[..]);
                let policy = repair::policy(&cluster.cluster_tags, group_tags, &inst.tags, cx.now);
                let cost = repair::repair_cost(inst, &found.1);
                let repaired = repair_one(&cx, s, found, policy, &iallocator, out)?;
                // Pending: its job was submitted (or printed).
                if let Status::Pending(d) = &repaired.status {
                    plan.add(d.kind, cost);
                }
                done.push(repaired);
            }
            _ => done.push(s),
        }
    }
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for s in &done {
        let name = s.status.name();
        match counts.iter_mut().find(|(n, _)| *n == name) {
            Some((_, c)) => *c += 1,
            None => counts.push((name, 1)),
        }
    }
    counts.sort_by(|a, b| a.0.cmp(b.0));
    out.write_all(texts::counts(&counts).as_bytes())?;
    if o.print_cost {
        out.write_all(plan.text(o.rates).as_bytes())?;
    }
    out.flush()?;
    Ok(())
}

/// The repair jobs of a run and what each costs, in submission order.
#[derive(Default)]
struct Plan {
    jobs: Vec<MoveCost>,
    reinstalls: i64,
}

impl Plan {
    fn add(&mut self, kind: RepairType, cost: MoveCost) {
        self.jobs.push(cost);
        if kind == RepairType::Reinstall {
            self.reinstalls += 1;
        }
    }

    /// `--print-cost`'s block: the jobs are one job set (harep submits
    /// them together), then how many are reinstalls.
    fn text(&self, rates: Rates) -> String {
        let sets = if self.jobs.is_empty() {
            Vec::new()
        } else {
            vec![self.jobs.clone()]
        };
        let cost = PlanCost::of_sets(&sets, rates);
        format!(
            "{}  reinstalls:      {} (disks recreated empty and the OS installed anew; a drbd instance's new secondary resyncs, counted above as a disk replacement)\n",
            cost_text::text(&cost),
            self.reinstalls
        )
    }
}

/// A pending repair's jobs asked for (`processPending`): when none may
/// still change, the instance becomes healthy (all succeeded) or failed.
fn process_pending(
    cx: &Context<'_>,
    s: InstanceState,
    out: &mut dyn Write,
) -> Result<InstanceState, Stop> {
    let Status::Pending(d) = &s.status else {
        return Ok(s);
    };
    let statuses = jobs::statuses(cx.socket, &d.jobs)
        .map_err(|m| error(&format!("could not check job status: {m}")))?;
    if statuses.iter().any(|st| jobs::unfinished(st)) {
        return Ok(s);
    }
    let mut next = d.clone();
    next.time = cx.now;
    let status = if statuses.iter().all(|st| st == "success") {
        next.result = Some(RepairResult::Success);
        next.retag();
        Status::Healthy(Some(next))
    } else {
        next.result = Some(RepairResult::Failure);
        next.retag();
        Status::Failed(next)
    };
    let moved = s.moved_to(status);
    out.write_all(
        texts::moving(&cx.names[s.instance], s.status.name(), moved.status.name()).as_bytes(),
    )?;
    cx.commit(moved, out)
}

/// The repair of one broken instance as its policy allows (`doRepair`).
fn repair_one(
    cx: &Context<'_>,
    s: InstanceState,
    (kind, ops): (RepairType, Vec<repair::RepairOp>),
    policy: Policy,
    iallocator: &str,
    out: &mut dyn Write,
) -> Result<InstanceState, Stop> {
    let name = cx.names[s.instance].clone();
    let Policy::Enabled(max) = policy else {
        out.write_all(texts::not_repairing(&name, policy).as_bytes())?;
        return Ok(s);
    };
    if kind > max {
        let d = RepairData::new(
            kind,
            new_uuid()?,
            cx.now,
            Vec::new(),
            Some(RepairResult::Enoperm),
        );
        out.write_all(texts::not_allowed(kind, &name, max).as_bytes())?;
        return cx.commit(s.moved_to(Status::NeedsRepair(d)), out);
    }
    out.write_all(texts::executing(kind, &name).as_bytes())?;
    let mut job: Vec<Json> = Vec::with_capacity(ops.len() + 1);
    if cx.o.job_delay > 0.0 {
        job.push(opcodes::test_delay_opcode(cx.o.job_delay));
    }
    job.extend(
        ops.iter()
            .map(|&op| opcodes::repair_opcode(&name, op, iallocator)),
    );
    let uuid = new_uuid()?;
    let ids = if cx.o.dry_run {
        out.write_all(texts::dry_run_jobs(&[job]).as_bytes())?;
        Vec::new()
    } else {
        let a = cx.annotation();
        let annotated: Vec<Json> = job.iter().map(|op| meta_opcode(op, &a)).collect();
        out.flush()?;
        jobs::submit(cx.socket, &[annotated]).map_err(|m| error(&m))?
    };
    let d = RepairData::new(kind, uuid, cx.now, ids, None);
    cx.commit(s.moved_to(Status::Pending(d)), out)
}
