//! Framing cost: our NDJSON codec and sans-I/O framer vs tokio-util's `LinesCodec` and
//! `AnyDelimiterCodec`, and our SSE codec, on small / medium / large frames.
//!
//! Each iteration frames one whole stream: the stream is appended to a `BytesMut` in 64 KiB
//! reads (the copy a real read does) and every frame is decoded. Throughput is bytes of stream.
//! Before timing, every codec is checked to produce the same frames.
//!
//! The `*_decode_only` rows time a codec's `decode` alone (ours, and tokio-util's two): the
//! whole stream is put in a `BytesMut` in criterion's untimed setup (`iter_batched`,
//! `BatchSize::LargeInput`), so the read copy is excluded. In a real `FramedRead` that copy is done by the kernel in read(2);
//! these rows show what framing itself costs through the codec (splitting off `Bytes`
//! included).
//!
//! Run: `cargo bench --bench framing -- --warm-up-time 1 --measurement-time 3`
//! (`MCPWIRE_BENCH_QUICK=1`: 10 samples, 0.2 s warm-up, 0.5 s measurement). After the
//! criterion run it prints each median divided by the stream's frame count (ns/frame), read
//! back from criterion's `estimates.json`.
//!
//! Instruction counts per frame (valgrind; no PMU needed): the same binary with
//! `icount IMPL CLASS PASSES` frames one class `PASSES` times inside `framing_icount_measured`,
//! the only function to collect (`icount --list` lists IMPL):
//!
//! ```sh
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*framing_icount_measured*' \
//!     target/release/deps/framing-HASH icount raw_codec small 4
//! ```
//!
//! Divide callgrind's total `Ir` by `frames * passes` (the binary prints both). Each IMPL's
//! pass runs in a function of its own (`count_items`), so one impl's count does not move
//! when the code of another changes. The `*_decode_only` impls get their buffers filled
//! before measuring.

use std::hint::black_box;

use bytes::BytesMut;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput};
use mcpwire::codec::{
    NdjsonBatchCodec, NdjsonCodec, NdjsonRawCodec, RawFrameBatch, SseBatchCodec, SseCodec,
    SseEventBatch,
};
use mcpwire::framing::ndjson::NdjsonFramer;
use mcpwire::framing::sse::SseFramer;
use mcpwire::framing::{DEFAULT_MAX_FRAME_LEN, Status};
use tokio_util::codec::{AnyDelimiterCodec, Decoder, LinesCodec};

const READ: usize = 64 * 1024;

/// Deterministic xorshift for the generators.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo) as u64) as usize
    }
}

/// One MCP-shaped frame of about `target` bytes (2026-07-28 style `_meta`, a text payload).
fn frame(rng: &mut Rng, target: usize) -> String {
    let id = rng.next() % 100_000;
    let head = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\""
    );
    let tail = "\"}],\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"bench\",\"version\":\"1.0.0\"}}}}";
    let mut s = head;
    let words = [
        "alpha ",
        "beta\\n",
        "gamma ",
        "d\\u00e9lta ",
        "caf\u{e9} ",
        "\\\"q\\\" ",
    ];
    while s.len() + tail.len() < target {
        s.push_str(words[rng.range(0, words.len())]);
    }
    s.push_str(tail);
    s
}

/// A stream of `n` frames of `lo..hi` bytes; returns the stream and its frames.
fn stream(n: usize, lo: usize, hi: usize, seed: u64) -> (Vec<u8>, Vec<String>) {
    let mut rng = Rng(seed);
    let frames: Vec<String> = (0..n)
        .map(|_| {
            let t = rng.range(lo, hi);
            frame(&mut rng, t)
        })
        .collect();
    let mut s = Vec::new();
    for f in &frames {
        s.extend_from_slice(f.as_bytes());
        s.push(b'\n');
    }
    (s, frames)
}

