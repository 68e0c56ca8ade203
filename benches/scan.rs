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

fn bench(c: &mut Criterion) {
    let all = frames();
    if all.is_empty() {
        eprintln!("skipped: ../shared/captures not found");
        return;
    }
    let classes: [(&str, std::ops::RangeInclusive<usize>); 3] = [
        ("small", 121..=296),
        ("medium", 2200..=6400),
        ("large", 116_000..=201_000),
    ];
    for (name, range) in classes {
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
