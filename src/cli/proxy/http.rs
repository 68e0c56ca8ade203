//! `mcpwire proxy http --listen IP:PORT --upstream URL`: the Streamable HTTP transport (spec
//! digest §7.2 for 2026-07-28, §7.3 for the legacy revisions).
//!
//! A reverse proxy in front of one MCP endpoint. The endpoint is the path of `--upstream`
//! (e.g. `/mcp`); every request is forwarded to the upstream's authority with its own path
//! and query, its method and its headers (hop-by-hop headers removed, RFC 9110 §7.6.1).
//!
//! * `POST` to the endpoint (client to server): the body is read in full (it is one JSON-RPC
//!   message), up to `--max-body-bytes` (default and at most `--max-frame-bytes`: a body is a
//!   frame); a larger body (by `Content-Length` up front, or while
//!   streaming one without it) is answered 413 with the `frame-too-large` error reply. The
//!   body is validated with the session's client-to-server validator and its mirrored
//!   headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) with
//!   [`mcpwire::profile::check_headers`]. A rejected body is answered with
//!   [`mcpwire::profile::error_reply`] for its first violation at that reply's HTTP status
//!   (400 for -32700, -32600, -32602, -32020 …) and is never forwarded; an accepted body is
//!   forwarded byte-exact.
//! * A rejected body meant as the response to a server request in flight (a malformed
//!   response, or a response-like invalid message whose id answers the request; also such an
//!   element of a rejected legacy batch) is replaced as on stdio: the `-32603` error response
//!   with that id ([`mcpwire::profile::replacement_reply`]) is POSTed upstream in place of the
//!   body (the client's headers, `Mcp-Session-Id` included, with `Content-Length` rewritten;
//!   one POST per replaced batch element), so the server's request does not wait forever.
//!   The upstream's answer to that POST is awaited and discarded (a failure, or a status
//!   other than 2xx, is logged as a `note`); the client still gets its error reply as
//!   above, since its message was rejected (the upstream's `202 Accepted` would tell it
//!   otherwise).
//! * The upstream's response to such a POST streams back unchanged, chunk by chunk as it
//!   arrives (nothing is held back to wait for a whole response). On the way it is framed
//!   and validated as server-to-client traffic: `text/event-stream` bodies event by event
//!   ([`SseFramer`]; events without data, such as legacy priming events, and events of a type
//!   other than `message` are not messages; the latter, when they carry data, are counted
//!   by type in the summary's `sse_other_events`), `application/json` bodies as one message
//!   at their end. Violations are logged with action `forwarded`. The body type is read from
//!   `Content-Type` as the SDK clients read it (`response_reading`: loose matches, a charset
//!   other than UTF-8 and a content coding are noted); requests to the endpoint go upstream
//!   with `Accept-Encoding: identity`, so that the bytes validated are the bytes read.
//! * A `GET` stream of the endpoint (the legacy standalone server-to-client stream, or a
//!   resumed response stream) streams back unchanged as well and is validated the same way,
//!   under a copy of its session's validators: the session's revision applies, but no id is
//!   judged there (the client answers by POST, which the copy does not see, and a resumed
//!   stream replays events the proxy may have seen before), so requests the server sends
//!   there do not enter the session's tracker.
//! * Everything else (`DELETE`, other paths, other methods) is forwarded untouched both
//!   ways, without validation.
//!
//! # Sessions
//!
//! Protocol state (the request-id tracker, the negotiated revision, declared extensions) is
//! kept per session, never across clients:
//!
//! * A request with an `Mcp-Session-Id` header (legacy Streamable HTTP) is judged with the
//!   state of that session id (all its values joined with `", "` when the header is repeated),
//!   and the response to it with the same state. A session id the proxy has no state for (it
//!   started before the proxy, or its state was evicted) starts with fresh state.
//! * A request without `Mcp-Session-Id` (every 2026-07-28 request, and legacy servers that
//!   issue no session ids) is judged on its own, with fresh state that lives only as long as
//!   that request and its response: a stateless client's requests cannot be told apart from
//!   another client's, so nothing is carried between them (no per-connection state either;
//!   clients and intermediaries pool and share connections). When the response to such a
//!   request carries `Mcp-Session-Id` (the `InitializeResult` of a legacy `initialize`), that
//!   state becomes the session's, so the session's later requests are judged in its context.
//! * At most `--max-sessions` sessions (default 1024) are kept; when a new one would exceed
//!   that, the least recently used session's state is dropped (noted once in the log); its
//!   later requests start again with fresh state. `--max-sessions 0` keeps none.
//! * A session's state is dropped when the upstream answers a `DELETE` of the endpoint with
//!   that session id with a 2xx status (the session ended), or answers any request of that
//!   session on the endpoint with 404 (the session expired; the client re-initialises).
//! * Server-to-client requests sent on `GET` streams are validated but not tracked in the
//!   session (see above): a response the client POSTs whose id matches no request the
//!   proxy tracked is not reported as `unknown-response-id` (nor is it after fresh state).
//!   Responses of the server on POST streams are always matched: they answer the request of
//!   their own POST.
//!
//! `--monitor` forwards rejected bodies too (oversize ones included, streamed on as they
//! arrive). The proxy runs until SIGINT / SIGTERM (Ctrl-C off Unix), then writes the summary
//! record and exits 0. Upstream failures are answered 502 (a request with the `-32603`
//! error response carrying its id, so the client's request is answered; a legacy batch with
//! one per request element) and logged as `note` records, and
//! so are a response body that fails midway (what arrived is judged as cut) and a 2xx answer
//! to a POST in a content type other than JSON or SSE.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::{Buf, Bytes, BytesMut};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use mcpwire::codec::FrameFault;
use mcpwire::error::{INTERNAL_ERROR, PARSE_ERROR};
use mcpwire::framing::sse::{LINE_OVERHEAD, SseFramer};
use mcpwire::framing::{FrameError, FrameErrorKind, Status};
use mcpwire::profile::{Direction, Profile, Session, request_error_reply};
use mcpwire::{Limits, Parser};
use serde::Serialize;

use super::judge::{Action, Judge};
use super::log::Log;
use super::sessions::{self, SessionTable, SharedSession};
use super::{CommonProxyArgs, Signals};

/// The body type of everything the proxy sends (to the client and to the upstream).
type ProxyBody = BoxBody<Bytes, hyper::Error>;

/// `mcpwire proxy http` arguments.
#[derive(Debug, clap::Args)]
pub struct HttpArgs {
    #[command(flatten)]
    common: CommonProxyArgs,
    /// Address to listen on, `IP:PORT` (port 0 picks a free port; the `start` log record
    /// names the bound address). Must be a loopback address unless `--allow-remote` is given.
    #[arg(long, value_name = "IP:PORT")]
    listen: SocketAddr,
    /// The upstream MCP endpoint, `http://HOST:PORT/PATH` (plain HTTP). POSTs to PATH are
    /// validated (also to any spelling an upstream may read as PATH: percent-escapes, `//`,
    /// `\`, `.` / `..` segments, `;` parameters, a trailing `/`, other letter case, and any
    /// path below PATH unless PATH is `/`); every request is forwarded to HOST:PORT with its
    /// own path.
    #[arg(long, value_name = "URL", value_parser = parse_upstream)]
    upstream: Uri,
    /// Largest client-to-server POST body accepted, in bytes; larger ones are answered 413.
    /// Defaults to `--max-frame-bytes`, and cannot exceed it (a POST body is a frame: the
    /// smaller of the two limits applies).
    #[arg(long, value_name = "BYTES")]
    max_body_bytes: Option<usize>,
    /// Allow a non-loopback `--listen` address (the proxy has no authentication of its own).
    #[arg(long)]
    allow_remote: bool,
    /// Sessions (`Mcp-Session-Id` values) whose protocol state is kept; beyond that the least
    /// recently used session's state is dropped. 0 keeps none (every request is judged on
    /// its own).
    #[arg(long, default_value_t = DEFAULT_MAX_SESSIONS, value_name = "N")]
    max_sessions: usize,
    /// Seconds a client has to send a request's headers, and again its whole POST body;
    /// past either the connection is closed (headers) or answered 408 (body). Without it a
    /// client sending a few bytes at a time could hold connections without end.
    /// A number from 0 (read as 1 ms) to 1,000,000.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS", value_parser = super::parse_seconds)]
    read_timeout: f64,
}