fn sse_stream(frames: &[String]) -> Vec<u8> {
    let mut s = Vec::new();
    for f in frames {
        s.extend_from_slice(b"event: message\r\ndata: ");
        s.extend_from_slice(f.as_bytes());
        s.extend_from_slice(b"\r\n\r\n");
    }
    s
}

/// The same events as a resumable server sends them (an event store configured): an `id:`
/// line first, as the Python SDK writes it (`id: N`, `event: message`, `data: {json}`, CRLF).
fn sse_stream_resumable(frames: &[String]) -> Vec<u8> {
    let mut s = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        s.extend_from_slice(format!("id: {}\r\nevent: message\r\ndata: ", i + 1).as_bytes());
        s.extend_from_slice(f.as_bytes());
        s.extend_from_slice(b"\r\n\r\n");
    }
    s
}

/// Frames `input` through a codec in 64 KiB reads, calling `sink` per item. The read buffer
/// is reused across iterations (a long-lived connection), so its allocation is not timed.
fn run<D: Decoder>(codec: &mut D, input: &[u8], sink: impl FnMut(D::Item)) {
    thread_local! {
        static BUF: std::cell::RefCell<BytesMut> = std::cell::RefCell::new(BytesMut::with_capacity(4 * READ));
    }
    BUF.with(|b| run_with(&mut b.borrow_mut(), codec, input, sink))
}

fn run_with<D: Decoder>(
    buf: &mut BytesMut,
    codec: &mut D,
    input: &[u8],
    mut sink: impl FnMut(D::Item),
) {
    buf.clear();
    for chunk in input.chunks(READ) {
        buf.extend_from_slice(chunk);
        while let Some(item) = codec.decode(buf).ok().flatten() {
            sink(item);
        }
    }
    while let Some(item) = codec.decode_eof(buf).ok().flatten() {
        sink(item);
    }
}

/// Frames a whole stream already in `buf` (no read copy): decode until none, then
/// `decode_eof` until none, calling `sink` per item. Returns the emptied buffer, so that
/// freeing it is left to the caller (outside the timed part in `iter_batched`).
fn decode_prefilled<D: Decoder>(
    codec: &mut D,
    mut buf: BytesMut,
    mut sink: impl FnMut(D::Item),
) -> BytesMut {
    while let Some(item) = codec.decode(&mut buf).ok().flatten() {
        sink(item);
    }
    while let Some(item) = codec.decode_eof(&mut buf).ok().flatten() {
        sink(item);
    }
    buf
}

/// The floor for any zero-copy codec: read copy + memchr + `split_to().freeze()`, no state,
/// no limits, no offsets (peers-perf.md's g2).
struct MemchrSplitBaseline;

impl Decoder for MemchrSplitBaseline {
    type Item = bytes::Bytes;
    type Error = std::io::Error;
    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<bytes::Bytes>, std::io::Error> {
        match memchr::memchr(b'\n', src) {
            Some(i) => {
                let f = src.split_to(i).freeze();
                bytes::Buf::advance(src, 1);
                Ok(Some(f))
            }
            None => Ok(None),
        }
    }
}

/// tokio-util's `AnyDelimiterCodec` set up as an NDJSON framer with our frame limit.
/// A `*_decode_only` row for a decoder whose items are each read with `black_box`: the whole
/// stream is put in a `BytesMut` in criterion's untimed setup, then framed.
fn bench_decode_only<D: Decoder>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: BenchmarkId,
    input: &[u8],
    n: usize,
    make: impl Fn() -> D,
) {
    g.bench_function(id, |b| {
        b.iter_batched(
            || BytesMut::from(input),
            |buf| {
                let mut k = 0usize;
                let buf = decode_prefilled(&mut make(), buf, |f| {
                    black_box(&f);
                    k += 1
                });
                assert_eq!(k, n);
                buf
            },
            BatchSize::LargeInput,
        )
    });
}

