//! What the proxy does with one frame (both transports): validate it with the session's
//! validator for its direction, log each violation, and decide to forward, reply, replace or
//! drop.
//!
//! Policy for a frame with at least one violation (unless `--monitor`):
//!
//! | frame | action |
//! |---|---|
//! | request (either direction) | answered to its sender with [`error_reply`] for the first violation; never forwarded |
//! | notification | dropped |
//! | response (result or error) | dropped; its receiver gets a `-32603` error response with the same id, so no request hangs (not when the id matches no request in flight) |
//! | not JSON or not a JSON-RPC message, meant as a request (it has a `method` member) | answered to its sender with the error reply, with the id when it can be read ([`mcpwire::recover_request_id`] for a frame the parser rejected); from a server only when it has an id |
//! | the same, meant as a response (no `method`) whose id answers a request in flight | dropped; its receiver gets the `-32603` error response instead (both directions) |
//! | any other such frame, and an oversize one | client → server: answered to the client with the error reply without an id; server → client: dropped |
//! | batch (2025-03-26) with any violation | rejected whole ([`Action::Batch`]): each element as above, the sender's error replies in one JSON array (JSON-RPC 2.0 §6); an element without its own violation gets a -32600 naming the batch's first; an empty batch, or one over [`mcpwire::profile::MAX_BATCH_ELEMENTS`], gets one error |
//! | unterminated last line (stdio) | as a frame that is not JSON, with -32700 (`unterminated-line`): a request-like one answered to its sender (from a server only with an id), a response-like one whose id answers a request in flight replaced, any other from a client answered without an id, from a server dropped |
//!
//! On Streamable HTTP ([`Judge::http_replies`]) every rejected client-to-server POST body is
//! answered with [`error_reply`] (the HTTP request needs an answer; a notification or response
//! body gets the reply without an id). A rejected response body that the table above
//! replaces is replaced there too: the `-32603` error response goes upstream in place of the
//! client's body, and the client still gets its error reply ([`Action::ReplyAndReplace`]; for
//! a batch, [`Action::Batch`] with a reply). Server-to-client frames are only observed
//! ([`Judge::observe`]): the proxy streams them through unchanged and logs violations with
//! action `forwarded`.
//!
//! The session summary counts requests and notifications by method, batch elements
//! included (each element's method, as for a single message).

use mcpwire::codec::FrameFault;
use mcpwire::framing::FrameErrorKind;
use mcpwire::profile::{
    BatchElement, Direction, Profile, Revision, Rule, Session, Tracked, Violation, batch_body,
    batch_element_causes, check_headers, error_reply, error_reply_for_frame_with,
    replacement_reply,
};
use mcpwire::{Envelope, ErrorKind, Shape};

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Distinct method names counted per direction in the session summary; further names are
/// counted together under [`OTHER_METHODS`].
pub const MAX_METHODS: usize = 1024;
/// Longer method names are counted under [`OTHER_METHODS`] (bytes).
pub const MAX_METHOD_LEN: usize = 256;
/// The summary's key for methods beyond [`MAX_METHODS`] distinct names or [`MAX_METHOD_LEN`]
/// bytes.
pub const OTHER_METHODS: &str = "(other methods)";

use super::log::{DirStats, Log, ViolationRecord};

/// The verdict on one frame.
#[derive(Debug, PartialEq, Eq)]
pub enum Action {
    /// Forward the frame's original bytes.
    Forward,
    /// Send `body` (one JSON object, no line terminator) back to the frame's sender, with
    /// `http_status` on HTTP; forward nothing.
    Reply {
        /// JSON-RPC error response bytes.
        body: Vec<u8>,
        /// HTTP status for Streamable HTTP.
        http_status: u16,
    },
    /// Send `body` to the frame's receiver instead of the frame.
    Replace(Vec<u8>),
    /// Streamable HTTP only ([`Judge::http_replies`]), for a rejected client POST body that
    /// was meant as the response to a server request in flight: send `to_receiver` (the
    /// `-32603` replacement, one JSON object) upstream in place of the body, and answer the
    /// client's POST with `body` at `http_status` (its message was still rejected).
    ReplyAndReplace {
        /// The client's JSON-RPC error response bytes.
        body: Vec<u8>,
        /// HTTP status of the client's answer.
        http_status: u16,
        /// The error response for the upstream, one JSON object.
        to_receiver: Vec<u8>,
    },
    /// A rejected batch (2025-03-26, JSON-RPC 2.0 §6), answered element by element; nothing
    /// of it is forwarded. `reply`, when there is one, goes back to the sender: a JSON array
    /// (no line terminator) with one error response per request element (with its id) and per
    /// element that is no valid message (id as [`mcpwire::recover_id`] reads it, or none),
    /// with `http_status` on HTTP; on HTTP, when no element needs one but some go to the
    /// receiver, the batch's single error reply (one JSON object) instead. Each of
    /// `to_receiver` goes to the frame's receiver: the `-32603` replacement for a response
    /// element that answered a request in flight.
    Batch {
        /// The sender's JSON array of error responses, when some element needs one (on
        /// HTTP, see above, possibly the batch's single error reply).
        reply: Option<Vec<u8>>,
        /// HTTP status for Streamable HTTP.
        http_status: u16,
        /// Error responses for the receiver, one JSON object each.
        to_receiver: Vec<Vec<u8>>,
    },
    /// Forward nothing.
    Drop,
}