/// Default `--max-sessions`.
pub const DEFAULT_MAX_SESSIONS: usize = 1024;

/// The `Mcp-Session-Id` request and response header.
const SESSION_ID: &str = "mcp-session-id";

fn parse_upstream(s: &str) -> Result<Uri, String> {
    let uri: Uri = s.parse().map_err(|e| format!("not a URL: {e}"))?;
    match uri.scheme_str() {
        Some("http") => {}
        Some(other) => {
            return Err(format!(
                "scheme {other:?} is not supported (plain http:// only)"
            ));
        }
        None => return Err("the URL needs a scheme (http://HOST:PORT/PATH)".to_owned()),
    }
    if uri.authority().is_none() {
        return Err("the URL needs a host (http://HOST:PORT/PATH)".to_owned());
    }
    Ok(uri)
}

/// Runs the HTTP proxy until a termination signal; returns 0.
///
/// # Errors
/// A non-loopback `--listen` without `--allow-remote`, the listen address cannot be bound,
/// or the log file cannot be created.
pub fn run(args: HttpArgs) -> io::Result<u8> {
    if !args.listen.ip().is_loopback() && !args.allow_remote {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "--listen {} is not a loopback address; pass --allow-remote to accept \
                 connections from other hosts",
                args.listen
            ),
        ));
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let r = rt.block_on(serve(args));
    rt.shutdown_background();
    r
}

#[derive(Serialize)]
struct Start<'a> {
    event: &'static str,
    transport: &'static str,
    profile: &'static str,
    listen: String,
    upstream: &'a str,
    monitor: bool,
    max_body_bytes: usize,
    max_frame_bytes: usize,
    max_sessions: usize,
}

#[derive(Serialize)]
struct Note<'a> {
    event: &'static str,
    message: &'a str,
}

/// Shared state of all connections.
struct Proxy {
    /// `http://host:port` of the upstream.
    scheme: hyper::http::uri::Scheme,
    authority: hyper::http::uri::Authority,
    /// The MCP endpoint path (`/mcp`).
    endpoint: Endpoint,
    client: Client<HttpConnector, ProxyBody>,
    judge: Mutex<Judge>,
    /// Session state by `Mcp-Session-Id`. Lock order: the table alone (never while a session
    /// or the judge is locked), or a session then the judge.
    sessions: Mutex<SessionTable>,
    /// The eviction note was written.
    eviction_noted: std::sync::atomic::AtomicBool,
    profile: Profile,
    max_in_flight: usize,
    /// Client-to-server parser (frame limit [`Proxy::max_body`]).
    c2s: Parser,
    /// Server-to-client parser (frame limit `--max-frame-bytes`).
    s2c: Parser,
    /// Largest POST body accepted: `--max-body-bytes` where given and smaller than
    /// `--max-frame-bytes`, else `--max-frame-bytes`.
    max_body: usize,
    /// `--read-timeout`.
    read_timeout: std::time::Duration,
    max_frame: usize,
    max_sessions: usize,
}

impl Proxy {
    fn judge(&self) -> std::sync::MutexGuard<'_, Judge> {
        self.judge.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn note(&self, message: &str) {
        self.judge().log.record(&Note {
            event: "note",
            message,
        });
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, SessionTable> {
        self.sessions.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Fresh session state. Server-to-client requests on `GET` streams pass unseen.
    fn fresh_session(&self) -> Session {
        let mut s = Session::new(self.profile, self.max_in_flight);
        s.tracker_mut().set_partial(Direction::ServerToClient);
        s
    }

    /// The state the messages of a `GET` stream of the endpoint (request headers `h`) are
    /// judged with: a copy of its session's validators (the negotiated revision, declared
    /// extensions), so they are judged under the session's revision, with a tracker of its
    /// own that judges no id ([`untracked`]): the client answers the server's requests by
    /// POST, which the copy never sees, and a resumed stream (`Last-Event-ID`) replays
    /// events the proxy may have seen on an earlier stream (re-trial, session 13: a replayed
    /// request was a false `duplicate-request-id`). A GET naming a session the proxy has no
    /// state for is judged with fresh state, which is not stored (it would take a place in
    /// the session table and could evict a live session's state).
    fn get_stream_state(&self, h: &HeaderMap) -> SharedSession {
        let mut s = match session_key(h).and_then(|k| self.sessions().get(&k)) {
            Some(shared) => sessions::lock(&shared).clone(),
            None => self.fresh_session(),
        };
        untracked(&mut s);
        sessions::share(s)
    }

    /// The state a request with headers `h` is judged with: its session's, or fresh state
    /// of its own when it names no session.
    fn session_for(&self, h: &HeaderMap) -> SharedSession {
        let Some(key) = session_key(h) else {
            return sessions::share(self.fresh_session());
        };
        let (s, evicted) = {
            let mut t = self.sessions();
            let s = t.get_or_insert_with(&key, || self.fresh_session());
            (s, t.evicted())
        };
        if evicted > 0
            && !self
                .eviction_noted
                .swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            self.note(&format!(
                "session table full (--max-sessions {}): evicting the least recently used \
                 session's state (noted once)",
                self.max_sessions
            ));
        }
        s
    }
}

/// The session a request or response names: its `Mcp-Session-Id` values, joined with `", "`
/// when repeated (as one field value, RFC 9110 §5.3); `None` without one.
fn session_key(h: &HeaderMap) -> Option<String> {
    let mut values = h.get_all(SESSION_ID).iter();
    let first = values.next()?;
    // Bytes that are not UTF-8 are kept as `\xNN` escapes (not U+FFFD), so two distinct
    // header values never share one session's state.
    let mut key = first.as_bytes().escape_ascii().to_string();
    for v in values {
        key.push_str(", ");
        key.push_str(&v.as_bytes().escape_ascii().to_string());
    }
    Some(key)
}

async fn serve(args: HttpArgs) -> io::Result<u8> {
    let c = &args.common;
    // A POST body is one frame: `--max-frame-bytes` bounds it as well (hostile trial D4:
    // with `--max-frame-bytes 1000` alone, a 1,350-byte body was forwarded).
    let max_body = args
        .max_body_bytes
        .map_or(c.max_frame_bytes, |b| b.min(c.max_frame_bytes));
    let mut log = Log::open(c.log.as_deref())?.max_bytes(c.log_max_bytes);
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| io::Error::new(e.kind(), format!("cannot listen on {}: {e}", args.listen)))?;
    let local = listener.local_addr()?;
    let upstream = args.upstream.to_string();
    log.record(&Start {
        event: "start",
        transport: "http",
        profile: c.profile.as_str(),
        listen: local.to_string(),
        upstream: &upstream,
        monitor: c.monitor,
        max_body_bytes: max_body,
        max_frame_bytes: c.max_frame_bytes,
        max_sessions: args.max_sessions,
    });
    if let Some(b) = args.max_body_bytes.filter(|&b| b > c.max_frame_bytes) {
        log.record(&Note {
            event: "note",
            message: &format!(
                "--max-body-bytes {b} is above --max-frame-bytes {}: POST bodies are limited to {max_body} bytes",
                c.max_frame_bytes
            ),
        });
    }
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    let parts = args.upstream.into_parts();
    let (Some(scheme), Some(authority)) = (parts.scheme, parts.authority) else {
        return Err(io::Error::other("upstream URL without scheme or host"));
    };
    let endpoint = Endpoint::new(
        parts
            .path_and_query
            .map(|p| p.path().to_owned())
            .unwrap_or_else(|| "/".to_owned()),
    );
    let proxy = Arc::new(Proxy {
        scheme,
        authority,
        endpoint,
        client: Client::builder(TokioExecutor::new()).build(connector),
        judge: Mutex::new(
            Judge::new(c.profile, c.max_in_flight, log, c.monitor)
                .http_replies()
                .max_frame_len(c.max_frame_bytes),
        ),
        sessions: Mutex::new(SessionTable::new(args.max_sessions)),
        eviction_noted: std::sync::atomic::AtomicBool::new(false),
        profile: c.profile,
        max_in_flight: c.max_in_flight,
        max_sessions: args.max_sessions,
        c2s: Parser::with_limits(Limits {
            max_frame_len: max_body,
            ..Limits::DEFAULT
        }),
        s2c: Parser::with_limits(Limits {
            max_frame_len: c.max_frame_bytes,
            ..Limits::DEFAULT
        }),
        max_body,
        read_timeout: std::time::Duration::from_secs_f64(args.read_timeout.max(0.001)),
        max_frame: c.max_frame_bytes,
    });
    let mut signals = Signals::new()?;
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, _) = match accepted {
                    Ok(s) => s,
                    // Out of file descriptors and the like: keep serving the others.
                    Err(e) => {
                        proxy.note(&format!("accept failed: {e}"));
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let p = proxy.clone();
                let header_timeout = proxy.read_timeout;
                tokio::spawn(async move {
                    let svc = hyper::service::service_fn(move |req| handle(p.clone(), req));
                    // A client that hangs up mid-request is its own business. One that sends
                    // its headers too slowly is cut off (re-trial finding: half a request
                    // line held a connection for good, and 300 of them exhausted the file
                    // descriptors).
                    let _ = hyper::server::conn::http1::Builder::new()
                        .timer(TokioTimer::new())
                        .header_read_timeout(header_timeout)
                        .serve_connection(TokioIo::new(stream), svc)
                        .await;
                });
            }
            name = signals.recv() => {
                proxy.note(&format!("{name} received: shutting down"));
                break;
            }
        }
    }
    proxy.judge().log.summary(None);
    Ok(0)
}

