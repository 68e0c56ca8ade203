//! The validating walk's tokeniser: a cursor over one frame that validates strings, numbers,
//! literals and whole values (iteratively, with a depth limit) while recording nothing but
//! positions. Safe code; the block kernels do the bulk string scanning.

use super::block::Backend;
use crate::error::{Error, ErrorKind};

/// A string token: `start..end` is the raw text between the quotes (`end` is the closing
/// quote's offset); `escaped` when it holds at least one backslash escape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StrTok {
    pub start: usize,
    pub end: usize,
    pub escaped: bool,
}

/// Container kinds on the depth stack, one bit per level (1 = object): the innermost 64
/// levels in a shift register (bit 0 = the innermost), deeper ones spilled to a `Vec` the
/// walk keeps apart (only reachable when a container nests more than 64 levels inside the
/// one being skipped), so that the register's two words are not tied to the `Vec`'s memory.
struct BitStack {
    bits: u64,
    len: usize,
}

impl BitStack {
    #[inline]
    fn new() -> Self {
        Self { bits: 0, len: 0 }
    }
    #[inline]
    fn push(&mut self, object: bool, spill: &mut Vec<bool>) {
        if self.len >= 64 {
            spill_top(spill, self.bits);
        }
        self.bits = self.bits << 1 | u64::from(object);
        self.len += 1;
    }
    #[inline]
    fn top_is_object(&self) -> bool {
        self.bits & 1 == 1
    }
    #[inline]
    fn pop(&mut self, spill: &mut Vec<bool>) {
        self.bits >>= 1;
        self.len -= 1;
        if self.len >= 64 {
            self.bits |= u64::from(unspill(spill)) << 63;
        }
    }
}

#[cold]
#[inline(never)]
fn spill_top(spill: &mut Vec<bool>, bits: u64) {
    spill.push(bits >> 63 == 1);
}

#[cold]
#[inline(never)]
fn unspill(spill: &mut Vec<bool>) -> bool {
    spill.pop().unwrap_or(false)
}

/// A read-only cursor over one frame.
pub(crate) struct Cursor<'f> {
    pub buf: &'f [u8],
    /// The offset of the next byte to read. The walkers outside this module move it only
    /// past bytes the cursor validated or bytes they compared equal to ASCII (a structural
    /// byte, a constant key such as `"jsonrpc":"2.0"`), never past anything else:
    /// [`Cursor::accepted_text`] relies on it.
    pub pos: usize,
    backend: Backend,
    max_depth: usize,
    max_number_len: usize,
    /// `buf.len() - 15` (0 when shorter): the short-string loop may load 16 bytes at any
    /// offset below it. 0 for the scalar backend, so that its strings never enter the SSE2
    /// loop (which then needs no test of the backend on its hot path).
    sse2_end: usize,
    /// The first policy error (a duplicate key) found so far; the walk goes on to the end of
    /// the frame so that a later syntax error takes precedence (-32700 before -32600).
    pub deferred: Option<Error>,
}

#[inline]
fn err(kind: ErrorKind, at: usize) -> Error {
    Error::new(kind, at)
}

#[inline]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// SWAR: `0x01` in every byte of a word.
pub(crate) const ONES: u64 = 0x0101_0101_0101_0101;
/// SWAR: bit 7 of every byte of a word.
pub(crate) const HIGH: u64 = 0x8080_8080_8080_8080;

/// SWAR: bit 7 set in the lowest byte of `x` (little-endian) that is zero; bits above it may
/// be false positives (borrow propagation), so the result is non-zero exactly when some byte
/// is zero. `zero_bytes(w ^ ONES * b)` finds the byte value `b` in `w`.
#[inline]
pub(crate) fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x & HIGH
}

/// SWAR: the lowest set bit (bit 7 of a byte) marks the first byte of `w` (little-endian)
/// that is `"`, `\\`, `< 0x20` or `>= 0x80`. Bits above the lowest may be false positives
/// (borrow propagation); the lowest is exact.
#[inline]
fn special_bytes(w: u64) -> u64 {
    let quote = zero_bytes(w ^ (ONES * b'"' as u64));
    let backslash = zero_bytes(w ^ (ONES * b'\\' as u64));
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    quote | backslash | control | (w & HIGH)
}

