//! The command line of `hailstone-compat`: which suite, and every suite's
//! options. The options shared by the suites are [`Common`] and
//! [`TestSuite`]; each suite owns its own (`balance::BalanceOptions`,
//! ...), with their defaults and help. This module gathers them (the
//! suites never read the command line) and applies `--originals`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, ValueEnum};

use super::answers::AnswersOptions;
use super::balance::BalanceOptions;
use super::check::CheckOptions;
use super::common::{Common, TestSuite};
use super::groups::GroupsOptions;
use super::info::InfoOptions;
use super::roll::RollOptions;
use super::scan::ScanOptions;
use super::space::SpaceOptions;
use super::squeeze::SqueezeOptions;

/// Which comparison to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum Suite {
    /// The iallocator answers (the default).
    Answers,
    /// `-S`, `-t`, `--simulate` and `-p`.
    #[value(name = "datafiles")]
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

/// The whole command line.
#[derive(Parser, Debug)]
#[command(
    name = "hailstone-compat",
    about = "hailstone-compat: compare hailstone's programs with Ganeti's originals",
    override_usage = "hailstone-compat [--suite SUITE] [--profile PROFILE] [OPTIONS]\n       \
                      hailstone-compat [--suite SUITE] --profile PROFILE --dump DIR\n       \
                      hailstone-compat --help",
    after_help = AFTER_HELP,
    args_override_self = true,
    disable_help_subcommand = true
)]
pub(super) struct Config {
    /// The comparison to run (see SUITES below).
    #[arg(
        long,
        value_enum,
        default_value = "answers",
        value_name = "SUITE",
        hide_possible_values = true
    )]
    pub(super) suite: Suite,
    /// Write the generated corpus (NAME.json + NAME.args; with --suite
    /// space, check, info, roll or scan the clusters as NAME.data; NAME
    /// = case id with '/' replaced by '_') and exit without running
    /// anything.
    #[arg(long, value_name = "DIR")]
    pub(super) dump: Option<PathBuf>,
    /// Compare with Ganeti V's htools (3.0 or 3.1): each of our programs
    /// runs with --ganeti-version=V; with 3.1 the originals are
    /// /opt/ganeti-3.1.0/bin's (make oracle-3.1) unless --originals is
    /// given.
    #[arg(long = "ganeti-version", value_name = "V", value_parser = ["3.0", "3.1"])]
    pub(super) ganeti: Option<String>,
    /// Every original (hail, hbal, hspace, hsqueeze, hcheck, hinfo,
    /// hroller, hscan) from DIR; a later --hNAME still chooses that one.
    #[arg(long, value_name = "DIR")]
    pub(super) originals: Option<PathBuf>,
    #[command(flatten)]
    pub(super) common: Common,
    #[command(flatten, next_help_heading = "Answers and data-file suites")]
    pub(super) answers: AnswersOptions,
    #[command(flatten, next_help_heading = "Suites run on Ganeti's test suite")]
    pub(super) testsuite: TestSuite,
    #[command(flatten, next_help_heading = "Balance suite")]
    pub(super) balance: BalanceOptions,
    #[command(flatten, next_help_heading = "Squeeze suite")]
    pub(super) squeeze: SqueezeOptions,
    #[command(flatten, next_help_heading = "Groups suite")]
    pub(super) groups: GroupsOptions,
    #[command(flatten, next_help_heading = "Space suite")]
    pub(super) space: SpaceOptions,
    #[command(flatten, next_help_heading = "Check suite")]
    pub(super) check: CheckOptions,
    #[command(flatten, next_help_heading = "Info suite")]
    pub(super) info: InfoOptions,
    #[command(flatten, next_help_heading = "Roll suite")]
    pub(super) roll: RollOptions,
    #[command(flatten, next_help_heading = "Scan suite")]
    pub(super) scan: ScanOptions,
}

