//! [`SseBatchCodec`]: every complete SSE event of a read as one [`SseEventBatch`].

use std::fmt;
use std::ops::Range;

use bytes::{Buf, Bytes, BytesMut};
use tokio_util::codec::{Decoder, Encoder};

use super::{
    CodecError, SseContent, SseFrame, batch_room, encode_sse, message_event, push_reserving,
};
use crate::framing::sse::{self, DataLineStart, FastHit, SseEvent, SseFramer, event_type};
use crate::framing::{FrameError, Status, StreamPos};

/// Where a value of a batched event lies: `start..end` of the batch's read buffer, or of its
/// side buffer (`side`: joined data and field values the framer copied).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Span {
    side: bool,
    start: usize,
    end: usize,
}

/// A batched event's `event:` field.
#[derive(Clone, Debug, PartialEq, Eq)]
enum EventName {
    /// No `event:` line.
    None,
    /// Exactly `message` (the official SDK servers write it on every event): nothing copied.
    Message,
    /// Any other value.
    Other(Span),
}

/// One event of a batch in full: for the events [`Entry`]'s compact form does not cover.
#[derive(Clone, Debug, PartialEq, Eq)]
struct EventEntry {
    data: Span,
    has_data: bool,
    event: EventName,
    id: Option<Span>,
    retry: Option<u64>,
    offset: u64,
    line: u64,
    first_data: Option<StreamPos>,
    /// The event's later `data:` value starts: a range of the batch's `starts`.
    more_data: Range<usize>,
}

/// An item that does not fit [`Entry`]'s compact form.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Slow {
    Event(EventEntry),
    /// A framing error (oversize or unterminated event).
    Error(FrameError),
}

/// One item of a batch, 64 bytes. The compact form covers the events MCP servers send: one
/// `data:` line (its value in the read buffer), an `id:` value in the read buffer or none,
/// no `event:` line or `event: message`, no `retry:`; and events without data (`data` is
/// then `(0, 0)`). Any other item is kept in the batch's `slow` list and the entry points to
/// it (`slow != NO_SLOW`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    /// The data value: `data.0..data.1` of the read buffer.
    data: (usize, usize),
    /// The `id:` value in the read buffer, when `flags` has [`HAS_ID`].
    id: (usize, usize),
    offset: u64,
    line: u64,
    /// The first `data:` value's line, counted from `line`, and its 1-based column; its
    /// offset is the batch's base offset plus `data.0`.
    data_line: u32,
    data_col: u32,
    /// Index in the batch's `slow` list, or [`NO_SLOW`].
    slow: u32,
    flags: u8,
}

/// [`Entry::slow`] of a compact entry.
const NO_SLOW: u32 = u32::MAX;
/// [`Entry::flags`]: the event had a `data:` field.
const HAS_DATA: u8 = 1;
/// [`Entry::flags`]: the event had an `id:` field (its value at [`Entry::id`]).
const HAS_ID: u8 = 2;
/// [`Entry::flags`]: the event had `event: message`.
const EVENT_MESSAGE: u8 = 4;

