//! Fuzz target `ndjson` (see FUZZING.md).
//!
//! An arbitrary stream cut into arbitrary reads: the NDJSON framer gives the same frames as
//! one read and as the reference framer (mcpwire::oracle::framing).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(finding) = mcpwire::oracle::targets::ndjson(data) {
        panic!("ndjson oracle: {finding}");
    }
});
