//! Instruction-count driver for scripts/callgrind.sh: runs one implementation over one
//! message class for a number of passes inside `icount_measured`, the only function
//! callgrind collects (`--collect-atstart=no --toggle-collect=*icount_measured*`), so setup,
//! the field check and the warm-up pass are not counted.
//!
//! Usage: `icount IMPL CLASS PASSES` (IMPL: see `--list`; CLASS: small, medium, large,
//! capture (corpora/bench/capture-stream.jsonl) or file:PATH (any NDJSON file)).
//! Without arguments (as `cargo bench` runs it) it prints how to use it and exits.

#[path = "support/mod.rs"]
mod support;

use std::hint::black_box;

use mcpwire::Backend;
use mcpwire::profile::Profile;
use support::ours::{Ours, OursValidating};
use support::peers::*;
use support::{Class, Extractor, check_agreement_lenient, payload_bytes, run_all};

const IMPLS: &[&str] = &[
    "mcpwire",
    "mcpwire_avx2",
    "mcpwire_scalar",
    "mcpwire_validate",
    "serde_value",
    "serde_raw_2pass",
    "serde_peek",
    "serde_peek_utf8",
    "simd_borrowed",
    "simd_tape",
    "sonic_get_many",
    "sonic_value",
    "floor_simdutf8",
];

#[inline(never)]
fn icount_measured<E: Extractor>(e: &mut E, frames: &[&[u8]], passes: usize) -> u64 {
    let mut d = 0u64;
    for _ in 0..passes {
        d ^= run_all(e, black_box(frames));
    }
    d
}

#[inline(never)]
fn icount_measured_utf8(frames: &[&[u8]], passes: usize) -> u64 {
    let mut ok = 0u64;
    for _ in 0..passes {
        for f in black_box(frames) {
            ok += simdutf8::basic::from_utf8(f).is_ok() as u64;
        }
    }
    ok
}

fn drive<E: Extractor>(mut e: E, frames: &[&[u8]], passes: usize) -> u64 {
    let n = check_agreement_lenient(&mut Ours::default(), &mut e, frames, "icount");
    eprintln!(
        "icount check: both accept {}, only mcpwire {}, only {} {}, both reject {}",
        n.0,
        n.1,
        e.name(),
        n.2,
        n.3
    );
    let _ = run_all(&mut e, frames); // warm-up: buffers grown, CPU dispatch resolved
    icount_measured(&mut e, frames, passes)
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if args.first().is_some_and(|a| a == "--list") {
        println!("{}", IMPLS.join("\n"));
        return;
    }
    if args.len() != 3 {
        eprintln!("icount: instruction-count driver; run it through scripts/callgrind.sh");
        return;
    }
    let passes: usize = args[2].parse().expect("passes: a number");
    let file;
    let frames = match (args[1].as_str(), Class::from_name(&args[1])) {
        (_, Some(class)) => class.frames(),
        ("capture", None) => support::split_frames(support::CAPTURE_STREAM),
        (other, None) => {
            let path = other
                .strip_prefix("file:")
                .expect("class: small, medium, large, capture or file:PATH");
            file = std::fs::read(path).expect("read the file");
            support::split_frames(&file)
        }
    };
    let d = match args[0].as_str() {
        "mcpwire" => drive(Ours::default(), &frames, passes),
        "mcpwire_avx2" => drive(
            Ours::with_backend(Backend::Avx2, "mcpwire_avx2").expect("no AVX2"),
            &frames,
            passes,
        ),
        "mcpwire_scalar" => drive(
            Ours::with_backend(Backend::Scalar, "mcpwire_scalar").expect("scalar"),
            &frames,
            passes,
        ),
        "mcpwire_validate" => drive(
            OursValidating::new(Profile::Auto, "mcpwire_validate"),
            &frames,
            passes,
        ),
        "serde_value" => drive(SerdeValue, &frames, passes),
        "serde_raw_2pass" => drive(SerdeRawEnvelope, &frames, passes),
        "serde_peek" => drive(SerdePeek, &frames, passes),
        "serde_peek_utf8" => drive(SerdePeekUtf8, &frames, passes),
        "simd_borrowed" => drive(SimdBorrowed::default(), &frames, passes),
        "simd_tape" => drive(SimdTape::default(), &frames, passes),
        "sonic_get_many" => drive(SonicGetMany::default(), &frames, passes),
        "sonic_value" => drive(SonicValue, &frames, passes),
        "floor_simdutf8" => {
            let _ = icount_measured_utf8(&frames, 1);
            icount_measured_utf8(&frames, passes)
        }
        other => panic!("unknown implementation {other}; see --list"),
    };
    println!(
        "impl={} class={} frames={} bytes={} passes={} digest={d}",
        args[0],
        args[1],
        frames.len(),
        payload_bytes(&frames),
        passes
    );
}
