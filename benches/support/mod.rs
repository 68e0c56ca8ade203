//! Shared code of the mcpwire benches: the corpora, the extracted-fields contract every
//! implementation reports through ([`Sink`]), the equality check run before timing, and the
//! criterion configuration (full or short mode).
//!
//! Each bench target includes this with `#[path = "support/mod.rs"] mod support;`, so not
//! every item is used by every target.
#![allow(dead_code)]

pub mod ours;
pub mod peers;

use std::time::Duration;

use criterion::Criterion;

/// The benchmark message classes (corpora/bench/*.jsonl, see corpora/bench/README.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// ~200 B frames (1024).
    Small,
    /// ~4 KB frames (128).
    Medium,
    /// ~150 KB frames (8).
    Large,
}

impl Class {
    /// Every class, small first.
    pub const ALL: [Class; 3] = [Class::Small, Class::Medium, Class::Large];

    /// Lower-case name used in bench ids.
    pub fn name(self) -> &'static str {
        match self {
            Class::Small => "small",
            Class::Medium => "medium",
            Class::Large => "large",
        }
    }

    /// Parses a class name.
    pub fn from_name(s: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name() == s)
    }

    /// The class's NDJSON stream (one frame per line, each ending in LF), compiled in so a
    /// bench binary runs anywhere without the source tree.
    pub fn stream(self) -> &'static [u8] {
        match self {
            Class::Small => include_bytes!("../../corpora/bench/small.jsonl"),
            Class::Medium => include_bytes!("../../corpora/bench/medium.jsonl"),
            Class::Large => include_bytes!("../../corpora/bench/large.jsonl"),
        }
    }

    /// The frames of the class (newline excluded).
    pub fn frames(self) -> Vec<&'static [u8]> {
        split_frames(self.stream())
    }
}

/// The real capture stream committed in corpora/bench/capture-stream.jsonl.
pub const CAPTURE_STREAM: &[u8] = include_bytes!("../../corpora/bench/capture-stream.jsonl");

/// Splits an NDJSON stream into frames (LF excluded; a trailing CR is kept, none of our
/// corpora has one; empty lines are skipped).
pub fn split_frames(stream: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    for nl in memchr::memchr_iter(b'\n', stream) {
        if nl > start {
            out.push(&stream[start..nl]);
        }
        start = nl + 1;
    }
    if start < stream.len() {
        out.push(&stream[start..]);
    }
    out
}

/// Sum of frame lengths in bytes (the `Throughput::Bytes` of a pass over all frames).
pub fn payload_bytes(frames: &[&[u8]]) -> u64 {
    frames.iter().map(|f| f.len() as u64).sum()
}

/// True when `MCPWIRE_BENCH_QUICK` is set to anything but `0` or empty.
pub fn quick() -> bool {
    std::env::var("MCPWIRE_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The criterion configuration: full mode (50 samples, 1 s warm-up, 3 s measurement per
/// bench) or, with `MCPWIRE_BENCH_QUICK=1`, the short CI mode (10 samples, 0.2 s warm-up,
/// 0.5 s measurement). Command-line options (`--quick`, `--sample-size`, ...) still apply on
/// top, because `criterion_group!` calls `configure_from_args` after this.
pub fn criterion_config() -> Criterion {
    let c = Criterion::default().without_plots();
    if quick() {
        c.sample_size(10)
            .warm_up_time(Duration::from_millis(200))
            .measurement_time(Duration::from_millis(500))
    } else {
        c.sample_size(50)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3))
    }
}