/// An item read from a batch: the compact form, or a slow one.
enum Item<'b> {
    Fast(&'b Entry),
    Event(&'b EventEntry),
    Error(FrameError),
}

/// Every complete event that one [`SseBatchCodec::decode`] call found, as one item: one
/// `split_to(..).freeze()` of the read buffer for all of them (one reference count per batch,
/// not per event), plus one side buffer for what an event does not hold in the read buffer
/// (data joined from several `data:` lines, `event:` values other than `message`, `id:`
/// values the framer's line-by-line path copied).
///
/// Read the events borrowed ([`iter`](Self::iter), [`get`](Self::get)); take one out as an
/// owned [`SseFrame`] only where it must outlive the batch ([`BatchEvent::to_frame`],
/// [`into_frames`](Self::into_frames): zero-copy `Bytes::slice`s). Flattened, the batches
/// of a stream are exactly the items an [`SseCodec`](super::SseCodec) that does not parse
/// yields for it (fields, offsets, lines, data positions and errors).
#[derive(Clone)]
pub struct SseEventBatch {
    bytes: Bytes,
    /// Stream offset of `bytes[0]`.
    base: u64,
    side: Bytes,
    starts: Vec<DataLineStart>,
    entries: Vec<Entry>,
    slow: Vec<Slow>,
}

impl fmt::Debug for SseEventBatch {
    /// The items as [`BatchEvent`] shows them and the buffers' sizes, not the internal
    /// entries (trial, session 27: the derived form showed placeholder offsets of items kept
    /// in the side list).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SseEventBatch")
            .field("read_bytes", &self.bytes.len())
            .field("side_bytes", &self.side.len())
            .field("events", &self.iter().collect::<Vec<_>>())
            .finish()
    }
}

impl SseEventBatch {
    /// Number of items (error items included); at least 1 in a decoded batch.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    /// True when the batch holds no item (never for a decoded batch).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// The read-buffer bytes the decoder took for this batch (every line of its events,
    /// comments and discarded bytes included).
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }
    /// The item at `index`; `None` past the end.
    pub fn get(&self, index: usize) -> Option<BatchEvent<'_>> {
        self.entries
            .get(index)
            .map(|entry| BatchEvent { batch: self, entry })
    }
    /// The items in stream order (also `for event in &batch`).
    pub fn iter(&self) -> BatchEvents<'_> {
        BatchEvents {
            batch: self,
            entries: self.entries.iter(),
        }
    }
    /// The items as owned [`SseFrame`]s (values are zero-copy slices of the batch's buffers;
    /// no envelope is parsed).
    pub fn into_frames(self) -> impl ExactSizeIterator<Item = SseFrame> {
        (0..self.entries.len()).map(move |i| {
            BatchEvent {
                batch: &self,
                entry: &self.entries[i],
            }
            .to_frame()
        })
    }
    /// The buffer `s` lies in.
    fn buffer(&self, s: &Span) -> &Bytes {
        if s.side { &self.side } else { &self.bytes }
    }
    fn span(&self, s: &Span) -> &[u8] {
        &self.buffer(s)[s.start..s.end]
    }
    fn span_bytes(&self, s: &Span) -> Bytes {
        self.buffer(s).slice(s.start..s.end)
    }
    fn item<'b>(&'b self, e: &'b Entry) -> Item<'b> {
        match self.slow.get(e.slow as usize) {
            None => Item::Fast(e),
            Some(Slow::Event(ev)) => Item::Event(ev),
            Some(Slow::Error(err)) => Item::Error(*err),
        }
    }
}

/// The items of an [`SseEventBatch`] in stream order ([`SseEventBatch::iter`]).
#[derive(Clone, Debug)]
pub struct BatchEvents<'b> {
    batch: &'b SseEventBatch,
    entries: std::slice::Iter<'b, Entry>,
}

batch_iterator!(SseEventBatch, BatchEvents, BatchEvent);

/// One item of an [`SseEventBatch`], borrowed from it: an event or an error item, with the
/// accessors of [`SseFrame`] (less the envelope: parse [`data`](Self::data) in place with a
/// [`Parser`](crate::Parser) when [`is_message`](Self::is_message)).
#[derive(Clone, Copy)]
pub struct BatchEvent<'b> {
    batch: &'b SseEventBatch,
    entry: &'b Entry,
}

impl fmt::Debug for BatchEvent<'_> {
    /// The item's own fields, not the batch's buffers.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchEvent")
            .field("data", &Bytes::copy_from_slice(self.data()))
            .field("has_data", &self.has_data())
            .field("event", &self.event().map(Bytes::copy_from_slice))
            .field("id", &self.id().map(Bytes::copy_from_slice))
            .field("retry", &self.retry())
            .field("offset", &self.offset())
            .field("line", &self.line())
            .field(
                "data_line_starts",
                &self.data_line_starts().collect::<Vec<_>>(),
            )
            .field("error", &self.error())
            .finish()
    }
}

