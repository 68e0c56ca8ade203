//! `text/event-stream` framing (WHATWG HTML, "Server-sent events", §9.2.5 grammar and §9.2.6
//! interpretation), as used by MCP Streamable HTTP responses and GET streams.
//!
//! ```text
//!   id: 7\r\n                  field line (CR, LF or CRLF ends a line)
//!   event: message\r\n         field line
//!   data: {"jsonrpc":...}\r\n  data line: value = text after "data:" minus one leading space
//!   : keep-alive\r\n           comment line, ignored (counted)
//!   \r\n                       blank line: dispatch the event
//! ```
//!
//! * Several `data:` lines are joined with LF. An event with exactly one `data:` line and no
//!   other line between it and the blank line (fields and comments before it are fine) is
//!   returned zero-copy ([`SseEvent::data_range`] indexes the caller's buffer); otherwise the
//!   data is copied into the framer's scratch buffer, which keeps the buffered bytes bounded
//!   when comments or fields follow the data line.
//! * `event:`, `id:` (ignored if it contains NUL, as WHATWG says) and `retry:` (ASCII digits
//!   only, else ignored) are kept per event; unknown fields are ignored.
//! * A line may end in CR, LF or CRLF, including a CR at the end of one read and the LF at the
//!   start of the next.
//! * One UTF-8 BOM at stream start is stripped ([`SseFramer::bom_stripped`]), also when it is
//!   split across reads.
//! * Every blank-line-terminated block with at least one field is returned, including the
//!   priming events of MCP 2025-11-25 servers (`id:` + empty `data:` + `retry:`). WHATWG
//!   dispatches such an event with empty data (a block without any `data:` line it does not
//!   dispatch); MCP clients skip events with empty data, which carry no message by the MCP
//!   spec's own definition of the priming event: see [`SseEvent::is_message`].
//! * Limits: the joined data of one event ([`FrameErrorKind::EventTooLarge`], default 4 MiB)
//!   and one line ([`FrameErrorKind::LineTooLong`], default the event limit + 64). A `data:`
//!   line over the line limit whose value takes the data over the event limit is reported as
//!   `EventTooLarge` (with the default limits, every overlong `data:` line). Such a line,
//!   and an overlong `event:` line, discards the rest of the event (through its blank line);
//!   an overlong comment, `id:`, `retry:` or unknown field, which a WHATWG reader ignores
//!   (an `id:` only sets the last event id), discards only itself: `LineTooLong` at the
//!   line's start, then the event goes on (without an id, for an overlong `id:`). The stream
//!   goes on either way. Buffered bytes stay bounded by the line limit plus the event
//!   limit.
//! * At end of stream an event without its blank line is reported as
//!   [`FrameErrorKind::UnterminatedEvent`] and not dispatched.
//!
//! Each byte is searched for a line end once (memchr2 over CR/LF, resumed across calls);
//! field-name detection examines at most the bytes up to the first colon of a line.
//!
//! Fast path: at an event boundary (no event in progress, no partial line) the framer first
//! tries to recognise one whole common event in the buffer, `[event: message EOL] [id: ID
//! EOL] data: VALUE EOL EOL` (the `event:` and `id:` lines in either order, as the Python and
//! TypeScript SDKs write them when resumability is on; LF, CRLF or CR line ends, the space
//! after each colon optional, ID without NUL, ID and VALUE without CR or LF, within both
//! limits), and returns it exactly as the line-by-line path would (same bytes consumed,
//! zero-copy range, offsets, line numbers, counters), with the id also as a zero-copy range
//! ([`SseEvent::id_range`]). Anything else (`retry:`, comments, several `data:`, `id:` or
//! `event:` lines, other event names, an event not yet complete, a limit exceeded) goes line
//! by line. An attempt that fails because the event is not complete yet searches that
//! event's `id:` and data lines once more on the next path (at most two line windows per
//! event), which [`SseFramer::bytes_examined`] does not count.

use std::ops::Range;

use super::{DEFAULT_MAX_FRAME_LEN, Decoded, FrameError, FrameErrorKind, Status, StreamPos};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Extra line length allowed over the event limit for the field name, colon and space.
pub const LINE_OVERHEAD: usize = 64;

/// One event, borrowing the caller's buffer (single `data:` line) or the framer (joined data
/// and field values).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent<'a> {
    data: &'a [u8],
    data_range: Option<Range<usize>>,
    has_data: bool,
    event: Option<&'a [u8]>,
    id: Option<&'a [u8]>,
    id_range: Option<Range<usize>>,
    retry: Option<u64>,
    offset: u64,
    line: u64,
    /// Where the first `data:` value starts.
    first_data: Option<StreamPos>,
    /// Where the second and later `data:` values start (empty for one line).
    more_data: &'a [DataLineStart],
    data_lines: u32,
}

/// Capacity (entries) of the data-line-start buffer kept from one event to the next; a larger
/// buffer, grown by an event of many `data:` lines, is shrunk back at the next event.
const RETAINED_DATA_LINE_STARTS: usize = 1024;

/// How many `data:` value starts one event keeps beyond the first (32 bytes each): an event of
/// many short `data:` lines would otherwise hold 32 bytes of positions per byte of data (a
/// 4 MiB event of empty `data:` lines, 128 MiB). Past it, positions are not kept.
pub const MAX_DATA_LINE_STARTS: usize = 1024;

/// Where one `data:` value starts: its index in the joined data and its place in the stream.
///
/// In an event with more than [`MAX_DATA_LINE_STARTS`] + 1 `data:` lines, the start of the
/// first value not kept has `pos.line == 0` (lines are 1-based): positions from `at` on are
/// unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DataLineStart {
    /// Index of the value's first byte in the event data (after the LF that joins it to the
    /// previous value).
    pub at: usize,
    /// Stream position of that byte (just after `data:` and its optional space).
    pub pos: StreamPos,
}

/// The stream position of byte `at` of an event's data (`len` bytes) whose values start at
/// `first` and `more`; `at == len` is the position just after the data (the last value's
/// line end). The LF joining two values maps to the line end of the first. `None` when there
/// is no data, `at > len`, or `at` lies past the kept starts ([`MAX_DATA_LINE_STARTS`]).
pub(crate) fn data_position(
    first: Option<StreamPos>,
    more: &[DataLineStart],
    len: usize,
    at: usize,
) -> Option<StreamPos> {
    if at > len {
        return None;
    }
    let first = first?;
    // The last value starting at or before `at`.
    let (start, pos) = match more.partition_point(|d| d.at <= at) {
        0 => (0, first),
        i => (more[i - 1].at, more[i - 1].pos),
    };
    // Line 0: the first value whose start was not kept.
    (pos.line != 0).then(|| pos.advance((at - start) as u64))
}

/// The stream position of byte `at` of an event's data (`len` bytes), from where its `data:`
/// values start (`starts`, as collected from [`SseEvent::data_line_starts`] or
/// `SseFrame::data_line_starts`), for callers that keep the mapping after the event is gone;
/// the same answer as [`SseEvent::data_position`]. `None` when `starts` is empty, `at > len`
/// or `at` lies past the kept starts.
pub fn position_in_data(starts: &[DataLineStart], len: usize, at: usize) -> Option<StreamPos> {
    let (first, more) = starts.split_first()?;
    data_position(Some(first.pos), more, len, at)
}

