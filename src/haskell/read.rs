//! Values as Ganeti reads them from text: `tryRead` at types `Int`,
//! `Double` and `Bool` (GHC's `reads`, with its white space, parentheses,
//! bases and wrap-around) and `sepSplit`. Cluster data files, `--simulate`
//! specs and option values are all read with them.

/// Ganeti's `sepSplit ','`: an empty string gives no elements; otherwise the
/// pieces between commas, including empty ones.
pub fn sep_split(text: &str) -> Vec<String> {
    split_on(text, ',').map(str::to_string).collect()
}

/// Ganeti's `sepSplit sep`, borrowing: an empty string gives no pieces.
pub fn split_on(text: &str, sep: char) -> impl Iterator<Item = &str> {
    let pieces = if text.is_empty() {
        None
    } else {
        Some(text.split(sep))
    };
    pieces.into_iter().flatten()
}

// ---------------------------------------------------------------------------
// Haskell's `reads :: ReadS Int`.
// ---------------------------------------------------------------------------

/// Why a string is not a value for Ganeti's `tryRead`.
#[derive(Debug, PartialEq)]
pub enum ReadError {
    /// `reads` found no parse.
    NoParse,
    /// `reads` parsed a prefix; this is the rest.
    Leftover(String),
}

impl ReadError {
    /// `tryRead`'s message: `NAME: cannot parse string 'TEXT'` or
    /// `NAME: leftover characters when parsing 'TEXT': 'REST'`.
    pub fn message(&self, name: &str, text: &str) -> String {
        match self {
            ReadError::NoParse => format!("{name}: cannot parse string '{text}'"),
            ReadError::Leftover(rest) => {
                format!("{name}: leftover characters when parsing '{text}': '{rest}'")
            }
        }
    }
}

/// GHC's `reads :: ReadS Int` itself: the value and what follows it, or
/// nothing when no integer starts the text.
pub fn reads_int(text: &str) -> Option<(i64, String)> {
    match read_int(text) {
        Ok(v) => Some((v, String::new())),
        Err(ReadError::Leftover(rest)) => {
            let head = &text[..text.len() - rest.len()];
            read_int(head).ok().map(|v| (v, rest))
        }
        Err(ReadError::NoParse) => None,
    }
}

/// `reads` for a type whose values are one lexeme: white space and
/// balanced parentheses around it, and with `signed` an optional `-` just
/// inside the innermost parenthesis.
fn read_with<T>(
    text: &str,
    signed: bool,
    lexeme: impl Fn(&[char], usize) -> Option<(T, usize)>,
    negate: impl Fn(T) -> T,
) -> Result<T, ReadError> {
    let chars: Vec<char> = text.chars().collect();
    let mut pos = skip_spaces(&chars, 0);
    let mut open = 0usize;
    while chars.get(pos) == Some(&'(') {
        open += 1;
        pos = skip_spaces(&chars, pos + 1);
    }
    let negative = signed && chars.get(pos) == Some(&'-');
    if negative {
        // A `-` must be a token of its own: the only continuations that can
        // lead to a number are white space and digits, neither of which can
        // extend a symbol token.
        pos = skip_spaces(&chars, pos + 1);
    }
    let (value, end) = lexeme(&chars, pos).ok_or(ReadError::NoParse)?;
    pos = end;
    for _ in 0..open {
        pos = skip_spaces(&chars, pos);
        if chars.get(pos) != Some(&')') {
            return Err(ReadError::NoParse);
        }
        pos += 1;
    }
    let value = if negative { negate(value) } else { value };
    match chars.get(pos..) {
        Some(rest) if !rest.is_empty() => Err(ReadError::Leftover(rest.iter().collect())),
        _ => Ok(value),
    }
}

/// Ganeti's `tryRead` at type `Double` (GHC's `reads`): like [`read_int`],
/// and a decimal number may have a fraction (`.` and digits) and an
/// exponent (`e`, an optional sign and digits); `Infinity` and `NaN` are
/// numbers too. Decimal numbers are correctly rounded.
pub fn read_double(text: &str) -> Result<f64, ReadError> {
    read_with(text, true, lex_double, |v: f64| -v)
}