/// The offset of the first byte at or after `pos` that is not JSON whitespace (`buf.len()`
/// when there is none). Out of line and free of `self`, so that the walkers calling it keep
/// the cursor's fields in registers across the call.
#[inline(never)]
fn ws_end(buf: &[u8], mut pos: usize) -> usize {
    while let Some(&b) = buf.get(pos) {
        if !is_ws(b) {
            break;
        }
        pos += 1;
    }
    pos
}

/// `t`, `f` or `n` (the first byte of a literal), as one bit test.
#[inline(always)]
fn is_literal_start(c: u8) -> bool {
    const LITERALS: u32 = 1 << (b't' & 0x1f) | 1 << (b'f' & 0x1f) | 1 << (b'n' & 0x1f);
    c & 0xe0 == 0x60 && LITERALS >> (c & 0x1f) & 1 == 1
}

#[inline]
fn hex4(b: &[u8]) -> Option<u16> {
    let mut v: u16 = 0;
    for &c in b.get(..4)? {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return None,
        };
        v = v << 4 | d as u16;
    }
    Some(v)
}

/// What one 16-byte step of the short-string SSE2 path found.
#[cfg(target_arch = "x86_64")]
enum Sse2Step {
    /// No special byte in the 16 bytes.
    Plain,
    /// The closing quote, at this offset (the first special byte).
    Quote(usize),
    /// Another special byte (backslash, control or non-ASCII) first, at this offset.
    Special(usize),
}

/// One 16-byte step of the short-string SSE2 path at `p`.
///
/// # Safety
/// `p + 16 <= buf.len()`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn sse2_step(buf: &[u8], p: usize) -> Sse2Step {
    // SAFETY: the caller guarantees `p + 16 <= buf.len()`.
    let m = unsafe { super::block::x86::special_mask_sse2_unchecked(buf, p) };
    if m == 0 {
        return Sse2Step::Plain;
    }
    let i = p + m.trailing_zeros() as usize;
    // SAFETY: `i < p + 16 <= buf.len()` (a bit of the 16-byte mask at `p`).
    if unsafe { *buf.get_unchecked(i) } == b'"' {
        Sse2Step::Quote(i)
    } else {
        Sse2Step::Special(i)
    }
}

impl<'f> Cursor<'f> {
    pub fn new(buf: &'f [u8], backend: Backend, max_depth: usize, max_number_len: usize) -> Self {
        Self {
            buf,
            pos: 0,
            backend,
            max_depth,
            max_number_len,
            sse2_end: if backend == Backend::Scalar {
                0
            } else {
                buf.len().saturating_sub(15)
            },
            deferred: None,
        }
    }