impl<'b> BatchEvent<'b> {
    fn item(&self) -> Item<'b> {
        self.batch.item(self.entry)
    }
    /// The event data: the `data:` values joined with LF; empty for an event without data
    /// and for an error item.
    pub fn data(&self) -> &'b [u8] {
        match self.item() {
            Item::Fast(e) => &self.batch.bytes[e.data.0..e.data.1],
            Item::Event(e) => self.batch.span(&e.data),
            Item::Error(_) => &[],
        }
    }
    /// True when the event had a `data:` field (possibly empty); false for an error item.
    pub fn has_data(&self) -> bool {
        match self.item() {
            Item::Fast(e) => e.flags & HAS_DATA != 0,
            Item::Event(e) => e.has_data,
            Item::Error(_) => false,
        }
    }
    /// As [`SseFrame::is_message`]: non-empty data and event type `message`, not an error
    /// item.
    pub fn is_message(&self) -> bool {
        self.error().is_none() && !self.data().is_empty() && self.event_type() == b"message"
    }
    /// The `event:` value.
    pub fn event(&self) -> Option<&'b [u8]> {
        match self.item() {
            Item::Fast(e) => (e.flags & EVENT_MESSAGE != 0).then_some(b"message"),
            Item::Event(e) => match &e.event {
                EventName::None => None,
                EventName::Message => Some(b"message"),
                EventName::Other(s) => Some(self.batch.span(s)),
            },
            Item::Error(_) => None,
        }
    }
    /// The event type: the `event:` value, or `b"message"` when absent or empty (WHATWG).
    pub fn event_type(&self) -> &'b [u8] {
        event_type(self.event())
    }
    /// The `id:` value.
    pub fn id(&self) -> Option<&'b [u8]> {
        match self.item() {
            Item::Fast(e) => (e.flags & HAS_ID != 0).then(|| &self.batch.bytes[e.id.0..e.id.1]),
            Item::Event(e) => e.id.as_ref().map(|s| self.batch.span(s)),
            Item::Error(_) => None,
        }
    }
    /// The `retry:` value in milliseconds.
    pub fn retry(&self) -> Option<u64> {
        match self.item() {
            Item::Event(e) => e.retry,
            Item::Fast(_) | Item::Error(_) => None,
        }
    }
    /// Stream offset of the event's first field line (or of the error).
    pub fn offset(&self) -> u64 {
        match self.item() {
            Item::Fast(e) => e.offset,
            Item::Event(e) => e.offset,
            Item::Error(e) => e.offset(),
        }
    }
    /// 1-based line number of the event's first field line (or of the error).
    pub fn line(&self) -> u64 {
        match self.item() {
            Item::Fast(e) => e.line,
            Item::Event(e) => e.line,
            Item::Error(e) => e.line(),
        }
    }
    /// Where the first `data:` value starts, and the later ones.
    fn data_starts(&self) -> (Option<StreamPos>, &'b [DataLineStart]) {
        match self.item() {
            Item::Fast(e) => (
                (e.flags & HAS_DATA != 0).then(|| StreamPos {
                    offset: self.batch.base + e.data.0 as u64,
                    line: e.line + u64::from(e.data_line),
                    col: u64::from(e.data_col),
                }),
                &[],
            ),
            Item::Event(e) => (e.first_data, &self.batch.starts[e.more_data.clone()]),
            Item::Error(_) => (None, &[]),
        }
    }
    /// Stream offset of the first `data:` value byte.
    pub fn data_offset(&self) -> Option<u64> {
        self.data_starts().0.map(|p| p.offset)
    }
    /// Where byte `at` of [`data`](Self::data) lies in the stream (offset, line, column), as
    /// [`SseFrame::data_position`].
    pub fn data_position(&self, at: usize) -> Option<StreamPos> {
        let (first, more) = self.data_starts();
        sse::data_position(first, more, self.data().len(), at)
    }
    /// Where each `data:` value starts, in order, as [`SseFrame::data_line_starts`].
    pub fn data_line_starts(&self) -> impl Iterator<Item = DataLineStart> + 'b {
        let (first, more) = self.data_starts();
        sse::data_line_starts(first, more)
    }
    /// The framing error of an error item (oversize, unterminated event).
    pub fn error(&self) -> Option<FrameError> {
        match self.item() {
            Item::Error(e) => Some(e),
            Item::Fast(_) | Item::Event(_) => None,
        }
    }
    /// The item as an owned [`SseFrame`]: data and field values are zero-copy `Bytes::slice`s
    /// of the batch; no envelope ([`SseFrame::envelope`] is `None`, or the framing error).
    /// Like any `Bytes` slice, a kept frame holds the allocation it points into: the whole
    /// read buffer of the batch, or for joined data and copied values the batch's side buffer
    /// (the values of the batch's other events too); copy the data to let them go.
    pub fn to_frame(&self) -> SseFrame {
        let batch = self.batch;
        let (first_data, more) = self.data_starts();
        let (data, has_data, event, id, retry, offset, line) = match self.item() {
            Item::Error(e) => return SseFrame::from_error(e),
            Item::Fast(e) => (
                batch.bytes.slice(e.data.0..e.data.1),
                e.flags & HAS_DATA != 0,
                (e.flags & EVENT_MESSAGE != 0).then(|| Bytes::from_static(b"message")),
                (e.flags & HAS_ID != 0).then(|| batch.bytes.slice(e.id.0..e.id.1)),
                None,
                e.offset,
                e.line,
            ),
            Item::Event(e) => (
                batch.span_bytes(&e.data),
                e.has_data,
                match &e.event {
                    EventName::None => None,
                    EventName::Message => Some(Bytes::from_static(b"message")),
                    EventName::Other(s) => Some(batch.span_bytes(s)),
                },
                e.id.as_ref().map(|s| batch.span_bytes(s)),
                e.retry,
                e.offset,
                e.line,
            ),
        };
        SseFrame {
            data,
            has_data,
            event,
            id,
            retry,
            offset,
            line,
            first_data,
            more_data: more.into(),
            content: SseContent::None,
        }
    }
}

