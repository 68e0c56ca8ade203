//! Reference framers: simple, obviously-correct NDJSON and SSE framers for differential tests.
//!
//! These are deliberately naive: they see the whole stream at once, make one forward pass,
//! allocate freely, and share no code with [`crate::framing`]. The fuzz targets `ndjson` and
//! `sse` and the replay test (`tests/fuzz_replay.rs`) feed the same stream to the real
//! incremental framers in arbitrary reads and require the same frames as these give.
//!
//! * [`reference_ndjson`]: stdio framing (MCP 2026-07-28 basic/transports §stdio): frames are
//!   the bytes between LF (0x0A) bytes; one trailing CR (0x0D) of a line is stripped; empty
//!   lines are skipped; an unterminated last line is dropped at end of stream (reliability
//!   notes §4.1, "partial frame at EOF"); a line longer than the frame limit is reported once
//!   as [`NdjsonItem::Oversize`] and its bytes discarded up to the next LF; a line within
//!   the limit that still holds a CR after that is [`NdjsonItem::BareCr`], its bytes dropped.
//! * [`reference_sse`]: `text/event-stream` per the WHATWG HTML "server-sent events"
//!   interpretation rules (§9.2.6): one leading UTF-8 BOM stripped; lines end at CRLF, LF or
//!   CR; `:` starts a comment; `field:value` with one leading space of the value removed; a
//!   line without a colon is a field with an empty value; `data` values are appended with LF
//!   and the final LF removed at dispatch; an empty line dispatches the event unless the data
//!   buffer is empty; `event`, `id` (ignored when it contains NUL) and `retry` (ASCII digits
//!   only) as specified; an unterminated last line and an undispatched event are discarded at
//!   end of stream. Bytes are kept as bytes (no UTF-8 decoding): the envelope layer validates
//!   UTF-8 of each frame.

use std::fmt;
use std::ops::Range;

/// One output of the reference NDJSON framer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NdjsonItem {
    /// A frame: the line's bytes without the LF and without one trailing CR.
    Frame {
        /// Byte range of the frame in the stream.
        range: Range<usize>,
        /// 1-based line number.
        line: u64,
    },
    /// A line longer than the frame limit (bytes of the line without its LF and trailing CR),
    /// discarded up to the next LF.
    Oversize {
        /// Byte offset in the stream where the oversize line starts.
        start: usize,
        /// 1-based line number.
        line: u64,
    },
    /// A line within the limit holding a CR that does not end it (not right before its LF),
    /// discarded.
    BareCr {
        /// Byte offset in the stream where the line starts.
        start: usize,
        /// 1-based line number.
        line: u64,
        /// Bytes of the line without its LF and trailing CR.
        len: usize,
    },
}

/// What the reference NDJSON framer reads from a whole stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NdjsonReading {
    /// Frames and oversize lines, in stream order.
    pub items: Vec<NdjsonItem>,
    /// The unterminated bytes after the last LF (dropped at end of stream); empty when the
    /// stream ends with LF.
    pub unterminated: Range<usize>,
}

/// Frames `stream` as newline-delimited JSON (see the module docs for the rules).
///
/// `max_frame_len` is the largest accepted frame in bytes (not counting LF and the stripped
/// CR). Runs in O(n) time.
pub fn reference_ndjson(stream: &[u8], max_frame_len: usize) -> NdjsonReading {
    let mut items = Vec::new();
    let mut line_start = 0;
    let mut line = 0;
    for (i, &b) in stream.iter().enumerate() {
        if b != b'\n' {
            continue;
        }
        let mut end = i;
        line += 1;
        if end > line_start && stream[end - 1] == b'\r' {
            end -= 1;
        }
        if end > line_start {
            if end - line_start > max_frame_len {
                items.push(NdjsonItem::Oversize {
                    start: line_start,
                    line,
                });
            } else if stream[line_start..end].contains(&b'\r') {
                items.push(NdjsonItem::BareCr {
                    start: line_start,
                    line,
                    len: end - line_start,
                });
            } else {
                items.push(NdjsonItem::Frame {
                    range: line_start..end,
                    line,
                });
            }
        }
        line_start = i + 1;
    }
    NdjsonReading {
        items,
        unterminated: line_start..stream.len(),
    }
}

/// One event dispatched by the reference SSE framer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    /// The event type: the last `event` field's value, or `message` when there was none (or it
    /// was empty).
    pub event_type: Vec<u8>,
    /// The data buffer: every `data` value joined with LF.
    pub data: Vec<u8>,
    /// The last event ID buffer at dispatch time (persists across events, per WHATWG).
    pub last_event_id: Vec<u8>,
}

