//! Reading a large request on two threads: the later part of the input
//! (the later instances, and the nodes when they come after the
//! instances) is read on a second thread while the parser reads up to it,
//! and taken over only where the parser arrives exactly where the second
//! thread began.
//!
//! The loader ([`crate::read::loader`]) starts the second thread
//! ([`start`]). It picks a likely start of an instance member near a
//! point of the input ([`choose`]) and reads from there
//! ([`read_instances`]): it parses the members to the end of their object
//! ([`json::parse_members_from`]), reads each as an instance and builds it
//! into the model with its node names kept, as the loader does for
//! instances that come before the nodes. The parse of the whole request
//! is asked at that position ([`json::Streamer::split`]); when it is there
//! between two members of the instances object it is streaming, it takes
//! the second thread's instances in order (resolving their nodes as it
//! would have one by one) and goes on after the object. Anywhere else
//! (the guess fell inside a string, in another object, or the instances
//! are not streamed) it reads on itself.
//!
//! When the instances come first (keys in alphabetical order), the nodes
//! follow them. The second thread then goes on past the instances to the
//! nodes object ([`find_nodes`]) and reads its members from the second on
//! ([`read_nodes`]), each node built with its group's UUID kept; the
//! parse, arriving at that member of the nodes object it is streaming,
//! looks the groups up and takes the nodes in order with the errors it
//! would have given one by one. Whatever the parse does not take is
//! dropped when it ends (the second thread is told to stop).
//!
//! Parsing from a known position in a known state gives the same tokens
//! and errors whoever does it, so the answer, every error and its position
//! are those of the one-thread reading (the loader's tests split every
//! protocol sample at each of its quotes, in both key orders, valid and
//! damaged, and compare with a reading of the whole parsed document).
//! Only the speed depends on the guess. The second thread chooses its
//! position when it starts (threads can start milliseconds late), half way
//! through what the parse has left of the input: the second thread's part
//! runs to the end of the instances when they come last, as a Ganeti
//! master writes them, and through the nodes when the instances come
//! first.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::thread::{Scope, ScopedJoinHandle};

use crate::model::instance::{Instance, NO_NODE};
use crate::model::node::Node;
use crate::read::build::{build_instance, build_node, Unresolved};
use crate::read::iallocator::{self, InputError, Path, WireInstance, WireNode};
use crate::read::json::{self, MemberSink, ParseError, Scan, SplitPoint, Value};
use crate::read::merge::Empties;

/// Requests smaller than this are read on one thread: starting a thread
/// costs more than it could save.
pub(crate) const MIN_INPUT: usize = 512 * 1024;

/// The least the second thread takes on: less is not worth its start.
const MIN_TAIL: usize = 128 * 1024;

/// How far past the chosen point a member start is looked for.
const SEARCH_LIMIT: usize = 64 * 1024;

/// The open containers around an instance or node member: the request's
/// object and the instances or nodes object.
const MEMBER_DEPTH: usize = 2;

/// The [`SplitPoint`] slots: where the second thread began in the
/// instances and in the nodes.
const INSTANCES: usize = 0;
const NODES: usize = 1;

/// What the parse and the second thread share.
#[derive(Default)]
pub(crate) struct Link {
    /// Where the second thread began, and how far the parse has come.
    pub(crate) point: SplitPoint,
    /// The parse no longer needs the second thread.
    stop: AtomicBool,
}

