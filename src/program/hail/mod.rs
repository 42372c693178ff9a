//! hail's program: the iallocator `hailstone INPUT [OPTIONS]`.
//!
//! [`options`] reads the command line; [`run`] is the whole request
//! pipeline without IO: bytes in, the answer line (or the reason there is
//! none) out, with what goes to stderr collected on the side; [`dispatch`]
//! runs a loaded request by its type. `main.rs` wraps it with file
//! reading, printing and exit codes; the fuzz targets and tests call it
//! directly.

pub mod dispatch;
pub mod options;

use dispatch::{RunError, Teardown};
use options::Options;

use crate::read::loader::{self, LoadError};

/// Why no answer was produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The input is not a valid request (exit status 1).
    Input(String),
    /// The request can't be processed (see [`RunError`]).
    Run(RunError),
}

/// The outcome of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Text for stderr that precedes the answer or the error (hail's
    /// inconsistent-data warning, verbose notes).
    pub stderr: String,
    /// The answer line (with its newline), or why there is none.
    pub answer: Result<String, Failure>,
}

/// Runs one request given as bytes.
pub fn run(bytes: &[u8], options: &Options) -> Outcome {
    let mut stderr = String::new();
    let answer = run_inner(bytes, options, &mut stderr, Teardown::Free);
    Outcome { stderr, answer }
}

/// [`run`] for a process that exits right after: the model is not freed
/// piece by piece; the exit returns its memory.
pub fn run_and_leak(bytes: &[u8], options: &Options) -> Outcome {
    let mut stderr = String::new();
    let answer = run_inner(bytes, options, &mut stderr, Teardown::Leak);
    Outcome { stderr, answer }
}

fn run_inner(
    bytes: &[u8],
    options: &Options,
    stderr: &mut String,
    teardown: Teardown,
) -> Result<String, Failure> {
    let loaded = loader::load(bytes, &options.load).map_err(|e| match e {
        LoadError::Json(e) => Failure::Input(format!("the request is not valid JSON: {e}")),
        LoadError::Input(e) => Failure::Input(e.to_string()),
    })?;

    if !loaded.warnings.is_empty() {
        stderr.push_str("Warning: cluster has inconsistent data:\n");
        for w in &loaded.warnings {
            stderr.push_str("  - ");
            stderr.push_str(w);
            stderr.push('\n');
        }
        stderr.push('\n');
    }
    if options.verbose > 1 {
        stderr.push_str(&format!(
            "Received request: {}\n",
            loaded.request.type_name()
        ));
        if let Some(group) = dispatch::allocation_group(&loaded.request) {
            if dispatch::is_dedicated(&loaded.cluster, group) {
                stderr.push_str(
                    "Allocation on a dedicated cluster; using lost-allocations metrics.\n",
                );
            }
        }
    }
    if options.verbose > 2 {
        let c = &loaded.cluster;
        stderr.push_str(&format!(
            "Received cluster data: {} node groups, {} nodes, {} instances\n",
            c.groups.len(),
            c.nodes.len(),
            c.instances.len()
        ));
    }

    let answer = dispatch::run(loaded, &options.algorithm, teardown).map_err(Failure::Run)?;
    Ok(answer.render())
}
