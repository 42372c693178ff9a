//! The allocator's pure core: the request's bytes (with the `-t` file's
//! and the monitoring daemons' reports, as the shell read and fetched
//! them) in; the answer line, hail's notes for stderr, the `-S` files and
//! the explanation out, as values. No file, network, clock or process I/O
//! happens here (`tests/invariants.rs` reads this file): the shell
//! ([`super::main`]) reads, fetches, writes and prints.
//!
//! Two steps, because `--mond` asks the daemons of the loaded cluster's
//! nodes: [`load`] (the request, then the cluster it is answered on: its
//! own, `--simulate`'s or the `-t` file's), then [`answer`] (the reports
//! applied, hail's notes, the request's indices checked against that
//! cluster before anything is saved, the `-S` states, the search, the
//! answer and its explanation). [`run`] is both without `--mond` data:
//! what the fuzz targets and tests call.

pub use crate::search::request::{RunError, Teardown};

use crate::explain;
use crate::model::node::Node;
use crate::model::{Cluster, Request};
use crate::program::cli::Options;
use crate::read::live::mond::{self, Collected};
use crate::read::loader::{self, LoadError};
use crate::read::merge::MergeOptions;
use crate::read::{rebase, simulate, text};
use crate::search::request::{self, FinalLists};
use crate::write::nodes::{print_nodes, PrintNodes};
use crate::write::notes;
use crate::write::text as text_writer;

/// Why no answer was produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The input is not a valid request (exit status 1).
    Input(String),
    /// The request can't be processed (see [`RunError`]).
    Run(RunError),
}

/// A file to write, and where its message goes in the stderr text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Save {
    /// The path to write.
    pub path: String,
    /// What to write.
    pub contents: String,
    /// The length of the stderr text before the save: hail writes the file,
    /// then says so; if the file cannot be written, only the text before
    /// this point has been printed.
    pub stderr_at: usize,
}

/// The outcome of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Text for stderr that precedes the answer or the error (hail's
    /// inconsistent-data warnings, verbose notes, node tables, the notes
    /// that the state was saved).
    pub stderr: String,
    /// The cluster states to save (`-S`), in order.
    pub saves: Vec<Save>,
    /// The answer line (with its newline), or why there is none.
    pub answer: Result<String, Failure>,
    /// With `--explain`: the explanation, or why there is none.
    pub explanation: Option<Result<Explained, String>>,
}

/// An explanation and what its file is named after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explained {
    /// The text (or JSON) to write.
    pub text: String,
    /// The request type and its first instance, for a file name.
    pub subject: String,
}

/// A cluster data file named by `-t`, as the shell read it.
#[derive(Debug, Clone)]
pub struct DataFile {
    /// The name as given.
    pub name: String,
    /// Its bytes, or why it could not be read.
    pub contents: Result<Vec<u8>, String>,
}

/// What the shell read for one request.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// The request's bytes.
    pub request: &'a [u8],
    /// The `-t` file (hail reads it only when no `--simulate` is given).
    pub data_file: Option<&'a DataFile>,
}

/// A request that failed before its cluster was ready: the stderr text so
/// far and why.
#[derive(Debug)]
pub struct Failed {
    stderr: String,
    failure: Failure,
}

impl From<Failed> for Outcome {
    fn from(f: Failed) -> Outcome {
        Outcome {
            stderr: f.stderr,
            saves: Vec::new(),
            answer: Err(f.failure),
            explanation: None,
        }
    }
}

/// A loaded request and the cluster it is answered on.
#[derive(Debug)]
pub struct Loaded {
    cluster: Cluster,
    request: Request,
    /// The node tables' first index (`--simulate`'s start at 1).
    index_base: usize,
    stderr: String,
    /// The `-t` file's warnings, which hail prints after the daemons'
    /// notes.
    data_file_warnings: Vec<String>,
}

impl Loaded {
    /// The nodes whose daemons `--mond` asks, in node order.
    pub fn node_names(&self) -> Vec<&str> {
        self.cluster
            .nodes
            .iter()
            .map(|n| n.info.name.as_str())
            .collect()
    }
}

