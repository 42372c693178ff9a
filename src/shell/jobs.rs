//! Carrying out a plan through Ganeti's job queue: the planners' `-X`
//! (`Ganeti/Jobs.hs` `execWithCancel`, as hbal and hsqueeze use it).
//!
//! A plan is a list of *job sets*; a set's jobs touch disjoint nodes and
//! may run together. Sets run one after the other: each set's jobs are
//! submitted at once (`SubmitManyJobs`), their ids printed (`Got job IDs
//! ...`), and their status polled (`QueryJobs`, every 0.5 s, doubling up
//! to 15 s) until none is queued, waiting or running. If any job of a set
//! did not succeed, execution stops there with the failed jobs named, and
//! the remaining sets are never submitted. An interrupt (SIGINT, Ctrl-C)
//! lets the current set finish, then stops and lists what was and was not
//! submitted.
//!
//! Each set connects anew to the Luxi socket, as hbal does. The opcodes
//! come ready-made ([`crate::write::opcodes`]); this module only submits
//! and waits.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;
use std::time::Duration;

use crate::read::json::Value;
use crate::shell::clock;
use crate::shell::exit::{stop, Stop};
use crate::shell::luxi::{Client, LuxiError, Reply, DEFAULT_TIMEOUT};
use crate::shell::plan::MoveJob;
use crate::write::json::Json;
use crate::write::opcodes::{meta_opcode, Annotation};

/// One set of jobs that may run in parallel.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSet {
    /// What the set does (shown when execution stops early).
    pub description: String,
    /// The jobs, each a list of annotated opcodes (JSON objects).
    pub jobs: Vec<Vec<Json>>,
}

/// What a planner puts on every opcode it submits, as hbal and hsqueeze
/// do (`annotateOpCode`): `comment`, a reason trail entry from `program`
/// (the `--reason` text, else "PROGRAM VERSION called") stamped now, and
/// the priority (`--priority`: -10 high, 0 normal, 10 low).
pub fn annotation(program: &str, comment: &str, reason: Option<&str>, priority: i32) -> Annotation {
    let version = env!("CARGO_PKG_VERSION");
    let now = i64::try_from(clock::since_epoch(clock::now()).as_nanos()).unwrap_or(i64::MAX);
    Annotation {
        priority,
        comment: comment.to_owned(),
        reason: (
            program.to_owned(),
            reason.map_or_else(|| format!("{program} {version} called"), str::to_owned),
            now,
        ),
    }
}

