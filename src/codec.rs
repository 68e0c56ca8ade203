//! tokio-util `Decoder`/`Encoder` adapters over the sans-I/O [`framing`](crate::framing) layer
//! (feature `codec`, on by default).
//!
//! | codec | transport | item | parses the envelope |
//! |---|---|---|---|
//! | [`NdjsonCodec`] | stdio (one message per line) | [`Frame`] | yes |
//! | [`NdjsonRawCodec`] | stdio | [`RawFrame`] | no (framing only, e.g. a forwarding proxy) |
//! | [`NdjsonBatchCodec`] | stdio | [`RawFrameBatch`]: every complete line of a read | no |
//! | [`SseCodec`] | `text/event-stream` | [`SseFrame`] | yes for message events (configurable) |
//! | [`SseBatchCodec`] | `text/event-stream` | [`SseEventBatch`]: every complete event of a read | no |
//! | [`BodyCodec`] | one HTTP body | [`Frame`] | yes |
//!
//! Frames are zero-copy: the decoder hands out `BytesMut::split_to(..).freeze()` of the read
//! buffer (SSE events with one `data:` line too; joined multi-line data is copied).
//!
//! # Errors: item or `Err`
//!
//! A `FramedRead` ends the stream after the first decoder `Err` (tokio-util's `Decoder`
//! contract). So a frame that is bad but skippable is an *item* that carries its error:
//! malformed JSON ([`FrameFault::Envelope`]), an oversize line or event, an NDJSON line with a
//! bare CR, or an unterminated last line / event ([`FrameFault::Framing`]). Decoder `Err`
//! ([`CodecError`]) is only for I/O errors and fatal framing errors: an HTTP body over its
//! limit or its declared `Content-Length`, an HTTP body shorter than its declared
//! `Content-Length`, and an oversize NDJSON line when [`OnOversize::Fatal`] is chosen.
//!
//! # Example: a stdio stream through `FramedRead`
//!
//! ```
//! use futures::StreamExt;
//! use mcpwire::Shape;
//! use mcpwire::codec::NdjsonCodec;
//! use tokio_util::codec::FramedRead;
//!
//! # futures::executor::block_on(async {
//! // Any `AsyncRead` works: a child's stdout, a socket; here bytes in memory.
//! let stdout: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\noops\n";
//! let mut frames = FramedRead::new(stdout, NdjsonCodec::new());
//! let first = frames.next().await.unwrap().unwrap(); // Err only for I/O and fatal limits
//! let env = first.envelope().unwrap().envelope();
//! assert_eq!(env.shape(), Shape::Request);
//! assert_eq!(env.id_raw(), Some("1"));
//! // A malformed line is an item carrying its error; the stream goes on.
//! let second = frames.next().await.unwrap().unwrap();
//! let fault = second.envelope().unwrap_err();
//! assert_eq!(fault.to_string(), "unexpected byte at byte 0 (unexpected-byte)");
//! assert!(frames.next().await.is_none());
//! # });
//! ```
//!
//! # Example: an SSE response
//!
//! ```
//! use mcpwire::codec::SseCodec;
//! use tokio_util::bytes::BytesMut;
//! use tokio_util::codec::Decoder;
//!
//! let mut codec = SseCodec::new();
//! let mut buf = BytesMut::from(
//!     &b"event: message\nid: 7\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"[..],
//! );
//! let ev = codec.decode(&mut buf).unwrap().unwrap();
//! assert!(ev.is_message());
//! assert_eq!(ev.id().map(|b| &b[..]), Some(&b"7"[..]));
//! let env = ev.envelope().unwrap().unwrap().envelope();
//! assert_eq!(env.id_raw(), Some("1"));
//! ```
//!
//! Limits: a codec's frame limit and its [`Parser`]'s
//! [`Limits::max_frame_len`](crate::Limits::max_frame_len) both apply (4 MiB each by
//! default); to accept larger frames, raise both.

use std::io;

/// `Iterator`, `ExactSizeIterator` and `DoubleEndedIterator` for a batch's borrowed-item
/// iterator `$iter` (fields `batch` and `entries`, a slice iterator) yielding
/// `$item { batch, entry }`, and `IntoIterator` for `&$batch` (its `iter()`).
macro_rules! batch_iterator {
    ($batch:ident, $iter:ident, $item:ident) => {
        impl<'b> IntoIterator for &'b $batch {
            type Item = $item<'b>;
            type IntoIter = $iter<'b>;
            fn into_iter(self) -> $iter<'b> {
                self.iter()
            }
        }

        impl<'b> Iterator for $iter<'b> {
            type Item = $item<'b>;
            fn next(&mut self) -> Option<$item<'b>> {
                let batch = self.batch;
                self.entries.next().map(|entry| $item { batch, entry })
            }
            fn size_hint(&self) -> (usize, Option<usize>) {
                self.entries.size_hint()
            }
        }

        impl ExactSizeIterator for $iter<'_> {}

        impl DoubleEndedIterator for $iter<'_> {
            fn next_back(&mut self) -> Option<Self::Item> {
                let batch = self.batch;
                self.entries.next_back().map(|entry| $item { batch, entry })
            }
        }
    };
}

/// How many entries a batch decoded from `read_len` pending bytes reserves, at most
/// `max_batch`: one per 64 bytes (MCP messages are longer), so that the entries are not moved
/// as the batch grows. Reserved at the first item ([`push_reserving`]), so that a call that
/// finds none (a long line still arriving) allocates nothing.
fn batch_room(max_batch: usize, read_len: usize) -> usize {
    max_batch.min(read_len / 64 + 1)
}

/// Pushes `entry`, first reserving `room` entries ([`batch_room`]) when `entries` has none.
#[inline]
fn push_reserving<T>(entries: &mut Vec<T>, room: usize, entry: T) {
    if entries.capacity() == 0 {
        entries.reserve_exact(room);
    }
    entries.push(entry);
}

mod sse_batch;
pub use sse_batch::{BatchEvent, BatchEvents, SseBatchCodec, SseEventBatch};

use bytes::{Buf, BufMut, Bytes, BytesMut};
use tokio_util::codec::{Decoder, Encoder};

use crate::envelope::{OwnedEnvelope, Parser};
use crate::error::Error;
use crate::framing::body::BodyFramer;
use crate::framing::ndjson::{NdjsonFrame, NdjsonFramer};
use crate::framing::sse::{self, DataLineStart, SseFramer, event_type};
use crate::framing::{FrameError, FrameErrorKind, Status, StreamPos};

/// A decoder or encoder error: I/O, or a fatal framing error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CodecError {
    /// The underlying reader or writer failed.
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),
    /// A fatal framing error (decoder) or a frame the encoder cannot write
    /// ([`FrameErrorKind::UnencodableFrame`]).
    #[error("{0}")]
    Frame(FrameError),
}

/// Why a frame item carries no envelope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameFault {
    /// A framing problem (oversize, unterminated); the item's bytes are what was kept (empty
    /// for discarded frames, the leftover bytes of an unterminated line).
    Framing(FrameError),
    /// The frame is not well-formed JSON or breaks an envelope rule that makes it unreadable
    /// (see [`Parser::parse`]); the error offset is relative to the frame.
    Envelope(Error),
}

