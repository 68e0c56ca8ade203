//! The envelope layer: a validating walk over a frame that records byte spans of the
//! JSON-RPC envelope members without building a DOM.
//!
//! * [`parse`] / [`Parser::parse`]: `Err(Error)` when the frame is not well-formed JSON
//!   (-32700 kinds), exceeds a limit, or has a duplicate key the strictness policy rejects:
//!   an envelope member (`duplicate-key`, -32600) or a `_meta` key (`duplicate-meta-key`,
//!   -32602). Any other well-formed frame gives `Ok(Envelope)`; when it is not a valid
//!   JSON-RPC envelope its [`Envelope::shape`] is [`Shape::Invalid`] and
//!   [`Envelope::invalid_reason`] says why (a -32600 kind, or `meta-not-object`, -32602),
//!   while every span that could be read is still available (so an error reply can echo
//!   the id).
//! * Spans are byte ranges into the frame. Value spans cover the raw JSON value (strings
//!   include their quotes).
//!
//! Accessors (all on `Envelope<'f>`): the span accessors are O(1); the typed accessors of
//! strings (`jsonrpc`, `id`, `id_raw`, `method`, `error_message`, `result_type`, the
//! `params_name`/`params_uri` text) re-read the token on each call, O(token length) (one
//! 8-byte word pass to prove ASCII, a UTF-8 check otherwise), so a caller that reads one many
//! times keeps the result; iterators are O(members):
//!
//! * spans, `-> Option<Span>`: `jsonrpc_span`, `id_span`, `method_span`, `params_span`,
//!   `result_span`, `error_span`, `error_code_span`, `error_message_span`, `error_data_span`,
//!   `result_type_span` (`result.resultType`), `params_meta_span`, `result_meta_span`,
//!   `params_name_span` (`params.name`), `params_uri_span` (`params.uri`),
//!   `case_variant_key` (first depth-1 key equal to an envelope key only under ASCII case
//!   folding, e.g. `"Method"`), `member_case_variant_key` (the same for the inspected members
//!   of `params`, `result` and `error`, e.g. `"Name"` in params).
//! * typed: `id() -> Option<Id<'f>>`, `id_raw() -> Option<&'f str>` (exact JSON text),
//!   `method() -> Option<JsonStr<'f>>`, `params()/result()/error() -> Option<&'f [u8]>`,
//!   `error_code() -> Option<i64>`, `error_message() -> Option<JsonStr<'f>>`,
//!   `result_type() -> Option<JsonStr<'f>>`, `params_meta()/result_meta()/meta() ->
//!   Option<Members<'f>>` (iterator of [`Member`]; `meta()` = params._meta for requests and
//!   notifications, result._meta for results; O(members)).
//! * `batch_elements() -> Option<Elements<'f>>` for [`Shape::Batch`] (iterator of element
//!   spans; each element is parsed on its own).
//! * free function `recover_id(frame) -> Option<Span>` / [`Parser::recover_id`]: the depth-1
//!   `id` of a frame that `parse` rejected only by the duplicate-key policy (for error
//!   replies); `None` unless the frame is otherwise well-formed and has exactly one valid id.
//! * free function `members(frame, object_span) -> Members<'f>`: iterate the depth-1 members
//!   of any object value inside an already validated frame (`params.arguments`,
//!   `result.ttlMs`, …). It yields every member as written, a repeated key as often as it is
//!   repeated: a gateway that applies policy to a member must check that its key is not
//!   repeated (a last-wins backend reads the last copy), or use `params_value`, which
//!   rejects repeated keys.
//! * `params_value(&self, scratch: &mut Vec<u8>) -> Result<Option<simd_json::BorrowedValue<'_>>,
//!   Error>`: optional full decode of `params` through simd-json (`Ok(None)` without
//!   `params`; `duplicate-params-key`, -32602, for a repeated key anywhere inside it).
//!
//! Ids compare by their raw JSON text: `Id`s and `id_raw()`s of `"a"` and `"\u0061"` are not
//! equal, though both decode to `a` (JSON-RPC asks the reply to echo the id as sent). Use
//! [`JsonStr::decode`] on `Id::Str` to compare decoded ids. The profile layer's request
//! tracker does: it keys ids by their decoded value, so a response with id `"\u0061"`
//! answers the request with id `"a"` (what a backend that decodes the JSON sees).

use std::borrow::Cow;
use std::ops::Range;

use bytes::Bytes;

use crate::error::{Error, ErrorKind};
use crate::scan::Backend;
use crate::scan::cursor::{Cursor, StrTok};
use crate::scan::text::{find_quote_or_backslash, literal_text, plain_int_text, token_text};

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
        assert!(
            start <= end && end <= u32::MAX as usize,
            "bad span {start}..{end}"
        );
        Self {
            start: start as u32,
            end: end as u32,
        }
    }
    /// A span from the walk, whose offsets are inside a frame already checked to be at
    /// most `u32::MAX` bytes long (no check in release builds).
    #[inline(always)]
    fn at(start: usize, end: usize) -> Self {
        debug_assert!(start <= end && end <= u32::MAX as usize);
        Self {
            start: start as u32,
            end: end as u32,
        }
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
    pub const DEFAULT: Limits = Limits {
        max_depth: 128,
        max_number_len: 1024,
        max_frame_len: 4 * 1024 * 1024,
    };
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

/// Writes the stable [`name`](Shape::name), e.g. `request`.
impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
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
        Self {
            raw,
            escaped: raw.as_bytes().contains(&b'\\'),
        }
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
    ///
    /// Escapes are decoded per RFC 8259 §7 (a `\u` surrogate pair becomes one code point;
    /// `\u0000` stays a NUL character). Text that was not validated by the parser (e.g. a
    /// lone surrogate passed to [`JsonStr::from_raw`]) decodes to U+FFFD; this never panics.
    #[inline]
    pub fn decode(&self) -> Cow<'f, str> {
        if !self.escaped {
            return Cow::Borrowed(self.raw);
        }
        self.decode_escaped()
    }

    #[inline(never)]
    fn decode_escaped(&self) -> Cow<'f, str> {
        let mut out = String::with_capacity(self.raw.len());
        for piece in Unescape::new(self.raw.as_bytes()) {
            match piece {
                Piece::Run(r) => out.push_str(std::str::from_utf8(r).unwrap_or("\u{fffd}")),
                Piece::Char(c) => out.push(c),
            }
        }
        Cow::Owned(out)
    }
    /// Compares the decoded value with `s` without allocating.
    pub fn eq_str(&self, s: &str) -> bool {
        eq_decoded(self.raw.as_bytes(), self.escaped, s.as_bytes())
    }
}

/// One piece of a decoded string: a run of raw bytes without escapes, or one escaped char.
enum Piece<'a> {
    Run(&'a [u8]),
    Char(char),
}

/// Iterator decoding the raw text of a (validated) string token into [`Piece`]s.
struct Unescape<'a> {
    raw: &'a [u8],
    pos: usize,
}

impl<'a> Unescape<'a> {
    fn new(raw: &'a [u8]) -> Self {
        Self { raw, pos: 0 }
    }
    fn hex(&self, at: usize) -> Option<u32> {
        let h = self.raw.get(at..at + 4)?;
        let s = std::str::from_utf8(h).ok()?;
        u32::from_str_radix(s, 16)
            .ok()
            .filter(|_| h.iter().all(u8::is_ascii_hexdigit))
    }
}

impl<'a> Iterator for Unescape<'a> {
    type Item = Piece<'a>;
    fn next(&mut self) -> Option<Piece<'a>> {
        let rest = self.raw.get(self.pos..)?;
        if rest.is_empty() {
            return None;
        }
        if rest[0] != b'\\' {
            let n = memchr::memchr(b'\\', rest).unwrap_or(rest.len());
            self.pos += n;
            return Some(Piece::Run(&rest[..n]));
        }
        let c = match rest.get(1) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                let at = self.pos + 2;
                let Some(u) = self.hex(at) else {
                    self.pos = self.raw.len();
                    return Some(Piece::Char('\u{fffd}'));
                };
                if (0xD800..0xDC00).contains(&u)
                    && self.raw.get(at + 4) == Some(&b'\\')
                    && self.raw.get(at + 5) == Some(&b'u')
                    && let Some(lo) = self.hex(at + 6).filter(|l| (0xDC00..0xE000).contains(l))
                {
                    self.pos = at + 10;
                    let cp = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                    return Some(Piece::Char(char::from_u32(cp).unwrap_or('\u{fffd}')));
                }
                self.pos = at + 4;
                return Some(Piece::Char(char::from_u32(u).unwrap_or('\u{fffd}')));
            }
            _ => '\u{fffd}',
        };
        self.pos += 2;
        Some(Piece::Char(c))
    }
}

/// True when the raw string text `raw` (escaped when `escaped`) decodes to exactly `want`.
fn eq_decoded(raw: &[u8], escaped: bool, want: &[u8]) -> bool {
    if !escaped {
        return raw == want;
    }
    let mut rest = want;
    for piece in Unescape::new(raw) {
        match piece {
            Piece::Run(r) => match rest.strip_prefix(r) {
                Some(t) => rest = t,
                None => return false,
            },
            Piece::Char(c) => {
                let mut b = [0u8; 4];
                match rest.strip_prefix(c.encode_utf8(&mut b).as_bytes()) {
                    Some(t) => rest = t,
                    None => return false,
                }
            }
        }
    }
    rest.is_empty()
}

/// Decodes the raw text of a string token into bytes (for key comparison on the slow path).
fn decode_bytes(raw: &[u8], escaped: bool) -> Cow<'_, [u8]> {
    if !escaped {
        return Cow::Borrowed(raw);
    }
    let mut out = Vec::with_capacity(raw.len());
    for piece in Unescape::new(raw) {
        match piece {
            Piece::Run(r) => out.extend_from_slice(r),
            Piece::Char(c) => out.extend_from_slice(c.encode_utf8(&mut [0u8; 4]).as_bytes()),
        }
    }
    Cow::Owned(out)
}

