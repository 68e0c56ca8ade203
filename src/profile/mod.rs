//! MCP profile rules per protocol revision (DESIGN.md layer 4): semantic validation on top of
//! the envelope, error replies, and the Streamable HTTP header-mirror check.
//!
//! # API at a glance
//!
//! * [`Profile`]: which revision's rules apply: one revision (`2026-07-28` strict,
//!   `2025-11-25`, `2025-06-18`, `2025-03-26` with batches, `2024-11-05`), `legacy` (union of
//!   the pre-2026 rules), or `auto` (decided per stream from `server/discover` /
//!   `initialize` and per request from `_meta["io.modelcontextprotocol/protocolVersion"]`).
//! * [`Direction`]: which way the stream flows.
//! * [`Validator`]: one per stream; [`Validator::check`] appends [`Violation`]s for one
//!   envelope, [`Validator::check_parse_error`] maps a core [`Error`] to a violation with the
//!   same kind name.
//! * [`Session`]: two validators (one per direction) plus a bounded [`Tracker`] that matches
//!   responses to in-flight request ids.
//! * [`error_reply`]: the JSON-RPC error response bytes and HTTP status a gateway sends for a
//!   rejected message; [`error_reply_for_frame`] the same for a frame the parser rejected,
//!   echoing the id [`recover_id`](crate::recover_id) can still read.
//! * [`check_headers`] / [`check_headers_with_params`]: Streamable HTTP header mirroring
//!   (2026-07-28, `-32020` HeaderMismatch); [`HeaderRecord`] reads one `{headers, body}`
//!   jsonl record (`mcpwire check --headers FILE`).
//!
//! Every [`Rule`] has a stable kebab-case [`name`](Rule::name), the JSON-RPC
//! [`code`](Rule::code) a server would answer and the spec [`section`](Rule::section) it
//! implements; see [`rules`] for the full list.
//!
//! # Judgement calls (where the spec is silent or real traffic disagrees)
//!
//! * Unknown notification methods are not flagged (receivers ignore them); unknown and
//!   removed *request* methods are (-32601), as a server would answer.
//! * Listen-stream notifications other than `notifications/subscriptions/acknowledged` must
//!   carry `subscriptionId` only when the caller says the stream is a listen stream
//!   ([`Validator::set_listen_stream`]): on stdio they share the channel and the schema types
//!   the key as optional.
//! * Unknown keys under MCP-reserved `_meta` prefixes are flagged by the 2026-07-28,
//!   2025-11-25 and 2025-06-18 profiles, each under its own reserved-prefix rule; the
//!   `legacy` union (no single grammar) and earlier revisions do not flag them. Legacy
//!   profiles accept the keys later revisions define (a dual-era client's 2026-07-28 probe
//!   precedes the legacy `initialize`).
//! * Legacy request ids must never be reused within a session ([`Rule::ReusedRequestId`]);
//!   a session starts at `initialize`. The tracker remembers at most `max_in_flight`
//!   completed ids per sender (oldest forgotten first), so a reuse of a forgotten id is
//!   missed, never invented.

pub mod headers;
mod meta;
mod methods;
mod msg;
mod params;
pub mod reply;
mod results;
pub mod rules;
mod shapes;
pub mod tracker;
mod validate;

use std::fmt;
use std::str::FromStr;

use crate::envelope::Envelope;
use crate::error::Error;

pub use headers::{
    HeaderRecord, HeaderRecordError, ParamBinding, check_header_record, check_headers,
    check_headers_with_params, decode_header_value,
};
pub use reply::{
    ErrorReply, batch_body, batch_element_causes, batch_error_reply, error_reply,
    error_reply_for_frame, error_reply_for_frame_with, error_reply_with_data, http_status,
    missing_capability_reply, replacement_reply, request_error_reply,
};
pub use rules::Rule;
pub use tracker::{IdKey, Tracker};

/// Most elements a JSON-RPC batch may have: a larger one is [`Rule::BatchTooLarge`],
/// rejected whole without checking (or tracking) its elements. Batches exist only in
/// 2025-03-26, where clients send a few messages at a time; under a profile (or an `auto`
/// stream) that allows no batches, a larger batch is refused as any batch there
/// ([`ErrorKind::Batch`](crate::ErrorKind::Batch), `batch`), also without per-element
/// outcomes.
pub const MAX_BATCH_ELEMENTS: usize = 1024;