impl Link {
    /// Tells the second thread to stop.
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The instances read on the second thread, from the split position to
/// the end of the instances object.
pub(crate) struct Tail {
    /// In input order, indexed from 0, their nodes not yet resolved.
    pub(crate) instances: Vec<Instance>,
    /// Their node names, one entry per instance.
    pub(crate) unresolved: Unresolved,
    /// The first instance that could not be read: it and the members
    /// after it are not in `instances`.
    pub(crate) error: Option<InputError>,
    /// The position after the instances object, or the parse error met.
    pub(crate) end: Result<usize, ParseError>,
}

/// The nodes read on the second thread, from the split position to the
/// end of the nodes object.
pub(crate) struct NodeTail {
    /// In input order, indexed from 0; each node's `group` indexes
    /// `groups`.
    pub(crate) nodes: Vec<Node>,
    /// The group UUIDs the nodes name, each once.
    pub(crate) groups: Vec<String>,
    /// The first node that could not be read: it and the members after it
    /// are not in `nodes`.
    pub(crate) error: Option<InputError>,
    /// The position after the nodes object, or the parse error met.
    pub(crate) end: Result<usize, ParseError>,
}

/// The second thread.
pub(crate) struct Running<'scope> {
    link: &'scope Link,
    /// Its instances, sent as soon as they are read (or nothing, when it
    /// read none).
    instances: Receiver<Option<Tail>>,
    /// Its nodes, when it is joined; `None` once joined.
    handle: Option<ScopedJoinHandle<'scope, Option<NodeTail>>>,
}

impl Running<'_> {
    /// The second thread's instances, if it began in the instances at
    /// `at` (waiting for them). `None` when it began elsewhere or read
    /// none there; asked again, `None`.
    pub(crate) fn instances(&mut self, at: usize) -> Option<Tail> {
        if self.link.point.chosen(INSTANCES) != Some(at) {
            return None;
        }
        self.instances.recv().ok().flatten()
    }

    /// The second thread's nodes, if it began in the nodes at `at`
    /// (waiting for them). `None` when it began elsewhere or read none
    /// there; asked again, `None`.
    pub(crate) fn nodes(&mut self, at: usize) -> Option<NodeTail> {
        if self.link.point.chosen(NODES) != Some(at) {
            return None;
        }
        self.handle.take()?.join().ok().flatten()
    }
}

impl Drop for Running<'_> {
    /// Tells the second thread to stop: its work is not wanted (the scope
    /// joins it).
    fn drop(&mut self) {
        self.link.stop();
    }
}

/// Where the second thread begins.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Plan {
    /// It chooses, from how far the parse has come when it runs.
    Choose,
    /// At these positions in the instances and then in the nodes, whatever
    /// the input (for tests). Without a position in the instances it reads
    /// only the nodes; without one in the nodes it looks for them after
    /// the instances, as with [`Plan::Choose`].
    #[cfg_attr(not(test), allow(dead_code))]
    At {
        instances: Option<usize>,
        nodes: Option<usize>,
    },
}

/// Starts the second thread on `input` in `scope` (with [`Plan::Choose`]
/// only if the input is large enough); it tells the parse where it began
/// through `link`.
pub(crate) fn start<'scope>(
    scope: &'scope Scope<'scope, '_>,
    input: &'scope [u8],
    link: &'scope Link,
    plan: Plan,
) -> Option<Running<'scope>> {
    if matches!(plan, Plan::Choose) && (input.len() < MIN_INPUT || crate::threads::available() < 2)
    {
        return None;
    }
    // The processor the parse runs on, which the second thread leaves.
    let parse_on = processor::current();
    if let Plan::At { instances, nodes } = plan {
        // Chosen before the parse can pass them.
        if let Some(at) = instances {
            link.point.choose(INSTANCES, at);
        }
        if let Some(at) = nodes {
            link.point.choose(NODES, at);
        }
    }
    let (send, instances) = mpsc::sync_channel(1);
    let handle = std::thread::Builder::new()
        .name("hailstone-split".to_owned())
        .spawn_scoped(scope, move || {
            let (at, nodes_at) = match plan {
                Plan::Choose => {
                    if !processor::leave(parse_on) {
                        // One processor for both: the split would only
                        // slow the parse.
                        return None;
                    }
                    let at = choose(input, link.point.reached())?;
                    link.point.choose(INSTANCES, at);
                    (Some(at), None)
                }
                Plan::At { instances, nodes } => (instances, nodes),
            };
            let tail = at.and_then(|at| guarded(|| read_instances(input, at, &link.stop)));
            let end = tail.as_ref().and_then(|t| t.end.as_ref().ok().copied());
            // Where the nodes are read is chosen before the parse, waiting
            // for the instances, can pass it.
            let nodes_at = nodes_at.or_else(|| {
                let at = guarded(|| find_nodes(input, end?))?;
                link.point.choose(NODES, at);
                Some(at)
            });
            // A parse that has ended no longer listens.
            let _ = send.send(tail);
            guarded(|| read_nodes(input, nodes_at?, &link.stop))
        })
        .ok()?;
    Some(Running {
        link,
        instances,
        handle: Some(handle),
    })
}