/// A JSON-RPC id as written in the frame (MCP `RequestId` = string | integer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Id<'f> {
    /// A plain integer within ±(2^53−1) (`-0` is rejected: serde_json reads it as a float);
    /// `raw` is its exact text.
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

/// An optional span in 8 bytes (`start == u32::MAX` means absent: no value span of a frame
/// of at most `u32::MAX` bytes can start there and be non-empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    start: u32,
    end: u32,
}

impl Slot {
    const NONE: Slot = Slot {
        start: u32::MAX,
        end: u32::MAX,
    };
    #[inline]
    fn new(s: Option<Span>) -> Slot {
        match s {
            Some(s) => Slot {
                start: s.start,
                end: s.end,
            },
            None => Slot::NONE,
        }
    }
    /// The first byte of the slot's value in `frame`; `None` for an empty slot, whose start
    /// (`u32::MAX`) is past the end of every frame the walk accepts (at most `u32::MAX`
    /// bytes). Only for such frames: [`classify`] runs on them alone.
    #[inline]
    fn first_byte(self, frame: &[u8]) -> Option<u8> {
        frame.get(self.start as usize).copied()
    }
    #[inline]
    fn get(self) -> Option<Span> {
        (self.start != u32::MAX).then_some(Span {
            start: self.start,
            end: self.end,
        })
    }
}

/// The recorded spans of one frame. `Copy`; pairs with a frame to make an [`Envelope`].
///
/// Produced by [`Parser::parse`]; every span is a byte range of the frame it was recorded
/// on (pairing it with another frame gives meaningless but never unsafe results: accessors
/// return `None` for spans out of bounds or not on a valid token).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spans {
    jsonrpc: Slot,
    id: Slot,
    method: Slot,
    params: Slot,
    result: Slot,
    error: Slot,
    error_code: Slot,
    error_message: Slot,
    error_data: Slot,
    result_type: Slot,
    params_meta: Slot,
    result_meta: Slot,
    params_name: Slot,
    params_uri: Slot,
    case_variant_key: Slot,
    member_case_variant: Slot,
    /// Bit [`esc_bit`] of a string member's slot: the walk found a backslash escape in it.
    escaped: u16,
    /// The root value (for a batch: the array).
    root: Span,
    shape: Shape,
    invalid: Option<Error>,
}

impl Default for Spans {
    fn default() -> Self {
        Self {
            jsonrpc: Slot::NONE,
            id: Slot::NONE,
            method: Slot::NONE,
            params: Slot::NONE,
            result: Slot::NONE,
            error: Slot::NONE,
            error_code: Slot::NONE,
            error_message: Slot::NONE,
            error_data: Slot::NONE,
            result_type: Slot::NONE,
            params_meta: Slot::NONE,
            result_meta: Slot::NONE,
            params_name: Slot::NONE,
            params_uri: Slot::NONE,
            case_variant_key: Slot::NONE,
            member_case_variant: Slot::NONE,
            root: Span::default(),
            escaped: 0,
            shape: Shape::Invalid,
            invalid: None,
        }
    }
}

/// A parsed, validated frame: borrowed spans of the envelope members (zero-copy).
#[derive(Clone, Copy)]
pub struct Envelope<'f> {
    frame: &'f [u8],
    /// The same frame as text, when this envelope's walk accepted it (a frame the walk
    /// accepts is valid UTF-8 as a whole): string members are then sliced from it without a
    /// second pass over their bytes. `None` for [`Envelope::from_parts`], whose spans may
    /// have been recorded on another frame.
    text: Option<&'f str>,
    spans: Spans,
}

impl std::fmt::Debug for Envelope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Envelope")
            .field("frame", &self.frame)
            .field("spans", &self.spans)
            .finish()
    }
}

/// Parses and validates one frame with [`Limits::DEFAULT`] and the best scan for this CPU.
///
/// See the module docs for what is an `Err` and what is `Ok` with [`Shape::Invalid`].
pub fn parse(frame: &[u8]) -> Result<Envelope<'_>, Error> {
    Parser::new().parse(frame)
}

/// Recovers the request id of a frame that [`parse`] rejected, so that an error reply can
/// still echo it (JSON-RPC 2.0 §5: the response id is the request's id when it could be
/// read), with [`Limits::DEFAULT`] and the best scan for this CPU.
///
/// See [`Parser::recover_id`] for exactly when a span is returned.
pub fn recover_id(frame: &[u8]) -> Option<Span> {
    Parser::new().recover_id(frame)
}

/// [`recover_id`] for a frame meant as a request (it has a depth-1 `method` member), with
/// [`Limits::DEFAULT`]: the id an error reply to the frame may echo. See
/// [`Parser::recover_request_id`].
pub fn recover_request_id(frame: &[u8]) -> Option<Span> {
    Parser::new().recover_request_id(frame)
}

/// A reusable parser configuration (limits; scan backend chosen at run time).
#[derive(Clone, Copy, Debug)]
pub struct Parser {
    limits: Limits,
    backend: Backend,
}

impl Default for Parser {
    fn default() -> Self {
        Self::new()
    }
}

/// Names of the depth-1 members the walk records, in bit order.
const TOP_KEYS: [&[u8]; 6] = [b"jsonrpc", b"id", b"method", b"params", b"result", b"error"];
const K_JSONRPC: usize = 0;
/// The `jsonrpc` member as compact frames write it (JSON-RPC 2.0 §4).
const JSONRPC_MEMBER: &[u8] = br#""jsonrpc":"2.0""#;
const K_ID: usize = 1;
const K_METHOD: usize = 2;
const K_PARAMS: usize = 3;
const K_RESULT: usize = 4;
const K_ERROR: usize = 5;

/// The bit of [`Spans`]'s `escaped` for a string member: depth-1 key `i` (`K_*`) of the
/// envelope (`inner` = `None`), or member `i` ([`Inner::keys`] order) of `params` (`W` 0),
/// `result` (1) or `error` (2).
const fn esc_bit(inner: Option<u8>, i: usize) -> u16 {
    match inner {
        None => 1 << i,
        Some(w) => 1 << (6 + 3 * w as usize + i),
    }
}
/// [`esc_bit`] of `params.name`, `params.uri`, `result.resultType` and `error.message`
/// (their places in [`Inner::keys`]; checked by the test `esc_bits_follow_inner_keys`).
const ESC_PARAMS_NAME: u16 = esc_bit(Some(0), 0);
const ESC_PARAMS_URI: u16 = esc_bit(Some(0), 1);
const ESC_RESULT_TYPE: u16 = esc_bit(Some(1), 0);
const ESC_ERROR_MESSAGE: u16 = esc_bit(Some(2), 1);
// Three bits per depth-2 object: a fourth inspected member would take another object's bit.
const _: () = assert!(
    Inner::Params.keys().len() <= 3
        && Inner::Result.keys().len() <= 3
        && Inner::Error.keys().len() <= 3
        && TOP_KEYS.len() <= 6
);

/// Which depth-2 object the walk is inside.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Inner {
    Params,
    Result,
    Error,
}

impl Inner {
    const fn keys(self) -> &'static [&'static [u8]] {
        match self {
            Inner::Params => &[b"name", b"uri", b"_meta"],
            Inner::Result => &[b"resultType", b"_meta"],
            Inner::Error => &[b"code", b"message", b"data"],
        }
    }
    /// [`Inner::keys`] lookup on raw key bytes.
    #[inline(always)]
    fn exact(self, raw: &[u8]) -> Option<usize> {
        match (self, raw) {
            (Inner::Params, b"name") | (Inner::Result, b"resultType") | (Inner::Error, b"code") => {
                Some(0)
            }
            (Inner::Params, b"uri") | (Inner::Result, b"_meta") | (Inner::Error, b"message") => {
                Some(1)
            }
            (Inner::Params, b"_meta") | (Inner::Error, b"data") => Some(2),
            _ => None,
        }
    }
    fn meta_index(self) -> Option<usize> {
        match self {
            Inner::Params => Some(2),
            Inner::Result => Some(1),
            Inner::Error => None,
        }
    }
    fn slot(self, spans: &mut Spans, i: usize) -> &mut Slot {
        match (self, i) {
            (Inner::Params, 0) => &mut spans.params_name,
            (Inner::Params, 1) => &mut spans.params_uri,
            (Inner::Params, _) => &mut spans.params_meta,
            (Inner::Result, 0) => &mut spans.result_type,
            (Inner::Result, _) => &mut spans.result_meta,
            (Inner::Error, 0) => &mut spans.error_code,
            (Inner::Error, 1) => &mut spans.error_message,
            (Inner::Error, _) => &mut spans.error_data,
        }
    }
}

/// Index of the key token `k` in `names`, compared after unescaping. `exact` is the same
/// lookup on raw (unescaped) key bytes, written as a `match` on byte-string patterns so it
/// compiles to a length switch plus one or two word compares.
#[inline(always)]
fn key_index(
    frame: &[u8],
    k: StrTok,
    names: &[&[u8]],
    exact: impl Fn(&[u8]) -> Option<usize>,
) -> Option<usize> {
    let raw = &frame[k.start..k.end];
    if !k.escaped {
        exact(raw)
    } else {
        names.iter().position(|n| eq_decoded(raw, true, n))
    }
}