/// The policy and the log shared by every session of one proxy; each call names the
/// [`Session`] (validators and request tracker) the frame belongs to.
pub struct Judge {
    profile: Profile,
    max_in_flight: usize,
    /// The log (and its counters).
    pub log: Log,
    monitor: bool,
    http_replies: bool,
    scratch: Vec<Violation>,
    /// Reads ids from rejected frames and batch elements, under the proxy's frame limit.
    parser: mcpwire::Parser,
}

fn dir_name(dir: Direction) -> &'static str {
    match dir {
        Direction::ClientToServer => "c2s",
        Direction::ServerToClient => "s2c",
        Direction::Unknown => "unknown",
    }
}

impl Judge {
    /// A judge validating under `profile`, its sessions tracking `max_in_flight` requests per
    /// sender.
    pub fn new(profile: Profile, max_in_flight: usize, log: Log, monitor: bool) -> Self {
        Self {
            profile,
            max_in_flight,
            log,
            monitor,
            http_replies: false,
            scratch: Vec::new(),
            parser: mcpwire::Parser::new(),
        }
    }

    /// Reads ids from rejected frames (and batch elements) of up to `max` bytes, the proxy's
    /// frame limit (default [`mcpwire::Limits::DEFAULT`]): a frame over the default limit
    /// but within a raised one, rejected for a duplicate key, is still answered with its id.
    pub fn max_frame_len(mut self, max: usize) -> Self {
        self.parser = mcpwire::Parser::with_limits(mcpwire::Limits {
            max_frame_len: max,
            ..mcpwire::Limits::DEFAULT
        });
        self
    }

    /// A new session (nothing seen yet) under this judge's profile and in-flight bound.
    pub fn new_session(&self) -> Session {
        Session::new(self.profile, self.max_in_flight)
    }

    /// Streamable HTTP policy: every rejected client-to-server frame is answered to the
    /// client: [`Action::Reply`], [`Action::ReplyAndReplace`] where stdio would replace it,
    /// or [`Action::Batch`] with a reply (never [`Action::Drop`] or [`Action::Replace`]).
    pub fn http_replies(mut self) -> Self {
        self.http_replies = true;
        self
    }

    /// Judges a frame like [`Judge::judge`] but always returns [`Action::Forward`]: the frame
    /// has already been (or is being) passed on unchanged, so violations are only logged
    /// (action `forwarded`) and counted.
    pub fn observe(
        &mut self,
        session: &mut Session,
        dir: Direction,
        offset: u64,
        bytes: &[u8],
        parsed: Result<Envelope<'_>, FrameFault>,
    ) {
        let monitor = std::mem::replace(&mut self.monitor, true);
        let _ = self.judge(session, dir, offset, bytes, parsed, None);
        self.monitor = monitor;
    }

    /// Counts and logs a body of `len` bytes in `dir` that could not be read as messages at
    /// all (a content coding the proxy does not decode): one frame, shape `invalid`, one
    /// violation of `kind` (JSON-RPC `code`, if any) with `message`, at byte 0. Returns
    /// [`Action::Reply`] with `reply` (body and HTTP status) when there is one and the proxy
    /// enforces; [`Action::Forward`] under `--monitor` or without `reply`.
    pub fn unreadable(
        &mut self,
        dir: Direction,
        len: u64,
        kind: &'static str,
        code: Option<i32>,
        message: &str,
        reply: Option<(Vec<u8>, u16)>,
    ) -> Action {
        let st = self.stats(dir);
        st.frames += 1;
        st.bytes = st.bytes.saturating_add(len);
        let frame = st.frames;
        let action = match reply {
            Some((body, http_status)) if !self.monitor => Action::Reply { body, http_status },
            _ => Action::Forward,
        };
        self.log_invalid(
            dir,
            &action,
            &ViolationRecord {
                event: "violation",
                dir: dir_name(dir),
                frame,
                offset: 0,
                shape: "invalid",
                id: None,
                method: None,
                kind,
                code,
                at: 0,
                message,
                action: action_name(&action),
            },
        );
        action
    }

    /// Counts a frame with no envelope (shape `invalid`) that got `action`, and logs its
    /// violation `rec`.
    fn log_invalid(&mut self, dir: Direction, action: &Action, rec: &ViolationRecord<'_>) {
        *self
            .stats(dir)
            .shapes
            .entry("invalid".to_owned())
            .or_default() += 1;
        self.count_action(dir, action, true);
        *self
            .log
            .stats
            .violations
            .entry(rec.kind.to_owned())
            .or_default() += 1;
        self.log.record(rec);
    }

    fn stats(&mut self, dir: Direction) -> &mut DirStats {
        match dir {
            Direction::ServerToClient => &mut self.log.stats.s2c,
            _ => &mut self.log.stats.c2s,
        }
    }

    /// Counts an SSE event of type `ty` (not `message`) that carried data in `dir`: not a
    /// message, passed on unvalidated, counted in the summary.
    pub fn count_sse_other_event(&mut self, dir: Direction, ty: &[u8]) {
        crate::cli::input::count_event_type(&mut self.stats(dir).sse_other_events, ty);
    }

    /// Counts `n` SSE field lines of an unknown name in `dir` (a stream's total, at its end).
    pub fn count_sse_unknown_fields(&mut self, dir: Direction, n: u64) {
        self.stats(dir).sse_unknown_fields += n;
    }

