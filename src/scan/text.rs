//! Turning the bytes of a string token into `&str` without a second UTF-8 pass over plain
//! ASCII text (the common case for envelope members: `"2.0"`, method names, ids, `_meta`
//! keys).

use super::cursor::{HIGH, ONES, zero_bytes};

/// `raw` as `&str` (the same bytes, borrowed from the frame) when it equals `literal`; a
/// compare in place of [`token_text`]'s pass for a value that is almost always one literal
/// (`"2.0"`).
#[inline]
pub(crate) fn literal_text<'a>(raw: &'a [u8], literal: &'static str) -> Option<&'a str> {
    if raw != literal.as_bytes() {
        return None;
    }
    // SAFETY: `raw` holds the same bytes as `literal`, a `&str`, so it is valid UTF-8.
    Some(unsafe { std::str::from_utf8_unchecked(raw) })
}

/// The raw text `raw` (between a string token's quotes) as `&str`, and whether it holds a
/// backslash (an escape, for text the walk validated). `None` when `raw` is not valid UTF-8.
///
/// One pass over 8-byte words: when every byte is ASCII the text is valid UTF-8 by
/// definition and no further check runs; otherwise [`std::str::from_utf8`] decides. Costs
/// about one instruction per byte plus a constant, against `from_utf8`'s call, alignment
/// prologue and tail on short strings.
#[inline]
pub(crate) fn token_text(raw: &[u8]) -> Option<(&str, bool)> {
    let has_backslash = |w: u64| zero_bytes(w ^ (ONES * b'\\' as u64)) != 0;
    let (mut any, mut slash) = (0u64, false);
    if raw.len() >= 8 {
        let mut words = raw.chunks_exact(8);
        for c in &mut words {
            let w = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
            any |= w;
            slash |= has_backslash(w);
        }
        if !words.remainder().is_empty() {
            // The last 8 bytes (overlapping the previous word): no byte-at-a-time tail.
            let last = &raw[raw.len() - 8..];
            let w = u64::from_le_bytes(last.try_into().unwrap_or([0; 8]));
            any |= w;
            slash |= has_backslash(w);
        }
    } else {
        for &b in raw {
            any |= u64::from(b);
            slash |= b == b'\\';
        }
        any = if any & 0x80 != 0 { HIGH } else { 0 };
    }
    if any & HIGH != 0 {
        let s = std::str::from_utf8(raw).ok()?;
        return Some((s, slash));
    }
    // SAFETY: every byte of `raw` is below 0x80 (checked above: `any` is the OR of all of
    // them, and its high bits are clear), and ASCII text is valid UTF-8.
    Some((unsafe { std::str::from_utf8_unchecked(raw) }, slash))
}

/// Parses a plain integer token `-?(0|[1-9][0-9]*)` of at most 18 digits, and gives its text
/// as `&str` (the same bytes) from the same pass: every byte has been checked to be `-` or
/// an ASCII digit, so no UTF-8 check is needed.
///
/// `-0` is not an integer here: serde_json reads it as the float `-0.0`, so a typed backend
/// rejects it as an id or `error.code` (fuzz finding F1,
/// `corpora/hostile/fuzz-error-code-negative-zero.json`).
#[inline]
pub(crate) fn plain_int_text(raw: &[u8]) -> Option<(i64, &str)> {
    let (neg, digits) = match raw {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, raw),
    };
    match digits {
        [] => return None,
        [b'0'] if neg => return None,
        [b'0'] => {}
        [b'0', ..] => return None,
        _ if digits.len() > 18 => return None,
        _ => {}
    }
    // One pass: accumulate and check each digit (at most 18, so no overflow).
    let mut v: i64 = 0;
    for &d in digits {
        let d = d.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + i64::from(d);
    }
    // SAFETY: `raw` is an optional `-` followed by bytes each checked above to be an ASCII
    // digit; ASCII text is valid UTF-8.
    let text = unsafe { std::str::from_utf8_unchecked(raw) };
    Some((if neg { -v } else { v }, text))
}

/// Index of the first `"` or `\` in `hay` (in a validated frame: where a string's content
/// ends or its next escape starts); `None` when it holds neither. Same result as
/// `memchr::memchr2(b'"', b'\\', hay)`, without its dispatch and set-up, which cost more
/// than the search on keys and short values (the profile layer's member iteration runs this
/// once per string): SSE2 16-byte steps on x86-64, [`find_quote_or_backslash_swar`] with
/// `force-scalar` and on other targets.
#[inline]
pub(crate) fn find_quote_or_backslash(hay: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if !cfg!(feature = "force-scalar") {
        return super::block::x86::quote_or_backslash_sse2(hay);
    }
    find_quote_or_backslash_swar(hay)
}