/// Recognises a compact envelope key with its colon at `at` (the opening quote) from the
/// 8 bytes there: `"id":`, `"error":`, `"method":`, `"params":`, `"result":` (the last three
/// also check the ninth byte). Returns the key's index in [`TOP_KEYS`] and the length of the
/// key token plus colon (bytes); `None` for anything else, including escaped or spaced keys,
/// which the key scan then reads.
#[inline(always)]
fn top_key_word(frame: &[u8], at: usize) -> Option<(usize, usize)> {
    const fn word(b: &[u8]) -> u64 {
        let mut w = [0u8; 8];
        let mut i = 0;
        while i < b.len() && i < 8 {
            w[i] = b[i];
            i += 1;
        }
        u64::from_le_bytes(w)
    }
    const ID: u64 = word(br#""id":"#);
    const ERROR: u64 = word(br#""error":"#);
    const METHOD: u64 = word(br#""method""#);
    const PARAMS: u64 = word(br#""params""#);
    const RESULT: u64 = word(br#""result""#);
    let w = u64::from_le_bytes(frame.get(at..at + 8)?.try_into().ok()?);
    if w & 0xFF_FFFF_FFFF == ID {
        return Some((K_ID, 5));
    }
    if w == ERROR {
        return Some((K_ERROR, 8));
    }
    let i = match w {
        METHOD => K_METHOD,
        PARAMS => K_PARAMS,
        RESULT => K_RESULT,
        _ => return None,
    };
    (frame.get(at + 8) == Some(&b':')).then_some((i, 9))
}

/// [`TOP_KEYS`] lookup on raw key bytes.
#[inline(always)]
fn top_key(raw: &[u8]) -> Option<usize> {
    match raw {
        b"jsonrpc" => Some(K_JSONRPC),
        b"id" => Some(K_ID),
        b"method" => Some(K_METHOD),
        b"params" => Some(K_PARAMS),
        b"result" => Some(K_RESULT),
        b"error" => Some(K_ERROR),
        _ => None,
    }
}

/// Set of key tokens already seen in one object, compared after unescaping. Inline and
/// allocation-free up to 16 keys; beyond that a hash set of decoded keys (slow path, bounded
/// work per key, so millions of keys stay linear).
struct KeySet<'f> {
    frame: &'f [u8],
    /// Key `i`'s raw text is `frame[start..end]` with `small[i] = start | end << 32` (frames
    /// are at most `u32::MAX` bytes); bit `i` of `escaped` says it holds an escape. Packed so
    /// that setting up the set (once per `_meta` object) clears 128 bytes, not 384.
    small: [u64; 16],
    escaped: u16,
    n: usize,
    big: Option<std::collections::HashSet<Cow<'f, [u8]>>>,
}

impl<'f> KeySet<'f> {
    fn new(frame: &'f [u8]) -> Self {
        Self {
            frame,
            small: [0; 16],
            escaped: 0,
            n: 0,
            big: None,
        }
    }
    /// `k`'s raw text range as a word of `small`.
    #[inline(always)]
    fn pack(k: StrTok) -> u64 {
        k.start as u64 | (k.end as u64) << 32
    }
    /// The raw text range `start..end` of a word of `small`.
    #[inline(always)]
    fn unpack(w: u64) -> (usize, usize) {
        (w as u32 as usize, (w >> 32) as usize)
    }
    /// Key `i` of the inline set: its raw text and whether it holds an escape.
    #[inline]
    fn small_key(&self, i: usize) -> (&'f [u8], bool) {
        let (start, end) = Self::unpack(self.small[i]);
        (&self.frame[start..end], self.escaped >> i & 1 == 1)
    }
    /// Adds `k`; false when an equal key was already there.
    #[inline(always)]
    fn insert(&mut self, k: StrTok) -> bool {
        // The first key of an object cannot be a duplicate (most `_meta` objects hold one
        // or two keys): no call for it.
        if self.n == 0 && self.big.is_none() {
            self.small[0] = Self::pack(k);
            self.escaped = u16::from(k.escaped);
            self.n = 1;
            return true;
        }
        // The second key, neither escaped, of another length than the first (the common
        // two-key `_meta`): no duplicate, no call (21 Ir less per small message, with
        // `insert` always inlined: it outgrew the inliner's default; callgrind, session 29).
        if self.n == 1 && self.escaped == 0 && !k.escaped {
            let (start, end) = Self::unpack(self.small[0]);
            if end - start != k.end - k.start {
                self.small[1] = Self::pack(k);
                self.n = 2;
                return true;
            }
        }
        self.insert_more(k)
    }
    /// [`KeySet::insert`] once the set holds a key.
    fn insert_more(&mut self, k: StrTok) -> bool {
        let frame = self.frame;
        if let Some(big) = &mut self.big {
            return big.insert(decode_bytes(&frame[k.start..k.end], k.escaped));
        }
        let raw = &frame[k.start..k.end];
        // No escapes in the set or in `k` (MCP's `_meta` keys): equal keys are equal bytes,
        // so a key of another length is no duplicate and is not read (12 Ir less per small
        // message than the general loop below; callgrind, session 29).
        if self.escaped == 0 && !k.escaped && self.n < self.small.len() {
            for &w in &self.small[..self.n] {
                let (start, end) = Self::unpack(w);
                if end - start == raw.len() && frame.get(start..end) == Some(raw) {
                    return false;
                }
            }
            self.small[self.n] = Self::pack(k);
            self.n += 1;
            return true;
        }
        for i in 0..self.n {
            let (other, o_escaped) = self.small_key(i);
            let same = match (k.escaped, o_escaped) {
                (false, false) => raw == other,
                (true, false) => eq_decoded(raw, true, other),
                (false, true) => eq_decoded(other, true, raw),
                (true, true) => decode_bytes(raw, true) == decode_bytes(other, true),
            };
            if same {
                return false;
            }
        }
        if self.n < self.small.len() {
            self.small[self.n] = Self::pack(k);
            self.escaped |= u16::from(k.escaped) << self.n;
            self.n += 1;
            return true;
        }
        let mut big: std::collections::HashSet<Cow<'f, [u8]>> = (0..self.n)
            .map(|i| {
                let (other, o_escaped) = self.small_key(i);
                decode_bytes(other, o_escaped)
            })
            .collect();
        big.insert(decode_bytes(raw, k.escaped));
        self.big = Some(big);
        true
    }
}

/// Folds a key for the case-variant check: ASCII case and the four non-ASCII characters whose
/// simple case mapping is ASCII, which Go's `encoding/json` folds onto ASCII letters
/// (GHSA-wvj2-96wp-fq3f): U+017F LATIN SMALL LETTER LONG S (`s`), U+212A KELVIN SIGN (`k`),
/// U+0130 LATIN CAPITAL LETTER I WITH DOT ABOVE and U+0131 LATIN SMALL LETTER DOTLESS I (`i`;
/// adversarial trial: `"ıd"`, `"urİ"`).
pub(crate) fn folds_to(key: &[u8], name: &[u8]) -> bool {
    let Ok(s) = std::str::from_utf8(key) else {
        return false;
    };
    let mut it = name.iter();
    for c in s.chars() {
        let f = match c {
            '\u{17f}' => 's',
            '\u{212a}' => 'k',
            '\u{130}' | '\u{131}' => 'i',
            c => c.to_ascii_lowercase(),
        };
        match it.next() {
            Some(&n) if f as u32 == n.to_ascii_lowercase() as u32 => {}
            _ => return false,
        }
    }
    it.next().is_none()
}

impl Parser {
    /// Default limits, run-time CPU dispatch ([`Backend::detect`]).
    pub fn new() -> Self {
        Self {
            limits: Limits::DEFAULT,
            backend: Backend::detect(),
        }
    }
    /// With the given limits.
    pub fn with_limits(limits: Limits) -> Self {
        Self {
            limits,
            backend: Backend::detect(),
        }
    }
    /// The same configuration with the scan forced to `backend` (for tests, fuzzing and
    /// benchmarks; results are identical for every backend). A backend this CPU cannot run
    /// falls back to [`Backend::Scalar`], so this never executes an unsupported instruction.
    pub fn with_backend(self, backend: Backend) -> Self {
        Self {
            backend: backend.checked(),
            ..self
        }
    }
    /// The scan backend in use.
    pub fn backend(&self) -> Backend {
        self.backend
    }
    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }
    /// Validates `frame` and records the envelope spans (see the module docs for Ok vs Err).
    ///
    /// One front-to-back pass; no heap allocation unless a key has escapes or an object has
    /// more than 16 keys whose duplicates must be checked. Error offsets are bytes from the
    /// start of `frame`.
    #[inline]
    pub fn parse<'f>(&self, frame: &'f [u8]) -> Result<Envelope<'f>, Error> {
        let mut env = Envelope {
            frame,
            text: None,
            spans: Spans::default(),
        };
        env.text = Some(self.walk(frame, &mut env.spans)?);
        Ok(env)
    }

    /// Recovers the span of the depth-1 `id` value (quotes included for a string) of a frame
    /// that [`Parser::parse`] rejected only because of the duplicate-key policy (a
    /// duplicated `method`, `params`, `_meta` key, …), so that a gateway can echo the id in
    /// its -32600 error reply.
    ///
    /// Returns `Some` only when all of these hold; otherwise `None` (it never guesses):
    ///
    /// * the frame is well-formed JSON (RFC 8259 + UTF-8, nothing after the root value)
    ///   within this parser's [`Limits`] — duplicate keys anywhere are allowed;
    /// * the root value is an object with exactly one depth-1 `id` member (keys compared
    ///   after unescaping, so `"i\u0064"` counts; two `id` members give `None`);
    /// * its value is a valid id: a string, or a plain integer within ±(2^53−1) (not
    ///   `null`, a float, an exponent, a bool, an object or an array).
    ///
    /// For a frame that [`Parser::parse`] accepts it gives the same span as
    /// [`Envelope::id_span`] when that id is a valid string or integer id. The frame is read
    /// once, front to back; no allocation unless a key has escapes.
    pub fn recover_id(&self, frame: &[u8]) -> Option<Span> {
        self.recover(frame).map(|(id, _)| id)
    }

    /// [`Parser::recover_id`], for a frame that also has a depth-1 `method` member (any
    /// value): a request (or one meant as such), never a response. Error replies echo only
    /// such an id: a reply carrying a response's id would read, to its receiver, as the
    /// answer to its own request with that id.
    pub fn recover_request_id(&self, frame: &[u8]) -> Option<Span> {
        self.recover(frame)
            .and_then(|(id, method)| method.then_some(id))
    }

    /// The id of a rejected *response*, for replacing it so that the request it answered
    /// does not wait forever: [`Parser::recover_id`] when that reads one (and the frame has
    /// no depth-1 `method`), else the id of a frame rejected for its *content* — invalid
    /// UTF-8, a raw control character or a bad escape in a string, a number out of range, a
    /// value nested too deep — whose structure is intact.
    ///
    /// The second case reads the frame by its structure alone (strings to their closing
    /// quote, brackets matched, depth-1 scalars checked to be a literal or number characters;
    /// nothing inside strings or nested values is checked) and returns `Some` only when all
    /// of these hold (hostile trial, session 14: a server's result with one Latin-1 byte was
    /// dropped, and the client's request waited forever):
    ///
    /// * [`Parser::parse`]'s error is a content error: `invalid-utf8`, `control-character`,
    ///   `invalid-escape`, `lone-surrogate`, `number-out-of-range`, `number-too-long` or
    ///   `depth-limit` (everything before it is valid JSON);
    /// * the root value is an object that closes, with nothing but whitespace after it, and
    ///   every depth-1 member is a string key, a colon and a value;
    /// * exactly one depth-1 key is `id` (compared after unescaping) and none is `method`
    ///   (a request is never taken for a response);
    /// * the `id` value is a valid id on its own: a string (valid UTF-8 and escapes) or a
    ///   plain integer within ±(2^53−1).
    ///
    /// Use the span only to settle a request in flight from the other side
    /// ([`Session::settle_rejected_response`](crate::profile::Session::settle_rejected_response),
    /// [`replacement_reply`](crate::profile::replacement_reply)); never to answer the frame's
    /// sender (JSON-RPC 2.0 §5.1: a parse error is answered with a null id).
    pub fn recover_response_id(&self, frame: &[u8]) -> Option<Span> {
        if let Some((id, method)) = self.recover(frame) {
            return (!method).then_some(id);
        }
        if frame.len() > self.limits.max_frame_len || frame.len() > u32::MAX as usize {
            return None;
        }
        // Only a content error: the parse's first error is inside a string or a number, or
        // is the depth limit. A frame whose first error is in its syntax (an unknown literal,
        // a missing comma, trailing bytes, a cut) gives none (re-trial: `"x":t"method":…`
        // hid a depth-1 `method` inside a bad scalar).
        match self.parse(frame) {
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::InvalidUtf8
                        | ErrorKind::ControlCharacter
                        | ErrorKind::InvalidEscape
                        | ErrorKind::LoneSurrogate
                        | ErrorKind::NumberOutOfRange
                        | ErrorKind::NumberTooLong
                        | ErrorKind::DepthLimit
                ) => {}
            _ => return None,
        }
        let mut i = skip_ws_at(frame, 0);
        if frame.get(i) != Some(&b'{') {
            return None;
        }
        i = skip_ws_at(frame, i + 1);
        let (mut id, mut ids) = (None, 0usize);
        loop {
            if frame.get(i) != Some(&b'"') {
                return None;
            }
            let kend = raw_string_end(frame, i)?;
            let raw = &frame[i + 1..kend - 1];
            let escaped = raw.contains(&b'\\');
            let is = |name: &[u8]| eq_decoded(raw, escaped, name);
            if is(b"method") {
                return None;
            }
            let is_id = is(b"id");
            i = skip_ws_at(frame, kend);
            if frame.get(i) != Some(&b':') {
                return None;
            }
            i = skip_ws_at(frame, i + 1);
            let vend = structural_value_end(frame, i)?;
            if is_id {
                ids += 1;
                id = Some(Span::at(i, vend));
            }
            i = skip_ws_at(frame, vend);
            match frame.get(i) {
                Some(b',') => i = skip_ws_at(frame, i + 1),
                Some(b'}') => break,
                _ => return None,
            }
        }
        if skip_ws_at(frame, i + 1) != frame.len() || ids != 1 {
            return None;
        }
        // The id token on its own must be a valid id (its bytes may hold the content error).
        let span = id?;
        let mut probe = Vec::with_capacity(span.len() + 7);
        probe.extend_from_slice(br#"{"id":"#);
        probe.extend_from_slice(span.slice(frame));
        probe.push(b'}');
        self.recover(&probe).map(|_| span)
    }

    /// The walk behind [`Parser::recover_id`]: the id span, and whether a depth-1 `method`
    /// member is present.
    fn recover(&self, frame: &[u8]) -> Option<(Span, bool)> {
        let l = &self.limits;
        if frame.len() > l.max_frame_len
            || frame.len() > u32::MAX as usize
            || frame.starts_with(&[0xEF, 0xBB, 0xBF])
        {
            return None;
        }
        let mut c = Cursor::new(frame, self.backend, l.max_depth, l.max_number_len);
        if c.next_token().ok()? != b'{' {
            return None;
        }
        c.check_depth(1).ok()?;
        c.pos += 1;
        let mut id: Option<Span> = None;
        let mut ids = 0usize;
        let mut method = false;
        if c.next_token().ok()? == b'}' {
            c.pos += 1;
        } else {
            loop {
                let k = c.key().ok()?;
                let key = key_index(frame, k, &[b"id", b"method"], |r| match r {
                    b"id" => Some(0),
                    b"method" => Some(1),
                    _ => None,
                });
                let is_id = key == Some(0);
                method |= key == Some(1);
                c.next_token().ok()?;
                let start = c.pos;
                c.skip_value(1).ok()?;
                if is_id {
                    ids += 1;
                    id = Some(Span::at(start, c.pos));
                }
                match c.next_token().ok()? {
                    b',' => {
                        c.pos += 1;
                        c.skip_ws();
                    }
                    b'}' => {
                        c.pos += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        c.skip_ws();
        if c.pos != frame.len() || ids != 1 {
            return None;
        }
        let span = id?;
        match id_form(span.slice(frame)) {
            IdForm::Str | IdForm::Int(_) => Some((span, method)),
            IdForm::Null | IdForm::Bad => None,
        }
    }

    /// The validating walk behind [`Parser::parse`]: records `spans` and, for a frame it
    /// accepts, returns the frame as text ([`Cursor::accepted_text`]).
    #[inline(always)]
    fn walk<'f>(&self, frame: &'f [u8], spans: &mut Spans) -> Result<&'f str, Error> {
        let l = &self.limits;
        if frame.len() > l.max_frame_len || frame.len() > u32::MAX as usize {
            return Err(Error::new(
                ErrorKind::FrameTooLarge,
                l.max_frame_len.min(frame.len()),
            ));
        }
        if frame.starts_with(&[0xEF, 0xBB, 0xBF]) {
            return Err(Error::new(ErrorKind::Bom, 0));
        }
        let mut c = Cursor::new(frame, self.backend, l.max_depth, l.max_number_len);
        let Ok(first) = c.next_token() else {
            return Err(Error::new(ErrorKind::Empty, 0));
        };
        let start = c.pos;
        if first == b'{' {
            walk_envelope(&mut c, spans)?;
        } else {
            c.skip_value(0)?;
        }
        spans.root = Span::at(start, c.pos);
        c.skip_ws();
        let Some(text) = c.accepted_text() else {
            return Err(Error::new(ErrorKind::TrailingCharacters, c.pos));
        };
        // A duplicate key is reported only once the whole frame is known to be JSON, so a
        // frame that is not JSON is always -32700 whatever it holds (trial finding).
        if let Some(e) = c.deferred {
            return Err(e);
        }
        classify(frame, spans);
        Ok(text)
    }
}

/// Walks the root object (cursor at `{`), recording depth-1 members.
fn walk_envelope(c: &mut Cursor<'_>, spans: &mut Spans) -> Result<(), Error> {
    let frame = c.buf;
    c.check_depth(1)?;
    c.pos += 1;
    if c.next_token()? == b'}' {
        c.pos += 1;
        return Ok(());
    }
    let mut seen = 0u8;
    // Depth-1 keys other than the envelope keys are rare: set up their duplicate check only
    // when the first one appears.
    let mut others: Option<KeySet<'_>> = None;
    loop {
        let kstart = c.pos;
        // `"jsonrpc":"2.0"` (compact, first of its kind): every message has it, so one
        // 15-byte compare stands in for the key scan, the key lookup and the value scan.
        if seen & 1 << K_JSONRPC == 0
            && frame.get(kstart..kstart + JSONRPC_MEMBER.len()) == Some(JSONRPC_MEMBER)
        {
            seen |= 1 << K_JSONRPC;
            c.pos = kstart + JSONRPC_MEMBER.len();
            spans.jsonrpc = Slot::new(Some(Span::at(c.pos - 5, c.pos)));
            if !c.member_separator()? {
                return Ok(());
            }
            continue;
        }
        // Other envelope keys written compactly (`"id":`, `"method":`, …, first of their
        // kind) are recognised from one 8-byte word; anything else takes the key scan.
        let fast = top_key_word(frame, kstart).filter(|&(i, _)| seen & 1 << i == 0);
        let found = match fast {
            Some((i, len)) => {
                c.pos = kstart + len;
                Some(i)
            }
            None => {
                let k = c.key()?;
                let i = key_index(frame, k, &TOP_KEYS, top_key);
                if i.is_none() {
                    if !others.get_or_insert_with(|| KeySet::new(frame)).insert(k) {
                        c.defer(Error::new(ErrorKind::DuplicateKey, kstart));
                    }
                    if spans.case_variant_key.get().is_none()
                        && is_case_variant(&frame[k.start..k.end], k.escaped, &TOP_KEYS)
                    {
                        spans.case_variant_key = Slot::new(Some(Span::at(k.start, k.end)));
                    }
                }
                i
            }
        };
        match found {
            Some(i) => {
                if seen & 1 << i != 0 {
                    c.defer(Error::new(ErrorKind::DuplicateKey, kstart));
                }
                seen |= 1 << i;
                let v = c.next_token()?;
                let vs = c.pos;
                match (i, v) {
                    (K_PARAMS, b'{') => walk_inner::<0>(c, spans)?,
                    (K_RESULT, b'{') => walk_inner::<1>(c, spans)?,
                    (K_ERROR, b'{') => walk_inner::<2>(c, spans)?,
                    (_, b'"') => {
                        if c.string()?.escaped {
                            spans.escaped |= esc_bit(None, i);
                        }
                    }
                    _ => {
                        c.skip_value(1)?;
                    }
                }
                let span = Some(Span::at(vs, c.pos));
                match i {
                    K_JSONRPC => spans.jsonrpc = Slot::new(span),
                    K_ID => spans.id = Slot::new(span),
                    K_METHOD => spans.method = Slot::new(span),
                    K_PARAMS => spans.params = Slot::new(span),
                    K_RESULT => spans.result = Slot::new(span),
                    _ => spans.error = Slot::new(span),
                }
            }
            None => {
                c.skip_value(1)?;
            }
        }
        if !c.member_separator()? {
            return Ok(());
        }
    }
}

/// Walks `params`, `result` or `error` (cursor at `{`, depth 2), recording its inspected
/// members and rejecting duplicates of those.
///
/// `W` selects the object (0 `params`, 1 `result`, 2 `error`) at compile time so that each
/// instance's key lookup is specialised.
fn walk_inner<const W: u8>(c: &mut Cursor<'_>, spans: &mut Spans) -> Result<(), Error> {
    let which = match W {
        0 => Inner::Params,
        1 => Inner::Result,
        _ => Inner::Error,
    };
    let frame = c.buf;
    c.check_depth(2)?;
    c.pos += 1;
    if c.next_token()? == b'}' {
        c.pos += 1;
        return Ok(());
    }
    let names = which.keys();
    let mut seen = 0u8;
    loop {
        let kstart = c.pos;
        let k = c.key()?;
        match key_index(frame, k, names, |r| which.exact(r)) {
            Some(i) => {
                if seen & 1 << i != 0 {
                    let kind = match which {
                        Inner::Params => ErrorKind::DuplicateParamsKey,
                        _ => ErrorKind::DuplicateKey,
                    };
                    c.defer(Error::new(kind, kstart));
                }
                seen |= 1 << i;
                let v = c.next_token()?;
                let vs = c.pos;
                if v == b'"' {
                    if c.string()?.escaped {
                        spans.escaped |= esc_bit(Some(W), i);
                    }
                } else if v == b'{' && which.meta_index() == Some(i) {
                    walk_meta(c)?;
                } else {
                    c.skip_value(2)?;
                }
                *which.slot(spans, i) = Slot::new(Some(Span::at(vs, c.pos)));
            }
            None => {
                // A case variant starts with its name's first letter in either case (none of
                // the names starts with `i`, `s` or `k`, the letters with non-ASCII folds),
                // so this one-byte test rules out almost every other key; escaped keys are
                // decoded first.
                let first = frame.get(k.start).map(u8::to_ascii_lowercase);
                let maybe = first.is_some_and(|f| names.iter().any(|n| n.first() == Some(&f)));
                if (maybe && k.end > k.start || k.escaped)
                    && spans.member_case_variant.get().is_none()
                    && is_case_variant(&frame[k.start..k.end], k.escaped, names)
                {
                    spans.member_case_variant = Slot::new(Some(Span::at(k.start, k.end)));
                }
                c.skip_value(2)?;
            }
        }
        if !c.member_separator()? {
            return Ok(());
        }
    }
}

/// True when the raw key text `raw` (between the quotes; `escaped` when it holds escapes)
/// equals one of `names` under case folding but is not one of them (the caller has already
/// compared it exactly). Plain ASCII keys (the common case) cost a length test per name and
/// at most one case-insensitive compare; others are decoded and folded by [`folds_to`].
#[inline(never)]
fn is_case_variant(raw: &[u8], escaped: bool, names: &[&[u8]]) -> bool {
    if !escaped && raw.is_ascii() {
        return names
            .iter()
            .any(|n| n.len() == raw.len() && raw.eq_ignore_ascii_case(n));
    }
    let key = decode_bytes(raw, escaped);
    names.iter().any(|n| folds_to(&key, n))
}

/// The opening quote and the reserved prefix of MCP's own `_meta` keys.
const META_PREFIX: &[u8] = b"\"io.modelcontextprotocol/";

/// Walks a `_meta` object (cursor at `{`, depth 3), rejecting duplicate keys.
fn walk_meta(c: &mut Cursor<'_>) -> Result<(), Error> {
    c.check_depth(3)?;
    c.pos += 1;
    if c.next_token()? == b'}' {
        c.pos += 1;
        return Ok(());
    }
    let mut keys = KeySet::new(c.buf);
    loop {
        let kstart = c.pos;
        // Keys under the prefix MCP reserves (`io.modelcontextprotocol/protocolVersion`,
        // `…/clientCapabilities`, spec digest §4.2) are 40-odd bytes: compare the prefix as
        // a constant and scan only the rest.
        let plain = if c.buf.get(kstart..kstart + META_PREFIX.len()) == Some(META_PREFIX) {
            META_PREFIX.len() - 1
        } else {
            0
        };
        let k = c.key_after(plain)?;
        if !keys.insert(k) {
            c.defer(Error::new(ErrorKind::DuplicateMetaKey, kstart));
        }
        c.skip_value(3)?;
        if !c.member_separator()? {
            return Ok(());
        }
    }
}

/// The form of an id token.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum IdForm {
    Str,
    Int(i64),
    Null,
    Bad,
}

/// Largest id magnitude: 2^53 − 1 (I-JSON, RFC 7493 §2.2).
const MAX_SAFE_INT: i64 = (1 << 53) - 1;

/// Parses a plain integer token `-?(0|[1-9][0-9]*)` with at most 18 digits (`-0` is not
/// one: see [`plain_int_text`]).
#[inline]
fn plain_int(raw: &[u8]) -> Option<i64> {
    plain_int_text(raw).map(|(v, _)| v)
}

/// An integer id token: a plain integer within ±(2^53−1); its value and text.
#[inline]
fn int_id(raw: &[u8]) -> Option<(i64, &str)> {
    plain_int_text(raw).filter(|(v, _)| (-MAX_SAFE_INT..=MAX_SAFE_INT).contains(v))
}

fn id_form(raw: &[u8]) -> IdForm {
    match raw.first() {
        Some(b'"') => IdForm::Str,
        Some(b'n') => IdForm::Null,
        Some(b'-' | b'0'..=b'9') => int_id(raw).map_or(IdForm::Bad, |(v, _)| IdForm::Int(v)),
        _ => IdForm::Bad,
    }
}

/// Sets `spans.shape` and `spans.invalid` (JSON-RPC 2.0 §4–5; spec digest §2.4).
///
/// Inlined into the walk's one call site: 17 Ir less per small message than a call
/// (callgrind, session 29).
#[inline(always)]
fn classify(frame: &[u8], spans: &mut Spans) {
    let first = |s: Slot| s.first_byte(frame);
    let at = |s: Option<Span>| s.map_or(spans.root.start(), |s| s.start());
    let (shape, why): (Shape, Option<(ErrorKind, usize)>) = 'c: {
        match frame.get(spans.root.start()) {
            Some(b'{') => {}
            Some(b'[') => {
                let empty = Elements::new(frame, spans.root).next().is_none();
                let kind = if empty {
                    ErrorKind::EmptyBatch
                } else {
                    ErrorKind::Batch
                };
                break 'c (Shape::Batch, Some((kind, spans.root.start())));
            }
            _ => {
                break 'c (
                    Shape::Invalid,
                    Some((ErrorKind::NotAnObject, spans.root.start())),
                );
            }
        }
        let Some(v) = spans.jsonrpc.get() else {
            break 'c (
                Shape::Invalid,
                Some((ErrorKind::JsonrpcMissing, spans.root.start())),
            );
        };
        let raw = v.slice(frame);
        if raw != b"\"2.0\""
            && !(raw.len() >= 2
                && raw[0] == b'"'
                && eq_decoded(&raw[1..raw.len() - 1], raw.contains(&b'\\'), b"2.0"))
        {
            break 'c (Shape::Invalid, Some((ErrorKind::JsonrpcVersion, v.start())));
        }
        let id = spans.id.get().map(|s| id_form(s.slice(frame)));
        for (s, kind) in [
            (spans.params_meta, ErrorKind::MetaNotObject),
            (spans.result_meta, ErrorKind::ResultMetaNotObject),
        ] {
            if s.get().is_some() && first(s) != Some(b'{') {
                break 'c (Shape::Invalid, Some((kind, at(s.get()))));
            }
        }
        if spans.method.get().is_some() {
            if first(spans.method) != Some(b'"') {
                break 'c (
                    Shape::Invalid,
                    Some((ErrorKind::MethodNotString, at(spans.method.get()))),
                );
            }
            if spans.result.get().is_some() || spans.error.get().is_some() {
                let s = spans.result.get().or(spans.error.get());
                break 'c (Shape::Invalid, Some((ErrorKind::MethodWithResponse, at(s))));
            }
            if spans.params.get().is_some() && first(spans.params) != Some(b'{') {
                break 'c (
                    Shape::Invalid,
                    Some((ErrorKind::ParamsNotObject, at(spans.params.get()))),
                );
            }
            break 'c match id {
                None => (Shape::Notification, None),
                Some(IdForm::Str | IdForm::Int(_)) => (Shape::Request, None),
                Some(_) => (
                    Shape::Invalid,
                    Some((ErrorKind::InvalidId, at(spans.id.get()))),
                ),
            };
        }
        match (spans.result.get().is_some(), spans.error.get().is_some()) {
            (true, true) => (
                Shape::Invalid,
                Some((ErrorKind::ResultAndError, at(spans.error.get()))),
            ),
            (false, false) => (
                Shape::Invalid,
                Some((ErrorKind::NoShape, spans.root.start())),
            ),
            (true, false) => match id {
                None => (
                    Shape::Invalid,
                    Some((ErrorKind::MissingId, spans.root.start())),
                ),
                Some(IdForm::Null | IdForm::Bad) => (
                    Shape::Invalid,
                    Some((ErrorKind::InvalidId, at(spans.id.get()))),
                ),
                _ if first(spans.result) != Some(b'{') => (
                    Shape::Invalid,
                    Some((ErrorKind::ResultNotObject, at(spans.result.get()))),
                ),
                _ => (Shape::Result, None),
            },
            (false, true) => {
                let code_ok = spans
                    .error_code
                    .get()
                    .is_some_and(|s| plain_int(s.slice(frame)).is_some() || is_i64(s.slice(frame)));
                let msg_ok = first(spans.error_message) == Some(b'"');
                if first(spans.error) != Some(b'{') || !code_ok || !msg_ok {
                    // At the member that is wrong, when it is there (spec trial, session 22:
                    // always the `error` object's start); at the object when it is missing.
                    let bad = match (first(spans.error) == Some(b'{'), code_ok) {
                        (false, _) => None,
                        (true, false) => spans.error_code.get(),
                        (true, true) => spans.error_message.get(),
                    };
                    (
                        Shape::Invalid,
                        Some((ErrorKind::InvalidErrorObject, at(bad.or(spans.error.get())))),
                    )
                } else if id == Some(IdForm::Bad) {
                    (
                        Shape::Invalid,
                        Some((ErrorKind::InvalidId, at(spans.id.get()))),
                    )
                } else {
                    (Shape::Error, None)
                }
            }
        }
    };
    spans.shape = shape;
    spans.invalid = why.map(|(k, o)| Error::new(k, o));
}

