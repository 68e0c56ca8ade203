//! The rule engine: judges one [`Msg`] under the effective revision.

use super::meta;
use super::methods::{self, Lookup};
use super::msg::{self, Kind, Msg};
use super::params::{self, CLIENT_CAPABILITIES_2026, Want};
use super::results;
use super::shapes::ICONS;
use super::tracker::{self, RequestId, Response, Tracker};
use super::{BatchElement, Direction, Era, Profile, Revision, Rule, Tracked, Validator, Violation};
use crate::envelope::Shape;
use crate::error::ErrorKind;

/// Methods whose result may be `input_required` (\[MRTR\] Supported Requests).
const MRTR_METHODS: &[&str] = &["tools/call", "prompts/get", "resources/read"];
/// Methods whose complete results are `CacheableResult`s and so carry `ttlMs` and `cacheScope`
/// (spec digest §11, [CACHE]; [JS] `required` of their `…Result` definitions).
const CACHEABLE_METHODS: &[&str] = &[
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];
/// Methods allowed inside `inputRequests` (\[MRTR\], \[TS\] InputRequest).
const INPUT_REQUEST_METHODS: &[&str] =
    &["elicitation/create", "sampling/createMessage", "roots/list"];
/// The optional members of an `Implementation` (`clientInfo` / `serverInfo` `_meta` values)
/// and the JSON type each must have when present (2026 `schema.json` `Implementation`:
/// `title`, `description`, `websiteUrl` strings, `icons` an array of `Icon`, each icon then
/// checked as [`ICONS`] says).
const IMPLEMENTATION_OPTIONAL: &[(&str, Kind, &str)] = &[
    ("title", Kind::String, "a string"),
    ("description", Kind::String, "a string"),
    ("websiteUrl", Kind::String, "a string"),
    ("icons", Kind::Array, "an array"),
];
/// 2026-07-28 notifications that only travel on a `subscriptions/listen` stream.
const LISTEN_NOTIFICATIONS: &[&str] = &[
    "notifications/subscriptions/acknowledged",
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/resources/list_changed",
    "notifications/resources/updated",
    "notifications/tasks",
];

fn push(out: &mut Vec<Violation>, rule: Rule, offset: usize, msg: impl Into<String>) {
    out.push(Violation::new(rule, offset, msg));
}

fn batch_allowed(profile: Profile) -> bool {
    matches!(
        profile,
        Profile::V2025_03_26 | Profile::Legacy | Profile::Auto
    )
}

/// Checks one message; with a tracker, records it there and says what the tracker made of it.
pub(crate) fn check(
    v: &mut Validator,
    m: &Msg<'_>,
    mut tracked: Option<(&mut Tracker, Direction)>,
    out: &mut Vec<Violation>,
) -> Tracked {
    if m.shape == Shape::Batch {
        return Tracked::Batch(check_batch(v, m, tracked, out));
    }
    if let Some(e) = m.invalid {
        out.push(Violation::from_error(&e));
        return Tracked::Untracked;
    }
    if m.shape == Shape::Invalid {
        push(
            out,
            Rule::Core(ErrorKind::NoShape),
            0,
            "not a valid JSON-RPC message",
        );
        return Tracked::Untracked;
    }
    let mut outcome = Tracked::Untracked;

    // Match responses first: a response is judged under its request's revision.
    let mut request: Option<Request> = None;
    if let Some((t, dir)) = tracked.as_mut()
        && matches!(m.shape, Shape::Result | Shape::Error)
        && let Some(key) = m.id_key()
    {
        {
            // A task answer (2025-11-25 `CreateTaskResult`, 2026 `resultType: "task"`): the
            // request's progress may go on for the task's lifetime.
            let task = m.shape == Shape::Result
                && (m.env.result_type().is_some_and(|t| t.eq_str("task"))
                    || m.result.and_then(|r| m.member_quietly(r, "task")).is_some());
            match t.on_response_keeping(*dir, &key, task) {
                // `outcome` is set at the end, moving the method out of `request` (no copy
                // per response).
                Response::Matched {
                    method,
                    revision,
                    tasks_declared,
                } => {
                    request = Some(Request {
                        method,
                        revision,
                        tasks_declared,
                    })
                }
                Response::Unknown => {
                    outcome = Tracked::UnknownId;
                    push(
                        out,
                        Rule::UnknownResponseId,
                        m.id.map_or(0, |s| s.start()),
                        format!(
                            "response id {} matches no in-flight request",
                            m.id_text().unwrap_or("?")
                        ),
                    )
                }
                Response::NotTracked | Response::Ambiguous => outcome = Tracked::NotJudged,
            }
        }
    }

    let rev = effective_revision(v, m, request.as_ref().map(|r| r.revision));
    let dir = v.direction;

    // Case variants are rejected under every profile: the backend's parser, not the
    // revision the message claims, decides how `"Method"` is read (trial finding: a legacy
    // `_meta` downgraded the check away).
    if let Some(k) = m.case_variant {
        push(
            out,
            Rule::CaseVariantKey,
            k.start().saturating_sub(1),
            format!(
                "key {:?} differs from an envelope key only in case",
                String::from_utf8_lossy(k.slice(m.frame))
            ),
        );
    }
    if let Some(k) = m.member_case_variant {
        // Noted, not pushed: a rule's own read of the member may meet the same key, and
        // one key is one finding (reported with the other notes, `Msg::report_repeated`).
        let found = if m.in_params(k) {
            params_case_variant(m, &["name", "uri", "_meta"])
        } else {
            Some(k)
        };
        if let Some(k) = found {
            m.note_case_variant(k);
        }
    }

    match m.shape {
        Shape::Request => {
            check_request(v, m, rev, dir, out);
            params::check(m, rev, out);
            check_arguments(m);
        }
        Shape::Notification => {
            check_notification(v, m, rev, dir, out);
            params::check(m, rev, out);
        }
        Shape::Result => check_result(v, m, rev, dir, request.as_ref(), out),
        Shape::Error => check_error(m, rev, dir, out),
        _ => {}
    }
    check_meta_keys(m, rev, out);

    if let Some((t, dir)) = tracked {
        match m.shape {
            Shape::Request => {
                if m.method.as_deref() == Some("initialize") && tracker::legacy(rev) {
                    // A legacy `initialize` starts a new session: ids may start over. Under
                    // 2026-07-28 `initialize` is a removed method and starts nothing.
                    t.reset();
                }
                if let (Some(key), Some(method)) = (m.id_key(), m.method.as_deref()) {
                    let id_off = m.id.map_or(0, |s| s.start());
                    let id = m.id_text().unwrap_or("?");
                    let token = m
                        .meta_get("progressToken")
                        .and_then(|s| id_like_key(m, s).map(|k| (k, s)));
                    let request_key = token.as_ref().map(|_| key.clone());
                    let verdict = t.on_request(dir, key, method, rev, declares_tasks(m));
                    if verdict != RequestId::InFlight
                        && let (Some((token, at)), Some(rk)) = (token, request_key)
                        && t.on_request_token(dir, &rk, token)
                    {
                        push(
                            out,
                            Rule::DuplicateProgressToken,
                            at.start(),
                            format!(
                                "progress token {} is already used by a request in flight",
                                cut(at.slice(m.frame))
                            ),
                        );
                    }
                    outcome = if verdict == RequestId::InFlight {
                        Tracked::DuplicateRequest
                    } else {
                        Tracked::Request
                    };
                    match verdict {
                        RequestId::Fresh => {}
                        RequestId::InFlight => push(
                            out,
                            Rule::DuplicateRequestId,
                            id_off,
                            format!("request id {id} is already in flight"),
                        ),
                        RequestId::Reused => push(
                            out,
                            Rule::ReusedRequestId,
                            id_off,
                            format!(
                                "request id {id} was already used in this session (legacy revisions never reuse ids)"
                            ),
                        ),
                    }
                }
            }
            Shape::Notification if m.method.as_deref() == Some("notifications/cancelled") => {
                if let Some(key) = m.param("requestId").and_then(|s| id_like_key(m, s)) {
                    t.on_cancel(dir, &key);
                }
            }
            Shape::Notification if m.method.as_deref() == Some("notifications/progress") => {
                check_progress(t, dir, m, out);
            }
            _ => {}
        }
    }
    m.report_repeated(out);
    match request {
        Some(r) => Tracked::Answered { method: r.method },
        None => outcome,
    }
}

