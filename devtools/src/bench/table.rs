//! The table: cells, plain and Markdown layouts, the machine and the date.

use super::*;

/// Seconds with about three significant digits.
pub(super) fn secs(t: f64) -> String {
    if t >= 100.0 {
        format!("{:.0}", t)
    } else if t >= 10.0 {
        format!("{:.1}", t)
    } else if t >= 1.0 {
        format!("{:.2}", t)
    } else if t >= 0.01 {
        format!("{:.3}", t)
    } else {
        format!("{:.4}", t)
    }
}

/// The text of a capped time, `> 60` for a 60-second cap.
pub(super) fn cap_text(cap: Duration) -> String {
    let c = cap.as_secs_f64();
    if c.fract() == 0.0 {
        format!("> {}", c)
    } else {
        format!("> {}", secs(c))
    }
}

pub(super) fn hail_cell(h: &HailTime, cap: Duration) -> String {
    match h {
        HailTime::Median(t, _) => secs(*t),
        HailTime::Capped | HailTime::Skipped => cap_text(cap),
        HailTime::NotRun => "not run".to_string(),
        HailTime::Failed(_) => "failed".to_string(),
    }
}

/// A time cell with its unit (`1.85 s`, `> 60 s`; words stay as they are).
pub(super) fn with_unit(cell: String) -> String {
    if cell.starts_with('>') || cell.parse::<f64>().is_ok() {
        format!("{cell} s")
    } else {
        cell
    }
}

pub(super) fn stone_cell(s: &StoneTime, cap: Duration) -> String {
    match s {
        StoneTime::Median(t, _) => secs(*t),
        StoneTime::Capped | StoneTime::Skipped => cap_text(cap),
        StoneTime::Failed(_) => "failed".to_string(),
    }
}

/// A ratio with two or three significant digits.
pub(super) fn ratio_text(r: f64) -> String {
    if r >= 100.0 {
        format!("{:.0}", r)
    } else if r >= 10.0 {
        format!("{:.1}", r)
    } else {
        format!("{:.2}", r)
    }
}

pub(super) fn ratio_cell(row: &Row, cap: Duration) -> String {
    let stone = match row.stone {
        StoneTime::Median(t, _) if t > 0.0 => t,
        _ => return "n/a".to_string(),
    };
    match row.hail {
        HailTime::Median(h, _) => format!("{}×", ratio_text(h / stone)),
        HailTime::Capped | HailTime::Skipped => {
            format!("> {}×", ratio_text(cap.as_secs_f64() / stone))
        }
        HailTime::Failed(_) | HailTime::NotRun => "n/a".to_string(),
    }
}

pub(super) fn rss_cell(kib: Option<u64>) -> String {
    match kib {
        Some(k) => format!("{:.1}", k as f64 / 1024.0),
        None => "n/a".to_string(),
    }
}

pub(super) fn same_cell(s: Same) -> &'static str {
    match s {
        Same::Yes => "yes",
        Same::No => "no",
        Same::RunsYes => "yes (runs)",
        Same::RunsNo => "NO (runs)",
        Same::NotApplicable => "n/a",
    }
}

pub(super) const HEADERS: [&str; 7] = [
    "mode",
    "nodes",
    "hail s",
    "hailstone s",
    "ratio",
    "hailstone peak RSS (MB)",
    "same answer",
];

/// The headers of a table of `mode`'s rows (a planner's name its
/// original and hailstone's program).
pub(super) fn headers(mode: Mode) -> [String; 7] {
    if !mode.is_planner() {
        return HEADERS.map(str::to_owned);
    }
    let (a, b) = (mode.original(), mode.ours());
    [
        "mode".to_owned(),
        "nodes".to_owned(),
        format!("{a} s"),
        format!("{b} s"),
        "ratio".to_owned(),
        format!("{b} peak RSS (MB)"),
        "same output".to_owned(),
    ]
}
/// The line above the table of `mode`'s rows, when its columns need one:
/// the space table's `--allocator-model` rows are held against hspace's
/// default count, a mode hspace does not have; the compress rows have no
/// original at all.
pub(super) fn legend(mode: Mode) -> Option<String> {
    if mode == Mode::Compress {
        return Some(format!(
            "Ganeti has no multi-group compression: the '{} s' column is another hailstone-groups build's time when --groups-against names one (then ratio = its time / this build's, and 'same output' compares the two outputs), else 'not run', and 'same output' compares this build's runs with each other.",
            mode.original()
        ));
    }
    (mode.table() == Mode::Space).then(|| {
        format!(
            "ratio = hspace s / hailstone-space s. The '{}' rows time hailstone-space --allocator-model; hspace has no such mode, so their hspace s is hspace's default run (the row above, not run again) and their ratio is hspace's default run time / hailstone-space --allocator-model's time (another count, no output to compare).",
            Mode::SpaceModel.name()
        )
    })
}

/// Whether each column is right-aligned (numbers) or left-aligned (text).
pub(super) const RIGHT: [bool; 7] = [false, true, true, true, true, true, false];

