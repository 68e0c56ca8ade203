//! Error replies: the exact JSON-RPC error response a gateway sends for a rejected message,
//! and the HTTP status to send it with (spec digest §4.3, §6.1, §6.2; \[HTTP\]).

use serde_json::Value;

use super::meta;
use super::msg::Msg;
use super::{Revision, Rule, Violation};
use crate::envelope::{Envelope, Shape};
use crate::error::{
    ErrorKind, INTERNAL_ERROR, METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY,
};

/// A JSON-RPC error response ready to send.
///
/// Its `Debug` shows `body` as text (lossy UTF-8), not as a list of bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct ErrorReply {
    /// The response body: one minified JSON object
    /// `{"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…,"data":…}}` (UTF-8, no
    /// trailing newline). `id` is the request's id text exactly as it was written, and is
    /// omitted when the id could not be read (MCP 2026-07-28 `JSONRPCErrorResponse.id?`) or
    /// the message was not a request; `data` is omitted when there is none.
    pub body: Vec<u8>,
    /// The HTTP status for Streamable HTTP: 413 for an oversized frame, 404 for -32601 (400
    /// after [`for_revision`](Self::for_revision) with a revision other than 2026-07-28), 500
    /// for -32603, 400 for everything else (-32700, -32600, -32602, -32020, -32021, -32022).
    pub http_status: u16,
}

impl ErrorReply {
    /// The reply as revision `rev` requires it: 2024-11-05, 2025-03-26 and 2025-06-18 require
    /// `id` on every error response (`"id": null` when the request's id could not be read), so
    /// a reply without one gets `"id":null` there; other revisions (`None`: the legacy union
    /// or undecided) leave it as it is (2025-11-25 and 2026-07-28 omit the id; 2026-07-28
    /// flags `"id": null`). Re-trial finding: the proxy's own replies broke
    /// [`Rule::MissingErrorId`] under the legacy profiles.
    ///
    /// HTTP 404 (-32601) is kept only under 2026-07-28, whose Streamable HTTP answers an
    /// unknown method so; elsewhere (a legacy revision, or `None`) it becomes 400, because a
    /// legacy Streamable HTTP client reads 404 as "session expired" and starts over (the
    /// Python SDK client replaces the body with "Session terminated"; re-trial, session 22).
    pub fn for_revision(mut self, rev: Option<Revision>) -> Self {
        const HEAD: &[u8] = br#"{"jsonrpc":"2.0","#;
        if self.http_status == 404 && rev != Some(Revision::V2026_07_28) {
            self.http_status = 400;
        }
        if rev.is_some_and(Revision::requires_error_id)
            && self.body.starts_with(HEAD)
            && !self.body[HEAD.len()..].starts_with(br#""id":"#)
        {
            self.body
                .splice(HEAD.len()..HEAD.len(), br#""id":null,"#.iter().copied());
        }
        self
    }
}

impl std::fmt::Debug for ErrorReply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ErrorReply")
            .field("body", &String::from_utf8_lossy(&self.body))
            .field("http_status", &self.http_status)
            .finish()
    }
}

/// The HTTP status for a rule (\[HTTP\]: -32601 → 404; -32602 (missing `_meta`), -32020,
/// -32021, -32022 → 400; oversized → 413; the spec pins nothing else, we use 400 and 500).
pub fn http_status(rule: Rule) -> u16 {
    match rule {
        Rule::Core(ErrorKind::FrameTooLarge) => 413,
        r if r.code() == METHOD_NOT_FOUND => 404,
        r if r.code() == INTERNAL_ERROR => 500,
        _ => 400,
    }
}

/// Builds the error reply for violation `v` of the message `env` (`None` when the frame was
/// not JSON, so no id can be read).
///
/// The reply carries `env`'s id (raw text, as written) when `env` is a request, or an
/// invalid message with a `method` member, and its id is a string or integer; otherwise
/// none (see [`ErrorReply::body`]). A response is never answered with its own id: to its
/// receiver that would read as the answer to its own request with that id.
///
/// `data` is filled where MCP defines it: `{supported, requested}` for
/// `unsupported-protocol-version` (-32022). Use [`error_reply_with_data`] to supply other data
/// (e.g. `requiredCapabilities` for -32021).
pub fn error_reply(env: Option<&Envelope<'_>>, v: &Violation) -> ErrorReply {
    let msg = env.map(Msg::from_envelope);
    let data = match (v.rule, &msg) {
        (Rule::UnsupportedProtocolVersion, Some(m)) => {
            let requested = m
                .meta_get(meta::PROTOCOL_VERSION)
                .and_then(|s| m.str_at(s))
                .map(|s| s.into_owned())
                .unwrap_or_default();
            Some(serde_json::json!({
                "supported": [Revision::V2026_07_28.as_str()],
                "requested": requested,
            }))
        }
        _ => None,
    };
    build(
        msg.as_ref(),
        v.rule.code(),
        &v.message,
        data.as_ref(),
        http_status(v.rule),
    )
}

