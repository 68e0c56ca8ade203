//! A bounded table of in-flight request ids per sender (spec digest §2.3): flags a request id
//! the same sender still has in flight, a legacy request id the sender already used in this
//! session, and a response whose id matches no in-flight request of the peer. It also keeps
//! the progress tokens of the requests in flight (spec digest §10), so that progress for a
//! token of no active request, progress that does not increase and a token two requests in
//! flight share are found.
//!
//! Ids are compared as JSON values: strings after unescaping, integers by their text, and a
//! string never equals an integer (`1` and `"1"` are different ids).

use std::collections::{HashMap, HashSet, VecDeque};

use super::{Direction, Revision};

/// The canonical key of a JSON-RPC request id: the key the [`Tracker`] matches ids by, for a
/// gateway that keys its own maps the same way (a response to its request, a
/// `notifications/cancelled` `requestId`).
///
/// Two ids have equal keys exactly when the tracker treats them as the same id:
///
/// * a string id is compared by its value after unescaping (RFC 8259 §7): `"J"`, `"\u004a"`
///   and `"\u004A"` are one id, as are `"/"` and `"\/"`, and a
///   `\u` surrogate pair equals the character written as UTF-8. The decoded text is then
///   compared exactly (no Unicode normalisation, no case folding; `"\u0000"` is a NUL inside
///   the id). An unpaired surrogate escape is rejected by the parser, so such an id has no
///   key;
/// * an integer id (a plain integer within ±(2^53−1)) is compared by its text: `1` and `01`
///   cannot both occur (`01` is not JSON), and `-0` is no valid id;
/// * a string never equals an integer: `1` and `"1"` are different ids;
/// * `null`, floats and exponents (`1.0`, `1e3`), booleans, objects and arrays have no key
///   (they are no usable request id).
///
/// A string id longer than 128 bytes (decoded) is kept as a 128-bit keyed digest, so a key's
/// size does not grow with the id a peer sends; the digest keys are chosen per process, so
/// keys are comparable within one process only: do not persist them or send them elsewhere.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IdKey(String);

impl IdKey {
    /// The key of `raw_id`, an id's raw JSON text as [`Envelope::id_raw`] gives it (or the
    /// text of the span [`crate::recover_id`] returns): exactly one JSON string or integer id
    /// token, without surrounding whitespace. `None` for anything else (`null`, a float, text
    /// that is not one JSON value).
    ///
    /// [`Envelope::id_raw`]: crate::Envelope::id_raw
    pub fn from_raw(raw_id: &str) -> Option<IdKey> {
        super::msg::Msg::token_id_key(raw_id.as_bytes()).map(IdKey)
    }
    /// The key of `env`'s id, when it is a string or an integer (any shape: a request's, a
    /// response's).
    pub fn of(env: &crate::Envelope<'_>) -> Option<IdKey> {
        super::msg::Msg::from_envelope(env).id_key().map(IdKey)
    }
}

impl std::fmt::Debug for IdKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("IdKey").field(&self.0).finish()
    }
}

#[derive(Clone, Debug)]
struct Entry {
    method: String,
    revision: Option<Revision>,
    tasks_declared: bool,
    cancelled: bool,
    /// Late responses that may still come for earlier, cancelled requests whose id this
    /// request reused (each reuse after a cancel adds one): the next responses with this id
    /// may answer any of them.
    late_possible: u32,
    /// A response with this id already came while `late_possible` was set: the one left
    /// may answer either request (or never come), so it is not judged.
    unsure: bool,
    /// Sent before the last [`Tracker::reset`] (an earlier session): its id is free again.
    earlier_session: bool,
    /// When it was recorded (the side's request count then): its place in `Side::order`.
    seq: u64,
    /// The key of its `_meta.progressToken`, when it has one ([`Tracker::on_request_token`]).
    token: Option<String>,
}

/// The progress of one progress token of a request in flight (spec digest §10).
#[derive(Clone, Debug)]
struct TokenState {
    /// The key and `seq` of the request that owns the token.
    owner: String,
    owner_seq: u64,
    /// The last `progress` value reported for it.
    last: Option<ProgressValue>,
    /// Another request in flight used the token too: its progress is not judged.
    shared: bool,
}

