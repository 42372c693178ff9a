//! hail's program: the iallocator `hailstone INPUT [OPTIONS]`.
//!
//! [`options`] reads the command line; [`run`] is the whole request
//! pipeline without IO: bytes in, the answer line (or the reason there is
//! none) out, with what goes to stderr collected on the side; [`request::run`]
//! runs a loaded request by its type. `main.rs` wraps it with file
//! reading, printing and exit codes; the fuzz targets and tests call it
//! directly.

pub mod options;

pub use crate::search::request::RunError;
use crate::search::request::{self, Teardown};
use options::Options;

use crate::explain;
use crate::model::node::Node;
use crate::read::loader::{self, LoadError};
use crate::read::merge::MergeOptions;
use crate::read::{rebase, simulate, text};
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

/// A cluster data file named by `-t`, as the caller read it.
#[derive(Debug, Clone)]
pub struct DataFile {
    /// The name as given.
    pub name: String,
    /// Its bytes, or why it could not be read.
    pub contents: Result<Vec<u8>, String>,
}

/// Runs one request given as bytes (no `-t` file).
pub fn run(bytes: &[u8], options: &Options) -> Outcome {
    run_with(bytes, None, options, Teardown::Free)
}

/// [`run`] with the `-t` file if one was given.
pub fn run_with_data_file(
    bytes: &[u8],
    data_file: Option<&DataFile>,
    options: &Options,
) -> Outcome {
    run_with(bytes, data_file, options, Teardown::Free)
}

/// [`run`] for a process that exits right after, with the `-t` file if
/// one was given: the model is not freed piece by piece; the exit returns
/// its memory.
pub fn run_and_leak(bytes: &[u8], data_file: Option<&DataFile>, options: &Options) -> Outcome {
    run_with(bytes, data_file, options, Teardown::Leak)
}

fn run_with(
    bytes: &[u8],
    data_file: Option<&DataFile>,
    options: &Options,
    teardown: Teardown,
) -> Outcome {
    let mut out = Output::default();
    let answer = run_inner(bytes, data_file, options, &mut out, teardown);
    Outcome {
        stderr: out.stderr,
        saves: out.saves,
        answer,
        explanation: out.explanation,
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

fn run_inner(
    bytes: &[u8],
    data_file: Option<&DataFile>,
    options: &Options,
    out: &mut Output,
    teardown: Teardown,
) -> Result<String, Failure> {
    let loaded = loader::load(bytes, &options.load).map_err(|e| match e {
        LoadError::Json(e) => Failure::Input(format!("the request is not valid JSON: {e}")),
        LoadError::Input(e) => Failure::Input(e.to_string()),
    })?;
    out.warnings(&loaded.warnings);
    // `--mond`: the monitoring daemons' CPU data, applied where hail
    // applies it (after the request's warnings; before a data file's).
    let mond = |cluster: &mut crate::model::Cluster, out: &mut Output| {
        if options.mond {
            let mut said = Vec::new();
            // Without a data file (hail has no `--mond-data`) nothing here
            // can fail.
            let _ = crate::program::mond::apply(cluster, options, &mut said);
            out.stderr.push_str(&String::from_utf8_lossy(&said));
        }
    };

    // With --simulate or -t, the cluster comes from there and only the
    // request is kept (hail's `wrapReadRequest`); --simulate wins.
    let mut index_base = 0;
    let (cluster, request) = if !options.simulate.is_empty() {
        let mut cluster = simulate::load(&options.simulate, options.load.ganeti)
            .map_err(|m| Failure::Input(format!("cannot simulate the cluster: {m}")))?;
        mond(&mut cluster, out);
        index_base = 1;
        let request = rebase::rebase(loaded.request, &loaded.cluster, &mut cluster);
        (cluster, request)
    } else if let Some(file) = data_file {
        let contents = file.contents.as_ref().map_err(|e| {
            Failure::Input(format!(
                "cannot read the cluster data file {:?}: {e}",
                file.name
            ))
        })?;
        let merge_options = MergeOptions {
            ganeti: options.load.ganeti,
            ignore_dynu: options.ignore_dynu,
            ..MergeOptions::default()
        };
        let (mut cluster, warnings) = text::load(&file.name, contents, &merge_options)
            .map_err(|e| Failure::Input(format!("cannot load the cluster data file: {e}")))?;
        mond(&mut cluster, out);
        out.warnings(&warnings);
        let request = rebase::rebase(loaded.request, &loaded.cluster, &mut cluster);
        (cluster, request)
    } else {
        let mut cluster = loaded.cluster;
        mond(&mut cluster, out);
        (cluster, loaded.request)
    };

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
    // The initial state's text, also the final one's when nothing changed.
    let initial = options.save.as_ref().map(|_| {
        let nodes: Vec<&Node> = cluster.nodes.iter().collect();
        crate::write::text::serialize_lists(&cluster, nodes, cluster.instances.iter().collect())
    });
    if let (Some(path), Some(text)) = (&options.save, &initial) {
        out.save(path, "pre-ialloc", "before iallocator run", text.clone());
    }
    rebase::check_indices(&request, &cluster)
        .map_err(|m| Failure::Run(RunError::Inconsistent(m)))?;

    let want_final = fields.is_some() || options.save.is_some();
    let names_and_tags = want_final.then(|| {
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
        )
    });
    let (response, fin) = request::run(
        cluster,
        request,
        &options.algorithm,
        teardown,
        want_final,
        recorder
            .as_mut()
            .map(|(r, ..)| r as &mut dyn request::Observer),
    )
    .map_err(Failure::Run)?;
    let answer = crate::write::iallocator::answer(&response);
    if let Some((recorded, subject, request_type)) = recorder {
        let mut e = explain::explanation(request_type, &answer, recorded);
        e.score_terms = options.verbose > 1;
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
