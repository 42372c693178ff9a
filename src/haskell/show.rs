//! Haskell-compatible formatting of numbers and strings.
//!
//! hail's output contains values printed by GHC, whose algorithms differ from
//! Rust's (and C's) in ways that change the text. This module owns exact
//! reproductions of:
//!
//! * `Text.Printf`'s `%.Nf` for `Double` ([`printf_fixed`]), which rounds the
//!   *shortest* decimal digits of the value half-to-even, not its exact binary
//!   value;
//! * `show :: Double -> String` ([`show_double`]);
//! * `show :: String -> String` ([`show_string`]) and the `show` of lists of
//!   strings and of integers ([`show_string_list`], [`show_int_list`]).
//!
//! The shortest digits are computed with GHC's own `floatToDigits` (Burger and
//! Dybvig's free-format algorithm with *exclusive* bounds), not with Rust's
//! formatter: Rust accepts a boundary value as a candidate when the mantissa is
//! even, so for example the double nearest 1e23 is `1e23` in Rust but
//! `9.999999999999999e22` in Haskell.

use std::cmp::Ordering;

/// Formats `x` as Haskell's `printf "%.<decimals>f"` does for a `Double`.
///
/// The shortest round-trip digits of `x` are rounded to `decimals` places,
/// half to even on those digits (`0.003515625` gives `0.00351562` with 8
/// decimals, where C gives `0.00351563`). Fixed notation is always used, with
/// no decimal point when `decimals` is 0. Negative values, including `-0.0`,
/// get a leading `-`; NaN is `NaN` and the infinities are `Infinity` and
/// `-Infinity`.
pub fn printf_fixed(x: f64, decimals: usize) -> String {
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-Infinity" } else { "Infinity" }.to_string();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let (digits, exponent) = float_to_digits(x.abs());
    format!("{sign}{}", fixed_with_decimals(&digits, exponent, decimals))
}

/// Formats `x` as Haskell's `printf "%.<decimals>g"` does for a `Double`
/// (`showGFloat`): fixed notation with `decimals` places when `x` is 0 or
/// `0.1 <= |x| < 10^7`, else GHC's exponent form (`showEFloat`): the
/// shortest digits rounded to `decimals + 1` significant digits,
/// `d.ddddde<exp>` with a plain decimal exponent (`1.000000e-9`).
pub fn printf_general(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return printf_fixed(x, decimals);
    }
    let a = x.abs();
    if a == 0.0 || (0.1..1e7).contains(&a) {
        return printf_fixed(x, decimals);
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let (digits, exponent) = float_to_digits(a);
    let dec = decimals.max(1);
    let (carry, rounded) = round_to(dec + 1, &digits);
    let kept = if carry > 0 {
        &rounded[..rounded.len() - 1]
    } else {
        &rounded[..]
    };
    let text: String = kept.iter().map(|d| digit_char(*d)).collect();
    let (first, rest) = text.split_at(1);
    format!("{sign}{first}.{rest}e{}", exponent - 1 + carry as i32)
}

/// Formats `x` as Haskell's `printf "%f"` (no precision) does for a
/// `Double`, which is `showFFloat Nothing`: the shortest round-trip digits
/// in fixed notation, never an exponent, with at least one digit on each
/// side of the point (`1.0`, `0.0001`, `10000000.0`). Negative values,
/// including `-0.0`, get a `-`; the special values are `NaN`, `Infinity`
/// and `-Infinity`.
pub fn show_ffloat(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-Infinity" } else { "Infinity" }.to_string();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let (digits, exponent) = float_to_digits(x.abs());
    let text: String = digits.iter().map(|d| digit_char(*d)).collect();
    let body = if exponent <= 0 {
        let zeros = usize::try_from(exponent.unsigned_abs()).unwrap_or(0);
        format!("0.{}{text}", "0".repeat(zeros))
    } else {
        let split = usize::try_from(exponent).unwrap_or(0);
        if split <= text.len() {
            format!("{}.{}", or_zero(&text[..split]), or_zero(&text[split..]))
        } else {
            format!("{text}{}.0", "0".repeat(split - text.len()))
        }
    };
    format!("{sign}{body}")
}

/// Formats `x` as Haskell's `show :: Double -> String` does at precedence 0
/// (as in a record field): the shortest round-trip digits, in fixed notation
/// when `0.1 <= |x| < 10^7` (`4.0`, `0.5`, `1234567.0`) and in scientific
/// notation otherwise (`1.0e-2`, `1.0e7`, `5.0e-324`), always with at least
/// one digit after the point. Zero is `0.0`, negative values (including
/// `-0.0`) get a `-` without parentheses, and the special values are `NaN`,
/// `Infinity` and `-Infinity`.
pub fn show_double(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-Infinity" } else { "Infinity" }.to_string();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let (digits, exponent) = float_to_digits(x.abs());
    let text: String = digits.iter().map(|d| digit_char(*d)).collect();
    let body = if (0..=7).contains(&exponent) {
        // `FFFixed` without a precision: the integer part (at least `0`), a
        // point, and the fraction (at least `0`).
        let split = usize::try_from(exponent).unwrap_or(0);
        let (int_part, frac_part) = if split <= text.len() {
            (text[..split].to_string(), text[split..].to_string())
        } else {
            (
                format!("{text}{}", "0".repeat(split - text.len())),
                String::new(),
            )
        };
        format!("{}.{}", or_zero(&int_part), or_zero(&frac_part))
    } else {
        // `FFExponent` without a precision: `d.ddde<exponent - 1>`.
        let (first, rest) = text.split_at(1.min(text.len()));
        let rest = if rest.is_empty() { "0" } else { rest };
        format!("{first}.{rest}e{}", exponent - 1)
    };
    format!("{sign}{body}")
}