    /// Judges a frame of `session` that flowed in `dir`, starting at stream byte `offset`,
    /// whose parse gave `parsed`. `headers` are the HTTP request headers of a POST body
    /// (client → server), for the header-mirror check.
    pub fn judge(
        &mut self,
        session: &mut Session,
        dir: Direction,
        offset: u64,
        bytes: &[u8],
        parsed: Result<Envelope<'_>, FrameFault>,
        headers: Option<&[(&str, &str)]>,
    ) -> Action {
        // A frame discarded unread (an oversize one) comes without its bytes: its error says
        // how many were seen (at least the limit + 1).
        let len = match &parsed {
            Err(FrameFault::Framing(e)) if bytes.is_empty() => e.len(),
            _ => bytes.len(),
        };
        let st = self.stats(dir);
        st.frames += 1;
        st.bytes = st.bytes.saturating_add(len as u64);
        let frame_no = st.frames;
        match parsed {
            Ok(env) => self.judge_envelope(session, dir, frame_no, offset, &env, headers),
            Err(fault) => {
                let action = self.judge_fault(session, dir, frame_no, offset, bytes, fault);
                if matches!(action, Action::Forward) {
                    // A frame passed on unread may be a request the tracker cannot record:
                    // its response must not be reported as matching no request.
                    session.tracker_mut().set_partial(dir);
                }
                action
            }
        }
    }

    fn judge_fault(
        &mut self,
        session: &mut Session,
        dir: Direction,
        frame_no: u64,
        offset: u64,
        bytes: &[u8],
        fault: FrameFault,
    ) -> Action {
        let (kind, code, at, message, violation) = match fault {
            FrameFault::Framing(e) => {
                let v = Violation::from_frame_error(&e).or_else(|| unterminated(&e));
                // A line with a bare CR comes with its bytes: point at its first CR, as
                // `check` does (re-trial: the log said byte 0).
                let at = e.offset_in(bytes);
                (
                    e.kind().name(),
                    v.as_ref().map(|v| v.rule.code()),
                    at,
                    e.kind().message().to_owned(),
                    v.map(|v| Violation { offset: at, ..v }),
                )
            }
            FrameFault::Envelope(e) => (
                e.kind().name(),
                Some(e.code()),
                e.offset(),
                e.kind().message().to_owned(),
                Some(Violation::from_error(&e)),
            ),
        };
        // The id as written, when it can still be read from the rejected frame; after a
        // leading BOM too (trial finding: a BOM-prefixed request was answered without its id,
        // though a backend that strips the BOM, as rmcp does, reads it).
        let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
        let parser = self.parser;
        // A response rejected for its content (a bad byte deep in `result`) still names the
        // request it answers when its structure is intact (hostile trial, session 14: such a
        // server response was dropped and the client's request waited forever).
        let id = parser
            .recover_id(bytes)
            .or_else(|| parser.recover_response_id(bytes))
            .and_then(|s| std::str::from_utf8(s.slice(bytes)).ok());
        let action = match violation {
            _ if self.monitor => Action::Forward,
            // Echo the id when it can still be read and the frame was meant as a request
            // (e.g. one rejected only for a duplicate key), so its sender can match the
            // error; a response whose id answers a request in flight is replaced.
            Some(v) => {
                let request_like = parser.recover_request_id(bytes).is_some();
                let rev = session.revision(dir);
                let reply = || error_reply_for_frame_with(&parser, bytes, &v).for_revision(rev);
                let action =
                    answer_invalid(session, dir, request_like, id, &v, reply).into_action();
                self.for_http(dir, action, reply)
            }
            None => Action::Drop,
        };
        let rec = ViolationRecord {
            event: "violation",
            dir: dir_name(dir),
            frame: frame_no,
            offset,
            shape: "invalid",
            id,
            method: None,
            kind,
            code,
            at,
            message: &message,
            action: action_name(&action),
        };
        self.log_invalid(dir, &action, &rec);
        action
    }

    fn judge_envelope(
        &mut self,
        session: &mut Session,
        dir: Direction,
        frame_no: u64,
        offset: u64,
        env: &Envelope<'_>,
        headers: Option<&[(&str, &str)]>,
    ) -> Action {
        let shape = env.shape();
        let method = env.method().map(|m| m.decode().into_owned());
        {
            let st = self.stats(dir);
            *st.shapes.entry(shape.name().to_owned()).or_default() += 1;
            if let Some(m) = &method {
                count_method(st, m);
            }
        }
        if let Some(elements) = env.batch_elements() {
            // Each element's method, as for a single message (regression: the elements of a
            // batch were missing from the summary). An element that does not parse has none,
            // like a frame that does not.
            let parser = self.parser;
            let frame = env.frame();
            let st = self.stats(dir);
            for span in elements {
                if let Ok(el) = parser.parse(span.slice(frame))
                    && let Some(m) = el.method()
                {
                    count_method(st, &m.decode());
                }
            }
        }
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        let tracked = session.check(dir, env, &mut out);
        if let Some(h) = headers {
            check_headers(h, env, &mut out);
        }
        if out.is_empty() {
            self.scratch = out;
            self.count_action(dir, &Action::Forward, false);
            return Action::Forward;
        }
        let action = if self.monitor {
            Action::Forward
        } else {
            self.reject(session, dir, env, &tracked, &out)
        };
        self.count_action(dir, &action, true);
        for v in &out {
            *self
                .log
                .stats
                .violations
                .entry(v.rule.name().to_owned())
                .or_default() += 1;
            let rec = ViolationRecord {
                event: "violation",
                dir: dir_name(dir),
                frame: frame_no,
                offset,
                shape: shape.name(),
                id: env.id_raw(),
                method: method.as_deref(),
                kind: v.rule.name(),
                code: Some(v.rule.code()),
                at: v.offset,
                message: &v.message,
                action: action_name(&action),
            };
            self.log.record(&rec);
        }
        self.scratch = out;
        action
    }

