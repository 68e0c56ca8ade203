//! Newline-delimited JSON framing for the stdio transport (MCP spec, Transports → stdio: "one
//! JSON-RPC message per line, newline-delimited, no embedded newlines").
//!
//! ```text
//!   {"jsonrpc":"2.0",...}\n{"jsonrpc":"2.0",...}\r\n\n{"jsonrpc"...
//!   |<----- frame 1 ---->|  |<----- frame 2 ---->|    |<- partial ...
//!                        LF                     CR LF LF (blank line: skipped)
//! ```
//!
//! * The frame is the line without its LF. A CR right before the LF is stripped and reported
//!   ([`NdjsonFrame::cr_stripped`]); the spec does not address CRLF, and a tolerant framer
//!   accepts it.
//! * Empty lines (also a lone CR) are skipped and counted.
//! * A line that holds a CR anywhere but right before its LF (a "bare" CR) is reported as
//!   [`FrameErrorKind::BareCr`], not as a frame (the codecs' error item carries its bytes);
//!   the stream goes on. JSON allows CR
//!   as whitespace, so such a line is one valid message to a reader that splits at LF only
//!   (the TypeScript SDK, tokio-util's `LinesCodec`), but several lines to one that also ends
//!   lines at CR (the Python SDK reads stdin with universal newlines): a line
//!   `{"id":1,"method":"ping","x":␍{"id":2,"method":"tools/call",…}␍}` is a `ping` to the one
//!   and a `tools/call` between two broken lines to the other (hostile trial, session 20). No
//!   JSON serialiser writes a CR between tokens, so nothing real is lost.
//! * A line longer than `max_frame_len` bytes (excluding LF and a stripped CR) is reported once
//!   as [`FrameErrorKind::FrameTooLarge`] as soon as that is known (after `max_frame_len + 2`
//!   bytes without LF), then discarded up to the next LF; the stream goes on. Memory stays
//!   bounded by the limit.
//! * At end of stream, a last line without LF is reported as
//!   [`FrameErrorKind::UnterminatedLine`], or as [`FrameErrorKind::FrameTooLarge`] when it is
//!   over the limit (a last CR not counted, as a CR before an LF is not); a last lone CR is a
//!   blank line.
//!
//! The line-end search (the first CR or LF, with the scan module's AVX2 kernel or `memchr2`)
//! resumes where the previous call stopped, so every byte is searched once
//! ([`NdjsonFramer::bytes_examined`]); a CR that ends the bytes given so far is searched again
//! with the next call, once it is known whether an LF follows.
//!
//! # Example
//!
//! ```
//! use mcpwire::framing::{ndjson::NdjsonFramer, Status};
//!
//! let mut framer = NdjsonFramer::new();
//! let mut buf: Vec<u8> = Vec::new();
//! let mut frames = Vec::new();
//! for chunk in [&b"{\"a\":1}\n{\"b\""[..], b":2}\r\n"] {
//!     buf.extend_from_slice(chunk);
//!     loop {
//!         let d = framer.decode(&buf);
//!         let done = d.status.is_partial();
//!         if let Status::Complete(Ok(frame)) = &d.status {
//!             frames.push((buf[frame.range()].to_vec(), frame.offset(), frame.line()));
//!         }
//!         buf.drain(..d.consumed);
//!         if done { break; }
//!     }
//! }
//! assert_eq!(frames, vec![(b"{\"a\":1}".to_vec(), 0, 1), (b"{\"b\":2}".to_vec(), 8, 2)]);
//! ```

use std::ops::Range;

use super::{DEFAULT_MAX_FRAME_LEN, Decoded, FrameError, FrameErrorKind, Status};

/// One NDJSON frame: where it is in the caller's buffer and in the stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NdjsonFrame {
    range: Range<usize>,
    offset: u64,
    line: u64,
    cr_stripped: bool,
}

