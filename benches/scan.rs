//! Tuning bench for our own parser only (peer comparisons live in the bench engineer's
//! benches): full validation + envelope spans over real messages from ../shared/captures,
//! bucketed like notes/peers-perf.md §2 (small 121–296 B, medium 2.2–6.4 KB, large
//! 116–201 KB), once per available scan backend.
//!
//! `cargo bench --bench scan` ; report ns per message = time / frames in the group.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcpwire::{Backend, Parser};

fn frames() -> Vec<Vec<u8>> {
    let base = std::env::var("MCPWIRE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared")));
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(base.join("captures")) else {
        return out;
    };
    let mut dirs: Vec<_> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for d in dirs {
        for f in ["client-to-server.jsonl", "server-to-client.jsonl"] {
            let Ok(bytes) = std::fs::read(d.join(f)) else {
                continue;
            };
            for line in bytes.split(|&b| b == b'\n') {
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                if !line.is_empty() {
                    out.push(line.to_vec());
                }
            }
        }
    }
    out
}

/// The frames of one size class that we accept (the captures hold a few malformed probes).
fn class_set<'a>(all: &'a [Vec<u8>], range: &std::ops::RangeInclusive<usize>) -> Vec<&'a [u8]> {
    all.iter()
        .filter(|f| range.contains(&f.len()))
        .map(|f| f.as_slice())
        .filter(|f| Parser::new().parse(f).is_ok())
        .collect()
}

const CLASSES: [(&str, std::ops::RangeInclusive<usize>); 3] = [
    ("small", 121..=296),
    ("medium", 2200..=6400),
    ("large", 116_000..=201_000),
];

/// Instruction-count mode for callgrind (stable under load, unlike wall time):
/// `MCPWIRE_SCAN_COUNT=small:11 valgrind --tool=callgrind target/release/deps/scan-*`
/// parses every frame of the class `N` times with the detected backend (or the backend named
/// by `MCPWIRE_SCAN_BACKEND`) and exits without running criterion. Instructions per message
/// = (Ir at N=11 − Ir at N=1) / (10 × frames); the frame count is printed.
fn count_mode() -> bool {
    let Ok(spec) = std::env::var("MCPWIRE_SCAN_COUNT") else {
        return false;
    };
    let (name, n) = spec.split_once(':').unwrap_or((spec.as_str(), "1"));
    let n: usize = n.parse().expect("MCPWIRE_SCAN_COUNT=class:N");
    let backend = match std::env::var("MCPWIRE_SCAN_BACKEND").as_deref() {
        Ok("scalar") => Backend::Scalar,
        Ok("avx512") => Backend::Avx512,
        Ok("avx2") => Backend::Avx2,
        _ => Backend::detect(),
    };
    let all = frames();
    let (_, range) = CLASSES
        .iter()
        .find(|(c, _)| *c == name)
        .expect("class: small, medium or large");
    let set = class_set(&all, range);
    let p = Parser::new().with_backend(backend);
    let mut acc = 0usize;
    for _ in 0..n {
        for f in &set {
            let e = p.parse(black_box(f)).unwrap();
            acc += e.shape() as usize + e.method_span().map_or(0, |s| s.len());
        }
    }
    println!(
        "{name}: {} frames x {n} with {} (acc {acc})",
        set.len(),
        p.backend().name()
    );
    true
}

fn bench(c: &mut Criterion) {
    if count_mode() {
        return;
    }
    let all = frames();
    if all.is_empty() {
        eprintln!("skipped: ../shared/captures not found");
        return;
    }
    for (name, range) in CLASSES {
        // Only frames we accept (the captures hold a few deliberately malformed probes).
        let set: Vec<&[u8]> = all
            .iter()
            .filter(|f| range.contains(&f.len()))
            .map(|f| f.as_slice())
            .filter(|f| match Parser::new().parse(f) {
                Ok(_) => true,
                Err(e) => {
                    eprintln!(
                        "not timed ({e}): {}",
                        String::from_utf8_lossy(&f[..f.len().min(120)])
                    );
                    false
                }
            })
            .collect();
        let bytes: usize = set.iter().map(|f| f.len()).sum();
        eprintln!(
            "{name}: {} frames, {} bytes, avg {} B",
            set.len(),
            bytes,
            bytes / set.len().max(1)
        );
        let mut g = c.benchmark_group(format!("parse/{name}"));
        g.throughput(Throughput::Bytes(bytes as u64));
        for b in Backend::available() {
            let p = Parser::new().with_backend(b);
            g.bench_function(format!("{}x{}", b.name(), set.len()), |bench| {
                bench.iter(|| {
                    let mut acc = 0usize;
                    for f in &set {
                        let e = p.parse(black_box(f)).unwrap();
                        acc += e.shape() as usize + e.method_span().map_or(0, |s| s.len());
                    }
                    acc
                })
            });
        }
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