/// Every `data:` value start of an event, the first one included.
pub(crate) fn data_line_starts(
    first: Option<StreamPos>,
    more: &[DataLineStart],
) -> impl Iterator<Item = DataLineStart> + '_ {
    first
        .map(|pos| DataLineStart { at: 0, pos })
        .into_iter()
        .chain(more.iter().copied())
}

impl<'a> SseEvent<'a> {
    /// The event data: the `data:` values joined with LF (empty when there was none).
    pub fn data(&self) -> &'a [u8] {
        self.data
    }
    /// Where [`data`](Self::data) lies in the buffer passed to `decode`, when the event had
    /// exactly one `data:` line (zero-copy); `None` when the data was joined or absent.
    pub fn data_range(&self) -> Option<Range<usize>> {
        self.data_range.clone()
    }
    /// True when the event had at least one `data:` field (possibly empty).
    pub fn has_data(&self) -> bool {
        self.has_data
    }
    /// Number of `data:` lines.
    pub fn data_lines(&self) -> u32 {
        self.data_lines
    }
    /// True when the event carries a JSON-RPC message for an MCP client: the event type is
    /// `message` (no `event:` field, an empty one, or `event: message`), the only type MCP
    /// SDKs read messages from, and the data is not empty. False for priming events (`id:` +
    /// empty `data:`; a WHATWG EventSource dispatches them with empty data, and MCP clients
    /// skip them, as the spec defines them as carrying no message), `retry:`-only blocks and
    /// events of other types, such as the `endpoint` event of the 2024-11-05 HTTP+SSE
    /// transport (its data is a URI). Data of two empty `data:` lines is one LF, not empty:
    /// a message event (which then fails validation as `empty`).
    pub fn is_message(&self) -> bool {
        !self.data.is_empty() && self.event_type() == b"message"
    }
    /// The `event:` field value, if the event had one (the last one wins).
    pub fn event(&self) -> Option<&'a [u8]> {
        self.event
    }
    /// The event type: the `event:` value, or `b"message"` when absent or empty (WHATWG).
    pub fn event_type(&self) -> &'a [u8] {
        event_type(self.event)
    }
    /// The `id:` field value, if the event had one (without NUL; the last one wins).
    pub fn id(&self) -> Option<&'a [u8]> {
        self.id
    }
    /// Where [`id`](Self::id) lies in the buffer passed to `decode`, when the whole-event
    /// fast path read it there (zero-copy); `None` when the event had no `id:` line or the
    /// line-by-line path copied the value.
    pub fn id_range(&self) -> Option<Range<usize>> {
        self.id_range.clone()
    }
    /// The `retry:` value in milliseconds, if the event had a valid one.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }
    /// Stream offset of the event's first field line.
    pub fn offset(&self) -> u64 {
        self.offset
    }
    /// 1-based line number of the event's first field line.
    pub fn line(&self) -> u64 {
        self.line
    }
    /// Stream offset of the first byte of the first `data:` value; for the offset of any
    /// other byte of the data use [`data_position`](Self::data_position).
    pub fn data_offset(&self) -> Option<u64> {
        self.first_data.map(|p| p.offset)
    }
    /// Where byte `at` of [`data`](Self::data) lies in the stream (offset, line, column),
    /// exact for joined data too, whatever lines (comments, other fields) came between the
    /// `data:` lines: a value's bytes map into its `data:` line, the LF joining two values to
    /// the first one's line end, and `at == data().len()` to the last value's line end.
    /// `None` when the event had no `data:` line, `at > data().len()`, or `at` lies in the
    /// values past the first [`MAX_DATA_LINE_STARTS`] + 1 (positions not kept). Use it to turn
    /// a frame-relative parse error offset into a stream offset.
    pub fn data_position(&self, at: usize) -> Option<StreamPos> {
        data_position(self.first_data, self.more_data, self.data.len(), at)
    }
    /// Where the first `data:` value starts (the position of data byte 0).
    #[cfg(feature = "codec")]
    pub(crate) fn first_data(&self) -> Option<StreamPos> {
        self.first_data
    }
    /// Where the second and later `data:` values start.
    #[cfg(feature = "codec")]
    pub(crate) fn more_data(&self) -> &'a [DataLineStart] {
        self.more_data
    }
    /// Where each `data:` value starts, in order (one item per [`data_lines`](Self::data_lines),
    /// at most [`MAX_DATA_LINE_STARTS`] + 2, the last of them then with line 0): what
    /// [`data_position`](Self::data_position) reads, for callers that keep the mapping after
    /// the event is gone.
    pub fn data_line_starts(&self) -> impl Iterator<Item = DataLineStart> + 'a {
        data_line_starts(self.first_data, self.more_data)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Data {
    None,
    /// One data line so far; its value is `buf[range]` (kept in the caller's buffer).
    Single(Range<usize>),
    /// Copied into `joined`.
    Joined,
}

/// Incremental `text/event-stream` framer (sans-I/O; see the [module docs](super) for the
/// buffer contract).
#[derive(Clone, Debug)]
pub struct SseFramer {
    max_event_len: usize,
    max_line_len: usize,
    // ---- stream state ----
    /// Stream offset of buf[0].
    offset: u64,
    /// Line number of the line starting at `pos`.
    line: u64,
    /// Start of the first unprocessed line in the pending buffer.
    pos: usize,
    /// How far the current line has been searched for a terminator (>= pos).
    scanned: usize,
    /// The last line ended with CR: a LF right after it belongs to that line end.
    skip_lf: bool,
    bom_checked: bool,
    bom_stripped: bool,
    /// Dropping an overlong line up to its end.
    discarding_line: bool,
    /// Dropping the rest of an event (after a limit error) up to its blank line.
    discarding_event: bool,
    // ---- event state ----
    fields_seen: bool,
    data: Data,
    data_lines: u32,
    joined: Vec<u8>,
    event_set: bool,
    /// The `event:` value is exactly `message` (then `event` is not filled).
    event_is_message: bool,
    event: Vec<u8>,
    id_set: bool,
    id: Vec<u8>,
    /// Where the `id:` value lies in the pending buffer, for an event the whole-event fast
    /// path recognised inside [`step`](Self::step) (then `id` is not filled).
    id_range: Option<Range<usize>>,
    retry: Option<u64>,
    event_offset: u64,
    event_line: u64,
    /// Where the first `data:` value of the event starts.
    first_data: Option<StreamPos>,
    /// Where its later `data:` values start (valid while `data_lines > 1`).
    more_data: Vec<DataLineStart>,
    // ---- counters ----
    examined: u64,
    events: u64,
    comments: u64,
    /// Field lines of an unknown name ([`SseFramer::unknown_fields`]).
    unknown_fields: u64,
    /// Events returned by the whole-event fast path ([`SseFramer::fast_path_events`]).
    fast_events: u64,
    /// Whether the whole-event fast path is tried ([`SseFramer::set_fast_path`]).
    fast_path: bool,
    /// Later `data:` value starts kept per event ([`SseFramer::set_max_data_line_starts`]).
    max_data_line_starts: usize,
}