/// Reads the request, then the cluster it is answered on: with
/// `--simulate` or `-t` the cluster comes from there and only the request
/// is kept (hail's `wrapReadRequest`); `--simulate` wins.
///
/// # Errors
///
/// The request or the data file is not valid, or the simulation's spec;
/// with the request's warnings said before.
pub fn load(inputs: &Inputs<'_>, options: &Options) -> Result<Loaded, Failed> {
    let loaded = loader::load(inputs.request, &options.load).map_err(|e| Failed {
        stderr: String::new(),
        failure: Failure::Input(match e {
            LoadError::Json(e) => format!("the request is not valid JSON: {e}"),
            LoadError::Input(e) => e.to_string(),
        }),
    })?;
    let stderr = notes::warnings(&loaded.warnings);
    let fail = |stderr: String, message: String| Failed {
        stderr,
        failure: Failure::Input(message),
    };
    let mut data_file_warnings = Vec::new();
    let mut index_base = 0;
    let (cluster, request) = if !options.simulate.is_empty() {
        let mut cluster = match simulate::load(&options.simulate, options.load.ganeti) {
            Ok(c) => c,
            Err(m) => return Err(fail(stderr, format!("cannot simulate the cluster: {m}"))),
        };
        index_base = 1;
        let request = rebase::rebase(loaded.request, &loaded.cluster, &mut cluster);
        (cluster, request)
    } else if let Some(file) = inputs.data_file {
        let contents = match &file.contents {
            Ok(c) => c,
            Err(e) => {
                let message = format!("cannot read the cluster data file {:?}: {e}", file.name);
                return Err(fail(stderr, message));
            }
        };
        let merge_options = MergeOptions {
            ganeti: options.load.ganeti,
            ignore_dynu: options.ignore_dynu,
            ..MergeOptions::default()
        };
        let (mut cluster, warnings) = match text::load(&file.name, contents, &merge_options) {
            Ok(read) => read,
            Err(e) => {
                let message = format!("cannot load the cluster data file: {e}");
                return Err(fail(stderr, message));
            }
        };
        data_file_warnings = warnings;
        let request = rebase::rebase(loaded.request, &loaded.cluster, &mut cluster);
        (cluster, request)
    } else {
        (loaded.cluster, loaded.request)
    };
    Ok(Loaded {
        cluster,
        request,
        index_base,
        stderr,
        data_file_warnings,
    })
}

/// Answers a loaded request: `monitoring`, the daemons' reports the shell
/// fetched for `--mond` (one per node of [`Loaded::node_names`]), applied
/// first; hail's notes; the request's indices checked against the cluster
/// before anything is saved; the `-S` state before, the search, the
/// answer, its explanation and the `-S` state after.
pub fn answer(
    loaded: Loaded,
    monitoring: Option<Vec<Collected>>,
    options: &Options,
    teardown: Teardown,
) -> Outcome {
    let mut out = Output {
        stderr: loaded.stderr,
        ..Output::default()
    };
    let Loaded {
        mut cluster,
        request,
        index_base,
        data_file_warnings,
        ..
    } = loaded;
    if let Some(collected) = monitoring {
        // Without a `--mond-data` file (hail has none) nothing is
        // required of the data: the notes say what was missing.
        let (said, _complete) = mond::apply_all(&mut cluster, collected);
        out.stderr.push_str(&said);
    }
    out.warnings(&data_file_warnings);
    let answer = search(cluster, request, index_base, options, &mut out, teardown);
    Outcome {
        stderr: out.stderr,
        saves: out.saves,
        answer,
        explanation: out.explanation,
    }
}

/// [`load`] and [`answer`], without `--mond` data (its reports are the
/// shell's to fetch); the model is freed before it returns.
pub fn run(inputs: &Inputs<'_>, options: &Options) -> Outcome {
    match load(inputs, options) {
        Ok(loaded) => answer(loaded, None, options, Teardown::Free),
        Err(failed) => failed.into(),
    }
}

/// What a run prints on stderr and saves, in order.
#[derive(Default)]
struct Output {
    stderr: String,
    saves: Vec<Save>,
    explanation: Option<Result<Explained, String>>,
}

impl Output {
    /// hail's warning block (`maybeShowWarnings`).
    fn warnings(&mut self, warnings: &[String]) {
        self.stderr.push_str(&notes::warnings(warnings));
    }

    /// `maybePrintNodes`: an empty line, the heading, the table and an
    /// empty line.
    fn node_table(&mut self, heading: &str, table: &str) {
        self.stderr.push_str(&notes::node_table(heading, table));
    }

    /// `maybeSaveData`: the file `PATH.EXT`, then the note.
    fn save(&mut self, path: &str, ext: &str, what: &str, contents: String) {
        let path = format!("{path}.{ext}");
        self.saves.push(Save {
            path: path.clone(),
            contents,
            stderr_at: self.stderr.len(),
        });
        self.stderr.push_str(&notes::saved(what, &path));
    }
}

