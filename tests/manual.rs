//! Every program's `--help` and man page: a usage line with its arguments,
//! an exit-status paragraph naming every status the program ends with, no
//! option text known to contradict what the option does, and a man page
//! that `man -l` renders without a warning, with EXIT STATUS and EXAMPLES.

use hailstone::program::{man_pages, PROGRAMS};

/// Option texts inherited from the originals that said something false.
const WRONG: [&str; 5] = [
    "mininum excess",
    "print the final node list",
    "print the final instance map",
    "Save cluster state at the end of the processing",
    "allowed, instance changes",
];

#[test]
fn help_has_usage_exit_status_and_no_wrong_text() {
    for p in PROGRAMS {
        let help = p.usage();
        let usage = help.lines().nth(1).unwrap();
        assert_eq!(usage, format!("Usage: {} {}", p.name, p.synopsis));
        assert!(help.contains("\nExit status:\n"), "{}: {help}", p.name);
        for code in [0, 1, 2] {
            assert!(
                help.contains(&format!("\n  {code}  ")),
                "{}: exit status {code} is not explained",
                p.name
            );
        }
        assert!(help.contains("\nExamples:\n"), "{}", p.name);
        for wrong in WRONG {
            assert!(!help.contains(wrong), "{}: {wrong:?}", p.name);
        }
    }
    let hail = PROGRAMS[0].usage();
    assert!(hail.contains("Usage: hailstone [OPTION...] INPUT|-\n"));
    assert!(hail.contains("=yes, =no, =true or =false"));
    let groups = PROGRAMS[3].usage();
    for op in ["check:", "repair:", "compress:", "balance:"] {
        assert!(groups.contains(&format!("\n{op} ")), "{op}");
    }
}

#[test]
fn man_pages_render_with_every_section() {
    let dir = crate::run::scratch("manual");
    let pages = man_pages();
    assert_eq!(pages.len(), PROGRAMS.len());
    for (name, page) in pages {
        let path = dir.join(format!("{name}.1"));
        std::fs::write(&path, &page).unwrap();
        let out = std::process::Command::new("man")
            .args(["--warnings", "-l"])
            .arg(&path)
            .env("MANWIDTH", "80")
            .output()
            .expect("man runs (make test installs man-db)");
        // Without a terminal, man still marks bold by overstriking
        // (`N\x08N`): the plain text drops the struck characters.
        let raw = String::from_utf8_lossy(&out.stdout);
        let mut text = String::new();
        for c in raw.chars() {
            if c == '\x08' {
                text.pop();
            } else {
                text.push(c);
            }
        }
        let warnings = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && warnings.is_empty(),
            "{name}: {warnings}"
        );
        for section in [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "OPTIONS",
            "EXIT STATUS",
            "EXAMPLES",
            "SEE ALSO",
        ] {
            assert!(
                text.lines().any(|l| l == section),
                "{name}: no {section}:\n{text}"
            );
        }
        assert!(text.contains("--help"), "{name}: the options are listed");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