impl NdjsonFrame {
    /// The frame's bytes in the buffer passed to `decode` (no LF, no stripped CR).
    pub fn range(&self) -> Range<usize> {
        self.range.clone()
    }
    /// Frame length in bytes.
    pub fn len(&self) -> usize {
        self.range.len()
    }
    /// Always false: empty lines are skipped, never returned as frames.
    pub fn is_empty(&self) -> bool {
        self.range.is_empty()
    }
    /// Stream offset (bytes from the start of the stream) of the frame's first byte.
    pub fn offset(&self) -> u64 {
        self.offset
    }
    /// 1-based line number of the frame (blank and discarded lines count).
    pub fn line(&self) -> u64 {
        self.line
    }
    /// True when the line ended in CRLF and the CR was stripped (a note, not an error).
    pub fn cr_stripped(&self) -> bool {
        self.cr_stripped
    }
}

/// A CR-or-LF search already run on the pending bytes, `(from, window, found)` (see
/// `NdjsonFramer::search`), handed from the fast path of `decode` to its slow path.
pub(crate) type Searched = Option<(usize, usize, Option<usize>)>;

/// Incremental NDJSON framer (sans-I/O; see the [module docs](super) for the buffer contract).
#[derive(Clone, Debug)]
pub struct NdjsonFramer {
    max_frame_len: usize,
    /// Bytes at the front of the pending buffer already searched for LF without finding one.
    scanned: usize,
    /// Dropping an oversize line up to its LF.
    discarding: bool,
    /// The pending line holds a bare CR (one not followed by LF) in its searched part.
    bare_cr: bool,
    /// Stream offset of the first pending byte.
    offset: u64,
    /// 1-based line number of the first pending byte.
    line: u64,
    examined: u64,
    frames: u64,
    cr_stripped: u64,
    blank_lines: u64,
    oversize: u64,
    bare_cr_lines: u64,
}

impl Default for NdjsonFramer {
    fn default() -> Self {
        Self::new()
    }
}

impl NdjsonFramer {
    /// A framer with the default limit, [`DEFAULT_MAX_FRAME_LEN`] (4 MiB).
    pub fn new() -> Self {
        Self::with_max_frame_len(DEFAULT_MAX_FRAME_LEN)
    }

    /// A framer whose frames are at most `max_frame_len` bytes (excluding LF and a stripped CR).
    pub fn with_max_frame_len(max_frame_len: usize) -> Self {
        Self {
            max_frame_len,
            scanned: 0,
            discarding: false,
            bare_cr: false,
            offset: 0,
            line: 1,
            examined: 0,
            frames: 0,
            cr_stripped: 0,
            blank_lines: 0,
            oversize: 0,
            bare_cr_lines: 0,
        }
    }

    /// The frame limit in bytes.
    pub fn max_frame_len(&self) -> usize {
        self.max_frame_len
    }

    /// Changes the frame limit. It applies from the next `decode` call, to the line in progress
    /// too (unless that line was already reported as too large).
    pub fn set_max_frame_len(&mut self, max_frame_len: usize) {
        self.max_frame_len = max_frame_len;
        // The resume index must stay inside the new search window.
        self.scanned = self.scanned.min(max_frame_len.saturating_add(2));
    }

    /// Bytes searched for a line end so far. Each stream byte is examined at most once, so this
    /// never exceeds the number of bytes fed (exposed so tests can check linear cost without a
    /// timer).
    pub fn bytes_examined(&self) -> u64 {
        self.examined
    }
    /// Frames returned so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }
    /// Frames whose CR before the LF was stripped.
    pub fn cr_stripped_lines(&self) -> u64 {
        self.cr_stripped
    }
    /// Empty lines skipped.
    pub fn blank_lines(&self) -> u64 {
        self.blank_lines
    }
    /// Lines reported as [`FrameErrorKind::FrameTooLarge`].
    pub fn oversize_lines(&self) -> u64 {
        self.oversize
    }
    /// Lines reported as [`FrameErrorKind::BareCr`].
    pub fn bare_cr_lines(&self) -> u64 {
        self.bare_cr_lines
    }
    /// Stream offset of the first byte not yet consumed.
    pub fn stream_offset(&self) -> u64 {
        self.offset
    }

