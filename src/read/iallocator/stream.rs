//! The [`Reader`]: reads a request into a [`ClusterSink`] and a
//! [`Message`], as the parser's [`Streamer`] taking the nodes and the
//! instances while the request is parsed, and reading the rest (and
//! whatever was not streamed) from the document in hail's order.

use super::fields::{as_array, as_object, enum_value, found, req_str_list, required};
use super::path::{InputError, Path};
use super::records::{read_groups, read_instance, read_node, read_request_dict};
use super::scan::{scan_instance, scan_node};
use super::sink::ClusterSink;
use super::wire::{Hypervisor, Message};
use crate::read::json::{Document, ParseError, Scan, Streamer, Value};

/// Where a request's nodes or instances are read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    /// Their key has not come yet.
    Unseen,
    /// From the document, by [`Reader::finish`].
    OnTape,
    /// As the parser hands them over; [`Section::Streamed`] once all came.
    Streaming,
    Streamed,
    /// Instances that come before the nodes, handed over as the parser
    /// reaches them to a sink that takes them early; their node names are
    /// resolved in [`Reader::finish`], where the instances are read.
    EarlyStreaming,
    EarlyStreamed,
}

/// Reads a request into a [`ClusterSink`] and a [`Message`]. As the
/// parser's [`Streamer`] it takes the nodes and the instances one by one
/// while the request is parsed, so that they are never all in memory: the
/// nodes when the node groups came before them, the instances when the
/// nodes were streamed (a Ganeti master writes the groups, the nodes and
/// the instances in that order), or when they come before the nodes (keys
/// in alphabetical order) and the sink takes them early: then their node
/// names are resolved, and their first error given, when
/// [`Reader::finish`] reaches the instances. [`Reader::finish`] then reads the rest of
/// the document, and whatever was not streamed, in hail's order, so that
/// the first error is the same either way.
pub struct Reader<'s, S> {
    sink: &'s mut S,
    nodes: Section,
    instances: Section,
    /// Whether the node groups went to the sink already.
    groups_sent: bool,
    /// The first error met while streaming; later members are only parsed.
    error: Option<InputError>,
    /// The first error met while streaming instances early: it comes after
    /// the errors of the groups, the nodes and the instances before it, so
    /// it waits until [`Reader::finish`] reaches the instances.
    early_error: Option<InputError>,
}

impl<'s, S: ClusterSink> Reader<'s, S> {
    pub fn new(sink: &'s mut S) -> Self {
        Reader {
            sink,
            nodes: Section::Unseen,
            instances: Section::Unseen,
            groups_sent: false,
            error: None,
            early_error: None,
        }
    }

    /// Reads the rest of the message from the parsed document.
    pub fn finish<'d>(mut self, doc: &'d Document<'_>) -> Result<Message<'d>, InputError> {
        let root = Path::ROOT;
        let top = doc.root();
        let Some(top) = top.as_object() else {
            return Err(root.error(format!("expected a JSON object, found {}", found(top))));
        };

        // hail reads the keys in this order and stops at the first error.
        let req_path = root.field("request");
        let req_members = as_object(
            required(&top, "request", &req_path, "an object")?,
            &req_path,
        )?;
        // What streaming met comes next: it read the groups, nodes and
        // instances in this very order.
        if let Some(e) = self.error.take() {
            return Err(e);
        }

        let groups = read_groups(&top)?;
        if !self.groups_sent {
            self.sink.groups(&groups)?;
        }

        if self.nodes != Section::Streamed {
            let nodes_path = root.field("nodes");
            let nodes_json = as_object(
                required(&top, "nodes", &nodes_path, "an object")?,
                &nodes_path,
            )?;
            for (name, n) in nodes_json.iter() {
                node_to(self.sink, &nodes_path, name, n)?;
            }
        }

        if self.instances == Section::EarlyStreamed {
            self.sink.resolve_early_instances()?;
            if let Some(e) = self.early_error.take() {
                return Err(e);
            }
        } else if self.instances != Section::Streamed {
            let inst_path = root.field("instances");
            let inst_json = as_object(
                required(&top, "instances", &inst_path, "an object")?,
                &inst_path,
            )?;
            for (name, i) in inst_json.iter() {
                instance_to(self.sink, &inst_path, name, i)?;
            }
        }

        let cluster_tags = req_str_list(&top, "cluster_tags", &root)?;

        let hv_path = root.field("enabled_hypervisors");
        let hv_json = as_array(
            required(
                &top,
                "enabled_hypervisors",
                &hv_path,
                "a list of hypervisor names",
            )?,
            &hv_path,
        )?;
        let mut enabled_hypervisors = Vec::with_capacity(hv_json.len());
        for (i, h) in hv_json.iter().enumerate() {
            enabled_hypervisors.push(enum_value(h, &hv_path.index(i), &Hypervisor::ALL)?);
        }

        let request = read_request_dict(req_members, &req_path)?;
        Ok(Message {
            groups,
            cluster_tags,
            enabled_hypervisors,
            request,
        })
    }
}