/// A batch being filled by one `decode` call.
struct Builder {
    /// Stream offset of the read buffer's first byte.
    base: u64,
    side: Vec<u8>,
    starts: Vec<DataLineStart>,
    entries: Vec<Entry>,
    slow: Vec<Slow>,
    /// Entries reserved at the first push ([`batch_room`]).
    room: usize,
}

impl Builder {
    fn push(&mut self, entry: Entry) {
        push_reserving(&mut self.entries, self.room, entry);
    }
    /// `value` copied into the side buffer.
    #[inline(never)]
    fn copy(&mut self, value: &[u8]) -> Span {
        let start = self.side.len();
        self.side.extend_from_slice(value);
        Span {
            side: true,
            start,
            end: self.side.len(),
        }
    }
    /// The event `ev`, found in the read buffer from `pos` on.
    #[inline(always)]
    fn event(&mut self, pos: usize, ev: &SseEvent<'_>) {
        match self.compact(pos, ev) {
            Some(entry) => self.push(entry),
            None => self.slow_event(pos, ev),
        }
    }
    /// A whole common event from the framer's fast path, found in the read buffer from
    /// `pos` on: always compact.
    #[inline(always)]
    fn fast(&mut self, pos: usize, hit: &FastHit<'_>) {
        let at = pos + hit.start;
        let fe = &hit.fe;
        let data = at + fe.data_start;
        debug_assert_eq!(hit.first_data.offset, self.base + data as u64);
        let (id, has_id) = match &fe.id {
            Some(r) => ((at + r.start, at + r.end), HAS_ID),
            None => ((0, 0), 0),
        };
        let event = if fe.has_event { EVENT_MESSAGE } else { 0 };
        self.push(Entry {
            data: (data, data + fe.data.len()),
            id,
            offset: hit.offset,
            line: hit.line,
            // At most 2 lines (`event:`, `id:`) before the data line; a column of at most 10.
            data_line: (hit.first_data.line - hit.line) as u32,
            data_col: hit.first_data.col as u32,
            slow: NO_SLOW,
            flags: HAS_DATA | has_id | event,
        });
    }
    /// `ev` in [`Entry`]'s compact form, when it fits.
    #[inline(always)]
    fn compact(&self, pos: usize, ev: &SseEvent<'_>) -> Option<Entry> {
        // No `data:` line at all (a block of unknown fields or an ignored `id:`) fits too:
        // 64 bytes, not a slow item, for 3 bytes of `x\n\n` (trial, session 27).
        let (data, first) = match ev.data_range() {
            Some(r) => ((pos + r.start, pos + r.end), Some(ev.first_data()?)),
            None if !ev.has_data() => ((0, 0), None),
            None => return None,
        };
        if ev.retry().is_some() || !ev.more_data().is_empty() {
            return None;
        }
        let event = match ev.event() {
            None => 0,
            Some(b"message") => EVENT_MESSAGE,
            Some(_) => return None,
        };
        let (id, has_id) = match (ev.id_range(), ev.id()) {
            (Some(i), _) => ((pos + i.start, pos + i.end), HAS_ID),
            (None, None) => ((0, 0), 0),
            (None, Some(_)) => return None,
        };
        // The first value's offset is derived from the batch's base offset: kept compact only
        // when that gives back what the framer reported.
        let (data_line, data_col) = match first {
            Some(first) if first.offset == self.base + data.0 as u64 => (
                u32::try_from(first.line.checked_sub(ev.line())?).ok()?,
                u32::try_from(first.col).ok()?,
            ),
            Some(_) => return None,
            None => (0, 0),
        };
        Some(Entry {
            data,
            id,
            offset: ev.offset(),
            line: ev.line(),
            data_line,
            data_col,
            slow: NO_SLOW,
            flags: if ev.has_data() { HAS_DATA } else { 0 } | has_id | event,
        })
    }
    /// An entry pointing at `slow`, the next item of the slow list.
    fn push_slow(&mut self, slow: Slow) {
        let at = self.slow.len() as u32; // below max_batch_events <= u32::MAX - 1
        self.slow.push(slow);
        self.push(Entry {
            data: (0, 0),
            id: (0, 0),
            offset: 0,
            line: 0,
            data_line: 0,
            data_col: 0,
            slow: at,
            flags: 0,
        });
    }
    /// A framing error item.
    fn error(&mut self, e: FrameError) {
        self.push_slow(Slow::Error(e));
    }
    /// `ev` in full, for an event the compact form does not cover.
    #[inline(never)]
    fn slow_event(&mut self, pos: usize, ev: &SseEvent<'_>) {
        let in_buf = |r: Range<usize>| Span {
            side: false,
            start: pos + r.start,
            end: pos + r.end,
        };
        let data = match ev.data_range() {
            Some(r) => in_buf(r),
            None => self.copy(ev.data()),
        };
        let event = match ev.event() {
            None => EventName::None,
            Some(b"message") => EventName::Message,
            Some(v) => EventName::Other(self.copy(v)),
        };
        let id = match (ev.id_range(), ev.id()) {
            (Some(r), _) => Some(in_buf(r)),
            (None, Some(v)) => Some(self.copy(v)),
            (None, None) => None,
        };
        let at = self.starts.len();
        let more = ev.more_data();
        self.starts.extend_from_slice(more);
        let entry = EventEntry {
            data,
            has_data: ev.has_data(),
            event,
            id,
            retry: ev.retry(),
            offset: ev.offset(),
            line: ev.line(),
            first_data: ev.first_data(),
            more_data: at..at + more.len(),
        };
        self.push_slow(Slow::Event(entry));
    }
}

