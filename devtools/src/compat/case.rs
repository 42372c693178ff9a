//! One case: its input (a sample file or a generated spec), the two runs
//! and what is known about it after them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::accepted::{explained_by_class, is_accepted};
use super::classify::{classify, Outcome};
use crate::cases::{self, file_stem};
use crate::generate::{self, CaseSpec, RequestKind};
use crate::process::{self, Run, Status};

/// One input of the run.
pub(super) enum Source {
    /// A file on disk (protocol sample or `--case`).
    File(PathBuf),
    /// A generated case, produced by the worker.
    Gen(CaseSpec),
}

pub(super) struct Input {
    pub(super) source: Source,
}

/// Everything known about a case after running it.
pub(super) struct Done {
    pub(super) id: String,
    pub(super) kind: String,
    pub(super) input_path: PathBuf,
    pub(super) options: Vec<String>,
    pub(super) regen: Option<String>,
    pub(super) outcome: Result<Outcome, String>,
    pub(super) hail: Option<Run>,
    pub(super) hs: Option<Run>,
    pub(super) accepted: bool,
    pub(super) kept: Option<PathBuf>,
}

/// The kind slug of a request text (`other` when it cannot be told).
pub(super) fn kind_of_request(bytes: &[u8]) -> String {
    let v: serde_json::Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(_) => return "other".to_string(),
    };
    let r = &v["request"];
    let t = r["type"].as_str().unwrap_or("");
    let slug = if t == "node-evacuate" {
        format!("node-evacuate-{}", r["evac_mode"].as_str().unwrap_or(""))
    } else {
        t.to_string()
    };
    match RequestKind::from_slug(&slug) {
        Some(k) => k.slug().to_string(),
        None => "other".to_string(),
    }
}

pub(super) struct Shared {
    pub(super) hail: PathBuf,
    pub(super) hailstone: PathBuf,
    pub(super) timeout: Duration,
    pub(super) tmp: PathBuf,
    pub(super) keep: Option<PathBuf>,
    pub(super) allow: Vec<String>,
    pub(super) nodes_arg: (usize, usize),
}

/// Runs both programs on one case; `worker` names the scratch folder.
pub(super) fn process_case(input: &Input, worker: usize, sh: &Shared) -> Done {
    let (id, kind, path, options, regen, temp) = match &input.source {
        Source::File(p) => {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            let bytes = std::fs::read(p).unwrap_or_default();
            let opts = cases::read_args(p);
            let kind = kind_of_request(&bytes);
            match opts {
                Ok(o) => (format!("sample:{}", name), kind, p.clone(), o, None, false),
                Err(e) => {
                    return Done {
                        id: format!("sample:{}", name),
                        kind,
                        input_path: p.clone(),
                        options: Vec::new(),
                        regen: None,
                        outcome: Err(e),
                        hail: None,
                        hs: None,
                        accepted: false,
                        kept: None,
                    }
                }
            }
        }
        Source::Gen(spec) => {
            let case = generate::generate(spec);
            let id = format!("gen:{}", case.id);
            let path = sh.tmp.join(format!("{}.json", file_stem(&case.id)));
            let regen = format!(
                "hailstone-gen --random --kind {} --seed {} --nodes {}-{} -o FILE.json",
                spec.kind.slug(),
                spec.seed,
                sh.nodes_arg.0,
                sh.nodes_arg.1
            );
            if let Err(e) = std::fs::write(&path, case.request.as_bytes()) {
                return Done {
                    id,
                    kind: spec.kind.slug().to_string(),
                    input_path: path.clone(),
                    options: case.options,
                    regen: Some(regen),
                    outcome: Err(format!("cannot write {}: {}", path.display(), e)),
                    hail: None,
                    hs: None,
                    accepted: false,
                    kept: None,
                };
            }
            (
                id,
                spec.kind.slug().to_string(),
                path,
                case.options,
                Some(regen),
                true,
            )
        }
    };
    let scratch = sh.tmp.join(format!("worker{worker}"));
    if let Err(e) = std::fs::create_dir_all(&scratch) {
        return Done {
            id,
            kind,
            input_path: path,
            options,
            regen,
            outcome: Err(format!("cannot create {}: {e}", scratch.display())),
            hail: None,
            hs: None,
            accepted: false,
            kept: None,
        };
    }
    let run = |bin: &Path| {
        process::run(&process::Invocation::iallocator(
            bin, &path, &options, sh.timeout, &scratch,
        ))
    };
    let hail = run(&sh.hail);
    let hs = run(&sh.hailstone);
    let outcome = match (&hail.status, &hs.status) {
        (Status::SpawnError(e), _) => Err(format!("cannot run hail: {}", e)),
        (_, Status::SpawnError(e)) => Err(format!("cannot run hailstone: {}", e)),
        _ => Ok(classify(&hail, &hs)),
    };
    let differs = match outcome {
        Ok(o) => o.is_difference(),
        Err(_) => true,
    };
    let accepted = differs
        && (is_accepted(&sh.allow, &id)
            || std::fs::read(&path)
                .ok()
                .and_then(|req| explained_by_class(&sh.allow, &req, &hail.stdout, &hs.stdout))
                .is_some());
    let mut kept = None;
    if differs {
        if let Some(dir) = &sh.keep {
            let stem = file_stem(id.split_once(':').map(|x| x.1).unwrap_or(&id));
            let stem = stem.trim_end_matches(".json").to_string();
            let dst = dir.join(format!("{}.json", stem));
            if std::fs::copy(&path, &dst).is_ok() {
                let mut a = String::new();
                for o in &options {
                    a.push_str(o);
                    a.push('\n');
                }
                let _ = std::fs::write(dst.with_extension("args"), a);
                kept = Some(dst);
            }
        }
    }
    if temp {
        let _ = std::fs::remove_file(&path);
    }
    Done {
        id,
        kind,
        input_path: path,
        options,
        regen,
        outcome,
        hail: Some(hail),
        hs: Some(hs),
        accepted,
        kept,
    }
}
