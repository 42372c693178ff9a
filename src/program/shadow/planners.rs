//! The htools in the shadow: after `hailstone-htools enable --shadow`,
//! `hbal`, `hsqueeze`, `hspace`, `hcheck`, `hinfo` and `hroller` in
//! `/usr/bin` are links to `hailstone-shadow`, which, called by one of
//! those names ([`wrapper`]):
//!
//! 1. runs the original (`/usr/bin/NAME.htools`, moved aside by
//!    dpkg-divert) exactly as it was called: the same arguments, standard
//!    input and error, its standard output passed on as it comes (and
//!    kept), its exit status returned; `-X` submits its jobs as ever;
//! 2. keeps the state the original read: for hbal and hsqueeze the
//!    original's own `-S FILE.original` — when the operator gave no
//!    `-S`, the wrapper adds one naming a file in a private folder and
//!    removes from the standard error it passes on exactly the note line
//!    that causes (the line naming that folder); for the others, when they
//!    read a live cluster (`-L`, `-m`), a snapshot taken just before
//!    through the same backend, marked as possibly drifted (the cluster
//!    may change between the snapshot and the original's own read); a data
//!    file or request (`-t`, `-I`, `--simulate`) is the state itself;
//! 3. starts a detached recorder ([`record_main`]) and exits with the
//!    original's status. The recorder runs hailstone's program on that
//!    state with the same options less `-X` (and less `-S`; a `-C FILE`
//!    goes to a private file, compared with the original's), compares
//!    the standard output and exit status (with `-X`, the original's
//!    lines about submitting and waiting for jobs are left out of the
//!    comparison), and writes a record in the allocator's record folder,
//!    which `hailstone-shadow report` reads too.
//!
//! The recording is best effort, as the allocator's: a record folder that
//! cannot be written, a settings file that cannot be read, a snapshot
//! that fails, leave the original's run as it is, unrecorded. Before
//! adding `-S`, the wrapper writes and removes 1 MiB in the private
//! folder, so that a nearly full disk does not make hbal's own `-S`
//! write fail; with no room, no `-S` is added and the run is not
//! recorded.
//!
//! harep and hscan are not wrapped (enable --shadow leaves them the
//! originals): harep's work is acting on the cluster (tags, repair
//! jobs), which a second run cannot do again, and hscan's output is the
//! live state itself, read at another moment by any second run.

use std::ffi::{OsStr, OsString};
use std::io::{BufRead, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use super::record::{self, Pending};
use super::report::shell_word;
use crate::program::cli::{getopt, Opt, Program, ShadowSettings};
use crate::read::json::{parse, Json};
use crate::shell::clock;
use crate::write::json::{s, strs, Json as Out};

/// The names wrapped, and hailstone's program for each.
pub const WRAPPED: [(&str, &str); 6] = [
    ("hbal", "hailstone-balance"),
    ("hsqueeze", "hailstone-squeeze"),
    ("hspace", "hailstone-space"),
    ("hcheck", "hailstone-check"),
    ("hinfo", "hailstone-info"),
    ("hroller", "hailstone-roll"),
];

/// The hidden first argument that makes the program a planner's
/// recorder.
pub const PLANNER_RECORDER: &str = "--shadow-planner";

/// The most bytes of an output kept for the comparison.
const OUTPUT_CAP: usize = 64 << 20;

/// The lines `-X` adds to hbal's and hsqueeze's output (job submission
/// and waiting), left out of the comparison.
const EXEC_LINES: [&str; 6] = [
    "Executing jobset for instances",
    "Got job IDs",
    "Exiting early due to user request",
    "Interrupted: waiting for jobs",
    "Lost the connection to the master",
    "jobset(s) ",
];

fn command_line(name: &str) -> Option<&'static Program> {
    use crate::program as p;
    Some(match name {
        "hbal" => &p::balance::options::COMMAND_LINE,
        "hsqueeze" => &p::squeeze::options::COMMAND_LINE,
        "hspace" => &p::space::options::COMMAND_LINE,
        "hcheck" => &p::check::options::COMMAND_LINE,
        "hinfo" => &p::info::options::COMMAND_LINE,
        "hroller" => &p::roll::options::COMMAND_LINE,
        _ => return None,
    })
}