/// Hop-by-hop headers (RFC 9110 §7.6.1), never forwarded.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
];

/// Removes hop-by-hop headers and those named in `Connection`; keeps `Upgrade` out too.
fn strip_hop_by_hop(h: &mut HeaderMap) {
    let named: Vec<HeaderName> = h
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|n| HeaderName::from_bytes(n.trim().as_bytes()).ok())
        .collect();
    for n in named {
        h.remove(n);
    }
    for n in HOP_BY_HOP {
        h.remove(n);
    }
    h.remove(header::UPGRADE);
}

fn full(body: impl Into<Bytes>) -> ProxyBody {
    Full::new(body.into())
        .map_err(|never: Infallible| match never {})
        .boxed()
}

/// A response the proxy makes itself.
fn own_response(
    status: u16,
    content_type: &'static str,
    body: impl Into<Bytes>,
) -> Response<ProxyBody> {
    let mut r = Response::new(full(body));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

/// The path's segments as an upstream may read them: `;` parameters dropped, percent-escapes
/// decoded, `/` and `\` both separators (escaped too, as for an upstream that decodes before
/// it routes, or one on Windows), ASCII whitespace around a segment trimmed, empty and `.`
/// segments removed, `..` applied, ASCII case folded. Reading more paths as the endpoint
/// only validates more POSTs.
fn path_segments(path: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for seg in path.split(['/', '\\']) {
        let seg = seg.split(';').next().unwrap_or("");
        let decoded: Vec<u8> = percent_encoding::percent_decode_str(seg).collect();
        for part in decoded.split(|&b| b == b'/' || b == b'\\') {
            let part = String::from_utf8_lossy(part.trim_ascii()).to_ascii_lowercase();
            match part.as_str() {
                "" | "." => {}
                ".." => {
                    out.pop();
                }
                _ => out.push(part),
            }
        }
    }
    out
}

/// Clears `s`'s request-id tracker (both directions marked partial): no id is in flight, so
/// the next message is judged without id history (no duplicate or unknown id); a request
/// id repeated inside one batch is still reported.
fn untracked(s: &mut Session) {
    let max = s.tracker().max_in_flight();
    *s.tracker_mut() = mcpwire::profile::Tracker::new(max);
    for dir in [Direction::ClientToServer, Direction::ServerToClient] {
        s.tracker_mut().set_partial(dir);
    }
}

/// The MCP endpoint's path, and its segments as [`path_segments`] reads them (computed once,
/// not per request).
struct Endpoint {
    path: String,
    segments: Vec<String>,
}

impl Endpoint {
    fn new(path: String) -> Self {
        let segments = path_segments(&path);
        Self { path, segments }
    }

    /// True when `path` names the endpoint for some reading of it (re-trial finding: `//mcp`,
    /// `/m%63p`, `/./mcp`, `/MCP`, `/mcp/` and `/mcp;a` went through unvalidated, and an
    /// upstream that normalises paths served them as `/mcp`). Every such POST is validated.
    ///
    /// A path below the endpoint (`/mcp/x`) is the endpoint too, unless the endpoint is the
    /// root: an upstream that mounts its MCP handler at the endpoint's prefix (Starlette's
    /// `Mount("/mcp", …)`, Go's `mux.Handle("/mcp/", …)`) serves every such path (re-trial,
    /// session 13: POSTs to `/mcp/x` reached such an upstream unvalidated).
    fn matches(&self, path: &str) -> bool {
        if path == self.path {
            return true;
        }
        let segments = path_segments(path);
        if self.segments.is_empty() {
            segments.is_empty()
        } else {
            segments.starts_with(&self.segments)
        }
    }
}

async fn handle(p: Arc<Proxy>, req: Request<Incoming>) -> Result<Response<ProxyBody>, Infallible> {
    if req.method() == Method::POST && p.endpoint.matches(req.uri().path()) {
        return Ok(handle_post(p, req).await);
    }
    if req.method() == Method::GET && p.endpoint.matches(req.uri().path()) {
        let state = p.get_stream_state(req.headers());
        let (parts, body) = req.into_parts();
        return Ok(forward(&p, parts, body.boxed(), Some(state), Unanswered::NONE).await);
    }
    let (parts, body) = req.into_parts();
    Ok(forward(&p, parts, body.boxed(), None, Unanswered::NONE).await)
}

/// The response to a rejected POST body.
fn reply(action: Action) -> Option<Response<ProxyBody>> {
    match action {
        Action::Reply { body, http_status }
        | Action::ReplyAndReplace {
            body, http_status, ..
        } => Some(own_response(http_status, "application/json", body)),
        // Not produced under the HTTP policy (`Judge::http_replies`); a rejected frame is
        // still never forwarded.
        Action::Replace(body) => Some(own_response(400, "application/json", body)),
        Action::Batch {
            reply: Some(body),
            http_status,
            ..
        } => Some(own_response(http_status, "application/json", body)),
        Action::Batch { .. } | Action::Drop => {
            Some(own_response(400, "text/plain", "mcpwire proxy: rejected\n"))
        }
        Action::Forward => None,
    }
}

/// Judges an oversize body (`len` bytes known so far) of `session`; returns the response
/// when rejected.
fn judge_oversize(p: &Proxy, session: &SharedSession, len: u64) -> Option<Response<ProxyBody>> {
    let e = FrameError::new(
        FrameErrorKind::FrameTooLarge,
        0,
        1,
        len.min(usize::MAX as u64) as usize,
    );
    let mut s = sessions::lock(session);
    let action = p.judge().judge(
        &mut s,
        Direction::ClientToServer,
        0,
        &[],
        Err(FrameFault::Framing(e)),
        None,
    );
    reply(action)
}

/// Violation kind of a body the proxy cannot read as messages for its content coding (a
/// request it refuses, or a response it forwards unvalidated).
const CONTENT_CODING: &str = "content-coding";

/// Violation kind of a request body in a transfer coding other than `chunked` (refused).
const TRANSFER_CODING: &str = "transfer-coding";

/// The message's `Content-Length`, when it is one number.
fn content_length(h: &HeaderMap) -> Option<u64> {
    h.get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
}

/// The content codings of a message's `Content-Encoding` fields (joined with `", "`, as HTTP
/// clients join repeated fields), lower-cased, `identity` and empty members left out.
fn codings(h: &HeaderMap) -> Vec<String> {
    coding_list(h, header::CONTENT_ENCODING, &["identity"])
}

/// The transfer codings of a request's `Transfer-Encoding` fields other than `chunked`, which
/// the server side decodes (hyper), lower-cased: `gzip` in `gzip, chunked` reaches the proxy
/// still coded (RFC 9112 §6.1 asks a server for 501 on a transfer coding it does not
/// understand; the trial's `gzip, chunked` body was judged as its coded bytes, a bare 400).
fn transfer_codings(h: &HeaderMap) -> Vec<String> {
    coding_list(h, header::TRANSFER_ENCODING, &["identity", "chunked"])
}

/// The members of the (joined) `field`, lower-cased, without empty ones and those in `skip`.
fn coding_list(h: &HeaderMap, field: header::HeaderName, skip: &[&str]) -> Vec<String> {
    header_text(h, field)
        .unwrap_or_default()
        .to_ascii_lowercase()
        .split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty() && !skip.contains(c))
        .map(str::to_owned)
        .collect()
}

