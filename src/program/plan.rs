//! What the planners (`hailstone-balance`, `hailstone-squeeze`,
//! `hailstone-groups`) share around a plan: where the cluster is read from
//! ([`read_cluster`]: RAPI, Luxi, a data file or a request, as hbal's
//! `loadExternalData` chooses), how a run stops early with Ganeti's texts, the
//! `gnt-instance` job of each accepted step and the grouping of jobs into
//! job sets (`Cluster.splitJobs`).

use std::io::Write;

use crate::model::instance::{Instance, NO_NODE};
use crate::model::types::DiskTemplate;
use crate::model::Cluster;
use crate::program::cli::{Exit, ExplainTo};
use crate::program::datafile;
use crate::program::{luxi, rapi};
use crate::read::json::parse_document;
use crate::read::live;
use crate::read::loader::LoadOptions;
use crate::read::merge::MergeOptions;
use crate::read::text;
use crate::search::balance::Placement;
use crate::search::moves::Move;
use crate::search::state::State;
use crate::write::balance::{self as texts, MoveText};
use crate::write::opcodes;

/// Why a run stopped early: the exit status and the text for stderr.
#[derive(Debug)]
pub struct Stop {
    pub code: u8,
    pub message: String,
    /// Whether the program's name goes before the message (an error on
    /// stdout, which Haskell reports as `program: <stdout>: ...`).
    pub named: bool,
}

/// A stop with exit status 1.
pub fn stop(message: String) -> Stop {
    Stop {
        code: 1,
        message,
        named: false,
    }
}

impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Stop {
        Stop {
            code: 1,
            message: format!("<stdout>: {e}\n"),
            named: true,
        }
    }
}

impl Stop {
    /// The text for stderr, for the program `program`.
    pub fn text(&self, program: &str) -> String {
        if self.named {
            format!("{program}: {}", self.message)
        } else {
            self.message.clone()
        }
    }
}

/// GHC's text for an I/O error on opening `path` (`openFile: ...`).
pub fn open_error(path: &str, e: &std::io::Error) -> String {
    use std::io::ErrorKind;
    let what = match e.kind() {
        ErrorKind::NotFound => "does not exist (No such file or directory)".to_owned(),
        ErrorKind::PermissionDenied => "permission denied (Permission denied)".to_owned(),
        _ if e.raw_os_error() == Some(21) => "inappropriate type (is a directory)".to_owned(),
        _ => e.to_string(),
    };
    format!("{path}: openFile: {what}")
}

/// Writes `text` to `path`, or the stop a Haskell program's uncaught
/// `writeFile` exception gives (`program: path: openFile: ...`).
pub fn write_file(program: &str, path: &str, text: &str) -> Result<(), Stop> {
    std::fs::write(path, text).map_err(|e| stop(format!("{program}: {}\n", open_error(path, &e))))
}

/// A planner's `--explain` text: on stderr, or in the file named.
pub fn write_explanation(
    program: &str,
    to: &ExplainTo,
    text: &str,
    err: &mut dyn Write,
) -> Result<(), Stop> {
    match to {
        ExplainTo::Stderr => Ok(err.write_all(text.as_bytes())?),
        ExplainTo::Path(path) => write_file(program, path, text),
    }
}

/// `maybeSaveData` of the planners: writes `text` to `PATH.EXT` and says so
/// on stderr, with `what` (e.g. "before balancing") in the note.
pub fn save_state(
    program: &str,
    path: &str,
    ext: &str,
    what: &str,
    text: &str,
    err: &mut dyn Write,
) -> Result<(), Stop> {
    let file = format!("{path}.{ext}");
    write_file(program, &file, text)?;
    writeln!(
        err,
        "The cluster state {what} has been written to file '{file}'"
    )?;
    Ok(())
}

/// A planner's process: the command line's outcome (`parsed`) printed when
/// it is an exit, else `run` with the options, its stop printed for
/// `program`. Returns the exit status.
pub fn main<O>(
    program: &str,
    parsed: Result<O, Exit>,
    run: impl FnOnce(&O, &mut dyn Write, &mut dyn Write) -> Result<(), Stop>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let options = match parsed {
        Ok(o) => o,
        Err(Exit::Stdout(text)) => {
            return match out.write_all(text.as_bytes()) {
                Ok(()) => 0,
                Err(_) => 1,
            };
        }
        Err(Exit::Stderr { code, message }) => {
            let _ = err.write_all(message.as_bytes());
            return code;
        }
    };
    match run(&options, out, err) {
        Ok(()) => 0,
        Err(s) => {
            let _ = out.flush();
            let _ = err.write_all(s.text(program).as_bytes());
            s.code
        }
    }
}