/// Builds the error reply for violation `v` of a frame that [`Parser::parse`] rejected (so
/// there is no [`Envelope`]), echoing the frame's id when one can still be read.
///
/// The id is the span [`recover_id`] returns — the one depth-1 `id` member of a frame that is
/// well-formed JSON within [`Limits::DEFAULT`](crate::Limits::DEFAULT), whose value is a
/// string or a plain integer within ±(2^53−1) — copied exactly as written. This is the case of
/// a request rejected only by the duplicate-key policy (e.g.
/// `{"jsonrpc":"2.0","id":2,"method":"x","method":"y"}` gets `"id":2`). For anything else
/// (not JSON, over the limits, `"id":null`, a float or boolean id, two `id` members, an empty
/// or truncated frame) the reply has no id, as [`error_reply`] with `None` gives (MCP
/// 2026-07-28 `JSONRPCErrorResponse.id?`). The id is echoed only when the frame also has a
/// depth-1 `method` member, so it was meant as a request: a reply with the id of a rejected
/// response would read, to its receiver, as the answer to its own request with that id.
/// `data` is never set; the HTTP status is [`http_status`] of `v.rule`.
///
/// [`Parser::parse`]: crate::Parser::parse
/// [`recover_id`]: crate::recover_id
pub fn error_reply_for_frame(frame: &[u8], v: &Violation) -> ErrorReply {
    error_reply_for_frame_with(&crate::Parser::new(), frame, v)
}

/// [`error_reply_for_frame`] with `parser`'s [`Limits`](crate::Limits) for reading the id:
/// for a gateway that parses with limits other than the default (library trial: a frame
/// over the default 4 MiB but within a raised limit, rejected for a duplicate key, was
/// answered without its id).
pub fn error_reply_for_frame_with(
    parser: &crate::Parser,
    frame: &[u8],
    v: &Violation,
) -> ErrorReply {
    let id = parser
        .recover_request_id(frame)
        .and_then(|s| std::str::from_utf8(s.slice(frame)).ok());
    write_body(id, v.rule.code(), &v.message, None, http_status(v.rule))
}

/// The error response that replaces a rejected response (id `raw_id`, its raw JSON text as
/// [`Envelope::id_raw`] or [`crate::recover_id`] give it) so that the request it answered
/// still gets an answer: -32603 (Internal error, HTTP 500) with the message "response
/// rejected (KIND: MESSAGE)" for violation `v`. Send it only when the response answered a
/// request in flight ([`Tracked::Answered`](super::Tracked::Answered), or
/// [`Session::settle_rejected_response`](super::Session::settle_rejected_response) true).
///
/// `raw_id` is written as given when it is one JSON string or integer id token (as those
/// accessors give it); anything else (library trial: `"not json"` was written raw, making the
/// body invalid JSON) gives a reply without an id.
pub fn replacement_reply(raw_id: &str, v: &Violation) -> ErrorReply {
    let message = format!("response rejected ({}: {})", v.rule.name(), v.message);
    let id = Msg::token_id_key(raw_id.as_bytes()).map(|_| raw_id);
    write_body(id, INTERNAL_ERROR, &message, None, 500)
}

/// An error response of the gateway's own to request id `raw_id` (its raw JSON text, as
/// [`Envelope::id_raw`] gives it): JSON-RPC error `code` with `message`, sent at
/// `http_status`. For failures that are no violation of the message itself, where the
/// request still needs an answer: the upstream could not be reached, timed out, or the
/// gateway's own policy refused it (JSON-RPC 2.0 §5: a request is answered with a result or
/// an error; MCP: use -32603 Internal error, [`crate::error::INTERNAL_ERROR`], when no other
/// code applies).
///
/// `raw_id` is written as given when it is one JSON string or integer id token; anything
/// else (`None`, `null`, a float, text that is not one token) gives a reply without an id,
/// which [`ErrorReply::for_revision`] turns into `"id":null` where the revision needs one.
/// Never answer a notification or a response with it: neither may be answered.
pub fn request_error_reply(
    raw_id: Option<&str>,
    code: i32,
    message: &str,
    http_status: u16,
) -> ErrorReply {
    let id = raw_id.filter(|r| Msg::token_id_key(r.as_bytes()).is_some());
    write_body(id, code, message, None, http_status)
}