    fn reject(
        &self,
        session: &mut Session,
        dir: Direction,
        env: &Envelope<'_>,
        tracked: &Tracked,
        out: &[Violation],
    ) -> Action {
        let first = &out[0];
        let mut rev = session.revision(dir);
        let action = if let Tracked::Batch(elements) = tracked {
            // Only 2025-03-26 has batches, and it requires `id` on error responses (hostile
            // trial: under `auto` and `legacy` the replies to a batch had none).
            rev = rev.or(Some(Revision::V2025_03_26));
            self.reject_batch(session, dir, env, elements, out, rev)
        } else {
            Self::reject_single(session, dir, env, tracked, first, rev)
        };
        self.for_http(dir, action, || {
            error_reply(Some(env), first).for_revision(rev)
        })
    }

    /// Under the HTTP policy, `action` (the stdio policy's verdict on a client's frame) made
    /// into one that answers the client's POST: what would be dropped gets `reply()`, a
    /// replacement goes upstream with `reply()` for the client ([`Action::ReplyAndReplace`]),
    /// and a batch with replacements but no reply of its own gets `reply()` as its reply (a
    /// batch with neither gets [`Action::Reply`]). Any other action, and every action for a
    /// frame that is not a client's on HTTP, is returned as it is.
    fn for_http(
        &self,
        dir: Direction,
        action: Action,
        reply: impl FnOnce() -> mcpwire::profile::ErrorReply,
    ) -> Action {
        if !self.http_replies || dir != Direction::ClientToServer {
            return action;
        }
        match action {
            Action::Replace(to_receiver) => {
                let r = reply();
                Action::ReplyAndReplace {
                    body: r.body,
                    http_status: r.http_status,
                    to_receiver,
                }
            }
            Action::Batch {
                reply: None,
                to_receiver,
                ..
            } if !to_receiver.is_empty() => {
                let r = reply();
                Action::Batch {
                    reply: Some(r.body),
                    http_status: r.http_status,
                    to_receiver,
                }
            }
            Action::Drop | Action::Batch { reply: None, .. } => {
                let r = reply();
                Action::Reply {
                    body: r.body,
                    http_status: r.http_status,
                }
            }
            a => a,
        }
    }

    /// [`Judge::reject`] for a frame that is not a batch, under the stdio policy.
    fn reject_single(
        session: &mut Session,
        dir: Direction,
        env: &Envelope<'_>,
        tracked: &Tracked,
        first: &Violation,
        rev: Option<Revision>,
    ) -> Action {
        match env.shape() {
            Shape::Request => {
                // A request reusing an id in flight is answered without the id: the id names
                // the earlier request, whose sender would take the error as that request's
                // answer (and the real answer, later, as an unknown id; hostile trial,
                // session 14).
                let env_for_id = (*tracked != Tracked::DuplicateRequest).then_some(env);
                let r = error_reply(env_for_id, first).for_revision(rev);
                // Answered here: the request is no longer in flight (unless its id was a
                // duplicate: then the in-flight entry is the earlier request's, which still
                // awaits the real response).
                if *tracked == Tracked::Request
                    && let Some(id) = env.id_raw()
                {
                    session.settle_request(dir, id);
                }
                Action::Reply {
                    body: r.body,
                    http_status: r.http_status,
                }
            }
            Shape::Notification => Action::Drop,
            // A rejected response that answered a request in flight (or may have): that
            // request gets a -32603 error instead of no answer.
            Shape::Result | Shape::Error => match (tracked, env.id_raw()) {
                (Tracked::Answered { .. } | Tracked::NotJudged, Some(id)) => {
                    Action::Replace(replacement_reply(id, first).body)
                }
                _ => Action::Drop,
            },
            // (A batch always comes as `Tracked::Batch`, answered in `reject`.)
            Shape::Invalid => {
                let request_like = env.method_span().is_some();
                answer_invalid(session, dir, request_like, env.id_raw(), first, || {
                    error_reply(Some(env), first).for_revision(rev)
                })
                .into_action()
            }
            _ => Action::Drop,
        }
    }