/// `text/event-stream` decoder yielding every complete event of the read buffer at once as an
/// [`SseEventBatch`]: the framing of [`SseCodec`](super::SseCodec) (same limits, error items,
/// end-of-stream handling), without a reference count taken and an [`SseFrame`] moved per
/// event, and without parsing. For a gateway's hot path, where events are validated in
/// place and only some are kept (PERF.md §7 has its cost per event next to `SseCodec`'s).
/// Encodes like `SseCodec` (`&SseFrame`, `Bytes`, a whole `&SseEventBatch`).
#[derive(Clone, Debug)]
pub struct SseBatchCodec {
    framer: SseFramer,
    max_batch_events: usize,
}

impl Default for SseBatchCodec {
    fn default() -> Self {
        Self::new()
    }
}

impl SseBatchCodec {
    /// The default number of items a batch holds at most: 1024.
    pub const DEFAULT_MAX_BATCH_EVENTS: usize = 1024;

    /// Default limits (event data 4 MiB, line 4 MiB + 64), [`Self::DEFAULT_MAX_BATCH_EVENTS`]
    /// items per batch.
    pub fn new() -> Self {
        Self::from_framer(SseFramer::new())
    }
    /// With limits in bytes, as [`SseFramer::with_limits`]: joined data of one event, and one
    /// line without its terminator.
    pub fn with_limits(max_event_len: usize, max_line_len: usize) -> Self {
        Self::from_framer(SseFramer::with_limits(max_event_len, max_line_len))
    }
    fn from_framer(framer: SseFramer) -> Self {
        Self {
            framer,
            max_batch_events: Self::DEFAULT_MAX_BATCH_EVENTS,
        }
    }
    /// Sets the most items one batch holds (a bound on the batch's memory and on the work
    /// between two items); 0 is taken as 1, and more than `u32::MAX - 1` as `u32::MAX - 1`.
    /// An item takes 64 bytes when it is an event MCP servers send (one `data:` line, an
    /// `id:` in the read buffer or none, no `event:` other than `message`, no `retry:`) or an
    /// event without data; any other item (joined data, other event types, copied ids,
    /// `retry:`, errors) about 230 bytes, plus its copied values in the side buffer and 32
    /// bytes per `data:` line after its first (at most 1,024 kept per event, as
    /// [`SseEvent::data_line_starts`](crate::framing::sse::SseEvent::data_line_starts)
    /// says). With the default bound the entries take at most about 230 KiB per batch; a
    /// stream of 3-byte blocks of unknown fields (`x\n\n`) takes 64 bytes per block.
    pub fn with_max_batch_events(mut self, n: usize) -> Self {
        self.max_batch_events = n.clamp(1, u32::MAX as usize - 1);
        self
    }
    /// The most items one batch holds.
    pub fn max_batch_events(&self) -> usize {
        self.max_batch_events
    }
    /// The sans-I/O framer (limits, counters, BOM note).
    pub fn framer(&self) -> &SseFramer {
        &self.framer
    }
    fn take(&mut self, src: &mut BytesMut, eof: bool) -> Option<SseEventBatch> {
        let mut b = Builder {
            base: self.framer.stream_offset(),
            side: Vec::new(),
            starts: Vec::new(),
            entries: Vec::new(),
            slow: Vec::new(),
            room: batch_room(self.max_batch_events, src.len()),
        };
        // Bytes of `src` this call has consumed: the batch's events lie before it.
        let mut pos = 0;
        let max = self.max_batch_events;
        while b.entries.len() < max {
            // The common events, as many in a row as the framer's fast path takes, straight
            // into entries (no `SseEvent` built per event); the rest one `decode` at a time.
            let from = pos;
            pos += self.framer.decode_fast_run(&src[from..], |at, hit| {
                b.fast(from + at, &hit);
                b.entries.len() < max
            });
            if b.entries.len() >= max {
                break;
            }
            // The fast path just refused these bytes (or is not ready): `decode` and `finish`
            // would try it again first.
            let buf = &src[pos..];
            let d = if eof {
                self.framer.finish_slow(buf)
            } else {
                self.framer.decode_slow(buf)
            };
            let consumed = d.consumed;
            match d.status {
                Status::Partial => {
                    pos += consumed;
                    break;
                }
                Status::Complete(Ok(ev)) => b.event(pos, &ev),
                Status::Complete(Err(e)) => b.error(e),
            }
            pos += consumed;
        }
        if b.entries.is_empty() {
            src.advance(pos);
            return None;
        }
        Some(SseEventBatch {
            bytes: src.split_to(pos).freeze(),
            base: b.base,
            side: Bytes::from(b.side),
            starts: b.starts,
            entries: b.entries,
            slow: b.slow,
        })
    }
}