#[derive(Clone, Debug, Default)]
struct Side {
    map: HashMap<String, Entry>,
    /// Keys in the order their requests were recorded, each with the entry's `seq`; an item
    /// whose entry is gone or was recorded again later (an answered id used again, a
    /// cancelled id reused) is stale and skipped, so the oldest request is evicted first
    /// (fuzz finding: a stale place of a reused id evicted the newest request).
    order: VecDeque<(String, u64)>,
    /// Requests recorded so far (the next entry's `seq`).
    recorded: u64,
    /// Cancelled entries in the order they were cancelled, each with its `seq` (stale items
    /// skipped as in `order`): a full table evicts these first, since their answers may
    /// never come.
    cancelled_order: VecDeque<(String, u64)>,
    /// Keys of evicted cancelled entries, one item per answer that may still come (bounded by
    /// the tracker's `max`): such an answer is not judged, any other unknown id still is.
    late_after_eviction: VecDeque<String>,
    /// Completed legacy request ids of this session (at most `max`, oldest forgotten first).
    used: BoundedSet,
    /// Progress tokens of this sender's requests in flight, by token key.
    tokens: HashMap<String, TokenState>,
    /// Tokens of requests answered with a task (2025-11-25 `CreateTaskResult`, 2026
    /// `resultType: "task"`): progress may go on for the task's lifetime, so it is not
    /// judged (at most `max`; `tokens_unsure` once one was forgotten).
    lingering: BoundedSet,
    tokens_unsure: bool,
}

/// A set of keys that holds at most a given number, forgetting the oldest first.
#[derive(Clone, Debug, Default)]
struct BoundedSet {
    set: HashSet<String>,
    /// The keys of `set` in insertion order.
    order: VecDeque<String>,
}

impl BoundedSet {
    /// Inserts `key`, then forgets the oldest keys beyond `max`; true when one was forgotten.
    fn insert(&mut self, key: String, max: usize) -> bool {
        let mut forgot = false;
        if self.set.insert(key.clone()) {
            self.order.push_back(key);
            while self.set.len() > max {
                match self.order.pop_front() {
                    Some(k) => {
                        self.set.remove(&k);
                        forgot = true;
                    }
                    None => break,
                }
            }
        }
        forgot
    }
    fn contains(&self, key: &str) -> bool {
        self.set.contains(key)
    }
    fn remove(&mut self, key: &str) {
        if self.set.remove(key) {
            self.order.retain(|k| k != key);
        }
    }
    fn clear(&mut self) {
        self.set.clear();
        self.order.clear();
    }
}

impl Side {
    /// Forgets the progress token of `e`, an entry just removed from the map, when it still
    /// owns it.
    fn release_token(&mut self, e: &Entry) {
        if let Some(t) = &e.token
            && self.tokens.get(t).is_some_and(|st| st.owner_seq == e.seq)
        {
            self.tokens.remove(t);
        }
    }

    /// Marks the entry of `key` cancelled (queued for eviction before live requests).
    fn cancel(&mut self, key: &str) -> bool {
        let Some(e) = self.map.get_mut(key) else {
            return false;
        };
        if !e.cancelled {
            e.cancelled = true;
            self.cancelled_order.push_back((key.to_owned(), e.seq));
        }
        true
    }

    /// Evicts one entry to make room: the earliest cancelled one, else the oldest. Returns
    /// whether a live (not cancelled) request was evicted, and whether answers of an evicted
    /// cancelled one were forgotten (more than `max` pending).
    fn evict_one(&mut self, max: usize) -> Option<(bool, bool)> {
        while let Some((k, seq)) = self.cancelled_order.pop_front() {
            if self
                .map
                .get(&k)
                .is_some_and(|e| e.seq == seq && e.cancelled)
            {
                let e = self.map.remove(&k).expect("entry checked above");
                self.release_token(&e);
                let mut lost = false;
                for _ in 0..=e.late_possible {
                    self.late_after_eviction.push_back(k.clone());
                    if self.late_after_eviction.len() > max {
                        self.late_after_eviction.pop_front();
                        lost = true;
                    }
                }
                return Some((false, lost));
            }
        }
        while let Some((k, seq)) = self.order.pop_front() {
            if self.map.get(&k).is_some_and(|e| e.seq == seq) {
                if let Some(e) = self.map.remove(&k) {
                    self.release_token(&e);
                }
                return Some((true, false));
            }
        }
        None
    }
}