    /// Answers a rejected batch element by element (see [`Action::Batch`]): for each element,
    /// what [`Judge::judge`] does with a rejected single frame of its shape, with these
    /// differences: every request and invalid element is answered in one JSON array (in element
    /// order), and an element without a violation of its own is answered with a `-32600` error
    /// naming the batch's first violation. An empty batch gets the single error reply
    /// (JSON-RPC 2.0 §6: "an empty Array" is one Invalid Request).
    fn reject_batch(
        &self,
        session: &mut Session,
        dir: Direction,
        env: &Envelope<'_>,
        elements: &[BatchElement],
        out: &[Violation],
        rev: Option<mcpwire::profile::Revision>,
    ) -> Action {
        let parser = &self.parser;
        let first = &out[0];
        let whole = error_reply(Some(env), first).for_revision(rev);
        if elements.is_empty() {
            // An empty batch (JSON-RPC 2.0 §6: one Invalid Request), or one over
            // `MAX_BATCH_ELEMENTS`, whose elements were not checked: one error for the batch.
            return Action::Reply {
                body: whole.body,
                http_status: whole.http_status,
            };
        }
        let frame = env.frame();
        let mut bodies: Vec<Vec<u8>> = Vec::new();
        let mut to_receiver = Vec::new();
        let causes = batch_element_causes(env, out);
        // Nothing of the batch is forwarded: its requests are answered here and none stays
        // in flight. Settled before any element is answered, so an invalid element's answer
        // does not depend on whether a well-formed sibling with its id comes before or after
        // it (re-trial, session 16: `[{"id":6,"method":5},{"id":6,"method":"ping"}]` got
        // `null`, the reverse order `6`).
        for element in elements.iter() {
            if element.tracked == Tracked::Request
                && let Some(id) = &element.id
            {
                session.settle_request(dir, id);
            }
        }
        for ((span, cause), element) in causes.into_iter().zip(elements) {
            let bytes = span.slice(frame);
            let tracked = &element.tracked;
            // A response the tracker matched (or could not judge): its id came with its
            // outcome, so it is answered without parsing it again; one matching no request
            // gets nothing.
            match tracked {
                Tracked::Answered { .. } | Tracked::NotJudged => {
                    if let Some(id) = &element.id {
                        to_receiver.push(replacement_reply(id, &cause).body);
                    }
                    continue;
                }
                Tracked::UnknownId => continue,
                _ => {}
            }
            let Ok(el) = parser.parse(bytes) else {
                // Not JSON (or over a limit): as an unparseable frame.
                let id = parser
                    .recover_id(bytes)
                    .and_then(|s| std::str::from_utf8(s.slice(bytes)).ok());
                let request_like = parser.recover_request_id(bytes).is_some();
                let answer = answer_invalid(session, dir, request_like, id, &cause, || {
                    error_reply_for_frame_with(parser, bytes, &cause).for_revision(rev)
                });
                answer.collect(&mut bodies, &mut to_receiver);
                continue;
            };
            match (el.shape(), tracked) {
                (Shape::Request, t) => {
                    // Without the id when it names an earlier request in flight (as for a
                    // single frame).
                    let el_for_id = (*t != Tracked::DuplicateRequest).then_some(&el);
                    bodies.push(error_reply(el_for_id, &cause).for_revision(rev).body);
                }
                (Shape::Notification, _) => {}
                // A response in a batch the profile refused was not checked: when its id answers
                // a request in flight, that request gets the -32603 instead of nothing (re-trial
                // finding: `[{"id":"s1","result":{}}]` under 2025-06-18 left `s1` waiting).
                (Shape::Result | Shape::Error, Tracked::Untracked) => {
                    if let Some(id) = el.id_raw()
                        && session.settle_rejected_response(dir, id)
                    {
                        to_receiver.push(replacement_reply(id, &cause).body);
                    }
                }
                (Shape::Result | Shape::Error, _) => {}
                // Not a valid message (or a nested batch): as a single invalid frame (JSON-RPC
                // 2.0 §6: a client's `[1]` is answered with `"id": null`).
                _ => {
                    let request_like = el.method_span().is_some();
                    let answer =
                        answer_invalid(session, dir, request_like, el.id_raw(), &cause, || {
                            error_reply(Some(&el), &cause).for_revision(rev)
                        });
                    answer.collect(&mut bodies, &mut to_receiver);
                }
            }
        }
        let reply = (!bodies.is_empty()).then(|| batch_body(&bodies));
        Action::Batch {
            reply,
            http_status: whole.http_status,
            to_receiver,
        }
    }

    fn count_action(&mut self, dir: Direction, action: &Action, rejected: bool) {
        let st = self.stats(dir);
        if rejected {
            st.rejected += 1;
        }
        match action {
            Action::Forward => st.forwarded += 1,
            Action::Reply { .. } => st.replied += 1,
            Action::Replace(_) => st.replaced += 1,
            // Both happened: the client got its error reply, the upstream the replacement.
            Action::ReplyAndReplace { .. } => {
                st.replied += 1;
                st.replaced += 1;
            }
            Action::Drop => st.dropped += 1,
            // A batch's reply and its replacements are counted apart (hostile trial: a batch
            // with both counted only the reply).
            Action::Batch {
                reply, to_receiver, ..
            } => {
                st.replied += u64::from(reply.is_some());
                st.replaced += to_receiver.len() as u64;
                if reply.is_none() && to_receiver.is_empty() {
                    st.dropped += 1;
                }
            }
        }
    }
}

/// What a message that is no valid JSON-RPC message (or not JSON) gets.
enum Answer {
    /// An error reply to its sender.
    Sender(mcpwire::profile::ErrorReply),
    /// A -32603 replacement to its receiver (it was meant as a response to a request in
    /// flight).
    Receiver(Vec<u8>),
    /// Nothing.
    Nothing,
}