impl Default for SseFramer {
    fn default() -> Self {
        Self::new()
    }
}

impl SseFramer {
    /// A framer with the default limits: event data 4 MiB, line 4 MiB + 64.
    pub fn new() -> Self {
        Self::with_limits(DEFAULT_MAX_FRAME_LEN, DEFAULT_MAX_FRAME_LEN + LINE_OVERHEAD)
    }

    /// A framer with the given limits in bytes: joined data of one event, and one line
    /// (without its terminator).
    pub fn with_limits(max_event_len: usize, max_line_len: usize) -> Self {
        Self {
            max_event_len,
            max_line_len,
            offset: 0,
            line: 1,
            pos: 0,
            scanned: 0,
            skip_lf: false,
            bom_checked: false,
            bom_stripped: false,
            discarding_line: false,
            discarding_event: false,
            fields_seen: false,
            data: Data::None,
            data_lines: 0,
            joined: Vec::new(),
            event_set: false,
            event_is_message: false,
            event: Vec::new(),
            id_set: false,
            id: Vec::new(),
            id_range: None,
            retry: None,
            event_offset: 0,
            event_line: 0,
            first_data: None,
            more_data: Vec::new(),
            examined: 0,
            events: 0,
            comments: 0,
            unknown_fields: 0,
            fast_events: 0,
            fast_path: true,
            max_data_line_starts: MAX_DATA_LINE_STARTS,
        }
    }

    /// The event data limit in bytes.
    pub fn max_event_len(&self) -> usize {
        self.max_event_len
    }
    /// The line limit in bytes.
    pub fn max_line_len(&self) -> usize {
        self.max_line_len
    }
    /// Stream offset (bytes) of the first byte not yet consumed: where the next buffer passed
    /// to [`decode`](Self::decode) starts.
    pub fn stream_offset(&self) -> u64 {
        self.offset
    }
    /// Bytes examined so far (line-end search plus field names). Linear in the input however it
    /// is chunked: at most about twice the bytes fed (exposed for tests).
    pub fn bytes_examined(&self) -> u64 {
        self.examined
    }
    /// True when a BOM at stream start was stripped (a note, not an error).
    pub fn bom_stripped(&self) -> bool {
        self.bom_stripped
    }
    /// Events returned so far.
    pub fn events(&self) -> u64 {
        self.events
    }
    /// Comment lines (`:` …, e.g. keep-alives) seen so far.
    pub fn comments(&self) -> u64 {
        self.comments
    }
    /// Field lines seen so far whose name is none of `data`, `event`, `id`, `retry`
    /// (compared exactly, case and spaces included). The event stream standard (WHATWG HTML,
    /// "Interpreting an event stream") ignores such lines, so a misspelt `Data: …`,
    /// `data : …` or ` data: …` line loses its value silently: this count is how a validator
    /// reports it.
    pub fn unknown_fields(&self) -> u64 {
        self.unknown_fields
    }

    /// Events returned whole by the fast path (exposed for tests: it shows that the fast
    /// path was taken; the events themselves are the same either way).
    #[doc(hidden)]
    pub fn fast_path_events(&self) -> u64 {
        self.fast_events
    }

    /// Turns the whole-event fast path on (the default) or off. Off, every event goes through
    /// the line-by-line path; the results are the same, which is what tests compare.
    #[doc(hidden)]
    pub fn set_fast_path(&mut self, on: bool) {
        self.fast_path = on;
    }

    /// How many `data:` value starts each event keeps beyond the first, for exact data
    /// positions ([`SseEvent::data_position`]); default [`MAX_DATA_LINE_STARTS`]. Each costs
    /// 32 bytes while the event is built; an event's `data:` lines are at most its length / 5
    /// (`data` and LF), so `usize::MAX` keeps every start within a memory bound of about 6.4
    /// bytes of positions per byte of event limit (the CLI does this: its offsets must be
    /// exact; re-trial finding: past 1,024 lines it printed wrong offsets).
    pub fn set_max_data_line_starts(&mut self, n: usize) {
        self.max_data_line_starts = n;
    }

    /// Resets to the start of a new stream (counters included), keeping the limits, the
    /// kept data line starts and the fast-path switch.
    pub fn reset(&mut self) {
        let joined = std::mem::take(&mut self.joined);
        let fast_path = self.fast_path;
        let starts = self.max_data_line_starts;
        *self = Self::with_limits(self.max_event_len, self.max_line_len);
        self.joined = joined;
        self.joined.clear();
        self.fast_path = fast_path;
        self.max_data_line_starts = starts;
    }

    /// Finds the next event in `buf` (the pending bytes; see the module docs).
    #[inline(always)]
    pub fn decode<'a>(&'a mut self, buf: &'a [u8]) -> Decoded<SseEvent<'a>> {
        if let Some((consumed, ev)) = self.decode_fast(buf) {
            return Decoded::frame(consumed, ev);
        }
        self.decode_slow(buf)
    }

    /// The buffer contract (module docs): `buf` holds at least the bytes the framer kept from
    /// earlier calls. A caller that breaks it (passes fewer) gets no panic and no
    /// out-of-bounds read (hostile trial, session 14: a slice index panicked): the event in
    /// progress is dropped and `buf` is read from a line start, as after [`reset`](Self::reset)
    /// but with the counters kept. Debug builds assert instead, to catch the caller's bug.
    #[inline]
    fn check_contract(&mut self, buf: &[u8]) {
        let kept = self.pos.max(self.scanned).max(match &self.data {
            Data::Single(r) => r.end,
            _ => 0,
        });
        if buf.len() >= kept {
            return;
        }
        debug_assert!(
            false,
            "SseFramer: buffer contract broken: {} pending bytes given, {kept} kept from earlier calls",
            buf.len()
        );
        self.clear_event();
        self.pos = 0;
        self.scanned = 0;
        self.skip_lf = false;
        self.discarding_line = false;
        self.discarding_event = false;
    }

    /// Everything but the whole-event fast path of [`decode`](Self::decode): for a caller
    /// that has just run that path ([`decode_fast_run`](Self::decode_fast_run)) and been
    /// refused, where `decode` would try it again on the same bytes.
    #[inline(never)]
    pub(crate) fn decode_slow<'a>(&'a mut self, buf: &'a [u8]) -> Decoded<SseEvent<'a>> {
        self.check_contract(buf);
        let step = self.step(buf);
        self.complete(buf, step)
    }

    /// End of stream: like [`decode`](Self::decode); once no complete event is left, an event
    /// in progress (fields seen, or a last line without terminator that is not a comment) is
    /// reported as [`FrameErrorKind::UnterminatedEvent`] and dropped. Call until it returns
    /// [`Status::Partial`], which then means the stream is fully drained.
    #[inline(always)]
    pub fn finish<'a>(&'a mut self, buf: &'a [u8]) -> Decoded<SseEvent<'a>> {
        if let Some((consumed, ev)) = self.decode_fast(buf) {
            return Decoded::frame(consumed, ev);
        }
        self.finish_slow(buf)
    }