/// `read`'s result, or `None` if it panics (the one-thread reading then
/// reads on and finds what it failed on).
fn guarded<T>(read: impl FnOnce() -> Option<T>) -> Option<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(read))
        .ok()
        .flatten()
}

/// The split position, the parse having reached `reached`: a likely start
/// of a member half way through what the parse has left of the input, so
/// that both threads have about as much to read (the second thread's part
/// runs to the end of the instances, then through the nodes when they
/// follow).
pub(crate) fn choose(input: &[u8], reached: usize) -> Option<usize> {
    let left = input.len().checked_sub(reached)?;
    if left < 2 * MIN_TAIL {
        return None;
    }
    json::member_start_near(input, reached + left / 2, SEARCH_LIMIT)
}

/// Reads the members of the object around `at` (an instance or node
/// member) from there to its end, each into `sink`: the position
/// after the object or the parse error, `None` when told to stop.
fn read_members(
    input: &[u8],
    at: usize,
    stop: &AtomicBool,
    sink: &mut dyn MemberSink,
) -> Option<Result<usize, ParseError>> {
    let end = json::parse_members_from(
        input,
        at,
        MEMBER_DEPTH,
        &|| stop.load(Ordering::Relaxed),
        sink,
    );
    match end {
        Ok(None) => None,
        Ok(Some(end)) => Some(Ok(end)),
        Err(e) => Some(Err(e)),
    }
}

/// Reads the instance members from `at` to the end of their object, on
/// the second thread. `None` when told to stop.
pub(crate) fn read_instances(input: &[u8], at: usize, stop: &AtomicBool) -> Option<Tail> {
    let mut reader = Members {
        built: Instances {
            empty: Empties::new(),
            instances: Vec::new(),
            unresolved: Unresolved::default(),
        },
        error: None,
    };
    let end = read_members(input, at, stop, &mut reader)?;
    Some(Tail {
        instances: reader.built.instances,
        unresolved: reader.built.unresolved,
        error: reader.error,
        end,
    })
}

/// What the second thread builds from each member it reads: its wire
/// values, read straight from the input or from the parsed member as the
/// loader reads them, then built into the model.
trait Build {
    type Wire<'a>;
    /// The request's member the objects are read from.
    const SECTION: &'static str;
    /// [`MemberSink::fast`]'s reading.
    fn scan<'a>(scan: &mut Scan<'a>) -> Option<(&'a str, Self::Wire<'a>)>;
    /// The reading of a parsed member.
    fn read<'d>(value: Value<'d>, path: &Path) -> Result<Self::Wire<'d>, InputError>;
    /// Builds the member read.
    fn take(&mut self, name: &str, wire: &Self::Wire<'_>);
}

/// Reads the members handed over into `built`, up to the first that
/// cannot be read (its error kept; later members are only parsed).
struct Members<B> {
    built: B,
    error: Option<InputError>,
}

impl<B: Build> MemberSink for Members<B> {
    fn fast(&mut self, mut scan: Scan<'_>) -> Option<usize> {
        if self.error.is_some() {
            return None;
        }
        let (name, wire) = B::scan(&mut scan)?;
        self.built.take(name, &wire);
        Some(scan.pos())
    }

    fn member(&mut self, name: &str, value: Value<'_>) {
        if self.error.is_some() {
            return;
        }
        match B::read(value, &Path::ROOT.field(B::SECTION).name(name)) {
            Ok(wire) => self.built.take(name, &wire),
            Err(e) => self.error = Some(e),
        }
    }
}

