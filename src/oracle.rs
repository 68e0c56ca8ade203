//! Differential oracles (feature `oracle`): what serde_json and simd-json read from a frame,
//! shared by the tests and the fuzz targets.