    /// Everything but the whole-event fast path of [`finish`](Self::finish): for a caller
    /// that has just run that path ([`decode_fast_run`](Self::decode_fast_run)) and been
    /// refused, where `finish` would try it again on the same bytes.
    #[inline(never)]
    pub(crate) fn finish_slow<'a>(&'a mut self, buf: &'a [u8]) -> Decoded<SseEvent<'a>> {
        self.check_contract(buf);
        let step = self.step(buf);
        if !matches!(step, Step::Partial) {
            return self.complete(buf, step);
        }
        // No complete event left: account for the leftover bytes.
        let partial_line = &buf[self.pos.min(buf.len())..];
        let unterminated_field = !self.discarding_line
            && !self.discarding_event
            && !partial_line.is_empty()
            && partial_line[0] != b':';
        let report = !self.discarding_event && (self.fields_seen || unterminated_field);
        let (offset, line) = if self.fields_seen {
            (self.event_offset, self.event_line)
        } else {
            (self.offset + self.pos as u64, self.line)
        };
        let end = self.offset + buf.len() as u64;
        self.offset = end;
        self.pos = 0;
        self.scanned = 0;
        self.skip_lf = false;
        self.bom_checked = true;
        self.discarding_line = false;
        self.discarding_event = false;
        self.clear_event();
        if report {
            let e = FrameError::new(
                FrameErrorKind::UnterminatedEvent,
                offset,
                line,
                (end - offset) as usize,
            );
            Decoded::error(buf.len(), e)
        } else {
            Decoded::partial(buf.len())
        }
    }

    // ===== internals =====

    fn complete<'a>(&'a mut self, buf: &'a [u8], step: Step) -> Decoded<SseEvent<'a>> {
        match step {
            Step::Partial => {
                let consumed = self.retain_point();
                self.shift(consumed);
                Decoded::partial(consumed)
            }
            Step::Error(e) => {
                let consumed = self.pos;
                self.shift(consumed);
                Decoded::error(consumed, e)
            }
            Step::Event => {
                let consumed = self.pos;
                // Indices of the next event restart at the consumed point.
                self.offset += consumed as u64;
                self.pos = 0;
                self.scanned = 0;
                Decoded::frame(consumed, self.build(buf))
            }
        }
    }

    /// The first byte the framer still needs: the single data value it keeps zero-copy, or
    /// the next unprocessed line.
    fn retain_point(&self) -> usize {
        match &self.data {
            Data::Single(r) => r.start.min(self.pos),
            _ => self.pos,
        }
    }

    fn shift(&mut self, n: usize) {
        self.offset += n as u64;
        self.pos -= n;
        self.scanned -= n;
        if let Data::Single(r) = &mut self.data {
            r.start -= n;
            r.end -= n;
        }
    }

    fn clear_event(&mut self) {
        self.fields_seen = false;
        self.data = Data::None;
        self.data_lines = 0;
        self.event_set = false;
        self.id_set = false;
        self.id_range = None;
        self.retry = None;
        self.first_data = None;
    }

    fn build<'a>(&'a mut self, buf: &'a [u8]) -> SseEvent<'a> {
        self.events += 1;
        let (data, data_range): (&[u8], _) = match &self.data {
            Data::None => (&[], None),
            Data::Single(r) => (&buf[r.clone()], Some(r.clone())),
            Data::Joined => (&self.joined, None),
        };
        let ev = SseEvent {
            data,
            data_range,
            has_data: self.data_lines > 0,
            event: match (self.event_set, self.event_is_message) {
                (false, _) => None,
                (true, true) => Some(b"message"),
                (true, false) => Some(&self.event[..]),
            },
            id: match &self.id_range {
                Some(r) => Some(&buf[r.clone()]),
                None => self.id_set.then_some(&self.id[..]),
            },
            id_range: self.id_range.clone(),
            retry: self.retry,
            offset: self.event_offset,
            line: self.event_line,
            first_data: self.first_data,
            more_data: if self.data_lines > 1 {
                &self.more_data
            } else {
                &[]
            },
            data_lines: self.data_lines,
        };
        // Reset flags only; the vectors are overwritten by the next event.
        self.fields_seen = false;
        self.data = Data::None;
        self.data_lines = 0;
        self.event_set = false;
        self.id_set = false;
        self.id_range = None;
        self.retry = None;
        self.first_data = None;
        ev
    }

