//! Block kernels: classify a frame 64 bytes at a time.
//!
//! The question the walk asks the kernels is "from byte `i` on, where are the bytes that end
//! a run of plain string content — `"`, `\` or a control byte `< 0x20` — and which bytes are
//! non-ASCII (`>= 0x80`)?". Long strings (base64 blobs, file text,
//! embedded JSON) are where the bytes of MCP frames are, so this is the loop that runs at
//! block speed; the structure-dense parts are handled by the scalar walk in `cursor`.
//!
//! Every kernel computes the same two 64-bit masks per block (bit *i* = byte *i*):
//! `stop` (`"`, `\`, `< 0x20`) and `high` (`>= 0x80`), so all backends give identical
//! results; the tail of a frame shorter than one block is handled by the same scalar code
//! in every backend (AVX-512 uses a masked load instead, which reads no byte past the end).

use crate::error::{Error, ErrorKind};

/// Which block kernel the scan uses.
///
/// All backends give bit-identical results; they differ only in speed. [`Backend::detect`]
/// picks AVX2 when the CPU has it, else scalar; with the cargo feature `force-scalar` it
/// always returns [`Backend::Scalar`]. The AVX-512 kernel is selectable with
/// [`crate::Parser::with_backend`] but not the default: on the Zen 4 machine it was measured
/// on (512-bit operations run as two 256-bit halves) it did not beat AVX2 (large frames:
/// 23.4 µs vs 15.4 µs per 136 KB message, best of 20 samples).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// Portable byte-at-a-time code (the test oracle for the SIMD kernels).
    Scalar,
    /// x86-64 AVX2: two 32-byte compares per 64-byte block.
    Avx2,
    /// x86-64 AVX-512BW: one 64-byte compare per block, masked load for the tail.
    Avx512,
}

impl Default for Backend {
    fn default() -> Self {
        Backend::detect()
    }
}

impl Backend {
    /// Every backend.
    pub const ALL: [Backend; 3] = [Backend::Scalar, Backend::Avx2, Backend::Avx512];

    /// The default backend for this CPU, detected at run time (cheap: the standard library
    /// caches the CPUID result): [`Backend::Avx2`] when available, else
    /// [`Backend::Scalar`]. Always [`Backend::Scalar`] with the feature `force-scalar` or on
    /// non-x86-64 targets.
    #[inline]
    pub fn detect() -> Backend {
        if cfg!(feature = "force-scalar") {
            return Backend::Scalar;
        }
        if Backend::Avx2.is_available() {
            Backend::Avx2
        } else {
            Backend::Scalar
        }
    }

