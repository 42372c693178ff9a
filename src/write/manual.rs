//! The programs' manuals, from one [`Manual`] per program: the part of
//! `--help` after the option table (what the program does, its exit
//! statuses, examples) and the man page (roff, with the sections of
//! `man-pages(7)`: NAME, SYNOPSIS, DESCRIPTION, HOW IT DECIDES, OPTIONS,
//! EXIT STATUS, ENVIRONMENT, EXAMPLES, FILES, SEE ALSO). The exit
//! statuses follow the one convention of [`crate::write::exit_status`].
//!
//! HOW IT DECIDES is the man page's only (it is too long for `--help`):
//! [`Block`]s that each program builds at run time from the constants its
//! searches use (`program::cli::decides`), so that a weight or a default named
//! there is the one the code applies.

pub use crate::write::exit_status::ExitStatus;

/// What a program's manual says beyond its options.
#[derive(Debug)]
pub struct Manual {
    /// What it does, in a line (the man page's NAME line).
    pub summary: &'static str,
    /// What it does, in paragraphs.
    pub description: &'static [&'static str],
    /// Each exit status the program gives (besides
    /// [`ExitStatus::ClosedPipe`], which every program gives) and when
    /// it ends with it, in its own words after the convention's name.
    pub exit_status: &'static [(ExitStatus, &'static str)],
    /// Command lines and what each does.
    pub examples: &'static [(&'static str, &'static str)],
    /// The files it reads or writes, and what they are.
    pub files: &'static [(&'static str, &'static str)],
    /// How it decides: the man page's HOW IT DECIDES section (none when
    /// the function gives no block).
    pub decides: fn() -> Vec<Block>,
}

/// A part of a man page's HOW IT DECIDES section.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// A subsection's heading (`.SS`).
    Heading(String),
    /// A paragraph.
    Text(String),
    /// A tagged paragraph: the term (in bold), then its text.
    Item(String, String),
}

/// The HOW IT DECIDES section of a program that has none.
pub fn no_section() -> Vec<Block> {
    Vec::new()
}

/// A program's exit statuses: its own list, then the closed output every
/// program shares; each as its code and what it means here.
fn statuses(m: &Manual) -> Vec<(u8, String)> {
    m.exit_status
        .iter()
        .map(|(status, what)| (status.code(), format!("{}: {what}", status.name())))
        .chain(std::iter::once((
            ExitStatus::ClosedPipe.code(),
            format!(
                "{}: {}",
                ExitStatus::ClosedPipe.name(),
                ExitStatus::ClosedPipe.meaning()
            ),
        )))
        .collect()
}

/// What every man page says of `HAILSTONE_THREADS` (`crate::threads`).
const THREADS: &str = "The number of threads, 1 to 1024, instead of the processors the program may run on. The output is the same on any number of threads. Any other value stops the program with exit status 2.";

/// One option of a man page: its names as `--help` shows them
/// (`-p[FIELDS], --print-nodes[=FIELDS]`) and what it does.
#[derive(Debug)]
pub struct OptionRow {
    pub names: String,
    pub help: String,
}

/// The width `--help` wraps its paragraphs at.
const WIDTH: usize = 79;