impl std::fmt::Display for FrameFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameFault::Framing(e) => e.fmt(f),
            FrameFault::Envelope(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for FrameFault {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FrameFault::Framing(e) => Some(e),
            FrameFault::Envelope(e) => Some(e),
        }
    }
}

/// What to do with an NDJSON line over the limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnOversize {
    /// Yield an item carrying [`FrameErrorKind::FrameTooLarge`], discard the line, go on.
    #[default]
    Report,
    /// Return a decoder `Err` (ends a `FramedRead` stream).
    Fatal,
}

// ===== RawFrame / Frame =====

/// A framed but unparsed frame (from [`NdjsonRawCodec`]).
#[derive(Clone, PartialEq, Eq)]
pub struct RawFrame {
    bytes: Bytes,
    offset: u64,
    line: u64,
    cr_stripped: bool,
    /// The framing error's kind and `len`; its offset and line are the frame's (kept apart
    /// so the common, error-free item stays small: 72 bytes, not 88).
    error: Option<(FrameErrorKind, usize)>,
}

impl std::fmt::Debug for RawFrame {
    /// The frame's fields as its accessors give them (the error as a [`FrameError`], not the
    /// compact tuple it is kept as; trial, session 26).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawFrame")
            .field("bytes", &self.bytes)
            .field("offset", &self.offset)
            .field("line", &self.line)
            .field("cr_stripped", &self.cr_stripped)
            .field("error", &self.error())
            .finish()
    }
}

impl RawFrame {
    /// The frame bytes (no line terminator); for an error item, the bytes kept (empty for an
    /// oversize line, the leftover bytes for an unterminated one, the line for one with a
    /// bare CR, so that its id can still be read, e.g. with
    /// [`Parser::recover_id`](crate::Parser::recover_id)).
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }
    /// Takes the bytes.
    pub fn into_bytes(self) -> Bytes {
        self.bytes
    }
    /// Stream offset (bytes) of the frame's first byte.
    pub fn offset(&self) -> u64 {
        self.offset
    }
    /// 1-based line number (0 for HTTP bodies).
    pub fn line(&self) -> u64 {
        self.line
    }
    /// True when a CR before the LF was stripped.
    pub fn cr_stripped(&self) -> bool {
        self.cr_stripped
    }
    /// The framing error, for an error item.
    pub fn error(&self) -> Option<FrameError> {
        self.error
            .map(|(kind, len)| FrameError::new(kind, self.offset, self.line, len))
    }
    fn from_error(e: FrameError, bytes: Bytes) -> Self {
        Self {
            bytes,
            offset: e.offset(),
            line: e.line(),
            cr_stripped: false,
            error: Some((e.kind(), e.len())),
        }
    }
}

/// A frame with its parsed envelope or the reason it has none.
#[derive(Clone, Debug)]
pub struct Frame {
    offset: u64,
    line: u64,
    cr_stripped: bool,
    content: Content,
}

#[derive(Clone, Debug)]
enum Content {
    Parsed(OwnedEnvelope),
    Faulty(Bytes, FrameFault),
}

impl Frame {
    /// Parses a raw frame (no parse when it carries a framing error).
    pub fn from_raw(raw: RawFrame, parser: &Parser) -> Self {
        let content = match raw.error() {
            Some(e) => Content::Faulty(raw.bytes, FrameFault::Framing(e)),
            None => match OwnedEnvelope::parse(parser, raw.bytes) {
                Ok(env) => Content::Parsed(env),
                Err((bytes, e)) => Content::Faulty(bytes, FrameFault::Envelope(e)),
            },
        };
        Self {
            offset: raw.offset,
            line: raw.line,
            cr_stripped: raw.cr_stripped,
            content,
        }
    }
    /// The frame bytes, exactly as received (no terminator).
    pub fn bytes(&self) -> &Bytes {
        match &self.content {
            Content::Parsed(env) => env.bytes(),
            Content::Faulty(b, _) => b,
        }
    }
    /// Takes the bytes.
    pub fn into_bytes(self) -> Bytes {
        match self.content {
            Content::Parsed(env) => env.bytes().clone(),
            Content::Faulty(b, _) => b,
        }
    }
    /// The parsed envelope, or why there is none.
    pub fn envelope(&self) -> Result<&OwnedEnvelope, FrameFault> {
        match &self.content {
            Content::Parsed(env) => Ok(env),
            Content::Faulty(_, f) => Err(*f),
        }
    }
    /// Stream offset (bytes) of the frame's first byte; add an envelope error's offset to get
    /// its stream position.
    pub fn offset(&self) -> u64 {
        self.offset
    }
    /// 1-based line number (0 for HTTP bodies).
    pub fn line(&self) -> u64 {
        self.line
    }
    /// True when a CR before the LF was stripped.
    pub fn cr_stripped(&self) -> bool {
        self.cr_stripped
    }
}

// ===== NdjsonRawCodec =====

/// NDJSON (stdio) decoder/encoder yielding unparsed [`RawFrame`]s.
#[derive(Clone, Debug, Default)]
pub struct NdjsonRawCodec {
    framer: NdjsonFramer,
    on_oversize: OnOversize,
}

impl NdjsonRawCodec {
    /// Default limit: 4 MiB per line (unlike `LinesCodec::new`, never unbounded).
    pub fn new() -> Self {
        Self::default()
    }
    /// Lines longer than `max` bytes (excluding LF and a stripped CR) are oversize.
    pub fn with_max_frame_len(max: usize) -> Self {
        Self {
            framer: NdjsonFramer::with_max_frame_len(max),
            on_oversize: OnOversize::Report,
        }
    }
    /// The line limit.
    pub fn max_frame_len(&self) -> usize {
        self.framer.max_frame_len()
    }
    /// Changes the line limit; it applies from the next `decode` call.
    pub fn set_max_frame_len(&mut self, max: usize) {
        self.framer.set_max_frame_len(max);
    }
    /// Sets the oversize policy.
    pub fn on_oversize(mut self, policy: OnOversize) -> Self {
        self.on_oversize = policy;
        self
    }
    /// The sans-I/O framer (counters: frames, blank lines, CR stripped, oversize, bytes
    /// examined).
    pub fn framer(&self) -> &NdjsonFramer {
        &self.framer
    }
}