/// The job sets of a plan's moves (`splitJobs` of the steps' jobs), each
/// job's opcodes annotated.
pub fn move_sets(sets: &[Vec<&MoveJob>], a: &Annotation, describe: &str) -> Vec<JobSet> {
    sets.iter()
        .map(|set| JobSet {
            description: format!(
                "{describe} {}",
                set.iter()
                    .map(|j| j.instance.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            jobs: set
                .iter()
                .map(|j| j.opcodes.iter().map(|o| meta_opcode(o, a)).collect())
                .collect(),
        })
        .collect()
}

/// `-X` for `program`: the job sets carried out on the Luxi socket the
/// cluster was read from (`socket`; `None` when it was read otherwise).
///
/// # Errors
///
/// The stop hbal gives (`Error: PROGRAM: ...`, exit status 1) when the
/// cluster was not read through Luxi ("Execution of commands possible
/// only on LUXI", as hbal says it: after the plan), a call fails or a job
/// did not succeed.
pub fn exec(
    program: &str,
    socket: Option<&str>,
    sets: &[JobSet],
    out: &mut dyn Write,
) -> Result<(), Stop> {
    out.flush()?;
    let Some(socket) = socket else {
        return Err(stop(format!(
            "Error: {program}: Execution of commands possible only on LUXI\n"
        )));
    };
    execute(socket, sets, out).map_err(|m| stop(format!("Error: {program}: {m}\n")))
}

/// A job's status as Luxi names it (`JobStatus`), in Ganeti's order.
fn status_rank(status: &str) -> Option<u8> {
    Some(match status {
        "queued" => 0,
        "waiting" => 1,
        "canceling" => 2,
        "running" => 3,
        "canceled" => 4,
        "success" => 5,
        "error" => 6,
        _ => return None,
    })
}

/// Set by each SIGINT; the wait for a job set takes it ([`pause`]).
static CANCEL: AtomicBool = AtomicBool::new(false);

/// Set once an interrupt was taken: no further job set is submitted, and
/// the next interrupt stops the wait at once.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Whether Ctrl-C (SIGINT) arrived since execution began: a program that
/// runs several phases of jobs stops before the next one.
pub fn interrupted() -> bool {
    STOPPING.load(Ordering::SeqCst) || CANCEL.load(Ordering::SeqCst)
}

/// How a wait between two polls of a job set ended.
#[derive(Debug, PartialEq, Eq)]
enum Pause {
    /// It lasted its time (a first interrupt may have come: the set
    /// is still waited for).
    Done,
    /// A second interrupt came: stop waiting now.
    Abandon,
}

/// Sleeps `delay` in slices of 100 ms, taking interrupts as they come:
/// the first one is announced on `out` (the jobs `ids` are waited for,
/// nothing more is submitted), the second ends the wait.
fn pause(delay: Duration, ids: &[i64], out: &mut dyn Write) -> Pause {
    let end = clock::monotonic() + delay;
    loop {
        if CANCEL.swap(false, Ordering::SeqCst) {
            if STOPPING.swap(true, Ordering::SeqCst) {
                return Pause::Abandon;
            }
            let _ = writeln!(
                out,
                "Interrupted: waiting for jobs {} to finish; no further job set will be \
                 submitted. Interrupt again to stop waiting (the jobs go on in Ganeti).",
                id_list(ids)
            );
            let _ = out.flush();
        }
        let now = clock::monotonic();
        if now >= end {
            return Pause::Done;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(100)));
    }
}

/// Job ids as `3, 4, 5`.
fn id_list(ids: &[i64]) -> String {
    ids.iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// How long the wait for a job set tries to reach the master again after
/// the connection is lost (the master daemon restarting): a minute and
/// a half, in steps of 1, 2, 4, 8 and then 15 seconds.
const RECONNECT_WAITS: [u64; 9] = [1, 2, 4, 8, 15, 15, 15, 15, 15];

/// Makes Ctrl-C (SIGINT) stop execution at the end of the current job set
/// instead of killing the program while jobs run: `signal-hook` sets
/// [`CANCEL`] when the signal arrives (registered once per process).
pub fn catch_interrupt() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // SIGINT is not one of the signals `register` refuses; were it to
        // fail, Ctrl-C would stop the program as without a handler.
        let _ = signal_hook::flag::register(signal_hook::consts::SIGINT, &CANCEL);
    });
}

/// Submits and waits for each job set in turn on the Luxi `socket`,
/// printing progress on `out` as hbal does.
///
/// # Errors
///
/// The first failure, as the message the planner prints: a Luxi error
/// (with the socket and method), or the jobs of a set that did not
/// succeed.
pub fn execute(socket: &str, sets: &[JobSet], out: &mut dyn Write) -> Result<(), String> {
    catch_interrupt();
    let mut submitted: Vec<(String, Vec<(i64, String)>)> = Vec::new();
    for (pos, set) in sets.iter().enumerate() {
        if interrupted() {
            let _ = writeln!(out, "Exiting early due to user request, ");
            let _ = writeln!(out, "{} jobset(s) submitted: ", submitted.len());
            for (description, jobs) in &submitted {
                let ids: Vec<String> = jobs.iter().map(|(id, s)| format!("{id} {s}")).collect();
                let _ = writeln!(out, "  {description}: {}", ids.join(", "));
            }
            let _ = writeln!(out, "{} jobset(s) not submitted:", sets.len() - pos);
            for rest in &sets[pos..] {
                let _ = writeln!(out, "  {}", rest.description);
            }
            return Ok(());
        }
        let statuses = run_set(socket, set, out).map_err(|e| e.to_string())?;
        let failed: Vec<String> = statuses
            .iter()
            .filter(|(_, s)| s != "success")
            .map(|(id, s)| format!("job {id} {s}"))
            .collect();
        if !failed.is_empty() {
            return Err(format!(
                "Not all jobs completed successfully: {}\nAborting.",
                failed.join(", ")
            ));
        }
        submitted.push((set.description.clone(), statuses));
    }
    Ok(())
}

