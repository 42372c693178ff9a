//! The byte scanning the parser and [`super::Scan`] share: the end of a
//! run of whitespace, of plain string bytes or of digits, sixteen bytes at
//! a time with SSE2 on x86-64 ([`find16`]) and eight at a time elsewhere
//! (SWAR); each finds the first byte that matters exactly.

/// JSON's whitespace: space, line feed, carriage return, tab.
#[inline]
pub(super) fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

/// The end of the run of JSON whitespace from `from` on.
///
/// On x86-64 sixteen bytes are looked at a time with SSE2, where a line
/// feed and an indentation fit in one step; elsewhere, and for the last
/// bytes of the input, eight at a time ([`whitespace_end_swar`]). Both find
/// the first byte that is not whitespace exactly.
#[inline]
pub(super) fn whitespace_end(input: &[u8], from: usize) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8};
        // SAFETY: SSE2 is enabled (the cfg above; every
        // x86-64 target has it); these intrinsics only compute on values.
        let found = find16(input, from, |v| unsafe {
            let is = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
            let blank = _mm_or_si128(
                _mm_or_si128(is(b' '), is(b'\n')),
                _mm_or_si128(is(b'\r'), is(b'\t')),
            );
            // The bytes that are not whitespace.
            !(_mm_movemask_epi8(blank) as u32) & 0xffff
        });
        found.unwrap_or_else(|p| whitespace_end_swar(input, p))
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    whitespace_end_swar(input, from)
}

/// The first byte from `from` on that `marks` marks, sixteen bytes at a
/// time with SSE2: `marks` gets sixteen bytes and returns one bit per byte
/// to stop at, the first byte's lowest. `Err` gives where fewer than
/// sixteen bytes are left, for the caller's other way.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn find16(
    input: &[u8],
    from: usize,
    marks: impl Fn(std::arch::x86_64::__m128i) -> u32,
) -> Result<usize, usize> {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128};
    let mut p = from;
    while let Some(chunk) = input.get(p..p.saturating_add(16)) {
        // SAFETY: SSE2 is enabled (the cfg above; every x86-64 target has
        // it), and `chunk` is 16 readable bytes, which `loadu` reads at any
        // alignment.
        let v = unsafe { _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>()) };
        let mask = marks(v);
        if mask != 0 {
            return Ok(p + mask.trailing_zeros() as usize);
        }
        p += 16;
    }
    Err(p)
}

/// [`whitespace_end`], not inlined (the parser's calls).
#[inline(never)]
pub(super) fn whitespace_end_outlined(input: &[u8], from: usize) -> usize {
    whitespace_end(input, from)
}

/// [`whitespace_end`] eight bytes at a time. Indented JSON is mostly line
/// feeds followed by runs of spaces: each word is looked at for the first
/// byte that is not a space (a byte of the word XORed with eight spaces is
/// zero exactly where the input has a space); a line feed, carriage return
/// or tab there is stepped over and the search goes on.
#[inline(never)]
pub(super) fn whitespace_end_swar(input: &[u8], from: usize) -> usize {
    const SPACES: u64 = 0x2020_2020_2020_2020;
    let mut p = from;
    while let Some(chunk) = input.get(p..p.saturating_add(8)) {
        let Ok(bytes) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let others = u64::from_le_bytes(bytes) ^ SPACES;
        if others == 0 {
            p += 8;
            continue;
        }
        p += (others.trailing_zeros() / 8) as usize;
        match input.get(p) {
            Some(&b) if is_whitespace(b) => p += 1,
            _ => return p,
        }
    }
    while input.get(p).is_some_and(|&b| is_whitespace(b)) {
        p += 1;
    }
    p
}

/// The end of the run of string bytes from `from` on that need no special
/// handling: everything but '"', '\\' and control characters.
///
/// On x86-64 it looks at sixteen bytes at a time with SSE2 (part of every
/// x86-64 processor), where a request's keys and most of its strings fit in
/// one step; the rest of the input, and other processors, go eight bytes at
/// a time ([`plain_run_end_swar`]). Both find the first special byte
/// exactly.
#[inline]
pub(super) fn plain_run_end(input: &[u8], from: usize) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        use std::arch::x86_64::{
            _mm_cmpeq_epi8, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        };
        // SAFETY: SSE2 is enabled (the cfg above; every x86-64 target has
        // it); these intrinsics only compute on values.
        let found = find16(input, from, |v| unsafe {
            let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
            let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
            // Control characters: the unsigned minimum with 0x1f is the
            // byte itself exactly when the byte is at most 0x1f.
            let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
        });
        found.unwrap_or_else(|p| plain_run_end_swar(input, p))
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    plain_run_end_swar(input, from)
}

