//! `hailstone-shadow`'s command line. Ganeti calls it as it calls any
//! allocator, `hailstone-shadow REQUEST [--key=value...]`; of those
//! options the shadow's own ([`COMMAND_LINE`]: `--reference`,
//! `--hailstone`, `--primary`, `--record-dir`, `--shadow-timeout`,
//! `--keep`, `--keep-size`, `--config`, and `--help`, `--version`) are
//! taken out, and every other argument is passed on, in its order, to
//! both allocators ([`Call::args_for`]) — except the options only
//! hailstone has (`--explain`, `--ganeti-version`, ...: the ones
//! `hailstone`'s own table marks as its own), which go to hailstone alone,
//! since hail refuses them.
//!
//! The same settings may be written in a file, one `KEY=VALUE` a line
//! (`#` starts a comment), read before the command line (which wins):
//! `/etc/ganeti/hailstone-shadow.conf` unless `--config=FILE` names
//! another. A missing default file is no error. With the settings in the
//! file, the cluster needs no iallocator parameter, and `gnt-cluster
//! modify -I hail` alone switches back (hail refuses options it does not
//! know, so parameters meant for the shadow would break it).
//!
//! `hailstone-shadow report [DIR] [--json]` summarises the records
//! ([`super::report`]); the hidden first argument [`RECORDER`] starts the
//! detached recorder ([`super::recorder`]) with the call's own arguments.

use std::ffi::{OsStr, OsString};

use crate::program::cli::getopt::{self, usage_error};
pub use crate::program::cli::Exit;
use crate::program::cli::{
    self, take_own, Opt, Options, Primary, Program, ShadowSettings, DEFAULT_SHADOW_CONFIG,
};
use crate::write::manual::{ExitStatus, Manual};