    /// Processes lines until an event is complete, a limit error occurs, or more input is
    /// needed. Leaves `pos` at the first byte after the processed lines.
    fn step(&mut self, buf: &[u8]) -> Step {
        // Whether the fast path may be tried at the current line start: `decode_fast` has
        // already tried the first one of this call, unless the BOM was still unchecked.
        let mut after_line = !self.bom_checked;
        if !self.bom_checked {
            let avail = &buf[self.pos..];
            if avail.len() < BOM.len() && BOM.starts_with(avail) {
                // Could still be a BOM split across reads (or an empty read).
                return Step::Partial;
            }
            self.bom_checked = true;
            if avail.starts_with(BOM) {
                self.bom_stripped = true;
                self.examined += BOM.len() as u64;
                self.pos += BOM.len();
                self.scanned = self.pos;
            }
        }
        loop {
            if self.skip_lf {
                if self.pos >= buf.len() {
                    return Step::Partial;
                }
                self.skip_lf = false;
                if buf[self.pos] == b'\n' {
                    self.examined += 1;
                    self.pos += 1;
                    self.scanned = self.pos;
                }
            }
            if self.discarding_line {
                match super::find_cr_or_lf(&buf[self.scanned..]) {
                    Some(i) => {
                        self.examined += (i + 1) as u64;
                        let t = self.scanned + i;
                        self.skip_lf = buf[t] == b'\r';
                        self.pos = t + 1;
                        self.scanned = self.pos;
                        self.line += 1;
                        self.discarding_line = false;
                        continue;
                    }
                    None => {
                        self.examined += (buf.len() - self.scanned) as u64;
                        self.pos = buf.len();
                        self.scanned = buf.len();
                        return Step::Partial;
                    }
                }
            }
            // At a line start `decode_fast` has not tried, with no event in progress: the
            // whole-event fast path.
            if after_line
                && self.fast_path
                && !self.fields_seen
                && !self.discarding_event
                && self.scanned == self.pos
                && let Some(fe) = self.parse_fast(&buf[self.pos..])
            {
                // The same event the lines below would assemble, for `complete` to build.
                let start = self.pos;
                let data_start = start + fe.data_start;
                self.fields_seen = true;
                self.event_offset = self.offset + start as u64;
                self.event_line = self.line;
                self.first_data = Some(self.fast_data_pos(&fe, data_start));
                self.data = Data::Single(data_start..data_start + fe.data.len());
                self.data_lines = 1;
                self.event_set |= fe.has_event;
                if let Some(r) = &fe.id {
                    self.id_range = Some(start + r.start..start + r.end);
                }
                self.count_fast_event(&fe);
                self.pos = start + fe.len;
                self.scanned = self.pos;
                return Step::Event;
            }
            let window_end = buf
                .len()
                .min(self.pos.saturating_add(self.max_line_len).saturating_add(1));
            let from = self.scanned.max(self.pos).min(window_end);
            let t = match super::find_cr_or_lf(&buf[from..window_end]) {
                Some(i) => {
                    self.examined += (i + 1) as u64;
                    from + i
                }
                None => {
                    self.examined += (window_end - from) as u64;
                    self.scanned = window_end;
                    if window_end - self.pos > self.max_line_len {
                        let ignored = (!self.discarding_event)
                            .then(|| ignored_line(&buf[self.pos..window_end]))
                            .flatten();
                        if let Some(ignored) = ignored {
                            // A comment, `id:`, `retry:` or unknown field over the line
                            // limit: a WHATWG reader ignores it (or only notes an id) and
                            // still dispatches the event, so only the line is dropped and the
                            // event goes on (hostile trial, session 21: a 4 MiB comment hid
                            // the message after it from validation).
                            match ignored {
                                Ignored::Comment => self.comments += 1,
                                // Its value is not kept: the event reports no id.
                                Ignored::Id => self.id_set = false,
                                Ignored::Retry => {}
                                Ignored::Unknown => self.unknown_fields += 1,
                            }
                            self.unpin_single_data(buf);
                            let e = FrameError::new(
                                FrameErrorKind::LineTooLong,
                                self.offset + self.pos as u64,
                                self.line,
                                self.max_line_len + 1,
                            );
                            self.discarding_line = true;
                            self.pos = window_end;
                            self.scanned = window_end;
                            return Step::Error(e);
                        }
                        // Overlong line: report once, drop it and the rest of its event.
                        let (offset, line) = if self.fields_seen && !self.discarding_event {
                            (self.event_offset, self.event_line)
                        } else {
                            (self.offset + self.pos as u64, self.line)
                        };
                        let was_discarding = self.discarding_event;
                        // A `data:` line this long makes the event's data too large as well
                        // (with the default limits always): report the event limit, the
                        // error a server answers with -32600 / 413.
                        let (kind, len) = if !was_discarding
                            && self.data_over_limit(&buf[self.pos..window_end])
                        {
                            (FrameErrorKind::EventTooLarge, self.max_event_len + 1)
                        } else {
                            (FrameErrorKind::LineTooLong, self.max_line_len + 1)
                        };
                        self.clear_event();
                        self.discarding_event = true;
                        self.discarding_line = true;
                        self.pos = window_end;
                        self.scanned = window_end;
                        if was_discarding {
                            continue;
                        }
                        return Step::Error(FrameError::new(kind, offset, line, len));
                    }
                    return Step::Partial;
                }
            };
            let start = self.pos;
            let line_no = self.line;
            self.skip_lf = buf[t] == b'\r';
            self.pos = t + 1;
            self.scanned = self.pos;
            self.line += 1;
            after_line = true;
            if t == start {
                // Blank line: dispatch.
                if self.discarding_event {
                    self.discarding_event = false;
                    self.clear_event();
                    continue;
                }
                if self.fields_seen {
                    return Step::Event;
                }
                continue;
            }
            if self.discarding_event {
                continue;
            }
            if let Some(e) = self.field_line(buf, start, t, line_no) {
                return Step::Error(e);
            }
        }
    }