/// Reads the command line (`args` without the program name).
///
/// # Errors
///
/// A usage error, or the request for help (clap's error says which and
/// carries the text and exit status).
pub(super) fn parse_args<S: Into<OsString> + Clone>(args: &[S]) -> Result<Config, clap::Error> {
    let words = std::iter::once(OsString::from("hailstone-compat"))
        .chain(args.iter().cloned().map(Into::into));
    let matches = Config::command().try_get_matches_from(words)?;
    let mut c = Config::from_arg_matches(&matches)?;
    if let Some(dir) = c.originals.clone() {
        let at = matches.index_of("originals");
        // An --hNAME after --originals still chooses that one.
        c.set_originals(&dir, |id| later(&matches, id, at));
    }
    Ok(c)
}

/// Whether the option `id` was given after the index `at`.
fn later(matches: &ArgMatches, id: &str, at: Option<usize>) -> bool {
    matches!((matches.index_of(id), at), (Some(i), Some(a)) if i > a)
}

impl Config {
    /// Takes every original from `dir`, but those whose option id `keep`
    /// names.
    pub(super) fn set_originals(&mut self, dir: &Path, keep: impl Fn(&str) -> bool) {
        // Each option's id is the original's name.
        let originals: [(&str, &mut PathBuf); 7] = [
            ("hail", &mut self.answers.hail),
            ("hbal", &mut self.balance.hbal),
            ("hsqueeze", &mut self.squeeze.hsqueeze),
            ("hcheck", &mut self.check.hcheck),
            ("hinfo", &mut self.info.hinfo),
            ("hroller", &mut self.roll.hroller),
            ("hscan", &mut self.scan.hscan),
        ];
        for (name, path) in originals {
            if !keep(name) {
                *path = dir.join(name);
            }
        }
        if !keep("hspace") {
            self.testsuite.hspace = Some(dir.join("hspace"));
        }
    }

    /// Our programs, as the suites' options name them.
    pub(super) fn ours(&mut self) -> Vec<&mut PathBuf> {
        vec![
            &mut self.answers.hailstone,
            &mut self.balance.balance_bin,
            &mut self.squeeze.squeeze_bin,
            &mut self.groups.groups_bin,
            &mut self.space.space_bin,
            &mut self.check.check_bin,
            &mut self.info.info_bin,
            &mut self.roll.roll_bin,
            &mut self.scan.scan_bin,
        ]
    }
}

/// The help's text after the options.
const AFTER_HELP: &str = "\
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
  scan       Ganeti's hscan against hailstone-scan (see SCAN SUITE)

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

ACCEPTED DIFFERENCES (--accepted PATH):
  One difference per line: PATTERN, a tab, its reason. Blank lines and lines
  starting with '#' are ignored. PATTERN is a case id glob (sample:, gen:,
  balance:, squeeze:, space:, check:, info:, roll:, scan:) or a class:
  class:drained-target, class:hail-save-crash, class:hint.
  A line without a reason, an unknown class or a pattern given twice is an
  error (exit status 2). Without the option and without the file, nothing
  is accepted (with a note).

OUTPUT:
  A summary table per request kind, the agreement percentages, then every
  unexplained difference with its id, both command lines and both answers
  (or 300 characters around the first differing byte). Timings go to stderr.

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

SCAN SUITE (--suite scan):
  hscan and hailstone-scan run with the same options on the generated
  clusters of the check and info suites, each served as a RAPI file://
  directory (hscan reads live clusters only); stdout, stderr, exit status
  and the data files written must be identical. Parts (--parts, as for
  balance): generated (each cluster with its defaults, then option families
  in turn) and cli (help, version and completion texts and bad input, on
  the first cluster); hscan has no shelltests and reads no data files.
  Accepted differences: the --accepted patterns 'scan:<id glob>'.

EXIT STATUS: 0 no unexplained difference, 1 unexplained differences,
             2 usage or setup error (e.g. hail missing).
";