/// The program's command line.
pub const COMMAND_LINE: Program = Program {
    name: "hailstone-shadow",
    original: "hail",
    synopsis: "REQUEST [--key=value...] | report [DIR] [--json]",
    options: &[
        take_own(Opt::Reference),
        take_own(Opt::ShadowHailstone),
        take_own(Opt::Primary),
        take_own(Opt::RecordDir),
        take_own(Opt::ShadowTimeout),
        take_own(Opt::Keep),
        take_own(Opt::KeepSize),
        take_own(Opt::ShadowConfig),
        take_own(Opt::Json),
        take_own(Opt::Version),
        take_own(Opt::Help),
        take_own(Opt::HelpCompletion),
    ],
    arguments: "file 1 1\n",
    flag_values: true,
    manual: Manual {
        summary: "Ganeti iallocator that answers with hail and records where hailstone would differ",
        description: &[
            "Installed beside hailstone in Ganeti's iallocators folder: gnt-cluster modify -I hailstone-shadow makes it the cluster's allocator, -I hail switches back. Ganeti calls it as any allocator, with the request file first. It runs the reference allocator (hail) as a child and hands Ganeti that child's standard output and exit status byte for byte; the reference's standard error goes straight to Ganeti's. Options it does not know itself are passed on to both allocators, in their order (those only hailstone takes, such as --explain and --ganeti-version, to hailstone alone). If the reference cannot be started, it says so on standard error and exits 1 with no answer, as the reference's absence would make Ganeti fail.",
            "hailstone runs in the shadow, in a recorder process started before the reference, in its own process group, with none of Ganeti's streams: it holds the request open (Ganeti deletes the file once the allocator exits), receives the reference's answer, status and time through a pipe, then runs hailstone on a private copy of the request under --shadow-timeout, compares the answers and writes the record. Nothing it does reaches Ganeti's answer: if it cannot start, crashes, hangs, is killed, or the record folder is full or not writable, the run is simply not recorded. What it costs the answer: starting the recorder (about a millisecond), and, only when the answer is larger than the pipe's 64 KiB buffer and the recorder has not yet read it, at most 0.1 s of waiting for it to do so. hailstone starts only after the answer was handed over, so it never competes with the reference for the processor.",
            "--primary=hailstone swaps the roles for the weeks of switching over: Ganeti gets hailstone's answer, and the reference runs in the shadow.",
            "Each run is recorded in its own folder of --record-dir (mode 0700, files 0600: a request is the cluster's whole inventory), named by its time in UTC, the request type and the instance: request.json.gz (the request), reference.out and hailstone.out (the answers), the shadow's standard error, record.json (the arguments, both exit statuses and times, the verdict: identical, or the first JSON path where the answers differ), and explain.txt (hailstone's --explain) when they differ. The newest --keep records, and at most --keep-size of them, are kept; older ones are removed after each run.",
            "The settings may also be written in /etc/ganeti/hailstone-shadow.conf (or the --config file), one KEY=VALUE a line, without the dashes (primary=hailstone); the command line wins. Keeping them there is the safe way: the cluster's iallocator parameters reach hail too once -I hail is back, and hail refuses options it does not know.",
            "report [DIR] (DIR: the --record-dir of the settings by default) summarises the records: the requests by type, how many answers were identical, hailstone's time over the reference's (median and 99th percentile), and each difference with the commands that reproduce it and whether Ganeti's own checks of an answer accept each one; with --json as one JSON document. Runs of the htools made by hailstone-htools enable --shadow are listed too.",
        ],
        exit_status: &[
            (ExitStatus::Done, "the allocator's run: the reference's answer was handed to Ganeti (its own exit status is handed on: 0, or what the reference exits with, 128 + the signal if it was killed); report: no difference was recorded"),
            (ExitStatus::Failed, "the reference (the primary) cannot be started, or report cannot read DIR"),
            (ExitStatus::Usage, "an unknown or ambiguous option of its own, a bad value of one or a bad line in the settings file"),
            (ExitStatus::Findings, "report: at least one difference was recorded"),
        ],
        examples: &[
            ("gnt-cluster modify -I hailstone-shadow", "hail still answers every request; hailstone's answers are recorded beside"),
            ("hailstone-shadow report", "what was recorded, and every difference with its reproduction commands"),
            ("echo primary=hailstone >> /etc/ganeti/hailstone-shadow.conf", "Ganeti gets hailstone's answers, hail runs in the shadow"),
            ("gnt-cluster modify -I hail", "back to hail alone"),
        ],
        files: &[
            ("/usr/lib/ganeti/iallocators/hailstone-shadow", "where Ganeti looks for the allocator named hailstone-shadow"),
            ("/etc/ganeti/hailstone-shadow.conf", "the settings, KEY=VALUE lines"),
            ("/var/log/ganeti/hailstone-shadow/", "the records"),
        ],
        decides: crate::write::manual::no_section,
    },
};

/// The name printed wherever the program prints its own.
pub const PROGRAM: &str = COMMAND_LINE.name;

/// The hidden first argument that makes the program the recorder.
pub const RECORDER: &str = "--shadow-recorder";

/// Which allocator an argument is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum For {
    Both,
    /// An option only hailstone has.
    Hailstone,
}

/// Which of the two allocators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allocator {
    Reference,
    Hailstone,
}

impl Allocator {
    /// The other one.
    pub fn other(self) -> Allocator {
        match self {
            Allocator::Reference => Allocator::Hailstone,
            Allocator::Hailstone => Allocator::Reference,
        }
    }

    /// Its name in records and reports.
    pub fn name(self) -> &'static str {
        match self {
            Allocator::Reference => "reference",
            Allocator::Hailstone => "hailstone",
        }
    }
}

/// An allocator call as Ganeti made it.
#[derive(Debug, Clone)]
pub struct Call {
    pub settings: ShadowSettings,
    /// The arguments for the allocators, in the order given.
    pub args: Vec<(OsString, For)>,
    /// The position of the request file in `args`, when there is exactly
    /// one non-option argument (otherwise nothing is recorded).
    pub request: Option<usize>,
    /// The arguments exactly as given (what the recorder is started with).
    pub given: Vec<OsString>,
}

impl Call {
    /// The allocator whose answer Ganeti gets.
    pub fn primary(&self) -> Allocator {
        match self.settings.primary {
            Primary::Reference => Allocator::Reference,
            Primary::Hailstone => Allocator::Hailstone,
        }
    }

