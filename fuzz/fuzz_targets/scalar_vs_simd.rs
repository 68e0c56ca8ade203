//! Fuzz target `scalar_vs_simd` (see FUZZING.md).
//!
//! Any bytes as one frame: every scan backend this CPU has (AVX2, SSE4.2, ...) gives exactly the
//! scalar path's result, with default and with tight limits.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(finding) = mcpwire::oracle::targets::scalar_vs_simd(data) {
        panic!("scalar_vs_simd oracle: {finding}");
    }
});
