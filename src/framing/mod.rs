//! Sans-I/O framing (DESIGN.md layer 1): cutting byte streams into frames.
//!
//! Three framers, none of which does I/O or depends on tokio:
//!
//! * [`ndjson::NdjsonFramer`]: stdio (MCP spec, Transports → stdio): one JSON-RPC message per
//!   LF-terminated line; a CR before the LF is stripped and reported; blank lines are skipped.
//! * [`sse::SseFramer`]: `text/event-stream` (WHATWG HTML, "Server-sent events", §9.2.6 parsing):
//!   `data:` lines joined with LF, `event:` / `id:` / `retry:` fields, `:` comments, CR / LF /
//!   CRLF line ends, one leading BOM stripped.
//! * [`body::BodyFramer`]: one HTTP body is one frame (Streamable HTTP POST bodies and JSON
//!   responses).
//!
//! # The buffer contract
//!
//! The caller owns the buffer. Each `decode(&mut self, buf)` call gets the *pending* bytes: the
//! bytes received so far that earlier calls have not told the caller to drop. It returns a
//! [`Decoded`]: `consumed` says how many bytes to drop from the front of `buf` after using the
//! result, and `status` is either [`Status::Complete`] (a frame, or a frame-level
//! [`FrameError`]) or [`Status::Partial`] (need more bytes). The next call must get the
//! remaining bytes, optionally followed by newly received ones. Byte ranges in a result are
//! indices into the `buf` of that call (before dropping `consumed`).
//!
//! A buffer shorter than the bytes an earlier call left pending breaks the contract: that is
//! the caller's bug. Debug builds assert on it; release builds never panic or read out of
//! bounds, but the frames and offsets that follow are unspecified (the SSE framer drops the
//! event in progress and reads the buffer from a line start; the NDJSON framer clamps its
//! resume position to the buffer).
//!
//! Every framer remembers how far it has searched, so no byte is searched twice and the total
//! work is linear in the stream length however it is chunked (a 4 MB line in 64-byte reads
//! costs the same as one read). The framers count the bytes they examine
//! (`bytes_examined()`) so tests can check this deterministically.
//!
//! At end of stream call `finish(buf)` (same contract) until it returns
//! [`Status::Partial`]: it reports what was left over (an unterminated line or event), never
//! silently parses it and never silently drops it.
//!
//! A [`FrameError`] is frame-level: the offending bytes are dropped and the stream goes on,
//! except where [`FrameErrorKind::is_fatal`] says otherwise.

use std::fmt;

use crate::error::ErrorKind;

pub mod body;
pub mod ndjson;
pub mod sse;

/// Index of the first LF in `hay` (`memchr::memchr(b'\n', hay)`): the scan module's AVX2
/// line-end search (`scan::line`), memchr without AVX2.
#[inline(always)]
pub(crate) fn find_lf(hay: &[u8]) -> Option<usize> {
    crate::scan::line::find_lf(hay)
}

/// Index of the first CR or LF in `hay` (`memchr::memchr2(b'\r', b'\n', hay)`): the scan
/// module's AVX2 line-end search (`scan::line`), memchr2 without AVX2.
#[inline(always)]
pub(crate) fn find_cr_or_lf(hay: &[u8]) -> Option<usize> {
    crate::scan::line::find_cr_or_lf(hay)
}

/// Where one byte lies in the input stream: its offset in bytes from the stream's first byte
/// (a stripped BOM counts), and its 1-based line and 1-based column (the column counts bytes,
/// not characters, and on line 1 a stripped BOM's 3 bytes too: `data: X` after a BOM has its
/// value at column 10). Given for the values of SSE `data:` lines
/// ([`SseEvent::data_position`](sse::SseEvent::data_position)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StreamPos {
    /// Stream offset (bytes).
    pub offset: u64,
    /// 1-based line number.
    pub line: u64,
    /// 1-based column (bytes).
    pub col: u64,
}