/// The second thread's instances, built as the loader builds those that
/// come before the nodes.
struct Instances {
    empty: Empties,
    instances: Vec<Instance>,
    unresolved: Unresolved,
}

impl Build for Instances {
    type Wire<'a> = WireInstance<'a>;
    const SECTION: &'static str = "instances";

    fn scan<'a>(scan: &mut Scan<'a>) -> Option<(&'a str, WireInstance<'a>)> {
        iallocator::scan_instance(scan)
    }

    fn read<'d>(value: Value<'d>, path: &Path) -> Result<WireInstance<'d>, InputError> {
        iallocator::read_instance(value, path)
    }

    fn take(&mut self, name: &str, wi: &WireInstance<'_>) {
        let idx = self.instances.len() as i32;
        let inst = build_instance(&self.empty, name, &wi.body, idx, NO_NODE, NO_NODE);
        self.instances.push(inst);
        self.unresolved.keep(wi);
    }
}

/// The start of the second member of the `"nodes"` object among the
/// request's members after the instances object, which ends at `end`:
/// the members before it read past as the parse reads them. `None` when
/// there is none (the instances come last, or the nodes have fewer than
/// two members) or the text is not of the usual shape (the parse then
/// reads all the nodes).
fn find_nodes(input: &[u8], end: usize) -> Option<usize> {
    let found = json::scan_ahead(input, end, |scan| {
        loop {
            if !scan.eat(b',') {
                return None;
            }
            let key = scan.key()?;
            if !scan.eat(b':') {
                return None;
            }
            if key != b"nodes" {
                scan.skip()?;
                continue;
            }
            // The first node, read past as the parse reads it straight
            // from the input; then the second's key.
            if !scan.eat(b'{') {
                return None;
            }
            iallocator::scan_node(scan)?;
            if !scan.eat(b',') || scan.peek() != Some(b'"') {
                return None;
            }
            return Some(scan.pos());
        }
    })?;
    Some(end + found)
}

/// Reads the node members from `at` to the end of their object, on the
/// second thread. `None` when told to stop.
pub(crate) fn read_nodes(input: &[u8], at: usize, stop: &AtomicBool) -> Option<NodeTail> {
    let mut reader = Members {
        built: Nodes {
            nodes: Vec::new(),
            groups: BTreeMap::new(),
        },
        error: None,
    };
    let end = read_members(input, at, stop, &mut reader)?;
    let mut groups = vec![String::new(); reader.built.groups.len()];
    for (uuid, k) in reader.built.groups {
        if let Some(slot) = groups.get_mut(k) {
            *slot = uuid;
        }
    }
    Some(NodeTail {
        nodes: reader.built.nodes,
        groups,
        error: reader.error,
        end,
    })
}

/// The second thread's nodes, each with the index of its group's UUID in
/// the order they were first named.
struct Nodes {
    nodes: Vec<Node>,
    groups: BTreeMap<String, usize>,
}

impl Build for Nodes {
    type Wire<'a> = WireNode<'a>;
    const SECTION: &'static str = "nodes";

    fn scan<'a>(scan: &mut Scan<'a>) -> Option<(&'a str, WireNode<'a>)> {
        iallocator::scan_node(scan)
    }

    fn read<'d>(value: Value<'d>, path: &Path) -> Result<WireNode<'d>, InputError> {
        iallocator::read_node(value, path)
    }

    fn take(&mut self, name: &str, wn: &WireNode<'_>) {
        let next = self.groups.len();
        let group = match self.groups.get(wn.group) {
            Some(&k) => k,
            None => *self.groups.entry(wn.group.to_owned()).or_insert(next),
        };
        let idx = self.nodes.len();
        self.nodes.push(build_node(name, wn, idx, group));
    }
}

/// Where the second thread runs. Linux starts a new thread on the
/// processor of the thread that starts it, where it takes the processor
/// from the parse until the scheduler moves one of them, milliseconds
/// later, and the split can then read slower than one thread; moved
/// away at once, it reads faster. What that buys today is measured by
/// `make bench-deps` (docs/performance.md, "Hand-written dependencies").
mod processor {
    /// A processor set as the C library's `cpu_set_t` holds it: bit `k`
    /// of word `k / WORD_BITS` is processor `k` (1,024 processors).
    #[cfg(target_os = "linux")]
    type Set = [libc::c_ulong; SET_WORDS];

