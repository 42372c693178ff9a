//! Numbers: the exact half-to-even integer and the nearest `f64` of every
//! literal, against an exact reference.

use super::*;

#[test]
fn number_examples() {
    let cases: &[(&str, Option<i64>)] = &[
        ("2.5", Some(2)),
        ("3.5", Some(4)),
        ("-2.5", Some(-2)),
        ("-3.5", Some(-4)),
        ("2.5000000000000000001", Some(3)),
        ("2.4999999999999999999", Some(2)),
        ("1e2", Some(100)),
        ("1E2", Some(100)),
        ("1e+2", Some(100)),
        ("1.5e0", Some(2)),
        ("0.5", Some(0)),
        ("-0.5", Some(0)),
        ("1.5", Some(2)),
        ("0.5000000000000000000000001", Some(1)),
        ("0.4999999", Some(0)),
        ("0.05", Some(0)),
        ("0.96", Some(1)),
        ("31389.5", Some(31390)),
        ("31388.5", Some(31388)),
        ("1e-400", Some(0)),
        ("0e99999999999", Some(0)),
        ("0.000e999999999999999999999", Some(0)),
        ("-0", Some(0)),
        ("0", Some(0)),
        ("-0.0", Some(0)),
        ("9007199254740992", Some(1 << 53)),
        ("-9007199254740992", Some(-(1 << 53))),
        ("9007199254740993", None),
        ("-9007199254740993", None),
        ("9007199254740992.4", Some(1 << 53)),
        ("9007199254740992.5", Some(1 << 53)),
        ("9007199254740992.6", None),
        ("9007199254740991.5", Some(1 << 53)),
        ("90071992547409915e-1", Some(1 << 53)),
        ("9.007199254740992e15", Some(1 << 53)),
        ("10000000000000000", None),
        ("99999999999999999999", None),
        ("1e30", None),
        ("-1e30", None),
        ("1e15", Some(1_000_000_000_000_000)),
        ("1e16", None),
        ("123456789e-3", Some(123457)),
        ("123456500e-3", Some(123456)),
        ("123457500e-3", Some(123458)),
        ("1234567890123456789e-10", Some(123456789)),
        ("12345678901234567890e-10", Some(1234567890)),
        ("0.00000000000000000000000000000000001e35", Some(1)),
        ("0.00000000000000000000000000000000005e35", Some(5)),
        ("0.00000000000000000000000000000000005e34", Some(0)),
        ("0.00000000000000000000000000000000015e34", Some(2)),
        ("1e999999999999999999", None),
        ("1e-999999999999999999", Some(0)),
        ("-1e999999999999999999999999999999", None),
        ("1e-999999999999999999999999999999", Some(0)),
        ("100000000000000000000000000000e-29", Some(1)),
        ("1000000000000000000000000000000e-29", Some(10)),
        ("1.00000000000000000000000000000", Some(1)),
        ("123", Some(123)),
        ("-123", Some(-123)),
        ("999999999999999", Some(999_999_999_999_999)),
        ("-999999999999999", Some(-999_999_999_999_999)),
        ("1000000000000000", Some(1_000_000_000_000_000)),
    ];
    for &(text, int) in cases {
        let n = number(text);
        assert_eq!(n.as_int(), int, "as_int of {text}");
        let expected: f64 = text.parse().unwrap_or(f64::NAN);
        assert_eq!(n.as_f64().to_bits(), expected.to_bits(), "as_f64 of {text}");
    }
}

