//! Ganeti's cluster data files as text to edit: sections of lines of
//! `|`-separated fields (`/work/notes/text-backend-spec.md`; hbal-spec
//! §3.2). Only what the comparison needs to shape a generated cluster:
//! reading the sections, changing fields, writing them back in the same
//! layout.

/// Node fields (0-based) of the full 15-field form.
pub mod node {
    pub const NAME: usize = 0;
    pub const F_MEM: usize = 3;
    pub const F_DSK: usize = 5;
    pub const FLAG: usize = 7;
    pub const GROUP: usize = 8;
    pub const TAGS: usize = 10;
    pub const CPU_SPEED: usize = 14;
}

/// Instance fields (0-based) of the full 13-field form.
pub mod inst {
    pub const NAME: usize = 0;
    pub const MEM: usize = 1;
    pub const DSK: usize = 2;
    pub const STATUS: usize = 4;
    pub const AUTO_BALANCE: usize = 5;
    pub const PNODE: usize = 6;
    pub const SNODE: usize = 7;
    pub const TEMPLATE: usize = 8;
    pub const TAGS: usize = 9;
    pub const FORTHCOMING: usize = 12;
}

/// A data file: its sections, each a list of lines split at `|`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataFile {
    pub sections: Vec<Vec<Vec<String>>>,
}

impl DataFile {
    /// Splits a data file's text (sections at empty lines, as Ganeti's
    /// `sepSplit` does; a final newline ends the last line).
    pub fn parse(text: &str) -> DataFile {
        let body = text.strip_suffix('\n').unwrap_or(text);
        let mut sections = vec![Vec::new()];
        if !body.is_empty() || text.ends_with('\n') {
            for line in body.split('\n') {
                if line.is_empty() {
                    sections.push(Vec::new());
                } else if let Some(last) = sections.last_mut() {
                    last.push(line.split('|').map(str::to_owned).collect());
                }
            }
        }
        DataFile { sections }
    }

    /// The text again: one empty line between sections, every line ending
    /// in a newline.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (k, section) in self.sections.iter().enumerate() {
            if k > 0 {
                out.push('\n');
            }
            for line in section {
                out.push_str(&line.join("|"));
                out.push('\n');
            }
        }
        out
    }

    fn section(&self, k: usize) -> &[Vec<String>] {
        self.sections.get(k).map_or(&[], Vec::as_slice)
    }

    fn section_mut(&mut self, k: usize) -> &mut Vec<Vec<String>> {
        while self.sections.len() <= k {
            self.sections.push(Vec::new());
        }
        &mut self.sections[k]
    }

    /// The group lines.
    pub fn groups(&self) -> &[Vec<String>] {
        self.section(0)
    }

    /// The node lines.
    pub fn nodes(&self) -> &[Vec<String>] {
        self.section(1)
    }

    /// The node lines, to change.
    pub fn nodes_mut(&mut self) -> &mut Vec<Vec<String>> {
        self.section_mut(1)
    }

    /// The instance lines.
    pub fn instances(&self) -> &[Vec<String>] {
        self.section(2)
    }

    /// The instance lines, to change.
    pub fn instances_mut(&mut self) -> &mut Vec<Vec<String>> {
        self.section_mut(2)
    }

    /// The cluster tags.
    pub fn cluster_tags(&self) -> Vec<String> {
        self.section(3).iter().map(|l| l.join("|")).collect()
    }

    /// Adds a cluster tag (once).
    pub fn add_cluster_tag(&mut self, tag: &str) {
        if !self.cluster_tags().iter().any(|t| t == tag) {
            self.section_mut(3).push(vec![tag.to_owned()]);
        }
    }

    /// The group names, in file order.
    pub fn group_names(&self) -> Vec<String> {
        self.groups().iter().map(|g| g[0].clone()).collect()
    }

    /// The group names that have at least one node, in file order.
    pub fn groups_with_nodes(&self) -> Vec<String> {
        self.groups()
            .iter()
            .filter(|g| {
                let uuid = g.get(1).map(String::as_str).unwrap_or("");
                self.nodes()
                    .iter()
                    .any(|n| n.get(node::GROUP).map(String::as_str) == Some(uuid))
            })
            .map(|g| g[0].clone())
            .collect()
    }

    /// The node names of a group (by its name), in file order.
    pub fn nodes_of_group(&self, group: &str) -> Vec<String> {
        let Some(uuid) = self.groups().iter().find(|g| g[0] == group).map(|g| &g[1]) else {
            return Vec::new();
        };
        self.nodes()
            .iter()
            .filter(|n| n.get(node::GROUP) == Some(uuid))
            .map(|n| n[0].clone())
            .collect()
    }

    /// The instance names whose primary is one of `nodes`.
    pub fn instances_on(&self, nodes: &[String]) -> Vec<String> {
        self.instances()
            .iter()
            .filter(|i| i.get(inst::PNODE).is_some_and(|p| nodes.contains(p)))
            .map(|i| i[0].clone())
            .collect()
    }
}

/// The integer value of a field (0 when it is not one).
pub fn int(fields: &[String], k: usize) -> i64 {
    fields.get(k).and_then(|f| f.parse().ok()).unwrap_or(0)
}

/// Sets field `k`, padding the line with empty fields when it is shorter.
pub fn set(fields: &mut Vec<String>, k: usize, value: impl Into<String>) {
    while fields.len() <= k {
        fields.push(String::new());
    }
    fields[k] = value.into();
}
