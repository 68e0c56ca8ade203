//! Inputs (files and stdin) read as streams in fixed-size chunks and cut into frames by the
//! sans-I/O framers of [`mcpwire::framing`] (ndjson, sse, body). Memory stays bounded by the
//! frame limit plus one chunk, and for SSE the positions of each `data:` line of the current
//! event (kept so that every offset in joined data is exact): 32 bytes per line in the
//! framer and 32 in the reader, so an event of many short `data:` lines (6 bytes each in
//! the stream) holds up to about 11 times its stream size (hostile trial, session 13: a
//! 24 MB event of 4,000,000 empty `data:` lines, within the default 4 MiB data limit, peaked
//! at 293 MB; the limit bounds it, as `--max-frame-bytes` does the data). The memory grown
//! by one such event is given back at the next event.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read};
use std::ops::Range;
use std::path::{Path, PathBuf};

use mcpwire::framing::body::BodyFramer;
use mcpwire::framing::ndjson::NdjsonFramer;
use mcpwire::framing::sse::{self, DataLineStart, LINE_OVERHEAD, SseFramer};
use mcpwire::framing::{FrameError, FrameErrorKind, Status, StreamPos};
use mcpwire::profile::Direction;

/// Bytes asked of the reader per `read()` call.
const CHUNK: usize = 64 * 1024;

/// Capacity (entries) of the SSE data-line positions kept from one frame to the next.
const RETAINED_DATA_LINES: usize = 1024;

/// Distinct event types [`FrameReader::other_events`] keeps by name; the rest are counted
/// under [`OTHER_EVENT_TYPES`] (hostile input could name a new type on every event).
pub const MAX_OTHER_EVENT_TYPES: usize = 32;

/// The key under which event types past [`MAX_OTHER_EVENT_TYPES`] are counted.
pub const OTHER_EVENT_TYPES: &str = "(more types)";

/// Longest event type name kept whole in [`FrameReader::other_events`], in bytes; a longer
/// one is cut there (at a character boundary) and ends with `…`.
pub const MAX_EVENT_TYPE_NAME: usize = 64;

/// Which transport framing the input uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Transport {
    /// stdio: one JSON-RPC message per line (LF, CRLF tolerated).
    Stdio,
    /// `text/event-stream`: `data:` lines of each event joined with LF.
    Sse,
    /// One HTTP body: the whole input is one frame.
    HttpBody,
}

/// One input named on the command line.
#[derive(Clone, Debug)]
pub enum Source {
    /// `-`: standard input.
    Stdin,
    /// A path.
    Path(PathBuf),
}

impl Source {
    /// Parses a command-line argument (`-` is stdin); any path, UTF-8 or not.
    pub fn from_arg(arg: &Path) -> Self {
        if arg == Path::new("-") {
            Source::Stdin
        } else {
            Source::Path(arg.to_owned())
        }
    }
    /// The name shown in diagnostics (`<stdin>` for `-`).
    pub fn display_name(&self) -> String {
        match self {
            Source::Stdin => "<stdin>".to_owned(),
            Source::Path(p) => p.display().to_string(),
        }
    }
    /// The name's bytes in standard Base64 when they are not UTF-8, for the jsonl
    /// `file_base64` field: [`Source::display_name`] then shows U+FFFD for each invalid
    /// sequence, and two such names can read alike (trial finding: `bad\xff` and `bad\xfe`
    /// were both `bad\u{FFFD}`). `None` for UTF-8 names and standard input.
    pub fn name_base64(&self) -> Option<String> {
        use base64::Engine as _;
        let p = self.path()?;
        if p.to_str().is_some() {
            return None;
        }
        #[cfg(unix)]
        let bytes = std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str()).to_vec();
        #[cfg(not(unix))]
        let bytes = p.as_os_str().as_encoded_bytes().to_vec();
        Some(base64::engine::general_purpose::STANDARD.encode(bytes))
    }
    /// The path, when the source is a file.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Source::Stdin => None,
            Source::Path(p) => Some(p),
        }
    }
    /// Opens the source for streaming.
    ///
    /// # Errors
    /// I/O errors of `open`, and `InvalidInput` for a directory.
    pub fn open(&self) -> io::Result<Box<dyn Read>> {
        match self {
            Source::Stdin => Ok(Box::new(io::stdin().lock())),
            Source::Path(p) => {
                if std::fs::metadata(p)?.is_dir() {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "is a directory",
                    ));
                }
                Ok(Box::new(File::open(p)?))
            }
        }
    }
}