/// What the reference SSE framer reads from a whole stream.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SseReading {
    /// Dispatched events in stream order.
    pub events: Vec<SseEvent>,
    /// The last valid `retry` value seen (milliseconds), if any.
    pub retry: Option<u64>,
    /// The last valid `retry` value seen up to the last empty line (what a framer that reports
    /// `retry` per event block can report).
    pub retry_at_last_blank: Option<u64>,
    /// True when the stream ended with an event that was never dispatched (its data buffer
    /// held bytes) or with an unterminated line: those bytes are discarded.
    pub discarded_at_end: bool,
    /// True when the stream ended inside an event block: a non-comment line after the last
    /// empty line, or an unterminated last line that is not a comment.
    pub pending_at_end: bool,
}

/// Splits `stream` into SSE lines (line ends CRLF, LF or CR); also returns the unterminated
/// rest (empty when the stream ends with a line end).
fn sse_lines(stream: &[u8]) -> (Vec<&[u8]>, &[u8]) {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < stream.len() {
        match stream[i] {
            b'\n' => {
                lines.push(&stream[start..i]);
                i += 1;
                start = i;
            }
            b'\r' => {
                lines.push(&stream[start..i]);
                i += 1;
                if i < stream.len() && stream[i] == b'\n' {
                    i += 1;
                }
                start = i;
            }
            _ => i += 1,
        }
    }
    (lines, &stream[start..])
}

/// Interprets `stream` as a `text/event-stream` (see the module docs for the rules).
pub fn reference_sse(stream: &[u8]) -> SseReading {
    let body = stream.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(stream);
    let (lines, unterminated) = sse_lines(body);
    let mut reading = SseReading::default();
    let mut data: Vec<u8> = Vec::new();
    let mut event_type: Vec<u8> = Vec::new();
    let mut last_event_id: Vec<u8> = Vec::new();
    let mut in_block = false;
    for line in lines {
        if line.is_empty() {
            in_block = false;
            reading.retry_at_last_blank = reading.retry;
            if data.is_empty() {
                event_type.clear();
                continue;
            }
            data.pop(); // the data buffer always ends with the LF appended below
            let ty = if event_type.is_empty() {
                b"message".to_vec()
            } else {
                event_type.clone()
            };
            reading.events.push(SseEvent {
                event_type: ty,
                data: std::mem::take(&mut data),
                last_event_id: last_event_id.clone(),
            });
            event_type.clear();
            continue;
        }
        if line[0] == b':' {
            continue;
        }
        in_block = true;
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(c) => {
                let v = &line[c + 1..];
                (&line[..c], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"event" => event_type = value.to_vec(),
            b"data" => {
                data.extend_from_slice(value);
                data.push(b'\n');
            }
            b"id" if !value.contains(&0) => last_event_id = value.to_vec(),
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                // WHATWG integers are unbounded; a value beyond u64 is ignored (the framer's
                // documented choice, FUZZING.md) rather than saturated.
                let parsed = value.iter().try_fold(0u64, |acc, &d| {
                    acc.checked_mul(10)?.checked_add(u64::from(d - b'0'))
                });
                if parsed.is_some() {
                    reading.retry = parsed;
                }
            }
            _ => {}
        }
    }
    reading.discarded_at_end = !unterminated.is_empty() || !data.is_empty();
    reading.pending_at_end = in_block || unterminated.first().is_some_and(|&b| b != b':');
    reading
}

/// A disagreement found by a framing oracle: what was checked and both readings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// Which check failed (stable short text, e.g. `ndjson: split vs one read`).
    pub check: &'static str,
    /// Human-readable detail: both readings, escaped.
    pub detail: String,
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.check, self.detail)
    }
}

impl std::error::Error for Disagreement {}

/// Turns fuzzer-chosen split points into sorted, in-bounds, strictly increasing read
/// boundaries of a stream of `len` bytes (duplicates and out-of-range values dropped, each
/// value taken modulo `len + 1`).
pub fn normalise_splits(len: usize, split_points: &[usize]) -> Vec<usize> {
    let mut v: Vec<usize> = split_points
        .iter()
        .map(|&p| p % (len + 1))
        .filter(|&p| p > 0 && p < len)
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Cuts `stream` into reads at `split_points` (normalised with [`normalise_splits`]).
pub fn reads<'s>(stream: &'s [u8], split_points: &[usize]) -> Vec<&'s [u8]> {
    let mut out = Vec::new();
    let mut prev = 0;
    for p in normalise_splits(stream.len(), split_points) {
        out.push(&stream[prev..p]);
        prev = p;
    }
    out.push(&stream[prev..]);
    out
}

