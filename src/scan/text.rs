//! Turning the bytes of a string token into `&str` without a second UTF-8 pass over plain
//! ASCII text (the common case for envelope members: `"2.0"`, method names, ids, `_meta`
//! keys).

use super::cursor::{HIGH, ONES, zero_bytes};

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

#[cfg(test)]
mod tests {
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