fn hailstone_main(name: &str) -> Option<crate::shell::exit::ProgramMain> {
    use crate::program as p;
    Some(match name {
        "hbal" => p::balance::main,
        "hsqueeze" => p::squeeze::main,
        "hspace" => p::space::main,
        "hcheck" => p::check::main,
        "hinfo" => p::info::main,
        "hroller" => p::roll::main,
        _ => return None,
    })
}

/// Whether `argv0` names a wrapped program.
pub fn is_wrapped(argv0: &OsStr) -> bool {
    name_of(argv0).is_some_and(|n| WRAPPED.iter().any(|(w, _)| *w == n))
}

fn name_of(argv0: &OsStr) -> Option<&str> {
    Path::new(argv0).file_name().and_then(OsStr::to_str)
}

/// The folder of the link the program was called by: `argv0`'s own, or
/// the first folder of `PATH` holding that name.
fn link_dir(argv0: &OsStr) -> Option<PathBuf> {
    let p = Path::new(argv0);
    if p.components().count() > 1 {
        return p.parent().map(Path::to_owned);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).find(|d| d.join(p).exists())
}

/// The shadow's settings of the file system whose `usr/bin` holds the
/// link (its `etc/ganeti/hailstone-shadow.conf`), `None` when they cannot
/// be read.
fn settings(root: &Path) -> Option<ShadowSettings> {
    let conf = root.join("etc/ganeti/hailstone-shadow.conf");
    let named = conf.exists().then_some(conf.as_path());
    super::options::settings_of_file(Some(named.unwrap_or(Path::new("/dev/null")))).ok()
}

/// The options found on a command line, by the original's table.
struct Given {
    /// Each option with its value, in order.
    options: Vec<(Opt, Option<String>)>,
    non_options: Vec<OsString>,
}

impl Given {
    fn of(program: &Program, args: &[OsString]) -> Given {
        let scan = getopt::scan(&program.table(), args);
        Given {
            options: scan
                .given
                .into_iter()
                .map(|g| (g.id, g.value.map(|v| v.text)))
                .collect(),
            non_options: scan.non_options,
        }
    }

    fn has(&self, opt: Opt) -> bool {
        self.options.iter().any(|(o, _)| *o == opt)
    }

    fn last(&self, opt: Opt) -> Option<Option<&str>> {
        self.options
            .iter()
            .rev()
            .find(|(o, _)| *o == opt)
            .map(|(_, v)| v.as_deref())
    }
}

/// Where the state comes from, for hailstone's run.
enum State {
    /// A file (the original's `-S` file, or a snapshot): `-t FILE`.
    File {
        path: PathBuf,
        drifted: bool,
        how: String,
    },
    /// The same source as the original's (a data file, a request, a
    /// simulation).
    Same,
}

/// hailstone's options: the original's less `-X` and `-S`, the source
/// replaced by the data file `state` when there is one, `-C FILE` sent to
/// `commands`.
fn hailstone_args(given: &Given, state: Option<&Path>, commands: &Path) -> Vec<String> {
    let source = [Opt::Luxi, Opt::Master, Opt::TextData, Opt::IallocSrc];
    let mut args = Vec::new();
    for (opt, value) in &given.options {
        if matches!(opt, Opt::Exec | Opt::Save) {
            continue;
        }
        if source.contains(opt) && state.is_some() {
            continue;
        }
        let long = opt.descr().long;
        match (opt, value) {
            (Opt::PrintCommands, Some(v)) if v != "-" => {
                args.push(format!("--{long}={}", commands.display()));
            }
            (_, Some(v)) => args.push(format!("--{long}={v}")),
            (_, None) => args.push(format!("--{long}")),
        }
    }
    if let Some(path) = state {
        args.push(format!("--text-data={}", path.display()));
    }
    args.extend(
        given
            .non_options
            .iter()
            .map(|a| a.to_string_lossy().into_owned()),
    );
    args
}