/// `text` in lines of at most [`WIDTH`] columns (a longer word alone on
/// its line), each starting with `indent`.
fn wrap(text: &str, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && indent.len() + line.len() + 1 + word.len() > WIDTH {
            out.push_str(indent);
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(indent);
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The end of `--help`: the description, the exit statuses and the
/// examples, each block after an empty line.
pub fn help_tail(m: &Manual) -> String {
    let mut s = String::new();
    for p in m.description {
        s.push('\n');
        s.push_str(&wrap(p, ""));
    }
    s.push_str("\nExit status:\n");
    for (code, what) in statuses(m) {
        let lead = format!("  {code:<3}  ");
        let text = wrap(&what, "       ");
        s.push_str(&lead);
        s.push_str(text.trim_start());
    }
    if !m.examples.is_empty() {
        s.push_str("\nExamples:\n");
        for (command, what) in m.examples {
            s.push_str(&format!("  {command}\n"));
            s.push_str(&wrap(what, "      "));
        }
    }
    s
}

/// `text` as roff text: backslashes and dashes escaped, a line never
/// starting with a control character.
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    escaped
        .lines()
        .map(|l| {
            if l.starts_with('.') || l.starts_with('\'') {
                format!("\\&{l}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}

/// The man page of program `name` (section 1) at `version`: its usage
/// `synopsis` (what follows the name), manual `m`, `options` and the
/// other programs' names (`see_also`, as `name(1)`).
pub fn man_page(
    name: &str,
    version: &str,
    synopsis: &str,
    m: &Manual,
    options: &[OptionRow],
    see_also: &[&str],
) -> String {
    let mut s = format!(
        ".TH {} 1 \"\" \"hailstone {version}\" \"hailstone\"\n",
        roff(&name.to_uppercase()).trim_end()
    );
    s.push_str(".SH NAME\n");
    s.push_str(&roff(&format!("{name} - {}", m.summary)));
    s.push_str(".SH SYNOPSIS\n.B ");
    s.push_str(&roff(name));
    s.push_str(&roff(synopsis));
    s.push_str(".SH DESCRIPTION\n");
    for (k, p) in m.description.iter().enumerate() {
        if k > 0 {
            s.push_str(".PP\n");
        }
        s.push_str(&roff(p));
    }
    // A tagged paragraph: the term in `font` (B or I), then its text.
    let item = |s: &mut String, font: &str, term: &str, text: &str| {
        s.push_str(&format!(".TP\n.{font} "));
        s.push_str(&roff(term));
        s.push_str(&roff(text));
    };
    let decides = (m.decides)();
    if !decides.is_empty() {
        s.push_str(".SH HOW IT DECIDES\n");
        let mut first = true;
        for b in &decides {
            match b {
                Block::Heading(h) => {
                    s.push_str(".SS ");
                    s.push_str(&roff(h));
                    first = true;
                    continue;
                }
                Block::Text(t) => {
                    if !first {
                        s.push_str(".PP\n");
                    }
                    s.push_str(&roff(t));
                }
                Block::Item(term, text) => item(&mut s, "B", term, text),
            }
            first = false;
        }
    }
    s.push_str(".SH OPTIONS\n");
    for o in options {
        item(&mut s, "B", &o.names, &o.help);
    }
    s.push_str(".SH EXIT STATUS\n");
    for (code, what) in statuses(m) {
        item(&mut s, "B", &code.to_string(), &what);
    }
    s.push_str(".SH ENVIRONMENT\n");
    item(&mut s, "B", "HAILSTONE_THREADS", THREADS);
    if !m.examples.is_empty() {
        s.push_str(".SH EXAMPLES\n");
        for (command, what) in m.examples {
            item(&mut s, "B", command, what);
        }
    }
    if !m.files.is_empty() {
        s.push_str(".SH FILES\n");
        for (file, what) in m.files {
            item(&mut s, "I", file, what);
        }
    }
    s.push_str(".SH SEE ALSO\n");
    let others: Vec<String> = see_also
        .iter()
        .filter(|o| **o != name)
        .map(|o| format!("\\fB{}\\fR(1)", roff(o).trim_end()))
        .chain(["\\fBgnt\\-cluster\\fR(8)".to_owned()])
        .collect();
    s.push_str(&others.join(",\n"));
    s.push_str("\n.PP\n");
    s.push_str(&roff(
        "/usr/share/doc/hailstone/README.md: install, use, upgrade, rollback, differences from the originals, troubleshooting.",
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: Manual = Manual {
        summary: "do a thing",
        description: &["First paragraph, long enough to be wrapped at the width of a terminal of seventy-nine columns.", ".dot"],
        exit_status: &[(ExitStatus::Done, "ran"), (ExitStatus::Failed, "failed")],
        examples: &[("prog -t x.data", "run on x")],
        files: &[("/etc/x", "the x")],
        decides: || {
            vec![
                Block::Text("Why.".to_owned()),
                Block::Heading("Parts".to_owned()),
                Block::Text("First.".to_owned()),
                Block::Item("-a".to_owned(), "a".to_owned()),
                Block::Text("After.".to_owned()),
            ]
        },
    };

    #[test]
    fn help_tail_wraps_and_lists() {
        let t = help_tail(&M);
        assert!(t.lines().all(|l| l.len() <= WIDTH), "{t}");
        assert!(t.starts_with("\nFirst paragraph,"), "{t}");
        assert!(
            t.contains("\nExit status:\n  0    done: ran\n  1    could not run: failed\n  141  output closed: "),
            "{t}"
        );
        assert!(
            t.ends_with("\nExamples:\n  prog -t x.data\n      run on x\n"),
            "{t}"
        );
    }

    #[test]
    fn man_page_has_every_section_and_escapes() {
        let rows = [OptionRow {
            names: "-t FILE, --text-data=FILE".to_owned(),
            help: "the data".to_owned(),
        }];
        let p = man_page(
            "prog-x",
            "1.0",
            " [OPTION...]",
            &M,
            &rows,
            &["prog-x", "other"],
        );
        for section in [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "HOW IT DECIDES",
            "OPTIONS",
            "EXIT STATUS",
            "ENVIRONMENT",
            "EXAMPLES",
            "FILES",
            "SEE ALSO",
        ] {
            assert!(p.contains(&format!(".SH {section}\n")), "{section}: {p}");
        }
        assert!(p.contains("prog\\-x \\- do a thing\n"), "{p}");
        assert!(p.contains("\n\\&.dot\n"), "{p}");
        assert!(p.contains(".B \\-t FILE, \\-\\-text\\-data=FILE\n"), "{p}");
        assert!(p.contains("\\fBother\\fR(1)"), "{p}");
        assert!(
            p.contains(".SH HOW IT DECIDES\nWhy.\n.SS Parts\nFirst.\n.TP\n.B \\-a\na\n.PP\nAfter.\n.SH OPTIONS\n"),
            "{p}"
        );
        let none = Manual {
            decides: no_section,
            ..M
        };
        let p = man_page("prog", "1.0", "", &none, &rows, &[]);
        assert!(!p.contains("HOW IT DECIDES"), "{p}");
        assert!(!p.contains("\\fBprog\\-x\\fR(1)"), "{p}");
    }
}
