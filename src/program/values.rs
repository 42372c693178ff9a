//! Option values as Ganeti converts them: `tryRead` at type `Int` (GHC's
//! `reads`, with its white space, parentheses, bases and wrap-around) and
//! `sepSplit` for comma-separated lists. Shared by every program's option
//! fold.

/// Ganeti's `sepSplit ','`: an empty string gives no elements; otherwise the
/// pieces between commas, including empty ones.
pub fn sep_split(text: &str) -> Vec<String> {
    if text.is_empty() {
        Vec::new()
    } else {
        text.split(',').map(str::to_string).collect()
    }
}

// ---------------------------------------------------------------------------
// Haskell's `reads :: ReadS Int`.
// ---------------------------------------------------------------------------

/// Why a string is not an `Int` for Ganeti's `tryRead`.
#[derive(Debug, PartialEq)]
pub enum ReadError {
    /// `reads` found no parse.
    NoParse,
    /// `reads` parsed a prefix; this is the rest.
    Leftover(String),
}

/// Ganeti's `tryRead` at type `Int`, i.e. GHC's `reads`: optional white space
/// and balanced parentheses around an optional `-` sign and a number, where a
/// number is decimal digits, or `0x`/`0X` hex digits, or `0o`/`0O` octal
/// digits. A decimal number with a fraction or an exponent is a number token
/// that is not an integer, so it does not parse at all. Values wrap around
/// modulo 2^64, as `fromInteger` does for `Int`.
pub fn read_int(text: &str) -> Result<i64, ReadError> {
    let chars: Vec<char> = text.chars().collect();
    let mut pos = skip_spaces(&chars, 0);
    let mut open = 0usize;
    while chars.get(pos) == Some(&'(') {
        open += 1;
        pos = skip_spaces(&chars, pos + 1);
    }
    let negative = chars.get(pos) == Some(&'-');
    if negative {
        // A `-` must be a token of its own: the only continuations that can
        // lead to a number are white space and digits, neither of which can
        // extend a symbol token.
        pos = skip_spaces(&chars, pos + 1);
    }
    let (magnitude, end) = lex_integer(&chars, pos).ok_or(ReadError::NoParse)?;
    pos = end;
    for _ in 0..open {
        pos = skip_spaces(&chars, pos);
        if chars.get(pos) != Some(&')') {
            return Err(ReadError::NoParse);
        }
        pos += 1;
    }
    let value = if negative {
        magnitude.wrapping_neg()
    } else {
        magnitude
    };
    match chars.get(pos..) {
        Some(rest) if !rest.is_empty() => Err(ReadError::Leftover(rest.iter().collect())),
        _ => Ok(value),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
