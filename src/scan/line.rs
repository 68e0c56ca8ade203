//! Line-end search for the framers (DESIGN.md layer 1): the first LF (an NDJSON frame's end)
//! or the first CR or LF (an SSE line ends at CR, LF or CRLF) in a byte slice, and the end
//! of an SSE `id:` value with its NUL test (a short-id byte loop, then 8-byte words, then the
//! kernel).
//!
//! Same results as `memchr::memchr(b'\n', hay)` and `memchr::memchr2(b'\r', b'\n', hay)`,
//! which are the fallback (no AVX2, the feature `force-scalar`, other targets, slices shorter
//! than 32 bytes). The AVX2 kernel is shaped for frames of a few hundred bytes, where memchr's
//! 128-byte main loop and its tail loops cost more than the search itself: one test per 64
//! bytes (for CR or LF one `vpshufb` lookup and one compare per 32 bytes instead of two
//! compares and an OR), the bit position computed only on the block that holds the hit, and
//! the last 1..=63 bytes read as one 32-byte step and one 32-byte load ending at the slice's
//! end (overlapping bytes already searched, masked off), so that no byte past the slice is
//! ever read. PERF.md §7.4 has the counts and timings.

/// Index of the first LF in `hay`; `None` when it holds none.
#[inline(always)]
pub(crate) fn find_lf(hay: &[u8]) -> Option<usize> {
    find::<false>(hay)
}

/// Index of the first CR or LF in `hay`; `None` when it holds neither.
#[inline(always)]
pub(crate) fn find_cr_or_lf(hay: &[u8]) -> Option<usize> {
    find::<true>(hay)
}

/// The first LF (with `CR`: CR or LF): the AVX2 kernel when it can run, else memchr.
#[inline(always)]
fn find<const CR: bool>(hay: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if !cfg!(feature = "force-scalar")
        && hay.len() >= 32
        && std::arch::is_x86_feature_detected!("avx2")
    {
        // SAFETY: AVX2 is available (detected just above).
        return unsafe { x86::find_avx2::<CR>(hay) };
    }
    if CR {
        memchr::memchr2(b'\r', b'\n', hay)
    } else {
        memchr::memchr(b'\n', hay)
    }
}

/// Index of the first CR or LF in `hay` when no NUL comes before it: the end of an SSE
/// `id:` value that the field keeps (WHATWG ignores an `id:` whose value holds a NUL).
/// `None` when `hay` holds no CR or LF, or when a NUL comes before the first of them.
///
/// Same answer as [`find_cr_or_lf`] followed by [`contains_nul`] on the bytes before the hit,
/// which is the fallback; the first 16 bytes are tested as two 8-byte words first (one
/// zero-byte test for CR, LF and NUL each), so that an id of a few bytes (event stores number
/// their events; the captures hold ids of 1–7 bytes) costs neither the kernel's dispatch nor a
/// second pass.
#[inline(always)]
pub(crate) fn find_cr_or_lf_before_nul(hay: &[u8]) -> Option<usize> {
    use super::cursor::{ONES, zero_bytes};
    let mut at = 0;
    while at < 16 {
        let Some(word) = hay.get(at..at + 8) else {
            break;
        };
        let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        // The lowest bit of each mask is exact (false positives lie only above a true hit),
        // so the lowest bit of their union marks the first CR, LF or NUL of the word.
        let stops = zero_bytes(w ^ (ONES * u64::from(b'\r')))
            | zero_bytes(w ^ (ONES * u64::from(b'\n')))
            | zero_bytes(w);
        if stops != 0 {
            let k = at + (stops.trailing_zeros() / 8) as usize;
            return (hay[k] != 0).then_some(k);
        }
        at += 8;
    }
    let k = at + find_cr_or_lf(&hay[at..])?;
    (!contains_nul(&hay[at..k])).then_some(k)
}