/// An MCP protocol revision (a `YYYY-MM-DD` version string; lexical order = chronological).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Revision {
    /// 2024-11-05 (legacy; HTTP+SSE transport).
    V2024_11_05,
    /// 2025-03-26 (legacy; JSON-RPC batches allowed).
    V2025_03_26,
    /// 2025-06-18 (legacy; batches removed, `_meta` grammar, `elicitation/create`).
    V2025_06_18,
    /// 2025-11-25 (legacy; core tasks).
    V2025_11_25,
    /// 2026-07-28 (modern: no handshake, per-request `_meta`, `resultType`).
    V2026_07_28,
}

impl Revision {
    /// Every revision, oldest first.
    pub const ALL: &'static [Revision] = &[
        Revision::V2024_11_05,
        Revision::V2025_03_26,
        Revision::V2025_06_18,
        Revision::V2025_11_25,
        Revision::V2026_07_28,
    ];
    /// The version string, e.g. `"2026-07-28"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Revision::V2024_11_05 => "2024-11-05",
            Revision::V2025_03_26 => "2025-03-26",
            Revision::V2025_06_18 => "2025-06-18",
            Revision::V2025_11_25 => "2025-11-25",
            Revision::V2026_07_28 => "2026-07-28",
        }
    }
    /// Parses a version string (exact match).
    pub fn from_version(s: &str) -> Option<Revision> {
        Revision::ALL.iter().copied().find(|r| r.as_str() == s)
    }
    /// True for 2026-07-28 and later (the modern era).
    pub const fn is_modern(self) -> bool {
        matches!(self, Revision::V2026_07_28)
    }
    /// True when the revision's schema requires `id` on every error response (`"id": null`
    /// when the request's id could not be read): 2024-11-05, 2025-03-26 and 2025-06-18;
    /// 2025-11-25 and 2026-07-28 make it optional.
    pub const fn requires_error_id(self) -> bool {
        matches!(
            self,
            Revision::V2024_11_05 | Revision::V2025_03_26 | Revision::V2025_06_18
        )
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which rules a [`Validator`] applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Profile {
    /// 2026-07-28, strict (spec digest §2-§6).
    V2026_07_28,
    /// 2025-11-25.
    V2025_11_25,
    /// 2025-06-18.
    V2025_06_18,
    /// 2025-03-26 (batches allowed).
    V2025_03_26,
    /// 2024-11-05.
    V2024_11_05,
    /// Any pre-2026 revision: the union of the legacy rules (accepts what some legacy
    /// revision accepts; batches allowed).
    Legacy,
    /// Decided per stream and per request (see the module docs).
    #[default]
    Auto,
}

impl Profile {
    /// Every profile, in CLI order.
    pub const ALL: &'static [Profile] = &[
        Profile::V2026_07_28,
        Profile::V2025_11_25,
        Profile::V2025_06_18,
        Profile::V2025_03_26,
        Profile::V2024_11_05,
        Profile::Legacy,
        Profile::Auto,
    ];
    /// The CLI spelling: `"2026-07-28"`, …, `"legacy"`, `"auto"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Profile::V2026_07_28 => "2026-07-28",
            Profile::V2025_11_25 => "2025-11-25",
            Profile::V2025_06_18 => "2025-06-18",
            Profile::V2025_03_26 => "2025-03-26",
            Profile::V2024_11_05 => "2024-11-05",
            Profile::Legacy => "legacy",
            Profile::Auto => "auto",
        }
    }
    /// The fixed revision of this profile (`None` for `legacy` and `auto`).
    pub const fn revision(self) -> Option<Revision> {
        match self {
            Profile::V2026_07_28 => Some(Revision::V2026_07_28),
            Profile::V2025_11_25 => Some(Revision::V2025_11_25),
            Profile::V2025_06_18 => Some(Revision::V2025_06_18),
            Profile::V2025_03_26 => Some(Revision::V2025_03_26),
            Profile::V2024_11_05 => Some(Revision::V2024_11_05),
            Profile::Legacy | Profile::Auto => None,
        }
    }
    /// The profile of one revision.
    pub const fn of(rev: Revision) -> Profile {
        match rev {
            Revision::V2024_11_05 => Profile::V2024_11_05,
            Revision::V2025_03_26 => Profile::V2025_03_26,
            Revision::V2025_06_18 => Profile::V2025_06_18,
            Revision::V2025_11_25 => Profile::V2025_11_25,
            Revision::V2026_07_28 => Profile::V2026_07_28,
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A profile name that is not one of [`Profile::ALL`]'s spellings.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown profile {0:?} (expected 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, legacy or auto)"
)]
pub struct UnknownProfile(pub String);

