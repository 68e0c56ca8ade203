//! Envelope extraction + full validation per message class: mcpwire against its peers
//! (serde_json, simd-json, sonic-rs), all in one run, after checking that every peer reads
//! the same fields as the reference on every frame. See PERF.md for the commands and results.

#[path = "support/mod.rs"]
mod support;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcpwire::Backend;
use support::ours::Ours;
use support::peers::*;
use support::{Class, Extractor, check_agreement, payload_bytes, run_all};

fn bench_one<E: Extractor>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    e: &mut E,
    frames: &[&[u8]],
) {
    group.bench_function(e.name(), |b| b.iter(|| run_all(e, black_box(frames))));
}

fn peers(c: &mut Criterion) {
    for class in Class::ALL {
        let frames = class.frames();
        let what = class.name();
        // mcpwire (run-time dispatch) and each forced scan backend this CPU has.
        let mut ours = Ours::default();
        let mut backends: Vec<Ours> = [
            (Backend::Avx512, "mcpwire_avx512"),
            (Backend::Avx2, "mcpwire_avx2"),
            (Backend::Scalar, "mcpwire_scalar"),
        ]
        .into_iter()
        .filter_map(|(b, name)| Ours::with_backend(b, name))
        .collect();
        // Check step: the strict backend parser, every forced backend and every peer read
        // the same fields as mcpwire on every frame, before anything is timed.
        let mut a = SerdeValue;
        let (mut b, mut b2, mut b2u) = (SerdeRawEnvelope, SerdePeek, SerdePeekUtf8);
        let (mut c_, mut d2) = (SimdBorrowed::default(), SimdTape::default());
        let (mut e, mut f) = (SonicGetMany::default(), SonicValue);
        let mut reference = Ours::default();
        for o in &mut backends {
            check_agreement(&mut reference, o, &frames, what);
        }
        check_agreement(&mut reference, &mut a, &frames, what);
        check_agreement(&mut reference, &mut b, &frames, what);
        check_agreement(&mut reference, &mut b2, &frames, what);
        check_agreement(&mut reference, &mut b2u, &frames, what);
        check_agreement(&mut reference, &mut c_, &frames, what);
        check_agreement(&mut reference, &mut d2, &frames, what);
        check_agreement(&mut reference, &mut e, &frames, what);
        check_agreement(&mut reference, &mut f, &frames, what);
        eprintln!(
            "{what}: {} frames, {} bytes: every backend and peer agrees with mcpwire",
            frames.len(),
            payload_bytes(&frames)
        );

        let mut group = c.benchmark_group(format!("envelope/{what}"));
        group.throughput(Throughput::Bytes(payload_bytes(&frames)));
        bench_one(&mut group, &mut ours, &frames);
        for o in &mut backends {
            bench_one(&mut group, o, &frames);
        }
        bench_one(&mut group, &mut a, &frames);
        bench_one(&mut group, &mut b, &frames);
        bench_one(&mut group, &mut b2, &frames);
        bench_one(&mut group, &mut b2u, &frames);
        bench_one(&mut group, &mut c_, &frames);
        bench_one(&mut group, &mut d2, &frames);
        bench_one(&mut group, &mut e, &frames);
        bench_one(&mut group, &mut f, &frames);
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = support::criterion_config();
    targets = peers
}
criterion_main!(benches);