    /// Finds the next frame in `buf` (the pending bytes; see the module docs).
    ///
    /// Returns a frame, a [`FrameErrorKind::FrameTooLarge`] or [`FrameErrorKind::BareCr`]
    /// error, or partial; in each case the caller drops `consumed` bytes from the front of
    /// `buf` afterwards.
    #[inline(always)]
    pub fn decode(&mut self, buf: &[u8]) -> Decoded<NdjsonFrame> {
        match self.decode_fast(buf) {
            Ok((consumed, frame)) => Decoded::frame(consumed, frame),
            Err(searched) => self.decode_slow(buf, 0, searched),
        }
    }

    /// The common case of [`decode`](Self::decode), kept small so it inlines into the caller:
    /// the first pending line is complete, not blank, within the limit and without a bare CR;
    /// returns `(consumed, frame)` with the frame at the front of `buf`. Anything else is
    /// `Err` with what `decode_slow` needs to finish the call (the search already run, so no
    /// byte is searched twice); nothing is counted or consumed then.
    #[inline(always)]
    pub(crate) fn decode_fast(&mut self, buf: &[u8]) -> Result<(usize, NdjsonFrame), Searched> {
        // The buffer contract (module docs): release builds clamp the search to `buf`.
        debug_assert!(
            self.scanned <= buf.len(),
            "NdjsonFramer: buffer contract broken: {} pending bytes given, {} searched before",
            buf.len(),
            self.scanned
        );
        if self.discarding || self.bare_cr {
            return Err(None);
        }
        let search = self.search(buf);
        if let (from, window, Some(i)) = search {
            // The first CR or LF: an LF, or the CR of a CRLF, ends the line; a CR followed by
            // anything else (or by nothing yet) is for the slow path.
            let len = from + i;
            let cr = buf[len] == b'\r';
            let lf = len + cr as usize;
            if (!cr || (lf < window && buf[lf] == b'\n')) && len != 0 && len <= self.max_frame_len {
                self.examined += (lf + 1 - from) as u64;
                let (offset, line) = (self.offset, self.line);
                self.advance_line(lf + 1);
                self.frames += 1;
                self.cr_stripped += cr as u64;
                let frame = NdjsonFrame {
                    range: 0..len,
                    offset,
                    line,
                    cr_stripped: cr,
                };
                return Ok((lf + 1, frame));
            }
        }
        Err(Some(search))
    }

    /// Searches the pending line at the front of `rest` for its first CR or LF: returns
    /// `(from, window, found)`, where `rest[from..window]` is what was searched (a complete
    /// line is at most max + 2 bytes with its CR LF, so the search stops there) and `found`
    /// the index of the CR or LF in that slice. Does not count the bytes examined; the caller
    /// does, once it knows the outcome.
    #[inline(always)]
    fn search(&self, rest: &[u8]) -> (usize, usize, Option<usize>) {
        let window = rest.len().min(self.max_frame_len.saturating_add(2));
        let from = self.scanned.min(window);
        (from, window, super::find_cr_or_lf(&rest[from..window]))
    }

    /// The end of the pending line at the front of `rest`, from a [`search`](Self::search)
    /// result: `Ok(lf)`, the index of its LF, after noting every bare CR before it
    /// (`bare_cr`); `Err(end)` when `rest[..window]` holds no LF that ends the line, where
    /// `end` is how far the line is searched (`window`, or the index of a CR that is the last
    /// byte given: whether an LF follows it is known only with the next bytes). Counts the
    /// bytes examined.
    fn line_end(
        &mut self,
        rest: &[u8],
        (from0, window, found): (usize, usize, Option<usize>),
    ) -> Result<usize, usize> {
        let (mut from, mut found) = (from0, found);
        let end = loop {
            let Some(i) = found else { break Err(window) };
            let at = from + i;
            if rest[at] == b'\n' {
                break Ok(at);
            }
            if at + 1 == window {
                // A CR at the end of the window: the line's last byte so far (then search it
                // again with more bytes), or past the limit (then too large either way, and
                // the whole window counts as searched).
                let limit = self.max_frame_len.saturating_add(2);
                break Err(if window == rest.len() && window < limit {
                    at
                } else {
                    window
                });
            }
            if rest[at + 1] == b'\n' {
                break Ok(at + 1);
            }
            self.bare_cr = true;
            from = at + 1;
            found = super::find_cr_or_lf(&rest[from..window]);
        };
        let searched = match end {
            Ok(lf) => lf + 1,
            Err(end) => end,
        };
        self.examined += (searched - from0) as u64;
        end
    }

