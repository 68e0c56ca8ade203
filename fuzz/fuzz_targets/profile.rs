//! Fuzz target `profile` (see FUZZING.md).
//!
//! Any bytes as one frame under every profile and direction: no panic, error replies that
//! parse, and violations stable under re-serialisation.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(finding) = mcpwire::oracle::targets::profile(data) {
        panic!("profile oracle: {finding}");
    }
});
