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
//! * `block`: the kernels. Each classifies 64 bytes at a time into two bit masks (bit *i* =
//!   byte *i* of the block): string stops (`"`, `\`, bytes `< 0x20`) and non-ASCII bytes.
//!   The scalar kernel computes the same masks byte by byte; every kernel gives bit-identical
//!   masks, which the tests check at every offset. The string loop walks the stop bits of a
//!   block (simple escapes without reloading it) and validates UTF-8 of any string holding a
//!   non-ASCII byte (simdutf8 on the SIMD backends, `std` on the scalar one: same verdict).
//! * `cursor`: the validating walk (safe code; the SSE2 load is in `block`): a short-string fast
//!   path (SSE2 16-byte loads on the SIMD backends, SWAR 8-byte words on the scalar one,
//!   each stopping at the first `"`, `\`, control or non-ASCII byte), escapes
//!   (`\u` surrogate pairing), numbers (RFC 8259 §6 grammar, token length limit, f64
//!   overflow), literals, whitespace, structural characters and an iterative
//!   (non-recursive) container walk with a depth limit. Structure-dense bytes are read by
//!   this walk one token at a time; string content (where the bytes of MCP frames are) runs
//!   at block speed.
//!
//! The input is never mutated and never copied; a frame is read once from front to back.

pub(crate) mod block;
pub(crate) mod cursor;
pub(crate) mod line;
pub(crate) mod text;

pub use block::Backend;
