//! Ganeti's cluster data files (the htools text backend: `hscan` writes
//! them, `-S` saves them, `-t` reads them), read as Ganeti 3.0.2 reads them
//! (`Backend/Text.hs` `parseData`).
//!
//! A file is five sections separated by empty lines: node groups, nodes,
//! instances, cluster tags and (optionally) instance policies; a line's
//! fields are separated by `|`. Short lines of older Ganeti versions get
//! hail's defaults for their missing trailing fields; numbers are read as
//! Haskell's `reads` reads them ([`crate::haskell::read`]). The checks come
//! in hail's order, so the first error is the one hail reports; the
//! message names the file, the line, the object and the field, and keeps
//! hail's own wording for what is wrong.
//!
//! Two deviations, both files no Ganeti writes: a file that is not UTF-8
//! is refused with the position (hail dies on it with a decoding
//! exception), and a drbd instance without a secondary node is refused
//! (hail accepts it and crashes as soon as it moves it).

use std::collections::{BTreeMap, HashMap};

use crate::haskell::read::{read_double, read_int, split_on, ReadError};
use crate::model::group::Group;
use crate::model::instance::{Disk, Instance, NO_NODE};
use crate::model::node::{Node, Resources};
use crate::model::policy::{IPolicy, ISpec, MinMaxISpecs};
use crate::model::types::{AllocPolicy, DiskTemplate, RunState};
use crate::model::{find_group, Cluster, NameMatch};
use crate::read::merge::{merge, node_info, Empties, InstanceRecord, MergeOptions, Parts};

/// Why a cluster data file cannot be read: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {message}", line.map(|l| format!(", line {l}")).unwrap_or_default())]
pub struct TextError {
    /// The file as named on the command line.
    pub file: String,
    /// The line (from 1), when one is to blame.
    pub line: Option<usize>,
    /// What is wrong, in hail's words where hail has them.
    pub message: String,
}

/// Reads a cluster data file into the model (then merged as hail merges
/// every cluster it reads); returns it with hail's "inconsistent data"
/// warnings.
pub fn load(
    file: &str,
    bytes: &[u8],
    options: &MergeOptions,
) -> Result<(Cluster, Vec<String>), TextError> {
    let parts = parse(file, bytes)?;
    Ok(merge(parts, &Empties::new(), options))
}

/// One line of the file: its number and text.
type Line<'a> = (usize, &'a str);

/// Reads the file's sections into the cluster's parts.
pub(crate) fn parse(file: &str, bytes: &[u8]) -> Result<Parts, TextError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        TextError {
            file: file.to_owned(),
            line: Some(line),
            message: format!(
                "the file is not valid UTF-8 (byte 0x{:02x})",
                bytes[e.valid_up_to()]
            ),
        }
    })?;
    let sections = sections(text);
    if sections.len() < 4 {
        return Err(TextError {
            file: file.to_owned(),
            line: None,
            message: format!(
                "Invalid format of the input file: {} sections instead of 4 or more \
                 (groups, nodes, instances, cluster tags and policies, separated by \
                 empty lines)",
                sections.len()
            ),
        });
    }
    let mut reader = Reader {
        file,
        groups: Vec::new(),
        group_by_uuid: BTreeMap::new(),
        nodes: Vec::new(),
        node_by_name: HashMap::new(),
        instances: Vec::new(),
        empty: Empties::new(),
    };
    for &line in &sections[0] {
        reader.group(line)?;
    }
    for &line in &sections[1] {
        reader.node(line)?;
    }
    for &line in &sections[2] {
        reader.instance(line)?;
    }
    let cluster_tags = sections[3].iter().map(|(_, t)| (*t).to_owned()).collect();
    let mut ipolicy = IPolicy::ganeti_default();
    if let Some(policies) = sections.get(4) {
        for &line in policies {
            reader.policy(line, &mut ipolicy)?;
        }
    }
    Ok(Parts {
        groups: reader.groups,
        nodes: reader.nodes,
        instances: reader.instances,
        cluster_tags,
        ipolicy,
    })
}

