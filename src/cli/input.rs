//! Inputs (files and stdin) read as streams in fixed-size chunks, cut into frames.
//!
//! INTERIM: the three cutters below (`Ndjson`, `Sse`, `Body`) stand in for
//! `mcpwire::framing` until that module lands; they live behind [`FrameReader`] so that the
//! swap touches only this file. They are deliberately small and not tuned.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Bytes asked of the reader per `read()` call.
const CHUNK: usize = 64 * 1024;

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
    /// Parses a command-line argument (`-` is stdin).
    pub fn from_arg(arg: &str) -> Self {
        if arg == "-" {
            Source::Stdin
        } else {
            Source::Path(PathBuf::from(arg))
        }
    }
    /// The name shown in diagnostics (`<stdin>` for `-`).
    pub fn display_name(&self) -> String {
        match self {
            Source::Stdin => "<stdin>".to_owned(),
            Source::Path(p) => p.display().to_string(),
        }
    }
    /// The path, when the source is a file.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Source::Stdin => None,
            Source::Path(p) => Some(p),
        }
    }
    /// Opens the source for streaming; returns the reader and its length in bytes when known.
    ///
    /// # Errors
    /// I/O errors of `open`, and `InvalidInput` for a directory.
    pub fn open(&self) -> io::Result<(Box<dyn Read>, Option<u64>)> {
        match self {
            Source::Stdin => Ok((Box::new(io::stdin().lock()), None)),
            Source::Path(p) => {
                let meta = std::fs::metadata(p)?;
                if meta.is_dir() {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "is a directory",
                    ));
                }
                let f = File::open(p)?;
                Ok((Box::new(f), Some(meta.len())))
            }
        }
    }
}

/// Where a run of frame bytes came from in the input (for `file:line:col` and absolute offsets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Offset of the run inside the frame (bytes).
    pub frame_start: usize,
    /// Absolute offset of the run in the input (bytes).
    pub input_offset: u64,
    /// 1-based line of the run's first byte in the input.
    pub line: u64,
    /// 1-based column (bytes) of the run's first byte.
    pub col: u64,
}

/// A framing-level problem attached to a frame (reported as a violation of that frame).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameIssue {
    /// The frame was longer than the limit and was discarded; `len` is its full length.
    TooLarge,
}

/// One frame borrowed from the reader's buffer.
#[derive(Debug)]
pub struct Frame<'a> {
    /// The frame bytes (terminator excluded; for SSE the joined `data:` values).
    pub bytes: &'a [u8],
    /// Length of the frame in the input (bytes); differs from `bytes.len()` for SSE and for
    /// discarded oversize frames.
    pub input_len: u64,
    /// Mapping from frame offsets back to the input.
    pub segments: &'a [Segment],
    /// Set when the framer discarded the frame.
    pub issue: Option<FrameIssue>,
}

impl Frame<'_> {
    /// Absolute input offset of the frame's first byte.
    pub fn offset(&self) -> u64 {
        self.segments.first().map_or(0, |s| s.input_offset)
    }
    /// Maps a frame-relative byte offset to (absolute offset, line, column).
    pub fn locate(&self, rel: usize) -> (u64, u64, u64) {
        let Some(seg) = self.segments.iter().rev().find(|s| s.frame_start <= rel) else {
            return (rel as u64, 1, rel as u64 + 1);
        };
        let end = rel.min(self.bytes.len());
        let start = seg.frame_start.min(end);
        let within = &self.bytes[start..end];
        let newlines = memchr::memchr_iter(b'\n', within).count() as u64;
        let abs = seg.input_offset + (rel - seg.frame_start) as u64;
        if newlines == 0 {
            (abs, seg.line, seg.col + (rel - seg.frame_start) as u64)
        } else {
            let last_nl = memchr::memrchr(b'\n', within).unwrap_or(0);
            (abs, seg.line + newlines, (within.len() - last_nl) as u64)
        }
    }
}

/// Pulls frames from a reader in [`CHUNK`]-byte reads; memory is bounded by the frame limit
/// plus one chunk.
pub struct FrameReader {
    inner: Box<dyn Read>,
    cutter: Cutter,
    buf: Vec<u8>,
    /// Start of unconsumed bytes in `buf`.
    start: usize,
    /// Where the next terminator search starts (never rescans searched bytes).
    scan: usize,
    /// Absolute input offset of `buf[0]`.
    base: u64,
    /// 1-based line number of `buf[start]`.
    line: u64,
    eof: bool,
    max_frame: usize,
    segments: Vec<Segment>,
    frame: Vec<u8>,
    /// Bytes read so far (for the progress bar).
    pub bytes_read: u64,
}