/// The private folder of one wrapped run, in the record folder.
fn private_dir(settings: &ShadowSettings, name: &str) -> Option<PathBuf> {
    let dir = Path::new(&settings.record_dir);
    record::make_private_dir(dir).ok()?;
    let since = clock::since_epoch(clock::now());
    let p = dir.join(format!(
        ".tmp-{name}-{}.{:09}-{}",
        since.as_secs(),
        since.subsec_nanos(),
        std::process::id()
    ));
    std::fs::DirBuilder::new()
        .recursive(false)
        .create(&p)
        .ok()?;
    let _ = std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o700));
    Some(p)
}

/// Whether 1 MiB can be written (and is removed again) in `dir`.
fn has_room(dir: &Path) -> bool {
    let probe = dir.join("room");
    let ok = record::write_private(&probe, &vec![0u8; 1 << 20]).is_ok();
    let _ = std::fs::remove_file(&probe);
    ok
}

/// A snapshot of the live cluster the options name, as a data file, by
/// hailstone's own backends.
fn snapshot(o: &crate::program::cli::Options, to: &Path) -> Option<()> {
    let sources = crate::shell::source::Sources::of(o, o.master.as_deref());
    let merge = crate::read::merge::MergeOptions {
        ignore_dynu: o.ignore_dynu,
        ..Default::default()
    };
    let (cluster, _) = crate::shell::source::read_cluster(sources, &merge, o.load).ok()?;
    record::write_private(
        to,
        crate::write::text::serialize_cluster(&cluster).as_bytes(),
    )
    .ok()
}

/// A program called by a wrapped name: the original runs, hailstone's
/// program in the shadow. Returns the original's exit status.
pub fn wrapper(argv0: &OsStr, args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let name = name_of(argv0).unwrap_or("").to_owned();
    let Some(dir) = link_dir(argv0) else {
        let _ = writeln!(
            err,
            "{name}: cannot find the folder of {}",
            argv0.to_string_lossy()
        );
        return 1;
    };
    let original = dir.join(format!("{name}.htools"));
    let root = dir.join("../..");
    let program = command_line(&name);
    let given = program.map(|p| Given::of(p, args));
    // Everything of the shadow's side is optional.
    let prepared = match (settings(&root), &given, program) {
        (Some(settings), Some(given), Some(program)) => {
            prepare(&name, program, given, args, settings)
        }
        _ => None,
    };
    // The filter of the added -S's note writes to its own descriptor of
    // our standard error: the process's stderr handle is locked by the
    // caller for the whole run. Without one, no -S is added.
    let own_stderr = std::io::stderr()
        .as_fd()
        .try_clone_to_owned()
        .map(std::fs::File::from)
        .ok();
    let mut original_args: Vec<OsString> = args.to_vec();
    let mut hide: Option<String> = None;
    if let (Some(p), Some(_)) = (&prepared, &own_stderr) {
        if let Some(save) = &p.added_save {
            original_args.push(OsString::from(format!("--save={}", save.display())));
            hide = Some(p.dir.to_string_lossy().into_owned());
        }
    }
    let start = clock::monotonic();
    let mut child = match Command::new(&original)
        .arg0(argv0)
        .args(&original_args)
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(if hide.is_some() {
            Stdio::piped()
        } else {
            Stdio::inherit()
        })
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(
                err,
                "{name}: cannot run the original {}: {e} (hailstone-htools disable puts it back)",
                original.display()
            );
            if let Some(p) = &prepared {
                let _ = std::fs::remove_dir_all(&p.dir);
            }
            return 1;
        }
    };
    let filter = child.stderr.take().zip(own_stderr).map(|(stderr, mut to)| {
        let hide = hide.clone().unwrap_or_default();
        std::thread::spawn(move || {
            let mut lines = std::io::BufReader::new(stderr);
            let mut line = Vec::new();
            while lines.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
                if !String::from_utf8_lossy(&line).contains(&hide) {
                    let _ = to.write_all(&line);
                    let _ = to.flush();
                }
                line.clear();
            }
        })
    });
    let mut kept = Vec::new();
    if let Some(mut stdout) = child.stdout.take() {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match stdout.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    // A reader that went away stops our copy, not the original.
                    let _ = out.write_all(&buf[..n]).and_then(|()| out.flush());
                    if kept.len() < OUTPUT_CAP {
                        kept.extend_from_slice(&buf[..n]);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
    }
    let status = child.wait();
    let seconds = clock::since(start).as_secs_f64();
    if let Some(f) = filter {
        let _ = f.join();
    }
    let code = match &status {
        Ok(s) => match (s.code(), s.signal()) {
            (Some(c), _) => (c & 0xff) as u8,
            (None, Some(sig)) => (128 + (sig & 0x7f)) as u8,
            _ => 1,
        },
        Err(_) => 1,
    };
    if let Some(p) = prepared {
        if p.finish(&name, &original, args, &kept, code, seconds)
            .is_none()
        {
            let _ = std::fs::remove_dir_all(&p.dir);
        }
    }
    code
}