    /// Everything but the common case of [`decode`](Self::decode): discarding an oversize
    /// line, blank lines, oversize lines, partial lines. `start` bytes of `buf` are already
    /// consumed; `searched` is the result of [`search`](Self::search) on `buf[start..]` when
    /// the caller already ran it.
    #[inline(never)]
    pub(crate) fn decode_slow(
        &mut self,
        buf: &[u8],
        mut start: usize,
        mut searched: Searched,
    ) -> Decoded<NdjsonFrame> {
        loop {
            let rest = &buf[start..];
            if self.discarding {
                // Dropping an oversize line: look for its LF, drop everything up to it.
                let from = self.scanned.min(rest.len());
                match super::find_lf(&rest[from..]) {
                    Some(i) => {
                        self.examined += (i + 1) as u64;
                        let end = from + i + 1;
                        self.discarding = false;
                        self.advance_line(end);
                        start += end;
                        continue;
                    }
                    None => {
                        self.examined += (rest.len() - from) as u64;
                        self.offset += rest.len() as u64;
                        self.scanned = 0;
                        return Decoded::partial(buf.len());
                    }
                }
            }

            let search = match searched.take() {
                Some(s) => s,
                None => self.search(rest),
            };
            let window = search.1;
            match self.line_end(rest, search) {
                Ok(lf) => {
                    // Found a line end.
                    let bare_cr = std::mem::take(&mut self.bare_cr);
                    let cr = lf > 0 && rest[lf - 1] == b'\r';
                    let len = if cr { lf - 1 } else { lf };
                    let (offset, line) = (self.offset, self.line);
                    self.advance_line(lf + 1);
                    if len == 0 {
                        self.blank_lines += 1;
                        start += lf + 1;
                        continue;
                    }
                    let consumed = start + lf + 1;
                    if len > self.max_frame_len {
                        self.oversize += 1;
                        let e = FrameError::new(FrameErrorKind::FrameTooLarge, offset, line, len);
                        return Decoded::error(consumed, e);
                    }
                    if bare_cr {
                        self.bare_cr_lines += 1;
                        let e = FrameError::new(FrameErrorKind::BareCr, offset, line, len);
                        return Decoded::error(consumed, e);
                    }
                    self.frames += 1;
                    self.cr_stripped += cr as u64;
                    let frame = NdjsonFrame {
                        range: start..start + len,
                        offset,
                        line,
                        cr_stripped: cr,
                    };
                    return Decoded::frame(consumed, frame);
                }
                Err(end) => {
                    if window < rest.len() || rest.len() >= self.max_frame_len.saturating_add(2) {
                        // No LF within max + 2 bytes: too large whatever comes next. Report
                        // now, drop what was searched, discard the rest of the line.
                        self.oversize += 1;
                        let e = FrameError::new(
                            FrameErrorKind::FrameTooLarge,
                            self.offset,
                            self.line,
                            window,
                        );
                        self.discarding = true;
                        self.bare_cr = false;
                        self.offset += window as u64;
                        self.scanned = 0;
                        return Decoded::error(start + window, e);
                    }
                    // Not a full line yet; remember how far we searched.
                    self.scanned = end;
                    return Decoded::partial(start);
                }
            }
        }
    }