    /// The whole frame as text, for a walk that read the frame's root value from offset 0
    /// without an error: `None` unless the cursor is then at the frame's end.
    ///
    /// A frame the walk accepts is valid UTF-8 as a whole: every string token was checked by
    /// [`Cursor::string`] (UTF-8, escapes, control bytes), and every byte outside strings was
    /// matched as ASCII (structural byte, whitespace, number or literal character, or a
    /// byte of an ASCII constant the caller compared; see [`Cursor::pos`]). So the envelope
    /// hands out its string members as `&str` without a second UTF-8 pass over them.
    pub fn accepted_text(&self) -> Option<&'f str> {
        if self.pos != self.buf.len() {
            return None;
        }
        // The claim re-checked in debug builds (the fuzz targets build with debug assertions):
        // a walker that broke the invariant on `pos` panics here. Not under the `oracle`
        // feature, which the benches enable too; the release-mode tests check every accepted
        // frame through the oracle's `check_frame` instead.
        #[cfg(debug_assertions)]
        assert!(
            std::str::from_utf8(self.buf).is_ok(),
            "walk accepted non-UTF-8"
        );
        // SAFETY: the caller walked the root value from offset 0 without an error and the
        // cursor is at the frame's end, so every byte of the frame was validated by this
        // cursor's string, number, literal and structural checks or compared equal to ASCII
        // by the walker (the invariant on `pos`): the frame is valid UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(self.buf) })
    }

    /// Records a policy error to report once the frame has been read to its end (the first
    /// one wins).
    #[cold]
    pub fn defer(&mut self, e: Error) {
        if self.deferred.is_none() {
            self.deferred = Some(e);
        }
    }

    /// The byte at the cursor, or `UnexpectedEnd` at the frame end.
    #[inline]
    pub fn peek(&self) -> Result<u8, Error> {
        match self.buf.get(self.pos) {
            Some(&b) => Ok(b),
            None => Err(err(ErrorKind::UnexpectedEnd, self.buf.len())),
        }
    }

    /// Skips JSON whitespace (space, tab, LF, CR only: RFC 8259 §2).
    #[inline(always)]
    pub fn skip_ws(&mut self) {
        // Compact frames (the common case) have no whitespace between tokens: one compare.
        match self.buf.get(self.pos) {
            Some(&b) if b > b' ' => {}
            None => {}
            Some(_) => self.skip_ws_slow(),
        }
    }

    #[inline(always)]
    fn skip_ws_slow(&mut self) {
        self.pos = ws_end(self.buf, self.pos);
    }

    /// Skips whitespace and returns the next byte (error at the end of the frame).
    #[inline(always)]
    pub fn next_token(&mut self) -> Result<u8, Error> {
        match self.buf.get(self.pos) {
            Some(&b) if b > b' ' => Ok(b),
            _ => {
                self.skip_ws_slow();
                self.peek()
            }
        }
    }

    /// After an object member: consumes `,` (and the whitespace after it) and returns
    /// `Ok(true)` when another member follows, consumes `}` and returns `Ok(false)` at the end
    /// of the object; any other byte is [`ErrorKind::UnexpectedByte`].
    #[inline(always)]
    pub fn member_separator(&mut self) -> Result<bool, Error> {
        match self.next_token()? {
            b',' => {
                self.pos += 1;
                self.skip_ws();
                Ok(true)
            }
            b'}' => {
                self.pos += 1;
                Ok(false)
            }
            _ => Err(err(ErrorKind::UnexpectedByte, self.pos)),
        }
    }

    /// Expects `want` after optional whitespace and consumes it.
    #[inline]
    pub fn expect(&mut self, want: u8) -> Result<(), Error> {
        let b = self.next_token()?;
        if b != want {
            return Err(err(ErrorKind::UnexpectedByte, self.pos));
        }
        self.pos += 1;
        Ok(())
    }

    /// Checks the container depth `depth` (1 = the root container) against the limit.
    #[inline]
    pub fn check_depth(&self, depth: usize) -> Result<(), Error> {
        if depth >= self.max_depth {
            return Err(err(ErrorKind::DepthLimit, self.pos));
        }
        Ok(())
    }

    /// Validates the string token at the cursor (which must be at its opening `"`).
    #[inline(always)]
    pub fn string(&mut self) -> Result<StrTok, Error> {
        self.string_after(0)
    }

    /// [`Cursor::string`] for a string whose first `plain` bytes after the opening quote
    /// the caller has already compared with a constant free of `"`, `\`, control and
    /// non-ASCII bytes (e.g. the `io.modelcontextprotocol/` prefix of `_meta` keys): the
    /// scan starts after them. `plain` must not reach past the frame's end.
    #[inline(always)]
    pub fn string_after(&mut self, plain: usize) -> Result<StrTok, Error> {
        debug_assert_eq!(self.buf[self.pos], b'"');
        let buf = self.buf;
        let start = self.pos + 1;
        debug_assert!(start + plain <= buf.len());
        debug_assert!(
            buf[start..start + plain]
                .iter()
                .all(|&b| (0x20..0x80).contains(&b) && b != b'"' && b != b'\\')
        );
        // Short-string fast path (SSE2, 16 bytes per step; SSE2 is part of the x86-64
        // baseline): most keys and values are short plain ASCII and end within 64 bytes
        // (`_meta` keys such as `io.modelcontextprotocol/clientCapabilities` are 40-50;
        // 64 rather than 32 saves 2.8 % of a small frame's instructions, PERF.md §9).
        // Not used by the scalar backend, which stays the portable oracle.
        #[cfg(target_arch = "x86_64")]
        {
            let mut p = start + plain;
            // `sse2_end` is 0 for the scalar backend: the loop does not run for it, and the
            // backend is tested only after the loop.
            let end = self.sse2_end;
            // The first 16 bytes are tested before the loop's limit `min(p + 64, end)` is
            // computed (most strings end there). When they hold a special byte that is not
            // the closing quote, `end` stands in for the limit in the tail test below: that
            // byte is below `p + 16`, so it is at or above both limits or below both.
            let mut lim = end;
            if p < end {
                // SAFETY: `p < sse2_end = buf.len() - 15`, so `p + 16 <= buf.len()`.
                match unsafe { sse2_step(buf, p) } {
                    Sse2Step::Quote(i) => return Ok(self.plain_string_end(start, i)),
                    Sse2Step::Special(i) => p = i,
                    Sse2Step::Plain => {
                        lim = (p + 64).min(end);
                        p += 16;
                        while p < lim {
                            // SAFETY: `p < lim <= sse2_end = buf.len() - 15`, so
                            // `p + 16 <= buf.len()`.
                            match unsafe { sse2_step(buf, p) } {
                                Sse2Step::Quote(i) => return Ok(self.plain_string_end(start, i)),
                                Sse2Step::Special(i) => {
                                    p = i;
                                    break;
                                }
                                Sse2Step::Plain => p += 16,
                            }
                        }
                    }
                }
            }
            if self.backend != Backend::Scalar {
                if p >= lim && p + 16 > buf.len() && buf.len() >= 16 && p < buf.len() {
                    // Fewer than 16 bytes left (a string near the end of the frame): one load
                    // of the frame's last 16 bytes.
                    let m = super::block::x86::special_mask_sse2_tail(buf, p);
                    if m != 0 {
                        let i = p + m.trailing_zeros() as usize;
                        if buf.get(i) == Some(&b'"') {
                            return Ok(self.plain_string_end(start, i));
                        }
                        p = i;
                    } else {
                        p = buf.len();
                    }
                }
                let (end, escaped) = self.backend.string_rest(buf, start, p.min(buf.len()))?;
                self.pos = end + 1;
                return Ok(StrTok {
                    start,
                    end,
                    escaped,
                });
            }
        }
        // Short-string fast path (SWAR, 8 bytes per step): most keys and values are short
        // plain ASCII and end within a few words.
        let mut p = start + plain;
        let lim = (p + 32).min(buf.len().saturating_sub(7));
        while p < lim {
            let w = u64::from_le_bytes(buf[p..p + 8].try_into().unwrap_or([0; 8]));
            let m = special_bytes(w);
            if m != 0 {
                let i = p + (m.trailing_zeros() / 8) as usize;
                if buf[i] == b'"' {
                    self.pos = i + 1;
                    return Ok(StrTok {
                        start,
                        end: i,
                        escaped: false,
                    });
                }
                p = i;
                break;
            }
            p += 8;
        }
        let (end, escaped) = self.backend.string_rest(buf, start, p)?;
        self.pos = end + 1;
        Ok(StrTok {
            start,
            end,
            escaped,
        })
    }

    /// Validates the number token at the cursor (RFC 8259 §6 grammar, length limit, f64
    /// overflow).
    #[inline]
    pub fn number(&mut self) -> Result<(), Error> {
        // Fast path: a plain integer `-?[1-9][0-9]*` of at most 300 digits (cannot overflow
        // f64) within the length limit; anything else takes the full path below.
        let buf = self.buf;
        let start = self.pos;
        let mut p = start + usize::from(buf[start] == b'-');
        if matches!(buf.get(p), Some(b'1'..=b'9')) {
            p += 1;
            while buf.get(p).is_some_and(u8::is_ascii_digit) {
                p += 1;
            }
            if !matches!(buf.get(p), Some(b'.' | b'e' | b'E'))
                && p - start <= 300
                && p - start <= self.max_number_len
            {
                self.pos = p;
                return Ok(());
            }
        }
        self.pos = self.number_full()?;
        Ok(())
    }

    /// The full number path: grammar, length limit, f64 overflow. Returns the offset after
    /// the number (takes `&self` so that callers keep the cursor's fields in registers).
    #[inline(never)]
    fn number_full(&self) -> Result<usize, Error> {
        let buf = self.buf;
        let start = self.pos;
        let mut p = start;
        let digit = |p: usize| buf.get(p).is_some_and(u8::is_ascii_digit);
        let bad = |p: usize| {
            if p >= buf.len() {
                err(ErrorKind::UnexpectedEnd, buf.len())
            } else {
                err(ErrorKind::InvalidNumber, p)
            }
        };
        if buf.get(p) == Some(&b'-') {
            p += 1;
        }
        let int_start = p;
        match buf.get(p) {
            Some(b'0') => p += 1,
            Some(b'1'..=b'9') => {
                p += 1;
                while digit(p) {
                    p += 1;
                }
            }
            _ => return Err(bad(p)),
        }
        let int_end = p;
        let mut frac = None;
        if buf.get(p) == Some(&b'.') {
            p += 1;
            let fs = p;
            if !digit(p) {
                return Err(bad(p));
            }
            while digit(p) {
                p += 1;
            }
            frac = Some((fs, p));
        }
        let mut exp: i64 = 0;
        let has_exp = matches!(buf.get(p), Some(b'e' | b'E'));
        if has_exp {
            p += 1;
            let mut neg = false;
            if let Some(&s @ (b'+' | b'-')) = buf.get(p) {
                neg = s == b'-';
                p += 1;
            }
            if !digit(p) {
                return Err(bad(p));
            }
            while digit(p) {
                if exp < 1_000_000_000 {
                    exp = exp * 10 + (buf[p] - b'0') as i64;
                }
                p += 1;
            }
            if neg {
                exp = -exp;
            }
        }
        if digit(p)
            && buf[int_start] == b'0'
            && int_end == int_start + 1
            && frac.is_none()
            && !has_exp
        {
            // `01`: a leading zero followed by more digits.
            return Err(err(ErrorKind::InvalidNumber, p));
        }
        if p - start > self.max_number_len {
            return Err(err(ErrorKind::NumberTooLong, start));
        }
        // f64 overflow pre-check: decimal magnitude of the first significant digit.
        let int_digits = int_end - int_start;
        let mag = if buf[int_start] != b'0' {
            Some(int_digits as i64 - 1 + exp)
        } else {
            frac.and_then(|(fs, fe)| {
                buf[fs..fe]
                    .iter()
                    .position(|&c| c != b'0')
                    .map(|z| -(z as i64) - 1 + exp)
            })
        };
        if let Some(m) = mag {
            if m > 308 {
                return Err(err(ErrorKind::NumberOutOfRange, start));
            }
            if m == 308 {
                // Out of range when either reading overflows: the exactly rounded one, and
                // the one serde_json makes without its `float_roundtrip` feature (the
                // default, used by most Rust MCP backends), which rounds twice and so
                // overflows on some values just below f64::MAX (trial finding: 1,960 of
                // 3,008 mantissas 1.79769313486231[5-9]…e308 were read differently).
                let text = std::str::from_utf8(&buf[start..p]).unwrap_or("0");
                if text.parse::<f64>().map_or(true, f64::is_infinite)
                    || two_step_overflows(&buf[start..p])
                {
                    return Err(err(ErrorKind::NumberOutOfRange, start));
                }
            }
        }
        Ok(p)
    }

    /// Validates `true`, `false` or `null` at the cursor.
    pub fn literal(&mut self) -> Result<(), Error> {
        let want: &[u8] = match self.buf[self.pos] {
            b't' => b"true",
            b'f' => b"false",
            _ => b"null",
        };
        let have = &self.buf[self.pos..];
        let n = want.len().min(have.len());
        if have[..n] != want[..n] {
            let k = have.iter().zip(want).position(|(a, b)| a != b).unwrap_or(0);
            return Err(err(ErrorKind::InvalidLiteral, self.pos + k));
        }
        if n < want.len() {
            return Err(err(ErrorKind::UnexpectedEnd, self.buf.len()));
        }
        self.pos += want.len();
        Ok(())
    }

    /// Validates one whole value starting at the cursor (after optional whitespace), which
    /// sits inside `depth` open containers. Iterative: nesting costs one bit per level.
    /// Returns the value's first byte (its type).
    #[inline(always)]
    pub fn skip_value(&mut self, depth: usize) -> Result<u8, Error> {
        let first = self.next_token()?;
        match first {
            b'"' => {
                self.string()?;
            }
            b'-' | b'0'..=b'9' => {
                self.number()?;
            }
            b't' | b'f' | b'n' => self.literal()?,
            // `{}` / `[]` (e.g. `"clientCapabilities":{}`): no container walk. `{` + 2 is
            // `}` and `[` + 2 is `]`.
            b'{' | b'[' if self.buf.get(self.pos + 1) == Some(&(first + 2)) => {
                self.check_depth(depth + 1)?;
                self.pos += 2;
            }
            b'{' | b'[' => self.skip_container(depth)?,
            _ => return Err(err(ErrorKind::UnexpectedByte, self.pos)),
        }
        Ok(first)
    }

    /// Validates the container at the cursor (`{` or `[`) and everything in it.
    #[inline(never)]
    fn skip_container(&mut self, depth: usize) -> Result<(), Error> {
        let mut stack = BitStack::new();
        let mut spill = Vec::new();
        // `check_depth(depth + stack.len + 1)` as one compare: how many containers may be
        // open in this walk.
        let room = self.max_depth.saturating_sub(depth + 1);
        // The kind of the innermost open container (cached: read after every value).
        let mut object = false;
        let mut c = self.buf[self.pos];
        // Opens the container (`{` when `$object`, else `[`) whose opening bracket is at
        // `self.pos`: checks the depth room, pushes its kind, and goes on with its first member
        // (key read) or element; an empty one is closed at once. One body for both kinds, with
        // the kind a constant in each expansion (the two arms stay separate branches, so
        // neither tests the kind at run time).
        macro_rules! open {
            ($object:literal, $close:literal) => {{
                if stack.len >= room {
                    return Err(err(ErrorKind::DepthLimit, self.pos));
                }
                object = $object;
                stack.push($object, &mut spill);
                self.pos += 1;
                let n = self.next_token()?;
                if n != $close {
                    c = if $object {
                        self.key_at(n)?;
                        self.next_token()?
                    } else {
                        n
                    };
                    continue;
                }
                self.pos += 1;
                stack.pop(&mut spill);
                if stack.len == 0 {
                    return Ok(());
                }
                object = stack.top_is_object();
            }};
        }
        loop {
            // `c` is the first byte of a value at `self.pos` (a member's key is consumed).
            // Strings first, then `{` and `[` in arms of their own: each knows its kind
            // (and whether a key follows) where it is, with no second test of it.
            if c == b'"' {
                self.string()?;
            } else {
                match c {
                    b'{' => open!(true, b'}'),
                    b'[' => open!(false, b']'),
                    b'-' | b'0'..=b'9' => {
                        self.number()?;
                    }
                    // A bit test rather than three cases: with `[`, `f`, `n` and `t` as cases
                    // the compiler makes a jump table of them, whose one indirect branch
                    // mispredicts at every change of value kind.
                    _ if is_literal_start(c) => self.literal()?,
                    _ => return Err(err(ErrorKind::UnexpectedByte, self.pos)),
                }
            }
            // After a value inside an open container: closing brackets, then `,` and the
            // next member/element.
            loop {
                let n = self.next_token()?;
                if n == b',' {
                    self.pos += 1;
                    if object {
                        let k = self.next_token()?;
                        self.key_at(k)?;
                    }
                    c = self.next_token()?;
                    break;
                }
                if n != if object { b'}' } else { b']' } {
                    return Err(err(ErrorKind::UnexpectedByte, self.pos));
                }
                self.pos += 1;
                stack.pop(&mut spill);
                if stack.len == 0 {
                    return Ok(());
                }
                object = stack.top_is_object();
            }
        }
    }

    /// The token of a string without escapes whose closing quote is at `quote`; the cursor
    /// moves past the quote.
    #[inline(always)]
    fn plain_string_end(&mut self, start: usize, quote: usize) -> StrTok {
        self.pos = quote + 1;
        StrTok {
            start,
            end: quote,
            escaped: false,
        }
    }

    /// [`Cursor::key`] when the caller has already read the byte at the cursor (`b`).
    #[inline(always)]
    fn key_at(&mut self, b: u8) -> Result<StrTok, Error> {
        if b != b'"' {
            return Err(err(ErrorKind::UnexpectedByte, self.pos));
        }
        let k = self.string_after(0)?;
        // Compact frames: the colon follows the key directly.
        if self.buf.get(self.pos) == Some(&b':') {
            self.pos += 1;
            return Ok(k);
        }
        self.expect(b':')?;
        Ok(k)
    }

    /// At a member's key (after whitespace): validates `"key"` and the `:` after it.
    #[inline(always)]
    pub fn key(&mut self) -> Result<StrTok, Error> {
        self.key_after(0)
    }

    /// [`Cursor::key`] with [`Cursor::string_after`]'s `plain` (0 when the key does not
    /// start with a known constant).
    #[inline(always)]
    pub fn key_after(&mut self, plain: usize) -> Result<StrTok, Error> {
        if self.peek()? != b'"' {
            return Err(err(ErrorKind::UnexpectedByte, self.pos));
        }
        let k = self.string_after(plain)?;
        // Compact frames: the colon follows the key directly.
        if self.buf.get(self.pos) == Some(&b':') {
            self.pos += 1;
            return Ok(k);
        }
        self.expect(b':')?;
        Ok(k)
    }
}

