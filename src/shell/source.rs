//! Where a planner reads its cluster (hbal's `loadExternalData`): RAPI,
//! Luxi, a data file or the cluster of an iallocator request, with the
//! loader's warnings.

use crate::model::Cluster;
use crate::read::json::parse_document;
use crate::read::live;
use crate::read::loader::LoadOptions;
use crate::read::merge::MergeOptions;
use crate::read::{simulate, text};
use crate::shell::datafile;
use crate::shell::exit::{load_failed, open_error, stop, Stop};
use crate::shell::{luxi, rapi};

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
    /// `--simulate SPEC...` (hspace): an empty simulated cluster.
    pub simulate: &'a [String],
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
            simulate: &[],
        }
    }
}

/// Reads the cluster of a planner (`loadExternalData`): from RAPI, else
/// Luxi, else the data file, else the cluster of the iallocator request
/// (as `hail -S` saves it, read once); hspace also simulates a cluster
/// after Luxi; with the loader's warnings. Every reader follows
/// `load.ganeti`'s semantics (`merge`'s own version is not used); on a
/// live KVM cluster a positive `load.static_kvm_node_memory` is every
/// node's reserved memory (data files and requests carry no hypervisor).
pub fn read_cluster(
    sources: Sources<'_>,
    merge: &MergeOptions,
    load: LoadOptions,
) -> Result<(Cluster, Vec<String>), Stop> {
    let merge = &MergeOptions {
        ganeti: load.ganeti,
        ..merge.clone()
    };
    let static_kvm_node_memory = load.static_kvm_node_memory;
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
    if sources.ialloc_src.is_some() && given.contains(&true) {
        // hbal reads the other source and ignores -I without a word.
        return Err(stop(
            "Error: -I (the cluster of an iallocator request) cannot be combined with -m, -L \
             or -t: give one source of the cluster.\n"
                .to_owned(),
        ));
    }
    if let Some(address) = master {
        let live = read_rapi(address).map_err(load_failed)?;
        return Ok(live::load(live, merge, static_kvm_node_memory));
    }
    if let Some(socket) = sources.luxi {
        let live = read_luxi(socket).map_err(load_failed)?;
        return Ok(live::load(live, merge, static_kvm_node_memory));
    }
    if !sources.simulate.is_empty() {
        let cluster = simulate::load(sources.simulate, load.ganeti).map_err(load_failed)?;
        return Ok((cluster, Vec::new()));
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

/// The four RAPI resources of `address` (`Rapi.loadData`), read into a
/// live cluster.
pub(crate) fn read_rapi(address: &str) -> Result<live::Live, String> {
    let fetched = rapi::fetch(address)?;
    match fetched.as_slice() {
        [g, n, i, c] => live::rapi::read([g, n, i, c].map(|f| live::rapi::Body {
            source: &f.source,
            bytes: &f.body,
        }))
        .map_err(|e| e.to_string()),
        _ => Err("RAPI: not every resource was fetched".to_owned()),
    }
}

/// hbal's four Luxi queries on `socket`, read into a live cluster. The
/// first call that fails stops the run (hbal makes all four calls, then
/// reports the first failure in its reading order: groups, nodes,
/// instances, cluster info; the two differ only when several fail).
pub(crate) fn read_luxi(socket: &str) -> Result<live::Live, String> {
    read_luxi_checked(socket).map_err(|e| match e {
        LuxiRead::Unreachable(m) | LuxiRead::Unreadable(m) => m,
    })
}

/// Why a cluster could not be read over Luxi.
#[derive(Debug)]
pub(crate) enum LuxiRead {
    /// The socket could not be reached or the connection failed (what
    /// the htools' runtime reports as an I/O exception).
    Unreachable(String),
    /// A reply could not be read: the master's error, bad JSON, a field.
    Unreadable(String),
}

/// [`read_luxi`], telling a connection that failed from a reply that
/// could not be read (hscan reports them differently).
pub(crate) fn read_luxi_checked(socket: &str) -> Result<live::Live, LuxiRead> {
    let io = |e: luxi::LuxiError| match e {
        luxi::LuxiError::Connect { .. }
        | luxi::LuxiError::Io { .. }
        | luxi::LuxiError::Closed { .. } => LuxiRead::Unreachable(e.to_string()),
        _ => LuxiRead::Unreadable(e.to_string()),
    };
    let mut client = luxi::Client::connect(socket, luxi::DEFAULT_TIMEOUT).map_err(io)?;
    let queries = crate::write::luxi::cluster_queries(&crate::write::luxi::QueryFields {
        node: &live::luxi::NODE_FIELDS,
        instance: &live::luxi::INSTANCE_FIELDS,
        group: &live::luxi::GROUP_FIELDS,
    });
    let mut replies = Vec::with_capacity(queries.len());
    for (name, method, args) in &queries {
        replies.push(client.call(method, args).map_err(|e| match io(e) {
            LuxiRead::Unreachable(m) => LuxiRead::Unreachable(m),
            LuxiRead::Unreadable(m) => LuxiRead::Unreadable(format!("Luxi query \"{name}\": {m}")),
        })?);
    }
    let names = queries.map(|(name, _, _)| name);
    let bytes: Vec<&[u8]> = replies.iter().map(|r| r.bytes()).collect();
    match bytes.as_slice() {
        [n, i, c, g] => luxi_replies([*n, *i, *c, *g], names).map_err(LuxiRead::Unreadable),
        _ => Err(LuxiRead::Unreadable(
            "Luxi: not every query was answered".to_owned(),
        )),
    }
}

/// The live cluster in the four Luxi replies (nodes, instances, cluster
/// info, node groups: each message as the master sent it, without its
/// end byte) to the queries `names`.
pub(crate) fn luxi_replies(replies: [&[u8]; 4], names: [&str; 4]) -> Result<live::Live, String> {
    let mut docs = Vec::with_capacity(replies.len());
    for (reply, name) in replies.iter().zip(names) {
        docs.push(
            parse_document(reply)
                .map_err(|e| format!("Luxi query \"{name}\": malformed reply: {e}"))?,
        );
    }
    let mut results = Vec::with_capacity(docs.len());
    for (doc, name) in docs.iter().zip(names) {
        results.push(live::luxi::envelope(doc).map_err(|e| format!("Luxi query \"{name}\": {e}"))?);
    }
    match results.as_slice() {
        [n, i, c, g] => live::luxi::read([*n, *i, *c, *g]).map_err(|e| e.to_string()),
        _ => Err("Luxi: not every query was answered".to_owned()),
    }
}