impl StreamPos {
    /// The position `n` bytes further on the same line.
    pub fn advance(self, n: u64) -> Self {
        Self {
            offset: self.offset + n,
            line: self.line,
            col: self.col + n,
        }
    }
}

/// The default frame size limit: 4 MiB (4 194 304 bytes), as [`crate::Limits::DEFAULT`].
pub const DEFAULT_MAX_FRAME_LEN: usize = 4 * 1024 * 1024;

/// Outcome of one framer call: a complete item or "need more bytes" (as in httparse).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status<T> {
    /// A complete item.
    Complete(T),
    /// Not enough bytes yet: call again with more (or call `finish` at end of stream).
    Partial,
}

impl<T> Status<T> {
    /// True for [`Status::Complete`].
    pub fn is_complete(&self) -> bool {
        matches!(self, Status::Complete(_))
    }
    /// True for [`Status::Partial`].
    pub fn is_partial(&self) -> bool {
        matches!(self, Status::Partial)
    }
}

/// What one `decode`/`finish` call returns: the item (or partial) and how many bytes the
/// caller must now drop from the front of its buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use = "the caller must drop `consumed` bytes before the next call"]
pub struct Decoded<T> {
    /// Bytes to drop from the front of the buffer passed to this call, after the item (which
    /// may index into those bytes) has been used. May be non-zero with [`Status::Partial`]
    /// (skipped blank lines, comments, bytes of a discarded oversize line).
    pub consumed: usize,
    /// The frame, a frame-level error, or partial.
    pub status: Status<Result<T, FrameError>>,
}

impl<T> Decoded<T> {
    pub(crate) fn partial(consumed: usize) -> Self {
        Self {
            consumed,
            status: Status::Partial,
        }
    }
    pub(crate) fn frame(consumed: usize, frame: T) -> Self {
        Self {
            consumed,
            status: Status::Complete(Ok(frame)),
        }
    }
    pub(crate) fn error(consumed: usize, error: FrameError) -> Self {
        Self {
            consumed,
            status: Status::Complete(Err(error)),
        }
    }
}

macro_rules! frame_error_kinds {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, $msg:literal; )*) => {
        /// The stable kind of a [`FrameError`].
        ///
        /// New kinds may be added in minor releases; names of existing kinds never change.
        #[non_exhaustive]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum FrameErrorKind {
            $( $(#[$doc])* $variant, )*
        }

        impl FrameErrorKind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [FrameErrorKind] = &[$(FrameErrorKind::$variant,)*];

            /// Stable kebab-case name, e.g. `"frame-too-large"`.
            pub const fn name(self) -> &'static str {
                match self { $(FrameErrorKind::$variant => $name,)* }
            }
            /// One-line human description.
            pub const fn message(self) -> &'static str {
                match self { $(FrameErrorKind::$variant => $msg,)* }
            }
        }
    };
}