/// [`plain_run_end`] eight bytes at a time: for each of the three
/// conditions, the classic "has a zero byte" bit trick sets the high bit of
/// the first byte that meets it. Later bytes may be flagged spuriously, but
/// never an earlier one, so the lowest flag marks the first special byte
/// exactly.
#[inline(never)]
pub(super) fn plain_run_end_swar(input: &[u8], from: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const QUOTES: u64 = ONES * b'"' as u64;
    const BACKSLASHES: u64 = ONES * b'\\' as u64;
    const SPACES: u64 = ONES * 0x20;
    let rest = input.get(from..).unwrap_or(&[]);
    let mut chunks = rest.chunks_exact(8);
    let mut offset = from;
    for chunk in &mut chunks {
        let Ok(bytes) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let word = u64::from_le_bytes(bytes);
        let quote = word ^ QUOTES;
        let backslash = word ^ BACKSLASHES;
        let flags = (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (word.wrapping_sub(SPACES) & !word);
        let flags = flags & HIGHS;
        if flags != 0 {
            return offset + (flags.trailing_zeros() / 8) as usize;
        }
        offset += 8;
    }
    match chunks
        .remainder()
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
    {
        Some(n) => offset + n,
        None => input.len(),
    }
}

/// The end of the run of ASCII digits from `from` on.
#[inline]
pub(super) fn digits_end(input: &[u8], from: usize) -> usize {
    let rest = input.get(from..).unwrap_or(&[]);
    match rest.iter().position(|b| !b.is_ascii_digit()) {
        Some(n) => from + n,
        None => input.len(),
    }
}

#[cfg(test)]
mod tests {
    //! The scans against the plainest loop, at every start of inputs that
    //! put each kind of byte at each place of a 16-byte and an 8-byte
    //! load. Run under Miri too (`make miri`): these are the loads the
    //! `unsafe` blocks above make.
    use super::*;

    fn plain_reference(input: &[u8], from: usize) -> usize {
        (from..input.len())
            .find(|&p| matches!(input[p], b'"' | b'\\') || input[p] < 0x20)
            .unwrap_or(input.len())
    }

    fn whitespace_reference(input: &[u8], from: usize) -> usize {
        (from..input.len())
            .find(|&p| !is_whitespace(input[p]))
            .unwrap_or(input.len().max(from))
    }

    /// Inputs of 0 to 40 bytes of `filler`, with each of `special` at
    /// each place; under Miri (slow) only the lengths around the 8- and
    /// 16-byte loads, with the first two of `special`.
    fn inputs(filler: u8, special: &[u8]) -> Vec<Vec<u8>> {
        let (lengths, special): (Vec<usize>, _) = if cfg!(miri) {
            (vec![0, 1, 8, 9, 15, 16, 17, 33], &special[..2])
        } else {
            ((0..=40).collect(), special)
        };
        let mut all = Vec::new();
        for len in lengths {
            all.push(vec![filler; len]);
            for &s in special {
                for at in 0..len {
                    let mut v = vec![filler; len];
                    v[at] = s;
                    all.push(v);
                }
            }
        }
        all
    }

    #[test]
    fn plain_runs_end_at_the_first_special_byte() {
        let specials = [b'"', b'\\', 0x00, 0x1f, b'\n', 0x20, 0x7f, 0x80, 0xff];
        let fillers = if cfg!(miri) {
            &[b'a'][..]
        } else {
            &[b'a', 0xc3][..]
        };
        for input in fillers.iter().flat_map(|&f| inputs(f, &specials)) {
            let input = &input;
            for from in 0..=input.len() {
                let want = plain_reference(input, from);
                assert_eq!(plain_run_end(input, from), want, "{input:?} from {from}");
                assert_eq!(
                    plain_run_end_swar(input, from),
                    want,
                    "{input:?} from {from}"
                );
            }
        }
    }

    #[test]
    fn whitespace_ends_at_the_first_other_byte() {
        let others = [b'a', b'{', b'"', 0x00, 0x0b, 0x0c, 0x80, 0xa0];
        let fillers = if cfg!(miri) {
            &[b'\n'][..]
        } else {
            &[b' ', b'\n', b'\t', b'\r'][..]
        };
        for &filler in fillers {
            let mut all = inputs(filler, &others);
            // Mixed whitespace with the other byte after it.
            all.push(b" \n\t\r \n    \t\r\n        x".to_vec());
            for input in &all {
                for from in 0..=input.len() {
                    let want = whitespace_reference(input, from);
                    assert_eq!(whitespace_end(input, from), want, "{input:?} from {from}");
                    assert_eq!(
                        whitespace_end_swar(input, from),
                        want,
                        "{input:?} from {from}"
                    );
                }
            }
        }
    }

    #[test]
    fn digits_end_at_the_first_other_byte() {
        for input in inputs(b'7', b".e-a/:") {
            for from in 0..=input.len() {
                let want = (from..input.len())
                    .find(|&p| !input[p].is_ascii_digit())
                    .unwrap_or(input.len());
                assert_eq!(digits_end(&input, from), want, "{input:?} from {from}");
            }
        }
    }
}
