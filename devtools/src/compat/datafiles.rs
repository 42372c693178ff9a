//! The data-file suite (`--suite datafiles`): hail's `-S`, `-t`,
//! `--simulate` and `-p` against hailstone's.
//!
//! For every request (the samples and the generated corpus) both programs
//! run with `-S` and a `-p` field list (three lists in turn: the default,
//! `+` with every other field and an unknown one, and a short custom
//! list); the exit status, stdout, stderr (with the two save paths made
//! equal) and both saved files must be identical. Then both run again with
//! `-t` on the file hail saved before the run (so both read the same
//! bytes), compared the same way. Last, both simulate clusters from a
//! fixed list of `--simulate` specs (valid and invalid, one to three groups)
//! for allocation requests, compared the same way.
//!
//! A run that hail does not finish within the time limit is reported as a
//! hail timeout, apart, and not as a difference: nothing could be
//! compared (as in the answers suite).
//!
//! One accepted class (`class:hail-save-crash`, docs/compatibility.md):
//! hail dies with an `IntMap.!` lookup error while writing the final state
//! after a group-local allocation on a cluster whose other groups hold
//! instances; the answer on stdout and the saved initial state must still
//! agree.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::accepted::explained_by_class;
use super::case::{Input, Shared, Source};
use crate::cases;
use crate::generate;
use crate::process::{self, Run, Status};

/// `-p` field lists used in turn.
const PRINT_FIELDS: [&str; 3] = [
    "-p",
    "-p+idx,fqdn,plist,slist,ptags,peermap,spindle_count,hi_spindles,inst_spindles,amem,bogus",
    "-pname,fmem,xmem,umem,rmem,pfmem,rcpu",
];

/// One comparison: the case, the step, and what differed (empty when
/// identical).
pub(super) struct Compared {
    pub(super) id: String,
    pub(super) differences: Vec<String>,
    pub(super) accepted: bool,
    /// hail reached the time limit and hailstone did not: nothing to
    /// compare (reported apart, as in the answers suite, not a
    /// difference).
    pub(super) hail_timeout: bool,
}

/// Whether hail reached the time limit where hailstone finished.
fn hail_timed_out(h: &Side, s: &Side) -> bool {
    h.run.status == Status::Capped && s.run.status != Status::Capped
}

/// What one program did: its run and the two files it saved.
struct Side {
    run: Run,
    pre: Option<Vec<u8>>,
    post: Option<Vec<u8>>,
}

/// Runs `bin` with `args` and the save prefix `save` (an absolute path),
/// and reads the saved files.
fn side(bin: &Path, args: &[String], save: &Path, scratch: &Path, timeout: Duration) -> Side {
    let _ = std::fs::remove_file(save.with_extension("pre-ialloc"));
    let _ = std::fs::remove_file(save.with_extension("post-ialloc"));
    let mut all: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
    all.push("-S".into());
    all.push(save.into());
    let run = process::run(&process::Invocation {
        program: bin,
        args: all,
        cwd: Path::new("/"),
        cap: timeout,
        measure_rss: false,
        scratch,
    });
    let read = |ext: &str| std::fs::read(format!("{}.{ext}", save.display())).ok();
    Side {
        run,
        pre: read("pre-ialloc"),
        post: read("post-ialloc"),
    }
}

/// The differences between hail's side and hailstone's. `h_save` and
/// `s_save` are the save prefixes, made equal in stderr.
fn differences(h: &Side, s: &Side, h_save: &Path, s_save: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if h.run.status != s.run.status {
        out.push(format!(
            "status: hail {}, hailstone {}",
            h.run.describe(),
            s.run.describe()
        ));
    }
    if h.run.stdout != s.run.stdout {
        out.push(format!(
            "stdout: hail {:?}, hailstone {:?}",
            cases::head(&h.run.stdout, 200),
            cases::head(&s.run.stdout, 200)
        ));
    }
    let norm = |b: &[u8], save: &Path| {
        String::from_utf8_lossy(b).replace(&save.display().to_string(), "SAVE")
    };
    let (he, se) = (norm(&h.run.stderr, h_save), norm(&s.run.stderr, s_save));
    // On refusals the messages differ by design (hailstone names the file,
    // line and field); only the status and stdout count then.
    if h.run.ok() && he != se {
        let first = he
            .lines()
            .zip(se.lines())
            .find(|(a, b)| a != b)
            .map(|(a, b)| format!("hail {a:?} / hailstone {b:?}"))
            .unwrap_or_else(|| "one is longer".to_owned());
        out.push(format!("stderr: {first}"));
    }
    if h.run.ok() {
        for (what, a, b) in [
            ("pre-ialloc", &h.pre, &s.pre),
            ("post-ialloc", &h.post, &s.post),
        ] {
            if a != b {
                out.push(format!(
                    "{what} file differs (hail {} bytes, hailstone {} bytes)",
                    a.as_ref().map_or(0, Vec::len),
                    b.as_ref().map_or(0, Vec::len)
                ));
            }
        }
    }
    out
}

