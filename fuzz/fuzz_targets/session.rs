//! Fuzz target `session` (see FUZZING.md).
//!
//! A sequence of requests, responses, cancels, settles, `initialize`s and batches on both
//! directions of one connection through `Session`: no panic, at most `max` requests in flight,
//! never a false unknown or duplicate id, and the exact outcome of a reference table until the
//! first cancel, `initialize` or batch (`mcpwire::oracle::session`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(finding) = mcpwire::oracle::session::check(data) {
        panic!("session oracle: {finding}");
    }
});