/// Judges a POST body sent in the content `codings` (refused unread: counted as 0 bytes):
/// the proxy validates the bytes it reads and decodes none, and a backend may decode them
/// (body-parser does) or not (Starlette does not), so the message the backend reads cannot
/// be known. Logged as a `content-coding` violation (-32700); unless `--monitor`, answered
/// `415 Unsupported Media Type` with `Accept-Encoding: identity` (RFC 9110 §15.5.16: the
/// codings a request may use) and a JSON-RPC error response without an id (the id cannot be
/// read). Returns that response, or `None` under `--monitor`.
///
/// With `transfer` the codings are a request's transfer codings other than `chunked`
/// ([`transfer_codings`]): the same, logged as `transfer-coding` and answered `501 Not
/// Implemented` (RFC 9112 §6.1), without `Accept-Encoding`.
fn refuse_coded_request(
    p: &Proxy,
    session: &SharedSession,
    codings: &[String],
    transfer: bool,
) -> Option<Response<ProxyBody>> {
    let (field, kind, status) = if transfer {
        ("Transfer-Encoding", TRANSFER_CODING, 501)
    } else {
        ("Content-Encoding", CONTENT_CODING, 415)
    };
    let message = format!(
        "request body in {field} {}: the proxy validates request bodies only without a \
         content coding (identity) and without a transfer coding other than chunked",
        shown(&codings.join(", "))
    );
    let rev = sessions::lock(session).revision(Direction::ClientToServer);
    let body = request_error_reply(
        None,
        PARSE_ERROR,
        &format!("mcpwire proxy: {message}"),
        status,
    )
    .for_revision(rev)
    .body;
    let action = p.judge().unreadable(
        Direction::ClientToServer,
        0,
        kind,
        Some(PARSE_ERROR),
        &message,
        Some((body, status)),
    );
    let mut r = closing(reply(action)?);
    if !transfer {
        r.headers_mut().insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_static("identity"),
        );
    }
    Some(r)
}

/// The most bytes of a refused request body read and thrown away after the answer.
const DRAIN_MAX: u64 = 64 << 20;

/// Reads and throws away the rest of a refused request `body` in a task of its own, while
/// the answer goes out: up to [`DRAIN_MAX`] bytes, for at most `patience` (the read
/// timeout). A client still writing its body (Node's `fetch`, Python's `urllib`) gets to
/// read the answer; closed at once, the connection made its write fail with EPIPE before it
/// read anything (second re-trial, session 22). Beyond either bound the connection closes.
fn drain_later(mut body: Incoming, patience: std::time::Duration) {
    tokio::spawn(async move {
        let deadline = tokio::time::Instant::now() + patience;
        let mut drained = 0u64;
        while drained <= DRAIN_MAX {
            match tokio::time::timeout_at(deadline, body.frame()).await {
                Ok(Some(Ok(frame))) => {
                    drained += frame.data_ref().map_or(0, |d| d.len() as u64);
                }
                _ => break,
            }
        }
    });
}