/// Like [`error_reply`] with caller-supplied `data` (replaces any default data).
pub fn error_reply_with_data(
    env: Option<&Envelope<'_>>,
    v: &Violation,
    data: Option<&Value>,
) -> ErrorReply {
    let msg = env.map(Msg::from_envelope);
    build(
        msg.as_ref(),
        v.rule.code(),
        &v.message,
        data,
        http_status(v.rule),
    )
}

/// The -32021 MissingRequiredClientCapability reply for request `env`, naming the
/// capabilities it needs (`data.requiredCapabilities`, a `ClientCapabilities` object), HTTP
/// 400 (spec digest §4.3; \[TS\] MissingRequiredClientCapabilityError).
pub fn missing_capability_reply(env: &Envelope<'_>, required: &Value) -> ErrorReply {
    let msg = Msg::from_envelope(env);
    let data = serde_json::json!({ "requiredCapabilities": required });
    build(
        Some(&msg),
        MISSING_REQUIRED_CLIENT_CAPABILITY,
        "Missing required client capability",
        Some(&data),
        400,
    )
}

/// Each element's span and cause for the answer to a rejected batch `env` (a
/// [`Shape::Batch`] frame) with violations `out` (offsets in `env`'s frame, as
/// [`Validator::check`] and [`Session::check`] give them), in element order
/// ([`Envelope::batch_elements`], read once for both): the cause is the element's own first
/// violation (the first in `out` whose offset lies in the element), with
/// its offset made relative to the element; or, for an element without a violation of its
/// own, a `batch` violation (-32600) at the element's byte 0 whose message names the batch's
/// first violation. Empty when `env` is no batch, has no elements, or `out` is empty.
///
/// Work: one binary search per violation, so a batch of many bad elements costs
/// O((elements + violations) · log elements), not elements × violations.
///
/// [`Validator::check`]: super::Validator::check
/// [`Session::check`]: super::Session::check
pub fn batch_element_causes(
    env: &Envelope<'_>,
    out: &[Violation],
) -> Vec<(crate::Span, Violation)> {
    let Some(first) = out.first() else {
        return Vec::new();
    };
    let spans: Vec<crate::Span> = env.batch_elements().into_iter().flatten().collect();
    let mut own: Vec<Option<&Violation>> = vec![None; spans.len()];
    for v in out {
        let at = spans.partition_point(|s| s.end() <= v.offset);
        if let Some(s) = spans.get(at)
            && s.start() <= v.offset
            && own[at].is_none()
        {
            own[at] = Some(v);
        }
    }
    spans
        .into_iter()
        .zip(own)
        .enumerate()
        .map(|(i, (span, own))| {
            let cause = match own {
                Some(v) => Violation::new(v.rule, v.offset - span.start(), v.message.clone()),
                None => Violation::new(
                    Rule::Core(ErrorKind::Batch),
                    0,
                    format!(
                        "batch rejected ({} at byte {}: {}); element {i} was not forwarded",
                        first.rule.name(),
                        first.offset,
                        first.message
                    ),
                ),
            };
            (span, cause)
        })
        .collect()
}

/// The body of a batch response: the JSON array of `bodies`, each one JSON value (e.g. an
/// [`ErrorReply::body`]), in order, separated by commas (JSON-RPC 2.0 §6). `[]` for none;
/// JSON-RPC 2.0 §6 says not to send an empty array, so check for that first.
pub fn batch_body<B: AsRef<[u8]>>(bodies: &[B]) -> Vec<u8> {
    let len = bodies.iter().map(|b| b.as_ref().len() + 1).sum::<usize>();
    let mut array = Vec::with_capacity(2 + len);
    array.push(b'[');
    for (i, b) in bodies.iter().enumerate() {
        if i > 0 {
            array.push(b',');
        }
        array.extend_from_slice(b.as_ref());
    }
    array.push(b']');
    array
}