/// Submits one job set and waits for all its jobs (as [`execute`] does
/// for each set); each job's id and final status, in the set's order,
/// whether or not they succeeded.
///
/// # Errors
///
/// A Luxi error (with the socket and method) or a reply that is not a
/// submission's or a status query's.
pub fn run_job_set(
    socket: &str,
    set: &JobSet,
    out: &mut dyn Write,
) -> Result<Vec<(i64, String)>, String> {
    run_set(socket, set, out).map_err(|e| e.to_string())
}

/// Submits `jobs` (each a list of opcodes) at once without waiting for
/// them; their ids.
///
/// # Errors
///
/// A Luxi error or the master's refusal of a job.
pub fn submit(socket: &str, jobs: &[Vec<Json>]) -> Result<Vec<i64>, String> {
    let mut client = Client::connect(socket, DEFAULT_TIMEOUT).map_err(|e| e.to_string())?;
    let args = crate::write::luxi::submit_many_jobs(jobs);
    let reply = client
        .call("SubmitManyJobs", &args)
        .map_err(|e| e.to_string())?;
    reply
        .with_result(|v| submitted_ids(v, jobs.len()))
        .map_err(|e| e.to_string())?
        .map_err(|e| format!("Job submission error: {e}"))
}

/// The statuses of the jobs `ids` now, as Luxi names them.
///
/// # Errors
///
/// A Luxi error or a reply that is not one status per job.
pub fn statuses(socket: &str, ids: &[i64]) -> Result<Vec<String>, String> {
    let mut client = Client::connect(socket, DEFAULT_TIMEOUT).map_err(|e| e.to_string())?;
    let query = crate::write::luxi::query_job_status(ids);
    let reply = client
        .call("QueryJobs", &query)
        .map_err(|e| e.to_string())?;
    reply
        .with_result(|v| job_statuses(v, ids.len()))
        .map_err(|e| e.to_string())?
}

/// `read` on the result of the Luxi reply `bytes` to `method`, as the
/// client reads a reply it received.
pub(crate) fn read_reply<T>(
    method: &str,
    bytes: &[u8],
    read: impl FnOnce(Value<'_>) -> Result<T, String>,
) -> Result<T, String> {
    Reply::checked(method, bytes.to_vec())
        .and_then(|r| r.with_result(read))
        .map_err(|e| e.to_string())?
}

/// Whether a job of this status may still change (queued, waiting,
/// canceling or running).
pub fn unfinished(status: &str) -> bool {
    status_rank(status).is_some_and(|r| r <= 3)
}

/// Why a job set could not be carried out.
#[derive(Debug, thiserror::Error)]
enum SetError {
    #[error("{0}")]
    Luxi(#[from] LuxiError),
    #[error("Job submission error: {0}")]
    Submission(String),
    #[error("Checking job status: {0}")]
    Status(String),
    #[error(
        "stopped waiting at a second interrupt: jobs {} were still queued or running in Ganeti \
         (gnt-job list); no further job set was submitted",
        id_list(.0)
    )]
    Abandoned(Vec<i64>),
    #[error(
        "{error}; jobs {} may still be queued or running in Ganeti (gnt-job list); no further \
         job set was submitted",
        id_list(.ids)
    )]
    Lost { error: LuxiError, ids: Vec<i64> },
}