/// What every implementation reports about one frame. Implementations call these in any
/// order; `meta_*` refers to `params._meta` when the message has `params`, else to
/// `result._meta`.
pub trait Sink {
    /// True when the sink wants `_meta` keys even from implementations that also give the
    /// raw text (the check does; the timing digest does not).
    const WANTS_KEYS: bool;
    /// The decoded `jsonrpc` string.
    fn jsonrpc(&mut self, s: &str);
    /// An integer `id`.
    fn id_int(&mut self, v: i64);
    /// A string `id`, decoded.
    fn id_str(&mut self, s: &str);
    /// An `id` that is neither (null, float, ...): its JSON text or a description.
    fn id_other(&mut self, s: &str);
    /// The decoded `method` string.
    fn method(&mut self, s: &str);
    /// Which of `params`, `result`, `error` are present.
    fn members(&mut self, params: bool, result: bool, error: bool);
    /// The decoded `result.resultType` string.
    fn result_type(&mut self, s: &str);
    /// `_meta` is present (called once, before `meta_raw` / `meta_key`).
    fn meta_begin(&mut self);
    /// The raw JSON text of `_meta` (implementations that keep spans).
    fn meta_raw(&mut self, raw: &[u8]);
    /// One decoded key of `_meta` (implementations that build a tree).
    fn meta_key(&mut self, key: &str);
}

/// A `Sink` that only folds lengths into a number, used while timing: it keeps the
/// extraction from being optimised away at a cost of a few instructions per field.
#[derive(Default)]
pub struct Digest(pub u64);

impl Digest {
    #[inline(always)]
    fn mix(&mut self, s: &str) {
        self.0 = self.0.rotate_left(5) ^ (s.len() as u64);
    }
}

impl Sink for Digest {
    const WANTS_KEYS: bool = false;
    #[inline(always)]
    fn jsonrpc(&mut self, s: &str) {
        self.mix(s)
    }
    #[inline(always)]
    fn id_int(&mut self, v: i64) {
        self.0 = self.0.rotate_left(5) ^ (v as u64);
    }
    #[inline(always)]
    fn id_str(&mut self, s: &str) {
        self.mix(s)
    }
    #[inline(always)]
    fn id_other(&mut self, s: &str) {
        self.mix(s)
    }
    #[inline(always)]
    fn method(&mut self, s: &str) {
        self.mix(s)
    }
    #[inline(always)]
    fn members(&mut self, params: bool, result: bool, error: bool) {
        self.0 =
            self.0.rotate_left(3) ^ (params as u64 | (result as u64) << 1 | (error as u64) << 2);
    }
    #[inline(always)]
    fn result_type(&mut self, s: &str) {
        self.mix(s)
    }
    #[inline(always)]
    fn meta_begin(&mut self) {
        self.0 = self.0.wrapping_add(1);
    }
    #[inline(always)]
    fn meta_raw(&mut self, raw: &[u8]) {
        self.0 = self.0.rotate_left(5) ^ (raw.len() as u64);
    }
    #[inline(always)]
    fn meta_key(&mut self, key: &str) {
        self.mix(key)
    }
}

/// The id as compared across implementations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdValue {
    /// Integer id.
    Int(i64),
    /// String id (decoded).
    Str(String),
    /// Anything else (text is implementation-specific and not compared).
    Other,
}

/// The fields one implementation extracted from one frame (for the pre-timing check).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    /// Decoded `jsonrpc`.
    pub jsonrpc: Option<String>,
    /// The id.
    pub id: Option<IdValue>,
    /// Decoded `method`.
    pub method: Option<String>,
    /// `(params, result, error)` presence.
    pub members: (bool, bool, bool),
    /// Decoded `result.resultType`.
    pub result_type: Option<String>,
    /// `_meta` present.
    pub meta: bool,
    /// Raw `_meta` text, when the implementation gives it.
    pub meta_raw: Option<String>,
    /// Sorted `_meta` keys (from the implementation, or from parsing `meta_raw`).
    pub meta_keys: Vec<String>,
}

/// A `Sink` that records [`Fields`].
#[derive(Default)]
pub struct Collect(pub Fields, Vec<String>);