/// The direction an input's name says its traffic flows (`--direction auto`):
///
/// * a path containing `client-to-server` (or a file name ending in `.request.json`): client
///   to server;
/// * a path containing `server-to-client`, a `.sse` file (Streamable HTTP: SSE streams, POST
///   responses such as `001-post.sse` and GET streams alike, flow from the server), or a file
///   name ending in `.response.json`: server to client;
/// * anything else, and stdin: unknown (the profile's direction rules are skipped).
///
/// Matching is ASCII case-insensitive. The file name decides first; only when it says
/// nothing does the rest of the path (a capture directory named `…/client-to-server/`), so
/// `server-to-client/client-to-server.jsonl` is client to server (new-user trial, session 12:
/// a path naming both directions gave unknown). Hints that disagree at the same level give
/// unknown.
pub fn infer_direction(name: &str) -> Direction {
    let n = name.to_ascii_lowercase();
    let file = n.rsplit(['/', '\\']).next().unwrap_or(&n);
    let dir = &n[..n.len() - file.len()];
    let file_c2s = file.contains("client-to-server") || file.ends_with(".request.json");
    let file_s2c = file.contains("server-to-client")
        || file.ends_with(".sse")
        || file.ends_with(".response.json");
    let (c2s, s2c) = if file_c2s || file_s2c {
        (file_c2s, file_s2c)
    } else {
        (
            dir.contains("client-to-server"),
            dir.contains("server-to-client"),
        )
    };
    match (c2s, s2c) {
        (true, false) => Direction::ClientToServer,
        (false, true) => Direction::ServerToClient,
        _ => Direction::Unknown,
    }
}

/// Where the frame's first byte is in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    /// Absolute offset in the input (bytes).
    pub offset: u64,
    /// 1-based line.
    pub line: u64,
    /// 1-based column (bytes).
    pub col: u64,
}

/// One frame borrowed from the reader, or a framing error in its place.
#[derive(Debug)]
pub struct Frame<'a> {
    /// The frame bytes (terminator excluded; for SSE the joined `data:` values). When `error`
    /// is set: an unterminated last line's bytes (reported, never parsed), else empty.
    pub bytes: &'a [u8],
    /// Length of the frame in the input (bytes).
    pub input_len: u64,
    /// Where it starts.
    pub origin: Origin,
    /// Set when the framer reported an error instead of a frame.
    pub error: Option<FrameError>,
    /// For SSE data: where each `data:` value starts (empty otherwise).
    pub data_lines: &'a [DataLineStart],
}

impl Frame<'_> {
    /// Absolute input offset of the frame's first byte.
    pub fn offset(&self) -> u64 {
        self.origin.offset
    }
    /// The absolute input offset of frame-relative byte `rel` (for SSE data: of that data
    /// byte in the stream); O(1), or O(log n) for joined SSE data.
    pub fn offset_at(&self, rel: usize) -> u64 {
        self.data_position(rel)
            .map_or(self.origin.offset + rel as u64, |p| p.offset)
    }
    /// For SSE data: the stream position of frame-relative byte `rel` (an offset past the
    /// data, none is expected, stays on the last line); `None` for other transports and past
    /// the kept `data:` line starts.
    fn data_position(&self, rel: usize) -> Option<StreamPos> {
        let len = self.bytes.len();
        sse::position_in_data(self.data_lines, len, rel.min(len))
            .map(|p| p.advance(rel.saturating_sub(len) as u64))
    }
    /// Finds the frame's line ends once, for the positions of many offsets (a frame can have
    /// hundreds of thousands of violations: one scan per violation was quadratic, trial
    /// finding).
    pub fn locator(&self) -> Locator<'_> {
        Locator {
            frame: self,
            newlines: memchr::memchr_iter(b'\n', self.bytes).collect(),
        }
    }
}