impl FromStr for Profile {
    type Err = UnknownProfile;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Profile::ALL
            .iter()
            .copied()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| UnknownProfile(s.to_owned()))
    }
}

/// Which way a stream flows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Direction {
    /// Client → server (stdio: the server's stdin; HTTP: POST bodies).
    ClientToServer,
    /// Server → client (stdio: the server's stdout; HTTP: response bodies and SSE events).
    ServerToClient,
    /// Not known: direction rules are skipped.
    #[default]
    Unknown,
}

impl Direction {
    /// The short name: `c2s`, `s2c`, `unknown` (the CLI's `--direction` takes `c2s` and `s2c`
    /// as aliases of `client-to-server` and `server-to-client`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Direction::ClientToServer => "c2s",
            Direction::ServerToClient => "s2c",
            Direction::Unknown => "unknown",
        }
    }
    /// The spelled-out name used in messages: `client-to-server`, `server-to-client`,
    /// `unknown direction`.
    pub const fn describe(self) -> &'static str {
        match self {
            Direction::ClientToServer => "client-to-server",
            Direction::ServerToClient => "server-to-client",
            Direction::Unknown => "unknown direction",
        }
    }
    /// The opposite direction (`Unknown` stays `Unknown`).
    pub const fn reverse(self) -> Direction {
        match self {
            Direction::ClientToServer => Direction::ServerToClient,
            Direction::ServerToClient => Direction::ClientToServer,
            Direction::Unknown => Direction::Unknown,
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A direction name that is not `c2s`/`client-to-server`, `s2c`/`server-to-client` or
/// `unknown`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown direction {0:?} (expected c2s, s2c or unknown)")]
pub struct UnknownDirection(pub String);

impl FromStr for Direction {
    type Err = UnknownDirection;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "c2s" | "client-to-server" => Ok(Direction::ClientToServer),
            "s2c" | "server-to-client" => Ok(Direction::ServerToClient),
            "unknown" => Ok(Direction::Unknown),
            _ => Err(UnknownDirection(s.to_owned())),
        }
    }
}

/// One finding: which rule, where (byte offset from the start of the frame), and a one-line
/// human message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The rule broken ([`Rule::name`] is the stable kind, [`Rule::code`] the JSON-RPC code).
    pub rule: Rule,
    /// Byte offset in the frame where the offending member or value starts.
    pub offset: usize,
    /// One short sentence for humans (not stable).
    pub message: String,
}

