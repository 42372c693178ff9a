//! One mode and size: choosing the case, timing both programs, checking
//! that their answers agree.

use super::*;

/// What hail's column shows.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum HailTime {
    /// Median seconds over this many runs.
    Median(f64, usize),
    /// Hail hit the cap.
    Capped,
    /// Not run: hail hit the cap on a smaller cluster of the same mode.
    Skipped,
    /// Not run by design (hbal above `--hbal-max-nodes`).
    NotRun,
    /// Hail could not run (or died of a signal).
    Failed(String),
}

/// What hailstone's column shows.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum StoneTime {
    /// Median seconds over this many runs.
    Median(f64, usize),
    /// Hailstone hit the cap.
    Capped,
    /// Not run: hailstone hit the cap on a smaller cluster of the same mode.
    Skipped,
    /// Hailstone could not run (or died of a signal).
    Failed(String),
}

/// Whether the answers agree: the original's and hailstone's, or where
/// the original did not run, hailstone's runs with each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Same {
    Yes,
    No,
    /// No original's answer to compare with: every run of hailstone's that
    /// finished (the warm-up and the timed ones, at least two) wrote the
    /// same bytes with the same status.
    RunsYes,
    /// Two of hailstone's finished runs differ (whether or not the
    /// original ran: the worse news).
    RunsNo,
    NotApplicable,
}

/// One table row.
#[derive(Debug)]
pub(super) struct Row {
    pub(super) mode: Mode,
    pub(super) nodes: usize,
    pub(super) case_id: String,
    /// The seed of the case.
    pub(super) seed: u64,
    pub(super) hail: HailTime,
    pub(super) stone: StoneTime,
    pub(super) rss_kib: Option<u64>,
    pub(super) same: Same,
    /// With `--explain`: hailstone's median seconds with `--explain` (and
    /// whether its answer was the same as without).
    pub(super) explain: Option<(f64, bool)>,
    /// Notes about this case (printed under the table).
    pub(super) notes: Vec<String>,
}

/// Settings shared by all cases.
pub(super) struct Bench<'a> {
    pub(super) cfg: &'a Config,
    /// Directory of the requests (and, with `--keep`, the answers).
    pub(super) dir: PathBuf,
    /// Directory for the per-run output files.
    pub(super) scratch: PathBuf,
    /// Whether GNU time is available for the RSS measurement.
    pub(super) gnu_time: bool,
}

/// The generated request of a mode (in the independent layout for
/// `relocate-independent`).
fn generated_case(
    mode: Mode,
    nodes: usize,
    seed: u64,
    mix: Mix,
    shape: Shape,
) -> Result<Case, String> {
    let mut case = generate::generate(&spec_for(mode, nodes, seed, mix, shape));
    if mode == Mode::RelocateIndependent {
        case.request = independent_layout(&case.request)?;
    }
    Ok(case)
}

/// A request written the way another program might write it: the same
/// document with every object's keys in alphabetical order, two-space
/// indentation and `": "` separators (serde_json's pretty printer over its
/// sorted maps), nothing of the generator's layout left.
pub(super) fn independent_layout(request: &str) -> Result<String, String> {
    let doc: serde_json::Value = serde_json::from_str(request)
        .map_err(|e| format!("the generated request is not JSON: {e}"))?;
    let mut text =
        serde_json::to_string_pretty(&doc).map_err(|e| format!("cannot write the request: {e}"))?;
    text.push('\n');
    Ok(text)
}

/// The `success` and `info` of an answer, if it is one.
pub(super) fn answer_success(bytes: &[u8]) -> Option<(bool, String)> {
    let v: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let ok = v["success"].as_bool()?;
    Some((ok, v["info"].as_str().unwrap_or("").to_string()))
}

/// The case chosen for a mode and size.
pub(super) struct Chosen {
    /// The generator's case id.
    pub(super) id: String,
    /// The seed of the case.
    pub(super) seed: u64,
    /// The hail options of the case (after the request file when
    /// `positional`; for the balance rows, all the arguments).
    pub(super) options: Vec<String>,
    /// The request file (or the balance rows' data file).
    pub(super) input: PathBuf,
    /// Whether the programs take `input` as their first argument (the
    /// iallocators) or not (hbal and hailstone-balance: `-t` in `options`).
    pub(super) positional: bool,
    /// Hailstone's warm-up run under GNU time (`None` when hailstone is skipped).
    pub(super) warm: Option<Run>,
    /// Notes about the choice.
    pub(super) notes: Vec<String>,
}

