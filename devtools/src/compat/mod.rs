//! `hailstone-compat`: runs hailstone and Ganeti's `hail` on the same
//! iallocator requests and compares their answers.
//!
//! The compatibility driver used by `make compat` (the `ci` profile) and
//! `make compat-full` (the `full` profile). Inputs are the files in
//! `protocol-samples/` (each with an optional `<name>.args` sidecar, one
//! hail option per line) plus generated cases from [`crate::generate`].
//! Both binaries are run the way Ganeti's node daemon runs an iallocator
//! (`BINARY INPUT OPTIONS...`, cwd `/`, stdin closed, `LC_ALL=C.UTF-8`), in
//! parallel, and the results are printed in case order so that the output is
//! deterministic. Accepted differences are read from
//! `docs/accepted-differences.txt` (`--accepted`).

mod accepted;
mod balance;
mod case;
mod check;
mod classify;
mod config;
mod datafiles;
mod groups;
mod info;
mod readonly;
mod report;
mod roll;
mod scan;
mod space;
mod squeeze;
#[cfg(test)]
mod tests;
mod version;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use crate::cases::{self, file_stem};
use crate::generate::{self, CaseSpec, RequestKind};
use crate::oracle;
use crate::process::{self, Run, Status};
use crate::toolargs;
use accepted::*;
use balance::{BalanceOptions, Part};
use case::*;
use classify::*;
use config::*;
use report::*;

const HELP: &str = "\
hailstone-compat: compare hailstone's answers with Ganeti's hail

USAGE:
  hailstone-compat [--suite answers|datafiles|balance|squeeze|groups|space|
                            check|info|roll]
                   [--profile ci|full|exclusive|none] [--kinds LIST] [--count N]
                   [--nodes MIN-MAX] [--seed BASE] [--samples DIR | --no-samples]
                   [--case FILE]... [--hail PATH] [--hailstone PATH]
                   [--timeout SECS] [--jobs N] [--accepted PATH] [--keep DIR]
                   [--install-hail] [--verbose]
  hailstone-compat --profile ci --dump DIR
  hailstone-compat --help

SUITES:
  answers    the iallocator answers (the default)
  datafiles  -S, -t, --simulate and -p: both programs save the state before
             and after each request (-S) and print node tables (-p, three
             field lists in turn); stdout, stderr and both files must be
             identical; then both run again with -t on hail's saved state;
             then both simulate clusters from 71 --simulate specs for
             allocation samples. Two thirds of the profile's generated cases.
             A run that hail does not finish within --timeout is listed as
             a hail timeout (nothing compared), not as a difference.
  balance    Ganeti's hbal against hailstone-balance (see BALANCE SUITE)
  squeeze    Ganeti's hsqueeze against hailstone-squeeze (see SQUEEZE SUITE)
  groups     hailstone-groups judged by Ganeti's hcheck (see GROUPS SUITE)
  space      Ganeti's hspace against hailstone-space (see SPACE SUITE)
  check      Ganeti's hcheck against hailstone-check (see CHECK AND INFO
             SUITES)
  info       Ganeti's hinfo against hailstone-info (see CHECK AND INFO
             SUITES)
  roll       Ganeti's hroller against hailstone-roll (see ROLL SUITE)

