//! The `model` part: hailstone-space `--allocator-model` against hail
//! itself. On each generated cluster and each disk template the policy
//! allows among drbd, plain and ext, the standard count of
//! `hailstone-space --allocator-model` must be the number of successive
//! allocate requests for the standard spec that hail accepts, each run on
//! the state hail saved after the previous one (`hail -t STATE -S NEXT`),
//! the instance as Ganeti's master asks for it
//! (`gnt-instance add -t T --disk 0:size=D -B memory=M,vcpus=C`: one disk,
//! its size plus 128 MiB of drbd metadata in `disk_space_total`, the
//! policy's standard spindle use). hail is asked once more than the count,
//! so a count too small is found as surely as one too large. Between two
//! requests the saved state's free memory is lowered as the master would
//! report it once the instance runs (see [`started`]).

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use crate::process::{self, Invocation, Status};

/// The disk templates tried, where the cluster policy allows them.
pub const TEMPLATES: [&str; 3] = ["drbd", "plain", "ext"];

/// The outcome of one comparison: the differences (none when the counts
/// agree), and the wall times of hail's requests (summed) and of
/// hailstone-space.
pub struct ModelRun {
    pub differences: Vec<String>,
    pub walls: (Duration, Duration),
    /// The count both agreed on (or hailstone-space's).
    pub count: usize,
    /// hail answered request N and died saving its state
    /// (`class:hail-save-crash`, docs/compatibility.md): the chain stops
    /// there, and the counts are compared as far as it went.
    pub save_crash: Option<usize>,
}

/// The value of `HTS_NAME` in machine-readable output.
fn key(stdout: &str, name: &str) -> Option<i64> {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(&format!("HTS_{name}=")))?
        .trim_matches('\'')
        .parse()
        .ok()
}

/// The cluster policy's standard spindle use (the sixth field of the
/// standard spec of the cluster's own policy line, `|std|...`).
fn std_spindle_use(data: &str) -> i64 {
    data.lines()
        .find(|l| l.starts_with('|'))
        .and_then(|l| l.split('|').nth(1))
        .and_then(|std| std.split(',').nth(5))
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
}

/// An allocate request for instance `new-N` of the spec, as the master
/// sends it (the cluster's data is replaced by `-t`).
fn request(n: usize, template: &str, spec: (i64, i64, i64, i64), spindle_use: i64) -> String {
    let (mem, dsk, cpu, spn) = spec;
    let meta = if template == "drbd" { 128 } else { 0 };
    let nodes = if template == "drbd" { 2 } else { 1 };
    serde_json::json!({
        "cluster_name": "cluster.example.com",
        "cluster_tags": [],
        "enabled_hypervisors": ["kvm"],
        "ipolicy": {},
        "nodegroups": {},
        "nodes": {},
        "instances": {},
        "request": {
            "type": "allocate",
            "name": format!("new-{n}"),
            "disk_template": template,
            "disks": [{"size": dsk, "mode": "rw", "spindles": spn}],
            "disk_space_total": dsk + meta,
            "memory": mem,
            "vcpus": cpu,
            "spindle_use": spindle_use,
            "nics": [],
            "tags": [],
            "os": "debian-image",
            "hypervisor": "kvm",
            "required_nodes": nodes,
        },
        "version": 2
    })
    .to_string()
}

/// The state hail saved after placing `name`, as the master reports the
/// cluster once the instance runs: hail's saved file keeps its primary
/// node's free memory as it was read (it lowers the free disk only), so a
/// chain of `hail -t STATE -S NEXT` runs would never see the new
/// instances' memory; the primary's free memory (the node line's fourth
/// field) loses the instance's memory (its second field). `None` when the
/// instance or its node is not in the file.
pub fn started(saved: &str, name: &str) -> Option<String> {
    let inst = saved.lines().find(|l| l.split('|').next() == Some(name))?;
    let fields: Vec<&str> = inst.split('|').collect();
    let (mem, primary) = (fields.get(1)?.parse::<i64>().ok()?, *fields.get(6)?);
    let mut found = false;
    let lines: Vec<String> = saved
        .split('\n')
        .map(|l| {
            let mut f: Vec<String> = l.split('|').map(str::to_owned).collect();
            if !found && f.len() >= 10 && f[0] == primary {
                if let Ok(free) = f[3].parse::<i64>() {
                    f[3] = (free - mem).to_string();
                    found = true;
                    return f.join("|");
                }
            }
            l.to_owned()
        })
        .collect();
    found.then(|| lines.join("\n"))
}