impl Answer {
    fn into_action(self) -> Action {
        match self {
            Answer::Sender(r) => Action::Reply {
                body: r.body,
                http_status: r.http_status,
            },
            Answer::Receiver(body) => Action::Replace(body),
            Answer::Nothing => Action::Drop,
        }
    }
    fn collect(self, bodies: &mut Vec<Vec<u8>>, to_receiver: &mut Vec<Vec<u8>>) {
        match self {
            Answer::Sender(r) => bodies.push(r.body),
            Answer::Receiver(body) => to_receiver.push(body),
            Answer::Nothing => {}
        }
    }
}

/// The answer to an invalid or unparseable message that flowed in `dir` with id `id` (as
/// written, when it can be read), for violation `v`; `reply` builds the error reply:
///
/// * meant as a request (it has a `method` member): the error reply to its sender, from a
///   client always, from a server when it has an id (hostile trial: a server request with
///   bad `params` was dropped, and the server waited forever); without the id when the
///   sender has a request with that id in flight;
/// * otherwise, when its id answers a request in flight (it was meant as that response):
///   the -32603 replacement to its receiver, in both directions (hostile trial: a client's
///   malformed response left the server's request waiting);
/// * otherwise the error reply to a client (JSON-RPC 2.0: an invalid message gets an error
///   without an id), nothing to a server.
///
/// Over HTTP ([`Judge::for_http`]) a client also gets the error reply when its message is
/// replaced.
fn answer_invalid(
    session: &mut Session,
    dir: Direction,
    request_like: bool,
    id: Option<&str>,
    v: &Violation,
    reply: impl FnOnce() -> mcpwire::profile::ErrorReply,
) -> Answer {
    let from_client = dir == Direction::ClientToServer;
    if request_like && (from_client || id.is_some()) {
        // An id its sender still has in flight names that earlier request: echoed, the
        // error would be taken as that request's answer, and the real answer later as an
        // unknown id (as for a well-formed request reusing it, `Tracked::DuplicateRequest`).
        if id.is_some_and(|id| session.request_in_flight(dir, id)) {
            return Answer::Sender(error_reply(None, v).for_revision(session.revision(dir)));
        }
        return Answer::Sender(reply());
    }
    if !request_like
        && let Some(id) = id
        && session.settle_rejected_response(dir, id)
    {
        return Answer::Receiver(replacement_reply(id, v).body);
    }
    if from_client {
        Answer::Sender(reply())
    } else {
        Answer::Nothing
    }
}

/// The violation an unterminated last line (stdio: the sender wrote it and closed its end)
/// is answered for: -32700 (Parse error) with the `unterminated-line` message, as `check`
/// reports it. Its bytes are not forwarded (the stdio transport delimits every message with a
/// newline), but its sender may still read: a client's request, or a server's, gets the error
/// reply with its id when it can be read (hostile trial D7: a client's last request without a
/// final newline was logged `dropped` and never answered). The rule is the core
/// `unexpected-end` kind (the frame ended before its newline), which gives the code; the log
/// records the framing kind, `unterminated-line`. `None` for any other framing error.
fn unterminated(e: &mcpwire::framing::FrameError) -> Option<Violation> {
    (e.kind() == FrameErrorKind::UnterminatedLine)
        .then(|| Violation::new(Rule::Core(ErrorKind::UnexpectedEnd), 0, e.kind().message()))
}

/// Counts one request or notification of method `m` in `st` (at most [`MAX_METHODS`] names
/// per direction: peers choose method names, and a long-running proxy must not grow with each
/// new one; re-trial finding: 400,000 distinct names took 161 MB).
fn count_method(st: &mut DirStats, m: &str) {
    let fits = m.len() <= MAX_METHOD_LEN && st.methods.len() < MAX_METHODS;
    let key = if fits || st.methods.contains_key(m) {
        m.to_owned()
    } else {
        OTHER_METHODS.to_owned()
    };
    *st.methods.entry(key).or_default() += 1;
}