/// True when a number token (already validated, decimal magnitude 308) overflows f64 when
/// read the fast, not exactly rounded way serde_json reads floats by default: the decimal
/// significand is accumulated into a `u64` while it fits (further integer digits each raise
/// the exponent by one, further fraction digits are dropped), converted to `f64`, then
/// multiplied by the `f64` power of ten for the exponent. The overflow verdict is what
/// matters; the rounding of each step is the same as that reader's.
fn two_step_overflows(token: &[u8]) -> bool {
    let fits =
        |sig: u64, d: u64| sig < u64::MAX / 10 || (sig == u64::MAX / 10 && d <= u64::MAX % 10);
    let mut sig: u64 = 0;
    let mut exp: i64 = 0;
    // Integer digits: once one does not fit, each further one raises the exponent.
    let mut full = false;
    let mut i = usize::from(token.first() == Some(&b'-'));
    while let Some(&c @ b'0'..=b'9') = token.get(i) {
        let d = u64::from(c - b'0');
        if !full && fits(sig, d) {
            sig = sig * 10 + d;
        } else {
            full = true;
            exp += 1;
        }
        i += 1;
    }
    // Fraction digits: accumulated while they fit; from the first that does not, dropped.
    if token.get(i) == Some(&b'.') {
        i += 1;
        let mut dropping = false;
        while let Some(&c @ b'0'..=b'9') = token.get(i) {
            let d = u64::from(c - b'0');
            if !dropping && fits(sig, d) {
                sig = sig * 10 + d;
                exp -= 1;
            } else {
                dropping = true;
            }
            i += 1;
        }
    }
    if matches!(token.get(i), Some(b'e' | b'E')) {
        let rest = &token[i + 1..];
        let (neg, digits) = match rest.first() {
            Some(b'-') => (true, &rest[1..]),
            Some(b'+') => (false, &rest[1..]),
            _ => (false, rest),
        };
        let mut e: i64 = 0;
        for &c in digits {
            e = (e * 10 + i64::from(c - b'0')).min(1_000_000_000);
        }
        exp += if neg { -e } else { e };
    }
    let mut f = sig as f64;
    loop {
        if exp.unsigned_abs() <= 308 {
            let pow = pow10(exp.unsigned_abs() as usize);
            if exp >= 0 {
                f *= pow;
                return f.is_infinite();
            }
            return false;
        }
        if f == 0.0 {
            return false;
        }
        if exp >= 0 {
            return true;
        }
        f /= 1e308;
        exp += 308;
    }
}

