//! Fuzz target `sse` (see FUZZING.md).
//!
//! An arbitrary stream cut into arbitrary reads: the SSE framer gives the same events as one
//! read and as the WHATWG reference framer (mcpwire::oracle::framing).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(finding) = mcpwire::oracle::targets::sse(data) {
        panic!("sse oracle: {finding}");
    }
});
