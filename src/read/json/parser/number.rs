//! The parser's numbers: a plain integer below 10^15 on the fast path,
//! anything else read by the RFC grammar, each kept both as its nearest
//! `f64` and as its exact value rounded half to even (Haskell's `round`
//! on a `Rational`), computed from the decimal digits.

use super::{push, Parser};
use crate::read::json::bytes::digits_end;
use crate::read::json::document::{Tag, Token};
use crate::read::json::{Number, ParseError, EXPONENT_CAP, INT_LIMIT};

impl Parser<'_> {
    /// Reads a number; the read position is at its first character, a '-' or
    /// a digit.
    #[inline]
    pub(super) fn number(&mut self) -> Result<Token, ParseError> {
        let input = self.input;
        let start = self.pos;
        let negative = input.get(start) == Some(&b'-');
        let int_start = start + usize::from(negative);
        let int_end = digits_end(input, int_start);
        let int_digits = input.get(int_start..int_end).unwrap_or(&[]);
        // The common case: a plain integer below 10^15 < 2^53, which both
        // views represent exactly. Anything else, including every invalid
        // number, takes the general path.
        if (1..=15).contains(&int_digits.len())
            && (int_digits.len() == 1 || int_digits.first() != Some(&b'0'))
            && !matches!(input.get(int_end), Some(b'.' | b'e' | b'E'))
        {
            let magnitude = int_digits
                .iter()
                .fold(0i64, |acc, &b| acc * 10 + i64::from(b - b'0'));
            // `-0` is an integer, but its `f64` view is -0.0: it takes the
            // general path.
            if !(negative && magnitude == 0) {
                self.pos = int_end;
                return Ok(Token::int(if negative { -magnitude } else { magnitude }));
            }
        }
        let n = self.general_number()?;
        // Every number takes a byte of the input: the index fits.
        let index = self.doc.numbers.len() as u32;
        push(&mut self.doc.numbers, n);
        Ok(Token::new(Tag::Float, 0, index))
    }

    /// Reads any number, like [`Parser::number`], with a fraction, an
    /// exponent or many digits, or refuses an invalid one.
    #[inline(never)]
    fn general_number(&mut self) -> Result<Number, ParseError> {
        let input = self.input;
        let start = self.pos;
        let mut p = start;
        let negative = input.get(p) == Some(&b'-');
        if negative {
            p += 1;
        }
        let int_start = p;
        match input.get(p) {
            Some(b'0') => {
                p += 1;
                if matches!(input.get(p), Some(b'0'..=b'9')) {
                    return Err(self.error(p - 1, "invalid number: leading zeros are not allowed"));
                }
            }
            Some(b'1'..=b'9') => p = digits_end(input, p + 1),
            _ => return Err(self.unexpected(p, "a digit after '-'")),
        }
        let int_end = p;
        let mut frac_start = p;
        let mut frac_end = p;
        if input.get(p) == Some(&b'.') {
            frac_start = p + 1;
            frac_end = digits_end(input, frac_start);
            if frac_end == frac_start {
                return Err(self.unexpected(frac_start, "a digit after the decimal point"));
            }
            p = frac_end;
        }
        let mut exponent: i64 = 0;
        if let Some(b'e' | b'E') = input.get(p) {
            p += 1;
            let exponent_negative = match input.get(p) {
                Some(b'-') => {
                    p += 1;
                    true
                }
                Some(b'+') => {
                    p += 1;
                    false
                }
                _ => false,
            };
            let digits_start = p;
            while let Some(&b) = input.get(p) {
                if !b.is_ascii_digit() {
                    break;
                }
                if exponent < EXPONENT_CAP {
                    exponent = exponent * 10 + i64::from(b - b'0');
                }
                p += 1;
            }
            if p == digits_start {
                return Err(self.unexpected(p, "a digit in the exponent"));
            }
            if exponent_negative {
                exponent = -exponent;
            }
        }
        self.pos = p;

        let int_digits = input.get(int_start..int_end).unwrap_or(&[]);
        let literal = input.get(start..p).unwrap_or(&[]);
        let value = std::str::from_utf8(literal)
            .ok()
            .and_then(|s| s.parse::<f64>().ok());
        let Some(value) = value else {
            return Err(self.error(start, "invalid number"));
        };
        let frac_digits = input.get(frac_start..frac_end).unwrap_or(&[]);
        let int = round_half_even(negative, int_digits, frac_digits, exponent);
        Ok(Number { value, int })
    }
}

/// The decimal digits of a number literal: its integer digits followed by its
/// fraction digits, read as one digit string.
struct Digits<'a> {
    int: &'a [u8],
    frac: &'a [u8],
}

impl Digits<'_> {
    fn len(&self) -> usize {
        self.int.len() + self.frac.len()
    }

    /// The digit at index `i`, or 0 past the end.
    fn at(&self, i: usize) -> u64 {
        let b = match i.checked_sub(self.int.len()) {
            None => self.int.get(i),
            Some(j) => self.frac.get(j),
        };
        b.map_or(0, |&b| u64::from(b.wrapping_sub(b'0')) % 10)
    }

    /// Whether any digit from index `from` on is nonzero.
    fn any_nonzero_from(&self, from: usize) -> bool {
        (from..self.len()).any(|i| self.at(i) != 0)
    }
}

/// Rounds the literal `(-)int_digits.frac_digits × 10^exponent` half-to-even
/// to an integer, exactly, from its digits. Returns None when the result is
/// outside [-2^53, 2^53].
fn round_half_even(
    negative: bool,
    int_digits: &[u8],
    frac_digits: &[u8],
    exponent: i64,
) -> Option<i64> {
    let digits = Digits {
        int: int_digits,
        frac: frac_digits,
    };
    let total = digits.len();
    // Skip leading zeros; a literal with no nonzero digit is zero whatever
    // its exponent.
    let Some(first) = (0..total).find(|&i| digits.at(i) != 0) else {
        return Some(0);
    };
    // The value is S × 10^scale, where S is the digit string from `first` on.
    let significant = (total - first) as i64;
    let frac_len = i64::try_from(frac_digits.len()).unwrap_or(i64::MAX);
    let scale = exponent.saturating_sub(frac_len);
    // The number of digits before the decimal point in the value.
    let int_len = significant.saturating_add(scale);
    if int_len > 16 {
        // At least 10^16, which is beyond 2^53.
        return None;
    }
    let mut magnitude: u64 = 0;
    let round_up = if int_len < 0 {
        // Below 0.1: rounds to zero.
        false
    } else {
        // The integer part, padded with zeros when the exponent reaches past
        // the digits; at most 16 digits, so it fits easily.
        let int_len = int_len as usize;
        for k in 0..int_len {
            magnitude = magnitude * 10 + digits.at(first + k);
        }
        // The first fraction digit decides, unless it is 5 and all the rest
        // are zero: then the value is exactly halfway and goes to even.
        let cut = first + int_len;
        if cut < total {
            match digits.at(cut) {
                6..=9 => true,
                5 => digits.any_nonzero_from(cut + 1) || magnitude % 2 == 1,
                _ => false,
            }
        } else {
            false
        }
    };
    if round_up {
        magnitude += 1;
    }
    if magnitude > INT_LIMIT {
        return None;
    }
    let magnitude = magnitude as i64;
    Some(if negative { -magnitude } else { magnitude })
}