/// `raw` as text for a message, cut to 200 bytes (at a character boundary, with `…`): a
/// token of megabytes must not make a record of megabytes per message (re-trial, session 23).
pub(super) fn cut(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    if text.len() <= 200 {
        return text.into_owned();
    }
    let mut end = 200;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// The tracker key of a request id or progress token at `s` (a string or a number; other
/// values have none), keyed as request ids are.
fn id_like_key(m: &Msg<'_>, s: crate::Span) -> Option<String> {
    match m.kind_at(s) {
        Some(Kind::String) => m.str_at(s).map(|d| msg::str_id_key(&d)),
        Some(Kind::Number) => std::str::from_utf8(s.slice(m.frame))
            .ok()
            .map(|n| format!("n:{n}")),
        _ => None,
    }
}

/// A `notifications/progress` sent on `dir`, against the tokens of the peer's requests in
/// flight (spec digest §10: only for tokens of active requests, `progress` increasing):
/// [`Rule::UnknownProgressToken`] at the token, [`Rule::ProgressNotIncreasing`] at the value.
fn check_progress(t: &mut Tracker, dir: Direction, m: &Msg<'_>, out: &mut Vec<Violation>) {
    let Some(tok) = m.param("progressToken") else {
        return;
    };
    let Some(key) = id_like_key(m, tok) else {
        return;
    };
    let progress = m.param("progress");
    let value = progress
        .filter(|&p| m.kind_at(p) == Some(Kind::Number))
        .and_then(|p| tracker::ProgressValue::parse(std::str::from_utf8(p.slice(m.frame)).ok()?));
    let token_text = || cut(tok.slice(m.frame));
    match t.on_progress(dir, &key, value) {
        tracker::Progress::Ok | tracker::Progress::NotJudged => {}
        tracker::Progress::Unknown => push(
            out,
            Rule::UnknownProgressToken,
            tok.start(),
            format!(
                "progress token {} belongs to no request in flight",
                token_text()
            ),
        ),
        tracker::Progress::NotIncreasing { last } => push(
            out,
            Rule::ProgressNotIncreasing,
            progress.map_or(tok.start(), |p| p.start()),
            format!(
                "progress {} for token {} does not increase (last: {last})",
                cut(progress.map_or(&b""[..], |p| p.slice(m.frame))),
                token_text()
            ),
        ),
    }
}

/// True when `method`'s `params` define the inspected member `name` (`name`, `uri`, `_meta`
/// or `arguments`) in some revision: `_meta` for every method (the base `Request` /
/// `Notification` params), `name` and `arguments` for `tools/call` and `prompts/get`, `uri`
/// for `resources/read`, `resources/subscribe`, `resources/unsubscribe` and
/// `notifications/resources/updated`.
fn params_define(method: &str, name: &str) -> bool {
    match name {
        "_meta" => true,
        "name" | "arguments" => matches!(method, "tools/call" | "prompts/get"),
        "uri" => matches!(
            method,
            "resources/read"
                | "resources/subscribe"
                | "resources/unsubscribe"
                | "notifications/resources/updated"
        ),
        _ => false,
    }
}

/// The raw key span of the first `params` key that equals, only under case folding, one of
/// the inspected members `names` that the method's `params` define ([`params_define`]): a
/// case-insensitive backend would read it as that member. A variant of a member the method
/// does not have (`"Name"` in `notifications/message`, or in an unknown method) shadows
/// nothing (review: it was reported `case-variant-param`). A variant starts with its name's
/// first letter in either case: none of the names starts with `i`, `s` or `k`, the letters
/// with non-ASCII folds, so that byte rules out most keys before [`folds_to`].
///
/// [`folds_to`]: crate::envelope::folds_to
fn params_case_variant(m: &Msg<'_>, names: &[&str]) -> Option<crate::Span> {
    let method = m.method.as_deref().unwrap_or("");
    m.cached_members(m.params?)?
        .iter()
        .find(|mem| {
            let first = mem.key.as_bytes().first().map(u8::to_ascii_lowercase);
            names.iter().any(|n| {
                mem.key != *n
                    && first == n.as_bytes().first().copied()
                    && params_define(method, n)
                    && crate::envelope::folds_to(mem.key.as_bytes(), n.as_bytes())
            })
        })
        .map(|mem| mem.key_span)
}

/// `params.arguments` of `tools/call` and `prompts/get` (every revision): the member a
/// gateway's policy reads (the tool's input, the prompt's values), so it is inspected as
/// `name` is, in the profile layer (the core walk does not read it). Written twice it is
/// `duplicate-params-key` (-32602; noted by the member read, as for any member a rule
/// reads): a first-wins reader and a last-wins backend would run different arguments
/// (trial, session 14: `"arguments":{"path":"/ok"},"arguments":{"path":"/etc/passwd"}`
/// passed `check` and the proxy). A key equal to it only under case folding
/// (`"Arguments"`, `"argumentſ"`) is `case-variant-param`, as for `name`. Inside `arguments`
/// (an object, or an array of objects), a key repeated in any one object at any depth
/// (compared after unescaping) is `duplicate-params-key` too, at the repeated key's opening
/// quote (first one only), as [`Envelope::params_value`](crate::Envelope::params_value)
/// rejects it. Its type is not judged here.
fn check_arguments(m: &Msg<'_>) {
    if !matches!(m.method.as_deref(), Some("tools/call" | "prompts/get")) {
        return;
    }
    // The read notes a repeated `arguments` and its case variants (`Msg::member`).
    let Some(args) = m.param("arguments") else {
        return;
    };
    // A key repeated inside the arguments, at any depth: a policy that reads the first
    // `path` and a backend that runs with the last one disagree
    // (`"arguments":{"path":"/ok","path":"/etc/passwd"}`; noted in sessions 14 and 15).
    // An array too (the schema wants an object; the type is not judged here, but the
    // objects inside would still read differently: re-trial, session 16).
    if matches!(m.kind_at(args), Some(Kind::Object | Kind::Array))
        && let Some(k) = crate::envelope::first_repeated_key(m.frame, args)
    {
        m.note_repeated(k);
    }
}

/// The request a response answers (from the tracker).
struct Request {
    method: String,
    revision: Option<Revision>,
    tasks_declared: bool,
}

/// True when the request's `_meta` client capabilities declare the Tasks extension
/// (`io.modelcontextprotocol/clientCapabilities.extensions["io.modelcontextprotocol/tasks"]`).
fn declares_tasks(m: &Msg<'_>) -> bool {
    m.meta_get(meta::CLIENT_CAPABILITIES)
        .and_then(|caps| m.member(caps, "extensions"))
        .and_then(|ext| m.member(ext, meta::TASKS_EXTENSION))
        .is_some()
}

/// Checks a batch and its elements; returns each element's [`Tracked`] outcome and id, in
/// order ([`Tracked::Untracked`] for every element when the batch is not allowed, and for an
/// element that is not JSON, is itself a batch or is an `initialize` request); none for a
/// batch over [`MAX_BATCH_ELEMENTS`](super::MAX_BATCH_ELEMENTS), which is reported
/// `batch-too-large` only where batches are allowed (elsewhere `batch`, as any batch).
fn check_batch(
    v: &mut Validator,
    m: &Msg<'_>,
    mut tracked: Option<(&mut Tracker, Direction)>,
    out: &mut Vec<Violation>,
) -> Vec<BatchElement> {
    let start = m
        .frame
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(0);
    let n = m.env.batch_elements().into_iter().flatten().count();
    // A revision without batches refuses every batch under its own rule, whatever its size
    // (review: a batch over the size limit under 2025-06-18 was reported `batch-too-large`,
    // though its size is not what is wrong).
    //
    // Under `auto`, a stream known to be 2025-06-18 or later has no batches (hostile trial:
    // only the 2026-07-28 era was refused, so a batch after a 2025-06-18 handshake passed).
    let era_forbids = v.profile == Profile::Auto
        && match v.era {
            Era::Modern => true,
            Era::Legacy(Some(r)) => r >= Revision::V2025_06_18,
            _ => false,
        };
    if !batch_allowed(v.profile) || era_forbids {
        push(
            out,
            Rule::Core(ErrorKind::Batch),
            start,
            format!(
                "JSON-RPC batches are not allowed by {}",
                v.revision_name().unwrap_or("this profile")
            ),
        );
        // Over the size limit, no per-element outcomes (as for `batch-too-large`): a gateway
        // answers the batch with one error, not one per element.
        if n > super::MAX_BATCH_ELEMENTS {
            return Vec::new();
        }
        return vec![BatchElement::new(Tracked::Untracked, None); n];
    }
    if n > super::MAX_BATCH_ELEMENTS {
        push(
            out,
            Rule::BatchTooLarge,
            start,
            format!(
                "JSON-RPC batch of {n} elements (at most {} are checked)",
                super::MAX_BATCH_ELEMENTS
            ),
        );
        return Vec::new();
    }
    let mut outcomes = Vec::with_capacity(n);
    // Whether the batch's first message is a request or notification (`true`) or a
    // response (`false`): 2025-03-26 has a batch of the one (`JSONRPCBatchRequest`) and a
    // batch of the other (`JSONRPCBatchResponse`), no mixed batch (spec trial, session 22: a
    // request and a response in one batch passed).
    let mut batch_of_requests: Option<bool> = None;
    // Reported once, at the first element of the other side (re-trial, session 22: each
    // such element was reported).
    let mut mixed = false;
    for el in m.env.batch_elements().into_iter().flatten() {
        let env = match crate::envelope::parse(el.slice(m.frame)) {
            Ok(env) => env,
            Err(e) => {
                out.push(Violation::from_error(&e.shifted(el.start())));
                outcomes.push(BatchElement::new(Tracked::Untracked, None));
                continue;
            }
        };
        let id = match env.id() {
            Some(crate::Id::Str(_) | crate::Id::Int { .. }) => env.id_raw().map(str::to_owned),
            _ => None,
        };
        // Refused, not checked or tracked: a nested batch, and `initialize` ([B-0326] "The
        // initialize request MUST NOT be part of a JSON-RPC batch"; a legacy `initialize`
        // would also reset the tracker).
        let initialize = env.shape() == Shape::Request
            && env.method().is_some_and(|m| m.decode() == "initialize");
        let refused = match env.shape() {
            Shape::Batch => Some("nested batch"),
            _ if initialize => Some("initialize must not be part of a JSON-RPC batch"),
            _ => None,
        };
        if let Some(why) = refused {
            push(out, Rule::Core(ErrorKind::Batch), el.start(), why);
            outcomes.push(BatchElement::new(Tracked::Untracked, id));
            continue;
        }
        let request_side = match env.shape() {
            Shape::Request | Shape::Notification => Some(true),
            Shape::Result | Shape::Error => Some(false),
            _ => None,
        };
        if let Some(side) = request_side
            && !mixed
        {
            match batch_of_requests {
                None => batch_of_requests = Some(side),
                Some(first) if first != side => {
                    mixed = true;
                    push(
                        out,
                        Rule::Core(ErrorKind::Batch),
                        el.start(),
                        if first {
                            "a response in a batch of requests (a batch holds requests and \
                             notifications, or responses)"
                        } else {
                            "a request or notification in a batch of responses (a batch \
                             holds requests and notifications, or responses)"
                        },
                    );
                }
                Some(_) => {}
            }
        }
        let mut sub = Vec::new();
        let t = tracked.as_mut().map(|(t, d)| (&mut **t, *d));
        let tracked = check(v, &Msg::from_envelope(&env), t, &mut sub);
        outcomes.push(BatchElement::new(tracked, id));
        for mut s in sub {
            s.offset += el.start();
            out.push(s);
        }
    }
    if v.profile == Profile::Auto && v.era == Era::Modern {
        // An element showed the modern era, which has no batches (hostile trial: a batch of
        // one 2026-07-28 request at stream start passed under `auto`).
        push(
            out,
            Rule::Core(ErrorKind::Batch),
            start,
            "JSON-RPC batches are not allowed in 2026-07-28 traffic",
        );
    }
    if outcomes.is_empty() {
        push(
            out,
            Rule::Core(ErrorKind::EmptyBatch),
            start,
            "empty JSON-RPC batch",
        );
    }
    outcomes
}

/// The revision whose rules apply to this message (`None` = legacy union), updating the
/// auto profile's era.
fn effective_revision(
    v: &mut Validator,
    m: &Msg<'_>,
    request_rev: Option<Option<Revision>>,
) -> Option<Revision> {
    match v.profile {
        Profile::Legacy => return None,
        Profile::Auto => {}
        p => return p.revision(),
    }
    let by_era = |era: Era| match era {
        Era::Modern => Some(Revision::V2026_07_28),
        Era::Legacy(r) => r,
        Era::Undecided => None,
    };
    match m.shape {
        Shape::Request => {
            if let Some(s) = m.meta_get(meta::PROTOCOL_VERSION) {
                // The key alone marks a modern request (spec digest §8), whatever its value: a
                // value that is not a string is then reported under 2026-07-28 (hostile
                // trial: `"protocolVersion": 5` on a first frame was judged legacy, valid).
                let rev = m
                    .str_at(s)
                    .and_then(|pv| Revision::from_version(&pv))
                    .unwrap_or(Revision::V2026_07_28);
                // The request is judged under the revision it names; it decides the stream
                // only while nothing has (trial finding: one such request after an
                // `initialize` handshake switched a legacy session to 2026-07-28 rules, and
                // the proxy rejected every later plain request).
                if v.era == Era::Undecided {
                    v.era = if rev.is_modern() {
                        Era::Modern
                    } else {
                        Era::Legacy(Some(rev))
                    };
                }
                return Some(rev);
            }
            if m.method.as_deref() == Some("initialize") {
                let rev = m
                    .param("protocolVersion")
                    .and_then(|s| m.str_at(s))
                    .and_then(|pv| Revision::from_version(&pv))
                    .filter(|r| !r.is_modern());
                v.era = Era::Legacy(rev);
                return rev;
            }
            by_era(v.era)
        }
        Shape::Result | Shape::Error => {
            if let Some(r) = request_rev {
                return r;
            }
            if m.shape == Shape::Result {
                if m.result_member("resultType").is_some() {
                    // Every 2026-07-28 result has `resultType`, but a legacy custom method
                    // may return one too: it decides only a stream nothing has decided yet
                    // (trial finding: one such result after an `initialize` handshake
                    // switched the rest of the file to 2026-07-28 rules).
                    if v.era == Era::Undecided {
                        v.era = Era::Modern;
                    }
                } else if let Some(pv) = m
                    .result
                    .and_then(|r| m.member_quietly(r, "protocolVersion"))
                    .and_then(|s| m.str_at(s))
                {
                    v.era = Era::Legacy(Revision::from_version(&pv).filter(|r| !r.is_modern()));
                }
            }
            by_era(v.era)
        }
        _ => by_era(v.era),
    }
}

fn from_client(dir: Direction) -> Option<bool> {
    match dir {
        Direction::ClientToServer => Some(true),
        Direction::ServerToClient => Some(false),
        Direction::Unknown => None,
    }
}

fn check_request(
    v: &Validator,
    m: &Msg<'_>,
    rev: Option<Revision>,
    dir: Direction,
    out: &mut Vec<Violation>,
) {
    let strict = rev == Some(Revision::V2026_07_28);
    let method = m.method.as_deref().unwrap_or("");
    let moff = m.method_span.map_or(0, |s| s.start());
    let rev_name = rev.map_or("legacy", Revision::as_str);
    if method.starts_with("notifications/") {
        push(
            out,
            Rule::NotificationWithId,
            m.id.map_or(moff, |s| s.start()),
            format!("notification {method:?} carries an id"),
        );
    } else if strict && dir == Direction::ServerToClient {
        push(
            out,
            Rule::ServerRequest,
            moff,
            format!("server sent request {method:?}; 2026-07-28 servers never send requests"),
        );
    } else {
        let lookup = methods::lookup(rev, method, true, from_client(dir), v.tasks_extension);
        match lookup {
            Lookup::Known => {}
            Lookup::WrongDirection | Lookup::Removed => {
                lookup_violation(out, lookup, "request", method, dir, rev_name, moff);
            }
            // Legacy method sets are open in practice (the legacy docs themselves use
            // illustrative names such as `some_method`); only 2026-07-28 is judged closed.
            // Names beginning `rpc.` are reserved by JSON-RPC 2.0 §4 for its own methods and
            // extensions (`rpc.discover`) in every revision (spec trial, session 22: they
            // passed the legacy profiles).
            Lookup::WrongKind | Lookup::Unknown if !strict && method.starts_with("rpc.") => {
                rpc_reserved(out, "method", method, moff)
            }
            Lookup::WrongKind | Lookup::Unknown if !strict => {}
            Lookup::WrongKind | Lookup::Unknown => push(
                out,
                Rule::UnknownMethod,
                moff,
                format!("method {method:?} is not a {rev_name} request"),
            ),
        }
    }
    // The per-request `_meta` fields are the client's (§4.2): a server's request, or a
    // notification name written with an id, is already reported as such, and holding it to
    // the client's fields only added two records (spec trial, session 22).
    if !strict || method.starts_with("notifications/") || dir == Direction::ServerToClient {
        return;
    }
    let at = m.meta.or(m.params).map_or(moff, |s| s.start());
    match m.meta_get(meta::PROTOCOL_VERSION) {
        None => push(
            out,
            Rule::MissingProtocolVersion,
            at,
            "request params._meta lacks \"io.modelcontextprotocol/protocolVersion\"",
        ),
        Some(s) => match m.str_at(s) {
            None => push(
                out,
                Rule::ReservedMetaValue,
                s.start(),
                "\"io.modelcontextprotocol/protocolVersion\" is not a string",
            ),
            Some(pv) if pv != Revision::V2026_07_28.as_str() => push(
                out,
                Rule::UnsupportedProtocolVersion,
                s.start(),
                format!("protocol version {pv:?} is not supported (supported: 2026-07-28)"),
            ),
            Some(_) => {}
        },
    }
    match m.meta_get(meta::CLIENT_CAPABILITIES) {
        None => push(
            out,
            Rule::MissingClientCapabilities,
            at,
            "request params._meta lacks \"io.modelcontextprotocol/clientCapabilities\"",
        ),
        Some(s) if m.kind_at(s) != Some(Kind::Object) => push(
            out,
            Rule::ReservedMetaValue,
            s.start(),
            "\"io.modelcontextprotocol/clientCapabilities\" is not an object",
        ),
        Some(caps) => {
            if !params::holds(m, Want::Shaped(&CLIENT_CAPABILITIES_2026), caps) {
                push(
                    out,
                    Rule::ReservedMetaValue,
                    caps.start(),
                    format!(
                        "\"io.modelcontextprotocol/clientCapabilities\" is not {}",
                        CLIENT_CAPABILITIES_2026.what
                    ),
                );
            }
            check_extension_ids(m, caps, out);
        }
    }
}

/// [`Rule::UnknownMethod`] at `moff` for `method`, a name beginning `rpc.` that no profile
/// defines (`what`: `"method"` for a request, `"notification"`): JSON-RPC 2.0 §4 reserves
/// such names for its own methods and extensions in every revision.
fn rpc_reserved(out: &mut Vec<Violation>, what: &str, method: &str, moff: usize) {
    push(
        out,
        Rule::UnknownMethod,
        moff,
        format!(
            "{what} {method:?}: names beginning with \"rpc.\" are reserved for JSON-RPC's own \
             methods (JSON-RPC 2.0 §4), not MCP methods"
        ),
    );
}

/// The `extensions` of a capabilities object at `caps` (a request's client capabilities, a
/// `server/discover` result's server capabilities), when present: an object whose keys
/// are extension identifiers, the `_meta` key grammar with a mandatory prefix
/// (`com.example/name`; spec digest §4.1). A key that breaks it is `meta-key-grammar` at its
/// opening quote, `extensions` not an object `reserved-meta-value` at its value (spec trial,
/// session 22: `"bad key!"` and `"extensions":[]` passed), and so is an extension's value
/// that is not an object (trial, session 24).
fn check_extension_ids(m: &Msg<'_>, caps: crate::Span, out: &mut Vec<Violation>) {
    let Some(ext) = m.member(caps, "extensions") else {
        return;
    };
    if m.kind_at(ext) != Some(Kind::Object) {
        push(
            out,
            Rule::ReservedMetaValue,
            ext.start(),
            "capabilities \"extensions\" is not an object",
        );
        return;
    }
    for mem in crate::envelope::members(m.frame, ext) {
        // Each extension's settings are an object (`{}` when it has none): the SDKs type
        // `extensions` as a map of objects (trial, session 24: `"com.example/x":1` passed).
        if m.kind_at(mem.value) != Some(Kind::Object) {
            push(
                out,
                Rule::ReservedMetaValue,
                mem.value.start(),
                format!("extension {:?} settings are not an object", mem.key),
            );
        }
        if !matches!(meta::parse_key(&mem.key), Some((Some(_), _))) {
            push(
                out,
                Rule::MetaKeyGrammar,
                mem.key_span.start().saturating_sub(1),
                format!(
                    "extension identifier {:?} breaks the grammar: a prefix, then a name \
                     (\"com.example/name\")",
                    mem.key
                ),
            );
        }
    }
}

fn check_notification(
    v: &Validator,
    m: &Msg<'_>,
    rev: Option<Revision>,
    dir: Direction,
    out: &mut Vec<Violation>,
) {
    let strict = rev == Some(Revision::V2026_07_28);
    let method = m.method.as_deref().unwrap_or("");
    let moff = m.method_span.map_or(0, |s| s.start());
    let rev_name = rev.map_or("legacy", Revision::as_str);
    if methods::is_request_method(rev, method, v.tasks_extension) {
        push(
            out,
            Rule::RequestWithoutId,
            moff,
            format!("request method {method:?} without an id"),
        );
        return;
    }
    let lookup = methods::lookup(rev, method, false, from_client(dir), v.tasks_extension);
    lookup_violation(out, lookup, "notification", method, dir, rev_name, moff);
    // Unknown notifications pass (receivers ignore them), but names beginning `rpc.` are
    // reserved by JSON-RPC 2.0 §4 for the protocol's own methods, in every revision: a
    // backend's JSON-RPC library may act on them itself (e.g. subscription notifications
    // `rpc.on` / `rpc.off` in some WebSocket stacks), so a gateway must not pass them as MCP.
    if method.starts_with("rpc.") && matches!(lookup, Lookup::WrongKind | Lookup::Unknown) {
        rpc_reserved(out, "notification", method, moff);
    }
    if strict
        && (method == "notifications/subscriptions/acknowledged"
            || (v.listen_stream && LISTEN_NOTIFICATIONS.contains(&method)))
        && m.meta_get(meta::SUBSCRIPTION_ID).is_none()
    {
        push(
            out,
            Rule::MissingSubscriptionId,
            m.meta.or(m.params).map_or(moff, |s| s.start()),
            format!("{method:?} lacks _meta \"io.modelcontextprotocol/subscriptionId\""),
        );
    }
}

fn check_result(
    v: &Validator,
    m: &Msg<'_>,
    rev: Option<Revision>,
    dir: Direction,
    request: Option<&Request>,
    out: &mut Vec<Violation>,
) {
    let request_method = request.map(|r| r.method.as_str());
    let strict = rev == Some(Revision::V2026_07_28);
    let roff = m.result.map_or(0, |s| s.start());
    if strict && dir == Direction::ClientToServer {
        push(
            out,
            Rule::ClientResponse,
            roff,
            "client sent a response; 2026-07-28 clients never send responses",
        );
    }
    if !strict {
        if let Some(rm) = request_method {
            results::check(m, rev, rm, true, out);
        }
        return;
    }
    let rt = match m.result_member("resultType") {
        None => {
            push(
                out,
                Rule::MissingResultType,
                roff,
                "result lacks \"resultType\"",
            );
            None
        }
        Some(s) => match m.str_at(s) {
            None => {
                push(
                    out,
                    Rule::UnknownResultType,
                    s.start(),
                    "\"resultType\" is not a string",
                );
                None
            }
            Some(t) => {
                if t != "complete"
                    && t != "input_required"
                    && !v.result_types.iter().any(|d| *d == *t)
                {
                    push(
                        out,
                        Rule::UnknownResultType,
                        s.start(),
                        format!("unknown resultType {t:?}"),
                    );
                }
                Some((t, s))
            }
        },
    };
    if let Some((t, s)) = &rt
        && t == "input_required"
    {
        check_input_required(m, s.start(), out);
        if let Some(rm) = request_method
            && !MRTR_METHODS.contains(&rm)
        {
            push(
                out,
                Rule::InputRequiredNotAllowed,
                s.start(),
                format!(
                    "input_required answers {rm:?}; only tools/call, prompts/get and resources/read may"
                ),
            );
        }
    }
    if let Some((t, s)) = &rt
        && t == "task"
        && let Some(r) = request
        && v.result_types.iter().any(|d| d == "task")
    {
        if r.method != "tools/call" {
            push(
                out,
                Rule::TaskResultNotAllowed,
                s.start(),
                format!(
                    "resultType \"task\" answers {:?}; only tools/call may be answered with a task",
                    r.method
                ),
            );
        } else if !r.tasks_declared {
            push(
                out,
                Rule::TaskResultNotAllowed,
                s.start(),
                "resultType \"task\" answers a tools/call that did not declare the io.modelcontextprotocol/tasks extension",
            );
        }
    }
    // A result without `resultType` is read as complete ([B]; it is also `missing-result-type`
    // above); one with a non-string or other value is not a complete result.
    let complete = rt
        .as_ref()
        .map_or(m.result_member("resultType").is_none(), |(t, _)| {
            t == "complete"
        });
    if let Some(rm) = request_method {
        results::check(m, rev, rm, complete, out);
    }
    // The server's extension identifiers follow the client's grammar (spec digest §4.1).
    if request_method == Some("server/discover")
        && let Some(caps) = m.result_member("capabilities")
        && m.kind_at(caps) == Some(Kind::Object)
    {
        check_extension_ids(m, caps, out);
    }
    let cacheable = request_method.filter(|rm| complete && CACHEABLE_METHODS.contains(rm));
    check_cache_fields(m, cacheable, out);
    if request_method == Some("subscriptions/listen") && m.meta_get(meta::SUBSCRIPTION_ID).is_none()
    {
        push(
            out,
            Rule::MissingSubscriptionId,
            m.meta
                .unwrap_or_else(|| m.result.unwrap_or_default())
                .start(),
            "subscriptions/listen result lacks _meta \"io.modelcontextprotocol/subscriptionId\"",
        );
    }
}

/// The caching fields of a 2026-07-28 result (spec digest §11, [CACHE], [JS]
/// `CacheableResult`): when present, `ttlMs` a non-negative integer (milliseconds) and
/// `cacheScope` `"public"` or `"private"`. `cacheable` is the answered method when the tracker
/// matched the result to a request of [`CACHEABLE_METHODS`] and the result is complete
/// (`resultType` `"complete"` or absent): then both fields are required, and a missing one is
/// reported at the result object. When the answered method is unknown (one side's traffic, no
/// tracker, an evicted or ambiguous id) their absence is not judged: which results must carry
/// them depends on the request.
fn check_cache_fields(m: &Msg<'_>, cacheable: Option<&str>, out: &mut Vec<Violation>) {
    // A task (a `Task` of the Tasks extension, `tasks/get` results, `resultType: "task"`) has
    // a `ttlMs` of its own (retention; `null` for unlimited), not the caching field
    // (re-trial, session 12). A complete result of a cacheable method is no task, whatever
    // members it adds.
    if cacheable.is_none() && m.result_member("taskId").is_some() {
        return;
    }
    if let Some(method) = cacheable {
        for field in ["ttlMs", "cacheScope"] {
            if m.result_member(field).is_none() {
                push(
                    out,
                    Rule::CacheField,
                    m.result.map_or(0, |s| s.start()),
                    format!(
                        "complete {method} result lacks {field:?} (cacheable results carry ttlMs and cacheScope)"
                    ),
                );
            }
        }
    }
    if let Some(ttl) = m.result_member("ttlMs") {
        let raw = ttl.slice(m.frame);
        if !m.is_integer(ttl) || raw.first() == Some(&b'-') {
            push(
                out,
                Rule::CacheField,
                ttl.start(),
                format!(
                    "ttlMs {} is not a non-negative integer (milliseconds)",
                    String::from_utf8_lossy(raw)
                ),
            );
        }
    }
    if let Some(scope) = m.result_member("cacheScope")
        && !m
            .str_at(scope)
            .is_some_and(|s| s == "public" || s == "private")
    {
        push(
            out,
            Rule::CacheField,
            scope.start(),
            "cacheScope is not \"public\" or \"private\"",
        );
    }
}

fn check_input_required(m: &Msg<'_>, rt_off: usize, out: &mut Vec<Violation>) {
    let reqs = m.result_member("inputRequests");
    let state = m.result_member("requestState");
    if reqs.is_none() && state.is_none() {
        push(
            out,
            Rule::InputRequiredShape,
            rt_off,
            "input_required result has neither inputRequests nor requestState",
        );
        return;
    }
    // `requestState` is an opaque string (spec digest §3.1; hostile trial, session 12).
    if let Some(st) = state
        && m.kind_at(st) != Some(Kind::String)
    {
        push(
            out,
            Rule::InputRequiredShape,
            st.start(),
            "requestState is not a string",
        );
    }
    let Some(reqs) = reqs else { return };
    if m.kind_at(reqs) != Some(Kind::Object) {
        push(
            out,
            Rule::InputRequiredShape,
            reqs.start(),
            "inputRequests is not an object",
        );
        return;
    }
    // Key -> already reported as repeated.
    let mut keys: std::collections::HashMap<std::borrow::Cow<'_, str>, bool> = Default::default();
    for r in crate::envelope::members(m.frame, reqs) {
        // Keys are unique (spec digest §3.1): a repeated one is reported like any repeated
        // member a rule reads (once per key), and only its first copy is judged.
        if let Some(reported) = keys.get_mut(&r.key) {
            if !*reported {
                *reported = true;
                m.note_repeated(r.key_span);
            }
            continue;
        }
        keys.insert(r.key.clone(), false);
        if m.kind_at(r.value) != Some(Kind::Object) {
            push(
                out,
                Rule::InputRequiredShape,
                r.value.start(),
                format!("inputRequests[{:?}] is not an object", r.key),
            );
            continue;
        }
        match m.member(r.value, "method").map(|s| (s, m.str_at(s))) {
            Some((s, Some(meth))) => {
                if !INPUT_REQUEST_METHODS.contains(&&*meth) {
                    push(
                        out,
                        Rule::InputRequestMethod,
                        s.start(),
                        format!(
                            "inputRequests[{:?}] method {meth:?} is not elicitation/create, sampling/createMessage or roots/list",
                            r.key
                        ),
                    );
                    continue;
                }
                // The embedded request's params, judged as a top-level request of its method
                // would be (`missing-param`, `param-type`); `params` itself an object when
                // present (roots/list may omit it).
                let params = m.member(r.value, "params");
                match params {
                    Some(p) if m.kind_at(p) != Some(Kind::Object) => push(
                        out,
                        Rule::InputRequiredShape,
                        p.start(),
                        format!("inputRequests[{:?}].params is not an object", r.key),
                    ),
                    _ => params::check_input_request(m, &meth, params, s.start(), out),
                }
            }
            Some((s, None)) => push(
                out,
                Rule::InputRequiredShape,
                s.start(),
                format!("inputRequests[{:?}].method is not a string", r.key),
            ),
            None => push(
                out,
                Rule::InputRequiredShape,
                r.value.start(),
                format!("inputRequests[{:?}] has no method", r.key),
            ),
        }
    }
}

fn check_error(m: &Msg<'_>, rev: Option<Revision>, dir: Direction, out: &mut Vec<Violation>) {
    let strict = rev == Some(Revision::V2026_07_28);
    let eoff = m.error.map_or(0, |s| s.start());
    if strict && dir == Direction::ClientToServer {
        push(
            out,
            Rule::ClientResponse,
            eoff,
            "client sent an error response; 2026-07-28 clients never send responses",
        );
    }
    if strict
        && let Some(id) = m.id
        && m.kind_at(id) == Some(Kind::Null)
    {
        push(
            out,
            Rule::NullErrorId,
            id.start(),
            "\"id\": null; 2026-07-28 omits the id when the request's id was unreadable",
        );
    }
    if m.id.is_none() && rev.is_some_and(Revision::requires_error_id) {
        push(
            out,
            Rule::MissingErrorId,
            0,
            format!(
                "error response without \"id\"; {} requires it (\"id\": null when the request's id was unreadable)",
                rev.map_or("legacy", Revision::as_str)
            ),
        );
    }
    let Some((code, s)) = m.error_code() else {
        return;
    };
    if strict {
        check_error_data(m, code, s, out);
    }
    if !(-32768..=-32000).contains(&code) || matches!(code, -32700 | -32603..=-32600) {
        return;
    }
    let reason = if (-32099..=-32000).contains(&code) {
        if !strict {
            return;
        }
        match code {
            -32022..=-32020 => return,
            -32002 => {
                "-32002 (resource not found) must not be emitted by 2026-07-28 implementations"
            }
            -32042 => {
                "-32042 (URL elicitation required) must not be emitted by 2026-07-28 implementations"
            }
            -32019..=-32000 => return,
            _ => "codes -32023..-32099 are reserved for future MCP errors",
        }
    } else {
        "codes -32768..-32100 are reserved by JSON-RPC 2.0 and not defined"
    };
    push(
        out,
        Rule::ReservedErrorCode,
        s.start(),
        format!("error code {code}: {reason}"),
    );
}

/// The unprefixed `_meta` keys the rules read (`progressToken` in every revision, the W3C
/// trace context keys in 2026-07-28).
const META_KEYS_READ: &[&str] = &["progressToken", "traceparent", "tracestate", "baggage"];

fn check_meta_keys(m: &Msg<'_>, rev: Option<Revision>, out: &mut Vec<Violation>) {
    let Some(meta_span) = m.meta else { return };
    let strict = rev == Some(Revision::V2026_07_28);
    // The message's cached `_meta` members (the rules' `meta_get` reads share them).
    for mem in m.cached_members(meta_span).unwrap_or_default() {
        let key: &str = &mem.key;
        let koff = mem.key_span.start().saturating_sub(1);
        match key {
            "progressToken" => {
                if !(m.kind_at(mem.value) == Some(Kind::String) || m.is_integer(mem.value)) {
                    push(
                        out,
                        Rule::ReservedMetaValue,
                        mem.value.start(),
                        "\"progressToken\" is not a string or integer",
                    );
                }
                continue;
            }
            "traceparent" | "tracestate" | "baggage" if strict => {
                if m.kind_at(mem.value) != Some(Kind::String) {
                    push(
                        out,
                        Rule::ReservedMetaValue,
                        mem.value.start(),
                        format!("{key:?} is not a string"),
                    );
                }
                continue;
            }
            meta::LOG_LEVEL if strict => {
                if !m
                    .str_at(mem.value)
                    .is_some_and(|l| params::LEVELS.contains(&l.as_ref()))
                {
                    push(
                        out,
                        Rule::ReservedMetaValue,
                        mem.value.start(),
                        "\"io.modelcontextprotocol/logLevel\" is not a logging level (\"debug\" … \"emergency\")",
                    );
                }
                continue;
            }
            meta::CLIENT_INFO | meta::SERVER_INFO if strict => {
                // `Implementation`: `name` and `version` strings required ([TS]).
                let ok = m.kind_at(mem.value) == Some(Kind::Object)
                    && ["name", "version"].iter().all(|k| {
                        m.member(mem.value, k)
                            .is_some_and(|v| m.kind_at(v) == Some(Kind::String))
                    });
                if !ok {
                    push(
                        out,
                        Rule::ReservedMetaValue,
                        mem.value.start(),
                        format!(
                            "{key:?} is not an Implementation (an object with string \"name\" and \"version\")"
                        ),
                    );
                }
                // Its optional members, when present ([JS] `Implementation.properties`).
                if m.kind_at(mem.value) == Some(Kind::Object) {
                    for (member, want, what) in IMPLEMENTATION_OPTIONAL {
                        if let Some(v) = m.member(mem.value, member)
                            && m.kind_at(v) != Some(*want)
                        {
                            push(
                                out,
                                Rule::ReservedMetaValue,
                                v.start(),
                                format!("{key:?}.{member} is not {what}"),
                            );
                        }
                    }
                    // The icons themselves, as `initialize`'s `clientInfo` has them (the
                    // Python SDK's 2026 models refuse an icon without a string `src`).
                    if let Some(v) = m.member(mem.value, "icons")
                        && m.kind_at(v) == Some(Kind::Array)
                        && !params::holds(m, ICONS, v)
                    {
                        push(
                            out,
                            Rule::ReservedMetaValue,
                            v.start(),
                            format!(
                                "{key:?}.icons is not an array of Icon objects (src string; \
                                 mimeType string, sizes strings, theme \"light\" or \"dark\")"
                            ),
                        );
                    }
                }
                continue;
            }
            meta::SUBSCRIPTION_ID if strict => {
                if !(m.kind_at(mem.value) == Some(Kind::String) || m.is_integer(mem.value)) {
                    push(
                        out,
                        Rule::ReservedMetaValue,
                        mem.value.start(),
                        "\"io.modelcontextprotocol/subscriptionId\" is not a string or integer",
                    );
                }
                continue;
            }
            _ => {
                // A variant of a key MCP defines for `_meta` (`"ProgressToken"`,
                // `"io.modelcontextprotocol/ProtocolVersion"`), under every revision: a
                // case-insensitive backend reads it as that key (re-trial, session 16). One
                // finding: not also a grammar or reserved-prefix one.
                if META_KEYS_READ
                    .iter()
                    .chain(meta::KNOWN_2026)
                    .chain(meta::KNOWN_2025_11_25)
                    .any(|k| msg::is_case_variant(key, k))
                {
                    m.note_case_variant(mem.key_span);
                    continue;
                }
            }
        }
        let Some(r) = rev.filter(|r| meta::has_grammar(*r)) else {
            continue;
        };
        match meta::parse_key(key) {
            None => push(
                out,
                Rule::MetaKeyGrammar,
                koff,
                format!("_meta key {key:?} breaks the key grammar"),
            ),
            Some((prefix, _)) => {
                // The Tasks extension defines methods and a result type, no `_meta` key: with
                // it declared, unknown reserved keys are still reported (hostile trial: every
                // `io.modelcontextprotocol/*` key passed, `related-task` of 2025-11-25 too).
                if meta::is_reserved_prefix(r, prefix) && !meta::is_defined(r, key) {
                    push(
                        out,
                        Rule::ReservedMetaKey,
                        koff,
                        format!(
                            "_meta key {key:?} uses an MCP-reserved prefix but is not defined by {r}"
                        ),
                    );
                }
            }
        }
    }
}

/// Pushes the violation of a method lookup that finds the method sent the wrong way or removed
/// in 2026-07-28 (`what`: "request" or "notification"); other lookups push nothing.
fn lookup_violation(
    out: &mut Vec<Violation>,
    lookup: Lookup,
    what: &str,
    method: &str,
    dir: Direction,
    rev_name: &str,
    moff: usize,
) {
    match lookup {
        Lookup::WrongDirection => push(
            out,
            Rule::WrongDirection,
            moff,
            format!(
                "{what} {method:?} is not sent {} in {rev_name} (only {})",
                dir.describe(),
                dir.reverse().describe()
            ),
        ),
        Lookup::Removed => push(
            out,
            Rule::RemovedMethod,
            moff,
            format!("{what} {method:?} was removed in 2026-07-28"),
        ),
        Lookup::Known | Lookup::WrongKind | Lookup::Unknown => {}
    }
}

/// -32021 and -32022 carry `data` with the members their 2026-07-28 schemas require
/// ([`Rule::ErrorDataShape`]); other codes' `data` is free.
fn check_error_data(m: &Msg<'_>, code: i64, code_span: crate::Span, out: &mut Vec<Violation>) {
    let name = match code {
        -32021 => "MissingRequiredClientCapability",
        -32022 => "UnsupportedProtocolVersion",
        _ => return,
    };
    let Some(data) = m.env.error_data_span() else {
        push(
            out,
            Rule::ErrorDataShape,
            code_span.start(),
            format!("{code} ({name}) has no \"data\""),
        );
        return;
    };
    if m.kind_at(data) != Some(Kind::Object) {
        push(
            out,
            Rule::ErrorDataShape,
            data.start(),
            format!("{code} ({name}): \"data\" is not an object"),
        );
        return;
    }
    let member = |key: &str, want: Kind, what: &str, out: &mut Vec<Violation>| {
        match m.member(data, key) {
            None => push(
                out,
                Rule::ErrorDataShape,
                data.start(),
                format!("{code} ({name}): \"data\" lacks {key:?}"),
            ),
            Some(v) if m.kind_at(v) != Some(want) => push(
                out,
                Rule::ErrorDataShape,
                v.start(),
                format!("{code} ({name}): data.{key} is not {what}"),
            ),
            Some(v) => return Some(v),
        }
        None
    };
    if code == -32021 {
        member("requiredCapabilities", Kind::Object, "an object", out);
        return;
    }
    if let Some(list) = member("supported", Kind::Array, "an array", out)
        && let Some(bad) = crate::envelope::Elements::new(m.frame, list)
            .find(|&v| m.kind_at(v) != Some(Kind::String))
    {
        push(
            out,
            Rule::ErrorDataShape,
            bad.start(),
            format!("{code} ({name}): data.supported holds a value that is not a string"),
        );
    }
    member("requested", Kind::String, "a string", out);
}
