//! Byte-level floors per message class: what it costs just to touch the bytes. No parser can
//! beat these on one core; PERF.md puts every implementation's time next to them.
//!
//! * `memchr_newlines`: find every LF of the class's NDJSON stream (`memchr::memchr_iter`).
//! * `simdutf8`: `simdutf8::basic::from_utf8` over each frame.
//! * `std_from_utf8`: `std::str::from_utf8` over each frame.
//! * `memcpy`: copy each frame into a reused `Vec` (`clear` + `extend_from_slice`).

#[path = "support/mod.rs"]
mod support;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use support::{Class, payload_bytes};

fn floors(c: &mut Criterion) {
    for class in Class::ALL {
        let stream = class.stream();
        let frames = class.frames();
        let bytes = payload_bytes(&frames);
        // Check step: every floor sees the same frames as the parsers.
        assert_eq!(memchr::memchr_iter(b'\n', stream).count(), frames.len());
        assert!(frames.iter().all(|f| simdutf8::basic::from_utf8(f).is_ok()));
        assert!(frames.iter().all(|f| std::str::from_utf8(f).is_ok()));

        let mut group = c.benchmark_group(format!("floors/{}", class.name()));
        group.throughput(Throughput::Bytes(bytes));
        group.bench_function("memchr_newlines", |b| {
            b.iter(|| {
                let mut n = 0usize;
                for pos in memchr::memchr_iter(b'\n', black_box(stream)) {
                    n = n.wrapping_add(pos);
                }
                n
            })
        });
        group.bench_function("simdutf8", |b| {
            b.iter(|| {
                let mut ok = 0usize;
                for f in black_box(&frames) {
                    ok += simdutf8::basic::from_utf8(f).is_ok() as usize;
                }
                ok
            })
        });
        group.bench_function("std_from_utf8", |b| {
            b.iter(|| {
                let mut ok = 0usize;
                for f in black_box(&frames) {
                    ok += std::str::from_utf8(f).is_ok() as usize;
                }
                ok
            })
        });
        let mut buf: Vec<u8> =
            Vec::with_capacity(frames.iter().map(|f| f.len()).max().unwrap_or(0));
        group.bench_function("memcpy", |b| {
            b.iter(|| {
                let mut n = 0usize;
                for f in black_box(&frames) {
                    buf.clear();
                    buf.extend_from_slice(f);
                    n = n.wrapping_add(black_box(&buf).len());
                }
                n
            })
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = support::criterion_config();
    targets = floors
}
criterion_main!(benches);