/// Formats `s` as Haskell's `show :: String -> String` does: in double quotes,
/// with `showLitString`'s escapes. `"` and `\` are escaped with a backslash;
/// printable ASCII is kept; `\a \b \f \n \r \t \v` use their short forms;
/// other control characters use their ASCII names (`\NUL`, `\SOH`, ...,
/// `\US`), and DEL is `\DEL`; characters above DEL become `\` and their
/// decimal code point. `\&` separates a decimal escape from a following ASCII
/// digit (`"é1"` gives `"\233\&1"`) and `\SO` from a following `H`.
pub fn show_string(s: &str) -> String {
    const ASCII_NAMES: [&str; 32] = [
        "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "a", "b", "t", "n", "v", "f", "r", "SO",
        "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC",
        "FS", "GS", "RS", "US",
    ];
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7F}' => out.push_str("\\DEL"),
            ' '..='~' => out.push(c),
            '\u{0E}' => {
                out.push_str("\\SO");
                if next == Some('H') {
                    out.push_str("\\&");
                }
            }
            c if u32::from(c) < 32 => {
                out.push('\\');
                out.push_str(ASCII_NAMES.get(c as usize).copied().unwrap_or(""));
            }
            c => {
                out.push_str(&format!("\\{}", u32::from(c)));
                if next.is_some_and(|n| n.is_ascii_digit()) {
                    out.push_str("\\&");
                }
            }
        }
    }
    out.push('"');
    out
}

/// Formats a list of strings as Haskell's `show :: [String] -> String` does:
/// `["a","b"]`, each element as by [`show_string`], and `[]` when empty.
pub fn show_string_list(items: &[&str]) -> String {
    let shown: Vec<String> = items.iter().map(|s| show_string(s)).collect();
    format!("[{}]", shown.join(","))
}

/// Formats a list of integers as Haskell's `show :: [Int] -> String` does:
/// `[1,2,-3]` (negative elements are not parenthesised).
pub fn show_int_list(items: &[i64]) -> String {
    let shown: Vec<String> = items.iter().map(|i| i.to_string()).collect();
    format!("[{}]", shown.join(","))
}

/// Returns `text`, or `0` when it is empty (GHC's `mk0`).
fn or_zero(text: &str) -> &str {
    if text.is_empty() {
        "0"
    } else {
        text
    }
}

/// The character of a decimal digit (GHC's `intToDigit`).
fn digit_char(digit: u8) -> char {
    char::from_digit(u32::from(digit), 10).unwrap_or('?')
}

/// GHC's `showFFloat (Just decimals)` (`FFFixed`) on the digits `0.d1d2...`
/// times `10^exponent` of a non-negative number.
fn fixed_with_decimals(digits: &[u8], exponent: i32, decimals: usize) -> String {
    if exponent >= 0 {
        let int_len = usize::try_from(exponent).unwrap_or(0);
        let (carry, rounded) = round_to(decimals.saturating_add(int_len), digits);
        let split = int_len + carry;
        let text: String = rounded.iter().map(|d| digit_char(*d)).collect();
        let (int_part, frac_part) = text.split_at(split.min(text.len()));
        if frac_part.is_empty() {
            or_zero(int_part).to_string()
        } else {
            format!("{}.{frac_part}", or_zero(int_part))
        }
    } else {
        let leading = usize::try_from(exponent.unsigned_abs()).unwrap_or(0);
        let mut padded = vec![0u8; leading];
        padded.extend_from_slice(digits);
        let (carry, rounded) = round_to(decimals, &padded);
        let mut all = Vec::with_capacity(rounded.len() + 1);
        if carry == 0 {
            all.push(0);
        }
        all.extend_from_slice(&rounded);
        let text: String = all.iter().map(|d| digit_char(*d)).collect();
        let (first, rest) = text.split_at(1.min(text.len()));
        if rest.is_empty() {
            first.to_string()
        } else {
            format!("{first}.{rest}")
        }
    }
}

/// GHC's `roundTo 10 count digits`: rounds the digit list to `count` digits,
/// half to even when the dropped digits are exactly a 5 followed by zeros,
/// otherwise half up; pads with zeros when there are fewer digits. Returns the
/// carry out of the first digit (0 or 1) and the digits, which then have one
/// more leading `1`.
fn round_to(count: usize, digits: &[u8]) -> (usize, Vec<u8>) {
    if digits.len() <= count {
        let mut out = digits.to_vec();
        out.resize(count, 0);
        return (0, out);
    }
    let (kept, dropped) = digits.split_at(count);
    let first_dropped = dropped.first().copied().unwrap_or(0);
    let rest_zero = dropped.iter().skip(1).all(|d| *d == 0);
    // GHC passes "the previous digit is even" down the list, starting with
    // True before the first digit.
    let previous_even = kept.last().is_none_or(|d| d % 2 == 0);
    let round_up = first_dropped >= 5 && !(first_dropped == 5 && previous_even && rest_zero);
    let mut out = kept.to_vec();
    let mut carry = u8::from(round_up);
    for digit in out.iter_mut().rev() {
        if carry == 0 {
            break;
        }
        let sum = *digit + carry;
        if sum == 10 {
            *digit = 0;
            carry = 1;
        } else {
            *digit = sum;
            carry = 0;
        }
    }
    if carry == 1 {
        out.insert(0, 1);
        (1, out)
    } else {
        (0, out)
    }
}

