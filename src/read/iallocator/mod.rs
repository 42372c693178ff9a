//! The iallocator request on the wire (protocol version 2, as Ganeti's
//! `doc/iallocator.rst` describes it) and its reading from the parsed JSON
//! document; the wire message borrows its strings from that document.
//!
//! This module only checks shapes and types and keeps names as strings; the
//! model loader resolves names to indices and derives values. The nodes and
//! instances are not collected: each goes to a [`ClusterSink`] (the loader)
//! as soon as it is read, so that a large cluster never exists twice in
//! memory and the sink's own errors come in hail's order (hail resolves a
//! node's group and an instance's nodes as it reads them). [`Reader`] goes
//! further and takes them while the request is still being parsed (it is
//! the parser's [`Streamer`](crate::read::json::Streamer)), so the parsed
//! document never holds them either. What is accepted follows hail
//! exactly, with these deliberate deviations (all of them inputs no Ganeti
//! master sends):
//! * integers beyond ±2^53 are refused (hail wraps them modulo 2^64);
//! * non-finite numbers (`1e400`) are refused;
//! * JSON that RFC 8259 refuses is refused (hail accepts `1.` and lone
//!   surrogate escapes).
//!
//! Like hail, objects ignore unknown keys except the instance policy, which
//! is strict; optional fields treat `null` as absent; a required field that
//! is `null` is a type error; integer fields accept any number and round it
//! half to even; `admin_state` and `forthcoming` silently fall back to their
//! defaults on any bad value.
//!
//! Errors name the JSON path of the offending value, e.g.
//! `nodes."node3".total_memory: expected a number, found "lots"`.
//!
//! * Owns: the message's reading, one concept a file: `path` (errors and
//!   JSON paths), `wire` (the wire types), `sink` (where nodes and
//!   instances go), `fields` (typed accessors), `records` (groups,
//!   policies, nodes, instances and the request read from the parsed
//!   document), `scan` (nodes and instances read straight from the input)
//!   and `stream` (the [`Reader`], which streams while the parser runs);
//!   this file names the public surface and [`read_message`].
//! * May use: the JSON parser ([`crate::read::json`]), the model's enums
//!   and policies, the answer's string escaping.
//! * Must never: resolve a name or build the model (the loader does);
//!   read anything but the shapes and types of the message.

mod fields;
mod path;
mod records;
mod scan;
mod sink;
mod stream;
mod wire;

pub use fields::MAX_INT;
pub(crate) use fields::{
    as_array, as_object, bool_value, enum_value, f64_value, int_value, str_list, str_value,
};
pub use path::{InputError, Path};
pub(crate) use records::{read_instance, read_ipolicy, read_node};
pub(crate) use scan::{scan_instance, scan_node};
pub use sink::{ClusterSink, Collected, SplitTaken};
pub use stream::Reader;
pub use wire::{
    Hypervisor, LiveData, Message, WireDisk, WireGroup, WireInstance, WireInstanceBody,
    WireNewInstance, WireNode, WireRequest,
};

use crate::read::json::Document;

/// Reads the message from its parsed document, handing its nodes and
/// instances to `sink` (without streaming: for tests and tools).
pub fn read_message<'d>(
    doc: &'d Document<'_>,
    sink: &mut impl ClusterSink,
) -> Result<Message<'d>, InputError> {
    Reader::new(sink).finish(doc)
}
