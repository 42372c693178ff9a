//! Every program's `--help` and man page: a usage line with its arguments,
//! an exit-status paragraph naming every status the program ends with, no
//! option text known to contradict what the option does, and a man page
//! that `man -l` renders without a warning, with EXIT STATUS and EXAMPLES
//! (and HOW IT DECIDES where a program decides); every option with a value
//! states its default, and a default in brackets is the one it takes.

use hailstone::program::cli::getopt::ArgKind;
use hailstone::program::cli::{Opt, Options};
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

/// Options whose value names something to read, write, select or pass on:
/// without them nothing is read, written, selected or passed, which their
/// texts say, so they state no default value.
const NAMES_A_THING: [Opt; 19] = [
    Opt::TextData,
    Opt::IallocSrc,
    Opt::Master,
    Opt::Simulate,
    Opt::N1Rule,
    Opt::Offline,
    Opt::DynuFile,
    Opt::MondData,
    Opt::RestrictAllocationTo,
    Opt::Group,
    Opt::SelectInstances,
    Opt::ExcludeInstances,
    Opt::ExclusionTags,
    Opt::NodeTags,
    Opt::PrintCommands,
    Opt::Save,
    Opt::Explain,
    Opt::Report,
    Opt::Reason,
];

/// The default `[...]` at the end of a help text (the last brackets).
fn bracket(help: &str) -> Option<&str> {
    let open = help.rfind('[')?;
    let close = help[open..].find(']')? + open;
    Some(&help[open + 1..close])
}

/// Every option that takes a value states its default (in brackets, or
/// in words: "default", "without it"), unless it names a thing; and where
/// the brackets hold a value, it is the one the option takes when it is
/// not given.
#[test]
fn every_option_states_its_default() {
    let d = Options::default();
    let number = |o: Opt| -> Option<f64> {
        Some(match o {
            Opt::MinScore => d.min_score,
            Opt::MinGain => d.min_gain,
            Opt::MinGainLimit => d.min_gain_limit,
            Opt::MaxLength => d.max_length as f64,
            Opt::MinDisk => d.min_disk,
            Opt::MinimalResources => d.minimal_resources,
            Opt::TargetResources => d.target_resources,
            Opt::ExplainKeep => d.explain_keep as f64,
            Opt::JobDelay => d.job_delay,
            Opt::StaticKvmNodeMemory => d.load.static_kvm_node_memory as f64,
            Opt::ShadowTimeout => d.shadow.timeout,
            Opt::Keep => d.shadow.keep as f64,
            Opt::ResyncRate => d.rates.resync as f64,
            Opt::MigrationBandwidth => d.rates.migration as f64,
            _ => return None,
        })
    };
    let mut checked = 0;
    for p in PROGRAMS {
        for row in p.table() {
            if matches!(row.kind, ArgKind::No | ArgKind::Flag) || NAMES_A_THING.contains(&row.id) {
                continue;
            }
            let said = bracket(row.help);
            assert!(
                said.is_some() || row.help.contains("default") || row.help.contains("without it"),
                "{}: --{} states no default: {}",
                p.name,
                row.long,
                row.help
            );
            let Some(said) = said else { continue };
            if let Some(value) = number(row.id) {
                // `[-1: no limit]`: the value, then what it means.
                let word = said.split(':').next().unwrap();
                let got: f64 = word
                    .parse()
                    .unwrap_or_else(|e| panic!("{}: --{} [{said}]: {e}", p.name, row.long));
                assert_eq!(got, value, "{}: --{}", p.name, row.long);
                checked += 1;
            }
            let text = match row.id {
                Opt::Luxi => Some(hailstone::program::cli::options::DEFAULT_LUXI_SOCKET.to_owned()),
                Opt::OutputDir => Some(d.output_dir.clone()),
                Opt::Mond => Some(if d.mond { "yes" } else { "no" }.to_owned()),
                Opt::Priority => Some(if d.priority == 0 { "normal" } else { "?" }.to_owned()),
                Opt::Reference => Some(d.shadow.reference.clone()),
                Opt::RecordDir => Some(d.shadow.record_dir.clone()),
                _ => None,
            };
            if let Some(text) = text {
                assert_eq!(said, text, "{}: --{}", p.name, row.long);
                checked += 1;
            }
        }
    }
    assert!(checked > 30, "{checked}");
}

/// The programs that decide say how in their man pages.
#[test]
fn man_pages_say_how_they_decide() {
    for (name, page) in man_pages() {
        let has = page.contains("\n.SH HOW IT DECIDES\n");
        let decides = !matches!(
            name,
            "hailstone-scan" | "hailstone-htools" | "hailstone-shadow"
        );
        assert_eq!(has, decides, "{name}");
    }
    let pages: Vec<(&str, String)> = man_pages();
    let page = |n: &str| pages.iter().find(|p| p.0 == n).unwrap().1.clone();
    for (program, words) in [
        (
            "hailstone",
            &["global N+1 check", "allocation policy", "node\\-evacuate"][..],
        ),
        (
            "hailstone-balance",
            &[
                "\\-\\-min\\-gain\\-limit",
                "r:NODE f",
                "free_mem_cv (weight",
                "61440 KiB/s",
                "knee",
            ],
        ),
        (
            "hailstone-squeeze",
            &["standby", "\\-\\-target\\-resources"],
        ),
        (
            "hailstone-space",
            &["\\-\\-allocator\\-model", "tiered count", "standard count"],
        ),
        ("hailstone-roll", &["Dsatur", "master node"]),
        ("hailstone-groups", &["weakly unhealthy", "compress"]),
        ("hailstone-check", &["Cluster needs rebalancing"]),
        ("hailstone-repair", &["fix\\-storage", "enoperm"]),
    ] {
        let p = page(program);
        let section = &p[p.find(".SH HOW IT DECIDES").unwrap()..p.find(".SH OPTIONS").unwrap()];
        for w in words {
            assert!(section.contains(w), "{program}: {w}");
        }
    }
}