/// `r` with `Connection: close`, for an answer sent before the request body was read whole:
/// the connection cannot carry another request after it (hyper closes it rather than read a
/// large body to its end), and the client is told so (re-trial, session 22: a 3 MiB coded
/// body's 415 came without it, then the connection closed under the client).
fn closing(mut r: Response<ProxyBody>) -> Response<ProxyBody> {
    r.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

async fn handle_post(p: Arc<Proxy>, req: Request<Incoming>) -> Response<ProxyBody> {
    let (parts, mut body) = req.into_parts();
    let session = p.session_for(&parts.headers);
    let declared = content_length(&parts.headers);
    let (transfer, codings) = match transfer_codings(&parts.headers) {
        t if !t.is_empty() => (true, t),
        _ => (false, codings(&parts.headers)),
    };
    if !codings.is_empty() {
        if let Some(r) = refuse_coded_request(&p, &session, &codings, transfer) {
            drain_later(body, p.read_timeout);
            return r;
        }
        // --monitor: passed on as sent. It may be a request the tracker cannot record: its
        // response must not be reported as matching no request.
        sessions::lock(&session)
            .tracker_mut()
            .set_partial(Direction::ClientToServer);
        return forward(&p, parts, body.boxed(), Some(session), Unanswered::NONE).await;
    }
    if let Some(len) = declared
        && len > p.max_body as u64
    {
        // Rejected by its header, unread: counted as the limit + 1 bytes that reject it (the
        // client's header is not trusted as a count: re-trial, session 22).
        if let Some(r) = judge_oversize(&p, &session, p.max_body as u64 + 1) {
            drain_later(body, p.read_timeout);
            return closing(r);
        }
        // --monitor: stream it on as it comes.
        return forward(&p, parts, body.boxed(), Some(session), Unanswered::NONE).await;
    }
    let mut buf = BytesMut::with_capacity(declared.unwrap_or(0).min(p.max_body as u64) as usize);
    let deadline = tokio::time::Instant::now() + p.read_timeout;
    loop {
        let Ok(frame) = tokio::time::timeout_at(deadline, body.frame()).await else {
            let msg = format!(
                "mcpwire proxy: request body not received within {} s (--read-timeout)\n",
                p.read_timeout.as_secs_f64()
            );
            return own_response(408, "text/plain", msg);
        };
        let Some(frame) = frame else { break };
        let frame = match frame {
            Ok(f) => f,
            // The client went away (or sent a broken chunked body): nobody to answer.
            Err(e) => {
                return own_response(400, "text/plain", format!("mcpwire proxy: {e}\n"));
            }
        };
        if let Ok(data) = frame.into_data() {
            if buf.len() + data.len() > p.max_body {
                let seen = (buf.len() + data.len()) as u64;
                if let Some(r) = judge_oversize(&p, &session, seen) {
                    drain_later(body, p.read_timeout);
                    return closing(r);
                }
                buf.extend_from_slice(&data);
                let prefixed = Prefixed {
                    prefix: Some(buf.freeze()),
                    rest: body,
                };
                return forward(&p, parts, prefixed.boxed(), Some(session), Unanswered::NONE).await;
            }
            buf.extend_from_slice(&data);
        }
    }
    let bytes = buf.freeze();
    let unanswered;
    let mut action = {
        let pairs: Vec<(&str, std::borrow::Cow<'_, str>)> = parts
            .headers
            .iter()
            .map(|(n, v)| (n.as_str(), String::from_utf8_lossy(v.as_bytes())))
            .collect();
        let pairs: Vec<(&str, &str)> = pairs.iter().map(|(n, v)| (*n, v.as_ref())).collect();
        let parsed = p.c2s.parse(&bytes).map_err(FrameFault::Envelope);
        unanswered = parsed
            .as_ref()
            .map_or(Unanswered::NONE, |env| Unanswered::of(&p.c2s, env));
        let mut s = sessions::lock(&session);
        p.judge().judge(
            &mut s,
            Direction::ClientToServer,
            0,
            &bytes,
            parsed,
            Some(&pairs),
        )
    };
    // Replacements for the server's requests in flight go upstream before the client is
    // answered, so the client's answer comes after the upstream has its replacement.
    let to_upstream = match action {
        Action::ReplyAndReplace {
            ref mut to_receiver,
            ..
        } => vec![std::mem::take(to_receiver)],
        Action::Batch {
            ref mut to_receiver,
            ..
        } => std::mem::take(to_receiver),
        _ => Vec::new(),
    };
    for body in to_upstream {
        replace_upstream(&p, &parts, body).await;
    }
    if let Some(r) = reply(action) {
        return r;
    }
    forward(&p, parts, full(bytes), Some(session), unanswered).await
}

/// The requests of a POST body forwarded upstream, answered by the proxy itself when the
/// upstream cannot be reached: one request, or the request elements of a legacy batch.
struct Unanswered {
    /// Each request's id, its raw JSON text.
    ids: Vec<String>,
    /// The body was a batch: the answer is a JSON array.
    batch: bool,
}

impl Unanswered {
    /// Nothing to answer (a notification, a response, a body that is no message).
    const NONE: Self = Self {
        ids: Vec::new(),
        batch: false,
    };

    /// The requests of `env` (parsed with `parser`, whose limits its batch elements get).
    fn of(parser: &Parser, env: &mcpwire::Envelope<'_>) -> Self {
        let id = |e: &mcpwire::Envelope<'_>| {
            (e.shape() == mcpwire::Shape::Request)
                .then(|| e.id_raw().map(str::to_owned))
                .flatten()
        };
        match env.batch_elements() {
            Some(elements) => Self {
                ids: elements
                    .filter_map(|s| parser.parse(s.slice(env.frame())).ok().and_then(|e| id(&e)))
                    .collect(),
                batch: true,
            },
            None => Self {
                ids: id(env).into_iter().collect(),
                batch: false,
            },
        }
    }

    /// The proxy's answer when the upstream failed with `msg`: each request's `-32603`
    /// error response (a JSON array for a batch) at HTTP 502, so that the client's requests
    /// are answered by id; a plain-text 502 when there is no request to answer.
    fn answer(&self, msg: &str) -> Response<ProxyBody> {
        if self.ids.is_empty() {
            return own_response(502, "text/plain", format!("mcpwire proxy: {msg}\n"));
        }
        let message = format!("mcpwire proxy: {msg}");
        let mut bodies: Vec<Vec<u8>> = self
            .ids
            .iter()
            .map(|id| request_error_reply(Some(id), INTERNAL_ERROR, &message, 502).body)
            .collect();
        let body = if self.batch {
            mcpwire::profile::batch_body(&bodies)
        } else {
            bodies.swap_remove(0)
        };
        own_response(502, "application/json", body)
    }
}

/// POSTs `body` (a `-32603` replacement response) upstream in place of a rejected client body
/// whose request head was `parts`: the same method, path and headers (the session's
/// `Mcp-Session-Id` among them), `Content-Length` rewritten. The upstream's answer is awaited
/// but neither passed on nor validated (a 404 still drops the session's state, as for any
/// request): the client is answered with its own error reply. A failure to reach the
/// upstream is logged by [`forward`], any status other than 2xx as a note.
async fn replace_upstream(p: &Arc<Proxy>, parts: &hyper::http::request::Parts, body: Vec<u8>) {
    let mut req = Request::new(());
    *req.method_mut() = parts.method.clone();
    *req.uri_mut() = parts.uri.clone();
    *req.version_mut() = parts.version;
    *req.headers_mut() = parts.headers.clone();
    let (mut head, ()) = req.into_parts();
    head.headers.remove(header::TRANSFER_ENCODING);
    head.headers
        .insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
    // The answer is a `202 Accepted` for a response; any other status is noted, so that a
    // replacement the server refused does not pass unseen (session 12's open item).
    let resp = forward(p, head, full(body), None, Unanswered::NONE).await;
    if !resp.status().is_success() {
        p.note(&format!(
            "the upstream answered the replacement error response with HTTP {}",
            resp.status()
        ));
    }
}

/// Sends the request upstream and streams the response back; with `tap` (the request's
/// session) the response body is validated as that session's server-to-client messages.
/// Keeps the session table in step with the upstream's answer (see the module docs).
async fn forward(
    p: &Arc<Proxy>,
    mut parts: hyper::http::request::Parts,
    body: ProxyBody,
    tap: Option<SharedSession>,
    unanswered: Unanswered,
) -> Response<ProxyBody> {
    let to_endpoint = p.endpoint.matches(parts.uri.path());
    let delete = parts.method == Method::DELETE;
    let post = parts.method == Method::POST;
    let get = parts.method == Method::GET;
    let key = session_key(&parts.headers);
    let mut uri = hyper::http::uri::Parts::default();
    uri.scheme = Some(p.scheme.clone());
    uri.authority = Some(p.authority.clone());
    uri.path_and_query = parts.uri.path_and_query().cloned();
    parts.uri = match Uri::from_parts(uri) {
        Ok(u) => u,
        Err(e) => return own_response(400, "text/plain", format!("mcpwire proxy: {e}\n")),
    };
    parts.version = hyper::Version::HTTP_11;
    strip_hop_by_hop(&mut parts.headers);
    if tap.is_some() {
        // The tap reads the body's bytes as they pass: ask for them without a content coding
        // (hostile trial, session 21: a gzip response was judged as its compressed bytes,
        // while the client's HTTP library decompressed and read messages nobody checked).
        // Removing the header would allow any coding (RFC 9110 §12.5.3); identity is always
        // acceptable to the client.
        parts.headers.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_static("identity"),
        );
    }
    let resp = match p.client.request(Request::from_parts(parts, body)).await {
        Ok(r) => r,
        Err(e) => {
            let msg = format!("upstream request failed: {e}");
            p.note(&msg);
            return unanswered.answer(&msg);
        }
    };
    let (mut parts, body) = resp.into_parts();
    strip_hop_by_hop(&mut parts.headers);
    if to_endpoint {
        match (&key, &tap) {
            (Some(k), _)
                if parts.status == StatusCode::NOT_FOUND
                    || (delete && parts.status.is_success()) =>
            {
                p.sessions().remove(k);
            }
            // The server started a session on this request (`initialize`): its state so far
            // is the session's.
            (None, Some(s)) if post => {
                if let Some(id) = session_key(&parts.headers) {
                    p.sessions().insert(&id, s.clone());
                }
            }
            _ => {}
        }
    }
    let kind = if tap.is_some() {
        let reading = response_reading(&parts.headers, get && parts.status.is_success());
        if let Some(note) = &reading.note {
            p.note(note);
        }
        if let (Some(why), Some(s)) = (&reading.unvalidated, &tap) {
            // Server requests in it go unrecorded: the client's responses to them must not
            // be reported as matching no request.
            sessions::lock(s)
                .tracker_mut()
                .set_partial(Direction::ServerToClient);
            // The body passes unread by the tap: 0 bytes counted.
            p.judge().unreadable(
                Direction::ServerToClient,
                0,
                CONTENT_CODING,
                None,
                why,
                None,
            );
        }
        match reading.kind {
            Some(BodyKind::Sse) => Some(TapKind::Sse {
                framer: Box::new(SseFramer::with_limits(
                    p.max_frame,
                    p.max_frame.saturating_add(LINE_OVERHEAD),
                )),
                buf: BytesMut::new(),
            }),
            Some(BodyKind::Json) => Some(TapKind::Json {
                buf: Vec::new(),
                len: 0,
            }),
            // A 2xx answer to a POST of the endpoint that is neither: nothing the client's
            // SDK reads as a message, so it is noted (hostile trial, session 13).
            // (A body in a content coding already has its `content-coding` violation:
            // re-trial, session 22, a contradictory note followed it.)
            None if reading.note.is_none()
                && reading.unvalidated.is_none()
                && post
                && parts.status.is_success()
                && parts.status != StatusCode::ACCEPTED
                && parts.status != StatusCode::NO_CONTENT
                && parts
                    .headers
                    .get(header::CONTENT_LENGTH)
                    .is_none_or(|v| v != "0") =>
            {
                p.note(&format!(
                    "the upstream answered a POST with HTTP {} and Content-Type {}: \
                     not validated (MCP expects application/json or text/event-stream)",
                    parts.status,
                    shown_or_none(
                        &header_text(&parts.headers, header::CONTENT_TYPE).unwrap_or_default()
                    )
                ));
                None
            }
            None => None,
        }
    } else {
        None
    };
    let body = match (kind, tap) {
        (Some(kind), Some(session)) => Tapped {
            inner: body,
            tap: Some(Tap {
                proxy: p.clone(),
                session,
                kind,
                untracked: get,
            }),
        }
        .boxed(),
        _ => body.boxed(),
    };
    Response::from_parts(parts, body)
}