/// Escapes bytes for a readable disagreement report.
pub fn show(bytes: &[u8]) -> String {
    bytes.escape_ascii().to_string()
}

// ===== Differential checks of the real framers (crate::framing) =====

use crate::framing::ndjson::NdjsonFramer;
use crate::framing::sse::{OwnedSseEvent, SseFramer};
use crate::framing::{FrameError, FrameErrorKind, Status};

/// One NDJSON framer output, normalised for comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NdjsonOut {
    /// A frame: stream offset, 1-based line, bytes.
    Frame(u64, u64, Vec<u8>),
    /// [`FrameErrorKind::FrameTooLarge`] at a stream offset and line.
    TooLarge(u64, u64),
    /// [`FrameErrorKind::UnterminatedLine`] at a stream offset, with its length.
    Unterminated(u64, usize),
    /// [`FrameErrorKind::BareCr`] at a stream offset and line, with its length.
    BareCr(u64, u64, usize),
    /// Any other frame error (never expected from the NDJSON framer).
    Other(FrameError),
}

fn ndjson_error(e: FrameError) -> NdjsonOut {
    match e.kind() {
        FrameErrorKind::FrameTooLarge => NdjsonOut::TooLarge(e.offset(), e.line()),
        FrameErrorKind::UnterminatedLine => NdjsonOut::Unterminated(e.offset(), e.len()),
        FrameErrorKind::BareCr => NdjsonOut::BareCr(e.offset(), e.line(), e.len()),
        _ => NdjsonOut::Other(e),
    }
}

/// Feeds `reads` in turn to a fresh [`NdjsonFramer`] under the buffer contract, then
/// finishes. Also checks the framer's own guarantees: progress on every call, pending bytes
/// bounded by the limit after a partial, bytes examined at most the bytes fed.
///
/// # Errors
/// A [`Disagreement`] when a guarantee does not hold.
pub fn run_ndjson(max_frame_len: usize, reads: &[&[u8]]) -> Result<Vec<NdjsonOut>, Disagreement> {
    let total: usize = reads.iter().map(|r| r.len()).sum();
    let mut framer = NdjsonFramer::with_max_frame_len(max_frame_len);
    let mut buf: Vec<u8> = Vec::new();
    let mut out = Vec::new();
    let mut calls = 0usize;
    let budget = 2 * total + 2 * reads.len() + 16;
    let fail = |check, detail: String| Err(Disagreement { check, detail });
    for (n, read) in reads.iter().enumerate() {
        buf.extend_from_slice(read);
        let last = n + 1 == reads.len();
        loop {
            calls += 1;
            if calls > budget {
                return fail(
                    "ndjson: no progress",
                    format!("{calls} calls for {total} bytes"),
                );
            }
            let d = if last {
                framer.finish(&buf)
            } else {
                framer.decode(&buf)
            };
            if d.consumed > buf.len() {
                return fail(
                    "ndjson: consumed beyond buffer",
                    format!("{} > {}", d.consumed, buf.len()),
                );
            }
            let partial = match d.status {
                Status::Partial => true,
                Status::Complete(Ok(f)) => {
                    if f.range().end > d.consumed {
                        return fail("ndjson: frame beyond consumed", format!("{:?}", f.range()));
                    }
                    out.push(NdjsonOut::Frame(
                        f.offset(),
                        f.line(),
                        buf[f.range()].to_vec(),
                    ));
                    false
                }
                Status::Complete(Err(e)) => {
                    out.push(ndjson_error(e));
                    false
                }
            };
            buf.drain(..d.consumed);
            if partial {
                if !last && buf.len() > max_frame_len.saturating_add(2) {
                    return fail(
                        "ndjson: pending bytes over the limit",
                        format!("{} pending, limit {max_frame_len}", buf.len()),
                    );
                }
                break;
            }
        }
    }
    if !buf.is_empty() {
        return fail("ndjson: bytes left after finish", show(&buf));
    }
    if framer.bytes_examined() > total as u64 {
        return fail(
            "ndjson: bytes examined over bytes fed",
            format!("{} > {total}", framer.bytes_examined()),
        );
    }
    Ok(out)
}

