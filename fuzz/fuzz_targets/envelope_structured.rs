//! Fuzz target `envelope_structured` (see FUZZING.md).
//!
//! An `arbitrary`-derived MCP message model (mcpwire::oracle::model) rendered with random
//! escapes, whitespace, member order, duplicate and case-variant keys, nesting and sizes, then
//! checked like `envelope`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(finding) = mcpwire::oracle::targets::envelope_structured(data) {
        panic!("envelope_structured oracle: {finding}");
    }
});