/// Submits one set and waits for all its jobs; their final statuses.
fn run_set(
    socket: &str,
    set: &JobSet,
    out: &mut dyn Write,
) -> Result<Vec<(i64, String)>, SetError> {
    let mut client = Client::connect(socket, DEFAULT_TIMEOUT)?;
    let args = crate::write::luxi::submit_many_jobs(&set.jobs);
    let reply = client.call("SubmitManyJobs", &args)?;
    let ids = reply
        .with_result(|v| submitted_ids(v, set.jobs.len()))?
        .map_err(SetError::Submission)?;
    let shown: Vec<String> = ids.iter().map(i64::to_string).collect();
    let _ = writeln!(out, "Got job IDs {}", shown.join(", "));
    let _ = out.flush();
    let query = crate::write::luxi::query_job_status(&ids);
    let mut delay = Duration::from_millis(500);
    loop {
        if pause(delay, &ids, out) == Pause::Abandon {
            return Err(SetError::Abandoned(ids));
        }
        let reply = match client.call("QueryJobs", &query) {
            Ok(reply) => reply,
            Err(e) if connection_lost(&e) => {
                client = reconnect(socket, e, &ids, out)?;
                client.call("QueryJobs", &query)?
            }
            Err(e) => return Err(e.into()),
        };
        let statuses = reply
            .with_result(|v| job_statuses(v, ids.len()))?
            .map_err(SetError::Status)?;
        let busy = statuses
            .iter()
            .any(|s| status_rank(s).is_some_and(|r| r <= 3));
        if !busy {
            return Ok(ids.into_iter().zip(statuses).collect());
        }
        delay = (delay * 2).min(Duration::from_secs(15));
    }
}

/// Whether a call failed because the connection went (the master daemon
/// restarting), rather than on what the master said.
fn connection_lost(e: &LuxiError) -> bool {
    matches!(
        e,
        LuxiError::Io { .. } | LuxiError::Closed { .. } | LuxiError::Connect { .. }
    )
}

/// Connects to `socket` again after `lost` while the jobs `ids` run,
/// trying for [`RECONNECT_WAITS`]; says so on `out`. A second interrupt
/// stops trying.
fn reconnect(
    socket: &str,
    lost: LuxiError,
    ids: &[i64],
    out: &mut dyn Write,
) -> Result<Client, SetError> {
    let _ = writeln!(
        out,
        "Lost the connection to the master while waiting for jobs {} ({lost}); connecting again",
        id_list(ids)
    );
    let _ = out.flush();
    let mut last = lost;
    for wait in RECONNECT_WAITS {
        if pause(Duration::from_secs(wait), ids, out) == Pause::Abandon {
            return Err(SetError::Abandoned(ids.to_vec()));
        }
        match Client::connect(socket, DEFAULT_TIMEOUT) {
            Ok(client) => return Ok(client),
            Err(e) => last = e,
        }
    }
    Err(SetError::Lost {
        error: last,
        ids: ids.to_vec(),
    })
}

/// `SubmitManyJobs`'s result: one `[true, id]` per job, or `[false,
/// message]` for a job the master refused.
pub(crate) fn submitted_ids(v: Value<'_>, expected: usize) -> Result<Vec<i64>, String> {
    let rows = v
        .as_array()
        .ok_or_else(|| format!("expected a list of [status, id], got {}", v.describe()))?;
    let mut ids = Vec::with_capacity(rows.len());
    for row in rows.iter() {
        let pair = row.as_array().filter(|a| a.len() == 2);
        let mut items = pair.iter().flat_map(|a| a.iter());
        let (ok, value) = (items.next(), items.next());
        match (ok.and_then(|o| o.as_bool()), value) {
            (Some(true), Some(id)) => match id.as_number().and_then(|n| n.as_int()) {
                Some(id) => ids.push(id),
                None => match id.as_str().and_then(|s| s.parse().ok()) {
                    Some(id) => ids.push(id),
                    None => return Err(format!("not a job id: {}", id.describe())),
                },
            },
            (Some(false), Some(message)) => {
                return Err(message
                    .as_str()
                    .map_or_else(|| message.describe(), str::to_owned))
            }
            _ => return Err(format!("expected [status, id], got {}", row.describe())),
        }
    }
    if ids.len() != expected {
        return Err(format!(
            "{expected} jobs submitted, {} ids returned",
            ids.len()
        ));
    }
    Ok(ids)
}

