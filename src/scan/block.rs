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
            _ => string_rest_scalar(buf, start, from),
        }
    }
}

/// The scalar backend's string walk (see [`Backend::string_rest`]); kept out of line so the
/// walkers that inline the dispatch stay small.
#[inline(never)]
fn string_rest_scalar(buf: &[u8], start: usize, from: usize) -> Result<(usize, bool), Error> {
    string_loop(
        buf,
        start,
        from,
        masks_scalar,
        utf8_std,
        NO_BLOCK_ESCAPES,
        no_skip,
    )
}

/// The `escapes` argument of [`string_loop`] for backends that walk escape by escape (the
/// scalar oracle).
pub(crate) const NO_BLOCK_ESCAPES: Option<EscapeKernel> = None;

/// A block escape kernel: `(backslash, simple escape)` masks of the block at an offset.
pub(crate) type EscapeKernel = fn(&[u8], usize) -> (u64, u64);

/// The `skip_plain` argument of [`string_loop`] for backends without a block skip loop:
/// skips nothing.
#[inline(always)]
pub(crate) fn no_skip(_: &[u8], at: usize) -> (usize, bool) {
    (at, false)
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
///
/// With `escapes` (`Some` kernel returning the `(backslash, simple escape)` masks of the
/// block at an offset, see [`escape_masks_scalar`]), a block whose first stop byte is a
/// backslash is settled in one step when every escape in it up to the closing quote is a
/// simple one (`\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t`): the escaped bytes come from the
/// backslash runs by carry arithmetic ([`escaped_after_runs`]) instead of one iteration per
/// escape. Anything else in such a block (`\u`, a bad escape, a control byte) goes through
/// the per-escape walk, so errors and their offsets do not depend on `escapes`. The scalar
/// backend passes `None` and stays the per-escape oracle.
#[inline(always)]
pub(crate) fn string_loop<E: Fn(&[u8], usize) -> (u64, u64)>(
    buf: &[u8],
    start: usize,
    from: usize,
    masks: impl Fn(&[u8], usize) -> (u64, u64, usize),
    utf8: impl Fn(&[u8]) -> bool,
    escapes: Option<E>,
    skip_plain: impl Fn(&[u8], usize) -> (usize, bool),
) -> Result<(usize, bool), Error> {
    let finish = |i: usize, high: u64, escaped: bool| {
        if high != 0 && !utf8(&buf[start..i]) {
            let bad = std::str::from_utf8(&buf[start..i])
                .err()
                .map_or(0, |e| e.valid_up_to());
            return Err(Error::new(ErrorKind::InvalidUtf8, start + bad));
        }
        Ok((i, escaped))
    };
    let mut p = from;
    let mut escaped = false;
    let mut high = 0u64;
    'blocks: loop {
        let (mut stop, hi, n) = masks(buf, p);
        if n == 0 {
            return Err(Error::new(ErrorKind::UnexpectedEnd, buf.len()));
        }
        if let Some(esc) = &escapes
            && stop != 0
            && buf[p + stop.trailing_zeros() as usize] == b'\\'
        {
            escaped = true;
            let (bs, simple) = esc(buf, p);
            // `odd` has no bits at or past `n`.
            let (odd, carry) = escaped_after_runs(bs, n);
            // Quotes and control bytes that no backslash escapes: the first one ends
            // the string (or is an error).
            let ends = stop & !bs & !odd;
            if ends != 0 {
                let e = ends.trailing_zeros() as usize;
                let before = (1u64 << e) - 1;
                if odd & !simple & before == 0 {
                    let j = p + e;
                    if buf[j] == b'"' {
                        return finish(j, high | (hi & before), true);
                    }
                    return Err(Error::new(ErrorKind::ControlCharacter, j));
                }
            } else if odd & !simple == 0 {
                if !carry {
                    high |= hi;
                    p += n;
                    continue 'blocks;
                }
                // The block ends inside an escape: its escaped byte is the next
                // block's first.
                if buf.get(p + n).is_some_and(|&c| is_simple_escape(c)) {
                    high |= hi;
                    p += n + 1;
                    continue 'blocks;
                }
            }
        }
        loop {
            if stop == 0 {
                high |= hi;
                // A block of plain content: what follows may be a long run of it.
                let (next, seen_high) = skip_plain(buf, p + n);
                high |= u64::from(seen_high);
                p = next;
                break;
            }
            let t = stop.trailing_zeros() as usize;
            let i = p + t;
            match buf[i] {
                b'"' => return finish(i, high | (hi & ((1u64 << t) - 1)), escaped),
                b'\\' => {
                    escaped = true;
                    let next = match buf.get(i + 1) {
                        Some(&c) if is_simple_escape(c) => i + 2,
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

/// True for the bytes that may follow a backslash in a two-byte escape (RFC 8259 §7):
/// `" \ / b f n r t` — every escape but `\u`.
#[inline(always)]
pub(crate) const fn is_simple_escape(b: u8) -> bool {
    matches!(b, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't')
}

/// Which bytes of a block backslash runs escape, by carry arithmetic (no per-escape loop).
///
/// `bs` has bit *i* set when byte *i* of the block is `\`; `n` (1..=64) bytes were
/// classified, so bits `>= n` of `bs` are clear; byte 0 must not itself be escaped by a
/// backslash before the block. Returns `(odd, carry)`: bit *i* of `odd` is set when byte *i*
/// (`< n`) follows a run of backslashes of odd length, i.e. is the escaped byte of the
/// run's last escape and not a backslash; `carry` is true when the run ending at byte `n - 1`
/// has odd length, so the byte after the block is escaped. (Escaped backslashes, the even
/// members of a run, are always valid escapes and are not reported.)
#[inline(always)]
pub(crate) fn escaped_after_runs(bs: u64, n: usize) -> (u64, bool) {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    debug_assert!((1..=64).contains(&n) && (n == 64 || bs >> n == 0));
    // Adding a run's first bit carries through the run and sets the bit after it; that
    // byte is escaped when the run's length is odd, i.e. when the run starts and ends on
    // positions of different parity.
    let starts = bs & !(bs << 1);
    let after_even = bs.wrapping_add(starts & EVEN) & !bs & !EVEN;
    let after_odd = bs.wrapping_add(starts & !EVEN) & !bs & EVEN;
    let keep = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    let carry = ((bs << (64 - n)).leading_ones() & 1) == 1;
    ((after_even | after_odd) & keep, carry)
}

/// The escape masks of the (up to) 64 bytes at `at`, byte by byte: `(backslash, simple)`
/// where bit *i* of `backslash` is set when byte `at + i` is `\` and bit *i* of `simple`
/// when it is one of `" \ / b f n r t` (the bytes that may follow a backslash other than
/// `u`); bits past the end of `buf` are clear. The oracle for the SIMD escape kernels.
#[cfg(test)]
pub(crate) fn escape_masks_scalar(buf: &[u8], at: usize) -> (u64, u64) {
    let block = buf.get(at..).unwrap_or(&[]);
    let block = &block[..block.len().min(64)];
    let mut bs = 0u64;
    let mut simple = 0u64;
    for (i, &b) in block.iter().enumerate() {
        bs |= u64::from(b == b'\\') << i;
        simple |= u64::from(is_simple_escape(b)) << i;
    }
    (bs, simple)
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

    /// Index of the first `"` or `\` in `hay` (same result as `memchr::memchr2(b'"', b'\\',
    /// hay)`): 16 bytes per step with SSE2 (x86-64 baseline, no run-time detection), the last
    /// 1..=15 bytes as one 16-byte load ending at the slice's end (bytes already searched
    /// shifted off), a byte loop below 16 bytes. No byte outside `hay` is read.
    #[inline]
    pub(crate) fn quote_or_backslash_sse2(hay: &[u8]) -> Option<usize> {
        // Bit *i* set when byte `at + i` is `"` or `\`.
        // SAFETY (of each call): the caller passes `at + 16 <= hay.len()`.
        unsafe fn mask(hay: &[u8], at: usize) -> u32 {
            debug_assert!(at + 16 <= hay.len());
            // SAFETY: the 16 bytes at `at` are inside `hay` (the caller's guarantee; unaligned
            // load); SSE2 is enabled on every x86-64 target.
            unsafe {
                let v = _mm_loadu_si128(hay.as_ptr().add(at) as *const __m128i);
                let q = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
                let bs = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
                _mm_movemask_epi8(_mm_or_si128(q, bs)) as u32
            }
        }
        let len = hay.len();
        if len < 16 {
            return hay.iter().position(|&b| b == b'"' || b == b'\\');
        }
        let mut at = 0;
        while at + 16 <= len {
            // SAFETY: `at + 16 <= len` (loop condition).
            let m = unsafe { mask(hay, at) };
            if m != 0 {
                return Some(at + m.trailing_zeros() as usize);
            }
            at += 16;
        }
        if at == len {
            return None;
        }
        let last = len - 16;
        // SAFETY: `last + 16 == len`.
        let m = unsafe { mask(hay, last) } >> (at - last);
        (m != 0).then(|| at + m.trailing_zeros() as usize)
    }

    /// Lanes (all ones) of the bytes that are `"`, `\` or `<= 0x1f` in one 32-byte vector.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn stop_vec_avx2(v: __m256i) -> __m256i {
        let q = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8));
        let bs = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
        let lim = _mm256_set1_epi8(0x1f);
        let ctl = _mm256_cmpeq_epi8(_mm256_max_epu8(v, lim), lim);
        _mm256_or_si256(_mm256_or_si256(q, bs), ctl)
    }

    /// Bits of bytes that are `"`, `\` or `<= 0x1f` in one 32-byte vector.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn stop_mask_avx2(v: __m256i) -> u32 {
        _mm256_movemask_epi8(stop_vec_avx2(v)) as u32
    }

    /// Skips whole 64-byte blocks of plain string content (no `"`, `\` or control byte)
    /// from `at` on: returns the offset of the first block that has one of those bytes or
    /// does not fit before the end of `buf` (`at` itself when the block at `at` does), and
    /// whether any skipped byte is non-ASCII. The long-string loop of base64 blobs and file
    /// text: no masks are extracted, one test per block.
    ///
    /// # Safety
    /// The CPU supports AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn skip_plain_avx2(buf: &[u8], at: usize) -> (usize, bool) {
        let mut p = at;
        let mut seen = _mm256_setzero_si256();
        while p + 64 <= buf.len() {
            // SAFETY: `p + 64 <= buf.len()`: the 64 bytes at `p` are inside `buf`; the
            // caller guarantees AVX2.
            let (a, b) = unsafe { load_block_avx2(buf.as_ptr().add(p)) };
            let stop = _mm256_or_si256(stop_vec_avx2(a), stop_vec_avx2(b));
            if _mm256_testz_si256(stop, stop) == 0 {
                break;
            }
            seen = _mm256_or_si256(seen, _mm256_or_si256(a, b));
            p += 64;
        }
        (p, _mm256_movemask_epi8(seen) != 0)
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

    /// The 64 bytes at `p` as two 32-byte vectors (unaligned loads).
    ///
    /// # Safety
    /// The CPU supports AVX2 and `p..p+64` is readable.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn load_block_avx2(p: *const u8) -> (__m256i, __m256i) {
        // SAFETY: the caller guarantees 64 readable bytes at `p`.
        unsafe {
            (
                _mm256_loadu_si256(p as *const __m256i),
                _mm256_loadu_si256(p.add(32) as *const __m256i),
            )
        }
    }

    /// AVX2 masks of the 64-byte block at `p`.
    ///
    /// # Safety
    /// The CPU supports AVX2 and `p..p+64` is readable.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn block_masks_avx2(p: *const u8) -> (u64, u64) {
        // SAFETY: the caller guarantees AVX2 and 64 readable bytes at `p`.
        let (a, b) = unsafe { load_block_avx2(p) };
        let stop = stop_mask_avx2(a) as u64 | (stop_mask_avx2(b) as u64) << 32;
        let high =
            _mm256_movemask_epi8(a) as u32 as u64 | (_mm256_movemask_epi8(b) as u32 as u64) << 32;
        (stop, high)
    }

    /// Runs a 64-byte block kernel on the (up to) 64 bytes at `at` of `buf`, whatever `at`:
    /// returns the kernel's two masks with the bits of bytes before `at` and past the end
    /// of `buf` clear, and the number `n = min(64, buf.len() - at)` of bytes classified
    /// (`n = 0` and empty masks when `at >= buf.len()`). Frames of 64 bytes or more are read
    /// in place (the tail block is the frame's last 64 bytes, shifted); shorter ones are
    /// copied into a block padded with spaces, which the kernels must not mark.
    ///
    /// # Safety
    /// `kernel(p)` is safe to call whenever `p..p+64` is readable (for the AVX2 kernels:
    /// the CPU supports AVX2).
    #[inline(always)]
    unsafe fn on_block(
        buf: &[u8],
        at: usize,
        kernel: impl Fn(*const u8) -> (u64, u64),
    ) -> (u64, u64, usize) {
        let len = buf.len();
        if at + 64 <= len {
            // `at + 64 <= len`: the 64 bytes at `at` are inside `buf`.
            let (s, h) = kernel(buf.as_ptr().wrapping_add(at));
            return (s, h, 64);
        }
        if at >= len {
            return (0, 0, 0);
        }
        let n = len - at;
        if len >= 64 {
            // Tail: the last 64 bytes of the frame (`len >= 64`, so inside `buf`), with
            // the bits of the bytes before `at` shifted away.
            let (s, h) = kernel(buf.as_ptr().wrapping_add(len - 64));
            let shift = 64 - n;
            return (s >> shift, h >> shift, n);
        }
        // A frame shorter than one block: classify a padded copy, then clear the bits past
        // the end.
        let mut tmp = [b' '; 64];
        tmp[..n].copy_from_slice(&buf[at..]);
        let (s, h) = kernel(tmp.as_ptr());
        let keep = (1u64 << n) - 1;
        (s & keep, h & keep, n)
    }

    /// AVX2 masks of the (up to) 64 bytes at `at` (see [`super::masks_scalar`]).
    ///
    /// # Safety
    /// The CPU supports AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn masks_avx2(buf: &[u8], at: usize) -> (u64, u64, usize) {
        // SAFETY: `on_block` passes pointers to 64 readable bytes; the caller guarantees
        // AVX2.
        unsafe { on_block(buf, at, |p| block_masks_avx2(p)) }
    }

    /// The two 16-byte nibble tables of the simple-escape lookup (see [`escape_vec_avx2`]),
    /// shared by the AVX2 and AVX-512 escape kernels: `(LO, HI)`.
    #[inline(always)]
    fn escape_tables() -> (__m128i, __m128i) {
        const LO: [u8; 16] = [0, 0, 13, 0, 8, 0, 4, 0, 0, 0, 0, 0, 2, 0, 4, 1];
        const HI: [u8; 16] = [0, 0, 1, 0, 0, 2, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0];
        // SAFETY: each table is 16 readable bytes (`loadu`: any alignment); SSE2 is part of
        // the x86-64 baseline.
        unsafe {
            (
                _mm_loadu_si128(LO.as_ptr().cast()),
                _mm_loadu_si128(HI.as_ptr().cast()),
            )
        }
    }

    /// Bits of the backslashes and of the simple-escape bytes (`" \ / b f n r t`) in one
    /// 32-byte vector. The set test is a nibble lookup: bit *k* of `HI[h]` stands for high
    /// nibble `h` (2, 5, 6, 7), `LO[l]` has the bits of the high nibbles that make a member
    /// with low nibble `l`; a byte is a member when the two lookups share a bit.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn escape_vec_avx2(v: __m256i) -> (u32, u32) {
        let (lo_tab, hi_tab) = escape_tables();
        let (lo_tab, hi_tab) = (
            _mm256_broadcastsi128_si256(lo_tab),
            _mm256_broadcastsi128_si256(hi_tab),
        );
        let nib = _mm256_set1_epi8(0x0f);
        let lo = _mm256_and_si256(v, nib);
        let hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), nib);
        let class = _mm256_and_si256(
            _mm256_shuffle_epi8(lo_tab, lo),
            _mm256_shuffle_epi8(hi_tab, hi),
        );
        let not_simple = _mm256_cmpeq_epi8(class, _mm256_setzero_si256());
        let bs = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
        (
            _mm256_movemask_epi8(bs) as u32,
            !(_mm256_movemask_epi8(not_simple) as u32),
        )
    }

    /// AVX2 escape masks of the 64-byte block at `p`: `(backslash, simple)`.
    ///
    /// # Safety
    /// The CPU supports AVX2 and `p..p+64` is readable.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn block_escape_masks_avx2(p: *const u8) -> (u64, u64) {
        // SAFETY: the caller guarantees AVX2 and 64 readable bytes at `p`.
        let (a, b) = unsafe { load_block_avx2(p) };
        let (bs_a, simple_a) = escape_vec_avx2(a);
        let (bs_b, simple_b) = escape_vec_avx2(b);
        (
            bs_a as u64 | (bs_b as u64) << 32,
            simple_a as u64 | (simple_b as u64) << 32,
        )
    }

    /// AVX2 escape masks of the (up to) 64 bytes at `at` (see
    /// [`super::escape_masks_scalar`]).
    ///
    /// # Safety
    /// The CPU supports AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn escape_masks_avx2(buf: &[u8], at: usize) -> (u64, u64) {
        // SAFETY: `on_block` passes pointers to 64 readable bytes; the caller guarantees
        // AVX2. Spaces (the padding of short frames) are neither backslashes nor simple.
        let (bs, simple, _) = unsafe { on_block(buf, at, |p| block_escape_masks_avx2(p)) };
        (bs, simple)
    }

    /// AVX2 string loop (see [`super::string_loop`]), with the block escape step.
    ///
    /// # Safety
    /// The CPU supports AVX2.
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn string_rest_avx2(
        buf: &[u8],
        start: usize,
        from: usize,
    ) -> Result<(usize, bool), crate::error::Error> {
        // SAFETY (closures): this function only runs on CPUs with AVX2.
        super::string_loop(
            buf,
            start,
            from,
            |b, at| unsafe { masks_avx2(b, at) },
            super::utf8_simd,
            Some(|b: &[u8], at| unsafe { escape_masks_avx2(b, at) }),
            |b, at| unsafe { skip_plain_avx2(b, at) },
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
        let high = _mm512_movepi8_mask(v);
        (stop_mask_avx512(v) & k, high & k)
    }

    /// Bits of the bytes that are `"`, `\` or `<= 0x1f` in one 64-byte vector.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn stop_mask_avx512(v: __m512i) -> u64 {
        _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'"' as i8))
            | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8))
            | _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20))
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

    /// AVX-512BW escape masks of the (up to) 64 bytes at `at` (see
    /// [`super::escape_masks_scalar`]): one masked load, the backslash compare and the
    /// simple-escape nibble lookup of [`escape_vec_avx2`] on 64 bytes at once. Bytes past
    /// the end of `buf` load as 0, which is neither a backslash nor a simple escape.
    ///
    /// # Safety
    /// The CPU supports AVX-512F and AVX-512BW.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(crate) unsafe fn escape_masks_avx512(buf: &[u8], at: usize) -> (u64, u64) {
        if at >= buf.len() {
            return (0, 0);
        }
        let n = (buf.len() - at).min(64);
        let k: u64 = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        // SAFETY: a masked load touches (and can fault on) only the lanes whose mask bit is
        // set: the `n <= buf.len() - at` bytes from `at`, inside `buf`. The caller
        // guarantees AVX-512F/BW.
        let v = unsafe { _mm512_maskz_loadu_epi8(k, buf.as_ptr().add(at) as *const i8) };
        // The tables of `escape_vec_avx2`, in each 128-bit lane.
        let (lo_tab, hi_tab) = escape_tables();
        let (lo_tab, hi_tab) = (
            _mm512_broadcast_i32x4(lo_tab),
            _mm512_broadcast_i32x4(hi_tab),
        );
        let nib = _mm512_set1_epi8(0x0f);
        let lo = _mm512_and_si512(v, nib);
        let hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), nib);
        let simple = _mm512_test_epi8_mask(
            _mm512_shuffle_epi8(lo_tab, lo),
            _mm512_shuffle_epi8(hi_tab, hi),
        );
        let bs = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8));
        (bs, simple)
    }

    /// [`skip_plain_avx2`] with one 64-byte load and mask compares per block.
    ///
    /// # Safety
    /// The CPU supports AVX-512F and AVX-512BW.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(crate) unsafe fn skip_plain_avx512(buf: &[u8], at: usize) -> (usize, bool) {
        let mut p = at;
        let mut seen = _mm512_setzero_si512();
        while p + 64 <= buf.len() {
            // SAFETY: `p + 64 <= buf.len()`: the 64 bytes at `p` are inside `buf`; the
            // caller guarantees AVX-512F/BW.
            let v = unsafe { _mm512_loadu_si512(buf.as_ptr().add(p).cast()) };
            if stop_mask_avx512(v) != 0 {
                break;
            }
            seen = _mm512_or_si512(seen, v);
            p += 64;
        }
        (p, _mm512_movepi8_mask(seen) != 0)
    }

    /// AVX-512 string loop (see [`super::string_loop`]), with the block escape step and the
    /// plain-block skip of the AVX2 loop on 64-byte vectors.
    ///
    /// # Safety
    /// The CPU supports AVX-512F and AVX-512BW.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(crate) unsafe fn string_rest_avx512(
        buf: &[u8],
        start: usize,
        from: usize,
    ) -> Result<(usize, bool), crate::error::Error> {
        // SAFETY (closures): this function only runs on CPUs with AVX-512F/BW.
        super::string_loop(
            buf,
            start,
            from,
            |b, at| unsafe { masks_avx512(b, at) },
            super::utf8_simd,
            Some(|b: &[u8], at| unsafe { escape_masks_avx512(b, at) }),
            |b, at| unsafe { skip_plain_avx512(b, at) },
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

    /// `escaped_after_runs` by walking the bits one by one.
    fn escaped_after_runs_walk(bs: u64, n: usize) -> (u64, bool) {
        let mut odd = 0u64;
        let mut pending = false; // the byte at `i` is escaped
        for i in 0..n {
            let is_bs = bs >> i & 1 == 1;
            if pending {
                if !is_bs {
                    odd |= 1 << i;
                }
                pending = false;
            } else if is_bs {
                pending = true;
            }
        }
        (odd, pending)
    }

    #[test]
    fn escaped_after_runs_matches_a_bit_walk() {
        // Every mask of 1..=16 bytes, then long masks: random, and runs at the block ends.
        for n in 1..=16usize {
            for bs in 0..(1u64 << n) {
                assert_eq!(
                    escaped_after_runs(bs, n),
                    escaped_after_runs_walk(bs, n),
                    "bs {bs:#b} n {n}"
                );
            }
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Dense and sparse backslash patterns.
            let bs = if round % 3 == 0 { x & (x >> 1) } else { x };
            let n = 1 + (round as usize % 64);
            let bs = if n == 64 { bs } else { bs & ((1u64 << n) - 1) };
            assert_eq!(
                escaped_after_runs(bs, n),
                escaped_after_runs_walk(bs, n),
                "bs {bs:#x} n {n}"
            );
        }
        for len in 0..=64usize {
            let run = if len == 64 {
                u64::MAX
            } else {
                (1u64 << len) - 1
            };
            for bs in [
                run,
                run << (64 - len.max(1)) | 1,
                !run,
                run.rotate_right(len as u32 / 2),
            ] {
                assert_eq!(escaped_after_runs(bs, 64), escaped_after_runs_walk(bs, 64));
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn escape_masks_agree_with_scalar_at_every_offset() {
        let all: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        for buf in [&all[..], &all[..50], &all[..64], &all[..65], &all[..1], &[]] {
            for at in 0..=buf.len() {
                let want = escape_masks_scalar(buf, at);
                if Backend::Avx2.is_available() {
                    // SAFETY: AVX2 checked above.
                    let got = unsafe { x86::escape_masks_avx2(buf, at) };
                    assert_eq!(got, want, "avx2 at {at} of {}", buf.len());
                }
                if Backend::Avx512.is_available() {
                    // SAFETY: AVX-512 checked above.
                    let got = unsafe { x86::escape_masks_avx512(buf, at) };
                    assert_eq!(got, want, "avx512 at {at} of {}", buf.len());
                }
            }
        }
    }

    /// The plain-block skips stop at the first block holding a quote, backslash or control
    /// byte (or not fitting before the end) and report non-ASCII bytes only of the blocks
    /// they skipped, for a stop byte at every position of a 300-byte buffer.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn plain_skips_agree_with_a_block_walk() {
        let walk = |buf: &[u8], at: usize| {
            let mut p = at;
            let mut high = false;
            while p + 64 <= buf.len() {
                let block = &buf[p..p + 64];
                if block.iter().any(|&b| b == b'"' || b == b'\\' || b < 0x20) {
                    break;
                }
                high |= block.iter().any(|&b| b >= 0x80);
                p += 64;
            }
            (p, high)
        };
        let mut buf = vec![b'a'; 300];
        for stop in [None, Some(b'"'), Some(b'\\'), Some(0x00), Some(0x1f)] {
            for pos in 0..buf.len() {
                buf.fill(b'a');
                buf[(pos + 150) % 300] = 0xe9;
                if let Some(s) = stop {
                    buf[pos] = s;
                }
                for at in [0, 1, 63, 64, 100] {
                    let want = walk(&buf, at);
                    if Backend::Avx2.is_available() {
                        // SAFETY: AVX2 checked above.
                        let got = unsafe { x86::skip_plain_avx2(&buf, at) };
                        assert_eq!(got, want, "avx2 from {at}, stop at {pos}");
                    }
                    if Backend::Avx512.is_available() {
                        // SAFETY: AVX-512 checked above.
                        let got = unsafe { x86::skip_plain_avx512(&buf, at) };
                        assert_eq!(got, want, "avx512 from {at}, stop at {pos}");
                    }
                }
            }
        }
    }

    /// Pieces that string content is made of here: plain text, every escape (good, bad,
    /// truncated), backslash runs, quotes, control bytes, UTF-8 (good and bad).
    const PIECES: &[&[u8]] = &[
        b"a",
        b"plain text ",
        b"0123456789abcdef0123456789abcdef",
        b"\\n",
        b"\\\"",
        b"\\\\",
        b"\\/",
        b"\\b",
        b"\\f",
        b"\\r",
        b"\\t",
        b"\\u00e9",
        b"\\ud83d\\ude00",
        b"\\ud800",
        b"\\udc00x",
        b"\\u12",
        b"\\q",
        b"\\",
        b"\\\\\\",
        b"\"",
        b"\x01",
        b"\x1f",
        b"\n",
        b"\xc3\xa9",
        b"\xe2\x82\xac",
        b"\xff",
        b"\xc3",
        b"\\\xc3\xa9",
        b"\\\x01",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Every backend's string walk (AVX2 and AVX-512 with the block escape step and
        /// plain-block skip) gives the scalar per-escape walk's result — closing quote and
        /// escaped flag, or error kind and offset — for strings built from escape-dense
        /// pieces, from every start offset, with and without a closing quote and content
        /// after it.
        #[test]
        fn string_walk_agrees_with_scalar(
            picks in proptest::collection::vec(0..PIECES.len(), 0..120),
            repeat in 1usize..4,
            lead in 0usize..70,
            close in proptest::bool::ANY,
        ) {
            let mut buf = vec![b'x'; lead];
            for _ in 0..repeat {
                for &k in &picks {
                    buf.extend_from_slice(PIECES[k]);
                }
            }
            if close {
                buf.extend_from_slice(b"\",\"tail\\n\"}");
            }
            for b in Backend::available() {
                for at in [0, lead / 2, lead] {
                    proptest::prop_assert_eq!(
                        b.string_rest(&buf, at, at),
                        Backend::Scalar.string_rest(&buf, at, at),
                        "{:?} at {}", b, at
                    );
                }
            }
        }
    }
}
