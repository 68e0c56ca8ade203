//! Fuzz target `envelope` (see FUZZING.md).
//!
//! Any bytes as one frame: no panic, no hang, and the verdict and every extracted field
//! agree with serde_json and simd-json except where the strictness policy rejects more.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(finding) = mcpwire::oracle::targets::envelope(data) {
        panic!("envelope oracle: {finding}");
    }
});
