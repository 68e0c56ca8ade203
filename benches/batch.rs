//! Batch validation of whole NDJSON streams of real MCP traffic: frame with `memchr`,
//! validate and extract every frame, single-threaded and across threads (rayon), reporting
//! GB/s (criterion `Throughput::Bytes`) and, in the summary printed at the end,
//! messages/s.
//!
//! Streams:
//! * `capture` — corpora/bench/capture-stream.jsonl (real SDK sessions, compiled in);
//! * `shared` — every stdio capture in ../shared/captures concatenated (with the 2.1 MB
//!   lines), when that folder exists (`MCPWIRE_SHARED` overrides its location);
//! * `file` — the file named by `MCPWIRE_BENCH_STREAM`, when set.
//!
//! Thread counts: `MCPWIRE_BENCH_THREADS=1,2,4` (default: 1 and the machine's available
//! parallelism). The summary table is also written as CSV to `$MCPWIRE_BENCH_OUT/batch.csv`
//! when `MCPWIRE_BENCH_OUT` is set (used by scripts/bench-scaling.sh).

#[path = "support/mod.rs"]
mod support;

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput};
use rayon::prelude::*;
use support::ours::Ours;
use support::peers::{SerdePeekUtf8, SerdeValue, SimdTape};
use support::{CAPTURE_STREAM, Digest, Extractor};

/// Validates every frame of an NDJSON chunk; returns (accepted, rejected, digest).
fn validate_chunk<E: Extractor>(e: &mut E, chunk: &[u8]) -> (usize, usize, u64) {
    let (mut ok, mut bad) = (0usize, 0usize);
    let mut d = Digest::default();
    let mut start = 0;
    for nl in memchr::memchr_iter(b'\n', chunk) {
        if nl > start {
            match e.run(&chunk[start..nl], &mut d) {
                Ok(()) => ok += 1,
                Err(_) => bad += 1,
            }
        }
        start = nl + 1;
    }
    if start < chunk.len() {
        match e.run(&chunk[start..], &mut d) {
            Ok(()) => ok += 1,
            Err(_) => bad += 1,
        }
    }
    (ok, bad, d.0)
}

/// Cuts `stream` into about `n` pieces of similar size, each ending after a newline.
fn chunks(stream: &[u8], n: usize) -> Vec<&[u8]> {
    let target = stream.len().div_ceil(n.max(1)).max(1);
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    while start < stream.len() {
        let want = (start + target).min(stream.len());
        let end = match memchr::memchr(b'\n', &stream[want.saturating_sub(1)..]) {
            Some(p) => want.saturating_sub(1) + p + 1,
            None => stream.len(),
        };
        out.push(&stream[start..end]);
        start = end;
    }
    out
}

fn validate_parallel<E: Extractor + Default + Send>(
    pool: &rayon::ThreadPool,
    pieces: &[&[u8]],
) -> (usize, usize, u64) {
    pool.install(|| {
        pieces
            .par_iter()
            .map_init(E::default, |e, piece| validate_chunk(e, piece))
            .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 ^ b.2))
    })
}

fn shared_dir() -> PathBuf {
    std::env::var_os("MCPWIRE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared")))
}

/// Every stdio capture (both directions), in sorted order, concatenated.
fn shared_stream() -> Option<Vec<u8>> {
    let dir = shared_dir().join("captures");
    let mut sessions: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("stdio_"))
        })
        .collect();
    sessions.sort();
    let mut out = Vec::new();
    for s in sessions {
        for f in ["client-to-server.jsonl", "server-to-client.jsonl"] {
            out.extend_from_slice(&std::fs::read(s.join(f)).ok()?);
            if out.last().is_some_and(|&b| b != b'\n') {
                out.push(b'\n');
            }
        }
    }
    Some(out)
}

fn thread_counts() -> Vec<usize> {
    let mut v: Vec<usize> = match std::env::var("MCPWIRE_BENCH_THREADS") {
        Ok(s) => s
            .split(',')
            .filter_map(|t| t.trim().parse().ok())
            .filter(|&n| n > 0)
            .collect(),
        Err(_) => vec![
            1,
            std::thread::available_parallelism().map_or(1, |n| n.get()),
        ],
    };
    v.dedup();
    v
}

/// One row of the summary: a criterion bench id and what it processed per iteration.
struct Row {
    group: String,
    function: String,
    bytes: u64,
    frames: usize,
}