/// The file's lines (Haskell's `lines`: a final newline ends the last line)
/// cut at empty lines into sections (`sepSplit ""`: consecutive empty
/// lines give empty sections; an empty file has none).
fn sections(text: &str) -> Vec<Vec<Line<'_>>> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.is_empty() || text.ends_with('\n') {
        lines.pop();
    }
    let mut out: Vec<Vec<Line<'_>>> = Vec::new();
    if lines.is_empty() {
        return out;
    }
    out.push(Vec::new());
    for (i, line) in lines.into_iter().enumerate() {
        if line.is_empty() {
            out.push(Vec::new());
        } else if let Some(last) = out.last_mut() {
            last.push((i + 1, line));
        }
    }
    out
}

/// The fields of a line (`sepSplit '|'`).
fn fields(line: &str) -> Vec<&str> {
    split_on(line, '|').collect()
}

/// Haskell's `show` of a list of strings, as hail quotes a bad line.
fn show_fields(fields: &[&str]) -> String {
    crate::haskell::show::show_string_list(fields)
}

/// Ganeti's `commaSplit`.
fn comma_list(text: &str) -> Vec<String> {
    split_on(text, ',').map(str::to_owned).collect()
}

struct Reader<'f> {
    file: &'f str,
    groups: Vec<Group>,
    /// Group UUIDs to indices; a duplicate UUID resolves to the last.
    group_by_uuid: BTreeMap<String, usize>,
    nodes: Vec<Node>,
    /// Node names to indices; a duplicate name resolves to the last. Only
    /// looked up, never iterated.
    node_by_name: HashMap<String, usize>,
    instances: Vec<Instance>,
    empty: Empties,
}