/// GHC's `floatToDigits 10` for a non-negative finite double: the shortest
/// digits `d1..dn` (no trailing zeros) and the exponent `e` such that the value
/// is `0.d1..dn * 10^e`, and that read back give exactly `x`. Zero is `([0], 0)`.
fn float_to_digits(x: f64) -> (Vec<u8>, i32) {
    if x == 0.0 || !x.is_finite() {
        return (vec![0], 0);
    }
    // x = f * 2^e, with f < 2^53, and e >= -1074 (subnormals have e = -1074).
    const P: i32 = 53;
    const MIN_EXP: i32 = -1074;
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7FF) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    let (f, e) = if biased == 0 {
        (fraction, MIN_EXP)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    };
    let hidden = 1u64 << (P - 1);

    // r / s is x (times 2), mUp / s and mDn / s are the distances to the
    // midpoints with the neighbouring doubles (times 2).
    let (r, s, m_up, m_dn) = if e >= 0 {
        let be = Big::pow2(e.unsigned_abs());
        if f == hidden {
            (
                Big::from_u64(f).mul_big(&be).shl(2),
                Big::from_u64(4),
                be.shl(1),
                be,
            )
        } else {
            (
                Big::from_u64(f).mul_big(&be).shl(1),
                Big::from_u64(2),
                be.clone(),
                be,
            )
        }
    } else if e > MIN_EXP && f == hidden {
        (
            Big::from_u64(f).shl(2),
            Big::pow2((1 - e).unsigned_abs()).shl(1),
            Big::from_u64(2),
            Big::from_u64(1),
        )
    } else {
        (
            Big::from_u64(f).shl(1),
            Big::pow2(e.unsigned_abs()).shl(1),
            Big::from_u64(1),
            Big::from_u64(1),
        )
    };

    // GHC's first estimate of the exponent, from floor(log2 x), then its
    // fixup loop: k is the first n >= k0 with (r + mUp) / s <= 10^n.
    let log2 = if biased == 0 {
        MIN_EXP + 63 - fraction.leading_zeros() as i32
    } else {
        biased - 1023
    };
    let k1 = (log2 * 8651) / 28738;
    let mut k = if log2 >= 0 { k1 + 1 } else { k1 };
    let high = r.add(&m_up);
    loop {
        let fits = if k >= 0 {
            high.cmp_big(&s.mul_pow10(k.unsigned_abs())) != Ordering::Greater
        } else {
            high.mul_pow10(k.unsigned_abs()).cmp_big(&s) != Ordering::Greater
        };
        if fits {
            break;
        }
        k += 1;
    }

    let (mut rn, sn, mut m_up_n, mut m_dn_n) = if k >= 0 {
        (r, s.mul_pow10(k.unsigned_abs()), m_up, m_dn)
    } else {
        let scale = k.unsigned_abs();
        (
            r.mul_pow10(scale),
            s,
            m_up.mul_pow10(scale),
            m_dn.mul_pow10(scale),
        )
    };

    // Digit generation with exclusive bounds, as GHC's `gen`.
    let mut digits = Vec::with_capacity(17);
    loop {
        rn = rn.mul_small(10);
        m_up_n = m_up_n.mul_small(10);
        m_dn_n = m_dn_n.mul_small(10);
        let mut digit = 0u8;
        while rn.cmp_big(&sn) != Ordering::Less && digit < 10 {
            rn = rn.sub(&sn);
            digit += 1;
        }
        let low = rn.cmp_big(&m_dn_n) == Ordering::Less;
        let high = rn.add(&m_up_n).cmp_big(&sn) == Ordering::Greater;
        match (low, high) {
            (true, false) => {
                digits.push(digit);
                break;
            }
            (false, true) => {
                digits.push(digit + 1);
                break;
            }
            (true, true) => {
                let twice = rn.shl(1);
                digits.push(if twice.cmp_big(&sn) == Ordering::Less {
                    digit
                } else {
                    digit + 1
                });
                break;
            }
            (false, false) => digits.push(digit),
        }
        // A double never needs more than 17 digits; this only guards the loop.
        if digits.len() > 800 {
            break;
        }
    }
    (digits, k)
}