    /// The path of `who`.
    pub fn path_of(&self, who: Allocator) -> OsString {
        match who {
            Allocator::Reference => OsString::from(&self.settings.reference),
            Allocator::Hailstone => match &self.settings.hailstone {
                Some(p) => OsString::from(p),
                None => beside_this_program("hailstone"),
            },
        }
    }

    /// The arguments for `who`, the request file replaced by `request`
    /// when given.
    pub fn args_for(&self, who: Allocator, request: Option<&OsStr>) -> Vec<OsString> {
        self.args
            .iter()
            .enumerate()
            .filter(|(_, (_, f))| *f == For::Both || who == Allocator::Hailstone)
            .map(|(i, (a, _))| match request {
                Some(r) if Some(i) == self.request => r.to_owned(),
                _ => a.clone(),
            })
            .collect()
    }

    /// The options passed on to `who` (the arguments without the request).
    pub fn options_for(&self, who: Allocator) -> Vec<String> {
        self.args
            .iter()
            .enumerate()
            .filter(|(i, (_, f))| {
                Some(*i) != self.request && (*f == For::Both || who == Allocator::Hailstone)
            })
            .map(|(_, (a, _))| a.to_string_lossy().into_owned())
            .collect()
    }
}

/// `name` in the folder of the running program (where the package puts
/// hailstone beside hailstone-shadow), or bare `name` (the search path)
/// when that folder is unknown.
pub fn beside_this_program(name: &str) -> OsString {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.join(name).into_os_string()))
        .unwrap_or_else(|| OsString::from(name))
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Invocation {
    /// Ganeti's call: the primary answers, the shadow is recorded.
    Allocate(Call),
    /// The detached recorder of such a call.
    Record(Call),
    /// `report [DIR] [--json]`.
    Report { dir: String, json: bool },
}

/// The long names (and letters) of the shadow's own options.
fn own_option(arg: &OsStr) -> Option<&'static getopt::OptDescr<Opt>> {
    let text = arg.to_str()?;
    let mut own = COMMAND_LINE.options.iter().map(|u| u.opt.descr());
    if let Some(long) = text.strip_prefix("--") {
        let name = long.split_once('=').map_or(long, |(n, _)| n);
        return own.find(|o| o.long == name);
    }
    let mut chars = text.chars();
    match (chars.next(), chars.next(), chars.next()) {
        (Some('-'), Some(c), None) => own.find(|o| o.short == Some(c)),
        _ => None,
    }
}

/// Whether `arg` is an option only `hailstone` takes (hail refuses it).
fn hailstone_only(arg: &OsStr) -> bool {
    let Some(long) = arg.to_str().and_then(|t| t.strip_prefix("--")) else {
        return false;
    };
    let name = long.split_once('=').map_or(long, |(n, _)| n);
    crate::program::hail::options::COMMAND_LINE
        .options
        .iter()
        .any(|u| u.own && u.opt.descr().long == name)
}

/// Reads the command line (without `argv[0]`).
///
/// # Errors
///
/// `--help`, `--version`, `--help-completion` (stdout, exit 0); an unknown
/// option to `report`, a bad value of the shadow's own options or a bad
/// line of the settings file (exit 2).
pub fn parse(args: &[OsString]) -> Result<Invocation, Exit> {
    match args.first().and_then(|a| a.to_str()) {
        Some("report") => return parse_report(&args[1..]),
        Some(RECORDER) => return parse_call(&args[1..]).map(Invocation::Record),
        _ => {}
    }
    parse_call(args).map(Invocation::Allocate)
}

fn parse_report(args: &[OsString]) -> Result<Invocation, Exit> {
    let (options, arguments) = cli::parse(&COMMAND_LINE, args)?;
    let options = with_config(options, args)?;
    let dir = match arguments.as_slice() {
        [] => options.shadow.record_dir.clone(),
        [d] => d.to_string_lossy().into_owned(),
        [_, extra, ..] => {
            return Err(usage_error(
                PROGRAM,
                &format!(
                    "report reads one folder of records; '{}' is one too many",
                    extra.to_string_lossy()
                ),
            ))
        }
    };
    Ok(Invocation::Report {
        dir,
        json: options.json,
    })
}