/// The answer to the sender of a batch that a gateway rejects as a whole, with violations
/// `out` of `env` (as [`Validator::check`] or [`Session::check`] give them, offsets in
/// `env`'s frame), without session state (JSON-RPC 2.0 §6; MCP 2025-03-26, the revision
/// with batches):
///
/// - `None` when `out` is empty, or when no element is owed an answer (only notifications
///   and responses: §6 says to send nothing rather than an empty array).
/// - One error object, not an array, when `env` is no batch, is an empty batch (§6: "an
///   empty Array" is one Invalid Request), or has more than
///   [`MAX_BATCH_ELEMENTS`](super::MAX_BATCH_ELEMENTS) elements (not checked one by one):
///   [`error_reply`] of the first violation.
/// - Otherwise a JSON array ([`batch_body`]) with one error response per element that is a
///   request, an invalid message or not JSON, in element order, each for its cause from
///   [`batch_element_causes`], with the element's id where [`error_reply`] (or, for an
///   element that is not JSON, [`error_reply_for_frame_with`] under `parser`) echoes one
///   and `"id":null` where revision `rev` needs an id ([`ErrorReply::for_revision`]).
///   Notifications and responses get nothing. The HTTP status is the first violation's
///   ([`http_status`]).
///
/// Stateless: a gateway with a [`Session`](super::Session) also settles the requests of the
/// batch ([`Session::settle_request`](super::Session::settle_request)), answers the
/// requests behind responses it drops ([`replacement_reply`]), and leaves out the id of a
/// request reusing an id still in flight (echoed, it would read as that earlier request's
/// answer), as `mcpwire proxy` does.
///
/// [`Validator::check`]: super::Validator::check
/// [`Session::check`]: super::Session::check
pub fn batch_error_reply(
    parser: &crate::Parser,
    env: &Envelope<'_>,
    out: &[Violation],
    rev: Option<Revision>,
) -> Option<ErrorReply> {
    let whole = error_reply(Some(env), out.first()?).for_revision(rev);
    let n = env.batch_elements().map_or(0, |e| e.count());
    if n == 0 || n > super::MAX_BATCH_ELEMENTS {
        return Some(whole);
    }
    let frame = env.frame();
    let mut bodies = Vec::new();
    for (span, cause) in batch_element_causes(env, out) {
        let bytes = span.slice(frame);
        let reply = match parser.parse(bytes) {
            Err(_) => error_reply_for_frame_with(parser, bytes, &cause),
            Ok(el) => match el.shape() {
                Shape::Notification | Shape::Result | Shape::Error => continue,
                _ => error_reply(Some(&el), &cause),
            },
        };
        bodies.push(reply.for_revision(rev).body);
    }
    (!bodies.is_empty()).then(|| ErrorReply {
        body: batch_body(&bodies),
        http_status: whole.http_status,
    })
}

fn build(
    m: Option<&Msg<'_>>,
    code: i32,
    message: &str,
    data: Option<&Value>,
    http_status: u16,
) -> ErrorReply {
    // A request's id, or the id of an invalid message with a `method` member (meant as a
    // request); never a response's (library trial: a malformed response with id 40 got an
    // error reply with id 40, which its receiver may take as the answer to its own request
    // 40).
    let id = m.and_then(|m| {
        let echo = (m.shape == Shape::Request
            || (m.shape == Shape::Invalid && m.method_span.is_some()))
            && m.invalid.is_none_or(|e| e.kind() != ErrorKind::InvalidId);
        if echo { m.id_text() } else { None }
    });
    write_body(id, code, message, data, http_status)
}

/// Writes `{"jsonrpc":"2.0","id":…,"error":{…}}` with `id` (raw JSON text) when `Some`.
fn write_body(
    id: Option<&str>,
    code: i32,
    message: &str,
    data: Option<&Value>,
    http_status: u16,
) -> ErrorReply {
    let mut body = Vec::with_capacity(96 + message.len());
    body.extend_from_slice(br#"{"jsonrpc":"2.0","#);
    if let Some(id) = id {
        body.extend_from_slice(br#""id":"#);
        body.extend_from_slice(id.as_bytes());
        body.push(b',');
    }
    body.extend_from_slice(br#""error":{"code":"#);
    body.extend_from_slice(code.to_string().as_bytes());
    body.extend_from_slice(br#","message":"#);
    // Serialising a &str into a Vec cannot fail.
    serde_json::to_writer(&mut body, message).expect("string serialisation");
    if let Some(d) = data {
        body.extend_from_slice(br#","data":"#);
        serde_json::to_writer(&mut body, d).expect("value serialisation");
    }
    body.extend_from_slice(b"}}");
    ErrorReply { body, http_status }
}