/// A minimal non-negative big integer for `float_to_digits`: little-endian
/// 32-bit limbs without high zero limbs.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    fn from_u64(v: u64) -> Big {
        let mut big = Big(vec![v as u32, (v >> 32) as u32]);
        big.trim();
        big
    }

    fn pow2(exponent: u32) -> Big {
        Big::from_u64(1).shl(exponent)
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn shl(&self, bits: u32) -> Big {
        let limbs = (bits / 32) as usize;
        let shift = bits % 32;
        let mut out = vec![0u32; limbs];
        let mut carry = 0u32;
        for &limb in &self.0 {
            if shift == 0 {
                out.push(limb);
            } else {
                out.push((limb << shift) | carry);
                carry = limb >> (32 - shift);
            }
        }
        out.push(carry);
        let mut big = Big(out);
        big.trim();
        big
    }

    fn mul_small(&self, m: u32) -> Big {
        let mut out = Vec::with_capacity(self.0.len() + 1);
        let mut carry = 0u64;
        for &limb in &self.0 {
            let product = u64::from(limb) * u64::from(m) + carry;
            out.push(product as u32);
            carry = product >> 32;
        }
        out.push(carry as u32);
        let mut big = Big(out);
        big.trim();
        big
    }

    fn mul_big(&self, other: &Big) -> Big {
        let mut out = vec![0u32; self.0.len() + other.0.len() + 1];
        for (i, &a) in self.0.iter().enumerate() {
            let mut carry = 0u64;
            for (j, &b) in other.0.iter().enumerate() {
                if let Some(slot) = out.get_mut(i + j) {
                    let t = u64::from(*slot) + u64::from(a) * u64::from(b) + carry;
                    *slot = t as u32;
                    carry = t >> 32;
                }
            }
            let mut index = i + other.0.len();
            while carry != 0 {
                match out.get_mut(index) {
                    Some(slot) => {
                        let t = u64::from(*slot) + carry;
                        *slot = t as u32;
                        carry = t >> 32;
                        index += 1;
                    }
                    None => break,
                }
            }
        }
        let mut big = Big(out);
        big.trim();
        big
    }

    fn mul_pow10(&self, exponent: u32) -> Big {
        let mut out = self.clone();
        let mut left = exponent;
        while left >= 9 {
            out = out.mul_small(1_000_000_000);
            left -= 9;
        }
        out.mul_small(10u32.pow(left))
    }

    fn add(&self, other: &Big) -> Big {
        let len = self.0.len().max(other.0.len());
        let mut out = Vec::with_capacity(len + 1);
        let mut carry = 0u64;
        for i in 0..len {
            let a = u64::from(self.0.get(i).copied().unwrap_or(0));
            let b = u64::from(other.0.get(i).copied().unwrap_or(0));
            let t = a + b + carry;
            out.push(t as u32);
            carry = t >> 32;
        }
        out.push(carry as u32);
        let mut big = Big(out);
        big.trim();
        big
    }

    /// `self - other`, which must not be negative (it saturates at zero).
    fn sub(&self, other: &Big) -> Big {
        if self.cmp_big(other) != Ordering::Greater {
            return Big(Vec::new());
        }
        let mut out = Vec::with_capacity(self.0.len());
        let mut borrow = 0i64;
        for (i, &limb) in self.0.iter().enumerate() {
            let b = i64::from(other.0.get(i).copied().unwrap_or(0));
            let mut t = i64::from(limb) - b - borrow;
            if t < 0 {
                t += 1 << 32;
                borrow = 1;
            } else {
                borrow = 0;
            }
            out.push(t as u32);
        }
        let mut big = Big(out);
        big.trim();
        big
    }

    fn cmp_big(&self, other: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn show_ffloat_matches_printf_f() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1.0"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (1e-4, "0.0001"),
            (1e-10, "0.0000000001"),
            (1e7, "10000000.0"),
            (1e22, "10000000000000000000000.0"),
            (100.0, "100.0"),
            (123456.789, "123456.789"),
            (-2.5, "-2.5"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (f64::INFINITY, "Infinity"),
        ];
        for (x, text) in cases {
            assert_eq!(show_ffloat(*x), *text, "{x}");
        }
    }
    use super::*;

    /// The digits and exponent of GHC's `floatToDigits`, as a string.
    fn digits_of(x: f64) -> String {
        let (digits, e) = float_to_digits(x);
        let text: String = digits.iter().map(|d| digit_char(*d)).collect();
        format!("0.{text}e{e}")
    }

    #[test]
    fn float_to_digits_matches_shortest_digits() {
        assert_eq!(digits_of(0.0), "0.0e0");
        assert_eq!(digits_of(1.0), "0.1e1");
        assert_eq!(digits_of(0.1), "0.1e0");
        assert_eq!(digits_of(123.456), "0.123456e3");
        assert_eq!(digits_of(5e-324), "0.5e-323");
        assert_eq!(digits_of(f64::MAX), "0.17976931348623157e309");
        assert_eq!(digits_of(f64::MIN_POSITIVE), "0.22250738585072014e-307");
        assert_eq!(digits_of(9007199254740992.0), "0.9007199254740992e16");
        // GHC's bounds are exclusive, so a boundary value is never chosen.
        assert_eq!(digits_of(1e23), "0.9999999999999999e23");
        assert_eq!(digits_of(f64::from_bits(3)), "0.15e-322");
    }

    /// Rust's shortest digits agree with GHC's except when Rust picks a
    /// candidate exactly on the rounding boundary (which GHC excludes; GHC's
    /// digits are then longer), or when two candidates of the same length are
    /// equally close (GHC takes the upper one, Rust the even one). Either way
    /// GHC's digits read back as the same double.
    #[test]
    fn float_to_digits_agrees_with_rust_away_from_boundaries() {
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..5_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let x = f64::from_bits(state & 0x7FFF_FFFF_FFFF_FFFF);
            if !x.is_finite() || x == 0.0 {
                continue;
            }
            let rust = format!("{x:e}");
            let (mantissa, exponent) = rust.split_once('e').unwrap_or((&rust, "0"));
            let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
            let exponent: i32 = exponent.parse().unwrap_or(0);
            let (ghc_digits, ghc_exponent) = float_to_digits(x);
            let ghc: String = ghc_digits.iter().map(|d| digit_char(*d)).collect();
            if (ghc.as_str(), ghc_exponent) != (digits.as_str(), exponent + 1) {
                assert!(ghc.len() >= digits.len(), "{x:e}: {ghc}e{ghc_exponent}");
                let back: f64 = format!("0.{ghc}e{ghc_exponent}")
                    .parse()
                    .unwrap_or(f64::NAN);
                assert_eq!(back, x, "{x:e}");
            }
        }
        // Examples of such boundary values (even mantissas, 2^54 <= x < 2^58).
        assert_eq!(digits_of(3.172230058817275e16), "0.31722300588172752e17");
        assert_eq!(digits_of(1.791228469642692e17), "0.17912284696426918e18");
        // An exact tie between two 17-digit candidates: GHC rounds up.
        let tie: f64 = "0.111469268798828125".parse().unwrap_or(0.0);
        assert_eq!(digits_of(tie), "0.11146926879882813e0");
    }

    /// `(text, decimals, divisor, expected)`: hail printed `expected` for
    /// `printf "%.<decimals>f" (x / divisor)`, where `show x` was `text`.
    const GHC_PRINTF: &[(&str, usize, f64, &str)] = &[
        ("6.274540001196468e-159", 0, 1.0, "0"),
        ("5.603832894528224e-13", 0, 1.0, "0"),
        ("3.017386497083285e-8", 0, 1.0, "0"),
        ("2.389681339263916e-2", 0, 1024.0, "0"),
        ("0.25", 0, 1024.0, "0"),
        ("4.4754638671875", 0, 1024.0, "0"),
        ("1.385575532913208e-2", 0, 1.0, "0"),
        ("2.8565323022991463e-2", 0, 1.0, "0"),
        ("11202.5", 0, 1024.0, "11"),
        ("89600.0", 0, 1024.0, "88"),
        ("267.869835", 0, 1.0, "268"),
        ("921.552310055", 0, 1.0, "922"),
        ("1505792.0", 0, 1024.0, "1470"),
        ("1757.0", 0, 1.0, "1757"),
        ("1906176.0", 0, 1024.0, "1862"),
        ("79833.5", 0, 1.0, "79834"),
        ("8.7641229e7", 0, 1024.0, "85587"),
        ("599943.3487889734", 0, 1.0, "599943"),
        ("3.9779269916393123e9", 0, 1.0, "3977926992"),
        ("9.07097096095e16", 0, 1024.0, "88583700790527"),
        ("8.521639070619094e19", 0, 1024.0, "83219131549014590"),
        ("1.3974233582333814e17", 0, 1.0, "139742335823338140"),
        ("2.5544013336547944e20", 0, 1024.0, "249453255239726020"),
        ("3.9102403858698534e17", 0, 1.0, "391024038586985340"),
        ("4.234505874425841e20", 0, 1024.0, "413525964299398500"),
        ("1.011330491103369e18", 0, 1.0, "1011330491103369000"),
        ("3.4856490231038403e18", 0, 1.0, "3485649023103840300"),
        ("2.44140234841512e19", 0, 1.0, "24414023484151200000"),
        ("3.621524812987382e19", 0, 1.0, "36215248129873820000"),
        ("6.044790842907032e19", 0, 1.0, "60447908429070320000"),
        ("8.420224085025282e19", 0, 1.0, "84202240850252820000"),
        ("9.999999999999999e22", 0, 1024.0, "97656249999999990000"),
        ("9.947134773019273e19", 0, 1.0, "99471347730192730000"),
        ("1.0551903079066026e20", 0, 1.0, "105519030790660260000"),
        ("1.1868543735553386e20", 0, 1.0, "118685437355533860000"),
        ("4.497786483911785e20", 0, 1.0, "449778648391178500000"),
        ("5.6438255e20", 0, 1.0, "564382550000000000000"),
        (
            "9.339113790452962e27",
            0,
            1024.0,
            "9120228310989221000000000",
        ),
        ("7.92828961968e25", 0, 1.0, "79282896196800000000000000"),
        ("7.60880908152e26", 0, 1.0, "760880908152000000000000000"),
        ("3.361696369376232e-7", 2, 1.0, "0.00"),
        ("5.0e-3", 2, 1.0, "0.00"),
        ("1.5e-2", 2, 1.0, "0.02"),
        ("2.5e-2", 2, 1.0, "0.02"),
        ("6.5e-2", 2, 1.0, "0.06"),
        ("7.5e-2", 2, 1.0, "0.08"),
        ("8.5e-2", 2, 1.0, "0.08"),
        ("0.575", 2, 1.0, "0.58"),
        ("0.6748427141977136", 2, 1.0, "0.67"),
        ("0.925", 2, 1.0, "0.92"),
        ("1.275", 2, 1.0, "1.28"),
        ("1.425", 2, 1.0, "1.42"),
        ("82.0", 2, 1.0, "82.00"),
        ("49394.04321539351", 2, 1.0, "49394.04"),
        ("1.4275943181338395e13", 2, 1.0, "14275943181338.40"),
        ("1.1391021565324133e15", 2, 1.0, "1139102156532413.30"),
        ("1.9995054474470753e15", 2, 1.0, "1999505447447075.30"),
        ("3.245482973088134e17", 2, 1.0, "324548297308813400.00"),
        ("2.3015762309945598e19", 2, 1.0, "23015762309945598000.00"),
        ("3.640595237321302e19", 2, 1.0, "36405952373213020000.00"),
        ("1.9021529904690558e20", 2, 1.0, "190215299046905580000.00"),
        ("2.0740890440562925e21", 2, 1.0, "2074089044056292500000.00"),
        (
            "2.8061734381372595e22",
            2,
            1.0,
            "28061734381372595000000.00",
        ),
        (
            "3.353293413173653e24",
            2,
            1.0,
            "3353293413173653000000000.00",
        ),
        ("NaN", 2, 1.0, "NaN"),
        ("Infinity", 2, 1.0, "Infinity"),
        ("1.650776429201606e-283", 4, 1.0, "0.0000"),
        ("2.9385703414444574e-20", 4, 1.0, "0.0000"),
        ("1.070402640315148e-9", 4, 1.0, "0.0000"),
        ("1.961755575064125e-5", 4, 1.0, "0.0000"),
        ("4.241358761692896e-5", 4, 1.0, "0.0000"),
        ("6.211180124223603e-4", 4, 1.0, "0.0006"),
        ("2.125e-2", 4, 1.0, "0.0212"),
        ("107.87265205165218", 4, 1.0, "107.8727"),
        ("247.31215588094477", 4, 1.0, "247.3122"),
        ("354.81959517045453", 4, 1.0, "354.8196"),
        ("1711.3344733971928", 4, 1.0, "1711.3345"),
        ("11625.93122319975", 4, 1.0, "11625.9312"),
        ("984147.5754782383", 4, 1.0, "984147.5755"),
        ("1238645.7492476634", 4, 1.0, "1238645.7492"),
        ("1490993.17757693", 4, 1.0, "1490993.1776"),
        ("1.2859297e8", 4, 1.0, "128592970.0000"),
        ("3.941419131411186e8", 4, 1.0, "394141913.1411"),
        ("3.164623986346629e12", 4, 1.0, "3164623986346.6290"),
        ("1.194612481738555e13", 4, 1.0, "11946124817385.5500"),
        ("1.3684081273482303e13", 4, 1.0, "13684081273482.3030"),
        ("2.665633580934486e13", 4, 1.0, "26656335809344.8600"),
        ("3.06204680844636e13", 4, 1.0, "30620468084463.6000"),
        ("1.0979185734169072e14", 4, 1.0, "109791857341690.7200"),
        ("1.8587646455782266e14", 4, 1.0, "185876464557822.6600"),
        ("4.6522719467791156e14", 4, 1.0, "465227194677911.5600"),
        ("9.703590920224813e17", 4, 1.0, "970359092022481300.0000"),
        ("1.397718245520154e18", 4, 1.0, "1397718245520154000.0000"),
        ("1.4329131040938673e18", 4, 1.0, "1432913104093867300.0000"),
        ("4.3759496095422367e18", 4, 1.0, "4375949609542236700.0000"),
        ("1.070374981169862e19", 4, 1.0, "10703749811698620000.0000"),
        ("9.155156121185618e19", 4, 1.0, "91551561211856180000.0000"),
        ("1.066289601482918e20", 4, 1.0, "106628960148291800000.0000"),
        ("3.358730606979294e20", 4, 1.0, "335873060697929400000.0000"),
        (
            "2.9127403681105413e21",
            4,
            1.0,
            "2912740368110541300000.0000",
        ),
        (
            "6.482912768259693e21",
            4,
            1.0,
            "6482912768259693000000.0000",
        ),
        (
            "9.117191336357068e22",
            4,
            1.0,
            "91171913363570680000000.0000",
        ),
        ("NaN", 4, 1.0, "NaN"),
    ];

    /// Texts that hail printed with `show :: Double -> String`.
    const GHC_SHOW: &[&str] = &[
        "NaN",
        "7.695990108087e-15",
        "3.861667567689336e-9",
        "6.994591770928718e-9",
        "9.687608613557126e-9",
        "6.898159650045913e-6",
        "3.5746840872937855e-5",
        "7.750886507644311e-5",
        "9.631171822547913e-3",
        "1.0156631469726563e-2",
        "2.0026944555273766e-2",
        "2.1860122680664063e-2",
        "0.11146926879882813",
        "0.6009936122390194",
        "0.7156594178028767",
        "1.1931838989257813",
        "7.714285714285714",
        "19.470306877570252",
        "45.000000045",
        "99.5",
        "114.0",
        "265.0",
        "482.56031490436715",
        "818.0",
        "826.6857199172168",
        "1115.9895598365492",
        "3481.5125",
        "19124.9375",
        "25893.15",
        "57550.5",
        "89600.0",
        "144134.83227539063",
        "196807.98266601563",
        "261115.29321289063",
        "1027713.3836785469",
        "1510544.0",
        "2758144.0",
        "4258304.0",
        "8.62404711e8",
        "9.034813646099843e14",
        "1.2793864480923723e15",
        "1.8543721565943032e16",
        "1.8805265675781888e16",
        "1.8982269320097008e16",
        "2.0192182597027672e16",
        "2.0240377196266072e16",
        "2.0366788583376592e16",
        "2.1632636275098352e16",
        "2.2249337834744432e16",
        "2.4224784724479488e16",
        "2.7290548029269008e16",
        "2.9793604051556088e16",
        "3.0128403414003208e16",
        "3.1722300588172752e16",
        "3.2187399408573128e16",
        "3.2537872032466552e16",
        "3.9947613407246016e16",
        "4.2775270917260096e16",
        "4.4550915675784176e16",
        "4.8559725032162704e16",
        "4.9371769271556944e16",
        "5.0278044322630576e16",
        "5.1990075194346576e16",
        "5.4775993294014304e16",
        "6.1969192524390976e16",
        "6.5614428139267936e16",
        "8.153313450154022e16",
        "9.07097096095e16",
        "1.7723302825590598e17",
        "1.7912284696426918e17",
        "1.9558614804389158e17",
        "3.520248739593513e17",
        "6.892853611114959e17",
        "3.4856490231038403e18",
        "2.3015762309945598e19",
        "4.7657002973157274e20",
        "6.089585413413073e24",
        "5.2222e25",
        "2.209e26",
        "8.793437e29",
        "9.72314412321058e96",
        "Infinity",
    ];

    /// Values and texts captured from the real hail 3.0.2 (GHC 9.0), with
    /// `-vvv` (which shows the node records) and `-p` (whose table uses
    /// `printf`), for crafted and random node data; most were chosen where
    /// Rust's own formatting differs from GHC's.
    #[test]
    fn matches_texts_captured_from_hail() {
        for (text, decimals, divisor, expected) in GHC_PRINTF {
            let x: f64 = text.parse().unwrap_or(f64::NAN) / divisor;
            assert_eq!(printf_fixed(x, *decimals), *expected, "{text} / {divisor}");
        }
        for text in GHC_SHOW {
            let x: f64 = text.parse().unwrap_or(f64::NAN);
            assert_eq!(show_double(x), *text);
        }
    }

    #[test]
    fn printf_fixed_verified_examples() {
        assert_eq!(printf_fixed(0.003515625, 8), "0.00351562");
        assert_eq!(printf_fixed(0.014453125, 8), "0.01445312");
        assert_eq!(printf_fixed(0.001953125, 8), "0.00195312");
        assert_eq!(printf_fixed(11.758360823, 8), "11.75836082");
        assert_eq!(printf_fixed(0.0, 8), "0.00000000");
        assert_eq!(printf_fixed(-0.0, 8), "-0.00000000");
    }

    #[test]
    fn printf_fixed_rounding() {
        // Half to even on the shortest digits, otherwise half up.
        assert_eq!(printf_fixed(0.125, 2), "0.12");
        assert_eq!(printf_fixed(0.375, 2), "0.38");
        assert_eq!(printf_fixed(0.0025, 3), "0.002");
        assert_eq!(printf_fixed(0.0015, 3), "0.002");
        assert_eq!(printf_fixed(0.00250001, 3), "0.003");
        assert_eq!(printf_fixed(2.5, 0), "2");
        assert_eq!(printf_fixed(3.5, 0), "4");
        assert_eq!(printf_fixed(0.5, 0), "0");
        assert_eq!(printf_fixed(1.5, 0), "2");
        assert_eq!(printf_fixed(0.6, 0), "1");
        assert_eq!(printf_fixed(0.4, 0), "0");
        assert_eq!(printf_fixed(0.05, 1), "0.0");
        assert_eq!(printf_fixed(0.15, 1), "0.2");
        // Carries.
        assert_eq!(printf_fixed(0.999999999, 8), "1.00000000");
        assert_eq!(printf_fixed(9.999999995, 8), "10.00000000");
        assert_eq!(printf_fixed(9.999999985, 8), "9.99999998");
        assert_eq!(printf_fixed(99.5, 0), "100");
        assert_eq!(printf_fixed(0.96, 1), "1.0");
        assert_eq!(printf_fixed(0.096, 1), "0.1");
        // Magnitudes.
        assert_eq!(printf_fixed(1e22, 8), "10000000000000000000000.00000000");
        assert_eq!(printf_fixed(1e23, 2), "99999999999999990000000.00");
        let long: f64 = "123456789.123456789".parse().unwrap_or(0.0);
        assert_eq!(printf_fixed(long, 8), "123456789.12345679");
        assert_eq!(printf_fixed(1e-300, 8), "0.00000000");
        assert_eq!(printf_fixed(5e-9, 8), "0.00000000");
        assert_eq!(printf_fixed(5.000001e-9, 8), "0.00000001");
        assert_eq!(printf_fixed(1.5e-8, 8), "0.00000002");
        assert_eq!(printf_fixed(4096.0, 0), "4096");
        assert_eq!(printf_fixed(0.1, 0), "0");
        assert_eq!(printf_fixed(0.1, 20), "0.10000000000000000000");
        assert_eq!(printf_fixed(f64::MAX, 1).len(), 311);
        // Signs and special values.
        assert_eq!(printf_fixed(-1.25, 1), "-1.2");
        assert_eq!(printf_fixed(-1e-20, 3), "-0.000");
        assert_eq!(printf_fixed(f64::NAN, 8), "NaN");
        assert_eq!(printf_fixed(f64::INFINITY, 8), "Infinity");
        assert_eq!(printf_fixed(f64::NEG_INFINITY, 8), "-Infinity");
    }

    #[test]
    fn show_double_notation() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (4.0, "4.0"),
            (32.0, "32.0"),
            (0.5, "0.5"),
            (0.1, "0.1"),
            (1234567.0, "1234567.0"),
            (9999999.0, "9999999.0"),
            (10000000.0, "1.0e7"),
            (12345678.0, "1.2345678e7"),
            (0.09999999999999999, "9.999999999999999e-2"),
            (0.01, "1.0e-2"),
            (1.2345e-5, "1.2345e-5"),
            (5e-324, "5.0e-324"),
            (1e22, "1.0e22"),
            (1e23, "9.999999999999999e22"),
            (f64::MAX, "1.7976931348623157e308"),
            (123.456, "123.456"),
            (-2.5, "-2.5"),
            (-1e-3, "-1.0e-3"),
            (0.30000000000000004, "0.30000000000000004"),
            (100.0, "100.0"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for (x, expected) in cases {
            assert_eq!(show_double(*x), *expected, "{x:e}");
        }
    }

    #[test]
    fn show_string_escapes() {
        let cases: &[(&str, &str)] = &[
            ("", r#""""#),
            ("abc", r#""abc""#),
            ("a\"b", r#""a\"b""#),
            ("a\\b", r#""a\\b""#),
            ("it's", r#""it's""#),
            ("é", r#""\233""#),
            ("é1", r#""\233\&1""#),
            ("éa", r#""\233a""#),
            ("éé", r#""\233\233""#),
            ("é\u{1F600}9", r#""\233\128512\&9""#),
            ("\u{80}", r#""\128""#),
            ("\u{7F}1", r#""\DEL1""#),
            ("\n\t\r\u{7}\u{8}\u{C}\u{B}", r#""\n\t\r\a\b\f\v""#),
            ("\u{0}1", r#""\NUL1""#),
            ("\u{1}\u{1B}\u{1F}", r#""\SOH\ESC\US""#),
            ("\u{E}H", r#""\SO\&H""#),
            ("\u{E}h", r#""\SOh""#),
            ("\u{E}", r#""\SO""#),
            ("\u{F}H", r#""\SIH""#),
            ("\u{1}2", r#""\SOH2""#),
            (" ~", r#"" ~""#),
        ];
        for (input, expected) in cases {
            assert_eq!(show_string(input), *expected, "{input:?}");
        }
    }

    /// Node names and tags as the real hail showed them with `-vvv`.
    #[test]
    fn show_string_matches_hail() {
        assert_eq!(show_string("9\u{B}\u{C}\u{B}\u{E}H"), r#""9\v\f\v\SO\&H""#);
        assert_eq!(
            show_string_list(&["\u{0}1\u{7F}", "\u{80}\u{1F600}\u{1}", "\u{1F600}0\u{A0}"]),
            r#"["\NUL1\DEL","\128\128512\SOH","\128512\&0\160"]"#
        );
        assert_eq!(
            show_string_list(&["\u{1234}\u{1F}&", "\u{E9}\u{E}\u{A0}", "\u{E9}9\""]),
            r#"["\4660\US&","\233\SO\160","\233\&9\""]"#
        );
        assert_eq!(
            show_string_list(&["\u{1F600}", "\u{E}H1"]),
            r#"["\128512","\SO\&H1"]"#
        );
        assert_eq!(show_string_list(&[""]), r#"[""]"#);
    }

    #[test]
    fn show_lists() {
        assert_eq!(show_string_list(&[]), "[]");
        assert_eq!(show_string_list(&["a", "b"]), r#"["a","b"]"#);
        assert_eq!(show_string_list(&["x\"", "é1"]), r#"["x\"","\233\&1"]"#);
        assert_eq!(show_int_list(&[]), "[]");
        assert_eq!(show_int_list(&[1, 2, -3]), "[1,2,-3]");
        assert_eq!(show_int_list(&[i64::MIN]), "[-9223372036854775808]");
    }

    #[test]
    fn round_to_matches_ghc() {
        assert_eq!(round_to(2, &[1, 2, 5]), (0, vec![1, 2]));
        assert_eq!(round_to(2, &[1, 3, 5]), (0, vec![1, 4]));
        assert_eq!(round_to(2, &[1, 2, 5, 1]), (0, vec![1, 3]));
        assert_eq!(round_to(0, &[5]), (0, vec![]));
        assert_eq!(round_to(0, &[6]), (1, vec![1]));
        assert_eq!(round_to(0, &[5, 1]), (1, vec![1]));
        assert_eq!(round_to(2, &[9, 9, 9]), (1, vec![1, 0, 0]));
        assert_eq!(round_to(4, &[1, 2]), (0, vec![1, 2, 0, 0]));
    }
}
