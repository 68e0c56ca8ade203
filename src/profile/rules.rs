//! The profile rules: one [`Rule`] per violation kind, each with a stable kebab-case name, the
//! JSON-RPC error code a server would answer with, and the spec section it implements.
//!
//! Section tags refer to `notes/spec-2026-07-28.md` in the project's shared notes, which
//! paraphrases MCP 2026-07-28 (`basic/index`, `schema.ts`, `transports/streamable-http`, …)
//! and the legacy revisions.

use crate::error::{
    ErrorKind, HEADER_MISMATCH, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND,
    UNSUPPORTED_PROTOCOL_VERSION,
};

macro_rules! rules {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, $code:expr, $section:literal; )*) => {
        /// The stable kind of a profile violation (layer 4).
        ///
        /// [`Rule::Core`] wraps an envelope-layer [`ErrorKind`] (not JSON, not a JSON-RPC
        /// envelope) so that core errors and profile findings share one namespace of names;
        /// every other variant is a rule of this module. Names and codes never change once
        /// released; new rules may be added.
        #[non_exhaustive]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Rule {
            /// An error of the scan / envelope layers (same name and code as the core kind).
            Core(ErrorKind),
            $( $(#[$doc])* $variant, )*
        }

        impl Rule {
            /// Every profile rule (not the [`Rule::Core`] kinds), in declaration order.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant,)*];

            /// Stable kebab-case name, e.g. `"missing-protocol-version"`; for
            /// [`Rule::Core`] the core kind's name (e.g. `"duplicate-key"`).
            pub const fn name(self) -> &'static str {
                match self {
                    Rule::Core(k) => k.name(),
                    $(Rule::$variant => $name,)*
                }
            }
            /// The JSON-RPC error code a server would answer with (for findings in
            /// responses, which get no reply, the code of the closest envelope class).
            pub const fn code(self) -> i32 {
                match self {
                    Rule::Core(k) => k.code(),
                    $(Rule::$variant => $code,)*
                }
            }
            /// The spec section the rule implements (tags of `notes/spec-2026-07-28.md`).
            pub const fn section(self) -> &'static str {
                match self {
                    Rule::Core(_) => "JSON-RPC 2.0 §4-5; RFC 8259; spec digest §2.1",
                    $(Rule::$variant => $section,)*
                }
            }
            /// Looks a rule up by its stable name (profile rules and core kinds).
            pub fn from_name(name: &str) -> Option<Rule> {
                match name {
                    $($name => Some(Rule::$variant),)*
                    _ => ErrorKind::ALL.iter().copied().find(|k| k.name() == name).map(Rule::Core),
                }
            }
        }
    };
}