/// hail died writing its final state (`class:hail-save-crash`),
/// and everything before that agrees.
fn hail_save_crash(h: &Side, s: &Side) -> bool {
    let stderr = String::from_utf8_lossy(&h.run.stderr);
    h.run.status == Status::Exited(1)
        && stderr.contains("IntMap.!: key")
        && stderr.contains("before iallocator run has been written")
        && !stderr.contains("after iallocator run has been written")
        && s.run.ok()
        && h.run.stdout == s.run.stdout
        && h.pre.is_some()
        && h.pre == s.pre
        && s.post.is_some()
}

/// Compares one request: with `-S` and `-p`, then with `-t` on hail's
/// saved initial state.
fn compare_request(
    id: &str,
    input: &Path,
    options: &[String],
    variant: usize,
    dir: &Path,
    sh: &Shared,
    allow_class: bool,
) -> Vec<Compared> {
    let mut args = vec![input.display().to_string()];
    args.extend(options.iter().cloned());
    args.push(PRINT_FIELDS[variant % PRINT_FIELDS.len()].to_owned());
    let (h_save, s_save) = (dir.join("h"), dir.join("s"));
    let h = side(&sh.hail, &args, &h_save, dir, sh.timeout);
    let s = side(&sh.hailstone, &args, &s_save, dir, sh.timeout);
    let request = std::fs::read(input).unwrap_or_default();
    // A difference of the answers' own accepted classes carries over to
    // the node tables and the final state.
    let answer_class = |h: &Side, s: &Side| {
        explained_by_class(&sh.allow, &request, &h.run.stdout, &s.run.stdout).is_some()
    };
    let mut out = Vec::new();
    let diffs = differences(&h, &s, &h_save, &s_save);
    out.push(Compared {
        id: format!("{id} -S"),
        accepted: !diffs.is_empty()
            && ((allow_class && hail_save_crash(&h, &s)) || answer_class(&h, &s)),
        differences: diffs,
        hail_timeout: hail_timed_out(&h, &s),
    });
    if h.run.ok() {
        if let Some(pre) = &h.pre {
            let data = dir.join("saved.data");
            if std::fs::write(&data, pre).is_ok() {
                let mut t_args = args.clone();
                t_args.push("-t".to_owned());
                t_args.push(data.display().to_string());
                let (h_save, s_save) = (dir.join("th"), dir.join("ts"));
                let h = side(&sh.hail, &t_args, &h_save, dir, sh.timeout);
                let s = side(&sh.hailstone, &t_args, &s_save, dir, sh.timeout);
                let diffs = differences(&h, &s, &h_save, &s_save);
                out.push(Compared {
                    id: format!("{id} -t"),
                    accepted: !diffs.is_empty()
                        && ((allow_class && hail_save_crash(&h, &s)) || answer_class(&h, &s)),
                    differences: diffs,
                    hail_timeout: hail_timed_out(&h, &s),
                });
            }
        }
    }
    out
}

