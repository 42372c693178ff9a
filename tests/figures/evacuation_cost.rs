//! The cost of the allocator's answers that move existing instances
//! (relocate, node-evacuate, change-group: the `cost` of
//! `--explain-format=json`) recomputed from the request's instances and the
//! answer's jobs, without the allocator's code: each
//! `OP_INSTANCE_REPLACE_DISKS` resyncs the sum of the instance's disks;
//! an `OP_INSTANCE_MIGRATE` of an instance whose admin state is up
//! copies its memory (counted also off an offline primary: the cost is an
//! upper bound there), otherwise it is a failover that copies nothing, as
//! is an `OP_INSTANCE_FAILOVER`; a relocate answer is a
//! new secondary for drbd, a migration for the others. The jobs are one
//! set: the answer's time is its longest job's.

use hailstone_devtools::generate::{generate, CaseSpec, EvacMode, RequestKind};
use serde_json::Value;

use super::{run, Findings};

/// What a job copies and does.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Cost {
    disk: i64,
    memory: i64,
    migrations: i64,
    failovers: i64,
    replacements: i64,
}

/// The cost of one instance's opcodes, from the request `req`.
fn job_cost(req: &Value, ops: &[Value]) -> Result<Cost, String> {
    let mut c = Cost::default();
    let name = ops
        .first()
        .and_then(|o| o["instance_name"].as_str())
        .ok_or("a job without an instance")?;
    let inst = &req["instances"][name];
    let disk: i64 = inst["disks"]
        .as_array()
        .ok_or_else(|| format!("{name}: no disks"))?
        .iter()
        .map(|d| d["size"].as_i64().unwrap_or(0))
        .sum();
    let running = inst["admin_state"] == "up";
    for op in ops {
        match op["OP_ID"].as_str() {
            Some("OP_INSTANCE_REPLACE_DISKS") => {
                c.disk += disk;
                c.replacements += 1;
            }
            Some(id @ ("OP_INSTANCE_MIGRATE" | "OP_INSTANCE_FAILOVER")) => {
                if id == "OP_INSTANCE_MIGRATE" && running {
                    c.memory += inst["memory"].as_i64().unwrap_or(0);
                    c.migrations += 1;
                } else {
                    c.failovers += 1;
                }
            }
            other => return Err(format!("{name}: opcode {other:?}")),
        }
    }
    Ok(c)
}

fn field(v: &Value, name: &str) -> i64 {
    v[name].as_i64().unwrap_or(-1)
}