impl Collect {
    /// The recorded fields, `_meta` keys sorted. When the implementation gave both the raw
    /// `_meta` and its keys, the two must agree.
    pub fn finish(mut self) -> Fields {
        let mut from_raw = self.1;
        from_raw.sort();
        self.0.meta_keys.sort();
        if self.0.meta_keys.is_empty() {
            self.0.meta_keys = from_raw;
        } else if self.0.meta_raw.is_some() {
            assert_eq!(
                self.0.meta_keys, from_raw,
                "_meta keys disagree with the raw _meta"
            );
        }
        self.0
    }
}

impl Sink for Collect {
    const WANTS_KEYS: bool = true;
    fn jsonrpc(&mut self, s: &str) {
        self.0.jsonrpc = Some(s.to_owned());
    }
    fn id_int(&mut self, v: i64) {
        self.0.id = Some(IdValue::Int(v));
    }
    fn id_str(&mut self, s: &str) {
        self.0.id = Some(IdValue::Str(s.to_owned()));
    }
    fn id_other(&mut self, _s: &str) {
        self.0.id = Some(IdValue::Other);
    }
    fn method(&mut self, s: &str) {
        self.0.method = Some(s.to_owned());
    }
    fn members(&mut self, params: bool, result: bool, error: bool) {
        self.0.members = (params, result, error);
    }
    fn result_type(&mut self, s: &str) {
        self.0.result_type = Some(s.to_owned());
    }
    fn meta_begin(&mut self) {
        self.0.meta = true;
    }
    fn meta_raw(&mut self, raw: &[u8]) {
        let raw = std::str::from_utf8(raw).expect("meta_raw is not UTF-8");
        self.0.meta_raw = Some(raw.to_owned());
        // Keys from the raw text, so span-based and tree-based implementations compare.
        let map: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(raw).expect("meta_raw is not a JSON object");
        self.1.extend(map.keys().cloned());
    }
    fn meta_key(&mut self, key: &str) {
        self.0.meta_keys.push(key.to_owned());
    }
}

/// Compares two readings of one frame: everything in [`Fields`], and the raw `_meta` text
/// only when both give it.
pub fn same_fields(reference: &Fields, other: &Fields) -> bool {
    let raw_ok = match (&reference.meta_raw, &other.meta_raw) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    };
    raw_ok
        && reference.jsonrpc == other.jsonrpc
        && reference.id == other.id
        && reference.method == other.method
        && reference.members == other.members
        && reference.result_type == other.result_type
        && reference.meta == other.meta
        && reference.meta_keys == other.meta_keys
}

/// An implementation under test: ours or a peer. `run` validates `frame` and reports the
/// fields to `sink`; `Err` when the implementation rejects the frame.
pub trait Extractor {
    /// Short id used in bench names and PERF.md (`mcpwire`, `serde_value`, ...).
    fn name(&self) -> &'static str;
    /// How much of the frame it validates: `full`, `full-U` (no UTF-8 check inside
    /// ignored strings), `partial` (see PERF.md).
    fn validates(&self) -> &'static str;
    /// Validates the frame and reports the fields.
    fn run<S: Sink>(&mut self, frame: &[u8], sink: &mut S) -> Result<(), String>;
}

/// Reads every frame with `reference` and with `candidate` and panics at the first frame
/// where they disagree (or where either rejects a frame of the corpus). Returns the number
/// of frames checked.
pub fn check_agreement<R: Extractor, C: Extractor>(
    reference: &mut R,
    candidate: &mut C,
    frames: &[&[u8]],
    what: &str,
) -> usize {
    for (i, frame) in frames.iter().enumerate() {
        let mut a = Collect::default();
        reference
            .run(frame, &mut a)
            .unwrap_or_else(|e| panic!("{what}: {} rejects frame {i}: {e}", reference.name()));
        let mut b = Collect::default();
        candidate
            .run(frame, &mut b)
            .unwrap_or_else(|e| panic!("{what}: {} rejects frame {i}: {e}", candidate.name()));
        let (a, b) = (a.finish(), b.finish());
        assert!(
            same_fields(&a, &b),
            "{what}: frame {i}: {} and {} disagree:\n  {a:?}\n  {b:?}\n  frame: {}",
            reference.name(),
            candidate.name(),
            String::from_utf8_lossy(&frame[..frame.len().min(300)])
        );
    }
    frames.len()
}

