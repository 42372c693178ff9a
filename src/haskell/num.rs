//! GHC's numeric conversions where they differ from Rust's `as`:
//! `fromIntegral :: Integer -> Double` ([`integer_to_double`]).

/// `fromIntegral :: Integer -> Double` as hspace's GHC computes it: an
/// `Integer` that fits in an `Int` (a small one) is converted to the
/// nearest `Double`, a larger one has its magnitude truncated to 53
/// significant bits (GMP's `mpn_get_d`, which rounds toward zero). So
/// `-(2^64 - 4)` is `-(2^64 - 2048)`, where Rust's `as f64` gives `-2^64`.
/// hspace's cluster statistics (`CStats`) are `Integer` sums; a tiered spec
/// with a huge resource makes them leave `Int`.
pub fn integer_to_double(x: i128) -> f64 {
    if let Ok(small) = i64::try_from(x) {
        return small as f64;
    }
    let magnitude = x.unsigned_abs();
    let bits = 128 - magnitude.leading_zeros();
    let dropped = bits.saturating_sub(f64::MANTISSA_DIGITS);
    // Exact: at most 53 significant bits are left.
    let kept = ((magnitude >> dropped) << dropped) as f64;
    if x < 0 {
        -kept
    } else {
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::integer_to_double;

    #[test]
    fn small_integers_round_large_ones_truncate() {
        // Within Int: to nearest (2^53 + 1 is a tie, to even).
        assert_eq!(integer_to_double(5), 5.0);
        assert_eq!(integer_to_double(-(1 << 53) - 1), -9007199254740992.0);
        assert_eq!(
            integer_to_double(i128::from(i64::MAX)),
            9223372036854775808.0
        );
        assert_eq!(
            integer_to_double(i128::from(i64::MIN)),
            -9223372036854775808.0
        );
        // Beyond Int: toward zero. hspace 3.0.2 printed
        // -144115188075855860 for -(2^64 - 4) / 128 (Rust's `as`: ...870).
        let x = -((1i128 << 64) - 4);
        assert_eq!(integer_to_double(x), -18446744073709549568.0);
        assert_eq!(x as f64, -18446744073709551616.0);
        assert_eq!(integer_to_double((1i128 << 64) - 1), 18446744073709549568.0);
        assert_eq!(integer_to_double(1i128 << 64), 18446744073709551616.0);
        assert_eq!(integer_to_double(i128::MIN), -(2f64.powi(127)));
    }
}