impl Decoder for NdjsonRawCodec {
    type Item = RawFrame;
    type Error = CodecError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<RawFrame>, CodecError> {
        // The common case (a complete line first in the buffer) straight from the framer's
        // fast path; everything else through its general result.
        let base = self.framer.stream_offset();
        let d = match self.framer.decode_fast(src) {
            Ok((consumed, f)) => return Ok(Some(split_frame(src, consumed, f))),
            Err(searched) => self.framer.decode_slow(src, 0, searched),
        };
        match d.status {
            Status::Complete(Ok(f)) => Ok(Some(split_frame(src, d.consumed, f))),
            // A bare CR is the line's own fault, not a size limit: always an item, with the
            // line's bytes (blank lines may come before it in `consumed`), so that a proxy
            // can still read its id (re-trial: a server's response ending in CR CR LF was
            // dropped, and the client's request waited for ever).
            Status::Complete(Err(e)) if e.kind() == FrameErrorKind::BareCr => {
                let mut line = src.split_to(d.consumed);
                let r = e.range_from(base).unwrap_or(0..0);
                line.truncate(r.end);
                line.advance(r.start.min(line.len()));
                Ok(Some(RawFrame::from_error(e, line.freeze())))
            }
            Status::Complete(Err(e)) => {
                src.advance(d.consumed);
                match self.on_oversize {
                    OnOversize::Fatal => Err(CodecError::Frame(e)),
                    OnOversize::Report => Ok(Some(RawFrame::from_error(e, Bytes::new()))),
                }
            }
            Status::Partial => {
                // No full line yet (or discarding an oversize one).
                src.advance(d.consumed);
                Ok(None)
            }
        }
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<RawFrame>, CodecError> {
        if let Some(frame) = self.decode(src)? {
            return Ok(Some(frame));
        }
        finish_ndjson(&mut self.framer, self.on_oversize, src)
    }
}

/// End of stream for the NDJSON codecs, once `decode` yields nothing more: the last line
/// without its LF, reported as an error item with its bytes (over the limit: without them,
/// or a decoder `Err` under [`OnOversize::Fatal`]); `None` when no bytes are left.
fn finish_ndjson(
    framer: &mut NdjsonFramer,
    on_oversize: OnOversize,
    src: &mut BytesMut,
) -> Result<Option<RawFrame>, CodecError> {
    let d = framer.finish(src);
    match d.status {
        // A last line over the limit, without its LF: as one with it (library trial:
        // its bytes were kept, while an oversize line's are always discarded, and
        // `OnOversize::Fatal` did not apply).
        Status::Complete(Err(e)) if e.kind() == FrameErrorKind::FrameTooLarge => {
            src.advance(d.consumed);
            match on_oversize {
                OnOversize::Fatal => Err(CodecError::Frame(e)),
                OnOversize::Report => Ok(Some(RawFrame::from_error(e, Bytes::new()))),
            }
        }
        Status::Complete(Err(e)) => {
            // The leftover line: report it with its bytes, unparsed.
            src.advance(d.consumed - e.len());
            let bytes = src.split_to(e.len()).freeze();
            Ok(Some(RawFrame::from_error(e, bytes)))
        }
        Status::Complete(Ok(_)) => unreachable!("decode returned None on the same bytes"),
        Status::Partial => {
            src.advance(d.consumed);
            Ok(None)
        }
    }
}

/// Splits the `consumed` bytes (skipped blank lines, the line, its terminator) off the front
/// of `src` in one step and narrows them to the frame's bytes: zero-copy.
#[inline(always)]
fn split_frame(src: &mut BytesMut, consumed: usize, f: NdjsonFrame) -> RawFrame {
    let r = f.range();
    let mut line = src.split_to(consumed);
    if r.start > 0 {
        line.advance(r.start);
    }
    line.truncate(r.len());
    RawFrame {
        bytes: line.freeze(),
        offset: f.offset(),
        line: f.line(),
        cr_stripped: f.cr_stripped(),
        error: None,
    }
}

/// Writes `item` and LF. Refused ([`FrameErrorKind::UnencodableFrame`]): an LF inside, an
/// empty item (a blank line is no frame to a decoder), a CR anywhere (a bare CR, or a last
/// CR a decoder strips), and an item over `max` bytes, the codec's frame limit (the same
/// codec would not decode it back: hostile trial, session 21).
fn encode_line(item: &[u8], dst: &mut BytesMut, offset: u64, max: usize) -> Result<(), CodecError> {
    // A CR anywhere would decode as a bare CR (or, last, be stripped as half of a CRLF).
    if item.is_empty() || item.len() > max || memchr::memchr2(b'\r', b'\n', item).is_some() {
        return Err(CodecError::Frame(FrameError::new(
            FrameErrorKind::UnencodableFrame,
            offset,
            0,
            item.len(),
        )));
    }
    dst.reserve(item.len() + 1);
    dst.put_slice(item);
    dst.put_u8(b'\n');
    Ok(())
}

impl Encoder<Bytes> for NdjsonRawCodec {
    type Error = CodecError;
    /// Writes the frame byte-exact plus LF; a frame containing LF or CR and an empty frame
    /// (none would decode back the same: a CR is a bare CR, or stripped when last) are
    /// [`FrameErrorKind::UnencodableFrame`].
    fn encode(&mut self, item: Bytes, dst: &mut BytesMut) -> Result<(), CodecError> {
        encode_line(&item, dst, 0, self.max_frame_len())
    }
}

impl Encoder<&[u8]> for NdjsonRawCodec {
    type Error = CodecError;
    fn encode(&mut self, item: &[u8], dst: &mut BytesMut) -> Result<(), CodecError> {
        encode_line(item, dst, 0, self.max_frame_len())
    }
}

impl Encoder<&RawFrame> for NdjsonRawCodec {
    type Error = CodecError;
    /// Writes a decoded frame back byte-exact plus LF (a stripped CR is not restored); an item
    /// carrying a framing error (an oversize line, whose bytes were discarded, or an
    /// unterminated last line, which must not gain an LF) is
    /// [`FrameErrorKind::UnencodableFrame`].
    fn encode(&mut self, item: &RawFrame, dst: &mut BytesMut) -> Result<(), CodecError> {
        encode_raw_frame(item, dst, self.max_frame_len())
    }
}

/// Writes a decoded frame back byte-exact plus LF (see `Encoder<&RawFrame>`); an error item
/// is [`FrameErrorKind::UnencodableFrame`].
fn encode_raw_frame(item: &RawFrame, dst: &mut BytesMut, max: usize) -> Result<(), CodecError> {
    encode_decoded(
        &item.bytes,
        item.offset,
        item.line,
        item.error.is_some(),
        dst,
        max,
    )
}

/// [`encode_raw_frame`] over a decoded frame's parts (its bytes, stream offset, line and
/// whether it is an error item), so that a borrowed batch frame needs no owned copy.
fn encode_decoded(
    bytes: &[u8],
    offset: u64,
    line: u64,
    error_item: bool,
    dst: &mut BytesMut,
    max: usize,
) -> Result<(), CodecError> {
    if error_item {
        return Err(CodecError::Frame(FrameError::new(
            FrameErrorKind::UnencodableFrame,
            offset,
            line,
            bytes.len(),
        )));
    }
    encode_line(bytes, dst, offset, max)
}

impl Encoder<RawFrame> for NdjsonRawCodec {
    type Error = CodecError;
    /// As for `&RawFrame`; owned, so that a `FramedWrite` sink takes decoded items as they
    /// come (`sink.send(frame)`).
    fn encode(&mut self, item: RawFrame, dst: &mut BytesMut) -> Result<(), CodecError> {
        self.encode(&item, dst)
    }
}

// ===== NdjsonBatchCodec =====

/// Every complete line that one [`NdjsonBatchCodec::decode`] call found, as one item: one
/// `split_to(..).freeze()` of the read buffer for all of them (one reference count taken per
/// batch, not per frame), with each frame's range, stream offset, line and framing error.
///
/// Read the frames as borrowed slices ([`iter`](Self::iter), [`get`](Self::get)); take a
/// frame out as an owned [`RawFrame`] only where it must outlive the batch
/// ([`BatchFrame::to_raw`], [`into_frames`](Self::into_frames): a `Bytes::slice` each, zero
/// copy). Flattened, the batches of a stream are exactly the items [`NdjsonRawCodec`] yields
/// for it, in the same order (offsets, lines, errors and bytes included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawFrameBatch {
    bytes: Bytes,
    entries: Vec<BatchEntry>,
}

