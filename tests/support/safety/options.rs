//! The allocator's command-line options that change what is safe.

use super::*;

/// The allocator options that matter for safety.
pub(super) struct Options {
    /// `--ignore-soft-errors`: exclusion tags are not enforced.
    pub(super) ignore_soft_errors: bool,
    /// `--restrict-allocation-to`: the node whitelist, overriding the request's.
    pub(super) restrict: Option<Vec<String>>,
    /// `-t`/`--simulate`: the answer is about another cluster; nothing is checked.
    pub(super) replaces_cluster: bool,
}

/// Whether a long option takes no argument, an optional one (only as `--opt=V`)
/// or a required one (`--opt=V` or `--opt V`).
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Arg {
    No,
    Optional,
    Required,
}

/// hail's long options (`Program/Hail.hs` and the generic CLI options).
pub(super) const LONG_OPTIONS: &[(&str, Arg)] = &[
    ("print-nodes", Arg::Optional),
    ("save", Arg::Required),
    ("text-data", Arg::Required),
    ("simulate", Arg::Required),
    ("verbose", Arg::No),
    ("ignore-dynu", Arg::No),
    ("ignore-soft-errors", Arg::No),
    ("no-capacity-checks", Arg::No),
    ("restrict-allocation-to", Arg::Required),
    ("mond", Arg::Optional),
    ("mond-xen", Arg::No),
    ("static-kvm-node-memory", Arg::Required),
    ("version", Arg::No),
    ("help", Arg::No),
    ("help-completion", Arg::No),
];

impl Options {
    /// Reads the options like hail's GetOpt: long options may be abbreviated to
    /// a unique prefix, and `--` ends the options.
    pub(super) fn parse(args: &[String], rep: &mut Report) -> Options {
        let mut o = Options {
            ignore_soft_errors: false,
            restrict: None,
            replaces_cluster: false,
        };
        let mut i = 0;
        while i < args.len() {
            let arg = args[i].as_str();
            i += 1;
            if arg == "--" {
                break;
            }
            if let Some(body) = arg.strip_prefix("--") {
                let (name, inline) = match body.split_once('=') {
                    Some((n, v)) => (n, Some(v.to_owned())),
                    None => (body, None),
                };
                let Some((full, kind)) = resolve_long(name, rep) else {
                    continue;
                };
                let value = match (kind, inline) {
                    (Arg::No, Some(_)) => {
                        rep.add(
                            OPTIONS_UNSUPPORTED,
                            format!("option --{full} takes no argument"),
                        );
                        continue;
                    }
                    (Arg::Required, None) => {
                        let next = args.get(i).cloned();
                        i += 1;
                        if next.is_none() {
                            rep.add(
                                OPTIONS_UNSUPPORTED,
                                format!("option --{full} needs an argument"),
                            );
                        }
                        next
                    }
                    (_, v) => v,
                };
                o.apply(full, value, rep);
            } else if let Some(flags) = arg.strip_prefix('-') {
                if flags.is_empty() {
                    // A lone "-" is the request read from stdin.
                    continue;
                }
                let chars: Vec<char> = flags.chars().collect();
                let mut k = 0;
                while k < chars.len() {
                    let c = chars[k];
                    k += 1;
                    let rest: String = chars[k..].iter().collect();
                    match c {
                        'v' | 'V' | 'h' => {}
                        'p' => break,
                        'S' | 't' => {
                            let value = if rest.is_empty() {
                                let next = args.get(i).cloned();
                                i += 1;
                                next
                            } else {
                                Some(rest)
                            };
                            o.apply(if c == 't' { "text-data" } else { "save" }, value, rep);
                            break;
                        }
                        other => {
                            rep.add(OPTIONS_UNSUPPORTED, format!("unknown option -{other}"));
                            break;
                        }
                    }
                }
            }
        }
        o
    }

    pub(super) fn apply(&mut self, name: &str, value: Option<String>, rep: &mut Report) {
        match name {
            "ignore-soft-errors" => self.ignore_soft_errors = true,
            "restrict-allocation-to" => {
                self.restrict = Some(
                    value
                        .unwrap_or_default()
                        .split(',')
                        .map(str::to_owned)
                        .collect(),
                );
            }
            "text-data" | "simulate" => {
                self.replaces_cluster = true;
                rep.add(
                    OPTIONS_UNSUPPORTED,
                    format!("--{name} replaces the request's cluster data, so the answer cannot be checked against the request"),
                );
            }
            _ => {}
        }
    }
}

/// Finds the long option `name` names: an exact match, or the only option it is a prefix of.
pub(super) fn resolve_long(name: &str, rep: &mut Report) -> Option<(&'static str, Arg)> {
    if let Some(&(full, kind)) = LONG_OPTIONS.iter().find(|(n, _)| *n == name) {
        return Some((full, kind));
    }
    let matches: Vec<&(&str, Arg)> = LONG_OPTIONS
        .iter()
        .filter(|(n, _)| !name.is_empty() && n.starts_with(name))
        .collect();
    match matches.as_slice() {
        [(full, kind)] => Some((*full, *kind)),
        [] => {
            rep.add(OPTIONS_UNSUPPORTED, format!("unknown option --{name}"));
            None
        }
        _ => {
            rep.add(OPTIONS_UNSUPPORTED, format!("option --{name} is ambiguous"));
            None
        }
    }
}
