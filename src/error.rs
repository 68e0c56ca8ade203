//! Errors of the scan and envelope layers: a small `Copy` value with a byte offset and a stable
//! kind.
//!
//! Every [`ErrorKind`] has a stable kebab-case [`name`](ErrorKind::name) (used in CLI output and
//! logs; never renamed once released) and the JSON-RPC 2.0 error [`code`](ErrorKind::code) a
//! server would answer with: `-32700` (Parse error) when the frame is not well-formed JSON,
//! `-32600` (Invalid Request) when it is JSON but not a valid JSON-RPC / MCP envelope, and
//! `-32602` (Invalid params) for a repeated key inside `params` or `_meta` and for a
//! `params._meta` that is not an object.

use std::fmt;

/// JSON-RPC 2.0 "Parse error": invalid JSON was received (JSON-RPC 2.0 §5.1).
pub const PARSE_ERROR: i32 = -32700;
/// JSON-RPC 2.0 "Invalid Request": the JSON sent is not a valid Request object (§5.1).
pub const INVALID_REQUEST: i32 = -32600;
/// JSON-RPC 2.0 "Method not found" (§5.1).
pub const METHOD_NOT_FOUND: i32 = -32601;
/// JSON-RPC 2.0 "Invalid params" (§5.1).
pub const INVALID_PARAMS: i32 = -32602;
/// JSON-RPC 2.0 "Internal error" (§5.1).
pub const INTERNAL_ERROR: i32 = -32603;
/// MCP 2026-07-28 HeaderMismatch: a Streamable HTTP header does not mirror the body.
pub const HEADER_MISMATCH: i32 = -32020;
/// MCP 2026-07-28 MissingRequiredClientCapability.
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i32 = -32021;
/// MCP 2026-07-28 UnsupportedProtocolVersion.
pub const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;

/// An error found while scanning or walking one frame.
///
/// `offset` is the byte offset from the start of the frame where the problem was detected
/// (for a truncated frame, the frame length).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Error {
    kind: ErrorKind,
    offset: usize,
}

impl Error {
    /// Builds an error of `kind` at byte `offset` of the frame.
    #[inline]
    pub const fn new(kind: ErrorKind, offset: usize) -> Self {
        Self { kind, offset }
    }
    /// What went wrong.
    #[inline]
    pub const fn kind(&self) -> ErrorKind {
        self.kind
    }
    /// Byte offset in the frame where it was detected.
    #[inline]
    pub const fn offset(&self) -> usize {
        self.offset
    }
    /// The JSON-RPC error code a server answers with (see [`ErrorKind::code`]).
    #[inline]
    pub const fn code(&self) -> i32 {
        self.kind.code()
    }
    /// Returns the same error moved by `delta` bytes (used when a frame is a slice of a
    /// larger buffer, e.g. a batch element or an SSE event).
    #[inline]
    pub const fn shifted(self, delta: usize) -> Self {
        Self {
            kind: self.kind,
            offset: self.offset + delta,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at byte {} ({})",
            self.kind.message(),
            self.offset,
            self.kind.name()
        )
    }
}

impl std::error::Error for Error {}

/// Writes the stable kebab-case [`name`](ErrorKind::name), e.g. `duplicate-key`.
impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

macro_rules! error_kinds {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, $code:expr, $msg:literal; )*) => {
        /// The stable kind of an [`Error`].
        ///
        /// New kinds may be added in minor releases; names and codes of existing kinds never
        /// change.
        #[non_exhaustive]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ErrorKind {
            $( $(#[$doc])* $variant, )*
        }

        impl ErrorKind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [ErrorKind] = &[$(ErrorKind::$variant,)*];

            /// Stable kebab-case name, e.g. `"duplicate-key"`.
            pub const fn name(self) -> &'static str {
                match self { $(ErrorKind::$variant => $name,)* }
            }
            /// JSON-RPC error code a server answers with: `-32700` (Parse error) for
            /// not-JSON and the JSON limits (depth, number length and range), `-32600`
            /// (Invalid Request) for the frame size limit and a message that is not a valid
            /// envelope, `-32602` (Invalid params) for duplicate `_meta` / `params` keys and
            /// a `params._meta` that is not an object,
            /// `-32603` (Internal error) for `value-decode`.
            pub const fn code(self) -> i32 {
                match self { $(ErrorKind::$variant => $code,)* }
            }
            /// One-line human description.
            pub const fn message(self) -> &'static str {
                match self { $(ErrorKind::$variant => $msg,)* }
            }
        }
    };
}