/// One frame of a [`RawFrameBatch`]: its bytes at `start..end` of the batch's buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
struct BatchEntry {
    start: usize,
    end: usize,
    offset: u64,
    line: u64,
    cr_stripped: bool,
    error: Option<(FrameErrorKind, usize)>,
}

impl BatchEntry {
    fn frame(base: usize, f: &NdjsonFrame) -> Self {
        let r = f.range();
        Self {
            start: base + r.start,
            end: base + r.end,
            offset: f.offset(),
            line: f.line(),
            cr_stripped: f.cr_stripped(),
            error: None,
        }
    }

    /// The entry's frame as an owned [`RawFrame`], its bytes a zero-copy slice of `batch`.
    fn to_raw(&self, batch: &Bytes) -> RawFrame {
        RawFrame {
            bytes: batch.slice(self.start..self.end),
            offset: self.offset,
            line: self.line,
            cr_stripped: self.cr_stripped,
            error: self.error,
        }
    }

    fn error(e: FrameError, bytes: std::ops::Range<usize>) -> Self {
        Self {
            start: bytes.start,
            end: bytes.end,
            offset: e.offset(),
            line: e.line(),
            cr_stripped: false,
            error: Some((e.kind(), e.len())),
        }
    }
}

impl RawFrameBatch {
    /// Number of frames (error items included); at least 1 in a decoded batch.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    /// True when the batch holds no frame (never for a decoded batch).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// The buffer the frames lie in: the bytes the decoder took off the read buffer for this
    /// batch (frames, terminators, skipped blank lines and discarded oversize bytes).
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }
    /// The frame at `index`; `None` past the end.
    pub fn get(&self, index: usize) -> Option<BatchFrame<'_>> {
        self.entries.get(index).map(|entry| BatchFrame {
            batch: &self.bytes,
            entry,
        })
    }
    /// The frames in stream order (also `for frame in &batch`).
    pub fn iter(&self) -> BatchFrames<'_> {
        BatchFrames {
            batch: &self.bytes,
            entries: self.entries.iter(),
        }
    }
    /// The frames as owned [`RawFrame`]s, each a zero-copy `Bytes::slice` of the batch.
    pub fn into_frames(self) -> impl ExactSizeIterator<Item = RawFrame> {
        let bytes = self.bytes;
        self.entries.into_iter().map(move |e| e.to_raw(&bytes))
    }
}

/// The frames of a [`RawFrameBatch`] in stream order ([`RawFrameBatch::iter`]).
#[derive(Clone, Debug)]
pub struct BatchFrames<'b> {
    batch: &'b Bytes,
    entries: std::slice::Iter<'b, BatchEntry>,
}

batch_iterator!(RawFrameBatch, BatchFrames, BatchFrame);

/// One frame of a [`RawFrameBatch`], borrowed from it; the same accessors as [`RawFrame`].
#[derive(Clone, Copy)]
pub struct BatchFrame<'b> {
    batch: &'b Bytes,
    entry: &'b BatchEntry,
}

impl std::fmt::Debug for BatchFrame<'_> {
    /// The frame's own bytes and fields, not the whole batch's buffer.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchFrame")
            .field("bytes", &Bytes::copy_from_slice(self.bytes()))
            .field("offset", &self.offset())
            .field("line", &self.line())
            .field("cr_stripped", &self.cr_stripped())
            .field("error", &self.error())
            .finish()
    }
}

impl<'b> BatchFrame<'b> {
    /// The frame bytes (no line terminator); for an error item, the bytes kept, as
    /// [`RawFrame::bytes`] says.
    pub fn bytes(&self) -> &'b [u8] {
        &self.batch[self.entry.start..self.entry.end]
    }
    /// Stream offset (bytes) of the frame's first byte.
    pub fn offset(&self) -> u64 {
        self.entry.offset
    }
    /// 1-based line number.
    pub fn line(&self) -> u64 {
        self.entry.line
    }
    /// True when a CR before the LF was stripped.
    pub fn cr_stripped(&self) -> bool {
        self.entry.cr_stripped
    }
    /// The framing error, for an error item.
    pub fn error(&self) -> Option<FrameError> {
        self.entry
            .error
            .map(|(kind, len)| FrameError::new(kind, self.entry.offset, self.entry.line, len))
    }
    /// The frame as an owned [`RawFrame`] (a zero-copy `Bytes::slice` of the batch).
    pub fn to_raw(&self) -> RawFrame {
        self.entry.to_raw(self.batch)
    }
}

/// NDJSON (stdio) decoder yielding every complete line of the read buffer at once as a
/// [`RawFrameBatch`]: the framing of [`NdjsonRawCodec`] (same limits, errors and
/// [`OnOversize`] policy; a fatal oversize line ends the stream after the batch of the lines
/// before it), without a reference count taken and dropped per frame. For a gateway's hot
/// path, where frames are validated in place and only some are kept (PERF.md §7 has its cost
/// per frame next to the per-frame codec's). Encoding: use [`NdjsonRawCodec`].
#[derive(Clone, Debug)]
pub struct NdjsonBatchCodec {
    framer: NdjsonFramer,
    on_oversize: OnOversize,
    max_batch_frames: usize,
    /// A fatal oversize line met after other lines of the same call: returned as the decoder
    /// `Err` of the next call, after their batch.
    pending: Option<FrameError>,
}

impl Default for NdjsonBatchCodec {
    fn default() -> Self {
        Self::new()
    }
}

impl NdjsonBatchCodec {
    /// The default number of frames a batch holds at most: 1024.
    pub const DEFAULT_MAX_BATCH_FRAMES: usize = 1024;

    /// Default limits: 4 MiB per line, [`Self::DEFAULT_MAX_BATCH_FRAMES`] frames per batch.
    pub fn new() -> Self {
        Self::with_max_frame_len(crate::framing::DEFAULT_MAX_FRAME_LEN)
    }
    /// Lines longer than `max` bytes (excluding LF and a stripped CR) are oversize.
    pub fn with_max_frame_len(max: usize) -> Self {
        Self {
            framer: NdjsonFramer::with_max_frame_len(max),
            on_oversize: OnOversize::Report,
            max_batch_frames: Self::DEFAULT_MAX_BATCH_FRAMES,
            pending: None,
        }
    }
    /// Sets the oversize policy.
    pub fn on_oversize(mut self, policy: OnOversize) -> Self {
        self.on_oversize = policy;
        self
    }
    /// Sets the most frames one batch holds (a bound on the entries' memory, 56 bytes each,
    /// and on the work between two items); 0 is taken as 1.
    pub fn with_max_batch_frames(mut self, n: usize) -> Self {
        self.max_batch_frames = n.max(1);
        self
    }
    /// The most frames one batch holds.
    pub fn max_batch_frames(&self) -> usize {
        self.max_batch_frames
    }
    /// The oversize policy.
    pub fn oversize_policy(&self) -> OnOversize {
        self.on_oversize
    }
    /// The line limit.
    pub fn max_frame_len(&self) -> usize {
        self.framer.max_frame_len()
    }
    /// Changes the line limit; it applies from the next `decode` call.
    pub fn set_max_frame_len(&mut self, max: usize) {
        self.framer.set_max_frame_len(max);
    }
    /// The sans-I/O framer (counters: frames, blank lines, CR stripped, oversize, bytes
    /// examined).
    pub fn framer(&self) -> &NdjsonFramer {
        &self.framer
    }
}