/// True when `raw` is a plain integer token that fits an `i64` (19-digit case).
fn is_i64(raw: &[u8]) -> bool {
    parse_i64(raw).is_some()
}

/// Parses a plain integer token `-?(0|[1-9][0-9]*)` that fits an `i64`.
fn parse_i64(raw: &[u8]) -> Option<i64> {
    if let Some(v) = plain_int(raw) {
        return Some(v);
    }
    if raw == b"-0" {
        return None; // a float to serde_json (fuzz finding F1)
    }
    let digits = raw.strip_prefix(b"-").unwrap_or(raw);
    if digits.is_empty()
        || (digits[0] == b'0' && digits.len() > 1)
        || !digits.iter().all(u8::is_ascii_digit)
    {
        return None;
    }
    std::str::from_utf8(raw).ok()?.parse::<i64>().ok()
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
    ///
    /// Its accessors give what the parsed envelope gave, but read string members (`method`,
    /// `id`, …) from the bytes again (UTF-8 and escapes), where the envelope [`Parser::parse`]
    /// returns takes them from its walk: nothing here can tell that the spans belong to
    /// this frame.
    pub fn from_parts(frame: &'f [u8], spans: Spans) -> Self {
        Self {
            frame,
            text: None,
            spans,
        }
    }
    /// The message shape.
    pub fn shape(&self) -> Shape {
        self.spans.shape
    }
    /// Why the shape is [`Shape::Invalid`] (or [`ErrorKind::Batch`] /
    /// [`ErrorKind::EmptyBatch`] for a batch); `None` for a valid envelope. The offset is
    /// the start of the offending member's value (or of the root value when a member is
    /// missing).
    pub fn invalid_reason(&self) -> Option<Error> {
        self.spans.invalid
    }

    /// The span in `slot` when it lies inside the frame (always, for spans recorded on this
    /// frame; spans paired with another frame through [`from_parts`](Self::from_parts) may
    /// not, and are then reported as absent rather than handed out to panic in
    /// [`Span::slice`]).
    #[inline]
    fn in_frame(&self, slot: Slot) -> Option<Span> {
        slot.get().filter(|s| s.end() <= self.frame.len())
    }
    /// The raw bytes of `span`, when it lies inside the frame.
    #[inline]
    fn bytes(&self, span: Option<Span>) -> Option<&'f [u8]> {
        span.and_then(|s| self.frame.get(s.range()))
    }
    /// The string token in `slot` (`None` when it is not a string); `bit` is its
    /// [`esc_bit`].
    ///
    /// For a frame this envelope's walk accepted, the text is sliced from the frame's text
    /// and the escape flag is the walk's (no pass over the bytes); for spans paired with a
    /// frame by [`from_parts`](Self::from_parts), [`token_text`] reads both from the bytes.
    #[inline(always)]
    fn json_str(&self, slot: Slot, bit: u16) -> Option<JsonStr<'f>> {
        let s = slot.get()?;
        let b = self.frame.get(s.range())?;
        if b.len() < 2 || b[0] != b'"' || b[b.len() - 1] != b'"' {
            return None;
        }
        let inner = s.start() + 1..s.end() - 1;
        if let Some(text) = self.text {
            return Some(JsonStr {
                raw: text.get(inner)?,
                escaped: self.spans.escaped & bit != 0,
            });
        }
        let (raw, escaped) = token_text(&self.frame[inner])?;
        Some(JsonStr { raw, escaped })
    }

    /// Span of the depth-1 `jsonrpc` value.
    pub fn jsonrpc_span(&self) -> Option<Span> {
        self.in_frame(self.spans.jsonrpc)
    }
    /// Span of the depth-1 `id` value.
    pub fn id_span(&self) -> Option<Span> {
        self.in_frame(self.spans.id)
    }
    /// Span of the depth-1 `method` value.
    pub fn method_span(&self) -> Option<Span> {
        self.in_frame(self.spans.method)
    }
    /// Span of the depth-1 `params` value.
    pub fn params_span(&self) -> Option<Span> {
        self.in_frame(self.spans.params)
    }
    /// Span of the depth-1 `result` value.
    pub fn result_span(&self) -> Option<Span> {
        self.in_frame(self.spans.result)
    }
    /// Span of the depth-1 `error` value.
    pub fn error_span(&self) -> Option<Span> {
        self.in_frame(self.spans.error)
    }
    /// Span of `error.code` (when `error` is an object with a `code` member).
    pub fn error_code_span(&self) -> Option<Span> {
        self.in_frame(self.spans.error_code)
    }
    /// Span of `error.message`.
    pub fn error_message_span(&self) -> Option<Span> {
        self.in_frame(self.spans.error_message)
    }
    /// Span of `error.data`.
    pub fn error_data_span(&self) -> Option<Span> {
        self.in_frame(self.spans.error_data)
    }
    /// Span of `result.resultType` (MCP 2026-07-28 §3).
    pub fn result_type_span(&self) -> Option<Span> {
        self.in_frame(self.spans.result_type)
    }
    /// Span of `params._meta`.
    pub fn params_meta_span(&self) -> Option<Span> {
        self.in_frame(self.spans.params_meta)
    }
    /// Span of `result._meta`.
    pub fn result_meta_span(&self) -> Option<Span> {
        self.in_frame(self.spans.result_meta)
    }
    /// Span of `params.name` (e.g. the tool of `tools/call`).
    pub fn params_name_span(&self) -> Option<Span> {
        self.in_frame(self.spans.params_name)
    }
    /// Span of `params.uri` (e.g. the resource of `resources/read`).
    pub fn params_uri_span(&self) -> Option<Span> {
        self.in_frame(self.spans.params_uri)
    }
    /// Span of the raw text (between the quotes) of the first depth-1 key that equals an
    /// envelope key (`jsonrpc`, `id`, `method`, `params`, `result`, `error`) only under case
    /// folding (ASCII case, U+017F long s, U+212A Kelvin sign, U+0130/U+0131 dotted and
    /// dotless I), e.g. `"Method"`. Such a key
    /// is a different key under RFC 8259 and is not rejected by the core; the profile layer
    /// flags it (case-insensitive backends would read it as the envelope key).
    pub fn case_variant_key(&self) -> Option<Span> {
        self.in_frame(self.spans.case_variant_key)
    }
    /// Like [`case_variant_key`](Self::case_variant_key) for the members the walk inspects
    /// inside the depth-1 objects: the first key of `params` equal to `name`, `uri` or
    /// `_meta`, of `result` equal to `resultType` or `_meta`, or of `error` equal to `code`,
    /// `message` or `data` only under case folding, e.g. `"Name"` next to `"name"`. Not
    /// rejected by the core; the profile layer flags it (reliability.md class 4).
    pub fn member_case_variant_key(&self) -> Option<Span> {
        self.in_frame(self.spans.member_case_variant)
    }

    /// The id: a string, a plain integer within ±(2^53−1), or `null`; `None` when absent or
    /// of any other form (float, exponent, out of range, bool, object, array — see
    /// [`Envelope::invalid_reason`]; [`Envelope::id_raw`] still gives its text).
    #[inline(always)]
    pub fn id(&self) -> Option<Id<'f>> {
        let raw = self.bytes(self.spans.id.get())?;
        match raw.first()? {
            b'"' => self
                .json_str(self.spans.id, esc_bit(None, K_ID))
                .map(Id::Str),
            b'n' => (raw == b"null").then_some(Id::Null),
            // The value and its text from one pass over the token (`id_form`'s check, then
            // a second pass for the text, cost 18 Ir more per small message; callgrind,
            // session 27).
            _ => int_id(raw).map(|(value, raw)| Id::Int { value, raw }),
        }
    }
    /// The exact JSON text of the id value (e.g. `"\"abc\""`, `"-0"`, `"1.0"`).
    pub fn id_raw(&self) -> Option<&'f str> {
        let span = self.spans.id.get()?;
        match self.text {
            Some(text) => text.get(span.range()),
            None => token_text(self.bytes(Some(span))?).map(|(s, _)| s),
        }
    }
    /// `jsonrpc`, when it is a string.
    #[inline]
    pub fn jsonrpc(&self) -> Option<JsonStr<'f>> {
        // Every valid frame holds `"2.0"` here: one 5-byte compare of the frame's own bytes
        // (quotes included) instead of the text check, which decides every other value.
        // `literal_text` compares the middle three again: passing it the whole token
        // instead measured 12 Ir more per small message (callgrind, session 25 review).
        if let Some(b) = self.bytes(self.spans.jsonrpc.get())
            && b == br#""2.0""#
            && let Some(raw) = literal_text(&b[1..4], "2.0")
        {
            return Some(JsonStr {
                raw,
                escaped: false,
            });
        }
        self.json_str(self.spans.jsonrpc, esc_bit(None, K_JSONRPC))
    }
    /// `method`, when it is a string.
    #[inline]
    pub fn method(&self) -> Option<JsonStr<'f>> {
        self.json_str(self.spans.method, esc_bit(None, K_METHOD))
    }
    /// The raw `params` value.
    pub fn params(&self) -> Option<&'f [u8]> {
        self.bytes(self.spans.params.get())
    }
    /// The raw `result` value.
    pub fn result(&self) -> Option<&'f [u8]> {
        self.bytes(self.spans.result.get())
    }
    /// The raw `error` value.
    pub fn error(&self) -> Option<&'f [u8]> {
        self.bytes(self.spans.error.get())
    }
    /// `error.code`, when it is a plain integer that fits an `i64`.
    pub fn error_code(&self) -> Option<i64> {
        parse_i64(self.bytes(self.spans.error_code.get())?)
    }
    /// `error.message`, when it is a string.
    #[inline]
    pub fn error_message(&self) -> Option<JsonStr<'f>> {
        self.json_str(self.spans.error_message, ESC_ERROR_MESSAGE)
    }
    /// `result.resultType`, when it is a string.
    #[inline]
    pub fn result_type(&self) -> Option<JsonStr<'f>> {
        self.json_str(self.spans.result_type, ESC_RESULT_TYPE)
    }
    /// `params.name`, when it is a string.
    #[inline]
    pub fn params_name(&self) -> Option<JsonStr<'f>> {
        self.json_str(self.spans.params_name, ESC_PARAMS_NAME)
    }
    /// `params.uri`, when it is a string.
    #[inline]
    pub fn params_uri(&self) -> Option<JsonStr<'f>> {
        self.json_str(self.spans.params_uri, ESC_PARAMS_URI)
    }
    /// Members of `params._meta` (when it is an object).
    pub fn params_meta(&self) -> Option<Members<'f>> {
        self.object_members(self.spans.params_meta.get())
    }
    /// Members of `result._meta` (when it is an object).
    pub fn result_meta(&self) -> Option<Members<'f>> {
        self.object_members(self.spans.result_meta.get())
    }
    /// The message's `_meta`: `params._meta` for requests and notifications, `result._meta`
    /// for results, `None` otherwise.
    pub fn meta(&self) -> Option<Members<'f>> {
        match self.shape() {
            Shape::Request | Shape::Notification => self.params_meta(),
            Shape::Result => self.result_meta(),
            _ => None,
        }
    }
    fn object_members(&self, span: Option<Span>) -> Option<Members<'f>> {
        let s = span?;
        (self.frame.get(s.start()) == Some(&b'{')).then(|| members(self.frame, s))
    }
    /// For [`Shape::Batch`]: the spans of the array's elements, in order.
    pub fn batch_elements(&self) -> Option<Elements<'f>> {
        (self.shape() == Shape::Batch).then(|| Elements::new(self.frame, self.spans.root))
    }

    /// Fully decodes `params` with simd-json: copies the value into `scratch` (simd-json
    /// unescapes in place; the frame itself is never mutated) and returns a borrowed DOM
    /// pointing into `scratch`. `Ok(None)` when there is no `params`.
    ///
    /// Safe to authorise on: an object anywhere inside `params` that repeats a key (compared
    /// after unescaping) is an error, because simd-json keeps the first value of a repeated
    /// key while serde_json and most backends keep the last (`{"path":"/ok","path":"/etc"}`
    /// would read differently on the two sides). The walk itself only rejects repeated keys
    /// in the envelope, in `params` / `result` / `error` (inspected members) and in `_meta`.
    ///
    /// Floats: simd-json rounds decimal numbers correctly, while serde_json's default parser
    /// (without its `float_roundtrip` feature) can be one bit off on long or extreme forms
    /// (measured by a trial: `2.2250738585072011e-308`, `89255.0e-22` and a 54-digit `1.000…`
    /// read differently on the two sides). A policy that compares floats exactly can
    /// therefore disagree with such a backend; key policies on strings and integers. The
    /// number `-0` decodes as the float -0.0, as serde_json reads it (simd-json alone gives
    /// the integer 0).
    ///
    /// # Errors
    /// * [`ErrorKind::DuplicateParamsKey`] (-32602, Invalid params) at the opening quote of
    ///   the first repeated key inside `params` (any depth).
    /// * [`ErrorKind::ValueDecode`] at the start of `params` when simd-json rejects a value
    ///   the walk accepted (its known differences: integers beyond `u64`/`i64` range, and
    ///   nesting deeper than simd-json's own depth limit, which a parser with a raised
    ///   [`Limits::max_depth`] can accept).
    pub fn params_value<'s>(
        &self,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Option<simd_json::BorrowedValue<'s>>, Error> {
        match self.spans.params.get() {
            Some(s) => {
                if let Some(k) = first_repeated_key(self.frame, s) {
                    let at = k.start() - 1;
                    return Err(Error::new(ErrorKind::DuplicateParamsKey, at));
                }
                decode_value(self.frame, s, scratch).map(Some)
            }
            None => Ok(None),
        }
    }
}