impl Violation {
    /// A violation of `rule` at byte `offset`.
    pub fn new(rule: Rule, offset: usize, message: impl Into<String>) -> Self {
        Self {
            rule,
            offset,
            message: message.into(),
        }
    }
    /// The violation a core [`Error`] stands for (same kind name, code and offset).
    pub fn from_error(e: &Error) -> Self {
        Self {
            rule: Rule::Core(e.kind()),
            offset: e.offset(),
            message: e.kind().message().into(),
        }
    }
    /// The violation a framing error stands for, when a reply is due
    /// ([`FrameErrorKind::jsonrpc_code`](crate::framing::FrameErrorKind::jsonrpc_code) is
    /// `Some`): the size limits (`frame-too-large`, `event-too-large`, `body-too-large`) are
    /// [`Rule::Core`]`(`[`ErrorKind::FrameTooLarge`](crate::ErrorKind::FrameTooLarge)`)`
    /// (-32600, HTTP 413 through [`http_status`]) at offset 0 of the discarded frame, with the
    /// framing kind's message; feed those to [`error_reply`] with `None` (no id can be read
    /// from a discarded frame). A stdio line with a bare CR is
    /// [`Rule::Core`]`(`[`ErrorKind::BareCr`](crate::ErrorKind::BareCr)`)` (-32700, HTTP 400);
    /// its bytes come with the codecs' error item, so feed it to [`error_reply_for_frame`]
    /// with them, which echoes a request's id. `None` for the kinds no peer can be answered
    /// for: a stream that ended inside a line or event, an overlong SSE line that is not data,
    /// a truncated body, an unencodable frame.
    pub fn from_frame_error(e: &crate::framing::FrameError) -> Option<Self> {
        let kind = e.kind();
        Some(Self {
            rule: Rule::Core(kind.error_kind()?),
            offset: 0,
            message: kind.message().into(),
        })
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}) at byte {}: {}",
            self.rule.name(),
            self.rule.code(),
            self.offset,
            self.message
        )
    }
}

/// The era a stream has shown so far (auto profile).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Era {
    Undecided,
    Legacy(Option<Revision>),
    Modern,
}

/// Validates the messages of one stream under a [`Profile`].
///
/// Stateful only for the auto profile's era detection (a few bytes); cheap to create.
#[derive(Clone, Debug)]
pub struct Validator {
    profile: Profile,
    direction: Direction,
    era: Era,
    result_types: Vec<String>,
    tasks_extension: bool,
    listen_stream: bool,
}

impl Validator {
    /// A validator for one stream flowing in `direction` under `profile`.
    pub fn new(profile: Profile, direction: Direction) -> Self {
        Self {
            profile,
            direction,
            era: Era::Undecided,
            result_types: Vec::new(),
            tasks_extension: false,
            listen_stream: false,
        }
    }
    /// The profile.
    pub fn profile(&self) -> Profile {
        self.profile
    }
    /// The direction.
    pub fn direction(&self) -> Direction {
        self.direction
    }
    /// Accepts `value` as an extension `resultType` (spec digest §3: extensions advertised
    /// in capabilities add values, e.g. `"task"`).
    pub fn declare_result_type(&mut self, value: &str) -> &mut Self {
        if !self.result_types.iter().any(|v| v == value) {
            self.result_types.push(value.to_owned());
        }
        self
    }
    /// Enables the Tasks extension (`io.modelcontextprotocol/tasks`): its methods
    /// (`tasks/get`, `tasks/update`, `tasks/cancel`, `notifications/tasks`) and the
    /// `resultType` `"task"`.
    pub fn enable_tasks_extension(&mut self) -> &mut Self {
        self.tasks_extension = true;
        self.declare_result_type("task")
    }
    /// Says this stream is the response stream of a `subscriptions/listen` request: every
    /// notification on it must carry `io.modelcontextprotocol/subscriptionId`.
    pub fn set_listen_stream(&mut self, yes: bool) -> &mut Self {
        self.listen_stream = yes;
        self
    }
    /// The revision decided so far, as [`Session::revision`] gives it: the fixed revision of
    /// the profile, and for `auto` the revision the stream has shown; `None` for the legacy
    /// union ([`Profile::Legacy`], or an `auto` stream that showed a legacy era without naming
    /// a revision) and while `auto` is undecided. [`revision_name`](Self::revision_name) tells
    /// those apart.
    pub fn revision(&self) -> Option<Revision> {
        match self.profile {
            Profile::Legacy => None,
            Profile::Auto => match self.era {
                Era::Undecided | Era::Legacy(None) => None,
                Era::Modern => Some(Revision::V2026_07_28),
                Era::Legacy(Some(r)) => Some(r),
            },
            p => p.revision(),
        }
    }
    /// The rules decided so far, by name: the [`revision`](Self::revision)'s version string
    /// (`"2026-07-28"`, …), `"legacy"` for the legacy union (also an `auto` stream in the
    /// legacy era with no revision named), `None` while `auto` is undecided.
    pub fn revision_name(&self) -> Option<&'static str> {
        match (self.profile, self.era) {
            (Profile::Legacy, _) | (Profile::Auto, Era::Legacy(None)) => Some("legacy"),
            _ => self.revision().map(Revision::as_str),
        }
    }
    /// Checks one envelope, appending violations to `out` (in frame order for one rule
    /// family; offsets are bytes from the start of the frame). Core findings
    /// ([`Envelope::invalid_reason`]) come first, as [`Rule::Core`].
    pub fn check(&mut self, env: &Envelope<'_>, out: &mut Vec<Violation>) {
        let m = msg::Msg::from_envelope(env);
        validate::check(self, &m, None, out);
    }
    /// Maps a core parse error (the frame is not JSON, exceeds a limit, or repeats an
    /// envelope key) to a violation with the core kind's name, code and offset.
    pub fn check_parse_error(&mut self, e: &Error, out: &mut Vec<Violation>) {
        out.push(Violation::from_error(e));
    }
}