    /// End of stream: like [`decode`](Self::decode), but once no complete line is left, the
    /// leftover bytes (a last line without LF) are reported as
    /// [`FrameErrorKind::UnterminatedLine`], or [`FrameErrorKind::FrameTooLarge`] when over
    /// the limit (a lone CR is skipped as a blank line), and consumed; those bytes are
    /// `buf[consumed - err.len()..consumed]`. Call until it returns [`Status::Partial`], which
    /// then means the stream is fully drained.
    #[inline(always)]
    pub fn finish(&mut self, buf: &[u8]) -> Decoded<NdjsonFrame> {
        match self.decode(buf) {
            Decoded {
                consumed,
                status: Status::Partial,
            } => self.finish_slow(buf, consumed),
            d => d,
        }
    }

    /// The end-of-stream part of [`finish`](Self::finish), once `decode` found no complete
    /// line and said to drop `consumed` bytes.
    #[inline(never)]
    fn finish_slow(&mut self, buf: &[u8], consumed: usize) -> Decoded<NdjsonFrame> {
        let rest = buf.len() - consumed;
        if self.discarding {
            // The oversize line was already reported; its tail ends with the stream.
            self.discarding = false;
            self.offset += rest as u64;
            self.scanned = 0;
            return Decoded::partial(buf.len());
        }
        if rest == 0 {
            return Decoded::partial(consumed);
        }
        // The last line is reported whole (its bytes, not parsed), bare CRs or not.
        self.bare_cr = false;
        let tail = &buf[consumed..];
        if tail == b"\r" {
            // A lone CR is a blank line with its LF or without (trial finding: `{}\n\r` at
            // the end of a file was an unterminated line).
            self.blank_lines += 1;
            self.offset += 1;
            self.scanned = 0;
            return Decoded::partial(buf.len());
        }
        // Over the limit without its LF (and without a last CR, which an LF would strip): too
        // large, as it would be with an LF (trial finding: `max + 1` bytes were reported as
        // unterminated, `max + 2` as too large).
        let content = tail.strip_suffix(b"\r").map_or(rest, <[u8]>::len);
        let kind = if content > self.max_frame_len {
            self.oversize += 1;
            FrameErrorKind::FrameTooLarge
        } else {
            FrameErrorKind::UnterminatedLine
        };
        let e = FrameError::new(kind, self.offset, self.line, rest);
        self.offset += rest as u64;
        self.scanned = 0;
        Decoded {
            consumed: buf.len(),
            status: Status::Complete(Err(e)),
        }
    }

    /// Resets to the start of a new stream (counters included), keeping the limit.
    pub fn reset(&mut self) {
        *self = Self::with_max_frame_len(self.max_frame_len);
    }

    #[inline(always)]
    fn advance_line(&mut self, n: usize) {
        self.offset += n as u64;
        self.line += 1;
        self.scanned = 0;
        self.bare_cr = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Item = Result<(Vec<u8>, u64, u64), FrameError>;

    fn run(framer: &mut NdjsonFramer, input: &[u8]) -> Vec<Item> {
        let mut out = Vec::new();
        let mut buf = input.to_vec();
        loop {
            let d = framer.finish(&buf);
            match &d.status {
                Status::Partial => break,
                Status::Complete(Ok(f)) => {
                    out.push(Ok((buf[f.range()].to_vec(), f.offset(), f.line())))
                }
                Status::Complete(Err(e)) => out.push(Err(*e)),
            }
            buf.drain(..d.consumed);
        }
        out
    }

    #[test]
    fn crlf_blank_and_unterminated() {
        let mut f = NdjsonFramer::new();
        let out = run(&mut f, b"a\r\n\n\r\nbb\nc");
        assert_eq!(out[0], Ok((b"a".to_vec(), 0, 1)));
        assert_eq!(out[1], Ok((b"bb".to_vec(), 6, 4)));
        assert_eq!(
            out[2],
            Err(FrameError::new(FrameErrorKind::UnterminatedLine, 9, 5, 1))
        );
        assert_eq!(out.len(), 3);
        assert_eq!(f.blank_lines(), 2);
        assert_eq!(f.cr_stripped_lines(), 1);
    }
}