/// The `--simulate` specs: every spelling of the policy, units binary and
/// decimal, spindles and exclusive storage, zero nodes, and bad specs.
pub(super) fn simulate_specs() -> Vec<Vec<String>> {
    let policies = ["p", "a", "u", "preferred", "last_resort", "unallocable"];
    let disks = ["100g", "1T", "500", "2000M", "10G", "1t", "750GB", "2 g"];
    let mems = ["16g", "64g", "8192", "32G", "4GiB", "1024M"];
    let mut out = Vec::new();
    for i in 0..48usize {
        let mut spec = format!(
            "{},{},{},{},{}",
            policies[i % policies.len()],
            1 + i % 6,
            disks[i % disks.len()],
            mems[(i / 2) % mems.len()],
            [4, 8, 16, 32][i % 4]
        );
        match i % 3 {
            1 => spec.push_str(&format!(",{}", 1 + i % 5)),
            2 => spec.push_str(&format!(",{},{}", 2 + i % 4, ["True", "False"][i % 2])),
            _ => {}
        }
        out.push(vec![spec]);
    }
    for i in 0..12usize {
        out.push(
            vec![
                format!("p,{},200g,32g,8", 1 + i % 4),
                format!("{},{},1T,64g,16,{}", policies[i % 6], 1 + i % 3, 1 + i % 3),
                format!("a,{},500g,16g,4,2,{}", i % 3, ["True", "False"][i % 2]),
            ][..1 + i % 3]
                .to_vec(),
        );
    }
    for bad in [
        "x,1,1,1,1",
        "p,a,1,1,1",
        "p,1,1x,1,1",
        "p,1,1,1.5g,1",
        "p,1,1,1,c",
        "p,1,1,1,1,s",
        "p,1,1,1,1,1,true",
        "p,1,1,1",
        "",
        "p,0,1,1,1",
        "p,-2,1g,1g,1",
    ] {
        out.push(vec![bad.to_owned()]);
    }
    out
}

/// Compares one simulation for one request.
fn compare_simulation(
    id: &str,
    input: &Path,
    specs: &[String],
    variant: usize,
    dir: &Path,
    sh: &Shared,
) -> Compared {
    let mut args = vec![input.display().to_string()];
    for spec in specs {
        args.push(format!("--simulate={spec}"));
    }
    args.push(PRINT_FIELDS[variant % PRINT_FIELDS.len()].to_owned());
    let (h_save, s_save) = (dir.join("h"), dir.join("s"));
    let h = side(&sh.hail, &args, &h_save, dir, sh.timeout);
    let s = side(&sh.hailstone, &args, &s_save, dir, sh.timeout);
    Compared {
        id: id.to_owned(),
        differences: differences(&h, &s, &h_save, &s_save),
        accepted: false,
        hail_timeout: hail_timed_out(&h, &s),
    }
}

/// One unit of work of the suite.
pub(super) enum Work {
    /// A request file (a sample or a generated case written to disk).
    Request(Input),
    /// A simulation for a request.
    Simulation(usize, Vec<String>, PathBuf),
}

/// Runs one unit.
pub(super) fn process_work(i: usize, work: &Work, worker: usize, sh: &Shared) -> Vec<Compared> {
    let dir = sh.tmp.join(format!("worker{worker}"));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return vec![Compared {
            id: format!("case {i}"),
            differences: vec![format!("cannot create {}: {e}", dir.display())],
            accepted: false,
            hail_timeout: false,
        }];
    }
    match work {
        Work::Request(input) => {
            let (id, path, options) = match &input.source {
                Source::File(p) => (
                    format!(
                        "sample:{}",
                        p.file_name().unwrap_or_default().to_string_lossy()
                    ),
                    p.clone(),
                    cases::read_args(p).unwrap_or_default(),
                ),
                Source::Gen(spec) => {
                    let case = generate::generate(spec);
                    let path = dir.join("request.json");
                    if let Err(e) = std::fs::write(&path, case.request.as_bytes()) {
                        return vec![Compared {
                            id: format!("gen:{}", case.id),
                            differences: vec![format!("cannot write {}: {e}", path.display())],
                            accepted: false,
                            hail_timeout: false,
                        }];
                    }
                    (format!("gen:{}", case.id), path, case.options)
                }
            };
            let allow_class = sh.allow.iter().any(|p| p == "class:hail-save-crash");
            compare_request(&id, &path, &options, i, &dir, sh, allow_class)
        }
        Work::Simulation(n, specs, request) => {
            let id = format!(
                "simulate:{n} {} {}",
                request.file_name().unwrap_or_default().to_string_lossy(),
                specs.join(" ")
            );
            vec![compare_simulation(&id, request, specs, i, &dir, sh)]
        }
    }
}