/// A wrapped run's shadow side, prepared before the original runs.
struct Prepared {
    dir: PathBuf,
    settings: ShadowSettings,
    /// The `-S` file the wrapper adds, when the operator gave none.
    added_save: Option<PathBuf>,
    /// The state hailstone's program reads.
    state: State,
    /// The original's `-C FILE`, to compare.
    commands: Option<PathBuf>,
    hailstone_args: Vec<String>,
    exec: bool,
}

fn prepare(
    name: &str,
    program: &Program,
    given: &Given,
    args: &[OsString],
    settings: ShadowSettings,
) -> Option<Prepared> {
    // The values the original sees, read as hailstone reads them.
    let (o, _) = crate::program::cli::parse(program, args).ok()?;
    let dir = private_dir(&settings, name)?;
    let mut added_save = None;
    let state = if matches!(name, "hbal" | "hsqueeze") {
        match given.last(Opt::Save).flatten() {
            Some(save) => State::File {
                path: PathBuf::from(format!("{save}.original")),
                drifted: false,
                how: format!("the original's -S {save}.original"),
            },
            None if has_room(&dir) => {
                let save = dir.join("state");
                added_save = Some(save.clone());
                State::File {
                    path: dir.join("state.original"),
                    drifted: false,
                    how: "the original's -S FILE.original, added by the wrapper".to_owned(),
                }
            }
            None => {
                let _ = std::fs::remove_dir_all(&dir);
                return None;
            }
        }
    } else if o.luxi.is_some() || o.master.as_deref().is_some_and(|m| !m.is_empty()) {
        let path = dir.join("state.data");
        if snapshot(&o, &path).is_none() {
            let _ = std::fs::remove_dir_all(&dir);
            return None;
        }
        State::File {
            path,
            drifted: true,
            how: "a snapshot taken just before the original ran (possibly drifted)".to_owned(),
        }
    } else {
        State::Same
    };
    let commands = match given.last(Opt::PrintCommands) {
        Some(Some(file)) if file != "-" => Some(PathBuf::from(file)),
        _ => None,
    };
    let copy = dir.join("state.data");
    let state_file = matches!(state, State::File { .. }).then_some(copy.as_path());
    let hailstone_args = hailstone_args(given, state_file, &dir.join("hailstone.commands"));
    Some(Prepared {
        dir,
        settings,
        added_save,
        state,
        commands,
        hailstone_args,
        exec: given.has(Opt::Exec),
    })
}