fn bench_stream<E: Extractor + Default + Send>(
    c: &mut Criterion,
    rows: &mut Vec<Row>,
    stream_name: &str,
    stream: &[u8],
    threads: &[usize],
) {
    let mut e = E::default();
    let (ok, bad, _) = validate_chunk(&mut e, stream);
    let frames = ok + bad;
    eprintln!(
        "batch {stream_name}: {} accepts {ok}, rejects {bad} of {frames} frames",
        e.name()
    );
    let group_name = format!("batch_{stream_name}");
    let mut group = c.benchmark_group(&group_name);
    group.throughput(Throughput::Bytes(stream.len() as u64));
    for &t in threads {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .expect("thread pool");
        let pieces = chunks(stream, t * 8);
        // Check step: the split and the threads see exactly the frames of the serial pass.
        let (pok, pbad, _) = validate_parallel::<E>(&pool, &pieces);
        assert_eq!((pok, pbad), (ok, bad), "parallel split changed the frames");
        let function = format!("{}_t{t}", e.name());
        if t == 1 {
            group.bench_function(&function, |b| {
                b.iter(|| validate_chunk(&mut e, black_box(stream)))
            });
        } else {
            group.bench_function(&function, |b| {
                b.iter(|| validate_parallel::<E>(&pool, black_box(&pieces)))
            });
        }
        rows.push(Row {
            group: group_name.clone(),
            function,
            bytes: stream.len() as u64,
            frames,
        });
    }
    group.finish();
}

/// Check step: on every frame both accept, mcpwire and serde_json::Value read the same
/// fields; frames only one of them accepts are counted (the strictness policy rejects more,
/// e.g. duplicate keys; serde_json rejects escaped lone surrogates).
fn check_stream(name: &str, stream: &[u8]) {
    let frames = support::split_frames(stream);
    let n = support::check_agreement_lenient(&mut Ours::default(), &mut SerdeValue, &frames, name);
    eprintln!(
        "batch {name}: same fields on {} frames; only mcpwire accepts {}, only serde_json {}, \
         both reject {}",
        n.0, n.1, n.2, n.3
    );
}

fn criterion_home() -> PathBuf {
    if let Some(h) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(h);
    }
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target"))
        .join("criterion")
}

/// Reads criterion's median for each row and prints GB/s and messages/s.
fn summary(rows: &[Row]) {
    let mut csv =
        String::from("group,function,threads,bytes,frames,median_ns,gb_per_s,msgs_per_s\n");
    println!(
        "\n{:<22} {:<26} {:>12} {:>9} {:>14}",
        "stream", "impl_threads", "median", "GB/s", "msgs/s"
    );
    for r in rows {
        let path = criterion_home()
            .join(&r.group)
            .join(&r.function)
            .join("new/estimates.json");
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        let Some(ns) = v["median"]["point_estimate"].as_f64() else {
            continue;
        };
        let gbs = r.bytes as f64 / ns;
        let mps = r.frames as f64 / ns * 1e9;
        let threads = r.function.rsplit("_t").next().unwrap_or("?");
        println!(
            "{:<22} {:<26} {:>9.1} µs {:>9.3} {:>14.0}",
            r.group,
            r.function,
            ns / 1e3,
            gbs,
            mps
        );
        csv.push_str(&format!(
            "{},{},{},{},{},{:.0},{:.4},{:.0}\n",
            r.group, r.function, threads, r.bytes, r.frames, ns, gbs, mps
        ));
    }
    if let Some(dir) = std::env::var_os("MCPWIRE_BENCH_OUT") {
        let dir = PathBuf::from(dir);
        let _ = std::fs::create_dir_all(&dir);
        std::fs::write(dir.join("batch.csv"), csv).expect("write batch.csv");
    }
}

fn main() {
    let mut c = support::criterion_config().configure_from_args();
    let threads = thread_counts();
    let mut rows = Vec::new();
    let mut streams: Vec<(&str, Vec<u8>)> = vec![("capture", CAPTURE_STREAM.to_vec())];
    match shared_stream() {
        Some(s) => streams.push(("shared", s)),
        None => eprintln!("batch shared: skipped: ../shared/captures not found"),
    }
    if let Some(p) = std::env::var_os("MCPWIRE_BENCH_STREAM") {
        streams.push((
            "file",
            std::fs::read(&p).expect("read MCPWIRE_BENCH_STREAM"),
        ));
    }
    for (name, stream) in &streams {
        eprintln!("batch {name}: {} bytes, threads {threads:?}", stream.len());
        check_stream(name, stream);
        bench_stream::<Ours>(&mut c, &mut rows, name, stream, &threads);
        bench_stream::<SimdTape>(&mut c, &mut rows, name, stream, &threads);
        bench_stream::<SerdePeekUtf8>(&mut c, &mut rows, name, stream, &threads);
    }
    c.final_summary();
    summary(&rows);
}