INPUTS:
  Every protocol-samples/*.json (id sample:<file name>; options from the
  optional <name>.args sidecar, one per line) plus the generated cases of the
  profile (id gen:<case id>, e.g. gen:allocate/drbd/n12/g2/s7):
    ci    60 cases per request kind (8 kinds: the three node-evacuate modes
          count separately), 2-30 nodes, seeds 1..60   (the default)
    full  500 allocate and 300 of every other kind, 2-200 nodes, seeds from 1000
    exclusive  300 allocate and 300 multi-allocate on clusters with
          exclusive-storage groups (2-4 policy specs, spindles) mixed with
          ordinary groups, 2-60 nodes, seeds from 5000
    none  no generated cases
  --kinds LIST       only these kinds (comma-separated; node-evacuate = all
                     three modes; all = every kind)
  --count N          generated cases per kind (overrides the profile)
  --nodes MIN-MAX    node-count range (overrides the profile)
  --seed BASE        first seed (overrides the profile)
  --samples DIR      sample directory (default protocol-samples)
  --no-samples       skip the samples
  --case FILE        run only this file (repeatable; its .args sidecar is
                     used if present); no samples, no generated cases

RUNNING:
  --hail PATH        hail binary (default /usr/lib/ganeti/iallocators/hail)
  --hailstone PATH   hailstone binary (default target/release/hailstone)
  --timeout SECS     time limit per run (default 120); a hail timeout is
                     reported as 'hail timeout', not as a difference
  --jobs N           parallel cases (default 2)
  --install-hail     if hail is missing, run
                     'apt-get update && apt-get install -y ganeti-htools'
  --ganeti-version V compare with Ganeti V's htools (3.0 or 3.1): each of
                     our programs runs with --ganeti-version=V; with 3.1
                     the originals are /opt/ganeti-3.1.0/bin's (make
                     oracle-3.1) unless --originals is given
  --originals DIR    every original (hail, hbal, hspace, hsqueeze, hcheck,
                     hinfo, hroller, hscan) from DIR; a later --hNAME
                     still chooses that one
  --dump DIR         write the generated corpus (<name>.json + <name>.args,
                     with --suite space, check, info or roll the clusters as
                     <name>.data, <name> = case id with '/' replaced by
                     '_') and exit without running anything

CLASSIFICATION (per case):
  not implemented            hailstone exits 3 with 'is not implemented yet'
                             on stderr (counted, not a failure)
  identical                  both exit 0 with the same stdout bytes
  same result, info differs  both exit 0, same 'success' and 'result'
  different result           both exit 0, otherwise
  both refused               both exit non-zero (agreement)
  refusal differs            exactly one exits non-zero
  hail timeout               hail exceeded the time limit (not a difference)
  hailstone timeout          hailstone exceeded the time limit
  Differences ('same result, info differs', 'different result', 'refusal
  differs', 'hailstone timeout') fail the run unless the case id matches an
  accepted difference: a line of the --accepted file whose pattern is the
  case id or a glob matching it ('*' matches any text), e.g.
  'gen:allocate/*/s1234<TAB>reason', or a class (class:drained-target)
  that the difference is checked to be exactly.

ACCEPTED DIFFERENCES (--accepted PATH, default docs/accepted-differences.txt):
  One difference per line: PATTERN, a tab, its reason. Blank lines and lines
  starting with '#' are ignored. PATTERN is a case id glob (sample:, gen:,
  balance:, squeeze:, space:, check:, info:, roll:) or a class:
  class:drained-target,
  class:hail-save-crash.
  A line without a reason, an unknown class or a pattern given twice is an
  error (exit status 2). Without the option and without the file, nothing
  is accepted (with a note).

OUTPUT:
  A summary table per request kind, the agreement percentages, then every
  unexplained difference with its id, both command lines and both answers
  (or 300 characters around the first differing byte). Timings go to stderr.
  --accepted PATH    the accepted differences (default
                     docs/accepted-differences.txt; see above)
  --keep DIR         copy the inputs (and .args) of differing cases to DIR
  --verbose          also print one line per case