/// What [`reference_ndjson`] expects the real framer to report, as [`NdjsonOut`]s: an
/// unterminated last line is skipped when it is a lone CR (a blank line), reported as too
/// large when over the limit without a last CR (as a CR before an LF would be stripped), else
/// as unterminated.
pub fn expected_ndjson(stream: &[u8], max_frame_len: usize) -> Vec<NdjsonOut> {
    let r = reference_ndjson(stream, max_frame_len);
    let mut out: Vec<NdjsonOut> = r
        .items
        .into_iter()
        .map(|i| match i {
            NdjsonItem::Frame { range, line } => {
                NdjsonOut::Frame(range.start as u64, line, stream[range].to_vec())
            }
            NdjsonItem::Oversize { start, line } => NdjsonOut::TooLarge(start as u64, line),
            NdjsonItem::BareCr { start, line, len } => NdjsonOut::BareCr(start as u64, line, len),
        })
        .collect();
    let tail = r.unterminated;
    if !tail.is_empty() {
        let line = 1 + stream[..tail.start].iter().filter(|&&b| b == b'\n').count() as u64;
        let bytes = &stream[tail.clone()];
        let content = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        // A lone CR is a blank line.
        if bytes != b"\r" {
            if content.len() > max_frame_len {
                out.push(NdjsonOut::TooLarge(tail.start as u64, line));
            } else {
                out.push(NdjsonOut::Unterminated(tail.start as u64, tail.len()));
            }
        }
    }
    out
}

/// The `ndjson` oracle: `stream` cut into reads at `split_points` gives exactly the frames
/// and errors of one read, and those equal [`expected_ndjson`] (the reference framer).
///
/// # Errors
/// The first [`Disagreement`] found.
pub fn check_ndjson_splits(
    stream: &[u8],
    split_points: &[usize],
    max_frame_len: usize,
) -> Result<(), Disagreement> {
    let whole = run_ndjson(max_frame_len, &[stream])?;
    let split = run_ndjson(max_frame_len, &reads(stream, split_points))?;
    if whole != split {
        return Err(Disagreement {
            check: "ndjson: split reads vs one read",
            detail: format!(
                "splits {:?}\n one read: {whole:?}\n split:    {split:?}",
                normalise_splits(stream.len(), split_points)
            ),
        });
    }
    let expected = expected_ndjson(stream, max_frame_len);
    if whole != expected {
        return Err(Disagreement {
            check: "ndjson: framer vs reference",
            detail: format!("framer:    {whole:?}\n reference: {expected:?}"),
        });
    }
    Ok(())
}

/// What a tokio-util `FramedRead` would take from `codec` fed `reads`: items until the first
/// decoder `Err` (returned as its text) or the end of the stream (`decode` until `None`
/// after each read, then `decode_eof` until `None`).
#[cfg(feature = "codec")]
pub fn drive_codec<D: tokio_util::codec::Decoder>(
    codec: &mut D,
    reads: &[&[u8]],
) -> (Vec<D::Item>, Option<String>)
where
    D::Error: fmt::Display,
{
    let mut buf = bytes::BytesMut::new();
    let mut items = Vec::new();
    for r in reads {
        buf.extend_from_slice(r);
        loop {
            match codec.decode(&mut buf) {
                Ok(Some(item)) => items.push(item),
                Ok(None) => break,
                Err(e) => return (items, Some(e.to_string())),
            }
        }
    }
    loop {
        match codec.decode_eof(&mut buf) {
            Ok(Some(item)) => items.push(item),
            Ok(None) => return (items, None),
            Err(e) => return (items, Some(e.to_string())),
        }
    }
}