fn action_name(a: &Action) -> &'static str {
    match a {
        Action::Forward => "forwarded",
        Action::Reply { .. } => "replied",
        // As on stdio for the same frame: the receiver got the replacement (that the sender
        // also got a reply is what HTTP always does).
        Action::Replace(_) | Action::ReplyAndReplace { .. } => "replaced",
        Action::Drop => "dropped",
        Action::Batch { reply: Some(_), .. } => "replied",
        Action::Batch { to_receiver, .. } if !to_receiver.is_empty() => "replaced",
        Action::Batch { .. } => "dropped",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log written to a file that is removed afterwards (the records are not needed).
    fn quiet_log() -> Log {
        let dir = tempfile::tempdir().unwrap();
        Log::open(Some(&dir.path().join("log.jsonl"))).unwrap()
    }

    fn judge_bytes(j: &mut Judge, s: &mut Session, dir: Direction, bytes: &[u8]) -> Action {
        let parsed = mcpwire::Parser::new()
            .parse(bytes)
            .map_err(FrameFault::Envelope);
        j.judge(s, dir, 0, bytes, parsed, None)
    }

    /// The HTTP policy replaces a client's response-like invalid message whose id answers a
    /// server request in flight (the upstream gets the -32603, the client its error reply),
    /// settles that request once, and counts both the reply and the replacement.
    #[test]
    fn http_client_response_to_a_server_request_is_replied_and_replaced() {
        let log = quiet_log();
        let mut j = Judge::new(Profile::Legacy, 16, log, false).http_replies();
        let mut s = j.new_session();
        let ping = br#"{"jsonrpc":"2.0","id":"srvB","method":"ping"}"#;
        j.observe(
            &mut s,
            Direction::ServerToClient,
            0,
            ping,
            mcpwire::Parser::new()
                .parse(ping)
                .map_err(FrameFault::Envelope),
        );
        let bad = br#"{"jsonrpc":"2.0","id":"srvB","result":{},"error":{"code":1,"message":"x"}}"#;
        let Action::ReplyAndReplace {
            body,
            http_status,
            to_receiver,
        } = judge_bytes(&mut j, &mut s, Direction::ClientToServer, bad)
        else {
            panic!("not replied and replaced");
        };
        assert_eq!(http_status, 400);
        let reply = String::from_utf8(body).unwrap();
        assert!(!reply.contains("srvB"), "{reply}");
        let to = String::from_utf8(to_receiver).unwrap();
        assert!(
            to.contains(r#""id":"srvB""#) && to.contains("-32603"),
            "{to}"
        );
        // Settled: the same message again answers nothing in flight.
        assert!(matches!(
            judge_bytes(&mut j, &mut s, Direction::ClientToServer, bad),
            Action::Reply {
                http_status: 400,
                ..
            }
        ));
        let st = &j.log.stats.c2s;
        assert_eq!((st.rejected, st.replied, st.replaced), (2, 2, 1));
    }

    /// Judges `bytes` as an unterminated last line (as the NDJSON codec reports it at EOF).
    fn cut(j: &mut Judge, s: &mut Session, dir: Direction, bytes: &[u8]) -> Action {
        use mcpwire::framing::FrameError;
        let e = FrameError::new(FrameErrorKind::UnterminatedLine, 0, 1, bytes.len());
        j.judge(s, dir, 0, bytes, Err(FrameFault::Framing(e)), None)
    }

    /// Hostile trial D7: an unterminated last line is judged as a frame that is not JSON,
    /// with -32700: a client's request answered with its id, a client's garbage answered
    /// without one, a server's request answered with its id, a server's response whose id
    /// answers a client request in flight replaced, a server's other frame dropped.
    #[test]
    fn unterminated_last_line_is_answered_like_an_unreadable_frame() {
        let log = quiet_log();
        let mut j = Judge::new(Profile::Legacy, 16, log, false);
        let mut s = j.new_session();
        let body = |a: Action| match a {
            Action::Reply { body, .. } => String::from_utf8(body).unwrap(),
            a => panic!("not a reply: {a:?}"),
        };
        let c2s = Direction::ClientToServer;
        let s2c = Direction::ServerToClient;
        let r = body(cut(
            &mut j,
            &mut s,
            c2s,
            br#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#,
        ));
        assert!(r.contains(r#""id":5"#) && r.contains("-32700"), "{r}");
        let r = body(cut(
            &mut j,
            &mut s,
            c2s,
            br#"{"jsonrpc":"2.0","id":6,"meth"#,
        ));
        assert!(!r.contains(r#""id":6"#) && r.contains("-32700"), "{r}");
        let r = body(cut(
            &mut j,
            &mut s,
            s2c,
            br#"{"jsonrpc":"2.0","id":"s1","method":"ping"}"#,
        ));
        assert!(r.contains(r#""id":"s1""#) && r.contains("-32700"), "{r}");
        // A client request in flight, then the server's cut-off answer to it.
        let ping = br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;
        assert_eq!(judge_bytes(&mut j, &mut s, c2s, ping), Action::Forward);
        let Action::Replace(to) = cut(
            &mut j,
            &mut s,
            s2c,
            br#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
        ) else {
            panic!("not replaced");
        };
        let to = String::from_utf8(to).unwrap();
        assert!(to.contains(r#""id":7"#) && to.contains("-32603"), "{to}");
        assert_eq!(
            cut(&mut j, &mut s, s2c, br#"{"jsonrpc":"2.0","#),
            Action::Drop
        );
    }

    /// Open since session 14: a frame rejected by the parser (a repeated envelope key) that
    /// reuses the id of its sender's request in flight was answered with that id, so the
    /// sender took the error as the earlier request's answer and the real answer, later, as
    /// an unknown id. The reply now carries no id (`"id":null` under a legacy revision), as
    /// for a well-formed request reusing the id; once the earlier request is answered, the id
    /// is echoed again. Same for a request-like message that parses but is invalid.
    #[test]
    fn rejected_frame_reusing_an_id_in_flight_is_answered_without_it() {
        let log = quiet_log();
        let mut j = Judge::new(Profile::V2025_06_18, 16, log, false);
        let mut s = j.new_session();
        let c2s = Direction::ClientToServer;
        let s2c = Direction::ServerToClient;
        let body = |a: Action| match a {
            Action::Reply { body, .. } => String::from_utf8(body).unwrap(),
            a => panic!("not a reply: {a:?}"),
        };
        let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        assert_eq!(judge_bytes(&mut j, &mut s, c2s, ping), Action::Forward);
        for bad in [
            &br#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}"#[..],
            br#"{"jsonrpc":"2.0","id":1,"method":5}"#,
        ] {
            let r = body(judge_bytes(&mut j, &mut s, c2s, bad));
            assert!(r.contains(r#""id":null"#), "{r}");
            // Another id is still echoed.
            let other = String::from_utf8_lossy(bad).replace(r#""id":1"#, r#""id":2"#);
            let r = body(judge_bytes(&mut j, &mut s, c2s, other.as_bytes()));
            assert!(r.contains(r#""id":2"#), "{r}");
        }
        // The earlier request is still in flight: its real answer is forwarded.
        let pong = br#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
        assert_eq!(judge_bytes(&mut j, &mut s, s2c, pong), Action::Forward);
        // Now free (2025-06-18 forbids reuse, but the echo is about matching): echoed.
        let bad = br#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}"#;
        let r = body(judge_bytes(&mut j, &mut s, c2s, bad));
        assert!(r.contains(r#""id":1"#), "{r}");
    }

    /// Re-trial, session 16: in a rejected batch, an invalid element's answer depended on
    /// where a well-formed sibling with its id stood (after it: in flight, so `null`; before
    /// it: settled, so echoed). Both orders now echo the id, as before the in-flight check;
    /// a request in flight from before the batch still makes it `null`.
    #[test]
    fn rejected_batch_answers_do_not_depend_on_element_order() {
        let c2s = Direction::ClientToServer;
        let replies = |frames: &[&[u8]]| {
            let mut j = Judge::new(Profile::V2025_03_26, 16, quiet_log(), false);
            let mut s = j.new_session();
            let mut last = None;
            for f in frames {
                last = Some(judge_bytes(&mut j, &mut s, c2s, f));
            }
            match last.unwrap() {
                Action::Batch {
                    reply: Some(body), ..
                } => {
                    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
                    v.as_array()
                        .unwrap()
                        .iter()
                        .map(|r| r["id"].to_string())
                        .collect::<Vec<_>>()
                }
                a => panic!("not a reply: {a:?}"),
            }
        };
        let a: &[u8] =
            br#"[{"jsonrpc":"2.0","id":6,"method":5},{"jsonrpc":"2.0","id":6,"method":"ping"}]"#;
        let b: &[u8] =
            br#"[{"jsonrpc":"2.0","id":6,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":5}]"#;
        assert_eq!(replies(&[a]), ["6", "6"]);
        assert_eq!(replies(&[b]), ["6", "6"]);
        // An earlier request 6 in flight: the invalid element is answered without the id.
        let ping: &[u8] = br#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#;
        let got = replies(&[ping, a]);
        assert_eq!(got[0], "null", "{got:?}");
    }

    /// Each element of a batch is counted by its method, as a single message is.
    #[test]
    fn batch_elements_are_counted_by_method() {
        let log = quiet_log();
        let mut j = Judge::new(Profile::Legacy, 16, log, true);
        let mut s = j.new_session();
        let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":7},1]"#;
        judge_bytes(&mut j, &mut s, Direction::ClientToServer, batch);
        let m = &j.log.stats.c2s.methods;
        assert_eq!(m.len(), 2, "{m:?}");
        assert_eq!(m["ping"], 2);
        assert_eq!(m["notifications/initialized"], 1);
        assert_eq!(j.log.stats.c2s.shapes["batch"], 1);
    }

    /// Hostile trial (session 14): a client request reusing an id still in flight was answered
    /// with an error carrying that id, which the client took as the answer to its first
    /// request (whose real answer then came as an unknown id). The reply now has no id
    /// (`"id":null` where the revision requires one), for a single frame and a batch
    /// element; the first request stays in flight. Exact frames of the trial.
    #[test]
    fn a_duplicate_request_id_is_answered_without_the_id() {
        let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let c2s = Direction::ClientToServer;
        let mut j = Judge::new(Profile::V2026_07_28, 16, quiet_log(), false);
        let mut s = j.new_session();
        assert_eq!(judge_bytes(&mut j, &mut s, c2s, list), Action::Forward);
        let Action::Reply { body, .. } = judge_bytes(&mut j, &mut s, c2s, list) else {
            panic!("not a reply");
        };
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v.get("id"), None, "{v}");
        assert_eq!(v["error"]["code"], -32600, "{v}");
        // The first request is still in flight: its real answer is matched.
        let answer = br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[],"resultType":"complete","ttlMs":0,"cacheScope":"private"}}"#;
        let parsed = mcpwire::Parser::new()
            .parse(answer)
            .map_err(FrameFault::Envelope);
        assert_eq!(
            j.judge(&mut s, Direction::ServerToClient, 0, answer, parsed, None),
            Action::Forward
        );

        // A batch element reusing an id in flight (2025-03-26): `"id":null` in its reply.
        let mut j = Judge::new(Profile::V2025_03_26, 16, quiet_log(), false);
        let mut s = j.new_session();
        let ping = br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;
        assert_eq!(judge_bytes(&mut j, &mut s, c2s, ping), Action::Forward);
        let batch = br#"[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":8,"method":"ping"}]"#;
        let Action::Batch {
            reply: Some(body), ..
        } = judge_bytes(&mut j, &mut s, c2s, batch)
        else {
            panic!("no batch reply");
        };
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        let ids: Vec<_> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].clone())
            .collect();
        assert_eq!(
            ids,
            [serde_json::Value::Null, serde_json::Value::from(8)],
            "{v}"
        );
    }
}