impl Bench<'_> {
    /// Writes a request to the request directory; returns its path.
    pub(super) fn write_request(&self, case: &Case) -> Result<PathBuf, String> {
        let input = self.dir.join(format!("{}.json", file_stem(&case.id)));
        std::fs::write(&input, case.request.as_bytes())
            .map_err(|e| format!("cannot write the request {}: {}", input.display(), e))?;
        Ok(input)
    }

    /// Hailstone's warm-up run on a request, under GNU time for the peak RSS.
    pub(super) fn warm_up(&self, input: &Path, opts: &[String]) -> Run {
        run_once(
            &self.cfg.hailstone,
            Some(input),
            opts,
            self.cfg.hail_cap,
            &self.scratch,
            self.gnu_time,
        )
    }

    /// Chooses the case of a mode and size: the first of the seeds `--seed`,
    /// `--seed + 1`, ... whose request has the intended shape (see
    /// [`has_wanted_shape`]) and gets a successful answer from hailstone's
    /// warm-up run (an answer that is not a success moves on to the next
    /// seed, at most [`SUCCESS_TRIES`] times; no answer at all, e.g. at the
    /// cap, is accepted). Without such a seed among [`SEED_TRIES`], the case
    /// of `--seed` is used, with a note.
    pub(super) fn choose_case(
        &self,
        mode: Mode,
        nodes: usize,
        skip_stone: bool,
        seed: Option<u64>,
        progress: &str,
    ) -> Result<Chosen, String> {
        let cfg = self.cfg;
        if mode == Mode::RelocateDataFile {
            return self.choose_datafile_case(nodes, skip_stone, progress);
        }
        if mode.is_planner() {
            return self.choose_planner_case(mode, nodes, skip_stone, seed, progress);
        }
        let mut failures = 0usize;
        for k in 0..SEED_TRIES {
            let t0 = Instant::now();
            let case = generated_case(mode, nodes, cfg.seed.wrapping_add(k), cfg.mix, cfg.shape)?;
            if !has_wanted_shape(mode, &case) {
                continue;
            }
            eprintln!(
                "{} {} {}: generated {} ({}) in {:.1} s",
                progress,
                mode.name(),
                nodes,
                case.id,
                describe_request(&case),
                t0.elapsed().as_secs_f64()
            );
            let input = self.write_request(&case)?;
            if skip_stone {
                return Ok(Chosen {
                    id: case.id,
                    seed: cfg.seed.wrapping_add(k),
                    options: case.options,
                    input,
                    positional: true,
                    warm: None,
                    notes: Vec::new(),
                });
            }
            let warm = self.warm_up(&input, &case.options);
            let success = answer_success(&warm.stdout).map(|(ok, _)| ok);
            if success == Some(false) && failures + 1 < SUCCESS_TRIES {
                failures += 1;
                eprintln!(
                    "{}   hailstone's answer is not a success; trying the next seed",
                    progress
                );
                let _ = std::fs::remove_file(&input);
                continue;
            }
            return Ok(Chosen {
                id: case.id,
                seed: cfg.seed.wrapping_add(k),
                options: case.options,
                input,
                positional: true,
                warm: Some(warm),
                notes: Vec::new(),
            });
        }
        let case = generated_case(mode, nodes, cfg.seed, cfg.mix, cfg.shape)?;
        let note = format!(
            "{} {}: no seed in {}..={} gives a request of the intended shape with a successful answer; timed {} as generated",
            mode.name(),
            nodes,
            cfg.seed,
            cfg.seed.wrapping_add(SEED_TRIES - 1),
            case.id
        );
        eprintln!("{} {}", progress, note);
        let input = self.write_request(&case)?;
        let warm = if skip_stone {
            None
        } else {
            Some(self.warm_up(&input, &case.options))
        };
        Ok(Chosen {
            id: case.id,
            seed: cfg.seed,
            options: case.options,
            input,
            positional: true,
            warm,
            notes: vec![note],
        })
    }

    /// The data-file case: the relocate mode's cluster of this size saved
    /// as a data file by hailstone's `-S` (the comparison checks those
    /// files against hail's), read with `-t` for a two-node relocate
    /// request; whatever the answer, both programs give the same one.
    fn choose_datafile_case(
        &self,
        nodes: usize,
        skip_stone: bool,
        progress: &str,
    ) -> Result<Chosen, String> {
        let cfg = self.cfg;
        let big = generate::generate(&spec_for(
            Mode::Relocate,
            nodes,
            cfg.seed,
            cfg.mix,
            cfg.shape,
        ));
        let big_input = self.write_request(&big)?;
        let save = self.dir.join(format!("{}-state", file_stem(&big.id)));
        let mut args: Vec<std::ffi::OsString> = vec![big_input.clone().into()];
        args.extend(big.options.iter().map(Into::into));
        args.push("-S".into());
        args.push(save.clone().into());
        let saved = process::run(&process::Invocation {
            program: &cfg.hailstone,
            args,
            cwd: Path::new("/"),
            cap: cfg.hail_cap,
            measure_rss: false,
            scratch: &self.scratch,
        });
        let data = save.with_extension("pre-ialloc");
        if !data.is_file() {
            return Err(format!(
                "hailstone did not save {} ({})",
                data.display(),
                saved.describe()
            ));
        }
        let _ = std::fs::remove_file(save.with_extension("post-ialloc"));
        let size = std::fs::metadata(&data).map_or(0, |m| m.len());
        let tiny = generate::generate(&spec_for(Mode::Relocate, 2, cfg.seed, cfg.mix, cfg.shape));
        let input = self.write_request(&tiny)?;
        let mut options = tiny.options.clone();
        options.push("-t".to_owned());
        options.push(data.display().to_string());
        eprintln!(
            "{progress} relocate-datafile {nodes}: {} saved as a {:.1} MB data file, read with {}",
            big.id,
            size as f64 / 1e6,
            tiny.id
        );
        let warm = (!skip_stone).then(|| self.warm_up(&input, &options));
        Ok(Chosen {
            id: format!("{} read from a data file", big.id),
            seed: cfg.seed,
            options,
            input,
            positional: true,
            warm,
            notes: Vec::new(),
        })
    }

    /// A planner's case: the generator's cluster of this size (one group,
    /// five DRBD instances per node for balance, ext for squeeze, DRBD and
    /// plain for space) saved as a data file the way `hail -S` saves it,
    /// planned with `-t FILE -C` (space: `-t FILE --machine-readable`, and
    /// `--allocator-model` on its second row, on the same data file).
    ///
    /// The case of `--seed`, but for the space rows the first of `--seed`,
    /// `--seed + 1`, ... (at most [`SUCCESS_TRIES`]) where hailstone-space's
    /// warm-up run counts at least one instance: a cluster that fails N+1
    /// as generated (seed 1's of 200 nodes) has room for none, and counting
    /// nothing times nothing. The `--allocator-model` row takes the space
    /// row's seed (`seed`).
    fn choose_planner_case(
        &self,
        mode: Mode,
        nodes: usize,
        skip_stone: bool,
        seed: Option<u64>,
        progress: &str,
    ) -> Result<Chosen, String> {
        let cfg = self.cfg;
        let tries = if mode == Mode::Space && seed.is_none() {
            SUCCESS_TRIES as u64
        } else {
            1
        };
        let first = seed.unwrap_or(cfg.seed);
        let mut notes = Vec::new();
        let mut k = 0;
        loop {
            let seed = first.wrapping_add(k);
            let t0 = Instant::now();
            let case = generate::generate(&spec_for(mode, nodes, seed, cfg.mix, cfg.shape));
            let text = hailstone::shell::datafile::from_request(
                case.request.as_bytes(),
                &hailstone::program::hail::options::LoadOptions::default(),
            )
            .map_err(|e| format!("the generated cluster {} is not read back: {e}", case.id))?;
            // The request's kind and template mean nothing to a planner: the
            // id names the planner and the instances' templates instead.
            let instances_template = match mode {
                Mode::Squeeze => "ext",
                Mode::Compress => "ext-drbd",
                Mode::Space | Mode::SpaceModel => "drbd-plain",
                _ => "drbd",
            };
            let data_id = planner_id(&case.id, mode, instances_template);
            // Both space rows read the same data file.
            let input = self.dir.join(format!("{}.data", file_stem(&data_id)));
            let id = if mode == Mode::SpaceModel {
                format!("{data_id}/allocator-model")
            } else {
                data_id
            };
            std::fs::write(&input, text.as_bytes())
                .map_err(|e| format!("cannot write the data file {}: {}", input.display(), e))?;
            let instances = text.split("\n\n").nth(2).map_or(0, |s| s.lines().count());
            eprintln!(
                "{progress} {} {nodes}: generated {id} ({instances} instances, {:.2} MB data file) in {:.1} s",
                mode.name(),
                text.len() as f64 / 1e6,
                t0.elapsed().as_secs_f64()
            );
            let mut options = planner_options(mode, &input);
            match mode {
                Mode::Space => options.push("--machine-readable".to_owned()),
                Mode::SpaceModel => {
                    options.extend(["--machine-readable", "--allocator-model"].map(str::to_owned))
                }
                Mode::Compress => {}
                _ => options.push("-C".to_owned()),
            }
            let warm = (!skip_stone).then(|| {
                run_once(
                    match mode {
                        Mode::Squeeze => &cfg.squeeze_bin,
                        Mode::Space | Mode::SpaceModel => &cfg.space_bin,
                        Mode::Compress => &cfg.groups_bin,
                        _ => &cfg.balance_bin,
                    },
                    None,
                    &options,
                    cfg.cap(mode),
                    &self.scratch,
                    self.gnu_time,
                )
            });
            let counts = warm
                .as_ref()
                .filter(|w| w.status == Status::Exited(0))
                .and_then(|w| space_counts(&w.stdout));
            if tries > 1 && counts == Some((0, 0)) {
                if k + 1 < tries {
                    eprintln!("{progress}   no instance fits {id}; trying the next seed");
                    let _ = std::fs::remove_file(&input);
                    k += 1;
                    continue;
                }
                notes.push(format!(
                    "{} {nodes}: no instance fits the clusters of seeds {first}..={seed}; timed {id}",
                    mode.name()
                ));
            } else if k > 0 {
                notes.push(format!(
                    "{} {nodes}: seed {seed}, the first from {first} where an instance fits",
                    mode.name()
                ));
            }
            return Ok(Chosen {
                id,
                seed,
                options,
                input,
                positional: false,
                warm,
                notes,
            });
        }
    }

    /// Generates, writes and times one case. `skip_hail` (`skip_stone`) is
    /// true when hail (hailstone) already hit the cap on a smaller cluster of
    /// this mode. `space_row` is the space row of this size, for the space
    /// `--allocator-model` row: hspace has no such mode, so that row's hspace
    /// column is the space row's (hspace's default run, not run again), and
    /// its case the space row's seed.
    pub(super) fn run_case(
        &self,
        mode: Mode,
        nodes: usize,
        skip_hail: bool,
        skip_stone: bool,
        space_row: Option<&Row>,
        progress: &str,
    ) -> Result<Row, String> {
        let cfg = self.cfg;
        let cap = cfg.cap(mode);
        let (given_hail, given_seed) = match (mode, space_row) {
            (Mode::SpaceModel, Some(r)) => (Some(r.hail.clone()), Some(r.seed)),
            (Mode::SpaceModel, None) => (Some(HailTime::NotRun), None),
            _ => (None, None),
        };
        let Chosen {
            id,
            seed,
            options: opts,
            input,
            positional,
            warm,
            mut notes,
        } = self.choose_case(mode, nodes, skip_stone, given_seed, progress)?;
        let (original, ours) = if mode == Mode::Balance {
            (&cfg.hbal, &cfg.balance_bin)
        } else if mode == Mode::Squeeze {
            (&cfg.hsqueeze, &cfg.squeeze_bin)
        } else if mode == Mode::Compress {
            // No original: another build when asked, else nothing runs in
            // that column (NotRun below).
            (
                cfg.groups_against.as_ref().unwrap_or(&cfg.groups_bin),
                &cfg.groups_bin,
            )
        } else if mode.table() == Mode::Space {
            (&cfg.hspace, &cfg.space_bin)
        } else {
            (&cfg.hail, &cfg.hailstone)
        };
        let arg_input = positional.then_some(input.as_path());

        // The warm-up run gives the peak RSS; a warm-up that does not finish
        // ends hailstone's part of the case.
        let rss_kib = warm.as_ref().and_then(|w| w.rss_kib);
        let mut stone_bad: Option<StoneTime> = match warm.as_ref().map(|w| &w.status) {
            None => Some(StoneTime::Skipped),
            Some(Status::Capped) => Some(StoneTime::Capped),
            Some(Status::SpawnError(_)) | Some(Status::Signalled) => Some(StoneTime::Failed(
                warm.as_ref().map(Run::describe).unwrap_or_default(),
            )),
            Some(Status::Exited(_)) => None,
        };
        let mut stone_runs: Vec<Duration> = Vec::new();
        let mut stone_last: Option<Run> = None;
        // hailstone's finished runs, compared with each other.
        let mut own = RunsCheck::new();
        if let Some(w) = &warm {
            own.add(w);
        }

        // Timed runs, hail and hailstone alternating.
        let mut hail_runs: Vec<Duration> = Vec::new();
        let mut hail_last: Option<Run> = None;
        // (A given hail column is taken as it is: no run.)
        let mut hail_bad: Option<HailTime> = if given_hail.is_some() {
            given_hail
        } else if (mode == Mode::Balance && nodes > cfg.hbal_max_nodes)
            || (!mode.is_planner() && nodes > cfg.hail_max_nodes)
            || (mode == Mode::Compress && cfg.groups_against.is_none())
        {
            Some(HailTime::NotRun)
        } else if skip_hail {
            Some(HailTime::Skipped)
        } else {
            None
        };
        let mut hail_planned = cfg.hail_runs.unwrap_or(cfg.runs);
        let mut i = 0;
        loop {
            let stone_more = stone_bad.is_none() && i < cfg.runs;
            let hail_more = hail_bad.is_none() && i < hail_planned;
            if !stone_more && !hail_more {
                break;
            }
            if stone_more {
                let r = run_once(ours, arg_input, &opts, cap, &self.scratch, false);
                match r.status {
                    Status::Capped => stone_bad = Some(StoneTime::Capped),
                    Status::SpawnError(_) | Status::Signalled => {
                        stone_bad = Some(StoneTime::Failed(r.describe()))
                    }
                    Status::Exited(_) => stone_runs.push(r.wall),
                }
                own.add(&r);
                stone_last = Some(r);
            }
            if hail_more {
                let r = run_once(original, arg_input, &opts, cap, &self.scratch, false);
                match r.status {
                    Status::Capped => hail_bad = Some(HailTime::Capped),
                    Status::SpawnError(_) | Status::Signalled => {
                        hail_bad = Some(HailTime::Failed(r.describe()))
                    }
                    Status::Exited(_) => {
                        // A slow hail runs once unless --hail-runs asks for more.
                        if i == 0 && cfg.hail_runs.is_none() && r.wall > SLOW_HAIL {
                            hail_planned = 1;
                        }
                        hail_runs.push(r.wall);
                    }
                }
                eprintln!(
                    "{}   {} run {}: {:.3} s ({})",
                    progress,
                    mode.original(),
                    i + 1,
                    r.wall.as_secs_f64(),
                    r.describe()
                );
                hail_last = Some(r);
            }
            i += 1;
        }

        let stone = match stone_bad {
            Some(b) => b,
            None => match median(&stone_runs) {
                Some(m) => StoneTime::Median(m, stone_runs.len()),
                None => StoneTime::Failed("no run".to_string()),
            },
        };
        let hail = match hail_bad {
            Some(b) => b,
            None => match median(&hail_runs) {
                Some(m) => HailTime::Median(m, hail_runs.len()),
                None => HailTime::Failed("no run".to_string()),
            },
        };

        // Compare the last answers. A hailstone crash next to a finished hail
        // counts as a different answer.
        let against_original = match (&hail, &hail_last, &stone_last) {
            (HailTime::Median(..), Some(h), Some(s))
                if matches!(stone, StoneTime::Median(..) | StoneTime::Failed(_)) =>
            {
                if h.status == s.status && h.stdout == s.stdout {
                    Same::Yes
                } else {
                    Same::No
                }
            }
            _ => Same::NotApplicable,
        };
        // Where the original gave no answer to compare with, hailstone's
        // runs are compared with each other; runs that differ are reported
        // whatever the original did.
        let same = match against_original {
            _ if own.differ.is_some() => Same::RunsNo,
            Same::NotApplicable if own.finished >= 2 => Same::RunsYes,
            s => s,
        };
        let label = format!("{} {}", mode.name(), nodes);
        if let (Some(k), Some((first_status, first))) = (own.differ, &own.first) {
            notes.push(format!(
                "{label}: {}'S RUNS DIFFER ({id}): finished run {} (the warm-up is run 1) is not run 1's{}\n    {:<10} {}\n    {:<10} {}",
                mode.ours().to_uppercase(),
                k + 1,
                if own.other_status != *first_status {
                    format!(" (status {first_status:?}, then {:?})", own.other_status)
                } else {
                    String::new()
                },
                "run 1:",
                head(first, SHOW_CHARS),
                format!("run {}:", k + 1),
                head(&own.other, SHOW_CHARS)
            ));
        }
        if let (true, StoneTime::Median(m, _)) = (mode.is_reading(), &stone) {
            // The request, and the data file of the data-file row.
            let data_file = opts
                .iter()
                .position(|o| o == "-t")
                .and_then(|i| opts.get(i + 1));
            let bytes: u64 = std::iter::once(input.as_path())
                .chain(data_file.map(Path::new))
                .filter_map(|p| std::fs::metadata(p).ok())
                .map(|md| md.len())
                .sum();
            notes.push(format!(
                "{label}: reading speed {:.0} MB/s ({:.1} MB read and answered in {:.3} s, the whole run)",
                bytes as f64 / 1e6 / m,
                bytes as f64 / 1e6,
                m
            ));
        }
        let balance_note = |s: &Run| {
            let text = String::from_utf8_lossy(&s.stdout);
            match text
                .lines()
                .find_map(|l| l.strip_prefix("Solution length="))
            {
                Some(n) => format!("{label}: solution length {n}"),
                None => format!(
                    "{label}: hailstone-balance printed no solution ({}); stderr: {}",
                    s.describe(),
                    head(&s.stderr, SHOW_CHARS)
                ),
            }
        };
        let squeeze_note = |s: &Run| {
            let text = String::from_utf8_lossy(&s.stdout);
            let count = |what: &str| {
                text.lines()
                    .filter(|l| l.trim_start().starts_with(what))
                    .count()
            };
            let (off, on) = (
                count("gnt-node power -f off "),
                count("gnt-node power -f on "),
            );
            if s.status != Status::Exited(0) {
                format!(
                    "{label}: hailstone-squeeze failed ({}); stderr: {}",
                    s.describe(),
                    head(&s.stderr, SHOW_CHARS)
                )
            } else if off > 0 {
                format!("{label}: {off} nodes powered off")
            } else if on > 0 {
                format!("{label}: {on} nodes powered on")
            } else {
                format!("{label}: no action")
            }
        };
        let compress_note = |s: &Run| {
            let text = String::from_utf8_lossy(&s.stdout);
            let line = |prefix: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(prefix))
                    .map(str::to_owned)
            };
            if s.status != Status::Exited(0) {
                format!(
                    "{label}: hailstone-groups compress failed ({}); stderr: {}",
                    s.describe(),
                    head(&s.stderr, SHOW_CHARS)
                )
            } else {
                match (
                    line("Groups that can be emptied: "),
                    line("The group that frees the most is "),
                ) {
                    (Some(groups), Some(best)) => format!(
                        "{label}: groups that can be emptied: {groups}; the one that frees the most {}",
                        best.split(';').next().unwrap_or(&best)
                    ),
                    _ => format!("{label}: no group can be emptied"),
                }
            }
        };
        let space_note = |s: &Run| {
            if s.status != Status::Exited(0) {
                return format!(
                    "{label}: hailstone-space failed ({}); stderr: {}",
                    s.describe(),
                    head(&s.stderr, SHOW_CHARS)
                );
            }
            match space_counts(&s.stdout) {
                Some((tiered, standard)) => format!(
                    "{label}: {tiered} tiered and {standard} standard instances fit ({}'s count)",
                    if mode == Mode::SpaceModel {
                        "hailstone-space --allocator-model"
                    } else {
                        "hailstone-space"
                    }
                ),
                None => format!(
                    "{label}: hailstone-space printed no instance counts; stderr: {}",
                    head(&s.stderr, SHOW_CHARS)
                ),
            }
        };
        if let Some(s) = stone_last
            .as_ref()
            .or(warm.as_ref())
            .filter(|_| mode.is_planner())
        {
            if s.status != Status::Capped {
                notes.push(match mode.table() {
                    Mode::Balance => balance_note(s),
                    Mode::Space => space_note(s),
                    Mode::Compress => compress_note(s),
                    _ => squeeze_note(s),
                });
            }
        } else if let Some(s) = stone_last.as_ref().or(warm.as_ref()) {
            match answer_success(&s.stdout) {
                Some((true, _)) => {}
                Some((false, info)) => notes.push(format!(
                    "{}: hailstone's answer is not a success: {}",
                    label,
                    head(info.as_bytes(), SHOW_CHARS)
                )),
                None if s.status == Status::Capped => {}
                None => notes.push(format!(
                    "{}: hailstone wrote no answer ({}); stderr: {}",
                    label,
                    s.describe(),
                    head(&s.stderr, SHOW_CHARS)
                )),
            }
        }
        if same == Same::No {
            if let (Some(h), Some(s)) = (&hail_last, &stone_last) {
                notes.push(format!(
                    "{}: ANSWERS DIFFER ({}; {} {}, {} {})\n    {:<10} {}\n    {:<10} {}",
                    label,
                    id,
                    mode.original(),
                    h.describe(),
                    mode.ours(),
                    s.describe(),
                    format!("{}:", mode.original()),
                    head(&h.stdout, SHOW_CHARS),
                    format!("{}:", mode.ours()),
                    head(&s.stdout, SHOW_CHARS)
                ));
            }
        }
        if let HailTime::Failed(why) = &hail {
            notes.push(format!("{}: {} failed: {}", label, mode.original(), why));
        }
        if let StoneTime::Failed(why) = &stone {
            notes.push(format!("{}: {} failed: {}", label, mode.ours(), why));
        }
        if rss_kib.is_some() && warm.as_ref().is_some_and(|w| w.status == Status::Capped) {
            notes.push(format!(
                "{label}: {}'s peak RSS is the peak when its run was stopped at the cap",
                mode.ours()
            ));
        }
        if stone == StoneTime::Capped {
            notes.push(format!(
                "{}: {} HIT THE CAP ({} s)",
                label,
                mode.ours().to_uppercase(),
                cap_text(cap).trim_start_matches("> ")
            ));
        }

        // The same runs with an explanation written to a file.
        let explain = match (&stone, &stone_last) {
            (StoneTime::Median(..), Some(last)) if cfg.explain && !mode.is_planner() => {
                let mut with = opts.clone();
                with.push(format!(
                    "--explain={}",
                    self.scratch.join("explanation").display()
                ));
                let mut times = Vec::new();
                let mut same_answer = true;
                for _ in 0..cfg.runs {
                    let r = run_once(ours, arg_input, &with, cap, &self.scratch, false);
                    if same_answer && (r.status != last.status || r.stdout != last.stdout) {
                        same_answer = false;
                        notes.push(format!(
                            "{} {nodes}: with --explain, another answer ({}); stderr: {}",
                            mode.name(),
                            r.describe(),
                            head(&r.stderr, SHOW_CHARS)
                        ));
                    }
                    times.push(r.wall);
                }
                median(&times).map(|m| (m, same_answer))
            }
            _ => None,
        };
        // Keep the answers next to the request when asked to.
        if cfg.keep.is_some() {
            let stem = file_stem(&id);
            for (who, run) in [(mode.original(), &hail_last), (mode.ours(), &stone_last)] {
                if let Some(r) = run {
                    let p = self.dir.join(format!("{}.{}.out", stem, who));
                    if let Err(e) = std::fs::write(&p, &r.stdout) {
                        eprintln!(
                            "hailstone-bench: warning: cannot write {}: {}",
                            p.display(),
                            e
                        );
                    }
                }
            }
            if !opts.is_empty() {
                let p = self.dir.join(format!("{}.args", stem));
                if let Err(e) = std::fs::write(&p, opts.join("\n") + "\n") {
                    eprintln!(
                        "hailstone-bench: warning: cannot write {}: {}",
                        p.display(),
                        e
                    );
                }
            }
        } else {
            let _ = std::fs::remove_file(&input);
        }

        let row = Row {
            mode,
            nodes,
            case_id: id,
            seed,
            hail,
            stone,
            rss_kib,
            same,
            explain,
            notes,
        };
        eprintln!(
            "{} {}: {} {}, {} {}, ratio {}, peak RSS (MB) {}, same answer {}",
            progress,
            label,
            mode.original(),
            with_unit(hail_cell(&row.hail, cap)),
            mode.ours(),
            with_unit(stone_cell(&row.stone, cap)),
            ratio_cell(&row, cap),
            rss_cell(row.rss_kib),
            same_cell(row.same)
        );
        Ok(row)
    }
}

