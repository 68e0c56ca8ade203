//! Differential oracles (feature `oracle`): what serde_json and simd-json read from a frame,
//! and reference framers, shared by the tests and the fuzz targets (so `cargo test` replays
//! fuzz corpora through exactly the functions the fuzzers use).

pub mod envelope;
pub mod framing;
pub mod model;
pub mod session;
pub mod targets;