/// [`NdjsonBatchCodec`](crate::codec::NdjsonBatchCodec) against
/// [`NdjsonRawCodec`](crate::codec::NdjsonRawCodec) on the same reads, limit and oversize
/// policy (`fatal`: [`OnOversize::Fatal`](crate::codec::OnOversize::Fatal)): the batches,
/// each of 1 to `max_batch` frames (0 counts as 1), flattened, are the per-frame items
/// (bytes, offsets, lines, CR notes, errors) in order, a frame reads the same borrowed
/// ([`BatchFrame`](crate::codec::BatchFrame)) as owned, and a decoder `Err` comes at the same
/// point with the same text.
///
/// # Errors
/// A [`Disagreement`] naming the first difference.
#[cfg(feature = "codec")]
pub fn check_ndjson_batch_codec(
    reads: &[&[u8]],
    max_frame_len: usize,
    fatal: bool,
    max_batch: usize,
) -> Result<(), Disagreement> {
    use crate::codec::{NdjsonBatchCodec, NdjsonRawCodec, OnOversize, RawFrame};
    let policy = if fatal {
        OnOversize::Fatal
    } else {
        OnOversize::Report
    };
    let (want, want_err) = drive_codec(
        &mut NdjsonRawCodec::with_max_frame_len(max_frame_len).on_oversize(policy),
        reads,
    );
    let (batches, err) = drive_codec(
        &mut NdjsonBatchCodec::with_max_frame_len(max_frame_len)
            .on_oversize(policy)
            .with_max_batch_frames(max_batch),
        reads,
    );
    let disagree = |detail: String| Disagreement {
        check: "ndjson: batch codec vs per-frame codec",
        detail,
    };
    let mut got: Vec<RawFrame> = Vec::new();
    for b in batches {
        if b.is_empty() || b.len() > max_batch.max(1) {
            return Err(disagree(format!("a batch of {} frames", b.len())));
        }
        for f in b.iter() {
            let raw = f.to_raw();
            let same = f.bytes() == &raw.bytes()[..]
                && f.error() == raw.error()
                && (f.offset(), f.line(), f.cr_stripped())
                    == (raw.offset(), raw.line(), raw.cr_stripped());
            if !same {
                return Err(disagree(format!("borrowed {f:?} vs owned {raw:?}")));
            }
        }
        got.extend(b.into_frames());
    }
    if got != want || err != want_err {
        return Err(disagree(format!(
            "batches: {got:?} then {err:?}\n per frame: {want:?} then {want_err:?}"
        )));
    }
    Ok(())
}

/// The fields of an [`SseFrame`](crate::codec::SseFrame) that a codec that does not parse
/// fills, for comparison.
#[cfg(feature = "codec")]
type SseFrameFields = (
    bytes::Bytes,
    bool,
    Option<bytes::Bytes>,
    Option<bytes::Bytes>,
    Option<u64>,
    (u64, u64),
    Vec<crate::framing::sse::DataLineStart>,
    Option<FrameError>,
);

#[cfg(feature = "codec")]
fn sse_frame_fields(f: &crate::codec::SseFrame) -> SseFrameFields {
    (
        f.data().clone(),
        f.has_data(),
        f.event().cloned(),
        f.id().cloned(),
        f.retry(),
        (f.offset(), f.line()),
        f.data_line_starts().collect(),
        f.error(),
    )
}

/// [`SseBatchCodec`](crate::codec::SseBatchCodec) against an
/// [`SseCodec`](crate::codec::SseCodec) that does not parse, on the same reads and limits
/// (`max_event_len`, `max_line_len`): the batches, each of 1 to `max_batch` items (0 counts
/// as 1), flattened, are the per-event items (data, fields, offsets, lines, data line starts,
/// errors) in order; an item reads the same borrowed
/// ([`BatchEvent`](crate::codec::BatchEvent)) as owned, `is_message` and `data_position`
/// included; and both codecs' framers end with the same stream offset and counters (events,
/// fast-path events, bytes examined, comments, unknown fields, BOM stripped).
///
/// # Errors
/// A [`Disagreement`] naming the first difference.
#[cfg(feature = "codec")]
pub fn check_sse_batch_codec(
    reads: &[&[u8]],
    (max_event_len, max_line_len): (usize, usize),
    max_batch: usize,
) -> Result<(), Disagreement> {
    use crate::codec::{SseBatchCodec, SseCodec};
    let mut per_event = SseCodec::with_limits(max_event_len, max_line_len, None);
    let (want, want_err) = drive_codec(&mut per_event, reads);
    let mut batch =
        SseBatchCodec::with_limits(max_event_len, max_line_len).with_max_batch_events(max_batch);
    let (batches, err) = drive_codec(&mut batch, reads);
    let disagree = |detail: String| Disagreement {
        check: "sse: batch codec vs per-event codec",
        detail,
    };
    // The framer ends where per-event `decode` calls leave it, whichever path took the
    // events (the batch codec's fast run advances it without a `decode` per event).
    let counters = |f: &SseFramer| {
        (
            f.stream_offset(),
            f.events(),
            f.fast_path_events(),
            f.bytes_examined(),
            f.comments(),
            f.unknown_fields(),
            f.bom_stripped(),
        )
    };
    if counters(batch.framer()) != counters(per_event.framer()) {
        return Err(disagree(format!(
            "framer counters (offset, events, fast-path events, examined, comments, unknown \
             fields, BOM) {:?} vs per event {:?}",
            counters(batch.framer()),
            counters(per_event.framer())
        )));
    }
    let mut got = Vec::new();
    for b in batches {
        if b.is_empty() || b.len() > max_batch.max(1) {
            return Err(disagree(format!("a batch of {} items", b.len())));
        }
        for ev in &b {
            let f = ev.to_frame();
            let same = ev.data() == &f.data()[..]
                && ev.has_data() == f.has_data()
                && ev.event() == f.event().map(|b| &b[..])
                && ev.id() == f.id().map(|b| &b[..])
                && (
                    ev.retry(),
                    ev.offset(),
                    ev.line(),
                    ev.error(),
                    ev.data_offset(),
                ) == (f.retry(), f.offset(), f.line(), f.error(), f.data_offset())
                && ev.is_message() == f.is_message()
                && ev.data_line_starts().eq(f.data_line_starts())
                && (0..=ev.data().len() + 1).all(|at| ev.data_position(at) == f.data_position(at));
            if !same {
                return Err(disagree(format!("borrowed {ev:?} vs owned {f:?}")));
            }
        }
        got.extend(b.into_frames().map(|f| sse_frame_fields(&f)));
    }
    let want: Vec<_> = want.iter().map(sse_frame_fields).collect();
    if got != want || err.is_some() || want_err.is_some() {
        return Err(disagree(format!(
            "batches: {got:?} then {err:?}\n per event: {want:?} then {want_err:?}"
        )));
    }
    Ok(())
}