/// Positions in one [`Frame`], from its LF positions found once.
pub struct Locator<'f> {
    frame: &'f Frame<'f>,
    newlines: Vec<usize>,
}

impl Locator<'_> {
    /// How many of the frame's LFs lie before byte `end`.
    fn lines_before(&self, end: usize) -> usize {
        self.newlines.partition_point(|&p| p < end)
    }
    /// Maps a frame-relative byte offset to (absolute offset, line, column); exact for every
    /// transport, joined SSE data included (the LF joining two `data:` values maps to the
    /// first one's line end), except in the `data:` values of an SSE event past the first
    /// [`sse::MAX_DATA_LINE_STARTS`] + 1, whose positions the framer does not keep: there the
    /// data's own line ends are counted from the first value (approximate). O(log n).
    pub fn locate(&self, rel: usize) -> (u64, u64, u64) {
        let f = self.frame;
        if let Some(p) = f.data_position(rel) {
            return (p.offset, p.line, p.col);
        }
        let end = rel.min(f.bytes.len());
        let abs = f.origin.offset + rel as u64;
        match self.lines_before(end) {
            0 => (abs, f.origin.line, f.origin.col + rel as u64),
            k => (
                abs,
                f.origin.line + k as u64,
                (end - self.newlines[k - 1]) as u64,
            ),
        }
    }
    /// The frame line holding byte `rel` (clamped to the frame): its start and end (the LF
    /// or the frame end), frame-relative.
    pub fn line_bounds(&self, rel: usize) -> Range<usize> {
        let rel = rel.min(self.frame.bytes.len());
        let k = self.lines_before(rel);
        let start = k.checked_sub(1).map_or(0, |i| self.newlines[i] + 1);
        let end = self
            .newlines
            .get(k)
            .copied()
            .unwrap_or(self.frame.bytes.len());
        start..end
    }
}

enum Framer {
    Ndjson(NdjsonFramer),
    Sse(Box<SseFramer>),
    Body(BodyFramer),
}

/// Pulls frames from a reader in [`CHUNK`]-byte reads through a [`mcpwire::framing`] framer.
pub struct FrameReader {
    inner: Box<dyn Read>,
    framer: Framer,
    /// Read buffer; `buf[start..]` are the pending bytes handed to the framer.
    buf: Vec<u8>,
    start: usize,
    /// Bytes to drop from the pending bytes before the next framer call.
    drop_next: usize,
    /// Absolute input offset of `buf[0]`.
    base: u64,
    eof: bool,
    finished: bool,
    /// Joined SSE data (copied out of the framer).
    joined: Vec<u8>,
    /// Where the current SSE frame's `data:` values start (copied out of the framer).
    data_lines: Vec<DataLineStart>,
    /// Bytes read so far (for the progress bar and the summary).
    pub bytes_read: u64,
    /// A 0-byte HTTP body is a frame (rejected as `empty`) rather than no message.
    empty_body_is_frame: bool,
    /// SSE events that carry data but are of another type than `message` (the
    /// 2024-11-05 `endpoint` event, a misspelt `event: Message`), by event type: skipped,
    /// not frames, and counted here so that none goes unreported (new-user trial: an
    /// `event: Message` stream checked as "0 frames"). Events without data (priming
    /// events, `retry:`-only blocks) are not counted. At most [`MAX_OTHER_EVENT_TYPES`]
    /// names, each at most [`MAX_EVENT_TYPE_NAME`] bytes, then [`OTHER_EVENT_TYPES`].
    pub other_events: BTreeMap<String, u64>,
}

