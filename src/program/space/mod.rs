//! `hailstone-space`: hspace's program (`Program/Hspace.hs`) on the
//! capacity searches of [`crate::search::space`]: the cluster is read (a
//! data file, a simulation, a live cluster or a request), its resources
//! printed, and as many instances as fit counted twice: shrinking from the
//! policy's largest instance (tiered), and of the standard size, each
//! phase from the initial cluster; as hspace 3.0.2 prints them, or as
//! `HTS_KEY=value` lines.

pub mod options;

use std::ffi::OsString;
use std::io::Write;

use crate::explain;
use crate::model::instance::{Instance, NO_NODE};
use crate::model::node::Node;
use crate::model::policy::RSpec;
use crate::model::stats::ClusterStats;
use crate::model::types::{DiskTemplate, FailMode};
use crate::model::Cluster;
use crate::read::merge::MergeOptions;
use crate::read::select;
use crate::score::metric;
use crate::search::allocate::{gen_alloc_nodes, AllocNodes, AllocOptions};
use crate::search::globaln1::{self, N1Scope};
use crate::search::request;
use crate::search::space::{self, Allocated, Counter, Engine, SpaceOptions};
use crate::search::state::State;
use crate::shell::exit::{self, stop, Stop};
use crate::shell::source;
use crate::write::nodes::{print_nodes, PrintNodes};
use crate::write::report::space as page;
use crate::write::space::{self as texts, SpecType};
use crate::write::{notes, text};
use options::{Options, PROGRAM};

/// Runs `hailstone-space` with `args` (without `argv[0]`); returns the
/// exit status.
pub fn main(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    exit::main(
        PROGRAM,
        options::COMMAND_LINE.parse_without_arguments(args),
        run,
        out,
        err,
    )
}

/// The loaded cluster (`loadExternalData`) and the loader's warnings
/// printed unless `-q`.
fn load(o: &Options, err: &mut dyn Write) -> Result<Cluster, Stop> {
    let sources = source::Sources {
        simulate: &o.simulate,
        ..source::Sources::of(o, o.master.as_deref())
    };
    let (cluster, warnings) = source::read_cluster(sources, &MergeOptions::default(), o.load)?;
    if o.verbose != 0 {
        err.write_all(notes::warnings(&warnings).as_bytes())?;
    }
    Ok(cluster)
}

/// The statistics of the state's nodes and its score (`totalResources`).
fn stats_of(state: &State) -> ClusterStats {
    ClusterStats::of(
        state.node_keys().map(|k| state.node_at(k)),
        state.score_with(&[]),
    )
}

/// Whether some node has exclusive storage (`haveExclStorage`).
fn exclusive(state: &State) -> bool {
    state.node_keys().any(|k| state.node_at(k).excl_storage)
}

fn run(o: &Options, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), Stop> {
    let keep = o.report.is_some();
    if !o.json {
        let counted = count(o, keep, out, err)?;
        return write_page(o, counted);
    }
    // The document carries the `HTS_*` keys of --machine-readable, typed.
    let mut keys = Vec::new();
    let machine = Options {
        machine_readable: true,
        ..o.clone()
    };
    let counted = count(&machine, keep, &mut keys, err)?;
    let document = crate::write::document::document(
        PROGRAM,
        o.load.ganeti,
        vec![(
            "keys",
            crate::write::document::keys("HTS", &String::from_utf8_lossy(&keys)),
        )],
    );
    out.write_all(document.line().as_bytes())?;
    out.flush()?;
    write_page(o, counted)
}

/// What a count keeps for `--report`'s page.
struct Counted {
    /// The cluster counted (its nodes' status set).
    cluster: Cluster,
    /// The nodes before the phases.
    initial: Vec<Node>,
    template: DiskTemplate,
    spindles: bool,
    model: page::Model,
}

