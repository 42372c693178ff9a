//! The comparison's configuration: profiles, options, the generated specs.

use super::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Profile {
    Ci,
    Full,
    /// allocate and multi-allocate on clusters with exclusive-storage
    /// groups (several policy specs, spindles), mixed with ordinary ones.
    Exclusive,
    None,
}

/// Which comparison to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Suite {
    /// The iallocator answers (the default).
    Answers,
    /// `-S`, `-t`, `--simulate` and `-p`.
    DataFiles,
    /// hbal against hailstone-balance.
    Balance,
    /// hsqueeze against hailstone-squeeze.
    Squeeze,
    /// hailstone-groups judged by hcheck.
    Groups,
    /// hspace against hailstone-space.
    Space,
    /// hcheck against hailstone-check.
    Check,
    /// hinfo against hailstone-info.
    Info,
    /// hroller against hailstone-roll.
    Roll,
    /// hscan against hailstone-scan.
    Scan,
}

#[derive(Debug)]
pub(super) struct Config {
    pub(super) suite: Suite,
    pub(super) profile: Profile,
    pub(super) kinds: Option<Vec<RequestKind>>,
    pub(super) count: Option<usize>,
    pub(super) nodes: Option<(usize, usize)>,
    pub(super) seed: Option<u64>,
    pub(super) samples: Option<PathBuf>,
    pub(super) no_samples: bool,
    pub(super) cases: Vec<PathBuf>,
    pub(super) hail: PathBuf,
    pub(super) hailstone: PathBuf,
    pub(super) timeout: Duration,
    pub(super) timeout_given: bool,
    pub(super) jobs: usize,
    pub(super) accepted: PathBuf,
    pub(super) accepted_given: bool,
    pub(super) keep: Option<PathBuf>,
    pub(super) install_hail: bool,
    pub(super) dump: Option<PathBuf>,
    pub(super) verbose: bool,
    /// The balance suite's settings (the test suite's location and the
    /// parts are the squeeze suite's too).
    pub(super) balance: BalanceOptions,
    /// The squeeze suite's programs.
    pub(super) squeeze: super::squeeze::SqueezeOptions,
    /// The groups suite's programs.
    pub(super) groups: super::groups::GroupsOptions,
    /// The space suite's program (hspace is `balance.hspace`).
    pub(super) space: super::space::SpaceOptions,
    /// The check suite's program (hcheck is `groups.hcheck`).
    pub(super) check: super::readonly::Programs,
    /// The info suite's programs.
    pub(super) info: super::readonly::Programs,
    /// The roll suite's programs.
    pub(super) roll: super::readonly::Programs,
    /// The scan suite's programs.
    pub(super) scan: super::readonly::Programs,
    /// `--ganeti-version`: the release whose semantics our programs are
    /// asked to follow (`None`: their default, 3.0).
    pub(super) ganeti: Option<String>,
    /// `--originals DIR` was given.
    pub(super) originals_given: bool,
}

