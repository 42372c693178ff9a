//! Reading a large request on two threads: the later part of the
//! instances object is read on a second thread while the parser reads up
//! to it, and taken over only if the parser arrives exactly where the
//! second thread began.
//!
//! The loader ([`crate::read::loader`]) picks a likely start of an instance
//! member near a point of the input ([`choose`]) and starts [`read_tail`]
//! there: it parses the members from that point to the end of their
//! object ([`json::parse_members_from`]), reads each as an instance and
//! builds it into the model with its node names kept, as the loader does
//! for instances that come before the nodes. The parse of the whole
//! request is asked at that position ([`json::Streamer::split`]); when it
//! is there between two members of the instances object it is streaming,
//! it takes the second thread's instances in order (resolving their nodes
//! as it would have one by one) and goes on after the object. Anywhere
//! else (the guess fell inside a string, in another object, or the
//! instances are not streamed) the second thread is told to stop and its
//! work is dropped.
//!
//! Parsing from a known position in a known state gives the same tokens
//! and errors whoever does it, so the answer, every error and its position
//! are those of the one-thread reading (the loader's tests split every
//! protocol sample at each of its quotes, valid and damaged, and compare
//! with a reading of the whole parsed document). Only the speed depends on
//! the guess. The second thread chooses the position when it starts
//! (threads can start milliseconds late), half way through what the parse
//! has left of the instances: up to the end of the input when they come
//! last, as a Ganeti master writes them, or up to about four fifths of it
//! when they come first (keys in alphabetical order), as the parse still
//! has the nodes to read after them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{Scope, ScopedJoinHandle};

use crate::model::instance::{Instance, NO_NODE};
use crate::read::iallocator::{self, InputError, Path, WireInstance};
use crate::read::json::{self, MemberSink, ParseError, Scan, SplitPoint, Value};
use crate::read::loader::{build_instance, Unresolved};
use crate::read::merge::Empties;

/// Requests smaller than this are read on one thread: starting a thread
/// costs more than it could save.
pub(crate) const MIN_INPUT: usize = 512 * 1024;

/// The least the second thread takes on: less is not worth its start.
const MIN_TAIL: usize = 128 * 1024;

/// How far past the chosen point a member start is looked for.
const SEARCH_LIMIT: usize = 64 * 1024;

/// The open containers around an instance member: the request's object
/// and the instances object.
const INSTANCE_DEPTH: usize = 2;

/// The instances read on the second thread, from the split position to
/// the end of the instances object.
pub(crate) struct Tail {
    /// Where the reading began.
    pub(crate) at: usize,
    /// In input order, indexed from 0, their nodes not yet resolved.
    pub(crate) instances: Vec<Instance>,
    /// Their node names, one entry per instance.
    pub(crate) unresolved: Unresolved,
    /// The first instance that could not be read: it and the members after
    /// it are not in `instances`.
    pub(crate) error: Option<InputError>,
    /// The position after the instances object, or the parse error met.
    pub(crate) end: Result<usize, ParseError>,
}

/// The second thread.
pub(crate) struct Running<'scope> {
    stop: &'scope AtomicBool,
    handle: ScopedJoinHandle<'scope, Option<Tail>>,
}

impl Running<'_> {
    /// Waits for the second thread's instances. `None` when it read none
    /// (no split position, stopped, or failed).
    pub(crate) fn join(self) -> Option<Tail> {
        self.handle.join().ok().flatten()
    }

    /// Tells the second thread to stop and waits for it (its work is
    /// not wanted).
    pub(crate) fn abandon(self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.handle.join();
    }
}

/// Starts the second thread on `input` in `scope`, if the input is large
/// enough: it chooses its split position from how far the parse has come
/// by the time it runs and tells it through `point`; `stop` tells it to
/// stop.
pub(crate) fn start<'scope>(
    scope: &'scope Scope<'scope, '_>,
    input: &'scope [u8],
    point: &'scope SplitPoint,
    stop: &'scope AtomicBool,
) -> Option<Running<'scope>> {
    if input.len() < MIN_INPUT {
        return None;
    }
    // The processor the parse runs on, which the second thread leaves.
    let parse_on = processor::current();
    spawn(scope, input, stop, move || {
        if !processor::leave(parse_on) {
            // One processor for both: the split would only slow the parse.
            return None;
        }
        let at = choose(input, point.reached())?;
        point.choose(at);
        Some(at)
    })
}

/// Starts the second thread at `at`, whatever the input (for tests).
pub(crate) fn start_at<'scope>(
    scope: &'scope Scope<'scope, '_>,
    input: &'scope [u8],
    at: usize,
    point: &'scope SplitPoint,
    stop: &'scope AtomicBool,
) -> Option<Running<'scope>> {
    point.choose(at);
    spawn(scope, input, stop, move || Some(at))
}

/// Starts the second thread, which reads from where `choose` says.
fn spawn<'scope>(
    scope: &'scope Scope<'scope, '_>,
    input: &'scope [u8],
    stop: &'scope AtomicBool,
    choose: impl FnOnce() -> Option<usize> + Send + 'scope,
) -> Option<Running<'scope>> {
    let handle = std::thread::Builder::new()
        .name("hailstone-split".to_owned())
        .spawn_scoped(scope, move || {
            let at = choose()?;
            // A failure here is the one-thread reading's to find.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read_tail(input, at, stop)))
                .ok()
                .flatten()
        })
        .ok()?;
    Some(Running { stop, handle })
}