/// [`find_quote_or_backslash`] without SIMD: the first 32 bytes as 8-byte words, then
/// `memchr2` (the path of `force-scalar` builds and other targets).
#[inline]
pub(crate) fn find_quote_or_backslash_swar(hay: &[u8]) -> Option<usize> {
    const QUOTES: u64 = ONES * b'"' as u64;
    const BACKSLASHES: u64 = ONES * b'\\' as u64;
    let mut at = 0;
    while at < 32 {
        let Some(c) = hay.get(at..at + 8) else {
            break;
        };
        let w = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
        // The lowest set bit of either mask is exact (see `zero_bytes`), so the lowest of
        // their union is the first hit.
        let hits = zero_bytes(w ^ QUOTES) | zero_bytes(w ^ BACKSLASHES);
        if hits != 0 {
            return Some(at + (hits.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let rest = hay.get(at..).unwrap_or_default();
    memchr::memchr2(b'"', b'\\', rest).map(|i| at + i)
}

#[cfg(test)]
mod tests {
    use super::{find_quote_or_backslash, find_quote_or_backslash_swar, plain_int_text};

    /// `plain_int_text` against a reference of the grammar, its bounds either side, and
    /// the text it gives back.
    #[test]
    fn plain_int_text_reads_the_grammar_and_keeps_the_text() {
        // A reference: the grammar `-?(0|[1-9][0-9]*)`, at most 18 digits, `-0` excluded.
        fn reference(raw: &str) -> Option<i64> {
            let digits = raw.strip_prefix('-').unwrap_or(raw);
            let ok = !digits.is_empty()
                && digits.len() <= 18
                && digits.bytes().all(|b| b.is_ascii_digit())
                && (digits == "0" || !digits.starts_with('0'))
                && raw != "-0";
            ok.then(|| raw.parse().unwrap())
        }
        let nines = "9".repeat(18);
        let mut cases: Vec<String> = [
            "",
            "-",
            "0",
            "-0",
            "00",
            "01",
            "-01",
            "7",
            "-7",
            "10",
            "1a",
            "a1",
            "+1",
            "1.0",
            "1e2",
            " 1",
            "1 ",
            "--1",
            "9007199254740991",
            "-9007199254740992",
            r"\u0031",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // 18 digits and 19 (one either side of the bound), with and without a sign.
        for n in [
            nines.clone(),
            format!("{nines}9"),
            format!("1{}", "0".repeat(17)),
        ] {
            cases.push(format!("-{n}"));
            cases.push(n);
        }
        for c in &cases {
            let got = plain_int_text(c.as_bytes());
            assert_eq!(got.map(|(v, _)| v), reference(c), "{c:?}");
            if let Some((_, text)) = got {
                assert_eq!(text, c);
            }
        }
    }

    /// Against `memchr2` at every length 0..80, every position of a `"` or `\` hit (and a
    /// second hit after it), over bytes one bit away from the targets (near misses for the
    /// zero-byte test) and high bytes.
    #[test]
    fn find_quote_or_backslash_matches_memchr2() {
        let fillers = [
            b'a',
            b'"' ^ 1,
            b'\\' ^ 1,
            b'"' ^ 0x80,
            b'\\' | 0x80,
            0xff,
            0,
            b'#',
        ];
        for len in 0..80 {
            for &fill in &fillers {
                let base = vec![fill; len];
                assert_eq!(
                    find_quote_or_backslash(&base),
                    memchr::memchr2(b'"', b'\\', &base)
                );
                assert_eq!(
                    find_quote_or_backslash_swar(&base),
                    memchr::memchr2(b'"', b'\\', &base)
                );
                for at in 0..len {
                    for hit in [b'"', b'\\'] {
                        let mut h = base.clone();
                        h[at] = hit;
                        if at + 3 < len {
                            h[at + 3] = b'"';
                        }
                        let want = memchr::memchr2(b'"', b'\\', &h);
                        assert_eq!(
                            find_quote_or_backslash(&h),
                            want,
                            "len {len} fill {fill:#x} hit {hit} at {at}"
                        );
                        assert_eq!(find_quote_or_backslash_swar(&h), want, "swar {len} {at}");
                    }
                }
            }
        }
    }

    use super::token_text;

    #[test]
    fn agrees_with_std_at_every_length_and_position() {
        let mut bytes = Vec::new();
        for len in 0..40usize {
            for at in 0..len.max(1) {
                for special in [b'\\', 0xC3, 0xFF, b'a'] {
                    bytes.clear();
                    bytes.extend((0..len).map(|i| b'a' + (i % 26) as u8));
                    if len > 0 {
                        bytes[at] = special;
                        if special == 0xC3 && at + 1 < len {
                            bytes[at + 1] = 0xA9; // é: valid two-byte sequence
                        }
                    }
                    let want = std::str::from_utf8(&bytes)
                        .ok()
                        .map(|s| (s, bytes.contains(&b'\\')));
                    assert_eq!(token_text(&bytes), want, "{bytes:?}");
                }
            }
        }
    }
}