/// Counts one event of type `ty` into `counts` under the limits of
/// [`FrameReader::other_events`].
pub fn count_event_type(counts: &mut BTreeMap<String, u64>, ty: &[u8]) {
    // A name may be as long as a line (megabytes): only a prefix is decoded. Every byte
    // decodes to at least one, so the first `MAX_EVENT_TYPE_NAME` bytes of the result come
    // from this prefix, and a character cut at its end lies past them.
    let name = String::from_utf8_lossy(&ty[..ty.len().min(4 * MAX_EVENT_TYPE_NAME)]);
    let name = if name.len() > MAX_EVENT_TYPE_NAME {
        let mut cut = MAX_EVENT_TYPE_NAME;
        while !name.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}…", &name[..cut])
    } else {
        name.into_owned()
    };
    add_event_type(counts, name, 1);
}

/// Adds `n` events of type `name` to `counts`: under `name` while fewer than
/// [`MAX_OTHER_EVENT_TYPES`] names are kept (or `name` is one of them), else under
/// [`OTHER_EVENT_TYPES`]. Also merges one input's [`FrameReader::other_events`] into a
/// run's totals, with the same bound.
pub fn add_event_type(counts: &mut BTreeMap<String, u64>, name: String, n: u64) {
    let names = counts.len() - usize::from(counts.contains_key(OTHER_EVENT_TYPES));
    if let Some(c) = counts.get_mut(&name) {
        *c += n;
    } else if names < MAX_OTHER_EVENT_TYPES {
        counts.insert(name, n);
    } else {
        *counts.entry(OTHER_EVENT_TYPES.to_owned()).or_default() += n;
    }
}

enum Got {
    InBuf(Range<usize>, Origin),
    Joined(Origin),
    /// A framing error, with the bytes still pending that it concerns (an unterminated last
    /// line's) when they are kept.
    Error(FrameError, Option<Range<usize>>),
    /// Consumed something that is not a frame (an SSE priming event, an empty body).
    Skip,
}

impl FrameReader {
    /// A reader for `transport` with frames limited to `max_frame` bytes.
    pub fn new(inner: Box<dyn Read>, transport: Transport, max_frame: usize) -> Self {
        let framer = match transport {
            Transport::Stdio => Framer::Ndjson(NdjsonFramer::with_max_frame_len(max_frame)),
            Transport::Sse => {
                let mut f =
                    SseFramer::with_limits(max_frame, max_frame.saturating_add(LINE_OVERHEAD));
                // Every data line's position, so that every offset is exact (re-trial
                // finding: past 1,024 lines of one event the offsets were wrong).
                f.set_max_data_line_starts(usize::MAX);
                Framer::Sse(Box::new(f))
            }
            Transport::HttpBody => Framer::Body(BodyFramer::with_max_body_len(max_frame)),
        };
        Self {
            inner,
            framer,
            buf: Vec::with_capacity(CHUNK * 2),
            start: 0,
            drop_next: 0,
            base: 0,
            eof: false,
            finished: false,
            joined: Vec::new(),
            data_lines: Vec::new(),
            bytes_read: 0,
            empty_body_is_frame: false,
            other_events: BTreeMap::new(),
        }
    }

    /// SSE field lines of an unknown name read so far ([`SseFramer::unknown_fields`]: a
    /// misspelt `Data:` loses its value); 0 for the other transports.
    pub fn sse_unknown_fields(&self) -> u64 {
        match &self.framer {
            Framer::Sse(f) => f.unknown_fields(),
            _ => 0,
        }
    }

    /// With `--transport http-body`: makes a 0-byte body one frame (which the parser rejects
    /// as `empty`, -32700) instead of no message. For request bodies (client to server): a
    /// POST always carries a message, and a server answers an empty one -32700; only a
    /// response may have no body (`202 Accepted`). Hostile trial (session 12): an empty
    /// `*.request.json` passed with 0 frames.
    pub fn empty_body_is_frame(mut self, yes: bool) -> Self {
        self.empty_body_is_frame = yes;
        self
    }