    #[cfg(target_os = "linux")]
    const WORD_BITS: usize = libc::c_ulong::BITS as usize;

    #[cfg(target_os = "linux")]
    const SET_WORDS: usize = std::mem::size_of::<libc::cpu_set_t>() / (WORD_BITS / 8);

    // `Set` is `cpu_set_t`'s size, and aligned at least as strictly.
    #[cfg(target_os = "linux")]
    const _: () = assert!(
        std::mem::size_of::<Set>() == std::mem::size_of::<libc::cpu_set_t>()
            && std::mem::align_of::<Set>() >= std::mem::align_of::<libc::cpu_set_t>()
    );

    /// The processor the calling thread runs on, if known.
    #[cfg(target_os = "linux")]
    pub(super) fn current() -> Option<usize> {
        // SAFETY: `sched_getcpu` takes no arguments and only returns a
        // number (-1 on failure).
        usize::try_from(unsafe { libc::sched_getcpu() }).ok()
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) fn current() -> Option<usize> {
        None
    }

    /// Moves the calling thread off processor `cpu` (to the others it may
    /// run on). Whether it now runs elsewhere or may (false: `cpu` is the
    /// only processor it may use).
    #[cfg(target_os = "linux")]
    pub(super) fn leave(cpu: Option<usize>) -> bool {
        let size = std::mem::size_of::<Set>();
        let Some(cpu) = cpu.filter(|&c| c < size * 8) else {
            return true;
        };
        let mut set: Set = [0; SET_WORDS];
        // SAFETY: `set` is a writable buffer of `size` bytes, the size
        // passed, laid out and aligned as a `cpu_set_t` (checked above);
        // pid 0 is the calling thread.
        let got =
            unsafe { libc::sched_getaffinity(0, size, set.as_mut_ptr().cast::<libc::cpu_set_t>()) };
        if got != 0 {
            return true;
        }
        if let Some(word) = set.get_mut(cpu / WORD_BITS) {
            *word &= !(1 << (cpu % WORD_BITS));
        }
        if set.iter().all(|&w| w == 0) {
            return false;
        }
        // SAFETY: `set` is a readable buffer of `size` bytes, the size
        // passed, laid out and aligned as a `cpu_set_t`; pid 0 is the
        // calling thread. A failure leaves the thread where it is.
        unsafe { libc::sched_setaffinity(0, size, set.as_ptr().cast::<libc::cpu_set_t>()) };
        true
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) fn leave(_cpu: Option<usize>) -> bool {
        true
    }

    #[cfg(all(test, target_os = "linux"))]
    mod tests {
        use super::*;

        /// The calling thread leaves its processor: afterwards the
        /// processor is out of its set, unless it was the only one.
        #[test]
        fn a_thread_leaves_its_processor() {
            std::thread::spawn(|| {
                // Miri has no `sched_getcpu`: processor 0 stands in.
                let here = if cfg!(miri) { Some(0) } else { current() };
                let moved = leave(here);
                let mut set: Set = [0; SET_WORDS];
                let size = std::mem::size_of::<Set>();
                // SAFETY: as in `leave`.
                let got = unsafe {
                    libc::sched_getaffinity(0, size, set.as_mut_ptr().cast::<libc::cpu_set_t>())
                };
                assert_eq!(got, 0);
                let allowed = |cpu: usize| set[cpu / WORD_BITS] & (1 << (cpu % WORD_BITS)) != 0;
                match here {
                    Some(cpu) if moved => assert!(!allowed(cpu)),
                    Some(cpu) => assert!(allowed(cpu)),
                    None => assert!(moved),
                }
                // Out-of-range processors are left alone.
                assert!(leave(Some(size * 8)));
                assert!(leave(None));
            })
            .join()
            .unwrap();
        }
    }
}