impl Decoder for NdjsonBatchCodec {
    type Item = RawFrameBatch;
    type Error = CodecError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<RawFrameBatch>, CodecError> {
        if let Some(e) = self.pending.take() {
            return Err(CodecError::Frame(e));
        }
        let base = self.framer.stream_offset();
        let room = batch_room(self.max_batch_frames, src.len());
        let mut entries = Vec::new();
        let push = |entries: &mut Vec<BatchEntry>, entry| push_reserving(entries, room, entry);
        // Bytes of `src` this call has consumed: the frames of the batch lie before it.
        let mut pos = 0;
        while entries.len() < self.max_batch_frames {
            let d = self.framer.decode(&src[pos..]);
            match d.status {
                Status::Complete(Ok(f)) => push(&mut entries, BatchEntry::frame(pos, &f)),
                // As in `NdjsonRawCodec`: the line's own bytes, blank lines before it excluded.
                Status::Complete(Err(e)) if e.kind() == FrameErrorKind::BareCr => {
                    let r = e.range_from(base).unwrap_or(pos..pos);
                    push(&mut entries, BatchEntry::error(e, r));
                }
                Status::Complete(Err(e)) => match self.on_oversize {
                    OnOversize::Report => push(&mut entries, BatchEntry::error(e, pos..pos)),
                    OnOversize::Fatal if entries.is_empty() => {
                        src.advance(pos + d.consumed);
                        return Err(CodecError::Frame(e));
                    }
                    OnOversize::Fatal => {
                        self.pending = Some(e);
                        pos += d.consumed;
                        break;
                    }
                },
                Status::Partial => {
                    // No full line after these (or discarding an oversize one).
                    pos += d.consumed;
                    break;
                }
            }
            pos += d.consumed;
        }
        if entries.is_empty() {
            src.advance(pos);
            return Ok(None);
        }
        Ok(Some(RawFrameBatch {
            bytes: src.split_to(pos).freeze(),
            entries,
        }))
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<RawFrameBatch>, CodecError> {
        if let Some(batch) = self.decode(src)? {
            return Ok(Some(batch));
        }
        // The leftover line, as a batch of one whose buffer is its bytes.
        Ok(
            finish_ndjson(&mut self.framer, self.on_oversize, src)?.map(|f| RawFrameBatch {
                entries: vec![BatchEntry {
                    start: 0,
                    end: f.bytes.len(),
                    offset: f.offset,
                    line: f.line,
                    cr_stripped: f.cr_stripped,
                    error: f.error,
                }],
                bytes: f.bytes,
            }),
        )
    }
}

impl Encoder<Bytes> for NdjsonBatchCodec {
    type Error = CodecError;
    /// As [`NdjsonRawCodec`]'s: the frame byte-exact plus LF, so that a `Framed` carries both
    /// directions.
    fn encode(&mut self, item: Bytes, dst: &mut BytesMut) -> Result<(), CodecError> {
        encode_line(&item, dst, 0, self.max_frame_len())
    }
}

impl Encoder<&[u8]> for NdjsonBatchCodec {
    type Error = CodecError;
    fn encode(&mut self, item: &[u8], dst: &mut BytesMut) -> Result<(), CodecError> {
        encode_line(item, dst, 0, self.max_frame_len())
    }
}

impl Encoder<&RawFrame> for NdjsonBatchCodec {
    type Error = CodecError;
    /// As [`NdjsonRawCodec`]'s (an error item is [`FrameErrorKind::UnencodableFrame`]).
    fn encode(&mut self, item: &RawFrame, dst: &mut BytesMut) -> Result<(), CodecError> {
        encode_raw_frame(item, dst, self.max_frame_len())
    }
}

impl Encoder<&RawFrameBatch> for NdjsonBatchCodec {
    type Error = CodecError;
    /// Writes every frame of a batch back byte-exact, each plus LF (a stripped CR is not
    /// restored, skipped blank lines are not written). A batch holding an error item is
    /// [`FrameErrorKind::UnencodableFrame`] for that item, and nothing of the batch is
    /// written.
    fn encode(&mut self, item: &RawFrameBatch, dst: &mut BytesMut) -> Result<(), CodecError> {
        let at = dst.len();
        for f in item {
            let (bytes, e) = (f.bytes(), &f.entry);
            let wrote = encode_decoded(
                bytes,
                e.offset,
                e.line,
                e.error.is_some(),
                dst,
                self.max_frame_len(),
            );
            if let Err(e) = wrote {
                dst.truncate(at);
                return Err(e);
            }
        }
        Ok(())
    }
}

// ===== NdjsonCodec =====

/// NDJSON (stdio) decoder/encoder yielding [`Frame`]s with parsed envelopes.
#[derive(Clone, Debug, Default)]
pub struct NdjsonCodec {
    raw: NdjsonRawCodec,
    parser: Parser,
}

impl NdjsonCodec {
    /// Default line limit (4 MiB) and default parser.
    pub fn new() -> Self {
        Self {
            raw: NdjsonRawCodec::new(),
            parser: Parser::new(),
        }
    }
    /// With a line limit and a parser (its own limits apply to each frame: raise the
    /// parser's [`Limits::max_frame_len`](crate::Limits::max_frame_len) too when raising the
    /// line limit above 4 MiB).
    pub fn with_parser(max_frame_len: usize, parser: Parser) -> Self {
        Self {
            raw: NdjsonRawCodec::with_max_frame_len(max_frame_len),
            parser,
        }
    }
    /// Sets the oversize policy.
    pub fn on_oversize(mut self, policy: OnOversize) -> Self {
        self.raw = self.raw.on_oversize(policy);
        self
    }
    /// The framing codec inside.
    pub fn raw(&self) -> &NdjsonRawCodec {
        &self.raw
    }
    /// The parser used on each frame.
    pub fn parser(&self) -> &Parser {
        &self.parser
    }
}

impl Decoder for NdjsonCodec {
    type Item = Frame;
    type Error = CodecError;
    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, CodecError> {
        Ok(self
            .raw
            .decode(src)?
            .map(|raw| Frame::from_raw(raw, &self.parser)))
    }
    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, CodecError> {
        Ok(self
            .raw
            .decode_eof(src)?
            .map(|raw| Frame::from_raw(raw, &self.parser)))
    }
}

impl Encoder<Bytes> for NdjsonCodec {
    type Error = CodecError;
    fn encode(&mut self, item: Bytes, dst: &mut BytesMut) -> Result<(), CodecError> {
        encode_line(&item, dst, 0, self.raw.max_frame_len())
    }
}

impl Encoder<&Frame> for NdjsonCodec {
    type Error = CodecError;
    /// Writes the frame's bytes back byte-exact plus LF (a stripped CR is not restored). A
    /// frame that fails to parse is written as received; an item carrying a framing error
    /// (an oversize line, whose bytes were discarded, or an unterminated last line, which
    /// must not gain an LF) is refused with [`FrameErrorKind::UnencodableFrame`].
    fn encode(&mut self, item: &Frame, dst: &mut BytesMut) -> Result<(), CodecError> {
        if let Content::Faulty(b, FrameFault::Framing(_)) = &item.content {
            return Err(CodecError::Frame(FrameError::new(
                FrameErrorKind::UnencodableFrame,
                item.offset(),
                item.line(),
                b.len(),
            )));
        }
        encode_line(item.bytes(), dst, item.offset(), self.raw.max_frame_len())
    }
}

impl Encoder<Frame> for NdjsonCodec {
    type Error = CodecError;
    /// As for `&Frame`; owned, so that a `FramedWrite` sink takes decoded items as they come
    /// (`sink.send(frame)`; new-user trial, session 13: only `&Frame` was accepted).
    fn encode(&mut self, item: Frame, dst: &mut BytesMut) -> Result<(), CodecError> {
        self.encode(&item, dst)
    }
}

// ===== SseCodec =====

/// One SSE event with its data as [`Bytes`] and, for message events, the parsed envelope.
#[derive(Clone, Debug)]
pub struct SseFrame {
    data: Bytes,
    has_data: bool,
    event: Option<Bytes>,
    id: Option<Bytes>,
    retry: Option<u64>,
    offset: u64,
    line: u64,
    /// Where the first `data:` value starts.
    first_data: Option<StreamPos>,
    /// Where the later `data:` values start (empty for one line: no allocation).
    more_data: Box<[DataLineStart]>,
    content: SseContent,
}

/// What an [`SseFrame`] carries besides its fields (one enum, not two options: the item is
/// moved by value through `FramedRead`, so its size counts).
#[derive(Clone, Debug)]
enum SseContent {
    /// Not parsed: an event to encode, a codec that does not parse, or not a message event.
    None,
    /// An error item.
    Framing(FrameError),
    /// A message event and its envelope.
    Parsed(OwnedEnvelope),
    /// A message event the parser rejected.
    Faulty(Error),
}

impl SseFrame {
    /// The joined event data (zero-copy for a single `data:` line).
    pub fn data(&self) -> &Bytes {
        &self.data
    }
    /// True when the event had a `data:` field (possibly empty).
    pub fn has_data(&self) -> bool {
        self.has_data
    }
    /// True when the data is non-empty and the event type is `message` (no `event:` field, an
    /// empty one, or `event: message`): what a WHATWG EventSource dispatches as a `message`
    /// event and MCP SDKs parse as JSON-RPC. False for priming events, error items and events
    /// of other types (the 2024-11-05 `endpoint` event); see
    /// [`SseEvent::is_message`](crate::framing::sse::SseEvent::is_message).
    pub fn is_message(&self) -> bool {
        !self.data.is_empty()
            && !matches!(self.content, SseContent::Framing(_))
            && event_type(self.event.as_deref()) == b"message"
    }
    /// The `event:` value, as written (`Some` of an empty value for an empty `event:` line).
    pub fn event(&self) -> Option<&Bytes> {
        self.event.as_ref()
    }
    /// The event type: the `event:` value, or `b"message"` when absent or empty (WHATWG), as
    /// [`BatchEvent::event_type`] and
    /// [`SseEvent::event_type`](crate::framing::sse::SseEvent::event_type).
    pub fn event_type(&self) -> &[u8] {
        event_type(self.event.as_deref())
    }
    /// The `id:` value.
    pub fn id(&self) -> Option<&Bytes> {
        self.id.as_ref()
    }
    /// The `retry:` value in milliseconds.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }
    /// Stream offset of the event's first field line (or of the error).
    pub fn offset(&self) -> u64 {
        self.offset
    }
    /// 1-based line number of the event's first field line.
    pub fn line(&self) -> u64 {
        self.line
    }
    /// Stream offset of the first `data:` value byte.
    pub fn data_offset(&self) -> Option<u64> {
        self.first_data.map(|p| p.offset)
    }
    /// Where byte `at` of [`data`](Self::data) lies in the stream (offset, line, column),
    /// exact for joined data too; as [`SseEvent::data_position`](crate::framing::sse::SseEvent::data_position).
    /// Add an envelope error's [`offset`](crate::Error::offset) to get its stream position.
    /// `None` for an event without data, an error item or an event built to encode.
    pub fn data_position(&self, at: usize) -> Option<StreamPos> {
        sse::data_position(self.first_data, &self.more_data, self.data.len(), at)
    }
    /// Where each `data:` value starts, in order; as
    /// [`SseEvent::data_line_starts`](crate::framing::sse::SseEvent::data_line_starts).
    pub fn data_line_starts(&self) -> impl Iterator<Item = DataLineStart> + '_ {
        sse::data_line_starts(self.first_data, &self.more_data)
    }
    /// The framing error of an error item (oversize, unterminated event).
    pub fn error(&self) -> Option<FrameError> {
        match self.content {
            SseContent::Framing(e) => Some(e),
            _ => None,
        }
    }
    /// The parsed envelope of a message event ([`is_message`](Self::is_message));
    /// `Some(Err(FrameFault::Framing(..)))` for an error item (oversize or unterminated
    /// event); `None` for other events (priming events, other event types) and when the codec
    /// does not parse.
    pub fn envelope(&self) -> Option<Result<&OwnedEnvelope, FrameFault>> {
        match &self.content {
            SseContent::None => None,
            SseContent::Framing(e) => Some(Err(FrameFault::Framing(*e))),
            SseContent::Parsed(env) => Some(Ok(env)),
            SseContent::Faulty(e) => Some(Err(FrameFault::Envelope(*e))),
        }
    }
    /// Builds an event to encode.
    pub fn new(data: Bytes) -> Self {
        Self {
            has_data: true,
            data,
            event: None,
            id: None,
            retry: None,
            offset: 0,
            line: 0,
            first_data: None,
            more_data: Box::default(),
            content: SseContent::None,
        }
    }
    /// Sets the `event:` field.
    pub fn with_event(mut self, event: Bytes) -> Self {
        self.event = Some(event);
        self
    }
    /// Sets the `id:` field.
    pub fn with_id(mut self, id: Bytes) -> Self {
        self.id = Some(id);
        self
    }
    /// Sets the `retry:` field.
    pub fn with_retry(mut self, retry_ms: u64) -> Self {
        self.retry = Some(retry_ms);
        self
    }
    fn from_error(e: FrameError) -> Self {
        let mut f = Self::new(Bytes::new());
        f.has_data = false;
        f.offset = e.offset();
        f.line = e.line();
        f.content = SseContent::Framing(e);
        f
    }
}

