//! Block kernels: classify a frame 64 bytes at a time.
//!
//! The only question the walk asks the kernels is "from byte `i` on, where is the next byte
//! that ends a run of plain string content — a `"`, a `\` or a control byte `< 0x20` — and
//! was any byte before it non-ASCII (`>= 0x80`)?". Long strings (base64 blobs, file text,
//! embedded JSON) are where the bytes of MCP frames are, so this is the loop that runs at
//! block speed; the structure-dense parts are handled by the scalar walk in `cursor`.
//!
//! Every kernel computes the same two 64-bit masks per block (bit *i* = byte *i*):
//! `stop` (`"`, `\`, `< 0x20`) and `high` (`>= 0x80`), so all backends give identical
//! results; the tail of a frame shorter than one block is handled by the same scalar code
//! in every backend (AVX-512 uses a masked load instead, which reads no byte past the end).

/// Which block kernel the scan uses.
///
/// All backends give bit-identical results; they differ only in speed. [`Backend::detect`]
/// picks the best one this CPU supports (AVX-512BW, then AVX2, then scalar); with the cargo
/// feature `force-scalar` it always returns [`Backend::Scalar`].
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
    /// Every backend, in order of preference (fastest last).
    pub const ALL: [Backend; 3] = [Backend::Scalar, Backend::Avx2, Backend::Avx512];

    /// The best backend this CPU supports, detected at run time (cheap: the standard
    /// library caches the CPUID result). Always [`Backend::Scalar`] with the feature
    /// `force-scalar` or on non-x86-64 targets.
    #[inline]
    pub fn detect() -> Backend {
        if cfg!(feature = "force-scalar") {
            return Backend::Scalar;
        }
        if Backend::Avx512.is_available() {
            Backend::Avx512
        } else if Backend::Avx2.is_available() {
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

    /// From `from` on, the index of the first byte of `buf` that is `"`, `\` or `< 0x20`
    /// (`buf.len()` when there is none), and whether any byte in `from..index` is
    /// `>= 0x80`.
    ///
    /// `self` must have passed [`Backend::checked`] (the parser does this once).
    #[inline]
    pub(crate) fn string_stop(self, buf: &[u8], from: usize) -> (usize, bool) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => {
                // SAFETY: `self` is `Avx2` only after `checked()`/`detect()` confirmed the
                // CPU supports AVX2 (see `Parser::with_backend`).
                unsafe { x86::string_stop_avx2(buf, from) }
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => {
                // SAFETY: `self` is `Avx512` only after `checked()`/`detect()` confirmed the
                // CPU supports AVX-512F and AVX-512BW.
                unsafe { x86::string_stop_avx512(buf, from) }
            }
            _ => string_stop_scalar(buf, from),
        }
    }
}

/// Scalar kernel: the same masks as the SIMD kernels, one byte at a time, in 64-byte blocks.
#[inline]
pub(crate) fn string_stop_scalar(buf: &[u8], from: usize) -> (usize, bool) {
    let mut high = false;
    let mut i = from;
    while i < buf.len() {
        let b = buf[i];
        if b == b'"' || b == b'\\' || b < 0x20 {
            return (i, high);
        }
        high |= b >= 0x80;
        i += 1;
    }
    (i, high)
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

    /// AVX2 kernel of [`super::Backend::string_stop`].
    ///
    /// # Safety
    /// The CPU supports AVX2.
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn string_stop_avx2(buf: &[u8], from: usize) -> (usize, bool) {
        let mut i = from;
        let mut high = 0u64;
        while i + 64 <= buf.len() {
            // SAFETY: `i + 64 <= buf.len()`, so the 64 bytes at `i` are inside `buf`; the
            // caller guarantees AVX2.
            let (stop, hi) = unsafe { block_masks_avx2(buf.as_ptr().add(i)) };
            if stop != 0 {
                let t = stop.trailing_zeros();
                high |= hi & ((1u64 << t) - 1);
                return (i + t as usize, high != 0);
            }
            high |= hi;
            i += 64;
        }
        let (j, h) = super::string_stop_scalar(buf, i);
        (j, h || high != 0)
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

    /// AVX-512 kernel of [`super::Backend::string_stop`].
    ///
    /// # Safety
    /// The CPU supports AVX-512F and AVX-512BW.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(crate) unsafe fn string_stop_avx512(buf: &[u8], from: usize) -> (usize, bool) {
        let mut i = from;
        let mut high = 0u64;
        while i < buf.len() {
            let n = (buf.len() - i).min(64);
            // SAFETY: `i < buf.len()` and `n <= buf.len() - i`, so the `n` bytes read are
            // inside `buf`; the caller guarantees AVX-512F/BW.
            let (stop, hi) = unsafe { block_masks_avx512(buf.as_ptr().add(i), n) };
            if stop != 0 {
                let t = stop.trailing_zeros();
                high |= hi & ((1u64 << t) - 1);
                return (i + t as usize, high != 0);
            }
            high |= hi;
            i += n;
        }
        (buf.len(), high != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_all(buf: &[u8]) {
        for from in 0..=buf.len() {
            let want = string_stop_scalar(buf, from);
            for b in Backend::available() {
                assert_eq!(
                    b.string_stop(buf, from),
                    want,
                    "{b:?} from {from} on {buf:?}"
                );
            }
        }
    }

    #[test]
    fn kernels_agree_with_scalar_at_every_offset() {
        let mut buf = vec![b'a'; 200];
        check_all(&buf);
        for pos in [0, 1, 31, 32, 63, 64, 65, 127, 128, 199] {
            for stop in [b'"', b'\\', 0u8, 0x1f, 0x0a] {
                buf.fill(b'a');
                buf[pos] = stop;
                check_all(&buf);
                if pos > 3 {
                    buf[pos - 3] = 0xc3;
                    check_all(&buf);
                }
            }
        }
        // every byte value in every lane position
        let all: Vec<u8> = (0..=255u8).chain(0..=255u8).collect();
        check_all(&all);
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