/// `10^k` as the nearest `f64`, `k` = 0..=308 (parsed once, on the first number of
/// magnitude 308; repeated multiplication would not round each entry exactly).
fn pow10(k: usize) -> f64 {
    static TABLE: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        (0..=308)
            .map(|k| format!("1e{k}").parse().unwrap_or(f64::INFINITY))
            .collect()
    })[k]
}

/// Validates the escape whose backslash is at `at`; returns the offset after it.
pub(crate) fn escape_slow(buf: &[u8], at: usize) -> Result<usize, Error> {
    let Some(&c) = buf.get(at + 1) else {
        return Err(err(ErrorKind::UnexpectedEnd, buf.len()));
    };
    match c {
        c if super::block::is_simple_escape(c) => Ok(at + 2),
        b'u' => {
            let u = hex_at(buf, at + 2)?;
            match u {
                0xD800..=0xDBFF => {
                    // A high surrogate must be followed by `\u` + a low surrogate.
                    if buf.get(at + 6) == Some(&b'\\') && buf.get(at + 7) == Some(&b'u') {
                        let lo = hex_at(buf, at + 8)?;
                        if (0xDC00..=0xDFFF).contains(&lo) {
                            return Ok(at + 12);
                        }
                    } else if at + 8 > buf.len() {
                        return Err(err(ErrorKind::UnexpectedEnd, buf.len()));
                    }
                    Err(err(ErrorKind::LoneSurrogate, at))
                }
                0xDC00..=0xDFFF => Err(err(ErrorKind::LoneSurrogate, at)),
                _ => Ok(at + 6),
            }
        }
        _ => Err(err(ErrorKind::InvalidEscape, at)),
    }
}