/// Ganeti's call: the shadow's own options (and the values that follow
/// them when given apart) read, the others kept for the allocators.
fn parse_call(args: &[OsString]) -> Result<Call, Exit> {
    let mut own: Vec<OsString> = Vec::new();
    let mut rest: Vec<(OsString, For)> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        if let Some(opt) = own_option(arg) {
            own.push(arg.clone());
            let attached = arg.to_str().is_some_and(|t| t.contains('='));
            if matches!(opt.kind, getopt::ArgKind::Req(_)) && !attached && i + 1 < args.len() {
                own.push(args[i + 1].clone());
                i += 1;
            }
        } else if arg == "--" {
            // Everything after is the allocators'.
            rest.extend(args[i..].iter().map(|a| (a.clone(), For::Both)));
            break;
        } else {
            let f = if hailstone_only(arg) {
                For::Hailstone
            } else {
                For::Both
            };
            rest.push((arg.clone(), f));
        }
        i += 1;
    }
    let (options, _) = cli::parse(&COMMAND_LINE, &own)?;
    let options = with_config(options, &own)?;
    if options.json {
        return Err(usage_error(
            PROGRAM,
            "--json is an option of report (hailstone-shadow report [DIR] --json)",
        ));
    }
    // The request: the one argument hail's own scan finds no option in.
    let hail_table = crate::program::hail::options::COMMAND_LINE.table();
    let plain: Vec<OsString> = rest.iter().map(|(a, _)| a.clone()).collect();
    let scan = getopt::scan(&hail_table, &plain);
    let request = match scan.non_options.as_slice() {
        [one] if one != "-" => rest.iter().position(|(a, _)| a == one),
        _ => None,
    };
    Ok(Call {
        settings: options.shadow,
        args: rest,
        request,
        given: args.to_vec(),
    })
}

/// The settings of the file `config` (the default one, if it exists,
/// when `None`), for the htools' shadow wrappers.
///
/// # Errors
///
/// The file cannot be read, or a line of it is wrong.
pub fn settings_of_file(config: Option<&std::path::Path>) -> Result<ShadowSettings, Exit> {
    let mut options = Options::default();
    options.shadow.config = config.map(|p| p.to_string_lossy().into_owned());
    with_config(options, &[]).map(|o| o.shadow)
}