/// A `progress` value: an integer token exactly (within ±2^127), any other number as an
/// IEEE 754 double (re-trial, session 23: 2^53 + 1 after 2^53 was a false
/// `progress-not-increasing` when both were read as doubles).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ProgressValue {
    Int(i128),
    Float(f64),
}

impl ProgressValue {
    /// The value of a JSON number token.
    pub(crate) fn parse(text: &str) -> Option<ProgressValue> {
        if !text.contains(['.', 'e', 'E'])
            && let Ok(i) = text.parse::<i128>()
        {
            return Some(ProgressValue::Int(i));
        }
        text.parse::<f64>().ok().map(ProgressValue::Float)
    }

    fn greater_than(self, other: ProgressValue) -> bool {
        match (self, other) {
            (ProgressValue::Int(a), ProgressValue::Int(b)) => a > b,
            (a, b) => a.as_f64() > b.as_f64(),
        }
    }

    fn as_f64(self) -> f64 {
        match self {
            ProgressValue::Int(i) => i as f64,
            ProgressValue::Float(f) => f,
        }
    }
}

impl std::fmt::Display for ProgressValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProgressValue::Int(i) => write!(f, "{i}"),
            ProgressValue::Float(x) => write!(f, "{x}"),
        }
    }
}

/// Verdict on a `notifications/progress` ([`Tracker::on_progress`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Progress {
    /// The token belongs to a request in flight, and the value increased (or is the first).
    Ok,
    /// The value is not greater than the last one reported for the token.
    NotIncreasing {
        /// The last value.
        last: ProgressValue,
    },
    /// No request of the peer in flight holds the token, and the tracker is sure of it.
    Unknown,
    /// Not judged (a shared or lingering token, evicted or unseen requests).
    NotJudged,
}

/// Verdict on a request id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RequestId {
    /// Not in flight and (legacy) not used before in this session.
    Fresh,
    /// The same sender still has a request with this id in flight.
    InFlight,
    /// Legacy: the same sender already used this id in this session.
    Reused,
}

/// True when `rev` forbids id reuse within a session (every revision before 2026-07-28;
/// `None` is the legacy union).
pub(crate) fn legacy(rev: Option<Revision>) -> bool {
    rev.is_none_or(|r| !r.is_modern())
}

/// Outcome of matching a response id.
pub(crate) enum Response {
    /// The request was in flight; its method and revision.
    Matched {
        method: String,
        revision: Option<Revision>,
        /// The request's `_meta` client capabilities declared the Tasks extension.
        tasks_declared: bool,
    },
    /// No such request in flight (and nothing was evicted or unseen, so the verdict is
    /// sure).
    Unknown,
    /// A request with this id is in flight, but the response may also answer an earlier,
    /// cancelled request whose id it reused: not judged.
    Ambiguous,
    /// Not judged (the table has evicted entries, or requests of that sender may pass
    /// unseen: the request may have been dropped or never seen).
    NotTracked,
}