/// `QueryJobs` with the field `status`: one `[status]` row per job.
pub(crate) fn job_statuses(v: Value<'_>, expected: usize) -> Result<Vec<String>, String> {
    let rows = v
        .as_array()
        .ok_or_else(|| format!("expected a list of [status], got {}", v.describe()))?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows.iter() {
        let status = row
            .as_array()
            .filter(|a| a.len() == 1)
            .and_then(|a| a.iter().next())
            .and_then(|s| s.as_str())
            .filter(|s| status_rank(s).is_some());
        match status {
            Some(s) => out.push(s.to_owned()),
            // A job that does not exist (any more) reads as null.
            None => return Err(format!("not a job status: {}", row.describe())),
        }
    }
    if out.len() != expected {
        return Err(format!(
            "{expected} jobs queried, {} statuses returned",
            out.len()
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::json::parse_document;

    fn ids(text: &str, n: usize) -> Result<Vec<i64>, String> {
        let doc = parse_document(text.as_bytes()).unwrap();
        submitted_ids(doc.root(), n)
    }

    fn statuses(text: &str, n: usize) -> Result<Vec<String>, String> {
        let doc = parse_document(text.as_bytes()).unwrap();
        job_statuses(doc.root(), n)
    }

    /// The replies luxid gave hbal -X in the lab.
    #[test]
    fn replies_as_luxid_sends_them() {
        assert_eq!(ids("[[true,18]]", 1), Ok(vec![18]));
        assert_eq!(ids("[[true,\"7\"],[true,8]]", 2), Ok(vec![7, 8]));
        assert_eq!(
            statuses("[[\"running\"]]", 1),
            Ok(vec!["running".to_owned()])
        );
        assert_eq!(
            statuses("[[\"success\"],[\"error\"]]", 2),
            Ok(vec!["success".to_owned(), "error".to_owned()])
        );
    }

    #[test]
    fn bad_replies_are_errors() {
        assert_eq!(
            ids("[[false,\"queue full\"]]", 1),
            Err("queue full".to_owned())
        );
        assert!(ids("[[true,18]]", 2).is_err());
        assert!(ids("{}", 1).is_err());
        assert!(ids("[[true]]", 1).is_err());
        assert!(statuses("[[null]]", 1).is_err());
        assert!(statuses("[[\"exploded\"]]", 1).is_err());
        assert!(statuses("[]", 1).is_err());
    }

    #[test]
    fn busy_states_are_the_ones_before_canceled() {
        for s in ["queued", "waiting", "canceling", "running"] {
            assert!(status_rank(s).is_some_and(|r| r <= 3), "{s}");
        }
        for s in ["canceled", "success", "error"] {
            assert!(status_rank(s).is_some_and(|r| r > 3), "{s}");
        }
    }

    #[test]
    fn an_interrupt_is_taken_once_then_abandons_the_wait() {
        catch_interrupt();
        catch_interrupt();
        signal_hook::low_level::raise(signal_hook::consts::SIGINT).expect("raise");
        assert!(CANCEL.swap(false, Ordering::SeqCst));
        // In the same test: the flags are the process's.
        let mut out = Vec::new();
        assert_eq!(pause(Duration::from_millis(1), &[3], &mut out), Pause::Done);
        CANCEL.store(true, Ordering::SeqCst);
        assert_eq!(
            pause(Duration::from_millis(1), &[3, 4], &mut out),
            Pause::Done
        );
        assert!(interrupted());
        assert!(String::from_utf8_lossy(&out).contains("waiting for jobs 3, 4 to finish"));
        CANCEL.store(true, Ordering::SeqCst);
        assert_eq!(
            pause(Duration::from_secs(60), &[3, 4], &mut out),
            Pause::Abandon
        );
        STOPPING.store(false, Ordering::SeqCst);
    }
}