enum Cutter {
    Ndjson { discarding: Option<(u64, u64, u64)> },
    Sse { bom_checked: bool },
    Body { done: bool },
}

impl FrameReader {
    /// A reader for `transport` with frames limited to `max_frame` bytes.
    pub fn new(inner: Box<dyn Read>, transport: Transport, max_frame: usize) -> Self {
        let cutter = match transport {
            Transport::Stdio => Cutter::Ndjson { discarding: None },
            Transport::Sse => Cutter::Sse { bom_checked: false },
            Transport::HttpBody => Cutter::Body { done: false },
        };
        Self {
            inner,
            cutter,
            buf: Vec::with_capacity(CHUNK * 2),
            start: 0,
            scan: 0,
            base: 0,
            line: 1,
            eof: false,
            max_frame,
            segments: Vec::new(),
            frame: Vec::new(),
            bytes_read: 0,
        }
    }

    /// Reads one more chunk; returns false at end of input.
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.start > 0 && self.start >= self.buf.len() / 2 {
            self.buf.drain(..self.start);
            self.base += self.start as u64;
            self.scan -= self.start;
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

    /// The next frame, or `None` at end of input.
    ///
    /// # Errors
    /// Read errors of the underlying reader.
    pub fn next_frame(&mut self) -> io::Result<Option<Frame<'_>>> {
        match self.cutter {
            Cutter::Ndjson { .. } => self.next_ndjson(),
            Cutter::Sse { .. } => self.next_sse(),
            Cutter::Body { .. } => self.next_body(),
        }
    }

