//! The envelope layer: a validating walk over the scan's output that records byte spans of the
//! JSON-RPC envelope members without building a DOM (DESIGN.md layer 3).
//!
//! API CONTRACT (skeleton; the core implementation fills in the bodies — signatures are shared
//! with the framing, profile, CLI, bench and fuzz layers and must not change without telling
//! them):
//!
//! * [`parse`] / [`Parser::parse`]: `Err(Error)` when the frame is not well-formed JSON
//!   (-32700 kinds), exceeds a limit, or has a duplicate envelope / `_meta` key (-32600).
//!   Any other well-formed frame gives `Ok(Envelope)`; when it is not a valid JSON-RPC
//!   envelope its [`Envelope::shape`] is [`Shape::Invalid`] and [`Envelope::invalid_reason`]
//!   says why (a -32600 kind), while every span that could be read is still available (so an
//!   error reply can echo the id).
//! * Spans are byte ranges into the frame. Value spans cover the raw JSON value (strings
//!   include their quotes).
//!
//! Accessors the other layers rely on (all on `Envelope<'f>`, all O(1) unless noted):
//!
//! * spans, `-> Option<Span>`: `jsonrpc_span`, `id_span`, `method_span`, `params_span`,
//!   `result_span`, `error_span`, `error_code_span`, `error_message_span`, `error_data_span`,
//!   `result_type_span` (`result.resultType`), `params_meta_span`, `result_meta_span`,
//!   `params_name_span` (`params.name`), `params_uri_span` (`params.uri`),
//!   `case_variant_key` (first depth-1 key equal to an envelope key only under ASCII case
//!   folding, e.g. `"Method"`).
//! * typed: `id() -> Option<Id<'f>>`, `id_raw() -> Option<&'f str>` (exact JSON text),
//!   `method() -> Option<JsonStr<'f>>`, `params()/result()/error() -> Option<&'f [u8]>`,
//!   `error_code() -> Option<i64>`, `error_message() -> Option<JsonStr<'f>>`,
//!   `result_type() -> Option<JsonStr<'f>>`, `params_meta()/result_meta()/meta() ->
//!   Option<Members<'f>>` (iterator of [`Member`]; `meta()` = params._meta for requests and
//!   notifications, result._meta for results).
//! * `batch_elements() -> Option<impl Iterator<Item = Span>>` for [`Shape::Batch`].
//! * free function `members(frame, object_span) -> Members<'f>`: iterate the depth-1 members
//!   of any object value inside an already validated frame (used by the profile layer for
//!   `params.arguments`, `result.ttlMs`, …).
//! * `params_value(&self, scratch: &mut Vec<u8>) -> Result<simd_json::BorrowedValue<'_>, Error>`:
//!   optional full decode of `params` through simd-json.

use std::borrow::Cow;
use std::ops::Range;

use bytes::Bytes;

use crate::error::{Error, ErrorKind};

/// A byte range `start..end` in a frame (bytes, `start <= end`).
///
/// Stored as two `u32`: frames longer than `u32::MAX` bytes are rejected with
/// [`ErrorKind::FrameTooLarge`] before any span is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    start: u32,
    end: u32,
}

impl Span {
    /// A span from `start` to `end` (bytes).
    ///
    /// # Panics
    /// If `start > end` or `end > u32::MAX`.
    #[inline]
    pub fn new(start: usize, end: usize) -> Self {
        assert!(start <= end && end <= u32::MAX as usize, "bad span {start}..{end}");
        Self { start: start as u32, end: end as u32 }
    }
    /// First byte offset.
    #[inline]
    pub const fn start(&self) -> usize {
        self.start as usize
    }
    /// One past the last byte offset.
    #[inline]
    pub const fn end(&self) -> usize {
        self.end as usize
    }
    /// Length in bytes.
    #[inline]
    pub const fn len(&self) -> usize {
        (self.end - self.start) as usize
    }
    /// True when the span is empty.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.end == self.start
    }
    /// As a `Range<usize>`.
    #[inline]
    pub const fn range(&self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
    /// The bytes of `frame` this span covers.
    ///
    /// # Panics
    /// If the span is out of bounds of `frame`.
    #[inline]
    pub fn slice<'a>(&self, frame: &'a [u8]) -> &'a [u8] {
        &frame[self.range()]
    }
}

/// Resource limits applied while validating one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Maximum container nesting. A frame whose nesting reaches this depth is rejected with
    /// [`ErrorKind::DepthLimit`]; the default 128 matches serde_json (127 nested containers
    /// accepted, 128 rejected).
    pub max_depth: usize,
    /// Maximum length of one number token in bytes (default 1024); longer is
    /// [`ErrorKind::NumberTooLong`].
    pub max_number_len: usize,
    /// Maximum frame length in bytes (default 4 MiB = 4 194 304); longer is
    /// [`ErrorKind::FrameTooLarge`].
    pub max_frame_len: usize,
}

impl Limits {
    /// The defaults: depth 128, number 1024 bytes, frame 4 MiB.
    pub const DEFAULT: Limits =
        Limits { max_depth: 128, max_number_len: 1024, max_frame_len: 4 * 1024 * 1024 };
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The shape of a message (JSON-RPC 2.0 §4–5, MCP 2026-07-28 basic/index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// `method` and `id` (string or integer).
    Request,
    /// `method`, no `id` member.
    Notification,
    /// `id` and `result`.
    Result,
    /// `error` (with `id`, or without when the request's id was unreadable).
    Error,
    /// A top-level array (legacy 2025-03-26 batch); validated as JSON, never split silently.
    Batch,
    /// Well-formed JSON that is not a valid JSON-RPC envelope; see [`Envelope::invalid_reason`].
    Invalid,
}

impl Shape {
    /// Stable lower-case name: `request`, `notification`, `result`, `error`, `batch`, `invalid`.
    pub const fn name(self) -> &'static str {
        match self {
            Shape::Request => "request",
            Shape::Notification => "notification",
            Shape::Result => "result",
            Shape::Error => "error",
            Shape::Batch => "batch",
            Shape::Invalid => "invalid",
        }
    }
}

