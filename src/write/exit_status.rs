//! The exit statuses of every hailstone program: one convention, written
//! here once. `--help`'s "Exit status" paragraph and the man pages' EXIT
//! STATUS section ([`crate::write::manual`]) and the table of
//! `docs/json.md` ([`markdown`]) are made from it; the programs end with
//! [`ExitStatus::code`].
//!
//! Where an original htools program gives another status for its own
//! case, hailstone's program keeps the original's (the drop-in names must
//! behave as the originals do), and its manual says so: a bad value of
//! one of the original's options and arguments given to a program that
//! takes none exit 1, as Ganeti's `exitErr`; hcheck's "needs
//! rebalancing" exits 1; hscan's unreadable cluster exits 2.

/// How a run ended, as its exit status says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExitStatus {
    /// It did what was asked.
    Done,
    /// It could not run: bad or unreadable input, a cluster that cannot
    /// be reached, a file that cannot be written, a job that failed.
    Failed,
    /// The command line is wrong.
    Usage,
    /// It ran and found the cluster unhealthy, or could not complete the
    /// plan asked for.
    Findings,
    /// Standard output was closed before everything was written.
    ClosedPipe,
}

impl ExitStatus {
    /// Every status, in the order of their codes.
    pub const ALL: [ExitStatus; 5] = [
        ExitStatus::Done,
        ExitStatus::Failed,
        ExitStatus::Usage,
        ExitStatus::Findings,
        ExitStatus::ClosedPipe,
    ];

    /// The process's exit status.
    pub const fn code(self) -> u8 {
        match self {
            ExitStatus::Done => 0,
            ExitStatus::Failed => 1,
            ExitStatus::Usage => 2,
            ExitStatus::Findings => 3,
            // What a shell reports for a filter killed by SIGPIPE (13).
            ExitStatus::ClosedPipe => 141,
        }
    }

    /// Its name, as the manuals and `docs/json.md` use it.
    pub const fn name(self) -> &'static str {
        match self {
            ExitStatus::Done => "done",
            ExitStatus::Failed => "could not run",
            ExitStatus::Usage => "usage error",
            ExitStatus::Findings => "findings",
            ExitStatus::ClosedPipe => "output closed",
        }
    }

    /// What it means for every program.
    pub const fn meaning(self) -> &'static str {
        match self {
            ExitStatus::Done => "the program did what was asked: its answer, plan, counts or report is on stdout (or the plan was carried out, with -X)",
            ExitStatus::Failed => "the program could not run: bad or unreadable input, a cluster that cannot be reached, a file that cannot be written, or a job that failed; one error on stderr, and nothing on stdout unless a program says otherwise",
            ExitStatus::Usage => "the command line is wrong: an unknown option (the nearest ones are named), a missing or bad argument; one line on stderr saying what is valid, then 'see PROGRAM --help'",
            ExitStatus::Findings => "the program ran and found the cluster unhealthy, or could not carry out all of the plan asked for; its report is on stdout",
            ExitStatus::ClosedPipe => "standard output was closed before everything was written (a reader such as head stopped reading): the program stops without a message, as a Unix filter does",
        }
    }
}

/// The convention as a Markdown table, for `docs/json.md` (a test keeps
/// the document equal to it).
pub fn markdown() -> String {
    let mut s = String::from("| status | name | meaning |\n|---|---|---|\n");
    for status in ExitStatus::ALL {
        s.push_str(&format!(
            "| {} | {} | {} |\n",
            status.code(),
            status.name(),
            status.meaning()
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_and_in_order() {
        let codes: Vec<u8> = ExitStatus::ALL.iter().map(|s| s.code()).collect();
        let mut sorted = codes.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(codes, sorted);
    }
}