/// Four hex digits at `at`.
fn hex_at(buf: &[u8], at: usize) -> Result<u16, Error> {
    match hex4(buf.get(at..).unwrap_or(&[])) {
        Some(v) => Ok(v),
        None => {
            // Distinguish a truncated frame from a bad digit.
            let avail = &buf[at.min(buf.len())..];
            if avail.len() < 4 && avail.iter().all(|c| c.is_ascii_hexdigit()) {
                Err(err(ErrorKind::UnexpectedEnd, buf.len()))
            } else {
                Err(err(ErrorKind::InvalidEscape, at - 2))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::special_bytes;
    use super::{Backend, Cursor};

    /// The string fast paths (SSE2 16-byte loads, the tail load near the frame end, SWAR)
    /// agree with the scalar backend for a string token at every distance from the frame
    /// end, closed or not, with each kind of special byte at every position.
    #[test]
    fn string_fast_paths_agree_at_every_end_distance() {
        let specials: [&[u8]; 7] = [
            b"\"",
            b"\\n",
            b"\\u00e9",
            b"\x01",
            b"\xc3\xa9",
            b"\xff",
            b"\\q",
        ];
        for lead in [0usize, 1, 5, 15, 16, 17, 40] {
            for len in 0..72usize {
                for at in 0..=len {
                    for sp in specials {
                        for close in [false, true] {
                            let mut f = vec![b' '; lead];
                            f.push(b'"');
                            let mut body = vec![b'a'; len];
                            if at < len {
                                body.splice(at..at + 1, sp.iter().copied());
                            }
                            f.extend_from_slice(&body);
                            if close {
                                f.push(b'"');
                            }
                            let run = |b: Backend| {
                                let mut c = Cursor::new(&f, b, 128, 1024);
                                c.pos = lead;
                                c.string().map(|t| (t, c.pos))
                            };
                            let want = run(Backend::Scalar);
                            for b in Backend::available() {
                                assert_eq!(run(b), want, "{b:?} {:?}", String::from_utf8_lossy(&f));
                            }
                        }
                    }
                }
            }
        }
    }

    fn naive(w: u64) -> Option<u32> {
        w.to_le_bytes()
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || !(0x20..0x80).contains(&b))
            .map(|i| i as u32)
    }

    #[test]
    fn swar_first_special_byte_is_exact() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let interesting = [
            b'"',
            b'\\',
            0,
            0x1f,
            0x20,
            0x21,
            0x7f,
            0x80,
            0xff,
            b'a',
            0x5b,
            0x5d,
            0x22 ^ 0x80,
        ];
        for round in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut b = x.to_le_bytes();
            for (i, v) in b.iter_mut().enumerate() {
                if (round >> i) & 1 == 0 {
                    *v = interesting[(*v as usize) % interesting.len()];
                }
            }
            let w = u64::from_le_bytes(b);
            let m = special_bytes(w);
            let got = (m != 0).then(|| m.trailing_zeros() / 8);
            assert_eq!(got, naive(w), "{b:?}");
        }
    }
}