/// The split position, the parse having reached `reached`: a likely
/// start of an instance member about where both threads have as much left
/// to read before the parse can go on past the instances.
pub(crate) fn choose(input: &[u8], reached: usize) -> Option<usize> {
    // Where the instances end: at the end of a request as a Ganeti master
    // writes it; when they come first (keys in alphabetical order) the
    // nodes, about a fifth of the bytes, follow them.
    let end = if instances_first(input) {
        input.len() / 5 * 4
    } else {
        input.len()
    };
    let left = end.checked_sub(reached)?;
    if left < 2 * MIN_TAIL {
        return None;
    }
    json::member_start_near(input, reached + left / 2, SEARCH_LIMIT)
}

/// Whether the request's `"instances"` key comes before the first
/// `"nodes"` string (a guess from the first bytes only).
fn instances_first(input: &[u8]) -> bool {
    let head = input.get(..SEARCH_LIMIT).unwrap_or(input);
    let nodes = find(head, b"\"nodes\"").unwrap_or(head.len());
    find(head.get(..nodes).unwrap_or(head), b"\"instances\"").is_some()
}

/// The first position of `needle` in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Reads the instance members from `at` to the end of their object, on
/// the second thread. `None` when told to stop.
pub(crate) fn read_tail(input: &[u8], at: usize, stop: &AtomicBool) -> Option<Tail> {
    let mut reader = TailReader {
        empty: Empties::new(),
        instances: Vec::new(),
        unresolved: Unresolved::default(),
        error: None,
    };
    let end = json::parse_members_from(
        input,
        at,
        INSTANCE_DEPTH,
        &|| stop.load(Ordering::Relaxed),
        &mut reader,
    );
    let end = match end {
        Ok(None) => return None,
        Ok(Some(end)) => Ok(end),
        Err(e) => Err(e),
    };
    Some(Tail {
        at,
        instances: reader.instances,
        unresolved: reader.unresolved,
        error: reader.error,
        end,
    })
}

/// Builds the second thread's instances as the loader builds those that
/// come before the nodes.
struct TailReader {
    empty: Empties,
    instances: Vec<Instance>,
    unresolved: Unresolved,
    error: Option<InputError>,
}

impl TailReader {
    fn take(&mut self, name: &str, wi: &WireInstance<'_>) {
        let idx = self.instances.len() as i32;
        let inst = build_instance(&self.empty, name, &wi.body, idx, NO_NODE, NO_NODE);
        self.instances.push(inst);
        self.unresolved.keep(wi);
    }
}

impl MemberSink for TailReader {
    fn fast(&mut self, mut scan: Scan<'_>) -> Option<usize> {
        // After the first error, later members are only parsed.
        if self.error.is_some() {
            return None;
        }
        let (name, wi) = iallocator::scan_instance(&mut scan)?;
        self.take(name, &wi);
        Some(scan.pos())
    }

    fn member(&mut self, name: &str, value: Value<'_>) {
        if self.error.is_some() {
            return;
        }
        let section = Path::ROOT.field("instances");
        match iallocator::read_instance(value, &section.name(name)) {
            Ok(wi) => self.take(name, &wi),
            Err(e) => self.error = Some(e),
        }
    }
}

/// Where the second thread runs. Linux starts a new thread on the
/// processor of the thread that starts it, where it takes the processor
/// from the parse until the scheduler moves one of them, milliseconds
/// later: measured here, the split then made the reading slower than one
/// thread (4.6-7.1 ms against 3.8-4.3 ms for a 2.8 MB request), and with
/// the second thread moved away at once, faster (3.1-3.5 ms).
mod processor {
    #[cfg(target_os = "linux")]
    extern "C" {
        fn sched_getcpu() -> i32;
        fn sched_getaffinity(pid: i32, size: usize, mask: *mut u8) -> i32;
        fn sched_setaffinity(pid: i32, size: usize, mask: *const u8) -> i32;
    }

    /// The size of the C library's `cpu_set_t`: 1,024 processors.
    const SET_BYTES: usize = 128;

    /// The processor the calling thread runs on, if known.
    #[cfg(target_os = "linux")]
    pub(super) fn current() -> Option<usize> {
        // SAFETY: `sched_getcpu` takes no arguments and only returns a
        // number (-1 on failure).
        usize::try_from(unsafe { sched_getcpu() }).ok()
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
        let Some(cpu) = cpu.filter(|&c| c < SET_BYTES * 8) else {
            return true;
        };
        let mut set = [0u8; SET_BYTES];
        // SAFETY: `set` is a writable buffer of `SET_BYTES` bytes, the
        // size passed; pid 0 is the calling thread.
        if unsafe { sched_getaffinity(0, SET_BYTES, set.as_mut_ptr()) } != 0 {
            return true;
        }
        if let Some(byte) = set.get_mut(cpu / 8) {
            *byte &= !(1 << (cpu % 8));
        }
        if set.iter().all(|&b| b == 0) {
            return false;
        }
        // SAFETY: `set` is a readable buffer of `SET_BYTES` bytes, the
        // size passed; pid 0 is the calling thread. A failure leaves the
        // thread where it is.
        unsafe { sched_setaffinity(0, SET_BYTES, set.as_ptr()) };
        true
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) fn leave(_cpu: Option<usize>) -> bool {
        true
    }
}
