//! A node or instance member read straight from the input ([`Scan`]) in
//! its common shape, into the same wire values [`super::records`] reads
//! from a parsed member; anything else (an escape, a repeated key, a
//! fraction, a null where a value is read, a missing field) makes the
//! reading give up with `None`, and the member is parsed and read the
//! general way, which finds the same values or the error.

use smallvec::SmallVec;

use super::wire::{LiveData, WireDisk, WireInstance, WireInstanceBody, WireNode};
use crate::model::types::{DiskTemplate, RunState};
use crate::read::json::Scan;

/// Reads a node member, `"name": {...}`, straight from the input: the
/// node [`read_node`](super::records::read_node) reads, or `None` when anything is not in the common
/// shape (as for [`scan_instance`]); the member is then parsed and read by
/// [`read_node`](super::records::read_node).
pub(crate) fn scan_node<'a>(s: &mut Scan<'a>) -> Option<(&'a str, WireNode<'a>)> {
    let name = s.member_name()?;
    let mut seen = Seen::default();
    let mut offline = None;
    let mut drained = None;
    let mut group = None;
    let mut vm_capable = None;
    let mut ndparams = None;
    let mut tags = None;
    // The run-time numbers: `Some(None)` when present but not a plain
    // integer, which only matters if they are read (a live node).
    let mut numbers: [Option<Option<i64>>; 9] = [None; 9];
    s.object(|key, s| {
        // NODE_KEYS, in its order.
        let k: u32 = match key {
            b"offline" => 0,
            b"drained" => 1,
            b"group" => 2,
            b"vm_capable" => 3,
            b"ndparams" => 4,
            b"tags" => 5,
            b"total_spindles" => 6,
            b"free_spindles" => 7,
            b"total_memory" => 8,
            b"reserved_memory" => 9,
            b"free_memory" => 10,
            b"total_disk" => 11,
            b"free_disk" => 12,
            b"total_cpus" => 13,
            b"reserved_cpus" => 14,
            _ => return s.skip(),
        };
        seen.first(k)?;
        match k {
            0 => offline = Some(s.bool()?),
            1 => drained = Some(s.bool()?),
            2 => group = Some(s.string()?),
            3 => vm_capable = Some(if s.null() { true } else { s.bool()? }),
            4 => ndparams = Some(scan_ndparams(s)?),
            5 => tags = Some(if s.null() { Vec::new() } else { s.strings()? }),
            _ => {
                *numbers.get_mut(k as usize - 6)? = Some(int_or_skipped(s)?);
            }
        }
        Some(())
    })?;
    let offline = offline?;
    let vm_capable = vm_capable.unwrap_or(true);
    let (exclusive_storage, spindle_count) = ndparams?;
    let live = if !offline && vm_capable {
        let int = |k: usize| numbers.get(k).copied().flatten().flatten();
        Some(LiveData {
            total_spindles: if exclusive_storage {
                Some(int(0)?)
            } else {
                None
            },
            free_spindles: int(1)?,
            total_memory: int(2)? as f64,
            reserved_memory: int(3)?,
            free_memory: int(4)?,
            total_disk: int(5)? as f64,
            free_disk: int(6)?,
            total_cpus: int(7)? as f64,
            reserved_cpus: int(8)?,
        })
    } else {
        None
    };
    let wn = WireNode {
        offline,
        drained: drained?,
        group: group?,
        vm_capable,
        exclusive_storage,
        spindle_count: if exclusive_storage {
            None
        } else {
            Some(spindle_count?)
        },
        tags: tags.unwrap_or_default(),
        live,
    };
    Some((name, wn))
}

/// For values read only in some cases (a live node's numbers): a plain
/// integer, or any value that is not a number, read and dropped (`None`
/// inside). Another number is left unread, so that the member is given up.
fn int_or_skipped(s: &mut Scan<'_>) -> Option<Option<i64>> {
    Some(if matches!(s.peek()?, b'-' | b'0'..=b'9') {
        s.int()
    } else {
        s.skip()?;
        None
    })
}

/// A node's `ndparams` for [`scan_node`]: `exclusive_storage` and
/// `spindle_count` (`None` when absent or not a plain integer).
fn scan_ndparams(s: &mut Scan<'_>) -> Option<(bool, Option<i64>)> {
    let mut seen = Seen::default();
    let mut exclusive_storage = None;
    let mut spindle_count = None;
    s.object(|key, s| {
        match key {
            b"exclusive_storage" => {
                exclusive_storage = Some(seen.first(0).and_then(|()| s.bool())?)
            }
            b"spindle_count" => spindle_count = seen.first(1).and_then(|()| int_or_skipped(s))?,
            _ => s.skip()?,
        }
        Some(())
    })?;
    Some((exclusive_storage?, spindle_count))
}

