//! `hailstone-shadow`: try hailstone on a cluster's own requests before
//! switching to it. Ganeti runs it as its allocator; it hands Ganeti the
//! reference allocator's (hail's) answer byte for byte and records, in
//! the shadow, where hailstone's answer to the same request would have
//! differed; `report` summarises the records.
//!
//! * [`options`] — the command line: the shadow's own options taken out,
//!   the rest passed on to both allocators; the settings file;
//! * [`run`] — Ganeti's call: the primary as a child, its answer and
//!   status handed on, the recorder started first and told the outcome;
//! * [`recorder`] — the detached side: the other allocator under its time
//!   limit, the comparison, the record;
//! * [`record`] — the record folder: private, written whole, rotated;
//! * [`compare`] — the first JSON path where two answers differ;
//! * [`validate`] — Ganeti's own checks of an answer, for the report;
//! * [`report`] — `hailstone-shadow report DIR [--json]`;
//! * [`planners`] — the htools' names in the shadow (`hailstone-htools
//!   enable --shadow`): the original runs, hailstone's program beside.
//!
//! Nothing of the shadow's side can change Ganeti's answer or its exit
//! status: the recorder shares no stream with Ganeti and runs in its own
//! process group, and every failure of it (it cannot start, crashes,
//! hangs, is killed, the disk is full) only loses the record.

pub mod compare;
pub mod options;
pub mod planners;
pub mod record;
pub mod recorder;
pub mod report;
pub mod run;
pub mod validate;

use std::ffi::OsString;
use std::io::Write;

use options::{Exit, Invocation, PROGRAM};

/// The process's entry point (the whole command line, `argv[0]` first):
/// called by one of the htools' names, the shadow wrapper of that
/// program; else [`main`].
pub fn process(argv: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let argv0 = argv.first().cloned().unwrap_or_default();
    let args = argv.get(1..).unwrap_or(&[]);
    if planners::is_wrapped(&argv0) {
        return planners::wrapper(&argv0, args, out, err);
    }
    main(args, out, err)
}

/// The program's entry point (arguments without `argv[0]`); returns the
/// exit status.
pub fn main(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    if let (Some(first), Some(dir)) = (args.first(), args.get(1)) {
        if first == planners::PLANNER_RECORDER {
            return planners::record_main(std::path::Path::new(dir));
        }
    }
    let invocation = match options::parse(args) {
        Ok(i) => i,
        Err(e) => {
            return crate::shell::exit::main(
                PROGRAM,
                Err::<(), Exit>(e),
                |_, _, _| Ok(()),
                out,
                err,
            )
        }
    };
    match invocation {
        Invocation::Allocate(call) => run::allocate(&call, out, err),
        Invocation::Record(call) => recorder::main(&call),
        Invocation::Report { dir, json } => crate::shell::exit::main(
            PROGRAM,
            Ok(()),
            |_, out, _| {
                let form = if json {
                    report::Form::Json
                } else {
                    report::Form::Text
                };
                report::run(&dir, form, out)
            },
            out,
            err,
        ),
    }
}