/// In-flight requests of both senders of one connection, at most `max` per sender.
///
/// When a sender has `max` requests in flight, one is evicted to make room: the earliest
/// cancelled one (its answer may never come), else the oldest. After a live request was
/// evicted, a response with an unknown id is no longer reported (it may answer the evicted
/// request), so the tracker never reports a false
/// [`UnknownResponseId`](super::Rule::UnknownResponseId); the late answers of evicted
/// cancelled requests are remembered by id (at most `max` per sender) and not judged, and
/// unknown ids are still reported after such evictions (a long session with many cancels
/// keeps its unknown-id check).
/// For legacy requests it also remembers up to `max` completed ids per sender, to flag
/// [`ReusedRequestId`](super::Rule::ReusedRequestId); a forgotten id is never reported.
/// Progress tokens are kept with their requests (and, for requests answered with a task, up
/// to `max` more per sender); an unknown token is reported
/// ([`UnknownProgressToken`](super::Rule::UnknownProgressToken)) only while nothing was
/// evicted or forgotten and the peer's requests all pass this tracker.
/// Memory is O(`max`) per sender.
#[derive(Clone, Debug)]
pub struct Tracker {
    max: usize,
    client: Side,
    server: Side,
    /// Entries evicted (live and cancelled).
    evicted: u64,
    /// Live requests evicted, or late answers of evicted cancelled requests forgotten: from
    /// then on an unknown response id is not judged.
    unsure: bool,
    /// Set by [`Tracker::set_partial`]: requests the client / the server sent may not all
    /// pass this tracker.
    partial_client: bool,
    partial_server: bool,
}

impl Tracker {
    /// A tracker holding at most `max` in-flight requests per sender (`max` is raised to 1).
    pub fn new(max: usize) -> Self {
        Self {
            max: max.max(1),
            client: Side::default(),
            server: Side::default(),
            evicted: 0,
            unsure: false,
            partial_client: false,
            partial_server: false,
        }
    }
    /// The most requests in flight kept per sender (as [`new`](Self::new) set it, at least 1).
    pub fn max_in_flight(&self) -> usize {
        self.max
    }
    /// Declares that requests flowing in `requests` may not all pass this tracker (e.g. on
    /// Streamable HTTP a proxy that does not validate `GET` streams never sees the server's
    /// requests sent on them): a response to such a request whose id matches no tracked
    /// request is then not reported, as after an eviction. Kept across [`Tracker::reset`]
    /// (it describes what the observer sees, not the session).
    pub fn set_partial(&mut self, requests: Direction) {
        match requests {
            Direction::ClientToServer => self.partial_client = true,
            Direction::ServerToClient => self.partial_server = true,
            Direction::Unknown => {}
        }
    }
    /// True after [`Tracker::set_partial`] for `requests`.
    pub fn is_partial(&self, requests: Direction) -> bool {
        match requests {
            Direction::ClientToServer => self.partial_client,
            Direction::ServerToClient => self.partial_server,
            Direction::Unknown => false,
        }
    }
    /// Requests the sender on `dir`'s side has in flight (`0` for `Unknown`).
    pub fn in_flight(&self, dir: Direction) -> usize {
        self.side_of(dir).map_or(0, |s| s.map.len())
    }
    /// True when the sender on `dir`'s side has a request with the tracker key `key` in
    /// flight (cancelled ones included: their id is not free until answered or forgotten).
    pub(crate) fn is_in_flight(&self, dir: Direction, key: &str) -> bool {
        self.side_of(dir).is_some_and(|s| s.map.contains_key(key))
    }
    /// How many in-flight entries were evicted because the table was full.
    pub fn evicted(&self) -> u64 {
        self.evicted
    }

    fn side_of(&self, sender: Direction) -> Option<&Side> {
        match sender {
            Direction::ClientToServer => Some(&self.client),
            Direction::ServerToClient => Some(&self.server),
            Direction::Unknown => None,
        }
    }

    fn side(&mut self, sender: Direction) -> Option<&mut Side> {
        match sender {
            Direction::ClientToServer => Some(&mut self.client),
            Direction::ServerToClient => Some(&mut self.server),
            Direction::Unknown => None,
        }
    }

    /// Starts a new session (a legacy `initialize`): forgets the completed request ids that
    /// legacy revisions forbid reusing within a session, and treats the requests in flight as
    /// cancelled: their responses are still accepted (a client falls back to `initialize`
    /// after a `server/discover` probe that failed or timed out, and the probe's answer can
    /// arrive later), they may stay unanswered, and their ids may be used again.
    pub fn reset(&mut self) {
        for side in [&mut self.client, &mut self.server] {
            side.used.clear();
            let keys: Vec<String> = side.map.keys().cloned().collect();
            for k in keys {
                side.cancel(&k);
                if let Some(e) = side.map.get_mut(&k) {
                    e.earlier_session = true;
                }
            }
        }
    }