/// The stop for a cluster that cannot be loaded (`loadExternalData`).
pub fn load_failed(message: String) -> Stop {
    stop(format!("Error: failed to load data, aborting: {message}\n"))
}

/// Where a planner reads its cluster (hbal's backends; at most one of
/// `-m`, `-L` and `-t`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Sources<'a> {
    /// `-t FILE`: a cluster data file.
    pub text_data: Option<&'a str>,
    /// `-I FILE`: an iallocator request's cluster.
    pub ialloc_src: Option<&'a str>,
    /// `-L[SOCKET]`: a Luxi socket.
    pub luxi: Option<&'a str>,
    /// `-m ADDRESS`: RAPI (`file://DIR` or the master's address); an empty
    /// address is none, as in hbal.
    pub master: Option<&'a str>,
}

impl<'a> Sources<'a> {
    /// The sources the options name (`-t`, `-I`, `-L`), with `master` for
    /// the programs that take `-m`.
    pub fn of(o: &'a crate::program::cli::Options, master: Option<&'a str>) -> Sources<'a> {
        Sources {
            text_data: o.text_data.as_deref(),
            ialloc_src: o.ialloc_src.as_deref(),
            luxi: o.luxi.as_deref(),
            master,
        }
    }
}

/// Reads the cluster of a planner (`loadExternalData`): from RAPI, else
/// Luxi, else the data file, else the cluster of the iallocator request
/// (as `hail -S` saves it, read once); with the loader's warnings. On a
/// live KVM cluster a positive `static_kvm_node_memory` is every node's
/// reserved memory (data files and requests carry no hypervisor).
pub fn read_cluster(
    sources: Sources<'_>,
    merge: &MergeOptions,
    static_kvm_node_memory: i64,
) -> Result<(Cluster, Vec<String>), Stop> {
    let master = sources.master.filter(|m| !m.is_empty());
    let given = [
        master.is_some(),
        sources.luxi.is_some(),
        sources.text_data.is_some(),
    ];
    if given.iter().filter(|&&g| g).count() > 1 {
        return Err(stop(
            "Error: Only one of the rapi, luxi, and data files options should be given.\n"
                .to_owned(),
        ));
    }
    if let Some(address) = master {
        let fetched = rapi::fetch(address).map_err(load_failed)?;
        let live = match fetched.as_slice() {
            [g, n, i, c] => live::rapi::read([g, n, i, c].map(|f| live::rapi::Body {
                source: &f.source,
                bytes: &f.body,
            })),
            _ => {
                return Err(load_failed(
                    "RAPI: not every resource was fetched".to_owned(),
                ))
            }
        }
        .map_err(|e| load_failed(e.to_string()))?;
        return Ok(live::load(live, merge, static_kvm_node_memory));
    }
    if let Some(socket) = sources.luxi {
        let live = read_luxi(socket).map_err(load_failed)?;
        return Ok(live::load(live, merge, static_kvm_node_memory));
    }
    match (sources.text_data, sources.ialloc_src) {
        (Some(path), _) => {
            let bytes = std::fs::read(path).map_err(|e| load_failed(open_error(path, &e)))?;
            text::load(path, &bytes, merge).map_err(|e| load_failed(e.to_string()))
        }
        (None, Some(path)) => {
            let bytes = std::fs::read(path).map_err(|e| load_failed(open_error(path, &e)))?;
            let data = datafile::from_request(&bytes, &LoadOptions::default())
                .map_err(|m| load_failed(format!("{path}: {m}")))?;
            text::load(path, data.as_bytes(), merge).map_err(|e| load_failed(e.to_string()))
        }
        (None, None) => Err(load_failed("No backend selected! Exiting.".to_owned())),
    }
}

/// hbal's four Luxi queries on `socket`, read into a live cluster. The
/// first call that fails stops the run (hbal makes all four calls, then
/// reports the first failure in its reading order: groups, nodes,
/// instances, cluster info; the two differ only when several fail).
fn read_luxi(socket: &str) -> Result<live::Live, String> {
    let mut client =
        luxi::Client::connect(socket, luxi::DEFAULT_TIMEOUT).map_err(|e| e.to_string())?;
    let queries = crate::write::luxi::cluster_queries();
    let mut replies = Vec::with_capacity(queries.len());
    for (name, method, args) in &queries {
        replies.push(
            client
                .call(method, args)
                .map_err(|e| format!("Luxi query \"{name}\": {e}"))?,
        );
    }
    let mut docs = Vec::with_capacity(replies.len());
    for (reply, (name, _, _)) in replies.iter().zip(&queries) {
        docs.push(
            parse_document(reply.bytes())
                .map_err(|e| format!("Luxi query \"{name}\": malformed reply: {e}"))?,
        );
    }
    let mut results = Vec::with_capacity(docs.len());
    for (doc, (name, _, _)) in docs.iter().zip(&queries) {
        results.push(live::luxi::envelope(doc).map_err(|e| format!("Luxi query \"{name}\": {e}"))?);
    }
    match results.as_slice() {
        [n, i, c, g] => live::luxi::read([*n, *i, *c, *g]).map_err(|e| e.to_string()),
        _ => Err("Luxi: not every query was answered".to_owned()),
    }
}