fn any_delimiter_codec() -> AnyDelimiterCodec {
    AnyDelimiterCodec::new_with_max_length(b"\n".to_vec(), b"\n".to_vec(), DEFAULT_MAX_FRAME_LEN)
}

/// Our SSE codec with the default limits and no envelope parse (framing only).
fn sse_codec_no_parse() -> SseCodec {
    SseCodec::with_limits(DEFAULT_MAX_FRAME_LEN, DEFAULT_MAX_FRAME_LEN + 64, None)
}

/// The sans-I/O SSE framer over the whole event stream in memory (no read copy).
fn sse_framer_in_place(input: &[u8], mut sink: impl FnMut(&[u8])) {
    let mut f = SseFramer::new();
    let mut pos = 0;
    loop {
        let d = f.finish(&input[pos..]);
        match &d.status {
            Status::Complete(Ok(ev)) => sink(ev.data()),
            Status::Complete(Err(_)) => {}
            Status::Partial => break,
        }
        pos += d.consumed;
    }
}

/// The sans-I/O framer over the whole stream in memory (no read copy): the framing floor.
fn framer_in_place(input: &[u8], mut sink: impl FnMut(&[u8])) {
    let mut f = NdjsonFramer::new();
    let mut pos = 0;
    loop {
        let d = f.finish(&input[pos..]);
        match &d.status {
            Status::Complete(Ok(fr)) => sink(&input[pos..][fr.range()]),
            Status::Complete(Err(_)) => {}
            Status::Partial => break,
        }
        pos += d.consumed;
    }
}

fn check_same_frames(input: &[u8], frames: &[String]) {
    let mut ours = Vec::new();
    run(&mut NdjsonRawCodec::new(), input, |f| {
        ours.push(f.into_bytes().to_vec())
    });
    let mut lines = Vec::new();
    run(
        &mut LinesCodec::new_with_max_length(DEFAULT_MAX_FRAME_LEN),
        input,
        |l| lines.push(l.into_bytes()),
    );
    let mut any = Vec::new();
    run(&mut any_delimiter_codec(), input, |b| any.push(b.to_vec()));
    let mut floor = Vec::new();
    framer_in_place(input, |f| floor.push(f.to_vec()));
    let mut sse = Vec::new();
    run(&mut sse_codec_no_parse(), &sse_stream(frames), |f| {
        sse.push(f.data().to_vec())
    });
    let mut sse_in_place = Vec::new();
    sse_framer_in_place(&sse_stream(frames), |d| sse_in_place.push(d.to_vec()));
    let mut ours_prefilled = Vec::new();
    decode_prefilled(&mut NdjsonRawCodec::new(), BytesMut::from(input), |f| {
        ours_prefilled.push(f.into_bytes().to_vec())
    });
    let mut sse_prefilled = Vec::new();
    decode_prefilled(
        &mut sse_codec_no_parse(),
        BytesMut::from(&sse_stream(frames)[..]),
        |f| sse_prefilled.push(f.data().to_vec()),
    );
    let resumable = sse_stream_resumable(frames);
    let mut sse_ids = Vec::new();
    decode_prefilled(
        &mut sse_codec_no_parse(),
        BytesMut::from(&resumable[..]),
        |f| sse_ids.push((f.id().map(|b| b.to_vec()), f.data().to_vec())),
    );
    let mut sse_ids_in_place = Vec::new();
    sse_framer_in_place(&resumable, |d| sse_ids_in_place.push(d.to_vec()));
    let mut batched = Vec::new();
    run(&mut NdjsonBatchCodec::new(), input, |b| {
        batched.extend(b.iter().map(|f| f.bytes().to_vec()))
    });
    let mut batched_prefilled = Vec::new();
    decode_prefilled(&mut NdjsonBatchCodec::new(), BytesMut::from(input), |b| {
        batched_prefilled.extend(b.iter().map(|f| f.bytes().to_vec()))
    });
    assert_eq!(batched, expect_frames(frames), "NdjsonBatchCodec");
    let mut sse_batched = Vec::new();
    run(&mut SseBatchCodec::new(), &sse_stream(frames), |b| {
        sse_batched.extend(b.iter().map(|e| e.data().to_vec()))
    });
    assert_eq!(sse_batched, expect_frames(frames), "SseBatchCodec");
    let mut sse_batched_ids = Vec::new();
    decode_prefilled(
        &mut SseBatchCodec::new(),
        BytesMut::from(&resumable[..]),
        |b| {
            sse_batched_ids.extend(
                b.iter()
                    .map(|e| (e.id().map(<[u8]>::to_vec), e.data().to_vec())),
            )
        },
    );
    assert_eq!(
        batched_prefilled,
        expect_frames(frames),
        "NdjsonBatchCodec decode only"
    );
    let mut floor_prefilled = Vec::new();
    decode_prefilled(&mut MemchrSplitBaseline, BytesMut::from(input), |f| {
        floor_prefilled.push(f.to_vec())
    });
    let expect: Vec<Vec<u8>> = frames.iter().map(|f| f.as_bytes().to_vec()).collect();
    let expect_ids: Vec<_> = frames
        .iter()
        .enumerate()
        .map(|(i, f)| {
            (
                Some((i + 1).to_string().into_bytes()),
                f.as_bytes().to_vec(),
            )
        })
        .collect();
    assert_eq!(sse_ids, expect_ids, "SseCodec decode only, resumable");
    assert_eq!(
        sse_batched_ids, expect_ids,
        "SseBatchCodec decode only, resumable"
    );
    assert_eq!(sse_ids_in_place, expect, "SseFramer in place, resumable");
    assert_eq!(floor_prefilled, expect, "floor decode only");
    assert_eq!(ours, expect, "NdjsonRawCodec");
    assert_eq!(lines, expect, "LinesCodec");
    assert_eq!(any, expect, "AnyDelimiterCodec");
    assert_eq!(floor, expect, "NdjsonFramer in place");
    assert_eq!(sse, expect, "SseCodec");
    assert_eq!(sse_in_place, expect, "SseFramer in place");
    assert_eq!(ours_prefilled, expect, "NdjsonRawCodec decode only");
    assert_eq!(sse_prefilled, expect, "SseCodec decode only");
}