rules! {
    // ---- per-request `_meta` (2026-07-28) ----
    /// A 2026-07-28 request without `params._meta["io.modelcontextprotocol/protocolVersion"]`
    /// (or without `params` / `_meta` at all).
    MissingProtocolVersion => "missing-protocol-version", INVALID_PARAMS,
        "§4.2, §4.3 ([B] General fields; [TS] RequestMetaObject)";
    /// A 2026-07-28 request without
    /// `params._meta["io.modelcontextprotocol/clientCapabilities"]`.
    MissingClientCapabilities => "missing-client-capabilities", INVALID_PARAMS,
        "§4.2, §4.3 ([B]; [TS] RequestMetaObject)";
    /// A reserved `_meta` key whose value has the wrong JSON type (`protocolVersion` not a
    /// string, `clientCapabilities` not an object, `progressToken` / `subscriptionId` not a
    /// string or integer, `traceparent` / `tracestate` / `baggage` not a string; under
    /// 2026-07-28 also `logLevel` not a logging level, and `clientInfo` / `serverInfo` not an
    /// `Implementation`: string `name` and `version` required, and when present `title`,
    /// `description`, `websiteUrl` strings and `icons` an array, each reported at its value).
    ReservedMetaValue => "reserved-meta-value", INVALID_PARAMS,
        "§4.1, §4.2 ([B]; [TS] RequestMetaObject, NotificationMetaObject)";
    /// The request names a protocol version this profile does not implement.
    UnsupportedProtocolVersion => "unsupported-protocol-version", UNSUPPORTED_PROTOCOL_VERSION,
        "§4.3, §8 ([VER]; [TS] UnsupportedProtocolVersionError)";
    /// A `_meta` key that breaks the key grammar (prefix labels, name characters).
    MetaKeyGrammar => "meta-key-grammar", INVALID_PARAMS,
        "§4.1 ([B] _meta; [TS] MetaObject; 2025-06-18: [B-0618])";
    /// A `_meta` key under an MCP-reserved prefix that MCP does not define: 2026-07-28 and
    /// 2025-11-25 reserve prefixes whose second label is `modelcontextprotocol` or `mcp`;
    /// 2025-06-18 reserves prefixes whose second-to-last label is (e.g. `mcp.dev/`).
    /// 2026-07-28 accepts only its own keys, a legacy revision any key some MCP revision
    /// defines (dual-era probes). Earlier revisions and the `legacy` union define no grammar.
    ReservedMetaKey => "reserved-meta-key", INVALID_PARAMS,
        "§4.1, §4.2 ([B] reserved prefixes; [B-0618]; [TASKS-1125] legacy keys)";
    // ---- results ----
    /// A 2026-07-28 result without `resultType`.
    MissingResultType => "missing-result-type", INVALID_REQUEST,
        "§3 ([B] Responses; [TS] Result.resultType)";
    /// `resultType` is not `complete`, `input_required` or a value the caller declared.
    UnknownResultType => "unknown-result-type", INVALID_REQUEST,
        "§3 ([B]: unrecognised values MUST be treated as invalid)";
    /// An `input_required` result with neither `inputRequests` nor `requestState`, with
    /// `inputRequests` that is not an object of `{method, params}` objects (an embedded
    /// `params` that is present but not an object included), or a `requestState` that is
    /// not a string.
    InputRequiredShape => "input-required-shape", INVALID_REQUEST,
        "§3.1 ([MRTR]; [TS] InputRequiredResult)";
    /// An `inputRequests` entry whose method is not `elicitation/create`,
    /// `sampling/createMessage` or `roots/list`.
    InputRequestMethod => "input-request-method", INVALID_REQUEST,
        "§3.1 ([MRTR]; [TS] InputRequest)";
    /// `input_required` answering a request other than `tools/call`, `prompts/get`,
    /// `resources/read` (needs the tracker).
    InputRequiredNotAllowed => "input-required-not-allowed", INVALID_REQUEST,
        "§3.1 ([MRTR] Supported Requests)";
    /// `resultType: "task"` answering a request other than `tools/call`, or a `tools/call`
    /// whose `_meta` client capabilities did not declare the `io.modelcontextprotocol/tasks`
    /// extension (needs the tracker).
    TaskResultNotAllowed => "task-result-not-allowed", INVALID_REQUEST,
        "§3, §5.1 ([EXT-TASKS]: \"task\" only on tools/call, only if declared on that request)";
    // ---- error responses ----
    /// An error code inside a JSON-RPC / MCP reserved range that the revision does not define
    /// (-32768..-32100 other than the five JSON-RPC codes; in 2026-07-28 also -32023..-32099
    /// and the retired -32002 / -32042).
    ReservedErrorCode => "reserved-error-code", INVALID_REQUEST,
        "§6.1 ([B] Error codes; [TS]; [JSONRPC] §5.1)";
    /// A 2026-07-28 MCP error whose `data` lacks what its schema requires:
    /// `requiredCapabilities` (an object) for -32021 MissingRequiredClientCapability,
    /// `supported` (an array of strings) and `requested` (a string) for -32022
    /// UnsupportedProtocolVersion. A client reads them to retry (declare the capability, pick
    /// a supported version).
    ErrorDataShape => "error-data-shape", INVALID_REQUEST,
        "§6.1 ([B] Error codes; [TS] MissingRequiredClientCapabilityError, UnsupportedProtocolVersionError)";
    /// `"id": null` on an error response (2026-07-28 models an unreadable id as absent).
    NullErrorId => "null-error-id", INVALID_REQUEST,
        "§2.1 ([TS] JSONRPCErrorResponse.id?: RequestId)";
    /// An error response without `id` under 2024-11-05, 2025-03-26 or 2025-06-18, whose
    /// schemas require it (`"id": null` when the request's id was unreadable, as base
    /// JSON-RPC says); 2025-11-25 and 2026-07-28 make it optional.
    MissingErrorId => "missing-error-id", INVALID_REQUEST,
        "§1 (Error response id: required [TS-1105 schema], [B-0326], [B-0618]; [JSONRPC] §5)";
    // ---- methods and direction ----
    /// A request for a method 2026-07-28 does not define (legacy profiles treat the method
    /// set as open and do not report this, except for names beginning `rpc.`, which
    /// JSON-RPC 2.0 §4 reserves in every revision). Notifications are not judged by name
    /// (receivers ignore unknown ones), except a name beginning `rpc.`: this kind too, in
    /// every profile.
    UnknownMethod => "unknown-method", METHOD_NOT_FOUND,
        "§5.1, §5.3 ([TS] ClientRequest / ServerRequest unions)";
    /// A method removed in 2026-07-28 (`initialize`, `ping`, `logging/setLevel`, …).
    RemovedMethod => "removed-method", METHOD_NOT_FOUND,
        "§5.2 ([CL] #2, #4-#7; [SEP2575])";
    /// A known method sent in the wrong direction (e.g. `tools/call` from a server, or a
    /// server-only notification from a client). -32601: the receiver does not implement the
    /// method (JSON-RPC 2.0 §5.1 "Method not found": the method does not exist or is not
    /// available), as a backend answers it; it was -32600 until session 22 (spec trial).
    WrongDirection => "wrong-direction", METHOD_NOT_FOUND,
        "§2.2, §5, §6.1 ([TR]; [PAT]; [STDIO]; [JSONRPC] §5.1)";
    /// A JSON-RPC request from the server (2026-07-28: servers never send requests).
    ServerRequest => "server-request", INVALID_REQUEST,
        "§2.2 ([TR]: no other message direction exists; [PAT])";
    /// A JSON-RPC response from the client (2026-07-28: clients never send responses).
    ClientResponse => "client-response", INVALID_REQUEST,
        "§2.2 ([PAT]; [STDIO]; [HTTP] client MUST NOT POST responses)";
    /// A notification method (`notifications/…`) written with an `id` member.
    NotificationWithId => "notification-with-id", INVALID_REQUEST,
        "§2.1 ([B] Notifications MUST NOT carry an id)";
    /// A known request method written without an `id` member (it would be a notification).
    RequestWithoutId => "request-without-id", INVALID_REQUEST,
        "§2.1 ([B] Requests; [JS] JSONRPCRequest.required)";
    /// A depth-1 key equal to an envelope key only under case folding (`"Method"`, `"ID"`,
    /// `"param\u017f"`), or a key of `result` / `error` equal to an inspected member
    /// (`resultType`, `_meta`, `code`, `message`, `data`) or to a member a rule reads outside
    /// `params` (`result.protocolVersion` of `initialize`, …) only under case folding. Every
    /// profile: a case-insensitive backend (Go `encoding/json` before go-sdk 1.3.1) reads it as
    /// the envelope key whatever revision the message claims.
    CaseVariantKey => "case-variant-key", INVALID_REQUEST,
        "DESIGN.md strictness policy; reliability.md §1.2 class 4";
    /// A key of `params` equal only under case folding to an inspected member the method's
    /// `params` define: `_meta` (every method), `name` (`tools/call`, `prompts/get`), `uri`
    /// (`resources/read`, `resources/subscribe`, `resources/unsubscribe`,
    /// `notifications/resources/updated`), `arguments` (`tools/call`, `prompts/get`), and any
    /// member a rule reads (the required members of `profile::params`: `progress` and
    /// `progressToken` of `notifications/progress`, `level`, `protocolVersion` of
    /// `initialize`, …); e.g. `"Name"` next to `"name"` in `tools/call`, `"progreſſ"` in
    /// `notifications/progress`. A variant of a member the method does not define (`"Name"` in
    /// `notifications/message` or an unknown method) is not flagged. Every profile.
    CaseVariantParam => "case-variant-param", INVALID_PARAMS,
        "DESIGN.md strictness policy; reliability.md §1.2 class 4 (-32602 inside params)";
    /// A subscription notification without `io.modelcontextprotocol/subscriptionId`, or a
    /// `subscriptions/listen` result without it in `result._meta`.
    MissingSubscriptionId => "missing-subscription-id", INVALID_PARAMS,
        "§4.2, §9 ([SUB]; [TS] NotificationMetaObject, SubscriptionsListenResult)";
    /// A request or notification of a known method without a member its `params` require
    /// (`tools/call` without `name`, `notifications/progress` without `progress`, …; the
    /// table is in `profile::params`). Every profile, with the revision's own table. Under
    /// 2026-07-28 also a request embedded in an `inputRequests` value (`sampling/createMessage`
    /// without `messages` or `maxTokens`, `elicitation/create` without `message`), judged as
    /// the top-level request of that name.
    MissingParam => "missing-param", INVALID_PARAMS,
        "§5.1, §5.3 ([TS] `…Params.required`; 2026 schema.json)";
    /// A required `params` member of the wrong JSON type (`name` not a string, `level` not a
    /// logging level, `requestId` neither a string nor an integer, …), in a top-level
    /// request or notification or in a request embedded in `inputRequests`; also, under
    /// 2026-07-28, the optional MRTR retry members of `tools/call`, `prompts/get` and
    /// `resources/read` when present (`requestState` not a string, `inputResponses` not an
    /// object); in every profile the optional `arguments` of `tools/call` (an object) and
    /// `prompts/get` (an object of strings), `cursor` of the list requests (a string), and
    /// `total` (a number) and `message` (a string) of `notifications/progress`, when present.
    ParamType => "param-type", INVALID_PARAMS,
        "§5.1, §5.3 ([TS] `…Params` member types; 2026 schema.json)";
    /// A result without a member its answered method's result type requires (`tools` of a
    /// `tools/list` result, `content` of a complete `tools/call` result, `protocolVersion` of
    /// an `initialize` result …; the table is in `profile::results`). Judged only when the
    /// tracker matched the result to its request ([`Session`](super::Session)), with the
    /// request's revision; a 2026-07-28 result that is not complete (`input_required`, `task`)
    /// is not held to the method's members. The SDK clients fail the call on such a result.
    MissingResultMember => "missing-result-member", INVALID_REQUEST,
        "§5.1, §5.3 ([TS] `…Result.required`; 2026 schema.json)";
    /// A result member of the wrong JSON type (`tools` not an array of objects, `isError`
    /// not a boolean, `nextCursor` not a string …), required or optional, under the same
    /// conditions as [`Rule::MissingResultMember`].
    ResultMemberType => "result-member-type", INVALID_REQUEST,
        "§5.1, §5.3 ([TS] `…Result` member types; 2026 schema.json)";
    /// A 2026-07-28 result whose caching fields are malformed: `ttlMs` not a non-negative
    /// integer, or `cacheScope` neither `"public"` nor `"private"`; or missing: a complete
    /// result (`resultType` `"complete"` or absent) answering `server/discover`, `tools/list`,
    /// `prompts/list`, `resources/list`, `resources/templates/list` or `resources/read` lacks
    /// either (reported at the result object). Absence is judged only when the tracker
    /// matched the result to its request; an unknown method is not guessed. A caching
    /// gateway keys on them (a `"private"` result must not be shared across authorization
    /// contexts).
    CacheField => "cache-field", INVALID_REQUEST,
        "§11 ([CACHE]; [TS], [JS] CacheableResult: ttlMs integer minimum 0, cacheScope enum, both required)";
    /// A JSON-RPC batch with more than [`MAX_BATCH_ELEMENTS`](super::MAX_BATCH_ELEMENTS)
    /// elements: rejected whole, its elements not checked (each answer would cost a gateway
    /// more than the element: `[1,1,…]` in 4 MiB is two million error replies).
    BatchTooLarge => "batch-too-large", INVALID_REQUEST,
        "reliability.md limits (JSON-RPC 2.0 §6 sets none; 2025-03-26 only)";
    // ---- stateful tracker ----
    /// A request id equal to one the same sender still has in flight.
    DuplicateRequestId => "duplicate-request-id", INVALID_REQUEST,
        "§2.3 ([B] ids unique among the sender's in-flight requests)";
    /// A legacy (before 2026-07-28) request id the same sender already used in this session
    /// (since the last `initialize`), even though that request has completed.
    ReusedRequestId => "reused-request-id", INVALID_REQUEST,
        "§2.3 ([B-1125], [B-0618], [B-0326], [M-1105]: ids never reused within a session)";
    /// A response whose id matches no in-flight request of the peer.
    UnknownResponseId => "unknown-response-id", INVALID_REQUEST,
        "§2.3 ([B] Responses echo the request id)";
    /// A request whose `_meta.progressToken` another request of the same sender still in
    /// flight (not cancelled) holds: progress tokens are unique across the sender's active
    /// requests. Reported at the token; the token's progress is then not judged.
    DuplicateProgressToken => "duplicate-progress-token", INVALID_PARAMS,
        "§10 ([PROG] tokens unique across active requests)";
    /// A `notifications/progress` whose `progressToken` no request of the peer in flight
    /// holds: progress is sent only for active requests, and stops when the request
    /// completes (one answered with a task keeps its token). Judged only when the tracker is
    /// sure: nothing evicted, the peer's requests all seen.
    UnknownProgressToken => "unknown-progress-token", INVALID_PARAMS,
        "§10 ([PROG] only for tokens of active requests; stop after completion)";
    /// A `notifications/progress` whose `progress` is not greater than the last one sent for
    /// its token (numbers compared as IEEE 754 doubles): the value must increase with each
    /// notification.
    ProgressNotIncreasing => "progress-not-increasing", INVALID_PARAMS,
        "§10 ([PROG] progress MUST increase with each notification)";
    // ---- Streamable HTTP header mirroring (2026-07-28) ----
    /// A header the transport requires is absent (`MCP-Protocol-Version`, `Mcp-Method`,
    /// `Mcp-Name`).
    HeaderMissing => "header-missing", HEADER_MISMATCH,
        "§7.2.1, §7.2.2 ([HTTP] Standard headers; [SEP2243])";
    /// A mirrored header disagrees with the body (after Base64 decoding and trimming).
    HeaderMismatch => "header-mismatch", HEADER_MISMATCH,
        "§7.2.1, §7.2.2 ([HTTP]; [TS] HeaderMismatchError)";
    /// A mirrored header value that cannot be read: invalid Base64 inside the
    /// `=?base64?…?=` sentinel, or bytes outside visible ASCII, space and tab.
    HeaderInvalid => "header-invalid", HEADER_MISMATCH,
        "§7.2.1 ([HTTP] Base64 encoding of header values; RFC 9110)";
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