    /// The whole-event fast path of [`decode`](Self::decode) and [`finish`](Self::finish), kept
    /// small so it inlines into the caller. With no event in progress (no field seen, not
    /// discarding, no partial line searched, BOM handled), after the LF of a pending CRLF if
    /// there is one, it recognises one whole common event with [`parse_fast`](Self::parse_fast)
    /// and returns it with the bytes consumed, leaving the framer as the line-by-line path
    /// would after that event. Otherwise `None`, with nothing changed.
    #[inline(always)]
    fn decode_fast<'a>(&mut self, buf: &'a [u8]) -> Option<(usize, SseEvent<'a>)> {
        if !self.fast_ready() {
            return None;
        }
        let hit = self.fast_one(buf)?;
        let (start, fe) = (hit.start, &hit.fe);
        let rest = &buf[start..];
        let data_start = start + fe.data_start;
        let ev = SseEvent {
            data: fe.data,
            data_range: Some(data_start..data_start + fe.data.len()),
            has_data: true,
            event: fe.has_event.then_some(b"message"),
            id: fe.id.clone().map(|r| &rest[r]),
            id_range: fe.id.as_ref().map(|r| start + r.start..start + r.end),
            retry: None,
            offset: hit.offset,
            line: hit.line,
            first_data: Some(hit.first_data),
            more_data: &[],
            data_lines: 1,
        };
        Some((hit.consumed, ev))
    }

    /// The framer is where the fast path may run: no event in progress (no field seen, not
    /// discarding, no partial line searched) and the BOM handled. A whole event from the fast
    /// path leaves it so.
    #[inline(always)]
    fn fast_ready(&self) -> bool {
        // Between calls `pos` is 0 unless a data value is retained (then a field was seen).
        debug_assert!(self.pos == 0 || self.fields_seen);
        self.fast_path
            && !self.fields_seen
            && !self.discarding_event
            && !self.discarding_line
            && self.bom_checked
            && self.scanned == 0
    }

    /// One whole common event at the start of `buf` (after the LF of a CRLF whose CR ended
    /// the previous line, if one is pending), the framer [`fast_ready`](Self::fast_ready):
    /// the event, and the framer advanced past it as the line-by-line path would leave it.
    /// `None`, with nothing changed, for anything [`parse_fast`](Self::parse_fast) does not
    /// take.
    #[inline(always)]
    fn fast_one<'a>(&mut self, buf: &'a [u8]) -> Option<FastHit<'a>> {
        // The LF of a CRLF whose CR ended the previous call's last line.
        let (start, rest) = match buf {
            [b'\n', rest @ ..] if self.skip_lf => (1, rest),
            [] if self.skip_lf => return None,
            _ => (0, buf),
        };
        let fe = self.parse_fast(rest)?;
        let consumed = start + fe.len;
        let hit = FastHit {
            consumed,
            start,
            offset: self.offset + start as u64,
            line: self.line,
            first_data: self.fast_data_pos(&fe, start + fe.data_start),
            fe,
        };
        self.count_fast_event(&hit.fe);
        self.offset += consumed as u64;
        self.examined += start as u64;
        self.events += 1;
        Some(hit)
    }

    /// The fast path of [`decode`](Self::decode) and [`finish`](Self::finish) (the same in
    /// both) run over `buf` for as many whole common events in a row as it takes, each handed
    /// to `take`, which returns `false` to stop after it. Returns the bytes of `buf` consumed
    /// (0 when the framer is not [`fast_ready`](Self::fast_ready)); the framer is left as
    /// that many `decode` calls would leave it, so the caller goes on from there with
    /// `decode` or `finish`. For the batch codecs: no [`SseEvent`] is built per event.
    #[inline(always)]
    pub(crate) fn decode_fast_run<'a>(
        &mut self,
        buf: &'a [u8],
        mut take: impl FnMut(usize, FastHit<'a>) -> bool,
    ) -> usize {
        if !self.fast_ready() {
            return 0;
        }
        let mut pos = 0;
        while let Some(hit) = self.fast_one(&buf[pos..]) {
            let at = pos;
            pos += hit.consumed;
            if !take(at, hit) {
                break;
            }
        }
        pos
    }

    /// Where the data value of a whole event from [`parse_fast`](Self::parse_fast) starts,
    /// the event starting at the current line and its value at `data_start` in the buffer.
    #[inline(always)]
    fn fast_data_pos(&self, fe: &FastEvent<'_>, data_start: usize) -> StreamPos {
        let line = self.line + u64::from(fe.has_event) + u64::from(fe.id.is_some());
        StreamPos {
            offset: self.offset + data_start as u64,
            line,
            col: fe.data_col + self.bom_cols(line),
        }
    }

    /// Bytes before the first line's start in its columns: the stripped BOM's 3 on line 1.
    #[inline(always)]
    fn bom_cols(&self, line: u64) -> u64 {
        if line == 1 && self.bom_stripped {
            BOM.len() as u64
        } else {
            0
        }
    }

    /// What a whole event from [`parse_fast`](Self::parse_fast) leaves in the framer's
    /// line-by-line state, whichever path returns it: its lines counted, its bytes examined,
    /// a pending LF after a blank line ending in CR, `event: message` remembered.
    #[inline(always)]
    fn count_fast_event(&mut self, fe: &FastEvent<'_>) {
        if fe.has_event {
            self.event_is_message = true;
        }
        self.line += 2 + u64::from(fe.has_event) + u64::from(fe.id.is_some());
        self.examined += fe.examined;
        self.skip_lf = fe.blank_cr;
        self.fast_events += 1;
    }

    /// Recognises one whole common event at the start of `rest` (a line start): `[event:
    /// message EOL] [id: ID EOL] data: VALUE EOL EOL`, with the `event:` and `id:` lines in
    /// either order, where EOL is LF, CRLF or CR, `event:message`, `id:ID` and `data:VALUE`
    /// (no space) are accepted too, ID holds no NUL, and ID and VALUE hold no CR or LF,
    /// within the line and event limits. Returns where its parts lie and what the
    /// line-by-line path would count for it; `None` for anything else (other fields or
    /// comments, a second `id:`, `event:` or data line, an `id:` with NUL, a missing blank
    /// line or a CR at the end of `rest` before the blank line, a line over the line limit or
    /// data over the event limit: the line-by-line path reports those).
    #[inline(always)]
    fn parse_fast<'a>(&self, rest: &'a [u8]) -> Option<FastEvent<'a>> {
        // Up to two lines before the data line: `event: message` and `id: VALUE`, each at
        // most once, in either order (the Python SDK writes `id:` first, the TypeScript SDK
        // `event:` first).
        let mut line = rest;
        let mut has_event = false;
        let mut id: Option<Range<usize>> = None;
        if line.first() == Some(&b'i') {
            let (v, after) = self.id_line(line)?;
            id = Some(v);
            line = after;
        }
        if line.first() == Some(&b'e') {
            line = self.event_message_line(line)?;
            has_event = true;
            if id.is_none() && line.first() == Some(&b'i') {
                let (v, after) = self.id_line(line)?;
                let at = rest.len() - line.len();
                id = Some(at + v.start..at + v.end);
                line = after;
            }
        }
        let value = match line.strip_prefix(b"data: ") {
            Some(v) => v,
            None => line.strip_prefix(b"data:")?,
        };
        // The line-by-line path searches at most `max_line_len + 1` bytes of a line.
        let hay = if line.len() <= self.max_line_len {
            value
        } else {
            let name_len = line.len() - value.len();
            let window = self.max_line_len.saturating_add(1).checked_sub(name_len)?;
            &value[..value.len().min(window)]
        };
        let k = super::find_cr_or_lf(hay)?;
        if k > self.max_event_len {
            return None;
        }
        let (data, eol) = value.split_at(k);
        let blank = after_eol(eol)?;
        let blank_cr = match blank.first()? {
            b'\n' => false,
            b'\r' => true,
            _ => return None,
        };
        let len = rest.len() - blank.len() + 1;
        Some(FastEvent {
            len,
            data,
            data_start: rest.len() - value.len(),
            data_col: (line.len() - value.len()) as u64 + 1,
            has_event,
            // The line-by-line path examines every byte of the lines it searches (terminator
            // and skipped LF included) plus the field names with their colons.
            examined: (len + 5 + if has_event { 6 } else { 0 } + if id.is_some() { 3 } else { 0 })
                as u64,
            blank_cr,
            id,
        })
    }

    /// `event: message` (or `event:message`) and its line end at the start of `line`, within
    /// the line limit: the bytes after the line end. `None` for any other line, and when the
    /// line end is a CR at the end of `line` (it may be the first half of a CRLF; then the
    /// next line is empty here and the caller gives up anyway).
    #[inline(always)]
    fn event_message_line<'a>(&self, line: &'a [u8]) -> Option<&'a [u8]> {
        // The two commonest openings in one compare each (same result as the general match).
        const MESSAGE_CRLF: &[u8] = b"event: message\r\n";
        const MESSAGE_LF: &[u8] = b"event: message\n";
        const EVENT_LINE: usize = b"event: message".len();
        if line.starts_with(MESSAGE_CRLF) && EVENT_LINE <= self.max_line_len {
            return Some(&line[MESSAGE_CRLF.len()..]);
        }
        if line.starts_with(MESSAGE_LF) && EVENT_LINE <= self.max_line_len {
            return Some(&line[MESSAGE_LF.len()..]);
        }
        let v = line.strip_prefix(b"event:")?;
        let v = v.strip_prefix(b" ").unwrap_or(v);
        let after = v.strip_prefix(b"message")?;
        if line.len() - after.len() > self.max_line_len {
            return None;
        }
        after_eol(after)
    }

    /// `id: VALUE` (or `id:VALUE`) and its line end at the start of `line`: the value's range
    /// in `line` and the bytes after the line end. `None` for any other line, when the
    /// value holds a NUL (the line-by-line path ignores such a field), when no line end is
    /// found within the line limit (the line-by-line path searches at most `max_line_len + 1`
    /// bytes of a line).
    #[inline(always)]
    fn id_line<'a>(&self, line: &'a [u8]) -> Option<(Range<usize>, &'a [u8])> {
        // A value of up to 15 bytes after `id: ` (event stores number their events): a byte
        // loop whose branches are predicted; longer values and `id:` without the space below.
        if let Some(k) = crate::scan::line::short_id_line_end(line)
            && k <= self.max_line_len
        {
            return Some((4..k, after_eol(&line[k..])?));
        }
        let value = line.strip_prefix(b"id:")?;
        let name_len = if value.first() == Some(&b' ') { 4 } else { 3 };
        let value = &line[name_len..];
        let window = self.max_line_len.saturating_add(1).checked_sub(name_len)?;
        let k = crate::scan::line::find_cr_or_lf_before_nul(&value[..value.len().min(window)])?;
        let after = after_eol(&value[k..])?;
        Some((name_len..name_len + k, after))
    }

    /// Interprets one non-blank line `buf[start..end]`.
    fn field_line(
        &mut self,
        buf: &[u8],
        start: usize,
        end: usize,
        line_no: u64,
    ) -> Option<FrameError> {
        let line = &buf[start..end];
        if line[0] == b':' {
            self.examined += 1;
            self.comments += 1;
            // A comment after the single data line must also end zero-copy retention, or
            // keep-alives between `data:` and the blank line would pin the buffer (F3).
            self.unpin_single_data(buf);
            return None;
        }
        let (name, value_start) =
            match known_field_colon(line).or_else(|| memchr::memchr(b':', line)) {
                Some(c) => {
                    self.examined += (c + 1) as u64;
                    let v = if line.get(c + 1) == Some(&b' ') {
                        c + 2
                    } else {
                        c + 1
                    };
                    (&line[..c], start + v)
                }
                None => {
                    self.examined += line.len() as u64;
                    (line, end)
                }
            };
        let value = start_end(value_start, end);
        if !self.fields_seen {
            self.fields_seen = true;
            self.event_offset = self.offset + start as u64;
            self.event_line = line_no;
        }
        if name == b"data" {
            self.data_lines += 1;
            let pos = StreamPos {
                offset: self.offset + value_start as u64,
                line: line_no,
                col: (value_start - start) as u64 + 1 + self.bom_cols(line_no),
            };
            match &self.data {
                Data::None => {
                    self.first_data = Some(pos);
                    self.more_data.clear();
                    // One event of many data lines must not keep its positions' memory for
                    // the rest of the stream (32 bytes per line; hostile trial, session 13).
                    self.more_data.shrink_to(RETAINED_DATA_LINE_STARTS);
                    self.data = Data::Single(value.clone());
                    if value.len() > self.max_event_len {
                        return Some(self.event_too_large());
                    }
                }
                Data::Single(r) => {
                    let r = r.clone();
                    self.joined.clear();
                    self.joined.extend_from_slice(&buf[r]);
                    self.joined.push(b'\n');
                    self.keep_data_line_start(pos);
                    self.joined.extend_from_slice(&buf[value]);
                    self.data = Data::Joined;
                    if self.joined.len() > self.max_event_len {
                        return Some(self.event_too_large());
                    }
                }
                Data::Joined => {
                    if self.joined.len() + 1 + value.len() > self.max_event_len {
                        return Some(self.event_too_large());
                    }
                    self.joined.push(b'\n');
                    self.keep_data_line_start(pos);
                    self.joined.extend_from_slice(&buf[value]);
                }
            }
            return None;
        }
        self.unpin_single_data(buf);
        match name {
            b"event" => {
                // `event: message` (what MCP servers send) is kept as a flag, not copied.
                self.event_is_message = &buf[value.clone()] == b"message";
                if !self.event_is_message {
                    self.event.clear();
                    self.event.extend_from_slice(&buf[value]);
                }
                self.event_set = true;
            }
            b"id" => {
                let v = &buf[value];
                if !crate::scan::line::contains_nul(v) {
                    self.id.clear();
                    self.id.extend_from_slice(v);
                    self.id_set = true;
                }
            }
            b"retry" => {
                let v = &buf[value];
                if !v.is_empty() && v.iter().all(u8::is_ascii_digit) {
                    // Out-of-range values are ignored like any other invalid value.
                    self.retry = std::str::from_utf8(v)
                        .ok()
                        .and_then(|s| s.parse().ok())
                        .or(self.retry);
                }
            }
            _ => self.unknown_fields += 1,
        }
        None
    }

    /// Records where the `data:` value about to be appended to `joined` starts, up to
    /// `max_data_line_starts`; then once a start with line 0 (positions not kept).
    fn keep_data_line_start(&mut self, pos: StreamPos) {
        let n = self.more_data.len();
        let pos = if n < self.max_data_line_starts {
            pos
        } else if n == self.max_data_line_starts {
            StreamPos {
                offset: 0,
                line: 0,
                col: 0,
            }
        } else {
            return;
        };
        self.more_data.push(DataLineStart {
            at: self.joined.len(),
            pos,
        });
    }

    /// Any line after the single data line other than another `data:` line or the blank
    /// line (a comment, `event:`, `id:`, `retry:`, an unknown field) ends zero-copy retention
    /// of the data value: it is copied to the scratch buffer so the buffered bytes stay
    /// bounded by the event limit plus one line, whatever follows.
    fn unpin_single_data(&mut self, buf: &[u8]) {
        if let Data::Single(r) = &self.data {
            let r = r.clone();
            self.joined.clear();
            self.joined.extend_from_slice(&buf[r]);
            self.data = Data::Joined;
        }
    }

    /// Whether `seen`, the first bytes of an overlong line, is a `data:` line whose value
    /// alone or joined to the event's data so far is already over the event limit.
    fn data_over_limit(&self, seen: &[u8]) -> bool {
        let Some(value) = seen.strip_prefix(b"data:") else {
            return false;
        };
        let value = value.strip_prefix(b" ").unwrap_or(value);
        let before = match &self.data {
            Data::None => 0,
            Data::Single(r) => r.len() + 1,
            Data::Joined => self.joined.len() + 1,
        };
        before + value.len() > self.max_event_len
    }

    fn event_too_large(&mut self) -> FrameError {
        let e = FrameError::new(
            FrameErrorKind::EventTooLarge,
            self.event_offset,
            self.event_line,
            self.max_event_len + 1,
        );
        self.clear_event();
        self.discarding_event = true;
        e
    }
}