#[test]
fn number_f64_edges() {
    assert!(number("-0").as_f64().is_sign_negative());
    assert_eq!(number("-0").as_f64(), 0.0);
    assert!(number("-0.0e5").as_f64().is_sign_negative());
    assert!(number("0").as_f64().is_sign_positive());
    assert_eq!(number("1e999999999999999999").as_f64(), f64::INFINITY);
    assert_eq!(number("-1e999999999999999999").as_f64(), f64::NEG_INFINITY);
    assert_eq!(number("1e-999999999999999999").as_f64(), 0.0);
    assert_eq!(number("1.7976931348623157e308").as_f64(), f64::MAX);
    assert_eq!(number("5e-324").as_f64(), 5e-324);
    assert_eq!(number("0.1").as_f64(), 0.1);
    assert_eq!(number("12.5").as_f64(), 12.5);
    // A long mantissa is still correctly rounded.
    let long = format!("0.{}1", "0".repeat(400));
    assert_eq!(number(&long).as_f64(), 1e-401_f64.max(0.0));
    assert_eq!(number(&long).as_int(), Some(0));
    let long = format!("1{}", "0".repeat(400));
    assert_eq!(number(&long).as_f64(), f64::INFINITY);
    assert_eq!(number(&long).as_int(), None);
}

#[test]
fn numbers_match_an_exact_reference() {
    // Compares with the exact quotient of i128s for literals small enough
    // for that, and with `str::parse` for the f64.
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    for _ in 0..3000 {
        let int_len = 1 + rng.below(9);
        let frac_len = rng.below(9);
        let mut text = String::new();
        let negative = rng.below(2) == 0;
        if negative {
            text.push('-');
        }
        let mut digits = String::new();
        for i in 0..int_len {
            let d = if i == 0 && int_len > 1 {
                1 + rng.below(9)
            } else {
                rng.below(10)
            };
            digits.push(char::from(b'0' + d as u8));
        }
        text.push_str(&digits);
        let mut frac = String::new();
        for _ in 0..frac_len {
            // Favour 0, 5 and 9 to hit ties and carries.
            let d = match rng.below(4) {
                0 => 0,
                1 => 5,
                2 => 9,
                _ => rng.below(10),
            };
            frac.push(char::from(b'0' + d as u8));
        }
        if frac_len > 0 {
            text.push('.');
            text.push_str(&frac);
        }
        let exponent = rng.below(13) as i64 - 6;
        if rng.below(2) == 0 {
            text.push_str(&format!("e{exponent}"));
        } else if exponent != 0 {
            text.push_str(&format!("E{exponent:+}"));
        }
        let exponent = if text.contains(['e', 'E']) {
            exponent
        } else {
            0
        };
        let mantissa: i128 = format!("{digits}{frac}").parse().unwrap_or(0);
        let scale = exponent - frac_len as i64;
        let (num, den) = if scale >= 0 {
            (mantissa * 10i128.pow(scale as u32), 1i128)
        } else {
            (mantissa, 10i128.pow((-scale) as u32))
        };
        let (q, r) = (num / den, num % den);
        let rounded = match (2 * r).cmp(&den) {
            std::cmp::Ordering::Less => q,
            std::cmp::Ordering::Greater => q + 1,
            std::cmp::Ordering::Equal => q + (q % 2),
        };
        let rounded = if negative { -rounded } else { rounded };
        let expected = if rounded.abs() <= 1 << 53 {
            Some(rounded as i64)
        } else {
            None
        };
        let n = number(&text);
        assert_eq!(n.as_int(), expected, "as_int of {text}");
        let f: f64 = text.parse().unwrap_or(f64::NAN);
        assert_eq!(n.as_f64().to_bits(), f.to_bits(), "as_f64 of {text}");
    }
}

#[test]
fn from_f64_rounds_half_to_even() {
    assert_eq!(Number::from_f64(2.5).as_int(), Some(2));
    assert_eq!(Number::from_f64(3.5).as_int(), Some(4));
    assert_eq!(Number::from_f64(-2.5).as_int(), Some(-2));
    assert_eq!(Number::from_f64(-0.0).as_int(), Some(0));
    assert_eq!(Number::from_f64(9007199254740992.0).as_int(), Some(1 << 53));
    assert_eq!(Number::from_f64(9007199254740994.0).as_int(), None);
    assert_eq!(Number::from_f64(f64::INFINITY).as_int(), None);
    assert_eq!(Number::from_f64(f64::NAN).as_int(), None);
    assert_eq!(Number::from_f64(12.5).as_f64(), 12.5);
    assert_eq!(number("12.5"), Number::from_f64(12.5));
    assert_eq!(number("1024"), Number::from_f64(1024.0));
}