/// Ganeti's `tryRead` at type `Bool`: `True` or `False`, with white space
/// and parentheses around it as `reads` allows.
pub fn read_bool(text: &str) -> Result<bool, ReadError> {
    read_with(
        text,
        false,
        |chars, pos| match lex_identifier(chars, pos) {
            Some((word, end)) if word == "True" => Some((true, end)),
            Some((word, end)) if word == "False" => Some((false, end)),
            _ => None,
        },
        |v| v,
    )
}

/// An identifier lexeme at `pos` (a letter, then letters, digits, `_` and
/// `'`), with the position after it.
fn lex_identifier(chars: &[char], pos: usize) -> Option<(String, usize)> {
    let first = chars.get(pos)?;
    if !first.is_alphabetic() {
        return None;
    }
    let mut end = pos + 1;
    while chars
        .get(end)
        .is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == '\'')
    {
        end += 1;
    }
    Some((chars[pos..end].iter().collect(), end))
}

/// A number lexeme at `pos` read as a `Double`.
fn lex_double(chars: &[char], pos: usize) -> Option<(f64, usize)> {
    if let Some((word, end)) = lex_identifier(chars, pos) {
        return match word.as_str() {
            "Infinity" => Some((f64::INFINITY, end)),
            "NaN" => Some((f64::NAN, end)),
            _ => None,
        };
    }
    if let Some((value, end)) = lex_based(chars, pos) {
        return Some((value as f64, end));
    }
    let is_digit = |i: usize| chars.get(i).is_some_and(char::is_ascii_digit);
    let mut end = pos;
    while is_digit(end) {
        end += 1;
    }
    if end == pos {
        return None;
    }
    if chars.get(end) == Some(&'.') && is_digit(end + 1) {
        end += 1;
        while is_digit(end) {
            end += 1;
        }
    }
    if matches!(chars.get(end), Some('e' | 'E')) {
        let digits_at = if matches!(chars.get(end + 1), Some('+' | '-')) {
            end + 2
        } else {
            end + 1
        };
        if is_digit(digits_at) {
            end = digits_at;
            while is_digit(end) {
                end += 1;
            }
        }
    }
    let token: String = chars[pos..end].iter().collect();
    token.parse::<f64>().ok().map(|v| (v, end))
}

/// A `0x`/`0X` or `0o`/`0O` number at `pos` with at least one digit of its
/// base, as an exact integer (saturating past 128 bits).
fn lex_based(chars: &[char], pos: usize) -> Option<(u128, usize)> {
    if chars.get(pos) != Some(&'0') {
        return None;
    }
    let base = match chars.get(pos + 1) {
        Some('x' | 'X') => 16,
        Some('o' | 'O') => 8,
        _ => return None,
    };
    let mut end = pos + 2;
    let mut value: u128 = 0;
    while let Some(d) = chars.get(end).and_then(|c| c.to_digit(base)) {
        value = value
            .saturating_mul(u128::from(base))
            .saturating_add(u128::from(d));
        end += 1;
    }
    (end > pos + 2).then_some((value, end))
}

/// Ganeti's `tryRead` at type `Int`, i.e. GHC's `reads`: optional white space
/// and balanced parentheses around an optional `-` sign and a number, where a
/// number is decimal digits, or `0x`/`0X` hex digits, or `0o`/`0O` octal
/// digits. A decimal number with a fraction or an exponent is a number token
/// that is not an integer, so it does not parse at all. Values wrap around
/// modulo 2^64, as `fromInteger` does for `Int`.
pub fn read_int(text: &str) -> Result<i64, ReadError> {
    read_with(text, true, lex_integer, i64::wrapping_neg)
}