/// `text/event-stream` decoder/encoder yielding [`SseFrame`]s.
#[derive(Clone, Debug)]
pub struct SseCodec {
    framer: SseFramer,
    parser: Option<Parser>,
}

impl Default for SseCodec {
    fn default() -> Self {
        Self::new()
    }
}

impl SseCodec {
    /// Default limits (event data 4 MiB, line 4 MiB + 64) and parser.
    pub fn new() -> Self {
        Self {
            framer: SseFramer::new(),
            parser: Some(Parser::new()),
        }
    }
    /// Default limits, framing only: items carry no envelope ([`SseFrame::envelope`] is
    /// `None`); the same as `with_limits` with the defaults and `None`.
    pub fn framing_only() -> Self {
        Self {
            framer: SseFramer::new(),
            parser: None,
        }
    }
    /// With limits (see [`SseFramer::with_limits`]) and a parser (`None`: framing only).
    pub fn with_limits(max_event_len: usize, max_line_len: usize, parser: Option<Parser>) -> Self {
        Self {
            framer: SseFramer::with_limits(max_event_len, max_line_len),
            parser,
        }
    }
    /// The sans-I/O framer (counters, BOM note).
    pub fn framer(&self) -> &SseFramer {
        &self.framer
    }
    fn take(&mut self, src: &mut BytesMut, eof: bool) -> Option<SseFrame> {
        // Gather everything owned from the borrowed event, then split the buffer.
        enum Out {
            Event {
                range: Option<std::ops::Range<usize>>,
                joined: Option<Bytes>,
                has_data: bool,
                event: Option<Bytes>,
                id: Id,
                retry: Option<u64>,
                offset: u64,
                line: u64,
                first_data: Option<StreamPos>,
                more_data: Box<[DataLineStart]>,
            },
            Error(FrameError),
            Partial,
        }
        /// Where an event's id is: none, in the pending buffer, or copied.
        enum Id {
            None,
            Range(std::ops::Range<usize>),
            Copied(Bytes),
        }
        impl Id {
            /// The id as owned bytes (a range is copied out of `src`, still unconsumed).
            fn into_bytes(self, src: &[u8]) -> Option<Bytes> {
                match self {
                    Id::None => None,
                    Id::Range(r) => Some(Bytes::copy_from_slice(&src[r])),
                    Id::Copied(b) => Some(b),
                }
            }
        }
        let d = if eof {
            self.framer.finish(src)
        } else {
            self.framer.decode(src)
        };
        let consumed = d.consumed;
        let out = match d.status {
            Status::Partial => Out::Partial,
            Status::Complete(Err(e)) => Out::Error(e),
            Status::Complete(Ok(ev)) => Out::Event {
                range: ev.data_range(),
                joined: match ev.data_range() {
                    Some(_) => None,
                    None => Some(Bytes::copy_from_slice(ev.data())),
                },
                has_data: ev.has_data(),
                event: ev.event().map(|e| {
                    if e == b"message" {
                        Bytes::from_static(b"message")
                    } else {
                        Bytes::copy_from_slice(e)
                    }
                }),
                id: match ev.id_range() {
                    Some(r) => Id::Range(r),
                    None => ev
                        .id()
                        .map_or(Id::None, |v| Id::Copied(Bytes::copy_from_slice(v))),
                },
                retry: ev.retry(),
                offset: ev.offset(),
                line: ev.line(),
                first_data: ev.first_data(),
                more_data: match ev.more_data() {
                    [] => Box::default(),
                    more => more.into(),
                },
            },
        };
        match out {
            Out::Partial => {
                src.advance(consumed);
                None
            }
            Out::Error(e) => {
                src.advance(consumed);
                Some(SseFrame::from_error(e))
            }
            Out::Event {
                range,
                joined,
                has_data,
                event,
                id,
                retry,
                offset,
                line,
                first_data,
                more_data,
            } => {
                let (data, id) = match (range, joined, id) {
                    (Some(r), _, Id::Range(i)) => {
                        // One split of everything consumed; the data and the id are slices
                        // of it (zero-copy).
                        let event = src.split_to(consumed).freeze();
                        (event.slice(r), Some(event.slice(i)))
                    }
                    (Some(r), _, id) => {
                        // One split of everything consumed, narrowed to the data (zero-copy);
                        // the id, if any, was copied (a range took the arm above).
                        let mut event = src.split_to(consumed);
                        event.advance(r.start);
                        event.truncate(r.len());
                        (event.freeze(), id.into_bytes(src))
                    }
                    (None, joined, id) => {
                        let id = id.into_bytes(src);
                        src.advance(consumed);
                        (joined.unwrap_or_default(), id)
                    }
                };
                let content = match &self.parser {
                    Some(p) if !data.is_empty() && event_type(event.as_deref()) == b"message" => {
                        match OwnedEnvelope::parse(p, data.clone()) {
                            Ok(env) => SseContent::Parsed(env),
                            Err((_, e)) => SseContent::Faulty(e),
                        }
                    }
                    _ => SseContent::None,
                };
                Some(SseFrame {
                    data,
                    has_data,
                    event,
                    id,
                    retry,
                    offset,
                    line,
                    first_data,
                    more_data,
                    content,
                })
            }
        }
    }
}