/// `--report`: the page of the count, and with `--allocator-model`
/// hspace's count beside it (counted again, for the page only).
fn write_page(o: &Options, counted: Option<Counted>) -> Result<(), Stop> {
    let (Some(path), Some(counted)) = (&o.report, counted) else {
        return Ok(());
    };
    let mut models = vec![counted.model];
    if o.allocator_model {
        let hspace = Options {
            allocator_model: false,
            machine_readable: true,
            verbose: 0,
            print_nodes: None,
            save: None,
            explain: None,
            ..o.clone()
        };
        let sink = &mut std::io::sink();
        match count(&hspace, true, &mut std::io::sink(), sink) {
            Ok(Some(other)) => models.push(other.model),
            Ok(None) => {}
            // hspace's count can fail where the allocator's does not (no
            // online node in the groups it takes): the page says so.
            Err(e) => models.push(page::Model {
                key: "hspace",
                phases: Vec::new(),
                failed: Some(e.message.trim().to_owned()),
            }),
        }
    }
    let initial: Vec<&Node> = counted.initial.iter().collect();
    let text = page::page(&page::SpaceReport {
        program: PROGRAM,
        template: counted.template,
        tags: &counted.cluster.tags,
        spindles: counted.spindles,
        initial: &initial,
        existing: counted.cluster.instances.len(),
        models,
    });
    exit::write_own_file("report", path, &text)
}