/// [`read_int`] without the wrap-around: `Ok(None)` when the number is
/// outside `Int`'s range (-2^63 to 2^63-1), where GHC's `Int` would wrap
/// it. The options that take integers refuse such numbers.
pub fn read_int_in_range(text: &str) -> Result<Option<i64>, ReadError> {
    let exact = |chars: &[char], pos: usize| {
        let (_, end) = lex_integer(chars, pos)?;
        let token = chars.get(pos..end).unwrap_or(&[]);
        let (base, digits) = match token {
            ['0', 'x' | 'X', rest @ ..] if !rest.is_empty() => (16, rest),
            ['0', 'o' | 'O', rest @ ..] if !rest.is_empty() => (8, rest),
            _ => (10, token),
        };
        let value = digits.iter().try_fold(0i128, |v, c| {
            v.checked_mul(i128::from(base))?
                .checked_add(i128::from(c.to_digit(base)?))
        });
        Some((value, end))
    };
    read_with(text, true, exact, |v: Option<i128>| v.map(|v| -v))
        .map(|v| v.and_then(|v| i64::try_from(v).ok()))
}

/// Lexes a number token at `pos` (GHC's `Text.Read.Lex.lexNumber`) and
/// converts it to an `Int`; returns the value and the position after the
/// token, or `None` when there is no integer token there.
fn lex_integer(chars: &[char], pos: usize) -> Option<(i64, usize)> {
    // `0x1F` and `0o17`, when at least one digit of the base follows.
    if chars.get(pos) == Some(&'0') {
        let base = match chars.get(pos + 1) {
            Some('x' | 'X') => Some(16),
            Some('o' | 'O') => Some(8),
            _ => None,
        };
        if let Some(base) = base {
            let (value, end) = digits(chars, pos + 2, base);
            if end > pos + 2 {
                return Some((value, end));
            }
        }
    }
    let (value, end) = digits(chars, pos, 10);
    if end == pos {
        return None;
    }
    let is_digit = |i: usize| chars.get(i).is_some_and(char::is_ascii_digit);
    // A fraction (`.` and a digit) or an exponent (`e`, an optional sign, and a
    // digit) belongs to the token, which then is not an integer.
    if chars.get(end) == Some(&'.') && is_digit(end + 1) {
        return None;
    }
    if matches!(chars.get(end), Some('e' | 'E'))
        && (is_digit(end + 1)
            || (matches!(chars.get(end + 1), Some('+' | '-')) && is_digit(end + 2)))
    {
        return None;
    }
    Some((value, end))
}

/// Reads the digits of `base` starting at `pos`, wrapping around modulo 2^64;
/// returns the value and the position after the last digit.
fn digits(chars: &[char], mut pos: usize, base: u32) -> (i64, usize) {
    let mut value: i64 = 0;
    while let Some(digit) = chars.get(pos).and_then(|c| c.to_digit(base)) {
        value = value
            .wrapping_mul(i64::from(base))
            .wrapping_add(i64::from(digit));
        pos += 1;
    }
    (value, pos)
}

/// Skips GHC's `isSpace` characters from `pos`.
fn skip_spaces(chars: &[char], mut pos: usize) -> usize {
    while chars.get(pos).copied().is_some_and(is_haskell_space) {
        pos += 1;
    }
    pos
}

/// GHC's `Data.Char.isSpace`: the Latin-1 white space characters, and the
/// Unicode space separators (general category Zs).
fn is_haskell_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
    )
}

/// A size in MiB (`parseUnit`): an integer, optional spaces, an optional
/// unit; the result is truncated toward zero.
pub fn parse_unit(text: &str) -> Result<i64, String> {
    let (v, suffix) = reads_int(text).ok_or_else(|| format!("Can't parse string '{text}'"))?;
    let (num, den) = unit_scale(suffix.trim_start_matches(' '))?;
    // Exact rational arithmetic, truncated toward zero, then wrapped to
    // an `Int` as `fromInteger` does.
    Ok((i128::from(v) * num / den) as i64)
}

/// [`parse_unit`] without the wrap-around (hailstone's own options): a
/// number, or a size in MiB, outside `Int`'s range is `Ok(None)` where
/// `parseUnit` would wrap it.
pub fn parse_unit_in_range(text: &str) -> Result<Option<i64>, String> {
    let (_, suffix) = reads_int(text).ok_or_else(|| format!("Can't parse string '{text}'"))?;
    let (num, den) = unit_scale(suffix.trim_start_matches(' '))?;
    let head = &text[..text.len() - suffix.len()];
    let Ok(Some(v)) = read_int_in_range(head) else {
        return Ok(None);
    };
    Ok(i64::try_from(i128::from(v) * num / den).ok())
}

