//! The SIMD block pass (DESIGN.md layer 2): one read-only pass over a frame in 64-byte blocks
//! finding strings, escapes and structural characters and validating UTF-8 and control
//! characters, with run-time CPU dispatch and a safe scalar path that gives identical results.
//!
//! This is the only module allowed to contain `unsafe`.
