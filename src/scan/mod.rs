//! The SIMD block pass (DESIGN.md layer 2): one read-only pass over a frame in 64-byte blocks
//! finding strings, escapes and structural characters and validating UTF-8 and control
//! characters, with run-time CPU dispatch and a safe scalar path that gives identical results.
//!
//! This is the only module allowed to contain `unsafe`.
//!
//! # Structure
//!
//! * [`Backend`]: which block kernel runs (`Scalar`, `Avx2`, `Avx512`), chosen at run time by
//!   [`Backend::detect`] or forced by the caller ([`crate::Parser::with_backend`]). The cargo
//!   feature `force-scalar` makes [`Backend::detect`] return [`Backend::Scalar`] so CI can
//!   run the whole test suite on the portable path.
//! * `block`: the kernels. Each classifies 64 bytes at a time into bit masks (bit *i* = byte
//!   *i* of the block): string terminators (`"`, `\`, bytes `< 0x20`), non-ASCII bytes, and
//!   JSON whitespace. The scalar kernel computes the same masks byte by byte; every kernel
//!   gives bit-identical masks, which the tests check at every block offset.
//! * `cursor`: the validating walk (safe code) that consumes those masks: strings (escapes,
//!   `\u` surrogate pairing, control characters, UTF-8 of any string holding a non-ASCII
//!   byte), numbers (RFC 8259 §6 grammar, token length limit, f64 overflow), literals,
//!   whitespace and an iterative (non-recursive) container walk with a depth limit.
//!
//! The input is never mutated and never copied; a frame is read once from front to back.

pub(crate) mod block;
pub(crate) mod cursor;

pub use block::Backend;