error_kinds! {
    // ---- not JSON (RFC 8259 / UTF-8): -32700 ----
    /// The frame is empty or only whitespace.
    Empty => "empty", PARSE_ERROR, "empty frame";
    /// The frame ends inside a value.
    UnexpectedEnd => "unexpected-end", PARSE_ERROR, "frame ends inside a JSON value";
    /// A byte that cannot start or continue a JSON token here.
    UnexpectedByte => "unexpected-byte", PARSE_ERROR, "unexpected byte";
    /// A leading UTF-8 byte order mark (RFC 8259 §8.1: must not be added).
    Bom => "bom", PARSE_ERROR, "byte order mark before the JSON value";
    /// Invalid UTF-8 (bad sequence, overlong form, encoded surrogate, beyond U+10FFFF).
    InvalidUtf8 => "invalid-utf8", PARSE_ERROR, "invalid UTF-8";
    /// A raw control character (U+0000..U+001F) inside a string.
    ControlCharacter => "control-character", PARSE_ERROR, "raw control character in a string";
    /// A backslash escape that is not one of RFC 8259 §7's.
    InvalidEscape => "invalid-escape", PARSE_ERROR, "invalid escape sequence";
    /// A `\u` escape of an unpaired UTF-16 surrogate (RFC 8259 §8.2).
    LoneSurrogate => "lone-surrogate", PARSE_ERROR, "unpaired UTF-16 surrogate escape";
    /// A number that breaks RFC 8259 §6 grammar (`01`, `1.`, `-`, `.5`, `+1`).
    InvalidNumber => "invalid-number", PARSE_ERROR, "invalid number";
    /// A number whose magnitude overflows an IEEE 754 binary64 (`1e400`), as serde_json rejects.
    NumberOutOfRange => "number-out-of-range", PARSE_ERROR, "number out of range";
    /// A number token longer than [`crate::Limits::max_number_len`].
    NumberTooLong => "number-too-long", PARSE_ERROR, "number token too long";
    /// A literal other than `true`, `false`, `null`.
    InvalidLiteral => "invalid-literal", PARSE_ERROR, "invalid literal";
    /// Containers nested deeper than [`crate::Limits::max_depth`].
    DepthLimit => "depth-limit", PARSE_ERROR, "nesting depth limit exceeded";
    /// Something other than whitespace after the root value.
    TrailingCharacters => "trailing-characters", PARSE_ERROR, "trailing characters after the JSON value";
    /// The frame is longer than [`crate::Limits::max_frame_len`] (HTTP 413).
    FrameTooLarge => "frame-too-large", INVALID_REQUEST, "frame exceeds the size limit";
    /// A stdio (NDJSON) line holds a CR that does not end it (a "bare" CR, not right before
    /// the LF): readers that also end lines at CR (the Python SDK's stdin) would read other
    /// messages from it than readers that split at LF only. Reported by the NDJSON framer
    /// ([`FrameErrorKind::BareCr`](crate::framing::FrameErrorKind::BareCr)), never by
    /// [`crate::Parser::parse`] (in JSON a CR is whitespace). MCP stdio transport (spec
    /// digest §7.1: newline-delimited, no embedded newlines).
    BareCr => "bare-cr", PARSE_ERROR, "line holds a CR that does not end it";

    // ---- JSON, but not a valid JSON-RPC 2.0 / MCP envelope: -32600 (but
    // `meta-not-object`, -32602) ----
    /// The same envelope member twice (or the same inspected member of `result` / `error`),
    /// compared after unescaping.
    DuplicateKey => "duplicate-key", INVALID_REQUEST, "duplicate envelope member";
    /// The same `_meta` key twice, compared after unescaping. -32602 (Invalid params, as
    /// reliability.md §1.2 class 1 asks inside params): a reply is only ever owed for a
    /// request, whose `_meta` is `params._meta`.
    DuplicateMetaKey => "duplicate-meta-key", INVALID_PARAMS, "duplicate _meta key";
    /// The same inspected member of `params` (`name`, `uri`, `_meta`) twice, compared after
    /// unescaping (-32602 inside params, reliability.md §1.2 class 1); also any repeated key
    /// inside `params` that `Envelope::params_value` or a profile rule reads.
    DuplicateParamsKey => "duplicate-params-key", INVALID_PARAMS, "duplicate params member";
    /// The root value is not an object (nor an array).
    NotAnObject => "not-an-object", INVALID_REQUEST, "message is not a JSON object";
    /// A top-level array: a JSON-RPC batch (legacy 2025-03-26 only).
    Batch => "batch", INVALID_REQUEST, "JSON-RPC batch (top-level array)";
    /// An empty top-level array.
    EmptyBatch => "empty-batch", INVALID_REQUEST, "empty JSON-RPC batch";
    /// No `jsonrpc` member.
    JsonrpcMissing => "jsonrpc-missing", INVALID_REQUEST, "missing \"jsonrpc\" member";
    /// `jsonrpc` is not exactly the string `"2.0"`.
    JsonrpcVersion => "jsonrpc-version", INVALID_REQUEST, "\"jsonrpc\" is not \"2.0\"";
    /// `id` is not a string or a plain integer within ±(2^53−1), or is null where not allowed.
    InvalidId => "invalid-id", INVALID_REQUEST, "id must be a string or an integer within ±(2^53-1)";
    /// `method` is not a string.
    MethodNotString => "method-not-string", INVALID_REQUEST, "\"method\" is not a string";
    /// `params` is present but not an object.
    ParamsNotObject => "params-not-object", INVALID_REQUEST, "\"params\" is not an object";
    /// `method` together with `result` or `error`.
    MethodWithResponse => "method-with-response", INVALID_REQUEST, "\"method\" together with \"result\" or \"error\"";
    /// Both `result` and `error`.
    ResultAndError => "result-and-error", INVALID_REQUEST, "both \"result\" and \"error\"";
    /// None of `method`, `result`, `error`.
    NoShape => "no-shape", INVALID_REQUEST, "no \"method\", \"result\" or \"error\"";
    /// A response without `id` (allowed only on error responses).
    MissingId => "missing-id", INVALID_REQUEST, "response without \"id\"";
    /// `result` is not an object.
    ResultNotObject => "result-not-object", INVALID_REQUEST, "\"result\" is not an object";
    /// `error` is not an object with integer `code` and string `message`.
    InvalidErrorObject => "invalid-error-object", INVALID_REQUEST, "\"error\" is not {code: integer, message: string}";
    /// `params._meta` is present but not an object. -32602 Invalid params: the request is a
    /// JSON-RPC request whose `params` lack the `_meta` object (MCP 2026-07-28 §4.3 answers a
    /// missing `_meta` field -32602); it was -32600 until session 22 (spec trial).
    MetaNotObject => "meta-not-object", INVALID_PARAMS, "\"params._meta\" is not an object";
    /// `result._meta` is present but not an object (a response: never answered).
    ResultMetaNotObject => "result-meta-not-object", INVALID_REQUEST, "\"result._meta\" is not an object";

    // ---- optional full decode ----
    /// simd-json rejected a value the walk accepted (see `Envelope::params_value`): its known
    /// differences are integers beyond the `i64`/`u64` range. JSON-RPC "Internal error".
    ValueDecode => "value-decode", INTERNAL_ERROR, "full decode of a value failed";
}