/// Like [`check_agreement`] for real traffic, where implementations may reject different
/// frames (strictness policies differ): compares the fields on the frames both accept and
/// returns `(both_accept, only_reference, only_candidate, both_reject)`.
pub fn check_agreement_lenient<R: Extractor, C: Extractor>(
    reference: &mut R,
    candidate: &mut C,
    frames: &[&[u8]],
    what: &str,
) -> (usize, usize, usize, usize) {
    let mut n = (0, 0, 0, 0);
    for (i, frame) in frames.iter().enumerate() {
        let (mut a, mut b) = (Collect::default(), Collect::default());
        match (reference.run(frame, &mut a), candidate.run(frame, &mut b)) {
            (Ok(()), Ok(())) => {
                n.0 += 1;
                let (a, b) = (a.finish(), b.finish());
                assert!(
                    same_fields(&a, &b),
                    "{what}: frame {i}: {} and {} disagree:\n  {a:?}\n  {b:?}",
                    reference.name(),
                    candidate.name()
                );
            }
            (Ok(()), Err(_)) => n.1 += 1,
            (Err(_), Ok(())) => n.2 += 1,
            (Err(_), Err(_)) => n.3 += 1,
        }
    }
    n
}

/// Runs `e` over every frame once, returning the digest (used inside timing loops).
#[inline]
pub fn run_all<E: Extractor>(e: &mut E, frames: &[&[u8]]) -> u64 {
    let mut d = Digest::default();
    for f in frames {
        if e.run(f, &mut d).is_err() {
            d.0 = d.0.wrapping_add(0x9e37_79b9);
        }
    }
    d.0
}

/// One implementation in a round-robin run: its name and one pass over the frames.
pub type Pass<'a> = (&'static str, Box<dyn FnMut() -> u64 + 'a>);

/// Round-robin timing, robust to a neighbour's load changing during the run: every sample
/// round times each implementation once (~`sample_ms` each, starting point rotated per
/// round), so slow drifts hit all of them alike. Returns per implementation the median and
/// the 10th percentile of ns per pass. Samples: 31 (full) or 11 (quick mode).
pub fn round_robin(passes: &mut [Pass<'_>]) -> Vec<(&'static str, f64, f64)> {
    use std::time::Instant;
    let (rounds, sample_ms) = if quick() { (11, 3.0) } else { (31, 10.0) };
    // Calibrate: passes per sample for each implementation (after one warm-up pass).
    let mut reps = Vec::with_capacity(passes.len());
    let mut sink = 0u64;
    for (_, f) in passes.iter_mut() {
        sink ^= f();
        let t = Instant::now();
        let mut n = 0u64;
        while t.elapsed().as_secs_f64() * 1e3 < sample_ms / 4.0 {
            sink ^= f();
            n += 1;
        }
        let per = t.elapsed().as_secs_f64() * 1e3 / n as f64;
        reps.push(((sample_ms / per).ceil() as u64).max(1));
    }
    let mut times: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); passes.len()];
    for round in 0..rounds {
        for k in 0..passes.len() {
            let i = (k + round) % passes.len();
            let t = Instant::now();
            for _ in 0..reps[i] {
                sink ^= (passes[i].1)();
            }
            times[i].push(t.elapsed().as_nanos() as f64 / reps[i] as f64);
        }
    }
    std::hint::black_box(sink);
    passes
        .iter()
        .zip(times)
        .map(|((name, _), mut t)| {
            t.sort_by(f64::total_cmp);
            (*name, t[t.len() / 2], t[t.len() / 10])
        })
        .collect()
}
