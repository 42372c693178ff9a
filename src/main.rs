//! The `hailstone` binary: `hailstone INPUT [OPTIONS]`, as Ganeti runs an
//! iallocator. Reads the request (a file, or `-` for stdin), prints exactly
//! one answer line on stdout, and sends everything else to stderr.
//!
//! Exit status is decided in one place ([`Failure::exit_code`]):
//! 0 when an answer was printed (also `"success": false`), 1 for bad input
//! or data hail would fail on, 2 for command-line errors and options whose
//! behaviour is not built yet, 3 for requests not implemented yet.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::process::ExitCode;

use hailstone::cli::{self, Exit, Invocation};
use hailstone::model::loader::{self, LoadOptions, N1Rule};
use hailstone::process::{self, RunError, RunOptions};
use hailstone::{json, protocol};

/// Why hailstone stops without an answer.
enum Failure {
    /// The command line asked for help/version text (stdout, exit 0) or was
    /// refused (stderr, its own exit code).
    Cli(Exit),
    /// The input cannot be read or is invalid.
    Input(String),
    /// The request can't be processed.
    Run(RunError),
}

impl Failure {
    fn exit_code(&self) -> u8 {
        match self {
            Failure::Cli(Exit::Stdout(_)) => 0,
            Failure::Cli(Exit::Stderr { code, .. }) => *code,
            Failure::Input(_) => 1,
            Failure::Run(RunError::NotImplemented(_)) => 3,
            Failure::Run(RunError::Inconsistent(_)) => 1,
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    match run(&args) {
        Ok(answer) => {
            let mut out = std::io::stdout().lock();
            if let Err(e) = out.write_all(answer.as_bytes()).and_then(|()| out.flush()) {
                eprintln!("hailstone: cannot write the answer: {e}");
                return ExitCode::from(1);
            }
            ExitCode::SUCCESS
        }
        Err(failure) => {
            let code = failure.exit_code();
            match failure {
                Failure::Cli(Exit::Stdout(text)) => {
                    let _ = std::io::stdout().lock().write_all(text.as_bytes());
                }
                Failure::Cli(Exit::Stderr { message, .. }) => eprint!("{message}"),
                Failure::Input(message) => eprintln!("hailstone: error: {message}"),
                Failure::Run(e) => eprintln!("hailstone: {e}"),
            }
            ExitCode::from(code)
        }
    }
}

/// Reads the whole input: a file path, or `-` for stdin.
fn read_input(input: &OsString) -> Result<Vec<u8>, Failure> {
    if input == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut buf)
            .map_err(|e| Failure::Input(format!("cannot read the request from stdin: {e}")))?;
        Ok(buf)
    } else {
        std::fs::read(input).map_err(|e| {
            Failure::Input(format!(
                "cannot read the request file {:?}: {e}",
                input.to_string_lossy()
            ))
        })
    }
}

fn run(args: &[OsString]) -> Result<String, Failure> {
    let Invocation { options, input } = cli::parse(args).map_err(Failure::Cli)?;
    let bytes = read_input(&input)?;
    let doc = json::parse(&bytes)
        .map_err(|e| Failure::Input(format!("the request is not valid JSON: {e}")))?;
    drop(bytes);
    let message = protocol::read_message(&doc).map_err(|e| Failure::Input(e.to_string()))?;
    drop(doc);
    let load_opts = LoadOptions {
        static_kvm_node_memory: options.static_kvm_node_memory,
        n1_rule: match options.n1_rule {
            cli::N1Rule::Hail30 => N1Rule::Hail30,
            cli::N1Rule::Ganeti31 => N1Rule::Ganeti31,
        },
    };
    let loaded = loader::load(&message, &load_opts).map_err(|e| Failure::Input(e.to_string()))?;
    drop(message);

    if !loaded.warnings.is_empty() {
        let mut text = String::from("Warning: cluster has inconsistent data:\n");
        for w in &loaded.warnings {
            text.push_str("  - ");
            text.push_str(w);
            text.push('\n');
        }
        eprintln!("{text}");
    }
    if options.verbose > 1 {
        eprintln!("Received request: {}", loaded.request.type_name());
        if let Some(group) = process::allocation_group(&loaded.request) {
            if process::is_dedicated(&loaded.cluster, group) {
                eprintln!("Allocation on a dedicated cluster; using lost-allocations metrics.");
            }
        }
    }
    if options.verbose > 2 {
        let c = &loaded.cluster;
        eprintln!(
            "Received cluster data: {} node groups, {} nodes, {} instances",
            c.groups.len(),
            c.nodes.len(),
            c.instances.len()
        );
    }

    let run_opts = RunOptions {
        ignore_soft_errors: options.ignore_soft_errors,
        capacity_checks: !options.no_capacity_checks,
        restrict_allocation_to: options.restrict_allocation_to.clone(),
    };
    let answer = process::run(&loaded, &run_opts).map_err(Failure::Run)?;
    Ok(answer.render())
}
