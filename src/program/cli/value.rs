//! An option's value as the option's setter reads it ([`Arg`]): the text
//! given, a switch's `=yes|no`, numbers, sizes, rates, lists and specs,
//! each refused with the original's message (Ganeti's `tryRead`,
//! `parseUnit`, `parseISpecString`) or, for an option only hailstone has,
//! with words saying what to give instead.

use crate::haskell::read::{
    parse_unit, parse_unit_in_range, read_double, read_int_in_range, sep_split, split_on, ReadError,
};
use crate::model::policy::RSpec;

/// One occurrence's value: the option's long name (for the messages)
/// and the value, `None` when none was given.
#[derive(Debug, Clone, Copy)]
pub struct Arg<'a> {
    long: &'static str,
    given: Option<&'a str>,
}

impl<'a> Arg<'a> {
    /// The value `given` of the option named `long`.
    pub fn new(long: &'static str, given: Option<&'a str>) -> Self {
        Arg { long, given }
    }

    /// The value as given; `None` for an optional value left out.
    pub fn given(self) -> Option<&'a str> {
        self.given
    }

    /// The value, empty when none was given.
    pub fn text(self) -> &'a str {
        self.given.unwrap_or("")
    }

    /// The value, owned.
    pub fn owned(self) -> String {
        self.text().to_owned()
    }

    /// A comma-separated list, split as Ganeti's `sepSplit` does (an
    /// empty value is one empty name).
    pub fn list(self) -> Vec<String> {
        sep_split(self.text())
    }

    /// A switch's value: bare, `yes` or `true` set it; `no` or `false`
    /// clear it (hailstone: Ganeti passes allocator options only as
    /// `--key=value`).
    pub fn switch(self) -> Result<bool, String> {
        match self.given {
            None | Some("yes") | Some("true") => Ok(true),
            Some("no") | Some("false") => Ok(false),
            Some(other) => Err(format!(
                "Invalid value '{other}' for --{}, pass one of 'yes', 'no', 'true' or 'false'",
                self.long
            )),
        }
    }

    /// Ganeti's optional `yes|no` choice (`--mond`, `--machine-readable`):
    /// bare or `yes` sets it, `no` clears it.
    pub fn yes_no(self) -> Result<bool, String> {
        match self.given {
            None | Some("yes") => Ok(true),
            Some("no") => Ok(false),
            Some(other) => Err(format!(
                "Invalid choice '{other}', pass one of 'yes' or 'no'"
            )),
        }
    }

    /// A value read as Haskell's `Double`, with `tryRead`'s message
    /// naming `what`.
    pub fn double(self, what: &str) -> Result<f64, String> {
        let text = self.text();
        read_double(text).map_err(|e: ReadError| e.message(what, text))
    }

    /// An integer value, with `tryRead`'s message naming `what`. A number
    /// outside `Int`'s range is refused where the originals wrap it around
    /// (`-l 99999999999999999999999` would be a short limit, or none).
    pub fn int(self, what: &str) -> Result<i64, String> {
        int(what, self.text())
    }

    /// hsqueeze's `--minimal-resources` and `--target-resources`: a
    /// multiple of the standard instance, refused when negative or not a
    /// number (a negative target lets every node be powered off; hsqueeze
    /// takes it).
    pub fn factor(self) -> Result<f64, String> {
        let long = self.long;
        let v = self.double(&long.replace('-', " "))?;
        if v.is_finite() && v >= 0.0 {
            Ok(v)
        } else {
            Err(format!(
                "Invalid value of --{long} '{}', expected a number of standard instances, 0 or more",
                self.text()
            ))
        }
    }

    /// A path, refused when empty (`what` names it).
    pub fn nonempty(self, what: &str) -> Result<String, String> {
        if self.text().is_empty() {
            Err(format!("the {what} is empty; give a path"))
        } else {
            Ok(self.owned())
        }
    }

    /// A size in bytes: digits, then nothing (bytes) or `K`, `M`, `G` or
    /// `T` (powers of 1024, `KiB`, `KB`, ... and lower case taken alike).
    pub fn size(self) -> Result<u64, String> {
        let text = self.text();
        let t = text.trim();
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        let (number, unit) = t.split_at(digits);
        let unit = unit.trim().to_ascii_uppercase();
        let shift = match unit.trim_end_matches('B').trim_end_matches('I') {
            "" => 0,
            "K" => 10,
            "M" => 20,
            "G" => 30,
            "T" => 40,
            _ => u32::MAX,
        };
        match number.parse::<u64>() {
            Ok(n) if shift != u32::MAX && n.leading_zeros() >= shift => Ok(n << shift),
            _ => Err(format!(
                "'{text}' is not a size: give bytes, or a number with K, M or G (512M)"
            )),
        }
    }

    /// A size in MiB for an option only hailstone has (`--max-copy`):
    /// `parseUnit`'s syntax, a whole number of MiB or one with a unit; 0
    /// or more, and at most 2^63-1 MiB (refused, not wrapped as Ganeti's
    /// `Int` would wrap it).
    pub fn size_mib(self) -> Result<i64, String> {
        let text = self.text();
        match parse_unit_in_range(text) {
            Ok(Some(v)) if v >= 0 => Ok(v),
            Ok(None) => Err(format!(
                "'{text}' is out of range: give 0 to {} MiB (8 EiB)",
                i64::MAX
            )),
            _ => Err(format!(
                "'{text}' is not a size: give a whole number of MiB, or one with a unit (500g, 2t: m, g, t binary, M, G, T decimal), 0 or more"
            )),
        }
    }

    /// A rate per second (`--resync-rate`, `--migration-bandwidth`): MiB,
    /// or a size with a unit as `--simulate` takes it; at least 1 MiB
    /// and at most 2^63-1 MiB (refused, not wrapped).
    pub fn rate(self) -> Result<i64, String> {
        let text = self.text();
        match parse_unit_in_range(text) {
            Ok(Some(v)) if v > 0 => Ok(v),
            Ok(None) => Err(format!(
                "'{text}' is out of range: give 1 to {} MiB per second",
                i64::MAX
            )),
            _ => Err(format!(
                "'{text}' is not a rate: give a whole number of MiB per second, or one with a unit (1g: m, g, t binary, M, G, T decimal), at least 1 MiB per second"
            )),
        }
    }

    /// `parseISpecString`: `DISK,RAM,CPU[,SPINDLES]`, sizes with units
    /// (`parseUnit`), spindles 1 when not given; `what` names the spec in
    /// the messages.
    pub fn ispec(self, what: &str) -> Result<RSpec, String> {
        let text = self.text();
        let fields: Vec<&str> = split_on(text, ',').collect();
        if !(3..=4).contains(&fields.len()) {
            return Err(format!(
                "Invalid {what} specification: '{text}', expected disk,ram,cpu"
            ));
        }
        let unit = |i: usize, name: &str| {
            parse_unit(fields[i]).map_err(|e| format!("{what} specs {name}: {e}"))
        };
        let dsk = unit(0, "disk")?;
        let mem = unit(1, "memory")?;
        let cpu = int(&format!("{what} specs cpus"), fields[2])?;
        let spn = match fields.get(3) {
            Some(f) => int(&format!("{what} specs spindles"), f)?,
            None => 1,
        };
        Ok(RSpec { cpu, mem, dsk, spn })
    }

    /// A file a hailstone-only option writes at the end of the run (`name`
    /// in the help): refused at once when it cannot be made, saying why.
    ///
    /// # Errors
    ///
    /// The empty name, a name that is a folder, a folder that does not
    /// exist or is no folder.
    pub fn writable_file(self, name: &str) -> Result<String, String> {
        let path = self.text();
        if path.is_empty() {
            return Err(format!(
                "the {name} name is empty; give a {name} in an existing folder"
            ));
        }
        let file = std::path::Path::new(path);
        if file.is_dir() {
            return Err(format!(
                "cannot write {path}: it is a folder; give a {name} in it"
            ));
        }
        let folder = match file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => std::path::Path::new("."),
        };
        match std::fs::metadata(folder) {
            Ok(m) if m.is_dir() => Ok(path.to_owned()),
            Ok(_) => Err(format!(
                "cannot write {path}: {} is not a folder; give a {name} in an existing folder",
                folder.display()
            )),
            Err(_) => Err(format!(
                "cannot write {path}: the folder {} does not exist; give a {name} in an existing folder",
                folder.display()
            )),
        }
    }
}

/// An integer `text`, with `tryRead`'s message naming `what`; refused
/// outside `Int`'s range.
fn int(what: &str, text: &str) -> Result<i64, String> {
    read_int_in_range(text)
        .map_err(|e| e.message(what, text))?
        .ok_or_else(|| {
            format!(
                "{what}: '{text}' is out of range (integers run from {} to {})",
                i64::MIN,
                i64::MAX
            )
        })
}
