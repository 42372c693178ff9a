//! `hailstone-roll -X`: the reboot groups carried out one after the other
//! through Ganeti's job queue on the Luxi socket the cluster was read
//! from. For each group ([`crate::search::reboot`] says what moves):
//!
//! 1. the evacuation jobs (one job per instance, all submitted at once);
//! 2. the reboot: `--reboot-command` run for every node of the group at
//!    once (`/bin/sh -c CMD hailstone-roll NODE`, so the node is `$1`),
//!    each expected to return once its node is back; without it the
//!    operator reboots the nodes and presses Enter at the terminal;
//! 3. Ganeti asked (every 2 s, at most 15 minutes) until each node's
//!    daemon answers again; a node whose boot id did not change is
//!    named in a warning;
//! 4. the drbd disks touching the group resynchronised, then the return
//!    jobs: every instance back on the nodes it had.
//!
//! Every group is planned and checked before the first job. A failed
//! job, a failed reboot command, the operator's "stop", Ctrl-C (after
//! the current job set) or a node that does not come back stop the run
//! with exit status 1 and say what was done and the commands that would
//! finish the group. The master node is never rebooted: the program runs
//! on it and its job queue is the one in use; it is left for the operator
//! (after `gnt-cluster master-failover` elsewhere).

use std::io::{BufRead, IsTerminal, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::read::live::luxi::boot_ids;
use crate::search::reboot::{self, Action, GroupPlan, Job};
use crate::search::roll::Conf;
use crate::shell::clock;
use crate::shell::exit::{stop, Stop};
use crate::shell::jobs::{self, JobSet};
use crate::shell::luxi::{Client, DEFAULT_TIMEOUT};
use crate::write::json::Json;
use crate::write::opcodes::{self, meta_opcode, Annotation};
use crate::write::roll as texts;

use super::options::{Options, PROGRAM};

/// How long a rebooted node may take to answer Ganeti again.
const COME_BACK: Duration = Duration::from_secs(15 * 60);

/// How often Ganeti is asked whether the nodes answer.
const POLL: Duration = Duration::from_secs(2);

fn error(message: &str) -> Stop {
    stop(format!("Error: {PROGRAM}: {message}\n"))
}

/// Carries out `groups` (node indices, each with hroller's configuration
/// after it) on the cluster `conf` as `o` says.
///
/// # Errors
///
/// A stop that says why and what state the cluster was left in.
pub fn carry_out(
    o: &Options,
    conf: &Conf,
    groups: &[(Vec<usize>, Conf)],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Stop> {
    out.flush()?;
    let Some(socket) = o.luxi.as_deref() else {
        return Err(error("Execution of commands possible only on LUXI"));
    };
    let command = o.roll.reboot_command.as_deref();
    if command.is_none() && !std::io::stdin().is_terminal() {
        return Err(error(
            "-X without --reboot-command needs a terminal on standard input (someone to reboot the nodes); nothing was run",
        ));
    }
    let master = conf.nodes.iter().position(|n| n.info.master);
    let node_name = |k: usize| conf.nodes[k].info.name.to_string();
    let inst_name = |i: usize| conf.insts[i].name.to_string();
    let mut plans = Vec::with_capacity(groups.len());
    for (k, (group, after)) in groups.iter().enumerate() {
        let nodes: Vec<usize> = group
            .iter()
            .copied()
            .filter(|&n| Some(n) != master)
            .collect();
        let p = reboot::plan(conf, after, &nodes, super::maintenance(o)).map_err(|u| {
            error(&format!(
                "reboot group {} of {} ({}) cannot be carried out safely: {} cannot leave: {}; nothing was run",
                k + 1,
                groups.len(),
                names(&nodes, node_name),
                inst_name(u.instance),
                u.reason
            ))
        })?;
        plans.push(p);
    }
    let comment = format!("rolling reboot via {PROGRAM} {}", env!("CARGO_PKG_VERSION"));
    let a = jobs::annotation(PROGRAM, &comment, o.reason.as_deref(), o.priority);
    jobs::catch_interrupt();
    let total = plans.len();
    for (k, p) in plans.iter().enumerate() {
        let label = format!("Reboot group {} of {total}", k + 1);
        if p.nodes.is_empty() {
            continue;
        }
        let group_names = names(&p.nodes, node_name);
        writeln!(out, "{label}: {group_names}")?;
        let listed = |jobs: &[&Job]| {
            let owned: Vec<Job> = jobs.iter().map(|&j| j.clone()).collect();
            texts::commands(&owned, inst_name, node_name)
        };
        let left = |state: &str, jobs: &[&Job]| {
            let rest = if jobs.is_empty() {
                String::new()
            } else {
                format!("; to bring its instances back:\n{}", listed(jobs))
            };
            error(&format!("{label} ({group_names}): {state}{rest}"))
        };
        let booted = query_boot_ids(socket).map_err(|m| error(&m))?;
        let before: Vec<Option<String>> = p
            .nodes
            .iter()
            .map(|&n| boot_of(&booted, &node_name(n)))
            .collect();
        if let Err(f) = phase(socket, "Evacuating", &p.evacuate, conf, &a, out) {
            // Only the instances whose evacuation succeeded have left.
            let back: Vec<&Job> = p
                .restore
                .iter()
                .filter(|r| f.done.contains(&r.instance))
                .collect();
            return Err(left(
                &format!("{}\nstopped while evacuating, no node rebooted", f.message),
                &back,
            ));
        }
        let returning: Vec<&Job> = p.resync.iter().chain(&p.restore).collect();
        if jobs::interrupted() {
            return Err(left(
                "stopped by the user after the evacuation, no node rebooted",
                &p.restore.iter().collect::<Vec<_>>(),
            ));
        }
        reboot(command, &p.nodes, &node_name, &label, out, err).map_err(|m| {
            left(
                &format!("{m}\nnot every node was rebooted"),
                &p.restore.iter().collect::<Vec<_>>(),
            )
        })?;
        wait_for(socket, p, &before, &node_name, out, err)
            .map_err(|m| left(&format!("{m}\nrebooted"), &returning))?;
        if let Err(f) = phase(socket, "Resynchronising", &p.resync, conf, &a, out) {
            let rest: Vec<&Job> = p
                .resync
                .iter()
                .filter(|j| !f.done.contains(&j.instance))
                .chain(&p.restore)
                .collect();
            return Err(left(
                &format!("{}\nrebooted, not returned", f.message),
                &rest,
            ));
        }
        if let Err(f) = phase(socket, "Returning", &p.restore, conf, &a, out) {
            let rest: Vec<&Job> = p
                .restore
                .iter()
                .filter(|j| !f.done.contains(&j.instance))
                .collect();
            return Err(left(
                &format!("{}\nrebooted, not every instance returned", f.message),
                &rest,
            ));
        }
        writeln!(out, "{label}: done")?;
        if jobs::interrupted() && k + 1 < total {
            return Err(error(&format!(
                "stopped by the user after reboot group {} of {total}; the later groups were not rebooted",
                k + 1
            )));
        }
    }
    if let Some(m) = master.filter(|m| groups.iter().any(|(g, _)| g.contains(m))) {
        writeln!(
            out,
            "The master node {} was not rebooted: move the master role (gnt-cluster master-failover on another master candidate), then reboot it",
            node_name(m)
        )?;
    }
    out.flush()?;
    Ok(())
}

fn names(nodes: &[usize], name: impl Fn(usize) -> String) -> String {
    nodes.iter().map(|&n| name(n)).collect::<Vec<_>>().join(",")
}

/// A phase that did not succeed: why, and the instances whose jobs did.
struct Failed {
    message: String,
    done: Vec<usize>,
}

/// Submits one phase's jobs as one job set and waits for them, after
/// printing them as commands; nothing when there are none.
fn phase(
    socket: &str,
    what: &str,
    jobs: &[Job],
    conf: &Conf,
    a: &Annotation,
    out: &mut dyn Write,
) -> Result<(), Failed> {
    if jobs.is_empty() {
        return Ok(());
    }
    let node = |k: usize| conf.nodes[k].info.name.to_string();
    let inst = |i: usize| conf.insts[i].name.to_string();
    let _ = write!(out, "{what}:\n{}", texts::commands(jobs, inst, node));
    let set = JobSet {
        description: what.to_owned(),
        jobs: jobs
            .iter()
            .map(|j| {
                j.actions
                    .iter()
                    .map(|&x| meta_opcode(&opcode(&inst(j.instance), x, &node), a))
                    .collect()
            })
            .collect(),
    };
    let statuses = jobs::run_job_set(socket, &set, out).map_err(|message| Failed {
        message,
        done: Vec::new(),
    })?;
    let failed: Vec<String> = statuses
        .iter()
        .zip(jobs)
        .filter(|((_, s), _)| s != "success")
        .map(|((id, s), j)| format!("job {id} ({}) {s}", inst(j.instance)))
        .collect();
    if failed.is_empty() {
        return Ok(());
    }
    Err(Failed {
        message: format!("Not all jobs completed successfully: {}", failed.join(", ")),
        done: statuses
            .iter()
            .zip(jobs)
            .filter(|((_, s), _)| s == "success")
            .map(|(_, j)| j.instance)
            .collect(),
    })
}

/// The opcode of one action on instance `inst`.
fn opcode(inst: &str, a: Action, node: &impl Fn(usize) -> String) -> Json {
    match a {
        Action::Migrate(to) => opcodes::migrate_opcode(inst, to.map(node).as_deref()),
        Action::Move(to) => opcodes::instance_move_opcode(inst, &node(to)),
        Action::ReplaceSecondary(to) => opcodes::replace_secondary_opcode(inst, &node(to)),
        Action::Resync => opcodes::activate_disks_opcode(inst),
        Action::Shutdown => opcodes::shutdown_opcode(inst),
        Action::Startup => opcodes::startup_opcode(inst),
    }
}

/// Every node's name and boot id (`None`: its daemon does not answer).
fn query_boot_ids(socket: &str) -> Result<Vec<(String, Option<String>)>, String> {
    let mut client = Client::connect(socket, DEFAULT_TIMEOUT).map_err(|e| e.to_string())?;
    let reply = client
        .call("Query", &crate::write::luxi::node_boot_ids())
        .map_err(|e| e.to_string())?;
    reply
        .with_result(boot_ids)
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())
}

fn boot_of(ids: &[(String, Option<String>)], node: &str) -> Option<String> {
    ids.iter()
        .find(|(n, _)| n == node)
        .and_then(|(_, b)| b.clone())
}

/// Reboots the group's nodes: the command for every node at once, or
/// the operator at the terminal.
fn reboot(
    command: Option<&str>,
    nodes: &[usize],
    name: &impl Fn(usize) -> String,
    label: &str,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), String> {
    let all = names(nodes, name);
    let Some(command) = command else {
        write!(
            err,
            "{label}: reboot {all} now; press Enter once they are back up (or type stop): "
        )
        .map_err(|e| e.to_string())?;
        err.flush().map_err(|e| e.to_string())?;
        let mut line = String::new();
        let read = std::io::stdin().lock().read_line(&mut line);
        return match read {
            Ok(n) if n > 0 && line.trim().is_empty() => Ok(()),
            Ok(_) => Err("stopped by the operator before the reboot was confirmed".to_owned()),
            Err(e) => Err(format!("reading the terminal: {e}")),
        };
    };
    let _ = writeln!(out, "Rebooting {all}");
    let _ = out.flush();
    let mut children = Vec::with_capacity(nodes.len());
    for &n in nodes {
        let node = name(n);
        let child = Command::new("/bin/sh")
            .arg("-c")
            .arg(command)
            .arg(PROGRAM)
            .arg(&node)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        children.push((node, child));
    }
    let mut failed = Vec::new();
    for (node, child) in children {
        let output = child.and_then(std::process::Child::wait_with_output);
        match output {
            Ok(o) => {
                let _ = err.write_all(&o.stdout);
                let _ = err.write_all(&o.stderr);
                if !o.status.success() {
                    failed.push(format!("on {node} it ended with {}", o.status));
                }
            }
            Err(e) => failed.push(format!("on {node} it could not run: {e}")),
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("the reboot command failed: {}", failed.join("; ")))
    }
}

/// Waits until every node of the group answers Ganeti again.
fn wait_for(
    socket: &str,
    p: &GroupPlan,
    before: &[Option<String>],
    name: &impl Fn(usize) -> String,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), String> {
    let start = clock::monotonic();
    loop {
        let ids = query_boot_ids(socket)?;
        let missing: Vec<String> = p
            .nodes
            .iter()
            .map(|&n| name(n))
            .filter(|n| boot_of(&ids, n).is_none())
            .collect();
        if missing.is_empty() {
            for (&n, old) in p.nodes.iter().zip(before) {
                let node = name(n);
                if old.is_some() && boot_of(&ids, &node) == *old {
                    let _ = writeln!(
                        err,
                        "Warning: {node} answers with the boot id it had before the reboot command: was it rebooted?"
                    );
                }
            }
            let _ = writeln!(out, "Back: {}", names(&p.nodes, name));
            return Ok(());
        }
        if clock::since(start) >= COME_BACK {
            return Err(format!(
                "{} did not answer Ganeti within {} minutes of the reboot",
                missing.join(", "),
                COME_BACK.as_secs() / 60
            ));
        }
        std::thread::sleep(POLL);
    }
}