/// What [`Session::check`] did with one message in its [`Tracker`] (spec digest §2.3).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Tracked {
    /// Nothing: a notification, a message without a usable id (`"id": null`), a frame that is
    /// not a valid message, or [`Direction::Unknown`].
    Untracked,
    /// A request, now in flight until its response, a cancel or [`Session::settle_request`].
    /// Also when it has violations: a gateway that answers it itself settles it with
    /// [`Session::settle_request`], or the entry stays in flight (and a later request
    /// reusing the id is a [`Rule::DuplicateRequestId`]).
    Request,
    /// A request whose id the same sender still has in flight ([`Rule::DuplicateRequestId`]).
    /// Not recorded: the entry in flight is the earlier request's, which still awaits its
    /// response, so do not settle it when answering this one.
    DuplicateRequest,
    /// A response that settled the request in flight with its id (also when the response
    /// itself has violations: a gateway that drops it owes that request an answer, e.g.
    /// [`replacement_reply`]).
    Answered {
        /// The method of the request it answered.
        method: String,
    },
    /// A response whose id matches no request in flight ([`Rule::UnknownResponseId`]).
    UnknownId,
    /// A response the tracker could not judge: it evicted entries, or requests of that
    /// sender may pass unseen ([`Tracker::set_partial`]), or the id was reused after a cancel
    /// and this may be the cancelled request's late answer.
    NotJudged,
    /// A batch (2025-03-26, JSON-RPC 2.0 §6): each element's outcome, in element order
    /// ([`Envelope::batch_elements`]). Every element is [`Tracked::Untracked`] when the
    /// profile does not allow the batch (its elements are then not recorded), and so is an
    /// element that is not JSON, is itself a batch or is an `initialize` request (which
    /// 2025-03-26 forbids in a batch). Empty for an empty batch and for one over
    /// [`MAX_BATCH_ELEMENTS`] (allowed or not: such a batch gets one error). A gateway that
    /// rejects the batch settles the elements reported [`Tracked::Request`] with
    /// [`Session::settle_request`] (each [`BatchElement::id`] is the id to pass), and owes an
    /// answer to the requests behind [`Tracked::Answered`] elements.
    Batch(Vec<BatchElement>),
}

/// One element of a batch as [`Session::check`] tracked it ([`Tracked::Batch`]): its outcome
/// and its id, so that a caller need not parse the element again to settle or answer it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct BatchElement {
    /// What the tracker made of the element.
    pub tracked: Tracked,
    /// The element's id as written (raw JSON text, as [`Envelope::id_raw`] gives it; the
    /// input of [`Session::settle_request`], [`replacement_reply`] and [`IdKey::from_raw`])
    /// when the element is JSON and its `id` member is a string or an integer. `None` for
    /// any other id (absent, `null`, a float …), for an element that is not JSON, and for
    /// every element of a batch the profile does not allow (its elements are not read).
    pub id: Option<String>,
}

impl BatchElement {
    /// An element with outcome `tracked` and id `id`.
    pub fn new(tracked: Tracked, id: Option<String>) -> Self {
        Self { tracked, id }
    }
}