/// Feeds `reads` to a fresh [`SseFramer`] with the given limits under the buffer contract,
/// then finishes; checks progress, pending-bytes bound and bytes examined (at most twice the
/// bytes fed plus a constant, as the framer documents).
///
/// # Errors
/// A [`Disagreement`] when a guarantee does not hold.
pub fn run_sse(
    max_event_len: usize,
    max_line_len: usize,
    reads: &[&[u8]],
) -> Result<Vec<Result<OwnedSseEvent, FrameError>>, Disagreement> {
    let total: usize = reads.iter().map(|r| r.len()).sum();
    let mut framer = SseFramer::with_limits(max_event_len, max_line_len);
    let mut buf: Vec<u8> = Vec::new();
    let mut out = Vec::new();
    let mut calls = 0usize;
    let budget = 2 * total + 2 * reads.len() + 16;
    let fail = |check, detail: String| Err(Disagreement { check, detail });
    for (n, read) in reads.iter().enumerate() {
        buf.extend_from_slice(read);
        let last = n + 1 == reads.len();
        loop {
            calls += 1;
            if calls > budget {
                return fail(
                    "sse: no progress",
                    format!("{calls} calls for {total} bytes"),
                );
            }
            let d = if last {
                framer.finish(&buf)
            } else {
                framer.decode(&buf)
            };
            let consumed = d.consumed;
            let partial = match d.status {
                Status::Partial => true,
                Status::Complete(Ok(ev)) => {
                    out.push(Ok(OwnedSseEvent::from(&ev)));
                    false
                }
                Status::Complete(Err(e)) => {
                    out.push(Err(e));
                    false
                }
            };
            if consumed > buf.len() {
                return fail(
                    "sse: consumed beyond buffer",
                    format!("{consumed} > {}", buf.len()),
                );
            }
            buf.drain(..consumed);
            if partial {
                let bound = max_event_len.saturating_add(max_line_len).saturating_add(4);
                if !last && buf.len() > bound {
                    return fail(
                        "sse: pending bytes over the limits",
                        format!("{} pending, bound {bound}", buf.len()),
                    );
                }
                break;
            }
        }
    }
    if !buf.is_empty() {
        return fail("sse: bytes left after finish", show(&buf));
    }
    if framer.bytes_examined() > 2 * total as u64 + 16 {
        return fail(
            "sse: bytes examined over twice the bytes fed",
            format!("{} > 2 * {total}", framer.bytes_examined()),
        );
    }
    Ok(out)
}