impl Decoder for SseBatchCodec {
    type Item = SseEventBatch;
    type Error = CodecError;
    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<SseEventBatch>, CodecError> {
        Ok(self.take(src, false))
    }
    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<SseEventBatch>, CodecError> {
        Ok(self.take(src, true))
    }
}

impl Encoder<&SseFrame> for SseBatchCodec {
    type Error = CodecError;
    /// As [`SseCodec`](super::SseCodec)'s, under this codec's limits.
    fn encode(&mut self, item: &SseFrame, dst: &mut BytesMut) -> Result<(), CodecError> {
        encode_sse(item, dst, &self.framer)
    }
}

impl Encoder<SseFrame> for SseBatchCodec {
    type Error = CodecError;
    /// As for `&SseFrame`; owned, so that a `FramedWrite` sink takes frames as they come.
    fn encode(&mut self, item: SseFrame, dst: &mut BytesMut) -> Result<(), CodecError> {
        encode_sse(&item, dst, &self.framer)
    }
}

impl Encoder<Bytes> for SseBatchCodec {
    type Error = CodecError;
    /// As [`SseCodec`](super::SseCodec)'s: `event: message` and the data as `data: ` lines.
    fn encode(&mut self, item: Bytes, dst: &mut BytesMut) -> Result<(), CodecError> {
        encode_sse(&message_event(item, &self.framer), dst, &self.framer)
    }
}