/// The raw text span (between the quotes) of the first key that repeats an earlier key of
/// the same object (compared after unescaping), at any depth inside the value at `span` of an
/// already validated `frame`; `None` when no object in it repeats a key. One pass; a
/// [`KeySet`] (the walk's own duplicate check) per open object.
pub(crate) fn first_repeated_key(frame: &[u8], span: Span) -> Option<Span> {
    let mut open: Vec<Option<KeySet<'_>>> = Vec::new();
    let end = span.end().min(frame.len());
    let mut i = span.start();
    while i < end {
        match frame[i] {
            b'{' => open.push(Some(KeySet::new(frame))),
            b'[' => open.push(None),
            b'}' | b']' => {
                open.pop();
            }
            b'"' => {
                let after = raw_string_end(frame, i)?;
                let mut j = after;
                while j < end && matches!(frame[j], b' ' | b'\t' | b'\n' | b'\r') {
                    j += 1;
                }
                if frame.get(j) == Some(&b':')
                    && let Some(Some(keys)) = open.last_mut()
                {
                    let (start, end) = (i + 1, after - 1);
                    let escaped = frame[start..end].contains(&b'\\');
                    if !keys.insert(StrTok {
                        start,
                        end,
                        escaped,
                    }) {
                        return Some(Span::new(start, end));
                    }
                }
                i = after;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Fully decodes the value at `span` of `frame` with simd-json into a DOM borrowing
/// `scratch` (which receives a copy of the value's bytes; a number `-0` is copied as `-0.0`,
/// so that it decodes as the float -0.0 as serde_json reads it).
///
/// # Errors
/// [`ErrorKind::ValueDecode`] at `span.start()` when simd-json rejects the bytes.
pub fn decode_value<'s>(
    frame: &[u8],
    span: Span,
    scratch: &'s mut Vec<u8>,
) -> Result<simd_json::BorrowedValue<'s>, Error> {
    let bytes = frame
        .get(span.range())
        .ok_or(Error::new(ErrorKind::ValueDecode, span.start()))?;
    copy_for_decode(bytes, scratch);
    simd_json::to_borrowed_value(scratch)
        .map_err(|_| Error::new(ErrorKind::ValueDecode, span.start()))
}

/// Copies the validated JSON `bytes` into `scratch` for simd-json, writing each number token
/// `-0` as `-0.0`: simd-json reads `-0` as the integer 0, serde_json (and JavaScript, Go) as
/// the float -0.0, and a policy that tests for an integer would disagree with such a backend
/// (session-15 trial). `-0` followed by a fraction or exponent is a float on both sides
/// already, and `-0` after `e`/`E` is an exponent (`1e-0`), left as it is. Only when some
/// `-0` is followed by a delimiter (not a digit, as in `"2025-06-18"`) are strings stepped
/// over byte by byte to find the number tokens.
fn copy_for_decode(bytes: &[u8], scratch: &mut Vec<u8>) {
    scratch.clear();
    let ends_number = |i: usize| !matches!(bytes.get(i), Some(b'0'..=b'9' | b'.' | b'e' | b'E'));
    if !memchr::memmem::find_iter(bytes, b"-0").any(|i| ends_number(i + 2)) {
        scratch.extend_from_slice(bytes);
        return;
    }
    let (mut i, mut from, mut in_string) = (0, 0, false);
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_string => i += 1,
            b'"' => in_string = !in_string,
            // Not the sign of an exponent (`1e-0`: hostile re-trial, session 16).
            b'-' if !in_string
                && bytes.get(i + 1) == Some(&b'0')
                && ends_number(i + 2)
                && !matches!(i.checked_sub(1).map(|j| bytes[j]), Some(b'e' | b'E')) =>
            {
                scratch.extend_from_slice(&bytes[from..i + 2]);
                scratch.extend_from_slice(b".0");
                from = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    scratch.extend_from_slice(&bytes[from..]);
}

/// Skips the (already validated) string starting at `pos` (`"`); returns the offset after
/// its closing quote.
fn raw_string_end(buf: &[u8], pos: usize) -> Option<usize> {
    let mut i = pos + 1;
    loop {
        let j = i + find_quote_or_backslash(buf.get(i..)?)?;
        if buf[j] == b'"' {
            return Some(j + 1);
        }
        i = j + 2;
    }
}

/// Skips the (already validated) value starting at `pos`; returns the offset after it.
/// Iterative; never panics on any input (returns `None` on malformed input).
///
/// Containers are stepped over by the validating walk ([`Cursor::skip_value`], no depth or
/// number-length limit: the frame was parsed under its own limits): string content at block
/// speed instead of one byte at a time (the profile layer steps over a container once per
/// member lookup; session 14 measured this loop as the largest part of `Validator::check`).
fn raw_value_end(buf: &[u8], pos: usize) -> Option<usize> {
    match *buf.get(pos)? {
        b'"' => raw_string_end(buf, pos),
        b'{' | b'[' => {
            let mut c = Cursor::new(buf, Backend::detect(), usize::MAX, usize::MAX);
            c.pos = pos;
            c.skip_value(0).ok()?;
            Some(c.pos)
        }
        _ => {
            let n = buf[pos..]
                .iter()
                .position(|b| matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(buf.len() - pos);
            Some(pos + n)
        }
    }
}

/// The end of the value at `pos` read by its structure alone, for a frame the parser
/// rejected for its content ([`Parser::recover_response_id`]): a string to its closing quote
/// (escapes stepped over, content not checked), a container to its matching bracket (kinds
/// matched, strings inside stepped over), a scalar to the next delimiter. `None` when the
/// structure is broken (an unclosed string or container, a mismatched bracket, no value).
fn structural_value_end(buf: &[u8], pos: usize) -> Option<usize> {
    match *buf.get(pos)? {
        b'"' => raw_string_end(buf, pos),
        b'{' | b'[' => {
            // The closing bracket each open container waits for.
            let mut open: Vec<u8> = Vec::new();
            let mut i = pos;
            while let Some(&b) = buf.get(i) {
                match b {
                    b'"' => {
                        i = raw_string_end(buf, i)?;
                        continue;
                    }
                    b'{' => open.push(b'}'),
                    b'[' => open.push(b']'),
                    b'}' | b']' => {
                        if open.pop() != Some(b) {
                            return None;
                        }
                        if open.is_empty() {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            let n = buf[pos..]
                .iter()
                .position(|b| matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(buf.len() - pos);
            // A scalar is a literal or a run of number characters: anything else (`t"x"`,
            // `nul`) is broken structure.
            let token = &buf[pos..pos + n];
            let number = matches!(token.first(), Some(b'-' | b'0'..=b'9'))
                && token
                    .iter()
                    .all(|b| matches!(b, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-'));
            (number || matches!(token, b"true" | b"false" | b"null")).then_some(pos + n)
        }
    }
}

fn skip_ws_at(buf: &[u8], mut i: usize) -> usize {
    while matches!(buf.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// Iterator over the members of an object value in a validated frame (see [`members`]).
#[derive(Clone, Debug)]
pub struct Members<'f> {
    frame: &'f [u8],
    pos: usize,
    end: usize,
}

/// Iterates the depth-1 members of the object whose value span is `object_span` inside an
/// already validated `frame` (e.g. `params.arguments`). Keys are decoded (borrowed when they
/// have no escape); values are raw spans. A span that is not an object gives an empty
/// iterator; malformed input ends the iteration early (never panics).
///
/// Every member is yielded as written: a key repeated in the object (the walk rejects repeats
/// only in the envelope, `params`' inspected members and `_meta`) comes as often as it is
/// written. A policy on a member must check that its key is not repeated, since a first-wins
/// reader and a last-wins backend (serde_json's `Value`, Python, JavaScript) see different
/// values; [`Envelope::params_value`] rejects any repeated key inside `params`.
pub fn members(frame: &[u8], object_span: Span) -> Members<'_> {
    let ok = frame.get(object_span.start()) == Some(&b'{') && object_span.end() <= frame.len();
    Members {
        frame,
        pos: object_span.start() + 1,
        end: if ok { object_span.end() } else { 0 },
    }
}

impl<'f> Iterator for Members<'f> {
    type Item = Member<'f>;
    fn next(&mut self) -> Option<Member<'f>> {
        let f = self.frame;
        let mut i = skip_ws_at(f, self.pos);
        if i >= self.end {
            return None;
        }
        if f[i] == b',' {
            i = skip_ws_at(f, i + 1);
        }
        if f.get(i) != Some(&b'"') {
            self.pos = self.end;
            return None;
        }
        let kend = raw_string_end(f, i).filter(|&e| e <= self.end)?;
        // `Span::at`: both ends lie within `self.end`, the end of a `Span` (a `u32`).
        let key_span = Span::at(i + 1, kend - 1);
        let (raw, escaped) = token_text(&f[i + 1..kend - 1])?;
        let mut j = skip_ws_at(f, kend);
        if f.get(j) != Some(&b':') {
            self.pos = self.end;
            return None;
        }
        j = skip_ws_at(f, j + 1);
        let vend = raw_value_end(f, j).filter(|&e| e <= self.end)?;
        self.pos = vend;
        Some(Member {
            key: JsonStr { raw, escaped }.decode(),
            key_span,
            value: Span::at(j, vend),
        })
    }
}

/// Iterator over the element spans of an array value in a validated frame (a batch).
#[derive(Clone, Debug)]
pub struct Elements<'f> {
    frame: &'f [u8],
    pos: usize,
    end: usize,
}

impl<'f> Elements<'f> {
    pub(crate) fn new(frame: &'f [u8], array: Span) -> Self {
        let ok = frame.get(array.start()) == Some(&b'[') && array.end() <= frame.len();
        Self {
            frame,
            pos: array.start() + 1,
            end: if ok { array.end() } else { 0 },
        }
    }
}

impl Iterator for Elements<'_> {
    type Item = Span;
    fn next(&mut self) -> Option<Span> {
        let f = self.frame;
        let mut i = skip_ws_at(f, self.pos);
        if i >= self.end || f[i] == b']' {
            return None;
        }
        if f[i] == b',' {
            i = skip_ws_at(f, i + 1);
        }
        // `e > i`: a value has at least one byte, so the iteration always moves forward
        // (a frame paired with another frame's spans can put `i` on a `}`).
        let Some(e) = raw_value_end(f, i).filter(|&e| e > i && e <= self.end) else {
            self.pos = self.end;
            return None;
        };
        self.pos = e;
        Some(Span::new(i, e))
    }
}

/// An owned envelope: the frame as [`Bytes`] plus its [`Spans`] (cheap to clone and to send
/// across tasks; the bytes are never copied).
///
/// ```
/// use bytes::Bytes;
/// use mcpwire::{OwnedEnvelope, Parser};
///
/// let frame = Bytes::from_static(br#"{"jsonrpc":"2.0","id":"a-1","method":"ping"}"#);
/// let owned = OwnedEnvelope::parse(&Parser::new(), frame).unwrap();
/// // `Send + 'static`: hand it to another task or thread.
/// let id = std::thread::spawn(move || {
///     assert_eq!(owned.envelope().method().unwrap().raw(), "ping");
///     // The id's text as sent, zero-copy and owned, for matching the reply.
///     owned.id_bytes()
/// })
/// .join()
/// .unwrap();
/// assert_eq!(id.as_deref(), Some(&br#""a-1""#[..]));
/// ```
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
    /// An owned envelope from a frame and spans recorded on that same frame (by
    /// [`Parser::parse`], kept with [`Envelope::spans`] or [`into_parts`](Self::into_parts)),
    /// without parsing again. Spans from another frame give meaningless but never unsafe
    /// results, as for [`Envelope::from_parts`]: accessors return `None` for spans out of
    /// bounds, and nothing panics.
    pub fn from_parts(bytes: Bytes, spans: Spans) -> Self {
        Self { bytes, spans }
    }
    /// The frame bytes and the spans, for storing apart and rebuilding with
    /// [`from_parts`](Self::from_parts).
    pub fn into_parts(self) -> (Bytes, Spans) {
        (self.bytes, self.spans)
    }
    /// The frame bytes.
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }
    /// The recorded spans.
    pub fn spans(&self) -> Spans {
        self.spans
    }
    /// A borrowed view.
    pub fn envelope(&self) -> Envelope<'_> {
        Envelope::from_parts(&self.bytes, self.spans)
    }
    /// The id's exact JSON text (e.g. `"\"a-1\""`, `7`) as a zero-copy slice of the frame,
    /// owned and `'static`: a key for matching the reply to this request, or the bytes to
    /// echo. `None` without an id. Ids compare by this text (see the [module docs](self)).
    pub fn id_bytes(&self) -> Option<Bytes> {
        let s = self.spans.id.get()?;
        self.bytes
            .get(s.range())
            .map(|_| self.bytes.slice(s.range()))
    }
}

#[cfg(test)]
mod tests {
    use super::{
        ESC_ERROR_MESSAGE, ESC_PARAMS_NAME, ESC_PARAMS_URI, ESC_RESULT_TYPE, Inner, TOP_KEYS,
        esc_bit,
    };

    /// The named escape bits sit at their members' places in `Inner::keys` (`walk_inner`'s
    /// `W`: 0 `params`, 1 `result`, 2 `error`), and no two members share a bit.
    #[test]
    fn esc_bits_follow_inner_keys() {
        let at = |inner: Inner, name: &[u8]| {
            inner
                .keys()
                .iter()
                .position(|k| *k == name)
                .expect("a key of the object")
        };
        assert_eq!(
            ESC_PARAMS_NAME,
            esc_bit(Some(0), at(Inner::Params, b"name"))
        );
        assert_eq!(ESC_PARAMS_URI, esc_bit(Some(0), at(Inner::Params, b"uri")));
        assert_eq!(
            ESC_RESULT_TYPE,
            esc_bit(Some(1), at(Inner::Result, b"resultType"))
        );
        assert_eq!(
            ESC_ERROR_MESSAGE,
            esc_bit(Some(2), at(Inner::Error, b"message"))
        );
        let mut all = 0u32;
        let inner = [(0u8, Inner::Params), (1, Inner::Result), (2, Inner::Error)];
        let bits = (0..TOP_KEYS.len()).map(|i| esc_bit(None, i)).chain(
            inner
                .iter()
                .flat_map(|&(w, o)| (0..o.keys().len()).map(move |i| esc_bit(Some(w), i))),
        );
        for b in bits {
            assert_eq!(b.count_ones(), 1);
            assert_eq!(all & u32::from(b), 0, "bit {b:#x} used twice");
            all |= u32::from(b);
        }
    }
}