/// hailstone's runs of one case compared with each other: the first run
/// that finished (exited) against each later one.
pub(super) struct RunsCheck {
    /// The first finished run's status and output.
    pub(super) first: Option<(Status, Vec<u8>)>,
    /// How many runs finished.
    pub(super) finished: usize,
    /// The first finished run that differs from the first one (counting
    /// finished runs from 0, the warm-up's first when it finished).
    pub(super) differ: Option<usize>,
    /// The status and output of the run that differs.
    pub(super) other_status: Status,
    pub(super) other: Vec<u8>,
}

impl RunsCheck {
    /// No run yet.
    pub(super) fn new() -> RunsCheck {
        RunsCheck {
            first: None,
            finished: 0,
            differ: None,
            other_status: Status::Exited(0),
            other: Vec::new(),
        }
    }

    /// Takes one more run (one that did not finish is left out).
    pub(super) fn add(&mut self, r: &Run) {
        if !matches!(r.status, Status::Exited(_)) {
            return;
        }
        match &self.first {
            None => self.first = Some((r.status.clone(), r.stdout.clone())),
            Some((status, out))
                if self.differ.is_none() && (*status != r.status || *out != r.stdout) =>
            {
                self.differ = Some(self.finished);
                self.other_status = r.status.clone();
                self.other = r.stdout.clone();
            }
            Some(_) => {}
        }
        self.finished += 1;
    }
}