/// The (numerator, denominator) of a unit's scale to MiB
/// (`parseUnit`'s units: none and m, g, t binary, M, G, T decimal, or
/// MiB, GiB, TiB, MB, GB, TB in any case).
fn unit_scale(unit: &str) -> Result<(i128, i128), String> {
    let upper = unit.to_uppercase();
    Ok(if unit.is_empty() || unit == "m" || upper == "MIB" {
        (1, 1)
    } else if unit == "g" || upper == "GIB" {
        (1024, 1)
    } else if unit == "t" || upper == "TIB" {
        (1024 * 1024, 1)
    } else if unit == "M" || upper == "MB" {
        (1_000_000, 1 << 20)
    } else if unit == "G" || upper == "GB" {
        (1_000_000_000, 1 << 20)
    } else if unit == "T" || upper == "TB" {
        (1_000_000_000_000, 1 << 20)
    } else {
        return Err(format!("Unknown unit '{unit}'"));
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// parseUnit wraps what does not fit an `Int`; the checked reading
    /// refuses it and agrees everywhere else.
    #[test]
    fn unit_sizes_wrap_or_are_refused() {
        assert_eq!(parse_unit("18446744073709551617"), Ok(1));
        assert_eq!(parse_unit_in_range("18446744073709551617"), Ok(None));
        assert_eq!(parse_unit_in_range("99999999999999999999T"), Ok(None));
        assert_eq!(parse_unit_in_range("8796093022208t"), Ok(None));
        assert_eq!(
            parse_unit_in_range("8796093022207t"),
            Ok(Some(i64::MAX - (1 << 20) + 1))
        );
        for text in ["0", "1", "-3g", "2t", "500 G", "( 7 )", "0x10m", "1M"] {
            assert_eq!(
                parse_unit_in_range(text),
                parse_unit(text).map(Some),
                "{text}"
            );
        }
        assert!(parse_unit_in_range("1.5T").is_err());
        assert!(parse_unit_in_range("10X").is_err());
        assert!(parse_unit_in_range("").is_err());
    }

    #[test]
    fn int_in_range_refuses_what_would_wrap() {
        for (text, want) in [
            ("9223372036854775807", Some(i64::MAX)),
            ("-9223372036854775808", Some(i64::MIN)),
            ("( -0x10 )", Some(-16)),
            ("0o17", Some(15)),
            ("9223372036854775808", None),
            ("-9223372036854775809", None),
            ("0x8000000000000000", None),
            ("99999999999999999999999", None),
            ("999999999999999999999999999999999999999999999", None),
        ] {
            assert_eq!(read_int_in_range(text), Ok(want), "{text}");
        }
        assert_eq!(read_int_in_range("1.5"), Err(ReadError::NoParse));
        assert_eq!(read_int_in_range("5x"), read_int("5x").map(Some));
    }

    #[test]
    fn haskell_reads_int() {
        let ok_cases: &[(&str, i64)] = &[
            ("5", 5),
            (" 5", 5),
            ("\t\n5", 5),
            ("\u{a0}5", 5),
            ("\u{2000}5", 5),
            ("(5)", 5),
            ("((5))", 5),
            ("( -5 )", -5),
            ("-5", -5),
            ("- 5", -5),
            ("0x10", 16),
            ("0X1f", 31),
            ("0o17", 15),
            ("-0x10", -16),
            ("00012", 12),
            ("0", 0),
            ("9223372036854775807", i64::MAX),
            ("9223372036854775808", i64::MIN),
            ("-9223372036854775808", i64::MIN),
            ("18446744073709551616", 0),
            (
                "99999999999999999999",
                99999999999999999999u128 as u64 as i64,
            ),
        ];
        for (text, value) in ok_cases {
            assert_eq!(read_int(text), Ok(*value), "{text:?}");
        }
        let no_parse = [
            "",
            " ",
            "abc",
            "+5",
            "1e3",
            "1E3",
            "1e+3",
            "1e-3",
            "1.5",
            "1.5e3",
            "-(5)",
            "(5",
            "((5)",
            "(5x)",
            "--5",
            "- -5",
            "٣",
            "\u{2028}5",
            "\u{85}5",
            "-",
            "()",
        ];
        for text in no_parse {
            assert_eq!(read_int(text), Err(ReadError::NoParse), "{text:?}");
        }
        let leftover: &[(&str, &str)] = &[
            ("5MB", "MB"),
            ("5 ", " "),
            ("(5) ", " "),
            ("(5))", ")"),
            ("0b101", "b101"),
            ("1.", "."),
            ("5e", "e"),
            ("5e+", "e+"),
            ("5.e3", ".e3"),
            ("0x", "x"),
            ("0xg", "xg"),
            ("0o8", "o8"),
            ("00x5", "x5"),
            ("1_000", "_000"),
            ("0x1.5", ".5"),
            ("0x1.5e", ".5e"),
            ("5\u{2028}", "\u{2028}"),
        ];
        for (text, rest) in leftover {
            assert_eq!(
                read_int(text),
                Err(ReadError::Leftover(rest.to_string())),
                "{text:?}"
            );
        }
    }

    #[test]
    fn sep_split_matches_ganeti() {
        assert_eq!(sep_split(""), Vec::<String>::new());
        assert_eq!(sep_split(","), vec!["", ""]);
        assert_eq!(sep_split("a"), vec!["a"]);
        assert_eq!(sep_split("a,,b,"), vec!["a", "", "b", ""]);
    }

    #[test]
    fn haskell_reads_double() {
        let ok_cases: &[(&str, f64)] = &[
            ("12", 12.0),
            ("00012", 12.0),
            (" 5", 5.0),
            ("-5", -5.0),
            ("- 5", -5.0),
            ("(-5)", -5.0),
            ("  ( 7 )", 7.0),
            ("0x1f", 31.0),
            ("0O17", 15.0),
            ("1.5", 1.5),
            ("1024.5", 1024.5),
            ("1e3", 1000.0),
            ("1E3", 1000.0),
            ("1e-2", 0.01),
            ("1.0e-2", 0.01),
            ("1e+3", 1000.0),
            ("(1e3)", 1000.0),
            ("1e400", f64::INFINITY),
            ("Infinity", f64::INFINITY),
            ("-Infinity", f64::NEG_INFINITY),
            ("99999999999999999999", 1e20),
            ("0.1", 0.1),
        ];
        for (text, value) in ok_cases {
            assert_eq!(read_double(text), Ok(*value), "{text:?}");
        }
        assert!(read_double("NaN").is_ok_and(f64::is_nan));
        for text in ["", ".5", "-(5)", "+1", "--5", "Infinityx", "nan", "abc"] {
            assert_eq!(read_double(text), Err(ReadError::NoParse), "{text:?}");
        }
        let leftover: &[(&str, &str)] = &[
            ("5 ", " "),
            ("1.", "."),
            ("1e", "e"),
            ("32x", "x"),
            ("1_000", "_000"),
            ("0b1", "b1"),
            ("0x1.5", ".5"),
        ];
        for (text, rest) in leftover {
            assert_eq!(
                read_double(text),
                Err(ReadError::Leftover(rest.to_string())),
                "{text:?}"
            );
        }
    }

    #[test]
    fn haskell_reads_bool() {
        assert_eq!(read_bool("True"), Ok(true));
        assert_eq!(read_bool(" (False) "), Err(ReadError::Leftover(" ".into())));
        assert_eq!(read_bool("(True)"), Ok(true));
        assert_eq!(read_bool("true"), Err(ReadError::NoParse));
        assert_eq!(read_bool("Truex"), Err(ReadError::NoParse));
        assert_eq!(read_bool("-True"), Err(ReadError::NoParse));
    }

    #[test]
    fn try_read_messages() {
        assert_eq!(
            read_int("x").unwrap_err().message("node1", "x"),
            "node1: cannot parse string 'x'"
        );
        assert_eq!(
            read_int("32x").unwrap_err().message("node1", "32x"),
            "node1: leftover characters when parsing '32x': 'x'"
        );
    }
}
