//! The `datafiles` part's rewritten policies: Ganeti's tiered data files
//! (`hspace-tiered*.data`, `missing-resources.data`) and
//! `hspace-existing.data` (which has instances) with one resource of
//! one spec of every instance policy line set to another value, mostly
//! far above the nodes. hspace's tiered count shrinks such a spec one
//! unit at a time and `hailstone-space` skips the sizes no search tells
//! apart; the runs check that it gives hspace's bytes all the same. The
//! values are those hspace still counts within the profile's cap (the ci
//! list within a second or two each), among them some beyond `Int`
//! (`i64::MAX`), where a node's sums wrap around as in hspace and its
//! statistics leave `Int` (`haskell::num`).

use std::path::Path;

/// A rewrite: the data file, the spec (`max`, `min`, `std`, or `maxN`,
/// `minN` for the pair `N`, from 0), the resource (`mem`, `cpu`, `disk`,
/// `spindles`) and its value.
pub(super) type Rewrite = (&'static str, &'static str, &'static str, i64);

/// The ci profile's rewrites.
pub(super) const CI: &[Rewrite] = &[
    ("hspace-tiered.data", "max", "cpu", 1000),
    ("hspace-tiered.data", "max", "spindles", 1000),
    ("hspace-tiered.data", "min", "mem", 64),
    ("hspace-tiered-dualspec.data", "max1", "mem", 1_048_576),
    (
        "hspace-tiered-dualspec-exclusive.data",
        "max1",
        "spindles",
        3000,
    ),
    ("hspace-tiered-exclusive.data", "max", "spindles", 5000),
    ("hspace-tiered-ipolicy.data", "max", "disk", 2_000_000),
    ("hspace-tiered-resourcetypes.data", "max", "spindles", 2000),
    ("hspace-tiered-vcpu.data", "max", "cpu", 5000),
    ("missing-resources.data", "max", "disk", 16_777_216),
    // Beyond `Int` (a node's sums wrap around), where hspace ends.
    ("hspace-tiered.data", "max", "spindles", i64::MAX),
    ("hspace-existing.data", "max", "mem", i64::MAX),
    ("hspace-tiered-dualspec.data", "max1", "cpu", i64::MAX),
];

/// The full profile's rewrites: the ci ones and more, some of which take
/// hspace minutes.
pub(super) const FULL: &[Rewrite] = &[
    ("hspace-tiered.data", "max", "cpu", 1000),
    ("hspace-tiered.data", "max", "spindles", 1000),
    ("hspace-tiered.data", "min", "mem", 64),
    ("hspace-tiered.data", "std", "mem", 4096),
    ("hspace-tiered.data", "max", "mem", 1_048_576),
    ("hspace-tiered.data", "max", "mem", 67_108_864),
    ("hspace-tiered-dualspec.data", "max1", "mem", 1_048_576),
    ("hspace-tiered-dualspec.data", "max", "cpu", 3000),
    ("hspace-tiered-dualspec.data", "min1", "disk", 1024),
    (
        "hspace-tiered-dualspec-exclusive.data",
        "max1",
        "spindles",
        3000,
    ),
    ("hspace-tiered-exclusive.data", "max", "spindles", 5000),
    ("hspace-tiered-exclusive.data", "max", "mem", 4_194_304),
    ("hspace-tiered-ipolicy.data", "max", "disk", 2_000_000),
    ("hspace-tiered-ipolicy.data", "max", "mem", 1_000_000),
    ("hspace-tiered-ipolicy.data", "max", "cpu", 2000),
    ("hspace-tiered-mixed.data", "max", "mem", 2_097_152),
    ("hspace-tiered-mixed.data", "max", "disk", 16_777_216),
    ("hspace-tiered-resourcetypes.data", "max", "spindles", 2000),
    ("hspace-tiered-resourcetypes.data", "max", "disk", 4_000_000),
    ("hspace-tiered-vcpu.data", "max", "cpu", 5000),
    ("hspace-tiered-vcpu.data", "min", "cpu", 1),
    ("missing-resources.data", "max", "disk", 16_777_216),
    ("missing-resources.data", "max", "spindles", 3000),
    ("hspace-tiered.data", "max", "spindles", i64::MAX),
    ("hspace-tiered.data", "max", "cpu", i64::MAX),
    ("hspace-existing.data", "max", "mem", i64::MAX),
    ("hspace-existing.data", "max", "disk", i64::MAX),
    ("hspace-tiered-dualspec.data", "max1", "cpu", i64::MAX),
    ("hspace-tiered-exclusive.data", "max", "cpu", i64::MAX),
];

/// The position of a resource in a policy spec
/// (`mem,cpu,disk,disks,nics,spindles`).
fn position(resource: &str) -> Option<usize> {
    match resource {
        "mem" => Some(0),
        "cpu" => Some(1),
        "disk" => Some(2),
        "spindles" => Some(5),
        _ => None,
    }
}

/// Whether `line` is an instance policy line (`[group]|std|min;max[;...]
/// |templates|vcpu ratio|spindle ratio`).
fn is_policy_line(fields: &[&str]) -> bool {
    let spec =
        |f: &str| f.split(',').count() == 6 && f.split(',').all(|x| x.parse::<i64>().is_ok());
    fields.len() == 6 && spec(fields[1]) && fields[2].split(';').all(spec)
}

/// `text` with `spec`'s `resource` set to `value` in every instance
/// policy line.
///
/// # Errors
///
/// An unknown spec or resource, a spec pair the policy lacks, or a file
/// without a policy line.
pub(super) fn rewrite(
    text: &str,
    spec: &str,
    resource: &str,
    value: i64,
) -> Result<String, String> {
    let at = position(resource).ok_or_else(|| format!("unknown resource {resource}"))?;
    let pair: Option<(usize, usize)> = match spec {
        "std" => None,
        _ => {
            let (kind, n) = (spec.get(..3).unwrap_or(""), spec.get(3..).unwrap_or(""));
            let side = match kind {
                "min" => 0,
                "max" => 1,
                _ => return Err(format!("unknown spec {spec}")),
            };
            let n: usize = if n.is_empty() {
                0
            } else {
                n.parse().map_err(|_| format!("unknown spec {spec}"))?
            };
            Some((n, side))
        }
    };
    let set = |s: &str| -> String {
        let mut f: Vec<String> = s.split(',').map(str::to_owned).collect();
        f[at] = value.to_string();
        f.join(",")
    };
    let mut seen = false;
    let mut out = Vec::new();
    for line in text.split('\n') {
        let fields: Vec<&str> = line.split('|').collect();
        if !is_policy_line(&fields) {
            out.push(line.to_owned());
            continue;
        }
        seen = true;
        let mut fields: Vec<String> = fields.iter().map(|f| (*f).to_owned()).collect();
        match pair {
            None => fields[1] = set(&fields[1]),
            Some((n, side)) => {
                let mut specs: Vec<String> = fields[2].split(';').map(str::to_owned).collect();
                let i = 2 * n + side;
                let s = specs
                    .get(i)
                    .ok_or_else(|| format!("the policy has no spec {spec}"))?;
                specs[i] = set(s);
                fields[2] = specs.join(";");
            }
        }
        out.push(fields.join("|"));
    }
    if !seen {
        return Err("no instance policy line".to_owned());
    }
    Ok(out.join("\n"))
}

/// The runs of the rewrites on the data files of `testdata`: the default
/// options on the rewritten file.
///
/// # Errors
///
/// A data file that cannot be read or rewritten.
pub(super) fn runs(testdata: &Path, rewrites: &[Rewrite]) -> Result<Vec<super::RunSpec>, String> {
    rewrites
        .iter()
        .map(|&(file, spec, resource, value)| {
            let path = testdata.join(file);
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let data = rewrite(&text, spec, resource, value).map_err(|e| format!("{file}: {e}"))?;
            Ok(super::RunSpec {
                id: format!("datafile/{file}#policy-{spec}-{resource}-{value}"),
                part: "datafiles",
                family: "policy",
                args: vec!["-t".to_owned(), "{IN}/cluster.data".to_owned()],
                files: vec![("cluster.data".to_owned(), data)],
            })
        })
        .collect()
}