/// A planner case's id: the generator's id (`KIND/TEMPLATE/nN/gG/sS...`)
/// with the planner's table name and the existing instances' templates in
/// place of the request's kind and template, which mean nothing to a
/// planner (`balance/drbd/n1000/g1/s1`).
pub(super) fn planner_id(case_id: &str, mode: Mode, instances_template: &str) -> String {
    let rest = case_id.splitn(3, '/').nth(2).unwrap_or(case_id);
    format!("{}/{instances_template}/{rest}", mode.table().name())
}

/// The arguments of a planner on a data file, before the mode's own
/// options: `compress -t FILE` for hailstone-groups, `-t FILE` for the
/// others.
pub(super) fn planner_options(mode: Mode, data: &Path) -> Vec<String> {
    let mut options = Vec::new();
    if mode == Mode::Compress {
        options.push("compress".to_owned());
    }
    options.extend(["-t".to_owned(), data.display().to_string()]);
    options
}

/// The instances a `--machine-readable` space report counts: those of the
/// tiered allocation (`HTS_TRL_INST_CNT` less `HTS_INI_INST_CNT`) and of the
/// standard one (`HTS_ALLOC_INSTANCES`).
pub(super) fn space_counts(stdout: &[u8]) -> Option<(u64, u64)> {
    let text = String::from_utf8_lossy(stdout);
    let value = |key: &str| -> Option<u64> {
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
            .and_then(|v| v.trim().parse().ok())
    };
    let tiered = value("HTS_TRL_INST_CNT")?.checked_sub(value("HTS_INI_INST_CNT")?)?;
    Some((tiered, value("HTS_ALLOC_INSTANCES")?))
}

/// One run of `bin INPUT OPTIONS...` as Ganeti runs an iallocator (or
/// `bin OPTIONS...` without an input), stopped at `cap`, under GNU time
/// with `gnu_time`.
pub(super) fn run_once(
    bin: &Path,
    input: Option<&Path>,
    opts: &[String],
    cap: Duration,
    scratch: &Path,
    gnu_time: bool,
) -> Run {
    let inv = match input {
        Some(input) => process::Invocation::iallocator(bin, input, opts, cap, scratch),
        None => process::Invocation {
            program: bin,
            args: opts.iter().map(Into::into).collect(),
            cwd: Path::new("/"),
            cap,
            measure_rss: false,
            scratch,
        },
    };
    process::run(&process::Invocation {
        measure_rss: gnu_time,
        ..inv
    })
}