/// The framer's events as the reference sees them: dispatched (data-bearing) events with the
/// persistent last event ID, the last `retry`, and whether an unterminated event was reported.
fn sse_as_reference(out: &[Result<OwnedSseEvent, FrameError>]) -> Result<SseReading, Disagreement> {
    let mut r = SseReading::default();
    let mut last_id: Vec<u8> = Vec::new();
    for (i, item) in out.iter().enumerate() {
        match item {
            Ok(ev) => {
                if let Some(id) = &ev.id {
                    last_id = id.clone();
                }
                if ev.retry.is_some() {
                    r.retry = ev.retry;
                    r.retry_at_last_blank = ev.retry;
                }
                if ev.has_data {
                    let ty = match &ev.event {
                        Some(t) if !t.is_empty() => t.clone(),
                        _ => b"message".to_vec(),
                    };
                    r.events.push(SseEvent {
                        event_type: ty,
                        data: ev.data.clone(),
                        last_event_id: last_id.clone(),
                    });
                }
            }
            Err(e) if e.kind() == FrameErrorKind::UnterminatedEvent && i + 1 == out.len() => {
                r.pending_at_end = true;
            }
            Err(e) => {
                return Err(Disagreement {
                    check: "sse: unexpected frame error",
                    detail: format!("{e} at item {i}"),
                });
            }
        }
    }
    Ok(r)
}