impl<S: ClusterSink> Streamer for Reader<'_, S> {
    fn wants(&mut self, so_far: &Document<'_>, key: &str, is_object: bool) -> bool {
        match key {
            "nodes" if self.nodes == Section::Unseen => {
                self.nodes = Section::OnTape;
                // The groups must all be known before the first node.
                let Some(top) = so_far.root().as_object() else {
                    return false;
                };
                if !is_object || top.get("nodegroups").is_none() {
                    return false;
                }
                match read_groups(&top) {
                    Ok(groups) => self.note(|sink| sink.groups(&groups)),
                    Err(e) => self.note(|_| Err(e)),
                }
                self.groups_sent = true;
                self.nodes = Section::Streaming;
                true
            }
            "instances" if self.instances == Section::Unseen => {
                self.instances = Section::OnTape;
                if !is_object {
                    return false;
                }
                if self.nodes == Section::Streamed {
                    self.instances = Section::Streaming;
                    return true;
                }
                if self.nodes == Section::Unseen && self.sink.takes_early_instances() {
                    self.instances = Section::EarlyStreaming;
                    return true;
                }
                false
            }
            _ => false,
        }
    }

    fn member(&mut self, name: &str, value: Value<'_>) {
        let root = Path::ROOT;
        if self.nodes == Section::Streaming {
            let section = root.field("nodes");
            self.note(|sink| node_to(sink, &section, name, value));
        } else if self.instances == Section::Streaming {
            let section = root.field("instances");
            self.note(|sink| instance_to(sink, &section, name, value));
        } else if self.instances == Section::EarlyStreaming && self.early_error.is_none() {
            let section = root.field("instances");
            match read_instance(value, &section.name(name)) {
                Ok(wi) => self.sink.early_instance(name, wi),
                Err(e) => self.early_error = Some(e),
            }
        }
    }

    fn fast(&mut self, mut scan: Scan<'_>) -> Option<usize> {
        // As `member`, for the members `scan_node` and `scan_instance`
        // can read.
        if self.nodes == Section::Streaming {
            if self.error.is_some() {
                return None;
            }
            let (name, wn) = scan_node(&mut scan)?;
            let section = Path::ROOT.field("nodes");
            let path = section.name(name);
            self.note(|sink| sink.node(name, wn, &path));
            return Some(scan.pos());
        }
        match self.instances {
            Section::Streaming if self.error.is_none() => {
                let (name, wi) = scan_instance(&mut scan)?;
                let section = Path::ROOT.field("instances");
                let path = section.name(name);
                self.note(|sink| sink.instance(name, wi, &path));
            }
            Section::EarlyStreaming if self.early_error.is_none() => {
                let (name, wi) = scan_instance(&mut scan)?;
                self.sink.early_instance(name, wi);
            }
            _ => return None,
        }
        Some(scan.pos())
    }

    fn split(&mut self, at: usize) -> Option<Result<usize, ParseError>> {
        if self.nodes == Section::Streaming {
            // After the first error, later nodes are only parsed.
            let taken = self.sink.split_nodes(at, self.error.is_none())?;
            if let Some(e) = taken.error {
                self.error.get_or_insert(e);
            }
            return Some(taken.end);
        }
        let early = match self.instances {
            Section::Streaming => false,
            Section::EarlyStreaming => true,
            _ => return None,
        };
        // After the first error, later instances are only parsed.
        let take = if early {
            self.early_error.is_none()
        } else {
            self.error.is_none()
        };
        let taken = self.sink.split_instances(at, early, take)?;
        if let Some(e) = taken.error {
            let first = if early {
                &mut self.early_error
            } else {
                &mut self.error
            };
            first.get_or_insert(e);
        }
        Some(taken.end)
    }

    fn end(&mut self) {
        if self.nodes == Section::Streaming {
            self.nodes = Section::Streamed;
        } else if self.instances == Section::Streaming {
            self.instances = Section::Streamed;
        } else if self.instances == Section::EarlyStreaming {
            self.instances = Section::EarlyStreamed;
        }
    }
}

impl<S: ClusterSink> Reader<'_, S> {
    /// Reads and hands something to the sink unless an error came first
    /// (later members are then only parsed), and keeps the new error.
    fn note(&mut self, give: impl FnOnce(&mut S) -> Result<(), InputError>) {
        if self.error.is_none() {
            if let Err(e) = give(self.sink) {
                self.error = Some(e);
            }
        }
    }
}

/// hands it to `sink`.
fn node_to(
    sink: &mut impl ClusterSink,
    section: &Path,
    name: &str,
    v: Value<'_>,
) -> Result<(), InputError> {
    let p = section.name(name);
    sink.node(name, read_node(v, &p)?, &p)
}

/// Reads the instance `v` named `name` in the instances object at
/// `section` and hands it to `sink`.
fn instance_to(
    sink: &mut impl ClusterSink,
    section: &Path,
    name: &str,
    v: Value<'_>,
) -> Result<(), InputError> {
    let p = section.name(name);
    sink.instance(name, read_instance(v, &p)?, &p)
}