/// Reads an instance member, `"name": {...}`, straight from the input:
/// the instance [`read_instance`](super::records::read_instance) reads, or `None` when anything is not
/// in the common shape (an escape, a repeated key, a missing field, a
/// value of another type or a number that is not a plain integer, an
/// unknown disk template, a NIC mode hail refuses): the member is then
/// parsed and read by [`read_instance`](super::records::read_instance), which finds the same instance or
/// the error.
pub(crate) fn scan_instance<'a>(s: &mut Scan<'a>) -> Option<(&'a str, WireInstance<'a>)> {
    let name = s.member_name()?;
    let mut seen = Seen::default();
    let mut disk_space_total = None;
    let mut disks = None;
    let mut memory = None;
    let mut vcpus = None;
    let mut tags = None;
    let mut disk_template = None;
    let mut spindle_use = None;
    let mut nic_networks = None;
    let mut run_state = RunState::Running;
    let mut forthcoming = false;
    let mut primary = None;
    let mut secondary = None;
    s.object(|key, s| {
        match key {
            b"disk_space_total" => disk_space_total = Some(seen.first(0).and_then(|()| s.int())?),
            b"disks" => disks = Some(seen.first(1).and_then(|()| scan_disks(s))?),
            b"memory" => memory = Some(seen.first(2).and_then(|()| s.int())?),
            b"vcpus" => vcpus = Some(seen.first(3).and_then(|()| s.int())?),
            b"tags" => tags = Some(seen.first(4).and_then(|()| s.strings())?),
            b"disk_template" => {
                seen.first(5)?;
                disk_template = Some(DiskTemplate::from_raw(s.string()?)?);
            }
            b"spindle_use" => spindle_use = Some(seen.first(6).and_then(|()| s.int())?),
            b"nics" => nic_networks = Some(seen.first(7).and_then(|()| scan_nics(s))?),
            b"admin_state" => {
                // hail falls back to "up" on a bad value.
                seen.first(8)?;
                run_state = if s.peek()? == b'"' {
                    match s.string()? {
                        "down" => RunState::AdminDown,
                        "offline" => RunState::AdminOffline,
                        _ => RunState::Running,
                    }
                } else {
                    s.skip()?;
                    RunState::Running
                };
            }
            b"forthcoming" => {
                seen.first(9)?;
                forthcoming = if matches!(s.peek()?, b't' | b'f') {
                    s.bool()?
                } else {
                    s.skip()?;
                    false
                };
            }
            b"nodes" => {
                seen.first(10)?;
                let mut k = 0;
                s.array(|s| {
                    let node = s.string()?;
                    match k {
                        0 => primary = Some(node),
                        1 => secondary = Some(node),
                        _ => {}
                    }
                    k += 1;
                    Some(())
                })?;
            }
            _ => s.skip()?,
        }
        Some(())
    })?;
    let body = WireInstanceBody {
        disk_space_total: disk_space_total?,
        disks: disks?,
        memory: memory?,
        vcpus: vcpus?,
        tags: tags?,
        disk_template: disk_template?,
        spindle_use: spindle_use?,
        nic_networks: nic_networks?,
        run_state,
        forthcoming,
    };
    let wi = WireInstance {
        body,
        primary: primary?,
        secondary,
    };
    Some((name, wi))
}

/// The keys of an object met so far, by number, for [`scan_instance`]:
/// a repeated key is left to the general reading (which takes the first).
#[derive(Default)]
struct Seen(u32);

impl Seen {
    /// Marks key `k`; `None` if it was met before.
    fn first(&mut self, k: u32) -> Option<()> {
        let bit = 1 << k;
        if self.0 & bit != 0 {
            return None;
        }
        self.0 |= bit;
        Some(())
    }
}

/// An instance's `disks` for [`scan_instance`]: objects with an integer
/// `size` and an integer or null `spindles`.
fn scan_disks(s: &mut Scan<'_>) -> Option<SmallVec<[WireDisk; 4]>> {
    let mut disks = SmallVec::new();
    s.array(|s| {
        let mut seen = Seen::default();
        let mut size = None;
        let mut spindles = None;
        s.object(|key, s| {
            match key {
                b"size" => size = Some(seen.first(0).and_then(|()| s.int())?),
                b"spindles" => spindles = seen.first(1).and_then(|()| s.int_or_null())?,
                _ => s.skip()?,
            }
            Some(())
        })?;
        disks.push(WireDisk {
            size: size?,
            spindles,
        });
        Some(())
    })?;
    Some(disks)
}

/// An instance's `nics` for [`scan_instance`]: objects whose keys hail
/// reads are strings or null, `mode` one hail accepts; their networks.
fn scan_nics<'a>(s: &mut Scan<'a>) -> Option<SmallVec<[Option<&'a str>; 4]>> {
    let mut networks = SmallVec::new();
    s.array(|s| {
        let mut seen = Seen::default();
        let mut network = None;
        s.object(|key, s| {
            // NIC_KEYS, in its order.
            let k = match key {
                b"mac" => 0,
                b"ip" => 1,
                b"mode" => 2,
                b"link" => 3,
                b"bridge" => 4,
                b"network" => 5,
                _ => return s.skip(),
            };
            seen.first(k)?;
            let value = s.string_or_null()?;
            if k == 2 && !matches!(value, None | Some("bridged" | "routed" | "openvswitch")) {
                return None;
            }
            if k == 5 {
                network = value;
            }
            Some(())
        })?;
        networks.push(network);
        Some(())
    })?;
    Some(networks)
}