/// The loader's warnings as htools print them on stderr (nothing when
/// there are none).
pub fn warnings_text(warnings: &[String]) -> String {
    if warnings.is_empty() {
        return String::new();
    }
    let mut text = String::from("Warning: cluster has inconsistent data:\n");
    for w in warnings {
        text.push_str(&format!("  - {w}\n"));
    }
    text.push('\n');
    text
}

/// Node names and alias lengths, by node index.
pub type Names = [(String, usize)];

/// The alias (name without the common suffix) of node `k`; empty for no
/// node.
pub fn alias_of(names: &Names, k: i32) -> &str {
    usize::try_from(k)
        .ok()
        .and_then(|k| names.get(k))
        .map_or("", |(n, a)| &n[..(*a).min(n.len())])
}

/// One accepted step as `-C` and `-X` need it: the nodes it involves,
/// its commands, and its opcodes.
pub struct MoveJob {
    /// The instance moved (full name).
    pub instance: String,
    pub nodes: Vec<i32>,
    pub commands: Vec<String>,
    /// The opcodes `-X` submits for the step (`iMoveToJob`, nodes by full
    /// name); empty for plans that are only printed (hailstone-groups).
    pub opcodes: Vec<crate::write::json::Json>,
}

/// The job of step `p` of instance `inst` (named `inst_name` in the
/// commands; migrated when running); also the move's `a=` text. Node
/// names in the commands are aliases of the nodes after the move
/// (`computeMoves`), in the opcodes their full names.
pub fn step_job(
    p: &Placement,
    inst: &Instance,
    inst_name: &str,
    names: &Names,
) -> (String, MoveJob) {
    let template = inst.disk_template;
    let running = inst.run_state.is_running();
    let full = |k: i32| {
        usize::try_from(k)
            .ok()
            .and_then(|k| names.get(k))
            .map_or("", |(n, _)| n.as_str())
    };
    let (c, d) = p.new_nodes;
    let opcodes = opcodes::move_opcodes(
        &inst.name,
        inst.forthcoming,
        move_named(p.mv, full(c), full(d)),
    );
    let mv = move_named(p.mv, alias_of(names, c), alias_of(names, d));
    let (a, commands) = texts::move_commands(mv, inst_name, running);
    // `involvedNodes`: the new primary and secondary, then the instance's
    // nodes before the move, without repeats.
    let old_all = if template == DiskTemplate::Drbd {
        vec![p.old_nodes.0, p.old_nodes.1]
    } else {
        vec![p.old_nodes.0]
    };
    let mut nodes: Vec<i32> = Vec::new();
    for n in [p.new_nodes.0, p.new_nodes.1].into_iter().chain(old_all) {
        if n >= 0 && n != NO_NODE && !nodes.contains(&n) {
            nodes.push(n);
        }
    }
    (
        a,
        MoveJob {
            instance: inst.name.to_string(),
            nodes,
            commands,
            opcodes,
        },
    )
}

/// Move `mv` with its nodes named `c` (the new primary) and `d` (the new
/// secondary): aliases for the commands, full names for the opcodes.
fn move_named<'a>(mv: Move, c: &'a str, d: &'a str) -> MoveText<'a> {
    match mv {
        Move::Failover => MoveText::Failover,
        Move::FailoverToAny(_) => MoveText::FailoverToAny(c),
        Move::FailoverAndReplace(_) => MoveText::FailoverAndReplace(d),
        Move::ReplaceSecondary(_) => MoveText::ReplaceSecondary(d),
        Move::ReplaceAndFailover(_) => MoveText::ReplaceAndFailover(c),
        Move::ReplacePrimary(_) => MoveText::ReplacePrimary(c),
    }
}

/// The step line (`  %3d. inst old => new score a=...`) and the job of one
/// accepted balancing step `p` at position `pos`, from the state before
/// the move; `widths` are the instance and node name columns, nodes are
/// named by `names` (aliases), the instance by `inst_name`.
pub fn step_line(
    state: &State,
    p: &Placement,
    pos: usize,
    widths: (usize, usize),
    names: &Names,
    inst_name: fn(&Instance) -> &str,
) -> (String, MoveJob) {
    let inst = state.inst(p.inst as i32).ok();
    let iname = inst.map_or("", inst_name);
    let pair = |(a, b): (i32, i32)| {
        if b == NO_NODE {
            alias_of(names, a).to_owned()
        } else {
            format!("{}:{}", alias_of(names, a), alias_of(names, b))
        }
    };
    let (a, job) = match inst {
        Some(i) => step_job(p, i, iname, names),
        // A step always moves a known instance.
        None => (
            String::new(),
            MoveJob {
                instance: String::new(),
                nodes: Vec::new(),
                commands: Vec::new(),
                opcodes: Vec::new(),
            },
        ),
    };
    let line = texts::solution_line(
        pos,
        widths.0,
        iname,
        widths.1,
        &pair(p.old_nodes),
        &pair(p.new_nodes),
        p.score,
        &a,
    );
    (line, job)
}