impl Prepared {
    /// Hands the run to a detached recorder; `None` when it cannot be.
    fn finish(
        &self,
        name: &str,
        original: &Path,
        args: &[OsString],
        output: &[u8],
        code: u8,
        seconds: f64,
    ) -> Option<()> {
        let state_file = match &self.state {
            State::File { path, .. } => {
                // The operator's own -S file may go away: the state is copied.
                let copy = self.dir.join("state.data");
                if *path != copy {
                    std::fs::copy(path, &copy).ok()?;
                }
                Some(copy)
            }
            State::Same => None,
        };
        let (drifted, how) = match &self.state {
            State::File { drifted, how, .. } => (*drifted, how.clone()),
            State::Same => (false, "the same source as the original's".to_owned()),
        };
        let hailstone_args = self.hailstone_args.clone();
        if let Some(c) = &self.commands {
            let _ = std::fs::copy(c, self.dir.join("original.commands"));
        }
        record::write_private(&self.dir.join("original.out"), output).ok()?;
        let ours = WRAPPED
            .iter()
            .find(|(w, _)| *w == name)
            .map_or("", |(_, o)| *o);
        let job = Out::Obj(vec![
            ("name", s(name)),
            ("program", s(ours)),
            ("original", s(&original.to_string_lossy())),
            (
                "args",
                strs(
                    &args
                        .iter()
                        .map(|a| a.to_string_lossy().into_owned())
                        .collect::<Vec<_>>(),
                ),
            ),
            ("hailstone_args", strs(&hailstone_args)),
            (
                "state",
                s(&state_file
                    .map(|p| p.to_string_lossy().into_owned())
                    .unwrap_or_default()),
            ),
            ("drifted", Out::Bool(drifted)),
            ("how", s(&how)),
            ("status", Out::Int(i64::from(code))),
            ("seconds", Out::Num(seconds)),
            ("commands", Out::Bool(self.commands.is_some())),
            ("exec", Out::Bool(self.exec)),
            ("record_dir", s(&self.settings.record_dir)),
            ("keep", Out::Int(self.settings.keep as i64)),
            ("keep_size", Out::Num(self.settings.keep_size as f64)),
            ("timeout", Out::Num(self.settings.timeout)),
        ]);
        record::write_private(&self.dir.join("job.json"), job.line().as_bytes()).ok()?;
        let exe = std::env::current_exe().ok()?;
        Command::new(exe)
            .arg(PLANNER_RECORDER)
            .arg(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .ok()?;
        Some(())
    }
}

/// The original's output as compared: with `-X`, without the lines about
/// submitting and waiting for jobs.
fn comparable(output: &[u8], exec: bool) -> Vec<u8> {
    if !exec {
        return output.to_vec();
    }
    let mut kept = Vec::new();
    for line in output.split_inclusive(|&b| b == b'\n') {
        let text = String::from_utf8_lossy(line);
        if !EXEC_LINES.iter().any(|p| text.trim_start().starts_with(p)) {
            kept.extend_from_slice(line);
        }
    }
    kept
}

fn job_text(job: &Json, key: &str) -> String {
    match job.get(key) {
        Some(Json::String(t)) => t.to_string(),
        _ => String::new(),
    }
}

fn job_texts(job: &Json, key: &str) -> Vec<String> {
    match job.get(key) {
        Some(Json::Array(a)) => a
            .iter()
            .filter_map(|x| match x {
                Json::String(t) => Some(t.to_string()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn job_number(job: &Json, key: &str) -> f64 {
    match job.get(key) {
        Some(Json::Number(n)) => n.as_f64(),
        _ => 0.0,
    }
}

/// The planner recorder's process (`hailstone-shadow --shadow-planner
/// DIR`): hailstone's program on the kept state, the comparison, the
/// record; the private folder removed. Returns 0 when recorded.
pub fn record_main(dir: &Path) -> u8 {
    let done = record_planner(dir, clock::now());
    let _ = std::fs::remove_dir_all(dir);
    u8::from(done.is_none())
}

fn record_planner(dir: &Path, now: SystemTime) -> Option<()> {
    let bytes = std::fs::read(dir.join("job.json")).ok()?;
    let job = parse(&bytes).ok()?;
    let name = job_text(&job, "name");
    let main = hailstone_main(&name)?;
    let args: Vec<OsString> = job_texts(&job, "hailstone_args")
        .into_iter()
        .map(OsString::from)
        .collect();
    let limit = Duration::from_secs_f64(job_number(&job, "timeout").max(1.0));
    let start = clock::monotonic();
    let (tx, rx) = std::sync::mpsc::channel();
    let run_args = args.clone();
    std::thread::spawn(move || {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = main(&run_args, &mut out, &mut err);
        let _ = tx.send((code, out, err));
    });
    let ran = rx.recv_timeout(limit).ok();
    let seconds = clock::since(start).as_secs_f64();
    let original = std::fs::read(dir.join("original.out")).ok()?;
    let status = job_number(&job, "status") as i64;
    let exec = job.get("exec") == Some(&Json::Bool(true));
    let original_compared = comparable(&original, exec);
    let mut words = Vec::new();
    let (hailstone_out, hailstone_err, hailstone_status) = match &ran {
        Some((code, out, err)) => (out.clone(), err.clone(), Some(i64::from(*code))),
        None => (Vec::new(), Vec::new(), None),
    };
    match hailstone_status {
        None => words.push(format!(
            "{} did not finish within {} s",
            job_text(&job, "program"),
            limit.as_secs_f64()
        )),
        Some(c) if c != status => {
            words.push(format!("exit status {status} (original), {c} (hailstone)"))
        }
        _ => {}
    }
    if hailstone_status.is_some() && original_compared != hailstone_out {
        words.push(first_line_difference(&original_compared, &hailstone_out));
    }
    let commands = job.get("commands") == Some(&Json::Bool(true));
    if commands && hailstone_status.is_some() {
        let a = std::fs::read(dir.join("original.commands")).unwrap_or_default();
        let b = std::fs::read(dir.join("hailstone.commands")).unwrap_or_default();
        if a != b {
            words.push(format!("-C file: {}", first_line_difference(&a, &b)));
        }
    }
    let identical = words.is_empty();
    let settings_dir = job_text(&job, "record_dir");
    let pending = Pending::start(Path::new(&settings_dir), &format!("htools-{name}"), now).ok()?;
    pending.write("original.out", &original).ok()?;
    pending.write("hailstone.out", &hailstone_out).ok()?;
    if !hailstone_err.is_empty() {
        pending.write("hailstone.err", &hailstone_err).ok()?;
    }
    let state = job_text(&job, "state");
    let folder = pending.folder();
    let mut reproduce = Vec::new();
    let mut hailstone_cmd = vec![job_text(&job, "program")];
    let mut original_cmd = vec![job_text(&job, "original")];
    if !state.is_empty() {
        let kept = std::fs::read(&state).ok()?;
        pending.write("state.data.gz", &kept).ok()?;
        reproduce.push(format!(
            "zcat {} > /tmp/state.data",
            shell_word(&folder.join("state.data.gz").to_string_lossy())
        ));
    }
    for a in &args {
        let a = a.to_string_lossy();
        let a = if !state.is_empty() && a.starts_with("--text-data=") {
            "--text-data=/tmp/state.data".to_owned()
        } else {
            a.into_owned()
        };
        hailstone_cmd.push(a.clone());
        original_cmd.push(a);
    }
    let line = |words: &[String]| {
        words
            .iter()
            .map(|w| shell_word(w))
            .collect::<Vec<_>>()
            .join(" ")
    };
    reproduce.push(line(&original_cmd));
    reproduce.push(line(&hailstone_cmd));
    let meta = Out::Obj(vec![
        ("format", Out::Int(1)),
        ("kind", s("planner")),
        ("program", s(&name)),
        ("hailstone_program", s(&job_text(&job, "program"))),
        ("args", strs(&job_texts(&job, "args"))),
        (
            "hailstone_args",
            strs(
                &args
                    .iter()
                    .map(|a| a.to_string_lossy().into_owned())
                    .collect::<Vec<_>>(),
            ),
        ),
        (
            "state",
            Out::Obj(vec![
                ("how", s(&job_text(&job, "how"))),
                (
                    "drifted",
                    Out::Bool(job.get("drifted") == Some(&Json::Bool(true))),
                ),
                (
                    "file",
                    if state.is_empty() {
                        Out::Null
                    } else {
                        s("state.data.gz")
                    },
                ),
            ]),
        ),
        (
            "original",
            Out::Obj(vec![
                ("status", Out::Int(status)),
                ("seconds", Out::Num(job_number(&job, "seconds"))),
                ("output", s("original.out")),
            ]),
        ),
        (
            "hailstone",
            Out::Obj(vec![
                ("status", hailstone_status.map_or(Out::Null, Out::Int)),
                ("seconds", Out::Num(seconds)),
                ("output", s("hailstone.out")),
            ]),
        ),
        ("exec", Out::Bool(exec)),
        (
            "verdict",
            s(if identical { "identical" } else { "different" }),
        ),
        (
            "difference",
            if identical {
                Out::Null
            } else {
                s(&words.join("; "))
            },
        ),
        ("reproduce", strs(&reproduce)),
    ]);
    pending.write(record::META, meta.line().as_bytes()).ok()?;
    pending.commit().ok()?;
    let keep = job_number(&job, "keep") as usize;
    let keep_size = job_number(&job, "keep_size") as u64;
    record::rotate(Path::new(&settings_dir), keep, keep_size).ok()?;
    Some(())
}

/// The first line where two outputs differ, in words.
fn first_line_difference(a: &[u8], b: &[u8]) -> String {
    let la: Vec<&[u8]> = a.split(|&c| c == b'\n').collect();
    let lb: Vec<&[u8]> = b.split(|&c| c == b'\n').collect();
    let n = la.iter().zip(&lb).take_while(|(x, y)| x == y).count();
    let show = |l: Option<&&[u8]>| {
        l.map_or("(no line)".to_owned(), |l| {
            format!("{:?}", String::from_utf8_lossy(l))
        })
    };
    format!(
        "line {}: {} (original), {} (hailstone)",
        n + 1,
        show(la.get(n)),
        show(lb.get(n))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hailstones_options_drop_exec_and_save_and_take_the_state() {
        let program = command_line("hbal").unwrap();
        let args: Vec<OsString> = [
            "-L",
            "-X",
            "-C/tmp/c",
            "--save=/tmp/s",
            "-l",
            "3",
            "--no-disk-moves",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        let given = Given::of(program, &args);
        assert_eq!(
            hailstone_args(
                &given,
                Some(Path::new("/p/state.original")),
                Path::new("/p/hailstone.commands")
            ),
            vec![
                "--print-commands=/p/hailstone.commands",
                "--max-length=3",
                "--no-disk-moves",
                "--text-data=/p/state.original"
            ]
        );
        let given = Given::of(
            program,
            &[
                OsString::from("-t"),
                OsString::from("x.data"),
                OsString::from("-C"),
            ],
        );
        assert_eq!(
            hailstone_args(&given, None, Path::new("/p/c")),
            vec!["--text-data=x.data", "--print-commands"]
        );
    }

    #[test]
    fn exec_lines_are_left_out() {
        let out = b"Solution length=1\nExecuting jobset for instances a\nGot job IDs 12\nx\n";
        assert_eq!(comparable(out, true), b"Solution length=1\nx\n");
        assert_eq!(comparable(out, false), out);
    }

    #[test]
    fn line_differences() {
        assert_eq!(
            first_line_difference(b"a\nb\n", b"a\nc\n"),
            "line 2: \"b\" (original), \"c\" (hailstone)"
        );
    }
}