frame_error_kinds! {
    /// An NDJSON line longer than the frame limit. Its bytes are discarded up to the next LF
    /// and the stream goes on (JSON-RPC -32600, HTTP 413).
    FrameTooLarge => "frame-too-large", "frame exceeds the size limit";
    /// The stream ended inside an NDJSON line (no final LF). The bytes are reported, not
    /// parsed.
    UnterminatedLine => "unterminated-line", "stream ends inside a line (no final newline)";
    /// An NDJSON line holds a CR anywhere but right before its LF (see the
    /// [`ndjson`] module docs: readers disagree on where such a line
    /// ends). The line is not a frame and the stream goes on (JSON-RPC -32700, HTTP 400).
    /// The codecs' error item keeps its bytes, so that its sender can still be answered by
    /// the id a JSON reader sees (its bytes were never passed on, so no other reader saw it).
    BareCr => "bare-cr", "line holds a CR that does not end it";
    /// The joined `data` of one SSE event is longer than the event limit; the rest of the event
    /// is discarded (JSON-RPC -32600).
    EventTooLarge => "event-too-large", "SSE event data exceeds the size limit";
    /// One SSE line is longer than the line limit; the rest of the line and of its event are
    /// discarded. A `data:` line whose value also takes the event's data over the event limit
    /// is [`EventTooLarge`](Self::EventTooLarge) instead (always so with the default limits).
    LineTooLong => "line-too-long", "SSE line exceeds the size limit";
    /// The stream ended inside an SSE event (no blank line after it); per WHATWG the event is
    /// not dispatched.
    UnterminatedEvent => "unterminated-event", "stream ends inside an SSE event (no blank line)";
    /// An HTTP body longer than the body limit or than its declared `Content-Length` (HTTP
    /// 413). Fatal: stop reading the body.
    BodyTooLarge => "body-too-large", "HTTP body exceeds the size limit or its Content-Length";
    /// An HTTP body shorter than its declared `Content-Length`. Fatal.
    TruncatedBody => "truncated-body", "HTTP body shorter than its Content-Length";
    /// The encoder was given a frame it cannot write byte-exact: an LF or CR inside an NDJSON
    /// frame (or an empty one), a CR / LF inside an SSE field value (`event`,
    /// `id`) or a CR inside SSE `data`, or a decoder's error item (an oversize or
    /// unterminated frame has no frame to write).
    UnencodableFrame => "unencodable-frame", "frame cannot be written byte-exact on this transport";
}

impl FrameErrorKind {
    /// The envelope-layer [`ErrorKind`] this corresponds to, if any: the three size limits map
    /// to [`ErrorKind::FrameTooLarge`], a bare CR to [`ErrorKind::BareCr`].
    pub const fn error_kind(self) -> Option<ErrorKind> {
        match self {
            FrameErrorKind::FrameTooLarge
            | FrameErrorKind::EventTooLarge
            | FrameErrorKind::BodyTooLarge => Some(ErrorKind::FrameTooLarge),
            FrameErrorKind::BareCr => Some(ErrorKind::BareCr),
            _ => None,
        }
    }
    /// The JSON-RPC code a server answers with: `-32600` (Invalid Request) for the size
    /// limits, `-32700` (Parse error) for a bare CR; `None` where no reply is due (a
    /// truncated stream cannot be answered; an overlong SSE line that is not data comes from a
    /// server). The CLI's records, which need a code for every violation, use `-32700` (Parse
    /// error) for those kinds
    /// (`unterminated-line`, `unterminated-event`, `line-too-long`): their bytes are not a
    /// complete JSON text.
    pub const fn jsonrpc_code(self) -> Option<i32> {
        match self.error_kind() {
            Some(k) => Some(k.code()),
            None => None,
        }
    }
    /// The HTTP status a server answers with: 413 (Content Too Large) for the size limits,
    /// 400 for a bare CR.
    pub const fn http_status(self) -> Option<u16> {
        match self.error_kind() {
            Some(ErrorKind::BareCr) => Some(400),
            Some(_) => Some(413),
            None => None,
        }
    }
    /// True when the stream cannot go on after this error ([`BodyTooLarge`](Self::BodyTooLarge),
    /// [`TruncatedBody`](Self::TruncatedBody)); the codecs turn these into decoder `Err`s.
    pub const fn is_fatal(self) -> bool {
        matches!(
            self,
            FrameErrorKind::BodyTooLarge | FrameErrorKind::TruncatedBody
        )
    }
}

impl fmt::Display for FrameErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A frame-level error: stable kind, where in the stream, and how many bytes it concerns.
///
/// `Copy` and 32 bytes. `offset` is the stream offset (bytes from the start of the stream,
/// 0-based) of the first byte of the offending line, event or body; `line` is its 1-based line
/// number (0 for HTTP bodies); `len` is the number of bytes concerned that were seen when the
/// error was reported (for [`FrameErrorKind::FrameTooLarge`] at least `limit + 1`, for
/// [`FrameErrorKind::UnterminatedLine`] the whole leftover line).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FrameError {
    kind: FrameErrorKind,
    offset: u64,
    line: u64,
    len: usize,
}