/// Both directions of one connection plus a [`Tracker`]: responses are matched to in-flight
/// requests (duplicate in-flight ids, responses to unknown ids), and a response is judged
/// under the revision of its request.
#[derive(Clone, Debug)]
pub struct Session {
    c2s: Validator,
    s2c: Validator,
    tracker: Tracker,
}

impl Session {
    /// A session under `profile`, tracking at most `max_in_flight` requests per sender
    /// (oldest evicted first; see [`Tracker::new`]; 0 is raised to 1).
    pub fn new(profile: Profile, max_in_flight: usize) -> Self {
        Self {
            c2s: Validator::new(profile, Direction::ClientToServer),
            s2c: Validator::new(profile, Direction::ServerToClient),
            tracker: Tracker::new(max_in_flight),
        }
    }
    /// The validator of one direction (to declare result types, extensions …).
    ///
    /// # Panics
    /// If `dir` is [`Direction::Unknown`].
    pub fn validator_mut(&mut self, dir: Direction) -> &mut Validator {
        match dir {
            Direction::ClientToServer => &mut self.c2s,
            Direction::ServerToClient => &mut self.s2c,
            Direction::Unknown => panic!("Session::validator_mut needs a known direction"),
        }
    }
    /// The revision `dir`'s validator has decided, as [`ErrorReply::for_revision`] takes it:
    /// the profile's revision, or under [`Profile::Auto`] the one the traffic showed; `None`
    /// for [`Profile::Legacy`], an undecided `auto` stream and [`Direction::Unknown`].
    pub fn revision(&self, dir: Direction) -> Option<Revision> {
        let v = match dir {
            Direction::ClientToServer => &self.c2s,
            Direction::ServerToClient => &self.s2c,
            Direction::Unknown => return None,
        };
        v.revision()
    }
    /// The tracker.
    pub fn tracker(&self) -> &Tracker {
        &self.tracker
    }
    /// The tracker, to declare what it does not see ([`Tracker::set_partial`]).
    pub fn tracker_mut(&mut self) -> &mut Tracker {
        &mut self.tracker
    }
    /// A frame that flowed in `dir` with the raw id text `raw_id` (a JSON string or integer
    /// token, as [`Envelope::id_raw`] gives it, or the text of [`crate::recover_id`]'s span;
    /// keyed as [`IdKey::from_raw`] keys it) was meant as a
    /// response but [`check`](Self::check) could not treat it as one (a frame of shape
    /// [`Shape::Invalid`](crate::Shape::Invalid), such as one with both `result` and `error`,
    /// or one the parser rejected), and is being replaced by an error response: when its id
    /// answers a request in flight, that request is settled (no longer in flight) and this
    /// returns true; false when no request in flight has that id (or `raw_id` is not a string
    /// or integer id).
    ///
    /// A well-formed response (shape result or error) is matched by `check` itself, with or
    /// without violations: its [`Tracked`] outcome says whether it answered a request
    /// ([`Tracked::Answered`]); calling this afterwards returns false.
    pub fn settle_rejected_response(&mut self, dir: Direction, raw_id: &str) -> bool {
        self.settle(dir, raw_id)
    }
    /// True when a request that flowed in `dir` with id `raw_id` (the id's exact JSON text,
    /// as for [`settle_rejected_response`](Self::settle_rejected_response)) is in flight.
    /// A gateway answering a rejected frame that reuses such an id must not echo it: the
    /// sender would take the error as the earlier request's answer (see
    /// [`Tracked::DuplicateRequest`] for the same case in a well-formed request).
    pub fn request_in_flight(&self, dir: Direction, raw_id: &str) -> bool {
        msg::Msg::token_id_key(raw_id.as_bytes())
            .is_some_and(|key| self.tracker.is_in_flight(dir, &key))
    }
    /// A request that flowed in `dir` (id `raw_id`, as for
    /// [`settle_rejected_response`](Self::settle_rejected_response)) is answered by the caller
    /// (a gateway that rejected it and sent its own error reply), not by the peer: it is no
    /// longer in flight, and its id may be used again as the revision allows. True when a
    /// request with that id was in flight. Do not call it for a request `check` reported as
    /// [`Tracked::DuplicateRequest`]: the entry in flight is the earlier request's.
    pub fn settle_request(&mut self, dir: Direction, raw_id: &str) -> bool {
        self.settle(dir.reverse(), raw_id)
    }
    /// Settles the request in flight that a response flowing in `dir` with id `raw_id` answers.
    fn settle(&mut self, dir: Direction, raw_id: &str) -> bool {
        // The id is keyed exactly as in a well-formed response, through the same parse.
        let Some(key) = msg::Msg::token_id_key(raw_id.as_bytes()) else {
            return false;
        };
        // An ambiguous match (a reused id) still answers a request in flight.
        matches!(
            self.tracker.on_response(dir, &key),
            tracker::Response::Matched { .. } | tracker::Response::Ambiguous
        )
    }
    /// Checks one envelope that flowed in `dir`, appending violations to `out`, and records
    /// it in the tracker: a request goes in flight, a response settles its request. Returns
    /// what the tracker made of it ([`Tracked`]); `Direction::Unknown` skips tracking
    /// ([`Tracked::Untracked`]) and judges each call with a fresh validator (so `auto`
    /// remembers no era there).
    ///
    /// What a gateway that rejects the message (any violation) owes, by outcome:
    ///
    /// | outcome | answer |
    /// |---|---|
    /// | [`Tracked::Request`] | [`error_reply`] to the sender, then [`Session::settle_request`] |
    /// | [`Tracked::DuplicateRequest`] | [`error_reply`] with `None` (no id) to the sender: the id names the earlier request in flight, whose answer it would otherwise read as; do not settle (the entry is the earlier request's) |
    /// | [`Tracked::Answered`], [`Tracked::NotJudged`] (a response) | [`replacement_reply`] to the receiver |
    /// | [`Tracked::UnknownId`] | nothing (it answers no request) |
    /// | [`Tracked::Untracked`], shape invalid, with a `method` | [`error_reply`] to the sender (from a server: when it has an id) |
    /// | [`Tracked::Untracked`], shape invalid, no `method`, with an id | [`replacement_reply`] to the receiver when [`Session::settle_rejected_response`] is true |
    /// | [`Tracked::Untracked`], a notification | nothing |
    /// | [`Tracked::Batch`] | per element as above, the sender's error replies in one JSON array |
    ///
    /// A frame that [`parse`](crate::parse) rejected has no outcome: [`error_reply_for_frame`]
    /// to the sender ([`error_reply`]`(None, …)`, without the id, when
    /// [`Session::request_in_flight`] is true for it), or, when [`crate::recover_id`] reads an
    /// id but [`crate::recover_request_id`] does not, [`replacement_reply`] if
    /// [`Session::settle_rejected_response`] is true. `mcpwire proxy` follows this table.
    pub fn check(
        &mut self,
        dir: Direction,
        env: &Envelope<'_>,
        out: &mut Vec<Violation>,
    ) -> Tracked {
        let m = msg::Msg::from_envelope(env);
        let v = match dir {
            Direction::ClientToServer => &mut self.c2s,
            Direction::ServerToClient => &mut self.s2c,
            Direction::Unknown => {
                let mut v = Validator::new(self.c2s.profile, Direction::Unknown);
                validate::check(&mut v, &m, None, out);
                return Tracked::Untracked;
            }
        };
        let tracked = validate::check(v, &m, Some((&mut self.tracker, dir)), out);
        // The answer to `initialize` names the negotiated revision: under `auto` it decides
        // both directions (hostile re-trial: the client's side kept the revision the client
        // asked for, and the server's side stayed undecided, so its batches passed after a
        // 2025-06-18 handshake).
        if let Tracked::Answered { method } = &tracked
            && method == "initialize"
            && m.shape == crate::Shape::Result
            && let Some(pv) = m.result_member("protocolVersion").and_then(|s| m.str_at(s))
        {
            let era = Era::Legacy(Revision::from_version(&pv).filter(|r| !r.is_modern()));
            for v in [&mut self.c2s, &mut self.s2c] {
                if v.profile == Profile::Auto {
                    v.era = era;
                }
            }
        }
        m.report_repeated(out);
        tracked
    }
}

#[cfg(test)]
mod tests;