/// How a response body is validated: as an event stream or as one JSON message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BodyKind {
    Sse,
    Json,
}

/// How the tap reads a response body (`kind`, `None`: not validated) and the note to log
/// about its headers, if any.
#[derive(Debug, PartialEq, Eq)]
struct Reading {
    kind: Option<BodyKind>,
    note: Option<String>,
    /// Why a body clients read as messages is not validated (a content coding): logged as a
    /// `content-coding` violation, not a note, so that a gateway reading only violations
    /// learns of it.
    unvalidated: Option<String>,
}

/// How MCP clients read a response body, from its `Content-Type` and `Content-Encoding`
/// (hostile trial and re-trial, session 21): what a client parses as messages must be what
/// the tap validates, or be noted. `get_stream` is a 2xx answer to a GET of the endpoint.
///
/// * Repeated `Content-Type` or `Content-Encoding` fields are joined with `", "`, as httpx
///   and fetch join them (the first field alone hid `text/plain` + `text/event-stream`).
/// * The SDK clients match media types loosely: the Python SDK checks whether the
///   lower-cased value starts with `application/json`, then `text/event-stream`; the
///   TypeScript SDK whether it contains `text/event-stream`, then `application/json`. Both
///   rules are applied (to the lower-cased value), so `text/event-streamx` or
///   `application/json-rpc` is validated, with a note that it is not one of the two media
///   types. When the two rules disagree (`application/json, text/event-stream`: JSON to the
///   Python client, SSE to the TypeScript one), the body is validated as JSON and the note
///   says so: a body cannot be both a JSON message and an event stream with a `data:` line,
///   so a body the TypeScript client reads messages from fails the JSON validation and is
///   logged.
/// * A GET stream is read as an event stream whatever its type: the TypeScript SDK client
///   reads any 2xx answer to its GET as one (the Python client refuses a type other than
///   `text/event-stream`). A type other than exactly that is noted.
/// * A `charset` other than UTF-8, anywhere in the value (a second field, `charset*=`, a
///   second parameter after a quoted one), is noted: the body is validated as UTF-8 (event
///   streams are always UTF-8, and JSON exchanged between systems must be, RFC 8259 §8.1),
///   while a client that decodes text by the charset (httpx does) reads something else.
/// * A content coding the clients decode (`gzip`, `x-gzip`, `deflate`, `br`, `zstd`): the body
///   is not validated (the proxy asks for identity, but an upstream may ignore that): a
///   `content-coding` violation ([`Reading::unvalidated`]), not a note. Codings they do not
///   know (`bogus`, `identity;q=1`) are skipped by httpx and stop decoding in fetch, so the
///   body is read as sent: validated, with a note.
/// * Header values are shown in notes cut to [`NOTE_VALUE_MAX`] bytes.
fn response_reading(h: &HeaderMap, get_stream: bool) -> Reading {
    const SSE: &str = "text/event-stream";
    const JSON: &str = "application/json";
    let value = header_text(h, header::CONTENT_TYPE)
        .map(|v| v.to_ascii_lowercase())
        .unwrap_or_default();
    let python = if value.starts_with(JSON) {
        Some(BodyKind::Json)
    } else if value.starts_with(SSE) {
        Some(BodyKind::Sse)
    } else {
        None
    };
    let typescript = if value.contains(SSE) {
        Some(BodyKind::Sse)
    } else if value.contains(JSON) {
        Some(BodyKind::Json)
    } else {
        None
    };
    let name = |k: BodyKind| match k {
        BodyKind::Sse => "an event stream",
        BodyKind::Json => "JSON",
    };
    let essence = value.split(';').next().unwrap_or_default().trim();
    let mut notes = Vec::new();
    let kind = if get_stream {
        if essence != SSE || value.contains(',') {
            notes.push(format!(
                "a GET stream with Content-Type {}: validated as an event stream (the \
                 TypeScript SDK client reads any 2xx GET answer as one)",
                shown_or_none(&value)
            ));
        }
        BodyKind::Sse
    } else {
        let Some(kind) = python.or(typescript) else {
            return Reading {
                kind: None,
                note: None,
                unvalidated: None,
            };
        };
        if let (Some(a), Some(b)) = (python, typescript)
            && a != b
        {
            notes.push(format!(
                "Content-Type {} is read as {} by the Python SDK client and as {} by the \
                 TypeScript one: validated as {}",
                shown(&value),
                name(a),
                name(b),
                name(kind)
            ));
        } else if (essence != SSE && essence != JSON) || value.contains(',') {
            notes.push(format!(
                "Content-Type {} is not exactly application/json or text/event-stream, but \
                 MCP SDK clients read it as {}: validated as such",
                shown(&value),
                name(kind)
            ));
        }
        kind
    };
    if declares_other_charset(&value) {
        notes.push(format!(
            "Content-Type {} declares a charset other than UTF-8: validated as UTF-8 (MCP \
             messages are UTF-8), while a client that decodes the body by its charset reads \
             other text",
            shown(&value)
        ));
    }
    let codings = codings(h);
    let decoded = |c: &String| matches!(c.as_str(), "gzip" | "x-gzip" | "deflate" | "br" | "zstd");
    let mut unvalidated = None;
    let kind = if codings.iter().any(decoded) {
        unvalidated = Some(format!(
            "the upstream answered in Content-Encoding {} although asked for identity: \
             forwarded unvalidated (a client decodes the body and reads messages the proxy \
             did not check)",
            shown(&codings.join(", "))
        ));
        None
    } else {
        if !codings.is_empty() {
            notes.push(format!(
                "the upstream answered in Content-Encoding {}, which clients do not decode: \
                 validated as sent",
                shown(&codings.join(", "))
            ));
        }
        Some(kind)
    };
    Reading {
        kind,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        unvalidated,
    }
}

/// The most bytes of a header value a note shows (a hostile upstream's 60 KB `Content-Type`
/// made one 168 KB note per response: re-trial, session 21).
const NOTE_VALUE_MAX: usize = 200;

/// All values of the header `name`, joined with `", "` as HTTP clients join repeated fields
/// (bytes that are not UTF-8 as U+FFFD), trimmed; `None` when there is none.
fn header_text(h: &HeaderMap, name: HeaderName) -> Option<String> {
    let values: Vec<String> = h
        .get_all(name)
        .iter()
        .map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_owned())
        .collect();
    (!values.is_empty()).then(|| values.join(", "))
}

/// `v` for a note: cut to [`NOTE_VALUE_MAX`] bytes (at a character boundary) with `…`.
fn shown(v: &str) -> String {
    if v.len() <= NOTE_VALUE_MAX {
        return v.to_owned();
    }
    let mut end = NOTE_VALUE_MAX;
    while !v.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &v[..end])
}

/// [`shown`], or `(none)` for an empty value.
fn shown_or_none(v: &str) -> String {
    if v.is_empty() {
        "(none)".to_owned()
    } else {
        shown(v)
    }
}