/// The cells of the table, one row per case.
pub(super) fn cells(rows: &[Row], cap: Duration) -> Vec<[String; 7]> {
    rows.iter()
        .map(|r| {
            [
                r.mode.name().to_string(),
                r.nodes.to_string(),
                hail_cell(&r.hail, cap),
                stone_cell(&r.stone, cap),
                ratio_cell(r, cap),
                rss_cell(r.rss_kib),
                same_cell(r.same).to_string(),
            ]
        })
        .collect()
}

/// The table as aligned plain text, with the headers of `mode`'s rows.
pub(super) fn plain_table(rows: &[Row], cap: Duration, mode: Mode) -> String {
    let body = cells(rows, cap);
    let heads = headers(mode);
    let mut width: [usize; 7] = heads.clone().map(|h| h.chars().count());
    for r in &body {
        for (w, c) in width.iter_mut().zip(r.iter()) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cols: &[String]| -> String {
        let mut s = String::new();
        for (k, c) in cols.iter().enumerate() {
            let pad = " ".repeat(width[k].saturating_sub(c.chars().count()));
            if k > 0 {
                s.push_str("  ");
            }
            if RIGHT[k] {
                s.push_str(&pad);
                s.push_str(c);
            } else {
                s.push_str(c);
                if k + 1 < cols.len() {
                    s.push_str(&pad);
                }
            }
        }
        s.push('\n');
        s
    };
    let mut out = line(&heads);
    out.push_str(&line(&width.map(|w| "-".repeat(w))));
    for r in &body {
        out.push_str(&line(r));
    }
    out
}

/// The table as Markdown, with the headers of `mode`'s rows.
pub(super) fn markdown_table(rows: &[Row], cap: Duration, mode: Mode) -> String {
    let mut out = format!("| {} |\n", headers(mode).join(" | "));
    let seps: Vec<&str> = RIGHT
        .iter()
        .map(|&r| if r { "---:" } else { "---" })
        .collect();
    out.push_str(&format!("|{}|\n", seps.join("|")));
    for r in cells(rows, cap) {
        out.push_str(&format!("| {} |\n", r.join(" | ")));
    }
    out
}

// ---------------------------------------------------------------------------
// The machine and the date.
// ---------------------------------------------------------------------------

/// "N CPUs, model, M GiB RAM" from std and /proc.
pub(super) fn machine() -> String {
    let cpus = std::thread::available_parallelism()
        .map(|n| n.get().to_string())
        .unwrap_or_else(|_| "?".to_string());
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown CPU model".to_string());
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let mem = meminfo
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|k| k.parse::<u64>().ok())
        .map(|k| format!(", {:.1} GiB RAM", k as f64 / 1024.0 / 1024.0))
        .unwrap_or_default();
    format!("{} CPUs (nproc), {}{}", cpus, model, mem)
}

pub(super) use hailstone::haskell::time::civil_from_days;

/// The current UTC date and time, `YYYY-MM-DD HH:MM UTC`.
pub(super) fn now_utc() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0) as i64;
    let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02} UTC",
        year,
        month,
        day,
        rem / 3600,
        rem % 3600 / 60
    )
}

/// The first line of `bin --version`, or a placeholder.
pub(super) fn version(bin: &Path) -> String {
    Command::new(bin)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .map(str::to_string)
        })
        .filter(|l| !l.trim().is_empty())
        .unwrap_or_else(|| "version unknown".to_string())
}

/// The cost of `--explain` on the allocator rows: hailstone's time
/// without and with it, their ratio, and whether the answer stayed the
/// same.
pub(super) fn explain_table(rows: &[Row], markdown: bool) -> String {
    let heads = [
        "mode",
        "nodes",
        "hailstone s",
        "with --explain s",
        "cost",
        "same answer",
    ];
    let mut cells: Vec<[String; 6]> = Vec::new();
    for r in rows {
        let (StoneTime::Median(base, _), Some((with, same))) = (&r.stone, r.explain) else {
            continue;
        };
        cells.push([
            r.mode.name().to_owned(),
            r.nodes.to_string(),
            format!("{base:.3}"),
            format!("{with:.3}"),
            format!("{:.2}×", with / base),
            if same { "yes" } else { "NO" }.to_owned(),
        ]);
    }
    if markdown {
        let mut out = format!(
            "| {} |\n|{}\n",
            heads.join(" | "),
            "---|".repeat(heads.len())
        );
        for c in &cells {
            out.push_str(&format!("| {} |\n", c.join(" | ")));
        }
        return out;
    }
    let mut widths: Vec<usize> = heads.iter().map(|h| h.chars().count()).collect();
    for c in &cells {
        for (w, x) in widths.iter_mut().zip(c) {
            *w = (*w).max(x.chars().count());
        }
    }
    let line = |items: &[&str]| -> String {
        let parts: Vec<String> = items
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (x, w))| {
                let pad = w - x.chars().count();
                if i == 0 {
                    format!("{x}{}", " ".repeat(pad))
                } else {
                    format!("{}{x}", " ".repeat(pad))
                }
            })
            .collect();
        format!("{}\n", parts.join("  ").trim_end())
    };
    let mut out = line(&heads);
    let dashes: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    out.push_str(&line(
        &dashes.iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    for c in &cells {
        out.push_str(&line(&c.iter().map(String::as_str).collect::<Vec<_>>()));
    }
    out
}