/// The request on its cluster: the verbose notes and the node table, the
/// indices checked, the states saved, the search and its answer line.
fn search(
    cluster: Cluster,
    request: Request,
    index_base: usize,
    options: &Options,
    out: &mut Output,
    teardown: Teardown,
) -> Result<String, Failure> {
    if options.verbose > 1 {
        out.stderr
            .push_str(&format!("Received request: {}\n", request.type_name()));
        if let Some(group) = request::allocation_group(&request) {
            if request::is_dedicated(&cluster, group) {
                out.stderr.push_str(
                    "Allocation on a dedicated cluster; using lost-allocations metrics.\n",
                );
            }
        }
    }
    if options.verbose > 2 {
        out.stderr.push_str(&format!(
            "Received cluster data: {} node groups, {} nodes, {} instances\n",
            cluster.groups.len(),
            cluster.nodes.len(),
            cluster.instances.len()
        ));
    }

    let fields = options.print_nodes.as_ref().map(PrintNodes::fields);
    if let Some(fields) = &fields {
        let nodes: Vec<&Node> = cluster.nodes.iter().collect();
        let table = print_nodes(&nodes, fields, &cluster.tags, index_base);
        out.node_table("Initial cluster", &table);
    }
    // A request whose indices are not in the cluster (a data file or
    // simulation smaller than the request's) is refused before anything
    // is saved.
    rebase::check_indices(&request, &cluster)
        .map_err(|m| Failure::Run(RunError::Inconsistent(m)))?;
    // The initial state's text, also the final one's when nothing changed.
    let initial = options.save.as_ref().map(|_| {
        let nodes: Vec<&Node> = cluster.nodes.iter().collect();
        text_writer::serialize_lists(&cluster, nodes, cluster.instances.iter().collect())
    });
    if let (Some(path), Some(text)) = (&options.save, &initial) {
        out.save(path, "pre-ialloc", "before iallocator run", text.clone());
    }

    let final_lists = if fields.is_some() || options.save.is_some() {
        FinalLists::Keep
    } else {
        FinalLists::Drop
    };
    let names_and_tags = (final_lists == FinalLists::Keep).then(|| {
        let names: Vec<String> = cluster.nodes.iter().map(|n| n.info.name.clone()).collect();
        (
            names,
            cluster.tags.clone(),
            cluster.groups.clone(),
            cluster.cluster_tags.clone(),
            cluster.ipolicy.clone(),
        )
    });
    let initial_nodes = fields.as_ref().map(|_| cluster.nodes.clone());
    // With --explain, the searches record what they did as they run.
    let mut recorder = options.explain.as_ref().map(|_| {
        (
            explain::Recorder::new(&cluster),
            explain::subject(&cluster, &request),
            request.type_name(),
            explain::cost::Basis::new(&cluster, &request),
        )
    });
    let (response, fin) = request::run(
        cluster,
        request,
        &options.algorithm,
        teardown,
        final_lists,
        recorder
            .as_mut()
            .map(|(r, ..)| r as &mut dyn request::Observer),
    )
    .map_err(Failure::Run)?;
    let answer = crate::write::iallocator::answer(&response);
    if let Some((recorded, subject, request_type, basis)) = recorder {
        let mut e = explain::explanation(request_type, &answer, recorded);
        e.score_terms = options.verbose > 1;
        e.cost = basis.and_then(|b| b.cost(&response, options.rates));
        out.explanation = Some(Ok(Explained {
            text: explain::render::render(&e, options.explain_format),
            subject,
        }));
    }

    if let (Some(fields), Some((_, tags, ..))) = (&fields, &names_and_tags) {
        let table = match (&fin, &initial_nodes) {
            (Some(fin), _) => print_nodes(
                &fin.nodes.iter().collect::<Vec<_>>(),
                fields,
                tags,
                index_base,
            ),
            (None, Some(nodes)) => {
                print_nodes(&nodes.iter().collect::<Vec<_>>(), fields, tags, index_base)
            }
            (None, None) => String::new(),
        };
        out.node_table("Final cluster", &table);
    }
    if let (Some(path), Some(initial)) = (&options.save, initial) {
        let text = match (&fin, &names_and_tags) {
            (Some(fin), Some((names, _, groups, cluster_tags, ipolicy))) => {
                text_writer::final_lists(fin, names, groups, cluster_tags, ipolicy)
            }
            _ => initial,
        };
        out.save(path, "post-ialloc", "after iallocator run", text);
    }
    Ok(answer.render())
}
