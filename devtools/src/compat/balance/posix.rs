//! The regular expressions of shelltestrunner's `/.../` expectations:
//! POSIX extended syntax as `Text.Regex.TDFA` reads it with its default
//! options (a match anywhere in the text; `.` and `[^...]` do not match a
//! newline; `^` and `$` also match at line boundaries), matched by the
//! `regex` crate.
//!
//! [`Pattern::new`] rewrites the POSIX pattern in the crate's syntax, where
//! the two differ: `\c` is the character `c` itself (never a class like
//! `\d`); a bracket expression takes `\`, `[`, `&`, `~` and a leading `]`
//! literally (`[[:digit:]]` names stay), and its negation leaves out the
//! newline too; a `{` that starts no bound (`{m}`, `{m,}`, `{m,n}`) is a
//! literal; a repetition of a repetition repeats the whole (`a+?` is
//! `(a+)?`, not a lazy `a+`). The crate's own extensions (`(?...)`, `\d`,
//! class set operations) cannot be written. The crate matches in time
//! linear in the text, so `(.|\n)*` over a long output is cheap.

use regex::{Regex, RegexBuilder};

/// Largest repetition count accepted in `{m,n}` (a larger one is literal).
const MAX_REPEAT: u32 = 1000;

/// A compiled pattern.
#[derive(Clone, Debug)]
pub struct Pattern(Regex);

impl Pattern {
    /// Compiles a POSIX extended pattern.
    ///
    /// # Errors
    ///
    /// What is wrong with the pattern.
    pub fn new(pattern: &str) -> Result<Pattern, String> {
        let rust = translate(pattern)?;
        RegexBuilder::new(&rust)
            .multi_line(true)
            .build()
            .map(Pattern)
            .map_err(|e| e.to_string())
    }

    /// Whether the pattern matches somewhere in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text)
    }
}

/// The pattern in the `regex` crate's syntax.
fn translate(pattern: &str) -> Result<String, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::new();
    // Where in `out` the last atom starts (`None`: nothing to repeat), and
    // whether it already carries a repetition.
    let mut last: Option<usize> = None;
    let mut repeated = false;
    // Where each open group starts in `out`.
    let mut groups: Vec<usize> = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        let repetition = match c {
            '*' | '+' | '?' => Some(c.to_string()),
            '{' if last.is_some() => bounds(&chars, &mut i),
            _ => None,
        };
        if let Some(op) = repetition {
            let at = last.ok_or_else(|| format!("nothing to repeat before '{c}'"))?;
            if repeated {
                out.insert_str(at, "(?:");
                out.push(')');
            }
            out.push_str(&op);
            repeated = true;
            continue;
        }
        let start = out.len();
        repeated = false;
        last = Some(start);
        match c {
            '(' => {
                groups.push(start);
                out.push('(');
                last = None;
            }
            ')' => {
                last = Some(groups.pop().ok_or("unmatched ')'")?);
                out.push(')');
            }
            '|' => {
                out.push('|');
                last = None;
            }
            '^' | '$' => {
                out.push(c);
                last = None;
            }
            '.' => out.push('.'),
            '[' => i = bracket(&chars, i, &mut out)?,
            '\\' => {
                let e = chars.get(i).ok_or("a trailing backslash")?;
                i += 1;
                out.push_str(&regex::escape(&e.to_string()));
            }
            other => out.push_str(&regex::escape(&other.to_string())),
        }
    }
    if !groups.is_empty() {
        return Err("missing ')'".to_owned());
    }
    Ok(out)
}

/// Reads `{m}`, `{m,}` or `{m,n}` after the `{` at `chars[*i - 1]`,
/// moving `i` past the `}`; `None` (`i` unchanged) when the brace starts
/// no bound, in which case it is a literal.
fn bounds(chars: &[char], i: &mut usize) -> Option<String> {
    let mut at = *i;
    let number = |at: &mut usize| -> Option<u32> {
        let from = *at;
        while chars.get(*at).is_some_and(char::is_ascii_digit) {
            *at += 1;
        }
        let s: String = chars[from..*at].iter().collect();
        s.parse().ok().filter(|&n| n <= MAX_REPEAT)
    };
    let min = number(&mut at)?;
    let max = match chars.get(at) {
        Some('}') => Some(min),
        Some(',') => {
            at += 1;
            if chars.get(at) == Some(&'}') {
                None
            } else {
                Some(number(&mut at).filter(|&m| m >= min)?)
            }
        }
        _ => return None,
    };
    if chars.get(at) != Some(&'}') {
        return None;
    }
    *i = at + 1;
    Some(match max {
        Some(m) if m == min => format!("{{{min}}}"),
        Some(m) => format!("{{{min},{m}}}"),
        None => format!("{{{min},}}"),
    })
}

/// Writes the bracket expression that starts at `chars[i]` (after its
/// `[`) to `out`; returns the index after its `]`.
fn bracket(chars: &[char], mut i: usize, out: &mut String) -> Result<usize, String> {
    out.push('[');
    let negated = chars.get(i) == Some(&'^');
    if negated {
        out.push('^');
        i += 1;
    }
    let literal = |c: char, out: &mut String| {
        if matches!(c, '\\' | '[' | ']' | '^' | '-' | '&' | '~') {
            out.push('\\');
        }
        out.push(c);
    };
    let mut first = true;
    loop {
        let c = *chars.get(i).ok_or("missing ']'")?;
        i += 1;
        if c == ']' && !first {
            break;
        }
        first = false;
        if c == '[' && chars.get(i) == Some(&':') {
            let rest: String = chars[i..].iter().collect();
            let end = rest.find(":]").ok_or("unterminated [: :] class")?;
            out.push_str(&format!("[{}]", &rest[..end + 1]));
            i += rest[..end + 2].chars().count();
            continue;
        }
        literal(c, out);
        if chars.get(i) == Some(&'-') && chars.get(i + 1).is_some_and(|&n| n != ']') {
            let hi = chars[i + 1];
            i += 2;
            if hi < c {
                return Err(format!("invalid range {c}-{hi}"));
            }
            out.push('-');
            literal(hi, out);
        }
    }
    if negated {
        out.push_str("\\n");
    }
    out.push(']');
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posix_syntax_in_the_crates_words() {
        assert_eq!(translate("a\\d\\.").unwrap(), "ad\\.");
        assert_eq!(translate("[]\\a-z&&~]").unwrap(), "[\\]\\\\a-z\\&\\&\\~]");
        assert_eq!(translate("[^a]").unwrap(), "[^a\\n]");
        assert_eq!(translate("[[:digit:]x]").unwrap(), "[[:digit:]x]");
        assert_eq!(translate("a{").unwrap(), "a\\{");
        assert_eq!(translate("a{2,}b{1,3}").unwrap(), "a{2,}b{1,3}");
        assert_eq!(translate("{2}").unwrap(), "\\{2\\}");
        assert_eq!(translate("a+?").unwrap(), "(?:a+)?");
        assert_eq!(translate("(ab)*+").unwrap(), "(?:(ab)*)+");
        assert_eq!(translate("x(a|)#").unwrap(), "x(a|)\\#");
    }
}