pub(super) fn parse_args(args: &[String]) -> Result<Config, String> {
    let mut c = Config {
        suite: Suite::Answers,
        profile: Profile::Ci,
        kinds: None,
        count: None,
        nodes: None,
        seed: None,
        samples: None,
        no_samples: false,
        cases: Vec::new(),
        hail: PathBuf::from(DEFAULT_HAIL),
        hailstone: PathBuf::from(DEFAULT_HAILSTONE),
        timeout: Duration::from_secs(120),
        timeout_given: false,
        jobs: 2,
        accepted: PathBuf::from(DEFAULT_ACCEPTED),
        accepted_given: false,
        keep: None,
        install_hail: false,
        dump: None,
        verbose: false,
        balance: BalanceOptions::default(),
        squeeze: super::squeeze::SqueezeOptions::default(),
        groups: super::groups::GroupsOptions::default(),
        space: super::space::SpaceOptions::default(),
        check: super::readonly::Programs::named(super::check::NAMES),
        info: super::readonly::Programs::named(super::info::NAMES),
        roll: super::readonly::Programs::named(super::roll::NAMES),
        scan: super::readonly::Programs::named(super::scan::NAMES),
        ganeti: None,
        originals_given: false,
    };
    let mut words = toolargs::Args::new(args);
    let flag = |name: &str| matches!(name, "--no-samples" | "--install-hail" | "--verbose" | "-v");
    while let Some(arg) = words.next(|name| !flag(name)) {
        let toolargs::Arg { name, value, .. } = arg?;
        let value = value.unwrap_or_default();
        match name {
            "--profile" => {
                c.profile = match value.as_str() {
                    "ci" => Profile::Ci,
                    "full" => Profile::Full,
                    "exclusive" => Profile::Exclusive,
                    "none" => Profile::None,
                    _ => {
                        return Err(format!(
                            "unknown profile '{}' (ci, full, exclusive, none)",
                            value
                        ))
                    }
                }
            }
            "--suite" => {
                c.suite = match value.as_str() {
                    "answers" => Suite::Answers,
                    "datafiles" => Suite::DataFiles,
                    "balance" => Suite::Balance,
                    "squeeze" => Suite::Squeeze,
                    "groups" => Suite::Groups,
                    "space" => Suite::Space,
                    "check" => Suite::Check,
                    "info" => Suite::Info,
                    "roll" => Suite::Roll,
                    "scan" => Suite::Scan,
                    _ => {
                        return Err(format!(
                    "unknown suite '{value}' (answers, datafiles, balance, squeeze, groups, space, check, info, roll, scan)"
                ))
                    }
                }
            }
            "--kinds" => c.kinds = Some(generate::parse_kinds(&value)?),
            "--count" => {
                c.count = Some(
                    value
                        .parse()
                        .map_err(|_| format!("invalid count '{}'", value))?,
                )
            }
            "--nodes" => c.nodes = Some(cases::parse_range(&value)?),
            "--seed" => {
                c.seed = Some(
                    value
                        .parse()
                        .map_err(|_| format!("invalid seed '{}'", value))?,
                )
            }
            "--samples" => c.samples = Some(PathBuf::from(value)),
            "--no-samples" => c.no_samples = true,
            "--case" => c.cases.push(PathBuf::from(value)),
            "--hail" => c.hail = PathBuf::from(value),
            "--hailstone" => c.hailstone = PathBuf::from(value),
            "--timeout" => {
                let t: f64 = value
                    .parse()
                    .map_err(|_| format!("invalid timeout '{}'", value))?;
                if !(t > 0.0 && t < 1e7) {
                    return Err(format!("invalid timeout '{}'", value));
                }
                c.timeout = Duration::from_secs_f64(t);
                c.timeout_given = true;
            }
            "--jobs" | "-j" => {
                let j: usize = value
                    .parse()
                    .map_err(|_| format!("invalid job count '{}'", value))?;
                if j == 0 {
                    return Err("--jobs must be at least 1".into());
                }
                c.jobs = j;
            }
            "--accepted" => {
                c.accepted = PathBuf::from(value);
                c.accepted_given = true;
            }
            "--keep" => c.keep = Some(PathBuf::from(value)),
            "--install-hail" => c.install_hail = true,
            "--dump" => c.dump = Some(PathBuf::from(value)),
            "--verbose" | "-v" => c.verbose = true,
            "--hbal" => c.balance.hbal = PathBuf::from(value),
            "--balance-bin" => c.balance.balance_bin = PathBuf::from(value),
            "--hspace" => c.balance.hspace = Some(PathBuf::from(value)),
            "--testsuite" => c.balance.testsuite = Some(PathBuf::from(value)),
            "--testsuite-cache" => c.balance.testsuite_cache = PathBuf::from(value),
            "--parts" => c.balance.parts = Part::parse_list(&value)?,
            "--only" => c.balance.only = Some(value),
            "--hsqueeze" => c.squeeze.hsqueeze = PathBuf::from(value),
            "--squeeze-bin" => c.squeeze.squeeze_bin = PathBuf::from(value),
            "--hcheck" => {
                c.groups.hcheck = PathBuf::from(&value);
                c.check.original = PathBuf::from(value);
            }
            "--groups-bin" => c.groups.groups_bin = PathBuf::from(value),
            "--space-bin" => c.space.space_bin = PathBuf::from(value),
            "--check-bin" => c.check.ours = PathBuf::from(value),
            "--hinfo" => c.info.original = PathBuf::from(value),
            "--info-bin" => c.info.ours = PathBuf::from(value),
            "--hroller" => c.roll.original = PathBuf::from(value),
            "--roll-bin" => c.roll.ours = PathBuf::from(value),
            "--hscan" => c.scan.original = PathBuf::from(value),
            "--scan-bin" => c.scan.ours = PathBuf::from(value),
            "--originals" => {
                super::version::take_originals(&mut c, Path::new(&value));
                c.originals_given = true;
            }
            "--ganeti-version" => match value.as_str() {
                "3.0" | "3.1" => c.ganeti = Some(value),
                _ => return Err(format!("--ganeti-version must be 3.0 or 3.1, not '{value}'")),
            },
            _ => return Err(format!("unknown argument '{}'", name)),
        }
    }
    Ok(c)
}

impl Profile {
    /// Generated cases per kind.
    pub(super) fn count(self, kind: RequestKind) -> usize {
        match self {
            Profile::Ci => 60,
            Profile::Full if kind == RequestKind::Allocate => 500,
            Profile::Full | Profile::Exclusive => 300,
            Profile::None => 0,
        }
    }

    /// Node-count range.
    pub(super) fn nodes(self) -> (usize, usize) {
        match self {
            Profile::Full => (2, 200),
            Profile::Exclusive => (2, 60),
            _ => (2, 30),
        }
    }

    /// First seed.
    pub(super) fn seed(self) -> u64 {
        match self {
            Profile::Full => 1000,
            Profile::Exclusive => 5000,
            _ => 1,
        }
    }
}

/// The generated-case specs of the configuration (profile plus overrides).
pub(super) fn generated_specs(c: &Config) -> Vec<CaseSpec> {
    if !c.cases.is_empty() {
        return Vec::new();
    }
    let kinds = c.kinds.clone().unwrap_or_else(|| match c.profile {
        Profile::Exclusive => vec![RequestKind::Allocate, RequestKind::MultiAllocate],
        _ => generate::all_kinds(),
    });
    let (lo, hi) = c.nodes.unwrap_or(c.profile.nodes());
    let seed = c.seed.unwrap_or(c.profile.seed());
    let mut out = Vec::new();
    for k in kinds {
        let n = c.count.unwrap_or(match c.suite {
            // Each data-file case runs each program twice or more.
            Suite::DataFiles => c.profile.count(k) * 2 / 3,
            Suite::Answers
            | Suite::Balance
            | Suite::Squeeze
            | Suite::Groups
            | Suite::Space
            | Suite::Check
            | Suite::Info
            | Suite::Roll
            | Suite::Scan => c.profile.count(k),
        });
        out.extend(generate::corpus_specs(&[k], n, lo..=hi, seed));
    }
    if c.profile == Profile::Exclusive {
        for spec in out.iter_mut() {
            spec.features.exclusive_storage = true;
            spec.features.multi_minmax = true;
        }
    }
    out
}