    /// Reads one more chunk (compacting the buffer first); returns false at end of input.
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.start > 0 && self.start >= self.buf.len() / 2 {
            self.buf.drain(..self.start);
            self.base += self.start as u64;
            self.start = 0;
        }
        let old = self.buf.len();
        self.buf.resize(old + CHUNK, 0);
        let n = loop {
            match self.inner.read(&mut self.buf[old..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.buf.truncate(old);
                    return Err(e);
                }
            }
        };
        self.buf.truncate(old + n);
        self.bytes_read += n as u64;
        if n == 0 {
            self.eof = true;
        }
        Ok(n > 0)
    }

    /// Runs the framer once over the pending bytes.
    fn step(&mut self) -> Option<Got> {
        let base = self.base + self.start as u64;
        let pending = &self.buf[self.start..];
        let at_end = self.eof;
        let (consumed, got) = match &mut self.framer {
            Framer::Ndjson(f) => {
                let d = if at_end {
                    f.finish(pending)
                } else {
                    f.decode(pending)
                };
                let got = match d.status {
                    Status::Partial => None,
                    // The leftover bytes of an unterminated last line are still pending:
                    // keep them for the human snippet (they are reported, never parsed).
                    Status::Complete(Err(e)) if e.kind() == FrameErrorKind::UnterminatedLine => {
                        let n = e.len().min(pending.len());
                        Some(Got::Error(e, Some(self.start..self.start + n)))
                    }
                    // A line with a bare CR: its bytes stay in the buffer until the next call
                    // (`drop_next`), so the report can show them and point at the CR. Blank
                    // lines before it in this call moved its start past `pending[0]`.
                    Status::Complete(Err(e)) if e.kind() == FrameErrorKind::BareCr => {
                        let kept = e
                            .range_from(base)
                            .filter(|r| r.end <= pending.len())
                            .map(|r| self.start + r.start..self.start + r.end);
                        Some(Got::Error(e, kept))
                    }
                    Status::Complete(Err(e)) => Some(Got::Error(e, None)),
                    Status::Complete(Ok(fr)) => {
                        let o = Origin {
                            offset: fr.offset(),
                            line: fr.line(),
                            col: 1,
                        };
                        let r = fr.range();
                        Some(Got::InBuf(self.start + r.start..self.start + r.end, o))
                    }
                };
                (d.consumed, got)
            }
            Framer::Body(f) => {
                let d = if at_end {
                    f.finish(pending)
                } else {
                    f.decode(pending)
                };
                let got = match d.status {
                    Status::Partial => None,
                    Status::Complete(Err(e)) => Some(Got::Error(e, None)),
                    Status::Complete(Ok(fr)) if fr.is_empty() && !self.empty_body_is_frame => {
                        Some(Got::Skip)
                    }
                    Status::Complete(Ok(fr)) => {
                        let o = Origin {
                            offset: base,
                            line: 1,
                            col: 1,
                        };
                        Some(Got::InBuf(self.start..self.start + fr.len(), o))
                    }
                };
                (d.consumed, got)
            }
            Framer::Sse(f) => {
                let d = if at_end {
                    f.finish(pending)
                } else {
                    f.decode(pending)
                };
                let got = match d.status {
                    Status::Partial => None,
                    Status::Complete(Err(e)) => Some(Got::Error(e, None)),
                    // Priming events (empty data), retry-only blocks: not messages, not
                    // counted. Events of other types with data: counted, then skipped.
                    Status::Complete(Ok(ev)) if !ev.is_message() => {
                        if !ev.data().is_empty() {
                            count_event_type(&mut self.other_events, ev.event_type());
                        }
                        Some(Got::Skip)
                    }
                    Status::Complete(Ok(ev)) => {
                        // A message event has data, so a first `data:` value.
                        self.data_lines.clear();
                        // Peak memory follows the event (32 bytes per `data:` line, see the
                        // module docs); what one large event grew is not kept afterwards.
                        self.data_lines.shrink_to(RETAINED_DATA_LINES);
                        self.data_lines.extend(ev.data_line_starts());
                        let origin = self.data_lines.first().map_or(
                            Origin {
                                offset: ev.offset(),
                                line: ev.line(),
                                col: 1,
                            },
                            |d| Origin {
                                offset: d.pos.offset,
                                line: d.pos.line,
                                col: d.pos.col,
                            },
                        );
                        match ev.data_range() {
                            Some(r) => {
                                Some(Got::InBuf(self.start + r.start..self.start + r.end, origin))
                            }
                            None => {
                                self.joined.clear();
                                self.joined.extend_from_slice(ev.data());
                                Some(Got::Joined(origin))
                            }
                        }
                    }
                };
                (d.consumed, got)
            }
        };
        self.drop_next = consumed;
        got
    }

    /// The next frame (or framing error), or `None` at end of input.
    ///
    /// # Errors
    /// Read errors of the underlying reader.
    pub fn next_frame(&mut self) -> io::Result<Option<Frame<'_>>> {
        loop {
            self.start += std::mem::take(&mut self.drop_next);
            if self.finished {
                return Ok(None);
            }
            let was_eof = self.eof;
            match self.step() {
                Some(Got::InBuf(r, origin)) => {
                    let bytes = &self.buf[r];
                    let data_lines = match self.framer {
                        Framer::Sse(_) => &self.data_lines[..],
                        _ => &[],
                    };
                    return Ok(Some(Frame {
                        bytes,
                        input_len: bytes.len() as u64,
                        origin,
                        error: None,
                        data_lines,
                    }));
                }
                Some(Got::Joined(origin)) => {
                    return Ok(Some(Frame {
                        bytes: &self.joined,
                        input_len: self.joined.len() as u64,
                        origin,
                        error: None,
                        data_lines: &self.data_lines,
                    }));
                }
                Some(Got::Skip) => continue,
                Some(Got::Error(e, kept)) => {
                    if e.kind().is_fatal() {
                        // Over the body limit: count the rest of the input, keep nothing.
                        self.start = self.buf.len();
                        while self.fill()? {
                            self.start = self.buf.len();
                        }
                        self.finished = true;
                        self.drop_next = 0;
                    }
                    let origin = Origin {
                        offset: e.offset(),
                        line: e.line().max(1),
                        col: 1,
                    };
                    return Ok(Some(Frame {
                        bytes: kept.map_or(&[][..], |r| &self.buf[r]),
                        input_len: e.len() as u64,
                        origin,
                        error: Some(e),
                        data_lines: &[],
                    }));
                }
                None => {
                    if was_eof {
                        // finish() returned Partial: the stream is drained.
                        self.finished = true;
                        self.start += std::mem::take(&mut self.drop_next);
                        return Ok(None);
                    }
                    self.start += std::mem::take(&mut self.drop_next);
                    self.fill()?;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Direction, infer_direction};

    #[test]
    fn direction_from_file_names() {
        let c2s = Direction::ClientToServer;
        let s2c = Direction::ServerToClient;
        for (name, want) in [
            ("real/stdio/x/client-to-server.jsonl", c2s),
            ("server-to-client.jsonl", s2c),
            ("Server-To-Client.JSONL", s2c),
            ("captures/http_a/001-post.sse", s2c),
            ("captures/http_a/005-get.sse", s2c),
            ("x/client-to-server.tools-call.request.json", c2s),
            ("x/server-to-client.initialize.response.json", s2c),
            ("a.response.json", s2c),
            ("a.request.json", c2s),
            ("spec/tools.jsonl", Direction::Unknown),
            ("<stdin>", Direction::Unknown),
            // Contradictory hints in the file name say nothing; across levels the file name
            // wins (it was unknown before session 12).
            ("client-to-server/server-to-client.jsonl", s2c),
            ("client-to-server.sse", Direction::Unknown),
            // The file name decides before the directories.
            ("cap/server-to-client/client-to-server.jsonl", c2s),
            ("cap/client-to-server/x/server-to-client.jsonl", s2c),
            ("cap/client-to-server/001-post.sse", s2c),
            (
                "cap/client-to-server/server-to-client/a.jsonl",
                Direction::Unknown,
            ),
            ("cap/client-to-server/a.jsonl", c2s),
        ] {
            assert_eq!(infer_direction(name), want, "{name}");
        }
    }
}