BALANCE SUITE (--suite balance):
  hbal and hailstone-balance run with the same options; stdout, stderr
  (each program's output folder written {OUT}), exit status, the -C FILE
  script and the -S FILE files (.original, .balanced) must be identical.
  Parts (--parts LIST, default all):
    generated   clusters from the generator as data files, edited from the
                seed (master, piled-up primaries, every instance state,
                auto_balance off, forthcoming, CPU speeds, exclusion,
                location, desired-location and migration tags, offline
                nodes, several groups run one by one with -G); each run
                takes one balancing option family and one output family
                in turn. ci: 60 clusters of 5-20 nodes (seeds from 1);
                full: 220 clusters of 5-60 nodes (seeds from 1000);
                --count, --nodes and --seed override
    cli         bad input and help texts on the first generated cluster
    shelltests  Ganeti's hs/shelltests/*.test cases that run hbal (and the
                cat/diff checks of the files they leave), run in file order
                with each program; each must meet its expectation and give
                hbal's bytes; tests of options hailstone-balance lacks
                (-I) are listed, not counted; hbal
                itself must pass them all (else exit status 2)
    datafiles   every data/htools/*.data file and shelltest fixture, every
                group, 5 option sets (full: 12)
  --hbal PATH          hbal (default /usr/lib/ganeti/3.0/usr/bin/hbal;
                       --install-hail installs ganeti-htools if missing)
  --balance-bin PATH   the program compared with hbal (default
                       target/release/hailstone-balance; pass hbal itself
                       to check the harness: everything must be identical)
  --hspace PATH        hspace for the shelltest fixtures (default: beside hbal;
                       the space suite's hspace too)
  --testsuite DIR      an unpacked ganeti-testsuite (its root or its test
                       folder); default: 'apt-get download
                       ganeti-testsuite=<hbal's version>' and 'dpkg -x' into
                       --testsuite-cache DIR (default target/ganeti-testsuite)
                       the first time
  --only GLOB          only the runs whose id matches ('*' any text), e.g.
                       'gen/drbd/*', 'cli/*', 'shelltest/htools-hbal.test*'
  --timeout SECS       cap per run (default 120; full profile 600); runs
                       where hbal reaches it are listed apart, where only
                       hailstone-balance does they are differences
  --keep DIR           keep the inputs of differing runs in DIR
  Accepted differences: the --accepted patterns 'balance:<id glob>'.

SQUEEZE SUITE (--suite squeeze):
  hsqueeze and hailstone-squeeze run with the same options; stdout, stderr,
  exit status, the -C FILE script and the -S FILE files (.original,
  .squeezed) must be identical. Parts (--parts, as for balance):
    generated   clusters of ext, sharedfile and mixed instances at low and
                high memory use, with offline standby nodes, a master,
                auto_balance off and other states; two runs each (-v -C -S,
                then drawn reserve factors with -C FILE). ci: 110 clusters
                of 4-12 nodes (seeds from 1); full: 300 of 4-24 nodes
                (seeds from 3000)
    cli         bad input and help texts on the first generated cluster
    shelltests  every test of Ganeti's htools-hsqueeze.test (both programs
                must meet its expectations and give the same bytes)
    datafiles   every data/htools/*.data file with three option sets
  --hsqueeze PATH      hsqueeze (default /usr/lib/ganeti/3.0/usr/bin/hsqueeze)
  --squeeze-bin PATH   the program compared (default
                       target/release/hailstone-squeeze)
  --testsuite, --only, --timeout as for balance.
  Accepted differences: the --accepted patterns 'squeeze:<id glob>'.

SPACE SUITE (--suite space):
  hspace and hailstone-space run with the same options; stdout, stderr,
  exit status and the -S FILE files (.tiered, .standard) must be
  identical. Parts (--parts, as for balance):
    generated   clusters of plain, drbd, ext, file, sharedfile and mixed
                instances, one to three groups, tags, offline and drained
                nodes, exclusive storage on some, memory and disk filled
                apart, with instance policies rewritten so that hspace
                finishes (a minimum spec sized from the free resources, a
                maximum a few dozen units above it); each cluster runs with
                its defaults, then with option families in turn
                (--machine-readable, --disk-template of the policy's
                templates, --no-capacity-checks, --independent-groups,
                --accept-existing-errors, -l, --standard-alloc,
                --tiered-alloc, -v levels, -p, -S, -O, --max-cpu,
                --min-disk, combined). ci: 40 clusters of 2-6 nodes, 3
                family runs each (seeds from 1); full: 200 of 2-12 nodes,
                5 each (seeds from 7000)
    cli         help, version and completion texts, bad option values,
                bad and missing data files, --simulate
    shelltests  every test of Ganeti's htools-hspace.test and the hspace
                tests of the other shelltest files (both programs must meet
                their expectations and give the same bytes; hspace itself
                must pass them all, else exit status 2)
    datafiles   every data/htools/*.data file with three option sets
                (full: seven)
  --hspace PATH        hspace (default /usr/lib/ganeti/3.0/usr/bin/hspace;
                       --install-hail installs ganeti-htools if missing)
  --space-bin PATH     the program compared (default
                       target/release/hailstone-space)
  --timeout SECS       cap per run (default 60; full profile 300); runs
                       where hspace reaches it are listed as hspace
                       timeouts, not compared
  --testsuite, --only, --keep as for balance.
  Accepted differences: the --accepted patterns 'space:<id glob>'; where
  the difference is a kind the tool knows (help, usage and version texts,
  a data file error's location, hspace's crash on an instance in two
  groups) it must also be exactly that kind.

CHECK AND INFO SUITES (--suite check, --suite info):
  hcheck and hailstone-check (hinfo and hailstone-info) run with the same
  options; stdout, stderr and exit status must be identical. Parts
  (--parts, as for balance):
    generated   generated clusters as data files: one in three of the
                multi-group profile (2-4 groups, offline nodes often still
                hosting instances, nodes failing N+1), the others one group
                of DRBD, plain, ext or every template, with offline and
                drained nodes; a third of them full and placed without
                N+1 redundancy; a master, other instance states and
                auto_balance off drawn from the seed. check: each cluster
                as people read it, --machine-readable, then option
                families in turn (--no-simulation, --no-capacity-checks,
                -q, -v, --no-disk-moves, --no-instance-moves, -E, -g with
                --min-gain-limit, -l, -e, -O, --select-instances,
                --exclude-instances, --exclusion-tags, --ignore-soft-errors,
                --max-cpu with --min-disk, -U, combined), half of them
                machine-readable. ci: 80 clusters of 3-12 nodes, 4 family
                runs each (seeds from 1); full: 250 of 3-30 nodes, 6 each
                (seeds from 9000). info: each cluster with its defaults,
                then families in turn (-v -v, -v -v -v, -p, -p with field
                lists, -p+FIELDS, --print-instances, -q, -O, -O with -p,
                -v -v -p --print-instances, --ignore-dynu,
                --static-kvm-node-memory). ci: 80 clusters of 3-12 nodes,
                4 family runs each; full: 250 of 3-40 nodes, 5 each (seeds
                from 11000)
    cli         help, version and completion texts, bad options and
                values, extra arguments, missing, bad and empty data files,
                unknown nodes and instances, -I with the generator's
                request, -U
    shelltests  every test of Ganeti's shelltest files that runs hcheck
                (hinfo), each file's tests in order in a fresh copy of the
                fixtures, after the earlier tests of the file that make the
                $T files they read (run with the real hbal or hspace); both
                programs must meet the test's expectations and give the
                same bytes; the original must pass them all (else exit
                status 2)
    datafiles   every data/htools/*.data file with three option sets
                (full: seven)
  --hcheck PATH        hcheck (default /usr/lib/ganeti/3.0/usr/bin/hcheck;
                       --install-hail installs ganeti-htools if missing)
  --check-bin PATH     the program compared with hcheck (default
                       target/release/hailstone-check)
  --hinfo PATH         hinfo (default /usr/lib/ganeti/3.0/usr/bin/hinfo)
  --info-bin PATH      the program compared with hinfo (default
                       target/release/hailstone-info)
  --timeout SECS       cap per run (default 60; full profile: check 300,
                       info 120); runs where the original reaches it are
                       listed as its timeouts, not compared
  --testsuite, --only, --keep as for balance; --hspace for the fixtures.
  Accepted differences: the known kinds, each checked to be exactly that
  and nothing more (--help and the usage text after a command-line error
  name our program and list its own options after the original's rows,
  which it prints unchanged; the completion list likewise; --version names
  it and says 'compatible with hcheck (ganeti) 3.0.2' (hinfo for info); a
  data file error
  adds the file, line, object and field before the original's words; a
  runtime error names our program), and the --accepted patterns
  'check:<id glob>' and 'info:<id glob>'.

ROLL SUITE (--suite roll):
  hroller and hailstone-roll run with the same options; stdout, stderr
  (each program's output folder written {OUT}), exit status and the
  -S FILE.original file must be identical. Parts (--parts, as for balance):
    generated   the clusters of the check and info suites (one in three of
                the multi-group profile, the others one group of DRBD,
                plain, ext or every template, offline and drained nodes),
                each given a master node where it has none (hroller
                refuses a cluster without one unless -f) and, three in
                four, node tags; each runs with its defaults, then with
                option families in turn (--print-moves, --full-evacuation,
                --offline-maintenance, --skip-non-redundant,
                --ignore-non-redundant, --one-step-only, -v -v -v,
                --no-headers, -G, --node-tags, -O, -S, the cluster without
                its master with and without -f, -v/-q levels,
                --static-kvm-node-memory, combined). ci: 60 clusters of
                3-12 nodes, 8 family runs each (seeds from 1); full: 250 of
                3-40 nodes, every family on each (seeds from 13000)
    cli         help, version and completion texts, bad options and
                values, extra arguments, missing, bad and empty data files,
                no master and two masters with and without -f, unknown
                nodes and groups, an unwritable -S file, -I
    shelltests  every test of Ganeti's shelltest files that runs hroller
                (htools-hroller.test, htools-single-group.test on the
                hspace fixtures, htools-basic, -invalid and -no-backend);
                both programs must meet the test's expectations and give
                the same bytes; hroller must pass them all (else exit
                status 2)
    datafiles   every data/htools/*.data file with three option sets
                (full: seven), most with -f
  --hroller PATH       hroller (default /usr/lib/ganeti/3.0/usr/bin/hroller;
                       --install-hail installs ganeti-htools if missing)
  --roll-bin PATH      the program compared (default
                       target/release/hailstone-roll)
  --timeout SECS       cap per run (default 60; full profile 120); runs
                       where hroller reaches it are listed as its
                       timeouts, not compared
  --testsuite, --only, --keep as for balance; --hspace for the fixtures.
  Accepted differences: the known kinds of the check and info suites (the
  help, usage and completion texts naming hailstone-roll and listing
  --shared-storage-movable after hroller's rows, the version text, a data
  file error's location, a runtime error naming the program), each only
  where a 'roll:<id glob>' pattern of --accepted lists the run, and other
  'roll:<id glob>' patterns.

GROUPS SUITE (--suite groups):
  hailstone-groups has no original: Ganeti's hcheck judges it on generated
  multi-group clusters (ci: 300, full: 1000, seeds from 1; 4-18 nodes or
  --nodes, 2-4 groups). check must give hcheck's N+1 failures and offline
  primaries per group; hcheck runs on each state saved by repair -S,
  compress --evacuate -S and balance -S: every repaired group N1_FAIL=0 and
  OFFLINE_PRI=0, no group healthy before unhealthy after, no instance lost
  or added. Nothing is accepted.
  --hcheck PATH        hcheck (default /usr/lib/ganeti/3.0/usr/bin/hcheck;
                       the check suite's too)
  --hbal PATH          hbal, which judges a balanced group hcheck finds
                       failing N+1 (hbal 3.0.2 can leave one so)
  --groups-bin PATH    the program judged (default
                       target/release/hailstone-groups)

EXIT STATUS: 0 no unexplained difference, 1 unexplained differences,
             2 usage or setup error (e.g. hail missing).
";

const DEFAULT_HAIL: &str = "/usr/lib/ganeti/iallocators/hail";
const DEFAULT_HAILSTONE: &str = "target/release/hailstone";
const DEFAULT_ACCEPTED: &str = "docs/accepted-differences.txt";

fn collect_inputs(c: &Config) -> Result<Vec<Input>, String> {
    let mut inputs = Vec::new();
    if !c.cases.is_empty() {
        for p in &c.cases {
            if !p.is_file() {
                return Err(format!("case file {} not found", p.display()));
            }
            inputs.push(Input {
                source: Source::File(oracle::absolute(p)),
            });
        }
        return Ok(inputs);
    }
    if !c.no_samples {
        let dir = c
            .samples
            .clone()
            .unwrap_or_else(|| PathBuf::from("protocol-samples"));
        match std::fs::read_dir(&dir) {
            Ok(rd) => {
                let mut files: Vec<PathBuf> = rd
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().map(|x| x == "json").unwrap_or(false) && p.is_file())
                    .collect();
                files.sort();
                for f in files {
                    inputs.push(Input {
                        source: Source::File(oracle::absolute(&f)),
                    });
                }
            }
            Err(e) => {
                if c.samples.is_some() {
                    return Err(format!(
                        "cannot read sample directory {}: {}",
                        dir.display(),
                        e
                    ));
                }
                eprintln!("hailstone-compat: note: no sample directory {} ({}); running generated cases only", dir.display(), e);
            }
        }
    }
    for spec in generated_specs(c) {
        inputs.push(Input {
            source: Source::Gen(spec),
        });
    }
    Ok(inputs)
}

fn dump(c: &Config, dir: &Path) -> Result<usize, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {}", dir.display(), e))?;
    match c.suite {
        Suite::Space => return space::dump(c, dir),
        Suite::Check => return check::SPEC.corpus.corpus(c).dump(dir),
        Suite::Info => return info::SPEC.corpus.corpus(c).dump(dir),
        Suite::Roll => return roll::SPEC.corpus.corpus(c).dump(dir),
        Suite::Scan => return scan::SPEC.corpus.corpus(c).dump(dir),
        _ => {}
    }
    let specs = generated_specs(c);
    for spec in &specs {
        cases::write_case(dir, &generate::generate(spec))?;
    }
    Ok(specs.len())
}

/// The accepted differences of the `--accepted` file (none, with a note,
/// when the default file is missing and none was named).
fn read_allowlist(c: &Config) -> Result<Vec<String>, String> {
    match std::fs::read_to_string(&c.accepted) {
        Ok(s) => parse_accepted(&s).map_err(|e| format!("{}: {}", c.accepted.display(), e)),
        Err(e) => {
            if c.accepted_given {
                return Err(format!("cannot read {}: {}", c.accepted.display(), e));
            }
            eprintln!(
                "hailstone-compat: note: no {} ({}); no accepted differences",
                c.accepted.display(),
                e
            );
            Ok(Vec::new())
        }
    }
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("hailstone-compat: {}", msg);
    ExitCode::from(2)
}

/// The data files of the check suite's generated corpus in its `ci`
/// profile (what `--suite check --dump DIR` writes): each cluster's id and
/// text, in order. For the tests that run other programs on the clusters
/// the suite compares hcheck on (`tests/verdicts.rs`).
///
/// # Errors
///
/// A generated cluster hailstone's reader refuses (a generator bug).
pub fn check_corpus() -> Result<Vec<(String, String)>, String> {
    let c = parse_args(&["--suite".to_owned(), "check".to_owned()])?;
    let corpus = check::SPEC.corpus.corpus(&c);
    (0..corpus.count)
        .map(|k| corpus.cluster(k).map(|cl| (cl.id, cl.data.text())))
        .collect()
}

/// The tool: `args` are its options (without the program name).
pub fn main(args: &[String]) -> ExitCode {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        print!("{}", HELP);
        return ExitCode::SUCCESS;
    }
    let mut c = match parse_args(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("hailstone-compat: {}", e);
            eprintln!("Try 'hailstone-compat --help'.");
            return ExitCode::from(2);
        }
    };
    if let Some(version) = c.ganeti.clone() {
        if version == "3.1" && !c.originals_given {
            version::take_originals(&mut c, Path::new(version::ORACLE_3_1));
        }
        if !oracle::is_executable(&c.hail) {
            return fail(&format!(
                "no htools of Ganeti {version} at {} (make oracle-3.1 builds them; or pass --originals DIR)",
                c.hail.display()
            ));
        }
        if let Err(e) = version::wrap_ours(&mut c, &version) {
            return fail(&e);
        }
        if version == "3.1" && c.balance.testsuite.is_none() {
            match version::testsuite_of_debian_3_0(&c.balance.testsuite_cache) {
                Ok(t) => c.balance.testsuite = Some(t),
                Err(e) => return fail(&e),
            }
        }
    }
    if let Some(dir) = c.dump.clone() {
        return match dump(&c, &dir) {
            Ok(n) => {
                println!("wrote {} generated cases to {}", n, dir.display());
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e),
        };
    }
    if c.suite == Suite::Balance {
        let allow = match read_allowlist(&c) {
            Ok(a) => a,
            Err(e) => return fail(&e),
        };
        return balance::run_balance(&c, &c.balance, &allow);
    }
    if c.suite == Suite::Groups {
        return groups::run_groups(&c, &c.groups);
    }
    if c.suite == Suite::Squeeze {
        let allow = match read_allowlist(&c) {
            Ok(a) => a,
            Err(e) => return fail(&e),
        };
        return squeeze::run_squeeze(&c, &c.balance, &c.squeeze, &allow);
    }
    if c.suite == Suite::Space {
        let allow = match read_allowlist(&c) {
            Ok(a) => a,
            Err(e) => return fail(&e),
        };
        return space::run_space(&c, &c.balance, &c.space, &allow);
    }
    let readonly = match c.suite {
        Suite::Check => Some((&check::SPEC, &c.check)),
        Suite::Info => Some((&info::SPEC, &c.info)),
        Suite::Scan => Some((&scan::SPEC, &c.scan)),
        Suite::Roll => Some((&roll::SPEC, &c.roll)),
        _ => None,
    };
    if let Some((spec, programs)) = readonly {
        let allow = match read_allowlist(&c) {
            Ok(a) => a,
            Err(e) => return fail(&e),
        };
        return readonly::run_suite(&c, &c.balance, spec, programs, &allow);
    }
    c.hail = oracle::absolute(&c.hail);
    c.hailstone = oracle::absolute(&c.hailstone);
    if let Err(e) = oracle::ensure_hail(&c.hail, c.install_hail, "hailstone-compat") {
        return fail(&e);
    }
    if !oracle::is_executable(&c.hailstone) {
        return fail(&format!(
            "hailstone binary {} not found or not executable (build it with 'cargo build --release' or pass --hailstone PATH)",
            c.hailstone.display()
        ));
    }
    let allow = match read_allowlist(&c) {
        Ok(a) => a,
        Err(e) => return fail(&e),
    };
    let inputs = match collect_inputs(&c) {
        Ok(i) => i,
        Err(e) => return fail(&e),
    };
    if inputs.is_empty() {
        return fail("no cases to run");
    }
    let tmp = match process::temp_dir("hailstone-compat") {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    let keep = match &c.keep {
        Some(k) => match std::fs::create_dir_all(k) {
            Ok(()) => Some(oracle::absolute(k)),
            Err(e) => return fail(&format!("cannot create {}: {}", k.display(), e)),
        },
        None => None,
    };
    let range = c.profile.nodes();
    let shared = Shared {
        hail: c.hail.clone(),
        hailstone: c.hailstone.clone(),
        timeout: c.timeout,
        tmp: tmp.clone(),
        keep,
        allow,
        nodes_arg: c.nodes.unwrap_or(range),
    };

    if c.suite == Suite::DataFiles {
        let code = run_datafiles(&c, inputs, &shared);
        let _ = std::fs::remove_dir_all(&tmp);
        return code;
    }

    let total = inputs.len();
    let started = Instant::now();
    let mut done: Vec<Done> = Vec::with_capacity(total);
    let mut hail_time = Duration::ZERO;
    let mut hs_time = Duration::ZERO;
    process::ordered_pool(
        &inputs,
        c.jobs,
        |_, worker, input| process_case(input, worker, &shared),
        |printed, d| {
            hail_time += d.hail.as_ref().map(|h| h.wall).unwrap_or_default();
            hs_time += d.hs.as_ref().map(|h| h.wall).unwrap_or_default();
            if c.verbose {
                let label = match &d.outcome {
                    Ok(o) => o.label().to_string(),
                    Err(e) => format!("error: {}", e),
                };
                let mark = match &d.outcome {
                    Ok(o) if !o.is_difference() => "ok  ",
                    _ if d.accepted => "acc ",
                    _ => "DIFF",
                };
                println!("{} {} {}", mark, d.id, label);
            }
            done.push(d);
            if (printed + 1).is_multiple_of(50) && printed + 1 < total {
                eprintln!("hailstone-compat: {}/{} cases", printed + 1, total);
            }
        },
    );
    let _ = std::fs::remove_dir_all(&tmp);

    // Tables per kind, in a fixed order.
    let mut order: Vec<String> = generate::all_kinds()
        .iter()
        .map(|k| k.slug().to_string())
        .collect();
    order.push("other".to_string());
    let mut tallies: BTreeMap<usize, (String, Tally)> = BTreeMap::new();
    for d in &done {
        let pos = order
            .iter()
            .position(|k| *k == d.kind)
            .unwrap_or(order.len() - 1);
        tallies
            .entry(pos)
            .or_insert_with(|| (order[pos].clone(), Tally::default()))
            .1
            .add(d);
    }
    if c.verbose {
        println!();
    }
    print!("{}", table(&tallies));
    let unexplained: Vec<&Done> = done
        .iter()
        .filter(|d| {
            !d.accepted
                && d.outcome
                    .as_ref()
                    .map(|o| o.is_difference())
                    .unwrap_or(true)
        })
        .collect();
    if !unexplained.is_empty() {
        println!("\nUnexplained differences ({}):", unexplained.len());
        for d in &unexplained {
            print!("{}", report_difference(d, &shared));
        }
    }
    eprintln!(
        "hailstone-compat: {} cases in {:.1} s wall time; hail {:.1} s, hailstone {:.1} s (summed run times)",
        total,
        started.elapsed().as_secs_f64(),
        hail_time.as_secs_f64(),
        hs_time.as_secs_f64()
    );
    if unexplained.is_empty() {
        println!("\nOK: no unexplained differences");
        ExitCode::SUCCESS
    } else {
        println!("\nFAILED: {} unexplained difference(s)", unexplained.len());
        ExitCode::from(1)
    }
}

/// The data-file suite: every request, then the simulations; a table of
/// the figures and every unexplained difference.
fn run_datafiles(c: &Config, inputs: Vec<Input>, shared: &Shared) -> ExitCode {
    let samples = c
        .samples
        .clone()
        .unwrap_or_else(|| PathBuf::from("protocol-samples"));
    let sim_requests: Vec<PathBuf> = [
        "allocate-drbd",
        "allocate-plain",
        "multi-allocate",
        "allocate-spindles",
        "allocate-file",
        "relocate-drbd",
    ]
    .iter()
    .map(|n| oracle::absolute(&samples.join(format!("{n}.json"))))
    .filter(|p| p.is_file())
    .collect();
    let mut work: Vec<datafiles::Work> = inputs.into_iter().map(datafiles::Work::Request).collect();
    if !sim_requests.is_empty() && c.cases.is_empty() {
        for (n, specs) in datafiles::simulate_specs().into_iter().enumerate() {
            for k in 0..2 {
                let request = sim_requests[(2 * n + k) % sim_requests.len()].clone();
                work.push(datafiles::Work::Simulation(n, specs.clone(), request));
            }
        }
    }
    let started = Instant::now();
    let total = work.len();
    let mut results: Vec<datafiles::Compared> = Vec::new();
    process::ordered_pool(
        &work,
        c.jobs,
        |i, worker, w| datafiles::process_work(i, w, worker, shared),
        |done, r| {
            if c.verbose {
                for x in &r {
                    let mark = match (x.differences.is_empty(), x.accepted) {
                        (true, _) => "ok  ",
                        (false, true) => "acc ",
                        (false, false) if x.hail_timeout => "hail timeout",
                        (false, false) => "DIFF",
                    };
                    println!("{mark} {}", x.id);
                }
            }
            results.extend(r);
            if (done + 1).is_multiple_of(50) && done + 1 < total {
                eprintln!("hailstone-compat: {}/{} data-file cases", done + 1, total);
            }
        },
    );
    let step = |id: &str| {
        if id.starts_with("simulate:") {
            "--simulate"
        } else if id.ends_with(" -t") {
            "-t (hail's saved state)"
        } else {
            "-S and -p"
        }
    };
    // hail stopped at the time limit: nothing was compared.
    let timed_out = |r: &datafiles::Compared| !r.differences.is_empty() && r.hail_timeout;
    println!("step                       runs identical accepted unexplained hail-timeouts");
    for name in ["-S and -p", "-t (hail's saved state)", "--simulate"] {
        let of: Vec<&datafiles::Compared> =
            results.iter().filter(|r| step(&r.id) == name).collect();
        let same = of.iter().filter(|r| r.differences.is_empty()).count();
        let acc = of
            .iter()
            .filter(|r| !r.differences.is_empty() && r.accepted)
            .count();
        let capped = of.iter().filter(|r| !r.accepted && timed_out(r)).count();
        println!(
            "{name:<26} {:>4} {same:>9} {acc:>8} {:>11} {capped:>13}",
            of.len(),
            of.len() - same - acc - capped
        );
    }
    for r in results.iter().filter(|r| !r.accepted && timed_out(r)) {
        println!("\nhail timeout (not compared) {}", r.id);
    }
    let unexplained: Vec<&datafiles::Compared> = results
        .iter()
        .filter(|r| !r.differences.is_empty() && !r.accepted && !timed_out(r))
        .collect();
    for r in &unexplained {
        println!("\nDIFF {}", r.id);
        for d in &r.differences {
            println!("  {d}");
        }
    }
    eprintln!(
        "hailstone-compat: {} data-file comparisons in {:.1} s",
        results.len(),
        started.elapsed().as_secs_f64()
    );
    if unexplained.is_empty() {
        println!("\nOK: no unexplained differences");
        ExitCode::SUCCESS
    } else {
        println!("\nFAILED: {} unexplained difference(s)", unexplained.len());
        ExitCode::from(1)
    }
}
