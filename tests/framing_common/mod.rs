//! Shared helpers for the framing tests: capture discovery, read-size generators, reference
//! framers (deliberately simple, whole-input implementations used as oracles).
#![allow(dead_code)]

use std::path::PathBuf;

use mcpwire::framing::FrameErrorKind;

/// `../shared` (or `$MCPWIRE_SHARED`), if present.
pub fn shared_dir() -> Option<PathBuf> {
    let p = std::env::var_os("MCPWIRE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared")));
    if p.join("captures").is_dir() {
        Some(p)
    } else {
        println!("skipped: ../shared not found");
        None
    }
}

/// Capture files under `captures/*/` whose name ends with `suffix`, sorted.
pub fn capture_files(suffix: &str) -> Vec<PathBuf> {
    let Some(shared) = shared_dir() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for dir in std::fs::read_dir(shared.join("captures")).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(suffix) && name != "chunks.jsonl" && name != "requests.jsonl" {
                out.push(f);
            }
        }
    }
    out.sort();
    out
}

/// Deterministic xorshift64* generator (no dependency, reproducible failures).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `1..=max`.
    pub fn size(&mut self, max: usize) -> usize {
        1 + (self.next() % max as u64) as usize
    }
}

/// Read sizes that split `len` bytes at the single point `k` (two reads; the first may be
/// empty).
pub fn split_at(len: usize, k: usize) -> Vec<usize> {
    vec![k, len - k]
}

/// Random read sizes in `1..=max` covering `len` bytes.
pub fn random_reads(len: usize, max: usize, seed: u64) -> Vec<usize> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let mut left = len;
    while left > 0 {
        let n = rng.size(max).min(left);
        out.push(n);
        left -= n;
    }
    out
}

/// NDJSON reference: split on LF over the whole input; a line still holding a CR after its
/// last CR is stripped is `BareCr`.
/// Items: `Ok((frame, offset, line, cr_stripped))` or `Err((kind, offset, line))`.
pub type NdItem = Result<(Vec<u8>, u64, u64, bool), (FrameErrorKind, u64, u64)>;

pub fn reference_ndjson(input: &[u8], max: usize) -> Vec<NdItem> {
    let mut out = Vec::new();
    let mut off = 0usize;
    let mut line = 1u64;
    while off < input.len() {
        match input[off..].iter().position(|&b| b == b'\n') {
            Some(i) => {
                let raw = &input[off..off + i];
                let (content, cr) = match raw.last() {
                    Some(b'\r') => (&raw[..raw.len() - 1], true),
                    _ => (raw, false),
                };
                if content.len() > max {
                    out.push(Err((FrameErrorKind::FrameTooLarge, off as u64, line)));
                } else if content.contains(&b'\r') {
                    // A CR that does not end the line (readers disagree on where it ends).
                    out.push(Err((FrameErrorKind::BareCr, off as u64, line)));
                } else if !content.is_empty() {
                    out.push(Ok((content.to_vec(), off as u64, line, cr)));
                }
                off += i + 1;
                line += 1;
            }
            None => {
                let rest = input.len() - off;
                // Without LF: too large once more than max + 1 bytes (a CR could still come
                // before the LF at max + 1).
                if rest > max + 1 {
                    out.push(Err((FrameErrorKind::FrameTooLarge, off as u64, line)));
                } else {
                    out.push(Err((FrameErrorKind::UnterminatedLine, off as u64, line)));
                }
                break;
            }
        }
    }
    out
}

/// SSE reference event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefEvent {
    pub data: Vec<u8>,
    pub has_data: bool,
    pub event: Option<Vec<u8>>,
    pub id: Option<Vec<u8>>,
    pub retry: Option<u64>,
    pub offset: u64,
    pub line: u64,
}

pub type SseItem = Result<RefEvent, (FrameErrorKind, u64, u64)>;

/// SSE reference (WHATWG §9.2.6, no limits): split the whole input into lines on CR, LF or
/// CRLF, interpret fields, dispatch on blank lines; an event left open at the end is
/// `UnterminatedEvent`.
pub fn reference_sse(input: &[u8]) -> Vec<SseItem> {
    let mut out = Vec::new();
    let mut off = if input.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let mut line_no = 1u64;
    let mut cur: Option<RefEvent> = None;
    let mut data_parts: Vec<Vec<u8>> = Vec::new();
    loop {
        if off >= input.len() {
            if let Some(ev) = cur.take() {
                out.push(Err((FrameErrorKind::UnterminatedEvent, ev.offset, ev.line)));
            }
            break;
        }
        let Some(i) = input[off..].iter().position(|&b| b == b'\r' || b == b'\n') else {
            // Last line without a terminator.
            let line = &input[off..];
            if let Some(ev) = cur.take() {
                out.push(Err((FrameErrorKind::UnterminatedEvent, ev.offset, ev.line)));
            } else if line[0] != b':' {
                out.push(Err((
                    FrameErrorKind::UnterminatedEvent,
                    off as u64,
                    line_no,
                )));
            }
            break;
        };
        let line = &input[off..off + i];
        let mut next = off + i + 1;
        if input[off + i] == b'\r' && input.get(next) == Some(&b'\n') {
            next += 1;
        }
        if line.is_empty() {
            if let Some(mut ev) = cur.take() {
                ev.data = data_parts.join(&b'\n');
                out.push(Ok(ev));
            }
            data_parts.clear();
        } else if line[0] != b':' {
            let (name, value) = match line.iter().position(|&b| b == b':') {
                Some(c) => {
                    let v = &line[c + 1..];
                    (&line[..c], v.strip_prefix(b" ").unwrap_or(v))
                }
                None => (line, &b""[..]),
            };
            let ev = cur.get_or_insert_with(|| RefEvent {
                data: Vec::new(),
                has_data: false,
                event: None,
                id: None,
                retry: None,
                offset: off as u64,
                line: line_no,
            });
            match name {
                b"data" => {
                    ev.has_data = true;
                    data_parts.push(value.to_vec());
                }
                b"event" => ev.event = Some(value.to_vec()),
                b"id" if !value.contains(&0) => ev.id = Some(value.to_vec()),
                b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                    if let Ok(v) = std::str::from_utf8(value).unwrap().parse() {
                        ev.retry = Some(v);
                    }
                }
                _ => {}
            }
        }
        off = next;
        line_no += 1;
    }
    out
}