/// The `sse` oracle: `stream` cut into reads at `split_points` gives exactly the events and
/// errors of one read; with `limits == None` (the defaults, larger than any fuzz input) the
/// dispatched events, last event IDs, `retry` and the end-of-stream report also equal
/// [`reference_sse`]'s. With `Some((max_event_len, max_line_len))` only split invariance and the
/// framer's guarantees are checked (the reference has no limits).
///
/// # Errors
/// The first [`Disagreement`] found.
pub fn check_sse_splits(
    stream: &[u8],
    split_points: &[usize],
    limits: Option<(usize, usize)>,
) -> Result<(), Disagreement> {
    let (ev_max, line_max) = limits.unwrap_or((
        crate::framing::DEFAULT_MAX_FRAME_LEN,
        crate::framing::DEFAULT_MAX_FRAME_LEN + crate::framing::sse::LINE_OVERHEAD,
    ));
    let whole = run_sse(ev_max, line_max, &[stream])?;
    let split = run_sse(ev_max, line_max, &reads(stream, split_points))?;
    if whole != split {
        return Err(Disagreement {
            check: "sse: split reads vs one read",
            detail: format!(
                "splits {:?}\n one read: {whole:?}\n split:    {split:?}",
                normalise_splits(stream.len(), split_points)
            ),
        });
    }
    if limits.is_some() {
        return Ok(());
    }
    let got = sse_as_reference(&whole)?;
    let want = reference_sse(stream);
    let same = got.events == want.events
        && got.retry_at_last_blank == want.retry_at_last_blank
        && got.pending_at_end == want.pending_at_end;
    if !same {
        return Err(Disagreement {
            check: "sse: framer vs reference",
            detail: format!(
                "framer:    {:?} retry {:?} pending {}\n reference: {:?} retry {:?} pending {}",
                got.events,
                got.retry_at_last_blank,
                got.pending_at_end,
                want.events,
                want.retry_at_last_blank,
                want.pending_at_end
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(stream: &[u8], max: usize) -> Vec<Result<&[u8], usize>> {
        reference_ndjson(stream, max)
            .items
            .into_iter()
            .map(|i| match i {
                NdjsonItem::Frame { range, .. } => Ok(&stream[range]),
                NdjsonItem::Oversize { start, .. } | NdjsonItem::BareCr { start, .. } => Err(start),
            })
            .collect()
    }

    #[test]
    fn ndjson_lf_crlf_blank_and_tail() {
        let s = b"{\"a\":1}\n\r\n\n{\"b\":2}\r\n{\"c\"";
        assert_eq!(
            frames(s, 100),
            vec![Ok(&b"{\"a\":1}"[..]), Ok(&b"{\"b\":2}"[..])]
        );
        assert_eq!(reference_ndjson(s, 100).unterminated, 20..s.len());
    }

    #[test]
    fn ndjson_strips_only_one_cr() {
        // The CR left after stripping one is a bare CR: the line is rejected.
        assert_eq!(frames(b"x\r\r\n", 10), vec![Err(0)]);
        // A lone CR line is blank after stripping.
        assert_eq!(frames(b"\r\n", 10), vec![]);
        // A CR inside a line: rejected, with its length; the next line is read.
        assert_eq!(frames(b"a\rb\n{}\n", 10), vec![Err(0), Ok(&b"{}"[..])]);
        assert_eq!(
            reference_ndjson(b"a\rb\n", 10).items,
            vec![NdjsonItem::BareCr {
                start: 0,
                line: 1,
                len: 3
            }]
        );
    }

    #[test]
    fn ndjson_oversize_boundary() {
        // limit 3: 3 bytes accepted, 4 rejected; CR does not count.
        assert_eq!(
            frames(b"abc\r\nabcd\nab\n", 3),
            vec![Ok(&b"abc"[..]), Err(5), Ok(&b"ab"[..])]
        );
        assert_eq!(frames(b"abcd\n", 4), vec![Ok(&b"abcd"[..])]);
        assert_eq!(frames(b"abcd\n", 5), vec![Ok(&b"abcd"[..])]);
    }

    fn ev(ty: &str, data: &str, id: &str) -> SseEvent {
        SseEvent {
            event_type: ty.as_bytes().to_vec(),
            data: data.as_bytes().to_vec(),
            last_event_id: id.as_bytes().to_vec(),
        }
    }

    #[test]
    fn sse_whatwg_examples() {
        // WHATWG §9.2.6 examples, transcribed.
        let r = reference_sse(b"data: YHOO\ndata: +2\ndata: 10\n\n");
        assert_eq!(r.events, vec![ev("message", "YHOO\n+2\n10", "")]);

        let r = reference_sse(b": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n");
        assert_eq!(
            r.events,
            vec![
                ev("message", "first event", "1"),
                ev("message", "second event", "")
            ]
        );
        assert!(r.discarded_at_end);

        let r = reference_sse(b"data\n\ndata\ndata\n\ndata:");
        assert_eq!(
            r.events,
            vec![ev("message", "", ""), ev("message", "\n", "")]
        );
        assert!(r.discarded_at_end);

        let r = reference_sse(b"data:test\n\ndata: test\n\n");
        assert_eq!(
            r.events,
            vec![ev("message", "test", ""), ev("message", "test", "")]
        );
    }

    #[test]
    fn sse_line_ends_bom_event_retry() {
        let r = reference_sse(b"\xEF\xBB\xBFevent: x\rdata: a\r\ndata: b\r\r\n\r");
        assert_eq!(r.events, vec![ev("x", "a\nb", "")]);
        // Lines: "event: x", "data: a", "data: b", "" (CR LF), "" (CR): the first empty line
        // dispatches, the second has nothing to dispatch.
        assert!(!r.discarded_at_end);
        // Only one BOM is stripped: the second makes the field name "\u{FEFF}data".
        let r = reference_sse(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\n");
        assert!(r.events.is_empty());
        let r = reference_sse(b"retry: 10\nretry: 1x\nretry:\nid: a\0b\nid: 7\n\n");
        assert_eq!(r.retry, Some(10));
        assert!(r.events.is_empty());
        // `id` persists into the next dispatched event; an empty event type resets per event.
        let r = reference_sse(b"id: 7\n\nevent: e\ndata: 1\n\ndata: 2\n\n");
        assert_eq!(r.events, vec![ev("e", "1", "7"), ev("message", "2", "7")]);
    }

    #[test]
    fn sse_end_of_stream_reports() {
        // Unterminated comment: nothing pending; unterminated field line: pending.
        let r = reference_sse(b"data: a\n\n: ka");
        assert!(!r.pending_at_end && r.discarded_at_end);
        let r = reference_sse(b"data: a\n\nevent");
        assert!(r.pending_at_end);
        // A terminated field line without the blank line: pending, data discarded.
        let r = reference_sse(b"data: a\n");
        assert!(r.pending_at_end && r.discarded_at_end && r.events.is_empty());
        // An `event:` line alone is pending but discards no data.
        let r = reference_sse(b"event: x\n");
        assert!(r.pending_at_end && !r.discarded_at_end);
        // retry as of the last blank line.
        let r = reference_sse(b"retry: 1\n\nretry: 2\n");
        assert_eq!((r.retry, r.retry_at_last_blank), (Some(2), Some(1)));
        // Beyond u64: ignored (found by the sse fuzzer; the framer's documented choice).
        let r = reference_sse(b"retry: 500\n\nretry: 18446744073709551616\n\n");
        assert_eq!(r.retry, Some(500));
        let r = reference_sse(b"retry: 18446744073709551615\n\n");
        assert_eq!(r.retry, Some(u64::MAX));
    }

    #[test]
    fn splits_are_normalised() {
        assert_eq!(normalise_splits(10, &[3, 3, 0, 10, 21, 5]), vec![3, 5]);
        assert_eq!(reads(b"abcdef", &[2, 4]), vec![&b"ab"[..], b"cd", b"ef"]);
        assert_eq!(reads(b"", &[1]), vec![&b""[..]]);
    }
}