    /// Records a request sent on `dir` under revision `revision` (`None` = legacy union);
    /// says whether its id is fresh, in flight, or (legacy) already used in this session.
    pub(crate) fn on_request(
        &mut self,
        dir: Direction,
        key: String,
        method: &str,
        revision: Option<Revision>,
        tasks_declared: bool,
    ) -> RequestId {
        let max = self.max;
        let (mut evicted, mut unsure) = (0, false);
        let Some(side) = self.side(dir) else {
            return RequestId::Fresh;
        };
        let verdict = match side.map.get(&key) {
            Some(e) if !e.cancelled => RequestId::InFlight,
            Some(e) if legacy(revision) && !e.earlier_session => RequestId::Reused,
            _ if legacy(revision) && side.used.contains(&key) => RequestId::Reused,
            _ => RequestId::Fresh,
        };
        if verdict != RequestId::InFlight {
            if !side.map.contains_key(&key) {
                while side.map.len() >= max {
                    let Some((live, lost)) = side.evict_one(max) else {
                        break;
                    };
                    evicted += 1;
                    unsure |= live || lost;
                }
            }
            // Reusing the id of a cancelled request: its late response may still come (also
            // when that request was evicted: its pending answers move into the new entry).
            let mut late_possible = side
                .map
                .get(&key)
                .filter(|e| e.cancelled)
                .map_or(0, |e| e.late_possible.saturating_add(1));
            if !side.map.contains_key(&key) && side.late_after_eviction.contains(&key) {
                let before = side.late_after_eviction.len();
                side.late_after_eviction.retain(|k| *k != key);
                late_possible = (before - side.late_after_eviction.len()) as u32;
            }
            let seq = side.recorded;
            side.recorded += 1;
            side.order.push_back((key.clone(), seq));
            let replaced = side.map.insert(
                key,
                Entry {
                    method: method.to_owned(),
                    revision,
                    tasks_declared,
                    cancelled: false,
                    late_possible,
                    unsure: false,
                    earlier_session: false,
                    seq,
                    token: None,
                },
            );
            if let Some(old) = replaced {
                side.release_token(&old);
            }
        }
        if side.order.len() > 2 * max + 16 {
            let map = &side.map;
            side.order
                .retain(|(k, seq)| map.get(k).is_some_and(|e| e.seq == *seq));
        }
        if side.cancelled_order.len() > 2 * max + 16 {
            let map = &side.map;
            side.cancelled_order
                .retain(|(k, seq)| map.get(k).is_some_and(|e| e.seq == *seq && e.cancelled));
        }
        self.evicted += evicted;
        self.unsure |= unsure;
        verdict
    }

    /// Matches a response sent on `dir` against the peer's in-flight requests.
    pub(crate) fn on_response(&mut self, dir: Direction, key: &str) -> Response {
        self.on_response_keeping(dir, key, false)
    }