/// Whether the lower-cased `Content-Type` value names a charset other than UTF-8 anywhere:
/// every `charset` in it must be `charset=utf-8` or `charset=utf8` (quoted or not, spaces
/// around `=`), so that a second field, `charset*=` (RFC 2231) or a `charset` after a quoted
/// parameter that holds `charset=utf-8` all count.
fn declares_other_charset(value: &str) -> bool {
    value.match_indices("charset").any(|(i, _)| {
        let after = value[i + "charset".len()..].trim_start();
        let Some(v) = after.strip_prefix('=') else {
            return true;
        };
        let v = v.trim_start();
        let v = v.strip_prefix('"').unwrap_or(v);
        let end = v
            .find(|c: char| matches!(c, '"' | ';' | ',') || c.is_whitespace())
            .unwrap_or(v.len());
        !matches!(&v[..end], "utf-8" | "utf8")
    })
}

/// A request body whose first bytes were already read.
struct Prefixed {
    prefix: Option<Bytes>,
    rest: Incoming,
}

impl Body for Prefixed {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        if let Some(b) = self.prefix.take() {
            return Poll::Ready(Some(Ok(Frame::data(b))));
        }
        Pin::new(&mut self.rest).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.prefix.is_none() && self.rest.is_end_stream()
    }
}

/// How a response body is validated while it streams through.
enum TapKind {
    /// `text/event-stream`: the SSE framer and the bytes not yet consumed by it.
    Sse {
        framer: Box<SseFramer>,
        buf: BytesMut,
    },
    /// `application/json`: the body so far (up to the frame limit) and its total length.
    Json { buf: Vec<u8>, len: u64 },
}

struct Tap {
    proxy: Arc<Proxy>,
    /// The session of the request this is the response to.
    session: SharedSession,
    kind: TapKind,
    /// A GET stream: each message is judged without id history ([`untracked`]).
    untracked: bool,
}

impl Tap {
    fn feed(&mut self, data: &[u8]) {
        match &mut self.kind {
            TapKind::Sse { framer, buf } => {
                buf.extend_from_slice(data);
                sse_events(
                    &self.proxy,
                    &self.session,
                    framer,
                    buf,
                    false,
                    self.untracked,
                );
            }
            TapKind::Json { buf, len } => {
                *len += data.len() as u64;
                if *len <= self.proxy.max_frame as u64 {
                    buf.extend_from_slice(data);
                } else {
                    buf.clear();
                }
            }
        }
    }

    fn finish(&mut self) {
        match &mut self.kind {
            TapKind::Sse { framer, buf } => {
                sse_events(
                    &self.proxy,
                    &self.session,
                    framer,
                    buf,
                    true,
                    self.untracked,
                );
                self.proxy
                    .judge()
                    .count_sse_unknown_fields(Direction::ServerToClient, framer.unknown_fields());
            }
            TapKind::Json { buf, len } => {
                let p = &self.proxy;
                if *len > p.max_frame as u64 {
                    let e = FrameError::new(
                        FrameErrorKind::FrameTooLarge,
                        0,
                        1,
                        (*len).min(usize::MAX as u64) as usize,
                    );
                    let mut s = sessions::lock(&self.session);
                    p.judge().observe(
                        &mut s,
                        Direction::ServerToClient,
                        0,
                        &[],
                        Err(FrameFault::Framing(e)),
                    );
                } else if !buf.is_empty() {
                    let parsed = p.s2c.parse(buf).map_err(FrameFault::Envelope);
                    let mut s = sessions::lock(&self.session);
                    if self.untracked {
                        untracked(&mut s);
                    }
                    p.judge()
                        .observe(&mut s, Direction::ServerToClient, 0, buf, parsed);
                }
            }
        }
    }
}

/// Validates every complete event in `buf` (all that is left when `eof`) as messages of
/// `session`, consuming them.
fn sse_events(
    p: &Proxy,
    session: &SharedSession,
    framer: &mut SseFramer,
    buf: &mut BytesMut,
    eof: bool,
    untracked_ids: bool,
) {
    loop {
        let d = if eof {
            framer.finish(buf)
        } else {
            framer.decode(buf)
        };
        let consumed = d.consumed;
        let done = match d.status {
            Status::Partial => true,
            Status::Complete(Ok(ev)) => {
                let data = ev.data();
                if ev.is_message() && !data.is_empty() {
                    let at = ev.data_offset().unwrap_or(ev.offset());
                    let parsed = p.s2c.parse(data).map_err(FrameFault::Envelope);
                    let mut s = sessions::lock(session);
                    if untracked_ids {
                        untracked(&mut s);
                    }
                    p.judge()
                        .observe(&mut s, Direction::ServerToClient, at, data, parsed);
                } else if !data.is_empty() {
                    p.judge()
                        .count_sse_other_event(Direction::ServerToClient, ev.event_type());
                }
                false
            }
            Status::Complete(Err(e)) => {
                let at = e.offset();
                let mut s = sessions::lock(session);
                p.judge().observe(
                    &mut s,
                    Direction::ServerToClient,
                    at,
                    &[],
                    Err(FrameFault::Framing(e)),
                );
                false
            }
        };
        buf.advance(consumed);
        if done {
            return;
        }
    }
}

/// A response body passed through unchanged while `tap` validates it.
struct Tapped {
    inner: Incoming,
    tap: Option<Tap>,
}

impl Body for Tapped {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let this = &mut *self;
        let r = Pin::new(&mut this.inner).poll_frame(cx);
        match &r {
            Poll::Ready(Some(Ok(frame))) => {
                if let (Some(data), Some(tap)) = (frame.data_ref(), this.tap.as_mut()) {
                    tap.feed(data);
                }
                // A body of known length may end without a final `None` poll.
                if this.inner.is_end_stream()
                    && let Some(mut tap) = this.tap.take()
                {
                    tap.finish();
                }
            }
            Poll::Ready(None) => {
                if let Some(mut tap) = this.tap.take() {
                    tap.finish();
                }
            }
            // An upstream error (a connection closed before the declared length, a broken
            // chunk) ends the stream: noted, and what arrived is judged as the whole body, so
            // an event or message cut off is reported (hostile trial, session 13: a cut
            // response reached the client with nothing logged).
            Poll::Ready(Some(Err(e))) => {
                if let Some(mut tap) = this.tap.take() {
                    tap.proxy
                        .note(&format!("the upstream's response body failed: {e}"));
                    tap.finish();
                }
            }
            Poll::Pending => {}
        }
        r
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reading of a response with these `Content-Type` and `Content-Encoding` values.
    fn reading(content_type: &str, coding: Option<&str>) -> Reading {
        let mut fields = vec![("content-type", content_type.as_bytes())];
        if let Some(c) = coding {
            fields.push(("content-encoding", c.as_bytes()));
        }
        reading_of(&fields, false)
    }

    /// The reading of a response with these header fields (repeats kept), to a POST or to a
    /// GET (`get_stream`).
    fn reading_of(fields: &[(&str, &[u8])], get_stream: bool) -> Reading {
        let mut h = HeaderMap::new();
        for (n, v) in fields {
            h.append(
                HeaderName::from_bytes(n.as_bytes()).unwrap(),
                HeaderValue::from_bytes(v).unwrap(),
            );
        }
        response_reading(&h, get_stream)
    }

