//! hailstone's integration tests: one test binary running the real
//! `hailstone` executable.
//!
//! * `samples` — snapshots of exit code, stdout and stderr for every
//!   request in `protocol-samples/` (snapshots live in `snapshots/`);
//! * `hostile` — bad and hostile inputs: clear errors, no panic, nothing on
//!   stdout;
//! * `balance` — `hailstone-balance` plans replayed by an independent
//!   checker (`support::plan`);
//! * `squeeze` — `hailstone-squeeze` plans replayed by the same checker:
//!   freed nodes empty, every node left with the reserve;
//! * `squeeze_cautions` — `hailstone-squeeze`'s cautions (moves Ganeti's
//!   policy check refuses, split instances, nodes powered off under
//!   forthcoming instances) against the same checker's replay;
//! * `space` — `hailstone-space`'s saved states, both counts, read by the
//!   same checker's reader: new instances within the free resources;
//! * `groups` — `hailstone-groups` plans on 500 multi-group clusters,
//!   replayed by the same checker: safe steps, nothing lost, repaired
//!   groups off their offline nodes, compressed groups empty;
//! * `health` — what `hailstone-groups` reports of the cluster before
//!   its plan (N+1 figures, group memory and scores) against the data
//!   file; split instances;
//! * `verdicts` — `hailstone-check` and `hailstone-groups check` on the
//!   generated corpus and Ganeti's test data: the same verdict, or a
//!   difference both `--help` texts state;
//! * `cli` — command-line behaviour and exit codes;
//! * `cost_options` — the hailstone-only cost options' bad values and
//!   misspellings on every program that takes them: usage errors naming
//!   the option and what to give;
//! * `exit_status` — every program into each exit status its manual
//!   lists, a closed output ending each quietly, the documented table;
//! * `json` — each planner's and checker's `--json` document against its
//!   text on generated clusters;
//! * `datafiles` — `-S`, `-t`, `--simulate`, `-p` and bad data files;
//! * `explain` — `--explain`: the same answer, snapshots of every
//!   sample's explanation, the tracker's cases named;
//! * `explain_stop` — why a balancing stopped: the imbalance left and the
//!   check, node and numbers that refused the moves that would lower it;
//!   text rounded, JSON whole;
//! * `live` — the planners' `-L` (Luxi) and `-m` (RAPI) on captured and
//!   varied replies, against hscan's, hbal's and hsqueeze's outputs;
//! * `exec` — the planners' `-X` against a fake master's job queue: the
//!   plan's job sets and opcodes, a failed job stopping the plan;
//! * `report` — `--report` pages read back against the texts' numbers;
//! * `figures` — every figure of `--json`, `--explain`, `--report`, `-p`
//!   and `-S` recomputed from the states a run describes by independent
//!   code (`support::figures`), on generated clusters and Ganeti's data
//!   files;
//! * `report_figures` — the pages' node figures: a plan keeps every
//!   node's totals and the memory it reports beyond its instances; the
//!   figures after a plan are the saved state's; every bar named;
//! * `repair` — `hailstone-repair` (harep): `--dry-run` against harep's
//!   output on the same replies, the tag and repair jobs on a fake master;
//! * `ganeti_version` — `--ganeti-version`: Ganeti 3.0.2's and 3.1.0's
//!   outputs on a cluster where the two releases differ;
//! * `htools` — `hailstone-htools enable|disable` in a copy of a file
//!   system: the htools' names run hailstone's programs, and back;
//! * `shadow` — `hailstone-shadow`: Ganeti gets the reference's answer
//!   whatever the shadow or the record folder does, differences reported
//!   with their reproduction, the report's checks against Ganeti's own,
//!   the htools in the shadow;
//! * `manual` — every program's `--help` and man page (`man -l`);
//! * `readme` — every command of the README's shell blocks runs with the
//!   exit status it says, or is marked as needing a live cluster or root;
//! * `layers` — the direction of dependencies between the stage folders;
//! * `invariants` — the allocator's core and the stages do no I/O, no
//!   setting is passed as a bare `bool`, the clock is read in one place;
//! * `properties` — generated clusters: every answer safe and repeatable;
//! * `threads` — the same bytes on 1, 2 and 16 threads
//!   (`HAILSTONE_THREADS`);
//! * `programs` — the one list of programs (`programs.list`) against
//!   `PROGRAMS`, `src/bin/` and `hailstone-htools`' names;
//! * `safety_checker` — tests of the independent answer checker in
//!   `support::safety`, which the other tests use to prove answers safe.

mod balance;
mod check;
mod cli;
mod cost_options;
mod datafiles;
mod exec;
mod exit_status;
mod explain;
mod explain_stop;
mod figures;
mod ganeti_version;
mod groups;
mod health;
mod hostile;
mod htools;
mod invariants;
mod json;
mod layers;
mod live;
mod manual;
mod programs;
mod properties;
mod readme;
mod repair;
mod report;
mod report_figures;
mod roll;
mod run;
mod safety_checker;
mod samples;
mod shadow;
mod space;
mod squeeze;
mod squeeze_cautions;
mod support;
mod threads;
mod verdicts;
