//! Envelope extraction + full validation per message class: mcpwire against its peers
//! (serde_json, simd-json, sonic-rs), all in one run, after checking that every peer reads
//! the same fields as mcpwire on every frame. With `MCPWIRE_BENCH_RR=1` the same
//! implementations are also timed round-robin (interleaved samples; robust to neighbour load)
//! after each class. See PERF.md for the commands and results.

#[path = "support/mod.rs"]
mod support;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcpwire::Backend;
use mcpwire::profile::Profile;
use support::ours::{Ours, OursValidating};
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
        // Parse + accessors + the MCP profile check (`Validator::check`, profile `auto`).
        let mut validating = OursValidating::new(Profile::Auto, "mcpwire_validate");
        check_agreement(&mut reference, &mut validating, &frames, what);
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
        bench_one(&mut group, &mut validating, &frames);
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

        if std::env::var_os("MCPWIRE_BENCH_RR").is_some() {
            round_robin_class(
                class,
                &frames,
                &mut ours,
                &mut validating,
                &mut backends,
                &mut a,
                &mut b,
                &mut b2,
                &mut b2u,
                &mut c_,
                &mut d2,
                &mut e,
                &mut f,
            );
        }
    }
}

/// The same implementations timed round-robin (see `support::round_robin`); prints a table
/// and appends to `$MCPWIRE_BENCH_OUT/roundrobin.csv` when set.
#[allow(clippy::too_many_arguments)]
fn round_robin_class(
    class: Class,
    frames: &[&[u8]],
    ours: &mut Ours,
    validating: &mut OursValidating,
    backends: &mut [Ours],
    a: &mut SerdeValue,
    b: &mut SerdeRawEnvelope,
    b2: &mut SerdePeek,
    b2u: &mut SerdePeekUtf8,
    c_: &mut SimdBorrowed,
    d2: &mut SimdTape,
    e: &mut SonicGetMany,
    f: &mut SonicValue,
) {
    fn pass<'a, E: Extractor>(e: &'a mut E, frames: &'a [&'a [u8]]) -> support::Pass<'a> {
        let name = e.name();
        (name, Box::new(move || run_all(e, black_box(frames))))
    }
    let mut passes: Vec<support::Pass<'_>> = vec![pass(ours, frames), pass(validating, frames)];
    for o in backends.iter_mut() {
        passes.push(pass(o, frames));
    }
    passes.push(pass(a, frames));
    passes.push(pass(b, frames));
    passes.push(pass(b2, frames));
    passes.push(pass(b2u, frames));
    passes.push(pass(c_, frames));
    passes.push(pass(d2, frames));
    passes.push(pass(e, frames));
    passes.push(pass(f, frames));
    let res = support::round_robin(&mut passes);
    let bytes = payload_bytes(frames) as f64;
    let n = frames.len() as f64;
    let ours_med = res[0].1;
    let mut csv = String::new();
    println!(
        "\nround-robin {} ({} frames): impl, median ns/msg, p10 ns/msg, MB/s (median), peer/mcpwire",
        class.name(),
        frames.len()
    );
    for (name, med, p10) in &res {
        println!(
            "  {name:<18} {:>10.1} {:>10.1} {:>8.0} {:>6.2}",
            med / n,
            p10 / n,
            bytes / med * 1e3,
            med / ours_med
        );
        csv.push_str(&format!(
            "{},{},{:.2},{:.2},{:.1},{:.3}\n",
            class.name(),
            name,
            med / n,
            p10 / n,
            bytes / med * 1e3,
            med / ours_med
        ));
    }
    if let Some(dir) = std::env::var_os("MCPWIRE_BENCH_OUT") {
        use std::io::Write;
        let _ = std::fs::create_dir_all(&dir);
        let path = std::path::Path::new(&dir).join("roundrobin.csv");
        let new = !path.exists();
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("open roundrobin.csv");
        if new {
            let _ = file.write_all(
                b"class,impl,median_ns_per_msg,p10_ns_per_msg,mb_per_s,peer_over_mcpwire\n",
            );
        }
        file.write_all(csv.as_bytes())
            .expect("write roundrobin.csv");
    }
}

criterion_group! {
    name = benches;
    config = support::criterion_config();
    targets = peers
}
criterion_main!(benches);
