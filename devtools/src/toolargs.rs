//! The command-line reading of `hailstone-bench` (the last tool not yet on
//! clap, which `hailstone-gen` and `hailstone-compat` use): options in
//! order, each value given either as `--name=value` or as the next
//! argument.

/// One option (or bare word) and its value.
pub struct Arg<'a> {
    /// The option name (`--seed`) or the bare word.
    pub name: &'a str,
    /// The value, for options that take one.
    pub value: Option<String>,
}

/// Reads `args` one option at a time.
pub struct Args<'a> {
    args: &'a [String],
    next: usize,
}

impl<'a> Args<'a> {
    pub fn new(args: &'a [String]) -> Args<'a> {
        Args { args, next: 0 }
    }

    /// The next option; `takes_value` says which names take a value. A
    /// value after `=` on an option that takes none, or a missing value, is
    /// an error.
    pub fn next(&mut self, takes_value: impl Fn(&str) -> bool) -> Option<Result<Arg<'a>, String>> {
        let word = self.args.get(self.next)?.as_str();
        self.next += 1;
        let (name, inline) = match word.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v)),
            _ => (word, None),
        };
        let value = match (takes_value(name), inline) {
            (true, Some(v)) => Some(v.to_owned()),
            (true, None) => match self.args.get(self.next) {
                Some(v) => {
                    self.next += 1;
                    Some(v.clone())
                }
                None => return Some(Err(format!("option {name} needs a value"))),
            },
            (false, Some(_)) => return Some(Err(format!("option {name} takes no value"))),
            (false, None) => None,
        };
        Some(Ok(Arg { name, value }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    fn read_all(s: &str) -> Result<Vec<(String, Option<String>)>, String> {
        let w = words(s);
        let mut args = Args::new(&w);
        let mut out = Vec::new();
        while let Some(a) = args.next(|n| n == "--seed" || n == "--out") {
            let a = a?;
            out.push((a.name.to_owned(), a.value));
        }
        Ok(out)
    }

    #[test]
    fn both_value_forms_and_flags() {
        assert_eq!(
            read_all("gen --seed 3 --out=x=y -v").unwrap(),
            vec![
                ("gen".to_owned(), None),
                ("--seed".to_owned(), Some("3".to_owned())),
                ("--out".to_owned(), Some("x=y".to_owned())),
                ("-v".to_owned(), None),
            ]
        );
    }

    #[test]
    fn missing_and_unexpected_values() {
        assert_eq!(
            read_all("--seed").unwrap_err(),
            "option --seed needs a value"
        );
        assert_eq!(
            read_all("-v --verbose=1").unwrap_err(),
            "option --verbose takes no value"
        );
    }
}