    /// Re-trial, session 21: a UTF-16 charset hidden from the first field's parameters
    /// (a second field, `charset*=`, a charset after a quoted `charset=utf-8`), GET streams
    /// of another type (the TypeScript client reads any 2xx GET as an event stream), repeated
    /// `Content-Type` fields, unknown codings (clients read the body as sent) and 60 KB
    /// values copied into notes.
    #[test]
    fn response_reading_follows_what_clients_join_decode_and_read() {
        use BodyKind::Sse;
        let note_has = |r: &Reading, s: &str| r.note.as_deref().is_some_and(|n| n.contains(s));
        let sse: &[u8] = b"text/event-stream";
        let hidden: [&[(&str, &[u8])]; 3] = [
            &[
                ("content-type", sse),
                ("content-type", b"text/event-stream; charset=utf-16le"),
            ],
            &[(
                "content-type",
                b"text/event-stream; charset*=utf-8''utf-16le",
            )],
            &[(
                "content-type",
                b"text/event-stream; a=\"b; charset=utf-8\"; charset=utf-16le",
            )],
        ];
        for fields in hidden {
            let r = reading_of(fields, false);
            assert_eq!(r.kind, Some(Sse), "{fields:?}");
            assert!(
                note_has(&r, "charset other than UTF-8"),
                "{fields:?}: {r:?}"
            );
        }
        let r = reading_of(
            &[("content-type", b"text/plain"), ("content-type", sse)],
            false,
        );
        assert_eq!(r.kind, Some(Sse));
        assert!(note_has(&r, "text/plain, text/event-stream"), "{r:?}");
        // GET streams: an event stream whatever the type; noted unless exactly SSE.
        for ct in [
            &b"text/plain"[..],
            b"application/json",
            b"text/html; charset=utf-8",
        ] {
            let r = reading_of(&[("content-type", ct)], true);
            assert_eq!(r.kind, Some(Sse));
            assert!(note_has(&r, "GET stream"), "{r:?}");
        }
        let r = reading_of(&[], true);
        assert_eq!(r.kind, Some(Sse));
        assert!(note_has(&r, "Content-Type (none)"), "{r:?}");
        assert_eq!(reading_of(&[("content-type", sse)], true).note, None);
        assert_eq!(reading_of(&[], false).kind, None);
        // Codings clients do not decode: read as sent, so validated (and noted).
        for coding in ["bogus", "identity;q=1", "x-compress"] {
            let r = reading("text/event-stream", Some(coding));
            assert_eq!(r.kind, Some(Sse), "{coding}");
            assert!(note_has(&r, "do not decode"), "{coding}: {r:?}");
        }
        let r = reading_of(
            &[
                ("content-type", sse),
                ("content-encoding", b"bogus"),
                ("content-encoding", b"x-gzip"),
            ],
            false,
        );
        assert_eq!(r.kind, None, "{r:?}");
        // Long values are cut in notes.
        let long = format!(
            "text/event-stream; x={}; charset=latin1",
            "y".repeat(60_000)
        );
        let r = reading(&long, Some(&"bogus, ".repeat(100)));
        assert_eq!(r.kind, Some(Sse));
        assert!(
            r.note.as_ref().unwrap().len() < 2_000,
            "{:?}",
            r.note.map(|n| n.len())
        );
    }

    /// Hostile trial, session 21: bodies the SDK clients read as messages were forwarded
    /// unvalidated (`text/event-streamx`, `application/json-rpc`), and compressed or
    /// non-UTF-8 bodies were judged as bytes no client reads.
    #[test]
    fn response_bodies_are_read_as_the_sdk_clients_read_them() {
        use BodyKind::{Json, Sse};
        // The two media types, any case, with UTF-8 or no charset: no note.
        for (ct, kind) in [
            ("application/json", Json),
            ("Application/JSON; charset=utf-8", Json),
            ("text/event-stream", Sse),
            ("text/event-stream;charset=\"UTF-8\"", Sse),
            (" text/event-stream ; charset=utf8", Sse),
        ] {
            assert_eq!(
                reading(ct, None),
                Reading {
                    kind: Some(kind),
                    note: None,
                    unvalidated: None,
                },
                "{ct}"
            );
        }
        // What a client reads by prefix or substring: validated, with a note.
        for (ct, kind, says) in [
            ("text/event-streamx", Sse, "not exactly"),
            ("application/json-rpc", Json, "not exactly"),
            ("application/jsonx", Json, "not exactly"),
            ("x/y, text/event-stream", Sse, "not exactly"),
            (
                "application/json, text/event-stream",
                Json,
                "Python SDK client",
            ),
            (
                "application/json; x=text/event-stream",
                Json,
                "TypeScript one",
            ),
            ("text/event-stream; charset=utf-16le", Sse, "charset other"),
            ("application/json; charset=latin1", Json, "charset other"),
        ] {
            let r = reading(ct, None);
            assert_eq!(r.kind, Some(kind), "{ct}");
            assert!(
                r.note.as_deref().is_some_and(|n| n.contains(says)),
                "{ct}: {r:?}"
            );
        }
        // Not read as messages by either client: not validated, no note here.
        for ct in ["text/plain", "application/vnd.api+json", "text/event", ""] {
            assert_eq!(
                reading(ct, None),
                Reading {
                    kind: None,
                    note: None,
                    unvalidated: None,
                },
                "{ct}"
            );
        }
        // A content coding: not validated, a violation (not a note); identity is no coding.
        for coding in ["gzip", "br", "identity, gzip", "GZIP"] {
            let r = reading("text/event-stream", Some(coding));
            assert_eq!(r.kind, None, "{coding}");
            assert_eq!(r.note, None, "{coding}");
            assert!(
                r.unvalidated
                    .as_deref()
                    .is_some_and(|n| n.contains("Content-Encoding")),
                "{coding}: {r:?}"
            );
        }
        assert_eq!(
            reading("application/json", Some("identity")).kind,
            Some(Json)
        );
    }

    /// Re-trial finding: POSTs to other spellings of the endpoint path were forwarded without
    /// validation, and a normalising upstream served them as the endpoint.
    #[test]
    fn every_spelling_of_the_endpoint_is_the_endpoint() {
        let mcp = Endpoint::new("/mcp".into());
        for path in [
            "/mcp",
            "//mcp",
            "/m%63p",
            "/M%43P",
            "/./mcp",
            "/MCP",
            "/mcp/",
            "/mcp;a",
            "/x/../mcp",
            "/mcp//",
            "/%2e/mcp",
            // Session 13: an escaped `/` separates segments too (an upstream that decodes
            // the path before routing reads `//mcp`).
            "/%2Fmcp",
            "/x%2f..%2fmcp",
            // Hostile trial, session 13 (all forwarded unvalidated on `a8f7052`).
            "/mcp%2F",
            "/%6Dcp%2F",
            "/mcp%2f%2e",
            "/x/..%2Fmcp",
            "/x%2F..%2Fmcp",
            "/mcp%2F..%2Fmcp",
            "/mcp%5C",
            "/mcp\\",
            "/mcp%20",
            "/mcp%09",
            "/x\\..\\mcp",
        ] {
            assert!(mcp.matches(path), "{path}");
        }
        // Below the endpoint (re-trial, session 13: a prefix-mounted upstream serves them).
        for path in ["/mcp/x", "/mcp/messages", "/mcp%2fx", "/MCP/a/b"] {
            assert!(mcp.matches(path), "{path}");
        }
        for path in [
            "/",
            "/mcpx",
            "/mc",
            "/x/mcp",
            "/m%6",
            "/%zzmcp",
            "/mcp/../x",
        ] {
            assert!(!mcp.matches(path), "{path}");
        }
        // The root endpoint matches only itself, not every path.
        let root = Endpoint::new("/".into());
        for path in ["/", "//", "/./", "/%2e"] {
            assert!(root.matches(path), "{path}");
        }
        for path in ["/x", "/mcp", "/oauth/token"] {
            assert!(!root.matches(path), "{path}");
        }
        assert!(Endpoint::new("/api/v1/mcp".into()).matches("/api//v1/./MCP/"));
    }

    /// Adversarial trial (session 3): the key was decoded lossily, so `a\x80` and `a\x81`
    /// both became `a\u{FFFD}` and two sessions shared one state.
    #[test]
    fn session_keys_keep_non_utf8_bytes_distinct() {
        let key = |vals: &[&[u8]]| {
            let mut h = HeaderMap::new();
            for v in vals {
                h.append(
                    SESSION_ID,
                    hyper::header::HeaderValue::from_bytes(v).unwrap(),
                );
            }
            session_key(&h)
        };
        assert_ne!(key(&[b"a\x80"]), key(&[b"a\x81"]));
        assert_eq!(key(&[b"abc-123"]).as_deref(), Some("abc-123"));
        assert_eq!(key(&[b"a", b"b"]).as_deref(), Some("a, b"));
        assert_eq!(key(&[]), None);
    }
}