/// The settings of the file (`--config`, or the default one when it
/// exists), then the command line's own options again over them.
fn with_config(options: Options, own: &[OsString]) -> Result<Options, Exit> {
    let (path, named) = match &options.shadow.config {
        Some(p) => (p.clone(), true),
        None => (DEFAULT_SHADOW_CONFIG.to_owned(), false),
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if !named && e.kind() == std::io::ErrorKind::NotFound => return Ok(options),
        Err(e) => {
            return Err(usage_error(
                PROGRAM,
                &format!("cannot read the settings file {path}: {e}"),
            ))
        }
    };
    let mut file_args = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line.split_once('=').unwrap_or((line, ""));
        let (key, value) = (key.trim(), value.trim());
        let arg = OsString::from(format!("--{key}={value}"));
        let settable = own_option(&arg).is_some_and(|o| {
            !matches!(
                o.id,
                Opt::ShadowConfig | Opt::Json | Opt::Help | Opt::Version | Opt::HelpCompletion
            )
        });
        if !settable {
            let keys = [
                "reference",
                "hailstone",
                "primary",
                "record-dir",
                "shadow-timeout",
                "keep",
                "keep-size",
            ];
            let near = crate::program::cli::suggest::nearest(key, keys)
                .map(|k| format!(" (did you mean {k}?)"))
                .unwrap_or_default();
            return Err(usage_error(
                PROGRAM,
                &format!(
                    "{path}, line {}: '{key}' is not a setting{near}; the settings are {}",
                    n + 1,
                    crate::program::cli::suggest::one_of(&keys)
                ),
            ));
        }
        // A value checked alone, so that its error names the line.
        cli::parse(&COMMAND_LINE, std::slice::from_ref(&arg)).map_err(|e| match e {
            Exit::Stderr { code, message } => Exit::Stderr {
                code,
                message: format!("{path}, line {}: {message}", n + 1),
            },
            other => other,
        })?;
        file_args.push(arg);
    }
    file_args.extend(own.iter().cloned());
    let (mut merged, _) = cli::parse(&COMMAND_LINE, &file_args)?;
    merged.json = options.json;
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    fn call_without_config(v: &[&str]) -> Call {
        let dir = std::env::temp_dir().join(format!("hailstone-shadow-opt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let conf = dir.join("empty.conf");
        std::fs::write(&conf, "# nothing\n").unwrap();
        let mut args = os(v);
        args.push(OsString::from(format!("--config={}", conf.display())));
        match parse(&args) {
            Ok(Invocation::Allocate(c)) => c,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn own_options_are_taken_and_the_rest_passed_on() {
        let c = call_without_config(&[
            "/tmp/ganeti-iallocator.x",
            "--primary=hailstone",
            "--no-capacity-checks=yes",
            "--reference",
            "/bin/hail",
            "--explain=/var/log/x",
        ]);
        assert_eq!(c.settings.primary, Primary::Hailstone);
        assert_eq!(c.settings.reference, "/bin/hail");
        assert_eq!(c.request, Some(0));
        assert_eq!(
            c.args_for(Allocator::Reference, Some(OsStr::new("/r.json"))),
            os(&["/r.json", "--no-capacity-checks=yes"])
        );
        assert_eq!(
            c.args_for(Allocator::Hailstone, None),
            os(&[
                "/tmp/ganeti-iallocator.x",
                "--no-capacity-checks=yes",
                "--explain=/var/log/x"
            ])
        );
        assert_eq!(
            c.options_for(Allocator::Hailstone),
            vec!["--no-capacity-checks=yes", "--explain=/var/log/x"]
        );
    }

    #[test]
    fn a_named_missing_settings_file_is_a_usage_error() {
        let e = parse(&os(&["/tmp/r", "--config=/nonexistent-hailstone/x.conf"])).unwrap_err();
        assert!(
            matches!(&e, Exit::Stderr { code: 2, message } if message.contains("cannot read the settings file")),
            "{e:?}"
        );
    }

    #[test]
    fn the_settings_file_is_read_and_the_command_line_wins() {
        let dir =
            std::env::temp_dir().join(format!("hailstone-shadow-conf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let conf = dir.join("s.conf");
        std::fs::write(
            &conf,
            "# settings\nprimary = hailstone\nkeep=5\nkeep-size=2M\nrecord-dir=/srv/r\n",
        )
        .unwrap();
        let c = format!("--config={}", conf.display());
        let Ok(Invocation::Allocate(call)) = parse(&os(&["/tmp/r", &c, "--keep=7"])) else {
            panic!()
        };
        assert_eq!(call.settings.primary, Primary::Hailstone);
        assert_eq!(call.settings.keep, 7);
        assert_eq!(call.settings.keep_size, 2 << 20);
        assert_eq!(call.settings.record_dir, "/srv/r");
        std::fs::write(&conf, "primary=hail\nprimry=hailstone\n").unwrap();
        let e = parse(&os(&["/tmp/r", &c])).unwrap_err();
        assert!(
            matches!(&e, Exit::Stderr { code: 2, message } if message.contains("line 2: 'primry' is not a setting (did you mean primary?)")),
            "{e:?}"
        );
        std::fs::write(&conf, "primary=hal\n").unwrap();
        let e = parse(&os(&["/tmp/r", &c])).unwrap_err();
        assert!(
            matches!(&e, Exit::Stderr { code: 2, message } if message.contains("line 1: ") && message.contains("did you mean hail?")),
            "{e:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn report_takes_a_folder_and_json() {
        let Ok(Invocation::Report { dir, json }) =
            parse(&os(&["report", "/var/r", "--json", "--config=/dev/null"]))
        else {
            panic!()
        };
        assert_eq!(dir, "/var/r");
        assert!(json);
        assert!(parse(&os(&["report", "--bogus"])).is_err());
    }

    #[test]
    fn no_request_or_stdin_records_nothing() {
        assert_eq!(call_without_config(&["--no-capacity-checks"]).request, None);
        assert_eq!(call_without_config(&["-"]).request, None);
        assert_eq!(call_without_config(&["a", "b"]).request, None);
    }
}
