//! # mcpwire
//!
//! Line-rate reading of MCP (Model Context Protocol) traffic: framing (stdio NDJSON, SSE,
//! HTTP bodies), a SIMD scan plus zero-copy envelope walk that extracts `jsonrpc`, `id`,
//! `method`, `params`, `result`, `error` and `_meta` as byte spans while validating the whole
//! frame (RFC 8259, UTF-8, depth and number limits, duplicate envelope keys), shape
//! classification, and MCP profile rules (revision 2026-07-28 and the legacy revisions).
//!
//! Layers, top to bottom (data never flows back up):
//!
//! 1. [`framing`]: sans-I/O framers that cut byte streams into frames.
//! 2. [`scan`]: the SIMD block pass (the only module with `unsafe`).
//! 3. [`envelope`]: the validating walk producing [`Envelope`] spans.
//! 4. [`profile`]: per-revision MCP rules, error replies, header mirroring.
//! 5. adapters: [`codec`] (feature `codec`) and the `mcpwire` binary (feature `cli`).
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod envelope;
pub mod error;
pub mod framing;
pub mod profile;
pub mod scan;

#[cfg(feature = "codec")]
pub mod codec;

#[cfg(feature = "oracle")]
pub mod oracle;

pub use envelope::{
    Envelope, Id, JsonStr, Limits, Member, Members, OwnedEnvelope, Parser, Shape, Span, Spans,
    members, parse, recover_id, recover_request_id,
};
pub use error::{Error, ErrorKind};
pub use profile::IdKey;
pub use scan::Backend;

/// The README's examples, compiled and run by `cargo test` as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