/// The count: its text (or keys) on `out`; with `keep`, what the page
/// shows.
fn count(
    o: &Options,
    keep: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Option<Counted>, Stop> {
    let fixed = load(o, err)?;
    let mut cluster = fixed.clone();
    select::set_node_status(&mut cluster, &o.offline, o.max_cpu, o.min_disk)
        .map_err(|wrong| stop(crate::write::balance::wrong_offline(&wrong)))?;
    let Some(&cluster_template) = cluster.ipolicy.disk_templates.first() else {
        return Err(stop(
            "Error: null list of disk templates received from cluster\n".to_owned(),
        ));
    };
    let template = o.disk_template.unwrap_or(cluster_template);
    let required = if template == DiskTemplate::Drbd { 2 } else { 1 };
    let spindle_use = o.spindle_use.unwrap_or(cluster.ipolicy.std.spindle_use);
    if o.verbose > 1 {
        err.write_all(notes::suffix(&fixed).as_bytes())?;
    }
    let fields = o.print_nodes.as_ref().map(PrintNodes::fields);
    let node_table = |state: &State, heading: &str, err: &mut dyn Write| -> Result<(), Stop> {
        if let Some(fields) = &fields {
            let nodes: Vec<_> = state.node_keys().map(|k| state.node_at(k)).collect();
            let table = print_nodes(&nodes, fields, &cluster.tags, 0);
            err.write_all(notes::node_table(heading, &table).as_bytes())?;
        }
        Ok(())
    };
    let mut state = State::new(&cluster);
    node_table(&state, "Initial cluster", err)?;
    if o.verbose > 2 {
        let components = metric::components(state.statistics());
        let text = crate::write::balance::initial_score(state.score_with(&[]), &components, 3);
        err.write_all(text.as_bytes())?;
    }
    let initial = stats_of(&state);
    let spindles = exclusive(&state);
    let nodes_now = |state: &State| -> Vec<Node> {
        if keep {
            state
                .node_keys()
                .map(|k| state.node_at(k).clone())
                .collect()
        } else {
            Vec::new()
        }
    };
    let initial_nodes = nodes_now(&state);
    out.write_all(
        texts::cluster(o.audience(), &initial, cluster.nodes.len(), spindles).as_bytes(),
    )?;

    // The groups that take instances, and whether to stop at once.
    let plan = Plan::of(o, &cluster, &mut state)?;
    if o.verbose > 3 {
        err.write_all(plan.verbose_text(&cluster).as_bytes())?;
    }
    let nodes = plan.alloc_nodes(&state, required)?;
    if o.verbose > 3 {
        err.write_all(texts::alloc_nodes(&nodes).as_bytes())?;
    }
    let engine = if o.allocator_model {
        Engine::Allocator {
            groups: &cluster.groups,
            dedicated: request::is_dedicated(&cluster, None),
        }
    } else {
        Engine::Hspace
    };
    let opts = SpaceOptions {
        alloc: AllocOptions {
            soft: o.algorithm.soft,
            capacity_checks: o.algorithm.capacity_checks,
            // The allocator's N+1 check looks at every node.
            n1_scope: if o.allocator_model {
                N1Scope::default()
            } else {
                plan.scope.clone()
            },
            explain: o.explain.is_some(),
            ..AllocOptions::default()
        },
        engine,
        count: required,
    };
    let mut counter = Counter::new(opts);
    let shape = |spec: &RSpec| {
        let inst = spec.instance(template, spindle_use);
        if o.allocator_model {
            space::as_requested(inst)
        } else {
            inst
        }
    };
    let limit = (o.max_length != -1).then_some(o.max_length);

    // The tiered allocation.
    let tspecs: Vec<RSpec> = match o.tiered_spec {
        Some(t) => vec![t],
        None => cluster
            .ipolicy
            .minmax
            .iter()
            .map(|mm| RSpec::from_ispec(&mm.max))
            .collect(),
    };
    let Some(&tspec) = tspecs.first() else {
        return Err(stop(
            "Error: Empty list of specs received from the cluster\n".to_owned(),
        ));
    };
    let phase = Phase {
        o,
        fixed: &fixed,
        template,
        node_table: &node_table,
    };
    // hspace stops before it starts on a cluster failing N+1; the
    // allocator refuses every instance there on its own.
    let stopping = plan.stop && !o.allocator_model;
    // A phase as the page shows it, from the state it ended with.
    let ended = |name, state: &State, reasons, placed: Vec<Instance>| page::Phase {
        name,
        after: nodes_now(state),
        reasons,
        explanation: None,
        stopped_before: stopping,
        at_limit: limit.is_some_and(|n| n <= placed.len() as i64),
        placed,
    };
    let cp = state.checkpoint();
    let mut tiered = Allocated::default();
    if !stopping {
        for spec in &tspecs {
            if limit.is_some_and(|n| n <= tiered.placed.len() as i64) {
                break;
            }
            let left = limit.map(|n| n - tiered.placed.len() as i64);
            counter
                .tiered(&mut state, &shape(spec), &nodes, left, &mut tiered)
                .map_err(failed)?;
        }
    }
    phase.report(&state, &tiered, tspec, SpecType::Tiered, out, err)?;
    let trl = stats_of(&state);
    let specs: Vec<RSpec> = tiered.placed.iter().map(RSpec::of).collect();
    let reasons = plan.reasons(&tiered, stopping);
    let text = texts::tiered(
        o.audience(),
        &texts::spec_map(&specs),
        &initial,
        &trl,
        &reasons,
        spindles,
        exclusive(&state),
    );
    out.write_all(text.as_bytes())?;
    // What stopped a phase, for --explain, on the state the phase left.
    let (engine, alloc) = (counter.opts.engine, counter.opts.alloc.clone());
    let phase_stop = |name, state: &mut State, done: &Allocated, reasons: &[(FailMode, u64)]| {
        explain::space::phase_stop(
            name,
            &engine,
            &cluster.tags,
            &alloc,
            state,
            done,
            required,
            reasons,
        )
        .map_err(|c| stop(format!("Error: {}\n", c.0)))
    };
    let mut stops = Vec::new();
    if o.explain.is_some() {
        stops.push(phase_stop("tiered", &mut state, &tiered, &reasons)?);
    }
    let mut phases = Vec::new();
    if keep {
        phases.push(ended(
            "tiered",
            &state,
            reasons,
            std::mem::take(&mut tiered.placed),
        ));
    }
    counter.rollback(&mut state, cp);

    // The standard allocation, from the initial cluster.
    let ispec = o
        .std_spec
        .unwrap_or_else(|| RSpec::from_ispec(&cluster.ipolicy.std));
    let mut standard = Allocated::default();
    if !stopping {
        counter
            .iterate(&mut state, &shape(&ispec), &nodes, limit, &mut standard)
            .map_err(failed)?;
    }
    phase.report(&state, &standard, ispec, SpecType::Normal, out, err)?;
    let fin = stats_of(&state);
    // hspace's count of the instances (`Container.size`) holds the
    // forthcoming ones, which no node's list (`csNinst`) holds:
    // --machine-readable dies on such a cluster as hspace does; --json,
    // hailstone's own document, counts the instances as the nodes do.
    let existing = if o.json {
        cluster.instances.iter().filter(|i| !i.forthcoming).count()
    } else {
        cluster.instances.len()
    };
    if o.machine_readable && existing + standard.placed.len() != fin.ninst {
        return Err(stop(format!(
            "Error: internal inconsistency, allocated ({}) != counted ({})\n\n",
            existing + standard.placed.len(),
            fin.ninst
        )));
    }
    let reasons = plan.reasons(&standard, stopping);
    let text = texts::standard(
        o.audience(),
        &initial,
        &fin,
        existing,
        standard.placed.len(),
        &reasons,
        exclusive(&state),
    );
    out.write_all(text.as_bytes())?;
    out.write_all(texts::final_ok(o.audience()).as_bytes())?;
    if let Some(to) = &o.explain {
        stops.push(phase_stop("standard", &mut state, &standard, &reasons)?);
        let text = explain::space::render(&stops, o.explain_format);
        exit::write_explanation(to, &text, err)?;
    }
    out.flush()?;
    if !keep {
        return Ok(None);
    }
    phases.push(ended("standard", &state, reasons, standard.placed));
    for (phase, stop) in phases.iter_mut().zip(&stops) {
        phase.explanation = Some(explain::render::render(
            &stop.explanation,
            explain::Format::Text,
        ));
    }
    Ok(Some(Counted {
        cluster,
        initial: initial_nodes,
        template,
        spindles,
        model: page::Model {
            key: if o.allocator_model {
                "allocator"
            } else {
                "hspace"
            },
            phases,
            failed: None,
        },
    }))
}

/// `exitIfBad "failure during allocation"`.
fn failed(message: String) -> Stop {
    stop(format!("Error: failure during allocation: {message}\n"))
}

/// Which groups take instances, which the N+1 check leaves out, and
/// whether the allocations stop before they start (`Hspace.main`).
struct Plan {
    /// Each group's allocation policy allows it (`gl''`).
    allocable: Vec<bool>,
    /// The online nodes failing N+1 (`computeBadItems`).
    bad_nodes: Vec<usize>,
    /// The groups that are not N+1 redundant, when they were needed.
    bad_groups: Option<Vec<usize>>,
    /// The N+1 check's scope.
    scope: N1Scope,
    /// The allocations do not run: N+1 failures exist and are not
    /// accepted.
    stop: bool,
}

impl Plan {
    fn of(o: &Options, cluster: &Cluster, state: &mut State) -> Result<Plan, Stop> {
        let bad_nodes: Vec<usize> = state
            .node_keys()
            .filter(|&k| {
                let n = state.node_at(k);
                !n.offline && n.fail_n1
            })
            .collect();
        let check = N1Scope {
            ignore_groups: Vec::new(),
            skip_offline: o.accept_existing,
        };
        // `redundantGrp` for each group, when it is read.
        let bad_groups = if o.verbose > 3 || o.independent_groups {
            let mut bad = Vec::new();
            for g in 0..cluster.groups.len() {
                let others: Vec<usize> = (0..cluster.groups.len()).filter(|&x| x != g).collect();
                let scope = N1Scope {
                    ignore_groups: others,
                    ..check.clone()
                };
                if !globaln1::redundant(state, &scope)
                    .map_err(|c| stop(format!("Error: {}\n", c.0)))?
                {
                    bad.push(g);
                }
            }
            Some(bad)
        } else {
            None
        };
        let mut allocable: Vec<bool> = cluster.groups.iter().map(|g| g.is_allocable()).collect();
        if !o.accept_existing {
            for &k in &bad_nodes {
                allocable[state.node_at(k).group] = false;
            }
        }
        let mut scope = check;
        if o.independent_groups {
            let bad = bad_groups.clone().unwrap_or_default();
            for &g in &bad {
                allocable[g] = false;
            }
            scope.ignore_groups = bad;
        }
        let remaining = allocable.iter().any(|&a| a);
        let stop =
            !(o.accept_existing || (o.independent_groups && remaining) || bad_nodes.is_empty());
        Ok(Plan {
            allocable,
            bad_nodes,
            bad_groups,
            scope,
            stop,
        })
    }

    /// A phase's failure reasons, most frequent first: one N+1 failure
    /// when the allocations did not run.
    fn reasons(&self, done: &Allocated, stopping: bool) -> Vec<(FailMode, u64)> {
        if stopping {
            vec![(FailMode::N1, 1)]
        } else {
            texts::sorted_reasons(&done.failures.counts)
        }
    }

    /// The verbose lines on the bad nodes and groups (`-v -v -v -v`).
    fn verbose_text(&self, cluster: &Cluster) -> String {
        let mut text = String::new();
        if !self.bad_nodes.is_empty() {
            let names: Vec<&str> = self
                .bad_nodes
                .iter()
                .map(|&k| cluster.nodes[k].info.name.as_str())
                .collect();
            text.push_str(&format!(
                "Bad nodes: {}\n",
                crate::haskell::show::show_string_list(&names)
            ));
        }
        if let Some(bad) = self.bad_groups.as_ref().filter(|b| !b.is_empty()) {
            let names: Vec<&str> = bad
                .iter()
                .map(|&g| cluster.groups[g].name.as_str())
                .collect();
            text.push_str(&format!(
                "Bad groups: {}\n",
                crate::haskell::show::show_string_list(&names)
            ));
        }
        text
    }

    /// `genAllocNodes` over the online nodes of the groups that take
    /// instances.
    fn alloc_nodes(&self, state: &State, required: i64) -> Result<AllocNodes, Stop> {
        let keys: Vec<usize> = state
            .node_keys()
            .filter(|&k| self.allocable[state.node_at(k).group])
            .collect();
        gen_alloc_nodes(state, &keys, required, None).map_err(|e| match e {
            crate::search::allocate::SearchError::Message(m) => failed(m),
            crate::search::allocate::SearchError::Crash(c) => failed(c.0),
        })
    }
}

/// Prints `-p`'s node table of a state under a heading.
type NodeTable<'a> = dyn Fn(&State, &str, &mut dyn Write) -> Result<(), Stop> + 'a;

/// What every phase prints and saves (`runAllocation`).
struct Phase<'a> {
    o: &'a Options,
    fixed: &'a Cluster,
    template: DiskTemplate,
    node_table: &'a NodeTable<'a>,
}