impl Decoder for SseCodec {
    type Item = SseFrame;
    type Error = CodecError;
    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<SseFrame>, CodecError> {
        Ok(self.take(src, false))
    }
    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<SseFrame>, CodecError> {
        Ok(self.take(src, true))
    }
}

fn unencodable(len: usize) -> CodecError {
    CodecError::Frame(FrameError::new(FrameErrorKind::UnencodableFrame, 0, 0, len))
}

/// True when a field value decodes back as written: no CR or LF (they end the line), and for
/// `id` no NUL (WHATWG ignores an `id` field whose value contains U+0000).
fn encodable_field(value: &[u8], is_id: bool) -> bool {
    memchr::memchr2(b'\r', b'\n', value).is_none() && !(is_id && value.contains(&0))
}

/// How the field line `name: value` fits the line limit `max` (bytes, without the LF): with
/// a space after the colon, or, when only the line without it fits, without the space (it
/// decodes the same unless the value starts with a space, which the decoder would strip; re-trial,
/// session 21); `None` when neither fits.
fn field_sep(name: &[u8], value: &[u8], max: usize) -> Option<&'static [u8]> {
    if name.len() + 2 + value.len() <= max {
        Some(b": ")
    } else if name.len() + 1 + value.len() <= max && value.first() != Some(&b' ') {
        Some(b":")
    } else {
        None
    }
}

/// Writes the field line `name`, `sep` (from [`field_sep`]), `value`, LF.
fn put_field(dst: &mut BytesMut, name: &[u8], sep: &[u8], value: &[u8]) {
    dst.put_slice(name);
    dst.put_slice(sep);
    dst.put_slice(value);
    dst.put_u8(b'\n');
}