impl Reader<'_> {
    fn error(&self, line: usize, message: String) -> TextError {
        TextError {
            file: self.file.to_owned(),
            line: Some(line),
            message,
        }
    }

    /// A field read by `tryRead`: the message names the object and field,
    /// then gives hail's own.
    fn value<T>(
        &self,
        line: usize,
        what: &str,
        field: &str,
        text: &str,
        read: fn(&str) -> Result<T, ReadError>,
        hail_name: &str,
    ) -> Result<T, TextError> {
        read(text).map_err(|e| {
            self.error(
                line,
                format!("{what}, field {field}: {}", e.message(hail_name, text)),
            )
        })
    }

    /// A resource: a field read by `tryRead` ([`Self::value`]) that
    /// must be 0 or more and finite (`fits`). hbal takes a negative one
    /// and plans onto memory, disk or CPUs that do not exist.
    #[allow(clippy::too_many_arguments)]
    fn size<T: Copy>(
        &self,
        line: usize,
        what: &str,
        field: &str,
        text: &str,
        read: fn(&str) -> Result<T, ReadError>,
        fits: fn(T) -> bool,
        hail_name: &str,
    ) -> Result<T, TextError> {
        let v = self.value(line, what, field, text, read, hail_name)?;
        if fits(v) {
            return Ok(v);
        }
        Err(self.error(
            line,
            format!(
                "{what}, field {field}: '{}' is not a size (hailstone refuses negative and \
                 non-finite resources)",
                text.trim()
            ),
        ))
    }

    /// `name|uuid|alloc_policy|tags[|networks]` (`loadGroup`).
    fn group(&mut self, (line, text): Line<'_>) -> Result<(), TextError> {
        let f = fields(text);
        if f.len() < 4 {
            return Err(self.error(
                line,
                format!("Invalid/incomplete group data: '{}'", show_fields(&f)),
            ));
        }
        let what = format!("node group {}", f[0]);
        if f[0].is_empty() {
            // Ganeti never names a group ''; a policy line owned by '' is
            // the cluster's, so such a group's policy could not be written
            // back (hail takes it).
            return Err(self.error(
                line,
                "node group, field name: empty (the policy line of a group named '' would be the cluster's)".to_owned(),
            ));
        }
        let alloc_policy = AllocPolicy::from_raw(f[2]).ok_or_else(|| {
            self.error(
                line,
                format!(
                    "{what}, field alloc_policy: Invalid string value for type AllocPolicy: {}",
                    crate::haskell::show::show_string(f[2])
                ),
            )
        })?;
        let idx = self.groups.len();
        self.group_by_uuid.insert(f[1].to_owned(), idx);
        self.groups.push(Group {
            name: f[0].to_owned(),
            uuid: f[1].to_owned(),
            idx,
            alloc_policy,
            networks: f.get(4).map_or_else(Vec::new, |n| comma_list(n)),
            ipolicy: IPolicy::ganeti_default(),
            tags: comma_list(f[3]),
        });
        Ok(())
    }

    /// `name|t_mem|n_mem|f_mem|t_disk|f_disk|t_cpu|flag|group[|spindles|tags|
    /// exclusive_storage|free_spindles|n_cpu|cpu_speed]` (`loadNode`).
    fn node(&mut self, (line, text): Line<'_>) -> Result<(), TextError> {
        let mut f = fields(text);
        if f.len() < 9 {
            return Err(self.error(
                line,
                format!("Invalid/incomplete node data: '{}'", show_fields(&f)),
            ));
        }
        // Older files: the trailing fields take hail's defaults.
        for (i, default) in [
            (9, "1"),
            (10, ""),
            (11, "N"),
            (12, "0"),
            (13, "1"),
            (14, "1.0"),
        ] {
            if f.len() == i {
                f.push(default);
            }
        }
        let name = f[0];
        let what = format!("node {name}");
        let Some(&group) = self.group_by_uuid.get(f[8]) else {
            return Err(self.error(
                line,
                format!(
                    "{what}, field group: Unknown group '{}' for node {name}",
                    f[8]
                ),
            ));
        };
        let idx = self.nodes.len();
        let node = if f[1..=6].contains(&"?") {
            // An unreachable node: offline with no resources, and nothing
            // else of the line is read.
            let info = node_info(name, Vec::new(), false, 0, 1.0);
            let zero = Resources {
                t_mem: 0.0,
                n_mem: 0,
                f_mem: 0,
                t_dsk: 0.0,
                f_dsk: 0,
                t_cpu: 0.0,
                t_spindles: 0,
                f_spindles: 0,
                excl_storage: false,
                offline: true,
            };
            Node::create(info, idx, group, zero)
        } else {
            let int = |field: &str, i: usize| {
                self.size(line, &what, field, f[i], read_int, |v| v >= 0, name)
            };
            let double = |field: &str, i: usize| {
                let fits = |v: f64| v >= 0.0 && v.is_finite();
                self.size(line, &what, field, f[i], read_double, fits, name)
            };
            let t_mem = double("t_mem", 1)?;
            let n_mem = int("n_mem", 2)?;
            let f_mem = int("f_mem", 3)?;
            let t_dsk = double("t_disk", 4)?;
            let f_dsk = int("f_disk", 5)?;
            let t_cpu = double("t_cpu", 6)?;
            let n_cpu = int("n_cpu", 13)?;
            let t_spindles = int("spindles", 9)?;
            let cpu_speed = double("cpu_speed", 14)?;
            // Free spindles go below 0 where instances use more than a
            // node has (hail's own saved states have such nodes): read
            // as they are.
            let f_spindles = self.value(line, &what, "free_spindles", f[12], read_int, name)?;
            let excl_storage = match f[11] {
                "Y" => true,
                "N" => false,
                other => {
                    return Err(self.error(
                        line,
                        format!(
                            "{what}, field exclusive_storage: Invalid exclusive_storage value \
                             for node '{name}': {other}"
                        ),
                    ))
                }
            };
            let info = node_info(name, comma_list(f[10]), f[7] == "M", n_cpu, cpu_speed);
            let resources = Resources {
                t_mem,
                n_mem,
                f_mem,
                t_dsk,
                f_dsk,
                t_cpu,
                t_spindles,
                f_spindles,
                excl_storage,
                offline: f[7] == "Y",
            };
            Node::create(info, idx, group, resources)
        };
        self.node_by_name.insert(name.to_owned(), idx);
        self.nodes.push(node);
        Ok(())
    }

    /// `name|mem|disk|vcpus|status|auto_balance|pnode|snode|disk_template|
    /// tags[|spindle_use|spindles|forthcoming]` (`loadInst`).
    fn instance(&mut self, (line, text): Line<'_>) -> Result<(), TextError> {
        let mut f = fields(text);
        if f.len() < 10 {
            return Err(self.error(
                line,
                format!("Invalid/incomplete instance data: '{}'", show_fields(&f)),
            ));
        }
        for (i, default) in [(10, "1"), (11, "-"), (12, "N")] {
            if f.len() == i {
                f.push(default);
            }
        }
        let name = f[0];
        let what = format!("instance {name}");
        let node = |field: &str, node_name: &str| {
            self.node_by_name.get(node_name).copied().ok_or_else(|| {
                self.error(
                    line,
                    format!(
                        "{what}, field {field}: Unknown node '{node_name}' for instance {name}"
                    ),
                )
            })
        };
        let p_node = node("primary node", f[6])? as i32;
        let s_node = match f[7] {
            "" => NO_NODE,
            s => node("secondary node", s)? as i32,
        };
        let int =
            |field: &str, i: usize| self.size(line, &what, field, f[i], read_int, |v| v >= 0, name);
        let mem = int("memory", 1)?;
        let dsk = int("disk", 2)?;
        let vcpus = int("vcpus", 3)?;
        let run_state = RunState::from_raw(f[4]).ok_or_else(|| {
            self.error(
                line,
                format!(
                    "{what}, field status: Invalid string value for type InstanceStatus: {}",
                    crate::haskell::show::show_string(f[4])
                ),
            )
        })?;
        let auto_balance = match f[5] {
            "Y" => true,
            "N" => false,
            other => {
                return Err(self.error(
                    line,
                    format!(
                        "{what}, field auto_balance: Invalid auto_balance value '{other}' for \
                         instance {name}"
                    ),
                ))
            }
        };
        let disk_template = DiskTemplate::from_raw(f[8]).ok_or_else(|| {
            self.error(
                line,
                format!(
                    "{what}, field disk_template: Instance {name}: Invalid string value for type \
                     DiskTemplate: {}",
                    crate::haskell::show::show_string(f[8])
                ),
            )
        })?;
        let spindle_use = int("spindle_use", 10)?;
        let spindles = match f[11] {
            "-" => None,
            _ => Some(int("spindles", 11)?),
        };
        let forthcoming = match f[12] {
            "Y" => true,
            "N" => false,
            other => {
                return Err(self.error(
                    line,
                    format!(
                        "{what}, field forthcoming: Invalid forthcoming value '{other}' for \
                         instance {name}"
                    ),
                ))
            }
        };
        let record = InstanceRecord {
            name: name.to_owned(),
            mem,
            dsk,
            disks: vec![Disk {
                size: dsk,
                spindles,
            }],
            vcpus,
            run_state,
            auto_balance,
            p_node,
            s_node,
            disk_template,
            spindle_use,
            tags: comma_list(f[9]),
            forthcoming,
        };
        if let Some(problem) = record.node_problem(f[6]) {
            return Err(self.error(line, format!("{what}: {problem}")));
        }
        let idx = self.instances.len() as i32;
        self.instances.push(record.into_instance(idx, &self.empty));
        Ok(())
    }

    /// `owner|std|min;max[;min;max...]|disk_templates|vcpu_ratio|
    /// spindle_ratio` (`loadIPolicy`): the cluster's policy when the owner
    /// is empty, else a group's (named by name or UUID).
    fn policy(&mut self, (line, text): Line<'_>, cluster: &mut IPolicy) -> Result<(), TextError> {
        let f = fields(text);
        if f.len() < 6 {
            return Err(self.error(line, format!("Invalid ipolicy data: '{}'", show_fields(&f))));
        }
        let owner = f[0];
        let what = if owner.is_empty() {
            "cluster policy".to_owned()
        } else {
            format!("policy of {owner}")
        };
        let std = self.ispec(line, &what, "std spec", &format!("{owner}/stdspec"), f[1])?;
        let specs: Vec<&str> = split_on(f[2], ';').collect();
        if !specs.len().is_multiple_of(2) {
            return Err(self.error(
                line,
                format!("{what}, field min/max specs: Odd number of min/max specs for {owner}"),
            ));
        }
        let mut minmax = Vec::with_capacity(specs.len() / 2);
        for pair in specs.chunks(2) {
            let min = self.ispec(
                line,
                &what,
                "min spec",
                &format!("{owner}/minspec"),
                pair[0],
            )?;
            let max = self.ispec(
                line,
                &what,
                "max spec",
                &format!("{owner}/maxspec"),
                pair[1],
            )?;
            minmax.push(MinMaxISpecs { min, max });
        }
        let mut disk_templates = Vec::new();
        for t in split_on(f[3], ',') {
            disk_templates.push(DiskTemplate::from_raw(t).ok_or_else(|| {
                self.error(
                    line,
                    format!(
                        "{what}, field disk templates: Invalid string value for type \
                         DiskTemplate: {}",
                        crate::haskell::show::show_string(t)
                    ),
                )
            })?);
        }
        let vcpu_ratio = self.value(
            line,
            &what,
            "vcpu_ratio",
            f[4],
            read_double,
            &format!("{owner}/vcpu_ratio"),
        )?;
        let spindle_ratio = self.value(
            line,
            &what,
            "spindle_ratio",
            f[5],
            read_double,
            &format!("{owner}/spindle_ratio"),
        )?;
        let policy = IPolicy {
            minmax,
            std,
            disk_templates,
            vcpu_ratio,
            spindle_ratio,
        };
        if owner.is_empty() {
            *cluster = policy;
        } else {
            match find_group(&self.groups, owner) {
                NameMatch::One(g) => self.groups[g].ipolicy = policy,
                _ => {
                    return Err(self.error(
                        line,
                        format!(
                            "{what}, field owner: Wrong number of elems found with name {owner}"
                        ),
                    ))
                }
            }
        }
        Ok(())
    }

    /// An instance spec: six comma-separated integers (`loadISpec`).
    fn ispec(
        &self,
        line: usize,
        what: &str,
        field: &str,
        hail_owner: &str,
        text: &str,
    ) -> Result<ISpec, TextError> {
        let v: Vec<&str> = split_on(text, ',').collect();
        if v.len() < 6 {
            return Err(self.error(
                line,
                format!(
                    "{what}, field {field}: Invalid ispec data for {hail_owner}: {}",
                    show_fields(&v)
                ),
            ));
        }
        let value = |i: usize, name: &str| {
            self.value(
                line,
                what,
                field,
                v[i],
                read_int,
                &format!("{hail_owner}/{name}"),
            )
        };
        Ok(ISpec {
            memory_size: value(0, "memsize")?,
            cpu_count: value(1, "cpucount")?,
            disk_size: value(2, "disksize")?,
            disk_count: value(3, "diskcount")?,
            nic_count: value(4, "niccount")?,
            spindle_use: value(5, "spindleuse")?,
        })
    }
}