    /// [`Tracker::on_response`]; when `task` (the response answers with a task, whose
    /// progress may go on after it), the request's progress token is kept as lingering.
    pub(crate) fn on_response_keeping(
        &mut self,
        dir: Direction,
        key: &str,
        task: bool,
    ) -> Response {
        let sure = !self.unsure && !self.is_partial(dir.reverse());
        let max = self.max;
        let Some(side) = self.side(dir.reverse()) else {
            return Response::NotTracked;
        };
        if let Some(e) = side.map.get_mut(key)
            && e.late_possible > 0
        {
            // The late response to the cancelled request or the answer to this one: keep the
            // entry for the other, which may never come (so the id may be reused), and judge
            // neither (regression: a cancel, the id reused, the late answer settled the new
            // request and the real answer was reported unknown and dropped by the proxy).
            e.late_possible -= 1;
            e.unsure = true;
            side.cancel(key);
            return Response::Ambiguous;
        }
        match side.map.remove(key) {
            Some(e) => {
                side.release_token(&e);
                if task && let Some(t) = &e.token {
                    side.tokens_unsure |= side.lingering.insert(t.clone(), max);
                }
                // An earlier session's id is free in this one (review: the late answer to a
                // request sent before a legacy `initialize` made the new session's reuse of
                // its id a `reused-request-id`).
                if legacy(e.revision) && !e.earlier_session {
                    side.used.insert(key.to_owned(), max);
                }
                if e.unsure {
                    return Response::Ambiguous;
                }
                Response::Matched {
                    method: e.method,
                    revision: e.revision,
                    tasks_declared: e.tasks_declared,
                }
            }
            None => {
                // The late answer of a cancelled request evicted to make room.
                if let Some(i) = side.late_after_eviction.iter().position(|k| k == key) {
                    side.late_after_eviction.remove(i);
                    return Response::NotTracked;
                }
                if sure {
                    Response::Unknown
                } else {
                    Response::NotTracked
                }
            }
        }
    }

    /// Records the progress token (key `token`, as [`Msg::token_id_key`](super::msg::Msg)
    /// keys ids) of the request with key `key` that [`Tracker::on_request`] just recorded on
    /// `dir`. True when another request of the same sender still in flight (not cancelled)
    /// holds the token: progress tokens are unique across the sender's active requests
    /// (spec digest §10); the progress of a shared token is then not judged.
    pub(crate) fn on_request_token(&mut self, dir: Direction, key: &str, token: String) -> bool {
        let Some(side) = self.side(dir) else {
            return false;
        };
        let Some(seq) = side.map.get(key).map(|e| e.seq) else {
            return false;
        };
        // The owner still in flight: a duplicate when it is live; when it was cancelled, its
        // late progress may still come, so the token's values are not judged either way
        // (re-trial, session 23: a cancelled request's late `5` made the new one's `1` a
        // false `progress-not-increasing`).
        let owner = side.tokens.get(&token).and_then(|st| {
            side.map
                .get(&st.owner)
                .filter(|e| e.seq == st.owner_seq && e.seq != seq)
        });
        let duplicate = owner.is_some_and(|e| !e.cancelled);
        let shared = owner.is_some();
        side.lingering.remove(&token);
        if let Some(e) = side.map.get_mut(key) {
            e.token = Some(token.clone());
        }
        side.tokens.insert(
            token,
            TokenState {
                owner: key.to_owned(),
                owner_seq: seq,
                last: None,
                shared,
            },
        );
        duplicate
    }

    /// `notifications/progress` sent on `dir` with token key `token` and `progress` value
    /// `value` (`None` when it is no number): matched against the tokens of the peer's
    /// requests in flight.
    pub(crate) fn on_progress(
        &mut self,
        dir: Direction,
        token: &str,
        value: Option<ProgressValue>,
    ) -> Progress {
        let sure = !self.unsure && self.evicted == 0 && !self.is_partial(dir.reverse());
        let Some(side) = self.side(dir.reverse()) else {
            return Progress::NotJudged;
        };
        if let Some(st) = side.tokens.get_mut(token) {
            if st.shared {
                return Progress::NotJudged;
            }
            let Some(v) = value else {
                return Progress::NotJudged;
            };
            return match st.last {
                Some(last) if !v.greater_than(last) => Progress::NotIncreasing { last },
                _ => {
                    st.last = Some(v);
                    Progress::Ok
                }
            };
        }
        if side.lingering.contains(token) || side.tokens_unsure || !sure {
            return Progress::NotJudged;
        }
        Progress::Unknown
    }

    /// `notifications/cancelled` sent on `dir` for `key`: the sender's own request (or, for
    /// a 2026 server ending a listen stream, the peer's) may now stay unanswered; a late
    /// response is still accepted and the id may be reused.
    pub(crate) fn on_cancel(&mut self, dir: Direction, key: &str) {
        for d in [dir, dir.reverse()] {
            if let Some(side) = self.side(d)
                && side.cancel(key)
            {
                return;
            }
        }
    }
}
