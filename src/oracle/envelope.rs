//! Envelope oracle: serde_json (strict) and simd-json readings of a frame.