    fn next_ndjson(&mut self) -> io::Result<Option<Frame<'_>>> {
        loop {
            let Cutter::Ndjson { discarding } = &mut self.cutter else {
                unreachable!()
            };
            if let Some(i) = memchr::memchr(b'\n', &self.buf[self.scan..]) {
                let nl = self.scan + i;
                let line = self.line;
                let start = self.start;
                self.start = nl + 1;
                self.scan = self.start;
                self.line += 1;
                if let Some((off, first_line, len)) = discarding.take() {
                    let total = len + (nl - start) as u64;
                    return Ok(Some(self.too_large(off, first_line, total)));
                }
                let mut end = nl;
                if end > start && self.buf[end - 1] == b'\r' {
                    end -= 1;
                }
                if end == start {
                    continue; // blank line: no frame
                }
                if end - start > self.max_frame {
                    let off = self.base + start as u64;
                    return Ok(Some(self.too_large(off, line, (nl - start) as u64)));
                }
                self.segments.clear();
                self.segments.push(Segment {
                    frame_start: 0,
                    input_offset: self.base + start as u64,
                    line,
                    col: 1,
                });
                return Ok(Some(Frame {
                    bytes: &self.buf[start..end],
                    input_len: (end - start) as u64,
                    segments: &self.segments,
                    issue: None,
                }));
            }
            self.scan = self.buf.len();
            let pending = self.buf.len() - self.start;
            if discarding.is_some() || pending > self.max_frame + 1 {
                // Over the limit: drop what we hold and keep counting up to the next LF.
                let d = discarding.get_or_insert((self.base + self.start as u64, self.line, 0));
                d.2 += pending as u64;
                self.start = self.buf.len();
                self.scan = self.start;
            }
            if !self.fill()? {
                let Cutter::Ndjson { discarding } = &mut self.cutter else {
                    unreachable!()
                };
                if let Some((off, line, len)) = discarding.take() {
                    return Ok(Some(self.too_large(off, line, len)));
                }
                if self.start == self.buf.len() {
                    return Ok(None);
                }
                // Last line without LF: still a frame (never silently dropped).
                let start = self.start;
                let mut end = self.buf.len();
                self.start = end;
                self.scan = end;
                if self.buf[end - 1] == b'\r' {
                    end -= 1;
                }
                self.segments.clear();
                self.segments.push(Segment {
                    frame_start: 0,
                    input_offset: self.base + start as u64,
                    line: self.line,
                    col: 1,
                });
                return Ok(Some(Frame {
                    bytes: &self.buf[start..end],
                    input_len: (end - start) as u64,
                    segments: &self.segments,
                    issue: None,
                }));
            }
        }
    }

    fn too_large(&mut self, offset: u64, line: u64, len: u64) -> Frame<'_> {
        self.segments.clear();
        self.segments.push(Segment {
            frame_start: 0,
            input_offset: offset,
            line,
            col: 1,
        });
        Frame {
            bytes: &[],
            input_len: len,
            segments: &self.segments,
            issue: Some(FrameIssue::TooLarge),
        }
    }

    fn next_body(&mut self) -> io::Result<Option<Frame<'_>>> {
        let Cutter::Body { done } = &mut self.cutter else {
            unreachable!()
        };
        if *done {
            return Ok(None);
        }
        *done = true;
        let mut too_large = false;
        while self.fill()? {
            if self.buf.len() > self.max_frame {
                too_large = true;
                let n = self.buf.len() as u64;
                self.buf.clear();
                self.base += n;
                self.scan = 0;
            }
        }
        let total = self.base + self.buf.len() as u64;
        if too_large {
            return Ok(Some(self.too_large(0, 1, total)));
        }
        if self.buf.is_empty() {
            return Ok(None);
        }
        self.segments.clear();
        self.segments.push(Segment {
            frame_start: 0,
            input_offset: 0,
            line: 1,
            col: 1,
        });
        Ok(Some(Frame {
            bytes: &self.buf,
            input_len: total,
            segments: &self.segments,
            issue: None,
        }))
    }

    /// Returns the next SSE line as (start, end-of-content, next-line-start), or `None` at the
    /// end of input (an unterminated last line is returned at EOF).
    fn sse_line(&mut self) -> io::Result<Option<(usize, usize)>> {
        loop {
            let hay = &self.buf[self.scan..];
            if let Some(i) = memchr::memchr2(b'\n', b'\r', hay) {
                let pos = self.scan + i;
                if self.buf[pos] == b'\r' && pos + 1 == self.buf.len() && !self.eof {
                    // CR at a read boundary: it may be the first half of CRLF.
                    self.scan = pos;
                    if !self.fill()? {
                        continue;
                    }
                    continue;
                }
                let next = if self.buf[pos] == b'\r' && self.buf.get(pos + 1) == Some(&b'\n') {
                    pos + 2
                } else {
                    pos + 1
                };
                let start = self.start;
                self.start = next;
                self.scan = next;
                return Ok(Some((start, pos)));
            }
            self.scan = self.buf.len();
            if self.buf.len() - self.start > self.max_frame + 64 {
                // Overlong line: drop it (reported as a too-large frame by the caller).
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "SSE line over the limit",
                ));
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    fn next_sse(&mut self) -> io::Result<Option<Frame<'_>>> {
        self.frame.clear();
        self.segments.clear();
        loop {
            let line_abs = self.base + self.start as u64;
            let line_no = self.line;
            let Some((s, e)) = self.sse_line()? else {
                return Ok(None); // an incomplete last event is discarded (WHATWG)
            };
            self.line += 1;
            let Cutter::Sse { bom_checked } = &mut self.cutter else {
                unreachable!()
            };
            let line_start = s;
            let mut s = s;
            if !*bom_checked {
                *bom_checked = true;
                if self.buf[s..e].starts_with(b"\xEF\xBB\xBF") {
                    s += 3;
                }
            }
            let line = &self.buf[s..e];
            if line.is_empty() {
                if self.segments.is_empty() || self.frame.len() <= 1 {
                    // No data, or only an empty `data:` (a priming event): nothing to dispatch.
                    self.frame.clear();
                    self.segments.clear();
                    continue;
                }
                self.frame.pop(); // the LF after the last data line
                let input_len = (self.base + s as u64) - self.segments[0].input_offset;
                if self.frame.len() > self.max_frame {
                    let off = self.segments[0].input_offset;
                    let l = self.segments[0].line;
                    return Ok(Some(self.too_large(off, l, input_len)));
                }
                return Ok(Some(Frame {
                    bytes: &self.frame,
                    input_len,
                    segments: &self.segments,
                    issue: None,
                }));
            }
            if line[0] == b':' {
                continue;
            }
            let (field, value, vstart) = match memchr::memchr(b':', line) {
                Some(c) => {
                    let mut v = c + 1;
                    if line.get(v) == Some(&b' ') {
                        v += 1;
                    }
                    (&line[..c], &line[v..], v)
                }
                None => (line, &line[line.len()..], line.len()),
            };
            if field == b"data" {
                let skipped = s - line_start; // a stripped BOM
                self.segments.push(Segment {
                    frame_start: self.frame.len(),
                    input_offset: line_abs + (skipped + vstart) as u64,
                    line: line_no,
                    col: (skipped + vstart) as u64 + 1,
                });
                self.frame.extend_from_slice(value);
                self.frame.push(b'\n');
            }
        }
    }
}