/// A JSON string token borrowed from the frame: the raw bytes between the quotes, still
/// escaped. Decoding is lazy and allocation-free when the string has no backslash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JsonStr<'f> {
    raw: &'f str,
    escaped: bool,
}

impl<'f> JsonStr<'f> {
    /// Wraps the raw (between the quotes, already validated) text of a string token.
    pub fn from_raw(raw: &'f str) -> Self {
        Self { raw, escaped: raw.as_bytes().contains(&b'\\') }
    }
    /// The raw text between the quotes, escapes not decoded.
    pub fn raw(&self) -> &'f str {
        self.raw
    }
    /// True when the raw text has at least one backslash escape.
    pub fn has_escapes(&self) -> bool {
        self.escaped
    }
    /// The decoded string (borrowed when there is no escape).
    pub fn decode(&self) -> Cow<'f, str> {
        todo!("core: issue 2")
    }
    /// Compares the decoded value with `s` without allocating.
    pub fn eq_str(&self, s: &str) -> bool {
        let _ = s;
        todo!("core: issue 2")
    }
}

/// A JSON-RPC id as written in the frame (MCP `RequestId` = string | integer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Id<'f> {
    /// A plain integer within ±(2^53−1); `raw` is its exact text (e.g. `"-0"` keeps the sign).
    Int {
        /// The value.
        value: i64,
        /// The exact token text.
        raw: &'f str,
    },
    /// A string id.
    Str(JsonStr<'f>),
    /// `null` (accepted only on error responses, as "no id").
    Null,
}

/// One member of an object (e.g. of `_meta`): the decoded key and the raw value span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member<'f> {
    /// The key, unescaped.
    pub key: Cow<'f, str>,
    /// The raw key token (between the quotes) for offsets and diagnostics.
    pub key_span: Span,
    /// The raw JSON value.
    pub value: Span,
}

/// The recorded spans of one frame. `Copy`; pairs with a frame to make an [`Envelope`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spans {
    // Filled in by the core implementation.
}

/// A parsed, validated frame: borrowed spans of the envelope members (zero-copy).
#[derive(Clone, Copy, Debug)]
pub struct Envelope<'f> {
    frame: &'f [u8],
    spans: Spans,
}

/// Parses and validates one frame with [`Limits::DEFAULT`] and the best scan for this CPU.
pub fn parse(frame: &[u8]) -> Result<Envelope<'_>, Error> {
    Parser::new().parse(frame)
}

/// A reusable parser configuration (limits; scan backend chosen at run time).
#[derive(Clone, Copy, Debug, Default)]
pub struct Parser {
    limits: Limits,
}

impl Parser {
    /// Default limits, run-time CPU dispatch.
    pub fn new() -> Self {
        Self { limits: Limits::DEFAULT }
    }
    /// With the given limits.
    pub fn with_limits(limits: Limits) -> Self {
        Self { limits }
    }
    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }
    /// Validates `frame` and records the envelope spans (see the module docs for Ok vs Err).
    pub fn parse<'f>(&self, frame: &'f [u8]) -> Result<Envelope<'f>, Error> {
        let _ = frame;
        todo!("core: issue 2")
    }
}

impl<'f> Envelope<'f> {
    /// The whole frame.
    pub fn frame(&self) -> &'f [u8] {
        self.frame
    }
    /// The recorded spans (to store next to an owned buffer).
    pub fn spans(&self) -> Spans {
        self.spans
    }
    /// Rebuilds an envelope from a frame and spans recorded on that same frame.
    pub fn from_parts(frame: &'f [u8], spans: Spans) -> Self {
        Self { frame, spans }
    }
    /// The message shape.
    pub fn shape(&self) -> Shape {
        todo!("core: issue 2")
    }
    /// Why the shape is [`Shape::Invalid`] (or [`ErrorKind::Batch`] for a batch); `None` for
    /// a valid envelope.
    pub fn invalid_reason(&self) -> Option<Error> {
        todo!("core: issue 2")
    }
}

/// An owned envelope: the frame as [`Bytes`] plus its [`Spans`] (cheap to clone and to send
/// across tasks; the bytes are never copied).
#[derive(Clone, Debug)]
pub struct OwnedEnvelope {
    bytes: Bytes,
    spans: Spans,
}

impl OwnedEnvelope {
    /// Parses `bytes` with `parser`; on error the bytes are handed back with the error.
    pub fn parse(parser: &Parser, bytes: Bytes) -> Result<Self, (Bytes, Error)> {
        match parser.parse(&bytes) {
            Ok(env) => {
                let spans = env.spans();
                Ok(Self { bytes, spans })
            }
            Err(e) => Err((bytes, e)),
        }
    }
    /// The frame bytes.
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }
    /// A borrowed view.
    pub fn envelope(&self) -> Envelope<'_> {
        Envelope::from_parts(&self.bytes, self.spans)
    }
}

#[allow(dead_code)]
fn _kinds_used() -> ErrorKind {
    ErrorKind::Empty
}