/// The line end of a short SSE `id: VALUE` line: the index in `line` of the CR or LF that
/// ends it, when `line` starts with `id: ` (with the space) and a CR or LF follows within
/// bytes 4..SHORT_ID_LINE with no NUL before it (a value of at most 15 bytes). `None` for
/// anything else (a longer value, no space, a NUL): the caller then takes
/// [`find_cr_or_lf_before_nul`], which gives the same index wherever this gives one.
///
/// A byte loop on purpose: its branches are predicted (a stream's ids keep their length for
/// many events), so the next line's loads do not wait for the line end to be computed, as
/// they would behind a word test's bit arithmetic.
#[inline(always)]
pub(crate) fn short_id_line_end(line: &[u8]) -> Option<usize> {
    if !line.starts_with(b"id: ") {
        return None;
    }
    let end = line.len().min(SHORT_ID_LINE);
    let mut k = 4;
    while k < end {
        let b = line[k];
        // One compare per byte of a plain value: CR, LF and NUL are all at most 0x0D.
        if b <= b'\r' {
            if b == b'\r' || b == b'\n' {
                return Some(k);
            }
            if b == 0 {
                return None;
            }
        }
        k += 1;
    }
    None
}

/// The bytes of an `id: ` line that [`short_id_line_end`] searches (the line end included).
pub(crate) const SHORT_ID_LINE: usize = 20;