impl FrameError {
    /// Builds an error.
    pub const fn new(kind: FrameErrorKind, offset: u64, line: u64, len: usize) -> Self {
        Self {
            kind,
            offset,
            line,
            len,
        }
    }
    /// The stable kind.
    pub const fn kind(&self) -> FrameErrorKind {
        self.kind
    }
    /// Stream offset (bytes) of the start of the offending line, event or body.
    pub const fn offset(&self) -> u64 {
        self.offset
    }
    /// 1-based line number of that start (0 for HTTP bodies).
    pub const fn line(&self) -> u64 {
        self.line
    }
    /// Bytes concerned, as seen when the error was reported.
    pub const fn len(&self) -> usize {
        self.len
    }
    /// True when `len` is 0.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Where the error's bytes ([`offset`](Self::offset), [`len`](Self::len)) lie in a buffer
    /// whose first byte is at stream offset `base`: e.g. a line with a bare CR in the bytes
    /// given to the call that reported it, `base` being the framer's
    /// [`stream_offset`](ndjson::NdjsonFramer::stream_offset) before the call (blank lines
    /// before it may have moved it past the buffer's start). `None` when the error starts
    /// before `base`.
    pub fn range_from(&self, base: u64) -> Option<std::ops::Range<usize>> {
        let at = usize::try_from(self.offset.checked_sub(base)?).ok()?;
        Some(at..at.checked_add(self.len)?)
    }
    /// Where the error lies in `bytes`, the bytes an error item carries (e.g.
    /// [`RawFrame::bytes`](crate::codec::RawFrame::bytes)): for
    /// [`FrameErrorKind::BareCr`], the index of the line's first CR (every CR in those bytes
    /// is bare: a stripped one is not among them); 0, the start, for every other kind and
    /// when `bytes` holds no CR.
    pub fn offset_in(&self, bytes: &[u8]) -> usize {
        match self.kind {
            FrameErrorKind::BareCr => memchr::memchr(b'\r', bytes).unwrap_or(0),
            _ => 0,
        }
    }
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind.message(), self.offset)?;
        if self.line > 0 {
            write!(f, " (line {})", self.line)?;
        }
        write!(f, " ({})", self.kind.name())
    }
}

impl std::error::Error for FrameError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_are_unique_kebab_case() {
        let mut seen = std::collections::HashSet::new();
        for k in FrameErrorKind::ALL {
            let n = k.name();
            assert!(
                n.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{n}"
            );
            assert!(seen.insert(n), "duplicate {n}");
        }
    }

    #[test]
    fn frame_error_is_small_and_displays() {
        assert!(std::mem::size_of::<FrameError>() <= 32);
        let e = FrameError::new(FrameErrorKind::FrameTooLarge, 10, 2, 5);
        assert_eq!(
            e.to_string(),
            "frame exceeds the size limit at byte 10 (line 2) (frame-too-large)"
        );
        assert_eq!(e.kind().http_status(), Some(413));
        assert_eq!(e.kind().jsonrpc_code(), Some(-32600));
        assert_eq!(FrameErrorKind::UnterminatedLine.jsonrpc_code(), None);
        // Where in an error item's bytes: a bare CR's line at its first CR, else the start.
        let line = b"{\"a\":\r1,\r\"b\":2}";
        assert_eq!(
            FrameError::new(FrameErrorKind::BareCr, 0, 1, 14).offset_in(line),
            5
        );
        assert_eq!(
            FrameError::new(FrameErrorKind::BareCr, 0, 1, 0).offset_in(b""),
            0
        );
        assert_eq!(e.offset_in(line), 0);
        // Where its bytes lie in a buffer starting at a stream offset.
        let e = FrameError::new(FrameErrorKind::BareCr, 103, 4, 14);
        assert_eq!(e.range_from(100), Some(3..17));
        assert_eq!(e.range_from(103), Some(0..14));
        assert_eq!(e.range_from(104), None);
    }
}