impl Phase<'_> {
    /// The spec, the allocation map (`-v -v`), the node table (`-p`) and
    /// the saved state (`-S`) after a phase.
    fn report(
        &self,
        state: &State,
        done: &Allocated,
        spec: RSpec,
        kind: SpecType,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<(), Stop> {
        let name = match kind {
            SpecType::Tiered => "Tiered",
            SpecType::Normal => "Standard",
        };
        let spindles = exclusive(state);
        let text = texts::spec(self.o.audience(), &spec, kind, self.template, spindles);
        out.write_all(text.as_bytes())?;
        let descr = format!("{name} allocation");
        if self.o.verbose > 1 {
            let rows: Vec<[String; 7]> = done
                .placed
                .iter()
                .map(|i| map_row(state, i, spindles))
                .collect();
            err.write_all(texts::allocation_map(&descr, &rows).as_bytes())?;
        }
        (self.node_table)(state, &descr, err)?;
        if let Some(path) = &self.o.save {
            let nodes: Vec<_> = state.node_keys().map(|k| state.node_at(k)).collect();
            let insts: Vec<&Instance> = state.instances().collect();
            let data = text::serialize_lists(self.fixed, nodes, insts);
            let what = format!("after {}", descr.to_lowercase());
            out.flush()?;
            exit::save_state(PROGRAM, path, &name.to_lowercase(), &what, &data, err)?;
        }
        Ok(())
    }
}

/// One row of the allocation map (`printInstance`).
fn map_row(state: &State, i: &Instance, spindles: bool) -> [String; 7] {
    let name = |k: i32| {
        state
            .node(k)
            .map_or_else(|_| String::new(), |n| n.info.name.clone())
    };
    [
        i.name.to_string(),
        name(i.p_node),
        if i.s_node == NO_NODE {
            String::new()
        } else {
            name(i.s_node)
        },
        i.mem.to_string(),
        i.dsk.to_string(),
        i.vcpus.to_string(),
        if spindles {
            i.total_spindles()
                .map_or_else(|| "?".to_owned(), |s| s.to_string())
        } else {
            String::new()
        },
    ]
}