/// True when `bytes` holds a NUL (the byte an SSE `id:` value must not contain): 8-byte
/// words with a zero-byte test, the last word overlapping the one before it, instead of a
/// `memchr` call (whose dispatch and set-up cost more than the search on ids of a few bytes).
#[inline]
pub(crate) fn contains_nul(bytes: &[u8]) -> bool {
    use super::cursor::zero_bytes;
    if bytes.len() < 8 {
        return bytes.iter().fold(false, |any, &b| any | (b == 0));
    }
    let word = |c: &[u8]| u64::from_le_bytes(c.try_into().unwrap_or([1; 8]));
    let mut words = bytes.chunks_exact(8);
    let mut zero = 0;
    for c in &mut words {
        zero |= zero_bytes(word(c));
    }
    if !words.remainder().is_empty() {
        zero |= zero_bytes(word(&bytes[bytes.len() - 8..]));
    }
    zero != 0
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// The line ends among the 32 bytes at `p`: 0xFF where a byte is LF (with `CR`: CR or
    /// LF), else 0.
    ///
    /// # Safety
    /// AVX2 must be available and the 32 bytes at `p` readable.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn hits<const CR: bool>(p: *const u8) -> __m256i {
        // SAFETY: the caller guarantees 32 readable bytes at `p` (`loadu`: any alignment).
        let v = unsafe { _mm256_loadu_si256(p.cast()) };
        if !CR {
            return _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\n' as i8));
        }
        // `vpshufb` maps each byte below 0x80 to LINE_ENDS[its low nibble] and each byte from
        // 0x80 up to 0. A byte equals its lookup exactly when it is 0x0A or 0x0D: the other
        // entries are 0x80, which no byte below 0x80 equals, and no byte from 0x80 up equals 0.
        const X: i8 = i8::MIN;
        let line_ends = _mm256_setr_epi8(
            X, X, X, X, X, X, X, X, X, X, 0x0A, X, X, 0x0D, X, X, //
            X, X, X, X, X, X, X, X, X, X, 0x0A, X, X, 0x0D, X, X,
        );
        _mm256_cmpeq_epi8(v, _mm256_shuffle_epi8(line_ends, v))
    }

    /// Bit *i* set when byte *i* of the 32 at `p` is a line end (see `hits`).
    ///
    /// # Safety
    /// As [`hits`].
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn hit_bits<const CR: bool>(p: *const u8) -> u32 {
        // SAFETY: forwarded from the caller.
        _mm256_movemask_epi8(unsafe { hits::<CR>(p) }) as u32
    }

    /// Index of the first LF (with `CR`: CR or LF) in `hay`.
    ///
    /// # Safety
    /// AVX2 must be available and `hay.len() >= 32`.
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn find_avx2<const CR: bool>(hay: &[u8]) -> Option<usize> {
        let len = hay.len();
        debug_assert!(len >= 32);
        let base = hay.as_ptr();
        let mut at = 0;
        while at + 64 <= len {
            // SAFETY: `at + 64 <= len`: both 32-byte halves are inside `hay`.
            let (a, b) = unsafe { (hits::<CR>(base.add(at)), hits::<CR>(base.add(at + 32))) };
            let any = _mm256_or_si256(a, b);
            if _mm256_testz_si256(any, any) == 0 {
                let bits = u64::from(_mm256_movemask_epi8(a) as u32)
                    | (u64::from(_mm256_movemask_epi8(b) as u32) << 32);
                return Some(at + bits.trailing_zeros() as usize);
            }
            at += 64;
        }
        // 0..=63 bytes left, and `len >= 32`.
        if at + 32 <= len {
            // SAFETY: `at + 32 <= len`.
            let bits = unsafe { hit_bits::<CR>(base.add(at)) };
            if bits != 0 {
                return Some(at + bits.trailing_zeros() as usize);
            }
            at += 32;
        }
        if at < len {
            // The last 32 bytes of `hay`; the `at - last` of them before `at` were searched.
            let last = len - 32;
            // SAFETY: `last + 32 == len` and `last >= 0` (`len >= 32`).
            let bits = unsafe { hit_bits::<CR>(base.add(last)) } >> (at - last);
            if bits != 0 {
                return Some(at + bits.trailing_zeros() as usize);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::{
        contains_nul, find_cr_or_lf, find_cr_or_lf_before_nul, find_lf, short_id_line_end,
    };

    /// Every line of 0..12 bytes that starts `id: `, `id:`, `iD: ` or `id:` CR with CR, LF,
    /// NUL or another byte at each later position: [`short_id_line_end`] answers only for
    /// `id: ` with a line end and no NUL before it, and then as the general search does. (The
    /// 20-byte bound itself is crossed by `ids_of_every_length_through_the_fast_path` in
    /// tests/framing_sse_fast.rs, values of 0 to 24 bytes.)
    #[test]
    fn short_id_line_end_agrees_with_the_general_search() {
        const BYTES: [u8; 5] = [b'7', b'\r', b'\n', 0, 0x8D];
        for prefix in [&b"id: "[..], b"id:", b"iD: ", b"id:\r"] {
            for len in 0..12usize {
                // (lengths up to 11: below SHORT_ID_LINE, so every line end is in reach)
                let rest = len.saturating_sub(prefix.len());
                for mut code in 0..BYTES.len().pow(rest as u32) {
                    let mut line = prefix[..prefix.len().min(len)].to_vec();
                    for _ in 0..rest {
                        line.push(BYTES[code % BYTES.len()]);
                        code /= BYTES.len();
                    }
                    let general = if line.starts_with(b"id: ") {
                        find_cr_or_lf_before_nul(&line[4..]).map(|k| k + 4)
                    } else {
                        None
                    };
                    let want = general.filter(|&k| k < super::SHORT_ID_LINE);
                    assert_eq!(short_id_line_end(&line), want, "{line:?}");
                }
            }
        }
    }

    /// The two-step answer that [`find_cr_or_lf_before_nul`] must give.
    fn before_nul_reference(hay: &[u8]) -> Option<usize> {
        let k = memchr::memchr2(b'\r', b'\n', hay)?;
        (!hay[..k].contains(&0)).then_some(k)
    }

    /// Every length 0..48 with a CR, LF or NUL at every position, and pairs of them (a NUL
    /// before, at the same word as, and after a line end; a line end before a NUL), on fills
    /// next to the searched bytes (0x01, 0x0B, 0x0C, 0x8A, 0x8D, 0xFF): the same answer as
    /// memchr2 followed by a NUL test, across the two SWAR words and the fallback.
    #[test]
    fn before_nul_agrees_with_the_two_step_search() {
        for len in 0..48usize {
            for fill in [b'a', 0x01, 0x0B, 0x0C, 0x8A, 0x8D, 0xFF] {
                let mut v = vec![fill; len];
                assert_eq!(find_cr_or_lf_before_nul(&v), None, "{len} {fill:#x}");
                let agree = |v: &[u8], what: &dyn std::fmt::Debug| {
                    assert_eq!(
                        find_cr_or_lf_before_nul(v),
                        before_nul_reference(v),
                        "{len} {fill:#x} {what:?}"
                    );
                };
                for i in 0..len {
                    for a in [b'\r', b'\n', 0] {
                        v[i] = a;
                        agree(&v, &(i, a));
                        for j in i + 1..len {
                            for b in [b'\r', b'\n', 0] {
                                v[j] = b;
                                agree(&v, &(i, a, j, b));
                                v[j] = fill;
                            }
                        }
                        v[i] = fill;
                    }
                }
            }
        }
    }

    /// Both searches give memchr's answer on `hay` (`what` names the case in a failure).
    fn same_as_memchr(hay: &[u8], what: &dyn std::fmt::Debug) {
        assert_eq!(find_lf(hay), memchr::memchr(b'\n', hay), "{what:?}");
        assert_eq!(
            find_cr_or_lf(hay),
            memchr::memchr2(b'\r', b'\n', hay),
            "{what:?}"
        );
    }

    /// A NUL at every position of every length 0..40, and none: the same answer as a byte
    /// loop (the SWAR test's borrow must not turn a 0x01 after a 0x00, or any other byte,
    /// into a false hit).
    #[test]
    fn contains_nul_at_every_length_and_position() {
        for len in 0..40usize {
            for fill in [b'a', 0x01, 0x80, 0xFF] {
                let mut v = vec![fill; len];
                assert!(!contains_nul(&v), "{len} {fill:#x}");
                for i in 0..len {
                    v[i] = 0;
                    assert!(contains_nul(&v), "{len} {i} {fill:#x}");
                    v[i] = fill;
                }
            }
        }
    }

    /// Every length 0..200, every hit position (LF, CR, both, a CRLF), none, and hits at
    /// both ends: the same answer as memchr, on every offset of a larger buffer (so loads
    /// start at every alignment).
    #[test]
    fn agrees_with_memchr_at_every_length_position_and_alignment() {
        let mut store = vec![b'a'; 300];
        for align in 0..4 {
            for len in 0..200usize {
                let mut cases: Vec<Vec<(usize, u8)>> = vec![vec![]];
                for i in 0..len {
                    cases.push(vec![(i, b'\n')]);
                    cases.push(vec![(i, b'\r')]);
                    if i + 1 < len {
                        cases.push(vec![(i, b'\r'), (i + 1, b'\n')]);
                    }
                    cases.push(vec![(i, b'\r'), (len - 1, b'\n')]);
                }
                for case in &cases {
                    store.iter_mut().for_each(|b| *b = b'a');
                    // Line ends just outside the slice must not be seen.
                    if align > 0 {
                        store[align - 1] = b'\n';
                    }
                    store[align + len] = b'\n';
                    for &(i, b) in case {
                        store[align + i] = b;
                    }
                    same_as_memchr(&store[align..align + len], &(len, case));
                }
            }
        }
    }

    /// Pseudo-random buffers over bytes that are line ends or near them (same low nibble,
    /// high bit set, one bit off): the same answers as memchr on every suffix.
    #[test]
    fn agrees_with_memchr_on_mixed_bytes() {
        const BYTES: [u8; 12] = [
            b'a', b'a', b'a', b'a', 0x0A, 0x0D, 0x8A, 0x8D, 0x1A, 0x1D, 0x0B, 0x00,
        ];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..2000 {
            let len = (x % 160) as usize;
            let buf: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    // Mostly plain bytes, so that hits fall at every distance.
                    if x.is_multiple_of(16) {
                        BYTES[(x >> 8) as usize % 12]
                    } else {
                        b'a'
                    }
                })
                .collect();
            for from in 0..buf.len().min(40) {
                same_as_memchr(&buf[from..], &(&buf, from));
            }
        }
    }

    /// Bytes that differ from CR or LF in one bit (0x0B, 0x0C, 0x8A, 0x8D, 0x2A …) are not
    /// line ends, whatever the high bit.
    #[test]
    fn near_misses_are_not_line_ends() {
        for b in 0..=255u8 {
            let hay = vec![b; 130];
            let want_lf = (b == b'\n').then_some(0);
            let want_any = (b == b'\n' || b == b'\r').then_some(0);
            assert_eq!(find_lf(&hay), want_lf, "{b:#x}");
            assert_eq!(find_cr_or_lf(&hay), want_any, "{b:#x}");
        }
    }
}