/// Compares the two counts on the cluster `data` for `template`, working
/// in `dir`. `None` when hailstone-space refuses to count (no online node
/// for the template, or the policy refuses it): nothing to compare.
pub fn compare(
    space: &Path,
    hail: &Path,
    data: &str,
    template: &str,
    dir: &Path,
    cap: Duration,
) -> Result<Option<ModelRun>, String> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
        Ok::<_, String>(p)
    };
    let mut state = write("s0.data", data)?;
    let q = process::run(&Invocation {
        program: space,
        args: [
            "--allocator-model",
            "--machine-readable",
            &format!("--disk-template={template}"),
            "-t",
        ]
        .iter()
        .map(OsString::from)
        .chain([state.clone().into_os_string()])
        .collect(),
        cwd: dir,
        cap,
        measure_rss: false,
        scratch: dir,
    });
    if q.status != Status::Exited(0) {
        return Ok(None);
    }
    let out = String::from_utf8_lossy(&q.stdout);
    let (Some(count), Some(mem), Some(dsk), Some(cpu), Some(spn)) = (
        key(&out, "ALLOC_INSTANCES"),
        key(&out, "SPEC_MEM"),
        key(&out, "SPEC_DSK"),
        key(&out, "SPEC_CPU"),
        key(&out, "SPEC_SPN"),
    ) else {
        return Ok(None);
    };
    let count = usize::try_from(count).map_err(|_| format!("a negative count {count}"))?;
    let spindle_use = std_spindle_use(data);
    let mut hail_wall = Duration::ZERO;
    let mut accepted = 0usize;
    let mut refusal = String::new();
    let mut save_crash = None;
    while accepted <= count {
        let req = write(
            "request.json",
            &request(accepted, template, (mem, dsk, cpu, spn), spindle_use),
        )?;
        let next = dir.join(format!("s{}", accepted + 1));
        let h = process::run(&Invocation {
            program: hail,
            args: vec![
                "-t".into(),
                state.clone().into_os_string(),
                "-S".into(),
                next.clone().into_os_string(),
                req.into_os_string(),
            ],
            cwd: dir,
            cap,
            measure_rss: false,
            scratch: dir,
        });
        hail_wall += h.wall;
        let stderr = String::from_utf8_lossy(&h.stderr);
        if h.status == Status::Exited(1)
            && stderr.contains("IntMap.!: key ")
            && stderr.contains(" is not an element of the map")
            && serde_json::from_slice::<serde_json::Value>(&h.stdout)
                .is_ok_and(|a| a["success"] == serde_json::Value::Bool(true))
        {
            save_crash = Some(accepted);
            accepted += 1;
            break;
        }
        if !h.ok() {
            return Err(format!(
                "hail {} on request {accepted}: {}",
                h.describe(),
                String::from_utf8_lossy(&h.stderr)
            ));
        }
        let answer: serde_json::Value = serde_json::from_slice(&h.stdout)
            .map_err(|e| format!("hail's answer to request {accepted}: {e}"))?;
        if answer["success"] != serde_json::Value::Bool(true) {
            refusal = answer["info"]
                .as_str()
                .unwrap_or("")
                .chars()
                .take(200)
                .collect();
            break;
        }
        accepted += 1;
        state = next.with_extension("post-ialloc");
        let saved = std::fs::read_to_string(&state)
            .map_err(|e| format!("cannot read {}: {e}", state.display()))?;
        let fixed = started(&saved, &format!("new-{}", accepted - 1)).ok_or_else(|| {
            format!(
                "{}: no instance new-{} on a node",
                state.display(),
                accepted - 1
            )
        })?;
        std::fs::write(&state, fixed)
            .map_err(|e| format!("cannot write {}: {e}", state.display()))?;
    }
    let agree = match save_crash {
        Some(_) => count >= accepted,
        None => accepted == count,
    };
    let differences = if agree {
        Vec::new()
    } else {
        vec![format!(
            "hailstone-space --allocator-model counts {count} {template} instances of {mem} MiB, {dsk} MiB, {cpu} CPUs; hail accepts {accepted} one by one{}",
            if refusal.is_empty() { String::new() } else { format!(" (then: {refusal})") }
        )]
    };
    let _ = std::fs::remove_dir_all(dir);
    Ok(Some(ModelRun {
        differences,
        walls: (hail_wall, q.wall),
        count,
        save_crash,
    }))
}