    /// True when this CPU can run the backend (always true for [`Backend::Scalar`]).
    #[inline]
    pub fn is_available(self) -> bool {
        match self {
            Backend::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The backends this CPU can run.
    pub fn available() -> impl Iterator<Item = Backend> {
        Backend::ALL.into_iter().filter(|b| b.is_available())
    }

    /// Stable lower-case name: `scalar`, `avx2`, `avx512`.
    pub const fn name(self) -> &'static str {
        match self {
            Backend::Scalar => "scalar",
            Backend::Avx2 => "avx2",
            Backend::Avx512 => "avx512",
        }
    }

    /// Returns `self` when available, else the best available backend below it (so a
    /// forced backend never runs an instruction the CPU lacks).
    #[inline]
    pub(crate) fn checked(self) -> Backend {
        if self.is_available() {
            self
        } else {
            Backend::Scalar
        }
    }

    /// Scans the rest of a string whose content starts at `start`, from `from` on (bytes
    /// `start..from` are plain ASCII content already checked by the caller): validates
    /// escapes, control characters and UTF-8 and returns `(closing quote offset, escaped)`.
    ///
    /// `self` must have passed [`Backend::checked`] (the parser does this once).
    #[inline]
    pub(crate) fn string_rest(
        self,
        buf: &[u8],
        start: usize,
        from: usize,
    ) -> Result<(usize, bool), Error> {
        match self {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => {
                // SAFETY: `self` is `Avx2` only after `checked()`/`detect()` confirmed the
                // CPU supports AVX2 (see `Parser::with_backend`).
                unsafe { x86::string_rest_avx2(buf, start, from) }
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => {
                // SAFETY: `self` is `Avx512` only after `checked()`/`detect()` confirmed the
                // CPU supports AVX-512F and AVX-512BW.
                unsafe { x86::string_rest_avx512(buf, start, from) }
            }
            _ => string_loop(buf, start, from, masks_scalar, utf8_std),
        }
    }
}

/// UTF-8 check of string content, portable.
#[inline]
fn utf8_std(b: &[u8]) -> bool {
    std::str::from_utf8(b).is_ok()
}

/// UTF-8 check of string content with simdutf8's SIMD validator (same verdict as std).
#[cfg(target_arch = "x86_64")]
#[inline]
fn utf8_simd(b: &[u8]) -> bool {
    simdutf8::basic::from_utf8(b).is_ok()
}

/// Masks of the (up to) 64 bytes at `at`, byte by byte: `(stop, high, n)` where bit *i* of
/// `stop` is set when byte `at + i` is `"`, `\` or `< 0x20`, bit *i* of `high` when it is
/// `>= 0x80`, and `n = min(64, buf.len() - at)` bytes were classified (bits `>= n` clear).
#[inline]
pub(crate) fn masks_scalar(buf: &[u8], at: usize) -> (u64, u64, usize) {
    let block = buf.get(at..).unwrap_or(&[]);
    let block = &block[..block.len().min(64)];
    let mut stop = 0u64;
    let mut high = 0u64;
    for (i, &b) in block.iter().enumerate() {
        stop |= u64::from(b == b'"' || b == b'\\' || b < 0x20) << i;
        high |= u64::from(b >= 0x80) << i;
    }
    (stop, high, block.len())
}

/// The string loop shared by every backend (inlined into each backend's
/// `#[target_feature]` function so its mask kernel inlines too). Walks the stop bits of each
/// block; simple escapes are handled inline without reloading the block.
#[inline(always)]
pub(crate) fn string_loop(
    buf: &[u8],
    start: usize,
    from: usize,
    masks: impl Fn(&[u8], usize) -> (u64, u64, usize),
    utf8: impl Fn(&[u8]) -> bool,
) -> Result<(usize, bool), Error> {
    let mut p = from;
    let mut escaped = false;
    let mut high = 0u64;
    loop {
        let (mut stop, hi, n) = masks(buf, p);
        if n == 0 {
            return Err(Error::new(ErrorKind::UnexpectedEnd, buf.len()));
        }
        loop {
            if stop == 0 {
                high |= hi;
                p += n;
                break;
            }
            let t = stop.trailing_zeros() as usize;
            let i = p + t;
            match buf[i] {
                b'"' => {
                    high |= hi & ((1u64 << t) - 1);
                    if high != 0 && !utf8(&buf[start..i]) {
                        let bad = std::str::from_utf8(&buf[start..i])
                            .err()
                            .map_or(0, |e| e.valid_up_to());
                        return Err(Error::new(ErrorKind::InvalidUtf8, start + bad));
                    }
                    return Ok((i, escaped));
                }
                b'\\' => {
                    escaped = true;
                    let next = match buf.get(i + 1) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i + 2,
                        _ => super::cursor::escape_slow(buf, i)?,
                    };
                    let rel = next - p;
                    if rel >= n {
                        high |= hi;
                        p = next;
                        break;
                    }
                    stop &= !0u64 << rel;
                }
                _ => return Err(Error::new(ErrorKind::ControlCharacter, i)),
            }
        }
    }
}

/// The 64-bit `stop` mask of one 64-byte block, computed byte by byte (for tests: the SIMD
/// kernels must produce exactly this).
#[cfg(test)]
pub(crate) fn block_masks_scalar(block: &[u8; 64]) -> (u64, u64) {
    let mut stop = 0u64;
    let mut high = 0u64;
    for (i, &b) in block.iter().enumerate() {
        if b == b'"' || b == b'\\' || b < 0x20 {
            stop |= 1 << i;
        }
        if b >= 0x80 {
            high |= 1 << i;
        }
    }
    (stop, high)
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86 {
    use std::arch::x86_64::*;

    /// Bit *i* set when byte `at + i` (of the 16 at `at`) is `"`, `\`, `< 0x20` or
    /// `>= 0x80`: the bytes that end the short-string fast path. SSE2 only (x86-64
    /// baseline, no run-time detection needed).
    ///
    /// # Panics
    /// Never: returns a mask as if the bytes past the end were special when fewer than 16
    /// bytes are left (the caller only calls it with `at + 16 <= buf.len()`).
    #[inline(always)]
    pub(crate) fn special_mask_sse2(buf: &[u8], at: usize) -> u32 {
        if buf.get(at..at + 16).is_none() {
            return 1;
        }
        // SAFETY: the 16 bytes at `at` are inside `buf` (checked above).
        unsafe { special_mask_sse2_unchecked(buf, at) }
    }

    /// [`special_mask_sse2`] without the bounds check, for the short-string loop whose
    /// bound already keeps 16 bytes in reach.
    ///
    /// # Safety
    /// `at + 16 <= buf.len()`.
    #[inline(always)]
    pub(crate) unsafe fn special_mask_sse2_unchecked(buf: &[u8], at: usize) -> u32 {
        debug_assert!(at + 16 <= buf.len());
        // SAFETY: the caller guarantees `at + 16 <= buf.len()`, so the 16 bytes at `at` are
        // inside `buf` (unaligned load); SSE2 is enabled on every x86-64 target.
        unsafe {
            let v = _mm_loadu_si128(buf.as_ptr().add(at) as *const __m128i);
            let q = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
            let bs = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
            let lim = _mm_set1_epi8(0x1f);
            let ctl = _mm_cmpeq_epi8(_mm_max_epu8(v, lim), lim);
            // `movemask` of `v` itself gives the bytes `>= 0x80`.
            let any = _mm_or_si128(_mm_or_si128(q, bs), _mm_or_si128(ctl, v));
            _mm_movemask_epi8(any) as u32
        }
    }

    /// Bits of bytes that are `"`, `\` or `<= 0x1f` in one 32-byte vector.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn stop_mask_avx2(v: __m256i) -> u32 {
        let q = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8));
        let bs = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
        let lim = _mm256_set1_epi8(0x1f);
        let ctl = _mm256_cmpeq_epi8(_mm256_max_epu8(v, lim), lim);
        _mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(q, bs), ctl)) as u32
    }

    /// [`special_mask_sse2`] for the fewer than 16 bytes from `at` to the end of `buf`
    /// (`buf.len() >= 16`): loads the last 16 bytes of `buf` and shifts away those before
    /// `at`. Bits at and above `buf.len() - at` are zero.
    #[inline(always)]
    pub(crate) fn special_mask_sse2_tail(buf: &[u8], at: usize) -> u32 {
        let len = buf.len();
        if len < 16 || at >= len || at + 16 <= len {
            return special_mask_sse2(buf, at.min(len));
        }
        special_mask_sse2(buf, len - 16) >> (at + 16 - len)
    }

    /// AVX2 masks of the 64-byte block at `p`.
    ///
    /// # Safety
    /// The CPU supports AVX2 and `p..p+64` is readable.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn block_masks_avx2(p: *const u8) -> (u64, u64) {
        // SAFETY: the caller guarantees 64 readable bytes at `p`; unaligned loads.
        let (a, b) = unsafe {
            (
                _mm256_loadu_si256(p as *const __m256i),
                _mm256_loadu_si256(p.add(32) as *const __m256i),
            )
        };
        let stop = stop_mask_avx2(a) as u64 | (stop_mask_avx2(b) as u64) << 32;
        let high =
            _mm256_movemask_epi8(a) as u32 as u64 | (_mm256_movemask_epi8(b) as u32 as u64) << 32;
        (stop, high)
    }

    /// AVX2 masks of the (up to) 64 bytes at `at` (see [`super::masks_scalar`]).
    ///
    /// # Safety
    /// The CPU supports AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn masks_avx2(buf: &[u8], at: usize) -> (u64, u64, usize) {
        let len = buf.len();
        if at + 64 <= len {
            // SAFETY: `at + 64 <= len`: the 64 bytes at `at` are inside `buf`.
            let (s, h) = unsafe { block_masks_avx2(buf.as_ptr().add(at)) };
            return (s, h, 64);
        }
        if at >= len {
            return (0, 0, 0);
        }
        let n = len - at;
        if len >= 64 {
            // Tail: load the last 64 bytes of the frame and shift away those before `at`.
            // SAFETY: `len >= 64`, so `len - 64 .. len` is inside `buf`.
            let (s, h) = unsafe { block_masks_avx2(buf.as_ptr().add(len - 64)) };
            let shift = 64 - n;
            return (s >> shift, h >> shift, n);
        }
        // A frame shorter than one block: classify a padded copy (spaces are neither stop
        // nor high bytes), then clear the bits past the end.
        let mut tmp = [b' '; 64];
        tmp[..n].copy_from_slice(&buf[at..]);
        // SAFETY: `tmp` is 64 readable bytes.
        let (s, h) = unsafe { block_masks_avx2(tmp.as_ptr()) };
        let keep = (1u64 << n) - 1;
        (s & keep, h & keep, n)
    }

    /// AVX2 string loop (see [`super::string_loop`]).
    ///
    /// # Safety
    /// The CPU supports AVX2.
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn string_rest_avx2(
        buf: &[u8],
        start: usize,
        from: usize,
    ) -> Result<(usize, bool), crate::error::Error> {
        // SAFETY (closure): this function only runs on CPUs with AVX2.
        super::string_loop(
            buf,
            start,
            from,
            |b, at| unsafe { masks_avx2(b, at) },
            super::utf8_simd,
        )
    }

    /// AVX-512BW masks of the block at `p`, reading only the first `n` bytes (`n <= 64`);
    /// bits at and above `n` are zero.
    ///
    /// # Safety
    /// The CPU supports AVX-512F and AVX-512BW and `p..p+n` is readable.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(crate) unsafe fn block_masks_avx512(p: *const u8, n: usize) -> (u64, u64) {
        let k: u64 = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        // SAFETY: a masked load touches (and can fault on) only the lanes whose mask bit is
        // set, i.e. the first `n` bytes, which the caller guarantees are readable.
        let v = unsafe { _mm512_maskz_loadu_epi8(k, p as *const i8) };
        let q = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'"' as i8));
        let bs = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8));
        let ctl = _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20));
        let high = _mm512_movepi8_mask(v);
        ((q | bs | ctl) & k, high & k)
    }

    /// AVX-512 masks of the (up to) 64 bytes at `at` (see [`super::masks_scalar`]).
    ///
    /// # Safety
    /// The CPU supports AVX-512F and AVX-512BW.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(crate) unsafe fn masks_avx512(buf: &[u8], at: usize) -> (u64, u64, usize) {
        if at >= buf.len() {
            return (0, 0, 0);
        }
        let n = (buf.len() - at).min(64);
        // SAFETY: `at < buf.len()` and `n <= buf.len() - at`: the `n` bytes read are inside
        // `buf`; the caller guarantees AVX-512F/BW.
        let (s, h) = unsafe { block_masks_avx512(buf.as_ptr().add(at), n) };
        (s, h, n)
    }

    /// AVX-512 string loop (see [`super::string_loop`]).
    ///
    /// # Safety
    /// The CPU supports AVX-512F and AVX-512BW.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(crate) unsafe fn string_rest_avx512(
        buf: &[u8],
        start: usize,
        from: usize,
    ) -> Result<(usize, bool), crate::error::Error> {
        // SAFETY (closure): this function only runs on CPUs with AVX-512F/BW.
        super::string_loop(
            buf,
            start,
            from,
            |b, at| unsafe { masks_avx512(b, at) },
            super::utf8_simd,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_all(buf: &[u8]) {
        for at in 0..=buf.len() {
            let want = masks_scalar(buf, at);
            #[cfg(target_arch = "x86_64")]
            {
                if Backend::Avx2.is_available() {
                    // SAFETY: AVX2 checked above.
                    assert_eq!(unsafe { x86::masks_avx2(buf, at) }, want, "avx2 at {at}");
                }
                if Backend::Avx512.is_available() {
                    // SAFETY: AVX-512 checked above.
                    assert_eq!(
                        unsafe { x86::masks_avx512(buf, at) },
                        want,
                        "avx512 at {at}"
                    );
                }
            }
            for b in Backend::available() {
                let got = b.string_rest(buf, at, at);
                assert_eq!(
                    got,
                    Backend::Scalar.string_rest(buf, at, at),
                    "{b:?} at {at}"
                );
            }
        }
    }

    #[test]
    fn detect_and_fallback() {
        let d = Backend::detect();
        assert!(d.is_available());
        if cfg!(feature = "force-scalar") {
            assert_eq!(d, Backend::Scalar);
        }
        for b in Backend::ALL {
            let c = b.checked();
            assert!(c.is_available());
            assert!(c == b || c == Backend::Scalar);
        }
    }

    #[test]
    fn kernels_agree_with_scalar_at_every_offset() {
        let mut buf = vec![b'a'; 200];
        check_all(&buf);
        check_all(&buf[..40]);
        for pos in [0, 1, 31, 32, 63, 64, 65, 127, 128, 199] {
            for stop in [b'"', b'\\', 0u8, 0x1f, 0x0a] {
                buf.fill(b'a');
                buf[pos] = stop;
                check_all(&buf);
                check_all(&buf[..pos.max(1)]);
                if pos > 3 {
                    buf[pos - 3] = 0xc3;
                    check_all(&buf);
                }
            }
        }
        let all: Vec<u8> = (0..=255u8).chain(0..=255u8).collect();
        check_all(&all);
        check_all(&all[..50]);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn block_masks_are_identical() {
        let mut block = [0u8; 64];
        for round in 0..=255u8 {
            for (i, b) in block.iter_mut().enumerate() {
                *b = round.wrapping_add((i as u8).wrapping_mul(37));
            }
            let want = block_masks_scalar(&block);
            if Backend::Avx2.is_available() {
                // SAFETY: AVX2 checked above; `block` is 64 readable bytes.
                let got = unsafe { x86::block_masks_avx2(block.as_ptr()) };
                assert_eq!(got, want);
            }
            if Backend::Avx512.is_available() {
                // SAFETY: AVX-512 checked above; `block` is 64 readable bytes.
                let got = unsafe { x86::block_masks_avx512(block.as_ptr(), 64) };
                assert_eq!(got, want);
            }
        }
    }
}