impl Encoder<&SseEventBatch> for SseBatchCodec {
    type Error = CodecError;
    /// Writes every event of a batch as `&SseFrame` would (fields and data, not the comments
    /// or line ends read); as there, an event with no field a decoder keeps (a block of only
    /// unknown fields) is written as a blank line alone, which decodes to no event. A batch
    /// holding an error item, or an event that cannot be encoded, is
    /// [`FrameErrorKind::UnencodableFrame`](crate::framing::FrameErrorKind::UnencodableFrame)
    /// and nothing of the batch is written: to forward the other events of such a batch,
    /// encode them one by one ([`BatchEvent::to_frame`], skipping [`BatchEvent::error`]
    /// items).
    fn encode(&mut self, item: &SseEventBatch, dst: &mut BytesMut) -> Result<(), CodecError> {
        let at = dst.len();
        for ev in item {
            if let Err(e) = encode_sse(&ev.to_frame(), dst, &self.framer) {
                dst.truncate(at);
                return Err(e);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    /// The sizes the docs give: 64 bytes per compact entry, about 230 per slow item (on a
    /// 64-bit target).
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn entry_sizes() {
        assert_eq!(size_of::<super::Entry>(), 64);
        let slow = size_of::<super::Entry>() + size_of::<super::Slow>();
        assert!((200..=240).contains(&slow), "{slow}");
    }
}