/// The colon's index when `line` starts with `data:`, `event:` or `id:` (the fields MCP
/// servers send on every event), found with one or two word compares instead of a `memchr`
/// call; `None` for any other line, which then takes the general search. Same result as
/// `memchr(b':', line)` on the lines it answers for.
#[inline(always)]
fn known_field_colon(line: &[u8]) -> Option<usize> {
    if line.starts_with(b"data:") {
        Some(4)
    } else if line.starts_with(b"event:") {
        Some(5)
    } else if line.starts_with(b"id:") {
        Some(2)
    } else {
        None
    }
}

/// A line over the line limit whose loss leaves its event as a WHATWG reader dispatches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ignored {
    Comment,
    /// Sets only the last event id.
    Id,
    Retry,
    /// A field of another name than the four.
    Unknown,
}

/// What `seen`, the first bytes of a line over the line limit, is when its loss leaves its
/// event as a WHATWG reader dispatches it: a comment, or a field other than `data` and
/// `event`; `None` for those two. The field name is known once a colon is among the bytes
/// seen, or when more bytes than the longest known name (`event`, `retry`) hold none;
/// otherwise (tiny line limits) the line counts as a `data:` line (`None`).
fn ignored_line(seen: &[u8]) -> Option<Ignored> {
    if seen.first() == Some(&b':') {
        return Some(Ignored::Comment);
    }
    match memchr::memchr(b':', seen).map(|c| &seen[..c]) {
        Some(b"data" | b"event") => None,
        Some(b"id") => Some(Ignored::Id),
        Some(b"retry") => Some(Ignored::Retry),
        Some(_) => Some(Ignored::Unknown),
        None => (seen.len() > b"retry".len()).then_some(Ignored::Unknown),
    }
}