/// One request: the answer's jobs recomputed against the explanation's
/// `cost`.
fn one(f: &mut Findings, at: &str, file: &str, rates: Option<(&str, &str, f64, f64)>) {
    let Ok(text) = std::fs::read_to_string(file) else {
        f.fault(at, "unreadable".to_owned());
        return;
    };
    let req: Value = serde_json::from_str(&text).expect("a request");
    let mut args = vec![file, "--explain", "--explain-format=json"];
    let (resync, migration) = match rates {
        Some((r, m, rv, mv)) => {
            args.extend([r, m]);
            (rv, mv)
        }
        None => (60.0, 32.0),
    };
    let out = run("hailstone", &args);
    let Ok(answer) = serde_json::from_str::<Value>(&out.stdout) else {
        f.count("refused");
        return;
    };
    let Some(e) = out.stderr.lines().find_map(|l| {
        serde_json::from_str::<Value>(l)
            .ok()
            .filter(Value::is_object)
    }) else {
        f.fault(at, format!("no JSON explanation: {}", out.stderr));
        return;
    };
    let c = &e["cost"];
    f.count("answers");
    let kind = req["request"]["type"].as_str().unwrap_or("");
    let mut jobs: Vec<(String, Cost)> = Vec::new();
    if kind == "relocate" {
        if answer["success"] == true {
            let name = req["request"]["name"].as_str().unwrap_or("");
            let inst = &req["instances"][name];
            let mut cost = Cost::default();
            if inst["disk_template"] == "drbd" {
                cost.disk = inst["disks"].as_array().map_or(0, |d| {
                    d.iter().map(|d| d["size"].as_i64().unwrap_or(0)).sum()
                });
                cost.replacements = 1;
            } else if inst["admin_state"] == "up" {
                cost.memory = inst["memory"].as_i64().unwrap_or(0);
                cost.migrations = 1;
            } else {
                cost.failovers = 1;
            }
            jobs.push((name.to_owned(), cost));
        }
    } else {
        for job in answer["result"][2].as_array().cloned().unwrap_or_default() {
            let ops = job.as_array().cloned().unwrap_or_default();
            let name = ops
                .first()
                .and_then(|o| o["instance_name"].as_str())
                .unwrap_or("")
                .to_owned();
            match job_cost(&req, &ops) {
                Ok(cost) => jobs.push((name, cost)),
                Err(err) => f.fault(at, err),
            }
        }
    }
    if jobs.is_empty() {
        // No move, no plan: no cost.
        f.count("answers without a move");
        f.same(
            at,
            "cost of an answer without a move",
            c.clone(),
            Value::Null,
        );
        return;
    }
    let printed = c["jobs"].as_array().cloned().unwrap_or_default();
    f.same(at, "cost.jobs", printed.len(), jobs.len());
    let mut total = Cost::default();
    let mut longest = 0.0_f64;
    for ((name, want), got) in jobs.iter().zip(&printed) {
        let at = format!("{at}: {name}");
        f.count("jobs");
        f.same(
            &at,
            "instance",
            got["instance"].as_str(),
            Some(name.as_str()),
        );
        let g = &got["cost"];
        f.same(&at, "disk_mib", field(g, "disk_mib"), want.disk);
        f.same(&at, "memory_mib", field(g, "memory_mib"), want.memory);
        f.same(&at, "migrations", field(g, "migrations"), want.migrations);
        f.same(&at, "failovers", field(g, "failovers"), want.failovers);
        f.same(
            &at,
            "replacements",
            field(g, "replacements"),
            want.replacements,
        );
        let secs = want.disk as f64 / resync + want.memory as f64 / migration;
        f.seconds(&at, "seconds", &g["seconds"], secs);
        longest = longest.max(secs);
        total.disk += want.disk;
        total.memory += want.memory;
        total.migrations += want.migrations;
        total.failovers += want.failovers;
        total.replacements += want.replacements;
    }
    f.same(at, "cost.moves", field(c, "moves"), jobs.len() as i64);
    f.same(
        at,
        "cost.job_sets",
        field(c, "job_sets"),
        i64::from(!jobs.is_empty()),
    );
    f.same(at, "cost.disk_mib", field(c, "disk_mib"), total.disk);
    f.same(at, "cost.memory_mib", field(c, "memory_mib"), total.memory);
    f.same(
        at,
        "cost.migrations",
        field(c, "migrations"),
        total.migrations,
    );
    f.same(at, "cost.failovers", field(c, "failovers"), total.failovers);
    f.same(
        at,
        "cost.replacements",
        field(c, "replacements"),
        total.replacements,
    );
    f.seconds(at, "cost.seconds", &c["seconds"], longest);
}

/// Ganeti's evacuation requests and generated ones of every kind that
/// moves existing instances, at Ganeti's default rates and at others.
#[test]
fn evacuation_costs_are_the_recomputed_ones() {
    let dir = super::scratch("figures-evacuation-cost");
    let mut f = Findings::default();
    let mut files: Vec<(String, String)> = Vec::new();
    if let Some(data) = super::ganeti::data_dir() {
        for name in [
            "hail-node-evac.json",
            "hail-change-group.json",
            "hail-reloc-drbd.json",
            "hail-reloc-drbd-crowded.json",
        ] {
            let path = data.join(name);
            files.push((
                format!("ganeti/{name}"),
                path.to_string_lossy().into_owned(),
            ));
        }
    }
    let kinds = [
        RequestKind::NodeEvacuate(EvacMode::All),
        RequestKind::NodeEvacuate(EvacMode::PrimaryOnly),
        RequestKind::NodeEvacuate(EvacMode::SecondaryOnly),
        RequestKind::ChangeGroup,
        RequestKind::Relocate,
    ];
    for (k, kind) in kinds.into_iter().enumerate() {
        for seed in 1..=8u64 {
            let case = generate(&CaseSpec::random(seed, kind, 3..=14));
            let path = dir.join(format!("k{k}-s{seed}.json"));
            std::fs::write(&path, &case.request).expect("write a request");
            files.push((
                format!("gen/k{k}-s{seed}"),
                path.to_string_lossy().into_owned(),
            ));
        }
    }
    for (k, (name, file)) in files.iter().enumerate() {
        f.count("requests");
        let rates = k.is_multiple_of(3).then_some((
            "--resync-rate=1g",
            "--migration-bandwidth=100",
            1024.0,
            100.0,
        ));
        one(&mut f, name, file, rates);
    }
    super::cleanup(&dir);
    f.finish(
        "hailstone evacuation cost",
        &[("requests", 40), ("answers", 30), ("jobs", 30)],
    );
}