fn expect_frames(frames: &[String]) -> Vec<Vec<u8>> {
    frames.iter().map(|f| f.as_bytes().to_vec()).collect()
}

/// Reads every frame of a batch as a borrowed slice (what a gateway validating in place
/// does); returns how many.
#[inline(always)]
fn read_batch(b: &RawFrameBatch) -> usize {
    for f in b.iter() {
        black_box(f.bytes());
    }
    b.len()
}

/// Reads every event's data of an SSE batch as a borrowed slice; returns how many.
#[inline(always)]
fn read_sse_batch(b: &SseEventBatch) -> usize {
    for e in b.iter() {
        black_box(e.data());
    }
    b.len()
}

/// A generated stream and its frames.
type Stream = (Vec<u8>, Vec<String>);

/// The three stream classes: name, stream, frames.
fn classes() -> [(&'static str, Stream); 3] {
    [
        ("small", stream(1024, 121, 296, 1)),
        ("medium", stream(128, 2200, 6400, 2)),
        ("large", stream(8, 96 * 1024, 160 * 1024, 3)),
    ]
}

fn bench(c: &mut Criterion) {
    for (name, (input, frames)) in &classes() {
        check_same_frames(input, frames);
        let n = frames.len();
        let mut g = c.benchmark_group(format!("framing/{name}"));
        g.throughput(Throughput::Bytes(input.len() as u64));
        let id = |what: &str| BenchmarkId::new(what, format!("{n}frames"));
        g.bench_function(id("mcpwire_ndjson_raw_codec"), |b| {
            b.iter(|| {
                let mut k = 0usize;
                run(&mut NdjsonRawCodec::new(), black_box(input), |f| {
                    black_box(&f);
                    k += 1
                });
                assert_eq!(k, n);
            })
        });
        bench_decode_only(
            &mut g,
            id("mcpwire_ndjson_raw_codec_decode_only"),
            input,
            n,
            NdjsonRawCodec::new,
        );
        g.bench_function(id("mcpwire_ndjson_batch_codec"), |b| {
            b.iter(|| {
                let mut k = 0usize;
                run(&mut NdjsonBatchCodec::new(), black_box(input), |batch| {
                    k += read_batch(&batch)
                });
                assert_eq!(k, n);
            })
        });
        g.bench_function(id("mcpwire_ndjson_batch_codec_decode_only"), |b| {
            b.iter_batched(
                || BytesMut::from(&input[..]),
                |buf| {
                    let mut k = 0usize;
                    let buf = decode_prefilled(&mut NdjsonBatchCodec::new(), buf, |batch| {
                        k += read_batch(&batch)
                    });
                    assert_eq!(k, n);
                    buf
                },
                BatchSize::LargeInput,
            )
        });
        g.bench_function(id("mcpwire_ndjson_framer_in_place"), |b| {
            b.iter(|| {
                let mut k = 0usize;
                framer_in_place(black_box(input), |f| {
                    black_box(f);
                    k += 1
                });
                assert_eq!(k, n);
            })
        });
        // Framing plus envelope parse, to show framing's share of the work.
        g.bench_function(id("mcpwire_ndjson_codec_with_parse"), |b| {
            b.iter(|| {
                let mut k = 0usize;
                run(&mut NdjsonCodec::new(), black_box(input), |f| {
                    assert!(f.envelope().is_ok());
                    k += 1
                });
                assert_eq!(k, n);
            })
        });
        g.bench_function(id("baseline_bytesmut_memchr_split"), |b| {
            b.iter(|| {
                let mut k = 0usize;
                run(&mut MemchrSplitBaseline, black_box(input), |f| {
                    black_box(&f);
                    k += 1
                });
                assert_eq!(k, n);
            })
        });
        bench_decode_only(
            &mut g,
            id("baseline_bytesmut_memchr_split_decode_only"),
            input,
            n,
            || MemchrSplitBaseline,
        );
        g.bench_function(id("tokio_util_lines_codec"), |b| {
            b.iter(|| {
                let mut k = 0usize;
                run(
                    &mut LinesCodec::new_with_max_length(DEFAULT_MAX_FRAME_LEN),
                    black_box(input),
                    |f| {
                        black_box(&f);
                        k += 1
                    },
                );
                assert_eq!(k, n);
            })
        });
        g.bench_function(id("tokio_util_any_delimiter_codec"), |b| {
            b.iter(|| {
                let mut k = 0usize;
                run(&mut any_delimiter_codec(), black_box(input), |f| {
                    black_box(&f);
                    k += 1
                });
                assert_eq!(k, n);
            })
        });
        // tokio-util's codecs timed the same way as our `*_decode_only` rows (no read copy).
        bench_decode_only(
            &mut g,
            id("tokio_util_lines_codec_decode_only"),
            input,
            n,
            || LinesCodec::new_with_max_length(DEFAULT_MAX_FRAME_LEN),
        );
        bench_decode_only(
            &mut g,
            id("tokio_util_any_delimiter_codec_decode_only"),
            input,
            n,
            any_delimiter_codec,
        );
        let sse = sse_stream(frames);
        g.throughput(Throughput::Bytes(sse.len() as u64));
        g.bench_function(id("mcpwire_sse_codec_no_parse"), |b| {
            b.iter(|| {
                let mut k = 0usize;
                run(&mut sse_codec_no_parse(), black_box(&sse), |f| {
                    black_box(&f);
                    k += 1
                });
                assert_eq!(k, n);
            })
        });
        // The plain stream and the resumable one (an `id:` line per event), same rows.
        for (suffix, stream) in [("", &sse), ("_resumable", &sse_stream_resumable(frames))] {
            g.throughput(Throughput::Bytes(stream.len() as u64));
            let name = format!("mcpwire_sse_codec_no_parse_decode_only{suffix}");
            bench_decode_only(&mut g, id(&name), stream, n, sse_codec_no_parse);
            let name = format!("mcpwire_sse_batch_codec_decode_only{suffix}");
            g.bench_function(id(&name), |b| {
                b.iter_batched(
                    || BytesMut::from(&stream[..]),
                    |buf| {
                        let mut k = 0usize;
                        let buf = decode_prefilled(&mut SseBatchCodec::new(), buf, |batch| {
                            k += read_sse_batch(&batch)
                        });
                        assert_eq!(k, n);
                        buf
                    },
                    BatchSize::LargeInput,
                )
            });
            g.bench_function(id(&format!("mcpwire_sse_batch_codec{suffix}")), |b| {
                b.iter(|| {
                    let mut k = 0usize;
                    run(&mut SseBatchCodec::new(), black_box(stream), |batch| {
                        k += read_sse_batch(&batch)
                    });
                    assert_eq!(k, n);
                })
            });
            g.bench_function(id(&format!("mcpwire_sse_framer_in_place{suffix}")), |b| {
                b.iter(|| {
                    let mut k = 0usize;
                    sse_framer_in_place(black_box(stream), |d| {
                        black_box(d);
                        k += 1
                    });
                    assert_eq!(k, n);
                })
            });
        }
        g.finish();
    }
}

/// The implementations the instruction-count mode can run, as `(IMPL, criterion id)`.
const ICOUNT_IMPLS: &[(&str, &str)] = &[
    ("framer_in_place", "mcpwire_ndjson_framer_in_place"),
    ("raw_codec", "mcpwire_ndjson_raw_codec"),
    ("codec_with_parse", "mcpwire_ndjson_codec_with_parse"),
    ("baseline", "baseline_bytesmut_memchr_split"),
    ("lines_codec", "tokio_util_lines_codec"),
    ("any_delimiter_codec", "tokio_util_any_delimiter_codec"),
    ("sse_codec", "mcpwire_sse_codec_no_parse"),
    ("sse_framer_in_place", "mcpwire_sse_framer_in_place"),
    (
        "raw_codec_decode_only",
        "mcpwire_ndjson_raw_codec_decode_only",
    ),
    (
        "sse_codec_decode_only",
        "mcpwire_sse_codec_no_parse_decode_only",
    ),
    (
        "baseline_decode_only",
        "baseline_bytesmut_memchr_split_decode_only",
    ),
    (
        "sse_codec_decode_only_resumable",
        "mcpwire_sse_codec_no_parse_decode_only_resumable",
    ),
    (
        "sse_framer_in_place_resumable",
        "mcpwire_sse_framer_in_place_resumable",
    ),
    ("batch_codec", "mcpwire_ndjson_batch_codec"),
    (
        "batch_codec_decode_only",
        "mcpwire_ndjson_batch_codec_decode_only",
    ),
    ("sse_batch_codec", "mcpwire_sse_batch_codec"),
    (
        "sse_batch_codec_decode_only",
        "mcpwire_sse_batch_codec_decode_only",
    ),
    (
        "sse_batch_codec_decode_only_resumable",
        "mcpwire_sse_batch_codec_decode_only_resumable",
    ),
];

/// One pass of one impl, in a function of its own (a separate copy per impl, never inlined
/// into the dispatch), so the code generated for one impl does not depend on the others'.
#[inline(never)]
fn count_items(item: impl Fn(&mut usize)) -> usize {
    let mut k = 0usize;
    item(&mut k);
    k
}

/// The only function callgrind collects in icount mode: `passes` passes of `pass`.
#[inline(never)]
fn framing_icount_measured(passes: usize, mut pass: impl FnMut() -> usize) -> usize {
    let mut k = 0;
    for _ in 0..passes {
        k += pass();
    }
    k
}

/// `icount IMPL CLASS PASSES`: one warm-up pass, then `PASSES` measured passes.
fn icount(args: &[String]) {
    if args.first().is_some_and(|a| a == "--list") {
        for (i, _) in ICOUNT_IMPLS {
            println!("{i}");
        }
        return;
    }
    let [imp, class, passes] = args else {
        eprintln!(
            "usage: framing icount IMPL CLASS PASSES (IMPL: icount --list; CLASS: small, medium, large)"
        );
        std::process::exit(2);
    };
    let passes: usize = passes.parse().expect("PASSES: a number");
    let all = classes();
    let (_, (input, frames)) = all
        .iter()
        .find(|(n, _)| n == class)
        .expect("CLASS: small, medium or large");
    check_same_frames(input, frames);
    let sse = sse_stream(frames);
    let resumable = sse_stream_resumable(frames);
    // Pre-filled buffers for the decode-only impls (one per pass and the warm-up), made
    // before measuring so the copy is not counted.
    let prefilled = std::cell::RefCell::new(match imp.as_str() {
        "raw_codec_decode_only" | "batch_codec_decode_only" => {
            vec![BytesMut::from(&input[..]); passes + 1]
        }
        "sse_codec_decode_only" | "sse_batch_codec_decode_only" => {
            vec![BytesMut::from(&sse[..]); passes + 1]
        }
        "baseline_decode_only" => vec![BytesMut::from(&input[..]); passes + 1],
        "sse_codec_decode_only_resumable" | "sse_batch_codec_decode_only_resumable" => {
            vec![BytesMut::from(&resumable[..]); passes + 1]
        }
        _ => Vec::new(),
    });
    let next_buf = || prefilled.borrow_mut().pop().expect("one buffer per pass");
    let pass = || -> usize {
        match imp.as_str() {
            "framer_in_place" => count_items(|k| {
                framer_in_place(black_box(input), |f| {
                    black_box(f);
                    *k += 1
                })
            }),
            "raw_codec" => count_items(|k| {
                run(&mut NdjsonRawCodec::new(), black_box(input), |f| {
                    black_box(&f);
                    *k += 1
                })
            }),
            "codec_with_parse" => count_items(|k| {
                run(&mut NdjsonCodec::new(), black_box(input), |f| {
                    black_box(&f);
                    *k += 1
                })
            }),
            "baseline" => count_items(|k| {
                run(&mut MemchrSplitBaseline, black_box(input), |f| {
                    black_box(&f);
                    *k += 1
                })
            }),
            "lines_codec" => count_items(|k| {
                run(
                    &mut LinesCodec::new_with_max_length(DEFAULT_MAX_FRAME_LEN),
                    black_box(input),
                    |f| {
                        black_box(&f);
                        *k += 1
                    },
                )
            }),
            "any_delimiter_codec" => count_items(|k| {
                run(&mut any_delimiter_codec(), black_box(input), |f| {
                    black_box(&f);
                    *k += 1
                })
            }),
            "sse_codec" => count_items(|k| {
                run(&mut sse_codec_no_parse(), black_box(&sse), |f| {
                    black_box(&f);
                    *k += 1
                })
            }),
            "sse_framer_in_place" => count_items(|k| {
                sse_framer_in_place(black_box(&sse), |d| {
                    black_box(d);
                    *k += 1
                })
            }),
            "raw_codec_decode_only" => count_items(|k| {
                let buf = decode_prefilled(&mut NdjsonRawCodec::new(), next_buf(), |f| {
                    black_box(&f);
                    *k += 1
                });
                black_box(buf);
            }),
            "sse_codec_decode_only" => count_items(|k| {
                let buf = decode_prefilled(&mut sse_codec_no_parse(), next_buf(), |f| {
                    black_box(&f);
                    *k += 1
                });
                black_box(buf);
            }),
            "baseline_decode_only" => count_items(|k| {
                let buf = decode_prefilled(&mut MemchrSplitBaseline, next_buf(), |f| {
                    black_box(&f);
                    *k += 1
                });
                black_box(buf);
            }),
            "sse_codec_decode_only_resumable" => count_items(|k| {
                let buf = decode_prefilled(&mut sse_codec_no_parse(), next_buf(), |f| {
                    black_box(&f);
                    *k += 1
                });
                black_box(buf);
            }),
            "sse_framer_in_place_resumable" => count_items(|k| {
                sse_framer_in_place(black_box(&resumable), |d| {
                    black_box(d);
                    *k += 1
                })
            }),
            "batch_codec" => count_items(|k| {
                run(&mut NdjsonBatchCodec::new(), black_box(input), |b| {
                    *k += read_batch(&b)
                })
            }),
            "batch_codec_decode_only" => count_items(|k| {
                let buf = decode_prefilled(&mut NdjsonBatchCodec::new(), next_buf(), |b| {
                    *k += read_batch(&b)
                });
                black_box(buf);
            }),
            "sse_batch_codec" => count_items(|k| {
                run(&mut SseBatchCodec::new(), black_box(&sse), |b| {
                    *k += read_sse_batch(&b)
                })
            }),
            "sse_batch_codec_decode_only" | "sse_batch_codec_decode_only_resumable" => {
                count_items(|k| {
                    let buf = decode_prefilled(&mut SseBatchCodec::new(), next_buf(), |b| {
                        *k += read_sse_batch(&b)
                    });
                    black_box(buf);
                })
            }
            other => panic!("unknown IMPL {other}; see icount --list"),
        }
    };
    assert_eq!(pass(), frames.len(), "warm-up pass");
    let k = framing_icount_measured(passes, pass);
    assert_eq!(k, frames.len() * passes);
    let bytes = if imp.ends_with("_resumable") {
        resumable.len()
    } else if imp.starts_with("sse_") {
        sse.len()
    } else {
        input.len()
    };
    println!(
        "impl={imp} class={class} frames={} bytes={bytes} passes={passes}",
        frames.len()
    );
}

/// Prints each median of this run's groups divided by the frame count, from criterion's
/// `estimates.json` (skipped where a bench was filtered out or the file is elsewhere).
fn per_frame_summary() {
    let root = std::env::var_os("CRITERION_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::var_os("CARGO_TARGET_DIR")
                .map(|d| std::path::PathBuf::from(d).join("criterion"))
        })
        .unwrap_or_else(|| "target/criterion".into());
    let mut lines = Vec::new();
    for (name, (_, frames)) in &classes() {
        let n = frames.len();
        for (_, id) in ICOUNT_IMPLS {
            let path = root
                .join(format!("framing_{name}"))
                .join(id)
                .join(format!("{n}frames"))
                .join("new/estimates.json");
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
                continue;
            };
            if let Some(ns) = v["median"]["point_estimate"].as_f64() {
                lines.push(format!(
                    "{name:<7} {id:<40} {:>10.1} ns/frame  (median {:.1} us / {n} frames)",
                    ns / n as f64,
                    ns / 1e3
                ));
            }
        }
    }
    if !lines.is_empty() {
        println!("\nper frame (criterion median / frames; latest run of each bench):");
        for l in lines {
            println!("{l}");
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if args.first().is_some_and(|a| a == "icount") {
        icount(&args[1..]);
        return;
    }
    let quick = std::env::var("MCPWIRE_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    let c = Criterion::default().without_plots();
    let c = if quick {
        c.sample_size(10)
            .warm_up_time(Duration::from_millis(200))
            .measurement_time(Duration::from_millis(500))
    } else {
        c
    };
    let mut c = c.configure_from_args();
    bench(&mut c);
    c.final_summary();
    per_frame_summary();
}