/// The type of an event whose `event:` value is `event`: that value, or `b"message"` when
/// absent or empty (WHATWG).
pub(crate) fn event_type(event: Option<&[u8]>) -> &[u8] {
    match event {
        Some(e) if !e.is_empty() => e,
        _ => b"message",
    }
}

/// The bytes after the line end (CRLF, CR or LF) at the start of `eol`; `None` when `eol`
/// does not start with CR or LF. A CR at the very end of `eol` counts as a whole line end
/// here: the fast path's callers give up on a line that ends there anyway (the next line
/// is then empty), so the LF that may follow in the next read is never mistaken for one.
#[inline(always)]
fn after_eol(eol: &[u8]) -> Option<&[u8]> {
    match eol {
        [b'\r', b'\n', rest @ ..] => Some(rest),
        [b'\r' | b'\n', rest @ ..] => Some(rest),
        _ => None,
    }
}

fn start_end(start: usize, end: usize) -> Range<usize> {
    start..end
}

enum Step {
    Partial,
    Event,
    Error(FrameError),
}

/// A whole event taken by [`SseFramer::fast_one`]; indices are relative to the slice given.
pub(crate) struct FastHit<'a> {
    /// Bytes consumed: the skipped LF, if any, and the event.
    pub(crate) consumed: usize,
    /// Bytes before the event (1 for a skipped LF, else 0); `fe`'s indices count from here.
    pub(crate) start: usize,
    /// Stream offset of the event's first byte.
    pub(crate) offset: u64,
    /// 1-based line of the event's first line.
    pub(crate) line: u64,
    /// Where the data value starts in the stream.
    pub(crate) first_data: StreamPos,
    /// The event's parts.
    pub(crate) fe: FastEvent<'a>,
}

/// A whole event found by [`SseFramer::parse_fast`]; indices are relative to the slice given.
pub(crate) struct FastEvent<'a> {
    /// Bytes of the event through the blank line's terminator (a CR, when the blank line ends
    /// in CR: a LF after it is left for the next line, as the line-by-line path does).
    pub(crate) len: usize,
    /// The data value.
    pub(crate) data: &'a [u8],
    /// Index of the data value.
    pub(crate) data_start: usize,
    /// 1-based column of the data value in its line (6 after `data:`, 7 after `data: `).
    pub(crate) data_col: u64,
    /// The event had the `event: message` line.
    pub(crate) has_event: bool,
    /// Bytes the line-by-line path counts as examined for these lines.
    pub(crate) examined: u64,
    /// The blank line ended in CR.
    pub(crate) blank_cr: bool,
    /// Where the `id:` value lies, when the event had an `id:` line.
    pub(crate) id: Option<Range<usize>>,
}

/// Convenience for tests and tools: splits a whole in-memory stream into owned events and
/// errors (one `finish` loop).
pub fn split_all(framer: &mut SseFramer, stream: &[u8]) -> Vec<Result<OwnedSseEvent, FrameError>> {
    let mut out = Vec::new();
    let mut buf = stream;
    loop {
        let d = framer.finish(buf);
        match d.status {
            Status::Partial => break,
            Status::Complete(Ok(ev)) => out.push(Ok(OwnedSseEvent::from(&ev))),
            Status::Complete(Err(e)) => out.push(Err(e)),
        }
        buf = &buf[d.consumed..];
    }
    out
}

/// An owned copy of an [`SseEvent`] (for tests, tools and comparisons).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedSseEvent {
    /// Joined data.
    pub data: Vec<u8>,
    /// True when a `data:` field was present.
    pub has_data: bool,
    /// `event:` value.
    pub event: Option<Vec<u8>>,
    /// `id:` value.
    pub id: Option<Vec<u8>>,
    /// `retry:` value in ms.
    pub retry: Option<u64>,
    /// Stream offset of the first field line.
    pub offset: u64,
    /// 1-based line of the first field line.
    pub line: u64,
    /// Stream offset of the first data value.
    pub data_offset: Option<u64>,
    /// Where each data value starts ([`SseEvent::data_line_starts`]).
    pub data_line_starts: Vec<DataLineStart>,
}

impl From<&SseEvent<'_>> for OwnedSseEvent {
    fn from(ev: &SseEvent<'_>) -> Self {
        Self {
            data: ev.data().to_vec(),
            has_data: ev.has_data(),
            event: ev.event().map(<[u8]>::to_vec),
            id: ev.id().map(<[u8]>::to_vec),
            retry: ev.retry(),
            offset: ev.offset(),
            line: ev.line(),
            data_offset: ev.data_offset(),
            data_line_starts: ev.data_line_starts().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_fields_and_priming() {
        let mut f = SseFramer::new();
        let s = b"\xEF\xBB\xBFid: 1\r\ndata: \r\nretry: 500\r\n\r\n: ka\r\nevent: message\r\ndata: {}\r\n\r\ndata: a\ndata: b\n\n";
        let out = split_all(&mut f, s);
        assert_eq!(out.len(), 3, "{out:?}");
        let e0 = out[0].as_ref().unwrap();
        assert_eq!(
            (e0.id.as_deref(), e0.retry, e0.has_data, &e0.data[..]),
            (Some(&b"1"[..]), Some(500), true, &b""[..])
        );
        assert_eq!((e0.offset, e0.line), (3, 1));
        let e1 = out[1].as_ref().unwrap();
        assert_eq!(
            (e1.event.as_deref(), &e1.data[..]),
            (Some(&b"message"[..]), &b"{}"[..])
        );
        assert_eq!(e1.line, 6);
        let e2 = out[2].as_ref().unwrap();
        assert_eq!(&e2.data[..], b"a\nb");
        assert!(f.bom_stripped());
        assert_eq!(f.comments(), 1);
    }

    #[test]
    fn zero_copy_only_while_nothing_follows_the_data_line() {
        // Fields and comments before the data line: zero-copy.
        let s = b": ka\nevent: message\nid: 1\ndata: {}\n\n";
        let mut f = SseFramer::new();
        let d = f.decode(s);
        let Status::Complete(Ok(ev)) = d.status else {
            panic!("{:?}", d.status)
        };
        assert_eq!(ev.data_range(), Some(32..34));
        // A comment or a field after it: copied (F3), same data.
        for s in [&b"data: {}\n: ka\n\n"[..], &b"data: {}\nid: 2\n\n"[..]] {
            let mut f = SseFramer::new();
            let d = f.decode(s);
            let Status::Complete(Ok(ev)) = d.status else {
                panic!("{:?}", d.status)
            };
            assert_eq!((ev.data(), ev.data_range()), (&b"{}"[..], None));
        }
    }
}