impl Encoder<&SseFrame> for SseCodec {
    type Error = CodecError;
    /// Writes `id:`, `event:`, `retry:` (when set), one `data: ` line per LF-separated part of
    /// the data, and a blank line, all LF-terminated; a line that fits the codec's line limit
    /// only without the space after its colon is written without it. Decoding the output with the same
    /// codec's limits gives back the same fields and data byte-exact. What cannot round-trip
    /// is [`FrameErrorKind::UnencodableFrame`], and `dst` is then left as it was: data
    /// containing CR, field values containing CR or LF, an `id` containing NUL (a decoder
    /// ignores such an `id`), data over the codec's event limit or a line (`data: ` and a
    /// part of the data, `id: ` and the id, …) over its line limit (hostile trial, session
    /// 21: the same codec decoded them as errors), and an error item (an oversize or
    /// unterminated event: it has no event to write). An event with none of these fields (a
    /// decoded block of only comments, unknown fields, or an `id:` or `retry:` that a
    /// decoder ignores) is written as a blank line alone, which a decoder, like a WHATWG
    /// reader, takes as no event.
    fn encode(&mut self, item: &SseFrame, dst: &mut BytesMut) -> Result<(), CodecError> {
        encode_sse(item, dst, &self.framer)
    }
}

/// [`SseCodec`]'s encoding of `item` under `framer`'s limits (shared with
/// [`SseBatchCodec`]).
fn encode_sse(item: &SseFrame, dst: &mut BytesMut, framer: &SseFramer) -> Result<(), CodecError> {
    let max_line = framer.max_line_len();
    let content_ok = item.error().is_none()
        && item.data.len() <= framer.max_event_len()
        && memchr::memchr(b'\r', &item.data).is_none()
        && item.id.as_ref().is_none_or(|v| encodable_field(v, true))
        && item
            .event
            .as_ref()
            .is_none_or(|v| encodable_field(v, false));
    if !content_ok {
        return Err(unencodable(item.data.len()));
    }
    // Each line is written as it is found to fit the line limit; on the first that does
    // not, `dst` is cut back to where it was.
    let start = dst.len();
    dst.reserve(item.data.len() + 32);
    let mut put = |name: &[u8], value: &[u8]| match field_sep(name, value, max_line) {
        Some(sep) => {
            put_field(dst, name, sep, value);
            true
        }
        None => false,
    };
    let written = item.id.as_ref().is_none_or(|id| put(b"id", id))
        && item.event.as_ref().is_none_or(|ev| put(b"event", ev))
        && item
            .retry
            .is_none_or(|r| put(b"retry", r.to_string().as_bytes()))
        && ((!item.has_data && item.data.is_empty())
            || item
                .data
                .split(|&b| b == b'\n')
                .all(|part| put(b"data", part)));
    if !written {
        dst.truncate(start);
        return Err(unencodable(item.data.len()));
    }
    dst.put_u8(b'\n');
    Ok(())
}

impl Encoder<SseFrame> for SseCodec {
    type Error = CodecError;
    /// As for `&SseFrame`; owned, so that a `FramedWrite` sink takes decoded items as they
    /// come (`sink.send(frame)`).
    fn encode(&mut self, item: SseFrame, dst: &mut BytesMut) -> Result<(), CodecError> {
        self.encode(&item, dst)
    }
}

impl Encoder<Bytes> for SseCodec {
    type Error = CodecError;
    /// Writes `event: message` and the data as `data: ` lines, then a blank line (the form
    /// the official SDK servers use; without the `event:` line when the codec's line limit is
    /// under 13 bytes).
    fn encode(&mut self, item: Bytes, dst: &mut BytesMut) -> Result<(), CodecError> {
        encode_sse(&message_event(item, &self.framer), dst, &self.framer)
    }
}

/// `data` as the event [`SseCodec`]'s `Encoder<Bytes>` writes: with `event: message`, unless
/// even `event:message` is over `framer`'s line limit (the event type is `message` without
/// it too).
fn message_event(data: Bytes, framer: &SseFramer) -> SseFrame {
    if field_sep(b"event", b"message", framer.max_line_len()).is_some() {
        SseFrame::new(data).with_event(Bytes::from_static(b"message"))
    } else {
        SseFrame::new(data)
    }
}

// ===== BodyCodec =====

/// One HTTP body as one [`Frame`]: decodes nothing until end of input, then yields the body;
/// an empty body (e.g. a 202 Accepted reply) yields no item, unless the codec reads request
/// bodies ([`for_requests`](Self::for_requests)). A body over the limit or over its declared
/// `Content-Length` is a decoder `Err` with [`FrameErrorKind::BodyTooLarge`] (fatal: answer
/// HTTP 413), one shorter than its declared `Content-Length` an `Err` with
/// [`FrameErrorKind::TruncatedBody`].
#[derive(Clone, Debug, Default)]
pub struct BodyCodec {
    framer: BodyFramer,
    parser: Parser,
    /// A 0-byte body is an item (request bodies).
    empty_is_frame: bool,
}

impl BodyCodec {
    /// Default limit (4 MiB) and parser.
    pub fn new() -> Self {
        Self::default()
    }
    /// With a body limit and a parser.
    pub fn with_parser(max_body_len: usize, parser: Parser) -> Self {
        Self {
            framer: BodyFramer::with_max_body_len(max_body_len),
            parser,
            empty_is_frame: false,
        }
    }
    /// For request bodies (client to server, a POST): a 0-byte body is an item too, whose
    /// envelope is the parse error [`ErrorKind::Empty`](crate::ErrorKind::Empty) (-32700), the
    /// answer a server owes it, as `mcpwire check` and `proxy http` judge a 0-byte POST body.
    /// The default reads response bodies, where a 0-byte body (a 202 Accepted reply) carries
    /// no message and yields no item (hostile trial, session 21: a server reading POST bodies
    /// with the default got nothing to answer).
    pub fn for_requests(mut self) -> Self {
        self.empty_is_frame = true;
        self
    }
    /// Declares the `Content-Length`; `Err` when it is over the limit.
    pub fn set_content_length(&mut self, len: u64) -> Result<(), FrameError> {
        self.framer.set_content_length(len)
    }
}

impl Decoder for BodyCodec {
    type Item = Frame;
    type Error = CodecError;
    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, CodecError> {
        match self.framer.decode(src).status {
            Status::Complete(Err(e)) => Err(CodecError::Frame(e)),
            _ => Ok(None),
        }
    }
    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, CodecError> {
        let d = self.framer.finish(src);
        match d.status {
            Status::Partial => {
                src.advance(d.consumed);
                Ok(None)
            }
            Status::Complete(Err(e)) => Err(CodecError::Frame(e)),
            // A 0-byte response body (a 202 Accepted reply) is no message: no item, as in the
            // CLI. (The framer reports a body once: the next call is `Partial`.)
            Status::Complete(Ok(b)) if b.is_empty() && !self.empty_is_frame => Ok(None),
            Status::Complete(Ok(b)) => {
                let bytes = src.split_to(b.len()).freeze();
                let raw = RawFrame {
                    bytes,
                    offset: 0,
                    line: 0,
                    cr_stripped: false,
                    error: None,
                };
                Ok(Some(Frame::from_raw(raw, &self.parser)))
            }
        }
    }
}