/// Every node's name and alias length, by index.
pub fn node_names(cluster: &Cluster) -> Vec<(String, usize)> {
    cluster
        .nodes
        .iter()
        .map(|n| (n.info.name.clone(), n.info.alias_len))
        .collect()
}

/// Balances `state` (`search::balance::balance`), printing each step's
/// line to `out` as it is found, as hbal does; the steps and their jobs.
///
/// # Errors
///
/// A failed write to `out` (after the balancing).
pub fn balance_printing(
    state: &mut State,
    movable: &[bool],
    options: &crate::search::balance::BalanceOptions,
    initial: f64,
    widths: (usize, usize),
    names: &Names,
    out: &mut dyn Write,
) -> Result<(Vec<Placement>, Vec<MoveJob>), Stop> {
    let mut jobs: Vec<MoveJob> = Vec::new();
    let mut io_error: Option<std::io::Error> = None;
    let steps = crate::search::balance::balance(state, movable, options, initial, |st, p| {
        let (line, job) = step_line(st, p, jobs.len() + 1, widths, names, Instance::alias);
        jobs.push(job);
        if io_error.is_none() {
            if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
                io_error = Some(e);
            }
        }
    });
    match io_error {
        Some(e) => Err(e.into()),
        None => Ok((steps, jobs)),
    }
}

/// `-C` (`maybeSaveCommands`): the commands on stdout under `heading`
/// (`dest` `-`), or as a script in the file `dest`.
///
/// # Errors
///
/// The script cannot be written, or stdout fails.
pub fn print_commands(
    program: &str,
    dest: Option<&str>,
    heading: &str,
    commands: &str,
    out: &mut dyn Write,
) -> Result<(), Stop> {
    match dest {
        None => Ok(()),
        Some("-") => {
            out.write_all(texts::commands_for_stdout(heading, commands).as_bytes())?;
            Ok(())
        }
        Some(dest) => {
            out.flush()?;
            write_file(program, dest, &texts::commands_script(commands))?;
            writeln!(out, "The commands have been written to file '{dest}'")?;
            Ok(())
        }
    }
}

/// `splitJobs`: consecutive moves on disjoint nodes share a job set,
/// decided from the last move backwards.
pub fn split_jobs(jobs: &[MoveJob]) -> Vec<Vec<&MoveJob>> {
    let mut sets: Vec<Vec<&MoveJob>> = Vec::new();
    let mut buf: Vec<i32> = Vec::new();
    for job in jobs.iter().rev() {
        match sets.first_mut() {
            Some(first) if !job.nodes.iter().any(|n| buf.contains(n)) => {
                first.insert(0, job);
                let mut nb = job.nodes.clone();
                nb.extend_from_slice(&buf);
                buf = nb;
            }
            _ => {
                sets.insert(0, vec![job]);
                buf = job.nodes.clone();
            }
        }
    }
    sets
}

/// The commands text of job sets (`formatCmds`).
pub fn commands_text(sets: &[Vec<&MoveJob>]) -> String {
    let sets: Vec<Vec<Vec<String>>> = sets
        .iter()
        .map(|s| s.iter().map(|j| j.commands.clone()).collect())
        .collect();
    texts::format_commands(&sets)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(nodes: &[i32]) -> MoveJob {
        MoveJob {
            instance: String::new(),
            nodes: nodes.to_vec(),
            commands: vec![format!("{nodes:?}")],
            opcodes: Vec::new(),
        }
    }

    /// Job sets are decided from the newest move backwards: the last move
    /// opens a set, and an older one joins it while its nodes are new.
    #[test]
    fn jobs_split_from_the_end() {
        let jobs = [job(&[0]), job(&[1, 2]), job(&[2]), job(&[3])];
        let sets = split_jobs(&jobs);
        let shape: Vec<Vec<&[i32]>> = sets
            .iter()
            .map(|s| s.iter().map(|j| j.nodes.as_slice()).collect())
            .collect();
        assert_eq!(
            shape,
            vec![vec![&[0][..], &[1, 2][..]], vec![&[2][..], &[3][..]]]
        );
    }
}
