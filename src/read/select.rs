//! What the planners' command line changes on a loaded cluster: the nodes
//! set offline, the CPU ratio and disk reserve of every node
//! (`CLI.setNodeStatus`: `-O`, `--max-cpu`, `--min-disk`), and the
//! instances that may move (`Loader.mergeData`'s `--select-instances` and
//! `--exclude-instances`), names looked up as Ganeti does
//! ([`lookup_name`]).

use crate::model::Cluster;

/// Ganeti's `lookupName`: an exact name, or the only name that starts with
/// `key` followed by a dot.
pub fn lookup_name<'a>(names: impl Iterator<Item = &'a str>, key: &str) -> Option<&'a str> {
    let dotted = format!("{key}.");
    let mut partial: Option<&str> = None;
    let mut several = false;
    for name in names {
        if name == key {
            return Some(name);
        }
        if name.starts_with(&dotted) {
            several |= partial.is_some();
            partial = Some(name);
        }
    }
    if several {
        None
    } else {
        partial
    }
}

/// `setNodeStatus`: the nodes `offline` (names as given) set offline,
/// every node's CPU ratio `max_cpu` (when given) and disk reserve the
/// ratio `min_disk` of its disk.
///
/// # Errors
///
/// The names that match no node, in the order given.
pub fn set_node_status(
    cluster: &mut Cluster,
    offline: &[String],
    max_cpu: Option<f64>,
    min_disk: f64,
) -> Result<(), Vec<String>> {
    let mut found = Vec::new();
    let mut wrong = Vec::new();
    for key in offline {
        match lookup_name(cluster.nodes.iter().map(|n| n.info.name.as_str()), key) {
            Some(name) => found.push(name.to_owned()),
            None => wrong.push(key.clone()),
        }
    }
    if !wrong.is_empty() {
        return Err(wrong);
    }
    for node in cluster.nodes.iter_mut() {
        if let Some(ratio) = max_cpu {
            node.vcpu_ratio = ratio;
        }
        node.lo_dsk = (min_disk * node.t_dsk).floor() as i64;
        if found.iter().any(|n| *n == node.info.name) {
            node.offline = true;
        }
    }
    Ok(())
}

/// Whether each instance (by index) may move: the balancer may move it,
/// it is not excluded, and it is selected when a selection is given.
///
/// # Errors
///
/// The selected or excluded names that match no instance, in order.
pub fn movable_instances(
    cluster: &Cluster,
    select: &[String],
    exclude: &[String],
) -> Result<Vec<bool>, Vec<String>> {
    let names: Vec<&str> = cluster.instances.iter().map(|i| &*i.name).collect();
    let mut unknown: Vec<String> = Vec::new();
    let mut resolve = |list: &[String]| -> Vec<String> {
        let mut found = Vec::new();
        for key in list {
            match lookup_name(names.iter().copied(), key) {
                Some(n) => found.push(n.to_owned()),
                None => unknown.push(key.clone()),
            }
        }
        found
    };
    let selected = resolve(select);
    let excluded = resolve(exclude);
    if !unknown.is_empty() {
        return Err(unknown);
    }
    Ok(cluster
        .instances
        .iter()
        .map(|i| {
            let name = i.name.to_string();
            cluster.balancer_movable(i)
                && !excluded.contains(&name)
                && (selected.is_empty() || selected.contains(&name))
        })
        .collect())
}

/// hbal's `-U` file: `name cpu mem dsk net` per line.
///
/// # Errors
///
/// hbal's message for the first line that is not four numbers after a
/// name.
pub fn utilisation(text: &str) -> Result<Vec<(String, [f64; 4])>, String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let fields: Vec<&str> = if line.is_empty() {
            Vec::new()
        } else {
            crate::haskell::read::split_on(line, ' ').collect()
        };
        let [name, rest @ ..] = fields.as_slice() else {
            return Err(format!("Cannot parse line {line}"));
        };
        if rest.len() != 4 {
            return Err(format!("Cannot parse line {line}"));
        }
        let mut util = [0.0; 4];
        for (slot, text) in util.iter_mut().zip(rest) {
            *slot = crate::haskell::read::read_double(text).map_err(|e| e.message(name, text))?;
        }
        out.push(((*name).to_owned(), util));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_lookup_is_ganetis() {
        let names = ["node1.example.com", "node10.example.com", "node2"];
        let find = |k: &str| lookup_name(names.iter().copied(), k);
        assert_eq!(find("node1"), Some("node1.example.com"));
        assert_eq!(find("node2"), Some("node2"));
        assert_eq!(find("node"), None);
        let dup = ["a.x", "a.y"];
        assert_eq!(lookup_name(dup.iter().copied(), "a"), None);
        assert_eq!(lookup_name(dup.iter().copied(), "a.x"), Some("a.x"));
    }

    #[test]
    fn utilisation_lines() {
        assert_eq!(
            utilisation("i1 0.5 1 2 3\n").unwrap(),
            vec![("i1".to_owned(), [0.5, 1.0, 2.0, 3.0])]
        );
        assert_eq!(
            utilisation("i1 0.5 0.5").unwrap_err(),
            "Cannot parse line i1 0.5 0.5"
        );
        assert_eq!(
            utilisation("inst cpu 1 1 1").unwrap_err(),
            "inst: cannot parse string 'cpu'"
        );
    }
}
