//! Storage partitions (seed 004, "Shared storage support" and "Super
//! cluster operations"): the storage type and pool an instance's disks
//! come from, and which node groups share one.
//!
//! Ganeti 3.0.2 exports neither a node's pools nor an instance's
//! `storage_pool`, so both are derived from what the request and the data
//! file do carry: an instance's pool from its disk template, and a group's
//! pools from the disk templates its instance policy allows (a group whose
//! policy refuses a template cannot hold its instances, so it cannot be in
//! that template's partition). Internal storage has two pools, `lvm`
//! (plain and drbd) and `file`; each external template is its own opaque
//! pool (the iallocator message carries no provider or pool name, so all
//! `ext` instances share one). Diskless instances need no storage: their
//! "pool" is memory only, shared by every group allowing the template.
//!
//! Two groups are connected when they have a pool in common; a group
//! alone in every one of its partitions can neither give nor take an
//! instance.

use super::group::Group;
use super::types::DiskTemplate;

/// A storage pool (`storage_pool`), in a fixed order for output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StoragePool {
    /// The nodes' volume group: plain and drbd.
    Lvm,
    /// The nodes' file storage directory.
    File,
    /// A cluster-wide shared file system.
    SharedFile,
    /// A Gluster volume.
    Gluster,
    /// A Ceph RADOS pool.
    Rbd,
    /// An external storage provider.
    Ext,
    /// Pre-existing block devices.
    Blockdev,
    /// No storage (diskless instances).
    Diskless,
}

impl StoragePool {
    /// Every pool, in output order.
    pub const ALL: [StoragePool; 8] = [
        StoragePool::Lvm,
        StoragePool::File,
        StoragePool::SharedFile,
        StoragePool::Gluster,
        StoragePool::Rbd,
        StoragePool::Ext,
        StoragePool::Blockdev,
        StoragePool::Diskless,
    ];

    /// The pool of a disk template.
    pub fn of(template: DiskTemplate) -> StoragePool {
        match template {
            DiskTemplate::Plain | DiskTemplate::Drbd => StoragePool::Lvm,
            DiskTemplate::File => StoragePool::File,
            DiskTemplate::SharedFile => StoragePool::SharedFile,
            DiskTemplate::Gluster => StoragePool::Gluster,
            DiskTemplate::Rbd => StoragePool::Rbd,
            DiskTemplate::Ext => StoragePool::Ext,
            DiskTemplate::Blockdev => StoragePool::Blockdev,
            DiskTemplate::Diskless => StoragePool::Diskless,
        }
    }

    /// `type/pool`, as the planners print it (`internal/lvm`,
    /// `external/rbd`, `none/diskless`).
    pub fn name(self) -> &'static str {
        match self {
            StoragePool::Lvm => "internal/lvm",
            StoragePool::File => "internal/file",
            StoragePool::SharedFile => "external/sharedfile",
            StoragePool::Gluster => "external/gluster",
            StoragePool::Rbd => "external/rbd",
            StoragePool::Ext => "external/ext",
            StoragePool::Blockdev => "external/blockdev",
            StoragePool::Diskless => "none/diskless",
        }
    }
}

/// The pools a group can hold instances of, in output order.
pub fn group_pools(group: &Group) -> Vec<StoragePool> {
    StoragePool::ALL
        .into_iter()
        .filter(|&p| {
            group
                .ipolicy
                .disk_templates
                .iter()
                .any(|&t| StoragePool::of(t) == p)
        })
        .collect()
}

/// The super cluster's partitions: for each pool some group has, the
/// groups (by index, in order) that have it.
pub fn partitions(groups: &[Group]) -> Vec<(StoragePool, Vec<usize>)> {
    let pools: Vec<Vec<StoragePool>> = groups.iter().map(group_pools).collect();
    StoragePool::ALL
        .into_iter()
        .map(|p| {
            let members = (0..groups.len()).filter(|&g| pools[g].contains(&p));
            (p, members.collect::<Vec<_>>())
        })
        .filter(|(_, members)| !members.is_empty())
        .collect()
}

/// The groups other than `group` that can take an instance of `template`
/// (its partition, without `group`), in order.
pub fn peer_groups(groups: &[Group], group: usize, template: DiskTemplate) -> Vec<usize> {
    let pool = StoragePool::of(template);
    (0..groups.len())
        .filter(|&g| g != group && group_pools(&groups[g]).contains(&pool))
        .collect()
}

/// Whether `group` shares a pool with another group among `among` (seed
/// 004, step 2 of the super cluster operations: a group alone in its
/// partitions is left out; the planners count only groups with nodes).
pub fn is_connected_among(groups: &[Group], group: usize, among: &[usize]) -> bool {
    let mine = group_pools(&groups[group]);
    among
        .iter()
        .any(|&g| g != group && group_pools(&groups[g]).iter().any(|p| mine.contains(p)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::policy::IPolicy;
    use crate::model::types::AllocPolicy;

    fn group(idx: usize, templates: &[DiskTemplate]) -> Group {
        let mut ipolicy = IPolicy::ganeti_default();
        ipolicy.disk_templates = templates.to_vec();
        Group {
            name: format!("g{idx}"),
            uuid: format!("u{idx}"),
            idx,
            alloc_policy: AllocPolicy::Preferred,
            networks: Vec::new(),
            ipolicy,
            tags: Vec::new(),
        }
    }

    #[test]
    fn plain_and_drbd_share_the_lvm_pool() {
        let groups = [
            group(0, &[DiskTemplate::Drbd]),
            group(1, &[DiskTemplate::Plain, DiskTemplate::Rbd]),
            group(2, &[DiskTemplate::Rbd]),
            group(3, &[DiskTemplate::File]),
        ];
        assert_eq!(peer_groups(&groups, 0, DiskTemplate::Drbd), vec![1]);
        assert_eq!(peer_groups(&groups, 1, DiskTemplate::Rbd), vec![2]);
        assert_eq!(peer_groups(&groups, 2, DiskTemplate::Drbd), vec![0, 1]);
        let all = [0, 1, 2, 3];
        assert!(is_connected_among(&groups, 0, &all));
        assert!(!is_connected_among(&groups, 3, &all));
        assert!(!is_connected_among(&groups, 2, &[0, 2]));
        assert_eq!(
            partitions(&groups),
            vec![
                (StoragePool::Lvm, vec![0, 1]),
                (StoragePool::File, vec![3]),
                (StoragePool::Rbd, vec![1, 2]),
            ]
        );
    }
}
